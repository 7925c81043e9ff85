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
    const char *attach[32];  /* -a FILE|URL, in order (media_cmd.c) */
    int n_attach;
    /* What on_attempt saw of the chain: entries skipped ("  PROVIDER: why"
     * lines, for the note when the mock answers), and whether any entry was
     * tried or skipped for a reason other than the conf (for the exit code). */
    char *skipped;
    int tried, skipped_runtime;
} chat_options;

/* SIGINT cancels the running call: on with its token, off after it. */
void chat_interrupt_on(seam_cancel *cancel);
void chat_interrupt_off(void);

/* A seam_call_options on_attempt observer; ud is the chat_options. */
void on_attempt(void *ud, const seam_attempt *a);

/* One call, its answer printed (text, notes, usage line, or --json lines);
 * each returns the exit code. */
int chat_blocking(const chat_options *o, seam_client *client, const seam_request *req,
                  const seam_call_options *call, seam_cancel *cancel);
int chat_streaming(const chat_options *o, seam_client *client, const seam_request *req,
                   const seam_call_options *call, seam_cancel *cancel);
int chat_tools_blocking(chat_options *o, seam_client *client, const seam_request *req,
                        const seam_call_options *call, const seam_toolset *ts,
                        seam_cancel *cancel);
int chat_tools_streaming(chat_options *o, seam_client *client, const seam_request *req,
                         const seam_call_options *call, const seam_toolset *ts,
                         seam_cancel *cancel);

#endif /* SEAM_CLI_CHAT_H */
