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

/* A value checked against a schema, and what the validator must say: ""
 * (accepted), or a refusal (SEAM_ERR_INVALID) whose message holds the text.
 * group names the test that checks it. */
typedef struct verdict {
    const char *group, *schema, *value, *says;
} verdict;

/* One CUnit assertion a verdict of v[0..n) in group; a wrong one is printed
 * with its row, schema, value and the message. Returns how many there were. */
static size_t check_verdicts(const verdict *v, size_t n, const char *group)
{
    size_t checked = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i].group, group) != 0)
            continue;
        int ok = v[i].says[0] ? rejected_with(v[i].schema, v[i].value, v[i].says) : valid(v[i].schema, v[i].value);
        if (!ok)
            fprintf(stderr, "\n  %s, row %zu: schema %s, value %.80s: not %s (%s)\n", group, i, v[i].schema,
                    v[i].value, v[i].says[0] ? "refused" : "accepted", msg);
        CU_ASSERT(ok);
        checked++;
    }
    return checked;
}

/* An object with a required string and a bounded integer, and nothing else. */
static const char OBJECT[] = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
                             "\"days\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":14}},"
                             "\"required\":[\"city\"],\"additionalProperties\":false}";
static const char ANY_OF[] = "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\",\"minimum\":0}]}";
static const char ONE_OF[] = "{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":2}]}";
/* A property through a $ref into $defs. */
static const char POSITIVE_REF[] = "{\"$defs\":{\"pos\":{\"type\":\"integer\",\"minimum\":1}},"
                                   "\"properties\":{\"n\":{\"$ref\":\"#/$defs/pos\"}}}";
/* A recursive tree. */
static const char TREE[] = "{\"type\":\"object\",\"properties\":{\"kids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}},"
                           "\"v\":{\"type\":\"integer\"}}}";

/* Every value and schema of the keyword tests, grouped by test. */
static const verdict verdicts[] = {
    /* ---- type */
    {"type", "{\"type\":\"integer\"}", "3", ""},
    {"type", "{\"type\":\"integer\"}", "3.0", ""},
    {"type", "{\"type\":\"integer\"}", "3.5", "expected integer, got number"},
    {"type", "{\"type\":\"number\"}", "3", ""},
    {"type", "{\"type\":\"string\"}", "null", "got null"},
    {"type", "{\"type\":[\"string\",\"null\"]}", "null", ""},
    {"type", "{\"type\":[\"string\",\"null\"]}", "1", "not one of the allowed types"},
    {"type", "{\"type\":\"object\"}", "{}", ""},
    {"type", "{\"type\":\"object\"}", "[]", "expected object, got array"},
    {"type", "{\"type\":\"array\"}", "[]", ""},
    {"type", "{\"type\":\"boolean\"}", "false", ""},
    {"type", "{\"type\":\"boolean\"}", "0", "expected boolean, got integer"},
    /* ---- objects */
    /* additionalProperties as a schema, patternProperties, propertyNames */
    {"objects", "{\"additionalProperties\":{\"type\":\"integer\"}}", "{\"a\":1,\"b\":2}", ""},
    {"objects", "{\"additionalProperties\":{\"type\":\"integer\"}}", "{\"a\":1,\"b\":\"x\"}", "/b"},
    {"objects", "{\"patternProperties\":{\"^x-\":{\"type\":\"string\"}},\"additionalProperties\":false}", "{\"x-a\":\"1\"}", ""},
    {"objects", "{\"patternProperties\":{\"^x-\":{\"type\":\"string\"}},\"additionalProperties\":false}", "{\"y\":\"1\"}", "property \"y\" is not allowed"},
    {"objects", "{\"propertyNames\":{\"maxLength\":3}}", "{\"long\":1}", "property name \"long\" is not allowed"},
    {"objects", "{\"minProperties\":1,\"maxProperties\":2}", "{\"a\":1}", ""},
    {"objects", "{\"maxProperties\":1}", "{\"a\":1,\"b\":2}", "more than 1 properties"},
    {"objects", "{\"dependentRequired\":{\"a\":[\"b\"]}}", "{\"a\":1}", "property \"a\" requires \"b\""},
    /* The pointer escapes ~ and / in names. */
    {"objects", "{\"properties\":{\"a/b~c\":{\"type\":\"string\"}}}", "{\"a/b~c\":1}", "/a~1b~0c"},
    /* ---- arrays */
    {"arrays", "{\"items\":{\"type\":\"integer\"}}", "[1,2,3]", ""},
    {"arrays", "{\"items\":{\"type\":\"integer\"}}", "[1,\"2\"]", "/1: expected integer"},
    {"arrays", "{\"prefixItems\":[{\"type\":\"string\"}],\"items\":{\"type\":\"integer\"}}", "[\"a\",1,2]", ""},
    {"arrays", "{\"prefixItems\":[{\"type\":\"string\"}],\"items\":false}", "[\"a\",1]", "/1: no value is allowed here"},
    {"arrays", "{\"minItems\":2}", "[1]", "fewer than 2 items"},
    {"arrays", "{\"maxItems\":1}", "[1,2]", "more than 1 items"},
    {"arrays", "{\"uniqueItems\":true}", "[1,{\"a\":[1]},1.0]", "items 0 and 2 are equal"},
    {"arrays", "{\"uniqueItems\":true}", "[1,{\"a\":[1]},{\"a\":[2]}]", ""},
    {"arrays", "{\"contains\":{\"const\":3}}", "[1,3]", ""},
    {"arrays", "{\"contains\":{\"const\":3}}", "[1,2]", "fewer than 1 items match \"contains\""},
    {"arrays", "{\"contains\":{\"const\":3},\"maxContains\":1}", "[3,3]", "more than 1 items match \"contains\""},
    /* ---- values */
    {"values", "{\"enum\":[\"c\",\"f\",1]}", "\"f\"", ""},
    {"values", "{\"enum\":[\"c\",\"f\",1]}", "1.0", ""},
    {"values", "{\"enum\":[\"c\",\"f\"]}", "\"k\"", "\"k\" is not one of the allowed values"},
    {"values", "{\"const\":{\"a\":[1,2]}}", "{\"a\":[1,2.0]}", ""},
    {"values", "{\"const\":{\"a\":[1,2]}}", "{\"a\":[2,1]}", "must be { \"a\": [ 1, 2 ] }"},
    {"values", "{\"const\":null}", "null", ""},
    {"values", "{\"const\":false}", "0", "must be false"},
    {"values", "{\"exclusiveMinimum\":0}", "0", "0 is not greater than 0"},
    {"values", "{\"exclusiveMaximum\":1}", "0.999", ""},
    {"values", "{\"multipleOf\":0.01}", "0.07", ""},
    {"values", "{\"multipleOf\":2}", "7", "7 is not a multiple of 2"},
    /* Large integers compare exactly. */
    {"values", "{\"maximum\":9007199254740992}", "9007199254740993", "9007199254740993 is greater than the maximum 9007199254740992"},
    /* ---- strings */
    /* Lengths count code points: "ééé" is 3 characters, 6 bytes. */
    {"strings", "{\"maxLength\":3}", "\"\xc3\xa9\xc3\xa9\xc3\xa9\"", ""},
    {"strings", "{\"maxLength\":2}", "\"\xc3\xa9\xc3\xa9\xc3\xa9\"", "longer than 2"},
    {"strings", "{\"minLength\":4}", "\"abc\"", "shorter than 4"},
    {"strings", "{\"minLength\":1}", "\"\\ud83d\\ude00\"", ""},
    /* ---- patterns */
    {"patterns", "{\"pattern\":\"^[a-z]+\\\\d{2,3}$\"}", "\"abc12\"", ""},
    {"patterns", "{\"pattern\":\"^[a-z]+\\\\d{2,3}$\"}", "\"abc1\"", "does not match the pattern"},
    /* Unanchored: a search. */
    {"patterns", "{\"pattern\":\"b+\"}", "\"abbbc\"", ""},
    {"patterns", "{\"pattern\":\"^b+$\"}", "\"abbbc\"", "does not match the pattern"},
    /* Classes, inside and outside brackets. */
    {"patterns", "{\"pattern\":\"^\\\\w+@\\\\w+\\\\.\\\\w+$\"}", "\"me@example.org\"", ""},
    {"patterns", "{\"pattern\":\"^\\\\w+@\\\\w+\\\\.\\\\w+$\"}", "\"me@exampleXorg\"", "does not match the pattern"},
    {"patterns", "{\"pattern\":\"^[\\\\d\\\\s-]+$\"}", "\"12 34-5\"", ""},
    {"patterns", "{\"pattern\":\"^[\\\\d\\\\s-]+$\"}", "\"12a\"", "does not match the pattern"},
    {"patterns", "{\"pattern\":\"^\\\\S+$\"}", "\"abc\"", ""},
    {"patterns", "{\"pattern\":\"^\\\\S+$\"}", "\"a c\"", "does not match the pattern"},
    /* Non-capturing groups and lazy quantifiers. */
    {"patterns", "{\"pattern\":\"^(?:ab)+?c$\"}", "\"ababc\"", ""},
    {"patterns", "{\"pattern\":\"^(?:ab)+?c$\"}", "\"abac\"", "does not match the pattern"},
    /* "." is one code point. */
    {"patterns", "{\"pattern\":\"^.$\"}", "\"\xc3\xa9\"", ""},
    {"patterns", "{\"pattern\":\"^\\\\p{L}+$\"}", "\"\xc3\xa9t\xc3\xa9\"", ""},
    {"patterns", "{\"pattern\":\"^\\\\p{L}+$\"}", "\"42\"", "does not match the pattern"},
    /* Literal braces and escaped punctuation. */
    {"patterns", "{\"pattern\":\"^\\\\{x\\\\}\\\\$$\"}", "\"{x}$\"", ""},
    /* Lookaround and backreferences are enforced (once silently ignored). */
    {"patterns", "{\"pattern\":\"^(?!admin).*$\"}", "\"admin\"", "does not match"},
    {"patterns", "{\"pattern\":\"^(?!admin).*$\"}", "\"user\"", ""},
    {"patterns", "{\"pattern\":\"^(?=.*\\\\d)\\\\w+$\"}", "\"ab1\"", ""},
    {"patterns", "{\"pattern\":\"^(?=.*\\\\d)\\\\w+$\"}", "\"abc\"", "does not match the pattern"},
    {"patterns", "{\"pattern\":\"(?<=\\\\$)\\\\d+\"}", "\"cost $12\"", ""},
    {"patterns", "{\"pattern\":\"(?<=\\\\$)\\\\d+\"}", "\"cost 12\"", "does not match the pattern"},
    {"patterns", "{\"pattern\":\"^\\\\w+(?<!_tmp)$\"}", "\"file_tmp\"", "does not match the pattern"},
    {"patterns", "{\"pattern\":\"(a)\\\\1\"}", "\"xaay\"", ""},
    {"patterns", "{\"pattern\":\"(a)\\\\1\"}", "\"xyz\"", "does not match the pattern"},
    {"patterns", "{\"pattern\":\"^(?<w>[a-z]+) \\\\k<w>$\"}", "\"the the\"", ""},
    {"patterns", "{\"pattern\":\"\\\\bcat\\\\b\"}", "\"a cat sat\"", ""},
    {"patterns", "{\"pattern\":\"\\\\bcat\\\\b\"}", "\"concatenate\"", "does not match the pattern"},
    /* ---- ecma */
    /* "$" is the very end: not before a final newline. */
    {"ecma", "{\"pattern\":\"^abc$\"}", "\"abc\\n\"", "does not match the pattern"},
    /* \uXXXX and \u{...} escapes, \xXX. */
    {"ecma", "{\"pattern\":\"^\\\\u00e9$\"}", "\"\xc3\xa9\"", ""},
    {"ecma", "{\"pattern\":\"^\\\\u{1F600}$\"}", "\"\\ud83d\\ude00\"", ""},
    {"ecma", "{\"pattern\":\"^\\\\x41$\"}", "\"A\"", ""},
    /* [] matches nothing, [^] any character. */
    {"ecma", "{\"pattern\":\"a[]\"}", "\"a]\"", "does not match the pattern"},
    {"ecma", "{\"pattern\":\"^a[^]$\"}", "\"a\\n\"", ""},
    /* \d and \w are ASCII. */
    {"ecma", "{\"pattern\":\"^\\\\d$\"}", "\"\xd9\xa3\"", "does not match the pattern"},
    /* \s is ECMA's white space (NBSP, U+2003, U+FEFF), \v is U+000B. */
    {"ecma", "{\"pattern\":\"^\\\\s+$\"}", "\"\xc2\xa0\xe2\x80\x83\xef\xbb\xbf \\t\"", ""},
    {"ecma", "{\"pattern\":\"^\\\\S$\"}", "\"\xc2\xa0\"", "does not match the pattern"},
    {"ecma", "{\"pattern\":\"^[x\\\\s]+$\"}", "\"x\xe3\x80\x80x\"", ""},
    {"ecma", "{\"pattern\":\"^\\\\v$\"}", "\"\\u000b\"", ""},
    {"ecma", "{\"pattern\":\"^\\\\v$\"}", "\"\\n\"", "does not match the pattern"},
    /* Long category names, gc=, and a surrogate pair written as two escapes. */
    {"ecma", "{\"pattern\":\"^\\\\p{Letter}+\\\\P{Letter}$\"}", "\"\xc3\xa9t\xc3\xa9!\"", ""},
    {"ecma", "{\"pattern\":\"^\\\\p{gc=Uppercase_Letter}$\"}", "\"\xc3\x89\"", ""},
    {"ecma", "{\"pattern\":\"^\\\\p{Lowercase_Letter}$\"}", "\"\xc3\x89\"", "does not match the pattern"},
    {"ecma", "{\"pattern\":\"^\\\\ud83d\\\\ude00$\"}", "\"\\ud83d\\ude00\"", ""},
    /* An escaped backslash is not the start of an escape. */
    {"ecma", "{\"pattern\":\"^\\\\\\\\s$\"}", "\"\\\\s\"", ""},
    /* A string with broken UTF-8 is searched, not an error. */
    {"ecma", "{\"pattern\":\"b\"}", "\"a\xff" "b\"", ""},
    /* ---- invalid */
    {"invalid", "{\"pattern\":\"(abc\"}", "\"abc\"", "invalid schema: pattern \"(abc\" at offset 4: missing closing parenthesis"},
    {"invalid", "{\"properties\":{\"a\":{\"pattern\":\"a**\"}}}", "{}", "at offset 2"},
    /* The offset is in the pattern as written, also after a rewritten \s. */
    {"invalid", "{\"pattern\":\"\\\\s\\\\s(\"}", "\"a\"", "at offset 5:"},
    {"invalid", "{\"pattern\":\"\\\\p{Nope}\"}", "\"a\"", "unknown property"},
    {"invalid", "{\"patternProperties\":{\"[z-a]\":{}}}", "{}", "invalid schema: pattern \"[z-a]\""},
    /* Refused even when no value reaches the pattern. */
    {"invalid", "{\"anyOf\":[true,{\"items\":{\"pattern\":\"(\"}}]}", "1", "invalid schema"},
    /* A "pattern" inside const or enum is data, not a schema. */
    {"invalid", "{\"const\":{\"pattern\":\"(\"}}", "{\"pattern\":\"(\"}", ""},
    /* Reached through a $ref into a place loading does not walk: refused
     * when it is used. */
    {"invalid", "{\"x\":{\"pattern\":\"(\"},\"$ref\":\"#/x\"}", "\"a\"", "invalid schema: pattern"},
    {"invalid", "{\"x\":{\"pattern\":\"^a\"},\"$ref\":\"#/x\"}", "\"ab\"", ""},
    {"invalid", "{\"x\":{\"pattern\":\"^a\"},\"$ref\":\"#/x\"}", "\"ba\"", "does not match the pattern"},
    /* ---- unclosed */
    {"unclosed", "{\"pattern\":\"[abcdefghijklmnopqrstuvwxyz0123456789\"}", "\"a\"", "missing terminating ] for character class"},
    {"unclosed", "{\"pattern\":\"[abcdefghijklmnopqrstuvwxyz0123456789\\\\\"}", "\"a\"", "invalid schema: pattern"},
    {"unclosed", "{\"pattern\":\"x[abcdefghijklmnopqrstuvwxyz0123456789\\\\d\\\\\"}", "\"a\"", "invalid schema: pattern"},
    {"unclosed", "{\"patternProperties\":{\"[abcdefghijklmnopqrstuvwxyz0123456789\\\\\":{}}}", "{\"a\":1}", "invalid schema: pattern"},
    /* ---- combinators */
    {"combinators", "{\"allOf\":[{\"type\":\"integer\"},{\"maximum\":5}]}", "6", "maximum 5"},
    {"combinators", "{\"not\":{\"type\":\"null\"}}", "null", "matches a schema it must not match"},
    {"combinators", "{\"not\":{\"type\":\"null\"}}", "0", ""},
    {"combinators", "{\"if\":{\"minimum\":10},\"then\":{\"multipleOf\":10},\"else\":{\"maximum\":5}}", "20", ""},
    {"combinators", "{\"if\":{\"minimum\":10},\"then\":{\"multipleOf\":10},\"else\":{\"maximum\":5}}", "7", "7 is greater than the maximum 5"},
    /* ---- refs */
    {"refs", "true", "{\"anything\":1}", ""},
    {"refs", "false", "1", "no value is allowed"},
    {"refs", "{}", "[1,\"a\"]", ""},
    /* A cycle that never reaches a value is bounded, not a crash. */
    {"refs", "{\"$ref\":\"#\"}", "1", "too deep"},
    /* A reference out of the document is ignored. */
    {"refs", "{\"$ref\":\"https://example.org/schema.json\"}", "1", ""},
    /* ---- bad input */
    {"bad input", "{not json", "1", "invalid schema"},
    {"bad input", "{}", "{oops", "not JSON"},
    {"bad input", "[1]", "1", "invalid schema"},
};

/* The verdicts on the schemas named above. */
static const verdict named_verdicts[] = {
    {"objects", OBJECT, "{\"city\":\"Oslo\",\"days\":3}", ""},
    {"objects", OBJECT, "{\"days\":3}", "missing required property \"city\""},
    {"objects", OBJECT, "{\"city\":\"Oslo\",\"days\":0}", "/days: 0 is less than the minimum 1"},
    {"objects", OBJECT, "{\"city\":\"Oslo\",\"days\":15}", "greater than the maximum 14"},
    {"objects", OBJECT, "{\"city\":7}", "/city: expected string"},
    {"objects", OBJECT, "{\"city\":\"Oslo\",\"units\":\"C\"}", "property \"units\" is not allowed"},
    {"combinators", ANY_OF, "\"x\"", ""},
    {"combinators", ANY_OF, "3", ""},
    {"combinators", ANY_OF, "-1", "none of the anyOf"},
    {"combinators", ONE_OF, "1", ""},
    {"combinators", ONE_OF, "2.5", ""},
    {"combinators", ONE_OF, "3", "more than one of the oneOf"},
    {"refs", POSITIVE_REF, "{\"n\":2}", ""},
    {"refs", POSITIVE_REF, "{\"n\":0}", "/n"},
    {"refs", TREE, "{\"v\":1,\"kids\":[{\"v\":2,\"kids\":[]},{\"v\":3}]}", ""},
    {"refs", TREE, "{\"kids\":[{\"kids\":[{\"v\":\"x\"}]}]}", "/kids/0/kids/0/v"},
};

/* The verdicts of a group, of which there are some (a misspelt group is no pass). */
static void check_group(const char *group)
{
    size_t n = check_verdicts(verdicts, sizeof verdicts / sizeof verdicts[0], group) +
               check_verdicts(named_verdicts, sizeof named_verdicts / sizeof named_verdicts[0], group);
    CU_ASSERT(n > 0);
}

static void test_type(void)
{
    check_group("type");
}

static void test_objects(void)
{
    check_group("objects");
}

static void test_arrays(void)
{
    check_group("arrays");
}

static void test_values(void)
{
    check_group("values");
}

static void test_strings(void)
{
    check_group("strings");
}

static void test_patterns(void)
{
    check_group("patterns");
}

/* ECMA-262 semantics where PCRE2's defaults differ. */
static void test_pattern_ecma(void)
{
    check_group("ecma");
}

/* A pattern PCRE2 refuses makes the schema invalid, naming the pattern and
 * the offset: never a check quietly skipped. */
static void test_pattern_invalid(void)
{
    check_group("invalid");
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
    check_group("unclosed");
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
/* n times open, then core, then n times close, in out (256 bytes). */
static const char *nest(char *out, int n, const char *open, const char *core, const char *close)
{
    out[0] = '\0';
    for (int i = 0; i < n; i++)
        strcat(out, open);
    strcat(out, core);
    for (int i = 0; i < n; i++)
        strcat(out, close);
    return out;
}

static int plus_patterns(void)
{
    char pat[256], schema[512], m[512];
    snprintf(schema, sizeof schema, "{\"pattern\":\"%s\"}", nest(pat, 22, "", "a", "+"));
    if (seam_schema_validate(schema, "\"aaa\"", m, sizeof m) != SEAM_ERR_INVALID || !strstr(m, "invalid schema"))
        return 0;
    /* ((((a+)+)+)...) 22 deep: the form whose regcomp memory doubled with
     * each level (18 took 190 MB, 22 took 3 GB). */
    snprintf(schema, sizeof schema, "{\"pattern\":\"%s\"}", nest(pat, 22, "(", "a", "+)"));
    if (seam_schema_validate(schema, "\"xaaa\"", m, sizeof m) != SEAM_OK ||
        seam_schema_validate(schema, "\"bbb\"", m, sizeof m) != SEAM_ERR_INVALID)
        return 0;
    /* ((((a+)+)+)...)+ anchored, and (?:a+)+ repeated 22 times */
    snprintf(schema, sizeof schema, "{\"pattern\":\"^%s$\"}", nest(pat, 22, "(", "a+", ")+"));
    if (seam_schema_validate(schema, "\"aaaaaaaa\"", m, sizeof m) != SEAM_OK)
        return 0;
    if (seam_schema_validate(schema, "\"aaaaaaaaaaaaaaaaaaaaaaaaaaab\"", m, sizeof m) != SEAM_ERR_INVALID)
        return 0;
    snprintf(schema, sizeof schema, "{\"pattern\":\"^%s$\"}", nest(pat, 22, "(?:a+)+", "", ""));
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
    char obj[160];
    snprintf(obj, sizeof obj, "{%s:1}", value);
    const verdict limit_hits[] = {
        {"limit", "{\"pattern\":\"^(a+)+$\"}", value, "backtracking limit"},
        {"limit", "{\"properties\":{\"s\":{\"pattern\":\"(x+x+)+y\"}}}",
         "{\"s\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxz y\"}", "/s: matching the pattern"},
        /* As a property name: refused, not skipped. */
        {"limit", "{\"patternProperties\":{\"^(a+)+$\":{\"type\":\"string\"}}}", obj, "backtracking limit"},
        /* Under "not" a limit hit refuses too: it is not taken as a mismatch
         * that "not" would turn into an acceptance. */
        {"limit", "{\"not\":{\"pattern\":\"^(a+)+$\"}}", value, "backtracking limit"},
        {"limit", "{\"anyOf\":[{\"pattern\":\"^(a+)+$\"},{\"type\":\"string\"}]}", value, "backtracking limit"},
    };
    double t0 = now_s();
    CU_ASSERT_EQUAL(check_verdicts(limit_hits, sizeof limit_hits / sizeof limit_hits[0], "limit"), 5);
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
    check_group("combinators");
}

static void test_boolean_schemas_and_refs(void)
{
    check_group("refs");
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
}

static void test_bad_input(void)
{
    check_group("bad input");
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
