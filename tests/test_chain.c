/* test_chain.c — the chain runner's policy (issue 6) beyond retries and
 * keys, one test per rule, through the real loader: the mock plugin, the test
 * codecs "testwire" (a made-up SSE wire against the fake provider server, for
 * scripted sequences) and "testecho" (answers with a description of the
 * request it was sent), on an injected clock (tests/tu_chain.c). Covered:
 * cooldowns shared across requests and threads, the rate-limit guard,
 * streaming failover before and after the first content, reasoning stripped
 * across providers, capability and context-window skips, error-class fallback
 * chains and failover_on, cost per attempt and summed across a failover, the
 * shipped catalog, the chain conf keys, a private CA (ca_file) against a real
 * TLS server and the warning for plain HTTP to a remote host. Retries:
 * test_chain_retry.c; auth and keys: test_chain_auth.c. */
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


/* ---- cooldowns and the rate-limit guard ------------------------------------------------------- */

/* One call on chain cd: 1 when it skipped the cooling w for w2. */
static int skipped_to_w2(seam_client *c)
{
    run r = go_chain(c, "cd");
    return r.status == SEAM_OK && strcmp(r.provider, "w2") == 0 && r.at.n == 2 &&
           r.at.r[0].outcome == SEAM_ATTEMPT_SKIPPED;
}

static void test_cooldown_shared(void)
{
    seam_client *c = wire_client("chains = { cd = { entries = ( { provider = \"w\"; model = \"m\"; },\n"
                                 "                              { provider = \"w2\"; model = \"m2\"; } );\n"
                                 "                  cooldown_ms = 10000; }; };\n");
    size_t before = fake_server_request_count(srv);
    push_error_then_ok(429, "{}", NULL);
    run r = go_chain(c, "cd");
    SERVED_BY(r, "w2");

    /* The next request skips w without calling it. */
    before = fake_server_request_count(srv);
    push_ok();
    r = go_chain(c, "cd");
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(r.at.n, 2);
    CU_ASSERT_EQUAL(r.at.r[0].outcome, SEAM_ATTEMPT_SKIPPED);
    CU_ASSERT_STRING_EQUAL(r.at.r[0].provider, "w");
    CU_ASSERT_EQUAL(r.at.r[0].kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.at.r[0].message, "cooling down"));
    ASKED(before, 1, "/second/stream");

    /* Shared by every thread of the client. */
    for (int i = 0; i < 12; i++)
        push_ok();
    before = fake_server_request_count(srv);
    CU_ASSERT_EQUAL(tu_on_threads_times(4, 3, skipped_to_w2, c), 12);
    for (size_t i = before; i < fake_server_request_count(srv); i++)
        CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, i), "/second/stream");

    /* Past the cooldown, w is tried again. */
    clock_advance(10001);
    push_ok();
    r = go_chain(c, "cd");
    CU_ASSERT_STRING_EQUAL(r.provider, "w");

    /* A Retry-After sets the cooldown's length. */
    push_error_then_ok(429, "{}", "Retry-After: 3\r\n");
    r = go_chain(c, "cd"); /* max_attempts 1: w2 answers */
    CU_ASSERT_STRING_EQUAL(r.provider, "w2");
    clock_advance(3001);
    push_ok();
    r = go_chain(c, "cd");
    CU_ASSERT_STRING_EQUAL(r.provider, "w");

    /* A call naming the provider itself is not routed: it calls w even while w cools. */
    push_error_then_ok(429, "{}", NULL);
    go_chain(c, "cd");
    before = fake_server_request_count(srv);
    push_ok();
    how h = {.provider = "w", .model = "m"};
    r = go(c, NULL, h);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, before), "/stream");
    tu_client_free(c);
}

static void test_rate_limit_guard(void)
{
    char reset_at[64];
    time_t when = time(NULL) + 20;
    struct tm tm;
    gmtime_r(&when, &tm);
    strftime(reset_at, sizeof reset_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    seam_client *c = client_of(
        "providers = {\n" WIRE_PROVIDERS
        "  wg = { plugin = \"testwire\"; base_url = \"@URL@\"; api_key = \"k-g\"; };\n"
        "  ww = { plugin = \"testwire\"; base_url = \"@URL@\"; api_key = \"k-w\";\n"
        "         rate_limit_guard = \"wait\"; };\n"
        "  wo = { plugin = \"testwire\"; base_url = \"@URL@\"; api_key = \"k-o\";\n"
        "         rate_limit_guard = \"off\"; };\n"
        "};\n"
        "chains = {\n"
        "  g = ( { provider = \"wg\"; model = \"m\"; }, { provider = \"w2\"; model = \"m2\"; } );\n"
        "  gw = ( { provider = \"ww\"; model = \"m\"; }, { provider = \"w2\"; model = \"m2\"; } );\n"
        "  go = ( { provider = \"wo\"; model = \"m\"; }, { provider = \"w2\"; model = \"m2\"; } );\n"
        "};\n");
    /* OpenAI's headers: the request window is spent for 20 s; Retry-After 1 s. */
    const char *openai_headers = "Retry-After: 1\r\nx-ratelimit-remaining-requests: 0\r\n"
                                 "x-ratelimit-reset-requests: 20s\r\n"
                                 "x-ratelimit-remaining-tokens: 9000\r\n";
    push_error_then_ok(429, "{}", openai_headers);
    run r = go_chain(c, "g");
    CU_ASSERT_STRING_EQUAL(r.provider, "w2");
    clock_advance(1500); /* past the cooldown, still inside the window */
    size_t before = fake_server_request_count(srv);
    push_ok();
    r = go_chain(c, "g");
    CU_ASSERT_STRING_EQUAL(r.provider, "w2");
    CU_ASSERT_EQUAL(r.at.r[0].outcome, SEAM_ATTEMPT_SKIPPED);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.at.r[0].message, "rate-limit window"));
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    clock_advance(19000);
    push_ok();
    r = go_chain(c, "g");
    CU_ASSERT_STRING_EQUAL(r.provider, "wg");

    /* "wait": Anthropic's headers (an RFC 3339 reset); the next request waits
     * for the window instead of rotating away. */
    char headers[512];
    snprintf(headers, sizeof headers,
             "retry-after: 1\r\nanthropic-ratelimit-requests-remaining: 0\r\n"
             "anthropic-ratelimit-requests-reset: %s\r\n",
             reset_at);
    push_error_then_ok(429, "{}", headers);
    r = go_chain(c, "gw");
    CU_ASSERT_STRING_EQUAL(r.provider, "w2");
    clock_advance(1500);
    sleeps_reset();
    before = fake_server_request_count(srv);
    push_ok();
    r = go_chain(c, "gw");
    SERVED_BY(r, "ww");
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, before), "/stream");
    CU_ASSERT_EQUAL_FATAL(n_sleeps, 1);
    CU_ASSERT(sleeps[0] > 15000 && sleeps[0] <= 20000);
    CU_ASSERT_EQUAL_FATAL(r.at.n, 2);
    CU_ASSERT_EQUAL(r.at.r[0].outcome, SEAM_ATTEMPT_SKIPPED);
    CU_ASSERT_EQUAL(r.at.r[0].wait, sleeps[0]);
    CU_ASSERT_EQUAL(r.at.r[1].outcome, SEAM_ATTEMPT_SUCCEEDED);

    /* "off": only the cooldown (Retry-After 1 s) holds the provider back. */
    push_error_then_ok(429, "{}", openai_headers);
    go_chain(c, "go");
    clock_advance(1500);
    push_ok();
    r = go_chain(c, "go");
    CU_ASSERT_STRING_EQUAL(r.provider, "wo");

    /* A successful answer that spends the window: the next call passes the key
     * over without asking the provider. */
    clock_advance(60000);
    fake_response spent = {.body = ok_body, .chunked = 1,
                           .extra_headers = "x-ratelimit-remaining-requests: 0\r\n"
                                            "x-ratelimit-reset-requests: 30s\r\n"};
    fake_server_push(srv, &spent);
    r = go_chain(c, "g");
    SERVED_BY(r, "wg");
    before = fake_server_request_count(srv);
    push_ok();
    r = go_chain(c, "g");
    CU_ASSERT_STRING_EQUAL(r.provider, "w2");
    CU_ASSERT_EQUAL(r.at.r[0].outcome, SEAM_ATTEMPT_SKIPPED);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    tu_client_free(c);
}

/* ---- streaming ---------------------------------------------------------------------------------- */

static void test_stream_failover_rules(void)
{
    seam_client *c = wire_client("chains = { s = ( { provider = \"w\"; model = \"m\"; },\n"
                                 "                 { provider = \"w2\"; model = \"m2\"; } ); };\n");
    /* Cut after the first text chunk: surfaced, incomplete, no failover. */
    size_t before = fake_server_request_count(srv);
    const char *body = "data: Hel\n\ndata: lo\n\nevent: stop\ndata: 2\n\n";
    fake_response cut = {.body = body, .chunked = 1, .cut_after = 12};
    fake_server_push(srv, &cut);
    run r = go_chain(c, "s");
    FAILED_WITH(r, SEAM_ERROR_TRANSPORT);
    CU_ASSERT_TRUE(r.incomplete);
    CU_ASSERT_STRING_EQUAL(r.text, "Hel");
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    CU_ASSERT_EQUAL(r.at.n, 1);

    /* Cut before any content: a transparent failover. */
    before = fake_server_request_count(srv);
    fake_response early = {.body = ": keep-alive\n\n: again\n\n", .chunked = 1, .cut_after = 16};
    fake_server_push(srv, &early);
    push_ok();
    r = go_chain(c, "s");
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.text, "fine");
    CU_ASSERT_FALSE(r.incomplete);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 2);
    CU_ASSERT_EQUAL_FATAL(r.at.n, 2);
    CU_ASSERT_EQUAL(r.at.r[0].kind, SEAM_ERROR_TRANSPORT);

    /* A stop seen before the connection broke is framing: held back and
     * dropped with the failed attempt, so the caller sees one stop only. */
    const char *stop_then_cut = "event: stop\ndata: 7\n\ndata: tail\n\n";
    fake_response sc = {.body = stop_then_cut, .chunked = 1, .cut_after = 23};
    fake_server_push(srv, &sc);
    push_ok();
    r = go_chain(c, "s");
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_EQUAL(r.n_stops, 1);
    CU_ASSERT_STRING_EQUAL(r.text, "fine");
    tu_client_free(c);
}

static seam_request *with_reasoning_history(void)
{
    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "first question");
    seam_message *a = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_reasoning(a, "thinking it over", "SIG-123", 0);
    seam_message_add_text(a, "first answer");
    seam_request_add_message(req, a);
    seam_request_add_user_text(req, "second question");
    return req;
}

static void test_reasoning_stripped_across_providers(void)
{
    seam_client *c = wire_client("chains = { same = ( { provider = \"e1\"; model = \"m\"; } );\n"
                                 "           cross = ( { provider = \"w\"; model = \"m\"; },\n"
                                 "                     { provider = \"e1\"; model = \"m\"; } ); };\n");
    seam_request *req = with_reasoning_history();
    how same = {.chain = "same"};
    run r = go(c, req, same);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "assistant:reasoning(SIG-123),text"));

    fake_server_push_json(srv, 503, "{}", NULL);
    how cross = {.chain = "cross"};
    r = go(c, req, cross);
    SERVED_BY(r, "e1");
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "user:text|assistant:text|user:text"));
    CU_ASSERT_PTR_NULL(strstr(r.text, "reasoning"));
    /* The caller's request is untouched. */
    CU_ASSERT_EQUAL(seam_message_part_count(seam_request_message(req, 1)), 2);
    seam_request_free(req);
    tu_client_free(c);
}

/* ---- skips: capabilities and the context window -------------------------------------------------------- */

static void test_capability_and_context_skips(void)
{
    seam_client *c = client_of(
        "providers = {\n" WIRE_PROVIDERS
        "  mk = { plugin = \"mock\"; options = { reply = \"from mock\"; }; };\n"
        "  ek = { plugin = \"testecho\"; options = { caps = \"tools\"; context_window = 100000; }; };\n"
        "};\n"
        "models = ( { id = \"small\"; provider = \"mk\"; capabilities = [ \"streaming\" ];\n"
        "             context_window = 50; } );\n"
        "chains = { t = ( { provider = \"mk\"; model = \"small\"; },\n"
        "                 { provider = \"ek\"; model = \"e\"; },\n"
        "                 { provider = \"e1\"; model = \"e\"; } ); };\n");
    how t = {.chain = "t"};
    /* Tools needed, and the conf's entry for "small" says it has none. */
    seam_request *tools = tu_user_request("hello");
    seam_request_add_tool(tools, "get_time", "the time", NULL);
    run r = go(c, tools, t);
    SERVED_BY(r, "ek");
    CU_ASSERT_EQUAL_FATAL(r.at.n, 2);
    CU_ASSERT_EQUAL(r.at.r[0].outcome, SEAM_ATTEMPT_SKIPPED);
    CU_ASSERT_EQUAL(r.at.r[0].kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_STRING_EQUAL(r.at.r[0].code, "capability");
    CU_ASSERT_PTR_NOT_NULL(strstr(r.at.r[0].message, "tools"));

    /* A single-provider call is made as asked. */
    how single = {.provider = "mk", .model = "small"};
    r = go(c, tools, single);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.text, "from mock");
    seam_request_free(tools);

    /* Structured output: the plugin's capabilities (ek: tools only) rule it
     * out; testecho e1 answers "unknown" and is not skipped. */
    seam_request *json = tu_user_request("hello");
    seam_request_set_response_format(json, SEAM_FORMAT_JSON, NULL, NULL, 0);
    seam_request_add_tool(json, "get_time", NULL, NULL);
    r = go(c, json, t);
    SERVED_BY(r, "e1");
    CU_ASSERT_EQUAL_FATAL(r.at.n, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.at.r[1].message, "structured output"));
    seam_request_free(json);

    /* Vision: an image part. */
    seam_request *image = tu_user_request("hello");
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    seam_message_add_media(m, "image/png", SEAM_MEDIA_URL, "https://example.com/a.png");
    seam_request_add_message(image, m);
    r = go(c, image, t);
    CU_ASSERT_STRING_EQUAL(r.provider, "e1");
    CU_ASSERT_PTR_NOT_NULL(strstr(r.at.r[0].message, "vision"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.at.r[1].message, "vision"));
    seam_request_free(image);

    /* The context window: ~100 tokens of input (100 words) do not fit "small"
     * (50), even at the estimate's lowest reading (60%). */
    seam_request *big = seam_request_new();
    char text[600] = "";
    for (int k = 0; k < 100; k++)
        strcat(text, "word ");
    seam_request_add_user_text(big, text);
    r = go(c, big, t);
    CU_ASSERT_STRING_EQUAL(r.provider, "ek");
    CU_ASSERT_EQUAL(r.at.r[0].kind, SEAM_ERROR_CONTEXT_OVERFLOW);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.at.r[0].message, "context window"));
    seam_request_free(big);

    /* And a request "small" can serve is served by it. */
    r = go_chain(c, "t");
    CU_ASSERT_STRING_EQUAL(r.provider, "mk");
    CU_ASSERT_STRING_EQUAL(r.text, "from mock");
    tu_client_free(c);
}

/* ---- error-class fallbacks ---------------------------------------------------------------------------- */

static void test_fallback_chains(void)
{
    seam_client *c = client_of(
        "providers = {\n" WIRE_PROVIDERS
        "  mk = { plugin = \"mock\"; };\n"
        "};\n"
        "models = ( { id = \"small\"; provider = \"mk\"; context_window = 10; } );\n"
        "chains = {\n"
        "  main = { entries = ( { provider = \"w\"; model = \"m\"; },\n"
        "                       { provider = \"w2\"; model = \"m2\"; } );\n"
        "           context_overflow_fallback = \"big\"; content_filter_fallback = \"safe\"; };\n"
        "  big = ( { provider = \"e1\"; model = \"huge\"; } );\n"
        "  safe = ( { provider = \"e2\"; model = \"careful\"; } );\n"
        "  tiny = { entries = ( { provider = \"mk\"; model = \"small\"; } );\n"
        "           context_overflow_fallback = \"big\"; };\n"
        "  l1 = { entries = ( { provider = \"w\"; model = \"m\"; } ); context_overflow_fallback = \"l2\"; };\n"
        "  l2 = { entries = ( { provider = \"w2\"; model = \"m\"; } ); context_overflow_fallback = \"l1\"; };\n"
        "  plain = ( { provider = \"w\"; model = \"m\"; }, { provider = \"w2\"; model = \"m2\"; } );\n"
        "};\n");
    size_t before = fake_server_request_count(srv);
    fake_server_push_json(srv, 400, "{\"kind\":\"context_overflow\"}", NULL);
    run r = go_chain(c, "main");
    SERVED_BY(r, "e1");
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "model=huge"));
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1); /* w2 is not tried */
    CU_ASSERT_EQUAL_FATAL(r.at.n, 2);
    CU_ASSERT_STRING_EQUAL(r.at.r[0].chain, "main");
    CU_ASSERT_EQUAL(r.at.r[0].kind, SEAM_ERROR_CONTEXT_OVERFLOW);
    CU_ASSERT_STRING_EQUAL(r.at.r[1].chain, "big");

    fake_server_push_json(srv, 400, "{\"kind\":\"content_filter\"}", NULL);
    r = go_chain(c, "main");
    SERVED_BY(r, "e2");
    CU_ASSERT_STRING_EQUAL(r.at.r[1].chain, "safe");

    /* Every entry too small (skipped for its window): the fallback too. */
    seam_request *big = seam_request_new();
    seam_request_add_user_text(big, "a question long enough not to fit ten tokens of window");
    how tiny = {.chain = "tiny"};
    r = go(c, big, tiny);
    seam_request_free(big);
    SERVED_BY(r, "e1");
    CU_ASSERT_EQUAL(r.at.r[0].outcome, SEAM_ATTEMPT_SKIPPED);

    /* Fallbacks that point at each other end instead of looping. */
    before = fake_server_request_count(srv);
    fake_server_push_json(srv, 400, "{\"kind\":\"context_overflow\"}", NULL);
    fake_server_push_json(srv, 400, "{\"kind\":\"context_overflow\"}", NULL);
    r = go_chain(c, "l1");
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_CONTEXT_OVERFLOW);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 2);

    /* Without a fallback, context_overflow is fatal like any fatal error. */
    before = fake_server_request_count(srv);
    fake_server_push_json(srv, 400, "{\"kind\":\"context_overflow\"}", NULL);
    r = go_chain(c, "plain");
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_CONTEXT_OVERFLOW);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    tu_client_free(c);
}

/* ---- cost ------------------------------------------------------------------------------------------------ */

static void test_cost_per_attempt_and_summed(void)
{
    seam_client *c = client_of(
        "providers = {\n" WIRE_PROVIDERS
        "  mc = { plugin = \"mock\"; options = { usage = { input_tokens = 1500000;\n"
        "         output_tokens = 2000; cache_read_tokens = 1000000; cache_write_tokens = 10; }; }; };\n"
        "};\n"
        "models = (\n"
        "  { id = \"priced-a\"; provider = \"w\"; price = { input = 100000000L; output = 200000000L; }; },\n"
        "  { id = \"priced-b\"; price = { input = 300000000L; output = 400000000L; }; },\n"
        "  { id = \"cached\"; provider = \"mock\"; price = { input = 300000000L; output = 1500000000L;\n"
        "    cache_read = 30000000L; cache_write = 375000000L; }; }\n"
        ");\n"
        "chains = {\n"
        "  cost = ( { provider = \"w\"; model = \"priced-a\"; }, { provider = \"w2\"; model = \"priced-b\"; } );\n"
        "  unpriced = ( { provider = \"w2\"; model = \"not-in-catalog\"; } );\n"
        "  mixed = ( { provider = \"w\"; model = \"priced-a\"; }, { provider = \"w2\"; model = \"not-in-catalog\"; } );\n"
        "  cache = ( { provider = \"mc\"; model = \"cached\"; } );\n"
        "};\n");
    /* w reports 7 output tokens, then its connection breaks: the attempt is
     * charged at priced-a; w2 answers with 3 at priced-b. */
    const char *stop_then_cut = "event: stop\ndata: 7\n\ndata: tail\n\n";
    fake_response sc = {.body = stop_then_cut, .chunked = 1, .cut_after = 23};
    fake_server_push(srv, &sc);
    fake_response ok = {.body = "data: ok\n\nevent: stop\ndata: 3\n\n", .chunked = 1};
    fake_server_push(srv, &ok);
    run r = go_chain(c, "cost");
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(r.at.n, 2);
    CU_ASSERT_TRUE(r.at.r[0].has_usage);
    CU_ASSERT_EQUAL(r.at.r[0].usage.output_tokens, 7);
    CU_ASSERT(r.at.r[0].usage.present & SEAM_USAGE_COST);
    CU_ASSERT_EQUAL(r.at.r[0].usage.cost_microcents, 1400); /* 7 × 200000000 / 1e6 */
    CU_ASSERT_EQUAL(r.at.r[1].usage.output_tokens, 3);
    CU_ASSERT_EQUAL(r.at.r[1].usage.cost_microcents, 1200); /* 3 × 400000000 / 1e6 */
    /* The call's usage adds up across the failover, in the stop chunk and the result. */
    CU_ASSERT_EQUAL(r.n_stops, 1);
    CU_ASSERT_EQUAL(r.stop_usage.output_tokens, 10);
    CU_ASSERT(r.stop_usage.present & SEAM_USAGE_COST);
    CU_ASSERT_EQUAL(r.stop_usage.cost_microcents, 2600);
    CU_ASSERT_EQUAL(r.usage.output_tokens, 10);
    CU_ASSERT_EQUAL(r.usage.cost_microcents, 2600);

    /* Blocking generate: the same accounting. */
    fake_response whole = {.body = "a whole answer", .content_type = "text/plain"};
    fake_server_push(srv, &whole);
    how g = {.chain = "unpriced", .generate = 1};
    r = go(c, NULL, g);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_FALSE(r.usage.present & SEAM_USAGE_COST); /* absent, not zero */

    /* A model absent from the catalog has no cost, and then neither has the sum. */
    fake_response early = {.body = stop_then_cut, .chunked = 1, .cut_after = 23};
    fake_server_push(srv, &early);
    push_ok();
    r = go_chain(c, "mixed");
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT(r.at.r[0].usage.present & SEAM_USAGE_COST);
    CU_ASSERT_FALSE(r.at.r[1].usage.present & SEAM_USAGE_COST);
    CU_ASSERT_EQUAL(r.usage.output_tokens, 10);
    CU_ASSERT_FALSE(r.usage.present & SEAM_USAGE_COST);

    /* Every kind of token at its own rate (cache reads and writes too), the
     * entry found by plugin id. */
    r = go_chain(c, "cache");
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT(r.usage.present & SEAM_USAGE_COST);
    /* 1.5M×3e8 + 2000×1.5e9 + 1M×3e7 + 10×3.75e8, per million */
    CU_ASSERT_EQUAL(r.usage.cost_microcents, 450000000LL + 3000000LL + 30000000LL + 3750LL);
    tu_client_free(c);
}

static void test_shipped_catalog(void)
{
    seam_client *c = client_of(
        "model_catalog = \"" TOP_SRCDIR "/conf/models.conf\";\n"
        "providers = {\n"
        "  openai = { plugin = \"mock\"; options = { usage = { input_tokens = 1000000;\n"
        "             output_tokens = 1000000; }; }; };\n"
        "};\n"
        "models = ( { id = \"gpt-4.1\"; provider = \"openai\"; price = { input = 1L; output = 1L; }; } );\n"
        "chains = { snap = ( { provider = \"openai\"; model = \"gpt-4.1-mini-2025-04-14\"; } );\n"
        "           mine = ( { provider = \"openai\"; model = \"gpt-4.1\"; } ); };\n");
    /* A dated snapshot uses its base entry: $0.40 + $1.60 for a million each. */
    run r = go_chain(c, "snap");
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT(r.usage.present & SEAM_USAGE_COST);
    CU_ASSERT_EQUAL(r.usage.cost_microcents, 200000000LL);
    /* The conf's own entry overrides the catalog's. */
    r = go_chain(c, "mine");
    CU_ASSERT_EQUAL(r.usage.cost_microcents, 2);
    tu_client_free(c);
}

/* ---- the conf keys ------------------------------------------------------------------------------------------ */

static void check_conf_error(const char *text, const char *want)
{
    char *path = tu_path(tmpdir, "bad.conf");
    CU_ASSERT_FATAL(tu_write_file(path, text) == 0);
    seam_error err;
    seam_error_clear(&err);
    int rc = seam_conf_check(path, NULL, NULL, &err);
    CU_ASSERT_EQUAL(rc, SEAM_ERR_CONF);
    if (!strstr(err.message, want))
        fprintf(stderr, "\n got: %s\nwant: %s\n", err.message, want);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, want));
    free(path);
}

static void test_conf_keys(void)
{
    check_conf_error("model_catalog = \"\";\nproviders = { p = { key_selection = \"random\"; }; };\n",
                     "2: providers.p.key_selection must be \"round_robin\" or \"sticky\", not \"random\"");
    check_conf_error("model_catalog = \"\";\nproviders = { p = { rate_limit_guard = \"yes\"; }; };\n",
                     "providers.p.rate_limit_guard must be \"rotate\", \"wait\" or \"off\"");
    check_conf_error("model_catalog = \"\";\nproviders = { p = { api_keys_env = [ ]; }; };\n",
                     "providers.p.api_keys_env must name at least one");
    check_conf_error("model_catalog = \"\";\nmodels = ( { id = \"m\"; capabilities = [ \"telepathy\" ]; } );\n",
                     "unknown capability \"telepathy\"");
    check_conf_error("model_catalog = \"\";\nmodels = ( { id = \"m\"; price = { input = 1; }; } );\n",
                     "models[0].price needs both input and output");
    check_conf_error("model_catalog = \"\";\nmodels = ( { id = \"m\"; price = { input = 100000000000001L; output = 1; }; } );\n",
                     "models[0].price.input must be at most 100000000000000");
    check_conf_error("model_catalog = \"\";\nmodels = ( { id = \"m\"; }, { id = \"m\"; } );\n",
                     "model \"m\" already defined in");
    check_conf_error("model_catalog = \"\";\nmodels = ( { provider = \"p\"; } );\n", "models[0] has no id");
    check_conf_error("model_catalog = \"/nonexistent/models.conf\";\n", "/nonexistent/models.conf");
    /* The shipped catalog itself loads. */
    char *path = tu_path(tmpdir, "good.conf");
    CU_ASSERT_FATAL(tu_write_file(path, "model_catalog = \"" TOP_SRCDIR "/conf/models.conf\";\n") == 0);
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_conf_check(path, NULL, NULL, &err), SEAM_OK);
    free(path);
}

static void test_failover_on(void)
{
    seam_client *c = client_of(
        "providers = {\n" WIRE_PROVIDERS "};\n"
        "chains = {\n"
        "  f = { entries = ( { provider = \"w\"; model = \"m\"; max_attempts = 3; },\n"
        "                    { provider = \"w\"; model = \"m-other\"; },\n"
        "                    { provider = \"w2\"; model = \"m2\"; } );\n"
        "        failover_on = [ \"auth\", \"quota\", \"model_not_found\" ]; };\n"
        "  same = { entries = ( { provider = \"w\"; model = \"m\"; },\n"
        "                       { provider = \"w\"; model = \"m-other\"; } );\n"
        "           failover_on = [ \"auth\" ]; };\n"
        "  plain = ( { provider = \"w\"; model = \"m\"; }, { provider = \"w2\"; model = \"m2\"; } );\n"
        "};\n");
    static const char *const bodies[] = {"{\"kind\":\"auth\"}", "{\"kind\":\"quota\"}",
                                         "{\"kind\":\"model_not_found\"}"};
    static const int statuses[] = {401, 429, 404};
    static const seam_error_kind kinds[] = {SEAM_ERROR_AUTH, SEAM_ERROR_RATE_LIMIT,
                                            SEAM_ERROR_MODEL_NOT_FOUND};
    for (int i = 0; i < 3; i++) {
        size_t before = fake_server_request_count(srv);
        push_error_then_ok(statuses[i], bodies[i], NULL);
        run r = go_chain(c, "f");
        SERVED_BY(r, "w2");
        CU_ASSERT_EQUAL(n_sleeps, 0); /* no retry of a fatal error */
        /* Straight to the next *provider*: w's other entry is passed over. */
        ASKED(before, 2, "/second/stream");
        CU_ASSERT_EQUAL_FATAL(r.at.n, 2);
        CU_ASSERT_EQUAL(r.at.r[0].outcome, SEAM_ATTEMPT_FAILED);
        CU_ASSERT_EQUAL(r.at.r[0].kind, kinds[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.at.r[0].message,
                                      "failing over to provider \"w2\" (failover_on)"));
        CU_ASSERT_EQUAL(r.at.r[1].outcome, SEAM_ATTEMPT_SUCCEEDED);
        CU_ASSERT_STRING_EQUAL(r.at.r[1].provider, "w2");
        /* The rate limit of "quota" put w in a cooldown: wait it out. */
        clock_advance(60000);
    }

    /* A kind not listed stops the chain as before. */
    refused_at_once(c, "f", 400, "{\"kind\":\"bad_request\"}", SEAM_ERROR_BAD_REQUEST);

    /* Without failover_on (the default), auth stops the chain. */
    refused_at_once(c, "plain", 401, "{\"kind\":\"auth\"}", SEAM_ERROR_AUTH);

    /* Only to another provider: the same provider's next entry shares its key. */
    run r = refused_at_once(c, "same", 401, "{\"kind\":\"auth\"}", SEAM_ERROR_AUTH);
    CU_ASSERT_PTR_NULL(strstr(r.err.message, "failover_on"));
    tu_client_free(c);
}

/* Ctrl-C while a key command runs: the call ends at once as cancelled, and
 * no later entry is tried. */
/* ---- issue 11: a private CA (ca_file), against a real TLS server ------------------------- */

extern char **environ;

/* A free TCP port on 127.0.0.1 (bound then released: the server takes it next). */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

static int port_accepts(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

/* `openssl s_server` with a self-signed certificate for 127.0.0.1 made
 * now: ca_file naming that certificate makes the request succeed, and without
 * it the same request fails certificate verification. Skipped (with a note)
 * when the openssl command is not installed. */
static void test_ca_file(void)
{
    if (!tu_have_command("openssl", "no TLS server for ca_file"))
        return;
    char *cmd = NULL;
    CU_ASSERT_FATAL(asprintf(&cmd,
                             "cd '%s' && openssl req -x509 -newkey ec -pkeyopt "
                             "ec_paramgen_curve:prime256v1 -nodes -keyout tls-key.pem -out "
                             "tls-cert.pem -days 1 -subj /CN=127.0.0.1 "
                             "-addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1",
                             tmpdir) > 0);
    int rc = tu_run(cmd, NULL, NULL);
    free(cmd);
    CU_ASSERT_EQUAL_FATAL(rc, 0);

    int port = free_port();
    CU_ASSERT_FATAL(port > 0);
    char accept_arg[16];
    snprintf(accept_arg, sizeof accept_arg, "%d", port);
    char *cert = tu_path(tmpdir, "tls-cert.pem"), *key = tu_path(tmpdir, "tls-key.pem");
    /* Its stdin a pipe we hold open: s_server reads commands there. */
    int in[2];
    CU_ASSERT_FATAL(pipe(in) == 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {"openssl", "s_server", "-accept", accept_arg, "-cert", cert, "-key", key,
                    "-quiet", NULL};
    pid_t pid;
    rc = posix_spawnp(&pid, "openssl", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    CU_ASSERT_FATAL(rc == 0);

    int up = 0;
    for (int i = 0; i < 300 && !(up = port_accepts(port)); i++)
        usleep(10000);
    CU_ASSERT(up);
    usleep(100000); /* s_server is done with our probe's aborted handshake */
    /* Without -www, s_server sends its stdin to the next client that
     * connects (and shakes hands): the answer is waiting there. (-www answers
     * GET only; the codec POSTs.) */
    static const char answer[] = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                                 "Content-Length: 14\r\nConnection: close\r\n\r\nhello from tls";
    CU_ASSERT(write(in[1], answer, sizeof answer - 1) == (ssize_t)(sizeof answer - 1));

    char conf[2048];
    snprintf(conf, sizeof conf,
             "providers = {\n"
             "  trusted = { plugin = \"testwire\"; base_url = \"https://127.0.0.1:%d\"; ca_file = \"%s\"; };\n"
             "  system = { plugin = \"testwire\"; base_url = \"https://127.0.0.1:%d\"; };\n"
             "  badca = { plugin = \"testwire\"; base_url = \"https://127.0.0.1:%d\";\n"
             "            ca_file = \"/nonexistent/ca.pem\"; };\n"
             "  bypath = { plugin = \"testwire\"; base_url = \"https://127.0.0.1:%d\";\n"
             "             ca_path = \"%s/capath\"; };\n"
             "};\n",
             port, cert, port, port, port, tmpdir);
    seam_client *c = client_of(conf);
    how h = {.provider = "trusted", .model = "m", .generate = 1, .timeout_ms = 10000};
    run r = go(c, NULL, h);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.text, "hello from tls");

    h.provider = "system";
    r = go(c, NULL, h);
    FAILED_WITH(r, SEAM_ERROR_TRANSPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "certificate"));

    h.provider = "badca";
    r = go(c, NULL, h);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);

    /* ca_path: a directory of hashed certificates (openssl rehash). */
    CU_ASSERT_FATAL(asprintf(&cmd, "cd '%s' && mkdir -p capath && cp tls-cert.pem capath/ && "
                                   "openssl rehash capath >/dev/null 2>&1", tmpdir) > 0);
    rc = tu_run(cmd, NULL, NULL);
    free(cmd);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(write(in[1], answer, sizeof answer - 1) == (ssize_t)(sizeof answer - 1));
    h.provider = "bypath";
    r = go(c, NULL, h);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.text, "hello from tls");
    tu_client_free(c);

    close(in[1]);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    free(cert);
    free(key);
}

/* Plain HTTP to another machine is a warning of config check (and chat -v);
 * loopback in any spelling is not. */
static int n_warned;
static char warned[4][512];
static void collect_warning(void *ud, const char *text)
{
    (void)ud;
    if (n_warned < 4)
        snprintf(warned[n_warned], sizeof warned[0], "%s", text);
    n_warned++;
}

static void test_plain_http_warning(void)
{
    char *path = tu_path(tmpdir, "http.conf");
    CU_ASSERT_FATAL(tu_write_file(path,
                                  "model_catalog = \"\";\n"
                                  "providers = {\n"
                                  "  a = { base_url = \"http://127.0.0.1:8080/v1\"; };\n"
                                  "  b = { base_url = \"http://localhost/v1\"; };\n"
                                  "  c = { base_url = \"http://[::1]:9/v1\"; };\n"
                                  "  d = { base_url = \"https://api.example.com/v1\"; };\n"
                                  "  e = { base_url = \"http://127.9.9.9\"; };\n"
                                  "  remote = {\n"
                                  "    base_url = \"HTTP://user:sk-SECRET@llm.example.net:8000/v1\"; };\n"
                                  "  lan = { base_url = \"http://10.0.0.5/v1\"; };\n"
                                  "};\n") == 0);
    n_warned = 0;
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_conf_check(path, collect_warning, NULL, &err), SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(n_warned, 2);
    char want[1024];
    snprintf(want, sizeof want,
             "%s:9: provider \"remote\" sends its requests and its API key over plain HTTP to "
             "llm.example.net, which is not this machine: use https://", path);
    CU_ASSERT_STRING_EQUAL(warned[0], want);
    CU_ASSERT_PTR_NULL(strstr(warned[0], "SECRET"));
    CU_ASSERT_PTR_NOT_NULL(strstr(warned[1], "provider \"lan\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(warned[1], "HTTP to 10.0.0.5,"));
    free(path);
}

static const tu_test tests[] = {
    { "cooldown shared by requests and threads", test_cooldown_shared },
    { "rate-limit guard", test_rate_limit_guard },
    { "streaming failover before and after content", test_stream_failover_rules },
    { "reasoning stripped across providers", test_reasoning_stripped_across_providers },
    { "capability and context-window skips", test_capability_and_context_skips },
    { "error-class fallback chains", test_fallback_chains },
    { "cost per attempt, summed across failover", test_cost_per_attempt_and_summed },
    { "the shipped catalog", test_shipped_catalog },
    { "conf keys", test_conf_keys },
    { "failover_on: fatal kinds to the next provider", test_failover_on },
    { "ca_file trusts a private CA (TLS server)", test_ca_file },
    { "plain HTTP to a remote host warns", test_plain_http_warning },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("chain", tests, start);
}
