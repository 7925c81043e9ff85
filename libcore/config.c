/* config.c — the conf file: where it is found (explicit path, $SEAM_CONF, XDG,
 * the installed one), reading it and its conf.d/ drop-ins with libconfig into a
 * plain seam_conf, and checking it: every type, every key name (a typo must not
 * silently vanish), every reference from a chain to a chain and from a role to a
 * chain (a chain entry naming an undefined provider is a warning: plugin
 * packages define providers in conf.d/). Every error names FILE:LINE. The
 * conf's keys are a public contract (seam.conf(5), doc/seam.conf.md); nothing
 * from libconfig leaves this file. It also reads the model catalog
 * (conf/models.conf, installed, or the file `model_catalog` names) after the
 * user's files, whose `models` entries override the catalog's. The `tools`
 * group (commands an application such as the seam CLI may offer the model) is
 * read and checked here (each schema must be a JSON object); running them is
 * not the library's business.
 *
 * Every number has a range (the table `ranges` below, documented in
 * seam.conf(5)); a value outside it is refused with FILE:LINE, so that no
 * consumer ever sees a value its arithmetic was not written for.
 *
 * The file is read here, not by libconfig: only a regular file of at most
 * MAX_CONF_BYTES (a FIFO or /dev/zero must not block or exhaust us), UTF-8
 * without NUL bytes, no @include (libconfig 1.5 cannot bound what it opens;
 * conf.d/ is the way to split a conf), and no integer literal that libconfig
 * 1.5 would silently truncate: a decimal literal beyond 32 bits without the
 * `L` suffix (write 5000000000L), or one beyond 64 bits at all. */
#include "config.h"
#include "internal.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ctype.h>
#include <json-c/json.h>
#include <libconfig.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_TIMEOUT_MS 600000
#define DEFAULT_CONNECT_TIMEOUT_MS 10000
#define DEFAULT_IDLE_TIMEOUT_MS 60000
#define DEFAULT_MAX_RESPONSE_BYTES ((int64_t)64 * 1024 * 1024)
#define DEFAULT_MAX_ATTEMPTS 1
#define DEFAULT_BACKOFF_BASE_MS 500
#define DEFAULT_BACKOFF_MAX_MS 20000
#define DEFAULT_BACKOFF_JITTER 0.1
#define DEFAULT_RETRY_AFTER_CAP_MS 60000
#define DEFAULT_COOLDOWN_MS 30000
/* The longest default_model accepted: real model ids are far shorter. */
#define SEAM_MAX_MODEL_ID 256

/* The largest conf file (or drop-in, or model catalog) read. */
#define MAX_CONF_BYTES ((size_t)16 * 1024 * 1024)

/* ---- the range of every number ---------------------------------------------- */

/* Every numeric key of the conf and the values it accepts (both ends
 * included). seam.conf(5) and doc/seam.conf.md document the same table. The
 * bounds keep every consumer's arithmetic inside int64 and inside what poll()
 * and libcurl take (a timeout fits in an int of milliseconds). */
typedef enum range_id {
    R_TIMEOUT_MS,           /* providers.NAME.timeout_ms */
    R_CONNECT_TIMEOUT_MS,   /* providers.NAME.connect_timeout_ms */
    R_IDLE_TIMEOUT_MS,      /* providers.NAME.idle_timeout_ms */
    R_MAX_RESPONSE_BYTES,   /* providers.NAME.max_response_bytes */
    R_KEY_TTL_MS,           /* providers.NAME.api_key_ttl_ms */
    R_KEY_COMMAND_TIMEOUT_MS, /* providers.NAME.api_key_command_timeout_ms */
    R_MAX_ATTEMPTS,         /* chains.NAME[i].max_attempts */
    R_BACKOFF_MS,           /* chains.NAME[i].backoff.base_ms, .max_ms */
    R_RETRY_AFTER_CAP_MS,   /* chains.NAME.retry_after_cap_ms */
    R_COOLDOWN_MS,          /* chains.NAME.cooldown_ms */
    R_TOOL_TIMEOUT_MS,      /* tools.NAME.timeout_ms */
    R_TOKENS,               /* models[i].context_window, .max_output_tokens */
    R_PRICE,                /* models[i].price.* (micro-cents per million tokens) */
    R_STATE_PORT,           /* state.port */
    R_STATE_DB,             /* state.db */
    R_STATE_TIMEOUT_MS,     /* state.timeout_ms */
    R_MEDIA_BYTES,          /* media.inline_*_bytes, media.max_message_bytes */
    R_MEDIA_PARTS,          /* media.max_parts */
    R_MEDIA_JOB_MS,         /* media.job_poll_ms, job_poll_max_ms, job_deadline_ms */
    R_COUNT
} range_id;

static const struct {
    int64_t min, max;
    const char *gloss; /* what max means, for the message */
} ranges[R_COUNT] = {
    [R_TIMEOUT_MS] = {1, INT32_MAX, "about 24.8 days"},
    [R_CONNECT_TIMEOUT_MS] = {1, INT32_MAX, "about 24.8 days"},
    [R_IDLE_TIMEOUT_MS] = {1, INT32_MAX, "about 24.8 days"},
    [R_MAX_RESPONSE_BYTES] = {1, (int64_t)1 << 40, "1 TiB"},
    [R_KEY_TTL_MS] = {0, (int64_t)366 * 86400000, "366 days"},
    [R_KEY_COMMAND_TIMEOUT_MS] = {1, 3600000, "one hour"},
    [R_MAX_ATTEMPTS] = {1, 100, "attempts on one entry"},
    [R_BACKOFF_MS] = {0, 86400000, "one day"},
    [R_RETRY_AFTER_CAP_MS] = {0, 86400000, "one day"},
    [R_COOLDOWN_MS] = {0, 86400000, "one day"},
    [R_TOOL_TIMEOUT_MS] = {1, INT32_MAX, "about 24.8 days"},
    [R_TOKENS] = {0, SEAM_MAX_TOKENS, "10^12 tokens"},
    [R_PRICE] = {0, SEAM_MAX_PRICE, "$1,000,000 per million tokens"},
    [R_STATE_PORT] = {1, 65535, "the largest TCP port"},
    [R_STATE_DB] = {0, 65535, "database numbers"},
    [R_STATE_TIMEOUT_MS] = {1, 60000, "one minute; a request may wait this long on the store"},
    [R_MEDIA_BYTES] = {0, (int64_t)1 << 30, "1 GiB"},
    [R_MEDIA_PARTS] = {0, 1000, "parts in one message"},
    [R_MEDIA_JOB_MS] = {1, (int64_t)7 * 24 * 3600 * 1000, "7 days"},
};

/* Room for a setting path such as "chains.default[3].backoff.base_ms". */
#define PATH_MAX_LEN 256

/* Where a chain's entries and fallbacks and a role were written: kept aside for
 * the checks that can only run once every file is merged. Parallel to
 * conf->chains and conf->roles. */
typedef struct chain_lines {
    int *entry_lines;
    int overflow_line;
    int filter_line;
} chain_lines;

typedef struct role_origin {
    char *file;
    int line;
} role_origin;

typedef struct loader {
    seam_conf *conf;
    seam_error *err;
    int status; /* first failure; later ones are not reported */

    /* the file being read */
    const char *file;
    char *dir; /* absolute directory of file: relative paths resolve here */
    int group_or_other_access; /* file mode & 077 */
    unsigned file_mode;

    size_t cap_plugin_path, cap_providers, cap_chains, cap_roles, cap_warnings, cap_models,
        cap_tools;
    int in_catalog; /* reading the model catalog: only `models`, entries marked from_catalog */
    int catalog_disabled; /* model_catalog = "" */
    char *catalog_named_in; /* the file and line of model_catalog, for an */
    int catalog_named_line; /* error about the whole catalog file */
    chain_lines *chain_lines;
    role_origin *role_origins;
    /* The overlay: while the personal conf is read, the definitions of the
     * system conf (indices below these) may be replaced by name. */
    size_t base_providers, base_chains, base_roles, base_tools, base_models;
    int state_seen;         /* 1: a `state` section was read in this layer (a second is an
                             * error); 2: the system conf's, which the personal conf replaces */
    int state_keys_given;   /* ...setting more than backend */
} loader;

/* ---- freeing, and the overlay's replacing ------------------------------------ */

static void free_provider(seam_conf_provider *p)
{
    free(p->name);
    free(p->plugin);
    free(p->base_url);
    free(p->default_model);
    free(p->api_key_env);
    free(p->api_key_file);
    free(p->api_key_command);
    free(p->ca_file);
    free(p->ca_path);
    seam_secret_free(p->api_key);
    free(p->options_json);
    free(p->file);
    for (size_t k = 0; k < p->n_api_keys_env; k++)
        free(p->api_keys_env[k]);
    free(p->api_keys_env);
    for (size_t k = 0; k < p->n_api_key_files; k++)
        free(p->api_key_files[k]);
    free(p->api_key_files);
    for (size_t k = 0; k < p->n_api_key_commands; k++)
        free(p->api_key_commands[k]);
    free(p->api_key_commands);
}

static void free_chain(seam_conf_chain *ch)
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

static void free_state(seam_conf_state *st)
{
    free(st->backend);
    free(st->host);
    free(st->socket);
    seam_secret_free(st->password);
    free(st->password_env);
    free(st->password_file);
    free(st->prefix);
    free(st->file);
    memset(st, 0, sizeof *st);
}

static void free_tool(seam_conf_tool *t)
{
    free(t->name);
    free(t->description);
    free(t->parameters_json);
    free(t->command);
    free(t->file);
}

/* Removes element i of an array of n elements of size elem. */
static void remove_at(void *arr, size_t *n, size_t i, size_t elem)
{
    char *a = arr;
    memmove(a + i * elem, a + (i + 1) * elem, (*n - i - 1) * elem);
    (*n)--;
}

/* The personal conf overlays the system conf: a provider, chain, role, tool
 * or model entry it defines under a name the system conf (or its conf.d/)
 * already defined replaces that definition. Each returns 1 when `name` was
 * such an earlier definition and is gone now, so that the caller goes on as
 * for a new name; a name defined twice within one layer is still an error. */
static int replace_provider(loader *ld, const char *name)
{
    seam_conf *c = ld->conf;
    const seam_conf_provider *p = seam_conf_find_provider(c, name);
    size_t i = p ? (size_t)(p - c->providers) : 0;
    if (!p || i >= ld->base_providers)
        return 0;
    free_provider(&c->providers[i]);
    remove_at(c->providers, &c->n_providers, i, sizeof *c->providers);
    ld->base_providers--;
    return 1;
}

static int replace_chain(loader *ld, const char *name)
{
    seam_conf *c = ld->conf;
    const seam_conf_chain *ch = seam_conf_find_chain(c, name);
    size_t i = ch ? (size_t)(ch - c->chains) : 0;
    if (!ch || i >= ld->base_chains)
        return 0;
    free_chain(&c->chains[i]);
    free(ld->chain_lines[i].entry_lines);
    size_t n = c->n_chains;
    remove_at(ld->chain_lines, &n, i, sizeof *ld->chain_lines);
    remove_at(c->chains, &c->n_chains, i, sizeof *c->chains);
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
        remove_at(ld->role_origins, &n, i, sizeof *ld->role_origins);
        remove_at(c->roles, &c->n_roles, i, sizeof *c->roles);
        ld->base_roles--;
        return 1;
    }
    return 0;
}

static int replace_tool(loader *ld, const char *name)
{
    seam_conf *c = ld->conf;
    const seam_conf_tool *t = seam_conf_find_tool(c, name);
    size_t i = t ? (size_t)(t - c->tools) : 0;
    if (!t || i >= ld->base_tools)
        return 0;
    free_tool(&c->tools[i]);
    remove_at(c->tools, &c->n_tools, i, sizeof *c->tools);
    ld->base_tools--;
    return 1;
}

/* ---- failing ------------------------------------------------------------------ */

static int fail_nomem(loader *ld)
{
    if (ld->status == SEAM_OK) {
        seam_error_set(ld->err, SEAM_ERROR_UNKNOWN, "out of memory reading the conf");
        ld->status = SEAM_ERR_NOMEM;
    }
    return ld->status;
}

static int fail_at(loader *ld, const char *file, int line, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int fail_at(loader *ld, const char *file, int line, const char *fmt, ...)
{
    if (ld->status != SEAM_OK)
        return ld->status;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (line > 0)
        seam_error_set(ld->err, SEAM_ERROR_CONF, "%s:%d: %s", file, line, what);
    else if (ld->in_catalog && ld->catalog_named_in) /* e.g. model_catalog = "/dev/zero" */
        seam_error_set(ld->err, SEAM_ERROR_CONF, "%s:%d: model_catalog %s: %s",
                       ld->catalog_named_in, ld->catalog_named_line, file, what);
    else
        seam_error_set(ld->err, SEAM_ERROR_CONF, "%s: %s", file, what);
    ld->status = SEAM_ERR_CONF;
    return ld->status;
}

static const char *setting_file(const loader *ld, const config_setting_t *s)
{
    const char *f = config_setting_source_file(s);
    return f ? f : ld->file;
}

static int setting_line(const config_setting_t *s)
{
    return (int)config_setting_source_line(s);
}

#define fail_setting(ld, s, ...) fail_at((ld), setting_file((ld), (s)), setting_line(s), __VA_ARGS__)

static const char *type_name(const config_setting_t *s)
{
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64: return "an integer";
    case CONFIG_TYPE_FLOAT: return "a float";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL: return "a boolean";
    case CONFIG_TYPE_ARRAY: return "an array";
    case CONFIG_TYPE_LIST: return "a list";
    case CONFIG_TYPE_GROUP: return "a group";
    default: return "nothing";
    }
}

static int fail_type(loader *ld, const config_setting_t *s, const char *path, const char *want)
{
    return fail_setting(ld, s, "%s must be %s, not %s", path, want, type_name(s));
}

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

/* Length of the UTF-8 sequence at s (at most n bytes), 0 when invalid
 * (overlong forms, surrogates and values past U+10FFFF included). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80)
        return 1;
    size_t len;
    uint32_t cp;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        len = 2, cp = s[0] & 0x1F;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        len = 3, cp = s[0] & 0x0F;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        len = 4, cp = s[0] & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

/* ---- typed reads ----------------------------------------------------------------- */

/* out = parent "." name, cut at PATH_MAX_LEN (only a message would be cut). */
static void join_path(char *out, const char *parent, const char *name)
{
    size_t used = 0;
    for (const char *parts[] = {parent, ".", name}, **part = parts; part < parts + 3; part++)
        for (const char *c = *part; *c && used + 1 < PATH_MAX_LEN; c++)
            out[used++] = *c;
    out[used] = '\0';
}

static int read_string(loader *ld, const config_setting_t *s, const char *path, char **out)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return fail_type(ld, s, path, "a string");
    const char *v = config_setting_get_string(s);
    if (!v || !*v)
        return fail_setting(ld, s, "%s must be a non-empty string", path);
    /* The text of the file is UTF-8, but a \xNN escape can still make bytes
     * that are not: they would reach a request's JSON. */
    for (size_t i = 0, n = strlen(v); i < n;) {
        size_t u = utf8_len((const unsigned char *)v + i, n - i);
        if (!u)
            return fail_setting(ld, s, "%s is not valid UTF-8 (a \\x escape?)", path);
        i += u;
    }
    free(*out);
    *out = strdup(v);
    return *out ? SEAM_OK : fail_nomem(ld);
}

/* An integer inside ranges[r]. */
static int read_int64(loader *ld, const config_setting_t *s, const char *path, range_id r,
                      int64_t *out)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
        return fail_type(ld, s, path, "an integer");
    int64_t v = t == CONFIG_TYPE_INT ? config_setting_get_int(s) : config_setting_get_int64(s);
    int64_t min = ranges[r].min, max = ranges[r].max;
    if (v < min) {
        if (min == 1)
            return fail_setting(ld, s, "%s must be > 0", path);
        return fail_setting(ld, s, "%s must be >= %lld", path, (long long)min);
    }
    if (v > max)
        return fail_setting(ld, s, "%s must be at most %lld (%s), not %lld", path,
                            (long long)max, ranges[r].gloss, (long long)v);
    *out = v;
    return SEAM_OK;
}

static int read_number(loader *ld, const config_setting_t *s, const char *path, double *out)
{
    int t = config_setting_type(s);
    if (t == CONFIG_TYPE_FLOAT)
        *out = config_setting_get_float(s);
    else if (t == CONFIG_TYPE_INT)
        *out = config_setting_get_int(s);
    else if (t == CONFIG_TYPE_INT64)
        *out = (double)config_setting_get_int64(s);
    else
        return fail_type(ld, s, path, "a number");
    return SEAM_OK;
}

static int expect_group(loader *ld, const config_setting_t *s, const char *path)
{
    if (config_setting_type(s) != CONFIG_TYPE_GROUP)
        return fail_type(ld, s, path, "a group { ... }");
    return SEAM_OK;
}

static int fail_unknown(loader *ld, const config_setting_t *s, const char *parent,
                        const char *known)
{
    return fail_setting(ld, s, "unknown setting %s.%s (expected one of: %s)", parent,
                        config_setting_name(s), known);
}

/* ---- paths ---------------------------------------------------------------------- */

/* A path from the conf: "~/x" is under $HOME, a relative one is under the
 * directory of the file that says it. */
static char *resolve_path(const loader *ld, const char *p)
{
    seam_buf b = {0};
    int rc;
    const char *home = getenv("HOME");
    if (p[0] == '~' && p[1] == '/' && home && *home)
        rc = seam_buf_printf(&b, "%s%s", home, p + 1);
    else if (p[0] == '/')
        rc = seam_buf_puts(&b, p);
    else
        rc = seam_buf_printf(&b, "%s/%s", ld->dir, p);
    if (rc != SEAM_OK) {
        seam_buf_free(&b);
        return NULL;
    }
    return b.data;
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

/* ---- growing arrays ---------------------------------------------------------------- */

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return SEAM_OK;
    size_t ncap = *cap ? *cap * 2 : 4;
    void *p = realloc(*arr, ncap * elem);
    if (!p)
        return SEAM_ERR_NOMEM;
    memset((char *)p + *cap * elem, 0, (ncap - *cap) * elem);
    *arr = p;
    *cap = ncap;
    return SEAM_OK;
}

static int add_warning(loader *ld, char *text)
{
    seam_conf *c = ld->conf;
    if (!text || grow((void **)&c->warnings, &ld->cap_warnings, c->n_warnings,
                      sizeof *c->warnings) != SEAM_OK) {
        free(text);
        return fail_nomem(ld);
    }
    c->warnings[c->n_warnings++] = text;
    return SEAM_OK;
}

/* ---- plugin_path ---------------------------------------------------------------------- */

static int load_plugin_path(loader *ld, const config_setting_t *s)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return fail_type(ld, s, "plugin_path", "an array of strings [ \"...\" ]");
    seam_conf *c = ld->conf;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        char path[PATH_MAX_LEN];
        snprintf(path, sizeof path, "plugin_path[%d]", i);
        char *dir = NULL;
        if (read_string(ld, e, path, &dir) != SEAM_OK)
            return ld->status;
        char *abs = resolve_path(ld, dir);
        free(dir);
        if (!abs || grow((void **)&c->plugin_path, &ld->cap_plugin_path, c->n_plugin_path,
                         sizeof *c->plugin_path) != SEAM_OK) {
            free(abs);
            return fail_nomem(ld);
        }
        c->plugin_path[c->n_plugin_path++] = abs;
    }
    return SEAM_OK;
}

/* ---- options -> JSON ---------------------------------------------------------------------- */

static json_object *setting_to_json(const config_setting_t *s)
{
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
        return json_object_new_int64(config_setting_get_int(s));
    case CONFIG_TYPE_INT64:
        return json_object_new_int64(config_setting_get_int64(s));
    case CONFIG_TYPE_FLOAT:
        return json_object_new_double(config_setting_get_float(s));
    case CONFIG_TYPE_BOOL:
        return json_object_new_boolean(config_setting_get_bool(s));
    case CONFIG_TYPE_STRING:
        return json_object_new_string(config_setting_get_string(s));
    case CONFIG_TYPE_ARRAY:
    case CONFIG_TYPE_LIST: {
        json_object *arr = json_object_new_array();
        for (int i = 0; arr && i < config_setting_length(s); i++) {
            json_object *v = setting_to_json(config_setting_get_elem(s, (unsigned)i));
            if (!v || json_object_array_add(arr, v) != 0) {
                json_object_put(v);
                json_object_put(arr);
                return NULL;
            }
        }
        return arr;
    }
    case CONFIG_TYPE_GROUP: {
        json_object *obj = json_object_new_object();
        for (int i = 0; obj && i < config_setting_length(s); i++) {
            const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
            json_object *v = setting_to_json(m);
            if (!v || json_object_object_add(obj, config_setting_name(m), v) != 0) {
                json_object_put(v);
                json_object_put(obj);
                return NULL;
            }
        }
        return obj;
    }
    default:
        return NULL;
    }
}

/* Every string under `s` is UTF-8. The file's text is, but a \xNN escape can
 * still make bytes that are not, and json-c would copy them into options_json
 * unchecked: the error would come later, from a plugin, with no file:line. */
static int options_utf8(loader *ld, const config_setting_t *s, const char *path)
{
    int t = config_setting_type(s);
    if (t == CONFIG_TYPE_STRING) {
        const char *v = config_setting_get_string(s);
        for (size_t i = 0, n = v ? strlen(v) : 0; i < n;) {
            size_t u = utf8_len((const unsigned char *)v + i, n - i);
            if (!u)
                return fail_setting(ld, s, "%s is not valid UTF-8 (a \\x escape?)", path);
            i += u;
        }
        return SEAM_OK;
    }
    if (t != CONFIG_TYPE_GROUP && t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return SEAM_OK;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
        char mpath[PATH_MAX_LEN + 16];
        const char *name = config_setting_name(m);
        if (name)
            join_path(mpath, path, name);
        else
            snprintf(mpath, sizeof mpath, "%.*s[%d]", PATH_MAX_LEN, path, i);
        if (options_utf8(ld, m, mpath) != SEAM_OK)
            return ld->status;
    }
    return SEAM_OK;
}

static int load_options(loader *ld, const config_setting_t *s, const char *path, char **out)
{
    if (expect_group(ld, s, path) != SEAM_OK || options_utf8(ld, s, path) != SEAM_OK)
        return ld->status;
    json_object *obj = setting_to_json(s);
    if (!obj)
        return fail_nomem(ld);
    char *copy = seam_json_print(obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    json_object_put(obj);
    if (!copy)
        return fail_nomem(ld);
    free(*out);
    *out = copy;
    return SEAM_OK;
}

/* ---- providers ------------------------------------------------------------------------------ */

static const char provider_keys[] =
    "plugin, base_url, api_key_env, api_key_file, api_key_command, api_key, api_keys_env, "
    "api_key_files, api_key_commands, key_selection, rate_limit_guard, api_key_ttl_ms, "
    "api_key_command_timeout_ms, timeout_ms, connect_timeout_ms, idle_timeout_ms, "
    "max_response_bytes, ca_file, ca_path, options, default_model";

/* An array or list of non-empty strings; each file path is resolved like
 * api_key_file when resolve is set. */
static int read_string_list(loader *ld, const config_setting_t *s, const char *path, int resolve,
                            char ***out, size_t *n_out)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return fail_type(ld, s, path, "an array of strings [ \"...\" ]");
    int n = config_setting_length(s);
    if (n == 0)
        return fail_setting(ld, s, "%s must name at least one", path);
    for (size_t i = 0; i < *n_out; i++)
        free((*out)[i]);
    free(*out);
    *out = calloc((size_t)n, sizeof **out);
    *n_out = 0;
    if (!*out)
        return fail_nomem(ld);
    for (int i = 0; i < n; i++) {
        char epath[PATH_MAX_LEN + 16];
        snprintf(epath, sizeof epath, "%s[%d]", path, i);
        char *v = NULL;
        if (read_string(ld, config_setting_get_elem(s, (unsigned)i), epath, &v) != SEAM_OK)
            return ld->status;
        if (resolve) {
            char *abs = resolve_path(ld, v);
            free(v);
            if (!abs)
                return fail_nomem(ld);
            v = abs;
        }
        (*out)[(*n_out)++] = v;
    }
    return SEAM_OK;
}

/* 1 when host (as written in a URL, IPv6 without its brackets) is this
 * machine: localhost, 127.0.0.0/8, ::1 (or ::ffff:127.x.x.x). */
static int is_loopback_host(const char *host)
{
    if (strcasecmp(host, "localhost") == 0 || strcasecmp(host, "localhost.") == 0)
        return 1;
    struct in_addr a4;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    struct in6_addr a6;
    if (inet_pton(AF_INET6, host, &a6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&a6) ||
               (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
    return 0;
}

/* Plain http:// to another machine sends every prompt and the API key in
 * clear: a warning (config check, chat -v), not an error (a trusted LAN
 * proxy is a real setup). Only the host is quoted: a URL may hold userinfo. */
static int warn_plain_http(loader *ld, const seam_conf_provider *p, const config_setting_t *m)
{
    const char *url = p->base_url;
    if (strncasecmp(url, "http://", 7) != 0)
        return SEAM_OK;
    const char *h = url + 7;
    size_t auth_end = strcspn(h, "/?#");
    const char *at = memchr(h, '@', auth_end);
    if (at)
        h = at + 1;
    char host[256];
    size_t n;
    if (*h == '[') {
        h++;
        n = strcspn(h, "]");
    } else {
        n = strcspn(h, ":/?#");
    }
    if (n == 0 || n >= sizeof host)
        n = n >= sizeof host ? sizeof host - 1 : 0;
    memcpy(host, h, n);
    host[n] = '\0';
    if (n && is_loopback_host(host))
        return SEAM_OK;
    seam_buf w = {0};
    if (seam_buf_printf(&w,
                        "%s:%d: provider \"%s\" sends its requests and its API key over plain "
                        "HTTP to %s, which is not this machine: use https://",
                        setting_file(ld, m), setting_line(m), p->name, n ? host : "(no host)") !=
        SEAM_OK) {
        seam_buf_free(&w);
        return fail_nomem(ld);
    }
    return add_warning(ld, w.data);
}

/* A string that must be one of names[] (NULL-terminated); *out gets its index. */
static int read_choice(loader *ld, const config_setting_t *s, const char *path,
                       const char *const *names, const char *expected, int *out)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return fail_type(ld, s, path, "a string");
    const char *v = config_setting_get_string(s);
    for (int i = 0; names[i]; i++)
        if (v && strcmp(v, names[i]) == 0) {
            *out = i;
            return SEAM_OK;
        }
    return fail_setting(ld, s, "%s must be %s, not \"%s\"", path, expected, v ? v : "");
}

static int provider_member(loader *ld, seam_conf_provider *p, const config_setting_t *m,
                           const char *parent)
{
    const char *key = config_setting_name(m);
    char path[PATH_MAX_LEN];
    join_path(path, parent, key);
    if (strcmp(key, "plugin") == 0)
        return read_string(ld, m, path, &p->plugin);
    if (strcmp(key, "default_model") == 0) {
        if (read_string(ld, m, path, &p->default_model) != SEAM_OK)
            return ld->status;
        /* A model id goes into URLs (Gemini) and JSON bodies verbatim. */
        size_t n = strlen(p->default_model);
        if (n > SEAM_MAX_MODEL_ID)
            return fail_setting(ld, m, "%s is longer than %d bytes", path, SEAM_MAX_MODEL_ID);
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)p->default_model[i];
            if (c <= ' ' || c == 0x7f)
                return fail_setting(ld, m, "%s holds a space or a control character", path);
        }
        return SEAM_OK;
    }
    if (strcmp(key, "base_url") == 0) {
        if (read_string(ld, m, path, &p->base_url) != SEAM_OK)
            return ld->status;
        return warn_plain_http(ld, p, m);
    }
    if (strcmp(key, "api_key_env") == 0) {
        if (config_setting_type(m) == CONFIG_TYPE_STRING)
            return read_string(ld, m, path, &p->api_key_env);
        /* A list names fallbacks, the first one set wins (GEMINI_API_KEY, then
         * GOOGLE_API_KEY); kept newline-separated, a character no variable
         * name holds. */
        char **names = NULL;
        size_t n = 0;
        seam_buf joined = { 0 };
        int rc = read_string_list(ld, m, path, 0, &names, &n);
        for (size_t i = 0; i < n; i++) {
            if (rc == SEAM_OK && strchr(names[i], '\n'))
                rc = fail_setting(ld, m, "%s[%zu] is not a variable name", path, i);
            if (rc == SEAM_OK && ((i && seam_buf_puts(&joined, "\n") != SEAM_OK) ||
                                  seam_buf_puts(&joined, names[i]) != SEAM_OK))
                rc = fail_nomem(ld);
            free(names[i]);
        }
        free(names);
        if (rc != SEAM_OK) {
            seam_buf_free(&joined);
            return ld->status;
        }
        free(p->api_key_env);
        p->api_key_env = joined.data;
        return SEAM_OK;
    }
    if (strcmp(key, "api_key_command") == 0)
        return read_string(ld, m, path, &p->api_key_command);
    if (strcmp(key, "api_key_file") == 0) {
        char *file = NULL;
        if (read_string(ld, m, path, &file) != SEAM_OK)
            return ld->status;
        free(p->api_key_file);
        p->api_key_file = resolve_path(ld, file);
        free(file);
        return p->api_key_file ? SEAM_OK : fail_nomem(ld);
    }
    if (strcmp(key, "api_key") == 0) {
        /* Read by hand: read_string's messages are fine, but the old value must
         * be wiped, not just freed. */
        if (config_setting_type(m) != CONFIG_TYPE_STRING)
            return fail_type(ld, m, path, "a string");
        const char *v = config_setting_get_string(m);
        if (!v || !*v)
            return fail_setting(ld, m, "%s must be a non-empty string", path);
        seam_secret_free(p->api_key);
        p->api_key = strdup(v);
        if (!p->api_key)
            return fail_nomem(ld);
        if (ld->group_or_other_access) {
            seam_buf w = {0};
            if (seam_buf_printf(&w,
                                "%s:%d: provider \"%s\" has an inline api_key in a file readable "
                                "by group or others (mode %04o); use api_key_env, api_key_file "
                                "or api_key_command instead, or chmod 600 %s",
                                setting_file(ld, m), setting_line(m), p->name, ld->file_mode,
                                setting_file(ld, m)) != SEAM_OK) {
                seam_buf_free(&w);
                return fail_nomem(ld);
            }
            return add_warning(ld, w.data);
        }
        return SEAM_OK;
    }
    if (strcmp(key, "api_keys_env") == 0)
        return read_string_list(ld, m, path, 0, &p->api_keys_env, &p->n_api_keys_env);
    if (strcmp(key, "api_key_files") == 0)
        return read_string_list(ld, m, path, 1, &p->api_key_files, &p->n_api_key_files);
    if (strcmp(key, "api_key_commands") == 0)
        return read_string_list(ld, m, path, 0, &p->api_key_commands, &p->n_api_key_commands);
    if (strcmp(key, "key_selection") == 0) {
        static const char *const names[] = {"round_robin", "sticky", NULL};
        return read_choice(ld, m, path, names, "\"round_robin\" or \"sticky\"", &p->key_selection);
    }
    if (strcmp(key, "rate_limit_guard") == 0) {
        static const char *const names[] = {"rotate", "wait", "off", NULL};
        return read_choice(ld, m, path, names, "\"rotate\", \"wait\" or \"off\"",
                           &p->rate_limit_guard);
    }
    if (strcmp(key, "api_key_ttl_ms") == 0)
        return read_int64(ld, m, path, R_KEY_TTL_MS, &p->api_key_ttl_ms);
    if (strcmp(key, "api_key_command_timeout_ms") == 0)
        return read_int64(ld, m, path, R_KEY_COMMAND_TIMEOUT_MS, &p->api_key_command_timeout_ms);
    if (strcmp(key, "timeout_ms") == 0)
        return read_int64(ld, m, path, R_TIMEOUT_MS, &p->timeout_ms);
    if (strcmp(key, "connect_timeout_ms") == 0)
        return read_int64(ld, m, path, R_CONNECT_TIMEOUT_MS, &p->connect_timeout_ms);
    if (strcmp(key, "idle_timeout_ms") == 0)
        return read_int64(ld, m, path, R_IDLE_TIMEOUT_MS, &p->idle_timeout_ms);
    if (strcmp(key, "max_response_bytes") == 0)
        return read_int64(ld, m, path, R_MAX_RESPONSE_BYTES, &p->max_response_bytes);
    if (strcmp(key, "ca_file") == 0 || strcmp(key, "ca_path") == 0) {
        char *v = NULL;
        if (read_string(ld, m, path, &v) != SEAM_OK)
            return ld->status;
        char **dst = key[3] == 'f' ? &p->ca_file : &p->ca_path;
        free(*dst);
        *dst = resolve_path(ld, v);
        free(v);
        return *dst ? SEAM_OK : fail_nomem(ld);
    }
    if (strcmp(key, "options") == 0)
        return load_options(ld, m, path, &p->options_json);
    return fail_unknown(ld, m, parent, provider_keys);
}

static int load_provider(loader *ld, const config_setting_t *s)
{
    seam_conf *c = ld->conf;
    const char *name = config_setting_name(s);
    char path[PATH_MAX_LEN];
    join_path(path, "providers", name);
    if (expect_group(ld, s, path) != SEAM_OK)
        return ld->status;
    const seam_conf_provider *prev = replace_provider(ld, name) ? NULL : seam_conf_find_provider(c, name);
    if (prev)
        return fail_setting(ld, s, "provider \"%s\" already defined in %s:%d", name, prev->file,
                            prev->line);

    if (grow((void **)&c->providers, &ld->cap_providers, c->n_providers, sizeof *c->providers) !=
        SEAM_OK)
        return fail_nomem(ld);
    seam_conf_provider *p = &c->providers[c->n_providers++];
    memset(p, 0, sizeof *p);
    p->name = strdup(name);
    p->file = strdup(setting_file(ld, s));
    p->line = setting_line(s);
    p->timeout_ms = DEFAULT_TIMEOUT_MS;
    p->connect_timeout_ms = DEFAULT_CONNECT_TIMEOUT_MS;
    p->idle_timeout_ms = DEFAULT_IDLE_TIMEOUT_MS;
    p->max_response_bytes = DEFAULT_MAX_RESPONSE_BYTES;
    p->api_key_command_timeout_ms = SEAM_DEFAULT_KEY_COMMAND_TIMEOUT_MS;
    if (!p->name || !p->file)
        return fail_nomem(ld);

    for (int i = 0; i < config_setting_length(s); i++)
        if (provider_member(ld, p, config_setting_get_elem(s, (unsigned)i), path) != SEAM_OK)
            return ld->status;

    if (!p->plugin && !(p->plugin = strdup(name)))
        return fail_nomem(ld);
    if (!p->options_json && !(p->options_json = strdup("{}")))
        return fail_nomem(ld);
    return SEAM_OK;
}

static int load_providers(loader *ld, const config_setting_t *s)
{
    if (expect_group(ld, s, "providers") != SEAM_OK)
        return ld->status;
    for (int i = 0; i < config_setting_length(s); i++)
        if (load_provider(ld, config_setting_get_elem(s, (unsigned)i)) != SEAM_OK)
            return ld->status;
    return SEAM_OK;
}

/* ---- chains ------------------------------------------------------------------------------------ */

static const char entry_keys[] = "provider, model, max_attempts, backoff";
static const char backoff_keys[] = "base_ms, max_ms, jitter";
/* A name a setting may list, and the bit it sets. */
typedef struct name_bit {
    const char *name;
    uint32_t bit;
} name_bit;

/* An array or list of names, each one of names[0..n), ORed into *bits. An
 * unknown name is refused as "PATH[i]: <before>"NAME"<after> (expected one of:
 * the names in order)". */
static int read_name_bits(loader *ld, const config_setting_t *s, const char *path,
                          const char *array_what, const name_bit *names, size_t n,
                          const char *before, const char *after, uint32_t *bits)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return fail_type(ld, s, path, array_what);
    *bits = 0;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        char epath[PATH_MAX_LEN + 16];
        snprintf(epath, sizeof epath, "%s[%d]", path, i);
        if (config_setting_type(e) != CONFIG_TYPE_STRING)
            return fail_type(ld, e, epath, "a string");
        const char *v = config_setting_get_string(e);
        uint32_t bit = 0;
        for (size_t k = 0; k < n; k++)
            if (v && strcmp(v, names[k].name) == 0)
                bit = names[k].bit;
        if (!bit) {
            char expected[512] = "";
            for (size_t k = 0; k < n; k++) {
                size_t used = strlen(expected);
                snprintf(expected + used, sizeof expected - used, "%s%s", k ? ", " : "", names[k].name);
            }
            return fail_setting(ld, e, "%s: %s\"%s\"%s (expected one of: %s)", epath, before,
                                v ? v : "", after, expected);
        }
        *bits |= bit;
    }
    return SEAM_OK;
}

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
    int rc = read_name_bits(ld, s, path, "an array of error kinds [ \"auth\", ... ]", failover_names,
                            sizeof failover_names / sizeof failover_names[0], "",
                            " is not an error kind failover_on takes", &bits);
    ch->failover_on = rc == SEAM_OK ? bits : 0;
    return rc;
}

static int load_backoff(loader *ld, seam_conf_backoff *b, const config_setting_t *s,
                        const char *path)
{
    if (expect_group(ld, s, path) != SEAM_OK)
        return ld->status;
    const config_setting_t *max_setting = NULL;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
        const char *key = config_setting_name(m);
        char mpath[PATH_MAX_LEN];
        join_path(mpath, path, key);
        int rc;
        if (strcmp(key, "base_ms") == 0)
            rc = read_int64(ld, m, mpath, R_BACKOFF_MS, &b->base_ms);
        else if (strcmp(key, "max_ms") == 0) {
            rc = read_int64(ld, m, mpath, R_BACKOFF_MS, &b->max_ms);
            max_setting = m;
        } else if (strcmp(key, "jitter") == 0) {
            rc = read_number(ld, m, mpath, &b->jitter);
            if (rc == SEAM_OK && !(b->jitter >= 0.0 && b->jitter <= 1.0))
                rc = fail_setting(ld, m, "%s must be between 0 and 1", mpath);
        } else
            rc = fail_unknown(ld, m, path, backoff_keys);
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
    if (expect_group(ld, s, path) != SEAM_OK)
        return ld->status;
    e->max_attempts = DEFAULT_MAX_ATTEMPTS;
    e->backoff.base_ms = DEFAULT_BACKOFF_BASE_MS;
    e->backoff.max_ms = DEFAULT_BACKOFF_MAX_MS;
    e->backoff.jitter = DEFAULT_BACKOFF_JITTER;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
        const char *key = config_setting_name(m);
        char mpath[PATH_MAX_LEN];
        join_path(mpath, path, key);
        int rc;
        if (strcmp(key, "provider") == 0)
            rc = read_string(ld, m, mpath, &e->provider);
        else if (strcmp(key, "model") == 0)
            rc = read_string(ld, m, mpath, &e->model);
        else if (strcmp(key, "max_attempts") == 0) {
            int64_t n = 0;
            rc = read_int64(ld, m, mpath, R_MAX_ATTEMPTS, &n);
            e->max_attempts = (int)n;
        } else if (strcmp(key, "backoff") == 0)
            rc = load_backoff(ld, &e->backoff, m, mpath);
        else
            rc = fail_unknown(ld, m, path, entry_keys);
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
        return fail_type(ld, s, path, "a list of entries ( { provider = ...; model = ...; } )");
    int n = config_setting_length(s);
    if (n == 0)
        return fail_setting(ld, s, "%s has no entries", path);
    ch->entries = calloc((size_t)n, sizeof *ch->entries);
    lines->entry_lines = calloc((size_t)n, sizeof *lines->entry_lines);
    if (!ch->entries || !lines->entry_lines)
        return fail_nomem(ld);
    for (int i = 0; i < n; i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        char epath[PATH_MAX_LEN];
        snprintf(epath, sizeof epath, "%s[%d]", path, i);
        ch->n_entries++;
        lines->entry_lines[i] = setting_line(e);
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
        join_path(mpath, path, key);
        int rc;
        if (strcmp(key, "entries") == 0) {
            entries = m;
            rc = load_entries(ld, ch, lines, m, mpath);
        } else if (strcmp(key, "retry_after_cap_ms") == 0)
            rc = read_int64(ld, m, mpath, R_RETRY_AFTER_CAP_MS, &ch->retry_after_cap_ms);
        else if (strcmp(key, "cooldown_ms") == 0)
            rc = read_int64(ld, m, mpath, R_COOLDOWN_MS, &ch->cooldown_ms);
        else if (strcmp(key, "failover_on") == 0)
            rc = load_failover_on(ld, ch, m, mpath);
        else if (strcmp(key, "context_overflow_fallback") == 0) {
            rc = read_string(ld, m, mpath, &ch->context_overflow_fallback);
            lines->overflow_line = setting_line(m);
        } else if (strcmp(key, "content_filter_fallback") == 0) {
            rc = read_string(ld, m, mpath, &ch->content_filter_fallback);
            lines->filter_line = setting_line(m);
        } else
            rc = fail_unknown(ld, m, path, chain_keys);
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
    join_path(path, "chains", name);
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_LIST && t != CONFIG_TYPE_GROUP)
        return fail_type(ld, s, path, "a list of entries ( { ... } ) or a group { entries = ( ... ); }");
    const seam_conf_chain *prev = replace_chain(ld, name) ? NULL : seam_conf_find_chain(c, name);
    if (prev)
        return fail_setting(ld, s, "chain \"%s\" already defined in %s:%d", name, prev->file,
                            prev->line);

    size_t cap = ld->cap_chains;
    if (grow((void **)&c->chains, &cap, c->n_chains, sizeof *c->chains) != SEAM_OK)
        return fail_nomem(ld);
    cap = ld->cap_chains;
    if (grow((void **)&ld->chain_lines, &cap, c->n_chains, sizeof *ld->chain_lines) != SEAM_OK)
        return fail_nomem(ld);
    ld->cap_chains = cap;

    seam_conf_chain *ch = &c->chains[c->n_chains];
    chain_lines *lines = &ld->chain_lines[c->n_chains];
    c->n_chains++;
    memset(ch, 0, sizeof *ch);
    memset(lines, 0, sizeof *lines);
    ch->name = strdup(name);
    ch->file = strdup(setting_file(ld, s));
    ch->line = setting_line(s);
    ch->retry_after_cap_ms = DEFAULT_RETRY_AFTER_CAP_MS;
    ch->cooldown_ms = DEFAULT_COOLDOWN_MS;
    if (!ch->name || !ch->file)
        return fail_nomem(ld);
    if (t == CONFIG_TYPE_LIST)
        return load_entries(ld, ch, lines, s, path);
    return load_chain_group(ld, ch, lines, s, path);
}

static int load_chains(loader *ld, const config_setting_t *s)
{
    if (expect_group(ld, s, "chains") != SEAM_OK)
        return ld->status;
    for (int i = 0; i < config_setting_length(s); i++)
        if (load_chain(ld, config_setting_get_elem(s, (unsigned)i)) != SEAM_OK)
            return ld->status;
    return SEAM_OK;
}

/* ---- cli: the seam command's own settings ------------------------------------ */

/* The `cli` group is the seam command's (conversation logs, model aliases,
 * templates): kept as JSON for it and not interpreted here. A later file's
 * members replace an earlier file's of the same name, so a personal conf
 * overlays the system one member by member. */
static int load_cli(loader *ld, const config_setting_t *s)
{
    if (expect_group(ld, s, "cli") != SEAM_OK || options_utf8(ld, s, "cli") != SEAM_OK)
        return ld->status;
    json_object *add = setting_to_json(s);
    json_object *have = ld->conf->cli_json ? json_tokener_parse(ld->conf->cli_json)
                                           : json_object_new_object();
    if (!add || !have) {
        json_object_put(add);
        json_object_put(have);
        return fail_nomem(ld);
    }
    json_object_object_foreach(add, key, val)
        json_object_object_add(have, key, json_object_get(val));
    char *copy = seam_json_print(have, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    json_object_put(add);
    json_object_put(have);
    if (!copy)
        return fail_nomem(ld);
    free(ld->conf->cli_json);
    ld->conf->cli_json = copy;
    return SEAM_OK;
}

/* ---- roles ------------------------------------------------------------------------------------------ */

static int load_roles(loader *ld, const config_setting_t *s)
{
    if (expect_group(ld, s, "roles") != SEAM_OK)
        return ld->status;
    seam_conf *c = ld->conf;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
        const char *name = config_setting_name(m);
        char path[PATH_MAX_LEN];
        join_path(path, "roles", name);
        replace_role(ld, name);
        for (size_t k = 0; k < c->n_roles; k++)
            if (strcmp(c->roles[k].name, name) == 0)
                return fail_setting(ld, m, "role \"%s\" already defined in %s:%d", name,
                                    ld->role_origins[k].file, ld->role_origins[k].line);
        size_t cap = ld->cap_roles;
        if (grow((void **)&c->roles, &cap, c->n_roles, sizeof *c->roles) != SEAM_OK)
            return fail_nomem(ld);
        cap = ld->cap_roles;
        if (grow((void **)&ld->role_origins, &cap, c->n_roles, sizeof *ld->role_origins) !=
            SEAM_OK)
            return fail_nomem(ld);
        ld->cap_roles = cap;
        seam_conf_role *r = &c->roles[c->n_roles];
        role_origin *o = &ld->role_origins[c->n_roles];
        c->n_roles++;
        r->name = strdup(name);
        r->file = strdup(setting_file(ld, m));
        r->line = setting_line(m);
        r->chain = NULL;
        o->file = strdup(setting_file(ld, m));
        o->line = setting_line(m);
        if (!r->name || !o->file || !r->file)
            return fail_nomem(ld);
        if (read_string(ld, m, path, &r->chain) != SEAM_OK)
            return ld->status;
    }
    return SEAM_OK;
}

/* ---- state (where cooldowns, leases, budgets live) ----------------------------------------- */

static const char state_keys[] =
    "backend, host, port, socket, password, password_env, password_file, db, prefix, timeout_ms";

/* A state backend id as a plugin registers it: [a-z0-9_-]. */
static int backend_id_ok(const char *v)
{
    if (!*v)
        return 0;
    for (; *v; v++)
        if (!((*v >= 'a' && *v <= 'z') || (*v >= '0' && *v <= '9') || *v == '_' || *v == '-'))
            return 0;
    return 1;
}

static int state_member(loader *ld, seam_conf_state *st, const config_setting_t *m)
{
    const char *key = config_setting_name(m);
    char path[PATH_MAX_LEN];
    join_path(path, "state", key);
    int64_t v;
    if (strcmp(key, "backend") == 0) {
        if (read_string(ld, m, path, &st->backend) != SEAM_OK)
            return ld->status;
        if (!backend_id_ok(st->backend))
            return fail_setting(ld, m, "%s must be \"local\" or a state backend plugin's id "
                                       "such as \"redis\" (a-z, 0-9, _ and -), not \"%s\"",
                                path, st->backend);
        return SEAM_OK;
    }
    ld->state_keys_given = 1;
    if (strcmp(key, "host") == 0)
        return read_string(ld, m, path, &st->host);
    if (strcmp(key, "socket") == 0) {
        if (read_string(ld, m, path, &st->socket) != SEAM_OK)
            return ld->status;
        char *abs = resolve_path(ld, st->socket);
        if (!abs)
            return fail_nomem(ld);
        free(st->socket);
        st->socket = abs;
        return SEAM_OK;
    }
    if (strcmp(key, "port") == 0) {
        if (read_int64(ld, m, path, R_STATE_PORT, &v) != SEAM_OK)
            return ld->status;
        st->port = (int)v;
        return SEAM_OK;
    }
    if (strcmp(key, "db") == 0) {
        if (read_int64(ld, m, path, R_STATE_DB, &v) != SEAM_OK)
            return ld->status;
        st->db = (int)v;
        return SEAM_OK;
    }
    if (strcmp(key, "timeout_ms") == 0)
        return read_int64(ld, m, path, R_STATE_TIMEOUT_MS, &st->timeout_ms);
    if (strcmp(key, "prefix") == 0) {
        if (read_string(ld, m, path, &st->prefix) != SEAM_OK)
            return ld->status;
        size_t n = strlen(st->prefix);
        for (size_t i = 0; i < n; i++)
            if (st->prefix[i] <= ' ' || st->prefix[i] > '~')
                return fail_setting(ld, m, "%s must be printable ASCII without spaces", path);
        if (n > 64)
            return fail_setting(ld, m, "%s must be at most 64 bytes", path);
        return SEAM_OK;
    }
    if (strcmp(key, "password_env") == 0)
        return read_string(ld, m, path, &st->password_env);
    if (strcmp(key, "password_file") == 0) {
        if (read_string(ld, m, path, &st->password_file) != SEAM_OK)
            return ld->status;
        char *abs = resolve_path(ld, st->password_file);
        if (!abs)
            return fail_nomem(ld);
        free(st->password_file);
        st->password_file = abs;
        return SEAM_OK;
    }
    if (strcmp(key, "password") == 0) {
        if (config_setting_type(m) != CONFIG_TYPE_STRING)
            return fail_type(ld, m, path, "a string");
        const char *pw = config_setting_get_string(m);
        if (!pw || !*pw)
            return fail_setting(ld, m, "%s must be a non-empty string", path);
        seam_secret_free(st->password);
        if (!(st->password = strdup(pw)))
            return fail_nomem(ld);
        if (ld->group_or_other_access) {
            seam_buf w = {0};
            if (seam_buf_printf(&w,
                                "%s:%d: state.password is inline in a file readable by group or "
                                "others (mode %04o); use password_env or password_file instead, "
                                "or chmod 600 %s",
                                setting_file(ld, m), setting_line(m), ld->file_mode,
                                setting_file(ld, m)) != SEAM_OK) {
                seam_buf_free(&w);
                return fail_nomem(ld);
            }
            return add_warning(ld, w.data);
        }
        return SEAM_OK;
    }
    return fail_unknown(ld, m, "state", state_keys);
}

static int load_state(loader *ld, const config_setting_t *s)
{
    if (expect_group(ld, s, "state") != SEAM_OK)
        return ld->status;
    seam_conf_state *st = &ld->conf->state;
    if (ld->state_seen == 1)
        return fail_setting(ld, s, "state is already set in %s:%d (one state section in all "
                                   "files)", st->file, st->line);
    if (ld->state_seen == 2)
        free_state(st); /* the personal conf's section replaces the system conf's, whole */
    ld->state_seen = 1;
    ld->state_keys_given = 0;
    free(st->file);
    if (!(st->file = strdup(setting_file(ld, s))))
        return fail_nomem(ld);
    st->line = setting_line(s);
    for (int i = 0; i < config_setting_length(s) && ld->status == SEAM_OK; i++)
        state_member(ld, st, config_setting_get_elem(s, (unsigned)i));
    if (ld->status != SEAM_OK)
        return ld->status;
    int secrets = !!st->password + !!st->password_env + !!st->password_file;
    if (secrets > 1)
        return fail_setting(ld, s, "state: password, password_env and password_file exclude "
                                   "each other (give one)");
    if (st->socket && (st->host || st->port))
        return fail_setting(ld, s, "state: socket excludes host and port (give one or the other)");
    if (st->backend && strcmp(st->backend, "local") == 0) {
        free(st->backend);
        st->backend = NULL;
    }
    if (!st->backend && ld->state_keys_given) {
        seam_buf w = {0};
        if (seam_buf_printf(&w, "%s:%d: state sets connection settings but no backend: the "
                                "state stays local to each process (add backend = \"redis\";)",
                            st->file, st->line) != SEAM_OK) {
            seam_buf_free(&w);
            return fail_nomem(ld);
        }
        return add_warning(ld, w.data);
    }
    return SEAM_OK;
}

/* ---- tools (commands) ------------------------------------------------------------------------------ */

static const char tool_keys[] = "description, parameters, command, timeout_ms";

/* Providers cap a function name at 64 characters (OpenAI, Gemini); libconfig
 * already limits the characters to [A-Za-z0-9_-*]. */
#define MAX_TOOL_NAME 64

/* parameters: a JSON Schema object written as a string. A parse error names
 * the setting's line and json-c's reason. */
static int read_schema(loader *ld, const config_setting_t *s, const char *path, char **out)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return fail_type(ld, s, path, "a string holding a JSON Schema object");
    const char *v = config_setting_get_string(s);
    size_t len = v ? strlen(v) : 0;
    if (len >= INT_MAX)
        return fail_setting(ld, s, "%s is too long", path);
    json_tokener *tok = json_tokener_new();
    if (!tok)
        return fail_nomem(ld);
    /* Strict, as the codecs parse it: what passes here cannot fail a call.
     * The terminating NUL is passed so that the end of the text is seen. */
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    json_object *schema = len ? json_tokener_parse_ex(tok, v, (int)len + 1) : NULL;
    enum json_tokener_error jerr = len ? json_tokener_get_error(tok) : json_tokener_continue;
    size_t end = len ? json_tokener_get_parse_end(tok) : 0;
    json_tokener_free(tok);
    for (; jerr == json_tokener_success && end < len; end++)
        if (!strchr(" \t\r\n", v[end]))
            break;
    int rc = SEAM_OK;
    if (jerr == json_tokener_continue || jerr == json_tokener_error_parse_eof)
        rc = fail_setting(ld, s, "%s is not JSON: the text ends too early", path);
    else if (jerr != json_tokener_success)
        rc = fail_setting(ld, s, "%s is not JSON: %s", path, json_tokener_error_desc(jerr));
    else if (end < len)
        rc = fail_setting(ld, s, "%s is not JSON: unexpected text after the value", path);
    else if (!json_object_is_type(schema, json_type_object))
        rc = fail_setting(ld, s, "%s must be a JSON Schema object { ... }", path);
    json_object_put(schema);
    /* Compiling the patterns is what finds one PCRE2 refuses: the tool loop
     * would refuse the tool's definition, so "config check" must too. */
    seam_compiled_schema *cs = NULL;
    char why[512];
    int crc = rc == SEAM_OK ? seam_compiled_schema_new(v, &cs, why, sizeof why) : SEAM_OK;
    seam_compiled_schema_free(cs);
    if (crc == SEAM_ERR_NOMEM)
        return fail_nomem(ld);
    if (crc != SEAM_OK)
        rc = fail_setting(ld, s, "%s: %s", path, why);
    if (rc != SEAM_OK)
        return rc;
    free(*out);
    *out = strdup(v);
    return *out ? SEAM_OK : fail_nomem(ld);
}

static int load_tool(loader *ld, const config_setting_t *s)
{
    seam_conf *c = ld->conf;
    const char *name = config_setting_name(s);
    char path[PATH_MAX_LEN];
    join_path(path, "tools", name);
    if (expect_group(ld, s, path) != SEAM_OK)
        return ld->status;
    const seam_conf_tool *prev = replace_tool(ld, name) ? NULL : seam_conf_find_tool(c, name);
    if (prev)
        return fail_setting(ld, s, "tool \"%s\" already defined in %s:%d", name, prev->file,
                            prev->line);
    if (strlen(name) > MAX_TOOL_NAME)
        return fail_setting(ld, s, "%s: a tool name has at most %d characters", path,
                            MAX_TOOL_NAME);

    if (grow((void **)&c->tools, &ld->cap_tools, c->n_tools, sizeof *c->tools) != SEAM_OK)
        return fail_nomem(ld);
    seam_conf_tool *t = &c->tools[c->n_tools++];
    memset(t, 0, sizeof *t);
    t->name = strdup(name);
    t->file = strdup(setting_file(ld, s));
    t->line = setting_line(s);
    if (!t->name || !t->file)
        return fail_nomem(ld);

    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
        const char *key = config_setting_name(m);
        char mpath[PATH_MAX_LEN];
        join_path(mpath, path, key);
        int rc;
        if (strcmp(key, "description") == 0)
            rc = read_string(ld, m, mpath, &t->description);
        else if (strcmp(key, "parameters") == 0)
            rc = read_schema(ld, m, mpath, &t->parameters_json);
        else if (strcmp(key, "command") == 0)
            rc = read_string(ld, m, mpath, &t->command);
        else if (strcmp(key, "timeout_ms") == 0)
            rc = read_int64(ld, m, mpath, R_TOOL_TIMEOUT_MS, &t->timeout_ms);
        else
            rc = fail_unknown(ld, m, path, tool_keys);
        if (rc != SEAM_OK)
            return rc;
    }
    if (!t->description)
        return fail_setting(ld, s, "%s has no description (what the model reads to choose it)",
                            path);
    if (!t->command)
        return fail_setting(ld, s, "%s has no command", path);
    return SEAM_OK;
}

static int load_tools(loader *ld, const config_setting_t *s)
{
    if (expect_group(ld, s, "tools") != SEAM_OK)
        return ld->status;
    for (int i = 0; i < config_setting_length(s); i++)
        if (load_tool(ld, config_setting_get_elem(s, (unsigned)i)) != SEAM_OK)
            return ld->status;
    return SEAM_OK;
}

/* ---- models (the catalog and the user's entries) -------------------------------------------------------- */

static const char model_keys[] =
    "id, provider, context_window, max_output_tokens, capabilities, outputs, price";
static const char price_keys[] = "input, output, cache_read, cache_write";

static const name_bit capability_names[] = {
    {"tools", SEAM_CAP_TOOLS},
    {"streaming", SEAM_CAP_STREAMING},
    {"parallel_tool_calls", SEAM_CAP_PARALLEL_TOOL_CALLS},
    {"vision", SEAM_CAP_VISION},
    {"image_input", SEAM_CAP_VISION}, /* vision is its alias (reference ADR-0031) */
    {"audio_input", SEAM_CAP_AUDIO_INPUT},
    {"video_input", SEAM_CAP_VIDEO_INPUT},
    {"pdf_input", SEAM_CAP_PDF_INPUT},
    {"document_input", SEAM_CAP_PDF_INPUT},
    {"prompt_cache", SEAM_CAP_PROMPT_CACHE},
    {"reasoning", SEAM_CAP_REASONING},
    {"structured_output", SEAM_CAP_STRUCTURED_OUTPUT},
    {"embed", SEAM_CAP_EMBED},
};

static int load_capabilities(loader *ld, seam_conf_model *m, const config_setting_t *s,
                             const char *path)
{
    uint32_t bits = 0;
    int rc = read_name_bits(ld, s, path, "an array of capability names [ \"tools\", ... ]",
                            capability_names, sizeof capability_names / sizeof capability_names[0],
                            "unknown capability ", "", &bits);
    if (rc == SEAM_OK) {
        m->has_capabilities = 1;
        m->capabilities = bits;
    }
    return rc;
}

/* outputs = [ "text", "text+image" ]: the closed set of modality sets the
 * model can emit in one turn. */
static int load_outputs(loader *ld, seam_conf_model *m, const config_setting_t *s,
                        const char *path)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return fail_type(ld, s, path, "an array of modality sets [ \"text\", \"text+image\" ]");
    int n = config_setting_length(s);
    if (n > 8)
        return fail_setting(ld, s, "%s lists %d modality sets; at most 8", path, n);
    m->n_outputs = 0;
    for (int i = 0; i < n; i++) {
        const char *v = config_setting_get_string_elem(s, (unsigned)i);
        if (!v)
            return fail_type(ld, s, path, "an array of strings");
        uint32_t bits = 0;
        const char *p = v;
        while (*p) {
            size_t len = strcspn(p, "+");
            static const struct { const char *name; uint32_t bit; } names[] = {
                {"text", SEAM_MODALITY_TEXT}, {"image", SEAM_MODALITY_IMAGE},
                {"audio", SEAM_MODALITY_AUDIO}, {"video", SEAM_MODALITY_VIDEO}};
            uint32_t bit = 0;
            for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
                if (strlen(names[k].name) == len && strncmp(p, names[k].name, len) == 0)
                    bit = names[k].bit;
            if (!bit)
                return fail_setting(ld, s, "%s: \"%s\" is not a set of text, image, audio, video "
                                           "joined by +", path, v);
            bits |= bit;
            p += len;
            if (*p == '+')
                p++;
        }
        if (!bits)
            return fail_setting(ld, s, "%s: an empty modality set", path);
        m->outputs[m->n_outputs++] = bits;
    }
    return SEAM_OK;
}

static int load_price(loader *ld, seam_conf_model *m, const config_setting_t *s, const char *path)
{
    if (expect_group(ld, s, path) != SEAM_OK)
        return ld->status;
    int have_input = 0, have_output = 0;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *key = config_setting_name(e);
        char epath[PATH_MAX_LEN];
        join_path(epath, path, key);
        int rc;
        /* Bounded so that tokens x price stays inside int64 (seam_catalog_price). */
        if (strcmp(key, "input") == 0) {
            rc = read_int64(ld, e, epath, R_PRICE, &m->price_input);
            have_input = 1;
        } else if (strcmp(key, "output") == 0) {
            rc = read_int64(ld, e, epath, R_PRICE, &m->price_output);
            have_output = 1;
        } else if (strcmp(key, "cache_read") == 0)
            rc = read_int64(ld, e, epath, R_PRICE, &m->price_cache_read);
        else if (strcmp(key, "cache_write") == 0)
            rc = read_int64(ld, e, epath, R_PRICE, &m->price_cache_write);
        else
            rc = fail_unknown(ld, e, path, price_keys);
        if (rc != SEAM_OK)
            return rc;
    }
    if (!have_input || !have_output)
        return fail_setting(ld, s, "%s needs both input and output (micro-cents per million tokens)",
                            path);
    m->priced = 1;
    return SEAM_OK;
}

static int same_provider(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int load_model(loader *ld, const config_setting_t *s, const char *path)
{
    if (expect_group(ld, s, path) != SEAM_OK)
        return ld->status;
    seam_conf_model m;
    memset(&m, 0, sizeof m);
    m.price_cache_read = m.price_cache_write = -1;
    m.from_catalog = ld->in_catalog;
    int rc = SEAM_OK;
    for (int i = 0; i < config_setting_length(s) && rc == SEAM_OK; i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *key = config_setting_name(e);
        char epath[PATH_MAX_LEN];
        join_path(epath, path, key);
        if (strcmp(key, "id") == 0)
            rc = read_string(ld, e, epath, &m.id);
        else if (strcmp(key, "provider") == 0)
            rc = read_string(ld, e, epath, &m.provider);
        else if (strcmp(key, "context_window") == 0)
            rc = read_int64(ld, e, epath, R_TOKENS, &m.context_window);
        else if (strcmp(key, "max_output_tokens") == 0)
            rc = read_int64(ld, e, epath, R_TOKENS, &m.max_output_tokens);
        else if (strcmp(key, "capabilities") == 0)
            rc = load_capabilities(ld, &m, e, epath);
        else if (strcmp(key, "outputs") == 0)
            rc = load_outputs(ld, &m, e, epath);
        else if (strcmp(key, "price") == 0)
            rc = load_price(ld, &m, e, epath);
        else
            rc = fail_unknown(ld, e, path, model_keys);
    }
    if (rc == SEAM_OK && !m.id)
        rc = fail_setting(ld, s, "%s has no id", path);
    seam_conf *c = ld->conf;
    int keep = rc == SEAM_OK;
    for (size_t i = 0; keep && i < c->n_models; i++) {
        const seam_conf_model *o = &c->models[i];
        if (strcmp(o->id, m.id) != 0 || !same_provider(o->provider, m.provider))
            continue;
        if (o->from_catalog == m.from_catalog && i < ld->base_models) {
            /* The personal conf's entry replaces the system conf's. */
            free(c->models[i].id);
            free(c->models[i].provider);
            free(c->models[i].file);
            remove_at(c->models, &c->n_models, i, sizeof *c->models);
            ld->base_models--;
            i--;
            continue;
        }
        if (o->from_catalog == m.from_catalog) {
            rc = fail_setting(ld, s, "model \"%s\"%s%s already defined in %s:%d", m.id,
                              m.provider ? " of provider " : "", m.provider ? m.provider : "",
                              o->file, o->line);
        }
        keep = 0; /* the user's entry overrides the catalog's */
    }
    if (keep) {
        m.file = strdup(setting_file(ld, s));
        m.line = setting_line(s);
        if (!m.file || grow((void **)&c->models, &ld->cap_models, c->n_models, sizeof *c->models) != SEAM_OK) {
            rc = fail_nomem(ld);
        } else {
            c->models[c->n_models++] = m;
            return SEAM_OK;
        }
    }
    free(m.id);
    free(m.provider);
    free(m.file);
    return rc;
}

static int load_models(loader *ld, const config_setting_t *s)
{
    if (config_setting_type(s) != CONFIG_TYPE_LIST)
        return fail_type(ld, s, "models", "a list of models ( { id = ...; ... } )");
    for (int i = 0; i < config_setting_length(s); i++) {
        char path[PATH_MAX_LEN];
        snprintf(path, sizeof path, "models[%d]", i);
        if (load_model(ld, config_setting_get_elem(s, (unsigned)i), path) != SEAM_OK)
            return ld->status;
    }
    return SEAM_OK;
}

static int load_model_catalog_key(loader *ld, const config_setting_t *s)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return fail_type(ld, s, "model_catalog", "a string");
    const char *v = config_setting_get_string(s);
    free(ld->conf->model_catalog);
    ld->conf->model_catalog = NULL;
    ld->catalog_disabled = !v || !*v;
    if (ld->catalog_disabled)
        return SEAM_OK;
    ld->conf->model_catalog = resolve_path(ld, v);
    free(ld->catalog_named_in);
    ld->catalog_named_in = strdup(setting_file(ld, s));
    ld->catalog_named_line = setting_line(s);
    return ld->conf->model_catalog && ld->catalog_named_in ? SEAM_OK : fail_nomem(ld);
}

/* ---- one file ---------------------------------------------------------------------------------------- */

static const char *file_kind(mode_t mode)
{
    return S_ISFIFO(mode)                     ? "a FIFO"
           : S_ISDIR(mode)                    ? "a directory"
           : S_ISCHR(mode) || S_ISBLK(mode)   ? "a device"
           : S_ISSOCK(mode)                   ? "a socket"
                                              : "not a regular file";
}

/* Reads a whole conf file into a NUL-terminated buffer. Opened non-blocking
 * (a FIFO would wait for a writer), and only when it is a regular file of at
 * most MAX_CONF_BYTES. Fills *st. */
static int read_conf_text(loader *ld, const char *file, struct stat *st, char **text,
                          size_t *len)
{
    *text = NULL;
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return fail_at(ld, file, 0, "cannot read: %s", strerror(errno));
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return fail_at(ld, file, 0, "cannot read: %s", strerror(e));
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return fail_at(ld, file, 0, "not a regular file (%s)", file_kind(st->st_mode));
    }
    if ((uint64_t)st->st_size > MAX_CONF_BYTES) {
        close(fd);
        return fail_at(ld, file, 0, "too large (%lld bytes; a conf file has at most %zu)",
                       (long long)st->st_size, MAX_CONF_BYTES);
    }
    size_t cap = (size_t)st->st_size + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return fail_nomem(ld);
    }
    for (;;) {
        if (n + 1 == cap) {
            /* Grown since fstat: still bounded. */
            if (cap > MAX_CONF_BYTES) {
                free(buf);
                close(fd);
                return fail_at(ld, file, 0, "too large (a conf file has at most %zu bytes)",
                               MAX_CONF_BYTES);
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                close(fd);
                return fail_nomem(ld);
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return fail_at(ld, file, 0, "cannot read: %s", strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return SEAM_OK;
}

/* An integer literal as libconfig 1.5 lexes it ([-+]?[0-9]+ or 0x[0-9a-f]+,
 * then L or LL for 64 bits), checked for what libconfig would truncate
 * without a word. tok is not NUL-terminated. */
static int check_int_literal(loader *ld, const char *file, int line, const char *tok,
                             size_t n)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (tok[i] == '-' || tok[i] == '+'))
        neg = tok[i++] == '-';
    int hex = n - i > 2 && tok[i] == '0' && (tok[i + 1] == 'x' || tok[i + 1] == 'X');
    if (hex)
        i += 2;
    size_t digits = i;
    while (i < n && (hex ? isxdigit((unsigned char)tok[i]) : isdigit((unsigned char)tok[i])))
        i++;
    if (i == digits)
        return SEAM_OK; /* not an integer: libconfig judges it */
    size_t end_digits = i;
    int wide = 0;
    if (i < n && tok[i] == 'L') {
        wide = 1;
        i++;
        if (i < n && tok[i] == 'L')
            i++;
    }
    if (i != n)
        return SEAM_OK; /* a float, or something libconfig will refuse */
    /* The magnitude, saturated past 2^64. */
    uint64_t v = 0;
    int overflow = 0;
    for (size_t k = digits; k < end_digits; k++) {
        unsigned d = hex ? (unsigned)(isdigit((unsigned char)tok[k]) ? tok[k] - '0'
                                                                      : (tok[k] | 0x20) - 'a' + 10)
                         : (unsigned)(tok[k] - '0');
        unsigned base = hex ? 16 : 10;
        if (v > (UINT64_MAX - d) / base)
            overflow = 1;
        else
            v = v * base + d;
    }
    int fits;
    if (wide)
        fits = !overflow && (hex ? 1 : neg ? v <= (uint64_t)INT64_MAX + 1 : v <= (uint64_t)INT64_MAX);
    else
        fits = !overflow && (hex ? v <= UINT32_MAX
                                 : neg ? v <= (uint64_t)INT32_MAX + 1 : v <= (uint64_t)INT32_MAX);
    if (fits)
        return SEAM_OK;
    int shown = n > 40 ? 40 : (int)n;
    if (wide || overflow || v > (uint64_t)INT64_MAX)
        return fail_at(ld, file, line, "the integer %.*s%s is out of any range (beyond 64 bits)",
                       shown, tok, n > 40 ? "..." : "");
    return fail_at(ld, file, line,
                   "the integer %.*s does not fit in 32 bits: write it with an L suffix "
                   "(%.*sL), as libconfig would otherwise truncate it", shown, tok, shown, tok);
}

/* What libconfig 1.5 would take without a word but seam must not: NUL bytes,
 * invalid UTF-8, @include, integers it would truncate. A light lexer: it
 * knows strings, comments, names and numbers, enough to find those. */
static int check_conf_text(loader *ld, const char *file, const char *text, size_t len)
{
    int line = 1;
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\0')
            return fail_at(ld, file, line, "a NUL byte: a conf file is text");
        if (c >= 0x80) {
            size_t u = utf8_len((const unsigned char *)text + i, len - i);
            if (!u)
                return fail_at(ld, file, line, "invalid UTF-8: a conf file is UTF-8 text");
            i += u;
            continue;
        }
        if (c == '\n') {
            line++;
            i++;
        } else if (c == '#' || (c == '/' && i + 1 < len && text[i + 1] == '/')) {
            while (i < len && text[i] != '\n') {
                unsigned char d = (unsigned char)text[i];
                if (d == '\0')
                    return fail_at(ld, file, line, "a NUL byte: a conf file is text");
                size_t u = d < 0x80 ? 1 : utf8_len((const unsigned char *)text + i, len - i);
                if (!u)
                    return fail_at(ld, file, line, "invalid UTF-8: a conf file is UTF-8 text");
                i += u;
            }
        } else if (c == '/' && i + 1 < len && text[i + 1] == '*') {
            i += 2;
            int start = line;
            while (i < len && !(text[i] == '*' && i + 1 < len && text[i + 1] == '/')) {
                unsigned char d = (unsigned char)text[i];
                if (d == '\0')
                    return fail_at(ld, file, line, "a NUL byte: a conf file is text");
                size_t u = d < 0x80 ? 1 : utf8_len((const unsigned char *)text + i, len - i);
                if (!u)
                    return fail_at(ld, file, line, "invalid UTF-8: a conf file is UTF-8 text");
                if (d == '\n')
                    line++;
                i += u;
            }
            if (i >= len)
                return fail_at(ld, file, start, "a comment /* ... is never closed");
            i += 2;
        } else if (c == '"') {
            i++;
            while (i < len && text[i] != '"') {
                unsigned char d = (unsigned char)text[i];
                if (d == '\0')
                    return fail_at(ld, file, line, "a NUL byte: a conf file is text");
                size_t u = d < 0x80 ? 1 : utf8_len((const unsigned char *)text + i, len - i);
                if (!u)
                    return fail_at(ld, file, line, "invalid UTF-8: a conf file is UTF-8 text");
                if (d == '\n')
                    line++;
                if (d == '\\' && i + 3 < len && (text[i + 1] == 'x' || text[i + 1] == 'X') &&
                    text[i + 2] == '0' && text[i + 3] == '0')
                    return fail_at(ld, file, line,
                                   "a \\x00 escape in a string: a NUL would cut the string short");
                if (d == '\\' && i + 1 < len && text[i + 1] != '\n' && text[i + 1] != '\0')
                    u = 2;
                i += u;
            }
            i++; /* an unclosed string: libconfig reports it */
        } else if (c == '@') {
            if (len - i >= 8 && memcmp(text + i, "@include", 8) == 0)
                return fail_at(ld, file, line,
                               "@include is not supported: put the settings in a conf.d/ drop-in");
            i++;
        } else if (isalpha(c) || c == '*') {
            while (i < len && (isalnum((unsigned char)text[i]) || text[i] == '_' ||
                               text[i] == '-' || text[i] == '*'))
                i++;
        } else if (isdigit(c) || ((c == '-' || c == '+' || c == '.') && i + 1 < len &&
                                  isdigit((unsigned char)text[i + 1]))) {
            size_t start = i++;
            while (i < len && (isalnum((unsigned char)text[i]) || text[i] == '.' ||
                               ((text[i] == '-' || text[i] == '+') &&
                                (text[i - 1] == 'e' || text[i - 1] == 'E'))))
                i++;
            if (check_int_literal(ld, file, line, text + start, i - start) != SEAM_OK)
                return ld->status;
        } else {
            i++;
        }
    }
    return SEAM_OK;
}

static int load_media(loader *ld, const config_setting_t *s);

static int load_file(loader *ld, const char *file)
{
    struct stat st;
    char *text = NULL;
    size_t len = 0;
    if (read_conf_text(ld, file, &st, &text, &len) != SEAM_OK)
        return ld->status;
    if (check_conf_text(ld, file, text, len) != SEAM_OK) {
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
        return fail_nomem(ld);
    }

    config_t cf;
    config_init(&cf);
    int ok = config_read_string(&cf, text);
    free(text);
    if (!ok) {
        fail_at(ld, config_error_file(&cf) ? config_error_file(&cf) : file,
                config_error_line(&cf), "%s", config_error_text(&cf));
        config_destroy(&cf);
        return ld->status;
    }

    const config_setting_t *root = config_root_setting(&cf);
    if (!tree_is_whole(root)) {
        config_destroy(&cf);
        return fail_nomem(ld);
    }
    for (int i = 0; i < config_setting_length(root) && ld->status == SEAM_OK; i++) {
        const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
        const char *key = config_setting_name(s);
        if (ld->in_catalog) {
            if (strcmp(key, "models") == 0)
                load_models(ld, s);
            else
                fail_setting(ld, s, "unknown setting %s in the model catalog (expected: models)",
                             key);
        } else if (strcmp(key, "plugin_path") == 0)
            load_plugin_path(ld, s);
        else if (strcmp(key, "providers") == 0)
            load_providers(ld, s);
        else if (strcmp(key, "chains") == 0)
            load_chains(ld, s);
        else if (strcmp(key, "roles") == 0)
            load_roles(ld, s);
        else if (strcmp(key, "models") == 0)
            load_models(ld, s);
        else if (strcmp(key, "model_catalog") == 0)
            load_model_catalog_key(ld, s);
        else if (strcmp(key, "tools") == 0)
            load_tools(ld, s);
        else if (strcmp(key, "cli") == 0)
            load_cli(ld, s);
        else if (strcmp(key, "state") == 0)
            load_state(ld, s);
        else if (strcmp(key, "serve") == 0)
            ; /* the gateway's own section: read and checked by `seam serve` (cli/serve/) */
        else if (strcmp(key, "media") == 0)
            load_media(ld, s);
        else
            fail_setting(ld, s, "unknown setting %s (expected one of: plugin_path, providers, "
                                "chains, roles, models, model_catalog, tools, cli, state, serve, media)",
                         key);
    }
    config_destroy(&cf);
    return ld->status;
}

/* ---- media ----------------------------------------------------------------------------------------------- */

static const char media_keys[] =
    "store, inline_image_bytes, inline_audio_bytes, inline_video_bytes, inline_document_bytes, "
    "max_parts, max_message_bytes, allow_private_urls, fetch_urls, job_poll_ms, job_poll_max_ms, "
    "job_deadline_ms";

/* media = { ... }: the store's directory and the intake limits. A drop-in
 * may set any key again: the last file read wins, key by key. */
static int load_media(loader *ld, const config_setting_t *s)
{
    if (expect_group(ld, s, "media") != SEAM_OK)
        return ld->status;
    seam_conf_media *m = &ld->conf->media;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *key = config_setting_name(e);
        char path[PATH_MAX_LEN];
        join_path(path, "media", key);
        int rc;
        if (strcmp(key, "store") == 0) {
            char *v = NULL;
            rc = read_string(ld, e, path, &v);
            if (rc == SEAM_OK) {
                free(m->store);
                m->store = resolve_path(ld, v);
                free(v);
                if (!m->store)
                    rc = fail_nomem(ld);
            }
        } else if (strcmp(key, "inline_image_bytes") == 0)
            rc = read_int64(ld, e, path, R_MEDIA_BYTES, &m->inline_image_bytes);
        else if (strcmp(key, "inline_audio_bytes") == 0)
            rc = read_int64(ld, e, path, R_MEDIA_BYTES, &m->inline_audio_bytes);
        else if (strcmp(key, "inline_video_bytes") == 0)
            rc = read_int64(ld, e, path, R_MEDIA_BYTES, &m->inline_video_bytes);
        else if (strcmp(key, "inline_document_bytes") == 0)
            rc = read_int64(ld, e, path, R_MEDIA_BYTES, &m->inline_document_bytes);
        else if (strcmp(key, "max_parts") == 0)
            rc = read_int64(ld, e, path, R_MEDIA_PARTS, &m->max_parts);
        else if (strcmp(key, "max_message_bytes") == 0)
            rc = read_int64(ld, e, path, R_MEDIA_BYTES, &m->max_message_bytes);
        else if (strcmp(key, "job_poll_ms") == 0)
            rc = read_int64(ld, e, path, R_MEDIA_JOB_MS, &m->job_poll_ms);
        else if (strcmp(key, "job_poll_max_ms") == 0)
            rc = read_int64(ld, e, path, R_MEDIA_JOB_MS, &m->job_poll_max_ms);
        else if (strcmp(key, "job_deadline_ms") == 0)
            rc = read_int64(ld, e, path, R_MEDIA_JOB_MS, &m->job_deadline_ms);
        else if (strcmp(key, "allow_private_urls") == 0 || strcmp(key, "fetch_urls") == 0) {
            if (config_setting_type(e) != CONFIG_TYPE_BOOL)
                rc = fail_type(ld, e, path, "a boolean");
            else {
                *(key[0] == 'a' ? &m->allow_private_urls : &m->fetch_urls) =
                    config_setting_get_bool(e);
                rc = SEAM_OK;
            }
        } else
            rc = fail_unknown(ld, e, "media", media_keys);
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
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
        return fail_nomem(ld);
    }
    free(main_dir);

    DIR *d = opendir(dir.data);
    if (!d) {
        int e = errno;
        int rc = SEAM_OK;
        if (e != ENOENT && e != ENOTDIR)
            rc = fail_at(ld, dir.data, 0, "cannot read: %s", strerror(e));
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
        if (!name || grow((void **)&names, &cap, n, sizeof *names) != SEAM_OK) {
            free(name);
            fail_nomem(ld);
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
            fail_nomem(ld);
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

/* ---- checks across files ---------------------------------------------------------------------------------- */

static int check_fallback(loader *ld, const seam_conf_chain *ch, const char *which,
                          const char *target, int line)
{
    if (target && !seam_conf_find_chain(ld->conf, target))
        return fail_at(ld, ch->file, line, "chains.%s.%s names chain \"%s\", which is not defined",
                       ch->name, which, target);
    return SEAM_OK;
}

static int check_references(loader *ld)
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
                    return fail_nomem(ld);
                }
                if (add_warning(ld, w.data) != SEAM_OK)
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
            return fail_at(ld, ld->role_origins[i].file, ld->role_origins[i].line,
                           "roles.%s names chain \"%s\", which is not defined", c->roles[i].name,
                           c->roles[i].chain);
    return SEAM_OK;
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
            return fail_nomem(ld);
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
            fail_nomem(&ld);
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
            fail_nomem(&ld);
        else if (load_file(&ld, path) == SEAM_OK)
            load_conf_d(&ld, path);
        if (ld.status == SEAM_OK)
            check_references(&ld);
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
        free_provider(&conf->providers[i]);
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
    free_state(&conf->state);
    for (size_t i = 0; i < conf->n_chains; i++)
        free_chain(&conf->chains[i]);
    free(conf->chains);
    for (size_t i = 0; i < conf->n_roles; i++) {
        free(conf->roles[i].name);
        free(conf->roles[i].chain);
        free(conf->roles[i].file);
    }
    free(conf->roles);
    for (size_t i = 0; i < conf->n_tools; i++)
        free_tool(&conf->tools[i]);
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
