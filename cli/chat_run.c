/* chat_run.c — one call of `seam chat` and its answer as the user sees it:
 * text streamed to stdout, tool calls, tool results and the chain's attempts
 * as notes on stderr, the usage line; or, with --json, the chunk, result and
 * error lines (json_out.c); and the exit code of a failure. Ctrl-C cancels
 * the running call. */
#include "config.h"

#include <json-c/json.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seam/seam.h>

#include "chat.h"
#include "cli.h"
#include "json_out.h"

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

/* What SIGINT did before the call: the REPL's prompt handler, or the
 * default. Put back afterwards, so that no moment between an answer and the
 * next prompt is left with the default action (which would end the REPL). */
static struct sigaction before_call;

static void install_interrupt_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    /* A second Ctrl-C kills at once, should the cancel ever not be honoured. */
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, &before_call);
}

void chat_interrupt_on(seam_cancel *cancel)
{
    running_cancel = cancel;
    install_interrupt_handler();
}

void chat_interrupt_off(void)
{
    sigaction(SIGINT, &before_call, NULL);
    running_cancel = NULL;
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
    fputs(cli_style(CLI_DIM), stderr);
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
    fprintf(stderr, "%s\n", cli_style(CLI_RESET));
}

static void print_usage_line(const seam_result *res)
{
    print_usage(seam_result_usage(res), seam_result_provider(res), seam_result_model(res));
}

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
    print_attempt_head(a, 1);
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

/* Appends "seam: skipped PROVIDER: why" (or "seam: PROVIDER failed: why") to
 * o->skipped (best effort). */
static void keep_skipped(chat_options *o, const seam_attempt *a)
{
    int skipped = a->outcome == SEAM_ATTEMPT_SKIPPED;
    const char *why = a->error && a->error->message[0] ? a->error->message : "skipped";
    size_t old = o->skipped ? strlen(o->skipped) : 0;
    size_t add = strlen(a->provider) + strlen(why) + 32;
    char *grown = realloc(o->skipped, old + add);
    if (!grown)
        return;
    snprintf(grown + old, add, skipped ? "seam: skipped %s: %s\n" : "seam: %s failed: %s\n",
             a->provider, why);
    o->skipped = grown;
}

void on_attempt(void *ud, const seam_attempt *a)
{
    chat_options *o = ud;
    if (o->verbose)
        print_attempt(a);
    json_attempts_add(o->attempts, a);
    if (a->outcome == SEAM_ATTEMPT_FAILED)
        keep_skipped(o, a);
    if (a->outcome != SEAM_ATTEMPT_SKIPPED) {
        o->tried = 1;
    } else {
        keep_skipped(o, a);
        /* A missing credential is set-up, as a missing provider or plugin is;
         * a cooldown or a rate-limit wait is not. */
        if (!a->error || (a->error->kind != SEAM_ERROR_CONF && a->error->kind != SEAM_ERROR_AUTH))
            o->skipped_runtime = 1;
    }
}

void chat_forget_answer(chat_options *o)
{
    seam_message_free(o->answer);
    free(o->answer_provider);
    free(o->answer_model);
    o->answer = NULL;
    o->answer_provider = o->answer_model = NULL;
    memset(&o->usage, 0, sizeof o->usage);
}

/* Keeps what the conversation and the log need of a successful turn. */
static void keep_answer(chat_options *o, const seam_result *res, const seam_usage *usage)
{
    chat_forget_answer(o);
    const seam_message *m = res ? seam_result_message(res) : NULL;
    o->answer = m ? seam_message_dup(m) : NULL;
    const char *p = res ? seam_result_provider(res) : NULL, *md = res ? seam_result_model(res) : NULL;
    o->answer_provider = p ? strdup(p) : NULL;
    o->answer_model = md ? strdup(md) : NULL;
    if (usage)
        o->usage = *usage;
}

/* 1 when the configured provider `name` is served by the offline mock plugin. */
static int is_offline_mock(seam_client *client, const char *name)
{
    for (size_t i = 0; name && i < seam_client_provider_count(client); i++) {
        seam_provider_info p;
        memset(&p, 0, sizeof p);
        if (seam_client_provider_at(client, i, &p) == SEAM_OK && strcmp(p.name, name) == 0)
            return p.plugin && strcmp(p.plugin, "mock") == 0;
    }
    return 0;
}

/* The offline mock's canned answer must never pass for a model's: after it,
 * stderr says so, and names the providers that were skipped and why. */
static void mark_mock_answer(chat_options *o, const char *provider)
{
    if (!is_offline_mock(o->client, provider))
        return;
    end_text_line();
    if (o->skipped && !o->verbose)
        fputs(o->skipped, stderr);
    fprintf(stderr, "%sseam: this answer is the canned reply of the offline mock (provider %s), "
                    "not a model's; set an API key (see `seam providers`) or pass --no-mock "
                    "to fail instead%s\n",
            cli_style(CLI_BOLD), provider, cli_style(CLI_RESET));
}

/* Text mode shows a tool call on stderr: stdout carries the answer's text only. */
static void print_tool_call_note(const char *name, const char *args_json)
{
    fprintf(stderr, "seam: tool call %s %s\n", name ? name : "?",
            args_json && *args_json ? args_json : "{}");
}

/* The exit code for a failed call: 2 for a usage or conf error, and for a
 * chain none of whose entries could be tried for a reason of the set-up
 * (provider not defined, plugin not installed, credential not set). */
static int failure_exit_code(chat_options *o, int status, const seam_error *err)
{
    if (err->kind == SEAM_ERROR_CANCELLED)
        return EXIT_INTERRUPTED;
    if (o->skipped && !o->tried && !o->skipped_runtime)
        return EXIT_USAGE;
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

static int report_failure(chat_options *o, int status, seam_error *err,
                          seam_cancel *cancel)
{
    settle_error(err, status, cancel);
    /* The final error is the last attempt's: say what became of the others. */
    if (o->tried && o->skipped && !o->verbose && err->kind != SEAM_ERROR_CANCELLED)
        fputs(o->skipped, stderr);
    if (o->json) {
        json_out_error(stdout, err);
    } else if (err->kind == SEAM_ERROR_CANCELLED) {
        say("cancelled");
    } else {
        print_error(err);
    }
    return failure_exit_code(o, status, err);
}

int chat_blocking(chat_options *o, seam_client *client, const seam_request *req,
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
    mark_mock_answer(o, seam_result_provider(res));
    keep_answer(o, res, seam_result_usage(res));
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
    size_t (*step)(const void *s); /* the last chunk's step; NULL: no steps */
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

static size_t loop_step(const void *s)
{
    return seam_loop_stream_step(s);
}

/* Prints a stream as it arrives: text to stdout, notes on stderr, or every
 * chunk as a JSON line. Returns 1 when the call failed (*failure and *status
 * set), 0 when it ended well. What arrived stays printed either way. */
static int print_stream(chat_options *o, const chunk_source *src, seam_error *failure,
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
            else if (chunk->type == SEAM_CHUNK_STEP_FINISH)
                json_out_step_finish(stdout, chunk, src->step ? src->step(src->s) : 0);
            else if (chunk->type != SEAM_CHUNK_ERROR)
                json_out_chunk(stdout, chunk);
            continue;
        }
        /* An audio answer's transcript is what it says: shown as text. */
        if ((chunk->type == SEAM_CHUNK_TEXT_DELTA || chunk->type == SEAM_CHUNK_MEDIA_DELTA) &&
            chunk->text && *chunk->text) {
            fputs(chunk->text, stdout);
            fflush(stdout);
            text_line_open = chunk->text[strlen(chunk->text) - 1] != '\n';
        } else if (chunk->type == SEAM_CHUNK_MEDIA_END) {
            end_text_line();
            fprintf(stderr, "seam: %s %s (seam media path %s)\n",
                    chunk->mime_type ? chunk->mime_type : "media", chunk->text ? chunk->text : "",
                    chunk->text ? chunk->text : "");
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

int chat_streaming(chat_options *o, seam_client *client, const seam_request *req,
                          const seam_call_options *call, seam_cancel *cancel)
{
    seam_stream *s = NULL;
    seam_error err;
    seam_error_clear(&err);
    int rc = seam_stream_open(client, req, call, &s, &err);
    if (rc != SEAM_OK)
        return report_failure(o, rc, &err, cancel);
    chunk_source src = { next_plain, NULL, s, NULL };
    int status;
    int code = EXIT_OK;
    if (print_stream(o, &src, &err, &status)) {
        code = report_failure(o, status, &err, cancel);
    } else {
        const seam_result *res = seam_stream_result(s);
        mark_mock_answer(o, seam_result_provider(res));
        keep_answer(o, res, seam_result_usage(res));
        if (o->json)
            json_out_result_with(stdout, res, o->attempts);
        else
            print_usage_line(res);
    }
    seam_stream_free(s);
    return code;
}

/* Calls the loop left unexecuted: the rounds ran out (or were 0). */
static void print_unrun_note(chat_options *o, const seam_generation *g)
{
    size_t n = seam_generation_tool_call_count(g);
    if (n)
        say("%zu tool call%s not run (--max-tool-rounds %d)", n, n == 1 ? "" : "s",
            o->max_tool_rounds >= 0 ? o->max_tool_rounds : SEAM_DEFAULT_TOOL_ROUNDS);
}

/* Blocking run: each turn's text and its tool notes as the turn completes. */
static void on_step_notes(void *ud, const seam_step *st, size_t index)
{
    chat_options *o = ud;
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
static void finish_tools_run(chat_options *o, const seam_generation *g)
{
    const seam_result *answer = seam_generation_response(g);
    mark_mock_answer(o, answer ? seam_result_provider(answer) : NULL);
    keep_answer(o, answer, seam_generation_usage(g));
    if (o->json) {
        json_out_generation(stdout, g, o->attempts);
        return;
    }
    print_unrun_note(o, g);
    const seam_result *last = seam_generation_response(g);
    print_usage(seam_generation_usage(g), last ? seam_result_provider(last) : NULL,
                last ? seam_result_model(last) : NULL);
}

static void loop_options(chat_options *o, const seam_call_options *call,
                         const seam_toolset *ts, seam_loop_options *lo)
{
    seam_loop_options_init(lo);
    lo->call = call;
    lo->tools = ts;
    if (o->max_tool_rounds >= 0)
        lo->max_tool_rounds = o->max_tool_rounds;
}

int chat_tools_blocking(chat_options *o, seam_client *client, const seam_request *req,
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

int chat_tools_streaming(chat_options *o, seam_client *client, const seam_request *req,
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
    chunk_source src = { next_loop, loop_client_result, s, loop_step };
    int status;
    int code = EXIT_OK;
    if (print_stream(o, &src, &err, &status))
        code = report_failure(o, status, &err, cancel);
    else
        finish_tools_run(o, seam_loop_stream_generation(s));
    seam_loop_stream_free(s);
    return code;
}
