/* count_tokens.c — OpenAI's token count (seam_count_tokens): POST
 * {base}/responses/input_tokens with the Responses API body
 * responses_encode.c builds, less what the count does not take, answered
 * {"object":"response.input_tokens","input_tokens":N}. Reference: OpenAI's
 * API reference, "Get input token counts", POST /responses/input_tokens
 * (developers.openai.com/api/reference/resources/responses/subresources/input_tokens/methods/count):
 * body fields conversation, input, instructions, model, parallel_tool_calls,
 * previous_response_id, reasoning, text, tool_choice, tools, truncation. Only
 * the openai profile has the endpoint; for the compatible servers the count
 * is left to seam's estimate. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const count_members[] = {
    "model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls",
    "reasoning", "text", "truncation", "conversation", "previous_response_id",
};

int oa_count_tokens_encode(void *instance, const seam_request *req, seam_http_request *out,
                           seam_error *err)
{
    const oa_instance *in = instance;
    if (!in->profile || strcmp(in->profile->id, "openai") != 0)
        return oa_bad_request(err, "the %s profile's server has no token count endpoint",
                              in->profile ? in->profile->id : "?");
    int rc = oa_resp_encode(in, req, 0, out, err);
    if (rc != SEAM_OK)
        return rc;
    size_t len = 0;
    const char *sent = seam_http_request_body(out, &len);
    json_object *full = sent ? json_parse_strict(sent, len) : NULL;
    json_object *body = json_object_new_object();
    int ok = full && body;
    for (size_t i = 0; ok && i < sizeof count_members / sizeof count_members[0]; i++) {
        json_object *v = jget(full, count_members[i]);
        if (v && json_object_object_add(body, count_members[i], json_object_get(v)) != 0)
            ok = 0;
    }
    strbuf url = {0};
    sb_puts(&url, in->base_url);
    sb_puts(&url, "/responses/input_tokens");
    const char *text = ok && !url.failed ? json_text(body) : NULL;
    if (!text || seam_http_request_set_url(out, url.data) != SEAM_OK ||
        seam_http_request_set_body(out, text, strlen(text)) != SEAM_OK)
        rc = oa_nomem(err);
    sb_free(&url);
    json_object_put(body);
    json_object_put(full);
    return rc;
}

int oa_count_tokens_decode(void *instance, const seam_request *req, const char *body, size_t len,
                           int64_t *input_tokens, seam_error *err)
{
    (void)instance;
    (void)req;
    json_object *root = json_parse_strict(body, len);
    int64_t n;
    int ok = jint(root, "input_tokens", &n);
    json_object_put(root);
    if (!ok) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: a token count without input_tokens");
        seam_strlcpy(err->code, "bad_response", sizeof err->code);
        return SEAM_ERR_PROVIDER;
    }
    *input_tokens = n;
    return SEAM_OK;
}
