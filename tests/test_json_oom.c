/* test_json_oom.c — running out of memory while JSON is parsed is never taken
 * for invalid JSON (libcore/jsonparse.c) nor for a value failing its schema
 * (libcore/jsonschema.c): each allocation of a parse or a validation is made
 * to fail in turn, and every answer must be the undisturbed one or
 * SEAM_ERR_NOMEM. Also the scanner behind that verdict against json-c itself.
 *
 * The failing allocator is this program's own malloc, calloc and realloc,
 * which interpose json-c's and libc's calls as the torture shim does
 * (tests/torture/failmalloc.c) but only around the call under test, so the
 * test needs no LD_PRELOAD. A sanitizer build replaces the allocator itself:
 * the test is skipped there. */
#include "config.h"
#include "internal.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"


#if !TU_SANITIZED
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

/* Seen by json-c and libc, despite -fvisibility=hidden. */
#define EXPORT __attribute__((visibility("default")))

/* volatile: GCC knows malloc as a builtin that reads no global of ours, and
 * would drop a store to countdown just before a direct call to it. */
static volatile long countdown = -1; /* allocations left before the failing one; -1: none fails */
static int failed;          /* the armed failure happened */

static int should_fail(void)
{
    if (countdown < 0)
        return 0;
    if (countdown-- > 0)
        return 0;
    countdown = -1;
    failed = 1;
    errno = ENOMEM;
    return 1;
}

EXPORT void *malloc(size_t n)
{
    return should_fail() ? NULL : __libc_malloc(n);
}

EXPORT void *calloc(size_t n, size_t size)
{
    return should_fail() ? NULL : __libc_calloc(n, size);
}

EXPORT void *realloc(void *p, size_t n)
{
    return should_fail() ? NULL : __libc_realloc(p, n);
}

/* Arms the k-th allocation from now (0-based) to fail. */
static void fail_at(long k)
{
    failed = 0;
    countdown = k;
}

/* 1 when this program's allocator really is the one called. valgrind, like
 * a sanitizer, puts its own in place of it, and then no failure can be
 * injected: the tests that need one are skipped rather than failed. */
static int injection_works(void)
{
    fail_at(0);
    void *volatile p = malloc(16);
    countdown = -1;
    if (p) {
        free(p);
        return 0;
    }
    return 1;
}

/* What one point gave (a child's exit status). */
enum { GAVE_OK, GAVE_INVALID, GAVE_NOMEM, GAVE_WRONG, GAVE_OTHER, NOT_REACHED = 100 };
#define CRASHED (-1) /* json-c itself crashed: its bug, not seam's (the torture
                      * run counts these apart too) */

static int gave(int rc)
{
    return rc == SEAM_OK ? GAVE_OK : rc == SEAM_ERR_INVALID ? GAVE_INVALID
           : rc == SEAM_ERR_NOMEM ? GAVE_NOMEM : GAVE_OTHER;
}

/* Runs fn(arg) in a child with allocation k failing: NOT_REACHED when fn made
 * fewer than k+1 allocations, CRASHED, or fn's GAVE_* answer. json-c 0.16
 * crashes on some of its own failed allocations (a NULL key), hence the fork. */
static int at_point(long k, int (*fn)(const void *), const void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fail_at(k);
        int r = fn(arg);
        int hit = failed;
        countdown = -1;
        _exit(hit ? r : NOT_REACHED);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return CRASHED;
    return WIFEXITED(status) ? WEXITSTATUS(status) : CRASHED;
}

/* Well-formed texts exercising every allocation json-c makes: objects and
 * their keys, arrays and their growth, strings long enough to grow the
 * tokener's buffer, numbers, nesting. */
static const char *const valid_texts[] = {
    "{}",
    "{\"a\":1}",
    "{\"path\":\"/etc/hosts\",\"lines\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,"
    "22,23,24,25,26,27,28,29,30,31,32,33,34],\"flags\":{\"follow\":true,\"limit\":null,"
    "\"ratio\":0.5},\"note\":\"a string long enough to make the tokener's print buffer grow "
    "more than once, twice, three times over: 0123456789abcdef0123456789abcdef\"}",
    "{\"nested\":[[[{\"x\":[\"y\",{\"z\":-1.5e3}]}]]],\"dup\":1,\"dup\":2}",
    /* The torture run's tool-loop mock options, as the conf loader prints them. */
    "{\"chunks\":3,\"usage\":{\"input_tokens\":10,\"output_tokens\":5},\"replies\":[{\"reply\":"
    "\"Let me compute.\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"add\",\"args\":"
    "\"{\\\"a\\\": 2, \\\"b\\\": 3}\"},{\"id\":\"c2\",\"name\":\"fail\",\"args\":"
    "\"{\\\"why\\\": \\\"test\\\"}\"}]},{}]}",
    /* Many short members: the printer's buffer grows inside keys and numbers. */
    "{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,"
    "\"k9\":9,\"k10\":10,\"k11\":11,\"k12\":12,\"k13\":13,\"k14\":14,\"k15\":15,\"k16\":16,"
    "\"k17\":17,\"k18\":18,\"k19\":19,\"k20\":20,\"k21\":21,\"k22\":22,\"k23\":23}",
    /* A long string, then an integer (json-c clears errno reading it). */
    "{\"note\":\"a string long enough to make the tokener's print buffer grow more than once, "
    "twice, three times over: 0123456789abcdef0123456789abcdef0123456789\",\"n\":1}",
};

typedef struct {
    const char *text;
    const char *want; /* the undisturbed tree, printed */
} parse_case;

static int check_text(const void *arg)
{
    return gave(seam_json_check(((const parse_case *)arg)->text, 1));
}

/* A successful parse must hold the whole text (json-c drops a member whose
 * allocation fails and still succeeds). */
static int parse_text(const void *arg)
{
    const parse_case *pc = arg;
    json_object *got = NULL;
    int rc = seam_json_parse(pc->text, JSON_TOKENER_STRICT, 512, &got);
    int g = gave(rc);
    if (rc == SEAM_OK) {
        countdown = -1; /* the printing below is the test's, not under test */
        const char *s = json_object_to_json_string(got);
        if (!s || strcmp(s, pc->want) != 0)
            g = GAVE_WRONG;
    }
    json_object_put(got);
    return g;
}

/* Runs every point of fn; counts the answers. */
static void every_point(int (*fn)(const void *), const void *arg, int counts[GAVE_OTHER + 2])
{
    for (long k = 0; k < 100000; k++) {
        int r = at_point(k, fn, arg);
        if (r == NOT_REACHED)
            return;
        counts[r == CRASHED ? GAVE_OTHER + 1 : r > GAVE_OTHER ? GAVE_OTHER : r]++;
    }
}

/* ---- seam_json_check and seam_json_parse under every allocation failure ---------------- */

static void test_valid_text_never_invalid_for_lack_of_memory(void)
{
    for (size_t t = 0; t < sizeof valid_texts / sizeof valid_texts[0]; t++) {
        json_object *want = NULL;
        CU_ASSERT_EQUAL_FATAL(seam_json_parse(valid_texts[t], JSON_TOKENER_STRICT, 512, &want),
                              SEAM_OK);
        parse_case pc = { valid_texts[t], json_object_to_json_string(want) };
        int c[GAVE_OTHER + 2] = { 0 }, p[GAVE_OTHER + 2] = { 0 };
        every_point(check_text, &pc, c);
        every_point(parse_text, &pc, p);
        CU_ASSERT(c[GAVE_NOMEM] > 0);
        CU_ASSERT(p[GAVE_NOMEM] > 0);
        CU_ASSERT_EQUAL(c[GAVE_INVALID] + c[GAVE_WRONG] + c[GAVE_OTHER], 0);
        CU_ASSERT_EQUAL(p[GAVE_INVALID] + p[GAVE_WRONG] + p[GAVE_OTHER], 0);
        if (c[GAVE_INVALID] + p[GAVE_INVALID] + p[GAVE_WRONG] + c[GAVE_OTHER] + p[GAVE_OTHER])
            fprintf(stderr, "\ntext %zu: check gave %d invalid, parse %d invalid %d wrong\n", t,
                    c[GAVE_INVALID], p[GAVE_INVALID], p[GAVE_WRONG]);
        json_object_put(want);
    }
}

typedef struct {
    const char *text;
    const char *want;
} print_case;

/* seam_json_print gives the whole text or NULL, never a text short a piece
 * (json-c's printer skips what it cannot append). */
static int print_tree(const void *arg)
{
    const print_case *pc = arg;
    /* A fresh tree (json-c keeps a printed tree's buffer), built with the
     * armed failure held back: only the printing is under test. */
    long armed = countdown;
    countdown = -1;
    json_object *tree = json_tokener_parse(pc->text);
    countdown = armed;
    char *s = seam_json_print(tree, JSON_C_TO_STRING_PLAIN);
    int g = !s ? GAVE_NOMEM : strcmp(s, pc->want) == 0 ? GAVE_OK : GAVE_WRONG;
    free(s);
    json_object_put(tree);
    return g;
}

static void test_print_whole_or_nothing(void)
{
    for (size_t t = 0; t < sizeof valid_texts / sizeof valid_texts[0]; t++) {
        json_object *tree = json_tokener_parse(valid_texts[t]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(tree);
        print_case pc = { valid_texts[t], json_object_to_json_string_ext(tree, JSON_C_TO_STRING_PLAIN) };
        int c[GAVE_OTHER + 2] = { 0 };
        every_point(print_tree, &pc, c);
        CU_ASSERT(c[GAVE_NOMEM] > 0);
        CU_ASSERT_EQUAL(c[GAVE_WRONG], 0);
        if (c[GAVE_WRONG])
            fprintf(stderr, "\ntext %zu: %d points printed it short\n", t, c[GAVE_WRONG]);
        json_object_put(tree);
    }
}

static int check_any(const void *arg)
{
    return gave(seam_json_check(arg, 0));
}

static void test_invalid_text_stays_invalid(void)
{
    static const char *const texts[] = { "{\"a\":1,}", "[1 2]", "{\"a\":\"unterminated", "{} x" };
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        CU_ASSERT_EQUAL(seam_json_check(texts[t], 0), SEAM_ERR_INVALID);
        int c[GAVE_OTHER + 2] = { 0 };
        every_point(check_any, texts[t], c);
        /* Invalid either way; out of memory only when the tokener itself
         * could not be made. */
        CU_ASSERT_EQUAL(c[GAVE_OK] + c[GAVE_OTHER], 0);
        CU_ASSERT(c[GAVE_INVALID] > 0);
    }
}

/* ---- the schema validator ----------------------------------------------------------- */

static const char schema[] =
    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"minLength\":1},"
    "\"lines\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},"
    "\"mode\":{\"enum\":[\"r\",\"w\"]}},\"required\":[\"path\",\"lines\"],"
    "\"additionalProperties\":false}";

static int validate_value(const void *arg)
{
    char msg[256];
    int rc = seam_schema_validate(schema, arg, msg, sizeof msg);
    if (rc == SEAM_ERR_NOMEM && strcmp(msg, "out of memory") != 0)
        return GAVE_OTHER;
    return gave(rc);
}

static void test_schema_verdict_or_nomem(void)
{
    static const struct {
        const char *value;
        int verdict;
    } cases[] = {
        { "{\"path\":\"/etc/hosts\",\"lines\":[1,2,3,4,5,6,7,8,9,10],\"mode\":\"r\"}", GAVE_OK },
        { "{\"path\":\"/etc/hosts\",\"lines\":[1,2,\"three\"]}", GAVE_INVALID },
        { "{\"path\":\"/etc/hosts\"}", GAVE_INVALID },
        { "{\"path\":\"x\",\"lines\":[],\"other\":1}", GAVE_INVALID },
        { "not json", GAVE_INVALID },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CU_ASSERT_EQUAL(validate_value(cases[i].value), cases[i].verdict);
        int c[GAVE_OTHER + 2] = { 0 };
        every_point(validate_value, cases[i].value, c);
        int other = cases[i].verdict == GAVE_OK ? GAVE_INVALID : GAVE_OK;
        CU_ASSERT(c[GAVE_NOMEM] > 0);
        CU_ASSERT_EQUAL(c[other] + c[GAVE_WRONG] + c[GAVE_OTHER], 0);
        if (c[other] + c[GAVE_OTHER])
            fprintf(stderr, "\ncase %zu: %d points gave the wrong verdict, %d a bad message\n", i,
                    c[other], c[GAVE_OTHER]);
    }
}
#endif /* !TU_SANITIZED */

/* ---- the scanner against json-c ------------------------------------------------------- */

/* json-c's own verdict, strict, at a given nesting limit. */
static int jsonc_accepts(const char *text, int utf8, int depth)
{
    json_tokener *tok = json_tokener_new_ex(depth);
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | (utf8 ? JSON_TOKENER_VALIDATE_UTF8 : 0));
    json_object *o = json_tokener_parse_ex(tok, text, (int)strlen(text) + 1);
    int ok = json_tokener_get_error(tok) == json_tokener_success;
    json_object_put(o);
    json_tokener_free(tok);
    return ok;
}

static void test_scanner_never_more_lenient_than_jsonc(void)
{
    /* What the scanner accepts, json-c must accept (else a text json-c
     * refuses would be blamed on memory); json-c's leniencies (NaN, "1.",
     * overlong UTF-8) the scanner may refuse. */
    static const struct {
        const char *text;
        int scan;
    } table[] = {
        { "{}", 1 }, { " 1 ", 1 }, { "-0", 1 }, { "-1.5e-3", 1 }, { "1E+2", 1 },
        { "true", 1 }, { "null", 1 }, { "\"\\u00e9\\n\\/\"", 1 }, { "\"\xc3\xa9\"", 1 },
        { "\"a\tb\"", 1 }, { "[[],{},[{\"a\":[]}]]", 1 }, { "99999999999999999999999", 1 },
        { "", 0 }, { "  ", 0 }, { "{", 0 }, { "01", 0 }, { "1.", 0 }, { "1e", 0 }, { "-", 0 },
        { "NaN", 0 }, { "tru", 0 }, { "True", 0 }, { "[1,]", 0 }, { "{\"a\":1,}", 0 },
        { "[1 2]", 0 }, { "{} x", 0 }, { "\"\\x\"", 0 }, { "\"\\u12\"", 0 }, { "\"\xc3\"", 0 },
        { "\"\xed\xa0\x80\"", 0 }, { "\"\xc0\x80\"", 0 }, { "\"\xf4\x90\x80\x80\"", 0 },
        { "\xef\xbb\xbf{}", 0 }, { "{\"a\" 1}", 0 }, { "{1:2}", 0 }, { "'a'", 0 },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int got = seam_json_scan(table[i].text, 1, 512, NULL, NULL);
        CU_ASSERT_EQUAL(got, table[i].scan);
        if (got != table[i].scan)
            fprintf(stderr, "\nscan(\"%s\") gave %d\n", table[i].text, got);
        if (got)
            CU_ASSERT(jsonc_accepts(table[i].text, 1, 512));
    }
    /* The nesting limit is json-c's own, at every depth. */
    static const char *const nests[] = { "1", "[]", "[1]", "[[]]", "[[1]]", "[[[]]]",
                                         "{\"a\":{}}", "{\"a\":[1]}", "{\"a\":{\"b\":1}}" };
    for (int depth = 1; depth <= 4; depth++)
        for (size_t i = 0; i < sizeof nests / sizeof nests[0]; i++)
            CU_ASSERT_EQUAL(seam_json_scan(nests[i], 0, depth, NULL, NULL),
                            jsonc_accepts(nests[i], 0, depth));
    size_t n = 0;
    char top = 0;
    CU_ASSERT(seam_json_scan(" {\"a\":[1,null,{\"b\":\"c\"}],\"d\":{}}", 1, 512, &n, &top));
    CU_ASSERT_EQUAL(n, 7); /* the object, the array, 1, null, {b}, "c", {} */
    CU_ASSERT_EQUAL(top, '{');
}

#if !TU_SANITIZED
/* all[1..]: allocation failures, which need this program's own allocator. */
static const tu_test all[] = {
    { "scanner never more lenient than json-c", test_scanner_never_more_lenient_than_jsonc },
    { "valid text never invalid for lack of memory", test_valid_text_never_invalid_for_lack_of_memory },
    { "invalid text stays invalid", test_invalid_text_stays_invalid },
    { "print whole or nothing", test_print_whole_or_nothing },
    { "schema verdict or out of memory", test_schema_verdict_or_nomem },
    { NULL, NULL },
};
#endif

static const tu_test no_injection[] = {
    { "scanner never more lenient than json-c", test_scanner_never_more_lenient_than_jsonc },
    { NULL, NULL },
};

int main(void)
{
#if !TU_SANITIZED
    if (injection_works())
        return tu_run_suite("json_oom", all, NULL);
    printf("test_json_oom: this program's allocator was replaced (valgrind?): "
           "the allocation-failure tests are skipped\n");
#endif
    return tu_run_suite("json_oom", no_injection, NULL);
}
