/* json_scan.h — a single-pass, allocation-free JSON scanner for the codecs'
 * hot stream events (text, reasoning and tool-argument deltas). A codec walks
 * an event's text with it, picks out the few members it needs, decodes their
 * strings into a buffer it reuses for the whole stream, and skips the rest.
 *
 * The scanner is deliberately narrower than json-c: it accepts strict RFC 8259
 * JSON only, and fails (returns 0) on anything whose meaning json-c might see
 * differently — an escaped key, a \u0000 or lone surrogate, a raw control
 * character in a string, a number with an exponent or more than 18 digits,
 * nesting past JSCAN_MAX_DEPTH. A codec that gets 0 anywhere discards what it
 * scanned and decodes the event with json-c as before, so the scanner changes
 * the cost of an event, never its chunks (fuzz/fuzz_scan_diff.c checks that).
 *
 * Plugin-private like codec_util: compiled into each plugin, symbols hidden. */
#ifndef SEAM_PLUGIN_JSON_SCAN_H
#define SEAM_PLUGIN_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* Below every codec's json-c nesting limit (32 or more), so a document the
 * scanner accepts is never one json-c refuses for depth. */
#define JSCAN_MAX_DEPTH 16

/* Decoded strings of one event: grown once to the longest event seen, then
 * reused; zero-initialized is empty. Free with jscan_buf_free. */
typedef struct jscan_buf {
    char *data;
    size_t len;
    size_t cap;
} jscan_buf;

void jscan_buf_free(jscan_buf *b);

typedef struct jscan {
    const char *p;
    const char *end;
    jscan_buf *buf;
    int depth;
} jscan;

/* 1 in a build that must always take the json-c path (the differential fuzz
 * target flips it); 0 otherwise. */
extern int jscan_disabled;

/* Starts a scan of text[0..len) whose strings go to buf (emptied, and grown so
 * that every string of this text fits without moving). 0 when disabled or out
 * of memory. */
int jscan_begin(jscan *s, jscan_buf *buf, const char *text, size_t len);
/* 1 when only JSON whitespace is left. */
int jscan_end(jscan *s);

/* Objects: jscan_object opens one ('{'); jscan_member then yields each member
 * name (raw bytes, not terminated; names with escapes fail) with the ':'
 * consumed: 1 a member, 0 the object closed, -1 a scan failure. */
int jscan_object(jscan *s);
int jscan_member(jscan *s, const char **key, size_t *klen);
/* Arrays: jscan_array opens one ('['); jscan_element: 1 an element follows,
 * 0 the array closed, -1 failure. */
int jscan_array(jscan *s);
int jscan_element(jscan *s);

/* The next value's first byte, after whitespace ('\0' at the end). */
char jscan_peek(jscan *s);
/* Consumes a null if one is next: 1 it was, 0 it was not. */
int jscan_null(jscan *s);
/* A string into the buffer, NUL-terminated; *out points there. */
int jscan_string(jscan *s, const char **out);
/* A string, or null (*out NULL). */
int jscan_string_or_null(jscan *s, const char **out);
/* An integer literal (no fraction or exponent, at most 18 digits). */
int jscan_int(jscan *s, int64_t *out);
/* true or false. */
int jscan_bool(jscan *s, int *out);
/* Skips any value, checking it as strictly as the rest. */
int jscan_skip(jscan *s);

/* 1 when key[0..klen) is the NUL-terminated name. */
int jscan_key_is(const char *key, size_t klen, const char *name);
/* The same for a string literal, with its length known at compile time (a
 * member name is compared a few dozen times per event). */
#define JSCAN_KEY(key, klen, lit) \
    ((klen) == sizeof(lit) - 1 && memcmp((key), (lit), sizeof(lit) - 1) == 0)

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* SEAM_PLUGIN_JSON_SCAN_H */
