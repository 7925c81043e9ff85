/* provider_options.c — owns the selection of a codec's provider options:
 * namespaces, known keys, extra_body and the notes about dropped keys (the
 * rules are in provider_options.h). Compiled into each plugin. */
#include "config.h"

#include "provider_options.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define EXTRA_BODY "extra_body"

static int note(popt_view *v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int note(popt_view *v, const char *fmt, ...)
{
    char line[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (v->notes.len && sb_puts(&v->notes, "\n") != SEAM_OK)
        return SEAM_ERR_NOMEM;
    return sb_puts(&v->notes, line);
}

/* Shares val into *into[key], making *into first. Two objects of the same
 * name (generationConfig in two namespaces) are merged one level, the later
 * one's members winning. */
static int put(json_object **into, const char *key, json_object *val)
{
    if (!*into && !(*into = json_object_new_object()))
        return SEAM_ERR_NOMEM;
    json_object *have = jget(*into, key);
    if (jis(have, json_type_object) && jis(val, json_type_object)) {
        json_object *merged = NULL;
        if (json_object_deep_copy(have, &merged, NULL) != 0)
            return SEAM_ERR_NOMEM;
        json_object_object_foreach(val, k, v)
        {
            if (json_object_object_add(merged, k, json_object_get(v)) != 0) {
                json_object_put(v);
                json_object_put(merged);
                return SEAM_ERR_NOMEM;
            }
        }
        if (json_object_object_add(*into, key, merged) != 0) {
            json_object_put(merged);
            return SEAM_ERR_NOMEM;
        }
        return SEAM_OK;
    }
    if (json_object_object_add(*into, key, json_object_get(val)) != 0) {
        json_object_put(val);
        return SEAM_ERR_NOMEM;
    }
    return SEAM_OK;
}

/* Members of an extra_body object into v->extra. */
static int take_extra(popt_view *v, json_object *extra, const char *who)
{
    if (!jis(extra, json_type_object))
        return note(v, "%s: provider option %s is not an object: ignored", who, EXTRA_BODY);
    json_object_object_foreach(extra, key, val)
    {
        if (put(&v->extra, key, val) != SEAM_OK)
            return SEAM_ERR_NOMEM;
    }
    return SEAM_OK;
}

/* The members of one namespace (or the conf's group). */
static int take_namespace(popt_view *v, json_object *ns, popt_known_fn known, void *ud,
                          const char *who)
{
    json_object_object_foreach(ns, key, val)
    {
        int rc;
        if (strcmp(key, EXTRA_BODY) == 0)
            rc = take_extra(v, val, who);
        else if (known(key, ud))
            rc = put(&v->own, key, val);
        else
            rc = note(v,
                      "%s: unknown provider option \"%.64s\" dropped (raw body fields go in "
                      "extra_body)",
                      who, key);
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}

static int is_namespace(const char *key, const char *const *ns, size_t n_ns)
{
    for (size_t i = 0; i < n_ns; i++)
        if (ns[i] && strcmp(ns[i], key) == 0)
            return 1;
    return 0;
}

int popt_select(json_object *opts, int conf, const char *const *ns, size_t n_ns,
                popt_known_fn known, void *ud, const char *who, popt_view *v)
{
    memset(v, 0, sizeof *v);
    if (!jis(opts, json_type_object))
        return SEAM_OK;
    int rc = SEAM_OK;
    if (conf) {
        rc = take_namespace(v, opts, known, ud, who);
    } else {
        /* Flat members first, so that every namespace wins over them. */
        json_object_object_foreach(opts, key, val)
        {
            if (rc != SEAM_OK)
                break;
            if (is_namespace(key, ns, n_ns))
                continue;
            if (strcmp(key, EXTRA_BODY) == 0)
                rc = note(v,
                          "%s: provider option \"%s\" outside a provider's namespace dropped "
                          "(e.g. {\"openai\": {\"extra_body\": {...}}})",
                          who, key);
            else if (known(key, ud))
                rc = put(&v->own, key, val);
            else if (!jis(val, json_type_object)) /* an object: another provider's namespace */
                rc = note(v, "%s: unknown provider option \"%.64s\" dropped", who, key);
        }
        for (size_t i = 0; rc == SEAM_OK && i < n_ns; i++) {
            if (!ns[i] || is_namespace(ns[i], ns, i))
                continue;
            json_object *mine = NULL;
            if (!json_object_object_get_ex(opts, ns[i], &mine))
                continue;
            if (!jis(mine, json_type_object))
                rc = note(v, "%s: provider options namespace \"%.64s\" is not an object: ignored",
                          who, ns[i]);
            else
                rc = take_namespace(v, mine, known, ud, who);
        }
    }
    if (rc != SEAM_OK || v->notes.failed) {
        popt_view_free(v);
        return SEAM_ERR_NOMEM;
    }
    return SEAM_OK;
}

void popt_view_free(popt_view *v)
{
    if (!v)
        return;
    json_object_put(v->own);
    json_object_put(v->extra);
    sb_free(&v->notes);
    v->own = v->extra = NULL;
}

int popt_merge_extra(json_object *body, json_object *extra)
{
    if (!jis(extra, json_type_object))
        return SEAM_OK;
    json_object_object_foreach(extra, key, val)
    {
        if (!val) {
            json_object_object_del(body, key);
            continue;
        }
        if (json_object_object_add(body, key, json_object_get(val)) != 0) {
            json_object_put(val);
            return SEAM_ERR_NOMEM;
        }
    }
    return SEAM_OK;
}

int popt_warn(seam_http_request *hr, const char *notes)
{
    int rc = SEAM_OK;
    while (notes && *notes && rc == SEAM_OK) {
        const char *end = strchr(notes, '\n');
        size_t n = end ? (size_t)(end - notes) : strlen(notes);
        char line[320];
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, notes, n);
        line[n] = '\0';
        rc = seam_http_request_warn(hr, line);
        notes = end ? end + 1 : notes + strlen(notes);
    }
    return rc;
}
