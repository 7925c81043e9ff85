/* seam.c — the `seam` command: argument parsing, the subcommands (chat, plugins,
 * providers, config check, help) and the exit codes (0 ok, 1 provider error,
 * 2 usage or conf error, 130 interrupted). It uses only the public API of
 * libseam (<seam/seam.h>); the --json shapes live in json_out.c. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <seam/seam.h>

#include "json_out.h"

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
    "      -v, --verbose       print every attempt of the chain on stderr (provider,\n"
    "                          model, outcome, error, wait, usage and cost); with\n"
    "                          --json the result line lists them under \"attempts\"\n"
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
static void print_usage_line(const seam_result *res)
{
    const seam_usage *u = seam_result_usage(res);
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
    if (seam_result_provider(res))
        fprintf(stderr, "  provider: %s", seam_result_provider(res));
    if (seam_result_model(res))
        fprintf(stderr, "  model: %s", seam_result_model(res));
    fputc('\n', stderr);
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
    json_attempts *attempts; /* --json: the result line's "attempts" */
    int nwords;
    char **words;
} chat_options;

/* -v: one line per attempt of the chain, as it happens. */
static void print_attempt(const seam_attempt *a)
{
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

static int chat_streaming(const chat_options *o, seam_client *client, const seam_request *req,
                          const seam_call_options *call, seam_cancel *cancel)
{
    seam_stream *s = NULL;
    seam_error err;
    seam_error_clear(&err);
    int rc = seam_stream_open(client, req, call, &s, &err);
    if (rc != SEAM_OK)
        return report_failure(o, rc, &err, cancel);

    int failed = 0, status = SEAM_OK;
    int wrote_text = 0, ends_in_newline = 1;
    seam_error failure;
    seam_error_clear(&failure);
    for (;;) {
        const seam_chunk *chunk = NULL;
        seam_error_clear(&err);
        rc = seam_stream_next(s, &chunk, &err);
        if (rc < 0) {
            /* An error chunk already seen carries the same failure; keep it. */
            if (!failed)
                failure = err;
            failed = 1;
            status = rc;
            break;
        }
        if (rc == 0)
            break;
        if (chunk->type == SEAM_CHUNK_ERROR) {
            if (chunk->error)
                failure = *chunk->error;
            failed = 1;
            status = SEAM_ERR_PROVIDER;
        }
        if (o->json) {
            /* The error line is written once, at the end, after the failure is
             * settled (an interrupted call reads "cancelled" whatever the
             * transport saw). */
            if (chunk->type != SEAM_CHUNK_ERROR)
                json_out_chunk(stdout, chunk);
            continue;
        }
        if (chunk->type == SEAM_CHUNK_TEXT_DELTA && chunk->text && *chunk->text) {
            fputs(chunk->text, stdout);
            fflush(stdout);
            wrote_text = 1;
            ends_in_newline = chunk->text[strlen(chunk->text) - 1] == '\n';
        } else if (chunk->type == SEAM_CHUNK_TOOL_CALL_END) {
            if (wrote_text && !ends_in_newline) {
                fputc('\n', stdout);
                fflush(stdout);
                ends_in_newline = 1;
            }
            /* The name arrives on tool_call_start; the result has it by now. */
            const char *name = NULL;
            const seam_result *sofar = seam_stream_result(s);
            const seam_message *msg = sofar ? seam_result_message(sofar) : NULL;
            for (size_t i = 0; msg && i < seam_message_part_count(msg); i++) {
                const seam_part *p = seam_message_part(msg, i);
                if (seam_part_get_type(p) == SEAM_PART_TOOL_CALL && chunk->id &&
                    seam_part_tool_call_id(p) && strcmp(seam_part_tool_call_id(p), chunk->id) == 0)
                    name = seam_part_tool_name(p);
            }
            print_tool_call_note(name, chunk->args_json);
        }
    }

    /* What arrived stays printed, even when the call failed or was interrupted. */
    if (!o->json && wrote_text && !ends_in_newline) {
        fputc('\n', stdout);
        fflush(stdout);
    }

    int code;
    if (failed) {
        code = report_failure(o, status, &failure, cancel);
    } else {
        const seam_result *res = seam_stream_result(s);
        if (o->json)
            json_out_result_with(stdout, res, o->attempts);
        else
            print_usage_line(res);
        code = EXIT_OK;
    }
    seam_stream_free(s);
    return code;
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
    return 0;
}

static int cmd_chat(const char *global_conf, int argc, char **argv)
{
    chat_options o;
    memset(&o, 0, sizeof o);
    o.conf = global_conf;
    int rc = parse_chat_args(argc, argv, &o);
    if (rc < 0)
        return EXIT_OK; /* --help */
    if (rc > 0)
        return rc;

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
        return EXIT_USAGE;
    }
    if (is_blank(prompt)) {
        free(prompt);
        return usage_error("chat: empty prompt");
    }

    seam_client *client = NULL;
    seam_error err;
    int code = open_client(o.conf, &client, &err);
    if (code != EXIT_OK) {
        if (o.json)
            json_out_error(stdout, &err);
        free(prompt);
        return code;
    }

    seam_request *req = seam_request_new();
    seam_cancel *cancel = seam_cancel_new();
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
    code = o.no_stream ? chat_blocking(&o, client, req, &call, cancel)
                       : chat_streaming(&o, client, req, &call, cancel);
    signal(SIGINT, SIG_DFL);
    running_cancel = NULL;

out:
    json_attempts_free(o.attempts);
    seam_cancel_free(cancel);
    seam_request_free(req);
    seam_client_free(client);
    free(prompt);
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

/* The loader's reason, without a leading "refused: " that would repeat ours. */
static const char *refusal_reason(const char *reason)
{
    static const char prefix[] = "refused: ";
    if (!reason || !*reason)
        return "unknown reason";
    if (strncmp(reason, prefix, sizeof prefix - 1) == 0)
        return reason + sizeof prefix - 1;
    return reason;
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
            printf("  refused: %s\n", refusal_reason(info.reason));
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
