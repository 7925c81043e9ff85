/* errors.c — the anthropic plugin's error classification: an error answer
 * (its status, headers and body), or an `error` object inside a 200 stream,
 * -> a classified seam_error, keeping the rate-limit headers a caller needs
 * to pace itself. overloaded_error, api_error and HTTP 529 are overloaded and
 * retryable; rate_limit_error (429) is a rate limit; a prompt too long for
 * the model is a context overflow.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* ==== error classification ===================================================== */

/* A message that says the prompt does not fit the model's context. */
static int says_context_overflow(const char *msg)
{
    static const char *const needles[] = { "prompt is too long", "context limit",
                                           "context window", "context length",
                                           "too many total text bytes" };
    if (!msg)
        return 0;
    for (size_t i = 0; i < sizeof needles / sizeof needles[0]; i++)
        if (strcasestr(msg, needles[i]))
            return 1;
    return 0;
}

/* Fills kind, code and message from an Anthropic error object
 * {"type": "...", "message": "..."} (status 0: inside a stream). */
void anthropic_classify_error_object(json_object *eobj, int http_status, seam_error *err)
{
    const char *type = jstr(eobj, "type");
    const char *msg = jstr(eobj, "message");
    seam_error_kind kind;
    if (str_eq(type, "invalid_request_error"))
        kind = says_context_overflow(msg) ? SEAM_ERROR_CONTEXT_OVERFLOW : SEAM_ERROR_BAD_REQUEST;
    else if (str_eq(type, "authentication_error") || str_eq(type, "permission_error") ||
             str_eq(type, "billing_error"))
        kind = SEAM_ERROR_AUTH;
    else if (str_eq(type, "not_found_error"))
        kind = SEAM_ERROR_MODEL_NOT_FOUND;
    else if (str_eq(type, "request_too_large"))
        kind = SEAM_ERROR_BAD_REQUEST;
    else if (str_eq(type, "rate_limit_error"))
        kind = SEAM_ERROR_RATE_LIMIT;
    else if (str_eq(type, "overloaded_error") || str_eq(type, "api_error"))
        kind = SEAM_ERROR_OVERLOADED;
    else if (str_eq(type, "timeout_error"))
        kind = SEAM_ERROR_TIMEOUT;
    else if (http_status == 529)
        kind = SEAM_ERROR_OVERLOADED;
    else if (http_status == 400 && says_context_overflow(msg))
        kind = SEAM_ERROR_CONTEXT_OVERFLOW;
    else if (http_status > 0)
        kind = err->kind != SEAM_ERROR_NONE ? err->kind : SEAM_ERROR_UNKNOWN;
    else
        kind = SEAM_ERROR_UNKNOWN;
    err->kind = kind;
    err->retryable = seam_error_kind_retryable(kind);
    if (type)
        seam_strlcpy(err->code, type, sizeof err->code);
    if (msg && *msg)
        snprintf(err->message, sizeof err->message, "anthropic: %s", msg);
    else if (type)
        snprintf(err->message, sizeof err->message, "anthropic: %s", type);
}

/* Keeps the headers a caller needs to pace itself: retry-after and every
 * anthropic-ratelimit-* header, "name: value\n" each. The core may already
 * have kept some: a line already there is not repeated. */
static void keep_ratelimit_headers(const seam_http_headers *headers, seam_error *err)
{
    size_t used = strlen(err->ratelimit);
    for (size_t i = 0; headers && i < seam_http_headers_count(headers); i++) {
        const char *name, *value;
        char line[sizeof err->ratelimit];
        if (seam_http_headers_at(headers, i, &name, &value) != SEAM_OK || !name)
            continue;
        if (strncasecmp(name, "anthropic-ratelimit-", 20) && strcasecmp(name, "retry-after") &&
            strcasecmp(name, "retry-after-ms"))
            continue;
        int n = snprintf(line, sizeof line, "%s: %s\n", name, value ? value : "");
        if (n < 0 || (size_t)n >= sizeof line || strstr(err->ratelimit, line))
            continue;
        if ((size_t)n >= sizeof err->ratelimit - used)
            break; /* whole lines only */
        memcpy(err->ratelimit + used, line, (size_t)n + 1);
        used += (size_t)n;
    }
}

void anthropic_classify_error(void *instance, int http_status,
                                     const seam_http_headers *headers, const char *body,
                                     size_t len, seam_error *err)
{
    (void)instance;
    if (!err)
        return;
    if (err->kind == SEAM_ERROR_NONE)
        seam_error_from_http_status(err, http_status);
    if (http_status == 529) {
        err->kind = SEAM_ERROR_OVERLOADED;
        err->retryable = 1;
    }
    keep_ratelimit_headers(headers, err);
    json_object *root = body && len ? json_parse_strict(body, len) : NULL;
    json_object *eobj = member(root, "error", json_type_object);
    if (eobj) {
        anthropic_classify_error_object(eobj, http_status, err);
    } else if (body && len) {
        /* Not the API's JSON (a proxy's page): keep a printable excerpt. */
        char excerpt[160];
        size_t n = 0;
        for (size_t i = 0; i < len && n < sizeof excerpt - 1; i++)
            excerpt[n++] = isprint((unsigned char)body[i]) ? body[i] : ' ';
        excerpt[n] = '\0';
        snprintf(err->message, sizeof err->message, "anthropic: HTTP %d: %s", http_status,
                 excerpt);
    }
    json_object_put(root);
}
