/* bench_streams.c — many concurrent paced streams on one thread: N streams
 * through the real openai plugin, each receiving one SSE event every
 * INTERVAL ms from a loopback server, all driven by one thread with the
 * client's event loop (seam_client_fd / seam_client_timeout_ms /
 * seam_client_perform and seam_stream_next_nowait). Reports the file
 * descriptors and the resident memory (VmRSS) each in-flight stream costs
 * and whether every event arrived.
 *
 * The server is a small epoll loop of its own (tests/fakeserver.c has a
 * thread per connection, which does not scale to 10,000), run in a child
 * process so that its sockets count against its own fd limit, not ours.
 * Usage: bench_streams [STREAMS] [EVENTS] [INTERVAL_MS]   (run under
 * `ulimit -n 20000` for 10,000 streams). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include <seam/seam.h>

#define START_BATCH 250
#define START_EVERY_MS 10
#define PASS_EVERY_MS 10

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the paced server (child process) ------------------------------------------ */

typedef struct conn {
    int fd;
    int streaming;   /* answering: events go out on the timer */
    int dead;
    int queued;      /* in the timer queue: freed when it comes out */
    int sent;
    int64_t due;
    char in[4096];
    size_t in_len;
    struct conn *next_due;
} conn;

static int g_events, g_interval, g_ep;
static long g_send_failures;

static void conn_close(conn *c)
{
    if (c->fd >= 0) {
        epoll_ctl(g_ep, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        c->fd = -1;
    }
    c->dead = 1;
    if (!c->queued)
        free(c);
}

static void send_chunk(conn *c, const char *data, size_t len)
{
    char head[32];
    int h = snprintf(head, sizeof head, "%zx\r\n", len);
    char buf[1024];
    if ((size_t)h + len + 2 > sizeof buf)
        return;
    memcpy(buf, head, (size_t)h);
    memcpy(buf + h, data, len);
    memcpy(buf + h + len, "\r\n", 2);
    if (send(c->fd, buf, (size_t)h + len + 2, MSG_NOSIGNAL) != (ssize_t)((size_t)h + len + 2)) {
        g_send_failures++; /* a full socket buffer is not expected at these sizes */
        c->dead = 1;
    }
}

/* A whole request (head and Content-Length body) in c->in: its length, or 0. */
static size_t request_len(const conn *c)
{
    const char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
    if (!end)
        return 0;
    size_t head = (size_t)(end - c->in) + 4, body = 0;
    const char *cl = memmem(c->in, head, "Content-Length:", 15);
    if (!cl)
        cl = memmem(c->in, head, "content-length:", 15);
    if (cl)
        body = (size_t)strtoul(cl + 15, NULL, 10);
    return c->in_len >= head + body ? head + body : 0;
}

static void serve(int port_pipe)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    if (bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 4096) != 0 ||
        getsockname(ls, (struct sockaddr *)&a, &al) != 0)
        _exit(1);
    int port = ntohs(a.sin_port);
    if (write(port_pipe, &port, sizeof port) != sizeof port)
        _exit(1);
    close(port_pipe);
    int ep = g_ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
    conn *due_head = NULL, *due_tail = NULL;
    struct epoll_event evs[256];
    for (;;) {
        int wait = -1;
        if (due_head) {
            int64_t w = due_head->due - now_ms();
            wait = w < 0 ? 0 : (int)w;
        }
        int n = epoll_wait(ep, evs, 256, wait);
        for (int i = 0; i < n; i++) {
            conn *c = evs[i].data.ptr;
            if (!c) {
                int fd;
                while ((fd = accept4(ls, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    conn *nc = calloc(1, sizeof *nc);
                    nc->fd = fd;
                    struct epoll_event cev = { .events = EPOLLIN, .data.ptr = nc };
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
                }
                continue;
            }
            if (c->dead)
                continue;
            int gone = 0;
            for (;;) {
                ssize_t r = recv(c->fd, c->in + c->in_len, sizeof c->in - c->in_len, 0);
                if (r > 0) {
                    c->in_len += (size_t)r;
                    if (c->in_len == sizeof c->in)
                        break;
                    continue;
                }
                if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                    conn_close(c); /* may free c */
                    gone = 1;
                }
                break;
            }
            if (gone || c->dead || c->streaming)
                continue; /* (a dead one is in the timer queue: freed there) */
            size_t len = request_len(c);
            if (!len)
                continue;
            memmove(c->in, c->in + len, c->in_len - len);
            c->in_len -= len;
            static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                       "Transfer-Encoding: chunked\r\n\r\n";
            send(c->fd, head, sizeof head - 1, MSG_NOSIGNAL);
            c->streaming = 1;
            c->sent = 0;
            c->due = now_ms() + g_interval;
            c->queued = 1;
            c->next_due = NULL;
            if (due_tail)
                due_tail->next_due = c;
            else
                due_head = c;
            due_tail = c;
        }
        int64_t now = now_ms();
        while (due_head && due_head->due <= now) {
            conn *c = due_head;
            due_head = c->next_due;
            if (!due_head)
                due_tail = NULL;
            c->next_due = NULL;
            c->queued = 0;
            if (c->dead) {
                conn_close(c);
                continue;
            }
            char ev_text[256];
            int len = snprintf(ev_text, sizeof ev_text,
                               "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o\","
                               "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t%d \"},\"finish_reason\":null}]}\n\n",
                               c->sent);
            send_chunk(c, ev_text, (size_t)len);
            if (++c->sent < g_events && !c->dead) {
                c->due = now + g_interval;
                c->queued = 1;
                if (due_tail)
                    due_tail->next_due = c;
                else
                    due_head = c;
                due_tail = c;
                continue;
            }
            static const char last[] =
                "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o\","
                "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],"
                "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":5,\"total_tokens\":10}}\n\n"
                "data: [DONE]\n\n";
            send_chunk(c, last, sizeof last - 1);
            send(c->fd, "0\r\n\r\n", 5, MSG_NOSIGNAL);
            c->streaming = 0; /* kept alive: the next request on it is served again */
            if (c->dead)
                conn_close(c);
        }
    }
}

/* ---- the client ------------------------------------------------------------------ */

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static long vm_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

static long open_fds(void)
{
    long n = 0;
    DIR *d = opendir("/proc/self/fd");
    while (d && readdir(d))
        n++;
    if (d)
        closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10000;
    g_events = argc > 2 ? atoi(argv[2]) : 20;
    g_interval = argc > 3 ? atoi(argv[3]) : 100;
    if (n < 1 || g_events < 1 || g_interval < 1)
        return 2;
    int pp[2];
    if (pipe(pp) != 0)
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(pp[0]);
        serve(pp[1]);
        _exit(0);
    }
    close(pp[1]);
    int port = 0;
    if (read(pp[0], &port, sizeof port) != sizeof port) {
        fprintf(stderr, "bench: the paced server did not start\n");
        return 1;
    }
    close(pp[0]);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);

    char conf[1024];
    snprintf(conf, sizeof conf,
             "providers = { oa = { plugin = \"openai\"; base_url = \"http://127.0.0.1:%d/v1\"; "
             "api_key = \"sk-bench\"; timeout_ms = 600000; }; };\n",
             port);
    seam_error err;
    seam_client *c = tu_client(conf, &err);
    if (!c) {
        fprintf(stderr, "bench: client: %s\n", err.message);
        kill(pid, SIGKILL);
        return 1;
    }
    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "bench");
    seam_call_options o = { .size = sizeof o, .provider = "oa", .model = "gpt-4o" };

    long fds0 = open_fds(), rss0 = vm_rss_kb();
    seam_stream **s = calloc((size_t)n, sizeof *s);
    int *texts = calloc((size_t)n, sizeof *texts), *status = calloc((size_t)n, sizeof *status);
    char *live = calloc((size_t)n, 1);
    int64_t *t_start = calloc((size_t)n, sizeof *t_start), *t_first = calloc((size_t)n, sizeof *t_first);
    for (int i = 0; i < n; i++) {
        status[i] = SEAM_STREAM_PENDING; /* not ended */
        if (seam_stream_open(c, req, &o, &s[i], &err) != SEAM_OK) {
            fprintf(stderr, "bench: open: %s\n", err.message);
            return 1;
        }
    }
    /* Streams start in batches: 10,000 connects at once would overflow the
     * listen queue and wait out SYN retransmits, which measures the kernel. */
    int started = 0;
    int64_t next_batch = 0, last_pass = 0;
    int left = n, failed = 0;
    long peak_fds = 0, peak_rss = 0;
    int inflight_at_peak = 0;
    char first_error[sizeof err.message] = "";
    int64_t t0 = now_ms(), next_sample = 0, last_change = t0;
    struct rusage ru0;
    getrusage(RUSAGE_SELF, &ru0);
    int moved = 1;
    while (left > 0) {
        if (started < n && now_ms() >= next_batch) {
            for (int k = 0; k < START_BATCH && started < n; k++) {
                t_start[started] = now_ms();
                live[started++] = 1;
            }
            next_batch = now_ms() + START_EVERY_MS;
            moved = 1;
        }
        if (moved) {
            int progress = 0;
            for (int i = 0; i < started; i++) {
                if (!live[i])
                    continue;
                const seam_chunk *ch;
                int rc;
                while ((rc = seam_stream_next_nowait(s[i], &ch, &err)) == 1) {
                    texts[i] += ch->type == SEAM_CHUNK_TEXT_DELTA;
                    progress = 1;
                }
                if (texts[i] && !t_first[i])
                    t_first[i] = now_ms();
                if (rc == SEAM_STREAM_PENDING)
                    continue;
                status[i] = rc;
                live[i] = 0;
                left--;
                if (rc != SEAM_OK && failed++ == 0)
                    snprintf(first_error, sizeof first_error, "%s", err.message);
            }
            if (progress)
                last_change = now_ms();
        }
        int64_t now = now_ms();
        if (now >= next_sample) {
            /* In flight: its first event is in and its last is not. The
             * memory is read when the most streams are. */
            int inflight = 0;
            for (int i = 0; i < started; i++)
                inflight += live[i] && texts[i] > 0;
            long f = open_fds(), r = vm_rss_kb();
            if (inflight > inflight_at_peak) {
                peak_rss = r;
                inflight_at_peak = inflight;
            }
            if (f > peak_fds)
                peak_fds = f;
            next_sample = now + g_interval;
        }
        if (now - last_change > 60000) {
            fprintf(stderr, "bench: no event for a minute; %d streams left\n", left);
            break;
        }
        if (!left)
            break;
        /* Looking at every stream costs O(N): do it at most every
         * PASS_EVERY_MS, letting events gather meanwhile (their data waits in
         * the kernel and in each stream's queue), as a UI would per frame. */
        int64_t since = now_ms() - last_pass;
        if (since < PASS_EVERY_MS)
            poll(NULL, 0, (int)(PASS_EVERY_MS - since));
        last_pass = now_ms();
        int t = seam_client_timeout_ms(c);
        int cap = started < n ? START_EVERY_MS : g_interval;
        struct pollfd p = { seam_client_fd(c), POLLIN, 0 };
        poll(&p, 1, t < 0 || t > cap ? cap : t);
        moved = seam_client_perform(c) > 0;
    }
    int64_t elapsed = now_ms() - t0;
    struct rusage ru1;
    getrusage(RUSAGE_SELF, &ru1);
    double cpu = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
                 (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                 (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
                 (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
    long got = 0, ok = 0;
    for (int i = 0; i < n; i++) {
        got += texts[i];
        ok += status[i] == SEAM_OK;
    }
    long expected = (long)n * g_events;
    int per = inflight_at_peak ? inflight_at_peak : 1;
    printf("streams: %d on one thread, %d events each, one every %d ms; fd limit %ld\n", n, g_events,
           g_interval, (long)rl.rlim_cur);
    printf("completed: %ld ok, %d failed%s%s\n", ok, failed + (int)left, first_error[0] ? ": " : "",
           first_error);
    if (inflight_at_peak < n)
        printf("NOTE: only %d of %d streams were in flight at once\n", inflight_at_peak, n);
    printf("chunks: %ld of %ld received, %ld lost\n", got, expected, expected - got);
    printf("fds per stream: %.2f (peak %ld open, %ld before; %d streams in flight at once at most)\n",
           (double)(peak_fds - fds0) / inflight_at_peak, peak_fds, fds0, inflight_at_peak);
    printf("RSS per in-flight stream: %.1f KiB (VmRSS %ld KiB with %d in flight, %ld before)\n",
           (double)(peak_rss - rss0) / per, peak_rss, per, rss0);
    printf("elapsed %.2f s, CPU %.2f s\n", (double)elapsed / 1000, cpu);
    /* Time from a stream's start to its first event (the server sends it
     * INTERVAL ms after the request): shows whether the client kept up. */
    int64_t *ttfe = calloc((size_t)n, sizeof *ttfe);
    for (int i = 0; i < n; i++)
        ttfe[i] = t_first[i] ? t_first[i] - t_start[i] : -1;
    qsort(ttfe, (size_t)n, sizeof *ttfe, cmp64);
    if (started == n)
        printf("first event after: median %lld ms, p99 %lld ms, max %lld ms; last stream started at %.2f s\n",
               (long long)ttfe[n / 2], (long long)ttfe[(n * 99) / 100], (long long)ttfe[n - 1],
               (double)(t_start[n - 1] - t0) / 1000);
    free(ttfe);
    free(t_start);
    free(t_first);
    for (int i = 0; i < n; i++)
        seam_stream_free(s[i]);
    free(s);
    free(texts);
    free(status);
    free(live);
    seam_request_free(req);
    tu_client_free(c);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return got == expected && ok == n ? 0 : 1;
}
