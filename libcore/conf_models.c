/* conf_models.c — the `models` list and the `model_catalog` key: a model's
 * id, provider, token limits, capabilities, outputs and price. The model
 * catalog (conf/models.conf, installed, or the file `model_catalog` names;
 * config.c reads it after the user's files) is read by the same code, and the
 * user's `models` entries override its entries. */
#include "config.h"
#include "conf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- models (the catalog and the user's entries) -------------------------------------------------------- */

static const char model_keys[] =
    "id, provider, context_window, max_output_tokens, capabilities, outputs, price";
static const char price_keys[] = "input, output, cache_read, cache_write";

static const name_bit capability_names[] = {
    {"tools", SEAM_CAP_TOOLS},
    {"streaming", SEAM_CAP_STREAMING},
    {"parallel_tool_calls", SEAM_CAP_PARALLEL_TOOL_CALLS},
    {"vision", SEAM_CAP_VISION},
    {"image_input", SEAM_CAP_VISION}, /* vision is its alias (reference ADR-0031) */
    {"audio_input", SEAM_CAP_AUDIO_INPUT},
    {"video_input", SEAM_CAP_VIDEO_INPUT},
    {"pdf_input", SEAM_CAP_PDF_INPUT},
    {"document_input", SEAM_CAP_PDF_INPUT},
    {"prompt_cache", SEAM_CAP_PROMPT_CACHE},
    {"reasoning", SEAM_CAP_REASONING},
    {"structured_output", SEAM_CAP_STRUCTURED_OUTPUT},
    {"embed", SEAM_CAP_EMBED},
};

static int load_capabilities(loader *ld, seam_conf_model *m, const config_setting_t *s,
                             const char *path)
{
    uint32_t bits = 0;
    int rc = conf_read_name_bits(ld, s, path, "an array of capability names [ \"tools\", ... ]",
                            capability_names, sizeof capability_names / sizeof capability_names[0],
                            "unknown capability ", "", &bits);
    if (rc == SEAM_OK) {
        m->has_capabilities = 1;
        m->capabilities = bits;
    }
    return rc;
}

/* outputs = [ "text", "text+image" ]: the closed set of modality sets the
 * model can emit in one turn. */
static int load_outputs(loader *ld, seam_conf_model *m, const config_setting_t *s,
                        const char *path)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return conf_fail_type(ld, s, path, "an array of modality sets [ \"text\", \"text+image\" ]");
    int n = config_setting_length(s);
    if (n > 8)
        return fail_setting(ld, s, "%s lists %d modality sets; at most 8", path, n);
    m->n_outputs = 0;
    for (int i = 0; i < n; i++) {
        const char *v = config_setting_get_string_elem(s, (unsigned)i);
        if (!v)
            return conf_fail_type(ld, s, path, "an array of strings");
        uint32_t bits = 0;
        const char *p = v;
        while (*p) {
            size_t len = strcspn(p, "+");
            static const struct { const char *name; uint32_t bit; } names[] = {
                {"text", SEAM_MODALITY_TEXT}, {"image", SEAM_MODALITY_IMAGE},
                {"audio", SEAM_MODALITY_AUDIO}, {"video", SEAM_MODALITY_VIDEO}};
            uint32_t bit = 0;
            for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
                if (strlen(names[k].name) == len && strncmp(p, names[k].name, len) == 0)
                    bit = names[k].bit;
            if (!bit)
                return fail_setting(ld, s, "%s: \"%s\" is not a set of text, image, audio, video "
                                           "joined by +", path, v);
            bits |= bit;
            p += len;
            if (*p == '+')
                p++;
        }
        if (!bits)
            return fail_setting(ld, s, "%s: an empty modality set", path);
        m->outputs[m->n_outputs++] = bits;
    }
    return SEAM_OK;
}

static int load_price(loader *ld, seam_conf_model *m, const config_setting_t *s, const char *path)
{
    if (conf_expect_group(ld, s, path) != SEAM_OK)
        return ld->status;
    int have_input = 0, have_output = 0;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *key = config_setting_name(e);
        char epath[PATH_MAX_LEN];
        conf_join_path(epath, path, key);
        int rc;
        /* Bounded so that tokens x price stays inside int64 (seam_catalog_price). */
        if (strcmp(key, "input") == 0) {
            rc = conf_read_int64(ld, e, epath, R_PRICE, &m->price_input);
            have_input = 1;
        } else if (strcmp(key, "output") == 0) {
            rc = conf_read_int64(ld, e, epath, R_PRICE, &m->price_output);
            have_output = 1;
        } else if (strcmp(key, "cache_read") == 0)
            rc = conf_read_int64(ld, e, epath, R_PRICE, &m->price_cache_read);
        else if (strcmp(key, "cache_write") == 0)
            rc = conf_read_int64(ld, e, epath, R_PRICE, &m->price_cache_write);
        else
            rc = conf_fail_unknown(ld, e, path, price_keys);
        if (rc != SEAM_OK)
            return rc;
    }
    if (!have_input || !have_output)
        return fail_setting(ld, s, "%s needs both input and output (micro-cents per million tokens)",
                            path);
    m->priced = 1;
    return SEAM_OK;
}

static int same_provider(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int load_model(loader *ld, const config_setting_t *s, const char *path)
{
    if (conf_expect_group(ld, s, path) != SEAM_OK)
        return ld->status;
    seam_conf_model m;
    memset(&m, 0, sizeof m);
    m.price_cache_read = m.price_cache_write = -1;
    m.from_catalog = ld->in_catalog;
    int rc = SEAM_OK;
    for (int i = 0; i < config_setting_length(s) && rc == SEAM_OK; i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *key = config_setting_name(e);
        char epath[PATH_MAX_LEN];
        conf_join_path(epath, path, key);
        if (strcmp(key, "id") == 0)
            rc = conf_read_string(ld, e, epath, &m.id);
        else if (strcmp(key, "provider") == 0)
            rc = conf_read_string(ld, e, epath, &m.provider);
        else if (strcmp(key, "context_window") == 0)
            rc = conf_read_int64(ld, e, epath, R_TOKENS, &m.context_window);
        else if (strcmp(key, "max_output_tokens") == 0)
            rc = conf_read_int64(ld, e, epath, R_TOKENS, &m.max_output_tokens);
        else if (strcmp(key, "capabilities") == 0)
            rc = load_capabilities(ld, &m, e, epath);
        else if (strcmp(key, "outputs") == 0)
            rc = load_outputs(ld, &m, e, epath);
        else if (strcmp(key, "price") == 0)
            rc = load_price(ld, &m, e, epath);
        else
            rc = conf_fail_unknown(ld, e, path, model_keys);
    }
    if (rc == SEAM_OK && !m.id)
        rc = fail_setting(ld, s, "%s has no id", path);
    seam_conf *c = ld->conf;
    int keep = rc == SEAM_OK;
    for (size_t i = 0; keep && i < c->n_models; i++) {
        const seam_conf_model *o = &c->models[i];
        if (strcmp(o->id, m.id) != 0 || !same_provider(o->provider, m.provider))
            continue;
        if (o->from_catalog == m.from_catalog && i < ld->base_models) {
            /* The personal conf's entry replaces the system conf's. */
            free(c->models[i].id);
            free(c->models[i].provider);
            free(c->models[i].file);
            conf_remove_at(c->models, &c->n_models, i, sizeof *c->models);
            ld->base_models--;
            i--;
            continue;
        }
        if (o->from_catalog == m.from_catalog) {
            rc = fail_setting(ld, s, "model \"%s\"%s%s already defined in %s:%d", m.id,
                              m.provider ? " of provider " : "", m.provider ? m.provider : "",
                              o->file, o->line);
        }
        keep = 0; /* the user's entry overrides the catalog's */
    }
    if (keep) {
        m.file = strdup(conf_setting_file(ld, s));
        m.line = conf_setting_line(s);
        if (!m.file || conf_grow((void **)&c->models, &ld->cap_models, c->n_models, sizeof *c->models) != SEAM_OK) {
            rc = conf_fail_nomem(ld);
        } else {
            c->models[c->n_models++] = m;
            return SEAM_OK;
        }
    }
    free(m.id);
    free(m.provider);
    free(m.file);
    return rc;
}

int conf_load_models(loader *ld, const config_setting_t *s)
{
    if (config_setting_type(s) != CONFIG_TYPE_LIST)
        return conf_fail_type(ld, s, "models", "a list of models ( { id = ...; ... } )");
    for (int i = 0; i < config_setting_length(s); i++) {
        char path[PATH_MAX_LEN];
        snprintf(path, sizeof path, "models[%d]", i);
        if (load_model(ld, config_setting_get_elem(s, (unsigned)i), path) != SEAM_OK)
            return ld->status;
    }
    return SEAM_OK;
}

int conf_load_model_catalog_key(loader *ld, const config_setting_t *s)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return conf_fail_type(ld, s, "model_catalog", "a string");
    const char *v = config_setting_get_string(s);
    free(ld->conf->model_catalog);
    ld->conf->model_catalog = NULL;
    ld->catalog_disabled = !v || !*v;
    if (ld->catalog_disabled)
        return SEAM_OK;
    ld->conf->model_catalog = conf_resolve_path(ld, v);
    free(ld->catalog_named_in);
    ld->catalog_named_in = strdup(conf_setting_file(ld, s));
    ld->catalog_named_line = conf_setting_line(s);
    return ld->conf->model_catalog && ld->catalog_named_in ? SEAM_OK : conf_fail_nomem(ld);
}
