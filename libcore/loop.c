/* loop.c — generation with the automatic tool loop: the engine behind
 * seam_loop_generate and seam_loop_stream_*: send a turn, run its calls (with
 * tools.c's runner; an unknown tool, arguments that fail the schema and a
 * failing tool all become is_error results), send every result back in one
 * continuation request, until the model answers, a passive tool is called, the
 * rounds run out, or a cancel or deadline ends the run; each step is recorded
 * (generation.c). The total and per-turn deadlines are enforced by the
 * transport (the call's timeout); the first-content deadline of a stream by a
 * watchdog thread that cancels the turn's transfer. */
#include "config.h"
#include "internal.h"
#include "transport.h"
#include "generation.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The options member m is inside what the caller's struct declares. */
#define HAS_FIELD(o, type, m) ((o)->size >= offsetof(type, m) + sizeof((o)->m))

/* ---- the first-content watchdog ----------------------------------------------------------------- */

/* Watches a streamed turn: cancels the turn's own token when the caller's
 * token fires or when no content came before the deadline. The turn's transfer
 * polls only that own token, so the watchdog lives until the turn ends. */
typedef struct watchdog {
    pthread_t thread;
    seam_cancel *user;
    seam_cancel *token;
    int wake[2];
    pthread_mutex_t mu;
    int64_t deadline_ms;     /* 0: no deadline any more */
    int quit;
    atomic_int timed_out;
} watchdog;

static void *watchdog_main(void *arg)
{
    watchdog *w = arg;
    for (;;) {
        /* Deciding to fire and firing happen under the mutex, so a disarm either
         * comes first (no fire) or sees timed_out set (it reports it). */
        pthread_mutex_lock(&w->mu);
        if (w->quit) {
            pthread_mutex_unlock(&w->mu);
            break;
        }
        if (seam_cancel_triggered(w->user)) {
            seam_cancel_trigger(w->token);
            pthread_mutex_unlock(&w->mu);
            break;
        }
        int timeout = -1;
        if (w->deadline_ms > 0) {
            int64_t left = w->deadline_ms - seam_now_ms();
            if (left <= 0) {
                atomic_store(&w->timed_out, 1);
                seam_cancel_trigger(w->token);
                pthread_mutex_unlock(&w->mu);
                break;
            }
            timeout = left > 1000000 ? 1000000 : (int)left;
        }
        pthread_mutex_unlock(&w->mu);
        struct pollfd pfd[2] = { { w->wake[0], POLLIN, 0 }, { seam_cancel_fd(w->user), POLLIN, 0 } };
        if (poll(pfd, 2, timeout) > 0 && (pfd[0].revents & POLLIN)) {
            char buf[16];
            ssize_t rd = read(w->wake[0], buf, sizeof buf);
            (void)rd;
        }
    }
    return NULL;
}

static void watchdog_poke(watchdog *w)
{
    const char b = 1;
    ssize_t wr = write(w->wake[1], &b, 1);
    (void)wr;
}

static watchdog *watchdog_start(seam_cancel *user, int64_t deadline_ms)
{
    watchdog *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->user = user;
    w->deadline_ms = deadline_ms;
    atomic_init(&w->timed_out, 0);
    w->wake[0] = w->wake[1] = -1;
    w->token = seam_cancel_new();
    if (!w->token || pipe2(w->wake, O_CLOEXEC | O_NONBLOCK) != 0 ||
        pthread_mutex_init(&w->mu, NULL) != 0) {
        seam_cancel_free(w->token);
        if (w->wake[0] >= 0) {
            close(w->wake[0]);
            close(w->wake[1]);
        }
        free(w);
        return NULL;
    }
    if (pthread_create(&w->thread, NULL, watchdog_main, w) != 0) {
        pthread_mutex_destroy(&w->mu);
        seam_cancel_free(w->token);
        close(w->wake[0]);
        close(w->wake[1]);
        free(w);
        return NULL;
    }
    return w;
}

/* Content arrived: no deadline any more (the caller's cancel is still watched).
 * Returns 1 when the deadline had already fired: the turn is being cancelled
 * and that content came too late. */
static int watchdog_disarm(watchdog *w)
{
    if (!w)
        return 0;
    pthread_mutex_lock(&w->mu);
    int fired = atomic_load(&w->timed_out);
    if (!fired)
        w->deadline_ms = 0;
    pthread_mutex_unlock(&w->mu);
    watchdog_poke(w);
    return fired;
}

/* Stops and frees; returns 1 when it fired on its deadline. */
static int watchdog_stop(watchdog *w)
{
    if (!w)
        return 0;
    pthread_mutex_lock(&w->mu);
    w->quit = 1;
    pthread_mutex_unlock(&w->mu);
    watchdog_poke(w);
    pthread_join(w->thread, NULL);
    int fired = atomic_load(&w->timed_out);
    pthread_mutex_destroy(&w->mu);
    close(w->wake[0]);
    close(w->wake[1]);
    seam_cancel_free(w->token);
    free(w);
    return fired;
}

/* ---- the engine --------------------------------------------------------------------------------- */

typedef struct engine {
    seam_client *client;
    seam_request *conv;          /* the conversation as sent next */
    const seam_toolset *tools;   /* borrowed */
    int max_rounds, rounds, max_parallel;
    int streaming;

    char *chain, *provider, *model;
    char *credential;          /* the call's per-call credential (wiped), NULL: the conf's */
    seam_cancel *cancel;
    int64_t total_ms, idle_ms, step_ms, first_ms;
    void (*on_attempt)(void *, const seam_attempt *);
    void *attempt_ud;
    void (*on_step)(void *, const seam_step *, size_t);
    int (*prepare_step)(void *, size_t, const seam_generation *, seam_step_settings *);
    void *ud;
    int64_t start_ms;

    seam_generation *gen;
    int done;
    int status;

    /* the turn being streamed */
    seam_stream *cur;
    seam_result *acc;            /* our own fold of the turn's chunks */
    watchdog *wd;
    int cur_content;
    int64_t cur_limit_ms;        /* the timeout given to the turn */
    int64_t cur_start_ms;
    int cur_limited_by_total;

    /* tool results waiting to be handed out as chunks */
    const seam_step *emit;
    size_t emit_next;
    seam_chunk chunk;
    size_t chunk_step;

    /* seam_call_options.stream_start: each turn opens with stream_start, and a
     * step_finish goes out between two steps */
    int stream_meta;
    size_t finish_sent;          /* steps whose step_finish went out */
} engine;

static void engine_free(engine *e)
{
    if (!e)
        return;
    seam_stream_free(e->cur);
    watchdog_stop(e->wd);
    seam_result_free(e->acc);
    seam_request_free(e->conv);
    seam_generation_free(e->gen);
    free(e->chain);
    seam_secret_free(e->credential);
    free(e->provider);
    free(e->model);
    free(e);
}

static int engine_fail(engine *e, int status, const seam_error *err)
{
    e->done = 1;
    e->status = status ? status : SEAM_ERR_PROVIDER;
    if (err) {
        e->gen->error = *err;
    } else {
        seam_error_clear(&e->gen->error);
        seam_error_set(&e->gen->error, SEAM_ERROR_UNKNOWN, "out of memory");
    }
    e->gen->has_error = 1;
    return e->status;
}

static int engine_fail_kind(engine *e, seam_error_kind kind, const char *msg)
{
    seam_error x;
    seam_error_clear(&x);
    seam_error_set(&x, kind, "%s", msg);
    return engine_fail(e, SEAM_ERR_PROVIDER, &x);
}

static int copy_opt(char **dst, const char *src)
{
    *dst = NULL;
    return src && !(*dst = strdup(src)) ? SEAM_ERR_NOMEM : SEAM_OK;
}

static int engine_new(seam_client *client, const seam_request *req, const seam_loop_options *o,
                      int streaming, engine **out, seam_error *err)
{
    seam_error_clear(err);
    *out = NULL;
    if (!client)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "no client"), SEAM_ERR_INVALID;
    if (o && o->size < sizeof(uint32_t))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "seam_loop_options.size is not set"),
               SEAM_ERR_INVALID;
    seam_loop_options d;
    seam_loop_options_init(&d);
    if (o) {
        /* Members past the caller's size keep their defaults. */
        memcpy(&d, o, o->size < sizeof d ? o->size : sizeof d);
        d.size = sizeof d;
        if (!HAS_FIELD(o, seam_loop_options, max_tool_rounds))
            d.max_tool_rounds = SEAM_DEFAULT_TOOL_ROUNDS;
    }
    const char *prompt = d.prompt;
    size_t n_messages = req ? seam_request_message_count(req) : 0;
    if (prompt && n_messages)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                              "give either a prompt or messages, not both"),
               SEAM_ERR_INVALID;
    if (!prompt && !n_messages)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "no input: give a prompt or messages"),
               SEAM_ERR_INVALID;
    if (d.max_tool_rounds < 0)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "max_tool_rounds must not be negative"),
               SEAM_ERR_INVALID;

    engine *e = calloc(1, sizeof *e);
    if (!e)
        return SEAM_ERR_NOMEM;
    e->client = client;
    e->streaming = streaming;
    e->tools = d.tools;
    e->max_rounds = d.max_tool_rounds;
    e->max_parallel = d.max_parallel_tools;
    e->step_ms = d.step_timeout_ms;
    e->first_ms = d.first_content_timeout_ms;
    e->on_step = d.on_step;
    e->prepare_step = HAS_FIELD(&d, seam_loop_options, prepare_step) ? d.prepare_step : NULL;
    e->ud = d.ud;
    int rc = SEAM_OK;
    const seam_call_options *co = d.call;
    if (co) {
        if (co->size < sizeof(uint32_t))
            rc = SEAM_ERR_INVALID;
        else {
            e->cancel = co->cancel;
            e->total_ms = co->timeout_ms;
            e->idle_ms = co->idle_timeout_ms;
            e->on_attempt = co->on_attempt;
            e->attempt_ud = co->ud;
            e->stream_meta = HAS_FIELD(co, seam_call_options, stream_start) && co->stream_start;
            if (copy_opt(&e->chain, co->chain) != SEAM_OK ||
                copy_opt(&e->provider, co->provider) != SEAM_OK ||
                copy_opt(&e->model, co->model) != SEAM_OK ||
                (HAS_FIELD(co, seam_call_options, credential) &&
                 copy_opt(&e->credential, co->credential) != SEAM_OK))
                rc = SEAM_ERR_NOMEM;
        }
    }
    if (rc == SEAM_ERR_INVALID)
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "seam_call_options.size is not set");
    if (rc == SEAM_OK) {
        e->conv = req ? seam_request_dup(req) : seam_request_new();
        e->gen = seam_generation_new();
        if (!e->conv || !e->gen)
            rc = SEAM_ERR_NOMEM;
    }
    if (rc == SEAM_OK && prompt)
        rc = seam_request_add_user_text(e->conv, prompt);
    if (rc == SEAM_OK)
        rc = seam_toolset_add_to_request(e->tools, e->conv);
    if (rc == SEAM_OK) {
        /* Resolve the chain now, so that a bad one fails before the run starts:
         * opening a stream builds the plan and sends nothing. */
        seam_call_options probe = { .size = sizeof probe, .chain = e->chain,
                                    .provider = e->provider, .model = e->model,
                                    .credential = e->credential };
        seam_stream *s = NULL;
        rc = seam_stream_open(client, e->conv, &probe, &s, err);
        seam_stream_free(s);
    }
    if (rc != SEAM_OK) {
        if (rc == SEAM_ERR_NOMEM)
            seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
        engine_free(e);
        return rc;
    }
    e->start_ms = seam_now_ms();
    *out = e;
    return SEAM_OK;
}

/* The call options of the next turn; 1 when the total deadline already passed. */
static int turn_options(engine *e, seam_call_options *co, seam_cancel *cancel)
{
    int64_t limit = e->step_ms > 0 ? e->step_ms : 0;
    e->cur_limited_by_total = 0;
    if (e->total_ms > 0) {
        int64_t left = e->start_ms + e->total_ms - seam_now_ms();
        if (left <= 0)
            return 1;
        if (limit == 0 || left < limit) {
            limit = left;
            e->cur_limited_by_total = 1;
        }
    }
    e->cur_limit_ms = limit;
    e->cur_start_ms = seam_now_ms();
    *co = (seam_call_options){
        .size = sizeof *co,
        .chain = e->chain,
        .provider = e->provider,
        .model = e->model,
        .cancel = cancel,
        .timeout_ms = limit,
        .idle_timeout_ms = e->idle_ms,
        .on_attempt = e->on_attempt,
        .ud = e->attempt_ud,
        .credential = e->credential,
        .stream_start = e->stream_meta,
    };
    return 0;
}

/* A turn's timeout error says which deadline it was. */
static void explain_timeout(engine *e, seam_error *x)
{
    /* Only a timeout that came when the turn's limit ran out is the limit's:
     * an idle gap is reported as the transport said. */
    if (x->kind != SEAM_ERROR_TIMEOUT || e->cur_limit_ms <= 0 ||
        seam_now_ms() - e->cur_start_ms < e->cur_limit_ms - 20)
        return;
    char why[sizeof x->message + 128];
    if (e->cur_limited_by_total)
        snprintf(why, sizeof why, "the run's total deadline (%lld ms) passed: %s",
                 (long long)e->total_ms, x->message);
    else if (e->step_ms > 0)
        snprintf(why, sizeof why, "the step deadline (%lld ms) passed: %s", (long long)e->step_ms,
                 x->message);
    else
        return;
    seam_strlcpy(x->message, why, sizeof x->message);
}

static int total_deadline_error(engine *e)
{
    char msg[128];
    snprintf(msg, sizeof msg, "the run's total deadline (%lld ms) passed", (long long)e->total_ms);
    return engine_fail_kind(e, SEAM_ERROR_TIMEOUT, msg);
}

/* Records a failed turn (its partial result, with the error folded in) and ends
 * the run. Takes res (may be NULL). */
static int fail_turn(engine *e, seam_result *res, int status, seam_error *x)
{
    if (!res)
        res = seam_result_new();
    if (res) {
        seam_chunk c = { .type = SEAM_CHUNK_ERROR, .error = x };
        if (!seam_result_error(res))
            seam_result_add_chunk(res, &c);
        seam_step *st;
        seam_generation_add_step(e->gen, res, &st);
    }
    return engine_fail(e, status, x);
}

/* A turn ended well: record it, run its tools or end the run. Takes res. */
static int finish_turn(engine *e, seam_result *res)
{
    seam_step *st = NULL;
    int rc = seam_generation_add_step(e->gen, res, &st);
    if (rc != SEAM_OK)
        return engine_fail(e, rc, NULL);
    size_t index = e->gen->n_steps - 1;
    const seam_message *assistant = seam_result_message(st->result);
    seam_message *copy = seam_message_dup(assistant);
    if (!copy || seam_request_add_message(e->conv, copy) != SEAM_OK) {
        seam_message_free(copy);
        return engine_fail(e, SEAM_ERR_NOMEM, NULL);
    }
    if (seam_generation_add_message(e->gen, assistant) != SEAM_OK)
        return engine_fail(e, SEAM_ERR_NOMEM, NULL);

    if (st->n_calls == 0 || e->rounds >= e->max_rounds) {
        e->gen->pending = st->n_calls > 0;
        e->done = 1;
        e->status = SEAM_OK;
        if (e->on_step)
            e->on_step(e->ud, st, index);
        return SEAM_OK;
    }

    seam_tool_job *jobs = calloc(st->n_calls, sizeof *jobs);
    if (!jobs)
        return engine_fail(e, SEAM_ERR_NOMEM, NULL);
    int passive = 0, prep = 0;
    for (size_t i = 0; prep >= 0 && i < st->n_calls; i++) {
        const seam_part *p = st->calls[i];
        jobs[i].id = seam_part_tool_call_id(p);
        jobs[i].name = seam_part_tool_name(p);
        jobs[i].args_json = seam_part_args_json(p);
        int defined_by_request = seam_request_defines_tool(e->conv, jobs[i].name) &&
                                 !seam_toolset_find(e->tools, jobs[i].name, NULL, NULL, NULL);
        prep = defined_by_request ? 1 : seam_tool_job_prepare(&jobs[i], e->tools);
        if (prep > 0)
            passive = 1;
    }
    if (prep < 0) {
        for (size_t i = 0; i < st->n_calls; i++)
            seam_tool_job_release(&jobs[i]);
        free(jobs);
        return engine_fail(e, prep, NULL);
    }
    if (passive) {
        /* The turn's results go back together, and the caller owns some of
         * them: hand the whole turn back, unexecuted. */
        for (size_t i = 0; i < st->n_calls; i++)
            seam_tool_job_release(&jobs[i]);
        free(jobs);
        e->gen->pending = 1;
        e->done = 1;
        e->status = SEAM_OK;
        if (e->on_step)
            e->on_step(e->ud, st, index);
        return SEAM_OK;
    }

    seam_error x;
    seam_error_clear(&x);
    int64_t deadline = e->total_ms > 0 ? e->start_ms + e->total_ms : 0;
    int run_rc = seam_tools_run(jobs, st->n_calls, e->max_parallel, e->cancel, deadline,
                                (int)index, &x);
    /* The run's total deadline is the only one the tools run under, so a
     * timeout here is that deadline's: the caller is told so, as when it
     * passes inside a turn. */
    if (run_rc != SEAM_OK && x.kind == SEAM_ERROR_TIMEOUT)
        snprintf(x.message, sizeof x.message,
                 "the run's total deadline (%lld ms) passed while tools were running",
                 (long long)e->total_ms);
    seam_message *results = seam_message_new(SEAM_ROLE_TOOL);
    rc = results ? SEAM_OK : SEAM_ERR_NOMEM;
    for (size_t i = 0; rc == SEAM_OK && i < st->n_calls; i++)
        rc = seam_message_add_tool_result(results, jobs[i].id, jobs[i].name,
                                          jobs[i].result_json ? jobs[i].result_json : "null",
                                          jobs[i].is_error);
    for (size_t i = 0; i < st->n_calls; i++)
        seam_tool_job_release(&jobs[i]);
    free(jobs);
    if (rc != SEAM_OK) {
        seam_message_free(results);
        return engine_fail(e, rc, NULL);
    }
    st->tool_results = results;
    seam_message *sent = seam_message_dup(results);
    if (!sent || seam_request_add_message(e->conv, sent) != SEAM_OK) {
        seam_message_free(sent);
        return engine_fail(e, SEAM_ERR_NOMEM, NULL);
    }
    if (seam_generation_add_message(e->gen, results) != SEAM_OK)
        return engine_fail(e, SEAM_ERR_NOMEM, NULL);
    e->rounds++;
    /* A forced choice would force a tool call on every turn: once the model
     * has called, it is free to answer. */
    seam_tool_choice choice = seam_request_tool_choice(e->conv, NULL);
    if (choice == SEAM_TOOL_CHOICE_REQUIRED || choice == SEAM_TOOL_CHOICE_NAMED)
        seam_request_set_tool_choice(e->conv, SEAM_TOOL_CHOICE_AUTO, NULL);
    if (e->streaming) {
        e->emit = st;
        e->emit_next = 0;
    }
    if (e->on_step)
        e->on_step(e->ud, st, index);
    if (run_rc != SEAM_OK)
        return engine_fail(e, run_rc, &x);
    return SEAM_OK;
}

/* The request of the next turn: the conversation itself, or with a
 * prepare_step hook a copy carrying the turn's tool choice and active tools
 * (*owned set: free it after the turn is opened). NULL after a failure. */
static const seam_request *turn_request(engine *e, seam_request **owned)
{
    *owned = NULL;
    if (!e->prepare_step)
        return e->conv;
    const char *name = NULL;
    seam_step_settings next = { .size = sizeof next };
    next.tool_choice = seam_request_tool_choice(e->conv, &name);
    next.tool_name = name;
    int rc = e->prepare_step(e->ud, e->gen->n_steps, e->gen, &next);
    if (rc == SEAM_ERR_NOMEM) {
        engine_fail(e, SEAM_ERR_NOMEM, NULL);
        return NULL;
    }
    if (rc != SEAM_OK) {
        engine_fail_kind(e, SEAM_ERROR_BAD_REQUEST, "the prepare_step hook failed");
        return NULL;
    }
    seam_request *r = seam_request_dup(e->conv);
    if (!r) {
        engine_fail(e, SEAM_ERR_NOMEM, NULL);
        return NULL;
    }
    rc = seam_request_set_tool_choice(r, next.tool_choice, next.tool_name);
    if (rc == SEAM_OK && next.active_tools)
        seam_request_retain_tools(r, next.active_tools);
    if (rc != SEAM_OK) {
        seam_request_free(r);
        if (rc == SEAM_ERR_NOMEM)
            engine_fail(e, rc, NULL);
        else
            engine_fail_kind(e, SEAM_ERROR_BAD_REQUEST,
                             "the prepare_step hook set an invalid tool choice");
        return NULL;
    }
    *owned = r;
    return r;
}

/* Checks that precede every turn. SEAM_OK to go on. */
static int before_turn(engine *e)
{
    if (seam_cancel_triggered(e->cancel))
        return engine_fail_kind(e, SEAM_ERROR_CANCELLED, "cancelled");
    return SEAM_OK;
}

/* generate: one blocking turn. */
static int blocking_turn(engine *e)
{
    if (before_turn(e) != SEAM_OK)
        return e->status;
    seam_call_options co;
    if (turn_options(e, &co, e->cancel))
        return total_deadline_error(e);
    seam_request *owned;
    const seam_request *req = turn_request(e, &owned);
    if (!req)
        return e->status;
    seam_result *res = NULL;
    seam_error x;
    seam_error_clear(&x);
    int rc = seam_generate(e->client, req, &co, &res, &x);
    seam_request_free(owned);
    if (rc != SEAM_OK) {
        explain_timeout(e, &x);
        return fail_turn(e, res, rc, &x);
    }
    return finish_turn(e, res);
}

/* stream: opens the next turn. */
static int open_turn(engine *e)
{
    if (before_turn(e) != SEAM_OK)
        return e->status;
    seam_call_options co;
    seam_cancel *cancel = e->cancel;
    if (e->first_ms > 0) {
        e->wd = watchdog_start(e->cancel, seam_now_ms() + e->first_ms);
        if (!e->wd)
            return engine_fail(e, SEAM_ERR_NOMEM, NULL);
        cancel = e->wd->token;
    }
    if (turn_options(e, &co, cancel)) {
        watchdog_stop(e->wd);
        e->wd = NULL;
        return total_deadline_error(e);
    }
    seam_request *owned;
    const seam_request *req = turn_request(e, &owned);
    if (!req) {
        watchdog_stop(e->wd);
        e->wd = NULL;
        return e->status;
    }
    seam_error x;
    seam_error_clear(&x);
    e->acc = seam_result_new();
    if (!e->acc) {
        seam_request_free(owned);
        return engine_fail(e, SEAM_ERR_NOMEM, NULL);
    }
    int rc = seam_stream_open(e->client, req, &co, &e->cur, &x); /* copies req */
    seam_request_free(owned);
    if (rc != SEAM_OK) {
        watchdog_stop(e->wd);
        e->wd = NULL;
        seam_result *res = e->acc;
        e->acc = NULL;
        return fail_turn(e, res, rc, &x);
    }
    e->cur_content = 0;
    return SEAM_OK;
}

static int is_content_chunk(seam_chunk_type t)
{
    return t != SEAM_CHUNK_STOP && t != SEAM_CHUNK_ERROR && t != SEAM_CHUNK_STREAM_START;
}

/* The step_finish of the last step, when another step is about to open: its
 * stop reason and usage (the step's, not the run's); seam_loop_stream_step()
 * gives its index. 1 when it goes out now. */
static int next_step_finish(engine *e, const seam_chunk **chunk)
{
    size_t n = e->gen->n_steps;
    if (!e->stream_meta || n == 0 || e->finish_sent == n)
        return 0;
    e->finish_sent = n;
    const seam_step *st = e->gen->steps[n - 1];
    e->chunk = (seam_chunk){
        .type = SEAM_CHUNK_STEP_FINISH,
        .stop_reason = seam_result_stop_reason(st->result),
        .usage = *seam_step_usage(st),
    };
    e->chunk_step = n - 1;
    *chunk = &e->chunk;
    return 1;
}

/* The next tool-result chunk of the last round, 1 when there was one. */
static int next_emitted(engine *e, const seam_chunk **chunk)
{
    if (!e->emit)
        return 0;
    const seam_part *p = seam_message_part(e->emit->tool_results, e->emit_next);
    if (!p) {
        e->emit = NULL;
        return 0;
    }
    e->emit_next++;
    e->chunk = (seam_chunk){
        .type = SEAM_CHUNK_TOOL_RESULT,
        .id = seam_part_tool_call_id(p),
        .name = seam_part_tool_name(p),
        .result_json = seam_part_result_json(p),
        .is_error = seam_part_is_error(p),
    };
    e->chunk_step = e->gen->n_steps - 1;
    *chunk = &e->chunk;
    return 1;
}

static int engine_next(engine *e, const seam_chunk **chunk, seam_error *err)
{
    *chunk = NULL;
    for (;;) {
        if (next_emitted(e, chunk))
            return 1;
        if (e->done) {
            if (e->status != SEAM_OK && err)
                *err = e->gen->error;
            return e->status;
        }
        if (!e->cur) {
            if (next_step_finish(e, chunk))
                return 1;
            open_turn(e);
            continue;
        }
        const seam_chunk *c = NULL;
        seam_error x;
        seam_error_clear(&x);
        int rc = seam_stream_next(e->cur, &c, &x);
        int late = 0;
        if (rc == 1) {
            if (!e->cur_content && is_content_chunk(c->type)) {
                e->cur_content = 1;
                late = watchdog_disarm(e->wd);
            }
            if (late) {
                /* The deadline fired before this first content reached the
                 * caller, and the transfer is already being cancelled: end the
                 * turn as the timeout it is, rather than hand out content and
                 * then report that none came. */
                seam_error_clear(&x);
                seam_error_set(&x, SEAM_ERROR_CANCELLED, "cancelled");
                rc = SEAM_ERR_PROVIDER;
            } else if (seam_result_add_chunk(e->acc, c) != SEAM_ERR_NOMEM) {
                /* A chunk the accumulator could not keep for want of memory
                 * would make the turn's record (and the next request) differ
                 * from what was streamed: the run ends instead. A malformed
                 * chunk (SEAM_ERR_INVALID) is the provider's, kept as far as it
                 * goes. */
                e->chunk_step = e->gen->n_steps;
                *chunk = c;
                return 1;
            } else
                rc = SEAM_ERR_NOMEM;
        }
        int fired = watchdog_stop(e->wd);
        e->wd = NULL;
        const seam_result *theirs = seam_stream_result(e->cur);
        if (seam_result_set_origin(e->acc, seam_result_provider(theirs), seam_result_model(theirs)) ==
                SEAM_ERR_NOMEM &&
            rc == SEAM_OK)
            rc = SEAM_ERR_NOMEM;
        if (rc == SEAM_ERR_NOMEM) {
            seam_error_clear(&x);
            seam_error_set(&x, SEAM_ERROR_UNKNOWN, "out of memory");
        }
        if (seam_result_incomplete(theirs))
            seam_result_set_incomplete(e->acc, 1);
        seam_stream_free(e->cur);
        e->cur = NULL;
        seam_result *res = e->acc;
        e->acc = NULL;
        if (rc == SEAM_OK) {
            finish_turn(e, res);
            continue;
        }
        if (fired && x.kind == SEAM_ERROR_CANCELLED && !seam_cancel_triggered(e->cancel)) {
            seam_error_clear(&x);
            seam_error_set(&x, SEAM_ERROR_TIMEOUT, "no content within the first-content deadline (%lld ms)",
                           (long long)e->first_ms);
        }
        explain_timeout(e, &x);
        fail_turn(e, res, rc, &x);
    }
}

/* ---- public entry points -------------------------------------------------------------------------- */

void seam_loop_options_init(seam_loop_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->max_tool_rounds = SEAM_DEFAULT_TOOL_ROUNDS;
}

int seam_loop_generate(seam_client *client, const seam_request *req, const seam_loop_options *opts,
                       seam_generation **out, seam_error *err)
{
    if (!out)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "no place for the result"), SEAM_ERR_INVALID;
    *out = NULL;
    engine *e = NULL;
    int rc = engine_new(client, req, opts, 0, &e, err);
    if (rc != SEAM_OK)
        return rc;
    while (!e->done)
        blocking_turn(e);
    rc = e->status;
    if (rc != SEAM_OK && err)
        *err = e->gen->error;
    *out = e->gen;
    e->gen = NULL;
    engine_free(e);
    return rc;
}

struct seam_loop_stream {
    engine *e;
};

int seam_loop_stream_open(seam_client *client, const seam_request *req, const seam_loop_options *opts,
                          seam_loop_stream **out, seam_error *err)
{
    if (!out)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "no place for the stream"), SEAM_ERR_INVALID;
    *out = NULL;
    seam_loop_stream *s = calloc(1, sizeof *s);
    if (!s)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    int rc = engine_new(client, req, opts, 1, &s->e, err);
    if (rc != SEAM_OK) {
        free(s);
        return rc;
    }
    *out = s;
    return SEAM_OK;
}

int seam_loop_stream_next(seam_loop_stream *s, const seam_chunk **chunk, seam_error *err)
{
    if (!s || !chunk)
        return SEAM_ERR_INVALID;
    return engine_next(s->e, chunk, err);
}

int seam_loop_stream_next_text(seam_loop_stream *s, const char **text, seam_error *err)
{
    if (!s || !text)
        return SEAM_ERR_INVALID;
    *text = NULL;
    for (;;) {
        const seam_chunk *c;
        int rc = engine_next(s->e, &c, err);
        if (rc != 1)
            return rc;
        if (c->type == SEAM_CHUNK_TEXT_DELTA && c->text) {
            *text = c->text;
            return 1;
        }
    }
}

size_t seam_loop_stream_step(const seam_loop_stream *s)
{
    return s ? s->e->chunk_step : 0;
}

const seam_generation *seam_loop_stream_generation(const seam_loop_stream *s)
{
    return s ? s->e->gen : NULL;
}

void seam_loop_stream_free(seam_loop_stream *s)
{
    if (!s)
        return;
    engine_free(s->e);
    free(s);
}
