/* catalog.c — what the chain runner knows about a model before and after
 * calling it: whether it can serve a request (the capabilities the request
 * needs — tools, vision, structured output, reasoning — and a rough estimate
 * of its input against the model's context window), and what an attempt cost
 * (its usage priced in integer micro-cents from the model catalog). The
 * catalog itself (conf/models.conf and the user's `models` entries) is read by
 * config.c. Capabilities come from the user's `models` entry, else the
 * plugin's optional `capabilities` member, else the shipped catalog: explicit
 * configuration beats the plugin's knowledge, which beats the shipped
 * defaults. A model nobody knows is never skipped, and never priced. */
#include "config.h"
#include "client.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

const seam_conf_model *seam_catalog_find(const seam_client *c, const seam_provider_slot *s,
                                         const char *model)
{
    if (!c || !s || !model)
        return NULL;
    return seam_conf_find_model(c->conf, s->conf->name, s->conf->plugin, model);
}

/* ---- what a request needs -------------------------------------------------------- */

typedef struct needs {
    int tools, vision, structured, reasoning;
    uint32_t inputs;  /* SEAM_MODALITY_* of the media parts */
    uint32_t outputs; /* the output modalities asked for */
} needs;

static needs request_needs(const seam_request *req)
{
    needs n = {0};
    n.tools = seam_request_tool_count(req) > 0;
    n.structured = seam_request_response_format(req, NULL, NULL, NULL) == SEAM_FORMAT_JSON;
    n.reasoning = seam_request_reasoning_budget(req) > 0;
    n.inputs = seam_media_request_inputs(req);
    n.outputs = seam_request_output_modalities(req);
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        const seam_message *m = seam_request_message(req, i);
        for (size_t j = 0; j < seam_message_part_count(m); j++) {
            const seam_part *p = seam_message_part(m, j);
            switch (seam_part_get_type(p)) {
            case SEAM_PART_TOOL_CALL:
            case SEAM_PART_TOOL_RESULT:
                /* A history with tool turns needs a model that speaks tools. */
                n.tools = 1;
                break;
            case SEAM_PART_MEDIA: {
                const char *mime = seam_part_mime_type(p);
                if (mime && strncmp(mime, "image/", 6) == 0)
                    n.vision = 1;
                break;
            }
            default:
                break;
            }
        }
    }
    return n;
}

/* n_output_combinations of a model whose outputs nobody stated. */
#define OUTPUTS_UNKNOWN UINT32_MAX

static void caps_from_entry(const seam_conf_model *m, seam_capabilities *caps)
{
    caps->tools = (m->capabilities & SEAM_CAP_TOOLS) != 0;
    caps->streaming = (m->capabilities & SEAM_CAP_STREAMING) != 0;
    caps->parallel_tool_calls = (m->capabilities & SEAM_CAP_PARALLEL_TOOL_CALLS) != 0;
    caps->vision = (m->capabilities & SEAM_CAP_VISION) != 0;
    caps->audio_input = (m->capabilities & SEAM_CAP_AUDIO_INPUT) != 0;
    caps->pdf_input = (m->capabilities & SEAM_CAP_PDF_INPUT) != 0;
    caps->prompt_cache = (m->capabilities & SEAM_CAP_PROMPT_CACHE) != 0;
    caps->reasoning = (m->capabilities & SEAM_CAP_REASONING) != 0;
    caps->structured_output = (m->capabilities & SEAM_CAP_STRUCTURED_OUTPUT) != 0;
    caps->video_input = (m->capabilities & SEAM_CAP_VIDEO_INPUT) != 0;
    caps->context_window = m->context_window;
    caps->max_output_tokens = m->max_output_tokens;
    for (uint32_t i = 0; i < m->n_outputs && i < 8; i++)
        caps->output_combinations[i] = m->outputs[i];
    caps->n_output_combinations = m->n_outputs;
    caps->embed = (m->capabilities & SEAM_CAP_EMBED) != 0;
}

/* The capabilities of model on slot s (m: its catalog entry or NULL): 1 with
 * *caps filled when anything is known. *embed_known (may be NULL) says whether
 * caps->embed is an answer: a plugin built before the member existed has
 * none to give. */
static int model_capabilities(const seam_provider_slot *s, const seam_conf_model *m,
                              const char *model, seam_capabilities *caps, int *embed_known)
{
    int dummy;
    if (!embed_known)
        embed_known = &dummy;
    *embed_known = 1;
    memset(caps, 0, sizeof *caps);
    caps->size = sizeof *caps;
    const int user_entry = m && !m->from_catalog;
    if (user_entry && m->has_capabilities) {
        caps_from_entry(m, caps);
        return 1;
    }
    if (s->vt && s->vt->capabilities && s->instance) {
        seam_capabilities got;
        memset(&got, 0, sizeof got);
        got.size = sizeof got;
        if (s->vt->capabilities(s->instance, model, &got) == SEAM_OK) {
            /* Only the members the plugin's struct had are its answer. */
            size_t n = got.size && got.size < sizeof got ? got.size : sizeof got;
            memcpy(caps, &got, n);
            caps->size = sizeof *caps;
            /* A plugin built before the media members says nothing of outputs. */
            if (n < offsetof(seam_capabilities, n_output_combinations) +
                        sizeof caps->n_output_combinations)
                caps->n_output_combinations = OUTPUTS_UNKNOWN;
            if (n < offsetof(seam_capabilities, embed) + sizeof caps->embed) {
                caps->embed = 0;
                *embed_known = 0;
                if (m && m->has_capabilities) { /* the catalog may know */
                    caps->embed = (m->capabilities & SEAM_CAP_EMBED) != 0;
                    *embed_known = 1;
                }
            }
            /* The user's window wins; the catalog's only fills a gap. */
            if (m && m->context_window > 0 && (user_entry || caps->context_window <= 0))
                caps->context_window = m->context_window;
            return 1;
        }
    }
    if (m && m->has_capabilities) {
        caps_from_entry(m, caps);
        return 1;
    }
    if (m && m->context_window > 0) {
        /* Only the window is known: no capability is held against the model. */
        caps->tools = caps->vision = caps->structured_output = caps->reasoning = 1;
        caps->audio_input = caps->pdf_input = caps->video_input = 1;
        /* Nothing known of its outputs either: not held against it. */
        caps->n_output_combinations = OUTPUTS_UNKNOWN;
        caps->context_window = m->context_window;
        *embed_known = 0;
        return 1;
    }
    *embed_known = 0;
    return 0;
}

/* "text+image" */
static const char *modality_set_name(uint32_t set)
{
    static const char *const names[] = {"text", "image", "audio", "video"};
    static _Thread_local char buf[32];
    buf[0] = '\0';
    for (int i = 0; i < 4; i++)
        if (set & (1u << i)) {
            if (buf[0])
                strcat(buf, "+");
            strcat(buf, names[i]);
        }
    return buf;
}

/* Membership in the model's closed set of output combinations; a model that
 * lists none emits text only. A plugin's struct too short to hold the
 * combinations says nothing about them: not held against the model. */
static int emits(const seam_capabilities *caps, uint32_t set)
{
    if (caps->n_output_combinations == OUTPUTS_UNKNOWN)
        return 1;
    for (uint32_t i = 0; i < caps->n_output_combinations && i < 8; i++)
        if (caps->output_combinations[i] == set)
            return 1;
    return 0;
}

int seam_catalog_embeds(const seam_client *c, const seam_provider_slot *s, const char *model)
{
    if (!c || !s || !model)
        return -1;
    const seam_conf_model *m = seam_catalog_find(c, s, model);
    seam_capabilities caps;
    int known = 0;
    if (!model_capabilities(s, m, model, &caps, &known) || !known)
        return -1;
    return caps.embed ? 1 : 0;
}

int seam_catalog_cannot_serve(const seam_client *c, const seam_provider_slot *s,
                              const char *model, const seam_request *req, seam_error *why)
{
    const seam_conf_model *m = seam_catalog_find(c, s, model);
    seam_capabilities caps;
    if (!model_capabilities(s, m, model, &caps, NULL))
        return 0;
    needs n = request_needs(req);
    const char *missing = n.tools && !caps.tools               ? "tools"
                          : n.vision && !caps.vision           ? "vision (image input)"
                          : (n.inputs & SEAM_MODALITY_AUDIO) && !caps.audio_input ? "audio input"
                          : (n.inputs & SEAM_MODALITY_VIDEO) && !caps.video_input ? "video input"
                          : (n.inputs & SEAM_MODALITY_DOCUMENT) && !caps.pdf_input
                              ? "document (PDF) input"
                          : n.structured && !caps.structured_output ? "structured output"
                          : n.reasoning && !caps.reasoning     ? "reasoning"
                                                               : NULL;
    char outputs_missing[96];
    if (!missing && n.outputs != SEAM_MODALITY_TEXT &&
        !emits(&caps, n.outputs)) {
        snprintf(outputs_missing, sizeof outputs_missing, "output modalities %s in one turn",
                 modality_set_name(n.outputs));
        missing = outputs_missing;
    }
    if (missing) {
        seam_error_set(why, SEAM_ERROR_BAD_REQUEST,
                       "model \"%s\" of provider \"%s\" lacks a capability the request needs: %s",
                       model, s->conf->name, missing);
        seam_strlcpy(why->code, "capability", sizeof why->code);
        return 1;
    }
    if (caps.context_window > 0) {
        /* The estimate over-counted real answers by up to 53% (doc/tokens.md):
         * the entry is skipped only when even the lowest count that estimate
         * allows (60% of it) is beyond the window, so no request the model
         * could have served is refused. */
        int64_t estimate = seam_estimate_tokens(req);
        if (estimate - estimate * 4 / 10 > caps.context_window) {
            seam_error_set(why, SEAM_ERROR_CONTEXT_OVERFLOW,
                           "the request (about %lld tokens) exceeds the context window of model "
                           "\"%s\" of provider \"%s\" (%lld tokens)",
                           (long long)estimate, model, s->conf->name,
                           (long long)caps.context_window);
            seam_strlcpy(why->code, "context_window", sizeof why->code);
            return 1;
        }
    }
    return 0;
}

/* ---- cost -------------------------------------------------------------------------- */

#define PER_MILLION 1000000

int seam_catalog_price(const seam_conf_model *m, seam_usage *u)
{
    const uint32_t counts = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT | SEAM_USAGE_CACHE_READ |
                            SEAM_USAGE_CACHE_WRITE;
    if (!u)
        return 0;
    u->present &= ~(uint32_t)SEAM_USAGE_COST;
    u->cost_microcents = 0;
    if (!m || !m->priced || !(u->present & counts))
        return 0;
    struct {
        uint32_t bit;
        int64_t tokens, price;
    } lines[] = {
        {SEAM_USAGE_INPUT, u->input_tokens, m->price_input},
        {SEAM_USAGE_OUTPUT, u->output_tokens, m->price_output},
        {SEAM_USAGE_CACHE_READ, u->cache_read_tokens,
         m->price_cache_read >= 0 ? m->price_cache_read : m->price_input},
        {SEAM_USAGE_CACHE_WRITE, u->cache_write_tokens,
         m->price_cache_write >= 0 ? m->price_cache_write : m->price_input},
    };
    /* tokens × price / 1e6 in integers without overflow: whole millions of
     * tokens first, then the remainders summed and rounded once, half up.
     * Reasoning tokens are part of output_tokens and not billed again. */
    int64_t whole = 0, rest = 0;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        if (!(u->present & lines[i].bit) || lines[i].tokens <= 0 || lines[i].price <= 0)
            continue;
        whole += lines[i].tokens / PER_MILLION * lines[i].price;
        rest += lines[i].tokens % PER_MILLION * lines[i].price;
    }
    u->cost_microcents = whole + (rest + PER_MILLION / 2) / PER_MILLION;
    u->present |= SEAM_USAGE_COST;
    return 1;
}
