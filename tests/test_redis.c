/* test_redis.c — state shared across processes on a real redis-server (issue
 * 18): a cooldown one process learns is honoured by another, which never
 * calls the provider; sticky sessions keep their key across processes and
 * round robin spreads over them; a budget holds across two processes to
 * within one request; a Redis that dies, hangs or comes back never fails a
 * request, never holds one up past the state timeout, and is reported once
 * each way through the log callback. Each "process" is a fork()ed child with
 * its own client; the fake provider runs in this process and counts every
 * request it receives. Skips (77) without redis-server or the redis plugin. */
#include "fakeserver.h"
#include "redisserver.h"
#include "testutil.h"

#include <CUnit/Basic.h>
#include <pthread.h>
#include <seam/seam.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static fake_server *srv;
static tu_redis *redis;
static const char *tmpdir; /* tu_dir() */
static int conf_serial;
/* Under valgrind (make check-valgrind) everything is ~30 times slower: the
 * state timeout grows, and so do the hang that must outlast it and the bounds. */
static int slow;
#define TIMEOUT_MS (slow ? 1500 : 50)
/* Where a test is about sharing, not about a slow store: a machine busy
 * with other work (or a sanitizer build) must not push it onto local state. */
#define SHARING_TIMEOUT_MS (slow ? 10000 : 2000)

/* The suite's init: the fake server, the temp dir and a redis-server that
 * every test shares. */
static int start(void)
{
    slow = getenv("SEAM_UNDER_VALGRIND") != NULL;
    int have_server = tu_start_server_and_dir(&srv, &tmpdir) == 0;
    redis = tu_redis_start_at_end(NULL);
    if (!have_server || !redis) {
        fprintf(stderr, "test_redis: cannot start the fake server or redis-server\n");
        return -1;
    }
    return 0;
}

static const char *ok_body = "data: fine\n\nevent: stop\ndata: 3\n\n";

static void push_ok(void)
{
    fake_response fr = {.body = ok_body, .chunked = 1};
    fake_server_push(srv, &fr);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A conf file: the plugins, `state` (NULL: none, the local store), providers
 * on the fake server, chains. Returns its path (malloc'ed). */
static char *write_conf(const char *state)
{
    char *text = malloc(16384);
    const char *url = fake_server_url(srv);
    snprintf(text, 16384,
             "plugin_path = [ \"%s\", \"%s/tests/plugins/.libs\" ];\n"
             "model_catalog = \"\";\n"
             "%s\n"
             "providers = {\n"
             "  w = { plugin = \"testwire\"; base_url = \"%s\"; api_key = \"k-inline\"; };\n"
             "  w2 = { plugin = \"testwire\"; base_url = \"%s/second\"; };\n"
             "  w3 = { plugin = \"testwire\"; base_url = \"%s/third\"; };\n"
             "  pool = { plugin = \"testwire\"; base_url = \"%s/pool\";\n"
             "           api_keys_env = [ \"SEAM_R_K1\", \"SEAM_R_K2\" ]; };\n"
             "  sticky = { plugin = \"testwire\"; base_url = \"%s/sticky\"; key_selection = \"sticky\";\n"
             "             api_keys_env = [ \"SEAM_R_K1\", \"SEAM_R_K2\" ]; };\n"
             "};\n"
             "chains = { c = ( { provider = \"w\"; model = \"m\"; }, { provider = \"w2\"; model = \"m\"; },\n"
             "                 { provider = \"w3\"; model = \"m\"; } );\n"
             "           d = ( { provider = \"w2\"; model = \"m\"; }, { provider = \"w3\"; model = \"m\"; } );\n"
             "           p = ( { provider = \"pool\"; model = \"m\"; } );\n"
             "           s = ( { provider = \"sticky\"; model = \"m\"; } ); };\n",
             tu_plugin_dir(), TOP_BUILDDIR, state ? state : "", url, url, url, url, url);
    char name[64];
    snprintf(name, sizeof name, "redis-%d.conf", conf_serial++);
    char *path = tu_path(tmpdir, name);
    CU_ASSERT_FATAL(tu_write_file(path, text) == 0);
    free(text);
    return path;
}

/* The state section for the test server, under a prefix of its own so that
 * tests do not see each other's entries. */
static char *redis_state_timeout(const char *prefix, int timeout_ms)
{
    char *s = malloc(1024);
    snprintf(s, 1024,
             "state = { backend = \"redis\"; host = \"127.0.0.1\"; port = %d; prefix = \"%s\";\n"
             "          timeout_ms = %d; };\n",
             tu_redis_port(redis), prefix, timeout_ms);
    return s;
}

static char *redis_state(const char *prefix)
{
    return redis_state_timeout(prefix, SHARING_TIMEOUT_MS);
}

/* ---- one library process -------------------------------------------------------------- */

typedef struct logbook {
    pthread_mutex_t lock;
    char text[4096];
    int lines;
} logbook;

static void on_log(void *ud, int level, const char *message)
{
    logbook *lb = ud;
    (void)level;
    pthread_mutex_lock(&lb->lock);
    size_t used = strlen(lb->text);
    snprintf(lb->text + used, sizeof lb->text - used, "%s\n", message);
    lb->lines++;
    pthread_mutex_unlock(&lb->lock);
}

static seam_client *client_from(const char *conf, logbook *lb)
{
    seam_client_options o = {sizeof o, conf, 1};
    seam_client *c = NULL;
    seam_error err;
    seam_error_clear(&err);
    if (seam_client_new(&o, &c, &err) != SEAM_OK) {
        fprintf(stderr, "client: %s\n", err.message);
        return NULL;
    }
    if (lb) {
        memset(lb, 0, sizeof *lb);
        pthread_mutex_init(&lb->lock, NULL);
        seam_client_set_log(c, on_log, lb);
    }
    return c;
}

/* One request through chain (affinity may be NULL): "ok PROVIDER" or
 * "error KIND" into out, with how long it took in *ms. */
static void ask(seam_client *c, const char *chain, const char *affinity, char *out, size_t size,
                long long *ms)
{
    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "hello");
    seam_call_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.chain = chain;
    o.affinity = affinity;
    seam_result *res = NULL;
    seam_error err;
    seam_error_clear(&err);
    long long t0 = now_ms();
    int rc = seam_generate(c, req, &o, &res, &err);
    if (ms)
        *ms = now_ms() - t0;
    if (rc == SEAM_OK)
        snprintf(out, size, "ok %s", seam_result_provider(res));
    else
        snprintf(out, size, "error %s: %s", seam_error_kind_name(err.kind), err.message);
    seam_result_free(res);
    seam_request_free(req);
}

/* Runs fn(arg, out) in a child process (another library process, with its
 * own client) and returns what it wrote into out. */
typedef void (*child_fn)(void *arg, char *out, size_t size);

static pid_t child_start(child_fn fn, void *arg, int *fd)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        char out[4096] = "";
        fn(arg, out, sizeof out);
        ssize_t w = write(p[1], out, strlen(out));
        (void)w;
        _exit(0);
    }
    close(p[1]);
    *fd = p[0];
    return pid;
}

static void child_wait(pid_t pid, int fd, char *out, size_t size)
{
    size_t n = 0;
    ssize_t got;
    while (n + 1 < size && (got = read(fd, out + n, size - 1 - n)) > 0)
        n += (size_t)got;
    out[n] = '\0';
    close(fd);
    int status = 0;
    waitpid(pid, &status, 0);
    /* Under valgrind a forked child reports the parent's threads' buffers
     * (the fake server's) as lost and exits with valgrind's error status:
     * what it wrote to the pipe is what counts there. */
    CU_ASSERT_TRUE(WIFEXITED(status) && (slow || WEXITSTATUS(status) == 0));
}

static void in_child(child_fn fn, void *arg, char *out, size_t size)
{
    int fd = -1;
    pid_t pid = child_start(fn, arg, &fd);
    CU_ASSERT_FATAL(pid > 0);
    child_wait(pid, fd, out, size);
}

typedef struct one_call {
    const char *conf, *chain, *affinity;
    int n;  /* requests to make (0: 1) */
} one_call;

static void call_child(void *arg, char *out, size_t size)
{
    one_call *oc = arg;
    seam_client *c = client_from(oc->conf, NULL);
    if (!c) {
        snprintf(out, size, "no client");
        return;
    }
    size_t used = 0;
    for (int i = 0; i < (oc->n ? oc->n : 1); i++) {
        char line[1024];
        ask(c, oc->chain, oc->affinity, line, sizeof line, NULL);
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? "|" : "", line);
        if (used >= size)
            break;
    }
    seam_client_free(c);
}

/* One request on chain of conf from another process, answered by an ok the
 * server is given first; what the process printed goes to out. The server's
 * request count before it. */
static size_t ok_in_child(const char *conf, const char *chain, char *out, size_t size)
{
    size_t before = fake_server_request_count(srv);
    push_ok();
    one_call oc = {conf, chain, NULL, 1};
    in_child(call_child, &oc, out, size);
    return before;
}

static const char *path_of(size_t i)
{
    const char *p = fake_server_request_path(srv, i);
    return p ? p : "(none)";
}

static const char *auth_of(size_t i)
{
    const char *v = fake_server_request_header(srv, i, "Authorization");
    return v ? v : "(none)";
}

/* ---- the tests ------------------------------------------------------------------------- */

static void test_shared_cooldown(void)
{
    char *state = redis_state("t1:");
    char *conf = write_conf(state);
    char *local_conf = write_conf(NULL);

    /* Process A: w answers 429 with Retry-After: 30; w2 serves. */
    size_t before = fake_server_request_count(srv);
    fake_server_push_json(srv, 429, "{}", "Retry-After: 30\r\n");
    push_ok();
    char out[4096];
    one_call a = {conf, "c", NULL, 1};
    in_child(call_child, &a, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "ok w2");
    CU_ASSERT_EQUAL_FATAL(fake_server_request_count(srv), before + 2);
    CU_ASSERT_STRING_EQUAL(path_of(before), "/whole");

    /* The store holds the cooldown, with its TTL. */
    char *ttl = tu_redis_cmd(redis, NULL, "PTTL t1:cool:w:0");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ttl);
    long long left = ttl[0] == ':' ? atoll(ttl + 1) : -1;
    CU_ASSERT_TRUE(left > 25000 && left <= 30000);
    free(ttl);

    /* Process B skips w without sending it a request: w2 serves at once. */
    before = ok_in_child(conf, "c", out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "ok w2");
    CU_ASSERT_EQUAL_FATAL(fake_server_request_count(srv), before + 1);
    CU_ASSERT_STRING_EQUAL(path_of(before), "/second/whole");

    /* The control: a process on the local store alone knows nothing of it
     * and calls w. */
    before = ok_in_child(local_conf, "c", out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "ok w");
    CU_ASSERT_STRING_EQUAL(path_of(before), "/whole");
    free(state);
    free(conf);
    free(local_conf);
}

static void test_key_pools_across_processes(void)
{
    setenv("SEAM_R_K1", "key-one", 1);
    setenv("SEAM_R_K2", "key-two", 1);
    char *state = redis_state("t2:");
    char *conf = write_conf(state);
    char out[4096];

    /* Round robin: the position is shared, so two processes each making one
     * request use the two keys (alone, each would start at the first). */
    size_t before = fake_server_request_count(srv);
    push_ok();
    push_ok();
    one_call p = {conf, "p", NULL, 1};
    in_child(call_child, &p, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "ok pool");
    in_child(call_child, &p, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "ok pool");
    CU_ASSERT_EQUAL_FATAL(fake_server_request_count(srv), before + 2);
    CU_ASSERT_STRING_NOT_EQUAL(auth_of(before), auth_of(before + 1));

    /* Sticky: process A's session starts on its hashed key, which the
     * provider rejects; A moves to the other key and the session's lease
     * follows it. Process B, which never saw the rejection, sends the same
     * session straight to that key. */
    before = fake_server_request_count(srv);
    fake_server_push_json(srv, 401, "{\"kind\":\"auth\"}", NULL);
    push_ok();
    one_call sa = {conf, "s", "session-42", 1};
    in_child(call_child, &sa, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "ok sticky");
    CU_ASSERT_EQUAL_FATAL(fake_server_request_count(srv), before + 2);
    char first[64], moved[64];
    snprintf(first, sizeof first, "%s", auth_of(before));
    snprintf(moved, sizeof moved, "%s", auth_of(before + 1));
    CU_ASSERT_STRING_NOT_EQUAL(first, moved);

    before = fake_server_request_count(srv);
    push_ok();
    push_ok();
    one_call sb = {conf, "s", "session-42", 2};
    in_child(call_child, &sb, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "ok sticky|ok sticky");
    CU_ASSERT_EQUAL_FATAL(fake_server_request_count(srv), before + 2);
    CU_ASSERT_STRING_EQUAL(auth_of(before), moved);
    CU_ASSERT_STRING_EQUAL(auth_of(before + 1), moved);

    /* The lease is in the store, with a TTL, under a hash of the session. */
    char *keys = tu_redis_cmd(redis, NULL, "KEYS t2:lease:sticky:*");
    CU_ASSERT_PTR_NOT_NULL(keys);
    CU_ASSERT_STRING_EQUAL(keys ? keys : "", "*1");
    free(keys);
    free(state);
    free(conf);
    unsetenv("SEAM_R_K1");
    unsetenv("SEAM_R_K2");
}

typedef struct spender {
    const char *conf;
    int64_t limit;
} spender;

/* Spends from budget "team" until it is spent: check, request, debit 1. */
static void spend_child(void *arg, char *out, size_t size)
{
    spender *sp = arg;
    seam_client *c = client_from(sp->conf, NULL);
    int served = 0, failed = 0;
    seam_error err;
    for (int i = 0; c && i < 100; i++) {
        seam_error_clear(&err);
        int64_t spent = 0;
        int ok = seam_budget_check(c, "team", sp->limit, &spent, &err);
        if (ok != 1)
            break;
        char line[512];
        ask(c, "d", NULL, line, sizeof line, NULL);
        if (strncmp(line, "ok", 2) == 0)
            served++;
        else
            failed++;
        if (seam_budget_debit(c, "team", 1, 3600000, &spent, &err) != SEAM_OK)
            failed++;
    }
    snprintf(out, size, "%d %d", served, failed);
    seam_client_free(c);
}

static void test_budget_across_processes(void)
{
    char *state = redis_state("t3:");
    char *conf = write_conf(state);
    const int limit = 10;
    for (int i = 0; i < 40; i++)
        push_ok();
    size_t before = fake_server_request_count(srv);
    spender sp = {conf, limit};
    int fd1, fd2;
    pid_t p1 = child_start(spend_child, &sp, &fd1);
    pid_t p2 = child_start(spend_child, &sp, &fd2);
    CU_ASSERT_FATAL(p1 > 0 && p2 > 0);
    char o1[256], o2[256];
    child_wait(p1, fd1, o1, sizeof o1);
    child_wait(p2, fd2, o2, sizeof o2);
    int s1 = 0, f1 = 0, s2 = 0, f2 = 0;
    CU_ASSERT_EQUAL(sscanf(o1, "%d %d", &s1, &f1), 2);
    CU_ASSERT_EQUAL(sscanf(o2, "%d %d", &s2, &f2), 2);
    CU_ASSERT_EQUAL(f1 + f2, 0);
    size_t sent = fake_server_request_count(srv) - before;
    CU_ASSERT_EQUAL(sent, (size_t)(s1 + s2));
    /* Within one request of the limit with two processes (alone, each would
     * have spent the whole budget: 20). */
    CU_ASSERT_TRUE(sent >= (size_t)limit && sent <= (size_t)limit + 1);
    fprintf(stderr, "[budget: limit %d, served %d + %d] ", limit, s1, s2);
    char *spent = tu_redis_cmd(redis, NULL, "GET t3:budget:team");
    CU_ASSERT_PTR_NOT_NULL(spent);
    if (spent) {
        char *v = tu_redis_cmd(redis, NULL, "PTTL t3:budget:team");
        CU_ASSERT_TRUE(v && v[0] == ':' && atoll(v + 1) > 0);
        free(v);
    }
    free(spent);
    /* Drain what the children did not use. */
    seam_client *c = client_from(conf, NULL);
    char line[512];
    while (fake_server_request_count(srv) < before + 40) {
        size_t n = fake_server_request_count(srv);
        ask(c, "d", NULL, line, sizeof line, NULL);
        if (fake_server_request_count(srv) == n)
            break;
    }
    seam_client_free(c);
    free(state);
    free(conf);
}

static void test_outage_and_return(void)
{
    /* Killed is refused at once: the long timeout keeps a busy machine from
     * setting the store aside when it is up. The hang below has its own. */
    char *state = redis_state("t4:");
    char *conf = write_conf(state);
    char *state50 = redis_state_timeout("t4:", TIMEOUT_MS);
    char *conf50 = write_conf(state50);
    logbook lb;
    seam_client *c = client_from(conf, &lb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    char out[4096];
    long long ms;

    /* Up: w's 429 goes to the store. */
    fake_server_push_json(srv, 429, "{}", "Retry-After: 30\r\n");
    push_ok();
    ask(c, "c", NULL, out, sizeof out, &ms);
    CU_ASSERT_STRING_EQUAL(out, "ok w2");
    char *ttl = tu_redis_cmd(redis, NULL, "PTTL t4:cool:w:0");
    CU_ASSERT_TRUE(ttl && ttl[0] == ':' && atoll(ttl + 1) > 0);
    free(ttl);
    CU_ASSERT_EQUAL(lb.lines, 0);

    /* Killed: every request still succeeds, on the local state (w stays
     * skipped: this process knew of its cooldown), and none waits long. The
     * change is said once. */
    tu_redis_kill(redis);
    long long worst = 0;
    for (int i = 0; i < 6; i++) {
        size_t before = fake_server_request_count(srv);
        push_ok();
        ask(c, "c", NULL, out, sizeof out, &ms);
        CU_ASSERT_STRING_EQUAL(out, "ok w2");
        CU_ASSERT_STRING_EQUAL(path_of(before), "/second/whole");
        if (ms > worst)
            worst = ms;
    }
    CU_ASSERT_EQUAL(lb.lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, "did not answer"));
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, "local state"));
    fprintf(stderr, "[redis down: slowest request %lld ms] ", worst);
    CU_ASSERT_TRUE(worst < (slow ? 10000 : 1000));

    /* Back (empty: no persistence): after the retry interval the store is
     * used again, and said so once. */
    CU_ASSERT_FATAL(tu_redis_restart(redis) == 0);
    usleep(1100 * 1000);
    fake_server_push_json(srv, 429, "{}", "Retry-After: 30\r\n");
    push_ok();
    ask(c, "d", NULL, out, sizeof out, &ms); /* w2: 429, w3 serves */
    CU_ASSERT_STRING_EQUAL(out, "ok w3");
    CU_ASSERT_EQUAL(lb.lines, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, "answers again"));
    ttl = tu_redis_cmd(redis, NULL, "PTTL t4:cool:w2:0");
    CU_ASSERT_TRUE(ttl && ttl[0] == ':' && atoll(ttl + 1) > 0);
    free(ttl);
    /* ...shared again: another process skips w2 without calling it. */
    size_t before = ok_in_child(conf, "d", out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "ok w3");
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    CU_ASSERT_STRING_EQUAL(path_of(before), "/third/whole");

    seam_client_free(c);

    /* Slow: a Redis that hangs (DEBUG SLEEP 1.5 s) holds a request back by
     * the state timeout (50 ms), not by its hang, and the request succeeds. */
    logbook lb50;
    c = client_from(conf50, &lb50);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    tu_redis_hang hang;
    tu_redis_hang_start(&hang, redis, slow ? 6 : 1.5);
    usleep(slow ? 1000 * 1000 : 100 * 1000);
    push_ok();
    ask(c, "d", NULL, out, sizeof out, &ms); /* nothing known locally: w2 serves */
    CU_ASSERT_STRING_EQUAL(out, "ok w2");
    fprintf(stderr, "[redis hung: request took %lld ms] ", ms);
    CU_ASSERT_TRUE(ms < (slow ? 4500 : 700));
    CU_ASSERT_EQUAL(lb50.lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(lb50.text, "no answer within the timeout"));
    tu_redis_hang_wait(&hang);
    seam_client_free(c);
    free(state);
    free(conf);
    free(state50);
    free(conf50);
}

static void test_password_and_listing(void)
{
    /* A second server that asks for a password. */
    const char *args[] = {"--requirepass", "s3cret-pw", NULL};
    tu_redis *locked = tu_redis_start(args);
    CU_ASSERT_PTR_NOT_NULL_FATAL(locked);
    setenv("SEAM_R_REDIS_PW", "s3cret-pw", 1);
    char state[1024];
    snprintf(state, sizeof state,
             "state = { backend = \"redis\"; port = %d; password_env = \"SEAM_R_REDIS_PW\"; "
             "db = 3; timeout_ms = %d; };\n", tu_redis_port(locked), SHARING_TIMEOUT_MS);
    char *conf = write_conf(state);
    logbook lb;
    seam_client *c = client_from(conf, &lb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    char out[4096];
    fake_server_push_json(srv, 429, "{}", "Retry-After: 20\r\n");
    push_ok();
    ask(c, "c", NULL, out, sizeof out, NULL);
    CU_ASSERT_STRING_EQUAL(out, "ok w2");
    CU_ASSERT_EQUAL(lb.lines, 0);
    /* In db 3, under the default prefix. */
    char *ttl = tu_redis_cmd(locked, "s3cret-pw", "EVAL \"redis.call('SELECT', 3) return redis.call('PTTL', 'seam:cool:w:0')\" 0");
    CU_ASSERT_TRUE(ttl && ttl[0] == ':' && atoll(ttl + 1) > 0);
    free(ttl);

    /* What `seam providers -v` shows: the store and the cooling key. */
    char store[512];
    int shared = -1;
    CU_ASSERT_EQUAL(seam_client_state(c, store, sizeof store, &shared, NULL, NULL, NULL), SEAM_OK);
    CU_ASSERT_EQUAL(shared, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(store, "redis 127.0.0.1:"));
    CU_ASSERT_PTR_NULL(strstr(store, "s3cret"));
    char listing[4096];
    snprintf(listing, sizeof listing, "%s/seam providers -v --conf %s 2>&1", TOP_BUILDDIR "/cli", conf);
    char *text = NULL;
    tu_run(listing, &text, NULL);
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "cooling"));
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "store: redis"));
    CU_ASSERT_PTR_NULL(text && strstr(text, "s3cret") ? "" : NULL);
    if (text && !strstr(text, "cooling"))
        fprintf(stderr, "%s\n", text);
    free(text);
    seam_client_free(c);

    /* A wrong password: the store is not used, requests go on, and the
     * notice does not carry the password. */
    setenv("SEAM_R_REDIS_PW", "wrong-pw-value", 1);
    c = client_from(conf, &lb);
    push_ok();
    ask(c, "d", NULL, out, sizeof out, NULL);
    CU_ASSERT_STRING_EQUAL(out, "ok w2");
    CU_ASSERT_EQUAL(lb.lines, 1);
    CU_ASSERT_PTR_NULL(strstr(lb.text, "wrong-pw"));
    CU_ASSERT_EQUAL(seam_client_state(c, store, sizeof store, &shared, NULL, NULL, NULL), SEAM_OK);
    CU_ASSERT_EQUAL(shared, 0);
    seam_client_free(c);
    unsetenv("SEAM_R_REDIS_PW");
    tu_redis_stop(locked);
    free(conf);
}

static void test_rate_take_across_processes(void)
{
    char *state = redis_state("t5:");
    char *conf = write_conf(state);
    seam_client *a = client_from(conf, NULL);
    seam_client *b = client_from(conf, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    int taken = 0;
    for (int i = 0; i < 5; i++) {
        taken += seam_rate_take(a, "gw-key-1", 6, 60000, NULL) == 1;
        taken += seam_rate_take(b, "gw-key-1", 6, 60000, NULL) == 1;
    }
    CU_ASSERT_EQUAL(taken, 6);
    seam_client_free(a);
    seam_client_free(b);
    free(state);
    free(conf);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* The median of n requests through chain p (a pool of two keys, round
 * robin: one state read and one counter step per request), in microseconds. */
static long long median_us(const char *conf, int n)
{
    seam_client *c = client_from(conf, NULL);
    long long *t = calloc((size_t)n, sizeof *t);
    char out[512];
    for (int i = 0; i < n; i++) {
        push_ok();
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        ask(c, "p", NULL, out, sizeof out, NULL);
        clock_gettime(CLOCK_MONOTONIC, &b);
        t[i] = (long long)(b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000;
    }
    qsort(t, (size_t)n, sizeof *t, cmp_ll);
    long long m = t[n / 2];
    free(t);
    seam_client_free(c);
    return m;
}

/* What the shared store costs a request (printed; doc/scale-out.md quotes it). */
static void test_cost_per_request(void)
{
    setenv("SEAM_R_K1", "key-one", 1);
    setenv("SEAM_R_K2", "key-two", 1);
    char *state = redis_state("t6:");
    char *shared = write_conf(state);
    char *local = write_conf(NULL);
    long long l = median_us(local, 300), r = median_us(shared, 300);
    fprintf(stderr, "[median request: local state %lld us, redis state %lld us] ", l, r);
    CU_ASSERT_TRUE(slow || r < l + 20000);
    free(state);
    free(shared);
    free(local);
    unsetenv("SEAM_R_K1");
    unsetenv("SEAM_R_K2");
}

static const tu_test tests[] = {
    { "a cooldown shared by two processes", test_shared_cooldown },
    { "sticky and round-robin pools across processes", test_key_pools_across_processes },
    { "a budget across two processes", test_budget_across_processes },
    { "a rate limit across two clients", test_rate_take_across_processes },
    { "password, db, and what providers -v shows", test_password_and_listing },
    { "redis killed, hung, and back", test_outage_and_return },
    { "what the shared store costs a request", test_cost_per_request },
    { NULL, NULL },
};

int main(void)
{
    if (!tu_redis_plugin_built("test_redis"))
        return 77;
    return tu_run_suite("redis", tests, start);
}
