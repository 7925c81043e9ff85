/* jsonschema.c — the JSON-Schema validator behind seam_schema_validate(): checks
 * a JSON instance against a JSON Schema (draft 2020-12 vocabulary) so that the
 * tool loop can refuse arguments that do not match a tool's parameters before
 * the tool runs.
 *
 * Covered keywords: boolean schemas, type, enum, const; multipleOf, minimum,
 * maximum, exclusiveMinimum, exclusiveMaximum; minLength, maxLength (in code
 * points), pattern; properties, patternProperties, additionalProperties,
 * required, propertyNames, minProperties, maxProperties, dependentRequired,
 * dependentSchemas; prefixItems, items, contains, minContains, maxContains,
 * minItems, maxItems, uniqueItems; allOf, anyOf, oneOf, not, if/then/else;
 * $ref to a JSON pointer inside the same document ("#", "#/$defs/x", ...).
 *
 * Not covered (ignored, so they never reject): format, unevaluated*, $id-based
 * and remote references, $anchor, $dynamicRef, content*. A $ref that does not
 * resolve inside the document is ignored the same way: a schema feature this
 * validator lacks must not turn a good tool call into an error.
 *
 * Patterns are ECMA-262 regular expressions run on PCRE2, compiled once when
 * the schema is loaded (seam_compiled_schema_new; a toolset keeps them) under
 * compile and match limits: a pattern PCRE2 refuses makes the schema invalid,
 * a match that reaches a limit refuses the value. See "patterns" below for the
 * ECMA-262 differences.
 * Nothing here prints or aborts. */
#include "config.h"
#include "internal.h"

#define PCRE2_CODE_UNIT_WIDTH 8

#include <json-c/json.h>
#include <math.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deep enough for any real schema; bounds $ref cycles and hostile nesting. */
#define MAX_DEPTH 128
/* Subschema evaluations per validation: far more than any real tool call
 * needs (it grows with the value), far fewer than an exponential schema. */
#define STEPS_BASE 1000000u
#define STEPS_PER_BYTE 16u
#define JSON_PARSE_DEPTH 512

typedef struct vctx {
    json_object *root;  /* the schema document, for $ref */
    char *msg;
    size_t msgsize;
    int quiet;          /* > 0 inside anyOf/oneOf/not/contains/if: no message */
    int failed_schema;  /* a schema error was met: report it rather than "invalid" */
    seam_buf path;      /* JSON pointer of the instance location */
    int nomem;
    const struct pattern_set *patterns; /* compiled with the schema */
    /* Work bounds: a schema whose subschemas branch on the same value (allOf
     * of two $refs to "#", or a chain of them) is exponential, and a pattern
     * match can reach its limit inside anyOf or not, where a plain failure
     * would be taken back or inverted. Either ends the whole validation as a
     * refusal: aborted, with msg saying why. */
    uint64_t steps_left;
    int aborted;
} vctx;

/* ---- messages ---------------------------------------------------------------------- */

static void fail(vctx *c, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void fail(vctx *c, const char *fmt, ...)
{
    if (c->quiet || !c->msg || c->msgsize == 0 || c->msg[0])
        return; /* the first (deepest) reason wins */
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(c->msg, c->msgsize, "%s: %s", c->path.len ? c->path.data : "(root)", what);
}

static void abort_validation(vctx *c, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void abort_validation(vctx *c, const char *fmt, ...)
{
    if (c->aborted)
        return;
    c->aborted = 1;
    if (!c->msg || c->msgsize == 0)
        return;
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(c->msg, c->msgsize, "%s", what); /* replaces a reason met before */
}

static void schema_error(vctx *c, const char *what)
{
    c->failed_schema = 1;
    if (c->msg && c->msgsize && !c->msg[0])
        snprintf(c->msg, c->msgsize, "invalid schema: %s", what);
}

/* Appends "/segment" (escaped as a JSON pointer) to the path; returns the old length. */
static size_t path_push(vctx *c, const char *seg)
{
    size_t old = c->path.len;
    if (seam_buf_puts(&c->path, "/") != SEAM_OK)
        c->nomem = 1;
    for (const char *p = seg; *p; p++) {
        const char *rep = *p == '~' ? "~0" : *p == '/' ? "~1" : NULL;
        if ((rep ? seam_buf_puts(&c->path, rep) : seam_buf_append(&c->path, p, 1)) != SEAM_OK)
            c->nomem = 1;
    }
    return old;
}

static size_t path_push_index(vctx *c, size_t i)
{
    char n[32];
    snprintf(n, sizeof n, "%zu", i);
    return path_push(c, n);
}

static void path_pop(vctx *c, size_t old)
{
    if (c->path.data && old <= c->path.len) {
        c->path.len = old;
        c->path.data[old] = '\0';
    }
}

/* ---- JSON helpers -------------------------------------------------------------------- */

/* Strict JSON (no UTF-8 check: a schema's or a value's bytes are taken as
 * json-c takes them). SEAM_OK (*out NULL for the literal null),
 * SEAM_ERR_INVALID or SEAM_ERR_NOMEM. */
static int parse_json(const char *text, json_object **out)
{
    return seam_json_parse(text, JSON_TOKENER_STRICT, JSON_PARSE_DEPTH, out);
}

static int is_number(json_object *o)
{
    return json_object_is_type(o, json_type_int) || json_object_is_type(o, json_type_double);
}

static int is_integer(json_object *o)
{
    if (json_object_is_type(o, json_type_int))
        return 1;
    if (json_object_is_type(o, json_type_double)) {
        double d = json_object_get_double(o);
        return isfinite(d) && d == floor(d);
    }
    return 0;
}

/* The member key of object o: 1 and *v (which may be NULL: JSON null) when present. */
static int member(json_object *o, const char *key, json_object **v)
{
    *v = NULL;
    return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, v);
}

static const char *type_name(json_object *o)
{
    switch (json_object_get_type(o)) {
    case json_type_null: return "null";
    case json_type_boolean: return "boolean";
    case json_type_int: return "integer";
    case json_type_double: return is_integer(o) ? "integer" : "number";
    case json_type_string: return "string";
    case json_type_array: return "array";
    case json_type_object: return "object";
    }
    return "unknown";
}

/* Numeric comparison that keeps 64-bit integers exact. Returns <0, 0, >0. */
static int num_cmp(json_object *a, json_object *b)
{
    if (json_object_is_type(a, json_type_int) && json_object_is_type(b, json_type_int)) {
        int64_t x = json_object_get_int64(a), y = json_object_get_int64(b);
        return x < y ? -1 : x > y;
    }
    double x = json_object_get_double(a), y = json_object_get_double(b);
    return x < y ? -1 : x > y;
}

/* JSON equality: numbers by value (1 == 1.0), objects regardless of key order. */
static int json_equal(json_object *a, json_object *b)
{
    if (is_number(a) && is_number(b))
        return num_cmp(a, b) == 0;
    json_type ta = json_object_get_type(a), tb = json_object_get_type(b);
    if (ta != tb)
        return 0;
    switch (ta) {
    case json_type_null:
        return 1;
    case json_type_boolean:
        return json_object_get_boolean(a) == json_object_get_boolean(b);
    case json_type_string: {
        int la = json_object_get_string_len(a), lb = json_object_get_string_len(b);
        return la == lb && memcmp(json_object_get_string(a), json_object_get_string(b), (size_t)la) == 0;
    }
    case json_type_array: {
        size_t n = json_object_array_length(a);
        if (n != json_object_array_length(b))
            return 0;
        for (size_t i = 0; i < n; i++)
            if (!json_equal(json_object_array_get_idx(a, i), json_object_array_get_idx(b, i)))
                return 0;
        return 1;
    }
    case json_type_object: {
        if (json_object_object_length(a) != json_object_object_length(b))
            return 0;
        json_object_object_foreach(a, key, va) {
            json_object *vb;
            if (!json_object_object_get_ex(b, key, &vb) || !json_equal(va, vb))
                return 0;
        }
        return 1;
    }
    default:
        return 0;
    }
}

static size_t utf8_length(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            n++;
    return n;
}

/* A non-negative integer keyword value, -1 when absent or not one. */
static int64_t count_keyword(json_object *schema, const char *key)
{
    json_object *v;
    if (!member(schema, key, &v) || !is_integer(v))
        return -1;
    double d = json_object_get_double(v);
    return d < 0 ? -1 : d > 9e18 ? INT64_MAX : (int64_t)d;
}

/* ---- patterns: ECMA-262 on PCRE2 ------------------------------------------------------ */

/* Patterns run on PCRE2 (libpcre2-8), compiled when the schema is loaded
 * (seam_compiled_schema_new) so that a pattern PCRE2 refuses is a schema error
 * then, naming the pattern and the offset, and never a pattern quietly not
 * enforced. POSIX regcomp, used before, could take gigabytes for a short
 * pattern and read past a pattern's end; PCRE2 gets hard bounds instead:
 *
 *  - a pattern is at most PATTERN_MAX_LENGTH bytes, its groups nest at most
 *    PATTERN_MAX_PARENS deep, and all the patterns of one schema share a
 *    memory budget of SCHEMA_PATTERN_BUDGET bytes (a counting allocator);
 *  - a match stops at MATCH_LIMIT backtracking steps, DEPTH_LIMIT nested
 *    backtracking points and MATCH_HEAP_KIB of backtracking memory. A match
 *    that reaches a limit is a validation failure that says so: the value is
 *    neither accepted unchecked nor allowed to hang or exhaust the process.
 *
 * JSON Schema patterns are ECMA-262 regular expressions, searched unanchored.
 * PCRE2 is Perl-flavoured; the options below bring it close to ECMA:
 *  - PCRE2_UTF: code-point semantics ("." is one character, \u escapes), with
 *    PCRE2_MATCH_INVALID_UTF so that a string with broken UTF-8 is searched
 *    (broken bytes match nothing) instead of failing the match;
 *  - PCRE2_ALT_BSUX | PCRE2_EXTRA_ALT_BSUX: \uXXXX, \u{X...} and \xXX as in
 *    ECMA (PCRE2 would read \u as an error and \x{...} as its own syntax);
 *  - PCRE2_DOLLAR_ENDONLY: "$" matches at the very end only, as ECMA's does
 *    without the m flag (PCRE2's would also match before a final newline);
 *  - PCRE2_ALLOW_EMPTY_CLASS: "[]" matches nothing and "[^]" anything, as in
 *    ECMA (PCRE2 would take the "]" as a literal and the class as unclosed);
 *  - PCRE2_NEWLINE_ANYCRLF: "." refuses \r and \n. ECMA's also refuses U+2028
 *    and U+2029, which "." here accepts: a wrong acceptance is preferred to a
 *    wrong refusal;
 *  - PCRE2_NEVER_BACKSLASH_C: \C (one byte) would split a UTF-8 character.
 * Rewritten before compiling (rewrite_pattern): \s and \S to ECMA's white
 * space set (PCRE2's is ASCII unless PCRE2_UCP, which would make \d and \w
 * Unicode too, and ECMA's are ASCII); \v to U+000B (PCRE2: any vertical
 * space); \p{Letter} and the other long category names to the short ones
 * PCRE2 10.42 knows; a surrogate pair \uD83D\uDE00 to \u{1F600}.
 * Remaining differences: \S inside a class is ASCII; a lookbehind must have
 * a bounded length (ECMA allows any); Perl-only syntax
 * (possessive quantifiers, atomic groups, (?i), \Q...\E, verbs such as
 * (*ACCEPT)) is accepted with its Perl meaning. A pattern may lower the match
 * limits with (*LIMIT_MATCH=n) but never raise them: PCRE2 caps them at the
 * context's values. */

#define PATTERN_MAX_LENGTH 8192
#define PATTERN_MAX_PARENS 200
#define SCHEMA_PATTERN_BUDGET ((size_t)8 << 20)
/* The fuzz build lowers the match limit (fuzz/run.sh): the same code paths
 * are reached, and a limit hit costs microseconds instead of milliseconds. */
#ifndef SEAM_SCHEMA_MATCH_LIMIT
#define SEAM_SCHEMA_MATCH_LIMIT 1000000
#endif
#define MATCH_LIMIT SEAM_SCHEMA_MATCH_LIMIT
#define DEPTH_LIMIT 100000
#define MATCH_HEAP_KIB 32768

#define PATTERN_OPTIONS (PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_ALT_BSUX | \
                         PCRE2_DOLLAR_ENDONLY | PCRE2_ALLOW_EMPTY_CLASS | PCRE2_NEVER_BACKSLASH_C)

typedef struct compiled_pattern {
    char *text;
    pcre2_code *code;
} compiled_pattern;

/* The budget the compiler allocates from: each block carries its size in a
 * header, so that freeing gives the bytes back. */
typedef struct pattern_budget {
    size_t used, limit;
    int over;  /* an allocation was refused for the budget, not by malloc */
} pattern_budget;

typedef union block_header {
    size_t size;
    max_align_t align;
} block_header;

static void *budget_malloc(size_t n, void *ud)
{
    pattern_budget *b = ud;
    if (n > b->limit - b->used || n > SIZE_MAX - sizeof(block_header)) {
        b->over = 1;
        return NULL;
    }
    block_header *h = malloc(sizeof *h + n);
    if (!h)
        return NULL;
    h->size = n;
    b->used += n;
    return h + 1;
}

static void budget_free(void *p, void *ud)
{
    if (!p)
        return;
    pattern_budget *b = ud;
    block_header *h = (block_header *)p - 1;
    b->used -= h->size;
    free(h);
}

/* The patterns of one schema, sorted by text for lookup, plus the contexts
 * they run with. Immutable once built: shared by concurrent validations (each
 * match makes its own match data). */
typedef struct pattern_set {
    compiled_pattern *v;
    size_t n, cap;
    pattern_budget budget;
    pcre2_general_context *gctx;
    pcre2_compile_context *cctx;
    pcre2_match_context *mctx;
} pattern_set;

static int pattern_set_init(pattern_set *ps, size_t budget)
{
    memset(ps, 0, sizeof *ps);
    ps->budget.limit = budget;
    ps->gctx = pcre2_general_context_create(budget_malloc, budget_free, &ps->budget);
    ps->cctx = ps->gctx ? pcre2_compile_context_create(ps->gctx) : NULL;
    ps->mctx = pcre2_match_context_create(NULL);
    if (!ps->gctx || !ps->cctx || !ps->mctx)
        return SEAM_ERR_NOMEM;
    /* The rewrite can grow a pattern: one \s becomes a class of 70 bytes. */
    pcre2_set_max_pattern_length(ps->cctx, (PCRE2_SIZE)PATTERN_MAX_LENGTH * 40);
    pcre2_set_parens_nest_limit(ps->cctx, PATTERN_MAX_PARENS);
    pcre2_set_newline(ps->cctx, PCRE2_NEWLINE_ANYCRLF);
    pcre2_set_compile_extra_options(ps->cctx, PCRE2_EXTRA_ALT_BSUX);
    pcre2_set_match_limit(ps->mctx, MATCH_LIMIT);
    pcre2_set_depth_limit(ps->mctx, DEPTH_LIMIT);
    pcre2_set_heap_limit(ps->mctx, MATCH_HEAP_KIB);
    return SEAM_OK;
}

static void pattern_set_free(pattern_set *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        pcre2_code_free(ps->v[i].code);
        free(ps->v[i].text);
    }
    free(ps->v);
    pcre2_match_context_free(ps->mctx);
    pcre2_compile_context_free(ps->cctx);
    pcre2_general_context_free(ps->gctx);
    memset(ps, 0, sizeof *ps);
}

/* Index of the first entry >= text (the place to insert it). */
static size_t pattern_slot(const pattern_set *ps, const char *text)
{
    size_t lo = 0, hi = ps->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ps->v[mid].text, text) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static const pcre2_code *pattern_find(const pattern_set *ps, const char *text)
{
    size_t i = pattern_slot(ps, text);
    return i < ps->n && strcmp(ps->v[i].text, text) == 0 ? ps->v[i].code : NULL;
}

/* Writes "invalid schema: pattern "…" …" into msg (the pattern shortened). */
static void pattern_error(char *msg, size_t msgsize, const char *text, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void pattern_error(char *msg, size_t msgsize, const char *text, const char *fmt, ...)
{
    if (!msg || !msgsize)
        return;
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    size_t len = strlen(text);
    snprintf(msg, msgsize, "invalid schema: pattern \"%.*s%s\" %s", len > 80 ? 80 : (int)len,
             text, len > 80 ? "..." : "", why);
}

/* ---- ECMA-262 escapes PCRE2 reads differently ---------------------------------- */

/* ECMA's \s: the white space and line terminators of ECMA-262 (PCRE2's \s,
 * without Unicode properties for \d and \w, is ASCII). */
#define ECMA_SPACE "\\t\\n\\x0b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"

/* Unicode general categories by their long names (ECMA accepts both; PCRE2
 * 10.42 only the short ones). "digit" is what the official test suite uses. */
static const char *const category_names[][2] = {
    { "Letter", "L" }, { "Cased_Letter", "L&" }, { "Uppercase_Letter", "Lu" },
    { "Lowercase_Letter", "Ll" }, { "Titlecase_Letter", "Lt" }, { "Modifier_Letter", "Lm" },
    { "Other_Letter", "Lo" }, { "Mark", "M" }, { "Nonspacing_Mark", "Mn" },
    { "Spacing_Mark", "Mc" }, { "Enclosing_Mark", "Me" }, { "Number", "N" },
    { "Decimal_Number", "Nd" }, { "digit", "Nd" }, { "Letter_Number", "Nl" },
    { "Other_Number", "No" }, { "Punctuation", "P" }, { "Connector_Punctuation", "Pc" },
    { "Dash_Punctuation", "Pd" }, { "Open_Punctuation", "Ps" }, { "Close_Punctuation", "Pe" },
    { "Initial_Punctuation", "Pi" }, { "Final_Punctuation", "Pf" }, { "Other_Punctuation", "Po" },
    { "Symbol", "S" }, { "Math_Symbol", "Sm" }, { "Currency_Symbol", "Sc" },
    { "Modifier_Symbol", "Sk" }, { "Other_Symbol", "So" }, { "Separator", "Z" },
    { "Space_Separator", "Zs" }, { "Line_Separator", "Zl" }, { "Paragraph_Separator", "Zp" },
    { "Other", "C" }, { "Control", "Cc" }, { "Format", "Cf" }, { "Surrogate", "Cs" },
    { "Private_Use", "Co" }, { "Unassigned", "Cn" },
};

/* The pattern rewritten for PCRE2, with map[j] the offset in the original of
 * output byte j, so that PCRE2's error offsets can be reported against what
 * the schema says. */
typedef struct rewrite {
    seam_buf out;
    size_t *map;
    size_t cap;
    int nomem;
} rewrite;

static void emit(rewrite *r, const char *s, size_t n, size_t from)
{
    if (r->nomem)
        return;
    size_t need = r->out.len + n + 1;
    if (need > r->cap) {
        size_t cap = r->cap ? r->cap : 64;
        while (cap < need)
            cap *= 2;
        size_t *m = realloc(r->map, cap * sizeof *m);
        if (!m) {
            r->nomem = 1;
            return;
        }
        r->map = m;
        r->cap = cap;
    }
    for (size_t k = 0; k < n; k++)
        r->map[r->out.len + k] = from;
    if (seam_buf_append(&r->out, s, n) != SEAM_OK)
        r->nomem = 1;
}

static int hex4(const char *p, size_t avail, unsigned *v)
{
    if (avail < 4)
        return 0;
    *v = 0;
    for (int k = 0; k < 4; k++) {
        char ch = p[k];
        int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
              : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (d < 0)
            return 0;
        *v = *v * 16 + (unsigned)d;
    }
    return 1;
}

/* Rewrites, outside and inside classes: \s (and \S outside a class: inside
 * one it stays PCRE2's ASCII \S) to ECMA's set; \v to U+000B (PCRE2's \v is
 * any vertical space); \p{Long_Name} to its short name; a surrogate pair
 * \uD83D\uDE00 to \u{1F600}. Everything else is copied, escapes whole, so
 * that what follows a backslash is never read as syntax. */
static int rewrite_pattern(const char *p, size_t len, rewrite *r)
{
    int in_class = 0;
    for (size_t i = 0; i < len && !r->nomem;) {
        char ch = p[i];
        if (ch != '\\' || i + 1 >= len) {
            if (ch == '[' && !in_class) {
                in_class = 1;
                emit(r, p + i, 1, i);
                i++;
                /* "[]" and "[^]" close at once in ECMA, as with
                 * PCRE2_ALLOW_EMPTY_CLASS. */
                continue;
            }
            if (ch == ']' && in_class)
                in_class = 0;
            emit(r, p + i, 1, i);
            i++;
            continue;
        }
        char e = p[i + 1];
        unsigned hi, lo;
        if (e == 's') {
            emit(r, in_class ? ECMA_SPACE : "[" ECMA_SPACE "]", in_class ? strlen(ECMA_SPACE) : strlen(ECMA_SPACE) + 2, i);
            i += 2;
        } else if (e == 'S' && !in_class) {
            emit(r, "[^" ECMA_SPACE "]", strlen(ECMA_SPACE) + 3, i);
            i += 2;
        } else if (e == 'v') {
            emit(r, "\\x0b", 4, i);
            i += 2;
        } else if ((e == 'p' || e == 'P') && i + 2 < len && p[i + 2] == '{') {
            const char *close = memchr(p + i + 3, '}', len - i - 3);
            size_t n = close ? (size_t)(close - (p + i + 3)) : 0;
            const char *name = p + i + 3, *eq = close ? memchr(name, '=', n) : NULL;
            /* General_Category=Letter and gc=Letter are the same property. */
            if (eq && ((eq - name == 16 && strncmp(name, "General_Category", 16) == 0) ||
                       (eq - name == 2 && strncmp(name, "gc", 2) == 0))) {
                n -= (size_t)(eq + 1 - name);
                name = eq + 1;
            }
            const char *shortname = NULL;
            for (size_t k = 0; close && k < sizeof category_names / sizeof *category_names; k++)
                if (strlen(category_names[k][0]) == n && strncmp(name, category_names[k][0], n) == 0)
                    shortname = category_names[k][1];
            if (shortname) {
                char buf[16];
                int w = snprintf(buf, sizeof buf, "\\%c{%s}", e, shortname);
                emit(r, buf, (size_t)w, i);
                i = (size_t)(close - p) + 1;
            } else {
                emit(r, p + i, 2, i);
                i += 2;
            }
        } else if (e == 'u' && hex4(p + i + 2, len - i - 2, &hi) && hi >= 0xD800 && hi <= 0xDBFF &&
                   i + 7 < len && p[i + 6] == '\\' && p[i + 7] == 'u' &&
                   hex4(p + i + 8, len - i - 8, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
            char buf[16];
            int w = snprintf(buf, sizeof buf, "\\u{%X}", 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
            emit(r, buf, (size_t)w, i);
            i += 12;
        } else {
            emit(r, p + i, 2, i);
            i += 2;
        }
    }
    emit(r, "", 0, len); /* map[out.len]: the end */
    if (!r->nomem)
        r->map[r->out.len] = len;
    return r->nomem ? SEAM_ERR_NOMEM : SEAM_OK;
}

static void rewrite_free(rewrite *r)
{
    seam_buf_free(&r->out);
    free(r->map);
}

/* Compiles text into the set (nothing when already there). SEAM_OK;
 * SEAM_ERR_INVALID with msg for a pattern PCRE2 refuses or one over the
 * limits; SEAM_ERR_NOMEM. */
static int pattern_add(pattern_set *ps, const char *text, size_t len, char *msg, size_t msgsize)
{
    size_t at = pattern_slot(ps, text);
    if (at < ps->n && strcmp(ps->v[at].text, text) == 0)
        return SEAM_OK;
    if (strlen(text) != len) {
        pattern_error(msg, msgsize, text, "contains a NUL character");
        return SEAM_ERR_INVALID;
    }
    if (len > PATTERN_MAX_LENGTH) {
        pattern_error(msg, msgsize, text, "is longer than %d bytes", PATTERN_MAX_LENGTH);
        return SEAM_ERR_INVALID;
    }
    rewrite r = { { 0 }, NULL, 0, 0 };
    if (rewrite_pattern(text, len, &r) != SEAM_OK) {
        rewrite_free(&r);
        return SEAM_ERR_NOMEM;
    }
    int err = 0;
    PCRE2_SIZE offset = 0;
    ps->budget.over = 0;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)(r.out.data ? r.out.data : ""), r.out.len,
                                     PATTERN_OPTIONS, &err, &offset, ps->cctx);
    offset = offset <= r.out.len ? r.map[offset] : len;
    rewrite_free(&r);
    if (!code) {
        if (ps->budget.over) {
            pattern_error(msg, msgsize, text, "is too large: the schema's patterns need more than %zu MiB",
                          SCHEMA_PATTERN_BUDGET >> 20);
            return SEAM_ERR_INVALID;
        }
        if (err == PCRE2_ERROR_HEAP_FAILED)
            return SEAM_ERR_NOMEM;
        char why[200];
        if (pcre2_get_error_message(err, (PCRE2_UCHAR *)why, sizeof why) < 0)
            snprintf(why, sizeof why, "PCRE2 error %d", err);
        pattern_error(msg, msgsize, text, "at offset %zu: %s", (size_t)offset, why);
        return SEAM_ERR_INVALID;
    }
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? ps->cap * 2 : 8;
        compiled_pattern *v = realloc(ps->v, cap * sizeof *v);
        if (!v) {
            pcre2_code_free(code);
            return SEAM_ERR_NOMEM;
        }
        ps->v = v;
        ps->cap = cap;
    }
    char *copy = strdup(text);
    if (!copy) {
        pcre2_code_free(code);
        return SEAM_ERR_NOMEM;
    }
    memmove(ps->v + at + 1, ps->v + at, (ps->n - at) * sizeof *ps->v);
    ps->v[at] = (compiled_pattern){ copy, code };
    ps->n++;
    return SEAM_OK;
}

/* Result of a search. */
enum { SEARCH_NOMATCH = 0, SEARCH_MATCH = 1, SEARCH_LIMIT = -1, SEARCH_NOMEM = -2, SEARCH_ERROR = -3 };

static int pattern_run(const pcre2_code *code, pcre2_match_context *mctx, const char *subject,
                       size_t len)
{
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    if (!md)
        return SEARCH_NOMEM;
    int rc = pcre2_match(code, (PCRE2_SPTR)subject, len, 0, 0, md, mctx);
    pcre2_match_data_free(md);
    if (rc >= 0)
        return SEARCH_MATCH; /* 0: matched, the one-pair vector too small */
    switch (rc) {
    case PCRE2_ERROR_NOMATCH:
        return SEARCH_NOMATCH;
    case PCRE2_ERROR_MATCHLIMIT:
    case PCRE2_ERROR_DEPTHLIMIT:
    case PCRE2_ERROR_HEAPLIMIT:
        return SEARCH_LIMIT;
    case PCRE2_ERROR_NOMEMORY:
        return SEARCH_NOMEM;
    default:
        return SEARCH_ERROR;
    }
}

/* Searches subject for the pattern compiled with the schema. A pattern found
 * only at validation time (reached by a $ref into a place that is not a
 * schema keyword, which loading does not walk) is compiled here under the same
 * limits, and one PCRE2 refuses makes the schema invalid. */
static int pattern_search(vctx *c, const char *pattern, size_t patlen, const char *subject, size_t len)
{
    const pcre2_code *code = c->patterns ? pattern_find(c->patterns, pattern) : NULL;
    if (code)
        return pattern_run(code, c->patterns->mctx, subject, len);
    pattern_set once;
    char why[400] = "";
    int rc = pattern_set_init(&once, SCHEMA_PATTERN_BUDGET);
    if (rc == SEAM_OK)
        rc = pattern_add(&once, pattern, patlen, why, sizeof why);
    int m = rc == SEAM_OK ? pattern_run(pattern_find(&once, pattern), once.mctx, subject, len)
            : rc == SEAM_ERR_NOMEM ? SEARCH_NOMEM : SEARCH_ERROR;
    pattern_set_free(&once);
    if (rc == SEAM_ERR_INVALID) {
        c->failed_schema = 1;
        if (c->msg && c->msgsize && !c->msg[0])
            snprintf(c->msg, c->msgsize, "%s", why);
    }
    return m;
}

/* Keywords whose value is a schema, an array of schemas (either form for
 * "items"), or an object whose member values are schemas. */
static const char *const schema_keywords[] = {
    "items", "additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if",
    "then", "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "prefixItems",
    "allOf", "anyOf", "oneOf",
};
static const char *const schema_map_keywords[] = {
    "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies",
};

/* Compiles every pattern in a schema position of schema (pattern values and
 * patternProperties names), descending through the applicator keywords only:
 * a "pattern" inside const, enum, default or examples is data. */
static int collect_patterns(pattern_set *ps, json_object *schema, int depth, char *msg, size_t msgsize)
{
    if (depth > MAX_DEPTH || !json_object_is_type(schema, json_type_object))
        return SEAM_OK; /* too deep is reported by validation */
    json_object *v;
    int rc = SEAM_OK;
    if (member(schema, "pattern", &v) && json_object_is_type(v, json_type_string))
        rc = pattern_add(ps, json_object_get_string(v), (size_t)json_object_get_string_len(v), msg, msgsize);
    if (rc == SEAM_OK && member(schema, "patternProperties", &v) && json_object_is_type(v, json_type_object)) {
        json_object_object_foreach(v, key, sub) {
            (void)sub;
            if ((rc = pattern_add(ps, key, strlen(key), msg, msgsize)) != SEAM_OK)
                break;
        }
    }
    for (size_t k = 0; rc == SEAM_OK && k < sizeof schema_keywords / sizeof *schema_keywords; k++) {
        if (!member(schema, schema_keywords[k], &v))
            continue;
        if (json_object_is_type(v, json_type_array)) {
            for (size_t i = 0; rc == SEAM_OK && i < json_object_array_length(v); i++)
                rc = collect_patterns(ps, json_object_array_get_idx(v, i), depth + 1, msg, msgsize);
        } else {
            rc = collect_patterns(ps, v, depth + 1, msg, msgsize);
        }
    }
    for (size_t k = 0; rc == SEAM_OK && k < sizeof schema_map_keywords / sizeof *schema_map_keywords; k++) {
        if (!member(schema, schema_map_keywords[k], &v) || !json_object_is_type(v, json_type_object))
            continue;
        json_object_object_foreach(v, key, sub) {
            (void)key;
            if ((rc = collect_patterns(ps, sub, depth + 1, msg, msgsize)) != SEAM_OK)
                break;
        }
    }
    return rc;
}

/* ---- $ref ---------------------------------------------------------------------------------- */

/* Resolves "#" or "#/a/b" (JSON pointer, percent-decoded, ~0 ~1) in the root.
 * 1 and *out when found. */
static int resolve_ref(vctx *c, const char *ref, json_object **out)
{
    if (ref[0] != '#')
        return 0;
    const char *p = ref + 1;
    json_object *cur = c->root;
    if (*p == '\0') {
        *out = cur;
        return 1;
    }
    if (*p != '/')
        return 0; /* anchors are not covered */
    while (*p == '/') {
        p++;
        char seg[256];
        size_t n = 0;
        while (*p && *p != '/' && n + 1 < sizeof seg) {
            char ch = *p++;
            if (ch == '%' && p[0] && p[1]) {
                char hex[3] = { p[0], p[1], 0 };
                ch = (char)strtol(hex, NULL, 16);
                p += 2;
            } else if (ch == '~' && (*p == '0' || *p == '1')) {
                ch = *p == '0' ? '~' : '/';
                p++;
            }
            seg[n++] = ch;
        }
        seg[n] = '\0';
        if (json_object_is_type(cur, json_type_object)) {
            if (!json_object_object_get_ex(cur, seg, &cur))
                return 0;
        } else if (json_object_is_type(cur, json_type_array)) {
            char *end;
            long idx = strtol(seg, &end, 10);
            if (*end || idx < 0 || (size_t)idx >= json_object_array_length(cur))
                return 0;
            cur = json_object_array_get_idx(cur, (size_t)idx);
        } else {
            return 0;
        }
    }
    *out = cur;
    return 1;
}

/* ---- the validator ---------------------------------------------------------------------------- */

static int validate(vctx *c, json_object *schema, json_object *inst, int depth);

/* Validation with messages suppressed (for anyOf, oneOf, not, contains, if). */
static int quietly(vctx *c, json_object *schema, json_object *inst, int depth)
{
    c->quiet++;
    int ok = validate(c, schema, inst, depth);
    c->quiet--;
    return ok;
}

static int check_type(vctx *c, json_object *t, json_object *inst)
{
    const char *actual = type_name(inst);
    if (json_object_is_type(t, json_type_string)) {
        const char *want = json_object_get_string(t);
        if (strcmp(want, actual) == 0 || (strcmp(want, "number") == 0 && is_number(inst)))
            return 1;
        fail(c, "expected %s, got %s", want, actual);
        return 0;
    }
    if (json_object_is_type(t, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(t); i++) {
            json_object *w = json_object_array_get_idx(t, i);
            const char *want = json_object_get_string(w);
            if (json_object_is_type(w, json_type_string) &&
                (strcmp(want, actual) == 0 || (strcmp(want, "number") == 0 && is_number(inst))))
                return 1;
        }
        fail(c, "%s is not one of the allowed types", actual);
        return 0;
    }
    return 1;
}

static int check_numeric(vctx *c, json_object *schema, json_object *inst)
{
    json_object *v;
    if (member(schema, "minimum", &v) && is_number(v) && num_cmp(inst, v) < 0) {
        fail(c, "%s is less than the minimum %s", json_object_to_json_string(inst),
             json_object_to_json_string(v));
        return 0;
    }
    if (member(schema, "maximum", &v) && is_number(v) && num_cmp(inst, v) > 0) {
        fail(c, "%s is greater than the maximum %s", json_object_to_json_string(inst),
             json_object_to_json_string(v));
        return 0;
    }
    if (member(schema, "exclusiveMinimum", &v) && is_number(v) && num_cmp(inst, v) <= 0) {
        fail(c, "%s is not greater than %s", json_object_to_json_string(inst),
             json_object_to_json_string(v));
        return 0;
    }
    if (member(schema, "exclusiveMaximum", &v) && is_number(v) && num_cmp(inst, v) >= 0) {
        fail(c, "%s is not less than %s", json_object_to_json_string(inst),
             json_object_to_json_string(v));
        return 0;
    }
    if (member(schema, "multipleOf", &v) && is_number(v) && json_object_get_double(v) > 0) {
        int ok;
        if (json_object_is_type(inst, json_type_int) && json_object_is_type(v, json_type_int))
            ok = json_object_get_int64(inst) % json_object_get_int64(v) == 0;
        else {
            double q = json_object_get_double(inst) / json_object_get_double(v);
            /* Relative tolerance: 0.0075 / 0.0001 is 75 within rounding. */
            ok = isfinite(q) && fabs(q - nearbyint(q)) <= 1e-9 * fmax(1.0, fabs(q));
        }
        if (!ok) {
            fail(c, "%s is not a multiple of %s", json_object_to_json_string(inst),
                 json_object_to_json_string(v));
            return 0;
        }
    }
    return 1;
}

static int check_string(vctx *c, json_object *schema, json_object *inst)
{
    const char *s = json_object_get_string(inst);
    size_t bytes = (size_t)json_object_get_string_len(inst);
    size_t len = utf8_length(s, bytes);
    int64_t n;
    if ((n = count_keyword(schema, "minLength")) >= 0 && (int64_t)len < n) {
        fail(c, "string is shorter than %lld characters", (long long)n);
        return 0;
    }
    if ((n = count_keyword(schema, "maxLength")) >= 0 && (int64_t)len > n) {
        fail(c, "string is longer than %lld characters", (long long)n);
        return 0;
    }
    json_object *v;
    if (member(schema, "pattern", &v) && json_object_is_type(v, json_type_string)) {
        const char *pat = json_object_get_string(v);
        int m = pattern_search(c, pat, (size_t)json_object_get_string_len(v), s, bytes);
        if (m == SEARCH_NOMEM)
            c->nomem = 1;
        else if (m == SEARCH_LIMIT)
            abort_validation(c, "%s: matching the pattern %s reached the backtracking limit: too costly to check",
                             c->path.len ? c->path.data : "(root)", pat);
        else if (m == SEARCH_ERROR)
            fail(c, "the pattern %s could not be run", pat);
        else if (m == SEARCH_NOMATCH)
            fail(c, "string does not match the pattern %s", pat);
        if (m != SEARCH_MATCH)
            return 0;
    }
    return 1;
}

/* 1 when key matches one of the patternProperties patterns (applying their
 * schemas to value when apply is set; *ok cleared on a failure). */
static int pattern_properties(vctx *c, json_object *pp, const char *key, json_object *value,
                              int depth, int *ok)
{
    int matched = 0;
    if (!json_object_is_type(pp, json_type_object))
        return 0;
    json_object_object_foreach(pp, pat, sub) {
        int m = pattern_search(c, pat, strlen(pat), key, strlen(key));
        if (m == SEARCH_NOMEM)
            c->nomem = 1;
        if (m == SEARCH_LIMIT || m == SEARCH_ERROR) {
            /* Whether the name matches is unknown: refuse rather than skip
             * the schemas it may be subject to. */
            abort_validation(c, "%s: property \"%s\": %s the pattern %s", c->path.len ? c->path.data : "(root)",
                             key, m == SEARCH_LIMIT ? "the backtracking limit was reached matching" : "could not run",
                             pat);
            *ok = 0;
        }
        if (m != SEARCH_MATCH)
            continue;
        matched = 1;
        size_t old = path_push(c, key);
        if (!validate(c, sub, value, depth + 1))
            *ok = 0;
        path_pop(c, old);
    }
    return matched;
}

static int check_object(vctx *c, json_object *schema, json_object *inst, int depth)
{
    int ok = 1;
    json_object *props = NULL, *pp = NULL, *addl = NULL, *v;
    member(schema, "properties", &props);
    member(schema, "patternProperties", &pp);
    int has_addl = member(schema, "additionalProperties", &addl);
    int64_t n;
    size_t count = (size_t)json_object_object_length(inst);

    if (member(schema, "required", &v) && json_object_is_type(v, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(v); i++) {
            json_object *k = json_object_array_get_idx(v, i);
            json_object *dummy;
            if (json_object_is_type(k, json_type_string) &&
                !json_object_object_get_ex(inst, json_object_get_string(k), &dummy)) {
                fail(c, "missing required property \"%s\"", json_object_get_string(k));
                ok = 0;
            }
        }
    }
    if ((n = count_keyword(schema, "minProperties")) >= 0 && (int64_t)count < n) {
        fail(c, "fewer than %lld properties", (long long)n);
        ok = 0;
    }
    if ((n = count_keyword(schema, "maxProperties")) >= 0 && (int64_t)count > n) {
        fail(c, "more than %lld properties", (long long)n);
        ok = 0;
    }
    json_object *names = NULL;
    int has_names = member(schema, "propertyNames", &names);
    json_object *dep_req = NULL, *dep_schemas = NULL;
    member(schema, "dependentRequired", &dep_req);
    member(schema, "dependentSchemas", &dep_schemas);

    json_object_object_foreach(inst, key, value) {
        int known = 0;
        json_object *sub;
        if (props && json_object_is_type(props, json_type_object) &&
            json_object_object_get_ex(props, key, &sub)) {
            known = 1;
            size_t old = path_push(c, key);
            if (!validate(c, sub, value, depth + 1))
                ok = 0;
            path_pop(c, old);
        }
        if (pp && pattern_properties(c, pp, key, value, depth, &ok))
            known = 1;
        if (!known && has_addl) {
            size_t old = path_push(c, key);
            if (json_object_is_type(addl, json_type_boolean) && !json_object_get_boolean(addl)) {
                path_pop(c, old);
                fail(c, "property \"%s\" is not allowed", key);
                ok = 0;
            } else {
                if (!validate(c, addl, value, depth + 1))
                    ok = 0;
                path_pop(c, old);
            }
        }
        if (has_names) {
            json_object *name = json_object_new_string(key);
            if (!name) {
                c->nomem = 1;
                return 0;
            }
            if (!quietly(c, names, name, depth + 1)) {
                fail(c, "property name \"%s\" is not allowed", key);
                ok = 0;
            }
            json_object_put(name);
        }
        json_object *deps;
        if (dep_req && json_object_is_type(dep_req, json_type_object) &&
            json_object_object_get_ex(dep_req, key, &deps) && json_object_is_type(deps, json_type_array)) {
            for (size_t i = 0; i < json_object_array_length(deps); i++) {
                json_object *k = json_object_array_get_idx(deps, i), *dummy;
                if (json_object_is_type(k, json_type_string) &&
                    !json_object_object_get_ex(inst, json_object_get_string(k), &dummy)) {
                    fail(c, "property \"%s\" requires \"%s\"", key, json_object_get_string(k));
                    ok = 0;
                }
            }
        }
        if (dep_schemas && json_object_is_type(dep_schemas, json_type_object) &&
            json_object_object_get_ex(dep_schemas, key, &deps) && !validate(c, deps, inst, depth + 1))
            ok = 0;
    }
    return ok;
}

static int check_array(vctx *c, json_object *schema, json_object *inst, int depth)
{
    int ok = 1;
    size_t len = json_object_array_length(inst);
    int64_t n;
    json_object *v;
    if ((n = count_keyword(schema, "minItems")) >= 0 && (int64_t)len < n) {
        fail(c, "fewer than %lld items", (long long)n);
        ok = 0;
    }
    if ((n = count_keyword(schema, "maxItems")) >= 0 && (int64_t)len > n) {
        fail(c, "more than %lld items", (long long)n);
        ok = 0;
    }
    size_t prefix = 0;
    if (member(schema, "prefixItems", &v) && json_object_is_type(v, json_type_array)) {
        prefix = json_object_array_length(v);
        for (size_t i = 0; i < prefix && i < len; i++) {
            size_t old = path_push_index(c, i);
            if (!validate(c, json_object_array_get_idx(v, i), json_object_array_get_idx(inst, i), depth + 1))
                ok = 0;
            path_pop(c, old);
        }
    }
    if (member(schema, "items", &v) && !json_object_is_type(v, json_type_array)) {
        for (size_t i = prefix; i < len; i++) {
            size_t old = path_push_index(c, i);
            if (!validate(c, v, json_object_array_get_idx(inst, i), depth + 1))
                ok = 0;
            path_pop(c, old);
        }
    }
    if (member(schema, "contains", &v)) {
        int64_t matches = 0;
        for (size_t i = 0; i < len; i++)
            if (quietly(c, v, json_object_array_get_idx(inst, i), depth + 1))
                matches++;
        int64_t min = count_keyword(schema, "minContains");
        int64_t max = count_keyword(schema, "maxContains");
        if (min < 0)
            min = 1;
        if (matches < min) {
            fail(c, "fewer than %lld items match \"contains\"", (long long)min);
            ok = 0;
        }
        if (max >= 0 && matches > max) {
            fail(c, "more than %lld items match \"contains\"", (long long)max);
            ok = 0;
        }
    }
    if (member(schema, "uniqueItems", &v) && json_object_get_boolean(v)) {
        for (size_t i = 0; i < len && ok; i++)
            for (size_t j = i + 1; j < len; j++)
                if (json_equal(json_object_array_get_idx(inst, i), json_object_array_get_idx(inst, j))) {
                    fail(c, "items %zu and %zu are equal", i, j);
                    ok = 0;
                    break;
                }
    }
    return ok;
}

static int check_combinators(vctx *c, json_object *schema, json_object *inst, int depth)
{
    int ok = 1;
    json_object *v;
    if (member(schema, "allOf", &v) && json_object_is_type(v, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(v); i++)
            if (!validate(c, json_object_array_get_idx(v, i), inst, depth + 1))
                ok = 0;
    }
    if (member(schema, "anyOf", &v) && json_object_is_type(v, json_type_array)) {
        int any = 0;
        for (size_t i = 0; i < json_object_array_length(v) && !any; i++)
            any = quietly(c, json_object_array_get_idx(v, i), inst, depth + 1);
        if (!any) {
            fail(c, "matches none of the anyOf schemas");
            ok = 0;
        }
    }
    if (member(schema, "oneOf", &v) && json_object_is_type(v, json_type_array)) {
        int matches = 0;
        for (size_t i = 0; i < json_object_array_length(v); i++)
            matches += quietly(c, json_object_array_get_idx(v, i), inst, depth + 1);
        if (matches != 1) {
            fail(c, matches ? "matches more than one of the oneOf schemas"
                            : "matches none of the oneOf schemas");
            ok = 0;
        }
    }
    if (member(schema, "not", &v) && quietly(c, v, inst, depth + 1)) {
        fail(c, "matches a schema it must not match");
        ok = 0;
    }
    if (member(schema, "if", &v)) {
        json_object *branch = NULL;
        int has = quietly(c, v, inst, depth + 1) ? member(schema, "then", &branch)
                                                : member(schema, "else", &branch);
        if (has && !validate(c, branch, inst, depth + 1))
            ok = 0;
    }
    return ok;
}

/* 1 valid, 0 invalid (message set unless quiet; failed_schema for a schema error). */
static int validate(vctx *c, json_object *schema, json_object *inst, int depth)
{
    if (c->nomem || c->aborted)
        return 0;
    if (depth > MAX_DEPTH) {
        abort_validation(c, "invalid schema: nesting or $ref recursion too deep");
        return 0;
    }
    if (c->steps_left == 0) {
        abort_validation(c, "the schema is too costly to check against this value (over %llu steps)",
                         (unsigned long long)STEPS_BASE);
        return 0;
    }
    c->steps_left--;
    if (json_object_is_type(schema, json_type_boolean)) {
        if (json_object_get_boolean(schema))
            return 1;
        fail(c, "no value is allowed here");
        return 0;
    }
    if (!json_object_is_type(schema, json_type_object)) {
        schema_error(c, "a schema must be an object or a boolean");
        return 0;
    }
    int ok = 1;
    json_object *v;
    if (member(schema, "$ref", &v) && json_object_is_type(v, json_type_string)) {
        /* A reference outside the document ($id-relative, remote, anchors) is
         * not followed: like an untranslatable pattern it is ignored, so that
         * a schema feature this validator lacks never rejects a good value. */
        json_object *target;
        if (resolve_ref(c, json_object_get_string(v), &target) &&
            !validate(c, target, inst, depth + 1))
            ok = 0;
    }
    if (member(schema, "type", &v) && !check_type(c, v, inst))
        return 0; /* other keywords would only repeat the same complaint */
    if (member(schema, "const", &v) && !json_equal(v, inst)) {
        fail(c, "must be %s", json_object_to_json_string(v));
        ok = 0;
    }
    if (member(schema, "enum", &v) && json_object_is_type(v, json_type_array)) {
        int found = 0;
        for (size_t i = 0; i < json_object_array_length(v) && !found; i++)
            found = json_equal(json_object_array_get_idx(v, i), inst);
        if (!found) {
            fail(c, "%s is not one of the allowed values", json_object_to_json_string(inst));
            ok = 0;
        }
    }
    if (is_number(inst) && !check_numeric(c, schema, inst))
        ok = 0;
    else if (json_object_is_type(inst, json_type_string) && !check_string(c, schema, inst))
        ok = 0;
    else if (json_object_is_type(inst, json_type_object) && !check_object(c, schema, inst, depth))
        ok = 0;
    else if (json_object_is_type(inst, json_type_array) && !check_array(c, schema, inst, depth))
        ok = 0;
    if (!check_combinators(c, schema, inst, depth))
        ok = 0;
    return ok;
}

/* ---- compiled schemas ------------------------------------------------------------------ */

struct seam_compiled_schema {
    char *text;           /* the schema, parsed again by each validation */
    pattern_set patterns; /* compiled once, shared read-only */
};

static void set_msg(char *msg, size_t msgsize, const char *text)
{
    if (msg && msgsize)
        snprintf(msg, msgsize, "%s", text);
}

int seam_compiled_schema_new(const char *schema_json, seam_compiled_schema **out, char *msg,
                             size_t msgsize)
{
    *out = NULL;
    if (msg && msgsize)
        msg[0] = '\0';
    if (!schema_json) {
        set_msg(msg, msgsize, "invalid argument");
        return SEAM_ERR_INVALID;
    }
    json_object *schema;
    int rc = parse_json(schema_json, &schema);
    if (rc != SEAM_OK) {
        set_msg(msg, msgsize, rc == SEAM_ERR_NOMEM ? "out of memory" : "invalid schema: not JSON");
        return rc;
    }
    seam_compiled_schema *cs = calloc(1, sizeof *cs);
    rc = cs ? pattern_set_init(&cs->patterns, SCHEMA_PATTERN_BUDGET) : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK && !(cs->text = strdup(schema_json)))
        rc = SEAM_ERR_NOMEM;
    if (rc == SEAM_OK)
        rc = collect_patterns(&cs->patterns, schema, 0, msg, msgsize);
    json_object_put(schema);
    if (rc != SEAM_OK) {
        if (rc == SEAM_ERR_NOMEM)
            set_msg(msg, msgsize, "out of memory");
        seam_compiled_schema_free(cs);
        return rc;
    }
    *out = cs;
    return SEAM_OK;
}

void seam_compiled_schema_free(seam_compiled_schema *cs)
{
    if (!cs)
        return;
    pattern_set_free(&cs->patterns);
    free(cs->text);
    free(cs);
}

int seam_compiled_schema_validate(const seam_compiled_schema *cs, const char *instance_json,
                                  char *msg, size_t msgsize)
{
    if (msg && msgsize)
        msg[0] = '\0';
    if (!cs || !instance_json) {
        set_msg(msg, msgsize, "invalid argument");
        return SEAM_ERR_INVALID;
    }
    /* Parsed per validation, not kept: json-c caches printed text inside
     * objects (json_object_to_json_string), so one tree shared by concurrent
     * validations would be written from several threads. */
    json_object *schema, *inst;
    int rc = parse_json(cs->text, &schema);
    if (rc != SEAM_OK) {
        /* It parsed when compiled: only memory can fail it now. */
        set_msg(msg, msgsize, "out of memory");
        return SEAM_ERR_NOMEM;
    }
    rc = parse_json(instance_json, &inst);
    if (rc != SEAM_OK) {
        json_object_put(schema);
        set_msg(msg, msgsize, rc == SEAM_ERR_NOMEM ? "out of memory" : "the value is not JSON");
        return rc;
    }
    vctx c = { .root = schema, .msg = msg, .msgsize = msgsize, .patterns = &cs->patterns,
               .steps_left = STEPS_BASE + STEPS_PER_BYTE * (uint64_t)strlen(instance_json) };
    int ok = validate(&c, schema, inst, 0) && !c.aborted;
    int nomem = c.nomem;
    seam_buf_free(&c.path);
    json_object_put(schema);
    json_object_put(inst);
    if (nomem) {
        set_msg(msg, msgsize, "out of memory");
        return SEAM_ERR_NOMEM;
    }
    if (!ok && msg && msgsize && !msg[0])
        snprintf(msg, msgsize, "the value does not match the schema");
    return ok ? SEAM_OK : SEAM_ERR_INVALID;
}

int seam_schema_validate(const char *schema_json, const char *instance_json, char *msg,
                         size_t msgsize)
{
    if (msg && msgsize)
        msg[0] = '\0';
    if (!schema_json || !instance_json) {
        set_msg(msg, msgsize, "invalid argument");
        return SEAM_ERR_INVALID;
    }
    /* One-shot: the patterns are compiled for this call. A caller validating
     * many values against one schema does better with a toolset, which keeps
     * them compiled. */
    seam_compiled_schema *cs;
    int rc = seam_compiled_schema_new(schema_json, &cs, msg, msgsize);
    if (rc != SEAM_OK)
        return rc;
    rc = seam_compiled_schema_validate(cs, instance_json, msg, msgsize);
    seam_compiled_schema_free(cs);
    return rc;
}
