/* templates.c — what the conf's `cli` group gives `seam chat`: model
 * aliases (cli.aliases = { fast = "gpt-4.1-mini"; }) and templates, each a
 * name bundling a system prompt, a model or chain and request options
 * (cli.templates = { review = { system = "..."; model = "fast";
 * temperature = 0.2; }; }), used as `-t NAME`. What the command line gives
 * wins over the template. The group reaches the command as JSON through
 * seam_client_cli_settings; libseam does not interpret it. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <seam/seam.h>

#include "chat.h"
#include "cli.h"

/* The cli group's member `key` as an object, or NULL. */
static json_object *cli_group(chat_options *o, const char *key)
{
    if (!o->cli_settings)
        o->cli_settings = json_tokener_parse(seam_client_cli_settings(o->client));
    json_object *v = NULL;
    if (!o->cli_settings || !json_object_object_get_ex(o->cli_settings, key, &v) ||
        !json_object_is_type(v, json_type_object))
        return NULL;
    return v;
}

const char *chat_alias(chat_options *o, const char *model)
{
    json_object *aliases = cli_group(o, "aliases"), *v = NULL;
    if (model && aliases && json_object_object_get_ex(aliases, model, &v) &&
        json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return model;
}

static const char *string_of(json_object *t, const char *key)
{
    json_object *v = NULL;
    return json_object_object_get_ex(t, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

int chat_apply_template(chat_options *o)
{
    if (!o->template_name)
        return EXIT_OK;
    json_object *templates = cli_group(o, "templates"), *t = NULL;
    if (!templates || !json_object_object_get_ex(templates, o->template_name, &t) ||
        !json_object_is_type(t, json_type_object))
        return usage_error("chat: -t %s: the conf defines no such template (cli.templates)",
                           o->template_name);
    static const char *const known[] = { "system", "model", "provider", "chain", "temperature",
                                         "max_tokens", "stop", "reasoning", "schema" };
    json_object_object_foreach(t, key, val) {
        (void)val;
        size_t k = 0;
        while (k < sizeof known / sizeof known[0] && strcmp(known[k], key) != 0)
            k++;
        if (k == sizeof known / sizeof known[0])
            return usage_error("chat: template %s: unknown setting %s (expected one of: system, "
                               "model, provider, chain, temperature, max_tokens, stop, reasoning, "
                               "schema)", o->template_name, key);
    }
    if (!o->system)
        o->system = string_of(t, "system");
    /* Where to send it: the command line's choice, else the template's. */
    if (!o->chain && !o->provider && !o->model) {
        o->chain = string_of(t, "chain");
        o->provider = string_of(t, "provider");
        o->model = string_of(t, "model");
    }
    json_object *v = NULL;
    if (!o->have_temperature && json_object_object_get_ex(t, "temperature", &v) &&
        (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))) {
        o->temperature = json_object_get_double(v);
        o->have_temperature = 1;
    }
    if (!o->max_tokens && json_object_object_get_ex(t, "max_tokens", &v) &&
        json_object_is_type(v, json_type_int))
        o->max_tokens = json_object_get_int64(v);
    if (!o->n_stops && json_object_object_get_ex(t, "stop", &v) &&
        json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);
        const char **stops = calloc(n + 1, sizeof *stops);
        if (!stops)
            return say("out of memory"), EXIT_PROVIDER;
        for (size_t i = 0; i < n; i++) {
            json_object *s = json_object_array_get_idx(v, i);
            if (json_object_is_type(s, json_type_string))
                stops[o->n_stops++] = json_object_get_string(s);
        }
        free(o->stops);
        o->stops = stops;
    }
    if (!o->reasoning_budget && json_object_object_get_ex(t, "reasoning", &v)) {
        if (json_object_is_type(v, json_type_int))
            o->reasoning_budget = json_object_get_int64(v);
        else if (json_object_is_type(v, json_type_string) &&
                 chat_reasoning_budget(json_object_get_string(v), &o->reasoning_budget) != 0)
            return usage_error("chat: template %s: reasoning must be low, medium, high or a "
                               "number of tokens", o->template_name);
    }
    if (!o->schema)
        o->schema = string_of(t, "schema");
    if (o->chain && (o->provider || o->model))
        return usage_error("chat: template %s: chain cannot be combined with provider/model",
                           o->template_name);
    return EXIT_OK;
}
