/* seam/mediagen.h — media generation on the providers' separate endpoints
 * (reference 002, ADR-0031 decision 6 and ADR-0045): the generation request
 * shared by applications and the plugins that encode it, the client call
 * seam_generate_media, and the asynchronous job (a video) that a caller
 * polls, persists as a checkpoint, resumes after a restart and cancels.
 * Included by <seam/seam.h> and <seam/plugin.h>.
 *
 * The conventions of <seam/types.h> hold: opaque handles with _new/_free,
 * borrowed `const char *` results, SEAM_OK or a negative seam_status, and a
 * caller-provided seam_error filled on failure. Generated media goes into the
 * client's media store at once: a result holds handles, never bytes.
 */
#ifndef SEAM_MEDIAGEN_H
#define SEAM_MEDIAGEN_H

#include <seam/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Declared in <seam/seam.h>; repeated so that a plugin needs only this header. */
typedef struct seam_client seam_client;
typedef struct seam_call_options seam_call_options;
typedef struct seam_cancel seam_cancel;

/* ---- the generation request ------------------------------------------------ */

typedef struct seam_media_request seam_media_request;

/* A request for media of one modality (SEAM_MODALITY_IMAGE, _AUDIO: speech
 * of the prompt, _VIDEO) from prompt (copied). NULL for another modality, a
 * NULL or empty prompt, or without memory. Free with seam_media_request_free(). */
SEAM_EXPORT seam_media_request *seam_media_request_new(uint32_t modality, const char *prompt);
SEAM_EXPORT void seam_media_request_free(seam_media_request *mr);
/* The setters copy their argument; NULL clears a string. SEAM_OK,
 * SEAM_ERR_INVALID (a bad value), SEAM_ERR_NOMEM.
 * model: a chain entry's model or seam_call_options.model replaces it.
 * mime_type: the output format asked for ("image/png", "audio/wav"), a bare
 *   type/subtype of the request's modality; NULL: the provider's default.
 * count: images per call (1..16; 0: the provider's default).
 * seconds: the length of a video (0: the provider's default).
 * voice: the voice of speech ("alloy"); NULL: the plugin's default.
 * size: "WIDTHxHEIGHT" ("1024x1024") or an aspect ratio ("16:9").
 * provider_options: a JSON object merged into the provider's request body.
 * deadline_ms: how long an asynchronous job may take in all, polls included
 *   (0: the conf's media.job_deadline_ms). */
SEAM_EXPORT int seam_media_request_set_model(seam_media_request *mr, const char *model);
SEAM_EXPORT int seam_media_request_set_mime_type(seam_media_request *mr, const char *mime_type);
SEAM_EXPORT int seam_media_request_set_count(seam_media_request *mr, int count);
SEAM_EXPORT int seam_media_request_set_seconds(seam_media_request *mr, int seconds);
SEAM_EXPORT int seam_media_request_set_voice(seam_media_request *mr, const char *voice);
SEAM_EXPORT int seam_media_request_set_size(seam_media_request *mr, const char *size);
SEAM_EXPORT int seam_media_request_set_provider_options(seam_media_request *mr,
                                                        const char *options_json);
SEAM_EXPORT int seam_media_request_set_deadline_ms(seam_media_request *mr, int64_t deadline_ms);
/* Readers, for plugins: borrowed strings, NULL (or 0) when unset. */
SEAM_EXPORT uint32_t seam_media_request_modality(const seam_media_request *mr);
SEAM_EXPORT const char *seam_media_request_prompt(const seam_media_request *mr);
SEAM_EXPORT const char *seam_media_request_model(const seam_media_request *mr);
SEAM_EXPORT const char *seam_media_request_mime_type(const seam_media_request *mr);
SEAM_EXPORT int seam_media_request_count(const seam_media_request *mr);
SEAM_EXPORT int seam_media_request_seconds(const seam_media_request *mr);
SEAM_EXPORT const char *seam_media_request_voice(const seam_media_request *mr);
SEAM_EXPORT const char *seam_media_request_size(const seam_media_request *mr);
SEAM_EXPORT const char *seam_media_request_provider_options(const seam_media_request *mr);

/* ---- asynchronous jobs ---------------------------------------------------------- */

/* seam's record of a generation a provider runs in the background: seam's
 * own job id (never the vendor's operation name), the configured provider
 * and model that accepted it (a job stays with them), the state, the
 * progress, the back-off and the deadline. A job is not locked: use it from
 * one thread at a time (the cancel token may be triggered from any). */
typedef struct seam_media_job seam_media_job;

typedef enum seam_media_job_state {
    SEAM_MEDIA_JOB_PENDING = 1, /* running at the provider: poll again */
    SEAM_MEDIA_JOB_DONE,        /* the media is in the store (the poll's result) */
    SEAM_MEDIA_JOB_FAILED       /* failed, cancelled or past its deadline: see the error */
} seam_media_job_state;

/* seam's job id, "job-" and 32 hex digits. Borrowed. */
SEAM_EXPORT const char *seam_media_job_id(const seam_media_job *job);
SEAM_EXPORT seam_media_job_state seam_media_job_status(const seam_media_job *job);
/* The provider's last progress report, 0..1; -1 when it gave none. */
SEAM_EXPORT double seam_media_job_progress(const seam_media_job *job);
/* The configured provider and the model that run the job. Borrowed. */
SEAM_EXPORT const char *seam_media_job_provider(const seam_media_job *job);
SEAM_EXPORT const char *seam_media_job_model(const seam_media_job *job);
/* Milliseconds to wait before the next poll: the back-off (the conf's
 * media.job_poll_ms, growing by half each poll up to media.job_poll_max_ms). */
SEAM_EXPORT int64_t seam_media_job_next_poll_ms(const seam_media_job *job);
/* The failure of a failed job (kind cancelled, timeout past the deadline,
 * content_filter, ...); NULL otherwise. Borrowed. */
SEAM_EXPORT const seam_error *seam_media_job_error(const seam_media_job *job);
/* The job as one line of text (JSON) that the caller persists and hands to
 * seam_media_job_resume, in this process or another, to take the job up
 * again. It holds no credential and no media bytes (a done job names its
 * handles). malloc'ed: free() it; NULL without memory. */
SEAM_EXPORT char *seam_media_job_checkpoint(const seam_media_job *job);
/* A job from a checkpoint. SEAM_ERR_INVALID (err says why) for text that is
 * not one; the provider must still be configured when the job is polled. */
SEAM_EXPORT int seam_media_job_resume(seam_client *client, const char *checkpoint,
                                      seam_media_job **out, seam_error *err);
/* One poll, now (no waiting): asks the provider how the job goes and, when
 * it is done, fetches the media into the store. Returns SEAM_OK with the
 * job's state updated: pending (progress), or done with *out the result
 * (free with seam_result_free; media parts are handles, media units counted);
 * *out stays NULL otherwise (out may be NULL). A failed job returns
 * SEAM_ERR_PROVIDER with err filled (and the job failed). A poll the
 * provider could not answer (a network failure, 429, 5xx) leaves the job
 * pending and backs off; past the job's deadline the job fails (kind
 * timeout, retryable). A poll this side cannot make (the provider not
 * configured here, no credential) returns SEAM_ERR_PROVIDER with err and
 * leaves the job pending. cancel (may be NULL) aborts the poll in flight: the
 * job stays pending and SEAM_ERR_PROVIDER is returned with kind cancelled. */
SEAM_EXPORT int seam_media_job_poll(seam_client *client, seam_media_job *job, seam_cancel *cancel,
                                    seam_result **out, seam_error *err);
/* Polls until the job is done or failed, waiting seam_media_job_next_poll_ms
 * between polls on the client's clock; on_poll(ud, job) (may be NULL) is
 * called after each poll, to show progress or persist the checkpoint. The
 * returns of seam_media_job_poll, SEAM_OK only with *out the result. A
 * trigger of cancel ends the wait at once (SEAM_ERR_PROVIDER, kind
 * cancelled): the job stays pending and can be resumed. */
SEAM_EXPORT int seam_media_job_wait(seam_client *client, seam_media_job *job, seam_cancel *cancel,
                                    void (*on_poll)(void *ud, const seam_media_job *job),
                                    void *ud, seam_result **out, seam_error *err);
/* Gives the job up: it fails with kind cancelled, so its checkpoint says so
 * and no later poll reaches the provider. The provider is not asked to stop
 * work already started. SEAM_ERR_INVALID for NULL. */
SEAM_EXPORT int seam_media_job_cancel(seam_media_job *job);
SEAM_EXPORT void seam_media_job_free(seam_media_job *job);

/* ---- the call ----------------------------------------------------------------------- */

/* Generates media through a chain (opts->chain; when opts and its chain and
 * provider are NULL: the chain of role "media", else the chain named
 * "media") or one provider (opts->provider, opts->model), with the chain's
 * retries, key rotation and failover until a provider accepts the request.
 * An entry whose plugin has no media generation is skipped and the skip
 * reported to opts->on_attempt.
 *
 * A synchronous endpoint (images, speech) answers at once: *out is the
 * result (free with seam_result_free): its message's media parts are
 * handles of the stored bytes, its media units count the images or the
 * seconds, its usage the tokens when the provider reports them. An
 * asynchronous one (video) accepts a job, which stays with the provider that
 * accepted it: with job non-NULL, *job is that job (pending; *out NULL),
 * for the caller to poll or wait on; with job NULL, the call waits for it
 * (seam_media_job_wait) and returns its result. mr is not modified. On
 * failure *out and *job are NULL and err is filled. */
SEAM_EXPORT int seam_generate_media(seam_client *client, const seam_media_request *mr,
                                    const seam_call_options *opts, seam_result **out,
                                    seam_media_job **job, seam_error *err);

#ifdef __cplusplus
}
#endif
#endif /* SEAM_MEDIAGEN_H */
