/* test_conf_credentials.c — credentials (libcore/credential.c) as the conf
 * names them: the inline api_key warning, each credential source and its
 * failures, that no message ever holds a secret, non-regular files refused
 * (conf file, conf.d/ drop-in, api_key_file), and key commands ended by their
 * timeout or a cancel with their whole process group. */
#include "config.h"
#include "internal.h"
#include "transport.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "tu_conf.h"


/* ---- the inline api_key warning ------------------------------------------------------------------------------------ */

#define INLINE_SECRET "sk-inline-SECRET-0123456789"

static void test_inline_key_warning(void)
{
    const char *text = "providers = {\n  p = { api_key = \"" INLINE_SECRET "\"; };\n};\n";
    char *dir = make_temp_dir();

    char *open_file = write_file(dir, "open.conf", text, 0644);
    seam_conf *c = loaded_file(open_file);
    CU_ASSERT_STRING_EQUAL(c->providers[0].api_key, INLINE_SECRET);
    CU_ASSERT_EQUAL_FATAL(c->n_warnings, 1);
    const char *w = c->warnings[0];
    CU_ASSERT_PTR_NOT_NULL(strstr(w, open_file));
    CU_ASSERT_PTR_NOT_NULL(strstr(w, ":2:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(w, "0644"));
    CU_ASSERT_PTR_NOT_NULL(strstr(w, "api_key_env"));
    CU_ASSERT_PTR_NOT_NULL(strstr(w, "api_key_file"));
    CU_ASSERT_PTR_NOT_NULL(strstr(w, "api_key_command"));
    CU_ASSERT_PTR_NULL(strstr(w, "SECRET"));
    seam_conf_free(c);

    /* Group-readable only counts too; 0600 does not warn. */
    char *group_file = write_file(dir, "group.conf", text, 0640);
    c = loaded_file(group_file);
    CU_ASSERT_EQUAL(c->n_warnings, 1);
    seam_conf_free(c);
    char *private_file = write_file(dir, "private.conf", text, 0600);
    c = loaded_file(private_file);
    CU_ASSERT_EQUAL(c->n_warnings, 0);
    seam_conf_free(c);

    /* A readable file without an inline key does not warn. */
    char *plain = write_file(dir, "plain.conf", "providers = { p = { api_key_env = \"X\"; }; };\n", 0644);
    c = loaded_file(plain);
    CU_ASSERT_EQUAL(c->n_warnings, 0);
    seam_conf_free(c);

    free(open_file);
    free(group_file);
    free(private_file);
    free(plain);
    remove_tree(dir);
}

static void test_conf_errors_never_hold_the_key(void)
{
    static const char *const texts[] = {
        /* a syntax error on the key's own line */
        "providers = {\n p = { api_key = \"" INLINE_SECRET "\" oops; };\n};\n",
        /* a later error in the same provider */
        "providers = {\n p = { api_key = \"" INLINE_SECRET "\"; timeout_ms = \"x\"; };\n};\n",
        /* an unknown key next to it */
        "providers = {\n p = { api_key = \"" INLINE_SECRET "\"; bogus = \"" INLINE_SECRET "\"; };\n};\n",
        /* the key given in the wrong place */
        "providers = {\n p = { api_key = [ \"" INLINE_SECRET "\" ]; };\n};\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        seam_conf *c = NULL;
        seam_error err;
        CU_ASSERT_EQUAL(load_text(texts[i], &c, &err, NULL), SEAM_ERR_CONF);
        CU_ASSERT_PTR_NULL(strstr(err.message, "SECRET"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "seam.conf:2:"));
    }
}

/* ---- credentials -------------------------------------------------------------------------------------------------- */

#define CRED_SECRET "sk-cred-SECRET-abcdef123456"

static seam_conf_provider provider_with(const char *env, const char *file, const char *command,
                                        const char *inline_key)
{
    seam_conf_provider p = {0};
    p.name = (char *)"prov";
    p.api_key_env = (char *)env;
    p.api_key_file = (char *)file;
    p.api_key_command = (char *)command;
    p.api_key = (char *)inline_key;
    return p;
}

/* Resolves, asserting the secret never reaches the message; returns the status. */
static int resolve(const seam_conf_provider *p, char **out, seam_error *err)
{
    seam_error_clear(err);
    *out = (char *)0x1;
    int rc = seam_credential_resolve(p, out, err);
    CU_ASSERT_PTR_NULL(strstr(err->message, "SECRET"));
    if (rc != SEAM_OK) {
        CU_ASSERT_PTR_NULL(*out);
        CU_ASSERT_EQUAL(rc, SEAM_ERR_NO_CREDENTIAL);
        CU_ASSERT_STRING_EQUAL(err->provider, "prov");
        CU_ASSERT_NOT_EQUAL(err->kind, SEAM_ERROR_NONE);
        CU_ASSERT_FALSE(err->retryable);
    }
    return rc;
}

/* p's credential resolves to want (resolve's checks, and two assertions). */
static void expect_key(const seam_conf_provider *p, const char *want)
{
    char *key;
    seam_error err;
    CU_ASSERT_EQUAL(resolve(p, &key, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(key, want);
    seam_secret_free(key);
}

static void test_credential_env(void)
{
    seam_conf_provider p = provider_with("SEAM_TEST_KEY", NULL, NULL, NULL);
    char *key;
    seam_error err;
    setenv("SEAM_TEST_KEY", CRED_SECRET, 1);
    expect_key(&p, CRED_SECRET);
    /* The text stays valid and unchanged across later calls (and threads). */
    const char *source = seam_credential_source(&p);
    CU_ASSERT_STRING_EQUAL(source, "env SEAM_TEST_KEY");
    seam_conf_provider other = provider_with("OTHER_KEY", NULL, NULL, NULL);
    CU_ASSERT_STRING_EQUAL(seam_credential_source(&other), "env OTHER_KEY");
    CU_ASSERT_STRING_EQUAL(source, "env SEAM_TEST_KEY");
    CU_ASSERT_PTR_EQUAL(seam_credential_source(&p), source);

    unsetenv("SEAM_TEST_KEY");
    CU_ASSERT_EQUAL(resolve(&p, &key, &err), SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT_STRING_EQUAL(err.message, "environment variable SEAM_TEST_KEY is not set");
    setenv("SEAM_TEST_KEY", "", 1);
    CU_ASSERT_EQUAL(resolve(&p, &key, &err), SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "environment variable SEAM_TEST_KEY is not set"));
    unsetenv("SEAM_TEST_KEY");
}

static void test_credential_file(void)
{
    char *dir = make_temp_dir();
    char *good = write_file(dir, "key", "  " CRED_SECRET " \r\nsecond line\n", 0600);
    char *empty = write_file(dir, "empty", "\n\n", 0600);
    char *missing = tu_path(dir, "missing");
    char *key;
    seam_error err;

    seam_conf_provider p = provider_with(NULL, good, NULL, NULL);
    expect_key(&p, CRED_SECRET);
    CU_ASSERT_PTR_NOT_NULL(strstr(seam_credential_source(&p), good));

    p = provider_with(NULL, missing, NULL, NULL);
    CU_ASSERT_EQUAL(resolve(&p, &key, &err), SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, missing));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "No such file"));

    p = provider_with(NULL, empty, NULL, NULL);
    CU_ASSERT_EQUAL(resolve(&p, &key, &err), SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, empty));

    /* A directory cannot be read as a key file. */
    p = provider_with(NULL, dir, NULL, NULL);
    CU_ASSERT_EQUAL(resolve(&p, &key, &err), SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, dir));

    free(good);
    free(empty);
    free(missing);
    remove_tree(dir);
}

/* Runs resolve with our stderr sent to a file; returns what was written there. */
static char *resolve_capturing_stderr(const seam_conf_provider *p, char **key, seam_error *err,
                                      int *rc)
{
    char *dir = make_temp_dir();
    char *path = tu_path(dir, "stderr");
    fflush(stderr);
    int saved = dup(2);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CU_ASSERT_FATAL(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    *rc = resolve(p, key, err);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char text[4096] = "";
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    free(path);
    remove_tree(dir);
    return strdup(text);
}

static void test_credential_command(void)
{
    char *key;
    seam_error err;
    int rc;

    seam_conf_provider p =
        provider_with(NULL, NULL, "echo chatter >&2; printf ' " CRED_SECRET " \\nsecond\\n'", NULL);
    char *noise = resolve_capturing_stderr(&p, &key, &err, &rc);
    CU_ASSERT_EQUAL(rc, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(key, CRED_SECRET);
    CU_ASSERT_STRING_EQUAL(noise, ""); /* the command's stderr never reaches ours */
    free(noise);
    seam_secret_free(key);
    CU_ASSERT_STRING_EQUAL(seam_credential_source(&p), "command");

    /* Failing, even after printing the key: no key, and the message holds
     * neither the output nor the command text. */
    p = provider_with(NULL, NULL, "echo " CRED_SECRET "; echo " CRED_SECRET " >&2; exit 3", NULL);
    noise = resolve_capturing_stderr(&p, &key, &err, &rc);
    CU_ASSERT_EQUAL(rc, SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT_STRING_EQUAL(err.message, "api_key_command failed (exit status 3)");
    CU_ASSERT_STRING_EQUAL(noise, "");
    free(noise);

    p = provider_with(NULL, NULL, "true", NULL);
    CU_ASSERT_EQUAL(resolve(&p, &key, &err), SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT_STRING_EQUAL(err.message, "api_key_command printed nothing");

    p = provider_with(NULL, NULL, "kill -9 $$", NULL);
    CU_ASSERT_EQUAL(resolve(&p, &key, &err), SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "signal 9"));

    p = provider_with(NULL, NULL, "/nonexistent/secret-helper", NULL);
    CU_ASSERT_EQUAL(resolve(&p, &key, &err), SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "exit status 127"));

    /* The command reads nothing from our stdin. */
    p = provider_with(NULL, NULL, "cat; echo " CRED_SECRET, NULL);
    expect_key(&p, CRED_SECRET);
}

static void test_credential_inline_none_and_preference(void)
{
    char *key;
    seam_error err;
    seam_conf_provider p = provider_with(NULL, NULL, NULL, CRED_SECRET);
    expect_key(&p, CRED_SECRET);
    CU_ASSERT_STRING_EQUAL(seam_credential_source(&p), "inline");

    p = provider_with(NULL, NULL, NULL, NULL);
    CU_ASSERT_EQUAL(resolve(&p, &key, &err), SEAM_OK);
    CU_ASSERT_PTR_NULL(key);
    CU_ASSERT_STRING_EQUAL(seam_credential_source(&p), "none");

    /* env, file, command, inline: the first configured one decides. */
    char *dir = make_temp_dir();
    char *file = write_file(dir, "key", "from-file\n", 0600);
    setenv("SEAM_TEST_KEY2", "from-env", 1);
    p = provider_with("SEAM_TEST_KEY2", file, "echo from-command", "from-inline");
    expect_key(&p, "from-env");
    p = provider_with(NULL, file, "echo from-command", "from-inline");
    expect_key(&p, "from-file");
    p = provider_with(NULL, NULL, "echo from-command", "from-inline");
    expect_key(&p, "from-command");
    /* A configured but unset variable is an error, not a fall-through. */
    unsetenv("SEAM_TEST_KEY2");
    p = provider_with("SEAM_TEST_KEY2", file, NULL, "from-inline");
    CU_ASSERT_EQUAL(resolve(&p, &key, &err), SEAM_ERR_NO_CREDENTIAL);
    free(file);
    remove_tree(dir);
}

static void test_credential_from_loaded_conf(void)
{
    /* api_key_file as written in a conf: relative to the conf's directory. */
    char *dir = make_temp_dir();
    make_dir(dir, "keys");
    free(write_file(dir, "keys/p", CRED_SECRET "\n", 0600));
    char *conf_path = write_file(dir, "seam.conf",
                                 "providers = { p = { api_key_file = \"keys/p\"; }; };\n", 0600);
    seam_conf *c = loaded_file(conf_path);
    char *key = NULL;
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_credential_resolve(&c->providers[0], &key, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(key, CRED_SECRET);
    seam_secret_free(key);
    seam_conf_free(c);
    free(conf_path);
    remove_tree(dir);
}

/* api_key_env = [ A, B ]: the first variable set wins (Gemini: GEMINI_API_KEY,
 * then GOOGLE_API_KEY). */
static void test_credential_env_fallbacks(void)
{
    char *dir = make_temp_dir();
    char *conf_path = write_file(dir, "seam.conf",
                                 "providers = { g = { api_key_env = [ \"SEAM_TEST_FIRST\", \"SEAM_TEST_SECOND\" ]; }; };\n",
                                 0600);
    seam_conf *c = loaded_file(conf_path);
    seam_error err;
    seam_error_clear(&err);
    const seam_conf_provider *p = &c->providers[0];
    CU_ASSERT_STRING_EQUAL(seam_credential_source(p), "env SEAM_TEST_FIRST or SEAM_TEST_SECOND");
    char *key = NULL;
    unsetenv("SEAM_TEST_FIRST");
    unsetenv("SEAM_TEST_SECOND");
    CU_ASSERT_EQUAL(seam_credential_resolve(p, &key, &err), SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "none of the environment variables SEAM_TEST_FIRST,SEAM_TEST_SECOND is set");
    setenv("SEAM_TEST_SECOND", "second-" CRED_SECRET, 1);
    CU_ASSERT_EQUAL(seam_credential_resolve(p, &key, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(key, "second-" CRED_SECRET);
    seam_secret_free(key);
    setenv("SEAM_TEST_FIRST", "first-" CRED_SECRET, 1);
    CU_ASSERT_EQUAL(seam_credential_resolve(p, &key, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(key, "first-" CRED_SECRET);
    seam_secret_free(key);
    unsetenv("SEAM_TEST_FIRST");
    unsetenv("SEAM_TEST_SECOND");
    seam_conf_free(c);
    free(conf_path);

    /* An empty list is a conf error with file:line. */
    conf_path = write_file(dir, "bad.conf", "providers = { g = { api_key_env = [ ]; }; };\n", 0600);
    CU_ASSERT_EQUAL(seam_conf_load(conf_path, &c, &err), SEAM_ERR_CONF);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "bad.conf:1"));
    free(conf_path);
    remove_tree(dir);
}

static volatile sig_atomic_t alarmed;
static void on_alarm(int sig)
{
    (void)sig;
    alarmed = 1;
}

/* A watchdog: a blocking open() of a FIFO fails with EINTR when it fires, so a
 * loader that still blocks fails the test instead of hanging it. */
static void watchdog(unsigned seconds)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm; /* no SA_RESTART */
    sigaction(SIGALRM, &sa, NULL);
    alarmed = 0;
    alarm(seconds);
}

static void test_non_regular_files_refused(void)
{
    char *dir = make_temp_dir();
    char *fifo = tu_path(dir, "fifo");
    CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
    seam_conf *c = NULL;
    seam_error err;
    char *key = NULL;

    /* The conf file itself. */
    watchdog(5);
    expect_load_error(fifo, ": not a regular file (a FIFO)");
    expect_load_error("/dev/zero", ": not a regular file (a device)");

    /* A conf.d/ drop-in. */
    char *main_conf = write_file(dir, "seam.conf", "providers = { p = { }; };\n", 0600);
    make_dir(dir, "conf.d");
    char *dropin = tu_path(dir, "conf.d/50-x.conf");
    CU_ASSERT_FATAL(mkfifo(dropin, 0600) == 0);
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_conf_load(main_conf, &c, &err), SEAM_ERR_CONF);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "50-x.conf: not a regular file (a FIFO)"));

    /* api_key_file: a FIFO, a directory, a device. */
    const char *files[] = {fifo, dir, "/dev/zero"};
    const char *kinds[] = {"a FIFO", "a directory", "a device"};
    for (int i = 0; i < 3; i++) {
        seam_conf_provider p = provider_with(NULL, files[i], NULL, NULL);
        CU_ASSERT_EQUAL(resolve(&p, &key, &err), SEAM_ERR_NO_CREDENTIAL);
        seam_buf w = {0};
        seam_buf_printf(&w, "api_key_file %s is not a regular file (%s)", files[i], kinds[i]);
        CU_ASSERT_STRING_EQUAL(err.message, w.data);
        seam_buf_free(&w);
    }
    alarm(0);
    CU_ASSERT_FALSE(alarmed);
    free(dropin);
    free(main_conf);
    free(fifo);
    remove_tree(dir);
}

/* 1 when pid is gone (or a zombie nobody reaped yet: it runs no more). */
static int process_gone(pid_t pid)
{
    char path[64], stat_line[512] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(stat_line, 1, sizeof stat_line - 1, f);
    fclose(f);
    stat_line[n] = '\0';
    const char *paren = strrchr(stat_line, ')');
    return paren && (paren[2] == 'Z' || paren[2] == 'X');
}

/* Reads the pids a command wrote, one a line. */
static size_t read_pids(const char *file, pid_t *pids, size_t max)
{
    size_t n = 0;
    FILE *f = fopen(file, "r");
    int v;
    while (f && n < max && fscanf(f, "%d", &v) == 1)
        pids[n++] = (pid_t)v;
    if (f)
        fclose(f);
    return n;
}

/* Asserts, one pid at a time, that each process whose pid the command wrote
 * to pidfile is gone within half a second (SIGKILL is delivered at once; this
 * allows a moment), and kills any that is not. Returns how many there were. */
static size_t expect_all_gone(const char *pidfile)
{
    pid_t pids[4];
    size_t n = read_pids(pidfile, pids, 4);
    for (size_t i = 0; i < n; i++) {
        int gone = 0;
        for (int k = 0; k < 50 && !gone; k++) {
            gone = process_gone(pids[i]);
            if (!gone)
                usleep(10000);
        }
        CU_ASSERT(gone);
        if (!gone)
            kill(pids[i], SIGKILL);
    }
    return n;
}

/* A key command that hangs: a grandchild in its group (sleep 60 &) and a
 * shell waiting for it, their pids written to pidfile in a fresh dir. */
typedef struct hanging_command {
    char *dir, *pidfile;
    seam_buf cmd;
} hanging_command;

static hanging_command hanging_command_new(void)
{
    hanging_command h = {make_temp_dir(), NULL, {0}};
    h.pidfile = tu_path(h.dir, "pids");
    seam_buf_printf(&h.cmd, "echo $$ > %s; sleep 60 & echo $! >> %s; wait", h.pidfile, h.pidfile);
    return h;
}

static void hanging_command_free(hanging_command *h)
{
    seam_buf_free(&h->cmd);
    free(h->pidfile);
    remove_tree(h->dir);
}

static void test_key_command_timeout_ends_its_group(void)
{
    hanging_command h = hanging_command_new();
    const char *pidfile = h.pidfile;
    seam_conf_provider p = provider_with(NULL, NULL, h.cmd.data, NULL);
    p.api_key_command_timeout_ms = 300;
    char *key = NULL;
    seam_error err;
    int64_t t0 = tu_now_ms();
    CU_ASSERT_EQUAL(resolve(&p, &key, &err), SEAM_ERR_NO_CREDENTIAL);
    int64_t took = tu_now_ms() - t0;
    CU_ASSERT_STRING_EQUAL(err.message,
                           "api_key_command timed out after 300 ms (api_key_command_timeout_ms)");
    CU_ASSERT(took >= 300 && took < 900);
    CU_ASSERT_EQUAL(expect_all_gone(pidfile), 2);

    /* The provider's own timeout_ms caps the command's. */
    p.api_key_command_timeout_ms = 3600000;
    p.timeout_ms = 200;
    t0 = tu_now_ms();
    CU_ASSERT_EQUAL(resolve(&p, &key, &err), SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT(tu_now_ms() - t0 < 900);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "api_key_command timed out after 200 ms (api_key_command_timeout_ms)");
    expect_all_gone(pidfile);
    hanging_command_free(&h);
}

/* 1 once the command and its background child are both running (their pids
 * are in the file), however slowly they start (valgrind, a loaded machine): a
 * cancel before the child exists would test nothing. */
static int both_running(void *pidfile)
{
    pid_t pids[2];
    return read_pids(pidfile, pids, 2) >= 2;
}

static void test_key_command_cancel(void)
{
    hanging_command h = hanging_command_new();
    const char *pidfile = h.pidfile;
    seam_conf_provider p = provider_with(NULL, NULL, h.cmd.data, NULL);
    seam_cancel *cancel = seam_cancel_new();
    CU_ASSERT_FATAL(cancel != NULL);
    seam_cred_source src = {SEAM_CRED_COMMAND, h.cmd.data};
    tu_canceller k = {.cancel = cancel, .ready = both_running, .ud = h.pidfile,
                      .max_polls = 1000, .delay_ms = 50};
    tu_canceller_start(&k);
    char *key = NULL;
    seam_error err;
    seam_error_clear(&err);
    int rc = seam_credential_resolve_source(&p, &src, &key, NULL, cancel, &err);
    int64_t returned_ms = tu_now_ms();
    tu_canceller_join(&k);
    CU_ASSERT_EQUAL(rc, SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CANCELLED);
    CU_ASSERT_STRING_EQUAL(err.message, "api_key_command cancelled");
    CU_ASSERT(k.fired_ms > 0);
    CU_ASSERT(returned_ms - k.fired_ms < 550); /* at most the 200 ms grace, and slack */
    CU_ASSERT_EQUAL(expect_all_gone(pidfile), 2);
    /* Already cancelled: the command does not even start. */
    unlink(pidfile);
    rc = seam_credential_resolve_source(&p, &src, &key, NULL, cancel, &err);
    CU_ASSERT_EQUAL(rc, SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CANCELLED);
    CU_ASSERT_EQUAL(access(pidfile, F_OK), -1);
    seam_cancel_free(cancel);
    hanging_command_free(&h);
}

static const tu_test tests[] = {
    { "inline api_key warning", test_inline_key_warning },
    { "conf errors never hold the key", test_conf_errors_never_hold_the_key },
    { "credential: env", test_credential_env },
    { "credential: file", test_credential_file },
    { "credential: command", test_credential_command },
    { "credential: inline, none, preference", test_credential_inline_none_and_preference },
    { "credential: api_key_file from a conf", test_credential_from_loaded_conf },
    { "credential: api_key_env fallbacks", test_credential_env_fallbacks },
    { "non-regular files refused", test_non_regular_files_refused },
    { "key command: timeout ends its group", test_key_command_timeout_ends_its_group },
    { "key command: cancel", test_key_command_cancel },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("conf_credentials", tests, NULL);
}
