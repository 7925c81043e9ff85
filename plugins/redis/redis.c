/* redis.c — the Redis state backend (seam_state_vtable, id "redis"): the
 * store that several seam processes share for cooldowns, key leases,
 * rate-limit windows, budgets and checkpoints. Every change is one Lua script
 * or one command, so it is atomic, and every key it writes carries a TTL.
 *
 * hiredis's blocking API, one connection per concurrent caller (a small pool,
 * so that threads do not queue behind each other), each operation held to the
 * instance's timeout: connecting, AUTH/SELECT and the command all run against
 * one deadline. A connection that failed is closed, never reused. hiredis
 * writes with write(2): SIGPIPE is blocked in the calling thread for the
 * operation and a pending one consumed, so a Redis that went away cannot kill
 * the process. The password is kept only to AUTH and never appears in an
 * error or a description. */
#include <seam/plugin.h>

#include <errno.h>
#include <hiredis/hiredis.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_HOST "127.0.0.1"
#define DEFAULT_PORT 6379
/* Idle connections kept; more callers at once each open their own. */
#define POOL_MAX 8
/* A store name with the prefix fits here (keys.c names stay far below). */
#define KEY_MAX 600

typedef struct rd {
    char *host, *socket, *password, *prefix;
    int port, db;
    long long timeout_ms;
    pthread_mutex_t lock;
    redisContext *idle[POOL_MAX];
    int n_idle;
} rd;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct timeval tv_of(long long ms)
{
    if (ms < 1)
        ms = 1;
    struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)((ms % 1000) * 1000) };
    return tv;
}

/* One operation: its deadline, its connection, the SIGPIPE mask to restore. */
typedef struct op {
    rd *r;
    long long deadline;
    redisContext *ctx;
    int pooled;        /* ctx came from the pool and has not answered in this op yet */
    sigset_t old_mask;
    int had_pipe;
    seam_error *err;
} op;

static int fail(op *o, seam_error_kind kind, const char *what, const char *detail)
{
    seam_error_set(o->err, kind, "redis: %s%s%s", what, detail ? ": " : "", detail ? detail : "");
    if (o->ctx) {
        redisFree(o->ctx);
        o->ctx = NULL;
    }
    /* The idle connections went to the same server: after a restart each
     * would fail once more, holding back the return to shared state. */
    pthread_mutex_lock(&o->r->lock);
    while (o->r->n_idle)
        redisFree(o->r->idle[--o->r->n_idle]);
    pthread_mutex_unlock(&o->r->lock);
    return SEAM_ERR_PROVIDER;
}

static int ctx_fail(op *o, const char *what)
{
    int timed_out = o->ctx && (o->ctx->err == REDIS_ERR_IO) &&
                    (errno == EAGAIN || errno == EWOULDBLOCK || now_ms() >= o->deadline);
    char detail[128];
    snprintf(detail, sizeof detail, "%s",
             o->ctx && o->ctx->errstr[0] ? o->ctx->errstr : "connection lost");
    return fail(o, timed_out ? SEAM_ERROR_TIMEOUT : SEAM_ERROR_TRANSPORT, what,
                timed_out ? "no answer within the timeout" : detail);
}

/* The time left for this operation, as the socket timeout; 0 when none is left. */
static int arm(op *o)
{
    long long left = o->deadline - now_ms();
    if (left <= 0)
        return 0;
    redisSetTimeout(o->ctx, tv_of(left));
    return 1;
}

static int connect_new(op *o);

static redisReply *command(op *o, int argc, const char **argv, const size_t *lens, const char *what)
{
    if (!arm(o)) {
        fail(o, SEAM_ERROR_TIMEOUT, what, "no answer within the timeout");
        return NULL;
    }
    redisReply *rep = redisCommandArgv(o->ctx, argc, argv, lens);
    if (!rep && o->pooled && (o->ctx->err == REDIS_ERR_EOF || o->ctx->err == REDIS_ERR_IO) &&
        errno != EAGAIN && errno != EWOULDBLOCK && now_ms() < o->deadline) {
        /* An idle connection the server (its `timeout`) or a middlebox closed
         * meanwhile: the command never reached Redis. One fresh connection,
         * within the same deadline, before calling the store away. */
        redisFree(o->ctx);
        o->ctx = NULL;
        o->pooled = 0;
        if (connect_new(o) != SEAM_OK || !arm(o))
            return NULL;
        rep = redisCommandArgv(o->ctx, argc, argv, lens);
    }
    o->pooled = 0;
    if (!rep) {
        ctx_fail(o, what);
        return NULL;
    }
    if (rep->type == REDIS_REPLY_ERROR) {
        char detail[200];
        snprintf(detail, sizeof detail, "%.*s", (int)(rep->len < 190 ? rep->len : 190), rep->str);
        freeReplyObject(rep);
        /* The server answered: the connection itself is fine, but the caller
         * cannot use the answer; treated like any failure (local stands in). */
        fail(o, SEAM_ERROR_TRANSPORT, what, detail);
        return NULL;
    }
    return rep;
}

static int connect_new(op *o)
{
    rd *r = o->r;
    o->pooled = 0;
    long long left = o->deadline - now_ms();
    if (left <= 0)
        return fail(o, SEAM_ERROR_TIMEOUT, "connect", "no answer within the timeout");
    o->ctx = r->socket ? redisConnectUnixWithTimeout(r->socket, tv_of(left))
                       : redisConnectWithTimeout(r->host, r->port, tv_of(left));
    if (!o->ctx)
        return fail(o, SEAM_ERROR_RESOURCE, "connect", "out of memory");
    if (o->ctx->err)
        return ctx_fail(o, "connect");
    if (r->password) {
        const char *argv[] = { "AUTH", r->password };
        redisReply *rep = command(o, 2, argv, NULL, "AUTH");
        if (!rep)
            return SEAM_ERR_PROVIDER;
        freeReplyObject(rep);
    }
    if (r->db) {
        char db[16];
        snprintf(db, sizeof db, "%d", r->db);
        const char *argv[] = { "SELECT", db };
        redisReply *rep = command(o, 2, argv, NULL, "SELECT");
        if (!rep)
            return SEAM_ERR_PROVIDER;
        freeReplyObject(rep);
    }
    return SEAM_OK;
}

static int begin(op *o, rd *r, seam_error *err)
{
    memset(o, 0, sizeof *o);
    o->r = r;
    o->err = err;
    o->deadline = now_ms() + r->timeout_ms;
    sigset_t pipe_set, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigpending(&pending);
    o->had_pipe = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &o->old_mask);
    pthread_mutex_lock(&r->lock);
    if (r->n_idle)
        o->ctx = r->idle[--r->n_idle];
    pthread_mutex_unlock(&r->lock);
    if (o->ctx) {
        o->pooled = 1;
        return SEAM_OK;
    }
    return connect_new(o);
}

/* Returns the connection to the pool (when it is still good) and restores
 * the signal mask, consuming a SIGPIPE this operation caused. Passes rc on. */
static int end(op *o, int rc)
{
    if (o->ctx) {
        pthread_mutex_lock(&o->r->lock);
        if (o->r->n_idle < POOL_MAX) {
            o->r->idle[o->r->n_idle++] = o->ctx;
            o->ctx = NULL;
        }
        pthread_mutex_unlock(&o->r->lock);
        if (o->ctx)
            redisFree(o->ctx);
    }
    if (!o->had_pipe) {
        sigset_t pending, pipe_set;
        sigpending(&pending);
        if (sigismember(&pending, SIGPIPE)) {
            sigemptyset(&pipe_set);
            sigaddset(&pipe_set, SIGPIPE);
            struct timespec zero = { 0, 0 };
            while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
                ;
        }
    }
    pthread_sigmask(SIG_SETMASK, &o->old_mask, NULL);
    return rc;
}

static int key_of(rd *r, const char *name, char *out)
{
    int n = snprintf(out, KEY_MAX, "%s%s", r->prefix, name);
    return n > 0 && n < KEY_MAX;
}

static long long reply_int(const redisReply *rep)
{
    if (rep->type == REDIS_REPLY_INTEGER)
        return rep->integer;
    if (rep->type == REDIS_REPLY_STRING)
        return strtoll(rep->str, NULL, 10);
    return 0;
}

static int bad_name(seam_error *err)
{
    seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "redis: a state name is too long");
    return SEAM_ERR_INVALID;
}

/* EVAL script with one key and the given arguments; the reply or NULL (failed). */
static redisReply *eval1(op *o, const char *script, const char *key, int argc, const char **args,
                         const char *what)
{
    const char *argv[8] = { "EVAL", script, "1", key };
    for (int i = 0; i < argc && i < 4; i++)
        argv[4 + i] = args[i];
    return command(o, 4 + argc, argv, NULL, what);
}

/* Raise only: a hold never shortens what another process set. */
static const char HOLD_LUA[] =
    "local t = redis.call('PTTL', KEYS[1]) "
    "if t < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], '0', 'PX', ARGV[1]) end "
    "return 1";

static int rd_hold(void *inst, const char *name, int64_t ttl_ms, seam_error *err)
{
    rd *r = inst;
    char key[KEY_MAX], ttl[24];
    if (!key_of(r, name, key))
        return bad_name(err);
    snprintf(ttl, sizeof ttl, "%lld", (long long)(ttl_ms > 0 ? ttl_ms : 1));
    op o;
    if (begin(&o, r, err) != SEAM_OK)
        return end(&o, SEAM_ERR_PROVIDER);
    const char *args[] = { ttl };
    redisReply *rep = eval1(&o, HOLD_LUA, key, 1, args, "hold");
    if (!rep)
        return end(&o, SEAM_ERR_PROVIDER);
    freeReplyObject(rep);
    return end(&o, SEAM_OK);
}

static int rd_drop(void *inst, const char *name, seam_error *err)
{
    rd *r = inst;
    char key[KEY_MAX];
    if (!key_of(r, name, key))
        return bad_name(err);
    op o;
    if (begin(&o, r, err) != SEAM_OK)
        return end(&o, SEAM_ERR_PROVIDER);
    const char *argv[] = { "DEL", key };
    redisReply *rep = command(&o, 2, argv, NULL, "drop");
    if (!rep)
        return end(&o, SEAM_ERR_PROVIDER);
    freeReplyObject(rep);
    return end(&o, SEAM_OK);
}

/* Every name's PTTL in one round trip. */
static const char LEFT_LUA[] =
    "local r = {} for i, k in ipairs(KEYS) do r[i] = redis.call('PTTL', k) end return r";

static int rd_left(void *inst, const char *const *names, size_t n, int64_t *left_ms,
                   seam_error *err)
{
    rd *r = inst;
    for (size_t i = 0; i < n; i++)
        left_ms[i] = 0;
    if (!n)
        return SEAM_OK;
    const char **argv = calloc(n + 3, sizeof *argv);
    char *keys = malloc(n * KEY_MAX);
    char count[24];
    if (!argv || !keys) {
        free(argv);
        free(keys);
        seam_error_set(err, SEAM_ERROR_RESOURCE, "redis: out of memory");
        return SEAM_ERR_NOMEM;
    }
    snprintf(count, sizeof count, "%zu", n);
    argv[0] = "EVAL";
    argv[1] = LEFT_LUA;
    argv[2] = count;
    int rc = SEAM_OK;
    for (size_t i = 0; i < n && rc == SEAM_OK; i++) {
        if (!key_of(r, names[i], keys + i * KEY_MAX))
            rc = bad_name(err);
        argv[3 + i] = keys + i * KEY_MAX;
    }
    if (rc == SEAM_OK) {
        op o;
        if (begin(&o, r, err) != SEAM_OK) {
            rc = end(&o, SEAM_ERR_PROVIDER);
        } else {
            redisReply *rep = command(&o, (int)(n + 3), argv, NULL, "left");
            if (!rep) {
                rc = end(&o, SEAM_ERR_PROVIDER);
            } else {
                if (rep->type == REDIS_REPLY_ARRAY)
                    for (size_t i = 0; i < n && i < rep->elements; i++) {
                        long long t = reply_int(rep->element[i]);
                        left_ms[i] = t > 0 ? t : 0; /* -2 absent, -1 no TTL (not ours) */
                    }
                freeReplyObject(rep);
                rc = end(&o, SEAM_OK);
            }
        }
    }
    free(argv);
    free(keys);
    return rc;
}

/* Check against the limit, add, and give a new counter its TTL: one step. */
static const char ADD_LUA[] =
    "local v = tonumber(redis.call('GET', KEYS[1]) or '0') "
    "local limit = tonumber(ARGV[2]) "
    "if limit >= 0 and v >= limit then return {0, v} end "
    "local d = tonumber(ARGV[1]) "
    "if d == 0 then return {1, v} end "
    "v = redis.call('INCRBY', KEYS[1], ARGV[1]) "
    "if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end "
    "return {1, v}";

static int rd_add(void *inst, const char *name, int64_t delta, int64_t limit, int64_t ttl_ms,
                  int64_t *value, int *refused, seam_error *err)
{
    rd *r = inst;
    char key[KEY_MAX], d[24], l[24], t[24];
    *value = 0;
    *refused = 0;
    if (!key_of(r, name, key))
        return bad_name(err);
    snprintf(d, sizeof d, "%lld", (long long)delta);
    snprintf(l, sizeof l, "%lld", (long long)(limit >= 0 ? limit : -1));
    snprintf(t, sizeof t, "%lld", (long long)(ttl_ms > 0 ? ttl_ms : 1));
    op o;
    if (begin(&o, r, err) != SEAM_OK)
        return end(&o, SEAM_ERR_PROVIDER);
    const char *args[] = { d, l, t };
    redisReply *rep = eval1(&o, ADD_LUA, key, 3, args, "add");
    if (!rep)
        return end(&o, SEAM_ERR_PROVIDER);
    if (rep->type == REDIS_REPLY_ARRAY && rep->elements == 2) {
        *refused = reply_int(rep->element[0]) == 0;
        *value = reply_int(rep->element[1]);
    }
    freeReplyObject(rep);
    return end(&o, SEAM_OK);
}

static const char BIND_LUA[] =
    "local v = redis.call('GET', KEYS[1]) "
    "if (not v) or ARGV[2] == '1' then v = ARGV[1] "
    "redis.call('SET', KEYS[1], v, 'PX', ARGV[3]) "
    "else redis.call('PEXPIRE', KEYS[1], ARGV[3]) end "
    "return tonumber(v)";

static int rd_bind(void *inst, const char *name, int64_t proposal, int force, int64_t ttl_ms,
                   int64_t *value, seam_error *err)
{
    rd *r = inst;
    char key[KEY_MAX], p[24], t[24];
    *value = proposal;
    if (!key_of(r, name, key))
        return bad_name(err);
    snprintf(p, sizeof p, "%lld", (long long)proposal);
    snprintf(t, sizeof t, "%lld", (long long)(ttl_ms > 0 ? ttl_ms : 1));
    op o;
    if (begin(&o, r, err) != SEAM_OK)
        return end(&o, SEAM_ERR_PROVIDER);
    const char *args[] = { p, force ? "1" : "0", t };
    redisReply *rep = eval1(&o, BIND_LUA, key, 3, args, "bind");
    if (!rep)
        return end(&o, SEAM_ERR_PROVIDER);
    *value = reply_int(rep);
    freeReplyObject(rep);
    return end(&o, SEAM_OK);
}

static int rd_put(void *inst, const char *name, const void *data, size_t len, int64_t ttl_ms,
                  seam_error *err)
{
    rd *r = inst;
    char key[KEY_MAX], t[24];
    if (!key_of(r, name, key))
        return bad_name(err);
    snprintf(t, sizeof t, "%lld", (long long)(ttl_ms > 0 ? ttl_ms : 1));
    op o;
    if (begin(&o, r, err) != SEAM_OK)
        return end(&o, SEAM_ERR_PROVIDER);
    const char *argv[] = { "SET", key, data, "PX", t };
    size_t lens[] = { 3, strlen(key), len, 2, strlen(t) };
    redisReply *rep = command(&o, 5, argv, lens, "put");
    if (!rep)
        return end(&o, SEAM_ERR_PROVIDER);
    freeReplyObject(rep);
    return end(&o, SEAM_OK);
}

static int rd_get(void *inst, const char *name, void **data, size_t *len, seam_error *err)
{
    rd *r = inst;
    char key[KEY_MAX];
    *data = NULL;
    *len = 0;
    if (!key_of(r, name, key))
        return bad_name(err);
    op o;
    if (begin(&o, r, err) != SEAM_OK)
        return end(&o, SEAM_ERR_PROVIDER);
    const char *argv[] = { "GET", key };
    redisReply *rep = command(&o, 2, argv, NULL, "get");
    if (!rep)
        return end(&o, SEAM_ERR_PROVIDER);
    int rc = SEAM_OK;
    if (rep->type == REDIS_REPLY_STRING) {
        if ((*data = malloc(rep->len ? rep->len : 1)) != NULL) {
            memcpy(*data, rep->str, rep->len);
            *len = rep->len;
        } else {
            seam_error_set(err, SEAM_ERROR_RESOURCE, "redis: out of memory");
            rc = SEAM_ERR_NOMEM;
        }
    }
    freeReplyObject(rep);
    return end(&o, rc);
}

/* A SCAN pattern matching the names that begin with text: glob characters escaped. */
static int pattern_of(const char *text, char *out, size_t size)
{
    size_t w = 0;
    for (; *text; text++) {
        if (strchr("*?[]\\", *text)) {
            if (w + 1 >= size)
                return 0;
            out[w++] = '\\';
        }
        if (w + 1 >= size)
            return 0;
        out[w++] = *text;
    }
    if (w + 2 > size)
        return 0;
    out[w++] = '*';
    out[w] = '\0';
    return 1;
}

/* A page of names, with each one's value and time left, in one round trip. */
static const char DESCRIBE_LUA[] =
    "local r = {} for i, k in ipairs(KEYS) do "
    "local v = 0 if redis.call('TYPE', k).ok == 'string' then "
    "v = tonumber(redis.call('GET', k)) or 0 end "
    "r[i] = {v, redis.call('PTTL', k)} end return r";

static int rd_scan(void *inst, const char *prefix, size_t max,
                   void (*fn)(void *ud, const char *name, int64_t value, int64_t left_ms), void *ud,
                   seam_error *err)
{
    rd *r = inst;
    char key[KEY_MAX], pattern[2 * KEY_MAX + 2];
    if (!key_of(r, prefix, key) || !pattern_of(key, pattern, sizeof pattern))
        return bad_name(err);
    size_t plen = strlen(r->prefix), seen = 0;
    char cursor[32] = "0";
    op o;
    if (begin(&o, r, err) != SEAM_OK)
        return end(&o, SEAM_ERR_PROVIDER);
    do {
        const char *argv[] = { "SCAN", cursor, "MATCH", pattern, "COUNT", "200" };
        redisReply *rep = command(&o, 6, argv, NULL, "scan");
        if (!rep)
            return end(&o, SEAM_ERR_PROVIDER);
        if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 2 ||
            rep->element[0]->type != REDIS_REPLY_STRING) {
            freeReplyObject(rep);
            return end(&o, fail(&o, SEAM_ERROR_TRANSPORT, "scan", "unexpected reply"));
        }
        snprintf(cursor, sizeof cursor, "%s", rep->element[0]->str);
        redisReply *names = rep->element[1];
        size_t n = names->elements;
        if (n) {
            const char **dargv = calloc(n + 3, sizeof *dargv);
            char count[24];
            if (!dargv) {
                freeReplyObject(rep);
                seam_error_set(err, SEAM_ERROR_RESOURCE, "redis: out of memory");
                return end(&o, SEAM_ERR_NOMEM);
            }
            snprintf(count, sizeof count, "%zu", n);
            dargv[0] = "EVAL";
            dargv[1] = DESCRIBE_LUA;
            dargv[2] = count;
            for (size_t i = 0; i < n; i++)
                dargv[3 + i] = names->element[i]->str;
            redisReply *vals = command(&o, (int)(n + 3), dargv, NULL, "scan");
            free(dargv);
            if (!vals) {
                freeReplyObject(rep);
                return end(&o, SEAM_ERR_PROVIDER);
            }
            for (size_t i = 0; i < n && i < vals->elements && seen < max; i++) {
                redisReply *pair = vals->element[i];
                if (pair->type != REDIS_REPLY_ARRAY || pair->elements != 2 ||
                    names->element[i]->len < plen)
                    continue;
                long long left = reply_int(pair->element[1]);
                if (left <= 0)
                    continue; /* gone meanwhile, or not ours (no TTL) */
                fn(ud, names->element[i]->str + plen, reply_int(pair->element[0]), left);
                seen++;
            }
            freeReplyObject(vals);
        }
        freeReplyObject(rep);
    } while (strcmp(cursor, "0") != 0 && seen < max);
    return end(&o, SEAM_OK);
}

static void rd_describe(void *inst, char *buf, size_t size)
{
    rd *r = inst;
    if (r->socket)
        snprintf(buf, size, "redis unix:%s db %d%s", r->socket, r->db,
                 r->password ? " (with a password)" : "");
    else
        snprintf(buf, size, "redis %s:%d db %d%s", r->host, r->port, r->db,
                 r->password ? " (with a password)" : "");
}

static void rd_destroy(void *inst)
{
    rd *r = inst;
    if (!r)
        return;
    for (int i = 0; i < r->n_idle; i++)
        redisFree(r->idle[i]);
    if (r->password) {
        explicit_bzero(r->password, strlen(r->password));
        free(r->password);
    }
    free(r->host);
    free(r->socket);
    free(r->prefix);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

static void *rd_create(const seam_state_config *cfg, seam_error *err)
{
    rd *r = calloc(1, sizeof *r);
    if (!r) {
        seam_error_set(err, SEAM_ERROR_RESOURCE, "redis: out of memory");
        return NULL;
    }
    pthread_mutex_init(&r->lock, NULL);
    r->port = cfg->port > 0 ? cfg->port : DEFAULT_PORT;
    r->db = cfg->db;
    r->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : 50;
    r->host = strdup(cfg->host ? cfg->host : DEFAULT_HOST);
    r->prefix = strdup(cfg->prefix ? cfg->prefix : "seam:");
    r->socket = cfg->socket ? strdup(cfg->socket) : NULL;
    r->password = cfg->password ? strdup(cfg->password) : NULL;
    if (!r->host || !r->prefix || (cfg->socket && !r->socket) ||
        (cfg->password && !r->password)) {
        rd_destroy(r);
        seam_error_set(err, SEAM_ERROR_RESOURCE, "redis: out of memory");
        return NULL;
    }
    return r; /* connections are made on first use, within the timeout */
}

static const seam_state_vtable redis_state = {
    .abi_version = SEAM_PLUGIN_ABI_VERSION,
    .size = sizeof(seam_state_vtable),
    .id = "redis",
    .description = "Redis (hiredis): state shared by every seam process using the same server",
    .create = rd_create,
    .destroy = rd_destroy,
    .describe = rd_describe,
    .hold = rd_hold,
    .drop = rd_drop,
    .left = rd_left,
    .add = rd_add,
    .bind = rd_bind,
    .put = rd_put,
    .get = rd_get,
    .scan = rd_scan,
};

static int init(seam_registrar *r)
{
    return seam_registrar_add_state(r, &redis_state);
}

SEAM_PLUGIN_DEFINE(init)
