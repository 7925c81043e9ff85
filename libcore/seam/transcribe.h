/* seam/transcribe.h — speech to text (issue 13): the transcription request
 * an application fills, the transcription it gets back (text and usage), the
 * client call seam_transcribe, and what a plugin's decoder sets. Included by
 * <seam/seam.h> and <seam/plugin.h>.
 *
 * The conventions of <seam/types.h> hold: opaque handles with _new/_free,
 * borrowed `const char *` results, SEAM_OK or a negative seam_status, and a
 * caller-provided seam_error filled on failure.
 */
#ifndef SEAM_TRANSCRIBE_H
#define SEAM_TRANSCRIBE_H

#include <seam/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Declared in <seam/seam.h>; repeated so that a plugin needs only this header. */
typedef struct seam_client seam_client;
typedef struct seam_call_options seam_call_options;

/* What to transcribe. Zero it, set size to sizeof(seam_transcribe_request),
 * then the audio: its bytes (audio, audio_len) or a handle of the media store
 * (handle), and its MIME type. Every pointer is borrowed for the call. A
 * plugin gets the same struct with the bytes filled in (the core resolves a
 * handle) and model set to the chain entry's; handle is then NULL. */
typedef struct seam_transcribe_request {
    uint32_t size;
    const char *mime_type;    /* audio/wav, audio/mpeg, audio/flac, audio/ogg, audio/webm,
                               * audio/mp4, ...; required */
    const void *audio;        /* the bytes, audio_len of them; or NULL with handle */
    size_t audio_len;
    const char *handle;       /* "media://sha256-…": the bytes in the store */
    const char *model;        /* NULL: the chain entry's (or seam_call_options.model) */
    const char *language;     /* the spoken language, ISO-639-1 ("en"); NULL: detected */
    const char *prompt;       /* text that guides the transcription; NULL: none */
    const char *name;         /* a file name for the upload; NULL: "audio" and an
                               * extension from the MIME type */
} seam_transcribe_request;

typedef struct seam_transcription seam_transcription;

/* Transcribes the audio of tr through a chain (opts->chain; when opts and its
 * chain and provider are NULL: the chain of role "transcribe", else the chain
 * named "transcribe") or one provider (opts->provider, opts->model), with the
 * chain's retries, key rotation and failover. An entry whose plugin cannot
 * transcribe is skipped, and the skip reported to opts->on_attempt; a plugin
 * that refuses the entry's model does the same. The audio is not subject to
 * the inline limits of a chat message (it goes to an upload endpoint), but
 * its MIME type must be a bare audio type. On success *out holds the text,
 * the usage (tokens, cost when the model is priced) and the seconds of audio
 * when the provider says (free with seam_transcription_free()); on failure
 * *out is NULL and err is filled. tr is not modified. */
SEAM_EXPORT int seam_transcribe(seam_client *client, const seam_transcribe_request *tr,
                                const seam_call_options *opts, seam_transcription **out,
                                seam_error *err);

/* An empty transcription (a plugin's decoder fills the one the core hands
 * it; tests make their own). NULL on allocation failure. */
SEAM_EXPORT seam_transcription *seam_transcription_new(void);
SEAM_EXPORT void seam_transcription_free(seam_transcription *t);
/* The transcribed text ("" when none). Borrowed, valid until freed. */
SEAM_EXPORT const char *seam_transcription_text(const seam_transcription *t);
/* The usage: the tokens the provider reported, the cost when priced. Never
 * NULL for a non-NULL t. */
SEAM_EXPORT const seam_usage *seam_transcription_usage(const seam_transcription *t);
/* The seconds of audio transcribed, as the provider reported them (billed by
 * duration) or the core read them from a WAV header; -1 when unknown. */
SEAM_EXPORT double seam_transcription_seconds(const seam_transcription *t);
/* The configured provider and the model that answered (NULL if unknown). */
SEAM_EXPORT const char *seam_transcription_provider(const seam_transcription *t);
SEAM_EXPORT const char *seam_transcription_model(const seam_transcription *t);

/* What a plugin's transcribe_decode calls. set_text copies text (SEAM_ERR_INVALID
 * for NULL, SEAM_ERR_NOMEM); set_usage copies the counts (the core prices
 * them); set_seconds records the duration (SEAM_ERR_INVALID when negative or
 * not finite). */
SEAM_EXPORT int seam_transcription_set_text(seam_transcription *t, const char *text);
SEAM_EXPORT int seam_transcription_set_usage(seam_transcription *t, const seam_usage *usage);
SEAM_EXPORT int seam_transcription_set_seconds(seam_transcription *t, double seconds);

#ifdef __cplusplus
}
#endif
#endif /* SEAM_TRANSCRIBE_H */
