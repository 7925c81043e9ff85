/* conf_providers.c — the `providers` group: one provider per name, with its
 * plugin, base URL, credentials (one key or a pool), timeouts, TLS trust and
 * the plugin's own `options` (kept as JSON text). Plain http:// to another
 * machine, or an inline key in a file others can read, is a warning. */
#include "config.h"
#include "conf_internal.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_TIMEOUT_MS 600000
#define DEFAULT_CONNECT_TIMEOUT_MS 10000
#define DEFAULT_IDLE_TIMEOUT_MS 60000
#define DEFAULT_MAX_RESPONSE_BYTES ((int64_t)64 * 1024 * 1024)
/* The longest default_model accepted: real model ids are far shorter. */
#define SEAM_MAX_MODEL_ID 256

void conf_free_provider(seam_conf_provider *p)
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
    conf_free_provider(&c->providers[i]);
    conf_remove_at(c->providers, &c->n_providers, i, sizeof *c->providers);
    ld->base_providers--;
    return 1;
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
        return conf_fail_type(ld, s, path, "an array of strings [ \"...\" ]");
    int n = config_setting_length(s);
    if (n == 0)
        return fail_setting(ld, s, "%s must name at least one", path);
    for (size_t i = 0; i < *n_out; i++)
        free((*out)[i]);
    free(*out);
    *out = calloc((size_t)n, sizeof **out);
    *n_out = 0;
    if (!*out)
        return conf_fail_nomem(ld);
    for (int i = 0; i < n; i++) {
        char epath[PATH_MAX_LEN + 16];
        snprintf(epath, sizeof epath, "%s[%d]", path, i);
        char *v = NULL;
        if (conf_read_string(ld, config_setting_get_elem(s, (unsigned)i), epath, &v) != SEAM_OK)
            return ld->status;
        if (resolve) {
            char *abs = conf_resolve_path(ld, v);
            free(v);
            if (!abs)
                return conf_fail_nomem(ld);
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
                        conf_setting_file(ld, m), conf_setting_line(m), p->name, n ? host : "(no host)") !=
        SEAM_OK) {
        seam_buf_free(&w);
        return conf_fail_nomem(ld);
    }
    return conf_add_warning(ld, w.data);
}

/* A string that must be one of names[] (NULL-terminated); *out gets its index. */
static int read_choice(loader *ld, const config_setting_t *s, const char *path,
                       const char *const *names, const char *expected, int *out)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return conf_fail_type(ld, s, path, "a string");
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
    conf_join_path(path, parent, key);
    if (strcmp(key, "plugin") == 0)
        return conf_read_string(ld, m, path, &p->plugin);
    if (strcmp(key, "default_model") == 0) {
        if (conf_read_string(ld, m, path, &p->default_model) != SEAM_OK)
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
        if (conf_read_string(ld, m, path, &p->base_url) != SEAM_OK)
            return ld->status;
        return warn_plain_http(ld, p, m);
    }
    if (strcmp(key, "api_key_env") == 0) {
        if (config_setting_type(m) == CONFIG_TYPE_STRING)
            return conf_read_string(ld, m, path, &p->api_key_env);
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
                rc = conf_fail_nomem(ld);
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
        return conf_read_string(ld, m, path, &p->api_key_command);
    if (strcmp(key, "api_key_file") == 0) {
        char *file = NULL;
        if (conf_read_string(ld, m, path, &file) != SEAM_OK)
            return ld->status;
        free(p->api_key_file);
        p->api_key_file = conf_resolve_path(ld, file);
        free(file);
        return p->api_key_file ? SEAM_OK : conf_fail_nomem(ld);
    }
    if (strcmp(key, "api_key") == 0) {
        /* Read by hand: read_string's messages are fine, but the old value must
         * be wiped, not just freed. */
        if (config_setting_type(m) != CONFIG_TYPE_STRING)
            return conf_fail_type(ld, m, path, "a string");
        const char *v = config_setting_get_string(m);
        if (!v || !*v)
            return fail_setting(ld, m, "%s must be a non-empty string", path);
        seam_secret_free(p->api_key);
        p->api_key = strdup(v);
        if (!p->api_key)
            return conf_fail_nomem(ld);
        if (ld->group_or_other_access) {
            seam_buf w = {0};
            if (seam_buf_printf(&w,
                                "%s:%d: provider \"%s\" has an inline api_key in a file readable "
                                "by group or others (mode %04o); use api_key_env, api_key_file "
                                "or api_key_command instead, or chmod 600 %s",
                                conf_setting_file(ld, m), conf_setting_line(m), p->name, ld->file_mode,
                                conf_setting_file(ld, m)) != SEAM_OK) {
                seam_buf_free(&w);
                return conf_fail_nomem(ld);
            }
            return conf_add_warning(ld, w.data);
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
        return conf_read_int64(ld, m, path, R_KEY_TTL_MS, &p->api_key_ttl_ms);
    if (strcmp(key, "api_key_command_timeout_ms") == 0)
        return conf_read_int64(ld, m, path, R_KEY_COMMAND_TIMEOUT_MS, &p->api_key_command_timeout_ms);
    if (strcmp(key, "timeout_ms") == 0)
        return conf_read_int64(ld, m, path, R_TIMEOUT_MS, &p->timeout_ms);
    if (strcmp(key, "connect_timeout_ms") == 0)
        return conf_read_int64(ld, m, path, R_CONNECT_TIMEOUT_MS, &p->connect_timeout_ms);
    if (strcmp(key, "idle_timeout_ms") == 0)
        return conf_read_int64(ld, m, path, R_IDLE_TIMEOUT_MS, &p->idle_timeout_ms);
    if (strcmp(key, "max_response_bytes") == 0)
        return conf_read_int64(ld, m, path, R_MAX_RESPONSE_BYTES, &p->max_response_bytes);
    if (strcmp(key, "ca_file") == 0 || strcmp(key, "ca_path") == 0) {
        char *v = NULL;
        if (conf_read_string(ld, m, path, &v) != SEAM_OK)
            return ld->status;
        char **dst = key[3] == 'f' ? &p->ca_file : &p->ca_path;
        free(*dst);
        *dst = conf_resolve_path(ld, v);
        free(v);
        return *dst ? SEAM_OK : conf_fail_nomem(ld);
    }
    if (strcmp(key, "options") == 0)
        return conf_load_options(ld, m, path, &p->options_json);
    return conf_fail_unknown(ld, m, parent, provider_keys);
}

static int load_provider(loader *ld, const config_setting_t *s)
{
    seam_conf *c = ld->conf;
    const char *name = config_setting_name(s);
    char path[PATH_MAX_LEN];
    conf_join_path(path, "providers", name);
    if (conf_expect_group(ld, s, path) != SEAM_OK)
        return ld->status;
    const seam_conf_provider *prev = replace_provider(ld, name) ? NULL : seam_conf_find_provider(c, name);
    if (prev)
        return fail_setting(ld, s, "provider \"%s\" already defined in %s:%d", name, prev->file,
                            prev->line);

    if (conf_grow((void **)&c->providers, &ld->cap_providers, c->n_providers, sizeof *c->providers) !=
        SEAM_OK)
        return conf_fail_nomem(ld);
    seam_conf_provider *p = &c->providers[c->n_providers++];
    memset(p, 0, sizeof *p);
    p->name = strdup(name);
    p->file = strdup(conf_setting_file(ld, s));
    p->line = conf_setting_line(s);
    p->timeout_ms = DEFAULT_TIMEOUT_MS;
    p->connect_timeout_ms = DEFAULT_CONNECT_TIMEOUT_MS;
    p->idle_timeout_ms = DEFAULT_IDLE_TIMEOUT_MS;
    p->max_response_bytes = DEFAULT_MAX_RESPONSE_BYTES;
    p->api_key_command_timeout_ms = SEAM_DEFAULT_KEY_COMMAND_TIMEOUT_MS;
    if (!p->name || !p->file)
        return conf_fail_nomem(ld);

    for (int i = 0; i < config_setting_length(s); i++)
        if (provider_member(ld, p, config_setting_get_elem(s, (unsigned)i), path) != SEAM_OK)
            return ld->status;

    if (!p->plugin && !(p->plugin = strdup(name)))
        return conf_fail_nomem(ld);
    if (!p->options_json && !(p->options_json = strdup("{}")))
        return conf_fail_nomem(ld);
    return SEAM_OK;
}

int conf_load_providers(loader *ld, const config_setting_t *s)
{
    if (conf_expect_group(ld, s, "providers") != SEAM_OK)
        return ld->status;
    for (int i = 0; i < config_setting_length(s); i++)
        if (load_provider(ld, config_setting_get_elem(s, (unsigned)i)) != SEAM_OK)
            return ld->status;
    return SEAM_OK;
}
