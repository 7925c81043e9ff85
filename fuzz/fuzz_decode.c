/* fuzz_decode.c — a libFuzzer harness for one provider codec's decoders: the
 * input is a response body that goes through the core's SSE framer into the
 * plugin's decode_event / decode_finish, and, whole, into decode_response,
 * classify_error and the media decoders (media_decode for each modality,
 * media_poll_decode for the refs the plugins make), with every chunk folded
 * into a seam_result. Whatever the
 * bytes, the plugin must return a status and never crash, leak or read out of
 * bounds. Built by fuzz/run.sh with every file of plugins/openai/ etc. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mediagen_int.h"
#include "transport.h"

/* The plugin's files are linked in whole (however its folder is split), and
 * its entry point is reached as the loader reaches it. */
int seam_plugin_init(seam_registrar *r);

#ifndef PLUGIN_OPTIONS
#define PLUGIN_OPTIONS "{}"
#endif

static const seam_provider_vtable *vt;

/* The harness is the registrar: it keeps the plugin's first vtable. */
int seam_registrar_add(seam_registrar *r, const seam_provider_vtable *v)
{
    (void)r;
    if (!vt)
        vt = v;
    return SEAM_OK;
}

typedef struct state {
    void *decoder;
    seam_emitter em;
    seam_result *res;
} state;

static int fold(void *ud, const seam_chunk *c)
{
    seam_result_add_chunk(ud, c);
    return SEAM_OK;
}

/* The body as every media decoder of the plugin reads it (handles computed,
 * nothing stored: the sink has no client). */
static void media_decoders(void *inst, const char *body, size_t size)
{
    static const uint32_t modalities[] = {SEAM_MODALITY_IMAGE, SEAM_MODALITY_AUDIO,
                                          SEAM_MODALITY_VIDEO};
    static const char *const refs[] = {"video:video_1", "content:4:video_1",
                                       "op:models/veo/operations/o1", "dl:https://x/y",
                                       "mock:3:0:1"};
    seam_media_sink sink;
    seam_error e;
    for (size_t i = 0; vt->media_decode && i < 3; i++) {
        seam_media_request *mr = seam_media_request_new(modalities[i], "a cat");
        if (!mr)
            continue;
        seam_media_request_set_model(mr, i == 0 && size && (body[0] & 1) ? "imagen-4" : "model-1");
        seam_media_sink_init(&sink, NULL);
        seam_error_clear(&e);
        vt->media_decode(inst, mr, body, size, &sink, &e);
        if (sink.ref && vt->media_poll_decode) {
            char *ref = strdup(sink.ref);
            seam_media_sink_clear(&sink);
            seam_error_clear(&e);
            if (ref)
                vt->media_poll_decode(inst, ref, body, size, &sink, &e);
            free(ref);
        }
        seam_media_sink_clear(&sink);
        seam_media_request_free(mr);
    }
    for (size_t i = 0; vt->media_poll_decode && i < sizeof refs / sizeof refs[0]; i++) {
        seam_media_sink_init(&sink, NULL);
        seam_error_clear(&e);
        vt->media_poll_decode(inst, refs[i], body, size, &sink, &e);
        seam_media_sink_clear(&sink);
    }
}

static int on_frame(void *ud, const seam_frame *f)
{
    state *st = ud;
    seam_error e;
    seam_error_clear(&e);
    return vt->decode_event(st->decoder, f, &st->em, &e) == SEAM_OK ? 0 : 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!vt)
        seam_plugin_init(NULL);
    seam_provider_config cfg = { sizeof cfg, "fuzz", NULL, PLUGIN_OPTIONS };
    seam_error e;
    seam_error_clear(&e);
    void *inst = vt->create(&cfg, &e);
    if (!inst)
        return 0;
    seam_request *req = seam_request_new();
    seam_request_set_model(req, strstr(PLUGIN_OPTIONS, "responses") ? "gpt-6-luna" : "model-1");
    seam_request_add_user_text(req, "hi");

    state st = { vt->decoder_new(inst, req), { fold, NULL }, seam_result_new() };
    st.em.ud = st.res;
    seam_framer *fr = seam_framer_new(vt->framing, 1 << 20, on_frame, &st);
    if (st.decoder && fr && seam_framer_feed(fr, (const char *)data, size) == SEAM_OK &&
        seam_framer_finish(fr) == SEAM_OK && vt->decode_finish)
        vt->decode_finish(st.decoder, &st.em, &e);
    seam_framer_free(fr);
    if (st.decoder)
        vt->decoder_free(st.decoder);
    seam_emitter_release(&st.em); /* media a cut stream left open */
    seam_result_free(st.res);

    char *body = malloc(size + 1);
    if (body) {
        memcpy(body, data, size);
        body[size] = '\0';
        seam_result *whole = seam_result_new();
        seam_emitter em = { fold, whole };
        seam_error_clear(&e);
        vt->decode_response(inst, req, body, size, &em, &e);
        seam_emitter_release(&em);
        seam_result_free(whole);
        seam_http_headers h = { 0 };
        seam_error_clear(&e);
        seam_error_from_http_status(&e, 429);
        vt->classify_error(inst, 429, &h, body, size, &e);
        media_decoders(inst, body, size);
        free(body);
    }
    seam_request_free(req);
    vt->destroy(inst);
    return 0;
}
