/* chat.h — what chat.c (the options, the prompt, the request) shares with
 * chat_run.c (one call and its answer printed as it comes). */
#ifndef SEAM_CLI_CHAT_H
#define SEAM_CLI_CHAT_H

#include <seam/seam.h>

#include "json_out.h"

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
    seam_client *client;     /* borrowed */
    int no_mock;             /* --no-mock: the offline mock may not answer */
    /* What on_attempt saw of the chain: entries skipped ("  PROVIDER: why"
     * lines, for the note when the mock answers), and whether any entry was
     * tried or skipped for a reason other than the conf (for the exit code). */
    char *skipped;
    int tried, skipped_runtime;

    /* Per-request options (chat_opts.c). */
    int have_temperature;
    double temperature;      /* --temperature */
    int64_t max_tokens;      /* --max-tokens; 0: not given */
    const char **stops;      /* --stop, each value (argv strings) */
    size_t n_stops;
    const char *schema;      /* --schema FILE|JSON as given */
    char *schema_json;       /* its JSON text */
    int64_t reasoning_budget;/* --reasoning; 0: not given */
    uint32_t output_modalities; /* --output; 0: not given (text) */
    const char **attachments;/* -a FILE|URL, each (argv strings; media_cmd.c) */
    size_t n_attachments;
    const char *template_name; /* -t NAME */
    int continue_last;       /* -c: continue the last logged conversation */
    const char *cid;         /* --cid ID: continue that conversation */
    int no_log;              /* --no-log */
    int no_color;            /* NO_COLOR, or stderr not a terminal */

    /* The last turn that succeeded (chat_run.c fills it, chat.c frees it):
     * the answer for the conversation's history and for the log. */
    seam_message *answer;    /* a copy of the answer's message */
    seam_usage usage;        /* the whole turn's (every attempt, every tool round) */
    char *answer_provider, *answer_model;
    char *repl_model, *repl_system; /* set by /model and /system (repl.c) */
    struct json_object *cli_settings; /* the conf's cli group, parsed (templates.c) */
} chat_options;

/* Parses `seam chat`'s arguments (getopt_long; options before the prompt).
 * Returns 0, -1 after printing the help, or an exit code (chat_opts.c). */
int parse_chat_args(int argc, char **argv, chat_options *o);
/* Applies the per-request options to req (system prompt, temperature, max
 * tokens, stop sequences, schema, reasoning, attachments to the last user
 * message). Returns EXIT_OK or an exit code after saying why. */
int apply_request_options(chat_options *o, seam_request *req);
/* Frees what parse_chat_args and apply_request_options allocated. */
void chat_options_free(chat_options *o);
/* Validates the answer's text against --schema; EXIT_OK or EXIT_PROVIDER
 * after saying why. */
int check_schema_answer(chat_options *o, const char *text);

/* One turn: req as it stands sent through o's chain or provider, the answer
 * printed as it comes and kept in o->answer; Ctrl-C cancels it. Returns the
 * exit code of the turn (chat.c). */
int chat_turn(chat_options *o, seam_request *req, const seam_toolset *ts, seam_cancel *cancel);
/* -m MODEL alone: the provider from the catalog (o->client open). EXIT_OK,
 * or EXIT_USAGE after saying no provider serves it. */
int chat_resolve_model(chat_options *o);

struct chat_log;
/* -c / --cid: the conversation to continue put into req (chat.c). */
int chat_open_conversation(chat_options *o, struct chat_log *log, seam_request *req,
                           char cid[48], char **system);

/* The interactive conversation (repl.c): o's client open, ts its tools (may
 * be NULL). Returns the exit code. */
int chat_repl(chat_options *o, const seam_toolset *ts);

/* The model an alias of the conf's cli.aliases names, else model itself
 * (templates.c). */
const char *chat_alias(chat_options *o, const char *model);
/* -t NAME: fills what the command line left unset from the conf's template
 * (templates.c). EXIT_OK or an exit code after saying why. */
int chat_apply_template(chat_options *o);
/* --output's value: modalities joined by '+' as SEAM_MODALITY_* bits (chat_opts.c). */
int chat_output_modalities(const char *v, uint32_t *out);
/* --reasoning's value: low, medium, high or a number of tokens (chat_opts.c). */
int chat_reasoning_budget(const char *v, int64_t *out);

/* Forgets the last turn's answer (chat_run.c). */
void chat_forget_answer(chat_options *o);

/* SIGINT cancels the running call: on with its token, off after it. */
void chat_interrupt_on(seam_cancel *cancel);
void chat_interrupt_off(void);

/* A seam_call_options on_attempt observer; ud is the chat_options. */
void on_attempt(void *ud, const seam_attempt *a);

/* One call, its answer printed (text, notes, usage line, or --json lines);
 * each returns the exit code. */
int chat_blocking(chat_options *o, seam_client *client, const seam_request *req,
                  const seam_call_options *call, seam_cancel *cancel);
int chat_streaming(chat_options *o, seam_client *client, const seam_request *req,
                   const seam_call_options *call, seam_cancel *cancel);
int chat_tools_blocking(chat_options *o, seam_client *client, const seam_request *req,
                        const seam_call_options *call, const seam_toolset *ts,
                        seam_cancel *cancel);
int chat_tools_streaming(chat_options *o, seam_client *client, const seam_request *req,
                         const seam_call_options *call, const seam_toolset *ts,
                         seam_cancel *cancel);

#endif /* SEAM_CLI_CHAT_H */
