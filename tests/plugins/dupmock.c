/* dupmock.c — a valid test plugin that registers a provider under the id
 * "mock", already taken by the real mock plugin: the loader must refuse this
 * second registration (naming the id) and keep the first. The vtable is minimal
 * but complete, so the id clash is the only reason to refuse it. */
#include "config.h"

#include "testplugin.h"

#include <stdlib.h>

static int dup_instance_token;

static void *dup_create(const seam_provider_config *cfg, seam_error *err)
{
    (void)cfg;
    (void)err;
    return &dup_instance_token;
}

static void dup_destroy(void *instance)
{
    (void)instance;
}

static int dup_encode(void *instance, const seam_request *req, int stream,
                      seam_http_request *out, seam_error *err)
{
    (void)instance;
    (void)req;
    (void)stream;
    (void)err;
    return seam_http_request_set_url(out, "http://127.0.0.1:9/dupmock");
}

static void *dup_decoder_new(void *instance, const seam_request *req)
{
    (void)instance;
    (void)req;
    return malloc(1);
}

static void dup_decoder_free(void *decoder)
{
    free(decoder);
}

static int dup_decode_event(void *decoder, const seam_frame *frame, seam_emitter *out,
                            seam_error *err)
{
    (void)decoder;
    (void)frame;
    (void)out;
    (void)err;
    return SEAM_OK;
}

static int dup_decode_response(void *instance, const seam_request *req, const char *body,
                               size_t len, seam_emitter *out, seam_error *err)
{
    (void)instance;
    (void)req;
    (void)body;
    (void)len;
    (void)err;
    seam_chunk stop = { .type = SEAM_CHUNK_STOP, .stop_reason = SEAM_STOP_STOP };
    return seam_emit(out, &stop);
}

static void dup_classify(void *instance, int http_status, const seam_http_headers *headers,
                         const char *body, size_t len, seam_error *err)
{
    (void)instance;
    (void)http_status;
    (void)headers;
    (void)body;
    (void)len;
    (void)err;
}

TESTPLUGIN_CODEC_ONLY(dup, "mock",
                      "test plugin: a second provider with the id \"mock\"")
