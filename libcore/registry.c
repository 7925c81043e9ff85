/* registry.c — plugin discovery and loading with libltdl. Owns the ABI check
 * (read `seam_plugin_abi` before running any plugin code), the registrar handed
 * to seam_plugin_init, the refusal reasons recorded per file, and balanced
 * init/exit of libltdl and of each plugin. Every libltdl call is serialized by
 * one process-wide mutex: libltdl keeps global state. */
#include "config.h"
#include "registry.h"

#include <dirent.h>
#include <errno.h>
#include <ltdl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The members every vtable must have, i.e. the ABI 1.0 table up to classify_error. */
#define SEAM_VTABLE_MIN_SIZE (offsetof(seam_provider_vtable, classify_error) + sizeof(void *))

static pthread_mutex_t ltdl_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct plugin_rec {
    char *file;
    uint32_t abi;
    int loaded;
    char *reason;
    seam_buf ids;
    lt_dlhandle handle;
} plugin_rec;

typedef struct provider_rec {
    seam_provider_vtable vt; /* the core's view, later members NULL for old plugins */
    size_t plugin;
} provider_rec;

struct seam_registry {
    plugin_rec *plugins;
    size_t n_plugins;
    provider_rec *providers;
    size_t n_providers;
};

struct seam_registrar {
    seam_registry *reg;
    size_t plugin;
    int added;
    seam_buf refusals;
};

int seam_registry_new(seam_registry **out, seam_error *err)
{
    seam_registry *r = calloc(1, sizeof *r);
    if (!r)
        return SEAM_ERR_NOMEM;
    pthread_mutex_lock(&ltdl_lock);
    int rc = lt_dlinit();
    pthread_mutex_unlock(&ltdl_lock);
    if (rc != 0) {
        free(r);
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "cannot initialise libltdl");
        return SEAM_ERR_PLUGIN;
    }
    *out = r;
    return SEAM_OK;
}

void seam_vtable_view(const seam_provider_vtable *vt, seam_provider_vtable *out)
{
    memset(out, 0, sizeof *out);
    size_t n = vt->size < sizeof *out ? vt->size : sizeof *out;
    memcpy(out, vt, n);
}

static plugin_rec *add_plugin(seam_registry *r, const char *file)
{
    plugin_rec *p = realloc(r->plugins, (r->n_plugins + 1) * sizeof *p);
    if (!p)
        return NULL;
    r->plugins = p;
    p = &r->plugins[r->n_plugins];
    memset(p, 0, sizeof *p);
    p->file = strdup(file);
    if (!p->file)
        return NULL;
    r->n_plugins++;
    return p;
}

static void refuse(plugin_rec *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void refuse(plugin_rec *p, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->loaded = 0;
    free(p->reason);
    p->reason = strdup(msg);
}

const seam_provider_vtable *seam_registry_find(const seam_registry *r, const char *id)
{
    if (!r || !id)
        return NULL;
    for (size_t i = 0; i < r->n_providers; i++)
        if (strcmp(r->providers[i].vt.id, id) == 0)
            return &r->providers[i].vt;
    return NULL;
}

int seam_registrar_add(seam_registrar *rg, const seam_provider_vtable *vt)
{
    if (!rg || !vt)
        return SEAM_ERR_INVALID;
    seam_registry *r = rg->reg;
    const char *why = NULL;
    char msg[300];
    if (SEAM_PLUGIN_ABI_MAJOR_OF(vt->abi_version) != SEAM_PLUGIN_ABI_MAJOR) {
        snprintf(msg, sizeof msg, "a provider vtable declares ABI %u.%u, this seam speaks ABI %u.%u",
                 SEAM_PLUGIN_ABI_MAJOR_OF(vt->abi_version), SEAM_PLUGIN_ABI_MINOR_OF(vt->abi_version),
                 SEAM_PLUGIN_ABI_MAJOR, SEAM_PLUGIN_ABI_MINOR);
        why = msg;
    } else if (vt->size < SEAM_VTABLE_MIN_SIZE) {
        snprintf(msg, sizeof msg, "provider vtable size %u is smaller than the ABI minimum %zu",
                 vt->size, (size_t)SEAM_VTABLE_MIN_SIZE);
        why = msg;
    } else if (!vt->id || !*vt->id) {
        why = "provider vtable has no id";
    } else if (!vt->create || !vt->destroy || !vt->encode || !vt->decoder_new || !vt->decoder_free ||
               !vt->decode_event || !vt->decode_response || !vt->classify_error) {
        snprintf(msg, sizeof msg, "provider \"%s\" lacks a mandatory vtable member", vt->id);
        why = msg;
    } else if (seam_registry_find(r, vt->id)) {
        const char *owner = "another plugin";
        for (size_t i = 0; i < r->n_providers; i++)
            if (strcmp(r->providers[i].vt.id, vt->id) == 0)
                owner = r->plugins[r->providers[i].plugin].file;
        snprintf(msg, sizeof msg, "provider id \"%s\" is already registered by %s", vt->id, owner);
        why = msg;
    }
    if (why) {
        if (rg->refusals.len)
            seam_buf_puts(&rg->refusals, "; ");
        seam_buf_puts(&rg->refusals, why);
        return SEAM_ERR_PLUGIN;
    }
    provider_rec *p = realloc(r->providers, (r->n_providers + 1) * sizeof *p);
    if (!p)
        return SEAM_ERR_NOMEM;
    r->providers = p;
    seam_vtable_view(vt, &p[r->n_providers].vt);
    p[r->n_providers].plugin = rg->plugin;
    r->n_providers++;
    plugin_rec *pl = &r->plugins[rg->plugin];
    if (pl->ids.len)
        seam_buf_puts(&pl->ids, ",");
    seam_buf_puts(&pl->ids, vt->id);
    rg->added++;
    return SEAM_OK;
}

/* Group- or world-writable: anyone else could swap the code we are about to run. */
static const char *unsafe_mode(const char *dir, const char *file)
{
    struct stat st;
    if (stat(dir, &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)))
        return "its directory is writable by group or others";
    if (stat(file, &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)))
        return "the file is writable by group or others";
    return NULL;
}

static void drop_providers_of(seam_registry *r, size_t plugin)
{
    size_t w = 0;
    for (size_t i = 0; i < r->n_providers; i++)
        if (r->providers[i].plugin != plugin)
            r->providers[w++] = r->providers[i];
    r->n_providers = w;
}

static void load_file(seam_registry *r, const char *dir, const char *path)
{
    plugin_rec *p = add_plugin(r, path);
    if (!p)
        return;
    size_t idx = (size_t)(p - r->plugins);
    const char *unsafe = unsafe_mode(dir, path);
    if (unsafe) {
        refuse(p, "%s", unsafe);
        return;
    }
    pthread_mutex_lock(&ltdl_lock);
    lt_dladvise advise;
    lt_dlhandle h = NULL;
    if (lt_dladvise_init(&advise) == 0) {
        lt_dladvise_local(&advise);
        h = lt_dlopenadvise(path, advise);
        lt_dladvise_destroy(&advise);
    }
    const char *dlerr = h ? NULL : lt_dlerror();
    char dlmsg[256];
    seam_strlcpy(dlmsg, dlerr ? dlerr : "unknown error", sizeof dlmsg);
    const uint32_t *abi = h ? (const uint32_t *)lt_dlsym(h, "seam_plugin_abi") : NULL;
    int (*init)(seam_registrar *) = h ? (int (*)(seam_registrar *))lt_dlsym(h, "seam_plugin_init") : NULL;
    pthread_mutex_unlock(&ltdl_lock);

    if (!h) {
        refuse(p, "cannot be loaded: %s", dlmsg);
        return;
    }
    if (!abi || !init) {
        refuse(p, "not a seam plugin: missing entry point %s",
               !abi ? "seam_plugin_abi" : "seam_plugin_init");
    } else {
        p->abi = *abi;
        if (SEAM_PLUGIN_ABI_MAJOR_OF(*abi) != SEAM_PLUGIN_ABI_MAJOR) {
            refuse(p, "built for plugin ABI %u.%u, this seam speaks ABI %u.%u (major versions differ)",
                   SEAM_PLUGIN_ABI_MAJOR_OF(*abi), SEAM_PLUGIN_ABI_MINOR_OF(*abi),
                   SEAM_PLUGIN_ABI_MAJOR, SEAM_PLUGIN_ABI_MINOR);
        } else {
            seam_registrar rg = { r, idx, 0, { 0 } };
            int rc = init(&rg);
            p = &r->plugins[idx];
            if (rc != SEAM_OK || rg.added == 0) {
                drop_providers_of(r, idx);
                seam_buf_reset(&p->ids);
                if (rg.refusals.len)
                    refuse(p, "%s", rg.refusals.data);
                else if (rc != SEAM_OK)
                    refuse(p, "seam_plugin_init failed (status %d)", rc);
                else
                    refuse(p, "seam_plugin_init registered no provider");
            } else {
                p->loaded = 1;
                p->handle = h;
                if (rg.refusals.len) /* loaded, but some of its providers were refused */
                    p->reason = strdup(rg.refusals.data);
            }
            seam_buf_free(&rg.refusals);
        }
    }
    if (!p->loaded) {
        pthread_mutex_lock(&ltdl_lock);
        lt_dlclose(h);
        pthread_mutex_unlock(&ltdl_lock);
    }
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void seam_registry_load_dir(seam_registry *r, const char *dir)
{
    if (!r || !dir || !*dir)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (de->d_name[0] == '.' || len < 4 || strcmp(de->d_name + len - 3, ".so") != 0)
            continue;
        char **nn = realloc(names, (n + 1) * sizeof *nn);
        if (!nn)
            break;
        names = nn;
        if ((names[n] = strdup(de->d_name)) != NULL)
            n++;
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++) {
        seam_buf path = { 0 };
        if (seam_buf_printf(&path, "%s/%s", dir, names[i]) == SEAM_OK)
            load_file(r, dir, path.data);
        seam_buf_free(&path);
        free(names[i]);
    }
    free(names);
}

void seam_registry_free(seam_registry *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&ltdl_lock);
    for (size_t i = r->n_plugins; i-- > 0;) {
        plugin_rec *p = &r->plugins[i];
        if (p->handle) {
            void (*exit_fn)(void) = (void (*)(void))lt_dlsym(p->handle, "seam_plugin_exit");
            if (exit_fn)
                exit_fn();
            lt_dlclose(p->handle);
        }
        free(p->file);
        free(p->reason);
        seam_buf_free(&p->ids);
    }
    lt_dlexit();
    pthread_mutex_unlock(&ltdl_lock);
    free(r->plugins);
    free(r->providers);
    free(r);
}

size_t seam_registry_plugin_count(const seam_registry *r)
{
    return r ? r->n_plugins : 0;
}

int seam_registry_plugin_at(const seam_registry *r, size_t i, seam_plugin_info *info)
{
    if (!r || !info || i >= r->n_plugins)
        return SEAM_ERR_INVALID;
    const plugin_rec *p = &r->plugins[i];
    info->file = p->file;
    info->abi_version = p->abi;
    info->loaded = p->loaded;
    info->reason = p->reason;
    info->provider_ids = p->ids.data ? p->ids.data : "";
    return SEAM_OK;
}
