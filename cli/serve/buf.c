/* buf.c — the gateway's output buffer and JSON text writer. Answers are
 * written as text straight into the buffer that goes to the socket, not built
 * as a json-c tree first: a streamed chunk costs one escape pass over its
 * text, which is what keeps the latency the gateway adds in microseconds. */
#include "config.h"

#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(sbuf *b, size_t need)
{
    if (b->oom)
        return 0;
    if (b->len + need + 1 <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + need + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}

void sb_add(sbuf *b, const char *s, size_t n)
{
    if (!grow(b, n))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void sb_puts(sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        sb_add(b, small, (size_t)n);
        return;
    }
    if (!grow(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sb_json_str(sbuf *b, const char *s)
{
    if (!s) {
        sb_add(b, "null", 4);
        return;
    }
    static const char hex[] = "0123456789abcdef";
    sb_add(b, "\"", 1);
    const char *run = s;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const char *esc = NULL;
        char u[7];
        switch (*p) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default:
            if (*p < 0x20) {
                u[0] = '\\'; u[1] = 'u'; u[2] = '0'; u[3] = '0';
                u[4] = hex[*p >> 4]; u[5] = hex[*p & 15]; u[6] = 0;
                esc = u;
            }
        }
        if (esc) {
            sb_add(b, run, (size_t)((const char *)p - run));
            sb_puts(b, esc);
            run = (const char *)p + 1;
        }
    }
    sb_puts(b, run);
    sb_add(b, "\"", 1);
}

void sb_key(sbuf *b, int *first, const char *key)
{
    if (!*first)
        sb_add(b, ",", 1);
    *first = 0;
    sb_json_str(b, key);
    sb_add(b, ":", 1);
}

char *sb_take(sbuf *b, size_t *len)
{
    if (b->oom) {
        sb_free(b);
        return NULL;
    }
    if (!b->p)
        grow(b, 0);
    if (b->p)
        b->p[b->len] = '\0';
    char *p = b->p;
    if (len)
        *len = b->len;
    b->p = NULL;
    b->len = b->cap = 0;
    return p;
}

void sb_free(sbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}
