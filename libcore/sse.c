/* sse.c — the response framer: turns a streamed body, cut anywhere by TCP, into
 * frames for a plugin's decode_event. Three framings:
 *   SSE    the WHATWG "event stream interpretation" (CR / LF / CRLF line ends, a
 *          leading BOM, comments, event / data / id / retry fields),
 *   NDJSON one frame per non-blank line,
 *   RAW    one frame per fed block.
 * This is on the hot path of every stream: lines are found with memchr, a line is
 * used in place when it lies whole inside one fed block, and the buffers are
 * reused from event to event, so nothing is allocated per byte or per event once
 * they have grown to the stream's size. */
#include "config.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_EVENT_BYTES ((size_t)16 * 1024 * 1024)

static const unsigned char utf8_bom[3] = {0xEF, 0xBB, 0xBF};

struct seam_framer {
    seam_framing kind;
    size_t max_event_bytes;
    seam_frame_cb cb;
    void *ud;

    /* A line begun in an earlier block; also the NUL-terminated copy of an
     * NDJSON line and of a RAW block. */
    seam_buf line;
    /* SSE state that outlives a line (WHATWG names: data buffer, event type
     * buffer, last event ID buffer). */
    seam_buf data;
    seam_buf event;
    seam_buf last_id;

    /* BOM detection at the very start of the stream: how many of its bytes have
     * been held back so far, and whether the question is settled. */
    unsigned char bom_held[3];
    size_t bom_len;
    int bom_done;

    /* SSE: the previous block ended in CR, so an LF opening the next block
     * belongs to that same line end. */
    int pending_cr;

    /* Once feed has failed or the callback has said stop, every later call
     * returns the same value: the state is no longer trustworthy. */
    int sticky;
    int finished;
};

seam_framer *seam_framer_new(seam_framing kind, size_t max_event_bytes, seam_frame_cb cb,
                             void *ud)
{
    if (!cb || (kind != SEAM_FRAMING_SSE && kind != SEAM_FRAMING_NDJSON &&
                kind != SEAM_FRAMING_RAW))
        return NULL;
    seam_framer *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->kind = kind;
    f->max_event_bytes = max_event_bytes ? max_event_bytes : DEFAULT_MAX_EVENT_BYTES;
    f->cb = cb;
    f->ud = ud;
    /* RAW hands bytes over untouched, BOM included. */
    f->bom_done = kind == SEAM_FRAMING_RAW;
    return f;
}

void seam_framer_free(seam_framer *f)
{
    if (!f)
        return;
    seam_buf_free(&f->line);
    seam_buf_free(&f->data);
    seam_buf_free(&f->event);
    seam_buf_free(&f->last_id);
    free(f);
}

/* ---- SSE ------------------------------------------------------------------ */

static int buf_set(seam_buf *b, const char *s, size_t n)
{
    seam_buf_reset(b);
    return seam_buf_append(b, s, n);
}

static int field_is(const char *name, size_t len, const char *want, size_t want_len)
{
    return len == want_len && memcmp(name, want, len) == 0;
}

static int sse_dispatch(seam_framer *f)
{
    /* WHATWG: an empty data buffer dispatches nothing, and the event type is
     * reset all the same. */
    if (f->data.len == 0) {
        seam_buf_reset(&f->event);
        return SEAM_OK;
    }
    /* Every data line appended an LF; the last one is not part of the data. */
    f->data.len--;
    f->data.data[f->data.len] = '\0';
    seam_frame frame = {
        .event = f->event.len ? f->event.data : NULL,
        .data = f->data.data,
        .data_len = f->data.len,
        .id = f->last_id.len ? f->last_id.data : NULL,
    };
    int rc = f->cb(f->ud, &frame);
    seam_buf_reset(&f->data);
    seam_buf_reset(&f->event);
    return rc;
}

static int sse_line(seam_framer *f, const char *line, size_t len)
{
    if (len == 0)
        return sse_dispatch(f);
    if (line[0] == ':')
        return SEAM_OK; /* comment */

    const char *colon = memchr(line, ':', len);
    size_t name_len = colon ? (size_t)(colon - line) : len;
    const char *value = colon ? colon + 1 : line + len;
    size_t value_len = (size_t)(line + len - value);
    if (value_len && value[0] == ' ') {
        value++;
        value_len--;
    }

    if (field_is(line, name_len, "data", 4)) {
        /* value + the LF that joins it to the next data line */
        if (f->data.len + value_len + 1 > f->max_event_bytes)
            return SEAM_ERR_INVALID;
        if (seam_buf_append(&f->data, value, value_len) != SEAM_OK ||
            seam_buf_append(&f->data, "\n", 1) != SEAM_OK)
            return SEAM_ERR_NOMEM;
    } else if (field_is(line, name_len, "event", 5)) {
        if (buf_set(&f->event, value, value_len) != SEAM_OK)
            return SEAM_ERR_NOMEM;
    } else if (field_is(line, name_len, "id", 2)) {
        if (!memchr(value, '\0', value_len) &&
            buf_set(&f->last_id, value, value_len) != SEAM_OK)
            return SEAM_ERR_NOMEM;
    }
    /* "retry" and unknown fields are ignored: the core owns reconnection policy. */
    return SEAM_OK;
}

/* Carries the unterminated tail of a block over to the next one. */
static int keep_partial_line(seam_framer *f, const char *p, size_t n)
{
    if (f->line.len + n > f->max_event_bytes)
        return SEAM_ERR_INVALID;
    return seam_buf_append(&f->line, p, n) == SEAM_OK ? SEAM_OK : SEAM_ERR_NOMEM;
}

/* Hands one complete line to handle: in place when the block holds all of it,
 * else completed in f->line. */
static int complete_line(seam_framer *f, const char *p, size_t n,
                         int (*handle)(seam_framer *, const char *, size_t))
{
    if (f->line.len == 0) {
        if (n > f->max_event_bytes)
            return SEAM_ERR_INVALID;
        return handle(f, p, n);
    }
    int rc = keep_partial_line(f, p, n);
    if (rc != SEAM_OK)
        return rc;
    rc = handle(f, f->line.data, f->line.len);
    seam_buf_reset(&f->line);
    return rc;
}

static int sse_feed(seam_framer *f, const char *p, const char *end)
{
    if (f->pending_cr) {
        if (p == end)
            return SEAM_OK;
        f->pending_cr = 0;
        if (*p == '\n')
            p++;
    }
    /* The next CR and the next LF at or after p (end when there is none), each
     * searched again only once p has passed it: a stream using one kind of line
     * end costs one memchr pass per byte, not one per line. */
    const char *cr = NULL, *lf = NULL;
    while (p < end) {
        if (!cr || cr < p) {
            cr = memchr(p, '\r', (size_t)(end - p));
            if (!cr)
                cr = end;
        }
        if (!lf || lf < p) {
            lf = memchr(p, '\n', (size_t)(end - p));
            if (!lf)
                lf = end;
        }
        const char *eol = cr < lf ? cr : lf;
        if (eol == end)
            return keep_partial_line(f, p, (size_t)(end - p));

        int rc = complete_line(f, p, (size_t)(eol - p), sse_line);
        if (rc != SEAM_OK)
            return rc;
        p = eol + 1;
        if (*eol == '\r') {
            if (p == end)
                f->pending_cr = 1; /* an LF may open the next block */
            else if (*p == '\n')
                p++;
        }
    }
    return SEAM_OK;
}

/* ---- NDJSON --------------------------------------------------------------- */

static int ndjson_line(seam_framer *f, const char *line, size_t len)
{
    if (len && line[len - 1] == '\r')
        len--;
    /* A blank line (or whitespace only) is a keep-alive, not a JSON value. */
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        i++;
    if (i == len)
        return SEAM_OK;
    /* The plugin gets a NUL-terminated string: copy unless it already is one. */
    if (line != f->line.data) {
        if (buf_set(&f->line, line, len) != SEAM_OK)
            return SEAM_ERR_NOMEM;
    } else {
        f->line.len = len;
        f->line.data[len] = '\0';
    }
    seam_frame frame = {.event = NULL, .data = f->line.data, .data_len = len, .id = NULL};
    int rc = f->cb(f->ud, &frame);
    seam_buf_reset(&f->line);
    return rc;
}

static int ndjson_feed(seam_framer *f, const char *p, const char *end)
{
    while (p < end) {
        const char *lf = memchr(p, '\n', (size_t)(end - p));
        if (!lf)
            return keep_partial_line(f, p, (size_t)(end - p));
        int rc = complete_line(f, p, (size_t)(lf - p), ndjson_line);
        if (rc != SEAM_OK)
            return rc;
        p = lf + 1;
    }
    return SEAM_OK;
}

/* ---- RAW ------------------------------------------------------------------ */

static int raw_feed(seam_framer *f, const char *p, size_t n)
{
    if (n == 0)
        return SEAM_OK;
    if (n > f->max_event_bytes)
        return SEAM_ERR_INVALID;
    if (buf_set(&f->line, p, n) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    seam_frame frame = {.event = NULL, .data = f->line.data, .data_len = n, .id = NULL};
    return f->cb(f->ud, &frame);
}

/* ---- feeding ------------------------------------------------------------------ */

static int feed_framed(seam_framer *f, const char *data, size_t len)
{
    const char *end = data + len;
    switch (f->kind) {
    case SEAM_FRAMING_SSE:
        return sse_feed(f, data, end);
    case SEAM_FRAMING_NDJSON:
        return ndjson_feed(f, data, end);
    case SEAM_FRAMING_RAW:
        return raw_feed(f, data, len);
    }
    return SEAM_ERR_INVALID;
}

/* Skips one UTF-8 BOM at the very start of the stream, even when it arrives cut
 * across blocks: advances *data / *len past the bytes it holds back. Bytes held
 * back that turn out not to be a BOM are fed on as ordinary data. */
static int skip_bom(seam_framer *f, const char **data, size_t *len)
{
    while (!f->bom_done && *len) {
        unsigned char c = (unsigned char)**data;
        if (c != utf8_bom[f->bom_len]) {
            f->bom_done = 1;
            /* Not a BOM after all: what was held back is data. */
            if (f->bom_len)
                return feed_framed(f, (const char *)f->bom_held, f->bom_len);
            return SEAM_OK;
        }
        f->bom_held[f->bom_len++] = c;
        (*data)++;
        (*len)--;
        if (f->bom_len == sizeof utf8_bom)
            f->bom_done = 1; /* a whole BOM: dropped */
    }
    return SEAM_OK;
}

int seam_framer_feed(seam_framer *f, const char *data, size_t len)
{
    if (!f || (!data && len))
        return SEAM_ERR_INVALID;
    if (f->sticky)
        return f->sticky;
    if (f->finished)
        return SEAM_ERR_INVALID;
    int rc = SEAM_OK;
    if (!f->bom_done)
        rc = skip_bom(f, &data, &len);
    if (rc == SEAM_OK && len)
        rc = feed_framed(f, data, len);
    if (rc != SEAM_OK)
        f->sticky = rc;
    return rc;
}

int seam_framer_finish(seam_framer *f)
{
    if (!f)
        return SEAM_ERR_INVALID;
    if (f->sticky)
        return f->sticky;
    if (f->finished)
        return SEAM_ERR_INVALID;
    f->finished = 1;
    int rc = SEAM_OK;
    /* A body shorter than a BOM that only looked like one: it is data. */
    if (!f->bom_done && f->bom_len) {
        f->bom_done = 1;
        rc = feed_framed(f, (const char *)f->bom_held, f->bom_len);
    }
    if (rc == SEAM_OK && f->kind == SEAM_FRAMING_NDJSON && f->line.len)
        rc = ndjson_line(f, f->line.data, f->line.len);
    /* SSE: an event without its closing blank line is discarded (WHATWG), and so
     * is an unterminated last line. */
    seam_buf_reset(&f->line);
    seam_buf_reset(&f->data);
    seam_buf_reset(&f->event);
    if (rc != SEAM_OK)
        f->sticky = rc;
    return rc;
}
