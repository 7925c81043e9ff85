/* testutil.c — files for the tests (tests/testutil.h): temporary directories
 * (one per program, removed when its suites end) and files, the plugin
 * directory of the build, running a shell command with its output captured,
 * and whether a program is installed. Clients and servers are tu_fixture.c's. */
#include "config.h"

#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
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

static void remove_dir(void *dir)
{
    tu_rm_rf(dir);
    free(dir);
}

void tu_rm_rf_at_end(char *path)
{
    if (path)
        tu_at_end(remove_dir, path);
}

const char *tu_dir(void)
{
    static char *dir;
    if (!dir) {
        dir = tu_mkdtemp();
        tu_rm_rf_at_end(dir);
    }
    return dir;
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

const char *tu_test_plugin_dir(void)
{
#ifdef TOP_BUILDDIR
    return TOP_BUILDDIR "/tests/plugins/.libs";
#else
    return "tests/plugins/.libs";
#endif
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

int tu_have_command(const char *program, const char *what_not)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v '%s' >/dev/null 2>&1", program);
    if (tu_run(cmd, NULL, NULL) == 0)
        return 1;
    fprintf(stderr, "(skipped: no %s command: %s) ", program, what_not);
    return 0;
}
