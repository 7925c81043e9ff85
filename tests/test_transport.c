/* test_transport.c — the core's transport and call policy against a real HTTP
 * server on 127.0.0.1 (tests/fakeserver.c), through the test codec "testwire"
 * loaded from its .so by the real loader: streaming split at every byte, HTTP
 * errors and their classification, Retry-After, cut streams, idle and total
 * timeouts, cancel, connection refused, retries and failover, redaction. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

#define SECRET "sk-wire-secret-0123456789"

static fake_server *srv;

static int start(void)
{
    srv = tu_server_start();
    return srv ? 0 : -1;
}

/* A client whose providers all use the testwire codec against the fake server.
 * extra: more conf text (chains). */
static seam_client *wire_client(const char *provider_keys, const char *extra)
{
    seam_client *c = tu_clientf(
        "plugin_path = [ \"%s\" ];\n"
        "providers = {\n"
        "  w = { plugin = \"testwire\"; base_url = \"%s\"; api_key = \"" SECRET "\"; %s };\n"
        "  w2 = { plugin = \"testwire\"; base_url = \"%s/second\"; };\n"
        "  dead = { plugin = \"testwire\"; base_url = \"http://127.0.0.1:1\"; connect_timeout_ms = 2000; };\n"
        "  nokey = { plugin = \"testwire\"; base_url = \"%s\"; api_key_env = \"SEAM_TEST_UNSET_VARIABLE\"; };\n"
        "  absent = { plugin = \"no-such-plugin\"; };\n"
        "};\n%s\n",
        tu_test_plugin_dir(), fake_server_url(srv), provider_keys ? provider_keys : "",
        fake_server_url(srv), fake_server_url(srv), extra ? extra : "");
    CU_ASSERT_FATAL(c != NULL);
    return c;
}

typedef struct run {
    int status;
    seam_error err;
    char text[4096];
    int n_chunks;
    int incomplete;
    seam_usage usage;
} run;

static run stream_run(seam_client *c, const seam_call_options *o)
{
    run r;
    memset(&r, 0, sizeof r);
    seam_request *req = tu_user_request("hello");
    seam_stream *s = NULL;
    r.status = seam_stream_open(c, req, o, &s, &r.err);
    if (r.status == SEAM_OK) {
        const seam_chunk *ch;
        while ((r.status = seam_stream_next(s, &ch, &r.err)) == 1) {
            r.n_chunks++;
            if (ch->type == SEAM_CHUNK_TEXT_DELTA)
                strncat(r.text, ch->text, sizeof r.text - strlen(r.text) - 1);
        }
        r.incomplete = seam_result_incomplete(seam_stream_result(s));
        r.usage = *seam_result_usage(seam_stream_result(s));
    }
    seam_stream_free(s);
    seam_request_free(req);
    return r;
}

/* seam_generate of a request "hello" with o: its status, *res and err as it filled them. */
static int generate_hello(seam_client *c, const seam_call_options *o, seam_result **res,
                          seam_error *err)
{
    seam_request *req = tu_user_request("hello");
    int rc = seam_generate(c, req, o, res, err);
    seam_request_free(req);
    return rc;
}

static seam_call_options provider_opts(const char *provider)
{
    seam_call_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.provider = provider;
    o.model = "m-1";
    return o;
}

static const char *stream_body =
    "data: Hel\n\n"
    ": a comment\n"
    "data: lo, \r\n\r\n"
    "data: w\xc3\xb6rld\r\r"
    "event: stop\ndata: 7\n\n";

static void test_stream_split_everywhere(void)
{
    seam_client *c = wire_client(NULL, NULL);
    size_t splits[] = { 0, 1, 2, 3, 5, 7 };
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
        fake_response fr = { .body = stream_body, .split = splits[i], .chunked = 1 };
        fake_server_push(srv, &fr);
        seam_call_options o = provider_opts("w");
        run r = stream_run(c, &o);
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        CU_ASSERT_STRING_EQUAL(r.text, "Hello, w\xc3\xb6rld");
        CU_ASSERT(r.usage.present & SEAM_USAGE_OUTPUT);
        CU_ASSERT_EQUAL(r.usage.output_tokens, 7);
    }
    /* The wire: credential in the header, the model from the options. */
    size_t n = fake_server_request_count(srv);
    CU_ASSERT_STRING_EQUAL(fake_server_request_header(srv, n - 1, "Authorization"), "Bearer " SECRET);
    CU_ASSERT_STRING_EQUAL(fake_server_request_header(srv, n - 1, "X-Model"), "m-1");
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, n - 1), "/stream");
    CU_ASSERT_STRING_EQUAL(fake_server_request_body(srv, n - 1), "hello");
    tu_client_free(c);
}

/* Hundreds of events arriving in one read fill the chunk queue far past one
 * slab of recycled chunks, with texts longer than a chunk's inline room; and
 * the same stream dribbled 1-7 bytes at a time. Every chunk must come out
 * whole and in order. */
static void test_many_chunks_at_once(void)
{
    enum { N = 500 };
    seam_client *c = wire_client(NULL, NULL);
    size_t cap = (size_t)N * 320 + 64, len = 0;
    char *body = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(body);
    for (int i = 0; i < N; i++) {
        /* lengths cycle through 1..300 bytes */
        len += (size_t)snprintf(body + len, cap - len, "data: %05d%.*s\n\n", i, (i * 37) % 296,
                                "................................................................"
                                "................................................................"
                                "................................................................"
                                "................................................................"
                                "........................................");
    }
    len += (size_t)snprintf(body + len, cap - len, "event: stop\ndata: 1\n\n");
    for (int dribble = 0; dribble < 2; dribble++) {
        fake_response fr = { .body = body, .chunked = 1 };
        if (dribble) {
            fr.split = 1;
            fr.split_max = 7;
        }
        fake_server_push(srv, &fr);
        seam_request *req = tu_user_request("hello");
        seam_call_options o = provider_opts("w");
        seam_stream *s = NULL;
        seam_error err;
        CU_ASSERT_EQUAL_FATAL(seam_stream_open(c, req, &o, &s, &err), SEAM_OK);
        const seam_chunk *ch;
        int rc, n = 0, bad = 0;
        while ((rc = seam_stream_next(s, &ch, &err)) == 1) {
            if (ch->type != SEAM_CHUNK_TEXT_DELTA)
                continue;
            char want[16];
            snprintf(want, sizeof want, "%05d", n);
            size_t dots = (size_t)((n * 37) % 296);
            if (strncmp(ch->text, want, 5) != 0 || strlen(ch->text) != 5 + dots ||
                strspn(ch->text + 5, ".") != dots)
                bad++;
            n++;
        }
        CU_ASSERT_EQUAL(rc, SEAM_OK);
        CU_ASSERT_EQUAL(n, N);
        CU_ASSERT_EQUAL(bad, 0);
        seam_stream_free(s);
        seam_request_free(req);
    }
    free(body);
    tu_client_free(c);
}

static void test_generate_whole(void)
{
    seam_client *c = wire_client(NULL, NULL);
    fake_response fr = { .body = "a whole answer", .content_type = "text/plain" };
    fake_server_push(srv, &fr);
    seam_call_options o = provider_opts("w");
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(generate_hello(c, &o, &res, &err), SEAM_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res);
    CU_ASSERT_STRING_EQUAL(seam_result_text(res), "a whole answer");
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_STOP);
    CU_ASSERT_STRING_EQUAL(seam_result_provider(res), "w");
    CU_ASSERT_STRING_EQUAL(seam_result_model(res), "m-1");
    size_t n = fake_server_request_count(srv);
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, n - 1), "/whole");
    seam_result_free(res);
    tu_client_free(c);
}

static void test_http_errors(void)
{
    seam_client *c = wire_client(NULL, NULL);
    seam_call_options o = provider_opts("w");

    fake_server_push_json(srv, 429, "{\"error\":\"slow down\"}",
                          "Retry-After: 2\r\nx-ratelimit-remaining-requests: 0\r\n");
    run r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_TRUE(r.err.retryable);
    CU_ASSERT_EQUAL(r.err.http_status, 429);
    CU_ASSERT_EQUAL(r.err.retry_after_ms, 2000);
    CU_ASSERT_STRING_EQUAL(r.err.provider, "w");
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.ratelimit, "x-ratelimit-remaining-requests: 0"));

    fake_server_push_json(srv, 429, "{}", "retry-after-ms: 1500\r\nRetry-After: 9\r\n");
    r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.err.retry_after_ms, 1500);

    fake_server_push_json(srv, 503, "{}", NULL);
    r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_TRUE(r.err.retryable);

    /* A server echoing the key back: the core redacts it from the message. */
    fake_server_push_json(srv, 401, "{\"kind\":\"auth\",\"detail\":\"bad key " SECRET "\"}", NULL);
    r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_AUTH);
    CU_ASSERT_FALSE(r.err.retryable);
    CU_ASSERT_PTR_NULL(strstr(r.err.message, SECRET));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "<redacted>"));

    fake_server_push_json(srv, 400, "{\"kind\":\"context_overflow\"}", NULL);
    r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_CONTEXT_OVERFLOW);

    fake_server_push_json(srv, 404, "{}", NULL);
    r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_MODEL_NOT_FOUND);
    tu_client_free(c);
}

/* Numbers a server sends are bounded before the core adds or prices them, and
 * absurd durations are ignored rather than cast out of range. */
static void test_hostile_numbers(void)
{
    seam_client *c = wire_client(NULL, NULL);
    seam_call_options o = provider_opts("w");
    fake_response big = { .body = "data: x\n\nevent: stop\ndata: 9223372036854775807\n\n", .chunked = 1 };
    fake_server_push(srv, &big);
    run r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_EQUAL(r.usage.output_tokens, 1000000000000LL);
    fake_response neg = { .body = "data: x\n\nevent: stop\ndata: -42\n\n", .chunked = 1 };
    fake_server_push(srv, &neg);
    r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.usage.output_tokens, 0);

    const char *bad[] = { "retry-after-ms: 1e300\r\n", "retry-after-ms: nan\r\n",
                          "retry-after-ms: -5\r\n", "Retry-After: 1e300\r\n",
                          "Retry-After: inf\r\n" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fake_server_push_json(srv, 503, "{}", bad[i]);
        r = stream_run(c, &o);
        CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_OVERLOADED);
        CU_ASSERT_EQUAL(r.err.retry_after_ms, -1);
    }
    tu_client_free(c);
}

static void test_retry_after_date(void)
{
    seam_client *c = wire_client(NULL, NULL);
    seam_call_options o = provider_opts("w");
    char hdr[128];
    time_t when = time(NULL) + 30;
    struct tm tm;
    gmtime_r(&when, &tm);
    strftime(hdr, sizeof hdr, "Retry-After: %a, %d %b %Y %H:%M:%S GMT\r\n", &tm);
    fake_server_push_json(srv, 503, "{}", hdr);
    run r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT(r.err.retry_after_ms >= 28000 && r.err.retry_after_ms <= 31000);
    fake_server_push_json(srv, 503, "{}", "Retry-After: soon\r\n");
    r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.err.retry_after_ms, -1);
    /* A date 200 000 years away (found by fuzz/fuzz_headers.c) is out of
     * bounds like a delta that large, not a wait of 6e15 ms. */
    fake_server_push_json(srv, 503, "{}", "Retry-After: Wed, 21 Oct 201507 07:28:00 GMT\r\n");
    r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.err.retry_after_ms, -1);
    tu_client_free(c);
}

static void test_cut_and_truncated_streams(void)
{
    seam_client *c = wire_client(NULL, NULL);
    seam_call_options o = provider_opts("w");
    /* Cut mid-body: content already yielded, so the error surfaces and the result is incomplete. */
    fake_response cut = { .body = stream_body, .chunked = 1, .cut_after = 40 };
    fake_server_push(srv, &cut);
    run r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_TRANSPORT);
    CU_ASSERT_TRUE(r.incomplete);
    CU_ASSERT_STRING_EQUAL(r.text, "Hello, ");

    /* A clean end without a stop event is still an incomplete answer. */
    fake_response nostop = { .body = "data: partial\n\n", .chunked = 1 };
    fake_server_push(srv, &nostop);
    r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_TRANSPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "ended before"));

    /* An error event inside a 200 stream. */
    fake_response se = { .body = "data: x\n\nevent: error\ndata: boom\n\n", .chunked = 1 };
    fake_server_push(srv, &se);
    r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "boom"));
    tu_client_free(c);
}

/* A stream through provider w of a client with conf_members, answered by
 * first_event and then 5 s of silence: it must end in a timeout well before.
 * The run, for what it got before. */
static run stream_into_hang(const char *conf_members, const char *first_event)
{
    seam_client *c = wire_client(conf_members, NULL);
    seam_call_options o = provider_opts("w");
    fake_response fr = { .body = first_event, .chunked = 1, .hang_ms = 5000 };
    fake_server_push(srv, &fr);
    int64_t t0 = tu_now_ms();
    run r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_TIMEOUT);
    CU_ASSERT(tu_now_ms() - t0 < 3000);
    tu_client_free(c);
    return r;
}

static void test_idle_timeout(void)
{
    run r = stream_into_hang("idle_timeout_ms = 300;", "data: first\n\n");
    CU_ASSERT_STRING_EQUAL(r.text, "first");
}

static void test_total_timeout(void)
{
    stream_into_hang("timeout_ms = 400;", "data: a\n\n");
}

/* 1 once the server has more requests than *(size_t *)before. */
static int server_has_request(void *before)
{
    return fake_server_request_count(srv) > *(const size_t *)before;
}

static void test_cancel_closes_socket(void)
{
    seam_client *c = wire_client(NULL, NULL);
    seam_call_options o = provider_opts("w");
    seam_cancel *cancel = seam_cancel_new();
    o.cancel = cancel;
    size_t aborts_before = fake_server_client_aborts(srv);
    fake_response fr = { .body = "data: a\n\n", .chunked = 1, .hang_ms = 5000 };
    fake_server_push(srv, &fr);
    /* Cancelled 200 ms after the server has the request. Not before: on a slow
     * machine (valgrind, a loaded host) a cancel that beats the request leaves
     * its scripted response queued, and the next tests read it. */
    size_t requests = fake_server_request_count(srv);
    tu_canceller k = {.cancel = cancel, .ready = server_has_request, .ud = &requests,
                      .max_polls = 500, .delay_ms = 200};
    tu_canceller_start(&k);
    int64_t t0 = tu_now_ms();
    run r = stream_run(c, &o);
    int64_t took = tu_now_ms() - t0;
    tu_canceller_join(&k);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_CANCELLED);
    CU_ASSERT_FALSE(r.err.retryable);
    CU_ASSERT(took < 1500);
    /* The server sees the connection closed while it was still hanging. */
    for (int i = 0; i < 100 && fake_server_client_aborts(srv) == aborts_before; i++)
        usleep(20 * 1000);
    CU_ASSERT(fake_server_client_aborts(srv) > aborts_before);
    seam_cancel_free(cancel);
    tu_client_free(c);
}

static void test_connection_refused(void)
{
    seam_client *c = wire_client(NULL, NULL);
    seam_call_options o = provider_opts("dead");
    run r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_TRANSPORT);
    CU_ASSERT_TRUE(r.err.retryable);
    CU_ASSERT_STRING_EQUAL(r.err.provider, "dead");
    tu_client_free(c);
}

static void test_response_cap(void)
{
    seam_client *c = wire_client("max_response_bytes = 64;", NULL);
    seam_call_options o = provider_opts("w");
    char big[1024];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    fake_response fr = { .body = big, .content_type = "text/plain" };
    fake_server_push(srv, &fr);
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(generate_hello(c, &o, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NULL(res);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "limit"));
    seam_result_free(res); /* none, unless the cap failed */
    tu_client_free(c);
}

typedef struct attempts {
    int n;
    seam_attempt_outcome outcome[16];
    char provider[16][32];
} attempts;

static void on_attempt(void *ud, const seam_attempt *a)
{
    attempts *at = ud;
    if (at->n < 16) {
        at->outcome[at->n] = a->outcome;
        snprintf(at->provider[at->n], sizeof at->provider[0], "%s", a->provider);
        at->n++;
    }
}

static const char *chains =
    "chains = {\n"
    "  retry = ( { provider = \"w\"; model = \"m\"; max_attempts = 2; backoff = { base_ms = 10; max_ms = 50; }; } );\n"
    "  over = ( { provider = \"absent\"; model = \"m\"; }, { provider = \"nokey\"; model = \"m\"; },\n"
    "           { provider = \"dead\"; model = \"m\"; }, { provider = \"w2\"; model = \"m2\"; } );\n"
    "  fatal = ( { provider = \"w\"; model = \"m\"; max_attempts = 3; }, { provider = \"w2\"; model = \"m\"; } );\n"
    "  skipall = ( { provider = \"absent\"; model = \"m\"; }, { provider = \"nokey\"; model = \"m\"; } );\n"
    "};\n";

static void test_retry_then_success(void)
{
    seam_client *c = wire_client(NULL, chains);
    fake_server_push_json(srv, 500, "{}", NULL);
    fake_response ok = { .body = stream_body, .chunked = 1 };
    fake_server_push(srv, &ok);
    attempts at = { 0 };
    seam_call_options o = { .size = sizeof o, .chain = "retry", .on_attempt = on_attempt, .ud = &at };
    run r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.text, "Hello, w\xc3\xb6rld");
    CU_ASSERT_EQUAL(at.n, 2);
    CU_ASSERT_EQUAL(at.outcome[0], SEAM_ATTEMPT_FAILED);
    CU_ASSERT_EQUAL(at.outcome[1], SEAM_ATTEMPT_SUCCEEDED);
    tu_client_free(c);
}

static void test_failover_skips(void)
{
    seam_client *c = wire_client(NULL, chains);
    fake_response ok = { .body = stream_body, .chunked = 1 };
    fake_server_push(srv, &ok);
    attempts at = { 0 };
    seam_call_options o = { .size = sizeof o, .chain = "over", .on_attempt = on_attempt, .ud = &at };
    size_t before = fake_server_request_count(srv);
    run r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_EQUAL(at.n, 4);
    CU_ASSERT_EQUAL(at.outcome[0], SEAM_ATTEMPT_SKIPPED); /* plugin not installed */
    CU_ASSERT_EQUAL(at.outcome[1], SEAM_ATTEMPT_SKIPPED); /* no credential */
    CU_ASSERT_EQUAL(at.outcome[2], SEAM_ATTEMPT_FAILED);  /* connection refused */
    CU_ASSERT_EQUAL(at.outcome[3], SEAM_ATTEMPT_SUCCEEDED);
    CU_ASSERT_STRING_EQUAL(at.provider[3], "w2");
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, before), "/second/stream");
    /* w2 has no credential configured at all: no Authorization header is sent. */
    CU_ASSERT_PTR_NULL(fake_server_request_header(srv, before, "Authorization"));
    tu_client_free(c);
}

static void test_fatal_stops_chain(void)
{
    seam_client *c = wire_client(NULL, chains);
    fake_server_push_json(srv, 401, "{\"kind\":\"auth\"}", NULL);
    attempts at = { 0 };
    seam_call_options o = { .size = sizeof o, .chain = "fatal", .on_attempt = on_attempt, .ud = &at };
    size_t before = fake_server_request_count(srv);
    run r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_AUTH);
    CU_ASSERT_EQUAL(at.n, 1);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    tu_client_free(c);
}

static void test_all_skipped(void)
{
    seam_client *c = wire_client(NULL, chains);
    seam_call_options o = { .size = sizeof o, .chain = "skipall" };
    run r = stream_run(c, &o);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "no-such-plugin"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "SEAM_TEST_UNSET_VARIABLE"));
    seam_call_options bad = { .size = sizeof bad, .chain = "nope" };
    seam_request *req = tu_user_request("hello");
    seam_stream *s = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_stream_open(c, req, &bad, &s, &err), SEAM_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NULL(s);
    seam_request *empty = seam_request_new();
    CU_ASSERT_EQUAL(seam_stream_open(c, empty, &o, &s, &err), SEAM_ERR_INVALID);
    seam_request_free(empty);
    seam_request_free(req);
    tu_client_free(c);
}

/* One stream on w2: 1 when it gave the whole text. */
static int streamed_whole_text(seam_client *c)
{
    seam_call_options o = provider_opts("w2");
    run r = stream_run(c, &o);
    return r.status == SEAM_OK && strcmp(r.text, "Hello, w\xc3\xb6rld") == 0;
}

static void test_threads_share_client(void)
{
    seam_client *c = wire_client(NULL, NULL);
    for (int i = 0; i < 20; i++) {
        fake_response ok = { .body = stream_body, .chunked = 1 };
        fake_server_push(srv, &ok);
    }
    CU_ASSERT_EQUAL(tu_on_threads_times(4, 5, streamed_whole_text, c), 20);
    tu_client_free(c);
}

static const tu_test tests[] = {
    { "stream split at many sizes", test_stream_split_everywhere },
    { "many chunks at once, and dribbled", test_many_chunks_at_once },
    { "generate (whole body)", test_generate_whole },
    { "HTTP errors classified", test_http_errors },
    { "Retry-After parsing", test_retry_after_date },
    { "hostile numbers are bounded", test_hostile_numbers },
    { "cut and truncated streams", test_cut_and_truncated_streams },
    { "idle timeout", test_idle_timeout },
    { "total timeout", test_total_timeout },
    { "cancel closes the socket", test_cancel_closes_socket },
    { "connection refused", test_connection_refused },
    { "response size cap", test_response_cap },
    { "retry then success", test_retry_then_success },
    { "failover skips and advances", test_failover_skips },
    { "fatal error stops the chain", test_fatal_stops_chain },
    { "all entries skipped", test_all_skipped },
    { "threads share one client", test_threads_share_client },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("transport", tests, start);
}
