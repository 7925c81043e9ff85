/* test_jsonschema.c — seam_schema_validate(): each covered keyword accepting
 * and rejecting, the messages (JSON pointer of the failing value and the
 * reason), ECMA-262 patterns on PCRE2 (classes, lazy quantifiers, code
 * points, lookaround, ECMA's "$" and \u), invalid patterns refused when the
 * schema loads, the compile and match limits (issue 11 items 2 and 3), $ref
 * inside the document and its recursion bound, and bad input. The official suite is run by schema_suite. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <seam/seam.h>
#include "testutil.h"


static char msg[512];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int valid(const char *schema, const char *value)
{
    return seam_schema_validate(schema, value, msg, sizeof msg) == SEAM_OK;
}

/* Rejected, and the message mentions `needle`. */
static int rejected_with(const char *schema, const char *value, const char *needle)
{
    int rc = seam_schema_validate(schema, value, msg, sizeof msg);
    if (rc != SEAM_ERR_INVALID)
        return 0;
    if (!strstr(msg, needle)) {
        fprintf(stderr, "\n  message \"%s\" lacks \"%s\"\n", msg, needle);
        return 0;
    }
    return 1;
}

static void test_type(void)
{
    CU_ASSERT(valid("{\"type\":\"integer\"}", "3"));
    CU_ASSERT(valid("{\"type\":\"integer\"}", "3.0"));
    CU_ASSERT(rejected_with("{\"type\":\"integer\"}", "3.5", "expected integer, got number"));
    CU_ASSERT(valid("{\"type\":\"number\"}", "3"));
    CU_ASSERT(rejected_with("{\"type\":\"string\"}", "null", "got null"));
    CU_ASSERT(valid("{\"type\":[\"string\",\"null\"]}", "null"));
    CU_ASSERT(rejected_with("{\"type\":[\"string\",\"null\"]}", "1", "not one of the allowed types"));
    CU_ASSERT(valid("{\"type\":\"object\"}", "{}"));
    CU_ASSERT(!valid("{\"type\":\"object\"}", "[]"));
    CU_ASSERT(valid("{\"type\":\"array\"}", "[]"));
    CU_ASSERT(valid("{\"type\":\"boolean\"}", "false"));
    CU_ASSERT(!valid("{\"type\":\"boolean\"}", "0"));
}

static void test_objects(void)
{
    const char *s = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
                    "\"days\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":14}},"
                    "\"required\":[\"city\"],\"additionalProperties\":false}";
    CU_ASSERT(valid(s, "{\"city\":\"Oslo\",\"days\":3}"));
    CU_ASSERT(rejected_with(s, "{\"days\":3}", "missing required property \"city\""));
    CU_ASSERT(rejected_with(s, "{\"city\":\"Oslo\",\"days\":0}", "/days: 0 is less than the minimum 1"));
    CU_ASSERT(rejected_with(s, "{\"city\":\"Oslo\",\"days\":15}", "greater than the maximum 14"));
    CU_ASSERT(rejected_with(s, "{\"city\":7}", "/city: expected string"));
    CU_ASSERT(rejected_with(s, "{\"city\":\"Oslo\",\"units\":\"C\"}", "property \"units\" is not allowed"));
    /* additionalProperties as a schema, patternProperties, propertyNames */
    CU_ASSERT(valid("{\"additionalProperties\":{\"type\":\"integer\"}}", "{\"a\":1,\"b\":2}"));
    CU_ASSERT(rejected_with("{\"additionalProperties\":{\"type\":\"integer\"}}", "{\"a\":1,\"b\":\"x\"}", "/b"));
    CU_ASSERT(valid("{\"patternProperties\":{\"^x-\":{\"type\":\"string\"}},\"additionalProperties\":false}",
                    "{\"x-a\":\"1\"}"));
    CU_ASSERT(!valid("{\"patternProperties\":{\"^x-\":{\"type\":\"string\"}},\"additionalProperties\":false}",
                     "{\"y\":\"1\"}"));
    CU_ASSERT(!valid("{\"propertyNames\":{\"maxLength\":3}}", "{\"long\":1}"));
    CU_ASSERT(valid("{\"minProperties\":1,\"maxProperties\":2}", "{\"a\":1}"));
    CU_ASSERT(!valid("{\"maxProperties\":1}", "{\"a\":1,\"b\":2}"));
    CU_ASSERT(!valid("{\"dependentRequired\":{\"a\":[\"b\"]}}", "{\"a\":1}"));
    /* The pointer escapes ~ and / in names. */
    CU_ASSERT(rejected_with("{\"properties\":{\"a/b~c\":{\"type\":\"string\"}}}", "{\"a/b~c\":1}", "/a~1b~0c"));
}

static void test_arrays(void)
{
    CU_ASSERT(valid("{\"items\":{\"type\":\"integer\"}}", "[1,2,3]"));
    CU_ASSERT(rejected_with("{\"items\":{\"type\":\"integer\"}}", "[1,\"2\"]", "/1: expected integer"));
    CU_ASSERT(valid("{\"prefixItems\":[{\"type\":\"string\"}],\"items\":{\"type\":\"integer\"}}", "[\"a\",1,2]"));
    CU_ASSERT(!valid("{\"prefixItems\":[{\"type\":\"string\"}],\"items\":false}", "[\"a\",1]"));
    CU_ASSERT(!valid("{\"minItems\":2}", "[1]"));
    CU_ASSERT(!valid("{\"maxItems\":1}", "[1,2]"));
    CU_ASSERT(!valid("{\"uniqueItems\":true}", "[1,{\"a\":[1]},1.0]"));
    CU_ASSERT(valid("{\"uniqueItems\":true}", "[1,{\"a\":[1]},{\"a\":[2]}]"));
    CU_ASSERT(valid("{\"contains\":{\"const\":3}}", "[1,3]"));
    CU_ASSERT(!valid("{\"contains\":{\"const\":3}}", "[1,2]"));
    CU_ASSERT(!valid("{\"contains\":{\"const\":3},\"maxContains\":1}", "[3,3]"));
}

static void test_values(void)
{
    CU_ASSERT(valid("{\"enum\":[\"c\",\"f\",1]}", "\"f\""));
    CU_ASSERT(valid("{\"enum\":[\"c\",\"f\",1]}", "1.0"));
    CU_ASSERT(rejected_with("{\"enum\":[\"c\",\"f\"]}", "\"k\"", "\"k\" is not one of the allowed values"));
    CU_ASSERT(valid("{\"const\":{\"a\":[1,2]}}", "{\"a\":[1,2.0]}"));
    CU_ASSERT(!valid("{\"const\":{\"a\":[1,2]}}", "{\"a\":[2,1]}"));
    CU_ASSERT(valid("{\"const\":null}", "null"));
    CU_ASSERT(!valid("{\"const\":false}", "0"));
    CU_ASSERT(!valid("{\"exclusiveMinimum\":0}", "0"));
    CU_ASSERT(valid("{\"exclusiveMaximum\":1}", "0.999"));
    CU_ASSERT(valid("{\"multipleOf\":0.01}", "0.07"));
    CU_ASSERT(!valid("{\"multipleOf\":2}", "7"));
    /* Large integers compare exactly. */
    CU_ASSERT(!valid("{\"maximum\":9007199254740992}", "9007199254740993"));
}

static void test_strings(void)
{
    /* Lengths count code points: "ééé" is 3 characters, 6 bytes. */
    CU_ASSERT(valid("{\"maxLength\":3}", "\"\xc3\xa9\xc3\xa9\xc3\xa9\""));
    CU_ASSERT(rejected_with("{\"maxLength\":2}", "\"\xc3\xa9\xc3\xa9\xc3\xa9\"", "longer than 2"));
    CU_ASSERT(rejected_with("{\"minLength\":4}", "\"abc\"", "shorter than 4"));
    CU_ASSERT(valid("{\"minLength\":1}", "\"\\ud83d\\ude00\""));
}

static void test_patterns(void)
{
    CU_ASSERT(valid("{\"pattern\":\"^[a-z]+\\\\d{2,3}$\"}", "\"abc12\""));
    CU_ASSERT(rejected_with("{\"pattern\":\"^[a-z]+\\\\d{2,3}$\"}", "\"abc1\"", "does not match the pattern"));
    /* Unanchored: a search. */
    CU_ASSERT(valid("{\"pattern\":\"b+\"}", "\"abbbc\""));
    CU_ASSERT(!valid("{\"pattern\":\"^b+$\"}", "\"abbbc\""));
    /* Classes, inside and outside brackets. */
    CU_ASSERT(valid("{\"pattern\":\"^\\\\w+@\\\\w+\\\\.\\\\w+$\"}", "\"me@example.org\""));
    CU_ASSERT(!valid("{\"pattern\":\"^\\\\w+@\\\\w+\\\\.\\\\w+$\"}", "\"me@exampleXorg\""));
    CU_ASSERT(valid("{\"pattern\":\"^[\\\\d\\\\s-]+$\"}", "\"12 34-5\""));
    CU_ASSERT(!valid("{\"pattern\":\"^[\\\\d\\\\s-]+$\"}", "\"12a\""));
    CU_ASSERT(valid("{\"pattern\":\"^\\\\S+$\"}", "\"abc\""));
    CU_ASSERT(!valid("{\"pattern\":\"^\\\\S+$\"}", "\"a c\""));
    /* Non-capturing groups and lazy quantifiers. */
    CU_ASSERT(valid("{\"pattern\":\"^(?:ab)+?c$\"}", "\"ababc\""));
    CU_ASSERT(!valid("{\"pattern\":\"^(?:ab)+?c$\"}", "\"abac\""));
    /* "." is one code point. */
    CU_ASSERT(valid("{\"pattern\":\"^.$\"}", "\"\xc3\xa9\""));
    CU_ASSERT(valid("{\"pattern\":\"^\\\\p{L}+$\"}", "\"\xc3\xa9t\xc3\xa9\""));
    CU_ASSERT(!valid("{\"pattern\":\"^\\\\p{L}+$\"}", "\"42\""));
    /* Literal braces and escaped punctuation. */
    CU_ASSERT(valid("{\"pattern\":\"^\\\\{x\\\\}\\\\$$\"}", "\"{x}$\""));
    /* Lookaround and backreferences are enforced (once silently ignored). */
    CU_ASSERT(rejected_with("{\"pattern\":\"^(?!admin).*$\"}", "\"admin\"", "does not match"));
    CU_ASSERT(valid("{\"pattern\":\"^(?!admin).*$\"}", "\"user\""));
    CU_ASSERT(valid("{\"pattern\":\"^(?=.*\\\\d)\\\\w+$\"}", "\"ab1\""));
    CU_ASSERT(!valid("{\"pattern\":\"^(?=.*\\\\d)\\\\w+$\"}", "\"abc\""));
    CU_ASSERT(valid("{\"pattern\":\"(?<=\\\\$)\\\\d+\"}", "\"cost $12\""));
    CU_ASSERT(!valid("{\"pattern\":\"(?<=\\\\$)\\\\d+\"}", "\"cost 12\""));
    CU_ASSERT(!valid("{\"pattern\":\"^\\\\w+(?<!_tmp)$\"}", "\"file_tmp\""));
    CU_ASSERT(valid("{\"pattern\":\"(a)\\\\1\"}", "\"xaay\""));
    CU_ASSERT(!valid("{\"pattern\":\"(a)\\\\1\"}", "\"xyz\""));
    CU_ASSERT(valid("{\"pattern\":\"^(?<w>[a-z]+) \\\\k<w>$\"}", "\"the the\""));
    CU_ASSERT(valid("{\"pattern\":\"\\\\bcat\\\\b\"}", "\"a cat sat\""));
    CU_ASSERT(!valid("{\"pattern\":\"\\\\bcat\\\\b\"}", "\"concatenate\""));
}

/* ECMA-262 semantics where PCRE2's defaults differ. */
static void test_pattern_ecma(void)
{
    /* "$" is the very end: not before a final newline. */
    CU_ASSERT(!valid("{\"pattern\":\"^abc$\"}", "\"abc\\n\""));
    /* \uXXXX and \u{...} escapes, \xXX. */
    CU_ASSERT(valid("{\"pattern\":\"^\\\\u00e9$\"}", "\"\xc3\xa9\""));
    CU_ASSERT(valid("{\"pattern\":\"^\\\\u{1F600}$\"}", "\"\\ud83d\\ude00\""));
    CU_ASSERT(valid("{\"pattern\":\"^\\\\x41$\"}", "\"A\""));
    /* [] matches nothing, [^] any character. */
    CU_ASSERT(!valid("{\"pattern\":\"a[]\"}", "\"a]\""));
    CU_ASSERT(valid("{\"pattern\":\"^a[^]$\"}", "\"a\\n\""));
    /* \d and \w are ASCII. */
    CU_ASSERT(!valid("{\"pattern\":\"^\\\\d$\"}", "\"\xd9\xa3\""));
    /* \s is ECMA's white space (NBSP, U+2003, U+FEFF), \v is U+000B. */
    CU_ASSERT(valid("{\"pattern\":\"^\\\\s+$\"}", "\"\xc2\xa0\xe2\x80\x83\xef\xbb\xbf \\t\""));
    CU_ASSERT(!valid("{\"pattern\":\"^\\\\S$\"}", "\"\xc2\xa0\""));
    CU_ASSERT(valid("{\"pattern\":\"^[x\\\\s]+$\"}", "\"x\xe3\x80\x80x\""));
    CU_ASSERT(valid("{\"pattern\":\"^\\\\v$\"}", "\"\\u000b\""));
    CU_ASSERT(!valid("{\"pattern\":\"^\\\\v$\"}", "\"\\n\""));
    /* Long category names, gc=, and a surrogate pair written as two escapes. */
    CU_ASSERT(valid("{\"pattern\":\"^\\\\p{Letter}+\\\\P{Letter}$\"}", "\"\xc3\xa9t\xc3\xa9!\""));
    CU_ASSERT(valid("{\"pattern\":\"^\\\\p{gc=Uppercase_Letter}$\"}", "\"\xc3\x89\""));
    CU_ASSERT(!valid("{\"pattern\":\"^\\\\p{Lowercase_Letter}$\"}", "\"\xc3\x89\""));
    CU_ASSERT(valid("{\"pattern\":\"^\\\\ud83d\\\\ude00$\"}", "\"\\ud83d\\ude00\""));
    /* An escaped backslash is not the start of an escape. */
    CU_ASSERT(valid("{\"pattern\":\"^\\\\\\\\s$\"}", "\"\\\\s\""));
    /* A string with broken UTF-8 is searched, not an error. */
    CU_ASSERT(valid("{\"pattern\":\"b\"}", "\"a\xff" "b\""));
}

/* A pattern PCRE2 refuses makes the schema invalid, naming the pattern and
 * the offset: never a check quietly skipped. */
static void test_pattern_invalid(void)
{
    CU_ASSERT(rejected_with("{\"pattern\":\"(abc\"}", "\"abc\"",
                            "invalid schema: pattern \"(abc\" at offset 4: missing closing parenthesis"));
    CU_ASSERT(rejected_with("{\"properties\":{\"a\":{\"pattern\":\"a**\"}}}", "{}", "at offset 2"));
    /* The offset is in the pattern as written, also after a rewritten \s. */
    CU_ASSERT(rejected_with("{\"pattern\":\"\\\\s\\\\s(\"}", "\"a\"", "at offset 5:"));
    CU_ASSERT(rejected_with("{\"pattern\":\"\\\\p{Nope}\"}", "\"a\"", "unknown property"));
    CU_ASSERT(rejected_with("{\"patternProperties\":{\"[z-a]\":{}}}", "{}", "invalid schema: pattern \"[z-a]\""));
    /* Refused even when no value reaches the pattern. */
    CU_ASSERT(rejected_with("{\"anyOf\":[true,{\"items\":{\"pattern\":\"(\"}}]}", "1", "invalid schema"));
    /* A "pattern" inside const or enum is data, not a schema. */
    CU_ASSERT(valid("{\"const\":{\"pattern\":\"(\"}}", "{\"pattern\":\"(\"}"));
    /* Reached through a $ref into a place loading does not walk: refused
     * when it is used. */
    CU_ASSERT(rejected_with("{\"x\":{\"pattern\":\"(\"},\"$ref\":\"#/x\"}", "\"a\"", "invalid schema: pattern"));
    CU_ASSERT(valid("{\"x\":{\"pattern\":\"^a\"},\"$ref\":\"#/x\"}", "\"ab\""));
    CU_ASSERT(!valid("{\"x\":{\"pattern\":\"^a\"},\"$ref\":\"#/x\"}", "\"ba\""));
    /* A toolset refuses the definition. */
    seam_toolset *ts = seam_toolset_new();
    CU_ASSERT_EQUAL(seam_toolset_add(ts, "t", "d", "{\"properties\":{\"a\":{\"pattern\":\"[a\"}}}", NULL, NULL),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_toolset_count(ts), 0);
    CU_ASSERT_EQUAL(seam_toolset_add(ts, "t", "d", "{\"properties\":{\"a\":{\"pattern\":\"^(?!x)\"}}}", NULL, NULL),
                    SEAM_OK);
    seam_toolset_free(ts);
}

/* Issue 11.2: a pattern of 32+ bytes with an unclosed "[" (the old ECMA to
 * POSIX translation read past its end: ASan saw it). */
static void test_pattern_unclosed_bracket(void)
{
    CU_ASSERT(rejected_with("{\"pattern\":\"[abcdefghijklmnopqrstuvwxyz0123456789\"}", "\"a\"",
                            "missing terminating ] for character class"));
    CU_ASSERT(rejected_with("{\"pattern\":\"[abcdefghijklmnopqrstuvwxyz0123456789\\\\\"}", "\"a\"",
                            "invalid schema: pattern"));
    CU_ASSERT(rejected_with("{\"pattern\":\"x[abcdefghijklmnopqrstuvwxyz0123456789\\\\d\\\\\"}", "\"a\"",
                            "invalid schema: pattern"));
    CU_ASSERT(rejected_with("{\"patternProperties\":{\"[abcdefghijklmnopqrstuvwxyz0123456789\\\\\":{}}}", "{\"a\":1}",
                            "invalid schema: pattern"));
}


/* Runs fn in a child limited to 256 MB of address space (not under ASan,
 * which reserves terabytes of it) and 20 s: 1 when it returned 1. */
static int within_limits(int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
#if !TU_SANITIZED /* ASan reserves terabytes of address space: no RLIMIT_AS under it */
        struct rlimit rl = { (rlim_t)256 << 20, (rlim_t)256 << 20 };
        setrlimit(RLIMIT_AS, &rl);
#endif
        alarm(20);
        _exit(fn() ? 0 : 1);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fprintf(stderr, "\n  child status %#x\n", st);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Issue 11.3: with regcomp, each nested "+" doubled the memory (22 took
 * 3 GB). Nested repeats now compile and run in bounded memory; "a++…" (not
 * ECMA) is refused at once. */
static int plus_patterns(void)
{
    char pat[128] = "a", schema[512], m[512];
    memset(pat + 1, '+', 22);
    pat[23] = '\0';
    snprintf(schema, sizeof schema, "{\"pattern\":\"%s\"}", pat);
    if (seam_schema_validate(schema, "\"aaa\"", m, sizeof m) != SEAM_ERR_INVALID || !strstr(m, "invalid schema"))
        return 0;
    /* ((((a+)+)+)...) 22 deep: the form whose regcomp memory doubled with
     * each level (18 took 190 MB, 22 took 3 GB). */
    char deep[256] = "";
    for (int i = 0; i < 22; i++)
        strcat(deep, "(");
    strcat(deep, "a");
    for (int i = 0; i < 22; i++)
        strcat(deep, "+)");
    snprintf(schema, sizeof schema, "{\"pattern\":\"%s\"}", deep);
    if (seam_schema_validate(schema, "\"xaaa\"", m, sizeof m) != SEAM_OK ||
        seam_schema_validate(schema, "\"bbb\"", m, sizeof m) != SEAM_ERR_INVALID)
        return 0;
    /* ((((a+)+)+)...)+ anchored, and (?:a+)+ repeated 22 times */
    char nested[256] = "";
    for (int i = 0; i < 22; i++)
        strcat(nested, "(");
    strcat(nested, "a+");
    for (int i = 0; i < 22; i++)
        strcat(nested, ")+");
    snprintf(schema, sizeof schema, "{\"pattern\":\"^%s$\"}", nested);
    if (seam_schema_validate(schema, "\"aaaaaaaa\"", m, sizeof m) != SEAM_OK)
        return 0;
    if (seam_schema_validate(schema, "\"aaaaaaaaaaaaaaaaaaaaaaaaaaab\"", m, sizeof m) != SEAM_ERR_INVALID)
        return 0;
    char seq[256] = "";
    for (int i = 0; i < 22; i++)
        strcat(seq, "(?:a+)+");
    snprintf(schema, sizeof schema, "{\"pattern\":\"^%s$\"}", seq);
    /* Exponential to search: it ends at the match limit, refused. */
    return seam_schema_validate(schema, "\"aaaaaaaaaaaaaaaaaaaaaaaaab\"", m, sizeof m) == SEAM_ERR_INVALID &&
           strstr(m, "backtracking limit");
}

static void test_pattern_memory(void)
{
    double t0 = now_s();
    CU_ASSERT(within_limits(plus_patterns));
    CU_ASSERT(now_s() - t0 < 20);
    /* Past the length cap or the nesting cap: refused, not compiled. */
    static char big[20000];
    int n = snprintf(big, sizeof big, "{\"pattern\":\"");
    memset(big + n, 'a', 9000);
    strcpy(big + n + 9000, "\"}");
    CU_ASSERT(rejected_with(big, "\"a\"", "invalid schema: pattern"));
    n = snprintf(big, sizeof big, "{\"pattern\":\"");
    for (int i = 0; i < 300; i++)
        big[n++] = '(';
    for (int i = 0; i < 300; i++)
        big[n++] = ')';
    strcpy(big + n, "\"}");
    CU_ASSERT(rejected_with(big, "\"a\"", "invalid schema: pattern"));
}

/* Catastrophic backtracking reaches the match limit: the value is refused,
 * quickly, with a message that says why. */
static void test_pattern_backtracking(void)
{
    char value[128] = "\"";
    memset(value + 1, 'a', 40);
    strcpy(value + 41, "b\"");
    double t0 = now_s();
    CU_ASSERT(rejected_with("{\"pattern\":\"^(a+)+$\"}", value, "backtracking limit"));
    CU_ASSERT(rejected_with("{\"properties\":{\"s\":{\"pattern\":\"(x+x+)+y\"}}}",
                            "{\"s\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxz y\"}", "/s: matching the pattern"));
    /* As a property name: refused, not skipped. */
    char obj[160];
    snprintf(obj, sizeof obj, "{%s:1}", value);
    CU_ASSERT(rejected_with("{\"patternProperties\":{\"^(a+)+$\":{\"type\":\"string\"}}}", obj, "backtracking limit"));
    /* Under "not" a limit hit refuses too: it is not taken as a mismatch
     * that "not" would turn into an acceptance. */
    CU_ASSERT(rejected_with("{\"not\":{\"pattern\":\"^(a+)+$\"}}", value, "backtracking limit"));
    CU_ASSERT(rejected_with("{\"anyOf\":[{\"pattern\":\"^(a+)+$\"},{\"type\":\"string\"}]}", value, "backtracking limit"));
    double took = now_s() - t0;
    CU_ASSERT(took < 10);
    fprintf(stderr, "(5 limit hits in %.3f s) ", took);
    /* A deep but linear match still works. */
    static char longv[200010];
    longv[0] = '"';
    for (int i = 1; i <= 200000; i++)
        longv[i] = i % 2 ? 'a' : 'b';
    strcpy(longv + 200001, "\"");
    CU_ASSERT(valid("{\"pattern\":\"^[ab]*$\"}", longv));
}

static void test_combinators(void)
{
    const char *any = "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\",\"minimum\":0}]}";
    CU_ASSERT(valid(any, "\"x\""));
    CU_ASSERT(valid(any, "3"));
    CU_ASSERT(rejected_with(any, "-1", "none of the anyOf"));
    const char *one = "{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":2}]}";
    CU_ASSERT(valid(one, "1"));
    CU_ASSERT(valid(one, "2.5"));
    CU_ASSERT(rejected_with(one, "3", "more than one of the oneOf"));
    CU_ASSERT(rejected_with("{\"allOf\":[{\"type\":\"integer\"},{\"maximum\":5}]}", "6", "maximum 5"));
    CU_ASSERT(!valid("{\"not\":{\"type\":\"null\"}}", "null"));
    CU_ASSERT(valid("{\"not\":{\"type\":\"null\"}}", "0"));
    CU_ASSERT(valid("{\"if\":{\"minimum\":10},\"then\":{\"multipleOf\":10},\"else\":{\"maximum\":5}}", "20"));
    CU_ASSERT(!valid("{\"if\":{\"minimum\":10},\"then\":{\"multipleOf\":10},\"else\":{\"maximum\":5}}", "7"));
}

static void test_boolean_schemas_and_refs(void)
{
    CU_ASSERT(valid("true", "{\"anything\":1}"));
    CU_ASSERT(rejected_with("false", "1", "no value is allowed"));
    CU_ASSERT(valid("{}", "[1,\"a\"]"));
    const char *s = "{\"$defs\":{\"pos\":{\"type\":\"integer\",\"minimum\":1}},"
                    "\"properties\":{\"n\":{\"$ref\":\"#/$defs/pos\"}}}";
    CU_ASSERT(valid(s, "{\"n\":2}"));
    CU_ASSERT(rejected_with(s, "{\"n\":0}", "/n"));
    /* A recursive tree. */
    const char *tree = "{\"type\":\"object\",\"properties\":{\"kids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}},"
                       "\"v\":{\"type\":\"integer\"}}}";
    CU_ASSERT(valid(tree, "{\"v\":1,\"kids\":[{\"v\":2,\"kids\":[]},{\"v\":3}]}"));
    CU_ASSERT(rejected_with(tree, "{\"kids\":[{\"kids\":[{\"v\":\"x\"}]}]}", "/kids/0/kids/0/v"));
    /* A cycle that never reaches a value is bounded, not a crash. */
    CU_ASSERT(rejected_with("{\"$ref\":\"#\"}", "1", "too deep"));
    /* Branching on the same value is exponential: bounded, refused quickly
     * (both hung before: found reading the validator, not by the fuzzer). */
    double t0 = now_s();
    CU_ASSERT(rejected_with("{\"allOf\":[{\"$ref\":\"#\"},{\"$ref\":\"#\"}]}", "1", "too deep"));
    CU_ASSERT(rejected_with("{\"anyOf\":[{\"$ref\":\"#\"},{\"$ref\":\"#\"}]}", "1", "too deep"));
    static char chain[8192];
    size_t n = (size_t)snprintf(chain, sizeof chain, "{\"$ref\":\"#/$defs/d0\",\"$defs\":{");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(chain + n, sizeof chain - n,
                              "\"d%d\":{\"allOf\":[{\"$ref\":\"#/$defs/d%d\"},{\"$ref\":\"#/$defs/d%d\"}]},", i,
                              i + 1, i + 1);
    snprintf(chain + n, sizeof chain - n, "\"d40\":{\"type\":\"integer\"}}}");
    CU_ASSERT(rejected_with(chain, "1", "too costly to check"));
    CU_ASSERT(now_s() - t0 < 10);
    /* The same chain 10 deep is 2^10 evaluations: fine. */
    n = (size_t)snprintf(chain, sizeof chain, "{\"$ref\":\"#/$defs/d0\",\"$defs\":{");
    for (int i = 0; i < 10; i++)
        n += (size_t)snprintf(chain + n, sizeof chain - n,
                              "\"d%d\":{\"allOf\":[{\"$ref\":\"#/$defs/d%d\"},{\"$ref\":\"#/$defs/d%d\"}]},", i,
                              i + 1, i + 1);
    snprintf(chain + n, sizeof chain - n, "\"d10\":{\"type\":\"integer\"}}}");
    CU_ASSERT(valid(chain, "1"));
    CU_ASSERT(rejected_with(chain, "\"x\"", "expected integer"));
    /* A reference out of the document is ignored. */
    CU_ASSERT(valid("{\"$ref\":\"https://example.org/schema.json\"}", "1"));
}

static void test_bad_input(void)
{
    CU_ASSERT(rejected_with("{not json", "1", "invalid schema"));
    CU_ASSERT(rejected_with("{}", "{oops", "not JSON"));
    CU_ASSERT(rejected_with("[1]", "1", "invalid schema"));
    CU_ASSERT_EQUAL(seam_schema_validate(NULL, "1", msg, sizeof msg), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_schema_validate("{}", NULL, NULL, 0), SEAM_ERR_INVALID);
    /* A tiny message buffer is truncated, never overrun. */
    char small[8];
    CU_ASSERT_EQUAL(seam_schema_validate("{\"type\":\"string\"}", "1", small, sizeof small), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(strlen(small), 7);
    CU_ASSERT_EQUAL(seam_schema_validate("{\"type\":\"string\"}", "1", NULL, 0), SEAM_ERR_INVALID);
}

static const tu_test tests[] = {
    { "type", test_type },
    { "objects", test_objects },
    { "arrays", test_arrays },
    { "values", test_values },
    { "strings", test_strings },
    { "patterns", test_patterns },
    { "patterns: ECMA-262 semantics", test_pattern_ecma },
    { "patterns: invalid ones refused", test_pattern_invalid },
    { "patterns: unclosed bracket (issue 11.2)", test_pattern_unclosed_bracket },
    { "patterns: bounded memory (issue 11.3)", test_pattern_memory },
    { "patterns: backtracking limit", test_pattern_backtracking },
    { "combinators", test_combinators },
    { "boolean schemas and refs", test_boolean_schemas_and_refs },
    { "bad input", test_bad_input },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("jsonschema", tests, NULL);
}
