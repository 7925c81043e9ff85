/* errors.c — every error the gateway sends, in each wire's own shape: the HTTP
 * status a client SDK turns into its error class (429 RateLimitError, 401
 * AuthenticationError, ...), OpenAI's {"error":{message,type,param,code}},
 * Anthropic's {"type":"error","error":{type,message}}, and the event that
 * carries an error once a stream has begun (the status is spent by then). */
#include "config.h"

#include "serve.h"

#include <stdio.h>
#include <string.h>

void serve_err_set(serve_err *e, int status, seam_error_kind kind, const char *code,
                   const char *fmt, ...)
{
    memset(e, 0, sizeof *e);
    e->status = status;
    e->kind = kind;
    e->gateway = 1;
    e->retry_after_ms = -1;
    snprintf(e->code, sizeof e->code, "%s", code ? code : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
}

static int status_of(const seam_error *se, serve_wire_id wire)
{
    int up = se->http_status;
    switch (se->kind) {
    case SEAM_ERROR_RATE_LIMIT: return 429;
    case SEAM_ERROR_OVERLOADED: return wire == WIRE_ANTHROPIC ? 529 : 503;
    case SEAM_ERROR_TIMEOUT: return 504;
    case SEAM_ERROR_TRANSPORT: return 502;
    case SEAM_ERROR_AUTH: return up == 403 ? 403 : 401;
    case SEAM_ERROR_BAD_REQUEST:
    case SEAM_ERROR_CONTEXT_OVERFLOW:
    case SEAM_ERROR_CONTENT_FILTER: return up == 413 || up == 422 ? up : 400;
    case SEAM_ERROR_MODEL_NOT_FOUND: return 404;
    case SEAM_ERROR_CANCELLED: return 499;
    case SEAM_ERROR_CONF: return 500;
    case SEAM_ERROR_RESOURCE: return 503;
    default: return up >= 400 && up <= 599 ? up : 502;
    }
}

void serve_err_from_seam(serve_err *e, const seam_error *se, serve_wire_id wire)
{
    memset(e, 0, sizeof *e);
    e->kind = se->kind;
    e->status = status_of(se, wire);
    e->retry_after_ms = se->retry_after_ms;
    snprintf(e->code, sizeof e->code, "%s", se->code[0] ? se->code : seam_error_kind_name(se->kind));
    snprintf(e->provider, sizeof e->provider, "%s", se->provider);
    snprintf(e->message, sizeof e->message, "%s", se->message[0] ? se->message :
             seam_error_kind_name(se->kind));
}

static const char *openai_type(int status)
{
    switch (status) {
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "invalid_request_error";
    case 429: return "rate_limit_error";
    default: return status >= 500 ? "server_error" : "invalid_request_error";
    }
}

static const char *anthropic_type(int status)
{
    switch (status) {
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 529: case 503: return "overloaded_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
    }
}

static void openai_error_object(const serve_err *e, sbuf *out)
{
    sb_puts(out, "{\"error\":{\"message\":");
    sb_json_str(out, e->message);
    sb_puts(out, ",\"type\":");
    sb_json_str(out, openai_type(e->status));
    sb_puts(out, ",\"param\":");
    sb_json_str(out, e->param[0] ? e->param : NULL);
    sb_puts(out, ",\"code\":");
    sb_json_str(out, e->code[0] ? e->code : NULL);
    sb_puts(out, "}}");
}

static void anthropic_error_object(const serve_err *e, sbuf *out)
{
    sb_puts(out, "{\"type\":\"error\",\"error\":{\"type\":");
    sb_json_str(out, anthropic_type(e->status));
    sb_puts(out, ",\"message\":");
    sb_json_str(out, e->message);
    sb_puts(out, "}}");
}

void serve_err_body(serve_wire_id wire, const serve_err *e, sbuf *out)
{
    if (wire == WIRE_ANTHROPIC)
        anthropic_error_object(e, out);
    else
        openai_error_object(e, out);
}

void serve_err_event(serve_wire_id wire, const serve_err *e, sbuf *out)
{
    switch (wire) {
    case WIRE_ANTHROPIC:
        sb_puts(out, "event: error\ndata: ");
        anthropic_error_object(e, out);
        sb_puts(out, "\n\n");
        break;
    case WIRE_RESPONSES:
        /* The Responses stream's own error event; the SDKs raise it. */
        sb_puts(out, "event: error\ndata: {\"type\":\"error\",\"code\":");
        sb_json_str(out, e->code[0] ? e->code : NULL);
        sb_puts(out, ",\"message\":");
        sb_json_str(out, e->message);
        sb_puts(out, ",\"param\":null}\n\n");
        break;
    default:
        /* Chat completions has no error event; its SDKs raise a data line
         * holding an error object. */
        sb_puts(out, "data: ");
        openai_error_object(e, out);
        sb_puts(out, "\n\n");
    }
}
