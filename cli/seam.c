/* seam.c — the `seam` command's entry: the global options (--conf, --help,
 * --version), the dispatch to each subcommand (one file each: chat.c,
 * plugins_cmd.c, providers.c, config_cmd.c, ...), the help text, and what the
 * subcommands share: messages, option parsing, opening the client. The exit
 * codes are 0 ok, 1 provider error, 2 usage or conf error, 130 interrupted. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <seam/seam.h>

#include "cli.h"
#ifdef HAVE_SERVE
#include "serve/serve.h"
#endif

const char *const help_text =
    "Usage:\n"
    "  seam [--conf FILE] chat [--chain C | --provider P --model M] [-m M] [-s S]\n"
    "                          [-t NAME] [--temperature T] [--max-tokens N] [--stop S]...\n"
    "                          [--schema FILE|JSON] [--reasoning LEVEL|N] [-a FILE]...\n"
    "                          [-c | --cid ID] [--no-log] [--no-mock]\n"
    "                          [--tools T,...] [--max-tool-rounds N]\n"
    "                          [--json] [--no-stream] [--record DIR] [-v] [PROMPT]\n"
    "  seam [--conf FILE] plugins\n"
    "  seam [--conf FILE] providers [-v]   (-v: the shared cooldowns and leases)\n"
    "  seam [--conf FILE] config check|show [FILE]\n"
    "  seam [--conf FILE] models [--json]\n"
    "  seam logs [-n N] [--json] [--cid ID] [-q TEXT]\n"
    "  seam [--conf FILE] tokens [--chain C | --provider P --model M | -m M] [--json] [PROMPT]\n"
    "  seam [--conf FILE] embed [--chain C | --provider P --model M | -m M]\n"
    "                           [--dimensions N] [--json] [TEXT...]\n"
    "  seam [--conf FILE] transcribe [--chain C | --provider P --model M] [--json] FILE\n"
    "  seam keys set NAME | keys list\n"
    "  seam [--conf FILE] serve [--listen HOST:PORT] [--threads N] [--access-log FILE]\n"
    "  seam [--conf FILE] media path HANDLE\n"
    "  seam [--conf FILE] media image|speech|video [--provider P --model M | --chain C]\n"
    "                           [--json] [-o FILE] PROMPT\n"
    "  seam [--conf FILE] media resume|cancel JOB\n"
    "  seam help | --help | --version\n"
    "\n"
    "Every LLM provider behind one seam.\n"
    "\n"
    "Commands:\n"
    "  chat        ask a model and stream the answer to stdout; a usage line\n"
    "              (tokens, cost when known, provider and model) goes to stderr.\n"
    "              The prompt is read from stdin when PROMPT is absent; with\n"
    "              PROMPT, piped stdin is sent first, as its context. On a\n"
    "              terminal with no PROMPT: a conversation (/help lists its\n"
    "              commands; Ctrl-C stops an answer, Ctrl-D leaves).\n"
    "      --chain C           use the fallback chain C (default: the chain of role\n"
    "                          \"assistant\", else \"default\")\n"
    "      --provider P --model M\n"
    "                          call the configured provider P with model M only\n"
    "      -m, --model M       alone: the provider from the model catalog (an\n"
    "                          alias of the conf's cli.aliases is resolved first)\n"
    "      -s, --system S      system prompt\n"
    "      -t, --template NAME the conf's template NAME (cli.templates): system,\n"
    "                          model and options the command line does not give\n"
    "      --temperature T, --max-tokens N, --stop S (repeatable)\n"
    "      --schema FILE|JSON  structured output; the answer is checked against it\n"
    "      --reasoning LEVEL|N low, medium, high, or a budget in tokens\n"
    "      --output MODALITIES what the answer may hold: text+audio, text+image, image\n"
    "      -a, --attach FILE   attach an image (PNG, JPEG, GIF, WebP); repeatable\n"
    "      -c, --continue      continue the last logged conversation\n"
    "      --cid ID            continue conversation ID (see seam logs)\n"
    "      --no-log            keep this exchange out of the conversation log\n"
    "      --json              one JSON object per line for each chunk, then a\n"
    "                          \"result\" line, or an \"error\" line on failure\n"
    "      --no-stream         wait for the whole answer, then print it\n"
    "      --record DIR        write each exchange with the provider to DIR as a\n"
    "                          cassette, secrets removed (SEAM_RECORD=DIR; replay\n"
    "                          with SEAM_REPLAY=DIR, see doc/cassettes.md)\n"
    "      --no-mock           never answer from the offline mock: fail instead\n"
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
    "  config show [FILE]\n"
    "              the merged conf (a personal conf overlays the system conf and\n"
    "              its conf.d/), each definition with the FILE:LINE it came from\n"
    "  models      the model catalog: provider, context window, prices per million\n"
    "              tokens (in/out), capabilities, and the configured provider\n"
    "              that serves each model and whether its credential is set\n"
    "  logs        the conversation log (newest N exchanges, default 3; 0: all),\n"
    "              of one conversation (--cid), or matching TEXT (-q)\n"
    "  tokens      count a prompt's input tokens for a model: the provider's own\n"
    "              count where it has one, else an estimate (seam tokens --help)\n"
    "  embed       one embedding vector per TEXT, as JSON arrays, through the\n"
    "              embedding chain (seam embed --help)\n"
    "  transcribe  the speech in an audio FILE as text, through the transcription\n"
    "              chain (seam transcribe --help)\n"
    "  keys set NAME\n"
    "              store an API key for provider NAME (read without echo; mode\n"
    "              0600 in $XDG_CONFIG_HOME/seam/keys/): used when the provider's\n"
    "              environment variable is not set\n"
    "  keys list   the names of the stored keys (never the keys)\n"
    "  serve       an OpenAI- and Anthropic-compatible HTTP gateway over the conf's\n"
    "              chains (seam serve --help; absent when built without libmicrohttpd)\n"
    "  help        this text\n"
    "\n"
    "Options:\n"
    "  --conf FILE     conf file (default: $SEAM_CONF, $XDG_CONFIG_HOME/seam/seam.conf\n"
    "                  or ~/.config/seam/seam.conf, then " SEAM_CONF_INSTALLED ")\n"
    "  -h, --help      this text\n"
    "  -V, --version   versions of seam and libseam\n"
    "\n"
    "Environment: SEAM_CONF, SEAM_SYSTEM_CONF, SEAM_PLUGIN_PATH (colon-separated\n"
    "plugin directories), NO_COLOR, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME.\n"
    "Exit status: 0 ok, 1 provider error or output not written, 2 usage or conf\n"
    "error (also a chain whose every entry lacked a key, plugin or provider),\n"
    "130 interrupted.\n";

/* ---- messages ------------------------------------------------------------- */

int cli_color(void)
{
    static int color = -1;
    if (color < 0) {
        const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
        color = isatty(STDERR_FILENO) && !(no && *no) && !(term && strcmp(term, "dumb") == 0);
    }
    return color;
}

void say(const char *fmt, ...)
{
    va_list ap;
    fputs("seam: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int usage_error(const char *fmt, ...)
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
void print_error(const seam_error *err)
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

int option_value(int argc, char **argv, int *i, const char *name, const char **value)
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

char *join_words(int n, char **words)
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

int parse_target_opts(const char *cmd, const char *help, const char *extra_name, int argc,
                      char **argv, target_opts *o)
{
    memset(o, 0, sizeof *o);
    o->first = argc;
    const char *names[] = { "--chain", "--provider", "--model", "-m", extra_name };
    const char **fields[] = { &o->chain, &o->provider, &o->model, &o->model, &o->extra };
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "--") == 0) {
            o->first = i + 1;
            break;
        }
        if (a[0] != '-' || a[1] == '\0') {
            o->first = i;
            break;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(help, stdout);
            return EXIT_OK;
        }
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            o->verbose = 1;
            continue;
        }
        int r = 0;
        size_t k = 0;
        for (; k < sizeof names / sizeof names[0] && !r; k++)
            r = option_value(argc, argv, &i, names[k], &v);
        if (r < 0) {
            fprintf(stderr, "seam: %s needs a value\nTry 'seam %s --help'.\n", a, cmd);
            return EXIT_USAGE;
        }
        if (r > 0) {
            *fields[k - 1] = v;
            continue;
        }
        fprintf(stderr, "seam: unknown option '%s'\nTry 'seam %s --help'.\n", a, cmd);
        return EXIT_USAGE;
    }
    if (o->chain && o->provider) {
        fputs("seam: --chain and --provider exclude each other\n", stderr);
        return EXIT_USAGE;
    }
    if (o->provider && !o->model) {
        fputs("seam: --provider needs --model\n", stderr);
        return EXIT_USAGE;
    }
    return -1;
}

seam_call_options target_call_options(const target_opts *o,
                                      void (*on_attempt)(void *ud, const seam_attempt *a))
{
    seam_call_options opts;
    memset(&opts, 0, sizeof opts);
    opts.size = sizeof opts;
    opts.chain = o->chain;
    opts.provider = o->provider;
    opts.model = o->model;
    if (o->verbose)
        opts.on_attempt = on_attempt;
    return opts;
}

void print_attempt_head(const seam_attempt *a, int with_chain)
{
    const char *outcome = a->outcome == SEAM_ATTEMPT_SUCCEEDED ? "succeeded"
                          : a->outcome == SEAM_ATTEMPT_FAILED  ? "failed"
                                                               : "skipped";
    const char *chain = with_chain ? a->chain : NULL;
    fprintf(stderr, "seam: %s%s%sattempt %d %s %s: %s", chain ? "chain " : "", chain ? chain : "",
            chain ? ": " : "", a->attempt, a->provider, a->model ? a->model : "?", outcome);
    if (a->error) {
        fprintf(stderr, ": %s", seam_error_kind_name(a->error->kind));
        if (a->error->http_status)
            fprintf(stderr, " (HTTP %d)", a->error->http_status);
        if (a->error->message[0])
            fprintf(stderr, ": %s", a->error->message);
    }
}

/* ---- the client ------------------------------------------------------------- */

/* The library's notices (the shared state store away or back) go to stderr. */
static void notice(void *ud, int level, const char *message)
{
    (void)ud;
    (void)level;
    say("%s", message);
}

int open_client(const char *conf_path, seam_client **out, seam_error *err)
{
    seam_client_options opts;
    memset(&opts, 0, sizeof opts);
    opts.size = sizeof opts;
    opts.conf_path = conf_path;
    seam_error_clear(err);
    int rc = seam_client_new(&opts, out, err);
    if (rc == SEAM_OK) {
        seam_client_set_log(*out, notice, NULL);
        return EXIT_OK;
    }
    if (err->kind == SEAM_ERROR_NONE)
        seam_error_set(err, SEAM_ERROR_CONF, "cannot create the client (status %d)", rc);
    say("%s", err->message);
    return rc == SEAM_ERR_NOMEM ? EXIT_PROVIDER : EXIT_USAGE;
}

/* Subcommands without options of their own still take --conf and --help. */
int parse_simple_args(const char *cmd, int argc, char **argv, const char **conf)
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

void print_warning(void *ud, const char *text)
{
    (void)ud;
    say("warning: %s", text);
}

/* ---- main --------------------------------------------------------------------- */

static void print_version(void)
{
    printf("seam %s (libseam %s)\n", PACKAGE_VERSION, seam_version());
    /* What this build of the command can do (configure --without-...). */
    printf("conversation log: %s; line editing: %s\n",
#ifdef HAVE_SQLITE
           "sqlite",
#else
           "off",
#endif
#ifdef HAVE_LIBEDIT
           "libedit"
#else
           "off"
#endif
    );
}

/* A standard descriptor the caller closed is held by /dev/null opened for the
 * other direction: nothing we open later (a conf, a socket) may become our
 * stdout, and a write to it fails (EBADF) instead of vanishing. */
static void hold_closed_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int held = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
        if (held >= 0 && held != fd) {
            dup2(held, fd);
            close(held);
        }
    }
}

/* The answer must not be lost silently: a write error on stdout (a full
 * disk, a closed stdout) is reported and fails the command. A reader that
 * went away (`| head -1`) ends us quietly, as it ends any filter: by SIGPIPE,
 * even when our parent left it ignored. */
static int finish_stdout(int code)
{
    errno = 0;
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (!failed)
        return code;
    if (e == EPIPE) {
        signal(SIGPIPE, SIG_DFL);
        raise(SIGPIPE);
        return code ? code : EXIT_PROVIDER;
    }
    say("cannot write the output: %s", e ? strerror(e) : "write error");
    return code ? code : EXIT_PROVIDER;
}

static int run_command(int argc, char **argv);

int main(int argc, char **argv)
{
    hold_closed_std_fds();
    return finish_stdout(run_command(argc, argv));
}

static int run_command(int argc, char **argv)
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
    /* One line per subcommand; its code lives in a file of its own. */
    static const struct {
        const char *name;
        int (*run)(const char *conf, int argc, char **argv);
    } commands[] = {
        {"chat", cmd_chat},
        {"plugins", cmd_plugins},
        {"providers", cmd_providers},
        {"config", cmd_config},
        {"media", cmd_media},
        {"models", cmd_models},
        {"logs", cmd_logs},
        {"tokens", cmd_tokens},
        {"embed", cmd_embed},
        {"transcribe", cmd_transcribe},
        {"keys", cmd_keys},
#ifdef HAVE_SERVE
        {"serve", serve_main},
#endif
    };
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (strcmp(cmd, commands[k].name) == 0)
            return commands[k].run(conf, rest, args);
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
