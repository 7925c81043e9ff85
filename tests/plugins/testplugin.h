/* testplugin.h — what every test codec plugin (echo, wire, dupmock, abi10)
 * repeats to register itself: the network codec members of its vtable, named
 * after the plugin's prefix, the init function that adds the vtable, and the
 * emission of a text delta their decoders share. Each plugin keeps its own
 * id, ABI, size and extra members, which are what its tests are about; only
 * the wiring of same-named functions is shared. */
#ifndef SEAM_TESTPLUGIN_H
#define SEAM_TESTPLUGIN_H

#include <seam/plugin.h>

/* The first members of a vtable of the current ABI, the whole table's size. */
#define TESTPLUGIN_CURRENT_ABI                                                                \
    .abi_version = SEAM_PLUGIN_ABI_VERSION, .size = sizeof(seam_provider_vtable)

/* The SSE codec members of a vtable, for a plugin whose functions are named
 * P_create, P_destroy, P_encode, P_decoder_new, P_decoder_free,
 * P_decode_event, P_decode_response and P_classify. */
#define TESTPLUGIN_CODEC(P)                                                                   \
    .framing = SEAM_FRAMING_SSE, .create = P##_create, .destroy = P##_destroy,                \
    .encode = P##_encode, .decoder_new = P##_decoder_new, .decoder_free = P##_decoder_free,   \
    .decode_event = P##_decode_event, .decode_response = P##_decode_response,                 \
    .classify_error = P##_classify

/* `static int testplugin_init(seam_registrar *)`, adding VTABLE; the plugin
 * exports it with SEAM_PLUGIN_DEFINE or, declaring an older ABI, by hand. */
#define TESTPLUGIN_INIT(VTABLE)                                                               \
    static int testplugin_init(seam_registrar *r)                                             \
    {                                                                                         \
        return seam_registrar_add(r, &(VTABLE));                                              \
    }

/* The entry point of a plugin of the current ABI, registering VTABLE. */
#define TESTPLUGIN_DEFINE(VTABLE)                                                             \
    TESTPLUGIN_INIT(VTABLE)                                                                   \
    SEAM_PLUGIN_DEFINE(testplugin_init)

/* The whole vtable and entry point of a plugin of the current ABI that is a
 * network codec and nothing more (no capabilities, serve or embeddings). */
#define TESTPLUGIN_CODEC_ONLY(P, ID, DESCRIPTION)                                             \
    static const seam_provider_vtable P##_vtable = {                                          \
        TESTPLUGIN_CURRENT_ABI, .id = ID, .description = DESCRIPTION, TESTPLUGIN_CODEC(P),    \
    };                                                                                        \
    TESTPLUGIN_DEFINE(P##_vtable)

/* Emits TEXT as one text delta: how the test codecs answer an event or a body. */
static inline int testplugin_emit_text(seam_emitter *out, const char *text)
{
    seam_chunk c = { .type = SEAM_CHUNK_TEXT_DELTA, .text = text };
    return seam_emit(out, &c);
}

#endif
