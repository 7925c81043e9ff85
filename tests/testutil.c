/* testutil.c — helpers shared by the CUnit tests (tests/testutil.h): temporary
 * directories and files, the plugin directory of the build, a client built
 * from conf text (with its temp dir tracked until tu_client_free), and running
 * a shell command with its output captured. */
#include "config.h"

#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

char *tu_mkdtemp(void)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    char *path = NULL;
    if (asprintf(&path, "%s/seam-test-XXXXXX", tmp) < 0)
        return NULL;
    if (!mkdtemp(path)) { /* mkdtemp creates it 0700 */
        free(path);
        return NULL;
    }
    return path;
}

char *tu_mkdtemp_private(void)
{
#ifdef TOP_BUILDDIR
    const char *top = TOP_BUILDDIR;
#else
    const char *top = getenv("top_builddir");
    if (!top || !*top)
        top = ".";
#endif
    char *path = NULL;
    if (asprintf(&path, "%s/tests/tmp-XXXXXX", top) < 0)
        return NULL;
    if (!mkdtemp(path)) {
        free(path);
        return NULL;
    }
    return path;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void tu_rm_rf(const char *path)
{
    if (!path || !*path)
        return;
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *tu_path(const char *dir, const char *name)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", dir, name) < 0)
        return NULL;
    return p;
}

int tu_write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t len = text ? strlen(text) : 0;
    const char *p = text;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return close(fd) == 0 ? 0 : -1;
}

char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (cap - used < 2048) {
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = p;
            cap *= 2;
        }
        size_t n = fread(buf + used, 1, cap - used - 1, f);
        used += n;
        if (n == 0)
            break;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf || failed) {
        free(buf);
        return NULL;
    }
    buf[used] = '\0';
    if (len)
        *len = used;
    return buf;
}

int tu_copy_file(const char *from, const char *to)
{
    size_t len;
    char *data = tu_read_file(from, &len);
    if (!data)
        return -1;
    int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        free(data);
        return -1;
    }
    fchmod(fd, 0644); /* the umask must not make it stricter or looser */
    const char *p = data;
    int rc = 0;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = -1;
            break;
        }
        p += n;
        len -= (size_t)n;
    }
    if (close(fd) != 0)
        rc = -1;
    free(data);
    return rc;
}

const char *tu_plugin_dir(void)
{
    const char *env = getenv("SEAM_TEST_PLUGIN_DIR");
    if (env && *env)
        return env;
#ifdef TOP_BUILDDIR
    return TOP_BUILDDIR "/plugins/.libs";
#else
    /* This file may be compiled without TOP_BUILDDIR: `make check` exports
     * top_builddir, and a test run by hand runs from the build directory. The
     * path is made absolute because a conf resolves relative paths from its
     * own directory. */
    static char fallback[4096];
    const char *top = getenv("top_builddir");
    char rel[4096];
    snprintf(rel, sizeof rel, "%s/plugins/.libs", top && *top ? top : ".");
    if (!realpath(rel, fallback))
        snprintf(fallback, sizeof fallback, "%s", rel);
    return fallback;
#endif
}

/* ---- clients and their temp dirs ---------------------------------------------- */

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

static seam_client *client_from(const char *conf_text, int test_plugins, seam_error *err)
{
    char *dir = tu_mkdtemp();
    if (!dir) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "tu_client: cannot create a temp dir");
        return NULL;
    }
    char *conf_path = tu_path(dir, "seam.conf");
    char *quoted = conf_quote(tu_plugin_dir());
    /* The real plugins first: tests/plugins also holds a duplicate "mock". */
#ifdef TOP_BUILDDIR
    char *tests_dir = conf_quote(TOP_BUILDDIR "/tests/plugins/.libs");
#else
    char tests_rel[4096];
    const char *top = getenv("top_builddir");
    snprintf(tests_rel, sizeof tests_rel, "%s/tests/plugins/.libs", top && *top ? top : ".");
    char *tests_dir = conf_quote(tests_rel);
#endif
    char *text = NULL;
    seam_client *client = NULL;
    if (!conf_path || !quoted || !tests_dir ||
        /* No model catalog unless the test names one: an installed
         * models.conf must not add costs a test does not expect. */
        asprintf(&text, "plugin_path = [ %s%s%s ];\n%s%s\n", quoted, test_plugins ? ", " : "",
                 test_plugins ? tests_dir : "",
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
    free(tests_dir);
    free(text);
    return client;
}

seam_client *tu_client(const char *conf_text, seam_error *err)
{
    return client_from(conf_text, 0, err);
}

seam_client *tu_client_test_plugins(const char *conf_text, seam_error *err)
{
    return client_from(conf_text, 1, err);
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

/* ---- running a command ----------------------------------------------------------- */

static int append(char **buf, size_t *len, const char *data, size_t n)
{
    char *p = realloc(*buf, *len + n + 1);
    if (!p)
        return -1;
    memcpy(p + *len, data, n);
    *len += n;
    p[*len] = '\0';
    *buf = p;
    return 0;
}

int tu_run(const char *cmd, char **out, char **err)
{
    if (out)
        *out = NULL;
    if (err)
        *err = NULL;
    int po[2], pe[2];
    if (pipe2(po, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(pe, O_CLOEXEC) != 0) {
        close(po[0]);
        close(po[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(po[0]);
        close(po[1]);
        close(pe[0]);
        close(pe[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(po[1], STDOUT_FILENO);
        dup2(pe[1], STDERR_FILENO);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);

    char *obuf = NULL, *ebuf = NULL;
    size_t olen = 0, elen = 0;
    int failed = 0;
    struct pollfd p[2] = { { .fd = po[0], .events = POLLIN }, { .fd = pe[0], .events = POLLIN } };
    int open_fds = 2;
    while (open_fds > 0) {
        int n = poll(p, 2, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !p[i].revents)
                continue;
            char chunk[4096];
            ssize_t r = read(p[i].fd, chunk, sizeof chunk);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                close(p[i].fd);
                p[i].fd = -1;
                open_fds--;
                continue;
            }
            if (append(i == 0 ? &obuf : &ebuf, i == 0 ? &olen : &elen, chunk, (size_t)r) != 0)
                failed = 1;
        }
    }
    for (int i = 0; i < 2; i++)
        if (p[i].fd >= 0)
            close(p[i].fd);

    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            free(obuf);
            free(ebuf);
            return -1;
        }
    }
    /* A command that printed nothing still yields "" rather than NULL. */
    if (!failed && !obuf)
        failed = append(&obuf, &olen, "", 0);
    if (!failed && !ebuf)
        failed = append(&ebuf, &elen, "", 0);
    if (failed) {
        free(obuf);
        free(ebuf);
        return -1;
    }
    if (out)
        *out = obuf;
    else
        free(obuf);
    if (err)
        *err = ebuf;
    else
        free(ebuf);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return -1;
}
