/* test_engine.c — the client's event loop (libcore/engine.c) against the fake
 * server: many streams on one thread through seam_client_fd /
 * seam_client_timeout_ms / seam_client_perform, every chunk delivered, about
 * one fd per stream; sequential requests reuse one kept-alive connection;
 * several threads stream on one client at once; a cancel ends one stream and
 * closes its socket while the others on the same loop go on. */
#include "config.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

static fake_server *srv;

/* Ten text events, then the stop: "0123456789". */
static const char *ten_events =
    "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n"
    "data: 5\n\ndata: 6\n\ndata: 7\n\ndata: 8\n\ndata: 9\n\n"
    "event: stop\ndata: 10\n\n";

static int start(void)
{
    srv = tu_server_start();
    return srv ? 0 : -1;
}

static seam_client *client(void)
{
    seam_client *c = tu_clientf(
        "plugin_path = [ \"%s\" ];\n"
        "providers = { w = { plugin = \"testwire\"; base_url = \"%s\"; idle_timeout_ms = 10000; }; };\n",
        tu_test_plugin_dir(), fake_server_url(srv));
    CU_ASSERT_FATAL(c != NULL);
    return c;
}

static seam_stream *open_stream(seam_client *c, seam_cancel *cancel)
{
    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "hi");
    seam_call_options o = { .size = sizeof o, .provider = "w", .model = "m-1", .cancel = cancel };
    seam_stream *s = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_stream_open(c, req, &o, &s, &err), SEAM_OK);
    seam_request_free(req);
    return s;
}

static size_t open_fds(void)
{
    size_t n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

#define N_STREAMS 200

/* Drives streams on this thread with the client-level API until all end. */
static void drive_all(seam_client *c, seam_stream **s, int n, int *status, int *texts,
                      size_t *max_fds)
{
    int left = n;
    int *live = calloc((size_t)n, sizeof *live);
    for (int i = 0; i < n; i++)
        live[i] = 1;
    for (int rounds = 0; left > 0 && rounds < 100000; rounds++) {
        seam_client_perform(c);
        for (int i = 0; i < n; i++) {
            if (!live[i])
                continue;
            const seam_chunk *ch;
            seam_error err;
            int rc;
            while ((rc = seam_stream_next_nowait(s[i], &ch, &err)) == 1)
                texts[i] += ch->type == SEAM_CHUNK_TEXT_DELTA;
            if (rc == SEAM_STREAM_PENDING)
                continue;
            status[i] = rc;
            live[i] = 0;
            left--;
            if (rc != SEAM_OK)
                fprintf(stderr, "stream %d: status %d: %s\n", i, rc, err.message);
        }
        if (max_fds) {
            size_t now = open_fds();
            if (now > *max_fds)
                *max_fds = now;
        }
        if (!left)
            break;
        int t = seam_client_timeout_ms(c);
        struct pollfd p = { seam_client_fd(c), POLLIN, 0 };
        poll(&p, 1, t < 0 || t > 200 ? 200 : t);
    }
    free(live);
}

static void test_many_streams_one_thread(void)
{
    seam_client *c = client();
    CU_ASSERT(seam_client_fd(c) >= 0);
    for (int i = 0; i < N_STREAMS; i++) {
        fake_response fr = { .body = ten_events, .split = 9, .delay_ms = 30, .chunked = 1 };
        fake_server_push(srv, &fr);
    }
    size_t fds_before = open_fds();
    seam_stream *s[N_STREAMS];
    int status[N_STREAMS], texts[N_STREAMS];
    for (int i = 0; i < N_STREAMS; i++) {
        s[i] = open_stream(c, NULL);
        status[i] = -1000;
        texts[i] = 0;
    }
    size_t max_fds = 0;
    drive_all(c, s, N_STREAMS, status, texts, &max_fds);
    int ok = 0, all_text = 0;
    for (int i = 0; i < N_STREAMS; i++) {
        ok += status[i] == SEAM_OK;
        all_text += texts[i] == 10 &&
                    strcmp(seam_result_text(seam_stream_result(s[i])), "0123456789") == 0;
        seam_stream_free(s[i]);
    }
    CU_ASSERT_EQUAL(ok, N_STREAMS);
    CU_ASSERT_EQUAL(all_text, N_STREAMS);
    /* The server's end of each connection lives in this process too: two per
     * stream, and nothing else per stream (no pipe, no multi handle). */
    CU_ASSERT(max_fds <= fds_before + 2 * N_STREAMS + 8);
    /* They really overlapped (each lasts 300 ms; all start in the first pass). */
    CU_ASSERT(max_fds >= fds_before + N_STREAMS);
    tu_client_free(c);
}

static void test_connection_kept_alive(void)
{
    seam_client *c = client();
    size_t before = fake_server_connection_count(srv);
    for (int i = 0; i < 5; i++) {
        fake_response fr = { .body = ten_events, .chunked = 1 };
        fake_server_push(srv, &fr);
    }
    size_t n_before = fake_server_request_count(srv);
    for (int i = 0; i < 5; i++) {
        seam_stream *s = open_stream(c, NULL);
        const seam_chunk *ch;
        seam_error err;
        int rc;
        while ((rc = seam_stream_next(s, &ch, &err)) == 1)
            ;
        CU_ASSERT_EQUAL(rc, SEAM_OK);
        seam_stream_free(s);
    }
    CU_ASSERT_EQUAL(fake_server_request_count(srv) - n_before, 5);
    CU_ASSERT_EQUAL(fake_server_connection_count(srv) - before, 1);
    tu_client_free(c);
}

/* Five streams, one after the other; how many gave every chunk. */
static int worker_main(seam_client *c)
{
    int ok = 0;
    for (int k = 0; k < 5; k++) {
        seam_stream *s = open_stream(c, NULL);
        const seam_chunk *ch;
        seam_error err;
        int rc, texts = 0;
        while ((rc = seam_stream_next(s, &ch, &err)) == 1)
            texts += ch->type == SEAM_CHUNK_TEXT_DELTA;
        if (rc == SEAM_OK && texts == 10 &&
            strcmp(seam_result_text(seam_stream_result(s)), "0123456789") == 0)
            ok++;
        else
            fprintf(stderr, "worker: rc %d, %d texts: %s\n", rc, texts, err.message);
        seam_stream_free(s);
    }
    return ok;
}

static void test_threads_stream_at_once(void)
{
    seam_client *c = client();
    enum { THREADS = 6 };
    for (int i = 0; i < THREADS * 5; i++) {
        fake_response fr = { .body = ten_events, .split = 9, .delay_ms = 5, .chunked = 1 };
        fake_server_push(srv, &fr);
    }
    int ok = tu_on_threads(THREADS, worker_main, c);
    CU_ASSERT_EQUAL(ok, THREADS * 5);
    tu_client_free(c);
}

static void test_cancel_one_of_many(void)
{
    seam_client *c = client();
    enum { N = 4 };
    seam_cancel *cancel = seam_cancel_new();
    size_t aborts = fake_server_client_aborts(srv);
    for (int i = 0; i < N; i++) {
        fake_response fr = { .body = ten_events, .split = 9, .delay_ms = 60, .chunked = 1 };
        fake_server_push(srv, &fr);
    }
    seam_stream *s[N];
    int status[N], texts[N];
    for (int i = 0; i < N; i++) {
        s[i] = open_stream(c, i == 0 ? cancel : NULL);
        status[i] = -1000;
        texts[i] = 0;
    }
    /* Run a while, then cancel the first stream only. */
    for (int k = 0; k < 20; k++) {
        seam_client_perform(c);
        struct pollfd p = { seam_client_fd(c), POLLIN, 0 };
        poll(&p, 1, 20);
        for (int i = 0; i < N; i++) {
            const seam_chunk *ch;
            seam_error err;
            while (seam_stream_next_nowait(s[i], &ch, &err) == 1)
                texts[i]++;
        }
    }
    seam_cancel_trigger(cancel);
    /* The loop wakes for the cancel: the client's fd is readable. */
    struct pollfd p = { seam_client_fd(c), POLLIN, 0 };
    CU_ASSERT(poll(&p, 1, 1000) > 0);
    drive_all(c, s, N, status, texts, NULL);
    CU_ASSERT_EQUAL(status[0], SEAM_ERR_PROVIDER);
    for (int i = 1; i < N; i++) {
        CU_ASSERT_EQUAL(status[i], SEAM_OK);
        CU_ASSERT_STRING_EQUAL(seam_result_text(seam_stream_result(s[i])), "0123456789");
    }
    for (int i = 0; i < 100 && fake_server_client_aborts(srv) == aborts; i++)
        usleep(20 * 1000);
    CU_ASSERT_EQUAL(fake_server_client_aborts(srv) - aborts, 1);
    for (int i = 0; i < N; i++)
        seam_stream_free(s[i]);
    seam_cancel_free(cancel);
    tu_client_free(c);
}

static void test_bad_arguments(void)
{
    CU_ASSERT_EQUAL(seam_client_fd(NULL), -1);
    CU_ASSERT_EQUAL(seam_client_timeout_ms(NULL), -1);
    CU_ASSERT_EQUAL(seam_client_perform(NULL), SEAM_ERR_INVALID);
}

static const tu_test tests[] = {
    { "200 streams on one thread, every chunk", test_many_streams_one_thread },
    { "sequential requests keep one connection", test_connection_kept_alive },
    { "several threads stream at once", test_threads_stream_at_once },
    { "a cancel ends one stream of many", test_cancel_one_of_many },
    { "bad arguments", test_bad_arguments },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("engine", tests, start);
}
