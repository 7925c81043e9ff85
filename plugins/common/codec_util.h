/* codec_util.h — the small helpers every provider plugin's codec uses: a
 * growable byte buffer, a strdup wrapper and json-c accessors. Plugin-private:
 * codec_util.c is compiled into each plugin (and into the fuzz harnesses and
 * tests that build a plugin from its sources); it is neither part of libseam
 * nor of the plugin ABI, and its symbols are hidden. */
#ifndef SEAM_PLUGIN_CODEC_UTIL_H
#define SEAM_PLUGIN_CODEC_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

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
/* Standard padded base64 (RFC 4648 §4) of len bytes, malloc'ed and
 * NUL-terminated; NULL without memory. */
char *codec_base64(const unsigned char *data, size_t len);
/* Case-insensitive substring test; 0 when either is NULL. */
int contains_ci(const char *hay, const char *needle);

/* ---- errors ----------------------------------------------------------------- */

struct seam_error;
/* The one rule of every codec for a stream that breaks its wire's protocol (an
 * event that is not JSON, an end marker before the finish reason): kind
 * transport, retryable, code "protocol_error", message from fmt. Retryable
 * because the core fails over only before the first content; after it the
 * error is surfaced with the partial answer kept. Returns SEAM_ERR_PROVIDER. */
int codec_protocol_error(struct seam_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- JSON ------------------------------------------------------------------- */

/* Exactly one JSON value from text[0..len): JSON whitespace around it allowed,
 * nothing else, and a document that ends inside a value (even a bare number,
 * which a tokener cannot know is finished) does not parse. NULL when it does
 * not parse.
 * json_parse_with: with tok (reset first, so a decoder can keep one for its
 * whole stream: creating one costs as much as parsing a short event); its
 * nesting limit is the one tok was created with.
 * json_parse_depth: a tokener of its own with nesting limit depth.
 * json_parse_strict: the same at json-c's default depth (32). */
json_object *json_parse_with(json_tokener *tok, const char *text, size_t len);
json_object *json_parse_depth(const char *text, size_t len, int depth);
json_object *json_parse_strict(const char *text, size_t len);

/* json-c asserts (aborts) when the container it adds to is NULL, which a
 * failed json_object_new_object/array leaves behind. Every codec builds its
 * bodies through these forms instead: with a NULL container, errno is ENOMEM
 * and -1 returned (val stays the caller's, as with json-c's own); the core fails an encode that
 * leaves errno ENOMEM (transport.c), so nothing incomplete is sent. */
int codec_object_add(json_object *obj, const char *key, json_object *val);
int codec_array_add(json_object *arr, json_object *val);
#define json_object_object_add(obj, key, val) codec_object_add((obj), (key), (val))
#define json_object_array_add(arr, val) codec_array_add((arr), (val))

/* Borrowed member key of obj when obj is an object, else NULL (also NULL for
 * a JSON null member). */
json_object *jget(json_object *obj, const char *key);
/* obj[key] when it is a string, else NULL. */
const char *jstr(json_object *obj, const char *key);
/* 1 when o is non-NULL and of type t. */
int jis(json_object *o, json_type t);
/* 1 and *out set when obj[key] is an integer or a double (truncated; NaN is 0
 * and a double outside int64's range is clamped to it, since casting it would
 * be undefined). */
int jint(json_object *obj, const char *key, int64_t *out);

/* A double that serializes the way a person wrote it ("0.7", not
 * 0.69999...), whatever the process locale's decimal separator. */
json_object *json_double(double d);
/* obj as plain JSON text with unescaped slashes; borrowed from obj. NULL when
 * json-c could not print it whole (out of memory). */
const char *json_text(json_object *obj);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* SEAM_PLUGIN_CODEC_UTIL_H */
