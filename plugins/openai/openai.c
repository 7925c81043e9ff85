/* openai.c — the OpenAI-compatible provider plugin (provider id "openai").
 *
 * A codec for `POST {base_url}/chat/completions`, the wire spoken by OpenAI and
 * by most other providers and local servers; requests that need OpenAI's
 * Responses API (`POST {base_url}/responses`) are handed to the codec in
 * openai_responses.c (see options.api below). This file owns:
 *   - encode: seam request -> Chat Completions JSON body, URL and headers;
 *   - decode: SSE `chat.completion.chunk` events (and a whole non-streamed body)
 *     -> seam chunks, with tool calls assembled by index, the reasoning channel,
 *     finish reasons and usage normalized net of cache;
 *   - classify_error: an error answer -> a classified seam_error;
 *   - capabilities: per model family defaults, overridable in the conf;
 *   - profiles: the quirks of the servers that speak this wire.
 *
 * Profiles. `options.profile` in a provider's conf block selects one; without it
 * the profile is inferred from the base_url host (api.deepseek.com -> deepseek,
 * api.groq.com -> groq, api.mistral.ai -> mistral, api.x.ai -> xai,
 * openrouter.ai -> openrouter, port 11434 -> ollama), else, when no base_url is
 * given, from the provider's conf name, else "openai". What each one changes:
 *
 *   openai      https://api.openai.com/v1, key OPENAI_API_KEY. OpenAI's model
 *               rules (table and sources at oa_model_rules_of): for the reasoning
 *               families (o1, o3, o4, codex-mini, gpt-5 and gpt-5.x except the
 *               -chat models, gpt-6.x) `max_completion_tokens` instead of
 *               `max_tokens`, the system prompt as a `developer` message, no
 *               `temperature` (refused unless the effort is "none"). From
 *               gpt-5.4 on, function tools on Chat Completions need
 *               `reasoning_effort: "none"`: a request with tools gets "none"
 *               (its reasoning budget cannot apply, and temperature is sent),
 *               except on the models that refuse "none" (gpt-6-astra,
 *               gpt-6.1-sol, gpt-6.2-*), which go to the Responses API.
 *   deepseek    https://api.deepseek.com/v1, key DEEPSEEK_API_KEY. JSON output as
 *               `json_object` (no json_schema on this server); reasoning arrives
 *               as `reasoning_content`; cache hits as `prompt_cache_hit_tokens`;
 *               no `temperature` for deepseek-reasoner (documented as not
 *               supported there).
 *   groq        https://api.groq.com/openai/v1, key GROQ_API_KEY. No
 *               `stream_options` (usage arrives in `x_groq.usage` anyway);
 *               reasoning arrives as `reasoning`, or as <think> in content (its
 *               default reasoning_format "raw"): think_tags on.
 *   mistral     https://api.mistral.ai/v1, key MISTRAL_API_KEY. No
 *               `stream_options` (the server rejects unknown fields with 422 and
 *               always sends usage on the last chunk); tool messages carry the
 *               tool `name`; content may be an array of text/thinking parts;
 *               tool call ids that are not 9 characters of [a-zA-Z0-9] (the
 *               only ones Mistral accepts) are sent as short ids derived from
 *               them, the same for a call and its result (see wire_id()).
 *   xai         https://api.x.ai/v1, key XAI_API_KEY. Reasoning models (grok-4,
 *               grok-3-mini, grok-code) reject `stop`: it is not sent to them.
 *   openrouter  https://openrouter.ai/api/v1, key OPENROUTER_API_KEY. Reasoning
 *               arrives as `reasoning`; model ids are "vendor/model".
 *   ollama      http://127.0.0.1:11434/v1, no key. think_tags on.
 *   vllm        http://127.0.0.1:8000/v1, no key (explicit profile only).
 *               think_tags on.
 *
 * The reasoning budget (seam_request_reasoning_budget, tokens; 0 sends
 * nothing) on each documented wire. Effort levels from a budget: three levels
 * "low" below 4096 tokens, "medium" below 16384, else "high"; two levels (low,
 * high) split at 8192. Where a server or model documents no control, nothing
 * is sent (several refuse unknown fields):
 *   openai      `reasoning_effort`, reasoning families only, on the ladder of
 *               oa_effort_for_budget() (low < 4096 <= medium < 16384 <= high <
 *               32768 <= xhigh) capped at the family's highest level ("max" is
 *               sent on the Responses API only); "none" with tools, see above.
 *   deepseek    nothing: deepseek-reasoner always reasons and has no budget or
 *               effort control; deepseek-chat does not reason.
 *   groq        openai/gpt-oss-*: `reasoning_effort` (three levels; Groq refuses
 *               `reasoning_format` for them). qwen/qwen3-*: `reasoning_effort`
 *               "default" (its only values are none/default) and
 *               `reasoning_format` "parsed". qwq, deepseek-r1-distill-*:
 *               `reasoning_format` "parsed". Other models: nothing.
 *   mistral     the adjustable models (mistral-small-latest, -2603, Small 4,
 *               mistral-medium-3-5): `reasoning_effort` "high" (the values are
 *               none/high). magistral reasons always: nothing.
 *   xai         grok-3-mini: `reasoning_effort` low/high (two levels);
 *               grok-4.3: `reasoning_effort` (three levels). grok-3, grok-4 and
 *               grok-4-fast refuse the field: nothing.
 *   openrouter  `reasoning: {max_tokens: budget}`.
 *   ollama      `reasoning_effort` (three levels): its /v1 endpoint maps it to
 *               thinking; the native `think` field is not read there.
 *   vllm        `thinking_token_budget: budget` (the server must run with
 *               --reasoning-parser and --reasoning-config; remove the field
 *               with the request option {"thinking_token_budget": null} if not).
 *
 * Decoding does not depend on the profile: every variant seen on this wire is
 * understood from every server. The one exception is <think> tags in content
 * (think_tags below), which could be an answer's own text.
 *
 * Options (the conf's `options` group, and a request's provider options merged
 * over it): these keys are the plugin's own and are not sent:
 *   profile            see above
 *   capabilities       { tools = true; vision = false; context_window = 32768; ...
 *                        models = ( { match = "llava"; vision = true; } ); }
 *                      overrides the family defaults (match is a model-id prefix)
 *   headers            { HTTP-Referer = "https://example.org"; } extra headers
 *                      (never a credential: Authorization, api-key and x-api-key are refused)
 *   max_tokens_param   "max_tokens" | "max_completion_tokens": force the field name
 *   stream_usage       true | false: send stream_options.include_usage or not
 *   api                "auto" (default) | "chat" | "responses": the endpoint.
 *                      auto: Chat Completions, except a request with function
 *                      tools for an OpenAI model (openai profile) that takes
 *                      them there only with effort "none" and refuses "none":
 *                      that one goes to /responses (a guaranteed 400 otherwise;
 *                      same key, same base_url). chat: always Chat Completions
 *                      (such a request then fails before sending, bad_request,
 *                      naming this option). responses: always the Responses API
 *                      (any profile whose server has /responses).
 *   reasoning_summary  "auto" (default) | "concise" | "detailed" | "none": the
 *                      Responses API's reasoning.summary for reasoning models
 *                      (OpenAI may require a verified organization for it).
 *   think_tags         true | false: a "<think>...</think>" that opens the content
 *                      is reasoning (servers running a reasoning model without a
 *                      reasoning parser put it there). Default: on for the groq,
 *                      ollama and vllm profiles and for a base_url no profile
 *                      names on a local host (loopback, localhost, private
 *                      IPv4, host.docker.internal); off otherwise.
 * (in a request's provider options these keys are ignored). Every other key is
 * merged into the request body as is, top-level keys replacing what the codec
 * wrote (the escape hatch); in a request's provider
 * options (JSON, unlike libconfig, has null) a null value removes a field the
 * codec would have sent, e.g. {"stream_options": null}.
 *
 * The usual key variables (profiles[].key_env) are documentation for the conf:
 * the core resolves credentials, this codec only asks for "Bearer <key>".
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include <seam/plugin.h>

#include "openai_internal.h"
#include "../common/json_scan.h"

/* ==== small helpers (the shared ones are in ../common/codec_util.c) ==== */

int jcount(json_object *obj, const char *key, int64_t *out)
{
    if (!jint(obj, key, out))
        return 0;
    if (*out < 0)
        *out = 0;
    else if (*out > OA_MAX_TOKENS)
        *out = OA_MAX_TOKENS;
    return 1;
}

/* ==== profiles ============================================================ */

enum {
    PF_STREAM_USAGE = 1u << 0,     /* send stream_options.include_usage */
    PF_OPENAI_REASONING = 1u << 1, /* OpenAI's model rules (oa_model_rules_of) and the auto endpoint */
    PF_JSON_SCHEMA = 1u << 2,      /* response_format json_schema (else json_object) */
    PF_TOOL_NAME = 1u << 3,        /* tool result messages carry the tool name */
    PF_XAI = 1u << 4,              /* xAI reasoning models reject stop */
    PF_THINK_TAGS = 1u << 5,       /* <think>...</think> in content is reasoning (think_tags default) */
    PF_SHORT_TOOL_IDS = 1u << 6,   /* tool call ids must be exactly 9 of [a-zA-Z0-9] (Mistral) */
    PF_DEEPSEEK = 1u << 7          /* deepseek-reasoner: no sampling parameters */
};

/* How a request's reasoning budget (tokens) is written for each server; see
 * encode_reasoning() and the header comment for the field names and values. */
typedef enum reasoning_wire {
    RW_NONE = 0,   /* nothing documented that takes a budget: nothing is sent */
    RW_OPENAI,     /* reasoning_effort per model family (oa_model_rules_of): o-series,
                    * gpt-5.x and gpt-6.x, none..max as each family takes */
    RW_GROQ,       /* gpt-oss: reasoning_effort; qwen3: reasoning_effort default +
                    * reasoning_format parsed; qwq, r1 distills: reasoning_format */
    RW_MISTRAL,    /* reasoning_effort "high" on the adjustable models */
    RW_XAI,        /* reasoning_effort: grok-3-mini low/high, grok-4.3 low/medium/high */
    RW_OPENROUTER, /* reasoning: {max_tokens} */
    RW_OLLAMA,     /* reasoning_effort low/medium/high */
    RW_VLLM        /* thinking_token_budget */
} reasoning_wire;

struct oa_profile {
    const char *id;
    const char *base_url;
    const char *key_env; /* the key's usual env var (NULL: no key needed); for docs and the core */
    unsigned flags;
    reasoning_wire reasoning;
};

static const oa_profile profiles[] = {
    {"openai", "https://api.openai.com/v1", "OPENAI_API_KEY",
     PF_STREAM_USAGE | PF_OPENAI_REASONING | PF_JSON_SCHEMA, RW_OPENAI},
    {"deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", PF_STREAM_USAGE | PF_DEEPSEEK,
     RW_NONE},
    {"groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", PF_JSON_SCHEMA | PF_THINK_TAGS, RW_GROQ},
    {"mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY",
     PF_JSON_SCHEMA | PF_TOOL_NAME | PF_SHORT_TOOL_IDS, RW_MISTRAL},
    {"xai", "https://api.x.ai/v1", "XAI_API_KEY", PF_STREAM_USAGE | PF_JSON_SCHEMA | PF_XAI, RW_XAI},
    {"openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY",
     PF_STREAM_USAGE | PF_JSON_SCHEMA, RW_OPENROUTER},
    {"ollama", "http://127.0.0.1:11434/v1", NULL, PF_STREAM_USAGE | PF_JSON_SCHEMA | PF_THINK_TAGS,
     RW_OLLAMA},
    {"vllm", "http://127.0.0.1:8000/v1", NULL, PF_STREAM_USAGE | PF_JSON_SCHEMA | PF_THINK_TAGS, RW_VLLM},
};
#define N_PROFILES (sizeof profiles / sizeof profiles[0])

static const oa_profile *profile_by_id(const char *id)
{
    if (!id)
        return NULL;
    for (size_t i = 0; i < N_PROFILES; i++)
        if (strcasecmp(profiles[i].id, id) == 0)
            return &profiles[i];
    return NULL;
}

/* 1 when host equals domain or ends with "." domain. */
static int host_is(const char *host, size_t hlen, const char *domain)
{
    size_t dlen = strlen(domain);
    if (hlen < dlen || strncasecmp(host + hlen - dlen, domain, dlen) != 0)
        return 0;
    return hlen == dlen || host[hlen - dlen - 1] == '.';
}

/* The host of a URL (without userinfo and port; an IPv6 literal keeps its
 * brackets) and its port text (NULL when none). */
static void url_host(const char *url, const char **host, size_t *hlen, const char **port)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    const char *at = NULL; /* skip userinfo */
    for (const char *q = p; *q && *q != '/'; q++)
        if (*q == '@')
            at = q;
    if (at)
        p = at + 1;
    size_t hostport = strcspn(p, "/?#");
    *hlen = hostport;
    *port = NULL;
    if (*p == '[') { /* IPv6 literal */
        const char *close = memchr(p, ']', hostport);
        *hlen = close ? (size_t)(close - p + 1) : hostport;
        if (close && close[1] == ':')
            *port = close + 2;
    } else {
        const char *colon = memchr(p, ':', hostport);
        if (colon) {
            *hlen = (size_t)(colon - p);
            *port = colon + 1;
        }
    }
    *host = p;
}

/* Dotted-quad IPv4 text -> its four numbers; 0 when host is not one. */
static int ipv4_of(const char *host, size_t hlen, unsigned octet[4])
{
    char buf[16];
    if (hlen == 0 || hlen >= sizeof buf)
        return 0;
    memcpy(buf, host, hlen);
    buf[hlen] = '\0';
    char tail;
    return sscanf(buf, "%3u.%3u.%3u.%3u%c", &octet[0], &octet[1], &octet[2], &octet[3], &tail) == 4 &&
           octet[0] < 256 && octet[1] < 256 && octet[2] < 256 && octet[3] < 256;
}

/* A server on this machine or its LAN: loopback, localhost, the private IPv4
 * ranges, Docker's host name. Such a server is a local model runner (llama.cpp,
 * LM Studio, vLLM, ...) more often than a proxy to a cloud API. */
static int url_is_local(const char *url)
{
    if (!url)
        return 0;
    const char *host, *port;
    size_t hlen;
    url_host(url, &host, &hlen, &port);
    unsigned o[4];
    if (ipv4_of(host, hlen, o))
        return o[0] == 127 || o[0] == 10 || (o[0] == 192 && o[1] == 168) ||
               (o[0] == 172 && o[1] >= 16 && o[1] <= 31) ||
               (o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 0);
    return host_is(host, hlen, "localhost") || host_is(host, hlen, "host.docker.internal") ||
           (hlen == 5 && strncmp(host, "[::1]", 5) == 0);
}

static const oa_profile *profile_from_url(const char *url)
{
    if (!url)
        return NULL;
    const char *p, *port;
    size_t hlen;
    url_host(url, &p, &hlen, &port);
    if (host_is(p, hlen, "api.openai.com"))
        return profile_by_id("openai");
    if (host_is(p, hlen, "deepseek.com"))
        return profile_by_id("deepseek");
    if (host_is(p, hlen, "groq.com"))
        return profile_by_id("groq");
    if (host_is(p, hlen, "mistral.ai"))
        return profile_by_id("mistral");
    if (host_is(p, hlen, "x.ai"))
        return profile_by_id("xai");
    if (host_is(p, hlen, "openrouter.ai"))
        return profile_by_id("openrouter");
    if (port && strncmp(port, "11434", 5) == 0 && !isdigit((unsigned char)port[5]))
        return profile_by_id("ollama");
    return NULL;
}

/* ==== model families ======================================================== */

/* The model id without a "vendor/" prefix (OpenRouter, Groq, vLLM ids). */
const char *model_base(const char *model)
{
    if (!model)
        return "";
    const char *slash = strrchr(model, '/');
    return slash ? slash + 1 : model;
}

/* 1 when model starts with prefix at a name boundary ("o1" matches "o1-pro",
 * "o1", not "o10"). */
int model_is(const char *model, const char *prefix)
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
    const char *m = model_base(model);
    for (size_t i = 0; i < sizeof openai_families / sizeof openai_families[0]; i++) {
        if (!model_is(m, openai_families[i].prefix))
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

int oa_use_responses(const oa_instance *in, const seam_request *req)
{
    if (!in || in->api == OA_API_RESPONSES)
        return in != NULL;
    if (in->api == OA_API_CHAT || seam_request_tool_count(req) == 0)
        return 0;
    /* auto: function tools on a model that takes them on Chat Completions only
     * with effort "none", which it refuses, can only go to the Responses API. */
    oa_model_rules rules;
    oa_model_rules_of(in, seam_request_model(req), &rules);
    return rules.tools_need_none && !(rules.efforts & EF_NONE);
}

static int xai_reasoning_model(const char *model)
{
    const char *m = model_base(model);
    return model_is(m, "grok-4") || model_is(m, "grok-3-mini") || model_is(m, "grok-code-fast") ||
           model_is(m, "grok-code");
}

enum {
    CAP_TOOLS = 1u << 0,
    CAP_PARALLEL = 1u << 1,
    CAP_VISION = 1u << 2,
    CAP_REASONING = 1u << 3,
    CAP_STRUCTURED = 1u << 4,
    CAP_CACHE = 1u << 5,
    CAP_AUDIO = 1u << 6,
    CAP_PDF = 1u << 7
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
    {"gpt-4o-audio-preview", CAP_CHAT | CAP_AUDIO, 128000, 16384},
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
    const char *m = model_base(model);
    for (size_t i = 0; i < N_FAMILIES; i++)
        if (model_is(m, families[i].prefix))
            return &families[i];
    return NULL;
}

/* ==== the provider instance ================================================= */

enum { MAXTOK_AUTO = 0, MAXTOK_MAX_TOKENS, MAXTOK_MAX_COMPLETION_TOKENS };

/* Keys the plugin (or the core's session, for cache_strategy: OpenAI caches
 * prompt prefixes by itself) understands, never copied into the body. */
static const char *const reserved_options[] = {
    "profile", "capabilities", "headers", "max_tokens_param", "stream_usage", "cache_strategy",
    "think_tags", "api", "reasoning_summary",
};

static int is_reserved_option(const char *key)
{
    for (size_t i = 0; i < sizeof reserved_options / sizeof reserved_options[0]; i++)
        if (strcmp(key, reserved_options[i]) == 0)
            return 1;
    return 0;
}

static void instance_free(oa_instance *in)
{
    if (!in)
        return;
    free(in->name);
    free(in->base_url);
    free(in->body_options);
    free(in->headers_json);
    free(in->caps_json);
    free(in->reasoning_summary);
    free(in);
}

static int conf_error(seam_error *err, const char *name, const char *what)
{
    if (err) {
        seam_error_set(err, SEAM_ERROR_CONF, "provider %s (openai plugin): %s",
                       name ? name : "?", what);
        seam_strlcpy(err->provider, name ? name : "openai", sizeof err->provider);
    }
    return SEAM_ERR_CONF;
}

/* Reads the plugin's own option keys from opts into in. */
static int read_plugin_options(oa_instance *in, json_object *opts, seam_error *err)
{
    json_object *v;
    if ((v = jget(opts, "max_tokens_param"))) {
        const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
        if (strcmp(s, "max_tokens") == 0)
            in->max_tokens_param = MAXTOK_MAX_TOKENS;
        else if (strcmp(s, "max_completion_tokens") == 0)
            in->max_tokens_param = MAXTOK_MAX_COMPLETION_TOKENS;
        else
            return conf_error(err, in->name,
                              "options.max_tokens_param must be \"max_tokens\" or "
                              "\"max_completion_tokens\"");
    }
    if ((v = jget(opts, "stream_usage"))) {
        if (!json_object_is_type(v, json_type_boolean))
            return conf_error(err, in->name, "options.stream_usage must be true or false");
        in->stream_usage = json_object_get_boolean(v) ? 1 : 0;
    }
    if ((v = jget(opts, "api"))) {
        const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
        if (strcmp(s, "auto") == 0)
            in->api = OA_API_AUTO;
        else if (strcmp(s, "chat") == 0)
            in->api = OA_API_CHAT;
        else if (strcmp(s, "responses") == 0)
            in->api = OA_API_RESPONSES;
        else
            return conf_error(err, in->name,
                              "options.api must be \"auto\", \"chat\" or \"responses\"");
    }
    if ((v = jget(opts, "reasoning_summary"))) {
        const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
        if (strcmp(s, "none") == 0) {
            free(in->reasoning_summary);
            in->reasoning_summary = NULL;
        } else if (strcmp(s, "auto") == 0 || strcmp(s, "concise") == 0 ||
                   strcmp(s, "detailed") == 0) {
            free(in->reasoning_summary);
            if (!(in->reasoning_summary = xstrdup(s)))
                return SEAM_ERR_NOMEM;
        } else {
            return conf_error(err, in->name,
                              "options.reasoning_summary must be \"auto\", \"concise\", "
                              "\"detailed\" or \"none\"");
        }
    }
    if ((v = jget(opts, "think_tags"))) {
        if (!json_object_is_type(v, json_type_boolean))
            return conf_error(err, in->name, "options.think_tags must be true or false");
        in->think_tags = json_object_get_boolean(v) ? 1 : 0;
    }
    if ((v = jget(opts, "headers"))) {
        if (!json_object_is_type(v, json_type_object))
            return conf_error(err, in->name, "options.headers must be a group of strings");
        json_object_object_foreach(v, hk, hv)
        {
            if (!json_object_is_type(hv, json_type_string))
                return conf_error(err, in->name, "options.headers must be a group of strings");
            /* A credential in options would be neither redacted nor protected. */
            if (strcasecmp(hk, "Authorization") == 0 || strcasecmp(hk, "api-key") == 0 ||
                strcasecmp(hk, "x-api-key") == 0)
                return conf_error(err, in->name,
                                  "options.headers may not carry a credential: use api_key_env, "
                                  "api_key_file or api_key_command");
        }
        if (!(in->headers_json = xstrdup(json_text(v))))
            return SEAM_ERR_NOMEM;
    }
    if ((v = jget(opts, "capabilities"))) {
        if (!json_object_is_type(v, json_type_object))
            return conf_error(err, in->name, "options.capabilities must be a group");
        if (!(in->caps_json = xstrdup(json_text(v))))
            return SEAM_ERR_NOMEM;
    }
    return SEAM_OK;
}

static void *oa_create(const seam_provider_config *cfg, seam_error *err)
{
    oa_instance *in = calloc(1, sizeof *in);
    if (!in) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
        return NULL;
    }
    in->stream_usage = -1;
    in->think_tags = -1;
    in->name = xstrdup(cfg && cfg->name ? cfg->name : "openai");
    in->reasoning_summary = xstrdup("auto");
    const char *opts_text = cfg && cfg->options_json ? cfg->options_json : "{}";
    json_object *opts = json_parse_strict(opts_text, strlen(opts_text));
    json_object *body = json_object_new_object();
    if (!in->name || !in->reasoning_summary || !body)
        goto nomem;
    if (!json_object_is_type(opts, json_type_object)) {
        conf_error(err, in->name, "options must be a group");
        goto fail;
    }

    const char *pname = NULL;
    json_object *pv = jget(opts, "profile");
    if (pv) {
        if (!json_object_is_type(pv, json_type_string)) {
            conf_error(err, in->name, "options.profile must be a string");
            goto fail;
        }
        pname = json_object_get_string(pv);
        in->profile = profile_by_id(pname);
        if (!in->profile) {
            char what[256];
            snprintf(what, sizeof what,
                     "unknown profile \"%.64s\" (known: openai, deepseek, groq, mistral, "
                     "xai, openrouter, ollama, vllm)",
                     pname);
            conf_error(err, in->name, what);
            goto fail;
        }
    }
    const char *base = cfg && cfg->base_url && *cfg->base_url ? cfg->base_url : NULL;
    if (!in->profile)
        in->profile = base ? profile_from_url(base) : profile_by_id(in->name);
    /* A server no profile names, on this machine or its LAN: most likely a
     * local runner, which may put a reasoning model's thoughts in content. */
    int unknown_local = !in->profile && url_is_local(base);
    if (!in->profile)
        in->profile = &profiles[0];
    in->base_url = xstrdup(base ? base : in->profile->base_url);
    if (!in->base_url)
        goto nomem;
    for (size_t n = strlen(in->base_url); n > 0 && in->base_url[n - 1] == '/'; n--)
        in->base_url[n - 1] = '\0';

    in->openai_rules = (in->profile->flags & PF_OPENAI_REASONING) != 0;
    if (read_plugin_options(in, opts, err) != SEAM_OK)
        goto fail;
    if (in->think_tags < 0)
        in->think_tags = (in->profile->flags & PF_THINK_TAGS) || unknown_local;
    json_object_object_foreach(opts, key, val)
    {
        if (is_reserved_option(key))
            continue;
        json_object_object_add(body, key, json_object_get(val));
    }
    if (!(in->body_options = xstrdup(json_text(body))))
        goto nomem;
    json_object_put(opts);
    json_object_put(body);
    return in;

nomem:
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
fail:
    json_object_put(opts);
    json_object_put(body);
    instance_free(in);
    return NULL;
}

static void oa_destroy(void *instance)
{
    instance_free(instance);
}

/* ==== encode ================================================================= */

int bad_request(seam_error *err, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "openai: %s", msg);
}

/* ---- Mistral's tool call ids ---------------------------------------------
 *
 * Mistral refuses a request whose tool calls or tool results carry an id that
 * is not exactly 9 characters of [a-zA-Z0-9] ("Tool call id was call_abc but
 * must be a-z, A-Z, 0-9, with a length of 9"), so a conversation begun with
 * another provider (or ids seam synthesized) cannot continue there as is. On
 * the mistral profile every other id is replaced by a short one derived from
 * it (a hash in base 62): the same id gives the same short id for a call and
 * its result, and in the next turn's request too. Two ids of one request whose
 * hashes collide (or a hash equal to one of Mistral's own ids in it) are told
 * apart by rehashing with a salt. Mistral's own ids pass unchanged. The short
 * ids exist on the wire only: the caller keeps seeing its own ids. */
typedef struct id_entry {
    const char *orig; /* borrowed from the request being encoded */
    char wire[10];
} id_entry;

typedef struct id_map {
    id_entry *items;
    size_t n, cap;
    int nomem;
} id_map;

static int mistral_id_ok(const char *id)
{
    size_t n = 0;
    for (; id[n]; n++)
        if (n >= 9 || !((id[n] >= 'a' && id[n] <= 'z') || (id[n] >= 'A' && id[n] <= 'Z') ||
                        (id[n] >= '0' && id[n] <= '9')))
            return 0;
    return n == 9;
}

static void short_id(const char *id, unsigned salt, char out[10])
{
    static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    uint64_t h = 1469598103934665603ull; /* FNV-1a, then a 64-bit finalizer to spread it */
    h = (h ^ (salt & 0xffu)) * 1099511628211ull;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    for (int i = 0; i < 9; i++) { /* 62^9 < 2^64: every digit varies */
        out[i] = digits[h % 62];
        h /= 62;
    }
    out[9] = '\0';
}

static id_entry *id_map_find(id_map *m, const char *orig)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->items[i].orig, orig) == 0)
            return &m->items[i];
    return NULL;
}

static int id_map_wire_taken(const id_map *m, const char *wire)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->items[i].wire, wire) == 0)
            return 1;
    return 0;
}

static id_entry *id_map_add(id_map *m, const char *orig, const char *wire)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 8;
        id_entry *items = realloc(m->items, cap * sizeof *items);
        if (!items) {
            m->nomem = 1;
            return NULL;
        }
        m->items = items;
        m->cap = cap;
    }
    id_entry *e = &m->items[m->n++];
    e->orig = orig;
    memcpy(e->wire, wire, sizeof e->wire);
    return e;
}

/* The id as the wire carries it: unchanged without a map or when Mistral
 * accepts it, else its short id. */
static const char *wire_id(id_map *m, const char *id)
{
    if (!id)
        id = "";
    if (!m || mistral_id_ok(id))
        return id;
    id_entry *e = id_map_find(m, id);
    if (e)
        return e->wire;
    char wire[10];
    unsigned salt = 0;
    do
        short_id(id, salt++, wire);
    while (id_map_wire_taken(m, wire) && salt < 256);
    e = id_map_add(m, id, wire);
    return e ? e->wire : id;
}

/* Reserves every id of the request that Mistral accepts as it is, so that no
 * short id made for another one can take it. */
static void id_map_reserve(id_map *m, const seam_request *req)
{
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        const seam_message *msg = seam_request_message(req, i);
        for (size_t j = 0; j < seam_message_part_count(msg); j++) {
            const seam_part *p = seam_message_part(msg, j);
            seam_part_type t = seam_part_get_type(p);
            const char *id = seam_part_tool_call_id(p);
            if ((t == SEAM_PART_TOOL_CALL || t == SEAM_PART_TOOL_RESULT) && id &&
                mistral_id_ok(id) && !id_map_find(m, id))
                id_map_add(m, id, id);
        }
    }
}

/* A part's JSON value as it goes into a tool message's content: a JSON string is
 * sent as its text, anything else as its JSON text. */
json_object *tool_result_content(const char *result_json)
{
    if (!result_json)
        return json_object_new_string("");
    json_object *v = json_parse_strict(result_json, strlen(result_json));
    json_object *out;
    if (json_object_is_type(v, json_type_string))
        out = json_object_new_string(json_object_get_string(v));
    else
        out = json_object_new_string(result_json);
    json_object_put(v);
    return out;
}

json_object *data_url(const char *mime, const char *b64)
{
    strbuf b = {0};
    if (sb_puts(&b, "data:") || sb_puts(&b, mime) || sb_puts(&b, ";base64,") || sb_puts(&b, b64)) {
        sb_free(&b);
        return NULL;
    }
    json_object *s = json_object_new_string_len(b.data, (int)b.len);
    sb_free(&b);
    return s;
}

/* One media part of a user message as a Chat Completions content part. */
static int media_part(const seam_part *p, json_object **out, seam_error *err)
{
    const char *mime = seam_part_mime_type(p);
    const char *data = seam_part_media_data(p);
    seam_media_source src = seam_part_media_source(p);
    if (!mime || !data)
        return bad_request(err, "a media part lacks its type or data");
    json_object *part = json_object_new_object();
    if (strncasecmp(mime, "image/", 6) == 0) {
        json_object *img = json_object_new_object();
        json_object_object_add(img, "url", src == SEAM_MEDIA_URL ? json_object_new_string(data)
                                                                 : data_url(mime, data));
        json_object_object_add(part, "type", json_object_new_string("image_url"));
        json_object_object_add(part, "image_url", img);
    } else if (strncasecmp(mime, "audio/", 6) == 0 && src == SEAM_MEDIA_BASE64) {
        const char *fmt = NULL;
        if (contains_ci(mime, "wav"))
            fmt = "wav";
        else if (contains_ci(mime, "mpeg") || contains_ci(mime, "mp3"))
            fmt = "mp3";
        if (!fmt) {
            json_object_put(part);
            return bad_request(err, "audio type %s is not supported (wav or mp3 only)", mime);
        }
        json_object *audio = json_object_new_object();
        json_object_object_add(audio, "data", json_object_new_string(data));
        json_object_object_add(audio, "format", json_object_new_string(fmt));
        json_object_object_add(part, "type", json_object_new_string("input_audio"));
        json_object_object_add(part, "input_audio", audio);
    } else if (strcasecmp(mime, "application/pdf") == 0 && src == SEAM_MEDIA_BASE64) {
        json_object *file = json_object_new_object();
        json_object_object_add(file, "filename", json_object_new_string("document.pdf"));
        json_object_object_add(file, "file_data", data_url(mime, data));
        json_object_object_add(part, "type", json_object_new_string("file"));
        json_object_object_add(part, "file", file);
    } else {
        json_object_put(part);
        return bad_request(err, "media of type %s cannot be sent on this wire (as given)", mime);
    }
    *out = part;
    return SEAM_OK;
}

static json_object *tool_message(const oa_instance *in, id_map *ids, const seam_part *p)
{
    json_object *m = json_object_new_object();
    json_object_object_add(m, "role", json_object_new_string("tool"));
    json_object_object_add(m, "tool_call_id",
                           json_object_new_string(wire_id(ids, seam_part_tool_call_id(p))));
    if ((in->profile->flags & PF_TOOL_NAME) && seam_part_tool_name(p))
        json_object_object_add(m, "name", json_object_new_string(seam_part_tool_name(p)));
    json_object_object_add(m, "content", tool_result_content(seam_part_result_json(p)));
    return m;
}

static int encode_user(const oa_instance *in, id_map *ids, const seam_message *msg,
                       json_object *messages, seam_error *err)
{
    json_object *parts = json_object_new_array();
    size_t n_text = 0, n_other = 0;
    const char *only_text = NULL;
    for (size_t i = 0; i < seam_message_part_count(msg); i++) {
        const seam_part *p = seam_message_part(msg, i);
        switch (seam_part_get_type(p)) {
        case SEAM_PART_TEXT: {
            json_object *t = json_object_new_object();
            json_object_object_add(t, "type", json_object_new_string("text"));
            json_object_object_add(t, "text", json_object_new_string(seam_part_text(p) ? seam_part_text(p) : ""));
            json_object_array_add(parts, t);
            only_text = seam_part_text(p);
            n_text++;
            break;
        }
        case SEAM_PART_MEDIA: {
            json_object *mp = NULL;
            int rc = media_part(p, &mp, err);
            if (rc != SEAM_OK) {
                json_object_put(parts);
                return rc;
            }
            json_object_array_add(parts, mp);
            n_other++;
            break;
        }
        case SEAM_PART_TOOL_RESULT:
            /* Tool results must directly follow the assistant's tool calls. */
            json_object_array_add(messages, tool_message(in, ids, p));
            break;
        default: /* reasoning and tool calls do not belong in a user turn here */
            break;
        }
    }
    if (n_text + n_other > 0) {
        json_object *m = json_object_new_object();
        json_object_object_add(m, "role", json_object_new_string("user"));
        if (n_text == 1 && n_other == 0) {
            json_object_object_add(m, "content", json_object_new_string(only_text ? only_text : ""));
            json_object_put(parts);
        } else {
            json_object_object_add(m, "content", parts);
        }
        json_object_array_add(messages, m);
    } else {
        json_object_put(parts);
    }
    return SEAM_OK;
}

static int encode_assistant(id_map *ids, const seam_message *msg, json_object *messages)
{
    strbuf text = {0};
    int has_text = 0;
    json_object *calls = json_object_new_array();
    for (size_t i = 0; i < seam_message_part_count(msg); i++) {
        const seam_part *p = seam_message_part(msg, i);
        switch (seam_part_get_type(p)) {
        case SEAM_PART_TEXT:
            if (sb_puts(&text, seam_part_text(p)) != SEAM_OK) {
                sb_free(&text);
                json_object_put(calls);
                return SEAM_ERR_NOMEM;
            }
            has_text = 1;
            break;
        case SEAM_PART_TOOL_CALL: {
            if (seam_part_provider_executed(p))
                break; /* run by the provider: not the client's call to replay */
            const char *args = seam_part_args_json(p);
            json_object *fn = json_object_new_object();
            json_object_object_add(fn, "name", json_object_new_string(seam_part_tool_name(p) ? seam_part_tool_name(p) : ""));
            json_object_object_add(fn, "arguments", json_object_new_string(args && *args ? args : "{}"));
            json_object *call = json_object_new_object();
            json_object_object_add(call, "id", json_object_new_string(wire_id(ids, seam_part_tool_call_id(p))));
            json_object_object_add(call, "type", json_object_new_string("function"));
            json_object_object_add(call, "function", fn);
            json_object_array_add(calls, call);
            break;
        }
        default: /* reasoning is never sent back on this wire; media output neither */
            break;
        }
    }
    size_t n_calls = json_object_array_length(calls);
    if (!has_text && n_calls == 0) {
        sb_free(&text);
        json_object_put(calls);
        return SEAM_OK; /* nothing this wire can carry (e.g. reasoning only) */
    }
    json_object *m = json_object_new_object();
    json_object_object_add(m, "role", json_object_new_string("assistant"));
    if (has_text)
        json_object_object_add(m, "content", json_object_new_string_len(text.data ? text.data : "", (int)text.len));
    else
        json_object_object_add(m, "content", NULL);
    if (n_calls)
        json_object_object_add(m, "tool_calls", calls);
    else
        json_object_put(calls);
    json_object_array_add(messages, m);
    sb_free(&text);
    return SEAM_OK;
}

static int encode_messages(const oa_instance *in, id_map *ids, const seam_request *req,
                           int reasoning_model, json_object *messages, seam_error *err)
{
    const char *system = seam_request_system(req);
    if (system && *system) {
        json_object *m = json_object_new_object();
        json_object_object_add(m, "role", json_object_new_string(reasoning_model ? "developer" : "system"));
        json_object_object_add(m, "content", json_object_new_string(system));
        json_object_array_add(messages, m);
    }
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        const seam_message *msg = seam_request_message(req, i);
        int rc = SEAM_OK;
        switch (seam_message_role(msg)) {
        case SEAM_ROLE_USER:
            rc = encode_user(in, ids, msg, messages, err);
            break;
        case SEAM_ROLE_ASSISTANT:
            rc = encode_assistant(ids, msg, messages);
            break;
        case SEAM_ROLE_TOOL:
            for (size_t j = 0; j < seam_message_part_count(msg); j++) {
                const seam_part *p = seam_message_part(msg, j);
                if (seam_part_get_type(p) == SEAM_PART_TOOL_RESULT)
                    json_object_array_add(messages, tool_message(in, ids, p));
            }
            break;
        default:
            rc = bad_request(err, "a message has an unknown role");
        }
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}

int oa_tool_parameters(const seam_request *req, size_t i, json_object **out, seam_error *err)
{
    const char *params = seam_request_tool_parameters(req, i);
    json_object *schema = params ? json_parse_strict(params, strlen(params)) : NULL;
    if (params && !json_object_is_type(schema, json_type_object)) {
        json_object_put(schema);
        return bad_request(err, "the parameters of tool %s are not a JSON Schema object",
                           seam_request_tool_name(req, i));
    }
    if (!schema) {
        schema = json_object_new_object();
        json_object_object_add(schema, "type", json_object_new_string("object"));
    }
    /* OpenAI refuses an object schema without "properties". */
    const char *type = jstr(schema, "type");
    if (type && strcmp(type, "object") == 0 && !jget(schema, "properties"))
        json_object_object_add(schema, "properties", json_object_new_object());
    *out = schema;
    return SEAM_OK;
}

static int encode_tools(const seam_request *req, json_object *body, seam_error *err)
{
    size_t n = seam_request_tool_count(req);
    if (n == 0)
        return SEAM_OK;
    json_object *tools = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *schema = NULL;
        int rc = oa_tool_parameters(req, i, &schema, err);
        if (rc != SEAM_OK) {
            json_object_put(tools);
            return rc;
        }
        json_object *fn = json_object_new_object();
        json_object_object_add(fn, "name", json_object_new_string(seam_request_tool_name(req, i) ? seam_request_tool_name(req, i) : ""));
        const char *desc = seam_request_tool_description(req, i);
        if (desc && *desc)
            json_object_object_add(fn, "description", json_object_new_string(desc));
        json_object_object_add(fn, "parameters", schema);
        json_object *tool = json_object_new_object();
        json_object_object_add(tool, "type", json_object_new_string("function"));
        json_object_object_add(tool, "function", fn);
        json_object_array_add(tools, tool);
    }
    json_object_object_add(body, "tools", tools);

    const char *named = NULL;
    switch (seam_request_tool_choice(req, &named)) {
    case SEAM_TOOL_CHOICE_NONE:
        json_object_object_add(body, "tool_choice", json_object_new_string("none"));
        break;
    case SEAM_TOOL_CHOICE_REQUIRED:
        json_object_object_add(body, "tool_choice", json_object_new_string("required"));
        break;
    case SEAM_TOOL_CHOICE_NAMED: {
        json_object *fn = json_object_new_object();
        json_object_object_add(fn, "name", json_object_new_string(named ? named : ""));
        json_object *tc = json_object_new_object();
        json_object_object_add(tc, "type", json_object_new_string("function"));
        json_object_object_add(tc, "function", fn);
        json_object_object_add(body, "tool_choice", tc);
        break;
    }
    default:
        json_object_object_add(body, "tool_choice", json_object_new_string("auto"));
    }
    return SEAM_OK;
}

int oa_json_format(const seam_request *req, const char **name, json_object **schema, int *strict,
                   seam_error *err)
{
    const char *schema_text = NULL;
    *schema = NULL;
    if (seam_request_response_format(req, name, &schema_text, strict) != SEAM_FORMAT_JSON)
        return 0;
    json_object *s = schema_text ? json_parse_strict(schema_text, strlen(schema_text)) : NULL;
    if (schema_text && !json_object_is_type(s, json_type_object)) {
        json_object_put(s);
        return bad_request(err, "the response format schema is not a JSON object");
    }
    /* No schema, or the bare {"type":"object"} that stands for "any JSON object":
     * JSON mode, which every server of this wire has. */
    const char *type = jstr(s, "type");
    if (s && json_object_object_length(s) == 1 && type && strcmp(type, "object") == 0) {
        json_object_put(s);
        s = NULL;
    }
    *schema = s;
    return 1;
}

static int encode_response_format(const oa_instance *in, const seam_request *req,
                                  json_object *body, seam_error *err)
{
    const char *name = NULL;
    json_object *schema = NULL;
    int strict = 0;
    int rc = oa_json_format(req, &name, &schema, &strict, err);
    if (rc <= 0)
        return rc;
    json_object *rf = json_object_new_object();
    if (!(in->profile->flags & PF_JSON_SCHEMA) || !schema) {
        json_object_put(schema);
        json_object_object_add(rf, "type", json_object_new_string("json_object"));
    } else {
        json_object *js = json_object_new_object();
        json_object_object_add(js, "name", json_object_new_string(name && *name ? name : "response"));
        json_object_object_add(js, "schema", schema);
        json_object_object_add(js, "strict", json_object_new_boolean(strict ? 1 : 0));
        json_object_object_add(rf, "type", json_object_new_string("json_schema"));
        json_object_object_add(rf, "json_schema", js);
    }
    json_object_object_add(body, "response_format", rf);
    return SEAM_OK;
}

/* A reasoning budget in tokens as an effort level. Three levels (OpenAI,
 * Ollama, Groq's gpt-oss, grok-4.3): below 4096 tokens "low", below 16384
 * "medium", else "high" (so the common 1024..32768 budgets land on all three).
 * Two levels (grok-3-mini): below 8192 "low", else "high". */
static const char *effort_for_budget(int64_t budget, int two_levels)
{
    if (two_levels)
        return budget < 8192 ? "low" : "high";
    if (budget < 4096)
        return "low";
    if (budget < 16384)
        return "medium";
    return "high";
}

/* Mistral's "adjustable" reasoning models, the ones that take reasoning_effort
 * (magistral always reasons and takes nothing). */
static int mistral_adjustable_model(const char *m)
{
    return model_is(m, "mistral-small-latest") || model_is(m, "mistral-small-2603") ||
           model_is(m, "mistral-small-4") || model_is(m, "mistral-medium-3-5");
}

/* OpenAI's reasoning_effort on Chat Completions: "none" when the request has
 * function tools and the model takes them only with "none" (the budget cannot
 * apply then: with any other effort the request is refused); else the budget's
 * level among the model's efforts, below "max" (one source, LaoZhang's notes of
 * 2026-11-04, has gpt-6.1-sol stopping at xhigh on this endpoint: "max" is left
 * to the Responses API). NULL: nothing sent. A model that refuses "none" and has
 * tools does not reach here (oa_encode). */
static const char *openai_effort_of(const oa_model_rules *rules, const seam_request *req)
{
    if (rules->tools_need_none && seam_request_tool_count(req) > 0 && (rules->efforts & EF_NONE))
        return "none";
    int64_t budget = seam_request_reasoning_budget(req);
    if (budget <= 0 || !rules->efforts)
        return NULL;
    return oa_effort_for_budget(rules->efforts, budget, 0);
}

/* The request's reasoning budget on each server's documented wire; where a
 * server or model documents nothing, nothing is sent (an unknown field is
 * refused by several of them). See the header comment. */
static void encode_reasoning(const oa_instance *in, const char *model, const char *openai_effort,
                             int64_t budget, json_object *body)
{
    if (in->profile->reasoning == RW_OPENAI) { /* decided by openai_effort_of() */
        if (openai_effort)
            json_object_object_add(body, "reasoning_effort", json_object_new_string(openai_effort));
        return;
    }
    if (budget <= 0)
        return;
    const char *m = model_base(model);
    const char *effort = NULL;
    switch (in->profile->reasoning) {
    case RW_OPENAI: /* handled above */
        break;
    case RW_GROQ:
        if (model_is(m, "gpt-oss")) { /* reasoning_format is refused here */
            effort = effort_for_budget(budget, 0);
        } else if (model_is(m, "qwen3")) { /* "none" or "default" only */
            effort = "default";
            json_object_object_add(body, "reasoning_format", json_object_new_string("parsed"));
        } else if (model_is(m, "qwq") || model_is(m, "deepseek-r1-distill-llama") ||
                   model_is(m, "deepseek-r1-distill-qwen")) {
            json_object_object_add(body, "reasoning_format", json_object_new_string("parsed"));
        }
        break;
    case RW_MISTRAL:
        if (mistral_adjustable_model(m)) /* "none" or "high" only */
            effort = "high";
        break;
    case RW_XAI:
        if (model_is(m, "grok-3-mini"))
            effort = effort_for_budget(budget, 1);
        else if (model_is(m, "grok-4.3"))
            effort = effort_for_budget(budget, 0);
        break;
    case RW_OPENROUTER: {
        json_object *r = json_object_new_object();
        json_object_object_add(r, "max_tokens", json_object_new_int64(budget));
        json_object_object_add(body, "reasoning", r);
        break;
    }
    case RW_OLLAMA:
        effort = effort_for_budget(budget, 0);
        break;
    case RW_VLLM:
        json_object_object_add(body, "thinking_token_budget", json_object_new_int64(budget));
        break;
    case RW_NONE:
        break;
    }
    if (effort)
        json_object_object_add(body, "reasoning_effort", json_object_new_string(effort));
}

/* Shallow-merges the options object text into body; a null value deletes. */
int merge_options(json_object *body, const char *options_text, int filter_reserved,
                         seam_error *err)
{
    if (!options_text || !*options_text)
        return SEAM_OK;
    json_object *opts = json_parse_strict(options_text, strlen(options_text));
    if (!json_object_is_type(opts, json_type_object)) {
        json_object_put(opts);
        return bad_request(err, "provider options are not a JSON object");
    }
    json_object_object_foreach(opts, key, val)
    {
        if (filter_reserved && is_reserved_option(key))
            continue;
        if (!val)
            json_object_object_del(body, key);
        else
            json_object_object_add(body, key, json_object_get(val));
    }
    json_object_put(opts);
    return SEAM_OK;
}

int oa_finish_request(const oa_instance *in, const seam_request *req, json_object *body,
                      const char *path, int stream, seam_http_request *out, seam_error *err)
{
    /* The escape hatch: the conf's options, then the request's, over the body. */
    int rc = merge_options(body, in->body_options, 0, err);
    if (rc == SEAM_OK)
        rc = merge_options(body, seam_request_provider_options(req), 1, err);
    if (rc != SEAM_OK)
        return rc;
    const char *text = json_text(body);
    size_t len = text ? strlen(text) : 0;
    char *copy = text ? malloc(len + 1) : NULL;
    strbuf url = {0};
    if (!copy || sb_puts(&url, in->base_url) || sb_puts(&url, path)) {
        free(copy);
        sb_free(&url);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    }
    memcpy(copy, text, len + 1);
    rc = seam_http_request_set_url(out, url.data);
    sb_free(&url);
    if (rc == SEAM_OK)
        rc = seam_http_request_set_method(out, SEAM_HTTP_POST);
    if (rc == SEAM_OK)
        rc = seam_http_request_take_body(out, copy, len);
    else
        free(copy);
    if (rc == SEAM_OK)
        rc = seam_http_request_add_header(out, "Content-Type", "application/json");
    if (rc == SEAM_OK)
        rc = seam_http_request_add_header(out, "Accept", stream ? "text/event-stream" : "application/json");
    if (rc == SEAM_OK)
        rc = seam_http_request_add_secret_header(out, "Authorization", "Bearer ");
    if (rc == SEAM_OK && in->headers_json) {
        json_object *h = json_parse_strict(in->headers_json, strlen(in->headers_json));
        json_object_object_foreach(h, hk, hv)
        {
            if (rc == SEAM_OK)
                rc = seam_http_request_add_header(out, hk, json_object_get_string(hv));
        }
        json_object_put(h);
    }
    if (rc == SEAM_OK && stream)
        rc = seam_http_request_set_framing(out, SEAM_FRAMING_SSE);
    if (rc != SEAM_OK && err && err->kind == SEAM_ERROR_NONE)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: could not build the HTTP request");
    return rc;
}

static int chat_encode(const oa_instance *in, const seam_request *req, int stream,
                       seam_http_request *out, seam_error *err)
{
    const char *model = seam_request_model(req);
    unsigned f = in->profile->flags;
    oa_model_rules rules;
    oa_model_rules_of(in, model, &rules);
    if (rules.tools_need_none && seam_request_tool_count(req) > 0 && !(rules.efforts & EF_NONE))
        return bad_request(err,
                           "%s takes function tools on Chat Completions only with reasoning_effort "
                           "\"none\", which it refuses: use the Responses API (options.api = "
                           "\"responses\" or \"auto\" for provider %s)",
                           model, in->name);
    const char *openai_effort = openai_effort_of(&rules, req);
    int reasoning_model = rules.reasoning;
    int xai_reasoning = (f & PF_XAI) && xai_reasoning_model(model);
    /* OpenAI's reasoning models refuse the sampling parameters unless the effort
     * is "none"; deepseek-reasoner ignores them (documented as not supported):
     * they are not sent rather than silently dropped there. */
    int no_sampling = (reasoning_model && !(openai_effort && strcmp(openai_effort, "none") == 0)) ||
                      ((f & PF_DEEPSEEK) && model_is(model_base(model), "deepseek-reasoner"));

    json_object *body = json_object_new_object();
    json_object *messages = json_object_new_array();
    if (!body || !messages) {
        json_object_put(body);
        json_object_put(messages);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    }
    json_object_object_add(body, "model", json_object_new_string(model));
    json_object_object_add(body, "messages", messages);
    id_map ids = {0};
    if (f & PF_SHORT_TOOL_IDS)
        id_map_reserve(&ids, req);
    int rc = encode_messages(in, (f & PF_SHORT_TOOL_IDS) ? &ids : NULL, req, reasoning_model,
                             messages, err);
    if (rc == SEAM_OK && ids.nomem)
        rc = seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    free(ids.items);
    if (rc == SEAM_OK)
        rc = encode_tools(req, body, err);
    if (rc == SEAM_OK)
        rc = encode_response_format(in, req, body, err);
    if (rc != SEAM_OK) {
        json_object_put(body);
        return rc;
    }

    double temperature;
    if (seam_request_temperature(req, &temperature) && !no_sampling && isfinite(temperature))
        json_object_object_add(body, "temperature", json_double(temperature));
    int64_t max_tokens = seam_request_max_tokens(req);
    if (max_tokens > 0) {
        int param = in->max_tokens_param;
        if (param == MAXTOK_AUTO)
            param = reasoning_model ? MAXTOK_MAX_COMPLETION_TOKENS : MAXTOK_MAX_TOKENS;
        json_object_object_add(body,
                               param == MAXTOK_MAX_COMPLETION_TOKENS ? "max_completion_tokens" : "max_tokens",
                               json_object_new_int64(max_tokens));
    }
    size_t n_stop = seam_request_stop_count(req);
    if (n_stop > 0 && !xai_reasoning) {
        json_object *stops = json_object_new_array();
        for (size_t i = 0; stops && i < n_stop; i++)
            json_object_array_add(stops, json_object_new_string(seam_request_stop(req, i)));
        json_object_object_add(body, "stop", stops);
    }
    encode_reasoning(in, model, openai_effort, seam_request_reasoning_budget(req), body);
    if (stream) {
        json_object_object_add(body, "stream", json_object_new_boolean(1));
        int usage = in->stream_usage >= 0 ? in->stream_usage : (f & PF_STREAM_USAGE) != 0;
        if (usage) {
            json_object *so = json_object_new_object();
            if (so) /* json-c asserts on a NULL object; the core sees errno */
                json_object_object_add(so, "include_usage", json_object_new_boolean(1));
            json_object_object_add(body, "stream_options", so);
        }
    }
    rc = oa_finish_request(in, req, body, "/chat/completions", stream, out, err);
    json_object_put(body);
    return rc;
}

static int oa_encode(void *instance, const seam_request *req, int stream, seam_http_request *out,
                     seam_error *err)
{
    const oa_instance *in = instance;
    const char *model = seam_request_model(req);
    if (!model || !*model)
        return bad_request(err, "the request names no model");
    if (oa_use_responses(in, req))
        return oa_resp_encode(in, req, stream, out, err);
    return chat_encode(in, req, stream, out, err);
}

/* ==== errors ================================================================== */

/* Masks anything that looks like an API key ("sk-...", "gsk_...", "xai-...")
 * in a provider message: some servers echo a partly masked key back. */
static void scrub_keys(char *s)
{
    static const char *const prefixes[] = {"sk-", "gsk_", "xai-", "sk_"};
    for (char *p = s; *p; p++) {
        if (p != s && (isalnum((unsigned char)p[-1]) || p[-1] == '-' || p[-1] == '_'))
            continue;
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
            size_t n = strlen(prefixes[i]);
            if (strncmp(p, prefixes[i], n) != 0)
                continue;
            char *end = p;
            while (*end && !isspace((unsigned char)*end) && *end != '"' && *end != '\'' &&
                   *end != ',' && !(*end == '.' && (end[1] == '\0' || isspace((unsigned char)end[1]))))
                end++;
            static const char mask[] = "<redacted>";
            size_t span = (size_t)(end - p);
            if (span < sizeof mask - 1)
                break; /* too short to be a key, and no room to rewrite in place */
            memcpy(p, mask, sizeof mask - 1);
            memmove(p + sizeof mask - 1, end, strlen(end) + 1);
            p += sizeof mask - 2;
            break;
        }
    }
}

static int is_context_overflow_text(const char *msg)
{
    return contains_ci(msg, "context length") || contains_ci(msg, "context_length") ||
           contains_ci(msg, "context window") || contains_ci(msg, "maximum context") ||
           contains_ci(msg, "reduce the length") || contains_ci(msg, "too many tokens") ||
           contains_ci(msg, "prompt is too long") || contains_ci(msg, "input is too long");
}

static void set_kind(seam_error *err, seam_error_kind kind)
{
    err->kind = kind;
    err->retryable = seam_error_kind_retryable(kind);
}

/* Classifies from an error object's code/type/message and the HTTP status. */
static void classify(int status, const char *code, const char *type, const char *msg, seam_error *err)
{
    const char *c = code ? code : "";
    const char *t = type ? type : "";
#define IS(x) (strcasecmp(c, x) == 0 || strcasecmp(t, x) == 0)
    if (IS("insufficient_quota") || IS("billing_hard_limit_reached") ||
        IS("credit_balance_exhausted") || IS("access_terminated") || status == 402 ||
        contains_ci(msg, "insufficient balance") || contains_ci(msg, "exceeded your current quota")) {
        /* Out of money: waiting does not help. A rate_limit kind that is fatal. */
        set_kind(err, SEAM_ERROR_RATE_LIMIT);
        err->retryable = 0;
        if (!code && !strcasecmp(t, "insufficient_quota"))
            code = t;
        if (!code || !*code)
            code = "insufficient_quota";
    } else if (IS("context_length_exceeded") || IS("context_window_exceeded") ||
               IS("string_above_max_length") ||
               ((status == 400 || status == 413 || status == 0 || status == 422) &&
                is_context_overflow_text(msg))) {
        set_kind(err, SEAM_ERROR_CONTEXT_OVERFLOW);
    } else if (IS("invalid_api_key") || IS("invalid_authentication") ||
               IS("authentication_error") || IS("permission_denied") || IS("permission_error") ||
               IS("unauthorized") || IS("invalid_organization") || status == 401 || status == 403) {
        set_kind(err, SEAM_ERROR_AUTH);
    } else if (IS("model_not_found") || status == 404 ||
               ((status == 400 || status == 0) && contains_ci(msg, "model") &&
                (contains_ci(msg, "does not exist") || contains_ci(msg, "not found")))) {
        set_kind(err, SEAM_ERROR_MODEL_NOT_FOUND);
    } else if (IS("content_filter") || IS("content_policy_violation") ||
               IS("moderation_blocked") || IS("invalid_prompt") ||
               IS("image_content_policy_violation") || contains_ci(msg, "content management policy") ||
               contains_ci(msg, "content policy")) {
        /* invalid_prompt: a Responses API failure for a prompt flagged under
         * the usage policies (response.failed error codes). */
        set_kind(err, SEAM_ERROR_CONTENT_FILTER);
    } else if (IS("rate_limit_exceeded") || IS("rate_limit_error") || IS("slow_down") ||
               IS("requests") || IS("tokens") || status == 429) {
        set_kind(err, SEAM_ERROR_RATE_LIMIT);
    } else if (status == 408 || status == 504 || IS("timeout") || IS("request_timeout") ||
               IS("vector_store_timeout")) {
        set_kind(err, SEAM_ERROR_TIMEOUT);
    } else if (IS("server_error") || IS("server_is_overloaded") || IS("overloaded_error") ||
               IS("service_unavailable") || IS("service_unavailable_error") ||
               IS("api_error") || IS("internal_error") || status >= 500) {
        set_kind(err, SEAM_ERROR_OVERLOADED);
    } else if (status >= 400) {
        set_kind(err, SEAM_ERROR_BAD_REQUEST);
    } else if (IS("invalid_request_error") || IS("invalid_request")) {
        set_kind(err, SEAM_ERROR_BAD_REQUEST);
    } else {
        set_kind(err, SEAM_ERROR_UNKNOWN);
    }
#undef IS
    if (code && *code)
        seam_strlcpy(err->code, code, sizeof err->code);
    else if (type && *type)
        seam_strlcpy(err->code, type, sizeof err->code);
}

/* Pulls message/type/code (code as text, and as a number when numeric) out of
 * the many error shapes OpenAI-compatible servers answer with:
 *   {"error":{"message","type","code","param"}}  OpenAI, DeepSeek, Groq, xAI, OpenRouter
 *   {"error":"text"}                               Ollama, proxies
 *   {"object":"error","message":...,"type","code"} Mistral, vLLM
 *   {"detail":...}                                 FastAPI-based servers
 *   [ {"error":{...}} ]                            some gateways */
typedef struct error_fields {
    char message[400];
    char code[64];
    char type[64];
    int numeric_code;
} error_fields;

static void copy_json_field(char *dst, size_t size, json_object *v)
{
    if (!v)
        return;
    if (json_object_is_type(v, json_type_string))
        seam_strlcpy(dst, json_object_get_string(v), size);
    else if (json_object_is_type(v, json_type_int))
        snprintf(dst, size, "%" PRId64, json_object_get_int64(v));
    else if (!json_object_is_type(v, json_type_null))
        seam_strlcpy(dst, json_text(v), size);
}

static void read_error_fields(json_object *root, error_fields *f)
{
    memset(f, 0, sizeof *f);
    json_object *e = root;
    if (json_object_is_type(e, json_type_array) && json_object_array_length(e) > 0)
        e = json_object_array_get_idx(e, 0);
    json_object *inner = jget(e, "error");
    if (inner)
        e = inner;
    if (json_object_is_type(e, json_type_string)) {
        seam_strlcpy(f->message, json_object_get_string(e), sizeof f->message);
        return;
    }
    json_object *msg = jget(e, "message");
    if (!msg)
        msg = jget(e, "detail");
    if (!msg)
        msg = jget(root, "detail");
    copy_json_field(f->message, sizeof f->message, msg);
    json_object *code = jget(e, "code");
    if (json_object_is_type(code, json_type_int))
        f->numeric_code = (int)json_object_get_int64(code);
    else
        copy_json_field(f->code, sizeof f->code, code);
    copy_json_field(f->type, sizeof f->type, jget(e, "type"));
    if (!f->message[0] && jget(root, "message"))
        copy_json_field(f->message, sizeof f->message, jget(root, "message"));
}

static void fill_error(const oa_instance *in, int status, const error_fields *f, seam_error *err)
{
    int effective = status;
    if ((status == 0 || status == 200) && f->numeric_code >= 400 && f->numeric_code < 600)
        effective = f->numeric_code; /* an HTTP status carried inside a 200 stream */
    char code_buf[64] = "";
    if (f->code[0])
        seam_strlcpy(code_buf, f->code, sizeof code_buf);
    classify(effective == 200 ? 0 : effective, code_buf[0] ? code_buf : NULL,
             f->type[0] ? f->type : NULL, f->message, err);
    char msg[sizeof f->message];
    seam_strlcpy(msg, f->message[0] ? f->message : "", sizeof msg);
    scrub_keys(msg);
    if (msg[0])
        snprintf(err->message, sizeof err->message, "%s", msg);
    else if (effective)
        snprintf(err->message, sizeof err->message, "HTTP %d", effective);
    else
        snprintf(err->message, sizeof err->message, "the provider reported an error");
    if (!err->provider[0])
        seam_strlcpy(err->provider, in ? in->name : "openai", sizeof err->provider);
}

/* "6m0s", "1.5s", "20ms", "1h2m" (OpenAI's x-ratelimit-reset-*) -> ms; -1 if not. */
static int64_t parse_duration_ms(const char *s)
{
    if (!s || !*s)
        return -1;
    double total = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno)
            return -1;
        p = end;
        if (strncmp(p, "ms", 2) == 0) {
            total += v;
            p += 2;
        } else if (*p == 'h') {
            total += v * 3600000.0;
            p++;
        } else if (*p == 'm') {
            total += v * 60000.0;
            p++;
        } else if (*p == 's' || *p == '\0') {
            total += v * 1000.0;
            if (*p)
                p++;
        } else {
            return -1;
        }
    }
    return total < 0 ? -1 : (int64_t)(total + 0.5);
}

static void keep_ratelimit_headers(const seam_http_headers *headers, seam_error *err)
{
    if (!headers)
        return;
    /* The core may have kept them already: do not list them twice. */
    size_t used = strlen(err->ratelimit);
    int already_kept = used > 0;
    for (size_t i = 0; !already_kept && i < seam_http_headers_count(headers); i++) {
        const char *name = NULL, *value = NULL;
        if (seam_http_headers_at(headers, i, &name, &value) != SEAM_OK || !name || !value)
            continue;
        if (strncasecmp(name, "x-ratelimit-", 12) != 0 && strcasecmp(name, "retry-after") != 0 &&
            strcasecmp(name, "retry-after-ms") != 0)
            continue;
        int n = snprintf(err->ratelimit + used, sizeof err->ratelimit - used, "%s: %s\n", name, value);
        if (n < 0 || (size_t)n >= sizeof err->ratelimit - used) {
            err->ratelimit[used] = '\0'; /* keep whole lines only */
            break;
        }
        used += (size_t)n;
    }
    /* No Retry-After: OpenAI's reset time of the exhausted limit says when to retry. */
    if (err->retry_after_ms < 0 && err->kind == SEAM_ERROR_RATE_LIMIT && err->retryable) {
        const char *rr = seam_http_headers_get(headers, "x-ratelimit-remaining-requests");
        const char *rt = seam_http_headers_get(headers, "x-ratelimit-remaining-tokens");
        int64_t wait = -1;
        if (rr && strcmp(rr, "0") == 0)
            wait = parse_duration_ms(seam_http_headers_get(headers, "x-ratelimit-reset-requests"));
        if (rt && strcmp(rt, "0") == 0) {
            int64_t t = parse_duration_ms(seam_http_headers_get(headers, "x-ratelimit-reset-tokens"));
            if (t > wait)
                wait = t;
        }
        if (wait >= 0)
            err->retry_after_ms = wait;
    }
}

static void oa_classify_error(void *instance, int http_status, const seam_http_headers *headers,
                              const char *body, size_t len, seam_error *err)
{
    const oa_instance *in = instance;
    if (!err)
        return;
    error_fields f;
    json_object *root = body && len ? json_parse_strict(body, len) : NULL;
    if (root) {
        read_error_fields(root, &f);
    } else {
        memset(&f, 0, sizeof f);
        if (body && len) { /* plain text answer (a proxy's HTML page, "Not Found") */
            size_t n = len < sizeof f.message - 1 ? len : sizeof f.message - 1;
            memcpy(f.message, body, n);
            f.message[n] = '\0';
            for (char *p = f.message; *p; p++)
                if (*p == '\n' || *p == '\r' || *p == '\t')
                    *p = ' ';
        }
    }
    json_object_put(root);
    err->http_status = http_status;
    fill_error(in, http_status, &f, err);
    keep_ratelimit_headers(headers, err);
}

/* ==== decode ================================================================= */

typedef struct tool_slot {
    int index;       /* the wire's index, or -1 when the server sent none */
    char *id;
    char *name;
    strbuf args;     /* argument fragments received before the start was emitted, then all */
    int started;
    int ended;
} tool_slot;

typedef struct oa_decoder {
    unsigned wire;      /* OA_WIRE_CHAT: tells it from a Responses decoder */
    const oa_instance *in;
    int reasoning_open;
    unsigned reasoning_seq;
    char reasoning_id[32];
    tool_slot *tools;
    size_t n_tools, cap_tools;
    unsigned synthesized_ids;
    int finish_seen;
    seam_stop_reason stop;
    int refusal_seen;
    seam_usage usage;
    int stop_emitted;
    json_tokener *tok;  /* reused for every event of the stream */
    int think_on;       /* the instance's think_tags */
    int think_state;    /* THINK_*, see on_content_text() */
    strbuf think_hold;  /* content held back: a possible tag's first bytes */
    strbuf scratch;     /* a NUL-terminated copy of a piece of content */
    jscan_buf scan;     /* the fast path's decoded strings, reused per event */
} oa_decoder;

static void oa_decoder_free(void *decoder);

/* The wire of a decoder: both kinds begin with an unsigned tag. */
static unsigned decoder_wire(const void *decoder)
{
    unsigned wire;
    memcpy(&wire, decoder, sizeof wire);
    return wire;
}

static void *chat_decoder_new(const oa_instance *in)
{
    oa_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->wire = OA_WIRE_CHAT;
    d->in = in;
    d->think_on = d->in && d->in->think_tags > 0;
    if (!(d->tok = json_tokener_new())) {
        oa_decoder_free(d);
        return NULL;
    }
    return d;
}

static void *oa_decoder_new(void *instance, const seam_request *req)
{
    if (oa_use_responses(instance, req))
        return oa_resp_decoder_new(instance, req);
    return chat_decoder_new(instance);
}

static void oa_decoder_free(void *decoder)
{
    oa_decoder *d = decoder;
    if (!d)
        return;
    if (decoder_wire(decoder) == OA_WIRE_RESPONSES) {
        oa_resp_decoder_free(decoder);
        return;
    }
    for (size_t i = 0; i < d->n_tools; i++) {
        free(d->tools[i].id);
        free(d->tools[i].name);
        sb_free(&d->tools[i].args);
    }
    free(d->tools);
    if (d->tok) /* json-c 0.16 dereferences a NULL tokener */
        json_tokener_free(d->tok);
    sb_free(&d->think_hold);
    sb_free(&d->scratch);
    jscan_buf_free(&d->scan);
    free(d);
}

static int emit(seam_emitter *em, const seam_chunk *c)
{
    return seam_emit(em, c);
}

static int close_reasoning(oa_decoder *d, seam_emitter *em)
{
    if (!d->reasoning_open)
        return SEAM_OK;
    d->reasoning_open = 0;
    seam_chunk c = {.type = SEAM_CHUNK_REASONING_END, .id = d->reasoning_id};
    return emit(em, &c);
}

static int on_reasoning(oa_decoder *d, seam_emitter *em, const char *text)
{
    if (!text || !*text)
        return SEAM_OK;
    int rc;
    if (!d->reasoning_open) {
        snprintf(d->reasoning_id, sizeof d->reasoning_id, "reasoning_%u", d->reasoning_seq++);
        d->reasoning_open = 1;
        seam_chunk s = {.type = SEAM_CHUNK_REASONING_START, .id = d->reasoning_id};
        if ((rc = emit(em, &s)) != SEAM_OK)
            return rc;
    }
    seam_chunk c = {.type = SEAM_CHUNK_REASONING_DELTA, .id = d->reasoning_id, .text = text};
    return emit(em, &c);
}

static int on_text(oa_decoder *d, seam_emitter *em, const char *text)
{
    if (!text || !*text)
        return SEAM_OK;
    int rc = close_reasoning(d, em);
    if (rc != SEAM_OK)
        return rc;
    seam_chunk c = {.type = SEAM_CHUNK_TEXT_DELTA, .text = text};
    return emit(em, &c);
}

/* ---- <think> tags in content ------------------------------------------------
 *
 * A server that runs a reasoning model without a reasoning parser (Ollama with
 * older deepseek-r1/qwq builds, vLLM without --reasoning-parser, llama.cpp's
 * server, Groq's reasoning_format "raw") sends the model's thoughts in
 * delta.content as "<think>...</think>" before the answer. With think_tags on,
 * a <think> that opens the content (whitespace before it allowed) starts the
 * reasoning channel; </think> ends it, and the whitespace after it is dropped.
 * A "<think>" anywhere later is the answer's own text and is left alone.
 * Tags may be split across deltas at any byte, so the bytes that could be the
 * start of a tag are held back until the next delta decides; bytes that turn
 * out not to be a tag are released unchanged. The end of the content (finish,
 * [DONE], a tool call, a refusal) releases what is held, and an unterminated
 * <think> is closed as reasoning. Not handled: output whose <think> was part of
 * the prompt (only "</think>" appears), which cannot be told apart from an
 * answer until the end. */
enum {
    THINK_START = 0, /* nothing visible yet: a <think> may open the content */
    THINK_IN,        /* inside <think>: content is reasoning until </think> */
    THINK_AFTER,     /* just after </think>: whitespace is dropped */
    THINK_TEXT       /* the answer: content is text, no more tags looked for */
};

static const char think_open[] = "<think>";
static const char think_close[] = "</think>";
#define THINK_OPEN_LEN (sizeof think_open - 1)
#define THINK_CLOSE_LEN (sizeof think_close - 1)
/* Leading whitespace held while waiting for a <think>: past this, it is text. */
#define THINK_MAX_LEADING_SPACE 64

/* s[0..n) as a NUL-terminated string: s itself when it is terminated there,
 * else a copy in the decoder's scratch buffer. NULL when out of memory. */
static const char *terminated(oa_decoder *d, const char *s, size_t n)
{
    if (s[n] == '\0')
        return s;
    d->scratch.len = 0;
    if (sb_append(&d->scratch, s, n) != SEAM_OK)
        return NULL;
    return d->scratch.data;
}

static int text_n(oa_decoder *d, seam_emitter *em, const char *s, size_t n)
{
    if (n == 0)
        return SEAM_OK;
    const char *t = terminated(d, s, n);
    return t ? on_text(d, em, t) : SEAM_ERR_NOMEM;
}

static int reasoning_n(oa_decoder *d, seam_emitter *em, const char *s, size_t n)
{
    if (n == 0)
        return SEAM_OK;
    const char *t = terminated(d, s, n);
    return t ? on_reasoning(d, em, t) : SEAM_ERR_NOMEM;
}

/* Where tag (tlen bytes) starts in p[0..len), or NULL. */
static const char *find_tag(const char *p, size_t len, const char *tag, size_t tlen)
{
    const char *end = p + len;
    while (p && (size_t)(end - p) >= tlen) {
        if (memcmp(p, tag, tlen) == 0)
            return p;
        p = memchr(p + 1, tag[0], (size_t)(end - p - 1));
    }
    return NULL;
}

/* The length of the longest end of p[0..len) that is a proper beginning of tag. */
static size_t tag_prefix_at_end(const char *p, size_t len, const char *tag, size_t tlen)
{
    for (size_t k = tlen - 1 < len ? tlen - 1 : len; k > 0; k--)
        if (memcmp(p + len - k, tag, k) == 0)
            return k;
    return 0;
}

/* Runs content p[0..len) (the held bytes and the new delta) through the states. */
static int think_run(oa_decoder *d, seam_emitter *em, const char *p, size_t len)
{
    int rc;
    for (;;) {
        size_t space = 0;
        switch (d->think_state) {
        case THINK_START: {
            while (space < len && isspace((unsigned char)p[space]))
                space++;
            size_t rest = len - space;
            size_t cmp = rest < THINK_OPEN_LEN ? rest : THINK_OPEN_LEN;
            if ((rest > 0 && memcmp(p + space, think_open, cmp) != 0) ||
                (rest == 0 && space > THINK_MAX_LEADING_SPACE)) {
                d->think_state = THINK_TEXT; /* the answer starts without a <think> */
                return text_n(d, em, p, len);
            }
            if (rest < THINK_OPEN_LEN) /* whitespace, or the beginning of "<think>" */
                return sb_append(&d->think_hold, p, len);
            p += space + THINK_OPEN_LEN;
            len -= space + THINK_OPEN_LEN;
            d->think_state = THINK_IN;
            break;
        }
        case THINK_IN: {
            const char *close = find_tag(p, len, think_close, THINK_CLOSE_LEN);
            if (!close) {
                size_t keep = tag_prefix_at_end(p, len, think_close, THINK_CLOSE_LEN);
                if ((rc = reasoning_n(d, em, p, len - keep)) != SEAM_OK)
                    return rc;
                return sb_append(&d->think_hold, p + len - keep, keep);
            }
            if ((rc = reasoning_n(d, em, p, (size_t)(close - p))) != SEAM_OK ||
                (rc = close_reasoning(d, em)) != SEAM_OK)
                return rc;
            len -= (size_t)(close - p) + THINK_CLOSE_LEN;
            p = close + THINK_CLOSE_LEN;
            d->think_state = THINK_AFTER;
            break;
        }
        case THINK_AFTER:
            while (space < len && isspace((unsigned char)p[space]))
                space++;
            if (space == len)
                return SEAM_OK;
            d->think_state = THINK_TEXT;
            return text_n(d, em, p + space, len - space);
        default:
            return text_n(d, em, p, len);
        }
    }
}

/* One piece of the answer's content (a delta's string or a text part). */
static int on_content_text(oa_decoder *d, seam_emitter *em, const char *text)
{
    if (!text || !*text)
        return SEAM_OK;
    if (!d->think_on || (d->think_state == THINK_TEXT && d->think_hold.len == 0))
        return on_text(d, em, text); /* the common case: no copy */
    size_t n = strlen(text);
    if (d->think_hold.len == 0)
        return think_run(d, em, text, n);
    strbuf joined = d->think_hold; /* the held bytes, then the new ones */
    memset(&d->think_hold, 0, sizeof d->think_hold);
    int rc = sb_append(&joined, text, n);
    if (rc == SEAM_OK)
        rc = think_run(d, em, joined.data, joined.len);
    sb_free(&joined);
    return rc;
}

/* The content is over (or something other than content comes): what is held
 * is released, an open <think> is closed; tags are no longer looked for. */
static int think_end(oa_decoder *d, seam_emitter *em)
{
    if (!d->think_on || d->think_state == THINK_TEXT)
        return SEAM_OK;
    int state = d->think_state;
    strbuf held = d->think_hold;
    memset(&d->think_hold, 0, sizeof d->think_hold);
    d->think_state = THINK_TEXT;
    int rc = SEAM_OK;
    if (state == THINK_START) {
        rc = text_n(d, em, held.data, held.len); /* it was not a tag: unchanged */
    } else if (state == THINK_IN) {
        rc = reasoning_n(d, em, held.data, held.len);
        if (rc == SEAM_OK)
            rc = close_reasoning(d, em);
    }
    sb_free(&held);
    return rc;
}

static tool_slot *new_slot(oa_decoder *d, int index)
{
    if (d->n_tools == d->cap_tools) {
        size_t cap = d->cap_tools ? d->cap_tools * 2 : 4;
        tool_slot *t = realloc(d->tools, cap * sizeof *t);
        if (!t)
            return NULL;
        d->tools = t;
        d->cap_tools = cap;
    }
    tool_slot *s = &d->tools[d->n_tools++];
    memset(s, 0, sizeof *s);
    s->index = index;
    return s;
}

/* The slot a fragment belongs to. With an index: the open slot of that index,
 * unless the fragment brings a different id or a different name (servers that
 * reuse index 0 for parallel calls). Without an index (Mistral, some proxies):
 * the open slot of its id; a fragment with a name but no known id starts a new
 * call (the name only comes on a call's first fragment); a bare fragment
 * continues the most recent call. */
static tool_slot *slot_for(oa_decoder *d, int has_index, int index, const char *id,
                           const char *name)
{
    int have_id = id && *id;
    int have_name = name && *name;
    for (size_t i = d->n_tools; i-- > 0;) {
        tool_slot *s = &d->tools[i];
        if (s->ended)
            continue;
        if (has_index) {
            if (s->index != index)
                continue;
            if (have_id && s->id && strcmp(s->id, id) != 0)
                break; /* a new call on a reused index */
            if (have_name && s->name && strcmp(s->name, name) != 0)
                break;
            return s;
        }
        if (have_id) {
            if (s->id && strcmp(s->id, id) == 0)
                return s;
            continue;
        }
        if (have_name)
            break;
        return s; /* the most recent open call */
    }
    return new_slot(d, has_index ? index : -1);
}

static int start_slot(oa_decoder *d, tool_slot *s, seam_emitter *em)
{
    int rc = think_end(d, em);
    if (rc == SEAM_OK)
        rc = close_reasoning(d, em);
    if (rc != SEAM_OK)
        return rc;
    if (!s->id || !*s->id) {
        char buf[48];
        snprintf(buf, sizeof buf, "call_seam_%u", d->synthesized_ids++);
        free(s->id);
        if (!(s->id = xstrdup(buf)))
            return SEAM_ERR_NOMEM;
    }
    s->started = 1;
    seam_chunk c = {.type = SEAM_CHUNK_TOOL_CALL_START, .id = s->id, .name = s->name ? s->name : ""};
    if ((rc = emit(em, &c)) != SEAM_OK)
        return rc;
    if (s->args.len) {
        seam_chunk dl = {.type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = s->id, .text = s->args.data};
        return emit(em, &dl);
    }
    return SEAM_OK;
}

static int on_tool_fragment(oa_decoder *d, seam_emitter *em, int has_index, int index,
                            const char *id, const char *name, const char *args)
{
    tool_slot *s = slot_for(d, has_index, index, id, name);
    if (!s)
        return SEAM_ERR_NOMEM;
    if (id && *id && !s->id && !(s->id = xstrdup(id)))
        return SEAM_ERR_NOMEM;
    if (name && *name && !s->name && !(s->name = xstrdup(name)))
        return SEAM_ERR_NOMEM;
    if (args && *args && sb_puts(&s->args, args) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    if (!s->started) {
        if (s->name) /* id and name come on the first fragment; wait for the name */
            return start_slot(d, s, em);
        return SEAM_OK;
    }
    if (args && *args) {
        seam_chunk c = {.type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = s->id, .text = args};
        return emit(em, &c);
    }
    return SEAM_OK;
}

char *oa_final_args(json_tokener *tok, const char *text, size_t len)
{
    const char *p = text ? text : "";
    const char *whole = p;
    while (len && isspace((unsigned char)*p)) {
        p++;
        len--;
    }
    while (len && isspace((unsigned char)p[len - 1]))
        len--;
    if (len == 0)
        return xstrdup("{}");
    json_object *obj = json_parse_with(tok, p, len);
    char *out;
    if (json_object_is_type(obj, json_type_object))
        out = xstrdup(json_text(obj));
    else
        out = xstrdup(whole);
    json_object_put(obj);
    return out;
}

static char *final_args(oa_decoder *d, const strbuf *args)
{
    return oa_final_args(d->tok, args->data, args->len);
}

static int end_tools(oa_decoder *d, seam_emitter *em)
{
    int rc;
    for (size_t i = 0; i < d->n_tools; i++) {
        tool_slot *s = &d->tools[i];
        if (s->ended)
            continue;
        if (!s->started && (rc = start_slot(d, s, em)) != SEAM_OK)
            return rc;
        s->ended = 1;
        char *args = final_args(d, &s->args);
        if (!args)
            return SEAM_ERR_NOMEM;
        seam_chunk c = {.type = SEAM_CHUNK_TOOL_CALL_END, .id = s->id, .args_json = args};
        rc = emit(em, &c);
        free(args);
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}

static seam_stop_reason map_finish(const char *fr)
{
    if (!fr)
        return SEAM_STOP_NONE;
    if (!strcmp(fr, "stop") || !strcmp(fr, "end_turn") || !strcmp(fr, "eos") ||
        !strcmp(fr, "stop_sequence"))
        return SEAM_STOP_STOP;
    if (!strcmp(fr, "length") || !strcmp(fr, "max_tokens") || !strcmp(fr, "model_length"))
        return SEAM_STOP_LENGTH;
    if (!strcmp(fr, "tool_calls") || !strcmp(fr, "function_call") || !strcmp(fr, "tool_use"))
        return SEAM_STOP_TOOL_USE;
    if (!strcmp(fr, "content_filter") || !strcmp(fr, "safety") || !strcmp(fr, "refusal"))
        return SEAM_STOP_CONTENT_FILTER;
    if (!strcmp(fr, "error"))
        return SEAM_STOP_ERROR;
    return SEAM_STOP_STOP; /* an unknown reason still ended the turn normally */
}

/* Content is over: close reasoning, end every tool call. */
static int finish_content(oa_decoder *d, seam_emitter *em)
{
    int rc = think_end(d, em);
    if (rc == SEAM_OK)
        rc = close_reasoning(d, em);
    if (rc == SEAM_OK)
        rc = end_tools(d, em);
    return rc;
}

static int emit_stop(oa_decoder *d, seam_emitter *em)
{
    if (d->stop_emitted)
        return SEAM_OK;
    int rc = finish_content(d, em);
    if (rc != SEAM_OK)
        return rc;
    seam_stop_reason r = d->stop;
    /* Some servers (older Ollama, vLLM) say "stop" after tool calls. */
    if ((r == SEAM_STOP_NONE || r == SEAM_STOP_STOP) && d->n_tools > 0)
        r = SEAM_STOP_TOOL_USE;
    if (r == SEAM_STOP_NONE)
        r = SEAM_STOP_STOP;
    if (r == SEAM_STOP_STOP && d->refusal_seen)
        r = SEAM_STOP_CONTENT_FILTER;
    d->stop_emitted = 1;
    seam_chunk c = {.type = SEAM_CHUNK_STOP, .stop_reason = r, .usage = d->usage};
    return emit(em, &c);
}

static void read_usage(json_object *u, seam_usage *out)
{
    if (!json_object_is_type(u, json_type_object))
        return;
    seam_usage us = {0};
    int64_t prompt, completion, cached = 0, reasoning;
    int have_cached = 0;
    json_object *pd = jget(u, "prompt_tokens_details");
    if (jcount(pd, "cached_tokens", &cached))
        have_cached = 1;
    else if (jcount(u, "prompt_cache_hit_tokens", &cached))
        have_cached = 1;
    if (jcount(u, "prompt_tokens", &prompt)) {
        us.present |= SEAM_USAGE_INPUT;
        us.input_tokens = prompt - (have_cached ? cached : 0);
        if (us.input_tokens < 0)
            us.input_tokens = 0;
    }
    if (have_cached) {
        us.present |= SEAM_USAGE_CACHE_READ;
        us.cache_read_tokens = cached;
    }
    if (jcount(u, "completion_tokens", &completion)) {
        us.present |= SEAM_USAGE_OUTPUT;
        us.output_tokens = completion;
    }
    if (jcount(jget(u, "completion_tokens_details"), "reasoning_tokens", &reasoning)) {
        us.present |= SEAM_USAGE_REASONING;
        us.reasoning_tokens = reasoning;
    }
    if (us.present)
        *out = us;
}

/* A Mistral thinking part: "thinking" is a string or an array of text parts. */
static int on_thinking_part(oa_decoder *d, seam_emitter *em, json_object *part)
{
    json_object *th = jget(part, "thinking");
    if (json_object_is_type(th, json_type_string))
        return on_reasoning(d, em, json_object_get_string(th));
    if (json_object_is_type(th, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(th); i++) {
            json_object *t = json_object_array_get_idx(th, i);
            const char *s = json_object_is_type(t, json_type_string) ? json_object_get_string(t)
                                                                    : jstr(t, "text");
            int rc = on_reasoning(d, em, s);
            if (rc != SEAM_OK)
                return rc;
        }
    }
    return SEAM_OK;
}

static int on_content(oa_decoder *d, seam_emitter *em, json_object *content)
{
    if (json_object_is_type(content, json_type_string))
        return on_content_text(d, em, json_object_get_string(content));
    if (!json_object_is_type(content, json_type_array))
        return SEAM_OK;
    for (size_t i = 0; i < json_object_array_length(content); i++) {
        json_object *part = json_object_array_get_idx(content, i);
        int rc = SEAM_OK;
        if (json_object_is_type(part, json_type_string)) {
            rc = on_content_text(d, em, json_object_get_string(part));
        } else {
            const char *type = jstr(part, "type");
            if (!type || !strcmp(type, "text"))
                rc = on_content_text(d, em, jstr(part, "text"));
            else if (!strcmp(type, "thinking") || !strcmp(type, "reasoning"))
                rc = jget(part, "thinking") ? on_thinking_part(d, em, part)
                                            : on_reasoning(d, em, jstr(part, "text"));
            else if (!strcmp(type, "refusal")) {
                d->refusal_seen = 1;
                rc = think_end(d, em);
                if (rc == SEAM_OK)
                    rc = on_text(d, em, jstr(part, "refusal"));
            }
        }
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}

/* One delta (stream) or message (whole response). `whole`: tool calls are
 * complete, their position is their index. */
static int on_delta(oa_decoder *d, seam_emitter *em, json_object *delta, int whole)
{
    if (!json_object_is_type(delta, json_type_object))
        return SEAM_OK;
    int rc;
    const char *reasoning = jstr(delta, "reasoning_content");
    if (!reasoning)
        reasoning = jstr(delta, "reasoning");
    if ((rc = on_reasoning(d, em, reasoning)) != SEAM_OK)
        return rc;
    if ((rc = on_content(d, em, jget(delta, "content"))) != SEAM_OK)
        return rc;
    const char *refusal = jstr(delta, "refusal");
    if (refusal && *refusal) {
        d->refusal_seen = 1;
        if ((rc = think_end(d, em)) != SEAM_OK || (rc = on_text(d, em, refusal)) != SEAM_OK)
            return rc;
    }
    json_object *calls = jget(delta, "tool_calls");
    if (!json_object_is_type(calls, json_type_array))
        return SEAM_OK;
    for (size_t i = 0; i < json_object_array_length(calls); i++) {
        json_object *call = json_object_array_get_idx(calls, i);
        if (!json_object_is_type(call, json_type_object))
            continue;
        int64_t index = 0;
        int has_index = whole ? 1 : jint(call, "index", &index);
        if (whole)
            index = (int64_t)d->n_tools; /* each call of a whole message is new */
        json_object *fn = jget(call, "function");
        json_object *args = jget(fn, "arguments");
        const char *args_text = NULL;
        if (json_object_is_type(args, json_type_string))
            args_text = json_object_get_string(args);
        else if (json_object_is_type(args, json_type_object))
            args_text = json_text(args); /* servers that send the object itself */
        rc = on_tool_fragment(d, em, has_index, (int)index, jstr(call, "id"), jstr(fn, "name"),
                              args_text);
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}

/* The choice this decoder follows: index 0 (n > 1 is not supported). */
static json_object *first_choice(json_object *root)
{
    json_object *choices = jget(root, "choices");
    if (!json_object_is_type(choices, json_type_array))
        return NULL;
    for (size_t i = 0; i < json_object_array_length(choices); i++) {
        json_object *c = json_object_array_get_idx(choices, i);
        int64_t idx = 0;
        if (!jint(c, "index", &idx) || idx == 0)
            return c;
    }
    return NULL;
}

int oa_error_event(const oa_instance *in, json_object *root, seam_error *err)
{
    error_fields f;
    read_error_fields(root, &f);
    if (err) {
        fill_error(in, 0, &f, err);
        if (err->kind == SEAM_ERROR_UNKNOWN && !f.code[0] && !f.type[0] && !f.numeric_code) {
            /* An error event with nothing to go on: the server gave up mid-answer. */
            set_kind(err, SEAM_ERROR_OVERLOADED);
        }
    }
    return SEAM_ERR_PROVIDER;
}

void oa_error_from_fields(const oa_instance *in, const char *code, const char *type,
                          const char *message, seam_error *err)
{
    if (!err)
        return;
    error_fields f;
    memset(&f, 0, sizeof f);
    seam_strlcpy(f.code, code ? code : "", sizeof f.code);
    seam_strlcpy(f.type, type ? type : "", sizeof f.type);
    seam_strlcpy(f.message, message ? message : "", sizeof f.message);
    fill_error(in, 0, &f, err);
    if (err->kind == SEAM_ERROR_UNKNOWN && !f.code[0] && !f.type[0])
        set_kind(err, SEAM_ERROR_OVERLOADED); /* nothing to go on: the server gave up */
}

static int stream_error(const oa_decoder *d, json_object *root, seam_error *err)
{
    return oa_error_event(d->in, root, err);
}

int oa_malformed(seam_error *err, const char *what)
{
    return codec_protocol_error(err, "openai: malformed %s from the provider", what);
}


static int on_finish(oa_decoder *d, seam_emitter *em, const char *fr)
{
    if (!fr)
        return SEAM_OK;
    d->finish_seen = 1;
    d->stop = map_finish(fr);
    return finish_content(d, em);
}

/* ---- the fast path ----------------------------------------------------------
 *
 * Most events of a long stream are one delta of one choice: content, reasoning
 * or a tool call's argument fragment, with no finish_reason and no usage. Those
 * are scanned in place (json_scan.h) and handed to the same on_* functions the
 * json-c path calls, in the same order. Anything else (a finish, usage, an
 * error, content parts, a refusal, a choice other than index 0 first) makes the
 * scan give up before anything is emitted, and the event takes the json-c
 * path: this path only ever decides the cost of an event, never its chunks. */

#define OA_SCAN_MAX_CALLS 4

typedef struct oa_scan_call {
    int has_index;
    int64_t index;
    const char *id, *name, *args;
} oa_scan_call;

typedef struct oa_scan_delta {
    const char *content, *reasoning_content, *reasoning;
    oa_scan_call calls[OA_SCAN_MAX_CALLS];
    size_t n_calls;
} oa_scan_delta;

/* {"name": ..., "arguments": ...} of a tool call. */
static int scan_function(jscan *s, oa_scan_call *c)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (jscan_null(s))
        return 1;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "name") ? 1 : JSCAN_KEY(k, kl, "arguments") ? 2 : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        if (!(bit == 1   ? jscan_string_or_null(s, &c->name)
              : bit == 2 ? jscan_string_or_null(s, &c->args)
                         : jscan_skip(s)))
            return 0;
    }
    return r == 0;
}

static int scan_tool_calls(jscan *s, oa_scan_delta *dl)
{
    int r;
    if (jscan_null(s))
        return 1;
    if (!jscan_array(s))
        return 0;
    while ((r = jscan_element(s)) == 1) {
        if (dl->n_calls == OA_SCAN_MAX_CALLS || !jscan_object(s))
            return 0;
        oa_scan_call *c = &dl->calls[dl->n_calls++];
        memset(c, 0, sizeof *c);
        const char *k;
        size_t kl;
        int m, seen = 0;
        while ((m = jscan_member(s, &k, &kl)) == 1) {
            int bit = JSCAN_KEY(k, kl, "index")      ? 1
                      : JSCAN_KEY(k, kl, "id")       ? 2
                      : JSCAN_KEY(k, kl, "function") ? 4
                                                        : 0;
            if (bit & seen)
                return 0;
            seen |= bit;
            int ok;
            if (bit == 1) {
                /* An index that does not fit an int would wrap: json-c's turn. */
                ok = jscan_int(s, &c->index) && c->index >= 0 && c->index <= INT_MAX;
                c->has_index = 1;
            } else if (bit == 2) {
                ok = jscan_string_or_null(s, &c->id);
            } else if (bit == 4) {
                ok = scan_function(s, c);
            } else {
                ok = jscan_skip(s);
            }
            if (!ok)
                return 0;
        }
        if (m != 0)
            return 0;
    }
    return r == 0;
}

static int scan_delta(jscan *s, oa_scan_delta *dl)
{
    const char *k, *refusal;
    size_t kl;
    int r, seen = 0;
    if (jscan_null(s))
        return 1;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "content")             ? 1
                  : JSCAN_KEY(k, kl, "reasoning_content") ? 2
                  : JSCAN_KEY(k, kl, "reasoning")         ? 4
                  : JSCAN_KEY(k, kl, "refusal")           ? 8
                  : JSCAN_KEY(k, kl, "tool_calls")        ? 16
                                                             : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        int ok;
        switch (bit) {
        case 1: ok = jscan_string_or_null(s, &dl->content); break;
        case 2: ok = jscan_string_or_null(s, &dl->reasoning_content); break;
        case 4: ok = jscan_string_or_null(s, &dl->reasoning); break;
        case 8: ok = jscan_string_or_null(s, &refusal) && (!refusal || !*refusal); break;
        case 16: ok = scan_tool_calls(s, dl); break;
        default: ok = jscan_skip(s); break;
        }
        if (!ok)
            return 0;
    }
    return r == 0;
}

/* The first choice, which must be the one first_choice() would pick. */
static int scan_choice(jscan *s, oa_scan_delta *dl, int *have)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "index")           ? 1
                  : JSCAN_KEY(k, kl, "delta")         ? 2
                  : JSCAN_KEY(k, kl, "finish_reason") ? 4
                                                         : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        int64_t idx;
        int ok = bit == 1   ? jscan_int(s, &idx) && idx == 0
                 : bit == 2 ? scan_delta(s, dl)
                 : bit == 4 ? jscan_null(s) /* a finish goes the long way */
                            : jscan_skip(s);
        if (!ok)
            return 0;
    }
    *have = 1;
    return r == 0;
}

/* 1 when the event was scanned and decoded (*rc its status), 0 when it must
 * take the json-c path (nothing has been emitted then). */
static int oa_scan_event(oa_decoder *d, const seam_frame *frame, const char *data, size_t len,
                         seam_emitter *out, int *rc)
{
    jscan s;
    if ((frame->event && strcmp(frame->event, "error") == 0) ||
        !jscan_begin(&s, &d->scan, data, len) || !jscan_object(&s))
        return 0;
    oa_scan_delta dl;
    memset(&dl, 0, sizeof dl);
    int have_choice = 0, seen = 0, r;
    const char *k;
    size_t kl;
    while ((r = jscan_member(&s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "choices")  ? 1
                  : JSCAN_KEY(k, kl, "object") ? 2
                  : JSCAN_KEY(k, kl, "usage")  ? 4
                                                  : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        int ok;
        if (bit == 1) {
            ok = jscan_array(&s);
            int e;
            if (ok && (e = jscan_element(&s)) != 0)
                ok = e == 1 && scan_choice(&s, &dl, &have_choice);
            while (ok && have_choice && (e = jscan_element(&s)) == 1)
                ok = jscan_skip(&s);
            if (ok && have_choice)
                ok = e == 0;
        } else if (bit == 2) {
            const char *obj;
            ok = jscan_peek(&s) == '"' ? jscan_string(&s, &obj) && strcmp(obj, "error") != 0
                                       : jscan_skip(&s);
        } else if (bit == 4) {
            ok = jscan_null(&s);
        } else {
            /* "error" and "x_groq" (usage inside) are for the json-c path. */
            ok = !JSCAN_KEY(k, kl, "error") && !JSCAN_KEY(k, kl, "x_groq") && jscan_skip(&s);
        }
        if (!ok)
            return 0;
    }
    if (r != 0 || !jscan_end(&s))
        return 0;

    /* The json-c path's order: reasoning, content, (refusal), tool calls,
     * (finish), (usage). */
    *rc = SEAM_OK;
    if (!have_choice)
        return 1;
    const char *reasoning = dl.reasoning_content ? dl.reasoning_content : dl.reasoning;
    if ((*rc = on_reasoning(d, out, reasoning)) != SEAM_OK)
        return 1;
    if (dl.content && (*rc = on_content_text(d, out, dl.content)) != SEAM_OK)
        return 1;
    for (size_t i = 0; i < dl.n_calls; i++) {
        oa_scan_call *c = &dl.calls[i];
        *rc = on_tool_fragment(d, out, c->has_index, (int)c->index, c->id, c->name, c->args);
        if (*rc != SEAM_OK)
            return 1;
    }
    return 1;
}

static int oa_decode_event(void *decoder, const seam_frame *frame, seam_emitter *out, seam_error *err)
{
    if (decoder_wire(decoder) == OA_WIRE_RESPONSES)
        return oa_resp_decode_event(decoder, frame, out, err);
    oa_decoder *d = decoder;
    const char *data = frame && frame->data ? frame->data : "";
    size_t len = frame ? frame->data_len : 0;
    while (len && isspace((unsigned char)*data)) {
        data++;
        len--;
    }
    while (len && isspace((unsigned char)data[len - 1]))
        len--;
    if (len == 0)
        return SEAM_OK;
    if (len == 6 && memcmp(data, "[DONE]", 6) == 0) {
        /* [DONE] alone does not say the answer is whole: only a finish_reason
         * does. Without one the answer was cut short upstream. */
        if (!d->finish_seen && !d->stop_emitted)
            return codec_protocol_error(err, "openai: the stream ended ([DONE]) before a finish_reason: "
                                             "the response is incomplete");
        return emit_stop(d, out);
    }
    if (d->stop_emitted)
        return SEAM_OK; /* nothing after the end counts */
    int rc_fast;
    if (oa_scan_event(d, frame, data, len, out, &rc_fast))
        return rc_fast;
    json_object *root = json_parse_with(d->tok, data, len);
    if (!root)
        return oa_malformed(err, "stream event");
    int rc = SEAM_OK;
    if (jget(root, "error") || (frame->event && strcmp(frame->event, "error") == 0) ||
        (json_object_is_type(root, json_type_object) && jstr(root, "object") &&
         strcmp(jstr(root, "object"), "error") == 0)) {
        rc = stream_error(d, root, err);
        json_object_put(root);
        return rc;
    }
    json_object *choice = first_choice(root);
    if (choice) {
        rc = on_delta(d, out, jget(choice, "delta"), 0);
        if (rc == SEAM_OK)
            rc = on_finish(d, out, jstr(choice, "finish_reason"));
    }
    if (rc == SEAM_OK) {
        json_object *usage = jget(root, "usage");
        if (!usage)
            usage = jget(jget(root, "x_groq"), "usage");
        read_usage(usage, &d->usage);
    }
    json_object_put(root);
    return rc;
}

static int oa_decode_finish(void *decoder, seam_emitter *out, seam_error *err)
{
    if (decoder_wire(decoder) == OA_WIRE_RESPONSES)
        return oa_resp_decode_finish(decoder, out, err);
    oa_decoder *d = decoder;
    /* No [DONE] but a finish_reason: the answer is complete all the same. */
    if (!d->stop_emitted && d->finish_seen)
        return emit_stop(d, out);
    /* Cut short: what content was held back still belongs to the partial answer. */
    if (!d->stop_emitted)
        return think_end(d, out);
    return SEAM_OK;
}

static int oa_decode_response(void *instance, const seam_request *req, const char *body,
                              size_t len, seam_emitter *out, seam_error *err)
{
    if (oa_use_responses(instance, req))
        return oa_resp_decode_response(instance, req, body, len, out, err);
    oa_decoder *d = chat_decoder_new(instance);
    if (!d)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    json_object *root = json_parse_with(d->tok, body, len);
    if (!json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        oa_decoder_free(d);
        return oa_malformed(err, "response body");
    }
    int rc;
    if (jget(root, "error")) {
        rc = stream_error(d, root, err);
    } else {
        json_object *choice = first_choice(root);
        if (!choice) {
            rc = oa_malformed(err, "response (no choices)");
        } else {
            rc = on_delta(d, out, jget(choice, "message"), 1);
            if (rc == SEAM_OK)
                rc = on_finish(d, out, jstr(choice, "finish_reason"));
            if (rc == SEAM_OK) {
                json_object *usage = jget(root, "usage");
                if (!usage)
                    usage = jget(jget(root, "x_groq"), "usage");
                read_usage(usage, &d->usage);
                rc = emit_stop(d, out);
            }
        }
    }
    oa_decoder_free(d);
    json_object_put(root);
    return rc;
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
#undef FLAG
    int64_t n;
    if (jint(o, "context_window", &n))
        caps->context_window = n;
    if (jint(o, "max_output_tokens", &n))
        caps->max_output_tokens = n;
}

static int oa_capabilities(void *instance, const char *model, seam_capabilities *out)
{
    const oa_instance *in = instance;
    if (!out)
        return SEAM_ERR_INVALID;
    seam_capabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.size = sizeof caps;
    caps.streaming = 1;
    const model_family *fam = family_of(model);
    if (fam) {
        caps.tools = (fam->caps & CAP_TOOLS) != 0;
        caps.parallel_tool_calls = (fam->caps & CAP_PARALLEL) != 0;
        caps.vision = (fam->caps & CAP_VISION) != 0;
        caps.reasoning = (fam->caps & CAP_REASONING) != 0;
        caps.structured_output = (fam->caps & CAP_STRUCTURED) != 0;
        caps.prompt_cache = (fam->caps & CAP_CACHE) != 0;
        caps.audio_input = (fam->caps & CAP_AUDIO) != 0;
        caps.pdf_input = (fam->caps & CAP_PDF) != 0;
        caps.context_window = fam->context_window;
        caps.max_output_tokens = fam->max_output;
    } else {
        caps.tools = 1; /* an unknown model on a compatible server: tools usually work */
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
                              strncasecmp(model_base(model), match, strlen(match)) == 0))
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

/* ==== registration ============================================================ */

static const seam_provider_vtable openai_vtable = {
    .abi_version = SEAM_PLUGIN_ABI_VERSION,
    .size = sizeof(seam_provider_vtable),
    .id = "openai",
    .description = "OpenAI-compatible Chat Completions and the Responses API (OpenAI, DeepSeek, "
                   "Groq, Mistral, xAI, OpenRouter, Ollama, vLLM)",
    .framing = SEAM_FRAMING_SSE,
    .create = oa_create,
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
};

static int openai_init(seam_registrar *r)
{
    return seam_registrar_add(r, &openai_vtable);
}

SEAM_PLUGIN_DEFINE(openai_init)
