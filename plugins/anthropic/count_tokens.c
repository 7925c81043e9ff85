/* count_tokens.c — Anthropic's token count (seam_count_tokens): POST
 * {base}/messages/count_tokens with the Messages request encode.c builds,
 * less what the count does not take (max_tokens, stream, sampling, stop
 * sequences, metadata, service tier), so the count is of what a call would
 * send: system, messages, tools, tool_choice, thinking, output config. The
 * answer is {"input_tokens": N}. Reference: Anthropic's API reference, "Count
 * tokens in a Message", post /v1/messages/count_tokens
 * (platform.claude.com/docs/en/api/messages/count_tokens): body fields
 * messages, model, system, tools, tool_choice, thinking, output_config,
 * cache_control, context_management, mcp_servers; response MessageTokensCount
 * {input_tokens}. The headers (key, anthropic-version, anthropic-beta) are
 * those of a call. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

/* What the count endpoint takes of a Messages body; nothing else is sent. */
static const char *const count_members[] = {
    "model", "messages", "system", "tools", "tool_choice", "thinking", "output_config",
    "output_format", "cache_control", "context_management", "mcp_servers",
};

int anthropic_count_tokens_encode(void *instance, const seam_request *req,
                                  seam_http_request *out, seam_error *err)
{
    int rc = anthropic_encode(instance, req, 0, out, err);
    if (rc != SEAM_OK)
        return rc;
    size_t len = 0;
    const char *sent = seam_http_request_body(out, &len);
    const char *url = seam_http_request_url(out);
    json_object *full = sent ? json_parse_strict(sent, len) : NULL;
    json_object *body = json_object_new_object();
    int ok = full && body && url;
    for (size_t i = 0; ok && i < sizeof count_members / sizeof count_members[0]; i++) {
        json_object *v = jget(full, count_members[i]);
        if (v && json_object_object_add(body, count_members[i], json_object_get(v)) != 0)
            ok = 0;
    }
    char *count_url = NULL;
    if (ok) {
        size_t n = strlen(url) + sizeof "/count_tokens";
        count_url = malloc(n);
        if (count_url)
            snprintf(count_url, n, "%s/count_tokens", url);
    }
    const char *text = count_url ? json_text(body) : NULL;
    if (!text || seam_http_request_set_url(out, count_url) != SEAM_OK ||
        seam_http_request_set_body(out, text, strlen(text)) != SEAM_OK) {
        nomem(err);
        rc = SEAM_ERR_NOMEM;
    }
    free(count_url);
    json_object_put(body);
    json_object_put(full);
    return rc;
}

int anthropic_count_tokens_decode(void *instance, const seam_request *req, const char *body,
                                  size_t len, int64_t *input_tokens, seam_error *err)
{
    (void)instance;
    (void)req;
    json_object *root = json_parse_strict(body, len);
    int64_t n;
    int ok = jint(root, "input_tokens", &n);
    json_object_put(root);
    if (!ok) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "anthropic: a token count without input_tokens");
        seam_strlcpy(err->code, "bad_response", sizeof err->code);
        return SEAM_ERR_PROVIDER;
    }
    *input_tokens = n;
    return SEAM_OK;
}
