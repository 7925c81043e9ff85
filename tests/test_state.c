/* test_state.c — the state store without Redis (issue 18): the conf's state
 * section checked with FILE:LINE; the in-process store behind budgets and
 * rate limits (windows on the client's clock); the listing `seam providers
 * -v` prints; and a configured backend that is not installed, which is said
 * once through the log callback while every request goes on locally. */
#include "fakeserver.h"
#include "testutil.h"

#include <CUnit/Basic.h>
#include <seam/seam.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static fake_server *srv;
static const char *tmpdir; /* tu_dir() */
static int serial;
static int64_t fake_now = 1000000;

static int64_t clock_now(void *ud)
{
    (void)ud;
    return fake_now;
}

static int clock_sleep(void *ud, int64_t ms, seam_cancel *cancel)
{
    (void)ud;
    (void)cancel;
    fake_now += ms;
    return 0;
}

/* Writes text (mode 0600, or mode) as a conf file in a new directory; returns its path. */
static char *conf_file(const char *text, mode_t mode)
{
    char name[64];
    snprintf(name, sizeof name, "d%d", serial++);
    char *dir = tu_path(tmpdir, name);
    mkdir(dir, 0700);
    char *path = tu_path(dir, "seam.conf");
    CU_ASSERT_FATAL(tu_write_file(path, text) == 0);
    chmod(path, mode);
    free(dir);
    return path;
}

typedef struct warnings {
    char text[2048];
    int n;
} warnings;

static void on_warn(void *ud, const char *text)
{
    warnings *w = ud;
    size_t used = strlen(w->text);
    snprintf(w->text + used, sizeof w->text - used, "%s\n", text);
    w->n++;
}

/* The conf check's error for text: "LINE: message" after the file's path. */
static void expect_conf_error(const char *text, const char *want)
{
    char *path = conf_file(text, 0600);
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_conf_check(path, NULL, NULL, &err), SEAM_ERR_CONF);
    char full[1024];
    snprintf(full, sizeof full, "%s:%s", path, want);
    if (strcmp(err.message, full) != 0) {
        fprintf(stderr, "\n got: %s\nwant: %s\n", err.message, full);
        CU_FAIL("state conf error");
    }
    free(path);
}

static void test_conf_state_section(void)
{
    expect_conf_error("state = { backend = \"redis\";\n port = 0; };\n",
                      "2: state.port must be > 0");
    expect_conf_error("state = { backend = \"redis\"; port = 70000; };\n",
                      "1: state.port must be at most 65535 (the largest TCP port), not 70000");
    expect_conf_error("state = {\n  backend = \"redis\";\n  timeout_ms = 0;\n};\n",
                      "3: state.timeout_ms must be > 0");
    expect_conf_error("state = { timeout_ms = 120000; };\n",
                      "1: state.timeout_ms must be at most 60000 (one minute; a request may "
                      "wait this long on the store), not 120000");
    expect_conf_error("state = { backend = \"Redis!\"; };\n",
                      "1: state.backend must be \"local\" or a state backend plugin's id such as "
                      "\"redis\" (a-z, 0-9, _ and -), not \"Redis!\"");
    expect_conf_error("state = { backend = \"redis\";\n  hots = \"x\"; };\n",
                      "2: unknown setting state.hots (expected one of: backend, host, port, "
                      "socket, password, password_env, password_file, db, prefix, timeout_ms)");
    expect_conf_error("\nstate = { backend = \"redis\"; password = \"a\"; password_env = \"B\"; };\n",
                      "2: state: password, password_env and password_file exclude each other "
                      "(give one)");
    expect_conf_error("state = { backend = \"redis\"; socket = \"/run/redis.sock\"; port = 1; };\n",
                      "1: state: socket excludes host and port (give one or the other)");
    expect_conf_error("state = { backend = \"redis\"; db = -1; };\n", "1: state.db must be >= 0");
    expect_conf_error("state = { backend = \"redis\"; prefix = \"a b\"; };\n",
                      "1: state.prefix must be printable ASCII without spaces");
    expect_conf_error("state = ( 1 );\n", "1: state must be a group { ... }, not a list");
    expect_conf_error("state = { backend = \"redis\"; port = \"6379\"; };\n",
                      "1: state.port must be an integer, not a string");

    /* One state section in all files: a conf.d drop-in cannot set another. */
    char *path = conf_file("state = { backend = \"redis\"; };\n", 0600);
    char *dir = strdup(path);
    *strrchr(dir, '/') = '\0';
    char *dropdir = tu_path(dir, "conf.d");
    mkdir(dropdir, 0700);
    char *drop = tu_path(dropdir, "10-state.conf");
    tu_write_file(drop, "\nstate = { backend = \"local\"; };\n");
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_conf_check(path, NULL, NULL, &err), SEAM_ERR_CONF);
    char want[2048];
    snprintf(want, sizeof want, "%s:2: state is already set in %s:1 (one state section in all files)",
             drop, path);
    CU_ASSERT_STRING_EQUAL(err.message, want);
    free(path);
    free(dir);
    free(dropdir);
    free(drop);

    /* Warnings: an inline password others can read; settings without a backend. */
    path = conf_file("state = { backend = \"redis\"; password = \"pw-inline\"; };\n", 0644);
    warnings w;
    memset(&w, 0, sizeof w);
    CU_ASSERT_EQUAL(seam_conf_check(path, on_warn, &w, &err), SEAM_OK);
    CU_ASSERT_EQUAL(w.n, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(w.text, "state.password is inline in a file readable"));
    CU_ASSERT_PTR_NULL(strstr(w.text, "pw-inline"));
    free(path);
    path = conf_file("state = { host = \"10.0.0.7\"; };\n", 0600);
    memset(&w, 0, sizeof w);
    CU_ASSERT_EQUAL(seam_conf_check(path, on_warn, &w, &err), SEAM_OK);
    CU_ASSERT_EQUAL(w.n, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(w.text, ":1: state sets connection settings but no backend"));
    free(path);
    /* seam config show writes the section back, never the password. */
    path = conf_file("state = { backend = \"redis\"; port = 6390; password = \"pw-inline-2\";\n"
                     "  prefix = \"gw:\"; };\n", 0600);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s/cli/seam config show %s", TOP_BUILDDIR, path);
    char *out = NULL;
    CU_ASSERT_EQUAL(tu_run(cmd, &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "state = { backend = \"redis\"; port = 6390; "
                                              "prefix = \"gw:\"; /* password: set inline */ };"));
    CU_ASSERT_PTR_NULL(out && strstr(out, "pw-inline-2") ? "" : NULL);
    free(out);
    free(path);
    /* A whole, valid section. */
    path = conf_file("state = { backend = \"redis\"; host = \"10.0.0.7\"; port = 6380; db = 2;\n"
                     "  password_env = \"REDIS_PW\"; prefix = \"gw1:\"; timeout_ms = 20; };\n",
                     0600);
    memset(&w, 0, sizeof w);
    CU_ASSERT_EQUAL(seam_conf_check(path, on_warn, &w, &err), SEAM_OK);
    CU_ASSERT_EQUAL(w.n, 0);
    free(path);
}

static seam_client *client_with(const char *state, tu_logbook *lb)
{
    char text[4096];
    snprintf(text, sizeof text,
             "plugin_path = [ \"%s\", \"%s/tests/plugins/.libs\" ];\nmodel_catalog = \"\";\n%s\n"
             "providers = { w = { plugin = \"testwire\"; base_url = \"%s\"; api_key = \"k\"; };\n"
             "              w2 = { plugin = \"testwire\"; base_url = \"%s/second\"; }; };\n"
             "chains = { c = ( { provider = \"w\"; model = \"m\"; }, { provider = \"w2\"; model = \"m\"; } ); };\n",
             tu_plugin_dir(), TOP_BUILDDIR, state ? state : "", fake_server_url(srv),
             fake_server_url(srv));
    char *path = conf_file(text, 0600);
    seam_client_options o = {sizeof o, path, 1};
    seam_client *c = NULL;
    seam_error err;
    seam_error_clear(&err);
    if (seam_client_new(&o, &c, &err) != SEAM_OK)
        fprintf(stderr, "client: %s\n", err.message);
    free(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    seam_client_set_clock(c, clock_now, clock_sleep, NULL);
    if (lb) {
        memset(lb, 0, sizeof *lb);
        seam_client_set_log(c, tu_on_log, lb);
    }
    return c;
}

/* "hi" on chain "c" of c, answered by the server; the call's status. */
static int ask(seam_client *c)
{
    seam_request *req = tu_user_request("hi");
    seam_call_options o = { .size = sizeof o, .chain = "c" };
    seam_result *res = NULL;
    seam_error err;
    int rc = seam_generate(c, req, &o, &res, &err);
    seam_result_free(res);
    seam_request_free(req);
    return rc;
}

static void test_budget_and_rate_local(void)
{
    seam_client *c = client_with(NULL, NULL);
    seam_error err;
    int64_t spent = -1;
    CU_ASSERT_EQUAL(seam_budget_check(c, "team-a", 100, &spent, &err), 1);
    CU_ASSERT_EQUAL(spent, 0);
    CU_ASSERT_EQUAL(seam_budget_debit(c, "team-a", 60, 10000, &spent, &err), SEAM_OK);
    CU_ASSERT_EQUAL(spent, 60);
    CU_ASSERT_EQUAL(seam_budget_check(c, "team-a", 100, &spent, &err), 1);
    CU_ASSERT_EQUAL(seam_budget_debit(c, "team-a", 60, 10000, &spent, &err), SEAM_OK);
    CU_ASSERT_EQUAL(spent, 120);
    CU_ASSERT_EQUAL(seam_budget_check(c, "team-a", 100, &spent, &err), 0);
    CU_ASSERT_EQUAL(spent, 120);
    /* Another budget is another count; a limit of 0 is spent from the start. */
    CU_ASSERT_EQUAL(seam_budget_check(c, "team-b", 100, &spent, &err), 1);
    CU_ASSERT_EQUAL(seam_budget_check(c, "team-b", 0, &spent, &err), 0);
    /* The window (from the first debit) ends: the budget starts again. */
    fake_now += 10001;
    CU_ASSERT_EQUAL(seam_budget_check(c, "team-a", 100, &spent, &err), 1);
    CU_ASSERT_EQUAL(spent, 0);

    /* A fixed window of 3 per second. */
    int taken = 0;
    for (int i = 0; i < 5; i++)
        taken += seam_rate_take(c, "gw-key", 3, 1000, &err) == 1;
    CU_ASSERT_EQUAL(taken, 3);
    fake_now += 1000;
    CU_ASSERT_EQUAL(seam_rate_take(c, "gw-key", 3, 1000, &err), 1);

    /* Bad arguments. */
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_budget_check(c, "has space", 1, NULL, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_EQUAL(seam_budget_check(c, "", 1, NULL, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_budget_check(c, "x", -1, NULL, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_budget_debit(c, "x", 1, 0, NULL, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_budget_debit(c, "x", -1, 10, NULL, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_rate_take(c, "x", 1, 0, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_rate_take(NULL, "x", 1, 10, &err), SEAM_ERR_INVALID);
    char big[300];
    memset(big, 'n', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CU_ASSERT_EQUAL(seam_rate_take(c, big, 1, 10, &err), SEAM_ERR_INVALID);
    seam_client_free(c);
}

typedef struct seen {
    char text[2048];
} seen;

static void on_entry(void *ud, const seam_state_entry *e)
{
    seen *s = ud;
    size_t used = strlen(s->text);
    snprintf(s->text + used, sizeof s->text - used, "%s %s %d %lld\n", e->kind, e->provider, e->key,
             (long long)e->left_ms);
}

static void push_ok(void)
{
    fake_response fr = {.body = "data: fine\n\nevent: stop\ndata: 3\n\n", .chunked = 1};
    fake_server_push(srv, &fr);
}


static void test_listing_local(void)
{
    seam_client *c = client_with(NULL, NULL);
    char store[256];
    int shared = -1;
    seen s;
    memset(&s, 0, sizeof s);
    CU_ASSERT_EQUAL(seam_client_state(c, store, sizeof store, &shared, on_entry, &s, NULL), SEAM_OK);
    CU_ASSERT_EQUAL(shared, 0);
    CU_ASSERT_STRING_EQUAL(store, "local (this process only)");
    CU_ASSERT_STRING_EQUAL(s.text, "");

    fake_server_push_json(srv, 429, "{}", "Retry-After: 7\r\n");
    push_ok();
    CU_ASSERT_EQUAL(ask(c), SEAM_OK);
    CU_ASSERT_EQUAL(seam_client_state(c, NULL, 0, NULL, on_entry, &s, NULL), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(s.text, "cooling w 1 7000\n");
    CU_ASSERT_EQUAL(seam_client_state(NULL, NULL, 0, NULL, NULL, NULL, NULL), SEAM_ERR_INVALID);
    seam_client_free(c);
}

static void test_backend_not_installed(void)
{
    tu_logbook lb;
    seam_client *c = client_with("state = { backend = \"nosuch\"; };", &lb);
    for (int i = 0; i < 3; i++) {
        push_ok();
        CU_ASSERT_EQUAL(ask(c), SEAM_OK);
    }
    CU_ASSERT_EQUAL(lb.n, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.text, "state backend \"nosuch\" is not installed"));
    char store[512];
    int shared = -1;
    CU_ASSERT_EQUAL(seam_client_state(c, store, sizeof store, &shared, NULL, NULL, NULL), SEAM_OK);
    CU_ASSERT_EQUAL(shared, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(store, "local: state backend \"nosuch\" is not installed"));
    seam_client_free(c);

    /* The seam command prints the notice on stderr, the store on stdout. */
    char *path = conf_file("state = { backend = \"nosuch\"; };\n", 0600);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s/cli/seam providers -v --conf %s", TOP_BUILDDIR, path);
    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL(tu_run(cmd, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "  store: local: state backend \"nosuch\" is not installed"));
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "seam: state backend \"nosuch\" is not installed"));
    free(out);
    free(err);
    free(path);
}

static int start(void)
{
    return tu_start_server_and_dir(&srv, &tmpdir);
}

static const tu_test tests[] = {
    { "the state section of the conf", test_conf_state_section },
    { "budgets and rate limits in one process", test_budget_and_rate_local },
    { "the listing providers -v prints", test_listing_local },
    { "a backend that is not installed", test_backend_not_installed },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("state", tests, start);
}
