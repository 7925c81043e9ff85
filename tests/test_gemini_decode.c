/* test_gemini_decode.c — what comes back through the Gemini plugin
 * (plugins/gemini/decode.c, errors.c), the real loader and the fake server:
 * streams (CRLF-framed, cut at every byte) and whole responses giving the same
 * result, reasoning and its signature, usage, finish reasons and a blocked
 * prompt; the HTTP error table and an error event inside a stream. The
 * transcripts are written for this test in the shape the Gemini API documents. */
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

/* Concatenated reasoning text of a message. */
static char *reasoning_text(const seam_message *m)
{
    size_t cap = 1, len = 0;
    for (size_t i = 0; m && i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        if (seam_part_get_type(p) == SEAM_PART_REASONING && seam_part_text(p))
            cap += strlen(seam_part_text(p));
    }
    char *out = calloc(1, cap);
    for (size_t i = 0; out && m && i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        if (seam_part_get_type(p) == SEAM_PART_REASONING && seam_part_text(p)) {
            memcpy(out + len, seam_part_text(p), strlen(seam_part_text(p)));
            len += strlen(seam_part_text(p));
        }
    }
    return out;
}

/* ---- transcripts ----------------------------------------------------------------------- */

/* Thoughts, then text with UTF-8 that a cut can split, then the signature in a
 * final empty text part, as Gemini 3 streams it. */
static const char STREAM_REASONING[] =
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Counting the r's\",\"thought\":true}],"
    "\"role\":\"model\"},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":12,\"totalTokenCount\":40,"
    "\"thoughtsTokenCount\":28},\"modelVersion\":\"gemini-2.5-flash\"}\r\n\r\n"
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" in strawberry.\",\"thought\":true}],"
    "\"role\":\"model\"},\"index\":0}]}\r\n\r\n"
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"There are 3 r\xe2\x80\x99s \xe2\x80\x94 "
    "\xc3\xa9t\xc3\xa9 \xe2\x9c\x93\"}],\"role\":\"model\"},\"index\":0}]}\r\n\r\n"
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" in strawberry.\"}],\"role\":\"model\"},"
    "\"index\":0}]}\r\n\r\n"
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\",\"thoughtSignature\":\"c2lnLXRleHQ=\"}],"
    "\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":12,"
    "\"cachedContentTokenCount\":4,\"candidatesTokenCount\":9,\"totalTokenCount\":49,"
    "\"thoughtsTokenCount\":28}}\r\n\r\n";
static const char REASONING_TEXT[] = "Counting the r's in strawberry.";
static const char ANSWER_TEXT[] =
    "There are 3 r\xe2\x80\x99s \xe2\x80\x94 \xc3\xa9t\xc3\xa9 \xe2\x9c\x93 in strawberry.";

static void check_reasoning_outcome(const outcome *o)
{
    CU_ASSERT_EQUAL(o->rc, SEAM_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o->msg);
    CU_ASSERT_STRING_EQUAL(seam_message_text(o->msg), ANSWER_TEXT);
    char *r = reasoning_text(o->msg);
    CU_ASSERT_STRING_EQUAL(r, REASONING_TEXT);
    free(r);
    CU_ASSERT_EQUAL(o->stop, SEAM_STOP_STOP);
    CU_ASSERT_EQUAL(o->stop_chunks, 1);
    CU_ASSERT_EQUAL(o->usage.input_tokens, 8); /* 12 prompt - 4 cached */
    CU_ASSERT_EQUAL(o->usage.cache_read_tokens, 4);
    CU_ASSERT_EQUAL(o->usage.output_tokens, 37); /* 9 candidates + 28 thoughts */
    CU_ASSERT_EQUAL(o->usage.reasoning_tokens, 28);
    CU_ASSERT(o->usage.present & SEAM_USAGE_INPUT);
    CU_ASSERT(o->usage.present & SEAM_USAGE_OUTPUT);
    CU_ASSERT(o->usage.present & SEAM_USAGE_REASONING);
    CU_ASSERT_FALSE(o->usage.present & SEAM_USAGE_CACHE_WRITE);
    /* The thought block, then the answer, then the signature carrier. */
    CU_ASSERT_EQUAL(count_parts(o->msg, SEAM_PART_REASONING), 2);
    const seam_part *sig = nth_part(o->msg, SEAM_PART_REASONING, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sig);
    CU_ASSERT_STRING_EQUAL(seam_part_text(sig), "");
    CU_ASSERT_PTR_NOT_NULL_FATAL(seam_part_signature(sig));
    CU_ASSERT_STRING_EQUAL(seam_part_signature(sig), "gemini:c2lnLXRleHQ=");
}

/* ---- tests: streaming decode ----------------------------------------------------------------- */

static void test_stream_reasoning_and_wire(void)
{
    seam_request *req = user_request("How many r's in strawberry?");
    fake_server_push_sse(server, STREAM_REASONING, 0);
    outcome o = run(req, 1);
    check_reasoning_outcome(&o);

    size_t i = last_request();
    CU_ASSERT_STRING_EQUAL(fake_server_request_method(server, i), "POST");
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(server, i),
                           "/v1beta/models/" MODEL ":streamGenerateContent?alt=sse");
    const char *key = fake_server_request_header(server, i, "x-goog-api-key");
    CU_ASSERT_PTR_NOT_NULL_FATAL(key);
    CU_ASSERT_STRING_EQUAL(key, API_KEY);
    CU_ASSERT_PTR_NULL(fake_server_request_header(server, i, "Authorization"));
    const char *ct = fake_server_request_header(server, i, "Content-Type");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ct);
    CU_ASSERT_PTR_NOT_NULL(strstr(ct, "application/json"));
    CU_ASSERT_PTR_NULL(strstr(fake_server_request_body(server, i), API_KEY));
    outcome_free(&o);
    seam_request_free(req);
}

/* The same transcript cut at every byte position (one byte per piece, paced so
 * that TCP delivers them apart), then in pieces of every size up to 48. */
static void test_stream_cut_everywhere(void)
{
    seam_request *req = user_request("How many r's in strawberry?");
    fake_response r = {.status = 200, .content_type = "text/event-stream",
                       .body = STREAM_REASONING, .split = 1, .delay_ms = 1, .chunked = 1};
    fake_server_push(server, &r);
    outcome o = run(req, 1);
    check_reasoning_outcome(&o);
    outcome_free(&o);
    for (size_t split = 2; split <= 48; split++) {
        fake_server_push_sse(server, STREAM_REASONING, split);
        o = run(req, 1);
        check_reasoning_outcome(&o);
        outcome_free(&o);
        fake_server_push_sse(server, STREAM_TOOLS, split);
        o = run(req, 1);
        CU_ASSERT_EQUAL(o.rc, SEAM_OK);
        CU_ASSERT_EQUAL(count_parts(o.msg, SEAM_PART_TOOL_CALL), 2);
        CU_ASSERT_EQUAL(o.stop, SEAM_STOP_TOOL_USE);
        CU_ASSERT_EQUAL(o.stop_chunks, 1);
        outcome_free(&o);
    }
    seam_request_free(req);
}

/* The start of an event whose candidate says "Hi" (its finishReason and usage follow). */
#define SSE_HI "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],\"role\":\"model\"},"

/* A stream of one candidate saying "Hi", its events from finishReason on, and
 * what the call must make of it; -1 (0 for lacks) leaves a member unchecked. */
typedef struct usage_case {
    const char *name;
    const char *events;         /* what follows SSE_HI */
    int rc;
    seam_error_kind kind;       /* checked when rc is not SEAM_OK */
    int stop_chunks;
    seam_stop_reason stop;      /* checked when stop_chunks > 0 */
    int64_t in, out, reasoning; /* the usage's tokens */
    unsigned lacks;             /* usage members that must be absent (~0u: all) */
} usage_case;

static const usage_case usage_cases[] = {
    /* Found by fuzz/run.sh: counts near INT64_MAX once overflowed the sum of
     * candidates and thoughts (undefined behaviour). They are bounded now. */
    { "absurd counts are bounded",
      "\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":-7,"
      "\"cachedContentTokenCount\":1e300,\"candidatesTokenCount\":2,"
      "\"thoughtsTokenCount\":222222222222222222222222222222221}}\r\n\r\n",
      SEAM_OK, 0, -1, 0, 0, 1000000000000LL, 1000000000000LL, 0 },
    /* finishReason first, usage in a later event: one stop, with that usage. */
    { "usage after the finish",
      "\"finishReason\":\"STOP\",\"index\":0}]}\r\n\r\n"
      "data: {\"usageMetadata\":{\"promptTokenCount\":3,\"candidatesTokenCount\":1,"
      "\"totalTokenCount\":4}}\r\n\r\n",
      SEAM_OK, 0, 1, SEAM_STOP_STOP, 3, 1, -1, SEAM_USAGE_REASONING },
    /* finishReason and never any usage: the stop still comes, at the end. */
    { "a finish and no usage",
      "\"finishReason\":\"MAX_TOKENS\",\"index\":0}]}\r\n\r\n",
      SEAM_OK, 0, 1, SEAM_STOP_LENGTH, -1, -1, -1, ~0u },
    /* No finishReason at all before the server closes: a cut stream. */
    { "no finish: a cut stream",
      "\"index\":0}]}\r\n\r\n",
      SEAM_ERR_PROVIDER, SEAM_ERROR_TRANSPORT, 0, 0, -1, -1, -1, 0 },
};

static void test_stream_usage_and_finish(void)
{
    seam_request *req = user_request("hi");
    for (size_t i = 0; i < sizeof usage_cases / sizeof usage_cases[0]; i++) {
        const usage_case *c = &usage_cases[i];
        char sse[1024];
        snprintf(sse, sizeof sse, "%s%s", SSE_HI, c->events);
        outcome o = streamed(req, sse, 0);
        unsigned failed = CU_get_number_of_failures();
        CU_ASSERT_EQUAL(o.rc, c->rc);
        if (c->rc != SEAM_OK)
            CU_ASSERT_EQUAL(o.err.kind, c->kind);
        if (c->stop_chunks >= 0)
            CU_ASSERT_EQUAL(o.stop_chunks, c->stop_chunks);
        if (c->stop_chunks > 0)
            CU_ASSERT_EQUAL(o.stop, c->stop);
        if (c->in >= 0)
            CU_ASSERT_EQUAL(o.usage.input_tokens, c->in);
        if (c->reasoning >= 0)
            CU_ASSERT_EQUAL(o.usage.reasoning_tokens, c->reasoning);
        if (c->out >= 0)
            CU_ASSERT_EQUAL(o.usage.output_tokens, c->out);
        if (c->lacks)
            CU_ASSERT_EQUAL(o.usage.present & c->lacks, 0);
        if (CU_get_number_of_failures() != failed)
            fprintf(stderr, "\n  in case \"%s\"\n", c->name);
        outcome_free(&o);
    }
    seam_request_free(req);
}

static void test_finish_reasons_and_blocked_prompt(void)
{
    static const tu_stop_case table[] = {
        {"STOP", SEAM_STOP_STOP},
        {"MAX_TOKENS", SEAM_STOP_LENGTH},
        {"SAFETY", SEAM_STOP_CONTENT_FILTER},
        {"RECITATION", SEAM_STOP_CONTENT_FILTER},
        {"BLOCKLIST", SEAM_STOP_CONTENT_FILTER},
        {"PROHIBITED_CONTENT", SEAM_STOP_CONTENT_FILTER},
        {"SPII", SEAM_STOP_CONTENT_FILTER},
        {"MALFORMED_FUNCTION_CALL", SEAM_STOP_ERROR},
        {"OTHER", SEAM_STOP_STOP},
        /* Gemini 4 long decode: the request's own cap was reached, the answer is cut. */
        {"CONTINUATION", SEAM_STOP_LENGTH},
        {"MODEL_ARMOR", SEAM_STOP_CONTENT_FILTER},
        {"MALFORMED_RESPONSE", SEAM_STOP_ERROR},
        {"MISSING_THOUGHT_SIGNATURE", SEAM_STOP_ERROR},
        {NULL, 0},
    };
    seam_request *req = user_request("hi");
    tu_stop_reasons_are(server, client, "gm", MODEL, req,
                        "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"partial\"}],\"role\":\"model\"},"
                        "\"finishReason\":\"@STOP@\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":5,"
                        "\"candidatesTokenCount\":2,\"totalTokenCount\":7}}",
                        table);

    /* A blocked prompt has no candidates, only promptFeedback. Whole and streamed. */
    static const char blocked[] =
        "{\"promptFeedback\":{\"blockReason\":\"SAFETY\",\"safetyRatings\":[{\"category\":"
        "\"HARM_CATEGORY_DANGEROUS_CONTENT\",\"probability\":\"HIGH\"}]},"
        "\"usageMetadata\":{\"promptTokenCount\":7,\"totalTokenCount\":7}}";
    fake_server_push_json(server, 200, blocked, NULL);
    outcome o = run(req, 0);
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_CONTENT_FILTER);
    CU_ASSERT_STRING_EQUAL(seam_message_text(o.msg), "");
    CU_ASSERT_EQUAL(o.usage.input_tokens, 7);
    outcome_free(&o);

    char sse[1024];
    snprintf(sse, sizeof sse, "data: %s\r\n\r\n", blocked);
    fake_server_push_sse(server, sse, 7);
    o = run(req, 1);
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_CONTENT_FILTER);
    CU_ASSERT_EQUAL(o.stop_chunks, 1);
    outcome_free(&o);

    /* Safety stop in the middle of a stream. */
    o = streamed(req,
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Sure, \"}],\"role\":\"model\"},"
            "\"index\":0}]}\r\n\r\n"
            "data: {\"candidates\":[{\"finishReason\":\"SAFETY\",\"index\":0,\"safetyRatings\":[]}],"
            "\"usageMetadata\":{\"promptTokenCount\":5,\"candidatesTokenCount\":2,"
            "\"totalTokenCount\":7}}\r\n\r\n",
            3);
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_CONTENT_FILTER);
    CU_ASSERT_STRING_EQUAL(seam_message_text(o.msg), "Sure, ");
    outcome_free(&o);
    seam_request_free(req);
}

/* One GenerateContentResponse as a whole body and as a single stream event:
 * the same parts, stop and usage. And the reasoning transcript, streamed and as
 * the equivalent whole response: the same text, reasoning, stop and usage. */
static void test_whole_response_equals_stream(void)
{
    static const char response[] =
        "{\"candidates\":[{\"content\":{\"parts\":["
        "{\"text\":\"Planning the lookup.\",\"thought\":true},"
        "{\"text\":\"Checking the weather.\"},"
        "{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":\"Oslo\",\"units\":[\"c\"]}},"
        "\"thoughtSignature\":\"c2lnLW9zbG8=\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],"
        "\"usageMetadata\":{\"promptTokenCount\":30,\"candidatesTokenCount\":12,\"thoughtsTokenCount\":50,"
        "\"totalTokenCount\":92},\"modelVersion\":\"gemini-2.5-flash\"}";
    seam_request *req = user_request("Weather in Oslo?");
    fake_server_push_json(server, 200, response, NULL);
    outcome whole = run(req, 0);
    char sse[2048];
    snprintf(sse, sizeof sse, "data: %s\r\n\r\n", response);
    fake_server_push_sse(server, sse, 5);
    outcome streamed = run(req, 1);

    CU_ASSERT_EQUAL(whole.rc, SEAM_OK);
    CU_ASSERT_EQUAL(streamed.rc, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(server, last_request() - 1),
                           "/v1beta/models/" MODEL ":generateContent");
    CU_ASSERT_PTR_NOT_NULL_FATAL(whole.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(streamed.msg);
    CU_ASSERT_EQUAL(whole.stop, SEAM_STOP_TOOL_USE);
    CU_ASSERT_EQUAL(streamed.stop, whole.stop);
    CU_ASSERT_EQUAL(memcmp(&whole.usage, &streamed.usage, sizeof whole.usage), 0);
    CU_ASSERT_EQUAL(whole.usage.output_tokens, 62);
    CU_ASSERT_EQUAL(whole.usage.reasoning_tokens, 50);
    CU_ASSERT_EQUAL(seam_message_part_count(whole.msg), 4); /* thought, text, signature carrier, tool call */
    /* Ids are synthesized per response: both present, not the same. */
    tu_parts_alike(whole.msg, streamed.msg, TU_PARTS_NEW_IDS | TU_PARTS_ARGS_AS_JSON);
    CU_ASSERT_TRUE(tu_json_text_equal(seam_part_args_json(nth_part(whole.msg, SEAM_PART_TOOL_CALL, 0)),
                                   "{\"city\":\"Oslo\",\"units\":[\"c\"]}"));
    const seam_part *carrier = seam_message_part(whole.msg, 2);
    CU_ASSERT_EQUAL(seam_part_get_type(carrier), SEAM_PART_REASONING);
    CU_ASSERT_STRING_EQUAL(seam_part_signature(carrier), "gemini:c2lnLW9zbG8=");
    outcome_free(&whole);
    outcome_free(&streamed);

    static const char merged[] =
        "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Counting the r's in strawberry.\","
        "\"thought\":true},{\"text\":\"There are 3 r\xe2\x80\x99s \xe2\x80\x94 \xc3\xa9t\xc3\xa9 \xe2\x9c\x93 "
        "in strawberry.\",\"thoughtSignature\":\"c2lnLXRleHQ=\"}],\"role\":\"model\"},"
        "\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":12,"
        "\"cachedContentTokenCount\":4,\"candidatesTokenCount\":9,\"totalTokenCount\":49,"
        "\"thoughtsTokenCount\":28}}";
    fake_server_push_json(server, 200, merged, NULL);
    whole = run(req, 0);
    check_reasoning_outcome(&whole);
    outcome_free(&whole);
    seam_request_free(req);
}

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
    { "stream: reasoning, text, signature, wire", test_stream_reasoning_and_wire },
    { "stream: cut at every byte (CRLF)", test_stream_cut_everywhere },
    { "stream: usage after finish, no finish, absurd counts bounded", test_stream_usage_and_finish },
    { "finish reasons, blocked prompt", test_finish_reasons_and_blocked_prompt },
    { "whole response equals stream", test_whole_response_equals_stream },
    { "error table", test_error_table },
    { "error event in a stream", test_error_event_in_stream },
    { NULL, NULL },
};

int main(void)
{
    return tu_gemini_run(tests);
}
