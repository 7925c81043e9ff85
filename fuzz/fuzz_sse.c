/* fuzz_sse.c — a differential libFuzzer harness for the response framer
 * (libcore/sse.c): TCP may cut a body anywhere, so the frames a plugin sees
 * must not depend on where. The same body is fed whole, one byte at a time,
 * and in pieces whose lengths the input chooses; the three must dispatch the
 * same frames (event, id, data) in the same order and end with the same
 * status, for the SSE and NDJSON framings, with a small or a large event cap,
 * and with a callback that may ask to stop after some frame. Every frame must
 * also keep the framer's promise of a NUL-terminated `data`.
 *
 * Input: byte 0 = mode (bit 0 framing, bit 1 small cap, bits 2-7 stop after
 * that many frames, 0 = never), byte 1 = the seed of the piece lengths, the
 * rest = the body. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* What one feeding saw: the frames, serialised, and the final status. */
typedef struct trace {
    seam_buf log;
    size_t frames;
    size_t stop_after; /* 0: never ask to stop */
} trace;

static void log_field(seam_buf *b, const char *tag, const char *s, size_t n)
{
    char head[48];
    snprintf(head, sizeof head, "%s%zu:", tag, n);
    seam_buf_puts(b, head);
    seam_buf_append(b, s ? s : "", n);
}

static int on_frame(void *ud, const seam_frame *f)
{
    trace *t = ud;
    if (!f->data || f->data[f->data_len] != '\0')
        abort(); /* the framer promises a NUL-terminated copy */
    log_field(&t->log, f->event ? "E" : "e", f->event, f->event ? strlen(f->event) : 0);
    log_field(&t->log, f->id ? "I" : "i", f->id, f->id ? strlen(f->id) : 0);
    log_field(&t->log, "D", f->data, f->data_len);
    seam_buf_puts(&t->log, "\n");
    t->frames++;
    return t->stop_after && t->frames >= t->stop_after ? 7 : 0;
}

/* Feeds body in pieces from next_len (0: whole) and returns the status. */
static int run(seam_framing kind, size_t cap, const char *body, size_t n, unsigned seed,
               int mode, trace *t)
{
    seam_framer *fr = seam_framer_new(kind, cap, on_frame, t);
    if (!fr)
        abort();
    int rc = SEAM_OK;
    size_t off = 0;
    uint32_t x = seed * 2654435761u + 1u;
    while (off < n && rc == SEAM_OK) {
        size_t piece = n - off;
        if (mode == 1) {
            piece = 1;
        } else if (mode == 2) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            size_t want = (x % 17) == 0 ? 0 : 1 + x % 24; /* empty pieces too */
            if (want < piece)
                piece = want;
        }
        rc = seam_framer_feed(fr, body + off, piece);
        off += piece;
    }
    if (rc == SEAM_OK)
        rc = seam_framer_finish(fr);
    /* Once failed, the framer must keep saying so. */
    else if (seam_framer_feed(fr, "x\n\n", 3) != rc || seam_framer_finish(fr) != rc)
        abort();
    seam_framer_free(fr);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const int m = data[0];
    const seam_framing kind = (m & 1) ? SEAM_FRAMING_NDJSON : SEAM_FRAMING_SSE;
    const size_t cap = (m & 2) ? 1 + data[1] % 64 : 0;
    const char *body = (const char *)data + 2;
    const size_t n = size - 2;

    trace t[3];
    int rc[3];
    for (int i = 0; i < 3; i++) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].stop_after = (size_t)(m >> 2);
        rc[i] = run(kind, cap, body, n, data[1], i, &t[i]);
    }
    for (int i = 1; i < 3; i++) {
        if (rc[i] != rc[0] || t[i].frames != t[0].frames || t[i].log.len != t[0].log.len ||
            (t[0].log.len && memcmp(t[i].log.data, t[0].log.data, t[0].log.len) != 0)) {
            fprintf(stderr, "framing differs: whole rc=%d frames=%zu, %s rc=%d frames=%zu\n",
                    rc[0], t[0].frames, i == 1 ? "bytewise" : "pieces", rc[i], t[i].frames);
            fprintf(stderr, "whole:\n%.*s\nsplit:\n%.*s\n", (int)t[0].log.len,
                    t[0].log.data ? t[0].log.data : "", (int)t[i].log.len,
                    t[i].log.data ? t[i].log.data : "");
            abort();
        }
    }
    for (int i = 0; i < 3; i++)
        seam_buf_free(&t[i].log);
    return 0;
}
