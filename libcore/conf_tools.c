/* conf_tools.c — what the conf keeps for an application and does not use
 * itself: the `tools` group (commands an application such as the seam CLI
 * may offer the model; each schema must be a JSON object whose patterns PCRE2
 * compiles) and the `cli` group (the seam command's own settings, kept as
 * JSON). Running a tool is not the library's business. */
#include "config.h"
#include "conf_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void conf_free_tool(seam_conf_tool *t)
{
    free(t->name);
    free(t->description);
    free(t->parameters_json);
    free(t->command);
    free(t->file);
}
/* The overlay's replacing, as replace_provider (conf_providers.c). */
static int replace_tool(loader *ld, const char *name)
{
    seam_conf *c = ld->conf;
    const seam_conf_tool *t = seam_conf_find_tool(c, name);
    size_t i = t ? (size_t)(t - c->tools) : 0;
    if (!t || i >= ld->base_tools)
        return 0;
    conf_free_tool(&c->tools[i]);
    conf_remove_at(c->tools, &c->n_tools, i, sizeof *c->tools);
    ld->base_tools--;
    return 1;
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
        return conf_fail_type(ld, s, path, "a string holding a JSON Schema object");
    const char *v = config_setting_get_string(s);
    size_t len = v ? strlen(v) : 0;
    if (len >= INT_MAX)
        return fail_setting(ld, s, "%s is too long", path);
    json_tokener *tok = json_tokener_new();
    if (!tok)
        return conf_fail_nomem(ld);
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
        return conf_fail_nomem(ld);
    if (crc != SEAM_OK)
        rc = fail_setting(ld, s, "%s: %s", path, why);
    if (rc != SEAM_OK)
        return rc;
    free(*out);
    *out = strdup(v);
    return *out ? SEAM_OK : conf_fail_nomem(ld);
}

static int load_tool(loader *ld, const config_setting_t *s)
{
    seam_conf *c = ld->conf;
    const char *name = config_setting_name(s);
    char path[PATH_MAX_LEN];
    conf_join_path(path, "tools", name);
    if (conf_expect_group(ld, s, path) != SEAM_OK)
        return ld->status;
    const seam_conf_tool *prev = replace_tool(ld, name) ? NULL : seam_conf_find_tool(c, name);
    if (prev)
        return fail_setting(ld, s, "tool \"%s\" already defined in %s:%d", name, prev->file,
                            prev->line);
    if (strlen(name) > MAX_TOOL_NAME)
        return fail_setting(ld, s, "%s: a tool name has at most %d characters", path,
                            MAX_TOOL_NAME);

    if (conf_grow((void **)&c->tools, &ld->cap_tools, c->n_tools, sizeof *c->tools) != SEAM_OK)
        return conf_fail_nomem(ld);
    seam_conf_tool *t = &c->tools[c->n_tools++];
    memset(t, 0, sizeof *t);
    t->name = strdup(name);
    t->file = strdup(conf_setting_file(ld, s));
    t->line = conf_setting_line(s);
    if (!t->name || !t->file)
        return conf_fail_nomem(ld);

    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *m = config_setting_get_elem(s, (unsigned)i);
        const char *key = config_setting_name(m);
        char mpath[PATH_MAX_LEN];
        conf_join_path(mpath, path, key);
        int rc;
        if (strcmp(key, "description") == 0)
            rc = conf_read_string(ld, m, mpath, &t->description);
        else if (strcmp(key, "parameters") == 0)
            rc = read_schema(ld, m, mpath, &t->parameters_json);
        else if (strcmp(key, "command") == 0)
            rc = conf_read_string(ld, m, mpath, &t->command);
        else if (strcmp(key, "timeout_ms") == 0)
            rc = conf_read_int64(ld, m, mpath, R_TOOL_TIMEOUT_MS, &t->timeout_ms);
        else
            rc = conf_fail_unknown(ld, m, path, tool_keys);
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

int conf_load_tools(loader *ld, const config_setting_t *s)
{
    if (conf_expect_group(ld, s, "tools") != SEAM_OK)
        return ld->status;
    for (int i = 0; i < config_setting_length(s); i++)
        if (load_tool(ld, config_setting_get_elem(s, (unsigned)i)) != SEAM_OK)
            return ld->status;
    return SEAM_OK;
}

/* ---- cli: the seam command's own settings ------------------------------------ */

/* The `cli` group is the seam command's (conversation logs, model aliases,
 * templates): kept as JSON for it and not interpreted here. A later file's
 * members replace an earlier file's of the same name, so a personal conf
 * overlays the system one member by member. */
int conf_load_cli(loader *ld, const config_setting_t *s)
{
    if (conf_expect_group(ld, s, "cli") != SEAM_OK || conf_options_utf8(ld, s, "cli") != SEAM_OK)
        return ld->status;
    json_object *add = conf_setting_to_json(s);
    json_object *have = ld->conf->cli_json ? json_tokener_parse(ld->conf->cli_json)
                                           : json_object_new_object();
    if (!add || !have) {
        json_object_put(add);
        json_object_put(have);
        return conf_fail_nomem(ld);
    }
    json_object_object_foreach(add, key, val)
        json_object_object_add(have, key, json_object_get(val));
    char *copy = seam_json_print(have, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    json_object_put(add);
    json_object_put(have);
    if (!copy)
        return conf_fail_nomem(ld);
    free(ld->conf->cli_json);
    ld->conf->cli_json = copy;
    return SEAM_OK;
}
