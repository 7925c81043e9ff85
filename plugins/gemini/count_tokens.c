/* count_tokens.c — the Gemini API's token count (seam_count_tokens):
 * POST models/{model}:countTokens with the whole generate request as
 * generateContentRequest, so that the system instruction, the tools and the
 * contents are counted as generateContent would bill them; the answer is
 * {"totalTokens": N, ...}. Reference: ai.google.dev/api/tokens (models.countTokens:
 * contents or generateContentRequest, never both; generateContentRequest names
 * its model as "models/{model}"). The body is encode.c's, so the count is of
 * exactly what a call would send. */
#include "config.h"

#include <stdio.h>

#include "internal.h"

/* The members of a GenerateContentRequest; nothing else is sent. */
static const char *const request_members[] = {
    "contents", "systemInstruction", "tools", "toolConfig", "safetySettings",
    "generationConfig", "cachedContent",
};

int gemini_count_tokens_encode(void *instance, const seam_request *req, seam_http_request *out,
                               seam_error *err)
{
    const gemini_instance *g = instance;
    /* The whole request, quietly: the generation warns about its options. */
    int rc = gemini_encode_ex(instance, req, 0, 1, 1, out, err);
    if (rc != SEAM_OK)
        return rc;
    const char *model = seam_request_model(req);
    size_t len = 0;
    const char *sent = seam_http_request_body(out, &len);
    json_object *gen = sent ? parse_json_len(sent, len) : NULL;
    json_object *inner = json_object_new_object();
    json_object *body = json_object_new_object();
    char resource[512];
    snprintf(resource, sizeof resource, "%s%s",
             strncmp(model, "models/", 7) == 0 || strncmp(model, "tunedModels/", 12) == 0 ? ""
                                                                                         : "models/",
             model);
    int ok = gen && inner && body && jadd(inner, "model", json_object_new_string(resource));
    for (size_t i = 0; ok && i < sizeof request_members / sizeof request_members[0]; i++) {
        json_object *v = jget(gen, request_members[i]);
        if (v)
            ok = jadd(inner, request_members[i], json_object_get(v));
    }
    if (ok)
        ok = jadd(body, "generateContentRequest", inner);
    else
        json_object_put(inner);
    char *url = ok ? gemini_model_url(g, model, "countTokens") : NULL;
    const char *text = url ? json_object_to_json_string_length(body, JSON_OUT_FLAGS, &len) : NULL;
    if (!text || seam_http_request_set_url(out, url) != SEAM_OK ||
        seam_http_request_set_body(out, text, len) != SEAM_OK)
        rc = nomem(err);
    free(url);
    json_object_put(body);
    json_object_put(gen);
    return rc;
}

int gemini_count_tokens_decode(void *instance, const seam_request *req, const char *body,
                               size_t len, int64_t *input_tokens, seam_error *err)
{
    (void)instance;
    (void)req;
    json_object *root = parse_json_len(body, len);
    int64_t n;
    int ok = jint64(root, "totalTokens", &n);
    json_object_put(root);
    if (!ok) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "gemini: a token count without totalTokens");
        seam_strlcpy(err->code, "bad_response", sizeof err->code);
        return SEAM_ERR_PROVIDER;
    }
    *input_tokens = n;
    return SEAM_OK;
}
