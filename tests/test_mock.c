/* test_mock.c — the scripted mock provider through the public API (a client
 * from conf text, seam_generate and seam_stream_*), and the fake provider
 * server of the tests itself: keep-alive, chunked request bodies, split and
 * delayed bodies, cut connections, client aborts and a prompt stop while a
 * response hangs, and the tests/fake-provider program's per-family framing. */
#include "config.h"

#include <CUnit/Basic.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

extern char **environ;

/* ---- the mock through the public API ------------------------------------------ */

/* A client with one mock provider "m" whose options group holds `options`
 * (libconfig syntax), and a default chain over it. */
static seam_client *mock_client(const char *options)
{
    seam_client *c = tu_clientf("providers = { m = { plugin = \"mock\"; options = { %s }; }; };\n"
                                "chains = { default = ( { provider = \"m\"; model = \"mock-1\"; } ); };\n",
                                options ? options : "");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

/* What a stream gave: a trace of every chunk, "type(text)" joined by spaces,
 * and how it ended. */
typedef struct run {
    int status;        /* the last seam_stream_next return: 0 or a negative status */
    seam_error err;
    char trace[8192];
    int n_text;        /* text_delta chunks */
    int n_tool_deltas; /* tool_call_delta chunks */
    seam_stream *stream; /* kept open so its result can be read; free with run_done */
} run;

static void trace_add(run *r, const seam_chunk *c)
{
    char item[1024];
    switch (c->type) {
    case SEAM_CHUNK_TEXT_DELTA:
    case SEAM_CHUNK_REASONING_DELTA:
        snprintf(item, sizeof item, "%s(%s)", seam_chunk_type_name(c->type), c->text);
        break;
    case SEAM_CHUNK_REASONING_END:
        snprintf(item, sizeof item, "reasoning_end(%s)", c->signature ? c->signature : "-");
        break;
    case SEAM_CHUNK_TOOL_CALL_START:
        snprintf(item, sizeof item, "tool_call_start(%s,%s)", c->id, c->name);
        break;
    case SEAM_CHUNK_TOOL_CALL_END:
        snprintf(item, sizeof item, "tool_call_end(%s,%s)", c->id, c->args_json);
        break;
    case SEAM_CHUNK_STOP:
        snprintf(item, sizeof item, "stop(%s)", seam_stop_reason_name(c->stop_reason));
        break;
    default:
        snprintf(item, sizeof item, "%s", seam_chunk_type_name(c->type));
    }
    size_t used = strlen(r->trace);
    snprintf(r->trace + used, sizeof r->trace - used, "%s%s", used ? " " : "", item);
}

static void run_stream(seam_client *c, const seam_request *req, const seam_call_options *opts,
                       run *r)
{
    memset(r, 0, sizeof *r);
    seam_error_clear(&r->err);
    int rc = seam_stream_open(c, req, opts, &r->stream, &r->err);
    CU_ASSERT_EQUAL_FATAL(rc, SEAM_OK);
    const seam_chunk *chunk;
    while ((rc = seam_stream_next(r->stream, &chunk, &r->err)) == 1) {
        trace_add(r, chunk);
        if (chunk->type == SEAM_CHUNK_TEXT_DELTA)
            r->n_text++;
        if (chunk->type == SEAM_CHUNK_TOOL_CALL_DELTA)
            r->n_tool_deltas++;
    }
    r->status = rc;
    if (getenv("SEAM_TEST_VERBOSE") && rc != SEAM_OK)
        fprintf(stderr, "\n  stream ended %d: %s: %s\n", rc, seam_error_kind_name(r->err.kind),
                r->err.message);
}

static void run_done(run *r)
{
    seam_stream_free(r->stream);
    r->stream = NULL;
}

/* A mock client of options asked question (both owned), and the stream of
 * its answer run (r, open until case_close). */
typedef struct mock_case {
    seam_client *c;
    seam_request *req;
    run r;
} mock_case;

static void case_open(mock_case *k, const char *options, const char *question)
{
    k->c = mock_client(options);
    k->req = tu_user(question);
    run_stream(k->c, k->req, NULL, &k->r);
}

static void case_close(mock_case *k)
{
    run_done(&k->r);
    seam_request_free(k->req);
    tu_client_free(k->c);
}

/* Two results are the same: text, parts, stop reason and usage. */
static void assert_same_result(const seam_result *a, const seam_result *b)
{
    TU_ASSERT_STR(seam_result_text(a), seam_result_text(b));
    CU_ASSERT_EQUAL(seam_result_stop_reason(a), seam_result_stop_reason(b));
    const seam_usage *ua = seam_result_usage(a), *ub = seam_result_usage(b);
    CU_ASSERT_EQUAL(ua->present, ub->present);
    CU_ASSERT_EQUAL(ua->input_tokens, ub->input_tokens);
    CU_ASSERT_EQUAL(ua->output_tokens, ub->output_tokens);
    CU_ASSERT_EQUAL(ua->cache_read_tokens, ub->cache_read_tokens);
    CU_ASSERT_EQUAL(ua->cache_write_tokens, ub->cache_write_tokens);
    CU_ASSERT_EQUAL(ua->reasoning_tokens, ub->reasoning_tokens);
    tu_parts_alike(seam_result_message(a), seam_result_message(b), 0);
}

static void test_stream_text_chunks(void)
{
    mock_case k;
    case_open(&k, "reply = \"abcdef\"; chunks = 3;", "one two three");
    CU_ASSERT_EQUAL(k.r.status, SEAM_OK);
    CU_ASSERT_EQUAL(k.r.n_text, 3);
    TU_ASSERT_STR(k.r.trace, "text_delta(ab) text_delta(cd) text_delta(ef) stop(stop)");
    const seam_result *res = seam_stream_result(k.r.stream);
    TU_ASSERT_STR(seam_result_text(res), "abcdef");
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_STOP);
    CU_ASSERT_FALSE(seam_result_incomplete(res));
    TU_ASSERT_STR(seam_result_provider(res), "m");
    TU_ASSERT_STR(seam_result_model(res), "mock-1");
    case_close(&k);
}

/* Pieces never split a UTF-8 sequence, and a short text gives fewer pieces. */
static void test_stream_utf8_pieces(void)
{
    mock_case k;
    case_open(&k, "reply = \"h\xc3\xa9llo w\xc3\xb6rld \xe2\x82\xac\"; chunks = 13;", "hi");
    CU_ASSERT_EQUAL(k.r.status, SEAM_OK);
    CU_ASSERT_EQUAL(k.r.n_text, 13);
    TU_ASSERT_STR(seam_result_text(seam_stream_result(k.r.stream)),
                           "h\xc3\xa9llo w\xc3\xb6rld \xe2\x82\xac");
    CU_ASSERT_PTR_NOT_NULL(strstr(k.r.trace, "text_delta(\xe2\x82\xac)"));
    case_close(&k);

    case_open(&k, "reply = \"ok\"; chunks = 10;", "hi");
    CU_ASSERT_EQUAL(k.r.n_text, 2);
    case_close(&k);
}

static void test_default_reply_and_usage(void)
{
    seam_client *c = mock_client(NULL);
    seam_request *req = tu_user("what  is\tthe time");
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_generate(c, req, NULL, &res, &err), SEAM_OK);
    TU_ASSERT_STR(seam_result_text(res),
                           "Hello from the seam mock provider. You said: what  is\tthe time");
    const seam_usage *u = seam_result_usage(res);
    CU_ASSERT_EQUAL(u->present, SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT);
    CU_ASSERT_EQUAL(u->input_tokens, 4);
    CU_ASSERT_EQUAL(u->output_tokens, 12);
    seam_result_free(res);
    seam_request_free(req);
    tu_client_free(c);
}

static void test_explicit_usage(void)
{
    mock_case k;
    case_open(&k, "reply = \"x\"; usage = { input_tokens = 10; output_tokens = 20;"
                  " cache_read_tokens = 30; reasoning_tokens = 5; };", "hi");
    CU_ASSERT_EQUAL(k.r.status, SEAM_OK);
    const seam_usage *u = seam_result_usage(seam_stream_result(k.r.stream));
    CU_ASSERT_EQUAL(u->present, SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT | SEAM_USAGE_CACHE_READ |
                                    SEAM_USAGE_REASONING);
    CU_ASSERT_EQUAL(u->input_tokens, 10);
    CU_ASSERT_EQUAL(u->output_tokens, 20);
    CU_ASSERT_EQUAL(u->cache_read_tokens, 30);
    CU_ASSERT_EQUAL(u->reasoning_tokens, 5);
    CU_ASSERT_FALSE(u->present & SEAM_USAGE_CACHE_WRITE);
    case_close(&k);
}

static void test_reasoning_and_signature(void)
{
    mock_case k;
    case_open(&k, "reply = \"answer\"; chunks = 2; reasoning = \"thinkhard\";"
                  " signature = \"sig-123\";", "hi");
    CU_ASSERT_EQUAL(k.r.status, SEAM_OK);
    TU_ASSERT_STR(k.r.trace, "reasoning_start reasoning_delta(thin) reasoning_delta(khard) "
                                    "reasoning_end(sig-123) text_delta(ans) text_delta(wer) "
                                    "stop(stop)");
    const seam_message *m = seam_result_message(seam_stream_result(k.r.stream));
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 2);
    const seam_part *p = seam_message_part(m, 0);
    CU_ASSERT_EQUAL(seam_part_get_type(p), SEAM_PART_REASONING);
    TU_ASSERT_STR(seam_part_text(p), "thinkhard");
    TU_ASSERT_STR(seam_part_signature(p), "sig-123");
    CU_ASSERT_EQUAL(seam_part_get_type(seam_message_part(m, 1)), SEAM_PART_TEXT);
    case_close(&k);
}

static const char *TOOL_SCRIPT =
    "reply = \"Let me check.\"; chunks = 2;"
    " tool_calls = ( { id = \"call_a\"; name = \"get_weather\"; args = { city = \"Paris\"; days = 2; }; },"
    "                { name = \"get_time\"; args = \"{\\\"tz\\\": \\\"UTC\\\"}\"; } );";

/* p is a tool call of that id and name whose arguments hold args_part. */
static void assert_tool_call(const seam_part *p, const char *id, const char *name, const char *args_part)
{
    CU_ASSERT_EQUAL(seam_part_get_type(p), SEAM_PART_TOOL_CALL);
    TU_ASSERT_STR(seam_part_tool_call_id(p), id);
    TU_ASSERT_STR(seam_part_tool_name(p), name);
    CU_ASSERT_PTR_NOT_NULL(strstr(seam_part_args_json(p), args_part));
}

static void test_tool_calls(void)
{
    mock_case k;
    case_open(&k, TOOL_SCRIPT, "weather and time?");
    CU_ASSERT_EQUAL(k.r.status, SEAM_OK);
    CU_ASSERT(k.r.n_tool_deltas >= 4); /* 2+ fragments per call */
    CU_ASSERT_PTR_NOT_NULL(strstr(k.r.trace, "tool_call_start(call_a,get_weather)"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(k.r.trace, "tool_call_end(call_a,{\"city\":\"Paris\",\"days\":2})"));
    CU_ASSERT_PTR_NOT_NULL(strstr(k.r.trace, "tool_call_end(call_0_1,{\"tz\":\"UTC\"})"));
    CU_ASSERT_PTR_NOT_NULL(strstr(k.r.trace, "stop(tool_use)"));
    const seam_result *res = seam_stream_result(k.r.stream);
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_TOOL_USE);
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 3);
    assert_tool_call(seam_message_part(m, 1), "call_a", "get_weather", "\"Paris\"");
    TU_ASSERT_STR(seam_part_tool_name(seam_message_part(m, 2)), "get_time");
    case_close(&k);
}

/* generate (the whole-body decode) gives the result the accumulated stream does. */
static void test_generate_equals_stream(void)
{
    char script[2048];
    snprintf(script, sizeof script,
             "%s reasoning = \"Two tools are needed.\"; signature = \"s1\";"
             " usage = { cache_write_tokens = 7; };",
             TOOL_SCRIPT);
    mock_case k;
    case_open(&k, script, "weather and time?");
    CU_ASSERT_EQUAL(k.r.status, SEAM_OK);
    seam_result *whole = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_generate(k.c, k.req, NULL, &whole, &err), SEAM_OK);
    assert_same_result(whole, seam_stream_result(k.r.stream));
    CU_ASSERT_EQUAL(seam_message_part_count(seam_result_message(whole)), 4);
    CU_ASSERT_TRUE(seam_result_usage(whole)->present & SEAM_USAGE_CACHE_WRITE);
    seam_result_free(whole);
    run_done(&k.r);

    /* And for plain text in many chunks. */
    tu_client_free(k.c);
    k.c = mock_client("reply = \"a b c d e f g\"; chunks = 7;");
    run_stream(k.c, k.req, NULL, &k.r);
    CU_ASSERT_EQUAL_FATAL(seam_generate(k.c, k.req, NULL, &whole, &err), SEAM_OK);
    assert_same_result(whole, seam_stream_result(k.r.stream));
    seam_result_free(whole);
    case_close(&k);
}

static void test_http_error_rate_limit(void)
{
    seam_client *c = mock_client(
        "error_status = 429; error_headers = [ \"Retry-After: 2\", \"X-Mock: yes\" ];"
        " error_body = \"{\\\"error\\\":{\\\"type\\\":\\\"rate_limit\\\",\\\"message\\\":\\\"slow down\\\"}}\";");
    seam_request *req = tu_user("hi");
    seam_call_options o = { .size = sizeof o, .provider = "m", .model = "mock-1" };
    seam_result *res = NULL;
    seam_error err;
    seam_error_clear(&err);
    int64_t t0 = tu_now_ms();
    CU_ASSERT_EQUAL(seam_generate(c, req, &o, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT(tu_now_ms() - t0 < 1500); /* one attempt: no retry slept on Retry-After */
    CU_ASSERT_PTR_NULL(res);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_EQUAL(err.retryable, 1);
    CU_ASSERT_EQUAL(err.http_status, 429);
    CU_ASSERT_EQUAL(err.retry_after_ms, 2000);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "slow down"));
    TU_ASSERT_STR(err.provider, "m");

    /* Streamed, the same error before any content. */
    run r;
    run_stream(c, req, &o, &r);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_EQUAL(r.err.retry_after_ms, 2000);
    TU_ASSERT_STR(r.trace, "");
    run_done(&r);
    seam_request_free(req);
    tu_client_free(c);
}

/* The body's type refines the kind; without one, the status decides. */
static void test_http_error_classification(void)
{
    seam_client *c = mock_client("reply = \"unused\";");
    seam_request *req = tu_user("hi");
    seam_result *res = NULL;
    seam_error err;

    seam_request_set_provider_options(
        req, "{\"error_status\":400,\"error_body\":"
             "\"{\\\"error\\\":{\\\"type\\\":\\\"context_overflow\\\",\\\"message\\\":\\\"too long\\\"}}\"}");
    CU_ASSERT_EQUAL(seam_generate(c, req, NULL, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CONTEXT_OVERFLOW);
    CU_ASSERT_EQUAL(err.retryable, 0);
    CU_ASSERT_EQUAL(err.http_status, 400);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "too long"));

    seam_request_set_provider_options(req, "{\"error_status\":503}");
    CU_ASSERT_EQUAL(seam_generate(c, req, NULL, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_EQUAL(err.retryable, 1);
    CU_ASSERT_EQUAL(err.http_status, 503);

    seam_request_set_provider_options(req, "{\"error_status\":401,\"error_body\":\"not json\"}");
    CU_ASSERT_EQUAL(seam_generate(c, req, NULL, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_AUTH);
    CU_ASSERT_PTR_NULL(res);
    seam_request_free(req);
    tu_client_free(c);
}

/* The case's stream ended in an error of kind after trace, its result
 * incomplete with text; the same request not streamed fails with kind too.
 * Returns that call's result, for the caller to check and free. */
static seam_result *expect_broken_stream(mock_case *k, seam_error_kind kind, const char *trace,
                                         const char *text)
{
    CU_ASSERT_EQUAL(k->r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(k->r.err.kind, kind);
    TU_ASSERT_STR(k->r.trace, trace);
    const seam_result *res = seam_stream_result(k->r.stream);
    CU_ASSERT_TRUE(seam_result_incomplete(res));
    TU_ASSERT_STR(seam_result_text(res), text);
    run_done(&k->r);
    seam_result *whole = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_generate(k->c, k->req, NULL, &whole, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, kind);
    return whole;
}

static void test_cut_stream(void)
{
    mock_case k;
    case_open(&k, "reply = \"aabbccdd\"; chunks = 4; cut_after = 2;", "hi");
    /* A non-streamed answer cut midway is a transport error too. */
    seam_result *whole =
        expect_broken_stream(&k, SEAM_ERROR_TRANSPORT, "text_delta(aa) text_delta(bb)", "aabb");
    CU_ASSERT_PTR_NULL(whole);
    case_close(&k);

    /* Cut before any byte: a retryable transport error and no content. */
    case_open(&k, "cut_after = 0;", "hi");
    CU_ASSERT_EQUAL(k.r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(k.r.err.kind, SEAM_ERROR_TRANSPORT);
    CU_ASSERT_EQUAL(k.r.err.retryable, 1);
    TU_ASSERT_STR(k.r.trace, "");
    case_close(&k);
}

static void test_stream_error_event(void)
{
    mock_case k;
    case_open(&k, "reply = \"partial\"; chunks = 1;"
                  " stream_error = { type = \"overloaded\"; message = \"busy now\"; };", "hi");
    CU_ASSERT_PTR_NOT_NULL(strstr(k.r.err.message, "busy now"));
    seam_result_free(expect_broken_stream(&k, SEAM_ERROR_OVERLOADED, "text_delta(partial)", "partial"));
    case_close(&k);
}

/* replies: the entry is picked by the number of assistant messages. */
static void test_replies_by_turn(void)
{
    seam_client *c = mock_client(
        "chunks = 1; replies = ("
        " { tool_calls = ( { id = \"t1\"; name = \"clock\"; args = { tz = \"UTC\"; }; } ); reply = \"\"; },"
        " { reply = \"It is noon.\"; } );");
    seam_request *req = tu_user("time?");
    seam_result *res = NULL;
    seam_error err;

    CU_ASSERT_EQUAL_FATAL(seam_generate(c, req, NULL, &res, &err), SEAM_OK);
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_TOOL_USE);
    TU_ASSERT_STR(seam_result_text(res), "");
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 1);
    assert_tool_call(seam_message_part(m, 0), "t1", "clock", "\"UTC\"");

    /* Turn 2: the assistant's call and the tool's result go back. */
    CU_ASSERT_EQUAL_FATAL(seam_request_add_message(req, seam_message_dup(m)), SEAM_OK);
    seam_result_free(res);
    seam_message *tool = seam_message_new(SEAM_ROLE_TOOL);
    seam_message_add_tool_result(tool, "t1", "clock", "{\"time\":\"12:00\"}", 0);
    CU_ASSERT_EQUAL_FATAL(seam_request_add_message(req, tool), SEAM_OK);
    run r;
    run_stream(c, req, NULL, &r);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    TU_ASSERT_STR(r.trace, "text_delta(It is noon.) stop(stop)");
    run_done(&r);

    /* Past the end, the last entry repeats. */
    seam_message *a2 = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_text(a2, "It is noon.");
    seam_request_add_message(req, a2);
    seam_request_add_user_text(req, "and now?");
    CU_ASSERT_EQUAL_FATAL(seam_generate(c, req, NULL, &res, &err), SEAM_OK);
    TU_ASSERT_STR(seam_result_text(res), "It is noon.");
    seam_result_free(res);
    seam_request_free(req);
    tu_client_free(c);
}

static void test_request_options_override_conf(void)
{
    seam_client *c = mock_client("reply = \"from the conf\"; chunks = 3; stop_reason = \"length\";");
    seam_request *req = tu_user("hi");
    CU_ASSERT_EQUAL(seam_request_set_provider_options(req, "{\"reply\":\"from the request\",\"chunks\":1}"),
                    SEAM_OK);
    run r;
    run_stream(c, req, NULL, &r);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    /* reply and chunks from the request, stop_reason still from the conf */
    TU_ASSERT_STR(r.trace, "text_delta(from the request) stop(length)");
    run_done(&r);

    /* Options of the wrong type are a bad request, not a crash. */
    CU_ASSERT_EQUAL(seam_request_set_provider_options(req, "{\"chunks\":\"many\"}"), SEAM_OK);
    tu_generate_refused(c, req, SEAM_ERROR_BAD_REQUEST, "chunks");
    seam_request_free(req);
    tu_client_free(c);
}

static void test_delay_and_idle_timeout(void)
{
    seam_client *c = mock_client("reply = \"abc\"; chunks = 3; delay_ms = 40;");
    seam_request *req = tu_user("hi");
    int64_t t0 = tu_now_ms();
    run r;
    run_stream(c, req, NULL, &r);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT(tu_now_ms() - t0 >= 4 * 40 - 10); /* 3 text pieces + the stop event */
    run_done(&r);

    seam_call_options o = { .size = sizeof o, .idle_timeout_ms = 50 };
    seam_request_set_provider_options(req, "{\"delay_ms\":2000}");
    t0 = tu_now_ms();
    run_stream(c, req, &o, &r);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_TIMEOUT);
    CU_ASSERT(tu_now_ms() - t0 < 1500);
    run_done(&r);
    seam_request_free(req);
    tu_client_free(c);
}

/* ---- the fake server --------------------------------------------------------- */

typedef struct raw_conn {
    int fd;
    char buf[65536];
    size_t len;
} raw_conn;

static int raw_connect(fake_server *s, raw_conn *rc)
{
    rc->len = 0;
    rc->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (rc->fd < 0)
        return -1;
    struct timeval tv = { .tv_sec = 5 };
    setsockopt(rc->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(fake_server_port(s)) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return connect(rc->fd, (struct sockaddr *)&a, sizeof a);
}

static void raw_send(raw_conn *rc, const char *s)
{
    CU_ASSERT_EQUAL((size_t)send(rc->fd, s, strlen(s), MSG_NOSIGNAL), strlen(s));
}

/* Reads more bytes; 0 at EOF or timeout. */
static int raw_more(raw_conn *rc)
{
    if (rc->len >= sizeof rc->buf - 1)
        return 0;
    ssize_t n = recv(rc->fd, rc->buf + rc->len, sizeof rc->buf - 1 - rc->len, 0);
    if (n <= 0)
        return 0;
    rc->len += (size_t)n;
    rc->buf[rc->len] = '\0';
    return 1;
}

static void raw_consume(raw_conn *rc, size_t n)
{
    memmove(rc->buf, rc->buf + n, rc->len - n);
    rc->len -= n;
    rc->buf[rc->len] = '\0';
}

/* Reads one response: its status, head (lines) and decoded body. *complete is 0
 * when the connection closed before the body was whole. */
typedef struct raw_response {
    int status;
    char head[4096];
    char body[16384];
    size_t body_len;
    int complete;
} raw_response;

static void raw_read_response(raw_conn *rc, raw_response *out)
{
    memset(out, 0, sizeof *out);
    rc->buf[rc->len] = '\0';
    char *end;
    while (!(end = strstr(rc->buf, "\r\n\r\n")))
        if (!raw_more(rc))
            return;
    size_t head_len = (size_t)(end - rc->buf) + 4;
    snprintf(out->head, sizeof out->head, "%.*s", (int)head_len, rc->buf);
    sscanf(out->head, "HTTP/1.1 %d", &out->status);
    raw_consume(rc, head_len);
    if (strcasestr(out->head, "transfer-encoding: chunked")) {
        for (;;) {
            char *eol;
            while (!(eol = strstr(rc->buf, "\r\n")))
                if (!raw_more(rc))
                    return;
            size_t size = strtoul(rc->buf, NULL, 16);
            raw_consume(rc, (size_t)(eol - rc->buf) + 2);
            while (rc->len < size + 2)
                if (!raw_more(rc))
                    return;
            memcpy(out->body + out->body_len, rc->buf, size);
            out->body_len += size;
            raw_consume(rc, size + 2);
            if (size == 0)
                break;
        }
    } else {
        const char *cl = strcasestr(out->head, "content-length:");
        size_t want = cl ? strtoul(cl + 15, NULL, 10) : 0;
        while (rc->len < want)
            if (!raw_more(rc))
                break;
        size_t got = rc->len < want ? rc->len : want;
        memcpy(out->body, rc->buf, got);
        out->body_len = got;
        raw_consume(rc, got);
        if (got < want)
            return;
    }
    out->body[out->body_len] = '\0';
    out->complete = 1;
}

/* The fake server's own tests: a server, a raw connection's buffer and room
 * for one answer; raw_close frees them and stops the server (unless a test
 * stopped it and set s to NULL). */
typedef struct raw_fixture {
    fake_server *s;
    raw_conn *rc;
    raw_response *resp;
} raw_fixture;

static raw_fixture raw_open(void)
{
    raw_fixture f = { fake_server_start(), calloc(1, sizeof *f.rc), calloc(1, sizeof *f.resp) };
    CU_ASSERT_PTR_NOT_NULL_FATAL(f.s);
    return f;
}

static void raw_close(raw_fixture *f)
{
    free(f->rc);
    free(f->resp);
    if (f->s)
        fake_server_stop(f->s);
}

/* Sends request on rc's connection and reads the answer into out. */
static void raw_ask(raw_conn *rc, const char *request, raw_response *out)
{
    raw_send(rc, request);
    raw_read_response(rc, out);
}

/* resp is a whole answer of status with body. */
static void assert_answer(const raw_response *resp, int status, const char *body)
{
    CU_ASSERT_TRUE(resp->complete);
    CU_ASSERT_EQUAL(resp->status, status);
    TU_ASSERT_STR(resp->body, body);
}

/* Queues r twice: as it is, then with a chunked body. */
static void push_plain_and_chunked(fake_server *s, fake_response r)
{
    fake_server_push(s, &r);
    r.chunked = 1;
    fake_server_push(s, &r);
}

/* A new connection to f's server sending GET / and reading the answer into
 * f->resp: 0, or -1 when it could not connect. */
static int raw_get(raw_fixture *f)
{
    if (raw_connect(f->s, f->rc) != 0)
        return -1;
    raw_ask(f->rc, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", f->resp);
    return 0;
}

static void test_fakeserver_keepalive(void)
{
    raw_fixture f = raw_open();
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", fake_server_port(f.s));
    TU_ASSERT_STR(fake_server_url(f.s), url);
    fake_server_push_json(f.s, 201, "{\"a\":1}", "X-Reply: one\r\n");
    fake_server_push_sse(f.s, "data: x\n\ndata: y\n\n", 3);

    CU_ASSERT_EQUAL_FATAL(raw_connect(f.s, f.rc), 0);
    raw_ask(f.rc, "POST /v1/one HTTP/1.1\r\nHost: x\r\nX-Test: Yes\r\n"
                  "Content-Length: 5\r\n\r\nhello", f.resp);
    assert_answer(f.resp, 201, "{\"a\":1}");
    CU_ASSERT_PTR_NOT_NULL(strstr(f.resp->head, "X-Reply: one\r\n"));
    CU_ASSERT_PTR_NOT_NULL(strcasestr(f.resp->head, "content-type: application/json"));

    /* Same connection, a chunked request body. */
    raw_ask(f.rc, "POST /two?x=1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                  "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", f.resp);
    assert_answer(f.resp, 200, "data: x\n\ndata: y\n\n");
    CU_ASSERT_PTR_NOT_NULL(strcasestr(f.resp->head, "content-type: text/event-stream"));

    /* The queue is empty now: 500 and a JSON body that says so. */
    raw_ask(f.rc, "GET /three HTTP/1.1\r\nHost: x\r\n\r\n", f.resp);
    CU_ASSERT_EQUAL(f.resp->status, 500);
    CU_ASSERT_PTR_NOT_NULL(strstr(f.resp->body, "no scripted response"));

    CU_ASSERT_EQUAL(fake_server_request_count(f.s), 3);
    TU_ASSERT_STR(fake_server_request_method(f.s, 0), "POST");
    TU_ASSERT_STR(fake_server_request_path(f.s, 0), "/v1/one");
    TU_ASSERT_STR(fake_server_request_header(f.s, 0, "x-test"), "Yes");
    CU_ASSERT_PTR_NULL(fake_server_request_header(f.s, 0, "x-absent"));
    TU_ASSERT_STR(fake_server_request_body(f.s, 0), "hello");
    TU_ASSERT_STR(fake_server_request_path(f.s, 1), "/two?x=1");
    TU_ASSERT_STR(fake_server_request_body(f.s, 1), "hello world");
    TU_ASSERT_STR(fake_server_request_method(f.s, 2), "GET");
    TU_ASSERT_STR(fake_server_request_body(f.s, 2), "");
    CU_ASSERT_PTR_NULL(fake_server_request_path(f.s, 3));
    CU_ASSERT_EQUAL(fake_server_client_aborts(f.s), 0);
    close(f.rc->fd);

    /* Expect: 100-continue is answered before the body is sent. */
    fake_server_push_json(f.s, 200, "{}", NULL);
    CU_ASSERT_EQUAL_FATAL(raw_connect(f.s, f.rc), 0);
    raw_ask(f.rc, "POST /big HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n", f.resp);
    CU_ASSERT_EQUAL(f.resp->status, 100);
    raw_ask(f.rc, "abc", f.resp);
    CU_ASSERT_EQUAL(f.resp->status, 200);
    TU_ASSERT_STR(fake_server_request_body(f.s, 3), "abc");
    close(f.rc->fd);
    raw_close(&f);
}

static void test_fakeserver_split_and_delay(void)
{
    raw_fixture f = raw_open();
    push_plain_and_chunked(f.s, (fake_response){ .body = "abcdefghij", .split = 2, .delay_ms = 40 });

    for (int i = 0; i < 2; i++) {
        int64_t t0 = tu_now_ms();
        CU_ASSERT_EQUAL_FATAL(raw_get(&f), 0);
        int64_t took = tu_now_ms() - t0;
        CU_ASSERT_TRUE(f.resp->complete);
        TU_ASSERT_STR(f.resp->body, "abcdefghij");
        CU_ASSERT(took >= 5 * 40 - 10); /* five pieces, each after its delay */
        if (i == 1)
            CU_ASSERT_PTR_NOT_NULL(strstr(f.resp->head, "Transfer-Encoding: chunked"));
        close(f.rc->fd);
    }
    raw_close(&f);
}

static void test_fakeserver_cut(void)
{
    raw_fixture f = raw_open();
    char body[101];
    memset(body, 'x', 100);
    body[100] = '\0';
    push_plain_and_chunked(f.s, (fake_response){ .body = body, .cut_after = 10 });

    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL_FATAL(raw_get(&f), 0);
        CU_ASSERT_FALSE(f.resp->complete);
        CU_ASSERT_EQUAL(f.resp->status, 200);
        if (i == 0) {
            CU_ASSERT_PTR_NOT_NULL(strstr(f.resp->head, "Content-Length: 100"));
            CU_ASSERT_EQUAL(f.resp->body_len, 10);
        } else {
            CU_ASSERT_EQUAL(f.resp->body_len, 10); /* the chunk before the cut arrived */
        }
        close(f.rc->fd);
    }

    /* A cut past the end of a chunked body: all bytes, but no terminating chunk. */
    fake_response whole = { .body = "abc", .chunked = 1, .cut_after = 100 };
    fake_server_push(f.s, &whole);
    CU_ASSERT_EQUAL_FATAL(raw_get(&f), 0);
    CU_ASSERT_FALSE(f.resp->complete);
    CU_ASSERT_EQUAL(f.resp->body_len, 3);
    close(f.rc->fd);
    raw_close(&f);
}

/* A client closing during a hang is counted, and stop does not wait for a hang. */
static void test_fakeserver_abort_and_prompt_stop(void)
{
    raw_fixture f = raw_open();
    fake_response r = { .body = "data: a\n\n", .chunked = 1, .hang_ms = 20000 };
    fake_server_push(f.s, &r);
    fake_server_push(f.s, &r);

    CU_ASSERT_EQUAL_FATAL(raw_connect(f.s, f.rc), 0);
    raw_send(f.rc, "GET /hang HTTP/1.1\r\nHost: x\r\n\r\n");
    while (!strstr(f.rc->buf, "data: a") && raw_more(f.rc))
        ;
    CU_ASSERT_PTR_NOT_NULL(strstr(f.rc->buf, "data: a"));
    close(f.rc->fd);
    int64_t t0 = tu_now_ms();
    while (fake_server_client_aborts(f.s) == 0 && tu_now_ms() - t0 < 3000)
        usleep(10 * 1000);
    CU_ASSERT_EQUAL(fake_server_client_aborts(f.s), 1);

    /* A second connection hangs; stop must return at once anyway. */
    CU_ASSERT_EQUAL_FATAL(raw_connect(f.s, f.rc), 0);
    raw_send(f.rc, "GET /hang2 HTTP/1.1\r\nHost: x\r\n\r\n");
    while (!strstr(f.rc->buf, "data: a") && raw_more(f.rc))
        ;
    t0 = tu_now_ms();
    fake_server_stop(f.s);
    f.s = NULL;
    CU_ASSERT(tu_now_ms() - t0 < 1000);
    close(f.rc->fd);
    raw_close(&f);
}

/* ---- tests/fake-provider ---------------------------------------------------------- */

/* Starts fake-provider with args, waits for its port file; returns the pid. */
static pid_t start_fake_provider(char *const argv[], const char *port_file, int *port)
{
    pid_t pid;
    if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0)
        return -1;
    for (int i = 0; i < 500; i++) {
        char *text = tu_read_file(port_file, NULL);
        if (text) {
            *port = atoi(text);
            free(text);
            return pid;
        }
        usleep(10 * 1000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

static void fetch(int port, raw_response *resp)
{
    raw_conn *rc = calloc(1, sizeof *rc);
    rc->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct timeval tv = { .tv_sec = 5 };
    setsockopt(rc->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CU_ASSERT_EQUAL(connect(rc->fd, (struct sockaddr *)&a, sizeof a), 0);
    raw_ask(rc, "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", resp);
    close(rc->fd);
    free(rc);
}

static void test_fake_provider_program(void)
{
    char *dir = tu_mkdtemp();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *sse = tu_path(dir, "events.txt");
    char *port_file = tu_path(dir, "port");
    CU_ASSERT_EQUAL_FATAL(tu_write_file(sse, "{\"type\":\"message_start\",\"message\":{\"type\":\"message\"}}\n"
                                             "\n{\"type\":\"ping\"}\n"), 0);
    char prog[4096];
    snprintf(prog, sizeof prog, "%s/tests/fake-provider", TOP_BUILDDIR);
    raw_response *resp = calloc(1, sizeof *resp);

    static const struct { const char *family; const char *want; } cases[] = {
        { "anthropic", "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"type\":\"message\"}}\n\n"
                       "event: ping\ndata: {\"type\":\"ping\"}\n\n" },
        { "openai", "data: {\"type\":\"message_start\",\"message\":{\"type\":\"message\"}}\n\n"
                    "data: {\"type\":\"ping\"}\n\ndata: [DONE]\n\n" },
        { "gemini", "data: {\"type\":\"message_start\",\"message\":{\"type\":\"message\"}}\r\n\r\n"
                    "data: {\"type\":\"ping\"}\r\n\r\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unlink(port_file);
        char *argv[] = { prog, "--port-file", port_file, "--split", "5", "--sse-file", sse,
                         "--family", (char *)cases[i].family, NULL };
        int port = 0;
        pid_t pid = start_fake_provider(argv, port_file, &port);
        CU_ASSERT_FATAL(pid > 0);
        for (int k = 0; k < 2; k++) { /* the same answer to every request */
            fetch(port, resp);
            assert_answer(resp, 200, cases[i].want);
        }
        kill(pid, SIGTERM);
        int status = -1;
        waitpid(pid, &status, 0);
        CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }

    unlink(port_file);
    char *argv[] = { prog, "--port-file", port_file, "--status", "429", "--json-body",
                     "{\"error\":{\"type\":\"rate_limit\"}}", "--header", "Retry-After: 3", NULL };
    int port = 0;
    pid_t pid = start_fake_provider(argv, port_file, &port);
    CU_ASSERT_FATAL(pid > 0);
    fetch(port, resp);
    CU_ASSERT_EQUAL(resp->status, 429);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp->head, "Retry-After: 3\r\n"));
    TU_ASSERT_STR(resp->body, "{\"error\":{\"type\":\"rate_limit\"}}");
    kill(pid, SIGINT);
    int status = -1;
    waitpid(pid, &status, 0);
    CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* Usage errors exit 2. */
    char *out = NULL, *errtext = NULL;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "%s --port-file /dev/null --family openai", prog);
    CU_ASSERT_EQUAL(tu_run(cmd, &out, &errtext), 2);
    CU_ASSERT_PTR_NOT_NULL(errtext && strstr(errtext, "usage"));
    free(out);
    free(errtext);

    free(resp);
    free(sse);
    free(port_file);
    tu_rm_rf(dir);
    free(dir);
}

/* ---- testutil ------------------------------------------------------------------------ */

static void test_testutil(void)
{
    char *dir = tu_mkdtemp();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *a = tu_path(dir, "a.txt"), *b = tu_path(dir, "b.txt");
    CU_ASSERT_EQUAL(tu_write_file(a, "line one\nline two\n"), 0);
    CU_ASSERT_EQUAL(tu_copy_file(a, b), 0);
    size_t len = 0;
    char *text = tu_read_file(b, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    TU_ASSERT_STR(text, "line one\nline two\n");
    CU_ASSERT_EQUAL(len, 18);
    free(text);
    CU_ASSERT_PTR_NULL(tu_read_file("/nonexistent/seam/file", NULL));

    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL(tu_run("echo out; echo err >&2; exit 3", &out, &err), 3);
    TU_ASSERT_STR(out, "out\n");
    TU_ASSERT_STR(err, "err\n");
    free(out);
    free(err);
    CU_ASSERT_EQUAL(tu_run("kill -TERM $$", NULL, NULL), 128 + SIGTERM);

    tu_rm_rf(dir);
    CU_ASSERT_EQUAL(access(dir, F_OK), -1);
    free(a);
    free(b);
    free(dir);
    CU_ASSERT_PTR_NOT_NULL(tu_plugin_dir());
}

static const tu_test mock_tests[] = {
    { "stream text in N chunks", test_stream_text_chunks },
    { "UTF-8 pieces", test_stream_utf8_pieces },
    { "default reply and usage", test_default_reply_and_usage },
    { "explicit usage", test_explicit_usage },
    { "reasoning and signature", test_reasoning_and_signature },
    { "tool calls", test_tool_calls },
    { "generate equals stream", test_generate_equals_stream },
    { "HTTP 429 with Retry-After", test_http_error_rate_limit },
    { "HTTP error classification", test_http_error_classification },
    { "cut stream", test_cut_stream },
    { "stream error event", test_stream_error_event },
    { "replies by turn", test_replies_by_turn },
    { "request options override conf", test_request_options_override_conf },
    { "delay and idle timeout", test_delay_and_idle_timeout },
    { NULL, NULL },
};

static const tu_test server_tests[] = {
    { "keep-alive, chunked bodies, empty queue", test_fakeserver_keepalive },
    { "split and delay", test_fakeserver_split_and_delay },
    { "cut", test_fakeserver_cut },
    { "client abort and prompt stop", test_fakeserver_abort_and_prompt_stop },
    { "fake-provider program", test_fake_provider_program },
    { "testutil", test_testutil },
    { NULL, NULL },
};

static const tu_suite suites[] = {
    { .name = "mock", .tests = mock_tests },
    { .name = "fakeserver", .tests = server_tests },
    { .name = NULL },
};

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    /* Run by hand from anywhere, the test still finds the plugins it was built with. */
    setenv("SEAM_TEST_PLUGIN_DIR", TOP_BUILDDIR "/plugins/.libs", 0);
    return tu_run_suites(suites);
}
