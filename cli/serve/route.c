/* route.c — what the `model` field of a request names: a chain of the conf,
 * a role (which names a chain), or PROVIDER/MODEL for one configured provider
 * (`openai/gpt-4.1-mini`: the model may itself hold slashes). GET /v1/models
 * lists all three in OpenAI's list shape. */
#include "config.h"

#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int provider_configured(seam_client *cl, const char *name, size_t n)
{
    size_t count = seam_client_provider_count(cl);
    for (size_t i = 0; i < count; i++) {
        seam_provider_info info;
        if (seam_client_provider_at(cl, i, &info) == SEAM_OK && strlen(info.name) == n &&
            strncmp(info.name, name, n) == 0)
            return 1;
    }
    return 0;
}

static const char *find_chain(seam_client *cl, const char *name)
{
    size_t n = seam_client_chain_count(cl);
    for (size_t i = 0; i < n; i++) {
        const char *ch = seam_client_chain_name(cl, i);
        if (ch && strcmp(ch, name) == 0)
            return ch;
    }
    return NULL;
}

int route_resolve(seam_client *cl, serve_call *c, serve_err *e)
{
    const char *m = c->model;
    const char *chain = find_chain(cl, m);
    if (!chain) {
        const char *rc = seam_client_role_chain(cl, m);
        if (rc && find_chain(cl, rc))
            chain = rc;
    }
    if (chain) {
        c->route_chain = strdup(chain);
        return c->route_chain ? 0 : -1;
    }
    const char *slash = strchr(m, '/');
    if (slash && slash > m && slash[1] && provider_configured(cl, m, (size_t)(slash - m))) {
        c->route_provider = strndup(m, (size_t)(slash - m));
        c->route_model = strdup(slash + 1);
        return c->route_provider && c->route_model ? 0 : -1;
    }
    serve_err_set(e, 404, SEAM_ERROR_MODEL_NOT_FOUND, "model_not_found",
                  "The model '%.200s' does not exist: name a chain, a role or PROVIDER/MODEL "
                  "(GET /v1/models lists them)", m);
    snprintf(e->param, sizeof e->param, "model");
    return -1;
}

static void model_entry(sbuf *out, int *first, const char *id, const char *owner)
{
    if (!*first)
        sb_puts(out, ",");
    *first = 0;
    sb_puts(out, "{\"id\":");
    sb_json_str(out, id);
    sb_puts(out, ",\"object\":\"model\",\"created\":0,\"owned_by\":");
    sb_json_str(out, owner);
    sb_puts(out, "}");
}

void route_models(seam_client *cl, serve_keys *keys, int key_index, sbuf *out)
{
    int first = 1;
    sb_puts(out, "{\"object\":\"list\",\"data\":[");
    size_t nc = seam_client_chain_count(cl);
    for (size_t i = 0; i < nc; i++) {
        const char *name = seam_client_chain_name(cl, i);
        if (keys_allows(keys, key_index, name, name, NULL, NULL))
            model_entry(out, &first, name, "seam-chain");
    }
    size_t nr = seam_client_role_count(cl);
    for (size_t i = 0; i < nr; i++) {
        const char *role, *chain;
        if (seam_client_role_at(cl, i, &role, &chain) == SEAM_OK && !find_chain(cl, role) &&
            keys_allows(keys, key_index, role, chain, NULL, NULL))
            model_entry(out, &first, role, "seam-role");
    }
    /* Every PROVIDER/MODEL a chain names, once. */
    sbuf seen = { 0 };
    sb_puts(&seen, "\n");
    for (size_t i = 0; i < nc; i++) {
        size_t len = seam_client_chain_length(cl, i);
        for (size_t j = 0; j < len; j++) {
            const char *p, *m;
            int att;
            if (seam_client_chain_entry(cl, i, j, &p, &m, &att) != SEAM_OK || !p || !m)
                continue;
            sbuf id = { 0 };
            sb_printf(&id, "%s/%s", p, m);
            sbuf probe = { 0 };
            sb_printf(&probe, "\n%s\n", id.p ? id.p : "");
            if (id.p && probe.p && !strstr(seen.p ? seen.p : "", probe.p) &&
                keys_allows(keys, key_index, id.p, NULL, p, m)) {
                model_entry(out, &first, id.p, p);
                sb_printf(&seen, "%s\n", id.p);
            }
            sb_free(&probe);
            sb_free(&id);
        }
    }
    sb_free(&seen);
    sb_puts(out, "]}");
}
