/* error.c — the seam_error value: kinds, their names and default retryability,
 * filling an error from a message or a bare HTTP status. */
#include "config.h"
#include "internal.h"

#include <stdio.h>
#include <string.h>

static const char *const kind_names[] = {
    [SEAM_ERROR_NONE] = "none",
    [SEAM_ERROR_RATE_LIMIT] = "rate_limit",
    [SEAM_ERROR_OVERLOADED] = "overloaded",
    [SEAM_ERROR_TIMEOUT] = "timeout",
    [SEAM_ERROR_TRANSPORT] = "transport",
    [SEAM_ERROR_AUTH] = "auth",
    [SEAM_ERROR_BAD_REQUEST] = "bad_request",
    [SEAM_ERROR_CONTEXT_OVERFLOW] = "context_overflow",
    [SEAM_ERROR_MODEL_NOT_FOUND] = "model_not_found",
    [SEAM_ERROR_CONTENT_FILTER] = "content_filter",
    [SEAM_ERROR_CANCELLED] = "cancelled",
    [SEAM_ERROR_CONF] = "conf",
    [SEAM_ERROR_UNKNOWN] = "unknown",
    [SEAM_ERROR_RESOURCE] = "resource",
};

const char *seam_error_kind_name(seam_error_kind kind)
{
    if ((unsigned)kind < sizeof kind_names / sizeof kind_names[0] && kind_names[kind])
        return kind_names[kind];
    return "unknown";
}

int seam_error_kind_retryable(seam_error_kind kind)
{
    switch (kind) {
    case SEAM_ERROR_RATE_LIMIT:
    case SEAM_ERROR_OVERLOADED:
    case SEAM_ERROR_TIMEOUT:
    case SEAM_ERROR_TRANSPORT:
        return 1;
    default:
        return 0;
    }
}

/* Every stream event passes through a cleared error or two, so clearing writes
 * the scalars and empties the strings rather than zeroing 1.1 KB: a string
 * field is read only up to its NUL (and written with seam_strlcpy/snprintf,
 * which terminate). */
void seam_error_clear(seam_error *err)
{
    if (!err)
        return;
    err->kind = SEAM_ERROR_NONE;
    err->retryable = 0;
    err->http_status = 0;
    err->retry_after_ms = -1;
    err->code[0] = '\0';
    err->provider[0] = '\0';
    err->message[0] = '\0';
    err->ratelimit[0] = '\0';
    err->plugin[0] = '\0';
}

int seam_error_set(seam_error *err, seam_error_kind kind, const char *fmt, ...)
{
    if (err) {
        err->kind = kind;
        err->retryable = seam_error_kind_retryable(kind);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return kind == SEAM_ERROR_CONF ? SEAM_ERR_CONF : SEAM_ERR_PROVIDER;
}

void seam_error_from_http_status(seam_error *err, int status)
{
    if (!err)
        return;
    seam_error_kind kind;
    if (status == 401 || status == 403)
        kind = SEAM_ERROR_AUTH;
    else if (status == 404)
        kind = SEAM_ERROR_MODEL_NOT_FOUND;
    else if (status == 408 || status == 504)
        kind = SEAM_ERROR_TIMEOUT; /* 504: a gateway gave up waiting, as 408 */
    else if (status == 429)
        kind = SEAM_ERROR_RATE_LIMIT;
    else if (status >= 500)
        kind = SEAM_ERROR_OVERLOADED;
    else if (status >= 400)
        kind = SEAM_ERROR_BAD_REQUEST;
    else
        kind = SEAM_ERROR_UNKNOWN;
    err->kind = kind;
    err->retryable = seam_error_kind_retryable(kind);
    err->http_status = status;
    if (!err->message[0])
        snprintf(err->message, sizeof err->message, "HTTP %d", status);
}

const char *seam_stop_reason_name(seam_stop_reason r)
{
    switch (r) {
    case SEAM_STOP_STOP: return "stop";
    case SEAM_STOP_LENGTH: return "length";
    case SEAM_STOP_TOOL_USE: return "tool_use";
    case SEAM_STOP_CONTENT_FILTER: return "content_filter";
    case SEAM_STOP_ERROR: return "error";
    default: return "none";
    }
}

const char *seam_chunk_type_name(seam_chunk_type t)
{
    switch (t) {
    case SEAM_CHUNK_TEXT_DELTA: return "text_delta";
    case SEAM_CHUNK_REASONING_START: return "reasoning_start";
    case SEAM_CHUNK_REASONING_DELTA: return "reasoning_delta";
    case SEAM_CHUNK_REASONING_END: return "reasoning_end";
    case SEAM_CHUNK_TOOL_CALL_START: return "tool_call_start";
    case SEAM_CHUNK_TOOL_CALL_DELTA: return "tool_call_delta";
    case SEAM_CHUNK_TOOL_CALL_END: return "tool_call_end";
    case SEAM_CHUNK_MEDIA_START: return "media_start";
    case SEAM_CHUNK_MEDIA_DELTA: return "media_delta";
    case SEAM_CHUNK_MEDIA_END: return "media_end";
    case SEAM_CHUNK_TOOL_RESULT: return "tool_result";
    case SEAM_CHUNK_STOP: return "stop";
    case SEAM_CHUNK_ERROR: return "error";
    case SEAM_CHUNK_STREAM_START: return "stream_start";
    case SEAM_CHUNK_STEP_FINISH: return "step_finish";
    }
    return "unknown";
}

void seam_usage_add(seam_usage *sum, const seam_usage *add)
{
    if (!sum || !add)
        return;
    /* Only present counts are added; a count the sum lacks starts from zero. */
#define ADD_COUNT(bit, field)                                                \
    if (add->present & (bit)) {                                              \
        sum->field = ((sum->present & (bit)) ? sum->field : 0) + add->field; \
        sum->present |= (bit);                                               \
    }
    ADD_COUNT(SEAM_USAGE_INPUT, input_tokens)
    ADD_COUNT(SEAM_USAGE_OUTPUT, output_tokens)
    ADD_COUNT(SEAM_USAGE_CACHE_READ, cache_read_tokens)
    ADD_COUNT(SEAM_USAGE_CACHE_WRITE, cache_write_tokens)
    ADD_COUNT(SEAM_USAGE_REASONING, reasoning_tokens)
    ADD_COUNT(SEAM_USAGE_COST, cost_microcents)
#undef ADD_COUNT
}

void seam_usage_sanitize(seam_usage *u)
{
    int64_t *counts[] = { &u->input_tokens, &u->output_tokens, &u->cache_read_tokens,
                          &u->cache_write_tokens, &u->reasoning_tokens };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        if (*counts[i] < 0)
            *counts[i] = 0;
        else if (*counts[i] > SEAM_MAX_TOKENS)
            *counts[i] = SEAM_MAX_TOKENS;
    }
    /* Cost is the core's to compute from the catalog, never a plugin's. */
    u->present &= ~(uint32_t)SEAM_USAGE_COST;
    u->cost_microcents = 0;
}
