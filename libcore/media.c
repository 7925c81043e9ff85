/* media.c — what the core checks of media before it goes anywhere: the one
 * bounded MIME check used at every position (request parts, media chunks),
 * the modality a MIME type gives, handles, base64, and the intake limits of a
 * request (reference ADR-0031: an inline ceiling per modality in decoded
 * bytes, a per-message count cap and an aggregate-bytes cap). Every refusal is
 * a bad_request naming the limit and the value, and never echoes more than a
 * bounded prefix of what the caller sent (an unbounded value would turn the
 * error message into a channel for bytes). */
#include "config.h"
#include "internal.h"
#include <seam/codec.h> /* seam_base64_encode, exported from here */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MIME_MAX 255
/* How much of a refused MIME type an error message quotes. */
#define QUOTE_MAX 40

seam_conf_media seam_media_limits(const seam_conf_media *c)
{
    seam_conf_media l = {
        .store = c ? c->store : NULL,
        .inline_image_bytes = SEAM_MEDIA_DEFAULT_INLINE_IMAGE,
        .inline_audio_bytes = SEAM_MEDIA_DEFAULT_INLINE_AUDIO,
        .inline_video_bytes = SEAM_MEDIA_DEFAULT_INLINE_VIDEO,
        .inline_document_bytes = SEAM_MEDIA_DEFAULT_INLINE_DOCUMENT,
        .max_parts = SEAM_MEDIA_DEFAULT_MAX_PARTS,
        .max_message_bytes = SEAM_MEDIA_DEFAULT_MAX_MESSAGE_BYTES,
    };
    if (!c)
        return l;
    if (c->inline_image_bytes >= 0)
        l.inline_image_bytes = c->inline_image_bytes;
    if (c->inline_audio_bytes >= 0)
        l.inline_audio_bytes = c->inline_audio_bytes;
    if (c->inline_video_bytes >= 0)
        l.inline_video_bytes = c->inline_video_bytes;
    if (c->inline_document_bytes >= 0)
        l.inline_document_bytes = c->inline_document_bytes;
    if (c->max_parts >= 0)
        l.max_parts = c->max_parts;
    if (c->max_message_bytes >= 0)
        l.max_message_bytes = c->max_message_bytes;
    return l;
}

/* RFC 6838 §4.2 restricted-name characters. */
static int restricted_char(unsigned char c, int first)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return 1;
    return !first && c && strchr("!#$&-^_.+", c) != NULL;
}

static void quote(char *dst, size_t size, const char *s)
{
    size_t n = 0;
    for (; s[n] && n < QUOTE_MAX && n + 1 < size; n++)
        dst[n] = (s[n] >= 0x20 && s[n] < 0x7f) ? s[n] : '?';
    dst[n] = '\0';
    if (s[n] && size > n + 4)
        memcpy(dst + n, "...", 4);
}

uint32_t seam_media_modality(const char *mime)
{
    if (!mime)
        return 0;
    if (strncasecmp(mime, "image/", 6) == 0)
        return SEAM_MODALITY_IMAGE;
    if (strncasecmp(mime, "audio/", 6) == 0)
        return SEAM_MODALITY_AUDIO;
    if (strncasecmp(mime, "video/", 6) == 0)
        return SEAM_MODALITY_VIDEO;
    if (strcasecmp(mime, "application/pdf") == 0)
        return SEAM_MODALITY_DOCUMENT;
    return 0;
}

uint32_t seam_media_mime_check(const char *mime, const char *where, seam_error *err)
{
    char q[QUOTE_MAX + 8];
    if (!mime || !*mime) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "%s: a media part needs a MIME type", where);
        return 0;
    }
    size_t len = strnlen(mime, MIME_MAX + 1);
    quote(q, sizeof q, mime);
    if (len > MIME_MAX) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                       "%s: MIME type \"%s\" is longer than the limit of %d characters", where, q,
                       MIME_MAX);
        return 0;
    }
    const char *semi = strchr(mime, ';');
    if (semi) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                       "%s: MIME type \"%s\" has parameters; only a bare type/subtype is taken",
                       where, q);
        return 0;
    }
    /* type "/" subtype, each 1..127 restricted-name characters. */
    size_t i = 0, t = 0;
    while (restricted_char((unsigned char)mime[i], i == 0))
        i++;
    t = i;
    int ok = t > 0 && t <= 127 && mime[i] == '/';
    if (ok) {
        size_t j = i + 1;
        while (restricted_char((unsigned char)mime[j], j == i + 1))
            j++;
        ok = j > i + 1 && j - i - 1 <= 127 && mime[j] == '\0';
    }
    if (!ok) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                       "%s: MIME type \"%s\" is not a bare type/subtype", where, q);
        return 0;
    }
    uint32_t m = seam_media_modality(mime);
    if (!m)
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                       "%s: MIME type \"%s\" is of no media modality seam carries (image/*, "
                       "audio/*, video/*, application/pdf)", where, q);
    return m;
}

int seam_media_handle_valid(const char *s)
{
    static const char prefix[] = "media://sha256-";
    if (!s || strncmp(s, prefix, sizeof prefix - 1) != 0)
        return 0;
    s += sizeof prefix - 1;
    for (int i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return s[64] == '\0';
}

/* ---- WAV ------------------------------------------------------------------ */

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int seam_wav_layout(const unsigned char *h, size_t n, uint32_t *rate, size_t *data_at,
                    uint32_t *data_size)
{
    if (n < 12 || memcmp(h, "RIFF", 4) != 0 || memcmp(h + 8, "WAVE", 4) != 0)
        return 0;
    *rate = 0;
    for (size_t at = 12; at + 8 <= n;) {
        uint32_t size = le32(h + at + 4);
        if (memcmp(h + at, "fmt ", 4) == 0 && size >= 16 && at + 8 + 12 <= n)
            *rate = le32(h + at + 8 + 8);
        if (memcmp(h + at, "data", 4) == 0) {
            *data_at = at + 8;
            *data_size = size == 0xffffffffu ? 0 : size;
            return *rate > 0;
        }
        if (size > n)
            return 0;
        at += 8 + (size_t)size + (size & 1);
    }
    return 0;
}

int64_t seam_wav_duration_ms(const unsigned char *d, size_t head_len, int64_t total)
{
    uint32_t rate, size;
    size_t at;
    if (!seam_wav_layout(d, head_len, &rate, &at, &size))
        return -1;
    int64_t audio = total - (int64_t)at;
    if (size && audio > (int64_t)size)
        audio = size;
    return audio > 0 ? audio * 1000 / rate : 0;
}

/* ---- base64 -------------------------------------------------------------- */

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

int seam_base64_value(unsigned char c)
{
    return b64_value(c);
}

int64_t seam_base64_decoded_len(const char *s, size_t len)
{
    if (!s || len % 4)
        return -1;
    size_t pad = 0;
    if (len && s[len - 1] == '=')
        pad = len >= 2 && s[len - 2] == '=' ? 2 : 1;
    for (size_t i = 0; i < len - pad; i++)
        if (b64_value((unsigned char)s[i]) < 0)
            return -1;
    /* The bits a padded group does not use must be zero (RFC 4648 §3.5):
     * otherwise two texts would decode to the same bytes. */
    if (pad == 1 && (b64_value((unsigned char)s[len - 2]) & 0x3))
        return -1;
    if (pad == 2 && (b64_value((unsigned char)s[len - 3]) & 0xf))
        return -1;
    return (int64_t)(len / 4 * 3 - pad);
}

unsigned char *seam_base64_decode(const char *s, size_t len, size_t *out_len)
{
    int64_t n = seam_base64_decoded_len(s, len);
    if (n < 0)
        return NULL;
    unsigned char *out = malloc((size_t)n + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint32_t v = 0;
        int k = 0;
        for (; k < 4 && s[i + k] != '='; k++)
            v = v << 6 | (uint32_t)b64_value((unsigned char)s[i + k]);
        v <<= 6 * (4 - k);
        if (k > 1)
            out[o++] = (unsigned char)(v >> 16);
        if (k > 2)
            out[o++] = (unsigned char)(v >> 8);
        if (k > 3)
            out[o++] = (unsigned char)v;
    }
    *out_len = o;
    return out;
}

char *seam_base64_encode(const unsigned char *d, size_t len)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (len > (SIZE_MAX - 1) / 4 * 3 - 3)
        return NULL;
    char *out = malloc((len + 2) / 3 * 4 + 1);
    if (!out)
        return NULL;
    size_t o = 0, i = 0;
    for (; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = tab[(v >> 6) & 63];
        out[o++] = tab[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < len ? (uint32_t)d[i + 1] << 8 : 0);
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < len ? tab[(v >> 6) & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
    return out;
}

/* ---- intake ---------------------------------------------------------------- */

static const char *modality_name(uint32_t m)
{
    switch (m) {
    case SEAM_MODALITY_IMAGE: return "image";
    case SEAM_MODALITY_AUDIO: return "audio";
    case SEAM_MODALITY_VIDEO: return "video";
    case SEAM_MODALITY_DOCUMENT: return "document";
    default: return "text";
    }
}

static int64_t ceiling_of(const seam_conf_media *l, uint32_t m)
{
    switch (m) {
    case SEAM_MODALITY_IMAGE: return l->inline_image_bytes;
    case SEAM_MODALITY_AUDIO: return l->inline_audio_bytes;
    case SEAM_MODALITY_VIDEO: return l->inline_video_bytes;
    default: return l->inline_document_bytes;
    }
}

int seam_media_intake(const seam_request *req, const seam_conf_media *conf, seam_error *err)
{
    seam_conf_media l = seam_media_limits(conf);
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        const seam_message *msg = seam_request_message(req, i);
        int64_t count = 0, total = 0;
        for (size_t j = 0; j < seam_message_part_count(msg); j++) {
            const seam_part *p = seam_message_part(msg, j);
            if (seam_part_get_type(p) != SEAM_PART_MEDIA)
                continue;
            char where[64];
            snprintf(where, sizeof where, "message %zu part %zu", i + 1, j + 1);
            uint32_t m = seam_media_mime_check(seam_part_mime_type(p), where, err);
            if (!m)
                return SEAM_ERR_INVALID;
            if (++count > l.max_parts) {
                seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                               "message %zu has more than %lld media parts (media.max_parts)",
                               i + 1, (long long)l.max_parts);
                return SEAM_ERR_INVALID;
            }
            const char *name = seam_part_media_name(p);
            if (name && strnlen(name, MIME_MAX + 1) > MIME_MAX) {
                seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                               "%s: the media name is longer than the limit of %d bytes", where,
                               MIME_MAX);
                return SEAM_ERR_INVALID;
            }
            const char *tr = seam_part_media_transcript(p);
            if ((name && strncmp(name, "data:", 5) == 0) || (tr && strncmp(tr, "data:", 5) == 0)) {
                seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                               "%s: a media name or transcript may not be a data: URI (bytes go "
                               "in the source)", where);
                return SEAM_ERR_INVALID;
            }
            if (seam_part_media_source(p) != SEAM_MEDIA_BASE64)
                continue;
            const char *data = seam_part_media_data(p);
            int64_t n = seam_base64_decoded_len(data, strlen(data));
            if (n < 0) {
                seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                               "%s: the media data is not valid base64 (RFC 4648, padded, no "
                               "whitespace)", where);
                return SEAM_ERR_INVALID;
            }
            int64_t ceiling = ceiling_of(&l, m);
            if (n > ceiling) {
                seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                               "%s: inline %s of %lld bytes is over the limit of %lld decoded "
                               "bytes (media.inline_%s_bytes); store it and send its handle",
                               where, modality_name(m), (long long)n, (long long)ceiling,
                               modality_name(m));
                return SEAM_ERR_INVALID;
            }
            total += n;
            if (total > l.max_message_bytes) {
                seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                               "message %zu carries %lld bytes of inline media, over the limit "
                               "of %lld (media.max_message_bytes)",
                               i + 1, (long long)total, (long long)l.max_message_bytes);
                return SEAM_ERR_INVALID;
            }
        }
    }
    return SEAM_OK;
}

uint32_t seam_media_request_inputs(const seam_request *req)
{
    uint32_t bits = 0;
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        const seam_message *msg = seam_request_message(req, i);
        for (size_t j = 0; j < seam_message_part_count(msg); j++) {
            const seam_part *p = seam_message_part(msg, j);
            if (seam_part_get_type(p) == SEAM_PART_MEDIA)
                bits |= seam_media_modality(seam_part_mime_type(p));
        }
    }
    return bits;
}
