/* credential.c — resolving a provider's credential from what the conf names: an
 * environment variable, a file (first line), a command's stdout (first line,
 * optionally followed by an `expires_in=` / `expires_at=` line) or an inline
 * api_key, the first of those configured in that order (an unset variable
 * falls back to the key `seam keys set` stored: stored_key.c); and the list of
 * sources of a provider's key pool (that key, then api_keys_env, api_key_files,
 * api_key_commands). The secret
 * is never copied into an error message: messages name where the credential was
 * looked for, never what was found (not even a command's text, which may embed
 * a key). */
#include "config.h"
#include "transport.h" /* the cancel token's fd */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* A credential is one line; anything longer than this is not one. */
#define MAX_CREDENTIAL_BYTES (64 * 1024)
/* After SIGTERM, how long a command's process group has to exit before SIGKILL. */
#define COMMAND_GRACE_MS 200

static int no_credential(const seam_conf_provider *p, seam_error *err, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int no_credential(const seam_conf_provider *p, seam_error *err, const char *fmt, ...)
{
    if (err) {
        char msg[sizeof err->message];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        seam_error_set(err, SEAM_ERROR_AUTH, "%s", msg);
        snprintf(err->provider, sizeof err->provider, "%s", p->name ? p->name : "");
    }
    return SEAM_ERR_NO_CREDENTIAL;
}

/* The first line of text[0..len), without surrounding whitespace; malloc'ed, or
 * NULL when that is empty (*nomem set on allocation failure). */
static char *first_line_trimmed(const char *text, size_t len, int *nomem)
{
    const char *end = memchr(text, '\n', len);
    if (!end)
        end = text + len;
    const char *start = text;
    while (start < end && (*start == ' ' || *start == '\t' || *start == '\r'))
        start++;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    if (start == end || memchr(start, '\0', (size_t)(end - start)))
        return NULL;
    char *s = strndup(start, (size_t)(end - start));
    if (!s)
        *nomem = 1;
    return s;
}

static void wipe(char *buf, size_t len)
{
    explicit_bzero(buf, len);
}

/* ---- the sources ----------------------------------------------------------------- */

static int from_one_env(const seam_conf_provider *p, const char *name, char **out, seam_error *err);

/* name may list fallbacks separated by newlines (api_key_env = [ ... ]): the
 * first variable that is set wins; the error names them all. */
static int from_env(const seam_conf_provider *p, const char *name, char **out, seam_error *err)
{
    if (!strchr(name, '\n'))
        return from_one_env(p, name, out, err);
    char *names = strdup(name), *save = NULL;
    if (!names)
        return SEAM_ERR_NOMEM;
    int rc = SEAM_ERR_NO_CREDENTIAL;
    for (char *n = strtok_r(names, "\n", &save); n && rc == SEAM_ERR_NO_CREDENTIAL;
         n = strtok_r(NULL, "\n", &save))
        rc = from_one_env(p, n, out, NULL);
    if (rc == SEAM_ERR_NO_CREDENTIAL) {
        strcpy(names, name); /* strtok_r cut it up */
        for (char *c = names; *c; c++)
            if (*c == '\n')
                *c = ',';
        no_credential(p, err, "none of the environment variables %s is set", names);
    }
    free(names);
    return rc;
}

static int from_one_env(const seam_conf_provider *p, const char *name, char **out, seam_error *err)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return no_credential(p, err, "environment variable %s is not set%s", name,
                             v ? " (it is empty)" : "");
    int nomem = 0;
    *out = first_line_trimmed(v, strlen(v), &nomem);
    if (nomem)
        return SEAM_ERR_NOMEM;
    if (!*out)
        return no_credential(p, err, "environment variable %s is not set (it is blank)", name);
    return SEAM_OK;
}

static int from_file(const seam_conf_provider *p, const char *file, char **out, seam_error *err)
{
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer forever.
     * Only a regular file is a key file (not a FIFO, a device, a directory). */
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return no_credential(p, err, "cannot read api_key_file %s: %s", file, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return no_credential(p, err, "cannot read api_key_file %s: %s", file, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return no_credential(p, err, "api_key_file %s is not a regular file (%s)", file,
                             S_ISFIFO(st.st_mode)  ? "a FIFO"
                             : S_ISDIR(st.st_mode) ? "a directory"
                             : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                             : S_ISSOCK(st.st_mode) ? "a socket"
                                                    : "not a file");
    }
    char buf[MAX_CREDENTIAL_BYTES];
    size_t len = 0;
    int read_errno = 0;
    while (len < sizeof buf) {
        ssize_t n = read(fd, buf + len, sizeof buf - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            read_errno = errno;
        if (n <= 0)
            break;
        len += (size_t)n;
        /* Only the first line matters. */
        if (memchr(buf + len - (size_t)n, '\n', (size_t)n))
            break;
    }
    close(fd);
    if (read_errno) {
        wipe(buf, len);
        return no_credential(p, err, "cannot read api_key_file %s: %s", file,
                             strerror(read_errno));
    }
    int nomem = 0;
    *out = first_line_trimmed(buf, len, &nomem);
    wipe(buf, len);
    if (nomem)
        return SEAM_ERR_NOMEM;
    if (!*out)
        return no_credential(p, err, "api_key_file %s is empty", file);
    return SEAM_OK;
}

/* The key's expiry from the lines a command printed after the key:
 * `expires_in=SECONDS` or `expires_at=UNIX_SECONDS` (the first that parses);
 * -1 when there is none. */
static int64_t command_expiry(const char *text, size_t len)
{
    const char *line = memchr(text, '\n', len);
    while (line && (size_t)(line - text) < len) {
        line++;
        const char *end = memchr(line, '\n', len - (size_t)(line - text));
        size_t n = end ? (size_t)(end - line) : len - (size_t)(line - text);
        char buf[64];
        if (n < sizeof buf) {
            memcpy(buf, line, n);
            buf[n] = '\0';
            long long v;
            char tail;
            int64_t found = -2;
            if (sscanf(buf, " expires_in = %lld %c", &v, &tail) == 1 && v >= 0)
                found = (int64_t)v * 1000;
            else if (sscanf(buf, " expires_at = %lld %c", &v, &tail) == 1) {
                long long left = v - (long long)time(NULL);
                found = left > 0 ? (int64_t)left * 1000 : 0;
            }
            wipe(buf, sizeof buf); /* another line may hold a secret too */
            if (found != -2)
                return found;
        }
        line = end;
    }
    return -1;
}

/* Ends what is left of a command's process group: SIGTERM, a short grace,
 * then SIGKILL. The leader is still unreaped here (WNOWAIT), so its pid, which
 * is the group's id, cannot have been handed to another process. */
static void end_group(pid_t pid)
{
    kill(-pid, SIGTERM);
    int64_t until = seam_now_ms() + COMMAND_GRACE_MS;
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        int rc = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0 || si.si_pid == pid || seam_now_ms() >= until)
            break;
        poll(NULL, 0, 5);
    }
    /* The leader may be gone while a grandchild (`sleep 60 &`) is not. */
    kill(-pid, SIGKILL);
}

/* How long a command may run: api_key_command_timeout_ms, and never past the
 * provider's own timeout_ms (a key is part of the request's time). */
static int64_t command_timeout(const seam_conf_provider *p)
{
    int64_t t = p->api_key_command_timeout_ms > 0 ? p->api_key_command_timeout_ms
                                                  : SEAM_DEFAULT_KEY_COMMAND_TIMEOUT_MS;
    if (p->timeout_ms > 0 && p->timeout_ms < t)
        t = p->timeout_ms;
    return t;
}

/* Runs the command with /bin/sh -c in a process group of its own, stdin and
 * stderr on /dev/null (a secret manager's chatter must not reach our caller's
 * terminal), stdout in a pipe. Its own group keeps a terminal's Ctrl-C for us
 * (we cancel), and lets a timeout or a cancel end everything it started. */
static int from_command(const seam_conf_provider *p, const char *command, char **out,
                        int64_t *expires_in_ms, seam_cancel *cancel, seam_error *err)
{
    if (seam_cancel_triggered(cancel)) {
        no_credential(p, err, "cancelled before api_key_command ran");
        if (err)
            err->kind = SEAM_ERROR_CANCELLED;
        return SEAM_ERR_NO_CREDENTIAL;
    }
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        return no_credential(p, err, "cannot run api_key_command: %s", strerror(errno));

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    /* The child starts with default signal dispositions, whatever ours are. */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                        POSIX_SPAWN_SETPGROUP);

    char *argv[] = {"sh", "-c", (char *)command, NULL};
    pid_t pid;
    int spawn_rc = posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(pipefd[1]);
    if (spawn_rc != 0) {
        close(pipefd[0]);
        return no_credential(p, err, "cannot run api_key_command: %s", strerror(spawn_rc));
    }

    char buf[MAX_CREDENTIAL_BYTES];
    size_t len = 0;
    int timed_out = 0, cancelled = 0;
    const int64_t limit = command_timeout(p);
    const int64_t deadline = seam_now_ms() + limit;
    for (;;) {
        int64_t left = deadline - seam_now_ms();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd pfd[2] = {{.fd = pipefd[0], .events = POLLIN},
                                {.fd = seam_cancel_fd(cancel), .events = POLLIN}};
        int pr = poll(pfd, cancel ? 2 : 1, left > INT32_MAX ? INT32_MAX : (int)left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr < 0)
            break;
        if (pr == 0)
            continue; /* the deadline check above decides */
        if (seam_cancel_triggered(cancel)) {
            cancelled = 1;
            break;
        }
        /* Past the cap the rest is drained and dropped, so the command is not
         * stuck writing into a full pipe. */
        char sink[4096];
        char *dst = len < sizeof buf ? buf + len : sink;
        size_t room = len < sizeof buf ? sizeof buf - len : sizeof sink;
        ssize_t n = read(pipefd[0], dst, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (dst == buf + len)
            len += (size_t)n;
        else
            wipe(sink, sizeof sink);
    }
    close(pipefd[0]);
    if (timed_out || cancelled)
        end_group(pid);

    int status = 0;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    /* With SIGCHLD ignored by the application the status is lost (ECHILD);
     * the output is all there is to judge by then. */
    int status_known = w == pid;

    if (timed_out || cancelled) {
        wipe(buf, len);
        if (cancelled) {
            no_credential(p, err, "api_key_command cancelled");
            if (err)
                err->kind = SEAM_ERROR_CANCELLED;
            return SEAM_ERR_NO_CREDENTIAL;
        }
        return no_credential(p, err, "api_key_command timed out after %lld ms "
                             "(api_key_command_timeout_ms)", (long long)limit);
    }
    if (status_known && WIFSIGNALED(status)) {
        wipe(buf, len);
        return no_credential(p, err, "api_key_command was killed by signal %d", WTERMSIG(status));
    }
    if (status_known && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        wipe(buf, len);
        return no_credential(p, err, "api_key_command failed (exit status %d)",
                             WEXITSTATUS(status));
    }
    int nomem = 0;
    *out = first_line_trimmed(buf, len, &nomem);
    if (expires_in_ms)
        *expires_in_ms = command_expiry(buf, len);
    wipe(buf, len);
    if (nomem)
        return SEAM_ERR_NOMEM;
    if (!*out)
        return no_credential(p, err, "api_key_command printed nothing");
    return SEAM_OK;
}

/* ---- public within libcore ---------------------------------------------------------- */

/* The provider's single key: the first configured of env, file, command, inline. */
static int single_source(const seam_conf_provider *p, seam_cred_source *src)
{
    if (p->api_key_env)
        *src = (seam_cred_source){SEAM_CRED_ENV, p->api_key_env};
    else if (p->api_key_file)
        *src = (seam_cred_source){SEAM_CRED_FILE, p->api_key_file};
    else if (p->api_key_command)
        *src = (seam_cred_source){SEAM_CRED_COMMAND, p->api_key_command};
    else if (p->api_key)
        *src = (seam_cred_source){SEAM_CRED_INLINE, p->api_key};
    else
        return 0;
    return 1;
}

int seam_credential_resolve(const seam_conf_provider *p, char **out, seam_error *err)
{
    if (!p || !out)
        return SEAM_ERR_INVALID;
    *out = NULL;
    seam_cred_source src;
    if (!single_source(p, &src))
        return SEAM_OK;
    return seam_credential_resolve_source(p, &src, out, NULL, NULL, err);
}

int seam_credential_resolve_source(const seam_conf_provider *p, const seam_cred_source *src,
                                   char **out, int64_t *expires_in_ms, seam_cancel *cancel,
                                   seam_error *err)
{
    if (!p || !src || !out)
        return SEAM_ERR_INVALID;
    *out = NULL;
    if (expires_in_ms)
        *expires_in_ms = -1;
    switch (src->kind) {
    case SEAM_CRED_ENV: {
        int rc = from_env(p, src->value, out, err);
        /* The provider's own variable unset: a key `seam keys set` stored
         * under its name (not for the extra variables of a key pool, which
         * would all find the same one). */
        if (rc == SEAM_ERR_NO_CREDENTIAL && src->value == p->api_key_env) {
            int stored = seam_stored_key(p->name, out);
            if (stored == SEAM_OK && err)
                seam_error_clear(err);
            if (stored != SEAM_ERR_NO_CREDENTIAL)
                return stored;
        }
        return rc;
    }
    case SEAM_CRED_FILE:
        return from_file(p, src->value, out, err);
    case SEAM_CRED_COMMAND:
        return from_command(p, src->value, out, expires_in_ms, cancel, err);
    case SEAM_CRED_INLINE:
        *out = strdup(src->value);
        return *out ? SEAM_OK : SEAM_ERR_NOMEM;
    }
    return SEAM_ERR_INVALID;
}

int seam_credential_pool(const seam_conf_provider *p, seam_cred_source **out, size_t *n)
{
    if (!p || !out || !n)
        return SEAM_ERR_INVALID;
    *out = NULL;
    *n = 0;
    size_t max = 1 + p->n_api_keys_env + p->n_api_key_files + p->n_api_key_commands;
    seam_cred_source *v = calloc(max, sizeof *v);
    if (!v)
        return SEAM_ERR_NOMEM;
    size_t k = 0;
    if (single_source(p, &v[k]))
        k++;
    for (size_t i = 0; i < p->n_api_keys_env; i++)
        v[k++] = (seam_cred_source){SEAM_CRED_ENV, p->api_keys_env[i]};
    for (size_t i = 0; i < p->n_api_key_files; i++)
        v[k++] = (seam_cred_source){SEAM_CRED_FILE, p->api_key_files[i]};
    for (size_t i = 0; i < p->n_api_key_commands; i++)
        v[k++] = (seam_cred_source){SEAM_CRED_COMMAND, p->api_key_commands[i]};
    *out = v;
    *n = k;
    return SEAM_OK;
}

/* The texts "env NAME" and "file PATH" are interned: seam_provider_info hands
 * them to library users with the client's lifetime, so a per-call or per-thread
 * buffer would change under them. The set of distinct texts is bounded by the
 * confs a process loads; they live until exit. */
typedef struct interned {
    struct interned *next;
    char text[];
} interned;

static pthread_mutex_t interned_lock = PTHREAD_MUTEX_INITIALIZER;
static interned *interned_texts;

static const char *intern2(const char *prefix, const char *value)
{
    size_t plen = strlen(prefix), vlen = strlen(value);
    const char *found = NULL;
    pthread_mutex_lock(&interned_lock);
    for (const interned *t = interned_texts; t && !found; t = t->next)
        if (strncmp(t->text, prefix, plen) == 0 && strcmp(t->text + plen, value) == 0)
            found = t->text;
    if (!found) {
        interned *t = malloc(sizeof *t + plen + vlen + 1);
        if (t) {
            memcpy(t->text, prefix, plen);
            memcpy(t->text + plen, value, vlen + 1);
            t->next = interned_texts;
            interned_texts = t;
            found = t->text;
        }
    }
    pthread_mutex_unlock(&interned_lock);
    return found ? found : prefix; /* out of memory: at least the kind */
}

/* "env NAME", or "env A or B" for a list of fallbacks. */
static const char *env_text(const char *names)
{
    if (!strchr(names, '\n'))
        return intern2("env ", names);
    seam_buf b = { 0 };
    for (const char *c = names; *c; c++)
        if (*c == '\n' ? seam_buf_puts(&b, " or ") : seam_buf_append(&b, c, 1))
            break;
    const char *t = intern2("env ", b.data ? b.data : "");
    seam_buf_free(&b);
    return t;
}

static const char *source_text(const seam_cred_source *src)
{
    switch (src->kind) {
    case SEAM_CRED_ENV: return env_text(src->value);
    case SEAM_CRED_FILE: return intern2("file ", src->value);
    case SEAM_CRED_COMMAND: return "command"; /* its text may hold a key: not shown */
    case SEAM_CRED_INLINE: return "inline";
    }
    return "none";
}

const char *seam_credential_source(const seam_conf_provider *p)
{
    if (!p)
        return "none";
    seam_cred_source *pool = NULL;
    size_t n = 0;
    if (seam_credential_pool(p, &pool, &n) == SEAM_OK && n > 1) {
        char count[48];
        snprintf(count, sizeof count, "pool of %zu keys (", n);
        char list[1024] = "";
        size_t used = 0;
        for (size_t i = 0; i < n && used + 1 < sizeof list; i++) {
            int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                             source_text(&pool[i]));
            if (w < 0)
                break;
            used += (size_t)w < sizeof list - used ? (size_t)w : sizeof list - used - 1;
        }
        if (used + 2 < sizeof list)
            memcpy(list + used, ")", 2);
        free(pool);
        return intern2(count, list);
    }
    free(pool);
    if (p->api_key_env)
        return env_text(p->api_key_env);
    if (p->api_key_file)
        return intern2("file ", p->api_key_file);
    if (p->api_key_command)
        return "command"; /* its text may hold a key: not shown */
    if (p->api_key)
        return "inline";
    return "none";
}
