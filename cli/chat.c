/* chat.c — `seam chat`: its options, the prompt (words or stdin), the
 * request and the toolset of --tools; chat_run.c makes the call and prints
 * the answer. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <seam/seam.h>

#include "chat.h"
#include "cli.h"
#include "json_out.h"
#include "logs.h"

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return 0;
    return 1;
}

/* Reads all of stdin (the prompt); NULL on a read error. read(2), not stdio:
 * on a terminal, Ctrl-D after some text of a line hands that text over
 * without a newline, and that is the end of the input (stdio would wait for
 * a second Ctrl-D). */
static char *read_stdin(void)
{
    int tty = isatty(STDIN_FILENO);
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
        size_t want = cap - len - 1;
        ssize_t got = read(STDIN_FILENO, buf + len, want);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            free(buf);
            return NULL;
        }
        if (got == 0)
            break;
        len += (size_t)got;
        if (tty && (size_t)got < want && buf[len - 1] != '\n')
            break; /* Ctrl-D ended a line that had text */
    }
    buf[len] = '\0';
    return buf;
}

/* stdin as the context of the prompt in words: "STDIN\n\nWORDS"; words alone
 * when stdin is a terminal or holds nothing. NULL when out of memory or
 * stdin cannot be read. */
static char *context_and_words(char *words)
{
    if (!words || isatty(STDIN_FILENO))
        return words;
    char *context = read_stdin();
    if (!context) {
        free(words);
        return NULL;
    }
    size_t n = strlen(context);
    while (n && (context[n - 1] == '\n' || context[n - 1] == '\r'))
        context[--n] = '\0';
    char *joined = NULL;
    if (n == 0 || is_blank(context)) {
        joined = words;
        words = NULL;
    } else if ((joined = malloc(n + strlen(words) + 3)) != NULL) {
        sprintf(joined, "%s\n\n%s", context, words);
    }
    free(context);
    free(words);
    return joined;
}

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

/* Fills the call options of one turn of o. */
static void call_options(chat_options *o, seam_call_options *call, seam_cancel *cancel)
{
    memset(call, 0, sizeof *call);
    call->size = sizeof *call;
    call->chain = o->chain;
    call->provider = o->provider;
    call->model = o->model;
    call->cancel = cancel;
    call->on_attempt = on_attempt;
    call->skip_plugins = o->no_mock ? "mock" : NULL;
    call->stream_start = o->json; /* the --json contract opens with it */
    call->ud = o;
}

int chat_turn(chat_options *o, seam_request *req, const seam_toolset *ts, seam_cancel *cancel)
{
    seam_call_options call;
    call_options(o, &call, cancel);
    chat_forget_answer(o);
    free(o->skipped);
    o->skipped = NULL;
    o->tried = o->skipped_runtime = 0;
    json_attempts_free(o->attempts);
    o->attempts = NULL;
    if (o->json && !(o->attempts = json_attempts_new())) {
        say("out of memory");
        return EXIT_PROVIDER;
    }
    int code;
    chat_interrupt_on(cancel);
    if (ts)
        code = o->no_stream ? chat_tools_blocking(o, o->client, req, &call, ts, cancel)
                            : chat_tools_streaming(o, o->client, req, &call, ts, cancel);
    else
        code = o->no_stream ? chat_blocking(o, o->client, req, &call, cancel)
                            : chat_streaming(o, o->client, req, &call, cancel);
    chat_interrupt_off();
    if (o->json && json_out_failed()) {
        fprintf(stderr, "seam: the --json output is incomplete (out of memory or a write error)\n");
        if (code == 0)
            code = 1;
    }
    if (code == EXIT_OK && o->answer)
        code = check_schema_answer(o, seam_message_text(o->answer));
    return code;
}

int chat_resolve_model(chat_options *o)
{
    o->model = chat_alias(o, o->model);
    if (!o->model || o->provider || o->chain)
        return EXIT_OK;
    const char *p = pick_provider(o->client, o->model);
    if (!p)
        return usage_error("chat: no configured provider serves model '%s' (see `seam models`), "
                           "give --provider", o->model);
    o->provider = p;
    return EXIT_OK;
}

static int64_t now_ms(int clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* -c / --cid: the conversation to continue, its turns put into req (and its
 * system prompt kept unless -s gives one); otherwise a new conversation id.
 * Returns EXIT_OK or an exit code after saying why. */
int chat_open_conversation(chat_options *o, chat_log *log, seam_request *req, char cid[48],
                           char **system)
{
    *system = NULL;
    if (!o->continue_last && !o->cid) {
        chat_log_new_cid(cid);
        return EXIT_OK;
    }
    if (!log)
        return usage_error("chat: %s needs the conversation log%s", o->cid ? "--cid" : "-c",
                           chat_log_available() ? "" : " (this seam was built without SQLite)");
    if (o->cid)
        snprintf(cid, 48, "%s", o->cid);
    else if (!chat_log_last_cid(log, cid))
        return usage_error("chat: -c: no logged conversation to continue");
    int n = chat_log_load(log, cid, req, system);
    if (n < 0)
        return EXIT_PROVIDER;
    if (n == 0)
        return usage_error("chat: --cid %s: no such conversation in the log", cid);
    if (!o->system)
        o->system = *system;
    return EXIT_OK;
}

int cmd_chat(const char *global_conf, int argc, char **argv)
{
    chat_options o;
    memset(&o, 0, sizeof o);
    o.conf = global_conf;
    o.max_tool_rounds = -1;
    int rc = parse_chat_args(argc, argv, &o);
    if (rc != 0) {
        chat_options_free(&o);
        return rc < 0 ? EXIT_OK : rc; /* < 0: --help */
    }

    /* On a terminal with no prompt: a conversation. */
    int interactive = o.nwords == 0 && !o.json && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    char *prompt = NULL;
    if (interactive) {
        prompt = strdup("");
    } else if (o.nwords > 0) {
        prompt = context_and_words(join_words(o.nwords, o.words));
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
        chat_options_free(&o);
        return EXIT_USAGE;
    }
    if (!interactive && is_blank(prompt)) {
        free(prompt);
        chat_options_free(&o);
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
        chat_options_free(&o);
        return code;
    }
    o.client = client;
    /* -v: what `seam config check` would warn about (plain HTTP to a remote
     * host, an inline key in a readable file, ...), once, before the call. */
    if (o.verbose && seam_client_conf_path(client)) {
        seam_error werr;
        seam_error_clear(&werr);
        seam_conf_check(seam_client_conf_path(client), print_warning, NULL, &werr);
    }

    seam_request *req = NULL;
    seam_cancel *cancel = NULL;
    chat_log *log = NULL;
    char cid[48] = "", *logged_system = NULL;
    if ((code = chat_apply_template(&o)) != EXIT_OK || (code = chat_resolve_model(&o)) != EXIT_OK)
        goto out;
    if (o.tool_names && (code = build_toolset(&o, client, &toolset, &tools)) != EXIT_OK)
        goto out;
    if (interactive) {
        code = chat_repl(&o, toolset);
        goto out;
    }
    req = seam_request_new();
    cancel = seam_cancel_new();
    if (!req || !cancel) {
        say("out of memory");
        code = EXIT_PROVIDER;
        goto out;
    }
    int logging = chat_log_wanted(&o, client);
    if ((logging || o.continue_last || o.cid) && !(log = chat_log_open()) && logging) {
        code = EXIT_PROVIDER;
        goto out;
    }
    if ((code = chat_open_conversation(&o, log, req, cid, &logged_system)) != EXIT_OK)
        goto out;
    if (seam_request_add_user_text(req, prompt) != SEAM_OK) {
        say("out of memory");
        code = EXIT_PROVIDER;
        goto out;
    }
    if ((code = apply_request_options(&o, req)) != EXIT_OK)
        goto out;
    int64_t started = now_ms(CLOCK_REALTIME), t0 = now_ms(CLOCK_MONOTONIC);
    code = chat_turn(&o, req, toolset, cancel);
    /* An exchange that should be logged and was not fails the command: it
     * would be missing from `seam logs` and `-c` without a word. */
    if (code == EXIT_OK && o.answer && logging &&
        chat_log_add(log, cid, &o, prompt, started, now_ms(CLOCK_MONOTONIC) - t0) != 0)
        code = EXIT_PROVIDER;

out:
    chat_log_close(log);
    free(logged_system);
    json_attempts_free(o.attempts);
    chat_forget_answer(&o);
    seam_cancel_free(cancel);
    seam_request_free(req);
    seam_toolset_free(toolset);
    free(tools);
    seam_client_free(client);
    free(prompt);
    chat_options_free(&o);
    return code;
}
