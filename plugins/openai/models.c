/* models.c — the openai plugin's model-family tables: OpenAI's model rules
 * (which reasoning parameters, efforts and tool rules each family takes) with
 * the effort ladder, and the capabilities per model family of every vendor
 * served on this wire, with the conf's overrides (the vtable's capabilities). */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* ==== model families ======================================================== */

/* The model id without a "vendor/" prefix (OpenRouter, Groq, vLLM ids). */
const char *oa_model_base(const char *model)
{
    if (!model)
        return "";
    const char *slash = strrchr(model, '/');
    return slash ? slash + 1 : model;
}

/* 1 when model starts with prefix at a name boundary ("o1" matches "o1-pro",
 * "o1", not "o10"). */
int oa_model_is(const char *model, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncasecmp(model, prefix, n) != 0)
        return 0;
    char c = model[n];
    return c == '\0' || c == '-' || c == ':' || c == '.' || c == '_' || c == '@';
}

/* ---- OpenAI's model rules ----------------------------------------------------
 *
 * What each OpenAI reasoning family accepts, from OpenAI's model pages and
 * guides (developers.openai.com/api/docs/models/<id>, .../guides/latest-model,
 * .../guides/deployment-checklist) and the errors the API answers with:
 *   - every reasoning family takes max_completion_tokens (max_tokens is refused
 *     by gpt-6-sol and later) and a developer message; temperature and top_p
 *     are refused unless the effort is "none" (deployment checklist: "When
 *     reasoning effort is not none, remove temperature, top_p ...").
 *   - effort values: o-series low/medium/high; gpt-5 minimal..high; gpt-5.1
 *     none..high; gpt-5.2 to 5.5 none..xhigh; gpt-5.6, gpt-6-luna, gpt-6-sol and
 *     gpt-6.1-terra none..max; gpt-6-astra, gpt-6.1-sol, gpt-6.2-astra and
 *     gpt-6.2-sol low..max (they refuse "none").
 *   - from gpt-5.4 on, Chat Completions refuses function tools unless
 *     reasoning_effort is "none" — even with no effort sent, because the
 *     default is not none ("Function tools with reasoning_effort are not
 *     supported for gpt-5.6-sol in /v1/chat/completions. To use function tools,
 *     use /v1/responses or set reasoning_effort to 'none'."). The deployment
 *     checklist: "GPT-6 Astra and GPT-6.1 Sol require Responses for tool
 *     calling; GPT-6 Sol and GPT-6 Luna support function calling in Chat
 *     Completions only with reasoning_effort: \"none\"".
 * A model of a family not listed takes its family's entry (gpt-6.3-x that of
 * gpt-6); the "-chat" variants of gpt-5.x are chat models without an effort.
 * Other vendors' models (and other profiles) get no rules. */
#define EF_LMH (EF_LOW | EF_MEDIUM | EF_HIGH)
#define EF_TO_XHIGH (EF_NONE | EF_LMH | EF_XHIGH)
#define EF_TO_MAX (EF_NONE | EF_LMH | EF_XHIGH | EF_MAX)
#define EF_NO_NONE (EF_LMH | EF_XHIGH | EF_MAX)

typedef struct openai_family {
    const char *prefix;
    oa_model_rules rules;
} openai_family;

/* First match wins: longer prefixes come before the shorter ones they extend. */
static const openai_family openai_families[] = {
    {"gpt-6.2", {1, EF_NO_NONE, 1}},       /* gpt-6.2-astra, gpt-6.2-sol */
    {"gpt-6.1-sol", {1, EF_NO_NONE, 1}},
    {"gpt-6.1-terra", {1, EF_TO_MAX, 1}},
    {"gpt-6-astra", {1, EF_NO_NONE, 1}},
    {"gpt-6", {1, EF_TO_MAX, 1}},          /* gpt-6-luna, gpt-6-sol */
    {"gpt-5.6", {1, EF_TO_MAX, 1}},        /* gpt-5.6-sol, -terra, -luna */
    {"gpt-5.5", {1, EF_TO_XHIGH, 1}},
    {"gpt-5.4", {1, EF_TO_XHIGH, 1}},
    {"gpt-5.3", {1, EF_TO_XHIGH, 0}},
    {"gpt-5.2", {1, EF_TO_XHIGH, 0}},
    {"gpt-5.1", {1, EF_NONE | EF_LMH, 0}},
    {"gpt-5-chat", {0, 0, 0}},             /* the non-reasoning chat model */
    {"gpt-5", {1, EF_MINIMAL | EF_LMH, 0}}, /* gpt-5, -mini, -nano, -codex */
    {"o1", {1, EF_LMH, 0}},
    {"o3", {1, EF_LMH, 0}},
    {"o4-mini", {1, EF_LMH, 0}},
    {"o4", {1, EF_LMH, 0}},
    {"codex-mini", {1, EF_LMH, 0}},
};

void oa_model_rules_of(const oa_instance *in, const char *model, oa_model_rules *out)
{
    memset(out, 0, sizeof *out);
    if (!in || !in->openai_rules)
        return;
    const char *m = oa_model_base(model);
    for (size_t i = 0; i < sizeof openai_families / sizeof openai_families[0]; i++) {
        if (!oa_model_is(m, openai_families[i].prefix))
            continue;
        *out = openai_families[i].rules;
        /* gpt-5.1-chat-latest and the like: reasoning-model parameters, but no
         * documented effort and no tool rule. */
        if (out->reasoning && strncasecmp(m, "gpt-", 4) == 0 && contains_ci(m, "-chat")) {
            out->efforts = 0;
            out->tools_need_none = 0;
        }
        return;
    }
}

const char *oa_effort_for_budget(unsigned efforts, int64_t budget, int allow_max)
{
    static const struct {
        unsigned bit;
        const char *name;
        int64_t below; /* the budget reaches the next level at this many tokens */
    } ladder[] = {{EF_LOW, "low", 4096},       {EF_MEDIUM, "medium", 16384},
                  {EF_HIGH, "high", 32768},    {EF_XHIGH, "xhigh", 65536},
                  {EF_MAX, "max", INT64_MAX}};
    const size_t n = sizeof ladder / sizeof ladder[0];
    if (!allow_max)
        efforts &= ~(unsigned)EF_MAX;
    size_t level = 0;
    while (level + 1 < n && budget >= ladder[level].below)
        level++;
    for (size_t i = level + 1; i-- > 0;) /* the highest accepted at or below */
        if (efforts & ladder[i].bit)
            return ladder[i].name;
    for (size_t i = level + 1; i < n; i++) /* else the lowest accepted above */
        if (efforts & ladder[i].bit)
            return ladder[i].name;
    return NULL;
}

enum {
    CAP_TOOLS = 1u << 0,
    CAP_PARALLEL = 1u << 1,
    CAP_VISION = 1u << 2,
    CAP_REASONING = 1u << 3,
    CAP_STRUCTURED = 1u << 4,
    CAP_CACHE = 1u << 5,
    CAP_AUDIO = 1u << 6,
    CAP_PDF = 1u << 7,
    CAP_AUDIO_OUT = 1u << 8 /* answers in text and audio (modalities, audio.c) */
};

typedef struct model_family {
    const char *prefix;
    unsigned caps;
    int64_t context_window;
    int64_t max_output;
} model_family;

#define CAP_CHAT (CAP_TOOLS | CAP_PARALLEL)
/* First match wins: longer prefixes come before the shorter ones they extend. */
static const model_family families[] = {
    /* OpenAI. GPT-6 and GPT-5.6: 1,050,000-token window (at most 922,000 of it
     * input), 128,000 output (their model pages). GPT-5.4 and 5.5: not checked
     * here, so no window (the model catalog's applies). */
    {"gpt-6", CAP_CHAT | CAP_VISION | CAP_REASONING | CAP_STRUCTURED | CAP_CACHE | CAP_PDF, 1050000, 128000},
    {"gpt-5.6", CAP_CHAT | CAP_VISION | CAP_REASONING | CAP_STRUCTURED | CAP_CACHE | CAP_PDF, 1050000, 128000},
    {"gpt-5.5", CAP_CHAT | CAP_VISION | CAP_REASONING | CAP_STRUCTURED | CAP_CACHE | CAP_PDF, 0, 0},
    {"gpt-5.4", CAP_CHAT | CAP_VISION | CAP_REASONING | CAP_STRUCTURED | CAP_CACHE | CAP_PDF, 0, 0},
    {"gpt-5-chat", CAP_CHAT | CAP_VISION | CAP_STRUCTURED | CAP_CACHE | CAP_PDF, 128000, 16384},
    {"gpt-5", CAP_CHAT | CAP_VISION | CAP_REASONING | CAP_STRUCTURED | CAP_CACHE | CAP_PDF, 400000, 128000},
    {"gpt-4.1", CAP_CHAT | CAP_VISION | CAP_STRUCTURED | CAP_CACHE | CAP_PDF, 1047576, 32768},
    {"gpt-4o-audio-preview", CAP_CHAT | CAP_AUDIO | CAP_AUDIO_OUT, 128000, 16384},
    {"gpt-4o-mini-audio-preview", CAP_CHAT | CAP_AUDIO | CAP_AUDIO_OUT, 128000, 16384},
    {"gpt-audio", CAP_CHAT | CAP_AUDIO | CAP_AUDIO_OUT, 128000, 16384},
    {"gpt-4o", CAP_CHAT | CAP_VISION | CAP_STRUCTURED | CAP_CACHE | CAP_PDF, 128000, 16384},
    {"gpt-4-turbo", CAP_CHAT | CAP_VISION, 128000, 4096},
    {"gpt-4", CAP_TOOLS, 8192, 8192},
    {"gpt-3.5-turbo", CAP_CHAT, 16385, 4096},
    {"o1-mini", CAP_REASONING, 128000, 65536},
    {"o1", CAP_TOOLS | CAP_VISION | CAP_REASONING | CAP_STRUCTURED | CAP_CACHE, 200000, 100000},
    {"o3-mini", CAP_TOOLS | CAP_PARALLEL | CAP_REASONING | CAP_STRUCTURED | CAP_CACHE, 200000, 100000},
    {"o3", CAP_CHAT | CAP_VISION | CAP_REASONING | CAP_STRUCTURED | CAP_CACHE | CAP_PDF, 200000, 100000},
    {"o4-mini", CAP_CHAT | CAP_VISION | CAP_REASONING | CAP_STRUCTURED | CAP_CACHE | CAP_PDF, 200000, 100000},
    {"codex-mini", CAP_CHAT | CAP_VISION | CAP_REASONING | CAP_STRUCTURED | CAP_CACHE, 200000, 100000},
    {"gpt-oss", CAP_TOOLS | CAP_REASONING | CAP_STRUCTURED, 131072, 65536},
    /* DeepSeek */
    {"deepseek-reasoner", CAP_TOOLS | CAP_REASONING | CAP_CACHE, 128000, 65536},
    {"deepseek-chat", CAP_CHAT | CAP_CACHE, 128000, 8192},
    {"deepseek-r1", CAP_REASONING, 128000, 32768},
    {"deepseek-v3", CAP_CHAT, 128000, 8192},
    /* xAI */
    {"grok-4", CAP_CHAT | CAP_VISION | CAP_REASONING | CAP_STRUCTURED | CAP_CACHE, 256000, 0},
    {"grok-3-mini", CAP_CHAT | CAP_REASONING | CAP_STRUCTURED | CAP_CACHE, 131072, 0},
    {"grok-3", CAP_CHAT | CAP_STRUCTURED | CAP_CACHE, 131072, 0},
    {"grok-code-fast", CAP_CHAT | CAP_REASONING | CAP_STRUCTURED | CAP_CACHE, 256000, 0},
    {"grok-2-vision", CAP_TOOLS | CAP_VISION, 32768, 0},
    /* Mistral */
    {"magistral", CAP_TOOLS | CAP_REASONING | CAP_STRUCTURED, 128000, 0},
    {"mistral-large", CAP_CHAT | CAP_STRUCTURED, 131072, 0},
    {"mistral-medium", CAP_CHAT | CAP_VISION | CAP_STRUCTURED, 131072, 0},
    {"mistral-small", CAP_CHAT | CAP_VISION | CAP_STRUCTURED, 131072, 0},
    {"pixtral", CAP_CHAT | CAP_VISION | CAP_STRUCTURED, 131072, 0},
    {"codestral", CAP_CHAT | CAP_STRUCTURED, 256000, 0},
    {"ministral", CAP_CHAT | CAP_STRUCTURED, 131072, 0},
    {"devstral", CAP_CHAT | CAP_STRUCTURED, 131072, 0},
    /* open-weight families served by Groq, OpenRouter, Ollama, vLLM */
    {"llama-4", CAP_CHAT | CAP_VISION | CAP_STRUCTURED, 131072, 8192},
    {"llama-3.3-70b", CAP_CHAT, 131072, 32768},
    {"llama-3.1-8b", CAP_CHAT, 131072, 131072},
    {"llama3.2-vision", CAP_VISION, 131072, 0},
    {"llava", CAP_VISION, 4096, 0},
    {"qwen3", CAP_TOOLS | CAP_REASONING, 131072, 0},
    {"qwq", CAP_TOOLS | CAP_REASONING, 131072, 0},
    {"kimi-k2", CAP_CHAT, 131072, 16384},
};
#define N_FAMILIES (sizeof families / sizeof families[0])

static const model_family *family_of(const char *model)
{
    const char *m = oa_model_base(model);
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (oa_model_is(m, families[i].prefix))
            return &families[i];
    return NULL;
}

/* ==== capabilities ============================================================ */

static void apply_cap_overrides(json_object *o, seam_capabilities *caps)
{
    json_object *v;
#define FLAG(key, member)                                                                   \
    if ((v = jget(o, key)) && json_object_is_type(v, json_type_boolean))                    \
        caps->member = json_object_get_boolean(v) ? 1 : 0;
    FLAG("tools", tools)
    FLAG("streaming", streaming)
    FLAG("parallel_tool_calls", parallel_tool_calls)
    FLAG("vision", vision)
    FLAG("audio_input", audio_input)
    FLAG("pdf_input", pdf_input)
    FLAG("prompt_cache", prompt_cache)
    FLAG("reasoning", reasoning)
    FLAG("structured_output", structured_output)
    FLAG("embed", embed)
#undef FLAG
    int64_t n;
    if (jint(o, "context_window", &n))
        caps->context_window = n;
    if (jint(o, "max_output_tokens", &n))
        caps->max_output_tokens = n;
}

int oa_capabilities(void *instance, const char *model, seam_capabilities *out)
{
    const oa_instance *in = instance;
    if (!out)
        return SEAM_ERR_INVALID;
    seam_capabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.size = sizeof caps;
    caps.streaming = 1;
    const model_family *fam = family_of(model);
    if (model && strstr(oa_model_base(model), "embed")) {
        /* text-embedding-3-*, mistral-embed, nomic-embed-text: /embeddings only. */
        caps.streaming = 0;
        caps.embed = 1;
    } else if (fam) {
        caps.tools = (fam->caps & CAP_TOOLS) != 0;
        caps.parallel_tool_calls = (fam->caps & CAP_PARALLEL) != 0;
        caps.vision = (fam->caps & CAP_VISION) != 0;
        caps.reasoning = (fam->caps & CAP_REASONING) != 0;
        caps.structured_output = (fam->caps & CAP_STRUCTURED) != 0;
        caps.prompt_cache = (fam->caps & CAP_CACHE) != 0;
        caps.audio_input = (fam->caps & CAP_AUDIO) != 0;
        caps.pdf_input = (fam->caps & CAP_PDF) != 0;
        if (fam->caps & CAP_AUDIO_OUT) {
            caps.output_combinations[0] = SEAM_MODALITY_TEXT;
            caps.output_combinations[1] = SEAM_MODALITY_TEXT | SEAM_MODALITY_AUDIO;
            caps.n_output_combinations = 2;
        }
        caps.context_window = fam->context_window;
        caps.max_output_tokens = fam->max_output;
    } else {
        caps.tools = 1; /* an unknown model on a compatible server: tools usually work */
        caps.embed = 1; /* ...and it may be an embedding model: not held against it */
    }
    if (in && in->caps_json) {
        json_object *o = json_parse_strict(in->caps_json, strlen(in->caps_json));
        apply_cap_overrides(o, &caps);
        json_object *models = jget(o, "models");
        if (json_object_is_type(models, json_type_array) && model) {
            for (size_t i = 0; i < json_object_array_length(models); i++) {
                json_object *m = json_object_array_get_idx(models, i);
                const char *match = jstr(m, "match");
                if (match && (strncasecmp(model, match, strlen(match)) == 0 ||
                              strncasecmp(oa_model_base(model), match, strlen(match)) == 0))
                    apply_cap_overrides(m, &caps);
            }
        }
        json_object_put(o);
    }
    /* Never write past the caller's struct (an older core passes a smaller one). */
    size_t n = out->size && out->size < sizeof caps ? out->size : sizeof caps;
    uint32_t their_size = out->size ? out->size : (uint32_t)sizeof caps;
    memcpy(out, &caps, n);
    out->size = their_size < sizeof caps ? their_size : (uint32_t)sizeof caps;
    return SEAM_OK;
}
