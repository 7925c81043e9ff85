/* errors.c — the openai plugin's error classification (the vtable's
 * classify_error): an error answer of any OpenAI-compatible server (HTTP
 * status, error code/type/message in any of their shapes, rate-limit headers)
 * -> a classified seam_error (rate limit 429, auth 401/403, quota, context
 * overflow, model not found, content filter, timeout, overload), with API
 * keys masked in provider messages; the same for error events inside a 2xx
 * stream, and the protocol and out-of-memory errors of both decoders. The
 * rules themselves are the SDK's (seam_error_classify_fields, <seam/codec.h>):
 * this file reads the wire's shapes into them. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ==== errors ================================================================== */

static void set_kind(seam_error *err, seam_error_kind kind)
{
    err->kind = kind;
    err->retryable = seam_error_kind_retryable(kind);
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
    seam_error_classify_fields(err, effective == 200 ? 0 : effective, code_buf[0] ? code_buf : NULL,
                               f->type[0] ? f->type : NULL, f->message);
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

static void keep_ratelimit_headers(const seam_http_headers *headers, seam_error *err)
{
    if (!headers)
        return;
    /* The core may have kept them already: a line already there is not repeated. */
    seam_error_keep_headers(err, headers, "x-ratelimit-");
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
