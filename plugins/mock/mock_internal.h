/* mock_internal.h — what the mock plugin's files share: the instance, the
 * URLs its `serve` hook tells requests apart by, the script, and every
 * function one file calls in another. Plugin-private (hidden symbols).
 *
 * Which file owns what:
 *   plugin.c        the instance, the capabilities, the vtable, the init
 *   helpers.c       small JSON helpers, seam's kind and stop reason names
 *   encode.c        chat: seam request -> the mock's HTTP request
 *   script.c        the script read back out of an encoded request
 *   serve.c         the serve hook: the bytes a mock server would send (the
 *                   wire of a chat answer)
 *   decode.c        chat: the mock's wire -> seam chunks
 *   errors.c        an error answer -> a classified seam_error
 *   embed.c         embeddings
 *   count_tokens.c  the token count
 *   media.c         media generation (a job for video)
 *   transcribe.c    transcription */
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

/* helpers.c */
int mock_is_number(json_object *v);
/* Adds key = v to object o, taking v; NULL-safe (-1 when anything failed). */
int mock_put(json_object *o, const char *key, json_object *v);
/* Appends v to array a, taking v; NULL-safe like mock_put(). */
int mock_push(json_object *a, json_object *v);
/* Adds key = "value"; nothing for a NULL value. */
int mock_add_string(json_object *o, const char *key, const char *value);
seam_error_kind mock_kind_from_name(const char *name);
seam_stop_reason mock_stop_from_name(const char *name);

/* encode.c */
/* The generate request's JSON body (the vtable's encode). */
int mock_encode(void *instance, const seam_request *req, int stream, seam_http_request *out,
                seam_error *err);

/* script.c */
typedef struct mock_tool {
    char *id;
    char *name;
    char *args; /* a JSON object as compact text */
} mock_tool;

typedef struct mock_script {
    char *reply;
    long chunks;
    unsigned delay_ms;
    const char *reasoning;
    const char *signature;
    mock_tool *tools;
    size_t n_tools;
    seam_stop_reason stop_reason;
    seam_usage usage;
    int error_status;
    const char *error_body;
    json_object *error_headers; /* array of "Name: value" strings, or NULL */
    long cut_after;             /* -1: no cut */
    int stream_error;
    const char *stream_error_type;
    const char *stream_error_message;
    uint32_t media;             /* output modalities asked for beyond text */
} mock_script;

void mock_script_free(mock_script *sc);
/* Words in the text parts of an encoded request's messages. */
int64_t mock_request_words(json_object *messages);
/* The number of assistant messages: which entry of `replies` answers. */
size_t mock_assistant_turns(json_object *messages);
/* The effective script of this turn (a new object); NULL with err set. */
json_object *mock_script_for_turn(json_object *options, size_t turn, seam_error *err);
/* Reads the script out of the encoded request. Strings in sc borrow from
 * `script` (kept alive by the caller). */
int mock_read_script(json_object *request, json_object *script, size_t turn,
                     mock_script *sc, seam_error *err);

/* serve.c */
/* The vtable's serve: every operation's request, told apart by its URL. */
int mock_serve(void *instance, const seam_http_request *hr, seam_served *out,
               seam_error *err);
/* Serves the HTTP error the script in request's "options" asks for
 * (error_status, error_body, error_headers): 1 when it did, 0 when the script
 * asks for none, a negative status with err filled. */
int mock_serve_script_error(json_object *request, seam_served *out, seam_error *err);

/* decode.c */
void *mock_decoder_new(void *instance, const seam_request *req);
void mock_decoder_free(void *decoder);
int mock_decode_event(void *decoder, const seam_frame *frame, seam_emitter *out,
                      seam_error *err);
int mock_decode_response(void *instance, const seam_request *req, const char *body,
                         size_t len, seam_emitter *out, seam_error *err);

/* errors.c */
void mock_classify_error(void *instance, int http_status, const seam_http_headers *headers,
                         const char *body, size_t len, seam_error *err);

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

/* serve.c: the deterministic media, base64: a 1x1 PNG, a short WAV. */
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
