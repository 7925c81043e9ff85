/* test_gemini_errors.c — the Gemini plugin's errors (plugins/gemini/errors.c)
 * through the real loader and the fake server: the HTTP error table and an
 * error event inside a stream. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include "tu_gemini.h"
#include <seam/seam.h>

/* ---- tests: errors ----------------------------------------------------------------------- */

static void test_error_table(void)
{
    /* Google's error object, {"error":{"code","message","status"[,"details"]}},
     * from its fields; or a body as it comes (raw). The code a row expects is
     * its status. */
    static const struct {
        int status;
        const char *code, *message, *details, *raw;
        seam_error_kind kind;
        int retryable;
        int64_t retry_after_ms;
    } table[] = {
        {400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \\\"foo\\\"", NULL, NULL, SEAM_ERROR_BAD_REQUEST, 0, -1},
        {400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", NULL, NULL, SEAM_ERROR_CONTEXT_OVERFLOW, 0, -1},
        {400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.",
         "[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"API_KEY_INVALID\",\"domain\":\"googleapis.com\"}]", NULL, SEAM_ERROR_AUTH, 0, -1},
        {400, "FAILED_PRECONDITION", "User location is not supported for the API use.", NULL, NULL, SEAM_ERROR_BAD_REQUEST, 0, -1},
        {401, "UNAUTHENTICATED", "Request had invalid authentication credentials.", NULL, NULL, SEAM_ERROR_AUTH, 0, -1},
        {403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers.", NULL, NULL, SEAM_ERROR_AUTH, 0, -1},
        {404, "NOT_FOUND", "models/gemini-9 is not found for API version v1beta", NULL, NULL, SEAM_ERROR_MODEL_NOT_FOUND, 0, -1},
        {429, "RESOURCE_EXHAUSTED", "You exceeded your current quota.",
         "[{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[]},{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"2.5s\"}]", NULL, SEAM_ERROR_RATE_LIMIT, 1, 2500},
        {429, "RESOURCE_EXHAUSTED", NULL, NULL,
         "[{\"error\":{\"code\":429,\"message\":\"Resource exhausted. Please try again later.\",\"status\":\"RESOURCE_EXHAUSTED\"}}]", SEAM_ERROR_RATE_LIMIT, 1, -1},
        {500, "INTERNAL", "An internal error has occurred.", NULL, NULL, SEAM_ERROR_OVERLOADED, 1, -1},
        {503, "UNAVAILABLE", "The model is overloaded. Please try again later.", NULL, NULL, SEAM_ERROR_OVERLOADED, 1, -1},
        {504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete.", NULL, NULL, SEAM_ERROR_TIMEOUT, 1, -1},
        {502, "", NULL, NULL, "<html><body>Bad Gateway</body></html>", SEAM_ERROR_OVERLOADED, 1, -1},
    };
    seam_request *req = user_request("hi");
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        for (int streaming = 0; streaming <= 1; streaming++) {
            char body[1024];
            if (table[i].raw)
                snprintf(body, sizeof body, "%s", table[i].raw);
            else
                snprintf(body, sizeof body,
                         "{\"error\":{\"code\":%d,\"message\":\"%s\",\"status\":\"%s\"%s%s}}",
                         table[i].status, table[i].message, table[i].code,
                         table[i].details ? ",\"details\":" : "", table[i].details ? table[i].details : "");
            fake_server_push_json(server, table[i].status, body, NULL);
            outcome o = run(req, streaming);
            CU_ASSERT_EQUAL(o.rc, SEAM_ERR_PROVIDER);
            if (o.err.kind != table[i].kind)
                fprintf(stderr, "\nrow %zu: kind %s, want %s (%s)\n", i, seam_error_kind_name(o.err.kind),
                        seam_error_kind_name(table[i].kind), o.err.message);
            CU_ASSERT_EQUAL(o.err.kind, table[i].kind);
            CU_ASSERT_EQUAL(o.err.retryable, table[i].retryable);
            CU_ASSERT_EQUAL(o.err.retry_after_ms, table[i].retry_after_ms);
            CU_ASSERT_EQUAL(o.err.http_status, table[i].status);
            CU_ASSERT_STRING_EQUAL(o.err.code, table[i].code);
            CU_ASSERT_STRING_EQUAL(o.err.provider, "gm");
            outcome_free(&o);
        }
    }
    /* A Retry-After header without a retryDelay is kept. */
    fake_server_push_json(server, 429,
                          "{\"error\":{\"code\":429,\"message\":\"Slow down.\",\"status\":\"RESOURCE_EXHAUSTED\"}}",
                          "Retry-After: 3\r\n");
    outcome o = run(req, 0);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_EQUAL(o.err.retry_after_ms, 3000);
    CU_ASSERT_STRING_EQUAL(o.err.message, "Slow down.");
    outcome_free(&o);

    /* A message that echoes the key never carries it out. */
    fake_server_push_json(server, 400,
                          "{\"error\":{\"code\":400,\"message\":\"API key not valid: " API_KEY "\","
                          "\"status\":\"INVALID_ARGUMENT\"}}",
                          NULL);
    o = run(req, 0);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_AUTH);
    CU_ASSERT_PTR_NULL(strstr(o.err.message, API_KEY));
    outcome_free(&o);
    seam_request_free(req);
}

static void test_error_event_in_stream(void)
{
    seam_request *req = user_request("hi");
    /* Before any content: the stream fails with the classified error. */
    outcome o = streamed(req,
            "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded.\","
            "\"status\":\"UNAVAILABLE\"}}\r\n\r\n",
            4);
    CU_ASSERT_EQUAL(o.rc, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_EQUAL(o.err.http_status, 503);
    CU_ASSERT_STRING_EQUAL(o.err.code, "UNAVAILABLE");
    outcome_free(&o);

    /* After content: the text so far is kept, the error surfaces. */
    o = streamed(req,
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Once upon\"}],"
            "\"role\":\"model\"},\"index\":0}]}\r\n\r\n"
            "data: {\"error\":{\"code\":500,\"message\":\"Internal error.\",\"status\":\"INTERNAL\"}}\r\n\r\n",
            0);
    CU_ASSERT_EQUAL(o.rc, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_STRING_EQUAL(seam_message_text(o.msg), "Once upon");
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_ERROR);
    outcome_free(&o);

    /* An event that is not JSON. */
    o = streamed(req,
            "data: {\"candidates\":[\r\n\r\n",
            0);
    CU_ASSERT_EQUAL(o.rc, SEAM_ERR_PROVIDER);
    outcome_free(&o);
    seam_request_free(req);
}

static const tu_test tests[] = {
    { "error table", test_error_table },
    { "error event in a stream", test_error_event_in_stream },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("gemini", tests, start);
}
