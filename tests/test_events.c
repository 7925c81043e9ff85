/* test_events.c — the event-driven interface: several streams driven from one
 * thread with poll(2) through seam_stream_next_nowait / seam_stream_pollfds,
 * against the fake server (network transfers, testwire codec) and the mock
 * (served transfers); a backoff wait becomes a poll timeout instead of a
 * sleep; a cancel wakes the loop through the token's fd. */
#include "config.h"

#include <CUnit/Basic.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

#define N_STREAMS 3
#define MAX_FDS 16

static fake_server *srv;

static int start(void)
{
    srv = tu_server_start();
    return srv ? 0 : -1;
}

static seam_client *client_for(const char *extra)
{
    seam_client *c = tu_clientf(
        "plugin_path = [ \"%s\", \"%s\" ];\n"
        "providers = {\n"
        "  w = { plugin = \"testwire\"; base_url = \"%s\"; };\n"
        "  m = { plugin = \"mock\"; options = { reply = \"one two three four\"; chunks = 4; delay_ms = 40; }; };\n"
        "};\n%s",
        tu_plugin_dir(), tu_test_plugin_dir(), fake_server_url(srv), extra ? extra : "");
    CU_ASSERT_FATAL(c != NULL);
    return c;
}

static seam_stream *open_stream(seam_client *c, const char *provider, const char *chain,
                                seam_cancel *cancel)
{
    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "hi");
    seam_call_options o = { .size = sizeof o, .provider = provider, .chain = chain,
                            .model = "m-1", .cancel = cancel };
    seam_stream *s = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_stream_open(c, req, &o, &s, &err), SEAM_OK);
    seam_request_free(req);
    return s;
}

typedef struct loop_stats {
    int order[256];      /* stream index of each chunk, in arrival order */
    int n_order;
    int pending;         /* SEAM_STREAM_PENDING answers */
    int polls;
    int status[N_STREAMS];
    seam_error err[N_STREAMS];
    int max_timeout;     /* the longest poll timeout asked for */
    int timeouts[1024];  /* every poll timeout asked for */
    int n_timeouts;
} loop_stats;

/* Drives n streams to their end on this thread. */
static void drive(seam_stream **s, int n, loop_stats *st)
{
    int open = n;
    int live[N_STREAMS];
    for (int i = 0; i < n; i++)
        live[i] = 1;
    while (open > 0 && st->polls < 10000) {
        int again = 0;
        for (int i = 0; i < n; i++) {
            if (!live[i])
                continue;
            const seam_chunk *ch;
            int rc;
            while ((rc = seam_stream_next_nowait(s[i], &ch, &st->err[i])) == 1)
                if (ch->type == SEAM_CHUNK_TEXT_DELTA && st->n_order < 256)
                    st->order[st->n_order++] = i;
            if (rc == SEAM_STREAM_PENDING) {
                st->pending++;
                continue;
            }
            st->status[i] = rc;
            live[i] = 0;
            open--;
            again = 1;
        }
        if (!open || again)
            continue;
        struct pollfd fds[MAX_FDS];
        size_t nfds = 0;
        int timeout = -1;
        for (int i = 0; i < n; i++) {
            if (!live[i])
                continue;
            size_t k = 0;
            int t = -1;
            CU_ASSERT_EQUAL(seam_stream_pollfds(s[i], fds + nfds, MAX_FDS - nfds, &k, &t), SEAM_OK);
            nfds += k;
            if (t >= 0 && (timeout < 0 || t < timeout))
                timeout = t;
        }
        if (timeout > st->max_timeout)
            st->max_timeout = timeout;
        if (st->n_timeouts < 1024)
            st->timeouts[st->n_timeouts++] = timeout;
        /* Never block forever in a test: a stream that reported nothing to
         * wait for would show up as a hang here. */
        CU_ASSERT(nfds > 0 || timeout >= 0);
        poll(fds, nfds, timeout < 0 || timeout > 5000 ? 5000 : timeout);
        st->polls++;
    }
}

static const char *body = "data: a\n\ndata: b\n\ndata: c\n\nevent: stop\ndata: 3\n\n";

static void test_network_streams_interleave(void)
{
    seam_client *c = client_for(NULL);
    for (int i = 0; i < N_STREAMS; i++) {
        /* Each event arrives 50 ms after the previous one. */
        fake_response fr = { .body = body, .split = 10, .delay_ms = 50, .chunked = 1 };
        fake_server_push(srv, &fr);
    }
    seam_stream *s[N_STREAMS];
    for (int i = 0; i < N_STREAMS; i++)
        s[i] = open_stream(c, "w", NULL, NULL);
    loop_stats st;
    memset(&st, 0, sizeof st);
    drive(s, N_STREAMS, &st);
    for (int i = 0; i < N_STREAMS; i++) {
        CU_ASSERT_EQUAL(st.status[i], SEAM_OK);
        CU_ASSERT_STRING_EQUAL(seam_result_text(seam_stream_result(s[i])), "abc");
    }
    CU_ASSERT(st.pending > 0);
    CU_ASSERT(st.polls > 0);
    /* Interleaved on one thread: another stream delivered text before stream 0
     * had all of its text. */
    int last0 = -1, first_other = -1;
    for (int k = 0; k < st.n_order; k++) {
        if (st.order[k] == 0)
            last0 = k;
        else if (first_other < 0)
            first_other = k;
    }
    CU_ASSERT(first_other >= 0 && first_other < last0);
    for (int i = 0; i < N_STREAMS; i++)
        seam_stream_free(s[i]);
    tu_client_free(c);
}

static void test_served_streams_interleave(void)
{
    seam_client *c = client_for(NULL);
    seam_stream *s[2] = { open_stream(c, "m", NULL, NULL), open_stream(c, "m", NULL, NULL) };
    loop_stats st;
    memset(&st, 0, sizeof st);
    drive(s, 2, &st);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(st.status[i], SEAM_OK);
        CU_ASSERT_STRING_EQUAL(seam_result_text(seam_stream_result(s[i])), "one two three four");
    }
    /* The mock's delays are waited for in poll, not slept inside the call. */
    CU_ASSERT(st.max_timeout > 0);
    int saw[2] = { 0, 0 }, interleaved = 0;
    for (int k = 0; k < st.n_order; k++) {
        saw[st.order[k]]++;
        if (saw[0] && saw[1] && (saw[0] < 4 || saw[1] < 4))
            interleaved = 1;
    }
    CU_ASSERT(interleaved);
    seam_stream_free(s[0]);
    seam_stream_free(s[1]);
    tu_client_free(c);
}

static void test_backoff_is_a_timeout(void)
{
    seam_client *c = client_for(
        "chains = { r = ( { provider = \"w\"; model = \"m\"; max_attempts = 2;\n"
        "                   backoff = { base_ms = 300; max_ms = 300; jitter = 0.0; }; } ); };\n");
    fake_server_push_json(srv, 503, "{}", NULL);
    fake_response ok = { .body = body, .chunked = 1 };
    fake_server_push(srv, &ok);
    seam_stream *s = open_stream(c, NULL, "r", NULL);
    loop_stats st;
    memset(&st, 0, sizeof st);
    drive(&s, 1, &st);
    CU_ASSERT_EQUAL(st.status[0], SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_result_text(seam_stream_result(s)), "abc");
    /* The 300 ms backoff was handed to the loop as a poll timeout. */
    int backoff_seen = 0;
    for (int k = 0; k < st.n_timeouts; k++)
        backoff_seen |= st.timeouts[k] >= 250 && st.timeouts[k] <= 300;
    CU_ASSERT(backoff_seen);
    seam_stream_free(s);
    tu_client_free(c);
}

static void test_cancel_wakes_the_loop(void)
{
    seam_client *c = client_for(NULL);
    fake_response hang = { .body = "data: a\n\n", .chunked = 1, .hang_ms = 5000 };
    fake_server_push(srv, &hang);
    seam_cancel *cancel = seam_cancel_new();
    seam_stream *s = open_stream(c, "w", NULL, cancel);
    const seam_chunk *ch;
    seam_error err;
    int rc;
    int got_text = 0;
    /* Run until the first text has arrived and the stream waits for more. */
    for (int i = 0; i < 1000 && !got_text; i++) {
        while ((rc = seam_stream_next_nowait(s, &ch, &err)) == 1)
            got_text |= ch->type == SEAM_CHUNK_TEXT_DELTA;
        CU_ASSERT_EQUAL_FATAL(rc, SEAM_STREAM_PENDING);
        struct pollfd fds[MAX_FDS];
        size_t n = 0;
        int timeout = -1;
        seam_stream_pollfds(s, fds, MAX_FDS, &n, &timeout);
        poll(fds, n, 100);
    }
    CU_ASSERT_TRUE_FATAL(got_text);
    seam_cancel_trigger(cancel);
    struct pollfd fds[MAX_FDS];
    size_t n = 0;
    int timeout = -1;
    seam_stream_pollfds(s, fds, MAX_FDS, &n, &timeout);
    /* The token's fd is among those to watch, and it is readable now. */
    CU_ASSERT(poll(fds, n, 1000) > 0);
    rc = seam_stream_next_nowait(s, &ch, &err);
    CU_ASSERT_EQUAL(rc, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CANCELLED);
    CU_ASSERT_TRUE(seam_result_incomplete(seam_stream_result(s)));
    seam_stream_free(s);
    seam_cancel_free(cancel);
    tu_client_free(c);
}

static void test_bad_arguments(void)
{
    size_t n;
    int t;
    struct pollfd fds[2];
    CU_ASSERT_EQUAL(seam_stream_pollfds(NULL, fds, 2, &n, &t), SEAM_ERR_INVALID);
    const seam_chunk *ch;
    CU_ASSERT_EQUAL(seam_stream_next_nowait(NULL, &ch, NULL), SEAM_ERR_INVALID);
}

static const tu_test tests[] = {
    { "network streams interleave on one thread", test_network_streams_interleave },
    { "served streams interleave on one thread", test_served_streams_interleave },
    { "a backoff wait is a poll timeout", test_backoff_is_a_timeout },
    { "a cancel wakes the loop", test_cancel_wakes_the_loop },
    { "bad arguments", test_bad_arguments },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("events", tests, start);
}
