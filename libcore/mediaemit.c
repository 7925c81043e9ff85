/* mediaemit.c — media that reaches the core in pieces (plugin ABI 1.6:
 * seam_emit_media_begin / _append / _transcript / _end). A provider that
 * streams audio sends it as many base64 fragments (OpenAI Chat Completions:
 * delta.audio.data). Each fragment is decoded as it comes (a group of four
 * characters cut between two fragments is carried over), the bytes are hashed
 * and written to a temporary file of the media store, and only a count goes
 * on: the consumer sees media_start, media_delta chunks carrying progress and
 * transcript text, and media_end with the handle. Neither the base64 nor the
 * whole of the bytes is ever held in memory.
 *
 * A fragment may also be a base64 text of its own, padded at its end (a
 * server that encodes each piece apart): padding ends a fragment's text, and
 * the next fragment starts afresh. Inside one fragment nothing may follow the
 * padding. What media_end says besides the handle rides in its result_json:
 * {"byte_length":N,"duration_ms":M} (duration when it can be told: a WAV
 * header, or raw PCM at the rate begin was given); a media_delta's is
 * {"bytes":N}, the bytes so far. */
#include "config.h"
#include "transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enough of the first bytes to find a WAV file's fmt and data chunks. */
#define HEAD_MAX 256

struct seam_open_media {
    struct seam_open_media *next;
    char *id;
    char *mime;
    int64_t bytes_per_second; /* raw PCM: the rate; 0 otherwise */
    seam_media_writer *w;
    int64_t bytes;
    unsigned char head[HEAD_MAX];
    size_t head_len;
    int quad[4]; /* a group of four characters not yet whole */
    int nq;
    int pad;     /* '=' seen in the group */
};

static void open_free(struct seam_open_media *m)
{
    seam_media_writer_free(m->w);
    free(m->id);
    free(m->mime);
    free(m);
}

void seam_emitter_release(seam_emitter *em)
{
    if (!em)
        return;
    while (em->open_media) {
        struct seam_open_media *m = em->open_media;
        em->open_media = m->next;
        open_free(m);
    }
}

static struct seam_open_media *find(seam_emitter *em, const char *id)
{
    for (struct seam_open_media *m = em->open_media; m; m = m->next)
        if (strcmp(m->id, id) == 0)
            return m;
    return NULL;
}

/* what: "begins twice", "data before its beginning", ... */
static int bad_answer(seam_error *err, const char *id, const char *what)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "media %.64s of the answer: %s", id, what);
    seam_strlcpy(err->code, "bad_response", sizeof err->code);
    return SEAM_ERR_PROVIDER;
}

int seam_emit_media_begin(seam_emitter *em, const char *id, const char *mime_type,
                          int64_t bytes_per_second, seam_error *err)
{
    seam_error_clear(err);
    if (!em || !id || !*id || bytes_per_second < 0)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "seam_emit_media_begin: invalid argument"),
               SEAM_ERR_PROVIDER;
    if (!seam_media_mime_check(mime_type, "media in the answer", err)) {
        err->kind = SEAM_ERROR_UNKNOWN; /* the provider's answer is malformed */
        return SEAM_ERR_PROVIDER;
    }
    if (find(em, id))
        return bad_answer(err, id, "it begins twice");
    struct seam_open_media *m = calloc(1, sizeof *m);
    if (!m || !(m->id = strdup(id)) || !(m->mime = strdup(mime_type))) {
        if (m)
            open_free(m);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_PROVIDER;
    }
    m->bytes_per_second = bytes_per_second;
    if (!(m->w = seam_media_writer_new(em->client, err))) {
        open_free(m);
        return SEAM_ERR_PROVIDER;
    }
    m->next = em->open_media;
    em->open_media = m;
    em->n_media++;
    seam_chunk c = {.type = SEAM_CHUNK_MEDIA_START, .id = m->id, .mime_type = m->mime};
    return em->fn(em->ud, &c);
}

/* The duration in ms, -1 when it cannot be told. */
static int64_t duration_ms(const struct seam_open_media *m)
{
    int64_t ms = seam_wav_duration_ms(m->head, m->head_len, m->bytes);
    if (ms >= 0)
        return ms;
    if (m->bytes_per_second > 0)
        return m->bytes * 1000 / m->bytes_per_second;
    return -1;
}

/* The share received, when the whole size is known (a WAV header's data
 * size); -1 otherwise. */
static double progress_of(const struct seam_open_media *m)
{
    uint32_t rate, size;
    size_t at;
    if (!seam_wav_layout(m->head, m->head_len, &rate, &at, &size) || !size)
        return -1;
    double p = (double)m->bytes / (double)(at + size);
    return p > 1 ? 1 : p;
}

static int put_bytes(struct seam_open_media *m, const unsigned char *b, size_t n, seam_error *err)
{
    if (m->head_len < HEAD_MAX) {
        size_t take = HEAD_MAX - m->head_len < n ? HEAD_MAX - m->head_len : n;
        memcpy(m->head + m->head_len, b, take);
        m->head_len += take;
    }
    m->bytes += (int64_t)n;
    return seam_media_writer_write(m->w, b, n, err);
}

int seam_emit_media_append(seam_emitter *em, const char *id, const char *base64, size_t len,
                           seam_error *err)
{
    seam_error_clear(err);
    if (!em || !id || (!base64 && len))
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "seam_emit_media_append: invalid argument"),
               SEAM_ERR_PROVIDER;
    struct seam_open_media *m = find(em, id);
    if (!m)
        return bad_answer(err, id, "data before its beginning");
    if (!len)
        return SEAM_OK;
    unsigned char out[3 * 1024];
    size_t o = 0;
    int closed = 0; /* this fragment's text ended with padding */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)base64[i];
        int v = c == '=' ? -2 : seam_base64_value(c);
        if (closed || v == -1 || (v == -2 && m->nq < 2) || (v >= 0 && m->pad))
            return seam_error_set(err, SEAM_ERROR_UNKNOWN,
                                  "media %.64s in the answer is not valid base64 (at character "
                                  "%zu of a fragment of %zu)",
                                  id, i + 1, len),
                   SEAM_ERR_PROVIDER;
        if (v == -2) {
            m->pad++;
            v = 0;
        }
        m->quad[m->nq++] = v;
        if (m->nq < 4)
            continue;
        /* The bits a padded group does not use must be zero (RFC 4648 §3.5). */
        if ((m->pad == 1 && (m->quad[2] & 0x3)) || (m->pad == 2 && (m->quad[1] & 0xf)))
            return seam_error_set(err, SEAM_ERROR_UNKNOWN,
                                  "media %.64s in the answer is not valid base64 (padding)", id),
                   SEAM_ERR_PROVIDER;
        uint32_t g = (uint32_t)m->quad[0] << 18 | (uint32_t)m->quad[1] << 12 |
                     (uint32_t)m->quad[2] << 6 | (uint32_t)m->quad[3];
        out[o++] = (unsigned char)(g >> 16);
        if (m->pad < 2)
            out[o++] = (unsigned char)(g >> 8);
        if (m->pad < 1)
            out[o++] = (unsigned char)g;
        closed = m->pad > 0;
        m->nq = m->pad = 0;
        if (o + 3 > sizeof out) {
            if (put_bytes(m, out, o, err) != SEAM_OK)
                return SEAM_ERR_PROVIDER;
            o = 0;
        }
    }
    if (put_bytes(m, out, o, err) != SEAM_OK)
        return SEAM_ERR_PROVIDER;
    char meta[48];
    snprintf(meta, sizeof meta, "{\"bytes\":%lld}", (long long)m->bytes);
    seam_chunk c = {.type = SEAM_CHUNK_MEDIA_DELTA, .id = m->id, .progress = progress_of(m),
                    .result_json = meta};
    return em->fn(em->ud, &c);
}

int seam_emit_media_transcript(seam_emitter *em, const char *id, const char *text,
                               seam_error *err)
{
    seam_error_clear(err);
    if (!em || !id)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN,
                              "seam_emit_media_transcript: invalid argument"),
               SEAM_ERR_PROVIDER;
    struct seam_open_media *m = find(em, id);
    if (!m)
        return bad_answer(err, id, "a transcript before its beginning");
    if (!text || !*text)
        return SEAM_OK;
    seam_chunk c = {.type = SEAM_CHUNK_MEDIA_DELTA, .id = m->id, .progress = progress_of(m),
                    .text = text};
    return em->fn(em->ud, &c);
}

int seam_emit_media_end(seam_emitter *em, const char *id, seam_error *err)
{
    seam_error_clear(err);
    if (!em || !id)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "seam_emit_media_end: invalid argument"),
               SEAM_ERR_PROVIDER;
    struct seam_open_media **pm = &em->open_media;
    while (*pm && strcmp((*pm)->id, id) != 0)
        pm = &(*pm)->next;
    struct seam_open_media *m = *pm;
    if (!m)
        return bad_answer(err, id, "an end without a beginning");
    *pm = m->next;
    int rc = SEAM_OK;
    char handle[SEAM_MEDIA_HANDLE_SIZE];
    if (m->nq)
        rc = seam_error_set(err, SEAM_ERROR_UNKNOWN,
                            "media %.64s in the answer is not valid base64 (it ends inside a "
                            "group of four characters)",
                            id);
    else if (seam_media_writer_commit(m->w, handle, err) != SEAM_OK)
        rc = SEAM_ERR_PROVIDER;
    if (rc == SEAM_OK) {
        char meta[96];
        int64_t ms = duration_ms(m);
        if (ms >= 0)
            snprintf(meta, sizeof meta, "{\"byte_length\":%lld,\"duration_ms\":%lld}",
                     (long long)m->bytes, (long long)ms);
        else
            snprintf(meta, sizeof meta, "{\"byte_length\":%lld}", (long long)m->bytes);
        seam_chunk c = {.type = SEAM_CHUNK_MEDIA_END, .id = m->id, .mime_type = m->mime,
                        .text = handle, .result_json = meta};
        rc = em->fn(em->ud, &c);
    } else {
        rc = SEAM_ERR_PROVIDER;
    }
    open_free(m);
    return rc;
}
