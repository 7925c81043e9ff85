/* pump.c — the gateway's one event-loop thread: it runs libmicrohttpd (in
 * its external-epoll mode: MHD's epoll fd is one of the fds polled here) and
 * seam's engine side by side. It opens each call's stream, waits on MHD's fd,
 * the clients' event fds (seam_client_fd), the fds a stream waits on between
 * attempts, and the hang-up of every client socket, runs MHD_run and
 * seam_client_perform, and pulls chunks with seam_stream_next_nowait into
 * each call's output in its wire's format. A stream whose client reads slowly
 * stops being pulled once SERVE_OUT_HIGH bytes wait for it. A client that
 * hangs up has its stream freed at once, which closes the upstream transfer.
 *
 * Why one thread for both: a request used to cross five threads (an MHD
 * worker, this pump, back to the worker), a scheduler wake-up each, which on
 * a loaded 2-core machine was most of the latency the gateway added. Here a
 * request is read, sent upstream, answered and written by the same thread
 * without a hand-off; MHD's handlers and content readers run inside MHD_run
 * on this thread, so they submit and wake without a system call. */
#include "config.h"

#include "serve.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

struct serve_pump {
    serve_server *srv;
    struct MHD_Daemon *d;
    int mhd_fd;                  /* MHD's epoll fd; -1: MHD runs its own threads */
    pthread_t th;
    int wake_fd;
    pthread_mutex_t mu;
    serve_call *incoming;
    serve_call *active;          /* the pump thread's own list */
    size_t nactive;              /* under mu: incoming + active */
    int stop, cancel_all, stopped, quiesce;
    /* the loop thread's own */
    int again;                   /* work is pending: poll without waiting */
    int quiesced;
    MHD_socket listen_sock;      /* quiesced under MHD's threads: closed once it stops */
    size_t requests;             /* MHD requests begun and not completed (atomic) */
    struct pollfd *pfd;
    serve_call **pcall;          /* the call of each pfd (NULL: a client fd or the wake fd) */
    size_t pcap;
};

/* The pump whose loop runs on this thread (NULL on every other thread). */
static __thread serve_pump *loop_of;

static int on_loop(const serve_pump *p)
{
    return loop_of == p;
}

void pump_wake(serve_pump *p)
{
    if (on_loop(p)) { /* from MHD's callbacks: the loop looks again before it sleeps */
        p->again = 1;
        return;
    }
    uint64_t one = 1;
    ssize_t w = write(p->wake_fd, &one, sizeof one);
    (void)w;
}

void pump_request_delta(serve_pump *p, int d)
{
    /* from the loop, or from any of MHD's threads */
    __atomic_add_fetch(&p->requests, (size_t)(ptrdiff_t)d, __ATOMIC_RELAXED);
}

static size_t requests_open(serve_pump *p)
{
    return __atomic_load_n(&p->requests, __ATOMIC_RELAXED);
}

/* Resumes c's connection if it is suspended; called without c->mu, on the
 * loop thread, which runs MHD again before it next waits. */
static void resume(serve_call *c, int was_suspended)
{
    if (was_suspended) {
        MHD_resume_connection(c->conn);
        serve_pump *p = server_pump(c->srv);
        if (p->mhd_fd >= 0)
            pump_wake(p);
    }
}

static void open_call(serve_call *c);

void pump_submit(serve_pump *p, serve_call *c)
{
    /* On the loop (threads 0) the call's first step runs here, inside
     * MHD_run: the request goes upstream before MHD's other connections are
     * read. What that step returned is kept for drive(). Not from MHD's own
     * threads: the engine is one mutex, and an HTTP thread sending upstream
     * under it stalls the pump's reads (measured: twice the added median). */
    int here = on_loop(p);
    if (here)
        open_call(c);
    if (c->s) {
        c->pre_rc = seam_stream_next_nowait(c->s, &c->pre_ch, &c->pre_err);
        c->has_pre = c->pre_rc != SEAM_STREAM_PENDING;
    }
    pthread_mutex_lock(&p->mu);
    if (p->stopped || p->stop) {
        pthread_mutex_unlock(&p->mu);
        if (c->s) {
            seam_stream_free(c->s);
            c->s = NULL;
            c->has_pre = 0;
        }
        pthread_mutex_lock(&c->mu);
        if (c->pump_done) { /* open_call failed and answered */
            pthread_mutex_unlock(&c->mu);
            call_unref(c);
            return;
        }
        serve_err_set(&c->err, 503, SEAM_ERROR_OVERLOADED, "shutting_down",
                      "The gateway is shutting down");
        c->failed = 1;
        c->finished = 1;
        c->pump_done = 1;
        c->phase = CALL_HEAD;
        int s = c->suspended;
        c->suspended = 0;
        pthread_mutex_unlock(&c->mu);
        resume(c, s);
        call_unref(c);
        return;
    }
    c->next = p->incoming;
    p->incoming = c;
    p->nactive++;
    pthread_mutex_unlock(&p->mu);
    pump_wake(p);
}

void pump_quiesce(serve_pump *p)
{
    pthread_mutex_lock(&p->mu);
    p->quiesce = 1;
    pthread_mutex_unlock(&p->mu);
    pump_wake(p);
}

size_t pump_active(serve_pump *p)
{
    pthread_mutex_lock(&p->mu);
    size_t n = p->nactive;
    pthread_mutex_unlock(&p->mu);
    return n;
}

void pump_cancel_all(serve_pump *p)
{
    pthread_mutex_lock(&p->mu);
    p->cancel_all = 1;
    pthread_mutex_unlock(&p->mu);
    pump_wake(p);
}

/* ---- one call ----------------------------------------------------------------- */

static void note_origin(serve_call *c)
{
    const seam_result *res = seam_stream_result(c->s);
    const char *pr = res ? seam_result_provider(res) : NULL;
    const char *mo = res ? seam_result_model(res) : NULL;
    if (pr)
        snprintf(c->answered_provider, sizeof c->answered_provider, "%s", pr);
    if (mo)
        snprintf(c->answered_model, sizeof c->answered_model, "%s", mo);
}

/* Ends the call from the pump's side: frees the stream (closing any upstream
 * transfer), marks the output finished and wakes the connection. */
static void finish(serve_pump *p, serve_call *c, const serve_err *e)
{
    if (c->s) {
        const seam_result *res = seam_stream_result(c->s);
        if (res && seam_result_usage(res))
            c->usage = *seam_result_usage(res);
        note_origin(c);
        seam_stream_free(c->s);
        c->s = NULL;
    }
    if (c->stream && c->t_first_us)
        metrics_stream_delta(-1);
    pthread_mutex_lock(&c->mu);
    if (e && !c->finished) {
        c->error_kind = e->kind;
        snprintf(c->error_provider, sizeof c->error_provider, "%s", e->provider);
        if (c->phase == CALL_QUEUED) {
            c->err = *e;
            c->failed = 1;
            c->phase = CALL_HEAD;
        } else {
            c->stream_error = 1;
            sse_error(c, e, &c->out);
        }
    }
    if (c->phase == CALL_QUEUED)
        c->phase = CALL_HEAD;
    c->finished = 1;
    c->pump_done = 1;
    c->blocked = 0;
    int s = c->suspended && !c->mhd_done;
    c->suspended = 0;
    pthread_mutex_unlock(&c->mu);
    resume(c, s);
    (void)p;
}

void pump_answer(serve_call *c, const serve_err *e, sbuf *body)
{
    if (body) {
        pthread_mutex_lock(&c->mu);
        sb_free(&c->out);
        c->out = *body;
        memset(body, 0, sizeof *body);
        pthread_mutex_unlock(&c->mu);
    }
    finish(server_pump(c->srv), c, e);
}

static void open_call(serve_call *c)
{
    seam_call_options o = call_route_options(c);
    o.non_streamed = c->whole_upstream;
    seam_error err;
    seam_error_clear(&err);
    if (seam_stream_open(c->gen->client, c->req, &o, &c->s, &err) != SEAM_OK) {
        c->s = NULL;
        serve_err e;
        serve_err_from_seam(&e, &err, c->wire);
        finish(NULL, c, &e);
    }
}

/* Pulls what c's stream has. Returns 1 when the call is over. Fills the fds
 * the stream waits on beyond the client's own fd. */
static int drive(serve_call *c, struct pollfd *fds, size_t max, size_t *nfds, int *timeout)
{
    *nfds = 0;
    *timeout = -1;
    pthread_mutex_lock(&c->mu);
    int gone = c->client_gone, blocked = c->blocked;
    pthread_mutex_unlock(&c->mu);
    if (gone) {
        finish(NULL, c, NULL);
        return 1;
    }
    if (!c->s)
        return 1;
    if (blocked)
        return 0;
    for (;;) {
        const seam_chunk *ch;
        seam_error err;
        int rc;
        if (c->has_pre) { /* what pump_submit's first step returned */
            c->has_pre = 0;
            rc = c->pre_rc;
            ch = c->pre_ch;
            err = c->pre_err;
        } else {
            rc = seam_stream_next_nowait(c->s, &ch, &err);
        }
        if (rc == 1) {
            if (!c->t_first_us) {
                c->t_first_us = serve_now_us();
                note_origin(c);
                if (c->stream)
                    metrics_stream_delta(1);
            }
            if (!c->stream)
                continue;
            pthread_mutex_lock(&c->mu);
            if (c->phase == CALL_QUEUED)
                c->phase = CALL_HEAD;
            sse_chunk(c, ch, &c->out);
            int full = c->out.len - c->out_off > SERVE_OUT_HIGH;
            if (full)
                c->blocked = 1;
            int s = c->suspended;
            c->suspended = 0;
            pthread_mutex_unlock(&c->mu);
            resume(c, s);
            if (full)
                return 0;
            continue;
        }
        if (rc == SEAM_STREAM_PENDING) {
            seam_stream_pollfds(c->s, fds, max, nfds, timeout);
            /* the client's own fd is polled once for every stream */
            int cfd = seam_client_fd(c->gen->client);
            for (size_t i = 0; i < *nfds; i++)
                if (fds[i].fd == cfd)
                    fds[i--] = fds[--*nfds];
            return 0;
        }
        if (rc == 0) {
            const seam_result *res = seam_stream_result(c->s);
            note_origin(c);
            pthread_mutex_lock(&c->mu);
            if (c->stream)
                sse_end(c, res, &c->out);
            else if (c->wire == WIRE_ANTHROPIC)
                messages_render(c, res, &c->out);
            else if (c->wire == WIRE_RESPONSES)
                responses_render(c, res, &c->out);
            else
                chat_render(c, res, &c->out);
            pthread_mutex_unlock(&c->mu);
            finish(NULL, c, NULL);
            return 1;
        }
        serve_err e;
        serve_err_from_seam(&e, &err, c->wire);
        finish(NULL, c, &e);
        return 1;
    }
}

/* ---- the thread ------------------------------------------------------------------ */

static int reserve(serve_pump *p, size_t n)
{
    if (n <= p->pcap)
        return 0;
    size_t cap = p->pcap ? p->pcap : 64;
    while (cap < n)
        cap *= 2;
    struct pollfd *f = realloc(p->pfd, cap * sizeof *f);
    if (f)
        p->pfd = f;
    serve_call **c = realloc(p->pcall, cap * sizeof *c);
    if (c)
        p->pcall = c;
    if (!f || !c)
        return -1;
    p->pcap = cap;
    return 0;
}

static void add_fd(serve_pump *p, size_t *n, int fd, short events, serve_call *c)
{
    if (reserve(p, *n + 1) < 0)
        return;
    p->pfd[*n].fd = fd;
    p->pfd[*n].events = events;
    p->pfd[*n].revents = 0;
    p->pcall[*n] = c;
    (*n)++;
}

/* MHD's wait: its timeout in ms, -1 when it has none. */
static int mhd_timeout(serve_pump *p)
{
    MHD_UNSIGNED_LONG_LONG t;
    if (MHD_get_timeout(p->d, &t) != MHD_YES)
        return -1;
    return t > 1000 ? 1000 : (int)t;
}

static void min_timeout(int *timeout, int t)
{
    if (t >= 0 && (*timeout < 0 || t < *timeout))
        *timeout = t;
}

/* After the last call: MHD writes what the calls left (the end of a drained
 * stream, its error event) until every request has completed, up to a
 * deadline (an idle keep-alive connection holds no request). */
static void flush(serve_pump *p)
{
    int64_t end = serve_now_us() + 500 * 1000;
    if (p->mhd_fd < 0) {
        /* MHD's threads write; MHD_stop_daemon, next, would cut them short */
        while (requests_open(p) > 0 && serve_now_us() < end) {
            struct timespec ms = { 0, 1000 * 1000 };
            nanosleep(&ms, NULL);
        }
        return;
    }
    while (requests_open(p) > 0 && serve_now_us() < end) {
        struct pollfd f = { .fd = p->mhd_fd, .events = POLLIN };
        int t = mhd_timeout(p);
        poll(&f, 1, t < 0 || t > 10 ? 10 : t);
        MHD_run(p->d);
    }
}

static void *run(void *arg)
{
    serve_pump *p = arg;
    loop_of = p;
    for (;;) {
        /* Reads requests (whose handlers queue calls), writes what resumed
         * connections have, accepts. */
        if (p->mhd_fd >= 0)
            MHD_run(p->d);
        pthread_mutex_lock(&p->mu);
        serve_call *in = p->incoming;
        p->incoming = NULL;
        int stop = p->stop, cancel_all = p->cancel_all || p->stop, quiesce = p->quiesce;
        pthread_mutex_unlock(&p->mu);
        if (quiesce && !p->quiesced) {
            /* external polling: the socket may be closed at once */
            MHD_socket ls = MHD_quiesce_daemon(p->d);
            if (ls != MHD_INVALID_SOCKET && p->mhd_fd >= 0)
                close(ls);
            else
                p->listen_sock = ls;
            p->quiesced = 1;
        }
        while (in) {
            serve_call *c = in;
            in = in->next;
            c->next = p->active;
            p->active = c;
            if (!c->s && !c->pump_done) /* not opened by pump_submit */
                open_call(c);
        }
        if (cancel_all)
            for (serve_call *c = p->active; c; c = c->next)
                if (c->s) {
                    serve_err e;
                    serve_err_set(&e, 503, SEAM_ERROR_CANCELLED, "shutting_down",
                                  "The gateway is shutting down");
                    finish(p, c, &e);
                }

        size_t n = 0;
        int timeout = -1;
        add_fd(p, &n, p->wake_fd, POLLIN, NULL);
        add_fd(p, &n, p->mhd_fd, POLLIN, NULL); /* -1 (ignored by poll) with MHD's threads */
        serve_call **link = &p->active;
        size_t ended = 0;
        while (*link) {
            serve_call *c = *link;
            struct pollfd extra[4];
            size_t ne = 0;
            int t = -1;
            if (drive(c, extra, 4, &ne, &t)) {
                *link = c->next;
                ended++;
                call_unref(c);
                continue;
            }
            for (size_t i = 0; i < ne; i++)
                add_fd(p, &n, extra[i].fd, extra[i].events, NULL);
            min_timeout(&timeout, t);
            /* Every client socket is watched for a hang-up, not only the
             * suspended ones: MHD notices a peer gone only when a write
             * fails, which for a slow upstream may be long after. Should MHD
             * close the fd meanwhile and another connection reuse it, a
             * hang-up seen there cancels a call already over. */
            pthread_mutex_lock(&c->mu);
            if (!c->mhd_done && c->fd >= 0)
                add_fd(p, &n, c->fd, POLLRDHUP, c);
            pthread_mutex_unlock(&c->mu);
            link = &c->next;
        }
        if (ended) {
            pthread_mutex_lock(&p->mu);
            p->nactive -= ended;
            pthread_mutex_unlock(&p->mu);
        }
        if (stop && !p->active) {
            pthread_mutex_lock(&p->mu);
            int more = p->incoming != NULL;
            pthread_mutex_unlock(&p->mu);
            if (!more) {
                flush(p);
                break;
            }
            continue;
        }
        /* each conf generation in use has its own client and fd */
        seam_client *clients[8];
        size_t ncl = 0;
        for (serve_call *c = p->active; c; c = c->next) {
            size_t k = 0;
            while (k < ncl && clients[k] != c->gen->client)
                k++;
            if (k == ncl && ncl < 8) {
                clients[ncl++] = c->gen->client;
                add_fd(p, &n, seam_client_fd(c->gen->client), POLLIN, NULL);
                min_timeout(&timeout, seam_client_timeout_ms(c->gen->client));
            }
        }
        if (p->mhd_fd >= 0)
            min_timeout(&timeout, mhd_timeout(p));
        if (p->again) /* a connection resumed or a reader drained: no waiting */
            timeout = 0;
        p->again = 0;
        int r = poll(p->pfd, n, timeout);
        if (r < 0 && errno != EINTR)
            break;
        if (p->pfd[0].revents & POLLIN) {
            uint64_t v;
            ssize_t rd = read(p->wake_fd, &v, sizeof v);
            (void)rd;
        }
        for (size_t k = 0; k < ncl; k++)
            seam_client_perform(clients[k]);
        for (size_t i = 2; i < n; i++) {
            serve_call *c = p->pcall[i];
            if (!c || !(p->pfd[i].revents & (POLLRDHUP | POLLHUP | POLLERR)))
                continue;
            pthread_mutex_lock(&c->mu);
            c->client_gone = 1; /* drive() frees its stream: the transfer ends */
            pthread_mutex_unlock(&c->mu);
        }
    }
    pthread_mutex_lock(&p->mu);
    p->stopped = 1;
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int pump_start(serve_server *srv, struct MHD_Daemon *d, int external, serve_pump **out,
               char *msg, size_t msgsize)
{
    const union MHD_DaemonInfo *di =
        external ? MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
    if (external && (!di || di->epoll_fd < 0)) {
        snprintf(msg, msgsize, "libmicrohttpd has no epoll fd");
        return -1;
    }
    serve_pump *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(msg, msgsize, "out of memory");
        return -1;
    }
    p->srv = srv;
    p->d = d;
    p->listen_sock = MHD_INVALID_SOCKET;
    p->mhd_fd = external ? di->epoll_fd : -1;
    pthread_mutex_init(&p->mu, NULL);
    p->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    *out = p; /* before the loop can run a handler that looks for it */
    if (p->wake_fd < 0 || pthread_create(&p->th, NULL, run, p) != 0) {
        snprintf(msg, msgsize, "cannot start the pump thread: %s", strerror(errno));
        if (p->wake_fd >= 0)
            close(p->wake_fd);
        pthread_mutex_destroy(&p->mu);
        free(p);
        *out = NULL;
        return -1;
    }
    return 0;
}

void pump_stop(serve_pump *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_mutex_unlock(&p->mu);
    pump_wake(p);
    pthread_join(p->th, NULL);
}

void pump_free(serve_pump *p)
{
    if (p->listen_sock != MHD_INVALID_SOCKET)
        close(p->listen_sock);
    close(p->wake_fd);
    free(p->pfd);
    free(p->pcall);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
