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
 * Patterns are ECMA-262 regular expressions; they are translated to POSIX
 * extended regular expressions and run with regcomp/regexec under a UTF-8
 * locale set for the calling thread only (uselocale), so "." matches one code
 * point. Translated: \d \D \w \W \s \S (also inside brackets), \t \n \r \f \v,
 * escaped punctuation, (?: ) groups, lazy quantifiers (*? +? ?? {n,m}? behave
 * as greedy ones, which gives the same yes/no answer for a search). Not
 * translatable — the pattern is then ignored rather than guessed: lookaround
 * (?= (?! (?<= (?<!, backreferences \1, \b \B, Unicode property escapes
 * other than \p{L} \p{Lu} \p{Ll} (and \P, long names; mapped to the locale's
 * [:alpha:] [:upper:] [:lower:]), \uXXXX and \xXX escapes, named groups.
 * Nothing here prints or aborts. */
#include "config.h"
#include "internal.h"

#include <json-c/json.h>
#include <locale.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deep enough for any real schema; bounds $ref cycles and hostile nesting. */
#define MAX_DEPTH 128
#define JSON_PARSE_DEPTH 512

typedef struct vctx {
    json_object *root;  /* the schema document, for $ref */
    char *msg;
    size_t msgsize;
    int quiet;          /* > 0 inside anyOf/oneOf/not/contains/if: no message */
    int failed_schema;  /* a schema error was met: report it rather than "invalid" */
    seam_buf path;      /* JSON pointer of the instance location */
    int nomem;
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

static json_object *parse_json(const char *text)
{
    if (!text)
        return NULL;
    size_t len = strlen(text);
    if (len >= INT32_MAX)
        return NULL;
    json_tokener *tok = json_tokener_new_ex(JSON_PARSE_DEPTH);
    if (!tok)
        return NULL;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *o = json_tokener_parse_ex(tok, text, (int)len + 1);
    if (json_tokener_get_error(tok) != json_tokener_success) {
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    return o;
}

/* 1 when text is the JSON literal null (json-c represents null as NULL). */
static int is_null_text(const char *text)
{
    while (text && (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r'))
        text++;
    if (!text || strncmp(text, "null", 4) != 0)
        return 0;
    for (text += 4; *text; text++)
        if (*text != ' ' && *text != '\t' && *text != '\n' && *text != '\r')
            return 0;
    return 1;
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

/* ---- patterns: ECMA-262 -> POSIX ERE -------------------------------------------------- */

/* Appends the POSIX bracket content (no brackets) of a class escape. */
static const char *class_body(char e)
{
    switch (e) {
    case 'd': return "0-9";
    case 'w': return "A-Za-z0-9_";
    case 's': return "[:space:]";
    default: return NULL;
    }
}

static char control_escape(char e)
{
    switch (e) {
    case 't': return '\t';
    case 'n': return '\n';
    case 'r': return '\r';
    case 'f': return '\f';
    case 'v': return '\v';
    default: return 0;
    }
}

static int is_alnum_ascii(char e)
{
    return (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9');
}

/* Copies a bracket expression starting after its '[' at p[*i]; *i ends on the
 * closing ']'. */
static int translate_bracket(const char *p, size_t *i, seam_buf *out)
{
    int rc = seam_buf_puts(out, "[");
    if (p[*i] == '^') {
        rc = seam_buf_puts(out, "^");
        (*i)++;
    }
    /* POSIX takes a leading ']' as a literal; ECMA's "[]" matches nothing. */
    if (p[*i] == ']')
        return SEAM_ERR_INVALID;
    int bracket_literal = 0, dash_literal = 0;
    seam_buf inner = { 0 };
    for (; rc == SEAM_OK && p[*i] && p[*i] != ']'; (*i)++) {
        char ch = p[*i];
        if (ch == '\\') {
            char e = p[++(*i)];
            const char *body = class_body(e);
            if (!e)
                rc = SEAM_ERR_INVALID;
            else if (body)
                rc = seam_buf_puts(&inner, body);
            else if (control_escape(e)) {
                char c = control_escape(e);
                rc = seam_buf_append(&inner, &c, 1);
            } else if (e == ']')
                bracket_literal = 1;
            else if (e == '-')
                dash_literal = 1;
            else if (is_alnum_ascii(e))
                rc = SEAM_ERR_INVALID; /* \D \W \S \b \p \u ... inside a class */
            else
                rc = seam_buf_append(&inner, &e, 1);
        } else if (ch == '[' && (p[*i + 1] == ':' || p[*i + 1] == '=' || p[*i + 1] == '.')) {
            rc = SEAM_ERR_INVALID; /* POSIX-only syntax: its meaning would differ */
        } else {
            rc = seam_buf_append(&inner, &ch, 1);
        }
    }
    if (rc == SEAM_OK && p[*i] != ']')
        rc = SEAM_ERR_INVALID;
    /* POSIX wants a literal ']' first and a literal '-' last. */
    if (rc == SEAM_OK && bracket_literal)
        rc = seam_buf_puts(out, "]");
    if (rc == SEAM_OK && inner.data)
        rc = seam_buf_puts(out, inner.data);
    if (rc == SEAM_OK && dash_literal)
        rc = seam_buf_puts(out, "-");
    if (rc == SEAM_OK)
        rc = seam_buf_puts(out, "]");
    seam_buf_free(&inner);
    return rc;
}

/* A Unicode property escape's body "{Letter}" at p as a POSIX class for the
 * UTF-8 locale (letters and their case only: the classes POSIX can name); NULL
 * for any other property. *used is the length of the braces. */
static const char *property_class(const char *p, size_t *used)
{
    static const struct { const char *name; const char *cls; } props[] = {
        { "{L}", "[:alpha:]" },  { "{Letter}", "[:alpha:]" },
        { "{Lu}", "[:upper:]" }, { "{Uppercase_Letter}", "[:upper:]" },
        { "{Ll}", "[:lower:]" }, { "{Lowercase_Letter}", "[:lower:]" },
    };
    for (size_t k = 0; k < sizeof props / sizeof props[0]; k++) {
        size_t n = strlen(props[k].name);
        if (strncmp(p, props[k].name, n) == 0) {
            *used = n;
            return props[k].cls;
        }
    }
    return NULL;
}

/* Length of a {n}, {n,} or {n,m} quantifier at p (0 when it is not one). */
static size_t brace_quantifier(const char *p)
{
    size_t k = 1;
    if (!(p[k] >= '0' && p[k] <= '9'))
        return 0;
    while (p[k] >= '0' && p[k] <= '9')
        k++;
    if (p[k] == ',') {
        k++;
        while (p[k] >= '0' && p[k] <= '9')
            k++;
    }
    return p[k] == '}' ? k + 1 : 0;
}

/* Translates an ECMA pattern. Returns SEAM_OK, SEAM_ERR_INVALID for a construct
 * POSIX cannot express, SEAM_ERR_NOMEM. */
static int translate_pattern(const char *p, seam_buf *out)
{
    int rc = SEAM_OK;
    int after_quantifier = 0; /* a '?' here makes it lazy */
    for (size_t i = 0; p[i] && rc == SEAM_OK; i++) {
        char ch = p[i];
        int quantifier = 0;
        if (ch == '\\') {
            char e = p[++i];
            const char *body = class_body(e);
            if (!e)
                return SEAM_ERR_INVALID;
            if (body) {
                rc = seam_buf_printf(out, "[%s]", body);
            } else if (e == 'D' || e == 'W' || e == 'S') {
                rc = seam_buf_printf(out, "[^%s]", class_body((char)(e - 'A' + 'a')));
            } else if (control_escape(e)) {
                char c = control_escape(e);
                rc = seam_buf_append(out, &c, 1);
            } else if (e == 'p' || e == 'P') {
                size_t used = 0;
                const char *cls = property_class(p + i + 1, &used);
                if (!cls)
                    return SEAM_ERR_INVALID;
                rc = seam_buf_printf(out, "[%s%s]", e == 'P' ? "^" : "", cls);
                i += used;
            } else if (is_alnum_ascii(e)) {
                return SEAM_ERR_INVALID; /* \b \B \u \x \1 ... */
            } else if (e == '^' || e == '\\') {
                rc = seam_buf_printf(out, "\\%c", e);
            } else if (e == ']') {
                rc = seam_buf_puts(out, "[]]");
            } else {
                rc = seam_buf_printf(out, "[%c]", e); /* a literal, whatever ERE makes of it */
            }
        } else if (ch == '[') {
            i++;
            rc = translate_bracket(p, &i, out);
        } else if (ch == '(' && p[i + 1] == '?') {
            if (p[i + 2] != ':')
                return SEAM_ERR_INVALID; /* lookaround, named groups */
            rc = seam_buf_puts(out, "(");
            i += 2;
        } else if (ch == '?' && after_quantifier) {
            /* Lazy: the same yes/no answer for a search as the greedy form. */
        } else if (ch == '*' || ch == '+' || ch == '?') {
            rc = seam_buf_append(out, &ch, 1);
            quantifier = 1;
        } else if (ch == '{') {
            size_t q = brace_quantifier(p + i);
            if (q) {
                rc = seam_buf_append(out, p + i, q);
                i += q - 1;
                quantifier = 1;
            } else {
                rc = seam_buf_puts(out, "[{]"); /* ECMA takes a stray brace literally */
            }
        } else if (ch == '}') {
            rc = seam_buf_puts(out, "[}]");
        } else {
            rc = seam_buf_append(out, &ch, 1);
        }
        after_quantifier = quantifier;
    }
    return rc;
}

/* 1 match, 0 no match, -1 the pattern cannot be used (untranslatable, or
 * rejected by regcomp), -2 out of memory. */
static int pattern_search(const char *pattern, const char *subject)
{
    seam_buf ere = { 0 };
    int rc = translate_pattern(pattern, &ere);
    if (rc != SEAM_OK) {
        seam_buf_free(&ere);
        return rc == SEAM_ERR_NOMEM ? -2 : -1;
    }
    /* Code-point semantics for "." and brackets, for this thread only: the
     * process locale is the application's business. */
    locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    locale_t old = utf8 ? uselocale(utf8) : (locale_t)0;
    regex_t re;
    int result;
    if (regcomp(&re, ere.data ? ere.data : "", REG_EXTENDED | REG_NOSUB) != 0) {
        result = -1;
    } else {
        result = regexec(&re, subject, 0, NULL, 0) == 0;
        regfree(&re);
    }
    if (utf8) {
        uselocale(old);
        freelocale(utf8);
    }
    seam_buf_free(&ere);
    return result;
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
        int m = memchr(s, '\0', bytes) ? -1 : pattern_search(json_object_get_string(v), s);
        if (m == -2) {
            c->nomem = 1;
            return 0;
        }
        if (m == 0) {
            fail(c, "string does not match the pattern %s", json_object_get_string(v));
            return 0;
        }
        /* m == -1: a pattern this validator cannot run is ignored, not guessed. */
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
        int m = pattern_search(pat, key);
        if (m == -2)
            c->nomem = 1;
        if (m != 1)
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
    if (c->nomem)
        return 0;
    if (depth > MAX_DEPTH) {
        schema_error(c, "nesting or $ref recursion too deep");
        return 0;
    }
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

int seam_schema_validate(const char *schema_json, const char *instance_json, char *msg,
                         size_t msgsize)
{
    if (msg && msgsize)
        msg[0] = '\0';
    if (!schema_json || !instance_json) {
        if (msg && msgsize)
            snprintf(msg, msgsize, "invalid argument");
        return SEAM_ERR_INVALID;
    }
    json_object *schema = parse_json(schema_json);
    if (!schema && !is_null_text(schema_json)) {
        if (msg && msgsize)
            snprintf(msg, msgsize, "invalid schema: not JSON");
        return SEAM_ERR_INVALID;
    }
    json_object *inst = parse_json(instance_json);
    if (!inst && !is_null_text(instance_json)) {
        json_object_put(schema);
        if (msg && msgsize)
            snprintf(msg, msgsize, "the value is not JSON");
        return SEAM_ERR_INVALID;
    }
    vctx c = { .root = schema, .msg = msg, .msgsize = msgsize };
    int ok = validate(&c, schema, inst, 0);
    int nomem = c.nomem;
    seam_buf_free(&c.path);
    json_object_put(schema);
    json_object_put(inst);
    if (nomem) {
        if (msg && msgsize)
            snprintf(msg, msgsize, "out of memory");
        return SEAM_ERR_NOMEM;
    }
    if (!ok && msg && msgsize && !msg[0])
        snprintf(msg, msgsize, "the value does not match the schema");
    return ok ? SEAM_OK : SEAM_ERR_INVALID;
}
