/* util.c — growable byte buffers, NULL-safe string helpers, wiping secrets
 * and the monotonic clock: the small pieces every module needs. (Redaction of
 * secrets from provider text lives in scrub.c.) */
#include "config.h"
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static int buf_reserve(seam_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return SEAM_OK;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) {
        if (cap > SIZE_MAX / 2)
            return SEAM_ERR_NOMEM;
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p)
        return SEAM_ERR_NOMEM;
    b->data = p;
    b->cap = cap;
    return SEAM_OK;
}

int seam_buf_append(seam_buf *b, const char *data, size_t len)
{
    if (buf_reserve(b, len) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return SEAM_OK;
}

int seam_buf_puts(seam_buf *b, const char *s)
{
    return seam_buf_append(b, s ? s : "", s ? strlen(s) : 0);
}

int seam_buf_printf(seam_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return SEAM_ERR_INVALID;
    if (buf_reserve(b, (size_t)n) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return SEAM_OK;
}

void seam_buf_reset(seam_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void seam_buf_free(seam_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

char *seam_strdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

char *seam_strndup(const char *s, size_t n)
{
    return s ? strndup(s, n) : NULL;
}

int seam_strcaseeq(const char *a, const char *b)
{
    return a && b && strcasecmp(a, b) == 0;
}

void seam_strlcpy(char *dst, const char *src, size_t dstsize)
{
    if (!dst || dstsize == 0)
        return;
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= dstsize)
        n = dstsize - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int64_t seam_ms_from_double(double v, double scale)
{
    double ms = v * scale;
    if (!(ms >= 0 && ms <= 1e12)) /* also NaN */
        return -1;
    return (int64_t)(ms + 0.5);
}

int64_t seam_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void seam_secret_free(char *s)
{
    if (!s)
        return;
    explicit_bzero(s, strlen(s));
    free(s);
}
