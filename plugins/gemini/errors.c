/* errors.c — the gemini plugin's error classification: a google.rpc.Status
 * error body ({"error": {...}}, or [{"error": {...}}] from the non-SSE
 * stream endpoint) -> a seam_error kind by its status (RESOURCE_EXHAUSTED,
 * the 429, is a rate limit; UNAVAILABLE, INTERNAL and ABORTED overloaded; an
 * INVALID_ARGUMENT about the key is auth, one about the prompt's length a
 * context overflow), with RetryInfo's retryDelay kept as retry-after. The
 * rules are the SDK's (seam_error_classify_google, <seam/codec.h>).
 */
#include "config.h"

#include "internal.h"

/* ======================================================================== */
/* errors                                                                    */
/* ======================================================================== */

/* The error object of a Gemini error body: {"error":{...}} or, from the
 * non-SSE stream endpoint, [{"error":{...}}]. */
static json_object *find_error_object(json_object *root)
{
    if (jis(root, json_type_array) && json_object_array_length(root) > 0)
        root = json_object_array_get_idx(root, 0);
    json_object *e = jget(root, "error");
    return jis(e, json_type_object) ? e : NULL;
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
        seam_error_classify_google(err, e);
    json_object_put(root);
}

