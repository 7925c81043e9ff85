/* conf_state.c — the `state` group: where cooldowns, leases and budgets
 * live (local to each process, or a state backend plugin's store such as
 * redis) and how to reach it. One state section in all files; the personal
 * conf's replaces the system conf's, whole. */
#include "config.h"
#include "conf_internal.h"

#include <stdlib.h>
#include <string.h>

void conf_free_state(seam_conf_state *st)
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
    conf_join_path(path, "state", key);
    int64_t v;
    if (strcmp(key, "backend") == 0) {
        if (conf_read_string(ld, m, path, &st->backend) != SEAM_OK)
            return ld->status;
        if (!backend_id_ok(st->backend))
            return fail_setting(ld, m, "%s must be \"local\" or a state backend plugin's id "
                                       "such as \"redis\" (a-z, 0-9, _ and -), not \"%s\"",
                                path, st->backend);
        return SEAM_OK;
    }
    ld->state_keys_given = 1;
    if (strcmp(key, "host") == 0)
        return conf_read_string(ld, m, path, &st->host);
    if (strcmp(key, "socket") == 0) {
        if (conf_read_string(ld, m, path, &st->socket) != SEAM_OK)
            return ld->status;
        char *abs = conf_resolve_path(ld, st->socket);
        if (!abs)
            return conf_fail_nomem(ld);
        free(st->socket);
        st->socket = abs;
        return SEAM_OK;
    }
    if (strcmp(key, "port") == 0) {
        if (conf_read_int64(ld, m, path, R_STATE_PORT, &v) != SEAM_OK)
            return ld->status;
        st->port = (int)v;
        return SEAM_OK;
    }
    if (strcmp(key, "db") == 0) {
        if (conf_read_int64(ld, m, path, R_STATE_DB, &v) != SEAM_OK)
            return ld->status;
        st->db = (int)v;
        return SEAM_OK;
    }
    if (strcmp(key, "timeout_ms") == 0)
        return conf_read_int64(ld, m, path, R_STATE_TIMEOUT_MS, &st->timeout_ms);
    if (strcmp(key, "prefix") == 0) {
        if (conf_read_string(ld, m, path, &st->prefix) != SEAM_OK)
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
        return conf_read_string(ld, m, path, &st->password_env);
    if (strcmp(key, "password_file") == 0) {
        if (conf_read_string(ld, m, path, &st->password_file) != SEAM_OK)
            return ld->status;
        char *abs = conf_resolve_path(ld, st->password_file);
        if (!abs)
            return conf_fail_nomem(ld);
        free(st->password_file);
        st->password_file = abs;
        return SEAM_OK;
    }
    if (strcmp(key, "password") == 0) {
        if (config_setting_type(m) != CONFIG_TYPE_STRING)
            return conf_fail_type(ld, m, path, "a string");
        const char *pw = config_setting_get_string(m);
        if (!pw || !*pw)
            return fail_setting(ld, m, "%s must be a non-empty string", path);
        seam_secret_free(st->password);
        if (!(st->password = strdup(pw)))
            return conf_fail_nomem(ld);
        if (ld->group_or_other_access) {
            seam_buf w = {0};
            if (seam_buf_printf(&w,
                                "%s:%d: state.password is inline in a file readable by group or "
                                "others (mode %04o); use password_env or password_file instead, "
                                "or chmod 600 %s",
                                conf_setting_file(ld, m), conf_setting_line(m), ld->file_mode,
                                conf_setting_file(ld, m)) != SEAM_OK) {
                seam_buf_free(&w);
                return conf_fail_nomem(ld);
            }
            return conf_add_warning(ld, w.data);
        }
        return SEAM_OK;
    }
    return conf_fail_unknown(ld, m, "state", state_keys);
}

int conf_load_state(loader *ld, const config_setting_t *s)
{
    if (conf_expect_group(ld, s, "state") != SEAM_OK)
        return ld->status;
    seam_conf_state *st = &ld->conf->state;
    if (ld->state_seen == 1)
        return fail_setting(ld, s, "state is already set in %s:%d (one state section in all "
                                   "files)", st->file, st->line);
    if (ld->state_seen == 2)
        conf_free_state(st); /* the personal conf's section replaces the system conf's, whole */
    ld->state_seen = 1;
    ld->state_keys_given = 0;
    free(st->file);
    if (!(st->file = strdup(conf_setting_file(ld, s))))
        return conf_fail_nomem(ld);
    st->line = conf_setting_line(s);
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
            return conf_fail_nomem(ld);
        }
        return conf_add_warning(ld, w.data);
    }
    return SEAM_OK;
}
