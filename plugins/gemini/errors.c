/* errors.c — the gemini plugin's error classification: a google.rpc.Status
 * error body ({"error": {...}}, or [{"error": {...}}] from the non-SSE
 * stream endpoint) -> a seam_error kind by its status (RESOURCE_EXHAUSTED,
 * the 429, is a rate limit; UNAVAILABLE, INTERNAL and ABORTED overloaded; an
 * INVALID_ARGUMENT about the key is auth, one about the prompt's length a
 * context overflow), with RetryInfo's retryDelay kept as retry-after.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ======================================================================== */
/* errors                                                                    */
/* ======================================================================== */

/* INVALID_ARGUMENT is also how Gemini says the prompt is too long, e.g. "The
 * input token count (1200000) exceeds the maximum number of tokens allowed
 * (1048576)." */
static int is_context_overflow(const char *message)
{
    return contains_ci(message, "input token count") ||
           contains_ci(message, "exceeds the maximum number of tokens") ||
           contains_ci(message, "context length") || contains_ci(message, "context window") ||
           contains_ci(message, "too many tokens") || contains_ci(message, "prompt is too long");
}

/* A google.protobuf.Duration in JSON: "12s", "1.5s", "0.250s" (or an object with
 * seconds/nanos). -1 when unreadable. */
static int64_t parse_duration_ms(json_object *d)
{
    if (jis(d, json_type_string)) {
        const char *s = json_object_get_string(d);
        char *end;
        double secs = strtod(s, &end); /* "s" follows; the C locale's '.' is Google's */
        if (end == s || !(secs >= 0 && secs <= 1e9)) /* also NaN */
            return -1;
        return (int64_t)(secs * 1000.0 + 0.5);
    }
    if (jis(d, json_type_object)) {
        int64_t secs = 0, nanos = 0;
        int has = jint64(d, "seconds", &secs) | jint64(d, "nanos", &nanos);
        if (!has || secs < 0 || secs > 1000000000 || nanos < 0)
            return -1;
        return secs * 1000 + nanos / 1000000;
    }
    return -1;
}

/* The error object of a Gemini error body: {"error":{...}} or, from the
 * non-SSE stream endpoint, [{"error":{...}}]. */
static json_object *find_error_object(json_object *root)
{
    if (jis(root, json_type_array) && json_object_array_length(root) > 0)
        root = json_object_array_get_idx(root, 0);
    json_object *e = jget(root, "error");
    return jis(e, json_type_object) ? e : NULL;
}

/* Fills err from a google.rpc.Status. The HTTP status (and a default kind from
 * it) is already in err or is taken from error.code. */
void gemini_classify_status(json_object *e, seam_error *err)
{
    const char *status = jstr(e, "status");
    const char *message = jstr(e, "message");
    int64_t code = 0;
    if (err->http_status == 0 && jint64(e, "code", &code) && code >= 100 && code < 600)
        seam_error_from_http_status(err, (int)code);

    const char *reason = NULL;
    int64_t retry_ms = -1;
    json_object *details = jget(e, "details");
    for (size_t i = 0; jis(details, json_type_array) && i < json_object_array_length(details); i++) {
        json_object *d = json_object_array_get_idx(details, i);
        const char *type = jstr(d, "@type");
        if (!type)
            continue;
        if (strstr(type, "google.rpc.RetryInfo"))
            retry_ms = parse_duration_ms(jget(d, "retryDelay"));
        else if (strstr(type, "google.rpc.ErrorInfo") && jstr(d, "reason"))
            reason = jstr(d, "reason");
    }

    seam_error_kind kind = err->kind != SEAM_ERROR_NONE ? err->kind : SEAM_ERROR_UNKNOWN;
    if (status) {
        if (strcmp(status, "INVALID_ARGUMENT") == 0 || strcmp(status, "FAILED_PRECONDITION") == 0 ||
            strcmp(status, "OUT_OF_RANGE") == 0 || strcmp(status, "UNIMPLEMENTED") == 0)
            kind = SEAM_ERROR_BAD_REQUEST;
        else if (strcmp(status, "UNAUTHENTICATED") == 0 || strcmp(status, "PERMISSION_DENIED") == 0)
            kind = SEAM_ERROR_AUTH;
        else if (strcmp(status, "NOT_FOUND") == 0)
            kind = SEAM_ERROR_MODEL_NOT_FOUND;
        else if (strcmp(status, "RESOURCE_EXHAUSTED") == 0)
            kind = SEAM_ERROR_RATE_LIMIT;
        else if (strcmp(status, "INTERNAL") == 0 || strcmp(status, "UNAVAILABLE") == 0 ||
                 strcmp(status, "ABORTED") == 0)
            kind = SEAM_ERROR_OVERLOADED;
        else if (strcmp(status, "DEADLINE_EXCEEDED") == 0)
            kind = SEAM_ERROR_TIMEOUT;
    }
    if (kind == SEAM_ERROR_BAD_REQUEST) {
        /* A wrong key is a 400 INVALID_ARGUMENT with reason API_KEY_INVALID. */
        if ((reason && strstr(reason, "API_KEY")) || contains_ci(message, "API key not valid") ||
            contains_ci(message, "API key expired"))
            kind = SEAM_ERROR_AUTH;
        else if (is_context_overflow(message))
            kind = SEAM_ERROR_CONTEXT_OVERFLOW;
    }
    err->kind = kind;
    err->retryable = seam_error_kind_retryable(kind);
    if (retry_ms >= 0)
        err->retry_after_ms = retry_ms;
    if (status)
        seam_strlcpy(err->code, status, sizeof err->code);
    else if (reason)
        seam_strlcpy(err->code, reason, sizeof err->code);
    if (message && *message) {
        seam_strlcpy(err->message, message, sizeof err->message);
        size_t n = strlen(err->message);
        while (n > 0 && (err->message[n - 1] == '\n' || err->message[n - 1] == ' '))
            err->message[--n] = '\0';
    }
}

void gemini_classify_error(void *instance, int http_status, const seam_http_headers *headers,
                                  const char *body, size_t len, seam_error *err)
{
    (void)instance;
    (void)headers;
    if (!err)
        return;
    if (err->http_status == 0 && http_status > 0)
        seam_error_from_http_status(err, http_status);
    json_object *root = parse_json_len(body, len);
    json_object *e = find_error_object(root);
    if (e)
        gemini_classify_status(e, err);
    json_object_put(root);
}

