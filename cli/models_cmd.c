/* models_cmd.c — `seam models [--json]`: each model of the catalog with its
 * provider, context window, capabilities and prices, and whether a
 * configured provider serves it with a credential; and pick_provider, which
 * finds the provider for `seam chat -m MODEL` given without --provider. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <json-c/json.h>
#include <seam/seam.h>

#include "cli.h"

/* The configured provider that serves catalog provider `cat` (a conf name or a
 * plugin id): the provider of that name, else the first of that plugin with a
 * credential, else the first of that plugin. NULL when none is configured. */
static const char *configured_for(seam_client *client, const char *cat, int *has_credential)
{
    const char *with_key = NULL, *any = NULL;
    size_t n = seam_client_provider_count(client);
    for (size_t i = 0; cat && i < n; i++) {
        seam_provider_info p;
        memset(&p, 0, sizeof p);
        if (seam_client_provider_at(client, i, &p) != SEAM_OK)
            continue;
        if (strcmp(p.name, cat) == 0) {
            *has_credential = p.has_credential;
            return p.name;
        }
        if (p.plugin && strcmp(p.plugin, cat) == 0) {
            if (!any)
                any = p.name;
            if (p.has_credential && !with_key)
                with_key = p.name;
        }
    }
    *has_credential = with_key != NULL;
    return with_key ? with_key : any;
}

const char *pick_provider(seam_client *client, const char *model)
{
    seam_model_info m;
    int has_credential = 0;
    const char *fallback = NULL;
    for (size_t i = 0; i < seam_client_model_count(client); i++) {
        memset(&m, 0, sizeof m);
        m.size = sizeof m;
        if (seam_client_model_at(client, i, &m) != SEAM_OK || strcmp(m.id, model) != 0)
            continue;
        const char *p = configured_for(client, m.provider, &has_credential);
        if (p && has_credential)
            return p;
        if (p && !fallback)
            fallback = p;
    }
    if (fallback)
        return fallback;
    /* Not in the catalog: a chain of the conf that names the model knows. */
    for (size_t c = 0; c < seam_client_chain_count(client); c++)
        for (size_t j = 0; j < seam_client_chain_length(client, c); j++) {
            const char *prov = NULL, *mod = NULL;
            if (seam_client_chain_entry(client, c, j, &prov, &mod, NULL) == SEAM_OK && mod &&
                strcmp(mod, model) == 0)
                return prov;
        }
    return NULL;
}

/* Micro-cents per million tokens as dollars per million: "$1.25". */
static void price(char *buf, size_t size, int64_t mc)
{
    snprintf(buf, size, "$%lld.%02lld", (long long)(mc / 100000000),
             (long long)(mc % 100000000 / 1000000));
    /* Keep sub-cent digits when there are any. */
    if (mc % 1000000) {
        char frac[16];
        snprintf(frac, sizeof frac, "%08lld", (long long)(mc % 100000000));
        size_t n = strlen(frac);
        while (n > 2 && frac[n - 1] == '0')
            frac[--n] = '\0';
        snprintf(buf, size, "$%lld.%s", (long long)(mc / 100000000), frac);
    }
}

int cmd_models(const char *conf, int argc, char **argv)
{
    int json = 0;
    for (int i = 0; i < argc; i++) {
        const char *value = NULL;
        int r = option_value(argc, argv, &i, "--conf", &value);
        if (r < 0)
            return usage_error("models: --conf needs a value");
        if (r > 0) {
            conf = value;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(help_text, stdout);
            return EXIT_OK;
        } else {
            return usage_error("models: unexpected argument '%s'", argv[i]);
        }
    }
    seam_client *client = NULL;
    seam_error err;
    int code = open_client(conf, &client, &err);
    if (code != EXIT_OK)
        return code;
    size_t n = seam_client_model_count(client);
    if (!json)
        printf("%-28s %-10s %9s %-20s %s\n", "MODEL", "PROVIDER", "CONTEXT", "PRICE IN/OUT",
               "CONFIGURED AS");
    for (size_t i = 0; i < n; i++) {
        seam_model_info m;
        memset(&m, 0, sizeof m);
        m.size = sizeof m;
        if (seam_client_model_at(client, i, &m) != SEAM_OK)
            continue;
        int has_credential = 0;
        const char *configured = configured_for(client, m.provider, &has_credential);
        char in[32] = "-", out[32] = "-";
        if (m.priced) {
            price(in, sizeof in, m.price_input);
            price(out, sizeof out, m.price_output);
        }
        if (json) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "id", json_object_new_string(m.id));
            json_object_object_add(o, "provider",
                                   m.provider ? json_object_new_string(m.provider) : NULL);
            if (m.context_window)
                json_object_object_add(o, "context_window", json_object_new_int64(m.context_window));
            if (m.max_output_tokens)
                json_object_object_add(o, "max_output_tokens",
                                       json_object_new_int64(m.max_output_tokens));
            json_object *caps = json_object_new_array();
            char list[sizeof m.capabilities];
            memcpy(list, m.capabilities, sizeof list);
            char *save = NULL;
            for (char *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save))
                json_object_array_add(caps, json_object_new_string(c));
            json_object_object_add(o, "capabilities", caps);
            if (m.priced) {
                /* Micro-cents (1e-8 USD) per million tokens, as the conf writes them. */
                json_object *p = json_object_new_object();
                json_object_object_add(p, "input", json_object_new_int64(m.price_input));
                json_object_object_add(p, "output", json_object_new_int64(m.price_output));
                if (m.price_cache_read >= 0)
                    json_object_object_add(p, "cache_read", json_object_new_int64(m.price_cache_read));
                if (m.price_cache_write >= 0)
                    json_object_object_add(p, "cache_write",
                                           json_object_new_int64(m.price_cache_write));
                json_object_object_add(o, "price", p);
            }
            json_object_object_add(o, "configured_as",
                                   configured ? json_object_new_string(configured) : NULL);
            json_object_object_add(o, "has_credential", json_object_new_boolean(has_credential));
            json_object_object_add(o, "source", json_object_new_string(m.from_catalog ? "catalog" : "conf"));
            puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                       JSON_C_TO_STRING_NOSLASHESCAPE));
            json_object_put(o);
            continue;
        }
        char ctx[24] = "?";
        if (m.context_window)
            snprintf(ctx, sizeof ctx, "%lld", (long long)m.context_window);
        char prices[48];
        snprintf(prices, sizeof prices, "%s/%s", in, out);
        printf("%-28s %-10s %9s %-20s %s%s\n", m.id, m.provider ? m.provider : "(any)", ctx,
               prices, configured ? configured : "not configured",
               configured ? (has_credential ? " (credential set)" : " (no credential)") : "");
        if (m.capabilities[0])
            printf("  %s\n", m.capabilities);
    }
    seam_client_free(client);
    return EXIT_OK;
}
