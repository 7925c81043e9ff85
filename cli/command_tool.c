/* command_tool.c — runs a tool of the conf's `tools` group for `seam chat
 * --tools`: the tool is a shell command, the call's arguments (a JSON object)
 * on its stdin, its stdout the result. Running commands is the application's
 * choice, which is why this lives here and not in libseam. Calls run on the
 * tool loop's worker threads, several at once: nothing below touches shared
 * state but stderr (whose writes stdio locks). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <seam/seam.h>

#include "cli.h"

#define TOOL_DEFAULT_TIMEOUT_MS 60000
#define TOOL_MAX_STDOUT (1024 * 1024)
#define TOOL_STDERR_TAIL 2048   /* bytes of stderr kept for an error result */
#define TOOL_POLL_MS 100        /* how often a running command checks cancel */
#define TOOL_DRAIN_MS 500       /* after the shell exits, how long a background
                                 * child of it may keep its pipes open */
#define TOOL_GRACE_MS 1000      /* between SIGTERM and SIGKILL */

static int64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Growable bytes; `failed` once an allocation failed. */
typedef struct bytes {
    char *data;
    size_t len, cap;
    int failed;
} bytes;

static void bytes_add(bytes *b, const char *p, size_t n)
{
    if (b->failed || n == 0)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

/* Appends, keeping only the last TOOL_STDERR_TAIL bytes (*cut set once some
 * were dropped). */
static void tail_add(bytes *b, int *cut, const char *p, size_t n)
{
    bytes_add(b, p, n);
    if (b->len > TOOL_STDERR_TAIL && !b->failed) {
        size_t drop = b->len - TOOL_STDERR_TAIL;
        memmove(b->data, b->data + drop, TOOL_STDERR_TAIL + 1);
        b->len = TOOL_STDERR_TAIL;
        *cut = 1;
    }
}

/* s without its trailing white space, as a length. */
static size_t trimmed_length(const char *s, size_t n)
{
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return n;
}

/* Waits up to ms for pid; 1 when it was reaped (status filled). */
static int reap_within(pid_t pid, int *status, int64_t ms)
{
    int64_t until = monotonic_ms() + ms;
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            return 1;
        if (w < 0 && errno != EINTR) {
            *status = -1; /* SIGCHLD ignored: the status is gone */
            return 1;
        }
        if (monotonic_ms() >= until)
            return 0;
        struct timespec nap = { 0, 20 * 1000000L };
        nanosleep(&nap, NULL);
    }
}

/* Stops the command and everything it started (its own process group). */
static void stop_command(pid_t pid, int *status, int reaped)
{
    kill(-pid, SIGTERM);
    if (!reaped && reap_within(pid, status, TOOL_GRACE_MS))
        reaped = 1;
    kill(-pid, SIGKILL);
    if (!reaped)
        while (waitpid(pid, status, 0) < 0 && errno == EINTR)
            ;
}

typedef enum command_end {
    COMMAND_EXITED = 0,
    COMMAND_TIMED_OUT,
    COMMAND_CANCELLED,
    COMMAND_TOO_MUCH_OUTPUT,
    COMMAND_CANNOT_WAIT
} command_end;

/* Adds ": <the stderr tail>" (or, when the command wrote nothing there, the
 * stdout tail) to an error message. */
static void add_output_tail(bytes *msg, const bytes *err_tail, int err_cut, const bytes *out)
{
    const char *text = err_tail->data;
    size_t n = trimmed_length(err_tail->data ? err_tail->data : "", err_tail->len);
    int cut = err_cut;
    if (n == 0 && out->len) {
        n = trimmed_length(out->data, out->len);
        text = out->data;
        cut = n > TOOL_STDERR_TAIL;
        if (cut) {
            text += n - TOOL_STDERR_TAIL;
            n = TOOL_STDERR_TAIL;
        }
    }
    if (n == 0)
        return;
    bytes_add(msg, ": ", 2);
    if (cut)
        bytes_add(msg, "...", 3);
    bytes_add(msg, text, n);
}

/* Runs the tool's command for one call: /bin/sh -c COMMAND, the arguments on
 * stdin, stdout (up to TOOL_MAX_STDOUT) the result — JSON when it is one JSON
 * value, else text — and a non-zero exit, a signal, a timeout, a cancel or
 * too much output an error result. Every pipe is polled together, so a command
 * that writes before it reads (or never reads) cannot deadlock us. */
int run_command_tool(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    const command_tool *tool = ud;
    int64_t timeout_ms = tool->timeout_ms > 0 ? tool->timeout_ms : TOOL_DEFAULT_TIMEOUT_MS;
    const char *args = call->args_json ? call->args_json : "{}";
    size_t args_len = strlen(args), args_sent = 0;

    /* A command that exits without reading its stdin makes our write fail with
     * EPIPE: the SIGPIPE that comes with it is held on this thread and taken
     * back below, instead of killing the process. */
    sigset_t pipe_only, old_mask, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old_mask);
    sigpending(&pending);
    int pipe_was_pending = sigismember(&pending, SIGPIPE);

    int in[2] = { -1, -1 }, outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
    bytes stdout_buf = { 0 }, stderr_tail = { 0 }, msg = { 0 };
    int stderr_cut = 0;
    int rc = SEAM_OK;
    pid_t pid = -1;
    /* O_CLOEXEC: a command spawned at the same time by another worker must
     * not inherit our ends (it would hold this command's stdin open). */
    char why[128];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0) {
        seam_tool_output_error(out, "cannot run the command of tool %s: %s", tool->name,
                               strerror_r(errno, why, sizeof why));
        rc = 1;
        goto done;
    }

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    /* Default signals and an empty mask, whatever ours are; its own process
     * group, so that a timeout stops whatever the shell started too. */
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                        POSIX_SPAWN_SETPGROUP);
    char *argv[] = { "sh", "-c", (char *)tool->command, NULL };
    int spawn_rc = posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close_fd(&in[0]);
    close_fd(&outp[1]);
    close_fd(&errp[1]);
    if (spawn_rc != 0) {
        seam_tool_output_error(out, "cannot run the command of tool %s: %s", tool->name,
                               strerror_r(spawn_rc, why, sizeof why));
        rc = 1;
        goto done;
    }
    fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
    if (args_len == 0)
        close_fd(&in[1]);

    int64_t start = monotonic_ms(), deadline = start + timeout_ms, exited_at = 0;
    int exited = 0, status = 0;
    command_end end = COMMAND_EXITED;
    for (;;) {
        if (!exited && reap_within(pid, &status, 0)) {
            exited = 1;
            exited_at = monotonic_ms();
        }
        int64_t now = monotonic_ms();
        int reading = outp[0] >= 0 || errp[0] >= 0;
        if (exited && (!reading || now - exited_at >= TOOL_DRAIN_MS))
            break;
        if (call->cancel && seam_cancel_triggered(call->cancel)) {
            end = COMMAND_CANCELLED;
            break;
        }
        if (now >= deadline) {
            end = COMMAND_TIMED_OUT;
            break;
        }
        int wait_ms = (int)(deadline - now < TOOL_POLL_MS ? deadline - now : TOOL_POLL_MS);
        if (!reading)
            wait_ms = wait_ms < 20 ? wait_ms : 20; /* only the exit is left to see */
        struct pollfd pfd[3] = {
            { in[1], POLLOUT, 0 },
            { outp[0], POLLIN, 0 },
            { errp[0], POLLIN, 0 },
        };
        int pr = poll(pfd, 3, wait_ms);
        if (pr < 0 && errno != EINTR) {
            end = COMMAND_CANNOT_WAIT;
            break;
        }
        if (pr <= 0)
            continue;
        if (pfd[0].revents & (POLLOUT | POLLERR | POLLHUP)) {
            ssize_t w = write(in[1], args + args_sent, args_len - args_sent);
            if (w > 0)
                args_sent += (size_t)w;
            /* EPIPE: the command does not want its arguments; not an error. */
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || args_sent == args_len)
                close_fd(&in[1]);
        }
        char buf[16384];
        if (pfd[1].revents & (POLLIN | POLLERR | POLLHUP)) {
            ssize_t n = read(outp[0], buf, sizeof buf);
            if (n > 0) {
                bytes_add(&stdout_buf, buf, (size_t)n);
                if (stdout_buf.len > TOOL_MAX_STDOUT) {
                    end = COMMAND_TOO_MUCH_OUTPUT;
                    break;
                }
            } else if (n == 0 || errno != EINTR) {
                close_fd(&outp[0]);
            }
        }
        if (pfd[2].revents & (POLLIN | POLLERR | POLLHUP)) {
            ssize_t n = read(errp[0], buf, sizeof buf);
            if (n > 0) {
                tail_add(&stderr_tail, &stderr_cut, buf, (size_t)n);
                if (tool->verbose) {
                    fwrite(buf, 1, (size_t)n, stderr);
                    fflush(stderr);
                }
            } else if (n == 0 || errno != EINTR) {
                close_fd(&errp[0]);
            }
        }
    }
    close_fd(&in[1]);
    close_fd(&outp[0]);
    close_fd(&errp[0]);
    if (end != COMMAND_EXITED)
        stop_command(pid, &status, exited);

    if (stdout_buf.failed || stderr_tail.failed) {
        /* Not a result for the model: the run ends out of memory. */
        seam_tool_output_error(out, "tool %s: out of memory reading its output", tool->name);
        rc = SEAM_ERR_NOMEM;
    } else if (end == COMMAND_TIMED_OUT) {
        char head[160];
        snprintf(head, sizeof head, "command timed out after %lld ms", (long long)timeout_ms);
        bytes_add(&msg, head, strlen(head));
        const bytes no_stdout = { 0 }; /* a partial result would only mislead */
        add_output_tail(&msg, &stderr_tail, stderr_cut, &no_stdout);
        rc = 1;
    } else if (end == COMMAND_CANNOT_WAIT) {
        seam_tool_output_error(out, "cannot wait for the command of tool %s", tool->name);
        rc = 1;
    } else if (end == COMMAND_CANCELLED) {
        seam_tool_output_error(out, "command stopped: the run was cancelled");
        rc = 1;
    } else if (end == COMMAND_TOO_MUCH_OUTPUT) {
        seam_tool_output_error(out, "command output exceeds %d bytes", TOOL_MAX_STDOUT);
        rc = 1;
    } else if (status != -1 && (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status)))) {
        char head[160];
        if (WIFSIGNALED(status))
            snprintf(head, sizeof head, "command killed by signal %d", WTERMSIG(status));
        else
            snprintf(head, sizeof head, "command exited with status %d", WEXITSTATUS(status));
        bytes_add(&msg, head, strlen(head));
        add_output_tail(&msg, &stderr_tail, stderr_cut, &stdout_buf);
        rc = 1;
    } else {
        /* The result: one (strict) JSON value as is, anything else as text,
         * without the newline that ends a shell's last line. */
        char *text = stdout_buf.data ? stdout_buf.data : "";
        size_t n = stdout_buf.len;
        int json = 0;
        if (n && !memchr(text, '\0', n)) {
            size_t t = trimmed_length(text, n);
            char kept = text[t];
            text[t] = '\0';
            json = seam_tool_output_json(out, text) == SEAM_OK;
            text[t] = kept;
        }
        if (!json) {
            if (n && text[n - 1] == '\n')
                text[--n] = '\0';
            if (n && text[n - 1] == '\r')
                text[--n] = '\0';
            rc = seam_tool_output_text(out, text);
        }
    }
    if (msg.len && !msg.failed)
        seam_tool_output_error(out, "%s", msg.data);
    else if (msg.failed)
        rc = SEAM_ERR_NOMEM;

done:
    close_fd(&in[0]);
    close_fd(&in[1]);
    close_fd(&outp[0]);
    close_fd(&outp[1]);
    close_fd(&errp[0]);
    close_fd(&errp[1]);
    free(stdout_buf.data);
    free(stderr_tail.data);
    free(msg.data);
    /* Take back a SIGPIPE our write raised, then restore the mask. */
    sigpending(&pending);
    if (!pipe_was_pending && sigismember(&pending, SIGPIPE)) {
        struct timespec zero = { 0, 0 };
        sigtimedwait(&pipe_only, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    return rc;
}
