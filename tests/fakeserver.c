/* fakeserver.c — the fake provider server of the tests (tests/fakeserver.h): a
 * real HTTP/1.1 server on 127.0.0.1 that answers each request with the next
 * scripted response, records what it received, and plays back the awkward
 * parts of real providers (bodies split at any byte, delays, cut or reset
 * connections, silent hangs, raw bytes of any size) so the core's transport
 * can be tested without the internet.
 *
 * Threads: one accept thread, plus one thread per connection so that a client
 * holding an idle keep-alive connection never blocks a second connection.
 * Every wait is a poll() that also watches a "stop" pipe, so fake_server_stop
 * returns promptly even while a response hangs. Sockets are non-blocking and
 * every send uses MSG_NOSIGNAL: a client that goes away yields EPIPE, never a
 * SIGPIPE that would kill the test. */
#include "config.h"

#include "fakeserver.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Requests larger than this (head or body) are answered 413 and the connection closed. */
#define MAX_HEAD_BYTES (1u << 20)
#define MAX_BODY_BYTES (64u << 20)

typedef struct queued_response {
    fake_response r; /* strings owned (copied) */
    struct queued_response *next;
} queued_response;

typedef struct header_line {
    char *name;
    char *value;
} header_line;

typedef struct recorded_request {
    char *method;
    char *path;
    header_line *headers;
    size_t n_headers;
    char *body;
    size_t body_len;
} recorded_request;

typedef struct connection {
    fake_server *server;
    int fd;
    pthread_t thread;
    int finished; /* set by the thread when it is done; joined at stop */
    struct connection *next;
} connection;

struct fake_server {
    int listen_fd;
    int port;
    char url[64];
    int stop_pipe[2]; /* written once at stop: readable forever after */
    pthread_t accept_thread;

    pthread_mutex_t mu; /* guards everything below */
    queued_response *queue_head, *queue_tail;
    recorded_request **requests;
    size_t n_requests, cap_requests;
    size_t client_aborts;
    size_t accepted;
    connection *connections;
    fake_responder responder; /* answers when the queue is empty (may be NULL) */
    void *responder_ud;
};

/* ---- small helpers ------------------------------------------------------ */

static char *dup_mem(const char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    if (n)
        memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

static char *dup_str(const char *s)
{
    return s ? dup_mem(s, strlen(s)) : NULL;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *reason_phrase(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 529: return "Overloaded";
    default: return "Status";
    }
}

/* ---- one connection: I/O that never blocks past a stop ------------------- */

typedef struct conn_io {
    fake_server *s;
    int fd;
    char *in;       /* bytes received and not yet consumed */
    size_t in_len, in_cap;
    int peer_closed; /* EOF or reset seen */
} conn_io;

enum { IO_OK = 0, IO_STOP = 1, IO_PEER_GONE = 2, IO_TIMEOUT = 3, IO_FAIL = 4 };

/* Reads what is available into io->in. IO_OK (maybe 0 bytes), IO_PEER_GONE, IO_FAIL. */
static int read_available(conn_io *io)
{
    for (;;) {
        if (io->in_cap - io->in_len < 4096) {
            size_t cap = io->in_cap ? io->in_cap * 2 : 8192;
            char *p = realloc(io->in, cap);
            if (!p)
                return IO_FAIL;
            io->in = p;
            io->in_cap = cap;
        }
        ssize_t n = recv(io->fd, io->in + io->in_len, io->in_cap - io->in_len, 0);
        if (n > 0) {
            io->in_len += (size_t)n;
            continue;
        }
        if (n == 0) {
            io->peer_closed = 1;
            return IO_PEER_GONE;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return IO_OK;
        io->peer_closed = 1;
        return IO_PEER_GONE;
    }
}

/* Waits up to timeout_ms (-1: forever) for input; reads it. IO_OK when bytes
 * arrived, IO_TIMEOUT, IO_STOP, IO_PEER_GONE or IO_FAIL. */
static int wait_input(conn_io *io, int timeout_ms)
{
    int64_t deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : 0;
    for (;;) {
        struct pollfd p[2] = { { .fd = io->s->stop_pipe[0], .events = POLLIN },
                               { .fd = io->fd, .events = POLLIN } };
        int wait = -1;
        if (timeout_ms >= 0) {
            int64_t left = deadline - now_ms();
            wait = left > 0 ? (int)left : 0;
        }
        int n = poll(p, 2, wait);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return IO_FAIL;
        if (p[0].revents)
            return IO_STOP;
        if (p[1].revents) {
            size_t before = io->in_len;
            int rc = read_available(io);
            if (rc != IO_OK)
                return rc;
            if (io->in_len > before)
                return IO_OK;
            continue; /* spurious wakeup */
        }
        if (n == 0)
            return IO_TIMEOUT;
    }
}

/* Sleeps ms while watching the peer (a close is an abort) and the stop pipe.
 * Bytes the peer sends meanwhile (a pipelined request) are kept. */
static int pause_watching(conn_io *io, unsigned ms)
{
    int64_t deadline = now_ms() + ms;
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return IO_OK;
        int rc = wait_input(io, (int)left);
        if (rc == IO_TIMEOUT)
            return IO_OK;
        if (rc != IO_OK)
            return rc;
    }
}

/* Sends all of data. IO_OK, IO_STOP, IO_PEER_GONE (EPIPE/ECONNRESET), IO_FAIL. */
static int send_all(conn_io *io, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = send(io->fd, data, len, MSG_NOSIGNAL);
        if (n > 0) {
            data += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p[2] = { { .fd = io->s->stop_pipe[0], .events = POLLIN },
                                   { .fd = io->fd, .events = POLLOUT } };
            int r = poll(p, 2, -1);
            if (r < 0 && errno != EINTR)
                return IO_FAIL;
            if (r > 0 && p[0].revents)
                return IO_STOP;
            if (r > 0 && (p[1].revents & (POLLERR | POLLHUP)) && !(p[1].revents & POLLOUT))
                return IO_PEER_GONE;
            continue;
        }
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN))
            return IO_PEER_GONE;
        return IO_FAIL;
    }
    return IO_OK;
}

static void consume_input(conn_io *io, size_t n)
{
    memmove(io->in, io->in + n, io->in_len - n);
    io->in_len -= n;
}

/* ---- request parsing --------------------------------------------------------- */

static void free_request(recorded_request *rq)
{
    if (!rq)
        return;
    free(rq->method);
    free(rq->path);
    for (size_t i = 0; i < rq->n_headers; i++) {
        free(rq->headers[i].name);
        free(rq->headers[i].value);
    }
    free(rq->headers);
    free(rq->body);
    free(rq);
}

static const char *find_header(const recorded_request *rq, const char *name)
{
    for (size_t i = 0; i < rq->n_headers; i++)
        if (strcasecmp(rq->headers[i].name, name) == 0)
            return rq->headers[i].value;
    return NULL;
}

/* Offset just past the blank line ending the head, and its length, or 0. */
static size_t head_end(const char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (buf[i] != '\n')
            continue;
        if (i + 1 < len && buf[i + 1] == '\n')
            return i + 2;
        if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* Parses the request line and headers of head (NUL-terminated, modified). */
static recorded_request *parse_head(char *head)
{
    recorded_request *rq = calloc(1, sizeof *rq);
    if (!rq)
        return NULL;
    char *save = NULL;
    char *line = strtok_r(head, "\n", &save);
    if (!line)
        goto bad;
    line = trim(line);
    char *sp1 = strchr(line, ' ');
    if (!sp1)
        goto bad;
    *sp1 = '\0';
    char *target = sp1 + 1;
    char *sp2 = strchr(target, ' ');
    if (sp2)
        *sp2 = '\0';
    rq->method = dup_str(line);
    rq->path = dup_str(target);
    if (!rq->method || !rq->path)
        goto bad;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        line = trim(line);
        if (!*line)
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        header_line *h = realloc(rq->headers, (rq->n_headers + 1) * sizeof *h);
        if (!h)
            goto bad;
        rq->headers = h;
        h[rq->n_headers].name = dup_str(trim(line));
        h[rq->n_headers].value = dup_str(trim(colon + 1));
        rq->n_headers++;
        if (!h[rq->n_headers - 1].name || !h[rq->n_headers - 1].value)
            goto bad;
    }
    return rq;
bad:
    free_request(rq);
    return NULL;
}

/* Waits until io->in holds at least want bytes. */
static int need_bytes(conn_io *io, size_t want)
{
    while (io->in_len < want) {
        int rc = wait_input(io, -1);
        if (rc != IO_OK)
            return rc;
    }
    return IO_OK;
}

/* Waits until io->in holds a full line; *eol gets the offset of its '\n'. */
static int need_line(conn_io *io, size_t *eol)
{
    for (;;) {
        char *nl = io->in_len ? memchr(io->in, '\n', io->in_len) : NULL;
        if (nl) {
            *eol = (size_t)(nl - io->in);
            return IO_OK;
        }
        if (io->in_len > MAX_HEAD_BYTES)
            return IO_FAIL;
        int rc = wait_input(io, -1);
        if (rc != IO_OK)
            return rc;
    }
}

/* Reads a chunked request body into rq. */
static int read_chunked_body(conn_io *io, recorded_request *rq)
{
    size_t total = 0;
    for (;;) {
        size_t eol;
        int rc = need_line(io, &eol);
        if (rc != IO_OK)
            return rc;
        unsigned long long size = strtoull(io->in, NULL, 16); /* extensions after ';' ignored */
        consume_input(io, eol + 1);
        if (size == 0) {
            /* Trailers until an empty line. */
            for (;;) {
                rc = need_line(io, &eol);
                if (rc != IO_OK)
                    return rc;
                int empty = eol == 0 || (eol == 1 && io->in[0] == '\r');
                consume_input(io, eol + 1);
                if (empty)
                    return IO_OK;
            }
        }
        if (size > MAX_BODY_BYTES || total + size > MAX_BODY_BYTES)
            return IO_FAIL;
        rc = need_bytes(io, (size_t)size);
        if (rc != IO_OK)
            return rc;
        char *b = realloc(rq->body, total + (size_t)size + 1);
        if (!b)
            return IO_FAIL;
        rq->body = b;
        memcpy(b + total, io->in, (size_t)size);
        total += (size_t)size;
        b[total] = '\0';
        rq->body_len = total;
        consume_input(io, (size_t)size);
        rc = need_line(io, &eol); /* the CRLF after the data */
        if (rc != IO_OK)
            return rc;
        consume_input(io, eol + 1);
    }
}

/* Reads one whole request. IO_OK with *out set, or why not. */
static int read_request(conn_io *io, recorded_request **out)
{
    *out = NULL;
    size_t end;
    while ((end = head_end(io->in, io->in_len)) == 0) {
        if (io->in_len > MAX_HEAD_BYTES)
            return IO_FAIL;
        int rc = wait_input(io, -1);
        if (rc != IO_OK)
            return rc;
    }
    char *head = dup_mem(io->in, end);
    if (!head)
        return IO_FAIL;
    consume_input(io, end);
    recorded_request *rq = parse_head(head);
    free(head);
    if (!rq)
        return IO_FAIL;

    const char *expect = find_header(rq, "Expect");
    if (expect && strcasecmp(expect, "100-continue") == 0) {
        static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
        int rc = send_all(io, cont, sizeof cont - 1);
        if (rc != IO_OK) {
            free_request(rq);
            return rc;
        }
    }

    int rc = IO_OK;
    const char *te = find_header(rq, "Transfer-Encoding");
    const char *cl = find_header(rq, "Content-Length");
    if (te && strcasestr(te, "chunked")) {
        rc = read_chunked_body(io, rq);
    } else if (cl) {
        unsigned long long n = strtoull(cl, NULL, 10);
        if (n > MAX_BODY_BYTES) {
            rc = IO_FAIL;
        } else {
            rc = need_bytes(io, (size_t)n);
            if (rc == IO_OK) {
                rq->body = dup_mem(io->in, (size_t)n);
                rq->body_len = (size_t)n;
                consume_input(io, (size_t)n);
                if (!rq->body)
                    rc = IO_FAIL;
            }
        }
    }
    if (rc == IO_OK && !rq->body) {
        rq->body = dup_str("");
        if (!rq->body)
            rc = IO_FAIL;
    }
    if (rc != IO_OK) {
        free_request(rq);
        return rc;
    }
    *out = rq;
    return IO_OK;
}

/* ---- responses ------------------------------------------------------------- */

static void free_queued(queued_response *q)
{
    if (!q)
        return;
    free((char *)q->r.content_type);
    free((char *)q->r.extra_headers);
    free((char *)q->r.body);
    free((size_t *)q->r.pieces);
    free(q);
}

static queued_response *copy_response(const fake_response *r)
{
    queued_response *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->r = *r;
    const char *body = r->body ? r->body : "";
    size_t len = r->body_len ? r->body_len : strlen(body);
    q->r.body = dup_mem(body, len);
    q->r.body_len = len;
    q->r.content_type = dup_str(r->content_type ? r->content_type : "text/event-stream");
    q->r.extra_headers = dup_str(r->extra_headers ? r->extra_headers : "");
    q->r.pieces = NULL;
    if (r->n_pieces && r->pieces) {
        size_t *p = malloc(r->n_pieces * sizeof *p);
        if (p)
            memcpy(p, r->pieces, r->n_pieces * sizeof *p);
        q->r.pieces = p;
    } else {
        q->r.n_pieces = 0;
    }
    if (!q->r.body || !q->r.content_type || !q->r.extra_headers || (q->r.n_pieces && !q->r.pieces)) {
        free_queued(q);
        return NULL;
    }
    return q;
}

/* Records rq and takes the next scripted response (NULL: the queue is empty). */
static queued_response *record_and_take(fake_server *s, recorded_request *rq, int *recorded)
{
    queued_response *q = NULL;
    *recorded = 0;
    pthread_mutex_lock(&s->mu);
    if (s->n_requests == s->cap_requests) {
        size_t cap = s->cap_requests ? s->cap_requests * 2 : 16;
        recorded_request **p = realloc(s->requests, cap * sizeof *p);
        if (p) {
            s->requests = p;
            s->cap_requests = cap;
        }
    }
    if (s->n_requests < s->cap_requests) {
        s->requests[s->n_requests++] = rq;
        *recorded = 1;
    }
    q = s->queue_head;
    if (q) {
        s->queue_head = q->next;
        if (!s->queue_head)
            s->queue_tail = NULL;
    } else if (s->responder) {
        /* Under the lock: the responder's state needs no lock of its own. */
        fake_response r;
        memset(&r, 0, sizeof r);
        if (s->responder(s->responder_ud, rq->method, rq->path, rq->body, rq->body_len, &r) == 0)
            q = copy_response(&r);
    }
    pthread_mutex_unlock(&s->mu);
    return q;
}

void fake_server_set_responder(fake_server *s, fake_responder fn, void *ud)
{
    pthread_mutex_lock(&s->mu);
    s->responder = fn;
    s->responder_ud = ud;
    pthread_mutex_unlock(&s->mu);
}

static void count_abort(fake_server *s)
{
    pthread_mutex_lock(&s->mu);
    s->client_aborts++;
    pthread_mutex_unlock(&s->mu);
}

/* Sends one body piece, framed as a chunk when chunked. */
static int send_piece(conn_io *io, const char *data, size_t len, int chunked)
{
    if (len == 0)
        return IO_OK;
    if (chunked) {
        char size_line[32];
        int n = snprintf(size_line, sizeof size_line, "%zx\r\n", len);
        int rc = send_all(io, size_line, (size_t)n);
        if (rc == IO_OK)
            rc = send_all(io, data, len);
        if (rc == IO_OK)
            rc = send_all(io, "\r\n", 2);
        return rc;
    }
    return send_all(io, data, len);
}

/* Plays one response. Returns IO_OK to keep the connection, or a reason to close
 * it (a cut is IO_STOP-like: the caller closes). *keep is 0 after a cut. */
static int play_response(conn_io *io, const fake_response *r, int *keep)
{
    int status = r->status ? r->status : 200;
    char *head = NULL;
    int n;
    if (r->chunked)
        n = asprintf(&head, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n%sTransfer-Encoding: chunked\r\n\r\n",
                     status, reason_phrase(status), r->content_type, r->extra_headers);
    else
        n = asprintf(&head, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n%sContent-Length: %zu\r\n\r\n",
                     status, reason_phrase(status), r->content_type, r->extra_headers,
                     r->body_len);
    if (n < 0)
        return IO_FAIL;
    int rc = send_all(io, head, (size_t)n);
    free(head);
    if (rc != IO_OK)
        return rc;

    /* A cut closes the connection after cut_after body bytes (or after the whole
     * body when it is shorter: a chunked body then lacks its terminating chunk). */
    size_t limit = r->body_len;
    int cut = r->cut_after > 0;
    if (cut && r->cut_after < r->body_len)
        limit = r->cut_after;
    size_t piece = r->split ? r->split : (limit ? limit : 1);
    size_t spread = r->split && r->split_max > r->split ? r->split_max - r->split + 1 : 1;
    for (size_t off = 0, k = 0; off < limit; off += piece, k++) {
        if (r->n_pieces)
            piece = k < r->n_pieces && r->pieces[k] ? r->pieces[k] : limit - off;
        else
            piece = (r->split ? r->split : (limit ? limit : 1)) + k % spread;
        size_t len = limit - off < piece ? limit - off : piece;
        if (r->delay_ms) {
            rc = pause_watching(io, r->delay_ms);
            if (rc != IO_OK)
                return rc;
        }
        rc = send_piece(io, r->body + off, len, r->chunked);
        if (rc != IO_OK)
            return rc;
    }
    if (r->hang_ms) {
        rc = pause_watching(io, r->hang_ms);
        if (rc != IO_OK)
            return rc;
    }
    if (cut) {
        if (r->reset) {
            /* The close that follows then sends RST: the client sees ECONNRESET. */
            struct linger lg = { .l_onoff = 1, .l_linger = 0 };
            setsockopt(io->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        }
        *keep = 0;
        return IO_OK;
    }
    if (r->chunked) {
        rc = send_all(io, "0\r\n\r\n", 5);
        if (rc != IO_OK)
            return rc;
    }
    return IO_OK;
}

void fake_digest_hex(const char *data, size_t len, char out[17])
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)data[i];
        h *= 1099511628211ULL;
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* The body of r with each digest mark replaced by the hash of the request body
 * (same length: the mark and the hash have 12 and 16 characters, so a fresh
 * copy). NULL when out of memory. */
static char *echo_body(const fake_response *r, const recorded_request *rq, size_t *len)
{
    char hex[17];
    fake_digest_hex(rq->body ? rq->body : "", rq->body ? rq->body_len : 0, hex);
    size_t mark = sizeof FAKE_DIGEST_MARK - 1, n = 0;
    for (size_t i = 0; i + mark <= r->body_len; i++)
        if (memcmp(r->body + i, FAKE_DIGEST_MARK, mark) == 0)
            n++;
    char *out = malloc(r->body_len + n * 16 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < r->body_len;) {
        if (i + mark <= r->body_len && memcmp(r->body + i, FAKE_DIGEST_MARK, mark) == 0) {
            memcpy(out + o, hex, 16);
            o += 16;
            i += mark;
        } else
            out[o++] = r->body[i++];
    }
    out[o] = '\0';
    *len = o;
    return out;
}

static void *connection_main(void *arg)
{
    connection *c = arg;
    fake_server *s = c->server;
    conn_io io = { .s = s, .fd = c->fd };
    static const fake_response no_script = {
        .status = 500,
        .content_type = "application/json",
        .extra_headers = "",
        .body = "{\"error\":\"no scripted response\"}",
        .body_len = sizeof "{\"error\":\"no scripted response\"}" - 1,
    };

    for (;;) {
        recorded_request *rq = NULL;
        if (read_request(&io, &rq) != IO_OK)
            break;
        const char *conn_hdr = find_header(rq, "Connection");
        int keep = !(conn_hdr && strcasecmp(conn_hdr, "close") == 0);
        int recorded;
        queued_response *q = record_and_take(s, rq, &recorded);
        const fake_response *play = q ? &q->r : &no_script;
        fake_response echoed;
        char *echoed_body = NULL;
        if (q && q->r.echo_digest) {
            echoed = q->r;
            echoed_body = echo_body(&q->r, rq, &echoed.body_len);
            echoed.body = echoed_body;
            if (echoed_body)
                play = &echoed;
        }
        if (!recorded)
            free_request(rq);
        int rc = play_response(&io, play, &keep);
        free(echoed_body);
        free_queued(q);
        if (rc == IO_PEER_GONE)
            count_abort(s);
        if (rc != IO_OK || !keep)
            break;
    }
    free(io.in);
    /* The fd is closed here; the record stays until stop joins the thread. */
    close(c->fd);
    pthread_mutex_lock(&s->mu);
    c->fd = -1;
    c->finished = 1;
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Joins and frees connections whose thread has finished (all of them when all). */
static void reap_connections(fake_server *s, int all)
{
    for (;;) {
        connection *done = NULL;
        pthread_mutex_lock(&s->mu);
        for (connection **pp = &s->connections; *pp; pp = &(*pp)->next) {
            if (all || (*pp)->finished) {
                done = *pp;
                *pp = done->next;
                break;
            }
        }
        pthread_mutex_unlock(&s->mu);
        if (!done)
            return;
        pthread_join(done->thread, NULL);
        free(done);
    }
}

static void *accept_main(void *arg)
{
    fake_server *s = arg;
    for (;;) {
        struct pollfd p[2] = { { .fd = s->stop_pipe[0], .events = POLLIN },
                               { .fd = s->listen_fd, .events = POLLIN } };
        int n = poll(p, 2, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || p[0].revents)
            break;
        if (!p[1].revents)
            continue;
        int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        int one = 1;
        /* Pieces go out as separate segments, so a split really splits. */
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        reap_connections(s, 0);
        connection *c = calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            continue;
        }
        c->server = s;
        c->fd = fd;
        pthread_mutex_lock(&s->mu);
        s->accepted++;
        c->next = s->connections;
        s->connections = c;
        if (pthread_create(&c->thread, NULL, connection_main, c) != 0) {
            s->connections = c->next;
            pthread_mutex_unlock(&s->mu);
            close(fd);
            free(c);
            continue;
        }
        pthread_mutex_unlock(&s->mu);
    }
    return NULL;
}

/* ---- public API ----------------------------------------------------------- */

fake_server *fake_server_start(void)
{
    fake_server *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->listen_fd = -1;
    s->stop_pipe[0] = s->stop_pipe[1] = -1;
    if (pthread_mutex_init(&s->mu, NULL) != 0) {
        free(s);
        return NULL;
    }
    if (pipe2(s->stop_pipe, O_CLOEXEC) != 0)
        goto fail;
    s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->listen_fd < 0)
        goto fail;
    int one = 1;
    setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = 0 };
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(s->listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0)
        goto fail;
    socklen_t alen = sizeof addr;
    if (getsockname(s->listen_fd, (struct sockaddr *)&addr, &alen) != 0)
        goto fail;
    if (listen(s->listen_fd, 1024) != 0)
        goto fail;
    s->port = ntohs(addr.sin_port);
    snprintf(s->url, sizeof s->url, "http://127.0.0.1:%d", s->port);
    if (pthread_create(&s->accept_thread, NULL, accept_main, s) != 0)
        goto fail;
    return s;
fail:
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    if (s->stop_pipe[0] >= 0)
        close(s->stop_pipe[0]);
    if (s->stop_pipe[1] >= 0)
        close(s->stop_pipe[1]);
    pthread_mutex_destroy(&s->mu);
    free(s);
    return NULL;
}

void fake_server_stop(fake_server *s)
{
    if (!s)
        return;
    ssize_t w;
    do
        w = write(s->stop_pipe[1], "x", 1);
    while (w < 0 && errno == EINTR);
    pthread_join(s->accept_thread, NULL);
    reap_connections(s, 1);
    close(s->listen_fd);
    close(s->stop_pipe[0]);
    close(s->stop_pipe[1]);
    for (queued_response *q = s->queue_head; q;) {
        queued_response *next = q->next;
        free_queued(q);
        q = next;
    }
    for (size_t i = 0; i < s->n_requests; i++)
        free_request(s->requests[i]);
    free(s->requests);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

int fake_server_port(const fake_server *s)
{
    return s ? s->port : 0;
}

int fake_server_write_port_file(const fake_server *s, const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%d\n", fake_server_port(s)) < 0 || fclose(f) != 0 ||
        rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

const char *fake_server_url(const fake_server *s)
{
    return s ? s->url : NULL;
}

void fake_server_push(fake_server *s, const fake_response *r)
{
    if (!s || !r)
        return;
    queued_response *q = copy_response(r);
    if (!q)
        return;
    pthread_mutex_lock(&s->mu);
    if (s->queue_tail)
        s->queue_tail->next = q;
    else
        s->queue_head = q;
    s->queue_tail = q;
    pthread_mutex_unlock(&s->mu);
}

/* SSE goes out chunked, as real providers send it. */
void fake_server_push_sse(fake_server *s, const char *body, size_t split)
{
    fake_response r = { .status = 200, .content_type = "text/event-stream", .body = body,
                        .split = split, .chunked = 1 };
    fake_server_push(s, &r);
}

void fake_server_push_json(fake_server *s, int status, const char *json, const char *extra_headers)
{
    fake_response r = { .status = status, .content_type = "application/json", .body = json,
                        .extra_headers = extra_headers };
    fake_server_push(s, &r);
}

static recorded_request *request_at(fake_server *s, size_t i)
{
    recorded_request *rq = NULL;
    pthread_mutex_lock(&s->mu);
    if (i < s->n_requests)
        rq = s->requests[i];
    pthread_mutex_unlock(&s->mu);
    return rq;
}

/* One of s's counters (a member of s), read under its lock. */
static size_t counter(fake_server *s, const size_t *field)
{
    pthread_mutex_lock(&s->mu);
    size_t n = *field;
    pthread_mutex_unlock(&s->mu);
    return n;
}

size_t fake_server_request_count(fake_server *s)
{
    return s ? counter(s, &s->n_requests) : 0;
}

/* A recorded request is immutable once recorded, so its strings can be read
 * without the lock. */
const char *fake_server_request_method(fake_server *s, size_t i)
{
    recorded_request *rq = s ? request_at(s, i) : NULL;
    return rq ? rq->method : NULL;
}

const char *fake_server_request_path(fake_server *s, size_t i)
{
    recorded_request *rq = s ? request_at(s, i) : NULL;
    return rq ? rq->path : NULL;
}

const char *fake_server_request_header(fake_server *s, size_t i, const char *name)
{
    recorded_request *rq = s && name ? request_at(s, i) : NULL;
    return rq ? find_header(rq, name) : NULL;
}

const char *fake_server_request_body(fake_server *s, size_t i)
{
    recorded_request *rq = s ? request_at(s, i) : NULL;
    return rq ? rq->body : NULL;
}

size_t fake_server_request_body_len(fake_server *s, size_t i)
{
    recorded_request *rq = s ? request_at(s, i) : NULL;
    return rq ? rq->body_len : 0;
}

/* multipart/form-data (RFC 7578) as a server reads it: the boundary from the
 * Content-Type header, then each part's headers up to the blank line and its
 * bytes up to CRLF "--" boundary. */
int fake_server_request_form(fake_server *s, size_t i, const char *name, const char **data,
                             size_t *len, char *filename, char *type, size_t size)
{
    recorded_request *rq = s ? request_at(s, i) : NULL;
    const char *ct = fake_server_request_header(s, i, "Content-Type");
    const char *b = ct ? strstr(ct, "boundary=") : NULL;
    if (!rq || !b || strncmp(ct, "multipart/form-data;", 20) != 0)
        return 0;
    char delim[200];
    snprintf(delim, sizeof delim, "--%s", b + 9);
    size_t dl = strlen(delim);
    const char *body = rq->body, *end = rq->body + rq->body_len;
    const char *p = memmem(body, rq->body_len, delim, dl);
    while (p && (size_t)(end - p) >= dl + 2) {
        p += dl;
        if (p[0] == '-' && p[1] == '-')
            return 0; /* the closing delimiter */
        if (p[0] != '\r' || p[1] != '\n')
            return 0;
        p += 2;
        const char *blank = memmem(p, (size_t)(end - p), "\r\n\r\n", 4);
        if (!blank)
            return 0;
        char head[1024];
        snprintf(head, sizeof head, "%.*s", (int)(blank - p), p);
        const char *content = blank + 4;
        char crlf_delim[204];
        snprintf(crlf_delim, sizeof crlf_delim, "\r\n%s", delim);
        const char *stop = memmem(content, (size_t)(end - content), crlf_delim, dl + 2);
        if (!stop)
            return 0;
        char want[256];
        snprintf(want, sizeof want, "Content-Disposition: form-data; name=\"%s\"", name);
        size_t wl = strlen(want);
        if (strncmp(head, want, wl) == 0 && (head[wl] == '\0' || head[wl] == ';' || head[wl] == '\r')) {
            if (filename) {
                const char *f = strstr(head, "filename=\"");
                const char *fe = f ? strchr(f + 10, '"') : NULL;
                snprintf(filename, size, "%.*s", fe ? (int)(fe - f - 10) : 0, fe ? f + 10 : "");
            }
            if (type) {
                const char *t = strstr(head, "\r\nContent-Type: ");
                snprintf(type, size, "%s", t ? t + 16 : "");
            }
            *data = content;
            *len = (size_t)(stop - content);
            return 1;
        }
        p = stop + 2;
    }
    return 0;
}

int fake_server_request_has_value(fake_server *s, size_t i, const char *text)
{
    recorded_request *rq = request_at(s, i);
    if (!rq || !text)
        return 0;
    for (size_t h = 0; h < rq->n_headers; h++)
        if (rq->headers[h].value && strstr(rq->headers[h].value, text))
            return 1;
    return 0;
}

size_t fake_server_client_aborts(fake_server *s)
{
    return s ? counter(s, &s->client_aborts) : 0;
}

size_t fake_server_connection_count(fake_server *s)
{
    return s ? counter(s, &s->accepted) : 0;
}
