/* abi10.c — a test codec ("testabi10") built as a plugin of ABI 1.0 would
 * be: it declares ABI 1.0 and a vtable whose size ends at `serve`, the last
 * member 1.0 had. The members appended since (embed_*, count_tokens_*, media_*) are
 * set in its static table all the same, to functions that abort: the core
 * must read an older plugin's table only up to its size, so it sees no
 * embeddings and no count endpoint, and never calls them. It answers a
 * generation in-process with the text "abi 1.0". */
#include "config.h"

#include "testplugin.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void *abi10_create(const seam_provider_config *cfg, seam_error *err)
{
    static int instance;
    return &instance;
}

static void abi10_destroy(void *inst)
{
}

static int abi10_encode(void *inst, const seam_request *req, int stream, seam_http_request *out,
                        seam_error *err)
{
    return seam_http_request_set_url(out, "abi10://local");
}

static int abi10_serve(void *inst, const seam_http_request *req, seam_served *out, seam_error *err)
{
    int rc = seam_served_set_status(out, 200);
    if (rc == SEAM_OK)
        rc = seam_served_add_piece(out, "abi 1.0", 7, 0);
    return rc;
}

static void *abi10_decoder_new(void *inst, const seam_request *req)
{
    return calloc(1, 1);
}

static void abi10_decoder_free(void *d)
{
    free(d);
}

static int abi10_decode_event(void *d, const seam_frame *f, seam_emitter *out, seam_error *err)
{
    return SEAM_OK;
}

static int abi10_decode_response(void *inst, const seam_request *req, const char *body, size_t len,
                                 seam_emitter *out, seam_error *err)
{
    seam_chunk text = {.type = SEAM_CHUNK_TEXT_DELTA, .text = "abi 1.0"};
    seam_chunk stop = {.type = SEAM_CHUNK_STOP, .stop_reason = SEAM_STOP_STOP};
    int rc = seam_emit(out, &text);
    return rc == SEAM_OK ? seam_emit(out, &stop) : rc;
}

static void abi10_classify(void *inst, int status, const seam_http_headers *h, const char *body,
                           size_t len, seam_error *err)
{
}

/* Past the table's declared size: never called. Each is a function of its
 * member's type whose body aborts. */
#define NEVER_CALLED(name, ...)   \
    static int name(__VA_ARGS__) \
    {                            \
        abort();                 \
    }

NEVER_CALLED(never_embed_encode, void *inst, const seam_embed_request *er, seam_http_request *out,
             seam_error *err)
NEVER_CALLED(never_embed_decode, void *inst, const seam_embed_request *er, const char *body,
             size_t len, seam_embeddings *out, seam_error *err)
NEVER_CALLED(never_count_encode, void *inst, const seam_request *req, seam_http_request *out,
             seam_error *err)
NEVER_CALLED(never_count_decode, void *inst, const seam_request *req, const char *body, size_t len,
             int64_t *n, seam_error *err)
NEVER_CALLED(never_media_encode, void *inst, const seam_media_request *mr, seam_http_request *out,
             seam_error *err)
NEVER_CALLED(never_media_decode, void *inst, const seam_media_request *mr, const char *body,
             size_t len, seam_media_sink *out, seam_error *err)

#define ABI_1_0 ((uint32_t)(1u << 16))

static const seam_provider_vtable abi10_vtable = {
    .abi_version = ABI_1_0,
    .size = offsetof(seam_provider_vtable, embed_encode),
    .id = "testabi10",
    .description = "a plugin of ABI 1.0",
    TESTPLUGIN_CODEC(abi10),
    .serve = abi10_serve,
    .embed_encode = never_embed_encode,
    .embed_decode = never_embed_decode,
    .count_tokens_encode = never_count_encode,
    .count_tokens_decode = never_count_decode,
    .media_encode = never_media_encode,
    .media_decode = never_media_decode,
};

TESTPLUGIN_INIT(abi10_vtable)

SEAM_PLUGIN_EXPORT const uint32_t seam_plugin_abi = ABI_1_0;
SEAM_PLUGIN_EXPORT int seam_plugin_init(seam_registrar *r);
int seam_plugin_init(seam_registrar *r)
{
    return testplugin_init(r);
}
