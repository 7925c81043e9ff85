/* client.c — the client object: finds and loads the conf, records the plugin
 * files in the documented search order, sets up one key pool (keys.c) per
 * configured provider, and defers the costly rest to first need: a
 * provider's plugin is loaded and its instance created on its first use, and
 * libcurl is initialised on the first transfer, so that creating a client is
 * cheap and opens no plugin. Holds the policy clock (real, or the one
 * seam_client_set_clock injects) and answers the introspection calls
 * (plugins, providers, chains, roles, command tools, conf check). Safe to
 * share between threads once created. */
#include "config.h"
#include "client.h"
#include "cassette.h"

#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static int curl_users;

const char *seam_version(void)
{
    return PACKAGE_VERSION;
}

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ud)
{
    (void)h;
    (void)access;
    seam_client *c = ud;
    pthread_mutex_lock(&c->share_locks[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ud)
{
    (void)h;
    seam_client *c = ud;
    pthread_mutex_unlock(&c->share_locks[data]);
}

static void load_plugin_dirs(seam_client *c, const seam_client_options *opts)
{
    const char *env = getenv("SEAM_PLUGIN_PATH");
    if (env && *env) {
        char *copy = strdup(env), *save = NULL;
        for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save))
            seam_registry_scan_dir(c->reg, d);
        free(copy);
    }
    for (size_t i = 0; i < c->conf->n_plugin_path; i++)
        seam_registry_scan_dir(c->reg, c->conf->plugin_path[i]);
    if (opts && opts->no_default_plugin_dirs)
        return;
    const char *home = getenv("HOME");
    if (home && *home) {
        seam_buf p = { 0 };
        if (seam_buf_printf(&p, "%s/.local/lib/seam/plugins", home) == SEAM_OK)
            seam_registry_scan_dir(c->reg, p.data);
        seam_buf_free(&p);
    }
    seam_registry_scan_dir(c->reg, SEAM_PLUGINDIR);
}

static void init_slots(seam_client *c)
{
    for (size_t i = 0; i < c->n_slots; i++) {
        seam_provider_slot *s = &c->slots[i];
        s->conf = &c->conf->providers[i];
        pthread_mutex_init(&s->lock, NULL);
        if (seam_keys_init(s) != SEAM_OK)
            seam_strlcpy(s->create_error, "out of memory", sizeof s->create_error);
    }
}

/* Loads the slot's plugin and creates its instance, once. Every thread of the
 * client may ask; the first does the work under slots_lock, the others see
 * `ready` (set with release order after vt and instance) and read them freely. */
static void slot_ready(seam_client *c, seam_provider_slot *s)
{
    if (atomic_load_explicit(&s->ready, memory_order_acquire))
        return;
    pthread_mutex_lock(&c->slots_lock);
    if (!atomic_load_explicit(&s->ready, memory_order_relaxed)) {
        seam_error_clear(&s->load_error);
        if (seam_registry_provider(c->reg, s->conf->plugin, &s->vt, &s->load_error) != SEAM_OK &&
            s->load_error.kind == SEAM_ERROR_RESOURCE) {
            /* Short of descriptors or memory: not ready, the next use tries again. */
            pthread_mutex_unlock(&c->slots_lock);
            return;
        }
        seam_error_clear(&s->load_error);
        if (s->vt && s->keys) { /* no key pool (out of memory): no instance, a call reports create_error */
            seam_provider_config cfg = { sizeof cfg, s->conf->name, s->conf->base_url,
                                         s->conf->options_json ? s->conf->options_json : "{}" };
            seam_error e;
            seam_error_clear(&e);
            s->instance = s->vt->create(&cfg, &e);
            if (!s->instance)
                seam_strlcpy(s->create_error,
                             e.message[0] ? e.message : "the plugin refused the provider's options",
                             sizeof s->create_error);
        }
        atomic_store_explicit(&s->ready, 1, memory_order_release);
    }
    pthread_mutex_unlock(&c->slots_lock);
}

int seam_client_new(const seam_client_options *opts, seam_client **out, seam_error *err)
{
    if (!out)
        return SEAM_ERR_INVALID;
    *out = NULL;
    const char *explicit_path = opts && opts->size >= offsetof(seam_client_options, conf_path) + sizeof(char *)
                                    ? opts->conf_path : NULL;
    seam_client *c = calloc(1, sizeof *c);
    if (!c)
        return SEAM_ERR_NOMEM;
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_init(&c->share_locks[i], NULL);
    pthread_mutex_init(&c->slots_lock, NULL);
    pthread_mutex_init(&c->state_lock, NULL);
    int rc = seam_conf_open(explicit_path, SEAM_CONF_INSTALLED, &c->conf, err);
    if (rc != SEAM_OK) {
        seam_client_free(c);
        return rc;
    }
    rc = seam_registry_new(&c->reg, err);
    if (rc != SEAM_OK) {
        seam_client_free(c);
        return rc;
    }
    load_plugin_dirs(c, opts);
    c->n_slots = c->conf->n_providers;
    c->slots = calloc(c->n_slots ? c->n_slots : 1, sizeof *c->slots);
    if (!c->slots) {
        seam_client_free(c);
        return SEAM_ERR_NOMEM;
    }
    init_slots(c);
    /* Record or replay every network exchange of this client (doc/cassettes.md). */
    rc = seam_cassettes_from_env(&c->cassettes, err);
    if (rc != SEAM_OK) {
        seam_client_free(c);
        return rc;
    }
    *out = c;
    return SEAM_OK;
}

seam_engine *seam_client_engine(seam_client *c)
{
    if (atomic_load_explicit(&c->curl_ready, memory_order_acquire))
        return c->engine;
    pthread_mutex_lock(&global_lock);
    if (!atomic_load_explicit(&c->curl_ready, memory_order_relaxed)) {
        if (curl_users++ == 0)
            curl_global_init(CURL_GLOBAL_DEFAULT);
        c->share = curl_share_init();
        if (c->share &&
            (curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock) != CURLSHE_OK ||
             curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock) != CURLSHE_OK ||
             curl_share_setopt(c->share, CURLSHOPT_USERDATA, c) != CURLSHE_OK ||
             curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) != CURLSHE_OK ||
             curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK)) {
            /* Out of memory, libcurl 7.88 may still mark a kind as shared though
             * the share holds none of it. The share only saves work: go on
             * without it. Connections are not shared here: the engine's multi
             * handle keeps them, so that one cache serves every thread without
             * a lock per use. */
            curl_share_cleanup(c->share);
            c->share = NULL;
        }
        c->engine = seam_engine_new(c->share); /* NULL: transfers fail with a clear error */
        atomic_store_explicit(&c->curl_ready, 1, memory_order_release);
    }
    pthread_mutex_unlock(&global_lock);
    return c->engine;
}

void *seam_client_block_take(seam_client *c, int kind, size_t size)
{
    void *b = c ? atomic_exchange(&c->spare[kind], NULL) : NULL;
    if (!b)
        return calloc(1, size);
    memset(b, 0, size);
    return b;
}

void seam_client_block_give(seam_client *c, int kind, void *block)
{
    if (c)
        block = atomic_exchange(&c->spare[kind], block);
    free(block);
}

void seam_client_free(seam_client *c)
{
    if (!c)
        return;
    for (int i = 0; i < SEAM_BLOCK_KINDS; i++)
        free(atomic_load(&c->spare[i]));
    for (size_t i = 0; c->slots && i < c->n_slots; i++) {
        if (!c->slots[i].conf)
            continue; /* never set up */
        if (c->slots[i].instance)
            c->slots[i].vt->destroy(c->slots[i].instance);
        seam_keys_free(&c->slots[i]);
        pthread_mutex_destroy(&c->slots[i].lock);
    }
    free(c->slots);
    seam_cassettes_free(c->cassettes);
    seam_state_free(atomic_load(&c->state)); /* before the registry: a backend's code lives there */
    seam_engine_free(c->engine); /* before the share its handles point to */
    if (c->share)
        curl_share_cleanup(c->share);
    if (c->reg)
        seam_registry_free(c->reg);
    if (c->curl_ready) {
        pthread_mutex_lock(&global_lock);
        if (--curl_users == 0)
            curl_global_cleanup();
        pthread_mutex_unlock(&global_lock);
    }
    seam_conf_free(c->conf);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_destroy(&c->share_locks[i]);
    pthread_mutex_destroy(&c->slots_lock);
    pthread_mutex_destroy(&c->state_lock);
    free(c);
}

int seam_client_fd(const seam_client *c)
{
    /* The engine starts with the first transfer or this call, whichever comes
     * first: an application asks for the fd before it starts streams. */
    seam_engine *e = c ? seam_client_engine((seam_client *)c) : NULL;
    return e ? seam_engine_fd(e) : -1;
}

int seam_client_timeout_ms(const seam_client *c)
{
    if (!c)
        return -1;
    if (!atomic_load_explicit(&((seam_client *)c)->curl_ready, memory_order_acquire) || !c->engine)
        return -1; /* nothing has run yet */
    int64_t t = seam_engine_timeout(c->engine);
    return t < 0 ? -1 : t > INT32_MAX ? INT32_MAX : (int)t;
}

int seam_client_perform(seam_client *c)
{
    if (!c)
        return SEAM_ERR_INVALID;
    seam_engine *e = seam_client_engine(c);
    return e ? seam_engine_perform(e) : SEAM_ERR_NOMEM;
}

const char *seam_client_conf_path(const seam_client *c)
{
    return c && c->conf ? c->conf->path : NULL;
}

int seam_client_slot_load_error(seam_client *c, seam_provider_slot *s, seam_error *err)
{
    pthread_mutex_lock(&c->slots_lock);
    int failed = !atomic_load_explicit(&s->ready, memory_order_relaxed) && s->load_error.kind != 0;
    if (failed && err)
        *err = s->load_error;
    pthread_mutex_unlock(&c->slots_lock);
    return failed;
}

int seam_client_plugin_refusal(seam_client *c, const char *plugin, char *buf, size_t size)
{
    return c ? seam_registry_refusal(c->reg, plugin, buf, size) : 0;
}

seam_provider_slot *seam_client_slot(seam_client *c, const char *name)
{
    if (!c || !name)
        return NULL;
    for (size_t i = 0; i < c->n_slots; i++)
        if (strcmp(c->slots[i].conf->name, name) == 0) {
            slot_ready(c, &c->slots[i]);
            return &c->slots[i];
        }
    return NULL;
}

/* ---- the policy clock ------------------------------------------------------------- */

void seam_client_set_clock(seam_client *c, int64_t (*now_ms)(void *ud),
                           int (*sleep_ms)(void *ud, int64_t ms, seam_cancel *cancel), void *ud)
{
    if (!c)
        return;
    c->clock_now = now_ms;
    c->clock_sleep = sleep_ms;
    c->clock_ud = ud;
}

static int64_t store_now(void *ud)
{
    return seam_client_now(ud);
}

/* The store's notices go to whatever log callback the client has when they
 * happen, so that seam_client_set_log works after the store was made too. */
static void store_log(void *ud, int level, const char *message)
{
    seam_client *c = ud;
    if (c->log)
        c->log(c->log_ud, level, message);
}

void seam_client_log(seam_client *c, int level, const char *fmt, ...)
{
    if (!c || !c->log)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    line[strcspn(line, "\r\n")] = '\0';
    c->log(c->log_ud, level, line);
}

seam_state *seam_client_store(seam_client *c)
{
    seam_state *st = atomic_load_explicit(&c->state, memory_order_acquire);
    if (st)
        return st;
    pthread_mutex_lock(&c->state_lock);
    st = atomic_load_explicit(&c->state, memory_order_relaxed);
    if (!st) {
        seam_state_hooks hooks = { store_now, c, store_log, c };
        st = seam_state_new(&c->conf->state, c->reg, &hooks);
        atomic_store_explicit(&c->state, st, memory_order_release);
    }
    pthread_mutex_unlock(&c->state_lock);
    return st;
}

void seam_client_set_log(seam_client *client, void (*log)(void *ud, int level, const char *message),
                         void *ud)
{
    if (!client)
        return;
    client->log = log;
    client->log_ud = ud;
}

/* ---- the shared state, for people (seam providers -v) ---- */

#define STATE_LIST_MAX 1000

typedef struct state_walk {
    seam_client *c;
    const char *kind;
    void (*fn)(void *ud, const seam_state_entry *entry);
    void *ud;
} state_walk;

/* One store entry "KIND:PROVIDER:REST" (keys.c names them) → an entry for
 * fn; a name of another shape (another version's) is passed over. */
static void state_visit(void *ud, const char *name, int64_t value, int64_t left_ms)
{
    state_walk *w = ud;
    const char *prov = strchr(name, ':');
    const char *last = strrchr(name, ':');
    if (!prov || last == prov)
        return;
    char provider[256];
    size_t plen = (size_t)(last - prov - 1);
    if (plen >= sizeof provider)
        return;
    memcpy(provider, prov + 1, plen);
    provider[plen] = '\0';
    seam_state_entry e = { sizeof e, w->kind, provider, 0, NULL, left_ms };
    char *end;
    if (strcmp(w->kind, "lease") == 0) {
        e.session = last + 1;
        e.key = (int)(value + 1);
    } else {
        long i = strtol(last + 1, &end, 10);
        if (*end || i < 0 || i > 1000000)
            return;
        e.key = (int)i + 1;
    }
    w->fn(w->ud, &e);
}

int seam_client_state(seam_client *client, char *store, size_t size, int *shared,
                      void (*fn)(void *ud, const seam_state_entry *entry), void *ud,
                      seam_error *err)
{
    if (!client) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "no client");
        return SEAM_ERR_INVALID;
    }
    seam_state *st = seam_client_store(client);
    if (!st) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
        return SEAM_ERR_NOMEM;
    }
    static const char *const kinds[][2] = {
        {"cool:", "cooling"}, {"exh:", "exhausted"}, {"lease:", "lease"}};
    /* The listing first: it is what finds out whether the store answers. */
    for (size_t i = 0; fn && i < sizeof kinds / sizeof kinds[0]; i++) {
        state_walk w = { client, kinds[i][1], fn, ud };
        seam_state_scan(st, kinds[i][0], STATE_LIST_MAX, state_visit, &w);
    }
    int sh = 0;
    char buf[512];
    seam_state_describe(st, buf, sizeof buf, &sh);
    if (store && size)
        seam_strlcpy(store, buf, size);
    if (shared)
        *shared = sh;
    return SEAM_OK;
}

int64_t seam_client_now(const seam_client *c)
{
    return c && c->clock_now ? c->clock_now(c->clock_ud) : seam_now_ms();
}

int seam_client_sleep(const seam_client *c, int64_t ms, seam_cancel *cancel)
{
    if (c && c->clock_sleep)
        return c->clock_sleep(c->clock_ud, ms, cancel) != 0;
    if (ms <= 0)
        return seam_cancel_triggered(cancel);
    return seam_cancel_sleep(cancel, ms);
}

/* ---- introspection ---------------------------------------------------------------- */

size_t seam_client_plugin_count(const seam_client *c)
{
    return c ? seam_registry_plugin_count(c->reg) : 0;
}

int seam_client_plugin_at(const seam_client *c, size_t i, seam_plugin_info *info)
{
    return c ? seam_registry_plugin_at(c->reg, i, info) : SEAM_ERR_INVALID;
}

size_t seam_client_provider_count(const seam_client *c)
{
    return c ? c->n_slots : 0;
}

int seam_client_provider_at(const seam_client *c, size_t i, seam_provider_info *info)
{
    if (!c || !info || i >= c->n_slots)
        return SEAM_ERR_INVALID;
    seam_provider_slot *s = &((seam_client *)c)->slots[i];
    slot_ready((seam_client *)c, s); /* the listing says whether its plugin loads */
    const seam_conf_provider *p = s->conf;
    info->name = p->name;
    info->plugin = p->plugin;
    info->base_url = p->base_url;
    info->plugin_loaded = s->instance != NULL;
    info->credential_source = seam_credential_source(p);
    /* Any usable key of the pool will do. A command is not run just to list
     * providers: it may prompt or be slow. */
    seam_cred_source *pool = NULL;
    size_t n = 0;
    info->has_credential = 1; /* none needed */
    if (seam_credential_pool(p, &pool, &n) == SEAM_OK && n > 0) {
        info->has_credential = 0;
        for (size_t k = 0; k < n && !info->has_credential; k++) {
            if (pool[k].kind == SEAM_CRED_ENV || pool[k].kind == SEAM_CRED_FILE) {
                char *key = NULL;
                info->has_credential =
                    seam_credential_resolve_source(p, &pool[k], &key, NULL, NULL, NULL) == SEAM_OK && key;
                seam_secret_free(key);
            } else {
                info->has_credential = 1; /* inline or command */
            }
        }
    }
    free(pool);
    return SEAM_OK;
}

int seam_client_capabilities(const seam_client *c, const char *provider, const char *model,
                             seam_capabilities *caps, seam_error *err)
{
    if (!c || !provider || !caps || caps->size < offsetof(seam_capabilities, context_window))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    const seam_provider_slot *s = seam_client_slot((seam_client *)c, provider);
    if (!s || !s->instance)
        return seam_error_set(err, SEAM_ERROR_CONF, "provider \"%s\" is not configured or its plugin is not loaded",
                              provider), SEAM_ERR_NOT_FOUND;
    /* The plugin fills a struct of the core's size; copy back only what the caller has room for. */
    seam_capabilities full;
    memset(&full, 0, sizeof full);
    full.size = sizeof full;
    if (s->vt->capabilities)
        s->vt->capabilities(s->instance, model ? model : "", &full);
    uint32_t room = caps->size < sizeof full ? caps->size : (uint32_t)sizeof full;
    memcpy((char *)caps + sizeof caps->size, (char *)&full + sizeof full.size, room - sizeof caps->size);
    return SEAM_OK;
}

size_t seam_client_chain_count(const seam_client *c)
{
    return c ? c->conf->n_chains : 0;
}

const char *seam_client_chain_name(const seam_client *c, size_t i)
{
    return c && i < c->conf->n_chains ? c->conf->chains[i].name : NULL;
}

size_t seam_client_chain_length(const seam_client *c, size_t i)
{
    return c && i < c->conf->n_chains ? c->conf->chains[i].n_entries : 0;
}

int seam_client_chain_entry(const seam_client *c, size_t i, size_t j, const char **provider,
                            const char **model, int *max_attempts)
{
    if (!c || i >= c->conf->n_chains || j >= c->conf->chains[i].n_entries)
        return SEAM_ERR_INVALID;
    const seam_conf_entry *e = &c->conf->chains[i].entries[j];
    if (provider)
        *provider = e->provider;
    if (model)
        *model = e->model;
    if (max_attempts)
        *max_attempts = e->max_attempts;
    return SEAM_OK;
}

const char *seam_client_role_chain(const seam_client *c, const char *role)
{
    if (!c || !role)
        return NULL;
    for (size_t i = 0; i < c->conf->n_roles; i++)
        if (strcmp(c->conf->roles[i].name, role) == 0)
            return c->conf->roles[i].chain;
    return NULL;
}

size_t seam_client_role_count(const seam_client *c)
{
    return c ? c->conf->n_roles : 0;
}

int seam_client_role_at(const seam_client *c, size_t i, const char **role, const char **chain)
{
    if (!c || i >= c->conf->n_roles)
        return SEAM_ERR_INVALID;
    if (role)
        *role = c->conf->roles[i].name;
    if (chain)
        *chain = c->conf->roles[i].chain;
    return SEAM_OK;
}

size_t seam_client_tool_count(const seam_client *c)
{
    return c ? c->conf->n_tools : 0;
}

int seam_client_tool_at(const seam_client *c, size_t i, const char **name,
                        const char **description, const char **parameters_json,
                        const char **command, int64_t *timeout_ms)
{
    if (!c || i >= c->conf->n_tools)
        return SEAM_ERR_INVALID;
    const seam_conf_tool *t = &c->conf->tools[i];
    if (name)
        *name = t->name;
    if (description)
        *description = t->description;
    if (parameters_json)
        *parameters_json = t->parameters_json;
    if (command)
        *command = t->command;
    if (timeout_ms)
        *timeout_ms = t->timeout_ms;
    return SEAM_OK;
}

int seam_conf_check(const char *path, void (*warn)(void *ud, const char *text), void *ud,
                    seam_error *err)
{
    char *found = NULL;
    int rc = seam_conf_find(path, SEAM_CONF_INSTALLED, &found, err);
    if (rc != SEAM_OK)
        return rc;
    if (!found)
        return seam_error_set(err, SEAM_ERROR_CONF, "no conf file found");
    free(found);
    seam_conf *conf = NULL;
    rc = seam_conf_open(path, SEAM_CONF_INSTALLED, &conf, err);
    if (rc != SEAM_OK)
        return rc;
    for (size_t i = 0; warn && i < conf->n_warnings; i++)
        warn(ud, conf->warnings[i]);
    seam_conf_free(conf);
    return SEAM_OK;
}
