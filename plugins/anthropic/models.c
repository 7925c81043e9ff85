/* models.c — the anthropic plugin's model knowledge: the table of Claude
 * model families (context window, output limit, capability flags and the
 * request rules each family imposes), the lookup of a model id's family, the
 * conf's capability overrides (options capabilities and models), and the
 * default max_tokens per model. encode.c applies the rules.
 *
 * Unknown keys are ignored (a conf may be shared by several plugin versions).
 *
 * Per model family (the table below says which family has which rule; an
 * unknown Claude id gets the newest, strictest rules), from Anthropic's model
 * pages and migration guides:
 *  - Thinking. Families up to 4.6 take {enabled, budget_tokens} (4.6 also
 *    {adaptive}) and think only when asked. Opus 4.7 and 4.8 take {adaptive}
 *    only: a budget or "enabled" becomes {adaptive}. Opus 5, Sonnet 5 and
 *    Haiku 5.5 think when `thinking` is omitted; "disabled" sends {disabled}
 *    (Opus 5 and Haiku 5.5 accept it only at effort high or below: a
 *    bad_request otherwise). Opus 5.5 and Fable/Mythos always think: "disabled"
 *    sends no thinking field and effort "low" unless an effort is set (the
 *    guides' advice). Sonnet 5.5 rejects {disabled}: "disabled" sends its
 *    lowest setting, {between_tools} (effort high or below).
 *  - Forced tool choice is a 400 on Opus 5.5, Sonnet 5.5, Fable 5.1 and
 *    Mythos 5.1. There a required or named tool choice is sent as
 *    {type: auto} with a sentence appended to the system prompt asking for
 *    the tool ("Answer by calling the get_weather tool."), the replacement the
 *    migration guides give; forced_tool = "reject" fails it before sending
 *    instead. The "json" tool (a JSON answer without a usable schema) is
 *    always asked for that way there. Haiku 5.5, Opus 5, Sonnet 5 and Fable 5
 *    accept forced tools (the call then comes without thinking).
 *  - Sampling: Opus 4.7 and later reject non-default temperature, top_p and
 *    top_k, so none is sent there (nor to any model at anthropic_version
 *    2026-10-21 and later, which removed them: encode.c).
 *  - max_tokens: when none is given, the model's limit capped at 16384, or at
 *    64000 at effort xhigh or max (the guides' starting point there).
 *  - Betas those families made the default or never needed (interleaved-
 *    thinking, context-1m, effort, output-128k, token-efficient-tools) are not
 *    sent to them, so a conf written for older models stays valid.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* A cap on the default max_tokens: the API estimates output-token rate limits
 * from max_tokens up front, so asking for a model's whole 64k by default would
 * throttle callers that never use it. */
#define DEFAULT_MAX_TOKENS_CAP 16384
/* The default at effort xhigh or max, where the migration guides for Opus 5.5
 * and Fable 5.1 say to "start at 64k tokens" so the model has room to think. */
#define HIGH_EFFORT_MAX_TOKENS 64000

/* ==== capability flags per model family ==================================== */


/* Known families, from Anthropic's model pages, "What's new" pages and
 * migration guides (Opus 5.5, Sonnet 5.5, Haiku 5.5, Fable 5.1; read 2026-11):
 *  - context window / max output: each model's overview page. 4.6 and later:
 *    1M / 128K with no beta header.
 *  - thinking: Opus 4.7+ take no budget ("thinking.type.enabled" is not
 *    supported); Opus 5, Sonnet 5 and Haiku 5.5 think by default and accept
 *    {disabled} (Opus 5 and Haiku 5.5 only at effort high or below); Opus 5.5
 *    and Fable/Mythos always think; Sonnet 5.5 rejects {disabled} and offers
 *    {between_tools} (effort high or below) as its lowest setting.
 *  - forced tool choice: a 400 on Opus 5.5, Sonnet 5.5, Fable 5.1 and Mythos
 *    5.1 ("tool_choice: type \"tool\" and \"any\" are not supported for this
 *    model"); Haiku 5.5, Opus 5, Sonnet 5 and Fable 5 still accept it.
 *  - sampling: Opus 4.7 and every later model reject non-default temperature,
 *    top_p and top_k.
 *  - every active model takes images and PDFs and has prompt caching (5m and
 *    1h TTLs; minimum cacheable prompt 512 tokens on Opus 5/5.5, Sonnet 5.5,
 *    Haiku 5.5 and Fable; 1,024 on Opus 4.8 and Sonnet 5; the API caches
 *    nothing below it and says nothing, so the codec does not check it).
 * A Claude id not listed (a newer model) gets `modern_family`: the rules of
 * the newest models, the strictest ones, so that a request to it is one the
 * API accepts; the conf can say otherwise (capabilities and models options). */
#define MEDIA .vision = 1, .pdf_input = 1, .prompt_cache = 1
#define CURRENT .reasoning = 1, MEDIA, .structured_output = 1
#define GEN_4_7_ON CURRENT, .rejects_sampling = 1
static const model_family families[] = {
    { "claude-instant-1", 100000, 4096, .thinking = THINKING_NONE },
    { "claude-2", 100000, 4096, .thinking = THINKING_NONE },
    { "claude-2.1", 200000, 4096, .thinking = THINKING_NONE },
    { "claude-3-haiku", 200000, 4096, .vision = 1, .prompt_cache = 1 },
    { "claude-3-sonnet", 200000, 4096, .vision = 1, .prompt_cache = 1 },
    { "claude-3-opus", 200000, 4096, .vision = 1, .prompt_cache = 1 },
    { "claude-3-5-haiku", 200000, 8192, MEDIA },
    { "claude-3-5-sonnet", 200000, 8192, MEDIA },
    { "claude-3-7-sonnet", 200000, 64000, .reasoning = 1, MEDIA, .thinking = THINKING_BUDGET },
    { "claude-sonnet-4", 200000, 64000, .reasoning = 1, MEDIA, .thinking = THINKING_BUDGET },
    { "claude-opus-4", 200000, 32000, .reasoning = 1, MEDIA, .thinking = THINKING_BUDGET },
    { "claude-opus-4-1", 200000, 32000, .reasoning = 1, MEDIA, .thinking = THINKING_BUDGET },
    { "claude-sonnet-4-5", 200000, 64000, CURRENT, .thinking = THINKING_BUDGET },
    { "claude-haiku-4-5", 200000, 64000, CURRENT, .thinking = THINKING_BUDGET },
    { "claude-opus-4-5", 200000, 64000, CURRENT, .thinking = THINKING_BUDGET },
    { "claude-sonnet-4-6", 1000000, 128000, CURRENT, .thinking = THINKING_BUDGET_OR_ADAPTIVE },
    { "claude-opus-4-6", 1000000, 128000, CURRENT, .thinking = THINKING_BUDGET_OR_ADAPTIVE },
    { "claude-opus-4-7", 1000000, 128000, GEN_4_7_ON, .thinking = THINKING_ADAPTIVE },
    { "claude-opus-4-8", 1000000, 128000, GEN_4_7_ON, .thinking = THINKING_ADAPTIVE },
    { "claude-opus-5", 1000000, 128000, GEN_4_7_ON, .thinking = THINKING_DEFAULT_ON,
      .off_at_high_or_below = 1 },
    { "claude-sonnet-5", 1000000, 128000, GEN_4_7_ON, .thinking = THINKING_DEFAULT_ON },
    { "claude-fable-5", 1000000, 128000, GEN_4_7_ON, .thinking = THINKING_ALWAYS_ON },
    { "claude-mythos-5", 1000000, 128000, GEN_4_7_ON, .thinking = THINKING_ALWAYS_ON },
    { "claude-fable-5-1", 1000000, 128000, GEN_4_7_ON, .thinking = THINKING_ALWAYS_ON,
      .rejects_forced_tool = 1 },
    { "claude-mythos-5-1", 1000000, 128000, GEN_4_7_ON, .thinking = THINKING_ALWAYS_ON,
      .rejects_forced_tool = 1 },
    { "claude-opus-5-5", 1000000, 128000, GEN_4_7_ON, .thinking = THINKING_ALWAYS_ON,
      .rejects_forced_tool = 1 },
    { "claude-sonnet-5-5", 1000000, 128000, GEN_4_7_ON, .thinking = THINKING_ALWAYS_ON,
      .rejects_forced_tool = 1, .between_tools = 1, .off_at_high_or_below = 1 },
    { "claude-haiku-5-5", 1000000, 128000, GEN_4_7_ON, .thinking = THINKING_DEFAULT_ON,
      .off_at_high_or_below = 1 },
};
static const model_family modern_family = { NULL, 1000000, 128000, GEN_4_7_ON,
                                            .thinking = THINKING_ALWAYS_ON,
                                            .rejects_forced_tool = 1 };
#undef MEDIA
#undef CURRENT
#undef GEN_4_7_ON

/* Strips a cloud prefix ("anthropic.", "us.anthropic." on Bedrock). */
static const char *model_base_id(const char *model)
{
    const char *p = strstr(model, "anthropic.");
    return p ? p + strlen("anthropic.") : model;
}

/* 1 when `id` is `prefix` itself or `prefix` followed by a version tag: a
 * "-YYYYMMDD" date, "-latest", "-v1:0" (Bedrock), "@date" (Vertex) or ":n".
 * So "claude-opus-4" matches "claude-opus-4-20250514" but not "claude-opus-4-7",
 * and "claude-opus-5" does not match "claude-opus-5-5". */
static int family_matches(const char *prefix, const char *id)
{
    size_t n = strlen(prefix);
    if (strncmp(id, prefix, n) != 0)
        return 0;
    const char *rest = id + n;
    if (!*rest || *rest == '@' || *rest == ':')
        return 1;
    if (*rest != '-')
        return 0;
    rest++;
    if (strncmp(rest, "latest", 6) == 0)
        return 1;
    if (rest[0] == 'v' && isdigit((unsigned char)rest[1]))
        return 1;
    size_t digits = 0;
    while (isdigit((unsigned char)rest[digits]))
        digits++;
    return digits >= 8;
}

static const model_family *family_of(const char *model)
{
    const char *id = model_base_id(model ? model : "");
    const model_family *best = NULL;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        if (family_matches(families[i].prefix, id) &&
            (!best || strlen(families[i].prefix) > strlen(best->prefix)))
            best = &families[i];
    }
    return best ? best : &modern_family;
}


static int want_flag(json_object *val, const char *key, unsigned *out, char *why, size_t whysize)
{
    if (!json_object_is_type(val, json_type_boolean) && !json_object_is_type(val, json_type_int)) {
        snprintf(why, whysize, "capability %s must be a boolean", key);
        return -1;
    }
    *out = json_object_get_boolean(val) ? 1u : 0u;
    return 0;
}

/* Applies one `capabilities` group. -1 with `why` filled for a wrong type. */
static int caps_apply_override(model_info *mi, json_object *o, char *why, size_t whysize)
{
    seam_capabilities *c = &mi->caps;
    if (!json_object_is_type(o, json_type_object)) {
        snprintf(why, whysize, "capabilities must be a group");
        return -1;
    }
    json_object_object_foreach(o, key, val)
    {
        unsigned on = 0;
        if (!strcmp(key, "context_window") || !strcmp(key, "max_output_tokens")) {
            if (!json_object_is_type(val, json_type_int) || json_object_get_int64(val) < 0) {
                snprintf(why, whysize, "capability %s must be a non-negative integer", key);
                return -1;
            }
            if (!strcmp(key, "context_window"))
                c->context_window = json_object_get_int64(val);
            else
                c->max_output_tokens = json_object_get_int64(val);
            continue;
        }
#define FLAG(name, lvalue)                                                \
    if (!strcmp(key, name)) {                                             \
        if (want_flag(val, key, &on, why, whysize) != 0)                  \
            return -1;                                                    \
        lvalue = on;                                                      \
        continue;                                                         \
    }
        FLAG("tools", c->tools)
        FLAG("streaming", c->streaming)
        FLAG("parallel_tool_calls", c->parallel_tool_calls)
        FLAG("vision", c->vision)
        FLAG("audio_input", c->audio_input)
        FLAG("pdf_input", c->pdf_input)
        FLAG("prompt_cache", c->prompt_cache)
        FLAG("reasoning", c->reasoning)
        FLAG("structured_output", c->structured_output)
        /* This plugin's own: the request rules a newer snapshot may change. */
        FLAG("forced_tool_choice", mi->forced_tool_choice)
        FLAG("sampling", mi->sampling)
#undef FLAG
    }
    return 0;
}

/* 1 when the options' beta list (a list or a comma-separated string) holds a
 * name starting with `prefix`. */
static int options_enable_beta(json_object *options, const char *prefix)
{
    json_object *beta = member(options, "beta", json_type_null);
    if (!beta)
        return 0;
    if (json_object_is_type(beta, json_type_string))
        return strstr(json_object_get_string(beta), prefix) != NULL;
    if (!json_object_is_type(beta, json_type_array))
        return 0;
    for (size_t i = 0; i < json_object_array_length(beta); i++) {
        json_object *e = json_object_array_get_idx(beta, i);
        if (json_object_is_type(e, json_type_string) &&
            strncmp(json_object_get_string(e), prefix, strlen(prefix)) == 0)
            return 1;
    }
    return 0;
}

/* The capabilities of `model`: its family, then options.capabilities, then the
 * longest options.models prefix matching the model. */
int anthropic_model_capabilities(json_object *options, const char *model, model_info *mi,
                              char *why, size_t whysize)
{
    const model_family *f = family_of(model);
    seam_capabilities *c = &mi->caps;
    memset(mi, 0, sizeof *mi);
    mi->family = f;
    mi->forced_tool_choice = !f->rejects_forced_tool;
    mi->sampling = !f->rejects_sampling;
    c->size = sizeof *c;
    c->tools = 1;
    c->streaming = 1;
    c->parallel_tool_calls = 1;
    c->vision = f->vision;
    c->pdf_input = f->pdf_input;
    c->prompt_cache = f->prompt_cache;
    c->reasoning = f->reasoning;
    c->structured_output = 1; /* natively or through the "json" tool */
    c->context_window = f->context_window;
    c->max_output_tokens = f->max_output_tokens;
    /* The 1M-token context beta (context-1m-*) in the conf widens the window,
     * so the core does not refuse a prompt the API would take. */
    if (options_enable_beta(options, "context-1m") && c->context_window < 1000000)
        c->context_window = 1000000;

    json_object *all = member(options, "capabilities", json_type_null);
    if (all && caps_apply_override(mi, all, why, whysize) != 0)
        return -1;
    json_object *models = member(options, "models", json_type_null);
    if (models) {
        if (!json_object_is_type(models, json_type_object)) {
            snprintf(why, whysize, "models must be a group of model-id prefixes");
            return -1;
        }
        json_object *best = NULL;
        size_t best_len = 0;
        json_object_object_foreach(models, key, val)
        {
            size_t n = strlen(key);
            if (model && strncmp(model, key, n) == 0 && (!best || n > best_len)) {
                best = val;
                best_len = n;
            }
        }
        if (best && caps_apply_override(mi, best, why, whysize) != 0)
            return -1;
    }
    return 0;
}

/* 1 for the effort levels above "high" (xhigh, max). */
int anthropic_effort_above_high(const char *effort)
{
    return str_eq(effort, "xhigh") || str_eq(effort, "max");
}

/* The max_tokens sent when neither the request nor the options give one:
 * the model's limit, capped (see DEFAULT_MAX_TOKENS_CAP). At effort xhigh or
 * max the migration guides say to start at 64k, because max_tokens covers the
 * thinking as well as the answer. */
int64_t anthropic_default_max_tokens(const seam_capabilities *c, const char *effort)
{
    int64_t cap = anthropic_effort_above_high(effort) ? HIGH_EFFORT_MAX_TOKENS : DEFAULT_MAX_TOKENS_CAP;
    int64_t mt = c->max_output_tokens > 0 ? c->max_output_tokens : 4096;
    return mt > cap ? cap : mt;
}

