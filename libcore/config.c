/* config.c — the conf file: where it is found (explicit path, $SEAM_CONF, XDG,
 * the installed one), and loading it: the file and its conf.d/ drop-ins (the
 * personal conf over the system one), read with libconfig into a plain
 * seam_conf, each top-level group by its own reader (conf_internal.h says
 * which file owns which), checked for every type and every key name (a typo
 * must not silently vanish), then across files (conf_chains.c). Every error
 * names FILE:LINE. The conf's keys are a public contract (seam.conf(5),
 * doc/seam.conf.md); nothing from libconfig leaves the conf's files. It also
 * reads the model catalog (conf/models.conf, installed, or the file
 * `model_catalog` names) after the user's files, whose `models` entries
 * override the catalog's. And it frees a seam_conf and finds a definition in
 * one by name. */
#include "config.h"
#include "conf_internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- plugin_path ---------------------------------------------------------------------- */

static int load_plugin_path(loader *ld, const config_setting_t *s)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return conf_fail_type(ld, s, "plugin_path", "an array of strings [ \"...\" ]");
    seam_conf *c = ld->conf;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        char path[PATH_MAX_LEN];
        snprintf(path, sizeof path, "plugin_path[%d]", i);
        char *dir = NULL;
        if (conf_read_string(ld, e, path, &dir) != SEAM_OK)
            return ld->status;
        char *abs = conf_resolve_path(ld, dir);
        free(dir);
        if (!abs || conf_grow((void **)&c->plugin_path, &ld->cap_plugin_path, c->n_plugin_path,
                         sizeof *c->plugin_path) != SEAM_OK) {
            free(abs);
            return conf_fail_nomem(ld);
        }
        c->plugin_path[c->n_plugin_path++] = abs;
    }
    return SEAM_OK;
}

/* ---- one file ---------------------------------------------------------------------------------------- */

/* libconfig 1.5 does not check its allocations while it builds the tree: out of
 * memory, it keeps a setting without its name or a string without its value,
 * and reports success. Such a tree must not be read as the conf (a lost name
 * would be dereferenced, a lost value would read as absent). */
static int tree_is_whole(const config_setting_t *s)
{
    int type = config_setting_type(s);
    if (type == CONFIG_TYPE_STRING)
        return config_setting_get_string(s) != NULL;
    if (type != CONFIG_TYPE_GROUP && type != CONFIG_TYPE_LIST && type != CONFIG_TYPE_ARRAY)
        return 1;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
        if (!m || (type == CONFIG_TYPE_GROUP && !config_setting_name(m)) || !tree_is_whole(m))
            return 0;
    }
    return 1;
}

/* The absolute directory holding file. */
static char *absolute_dir_of(const char *file)
{
    const char *slash = strrchr(file, '/');
    seam_buf b = {0};
    int rc = SEAM_OK;
    if (file[0] != '/') {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            snprintf(cwd, sizeof cwd, ".");
        rc = seam_buf_puts(&b, cwd);
        if (rc == SEAM_OK && slash)
            rc = seam_buf_puts(&b, "/");
    }
    if (rc == SEAM_OK && slash)
        rc = seam_buf_append(&b, file, slash == file ? 1 : (size_t)(slash - file));
    if (rc == SEAM_OK && !b.data)
        rc = seam_buf_puts(&b, "/");
    if (rc != SEAM_OK) {
        seam_buf_free(&b);
        return NULL;
    }
    return b.data;
}

static int load_file(loader *ld, const char *file)
{
    struct stat st;
    char *text = NULL;
    size_t len = 0;
    if (conf_read_text(ld, file, &st, &text, &len) != SEAM_OK)
        return ld->status;
    if (conf_check_text(ld, file, text, len) != SEAM_OK) {
        free(text);
        return ld->status;
    }

    ld->file = file;
    ld->file_mode = (unsigned)(st.st_mode & 07777);
    ld->group_or_other_access = (st.st_mode & 077) != 0;
    free(ld->dir);
    ld->dir = absolute_dir_of(file);
    if (!ld->dir) {
        free(text);
        return conf_fail_nomem(ld);
    }

    config_t cf;
    config_init(&cf);
    int ok = config_read_string(&cf, text);
    free(text);
    if (!ok) {
        conf_fail_at(ld, config_error_file(&cf) ? config_error_file(&cf) : file,
                config_error_line(&cf), "%s", config_error_text(&cf));
        config_destroy(&cf);
        return ld->status;
    }

    const config_setting_t *root = config_root_setting(&cf);
    if (!tree_is_whole(root)) {
        config_destroy(&cf);
        return conf_fail_nomem(ld);
    }
    for (int i = 0; i < config_setting_length(root) && ld->status == SEAM_OK; i++) {
        const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
        const char *key = config_setting_name(s);
        if (ld->in_catalog) {
            if (strcmp(key, "models") == 0)
                conf_load_models(ld, s);
            else
                fail_setting(ld, s, "unknown setting %s in the model catalog (expected: models)",
                             key);
        } else if (strcmp(key, "plugin_path") == 0)
            load_plugin_path(ld, s);
        else if (strcmp(key, "providers") == 0)
            conf_load_providers(ld, s);
        else if (strcmp(key, "chains") == 0)
            conf_load_chains(ld, s);
        else if (strcmp(key, "roles") == 0)
            conf_load_roles(ld, s);
        else if (strcmp(key, "models") == 0)
            conf_load_models(ld, s);
        else if (strcmp(key, "model_catalog") == 0)
            conf_load_model_catalog_key(ld, s);
        else if (strcmp(key, "tools") == 0)
            conf_load_tools(ld, s);
        else if (strcmp(key, "cli") == 0)
            conf_load_cli(ld, s);
        else if (strcmp(key, "state") == 0)
            conf_load_state(ld, s);
        else if (strcmp(key, "serve") == 0)
            ; /* the gateway's own section: read and checked by `seam serve` (cli/serve/) */
        else if (strcmp(key, "media") == 0)
            conf_load_media(ld, s);
        else
            fail_setting(ld, s, "unknown setting %s (expected one of: plugin_path, providers, "
                                "chains, roles, models, model_catalog, tools, cli, state, serve, media)",
                         key);
    }
    config_destroy(&cf);
    return ld->status;
}

/* ---- conf.d/ -------------------------------------------------------------------------------------------- */

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_dropin_name(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

static int load_conf_d(loader *ld, const char *main_file)
{
    char *main_dir = absolute_dir_of(main_file);
    seam_buf dir = {0};
    if (!main_dir || seam_buf_printf(&dir, "%s/conf.d", main_dir) != SEAM_OK) {
        free(main_dir);
        seam_buf_free(&dir);
        return conf_fail_nomem(ld);
    }
    free(main_dir);

    DIR *d = opendir(dir.data);
    if (!d) {
        int e = errno;
        int rc = SEAM_OK;
        if (e != ENOENT && e != ENOTDIR)
            rc = conf_fail_at(ld, dir.data, 0, "cannot read: %s", strerror(e));
        seam_buf_free(&dir);
        return rc;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!is_dropin_name(de->d_name))
            continue;
        char *name = strdup(de->d_name);
        if (!name || conf_grow((void **)&names, &cap, n, sizeof *names) != SEAM_OK) {
            free(name);
            conf_fail_nomem(ld);
            break;
        }
        names[n++] = name;
    }
    closedir(d);
    if (ld->status == SEAM_OK && n > 1)
        qsort(names, n, sizeof *names, cmp_names);

    for (size_t i = 0; i < n && ld->status == SEAM_OK; i++) {
        seam_buf file = {0};
        if (seam_buf_printf(&file, "%s/%s", dir.data, names[i]) != SEAM_OK) {
            seam_buf_free(&file);
            conf_fail_nomem(ld);
            break;
        }
        struct stat st;
        /* A directory or a dangling link named *.conf is not a drop-in; a
         * FIFO, a device or a socket is refused by load_file (never opened
         * blocking). */
        if (stat(file.data, &st) == 0 && !S_ISDIR(st.st_mode))
            load_file(ld, file.data);
        seam_buf_free(&file);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    seam_buf_free(&dir);
    return ld->status;
}

/* The model catalog: the one the conf names (which must be readable), else the
 * installed one when it exists. Read after the user's files so that their
 * entries win. */
static int load_catalog(loader *ld)
{
    if (ld->catalog_disabled)
        return SEAM_OK;
    seam_conf *c = ld->conf;
    if (!c->model_catalog) {
#ifdef SEAM_MODELS_INSTALLED
        struct stat st;
        if (stat(SEAM_MODELS_INSTALLED, &st) != 0)
            return SEAM_OK;
        c->model_catalog = strdup(SEAM_MODELS_INSTALLED);
        if (!c->model_catalog)
            return conf_fail_nomem(ld);
#else
        return SEAM_OK;
#endif
    }
    ld->in_catalog = 1;
    int rc = load_file(ld, c->model_catalog);
    ld->in_catalog = 0;
    return rc;
}

/* ---- public within libcore ------------------------------------------------------------------------------------ */

int seam_conf_load(const char *path, seam_conf **out, seam_error *err)
{
    return seam_conf_load_overlay(NULL, path, out, err);
}

int seam_conf_load_overlay(const char *base, const char *path, seam_conf **out, seam_error *err)
{
    if (!out)
        return SEAM_ERR_INVALID;
    *out = NULL;
    seam_conf *conf = calloc(1, sizeof *conf);
    if (!conf) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory reading the conf");
        return SEAM_ERR_NOMEM;
    }
    loader ld = {.conf = conf, .err = err, .status = SEAM_OK};
    conf->media = (seam_conf_media){.inline_image_bytes = -1, .inline_audio_bytes = -1,
                                    .inline_video_bytes = -1, .inline_document_bytes = -1,
                                    .max_parts = -1, .max_message_bytes = -1};
    if (base && path) {
        /* The system conf and its conf.d/ first; what the personal conf
         * defines then adds to them or replaces them by name. */
        conf->base_path = strdup(base);
        if (!conf->base_path)
            conf_fail_nomem(&ld);
        else if (load_file(&ld, base) == SEAM_OK)
            load_conf_d(&ld, base);
        ld.base_providers = conf->n_providers;
        ld.base_chains = conf->n_chains;
        ld.base_roles = conf->n_roles;
        ld.base_tools = conf->n_tools;
        ld.base_models = conf->n_models;
        if (ld.state_seen)
            ld.state_seen = 2;
    }
    if (path && ld.status == SEAM_OK) {
        conf->path = strdup(path);
        if (!conf->path)
            conf_fail_nomem(&ld);
        else if (load_file(&ld, path) == SEAM_OK)
            load_conf_d(&ld, path);
        if (ld.status == SEAM_OK)
            conf_check_references(&ld);
    }
    if (ld.status == SEAM_OK)
        load_catalog(&ld);

    for (size_t i = 0; i < conf->n_chains && ld.chain_lines; i++)
        free(ld.chain_lines[i].entry_lines);
    free(ld.chain_lines);
    for (size_t i = 0; i < conf->n_roles && ld.role_origins; i++)
        free(ld.role_origins[i].file);
    free(ld.role_origins);
    free(ld.dir);
    free(ld.catalog_named_in);

    if (ld.status != SEAM_OK) {
        seam_conf_free(conf);
        return ld.status;
    }
    *out = conf;
    return SEAM_OK;
}

void seam_conf_free(seam_conf *conf)
{
    if (!conf)
        return;
    free(conf->path);
    free(conf->media.store);
    for (size_t i = 0; i < conf->n_plugin_path; i++)
        free(conf->plugin_path[i]);
    free(conf->plugin_path);
    for (size_t i = 0; i < conf->n_providers; i++)
        conf_free_provider(&conf->providers[i]);
    free(conf->providers);
    for (size_t i = 0; i < conf->n_models; i++) {
        free(conf->models[i].id);
        free(conf->models[i].provider);
        free(conf->models[i].file);
    }
    free(conf->models);
    free(conf->model_catalog);
    free(conf->base_path);
    free(conf->cli_json);
    conf_free_state(&conf->state);
    for (size_t i = 0; i < conf->n_chains; i++)
        conf_free_chain(&conf->chains[i]);
    free(conf->chains);
    for (size_t i = 0; i < conf->n_roles; i++) {
        free(conf->roles[i].name);
        free(conf->roles[i].chain);
        free(conf->roles[i].file);
    }
    free(conf->roles);
    for (size_t i = 0; i < conf->n_tools; i++)
        conf_free_tool(&conf->tools[i]);
    free(conf->tools);
    for (size_t i = 0; i < conf->n_warnings; i++)
        free(conf->warnings[i]);
    free(conf->warnings);
    free(conf);
}

const seam_conf_provider *seam_conf_find_provider(const seam_conf *c, const char *name)
{
    if (!c || !name)
        return NULL;
    for (size_t i = 0; i < c->n_providers; i++)
        if (c->providers[i].name && strcmp(c->providers[i].name, name) == 0)
            return &c->providers[i];
    return NULL;
}

const seam_conf_chain *seam_conf_find_chain(const seam_conf *c, const char *name)
{
    if (!c || !name)
        return NULL;
    for (size_t i = 0; i < c->n_chains; i++)
        if (c->chains[i].name && strcmp(c->chains[i].name, name) == 0)
            return &c->chains[i];
    return NULL;
}

const seam_conf_tool *seam_conf_find_tool(const seam_conf *c, const char *name)
{
    if (!c || !name)
        return NULL;
    for (size_t i = 0; i < c->n_tools; i++)
        if (c->tools[i].name && strcmp(c->tools[i].name, name) == 0)
            return &c->tools[i];
    return NULL;
}

static int all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* How well catalog id `id` names `model`: 0 not at all; for a snapshot or
 * alias of it (id + "-YYYYMMDD" / "-YYYY-MM-DD" / "-latest" / "-0") the length
 * of id (the longest base wins); above any of those for the same id. */
static size_t id_match(const char *id, const char *model)
{
    size_t n = strlen(id);
    if (strcmp(id, model) == 0)
        return 100000;
    if (strncmp(id, model, n) != 0 || model[n] != '-')
        return 0;
    const char *rest = model + n + 1;
    size_t r = strlen(rest);
    int snapshot = strcmp(rest, "latest") == 0 || strcmp(rest, "0") == 0 ||
                   (r == 8 && all_digits(rest, 8)) ||
                   (r == 10 && all_digits(rest, 4) && rest[4] == '-' && all_digits(rest + 5, 2) &&
                    rest[7] == '-' && all_digits(rest + 8, 2));
    return snapshot ? n : 0;
}

const seam_conf_model *seam_conf_find_model(const seam_conf *c, const char *provider_name,
                                            const char *plugin_id, const char *model)
{
    if (!c || !model)
        return NULL;
    const seam_conf_model *best = NULL;
    size_t best_rank = 0;
    for (size_t i = 0; i < c->n_models; i++) {
        const seam_conf_model *m = &c->models[i];
        size_t match = id_match(m->id, model);
        if (!match)
            continue;
        size_t rank;
        if (!m->provider)
            rank = 1;
        else if (provider_name && strcmp(m->provider, provider_name) == 0)
            rank = 3;
        else if (plugin_id && strcmp(m->provider, plugin_id) == 0)
            rank = 2;
        else
            continue;
        rank += (m->from_catalog ? 0 : 10) + match * 100;
        if (rank > best_rank) {
            best = m;
            best_rank = rank;
        }
    }
    return best;
}

/* ---- discovery ---------------------------------------------------------------------------------------------------- */

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int found(const char *path, char **out, seam_error *err)
{
    *out = strdup(path);
    if (!*out) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory finding the conf");
        return SEAM_ERR_NOMEM;
    }
    return SEAM_OK;
}

static int must_exist(const char *path, const char *what, char **out, seam_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return seam_error_set(err, SEAM_ERROR_CONF, "%s: cannot read conf (%s): %s", path, what,
                              strerror(errno));
    return found(path, out, err);
}

int seam_conf_find(const char *explicit_path, const char *installed_path, char **out,
                   seam_error *err)
{
    if (!out)
        return SEAM_ERR_INVALID;
    *out = NULL;
    if (explicit_path)
        return must_exist(explicit_path, "given explicitly", out, err);
    const char *env = getenv("SEAM_CONF");
    if (env && *env)
        return must_exist(env, "from $SEAM_CONF", out, err);

    /* XDG: $XDG_CONFIG_HOME when set to an absolute path, else ~/.config. */
    seam_buf user = {0};
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    int rc = SEAM_OK;
    if (xdg && xdg[0] == '/')
        rc = seam_buf_printf(&user, "%s/seam/seam.conf", xdg);
    else if (home && *home)
        rc = seam_buf_printf(&user, "%s/.config/seam/seam.conf", home);
    if (rc != SEAM_OK) {
        seam_buf_free(&user);
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory finding the conf");
        return SEAM_ERR_NOMEM;
    }
    if (user.data && exists(user.data)) {
        rc = found(user.data, out, err);
        seam_buf_free(&user);
        return rc;
    }
    seam_buf_free(&user);

    if (installed_path && exists(installed_path))
        return found(installed_path, out, err);
    return SEAM_OK;
}
