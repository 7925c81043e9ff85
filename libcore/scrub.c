/* scrub.c — making text that came from a provider safe to hand on: removing
 * every trace of the credential (the whole key, a key the provider echoed
 * masked as "AIzaSy***wxyz", and any long run of the key's characters, as
 * left by a cut) and repairing invalid UTF-8 with U+FFFD, so that an error
 * message, a chunk or a --json line never carries a key fragment and always
 * parses. The transport (transport.c) calls these where provider bytes enter
 * the core. */
#include "config.h"
#include "internal.h"

#include <string.h>

#define MARK "<redacted>"
#define MARK_LEN (sizeof MARK - 1)
/* A run of this many of the key's characters, in its order, is a fragment. Short
 * enough to catch a key cut near a length limit, long enough that ordinary words
 * of a random key's alphabet do not match by chance. */
#define FRAGMENT_MIN 8

static int key_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == '_' || c == '+' || c == '/' || c == '=' || c >= 0x80;
}

/* Length of a mask character at p (a '*', a '.', or "…"), 0 when not one. */
static size_t mask_char(const char *p, const char *end)
{
    if (p < end && (*p == '*' || *p == '.'))
        return 1;
    if (end - p >= 3 && (unsigned char)p[0] == 0xE2 && (unsigned char)p[1] == 0x80 &&
        (unsigned char)p[2] == 0xA6)
        return 3;
    return 0;
}

/* A key echoed masked: the key's first characters, a run of at least three
 * mask characters, the key's last characters (either side may be empty, but
 * together they show at least four). Returns the token's length at p, 0 when
 * p does not start one. */
static size_t masked_echo(const char *p, const char *end, const char *secret, size_t slen)
{
    size_t pre = 0;
    while (p + pre < end && pre < slen && p[pre] == secret[pre] && !mask_char(p + pre, end))
        pre++;
    const char *mask_start = p + pre, *q = mask_start;
    size_t masks = 0, m;
    while ((m = mask_char(q, end)) != 0) {
        q += m;
        masks += m == 3 ? 3 : 1; /* "…" stands for "..." */
    }
    if (masks < 3)
        return 0;
    /* The visible tail: key characters up to the token's end. */
    const char *t = q;
    while (t < end && key_char((unsigned char)*t))
        t++;
    size_t tail = (size_t)(t - q);
    if (tail > slen || (tail && memcmp(q, secret + slen - tail, tail) != 0))
        return 0;
    if (pre + tail < 4)
        return 0;
    return (size_t)(t - p);
}

/* The longest run at p that also occurs in secret. */
static size_t fragment_at(const char *p, const char *end, const char *secret, size_t slen)
{
    size_t best = 0;
    for (size_t k = 0; k < slen; k++) {
        if (secret[k] != *p)
            continue;
        size_t n = 0;
        while (k + n < slen && p + n < end && secret[k + n] == p[n])
            n++;
        if (n > best)
            best = n;
    }
    return best;
}

int seam_scrub_secret(seam_buf *out, const char *in, size_t len, const char *secret)
{
    size_t slen = secret ? strlen(secret) : 0;
    const char *p = in, *end = in + len;
    if (slen < 4)
        return seam_buf_append(out, in, len);
    while (p < end) {
        size_t n = 0;
        int at_token = p == in || !key_char((unsigned char)p[-1]);
        if ((size_t)(end - p) >= slen && memcmp(p, secret, slen) == 0)
            n = slen;
        else if (at_token && (n = masked_echo(p, end, secret, slen)) != 0)
            ;
        else if (slen >= FRAGMENT_MIN && (n = fragment_at(p, end, secret, slen)) < FRAGMENT_MIN)
            n = 0;
        if (n) {
            if (seam_buf_append(out, MARK, MARK_LEN) != SEAM_OK)
                return SEAM_ERR_NOMEM;
            p += n;
            continue;
        }
        /* Copy up to the next byte that could start something to remove. */
        const char *q = p + 1;
        while (q < end && *q != secret[0] && !memchr(secret, *q, slen) && *q != '*')
            q++;
        if (seam_buf_append(out, p, (size_t)(q - p)) != SEAM_OK)
            return SEAM_ERR_NOMEM;
        p = q;
    }
    if (!out->data)
        return seam_buf_append(out, "", 0);
    return SEAM_OK;
}

int seam_scrub_secret_inplace(seam_buf *b, const char *secret)
{
    if (!b->data || !secret || strlen(secret) < 4)
        return SEAM_OK;
    seam_buf tmp = { 0 };
    int rc = seam_scrub_secret(&tmp, b->data, b->len, secret);
    if (rc != SEAM_OK) {
        seam_buf_free(&tmp);
        return rc;
    }
    explicit_bzero(b->data, b->len);
    seam_buf_free(b);
    *b = tmp;
    return SEAM_OK;
}

/* Length of the valid UTF-8 sequence at p, 0 when it is not one. */
static size_t utf8_seq(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned min;
    if ((c & 0xE0) == 0xC0)
        n = 2, min = 0x80, c &= 0x1F;
    else if ((c & 0xF0) == 0xE0)
        n = 3, min = 0x800, c &= 0x0F;
    else if ((c & 0xF8) == 0xF0)
        n = 4, min = 0x10000, c &= 0x07;
    else
        return 0;
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t k = 1; k < n; k++) {
        if ((p[k] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (p[k] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    return n;
}

/* How many bytes one U+FFFD replaces at p (invalid there): the longest start of
 * a sequence (a lead byte and the continuation bytes that follow it, as many
 * as it announces), else the one byte — the "maximal subpart" practice of
 * Unicode and WHATWG, so "\xE2\x82" cut short is one U+FFFD, not two. */
static size_t invalid_span(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t want = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 1;
    size_t n = 1;
    while (n < want && p + n < end && (p[n] & 0xC0) == 0x80)
        n++;
    return n;
}

size_t seam_utf8_valid_prefix(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    while (p < end) {
        if (*p < 0x80) {
            p++;
            continue;
        }
        size_t n = utf8_seq(p, end);
        if (!n)
            break;
        p += n;
    }
    return (size_t)(p - (const unsigned char *)s);
}

char *seam_utf8_repair(const char *s)
{
    size_t len = strlen(s);
    size_t ok = seam_utf8_valid_prefix(s, len);
    if (ok == len)
        return NULL;
    seam_buf b = { 0 };
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    while (p < end) {
        size_t good = seam_utf8_valid_prefix((const char *)p, (size_t)(end - p));
        if (seam_buf_append(&b, (const char *)p, good) != SEAM_OK)
            goto nomem;
        p += good;
        if (p < end) {
            if (seam_buf_append(&b, "\xEF\xBF\xBD", 3) != SEAM_OK)
                goto nomem;
            p += invalid_span(p, end);
        }
    }
    if (!b.data && seam_buf_append(&b, "", 0) != SEAM_OK)
        goto nomem;
    return b.data;
nomem:
    seam_buf_free(&b);
    return NULL;
}

void seam_text_field_set(char *dst, size_t size, const char *src, size_t len)
{
    if (!dst || !size)
        return;
    seam_buf fixed = { 0 };
    const unsigned char *p = (const unsigned char *)src, *end = p + len;
    /* Repair as much as fits; bytes past the field are never looked at. */
    while (p < end && fixed.len < size) {
        size_t good = seam_utf8_valid_prefix((const char *)p, (size_t)(end - p));
        if (seam_buf_append(&fixed, (const char *)p, good) != SEAM_OK)
            break;
        p += good;
        if (p < end) {
            /* A sequence cut by an earlier truncation at the very end: drop it. */
            if (end - p < 4 && (*p & 0xC0) == 0xC0) {
                int cut_tail = 1;
                for (const unsigned char *q = p + 1; q < end; q++)
                    cut_tail &= (*q & 0xC0) == 0x80;
                if (cut_tail)
                    break;
            }
            if (seam_buf_append(&fixed, "\xEF\xBF\xBD", 3) != SEAM_OK)
                break;
            p += invalid_span(p, end);
        }
    }
    size_t n = fixed.len;
    const char *f = fixed.data ? fixed.data : "";
    if (n >= size) {
        n = size - 1;
        while (n > 0 && ((unsigned char)f[n] & 0xC0) == 0x80)
            n--; /* back to the start of the sequence the limit cuts */
    }
    /* A marker cut by the limit (or by a plugin's earlier cut) is dropped whole. */
    for (size_t k = MARK_LEN - 1; k >= 2; k--) {
        if (n >= k && memcmp(f + n - k, MARK, k) == 0) {
            n -= k;
            break;
        }
    }
    memcpy(dst, f, n);
    dst[n] = '\0';
    seam_buf_free(&fixed);
}

void seam_scrub_error(seam_error *e, const char *secret)
{
    char *fields[] = { e->message, e->code };
    size_t sizes[] = { sizeof e->message, sizeof e->code };
    for (size_t i = 0; i < 2; i++) {
        seam_buf b = { 0 };
        const char *src = fields[i];
        size_t len = strlen(src);
        if (seam_scrub_secret(&b, src, len, secret) == SEAM_OK) {
            src = b.data;
            len = b.len;
        } else {
            /* Out of memory: better no message than one that may hold the key. */
            src = "";
            len = 0;
        }
        seam_text_field_set(fields[i], sizes[i], src, len);
        seam_buf_free(&b);
    }
}
