/* seam/codec.h — the codec helper set of the plugin SDK (plugin ABI 1.3):
 * what every provider codec needs and would otherwise write again, the same
 * helpers the in-tree plugins use. Implemented in libseam; a plugin that calls
 * them links libseam (pkg-config seam-plugin) and needs a libseam of plugin
 * ABI 1.3 or later: an older one does not load it (its dlopen names the
 * missing seam_ symbol). A plugin that calls none of them loads anywhere
 * in ABI 1.x as before.
 *
 *   JSON          strict parsing, NULL-safe accessors and building, doubles
 *                 written as a person wrote them, plain JSON text
 *   streams       the "[DONE]" sentinel, finish reasons of the common wires
 *   usage         counts as a wire reports them -> seam_usage, input net of cache
 *   tool calls    streamed tool-call fragments assembled by index (or id)
 *   errors        the common provider error shapes (OpenAI-style, Anthropic,
 *                 Google's google.rpc.Status) -> seam error kinds, retry-after,
 *                 rate-limit headers; provider text copied into a message
 *                 truncated on a character boundary, with key-like tokens
 *                 masked
 *
 * JSON is json-c's: this header includes <json-c/json.h> and its JSON
 * functions take and return json_object. That is a deliberate choice (see
 * doc/plugin-guide.md): libseam already parses with json-c, the in-tree
 * codecs are written with it, and a codec holding the same objects as the
 * helpers costs no conversion. <seam/plugin.h> alone stays free of json-c.
 *
 * Ownership: every json_object returned is a new reference the caller puts,
 * unless said "borrowed". Every function accepts NULL where it says so and
 * never aborts: an out-of-memory condition is a return value.
 */
#ifndef SEAM_CODEC_H
#define SEAM_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include <seam/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- JSON ------------------------------------------------------------------ */

/* Exactly one JSON value from text[0..len): JSON whitespace around it, nothing
 * else; a document that ends inside a value (even a bare number) does not
 * parse, and neither does one json-c would build incompletely for want of
 * memory (errno is then ENOMEM). depth: the nesting limit, 0 for json-c's
 * default (32). Returns a new object, or NULL. */
SEAM_EXPORT json_object *seam_json_read(const char *text, size_t len, int depth);
/* The same with the caller's tokener (reset first; its own nesting limit), so
 * that a decoder can keep one for a whole stream. */
SEAM_EXPORT json_object *seam_json_read_with(json_tokener *tok, const char *text, size_t len);
/* obj[key], borrowed; NULL when obj is not an object, has no such member, or
 * the member is JSON null. */
SEAM_EXPORT json_object *seam_json_get(json_object *obj, const char *key);
/* obj[key] when it is a string (borrowed from obj), else NULL. */
SEAM_EXPORT const char *seam_json_string(json_object *obj, const char *key);
/* 1 and *out set when obj[key] is a number: an integer, or a double truncated
 * toward zero (NaN reads 0; beyond int64's range, clamped); else 0. */
SEAM_EXPORT int seam_json_int(json_object *obj, const char *key, int64_t *out);
/* json_object_object_add and json_object_array_add that do not abort on a
 * NULL (failed) container: -1 with errno ENOMEM, val left to the caller. The
 * core fails an encode that leaves errno ENOMEM, so nothing incomplete is
 * sent. On success the container owns val. */
SEAM_EXPORT int seam_json_object_add(json_object *obj, const char *key, json_object *val);
SEAM_EXPORT int seam_json_array_add(json_object *arr, json_object *val);
/* A double that prints as a person wrote it ("0.7", not 0.69999...),
 * whatever the process locale's decimal separator. New object, or NULL. */
SEAM_EXPORT json_object *seam_json_double(double d);
/* obj as plain JSON text, slashes unescaped; borrowed from obj (valid until
 * obj changes or is put). NULL when it could not be printed whole (errno
 * ENOMEM). */
SEAM_EXPORT const char *seam_json_text(json_object *obj);

/* ---- streams ------------------------------------------------------------------ */

/* 1 when an SSE event's data is the end sentinel "[DONE]" of OpenAI-style
 * streams (whitespace around it allowed), else 0. NULL frame: 0. */
SEAM_EXPORT int seam_sse_is_done(const seam_frame *frame);
/* A finish reason as the common wires write it -> a seam stop reason:
 * "stop", "end_turn", "stop_sequence", "STOP" ... -> STOP; "length",
 * "max_tokens", "MAX_TOKENS" ... -> LENGTH; "tool_calls", "function_call",
 * "tool_use" -> TOOL_USE; "content_filter", "refusal", "SAFETY" ... ->
 * CONTENT_FILTER; "error", "MALFORMED_FUNCTION_CALL" ... -> ERROR; any other
 * (a reason added later) STOP; NULL -> NONE (not known yet). */
SEAM_EXPORT seam_stop_reason seam_stop_reason_from_wire(const char *reason);

/* ---- usage --------------------------------------------------------------------- */

/* The largest token count seam_usage_from_counts keeps (bigger ones are
 * clamped, so that the sums and differences stay defined). */
#define SEAM_USAGE_COUNT_MAX ((int64_t)1000000000000)
/* Usage from counts as a wire reports them, each < 0 when the wire did not
 * give it: input (the prompt), cache_read, cache_write, output (reasoning
 * included) and reasoning. input_includes_cache 1 (OpenAI, Gemini: the prompt
 * count includes cached tokens) makes input net of cache_read and
 * cache_write; 0 (Anthropic) takes input as net already. Each count is
 * clamped to [0, SEAM_USAGE_COUNT_MAX]; u is replaced whole, with a present
 * bit for each count given (cost is left absent). */
SEAM_EXPORT void seam_usage_from_counts(seam_usage *u, int64_t input, int64_t cache_read,
                                        int64_t cache_write, int64_t output, int64_t reasoning,
                                        int input_includes_cache);

/* ---- tool calls ------------------------------------------------------------------ */

/* Streamed tool calls assembled into tool_call_start / _delta / _end chunks,
 * one decoder's worth (not shared between threads). Opaque. */
typedef struct seam_toolcalls seam_toolcalls;
/* Called before each tool_call_start the assembler emits (a codec closes an
 * open reasoning block there); a non-zero return is returned by the function
 * that was emitting. */
typedef int (*seam_toolcalls_hook)(void *ud, seam_emitter *em);

/* A new, empty assembler, or NULL when out of memory. Free with
 * seam_toolcalls_free (NULL is a no-op). */
SEAM_EXPORT seam_toolcalls *seam_toolcalls_new(void);
SEAM_EXPORT void seam_toolcalls_free(seam_toolcalls *tc);
/* Sets the hook run before each start (NULL: none). */
SEAM_EXPORT void seam_toolcalls_set_hook(seam_toolcalls *tc, seam_toolcalls_hook fn, void *ud);
/* One fragment of a tool call: index (< 0 when the wire gives none), and
 * whichever of id, name and args text came (NULL or "" when absent). With an
 * index, the fragment continues the open call of that index, unless it brings
 * a different id or name (a server reusing index 0 for parallel calls): that
 * starts a new call. Without an index, it continues the open call of its id;
 * one with a name but no known id starts a new call; a bare fragment
 * continues the latest call. A call is started (tool_call_start, then the
 * arguments held so far as one delta) once its name is known; a call without
 * an id gets "call_seam_N". Later argument text is emitted as deltas as it
 * comes. Strings are copied. Returns SEAM_OK, SEAM_ERR_NOMEM, or the
 * emitter's (or hook's) non-zero value, to be returned from decode. */
SEAM_EXPORT int seam_toolcalls_add(seam_toolcalls *tc, seam_emitter *em, int index,
                                   const char *id, const char *name, const char *args);
/* Ends every open call in the order they began: a call never started is
 * started first; its tool_call_end carries the whole arguments, "" read as
 * {}, a JSON object re-serialized, anything else passed on as it is (for the
 * core's accumulator to reject). Calls that ended stay counted. Returns as
 * seam_toolcalls_add. */
SEAM_EXPORT int seam_toolcalls_finish(seam_toolcalls *tc, seam_emitter *em);
/* Calls seen so far (ended ones included). */
SEAM_EXPORT size_t seam_toolcalls_count(const seam_toolcalls *tc);

/* ---- errors ------------------------------------------------------------------------ */

/* A stream that breaks its wire's protocol (an event that is not JSON, an end
 * marker before the finish reason): err cleared, then kind transport,
 * retryable, code "protocol_error", message from fmt. Retryable because the
 * core fails over only before the first content. err may be NULL. Returns
 * SEAM_ERR_PROVIDER. */
SEAM_EXPORT int seam_error_protocol(seam_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Kind, retryable and code from an OpenAI-style error's code, type and
 * message (any may be NULL) and the HTTP status (0 inside a 2xx stream):
 * quota and billing codes or 402 a fatal rate_limit; context-length codes or
 * texts context_overflow; key and permission codes or 401/403 auth; an
 * unknown model or 404 model_not_found; content-policy codes content_filter;
 * rate-limit codes or 429 rate_limit; 408/504 and timeout codes timeout;
 * server codes or 5xx overloaded; other 4xx bad_request; else unknown. The
 * code kept is code, else type. The message is not touched. */
SEAM_EXPORT void seam_error_classify_fields(seam_error *err, int http_status, const char *code,
                                            const char *type, const char *message);
/* Kind, retryable and code from an Anthropic error object's type and message
 * ("invalid_request_error", "rate_limit_error", "overloaded_error", ...;
 * 529 is overloaded; a prompt too long is context_overflow). An unknown type
 * keeps the kind err has (from the status) when http_status > 0. The code
 * kept is type. The message is not touched. */
SEAM_EXPORT void seam_error_classify_anthropic(seam_error *err, int http_status,
                                               const char *type, const char *message);
/* Kind, retryable, code, message and retry_after_ms from a google.rpc.Status
 * object (Gemini's {"error": {...}}, borrowed): its status name
 * (RESOURCE_EXHAUSTED rate_limit, UNAVAILABLE overloaded, ...), the reason of
 * its ErrorInfo (an invalid key is auth) and the retryDelay of its RetryInfo.
 * When err has no http_status yet, the status's code sets the default kind. */
SEAM_EXPORT void seam_error_classify_google(seam_error *err, json_object *status);
/* A whole error answer of any of the common shapes -> err, for a
 * classify_error that has nothing provider-specific to add:
 *   {"error": {"message", "type", "code"}}, {"error": "text"},
 *   {"object": "error", "message", ...}, {"detail": ...}, [{"error": ...}]
 *     (OpenAI and the OpenAI-compatible servers), {"type": "error", "error":
 *   {"type", "message"}} (Anthropic), {"error": {"code", "status", "message",
 *   "details"}} (Google); a body that is not JSON is kept as text. The kind
 * comes from the shape's rules (see the three functions above), else from the
 * status; the message is set with seam_error_set_text (prefix may be NULL);
 * retry_after_ms from Retry-After, retry-after-ms (when the core has not set
 * it) or RetryInfo; the rate-limit headers are kept (seam_error_keep_headers
 * with "x-ratelimit-" and "anthropic-ratelimit-"). headers and body may be
 * NULL. */
SEAM_EXPORT void seam_error_classify_body(seam_error *err, int http_status,
                                          const seam_http_headers *headers, const char *body,
                                          size_t len, const char *prefix);
/* Appends to err->ratelimit, "name: value\n" each, every header whose name
 * begins with prefix (case-insensitive), and Retry-After and retry-after-ms; a
 * line already there is not repeated; whole lines only. */
SEAM_EXPORT void seam_error_keep_headers(seam_error *err, const seam_http_headers *headers,
                                         const char *prefix);
/* A duration as rate-limit headers write it -> milliseconds: "6m0s", "1.5s",
 * "20ms", "1h2m", "12" (seconds); -1 when unreadable or negative. */
SEAM_EXPORT int64_t seam_parse_duration_ms(const char *s);

/* ---- provider text in a message ------------------------------------------------ */

/* Sets err->message to prefix (may be NULL) followed by text[0..len), made
 * safe to show: control characters become spaces, tokens that look like API
 * keys ("sk-...", "sk_...", "gsk_...", "xai-...") become "<redacted>", and
 * the text is cut to fit the message (or to max bytes when max > 0) on a
 * UTF-8 character boundary, never inside one. A NULL text sets the prefix
 * alone. */
SEAM_EXPORT void seam_error_set_text(seam_error *err, const char *prefix, const char *text,
                                     size_t len, size_t max);
/* Masks, in place, every token of s that looks like an API key, as
 * seam_error_set_text does. s may be NULL. */
SEAM_EXPORT void seam_scrub_keys(char *s);

/* ---- bytes (ABI 1.7) ---- */

/* Standard padded base64 (RFC 4648 section 4) of the len bytes at data, for
 * a request that carries bytes inline (audio to transcribe, an image). The
 * caller owns the NUL-terminated result and frees it with free(); NULL when
 * out of memory or len is too large to encode. */
SEAM_EXPORT char *seam_base64_encode(const unsigned char *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* SEAM_CODEC_H */
