/* test_anthropic_errors.c — the Anthropic plugin's errors (plugins/anthropic/errors.c)
 * through the real loader and the fake provider server: errors inside a 200
 * stream, and the HTTP error table. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include "tu_anthropic.h"
#include <seam/seam.h>

static const char T_OVERLOADED_AFTER_START[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_6\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n"
    "{\"type\":\"ping\"}\n"
    "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n";

static const char T_API_ERROR_MIDWAY[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_7\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Partial\"}}\n"
    "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}\n";

/* ==== errors inside a 200 stream =============================================== */

static void test_overloaded_event_after_message_start(void)
{
    seam_client *c = client_with(NULL, "chains = { two = ( { provider = \"claude\"; model = \"claude-sonnet-4-5\"; },\n"
                                       "                   { provider = \"claude2\"; model = \"claude-sonnet-4-5\"; } ); };");
    seam_request *req = user_request("q");
    seam_call_options o = tu_call_opts("claude", "claude-sonnet-4-5");
    push_stream(T_OVERLOADED_AFTER_START, 1);
    summary s;
    run_stream(c, req, &o, &s);
    CU_ASSERT(s.status < 0);
    CU_ASSERT_EQUAL(s.err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_EQUAL(s.err.retryable, 1);
    CU_ASSERT(TU_STR_EQ(s.err.code, "overloaded_error"));
    CU_ASSERT(strstr(s.err.message, "Overloaded") != NULL);
    summary_free(&s);

    /* Retryable, and no content reached the caller: the chain fails over. */
    seam_call_options chain;
    memset(&chain, 0, sizeof chain);
    chain.size = sizeof chain;
    chain.chain = "two";
    size_t before = fake_server_request_count(srv);
    push_stream(T_OVERLOADED_AFTER_START, 0);
    push_stream(T_TEXT, 0);
    run_stream(c, req, &chain, &s);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    CU_ASSERT(TU_STR_EQ(s.text, "Hello, w\xc3\xb6rld \xe2\x80\x94 ok"));
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 2);
    CU_ASSERT(TU_STR_EQ(fake_server_request_path(srv, before + 1), "/v2/messages"));
    summary_free(&s);

    /* api_error after content: retryable too, surfaced with the result incomplete. */
    push_stream(T_API_ERROR_MIDWAY, 0);
    run_stream(c, req, &o, &s);
    CU_ASSERT(s.status < 0);
    CU_ASSERT_EQUAL(s.err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_EQUAL(s.err.retryable, 1);
    CU_ASSERT(TU_STR_EQ(s.err.code, "api_error"));
    CU_ASSERT(TU_STR_EQ(s.text, "Partial"));
    CU_ASSERT_EQUAL(s.incomplete, 1);
    summary_free(&s);
    seam_request_free(req);
    tu_client_free(c);
}

/* ==== the HTTP error table ===================================================== */

/* The rate-limit headers of the 429 row: the limits, Retry-After, and one
 * that is none of them. */
static const char ratelimit_headers[] =
    "retry-after: 7\r\nanthropic-ratelimit-requests-limit: 50\r\nanthropic-ratelimit-requests-remaining: 0\r\n"
    "anthropic-ratelimit-tokens-reset: 2025-01-01T00:00:07Z\r\nx-unrelated: 1\r\n";

static void test_error_table(void)
{
    /* Anthropic's error object, {"type":"error","error":{"type","message"}},
     * from its fields, or a body as it comes (type NULL); the code a row
     * expects is its type. */
    static const struct {
        int status;
        const char *type, *message;
        seam_error_kind kind;
        int retryable;
    } rows[] = {
        { 400, "invalid_request_error", "messages: roles must alternate", SEAM_ERROR_BAD_REQUEST, 0 },
        { 400, "invalid_request_error", "prompt is too long: 213512 tokens > 200000 maximum", SEAM_ERROR_CONTEXT_OVERFLOW, 0 },
        { 400, "invalid_request_error", "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000", SEAM_ERROR_CONTEXT_OVERFLOW, 0 },
        { 401, "authentication_error", "invalid x-api-key " SECRET, SEAM_ERROR_AUTH, 0 },
        { 403, "permission_error", "Your API key does not have permission", SEAM_ERROR_AUTH, 0 },
        { 404, "not_found_error", "model: claude-nope", SEAM_ERROR_MODEL_NOT_FOUND, 0 },
        { 413, "request_too_large", "Request exceeds the maximum allowed number of bytes.", SEAM_ERROR_BAD_REQUEST, 0 },
        { 429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", SEAM_ERROR_RATE_LIMIT, 1 },
        { 500, "api_error", "Internal server error", SEAM_ERROR_OVERLOADED, 1 },
        { 529, "overloaded_error", "Overloaded", SEAM_ERROR_OVERLOADED, 1 },
        { 529, NULL, "<html>busy</html>", SEAM_ERROR_OVERLOADED, 1 },
        { 504, "timeout_error", "Request timed out", SEAM_ERROR_TIMEOUT, 1 },
    };
    seam_client *c = client_with(NULL, NULL);
    seam_request *req = user_request("q");
    seam_call_options o = tu_call_opts("claude", "claude-sonnet-4-5");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char body[512];
        if (rows[i].type)
            snprintf(body, sizeof body, "{\"type\":\"error\",\"error\":{\"type\":\"%s\",\"message\":\"%s\"}}",
                     rows[i].type, rows[i].message);
        else
            snprintf(body, sizeof body, "%s", rows[i].message);
        tu_http_error e = { rows[i].status, body, rows[i].status == 429 ? ratelimit_headers : NULL, rows[i].kind,
                            rows[i].retryable, rows[i].type ? rows[i].type : "",
                            i == 0 ? "roles must alternate" : NULL };
        tu_push_http_error(srv, &e);
        summary s;
        run_generate(c, req, &o, &s);
        CU_ASSERT(s.status < 0);
        tu_error_is(&s.err, &e, SECRET);
        if (rows[i].status == 429) {
            CU_ASSERT_EQUAL(s.err.retry_after_ms, 7000);
            CU_ASSERT(strstr(s.err.ratelimit, "anthropic-ratelimit-requests-remaining: 0\n") != NULL);
            CU_ASSERT(strstr(s.err.ratelimit, "anthropic-ratelimit-requests-limit: 50\n") != NULL);
            CU_ASSERT(strstr(s.err.ratelimit, "anthropic-ratelimit-tokens-reset: 2025-01-01T00:00:07Z\n") != NULL);
            CU_ASSERT(strstr(s.err.ratelimit, "etry-after: 7\n") != NULL);
            CU_ASSERT(strstr(s.err.ratelimit, "x-unrelated") == NULL);
            /* each header once, even when the core kept some already */
            const char *first = strstr(s.err.ratelimit, "anthropic-ratelimit-requests-limit");
            CU_ASSERT(first && !strstr(first + 1, "anthropic-ratelimit-requests-limit"));
            first = strstr(s.err.ratelimit, "etry-after: 7");
            CU_ASSERT(first && !strstr(first + 1, "etry-after: 7"));
        }
        summary_free(&s);
    }
    seam_request_free(req);
    tu_client_free(c);
}

static const tu_test tests[] = {
    { "overloaded event after message_start", test_overloaded_event_after_message_start },
    { "error table", test_error_table },
    { NULL, NULL },
};

static const tu_suite suites[] = {
    { .name = "anthropic", .tests = tests, .setup = start_server, .teardown = stop_server },
    { .name = NULL },
};

int main(void)
{
    return tu_run_suites(suites);
}
