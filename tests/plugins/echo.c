/* echo.c — a test codec ("testecho") for the chain tests. It answers
 * in-process (serve) with one text chunk that describes the request it was
 * given, so a test sees exactly what the chain runner sent:
 *
 *   model=M msgs=user:text|assistant:reasoning(SIG),text|...
 *
 * a reasoning part showing its signature (or "-" without one). The answer's
 * usage is input 1000, output 100 tokens. Its capabilities come from the
 * provider's options: {"caps":"tools,vision,...","context_window":N}; without
 * "caps" the plugin answers "unknown" (SEAM_ERR_NOT_FOUND). */
#include "config.h"

#include "testplugin.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct echo {
    char caps[256];
    int has_caps;
    int64_t context_window;
} echo;

static void *echo_create(const seam_provider_config *cfg, seam_error *err)
{
    echo *e = calloc(1, sizeof *e);
    if (!e) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
        return NULL;
    }
    json_object *o = json_tokener_parse(cfg->options_json ? cfg->options_json : "{}");
    json_object *v;
    if (o && json_object_object_get_ex(o, "caps", &v)) {
        seam_strlcpy(e->caps, json_object_get_string(v), sizeof e->caps);
        e->has_caps = 1;
    }
    if (o && json_object_object_get_ex(o, "context_window", &v))
        e->context_window = json_object_get_int64(v);
    json_object_put(o);
    return e;
}

static void echo_destroy(void *inst)
{
    free(inst);
}

static void add(char *buf, size_t size, const char *s)
{
    size_t used = strlen(buf);
    if (used + 1 < size)
        snprintf(buf + used, size - used, "%s", s ? s : "");
}

static int echo_encode(void *inst, const seam_request *req, int stream, seam_http_request *out,
                       seam_error *err)
{
    char desc[4096] = "model=";
    add(desc, sizeof desc, seam_request_model(req));
    add(desc, sizeof desc, " msgs=");
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        const seam_message *m = seam_request_message(req, i);
        if (i)
            add(desc, sizeof desc, "|");
        add(desc, sizeof desc, seam_message_role(m) == SEAM_ROLE_USER ? "user:"
                               : seam_message_role(m) == SEAM_ROLE_ASSISTANT ? "assistant:"
                                                                           : "tool:");
        for (size_t j = 0; j < seam_message_part_count(m); j++) {
            const seam_part *p = seam_message_part(m, j);
            if (j)
                add(desc, sizeof desc, ",");
            switch (seam_part_get_type(p)) {
            case SEAM_PART_TEXT: add(desc, sizeof desc, "text"); break;
            case SEAM_PART_REASONING:
                add(desc, sizeof desc, "reasoning(");
                add(desc, sizeof desc, seam_part_signature(p) ? seam_part_signature(p) : "-");
                add(desc, sizeof desc, ")");
                break;
            case SEAM_PART_TOOL_CALL: add(desc, sizeof desc, "tool_call"); break;
            case SEAM_PART_TOOL_RESULT: add(desc, sizeof desc, "tool_result"); break;
            case SEAM_PART_MEDIA: add(desc, sizeof desc, "media"); break;
            }
        }
    }
    int rc = seam_http_request_set_url(out, "echo://local");
    if (rc == SEAM_OK)
        rc = seam_http_request_add_secret_header(out, "Authorization", "Bearer ");
    if (rc == SEAM_OK)
        rc = seam_http_request_set_body(out, desc, strlen(desc));
    return rc;
}

static int echo_serve(void *inst, const seam_http_request *req, seam_served *out, seam_error *err)
{
    size_t len = 0;
    const char *body = seam_http_request_body(req, &len);
    char piece[4200];
    if (seam_http_request_streaming(req))
        snprintf(piece, sizeof piece, "data: %.*s\n\nevent: stop\ndata: x\n\n", (int)len, body);
    else
        snprintf(piece, sizeof piece, "%.*s", (int)len, body);
    int rc = seam_served_set_status(out, 200);
    if (rc == SEAM_OK)
        rc = seam_served_add_piece(out, piece, strlen(piece), 0);
    return rc;
}

static void *echo_decoder_new(void *inst, const seam_request *req)
{
    return calloc(1, 1);
}

static void echo_decoder_free(void *d)
{
    free(d);
}

static int echo_stop(seam_emitter *out)
{
    seam_chunk c = {.type = SEAM_CHUNK_STOP, .stop_reason = SEAM_STOP_STOP};
    c.usage.present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT;
    c.usage.input_tokens = 1000;
    c.usage.output_tokens = 100;
    return seam_emit(out, &c);
}

static int echo_decode_event(void *d, const seam_frame *f, seam_emitter *out, seam_error *err)
{
    if (f->event && strcmp(f->event, "stop") == 0)
        return echo_stop(out);
    return testplugin_emit_text(out, f->data);
}

static int echo_decode_response(void *inst, const seam_request *req, const char *body, size_t len,
                                seam_emitter *out, seam_error *err)
{
    int rc = testplugin_emit_text(out, body);
    return rc == SEAM_OK ? echo_stop(out) : rc;
}

static void echo_classify(void *inst, int status, const seam_http_headers *h, const char *body,
                          size_t len, seam_error *err)
{
}

static int echo_capabilities(void *inst, const char *model, seam_capabilities *caps)
{
    echo *e = inst;
    if (!e->has_caps)
        return SEAM_ERR_NOT_FOUND;
    caps->tools = strstr(e->caps, "tools") != NULL;
    caps->vision = strstr(e->caps, "vision") != NULL;
    caps->structured_output = strstr(e->caps, "structured_output") != NULL;
    caps->reasoning = strstr(e->caps, "reasoning") != NULL;
    caps->streaming = 1;
    caps->context_window = e->context_window;
    return SEAM_OK;
}

static const seam_provider_vtable echo_vtable = {
    TESTPLUGIN_CURRENT_ABI,
    .id = "testecho",
    .description = "test codec describing the request it was sent",
    TESTPLUGIN_CODEC(echo),
    .capabilities = echo_capabilities,
    .serve = echo_serve,
};

TESTPLUGIN_DEFINE(echo_vtable)
