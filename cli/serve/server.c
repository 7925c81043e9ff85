/* server.c — the gateway's HTTP side on libmicrohttpd: the listening socket
 * and MHD in its external-epoll mode, run by the pump's event loop (pump.c),
 * the routing of paths to doors, the life of
 * one request (body, key, parse, route, then suspended while the pump runs
 * its call), and the answer: a whole body, an error in the wire's shape, or
 * an SSE stream fed by a content reader that suspends the connection when
 * it has caught up with the pump. No server thread ever waits for a
 * provider: a waiting request is a suspended connection and a queue entry. */
#include "config.h"

#include "serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include <microhttpd.h>

struct serve_server {
    struct MHD_Daemon *d;
    serve_pump *pump;
    serve_ops *ops;        /* embeddings, images and speech */
    pthread_mutex_t gen_mu;
    serve_gen *gen;
    serve_conf conf;
    int loopback;          /* bound to a loopback address */
    int port;
};

int64_t serve_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- conf generations ------------------------------------------------------ */

static void gen_free(serve_gen *g)
{
    if (!g)
        return;
    seam_client_free(g->client);
    keys_free(g->keys);
    free(g);
}

serve_gen *server_gen_acquire(serve_server *srv)
{
    pthread_mutex_lock(&srv->gen_mu);
    serve_gen *g = srv->gen;
    g->refs++;
    pthread_mutex_unlock(&srv->gen_mu);
    return g;
}

void server_gen_release(serve_server *srv, serve_gen *g)
{
    pthread_mutex_lock(&srv->gen_mu);
    int last = --g->refs == 0;
    pthread_mutex_unlock(&srv->gen_mu);
    if (last)
        gen_free(g);
}

void server_set_gen(serve_server *srv, serve_gen *g)
{
    g->refs = 1; /* the server's own reference */
    pthread_mutex_lock(&srv->gen_mu);
    serve_gen *old = srv->gen;
    srv->gen = g;
    pthread_mutex_unlock(&srv->gen_mu);
    if (old)
        server_gen_release(srv, old);
}

/* ---- calls ------------------------------------------------------------------ */

static serve_call *call_new(serve_server *srv, struct MHD_Connection *conn, const char *url,
                            const char *method)
{
    serve_call *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->mu, NULL);
    c->srv = srv;
    c->conn = conn;
    c->refs = 1;
    c->fd = -1;
    c->key_index = -1;
    c->t0_us = serve_now_us();
    snprintf(c->method, sizeof c->method, "%s", method);
    static const char *const paths[] = { "/v1/chat/completions", "/v1/messages", "/v1/responses",
                                         "/v1/models", "/healthz", "/metrics", "/v1/embeddings",
                                         "/v1/images/generations", "/v1/audio/speech" };
    c->path = "other";
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (strcmp(url, paths[i]) == 0)
            c->path = paths[i];
    c->op = strcmp(c->path, "/v1/embeddings") == 0          ? OP_EMBEDDINGS :
            strcmp(c->path, "/v1/images/generations") == 0 ? OP_IMAGES :
            strcmp(c->path, "/v1/audio/speech") == 0       ? OP_SPEECH :
                                                             OP_CHAT;
    c->wire = strcmp(c->path, "/v1/messages") == 0 ? WIRE_ANTHROPIC :
              strcmp(c->path, "/v1/responses") == 0 ? WIRE_RESPONSES : WIRE_OPENAI;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (ci)
        c->fd = ci->connect_fd;
    ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (ci && ci->client_addr) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, c->remote,
                      sizeof c->remote);
        else if (sa->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, c->remote,
                      sizeof c->remote);
    }
    return c;
}

seam_call_options call_route_options(const serve_call *c)
{
    seam_call_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.chain = c->route_chain;
    o.provider = c->route_provider;
    o.model = c->route_model;
    return o;
}

serve_pump *server_pump(serve_server *srv)
{
    return srv->pump;
}

void call_unref(serve_call *c)
{
    pthread_mutex_lock(&c->mu);
    int last = --c->refs == 0;
    pthread_mutex_unlock(&c->mu);
    if (!last)
        return;
    /* Accounted once both sides are done with the call (MHD and the pump),
     * so that nothing writes what the log and the metrics read. */
    if (c->t_end_us) {
        if (c->gen && c->key_index >= 0)
            keys_charge(c->gen->keys, c->gen->client, c->key_index, &c->usage);
        metrics_record(c);
        accesslog_write(c);
    }
    if (c->gen)
        server_gen_release(c->srv, c->gen);
    seam_request_free(c->req);
    seam_embed_request_free(c->embed);
    seam_media_request_free(c->media);
    seam_cancel_free(c->cancel);
    free(c->model);
    free(c->route_chain);
    free(c->route_provider);
    free(c->route_model);
    sb_free(&c->body);
    sb_free(&c->out);
    sse_state_free(&c->ws);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* ---- answers ---------------------------------------------------------------- */

static enum MHD_Result send_buf(serve_call *c, int status, const char *ctype, char *body,
                                size_t len, int64_t retry_after_ms)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, body ? body : (char *)"", body ? MHD_RESPMEM_MUST_FREE
                                                                       : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", ctype);
    if (retry_after_ms >= 0) {
        char v[32];
        snprintf(v, sizeof v, "%lld", (long long)((retry_after_ms + 999) / 1000));
        MHD_add_response_header(r, "Retry-After", v);
        snprintf(v, sizeof v, "%lld", (long long)retry_after_ms);
        MHD_add_response_header(r, "retry-after-ms", v);
    }
    if (c->id[0])
        MHD_add_response_header(r, c->wire == WIRE_ANTHROPIC ? "request-id" : "x-request-id",
                                c->id);
    c->status = status;
    c->bytes_out = len;
    enum MHD_Result rc = MHD_queue_response(c->conn, (unsigned)status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result send_error(serve_call *c, const serve_err *e)
{
    sbuf b = { 0 };
    serve_err_body(c->wire, e, &b);
    c->error_kind = e->kind;
    snprintf(c->error_provider, sizeof c->error_provider, "%s", e->provider);
    size_t len;
    char *body = sb_take(&b, &len);
    return send_buf(c, e->status, "application/json", body, body ? len : 0, e->retry_after_ms);
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    serve_call *c = cls;
    (void)pos;
    int wake = 0;
    pthread_mutex_lock(&c->mu);
    if (c->client_gone) {
        pthread_mutex_unlock(&c->mu);
        return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    size_t avail = c->out.len - c->out_off;
    if (avail) {
        size_t n = avail < max ? avail : max;
        memcpy(buf, c->out.p + c->out_off, n);
        c->out_off += n;
        c->bytes_out += n;
        if (c->out_off == c->out.len)
            c->out.len = c->out_off = 0;
        if (c->blocked && c->out.len - c->out_off < SERVE_OUT_HIGH / 2) {
            c->blocked = 0;
            wake = 1;
        }
        pthread_mutex_unlock(&c->mu);
        if (wake)
            pump_wake(c->srv->pump);
        return (ssize_t)n;
    }
    if (c->finished) {
        pthread_mutex_unlock(&c->mu);
        return MHD_CONTENT_READER_END_OF_STREAM;
    }
    /* Caught up with the pump: MHD stops polling this socket until the pump
     * has more (it resumes us), so an idle stream costs no thread time. */
    MHD_suspend_connection(c->conn);
    c->suspended = 1;
    pthread_mutex_unlock(&c->mu);
    return 0;
}

static void reader_free(void *cls)
{
    call_unref(cls);
}

static enum MHD_Result send_head(serve_call *c)
{
    pthread_mutex_lock(&c->mu);
    int failed = c->failed, stream = c->stream;
    serve_err e = c->err;
    pthread_mutex_unlock(&c->mu);
    if (failed)
        return send_error(c, &e);
    if (!stream) {
        pthread_mutex_lock(&c->mu);
        size_t len;
        char *body = sb_take(&c->out, &len);
        pthread_mutex_unlock(&c->mu);
        return send_buf(c, 200, c->content_type[0] ? c->content_type : "application/json", body,
                        body ? len : 0, -1);
    }
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, reader, c, reader_free);
    if (!r)
        return MHD_NO;
    pthread_mutex_lock(&c->mu);
    c->refs++;
    pthread_mutex_unlock(&c->mu);
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-cache");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    MHD_add_response_header(r, c->wire == WIRE_ANTHROPIC ? "request-id" : "x-request-id", c->id);
    c->status = 200;
    enum MHD_Result rc = MHD_queue_response(c->conn, 200, r);
    MHD_destroy_response(r);
    return rc;
}

/* ---- requests ----------------------------------------------------------------- */

static const char *presented_key(struct MHD_Connection *conn)
{
    const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
    if (auth && strncasecmp(auth, "Bearer ", 7) == 0)
        return auth + 7;
    const char *x = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "x-api-key");
    if (x)
        return x;
    return auth;
}

static void new_id(serve_call *c)
{
    static const char *const prefix[] = { "chatcmpl-", "msg_", "resp_" };
    const char *pre = c->op != OP_CHAT ? "req_" : prefix[c->wire];
    static unsigned long long counter;
    unsigned long long n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
    snprintf(c->id, sizeof c->id, "%sseam%08llx%06llx", pre,
             (unsigned long long)time(NULL) & 0xffffffffULL, n & 0xffffffULL);
    c->created = (int64_t)time(NULL);
}

static enum MHD_Result start(serve_server *srv, serve_call *c)
{
    serve_err e;
    memset(&e, 0, sizeof e);
    c->gen = server_gen_acquire(srv);
    int is_get = strcmp(c->method, "GET") == 0, is_post = strcmp(c->method, "POST") == 0;

    if (strcmp(c->path, "/healthz") == 0 && is_get)
        return send_buf(c, 200, "application/json", strdup("{\"status\":\"ok\"}"), 15, -1);
    if (strcmp(c->path, "/metrics") == 0 && is_get) {
        sbuf b = { 0 };
        metrics_render(&b, metrics_streams_open());
        size_t len;
        char *body = sb_take(&b, &len);
        return send_buf(c, 200, "text/plain; version=0.0.4", body, body ? len : 0, -1);
    }
    if (strcmp(c->path, "other") == 0) {
        serve_err_set(&e, 404, SEAM_ERROR_BAD_REQUEST, "not_found", "Unknown path %s %s",
                      c->method, "(see doc/gateway.md for the endpoints)");
        return send_error(c, &e);
    }
    int want_get = strcmp(c->path, "/v1/models") == 0;
    if ((want_get && !is_get) || (!want_get && !is_post)) {
        serve_err_set(&e, 405, SEAM_ERROR_BAD_REQUEST, "method_not_allowed",
                      "%s is not allowed on %s", c->method, c->path);
        return send_error(c, &e);
    }
    if (keys_check(c->gen->keys, presented_key(c->conn), &c->key_index, c->key_name,
                   sizeof c->key_name, &e) < 0)
        return send_error(c, &e);
    if (want_get) {
        sbuf b = { 0 };
        route_models(c->gen->client, c->gen->keys, c->key_index, &b);
        size_t len;
        char *body = sb_take(&b, &len);
        return send_buf(c, 200, "application/json", body, body ? len : 0, -1);
    }
    if (c->too_big) {
        serve_err_set(&e, 413, SEAM_ERROR_BAD_REQUEST, "request_too_large",
                      "The request body is larger than %lld bytes", (long long)srv->conf.max_body);
        return send_error(c, &e);
    }
    enum json_tokener_error jerr = json_tokener_success;
    json_tokener *tok = json_tokener_new();
    json_object *root = tok ? json_tokener_parse_ex(tok, c->body.p ? c->body.p : "",
                                                    (int)c->body.len) : NULL;
    if (tok) {
        jerr = json_tokener_get_error(tok);
        if (jerr == json_tokener_continue)
            jerr = json_tokener_error_parse_eof;
        json_tokener_free(tok);
    }
    if (!root || jerr != json_tokener_success || !json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        serve_err_set(&e, 400, SEAM_ERROR_BAD_REQUEST, "invalid_json",
                      "The body is not a JSON object (%s)",
                      jerr != json_tokener_success ? json_tokener_error_desc(jerr) : "not an object");
        return send_error(c, &e);
    }
    new_id(c);
    int rc = c->op != OP_CHAT            ? ops_parse(c, root, &e) :
             c->wire == WIRE_ANTHROPIC ? messages_parse(c, root, &e) :
             c->wire == WIRE_RESPONSES ? responses_parse(c, root, &e) : chat_parse(c, root, &e);
    json_object_put(root);
    sb_free(&c->body);
    if (rc < 0)
        return send_error(c, &e);
    if (route_resolve(c->gen->client, c, &e) < 0 ||
        keys_admit(c->gen->keys, c->gen->client, c->key_index, c, &e) < 0)
        return send_error(c, &e);
    /* A client that does not stream gets its answer from one upstream body:
     * no SSE framing and per-event decoding for an answer sent whole. */
    c->whole_upstream = !c->stream && !srv->conf.always_stream;
    pthread_mutex_lock(&c->mu);
    c->phase = CALL_QUEUED;
    c->refs++; /* the pump's, or the op worker's */
    MHD_suspend_connection(c->conn);
    c->suspended = 1;
    pthread_mutex_unlock(&c->mu);
    if (c->op != OP_CHAT)
        ops_submit(srv->ops, c);
    else
        pump_submit(srv->pump, c);
    return MHD_YES;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url,
                               const char *method, const char *version, const char *upload_data,
                               size_t *upload_data_size, void **con_cls)
{
    serve_server *srv = cls;
    serve_call *c = *con_cls;
    (void)version;
    if (!c) {
        if (!(c = call_new(srv, conn, url, method)))
            return MHD_NO;
        *con_cls = c;
        pump_request_delta(srv->pump, 1);
        return MHD_YES;
    }
    if (*upload_data_size) {
        if ((int64_t)(c->body.len + *upload_data_size) > srv->conf.max_body)
            c->too_big = 1;
        else
            sb_add(&c->body, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    pthread_mutex_lock(&c->mu);
    int phase = c->phase;
    pthread_mutex_unlock(&c->mu);
    if (phase == CALL_RECEIVING)
        return start(srv, c);
    if (phase == CALL_HEAD)
        return send_head(c);
    /* resumed before its head was ready (should not happen): wait again */
    pthread_mutex_lock(&c->mu);
    MHD_suspend_connection(conn);
    c->suspended = 1;
    pthread_mutex_unlock(&c->mu);
    return MHD_YES;
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    serve_call *c = *con_cls;
    (void)cls;
    (void)conn;
    if (!c)
        return;
    *con_cls = NULL;
    pump_request_delta(c->srv->pump, -1);
    pthread_mutex_lock(&c->mu);
    c->mhd_done = 1;
    if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK && !c->pump_done) {
        c->client_gone = 1; /* the pump frees the stream, which ends the transfer */
        if (c->cancel)
            seam_cancel_trigger(c->cancel); /* an op's worker gives up its call */
    }
    if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK && (c->client_gone || c->stream))
        c->status = 499; /* the client went away */
    c->t_end_us = serve_now_us();
    int wake = c->client_gone && !c->pump_done && c->phase != CALL_RECEIVING;
    pthread_mutex_unlock(&c->mu);
    if (wake)
        pump_wake(c->srv->pump);
    call_unref(c);
}

/* ---- the daemon ------------------------------------------------------------------ */

static int parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *len,
                        int *loopback, char *msg, size_t msgsize)
{
    char host[128];
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || !colon[1]) {
        snprintf(msg, msgsize, "--listen wants HOST:PORT, not '%s'", spec);
        return -1;
    }
    size_t hl = (size_t)(colon - spec);
    if (spec[0] == '[' && colon[-1] == ']') {
        spec++;
        hl -= 2;
    }
    if (hl >= sizeof host) {
        snprintf(msg, msgsize, "--listen: host too long");
        return -1;
    }
    memcpy(host, spec, hl);
    host[hl] = '\0';
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port < 0 || port > 65535) {
        snprintf(msg, msgsize, "--listen: '%s' is not a port", colon + 1);
        return -1;
    }
    struct addrinfo hints = { 0 }, *ai = NULL;
    hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(host, colon + 1, &hints, &ai);
    if (gai != 0 || !ai) {
        snprintf(msg, msgsize, "--listen: cannot resolve '%s': %s", host, gai_strerror(gai));
        return -1;
    }
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    *len = ai->ai_addrlen;
    if (ai->ai_family == AF_INET)
        *loopback = (ntohl(((struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr) >> 24) == 127;
    else
        *loopback = IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr);
    freeaddrinfo(ai);
    return 0;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    fputs("seam serve: ", stderr);
    vfprintf(stderr, fmt, ap);
}

serve_server *server_start(const serve_conf *sc, const char *listen, serve_gen *gen, char *msg,
                           size_t msgsize)
{
    struct sockaddr_storage ss;
    socklen_t sslen;
    int loopback;
    if (parse_listen(listen, &ss, &sslen, &loopback, msg, msgsize) < 0)
        return NULL;
    if (!loopback && keys_count(gen->keys) == 0) {
        snprintf(msg, msgsize, "refusing to listen on %s with no keys: add keys to the conf's "
                               "serve section (see seam.conf(5)) or listen on 127.0.0.1", listen);
        return NULL;
    }
    serve_server *srv = calloc(1, sizeof *srv);
    if (!srv) {
        snprintf(msg, msgsize, "out of memory");
        return NULL;
    }
    srv->conf = *sc;
    srv->loopback = loopback;
    pthread_mutex_init(&srv->gen_mu, NULL);
    server_set_gen(srv, gen);
    /* threads 0: no thread of MHD's own, the pump's loop runs it beside the
     * engine, so a request is handled start to end without a thread
     * hand-off. Else MHD's epoll threads, handing each call to the pump's.
     * ITC: a resume or a quiesce wakes MHD's epoll fd. */
    int external = sc->threads <= 0;
    unsigned flags = MHD_USE_EPOLL | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ERROR_LOG | MHD_USE_TURBO;
    if (!external)
        flags |= MHD_USE_INTERNAL_POLLING_THREAD;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    srv->d = MHD_start_daemon(flags, 0, NULL, NULL, handler, srv,
                              MHD_OPTION_EXTERNAL_LOGGER, mhd_log, srv,
                              MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                              MHD_OPTION_THREAD_POOL_SIZE, (unsigned)(external ? 0 : sc->threads),
                              MHD_OPTION_CONNECTION_LIMIT, (unsigned)20000,
                              /* MHD's default 32 KiB pool per connection is
                               * most of what an open stream costs */
                              MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(16 * 1024),
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)300,
                              MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)4096,
                              MHD_OPTION_NOTIFY_COMPLETED, completed, srv,
                              MHD_OPTION_END);
    if (!srv->d) {
        snprintf(msg, msgsize, "cannot listen on %s: %s", listen, strerror(errno));
        server_gen_release(srv, srv->gen);
        free(srv);
        return NULL;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(srv->d, MHD_DAEMON_INFO_BIND_PORT);
    srv->port = di ? di->port : 0;
    if (!(srv->ops = ops_start(msg, msgsize)) ||
        pump_start(srv, srv->d, external, &srv->pump, msg, msgsize) < 0) {
        ops_free(srv->ops);
        MHD_stop_daemon(srv->d);
        server_gen_release(srv, srv->gen);
        free(srv);
        return NULL;
    }
    return srv;
}

int server_port(const serve_server *srv)
{
    return srv->port;
}

size_t server_active(serve_server *srv)
{
    return pump_active(srv->pump) + ops_active(srv->ops);
}

void server_quiesce(serve_server *srv)
{
    pump_quiesce(srv->pump); /* MHD is the loop's to touch */
}

void server_stop(serve_server *srv)
{
    /* every call ends, every suspended connection resumes, what they left
     * is written, and the loop exits: MHD is then this thread's to stop.
     * The op workers first: their answers resume connections the loop writes. */
    ops_free(srv->ops);
    srv->ops = NULL;
    pump_stop(srv->pump);
    MHD_stop_daemon(srv->d);
    pump_free(srv->pump);
    pthread_mutex_lock(&srv->gen_mu);
    serve_gen *g = srv->gen;
    srv->gen = NULL;
    pthread_mutex_unlock(&srv->gen_mu);
    if (g)
        server_gen_release(srv, g);
    pthread_mutex_destroy(&srv->gen_mu);
    free(srv);
}

void server_cancel_all(serve_server *srv)
{
    ops_cancel_all(srv->ops);
    pump_cancel_all(srv->pump);
}

