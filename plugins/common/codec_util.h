/* codec_util.h — what the in-tree codecs share that is not part of the SDK: a
 * growable byte buffer, a strdup wrapper, a case-insensitive search, and the
 * codecs' short names for the SDK's codec helpers (<seam/codec.h>). Private:
 * codec_util.c is compiled into each plugin (and into the fuzz harnesses and
 * tests that build a plugin from its sources); it is neither part of libseam
 * nor of the plugin ABI, and its symbols are hidden. */
#ifndef SEAM_PLUGIN_CODEC_UTIL_H
#define SEAM_PLUGIN_CODEC_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include <seam/codec.h>

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* ---- strings ---------------------------------------------------------------- */

/* A growable NUL-terminated byte buffer; zero-initialized is empty. A failed
 * allocation is sticky: that append and every later one return SEAM_ERR_NOMEM
 * and leave the text as it was, so a caller may append several pieces and
 * check `failed` once. */
typedef struct strbuf {
    char *data;
    size_t len;
    size_t cap;
    int failed;
} strbuf;

/* SEAM_OK or SEAM_ERR_NOMEM. */
int sb_append(strbuf *b, const char *s, size_t n);
/* s NULL appends nothing (but still makes data non-NULL). */
int sb_puts(strbuf *b, const char *s);
/* Frees the text and makes b empty (and not failed) again. */
void sb_free(strbuf *b);

/* strdup that passes NULL through. */
char *xstrdup(const char *s);
/* Case-insensitive substring test; 0 when either is NULL. */
int contains_ci(const char *hay, const char *needle);

/* ---- the SDK's codec helpers under the codecs' short names ------------------ */

/* The JSON helpers, the protocol-error rule and the rest live in libseam's
 * public codec helper set, <seam/codec.h> (plugin ABI 1.3), which third-party
 * codecs use too. The in-tree codecs were written with these short names;
 * they stay as plain aliases so that a codec's source reads as before. */
#define codec_protocol_error seam_error_protocol
#define json_parse_with seam_json_read_with
#define json_parse_depth seam_json_read
#define json_parse_strict(text, len) seam_json_read((text), (len), 0)
#define jget seam_json_get
#define jstr seam_json_string
#define jint seam_json_int
#define json_double seam_json_double
#define json_text seam_json_text
/* json-c asserts (aborts) when the container it adds to is NULL, which a
 * failed json_object_new_object/array leaves behind: every codec builds its
 * bodies through the SDK's NULL-safe forms instead (errno ENOMEM, and the
 * core fails the encode). */
#define json_object_object_add(obj, key, val) seam_json_object_add((obj), (key), (val))
#define json_object_array_add(arr, val) seam_json_array_add((arr), (val))

/* 1 when o is non-NULL and of type t. */
static inline int jis(json_object *o, json_type t)
{
    return o && json_object_is_type(o, t);
}

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* SEAM_PLUGIN_CODEC_UTIL_H */
