/* jsonparse.c — parsing JSON text with json-c so that an allocation failure
 * is told from invalid text (seam_json_parse, seam_json_check).
 *
 * json-c 0.16 has no "out of memory" error: a failed allocation inside the
 * tokener ends the parse with an ordinary error code (or json_tokener_continue),
 * and a failed allocation of a member's key or of an array's growth drops that
 * member or element while the parse "succeeds". Left alone, the tool loop took
 * a tool call's arguments for invalid JSON when memory ran out and carried on
 * with a wrong answer (doc/reliability.md, the torture run).
 *
 * The authority on validity is therefore a second, allocation-free scanner of
 * the RFC 8259 grammar (with json-c's nesting limit), consulted when json-c
 * fails: if the scanner accepts the text, json-c refused it for want of
 * memory. The scanner is never more lenient than json-c's strict mode (it
 * refuses json-c's NaN, "1." and overlong UTF-8), so a text it accepts is one
 * json-c accepts when memory is there. It also counts the values in the text,
 * which a successful parse's tree must hold as many of (json-c drops members
 * silently); a repeated member name makes fewer too, so a short tree is parsed
 * a second time and only a tree that differs again is a loss. */
#include "config.h"
#include "internal.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <json-c/json.h>

/* ---- the allocation-free scanner ------------------------------------------------------ */

typedef struct {
    const unsigned char *p;
    int validate_utf8;
    int max_depth;
    size_t n_values;
    size_t n_bytes; /* of the strings (keys too), decoded as json-c decodes */
} scan;

static void skip_space(scan *s)
{
    while (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')
        s->p++;
}

static int is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The code unit of a \uXXXX at p (p at the backslash), or -1. */
static long hex4(const unsigned char *p)
{
    if (p[0] != '\\' || p[1] != 'u')
        return -1;
    long v = 0;
    for (int i = 2; i < 6; i++) {
        if (!is_hex(p[i]))
            return -1;
        v = v * 16 + (p[i] <= '9' ? p[i] - '0' : (p[i] | 0x20) - 'a' + 10);
    }
    return v;
}

/* One UTF-8 sequence of RFC 3629 (no overlong form, no surrogate, at most
 * U+10FFFF); s->p is at its lead byte, which is >= 0x80. */
static int scan_utf8(scan *s)
{
    const unsigned char *p = s->p;
    unsigned char c = p[0];
    int n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        n = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 2;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 3;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i <= n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    s->p += n + 1;
    return 1;
}

/* A string; s->p is at its opening quote. Raw control characters are let
 * through, as json-c lets them through. */
static int scan_string(scan *s)
{
    s->p++;
    for (;;) {
        unsigned char c = *s->p;
        if (c == '"') {
            s->p++;
            return 1;
        }
        if (c == '\0')
            return 0;
        if (c == '\\') {
            c = s->p[1];
            if (c == 'u') {
                long u = hex4(s->p);
                if (u < 0)
                    return 0;
                s->p += 6;
                long lo = u >= 0xD800 && u <= 0xDBFF ? hex4(s->p) : -1;
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    s->p += 6; /* a pair: one 4-byte character */
                    s->n_bytes += 4;
                } else {
                    /* A lone surrogate becomes U+FFFD. */
                    s->n_bytes += u < 0x80 ? 1 : u < 0x800 ? 2 : 3;
                }
            } else if (c && strchr("\"\\/bfnrt", c)) {
                s->p += 2;
                s->n_bytes++;
            } else
                return 0;
        } else if (c >= 0x80 && s->validate_utf8) {
            const unsigned char *at = s->p;
            if (!scan_utf8(s))
                return 0;
            s->n_bytes += (size_t)(s->p - at);
        } else {
            s->p++;
            s->n_bytes++;
        }
    }
}

static int scan_digits(scan *s)
{
    if (*s->p < '0' || *s->p > '9')
        return 0;
    while (*s->p >= '0' && *s->p <= '9')
        s->p++;
    return 1;
}

static int scan_number(scan *s)
{
    if (*s->p == '-')
        s->p++;
    if (*s->p == '0')
        s->p++;
    else if (!scan_digits(s))
        return 0;
    if (*s->p == '.') {
        s->p++;
        if (!scan_digits(s))
            return 0;
    }
    if (*s->p == 'e' || *s->p == 'E') {
        s->p++;
        if (*s->p == '+' || *s->p == '-')
            s->p++;
        if (!scan_digits(s))
            return 0;
    }
    return 1;
}

static int scan_word(scan *s, const char *word)
{
    size_t n = strlen(word);
    if (strncmp((const char *)s->p, word, n) != 0)
        return 0;
    s->p += n;
    return 1;
}

/* One value at nesting level `level` (the top value is level 0). json-c's
 * limit: a value at level L needs L < max_depth. */
static int scan_value(scan *s, int level)
{
    if (level >= s->max_depth)
        return 0;
    s->n_values++;
    skip_space(s);
    switch (*s->p) {
    case '{':
        s->p++;
        skip_space(s);
        if (*s->p == '}') {
            s->p++;
            return 1;
        }
        for (;;) {
            skip_space(s);
            if (*s->p != '"' || !scan_string(s))
                return 0;
            skip_space(s);
            if (*s->p++ != ':')
                return 0;
            if (!scan_value(s, level + 1))
                return 0;
            skip_space(s);
            if (*s->p == '}') {
                s->p++;
                return 1;
            }
            if (*s->p++ != ',')
                return 0;
        }
    case '[':
        s->p++;
        skip_space(s);
        if (*s->p == ']') {
            s->p++;
            return 1;
        }
        for (;;) {
            if (!scan_value(s, level + 1))
                return 0;
            skip_space(s);
            if (*s->p == ']') {
                s->p++;
                return 1;
            }
            if (*s->p++ != ',')
                return 0;
        }
    case '"':
        return scan_string(s);
    case 't':
        return scan_word(s, "true");
    case 'f':
        return scan_word(s, "false");
    case 'n':
        return scan_word(s, "null");
    default:
        return scan_number(s);
    }
}

/* seam_json_scan, also counting the strings' decoded bytes. */
static int scan_text(const char *text, int validate_utf8, int max_depth, size_t *n_values,
                     size_t *n_bytes, char *top)
{
    if (!text)
        return 0;
    scan s = { .p = (const unsigned char *)text, .validate_utf8 = validate_utf8,
               .max_depth = max_depth };
    skip_space(&s);
    char first = (char)*s.p;
    if (!scan_value(&s, 0))
        return 0;
    skip_space(&s);
    if (*s.p != '\0')
        return 0;
    if (n_values)
        *n_values = s.n_values;
    if (n_bytes)
        *n_bytes = s.n_bytes;
    if (top)
        *top = first;
    return 1;
}

int seam_json_scan(const char *text, int validate_utf8, int max_depth, size_t *n_values,
                   char *top)
{
    return scan_text(text, validate_utf8, max_depth, n_values, NULL, top);
}

/* ---- json-c, checked ------------------------------------------------------------------ */

/* What a tree holds, as the scanner counts it in the text. */
typedef struct {
    size_t values, bytes;
} tally;

/* json-c's null is NULL. */
static void count_built(json_object *o, tally *t)
{
    t->values++;
    if (json_object_is_type(o, json_type_object)) {
        json_object_object_foreach(o, key, child)
        {
            t->bytes += strlen(key);
            count_built(child, t);
        }
    } else if (json_object_is_type(o, json_type_array)) {
        size_t len = json_object_array_length(o);
        for (size_t i = 0; i < len; i++)
            count_built(json_object_array_get_idx(o, i), t);
    } else if (json_object_is_type(o, json_type_string)) {
        t->bytes += (size_t)json_object_get_string_len(o);
    }
}

static tally tally_of(json_object *o)
{
    tally t = { 0, 0 };
    count_built(o, &t);
    return t;
}

static int same_tally(tally a, tally b)
{
    return a.values == b.values && a.bytes == b.bytes;
}

/* One json-c parse; *jerr is the tokener's verdict (-1: no tokener). */
static json_object *parse_once(const char *text, size_t len, int flags, int max_depth, int *jerr)
{
    json_tokener *tok = json_tokener_new_ex(max_depth);
    if (!tok) {
        *jerr = -1;
        return NULL;
    }
    json_tokener_set_flags(tok, flags);
    /* The terminating NUL is passed so that a top-level number is known to
     * be complete. */
    json_object *o = json_tokener_parse_ex(tok, text, (int)len + 1);
    *jerr = (int)json_tokener_get_error(tok);
    json_tokener_free(tok);
    if (*jerr != (int)json_tokener_success) {
        json_object_put(o);
        o = NULL;
    }
    return o;
}

int seam_json_parse(const char *text, int flags, int max_depth, json_object **out)
{
    *out = NULL;
    if (!text)
        return SEAM_ERR_INVALID;
    size_t len = strlen(text);
    if (len >= INT32_MAX)
        return SEAM_ERR_INVALID;
    int validate_utf8 = (flags & JSON_TOKENER_VALIDATE_UTF8) != 0;
    int saved = errno;
    errno = 0;
    int jerr;
    json_object *o = parse_once(text, len, flags, max_depth, &jerr);
    int lost = errno == ENOMEM;
    errno = saved;
    tally want;
    char top;
    if (jerr != (int)json_tokener_success || (!o && !lost)) {
        /* A failure, or a NULL that only the text null may give. */
        if (!scan_text(text, validate_utf8, max_depth, &want.values, &want.bytes, &top))
            return jerr == -1 ? SEAM_ERR_NOMEM : SEAM_ERR_INVALID;
        if (jerr == (int)json_tokener_success && top == 'n')
            return SEAM_OK; /* the literal null */
        return SEAM_ERR_NOMEM;
    }
    if (!lost && scan_text(text, validate_utf8, max_depth, &want.values, &want.bytes, &top) &&
        !same_tally(tally_of(o), want)) {
        /* Fewer values or string bytes than the text holds: a repeated
         * member name (or a text json-c decodes its own way), or a piece
         * dropped for want of memory, which a second parse tells apart. */
        errno = 0;
        json_object *again = parse_once(text, len, flags, max_depth, &jerr);
        lost = !again || errno == ENOMEM || !same_tally(tally_of(again), tally_of(o));
        errno = saved;
        json_object_put(again);
    }
    if (lost) {
        json_object_put(o);
        return SEAM_ERR_NOMEM;
    }
    *out = o;
    return SEAM_OK;
}

int seam_json_check(const char *text, int want_object)
{
    json_object *o;
    int rc = seam_json_parse(text, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8,
                             SEAM_JSON_MAX_DEPTH, &o);
    if (rc == SEAM_OK && want_object && !json_object_is_type(o, json_type_object))
        rc = SEAM_ERR_INVALID;
    json_object_put(o);
    return rc;
}

char *seam_json_print(json_object *o, int flags)
{
    /* json-c 0.16's printer ignores a failed growth of its buffer: the text
     * comes back short a piece. A failed allocation sets errno, which the
     * printer does not otherwise touch; and a text the scanner reads must
     * hold every value and string byte of the tree (one it does not read, a
     * NaN json-c let in, is left to errno). */
    int saved = errno;
    errno = 0;
    const char *text = json_object_to_json_string_ext(o, flags);
    int lost = errno == ENOMEM;
    errno = saved;
    tally t;
    if (!text || lost ||
        (scan_text(text, 0, INT32_MAX, &t.values, &t.bytes, NULL) && !same_tally(t, tally_of(o))))
        return NULL;
    return seam_strdup(text);
}

int seam_json_is_valid(const char *text, int want_object)
{
    return seam_json_check(text, want_object) == SEAM_OK;
}
