/* cli.h — what the files of the `seam` command share: the exit codes, the
 * messages on stderr, option parsing, opening the client, the conf's command
 * tools, and one entry point per subcommand (each in its own file, found by
 * the dispatch table in seam.c). Everything in cli/ uses only <seam/seam.h>. */
#ifndef SEAM_CLI_H
#define SEAM_CLI_H

#include <stdint.h>
#include <stddef.h>

#include <seam/seam.h>

#ifndef SEAM_CONF_INSTALLED
#define SEAM_CONF_INSTALLED "/etc/seam/seam.conf"
#endif

#ifdef __GNUC__
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

enum {
    EXIT_OK = 0,
    EXIT_PROVIDER = 1,
    EXIT_USAGE = 2,
    EXIT_INTERRUPTED = 130 /* 128 + SIGINT, as a shell reports it */
};

/* The text of `seam --help` (seam.c). */
extern const char *const help_text;

/* 1 when stderr may be coloured: a terminal (not TERM=dumb) and NO_COLOR
 * unset or empty (no-color.org). Then cli_style(...) returns the escape
 * sequence, else "". */
int cli_color(void);
#define CLI_DIM "\033[2m"
#define CLI_BOLD "\033[1m"
#define CLI_RESET "\033[0m"
#define cli_style(seq) (cli_color() ? (seq) : "")

/* "seam: MESSAGE" on stderr. */
void say(const char *fmt, ...) CLI_PRINTF(1, 2);
/* say, then "Try 'seam --help'."; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) CLI_PRINTF(1, 2);
/* The start of a -v line about an attempt on stderr: "seam: [chain NAME: ]attempt
 * N PROVIDER MODEL: OUTCOME[: KIND (HTTP S): MESSAGE]", the chain when
 * with_chain; the caller adds the rest of the line. */
void print_attempt_head(const seam_attempt *a, int with_chain);
/* "seam: provider: message [kind, HTTP 429, code x]" on stderr. */
void print_error(const seam_error *err);
/* A conf warning ("seam: warning: TEXT"), as seam_conf_check reports one. */
void print_warning(void *ud, const char *text);

/* Matches argv[*i] against a long option taking a value, as "--name VALUE" or
 * "--name=VALUE". Returns 1 with *value set (and *i advanced past a separate
 * value), 0 when argv[*i] is another option, -1 when the value is missing. */
int option_value(int argc, char **argv, int *i, const char *name, const char **value);
/* The options of a subcommand that makes one call of a chain or a model
 * (`seam embed`, `seam tokens`): --chain, or --provider with --model/-m,
 * --json, -v/--verbose, -h/--help, and one option of the command's own that
 * takes a value (extra_name, e.g. "--dimensions"). Operands start at first
 * (argc when there are none; "--" ends the options). */
typedef struct target_opts {
    const char *chain, *provider, *model, *extra;
    int json, verbose;
    int first;
} target_opts;
/* Parses argv of subcommand cmd into o, printing help (for -h) or what is
 * wrong on the way. Returns -1 when the command goes on, else its exit code. */
int parse_target_opts(const char *cmd, const char *help, const char *extra_name, int argc,
                      char **argv, target_opts *o);
/* The call options of o's target; with -v, each attempt goes to on_attempt. */
seam_call_options target_call_options(const target_opts *o,
                                      void (*on_attempt)(void *ud, const seam_attempt *a));
/* The words joined by single spaces (so `seam chat hello there` is one
 * prompt). Malloc'ed; NULL when out of memory. */
char *join_words(int n, char **words);
/* For subcommands without options of their own: --conf and --help. Returns 0,
 * -1 after printing the help, or an exit code. */
int parse_simple_args(const char *cmd, int argc, char **argv, const char **conf);

/* Creates the client; on failure reports why and returns the exit code (a conf
 * that cannot be read or parsed is a conf error: 2). */
int open_client(const char *conf_path, seam_client **out, seam_error *err);

/* A tool of the conf's `tools` group run as a shell command (command_tool.c). */
typedef struct command_tool {
    const char *name;    /* borrowed from the client */
    const char *command;
    int64_t timeout_ms;
    int verbose;         /* -v: the command's stderr goes to ours as it comes */
} command_tool;
/* A seam_tool_fn: ud is a command_tool. */
int run_command_tool(void *ud, const seam_tool_call *call, seam_tool_output *out);

/* The subcommands: conf is the global --conf (NULL: the default search),
 * argv the words after the subcommand's name. Each returns the exit code. */
int cmd_chat(const char *conf, int argc, char **argv);
int cmd_plugins(const char *conf, int argc, char **argv);
int cmd_providers(const char *conf, int argc, char **argv);
int cmd_config(const char *conf, int argc, char **argv);
int cmd_media(const char *conf, int argc, char **argv);
int cmd_models(const char *conf, int argc, char **argv);
int cmd_logs(const char *conf, int argc, char **argv);
int cmd_keys(const char *conf, int argc, char **argv);

/* The configured provider for a model named alone (`seam chat -m MODEL`): the
 * catalog's provider of that model (one with a credential first), else the
 * provider of a chain entry naming the model. NULL when none (models_cmd.c). */
const char *pick_provider(seam_client *client, const char *model);
int cmd_tokens(const char *conf, int argc, char **argv); /* tokens.c */
int cmd_embed(const char *conf, int argc, char **argv);  /* embed.c */
int cmd_transcribe(const char *conf, int argc, char **argv); /* transcribe.c */

#endif /* SEAM_CLI_H */
