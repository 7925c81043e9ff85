/* registry.c — plugin discovery and loading with libltdl. Owns the search
 * list of plugin files (recorded at client creation, none opened), the lazy
 * resolution of a provider id to the one file that serves it (loaded on first
 * need, so a broken file never touches a command that does not use it), the
 * ownership rule for provider ids, the registrar handed to seam_plugin_init,
 * the refusal reasons recorded per file, and balanced init/exit of libltdl and
 * of each plugin. The checks made before any plugin code runs (trust, ELF,
 * ABI) live in pluginfile.c. A registry is shared by every thread of its
 * client: its state is guarded by its own lock; every libltdl call is also
 * serialized by one process-wide mutex, since libltdl keeps global state. */
#include "config.h"
#include "registry.h"
#include "pluginfile.h"

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
    char *stem; /* the file name without ".so": the provider id it has first claim on */
    uint32_t abi;
    int tried;  /* the load was attempted: loaded or refused */
    int loaded;
    char *reason;
    seam_buf ids;
    lt_dlhandle handle;
} plugin_rec;

/* A state backend (plugin.h): the core's view of its table. */
typedef struct state_rec {
    seam_state_vtable vt;
    size_t plugin;
} state_rec;

typedef struct provider_rec {
    seam_provider_vtable vt; /* the core's view, later members NULL for old plugins */
    size_t plugin;
} provider_rec;

struct seam_registry {
    pthread_mutex_t lock;
    plugin_rec *plugins;      /* fixed once the directories are scanned */
    size_t n_plugins;
    provider_rec **providers; /* each allocated alone: the vtables a client holds never move */
    size_t n_providers;
    state_rec **states;       /* likewise */
    size_t n_states;
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
    pthread_mutex_init(&r->lock, NULL);
    *out = r;
    return SEAM_OK;
}

void seam_vtable_view(const seam_provider_vtable *vt, seam_provider_vtable *out)
{
    memset(out, 0, sizeof *out);
    size_t n = vt->size < sizeof *out ? vt->size : sizeof *out;
    memcpy(out, vt, n);
}

static void add_plugin(seam_registry *r, const char *file)
{
    plugin_rec *p = realloc(r->plugins, (r->n_plugins + 1) * sizeof *p);
    if (!p)
        return;
    r->plugins = p;
    p = &r->plugins[r->n_plugins];
    memset(p, 0, sizeof *p);
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    p->file = strdup(file);
    p->stem = strndup(base, strlen(base) - 3); /* the scan kept only names ending ".so" */
    if (!p->file || !p->stem) {
        free(p->file);
        free(p->stem);
        return;
    }
    r->n_plugins++;
}

static void refuse(plugin_rec *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void refuse(plugin_rec *p, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->loaded = 0;
    free(p->reason);
    p->reason = strdup(msg);
}

static const provider_rec *find_rec(const seam_registry *r, const char *id)
{
    for (size_t i = 0; i < r->n_providers; i++)
        if (strcmp(r->providers[i]->vt.id, id) == 0)
            return r->providers[i];
    return NULL;
}

static const seam_provider_vtable *find_locked(const seam_registry *r, const char *id)
{
    const provider_rec *p = find_rec(r, id);
    return p ? &p->vt : NULL;
}

/* A file named <id>.so not tried yet: it has first claim on id. (One tried
 * already either registered id, or gave up its claim by not doing so.) */
static const plugin_rec *claimant(const seam_registry *r, const char *id, size_t except)
{
    for (size_t i = 0; i < r->n_plugins; i++)
        if (i != except && !r->plugins[i].tried && strcmp(r->plugins[i].stem, id) == 0)
            return &r->plugins[i];
    return NULL;
}

/* Runs inside seam_plugin_init, hence under r->lock (taken by the load). */
int seam_registrar_add(seam_registrar *rg, const seam_provider_vtable *vt)
{
    if (!rg || !vt)
        return SEAM_ERR_INVALID;
    seam_registry *r = rg->reg;
    const char *why = NULL;
    char msg[600];
    const plugin_rec *claim = NULL;
    const provider_rec *owner = NULL;
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
    } else if ((owner = find_rec(r, vt->id)) != NULL) {
        snprintf(msg, sizeof msg, "provider id \"%s\" is already registered by %s", vt->id,
                 r->plugins[owner->plugin].file);
        why = msg;
    } else if (strcmp(r->plugins[rg->plugin].stem, vt->id) != 0 &&
               (claim = claimant(r, vt->id, rg->plugin)) != NULL) {
        /* Whichever is loaded first, the file named after an id serves it: a
         * client that loads only that file and a full listing agree. */
        snprintf(msg, sizeof msg, "provider id \"%s\" belongs to %s, the file named after it",
                 vt->id, claim->file);
        why = msg;
    }
    if (why) {
        if (rg->refusals.len)
            seam_buf_puts(&rg->refusals, "; ");
        seam_buf_puts(&rg->refusals, why);
        return SEAM_ERR_PLUGIN;
    }
    provider_rec **pp = realloc(r->providers, (r->n_providers + 1) * sizeof *pp);
    if (!pp)
        return SEAM_ERR_NOMEM;
    r->providers = pp;
    provider_rec *p = malloc(sizeof *p);
    if (!p)
        return SEAM_ERR_NOMEM;
    seam_vtable_view(vt, &p->vt);
    p->plugin = rg->plugin;
    r->providers[r->n_providers++] = p;
    plugin_rec *pl = &r->plugins[rg->plugin];
    if (pl->ids.len)
        seam_buf_puts(&pl->ids, ",");
    seam_buf_puts(&pl->ids, vt->id);
    rg->added++;
    return SEAM_OK;
}

static const state_rec *find_state_rec(const seam_registry *r, const char *id)
{
    for (size_t i = 0; i < r->n_states; i++)
        if (strcmp(r->states[i]->vt.id, id) == 0)
            return r->states[i];
    return NULL;
}

static const seam_state_vtable *find_state_locked(const seam_registry *r, const char *id)
{
    const state_rec *p = find_state_rec(r, id);
    return p ? &p->vt : NULL;
}

/* Runs inside seam_plugin_init, hence under r->lock (taken by the load). */
int seam_registrar_add_state(seam_registrar *rg, const seam_state_vtable *vt)
{
    if (!rg || !vt)
        return SEAM_ERR_INVALID;
    seam_registry *r = rg->reg;
    const char *why = NULL;
    char msg[600];
    const state_rec *owner = NULL;
    if (SEAM_PLUGIN_ABI_MAJOR_OF(vt->abi_version) != SEAM_PLUGIN_ABI_MAJOR) {
        snprintf(msg, sizeof msg, "a state backend table declares ABI %u.%u, this seam speaks ABI %u.%u",
                 SEAM_PLUGIN_ABI_MAJOR_OF(vt->abi_version), SEAM_PLUGIN_ABI_MINOR_OF(vt->abi_version),
                 SEAM_PLUGIN_ABI_MAJOR, SEAM_PLUGIN_ABI_MINOR);
        why = msg;
    } else if (vt->size < offsetof(seam_state_vtable, scan) + sizeof(void *)) {
        snprintf(msg, sizeof msg, "state backend table size %u is smaller than the ABI minimum %zu",
                 vt->size, offsetof(seam_state_vtable, scan) + sizeof(void *));
        why = msg;
    } else if (!vt->id || !*vt->id || strcmp(vt->id, "local") == 0) {
        why = "state backend table has no id, or claims the core's own \"local\"";
    } else if (!vt->create || !vt->destroy || !vt->describe || !vt->hold || !vt->drop ||
               !vt->left || !vt->add || !vt->bind || !vt->put || !vt->get || !vt->scan) {
        snprintf(msg, sizeof msg, "state backend \"%s\" lacks a mandatory table member", vt->id);
        why = msg;
    } else if ((owner = find_state_rec(r, vt->id)) != NULL) {
        snprintf(msg, sizeof msg, "state backend \"%s\" is already registered by %s", vt->id,
                 r->plugins[owner->plugin].file);
        why = msg;
    }
    if (why) {
        if (rg->refusals.len)
            seam_buf_puts(&rg->refusals, "; ");
        seam_buf_puts(&rg->refusals, why);
        return SEAM_ERR_PLUGIN;
    }
    state_rec **pp = realloc(r->states, (r->n_states + 1) * sizeof *pp);
    if (!pp)
        return SEAM_ERR_NOMEM;
    r->states = pp;
    state_rec *p = calloc(1, sizeof *p);
    if (!p)
        return SEAM_ERR_NOMEM;
    memcpy(&p->vt, vt, vt->size < sizeof p->vt ? vt->size : sizeof p->vt);
    p->plugin = rg->plugin;
    r->states[r->n_states++] = p;
    plugin_rec *pl = &r->plugins[rg->plugin];
    if (pl->ids.len)
        seam_buf_puts(&pl->ids, ",");
    seam_buf_puts(&pl->ids, "state:");
    seam_buf_puts(&pl->ids, vt->id);
    rg->added++;
    return SEAM_OK;
}

static void drop_providers_of(seam_registry *r, size_t plugin)
{
    size_t w = 0;
    for (size_t i = 0; i < r->n_providers; i++) {
        if (r->providers[i]->plugin != plugin)
            r->providers[w++] = r->providers[i];
        else
            free(r->providers[i]);
    }
    r->n_providers = w;
    w = 0;
    for (size_t i = 0; i < r->n_states; i++) {
        if (r->states[i]->plugin != plugin)
            r->states[w++] = r->states[i];
        else
            free(r->states[i]);
    }
    r->n_states = w;
}

/* Runs under r->lock. Everything that can be learnt without running the
 * plugin's code (trust, ELF, ABI, entry points) is decided before dlopen.
 * Returns 0 when the file was loaded or refused; -1 (the reason in `short`)
 * when the system ran short of descriptors or memory: the file is left
 * untried, to be tried again at the next need. */
static int load_file(seam_registry *r, size_t idx, char *shortmsg, size_t shortlen)
{
    plugin_rec *p = &r->plugins[idx];
    char why[512];
    char *real = NULL;
    seam_plugin_elf elf;
    int rc = seam_plugin_file_trusted(p->file, &real, why, sizeof why);
    if (rc == 0)
        rc = seam_plugin_file_inspect(real, &elf, why, sizeof why);
    if (rc == -2) {
        snprintf(shortmsg, shortlen, "cannot load %s now: %s", p->file, why);
        free(real);
        return -1;
    }
    p->tried = 1;
    if (rc != 0) {
        refuse(p, "%s", why);
        free(real);
        return 0;
    }
    if (!elf.has_abi || !elf.has_init) {
        refuse(p, "not a seam plugin: missing entry point %s",
               !elf.has_abi ? "seam_plugin_abi" : "seam_plugin_init");
        free(real);
        return 0;
    }
    p->abi = elf.abi;
    if (SEAM_PLUGIN_ABI_MAJOR_OF(elf.abi) != SEAM_PLUGIN_ABI_MAJOR) {
        refuse(p, "built for plugin ABI %u.%u, this seam speaks ABI %u.%u (major versions differ)",
               SEAM_PLUGIN_ABI_MAJOR_OF(elf.abi), SEAM_PLUGIN_ABI_MINOR_OF(elf.abi),
               SEAM_PLUGIN_ABI_MAJOR, SEAM_PLUGIN_ABI_MINOR);
        free(real);
        return 0;
    }
    pthread_mutex_lock(&ltdl_lock);
    lt_dladvise advise;
    lt_dlhandle h = NULL;
    int dl_errno = 0;
    if (lt_dladvise_init(&advise) == 0) {
        lt_dladvise_local(&advise);
        errno = 0;
        h = lt_dlopenadvise(real, advise);
        dl_errno = errno;
        lt_dladvise_destroy(&advise);
    }
    const char *dlerr = h ? NULL : lt_dlerror();
    char dlmsg[256];
    seam_strlcpy(dlmsg, dlerr ? dlerr : "unknown error", sizeof dlmsg);
    int (*init)(seam_registrar *) = h ? (int (*)(seam_registrar *))lt_dlsym(h, "seam_plugin_init") : NULL;
    pthread_mutex_unlock(&ltdl_lock);
    free(real);

    if (!h && (dl_errno == EMFILE || dl_errno == ENFILE || dl_errno == ENOMEM ||
               strstr(dlmsg, strerror(EMFILE)) || strstr(dlmsg, strerror(ENFILE)))) {
        /* dlopen opens and maps more than the check did: it too can run short. */
        p->tried = 0;
        snprintf(shortmsg, shortlen, "cannot load %s now: %s", p->file, dlmsg);
        return -1;
    }
    if (!h) {
        refuse(p, "cannot be loaded: %s", dlmsg);
        return 0;
    }
    if (!init) {
        refuse(p, "not a seam plugin: missing entry point seam_plugin_init");
    } else {
        seam_registrar rg = { r, idx, 0, { 0 } };
        int irc = init(&rg);
        if (irc != SEAM_OK || rg.added == 0) {
            drop_providers_of(r, idx);
            seam_buf_reset(&p->ids);
            if (rg.refusals.len)
                refuse(p, "%s", rg.refusals.data);
            else if (irc != SEAM_OK)
                refuse(p, "seam_plugin_init failed (status %d)", irc);
            else
                refuse(p, "seam_plugin_init registered no provider and no state backend");
        } else {
            p->loaded = 1;
            p->handle = h;
            if (rg.refusals.len) /* loaded, but some of its providers were refused */
                p->reason = strdup(rg.refusals.data);
        }
        seam_buf_free(&rg.refusals);
    }
    if (!p->loaded) {
        pthread_mutex_lock(&ltdl_lock);
        lt_dlclose(h);
        pthread_mutex_unlock(&ltdl_lock);
    }
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void seam_registry_scan_dir(seam_registry *r, const char *dir)
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
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < n; i++) {
        seam_buf path = { 0 };
        if (seam_buf_printf(&path, "%s/%s", dir, names[i]) == SEAM_OK)
            add_plugin(r, path.data);
        seam_buf_free(&path);
        free(names[i]);
    }
    pthread_mutex_unlock(&r->lock);
    free(names);
}

/* The table registered under id by find (providers or state backends),
 * loading plugins as seam_registry_provider says. Returns it, NULL when none;
 * *ran_short set when loading ran short of descriptors or memory. */
static const void *resolve(seam_registry *r, const char *id,
                           const void *(*find)(const seam_registry *, const char *),
                           char *shortmsg, size_t shortlen, int *ran_short)
{
    pthread_mutex_lock(&r->lock);
    const void *vt = find(r, id);
    /* The file named after the id first: the common case loads one file. */
    for (size_t i = 0; !vt && !*ran_short && i < r->n_plugins; i++)
        if (!r->plugins[i].tried && strcmp(r->plugins[i].stem, id) == 0) {
            *ran_short = load_file(r, i, shortmsg, shortlen) != 0;
            vt = find(r, id);
        }
    /* A plugin that registers ids other than its file's name: try the rest in order. */
    for (size_t i = 0; !vt && !*ran_short && i < r->n_plugins; i++)
        if (!r->plugins[i].tried) {
            *ran_short = load_file(r, i, shortmsg, shortlen) != 0;
            vt = find(r, id);
        }
    pthread_mutex_unlock(&r->lock);
    return vt;
}

static const void *find_provider_any(const seam_registry *r, const char *id)
{
    return find_locked(r, id);
}

static const void *find_state_any(const seam_registry *r, const char *id)
{
    return find_state_locked(r, id);
}

int seam_registry_state(seam_registry *r, const char *id, const seam_state_vtable **out,
                        seam_error *err)
{
    *out = NULL;
    if (!r || !id)
        return SEAM_ERR_INVALID;
    char shortmsg[700] = "";
    int ran_short = 0;
    const seam_state_vtable *vt = resolve(r, id, find_state_any, shortmsg, sizeof shortmsg, &ran_short);
    *out = vt;
    if (vt)
        return SEAM_OK;
    if (ran_short) {
        seam_error_set(err, SEAM_ERROR_RESOURCE, "%s", shortmsg);
        return SEAM_ERR_PLUGIN;
    }
    return SEAM_ERR_NOT_FOUND;
}

int seam_registry_provider(seam_registry *r, const char *id, const seam_provider_vtable **out,
                           seam_error *err)
{
    *out = NULL;
    if (!r || !id)
        return SEAM_ERR_INVALID;
    char shortmsg[700] = "";
    int ran_short = 0;
    const seam_provider_vtable *vt = resolve(r, id, find_provider_any, shortmsg, sizeof shortmsg,
                                             &ran_short);
    *out = vt;
    if (vt)
        return SEAM_OK;
    if (ran_short) {
        seam_error_set(err, SEAM_ERROR_RESOURCE, "%s", shortmsg);
        return SEAM_ERR_PLUGIN;
    }
    return SEAM_ERR_NOT_FOUND;
}

static void load_all_locked(seam_registry *r)
{
    char shortmsg[700];
    for (size_t i = 0; i < r->n_plugins; i++)
        if (!r->plugins[i].tried && load_file(r, i, shortmsg, sizeof shortmsg) != 0) {
            /* Listed as refused for now, with why; tried again at the next listing. */
            free(r->plugins[i].reason);
            r->plugins[i].reason = strdup(shortmsg);
        }
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
        free(p->stem);
        free(p->reason);
        seam_buf_free(&p->ids);
    }
    lt_dlexit();
    pthread_mutex_unlock(&ltdl_lock);
    for (size_t i = 0; i < r->n_providers; i++)
        free(r->providers[i]);
    for (size_t i = 0; i < r->n_states; i++)
        free(r->states[i]);
    free(r->plugins);
    free(r->providers);
    free(r->states);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

size_t seam_registry_plugin_count(seam_registry *r)
{
    if (!r)
        return 0;
    pthread_mutex_lock(&r->lock);
    load_all_locked(r);
    size_t n = r->n_plugins;
    pthread_mutex_unlock(&r->lock);
    return n;
}

int seam_registry_refusal(seam_registry *r, const char *id, char *buf, size_t size)
{
    if (!r || !id || !buf || !size)
        return 0;
    int found = 0;
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->n_plugins && found != 1; i++) {
        const plugin_rec *p = &r->plugins[i];
        if (!p->tried || p->loaded || !p->reason)
            continue;
        if (strcmp(p->stem, id) == 0) {
            snprintf(buf, size, "%s (%s)", p->reason, p->file);
            found = 1;
        } else if (!found) {
            /* A refused file may be the one that would have registered id
             * (hello.so registers hello-offline): nothing ran to tell. */
            snprintf(buf, size, "%s refused: %s", p->file, p->reason);
            found = 2;
        }
    }
    pthread_mutex_unlock(&r->lock);
    return found;
}

int seam_registry_plugin_at(seam_registry *r, size_t i, seam_plugin_info *info)
{
    if (!r || !info)
        return SEAM_ERR_INVALID;
    pthread_mutex_lock(&r->lock);
    load_all_locked(r);
    int rc = SEAM_ERR_INVALID;
    if (i < r->n_plugins) {
        const plugin_rec *p = &r->plugins[i];
        info->file = p->file;
        info->abi_version = p->abi;
        info->loaded = p->loaded;
        info->reason = p->reason;
        info->provider_ids = p->ids.data ? p->ids.data : "";
        rc = SEAM_OK;
    }
    pthread_mutex_unlock(&r->lock);
    return rc;
}
