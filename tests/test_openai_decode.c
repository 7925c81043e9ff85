/* test_openai_decode.c — the OpenAI-compatible plugin's stream decoder
 * (decode.c, decode_scan.c) through the real loader and the fake provider
 * server: our own transcripts cut at every byte position (text, reasoning,
 * interleaved tool calls, usage, the servers' variants, absurd usage counts),
 * whole-response decoding equal to the accumulated stream, cut streams and
 * in-stream errors, <think> tags in content, one tokener per decoder; and the
 * error answers (errors.c): the classification table of HTTP answers, an
 * unreachable local server. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

#include "../plugins/openai/internal.h"
#include "tu_openai.h"

/* Reasoning, text, then two tool calls whose fragments interleave, one of them
 * with an empty argument string, two calls starting in one chunk. */
static const char *const mixed_lines[] = {
    CH("{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"\"}", "null"),
    CH("{\"reasoning_content\":\"Think \"}", "null"),
    CH("{\"reasoning_content\":\"\\\"hard\\\".\"}", "null"),
    CH("{\"content\":\"Calling.\"}", "null"),
    CH("{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}},"
       "{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"arguments\":\"\"}}]}", "null"),
    CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"ci\"}}]}", "null"),
    CH("{\"tool_calls\":[{\"index\":2,\"id\":\"call_c\",\"type\":\"function\",\"function\":{\"name\":\"noop\",\"arguments\":\"\"}}]}", "null"),
    CH("{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"{\\\"tz\\\":\"}}]}", "null"),
    CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"ty\\\": \\\"Par\\u00eds\\\"}\"}}]}", "null"),
    CH("{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"\\\"UTC\\\"}\"}}]}", "null"),
    CH("{}", "\"tool_calls\""),
    "{\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":30,"
    "\"prompt_tokens_details\":{\"cached_tokens\":10},\"completion_tokens_details\":{\"reasoning_tokens\":8}}}",
    NULL};

static const char *mixed_summary =
    "{\"text\":\"Calling.\",\"reasoning\":\"Think \\\"hard\\\".\",\"tool_calls\":["
    "{\"id\":\"call_a\",\"name\":\"get_weather\",\"args\":{\"city\":\"Par\xc3\xads\"}},"
    "{\"id\":\"call_b\",\"name\":\"get_time\",\"args\":{\"tz\":\"UTC\"}},"
    "{\"id\":\"call_c\",\"name\":\"noop\",\"args\":{}}],"
    "\"stop\":\"tool_use\",\"usage\":{\"in\":30,\"out\":30,\"cache_read\":10,\"reasoning\":8}}";

/* Counts near the int64 limits, negative or as huge doubles: bounded, never
 * an overflow in prompt - cached (undefined behaviour the sanitizer build
 * would stop on). */
static void test_usage_absurd_counts(void)
{
    const char *body =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}],"
        "\"usage\":{\"prompt_tokens\":-9223372036854775807,\"completion_tokens\":1e300,"
        "\"prompt_tokens_details\":{\"cached_tokens\":9223372036854775807},"
        "\"completion_tokens_details\":{\"reasoning_tokens\":-1e300}}}\n\n"
        "data: [DONE]\n\n";
    fake_server_push_sse(srv, body, 0);
    seam_request *req = tu_user_request("hi");
    tu_call r = tu_run_stream(client, "oa", "gpt-4o", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"usage\":{\"in\":0,\"out\":1000000000000,"
                                             "\"cache_read\":1000000000000,\"reasoning\":0}"));
    free(r.summary);
    seam_request_free(req);
}

/* ---- decode ----------------------------------------------------------------- */

static void test_decode_split_everywhere(void)
{
    char *body = sse(1, mixed_lines);
    seam_request *req = tu_user_request("weather?");
    size_t len = strlen(body);
    /* one byte per segment cuts at every byte position; the others vary the shapes */
    size_t splits[] = {1, 2, 3, 5, 7, 11, 64, 0};
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
        fake_response fr = {.body = body, .split = splits[i], .chunked = (int)(i % 2)};
        fake_server_push(srv, &fr);
        tu_call r = tu_run_stream(client, "oa", "deepseek-reasoner", req, 0);
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r.summary);
        if (strcmp(r.summary, mixed_summary) != 0)
            fprintf(stderr, "\nsplit %zu of %zu: %s\n", splits[i], len, r.summary);
        CU_ASSERT_STRING_EQUAL(r.summary, mixed_summary);
        CU_ASSERT_STRING_EQUAL(r.log,
            "RS(reasoning_0) RD RE(reasoning_0) TD TS(call_a,get_weather) TS(call_b,get_time) "
            "TS(call_c,noop) TE(call_a,{\"city\":\"Par\xc3\xads\"}) TE(call_b,{\"tz\":\"UTC\"}) "
            "TE(call_c,{}) STOP(tool_use)");
        free(r.summary);
    }
    seam_request_free(req);
    free(body);
}

/* The same answer as a whole (non-streamed) body gives the same result. */
static void test_whole_equals_stream(void)
{
    const char *whole =
        "{\"id\":\"x\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{"
        "\"role\":\"assistant\",\"reasoning_content\":\"Think \\\"hard\\\".\",\"content\":\"Calling.\","
        "\"tool_calls\":[{\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
        "\"arguments\":\"{\\\"city\\\": \\\"Par\\u00eds\\\"}\"}},{\"id\":\"call_b\",\"type\":\"function\","
        "\"function\":{\"name\":\"get_time\",\"arguments\":\"{\\\"tz\\\":\\\"UTC\\\"}\"}},{\"id\":\"call_c\","
        "\"type\":\"function\",\"function\":{\"name\":\"noop\",\"arguments\":\"\"}}]},"
        "\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":30,"
        "\"prompt_tokens_details\":{\"cached_tokens\":10},\"completion_tokens_details\":{\"reasoning_tokens\":8}}}";
    fake_server_push_json(srv, 200, whole, NULL);
    seam_request *req = tu_user_request("weather?");
    tu_call r = tu_run_generate(client, "oa", "deepseek-reasoner", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.summary, mixed_summary);
    free(r.summary);

    /* and a whole body that is an error object despite a 200 */
    fake_server_push_json(srv, 200, "{\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}", NULL);
    r = tu_run_generate(client, "oa", "gpt-4o", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_OVERLOADED);
    free(r.summary);
    seam_request_free(req);
}

typedef struct variant {
    const char *what;
    int done;
    const char *lines[8];
    const char *expect;
} variant;

static void test_decode_variants(void)
{
    static const variant variants[] = {
        {"mistral: content parts with thinking, index-less tool calls, usage with finish", 1,
         {CH("{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\":\"hmm \"}]}]}", "null"),
          CH("{\"content\":[{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\":\"ok\"}]},{\"type\":\"text\",\"text\":\"Sure.\"}]}", "null"),
          "{\"choices\":[{\"index\":0,\"delta\":{\"content\":null,\"tool_calls\":[{\"id\":\"AbC123xyZ\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\": 1}\"}},"
          "{\"id\":\"QwE456rtY\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}],"
          "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":3,\"total_tokens\":12}}",
          NULL},
         "{\"text\":\"Sure.\",\"reasoning\":\"hmm ok\",\"tool_calls\":[{\"id\":\"AbC123xyZ\",\"name\":\"f\",\"args\":{\"a\":1}},"
         "{\"id\":\"QwE456rtY\",\"name\":\"g\",\"args\":{}}],\"stop\":\"tool_use\",\"usage\":{\"in\":9,\"out\":3}}"},
        {"groq: usage in x_groq, reasoning field", 1,
         {CH("{\"role\":\"assistant\",\"reasoning\":\"r1\"}", "null"),
          CH("{\"content\":\"t1\"}", "null"),
          "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"x_groq\":{\"id\":\"req_1\",\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}}",
          NULL},
         "{\"text\":\"t1\",\"reasoning\":\"r1\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{\"in\":5,\"out\":2}}"},
        {"deepseek cache hits, finish_reason without [DONE]", 0,
         {CH("{\"content\":\"a\"}", "null"),
          "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":339,"
          "\"completion_tokens\":83,\"prompt_cache_hit_tokens\":320,\"prompt_cache_miss_tokens\":19}}",
          NULL},
         "{\"text\":\"a\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"length\",\"usage\":{\"in\":19,\"out\":83,\"cache_read\":320}}"},
        {"stop after tool calls means tool_use; arguments sent as an object", 1,
         {CH("{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":{\"k\":[1,2]}}}]}", "null"),
          CH("{}", "\"stop\""), NULL},
         "{\"text\":\"\",\"reasoning\":\"\",\"tool_calls\":[{\"id\":\"c\",\"name\":\"f\",\"args\":{\"k\":[1,2]}}],\"stop\":\"tool_use\",\"usage\":{}}"},
        {"content filter", 1,
         {CH("{\"content\":\"I can\"}", "null"), CH("{}", "\"content_filter\""), NULL},
         "{\"text\":\"I can\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"content_filter\",\"usage\":{}}"},
        {"refusal", 1,
         {CH("{\"content\":null,\"refusal\":\"I cannot help with that.\"}", "null"), CH("{}", "\"stop\""), NULL},
         "{\"text\":\"I cannot help with that.\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"content_filter\",\"usage\":{}}"},
        {"a tool call without an id gets one; a reused index with a new id is a new call", 1,
         {CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}", "null"),
          CH("{\"tool_calls\":[{\"index\":0,\"id\":\"x1\",\"function\":{\"name\":\"g\",\"arguments\":\"{\\\"n\\\":1}\"}}]}", "null"),
          CH("{}", "\"tool_calls\""), NULL},
         "{\"text\":\"\",\"reasoning\":\"\",\"tool_calls\":[{\"id\":\"call_seam_0\",\"name\":\"f\",\"args\":{}},"
         "{\"id\":\"x1\",\"name\":\"g\",\"args\":{\"n\":1}}],\"stop\":\"tool_use\",\"usage\":{}}"},
        {"index-less calls without ids, several in one chunk; a reused index with a new name", 1,
         {CH("{\"tool_calls\":[{\"id\":\"\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}},"
             "{\"id\":\"\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]}", "null"),
          CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"h\",\"arguments\":\"{\\\"b\\\":2}\"}}]}", "null"),
          CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"k\",\"arguments\":\"\"}}]}", "null"),
          CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"c\\\":3}\"}}]}", "null"),
          CH("{}", "\"tool_calls\""), NULL},
         "{\"text\":\"\",\"reasoning\":\"\",\"tool_calls\":[{\"id\":\"call_seam_0\",\"name\":\"f\",\"args\":{\"a\":1}},"
         "{\"id\":\"call_seam_1\",\"name\":\"g\",\"args\":{}},{\"id\":\"call_seam_2\",\"name\":\"h\",\"args\":{\"b\":2}},"
         "{\"id\":\"call_seam_3\",\"name\":\"k\",\"args\":{\"c\":3}}],\"stop\":\"tool_use\",\"usage\":{}}"},
        {"second choice ignored, keep-alive noise", 1,
         {"{\"choices\":[{\"index\":1,\"delta\":{\"content\":\"other\"}},{\"index\":0,\"delta\":{\"content\":\"mine\"}}]}",
          CH("{}", "\"stop\""), NULL},
         "{\"text\":\"mine\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{}}"},
    };
    seam_request *req = tu_user_request("x");
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        char *body = sse(variants[i].done, variants[i].lines);
        for (size_t split = 0; split <= 1; split++) {
            fake_server_push_sse(srv, body, split);
            tu_call r = tu_run_stream(client, "oa", "m", req, 0);
            CU_ASSERT_EQUAL(r.status, SEAM_OK);
            CU_ASSERT(tu_summary_is(&r, variants[i].expect, variants[i].what));
            free(r.summary);
        }
        free(body);
    }
    seam_request_free(req);
}

/* A stream of the payload lines (sse: with [DONE] when done), split bytes a
 * write, as the answer of "oa" with model "m" to req. */
static tu_call stream_lines(int done, const char *const *lines, size_t split, const seam_request *req)
{
    char *body = sse(done, lines);
    fake_server_push_sse(srv, body, split);
    tu_call r = tu_run_stream(client, "oa", "m", req, 0);
    free(body);
    return r;
}

static void test_stream_cut_and_errors(void)
{
    seam_request *req = tu_user_request("x");
    /* no finish_reason, no [DONE]: the stream is incomplete */
    const char *const cut[] = {CH("{\"content\":\"partial\"}", "null"), NULL};
    tu_call r = stream_lines(0, cut, 0, req);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_TRANSPORT);
    CU_ASSERT_TRUE(r.incomplete);
    free(r.summary);

    /* an error object inside a 200 stream after some content */
    const char *const mid[] = {CH("{\"content\":\"Hel\"}", "null"),
                               "{\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\",\"code\":null}}",
                               NULL};
    r = stream_lines(0, mid, 1, req);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_TRUE(r.err.retryable);
    CU_ASSERT_STRING_EQUAL(r.err.message, "The server had an error");
    CU_ASSERT_STRING_EQUAL(r.err.provider, "oa");
    CU_ASSERT_TRUE(r.incomplete);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"text\":\"Hel\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"stop\":\"error\""));
    free(r.summary);

    /* OpenRouter style: the HTTP status as a numeric code, before any content */
    const char *const early[] = {"{\"error\":{\"code\":429,\"message\":\"Rate limit exceeded upstream\"}}", NULL};
    r = stream_lines(0, early, 0, req);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_TRUE(r.err.retryable);
    free(r.summary);

    /* context overflow reported in-stream */
    const char *const ctx[] = {"{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens\",\"type\":\"invalid_request_error\",\"code\":\"context_length_exceeded\"}}", NULL};
    r = stream_lines(0, ctx, 0, req);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_CONTEXT_OVERFLOW);
    CU_ASSERT_FALSE(r.err.retryable);
    CU_ASSERT_STRING_EQUAL(r.err.code, "context_length_exceeded");
    free(r.summary);

    /* garbage in the stream */
    const char *const junk[] = {"{not json", NULL};
    r = stream_lines(1, junk, 0, req);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "malformed"));
    free(r.summary);
    seam_request_free(req);
}

/* ---- <think> tags in content ------------------------------------------------- */

/* An SSE body whose content arrives as s cut at the given offsets (ascending),
 * then finish_reason "stop" (when finish) and [DONE]. */
static char *content_sse(const char *s, const size_t *cuts, size_t ncuts, int finish)
{
    strbuf b = {0};
    size_t len = strlen(s), from = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : len;
        json_object *delta = json_object_new_object();
        json_object_object_add(delta, "content", json_object_new_string_len(s + from, (int)(to - from)));
        json_object *choice = json_object_new_object();
        json_object_object_add(choice, "index", json_object_new_int(0));
        json_object_object_add(choice, "delta", delta);
        json_object_object_add(choice, "finish_reason", NULL);
        json_object *choices = json_object_new_array();
        json_object_array_add(choices, choice);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "choices", choices);
        sb_puts(&b, "data: ");
        sb_puts(&b, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        sb_puts(&b, "\n\n");
        json_object_put(o);
        from = to;
    }
    if (finish)
        sb_puts(&b, "data: " CH("{}", "\"stop\"") "\n\ndata: [DONE]\n\n");
    return b.data;
}

/* Streams s cut at cuts through provider; 1 when the result and the chunk
 * sequence are the expected ones (a mismatch is printed with the cuts). */
static int think_case(const char *provider, const char *s, const size_t *cuts, size_t ncuts,
                      const char *want_summary, const char *want_log)
{
    char *body = content_sse(s, cuts, ncuts, 1);
    fake_server_push_sse(srv, body, 0);
    seam_request *req = tu_user_request("6*7?");
    tu_call r = tu_run_stream(client, provider, "qwq", req, 0);
    int ok = r.status == SEAM_OK && r.summary && strcmp(r.summary, want_summary) == 0 &&
             (!want_log || strcmp(r.log, want_log) == 0);
    if (!ok) {
        fprintf(stderr, "\n%s, cuts", provider);
        for (size_t i = 0; i < ncuts; i++)
            fprintf(stderr, " %zu", cuts[i]);
        fprintf(stderr, ": status %d, got %s\n  log %s\n", r.status, r.summary ? r.summary : "(none)",
                r.log);
    }
    free(r.summary);
    seam_request_free(req);
    free(body);
    return ok;
}

static const char think_answer[] = "<think>Let me see: 6*7.</think>\n\nThe answer is <b>42</b>.";
static const char think_summary[] =
    "{\"text\":\"The answer is <b>42</b>.\",\"reasoning\":\"Let me see: 6*7.\",\"tool_calls\":[],"
    "\"stop\":\"stop\",\"usage\":{}}";
static const char think_log[] = "RS(reasoning_0) RD RE(reasoning_0) TD STOP(stop)";

/* The tags split across deltas at every byte: one byte per delta, every cut in
 * two, and every pair of cuts that splits both tags. */
static void test_think_tags_split(void)
{
    size_t len = strlen(think_answer);
    size_t every[sizeof think_answer];
    for (size_t i = 1; i < len; i++)
        every[i - 1] = i;
    CU_ASSERT_TRUE(think_case("ol", think_answer, every, len - 1, think_summary, think_log));
    CU_ASSERT_TRUE(think_case("ol", think_answer, NULL, 0, think_summary, think_log));
    int failed = 0;
    for (size_t i = 1; i < len && failed < 3; i++) {
        size_t cut[1] = {i};
        failed += !think_case("ol", think_answer, cut, 1, think_summary, think_log);
    }
    size_t close_at = (size_t)(strstr(think_answer, "</think>") - think_answer);
    for (size_t i = 1; i <= 7 && failed < 3; i++)
        for (size_t j = close_at; j <= close_at + 9 && failed < 3; j++) {
            size_t cuts[2] = {i, j};
            failed += !think_case("ol", think_answer, cuts, 2, think_summary, think_log);
        }
    CU_ASSERT_EQUAL(failed, 0);
}

static void test_think_tags_edges(void)
{
    static const struct {
        const char *what, *provider, *content;
        size_t cuts[4];
        size_t ncuts;
        const char *text, *reasoning;
    } cases[] = {
        {"whitespace before <think>", "ol", "\n \n<think>r</think>  t", {1, 3, 6}, 3, "t", "r"},
        {"a tag's beginning that is not one", "ol", "<this is text", {3}, 1, "<this is text", ""},
        {"<thinking> is not <think>", "ol", "<thinking about it", {6}, 1, "<thinking about it", ""},
        {"the content ends on a tag's beginning", "ol", "<thi", {2}, 1, "<thi", ""},
        {"a <think> after text is text", "ol", "Use <think> tags.", {4, 11}, 2, "Use <think> tags.", ""},
        {"whitespace only, then text", "ol", "\n\nHello", {2}, 1, "\n\nHello", ""},
        {"an unterminated <think> is reasoning", "ol", "<think>never ends", {12}, 1, "", "never ends"},
        {"ends on a closing tag's beginning", "ol", "<think>abc</th", {11}, 1, "", "abc</th"},
        {"a second <think> inside is reasoning", "ol", "<think>a<think>b</think>c", {9}, 1, "c", "a<think>b"},
        {"think_tags = false", "olnt", "<think>x</think>y", {3}, 1, "<think>x</think>y", ""},
        {"the openai profile: off", "oap", "<think>x</think>y", {0}, 0, "<think>x</think>y", ""},
        {"an unknown local server: on", "oa", "<think>x</think>y", {0}, 0, "y", "x"},
        {"vllm: on", "vl", "<think>x</think>y", {10}, 1, "y", "x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_object *want = json_object_new_object();
        json_object_object_add(want, "text", json_object_new_string(cases[i].text));
        json_object_object_add(want, "reasoning", json_object_new_string(cases[i].reasoning));
        json_object_object_add(want, "tool_calls", json_object_new_array());
        json_object_object_add(want, "stop", json_object_new_string("stop"));
        json_object_object_add(want, "usage", json_object_new_object());
        int ok = think_case(cases[i].provider, cases[i].content, cases[i].cuts, cases[i].ncuts,
                            json_object_to_json_string_ext(want, JSON_C_TO_STRING_PLAIN |
                                                                     JSON_C_TO_STRING_NOSLASHESCAPE),
                            NULL);
        if (!ok)
            fprintf(stderr, "  (case \"%s\")\n", cases[i].what);
        CU_ASSERT_TRUE(ok);
        json_object_put(want);
    }

    /* reasoning closes before a tool call, also with a closing tag's beginning held */
    const char *const tool_lines[] = {
        CH("{\"content\":\"<think>plan</th\"}", "null"),
        CH("{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}", "null"),
        CH("{}", "\"tool_calls\""), NULL};
    char *body = sse(1, tool_lines);
    fake_server_push_sse(srv, body, 0);
    seam_request *req = tu_user_request("x");
    tu_call r = tu_run_stream(client, "ol", "qwq", req, 0);
    CU_ASSERT_STRING_EQUAL(r.summary,
        "{\"text\":\"\",\"reasoning\":\"plan</th\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\",\"args\":{}}],"
        "\"stop\":\"tool_use\",\"usage\":{}}");
    CU_ASSERT_STRING_EQUAL(r.log, "RS(reasoning_0) RD RE(reasoning_0) TS(c1,f) TE(c1,{}) STOP(tool_use)");
    free(r.summary);
    free(body);

    /* a refusal after held text keeps the order */
    const char *const refusal_lines[] = {CH("{\"content\":\"<th\"}", "null"),
                                         CH("{\"refusal\":\"No.\"}", "null"), CH("{}", "\"stop\""), NULL};
    body = sse(1, refusal_lines);
    fake_server_push_sse(srv, body, 0);
    r = tu_run_stream(client, "ol", "qwq", req, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"text\":\"<thNo.\""));
    free(r.summary);
    free(body);

    /* a stream cut short: the held bytes are still part of the partial answer */
    body = content_sse("\n<thi", NULL, 0, 0);
    fake_server_push_sse(srv, body, 0);
    r = tu_run_stream(client, "ol", "qwq", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_TRUE(r.incomplete);
    CU_ASSERT_PTR_NOT_NULL(r.summary && strstr(r.summary, "\"text\":\"\\n<thi\""));
    free(r.summary);
    free(body);
    body = content_sse("<think>half a tho", NULL, 0, 0);
    fake_server_push_sse(srv, body, 0);
    r = tu_run_stream(client, "ol", "qwq", req, 0);
    CU_ASSERT_TRUE(r.incomplete);
    CU_ASSERT_PTR_NOT_NULL(r.summary && strstr(r.summary, "\"reasoning\":\"half a tho\""));
    free(r.summary);
    free(body);

    /* a whole (non-streamed) answer gives the same result as the stream */
    fake_server_push_json(srv, 200,
        "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
        "\"<think>Let me see: 6*7.</think>\\n\\nThe answer is <b>42</b>.\"},\"finish_reason\":\"stop\"}]}",
        NULL);
    r = tu_run_generate(client, "ol", "qwq", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.summary, think_summary);
    free(r.summary);
    fake_server_push_json(srv, 200,
        "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
        "\"<think>unfinished\"},\"finish_reason\":\"length\"}]}", NULL);
    r = tu_run_generate(client, "ol", "qwq", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"text\":\"\",\"reasoning\":\"unfinished\""));
    free(r.summary);
    fake_server_push_json(srv, 200,
        "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
        "\"<think>x</think>y\"},\"finish_reason\":\"stop\"}]}", NULL);
    r = tu_run_generate(client, "oap", "gpt-4o", req, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"text\":\"<think>x</think>y\""));
    free(r.summary);
    seam_request_free(req);
}

/* One tokener serves a whole stream: each parse starts afresh, even after one
 * that failed half-way. */
static void test_tokener_reuse(void)
{
    json_tokener *tok = json_tokener_new();
    CU_ASSERT_PTR_NULL(json_parse_with(tok, "{\"a\":[1,", 8));
    json_object *o = json_parse_with(tok, "{\"b\":2}", 7);
    CU_ASSERT_EQUAL(tu_json_int(o, "b"), 2);
    CU_ASSERT_FALSE(tu_json_has(o, "a"));
    json_object_put(o);
    CU_ASSERT_PTR_NULL(json_parse_with(tok, "{} x", 4));
    o = json_parse_with(tok, " [1] ", 5);
    CU_ASSERT_TRUE(json_object_is_type(o, json_type_array));
    json_object_put(o);
    json_tokener_free(tok);

    /* and a malformed event in a stream does not spoil the decoder's parser */
    oa_instance *in = create_with("local", "http://127.0.0.1:8080/v1", "{}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    oa_decoder *d = oa_decoder_new(in, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_PTR_NULL(d->tok); /* made on first use: the scanner needs none */
    seam_error err;
    seam_error_clear(&err);
    const char *half = "{\"choices\":[", *usage = "{\"choices\":[],\"usage\":{\"prompt_tokens\":3}}";
    seam_frame f = {NULL, half, strlen(half), NULL};
    CU_ASSERT_NOT_EQUAL(oa_decode_event(d, &f, NULL, &err), SEAM_OK);
    seam_frame g = {NULL, usage, strlen(usage), NULL};
    CU_ASSERT_EQUAL(oa_decode_event(d, &g, NULL, &err), SEAM_OK);
    CU_ASSERT_EQUAL(d->usage.input_tokens, 3);
    oa_decoder_free(d);
    oa_destroy(in);
}

/* ---- errors ------------------------------------------------------------------ */

/* The rate-limit headers of the RPM row: Retry-After and the request limit's. */
static const char rpm_headers[] =
    "Retry-After: 3\r\nx-ratelimit-limit-requests: 3\r\nx-ratelimit-remaining-requests: 0\r\nx-ratelimit-reset-requests: 20s\r\n";

/* Each row: the answer (status, body) on its first line, then its extra
 * headers and what the core must make of it. */
static void test_error_table(void)
{
    static const tu_http_error cases[] = {
        {400, "{\"error\":{\"message\":\"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.\",\"type\":\"invalid_request_error\",\"param\":\"messages\",\"code\":\"context_length_exceeded\"}}",
         NULL, SEAM_ERROR_CONTEXT_OVERFLOW, 0, "context_length_exceeded", "maximum context length"},
        {400, "{\"object\":\"error\",\"message\":\"Prompt contains 40000 tokens, too large for model with 32768 maximum context length\",\"type\":\"invalid_request_error\",\"code\":null}",
         NULL, SEAM_ERROR_CONTEXT_OVERFLOW, 0, "invalid_request_error", "too large"},
        {400, "{\"error\":{\"message\":\"Invalid value for 'temperature'\",\"type\":\"invalid_request_error\",\"param\":\"temperature\",\"code\":\"invalid_value\"}}",
         NULL, SEAM_ERROR_BAD_REQUEST, 0, "invalid_value", "temperature"},
        {400, "{\"error\":{\"message\":\"Your request was rejected as a result of our safety system\",\"type\":\"invalid_request_error\",\"code\":\"content_policy_violation\"}}",
         NULL, SEAM_ERROR_CONTENT_FILTER, 0, "content_policy_violation", "safety"},
        {401, "{\"error\":{\"message\":\"Incorrect API key provided: sk-test-**********-123. You can find your API key at https://platform.openai.com/account/api-keys.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}",
         NULL, SEAM_ERROR_AUTH, 0, "invalid_api_key", "Incorrect API key provided: <redacted>"},
        {403, "{\"error\":{\"message\":\"Country, region, or territory not supported\",\"type\":\"request_forbidden\",\"code\":\"unsupported_country_region_territory\"}}",
         NULL, SEAM_ERROR_AUTH, 0, "unsupported_country_region_territory", "Country"},
        {404, "{\"error\":{\"message\":\"The model `gpt-9` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}",
         NULL, SEAM_ERROR_MODEL_NOT_FOUND, 0, "model_not_found", "gpt-9"},
        {404, "{\"error\":\"model 'llama9' not found, try pulling it first\"}",
         NULL, SEAM_ERROR_MODEL_NOT_FOUND, 0, "", "llama9"},
        {429, "{\"error\":{\"message\":\"Rate limit reached for gpt-4o on requests per min (RPM): Limit 3, Used 3\",\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}",
         rpm_headers, SEAM_ERROR_RATE_LIMIT, 1, "rate_limit_exceeded", "Rate limit reached"},
        {429, "{\"error\":{\"message\":\"You exceeded your current quota, please check your plan and billing details.\",\"type\":\"insufficient_quota\",\"param\":null,\"code\":\"insufficient_quota\"}}",
         NULL, SEAM_ERROR_RATE_LIMIT, 0, "insufficient_quota", "quota"},
        {402, "{\"error\":{\"message\":\"Insufficient Balance\",\"type\":\"unknown_error\",\"param\":null,\"code\":\"invalid_request_error\"}}",
         NULL, SEAM_ERROR_RATE_LIMIT, 0, "invalid_request_error", "Insufficient Balance"},
        {408, "{\"error\":{\"message\":\"Request timed out\"}}",
         NULL, SEAM_ERROR_TIMEOUT, 1, "", "timed out"},
        {500, "{\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\"}}",
         NULL, SEAM_ERROR_OVERLOADED, 1, "server_error", "server had an error"},
        {503, "<html>Service Unavailable</html>",
         NULL, SEAM_ERROR_OVERLOADED, 1, "", "Service Unavailable"},
        {504, "",
         NULL, SEAM_ERROR_TIMEOUT, 1, "", "HTTP 504"},
        {413, "{\"error\":{\"message\":\"Request too large for model on tokens per minute (TPM): Limit 6000, Requested 9000\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}",
         NULL, SEAM_ERROR_RATE_LIMIT, 1, "rate_limit_exceeded", "tokens per minute"},
        {422, "{\"object\":\"error\",\"message\":{\"detail\":[{\"type\":\"extra_forbidden\",\"loc\":[\"body\",\"foo\"],\"msg\":\"Extra inputs are not permitted\"}]},\"type\":\"invalid_request_error\",\"param\":null,\"code\":null}",
         NULL, SEAM_ERROR_BAD_REQUEST, 0, "invalid_request_error", "Extra inputs"},
    };
    seam_request *req = tu_user_request("x");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_push_http_error(srv, &cases[i]);
        tu_call r = tu_run_stream(client, "oa", "gpt-4o", req, 0);
        CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
        tu_error_is(&r.err, &cases[i], "sk-test");
        CU_ASSERT_STRING_EQUAL(r.err.provider, "oa");
        if (cases[i].headers) {
            CU_ASSERT_EQUAL(r.err.retry_after_ms, 3000);
            CU_ASSERT_PTR_NOT_NULL(strstr(r.err.ratelimit, "x-ratelimit-reset-requests: 20s"));
            CU_ASSERT_PTR_NOT_NULL(strstr(r.err.ratelimit, "x-ratelimit-remaining-requests: 0"));
        }
        free(r.summary);
    }

    /* No Retry-After: the reset time of the exhausted limit stands in. */
    fake_server_push_json(srv, 429,
        "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}",
        "x-ratelimit-remaining-requests: 10\r\nx-ratelimit-reset-requests: 1s\r\n"
        "x-ratelimit-remaining-tokens: 0\r\nx-ratelimit-reset-tokens: 1m2.5s\r\n");
    tu_call r = tu_run_stream(client, "oa", "gpt-4o", req, 0);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_EQUAL(r.err.retry_after_ms, 62500);
    free(r.summary);
    seam_request_free(req);
}

static void test_unreachable_server(void)
{
    seam_request *req = tu_user_request("x");
    int64_t t0 = tu_now_ms();
    tu_call r = tu_run_stream(client, "dead", "llama3", req, 0);
    int64_t elapsed = tu_now_ms() - t0;
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_TRANSPORT);
    CU_ASSERT_TRUE(r.err.retryable);
    CU_ASSERT_TRUE(elapsed < 2500);
    free(r.summary);
    seam_request_free(req);
}

static const tu_test tests[] = {
    { "decode: absurd usage counts are bounded", test_usage_absurd_counts },
    { "decode: split at every byte", test_decode_split_everywhere },
    { "decode: whole equals stream", test_whole_equals_stream },
    { "decode: server variants", test_decode_variants },
    { "decode: cut streams and in-stream errors", test_stream_cut_and_errors },
    { "decode: <think> tags split at every byte", test_think_tags_split },
    { "decode: <think> tags, edges and profiles", test_think_tags_edges },
    { "decode: one tokener per decoder", test_tokener_reuse },
    { "errors: classification table", test_error_table },
    { "errors: unreachable server", test_unreachable_server },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("openai_decode", tests, start);
}
