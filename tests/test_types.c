/* test_types.c — unit tests of the seam types' small pieces: errors and
 * names, usage, seam_json_is_valid, and scrub.c's secret scrubbing and text
 * fields. Messages, requests and the result accumulator have their own
 * programs: test_types_message, test_types_request, test_types_result. */
#include "config.h"
#include "internal.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tu_types.h"

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
    { "scrub_secret", test_scrub_secret },
    { "text_field_set", test_text_field_set },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("types", tests, NULL);
}
