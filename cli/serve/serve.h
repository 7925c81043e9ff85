/* serve.h — the gateway's internal interfaces (`seam serve`, issue 17): the
 * per-request record shared by the HTTP server (server.c), the engine pump
 * (pump.c), the wire doors (chat.c, messages.c, responses.c, reading bodies
 * with jsonin.c; embeddings, images and speech on workers of their own, ops.c), their stream
 * writers (sse.c), their error shapes (errors.c), routing (route.c), keys and
 * limits (keys.c), metrics (metrics.c) and the access log (accesslog.c).
 *
 * The gateway is built on the public API only (<seam/seam.h>): it is the
 * second door onto the same engine the CLI uses. */
#ifndef SEAM_SERVE_H
#define SEAM_SERVE_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <seam/seam.h>

struct MHD_Connection;
struct MHD_Daemon;
struct json_object;

/* `seam serve` itself: returns the process exit status. */
int serve_main(const char *conf, int argc, char **argv);

/* ---- a growable byte buffer and JSON text writing (buf.c) ------------------ */

typedef struct sbuf {
    char *p;
    size_t len, cap;
    int oom;          /* an allocation failed: the text is short */
} sbuf;

void sb_add(sbuf *b, const char *s, size_t n);
void sb_puts(sbuf *b, const char *s);
void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string literal (quoted, escaped); null for NULL. */
void sb_json_str(sbuf *b, const char *s);
/* "key": prefixed with a comma unless first */
void sb_key(sbuf *b, int *first, const char *key);
/* Takes the bytes out (malloc'ed, NUL-terminated, never NULL unless oom). */
char *sb_take(sbuf *b, size_t *len);
void sb_free(sbuf *b);

/* ---- errors, per wire (errors.c) ------------------------------------------ */

typedef enum serve_wire_id {
    WIRE_OPENAI = 0,   /* /v1/chat/completions, /v1/models, and every other path */
    WIRE_ANTHROPIC,    /* /v1/messages */
    WIRE_RESPONSES     /* /v1/responses (OpenAI's error object) */
} serve_wire_id;

/* A gateway error, wire-neutral: the HTTP status it goes out with, its seam
 * kind (for the wire's type string and the metrics), the provider that
 * failed ("" when it is the gateway's own) and a message without any secret. */
typedef struct serve_err {
    int status;
    seam_error_kind kind;
    int gateway;            /* 1: the gateway refused (auth, limits, parse) */
    int64_t retry_after_ms; /* -1: none */
    char code[64];
    char param[64];
    char provider[64];
    char message[512];
} serve_err;

void serve_err_set(serve_err *e, int status, seam_error_kind kind, const char *code,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* From a library error: the status the wire's clients expect for its kind. */
void serve_err_from_seam(serve_err *e, const seam_error *se, serve_wire_id wire);
/* The wire's error object as a whole response body. */
void serve_err_body(serve_wire_id wire, const serve_err *e, sbuf *out);
/* The wire's error event, for an error after a stream has begun. */
void serve_err_event(serve_wire_id wire, const serve_err *e, sbuf *out);

/* ---- one request (server.c owns the lifecycle) ---------------------------- */

typedef struct serve_server serve_server;
typedef struct serve_gen serve_gen;

enum { CALL_RECEIVING = 0, CALL_QUEUED, CALL_HEAD, CALL_DONE };
/* What a call is: a chat on the pump (any of the three wires), or one of the
 * blocking operations the workers of ops.c run. */
enum { OP_CHAT = 0, OP_EMBEDDINGS, OP_IMAGES, OP_SPEECH };

/* Per-call state of a wire's stream writer (sse.c). */
typedef struct wire_state {
    int started;           /* the opening event went out */
    int block_open;        /* anthropic: a content block is open */
    int block_kind;        /* its seam part type */
    int block_index;       /* index of the next (or open) block */
    int block_had_delta;   /* tool block: arguments were streamed */
    int ntools;            /* openai: tool calls seen (their indexes) */
    int tool_had_delta;    /* openai: the current tool call's arguments streamed */
    int text_open;         /* responses: an output_text item is open */
    int output_index;      /* responses: next output item index */
    sbuf acc;              /* responses: the open item's text so far */
    int seq;               /* responses: sequence_number of the next event */
    char tool_id[128];     /* the current tool call's id */
    char tool_name[128];
} wire_state;

typedef struct serve_call {
    serve_server *srv;
    serve_gen *gen;               /* the conf generation the call runs on */
    struct MHD_Connection *conn;
    int fd;                       /* the client socket (watched for a hang-up) */
    serve_wire_id wire;
    const char *path;             /* static */
    char method[8];
    char remote[64];

    /* the request */
    int op;                       /* OP_CHAT, OP_EMBEDDINGS, OP_IMAGES, OP_SPEECH */
    sbuf body;
    int too_big;
    seam_request *req;
    char *model;                  /* as the client named it */
    char *route_chain, *route_provider, *route_model;
    int stream;
    int include_usage;            /* openai: stream_options.include_usage */
    int whole_upstream;           /* not streamed: ask the provider for one whole answer */
    seam_embed_request *embed;    /* OP_EMBEDDINGS */
    seam_media_request *media;    /* OP_IMAGES, OP_SPEECH */
    int op_base64;                /* embeddings: encoding_format "base64" */
    char key_name[64];            /* the gateway key's name ("" without keys) */
    int key_index;                /* -1 without keys */

    /* the call, owned by the pump (an op's: by its worker) */
    seam_cancel *cancel;          /* an op's; triggered when its client hangs up */
    seam_stream *s;
    int has_pre;                  /* pump_submit's first step returned pre_* (not pending) */
    int pre_rc;
    const seam_chunk *pre_ch;
    seam_error pre_err;
    int64_t t0_us, t_first_us, t_end_us;

    /* shared between the pump and the server's threads, under mu */
    pthread_mutex_t mu;
    int phase;
    int suspended;                /* the connection is suspended (MHD no longer polls it) */
    int client_gone;
    int mhd_done;                 /* MHD finished the request: fd and conn are gone */
    int pump_done;                /* the pump released the stream */
    int refs;
    sbuf out;                     /* bytes for the client */
    size_t out_off;
    char content_type[64];        /* of a whole answer; "": application/json */
    int finished;                 /* no more bytes will be added to out */
    int failed;                   /* the head is an error (err) */
    serve_err err;
    int stream_error;             /* an error after the stream began */
    int blocked;                  /* the pump stopped reading: out is full */

    /* outcome, for the log and the metrics */
    int status;
    char answered_provider[64];
    char answered_model[128];
    seam_usage usage;
    seam_error_kind error_kind;
    char error_provider[64];
    size_t bytes_out;
    wire_state ws;
    char id[40];                  /* chatcmpl-/msg_/resp_ id */
    int64_t created;
    struct serve_call *next;      /* pump lists */
} serve_call;

/* ---- the doors: one per wire (chat.c, messages.c, responses.c) ------------ */

/* The string member key of o: NULL when o is NULL, or the member is absent or
 * not a string; and any member key of o (NULL when absent). Borrowed (jsonin.c). */
const char *jstr(struct json_object *o, const char *key);
struct json_object *jget(struct json_object *o, const char *key);

/* Parses the body into c->req, c->model, c->stream; on failure fills e (400). */
int chat_parse(serve_call *c, struct json_object *root, serve_err *e);
int messages_parse(serve_call *c, struct json_object *root, serve_err *e);
int responses_parse(serve_call *c, struct json_object *root, serve_err *e);
/* The whole answer of a non-streamed call. */
void chat_render(serve_call *c, const seam_result *res, sbuf *out);
void messages_render(serve_call *c, const seam_result *res, sbuf *out);
void responses_render(serve_call *c, const seam_result *res, sbuf *out);
/* The Responses stream's events (written here, beside the door, since they
 * repeat its objects). */
void responses_sse_chunk(serve_call *c, const seam_chunk *ch, sbuf *out);
void responses_sse_end(serve_call *c, const seam_result *res, sbuf *out);

/* OpenAI's finish_reason and usage object, shared by the stream writer. */
const char *chat_finish_reason(seam_stop_reason r);
void chat_usage(const seam_usage *u, sbuf *out);
/* Anthropic's stop_reason and usage object. */
const char *messages_stop_reason(seam_stop_reason r);
void messages_usage(const seam_usage *u, sbuf *out);

/* Shared by the doors: a tool result text as JSON (a JSON value stays one,
 * other text becomes a JSON string), malloc'ed. */
char *door_result_json(const char *text);
/* "provider/model" of the answer, into buf. */
const char *door_answer_model(serve_call *c, const seam_result *res, char *buf, size_t n);
/* A data: URL split into mime type and base64 (1), or 0 for another URL. */
int door_data_url(const char *url, char *mime, size_t mimesize, const char **b64);
/* A MIME type guessed from a URL's extension (image/jpeg by default). */
const char *door_url_mime(const char *url);

/* ---- embeddings, images and speech (ops.c) -------------------------------- */

typedef struct serve_ops serve_ops;
/* Parses an OP_EMBEDDINGS, OP_IMAGES or OP_SPEECH body into c (400 in e otherwise). */
int ops_parse(serve_call *c, struct json_object *root, serve_err *e);
/* Starts the workers; NULL with msg filled. */
serve_ops *ops_start(char *msg, size_t msgsize);
/* Hands a parsed, routed, admitted call to a worker (which takes a reference). */
void ops_submit(serve_ops *ops, serve_call *c);
/* Calls queued or running (0 for NULL). */
size_t ops_active(serve_ops *ops);
/* Triggers every queued and running call's cancel token (ops may be NULL). */
void ops_cancel_all(serve_ops *ops);
/* Cancels what is left, lets the workers answer it, joins them, frees. */
void ops_free(serve_ops *ops);

/* ---- stream writers, per wire (sse.c) ------------------------------------- */

void sse_chunk(serve_call *c, const seam_chunk *ch, sbuf *out);
void sse_end(serve_call *c, const seam_result *res, sbuf *out);
void sse_error(serve_call *c, const serve_err *e, sbuf *out);
void sse_state_free(wire_state *ws);

/* ---- routing (route.c) ---------------------------------------------------- */

/* Resolves `model` (a chain, a role, or PROVIDER/MODEL) into c->route_*;
 * fills e (404) when it names none. */
int route_resolve(seam_client *client, serve_call *c, serve_err *e);
/* GET /v1/models: what the key (-1: none) may use. */
struct serve_keys;
void route_models(seam_client *client, struct serve_keys *keys, int key_index, sbuf *out);

/* ---- keys and limits (keys.c) --------------------------------------------- */

typedef struct serve_keys serve_keys;
typedef struct serve_conf {
    char listen[128];          /* "" unless the conf sets it */
    int threads;               /* 0: one event loop runs HTTP and the engine; N: N
                                * HTTP threads beside the engine's */
    int64_t drain_ms;
    int64_t max_body;
    char access_log[512];
    int always_stream;         /* every call streams upstream, also a non-streamed one */
} serve_conf;

/* Reads the conf's `serve` section (keys, listen, limits). conf_path may be
 * NULL (no section). 0 or -1 with msg filled. */
int keys_load(const char *conf_path, serve_keys **out, serve_conf *sc, char *msg, size_t msgsize);
void keys_free(serve_keys *k);
size_t keys_count(const serve_keys *k);
/* Carries spent budgets and rate counters over a reload (keys matched by hash). */
void keys_carry(serve_keys *to, serve_keys *from);
/* The key presented (Authorization: Bearer / x-api-key): its index, or -1
 * with e filled (401). Without keys, -1 and success. */
int keys_check(serve_keys *k, const char *presented, int *index, char *name, size_t namesize,
               serve_err *e);
/* Whether the key may use the route, and is within its limits now (429 / 403
 * with e filled otherwise): the budget as this process counted it and as the
 * client's state store holds it (shared with other gateways). Counts the
 * request. client may be NULL (this process's count alone). */
int keys_admit(serve_keys *k, seam_client *client, int index, const serve_call *c, serve_err *e);
/* 1 when key `index` (-1: no keys) may use `name` (what the client asked
 * for), which resolves to `chain` or to provider/model. */
int keys_allows(const serve_keys *k, int index, const char *name, const char *chain,
                const char *provider, const char *model);
/* Charges an answer's tokens and cost to the key, its cost also to the
 * budget in client's state store (client may be NULL). */
void keys_charge(serve_keys *k, seam_client *client, int index, const seam_usage *u);

/* ---- metrics (metrics.c) and the access log (accesslog.c) ----------------- */

void metrics_init(void);
void metrics_record(const serve_call *c);
void metrics_render(sbuf *out, int streams_open);
void metrics_stream_delta(int d);
int metrics_streams_open(void);

int accesslog_open(const char *path, char *msg, size_t msgsize);
void accesslog_write(const serve_call *c);
void accesslog_close(void);
void accesslog_reopen(void);

/* ---- the engine pump (pump.c) --------------------------------------------- */

/* A conf generation: a client and the keys, replaced as a whole on SIGHUP and
 * freed when its last call ends. */
struct serve_gen {
    seam_client *client;
    serve_keys *keys;
    int refs;
};

typedef struct serve_pump serve_pump;
/* Starts the event-loop thread, which also runs d when external (d started
 * without threads of its own), and sets *out before the loop can run; 0, or
 * -1 with msg filled. */
int pump_start(serve_server *srv, struct MHD_Daemon *d, int external, serve_pump **out,
               char *msg, size_t msgsize);
/* A request began (+1) or completed (-1) in MHD: the pump's stop waits for
 * them to be written (the end of a drained stream) before MHD stops. */
void pump_request_delta(serve_pump *p, int d);
/* Stops accepting (the loop closes the listening socket). */
void pump_quiesce(serve_pump *p);
/* Hands a call over (the pump takes a reference). */
void pump_submit(serve_pump *p, serve_call *c);
/* The reader drained a full buffer: let the pump read the stream again. */
void pump_wake(serve_pump *p);
/* Cancels every call, then stops the thread (every suspended connection is
 * resumed); pump_free after the HTTP daemon has stopped. */
void pump_stop(serve_pump *p);
void pump_free(serve_pump *p);
size_t pump_active(serve_pump *p);
/* Cancels every call in flight (end of the drain). */
void pump_cancel_all(serve_pump *p);
/* Ends a call the pump does not run (an op's), from any thread: e NULL and
 * body (taken) the whole answer, or e the error; the connection resumes. */
void pump_answer(serve_call *c, const serve_err *e, sbuf *body);

/* ---- the server (server.c) ------------------------------------------------ */

/* Output buffered for one stream before the pump stops reading it: the
 * backpressure of a slow client. */
#define SERVE_OUT_HIGH (256 * 1024)

void call_unref(serve_call *c);
/* The library's call options for c's route (its chain, or provider and model). */
seam_call_options call_route_options(const serve_call *c);
serve_pump *server_pump(serve_server *srv);
int64_t serve_now_us(void);
serve_server *server_start(const serve_conf *sc, const char *listen, serve_gen *gen, char *msg,
                           size_t msgsize);
int server_port(const serve_server *srv);
size_t server_active(serve_server *srv);
/* Stops accepting; the calls in flight go on. */
void server_quiesce(serve_server *srv);
/* Ends every call in flight with an error (the end of a drain). */
void server_cancel_all(serve_server *srv);
void server_stop(serve_server *srv);
/* Replaces the conf generation; the old one lives on until its last call ends. */
void server_set_gen(serve_server *srv, serve_gen *g);
serve_gen *server_gen_acquire(serve_server *srv);
void server_gen_release(serve_server *srv, serve_gen *g);

#endif
