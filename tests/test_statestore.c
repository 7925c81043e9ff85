/* test_statestore.c — the state store's two layers, one by one, on a real
 * redis-server: the Redis backend's table (every operation's contract:
 * atomic, TTL on every key, a hold never shortened, a limit refusing without
 * changing, delta 0 not creating, bind renewing, blobs, scan by prefix, the
 * timeout), and libcore/state.c in front of it (writes mirrored locally, the
 * longer of two cooldowns, checkpoints surviving an outage from the local
 * copy, the store set aside and taken back, each said once). state.c is
 * compiled in; this program stands in for the registry, and loads redis.so
 * itself, capturing its table through seam_registrar_add_state (exported
 * from here, so the plugin's call lands here). Skips (77) without
 * redis-server or the plugin. */
#include "redisserver.h"
#include "state.h"
#include "testutil.h"

#include <CUnit/Basic.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static tu_redis *redis;
static const seam_state_vtable *redis_vt;
/* Under valgrind (make check-valgrind) everything is ~30 times slower: the
 * timeouts grow, and the hang that must outlast them too. */
static int slow;
#define TIMEOUT_MS (slow ? 1500 : 50)

/* The suite's init: the redis-server every test shares. */
static int start(void)
{
    slow = getenv("SEAM_UNDER_VALGRIND") != NULL;
    redis = tu_redis_start_at_end(NULL);
    return redis ? 0 : -1;
}

/* ---- standing in for the registry -------------------------------------------------- */

struct seam_registrar {
    int unused;
};

int seam_registrar_add_state(seam_registrar *r, const seam_state_vtable *vt)
{
    (void)r;
    redis_vt = vt;
    return SEAM_OK;
}

int seam_registrar_add(seam_registrar *r, const seam_provider_vtable *vt)
{
    (void)r;
    (void)vt;
    return SEAM_ERR_PLUGIN;
}

int seam_registry_state(seam_registry *r, const char *id, const seam_state_vtable **out,
                        seam_error *err)
{
    (void)r;
    (void)err;
    *out = strcmp(id, "redis") == 0 ? redis_vt : NULL;
    return *out ? SEAM_OK : SEAM_ERR_NOT_FOUND;
}

/* ---- the backend's table ------------------------------------------------------------------- */

static void *backend(const char *prefix, int64_t timeout_ms)
{
    seam_state_config cfg = { sizeof cfg, "127.0.0.1", tu_redis_port(redis), NULL, NULL, 0,
                              prefix, timeout_ms };
    seam_error err;
    seam_error_clear(&err);
    void *b = redis_vt->create(&cfg, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    return b;
}

static long long pttl(const char *key)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "PTTL %s", key);
    char *r = tu_redis_cmd(redis, NULL, cmd);
    long long v = r && r[0] == ':' ? atoll(r + 1) : -99;
    free(r);
    return v;
}

typedef struct listing {
    char text[1024];
} listing;

static void on_name(void *ud, const char *name, int64_t value, int64_t left_ms)
{
    listing *l = ud;
    size_t used = strlen(l->text);
    snprintf(l->text + used, sizeof l->text - used, "%s=%lld%s;", name, (long long)value,
             left_ms > 0 ? "" : "(no ttl)");
}

static void test_table(void)
{
    void *b = backend("v1:", 5000); /* semantics here, not speed (valgrind is slow) */
    seam_error err;
    seam_error_clear(&err);
    char where[256];
    redis_vt->describe(b, where, sizeof where);
    char want[128];
    snprintf(want, sizeof want, "redis 127.0.0.1:%d db 0", tu_redis_port(redis));
    CU_ASSERT_STRING_EQUAL(where, want);

    /* hold: raised, never lowered; left; drop. */
    CU_ASSERT_EQUAL(redis_vt->hold(b, "h", 30000, &err), SEAM_OK);
    CU_ASSERT_EQUAL(redis_vt->hold(b, "h", 1000, &err), SEAM_OK);
    long long t = pttl("v1:h");
    CU_ASSERT_TRUE(t > 29000 && t <= 30000);
    CU_ASSERT_EQUAL(redis_vt->hold(b, "h", 60000, &err), SEAM_OK);
    CU_ASSERT_TRUE(pttl("v1:h") > 59000);
    const char *names[] = {"h", "absent"};
    int64_t left[2] = {-1, -1};
    CU_ASSERT_EQUAL(redis_vt->left(b, names, 2, left, &err), SEAM_OK);
    CU_ASSERT_TRUE(left[0] > 59000 && left[0] <= 60000);
    CU_ASSERT_EQUAL(left[1], 0);
    CU_ASSERT_EQUAL(redis_vt->drop(b, "h", &err), SEAM_OK);
    CU_ASSERT_EQUAL(pttl("v1:h"), -2);

    /* add: delta 0 reads without creating; a limit refuses and changes nothing;
     * the TTL is the creator's. */
    int64_t v = -1;
    int refused = -1;
    CU_ASSERT_EQUAL(redis_vt->add(b, "c", 0, 5, 1000, &v, &refused, &err), SEAM_OK);
    CU_ASSERT_EQUAL(v, 0);
    CU_ASSERT_EQUAL(refused, 0);
    CU_ASSERT_EQUAL(pttl("v1:c"), -2);
    CU_ASSERT_EQUAL(redis_vt->add(b, "c", 4, -1, 50000, &v, &refused, &err), SEAM_OK);
    CU_ASSERT_EQUAL(v, 4);
    CU_ASSERT_EQUAL(redis_vt->add(b, "c", 3, 5, 999999, &v, &refused, &err), SEAM_OK);
    CU_ASSERT_EQUAL(v, 7);
    CU_ASSERT_EQUAL(refused, 0);
    CU_ASSERT_EQUAL(redis_vt->add(b, "c", 1, 5, 999999, &v, &refused, &err), SEAM_OK);
    CU_ASSERT_EQUAL(v, 7);
    CU_ASSERT_EQUAL(refused, 1);
    t = pttl("v1:c");
    CU_ASSERT_TRUE(t > 49000 && t <= 50000);

    /* bind: set if absent, or forced; the TTL renewed each time. */
    CU_ASSERT_EQUAL(redis_vt->bind(b, "l", 2, 0, 10000, &v, &err), SEAM_OK);
    CU_ASSERT_EQUAL(v, 2);
    CU_ASSERT_EQUAL(redis_vt->bind(b, "l", 5, 0, 40000, &v, &err), SEAM_OK);
    CU_ASSERT_EQUAL(v, 2);
    CU_ASSERT_TRUE(pttl("v1:l") > 39000);
    CU_ASSERT_EQUAL(redis_vt->bind(b, "l", 5, 1, 40000, &v, &err), SEAM_OK);
    CU_ASSERT_EQUAL(v, 5);

    /* blobs, binary-safe. */
    const char blob[] = "job\0state\x01\xff";
    CU_ASSERT_EQUAL(redis_vt->put(b, "ck:job-1", blob, sizeof blob, 20000, &err), SEAM_OK);
    void *data = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL(redis_vt->get(b, "ck:job-1", &data, &len, &err), SEAM_OK);
    CU_ASSERT_EQUAL(len, sizeof blob);
    CU_ASSERT_TRUE(data && memcmp(data, blob, sizeof blob) == 0);
    free(data);
    CU_ASSERT_EQUAL(redis_vt->get(b, "ck:none", &data, &len, &err), SEAM_OK);
    CU_ASSERT_PTR_NULL(data);
    t = pttl("v1:ck:job-1");
    CU_ASSERT_TRUE(t > 19000 && t <= 20000);

    /* scan: names under a prefix (glob characters taken literally), without
     * the instance's prefix. */
    CU_ASSERT_EQUAL(redis_vt->hold(b, "cool:p*:0", 5000, &err), SEAM_OK);
    CU_ASSERT_EQUAL(redis_vt->hold(b, "cool:px:0", 5000, &err), SEAM_OK);
    listing l;
    memset(&l, 0, sizeof l);
    CU_ASSERT_EQUAL(redis_vt->scan(b, "cool:p*", 100, on_name, &l, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(l.text, "cool:p*:0=0;");
    memset(&l, 0, sizeof l);
    CU_ASSERT_EQUAL(redis_vt->scan(b, "l", 100, on_name, &l, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(l.text, "l=5;");

    /* Every key it wrote carries a TTL. */
    char *keys = tu_redis_cmd(redis, NULL, "EVAL \"local n = 0 for _, k in ipairs(redis.call('KEYS', 'v1:*')) do if redis.call('PTTL', k) < 0 then n = n + 1 end end return n\" 0");
    CU_ASSERT_STRING_EQUAL(keys ? keys : "", ":0");
    free(keys);
    redis_vt->destroy(b);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_table_timeout(void)
{
    /* Nothing listens there: refused at once, an error, no password in it. */
    seam_state_config cfg = { sizeof cfg, "127.0.0.1", 1, NULL, "pw-secret", 0, "v2:", TIMEOUT_MS };
    seam_error err;
    seam_error_clear(&err);
    void *b = redis_vt->create(&cfg, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    char where[256];
    redis_vt->describe(b, where, sizeof where);
    CU_ASSERT_PTR_NULL(strstr(where, "pw-secret"));
    CU_ASSERT_NOT_EQUAL(redis_vt->hold(b, "x", 1000, &err), SEAM_OK);
    CU_ASSERT_TRUE(err.kind == SEAM_ERROR_TRANSPORT || err.kind == SEAM_ERROR_TIMEOUT);
    CU_ASSERT_PTR_NULL(strstr(err.message, "pw-secret"));
    redis_vt->destroy(b);

    /* A server that hangs: the operation gives up at the timeout. */
    b = backend("v2:", TIMEOUT_MS);
    int64_t v;
    int refused;
    CU_ASSERT_EQUAL(redis_vt->add(b, "warm", 1, -1, 1000, &v, &refused, &err), SEAM_OK);
    tu_redis_hang hang;
    tu_redis_hang_start(&hang, redis, slow ? 5 : 0.6);
    usleep(slow ? 1000 * 1000 : 100 * 1000);
    long long t0 = now_ms();
    seam_error_clear(&err);
    CU_ASSERT_NOT_EQUAL(redis_vt->add(b, "warm", 1, -1, 1000, &v, &refused, &err), SEAM_OK);
    long long took = now_ms() - t0;
    fprintf(stderr, "[hung: gave up after %lld ms] ", took);
    CU_ASSERT_TRUE(took >= TIMEOUT_MS - 10 && took < TIMEOUT_MS + (slow ? 2000 : 250));
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_TIMEOUT);
    tu_redis_hang_wait(&hang);
    /* ...and it answers again on the next operation (a new connection). */
    CU_ASSERT_EQUAL(redis_vt->add(b, "warm", 1, -1, 1000, &v, &refused, &err), SEAM_OK);
    redis_vt->destroy(b);
}

static void test_table_unix_socket(void)
{
    char *dir = tu_mkdtemp();
    char *sock = tu_path(dir, "redis.sock");
    const char *args[] = {"--unixsocket", sock, "--unixsocketperm", "700", NULL};
    tu_redis *local = tu_redis_start(args);
    CU_ASSERT_PTR_NOT_NULL_FATAL(local);
    seam_state_config cfg = { sizeof cfg, NULL, 0, sock, NULL, 0, "v4:", slow ? 10000 : 2000 };
    seam_error err;
    seam_error_clear(&err);
    void *b = redis_vt->create(&cfg, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    char where[512], want[512];
    redis_vt->describe(b, where, sizeof where);
    snprintf(want, sizeof want, "redis unix:%s db 0", sock);
    CU_ASSERT_STRING_EQUAL(where, want);
    CU_ASSERT_EQUAL(redis_vt->hold(b, "over-the-socket", 9000, &err), SEAM_OK);
    char *r = tu_redis_cmd(local, NULL, "PTTL v4:over-the-socket");
    CU_ASSERT_TRUE(r && r[0] == ':' && atoll(r + 1) > 8000);
    free(r);
    redis_vt->destroy(b);
    tu_redis_stop(local);
    tu_rm_rf(dir);
    free(sock);
    free(dir);
}

/* ---- state.c in front of it ---------------------------------------------------------------- */

static void test_layer(void)
{
    /* A killed Redis refuses at once: the long timeout only keeps a busy
     * machine from setting the store aside while it is up. */
    seam_conf_state conf = { .backend = "redis", .host = "127.0.0.1", .port = tu_redis_port(redis),
                             .prefix = "v3:", .timeout_ms = slow ? 10000 : 2000 };
    tu_logbook lb;
    memset(&lb, 0, sizeof lb);
    seam_state_hooks hooks = { NULL, NULL, tu_on_log, &lb };
    seam_state *st = seam_state_new(&conf, (seam_registry *)&conf, &hooks);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    char where[256];
    int shared = -1;
    seam_state_describe(st, where, sizeof where, &shared);
    CU_ASSERT_EQUAL(shared, 1);

    /* A checkpoint goes to both stores. */
    seam_state_put(st, "ck:job-9", "resume-at-42", 12, 60000);
    void *data = NULL;
    size_t len = 0;
    char *direct = tu_redis_cmd(redis, NULL, "GET v3:ck:job-9");
    CU_ASSERT_STRING_EQUAL(direct ? direct : "", "$12");
    free(direct);

    /* The longer of the two stores' cooldowns holds: another process set a
     * longer one in Redis. */
    seam_state_hold(st, "cool:p:0", 5000);
    char *r = tu_redis_cmd(redis, NULL, "SET v3:cool:p:0 0 PX 90000");
    free(r);
    const char *names[] = {"cool:p:0"};
    int64_t left = 0;
    seam_state_left(st, names, 1, &left);
    CU_ASSERT_TRUE(left > 85000);

    /* Idle connections the server closed (its `timeout`) are replaced
     * quietly: not a store that went away. */
    r = tu_redis_cmd(redis, NULL, "CONFIG SET timeout 1");
    free(r);
    usleep(2600 * 1000);
    r = tu_redis_cmd(redis, NULL, "CONFIG SET timeout 0");
    free(r);
    seam_state_hold(st, "cool:q:0", 5000);
    CU_ASSERT_EQUAL(lb.n, 0);
    CU_ASSERT_TRUE(pttl("v3:cool:q:0") > 0);

    /* A counter refused by its limit. */
    int64_t v = 0;
    CU_ASSERT_EQUAL(seam_state_add(st, "budget:x", 3, -1, 60000, &v), 1);
    CU_ASSERT_EQUAL(seam_state_add(st, "budget:x", 0, 3, 60000, &v), 0);
    CU_ASSERT_EQUAL(v, 3);
    CU_ASSERT_EQUAL(lb.n, 0);

    /* Redis away: the checkpoint is read from the local copy, the counter
     * goes on from this process's own part, and it is said once. */
    tu_redis_kill(redis);
    CU_ASSERT_EQUAL(seam_state_get(st, "ck:job-9", &data, &len), SEAM_OK);
    CU_ASSERT_EQUAL(len, 12);
    CU_ASSERT_TRUE(data && memcmp(data, "resume-at-42", 12) == 0);
    free(data);
    CU_ASSERT_EQUAL(seam_state_add(st, "budget:x", 0, 3, 60000, &v), 0);
    CU_ASSERT_EQUAL(seam_state_bind(st, "lease:p:ab", 1, 0, 60000), 1);
    seam_state_left(st, names, 1, &left);
    CU_ASSERT_TRUE(left > 0 && left <= 5000); /* only what this process knew */
    CU_ASSERT_EQUAL(lb.n, 1);
    seam_state_describe(st, where, sizeof where, &shared);
    CU_ASSERT_EQUAL(shared, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(where, "not answering"));

    /* Back: not before the retry interval, then said once. */
    CU_ASSERT_FATAL(tu_redis_restart(redis) == 0);
    seam_state_put(st, "ck:job-10", "x", 1, 60000);
    CU_ASSERT_EQUAL(lb.n, 1);
    r = tu_redis_cmd(redis, NULL, "EXISTS v3:ck:job-10");
    CU_ASSERT_STRING_EQUAL(r ? r : "", ":0"); /* still local: the retry is not due */
    free(r);
    usleep(1100 * 1000);
    seam_state_put(st, "ck:job-11", "y", 1, 60000);
    CU_ASSERT_EQUAL(lb.n, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, "answers again"));
    r = tu_redis_cmd(redis, NULL, "EXISTS v3:ck:job-11");
    CU_ASSERT_STRING_EQUAL(r ? r : "", ":1");
    free(r);
    seam_state_free(st);
}

static void test_layer_without_backend(void)
{
    seam_conf_state conf = { .backend = "etcd" };
    tu_logbook lb = { .n = 0 };
    seam_state_hooks hooks = { NULL, NULL, tu_on_log, &lb };
    seam_state *st = seam_state_new(&conf, (seam_registry *)&conf, &hooks);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    CU_ASSERT_EQUAL(lb.n, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, "state backend \"etcd\" is not installed"));
    seam_state_put(st, "ck:a", "1", 1, 1000);
    void *data = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL(seam_state_get(st, "ck:a", &data, &len), SEAM_OK);
    CU_ASSERT_EQUAL(len, 1);
    free(data);
    seam_state_free(st);

    /* A password file that cannot be read: the same, said once, no secret. */
    conf.backend = "redis";
    conf.password_file = "/nonexistent/redis.pw";
    memset(&lb, 0, sizeof lb);
    st = seam_state_new(&conf, (seam_registry *)&conf, &hooks);
    CU_ASSERT_EQUAL(lb.n, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, "state.password_file: cannot read /nonexistent/redis.pw"));
    seam_state_free(st);
}

static void close_plugin(void *h)
{
    dlclose(h);
}

static const tu_test tests[] = {
    { "the redis backend's table", test_table },
    { "the redis backend's timeout", test_table_timeout },
    { "the redis backend over a unix socket", test_table_unix_socket },
    { "state.c in front of redis", test_layer },
    { "a backend that cannot be used", test_layer_without_backend },
    { NULL, NULL },
};

int main(void)
{
    char *plugin = tu_redis_plugin_path("test_statestore");
    if (!plugin)
        return 77;
    void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
    free(plugin);
    int (*init)(seam_registrar *) = h ? (int (*)(seam_registrar *))dlsym(h, "seam_plugin_init") : NULL;
    seam_registrar rg = { 0 };
    if (!init || init(&rg) != SEAM_OK || !redis_vt) {
        fprintf(stderr, "test_statestore: the redis plugin was not built or not loadable: skipped\n");
        return 77;
    }
    tu_at_end(close_plugin, h);
    return tu_run_suite("statestore", tests, start);
}
