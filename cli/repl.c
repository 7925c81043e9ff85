/* repl.c — interactive `seam chat`: on a terminal with no prompt given, a
 * conversation, one line a turn, the whole history sent each turn. Lines are
 * edited with libedit (history in $XDG_STATE_HOME/seam/history, mode 0600);
 * a build without libedit reads plain lines. Commands: /exit, /clear (a new
 * conversation), /model M, /system S, /save FILE, /help. Ctrl-C stops the
 * answer being written and the conversation goes on; Ctrl-D (or /exit)
 * leaves. Each exchange goes to the conversation log as in one-shot chat. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBEDIT
#include <editline/readline.h>
#endif

#include <seam/seam.h>

#include "chat.h"
#include "cli.h"
#include "logs.h"

/* ---- reading a line ------------------------------------------------------------- */

#ifdef HAVE_LIBEDIT
/* $XDG_STATE_HOME/seam/history (default ~/.local/state/seam/history). */
static int history_path(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    char dir[4096];
    if (xdg && xdg[0] == '/')
        snprintf(dir, sizeof dir, "%s/seam", xdg);
    else if (home && *home)
        snprintf(dir, sizeof dir, "%s/.local/state/seam", home);
    else
        return -1;
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(dir, 0755);
        *p = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -1;
    snprintf(buf, size, "%s/history", dir);
    return 0;
}

static char history_file[4200];

static void editing_start(void)
{
#ifdef HAVE_LIBEDIT
    /* libedit's own SIGINT handling would end readline() as if at the end
     * of input; a Ctrl-C at the prompt is ignored instead (prompt_interrupt_ignore). */
    rl_catch_signals = 0;
#endif
}
#endif

static void history_start(void)
{
#ifdef HAVE_LIBEDIT
    editing_start();
    if (history_path(history_file, sizeof history_file) != 0) {
        history_file[0] = '\0';
        return;
    }
    /* Private before anything is written to it. */
    int fd = open(history_file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
    stifle_history(1000);
    read_history(history_file);
#endif
}


static void history_add(const char *line)
{
#ifdef HAVE_LIBEDIT
    add_history(line);
    if (history_file[0])
        write_history(history_file);
#else
    (void)line;
#endif
}

/* Ctrl-C between turns does not end the conversation: SIGINT is ignored for
 * the whole conversation (a call installs its own handler and puts this back
 * when it ends). Ignored rather than caught: a caught signal could arrive
 * while libedit is not in read(), or be retried by it, and leave an
 * "interrupted" mark that a later Ctrl-D was taken for (the REPL re-asked
 * instead of leaving). An ignored one interrupts no read. */
static void prompt_interrupt_ignore(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

/* One line from the user, without its newline; NULL at the end of input. */
static char *read_line(const char *prompt)
{
#ifdef HAVE_LIBEDIT
    char *line = readline(prompt);
#else
    fputs(prompt, stdout);
    fflush(stdout);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    if (n < 0) {
        free(line);
        line = NULL;
    } else if (n && line[n - 1] == '\n') {
        line[n - 1] = '\0';
    }
#endif
    return line;
}

/* ---- the conversation ------------------------------------------------------------- */

typedef struct repl {
    chat_options *o;
    const seam_toolset *ts;
    seam_request *req;      /* the conversation so far (answered turns only) */
    chat_log *log;
    char cid[48];
    int first_turn;         /* attachments go with the first line only */
} repl;

static int64_t now_ms(int clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* /save FILE: the conversation as text, each turn under its role. */
static void save_conversation(const repl *r, const char *file)
{
    FILE *f = fopen(file, "w");
    if (!f) {
        say("/save: %s: %s", file, strerror(errno));
        return;
    }
    if (seam_request_system(r->req))
        fprintf(f, "## system\n\n%s\n\n", seam_request_system(r->req));
    for (size_t i = 0; i < seam_request_message_count(r->req); i++) {
        const seam_message *m = seam_request_message(r->req, i);
        fprintf(f, "## %s\n\n%s\n\n", seam_message_role(m) == SEAM_ROLE_USER ? "user" : "assistant",
                seam_message_text(m));
    }
    if (fclose(f) != 0)
        say("/save: %s: %s", file, strerror(errno));
    else
        fprintf(stderr, "seam: saved the conversation to %s\n", file);
}

static const char repl_help[] =
    "Type a message and Enter to send it. Ctrl-C stops an answer; Ctrl-D leaves.\n"
    "  /exit         leave\n"
    "  /clear        forget the conversation and start a new one\n"
    "  /model M      use model M from now on (its provider from the catalog)\n"
    "  /system S     set the system prompt (empty: none)\n"
    "  /save FILE    write the conversation to FILE\n";

/* A command line (starting with '/'). Returns 1 to leave. */
static int run_command(repl *r, char *line)
{
    char *arg = strchr(line, ' ');
    if (arg) {
        *arg++ = '\0';
        while (*arg == ' ')
            arg++;
    }
    chat_options *o = r->o;
    if (strcmp(line, "/exit") == 0 || strcmp(line, "/quit") == 0)
        return 1;
    if (strcmp(line, "/help") == 0) {
        fputs(repl_help, stderr);
    } else if (strcmp(line, "/clear") == 0) {
        seam_request *fresh = seam_request_new();
        if (fresh && seam_request_system(r->req))
            seam_request_set_system(fresh, seam_request_system(r->req));
        if (fresh) {
            seam_request_free(r->req);
            r->req = fresh;
        }
        chat_log_new_cid(r->cid);
        fputs("seam: a new conversation\n", stderr);
    } else if (strcmp(line, "/model") == 0 && arg && *arg) {
        const char *old_model = o->model, *old_provider = o->provider, *old_chain = o->chain;
        free(o->repl_model);
        o->repl_model = strdup(arg);
        o->model = o->repl_model;
        o->provider = NULL;
        o->chain = NULL;
        if (!o->model || chat_resolve_model(o) != EXIT_OK) {
            o->model = old_model;
            o->provider = old_provider;
            o->chain = old_chain;
        } else {
            fprintf(stderr, "seam: model %s (provider %s)\n", o->model, o->provider);
        }
    } else if (strcmp(line, "/system") == 0) {
        seam_request_set_system(r->req, arg && *arg ? arg : NULL);
        free(o->repl_system);
        o->repl_system = arg && *arg ? strdup(arg) : NULL;
        o->system = o->repl_system;
        fprintf(stderr, "seam: system prompt %s\n", arg && *arg ? "set" : "cleared");
    } else if (strcmp(line, "/save") == 0 && arg && *arg) {
        save_conversation(r, arg);
    } else {
        fprintf(stderr, "seam: unknown command %s%s%s (/help lists them)\n", line, arg ? " " : "",
                arg ? arg : "");
    }
    return 0;
}

/* One turn: the line added to a copy of the conversation, which replaces it
 * once answered; a failed or stopped turn leaves the conversation as it was. */
static void run_turn(repl *r, const char *line)
{
    chat_options *o = r->o;
    seam_request *next = seam_request_dup(r->req);
    seam_cancel *cancel = seam_cancel_new();
    if (!next || !cancel || seam_request_add_user_text(next, line) != SEAM_OK) {
        say("out of memory");
        seam_request_free(next);
        seam_cancel_free(cancel);
        return;
    }
    size_t saved_attachments = o->n_attachments;
    if (!r->first_turn)
        o->n_attachments = 0;
    int code = apply_request_options(o, next);
    if (!r->first_turn)
        o->n_attachments = saved_attachments;
    if (code == EXIT_OK) {
        int64_t started = now_ms(CLOCK_REALTIME), t0 = now_ms(CLOCK_MONOTONIC);
        code = chat_turn(o, next, r->ts, cancel);
        if (code == EXIT_OK && o->answer) {
            seam_message *answer = seam_message_dup(o->answer);
            if (answer && seam_request_add_message(next, answer) == SEAM_OK) {
                seam_request_free(r->req);
                r->req = next;
                next = NULL;
                r->first_turn = 0;
                if (r->log && chat_log_wanted(o, o->client))
                    chat_log_add(r->log, r->cid, o, line, started, now_ms(CLOCK_MONOTONIC) - t0);
            } else {
                seam_message_free(answer);
            }
        }
    }
    seam_request_free(next);
    seam_cancel_free(cancel);
}

int chat_repl(chat_options *o, const seam_toolset *ts)
{
    repl r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.ts = ts;
    r.first_turn = 1;
    r.req = seam_request_new();
    if (!r.req)
        return say("out of memory"), EXIT_PROVIDER;
    int logging = chat_log_wanted(o, o->client);
    char *logged_system = NULL;
    int code = EXIT_OK;
    if ((logging || o->continue_last || o->cid) && !(r.log = chat_log_open()) && logging)
        code = EXIT_PROVIDER;
    if (code == EXIT_OK)
        code = chat_open_conversation(o, r.log, r.req, r.cid, &logged_system);
    if (code == EXIT_OK) {
        history_start();
        prompt_interrupt_ignore();
        size_t turns = seam_request_message_count(r.req) / 2;
        fprintf(stderr, "seam: chatting%s%s (Ctrl-D or /exit to leave, /help for more)%s\n",
                o->model ? " with " : "", o->model ? o->model : "",
                turns ? " — continuing the logged conversation" : "");
        for (;;) {
            char *line = read_line("> ");
            if (!line) {
                fputc('\n', stderr);
                break;
            }
            char *text = line;
            while (*text == ' ' || *text == '\t')
                text++;
            if (*text)
                history_add(text);
            int leave = 0;
            if (*text == '/')
                leave = run_command(&r, text);
            else if (*text)
                run_turn(&r, text);
            free(line);
            if (leave)
                break;
        }
    }
    signal(SIGINT, SIG_DFL);
    chat_log_close(r.log);
    free(logged_system);
    seam_request_free(r.req);
    return code;
}
