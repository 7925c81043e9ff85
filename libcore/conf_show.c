/* conf_show.c — seam_conf_show: the merged conf a client would use (the
 * system conf, its conf.d/, the personal conf overlaying them), written back
 * as conf text with the FILE:LINE each definition came from, for
 * `seam config show`. A credential is never written: an inline api_key (or
 * state password) shows as a comment saying it is set. */
#include "config.h"
#include "internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <seam/seam.h>

typedef struct shower {
    void (*line)(void *ud, const char *text);
    void *ud;
    seam_buf b;
    int nomem;
} shower;

/* Appends to the current line; a failed allocation is remembered. */
#define add(sh, ...)                                                              \
    do {                                                                          \
        if (seam_buf_printf(&(sh)->b, __VA_ARGS__) != SEAM_OK)                    \
            (sh)->nomem = 1;                                                      \
    } while (0)

/* A conf string literal: quoted, with " and \ escaped. */
static void add_string(shower *sh, const char *s)
{
    add(sh, "\"");
    for (const char *p = s ? s : ""; *p; p++) {
        if (*p == '"' || *p == '\\')
            add(sh, "\\%c", *p);
        else if (*p == '\n')
            add(sh, "\\n");
        else
            add(sh, "%c", *p);
    }
    add(sh, "\"");
}

static void add_key(shower *sh, const char *key, const char *value)
{
    if (!value)
        return;
    add(sh, " %s = ", key);
    add_string(sh, value);
    add(sh, ";");
}

/* Ends the current line (with "  # FILE:LINE" when file is given). */
static void flush(shower *sh, const char *file, int line)
{
    if (file)
        add(sh, "  # %s:%d", file, line);
    if (!sh->nomem && sh->b.data)
        sh->line(sh->ud, sh->b.data);
    seam_buf_reset(&sh->b);
}

static void show_provider(shower *sh, const seam_conf_provider *p)
{
    add(sh, "  %s = {", p->name);
    add_key(sh, "plugin", p->plugin);
    add_key(sh, "base_url", p->base_url);
    add_key(sh, "default_model", p->default_model);
    if (p->api_key_env && strchr(p->api_key_env, '\n')) {
        /* Several variables, the first one set wins: stored one a line. */
        add(sh, " api_key_env = [");
        const char *v = p->api_key_env;
        for (int first = 1; *v; first = 0) {
            size_t n = strcspn(v, "\n");
            add(sh, "%s \"%.*s\"", first ? "" : ",", (int)n, v);
            v += n + (v[n] == '\n');
        }
        add(sh, " ];");
    } else {
        add_key(sh, "api_key_env", p->api_key_env);
    }
    add_key(sh, "api_key_file", p->api_key_file);
    if (p->api_key_command)
        add(sh, " api_key_command = (set);");
    if (p->api_key)
        add(sh, " api_key = (inline, not shown);");
    if (p->n_api_keys_env || p->n_api_key_files || p->n_api_key_commands)
        add(sh, " # key pool: %zu more", p->n_api_keys_env + p->n_api_key_files +
                                          p->n_api_key_commands);
    if (p->options_json && strcmp(p->options_json, "{}") != 0)
        add(sh, " options = %s;", p->options_json);
    add(sh, " };");
    flush(sh, p->file, p->line);
}

static void show_chain(shower *sh, const seam_conf_chain *ch)
{
    add(sh, "  %s = (", ch->name);
    for (size_t k = 0; k < ch->n_entries; k++)
        add(sh, "%s { provider = \"%s\"; model = \"%s\"; max_attempts = %d; }", k ? "," : "",
            ch->entries[k].provider, ch->entries[k].model ? ch->entries[k].model : "",
            ch->entries[k].max_attempts);
    add(sh, " );");
    flush(sh, ch->file, ch->line);
}

int seam_conf_show(const char *path, void (*line)(void *ud, const char *text), void *ud,
                   seam_error *err)
{
    if (!line)
        return SEAM_ERR_INVALID;
    seam_conf *c = NULL;
    int rc = seam_conf_open(path, SEAM_CONF_INSTALLED, &c, err);
    if (rc != SEAM_OK)
        return rc;
    shower sh = {.line = line, .ud = ud};
    if (c->base_path)
        add(&sh, "# %s overlaying %s and its conf.d/", c->path, c->base_path);
    else
        add(&sh, "# %s", c->path ? c->path : "no conf file found");
    flush(&sh, NULL, 0);
    if (c->n_plugin_path) {
        add(&sh, "plugin_path = [");
        for (size_t i = 0; i < c->n_plugin_path; i++) {
            add(&sh, "%s ", i ? "," : "");
            add_string(&sh, c->plugin_path[i]);
        }
        add(&sh, " ];");
        flush(&sh, NULL, 0);
    }
    add(&sh, "providers = {");
    flush(&sh, NULL, 0);
    for (size_t i = 0; i < c->n_providers; i++)
        show_provider(&sh, &c->providers[i]);
    add(&sh, "};");
    flush(&sh, NULL, 0);
    add(&sh, "chains = {");
    flush(&sh, NULL, 0);
    for (size_t i = 0; i < c->n_chains; i++)
        show_chain(&sh, &c->chains[i]);
    add(&sh, "};");
    flush(&sh, NULL, 0);
    add(&sh, "roles = {");
    flush(&sh, NULL, 0);
    for (size_t i = 0; i < c->n_roles; i++) {
        add(&sh, "  %s = ", c->roles[i].name);
        add_string(&sh, c->roles[i].chain);
        add(&sh, ";");
        flush(&sh, c->roles[i].file, c->roles[i].line);
    }
    add(&sh, "};");
    flush(&sh, NULL, 0);
    if (c->n_tools) {
        add(&sh, "tools = {");
        flush(&sh, NULL, 0);
        for (size_t i = 0; i < c->n_tools; i++) {
            add(&sh, "  %s = {", c->tools[i].name);
            add_key(&sh, "description", c->tools[i].description);
            add_key(&sh, "command", c->tools[i].command);
            add(&sh, " };");
            flush(&sh, c->tools[i].file, c->tools[i].line);
        }
        add(&sh, "};");
        flush(&sh, NULL, 0);
    }
    /* The user's model entries (the catalog's are `seam models`). */
    size_t own = 0;
    for (size_t i = 0; i < c->n_models; i++)
        own += !c->models[i].from_catalog;
    if (own) {
        add(&sh, "models = (");
        flush(&sh, NULL, 0);
        for (size_t i = 0; i < c->n_models; i++) {
            const seam_conf_model *m = &c->models[i];
            if (m->from_catalog)
                continue;
            add(&sh, "  {");
            add_key(&sh, "id", m->id);
            add_key(&sh, "provider", m->provider);
            add(&sh, " },");
            flush(&sh, m->file, m->line);
        }
        add(&sh, ");");
        flush(&sh, NULL, 0);
    }
    if (c->model_catalog) {
        add(&sh, "model_catalog = ");
        add_string(&sh, c->model_catalog);
        add(&sh, ";");
        flush(&sh, NULL, 0);
    }
    if (c->state.file) {
        /* The state store (issue 18); an inline password shows as a comment. */
        const seam_conf_state *st = &c->state;
        add(&sh, "state = {");
        add_key(&sh, "backend", st->backend ? st->backend : "local");
        add_key(&sh, "host", st->host);
        if (st->port)
            add(&sh, " port = %d;", st->port);
        add_key(&sh, "socket", st->socket);
        add_key(&sh, "password_env", st->password_env);
        add_key(&sh, "password_file", st->password_file);
        if (st->db)
            add(&sh, " db = %d;", st->db);
        add_key(&sh, "prefix", st->prefix);
        if (st->timeout_ms)
            add(&sh, " timeout_ms = %" PRId64 ";", st->timeout_ms);
        add(&sh, "%s };", st->password ? " /* password: set inline */" : "");
        flush(&sh, st->file, st->line);
    }
    rc = sh.nomem ? SEAM_ERR_NOMEM : SEAM_OK;
    if (sh.nomem)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory showing the conf");
    seam_buf_free(&sh.b);
    seam_conf_free(c);
    return rc;
}
