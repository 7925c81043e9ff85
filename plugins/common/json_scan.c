/* json_scan.c — the allocation-free scanner of json_scan.h: strict JSON, one
 * pass, strings decoded into a reused buffer. Every "cannot be sure" case
 * fails so that the caller falls back to json-c. */
#include "json_scan.h"

#include <stdlib.h>
#include <string.h>

int jscan_disabled = 0;

/* The scanner keeps one bit of state besides the cursor: an object or array
 * was just opened (so a ',' may not come first, and a '}' or ']' may). Every
 * open is followed at once by its first member/element call, so one flag is
 * enough for any nesting. */
#define FRESH_BIT 0x40000000

void jscan_buf_free(jscan_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int jscan_begin(jscan *s, jscan_buf *buf, const char *text, size_t len)
{
    if (jscan_disabled || !text)
        return 0;
    /* A decoded string plus its NUL is never longer than its quoted form, so
     * len + 1 bytes hold them all and pointers handed out stay valid. */
    if (buf->cap < len + 1) {
        size_t cap = buf->cap ? buf->cap : 256;
        while (cap < len + 1)
            cap *= 2;
        char *d = realloc(buf->data, cap);
        if (!d)
            return 0;
        buf->data = d;
        buf->cap = cap;
    }
    buf->len = 0;
    s->p = text;
    s->end = text + len;
    s->buf = buf;
    s->depth = 0;
    return 1;
}

static void ws(jscan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
        s->p++;
}

int jscan_end(jscan *s)
{
    ws(s);
    return s->p == s->end && (s->depth & ~FRESH_BIT) == 0;
}

char jscan_peek(jscan *s)
{
    ws(s);
    return s->p < s->end ? *s->p : '\0';
}

static int open_(jscan *s, char c)
{
    if (jscan_peek(s) != c || (s->depth & ~FRESH_BIT) >= JSCAN_MAX_DEPTH)
        return 0;
    s->p++;
    s->depth = ((s->depth & ~FRESH_BIT) + 1) | FRESH_BIT;
    return 1;
}

/* 1 another item follows, 0 closed by `close`, -1 failure. */
static int next_(jscan *s, char close)
{
    int fresh = (s->depth & FRESH_BIT) != 0;
    s->depth &= ~FRESH_BIT;
    char c = jscan_peek(s);
    if (c == close) {
        s->p++;
        s->depth--;
        return 0;
    }
    if (fresh)
        return 1;
    if (c != ',')
        return -1;
    s->p++;
    return 1;
}

int jscan_object(jscan *s)
{
    return open_(s, '{');
}

int jscan_array(jscan *s)
{
    return open_(s, '[');
}

int jscan_element(jscan *s)
{
    int r = next_(s, ']');
    if (r == 1 && (jscan_peek(s) == '\0' || *s->p == ']'))
        return -1; /* "[1,]" or a cut document */
    return r;
}

int jscan_member(jscan *s, const char **key, size_t *klen)
{
    int r = next_(s, '}');
    if (r != 1)
        return r;
    if (jscan_peek(s) != '"')
        return -1;
    const char *k = ++s->p;
    while (s->p < s->end && *s->p != '"') {
        unsigned char c = (unsigned char)*s->p;
        if (c == '\\' || c < 0x20)
            return -1;
        s->p++;
    }
    if (s->p >= s->end)
        return -1;
    *key = k;
    *klen = (size_t)(s->p - k);
    s->p++;
    if (jscan_peek(s) != ':')
        return -1;
    s->p++;
    return 1;
}

int jscan_key_is(const char *key, size_t klen, const char *name)
{
    return strlen(name) == klen && memcmp(key, name, klen) == 0;
}

int jscan_null(jscan *s)
{
    if (jscan_peek(s) == 'n' && s->end - s->p >= 4 && memcmp(s->p, "null", 4) == 0) {
        s->p += 4;
        return 1;
    }
    return 0;
}

int jscan_bool(jscan *s, int *out)
{
    char c = jscan_peek(s);
    if (c == 't' && s->end - s->p >= 4 && memcmp(s->p, "true", 4) == 0) {
        s->p += 4;
        *out = 1;
        return 1;
    }
    if (c == 'f' && s->end - s->p >= 5 && memcmp(s->p, "false", 5) == 0) {
        s->p += 5;
        *out = 0;
        return 1;
    }
    return 0;
}

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

/* Decodes the string at s->p (just past its opening quote) to dst; returns the
 * end of the written bytes or NULL. */
static char *decode(jscan *s, char *dst)
{
    const char *p = s->p, *end = s->end;
    for (;;) {
        /* The plain run up to the next quote, backslash or control byte. */
        const char *run = p;
        while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
            p++;
        memcpy(dst, run, (size_t)(p - run));
        dst += p - run;
        if (p >= end || (unsigned char)*p < 0x20)
            return NULL;
        if (*p == '"') {
            s->p = p + 1;
            return dst;
        }
        if (end - p < 2)
            return NULL;
        char e = p[1];
        p += 2;
        switch (e) {
        case '"': *dst++ = '"'; break;
        case '\\': *dst++ = '\\'; break;
        case '/': *dst++ = '/'; break;
        case 'b': *dst++ = '\b'; break;
        case 'f': *dst++ = '\f'; break;
        case 'n': *dst++ = '\n'; break;
        case 'r': *dst++ = '\r'; break;
        case 't': *dst++ = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (end - p < 4 || !hex4(p, &cp))
                return NULL;
            p += 4;
            /* json-c truncates a string at \u0000 for its C readers and
             * replaces lone surrogates: leave those to it. */
            if (cp == 0 || (cp >= 0xDC00 && cp <= 0xDFFF))
                return NULL;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || !hex4(p + 2, &lo) ||
                    lo < 0xDC00 || lo > 0xDFFF)
                    return NULL;
                p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            if (cp < 0x80) {
                *dst++ = (char)cp;
            } else if (cp < 0x800) {
                *dst++ = (char)(0xC0 | (cp >> 6));
                *dst++ = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                *dst++ = (char)(0xE0 | (cp >> 12));
                *dst++ = (char)(0x80 | ((cp >> 6) & 0x3F));
                *dst++ = (char)(0x80 | (cp & 0x3F));
            } else {
                *dst++ = (char)(0xF0 | (cp >> 18));
                *dst++ = (char)(0x80 | ((cp >> 12) & 0x3F));
                *dst++ = (char)(0x80 | ((cp >> 6) & 0x3F));
                *dst++ = (char)(0x80 | (cp & 0x3F));
            }
            break;
        }
        default:
            return NULL;
        }
    }
}

int jscan_string(jscan *s, const char **out)
{
    if (jscan_peek(s) != '"')
        return 0;
    s->p++;
    char *start = s->buf->data + s->buf->len;
    char *end = decode(s, start);
    if (!end)
        return 0;
    *end = '\0';
    s->buf->len = (size_t)(end + 1 - s->buf->data);
    *out = start;
    return 1;
}

int jscan_string_or_null(jscan *s, const char **out)
{
    if (jscan_null(s)) {
        *out = NULL;
        return 1;
    }
    return jscan_string(s, out);
}

/* A number, checked: -?(0|[1-9][0-9]*)(\.[0-9]+)? with at most 18 digits.
 * *is_int tells whether it had no fraction. */
static int number(jscan *s, int64_t *val, int *is_int)
{
    const char *p = s->p, *end = s->end;
    int neg = 0, digits = 0;
    int64_t v = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    if (p >= end || *p < '0' || *p > '9')
        return 0;
    if (*p == '0') {
        p++;
        digits = 1;
    } else {
        while (p < end && *p >= '0' && *p <= '9') {
            if (++digits > 18)
                return 0;
            v = v * 10 + (*p++ - '0');
        }
    }
    *is_int = 1;
    if (p < end && *p == '.') {
        p++;
        *is_int = 0;
        const char *f = p;
        while (p < end && *p >= '0' && *p <= '9') {
            p++;
            if (++digits > 18)
                return 0;
        }
        if (p == f)
            return 0;
    }
    if (p < end && (*p == 'e' || *p == 'E'))
        return 0;
    s->p = p;
    *val = neg ? -v : v;
    return 1;
}

int jscan_int(jscan *s, int64_t *out)
{
    int is_int;
    jscan_peek(s);
    const char *save = s->p;
    if (!number(s, out, &is_int))
        return 0;
    if (!is_int) {
        s->p = save;
        return 0;
    }
    return 1;
}

int jscan_skip(jscan *s)
{
    char c = jscan_peek(s);
    int r, b;
    int64_t v;
    const char *k, *str;
    size_t kl;
    switch (c) {
    case '{':
        if (!jscan_object(s))
            return 0;
        while ((r = jscan_member(s, &k, &kl)) == 1)
            if (!jscan_skip(s))
                return 0;
        return r == 0;
    case '[':
        if (!jscan_array(s))
            return 0;
        while ((r = jscan_element(s)) == 1)
            if (!jscan_skip(s))
                return 0;
        return r == 0;
    case '"': {
        /* Decoded like any string (the checks are the same), then dropped. */
        size_t len = s->buf->len;
        r = jscan_string(s, &str);
        s->buf->len = len;
        return r;
    }
    case 't':
    case 'f':
        return jscan_bool(s, &b);
    case 'n':
        return jscan_null(s);
    default:
        return number(s, &v, &b);
    }
}
