/* codec_util.c — owns the one copy of the private helpers the in-tree
 * plugins share (see codec_util.h): the growable byte buffer, xstrdup and
 * contains_ci. Compiled into each plugin. The JSON helpers, the protocol-error
 * rule and base64 are libseam's codec helper set (<seam/codec.h>). */
#include "config.h"

#include "codec_util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <seam/plugin.h>

/* ---- strings ---------------------------------------------------------------- */

int sb_append(strbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return SEAM_ERR_NOMEM;
    if (n > SIZE_MAX - 1 - b->len) {
        b->failed = 1;
        return SEAM_ERR_NOMEM;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1) {
            if (cap > SIZE_MAX / 2) {
                b->failed = 1;
                return SEAM_ERR_NOMEM;
            }
            cap *= 2;
        }
        char *p = realloc(b->data, cap);
        if (!p) {
            b->failed = 1;
            return SEAM_ERR_NOMEM;
        }
        b->data = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return SEAM_OK;
}

int sb_puts(strbuf *b, const char *s)
{
    return sb_append(b, s ? s : "", s ? strlen(s) : 0);
}

void sb_free(strbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

int contains_ci(const char *hay, const char *needle)
{
    if (!hay || !needle)
        return 0;
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}
