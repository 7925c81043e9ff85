/* test_codec.c — the codec helper set of the plugin SDK (<seam/codec.h>,
 * plugin ABI 1.3), each function through libseam's exported symbol: the JSON
 * helpers, the [DONE] sentinel and finish reasons, usage from counts, the
 * tool-call assembler (chunks collected through a real emitter), the error
 * shapes of OpenAI-style servers, Anthropic and Google, the rate-limit
 * headers and durations, and provider text made safe for a message. The
 * in-tree codecs' own tests (test_openai, test_anthropic, test_gemini,
 * test_faults, the corpus) check that they behave as before on top of them. */
#include "config.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "transport.h" /* struct seam_emitter and seam_http_headers, to build them here */
#include <seam/codec.h>

/* ---- JSON ------------------------------------------------------------------ */

static void test_json_read(void)
{
    json_object *o = seam_json_read(" {\"a\": [1, 2], \"b\": \"x\"}\n", 25, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_STRING_EQUAL(seam_json_text(o), "{\"a\":[1,2],\"b\":\"x\"}");
    json_object_put(o);
    CU_ASSERT_PTR_NULL(seam_json_read("{} x", 4, 0));   /* trailing garbage */
    CU_ASSERT_PTR_NULL(seam_json_read("12", 1, 0));     /* a number cut at the end */
    CU_ASSERT_PTR_NULL(seam_json_read("{\"a\":", 5, 0)); /* a document cut */
    CU_ASSERT_PTR_NULL(seam_json_read(NULL, 3, 0));
    CU_ASSERT_PTR_NULL(seam_json_read("[[[1]]]", 7, 2)); /* deeper than allowed */
    o = seam_json_read("[[[1]]]", 7, 8);
    CU_ASSERT_PTR_NOT_NULL(o);
    json_object_put(o);

    json_tokener *tok = json_tokener_new();
    CU_ASSERT_PTR_NULL(seam_json_read_with(tok, "{\"a\":", 5));
    o = seam_json_read_with(tok, "{\"b\":2}", 7); /* the failed parse left nothing behind */
    int64_t n = 0;
    CU_ASSERT(seam_json_int(o, "b", &n) && n == 2);
    json_object_put(o);
    json_tokener_free(tok);
}

static void test_json_access(void)
{
    const char *t = "{\"s\":\"v\",\"i\":-3,\"d\":2.9,\"big\":1e30,\"nul\":null,\"n\":\"7\"}";
    json_object *o = seam_json_read(t, strlen(t), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_STRING_EQUAL(seam_json_string(o, "s"), "v");
    CU_ASSERT_PTR_NULL(seam_json_string(o, "i"));   /* not a string */
    CU_ASSERT_PTR_NULL(seam_json_get(o, "nul"));    /* JSON null reads as absent */
    CU_ASSERT_PTR_NULL(seam_json_get(o, "none"));
    CU_ASSERT_PTR_NULL(seam_json_get(seam_json_get(o, "s"), "x")); /* not an object */
    CU_ASSERT_PTR_NULL(seam_json_get(NULL, "s"));
    int64_t n = 0;
    CU_ASSERT(seam_json_int(o, "i", &n) && n == -3);
    CU_ASSERT(seam_json_int(o, "d", &n) && n == 2);              /* truncated */
    CU_ASSERT(seam_json_int(o, "big", &n) && n == INT64_MAX);     /* clamped, not undefined */
    CU_ASSERT_FALSE(seam_json_int(o, "n", &n));                   /* a string is no number */
    CU_ASSERT_FALSE(seam_json_int(o, "none", &n));
    json_object_put(o);
}

static void test_json_build(void)
{
    json_object *o = json_object_new_object();
    CU_ASSERT_EQUAL(seam_json_object_add(o, "url", json_object_new_string("a/b")), 0);
    CU_ASSERT_EQUAL(seam_json_object_add(o, "t", seam_json_double(0.7)), 0);
    json_object *arr = json_object_new_array();
    CU_ASSERT_EQUAL(seam_json_array_add(arr, json_object_new_int(1)), 0);
    CU_ASSERT_EQUAL(seam_json_object_add(o, "a", arr), 0);
    CU_ASSERT_STRING_EQUAL(seam_json_text(o), "{\"url\":\"a/b\",\"t\":0.7,\"a\":[1]}");
    json_object_put(o);

    /* A NULL container (a failed json_object_new_*) is an error, not an abort. */
    json_object *v = json_object_new_int(5);
    errno = 0;
    CU_ASSERT_EQUAL(seam_json_object_add(NULL, "k", v), -1);
    CU_ASSERT_EQUAL(errno, ENOMEM);
    errno = 0;
    CU_ASSERT_EQUAL(seam_json_array_add(NULL, v), -1);
    CU_ASSERT_EQUAL(errno, ENOMEM);
    json_object_put(v); /* still the caller's */
}

/* ---- streams and usage ------------------------------------------------------ */

static int is_done(const char *data)
{
    seam_frame f = {.data = data, .data_len = data ? strlen(data) : 0};
    return seam_sse_is_done(&f);
}

static void test_sse_done_and_finish(void)
{
    CU_ASSERT_TRUE(is_done("[DONE]"));
    CU_ASSERT_TRUE(is_done(" [DONE]\r\n"));
    CU_ASSERT_FALSE(is_done("[DONE]x"));
    CU_ASSERT_FALSE(is_done("{\"done\":true}"));
    CU_ASSERT_FALSE(is_done(""));
    CU_ASSERT_FALSE(is_done(NULL));
    CU_ASSERT_FALSE(seam_sse_is_done(NULL));

    CU_ASSERT_EQUAL(seam_stop_reason_from_wire(NULL), SEAM_STOP_NONE);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("stop"), SEAM_STOP_STOP);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("end_turn"), SEAM_STOP_STOP);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("STOP"), SEAM_STOP_STOP);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("length"), SEAM_STOP_LENGTH);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("max_tokens"), SEAM_STOP_LENGTH);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("MAX_TOKENS"), SEAM_STOP_LENGTH);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("tool_calls"), SEAM_STOP_TOOL_USE);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("tool_use"), SEAM_STOP_TOOL_USE);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("content_filter"), SEAM_STOP_CONTENT_FILTER);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("refusal"), SEAM_STOP_CONTENT_FILTER);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("SAFETY"), SEAM_STOP_CONTENT_FILTER);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("error"), SEAM_STOP_ERROR);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("MALFORMED_FUNCTION_CALL"), SEAM_STOP_ERROR);
    CU_ASSERT_EQUAL(seam_stop_reason_from_wire("a_reason_from_2030"), SEAM_STOP_STOP);
}

static void test_usage_from_counts(void)
{
    static const struct {
        const char *name;
        int64_t input, cache_read, cache_write, output, reasoning;
        int input_includes_cache;
        seam_usage want;
    } cases[] = {
        {"OpenAI: 100 prompt tokens of which 40 cached", 100, 40, -1, 20, 5, 1,
         {.present = SEAM_USAGE_INPUT | SEAM_USAGE_CACHE_READ | SEAM_USAGE_OUTPUT | SEAM_USAGE_REASONING,
          .input_tokens = 60, .cache_read_tokens = 40, .output_tokens = 20, .reasoning_tokens = 5}},
        {"Anthropic: input is net already; writes are their own count", 10, 40, 7, 3, -1, 0,
         {.present = SEAM_USAGE_INPUT | SEAM_USAGE_CACHE_READ | SEAM_USAGE_CACHE_WRITE | SEAM_USAGE_OUTPUT,
          .input_tokens = 10, .cache_read_tokens = 40, .cache_write_tokens = 7, .output_tokens = 3}},
        {"net of reads and writes when the prompt includes both", 50, 30, 10, -1, -1, 1,
         {.present = SEAM_USAGE_INPUT | SEAM_USAGE_CACHE_READ | SEAM_USAGE_CACHE_WRITE,
          .input_tokens = 10, .cache_read_tokens = 30, .cache_write_tokens = 10}},
        {"never negative", 5, 30, -1, -1, -1, 1,
         {.present = SEAM_USAGE_INPUT | SEAM_USAGE_CACHE_READ, .input_tokens = 0, .cache_read_tokens = 30}},
        /* an unknown count is not a zero */
        {"nothing given: nothing present", -1, -1, -1, -1, -1, 1, {.present = 0}},
        {"absurd counts are bounded", INT64_MAX, -1, -1, INT64_MAX, -1, 1,
         {.present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT, .input_tokens = SEAM_USAGE_COUNT_MAX,
          .output_tokens = SEAM_USAGE_COUNT_MAX}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        seam_usage u;
        seam_usage_from_counts(&u, cases[i].input, cases[i].cache_read, cases[i].cache_write, cases[i].output,
                               cases[i].reasoning, cases[i].input_includes_cache);
        if (!tu_usage_is(&u, &cases[i].want, __FILE__, __LINE__))
            fprintf(stderr, "  (%s)\n", cases[i].name);
    }
    seam_usage_from_counts(NULL, 1, 1, 1, 1, 1, 1); /* no crash */
}

/* ---- tool calls: chunks through a real emitter ---------------------------------- */

typedef struct collected {
    char log[2048];
    int hooks;
    int hook_rc;
    int stop_after; /* the emitter asks to stop at this chunk (0: never) */
    int n;
} collected;

static int collect(void *ud, const seam_chunk *c)
{
    collected *k = ud;
    size_t used = strlen(k->log);
    const char *type = c->type == SEAM_CHUNK_TOOL_CALL_START   ? "start"
                       : c->type == SEAM_CHUNK_TOOL_CALL_DELTA ? "delta"
                       : c->type == SEAM_CHUNK_TOOL_CALL_END   ? "end"
                                                                : "other";
    snprintf(k->log + used, sizeof k->log - used, "%s %s %s|", type, c->id ? c->id : "-",
             c->type == SEAM_CHUNK_TOOL_CALL_START ? c->name
             : c->type == SEAM_CHUNK_TOOL_CALL_END ? c->args_json
                                                   : c->text);
    return ++k->n == k->stop_after ? 42 : SEAM_OK;
}

static int hook(void *ud, seam_emitter *em)
{
    (void)em;
    collected *k = ud;
    k->hooks++;
    return k->hook_rc;
}

static void test_toolcalls_by_index(void)
{
    collected k = {0};
    seam_emitter em = {collect, &k, NULL, 0};
    seam_toolcalls *tc = seam_toolcalls_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(tc);
    seam_toolcalls_set_hook(tc, hook, &k);
    CU_ASSERT_EQUAL(seam_toolcalls_add(tc, &em, 0, "c1", NULL, "{\"ci"), SEAM_OK); /* no name yet: held */
    CU_ASSERT_STRING_EQUAL(k.log, "");
    CU_ASSERT_EQUAL(seam_toolcalls_add(tc, &em, 0, NULL, "weather", "ty\":"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_toolcalls_add(tc, &em, 0, NULL, NULL, " \"Oslo\"}"), SEAM_OK);
    /* index 0 again with another id: a server reusing the index, a new call */
    CU_ASSERT_EQUAL(seam_toolcalls_add(tc, &em, 0, "c2", "clock", ""), SEAM_OK);
    CU_ASSERT_EQUAL(seam_toolcalls_add(tc, &em, 1, NULL, "noid", "  "), SEAM_OK);
    CU_ASSERT_EQUAL(seam_toolcalls_count(tc), 3);
    CU_ASSERT_EQUAL(seam_toolcalls_finish(tc, &em), SEAM_OK);
    CU_ASSERT_EQUAL(k.hooks, 3);
    TU_STR_EQ(k.log,
                   "start c1 weather|delta c1 {\"city\":|delta c1  \"Oslo\"}|"
                   "start c2 clock|start call_seam_0 noid|delta call_seam_0   |"
                   "end c1 {\"city\":\"Oslo\"}|end c2 {}|end call_seam_0 {}|");
    /* A second finish ends nothing more; the calls stay counted. */
    k.log[0] = '\0';
    CU_ASSERT_EQUAL(seam_toolcalls_finish(tc, &em), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(k.log, "");
    CU_ASSERT_EQUAL(seam_toolcalls_count(tc), 3);
    seam_toolcalls_free(tc);
    seam_toolcalls_free(NULL);
}

static void test_toolcalls_without_index(void)
{
    collected k = {0};
    seam_emitter em = {collect, &k, NULL, 0};
    seam_toolcalls *tc = seam_toolcalls_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(tc);
    /* Mistral-style: whole calls by id, no index. */
    CU_ASSERT_EQUAL(seam_toolcalls_add(tc, &em, -1, "a1", "f", "{\"x\":"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_toolcalls_add(tc, &em, -1, "b2", "g", "not json"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_toolcalls_add(tc, &em, -1, "a1", NULL, "1}"), SEAM_OK); /* by its id */
    CU_ASSERT_EQUAL(seam_toolcalls_add(tc, &em, -1, NULL, NULL, "!"), SEAM_OK);  /* the latest */
    CU_ASSERT_EQUAL(seam_toolcalls_finish(tc, &em), SEAM_OK);
    TU_STR_EQ(k.log,
                   "start a1 f|delta a1 {\"x\":|start b2 g|delta b2 not json|delta a1 1}|"
                   "delta b2 !|end a1 {\"x\":1}|end b2 not json!|");
    seam_toolcalls_free(tc);
}

static void test_toolcalls_stop(void)
{
    /* The hook's refusal and the consumer's cancel come back as they are. */
    collected k = {.hook_rc = 7};
    seam_emitter em = {collect, &k, NULL, 0};
    seam_toolcalls *tc = seam_toolcalls_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(tc);
    seam_toolcalls_set_hook(tc, hook, &k);
    CU_ASSERT_EQUAL(seam_toolcalls_add(tc, &em, 0, "c1", "f", "{}"), 7);
    CU_ASSERT_STRING_EQUAL(k.log, "");
    seam_toolcalls_set_hook(tc, NULL, NULL);
    k.stop_after = 1;
    CU_ASSERT_EQUAL(seam_toolcalls_finish(tc, &em), 42);
    seam_toolcalls_free(tc);
    CU_ASSERT_EQUAL(seam_toolcalls_add(NULL, &em, 0, "x", "y", NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_toolcalls_finish(NULL, &em), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_toolcalls_count(NULL), 0);
}

/* ---- errors -------------------------------------------------------------------------- */

static void fresh(seam_error *e, int status)
{
    seam_error_clear(e);
    if (status)
        seam_error_from_http_status(e, status);
}

static void test_error_protocol(void)
{
    seam_error e;
    fresh(&e, 0);
    seam_strlcpy(e.provider, "x", sizeof e.provider);
    CU_ASSERT_EQUAL(seam_error_protocol(&e, "acme: bad %s", "event"), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_TRANSPORT);
    CU_ASSERT_TRUE(e.retryable);
    CU_ASSERT_STRING_EQUAL(e.code, "protocol_error");
    CU_ASSERT_STRING_EQUAL(e.message, "acme: bad event");
    CU_ASSERT_STRING_EQUAL(e.provider, ""); /* cleared first */
    CU_ASSERT_EQUAL(seam_error_protocol(NULL, "x"), SEAM_ERR_PROVIDER);
}

static void test_error_classify_fields(void)
{
    seam_error e;
    fresh(&e, 429);
    seam_error_classify_fields(&e, 429, "insufficient_quota", NULL, "You exceeded your current quota");
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_FALSE(e.retryable); /* out of money: waiting does not help */
    CU_ASSERT_STRING_EQUAL(e.code, "insufficient_quota");
    fresh(&e, 429);
    seam_error_classify_fields(&e, 429, NULL, "requests", "slow down");
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_TRUE(e.retryable);
    CU_ASSERT_STRING_EQUAL(e.code, "requests");
    fresh(&e, 400);
    seam_error_classify_fields(&e, 400, NULL, "invalid_request_error",
                               "This model's maximum context length is 8192 tokens");
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_CONTEXT_OVERFLOW);
    fresh(&e, 0);
    seam_error_classify_fields(&e, 0, "server_error", NULL, "oops");
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_OVERLOADED);
    fresh(&e, 404);
    seam_error_classify_fields(&e, 404, NULL, NULL, NULL);
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_MODEL_NOT_FOUND);
    fresh(&e, 0);
    seam_error_classify_fields(&e, 0, NULL, NULL, "something");
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_UNKNOWN);
    seam_error_classify_fields(NULL, 500, NULL, NULL, NULL); /* no crash */
}

static void test_error_classify_anthropic(void)
{
    seam_error e;
    fresh(&e, 400);
    seam_error_classify_anthropic(&e, 400, "invalid_request_error", "prompt is too long: 210000 tokens");
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_CONTEXT_OVERFLOW);
    CU_ASSERT_STRING_EQUAL(e.code, "invalid_request_error");
    fresh(&e, 529);
    seam_error_classify_anthropic(&e, 529, "overloaded_error", "Overloaded");
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_TRUE(e.retryable);
    fresh(&e, 0);
    seam_error_classify_anthropic(&e, 0, "rate_limit_error", NULL);
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_RATE_LIMIT);
    /* An unknown type keeps what the status said. */
    fresh(&e, 403);
    seam_error_classify_anthropic(&e, 403, "a_new_error", NULL);
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_AUTH);
    CU_ASSERT_STRING_EQUAL(e.code, "a_new_error");
}

static void test_error_classify_google(void)
{
    const char *t = "{\"code\":400,\"message\":\"API key not valid. Please pass a valid API key.\\n\","
                    "\"status\":\"INVALID_ARGUMENT\",\"details\":[{\"@type\":"
                    "\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"API_KEY_INVALID\"}]}";
    json_object *s = seam_json_read(t, strlen(t), 0);
    seam_error e;
    fresh(&e, 0);
    seam_error_classify_google(&e, s);
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_AUTH);
    CU_ASSERT_EQUAL(e.http_status, 400); /* from the status's code */
    CU_ASSERT_STRING_EQUAL(e.code, "INVALID_ARGUMENT");
    CU_ASSERT_STRING_EQUAL(e.message, "API key not valid. Please pass a valid API key.");
    json_object_put(s);

    t = "{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"message\":\"quota\",\"details\":["
        "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"12.5s\"}]}";
    s = seam_json_read(t, strlen(t), 0);
    fresh(&e, 429);
    seam_error_classify_google(&e, s);
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_EQUAL(e.retry_after_ms, 12500);
    json_object_put(s);
    seam_error_classify_google(&e, NULL); /* no crash */
}

static seam_http_headers *headers_of(seam_header *items, size_t n, seam_http_headers *h)
{
    h->items = items;
    h->n = n;
    return h;
}

static void test_error_classify_body(void)
{
    seam_error e;
    seam_http_headers h;
    char rl[] = "x-ratelimit-remaining-requests", zero[] = "0", rs[] = "x-ratelimit-reset-requests",
         six[] = "6m0s", other[] = "content-type", json[] = "application/json";
    seam_header items[] = {{rl, zero, 0}, {rs, six, 0}, {other, json, 0}};

    /* OpenAI: code, type, message; the reset time of the exhausted limit. */
    const char *b = "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\","
                    "\"code\":\"rate_limit_exceeded\"}}";
    fresh(&e, 429);
    seam_error_classify_body(&e, 429, headers_of(items, 3, &h), b, strlen(b), "acme: ");
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_STRING_EQUAL(e.code, "rate_limit_exceeded");
    CU_ASSERT_STRING_EQUAL(e.message, "acme: Rate limit reached");
    CU_ASSERT_EQUAL(e.retry_after_ms, 360000);
    CU_ASSERT_STRING_EQUAL(e.ratelimit,
                           "x-ratelimit-remaining-requests: 0\nx-ratelimit-reset-requests: 6m0s\n");

    /* Ollama's {"error": "text"}; Retry-After wins over the reset time. */
    char ra[] = "Retry-After", seven[] = "7";
    seam_header items2[] = {{ra, seven, 0}};
    b = "{\"error\":\"model 'x' not found, try pulling it first\"}";
    fresh(&e, 404);
    seam_error_classify_body(&e, 404, headers_of(items2, 1, &h), b, strlen(b), NULL);
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_MODEL_NOT_FOUND);
    CU_ASSERT_STRING_EQUAL(e.message, "model 'x' not found, try pulling it first");
    CU_ASSERT_EQUAL(e.retry_after_ms, 7000);
    CU_ASSERT_STRING_EQUAL(e.ratelimit, "Retry-After: 7\n");

    /* An error inside a 200 stream that carries its HTTP status as the code. */
    b = "{\"error\":{\"message\":\"upstream overloaded\",\"code\":503}}";
    fresh(&e, 0);
    seam_error_classify_body(&e, 200, NULL, b, strlen(b), NULL);
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_OVERLOADED);

    /* Anthropic. */
    b = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}";
    fresh(&e, 529);
    seam_error_classify_body(&e, 529, NULL, b, strlen(b), "anthropic: ");
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_STRING_EQUAL(e.code, "overloaded_error");
    CU_ASSERT_STRING_EQUAL(e.message, "anthropic: Overloaded");

    /* Google, in the array the non-SSE stream endpoint answers with. */
    b = "[{\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}]";
    fresh(&e, 503);
    seam_error_classify_body(&e, 503, NULL, b, strlen(b), NULL);
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_STRING_EQUAL(e.code, "UNAVAILABLE");
    CU_ASSERT_STRING_EQUAL(e.message, "The model is overloaded.");

    /* Not JSON: the status decides, an excerpt is kept. */
    b = "<html>\n<b>502 Bad Gateway</b></html>";
    fresh(&e, 502);
    seam_error_classify_body(&e, 502, NULL, b, strlen(b), "acme: ");
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_STRING_EQUAL(e.message, "acme: <html> <b>502 Bad Gateway</b></html>");

    /* Nothing at all. */
    fresh(&e, 0);
    seam_error_classify_body(&e, 401, NULL, NULL, 0, NULL);
    CU_ASSERT_EQUAL(e.kind, SEAM_ERROR_AUTH);
    CU_ASSERT_STRING_EQUAL(e.message, "HTTP 401");
    seam_error_classify_body(NULL, 401, NULL, NULL, 0, NULL); /* no crash */
}

static void test_error_keep_headers(void)
{
    seam_error e;
    seam_http_headers h;
    char a[] = "anthropic-ratelimit-tokens-remaining", av[] = "0", r[] = "retry-after", rv[] = "3",
         x[] = "x-other", xv[] = "1";
    seam_header items[] = {{a, av, 0}, {x, xv, 0}, {r, rv, 0}};
    fresh(&e, 429);
    seam_strlcpy(e.ratelimit, "retry-after: 3\n", sizeof e.ratelimit); /* kept by the core */
    seam_error_keep_headers(&e, headers_of(items, 3, &h), "anthropic-ratelimit-");
    CU_ASSERT_STRING_EQUAL(e.ratelimit, "retry-after: 3\nanthropic-ratelimit-tokens-remaining: 0\n");
    /* whole lines only */
    char big[600];
    memset(big, 'v', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    seam_header items2[] = {{a, big, 0}};
    fresh(&e, 429);
    seam_error_keep_headers(&e, headers_of(items2, 1, &h), "anthropic-");
    CU_ASSERT_STRING_EQUAL(e.ratelimit, "");
    seam_error_keep_headers(&e, NULL, "x-"); /* no crash */
}

static void test_parse_duration(void)
{
    static const struct {
        const char *text;
        int64_t ms; /* -1: refused */
    } cases[] = {
        {"6m0s", 360000}, {"20ms", 20}, {"1.5s", 1500}, {"1h2m3s", 3723000}, {"2", 2000},
        {"soon", -1},     {"-1s", -1},  {"nan", -1},    {"1e300h", -1},     {"", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t ms = seam_parse_duration_ms(cases[i].text);
        if (ms != cases[i].ms)
            fprintf(stderr, "\n  \"%s\": %lld ms\n", cases[i].text, (long long)ms);
        CU_ASSERT_EQUAL(ms, cases[i].ms);
    }
    CU_ASSERT_EQUAL(seam_parse_duration_ms(NULL), -1);
}

/* ---- provider text ------------------------------------------------------------------------ */

static void test_set_text(void)
{
    seam_error e;
    fresh(&e, 0);
    const char *t = "bad key sk-proj-abcdefghijklmnop.\tline\nnext";
    seam_error_set_text(&e, "acme: ", t, strlen(t), 0);
    CU_ASSERT_STRING_EQUAL(e.message, "acme: bad key <redacted>. line next");

    /* Cut to max bytes, never inside a character: "é" is two bytes. */
    t = "ab\xc3\xa9" "cd";
    seam_error_set_text(&e, NULL, t, strlen(t), 3);
    CU_ASSERT_STRING_EQUAL(e.message, "ab");
    seam_error_set_text(&e, NULL, t, strlen(t), 4);
    CU_ASSERT_STRING_EQUAL(e.message, "ab\xc3\xa9");
    /* ... nor where the message ends. */
    char longtext[1024];
    memset(longtext, 'x', sizeof longtext);
    memcpy(longtext + sizeof e.message - 3, "\xe2\x82\xac", 3); /* "€" across the end */
    seam_error_set_text(&e, "p", longtext, sizeof longtext, 0);
    CU_ASSERT_EQUAL(strlen(e.message), sizeof e.message - 2); /* "p", the x's, no half "€" */
    /* A character cut by the text's own end is dropped. */
    seam_error_set_text(&e, NULL, "ok\xe2\x82", 4, 0);
    CU_ASSERT_STRING_EQUAL(e.message, "ok");
    seam_error_set_text(&e, "only", NULL, 0, 0);
    CU_ASSERT_STRING_EQUAL(e.message, "only");
    seam_error_set_text(NULL, "x", "y", 1, 0); /* no crash */

    char s[] = "keys gsk_1234567890abcdef and xai-1234567890abcd, not task-force";
    seam_scrub_keys(s);
    CU_ASSERT_STRING_EQUAL(s, "keys <redacted> and <redacted>, not task-force");
    seam_scrub_keys(NULL);
}

/* RFC 4648 section 10's vectors, NULL for no bytes, and the two last
 * characters of the alphabet (+ and /, where base64url differs). */
static void test_base64_encode(void)
{
    static const struct {
        const char *in, *out;
    } rfc[] = {
        {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},         {"foo", "Zm9v"},
        {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
    };
    for (size_t i = 0; i < sizeof rfc / sizeof rfc[0]; i++) {
        char *got = seam_base64_encode((const unsigned char *)rfc[i].in, strlen(rfc[i].in));
        CU_ASSERT(TU_STR_EQ(got, rfc[i].out));
        free(got);
    }
    char *empty = seam_base64_encode(NULL, 0);
    CU_ASSERT(TU_STR_EQ(empty, ""));
    free(empty);
    unsigned char all[3] = {0xfb, 0xff, 0xbf};
    char *high = seam_base64_encode(all, sizeof all);
    CU_ASSERT(TU_STR_EQ(high, "+/+/"));
    free(high);
}

static const tu_test tests[] = {
    {"json: strict read", test_json_read},
    {"json: accessors", test_json_access},
    {"json: building", test_json_build},
    {"streams: [DONE] and finish reasons", test_sse_done_and_finish},
    {"usage: from counts, net of cache", test_usage_from_counts},
    {"tool calls: by index", test_toolcalls_by_index},
    {"tool calls: by id, without index", test_toolcalls_without_index},
    {"tool calls: hook and cancel", test_toolcalls_stop},
    {"errors: protocol", test_error_protocol},
    {"errors: OpenAI-style fields", test_error_classify_fields},
    {"errors: Anthropic types", test_error_classify_anthropic},
    {"errors: google.rpc.Status", test_error_classify_google},
    {"errors: whole bodies of every shape", test_error_classify_body},
    {"errors: rate-limit headers", test_error_keep_headers},
    {"errors: durations", test_parse_duration},
    {"text: safe, cut on a character", test_set_text},
    {"bytes: base64", test_base64_encode},
    {NULL, NULL},
};

int main(void)
{
    return tu_run_suite("codec", tests, NULL);
}
