/* test_types.c — unit tests of the seam types: errors and names, usage, messages
 * and parts, requests (validation, ownership, deep copies, strip_reasoning),
 * seam_json_is_valid, and the chunk accumulator of seam_result. */
#include "config.h"
#include "internal.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define ASSERT_STR(actual, expected) CU_ASSERT_STRING_EQUAL_FATAL((actual) ? (actual) : "<NULL>", expected)

/* ---- errors, names, usage ------------------------------------------------------- */

static void test_error_set(void)
{
    seam_error err;
    memset(&err, 0x5a, sizeof err);
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_NONE);
    CU_ASSERT_EQUAL(err.retryable, 0);
    CU_ASSERT_EQUAL(err.http_status, 0);
    CU_ASSERT_EQUAL(err.retry_after_ms, -1);
    CU_ASSERT_STRING_EQUAL(err.message, "");
    CU_ASSERT_STRING_EQUAL(err.code, "");

    CU_ASSERT_EQUAL(seam_error_set(&err, SEAM_ERROR_RATE_LIMIT, "slow down %d", 42),
                    SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_EQUAL(err.retryable, 1);
    CU_ASSERT_STRING_EQUAL(err.message, "slow down 42");

    CU_ASSERT_EQUAL(seam_error_set(&err, SEAM_ERROR_AUTH, "%s", "bad key"), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_AUTH);
    CU_ASSERT_EQUAL(err.retryable, 0);
    CU_ASSERT_STRING_EQUAL(err.message, "bad key");

    CU_ASSERT_EQUAL(seam_error_set(&err, SEAM_ERROR_CONF, "x.conf:3: oops"), SEAM_ERR_CONF);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CONF);

    /* A message longer than the field is cut, terminated. */
    char long_text[1000];
    memset(long_text, 'a', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    seam_error_set(&err, SEAM_ERROR_UNKNOWN, "%s", long_text);
    CU_ASSERT_EQUAL(strlen(err.message), sizeof err.message - 1);

    /* No error to fill: the status still comes back. */
    CU_ASSERT_EQUAL(seam_error_set(NULL, SEAM_ERROR_TIMEOUT, "t"), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(seam_error_set(NULL, SEAM_ERROR_CONF, "c"), SEAM_ERR_CONF);
    seam_error_clear(NULL);
}

static void test_error_kinds(void)
{
    static const struct {
        seam_error_kind kind;
        const char *name;
        int retryable;
    } table[] = {
        {SEAM_ERROR_NONE, "none", 0},
        {SEAM_ERROR_RATE_LIMIT, "rate_limit", 1},
        {SEAM_ERROR_OVERLOADED, "overloaded", 1},
        {SEAM_ERROR_TIMEOUT, "timeout", 1},
        {SEAM_ERROR_TRANSPORT, "transport", 1},
        {SEAM_ERROR_AUTH, "auth", 0},
        {SEAM_ERROR_BAD_REQUEST, "bad_request", 0},
        {SEAM_ERROR_CONTEXT_OVERFLOW, "context_overflow", 0},
        {SEAM_ERROR_MODEL_NOT_FOUND, "model_not_found", 0},
        {SEAM_ERROR_CONTENT_FILTER, "content_filter", 0},
        {SEAM_ERROR_CANCELLED, "cancelled", 0},
        {SEAM_ERROR_CONF, "conf", 0},
        {SEAM_ERROR_UNKNOWN, "unknown", 0},
        {SEAM_ERROR_RESOURCE, "resource", 0},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        CU_ASSERT_STRING_EQUAL(seam_error_kind_name(table[i].kind), table[i].name);
        CU_ASSERT_EQUAL(seam_error_kind_retryable(table[i].kind), table[i].retryable);
        seam_error err;
        seam_error_clear(&err);
        seam_error_set(&err, table[i].kind, "m");
        CU_ASSERT_EQUAL(err.retryable, table[i].retryable);
    }
    CU_ASSERT_STRING_EQUAL(seam_error_kind_name((seam_error_kind)999), "unknown");
    CU_ASSERT_STRING_EQUAL(seam_error_kind_name((seam_error_kind)-1), "unknown");
    CU_ASSERT_EQUAL(seam_error_kind_retryable((seam_error_kind)999), 0);
}

static void test_stop_reason_names(void)
{
    static const struct {
        seam_stop_reason reason;
        const char *name;
    } table[] = {
        {SEAM_STOP_NONE, "none"},
        {SEAM_STOP_STOP, "stop"},
        {SEAM_STOP_LENGTH, "length"},
        {SEAM_STOP_TOOL_USE, "tool_use"},
        {SEAM_STOP_CONTENT_FILTER, "content_filter"},
        {SEAM_STOP_ERROR, "error"},
        {(seam_stop_reason)77, "none"}, /* out of range */
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        CU_ASSERT(TU_STR_EQ(seam_stop_reason_name(table[i].reason), table[i].name));
}

static void test_chunk_type_names(void)
{
    static const char *const names[] = {
        [SEAM_CHUNK_TEXT_DELTA] = "text_delta",
        [SEAM_CHUNK_REASONING_START] = "reasoning_start",
        [SEAM_CHUNK_REASONING_DELTA] = "reasoning_delta",
        [SEAM_CHUNK_REASONING_END] = "reasoning_end",
        [SEAM_CHUNK_TOOL_CALL_START] = "tool_call_start",
        [SEAM_CHUNK_TOOL_CALL_DELTA] = "tool_call_delta",
        [SEAM_CHUNK_TOOL_CALL_END] = "tool_call_end",
        [SEAM_CHUNK_MEDIA_START] = "media_start",
        [SEAM_CHUNK_MEDIA_DELTA] = "media_delta",
        [SEAM_CHUNK_MEDIA_END] = "media_end",
        [SEAM_CHUNK_TOOL_RESULT] = "tool_result",
        [SEAM_CHUNK_STOP] = "stop",
        [SEAM_CHUNK_ERROR] = "error",
        [SEAM_CHUNK_STREAM_START] = "stream_start",
        [SEAM_CHUNK_STEP_FINISH] = "step_finish",
    };
    for (int t = SEAM_CHUNK_TEXT_DELTA; t <= SEAM_CHUNK_STEP_FINISH; t++)
        CU_ASSERT_STRING_EQUAL(seam_chunk_type_name((seam_chunk_type)t), names[t]);
    CU_ASSERT_STRING_EQUAL(seam_chunk_type_name((seam_chunk_type)0), "unknown");
    CU_ASSERT_STRING_EQUAL(seam_chunk_type_name((seam_chunk_type)99), "unknown");
}

static void test_usage_add(void)
{
    seam_usage sum = {0};
    seam_usage a = {.present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT,
                    .input_tokens = 10, .output_tokens = 20};
    seam_usage_add(&sum, &a);
    TU_ASSERT_USAGE(&sum, .present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT, .input_tokens = 10,
                    .output_tokens = 20);

    /* A count present in only one side is present in the sum; counts whose bit
     * is absent are meaningless and must not leak into the sum. */
    seam_usage b = {.present = SEAM_USAGE_OUTPUT | SEAM_USAGE_CACHE_READ | SEAM_USAGE_COST,
                    .input_tokens = 1000, /* no INPUT bit: ignored */
                    .output_tokens = 5, .cache_read_tokens = 7, .cost_microcents = 300,
                    .reasoning_tokens = 999 /* no REASONING bit: ignored */};
    seam_usage_add(&sum, &b);
    /* The present bits compared whole: neither REASONING nor CACHE_WRITE. */
    TU_ASSERT_USAGE(&sum, .present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT | SEAM_USAGE_CACHE_READ | SEAM_USAGE_COST,
                    .input_tokens = 10, .output_tokens = 25, .cache_read_tokens = 7, .cost_microcents = 300);
    CU_ASSERT_EQUAL(sum.reasoning_tokens, 0);

    /* A count absent from the sum starts from the added one, not from whatever
     * the sum's field held. */
    seam_usage stale = {.present = 0, .cache_write_tokens = 77};
    seam_usage w = {.present = SEAM_USAGE_CACHE_WRITE, .cache_write_tokens = 3};
    seam_usage_add(&stale, &w);
    TU_ASSERT_USAGE(&stale, .present = SEAM_USAGE_CACHE_WRITE, .cache_write_tokens = 3);

    /* Nothing present in either: nothing becomes present. */
    seam_usage empty = {0}, none = {0};
    seam_usage_add(&empty, &none);
    CU_ASSERT_EQUAL(empty.present, 0);

    seam_usage_add(NULL, &a);
    seam_usage_add(&sum, NULL);
    CU_ASSERT_EQUAL(sum.input_tokens, 10);
}

/* ---- seam_json_is_valid ----------------------------------------------------------- */

static void test_json_is_valid(void)
{
    static const struct {
        const char *text;
        int any, object;
    } table[] = {
        {"{}", 1, 1},
        {" {\"a\": [1, 2.5, true, null, \"x\"]} \n", 1, 1},
        {"[1,2]", 1, 0},
        {"42", 1, 0},
        {"-1.5e3", 1, 0},
        {"\"str\"", 1, 0},
        {"null", 1, 0},
        {"true", 1, 0},
        {"", 0, 0},
        {"   ", 0, 0},
        {"{", 0, 0},
        {"{\"a\":1,}", 0, 0},
        {"[1,]", 0, 0},
        {"{} x", 0, 0},
        {"{}{}", 0, 0},
        {"'single'", 0, 0},
        {"bare", 0, 0},
        {"0123", 0, 0},
        {"{\"a\":\"\xff\"}", 0, 0}, /* not UTF-8 */
        {"[\"\\u00\"]", 0, 0},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        CU_ASSERT_EQUAL(seam_json_is_valid(table[i].text, 0), table[i].any);
        CU_ASSERT_EQUAL(seam_json_is_valid(table[i].text, 1), table[i].object);
        if (seam_json_is_valid(table[i].text, 0) != table[i].any)
            fprintf(stderr, "\njson_is_valid(\"%s\") wrong\n", table[i].text);
    }
    CU_ASSERT_EQUAL(seam_json_is_valid(NULL, 0), 0);

    /* Deeper than json-c's default depth of 32 (real JSON Schemas nest). */
    char deep[2 * 100 + 1];
    for (int i = 0; i < 100; i++) {
        deep[i] = '[';
        deep[100 + i] = ']';
    }
    deep[200] = '\0';
    CU_ASSERT_EQUAL(seam_json_is_valid(deep, 0), 1);
}

/* ---- messages and parts ----------------------------------------------------------- */

static void test_message_new_free(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_USER);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 0);
    CU_ASSERT_PTR_NULL(seam_message_part(m, 0));
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "");
    seam_message_free(m);

    m = seam_message_new(SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_ASSISTANT);
    seam_message_free(m);
    m = seam_message_new(SEAM_ROLE_TOOL);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_TOOL);
    seam_message_free(m);

    CU_ASSERT_PTR_NULL(seam_message_new((seam_role)0));
    CU_ASSERT_PTR_NULL(seam_message_new((seam_role)4));
    seam_message_free(NULL);
    CU_ASSERT_PTR_NULL(seam_message_dup(NULL));
    CU_ASSERT_EQUAL(seam_message_part_count(NULL), 0);
    CU_ASSERT_STRING_EQUAL(seam_message_text(NULL), "");
}

/* What a part answers, accessor by accessor (NULL, 0: nothing there). */
typedef struct part_want {
    seam_part_type type;
    const char *text, *signature, *tool_call_id, *tool_name, *args_json, *result_json, *mime_type, *media_data;
    int redacted, is_error, provider_executed;
    seam_media_source media_source;
} part_want;

/* p answers every accessor as w says: one assertion an accessor, each
 * difference printed with the caller's line. */
static void part_is(const seam_part *p, const part_want *w, int line)
{
    const struct {
        const char *name, *got, *want;
    } strs[] = {
        {"text", seam_part_text(p), w->text},
        {"signature", seam_part_signature(p), w->signature},
        {"tool_call_id", seam_part_tool_call_id(p), w->tool_call_id},
        {"tool_name", seam_part_tool_name(p), w->tool_name},
        {"args_json", seam_part_args_json(p), w->args_json},
        {"result_json", seam_part_result_json(p), w->result_json},
        {"mime_type", seam_part_mime_type(p), w->mime_type},
        {"media_data", seam_part_media_data(p), w->media_data},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        int ok = strs[i].got && strs[i].want ? strcmp(strs[i].got, strs[i].want) == 0 : strs[i].got == strs[i].want;
        if (!ok)
            fprintf(stderr, "\n  line %d: part %s \"%s\", want \"%s\"\n", line, strs[i].name,
                    strs[i].got ? strs[i].got : "(null)", strs[i].want ? strs[i].want : "(null)");
        CU_ASSERT(ok);
    }
    const struct {
        const char *name;
        int got, want;
    } ints[] = {
        {"type", (int)seam_part_get_type(p), (int)w->type},
        {"redacted", seam_part_redacted(p), w->redacted},
        {"is_error", seam_part_is_error(p), w->is_error},
        {"provider_executed", seam_part_provider_executed(p), w->provider_executed},
        {"media_source", (int)seam_part_media_source(p), (int)w->media_source},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        if (ints[i].got != ints[i].want)
            fprintf(stderr, "\n  line %d: part %s %d, want %d\n", line, ints[i].name, ints[i].got, ints[i].want);
        CU_ASSERT_EQUAL(ints[i].got, ints[i].want);
    }
}
#define ASSERT_PART(p, ...) part_is((p), &(const part_want){ __VA_ARGS__ }, __LINE__)

static void test_message_parts(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL(seam_message_add_text(m, "Hello"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_reasoning(m, "thinking", "sig1", 0), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_reasoning(m, "opaque==", NULL, 1), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_tool_call(m, "call_1", "get_weather", "{\"city\":\"Paris\"}"),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_tool_result(m, "call_1", "get_weather", "{\"t\":21}", 1),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_media(m, "image/png", SEAM_MEDIA_BASE64, "iVBORw0KGgo="),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_media(m, "image/jpeg", SEAM_MEDIA_URL, "https://x/y.jpg"),
                    SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 7);

    /* Each part answers what it holds, and nothing for what it does not. */
    ASSERT_PART(seam_message_part(m, 0), .type = SEAM_PART_TEXT, .text = "Hello");
    ASSERT_PART(seam_message_part(m, 1), .type = SEAM_PART_REASONING, .text = "thinking", .signature = "sig1");
    ASSERT_PART(seam_message_part(m, 2), .type = SEAM_PART_REASONING, .text = "opaque==", .redacted = 1);
    ASSERT_PART(seam_message_part(m, 3), .type = SEAM_PART_TOOL_CALL, .tool_call_id = "call_1",
                .tool_name = "get_weather", .args_json = "{\"city\":\"Paris\"}");
    ASSERT_PART(seam_message_part(m, 4), .type = SEAM_PART_TOOL_RESULT, .tool_call_id = "call_1",
                .tool_name = "get_weather", .result_json = "{\"t\":21}", .is_error = 1);
    ASSERT_PART(seam_message_part(m, 5), .type = SEAM_PART_MEDIA, .mime_type = "image/png",
                .media_source = SEAM_MEDIA_BASE64, .media_data = "iVBORw0KGgo=");
    ASSERT_PART(seam_message_part(m, 6), .type = SEAM_PART_MEDIA, .mime_type = "image/jpeg",
                .media_source = SEAM_MEDIA_URL, .media_data = "https://x/y.jpg");

    CU_ASSERT_PTR_NULL(seam_message_part(m, 7));
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "Hello");

    /* NULL parts read as empty. */
    CU_ASSERT_EQUAL(seam_part_get_type(NULL), 0);
    CU_ASSERT_PTR_NULL(seam_part_text(NULL));
    CU_ASSERT_PTR_NULL(seam_part_args_json(NULL));
    CU_ASSERT_EQUAL(seam_part_is_error(NULL), 0);
    seam_message_free(m);
}

static void test_message_copies_strings(void)
{
    char text[] = "original", id[] = "id1", args[] = "{\"k\":1}";
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    seam_message_add_text(m, text);
    seam_message_add_tool_call(m, id, "f", args);
    text[0] = id[0] = 'X';
    args[2] = 'Z';
    ASSERT_STR(seam_part_text(seam_message_part(m, 0)), "original");
    ASSERT_STR(seam_part_tool_call_id(seam_message_part(m, 1)), "id1");
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 1)), "{\"k\":1}");
    seam_message_free(m);
}

static void test_message_text_concatenation(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_text(m, "one ");
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "one ");
    seam_message_add_reasoning(m, "hidden", NULL, 0);
    seam_message_add_tool_call(m, "c", "f", NULL);
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "one ");
    seam_message_add_text(m, "two ");
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "one two ");
    seam_message_add_text(m, "");
    seam_message_add_text(m, "three");
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "one two three");
    seam_message *copy = seam_message_dup(m);
    seam_message_add_text(m, "!");
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "one two three!");
    CU_ASSERT_STRING_EQUAL(seam_message_text(copy), "one two three");
    seam_message_free(copy);
    seam_message_free(m);
}

static void test_message_args_normalized(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL(seam_message_add_tool_call(m, "a", "f", NULL), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_tool_call(m, "b", "f", ""), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_tool_call(m, "c", "f", " { \"x\" : [1, 2] } "), SEAM_OK);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 0)), "{}");
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 1)), "{}");
    /* The caller's text is kept as given, not reserialized. */
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 2)), " { \"x\" : [1, 2] } ");
    seam_message_free(m);
}

static void test_message_tool_results_any_json(void)
{
    static const char *const values[] = {"\"a bare string\"", "42", "null", "[1,{}]", "{}",
                                         "false"};
    /* Tool results may live in a tool message or a user message. */
    seam_role roles[] = {SEAM_ROLE_TOOL, SEAM_ROLE_USER};
    for (size_t r = 0; r < 2; r++) {
        seam_message *m = seam_message_new(roles[r]);
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
            CU_ASSERT_EQUAL(seam_message_add_tool_result(m, "c1", NULL, values[i], 0), SEAM_OK);
        CU_ASSERT_EQUAL(seam_message_part_count(m), sizeof values / sizeof values[0]);
        const seam_part *p = seam_message_part(m, 0);
        ASSERT_STR(seam_part_result_json(p), "\"a bare string\"");
        CU_ASSERT_PTR_NULL(seam_part_tool_name(p));
        CU_ASSERT_EQUAL(seam_part_is_error(p), 0);
        seam_message_free(m);
    }
}

/* Every failing add returns SEAM_ERR_INVALID and leaves the message as it was. */
static void test_message_validation(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_text(m, "keep");
    seam_message_add_text(m, " me");

#define EXPECT_INVALID(call)                                                                  \
    do {                                                                                      \
        CU_ASSERT_EQUAL(call, SEAM_ERR_INVALID);                                              \
        CU_ASSERT_EQUAL(seam_message_part_count(m), 2);                                       \
        CU_ASSERT_STRING_EQUAL(seam_message_text(m), "keep me");                              \
    } while (0)

    EXPECT_INVALID(seam_message_add_text(m, NULL));
    EXPECT_INVALID(seam_message_add_reasoning(m, NULL, "sig", 0));
    EXPECT_INVALID(seam_message_add_tool_call(m, NULL, "f", "{}"));
    EXPECT_INVALID(seam_message_add_tool_call(m, "id", NULL, "{}"));
    EXPECT_INVALID(seam_message_add_tool_call(m, "id", "f", "[1,2]"));
    EXPECT_INVALID(seam_message_add_tool_call(m, "id", "f", "\"str\""));
    EXPECT_INVALID(seam_message_add_tool_call(m, "id", "f", "{\"a\":"));
    EXPECT_INVALID(seam_message_add_tool_call(m, "id", "f", "not json"));
    EXPECT_INVALID(seam_message_add_tool_call(m, "id", "f", "{} {}"));
    EXPECT_INVALID(seam_message_add_tool_result(m, NULL, "f", "{}", 0));
    EXPECT_INVALID(seam_message_add_tool_result(m, "id", "f", NULL, 0));
    EXPECT_INVALID(seam_message_add_tool_result(m, "id", "f", "", 0));
    EXPECT_INVALID(seam_message_add_tool_result(m, "id", "f", "bare words", 0));
    EXPECT_INVALID(seam_message_add_media(m, NULL, SEAM_MEDIA_URL, "https://x"));
    EXPECT_INVALID(seam_message_add_media(m, "", SEAM_MEDIA_URL, "https://x"));
    EXPECT_INVALID(seam_message_add_media(m, "image/png", (seam_media_source)0, "x"));
    EXPECT_INVALID(seam_message_add_media(m, "image/png", (seam_media_source)4, "x"));
    EXPECT_INVALID(seam_message_add_media(m, "image/png", SEAM_MEDIA_BASE64, NULL));
#undef EXPECT_INVALID

    CU_ASSERT_EQUAL(seam_message_add_text(NULL, "x"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_add_reasoning(NULL, "x", NULL, 0), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_add_tool_call(NULL, "i", "f", NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_add_tool_result(NULL, "i", "f", "1", 0), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_add_media(NULL, "a/b", SEAM_MEDIA_URL, "u"), SEAM_ERR_INVALID);
    seam_message_free(m);
}

static void test_message_dup_deep(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_text(m, "a");
    seam_message_add_reasoning(m, "r", "sig", 1);
    seam_message_add_tool_call(m, "c1", "f", "{\"x\":1}");
    seam_message_add_tool_result(m, "c1", "f", "[true]", 1);
    seam_message_add_media(m, "audio/wav", SEAM_MEDIA_BASE64, "UklGRg==");
    seam_message_add_text(m, "b");
    CU_ASSERT_EQUAL(seam_message_set_part_provider_executed(m, 2, 1), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_set_part_provider_executed(m, 3, 1), SEAM_OK);

    seam_message *copy = seam_message_dup(m);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    /* Changing and then freeing the original must not touch the copy. */
    seam_message_append_part_text(m, 0, "zzz", 3);
    seam_message_set_part_args(m, 2, "{\"changed\":true}");
    seam_message_free(m);

    CU_ASSERT_EQUAL(seam_message_role(copy), SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(copy), 6);
    ASSERT_STR(seam_part_text(seam_message_part(copy, 0)), "a");
    const seam_part *p = seam_message_part(copy, 1);
    ASSERT_STR(seam_part_text(p), "r");
    ASSERT_STR(seam_part_signature(p), "sig");
    CU_ASSERT_EQUAL(seam_part_redacted(p), 1);
    p = seam_message_part(copy, 2);
    ASSERT_STR(seam_part_args_json(p), "{\"x\":1}");
    CU_ASSERT_EQUAL(seam_part_provider_executed(p), 1);
    p = seam_message_part(copy, 3);
    ASSERT_STR(seam_part_result_json(p), "[true]");
    CU_ASSERT_EQUAL(seam_part_is_error(p), 1);
    CU_ASSERT_EQUAL(seam_part_provider_executed(p), 1);
    p = seam_message_part(copy, 4);
    ASSERT_STR(seam_part_mime_type(p), "audio/wav");
    CU_ASSERT_EQUAL(seam_part_media_source(p), SEAM_MEDIA_BASE64);
    ASSERT_STR(seam_part_media_data(p), "UklGRg==");
    CU_ASSERT_STRING_EQUAL(seam_message_text(copy), "ab");
    seam_message_free(copy);
}

static void test_message_mutators(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_text(m, "first");
    seam_message_add_reasoning(m, "r", NULL, 0);
    seam_message_add_tool_call(m, "c", "f", NULL);
    seam_message_add_text(m, "last");

    /* Appending to a text part that is not the last one keeps the joined text right. */
    CU_ASSERT_EQUAL(seam_message_append_part_text(m, 0, "+1", 2), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "first+1last");
    CU_ASSERT_EQUAL(seam_message_append_part_text(m, 3, "+2", 2), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "first+1last+2");
    CU_ASSERT_EQUAL(seam_message_append_part_text(m, 1, "easoning", 8), SEAM_OK);
    ASSERT_STR(seam_part_text(seam_message_part(m, 1)), "reasoning");
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "first+1last+2");
    CU_ASSERT_EQUAL(seam_message_append_part_text(m, 2, "x", 1), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_append_part_text(m, 9, "x", 1), SEAM_ERR_INVALID);

    CU_ASSERT_EQUAL(seam_message_set_part_signature(m, 1, "s", 1), SEAM_OK);
    ASSERT_STR(seam_part_signature(seam_message_part(m, 1)), "s");
    CU_ASSERT_EQUAL(seam_part_redacted(seam_message_part(m, 1)), 1);
    CU_ASSERT_EQUAL(seam_message_set_part_signature(m, 1, NULL, 0), SEAM_OK);
    CU_ASSERT_PTR_NULL(seam_part_signature(seam_message_part(m, 1)));
    CU_ASSERT_EQUAL(seam_message_set_part_signature(m, 0, "s", 0), SEAM_ERR_INVALID);

    CU_ASSERT_EQUAL(seam_message_set_part_args(m, 2, "{\"a\":1}"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_set_part_args(m, 2, "[1]"), SEAM_ERR_INVALID);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 2)), "{\"a\":1}");
    CU_ASSERT_EQUAL(seam_message_set_part_args(m, 2, NULL), SEAM_OK);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 2)), "{}");
    CU_ASSERT_EQUAL(seam_message_set_part_args(m, 0, "{}"), SEAM_ERR_INVALID);

    CU_ASSERT_EQUAL(seam_message_set_part_provider_executed(m, 0, 1), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_set_part_provider_executed(m, 2, 7), SEAM_OK);
    CU_ASSERT_EQUAL(seam_part_provider_executed(seam_message_part(m, 2)), 1);

    CU_ASSERT_EQUAL(seam_message_strip_reasoning(m), 1);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 3);
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "first+1last+2");
    CU_ASSERT_EQUAL(seam_message_strip_reasoning(m), 0);
    seam_message_free(m);
}

/* ---- requests --------------------------------------------------------------------- */

static void test_request_defaults(void)
{
    seam_request *r = seam_request_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_PTR_NULL(seam_request_model(r));
    CU_ASSERT_PTR_NULL(seam_request_system(r));
    CU_ASSERT_EQUAL(seam_request_message_count(r), 0);
    CU_ASSERT_PTR_NULL(seam_request_message(r, 0));
    CU_ASSERT_EQUAL(seam_request_tool_count(r), 0);
    CU_ASSERT_PTR_NULL(seam_request_tool_name(r, 0));
    const char *name = "sentinel";
    CU_ASSERT_EQUAL(seam_request_tool_choice(r, &name), SEAM_TOOL_CHOICE_AUTO);
    CU_ASSERT_PTR_NULL(name);
    double t = 7;
    CU_ASSERT_EQUAL(seam_request_temperature(r, &t), 0);
    CU_ASSERT_EQUAL(t, 7);
    CU_ASSERT_EQUAL(seam_request_max_tokens(r), 0);
    CU_ASSERT_EQUAL(seam_request_stop_count(r), 0);
    const char *schema = "sentinel";
    int strict = 5;
    name = "sentinel";
    CU_ASSERT_EQUAL(seam_request_response_format(r, &name, &schema, &strict), SEAM_FORMAT_TEXT);
    CU_ASSERT_PTR_NULL(name);
    CU_ASSERT_PTR_NULL(schema);
    CU_ASSERT_EQUAL(strict, 0);
    CU_ASSERT_PTR_NULL(seam_request_provider_options(r));
    CU_ASSERT_EQUAL(seam_request_reasoning_budget(r), 0);
    seam_request_free(r);
    seam_request_free(NULL);
    CU_ASSERT_PTR_NULL(seam_request_dup(NULL));
}

static seam_request *full_request(void)
{
    seam_request *r = seam_request_new();
    CU_ASSERT_EQUAL(seam_request_set_model(r, "gpt-x"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_system(r, "Be brief."), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_user_text(r, "Weather in Paris?"), SEAM_OK);
    seam_message *a = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_reasoning(a, "user wants weather", "sig", 0);
    seam_message_add_tool_call(a, "call_1", "get_weather", "{\"city\":\"Paris\"}");
    CU_ASSERT_EQUAL(seam_request_add_message(r, a), SEAM_OK);
    seam_message *t = seam_message_new(SEAM_ROLE_TOOL);
    seam_message_add_tool_result(t, "call_1", "get_weather", "{\"c\":21}", 0);
    CU_ASSERT_EQUAL(seam_request_add_message(r, t), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, "get_weather", "Current weather",
                                          "{\"type\":\"object\",\"properties\":{\"city\":"
                                          "{\"type\":\"string\"}}}"),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, "noop", NULL, NULL), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(r, SEAM_TOOL_CHOICE_NAMED, "get_weather"),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_temperature(r, 0.25), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_max_tokens(r, 512), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_stop(r, "END"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_stop(r, "\n\n"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_response_format(r, SEAM_FORMAT_JSON, "answer",
                                                     "{\"type\":\"object\"}", 9),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_provider_options(r, "{\"seed\":7}"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_reasoning_budget(r, 2048), SEAM_OK);
    return r;
}

static void check_full_request(const seam_request *r)
{
    ASSERT_STR(seam_request_model(r), "gpt-x");
    ASSERT_STR(seam_request_system(r), "Be brief.");
    CU_ASSERT_EQUAL_FATAL(seam_request_message_count(r), 3);
    const seam_message *m = seam_request_message(r, 0);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_USER);
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "Weather in Paris?");
    m = seam_request_message(r, 1);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 2);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 1)), "{\"city\":\"Paris\"}");
    m = seam_request_message(r, 2);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_TOOL);
    ASSERT_STR(seam_part_result_json(seam_message_part(m, 0)), "{\"c\":21}");
    CU_ASSERT_PTR_NULL(seam_request_message(r, 3));

    CU_ASSERT_EQUAL_FATAL(seam_request_tool_count(r), 2);
    ASSERT_STR(seam_request_tool_name(r, 0), "get_weather");
    ASSERT_STR(seam_request_tool_description(r, 0), "Current weather");
    ASSERT_STR(seam_request_tool_parameters(r, 0),
               "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}");
    ASSERT_STR(seam_request_tool_name(r, 1), "noop");
    CU_ASSERT_PTR_NULL(seam_request_tool_description(r, 1));
    ASSERT_STR(seam_request_tool_parameters(r, 1), "{\"type\":\"object\"}");
    CU_ASSERT_PTR_NULL(seam_request_tool_name(r, 2));
    CU_ASSERT_PTR_NULL(seam_request_tool_parameters(r, 2));

    const char *name = NULL;
    CU_ASSERT_EQUAL(seam_request_tool_choice(r, &name), SEAM_TOOL_CHOICE_NAMED);
    ASSERT_STR(name, "get_weather");
    CU_ASSERT_EQUAL(seam_request_tool_choice(r, NULL), SEAM_TOOL_CHOICE_NAMED);
    double t = 0;
    CU_ASSERT_EQUAL(seam_request_temperature(r, &t), 1);
    CU_ASSERT_DOUBLE_EQUAL(t, 0.25, 1e-12);
    CU_ASSERT_EQUAL(seam_request_max_tokens(r), 512);
    CU_ASSERT_EQUAL_FATAL(seam_request_stop_count(r), 2);
    ASSERT_STR(seam_request_stop(r, 0), "END");
    ASSERT_STR(seam_request_stop(r, 1), "\n\n");
    CU_ASSERT_PTR_NULL(seam_request_stop(r, 2));
    const char *schema = NULL;
    int strict = 0;
    CU_ASSERT_EQUAL(seam_request_response_format(r, &name, &schema, &strict), SEAM_FORMAT_JSON);
    ASSERT_STR(name, "answer");
    ASSERT_STR(schema, "{\"type\":\"object\"}");
    CU_ASSERT_EQUAL(strict, 1);
    ASSERT_STR(seam_request_provider_options(r), "{\"seed\":7}");
    CU_ASSERT_EQUAL(seam_request_reasoning_budget(r), 2048);
}

static void test_request_setters(void)
{
    seam_request *r = full_request();
    check_full_request(r);

    /* Setters replace; NULL unsets the optional strings; 0 unsets limits. */
    CU_ASSERT_EQUAL(seam_request_set_model(r, "other"), SEAM_OK);
    ASSERT_STR(seam_request_model(r), "other");
    CU_ASSERT_EQUAL(seam_request_set_model(r, NULL), SEAM_OK);
    CU_ASSERT_PTR_NULL(seam_request_model(r));
    CU_ASSERT_EQUAL(seam_request_set_system(r, NULL), SEAM_OK);
    CU_ASSERT_PTR_NULL(seam_request_system(r));
    CU_ASSERT_EQUAL(seam_request_set_provider_options(r, NULL), SEAM_OK);
    CU_ASSERT_PTR_NULL(seam_request_provider_options(r));
    CU_ASSERT_EQUAL(seam_request_set_max_tokens(r, 0), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_max_tokens(r), 0);
    CU_ASSERT_EQUAL(seam_request_set_temperature(r, 0), SEAM_OK);
    double t = -1;
    CU_ASSERT_EQUAL(seam_request_temperature(r, &t), 1);
    CU_ASSERT_EQUAL(t, 0);

    /* A non-named choice ignores (and drops) the name. */
    const char *name = "sentinel";
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(r, SEAM_TOOL_CHOICE_REQUIRED, "ignored"),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_tool_choice(r, &name), SEAM_TOOL_CHOICE_REQUIRED);
    CU_ASSERT_PTR_NULL(name);
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(r, SEAM_TOOL_CHOICE_NONE, NULL), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_tool_choice(r, NULL), SEAM_TOOL_CHOICE_NONE);

    /* JSON format defaults: name "response", any JSON object; strict is 0/1. */
    const char *schema = NULL;
    int strict = -1;
    CU_ASSERT_EQUAL(seam_request_set_response_format(r, SEAM_FORMAT_JSON, NULL, NULL, 0),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_response_format(r, &name, &schema, &strict), SEAM_FORMAT_JSON);
    ASSERT_STR(name, "response");
    ASSERT_STR(schema, "{\"type\":\"object\"}");
    CU_ASSERT_EQUAL(strict, 0);
    CU_ASSERT_EQUAL(seam_request_set_response_format(r, SEAM_FORMAT_TEXT, "x", "[]", 1), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_response_format(r, &name, &schema, &strict), SEAM_FORMAT_TEXT);
    CU_ASSERT_PTR_NULL(name);
    CU_ASSERT_PTR_NULL(schema);
    CU_ASSERT_EQUAL(strict, 0);
    seam_request_free(r);
}

/* Every failing setter returns SEAM_ERR_INVALID and changes nothing. */
static void test_request_validation(void)
{
    seam_request *r = full_request();

    CU_ASSERT_EQUAL(seam_request_add_tool(r, "bad", NULL, "[]"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, "bad", NULL, "\"object\""), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, "bad", NULL, "{\"type\":"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, NULL, NULL, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, "", NULL, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, "noop", "again", NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(r, SEAM_TOOL_CHOICE_NAMED, NULL),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(r, SEAM_TOOL_CHOICE_NAMED, ""),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(r, (seam_tool_choice)42, NULL),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_temperature(r, -0.5), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_temperature(r, NAN), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_temperature(r, INFINITY), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_max_tokens(r, -1), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_stop(r, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_stop(r, ""), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_response_format(r, SEAM_FORMAT_JSON, "n", "[]", 0),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_response_format(r, SEAM_FORMAT_JSON, "n", "{oops}", 0),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_response_format(r, (seam_response_format)5, NULL, NULL, 0),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_provider_options(r, "[1]"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_provider_options(r, ""), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_provider_options(r, "{\"a\":}"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_reasoning_budget(r, -5), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_message(r, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_user_text(r, NULL), SEAM_ERR_INVALID);

    check_full_request(r);

    /* A NULL request is refused everywhere, and reads as empty. */
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    CU_ASSERT_EQUAL(seam_request_add_message(NULL, m), SEAM_ERR_INVALID);
    seam_message_free(m); /* not taken on failure: still ours */
    CU_ASSERT_EQUAL(seam_request_set_model(NULL, "m"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_system(NULL, "s"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_user_text(NULL, "t"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_tool(NULL, "t", NULL, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_temperature(NULL, 1), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_stop(NULL, "s"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_provider_options(NULL, "{}"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_message_count(NULL), 0);
    CU_ASSERT_EQUAL(seam_request_temperature(NULL, NULL), 0);
    seam_request_free(r);
}

static void test_request_dup_deep(void)
{
    seam_request *r = full_request();
    seam_request *copy = seam_request_dup(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    check_full_request(copy);
    /* The copy shares nothing: change the original, free it, read the copy. */
    seam_request_set_model(r, "changed");
    seam_request_add_user_text(r, "more");
    seam_request_add_stop(r, "X");
    seam_request_strip_reasoning(r);
    seam_request_free(r);
    check_full_request(copy);
    CU_ASSERT_EQUAL(seam_message_part_count(seam_request_message(copy, 1)), 2);

    /* An empty request copies too. */
    seam_request *empty = seam_request_new();
    seam_request *empty_copy = seam_request_dup(empty);
    CU_ASSERT_PTR_NOT_NULL(empty_copy);
    CU_ASSERT_EQUAL(seam_request_message_count(empty_copy), 0);
    seam_request_free(empty);
    seam_request_free(empty_copy);
    seam_request_free(copy);
}

static void test_request_strip_reasoning(void)
{
    seam_request *r = seam_request_new();
    seam_request_add_user_text(r, "q1");
    seam_message *a1 = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_reasoning(a1, "think", "sig-a", 0);
    seam_message_add_text(a1, "answer");
    seam_message_add_reasoning(a1, "more", NULL, 1);
    seam_message_add_tool_call(a1, "c1", "f", NULL);
    seam_request_add_message(r, a1);
    seam_request_add_user_text(r, "q2");
    seam_message *a2 = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_reasoning(a2, "only reasoning", "sig-b", 0);
    seam_request_add_message(r, a2);
    seam_request_add_user_text(r, "q3");

    CU_ASSERT_EQUAL(seam_request_strip_reasoning(r), 3);
    /* a2 held nothing else and is gone: an empty message would be refused. */
    CU_ASSERT_EQUAL_FATAL(seam_request_message_count(r), 4);
    CU_ASSERT_STRING_EQUAL(seam_message_text(seam_request_message(r, 0)), "q1");
    const seam_message *m = seam_request_message(r, 1);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 2);
    CU_ASSERT_EQUAL(seam_part_get_type(seam_message_part(m, 0)), SEAM_PART_TEXT);
    CU_ASSERT_EQUAL(seam_part_get_type(seam_message_part(m, 1)), SEAM_PART_TOOL_CALL);
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "answer");
    CU_ASSERT_STRING_EQUAL(seam_message_text(seam_request_message(r, 2)), "q2");
    CU_ASSERT_STRING_EQUAL(seam_message_text(seam_request_message(r, 3)), "q3");
    for (size_t i = 0; i < seam_request_message_count(r); i++) {
        const seam_message *mi = seam_request_message(r, i);
        for (size_t j = 0; j < seam_message_part_count(mi); j++)
            CU_ASSERT_NOT_EQUAL(seam_part_get_type(seam_message_part(mi, j)),
                                SEAM_PART_REASONING);
    }
    CU_ASSERT_EQUAL(seam_request_strip_reasoning(r), 0);
    CU_ASSERT_EQUAL(seam_request_message_count(r), 4);
    CU_ASSERT_EQUAL(seam_request_strip_reasoning(NULL), 0);

    /* An empty message the caller added on purpose is not dropped. */
    seam_request_add_message(r, seam_message_new(SEAM_ROLE_ASSISTANT));
    CU_ASSERT_EQUAL(seam_request_strip_reasoning(r), 0);
    CU_ASSERT_EQUAL(seam_request_message_count(r), 5);
    seam_request_free(r);
}

/* ---- the accumulator ------------------------------------------------------------- */

static seam_chunk chunk_of(seam_chunk_type type)
{
    seam_chunk c;
    memset(&c, 0, sizeof c);
    c.type = type;
    return c;
}

static int fold_text(seam_result *res, const char *text)
{
    seam_chunk c = chunk_of(SEAM_CHUNK_TEXT_DELTA);
    c.text = text;
    return seam_result_add_chunk(res, &c);
}

static int fold_id_text(seam_result *res, seam_chunk_type type, const char *id, const char *text)
{
    seam_chunk c = chunk_of(type);
    c.id = id;
    c.text = text;
    return seam_result_add_chunk(res, &c);
}

static int fold_call_start(seam_result *res, const char *id, const char *name)
{
    seam_chunk c = chunk_of(SEAM_CHUNK_TOOL_CALL_START);
    c.id = id;
    c.name = name;
    return seam_result_add_chunk(res, &c);
}

static int fold_call_end(seam_result *res, const char *id, const char *args_json)
{
    seam_chunk c = chunk_of(SEAM_CHUNK_TOOL_CALL_END);
    c.id = id;
    c.args_json = args_json;
    return seam_result_add_chunk(res, &c);
}

static int fold_stop(seam_result *res, seam_stop_reason reason, const seam_usage *usage)
{
    seam_chunk c = chunk_of(SEAM_CHUNK_STOP);
    c.stop_reason = reason;
    if (usage)
        c.usage = *usage;
    return seam_result_add_chunk(res, &c);
}

/* A chunk of a media part or of a tool's result as the fields a test sets. */
static seam_chunk media_chunk(seam_chunk_type type, const char *id, const char *mime_type, const char *text)
{
    seam_chunk c = chunk_of(type);
    c.id = id;
    c.mime_type = mime_type;
    c.text = text;
    return c;
}

static seam_chunk result_chunk(const char *id, const char *name, const char *result_json, int is_error)
{
    seam_chunk c = chunk_of(SEAM_CHUNK_TOOL_RESULT);
    c.id = id;
    c.name = name;
    c.result_json = result_json;
    c.is_error = is_error;
    return c;
}

/* c is refused (SEAM_ERR_INVALID) and the message keeps the parts it had:
 * two assertions. */
static void refused_unchanged(seam_result *res, const seam_chunk *c)
{
    size_t before = seam_message_part_count(seam_result_message(res));
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, c), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_part_count(seam_result_message(res)), before);
}

static void test_result_new_free(void)
{
    seam_result *res = seam_result_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(res);
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 0);
    CU_ASSERT_STRING_EQUAL(seam_result_text(res), "");
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_NONE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(seam_result_usage(res));
    CU_ASSERT_EQUAL(seam_result_usage(res)->present, 0);
    CU_ASSERT_PTR_NULL(seam_result_error(res));
    CU_ASSERT_PTR_NULL(seam_result_provider(res));
    CU_ASSERT_PTR_NULL(seam_result_model(res));
    CU_ASSERT_EQUAL(seam_result_incomplete(res), 0);

    CU_ASSERT_EQUAL(seam_result_set_origin(res, "deepseek", "deepseek-chat"), SEAM_OK);
    ASSERT_STR(seam_result_provider(res), "deepseek");
    ASSERT_STR(seam_result_model(res), "deepseek-chat");
    CU_ASSERT_EQUAL(seam_result_set_origin(res, "other", NULL), SEAM_OK);
    ASSERT_STR(seam_result_provider(res), "other");
    CU_ASSERT_PTR_NULL(seam_result_model(res));
    seam_result_set_incomplete(res, 5);
    CU_ASSERT_EQUAL(seam_result_incomplete(res), 1);
    seam_result_set_incomplete(res, 0);
    CU_ASSERT_EQUAL(seam_result_incomplete(res), 0);

    CU_ASSERT_EQUAL(seam_result_add_chunk(res, NULL), SEAM_ERR_INVALID);
    seam_chunk bogus = chunk_of((seam_chunk_type)0);
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &bogus), SEAM_ERR_INVALID);
    bogus.type = (seam_chunk_type)99;
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &bogus), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_result_add_chunk(NULL, &bogus), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 0);
    seam_result_free(res);
    seam_result_free(NULL);
    CU_ASSERT_PTR_NULL(seam_result_message(NULL));
    CU_ASSERT_PTR_NULL(seam_result_error(NULL));
}

static void test_acc_text_deltas(void)
{
    seam_result *res = seam_result_new();
    const char *pieces[] = {"The", " quick", " ", "", "brown", " fox", " jumps", "."};
    for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++)
        CU_ASSERT_EQUAL(fold_text(res, pieces[i]), SEAM_OK);
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 1);
    ASSERT_STR(seam_part_text(seam_message_part(m, 0)), "The quick brown fox jumps.");
    CU_ASSERT_STRING_EQUAL(seam_result_text(res), "The quick brown fox jumps.");
    CU_ASSERT_EQUAL(fold_text(res, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 1);

    /* Many small deltas (a long answer) stay one part. */
    for (int i = 0; i < 5000; i++)
        fold_text(res, "ab");
    CU_ASSERT_EQUAL(seam_message_part_count(m), 1);
    CU_ASSERT_EQUAL(strlen(seam_result_text(res)), strlen("The quick brown fox jumps.") + 10000);
    seam_result_free(res);
}

static void test_acc_text_tool_text(void)
{
    seam_result *res = seam_result_new();
    fold_text(res, "Let me ");
    fold_text(res, "check.");
    CU_ASSERT_EQUAL(fold_call_start(res, "t1", "lookup"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_call_end(res, "t1", "{\"q\":1}"), SEAM_OK);
    fold_text(res, "Done");
    fold_text(res, "!");
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 3);
    CU_ASSERT_EQUAL(seam_part_get_type(seam_message_part(m, 0)), SEAM_PART_TEXT);
    CU_ASSERT_EQUAL(seam_part_get_type(seam_message_part(m, 1)), SEAM_PART_TOOL_CALL);
    CU_ASSERT_EQUAL(seam_part_get_type(seam_message_part(m, 2)), SEAM_PART_TEXT);
    ASSERT_STR(seam_part_text(seam_message_part(m, 0)), "Let me check.");
    ASSERT_STR(seam_part_text(seam_message_part(m, 2)), "Done!");
    CU_ASSERT_STRING_EQUAL(seam_result_text(res), "Let me check.Done!");
    seam_result_free(res);
}

static void test_acc_reasoning(void)
{
    seam_result *res = seam_result_new();
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_START, "r0", NULL), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_START, "r0", NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, "r0", "The user "), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, "r0", "asks."), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, "r0", NULL), SEAM_ERR_INVALID);
    seam_chunk end = chunk_of(SEAM_CHUNK_REASONING_END);
    end.id = "r0";
    end.signature = "EqQBCgIYAhIM";
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &end), SEAM_OK);
    fold_text(res, "Answer.");

    /* A delta without a start opens a block; a redacted block carries opaque data. */
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, "r1", "opaque-data"), SEAM_OK);
    end.id = "r1";
    end.signature = NULL;
    end.redacted = 1;
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &end), SEAM_OK);
    /* A block with no id at all still works. */
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, NULL, "anon"), SEAM_OK);
    end.id = NULL;
    end.signature = "s2";
    end.redacted = 0;
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &end), SEAM_OK);

    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 4);
    ASSERT_PART(seam_message_part(m, 0), .type = SEAM_PART_REASONING, .text = "The user asks.",
                .signature = "EqQBCgIYAhIM");
    ASSERT_PART(seam_message_part(m, 1), .type = SEAM_PART_TEXT, .text = "Answer.");
    ASSERT_PART(seam_message_part(m, 2), .type = SEAM_PART_REASONING, .text = "opaque-data", .redacted = 1);
    ASSERT_PART(seam_message_part(m, 3), .type = SEAM_PART_REASONING, .text = "anon", .signature = "s2");
    /* Reasoning is not text. */
    CU_ASSERT_STRING_EQUAL(seam_result_text(res), "Answer.");

    /* Once ended, the id may start a new block. */
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_START, "r0", NULL), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 5);
    seam_result_free(res);
}

static void test_acc_interleaved_tool_calls(void)
{
    seam_result *res = seam_result_new();
    CU_ASSERT_EQUAL(fold_call_start(res, "call_a", "get_weather"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_call_start(res, "call_b", "get_time"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "call_a", "{\"ci"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "call_b", "{\"tz\":"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "call_a", "ty\": \"Pa"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "call_b", "\"UTC\"}"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "call_a", "ris\"}"), SEAM_OK);

    /* Until its end chunk, a call shows empty arguments. */
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 2);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 0)), "{}");

    CU_ASSERT_EQUAL(fold_call_end(res, "call_b", NULL), SEAM_OK);
    CU_ASSERT_EQUAL(fold_call_end(res, "call_a", NULL), SEAM_OK);
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_TOOL_USE, NULL), SEAM_OK);

    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 2);
    const seam_part *a = seam_message_part(m, 0), *b = seam_message_part(m, 1);
    ASSERT_STR(seam_part_tool_call_id(a), "call_a");
    ASSERT_STR(seam_part_tool_name(a), "get_weather");
    ASSERT_STR(seam_part_args_json(a), "{\"city\": \"Paris\"}");
    CU_ASSERT_EQUAL(seam_part_provider_executed(a), 0);
    ASSERT_STR(seam_part_tool_call_id(b), "call_b");
    ASSERT_STR(seam_part_tool_name(b), "get_time");
    ASSERT_STR(seam_part_args_json(b), "{\"tz\":\"UTC\"}");
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_TOOL_USE);

    /* Closed calls take no more fragments. */
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "call_a", "x"),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_call_end(res, "call_a", NULL), SEAM_ERR_INVALID);
    ASSERT_STR(seam_part_args_json(a), "{\"city\": \"Paris\"}");
    seam_result_free(res);
}

static void test_acc_tool_call_args(void)
{
    seam_result *res = seam_result_new();
    const seam_message *m = seam_result_message(res);

    /* No fragments at all: {}. */
    fold_call_start(res, "e1", "noargs");
    CU_ASSERT_EQUAL(fold_call_end(res, "e1", NULL), SEAM_OK);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 0)), "{}");

    /* Only empty fragments: {}. */
    fold_call_start(res, "e2", "noargs");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "e2", "");
    CU_ASSERT_EQUAL(fold_call_end(res, "e2", NULL), SEAM_OK);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 1)), "{}");

    /* The end chunk's args_json is final and wins over the fragments. */
    fold_call_start(res, "e3", "f");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "e3", "{\"partial\":");
    CU_ASSERT_EQUAL(fold_call_end(res, "e3", "{\"whole\":true}"), SEAM_OK);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 2)), "{\"whole\":true}");

    /* Broken arguments: the call is kept with {} and SEAM_ERR_INVALID returned. */
    fold_call_start(res, "bad1", "f");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "bad1", "{\"x\": 1");
    CU_ASSERT_EQUAL(fold_call_end(res, "bad1", NULL), SEAM_ERR_INVALID);
    const seam_part *p = seam_message_part(m, 3);
    ASSERT_STR(seam_part_tool_call_id(p), "bad1");
    ASSERT_STR(seam_part_args_json(p), "{}");

    /* Valid JSON that is not an object is refused the same way. */
    fold_call_start(res, "bad2", "f");
    CU_ASSERT_EQUAL(fold_call_end(res, "bad2", "[1,2]"), SEAM_ERR_INVALID);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 4)), "{}");
    CU_ASSERT_EQUAL(seam_message_part_count(m), 5);

    /* Out of sequence: nothing changes. */
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "nope", "{}"),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_call_end(res, "nope", "{}"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_call_end(res, NULL, "{}"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_call_start(res, NULL, "f"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_call_start(res, "x", NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_call_start(res, "open", "f"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_call_start(res, "open", "f"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "open", NULL),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 6);
    CU_ASSERT_EQUAL(fold_call_end(res, "open", ""), SEAM_OK);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 5)), "{}");
    seam_result_free(res);
}

static void test_acc_stop_finalizes_open_calls(void)
{
    seam_result *res = seam_result_new();
    fold_call_start(res, "ok", "f");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "ok", "{\"n\":");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "ok", "3}");
    fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, "r", "half a thought");
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_TOOL_USE, NULL), SEAM_OK);
    const seam_message *m = seam_result_message(res);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 0)), "{\"n\":3}");
    ASSERT_STR(seam_part_text(seam_message_part(m, 1)), "half a thought");
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "ok", "x"), SEAM_ERR_INVALID);
    seam_result_free(res);

    res = seam_result_new();
    fold_call_start(res, "cut", "f");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "cut", "{\"n\":");
    seam_usage u = {.present = SEAM_USAGE_OUTPUT, .output_tokens = 9};
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_LENGTH, &u), SEAM_ERR_INVALID);
    m = seam_result_message(res);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 0)), "{}");
    /* The stop itself is still applied. */
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_LENGTH);
    CU_ASSERT_EQUAL(seam_result_usage(res)->output_tokens, 9);
    seam_result_free(res);
}

static void test_acc_stop_usage(void)
{
    seam_result *res = seam_result_new();
    fold_text(res, "hi");
    seam_usage u = {.present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT | SEAM_USAGE_CACHE_READ,
                    .input_tokens = 12, .output_tokens = 3, .cache_read_tokens = 100};
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_STOP, &u), SEAM_OK);
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_STOP);
    const seam_usage *got = seam_result_usage(res);
    /* The present bits compared whole: no CACHE_WRITE, REASONING or COST. */
    TU_ASSERT_USAGE(got, .present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT | SEAM_USAGE_CACHE_READ,
                    .input_tokens = 12, .output_tokens = 3, .cache_read_tokens = 100);

    /* A later stop replaces usage wholesale: no bit of the first survives. */
    seam_usage u2 = {.present = SEAM_USAGE_REASONING, .reasoning_tokens = 4};
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_LENGTH, &u2), SEAM_OK);
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_LENGTH);
    TU_ASSERT_USAGE(got, .present = SEAM_USAGE_REASONING, .reasoning_tokens = 4);
    CU_ASSERT_EQUAL(got->input_tokens, 0);
    CU_ASSERT_STRING_EQUAL(seam_result_text(res), "hi");
    CU_ASSERT_PTR_NULL(seam_result_error(res));
    seam_result_free(res);
}

static void test_acc_error_chunk(void)
{
    seam_result *res = seam_result_new();
    fold_text(res, "partial ans");
    fold_call_start(res, "c", "f");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "c", "{\"broken");

    seam_chunk c = chunk_of(SEAM_CHUNK_ERROR);
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_ERR_INVALID); /* no error given */
    CU_ASSERT_PTR_NULL(seam_result_error(res));
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_NONE);

    seam_error err;
    seam_error_clear(&err);
    seam_error_set(&err, SEAM_ERROR_OVERLOADED, "upstream overloaded");
    err.http_status = 529;
    err.retry_after_ms = 1500;
    snprintf(err.code, sizeof err.code, "overloaded_error");
    snprintf(err.provider, sizeof err.provider, "anthropic");
    c.error = &err;
    /* An error cutting a call short is not a second failure. */
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_OK);
    /* The result keeps its own copy. */
    seam_error_set(&err, SEAM_ERROR_AUTH, "changed");

    const seam_error *got = seam_result_error(res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_EQUAL(got->kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_EQUAL(got->retryable, 1);
    CU_ASSERT_EQUAL(got->http_status, 529);
    CU_ASSERT_EQUAL(got->retry_after_ms, 1500);
    CU_ASSERT_STRING_EQUAL(got->code, "overloaded_error");
    CU_ASSERT_STRING_EQUAL(got->provider, "anthropic");
    CU_ASSERT_STRING_EQUAL(got->message, "upstream overloaded");
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_ERROR);
    CU_ASSERT_STRING_EQUAL(seam_result_text(res), "partial ans");
    const seam_message *m = seam_result_message(res);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 1)), "{}");

    /* A stop after the error updates usage but the outcome stays an error. */
    seam_usage u = {.present = SEAM_USAGE_INPUT, .input_tokens = 5};
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_STOP, &u), SEAM_OK);
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_ERROR);
    CU_ASSERT_EQUAL(seam_result_usage(res)->input_tokens, 5);
    CU_ASSERT_PTR_NOT_NULL(seam_result_error(res));
    seam_result_free(res);
}

static void test_acc_provider_executed_tool_result(void)
{
    seam_result *res = seam_result_new();
    fold_call_start(res, "srv_1", "web_search");
    fold_call_end(res, "srv_1", "{\"query\":\"seam\"}");
    fold_call_start(res, "local_1", "run_tests");
    fold_call_end(res, "local_1", NULL);
    seam_chunk c = result_chunk("srv_1", "web_search", "[{\"url\":\"https://example.invalid\"}]", 0);
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_OK);
    c = result_chunk("srv_2", NULL, "\"quota exceeded\"", 1);
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_OK);

    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 4);
    CU_ASSERT_EQUAL(seam_part_provider_executed(seam_message_part(m, 0)), 1);
    CU_ASSERT_EQUAL(seam_part_provider_executed(seam_message_part(m, 1)), 0);
    const seam_part *p = seam_message_part(m, 2);
    CU_ASSERT_EQUAL(seam_part_get_type(p), SEAM_PART_TOOL_RESULT);
    CU_ASSERT_EQUAL(seam_part_provider_executed(p), 1);
    ASSERT_STR(seam_part_tool_call_id(p), "srv_1");
    ASSERT_STR(seam_part_tool_name(p), "web_search");
    ASSERT_STR(seam_part_result_json(p), "[{\"url\":\"https://example.invalid\"}]");
    CU_ASSERT_EQUAL(seam_part_is_error(p), 0);
    p = seam_message_part(m, 3);
    CU_ASSERT_EQUAL(seam_part_provider_executed(p), 1);
    CU_ASSERT_EQUAL(seam_part_is_error(p), 1);
    CU_ASSERT_PTR_NULL(seam_part_tool_name(p));

    c.result_json = "not json";
    refused_unchanged(res, &c);
    c.result_json = NULL;
    refused_unchanged(res, &c);
    c.result_json = "1";
    c.id = NULL;
    refused_unchanged(res, &c);
    seam_result_free(res);
}

static void test_acc_media(void)
{
    seam_result *res = seam_result_new();
    seam_chunk c = media_chunk(SEAM_CHUNK_MEDIA_START, "m1", "image/png", NULL);
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_OK);
    c = media_chunk(SEAM_CHUNK_MEDIA_DELTA, "m1", NULL, NULL);
    c.progress = 0.5;
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_OK);
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 0);
    c = media_chunk(SEAM_CHUNK_MEDIA_END, "m1", "image/png", "media://sha256-0123");
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 1);
    const seam_part *p = seam_message_part(m, 0);
    CU_ASSERT_EQUAL(seam_part_get_type(p), SEAM_PART_MEDIA);
    ASSERT_STR(seam_part_mime_type(p), "image/png");
    CU_ASSERT_EQUAL(seam_part_media_source(p), SEAM_MEDIA_URL);
    ASSERT_STR(seam_part_media_data(p), "media://sha256-0123");
    c.text = NULL;
    refused_unchanged(res, &c);
    seam_result_free(res);
}

/* A whole Anthropic-like turn: reasoning, text, a tool call, stop; then the
 * result's message goes back into a request (the tool loop's next step). */
static void test_acc_whole_turn_into_request(void)
{
    seam_result *res = seam_result_new();
    fold_id_text(res, SEAM_CHUNK_REASONING_START, "0", NULL);
    fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, "0", "Need the weather.");
    seam_chunk end = chunk_of(SEAM_CHUNK_REASONING_END);
    end.id = "0";
    end.signature = "sig";
    seam_result_add_chunk(res, &end);
    fold_text(res, "Checking");
    fold_call_start(res, "toolu_1", "get_weather");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "toolu_1", "");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "toolu_1", "{\"city\": \"Par");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "toolu_1", "is\"}");
    fold_call_end(res, "toolu_1", NULL);
    seam_usage u = {.present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT, .input_tokens = 472,
                    .output_tokens = 89};
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_TOOL_USE, &u), SEAM_OK);

    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "Weather?");
    seam_message *copy = seam_message_dup(seam_result_message(res));
    CU_ASSERT_EQUAL(seam_request_add_message(req, copy), SEAM_OK);
    seam_result_free(res);
    const seam_message *m = seam_request_message(req, 1);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 3);
    ASSERT_STR(seam_part_signature(seam_message_part(m, 0)), "sig");
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 2)), "{\"city\": \"Paris\"}");
    CU_ASSERT_EQUAL(seam_request_strip_reasoning(req), 1);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 2);
    seam_request_free(req);
}

/* scrub.c: what counts as a trace of a key, and what does not. */
static char *scrubbed(const char *text, const char *secret)
{
    seam_buf b = {0};
    CU_ASSERT_EQUAL_FATAL(seam_scrub_secret(&b, text, strlen(text), secret), SEAM_OK);
    return b.data;
}

static void test_scrub_secret(void)
{
    const char *k = "AIzaSyD4nR7qW2xLm9Kp3Vt8Zs1Bc6Hj0Fg5Ewx";
    struct { const char *in, *out; } cases[] = {
        {"key AIzaSyD4nR7qW2xLm9Kp3Vt8Zs1Bc6Hj0Fg5Ewx bad", "key <redacted> bad"},
        /* cut short, at either end */
        {"key AIzaSyD4nR7q", "key <redacted>"},
        {"...Zs1Bc6Hj0Fg5Ewx is bad", "<redacted> is bad"},
        /* masked echoes: first and/or last characters around a mask */
        {"provided: AIzaSy****************5Ewx.", "provided: <redacted>."},
        {"provided: AIza...5Ewx", "provided: <redacted>"},
        {"provided: ****5Ewx", "provided: <redacted>"},
        {"provided: AIzaSy\xE2\x80\xA6", "provided: <redacted>"},
        /* not the key: left alone */
        {"Incorrect API key provided. See https://x.example/docs...", NULL},
        {"AIza is how Google keys start; ****", NULL},
        {"a masked other key: sk-abc***wxyz", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = scrubbed(cases[i].in, k);
        const char *want = cases[i].out ? cases[i].out : cases[i].in;
        CU_ASSERT_STRING_EQUAL(got, want);
        if (strcmp(got, want) != 0)
            fprintf(stderr, "\n  scrub(%s) = %s\n", cases[i].in, got);
        free(got);
    }
    /* Short or absent secrets change nothing. */
    char *got = scrubbed("abc abc", "abc");
    CU_ASSERT_STRING_EQUAL(got, "abc abc");
    free(got);
    got = scrubbed("text", NULL);
    CU_ASSERT_STRING_EQUAL(got, "text");
    free(got);
}

static void test_text_field_set(void)
{
    static const struct {
        size_t size;
        const char *text;
        size_t len;
        const char *want;
    } sets[] = {
        /* a cut inside a 2-byte character backs off to its start */
        {8, "abcdef\xC3\xA9", 8, "abcdef"},
        /* half a mark is dropped */
        {12, "ab <redacted>", 13, "ab "},
        /* invalid bytes inside become U+FFFD; a sequence cut at the end goes */
        {32, "a\x80" "b\xE2\x82", 5, "a\xEF\xBF\xBD" "b"},
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        char *field = malloc(sets[i].size); /* exactly: a write past it is seen by ASan */
        CU_ASSERT_PTR_NOT_NULL_FATAL(field);
        seam_text_field_set(field, sets[i].size, sets[i].text, sets[i].len);
        CU_ASSERT_STRING_EQUAL(field, sets[i].want);
        free(field);
    }
    /* seam_utf8_repair: a copy with U+FFFD for each bad byte or cut sequence,
     * NULL when there is nothing to repair. */
    static const struct {
        const char *text, *want;
    } repairs[] = {
        {"x\xE2\x82y\xFF", "x\xEF\xBF\xBDy\xEF\xBF\xBD"},
        {"valid \xC3\xA9", NULL},
    };
    for (size_t i = 0; i < sizeof repairs / sizeof repairs[0]; i++) {
        char *r = seam_utf8_repair(repairs[i].text);
        if (repairs[i].want) {
            CU_ASSERT_STRING_EQUAL(r ? r : "(null)", repairs[i].want);
        } else {
            CU_ASSERT_PTR_NULL(r);
        }
        free(r);
    }
}

static const tu_test tests[] = {
    { "error_set", test_error_set },
    { "error_kinds", test_error_kinds },
    { "stop_reason_names", test_stop_reason_names },
    { "chunk_type_names", test_chunk_type_names },
    { "usage_add", test_usage_add },
    { "json_is_valid", test_json_is_valid },
    { "message_new_free", test_message_new_free },
    { "message_parts", test_message_parts },
    { "message_copies_strings", test_message_copies_strings },
    { "message_text_concatenation", test_message_text_concatenation },
    { "message_args_normalized", test_message_args_normalized },
    { "message_tool_results_any_json", test_message_tool_results_any_json },
    { "message_validation", test_message_validation },
    { "message_dup_deep", test_message_dup_deep },
    { "message_mutators", test_message_mutators },
    { "request_defaults", test_request_defaults },
    { "request_setters", test_request_setters },
    { "request_validation", test_request_validation },
    { "request_dup_deep", test_request_dup_deep },
    { "request_strip_reasoning", test_request_strip_reasoning },
    { "result_new_free", test_result_new_free },
    { "acc_text_deltas", test_acc_text_deltas },
    { "acc_text_tool_text", test_acc_text_tool_text },
    { "acc_reasoning", test_acc_reasoning },
    { "acc_interleaved_tool_calls", test_acc_interleaved_tool_calls },
    { "acc_tool_call_args", test_acc_tool_call_args },
    { "acc_stop_finalizes_open_calls", test_acc_stop_finalizes_open_calls },
    { "acc_stop_usage", test_acc_stop_usage },
    { "acc_error_chunk", test_acc_error_chunk },
    { "acc_provider_executed_tool_result", test_acc_provider_executed_tool_result },
    { "acc_media", test_acc_media },
    { "acc_whole_turn_into_request", test_acc_whole_turn_into_request },
    { "scrub_secret", test_scrub_secret },
    { "text_field_set", test_text_field_set },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("types", tests, NULL);
}
