/* seam.c — the `seam` command: argument parsing, the subcommands (chat, plugins,
 * providers, config check, help) and the exit codes (0 ok, 1 provider error,
 * 2 usage or conf error, 130 interrupted), and the runner of the conf's
 * command tools that `chat --tools` offers the model. It uses only the public
 * API of libseam (<seam/seam.h>); the --json shapes live in json_out.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <seam/seam.h>

#include "json_out.h"
#ifdef HAVE_SERVE
#include "serve/serve.h"
#endif

#ifndef SEAM_CONF_INSTALLED
#define SEAM_CONF_INSTALLED "/etc/seam/seam.conf"
#endif

enum {
    EXIT_OK = 0,
    EXIT_PROVIDER = 1,
    EXIT_USAGE = 2,
    EXIT_INTERRUPTED = 130 /* 128 + SIGINT, as a shell reports it */
};

static const char *const help_text =
    "Usage:\n"
    "  seam [--conf FILE] chat [--chain C | --provider P --model M] [--system S]\n"
    "                          [--tools T,...] [--max-tool-rounds N]\n"
    "                          [--json] [--no-stream] [-v] [PROMPT]\n"
    "  seam [--conf FILE] plugins\n"
    "  seam [--conf FILE] providers\n"
    "  seam [--conf FILE] config check [FILE]\n"
    "  seam help | --help | --version\n"
    "\n"
    "Every LLM provider behind one seam.\n"
    "\n"
    "Commands:\n"
    "  chat        ask a model and stream the answer to stdout; a usage line\n"
    "              (tokens, cost when known, provider and model) goes to stderr.\n"
    "              The prompt is read from stdin when PROMPT is absent.\n"
    "      --chain C           use the fallback chain C (default: the chain of role\n"
    "                          \"assistant\", else \"default\")\n"
    "      --provider P --model M\n"
    "                          call the configured provider P with model M only\n"
    "      --system S          system prompt\n"
    "      --json              one JSON object per line for each chunk, then a\n"
    "                          \"result\" line, or an \"error\" line on failure\n"
    "      --no-stream         wait for the whole answer, then print it\n"
    "      --tools T,...       offer the model the conf's command tools T (see\n"
    "                          seam.conf(5), `tools`): each call runs the tool's\n"
    "                          command (arguments as JSON on stdin, its stdout the\n"
    "                          result) and the results go back to the model until\n"
    "                          it answers; calls and results are noted on stderr,\n"
    "                          and with --json as tool_result lines and \"steps\"\n"
    "      --max-tool-rounds N rounds of tool calls run before the model's calls are\n"
    "                          returned unexecuted (default 10; 0: run none)\n"
    "      -v, --verbose       print every attempt of the chain on stderr (provider,\n"
    "                          model, outcome, error, wait, usage and cost); with\n"
    "                          --json the result line lists them under \"attempts\";\n"
    "                          first, the conf's warnings (as config check)\n"
    "  plugins     plugins found: file, ABI, provider ids, loaded or why refused\n"
    "  providers   configured providers (plugin, base_url, loaded, credential set)\n"
    "              and chains\n"
    "  config check [FILE]\n"
    "              check a conf file (default: the conf seam would use)\n"
    "  help        this text\n"
    "\n"
    "Options:\n"
    "  --conf FILE     conf file (default: $SEAM_CONF, $XDG_CONFIG_HOME/seam/seam.conf\n"
    "                  or ~/.config/seam/seam.conf, then " SEAM_CONF_INSTALLED ")\n"
    "  -h, --help      this text\n"
    "  -V, --version   versions of seam and libseam\n"
    "\n"
    "Environment: SEAM_CONF, SEAM_PLUGIN_PATH (colon-separated plugin directories).\n"
    "Exit status: 0 ok, 1 provider error, 2 usage or conf error, 130 interrupted.\n";

/* ---- messages ------------------------------------------------------------- */

static void say(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static void say(const char *fmt, ...)
{
    va_list ap;
    fputs("seam: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int usage_error(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("seam: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'seam --help'.\n", stderr);
    return EXIT_USAGE;
}

/* "provider: message [kind, HTTP 429, code x]" on stderr. */
static void print_error(const seam_error *err)
{
    fputs("seam: ", stderr);
    if (err->provider[0])
        fprintf(stderr, "%s: ", err->provider);
    fprintf(stderr, "%s [%s", err->message[0] ? err->message : "failed",
            seam_error_kind_name(err->kind));
    if (err->http_status)
        fprintf(stderr, ", HTTP %d", err->http_status);
    if (err->code[0])
        fprintf(stderr, ", code %s", err->code);
    fputs("]\n", stderr);
}

/* ---- option parsing -------------------------------------------------------- */

/* Matches argv[*i] against a long option taking a value, as "--name VALUE" or
 * "--name=VALUE". Returns 1 with *value set (and *i advanced past a separate
 * value), 0 when argv[*i] is another option, -1 when the value is missing. */
static int option_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    if (arg[n] != '\0')
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *value = argv[++*i];
    return 1;
}

/* ---- the client ------------------------------------------------------------- */

static void print_warning(void *ud, const char *text);

/* Creates the client; on failure reports why and returns the exit code (a conf
 * that cannot be read or parsed is a conf error: 2). */
static int open_client(const char *conf_path, seam_client **out, seam_error *err)
{
    seam_client_options opts;
    memset(&opts, 0, sizeof opts);
    opts.size = sizeof opts;
    opts.conf_path = conf_path;
    seam_error_clear(err);
    int rc = seam_client_new(&opts, out, err);
    if (rc == SEAM_OK)
        return EXIT_OK;
    if (err->kind == SEAM_ERROR_NONE)
        seam_error_set(err, SEAM_ERROR_CONF, "cannot create the client (status %d)", rc);
    say("%s", err->message);
    return rc == SEAM_ERR_NOMEM ? EXIT_PROVIDER : EXIT_USAGE;
}

/* ---- command tools (--tools) ------------------------------------------------------ */

/* A tool of the conf's `tools` group is a shell command: the call's arguments
 * (a JSON object) on its stdin, its stdout the result. Running commands is the
 * application's choice, which is why this lives here and not in libseam. Calls
 * run on the tool loop's worker threads, several at once: nothing below
 * touches shared state but stderr (whose writes stdio locks). */

#define TOOL_DEFAULT_TIMEOUT_MS 60000
#define TOOL_MAX_STDOUT (1024 * 1024)
#define TOOL_STDERR_TAIL 2048   /* bytes of stderr kept for an error result */
#define TOOL_POLL_MS 100        /* how often a running command checks cancel */
#define TOOL_DRAIN_MS 500       /* after the shell exits, how long a background
                                 * child of it may keep its pipes open */
#define TOOL_GRACE_MS 1000      /* between SIGTERM and SIGKILL */

typedef struct command_tool {
    const char *name;    /* borrowed from the client */
    const char *command;
    int64_t timeout_ms;
    int verbose;         /* -v: the command's stderr goes to ours as it comes */
} command_tool;

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
static int run_command_tool(void *ud, const seam_tool_call *call, seam_tool_output *out)
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

/* ---- chat -------------------------------------------------------------------- */

/* The cancel token of the running call: SIGINT triggers it. seam_cancel_trigger
 * is async-signal-safe (it stores a flag and writes to a pipe). */
static seam_cancel *volatile running_cancel;

static void on_interrupt(int sig)
{
    (void)sig;
    seam_cancel *c = running_cancel;
    if (c)
        seam_cancel_trigger(c);
}

static void install_interrupt_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    /* A second Ctrl-C kills at once, should the cancel ever not be honoured. */
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, NULL);
}

/* Reads all of stdin (the prompt); NULL on a read error. */
static char *read_stdin(void)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (;;) {
        if (cap - len < 2) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                return NULL;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, stdin);
        len += got;
        if (got == 0) {
            if (ferror(stdin)) {
                free(buf);
                return NULL;
            }
            break;
        }
    }
    buf[len] = '\0';
    return buf;
}

/* Joins the positional words into one prompt (so `seam chat hello there` works). */
static char *join_words(int n, char **words)
{
    size_t len = 1;
    for (int i = 0; i < n; i++)
        len += strlen(words[i]) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, words[i]);
    }
    return s;
}

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return 0;
    return 1;
}

/* Micro-cents (1e-8 USD) as dollars, exactly: "$0.00123456", at least 2 decimals. */
static void format_cost(int64_t microcents, char *buf, size_t size)
{
    const char *sign = microcents < 0 ? "-" : "";
    uint64_t v = microcents < 0 ? (uint64_t)0 - (uint64_t)microcents : (uint64_t)microcents;
    char frac[16];
    snprintf(frac, sizeof frac, "%08llu", (unsigned long long)(v % 100000000u));
    size_t n = strlen(frac);
    while (n > 2 && frac[n - 1] == '0')
        frac[--n] = '\0';
    snprintf(buf, size, "%s$%llu.%s", sign, (unsigned long long)(v / 100000000u), frac);
}

/* The line on stderr after an answer:
 *   tokens: in N (cache read R, write W) out M (reasoning K)  cost: $X  provider: P  model: M
 * A count the provider did not report is "?"; cost only when known. */
static void print_usage(const seam_usage *u, const char *provider, const char *model)
{
    seam_usage none;
    if (!u) {
        memset(&none, 0, sizeof none);
        u = &none;
    }
    fputs("tokens: in ", stderr);
    if (u->present & SEAM_USAGE_INPUT)
        fprintf(stderr, "%lld", (long long)u->input_tokens);
    else
        fputc('?', stderr);
    int has_read = (u->present & SEAM_USAGE_CACHE_READ) != 0;
    int has_write = (u->present & SEAM_USAGE_CACHE_WRITE) != 0;
    if (has_read || has_write) {
        fputs(" (cache", stderr);
        if (has_read)
            fprintf(stderr, " read %lld", (long long)u->cache_read_tokens);
        if (has_write)
            fprintf(stderr, "%s write %lld", has_read ? "," : "", (long long)u->cache_write_tokens);
        fputc(')', stderr);
    }
    fputs(" out ", stderr);
    if (u->present & SEAM_USAGE_OUTPUT)
        fprintf(stderr, "%lld", (long long)u->output_tokens);
    else
        fputc('?', stderr);
    if (u->present & SEAM_USAGE_REASONING)
        fprintf(stderr, " (reasoning %lld)", (long long)u->reasoning_tokens);
    if (u->present & SEAM_USAGE_COST) {
        char cost[48];
        format_cost(u->cost_microcents, cost, sizeof cost);
        fprintf(stderr, "  cost: %s", cost);
    }
    if (provider)
        fprintf(stderr, "  provider: %s", provider);
    if (model)
        fprintf(stderr, "  model: %s", model);
    fputc('\n', stderr);
}

static void print_usage_line(const seam_result *res)
{
    print_usage(seam_result_usage(res), seam_result_provider(res), seam_result_model(res));
}

typedef struct chat_options {
    const char *conf;
    const char *chain;
    const char *provider;
    const char *model;
    const char *system;
    int json;
    int no_stream;
    int verbose;
    char *tool_names;        /* --tools, every value joined with ',' (NULL: none) */
    int max_tool_rounds;     /* --max-tool-rounds; -1: not given */
    json_attempts *attempts; /* --json: the result line's "attempts" */
    int nwords;
    char **words;
} chat_options;

/* -v: one line per attempt of the chain, as it happens. */
/* 1 while the answer's text on stdout does not end with a newline: a note on
 * stderr (an attempt, a tool call) first ends that line, so that on a
 * terminal, where both streams meet, the note starts on a line of its own. */
static int text_line_open;

static void end_text_line(void)
{
    if (text_line_open) {
        fputc('\n', stdout);
        fflush(stdout);
        text_line_open = 0;
    }
}

static void print_attempt(const seam_attempt *a)
{
    end_text_line();
    const char *outcome = a->outcome == SEAM_ATTEMPT_SUCCEEDED ? "succeeded"
                          : a->outcome == SEAM_ATTEMPT_FAILED  ? "failed"
                                                               : "skipped";
    fprintf(stderr, "seam: %s%s%sattempt %d %s %s: %s", a->chain ? "chain " : "",
            a->chain ? a->chain : "", a->chain ? ": " : "", a->attempt, a->provider,
            a->model ? a->model : "?", outcome);
    if (a->error) {
        fprintf(stderr, ": %s", seam_error_kind_name(a->error->kind));
        if (a->error->http_status)
            fprintf(stderr, " (HTTP %d)", a->error->http_status);
        if (a->error->message[0])
            fprintf(stderr, ": %s", a->error->message);
    }
    if (a->usage) {
        const seam_usage *u = a->usage;
        fputs(" [", stderr);
        if (u->present & SEAM_USAGE_INPUT)
            fprintf(stderr, "in %lld ", (long long)u->input_tokens);
        if (u->present & SEAM_USAGE_OUTPUT)
            fprintf(stderr, "out %lld ", (long long)u->output_tokens);
        if (u->present & SEAM_USAGE_COST) {
            char cost[48];
            format_cost(u->cost_microcents, cost, sizeof cost);
            fprintf(stderr, "cost %s", cost);
        } else {
            fputs("cost unknown", stderr);
        }
        fputc(']', stderr);
    }
    if (a->wait_ms > 0)
        fprintf(stderr, a->outcome == SEAM_ATTEMPT_SKIPPED ? "; waiting %lld ms"
                                                           : "; retrying in %lld ms",
                (long long)a->wait_ms);
    fputc('\n', stderr);
}

static void on_attempt(void *ud, const seam_attempt *a)
{
    const chat_options *o = ud;
    if (o->verbose)
        print_attempt(a);
    json_attempts_add(o->attempts, a);
}

/* Text mode shows a tool call on stderr: stdout carries the answer's text only. */
static void print_tool_call_note(const char *name, const char *args_json)
{
    fprintf(stderr, "seam: tool call %s %s\n", name ? name : "?",
            args_json && *args_json ? args_json : "{}");
}

/* The exit code for a failed call. */
static int failure_exit_code(int status, const seam_error *err)
{
    if (err->kind == SEAM_ERROR_CANCELLED)
        return EXIT_INTERRUPTED;
    if (err->kind == SEAM_ERROR_CONF || status == SEAM_ERR_CONF || status == SEAM_ERR_NOT_FOUND ||
        status == SEAM_ERR_INVALID || status == SEAM_ERR_NO_CREDENTIAL)
        return EXIT_USAGE;
    return EXIT_PROVIDER;
}

/* Normalizes a failure before it is shown: an interrupted call is reported as
 * cancelled whatever the transport saw, and an unfilled error gets a kind. */
static void settle_error(seam_error *err, int status, seam_cancel *cancel)
{
    if (err->kind == SEAM_ERROR_CANCELLED) {
        /* We aborted the transfer: whatever status the server had sent (200
         * for a stream) is not the status of this error. */
        err->http_status = 0;
        return;
    }
    if (cancel && seam_cancel_triggered(cancel)) {
        char provider[sizeof err->provider];
        memcpy(provider, err->provider, sizeof provider);
        seam_error_clear(err);
        seam_error_set(err, SEAM_ERROR_CANCELLED, "cancelled");
        memcpy(err->provider, provider, sizeof provider);
        return;
    }
    if (err->kind == SEAM_ERROR_NONE) {
        seam_error_kind kind = status == SEAM_ERR_CONF ? SEAM_ERROR_CONF : SEAM_ERROR_UNKNOWN;
        seam_error_set(err, kind, "call failed (status %d)", status);
    }
}

static int report_failure(const chat_options *o, int status, seam_error *err,
                          seam_cancel *cancel)
{
    settle_error(err, status, cancel);
    if (o->json) {
        json_out_error(stdout, err);
    } else if (err->kind == SEAM_ERROR_CANCELLED) {
        say("cancelled");
    } else {
        print_error(err);
    }
    return failure_exit_code(status, err);
}

static int chat_blocking(const chat_options *o, seam_client *client, const seam_request *req,
                         const seam_call_options *call, seam_cancel *cancel)
{
    seam_result *res = NULL;
    seam_error err;
    seam_error_clear(&err);
    int rc = seam_generate(client, req, call, &res, &err);
    if (rc != SEAM_OK || !res) {
        seam_result_free(res);
        return report_failure(o, rc != SEAM_OK ? rc : SEAM_ERR_PROVIDER, &err, cancel);
    }
    if (o->json) {
        json_out_result_with(stdout, res, o->attempts);
    } else {
        /* As when streaming: the text, ended by a newline; nothing when the
         * answer holds no text (only tool calls). */
        const char *text = seam_result_text(res);
        if (text && *text) {
            fputs(text, stdout);
            if (text[strlen(text) - 1] != '\n')
                fputc('\n', stdout);
            fflush(stdout);
        }
        const seam_message *msg = seam_result_message(res);
        for (size_t i = 0; msg && i < seam_message_part_count(msg); i++) {
            const seam_part *p = seam_message_part(msg, i);
            if (seam_part_get_type(p) == SEAM_PART_TOOL_CALL)
                print_tool_call_note(seam_part_tool_name(p), seam_part_args_json(p));
        }
        print_usage_line(res);
    }
    seam_result_free(res);
    return EXIT_OK;
}

/* The result of a call as one short line: a JSON string's text, else the JSON;
 * its first line, cut at about 200 bytes (on a UTF-8 boundary). */
static void print_tool_result_note(const char *name, const char *result_json, int is_error)
{
    const char *text = result_json ? result_json : "null";
    json_object *v = json_tokener_parse(text);
    if (v && json_object_is_type(v, json_type_string))
        text = json_object_get_string(v);
    size_t n = strcspn(text, "\r\n");
    int cut = text[n] != '\0';
    if (n > 200) {
        n = 200;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--;
        cut = 1;
    }
    fprintf(stderr, "seam: tool result %s: %s%.*s%s\n", name ? name : "?",
            is_error ? "error: " : "", (int)n, text, cut ? "..." : "");
    json_object_put(v);
}

/* The names of the calls seen in a run (tool_call_end carries only the id). */
typedef struct call_names {
    char **ids, **names;
    size_t n, cap;
} call_names;

static void call_names_add(call_names *c, const char *id, const char *name)
{
    if (!id || !name)
        return;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        char **ids = realloc(c->ids, cap * sizeof *ids);
        if (!ids)
            return;
        c->ids = ids;
        char **names = realloc(c->names, cap * sizeof *names);
        if (!names)
            return;
        c->names = names;
        c->cap = cap;
    }
    char *i = strdup(id), *nm = strdup(name);
    if (!i || !nm) {
        free(i);
        free(nm);
        return;
    }
    c->ids[c->n] = i;
    c->names[c->n++] = nm;
}

static const char *call_names_find(const call_names *c, const char *id)
{
    for (size_t i = c->n; id && i-- > 0;)
        if (strcmp(c->ids[i], id) == 0)
            return c->names[i];
    return NULL;
}

static void call_names_free(call_names *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->ids[i]);
        free(c->names[i]);
    }
    free(c->ids);
    free(c->names);
}

/* 1 when a tool_result chunk is one the loop ran (the step it belongs to is
 * complete and lists it), 0 for one the provider ran inside its turn. */
static int is_client_result(const seam_loop_stream *s, const seam_chunk *chunk)
{
    const seam_step *st = seam_generation_step(seam_loop_stream_generation(s),
                                               seam_loop_stream_step(s));
    for (size_t i = 0; st && chunk->id && i < seam_step_tool_result_count(st); i++) {
        const char *id = seam_part_tool_call_id(seam_step_tool_result(st, i));
        if (id && strcmp(id, chunk->id) == 0)
            return 1;
    }
    return 0;
}

/* A chunk stream to print: a plain stream, or the tool loop's (whose
 * tool_result chunks may be results the loop ran on the client). */
typedef struct chunk_source {
    int (*next)(void *s, const seam_chunk **chunk, seam_error *err);
    int (*is_client_result)(const void *s, const seam_chunk *chunk); /* NULL: never */
    void *s;
} chunk_source;

static int next_plain(void *s, const seam_chunk **chunk, seam_error *err)
{
    return seam_stream_next(s, chunk, err);
}

static int next_loop(void *s, const seam_chunk **chunk, seam_error *err)
{
    return seam_loop_stream_next(s, chunk, err);
}

static int loop_client_result(const void *s, const seam_chunk *chunk)
{
    return is_client_result(s, chunk);
}

/* Prints a stream as it arrives: text to stdout, notes on stderr, or every
 * chunk as a JSON line. Returns 1 when the call failed (*failure and *status
 * set), 0 when it ended well. What arrived stays printed either way. */
static int print_stream(const chat_options *o, const chunk_source *src, seam_error *failure,
                        int *status)
{
    call_names names = { 0 };
    int failed = 0;
    seam_error err;
    seam_error_clear(failure);
    *status = SEAM_OK;
    for (;;) {
        const seam_chunk *chunk = NULL;
        seam_error_clear(&err);
        int rc = src->next(src->s, &chunk, &err);
        if (rc < 0) {
            /* An error chunk already seen carries the same failure; keep it. */
            if (!failed)
                *failure = err;
            failed = 1;
            *status = rc;
            break;
        }
        if (rc == 0)
            break;
        if (chunk->type == SEAM_CHUNK_ERROR) {
            if (chunk->error)
                *failure = *chunk->error;
            failed = 1;
            *status = SEAM_ERR_PROVIDER;
        }
        if (chunk->type == SEAM_CHUNK_TOOL_CALL_START)
            call_names_add(&names, chunk->id, chunk->name);
        int client_result = chunk->type == SEAM_CHUNK_TOOL_RESULT && src->is_client_result &&
                            src->is_client_result(src->s, chunk);
        if (o->json) {
            /* The error line is written once, at the end, after the failure is
             * settled (an interrupted call reads "cancelled" whatever the
             * transport saw). */
            if (client_result)
                json_out_client_tool_result(stdout, chunk);
            else if (chunk->type != SEAM_CHUNK_ERROR)
                json_out_chunk(stdout, chunk);
            continue;
        }
        if (chunk->type == SEAM_CHUNK_TEXT_DELTA && chunk->text && *chunk->text) {
            fputs(chunk->text, stdout);
            fflush(stdout);
            text_line_open = chunk->text[strlen(chunk->text) - 1] != '\n';
        } else if (chunk->type == SEAM_CHUNK_TOOL_CALL_END || client_result) {
            end_text_line();
            if (client_result)
                print_tool_result_note(chunk->name, chunk->result_json, chunk->is_error);
            else
                print_tool_call_note(call_names_find(&names, chunk->id), chunk->args_json);
        }
    }
    call_names_free(&names);
    end_text_line();
    return failed;
}

static int chat_streaming(const chat_options *o, seam_client *client, const seam_request *req,
                          const seam_call_options *call, seam_cancel *cancel)
{
    seam_stream *s = NULL;
    seam_error err;
    seam_error_clear(&err);
    int rc = seam_stream_open(client, req, call, &s, &err);
    if (rc != SEAM_OK)
        return report_failure(o, rc, &err, cancel);
    chunk_source src = { next_plain, NULL, s };
    int status;
    int code = EXIT_OK;
    if (print_stream(o, &src, &err, &status)) {
        code = report_failure(o, status, &err, cancel);
    } else {
        const seam_result *res = seam_stream_result(s);
        if (o->json)
            json_out_result_with(stdout, res, o->attempts);
        else
            print_usage_line(res);
    }
    seam_stream_free(s);
    return code;
}

/* ---- chat with tools (--tools) ------------------------------------------------------- */

/* Looks the --tools names up in the conf and builds the toolset. On a name the
 * conf does not define: a usage error naming it (and, with --json, an error
 * line), exit 2. */
static int build_toolset(const chat_options *o, seam_client *client, seam_toolset **out,
                         command_tool **tools_out)
{
    size_t defined = seam_client_tool_count(client);
    command_tool *tools = calloc(defined ? defined : 1, sizeof *tools);
    seam_toolset *ts = seam_toolset_new();
    char *names = strdup(o->tool_names);
    int code = EXIT_OK;
    if (!tools || !ts || !names) {
        say("out of memory");
        code = EXIT_PROVIDER;
        goto out;
    }
    char *save = NULL;
    for (char *name = strtok_r(names, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        while (*name == ' ')
            name++;
        size_t len = strlen(name);
        while (len && name[len - 1] == ' ')
            name[--len] = '\0';
        if (!*name)
            continue;
        size_t i = 0;
        const char *tname = NULL, *description = NULL, *parameters = NULL, *command = NULL;
        int64_t timeout_ms = 0;
        for (; i < defined; i++)
            if (seam_client_tool_at(client, i, &tname, &description, &parameters, &command,
                                    &timeout_ms) == SEAM_OK && strcmp(tname, name) == 0)
                break;
        if (i == defined) {
            /* Say which tools there are: the likely fix is a typo. */
            char known[512] = "";
            size_t used = 0;
            for (size_t k = 0; k < defined && used + 1 < sizeof known; k++) {
                const char *kn = NULL;
                if (seam_client_tool_at(client, k, &kn, NULL, NULL, NULL, NULL) == SEAM_OK)
                    used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                             used ? ", " : "", kn);
            }
            seam_error e;
            seam_error_clear(&e);
            if (defined)
                seam_error_set(&e, SEAM_ERROR_CONF, "chat: unknown tool '%s' (the conf defines: %s)",
                               name, known);
            else
                seam_error_set(&e, SEAM_ERROR_CONF, "chat: unknown tool '%s' (the conf defines no tools)",
                               name);
            if (o->json)
                json_out_error(stdout, &e);
            code = usage_error("%s", e.message);
            goto out;
        }
        if (tools[i].name)
            continue; /* named twice */
        tools[i] = (command_tool){ tname, command, timeout_ms, o->verbose };
        if (seam_toolset_add(ts, tname, description, parameters, run_command_tool, &tools[i]) !=
            SEAM_OK) {
            say("tool %s: cannot add it (is its parameters schema a JSON object?)", tname);
            code = EXIT_USAGE;
            goto out;
        }
    }
    if (seam_toolset_count(ts) == 0)
        code = usage_error("chat: --tools names no tool");
out:
    free(names);
    if (code != EXIT_OK) {
        seam_toolset_free(ts);
        free(tools);
        return code;
    }
    *out = ts;
    *tools_out = tools;
    return EXIT_OK;
}


/* Calls the loop left unexecuted: the rounds ran out (or were 0). */
static void print_unrun_note(const chat_options *o, const seam_generation *g)
{
    size_t n = seam_generation_tool_call_count(g);
    if (n)
        say("%zu tool call%s not run (--max-tool-rounds %d)", n, n == 1 ? "" : "s",
            o->max_tool_rounds >= 0 ? o->max_tool_rounds : SEAM_DEFAULT_TOOL_ROUNDS);
}

/* Blocking run: each turn's text and its tool notes as the turn completes. */
static void on_step_notes(void *ud, const seam_step *st, size_t index)
{
    const chat_options *o = ud;
    (void)index;
    if (o->json)
        return;
    const char *text = seam_result_text(seam_step_result(st));
    if (text && *text) {
        fputs(text, stdout);
        if (text[strlen(text) - 1] != '\n')
            fputc('\n', stdout);
        fflush(stdout);
    }
    for (size_t i = 0; i < seam_step_tool_call_count(st); i++) {
        const seam_part *p = seam_step_tool_call(st, i);
        print_tool_call_note(seam_part_tool_name(p), seam_part_args_json(p));
    }
    for (size_t i = 0; i < seam_step_tool_result_count(st); i++) {
        const seam_part *p = seam_step_tool_result(st, i);
        print_tool_result_note(seam_part_tool_name(p), seam_part_result_json(p),
                               seam_part_is_error(p));
    }
}

/* After a successful run: the result line, or the notes and the usage line
 * (usage summed over the turns; provider and model of the last one). */
static void finish_tools_run(const chat_options *o, const seam_generation *g)
{
    if (o->json) {
        json_out_generation(stdout, g, o->attempts);
        return;
    }
    print_unrun_note(o, g);
    const seam_result *last = seam_generation_response(g);
    print_usage(seam_generation_usage(g), last ? seam_result_provider(last) : NULL,
                last ? seam_result_model(last) : NULL);
}

static void loop_options(const chat_options *o, const seam_call_options *call,
                         const seam_toolset *ts, seam_loop_options *lo)
{
    seam_loop_options_init(lo);
    lo->call = call;
    lo->tools = ts;
    if (o->max_tool_rounds >= 0)
        lo->max_tool_rounds = o->max_tool_rounds;
}

static int chat_tools_blocking(chat_options *o, seam_client *client, const seam_request *req,
                               const seam_call_options *call, const seam_toolset *ts,
                               seam_cancel *cancel)
{
    seam_loop_options lo;
    loop_options(o, call, ts, &lo);
    lo.on_step = on_step_notes;
    lo.ud = o;
    seam_generation *g = NULL;
    seam_error err;
    seam_error_clear(&err);
    int rc = seam_loop_generate(client, req, &lo, &g, &err);
    int code = EXIT_OK;
    if (rc != SEAM_OK || !seam_generation_response(g))
        code = report_failure(o, rc != SEAM_OK ? rc : SEAM_ERR_PROVIDER, &err, cancel);
    else
        finish_tools_run(o, g);
    seam_generation_free(g);
    return code;
}

static int chat_tools_streaming(chat_options *o, seam_client *client, const seam_request *req,
                                const seam_call_options *call, const seam_toolset *ts,
                                seam_cancel *cancel)
{
    seam_loop_options lo;
    loop_options(o, call, ts, &lo);
    seam_loop_stream *s = NULL;
    seam_error err;
    seam_error_clear(&err);
    int rc = seam_loop_stream_open(client, req, &lo, &s, &err);
    if (rc != SEAM_OK)
        return report_failure(o, rc, &err, cancel);
    chunk_source src = { next_loop, loop_client_result, s };
    int status;
    int code = EXIT_OK;
    if (print_stream(o, &src, &err, &status))
        code = report_failure(o, status, &err, cancel);
    else
        finish_tools_run(o, seam_loop_stream_generation(s));
    seam_loop_stream_free(s);
    return code;
}

/* Appends one --tools value to o->tool_names. */
static int add_tool_names(chat_options *o, const char *value)
{
    size_t old = o->tool_names ? strlen(o->tool_names) : 0;
    char *joined = realloc(o->tool_names, old + strlen(value) + 2);
    if (!joined)
        return -1;
    if (old)
        joined[old++] = ',';
    strcpy(joined + old, value);
    o->tool_names = joined;
    return 0;
}

static int parse_chat_args(int argc, char **argv, chat_options *o)
{
    int i = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0')
            break; /* the prompt; "-" alone is a word too */
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (strcmp(a, "--no-stream") == 0) {
            o->no_stream = 1;
            continue;
        }
        if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            o->verbose = 1;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(help_text, stdout);
            return -1;
        }
        const char *value = NULL;
        r = option_value(argc, argv, &i, "--tools", &value);
        if (r < 0)
            return usage_error("chat: --tools needs a value (tool names, comma-separated)");
        if (r > 0) {
            if (add_tool_names(o, value) != 0)
                return usage_error("chat: out of memory");
            continue;
        }
        r = option_value(argc, argv, &i, "--max-tool-rounds", &value);
        if (r < 0)
            return usage_error("chat: --max-tool-rounds needs a value");
        if (r > 0) {
            char *end = NULL;
            errno = 0;
            long n = strtol(value, &end, 10);
            if (errno || end == value || *end || n < 0 || n > INT_MAX)
                return usage_error("chat: --max-tool-rounds must be a whole number >= 0, not '%s'",
                                   value);
            o->max_tool_rounds = (int)n;
            continue;
        }
        const struct {
            const char *name;
            const char **target;
        } valued[] = {
            {"--conf", &o->conf},
            {"--chain", &o->chain},
            {"--provider", &o->provider},
            {"--model", &o->model},
            {"--system", &o->system},
        };
        int matched = 0;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
            r = option_value(argc, argv, &i, valued[k].name, valued[k].target);
            if (r < 0)
                return usage_error("chat: %s needs a value", valued[k].name);
            if (r > 0) {
                matched = 1;
                break;
            }
        }
        if (!matched)
            return usage_error("chat: unknown option '%s'", a);
    }
    o->nwords = argc - i;
    o->words = argv + i;

    if (o->chain && (o->provider || o->model))
        return usage_error("chat: --chain cannot be combined with --provider/--model");
    if (o->provider && !o->model)
        return usage_error("chat: --provider needs --model");
    if (o->model && !o->provider)
        return usage_error("chat: --model needs --provider (a chain names its own models)");
    if (o->max_tool_rounds >= 0 && !o->tool_names)
        return usage_error("chat: --max-tool-rounds needs --tools");
    return 0;
}

static int cmd_chat(const char *global_conf, int argc, char **argv)
{
    chat_options o;
    memset(&o, 0, sizeof o);
    o.conf = global_conf;
    o.max_tool_rounds = -1;
    int rc = parse_chat_args(argc, argv, &o);
    if (rc != 0) {
        free(o.tool_names);
        return rc < 0 ? EXIT_OK : rc; /* < 0: --help */
    }

    char *prompt;
    if (o.nwords > 0) {
        prompt = join_words(o.nwords, o.words);
    } else {
        if (isatty(STDIN_FILENO))
            fputs("seam: reading the prompt from stdin (end with Ctrl-D)\n", stderr);
        prompt = read_stdin();
        /* A trailing newline is how a line ends, not part of the question. */
        size_t n = prompt ? strlen(prompt) : 0;
        if (n && prompt[n - 1] == '\n')
            prompt[--n] = '\0';
    }
    if (!prompt) {
        say("cannot read the prompt: %s", strerror(errno));
        free(o.tool_names);
        return EXIT_USAGE;
    }
    if (is_blank(prompt)) {
        free(prompt);
        free(o.tool_names);
        return usage_error("chat: empty prompt");
    }

    seam_client *client = NULL;
    seam_toolset *toolset = NULL;
    command_tool *tools = NULL;
    seam_error err;
    int code = open_client(o.conf, &client, &err);
    if (code != EXIT_OK) {
        if (o.json)
            json_out_error(stdout, &err);
        free(prompt);
        free(o.tool_names);
        return code;
    }
    /* -v: what `seam config check` would warn about (plain HTTP to a remote
     * host, an inline key in a readable file, ...), once, before the call. */
    if (o.verbose && seam_client_conf_path(client)) {
        seam_error werr;
        seam_error_clear(&werr);
        seam_conf_check(seam_client_conf_path(client), print_warning, NULL, &werr);
    }

    seam_request *req = NULL;
    seam_cancel *cancel = NULL;
    if (o.tool_names && (code = build_toolset(&o, client, &toolset, &tools)) != EXIT_OK)
        goto out;
    req = seam_request_new();
    cancel = seam_cancel_new();
    if (!req || !cancel || seam_request_add_user_text(req, prompt) != SEAM_OK ||
        (o.system && seam_request_set_system(req, o.system) != SEAM_OK)) {
        say("out of memory");
        code = EXIT_PROVIDER;
        goto out;
    }

    seam_call_options call;
    memset(&call, 0, sizeof call);
    call.size = sizeof call;
    call.chain = o.chain;
    call.provider = o.provider;
    call.model = o.model;
    call.cancel = cancel;
    call.on_attempt = on_attempt;
    call.ud = &o;
    if (o.json && !(o.attempts = json_attempts_new())) {
        say("out of memory");
        code = EXIT_PROVIDER;
        goto out;
    }

    running_cancel = cancel;
    install_interrupt_handler();
    if (toolset)
        code = o.no_stream ? chat_tools_blocking(&o, client, req, &call, toolset, cancel)
                           : chat_tools_streaming(&o, client, req, &call, toolset, cancel);
    else
        code = o.no_stream ? chat_blocking(&o, client, req, &call, cancel)
                           : chat_streaming(&o, client, req, &call, cancel);
    signal(SIGINT, SIG_DFL);
    running_cancel = NULL;
    if (o.json && json_out_failed()) {
        fprintf(stderr, "seam: the --json output is incomplete (out of memory or a write error)\n");
        if (code == 0)
            code = 1;
    }

out:
    json_attempts_free(o.attempts);
    seam_cancel_free(cancel);
    seam_request_free(req);
    seam_toolset_free(toolset);
    free(tools);
    seam_client_free(client);
    free(prompt);
    free(o.tool_names);
    return code;
}

/* ---- plugins, providers ------------------------------------------------------ */

/* Subcommands without options of their own still take --conf and --help. */
static int parse_simple_args(const char *cmd, int argc, char **argv, const char **conf)
{
    for (int i = 0; i < argc; i++) {
        const char *value = NULL;
        int r = option_value(argc, argv, &i, "--conf", &value);
        if (r < 0)
            return usage_error("%s: --conf needs a value", cmd);
        if (r > 0) {
            *conf = value;
            continue;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(help_text, stdout);
            return -1;
        }
        return usage_error("%s: unexpected argument '%s'", cmd, argv[i]);
    }
    return 0;
}


static int cmd_plugins(const char *conf, int argc, char **argv)
{
    int rc = parse_simple_args("plugins", argc, argv, &conf);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    seam_client *client = NULL;
    seam_error err;
    int code = open_client(conf, &client, &err);
    if (code != EXIT_OK)
        return code;

    size_t n = seam_client_plugin_count(client);
    if (n == 0)
        say("no plugins found (set SEAM_PLUGIN_PATH or plugin_path in the conf)");
    for (size_t i = 0; i < n; i++) {
        seam_plugin_info info;
        memset(&info, 0, sizeof info);
        if (seam_client_plugin_at(client, i, &info) != SEAM_OK)
            continue;
        printf("%s  abi ", info.file ? info.file : "?");
        /* The ABI version is (major << 16) | minor, as <seam/plugin.h> encodes it. */
        if (info.abi_version)
            printf("%u.%u", (unsigned)(info.abi_version >> 16),
                   (unsigned)(info.abi_version & 0xffffu));
        else
            fputc('?', stdout);
        printf("  providers: %s", info.provider_ids && *info.provider_ids ? info.provider_ids : "-");
        if (info.loaded && info.reason)
            printf("  loaded (%s)\n", info.reason); /* some of its providers were refused */
        else if (info.loaded)
            printf("  loaded\n");
        else
            printf("  refused: %s\n", info.reason && *info.reason ? info.reason : "unknown reason");
    }
    seam_client_free(client);
    return EXIT_OK;
}

static int cmd_providers(const char *conf, int argc, char **argv)
{
    int rc = parse_simple_args("providers", argc, argv, &conf);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    seam_client *client = NULL;
    seam_error err;
    int code = open_client(conf, &client, &err);
    if (code != EXIT_OK)
        return code;

    const char *path = seam_client_conf_path(client);
    printf("conf: %s\n", path ? path : "(none found)");

    size_t np = seam_client_provider_count(client);
    printf("providers:%s\n", np ? "" : " none");
    for (size_t i = 0; i < np; i++) {
        seam_provider_info p;
        memset(&p, 0, sizeof p);
        if (seam_client_provider_at(client, i, &p) != SEAM_OK)
            continue;
        /* Only where the credential comes from is shown, never the credential. */
        const char *source = p.credential_source ? p.credential_source : "none";
        printf("  %s: plugin %s (%s), base_url %s, credential %s (%s)\n", p.name,
               p.plugin ? p.plugin : "?", p.plugin_loaded ? "loaded" : "not loaded",
               p.base_url ? p.base_url : "(plugin default)", source,
               strcmp(source, "none") == 0 ? (p.has_credential ? "not needed" : "not set")
                                           : (p.has_credential ? "set" : "not set"));
    }

    size_t nc = seam_client_chain_count(client);
    printf("chains:%s\n", nc ? "" : " none");
    for (size_t i = 0; i < nc; i++) {
        const char *name = seam_client_chain_name(client, i);
        printf("  %s", name ? name : "?");
        for (size_t r = 0; name && r < seam_client_role_count(client); r++) {
            const char *role = NULL, *chain = NULL;
            if (seam_client_role_at(client, r, &role, &chain) == SEAM_OK && strcmp(chain, name) == 0)
                printf(" (role %s)", role);
        }
        printf(":\n");
        size_t len = seam_client_chain_length(client, i);
        for (size_t j = 0; j < len; j++) {
            const char *prov = NULL, *model = NULL;
            int attempts = 0;
            if (seam_client_chain_entry(client, i, j, &prov, &model, &attempts) != SEAM_OK)
                continue;
            printf("    %zu. %s %s (max_attempts %d)\n", j + 1, prov ? prov : "?",
                   model ? model : "?", attempts);
        }
    }

    size_t nr = seam_client_role_count(client);
    printf("roles:%s\n", nr ? "" : " none (chat uses chain \"default\")");
    for (size_t r = 0; r < nr; r++) {
        const char *role = NULL, *chain = NULL;
        if (seam_client_role_at(client, r, &role, &chain) == SEAM_OK)
            printf("  %s = %s\n", role, chain);
    }
    seam_client_free(client);
    return EXIT_OK;
}

/* ---- config check ------------------------------------------------------------ */

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The conf seam would load, in the library's order: $SEAM_CONF,
 * $XDG_CONFIG_HOME/seam/seam.conf (default ~/.config), the installed one.
 * Writes into buf; returns NULL when none exists. */
static const char *default_conf_path(char *buf, size_t size)
{
    const char *env = getenv("SEAM_CONF");
    if (env && *env) {
        snprintf(buf, size, "%s", env);
        return buf;
    }
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg)
        snprintf(buf, size, "%s/seam/seam.conf", xdg);
    else if (home && *home)
        snprintf(buf, size, "%s/.config/seam/seam.conf", home);
    else
        buf[0] = '\0';
    if (buf[0] && file_exists(buf))
        return buf;
    if (file_exists(SEAM_CONF_INSTALLED)) {
        snprintf(buf, size, "%s", SEAM_CONF_INSTALLED);
        return buf;
    }
    return NULL;
}

static void print_warning(void *ud, const char *text)
{
    (void)ud;
    say("warning: %s", text);
}

static int cmd_config(const char *conf, int argc, char **argv)
{
    if (argc < 1)
        return usage_error("config: expected 'check'");
    if (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0) {
        fputs(help_text, stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[0], "check") != 0)
        return usage_error("config: unknown subcommand '%s' (expected 'check')", argv[0]);

    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        int r = option_value(argc, argv, &i, "--conf", &value);
        if (r < 0)
            return usage_error("config check: --conf needs a value");
        if (r > 0) {
            conf = value;
            continue;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(help_text, stdout);
            return EXIT_OK;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return usage_error("config check: unknown option '%s'", argv[i]);
        if (file)
            return usage_error("config check: one FILE at most");
        file = argv[i];
    }

    char buf[4096];
    const char *path = file ? file : conf ? conf : default_conf_path(buf, sizeof buf);
    if (!path) {
        say("no conf file found ($SEAM_CONF, $XDG_CONFIG_HOME/seam/seam.conf, %s)",
            SEAM_CONF_INSTALLED);
        return EXIT_USAGE;
    }
    seam_error err;
    seam_error_clear(&err);
    if (seam_conf_check(path, print_warning, NULL, &err) != SEAM_OK) {
        say("%s", err.message[0] ? err.message : "invalid conf");
        return EXIT_USAGE;
    }
    printf("%s: ok\n", path);
    return EXIT_OK;
}

/* ---- main --------------------------------------------------------------------- */

static void print_version(void)
{
    printf("seam %s (libseam %s)\n", PACKAGE_VERSION, seam_version());
}

int main(int argc, char **argv)
{
    const char *conf = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(help_text, stdout);
            return EXIT_OK;
        }
        if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
            print_version();
            return EXIT_OK;
        }
        const char *value = NULL;
        int r = option_value(argc, argv, &i, "--conf", &value);
        if (r < 0)
            return usage_error("--conf needs a value");
        if (r > 0) {
            conf = value;
            continue;
        }
        return usage_error("unknown option '%s'", a);
    }
    if (i >= argc)
        return usage_error("missing command");

    const char *cmd = argv[i++];
    int rest = argc - i;
    char **args = argv + i;
    if (strcmp(cmd, "chat") == 0)
        return cmd_chat(conf, rest, args);
    if (strcmp(cmd, "plugins") == 0)
        return cmd_plugins(conf, rest, args);
    if (strcmp(cmd, "providers") == 0)
        return cmd_providers(conf, rest, args);
    if (strcmp(cmd, "config") == 0)
        return cmd_config(conf, rest, args);
#ifdef HAVE_SERVE
    if (strcmp(cmd, "serve") == 0)
        return serve_main(conf, rest, args);
#endif
    if (strcmp(cmd, "help") == 0) {
        fputs(help_text, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "version") == 0) {
        print_version();
        return EXIT_OK;
    }
    return usage_error("unknown command '%s'", cmd);
}
