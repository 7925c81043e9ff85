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
                for (int i = 2; i < 6; i++)
                    if (!is_hex(s->p[i]))
                        return 0;
                s->p += 6;
            } else if (c && strchr("\"\\/bfnrt", c)) {
                s->p += 2;
            } else
                return 0;
        } else if (c >= 0x80 && s->validate_utf8) {
            if (!scan_utf8(s))
                return 0;
        } else
            s->p++;
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

int seam_json_scan(const char *text, int validate_utf8, int max_depth, size_t *n_values,
                   char *top)
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
    if (top)
        *top = first;
    return 1;
}

/* ---- json-c, checked ------------------------------------------------------------------ */

/* The values of a tree as the scanner counts them: json-c's null is NULL. */
static size_t count_built(json_object *o)
{
    size_t n = 1;
    if (json_object_is_type(o, json_type_object)) {
        json_object_object_foreach(o, key, child)
        {
            (void)key;
            n += count_built(child);
        }
    } else if (json_object_is_type(o, json_type_array)) {
        size_t len = json_object_array_length(o);
        for (size_t i = 0; i < len; i++)
            n += count_built(json_object_array_get_idx(o, i));
    }
    return n;
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
    size_t want;
    char top;
    if (jerr != (int)json_tokener_success || (!o && !lost)) {
        /* A failure, or a NULL that only the text null may give. */
        if (!seam_json_scan(text, validate_utf8, max_depth, &want, &top))
            return jerr == -1 ? SEAM_ERR_NOMEM : SEAM_ERR_INVALID;
        if (jerr == (int)json_tokener_success && top == 'n')
            return SEAM_OK; /* the literal null */
        return SEAM_ERR_NOMEM;
    }
    if (!lost && seam_json_scan(text, validate_utf8, max_depth, &want, &top) &&
        count_built(o) != want) {
        /* Fewer values than the text holds: a repeated member name, or one
         * dropped for want of memory, which a second parse tells apart. */
        errno = 0;
        json_object *again = parse_once(text, len, flags, max_depth, &jerr);
        lost = !again || errno == ENOMEM || count_built(again) != count_built(o);
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
     * printer does not otherwise touch; and the text must still hold every
     * value of the tree. */
    int saved = errno;
    errno = 0;
    const char *text = json_object_to_json_string_ext(o, flags);
    int lost = errno == ENOMEM;
    errno = saved;
    size_t n;
    if (!text || lost || !seam_json_scan(text, 0, INT32_MAX, &n, NULL) || n != count_built(o))
        return NULL;
    return seam_strdup(text);
}

int seam_json_is_valid(const char *text, int want_object)
{
    return seam_json_check(text, want_object) == SEAM_OK;
}
