/* compat.c — the openai codec as a library for other plugins
 * (libseam-openai-compat, <seam/openai_compat.h>): a third party's profile
 * becomes an instance of this codec, and a vtable of its entry points. Built
 * into libseam-openai-compat only, from the same sources as the openai
 * plugin (whose own profiles, options.c, are the same seam_openai_profile). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The members up to id, the least a profile must have. */
#define PROFILE_MIN_SIZE (offsetof(seam_openai_profile, id) + sizeof(const char *))

void *seam_openai_compat_create(const seam_openai_profile *p, const seam_provider_config *cfg,
                                seam_error *err)
{
    if (!p || p->size < PROFILE_MIN_SIZE || !p->id || !*p->id) {
        seam_error_set(err, SEAM_ERROR_CONF, "openai-compat: a profile without an id");
        return NULL;
    }
    /* A profile built against an older header is shorter: copy what it has
     * into a whole one, the members it lacks zero (their defaults). */
    oa_profile *copy = calloc(1, sizeof *copy);
    if (!copy) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "%s: out of memory", p->id);
        return NULL;
    }
    memcpy(copy, p, p->size < sizeof *copy ? p->size : sizeof *copy);
    copy->size = sizeof *copy;
    if (!copy->base_url)
        copy->base_url = "";
    oa_instance *in = oa_create_with(copy, cfg, err);
    if (!in) {
        free(copy);
        return NULL;
    }
    in->profile_copy = copy;
    return in;
}

int seam_openai_compat_vtable(seam_provider_vtable *vt, const seam_openai_profile *p,
                              void *(*create)(const seam_provider_config *cfg, seam_error *err))
{
    if (!vt || !p || !create || p->size < PROFILE_MIN_SIZE || !p->id || !*p->id)
        return SEAM_ERR_INVALID;
    const char *description = p->size > offsetof(seam_openai_profile, description) ? p->description
                                                                                  : NULL;
    *vt = (seam_provider_vtable){
        .abi_version = SEAM_PLUGIN_ABI_VERSION,
        .size = sizeof(seam_provider_vtable),
        .id = p->id,
        .description = description ? description : "an OpenAI-compatible server (libseam-openai-compat)",
        .framing = SEAM_FRAMING_SSE,
        .create = create,
        .destroy = oa_destroy,
        .encode = oa_encode,
        .decoder_new = oa_decoder_new,
        .decoder_free = oa_decoder_free,
        .decode_event = oa_decode_event,
        .decode_finish = oa_decode_finish,
        .decode_response = oa_decode_response,
        .classify_error = oa_classify_error,
        .capabilities = oa_capabilities,
        .serve = NULL,
        .embed_encode = oa_embed_encode,
        .embed_decode = oa_embed_decode,
        .count_tokens_encode = oa_count_tokens_encode,
        .count_tokens_decode = oa_count_tokens_decode,
    };
    return SEAM_OK;
}
