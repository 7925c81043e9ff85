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
#include <unistd.h>

#include <seam/seam.h>

#include "chat.h"
#include "media_cmd.h"
#include "cli.h"
#include "json_out.h"

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
        if (strcmp(a, "--no-mock") == 0) {
            o->no_mock = 1;
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
        if ((r = strcmp(a, "-a") == 0 ? (i + 1 < argc ? (value = argv[++i], 1) : -1)
                                       : option_value(argc, argv, &i, "--attach", &value)) != 0) {
            if (r < 0 || o->n_attach == 32)
                return usage_error("chat: -a needs a FILE or an https URL (at most 32)");
            o->attach[o->n_attach++] = value;
            continue;
        }
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

int cmd_chat(const char *global_conf, int argc, char **argv)
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
    for (int k = 0; k < o.n_attach; k++) {
        /* The user message just added: its text, then the attachments. */
        seam_message *um = (seam_message *)seam_request_message(req, 0);
        if ((code = media_attach(client, um, o.attach[k], &err)) != EXIT_OK)
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
    call.skip_plugins = o.no_mock ? "mock" : NULL;
    call.ud = &o;
    if (o.json && !(o.attempts = json_attempts_new())) {
        say("out of memory");
        code = EXIT_PROVIDER;
        goto out;
    }

    chat_interrupt_on(cancel);
    if (toolset)
        code = o.no_stream ? chat_tools_blocking(&o, client, req, &call, toolset, cancel)
                           : chat_tools_streaming(&o, client, req, &call, toolset, cancel);
    else
        code = o.no_stream ? chat_blocking(&o, client, req, &call, cancel)
                           : chat_streaming(&o, client, req, &call, cancel);
    chat_interrupt_off();
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
    free(o.skipped);
    return code;
}
