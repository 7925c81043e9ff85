/* models.c — the model catalog as an application sees it: each model the
 * conf's `models` entries and the shipped catalog (conf/models.conf) know,
 * with its provider, context window, capabilities and prices, for
 * `seam models` and for picking a provider from a model id alone; and the
 * conf's `cli` group, where the seam command keeps its model aliases. The
 * catalog is read by config.c; what a model costs a call is catalog.c's. */
#include "config.h"
#include "client.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

const char *seam_client_cli_settings(const seam_client *c)
{
    return c && c->conf->cli_json ? c->conf->cli_json : "{}";
}

size_t seam_client_model_count(const seam_client *c)
{
    return c ? c->conf->n_models : 0;
}

/* The capability names, in seam.conf(5)'s order. */
static const struct {
    const char *name;
    uint32_t bit;
} cap_names[] = {
    {"tools", SEAM_CAP_TOOLS},
    {"streaming", SEAM_CAP_STREAMING},
    {"parallel_tool_calls", SEAM_CAP_PARALLEL_TOOL_CALLS},
    {"vision", SEAM_CAP_VISION},
    {"audio_input", SEAM_CAP_AUDIO_INPUT},
    {"pdf_input", SEAM_CAP_PDF_INPUT},
    {"prompt_cache", SEAM_CAP_PROMPT_CACHE},
    {"reasoning", SEAM_CAP_REASONING},
    {"structured_output", SEAM_CAP_STRUCTURED_OUTPUT},
    {"embed", SEAM_CAP_EMBED},
};

int seam_client_model_at(const seam_client *c, size_t i, seam_model_info *info)
{
    if (!c || !info || info->size < offsetof(seam_model_info, file) || i >= c->conf->n_models)
        return SEAM_ERR_INVALID;
    const seam_conf_model *m = &c->conf->models[i];
    seam_model_info full;
    memset(&full, 0, sizeof full);
    full.size = sizeof full;
    full.id = m->id;
    full.provider = m->provider;
    full.context_window = m->context_window;
    full.max_output_tokens = m->max_output_tokens;
    full.has_capabilities = m->has_capabilities;
    size_t used = 0;
    for (size_t k = 0; k < sizeof cap_names / sizeof cap_names[0]; k++)
        if (m->capabilities & cap_names[k].bit)
            used += (size_t)snprintf(full.capabilities + used, sizeof full.capabilities - used,
                                     "%s%s", used ? "," : "", cap_names[k].name);
    full.priced = m->priced;
    full.price_input = m->price_input;
    full.price_output = m->price_output;
    full.price_cache_read = m->price_cache_read;
    full.price_cache_write = m->price_cache_write;
    full.from_catalog = m->from_catalog;
    full.file = m->file;
    full.line = m->line;
    /* Copy back only what the caller's struct has room for. */
    uint32_t room = info->size < sizeof full ? info->size : (uint32_t)sizeof full;
    memcpy((char *)info + sizeof info->size, (char *)&full + sizeof full.size,
           room - sizeof info->size);
    return SEAM_OK;
}
