/* plugin.c — the Anthropic provider plugin (provider id "anthropic"): a codec
 * for the Messages API, `POST {base_url}/messages` (default base
 * https://api.anthropic.com/v1), streamed (SSE) or not. It does no I/O: the
 * core sends, frames, times out, cancels and retries.
 *
 * This file owns the provider instance (its base URL and the conf's options,
 * checked at create) and the vtable that seam_plugin_init registers. The
 * rest of the plugin, one role a file:
 *   models.c   the Claude model-family table and the capability flags
 *   options.c  the provider options and their validation
 *   encode.c   a seam request -> URL, headers and JSON body
 *   decode.c   SSE events, or a whole message body, -> seam chunks
 *   errors.c   an error answer (or an `error` event) -> a classified seam_error
 *   internal.h what those files share
 * doc/providers.md is the reference for the options and the wire.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ANTHROPIC_DEFAULT_BASE_URL "https://api.anthropic.com/v1"

/* ==== the instance ============================================================ */


static void anthropic_destroy(void *instance)
{
    anthropic *a = instance;
    if (!a)
        return;
    free(a->base_url);
    json_object_put(a->options);
    free(a->name);
    free(a->conf_extra);
    free(a->conf_notes);
    free(a);
}

static void *anthropic_create(const seam_provider_config *cfg, seam_error *err)
{
    anthropic *a = calloc(1, sizeof *a);
    if (!a) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "anthropic: out of memory");
        return NULL;
    }
    const char *base = cfg && cfg->base_url && *cfg->base_url ? cfg->base_url
                                                               : ANTHROPIC_DEFAULT_BASE_URL;
    a->base_url = strdup(base);
    if (!a->base_url) {
        anthropic_destroy(a);
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "anthropic: out of memory");
        return NULL;
    }
    size_t n = strlen(a->base_url);
    while (n > 0 && a->base_url[n - 1] == '/')
        a->base_url[--n] = '\0';

    const char *opts = cfg && cfg->options_json ? cfg->options_json : "{}";
    a->options = parse_json_str(opts);
    if (!a->options || !json_object_is_type(a->options, json_type_object)) {
        anthropic_destroy(a);
        seam_error_set(err, SEAM_ERROR_CONF, "anthropic provider %s: options are not a group",
                       cfg && cfg->name ? cfg->name : "?");
        return NULL;
    }
    /* Keys the plugin does not know are reported on each request, never
     * sent; extra_body is sent as is. */
    popt_view view;
    if (popt_select(a->options, 1, NULL, 0, anthropic_option_known, NULL, "anthropic plugin",
                    &view) != SEAM_OK) {
        anthropic_destroy(a);
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "anthropic: out of memory");
        return NULL;
    }
    a->name = strdup(cfg && cfg->name ? cfg->name : "anthropic");
    a->conf_extra = view.extra ? xstrdup(json_text(view.extra)) : NULL;
    a->conf_notes = view.notes.len ? xstrdup(view.notes.data) : NULL;
    int lost = !a->name || (view.extra && !a->conf_extra) || (view.notes.len && !a->conf_notes);
    popt_view_free(&view);
    if (lost) {
        anthropic_destroy(a);
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "anthropic: out of memory");
        return NULL;
    }
    /* Check the options now, so a typo is a conf error at load, not a failed call. */
    settings s = { 0 };
    model_info mi;
    char why[200] = "";
    int rc = anthropic_settings_apply(&s, a->options, why, sizeof why);
    sb_free(&s.beta);
    if (rc == 0)
        rc = anthropic_model_capabilities(a->options, "", &mi, why, sizeof why);
    if (rc != 0) {
        seam_error_set(err, SEAM_ERROR_CONF, "anthropic provider %s: %s",
                       cfg && cfg->name ? cfg->name : "?",
                       rc == SEAM_ERR_NOMEM ? "out of memory" : why);
        anthropic_destroy(a);
        return NULL;
    }
    return a;
}

static int anthropic_capabilities(void *instance, const char *model, seam_capabilities *caps)
{
    anthropic *a = instance;
    model_info mi;
    char why[200];
    if (!caps)
        return SEAM_ERR_INVALID;
    if (anthropic_model_capabilities(a ? a->options : NULL, model, &mi, why, sizeof why) != 0)
        return SEAM_ERR_INVALID;
    *caps = mi.caps;
    return SEAM_OK;
}

/* ==== registration ============================================================= */

static const seam_provider_vtable anthropic_vtable = {
    .abi_version = SEAM_PLUGIN_ABI_VERSION,
    .size = sizeof(seam_provider_vtable),
    .id = "anthropic",
    .description = "Anthropic Messages API (Claude)",
    .framing = SEAM_FRAMING_SSE,
    .create = anthropic_create,
    .destroy = anthropic_destroy,
    .encode = anthropic_encode,
    .decoder_new = anthropic_decoder_new,
    .decoder_free = anthropic_decoder_free,
    .decode_event = anthropic_decode_event,
    .decode_finish = anthropic_decode_finish,
    .decode_response = anthropic_decode_response,
    .classify_error = anthropic_classify_error,
    .capabilities = anthropic_capabilities,
    .serve = NULL,
    /* No embeddings: Anthropic has no embedding endpoint. */
    .count_tokens_encode = anthropic_count_tokens_encode,
    .count_tokens_decode = anthropic_count_tokens_decode,
};

static int anthropic_init(seam_registrar *r)
{
    return seam_registrar_add(r, &anthropic_vtable);
}

SEAM_PLUGIN_DEFINE(anthropic_init)
