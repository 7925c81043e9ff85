/* state.c — the client's state store (state.h): the in-process store
 * ("local", a hash table on the client's policy clock, behind the same
 * seam_state_vtable a backend plugin implements), and the layer that puts a
 * shared backend in front of it. That layer owns the fallback: an operation
 * the backend cannot answer within its timeout is made on the local store,
 * the change is said once through the log hook, the backend is asked again at
 * most once a second (by one thread, the others go on locally), and its
 * return is said once too. Writes always reach the local store as well, so an
 * outage starts from what this process knew. The core decides what the names
 * mean (keys.c, budget.c); nothing here names a particular backend. */
#include "config.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* While the backend is away, how often one operation tries it again. */
#define RETRY_MS 1000
/* The timeout when the conf gives none (issue 18: at most 50 ms). */
#define DEFAULT_TIMEOUT_MS 50
#define DEFAULT_PREFIX "seam:"
/* A password longer than this is not one. */
#define MAX_PASSWORD 4096

/* ---- the local store -------------------------------------------------------------- */

typedef struct local_entry {
    struct local_entry *next;
    int64_t value;
    int64_t expires;  /* on the store's clock */
    void *blob;       /* a checkpoint's bytes, NULL for a counter, a binding or a hold */
    size_t blob_len;
    char name[];
} local_entry;

typedef struct local_store {
    pthread_mutex_t lock;
    local_entry **buckets;
    size_t n_buckets, count;
    int64_t (*now)(void *ud);
    void *ud;
} local_store;

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static int64_t local_now(const local_store *ls)
{
    return ls->now ? ls->now(ls->ud) : seam_now_ms();
}

static void entry_free(local_entry *e)
{
    free(e->blob);
    free(e);
}

/* Drops every expired entry, and doubles the table when it is still crowded;
 * runs when the count outgrows the table, so the work is amortised. */
static void local_sweep(local_store *ls, int64_t now)
{
    for (size_t b = 0; b < ls->n_buckets; b++)
        for (local_entry **pp = &ls->buckets[b]; *pp;) {
            if ((*pp)->expires <= now) {
                local_entry *dead = *pp;
                *pp = dead->next;
                entry_free(dead);
                ls->count--;
            } else {
                pp = &(*pp)->next;
            }
        }
    if (ls->count < ls->n_buckets)
        return;
    size_t n = ls->n_buckets * 2;
    local_entry **nb = calloc(n, sizeof *nb);
    if (!nb)
        return; /* a crowded table is slower, not wrong */
    for (size_t b = 0; b < ls->n_buckets; b++)
        while (ls->buckets[b]) {
            local_entry *e = ls->buckets[b];
            ls->buckets[b] = e->next;
            size_t i = hash_name(e->name) % n;
            e->next = nb[i];
            nb[i] = e;
        }
    free(ls->buckets);
    ls->buckets = nb;
    ls->n_buckets = n;
}

/* The live entry called name (an expired one is removed), or NULL. Under the lock. */
static local_entry *local_find(local_store *ls, const char *name, int64_t now)
{
    for (local_entry **pp = &ls->buckets[hash_name(name) % ls->n_buckets]; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->name, name) != 0)
            continue;
        if ((*pp)->expires > now)
            return *pp;
        local_entry *dead = *pp;
        *pp = dead->next;
        entry_free(dead);
        ls->count--;
        return NULL;
    }
    return NULL;
}

/* A new entry called name (none may exist). Under the lock; NULL out of memory. */
static local_entry *local_insert(local_store *ls, const char *name, int64_t now)
{
    if (ls->count >= ls->n_buckets)
        local_sweep(ls, now);
    size_t len = strlen(name);
    local_entry *e = calloc(1, sizeof *e + len + 1);
    if (!e)
        return NULL;
    memcpy(e->name, name, len + 1);
    size_t i = hash_name(name) % ls->n_buckets;
    e->next = ls->buckets[i];
    ls->buckets[i] = e;
    ls->count++;
    return e;
}

static int64_t deadline(int64_t now, int64_t ttl_ms)
{
    return ttl_ms > INT64_MAX - now ? INT64_MAX : now + ttl_ms;
}

static int nomem(seam_error *err)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
    return SEAM_ERR_NOMEM;
}

static int local_hold(void *inst, const char *name, int64_t ttl_ms, seam_error *err)
{
    local_store *ls = inst;
    pthread_mutex_lock(&ls->lock);
    int64_t now = local_now(ls);
    local_entry *e = local_find(ls, name, now);
    int rc = SEAM_OK;
    if (!e && !(e = local_insert(ls, name, now)))
        rc = nomem(err);
    else if (deadline(now, ttl_ms) > e->expires)
        e->expires = deadline(now, ttl_ms);
    pthread_mutex_unlock(&ls->lock);
    return rc;
}

static int local_drop(void *inst, const char *name, seam_error *err)
{
    (void)err;
    local_store *ls = inst;
    pthread_mutex_lock(&ls->lock);
    local_entry *e = local_find(ls, name, local_now(ls));
    if (e)
        e->expires = 0; /* removed by the next find or sweep */
    pthread_mutex_unlock(&ls->lock);
    return SEAM_OK;
}

static int local_left(void *inst, const char *const *names, size_t n, int64_t *left_ms,
                      seam_error *err)
{
    (void)err;
    local_store *ls = inst;
    pthread_mutex_lock(&ls->lock);
    int64_t now = local_now(ls);
    for (size_t i = 0; i < n; i++) {
        local_entry *e = local_find(ls, names[i], now);
        left_ms[i] = e ? e->expires - now : 0;
    }
    pthread_mutex_unlock(&ls->lock);
    return SEAM_OK;
}

static int local_add(void *inst, const char *name, int64_t delta, int64_t limit, int64_t ttl_ms,
                     int64_t *value, int *refused, seam_error *err)
{
    local_store *ls = inst;
    *refused = 0;
    pthread_mutex_lock(&ls->lock);
    int64_t now = local_now(ls);
    local_entry *e = local_find(ls, name, now);
    int rc = SEAM_OK;
    *value = 0;
    if (!e && delta != 0) {
        if ((e = local_insert(ls, name, now)) != NULL)
            e->expires = deadline(now, ttl_ms);
        else
            rc = nomem(err);
    }
    if (!e && rc == SEAM_OK && limit == 0)
        *refused = 1;
    if (e) {
        if (limit >= 0 && e->value >= limit)
            *refused = 1;
        else
            e->value += delta;
        *value = e->value;
    }
    pthread_mutex_unlock(&ls->lock);
    return rc;
}

static int local_bind(void *inst, const char *name, int64_t proposal, int force, int64_t ttl_ms,
                      int64_t *value, seam_error *err)
{
    local_store *ls = inst;
    pthread_mutex_lock(&ls->lock);
    int64_t now = local_now(ls);
    local_entry *e = local_find(ls, name, now);
    int rc = SEAM_OK;
    if (!e) {
        if ((e = local_insert(ls, name, now)) != NULL)
            e->value = proposal;
        else
            rc = nomem(err);
    } else if (force) {
        e->value = proposal;
    }
    if (e) {
        e->expires = deadline(now, ttl_ms);
        *value = e->value;
    }
    pthread_mutex_unlock(&ls->lock);
    return rc;
}

static int local_put(void *inst, const char *name, const void *data, size_t len, int64_t ttl_ms,
                     seam_error *err)
{
    local_store *ls = inst;
    void *copy = malloc(len ? len : 1);
    if (!copy)
        return nomem(err);
    memcpy(copy, data, len);
    pthread_mutex_lock(&ls->lock);
    int64_t now = local_now(ls);
    local_entry *e = local_find(ls, name, now);
    if (!e)
        e = local_insert(ls, name, now);
    if (e) {
        free(e->blob);
        e->blob = copy;
        e->blob_len = len;
        e->value = 0;
        e->expires = deadline(now, ttl_ms);
    }
    pthread_mutex_unlock(&ls->lock);
    if (!e) {
        free(copy);
        return nomem(err);
    }
    return SEAM_OK;
}

static int local_get(void *inst, const char *name, void **data, size_t *len, seam_error *err)
{
    local_store *ls = inst;
    *data = NULL;
    *len = 0;
    int rc = SEAM_OK;
    pthread_mutex_lock(&ls->lock);
    local_entry *e = local_find(ls, name, local_now(ls));
    if (e && e->blob) {
        if ((*data = malloc(e->blob_len ? e->blob_len : 1)) != NULL) {
            memcpy(*data, e->blob, e->blob_len);
            *len = e->blob_len;
        } else {
            rc = nomem(err);
        }
    }
    pthread_mutex_unlock(&ls->lock);
    return rc;
}

typedef struct scan_item {
    char *name;
    int64_t value, left;
} scan_item;

static int local_scan(void *inst, const char *prefix, size_t max,
                      void (*fn)(void *ud, const char *name, int64_t value, int64_t left_ms),
                      void *ud, seam_error *err)
{
    local_store *ls = inst;
    size_t plen = strlen(prefix), n = 0;
    /* Copied out first: fn runs without the lock. */
    scan_item *items = calloc(max ? max : 1, sizeof *items);
    if (!items)
        return nomem(err);
    pthread_mutex_lock(&ls->lock);
    int64_t now = local_now(ls);
    for (size_t b = 0; b < ls->n_buckets && n < max; b++)
        for (local_entry *e = ls->buckets[b]; e && n < max; e = e->next)
            if (e->expires > now && strncmp(e->name, prefix, plen) == 0 &&
                (items[n].name = strdup(e->name)) != NULL) {
                items[n].value = e->value;
                items[n].left = e->expires - now;
                n++;
            }
    pthread_mutex_unlock(&ls->lock);
    for (size_t i = 0; i < n; i++) {
        fn(ud, items[i].name, items[i].value, items[i].left);
        free(items[i].name);
    }
    free(items);
    return SEAM_OK;
}

static void local_describe(void *inst, char *buf, size_t size)
{
    (void)inst;
    snprintf(buf, size, "local (this process only)");
}

static void local_destroy(void *inst)
{
    local_store *ls = inst;
    if (!ls)
        return;
    for (size_t b = 0; b < ls->n_buckets; b++)
        while (ls->buckets[b]) {
            local_entry *e = ls->buckets[b];
            ls->buckets[b] = e->next;
            entry_free(e);
        }
    free(ls->buckets);
    pthread_mutex_destroy(&ls->lock);
    free(ls);
}

static local_store *local_new(int64_t (*now)(void *ud), void *ud)
{
    local_store *ls = calloc(1, sizeof *ls);
    if (!ls)
        return NULL;
    ls->n_buckets = 64;
    if (!(ls->buckets = calloc(ls->n_buckets, sizeof *ls->buckets))) {
        free(ls);
        return NULL;
    }
    pthread_mutex_init(&ls->lock, NULL);
    ls->now = now;
    ls->ud = ud;
    return ls;
}

/* The in-process store, as one more implementation of the backend table (its
 * instance is made by local_new, since it runs on the client's clock). */
static const seam_state_vtable local_vt = {
    .abi_version = SEAM_PLUGIN_ABI_VERSION,
    .size = sizeof(seam_state_vtable),
    .id = "local",
    .description = "in-process state, this process only",
    .destroy = local_destroy,
    .describe = local_describe,
    .hold = local_hold,
    .drop = local_drop,
    .left = local_left,
    .add = local_add,
    .bind = local_bind,
    .put = local_put,
    .get = local_get,
    .scan = local_scan,
};

/* ---- local, with a shared backend in front ------------------------------------------ */

struct seam_state {
    local_store *local;
    const seam_state_vtable *vt; /* the shared backend; NULL: local only */
    void *inst;
    char where[256];             /* the backend's description */
    char why_local[512];         /* a backend was configured but cannot be used: why */
    atomic_int down;             /* the backend did not answer: local stands in */
    _Atomic int64_t next_try;    /* while down: real monotonic ms of the next try */
    seam_state_hooks hooks;
};

static void say(seam_state *st, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(seam_state *st, int level, const char *fmt, ...)
{
    if (!st->hooks.log)
        return;
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    st->hooks.log(st->hooks.log_ud, level, msg);
}

/* The first line of a password file or variable, trimmed; malloc'ed or NULL. */
static char *first_line(const char *text, size_t len)
{
    const char *end = memchr(text, '\n', len);
    size_t n = end ? (size_t)(end - text) : len;
    while (n && (text[n - 1] == '\r' || text[n - 1] == ' ' || text[n - 1] == '\t'))
        n--;
    return n ? strndup(text, n) : NULL;
}

/* The password the conf points at; NULL (why filled) when it names one that
 * cannot be read. *none is 1 when the conf names none. */
static char *read_password(const seam_conf_state *c, int *none, char *why, size_t whylen)
{
    *none = 0;
    if (c->password)
        return strdup(c->password);
    if (c->password_env) {
        const char *v = getenv(c->password_env);
        char *p = v ? first_line(v, strlen(v)) : NULL;
        if (!p)
            snprintf(why, whylen, "state.password_env: %s is not set", c->password_env);
        return p;
    }
    if (c->password_file) {
        int fd = open(c->password_file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0) {
            snprintf(why, whylen, "state.password_file: cannot read %s: %s", c->password_file,
                     strerror(errno));
            return NULL;
        }
        char buf[MAX_PASSWORD];
        ssize_t n;
        do
            n = read(fd, buf, sizeof buf);
        while (n < 0 && errno == EINTR);
        close(fd);
        char *p = n > 0 ? first_line(buf, (size_t)n) : NULL;
        explicit_bzero(buf, sizeof buf);
        if (!p)
            snprintf(why, whylen, "state.password_file: %s is empty", c->password_file);
        return p;
    }
    *none = 1;
    return NULL;
}

static void attach_backend(seam_state *st, const seam_conf_state *c, seam_registry *reg)
{
    const seam_state_vtable *vt = NULL;
    seam_error e;
    seam_error_clear(&e);
    int rc = seam_registry_state(reg, c->backend, &vt, &e);
    if (rc != SEAM_OK) {
        if (e.kind != SEAM_ERROR_NONE)
            snprintf(st->why_local, sizeof st->why_local, "state backend \"%.64s\": %.400s", c->backend,
                     e.message);
        else
            snprintf(st->why_local, sizeof st->why_local,
                     "state backend \"%s\" is not installed (no plugin registers it; "
                     "the file would be %s.so in the plugin path)", c->backend, c->backend);
        return;
    }
    int none = 0;
    char why[400] = "";
    char *password = read_password(c, &none, why, sizeof why);
    if (!password && !none) {
        snprintf(st->why_local, sizeof st->why_local, "state backend \"%s\": %s", c->backend, why);
        return;
    }
    seam_state_config cfg = {
        .size = sizeof cfg,
        .host = c->host,
        .port = c->port,
        .socket = c->socket,
        .password = password,
        .db = c->db,
        .prefix = c->prefix ? c->prefix : DEFAULT_PREFIX,
        .timeout_ms = c->timeout_ms > 0 ? c->timeout_ms : DEFAULT_TIMEOUT_MS,
    };
    void *inst = vt->create(&cfg, &e);
    seam_secret_free(password);
    if (!inst) {
        snprintf(st->why_local, sizeof st->why_local, "state backend \"%.64s\" refused its conf: %.400s",
                 c->backend, e.message[0] ? e.message : "no reason given");
        return;
    }
    st->vt = vt;
    st->inst = inst;
    vt->describe(inst, st->where, sizeof st->where);
}

seam_state *seam_state_new(const seam_conf_state *conf, seam_registry *reg,
                           const seam_state_hooks *hooks)
{
    seam_state *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    if (hooks)
        st->hooks = *hooks;
    if (!(st->local = local_new(st->hooks.now, st->hooks.now_ud))) {
        free(st);
        return NULL;
    }
    atomic_init(&st->down, 0);
    atomic_init(&st->next_try, 0);
    if (conf && conf->backend && strcmp(conf->backend, "local") != 0 && reg) {
        attach_backend(st, conf, reg);
        if (!st->vt)
            say(st, SEAM_LOG_ERROR, "%s: every count stays in this process", st->why_local);
    }
    return st;
}

void seam_state_free(seam_state *st)
{
    if (!st)
        return;
    if (st->vt)
        st->vt->destroy(st->inst);
    local_destroy(st->local);
    free(st);
}

/* 1 when this operation should ask the backend: it is up, or it is away and
 * the retry time has come (one thread wins that try; the others stay local). */
static int try_shared(seam_state *st)
{
    if (!st->vt)
        return 0;
    if (!atomic_load(&st->down))
        return 1;
    int64_t now = seam_now_ms(), next = atomic_load(&st->next_try);
    if (now < next)
        return 0;
    return atomic_compare_exchange_strong(&st->next_try, &next, now + RETRY_MS);
}

/* Records how the backend answered; says so when that changes. */
static int shared_answered(seam_state *st, int rc, const seam_error *e)
{
    /* Out of memory or a name it refused: this process's trouble, not the store's. */
    if (rc == SEAM_OK || rc == SEAM_ERR_NOMEM || rc == SEAM_ERR_INVALID) {
        if (atomic_exchange(&st->down, 0))
            say(st, SEAM_LOG_INFO, "state: %s answers again: shared state resumes", st->where);
        return rc == SEAM_OK;
    }
    atomic_store(&st->next_try, seam_now_ms() + RETRY_MS);
    if (!atomic_exchange(&st->down, 1))
        say(st, SEAM_LOG_WARNING,
            "state: %s did not answer (%s): this process goes on with its local state, "
            "and tries the store again every second", st->where,
            e->message[0] ? e->message : "no reason given");
    return 0;
}

void seam_state_hold(seam_state *st, const char *name, int64_t ttl_ms)
{
    seam_error e;
    seam_error_clear(&e);
    if (!st || ttl_ms <= 0)
        return;
    local_vt.hold(st->local, name, ttl_ms, &e);
    if (try_shared(st))
        shared_answered(st, st->vt->hold(st->inst, name, ttl_ms, &e), &e);
}

void seam_state_drop(seam_state *st, const char *name)
{
    seam_error e;
    seam_error_clear(&e);
    if (!st)
        return;
    local_vt.drop(st->local, name, &e);
    if (try_shared(st))
        shared_answered(st, st->vt->drop(st->inst, name, &e), &e);
}

void seam_state_left(seam_state *st, const char *const *names, size_t n, int64_t *left_ms)
{
    seam_error e;
    seam_error_clear(&e);
    if (!st) {
        memset(left_ms, 0, n * sizeof *left_ms);
        return;
    }
    local_vt.left(st->local, names, n, left_ms, &e);
    if (!n || !try_shared(st))
        return;
    int64_t *shared = calloc(n, sizeof *shared);
    if (!shared)
        return;
    if (shared_answered(st, st->vt->left(st->inst, names, n, shared, &e), &e))
        for (size_t i = 0; i < n; i++)
            if (shared[i] > left_ms[i])
                left_ms[i] = shared[i];
    free(shared);
}

int seam_state_add(seam_state *st, const char *name, int64_t delta, int64_t limit,
                   int64_t ttl_ms, int64_t *value)
{
    seam_error e;
    seam_error_clear(&e);
    int64_t v = 0;
    int refused = 0;
    if (!st)
        return SEAM_ERR_NOMEM;
    if (try_shared(st) &&
        shared_answered(st, st->vt->add(st->inst, name, delta, limit, ttl_ms, &v, &refused, &e), &e)) {
        /* The local count follows this process's own part, for an outage. */
        if (!refused) {
            int64_t lv;
            int lr;
            local_vt.add(st->local, name, delta, -1, ttl_ms, &lv, &lr, &e);
        }
    } else {
        seam_error_clear(&e);
        if (local_vt.add(st->local, name, delta, limit, ttl_ms, &v, &refused, &e) != SEAM_OK)
            return SEAM_ERR_NOMEM;
    }
    if (value)
        *value = v;
    return !refused;
}

int64_t seam_state_bind(seam_state *st, const char *name, int64_t proposal, int force,
                        int64_t ttl_ms)
{
    seam_error e;
    seam_error_clear(&e);
    int64_t v = -1, lv = -1;
    if (!st)
        return -1;
    if (try_shared(st) &&
        shared_answered(st, st->vt->bind(st->inst, name, proposal, force, ttl_ms, &v, &e), &e)) {
        /* Mirror what the store holds, so that an outage keeps the session's key. */
        local_vt.bind(st->local, name, v, 1, ttl_ms, &lv, &e);
        return v;
    }
    seam_error_clear(&e);
    if (local_vt.bind(st->local, name, proposal, force, ttl_ms, &lv, &e) != SEAM_OK)
        return -1;
    return lv;
}

int seam_state_put(seam_state *st, const char *name, const void *data, size_t len, int64_t ttl_ms)
{
    seam_error e;
    seam_error_clear(&e);
    if (!st)
        return SEAM_ERR_NOMEM;
    int rc = local_vt.put(st->local, name, data, len, ttl_ms, &e);
    if (try_shared(st))
        shared_answered(st, st->vt->put(st->inst, name, data, len, ttl_ms, &e), &e);
    return rc;
}

int seam_state_get(seam_state *st, const char *name, void **data, size_t *len)
{
    seam_error e;
    seam_error_clear(&e);
    *data = NULL;
    *len = 0;
    if (!st)
        return SEAM_ERR_NOMEM;
    if (try_shared(st) && shared_answered(st, st->vt->get(st->inst, name, data, len, &e), &e) &&
        *data)
        return SEAM_OK;
    free(*data); /* a backend that failed after allocating */
    *data = NULL;
    *len = 0;
    return local_vt.get(st->local, name, data, len, &e);
}

int seam_state_scan(seam_state *st, const char *prefix, size_t max,
                    void (*fn)(void *ud, const char *name, int64_t value, int64_t left_ms),
                    void *ud)
{
    seam_error e;
    seam_error_clear(&e);
    if (!st)
        return SEAM_ERR_NOMEM;
    if (try_shared(st) && shared_answered(st, st->vt->scan(st->inst, prefix, max, fn, ud, &e), &e))
        return SEAM_OK;
    return local_vt.scan(st->local, prefix, max, fn, ud, &e);
}

void seam_state_describe(seam_state *st, char *buf, size_t size, int *shared)
{
    if (!st || !st->vt) {
        *shared = 0;
        if (!st)
            snprintf(buf, size, "local (out of memory)");
        else if (st->why_local[0])
            snprintf(buf, size, "local: %s", st->why_local);
        else
            local_vt.describe(st->local, buf, size);
        return;
    }
    *shared = !atomic_load(&st->down);
    snprintf(buf, size, "%s%s", st->where,
             *shared ? "" : " (not answering: this process uses its local state)");
}
