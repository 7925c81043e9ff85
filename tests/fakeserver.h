/* fakeserver.h — a fake provider server for tests: a real HTTP/1.1 server on
 * 127.0.0.1 (ephemeral port) in a thread of the test process, answering each
 * request with the next scripted response. It records what it received, so a
 * test can check the wire (URL path, headers, body) the core sent. */
#ifndef SEAM_FAKESERVER_H
#define SEAM_FAKESERVER_H

#include <stddef.h>

typedef struct fake_server fake_server;

typedef struct fake_response {
    int status;                /* 0 means 200 */
    const char *content_type;  /* NULL: "text/event-stream" */
    const char *extra_headers; /* raw lines, each ending "\r\n", e.g. "Retry-After: 2\r\n" */
    const char *body;          /* copied by fake_server_push */
    size_t body_len;           /* 0: strlen(body) */
    size_t split;              /* send the body in pieces of this many bytes (0: whole) */
    unsigned delay_ms;         /* pause before each piece */
    int chunked;               /* 1: Transfer-Encoding: chunked, else Content-Length */
    size_t cut_after;          /* >0: close the connection after this many body bytes */
    unsigned hang_ms;          /* after the body (or the cut point), stay silent this long
                                * before finishing/closing (for idle-timeout tests) */
    int reset;                 /* with cut_after: end the connection with a TCP reset
                                * (RST, SO_LINGER 0) instead of a clean close */
    size_t split_max;          /* > split: pieces of split..split_max bytes, the sizes
                                * taken in turn (a server that dribbles) */
    int echo_digest;           /* 1: every "@REQ_DIGEST@" in the body is replaced by the
                                * 16-hex-digit FNV-1a hash of the request body, so that a
                                * client's output shows whether it sent the same request
                                * (the torture run catches a dropped prompt this way) */
    const size_t *pieces;      /* n_pieces > 0: the body sent in pieces of these sizes
                                * (copied), the rest as one last piece; split is then
                                * unused (seam-plugin-check's random cuts) */
    size_t n_pieces;
} fake_response;

/* The placeholder echo_digest replaces, and the hash it puts there. */
#define FAKE_DIGEST_MARK "@REQ_DIGEST@"
void fake_digest_hex(const char *data, size_t len, char out[17]);

/* Starts a server on 127.0.0.1 with an ephemeral port. NULL on failure. */
fake_server *fake_server_start(void);
/* Stops the server (closing any open connection) and frees it. */
void fake_server_stop(fake_server *s);
int fake_server_port(const fake_server *s);
/* Writes s's port to path (through a temp file renamed over it, so a reader
 * never sees half a number): what the fake provider programs tell their
 * caller. 0, or -1 with errno set. */
int fake_server_write_port_file(const fake_server *s, const char *path);
/* "http://127.0.0.1:PORT" (borrowed). */
const char *fake_server_url(const fake_server *s);

/* Queues a response; requests take queued responses in order. With the queue
 * empty, a request gets 500 {"error":"no scripted response"}. */
void fake_server_push(fake_server *s, const fake_response *r);
/* Convenience: a 200 text/event-stream response of `body` split in `split`-byte pieces. */
void fake_server_push_sse(fake_server *s, const char *body, size_t split);
/* Convenience: a status with a JSON body (application/json) and extra header lines. */
void fake_server_push_json(fake_server *s, int status, const char *json, const char *extra_headers);

/* Requests received so far, and each one's parts (borrowed, valid until stop). */
/* A function that answers a request when no scripted response is queued:
 * fills *out (copied after the call) and returns 0, or returns -1 for the
 * "no scripted response" 500. Called with the server's lock held, one request
 * at a time, so that its state needs no lock of its own (a stateful fake:
 * tests/fake_media_main.c). */
typedef int (*fake_responder)(void *ud, const char *method, const char *path, const char *body,
                              size_t body_len, fake_response *out);
void fake_server_set_responder(fake_server *s, fake_responder fn, void *ud);
size_t fake_server_request_count(fake_server *s);
const char *fake_server_request_method(fake_server *s, size_t i);
const char *fake_server_request_path(fake_server *s, size_t i);   /* with query */
const char *fake_server_request_header(fake_server *s, size_t i, const char *name); /* case-insensitive */
const char *fake_server_request_body(fake_server *s, size_t i);
/* The body's length (it may hold NUL bytes: an upload). */
size_t fake_server_request_body_len(fake_server *s, size_t i);
/* Part `name` of request i's multipart/form-data body: 1 with *data (borrowed)
 * and *len its bytes, and filename and type (each size bytes; may be NULL)
 * its file name and Content-Type ("" when none); 0 when the body is not such
 * a form or has no such part. */
int fake_server_request_form(fake_server *s, size_t i, const char *name, const char **data,
                             size_t *len, char *filename, char *type, size_t size);
/* 1 when some header of request i has a value containing `text`. */
int fake_server_request_has_value(fake_server *s, size_t i, const char *text);
/* Number of connections closed by the peer (the client) while a response was
 * still being sent or hung: shows that a cancel closed the socket. */
size_t fake_server_client_aborts(fake_server *s);
/* Number of connections accepted so far: shows whether a client kept one alive. */
size_t fake_server_connection_count(fake_server *s);

#endif
