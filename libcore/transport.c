/* transport.c — one transfer: encode the request with the codec, send it on
 * the client's engine (engine.c: one libcurl multi, kept-alive connections) or
 * play back a served response, frame the body (SSE / NDJSON / raw), decode
 * frames into chunks, and classify failures. Owns timeouts (connect, total,
 * idle gap), cancellation (the engine watches the token and closes the socket
 * at once), the response size cap, Retry-After parsing and the redaction of
 * the credential from every error. Chunks are pulled one at a time: the caller
 * drives the transfer from seam_transfer_next, so no thread is needed. The
 * engine may run this transfer's callbacks on another thread that drives the
 * loop, always under the engine's mutex, which also guards the chunk queue of
 * a network transfer. With the client's cassette deck (cassette.c), a network
 * transfer records its exchange, or is served from a recorded one. */
#include "config.h"
#include "transport.h"
#include "client.h"
#include "cassette.h"
#include "client.h"

#include <curl/curl.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <stdio.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#define ERROR_BODY_CAP (64 * 1024)
#define DEFAULT_MAX_RESPONSE (64 * 1024 * 1024)
#define STREAM_BUFFER 4096L

/* Room for a usual delta's strings inside the chunk itself. */
#define CHUNK_INLINE 96
/* Chunks come in slabs: the first of SLAB_FIRST, each next one twice as
 * large up to SLAB_MAX. A paced stream (one event per read) never needs more
 * than the first, and a transfer's first slab is most of what its queue
 * costs when thousands of streams are open at once. */
#define SLAB_FIRST 4
#define SLAB_MAX 64

typedef struct owned_chunk {
    seam_chunk c;
    seam_error *err; /* an error chunk's error (rare: kept out of line) */
    struct owned_chunk *next_spare;
    char *mem;       /* the chunk's strings: inline_mem, or big when larger */
    char *big;       /* malloc'ed, kept for the next use of this chunk */
    size_t big_cap;
    char inline_mem[CHUNK_INLINE];
} owned_chunk;

/* Chunks live in slabs owned by the transfer and are recycled through a spare
 * list: a chunk handed out goes back to it at the next call. One drive of
 * libcurl can bring hundreds of events at once, queued together and handed
 * out one by one; slabs grow to SLAB_MAX chunks, so even then a stream
 * allocates about once per SLAB_MAX events, and once its queue has been as
 * deep as it gets, never. */
typedef struct chunk_slab {
    struct chunk_slab *next;
    size_t n;
    owned_chunk items[];
} chunk_slab;

struct seam_transfer {
    seam_engine_job job; /* first: the engine's callbacks get &t->job */
    seam_transfer_params p;
    seam_http_request hr;
    void *decoder;
    seam_framer *framer;
    seam_emitter emitter;

    owned_chunk **q;
    size_t q_head, q_len, q_cap;
    owned_chunk *current;
    owned_chunk *spare; /* a list through next_spare */
    chunk_slab *slabs;
    size_t slab_next;   /* chunks in the next slab (0: SLAB_FIRST) */
    chunk_slab *first;  /* the first slab, in the transfer's own block until used */

    int started;
    int finished;
    int final_status;
    seam_error final_err;
    int saw_stop;
    int failed;          /* a decode error or abort is recorded in final_err */

    long status;
    int status_known;
    seam_http_headers resp_headers;
    seam_buf body;       /* error body, or a whole non-streamed body */
    size_t received;
    int64_t start_ms, last_byte_ms;

    struct curl_slist *req_headers;

    int served_mode;
    seam_served served;
    size_t next_piece;
    int64_t piece_due_ms;

    int nowait;          /* event-driven: never block, report what to wait for */
    int replaying;       /* served from a cassette (SEAM_REPLAY) */
    seam_recording *rec; /* SEAM_RECORD: the response as it arrives */
    int net_cut;         /* the network transfer ended before its response did */
    int socket_errno;    /* why the last socket() for this transfer failed, else 0 */
};

/* ---- the chunk queue ------------------------------------------------------------ */

static void chunk_release(seam_transfer *t, owned_chunk *o)
{
    o->next_spare = t->spare;
    t->spare = o;
}

static owned_chunk *chunk_take(seam_transfer *t)
{
    if (!t->spare) {
        size_t n = t->slab_next ? t->slab_next : SLAB_FIRST;
        chunk_slab *sl = n == SLAB_FIRST && t->first ? t->first : malloc(sizeof *sl + n * sizeof sl->items[0]);
        if (!sl)
            return NULL;
        if (sl == t->first)
            t->first = NULL;
        sl->next = t->slabs;
        sl->n = n;
        t->slabs = sl;
        t->slab_next = n * 2 > SLAB_MAX ? SLAB_MAX : n * 2;
        for (size_t i = 0; i < n; i++) {
            owned_chunk *o = &sl->items[n - 1 - i];
            o->err = NULL;
            o->big = NULL;
            o->big_cap = 0;
            chunk_release(t, o);
        }
    }
    owned_chunk *o = t->spare;
    t->spare = o->next_spare;
    return o;
}

/* A transfer and its first slab are one block (seam_transfer_open). */
#define FIRST_SLAB_AT ((sizeof(seam_transfer) + _Alignof(chunk_slab) - 1) / _Alignof(chunk_slab) * _Alignof(chunk_slab))
#define TRANSFER_BLOCK (FIRST_SLAB_AT + sizeof(chunk_slab) + SLAB_FIRST * sizeof(owned_chunk))

static chunk_slab *first_slab_of(seam_transfer *t)
{
    return (chunk_slab *)(void *)((char *)t + FIRST_SLAB_AT);
}

static void slabs_free(seam_transfer *t)
{
    while (t->slabs) {
        chunk_slab *sl = t->slabs;
        t->slabs = sl->next;
        for (size_t i = 0; i < sl->n; i++) {
            free(sl->items[i].err);
            free(sl->items[i].big);
        }
        if (sl != first_slab_of(t))
            free(sl);
    }
}

static size_t slen0(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

static const char *put_str(char **cursor, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *dst = *cursor;
    memcpy(dst, s, n);
    *cursor += n;
    return dst;
}

static int queue_push(seam_transfer *t, const seam_chunk *c)
{
    size_t strs = slen0(c->id) + slen0(c->name) + slen0(c->text) + slen0(c->signature) +
                  slen0(c->args_json) + slen0(c->result_json) + slen0(c->mime_type);
    owned_chunk *o = chunk_take(t);
    if (!o)
        return SEAM_ERR_NOMEM;
    if (strs <= CHUNK_INLINE) {
        o->mem = o->inline_mem;
    } else {
        if (o->big_cap < strs) {
            char *big = realloc(o->big, strs);
            if (!big) {
                chunk_release(t, o);
                return SEAM_ERR_NOMEM;
            }
            o->big = big;
            o->big_cap = strs;
        }
        o->mem = o->big;
    }
    o->c = *c;
    char *cur = o->mem;
    o->c.id = put_str(&cur, c->id);
    o->c.name = put_str(&cur, c->name);
    o->c.text = put_str(&cur, c->text);
    o->c.signature = put_str(&cur, c->signature);
    o->c.args_json = put_str(&cur, c->args_json);
    o->c.result_json = put_str(&cur, c->result_json);
    o->c.mime_type = put_str(&cur, c->mime_type);
    if (c->error) {
        if (!o->err && !(o->err = malloc(sizeof *o->err))) {
            chunk_release(t, o);
            return SEAM_ERR_NOMEM;
        }
        *o->err = *c->error;
        o->c.error = o->err;
    }
    if (t->q_head + t->q_len == t->q_cap) {
        if (t->q_head > 0) {
            memmove(t->q, t->q + t->q_head, t->q_len * sizeof *t->q);
            t->q_head = 0;
        } else {
            size_t cap = t->q_cap ? t->q_cap * 2 : 16;
            owned_chunk **q = realloc(t->q, cap * sizeof *q);
            if (!q) {
                chunk_release(t, o);
                return SEAM_ERR_NOMEM;
            }
            t->q = q;
            t->q_cap = cap;
        }
    }
    t->q[t->q_head + t->q_len++] = o;
    return SEAM_OK;
}

/* Every string a plugin emits is provider text: invalid UTF-8 in it becomes
 * U+FFFD here, the one door into the core, so chunks, results and --json
 * lines are always valid UTF-8. Valid text (the usual case) is not copied. */
static int push_repaired(seam_transfer *t, const seam_chunk *c)
{
    seam_chunk fixed = *c;
    const char **fields[] = { &fixed.id, &fixed.name, &fixed.text, &fixed.signature,
                              &fixed.args_json, &fixed.result_json, &fixed.mime_type };
    char *owned[sizeof fields / sizeof fields[0]] = { 0 };
    int rc = SEAM_OK;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const char *v = *fields[i];
        if (!v || seam_utf8_valid_prefix(v, strlen(v)) == strlen(v))
            continue;
        if (!(owned[i] = seam_utf8_repair(v))) {
            rc = SEAM_ERR_NOMEM;
            break;
        }
        *fields[i] = owned[i];
    }
    seam_error err;
    if (rc == SEAM_OK && c->error) {
        err = *c->error;
        seam_scrub_error(&err, t->p.credential);
        fixed.error = &err;
    }
    if (rc == SEAM_OK)
        rc = queue_push(t, &fixed);
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
        free(owned[i]);
    return rc;
}

static int on_emit(void *ud, const seam_chunk *c)
{
    seam_transfer *t = ud;
    if (c->type != SEAM_CHUNK_STOP)
        return push_repaired(t, c);
    t->saw_stop = 1;
    /* Counts come from the network: bound them before anyone adds or prices them. */
    seam_chunk stop = *c;
    seam_usage_sanitize(&stop.usage);
    return push_repaired(t, &stop);
}

static int is_success(long status);

/* ---- failure bookkeeping -------------------------------------------------------------- */

static void fail(seam_transfer *t, const seam_error *e)
{
    if (t->failed)
        return; /* the first cause wins */
    t->failed = 1;
    t->final_err = *e;
}

static void fail_kind(seam_transfer *t, seam_error_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_kind(seam_transfer *t, seam_error_kind kind, const char *fmt, ...)
{
    seam_error e;
    seam_error_clear(&e);
    e.kind = kind;
    e.retryable = seam_error_kind_retryable(kind);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.message, sizeof e.message, fmt, ap);
    va_end(ap);
    /* A cancel or timeout after a 200 is not an HTTP failure: status stays 0. */
    if (t->status_known && !is_success(t->status))
        e.http_status = (int)t->status;
    fail(t, &e);
}

/* The headers a caller needs to pace itself: Retry-After and the rate-limit
 * family, as "name: value\n" lines in buf. Returns the length written. */
static size_t ratelimit_headers(const seam_http_headers *h, char *buf, size_t size)
{
    seam_buf b = { 0 };
    for (size_t i = 0; i < h->n; i++) {
        const char *n = h->items[i].name;
        if (strcasecmp(n, "retry-after") == 0 || strcasecmp(n, "retry-after-ms") == 0 ||
            strcasestr(n, "ratelimit"))
            seam_buf_printf(&b, "%s: %s\n", n, h->items[i].value);
    }
    seam_strlcpy(buf, b.data ? b.data : "", size);
    seam_buf_free(&b);
    return strlen(buf);
}

void seam_transfer_raw(const seam_transfer *t, long *status, const seam_http_headers **headers,
                       const char **body, size_t *len, const char **credential)
{
    *status = t->status_known ? t->status : 0;
    *headers = &t->resp_headers;
    int kept = !is_success(t->status) || !t->p.stream;
    *body = kept && t->status_known ? (t->body.data ? t->body.data : "") : NULL;
    *len = *body ? t->body.len : 0;
    *credential = t->p.credential;
}

size_t seam_transfer_ratelimit(const seam_transfer *t, char *buf, size_t size)
{
    return t && buf && size ? ratelimit_headers(&t->resp_headers, buf, size) : 0;
}

int64_t seam_parse_retry_after(const char *v)
{
    if (!v)
        return -1;
    while (*v == ' ' || *v == '\t')
        v++;
    if (*v >= '0' && *v <= '9') {
        char *end;
        double secs = strtod(v, &end);
        while (*end == ' ' || *end == '\t')
            end++;
        if (*end != '\0')
            return -1;
        return seam_ms_from_double(secs, 1000.0);
    }
    time_t when = curl_getdate(v, NULL);
    if (when < 0)
        return -1;
    time_t now = time(NULL);
    /* Bounded like delta-seconds (seam_ms_from_double): a date in the year
     * 201507 is no wait anyone means, and (when - now) * 1000 could overflow. */
    return when > now ? seam_ms_from_double((double)(when - now), 1000.0) : 0;
}

static void classify_http_error(seam_transfer *t)
{
    seam_error e;
    seam_error_clear(&e);
    e.http_status = (int)t->status;
    const char *ms = seam_http_headers_get(&t->resp_headers, "retry-after-ms");
    const char *ra = seam_http_headers_get(&t->resp_headers, "retry-after");
    if (ms) {
        char *end;
        double v = strtod(ms, &end);
        if (end != ms)
            e.retry_after_ms = seam_ms_from_double(v, 1.0);
    }
    if (e.retry_after_ms < 0 && ra)
        e.retry_after_ms = seam_parse_retry_after(ra);
    seam_error_from_http_status(&e, (int)t->status);
    ratelimit_headers(&t->resp_headers, e.ratelimit, sizeof e.ratelimit);
    /* The key goes before the plugin sees the body: a plugin cuts the message
     * to its own limit, and a key cut in two no longer matches afterwards. */
    if (seam_scrub_secret_inplace(&t->body, t->p.credential) != SEAM_OK)
        seam_buf_reset(&t->body);
    t->p.vt->classify_error(t->p.instance, (int)t->status, &t->resp_headers,
                            t->body.data ? t->body.data : "", t->body.len, &e);
    e.http_status = (int)t->status;
    if (t->status >= 300 && t->status < 400) {
        /* The core never follows a redirect (a credential must not travel to
         * another host): say so, and where it pointed, instead of "unknown". */
        const char *loc = seam_http_headers_get(&t->resp_headers, "location");
        e.kind = SEAM_ERROR_BAD_REQUEST;
        e.retryable = 0;
        seam_strlcpy(e.code, "redirect", sizeof e.code);
        snprintf(e.message, sizeof e.message,
                 "redirect not followed: HTTP %ld to %s (check the provider's base_url)", t->status,
                 loc && *loc ? loc : "(no Location header)");
    }
    fail(t, &e);
}

/* ---- body handling shared by the network and served paths --------------------------- */

static int on_frame(void *ud, const seam_frame *f)
{
    seam_transfer *t = ud;
    seam_error e;
    seam_error_clear(&e);
    /* An error event may echo the key, and the plugin may cut its message:
     * an event holding the whole key is handed over with the key removed. */
    seam_buf scrubbed = { 0 };
    seam_frame clean;
    if (t->p.credential && *t->p.credential && f->data &&
        memmem(f->data, f->data_len, t->p.credential, strlen(t->p.credential))) {
        if (seam_scrub_secret(&scrubbed, f->data, f->data_len, t->p.credential) != SEAM_OK) {
            seam_buf_free(&scrubbed);
            fail_kind(t, SEAM_ERROR_UNKNOWN, "out of memory while reading the stream");
            return SEAM_ERR_NOMEM;
        }
        clean = *f;
        clean.data = scrubbed.data;
        clean.data_len = scrubbed.len;
        f = &clean;
    }
    int rc = t->p.vt->decode_event(t->decoder, f, &t->emitter, &e);
    seam_buf_free(&scrubbed);
    if (rc != SEAM_OK) {
        if (e.kind == SEAM_ERROR_NONE)
            seam_error_set(&e, SEAM_ERROR_UNKNOWN, "the provider plugin failed to decode an event (status %d)", rc);
        fail(t, &e);
        return rc;
    }
    return SEAM_OK;
}

static int is_success(long status)
{
    return status >= 200 && status < 300;
}

/* Returns 0 to go on, non-zero when the transfer must stop (failure recorded). */
static int on_body(seam_transfer *t, const char *data, size_t len)
{
    t->last_byte_ms = seam_now_ms();
    t->received += len;
    int64_t cap = t->p.max_response_bytes > 0 ? t->p.max_response_bytes : DEFAULT_MAX_RESPONSE;
    if ((int64_t)t->received > cap) {
        fail_kind(t, SEAM_ERROR_UNKNOWN, "the response is larger than the %lld-byte limit",
                  (long long)cap);
        return -1;
    }
    if (!is_success(t->status)) {
        if (t->body.len < ERROR_BODY_CAP) {
            size_t room = ERROR_BODY_CAP - t->body.len;
            if (seam_buf_append(&t->body, data, len < room ? len : room) != SEAM_OK)
                return -1;
        }
        return 0;
    }
    if (t->p.stream) {
        int rc = seam_framer_feed(t->framer, data, len);
        if (rc != SEAM_OK) {
            if (rc == SEAM_ERR_INVALID)
                fail_kind(t, SEAM_ERROR_TRANSPORT, "a stream event exceeds the size limit");
            else if (rc == SEAM_ERR_NOMEM)
                fail_kind(t, SEAM_ERROR_UNKNOWN, "out of memory while framing the stream");
            return -1;
        }
        return 0;
    }
    if (seam_buf_append(&t->body, data, len) != SEAM_OK) {
        fail_kind(t, SEAM_ERROR_UNKNOWN, "out of memory while reading the response");
        return -1;
    }
    return 0;
}

/* The body ended cleanly at the transport level. */
static void on_complete(seam_transfer *t)
{
    if (t->failed)
        return;
    if (!is_success(t->status)) {
        classify_http_error(t);
        return;
    }
    seam_error e;
    seam_error_clear(&e);
    if (t->p.stream) {
        int rc = seam_framer_finish(t->framer);
        if (rc != SEAM_OK) {
            if (!t->failed)
                fail_kind(t, SEAM_ERROR_TRANSPORT, "the stream could not be framed");
            return;
        }
        if (t->p.vt->decode_finish && t->p.vt->decode_finish(t->decoder, &t->emitter, &e) != SEAM_OK) {
            if (e.kind == SEAM_ERROR_NONE)
                seam_error_set(&e, SEAM_ERROR_TRANSPORT, "the stream ended before the response was complete");
            fail(t, &e);
            return;
        }
        if (!t->saw_stop)
            fail_kind(t, SEAM_ERROR_TRANSPORT, "the stream ended before the response was complete");
        return;
    }
    const char *body = t->body.data ? t->body.data : "";
    int rc = t->p.op_decode ? t->p.op_decode(t->p.op_ud, t->p.vt, t->p.instance, t->p.req, body,
                                             t->body.len, &t->emitter, &e)
                            : t->p.vt->decode_response(t->p.instance, t->p.req, body, t->body.len,
                                                       &t->emitter, &e);
    if (rc != SEAM_OK) {
        if (e.kind == SEAM_ERROR_NONE)
            seam_error_set(&e, SEAM_ERROR_UNKNOWN, "the response could not be decoded");
        fail(t, &e);
    } else if (!t->saw_stop) {
        fail_kind(t, SEAM_ERROR_UNKNOWN, "the response could not be decoded (no stop reason)");
    }
}

/* SEAM_RECORD: the exchange becomes a cassette once it is over. A cassette
 * that cannot be written fails a transfer that otherwise succeeded: a
 * recording session must not lose an exchange silently. */
static void record_exchange(seam_transfer *t)
{
    if (!t->rec || t->served_mode || !t->status_known)
        return;
    seam_error e;
    seam_error_clear(&e);
    if (seam_cassette_write(t->p.cassettes, &t->hr, t->p.credential, t->status, &t->resp_headers, t->rec,
                            t->net_cut, &e) != SEAM_OK)
        fail(t, &e);
    seam_recording_free(t->rec);
    t->rec = NULL;
}

static void finish(seam_transfer *t)
{
    record_exchange(t);
    t->finished = 1;
    if (t->failed) {
        seam_error *e = &t->final_err;
        seam_strlcpy(e->provider, t->p.provider_name, sizeof e->provider);
        seam_scrub_error(e, t->p.credential);
        t->final_status = SEAM_ERR_PROVIDER;
    } else {
        t->final_status = SEAM_OK;
    }
}

/* ---- libcurl ------------------------------------------------------------------------- */

static size_t curl_write_cb(char *data, size_t size, size_t nmemb, void *ud)
{
    seam_transfer *t = ud;
    size_t len = size * nmemb;
    if (!t->status_known) {
        long code = 0;
        curl_easy_getinfo(t->job.easy, CURLINFO_RESPONSE_CODE, &code);
        t->status = code;
        t->status_known = 1;
    }
    if (t->rec && seam_recording_add(t->rec, data, len) != SEAM_OK) {
        fail_kind(t, SEAM_ERROR_UNKNOWN, "the response is too large to record in a cassette");
        return 0;
    }
    return on_body(t, data, len) == 0 ? len : 0;
}

static size_t curl_header_cb(char *data, size_t size, size_t nmemb, void *ud)
{
    seam_transfer *t = ud;
    size_t len = size * nmemb;
    if (len >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        /* A new response (after 100-continue or a redirect): forget earlier headers. */
        seam_http_headers_release(&t->resp_headers);
        return len;
    }
    const char *colon = memchr(data, ':', len);
    if (!colon)
        return len;
    const char *v = colon + 1, *end = data + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
        end--;
    if (t->resp_headers.n < 200)
        seam_http_headers_add(&t->resp_headers, data, (size_t)(colon - data), v, (size_t)(end - v), 0);
    return len;
}

/* Opens the transfer's sockets, so that a failure keeps its errno: libcurl
 * reports an EMFILE as a plain "couldn't connect". Close-on-exec, so a tool
 * command started meanwhile does not inherit the connection. */
static curl_socket_t curl_open_socket(void *ud, curlsocktype purpose, struct curl_sockaddr *a)
{
    seam_transfer *t = ud;
    (void)purpose;
    curl_socket_t fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
    t->socket_errno = fd == CURL_SOCKET_BAD ? errno : 0;
    return fd;
}

/* Sets up an easy handle from the engine's pool and starts it there (engine
 * mutex held). */
static int curl_start(seam_transfer *t)
{
    if (seam_cancel_triggered(t->p.cancel)) {
        fail_kind(t, SEAM_ERROR_CANCELLED, "cancelled");
        return -1;
    }
    errno = 0;
    int warm = 0;
    t->job.easy = seam_engine_easy(t->p.engine, &warm);
    if (!t->job.easy) {
        if (errno == EMFILE || errno == ENFILE)
            fail_kind(t, SEAM_ERROR_RESOURCE, "out of file descriptors (%s): cannot initialise libcurl",
                      errno == EMFILE ? "EMFILE" : "ENFILE");
        else
            fail_kind(t, SEAM_ERROR_UNKNOWN, "cannot initialise libcurl");
        return -1;
    }
    CURL *e = t->job.easy;
    if (seam_cassettes_recording(t->p.cassettes) && !(t->rec = seam_recording_new())) {
        fail_kind(t, SEAM_ERROR_UNKNOWN, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < t->hr.headers.n; i++) {
        /* "name: value", on the stack when it fits (the usual case), wiped
         * after libcurl copied it: one of them carries the credential. */
        const char *name = t->hr.headers.items[i].name, *value = t->hr.headers.items[i].value;
        size_t nl = strlen(name), vl = strlen(value);
        char small[512];
        char *line = nl + vl + 3 <= sizeof small ? small : malloc(nl + vl + 3);
        struct curl_slist *l = NULL;
        if (line) {
            memcpy(line, name, nl);
            memcpy(line + nl, ": ", 2);
            memcpy(line + nl + 2, value, vl + 1);
            l = curl_slist_append(t->req_headers, line);
            explicit_bzero(line, nl + vl + 3);
            if (line != small)
                free(line);
        }
        if (!l) {
            fail_kind(t, SEAM_ERROR_UNKNOWN, "out of memory");
            return -1;
        }
        t->req_headers = l;
    }
    if (!seam_http_headers_get(&t->hr.headers, "content-type"))
        t->req_headers = curl_slist_append(t->req_headers, "Content-Type: application/json");
    /* No "Expect: 100-continue" and its wait: libcurl adds one to a POST of
     * 1 MiB and more (1 KiB before 7.69), never to a smaller body. */
    if (t->hr.body.len >= 1024)
        t->req_headers = curl_slist_append(t->req_headers, "Expect:");
    curl_easy_setopt(e, CURLOPT_URL, t->hr.url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->req_headers);
    if (t->hr.method == SEAM_HTTP_POST) {
        curl_easy_setopt(e, CURLOPT_POST, 1L);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->hr.body.data ? t->hr.body.data : "");
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)t->hr.body.len);
    } else {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, (char *)NULL); /* a reused handle's last body */
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    }
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, t);
    if (!warm) { /* the same for every transfer: a warm handle has them already */
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, curl_write_cb);
        curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, curl_header_cb);
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, curl_open_socket);
        curl_easy_setopt(e, CURLOPT_USERAGENT, "seam/" PACKAGE_VERSION);
        curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
#if LIBCURL_VERSION_NUM >= 0x075500
        curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
        curl_easy_setopt(e, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    }
    /* Set even when 0 (libcurl's default): a reused handle keeps the last value. */
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, t->p.timeout_ms > 0 ? (long)t->p.timeout_ms : 0L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, t->p.connect_timeout_ms > 0 ? (long)t->p.connect_timeout_ms : 0L);
    if (t->p.ca_file) /* a private CA (ca_file / ca_path in the conf) */
        curl_easy_setopt(e, CURLOPT_CAINFO, t->p.ca_file);
    if (t->p.ca_path)
        curl_easy_setopt(e, CURLOPT_CAPATH, t->p.ca_path);
    if (t->p.stream) /* a stream's events are small; its buffer is most of what it costs */
        curl_easy_setopt(e, CURLOPT_BUFFERSIZE, STREAM_BUFFER);
    /* Every option above is set on every transfer, except these: a handle
     * that had one is reset before its next use (engine.c). */
    t->job.reuse = t->hr.method == SEAM_HTTP_POST && !t->p.ca_file && !t->p.ca_path && !t->p.stream;
    if (seam_engine_add(t->p.engine, &t->job) != 0) {
        fail_kind(t, SEAM_ERROR_UNKNOWN, "cannot start the transfer");
        return -1;
    }
    return 0;
}

static void curl_done(seam_transfer *t, CURLcode code)
{
    if (!t->status_known) {
        long st = 0;
        curl_easy_getinfo(t->job.easy, CURLINFO_RESPONSE_CODE, &st);
        if (st) {
            t->status = st;
            t->status_known = 1;
        }
    }
    if (code == CURLE_OK) {
        on_complete(t);
        return;
    }
    t->net_cut = 1;
    if (t->failed) /* our own write callback stopped it */
        return;
    const char *what = curl_easy_strerror(code);
    switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
        fail_kind(t, SEAM_ERROR_TIMEOUT, "the request timed out (%s)", what);
        break;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
        if (t->status_known && !is_success(t->status) && t->body.len) {
            classify_http_error(t); /* the error body we have says more than the cut */
            break;
        }
        fail_kind(t, SEAM_ERROR_TRANSPORT, "the connection closed before the response was complete (%s)", what);
        break;
    default: {
        /* Out of descriptors is this process's problem, not the provider's:
         * retrying or failing over to another host would fail the same way. */
        long os_errno = t->socket_errno;
        if (!os_errno)
            curl_easy_getinfo(t->job.easy, CURLINFO_OS_ERRNO, &os_errno);
        if (os_errno == EMFILE || os_errno == ENFILE)
            fail_kind(t, SEAM_ERROR_RESOURCE, "out of file descriptors (%s): %s",
                      os_errno == EMFILE ? "EMFILE" : "ENFILE", what);
        else
            fail_kind(t, SEAM_ERROR_TRANSPORT, "%s", what);
        break;
    }
    }
}

/* ---- what the engine calls (its mutex held) -------------------------------------------- */

static int job_ready(seam_engine_job *j)
{
    seam_transfer *t = (seam_transfer *)j;
    return t->q_len > 0 || t->finished;
}

static void job_done(seam_engine_job *j, CURLcode code)
{
    seam_transfer *t = (seam_transfer *)j;
    if (t->finished)
        return;
    curl_done(t, code);
    finish(t);
}

static void job_abort(seam_engine_job *j, seam_error_kind why)
{
    seam_transfer *t = (seam_transfer *)j;
    if (t->finished)
        return;
    t->net_cut = 1;
    if (why == SEAM_ERROR_CANCELLED)
        fail_kind(t, SEAM_ERROR_CANCELLED, "cancelled");
    else if (!t->failed)
        fail_kind(t, SEAM_ERROR_TIMEOUT, "no data received for %lld ms (idle timeout)",
                  (long long)t->p.idle_timeout_ms);
    finish(t);
}

/* A stream fails after idle_timeout_ms without a byte. */
static int64_t job_idle_deadline(seam_engine_job *j)
{
    seam_transfer *t = (seam_transfer *)j;
    if (!t->p.stream || t->p.idle_timeout_ms <= 0 || t->finished)
        return INT64_MAX;
    return t->last_byte_ms + t->p.idle_timeout_ms;
}

static const seam_engine_ops job_ops = { job_ready, job_done, job_abort, job_idle_deadline };

/* ---- served (in-process) responses ----------------------------------------------------- */

/* Milliseconds from now to the nearest deadline of a served response (idle gap
 * of a stream, whole request), INT64_MAX when none; *why says which. */
static int64_t served_deadline(const seam_transfer *t, int64_t now, const char **why)
{
    int64_t limit = INT64_MAX;
    if (t->p.stream && t->p.idle_timeout_ms > 0) {
        limit = t->last_byte_ms + t->p.idle_timeout_ms - now;
        *why = "no data received within the idle timeout";
    }
    if (t->p.timeout_ms > 0 && t->start_ms + t->p.timeout_ms - now < limit) {
        limit = t->start_ms + t->p.timeout_ms - now;
        *why = "the request timed out";
    }
    return limit;
}

static void served_drive(seam_transfer *t)
{
    if (seam_cancel_triggered(t->p.cancel)) {
        fail_kind(t, SEAM_ERROR_CANCELLED, "cancelled");
        finish(t);
        return;
    }
    if (t->next_piece >= t->served.n_pieces) {
        if (t->served.cut) {
            if (t->status_known && !is_success(t->status) && t->body.len)
                classify_http_error(t);
            else
                fail_kind(t, SEAM_ERROR_TRANSPORT, "the connection closed before the response was complete");
        } else {
            on_complete(t);
        }
        finish(t);
        return;
    }
    const seam_piece *pc = &t->served.pieces[t->next_piece];
    int64_t now = seam_now_ms();
    if (t->piece_due_ms == 0)
        t->piece_due_ms = now + pc->delay_ms;
    int64_t wait = t->piece_due_ms - now;
    const char *why = NULL;
    int64_t limit = served_deadline(t, now, &why);
    if (limit < wait) {
        /* A deadline passes before the piece is due. */
        if (t->nowait && limit > 0)
            return;
        if (!t->nowait && seam_cancel_sleep(t->p.cancel, limit))
            fail_kind(t, SEAM_ERROR_CANCELLED, "cancelled");
        else
            fail_kind(t, SEAM_ERROR_TIMEOUT, "%s", why);
        finish(t);
        return;
    }
    if (wait > 0) {
        if (t->nowait)
            return;
        if (seam_cancel_sleep(t->p.cancel, wait)) {
            fail_kind(t, SEAM_ERROR_CANCELLED, "cancelled");
            finish(t);
            return;
        }
    }
    t->next_piece++;
    t->piece_due_ms = 0;
    if (on_body(t, pc->data, pc->len) != 0)
        finish(t);
}

static int served_start(seam_transfer *t)
{
    seam_error e;
    seam_error_clear(&e);
    if (t->replaying) {
        /* SEAM_REPLAY: the recorded answer, or an error naming the request. */
        int rc = seam_cassette_load(t->p.cassettes, &t->hr, t->p.credential, &t->served, &e);
        if (rc != SEAM_OK) {
            if (rc == SEAM_ERR_NOMEM)
                seam_error_set(&e, SEAM_ERROR_UNKNOWN, "out of memory reading a cassette");
            fail(t, &e);
            return -1;
        }
    } else if (t->p.vt->serve(t->p.instance, &t->hr, &t->served, &e) != SEAM_OK) {
        if (e.kind == SEAM_ERROR_NONE)
            seam_error_set(&e, SEAM_ERROR_UNKNOWN, "the provider failed to serve the request");
        fail(t, &e);
        return -1;
    }
    t->status = t->served.status ? t->served.status : 200;
    t->status_known = 1;
    for (size_t i = 0; i < t->served.headers.n; i++) {
        const seam_header *h = &t->served.headers.items[i];
        seam_http_headers_add(&t->resp_headers, h->name, strlen(h->name), h->value, strlen(h->value), 0);
    }
    return 0;
}

/* ---- the transfer ------------------------------------------------------------------- */

int seam_transfer_open(const seam_transfer_params *p, seam_transfer **out, seam_error *err)
{
    *out = NULL;
    seam_transfer *t = seam_client_block_take(p->client, SEAM_BLOCK_TRANSFER, TRANSFER_BLOCK);
    if (!t)
        return SEAM_ERR_NOMEM;
    t->first = first_slab_of(t);
    t->p = *p;
    t->job.ops = &job_ops;
    t->job.cancel = p->cancel;
    t->emitter.fn = on_emit;
    t->emitter.ud = t;
    t->emitter.client = p->client;
    seam_error_clear(&t->final_err);
    seam_http_request_init(&t->hr, p->credential, p->stream, p->vt->framing);
    seam_error e;
    seam_error_clear(&e);
    /* json-c keeps a NULL member when a value's allocation failed, and a codec
     * may not check every one: errno is how an incomplete body shows. */
    errno = 0;
    int rc = p->op_encode ? p->op_encode(p->op_ud, p->vt, p->instance, p->req, &t->hr, &e)
                          : p->vt->encode(p->instance, p->req, p->stream, &t->hr, &e);
    if (rc == SEAM_OK && errno == ENOMEM) {
        rc = SEAM_ERR_NOMEM;
        seam_error_set(&e, SEAM_ERROR_UNKNOWN, "out of memory encoding the request");
    }
    if (rc == SEAM_OK)
        rc = seam_form_finish(&t->hr, &e);
    /* A codec's notes (an option it dropped) are the application's to see,
     * and the library prints nothing: they go to the client's log. */
    for (size_t i = 0; rc == SEAM_OK && i < t->hr.n_warnings; i++) {
        seam_buf clean = { 0 };
        const char *w = t->hr.warnings[i];
        if (seam_scrub_secret(&clean, w, strlen(w), p->credential) == SEAM_OK && clean.data)
            w = clean.data;
        else if (p->credential && *p->credential && strstr(w, p->credential))
            w = "(a note that could not be scrubbed)";
        seam_client_log(p->client, SEAM_LOG_WARNING, "provider %s: %s", p->provider_name, w);
        seam_buf_free(&clean);
    }
    if (rc == SEAM_OK && !t->hr.url && !p->vt->serve) {
        rc = SEAM_ERR_PLUGIN;
        seam_error_set(&e, SEAM_ERROR_UNKNOWN, "the provider plugin produced a request without a URL");
    }
    if (rc != SEAM_OK) {
        if (e.kind == SEAM_ERROR_NONE)
            seam_error_set(&e, SEAM_ERROR_BAD_REQUEST, "the request cannot be encoded for this provider (status %d)", rc);
        seam_strlcpy(e.provider, p->provider_name, sizeof e.provider);
        seam_scrub_error(&e, p->credential);
        if (err)
            *err = e;
        seam_transfer_free(t);
        return SEAM_ERR_PROVIDER;
    }
    if (p->stream) {
        t->framer = seam_framer_new(t->hr.framing, 0, on_frame, t);
        if (!t->framer) {
            seam_transfer_free(t);
            return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
        }
        t->decoder = p->vt->decoder_new(p->instance, p->req);
        if (!t->decoder) {
            /* The plugin's failure, whatever its cause: name it, so nobody
             * hunts for a memory problem in the core. The entry cannot serve. */
            seam_transfer_free(t);
            if (err) {
                seam_error_set(err, SEAM_ERROR_UNKNOWN,
                               "the %s plugin could not start a stream decoder (decoder_new returned NULL)",
                               p->vt->id ? p->vt->id : "provider");
                seam_strlcpy(err->code, "plugin_decoder", sizeof err->code);
                seam_strlcpy(err->provider, p->provider_name, sizeof err->provider);
            }
            return SEAM_ERR_PLUGIN;
        }
    }
    t->served_mode = p->vt->serve != NULL;
    /* A provider answering in-process sends nothing: nothing to record or replay. */
    if (!t->served_mode && seam_cassettes_replaying(p->cassettes))
        t->served_mode = t->replaying = 1;
    if (!t->served_mode && !p->engine) {
        seam_transfer_free(t);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "no engine for a network transfer"), SEAM_ERR_INVALID;
    }
    *out = t;
    return SEAM_OK;
}

/* The chunk last handed out is done with: keep it for the next push. */
static void release_current(seam_transfer *t)
{
    if (t->current)
        chunk_release(t, t->current);
    t->current = NULL;
}

/* Hands out the next queued chunk or the end; 0 when there is neither yet. */
static int take(seam_transfer *t, const seam_chunk **chunk, seam_error *err, int *rc)
{
    if (t->q_len) {
        t->current = t->q[t->q_head++];
        t->q_len--;
        if (!t->q_len)
            t->q_head = 0;
        *chunk = &t->current->c;
        *rc = 1;
        return 1;
    }
    if (t->finished) {
        if (t->final_status != SEAM_OK && err)
            *err = t->final_err;
        *rc = t->final_status;
        return 1;
    }
    return 0;
}

static int network_next(seam_transfer *t, const seam_chunk **chunk, seam_error *err)
{
    seam_engine *e = t->p.engine;
    int rc = SEAM_TRANSFER_PENDING;
    seam_engine_lock(e);
    release_current(t);
    for (;;) {
        if (take(t, chunk, err, &rc))
            break;
        if (!t->started) {
            t->started = 1;
            t->start_ms = t->last_byte_ms = seam_now_ms();
            if (curl_start(t) != 0)
                finish(t);
            continue;
        }
        seam_engine_run(e, &t->job, t->nowait);
        if (t->nowait && !job_ready(&t->job)) {
            rc = SEAM_TRANSFER_PENDING;
            break;
        }
    }
    seam_engine_unlock(e);
    return rc;
}

int seam_transfer_next(seam_transfer *t, const seam_chunk **chunk, seam_error *err)
{
    if (!t->served_mode)
        return network_next(t, chunk, err);
    release_current(t);
    for (;;) {
        int rc;
        if (take(t, chunk, err, &rc))
            return rc;
        if (!t->started) {
            t->started = 1;
            t->start_ms = t->last_byte_ms = seam_now_ms();
            if (served_start(t) != 0) {
                finish(t);
                continue;
            }
        }
        size_t before = t->q_len;
        size_t piece = t->next_piece;
        served_drive(t);
        if (t->nowait && !t->finished && t->q_len == before && t->next_piece == piece)
            return SEAM_TRANSFER_PENDING;
    }
}

void seam_transfer_set_nowait(seam_transfer *t, int nowait)
{
    t->nowait = nowait != 0;
}

size_t seam_transfer_pollfds(const seam_transfer *t, struct pollfd *fds, size_t max, int64_t *timeout_ms)
{
    int64_t now = seam_now_ms();
    int64_t wait = INT64_MAX;
    size_t n = 0;
    int ready;
    if (t->served_mode) {
        ready = !t->started || t->finished || t->q_len;
    } else {
        seam_engine_lock(t->p.engine);
        ready = !t->started || t->finished || t->q_len;
        seam_engine_unlock(t->p.engine);
    }
    if (ready) {
        wait = 0;
    } else if (t->served_mode) {
        const char *why = NULL;
        int64_t limit = served_deadline(t, now, &why);
        int64_t due = t->piece_due_ms ? t->piece_due_ms - now : 0;
        wait = limit < due ? limit : due;
    } else {
        /* The engine's epoll fd stands for this transfer's socket (and its
         * cancel token, which is in the same set). */
        if (max > 0) {
            fds[0].fd = seam_engine_fd(t->p.engine);
            fds[0].events = POLLIN;
            fds[0].revents = 0;
            n = 1;
        }
        int64_t ew = seam_engine_timeout(t->p.engine);
        if (ew >= 0)
            wait = ew;
        seam_engine_lock(t->p.engine);
        int64_t idle = job_idle_deadline((seam_engine_job *)&t->job);
        seam_engine_unlock(t->p.engine);
        if (idle != INT64_MAX && idle - now < wait)
            wait = idle - now;
        if (timeout_ms)
            *timeout_ms = wait < 0 ? 0 : wait;
        return n;
    }
    if (t->p.cancel && n < max) {
        fds[n].fd = seam_cancel_fd(t->p.cancel);
        fds[n].events = POLLIN;
        fds[n++].revents = 0;
    }
    if (timeout_ms)
        *timeout_ms = wait < 0 ? 0 : wait;
    return n;
}

const char *seam_transfer_response_id(const seam_transfer *t)
{
    return t && t->emitter.response_id[0] ? t->emitter.response_id : NULL;
}

void seam_transfer_free(seam_transfer *t)
{
    if (!t)
        return;
    if (t->job.easy) {
        seam_engine_lock(t->p.engine);
        seam_engine_remove(t->p.engine, &t->job);
        seam_engine_unlock(t->p.engine);
    }
    curl_slist_free_all(t->req_headers);
    if (t->decoder)
        t->p.vt->decoder_free(t->decoder);
    seam_emitter_release(&t->emitter);
    seam_framer_free(t->framer);
    seam_http_request_release(&t->hr);
    seam_http_headers_release(&t->resp_headers);
    seam_served_release(&t->served);
    seam_recording_free(t->rec);
    seam_buf_free(&t->body);
    free(t->q); /* its chunks, the current one and the spares are all in the slabs */
    slabs_free(t);
    seam_client_block_give(t->p.client, SEAM_BLOCK_TRANSFER, t);
}

/* ---- seam's own fetch of a media URL ---------------------------------------------- */

typedef struct fetch_state {
    const seam_fetch_params *p;
    seam_buf *out;
    int refused;        /* addr_ok said no */
    int too_big;
    int socket_errno;
    char reason[256];
} fetch_state;

/* The one place a fetched URL's socket is made: the address is checked here,
 * after libcurl resolved the name and just before it connects, so what is
 * checked is what is connected. */
static curl_socket_t fetch_open_socket(void *ud, curlsocktype purpose, struct curl_sockaddr *a)
{
    fetch_state *st = ud;
    (void)purpose;
    if (!st->p->addr_ok(st->p->ud, &a->addr, st->reason, sizeof st->reason)) {
        st->refused = 1;
        return CURL_SOCKET_BAD;
    }
    curl_socket_t fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
    st->socket_errno = fd == CURL_SOCKET_BAD ? errno : 0;
    return fd;
}

static size_t fetch_write_cb(char *data, size_t size, size_t n, void *ud)
{
    fetch_state *st = ud;
    size_t len = size * n;
    if ((int64_t)(st->out->len + len) > st->p->max_bytes) {
        st->too_big = 1;
        return 0;
    }
    return seam_buf_append(st->out, data, len) == SEAM_OK ? len : 0;
}

int seam_fetch_url(const seam_fetch_params *p, seam_buf *out, seam_error *err)
{
    fetch_state st = { .p = p, .out = out };
    CURL *e = curl_easy_init();
    if (!e)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "cannot initialise libcurl"), SEAM_ERR_NOMEM;
    curl_easy_setopt(e, CURLOPT_URL, p->url);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "https");
#else
    curl_easy_setopt(e, CURLOPT_PROTOCOLS, (long)CURLPROTO_HTTPS);
#endif
    /* No proxy: the address checked must be the origin's, not a proxy's. */
    curl_easy_setopt(e, CURLOPT_PROXY, "");
    curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, fetch_open_socket);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, &st);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, fetch_write_cb);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &st);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "seam/" PACKAGE_VERSION);
    curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)p->max_bytes);
    if (p->timeout_ms > 0)
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)p->timeout_ms);
    if (p->ca_file)
        curl_easy_setopt(e, CURLOPT_CAINFO, p->ca_file);
    if (p->ca_path)
        curl_easy_setopt(e, CURLOPT_CAPATH, p->ca_path);
    CURLcode code = curl_easy_perform(e);
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(e);
    int rc = SEAM_OK;
    /* A refused address with a successful transfer: libcurl went on to
     * another address of the name that passed the check. */
    if (st.refused && code != CURLE_OK) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "%s", st.reason);
        rc = SEAM_ERR_INVALID;
    } else if (st.too_big || code == CURLE_FILESIZE_EXCEEDED) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                       "media URL: the answer is over the limit of %lld bytes (media.max_message_bytes)",
                       (long long)p->max_bytes);
        rc = SEAM_ERR_INVALID;
    } else if (code == CURLE_UNSUPPORTED_PROTOCOL) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "media URL: only https is fetched");
        rc = SEAM_ERR_INVALID;
    } else if (code != CURLE_OK) {
        seam_error_set(err, SEAM_ERROR_TRANSPORT, "media URL: %s", curl_easy_strerror(code));
        rc = SEAM_ERR_PROVIDER;
    } else if (status >= 300 && status < 400) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                       "media URL: the server answered %ld (a redirect); redirects are not followed",
                       status);
        rc = SEAM_ERR_INVALID;
    } else if (status != 200) {
        seam_error_set(err, SEAM_ERROR_TRANSPORT, "media URL: the server answered HTTP %ld", status);
        rc = SEAM_ERR_PROVIDER;
    }
    if (rc != SEAM_OK)
        seam_buf_free(out);
    return rc;
}
