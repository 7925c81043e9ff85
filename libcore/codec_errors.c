/* codec_errors.c — owns the error classification helpers of the codec SDK
 * (<seam/codec.h>): the protocol-error rule every codec applies to a broken
 * stream, the rules that turn the common provider error shapes into seam
 * error kinds (OpenAI-style code/type/message, Anthropic's error types,
 * Google's google.rpc.Status with ErrorInfo and RetryInfo), a whole-body
 * classifier for codecs with nothing provider-specific to add, the rate-limit
 * headers kept on an error, and rate-limit durations. The rules were the
 * in-tree codecs' own (plugins/openai, anthropic, gemini errors.c), lifted
 * here unchanged so that those codecs and third-party ones share them. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <seam/codec.h>

/* Case-insensitive substring test; 0 when either is NULL. */
static int contains_ci(const char *hay, const char *needle)
{
    if (!hay || !needle)
        return 0;
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}

static void set_kind(seam_error *err, seam_error_kind kind)
{
    err->kind = kind;
    err->retryable = seam_error_kind_retryable(kind);
}

int seam_error_protocol(seam_error *err, const char *fmt, ...)
{
    if (err) {
        seam_error_clear(err);
        err->kind = SEAM_ERROR_TRANSPORT;
        err->retryable = 1;
        seam_strlcpy(err->code, "protocol_error", sizeof err->code);
        if (fmt) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err->message, sizeof err->message, fmt, ap);
            va_end(ap);
        }
    }
    return SEAM_ERR_PROVIDER;
}

/* ---- OpenAI-style fields ------------------------------------------------------ */

static int is_context_overflow_text(const char *msg)
{
    return contains_ci(msg, "context length") || contains_ci(msg, "context_length") ||
           contains_ci(msg, "context window") || contains_ci(msg, "maximum context") ||
           contains_ci(msg, "reduce the length") || contains_ci(msg, "too many tokens") ||
           contains_ci(msg, "prompt is too long") || contains_ci(msg, "input is too long");
}

void seam_error_classify_fields(seam_error *err, int status, const char *code, const char *type,
                                const char *msg)
{
    if (!err)
        return;
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

/* ---- Anthropic ----------------------------------------------------------------- */

/* A message that says the prompt does not fit the model's context. */
static int says_context_overflow(const char *msg)
{
    static const char *const needles[] = {"prompt is too long", "context limit", "context window",
                                          "context length", "too many total text bytes"};
    if (!msg)
        return 0;
    for (size_t i = 0; i < sizeof needles / sizeof needles[0]; i++)
        if (strcasestr(msg, needles[i]))
            return 1;
    return 0;
}

static int str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

void seam_error_classify_anthropic(seam_error *err, int http_status, const char *type,
                                   const char *msg)
{
    if (!err)
        return;
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
    set_kind(err, kind);
    if (type)
        seam_strlcpy(err->code, type, sizeof err->code);
}

/* ---- Google (google.rpc.Status) -------------------------------------------------- */

/* An integer member, also when written as a decimal string (int64 in proto3
 * JSON). */
static int int_member(json_object *o, const char *key, int64_t *out)
{
    if (seam_json_int(o, key, out))
        return 1;
    const char *s = seam_json_string(o, key);
    if (s) {
        char *end;
        long long n = strtoll(s, &end, 10);
        if (end != s && *end == '\0') {
            *out = n;
            return 1;
        }
    }
    return 0;
}

/* INVALID_ARGUMENT is also how Gemini says the prompt is too long, e.g. "The
 * input token count (1200000) exceeds the maximum number of tokens allowed
 * (1048576)." */
static int google_context_overflow(const char *message)
{
    return contains_ci(message, "input token count") ||
           contains_ci(message, "exceeds the maximum number of tokens") ||
           contains_ci(message, "context length") || contains_ci(message, "context window") ||
           contains_ci(message, "too many tokens") || contains_ci(message, "prompt is too long");
}

/* A google.protobuf.Duration in JSON: "12s", "1.5s", "0.250s" (or an object with
 * seconds/nanos). -1 when unreadable. */
static int64_t proto_duration_ms(json_object *d)
{
    if (d && json_object_is_type(d, json_type_string)) {
        const char *s = json_object_get_string(d);
        char *end;
        double secs = strtod(s, &end); /* "s" follows; the C locale's '.' is Google's */
        if (end == s || !(secs >= 0 && secs <= 1e9)) /* also NaN */
            return -1;
        return (int64_t)(secs * 1000.0 + 0.5);
    }
    if (d && json_object_is_type(d, json_type_object)) {
        int64_t secs = 0, nanos = 0;
        int has = int_member(d, "seconds", &secs) | int_member(d, "nanos", &nanos);
        if (!has || secs < 0 || secs > 1000000000 || nanos < 0)
            return -1;
        return secs * 1000 + nanos / 1000000;
    }
    return -1;
}

void seam_error_classify_google(seam_error *err, json_object *e)
{
    if (!err || !e)
        return;
    const char *status = seam_json_string(e, "status");
    const char *message = seam_json_string(e, "message");
    int64_t code = 0;
    if (err->http_status == 0 && int_member(e, "code", &code) && code >= 100 && code < 600)
        seam_error_from_http_status(err, (int)code);

    const char *reason = NULL;
    int64_t retry_ms = -1;
    json_object *details = seam_json_get(e, "details");
    size_t n_details =
        details && json_object_is_type(details, json_type_array) ? json_object_array_length(details) : 0;
    for (size_t i = 0; i < n_details; i++) {
        json_object *d = json_object_array_get_idx(details, i);
        const char *type = seam_json_string(d, "@type");
        if (!type)
            continue;
        if (strstr(type, "google.rpc.RetryInfo"))
            retry_ms = proto_duration_ms(seam_json_get(d, "retryDelay"));
        else if (strstr(type, "google.rpc.ErrorInfo") && seam_json_string(d, "reason"))
            reason = seam_json_string(d, "reason");
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
        else if (google_context_overflow(message))
            kind = SEAM_ERROR_CONTEXT_OVERFLOW;
    }
    set_kind(err, kind);
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

/* ---- headers and durations ---------------------------------------------------------- */

void seam_error_keep_headers(seam_error *err, const seam_http_headers *headers, const char *prefix)
{
    if (!err || !headers)
        return;
    size_t plen = prefix ? strlen(prefix) : 0;
    size_t used = strlen(err->ratelimit);
    for (size_t i = 0; i < seam_http_headers_count(headers); i++) {
        const char *name, *value;
        char line[sizeof err->ratelimit];
        if (seam_http_headers_at(headers, i, &name, &value) != SEAM_OK || !name)
            continue;
        if ((!plen || strncasecmp(name, prefix, plen)) && strcasecmp(name, "retry-after") &&
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

int64_t seam_parse_duration_ms(const char *s)
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
    /* NaN fails both tests; a sum past int64 is no duration either. */
    return !(total >= 0) || total > 9.2e18 ? -1 : (int64_t)(total + 0.5);
}

/* ---- a whole error body ------------------------------------------------------------- */

/* A JSON member as text: a string as itself, an integer in decimal, anything
 * else (but null) as its JSON text. */
static void copy_field(char *dst, size_t size, json_object *v)
{
    if (!v)
        return;
    if (json_object_is_type(v, json_type_string))
        seam_strlcpy(dst, json_object_get_string(v), size);
    else if (json_object_is_type(v, json_type_int))
        snprintf(dst, size, "%lld", (long long)json_object_get_int64(v));
    else if (!json_object_is_type(v, json_type_null))
        seam_strlcpy(dst, seam_json_text(v), size);
}

static void set_message(seam_error *err, const char *prefix, const char *msg, int status)
{
    if (msg && *msg) {
        seam_error_set_text(err, prefix, msg, strlen(msg), 0);
    } else {
        char what[64];
        if (status)
            snprintf(what, sizeof what, "HTTP %d", status);
        else
            snprintf(what, sizeof what, "the provider reported an error");
        seam_error_set_text(err, prefix, what, strlen(what), 0);
    }
}

/* The OpenAI-style shapes (see <seam/codec.h>); the rules of
 * seam_error_classify_fields. An HTTP status carried as the error's code
 * inside a 2xx answer counts as the status. */
static void classify_openai_shape(seam_error *err, int status, json_object *root,
                                  const char *prefix)
{
    char message[400] = "", code[64] = "", type[64] = "";
    int numeric = 0;
    json_object *e = root;
    if (json_object_is_type(e, json_type_array) && json_object_array_length(e) > 0)
        e = json_object_array_get_idx(e, 0);
    json_object *inner = seam_json_get(e, "error");
    if (inner)
        e = inner;
    if (json_object_is_type(e, json_type_string)) {
        seam_strlcpy(message, json_object_get_string(e), sizeof message);
    } else {
        json_object *m = seam_json_get(e, "message");
        if (!m)
            m = seam_json_get(e, "detail");
        if (!m)
            m = seam_json_get(root, "detail");
        copy_field(message, sizeof message, m);
        json_object *c = seam_json_get(e, "code");
        if (c && json_object_is_type(c, json_type_int))
            numeric = (int)json_object_get_int64(c);
        else
            copy_field(code, sizeof code, c);
        copy_field(type, sizeof type, seam_json_get(e, "type"));
        if (!message[0])
            copy_field(message, sizeof message, seam_json_get(root, "message"));
    }
    int effective = status;
    if ((status == 0 || (status >= 200 && status < 300)) && numeric >= 400 && numeric < 600)
        effective = numeric;
    seam_error_classify_fields(err, effective >= 200 && effective < 300 ? 0 : effective,
                               code[0] ? code : NULL, type[0] ? type : NULL, message);
    set_message(err, prefix, message, effective >= 200 && effective < 300 ? 0 : effective);
}

/* Retry-After in seconds (an HTTP date is left to the core), retry-after-ms,
 * or, for a rate limit, the reset time of the exhausted OpenAI-style limit. */
static void retry_after(seam_error *err, const seam_http_headers *headers)
{
    if (!headers || err->retry_after_ms >= 0)
        return;
    const char *ms = seam_http_headers_get(headers, "retry-after-ms");
    const char *secs = seam_http_headers_get(headers, "retry-after");
    char *end;
    if (ms && *ms) {
        double v = strtod(ms, &end);
        if (end != ms && *end == '\0' && v >= 0 && v < 9e15) {
            err->retry_after_ms = (int64_t)(v + 0.5);
            return;
        }
    }
    if (secs && *secs) {
        double v = strtod(secs, &end);
        if (end != secs && *end == '\0' && v >= 0 && v < 9e12) {
            err->retry_after_ms = (int64_t)(v * 1000.0 + 0.5);
            return;
        }
    }
    if (err->kind != SEAM_ERROR_RATE_LIMIT || !err->retryable)
        return;
    const char *rr = seam_http_headers_get(headers, "x-ratelimit-remaining-requests");
    const char *rt = seam_http_headers_get(headers, "x-ratelimit-remaining-tokens");
    int64_t wait = -1;
    if (rr && strcmp(rr, "0") == 0)
        wait = seam_parse_duration_ms(seam_http_headers_get(headers, "x-ratelimit-reset-requests"));
    if (rt && strcmp(rt, "0") == 0) {
        int64_t t = seam_parse_duration_ms(seam_http_headers_get(headers, "x-ratelimit-reset-tokens"));
        if (t > wait)
            wait = t;
    }
    if (wait >= 0)
        err->retry_after_ms = wait;
}

void seam_error_classify_body(seam_error *err, int http_status, const seam_http_headers *headers,
                              const char *body, size_t len, const char *prefix)
{
    if (!err)
        return;
    if (err->kind == SEAM_ERROR_NONE && http_status > 0)
        seam_error_from_http_status(err, http_status);
    err->http_status = http_status;
    json_object *root = body && len ? seam_json_read(body, len, 0) : NULL;
    json_object *first = root;
    if (json_object_is_type(first, json_type_array) && json_object_array_length(first) > 0)
        first = json_object_array_get_idx(first, 0);
    json_object *eobj = seam_json_get(first, "error");
    if (!json_object_is_type(eobj, json_type_object))
        eobj = NULL;
    const char *root_type = seam_json_string(first, "type");
    if (eobj && seam_json_string(eobj, "status")) {
        /* google.rpc.Status: the status name says more than the code. */
        seam_error_classify_google(err, eobj);
        char m[sizeof err->message]; /* the message it set, trailing newlines cut */
        seam_strlcpy(m, seam_json_string(eobj, "message") ? err->message : "", sizeof m);
        set_message(err, prefix, m, http_status);
    } else if (eobj && root_type && strcmp(root_type, "error") == 0) {
        /* Anthropic: {"type": "error", "error": {"type", "message"}}. */
        const char *type = seam_json_string(eobj, "type");
        const char *m = seam_json_string(eobj, "message");
        seam_error_classify_anthropic(err, http_status, type, m);
        set_message(err, prefix, m && *m ? m : type, http_status);
    } else if (root) {
        classify_openai_shape(err, http_status, root, prefix);
    } else if (body && len) {
        /* Not JSON (a proxy's page): the status says it all; keep an excerpt. */
        seam_error_set_text(err, prefix, body, len, 200);
    } else {
        set_message(err, prefix, NULL, http_status);
    }
    json_object_put(root);
    retry_after(err, headers);
    seam_error_keep_headers(err, headers, "x-ratelimit-");
    seam_error_keep_headers(err, headers, "anthropic-ratelimit-");
}
