/* plugin.c — the Google Gemini provider plugin (provider id "gemini"): a
 * codec for the Gemini API's generateContent and streamGenerateContent. It
 * does no I/O: the core sends, frames, times out, cancels and retries.
 *
 * This file owns the provider instance (its base URL and the conf's options,
 * checked to be a JSON object at create) and the vtable that
 * seam_plugin_init registers. The rest of the plugin, one role a file:
 *   models.c   the model-family table, thinking levels, capabilities
 *   options.c  the provider options, merged into the request body
 *   cache.c    explicit context caching (cachedContents) for a cache strategy
 *   schema.c   JSON Schema -> the two schema shapes Gemini takes
 *   encode.c   a seam request -> URL, headers and JSON body
 *   decode.c   GenerateContentResponse objects -> seam chunks
 *   errors.c   google.rpc.Status error bodies -> a classified seam_error
 *   internal.h what those files share, and the thought-signature and
 *              tool-call-id conventions encode and decode keep
 * doc/providers.md is the reference for the options and the wire.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define GEMINI_DEFAULT_BASE_URL "https://generativelanguage.googleapis.com/v1beta"

/* ======================================================================== */
/* the instance                                                              */
/* ======================================================================== */

static void *gemini_create(const seam_provider_config *cfg, seam_error *err)
{
    const char *base = cfg && cfg->base_url && *cfg->base_url ? cfg->base_url
                                                              : GEMINI_DEFAULT_BASE_URL;
    const char *options = cfg && cfg->options_json ? cfg->options_json : "{}";
    json_object *parsed = parse_json(options);
    int options_ok = jis(parsed, json_type_object);
    json_object_put(parsed);
    if (!options_ok) {
        seam_error_set(err, SEAM_ERROR_CONF, "gemini: the provider options are not a JSON object");
        return NULL;
    }
    gemini_instance *g = calloc(1, sizeof *g);
    if (!g) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "gemini: out of memory");
        return NULL;
    }
    g->base_url = strdup(base);
    g->options_json = strdup(options);
    g->name = strdup(cfg && cfg->name ? cfg->name : "gemini");
    if (!g->base_url || !g->options_json || !g->name) {
        free(g->base_url);
        free(g->options_json);
        free(g->name);
        free(g);
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "gemini: out of memory");
        return NULL;
    }
    size_t n = strlen(g->base_url);
    while (n > 0 && g->base_url[n - 1] == '/')
        g->base_url[--n] = '\0';
    return g;
}

static void gemini_destroy(void *instance)
{
    gemini_instance *g = instance;
    if (!g)
        return;
    free(g->base_url);
    free(g->options_json);
    free(g->name);
    free(g);
}

/* ======================================================================== */
/* registration                                                              */
/* ======================================================================== */

static const seam_provider_vtable gemini_vtable = {
    .abi_version = SEAM_PLUGIN_ABI_VERSION,
    .size = sizeof(seam_provider_vtable),
    .id = "gemini",
    .description = "Google Gemini API (generateContent / streamGenerateContent)",
    .framing = SEAM_FRAMING_SSE,
    .create = gemini_create,
    .destroy = gemini_destroy,
    .encode = gemini_encode,
    .decoder_new = gemini_decoder_new,
    .decoder_free = gemini_decoder_free,
    .decode_event = gemini_decode_event,
    .decode_finish = gemini_decode_finish,
    .decode_response = gemini_decode_response,
    .classify_error = gemini_classify_error,
    .capabilities = gemini_capabilities,
    .serve = NULL,
    .embed_encode = gemini_embed_encode,
    .embed_decode = gemini_embed_decode,
    .count_tokens_encode = gemini_count_tokens_encode,
    .count_tokens_decode = gemini_count_tokens_decode,
    .cache_encode = gemini_cache_encode,
    .cache_decode = gemini_cache_decode,
    .media_encode = gemini_media_encode,
    .media_decode = gemini_media_decode,
    .media_poll_encode = gemini_media_poll_encode,
    .media_poll_decode = gemini_media_poll_decode,
    .transcribe_encode = gemini_transcribe_encode,
    .transcribe_decode = gemini_transcribe_decode,
};

static int gemini_plugin_init(seam_registrar *r)
{
    return seam_registrar_add(r, &gemini_vtable);
}

SEAM_PLUGIN_DEFINE(gemini_plugin_init)
