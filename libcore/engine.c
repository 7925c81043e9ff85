/* engine.c — the client's event loop: one libcurl multi handle per client,
 * driven by curl_multi_socket_action over one epoll fd, a small pool of easy
 * handles reused between transfers, and the connection cache that keeps
 * connections alive between requests. A transfer (transport.c) registers a
 * job here; whoever needs progress runs the loop until its own job is ready,
 * and the data of every other job lands in that job's own queue on the way.
 *
 * Threads. One client serves every thread of a process, so several threads
 * may need the loop at once. A libcurl multi handle is not thread-safe, so
 * every touch of it happens under one mutex. Only one thread at a time (the
 * "driver") waits in epoll_wait; it drops the mutex while it waits, so other
 * threads can still start or free transfers, and an eventfd wakes it when
 * they change what it should wait for. The other threads wait on a condition
 * variable and are woken after each round; whichever finds its job still not
 * ready becomes the next driver. Per-thread engines were rejected: a stream
 * opened on one thread and read on another (a tool loop hands streams around)
 * would need its connection moved between multis, and each thread would keep
 * its own idle connections to the same provider.
 *
 * File descriptors: the epoll fd and the eventfd per client; per transfer
 * only its socket. A caller's cancel token has a pipe of its own; its read end
 * joins the epoll set while a transfer using it runs (counted per token), so a
 * cancel from any thread wakes the loop and closes the transfer's socket. */
#include "config.h"
#include "transport.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Idle easy handles kept for reuse; more are freed. */
#define POOL_MAX 16
/* Idle connections libcurl keeps open after use. A client talks to a handful
 * of provider hosts; a burst of parallel calls leaves this many warm. */
#define MAX_IDLE_CONNECTIONS 32
/* The longest a blocking wait sleeps without looking at the clock again. */
#define MAX_WAIT_MS 1000
/* Events taken per epoll_wait, and full batches taken in one round. */
#define EVENTS_PER_WAIT 256
#define MAX_BATCHES 16

enum { TAG_SOCKET = 0, TAG_WAKE = 1, TAG_CANCEL = 2 };

typedef struct cancel_slot {
    seam_cancel *token;
    int fd;
    size_t refs;
    int armed; /* in the epoll set */
} cancel_slot;

struct seam_engine {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    CURLM *multi;
    CURLSH *share;
    int epfd;
    int wakefd;
    int driving;          /* a thread runs a round (maybe waiting in epoll) */
    int waiting;          /* ... and is inside epoll_wait right now */
    unsigned long gen;    /* rounds run so far */
    seam_engine_job *jobs;/* registered (network) transfers */
    size_t n_jobs;
    int64_t next_idle_check;
    CURL *pool[POOL_MAX];
    int pool_warm[POOL_MAX]; /* kept without a reset (seam_engine_easy) */
    size_t n_pool;
    cancel_slot *cancels;
    size_t n_cancels, cap_cancels;
};

static uint64_t tag(int kind, int fd)
{
    return ((uint64_t)kind << 32) | (uint32_t)fd;
}

/* libcurl tells which sockets to watch for what; they go straight into the
 * epoll set (curl_multi_assign remembers that one was added, saving a probe). */
static int socket_cb(CURL *easy, curl_socket_t s, int what, void *ud, void *sockp)
{
    (void)easy;
    seam_engine *e = ud;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(e->epfd, EPOLL_CTL_DEL, s, NULL);
        return 0;
    }
    struct epoll_event ev = { 0 };
    ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0);
    ev.data.u64 = tag(TAG_SOCKET, s);
    if (sockp) {
        if (epoll_ctl(e->epfd, EPOLL_CTL_MOD, s, &ev) == 0 || errno != ENOENT)
            return 0;
    }
    if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, s, &ev) != 0 && errno == EEXIST)
        epoll_ctl(e->epfd, EPOLL_CTL_MOD, s, &ev);
    curl_multi_assign(e->multi, s, (void *)1);
    return 0;
}

seam_engine *seam_engine_new(CURLSH *share)
{
    seam_engine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->epfd = epoll_create1(EPOLL_CLOEXEC);
    e->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    e->multi = curl_multi_init();
    e->share = share;
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    if (e->epfd < 0 || e->wakefd < 0 || !e->multi) {
        seam_engine_free(e);
        return NULL;
    }
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag(TAG_WAKE, e->wakefd) };
    if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->wakefd, &ev) != 0) {
        seam_engine_free(e);
        return NULL;
    }
    curl_multi_setopt(e->multi, CURLMOPT_SOCKETFUNCTION, socket_cb);
    curl_multi_setopt(e->multi, CURLMOPT_SOCKETDATA, e);
    curl_multi_setopt(e->multi, CURLMOPT_MAXCONNECTS, (long)MAX_IDLE_CONNECTIONS);
    return e;
}

void seam_engine_free(seam_engine *e)
{
    if (!e)
        return;
    /* Every transfer is gone by now (streams are freed before their client). */
    for (size_t i = 0; i < e->n_pool; i++)
        curl_easy_cleanup(e->pool[i]);
    if (e->multi)
        curl_multi_cleanup(e->multi);
    if (e->epfd >= 0)
        close(e->epfd);
    if (e->wakefd >= 0)
        close(e->wakefd);
    free(e->cancels);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
    free(e);
}

void seam_engine_lock(seam_engine *e)
{
    pthread_mutex_lock(&e->mu);
}

void seam_engine_unlock(seam_engine *e)
{
    pthread_mutex_unlock(&e->mu);
}

int seam_engine_fd(const seam_engine *e)
{
    return e ? e->epfd : -1;
}

/* Wakes a driver sleeping in epoll_wait so it recomputes its wait. */
static void poke(seam_engine *e)
{
    if (e->waiting) {
        uint64_t one = 1;
        ssize_t w = write(e->wakefd, &one, sizeof one);
        (void)w; /* a full counter is readable already */
    }
}

CURL *seam_engine_easy(seam_engine *e, int *warm)
{
    *warm = 0;
    CURL *easy = NULL;
    if (e->n_pool) {
        easy = e->pool[--e->n_pool];
        *warm = e->pool_warm[e->n_pool];
    } else {
        easy = curl_easy_init();
    }
    if (easy && e->share && !*warm)
        curl_easy_setopt(easy, CURLOPT_SHARE, e->share);
    return easy;
}

/* ---- cancel tokens in the epoll set ---------------------------------------------- */

static void cancel_ref(seam_engine *e, seam_cancel *token)
{
    if (!token)
        return;
    for (size_t i = 0; i < e->n_cancels; i++)
        if (e->cancels[i].token == token) {
            e->cancels[i].refs++;
            return;
        }
    if (e->n_cancels == e->cap_cancels) {
        size_t cap = e->cap_cancels ? e->cap_cancels * 2 : 4;
        cancel_slot *p = realloc(e->cancels, cap * sizeof *p);
        if (!p)
            return; /* the token is still checked on every round */
        e->cancels = p;
        e->cap_cancels = cap;
    }
    cancel_slot *c = &e->cancels[e->n_cancels++];
    c->token = token;
    c->fd = seam_cancel_fd(token);
    c->refs = 1;
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag(TAG_CANCEL, c->fd) };
    c->armed = epoll_ctl(e->epfd, EPOLL_CTL_ADD, c->fd, &ev) == 0;
}

static void cancel_unref(seam_engine *e, seam_cancel *token)
{
    for (size_t i = 0; token && i < e->n_cancels; i++) {
        cancel_slot *c = &e->cancels[i];
        if (c->token != token)
            continue;
        if (--c->refs == 0) {
            if (c->armed)
                epoll_ctl(e->epfd, EPOLL_CTL_DEL, c->fd, NULL);
            *c = e->cancels[--e->n_cancels];
        }
        return;
    }
}

/* A triggered token's pipe stays readable: it leaves the epoll set at once so
 * the loop does not spin, and every job using it is aborted. */
static void cancel_fired(seam_engine *e, int fd)
{
    for (size_t i = 0; i < e->n_cancels; i++)
        if (e->cancels[i].fd == fd && e->cancels[i].armed) {
            epoll_ctl(e->epfd, EPOLL_CTL_DEL, fd, NULL);
            e->cancels[i].armed = 0;
        }
}

/* ---- jobs --------------------------------------------------------------------------- */

static void detach(seam_engine *e, seam_engine_job *j)
{
    if (j->in_multi) {
        /* An unfinished transfer's connection is closed here, not returned to
         * the cache: that is what makes a cancel close the socket at once. */
        curl_multi_remove_handle(e->multi, j->easy);
        j->in_multi = 0;
        poke(e);
    }
}

static void abort_job(seam_engine *e, seam_engine_job *j, seam_error_kind why)
{
    j->reuse = 0;
    detach(e, j);
    if (!j->over) {
        j->over = 1;
        j->ops->abort(j, why);
    }
}

/* curl_multi_socket_action, and when it fails (out of memory, mostly) every
 * unfinished transfer ends: libcurl 7.88 leaves a socket's transfer table
 * destroyed after such a failure, and driving it again divides by that
 * table's zero size (doc/reliability.md). */
static void multi_act(seam_engine *e, curl_socket_t fd, int mask)
{
    int running;
    if (curl_multi_socket_action(e->multi, fd, mask, &running) == CURLM_OK)
        return;
    for (seam_engine_job *j = e->jobs; j; j = j->next)
        if (!j->over)
            abort_job(e, j, SEAM_ERROR_RESOURCE);
}

static int collect(seam_engine *e);

int seam_engine_add(seam_engine *e, seam_engine_job *j)
{
    curl_easy_setopt(j->easy, CURLOPT_PRIVATE, j);
    if (curl_multi_add_handle(e->multi, j->easy) != CURLM_OK)
        return -1;
    j->in_multi = 1;
    j->registered = 1;
    j->over = 0;
    j->next = e->jobs;
    j->prev = NULL;
    if (e->jobs)
        e->jobs->prev = j;
    e->jobs = j;
    e->n_jobs++;
    j->seen_gen = e->gen - 1; /* its first nowait look runs a round */
    cancel_ref(e, j->cancel);
    /* Start connecting (or sending on a kept-alive connection) now, on this
     * thread: the driver, if any, is told to look again. */
    multi_act(e, CURL_SOCKET_TIMEOUT, 0);
    /* On a kept-alive connection a small answer may be complete already. */
    collect(e);
    int64_t d = j->ops->idle_deadline(j);
    if (d != INT64_MAX && (d < e->next_idle_check || !e->next_idle_check))
        e->next_idle_check = d;
    poke(e);
    return 0;
}

void seam_engine_remove(seam_engine *e, seam_engine_job *j)
{
    if (!j->easy)
        return;
    detach(e, j);
    if (j->registered) {
        if (j->prev)
            j->prev->next = j->next;
        else
            e->jobs = j->next;
        if (j->next)
            j->next->prev = j->prev;
        j->prev = j->next = NULL;
        j->registered = 0;
        e->n_jobs--;
        cancel_unref(e, j->cancel);
    }
    if (e->n_pool < POOL_MAX) {
        int warm = j->reuse && j->over; /* completed, not aborted nor cut short */
        if (!warm)
            curl_easy_reset(j->easy);
        j->reuse = 0;
        e->pool_warm[e->n_pool] = warm;
        e->pool[e->n_pool++] = j->easy;
    } else {
        curl_easy_cleanup(j->easy);
    }
    j->easy = NULL;
}

/* ---- the loop ----------------------------------------------------------------------- */

/* Completed transfers: their connection goes back to the cache (the easy
 * handle leaves the multi at once) and the job hears the result. */
static int collect(seam_engine *e)
{
    int n = 0;
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(e->multi, &left)) != NULL) {
        if (m->msg != CURLMSG_DONE)
            continue;
        seam_engine_job *j = NULL;
        CURL *easy = m->easy_handle;
        CURLcode code = m->data.result;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&j);
        if (!j)
            continue;
        if (code != CURLE_OK)
            j->reuse = 0;
        j->ops->done(j, code); /* may read info from the handle: before removal */
        curl_multi_remove_handle(e->multi, easy);
        j->in_multi = 0;
        j->over = 1;
        n++;
    }
    return n;
}

/* Jobs whose token was cancelled or whose stream went quiet too long. */
static int sweep(seam_engine *e, int cancels)
{
    int64_t now = seam_now_ms();
    if (!cancels && (!e->next_idle_check || now < e->next_idle_check))
        return 0;
    int64_t next = 0;
    int n = 0;
    for (seam_engine_job *j = e->jobs; j; j = j->next) {
        if (j->over)
            continue;
        if (j->cancel && seam_cancel_triggered(j->cancel)) {
            abort_job(e, j, SEAM_ERROR_CANCELLED);
            n++;
            continue;
        }
        int64_t d = j->ops->idle_deadline(j);
        if (d <= now) {
            abort_job(e, j, SEAM_ERROR_TIMEOUT);
            n++;
            continue;
        }
        if (d != INT64_MAX && (!next || d < next))
            next = d;
    }
    e->next_idle_check = next;
    return n;
}

/* libcurl's own timer, in ms from now (-1: none). */
static long curl_wait(seam_engine *e)
{
    long t = -1;
    curl_multi_timeout(e->multi, &t);
    return t;
}

/* Hands libcurl the sockets epoll found ready; notes wakes and cancels. */
static int dispatch(seam_engine *e, const struct epoll_event *evs, int n, int *cancels)
{
    int acted = 0;
    for (int i = 0; i < n; i++) {
        int kind = (int)(evs[i].data.u64 >> 32);
        int fd = (int)(uint32_t)evs[i].data.u64;
        if (kind == TAG_WAKE) {
            uint64_t v;
            ssize_t r = read(e->wakefd, &v, sizeof v);
            (void)r;
        } else if (kind == TAG_CANCEL) {
            cancel_fired(e, fd);
            *cancels = 1;
        } else {
            int mask = 0;
            if (evs[i].events & EPOLLIN)
                mask |= CURL_CSELECT_IN;
            if (evs[i].events & EPOLLOUT)
                mask |= CURL_CSELECT_OUT;
            if (evs[i].events & (EPOLLERR | EPOLLHUP))
                mask |= CURL_CSELECT_ERR;
            multi_act(e, fd, mask);
            acted++;
        }
    }
    return acted;
}

/* One round, with the mutex held on entry and exit: wait up to wait_ms for
 * the epoll set (dropping the mutex meanwhile), hand libcurl what is ready
 * and its expired timers, collect completions. Returns how many sockets,
 * completions and aborts it handled. */
static int round_once(seam_engine *e, int64_t wait_ms)
{
    e->driving = 1;
    long cw = curl_wait(e);
    if (cw >= 0 && cw < wait_ms)
        wait_ms = cw;
    if (e->next_idle_check) {
        int64_t idle = e->next_idle_check - seam_now_ms();
        if (idle < wait_ms)
            wait_ms = idle < 0 ? 0 : idle;
    }
    struct epoll_event evs[EVENTS_PER_WAIT];
    int n;
    if (wait_ms > 0) {
        e->waiting = 1;
        pthread_mutex_unlock(&e->mu);
        n = epoll_wait(e->epfd, evs, EVENTS_PER_WAIT, (int)wait_ms);
        pthread_mutex_lock(&e->mu);
        e->waiting = 0;
    } else {
        n = epoll_wait(e->epfd, evs, EVENTS_PER_WAIT, 0);
    }
    int acted = 0, cancels = 0;
    /* A full batch means more are ready: take them in this round too (up to
     * a bound, so that one round stays short), since an application that
     * drives thousands of streams looks at them once per round. */
    for (int batch = 0; n > 0; batch++) {
        acted += dispatch(e, evs, n, &cancels);
        if (n < EVENTS_PER_WAIT || batch + 1 >= MAX_BATCHES)
            break;
        n = epoll_wait(e->epfd, evs, EVENTS_PER_WAIT, 0);
    }
    if (curl_wait(e) == 0) {
        multi_act(e, CURL_SOCKET_TIMEOUT, 0);
        acted++;
    }
    acted += collect(e);
    acted += sweep(e, cancels);
    e->gen++;
    e->driving = 0;
    pthread_cond_broadcast(&e->cv);
    return acted;
}

void seam_engine_run(seam_engine *e, seam_engine_job *j, int nowait)
{
    for (;;) {
        if (j->ops->ready(j))
            return;
        int64_t now = seam_now_ms();
        if (!j->over && j->cancel && seam_cancel_triggered(j->cancel)) {
            abort_job(e, j, SEAM_ERROR_CANCELLED);
            continue;
        }
        int64_t idle = j->ops->idle_deadline(j);
        if (!j->over && idle <= now) {
            abort_job(e, j, SEAM_ERROR_TIMEOUT);
            continue;
        }
        if (j->over)
            return; /* ready() says finished once the job has recorded it */
        if (nowait) {
            /* Nobody ran the loop since this job last looked: run one round
             * without waiting. Otherwise its news, if any, is in its queue. */
            if (!e->driving && j->seen_gen == e->gen)
                round_once(e, 0);
            j->seen_gen = e->gen;
            if (j->ops->ready(j))
                return;
            if (!j->over && j->cancel && seam_cancel_triggered(j->cancel))
                continue;
            return;
        }
        int64_t wait = idle - now;
        if (wait > MAX_WAIT_MS)
            wait = MAX_WAIT_MS;
        if (e->driving) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += wait / 1000;
            ts.tv_nsec += (long)(wait % 1000) * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&e->cv, &e->mu, &ts);
            continue;
        }
        round_once(e, wait);
    }
}

int64_t seam_engine_timeout(seam_engine *e)
{
    pthread_mutex_lock(&e->mu);
    long cw = curl_wait(e);
    int64_t t = cw;
    if (e->next_idle_check) {
        int64_t idle = e->next_idle_check - seam_now_ms();
        if (idle < 0)
            idle = 0;
        if (t < 0 || idle < t)
            t = idle;
    }
    pthread_mutex_unlock(&e->mu);
    return t;
}

int seam_engine_perform(seam_engine *e)
{
    pthread_mutex_lock(&e->mu);
    int n = 0;
    if (!e->driving)
        n = round_once(e, 0);
    pthread_mutex_unlock(&e->mu);
    return n;
}
