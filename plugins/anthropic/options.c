/* options.c — the anthropic plugin's provider options: the conf's
 * `options = { ... }` and a request's provider options, read into the
 * settings of one call (anthropic_settings_apply) and validated, so that create can
 * refuse a typo at load.
 *
 * A request's options are its flat keys and its "anthropic" and conf-name
 * namespaces (../common/provider_options.h); a key not listed here is
 * dropped with a warning, and extra_body = { ... } is merged into the body.
 *
 * Options (a request's provider options win over the conf's, key by key,
 * except capabilities, models and a context-1m beta's wider window, which
 * are read from the conf only; doc/providers.md has the full reference):
 *   anthropic_version = "2023-06-01";   the anthropic-version header; from
 *                                       "2026-10-21" on no sampling parameter
 *                                       is sent (encode.c)
 *   beta = [ "interleaved-thinking-2025-05-14" ];
 *                                       the anthropic-beta header: a list, or one
 *                                       comma-separated string; the conf's and the
 *                                       request's betas are both sent
 *   auth = "x-api-key" | "bearer";      how the credential travels (x-api-key)
 *   cache = "none" | "auto" | bool | "system_and_3" | "prefix_and_2";
 *                                       prompt-cache strategy, default "none";
 *                                       cache_strategy (the session's spelling)
 *                                       sets the same thing; "auto" and true
 *                                       are system_and_3. Where the breakpoints
 *                                       go: encode.c, place_breakpoints. A
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
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ==== options ================================================================ */


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

/* The keys read here, and the conf-only ones models.c reads. */
static const char *const known_keys[] = {
    "anthropic_version", "beta", "auth", "cache", "cache_strategy", "cache_ttl", "thinking",
    "thinking_budget", "thinking_display", "max_tokens", "top_k", "top_p", "metadata",
    "service_tier", "effort", "disable_parallel_tool_use", "forced_tool", "strict_tools",
    "structured_output", "capabilities", "models",
};

int anthropic_option_known(const char *key, void *ud)
{
    (void)ud;
    for (size_t i = 0; i < sizeof known_keys / sizeof known_keys[0]; i++)
        if (!strcmp(key, known_keys[i]))
            return 1;
    return 0;
}

/* Applies one options object over s. -1 with `why` for a bad value,
 * SEAM_ERR_NOMEM on allocation failure. */
int anthropic_settings_apply(settings *s, json_object *o, char *why, size_t whysize)
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
        } else if (!strcmp(key, "cache") || !strcmp(key, "cache_strategy")) {
            /* cache_strategy is the session's provider-neutral spelling;
             * "auto" (or true) is system_and_3. */
            const char *cs = json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                                      : NULL;
            if (json_object_is_type(v, json_type_boolean) && !strcmp(key, "cache"))
                s->cache_auto = json_object_get_boolean(v) ? CACHE_SYSTEM_AND_3 : CACHE_NONE;
            else if (str_eq(cs, "none"))
                s->cache_auto = CACHE_NONE;
            else if (str_eq(cs, "system_and_3") || (str_eq(cs, "auto") && !strcmp(key, "cache")))
                s->cache_auto = CACHE_SYSTEM_AND_3;
            else if (str_eq(cs, "prefix_and_2"))
                s->cache_auto = CACHE_PREFIX_AND_2;
            else {
                snprintf(why, whysize,
                         "option %s must be \"none\", %s\"system_and_3\" or \"prefix_and_2\"", key,
                         strcmp(key, "cache") ? "" : "\"auto\", ");
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

