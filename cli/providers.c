/* providers.c — `seam providers`: the conf in use, its providers (plugin,
 * base_url, where the credential comes from, never the credential), chains
 * and roles; with -v, where the shared state lives and what it holds now. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <seam/seam.h>

#include "cli.h"

/* providers -v: one line per cooldown, guard window or session lease. */
static void print_state_entry(void *ud, const seam_state_entry *e)
{
    (void)ud;
    if (e->session)
        printf("  lease: %s session %s on key %d, %lld s left\n", e->provider, e->session, e->key,
               (long long)(e->left_ms + 999) / 1000);
    else
        printf("  %s: %s key %d, %lld s left\n", e->kind, e->provider, e->key,
               (long long)(e->left_ms + 999) / 1000);
}

int cmd_providers(const char *conf, int argc, char **argv)
{
    int verbose = 0, kept = 0;
    for (int i = 0; i < argc; i++) /* -v is this command's own option */
        if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0)
            verbose = 1;
        else
            argv[kept++] = argv[i];
    argc = kept;
    int rc = parse_simple_args("providers", argc, argv, &conf);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    seam_client *client = NULL;
    seam_error err;
    int code = open_client(conf, &client, &err);
    if (code != EXIT_OK)
        return code;

    const char *path = seam_client_conf_path(client);
    printf("conf: %s\n", path ? path : "(none found)");

    size_t np = seam_client_provider_count(client);
    printf("providers:%s\n", np ? "" : " none");
    for (size_t i = 0; i < np; i++) {
        seam_provider_info p;
        memset(&p, 0, sizeof p);
        if (seam_client_provider_at(client, i, &p) != SEAM_OK)
            continue;
        /* Only where the credential comes from is shown, never the credential. */
        const char *source = p.credential_source ? p.credential_source : "none";
        printf("  %s: plugin %s (%s), base_url %s, credential %s (%s)\n", p.name,
               p.plugin ? p.plugin : "?", p.plugin_loaded ? "loaded" : "not loaded",
               p.base_url ? p.base_url : "(plugin default)", source,
               strcmp(source, "none") == 0 ? (p.has_credential ? "not needed" : "not set")
                                           : (p.has_credential ? "set" : "not set"));
    }

    size_t nc = seam_client_chain_count(client);
    printf("chains:%s\n", nc ? "" : " none");
    for (size_t i = 0; i < nc; i++) {
        const char *name = seam_client_chain_name(client, i);
        printf("  %s", name ? name : "?");
        for (size_t r = 0; name && r < seam_client_role_count(client); r++) {
            const char *role = NULL, *chain = NULL;
            if (seam_client_role_at(client, r, &role, &chain) == SEAM_OK && strcmp(chain, name) == 0)
                printf(" (role %s)", role);
        }
        printf(":\n");
        size_t len = seam_client_chain_length(client, i);
        for (size_t j = 0; j < len; j++) {
            const char *prov = NULL, *model = NULL;
            int attempts = 0;
            if (seam_client_chain_entry(client, i, j, &prov, &model, &attempts) != SEAM_OK)
                continue;
            printf("    %zu. %s %s (max_attempts %d)\n", j + 1, prov ? prov : "?",
                   model ? model : "?", attempts);
        }
    }

    size_t nr = seam_client_role_count(client);
    printf("roles:%s\n", nr ? "" : " none (chat uses chain \"default\")");
    for (size_t r = 0; r < nr; r++) {
        const char *role = NULL, *chain = NULL;
        if (seam_client_role_at(client, r, &role, &chain) == SEAM_OK)
            printf("  %s = %s\n", role, chain);
    }
    char store[512];
    int shared = 0;
    if (verbose && printf("state (cooldowns, guard windows, leases):\n") > 0 &&
        seam_client_state(client, store, sizeof store, &shared, print_state_entry, NULL, &err) ==
            SEAM_OK)
        printf("  store: %s\n", store);
    seam_client_free(client);
    return EXIT_OK;
}
