/* tu_fixture.c — what a test talks to (tests/testutil.h): fake provider
 * servers that live as long as the program's suites, and clients made from
 * conf text written into a temp dir of their own (removed by tu_client_free),
 * pointed at the built plugins and nothing else; the message of a call on
 * them that failed, and what a client says a model can do. */
#include "config.h"

#include "testutil.h"

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void stop_server(void *s)
{
    fake_server_stop(s);
}

fake_server *tu_server_start(void)
{
    fake_server *s = fake_server_start();
    if (!s) {
        fprintf(stderr, "cannot start the fake server\n");
        return NULL;
    }
    tu_at_end(stop_server, s);
    return s;
}

typedef struct client_dir {
    seam_client *client;
    char *dir;
    struct client_dir *next;
} client_dir;

static pthread_mutex_t client_dirs_mu = PTHREAD_MUTEX_INITIALIZER;
static client_dir *client_dirs;

/* Writes s into a libconfig string literal: backslash and quote escaped. */
static char *conf_quote(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(2 * n + 3);
    if (!out)
        return NULL;
    char *o = out;
    *o++ = '"';
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\')
            *o++ = '\\';
        *o++ = *p;
    }
    *o++ = '"';
    *o = '\0';
    return out;
}

seam_client *tu_client(const char *conf_text, seam_error *err)
{
    char *dir = tu_mkdtemp();
    if (!dir) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "tu_client: cannot create a temp dir");
        return NULL;
    }
    char *conf_path = tu_path(dir, "seam.conf");
    char *quoted = conf_quote(tu_plugin_dir());
    char *text = NULL;
    seam_client *client = NULL;
    if (!conf_path || !quoted ||
        /* No model catalog unless the test names one: an installed
         * models.conf must not add costs a test does not expect. A test
         * that names its own plugin dirs (a test plugin) gets only those. */
        asprintf(&text, "%s%s%s%s%s\n",
                 conf_text && strstr(conf_text, "plugin_path") ? "" : "plugin_path = [ ",
                 conf_text && strstr(conf_text, "plugin_path") ? "" : quoted,
                 conf_text && strstr(conf_text, "plugin_path") ? "" : " ];\n",
                 conf_text && strstr(conf_text, "model_catalog") ? "" : "model_catalog = \"\";\n",
                 conf_text ? conf_text : "") < 0) {
        text = NULL;
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "tu_client: out of memory");
        goto done;
    }
    if (tu_write_file(conf_path, text) != 0) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "tu_client: cannot write %s", conf_path);
        goto done;
    }
    seam_client_options opts = { .size = sizeof opts, .conf_path = conf_path,
                                 .no_default_plugin_dirs = 1 };
    if (seam_client_new(&opts, &client, err) != SEAM_OK) {
        client = NULL;
        goto done;
    }
    client_dir *cd = malloc(sizeof *cd);
    if (!cd) {
        seam_client_free(client);
        client = NULL;
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "tu_client: out of memory");
        goto done;
    }
    cd->client = client;
    cd->dir = dir;
    dir = NULL; /* owned by the record now */
    pthread_mutex_lock(&client_dirs_mu);
    cd->next = client_dirs;
    client_dirs = cd;
    pthread_mutex_unlock(&client_dirs_mu);
done:
    if (dir) {
        tu_rm_rf(dir);
        free(dir);
    }
    free(conf_path);
    free(quoted);
    free(text);
    return client;
}

void tu_client_free(seam_client *c)
{
    if (!c)
        return;
    client_dir *found = NULL;
    pthread_mutex_lock(&client_dirs_mu);
    for (client_dir **pp = &client_dirs; *pp; pp = &(*pp)->next) {
        if ((*pp)->client == c) {
            found = *pp;
            *pp = found->next;
            break;
        }
    }
    pthread_mutex_unlock(&client_dirs_mu);
    seam_client_free(c);
    if (found) {
        tu_rm_rf(found->dir);
        free(found->dir);
        free(found);
    }
}

static void free_client(void *c)
{
    tu_client_free(c);
}

seam_client *tu_client_at_end(seam_client *c)
{
    if (c)
        tu_at_end(free_client, c);
    return c;
}

seam_client *tu_clientf(const char *fmt, ...)
{
    char *conf = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&conf, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fprintf(stderr, "tu_clientf: out of memory\n");
        return NULL;
    }
    seam_error err;
    seam_error_clear(&err);
    seam_client *c = tu_client(conf, &err);
    if (!c)
        fprintf(stderr, "tu_client: %s\n", err.message);
    free(conf);
    return c;
}

seam_client *tu_client_with_test_plugins(const char *conf_text)
{
    seam_client *c = tu_clientf("plugin_path = [ \"%s\", \"%s\" ];\n%s", tu_plugin_dir(),
                                tu_test_plugin_dir(), conf_text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

void tu_on_log(void *ud, int level, const char *message)
{
    tu_logbook *lb = ud;
    (void)level;
    size_t used = strlen(lb->text);
    snprintf(lb->text + used, sizeof lb->text - used, "%s\n", message);
    lb->n++;
}

/* The client log tu_log_capture keeps: calls log from their own threads. */
static pthread_mutex_t captured_mu = PTHREAD_MUTEX_INITIALIZER;
static char captured[8192];

static void on_captured_log(void *ud, int level, const char *message)
{
    (void)ud;
    pthread_mutex_lock(&captured_mu);
    size_t n = strlen(captured);
    snprintf(captured + n, sizeof captured - n, "%d %s\n", level, message);
    pthread_mutex_unlock(&captured_mu);
}

void tu_log_capture(seam_client *c)
{
    seam_client_set_log(c, on_captured_log, NULL);
}

void tu_log_clear(void)
{
    pthread_mutex_lock(&captured_mu);
    captured[0] = '\0';
    pthread_mutex_unlock(&captured_mu);
}

int tu_log_has(const char *text)
{
    pthread_mutex_lock(&captured_mu);
    int has = strstr(captured, text) != NULL;
    pthread_mutex_unlock(&captured_mu);
    return has;
}

char *tu_expand(fake_server *srv, const char *text)
{
    const char *url = srv ? fake_server_url(srv) : "";
    const char *dir = strstr(text, "@TMP@") ? tu_dir() : "";
    if (!dir)
        dir = "";
    size_t cap = strlen(text) + 1, n = 0;
    for (const char *p = text; (p = strchr(p, '@')); p++)
        cap += strlen(url) + strlen(dir);
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (const char *p = text; *p;) {
        const char *with = strncmp(p, "@URL@", 5) == 0 ? url : strncmp(p, "@TMP@", 5) == 0 ? dir : NULL;
        if (with) {
            n += (size_t)snprintf(out + n, cap - n, "%s", with);
            p += 5;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    return out;
}

seam_client *tu_client_on(fake_server *srv, const char *conf_text)
{
    char *text = tu_expand(srv, conf_text);
    seam_client *c = text ? tu_clientf("%s", text) : NULL;
    free(text);
    return c;
}

int tu_start_client_on(fake_server **srv, seam_client **client, const char *conf_text)
{
    *srv = tu_server_start();
    *client = *srv ? tu_client_at_end(tu_client_on(*srv, conf_text)) : NULL;
    return *client ? 0 : -1;
}

seam_client *tu_test_client_on(fake_server **srv, const char *conf_text)
{
    *srv = tu_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(*srv);
    seam_client *c = tu_client_on(*srv, conf_text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

seam_client *tu_if_built(seam_client *c)
{
    seam_provider_info info = { 0 };
    if (c && (seam_client_provider_at(c, 0, &info) != SEAM_OK || !info.plugin_loaded)) {
        fprintf(stderr, "the %s plugin is not built: its wire tests are skipped\n",
                info.plugin ? info.plugin : "provider's");
        tu_client_free(c);
        c = NULL;
    }
    return c;
}

int tu_said(int rc, const seam_error *err, const char *what)
{
    if (rc != SEAM_OK)
        fprintf(stderr, "%s: %s\n", what, err->message);
    return rc;
}

/* ---- dupcodec: what a client says a model can do ------------------------------ */

seam_capabilities tu_capabilities(seam_client *c, const char *provider, const char *model)
{
    seam_capabilities caps;
    memset(&caps, 0xff, sizeof caps);
    caps.size = sizeof caps;
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(tu_said(seam_client_capabilities(c, provider, model, &caps, &err), &err, model),
                          SEAM_OK);
    return caps;
}

/* ---- added on branch dupcore (issue 19: one harness for tests/) ---- */

int tu_start_server_and_dir(fake_server **srv, const char **dir)
{
    *srv = tu_server_start();
    *dir = tu_dir();
    return *srv && *dir ? 0 : -1;
}
