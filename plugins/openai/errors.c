/* errors.c — the openai plugin's error classification (the vtable's
 * classify_error): an error answer of any OpenAI-compatible server (HTTP
 * status, error code/type/message in any of their shapes, rate-limit headers)
 * -> a classified seam_error (rate limit 429, auth 401/403, quota, context
 * overflow, model not found, content filter, timeout, overload), with API
 * keys masked in provider messages; the same for error events inside a 2xx
 * stream, and the protocol and out-of-memory errors of both decoders. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* ==== errors ================================================================== */

/* Masks anything that looks like an API key ("sk-...", "gsk_...", "xai-...")
 * in a provider message: some servers echo a partly masked key back. */
void oa_scrub_keys(char *s)
{
    static const char *const prefixes[] = {"sk-", "gsk_", "xai-", "sk_"};
    for (char *p = s; *p; p++) {
        if (p != s && (isalnum((unsigned char)p[-1]) || p[-1] == '-' || p[-1] == '_'))
            continue;
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
            size_t n = strlen(prefixes[i]);
            if (strncmp(p, prefixes[i], n) != 0)
                continue;
            char *end = p;
            while (*end && !isspace((unsigned char)*end) && *end != '"' && *end != '\'' &&
                   *end != ',' && !(*end == '.' && (end[1] == '\0' || isspace((unsigned char)end[1]))))
                end++;
            static const char mask[] = "<redacted>";
            size_t span = (size_t)(end - p);
            if (span < sizeof mask - 1)
                break; /* too short to be a key, and no room to rewrite in place */
            memcpy(p, mask, sizeof mask - 1);
            memmove(p + sizeof mask - 1, end, strlen(end) + 1);
            p += sizeof mask - 2;
            break;
        }
    }
}

static int is_context_overflow_text(const char *msg)
{
    return contains_ci(msg, "context length") || contains_ci(msg, "context_length") ||
           contains_ci(msg, "context window") || contains_ci(msg, "maximum context") ||
           contains_ci(msg, "reduce the length") || contains_ci(msg, "too many tokens") ||
           contains_ci(msg, "prompt is too long") || contains_ci(msg, "input is too long");
}

static void set_kind(seam_error *err, seam_error_kind kind)
{
    err->kind = kind;
    err->retryable = seam_error_kind_retryable(kind);
}

/* Classifies from an error object's code/type/message and the HTTP status. */
static void classify(int status, const char *code, const char *type, const char *msg, seam_error *err)
{
    const char *c = code ? code : "";
    const char *t = type ? type : "";
#define IS(x) (strcasecmp(c, x) == 0 || strcasecmp(t, x) == 0)
    if (IS("insufficient_quota") || IS("billing_hard_limit_reached") ||
        IS("credit_balance_exhausted") || IS("access_terminated") || status == 402 ||
        contains_ci(msg, "insufficient balance") || contains_ci(msg, "exceeded your current quota")) {
        /* Out of money: waiting does not help. A rate_limit kind that is fatal. */
        set_kind(err, SEAM_ERROR_RATE_LIMIT);
        err->retryable = 0;
        if (!code && !strcasecmp(t, "insufficient_quota"))
            code = t;
        if (!code || !*code)
            code = "insufficient_quota";
    } else if (IS("context_length_exceeded") || IS("context_window_exceeded") ||
               IS("string_above_max_length") ||
               ((status == 400 || status == 413 || status == 0 || status == 422) &&
                is_context_overflow_text(msg))) {
        set_kind(err, SEAM_ERROR_CONTEXT_OVERFLOW);
    } else if (IS("invalid_api_key") || IS("invalid_authentication") ||
               IS("authentication_error") || IS("permission_denied") || IS("permission_error") ||
               IS("unauthorized") || IS("invalid_organization") || status == 401 || status == 403) {
        set_kind(err, SEAM_ERROR_AUTH);
    } else if (IS("model_not_found") || status == 404 ||
               ((status == 400 || status == 0) && contains_ci(msg, "model") &&
                (contains_ci(msg, "does not exist") || contains_ci(msg, "not found")))) {
        set_kind(err, SEAM_ERROR_MODEL_NOT_FOUND);
    } else if (IS("content_filter") || IS("content_policy_violation") ||
               IS("moderation_blocked") || IS("invalid_prompt") ||
               IS("image_content_policy_violation") || contains_ci(msg, "content management policy") ||
               contains_ci(msg, "content policy")) {
        /* invalid_prompt: a Responses API failure for a prompt flagged under
         * the usage policies (response.failed error codes). */
        set_kind(err, SEAM_ERROR_CONTENT_FILTER);
    } else if (IS("rate_limit_exceeded") || IS("rate_limit_error") || IS("slow_down") ||
               IS("requests") || IS("tokens") || status == 429) {
        set_kind(err, SEAM_ERROR_RATE_LIMIT);
    } else if (status == 408 || status == 504 || IS("timeout") || IS("request_timeout") ||
               IS("vector_store_timeout")) {
        set_kind(err, SEAM_ERROR_TIMEOUT);
    } else if (IS("server_error") || IS("server_is_overloaded") || IS("overloaded_error") ||
               IS("service_unavailable") || IS("service_unavailable_error") ||
               IS("api_error") || IS("internal_error") || status >= 500) {
        set_kind(err, SEAM_ERROR_OVERLOADED);
    } else if (status >= 400) {
        set_kind(err, SEAM_ERROR_BAD_REQUEST);
    } else if (IS("invalid_request_error") || IS("invalid_request")) {
        set_kind(err, SEAM_ERROR_BAD_REQUEST);
    } else {
        set_kind(err, SEAM_ERROR_UNKNOWN);
    }
#undef IS
    if (code && *code)
        seam_strlcpy(err->code, code, sizeof err->code);
    else if (type && *type)
        seam_strlcpy(err->code, type, sizeof err->code);
}

/* Pulls message/type/code (code as text, and as a number when numeric) out of
 * the many error shapes OpenAI-compatible servers answer with:
 *   {"error":{"message","type","code","param"}}  OpenAI, DeepSeek, Groq, xAI, OpenRouter
 *   {"error":"text"}                               Ollama, proxies
 *   {"object":"error","message":...,"type","code"} Mistral, vLLM
 *   {"detail":...}                                 FastAPI-based servers
 *   [ {"error":{...}} ]                            some gateways */
typedef struct error_fields {
    char message[400];
    char code[64];
    char type[64];
    int numeric_code;
} error_fields;

static void copy_json_field(char *dst, size_t size, json_object *v)
{
    if (!v)
        return;
    if (json_object_is_type(v, json_type_string))
        seam_strlcpy(dst, json_object_get_string(v), size);
    else if (json_object_is_type(v, json_type_int))
        snprintf(dst, size, "%" PRId64, json_object_get_int64(v));
    else if (!json_object_is_type(v, json_type_null))
        seam_strlcpy(dst, json_text(v), size);
}

static void read_error_fields(json_object *root, error_fields *f)
{
    memset(f, 0, sizeof *f);
    json_object *e = root;
    if (json_object_is_type(e, json_type_array) && json_object_array_length(e) > 0)
        e = json_object_array_get_idx(e, 0);
    json_object *inner = jget(e, "error");
    if (inner)
        e = inner;
    if (json_object_is_type(e, json_type_string)) {
        seam_strlcpy(f->message, json_object_get_string(e), sizeof f->message);
        return;
    }
    json_object *msg = jget(e, "message");
    if (!msg)
        msg = jget(e, "detail");
    if (!msg)
        msg = jget(root, "detail");
    copy_json_field(f->message, sizeof f->message, msg);
    json_object *code = jget(e, "code");
    if (json_object_is_type(code, json_type_int))
        f->numeric_code = (int)json_object_get_int64(code);
    else
        copy_json_field(f->code, sizeof f->code, code);
    copy_json_field(f->type, sizeof f->type, jget(e, "type"));
    if (!f->message[0] && jget(root, "message"))
        copy_json_field(f->message, sizeof f->message, jget(root, "message"));
}

static void fill_error(const oa_instance *in, int status, const error_fields *f, seam_error *err)
{
    int effective = status;
    if ((status == 0 || status == 200) && f->numeric_code >= 400 && f->numeric_code < 600)
        effective = f->numeric_code; /* an HTTP status carried inside a 200 stream */
    char code_buf[64] = "";
    if (f->code[0])
        seam_strlcpy(code_buf, f->code, sizeof code_buf);
    classify(effective == 200 ? 0 : effective, code_buf[0] ? code_buf : NULL,
             f->type[0] ? f->type : NULL, f->message, err);
    char msg[sizeof f->message];
    seam_strlcpy(msg, f->message[0] ? f->message : "", sizeof msg);
    oa_scrub_keys(msg);
    if (msg[0])
        snprintf(err->message, sizeof err->message, "%s", msg);
    else if (effective)
        snprintf(err->message, sizeof err->message, "HTTP %d", effective);
    else
        snprintf(err->message, sizeof err->message, "the provider reported an error");
    if (!err->provider[0])
        seam_strlcpy(err->provider, in ? in->name : "openai", sizeof err->provider);
}

/* "6m0s", "1.5s", "20ms", "1h2m" (OpenAI's x-ratelimit-reset-*) -> ms; -1 if not. */
int64_t oa_parse_duration_ms(const char *s)
{
    if (!s || !*s)
        return -1;
    double total = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno)
            return -1;
        p = end;
        if (strncmp(p, "ms", 2) == 0) {
            total += v;
            p += 2;
        } else if (*p == 'h') {
            total += v * 3600000.0;
            p++;
        } else if (*p == 'm') {
            total += v * 60000.0;
            p++;
        } else if (*p == 's' || *p == '\0') {
            total += v * 1000.0;
            if (*p)
                p++;
        } else {
            return -1;
        }
    }
    return total < 0 ? -1 : (int64_t)(total + 0.5);
}

static void keep_ratelimit_headers(const seam_http_headers *headers, seam_error *err)
{
    if (!headers)
        return;
    /* The core may have kept them already: do not list them twice. */
    size_t used = strlen(err->ratelimit);
    int already_kept = used > 0;
    for (size_t i = 0; !already_kept && i < seam_http_headers_count(headers); i++) {
        const char *name = NULL, *value = NULL;
        if (seam_http_headers_at(headers, i, &name, &value) != SEAM_OK || !name || !value)
            continue;
        if (strncasecmp(name, "x-ratelimit-", 12) != 0 && strcasecmp(name, "retry-after") != 0 &&
            strcasecmp(name, "retry-after-ms") != 0)
            continue;
        int n = snprintf(err->ratelimit + used, sizeof err->ratelimit - used, "%s: %s\n", name, value);
        if (n < 0 || (size_t)n >= sizeof err->ratelimit - used) {
            err->ratelimit[used] = '\0'; /* keep whole lines only */
            break;
        }
        used += (size_t)n;
    }
    /* No Retry-After: OpenAI's reset time of the exhausted limit says when to retry. */
    if (err->retry_after_ms < 0 && err->kind == SEAM_ERROR_RATE_LIMIT && err->retryable) {
        const char *rr = seam_http_headers_get(headers, "x-ratelimit-remaining-requests");
        const char *rt = seam_http_headers_get(headers, "x-ratelimit-remaining-tokens");
        int64_t wait = -1;
        if (rr && strcmp(rr, "0") == 0)
            wait = oa_parse_duration_ms(seam_http_headers_get(headers, "x-ratelimit-reset-requests"));
        if (rt && strcmp(rt, "0") == 0) {
            int64_t t = oa_parse_duration_ms(seam_http_headers_get(headers, "x-ratelimit-reset-tokens"));
            if (t > wait)
                wait = t;
        }
        if (wait >= 0)
            err->retry_after_ms = wait;
    }
}

void oa_classify_error(void *instance, int http_status, const seam_http_headers *headers,
                              const char *body, size_t len, seam_error *err)
{
    const oa_instance *in = instance;
    if (!err)
        return;
    error_fields f;
    json_object *root = body && len ? json_parse_strict(body, len) : NULL;
    if (root) {
        read_error_fields(root, &f);
    } else {
        memset(&f, 0, sizeof f);
        if (body && len) { /* plain text answer (a proxy's HTML page, "Not Found") */
            size_t n = len < sizeof f.message - 1 ? len : sizeof f.message - 1;
            memcpy(f.message, body, n);
            f.message[n] = '\0';
            for (char *p = f.message; *p; p++)
                if (*p == '\n' || *p == '\r' || *p == '\t')
                    *p = ' ';
        }
    }
    json_object_put(root);
    err->http_status = http_status;
    fill_error(in, http_status, &f, err);
    keep_ratelimit_headers(headers, err);
}

int oa_error_event(const oa_instance *in, json_object *root, seam_error *err)
{
    error_fields f;
    read_error_fields(root, &f);
    if (err) {
        fill_error(in, 0, &f, err);
        if (err->kind == SEAM_ERROR_UNKNOWN && !f.code[0] && !f.type[0] && !f.numeric_code) {
            /* An error event with nothing to go on: the server gave up mid-answer. */
            set_kind(err, SEAM_ERROR_OVERLOADED);
        }
    }
    return SEAM_ERR_PROVIDER;
}

void oa_error_from_fields(const oa_instance *in, const char *code, const char *type,
                          const char *message, seam_error *err)
{
    if (!err)
        return;
    error_fields f;
    memset(&f, 0, sizeof f);
    seam_strlcpy(f.code, code ? code : "", sizeof f.code);
    seam_strlcpy(f.type, type ? type : "", sizeof f.type);
    seam_strlcpy(f.message, message ? message : "", sizeof f.message);
    fill_error(in, 0, &f, err);
    if (err->kind == SEAM_ERROR_UNKNOWN && !f.code[0] && !f.type[0])
        set_kind(err, SEAM_ERROR_OVERLOADED); /* nothing to go on: the server gave up */
}

int oa_malformed(seam_error *err, const char *what)
{
    return codec_protocol_error(err, "openai: malformed %s from the provider", what);
}

int oa_nomem(seam_error *err)
{
    return seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
}
