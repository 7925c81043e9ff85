/* conf_read.c — the typed reads every group of the conf is read with
 * (conf_internal.h): a failure names FILE:LINE (the first one only, the rest
 * are not reported), a string is non-empty UTF-8, a path resolves against
 * the file that names it, a list of names maps to bits, an `options` group
 * becomes JSON text.
 *
 * Every number has a range (the table `ranges` below, documented in
 * seam.conf(5)); a value outside it is refused with FILE:LINE, so that no
 * consumer ever sees a value its arithmetic was not written for. */
#include "config.h"
#include "conf_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the range of every number (range_id: conf_internal.h) ----------------- */

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

/* ---- failing ------------------------------------------------------------------ */

int conf_fail_nomem(loader *ld)
{
    if (ld->status == SEAM_OK) {
        seam_error_set(ld->err, SEAM_ERROR_UNKNOWN, "out of memory reading the conf");
        ld->status = SEAM_ERR_NOMEM;
    }
    return ld->status;
}

int conf_fail_at(loader *ld, const char *file, int line, const char *fmt, ...)
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

const char *conf_setting_file(const loader *ld, const config_setting_t *s)
{
    const char *f = config_setting_source_file(s);
    return f ? f : ld->file;
}

int conf_setting_line(const config_setting_t *s)
{
    return (int)config_setting_source_line(s);
}

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

int conf_fail_type(loader *ld, const config_setting_t *s, const char *path, const char *want)
{
    return fail_setting(ld, s, "%s must be %s, not %s", path, want, type_name(s));
}

/* Length of the UTF-8 sequence at s (at most n bytes), 0 when invalid
 * (overlong forms, surrogates and values past U+10FFFF included). */
size_t conf_utf8_len(const unsigned char *s, size_t n)
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
void conf_join_path(char *out, const char *parent, const char *name)
{
    size_t used = 0;
    for (const char *parts[] = {parent, ".", name}, **part = parts; part < parts + 3; part++)
        for (const char *c = *part; *c && used + 1 < PATH_MAX_LEN; c++)
            out[used++] = *c;
    out[used] = '\0';
}

int conf_read_string(loader *ld, const config_setting_t *s, const char *path, char **out)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return conf_fail_type(ld, s, path, "a string");
    const char *v = config_setting_get_string(s);
    if (!v || !*v)
        return fail_setting(ld, s, "%s must be a non-empty string", path);
    /* The text of the file is UTF-8, but a \xNN escape can still make bytes
     * that are not: they would reach a request's JSON. */
    for (size_t i = 0, n = strlen(v); i < n;) {
        size_t u = conf_utf8_len((const unsigned char *)v + i, n - i);
        if (!u)
            return fail_setting(ld, s, "%s is not valid UTF-8 (a \\x escape?)", path);
        i += u;
    }
    free(*out);
    *out = strdup(v);
    return *out ? SEAM_OK : conf_fail_nomem(ld);
}

/* An integer inside ranges[r]. */
int conf_read_int64(loader *ld, const config_setting_t *s, const char *path, range_id r,
                      int64_t *out)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
        return conf_fail_type(ld, s, path, "an integer");
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

int conf_read_number(loader *ld, const config_setting_t *s, const char *path, double *out)
{
    int t = config_setting_type(s);
    if (t == CONFIG_TYPE_FLOAT)
        *out = config_setting_get_float(s);
    else if (t == CONFIG_TYPE_INT)
        *out = config_setting_get_int(s);
    else if (t == CONFIG_TYPE_INT64)
        *out = (double)config_setting_get_int64(s);
    else
        return conf_fail_type(ld, s, path, "a number");
    return SEAM_OK;
}

int conf_expect_group(loader *ld, const config_setting_t *s, const char *path)
{
    if (config_setting_type(s) != CONFIG_TYPE_GROUP)
        return conf_fail_type(ld, s, path, "a group { ... }");
    return SEAM_OK;
}

int conf_fail_unknown(loader *ld, const config_setting_t *s, const char *parent,
                        const char *known)
{
    return fail_setting(ld, s, "unknown setting %s.%s (expected one of: %s)", parent,
                        config_setting_name(s), known);
}

/* ---- paths ---------------------------------------------------------------------- */

/* A path from the conf: "~/x" is under $HOME, a relative one is under the
 * directory of the file that says it. */
char *conf_resolve_path(const loader *ld, const char *p)
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

/* Removes element i of an array of n elements of size elem. */
void conf_remove_at(void *arr, size_t *n, size_t i, size_t elem)
{
    char *a = arr;
    memmove(a + i * elem, a + (i + 1) * elem, (*n - i - 1) * elem);
    (*n)--;
}

int conf_grow(void **arr, size_t *cap, size_t n, size_t elem)
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

int conf_add_warning(loader *ld, char *text)
{
    seam_conf *c = ld->conf;
    if (!text || conf_grow((void **)&c->warnings, &ld->cap_warnings, c->n_warnings,
                      sizeof *c->warnings) != SEAM_OK) {
        free(text);
        return conf_fail_nomem(ld);
    }
    c->warnings[c->n_warnings++] = text;
    return SEAM_OK;
}

/* An array or list of names, each one of names[0..n), ORed into *bits. An
 * unknown name is refused as "PATH[i]: <before>"NAME"<after> (expected one of:
 * the names in order)". */
int conf_read_name_bits(loader *ld, const config_setting_t *s, const char *path,
                          const char *array_what, const name_bit *names, size_t n,
                          const char *before, const char *after, uint32_t *bits)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return conf_fail_type(ld, s, path, array_what);
    *bits = 0;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        char epath[PATH_MAX_LEN + 16];
        snprintf(epath, sizeof epath, "%s[%d]", path, i);
        if (config_setting_type(e) != CONFIG_TYPE_STRING)
            return conf_fail_type(ld, e, epath, "a string");
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

/* ---- options -> JSON ---------------------------------------------------------------------- */

json_object *conf_setting_to_json(const config_setting_t *s)
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
            json_object *v = conf_setting_to_json(config_setting_get_elem(s, (unsigned)i));
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
            json_object *v = conf_setting_to_json(m);
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
int conf_options_utf8(loader *ld, const config_setting_t *s, const char *path)
{
    int t = config_setting_type(s);
    if (t == CONFIG_TYPE_STRING) {
        const char *v = config_setting_get_string(s);
        for (size_t i = 0, n = v ? strlen(v) : 0; i < n;) {
            size_t u = conf_utf8_len((const unsigned char *)v + i, n - i);
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
            conf_join_path(mpath, path, name);
        else
            snprintf(mpath, sizeof mpath, "%.*s[%d]", PATH_MAX_LEN, path, i);
        if (conf_options_utf8(ld, m, mpath) != SEAM_OK)
            return ld->status;
    }
    return SEAM_OK;
}

int conf_load_options(loader *ld, const config_setting_t *s, const char *path, char **out)
{
    if (conf_expect_group(ld, s, path) != SEAM_OK || conf_options_utf8(ld, s, path) != SEAM_OK)
        return ld->status;
    json_object *obj = conf_setting_to_json(s);
    if (!obj)
        return conf_fail_nomem(ld);
    char *copy = seam_json_print(obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    json_object_put(obj);
    if (!copy)
        return conf_fail_nomem(ld);
    free(*out);
    *out = copy;
    return SEAM_OK;
}
