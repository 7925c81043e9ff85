/* errors.c — the anthropic plugin's error classification: an error answer
 * (its status, headers and body), or an `error` object inside a 200 stream,
 * -> a classified seam_error, keeping the rate-limit headers a caller needs
 * to pace itself. overloaded_error, api_error and HTTP 529 are overloaded and
 * retryable; rate_limit_error (429) is a rate limit; a prompt too long for
 * the model is a context overflow. The rules are the SDK's
 * (seam_error_classify_anthropic, <seam/codec.h>).
 */
#include "config.h"

#include <stdio.h>

#include "internal.h"

/* ==== error classification ===================================================== */

/* Fills kind, code and message from an Anthropic error object
 * {"type": "...", "message": "..."} (status 0: inside a stream). */
void anthropic_classify_error_object(json_object *eobj, int http_status, seam_error *err)
{
    const char *type = jstr(eobj, "type");
    const char *msg = jstr(eobj, "message");
    seam_error_classify_anthropic(err, http_status, type, msg);
    if (msg && *msg)
        snprintf(err->message, sizeof err->message, "anthropic: %s", msg);
    else if (type)
        snprintf(err->message, sizeof err->message, "anthropic: %s", type);
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
    /* retry-after and every anthropic-ratelimit-* header; the core may have
     * kept some: a line already there is not repeated. */
    seam_error_keep_headers(err, headers, "anthropic-ratelimit-");
    json_object *root = body && len ? json_parse_strict(body, len) : NULL;
    json_object *eobj = member(root, "error", json_type_object);
    if (eobj) {
        anthropic_classify_error_object(eobj, http_status, err);
    } else if (body && len) {
        /* Not the API's JSON (a proxy's page): keep a printable excerpt. */
        char prefix[64];
        snprintf(prefix, sizeof prefix, "anthropic: HTTP %d: ", http_status);
        seam_error_set_text(err, prefix, body, len, 159);
    }
    json_object_put(root);
}
