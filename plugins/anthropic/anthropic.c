/* anthropic.c — the Anthropic provider plugin (provider id "anthropic"): a codec
 * for the Messages API, `POST {base_url}/messages` (default base
 * https://api.anthropic.com/v1), streamed (SSE) or not.
 *
 * This file owns, for that one wire:
 *  - the provider options (conf `options = { ... }` and a request's provider
 *    options) listed below, and their validation;
 *  - the capability flags of each Claude model family, overridable in the conf;
 *  - encode: a seam request -> URL, headers and JSON body;
 *  - decode: SSE events, or a whole message body, -> seam chunks. Both go through
 *    the same content-block state machine, so a whole response gives exactly
 *    the chunks its stream would have given;
 *  - classify_error: an error answer (or an `error` event inside a 200 stream)
 *    -> a classified seam_error, keeping the rate-limit headers.
 * It does no I/O: the core sends, frames, times out, cancels and retries.
 *
 * Options (a request's provider options win over the conf's, key by key,
 * except capabilities, models and a context-1m beta's wider window, which
 * are read from the conf only; doc/providers.md has the full reference):
 *   anthropic_version = "2023-06-01";   the anthropic-version header
 *   beta = [ "interleaved-thinking-2025-05-14" ];
 *                                       the anthropic-beta header: a list, or one
 *                                       comma-separated string; the conf's and the
 *                                       request's betas are both sent
 *   auth = "x-api-key" | "bearer";      how the credential travels (x-api-key)
 *   cache = "none" | "auto" | bool;     prompt-cache strategy, default "none";
 *                                       cache_strategy = "none" | "system_and_3" |
 *                                       "prefix_and_2" (the session's spelling)
 *                                       sets the same thing.
 *                                       "auto" puts cache_control {type: ephemeral}
 *                                       on the system prompt and on the last block
 *                                       of each of the last three user messages:
 *                                       four breakpoints, the API's maximum. A
 *                                       model without prompt_cache gets none.
 *   cache_ttl = "5m" | "1h";            breakpoint lifetime (default: the API's)
 *   thinking = "enabled" | "adaptive" | "disabled";
 *   thinking_budget = 4096;             budget when the request gives none (0: off)
 *   thinking_display = "summarized" | "omitted" | "updates";
 *                                       thinking.display with adaptive thinking
 *                                       (Opus 4.7 on; their default is "omitted":
 *                                       signed blocks with empty text); "updates"
 *                                       adds its beta header
 *   max_tokens = 8192;                  when the request gives none (else per model)
 *   top_k = 40; top_p = 0.9; metadata = { user_id = "..."; }; service_tier = "auto";
 *                                       sent as given (sampling: see below)
 *   effort = "low" | "medium" | "high" | "xhigh" | "max";  output_config.effort
 *   disable_parallel_tool_use = true;   inside tool_choice
 *   forced_tool = "prompt" | "reject";  a forced tool choice on a model that
 *                                       rejects it: auto plus a system-prompt
 *                                       line (default), or a bad_request
 *   strict_tools = true;                mark the caller's tools strict (their
 *                                       schemas must fit strict tool use)
 *   structured_output = "native" | "tool";  how a JSON answer is asked for
 *                                       (default: native where the family has it)
 *   capabilities = { context_window = 1000000; reasoning = false; ... };
 *                                       overrides for every model; besides the
 *                                       core's flags, forced_tool_choice and
 *                                       sampling (booleans) change the rules below
 *   models = { claude-sonnet-4-5 = { context_window = 1000000; }; };
 *                                       overrides per model-id prefix (longest wins)
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
 *    top_k, so none is sent there.
 *  - max_tokens: when none is given, the model's limit capped at 16384, or at
 *    64000 at effort xhigh or max (the guides' starting point there).
 *  - Betas those families made the default or never needed (interleaved-
 *    thinking, context-1m, effort, output-128k, token-efficient-tools) are not
 *    sent to them, so a conf written for older models stays valid.
 *
 * Choices the API forces on us, each applied silently because the request is
 * still meaningful without the dropped part:
 *  - Extended thinking cannot be combined with a forced tool (tool_choice
 *    any/tool), a temperature or top_k: a forced tool or a JSON-by-tool answer
 *    is a hard requirement of the caller, a reasoning budget only a hint, so
 *    thinking is dropped then; with thinking on, temperature and top_k are not sent.
 *  - max_tokens counts thinking tokens: a max_tokens not above the budget gets
 *    the budget added, so the budget never eats the whole answer (on the
 *    adaptive families too, where the caller's budget is room to think).
 *  - A tool loop continued with thinking on must replay the turn's thinking
 *    block first; a turn without one (stripped on a failover) is continued
 *    with thinking off for that request, as the API's documentation advises.
 *  - Reasoning parts are replayed only when Anthropic can verify them: with a
 *    signature (thinking) or as redacted data; any other reasoning (another
 *    provider's) is dropped. Provider-executed tool calls and results (server
 *    tools) are not replayed: the API accepts a turn without them.
 *  - Structured output uses output_config.format (json_schema) where the model
 *    supports it and a schema is given; otherwise a tool named "json" whose
 *    input is the answer (forced, or asked for where forcing is rejected),
 *    decoded back into plain text.
 *  - Stop reasons: refusal (safety classifiers, with stop_details in
 *    message_delta) is content_filter; model_context_window_exceeded is
 *    length. The text between tool calls that Opus/Sonnet 5.5 and Fable return
 *    as thinking blocks (empty at the default display) decodes as reasoning,
 *    signature kept, and is replayed unchanged as the API requires.
 *
 * Decoding: the stop chunk is emitted at message_stop with message_start's
 * usage overridden by every count message_delta gives. Server-side tools
 * (server_tool_use, mcp_tool_use) are never client tool calls: their
 * *_tool_result blocks become provider-executed tool_result chunks. An `error`
 * event is returned as a classified error (overloaded_error and api_error are
 * retryable). Content already inside message_start is folded in, and a
 * message_start after message_stop (recordings holding several messages)
 * continues the stream with the next message.
 */
#include "config.h"

#include <seam/plugin.h>

#include <json-c/json.h>

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/codec_util.h"
#include "../common/json_scan.h"

#define ANTHROPIC_DEFAULT_BASE_URL "https://api.anthropic.com/v1"
#define ANTHROPIC_DEFAULT_VERSION "2023-06-01"
#define JSON_TOOL_NAME "json"
/* The API refuses budgets below this. */
#define THINKING_MIN_BUDGET 1024
#define THINKING_DEFAULT_BUDGET 4096
/* A cap on the default max_tokens: the API estimates output-token rate limits
 * from max_tokens up front, so asking for a model's whole 64k by default would
 * throttle callers that never use it. */
#define DEFAULT_MAX_TOKENS_CAP 16384
/* The default at effort xhigh or max, where the migration guides for Opus 5.5
 * and Fable 5.1 say to "start at 64k tokens" so the model has room to think. */
#define HIGH_EFFORT_MAX_TOKENS 64000
/* The beta that lets thinking.display be "updates" (progress updates only). */
#define THINKING_UPDATES_BETA "thinking-display-updates-2026-08-18"
/* A content-block index past this is treated as garbage, not as a size to allocate. */
#define MAX_BLOCK_INDEX 4096


/* ==== small helpers (the shared ones are in ../common/codec_util.c) ======== */

static json_object *parse_json_str(const char *text)
{
    return text ? json_parse_strict(text, strlen(text)) : NULL;
}

/* Borrowed member `key` of object o when it has type t (json_type_null: any
 * non-null value). */
static json_object *member(json_object *o, const char *key, json_type t)
{
    json_object *v = jget(o, key);
    return t == json_type_null || jis(v, t) ? v : NULL;
}

static int str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* json-c adds take ownership of the value even on failure in 0.16; these wrap
 * them so a NULL value (allocation failure) is reported, not stored. */
static int obj_add(json_object *o, const char *key, json_object *v)
{
    if (!v)
        return SEAM_ERR_NOMEM;
    if (json_object_object_add(o, key, v) != 0) {
        json_object_put(v);
        return SEAM_ERR_NOMEM;
    }
    return SEAM_OK;
}

static int arr_add(json_object *a, json_object *v)
{
    if (!v)
        return SEAM_ERR_NOMEM;
    if (json_object_array_add(a, v) != 0) {
        json_object_put(v);
        return SEAM_ERR_NOMEM;
    }
    return SEAM_OK;
}

static int obj_add_str(json_object *o, const char *key, const char *s)
{
    return obj_add(o, key, json_object_new_string(s ? s : ""));
}

/* ==== capability flags per model family ==================================== */

/* How a family takes the `thinking` request field. */
typedef enum thinking_style {
    THINKING_NONE = 0,    /* no extended thinking */
    THINKING_BUDGET,      /* {enabled, budget_tokens} only; off unless asked for */
    THINKING_BUDGET_OR_ADAPTIVE, /* 4.6: both (budgets deprecated); off unless asked for */
    THINKING_ADAPTIVE,    /* 4.7, 4.8: {adaptive} only, a budget is a 400; off unless asked */
    THINKING_DEFAULT_ON,  /* adaptive runs when `thinking` is omitted; {disabled} accepted */
    THINKING_ALWAYS_ON    /* adaptive always runs; {disabled} and {enabled} are 400s */
} thinking_style;

typedef struct model_family {
    const char *prefix; /* matches the id itself or the id followed by a date/tag */
    int64_t context_window;
    int64_t max_output_tokens;
    unsigned reasoning : 1;
    unsigned vision : 1;
    unsigned pdf_input : 1;
    unsigned prompt_cache : 1;
    unsigned structured_output : 1; /* native output_config.format */
    unsigned thinking : 3;           /* thinking_style */
    /* The rules below are zero for the families that predate them, so an old
     * row written without them keeps its old behavior. */
    unsigned rejects_forced_tool : 1; /* tool_choice any/tool is a 400 */
    unsigned rejects_sampling : 1;    /* non-default temperature/top_p/top_k are 400s */
    unsigned off_at_high_or_below : 1; /* thinking goes off only at effort high or below */
    unsigned between_tools : 1;       /* the lowest setting is {between_tools}, not {disabled} */
} model_family;

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

/* What encode needs to know of a model: the flags the core sees, and the
 * request rules of its family (two of which the conf can override). */
typedef struct model_info {
    seam_capabilities caps;
    const model_family *family;
    unsigned forced_tool_choice : 1; /* tool_choice any/tool accepted */
    unsigned sampling : 1;           /* temperature/top_p/top_k accepted */
} model_info;

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
static int model_capabilities(json_object *options, const char *model, model_info *mi,
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
static int effort_above_high(const char *effort)
{
    return str_eq(effort, "xhigh") || str_eq(effort, "max");
}

/* The max_tokens sent when neither the request nor the options give one:
 * the model's limit, capped (see DEFAULT_MAX_TOKENS_CAP). At effort xhigh or
 * max the migration guides say to start at 64k, because max_tokens covers the
 * thinking as well as the answer. */
static int64_t default_max_tokens(const seam_capabilities *c, const char *effort)
{
    int64_t cap = effort_above_high(effort) ? HIGH_EFFORT_MAX_TOKENS : DEFAULT_MAX_TOKENS_CAP;
    int64_t mt = c->max_output_tokens > 0 ? c->max_output_tokens : 4096;
    return mt > cap ? cap : mt;
}

/* ==== options ================================================================ */

enum { THINK_DEFAULT = 0, THINK_ENABLED, THINK_ADAPTIVE, THINK_DISABLED };
enum { SO_DEFAULT = 0, SO_NATIVE, SO_TOOL };
enum { FORCED_PROMPT = 0, FORCED_REJECT };

/* The effective options of one call. Strings and JSON values are borrowed from
 * the option objects they came from (alive for the whole encode). */
typedef struct settings {
    const char *version;
    strbuf beta; /* comma-joined, owned */
    int bearer;
    int cache_auto;
    const char *cache_ttl;
    int thinking_mode;
    int64_t thinking_budget;
    int64_t max_tokens;
    json_object *top_k, *top_p, *metadata, *service_tier;
    const char *effort;
    int disable_parallel_tool_use;
    int structured_mode; /* SO_DEFAULT, SO_NATIVE, SO_TOOL */
    int forced_tool;     /* FORCED_PROMPT, FORCED_REJECT */
    const char *thinking_display;
    int strict_tools;
} settings;

static int settings_add_beta(settings *s, const char *list)
{
    /* Adds each comma-separated name once. */
    const char *p = list;
    while (*p) {
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        const char *start = p;
        while (*p && *p != ',')
            p++;
        const char *end = p;
        while (end > start && isspace((unsigned char)end[-1]))
            end--;
        size_t n = (size_t)(end - start);
        if (!n)
            continue;
        int seen = 0;
        for (const char *q = s->beta.data; q && *q && !seen;) {
            const char *qe = strchr(q, ',');
            size_t qn = qe ? (size_t)(qe - q) : strlen(q);
            seen = qn == n && strncmp(q, start, n) == 0;
            q = qe ? qe + 1 : q + qn;
        }
        if (seen)
            continue;
        if ((s->beta.len && sb_append(&s->beta, ",", 1) != SEAM_OK) ||
            sb_append(&s->beta, start, n) != SEAM_OK)
            return SEAM_ERR_NOMEM;
    }
    return SEAM_OK;
}

static int want_string(json_object *v, const char *key, char *why, size_t whysize)
{
    if (json_object_is_type(v, json_type_string))
        return 0;
    snprintf(why, whysize, "option %s must be a string", key);
    return -1;
}

static int want_count(json_object *v, const char *key, int64_t *out, char *why, size_t whysize)
{
    if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0) {
        *out = json_object_get_int64(v);
        return 0;
    }
    snprintf(why, whysize, "option %s must be a non-negative integer", key);
    return -1;
}

/* Applies one options object over s. -1 with `why` for a bad value,
 * SEAM_ERR_NOMEM on allocation failure. */
static int settings_apply(settings *s, json_object *o, char *why, size_t whysize)
{
    if (!o)
        return 0;
    if (!json_object_is_type(o, json_type_object)) {
        snprintf(why, whysize, "provider options must be a JSON object");
        return -1;
    }
    json_object_object_foreach(o, key, v)
    {
        if (!v)
            continue;
        if (!strcmp(key, "anthropic_version")) {
            if (want_string(v, key, why, whysize))
                return -1;
            s->version = json_object_get_string(v);
        } else if (!strcmp(key, "beta")) {
            if (json_object_is_type(v, json_type_string)) {
                if (settings_add_beta(s, json_object_get_string(v)) != SEAM_OK)
                    return SEAM_ERR_NOMEM;
            } else if (json_object_is_type(v, json_type_array)) {
                for (size_t i = 0; i < json_object_array_length(v); i++) {
                    json_object *e = json_object_array_get_idx(v, i);
                    if (!json_object_is_type(e, json_type_string)) {
                        snprintf(why, whysize, "option beta must list strings");
                        return -1;
                    }
                    if (settings_add_beta(s, json_object_get_string(e)) != SEAM_OK)
                        return SEAM_ERR_NOMEM;
                }
            } else {
                snprintf(why, whysize, "option beta must be a string or a list of strings");
                return -1;
            }
        } else if (!strcmp(key, "auth")) {
            if (want_string(v, key, why, whysize))
                return -1;
            const char *a = json_object_get_string(v);
            if (!strcmp(a, "bearer"))
                s->bearer = 1;
            else if (!strcmp(a, "x-api-key"))
                s->bearer = 0;
            else {
                snprintf(why, whysize, "option auth must be \"x-api-key\" or \"bearer\"");
                return -1;
            }
        } else if (!strcmp(key, "cache")) {
            if (json_object_is_type(v, json_type_boolean)) {
                s->cache_auto = json_object_get_boolean(v);
            } else if (json_object_is_type(v, json_type_string) &&
                       (!strcmp(json_object_get_string(v), "auto") ||
                        !strcmp(json_object_get_string(v), "none"))) {
                s->cache_auto = !strcmp(json_object_get_string(v), "auto");
            } else {
                snprintf(why, whysize, "option cache must be \"none\" or \"auto\"");
                return -1;
            }
        } else if (!strcmp(key, "cache_strategy")) {
            /* The session's provider-neutral spelling: both strategies place
             * breakpoints after the system prompt and on the latest turns,
             * which is what "auto" does here. */
            if (want_string(v, key, why, whysize))
                return -1;
            const char *cs = json_object_get_string(v);
            if (!strcmp(cs, "none"))
                s->cache_auto = 0;
            else if (!strcmp(cs, "system_and_3") || !strcmp(cs, "prefix_and_2"))
                s->cache_auto = 1;
            else {
                snprintf(why, whysize, "option cache_strategy must be \"none\", \"system_and_3\" or \"prefix_and_2\"");
                return -1;
            }
        } else if (!strcmp(key, "cache_ttl")) {
            if (want_string(v, key, why, whysize))
                return -1;
            const char *t = json_object_get_string(v);
            if (strcmp(t, "5m") && strcmp(t, "1h")) {
                snprintf(why, whysize, "option cache_ttl must be \"5m\" or \"1h\"");
                return -1;
            }
            s->cache_ttl = t;
        } else if (!strcmp(key, "thinking")) {
            const char *t = json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                                     : NULL;
            if (json_object_is_type(v, json_type_boolean))
                s->thinking_mode = json_object_get_boolean(v) ? THINK_ENABLED : THINK_DISABLED;
            else if (str_eq(t, "enabled"))
                s->thinking_mode = THINK_ENABLED;
            else if (str_eq(t, "adaptive"))
                s->thinking_mode = THINK_ADAPTIVE;
            else if (str_eq(t, "disabled"))
                s->thinking_mode = THINK_DISABLED;
            else {
                snprintf(why, whysize,
                         "option thinking must be \"enabled\", \"adaptive\" or \"disabled\"");
                return -1;
            }
        } else if (!strcmp(key, "thinking_budget")) {
            if (want_count(v, key, &s->thinking_budget, why, whysize))
                return -1;
        } else if (!strcmp(key, "max_tokens")) {
            if (want_count(v, key, &s->max_tokens, why, whysize))
                return -1;
        } else if (!strcmp(key, "top_k")) {
            int64_t k;
            if (want_count(v, key, &k, why, whysize))
                return -1;
            s->top_k = v;
        } else if (!strcmp(key, "top_p")) {
            if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) {
                snprintf(why, whysize, "option top_p must be a number");
                return -1;
            }
            s->top_p = v;
        } else if (!strcmp(key, "metadata")) {
            if (!json_object_is_type(v, json_type_object)) {
                snprintf(why, whysize, "option metadata must be a group");
                return -1;
            }
            s->metadata = v;
        } else if (!strcmp(key, "service_tier")) {
            if (want_string(v, key, why, whysize))
                return -1;
            s->service_tier = v;
        } else if (!strcmp(key, "effort")) {
            if (want_string(v, key, why, whysize))
                return -1;
            s->effort = json_object_get_string(v);
        } else if (!strcmp(key, "disable_parallel_tool_use")) {
            if (!json_object_is_type(v, json_type_boolean)) {
                snprintf(why, whysize, "option disable_parallel_tool_use must be a boolean");
                return -1;
            }
            s->disable_parallel_tool_use = json_object_get_boolean(v);
        } else if (!strcmp(key, "forced_tool")) {
            const char *m = json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                                     : NULL;
            if (str_eq(m, "prompt"))
                s->forced_tool = FORCED_PROMPT;
            else if (str_eq(m, "reject"))
                s->forced_tool = FORCED_REJECT;
            else {
                snprintf(why, whysize, "option forced_tool must be \"prompt\" or \"reject\"");
                return -1;
            }
        } else if (!strcmp(key, "thinking_display")) {
            const char *d = json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                                     : NULL;
            if (!str_eq(d, "summarized") && !str_eq(d, "omitted") && !str_eq(d, "updates")) {
                snprintf(why, whysize,
                         "option thinking_display must be \"summarized\", \"omitted\" or \"updates\"");
                return -1;
            }
            s->thinking_display = d;
        } else if (!strcmp(key, "strict_tools")) {
            if (!json_object_is_type(v, json_type_boolean)) {
                snprintf(why, whysize, "option strict_tools must be a boolean");
                return -1;
            }
            s->strict_tools = json_object_get_boolean(v);
        } else if (!strcmp(key, "structured_output")) {
            const char *m = json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                                     : NULL;
            if (str_eq(m, "native"))
                s->structured_mode = SO_NATIVE;
            else if (str_eq(m, "tool"))
                s->structured_mode = SO_TOOL;
            else {
                snprintf(why, whysize, "option structured_output must be \"native\" or \"tool\"");
                return -1;
            }
        }
    }
    return 0;
}

/* ==== the instance ============================================================ */

typedef struct anthropic {
    char *base_url;       /* no trailing slash */
    json_object *options; /* the conf's options; read-only after create */
} anthropic;

static void anthropic_destroy(void *instance)
{
    anthropic *a = instance;
    if (!a)
        return;
    free(a->base_url);
    json_object_put(a->options);
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
    /* Check the options now, so a typo is a conf error at load, not a failed call. */
    settings s = { 0 };
    model_info mi;
    char why[200] = "";
    int rc = settings_apply(&s, a->options, why, sizeof why);
    sb_free(&s.beta);
    if (rc == 0)
        rc = model_capabilities(a->options, "", &mi, why, sizeof why);
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
    if (model_capabilities(a ? a->options : NULL, model, &mi, why, sizeof why) != 0)
        return SEAM_ERR_INVALID;
    *caps = mi.caps;
    return SEAM_OK;
}

/* ==== encode ================================================================= */

/* Everything encode decides before writing the body; decode repeats the part
 * it needs (json_tool) from the same inputs. */
typedef struct plan {
    settings s;
    const char *model;
    json_object *req_options; /* parsed request options, owned */
    model_info mi;
    seam_capabilities caps;  /* mi.caps */
    int json_native;   /* output_config.format */
    int json_tool;     /* the "json" tool carries the answer */
    int forced_tool;   /* tool_choice any/tool is sent */
    /* A forced tool the model does not accept, asked for in the system prompt
     * instead, with tool_choice auto: "" for any tool, else the tool's name. */
    const char *prompted_tool;
    int64_t thinking_budget; /* > 0: thinking enabled with this budget */
    int adaptive_thinking;   /* thinking {adaptive} */
    int thinking_off;        /* thinking {disabled} */
    int between_tools;       /* thinking {between_tools} */
    const char *effort;      /* output_config.effort, NULL: none sent */
    int64_t max_tokens;
} plan;

static void plan_free(plan *p)
{
    sb_free(&p->s.beta);
    json_object_put(p->req_options);
    p->req_options = NULL;
}

static int bad_request(seam_error *err, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int bad_request(seam_error *err, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "anthropic: %s", msg);
}

static int nomem(seam_error *err)
{
    return seam_error_set(err, SEAM_ERROR_UNKNOWN, "anthropic: out of memory");
}

static int make_plan(anthropic *a, const seam_request *req, plan *p, seam_error *err)
{
    char why[200] = "";
    memset(p, 0, sizeof *p);
    p->model = seam_request_model(req) ? seam_request_model(req) : "";
    int rc = settings_apply(&p->s, a->options, why, sizeof why);
    const char *ro = seam_request_provider_options(req);
    if (rc == 0 && ro && *ro) {
        p->req_options = parse_json_str(ro);
        if (!p->req_options) {
            snprintf(why, sizeof why, "provider options are not JSON");
            rc = -1;
        } else {
            rc = settings_apply(&p->s, p->req_options, why, sizeof why);
        }
    }
    if (rc == 0)
        rc = model_capabilities(a->options, seam_request_model(req), &p->mi, why, sizeof why);
    p->caps = p->mi.caps;
    if (rc != 0) {
        plan_free(p);
        return rc == SEAM_ERR_NOMEM ? nomem(err) : bad_request(err, "%s", why);
    }

    const char *fmt_name = NULL, *schema = NULL;
    int strict = 0;
    if (seam_request_response_format(req, &fmt_name, &schema, &strict) == SEAM_FORMAT_JSON) {
        /* Native needs a real schema: "any JSON object" ({"type":"object"}, what
         * the core stores when the caller gives none) is not expressible in
         * constrained decoding, which wants every object's properties. */
        int native = p->s.structured_mode == SO_NATIVE ||
                     (p->s.structured_mode == SO_DEFAULT &&
                      p->mi.family->structured_output);
        json_object *sch = native ? parse_json_str(schema) : NULL;
        int has_properties = member(sch, "properties", json_type_object) != NULL;
        json_object_put(sch);
        if (native && has_properties)
            p->json_native = 1;
        else
            p->json_tool = 1;
    }
    const model_family *f = p->mi.family;
    const char *named = NULL;
    seam_tool_choice tc = seam_request_tool_choice(req, &named);
    int caller_forces = seam_request_tool_count(req) > 0 &&
                        (tc == SEAM_TOOL_CHOICE_REQUIRED || tc == SEAM_TOOL_CHOICE_NAMED);
    p->forced_tool = p->json_tool || caller_forces;
    if (p->forced_tool && !p->mi.forced_tool_choice) {
        /* The model answers tool_choice any/tool with a 400. Its migration
         * guide's replacement is tool_choice auto, with the prompt saying when
         * the tool applies; the codec does that, unless the caller would
         * rather fail (forced_tool = "reject"): a forced call may be a hard
         * requirement, and auto lets the model answer in text instead. */
        if (!p->json_tool && p->s.forced_tool == FORCED_REJECT) {
            rc = bad_request(err,
                             "model %s does not accept a forced tool choice (tool_choice any "
                             "or tool); send auto, or set option forced_tool = \"prompt\"",
                             p->model);
            plan_free(p);
            return rc;
        }
        p->prompted_tool = p->json_tool ? JSON_TOOL_NAME
                           : tc == SEAM_TOOL_CHOICE_NAMED && named ? named : "";
        p->forced_tool = 0;
    }

    int64_t budget = seam_request_reasoning_budget(req);
    if (budget <= 0)
        budget = p->s.thinking_budget;
    const int64_t budget_hint = budget; /* the caller's idea of room to think */
    const int mode = p->s.thinking_mode;
    p->effort = p->s.effort;
    if (!p->caps.reasoning || f->thinking <= THINKING_BUDGET_OR_ADAPTIVE) {
        /* The families that take a budget (and nothing when thinking is off). */
        if (mode == THINK_ENABLED && budget <= 0)
            budget = THINKING_DEFAULT_BUDGET;
        if (mode == THINK_DISABLED || !p->caps.reasoning || p->forced_tool)
            budget = 0;
        if (mode == THINK_ADAPTIVE && p->caps.reasoning && !p->forced_tool) {
            p->adaptive_thinking = 1;
            budget = 0;
        }
        if (budget > 0 && budget < THINKING_MIN_BUDGET)
            budget = THINKING_MIN_BUDGET;
    } else {
        /* Opus 4.7 and later take no budget ("thinking.type.enabled" is not
         * supported): a budget or "enabled" asks for adaptive thinking, and
         * effort is what sets its depth. */
        int wants = budget > 0 || mode == THINK_ENABLED || mode == THINK_ADAPTIVE;
        budget = 0;
        if (f->thinking == THINKING_ADAPTIVE) {
            /* Off unless asked for: "disabled" is sending nothing. */
            p->adaptive_thinking = wants && mode != THINK_DISABLED && !p->forced_tool;
        } else if (mode == THINK_DISABLED) {
            if (f->thinking == THINKING_DEFAULT_ON)
                p->thinking_off = 1;
            else if (f->between_tools)
                p->between_tools = 1; /* Sonnet 5.5's lowest setting */
            else if (!p->effort)
                /* Always-on thinking (Opus 5.5, Fable): the guides' advice
                 * where thinking was disabled to save tokens is a lower
                 * effort; an effort the caller chose is kept. */
                p->effort = "low";
        } else if (!p->forced_tool) {
            /* On by default anyway: sent when asked for, or to carry display.
             * A forced tool call has no thinking (Haiku 5.5's guide), so none
             * is asked for then. */
            p->adaptive_thinking = wants || p->s.thinking_display != NULL;
        }
        if ((p->thinking_off || p->between_tools) && f->off_at_high_or_below &&
            effort_above_high(p->effort)) {
            /* The message first: the effort is borrowed from the options. */
            rc = bad_request(err,
                             "model %s turns thinking off only at effort high or below, "
                             "and effort is %s",
                             p->model, p->effort);
            plan_free(p);
            return rc;
        }
    }

    int64_t mt = seam_request_max_tokens(req);
    if (mt <= 0)
        mt = p->s.max_tokens;
    if (mt <= 0)
        mt = default_max_tokens(&p->caps, p->effort);
    /* Saturating: a budget near INT64_MAX must not wrap max_tokens negative. */
    if (budget > 0 && mt <= budget) {
        mt = budget > INT64_MAX - mt ? INT64_MAX : mt + budget;
    } else if (budget_hint > 0 && f->thinking >= THINKING_ADAPTIVE && p->caps.reasoning &&
               (p->adaptive_thinking ||
                (f->thinking >= THINKING_DEFAULT_ON && !p->thinking_off && !p->between_tools &&
                 !p->forced_tool)) &&
               mt <= budget_hint) {
        /* max_tokens covers thinking too: a budget the caller gave is room
         * to think on top of the answer, as it is where budgets are sent. */
        mt = budget_hint > INT64_MAX - mt ? INT64_MAX : mt + budget_hint;
    }
    if (p->caps.max_output_tokens > 0 && mt > p->caps.max_output_tokens)
        mt = p->caps.max_output_tokens;
    if (budget > 0 && budget >= mt) {
        /* The model cannot fit the budget and an answer: give up on thinking
         * rather than send a request the API refuses. */
        budget = mt - 1 >= THINKING_MIN_BUDGET ? mt - 1 : 0;
    }
    p->thinking_budget = budget;
    p->max_tokens = mt;
    return SEAM_OK;
}

/* An ephemeral cache_control marker, with the configured TTL. */
static json_object *cache_control(const plan *p)
{
    json_object *cc = json_object_new_object();
    if (!cc)
        return NULL;
    if (obj_add_str(cc, "type", "ephemeral") != SEAM_OK ||
        (p->s.cache_ttl && obj_add_str(cc, "ttl", p->s.cache_ttl) != SEAM_OK)) {
        json_object_put(cc);
        return NULL;
    }
    return cc;
}

static json_object *text_block(const char *text)
{
    json_object *b = json_object_new_object();
    if (b && (obj_add_str(b, "type", "text") != SEAM_OK || obj_add_str(b, "text", text) != SEAM_OK)) {
        json_object_put(b);
        return NULL;
    }
    return b;
}

/* A media part -> an image or document block. */
static int media_block(const plan *p, const seam_part *part, json_object **out, seam_error *err)
{
    const char *mime = seam_part_mime_type(part);
    const char *data = seam_part_media_data(part);
    seam_media_source src = seam_part_media_source(part);
    const char *type;
    *out = NULL;
    if (!mime || !data)
        return bad_request(err, "a media part has no MIME type or data");
    if (!strncasecmp(mime, "image/", 6)) {
        if (!p->caps.vision)
            return bad_request(err, "model %s does not accept image input (capability vision)",
                               p->model);
        type = "image";
    } else if (!strcasecmp(mime, "application/pdf")) {
        if (!p->caps.pdf_input)
            return bad_request(err, "model %s does not accept PDF input (capability pdf_input)",
                               p->model);
        type = "document";
    } else {
        return bad_request(err, "media type %s is not supported (images and PDF only)", mime);
    }
    json_object *b = json_object_new_object(), *s = json_object_new_object();
    int rc = (b && s) ? SEAM_OK : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK && src == SEAM_MEDIA_URL) {
        rc = obj_add_str(s, "type", "url");
        if (rc == SEAM_OK)
            rc = obj_add_str(s, "url", data);
    } else if (rc == SEAM_OK) {
        rc = obj_add_str(s, "type", "base64");
        if (rc == SEAM_OK)
            rc = obj_add_str(s, "media_type", mime);
        if (rc == SEAM_OK)
            rc = obj_add_str(s, "data", data);
    }
    if (rc == SEAM_OK)
        rc = obj_add_str(b, "type", type);
    if (rc == SEAM_OK) {
        rc = obj_add(b, "source", s);
        s = NULL;
    }
    json_object_put(s);
    if (rc != SEAM_OK) {
        json_object_put(b);
        return nomem(err);
    }
    *out = b;
    return SEAM_OK;
}

/* A tool result's content: a JSON string travels as its text, any other JSON
 * value as its JSON text. */
static json_object *tool_result_block(const seam_part *part)
{
    const char *rj = seam_part_result_json(part);
    json_object *val = parse_json_str(rj);
    const char *content = rj ? rj : "";
    if (val && json_object_is_type(val, json_type_string))
        content = json_object_get_string(val);
    json_object *b = json_object_new_object();
    int rc = b ? SEAM_OK : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK)
        rc = obj_add_str(b, "type", "tool_result");
    if (rc == SEAM_OK)
        rc = obj_add_str(b, "tool_use_id", seam_part_tool_call_id(part));
    if (rc == SEAM_OK)
        rc = obj_add_str(b, "content", content);
    if (rc == SEAM_OK && seam_part_is_error(part))
        rc = obj_add(b, "is_error", json_object_new_boolean(1));
    json_object_put(val);
    if (rc != SEAM_OK) {
        json_object_put(b);
        return NULL;
    }
    return b;
}

/* One part -> zero or one block appended to `blocks`. */
static int part_block(const plan *p, int assistant, const seam_part *part, json_object *blocks,
                      seam_error *err)
{
    json_object *b = NULL;
    int rc = SEAM_OK;
    switch (seam_part_get_type(part)) {
    case SEAM_PART_TEXT: {
        const char *t = seam_part_text(part);
        if (!t || !*t)
            return SEAM_OK; /* the API refuses empty text blocks */
        b = text_block(t);
        break;
    }
    case SEAM_PART_REASONING: {
        const char *t = seam_part_text(part);
        const char *sig = seam_part_signature(part);
        if (!assistant)
            return SEAM_OK;
        if (seam_part_redacted(part)) {
            if (!t || !*t)
                return SEAM_OK;
            b = json_object_new_object();
            if (b && (obj_add_str(b, "type", "redacted_thinking") != SEAM_OK ||
                      obj_add_str(b, "data", t) != SEAM_OK)) {
                json_object_put(b);
                b = NULL;
            }
        } else if (sig && *sig) {
            b = json_object_new_object();
            if (b && (obj_add_str(b, "type", "thinking") != SEAM_OK ||
                      obj_add_str(b, "thinking", t ? t : "") != SEAM_OK ||
                      obj_add_str(b, "signature", sig) != SEAM_OK)) {
                json_object_put(b);
                b = NULL;
            }
        } else {
            return SEAM_OK; /* unsigned reasoning cannot be verified: not replayed */
        }
        break;
    }
    case SEAM_PART_TOOL_CALL: {
        if (seam_part_provider_executed(part))
            return SEAM_OK;
        const char *args = seam_part_args_json(part);
        json_object *input = (args && *args) ? parse_json_str(args) : json_object_new_object();
        if (!input || !json_object_is_type(input, json_type_object)) {
            json_object_put(input);
            return bad_request(err, "arguments of tool call %s are not a JSON object",
                               seam_part_tool_call_id(part) ? seam_part_tool_call_id(part) : "?");
        }
        b = json_object_new_object();
        if (!b || obj_add_str(b, "type", "tool_use") != SEAM_OK ||
            obj_add_str(b, "id", seam_part_tool_call_id(part)) != SEAM_OK ||
            obj_add_str(b, "name", seam_part_tool_name(part)) != SEAM_OK) {
            json_object_put(input);
            json_object_put(b);
            return nomem(err);
        }
        if (obj_add(b, "input", input) != SEAM_OK) {
            json_object_put(b);
            return nomem(err);
        }
        break;
    }
    case SEAM_PART_TOOL_RESULT:
        if (seam_part_provider_executed(part))
            return SEAM_OK;
        b = tool_result_block(part);
        break;
    case SEAM_PART_MEDIA:
        rc = media_block(p, part, &b, err);
        if (rc != SEAM_OK)
            return rc;
        break;
    default:
        return SEAM_OK;
    }
    if (!b || arr_add(blocks, b) != SEAM_OK)
        return nomem(err);
    return SEAM_OK;
}

/* In a user message, tool_result blocks must come before anything else. */
static int tool_results_first(json_object *content)
{
    size_t n = json_object_array_length(content);
    json_object *sorted = json_object_new_array();
    if (!sorted)
        return SEAM_ERR_NOMEM;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            json_object *b = json_object_array_get_idx(content, i);
            int is_result = str_eq(jstr(b, "type"), "tool_result");
            if (is_result == (pass == 0) && arr_add(sorted, json_object_get(b)) != SEAM_OK) {
                json_object_put(sorted);
                return SEAM_ERR_NOMEM;
            }
        }
    }
    /* Swap the sorted elements in place of the old ones. */
    for (size_t i = 0; i < n; i++)
        json_object_array_put_idx(content, i, json_object_get(json_object_array_get_idx(sorted, i)));
    json_object_put(sorted);
    return SEAM_OK;
}

/* The messages array: roles mapped (tool -> user), consecutive same-role
 * messages merged, empty ones dropped. */
static int build_messages(const plan *p, const seam_request *req, json_object *messages,
                          seam_error *err)
{
    json_object *last = NULL;
    int last_assistant = -1;
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        const seam_message *m = seam_request_message(req, i);
        int assistant = seam_message_role(m) == SEAM_ROLE_ASSISTANT;
        json_object *blocks = json_object_new_array();
        if (!blocks)
            return nomem(err);
        for (size_t j = 0; j < seam_message_part_count(m); j++) {
            int rc = part_block(p, assistant, seam_message_part(m, j), blocks, err);
            if (rc != SEAM_OK) {
                json_object_put(blocks);
                return rc;
            }
        }
        size_t nb = json_object_array_length(blocks);
        if (nb == 0) {
            json_object_put(blocks);
            continue;
        }
        if (last && last_assistant == assistant) {
            json_object *content = member(last, "content", json_type_array);
            for (size_t k = 0; k < nb; k++) {
                if (arr_add(content, json_object_get(json_object_array_get_idx(blocks, k))) !=
                    SEAM_OK) {
                    json_object_put(blocks);
                    return nomem(err);
                }
            }
            json_object_put(blocks);
            continue;
        }
        json_object *msg = json_object_new_object();
        if (!msg || obj_add_str(msg, "role", assistant ? "assistant" : "user") != SEAM_OK) {
            json_object_put(msg);
            json_object_put(blocks);
            return nomem(err);
        }
        /* obj_add and arr_add release what they could not store. */
        if (obj_add(msg, "content", blocks) != SEAM_OK) {
            json_object_put(msg);
            return nomem(err);
        }
        if (arr_add(messages, msg) != SEAM_OK)
            return nomem(err);
        last = msg;
        last_assistant = assistant;
    }
    for (size_t i = 0; i < json_object_array_length(messages); i++) {
        json_object *msg = json_object_array_get_idx(messages, i);
        if (str_eq(jstr(msg, "role"), "user") &&
            tool_results_first(member(msg, "content", json_type_array)) != SEAM_OK)
            return nomem(err);
    }
    if (json_object_array_length(messages) == 0)
        return bad_request(err, "the request has no message to send");
    return SEAM_OK;
}

/* cache = "auto": the last block of each of the last three user messages. */
static int place_message_breakpoints(const plan *p, json_object *messages)
{
    int placed = 0;
    for (size_t i = json_object_array_length(messages); i-- > 0 && placed < 3;) {
        json_object *msg = json_object_array_get_idx(messages, i);
        if (!str_eq(jstr(msg, "role"), "user"))
            continue;
        json_object *content = member(msg, "content", json_type_array);
        size_t n = content ? json_object_array_length(content) : 0;
        if (!n)
            continue;
        if (obj_add(json_object_array_get_idx(content, n - 1), "cache_control", cache_control(p)) !=
            SEAM_OK)
            return SEAM_ERR_NOMEM;
        placed++;
    }
    return SEAM_OK;
}

static int build_tools(const plan *p, const seam_request *req, json_object *body, seam_error *err)
{
    size_t n = seam_request_tool_count(req);
    const char *fmt_name = NULL, *schema = NULL;
    int strict = 0;
    if (p->json_tool)
        seam_request_response_format(req, &fmt_name, &schema, &strict);
    if (n == 0 && !p->json_tool)
        return SEAM_OK;
    json_object *tools = json_object_new_array();
    if (!tools || obj_add(body, "tools", tools) != SEAM_OK)
        return nomem(err);
    for (size_t i = 0; i <= n; i++) {
        const char *name, *desc, *params;
        if (i < n) {
            name = seam_request_tool_name(req, i);
            desc = seam_request_tool_description(req, i);
            params = seam_request_tool_parameters(req, i);
        } else if (p->json_tool) {
            name = JSON_TOOL_NAME;
            desc = "Respond with a JSON object: the input of this tool is the answer.";
            params = schema;
        } else {
            break;
        }
        json_object *input_schema = params && *params ? parse_json_str(params)
                                                      : parse_json_str("{\"type\":\"object\"}");
        if (!input_schema || !json_object_is_type(input_schema, json_type_object)) {
            json_object_put(input_schema);
            return bad_request(err, "the schema of tool %s is not a JSON object",
                               name ? name : "?");
        }
        json_object *t = json_object_new_object();
        if (!t || obj_add_str(t, "name", name) != SEAM_OK ||
            (desc && *desc && obj_add_str(t, "description", desc) != SEAM_OK)) {
            json_object_put(t);
            json_object_put(input_schema);
            return nomem(err);
        }
        if (obj_add(t, "input_schema", input_schema) != SEAM_OK) {
            json_object_put(t);
            return nomem(err);
        }
        /* strict_tools: the caller vouches that its schemas fit strict tool
         * use (additionalProperties false on every object); not the "json"
         * tool, whose schema is "any object". */
        if (i < n && p->s.strict_tools && p->mi.family->structured_output &&
            obj_add(t, "strict", json_object_new_boolean(1)) != SEAM_OK) {
            json_object_put(t);
            return nomem(err);
        }
        if (arr_add(tools, t) != SEAM_OK)
            return nomem(err);
    }

    const char *named = NULL;
    seam_tool_choice tc = seam_request_tool_choice(req, &named);
    const char *type = "auto";
    if (p->prompted_tool) {
        /* A forced choice the model rejects: auto, sent explicitly as the
         * migration guides show it, and the system prompt asks for the tool. */
        type = "auto";
    } else if (p->json_tool) {
        type = "tool";
        named = JSON_TOOL_NAME;
    } else if (tc == SEAM_TOOL_CHOICE_NONE) {
        type = "none";
    } else if (tc == SEAM_TOOL_CHOICE_REQUIRED) {
        type = "any";
    } else if (tc == SEAM_TOOL_CHOICE_NAMED) {
        type = "tool";
    }
    if (!strcmp(type, "auto") && !p->s.disable_parallel_tool_use && !p->prompted_tool)
        return SEAM_OK; /* auto is the API's default */
    json_object *choice = json_object_new_object();
    if (!choice || obj_add_str(choice, "type", type) != SEAM_OK ||
        (!strcmp(type, "tool") && obj_add_str(choice, "name", named) != SEAM_OK) ||
        (p->s.disable_parallel_tool_use && strcmp(type, "none") &&
         obj_add(choice, "disable_parallel_tool_use", json_object_new_boolean(1)) != SEAM_OK)) {
        json_object_put(choice);
        return nomem(err);
    }
    if (obj_add(body, "tool_choice", choice) != SEAM_OK)
        return nomem(err);
    return SEAM_OK;
}

/* With thinking on, the API wants the assistant turn that a tool loop
 * continues (the last assistant message, answered by tool results) to begin
 * with a thinking block. A turn without one (its reasoning stripped on a
 * failover, or written by another provider) can only be continued with
 * thinking off for this request, as the API's documentation advises. */
static int tool_turn_lacks_thinking(json_object *messages)
{
    size_t n = json_object_array_length(messages);
    if (n < 2)
        return 0;
    json_object *last = json_object_array_get_idx(messages, n - 1);
    json_object *prev = json_object_array_get_idx(messages, n - 2);
    if (!str_eq(jstr(last, "role"), "user") || !str_eq(jstr(prev, "role"), "assistant"))
        return 0;
    /* tool results come first in a user message (tool_results_first) */
    json_object *answer = json_object_array_get_idx(member(last, "content", json_type_array), 0);
    if (!str_eq(jstr(answer, "type"), "tool_result"))
        return 0;
    const char *first = jstr(
        json_object_array_get_idx(member(prev, "content", json_type_array), 0), "type");
    return !str_eq(first, "thinking") && !str_eq(first, "redacted_thinking");
}

/* Copies a borrowed option value into the body (deep: the options object is
 * shared across threads, and serializing it would cache text inside it). */
static int add_copy(json_object *body, const char *key, json_object *v)
{
    json_object *copy = NULL;
    if (json_object_deep_copy(v, &copy, NULL) != 0)
        return SEAM_ERR_NOMEM;
    return obj_add(body, key, copy);
}

/* thinking.display goes with adaptive thinking on the families that have the
 * setting (Opus 4.7 and later; their default is "omitted"). */
static int sends_display(const plan *p, int thinking)
{
    return thinking && p->adaptive_thinking && p->s.thinking_display &&
           p->mi.family->thinking >= THINKING_ADAPTIVE;
}

/* Betas that the families from Opus 4.7 on have made the default, or never
 * needed (the migration guides say to remove them): adaptive thinking
 * interleaves on its own, 1M tokens is the window, effort and the 128K output
 * need no header, token-efficient tool use is built in. A conf shared with
 * older models keeps sending them there. */
static int beta_obsolete_for(const model_family *f, const char *name, size_t n)
{
    static const char *const prefixes[] = { "interleaved-thinking-", "context-1m-", "effort-",
                                            "output-128k-", "token-efficient-tools-" };
    if (f->thinking < THINKING_ADAPTIVE)
        return 0;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t m = strlen(prefixes[i]);
        if (n >= m && strncmp(name, prefixes[i], m) == 0)
            return 1;
    }
    return 0;
}

/* The anthropic-beta header: the options' betas less the obsolete ones, plus
 * the one that thinking.display "updates" needs. Empty: no header. */
static int beta_header(const plan *p, int display_updates, strbuf *out)
{
    const char *q = p->s.beta.data;
    while (q && *q) {
        const char *e = strchr(q, ',');
        size_t n = e ? (size_t)(e - q) : strlen(q);
        if (!beta_obsolete_for(p->mi.family, q, n) &&
            ((out->len && sb_append(out, ",", 1) != SEAM_OK) || sb_append(out, q, n) != SEAM_OK))
            return SEAM_ERR_NOMEM;
        q = e ? e + 1 : q + n;
    }
    if (display_updates && !(p->s.beta.data && strstr(p->s.beta.data, THINKING_UPDATES_BETA)) &&
        ((out->len && sb_append(out, ",", 1) != SEAM_OK) ||
         sb_puts(out, THINKING_UPDATES_BETA) != SEAM_OK))
        return SEAM_ERR_NOMEM;
    return SEAM_OK;
}

/* The sentence that asks for a tool the model cannot be forced to call
 * (tool_choice auto): the guides' "say in the prompt when to use it". */
static void tool_instruction(const char *tool, char *out, size_t size)
{
    if (!*tool)
        snprintf(out, size, "Answer by calling one of the provided tools.");
    else if (!strcmp(tool, JSON_TOOL_NAME))
        snprintf(out, size, "Answer by calling the %s tool: its input is your answer.", tool);
    else
        snprintf(out, size, "Answer by calling the %s tool.", tool);
}

/* *display_updates is set when the body asks for thinking.display "updates",
 * which needs its beta header. */
static int build_body(const plan *p, const seam_request *req, int stream, json_object *body,
                      int *display_updates, seam_error *err)
{
    const char *model = seam_request_model(req);
    if (!model || !*model)
        return bad_request(err, "the request names no model");
    if (obj_add_str(body, "model", model) != SEAM_OK ||
        obj_add(body, "max_tokens", json_object_new_int64(p->max_tokens)) != SEAM_OK)
        return nomem(err);

    int cache = p->s.cache_auto && p->caps.prompt_cache;
    const char *system = seam_request_system(req);
    char ask[160] = "";
    if (p->prompted_tool)
        tool_instruction(p->prompted_tool, ask, sizeof ask);
    if (system && *system && cache) {
        /* A breakpoint needs a block to sit on: the system prompt becomes one.
         * The tool instruction goes after it, so that it does not change the
         * cached prefix from one request to the next. */
        json_object *sys = json_object_new_array();
        if (!sys || obj_add(body, "system", sys) != SEAM_OK)
            return nomem(err);
        json_object *b = text_block(system);
        if (!b)
            return nomem(err);
        if (obj_add(b, "cache_control", cache_control(p)) != SEAM_OK) {
            json_object_put(b);
            return nomem(err);
        }
        if (arr_add(sys, b) != SEAM_OK || (*ask && arr_add(sys, text_block(ask)) != SEAM_OK))
            return nomem(err);
    } else if ((system && *system) || *ask) {
        strbuf text = { 0 };
        int rc = sb_puts(&text, system);
        if (rc == SEAM_OK && system && *system && *ask)
            rc = sb_puts(&text, "\n\n");
        if (rc == SEAM_OK)
            rc = sb_puts(&text, ask);
        if (rc == SEAM_OK)
            rc = obj_add_str(body, "system", text.data);
        sb_free(&text);
        if (rc != SEAM_OK)
            return nomem(err);
    }

    json_object *messages = json_object_new_array();
    if (!messages || obj_add(body, "messages", messages) != SEAM_OK)
        return nomem(err);
    int rc = build_messages(p, req, messages, err);
    if (rc != SEAM_OK)
        return rc;
    if (cache && place_message_breakpoints(p, messages) != SEAM_OK)
        return nomem(err);

    rc = build_tools(p, req, body, err);
    if (rc != SEAM_OK)
        return rc;

    int thinking = (p->thinking_budget > 0 || p->adaptive_thinking) &&
                   !tool_turn_lacks_thinking(messages);
    const char *thinking_type = thinking ? (p->adaptive_thinking ? "adaptive" : "enabled")
                                : p->thinking_off  ? "disabled"
                                : p->between_tools ? "between_tools" /* takes no other field */
                                                   : NULL;
    if (thinking_type) {
        json_object *t = json_object_new_object();
        if (!t || obj_add_str(t, "type", thinking_type) != SEAM_OK ||
            (p->thinking_budget > 0 && thinking &&
             obj_add(t, "budget_tokens", json_object_new_int64(p->thinking_budget)) != SEAM_OK) ||
            (sends_display(p, thinking) &&
             obj_add_str(t, "display", p->s.thinking_display) != SEAM_OK)) {
            json_object_put(t);
            return nomem(err);
        }
        *display_updates = sends_display(p, thinking) && !strcmp(p->s.thinking_display, "updates");
        if (obj_add(body, "thinking", t) != SEAM_OK)
            return nomem(err);
    }

    /* Sampling parameters: never to a family that rejects non-default values
     * (Opus 4.7 and later); with thinking on, temperature and top_k are not
     * allowed either (top_p is). Both are hints, so they are dropped rather
     * than fail the request. */
    double temperature;
    if (!thinking && p->mi.sampling && seam_request_temperature(req, &temperature)) {
        /* %.15g keeps 0.7 as 0.7 (json-c would print 0.69999999999999996). */
        char num[32];
        if (temperature != temperature || temperature < 0 || temperature > 1e6)
            return bad_request(err, "temperature is not a usable number");
        snprintf(num, sizeof num, "%.15g", temperature);
        if (obj_add(body, "temperature", json_object_new_double_s(temperature, num)) != SEAM_OK)
            return nomem(err);
    }

    size_t nstop = seam_request_stop_count(req);
    if (nstop) {
        json_object *stops = json_object_new_array();
        if (!stops || obj_add(body, "stop_sequences", stops) != SEAM_OK)
            return nomem(err);
        for (size_t i = 0; i < nstop; i++)
            if (arr_add(stops, json_object_new_string(seam_request_stop(req, i))) != SEAM_OK)
                return nomem(err);
    }

    if (p->json_native || p->effort) {
        json_object *oc = json_object_new_object();
        if (!oc || obj_add(body, "output_config", oc) != SEAM_OK)
            return nomem(err);
        if (p->json_native) {
            const char *fmt_name = NULL, *schema = NULL;
            int strict = 0;
            seam_request_response_format(req, &fmt_name, &schema, &strict);
            json_object *sch = parse_json_str(schema);
            if (!sch || !json_object_is_type(sch, json_type_object)) {
                json_object_put(sch);
                return bad_request(err, "the response schema is not a JSON object");
            }
            json_object *fmt = json_object_new_object();
            if (!fmt || obj_add_str(fmt, "type", "json_schema") != SEAM_OK) {
                json_object_put(fmt);
                json_object_put(sch);
                return nomem(err);
            }
            if (obj_add(fmt, "schema", sch) != SEAM_OK || obj_add(oc, "format", fmt) != SEAM_OK)
                return nomem(err);
        }
        if (p->effort && obj_add_str(oc, "effort", p->effort) != SEAM_OK)
            return nomem(err);
    }

    if ((!thinking && p->mi.sampling && p->s.top_k &&
         add_copy(body, "top_k", p->s.top_k) != SEAM_OK) ||
        (p->mi.sampling && p->s.top_p && add_copy(body, "top_p", p->s.top_p) != SEAM_OK) ||
        (p->s.metadata && add_copy(body, "metadata", p->s.metadata) != SEAM_OK) ||
        (p->s.service_tier && add_copy(body, "service_tier", p->s.service_tier) != SEAM_OK))
        return nomem(err);

    if (stream && obj_add(body, "stream", json_object_new_boolean(1)) != SEAM_OK)
        return nomem(err);
    return SEAM_OK;
}

static int anthropic_encode(void *instance, const seam_request *req, int stream,
                            seam_http_request *out, seam_error *err)
{
    anthropic *a = instance;
    plan p;
    int rc = make_plan(a, req, &p, err);
    if (rc != SEAM_OK)
        return rc;

    json_object *body = json_object_new_object();
    int display_updates = 0;
    rc = body ? build_body(&p, req, stream, body, &display_updates, err) : nomem(err);
    strbuf betas = { 0 };
    if (rc == SEAM_OK && beta_header(&p, display_updates, &betas) != SEAM_OK)
        rc = nomem(err);

    char *url = NULL;
    if (rc == SEAM_OK) {
        size_t n = strlen(a->base_url) + sizeof "/messages";
        url = malloc(n);
        if (!url)
            rc = nomem(err);
        else
            snprintf(url, n, "%s/messages", a->base_url);
    }
    if (rc == SEAM_OK) {
        const char *text = json_text(body);
        int hr = seam_http_request_set_url(out, url);
        if (hr == SEAM_OK)
            hr = seam_http_request_set_method(out, SEAM_HTTP_POST);
        if (hr == SEAM_OK)
            hr = seam_http_request_add_header(out, "content-type", "application/json");
        if (hr == SEAM_OK)
            hr = p.s.bearer ? seam_http_request_add_secret_header(out, "authorization", "Bearer ")
                            : seam_http_request_add_secret_header(out, "x-api-key", NULL);
        if (hr == SEAM_OK)
            hr = seam_http_request_add_header(out, "anthropic-version",
                                              p.s.version ? p.s.version : ANTHROPIC_DEFAULT_VERSION);
        if (hr == SEAM_OK && betas.len)
            hr = seam_http_request_add_header(out, "anthropic-beta", betas.data);
        if (hr == SEAM_OK && stream)
            hr = seam_http_request_add_header(out, "accept", "text/event-stream");
        if (hr == SEAM_OK) /* json_text is NULL when json-c cannot print the body */
            hr = text ? seam_http_request_set_body(out, text, strlen(text)) : SEAM_ERR_NOMEM;
        if (hr == SEAM_OK && stream)
            hr = seam_http_request_set_framing(out, SEAM_FRAMING_SSE);
        if (hr != SEAM_OK)
            rc = nomem(err);
    }
    free(url);
    sb_free(&betas);
    json_object_put(body);
    plan_free(&p);
    return rc;
}

/* ==== error classification ===================================================== */

/* A message that says the prompt does not fit the model's context. */
static int says_context_overflow(const char *msg)
{
    static const char *const needles[] = { "prompt is too long", "context limit",
                                           "context window", "context length",
                                           "too many total text bytes" };
    if (!msg)
        return 0;
    for (size_t i = 0; i < sizeof needles / sizeof needles[0]; i++)
        if (strcasestr(msg, needles[i]))
            return 1;
    return 0;
}

/* Fills kind, code and message from an Anthropic error object
 * {"type": "...", "message": "..."} (status 0: inside a stream). */
static void classify_error_object(json_object *eobj, int http_status, seam_error *err)
{
    const char *type = jstr(eobj, "type");
    const char *msg = jstr(eobj, "message");
    seam_error_kind kind;
    if (str_eq(type, "invalid_request_error"))
        kind = says_context_overflow(msg) ? SEAM_ERROR_CONTEXT_OVERFLOW : SEAM_ERROR_BAD_REQUEST;
    else if (str_eq(type, "authentication_error") || str_eq(type, "permission_error") ||
             str_eq(type, "billing_error"))
        kind = SEAM_ERROR_AUTH;
    else if (str_eq(type, "not_found_error"))
        kind = SEAM_ERROR_MODEL_NOT_FOUND;
    else if (str_eq(type, "request_too_large"))
        kind = SEAM_ERROR_BAD_REQUEST;
    else if (str_eq(type, "rate_limit_error"))
        kind = SEAM_ERROR_RATE_LIMIT;
    else if (str_eq(type, "overloaded_error") || str_eq(type, "api_error"))
        kind = SEAM_ERROR_OVERLOADED;
    else if (str_eq(type, "timeout_error"))
        kind = SEAM_ERROR_TIMEOUT;
    else if (http_status == 529)
        kind = SEAM_ERROR_OVERLOADED;
    else if (http_status == 400 && says_context_overflow(msg))
        kind = SEAM_ERROR_CONTEXT_OVERFLOW;
    else if (http_status > 0)
        kind = err->kind != SEAM_ERROR_NONE ? err->kind : SEAM_ERROR_UNKNOWN;
    else
        kind = SEAM_ERROR_UNKNOWN;
    err->kind = kind;
    err->retryable = seam_error_kind_retryable(kind);
    if (type)
        seam_strlcpy(err->code, type, sizeof err->code);
    if (msg && *msg)
        snprintf(err->message, sizeof err->message, "anthropic: %s", msg);
    else if (type)
        snprintf(err->message, sizeof err->message, "anthropic: %s", type);
}

/* Keeps the headers a caller needs to pace itself: retry-after and every
 * anthropic-ratelimit-* header, "name: value\n" each. The core may already
 * have kept some: a line already there is not repeated. */
static void keep_ratelimit_headers(const seam_http_headers *headers, seam_error *err)
{
    size_t used = strlen(err->ratelimit);
    for (size_t i = 0; headers && i < seam_http_headers_count(headers); i++) {
        const char *name, *value;
        char line[sizeof err->ratelimit];
        if (seam_http_headers_at(headers, i, &name, &value) != SEAM_OK || !name)
            continue;
        if (strncasecmp(name, "anthropic-ratelimit-", 20) && strcasecmp(name, "retry-after") &&
            strcasecmp(name, "retry-after-ms"))
            continue;
        int n = snprintf(line, sizeof line, "%s: %s\n", name, value ? value : "");
        if (n < 0 || (size_t)n >= sizeof line || strstr(err->ratelimit, line))
            continue;
        if ((size_t)n >= sizeof err->ratelimit - used)
            break; /* whole lines only */
        memcpy(err->ratelimit + used, line, (size_t)n + 1);
        used += (size_t)n;
    }
}

static void anthropic_classify_error(void *instance, int http_status,
                                     const seam_http_headers *headers, const char *body,
                                     size_t len, seam_error *err)
{
    (void)instance;
    if (!err)
        return;
    if (err->kind == SEAM_ERROR_NONE)
        seam_error_from_http_status(err, http_status);
    if (http_status == 529) {
        err->kind = SEAM_ERROR_OVERLOADED;
        err->retryable = 1;
    }
    keep_ratelimit_headers(headers, err);
    json_object *root = body && len ? json_parse_strict(body, len) : NULL;
    json_object *eobj = member(root, "error", json_type_object);
    if (eobj) {
        classify_error_object(eobj, http_status, err);
    } else if (body && len) {
        /* Not the API's JSON (a proxy's page): keep a printable excerpt. */
        char excerpt[160];
        size_t n = 0;
        for (size_t i = 0; i < len && n < sizeof excerpt - 1; i++)
            excerpt[n++] = isprint((unsigned char)body[i]) ? body[i] : ' ';
        excerpt[n] = '\0';
        snprintf(err->message, sizeof err->message, "anthropic: HTTP %d: %s", http_status,
                 excerpt);
    }
    json_object_put(root);
}

/* ==== decode ================================================================== */

typedef enum block_kind {
    BLOCK_NONE = 0,
    BLOCK_TEXT,
    BLOCK_THINKING,
    BLOCK_REDACTED,
    BLOCK_TOOL_USE,
    BLOCK_JSON_ANSWER,   /* the forced "json" tool: its input is the answer text */
    BLOCK_SERVER_TOOL,   /* server_tool_use / mcp_tool_use: run by Anthropic */
    BLOCK_SERVER_RESULT, /* *_tool_result of a server tool */
    BLOCK_IGNORED        /* a block type this codec does not know */
} block_kind;

typedef struct block {
    block_kind kind;
    int open;
    char *id;
    char *name;
    char *type;      /* the wire type of a server result block */
    strbuf text;       /* tool input fragments; the signature of a thinking block */
    char *result_json;
    int is_error;
} block;

typedef struct decoder {
    int json_tool; /* the request's JSON answer travels as the "json" tool */
    unsigned n_ids;
    block *blocks;
    size_t n_blocks;
    seam_usage usage;
    seam_stop_reason stop_reason;
    int stopped;
    jscan_buf scan; /* the fast path's decoded strings, reused per event */
} decoder;

static void block_clear(block *b)
{
    free(b->id);
    free(b->name);
    free(b->type);
    free(b->result_json);
    sb_free(&b->text);
    memset(b, 0, sizeof *b);
}

static void decoder_free(void *d)
{
    decoder *dec = d;
    if (!dec)
        return;
    for (size_t i = 0; i < dec->n_blocks; i++)
        block_clear(&dec->blocks[i]);
    free(dec->blocks);
    jscan_buf_free(&dec->scan);
    free(dec);
}

static int json_tool_mode(anthropic *a, const seam_request *req)
{
    const char *fmt_name = NULL, *schema = NULL;
    int strict = 0;
    if (!req || seam_request_response_format(req, &fmt_name, &schema, &strict) != SEAM_FORMAT_JSON)
        return 0;
    plan p;
    seam_error ignored;
    seam_error_clear(&ignored);
    if (make_plan(a, req, &p, &ignored) != SEAM_OK)
        return 0;
    int tool = p.json_tool;
    plan_free(&p);
    return tool;
}

static void *decoder_new(void *instance, const seam_request *req)
{
    decoder *dec = calloc(1, sizeof *dec);
    if (!dec)
        return NULL;
    dec->json_tool = instance ? json_tool_mode(instance, req) : 0;
    return dec;
}

static seam_stop_reason map_stop_reason(const char *r)
{
    if (!r)
        return SEAM_STOP_NONE;
    if (!strcmp(r, "max_tokens") || !strcmp(r, "model_context_window_exceeded"))
        return SEAM_STOP_LENGTH;
    if (!strcmp(r, "tool_use"))
        return SEAM_STOP_TOOL_USE;
    if (!strcmp(r, "refusal"))
        return SEAM_STOP_CONTENT_FILTER;
    /* end_turn, stop_sequence, pause_turn and anything newer */
    return SEAM_STOP_STOP;
}

/* Folds a usage object in: every count present (and not null) overrides. */
static void read_usage(seam_usage *u, json_object *usage)
{
    static const struct {
        const char *key;
        uint32_t bit;
    } fields[] = {
        { "input_tokens", SEAM_USAGE_INPUT },
        { "output_tokens", SEAM_USAGE_OUTPUT },
        { "cache_read_input_tokens", SEAM_USAGE_CACHE_READ },
        { "cache_creation_input_tokens", SEAM_USAGE_CACHE_WRITE },
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        json_object *v = member(usage, fields[i].key, json_type_int);
        if (!v)
            continue;
        int64_t n = json_object_get_int64(v);
        u->present |= fields[i].bit;
        switch (fields[i].bit) {
        case SEAM_USAGE_INPUT: u->input_tokens = n; break;
        case SEAM_USAGE_OUTPUT: u->output_tokens = n; break;
        case SEAM_USAGE_CACHE_READ: u->cache_read_tokens = n; break;
        default: u->cache_write_tokens = n; break;
        }
    }
}

/* The block at content index i, growing the table as blocks appear. */
static block *block_at(decoder *dec, int64_t i, seam_error *err, int *rc)
{
    if (i < 0 || i >= MAX_BLOCK_INDEX) {
        *rc = seam_error_set(err, SEAM_ERROR_TRANSPORT,
                             "anthropic: content block index %lld out of range", (long long)i);
        return NULL;
    }
    if ((size_t)i >= dec->n_blocks) {
        size_t n = (size_t)i + 1;
        block *nb = realloc(dec->blocks, n * sizeof *nb);
        if (!nb) {
            *rc = nomem(err);
            return NULL;
        }
        memset(nb + dec->n_blocks, 0, (n - dec->n_blocks) * sizeof *nb);
        dec->blocks = nb;
        dec->n_blocks = n;
    }
    return &dec->blocks[i];
}

static int emit(seam_emitter *em, const seam_chunk *c)
{
    return seam_emit(em, c);
}

static int emit_text(seam_emitter *em, const char *text)
{
    if (!text || !*text)
        return SEAM_OK;
    seam_chunk c = { .type = SEAM_CHUNK_TEXT_DELTA, .text = text };
    return emit(em, &c);
}

/* The name of the server tool whose call has this id (for its result). */
static const char *server_tool_name(decoder *dec, const char *id)
{
    for (size_t i = 0; id && i < dec->n_blocks; i++)
        if (dec->blocks[i].kind == BLOCK_SERVER_TOOL && str_eq(dec->blocks[i].id, id))
            return dec->blocks[i].name;
    return NULL;
}

static int is_server_result_type(const char *type)
{
    return type && strcmp(type, "tool_result") && ends_with(type, "_tool_result");
}

/* content_block_start (and, for a whole response, each content block). */
static int block_start(decoder *dec, block *b, json_object *cb, seam_emitter *em,
                       seam_error *err)
{
    const char *type = jstr(cb, "type");
    int rc = SEAM_OK;
    /* Reasoning blocks have no id on the wire: number them per decoder, so
     * that ids stay unique even across the messages of one stream. */
    char idbuf[32];
    snprintf(idbuf, sizeof idbuf, "rs_%u", ++dec->n_ids);
    block_clear(b);
    b->open = 1;
    if (str_eq(type, "text")) {
        b->kind = BLOCK_TEXT;
        return emit_text(em, jstr(cb, "text"));
    }
    if (str_eq(type, "thinking") || str_eq(type, "redacted_thinking")) {
        int redacted = str_eq(type, "redacted_thinking");
        b->kind = redacted ? BLOCK_REDACTED : BLOCK_THINKING;
        b->id = xstrdup(idbuf);
        if (!b->id)
            return nomem(err);
        seam_chunk c = { .type = SEAM_CHUNK_REASONING_START, .id = b->id };
        if ((rc = emit(em, &c)) != SEAM_OK)
            return rc;
        /* Redacted data is the part's (opaque) text; a thinking block that
         * arrives whole (a whole response) carries its text and signature. */
        const char *text = jstr(cb, redacted ? "data" : "thinking");
        if (text && *text) {
            seam_chunk d = { .type = SEAM_CHUNK_REASONING_DELTA, .id = b->id, .text = text };
            if ((rc = emit(em, &d)) != SEAM_OK)
                return rc;
        }
        const char *sig = jstr(cb, "signature");
        if (sig && sb_puts(&b->text, sig) != SEAM_OK)
            return nomem(err);
        return SEAM_OK;
    }
    if (str_eq(type, "tool_use") || str_eq(type, "server_tool_use") ||
        str_eq(type, "mcp_tool_use")) {
        const char *id = jstr(cb, "id"), *name = jstr(cb, "name");
        b->id = xstrdup(id ? id : idbuf);
        b->name = xstrdup(name ? name : "");
        if (!b->id || !b->name)
            return nomem(err);
        /* A whole response carries the input; a stream starts it as {} and
         * sends input_json_delta fragments. */
        json_object *input = member(cb, "input", json_type_object);
        if (input && json_object_object_length(input) > 0 &&
            sb_puts(&b->text, json_text(input)) != SEAM_OK)
            return nomem(err);
        if (!str_eq(type, "tool_use")) {
            b->kind = BLOCK_SERVER_TOOL;
            return SEAM_OK;
        }
        if (dec->json_tool && str_eq(name, JSON_TOOL_NAME)) {
            /* Emitted whole at the block's end, normalized, so that a stream
             * and a whole response give the same text. */
            b->kind = BLOCK_JSON_ANSWER;
            return SEAM_OK;
        }
        b->kind = BLOCK_TOOL_USE;
        seam_chunk c = { .type = SEAM_CHUNK_TOOL_CALL_START, .id = b->id, .name = b->name };
        if ((rc = emit(em, &c)) != SEAM_OK)
            return rc;
        if (b->text.len) {
            seam_chunk d = { .type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = b->id, .text = b->text.data };
            rc = emit(em, &d);
        }
        return rc;
    }
    if (is_server_result_type(type)) {
        b->kind = BLOCK_SERVER_RESULT;
        const char *id = jstr(cb, "tool_use_id");
        json_object *content = member(cb, "content", json_type_null);
        const char *name = server_tool_name(dec, id);
        char derived[128];
        if (!name) {
            /* web_search_tool_result -> web_search */
            size_t n = strlen(type) - strlen("_tool_result");
            if (n >= sizeof derived)
                n = sizeof derived - 1;
            memcpy(derived, type, n);
            derived[n] = '\0';
            name = derived;
        }
        b->id = xstrdup(id ? id : idbuf);
        b->name = xstrdup(name);
        b->type = xstrdup(type);
        b->result_json = xstrdup(content ? json_text(content) : "null");
        if (!b->id || !b->name || !b->type || !b->result_json)
            return nomem(err);
        json_object *is_err = member(cb, "is_error", json_type_boolean);
        const char *ctype = jstr(content, "type");
        b->is_error = (is_err && json_object_get_boolean(is_err)) ||
                      (ctype && ends_with(ctype, "_error"));
        return SEAM_OK;
    }
    b->kind = BLOCK_IGNORED;
    return SEAM_OK;
}

/* The members of a delta that matter, each NULL when absent or not a string:
 * the json-c path and the scanner both end here. */
typedef struct delta_fields {
    const char *type, *text, *thinking, *signature, *partial_json;
} delta_fields;

static int block_delta_fields(decoder *dec, block *b, const delta_fields *f, seam_emitter *em,
                              seam_error *err)
{
    (void)dec;
    const char *type = f->type;
    if (!b->open)
        return SEAM_OK;
    if (str_eq(type, "text_delta") && b->kind == BLOCK_TEXT)
        return emit_text(em, f->text);
    if (str_eq(type, "thinking_delta") && b->kind == BLOCK_THINKING) {
        const char *t = f->thinking;
        if (!t || !*t)
            return SEAM_OK;
        seam_chunk c = { .type = SEAM_CHUNK_REASONING_DELTA, .id = b->id, .text = t };
        return emit(em, &c);
    }
    if (str_eq(type, "signature_delta") && b->kind == BLOCK_THINKING) {
        /* The signature arrives whole, but appending is as cheap and also right
         * should it ever come in pieces. */
        if (sb_puts(&b->text, f->signature) != SEAM_OK)
            return nomem(err);
        return SEAM_OK;
    }
    if (str_eq(type, "input_json_delta")) {
        const char *frag = f->partial_json;
        if (!frag || !*frag)
            return SEAM_OK;
        if (b->kind == BLOCK_TOOL_USE || b->kind == BLOCK_SERVER_TOOL ||
            b->kind == BLOCK_JSON_ANSWER) {
            if (sb_puts(&b->text, frag) != SEAM_OK)
                return nomem(err);
        }
        if (b->kind == BLOCK_TOOL_USE) {
            seam_chunk c = { .type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = b->id, .text = frag };
            return emit(em, &c);
        }
    }
    /* citations_delta and unknown deltas carry nothing the seam types hold. */
    return SEAM_OK;
}

static int block_delta(decoder *dec, block *b, json_object *delta, seam_emitter *em,
                       seam_error *err)
{
    delta_fields f = { jstr(delta, "type"), jstr(delta, "text"), jstr(delta, "thinking"),
                       jstr(delta, "signature"), jstr(delta, "partial_json") };
    return block_delta_fields(dec, b, &f, em, err);
}

static int block_stop(decoder *dec, block *b, seam_emitter *em, seam_error *err)
{
    (void)dec;
    if (!b->open)
        return SEAM_OK;
    b->open = 0;
    switch (b->kind) {
    case BLOCK_THINKING:
    case BLOCK_REDACTED: {
        seam_chunk c = { .type = SEAM_CHUNK_REASONING_END,
                         .id = b->id,
                         .signature = b->text.len ? b->text.data : NULL,
                         .redacted = b->kind == BLOCK_REDACTED };
        return emit(em, &c);
    }
    case BLOCK_TOOL_USE: {
        /* Parsed once, at the end; an empty input means {}. Text that is not
         * an object goes to the accumulator as is, which keeps the call with {}
         * and records the error. */
        const char *args = "{}";
        json_object *parsed = NULL;
        if (b->text.len) {
            parsed = json_parse_strict(b->text.data, b->text.len);
            args = parsed && json_object_is_type(parsed, json_type_object) ? json_text(parsed)
                                                                          : b->text.data;
        }
        seam_chunk c = { .type = SEAM_CHUNK_TOOL_CALL_END,
                         .id = b->id,
                         .name = b->name,
                         .args_json = args };
        int rc = emit(em, &c);
        json_object_put(parsed);
        return rc;
    }
    case BLOCK_JSON_ANSWER: {
        json_object *parsed = b->text.len ? json_parse_strict(b->text.data, b->text.len) : NULL;
        int rc = emit_text(em, parsed ? json_text(parsed) : b->text.len ? b->text.data : "{}");
        json_object_put(parsed);
        return rc;
    }
    case BLOCK_SERVER_RESULT: {
        seam_chunk c = { .type = SEAM_CHUNK_TOOL_RESULT,
                         .id = b->id,
                         .name = b->name,
                         .result_json = b->result_json,
                         .is_error = b->is_error };
        return emit(em, &c);
    }
    default:
        break;
    }
    (void)err;
    return SEAM_OK;
}

static int emit_stop(decoder *dec, seam_emitter *em)
{
    seam_chunk c = { .type = SEAM_CHUNK_STOP, .usage = dec->usage };
    c.stop_reason = dec->stop_reason != SEAM_STOP_NONE ? dec->stop_reason : SEAM_STOP_STOP;
    /* The JSON answer was a forced tool call, but to the caller it is the answer. */
    if (dec->json_tool && c.stop_reason == SEAM_STOP_TOOL_USE)
        c.stop_reason = SEAM_STOP_STOP;
    dec->stopped = 1;
    return emit(em, &c);
}

/* Blocks that arrive whole (a non-streamed body, or content already present
 * in message_start): each is started and stopped at once, at its index. */
static int fold_whole_blocks(decoder *dec, json_object *content, seam_emitter *out,
                             seam_error *err)
{
    size_t n = content ? json_object_array_length(content) : 0;
    int rc = SEAM_OK;
    for (size_t i = 0; i < n && rc == SEAM_OK; i++) {
        block *b = block_at(dec, (int64_t)i, err, &rc);
        if (!b)
            break;
        rc = block_start(dec, b, json_object_array_get_idx(content, i), out, err);
        if (rc == SEAM_OK)
            rc = block_stop(dec, b, out, err);
    }
    return rc;
}

/* message_start: usage so far, and whatever content and stop reason the
 * message already holds. A message_start after message_stop (recordings that
 * hold several messages back to back) opens the next message of the stream. */
static int message_start(decoder *dec, json_object *msg, seam_emitter *out, seam_error *err)
{
    if (dec->stopped) {
        for (size_t i = 0; i < dec->n_blocks; i++)
            block_clear(&dec->blocks[i]);
        dec->stopped = 0;
        dec->stop_reason = SEAM_STOP_NONE;
    }
    read_usage(&dec->usage, member(msg, "usage", json_type_object));
    const char *reason = jstr(msg, "stop_reason");
    if (reason)
        dec->stop_reason = map_stop_reason(reason);
    return fold_whole_blocks(dec, member(msg, "content", json_type_array), out, err);
}

static int decode_error_event(json_object *ev, seam_error *err)
{
    json_object *eobj = member(ev, "error", json_type_object);
    if (err) {
        err->kind = SEAM_ERROR_NONE;
        classify_error_object(eobj, 0, err);
        if (!eobj)
            snprintf(err->message, sizeof err->message, "anthropic: error event without detail");
    }
    return SEAM_ERR_PROVIDER;
}

/* ---- the fast path ---------------------------------------------------------
 *
 * Nearly every event of a long stream is a content_block_delta (text, thinking
 * or a tool's input JSON). Those are scanned in place (json_scan.h) and handed
 * to block_delta_fields, as the json-c path would. Any other event, or one the
 * scanner is unsure of, goes the json-c way before anything is emitted. */
static int scan_delta(jscan *s, delta_fields *f)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        const char **dst = NULL;
        int bit = 0;
        if (JSCAN_KEY(k, kl, "type"))
            dst = &f->type, bit = 1;
        else if (JSCAN_KEY(k, kl, "text"))
            dst = &f->text, bit = 2;
        else if (JSCAN_KEY(k, kl, "thinking"))
            dst = &f->thinking, bit = 4;
        else if (JSCAN_KEY(k, kl, "signature"))
            dst = &f->signature, bit = 8;
        else if (JSCAN_KEY(k, kl, "partial_json"))
            dst = &f->partial_json, bit = 16;
        if (bit & seen)
            return 0;
        seen |= bit;
        if (!(dst ? jscan_string_or_null(s, dst) : jscan_skip(s)))
            return 0;
    }
    return r == 0;
}

/* 1 when the event was a content_block_delta decoded here (*rc its status),
 * 0 when it must take the json-c path. */
static int scan_event(decoder *dec, const seam_frame *frame, seam_emitter *out, seam_error *err,
                      int *rc)
{
    jscan s;
    if (dec->stopped || !jscan_begin(&s, &dec->scan, frame->data, frame->data_len) ||
        !jscan_object(&s))
        return 0;
    delta_fields f = { 0 };
    const char *type = NULL, *k;
    size_t kl;
    int64_t index = 0;
    int r, seen = 0, have_delta = 0;
    while ((r = jscan_member(&s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "type")    ? 1
                  : JSCAN_KEY(k, kl, "index") ? 2
                  : JSCAN_KEY(k, kl, "delta") ? 4
                                                 : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        int ok;
        if (bit == 1)
            ok = jscan_string(&s, &type) && strcmp(type, "content_block_delta") == 0;
        else if (bit == 2)
            /* a negative or huge index is json-c's (and block_at's) to refuse */
            ok = jscan_int(&s, &index) && index >= 0 && index < MAX_BLOCK_INDEX;
        else if (bit == 4)
            ok = have_delta = scan_delta(&s, &f);
        else
            ok = jscan_skip(&s);
        if (!ok)
            return 0;
    }
    if (r != 0 || !type || !have_delta || !jscan_end(&s))
        return 0;
    *rc = SEAM_OK;
    block *b = block_at(dec, index, err, rc);
    if (b)
        *rc = block_delta_fields(dec, b, &f, out, err);
    return 1;
}

static int decode_event(void *d, const seam_frame *frame, seam_emitter *out, seam_error *err)
{
    decoder *dec = d;
    if (!frame || !frame->data)
        return SEAM_OK;
    int rc_fast;
    if (scan_event(dec, frame, out, err, &rc_fast))
        return rc_fast;
    json_object *ev = json_parse_strict(frame->data, frame->data_len);
    if (!ev || !json_object_is_type(ev, json_type_object)) {
        json_object_put(ev);
        if (frame->data_len == 0)
            return SEAM_OK;
        return codec_protocol_error(err, "anthropic: a stream event is not a JSON object");
    }
    const char *type = jstr(ev, "type");
    if (!type)
        type = frame->event;
    int rc = SEAM_OK;
    if (!type || (dec->stopped && strcmp(type, "message_start"))) {
        /* nothing to do: a typeless event, or data after message_stop */
    } else if (!strcmp(type, "message_start")) {
        rc = message_start(dec, member(ev, "message", json_type_object), out, err);
    } else if (!strcmp(type, "content_block_start") || !strcmp(type, "content_block_delta") ||
               !strcmp(type, "content_block_stop")) {
        json_object *index = member(ev, "index", json_type_int);
        block *b = block_at(dec, index ? json_object_get_int64(index) : 0, err, &rc);
        if (b) {
            if (!strcmp(type, "content_block_start"))
                rc = block_start(dec, b, member(ev, "content_block", json_type_object), out, err);
            else if (!strcmp(type, "content_block_delta"))
                rc = block_delta(dec, b, member(ev, "delta", json_type_object), out, err);
            else
                rc = block_stop(dec, b, out, err);
        }
    } else if (!strcmp(type, "message_delta")) {
        json_object *delta = member(ev, "delta", json_type_object);
        const char *reason = jstr(delta, "stop_reason");
        if (reason)
            dec->stop_reason = map_stop_reason(reason);
        read_usage(&dec->usage, member(ev, "usage", json_type_object));
    } else if (!strcmp(type, "message_stop")) {
        /* The stop reason comes in message_delta (or message_start): a
         * message_stop without it ends an answer cut short upstream. */
        if (dec->stop_reason == SEAM_STOP_NONE)
            rc = codec_protocol_error(err, "anthropic: message_stop before a stop_reason: "
                                           "the response is incomplete");
        else
            rc = emit_stop(dec, out);
    } else if (!strcmp(type, "error")) {
        rc = decode_error_event(ev, err);
    }
    /* ping and event types added later carry nothing to fold. */
    json_object_put(ev);
    return rc;
}

/* A body that ended cleanly without message_stop: complete when message_delta
 * already gave the stop reason (nothing but message_stop can follow it). */
static int decode_finish(void *d, seam_emitter *out, seam_error *err)
{
    decoder *dec = d;
    (void)err;
    if (dec->stopped || dec->stop_reason == SEAM_STOP_NONE)
        return SEAM_OK;
    return emit_stop(dec, out);
}

static int decode_response(void *instance, const seam_request *req, const char *body,
                           size_t len, seam_emitter *out, seam_error *err)
{
    json_object *msg = json_parse_strict(body, len);
    if (!msg || !json_object_is_type(msg, json_type_object)) {
        json_object_put(msg);
        return seam_error_set(err, SEAM_ERROR_TRANSPORT,
                              "anthropic: the response is not a JSON object");
    }
    if (str_eq(jstr(msg, "type"), "error")) {
        int rc = decode_error_event(msg, err);
        json_object_put(msg);
        return rc;
    }
    decoder *dec = decoder_new(instance, req);
    if (!dec) {
        json_object_put(msg);
        return nomem(err);
    }
    read_usage(&dec->usage, member(msg, "usage", json_type_object));
    int rc = fold_whole_blocks(dec, member(msg, "content", json_type_array), out, err);
    if (rc == SEAM_OK) {
        dec->stop_reason = map_stop_reason(jstr(msg, "stop_reason"));
        rc = emit_stop(dec, out);
    }
    decoder_free(dec);
    json_object_put(msg);
    return rc;
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
    .decoder_new = decoder_new,
    .decoder_free = decoder_free,
    .decode_event = decode_event,
    .decode_finish = decode_finish,
    .decode_response = decode_response,
    .classify_error = anthropic_classify_error,
    .capabilities = anthropic_capabilities,
    .serve = NULL,
};

static int anthropic_init(seam_registrar *r)
{
    return seam_registrar_add(r, &anthropic_vtable);
}

SEAM_PLUGIN_DEFINE(anthropic_init)
