/* options.c — the openai plugin's provider instance: the profiles (the
 * servers that speak this wire, and how one is inferred from the base_url),
 * the conf's options, create and destroy.
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
 *               `temperature` (refused unless the effort is "none"), no `stop`
 *               (refused whatever the effort, see encode.c). From
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
 *                      (such a request then fails before sending, oa_bad_request,
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
 * (in a request's provider options these keys are ignored). The other keys
 * taken are the body fields the plugin knows for the wire and profile
 * (body_fields.c), merged into the request body, top-level keys replacing
 * what the codec wrote; in a request's provider options (its flat keys, its
 * "openai" and conf-name namespaces: ../common/provider_options.h; JSON,
 * unlike libconfig, has null) a null value removes a field the codec would
 * have sent, e.g. {"openai": {"stream_options": null}}. Any other key is
 * dropped with a warning; extra_body = { ... } holds raw fields, merged last.
 *
 * The usual key variables (profiles[].key_env) are documentation for the conf:
 * the core resolves credentials, this codec only asks for "Bearer <key>".
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "../common/provider_options.h"

/* ==== profiles ============================================================ */

/* Instances of the SDK's profile (<seam/openai_compat.h>), as a third
 * party's provider built on libseam-openai-compat is one. */
#define PROFILE(id_, url, env, fl, rw)                                                       \
    {.size = sizeof(seam_openai_profile), .id = id_, .base_url = url, .key_env = env,        \
     .flags = fl, .reasoning = rw}
static const oa_profile profiles[] = {
    PROFILE("openai", "https://api.openai.com/v1", "OPENAI_API_KEY",
            PF_STREAM_USAGE | PF_OPENAI_REASONING | PF_JSON_SCHEMA, RW_OPENAI),
    PROFILE("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY",
            PF_STREAM_USAGE | PF_DEEPSEEK, RW_NONE),
    PROFILE("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", PF_JSON_SCHEMA | PF_THINK_TAGS,
            RW_GROQ),
    PROFILE("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY",
            PF_JSON_SCHEMA | PF_TOOL_NAME | PF_SHORT_TOOL_IDS, RW_MISTRAL),
    PROFILE("xai", "https://api.x.ai/v1", "XAI_API_KEY", PF_STREAM_USAGE | PF_JSON_SCHEMA | PF_XAI,
            RW_XAI),
    PROFILE("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY",
            PF_STREAM_USAGE | PF_JSON_SCHEMA, RW_OPENROUTER),
    PROFILE("ollama", "http://127.0.0.1:11434/v1", NULL,
            PF_STREAM_USAGE | PF_JSON_SCHEMA | PF_THINK_TAGS, RW_OLLAMA),
    PROFILE("vllm", "http://127.0.0.1:8000/v1", NULL, PF_STREAM_USAGE | PF_JSON_SCHEMA | PF_THINK_TAGS,
            RW_VLLM),
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

/* ==== the provider instance ================================================= */


/* Keys the plugin (or the core's session, for cache_strategy: OpenAI caches
 * prompt prefixes by itself) understands, never copied into the body. */
static const char *const reserved_options[] = {
    "profile", "capabilities", "headers", "max_tokens_param", "stream_usage", "cache_strategy",
    "think_tags", "api", "reasoning_summary",
};

int oa_is_reserved_option(const char *key)
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
    free(in->conf_extra);
    free(in->conf_notes);
    free(in->headers_json);
    free(in->caps_json);
    free(in->reasoning_summary);
    free(in->profile_copy);
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
                strcasecmp(hk, "x-api-key") == 0 ||
                (in->profile && in->profile->auth_header &&
                 strcasecmp(hk, in->profile->auth_header) == 0))
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

void *oa_create(const seam_provider_config *cfg, seam_error *err)
{
    return oa_create_with(NULL, cfg, err);
}

void *oa_create_with(const oa_profile *fixed, const seam_provider_config *cfg, seam_error *err)
{
    oa_instance *in = calloc(1, sizeof *in);
    if (!in) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
        return NULL;
    }
    in->stream_usage = -1;
    in->think_tags = -1;
    in->name = xstrdup(cfg && cfg->name ? cfg->name : fixed ? fixed->id : "openai");
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
    json_object *pv = fixed ? NULL : jget(opts, "profile"); /* a fixed profile is the plugin's */
    in->profile = fixed;
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
    /* Only the body fields the plugin knows (body_fields.c) are sent; the
     * others are reported on each request, and extra_body is sent as is. */
    popt_view view;
    if (popt_select(opts, 1, NULL, 0, oa_option_known, in, "openai plugin", &view) != SEAM_OK)
        goto nomem;
    if (view.own) {
        json_object_object_foreach(view.own, key, val)
        {
            if (oa_is_reserved_option(key))
                continue;
            json_object_object_add(body, key, json_object_get(val));
        }
    }
    /* No conf fields at all is NULL, not "{}": a request then takes the
     * encoder's path without the read-back merge (has_options). */
    int own_fields = json_object_object_length(body) > 0;
    in->body_options = own_fields ? xstrdup(json_text(body)) : NULL;
    in->conf_extra = view.extra ? xstrdup(json_text(view.extra)) : NULL;
    in->conf_notes = view.notes.len ? xstrdup(view.notes.data) : NULL;
    int lost = (own_fields && !in->body_options) || (view.extra && !in->conf_extra) ||
               (view.notes.len && !in->conf_notes);
    popt_view_free(&view);
    if (lost)
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

void oa_destroy(void *instance)
{
    instance_free(instance);
}
