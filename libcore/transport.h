/* transport.h — the objects that cross between the core's transport and a
 * codec (HTTP request, response headers, emitter, served response), the cancel
 * token's internals, and one transfer: encode, send, frame, decode. */
#ifndef SEAM_TRANSPORT_H
#define SEAM_TRANSPORT_H

#include "internal.h"

#include <curl/curl.h>
#include <poll.h>
#include <pthread.h>

/* ---- http.c ---------------------------------------------------------------- */

typedef struct seam_header {
    char *name;
    char *value;
    int secret;
} seam_header;

struct seam_http_headers {
    seam_header *items;
    size_t n, cap;
};

struct seam_http_request {
    char *url;
    seam_http_method method;
    seam_http_headers headers;
    seam_buf body;
    seam_framing framing;
    int streaming;
    const char *credential; /* borrowed; NULL when the provider has none */
    struct seam_form_part *form; /* multipart parts until written (multipart.c) */
    size_t n_form;
    char **warnings;        /* seam_http_request_warn: logged by the transport */
    size_t n_warnings;
};

/* multipart.c: the form parts become the body and its Content-Type (no-op
 * without parts), after encode; release frees parts never written. */
int seam_form_finish(seam_http_request *hr, seam_error *err);
void seam_form_release(seam_http_request *hr);

void seam_http_request_init(seam_http_request *hr, const char *credential, int streaming,
                            seam_framing framing);
void seam_http_request_release(seam_http_request *hr);

int seam_http_headers_add(seam_http_headers *h, const char *name, size_t name_len,
                          const char *value, size_t value_len, int secret);
void seam_http_headers_release(seam_http_headers *h);

struct seam_emitter {
    int (*fn)(void *ud, const seam_chunk *chunk);
    void *ud;
    seam_client *client; /* whose media store media goes to; NULL: handles are
                          * computed, nothing is stored (decoders under test) */
    unsigned n_media;    /* media emitted so far, for default ids */
    struct seam_open_media *open_media; /* begun and not yet ended (mediaemit.c) */
    char response_id[128]; /* seam_emit_response_id's, for the stream_start chunk */
};

/* Abandons the media still open on em (their temporary files go): the
 * transfer ended without their end. mediaemit.c. */
void seam_emitter_release(seam_emitter *em);

typedef struct seam_piece {
    char *data;
    size_t len;
    unsigned delay_ms;
} seam_piece;

struct seam_served {
    int status;
    seam_http_headers headers;
    seam_piece *pieces;
    size_t n_pieces;
    int cut;
};

void seam_served_release(seam_served *s);

/* ---- cancel.c -------------------------------------------------------------- */

/* The fd that becomes readable (and stays so) once the token is triggered, -1 for NULL. */
int seam_cancel_fd(const seam_cancel *c);
/* Sleeps up to ms, returning early (1) when c is triggered; 0 after the full sleep. */
int seam_cancel_sleep(const seam_cancel *c, int64_t ms);

/* ---- engine.c: the client's event loop -------------------------------------- */

typedef struct seam_engine seam_engine;
typedef struct seam_engine_job seam_engine_job;

/* What the engine asks of a transfer; called with the engine's mutex held. */
typedef struct seam_engine_ops {
    int (*ready)(seam_engine_job *j);               /* chunks queued, or finished */
    void (*done)(seam_engine_job *j, CURLcode code); /* libcurl completed it */
    void (*abort)(seam_engine_job *j, seam_error_kind why); /* cancelled / idle timeout */
    int64_t (*idle_deadline)(seam_engine_job *j);   /* INT64_MAX: none */
} seam_engine_ops;

/* A transfer as the engine sees it (embedded in the transfer). */
struct seam_engine_job {
    const seam_engine_ops *ops;
    CURL *easy;             /* from seam_engine_easy */
    seam_cancel *cancel;    /* may be NULL */
    seam_engine_job *prev, *next;
    unsigned long seen_gen; /* the engine round this job last looked at */
    int in_multi;
    int registered;
    int over;               /* completed or aborted: the engine is done with it */
    int reuse;              /* the handle's options may stay for the next transfer, which sets
                             * them all again: no curl_easy_reset (its cost, and libcurl's
                             * buffers freed and made again) when it completed */
};

/* share (may be NULL) is set on every easy handle (DNS and TLS sessions). */
seam_engine *seam_engine_new(CURLSH *share);
void seam_engine_free(seam_engine *e);
/* The epoll fd: readable when seam_engine_perform has work. */
int seam_engine_fd(const seam_engine *e);
/* ms until seam_engine_perform is due even without fd activity (-1: never). */
int64_t seam_engine_timeout(seam_engine *e);
/* One round without waiting (nothing when another thread drives the loop).
 * Returns how many sockets, timers, completions and aborts it handled. */
int seam_engine_perform(seam_engine *e);

/* The rest is called with the engine's mutex held. */
void seam_engine_lock(seam_engine *e);
void seam_engine_unlock(seam_engine *e);
/* An easy handle (pooled or new), NULL without memory: clean, or with *warm
 * 1 when it kept the options of a plain transfer (job.reuse), which the next
 * sets again, except the ones every transfer sets alike, which may be left. */
CURL *seam_engine_easy(seam_engine *e, int *warm);
/* Starts j (its easy handle set up); -1 when libcurl refuses it. */
int seam_engine_add(seam_engine *e, seam_engine_job *j);
/* Runs the loop until j is ready (nowait: at most one round without waiting). */
void seam_engine_run(seam_engine *e, seam_engine_job *j, int nowait);
/* Stops j (closing its connection when unfinished) and takes its easy handle back. */
void seam_engine_remove(seam_engine *e, seam_engine_job *j);

/* ---- transport.c ----------------------------------------------------------- */

typedef struct seam_transfer_params {
    const seam_provider_vtable *vt;
    void *instance;
    const char *provider_name;
    const seam_request *req;
    int stream;
    const char *credential;        /* borrowed, may be NULL */
    int64_t timeout_ms;
    int64_t connect_timeout_ms;
    int64_t idle_timeout_ms;
    int64_t max_response_bytes;
    seam_cancel *cancel;           /* may be NULL */
    seam_engine *engine;           /* the client's; required for network transfers */
    const char *ca_file, *ca_path; /* borrowed; NULL: the system's CAs */
    seam_client *client;           /* media goes to its store; may be NULL */
    struct seam_cassettes *cassettes; /* the client's record/replay deck, NULL: none */
    /* An operation other than generation (embed.c, tokens.c): when set, these
     * replace vt->encode and vt->decode_response (stream must be 0). decode
     * emits a stop chunk carrying the attempt's usage on success. */
    int (*op_encode)(void *op_ud, const seam_provider_vtable *vt, void *instance,
                     const seam_request *req, seam_http_request *out, seam_error *err);
    int (*op_decode)(void *op_ud, const seam_provider_vtable *vt, void *instance,
                     const seam_request *req, const char *body, size_t len, seam_emitter *out,
                     seam_error *err);
    void *op_ud;
} seam_transfer_params;

typedef struct seam_transfer seam_transfer;

/* Encodes the request (nothing is sent yet). On failure err is filled. */
int seam_transfer_open(const seam_transfer_params *p, seam_transfer **out, seam_error *err);
/* 1 with *chunk (borrowed until the next call), 0 at a complete end, or a
 * negative status with err filled (classified, redacted, provider set). In
 * nowait mode, SEAM_TRANSFER_PENDING when nothing is ready yet. */
#define SEAM_TRANSFER_PENDING 2
int seam_transfer_next(seam_transfer *t, const seam_chunk **chunk, seam_error *err);
/* Event-driven mode: seam_transfer_next never blocks. */
void seam_transfer_set_nowait(seam_transfer *t, int nowait);
/* What to wait for before the next seam_transfer_next: up to max fds (the
 * sockets libcurl watches, then the cancel token's fd), and in *timeout_ms the
 * longest wait (INT64_MAX: no timer; 0: call again at once). Returns the count. */
struct pollfd;
size_t seam_transfer_pollfds(const seam_transfer *t, struct pollfd *fds, size_t max, int64_t *timeout_ms);
/* The rate-limit response headers of the answer ("name: value\n" each, as in
 * seam_error.ratelimit), so the pacing of successful answers is seen too.
 * Returns the length written (0 when there were none). */
size_t seam_transfer_ratelimit(const seam_transfer *t, char *buf, size_t size);
/* The answer's id as its codec named it early (seam_emit_response_id), or
 * NULL; borrowed from t. */
const char *seam_transfer_response_id(const seam_transfer *t);
/* Aborts the transfer if still running (closing its connection) and frees it. */
void seam_transfer_free(seam_transfer *t);
/* The answer as received, for raw.c (every pointer borrowed from t): the
 * HTTP status (0 before one), the response headers, the body kept (an error
 * body, capped, or a whole non-streamed body; NULL for a streamed success,
 * whose events are decoded as they come) and the call's credential, to be
 * scrubbed out. */
void seam_transfer_raw(const seam_transfer *t, long *status, const seam_http_headers **headers,
                       const char **body, size_t *len, const char **credential);

/* ---- raw.c ------------------------------------------------------------------ */

/* Replaces what r holds with t's answer (t may be NULL: the cause alone) and
 * the attempt's error (NULL on success). r NULL: nothing. SEAM_OK or
 * SEAM_ERR_NOMEM. */
int seam_raw_response_keep(seam_raw_response *r, const seam_transfer *t, const seam_error *cause);

/* Parses a Retry-After value (delta-seconds or an HTTP date) to ms; -1 if invalid. */
int64_t seam_parse_retry_after(const char *value);

/* ---- transport.c: seam's own fetch of a media URL (mediafetch.c) ------------- */

/* One GET of url with a plain easy handle, blocking. addr_ok is asked about
 * every address libcurl is about to connect to (the socket is opened only when
 * it returns 1), so the check binds to the address actually connected and a
 * DNS answer that changes between a check and the connect cannot slip past
 * it. Redirects are not followed (a 3xx is an error); only https is allowed;
 * at most max_bytes are taken. SEAM_OK with the body in *out, else a status
 * with err filled (a refusal by addr_ok: bad_request with addr_ok's reason). */
struct sockaddr;
typedef struct seam_fetch_params {
    const char *url;
    int64_t max_bytes;
    int64_t timeout_ms;
    const char *ca_file, *ca_path; /* borrowed; NULL: the system's CAs */
    /* 1: allowed; 0: refused, with why written to reason (size bytes). */
    int (*addr_ok)(void *ud, const struct sockaddr *sa, char *reason, size_t size);
    void *ud;
} seam_fetch_params;
int seam_fetch_url(const seam_fetch_params *p, seam_buf *out, seam_error *err);

#endif
