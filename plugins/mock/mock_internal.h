/* mock_internal.h — what the mock plugin's files share: the instance, the
 * URLs its `serve` hook tells requests apart by, and the helpers of mock.c
 * that embed.c and count_tokens.c reuse. Plugin-private (hidden symbols). */
#ifndef SEAM_MOCK_INTERNAL_H
#define SEAM_MOCK_INTERNAL_H

#include <seam/plugin.h>

#include <json-c/json.h>

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

#define MOCK_EMBED_URL "mock://local/v1/embeddings"
#define MOCK_COUNT_URL "mock://local/v1/count_tokens"
#define MOCK_MEDIA_URL "mock://local/v1/media/"
#define MOCK_TRANSCRIBE_URL "mock://local/v1/audio/transcriptions"
#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

typedef struct mock_instance {
    char *options_json; /* the conf's options, kept as text: parsed per call so
                         * that concurrent calls share nothing mutable */
} mock_instance;

/* mock.c */
/* The generate request's JSON body (the vtable's encode). */
int mock_encode(void *instance, const seam_request *req, int stream, seam_http_request *out,
                seam_error *err);
/* Words in the text parts of an encoded request's messages. */
int64_t request_words(json_object *messages);
/* Serves the HTTP error the script in request's "options" asks for
 * (error_status, error_body, error_headers): 1 when it did, 0 when the script
 * asks for none, a negative status with err filled. */
int mock_serve_script_error(json_object *request, seam_served *out, seam_error *err);

/* embed.c */
int mock_embed_encode(void *instance, const seam_embed_request *er, seam_http_request *out,
                      seam_error *err);
int mock_embed_serve(void *instance, const seam_http_request *hr, seam_served *out,
                     seam_error *err);
int mock_embed_decode(void *instance, const seam_embed_request *er, const char *body, size_t len,
                      seam_embeddings *out, seam_error *err);

/* count_tokens.c */
int mock_count_encode(void *instance, const seam_request *req, seam_http_request *out,
                      seam_error *err);
int mock_count_serve(void *instance, const seam_http_request *hr, seam_served *out,
                     seam_error *err);
int mock_count_decode(void *instance, const seam_request *req, const char *body, size_t len,
                      int64_t *input_tokens, seam_error *err);

/* mock.c: the deterministic media, base64: a 1x1 PNG, a short WAV. */
extern const char mock_png_b64[];
extern const char mock_wav_b64[];

/* media.c */
int mock_media_encode(void *instance, const seam_media_request *mr, seam_http_request *out,
                      seam_error *err);
int mock_media_decode(void *instance, const seam_media_request *mr, const char *body, size_t len,
                      seam_media_sink *out, seam_error *err);
int mock_media_poll_encode(void *instance, const char *ref, seam_http_request *out,
                           seam_error *err);
int mock_media_poll_decode(void *instance, const char *ref, const char *body, size_t len,
                           seam_media_sink *out, seam_error *err);
int mock_media_serve(void *instance, const seam_http_request *hr, seam_served *out,
                     seam_error *err);
/* transcribe.c */
int mock_transcribe_encode(void *instance, const seam_transcribe_request *tr,
                           seam_http_request *out, seam_error *err);
int mock_transcribe_serve(void *instance, const seam_http_request *hr, seam_served *out,
                          seam_error *err);
int mock_transcribe_decode(void *instance, const seam_transcribe_request *tr, const char *body,
                           size_t len, seam_transcription *out, seam_error *err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
