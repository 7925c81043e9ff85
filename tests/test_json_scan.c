/* test_json_scan.c — the codecs' in-place scanner (plugins/common/json_scan.c):
 * string escapes decoded as json-c decodes them, every shape it must leave to
 * json-c refused, values skipped and checked, the strings buffer reused. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "../plugins/common/json_scan.h"
#include "testutil.h"

static jscan_buf buf;

static void free_buf(void *b)
{
    jscan_buf_free(b);
}

static int start(void)
{
    tu_at_end(free_buf, &buf);
    return 0;
}

/* Scans `text` as {"k": <string>} and returns the decoded string, or NULL. */
static const char *string_member(const char *text)
{
    jscan s;
    const char *k, *v = NULL;
    size_t kl;
    if (!jscan_begin(&s, &buf, text, strlen(text)) || !jscan_object(&s) ||
        jscan_member(&s, &k, &kl) != 1 || !jscan_key_is(k, kl, "k") || !jscan_string(&s, &v) ||
        jscan_member(&s, &k, &kl) != 0 || !jscan_end(&s))
        return NULL;
    return v;
}

/* 1 when the whole text is one value the scanner accepts (skipped). */
static int accepts(const char *text)
{
    jscan s;
    return jscan_begin(&s, &buf, text, strlen(text)) && jscan_skip(&s) && jscan_end(&s);
}

static void test_escapes(void)
{
    const char *v = string_member("{\"k\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\u20ac\\ud83d\\ude00 \xc3\xa9\"}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_STRING_EQUAL(v, "a\"b\\c/d\b\f\n\r\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \xc3\xa9");
    v = string_member(" { \"k\" : \"\" } ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_STRING_EQUAL(v, "");
}

/* What json-c reads differently (or refuses) is the scanner's to refuse. */
static void test_refusals(void)
{
    CU_ASSERT_PTR_NULL(string_member("{\"k\":\"a\\u0000b\"}"));     /* json-c cuts at NUL */
    CU_ASSERT_PTR_NULL(string_member("{\"k\":\"\\ud83d\"}"));        /* lone high surrogate */
    CU_ASSERT_PTR_NULL(string_member("{\"k\":\"\\ud83dx\"}"));
    CU_ASSERT_PTR_NULL(string_member("{\"k\":\"\\ude00\"}"));        /* lone low surrogate */
    CU_ASSERT_PTR_NULL(string_member("{\"k\":\"\\ud83d\\u0041\"}")); /* high + not low */
    CU_ASSERT_PTR_NULL(string_member("{\"k\":\"a\tb\"}"));           /* raw control byte */
    CU_ASSERT_PTR_NULL(string_member("{\"k\":\"\\a\"}"));            /* unknown escape */
    CU_ASSERT_PTR_NULL(string_member("{\"k\":\"\\u12\"}"));
    CU_ASSERT_PTR_NULL(string_member("{\"k\":\"abc"));               /* cut */
    CU_ASSERT_PTR_NULL(string_member("{\"\\u006b\":\"v\"}"));        /* escaped key */
    CU_ASSERT_PTR_NULL(string_member("{\"k\" \"v\"}"));
    CU_ASSERT_PTR_NULL(string_member("{\"k\":\"v\",}"));
    CU_ASSERT_PTR_NULL(string_member("{\"k\":'v'}"));
    CU_ASSERT_PTR_NULL(string_member("{\"k\":\"v\"} x"));

    CU_ASSERT_FALSE(accepts("1e5"));
    CU_ASSERT_FALSE(accepts("1.5E-3"));
    CU_ASSERT_FALSE(accepts("1234567890123456789")); /* 19 digits */
    CU_ASSERT_TRUE(accepts("123456789012345678"));
    CU_ASSERT_TRUE(accepts("-0.25"));
    CU_ASSERT_FALSE(accepts("01"));
    CU_ASSERT_FALSE(accepts("1."));
    CU_ASSERT_FALSE(accepts(".5"));
    CU_ASSERT_FALSE(accepts("-"));
    CU_ASSERT_FALSE(accepts("[1,]"));
    CU_ASSERT_FALSE(accepts("[,1]"));
    CU_ASSERT_FALSE(accepts("[1 2]"));
    CU_ASSERT_FALSE(accepts("{,}"));
    CU_ASSERT_FALSE(accepts("nul"));
    CU_ASSERT_FALSE(accepts("True"));
    CU_ASSERT_FALSE(accepts("NaN"));
    CU_ASSERT_FALSE(accepts("/* c */ 1"));
    CU_ASSERT_FALSE(accepts("[1]\v"));
    CU_ASSERT_FALSE(accepts("\"a\\u0000\""));
    CU_ASSERT_FALSE(accepts(""));
    CU_ASSERT_FALSE(accepts("[1"));
}

static void test_skip_and_depth(void)
{
    CU_ASSERT_TRUE(accepts(" {\"a\":[1,-2.5,true,false,null,{\"b\":{}},[]],\"c\":\"\\u00e9\"}\r\n"));
    char deep[64] = "", close[64] = "";
    for (int i = 0; i < JSCAN_MAX_DEPTH; i++) {
        strcat(deep, "[");
        strcat(close, "]");
    }
    char text[160];
    snprintf(text, sizeof text, "%s%s", deep, close);
    CU_ASSERT_TRUE(accepts(text));
    snprintf(text, sizeof text, "[%s%s]", deep, close);
    CU_ASSERT_FALSE(accepts(text)); /* one past the limit: json-c's turn */
}

static void test_int_bool_null(void)
{
    jscan s;
    const char *text = "[42,-7,3.0,true,false,null,\"x\"]";
    int64_t n;
    int b;
    const char *str = (const char *)1;
    CU_ASSERT_FATAL(jscan_begin(&s, &buf, text, strlen(text)) && jscan_array(&s));
    CU_ASSERT(jscan_element(&s) == 1 && jscan_int(&s, &n) && n == 42);
    CU_ASSERT(jscan_element(&s) == 1 && jscan_int(&s, &n) && n == -7);
    CU_ASSERT(jscan_element(&s) == 1);
    CU_ASSERT_FALSE(jscan_int(&s, &n)); /* a fraction is not an integer, and is not consumed */
    CU_ASSERT(jscan_skip(&s));
    CU_ASSERT(jscan_element(&s) == 1 && jscan_bool(&s, &b) && b == 1);
    CU_ASSERT(jscan_element(&s) == 1 && jscan_bool(&s, &b) && b == 0);
    CU_ASSERT(jscan_element(&s) == 1 && jscan_string_or_null(&s, &str) && str == NULL);
    CU_ASSERT(jscan_element(&s) == 1 && jscan_string_or_null(&s, &str) && strcmp(str, "x") == 0);
    CU_ASSERT(jscan_element(&s) == 0 && jscan_end(&s));
}

/* Once grown, the buffer serves every shorter event without allocating, and
 * strings decoded earlier in an event stay put while later ones are added. */
static void test_buffer_reuse(void)
{
    jscan s;
    const char *a, *b, *k;
    size_t kl;
    const char *big = "{\"a\":\"0123456789012345678901234567890123456789\",\"b\":\"x\"}";
    CU_ASSERT_FATAL(jscan_begin(&s, &buf, big, strlen(big)) && jscan_object(&s));
    CU_ASSERT(jscan_member(&s, &k, &kl) == 1 && jscan_string(&s, &a));
    CU_ASSERT(jscan_member(&s, &k, &kl) == 1 && jscan_string(&s, &b));
    CU_ASSERT_STRING_EQUAL(a, "0123456789012345678901234567890123456789");
    CU_ASSERT_STRING_EQUAL(b, "x");
    char *data = buf.data;
    size_t cap = buf.cap;
    for (int i = 0; i < 100; i++)
        CU_ASSERT_PTR_NOT_NULL(string_member("{\"k\":\"short\"}"));
    CU_ASSERT_PTR_EQUAL(buf.data, data);
    CU_ASSERT_EQUAL(buf.cap, cap);
}

static void test_disabled(void)
{
    jscan_disabled = 1;
    CU_ASSERT_PTR_NULL(string_member("{\"k\":\"v\"}"));
    jscan_disabled = 0;
    CU_ASSERT_PTR_NOT_NULL(string_member("{\"k\":\"v\"}"));
}

static const tu_test tests[] = {
    { "escapes", test_escapes },
    { "refusals", test_refusals },
    { "skip and depth", test_skip_and_depth },
    { "int bool null", test_int_bool_null },
    { "buffer reuse", test_buffer_reuse },
    { "disabled", test_disabled },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("json_scan", tests, start);
}
