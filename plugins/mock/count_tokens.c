/* count_tokens.c — the mock's token count endpoint, so that the path of a
 * provider's own count (seam_count_tokens, `seam tokens`) runs offline.
 *
 *   encode   the generate body (mock.c) sent to mock://local/v1/count_tokens
 *   serve    {"input_tokens":W}: W the words in the messages' text parts,
 *            the same count the mock reports as a generation's input usage;
 *            the script's error_status answers with that HTTP error instead
 *   decode   W */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "../common/codec_util.h"
#include "mock_internal.h"

int mock_count_encode(void *instance, const seam_request *req, seam_http_request *out,
                      seam_error *err)
{
    int rc = mock_encode(instance, req, 0, out, err);
    if (rc == SEAM_OK)
        rc = seam_http_request_set_url(out, MOCK_COUNT_URL);
    return rc;
}

int mock_count_serve(void *instance, const seam_http_request *hr, seam_served *out,
                     seam_error *err)
{
    (void)instance;
    size_t len = 0;
    const char *body = seam_http_request_body(hr, &len);
    json_object *request = body ? json_parse_strict(body, len) : NULL;
    if (!request || !json_object_is_type(request, json_type_object)) {
        json_object_put(request);
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "mock: the request body is not JSON"),
               SEAM_ERR_INVALID;
    }
    int rc = mock_serve_script_error(request, out, err);
    if (rc == 0) {
        char answer[64];
        snprintf(answer, sizeof answer, "{\"input_tokens\":%lld}",
                 (long long)mock_request_words(jget(request, "messages")));
        rc = seam_served_set_status(out, 200);
        if (rc == SEAM_OK)
            rc = seam_served_add_header(out, "Content-Type", "application/json");
        if (rc == SEAM_OK)
            rc = seam_served_add_piece(out, answer, strlen(answer), 0);
        if (rc != SEAM_OK)
            seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory");
    } else if (rc > 0) {
        rc = SEAM_OK;
    }
    json_object_put(request);
    return rc;
}

int mock_count_decode(void *instance, const seam_request *req, const char *body, size_t len,
                      int64_t *input_tokens, seam_error *err)
{
    (void)instance;
    (void)req;
    json_object *root = json_parse_strict(body, len);
    int64_t n;
    int ok = jint(root, "input_tokens", &n);
    json_object_put(root);
    if (!ok) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: a count without input_tokens");
        seam_strlcpy(err->code, "bad_response", sizeof err->code);
        return SEAM_ERR_PROVIDER;
    }
    *input_tokens = n;
    return SEAM_OK;
}
