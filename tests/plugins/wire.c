/* wire.c — a minimal network codec ("testwire") for the transport tests. It
 * speaks a made-up SSE wire so that the tests exercise the core alone: each
 * event's data is text (a text_delta); an event named "stop" ends the answer
 * (its data, if any, is the output token count); an event named "error" is an
 * error inside a 200 stream. A non-streamed body is the whole text. Errors:
 * the body {"kind":"..."} names a seam error kind, else the status decides.
 * The model "no-decoder" makes decoder_new return NULL. */
#include "config.h"

#include "testplugin.h"
#include <stdlib.h>
#include <string.h>

typedef struct wire {
    char base[256];
} wire;

static void *wire_create(const seam_provider_config *cfg, seam_error *err)
{
    wire *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    seam_strlcpy(w->base, cfg->base_url ? cfg->base_url : "http://127.0.0.1:9", sizeof w->base);
    return w;
}

static void wire_destroy(void *inst)
{
    free(inst);
}

static int wire_encode(void *inst, const seam_request *req, int stream, seam_http_request *out,
                       seam_error *err)
{
    wire *w = inst;
    char url[300];
    strcpy(url, w->base);
    strcat(url, stream ? "/stream" : "/whole");
    int rc = seam_http_request_set_url(out, url);
    if (rc == SEAM_OK)
        rc = seam_http_request_add_secret_header(out, "Authorization", "Bearer ");
    const seam_message *m = seam_request_message(req, 0);
    const char *text = m ? seam_message_text(m) : "";
    if (rc == SEAM_OK)
        rc = seam_http_request_set_body(out, text, strlen(text));
    if (rc == SEAM_OK)
        rc = seam_http_request_add_header(out, "X-Model", seam_request_model(req));
    return rc;
}

static int wire_stop(seam_emitter *out, const char *tokens)
{
    seam_chunk c = { .type = SEAM_CHUNK_STOP, .stop_reason = SEAM_STOP_STOP };
    if (tokens && *tokens) {
        c.usage.present = SEAM_USAGE_OUTPUT;
        c.usage.output_tokens = strtoll(tokens, NULL, 10); /* saturates, unlike atoll */
    }
    return seam_emit(out, &c);
}

static void *wire_decoder_new(void *inst, const seam_request *req)
{
    /* The model "no-decoder" makes decoder_new fail, as a plugin may. */
    const char *model = seam_request_model(req);
    if (model && strcmp(model, "no-decoder") == 0)
        return NULL;
    return calloc(1, 1);
}

static void wire_decoder_free(void *d)
{
    free(d);
}

static int wire_decode_event(void *d, const seam_frame *f, seam_emitter *out, seam_error *err)
{
    if (f->event && strcmp(f->event, "stop") == 0)
        return wire_stop(out, f->data);
    if (f->event && strcmp(f->event, "error") == 0) {
        seam_error_set(err, SEAM_ERROR_OVERLOADED, "stream error: %s", f->data);
        return SEAM_ERR_PROVIDER;
    }
    return testplugin_emit_text(out, f->data);
}

static int wire_decode_response(void *inst, const seam_request *req, const char *body, size_t len,
                                seam_emitter *out, seam_error *err)
{
    int rc = testplugin_emit_text(out, body);
    return rc == SEAM_OK ? wire_stop(out, NULL) : rc;
}

static void wire_classify(void *inst, int status, const seam_http_headers *h, const char *body,
                          size_t len, seam_error *err)
{
    static const struct { const char *name; seam_error_kind kind; } kinds[] = {
        { "\"context_overflow\"", SEAM_ERROR_CONTEXT_OVERFLOW },
        { "\"content_filter\"", SEAM_ERROR_CONTENT_FILTER },
        { "\"auth\"", SEAM_ERROR_AUTH },
        { "\"model_not_found\"", SEAM_ERROR_MODEL_NOT_FOUND },
        { "\"bad_request\"", SEAM_ERROR_BAD_REQUEST },
        { "\"quota\"", SEAM_ERROR_RATE_LIMIT }, /* out of credit: not retryable */
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strstr(body, kinds[i].name)) {
            err->kind = kinds[i].kind;
            err->retryable = seam_error_kind_retryable(kinds[i].kind) &&
                             strcmp(kinds[i].name, "\"quota\"") != 0;
        }
    /* Echo the body into the message: the tests check that a credential echoed
     * by a server is redacted by the core. */
    seam_strlcpy(err->message, body, sizeof err->message);
}

TESTPLUGIN_CODEC_ONLY(wire, "testwire",
                      "test codec for the transport tests")
