/* tools.c — client tools: a tool's output (what its callback fills), tool
 * sets (active tools with a callback, passive ones without, each schema's
 * patterns compiled once) and the tool runner (every call of a turn on its own
 * worker thread, all joined, cancel and deadline passed on to the tools). The
 * tool loop (loop.c) and the executor (executor.c) run tools through it. */
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

int seam_request_defines_tool(const seam_request *req, const char *name)
{
    for (size_t i = 0; req && name && i < seam_request_tool_count(req); i++)
        if (strcmp(seam_request_tool_name(req, i), name) == 0)
            return 1;
    return 0;
}

int seam_toolset_add_to_request(const seam_toolset *ts, seam_request *req)
{
    for (size_t i = 0; ts && i < ts->n; i++) {
        if (seam_request_defines_tool(req, ts->v[i].name))
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
