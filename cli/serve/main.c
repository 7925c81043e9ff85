/* main.c — `seam serve`: its options, the conf generation (a seam client
 * and the keys of the conf's `serve` section), and the process's signals:
 * SIGHUP loads the conf again (calls in flight finish on the old one, no
 * connection is dropped; a conf that does not load leaves the old one in
 * place), SIGTERM and SIGINT stop accepting and drain the calls in flight up
 * to drain_timeout_ms, then end the rest with an error event. */
#include "config.h"

#include "serve.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char serve_help[] =
    "usage: seam serve [--conf F] [--listen HOST:PORT] [--threads N] [--access-log FILE]\n"
    "                  [--always-stream-upstream]\n"
    "\n"
    "An OpenAI- and Anthropic-compatible HTTP gateway over the conf's chains:\n"
    "  POST /v1/chat/completions   POST /v1/messages   POST /v1/responses\n"
    "  POST /v1/embeddings   POST /v1/images/generations   POST /v1/audio/speech\n"
    "  GET /v1/models   GET /healthz   GET /metrics\n"
    "The request's `model` names a chain, a role or PROVIDER/MODEL.\n"
    "Default listen address: the conf's serve.listen, else 127.0.0.1:8080. With no\n"
    "keys in the conf's serve section, only a loopback address is accepted.\n"
    "A request that does not stream is sent upstream non-streamed, unless\n"
    "--always-stream-upstream (or the conf's serve.always_stream_upstream).\n"
    "--threads N: HTTP threads beside the engine's (default 2); 0: one event loop.\n"
    "SIGHUP reloads the conf; SIGTERM drains the calls in flight and exits.\n";

static serve_gen *load_gen(const char *conf, serve_conf *sc, char *msg, size_t msgsize)
{
    serve_gen *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(msg, msgsize, "out of memory");
        return NULL;
    }
    seam_client_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.conf_path = conf;
    seam_error err;
    seam_error_clear(&err);
    if (seam_client_new(&o, &g->client, &err) != SEAM_OK) {
        snprintf(msg, msgsize, "%s", err.message);
        free(g);
        return NULL;
    }
    if (keys_load(seam_client_conf_path(g->client), &g->keys, sc, msg, msgsize) < 0) {
        seam_client_free(g->client);
        keys_free(g->keys);
        free(g);
        return NULL;
    }
    return g;
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "seam serve: %s '%s'\n(see seam serve --help)\n", what, arg);
    return 2;
}

int serve_main(const char *conf, int argc, char **argv)
{
    const char *listen = NULL, *access_log = NULL;
    int threads = 0, threads_set = 0, always_stream = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(serve_help, stdout);
            return 0;
        }
        if (strcmp(a, "--always-stream-upstream") == 0) {
            always_stream = 1;
            continue;
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--conf") == 0 || strcmp(a, "--listen") == 0 ||
            strcmp(a, "--threads") == 0 || strcmp(a, "--access-log") == 0) {
            if (!v)
                return usage_error("this option needs a value:", a);
            i++;
            if (a[2] == 'c')
                conf = v;
            else if (a[2] == 'l')
                listen = v;
            else if (a[2] == 'a')
                access_log = v;
            else if ((threads = atoi(v)) < 0 || threads > 256 || (!threads && strcmp(v, "0")))
                return usage_error("--threads wants 0..256, not", v);
            else
                threads_set = 1;
            continue;
        }
        return usage_error("unknown option", a);
    }

    /* Every thread started from here on inherits the mask: the signals are
     * taken by sigwait below, never by a server thread. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    serve_conf sc;
    memset(&sc, 0, sizeof sc);
    sc.threads = 2;
    sc.drain_ms = 30000;
    sc.max_body = 32 * 1024 * 1024;
    char msg[1024];
    serve_gen *gen = load_gen(conf, &sc, msg, sizeof msg);
    if (!gen) {
        fprintf(stderr, "seam serve: %s\n", msg);
        return 2;
    }
    if (threads_set)
        sc.threads = threads;
    if (always_stream)
        sc.always_stream = 1;
    if (access_log)
        snprintf(sc.access_log, sizeof sc.access_log, "%s", access_log);
    if (!listen)
        listen = sc.listen[0] ? sc.listen : "127.0.0.1:8080";
    if (accesslog_open(sc.access_log, msg, sizeof msg) < 0) {
        fprintf(stderr, "seam serve: %s\n", msg);
        seam_client_free(gen->client);
        keys_free(gen->keys);
        free(gen);
        return 2;
    }
    size_t nkeys = keys_count(gen->keys);
    serve_server *srv = server_start(&sc, listen, gen, msg, sizeof msg);
    if (!srv) {
        fprintf(stderr, "seam serve: %s\n", msg);
        return 2;
    }
    fprintf(stderr, "seam serve: listening on port %d (%s), %zu key%s, conf %s\n",
            server_port(srv), listen, nkeys, nkeys == 1 ? "" : "s",
            seam_client_conf_path(gen->client) ? seam_client_conf_path(gen->client) : "(none)");

    for (;;) {
        int sig;
        if (sigwait(&set, &sig) != 0)
            continue;
        if (sig == SIGHUP) {
            serve_conf fresh = sc;
            serve_gen *g = load_gen(conf, &fresh, msg, sizeof msg);
            if (!g) {
                fprintf(stderr, "seam serve: reload failed, keeping the running conf: %s\n", msg);
                continue;
            }
            serve_gen *old = server_gen_acquire(srv);
            keys_carry(g->keys, old->keys);
            server_gen_release(srv, old);
            server_set_gen(srv, g);
            accesslog_reopen();
            fprintf(stderr, "seam serve: conf reloaded (%zu key%s)\n", keys_count(g->keys),
                    keys_count(g->keys) == 1 ? "" : "s");
            continue;
        }
        break;
    }
    fprintf(stderr, "seam serve: draining %zu call%s\n", server_active(srv),
            server_active(srv) == 1 ? "" : "s");
    server_quiesce(srv);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    int64_t end = (int64_t)deadline.tv_sec * 1000 + deadline.tv_nsec / 1000000 + sc.drain_ms;
    while (server_active(srv) > 0) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        int64_t left = end - ((int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000);
        if (left <= 0)
            break;
        struct timespec wait = { 0, (left < 20 ? left : 20) * 1000000L };
        int sig = sigtimedwait(&set, NULL, &wait);
        if (sig == SIGTERM || sig == SIGINT)
            break; /* asked twice: stop now */
    }
    if (server_active(srv) > 0)
        fprintf(stderr, "seam serve: ending %zu call%s at the drain deadline\n",
                server_active(srv), server_active(srv) == 1 ? "" : "s");
    server_stop(srv);
    accesslog_close();
    return 0;
}
