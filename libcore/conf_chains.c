/* conf_chains.c — the `chains` and `roles` groups: a chain's entries
 * (provider, model, attempts, backoff), its fallbacks and failover_on; a role
 * names a chain. Once every file is read, the references are checked: from a
 * chain to a chain and from a role to a chain (a chain entry naming an
 * undefined provider is a warning: plugin packages define providers in
 * conf.d/). */
#include "config.h"
#include "conf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_ATTEMPTS 1
#define DEFAULT_BACKOFF_BASE_MS 500
#define DEFAULT_BACKOFF_MAX_MS 20000
#define DEFAULT_BACKOFF_JITTER 0.1
#define DEFAULT_RETRY_AFTER_CAP_MS 60000
#define DEFAULT_COOLDOWN_MS 30000

void conf_free_chain(seam_conf_chain *ch)
{
    for (size_t k = 0; k < ch->n_entries; k++) {
        free(ch->entries[k].provider);
        free(ch->entries[k].model);
    }
    free(ch->entries);
    free(ch->name);
    free(ch->context_overflow_fallback);
    free(ch->content_filter_fallback);
    free(ch->file);
}

/* The overlay's replacing, as replace_provider (conf_providers.c). */
static int replace_chain(loader *ld, const char *name)
{
    seam_conf *c = ld->conf;
    const seam_conf_chain *ch = seam_conf_find_chain(c, name);
    size_t i = ch ? (size_t)(ch - c->chains) : 0;
    if (!ch || i >= ld->base_chains)
        return 0;
    conf_free_chain(&c->chains[i]);
    free(ld->chain_lines[i].entry_lines);
    size_t n = c->n_chains;
    conf_remove_at(ld->chain_lines, &n, i, sizeof *ld->chain_lines);
    conf_remove_at(c->chains, &c->n_chains, i, sizeof *c->chains);
    ld->base_chains--;
    return 1;
}

static int replace_role(loader *ld, const char *name)
{
    seam_conf *c = ld->conf;
    for (size_t i = 0; i < ld->base_roles; i++) {
        if (strcmp(c->roles[i].name, name) != 0)
            continue;
        free(c->roles[i].name);
        free(c->roles[i].chain);
        free(c->roles[i].file);
        free(ld->role_origins[i].file);
        size_t n = c->n_roles;
        conf_remove_at(ld->role_origins, &n, i, sizeof *ld->role_origins);
        conf_remove_at(c->roles, &c->n_roles, i, sizeof *c->roles);
        ld->base_roles--;
        return 1;
    }
    return 0;
}

/* ---- chains ------------------------------------------------------------------------------------ */

static const char entry_keys[] = "provider, model, max_attempts, backoff";
static const char backoff_keys[] = "base_ms, max_ms, jitter";

static const char chain_keys[] =
    "entries, retry_after_cap_ms, cooldown_ms, context_overflow_fallback, content_filter_fallback, "
    "failover_on";

/* The fatal error classes a chain may opt into failing over on. The retryable
 * ones (rate_limit, overloaded, timeout, transport) fail over already. */
static const name_bit failover_names[] = {
    {"auth", SEAM_FAILOVER_KIND(SEAM_ERROR_AUTH)},
    {"quota", SEAM_FAILOVER_QUOTA},
    {"model_not_found", SEAM_FAILOVER_KIND(SEAM_ERROR_MODEL_NOT_FOUND)},
    {"bad_request", SEAM_FAILOVER_KIND(SEAM_ERROR_BAD_REQUEST)},
    {"context_overflow", SEAM_FAILOVER_KIND(SEAM_ERROR_CONTEXT_OVERFLOW)},
    {"content_filter", SEAM_FAILOVER_KIND(SEAM_ERROR_CONTENT_FILTER)},
    {"unknown", SEAM_FAILOVER_KIND(SEAM_ERROR_UNKNOWN)},
};

static int load_failover_on(loader *ld, seam_conf_chain *ch, const config_setting_t *s,
                            const char *path)
{
    uint32_t bits = 0;
    int rc = conf_read_name_bits(ld, s, path, "an array of error kinds [ \"auth\", ... ]", failover_names,
                            sizeof failover_names / sizeof failover_names[0], "",
                            " is not an error kind failover_on takes", &bits);
    ch->failover_on = rc == SEAM_OK ? bits : 0;
    return rc;
}

static int load_backoff(loader *ld, seam_conf_backoff *b, const config_setting_t *s,
                        const char *path)
{
    if (conf_expect_group(ld, s, path) != SEAM_OK)
        return ld->status;
    const config_setting_t *max_setting = NULL;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
        const char *key = config_setting_name(m);
        char mpath[PATH_MAX_LEN];
        conf_join_path(mpath, path, key);
        int rc;
        if (strcmp(key, "base_ms") == 0)
            rc = conf_read_int64(ld, m, mpath, R_BACKOFF_MS, &b->base_ms);
        else if (strcmp(key, "max_ms") == 0) {
            rc = conf_read_int64(ld, m, mpath, R_BACKOFF_MS, &b->max_ms);
            max_setting = m;
        } else if (strcmp(key, "jitter") == 0) {
            rc = conf_read_number(ld, m, mpath, &b->jitter);
            if (rc == SEAM_OK && !(b->jitter >= 0.0 && b->jitter <= 1.0))
                rc = fail_setting(ld, m, "%s must be between 0 and 1", mpath);
        } else
            rc = conf_fail_unknown(ld, m, path, backoff_keys);
        if (rc != SEAM_OK)
            return rc;
    }
    if (b->max_ms < b->base_ms)
        return fail_setting(ld, max_setting ? max_setting : s, "%s.max_ms (%lld) must be >= base_ms (%lld)",
                            path, (long long)b->max_ms, (long long)b->base_ms);
    return SEAM_OK;
}

static int load_entry(loader *ld, seam_conf_entry *e, const config_setting_t *s,
                      const char *path)
{
    if (conf_expect_group(ld, s, path) != SEAM_OK)
        return ld->status;
    e->max_attempts = DEFAULT_MAX_ATTEMPTS;
    e->backoff.base_ms = DEFAULT_BACKOFF_BASE_MS;
    e->backoff.max_ms = DEFAULT_BACKOFF_MAX_MS;
    e->backoff.jitter = DEFAULT_BACKOFF_JITTER;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
        const char *key = config_setting_name(m);
        char mpath[PATH_MAX_LEN];
        conf_join_path(mpath, path, key);
        int rc;
        if (strcmp(key, "provider") == 0)
            rc = conf_read_string(ld, m, mpath, &e->provider);
        else if (strcmp(key, "model") == 0)
            rc = conf_read_string(ld, m, mpath, &e->model);
        else if (strcmp(key, "max_attempts") == 0) {
            int64_t n = 0;
            rc = conf_read_int64(ld, m, mpath, R_MAX_ATTEMPTS, &n);
            e->max_attempts = (int)n;
        } else if (strcmp(key, "backoff") == 0)
            rc = load_backoff(ld, &e->backoff, m, mpath);
        else
            rc = conf_fail_unknown(ld, m, path, entry_keys);
        if (rc != SEAM_OK)
            return rc;
    }
    if (!e->provider)
        return fail_setting(ld, s, "%s has no provider", path);
    if (!e->model)
        return fail_setting(ld, s, "%s has no model", path);
    return SEAM_OK;
}

static int load_entries(loader *ld, seam_conf_chain *ch, chain_lines *lines,
                        const config_setting_t *s, const char *path)
{
    if (config_setting_type(s) != CONFIG_TYPE_LIST)
        return conf_fail_type(ld, s, path, "a list of entries ( { provider = ...; model = ...; } )");
    int n = config_setting_length(s);
    if (n == 0)
        return fail_setting(ld, s, "%s has no entries", path);
    ch->entries = calloc((size_t)n, sizeof *ch->entries);
    lines->entry_lines = calloc((size_t)n, sizeof *lines->entry_lines);
    if (!ch->entries || !lines->entry_lines)
        return conf_fail_nomem(ld);
    for (int i = 0; i < n; i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        char epath[PATH_MAX_LEN];
        snprintf(epath, sizeof epath, "%s[%d]", path, i);
        ch->n_entries++;
        lines->entry_lines[i] = conf_setting_line(e);
        if (load_entry(ld, &ch->entries[i], e, epath) != SEAM_OK)
            return ld->status;
    }
    return SEAM_OK;
}

static int load_chain_group(loader *ld, seam_conf_chain *ch, chain_lines *lines,
                            const config_setting_t *s, const char *path)
{
    const config_setting_t *entries = NULL;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
        const char *key = config_setting_name(m);
        char mpath[PATH_MAX_LEN];
        conf_join_path(mpath, path, key);
        int rc;
        if (strcmp(key, "entries") == 0) {
            entries = m;
            rc = load_entries(ld, ch, lines, m, mpath);
        } else if (strcmp(key, "retry_after_cap_ms") == 0)
            rc = conf_read_int64(ld, m, mpath, R_RETRY_AFTER_CAP_MS, &ch->retry_after_cap_ms);
        else if (strcmp(key, "cooldown_ms") == 0)
            rc = conf_read_int64(ld, m, mpath, R_COOLDOWN_MS, &ch->cooldown_ms);
        else if (strcmp(key, "failover_on") == 0)
            rc = load_failover_on(ld, ch, m, mpath);
        else if (strcmp(key, "context_overflow_fallback") == 0) {
            rc = conf_read_string(ld, m, mpath, &ch->context_overflow_fallback);
            lines->overflow_line = conf_setting_line(m);
        } else if (strcmp(key, "content_filter_fallback") == 0) {
            rc = conf_read_string(ld, m, mpath, &ch->content_filter_fallback);
            lines->filter_line = conf_setting_line(m);
        } else
            rc = conf_fail_unknown(ld, m, path, chain_keys);
        if (rc != SEAM_OK)
            return rc;
    }
    if (!entries)
        return fail_setting(ld, s, "%s has no entries", path);
    return SEAM_OK;
}

static int load_chain(loader *ld, const config_setting_t *s)
{
    seam_conf *c = ld->conf;
    const char *name = config_setting_name(s);
    char path[PATH_MAX_LEN];
    conf_join_path(path, "chains", name);
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_LIST && t != CONFIG_TYPE_GROUP)
        return conf_fail_type(ld, s, path, "a list of entries ( { ... } ) or a group { entries = ( ... ); }");
    const seam_conf_chain *prev = replace_chain(ld, name) ? NULL : seam_conf_find_chain(c, name);
    if (prev)
        return fail_setting(ld, s, "chain \"%s\" already defined in %s:%d", name, prev->file,
                            prev->line);

    size_t cap = ld->cap_chains;
    if (conf_grow((void **)&c->chains, &cap, c->n_chains, sizeof *c->chains) != SEAM_OK)
        return conf_fail_nomem(ld);
    cap = ld->cap_chains;
    if (conf_grow((void **)&ld->chain_lines, &cap, c->n_chains, sizeof *ld->chain_lines) != SEAM_OK)
        return conf_fail_nomem(ld);
    ld->cap_chains = cap;

    seam_conf_chain *ch = &c->chains[c->n_chains];
    chain_lines *lines = &ld->chain_lines[c->n_chains];
    c->n_chains++;
    memset(ch, 0, sizeof *ch);
    memset(lines, 0, sizeof *lines);
    ch->name = strdup(name);
    ch->file = strdup(conf_setting_file(ld, s));
    ch->line = conf_setting_line(s);
    ch->retry_after_cap_ms = DEFAULT_RETRY_AFTER_CAP_MS;
    ch->cooldown_ms = DEFAULT_COOLDOWN_MS;
    if (!ch->name || !ch->file)
        return conf_fail_nomem(ld);
    if (t == CONFIG_TYPE_LIST)
        return load_entries(ld, ch, lines, s, path);
    return load_chain_group(ld, ch, lines, s, path);
}

int conf_load_chains(loader *ld, const config_setting_t *s)
{
    if (conf_expect_group(ld, s, "chains") != SEAM_OK)
        return ld->status;
    for (int i = 0; i < config_setting_length(s); i++)
        if (load_chain(ld, config_setting_get_elem(s, (unsigned)i)) != SEAM_OK)
            return ld->status;
    return SEAM_OK;
}

/* ---- roles ------------------------------------------------------------------------------------------ */

int conf_load_roles(loader *ld, const config_setting_t *s)
{
    if (conf_expect_group(ld, s, "roles") != SEAM_OK)
        return ld->status;
    seam_conf *c = ld->conf;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
        const char *name = config_setting_name(m);
        char path[PATH_MAX_LEN];
        conf_join_path(path, "roles", name);
        replace_role(ld, name);
        for (size_t k = 0; k < c->n_roles; k++)
            if (strcmp(c->roles[k].name, name) == 0)
                return fail_setting(ld, m, "role \"%s\" already defined in %s:%d", name,
                                    ld->role_origins[k].file, ld->role_origins[k].line);
        size_t cap = ld->cap_roles;
        if (conf_grow((void **)&c->roles, &cap, c->n_roles, sizeof *c->roles) != SEAM_OK)
            return conf_fail_nomem(ld);
        cap = ld->cap_roles;
        if (conf_grow((void **)&ld->role_origins, &cap, c->n_roles, sizeof *ld->role_origins) !=
            SEAM_OK)
            return conf_fail_nomem(ld);
        ld->cap_roles = cap;
        seam_conf_role *r = &c->roles[c->n_roles];
        role_origin *o = &ld->role_origins[c->n_roles];
        c->n_roles++;
        r->name = strdup(name);
        r->file = strdup(conf_setting_file(ld, m));
        r->line = conf_setting_line(m);
        r->chain = NULL;
        o->file = strdup(conf_setting_file(ld, m));
        o->line = conf_setting_line(m);
        if (!r->name || !o->file || !r->file)
            return conf_fail_nomem(ld);
        if (conf_read_string(ld, m, path, &r->chain) != SEAM_OK)
            return ld->status;
    }
    return SEAM_OK;
}

/* ---- checks across files ---------------------------------------------------------------------------------- */

static int check_fallback(loader *ld, const seam_conf_chain *ch, const char *which,
                          const char *target, int line)
{
    if (target && !seam_conf_find_chain(ld->conf, target))
        return conf_fail_at(ld, ch->file, line, "chains.%s.%s names chain \"%s\", which is not defined",
                       ch->name, which, target);
    return SEAM_OK;
}

int conf_check_references(loader *ld)
{
    const seam_conf *c = ld->conf;
    for (size_t i = 0; i < c->n_chains; i++) {
        const seam_conf_chain *ch = &c->chains[i];
        for (size_t k = 0; k < ch->n_entries; k++) {
            const seam_conf_entry *e = &ch->entries[k];
            /* Not an error: providers come from conf.d/ snippets that plugin
             * packages install, so a default chain names providers that may be
             * absent. The chain runner skips such an entry (with the reason). */
            if (!seam_conf_find_provider(c, e->provider)) {
                seam_buf w = {0};
                if (seam_buf_printf(&w,
                                    "%s:%d: chains.%s[%zu] names provider \"%s\", which is not "
                                    "defined: the entry is skipped",
                                    ch->file, ld->chain_lines[i].entry_lines[k], ch->name, k,
                                    e->provider) != SEAM_OK) {
                    seam_buf_free(&w);
                    return conf_fail_nomem(ld);
                }
                if (conf_add_warning(ld, w.data) != SEAM_OK)
                    return ld->status;
            }
        }
        if (check_fallback(ld, ch, "context_overflow_fallback", ch->context_overflow_fallback,
                           ld->chain_lines[i].overflow_line) != SEAM_OK ||
            check_fallback(ld, ch, "content_filter_fallback", ch->content_filter_fallback,
                           ld->chain_lines[i].filter_line) != SEAM_OK)
            return ld->status;
    }
    for (size_t i = 0; i < c->n_roles; i++)
        if (!seam_conf_find_chain(c, c->roles[i].chain))
            return conf_fail_at(ld, ld->role_origins[i].file, ld->role_origins[i].line,
                           "roles.%s names chain \"%s\", which is not defined", c->roles[i].name,
                           c->roles[i].chain);
    return SEAM_OK;
}
