/* loop.c — generation with the automatic tool loop: tool sets (active tools
 * with a callback, passive ones without), the tool runner (every call of a
 * turn on its own worker thread, all joined, cancel and deadline passed on to
 * the tools), the generation and step records, and the engine behind
 * seam_loop_generate and seam_loop_stream_*: send a turn, run its calls (an
 * unknown tool, arguments that fail the schema and a failing tool all become
 * is_error results), send every result back in one continuation request,
 * until the model answers, a passive tool is called, the rounds run out, or a
 * cancel or deadline ends the run. The total and per-turn deadlines are
 * enforced by the transport (the call's timeout); the first-content deadline of
 * a stream by a watchdog thread that cancels the turn's transfer. */
#include "config.h"
#include "internal.h"
#include "transport.h"

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

/* ---- tool output --------------------------------------------------------------------- */

struct seam_tool_output {
    char *json;        /* the result as JSON text */
    int is_error;
    char *error;       /* the error message */
    int can_pause;
    int paused;
    char *prompt;
    int nomem;         /* a setter ran out of memory: the run ends so */
};

char *seam_json_quote(const char *text)
{
    json_object *s = json_object_new_string(text ? text : "");
    if (!s)
        return NULL;
    char *q = seam_json_print(s, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    json_object_put(s);
    return q;
}

int seam_tool_output_json(seam_tool_output *out, const char *json)
{
    if (!out || !json)
        return SEAM_ERR_INVALID;
    int rc = seam_json_check(json, 0);
    char *copy = rc == SEAM_OK ? strdup(json) : NULL;
    if (rc == SEAM_OK && !copy)
        rc = SEAM_ERR_NOMEM;
    if (rc == SEAM_ERR_NOMEM)
        out->nomem = 1;
    if (rc != SEAM_OK)
        return rc;
    free(out->json);
    out->json = copy;
    return SEAM_OK;
}

int seam_tool_output_text(seam_tool_output *out, const char *text)
{
    if (!out || !text)
        return SEAM_ERR_INVALID;
    char *q = seam_json_quote(text);
    if (!q)
        return out->nomem = 1, SEAM_ERR_NOMEM;
    free(out->json);
    out->json = q;
    return SEAM_OK;
}

int seam_tool_output_error(seam_tool_output *out, const char *fmt, ...)
{
    if (!out || !fmt)
        return SEAM_ERR_INVALID;
    char *msg = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    out->is_error = 1;
    if (n < 0)
        return out->nomem = 1, SEAM_ERR_NOMEM;
    free(out->error);
    out->error = msg;
    return SEAM_OK;
}

int seam_tool_output_pause(seam_tool_output *out, const char *prompt)
{
    if (!out || !out->can_pause)
        return SEAM_ERR_INVALID;
    char *p = NULL;
    if (prompt && !(p = strdup(prompt)))
        return out->nomem = 1, SEAM_ERR_NOMEM;
    free(out->prompt);
    out->prompt = p;
    out->paused = 1;
    return SEAM_OK;
}

/* ---- tool sets -------------------------------------------------------------------------- */

typedef struct tool_entry {
    char *name;
    char *description;
    char *schema;        /* NULL: not validated */
    seam_compiled_schema *compiled; /* schema's patterns, compiled once */
    seam_tool_fn fn;     /* NULL: passive */
    void *ud;
} tool_entry;

struct seam_toolset {
    tool_entry *v;
    size_t n, cap;
};

seam_toolset *seam_toolset_new(void)
{
    return calloc(1, sizeof(seam_toolset));
}

void seam_toolset_free(seam_toolset *ts)
{
    if (!ts)
        return;
    for (size_t i = 0; i < ts->n; i++) {
        free(ts->v[i].name);
        free(ts->v[i].description);
        free(ts->v[i].schema);
        seam_compiled_schema_free(ts->v[i].compiled);
    }
    free(ts->v);
    free(ts);
}

static const tool_entry *find_tool(const seam_toolset *ts, const char *name)
{
    for (size_t i = 0; ts && name && i < ts->n; i++)
        if (strcmp(ts->v[i].name, name) == 0)
            return &ts->v[i];
    return NULL;
}

int seam_toolset_add(seam_toolset *ts, const char *name, const char *description,
                     const char *parameters_json, seam_tool_fn execute, void *ud)
{
    if (!ts || !name || !*name || find_tool(ts, name))
        return SEAM_ERR_INVALID;
    int rc = parameters_json ? seam_json_check(parameters_json, 1) : SEAM_OK;
    if (rc != SEAM_OK)
        return rc;
    if (ts->n == ts->cap) {
        size_t cap = ts->cap ? ts->cap * 2 : 8;
        tool_entry *v = realloc(ts->v, cap * sizeof *v);
        if (!v)
            return SEAM_ERR_NOMEM;
        ts->v = v;
        ts->cap = cap;
    }
    /* The patterns are compiled now, once: a pattern PCRE2 refuses makes the
     * definition invalid rather than a check that never runs. */
    seam_compiled_schema *compiled = NULL;
    if (parameters_json) {
        rc = seam_compiled_schema_new(parameters_json, &compiled, NULL, 0);
        if (rc != SEAM_OK)
            return rc;
    }
    tool_entry e = { strdup(name), seam_strdup(description), seam_strdup(parameters_json),
                     compiled, execute, ud };
    if (!e.name || (description && !e.description) || (parameters_json && !e.schema)) {
        free(e.name);
        free(e.description);
        free(e.schema);
        seam_compiled_schema_free(compiled);
        return SEAM_ERR_NOMEM;
    }
    ts->v[ts->n++] = e;
    return SEAM_OK;
}

size_t seam_toolset_count(const seam_toolset *ts)
{
    return ts ? ts->n : 0;
}

const char *seam_toolset_name(const seam_toolset *ts, size_t i)
{
    return ts && i < ts->n ? ts->v[i].name : NULL;
}

int seam_toolset_find(const seam_toolset *ts, const char *name, seam_tool_fn *fn, void **ud,
                      const seam_compiled_schema **schema)
{
    const tool_entry *e = find_tool(ts, name);
    if (!e)
        return 0;
    if (fn)
        *fn = e->fn;
    if (ud)
        *ud = e->ud;
    if (schema)
        *schema = e->compiled;
    return 1;
}

static int request_defines_tool(const seam_request *req, const char *name)
{
    for (size_t i = 0; req && name && i < seam_request_tool_count(req); i++)
        if (strcmp(seam_request_tool_name(req, i), name) == 0)
            return 1;
    return 0;
}

int seam_toolset_add_to_request(const seam_toolset *ts, seam_request *req)
{
    for (size_t i = 0; ts && i < ts->n; i++) {
        if (request_defines_tool(req, ts->v[i].name))
            continue;
        int rc = seam_request_add_tool(req, ts->v[i].name, ts->v[i].description, ts->v[i].schema);
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}

/* ---- the tool runner ------------------------------------------------------------------------ */

int seam_tool_job_fail(seam_tool_job *job, const char *fmt, ...)
{
    char *msg = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    job->fn = NULL;
    job->is_error = 1;
    free(job->result_json);
    job->result_json = n >= 0 ? seam_json_quote(msg) : NULL;
    free(msg);
    return job->result_json ? SEAM_OK : SEAM_ERR_NOMEM;
}

int seam_tool_job_prepare(seam_tool_job *job, const seam_toolset *ts)
{
    seam_tool_fn fn = NULL;
    void *ud = NULL;
    const seam_compiled_schema *schema = NULL;
    if (!seam_toolset_find(ts, job->name, &fn, &ud, &schema))
        return seam_tool_job_fail(job, "Unknown tool: %s", job->name ? job->name : "(unnamed)");
    if (!fn)
        return 1;
    if (schema) {
        char why[512];
        int rc = seam_compiled_schema_validate(schema, job->args_json ? job->args_json : "{}", why,
                                               sizeof why);
        if (rc == SEAM_ERR_NOMEM)
            return rc;
        if (rc != SEAM_OK)
            return seam_tool_job_fail(job, "Invalid arguments for tool %s: %s", job->name, why);
    }
    job->fn = fn;
    job->ud = ud;
    return 0;
}

void seam_tool_job_release(seam_tool_job *job)
{
    if (!job)
        return;
    free(job->result_json);
    free(job->pause_prompt);
    job->result_json = NULL;
    job->pause_prompt = NULL;
}

typedef struct runner {
    seam_tool_job *jobs;
    size_t n;
    atomic_size_t next;
    seam_cancel *tool_cancel;
    int step;
    int done_pipe[2];
} runner;

static void run_job(runner *r, seam_tool_job *j)
{
    if (!j->fn)
        return; /* an error result set while preparing */
    if (seam_cancel_triggered(r->tool_cancel)) {
        seam_tool_job_fail(j, "tool %s was not run: the run was cancelled", j->name);
        return;
    }
    seam_tool_output out = { .can_pause = j->can_pause };
    seam_tool_call call = { j->id, j->name, j->args_json ? j->args_json : "{}", r->tool_cancel,
                            r->step };
    j->started_ms = seam_now_ms();
    int rc = j->fn(j->ud, &call, &out);
    j->finished_ms = seam_now_ms();
    if (rc == SEAM_ERR_NOMEM || out.nomem) {
        /* No result: seam_tools_run reports the run out of memory rather
         * than hand the model an error it did not cause. */
        j->is_error = 1;
    } else if (out.paused && rc == SEAM_OK && !out.is_error) {
        j->paused = 1;
        j->pause_prompt = out.prompt;
        out.prompt = NULL;
    } else if (rc != SEAM_OK || out.is_error) {
        j->is_error = 1;
        if (out.error)
            j->result_json = seam_json_quote(out.error);
        else if (out.json) {
            j->result_json = out.json;
            out.json = NULL;
        } else {
            char msg[300];
            snprintf(msg, sizeof msg, "tool %s failed", j->name);
            j->result_json = seam_json_quote(msg);
        }
    } else {
        j->result_json = out.json ? out.json : strdup("null");
        out.json = NULL;
    }
    free(out.json);
    free(out.error);
    free(out.prompt);
}

static void *worker_main(void *arg)
{
    runner *r = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&r->next, 1);
        if (i >= r->n)
            break;
        run_job(r, &r->jobs[i]);
    }
    const char b = 1;
    ssize_t w = write(r->done_pipe[1], &b, 1);
    (void)w; /* the pipe holds far more bytes than there are workers */
    return NULL;
}

int seam_tools_run(seam_tool_job *jobs, size_t n, int max_parallel, seam_cancel *cancel,
                   int64_t deadline_ms, int step, seam_error *err)
{
    size_t active = 0;
    for (size_t i = 0; i < n; i++)
        if (jobs[i].fn)
            active++;
    if (active == 0)
        return SEAM_OK;
    runner r = { .jobs = jobs, .n = n, .step = step, .done_pipe = { -1, -1 } };
    atomic_init(&r.next, 0);
    r.tool_cancel = seam_cancel_new();
    if (!r.tool_cancel || pipe2(r.done_pipe, O_CLOEXEC) != 0) {
        seam_cancel_free(r.tool_cancel);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "cannot set up the tool workers"),
               SEAM_ERR_NOMEM;
    }
    size_t want = active;
    if (max_parallel > 0 && (size_t)max_parallel < want)
        want = (size_t)max_parallel;
    pthread_t *threads = calloc(want, sizeof *threads);
    size_t started = 0;
    for (size_t i = 0; threads && i < want; i++) {
        if (pthread_create(&threads[started], NULL, worker_main, &r) != 0)
            break;
        started++;
    }
    /* Not a single worker: run the calls here, one after the other. */
    if (started == 0) {
        char b;
        worker_main(&r);
        ssize_t rd = read(r.done_pipe[0], &b, 1);
        (void)rd;
    }

    seam_error_kind interrupted = SEAM_ERROR_NONE;
    if (seam_cancel_triggered(cancel)) {
        interrupted = SEAM_ERROR_CANCELLED;
        seam_cancel_trigger(r.tool_cancel);
    }
    size_t exited = 0;
    while (exited < started) {
        int timeout = -1;
        if (deadline_ms > 0 && interrupted == SEAM_ERROR_NONE) {
            int64_t left = deadline_ms - seam_now_ms();
            if (left <= 0) {
                interrupted = SEAM_ERROR_TIMEOUT;
                seam_cancel_trigger(r.tool_cancel);
                continue;
            }
            timeout = left > 1000000 ? 1000000 : (int)left;
        }
        struct pollfd pfd[2] = {
            { r.done_pipe[0], POLLIN, 0 },
            { interrupted == SEAM_ERROR_NONE ? seam_cancel_fd(cancel) : -1, POLLIN, 0 },
        };
        int rc = poll(pfd, 2, timeout);
        if (rc < 0 && errno != EINTR)
            break; /* cannot wait: fall through to the joins, which wait anyway */
        if (rc > 0 && (pfd[0].revents & POLLIN)) {
            char buf[64];
            ssize_t got = read(r.done_pipe[0], buf, sizeof buf);
            if (got > 0)
                exited += (size_t)got;
        }
        if (interrupted == SEAM_ERROR_NONE && seam_cancel_triggered(cancel)) {
            interrupted = SEAM_ERROR_CANCELLED;
            seam_cancel_trigger(r.tool_cancel);
        }
    }
    for (size_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    close(r.done_pipe[0]);
    close(r.done_pipe[1]);
    seam_cancel_free(r.tool_cancel);

    int rc = SEAM_OK;
    for (size_t i = 0; i < n; i++)
        if (!jobs[i].result_json && !jobs[i].paused)
            rc = SEAM_ERR_NOMEM;
    if (interrupted == SEAM_ERROR_CANCELLED)
        return seam_error_set(err, SEAM_ERROR_CANCELLED, "cancelled while tools were running");
    if (interrupted == SEAM_ERROR_TIMEOUT)
        return seam_error_set(err, SEAM_ERROR_TIMEOUT, "the run's deadline passed while tools were running");
    if (rc != SEAM_OK)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory while running tools");
    return rc;
}

/* ---- generations and steps -------------------------------------------------------------------- */

struct seam_step {
    seam_result *result;
    const seam_part **calls;     /* the client tool calls of the result (borrowed parts) */
    size_t n_calls;
    seam_message *tool_results;  /* role tool; NULL when no call was run */
    seam_usage usage;
};

struct seam_generation {
    seam_step **steps;
    size_t n_steps, cap_steps;
    seam_usage usage;
    seam_message **added;
    size_t n_added, cap_added;
    int pending;                 /* the last step's calls were left for the caller */
    int has_error;
    seam_error error;
};

static void step_free(seam_step *s)
{
    if (!s)
        return;
    seam_result_free(s->result);
    free(s->calls);
    seam_message_free(s->tool_results);
    free(s);
}

void seam_generation_free(seam_generation *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n_steps; i++)
        step_free(g->steps[i]);
    free(g->steps);
    for (size_t i = 0; i < g->n_added; i++)
        seam_message_free(g->added[i]);
    free(g->added);
    free(g);
}

static seam_generation *generation_new(void)
{
    seam_generation *g = calloc(1, sizeof *g);
    if (g)
        seam_error_clear(&g->error);
    return g;
}

/* Takes res. The step's calls are the result's tool calls the client must run. */
static int generation_add_step(seam_generation *g, seam_result *res, seam_step **out)
{
    seam_step *s = calloc(1, sizeof *s);
    if (!s) {
        seam_result_free(res);
        return SEAM_ERR_NOMEM;
    }
    s->result = res;
    const seam_message *m = seam_result_message(res);
    size_t parts = seam_message_part_count(m);
    s->calls = calloc(parts ? parts : 1, sizeof *s->calls);
    if (!s->calls) {
        step_free(s);
        return SEAM_ERR_NOMEM;
    }
    for (size_t i = 0; i < parts; i++) {
        const seam_part *p = seam_message_part(m, i);
        if (seam_part_get_type(p) == SEAM_PART_TOOL_CALL && !seam_part_provider_executed(p))
            s->calls[s->n_calls++] = p;
    }
    s->usage = *seam_result_usage(res);
    if (g->n_steps == g->cap_steps) {
        size_t cap = g->cap_steps ? g->cap_steps * 2 : 4;
        seam_step **v = realloc(g->steps, cap * sizeof *v);
        if (!v) {
            step_free(s);
            return SEAM_ERR_NOMEM;
        }
        g->steps = v;
        g->cap_steps = cap;
    }
    g->steps[g->n_steps++] = s;
    seam_usage_add(&g->usage, &s->usage);
    *out = s;
    return SEAM_OK;
}

/* Records a copy of msg among the messages the run added. */
static int generation_add_message(seam_generation *g, const seam_message *msg)
{
    if (g->n_added == g->cap_added) {
        size_t cap = g->cap_added ? g->cap_added * 2 : 8;
        seam_message **v = realloc(g->added, cap * sizeof *v);
        if (!v)
            return SEAM_ERR_NOMEM;
        g->added = v;
        g->cap_added = cap;
    }
    seam_message *copy = seam_message_dup(msg);
    if (!copy)
        return SEAM_ERR_NOMEM;
    g->added[g->n_added++] = copy;
    return SEAM_OK;
}

const seam_result *seam_generation_response(const seam_generation *g)
{
    return g && g->n_steps ? g->steps[g->n_steps - 1]->result : NULL;
}

const char *seam_generation_text(const seam_generation *g)
{
    const seam_result *r = seam_generation_response(g);
    return r ? seam_result_text(r) : "";
}

const seam_usage *seam_generation_usage(const seam_generation *g)
{
    static const seam_usage none;
    return g ? &g->usage : &none;
}

size_t seam_generation_tool_call_count(const seam_generation *g)
{
    return g && g->pending && g->n_steps ? g->steps[g->n_steps - 1]->n_calls : 0;
}

const seam_part *seam_generation_tool_call(const seam_generation *g, size_t i)
{
    return i < seam_generation_tool_call_count(g) ? g->steps[g->n_steps - 1]->calls[i] : NULL;
}

size_t seam_generation_step_count(const seam_generation *g)
{
    return g ? g->n_steps : 0;
}

const seam_step *seam_generation_step(const seam_generation *g, size_t i)
{
    return g && i < g->n_steps ? g->steps[i] : NULL;
}

size_t seam_generation_message_count(const seam_generation *g)
{
    return g ? g->n_added : 0;
}

const seam_message *seam_generation_message(const seam_generation *g, size_t i)
{
    return g && i < g->n_added ? g->added[i] : NULL;
}

const seam_error *seam_generation_error(const seam_generation *g)
{
    return g && g->has_error ? &g->error : NULL;
}

const seam_result *seam_step_result(const seam_step *s)
{
    return s ? s->result : NULL;
}

size_t seam_step_tool_call_count(const seam_step *s)
{
    return s ? s->n_calls : 0;
}

const seam_part *seam_step_tool_call(const seam_step *s, size_t i)
{
    return s && i < s->n_calls ? s->calls[i] : NULL;
}

size_t seam_step_tool_result_count(const seam_step *s)
{
    return s && s->tool_results ? seam_message_part_count(s->tool_results) : 0;
}

const seam_part *seam_step_tool_result(const seam_step *s, size_t i)
{
    return s && s->tool_results ? seam_message_part(s->tool_results, i) : NULL;
}

const seam_usage *seam_step_usage(const seam_step *s)
{
    static const seam_usage none;
    return s ? &s->usage : &none;
}

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
        e->gen = generation_new();
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
        generation_add_step(e->gen, res, &st);
    }
    return engine_fail(e, status, x);
}

/* A turn ended well: record it, run its tools or end the run. Takes res. */
static int finish_turn(engine *e, seam_result *res)
{
    seam_step *st = NULL;
    int rc = generation_add_step(e->gen, res, &st);
    if (rc != SEAM_OK)
        return engine_fail(e, rc, NULL);
    size_t index = e->gen->n_steps - 1;
    const seam_message *assistant = seam_result_message(st->result);
    seam_message *copy = seam_message_dup(assistant);
    if (!copy || seam_request_add_message(e->conv, copy) != SEAM_OK) {
        seam_message_free(copy);
        return engine_fail(e, SEAM_ERR_NOMEM, NULL);
    }
    if (generation_add_message(e->gen, assistant) != SEAM_OK)
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
        int defined_by_request = request_defines_tool(e->conv, jobs[i].name) &&
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
    if (generation_add_message(e->gen, results) != SEAM_OK)
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
