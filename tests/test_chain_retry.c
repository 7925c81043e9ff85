/* test_chain_retry.c — the chain runner's retries and waits (issue 6), on
 * the injected clock (tests/tu_chain.c): Retry-After, exponential backoff with
 * jitter, a 529 burst, the Retry-After cap, the deadline and a cancel during a
 * wait, and INT64_MAX timeouts that do not overflow. */
#include "config.h"

#include <CUnit/Basic.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>
#include "tu_chain.h"


/* ---- retries ------------------------------------------------------------------------------ */

static void test_retry_after_honoured(void)
{
    seam_client *c = wire_client("chains = { c = ( { provider = \"w\"; model = \"m\"; max_attempts = 2; },\n"
                                 "                 { provider = \"w2\"; model = \"m2\"; } ); };\n");
    size_t before = fake_server_request_count(srv);
    push_error_then_ok(429, "{\"error\":\"slow down\"}", "Retry-After: 1\r\n");
    run r = go_chain(c, "c");
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.text, "fine");
    CU_ASSERT_EQUAL(n_sleeps, 1);
    CU_ASSERT_EQUAL(sleeps[0], 1000);
    CU_ASSERT_EQUAL_FATAL(r.at.n, 2);
    CU_ASSERT_EQUAL(r.at.r[0].outcome, SEAM_ATTEMPT_FAILED);
    CU_ASSERT_EQUAL(r.at.r[0].kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_EQUAL(r.at.r[0].wait, 1000);
    CU_ASSERT_EQUAL(r.at.r[0].attempt, 1);
    CU_ASSERT_STRING_EQUAL(r.at.r[0].chain, "c");
    CU_ASSERT_EQUAL(r.at.r[1].outcome, SEAM_ATTEMPT_SUCCEEDED);
    CU_ASSERT_STRING_EQUAL(r.at.r[1].provider, "w");
    CU_ASSERT_EQUAL(r.at.r[1].attempt, 2);
    CU_ASSERT_EQUAL(r.at.r[1].wait, 0);
    ASKED(before, 2, "/stream");

    /* retry-after-ms is more precise and wins. */
    sleeps_reset();
    push_error_then_ok(503, "{}", "retry-after-ms: 250\r\nRetry-After: 9\r\n");
    r = go_chain(c, "c");
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_EQUAL(n_sleeps, 1);
    CU_ASSERT_EQUAL(sleeps[0], 250);
    tu_client_free(c);
}

static void test_backoff_schedule(void)
{
    seam_client *c = client_of(
        "providers = {\n" WIRE_PROVIDERS "};\n"
        "chains = {\n"
        "  b = ( { provider = \"w\"; model = \"m\"; max_attempts = 4;\n"
        "          backoff = { base_ms = 100; max_ms = 250; jitter = 0; }; } );\n"
        "  j = ( { provider = \"w\"; model = \"m\"; max_attempts = 2;\n"
        "          backoff = { base_ms = 100; max_ms = 10000; jitter = 0.5; }; } );\n"
        "};\n");
    for (int i = 0; i < 3; i++)
        fake_server_push_json(srv, 503, "{}", NULL);
    push_ok();
    run r = go_chain(c, "b");
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    /* min(base·2ⁿ + jitter, max) with jitter 0: 100, 200, then capped at 250. */
    CU_ASSERT_EQUAL_FATAL(n_sleeps, 3);
    CU_ASSERT_EQUAL(sleeps[0], 100);
    CU_ASSERT_EQUAL(sleeps[1], 200);
    CU_ASSERT_EQUAL(sleeps[2], 250);
    CU_ASSERT_EQUAL(r.at.n, 4);
    CU_ASSERT_EQUAL(r.at.r[2].wait, 250);

    /* Jitter stays in [0, base·jitter]. */
    int varied = 0;
    int64_t first = -1;
    for (int i = 0; i < 8; i++) {
        sleeps_reset();
        push_error_then_ok(503, "{}", NULL);
        r = go_chain(c, "j");
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        CU_ASSERT_EQUAL(n_sleeps, 1);
        CU_ASSERT(sleeps[0] >= 100 && sleeps[0] <= 150);
        if (first < 0)
            first = sleeps[0];
        varied |= sleeps[0] != first;
    }
    CU_ASSERT_TRUE(varied);
    tu_client_free(c);
}

static void test_overloaded_burst(void)
{
    /* The mock answers 529 on every attempt: three retries with backoff, then
     * the next entry. */
    seam_client *c = client_of(
        "providers = {\n"
        "  busy = { plugin = \"mock\"; options = { error_status = 529;\n"
        "    error_body = \"{\\\"type\\\":\\\"error\\\",\\\"error\\\":{\\\"type\\\":\\\"overloaded_error\\\"}}\"; }; };\n"
        "  calm = { plugin = \"mock\"; options = { reply = \"calm answer\"; }; };\n"
        "};\n"
        "chains = { burst = ( { provider = \"busy\"; model = \"x\"; max_attempts = 3;\n"
        "                       backoff = { base_ms = 10; max_ms = 40; jitter = 0; }; },\n"
        "                     { provider = \"calm\"; model = \"y\"; } ); };\n");
    run r = go_chain(c, "burst");
    SERVED_BY(r, "calm");
    CU_ASSERT_STRING_EQUAL(r.text, "calm answer");
    CU_ASSERT_EQUAL_FATAL(r.at.n, 4);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(r.at.r[i].outcome, SEAM_ATTEMPT_FAILED);
        CU_ASSERT_EQUAL(r.at.r[i].kind, SEAM_ERROR_OVERLOADED);
        CU_ASSERT_EQUAL(r.at.r[i].attempt, i + 1);
    }
    CU_ASSERT_EQUAL(r.at.r[0].wait, 10);
    CU_ASSERT_EQUAL(r.at.r[1].wait, 20);
    CU_ASSERT_EQUAL(r.at.r[2].wait, 0); /* the entry is spent: no wait before the next */
    CU_ASSERT_EQUAL(r.at.r[3].outcome, SEAM_ATTEMPT_SUCCEEDED);
    CU_ASSERT_STRING_EQUAL(r.at.r[3].provider, "calm");
    CU_ASSERT_EQUAL(n_sleeps, 2);
    tu_client_free(c);
}

static void test_retry_after_cap(void)
{
    seam_client *c = wire_client("chains = { cap = { entries = (\n"
                                 "    { provider = \"w\"; model = \"m\"; max_attempts = 3; },\n"
                                 "    { provider = \"w2\"; model = \"m2\"; } );\n"
                                 "  retry_after_cap_ms = 5000; }; };\n");
    size_t before = fake_server_request_count(srv);
    push_error_then_ok(429, "{}", "Retry-After: 30\r\n");
    run r = go_chain(c, "cap");
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_EQUAL(n_sleeps, 0); /* 30 s > the cap: no sleep, the next entry instead */
    CU_ASSERT_EQUAL_FATAL(r.at.n, 2);
    CU_ASSERT_EQUAL(r.at.r[0].outcome, SEAM_ATTEMPT_FAILED);
    CU_ASSERT_EQUAL(r.at.r[0].wait, 0);
    CU_ASSERT_STRING_EQUAL(r.at.r[1].provider, "w2");
    ASKED(before, 2, "/second/stream");
    tu_client_free(c);
}

static void test_deadline_and_cancel_during_wait(void)
{
    seam_client *c = wire_client("chains = { c = ( { provider = \"w\"; model = \"m\"; max_attempts = 3; } ); };\n");
    /* A wait that would pass the call's deadline is not slept. */
    fake_server_push_json(srv, 503, "{}", "Retry-After: 5\r\n");
    how h = {.chain = "c", .timeout_ms = 2000};
    run r = go(c, NULL, h);
    FAILED_WITH(r, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_EQUAL(n_sleeps, 0);

    /* A cancel during a wait ends the call at once. */
    seam_cancel *cancel = seam_cancel_new();
    fake_server_push_json(srv, 503, "{}", "Retry-After: 1\r\n");
    how hc = {.chain = "c", .cancel = cancel, .cancel_on_wait = 1};
    size_t before = fake_server_request_count(srv);
    r = go(c, NULL, hc);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_CANCELLED);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    seam_cancel_free(cancel);
    tu_client_free(c);
}

static void test_extreme_durations(void)
{
    seam_client *c = wire_client("chains = { x = ( { provider = \"w\"; model = \"m\"; } ); };\n");
    fake_response fr = {.body = ok_body, .chunked = 1, .split = 5, .delay_ms = 20};
    fake_server_push(srv, &fr);
    how h = {.chain = "x", .timeout_ms = INT64_MAX, .idle_timeout_ms = INT64_MAX};
    run r = go(c, NULL, h);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.text, "fine");
    tu_client_free(c);
}

static const tu_test tests[] = {
    { "Retry-After honoured", test_retry_after_honoured },
    { "exponential backoff with jitter", test_backoff_schedule },
    { "a 529 burst fails over", test_overloaded_burst },
    { "Retry-After beyond the cap advances", test_retry_after_cap },
    { "deadline and cancel during a wait", test_deadline_and_cancel_during_wait },
    { "INT64_MAX timeouts do not overflow", test_extreme_durations },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("chain_retry", tests, start);
}
