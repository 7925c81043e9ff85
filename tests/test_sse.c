/* test_sse.c — the response framer (libcore/sse.c): SSE per the WHATWG event
 * stream rules with every line ending, each input fed whole, cut in two at every
 * byte position and fed one byte at a time; NDJSON; RAW; the max_event_bytes
 * bound; a callback that says stop. */
#include "config.h"
#include "internal.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* ---- a callback that writes every frame as one line of text ---------------- */

typedef struct collector {
    seam_buf out;
    int frames;
    int stop_after;  /* > 0: return stop_rc from the stop_after-th frame */
    int stop_rc;
    int bad_frame;   /* a frame broke the seam_frame contract */
} collector;

static void put_escaped(seam_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n')
            seam_buf_puts(b, "\\n");
        else if (c == '\r')
            seam_buf_puts(b, "\\r");
        else if (c == '\0')
            seam_buf_puts(b, "\\0");
        else if (c == '\\')
            seam_buf_puts(b, "\\\\");
        else if (c < 0x20 || c >= 0x7f)
            seam_buf_printf(b, "\\x%02x", c);
        else
            seam_buf_append(b, (const char *)&c, 1);
    }
}

static int collect(void *ud, const seam_frame *fr)
{
    collector *c = ud;
    if (!fr->data || fr->data[fr->data_len] != '\0')
        c->bad_frame = 1;
    seam_buf_puts(&c->out, "E=");
    if (fr->event)
        put_escaped(&c->out, fr->event, strlen(fr->event));
    else
        seam_buf_puts(&c->out, "-");
    seam_buf_puts(&c->out, ";I=");
    if (fr->id)
        put_escaped(&c->out, fr->id, strlen(fr->id));
    else
        seam_buf_puts(&c->out, "-");
    seam_buf_puts(&c->out, ";D=");
    put_escaped(&c->out, fr->data, fr->data_len);
    seam_buf_puts(&c->out, "\n");
    c->frames++;
    if (c->stop_after > 0 && c->frames >= c->stop_after)
        return c->stop_rc;
    return 0;
}

/* How an input is cut into blocks. */
enum { WHOLE, SPLIT_AT, BYTEWISE };

/* Frames input the given way and returns everything the callback saw (malloc'ed),
 * or NULL when feed or finish did not return SEAM_OK. */
static char *frame_input(seam_framing kind, const char *in, size_t len, int how, size_t at)
{
    collector c = {0};
    seam_framer *f = seam_framer_new(kind, 0, collect, &c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    int rc = SEAM_OK;
    if (how == WHOLE) {
        rc = seam_framer_feed(f, in, len);
    } else if (how == SPLIT_AT) {
        rc = seam_framer_feed(f, in, at);
        if (rc == SEAM_OK)
            rc = seam_framer_feed(f, in + at, len - at);
    } else {
        for (size_t i = 0; i < len && rc == SEAM_OK; i++) {
            rc = seam_framer_feed(f, in + i, 1);
            /* An empty block must change nothing, even right after a CR. */
            if (rc == SEAM_OK)
                rc = seam_framer_feed(f, in + i, 0);
        }
    }
    if (rc == SEAM_OK)
        rc = seam_framer_finish(f);
    seam_framer_free(f);
    CU_ASSERT_FALSE(c.bad_frame);
    if (rc != SEAM_OK) {
        seam_buf_free(&c.out);
        return NULL;
    }
    if (!c.out.data)
        return strdup("");
    return c.out.data;
}

/* Asserts that every way of cutting the input gives expected. */
static void check_all_cuts(seam_framing kind, const char *label, const char *in, size_t len,
                           const char *expected)
{
    char *got = frame_input(kind, in, len, WHOLE, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    if (strcmp(got, expected) != 0) {
        fprintf(stderr, "\n[%s] whole input:\n got: %s\nwant: %s\n", label, got, expected);
        CU_FAIL("whole input framed wrongly");
    }
    free(got);

    int split_failures = 0;
    for (size_t at = 0; at <= len; at++) {
        got = frame_input(kind, in, len, SPLIT_AT, at);
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        if (strcmp(got, expected) != 0 && split_failures++ == 0) {
            fprintf(stderr, "\n[%s] split at %zu:\n got: %s\nwant: %s\n", label, at, got,
                    expected);
            CU_FAIL("input split in two framed differently");
        }
        free(got);
    }

    got = frame_input(kind, in, len, BYTEWISE, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    if (strcmp(got, expected) != 0) {
        fprintf(stderr, "\n[%s] byte at a time:\n got: %s\nwant: %s\n", label, got, expected);
        CU_FAIL("input fed byte at a time framed differently");
    }
    free(got);
}

/* ---- SSE -------------------------------------------------------------------- */

/* Inputs are written with "\n" line ends; each is also run with "\r" and
 * "\r\n" substituted. len 0: strlen. Expected: one "E=event;I=id;D=data" line per
 * dispatched event, "-" for a NULL event or id. */
typedef struct sse_case {
    const char *name;
    const char *input;
    size_t len;
    const char *expected;
} sse_case;

static const sse_case sse_cases[] = {
    {"one event", "data: hello\n\n", 0, "E=-;I=-;D=hello\n"},
    {"two events", "data: a\n\ndata: b\n\n", 0, "E=-;I=-;D=a\nE=-;I=-;D=b\n"},
    {"multi-line data", "data: a\ndata: b\ndata:\n\n", 0, "E=-;I=-;D=a\\nb\\n\n"},
    {"data joined across three lines", "data: {\"x\":\ndata: 1\ndata: }\n\n", 0,
     "E=-;I=-;D={\"x\":\\n1\\n}\n"},
    {"comments", ": ping\n\n: x\ndata: y\n:another\n\n", 0, "E=-;I=-;D=y\n"},
    {"comment only stream", ":keep-alive\n\n:keep-alive\n\n", 0, ""},
    {"event names", "event: add\ndata: 1\n\nevent: x\n\ndata: 2\n\n", 0,
     "E=add;I=-;D=1\nE=-;I=-;D=2\n"},
    {"event after data", "data: x\nevent: late\n\n", 0, "E=late;I=-;D=x\n"},
    {"last event name wins", "event: a\nevent: b\ndata: x\n\n", 0, "E=b;I=-;D=x\n"},
    {"empty event name is none", "event:\ndata: x\n\n", 0, "E=-;I=-;D=x\n"},
    {"ids persist", "id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n", 0,
     "E=-;I=1;D=a\nE=-;I=1;D=b\nE=-;I=2;D=c\n"},
    {"id set by an event with no data", "id: 7\n\ndata: x\n\n", 0, "E=-;I=7;D=x\n"},
    {"empty id clears it", "id: 1\ndata: a\n\nid\ndata: b\n\n", 0,
     "E=-;I=1;D=a\nE=-;I=-;D=b\n"},
    {"id with NUL ignored", "id: 7\n\nid: a\0b\ndata: x\n\n", 24, "E=-;I=7;D=x\n"},
    {"BOM skipped", "\xEF\xBB\xBF" "data: x\n\n", 0, "E=-;I=-;D=x\n"},
    {"second BOM is data", "\xEF\xBB\xBF\xEF\xBB\xBF" "data: x\n\ndata: y\n\n", 0,
     "E=-;I=-;D=y\n"},
    {"partial BOM is not skipped", "\xEF\xBB" "data: x\n\ndata: y\n\n", 0, "E=-;I=-;D=y\n"},
    {"BOM only", "\xEF\xBB\xBF", 0, ""},
    {"no space after colon", "data:x\ndata:  y\n\n", 0, "E=-;I=-;D=x\\n y\n"},
    {"event without space", "event:e\ndata:x\n\n", 0, "E=e;I=-;D=x\n"},
    {"field without colon", "data\ndata\n\n", 0, "E=-;I=-;D=\\n\n"},
    {"empty data dispatches", "data:\n\n", 0, "E=-;I=-;D=\n"},
    {"data with only a space", "data: \n\n", 0, "E=-;I=-;D=\n"},
    {"no data, no event", "event: x\n\n\n\n", 0, ""},
    {"colons inside the value", "data: a:b: c\n\n", 0, "E=-;I=-;D=a:b: c\n"},
    {"retry and unknown fields ignored", "retry: 1000\nfoo: bar\nDATA: no\ndata: ok\n\n", 0,
     "E=-;I=-;D=ok\n"},
    {"NUL inside data", "data: a\0b\n\n", 11, "E=-;I=-;D=a\\0b\n"},
    {"UTF-8 data", "event: \xC3\xA9t\xC3\xA9\ndata: h\xC3\xA9llo \xE2\x9C\x93 \xF0\x9F\x98\x80\n\n", 0,
     "E=\\xc3\\xa9t\\xc3\\xa9;I=-;D=h\\xc3\\xa9llo \\xe2\\x9c\\x93 \\xf0\\x9f\\x98\\x80\n"},
    {"incomplete event discarded", "data: a\n\ndata: b\n", 0, "E=-;I=-;D=a\n"},
    {"unterminated line discarded", "data: a\n\ndata: b", 0, "E=-;I=-;D=a\n"},
    {"blank lines before the first event", "\n\n\ndata: a\n\n", 0, "E=-;I=-;D=a\n"},
    {"openai style",
     "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"
     "data: [DONE]\n\n",
     0,
     "E=-;I=-;D={\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n"
     "E=-;I=-;D=[DONE]\n"},
    {"anthropic style",
     "event: message_start\ndata: {\"type\":\"message_start\"}\n\n"
     "event: ping\ndata: {\"type\": \"ping\"}\n\n"
     "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"a\\nb\"}}\n\n",
     0,
     "E=message_start;I=-;D={\"type\":\"message_start\"}\n"
     "E=ping;I=-;D={\"type\": \"ping\"}\n"
     "E=content_block_delta;I=-;D={\"type\":\"content_block_delta\",\"delta\":{\"text\":\"a\\\\nb\"}}\n"},
};

/* input with every "\n" replaced by eol; malloc'ed. */
static char *with_line_end(const char *in, size_t len, const char *eol, size_t *out_len)
{
    seam_buf b = {0};
    for (size_t i = 0; i < len; i++) {
        if (in[i] == '\n')
            seam_buf_puts(&b, eol);
        else
            seam_buf_append(&b, in + i, 1);
    }
    *out_len = b.len;
    if (!b.data)
        return strdup("");
    return b.data;
}

static void test_sse_table_every_cut_every_line_end(void)
{
    static const char *const eols[] = {"\n", "\r", "\r\n"};
    static const char *const eol_names[] = {"LF", "CR", "CRLF"};
    for (size_t i = 0; i < sizeof sse_cases / sizeof sse_cases[0]; i++) {
        const sse_case *tc = &sse_cases[i];
        size_t len = tc->len ? tc->len : strlen(tc->input);
        for (size_t e = 0; e < 3; e++) {
            size_t n;
            char *in = with_line_end(tc->input, len, eols[e], &n);
            char label[160];
            snprintf(label, sizeof label, "%s, %s", tc->name, eol_names[e]);
            check_all_cuts(SEAM_FRAMING_SSE, label, in, n, tc->expected);
            free(in);
        }
    }
}

static void test_sse_mixed_line_ends(void)
{
    /* CR, CRLF, LF, then a CRLF blank line; a CR blank line dispatches nothing;
     * "\r\r\n" is two line ends (a CR, then a CRLF). */
    const char *in = "data: a\rdata: b\r\ndata: c\n\r\n\rdata: d\n\ndata: e\r\r\n";
    check_all_cuts(SEAM_FRAMING_SSE, "mixed", in, strlen(in),
                   "E=-;I=-;D=a\\nb\\nc\nE=-;I=-;D=d\nE=-;I=-;D=e\n");
    /* LF CR is two line ends too: the blank line between them dispatches. */
    const char *lfcr = "data: a\n\rdata: b\n\r";
    check_all_cuts(SEAM_FRAMING_SSE, "LF CR", lfcr, strlen(lfcr),
                   "E=-;I=-;D=a\nE=-;I=-;D=b\n");
}

static void test_sse_cr_lf_across_feeds_is_one_line_end(void)
{
    collector c = {0};
    seam_framer *f = seam_framer_new(SEAM_FRAMING_SSE, 0, collect, &c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    /* If the LF opening the second feed were a line end of its own, it would be a
     * blank line and dispatch "a" alone. */
    CU_ASSERT_EQUAL(seam_framer_feed(f, "data: a\r", 8), SEAM_OK);
    CU_ASSERT_EQUAL(seam_framer_feed(f, "", 0), SEAM_OK);
    CU_ASSERT_EQUAL(seam_framer_feed(f, "\ndata: b\r", 9), SEAM_OK);
    CU_ASSERT_EQUAL(c.frames, 0);
    CU_ASSERT_EQUAL(seam_framer_feed(f, "\n\r", 2), SEAM_OK);
    CU_ASSERT_EQUAL(c.frames, 1);
    CU_ASSERT_EQUAL(seam_framer_feed(f, "\n", 1), SEAM_OK);
    CU_ASSERT_EQUAL(c.frames, 1);
    CU_ASSERT_EQUAL(seam_framer_finish(f), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(c.out.data, "E=-;I=-;D=a\\nb\n");
    seam_framer_free(f);
    seam_buf_free(&c.out);
}

static void test_sse_event_dispatched_as_soon_as_complete(void)
{
    /* A stream's events must reach the plugin as they arrive, not at finish. */
    collector c = {0};
    seam_framer *f = seam_framer_new(SEAM_FRAMING_SSE, 0, collect, &c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(seam_framer_feed(f, "data: a\n", 8), SEAM_OK);
    CU_ASSERT_EQUAL(c.frames, 0);
    CU_ASSERT_EQUAL(seam_framer_feed(f, "\nda", 3), SEAM_OK);
    CU_ASSERT_EQUAL(c.frames, 1);
    CU_ASSERT_EQUAL(seam_framer_finish(f), SEAM_OK);
    CU_ASSERT_EQUAL(c.frames, 1);
    /* Feeding after finish is a caller bug. */
    CU_ASSERT_EQUAL(seam_framer_feed(f, "x", 1), SEAM_ERR_INVALID);
    seam_framer_free(f);
    seam_buf_free(&c.out);
}

static void test_sse_large_blocks_cr_only(void)
{
    /* 100k CR-only events in one block: a scan that searched for LF from every
     * line start would be quadratic here and never finish. */
    enum { N = 100000 };
    seam_buf in = {0};
    for (int i = 0; i < N; i++)
        seam_buf_printf(&in, "data: %d\r\r", i);
    collector c = {0};
    seam_framer *f = seam_framer_new(SEAM_FRAMING_SSE, 0, collect, &c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(seam_framer_feed(f, in.data, in.len), SEAM_OK);
    CU_ASSERT_EQUAL(seam_framer_finish(f), SEAM_OK);
    CU_ASSERT_EQUAL(c.frames, N);
    CU_ASSERT_PTR_NOT_NULL(strstr(c.out.data, "E=-;I=-;D=99999\n"));
    seam_framer_free(f);
    seam_buf_free(&c.out);
    seam_buf_free(&in);
}

/* ---- NDJSON ------------------------------------------------------------------ */

static void test_ndjson(void)
{
    static const struct {
        const char *name, *input, *expected;
    } cases[] = {
        {"two lines", "{\"a\":1}\n{\"b\":2}\n", "E=-;I=-;D={\"a\":1}\nE=-;I=-;D={\"b\":2}\n"},
        {"CRLF and blank lines", "{\"a\":1}\r\n\r\n\n{\"b\":2}\r\n",
         "E=-;I=-;D={\"a\":1}\nE=-;I=-;D={\"b\":2}\n"},
        {"last line unterminated", "{\"a\":1}\n{\"b\":2}", "E=-;I=-;D={\"a\":1}\nE=-;I=-;D={\"b\":2}\n"},
        {"last line unterminated with CR", "{}\r", "E=-;I=-;D={}\n"},
        {"whitespace-only lines skipped", "  \n\t\r\n{}\n", "E=-;I=-;D={}\n"},
        {"CR inside a line kept", "a\rb\n", "E=-;I=-;D=a\\rb\n"},
        {"BOM skipped", "\xEF\xBB\xBF{}\n", "E=-;I=-;D={}\n"},
        {"partial BOM kept", "\xEF\xBB{}\n", "E=-;I=-;D=\\xef\\xbb{}\n"},
        {"partial BOM at end of body", "\xEF", "E=-;I=-;D=\\xef\n"},
        {"SSE syntax is just text", "data: x\n\n", "E=-;I=-;D=data: x\n"},
        {"empty body", "", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_all_cuts(SEAM_FRAMING_NDJSON, cases[i].name, cases[i].input,
                       strlen(cases[i].input), cases[i].expected);
}

/* ---- RAW ------------------------------------------------------------------------ */

static void test_raw_one_frame_per_block(void)
{
    collector c = {0};
    seam_framer *f = seam_framer_new(SEAM_FRAMING_RAW, 0, collect, &c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(seam_framer_feed(f, "\xEF\xBB\xBF" "ab\n", 6), SEAM_OK);
    CU_ASSERT_EQUAL(seam_framer_feed(f, "", 0), SEAM_OK);
    CU_ASSERT_EQUAL(seam_framer_feed(f, "c\0d", 3), SEAM_OK);
    CU_ASSERT_EQUAL(seam_framer_feed(f, "\r\n\r\n", 4), SEAM_OK);
    CU_ASSERT_EQUAL(seam_framer_finish(f), SEAM_OK);
    CU_ASSERT_EQUAL(c.frames, 3);
    CU_ASSERT_FALSE(c.bad_frame);
    CU_ASSERT_STRING_EQUAL(c.out.data, "E=-;I=-;D=\\xef\\xbb\\xbfab\\n\n"
                                       "E=-;I=-;D=c\\0d\n"
                                       "E=-;I=-;D=\\r\\n\\r\\n\n");
    seam_framer_free(f);
    seam_buf_free(&c.out);
}

/* ---- max_event_bytes ----------------------------------------------------------- */

/* Feeds in (whole, or byte at a time) to a framer bounded at max; returns the
 * first non-OK status of feed/finish, and the frames seen in *frames. */
static int feed_bounded(seam_framing kind, size_t max, const char *in, int bytewise,
                        int *frames)
{
    collector c = {0};
    seam_framer *f = seam_framer_new(kind, max, collect, &c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    size_t len = strlen(in);
    int rc = SEAM_OK;
    if (bytewise) {
        for (size_t i = 0; i < len && rc == SEAM_OK; i++)
            rc = seam_framer_feed(f, in + i, 1);
    } else {
        rc = seam_framer_feed(f, in, len);
    }
    if (rc == SEAM_OK)
        rc = seam_framer_finish(f);
    else {
        /* The failure sticks: the framer's state is no longer trustworthy. */
        CU_ASSERT_EQUAL(seam_framer_feed(f, "\n\n", 2), rc);
        CU_ASSERT_EQUAL(seam_framer_finish(f), rc);
    }
    *frames = c.frames;
    seam_framer_free(f);
    seam_buf_free(&c.out);
    return rc;
}

static void test_max_event_bytes(void)
{
    int frames;
    for (int bytewise = 0; bytewise <= 1; bytewise++) {
        /* A line longer than the bound. */
        CU_ASSERT_EQUAL(feed_bounded(SEAM_FRAMING_SSE, 16, "data: 0123456789abcdef\n\n", bytewise,
                                     &frames), SEAM_ERR_INVALID);
        CU_ASSERT_EQUAL(frames, 0);
        /* Short lines whose data adds up past the bound. */
        CU_ASSERT_EQUAL(feed_bounded(SEAM_FRAMING_SSE, 16,
                                     "data: 12345\ndata: 12345\ndata: 12345\n\n", bytewise, &frames),
                        SEAM_ERR_INVALID);
        CU_ASSERT_EQUAL(frames, 0);
        /* Within the bound, and the bound is per event, not per stream. */
        CU_ASSERT_EQUAL(feed_bounded(SEAM_FRAMING_SSE, 16,
                                     "data: 1234567\n\ndata: 1234567\n\ndata: 1234567\n\n", bytewise,
                                     &frames), SEAM_OK);
        CU_ASSERT_EQUAL(frames, 3);
        /* A line that never ends. */
        CU_ASSERT_EQUAL(feed_bounded(SEAM_FRAMING_SSE, 16, ": xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                                     bytewise, &frames), SEAM_ERR_INVALID);
        CU_ASSERT_EQUAL(feed_bounded(SEAM_FRAMING_NDJSON, 8, "{\"a\":1}\n{\"abcdefgh\":1}\n",
                                     bytewise, &frames), SEAM_ERR_INVALID);
        CU_ASSERT_EQUAL(frames, 1);
        CU_ASSERT_EQUAL(feed_bounded(SEAM_FRAMING_NDJSON, 8, "{\"abcdefgh\":1}", bytewise, &frames),
                        SEAM_ERR_INVALID);
        CU_ASSERT_EQUAL(frames, 0);
    }
    CU_ASSERT_EQUAL(feed_bounded(SEAM_FRAMING_RAW, 4, "abcde", 0, &frames), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(feed_bounded(SEAM_FRAMING_RAW, 4, "abcd", 0, &frames), SEAM_OK);
    CU_ASSERT_EQUAL(frames, 1);

    /* 0 means the 16 MiB default: a 1 MiB event passes. */
    size_t big = 1024 * 1024;
    char *in = malloc(big + 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    memcpy(in, "data: ", 6);
    memset(in + 6, 'x', big);
    memcpy(in + 6 + big, "\n\n", 3);
    CU_ASSERT_EQUAL(feed_bounded(SEAM_FRAMING_SSE, 0, in, 0, &frames), SEAM_OK);
    CU_ASSERT_EQUAL(frames, 1);
    free(in);
}

/* ---- the callback says stop ------------------------------------------------------- */

static void test_callback_stop_propagates(void)
{
    static const struct {
        seam_framing kind;
        const char *first, *second;
    } cases[] = {
        {SEAM_FRAMING_SSE, "data: a\n\ndata: b\n\n", "data: c\n\n"},
        {SEAM_FRAMING_NDJSON, "{}\n{}\n", "{}\n"},
        {SEAM_FRAMING_RAW, "ab", "cd"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        collector c = {.stop_after = 1, .stop_rc = 42};
        seam_framer *f = seam_framer_new(cases[i].kind, 0, collect, &c);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_EQUAL(seam_framer_feed(f, cases[i].first, strlen(cases[i].first)), 42);
        CU_ASSERT_EQUAL(c.frames, 1);
        CU_ASSERT_EQUAL(seam_framer_feed(f, cases[i].second, strlen(cases[i].second)), 42);
        CU_ASSERT_EQUAL(seam_framer_finish(f), 42);
        CU_ASSERT_EQUAL(c.frames, 1);
        seam_framer_free(f);
        seam_buf_free(&c.out);
    }
    /* A stop from the last NDJSON line, dispatched by finish. */
    collector c = {.stop_after = 1, .stop_rc = -9};
    seam_framer *f = seam_framer_new(SEAM_FRAMING_NDJSON, 0, collect, &c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(seam_framer_feed(f, "{}", 2), SEAM_OK);
    CU_ASSERT_EQUAL(seam_framer_finish(f), -9);
    seam_framer_free(f);
    seam_buf_free(&c.out);
}

static void test_new_rejects_bad_arguments(void)
{
    collector c = {0};
    CU_ASSERT_PTR_NULL(seam_framer_new(SEAM_FRAMING_SSE, 0, NULL, &c));
    CU_ASSERT_PTR_NULL(seam_framer_new((seam_framing)99, 0, collect, &c));
    CU_ASSERT_EQUAL(seam_framer_feed(NULL, "x", 1), SEAM_ERR_INVALID);
    seam_framer_free(NULL);
}

static const tu_test tests[] = {
    { "SSE table, every cut, every line end", test_sse_table_every_cut_every_line_end },
    { "SSE mixed line ends", test_sse_mixed_line_ends },
    { "SSE CR then LF across feeds", test_sse_cr_lf_across_feeds_is_one_line_end },
    { "SSE dispatches as soon as complete", test_sse_event_dispatched_as_soon_as_complete },
    { "SSE large CR-only block", test_sse_large_blocks_cr_only },
    { "NDJSON", test_ndjson },
    { "RAW", test_raw_one_frame_per_block },
    { "max_event_bytes", test_max_event_bytes },
    { "callback stop propagates", test_callback_stop_propagates },
    { "bad arguments", test_new_rejects_bad_arguments },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("sse", tests, NULL);
}
