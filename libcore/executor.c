/* executor.c — the agent executor: runs the agent loop over a session and
 * hands out what happens as events (response, tool_call, tool_result,
 * context_compressed, done, error). Each iteration is one model turn through
 * the session (its retry policy and settings); the turn's calls go to the
 * registered tool handlers (can_handle/handle) or the toolset's callbacks, all
 * at once on worker threads; their results go back as one tool message. A
 * handler may pause the run for a person: the session then remembers the
 * pending call and seam_executor_resume() continues with the answer. After
 * each turn the context engine may compress the history; the default one keeps
 * the first and last messages and replaces the middle by a summary made with
 * auxiliary(), a single turn without tools. The role factory builds a session
 * or executor on the chain the conf's `roles` names.
 *
 * The executor's memory is the session's history, a conversation state
 * (history.c): every change a run makes is an operation on it (ADD for
 * answers and results, UPDATE for a resumed call's result, COMPACT for the
 * default compression). A run's settings (tools, iterations, send options,
 * a deadline for the whole run, what a failing tool does) come from the
 * executor unless the run's options give their own. */
#include "config.h"
#include "internal.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ITERATIONS 10
#define DEFAULT_KEEP_FIRST 1
#define DEFAULT_KEEP_LAST 4

struct seam_run;

struct seam_executor {
    seam_session *session;
    int owns_session;
    const seam_toolset *tools;
    int max_iterations;
    int max_parallel;
    seam_context_engine engine;
    int has_engine;
    int64_t compress_at;
    size_t keep_first, keep_last;
    seam_send_options send;
    seam_tool_handler *handlers;
    size_t n_handlers;
    struct seam_run *current;    /* the run in progress: auxiliary usage is added to it */
};

const char *seam_event_kind_name(seam_event_kind k)
{
    switch (k) {
    case SEAM_EVENT_RESPONSE: return "response";
    case SEAM_EVENT_TOOL_CALL: return "tool_call";
    case SEAM_EVENT_TOOL_RESULT: return "tool_result";
    case SEAM_EVENT_CONTEXT_COMPRESSED: return "context_compressed";
    case SEAM_EVENT_DONE: return "done";
    case SEAM_EVENT_ERROR: return "error";
    }
    return "unknown";
}

/* ---- the default context engine ------------------------------------------------------------ */

static int64_t default_estimate(void *ud, const seam_session *s)
{
    (void)ud;
    /* The chain's context-window skip counts with the same function
     * (tokens.c): one estimate for every budget decision. */
    int64_t tokens = 0;
    for (size_t i = 0; i < seam_session_history_count(s); i++)
        tokens += seam_tokens_message(seam_session_history_at(s, i));
    return tokens;
}

static int default_should(void *ud, const seam_session *s, int64_t tokens)
{
    (void)s;
    seam_executor *ex = ud;
    return ex->compress_at > 0 && tokens >= ex->compress_at;
}

/* Appends a plain-text rendering of m to b, for the summarizer. */
static int render_message(seam_buf *b, const seam_message *m)
{
    const char *role = seam_message_role(m) == SEAM_ROLE_USER        ? "user"
                       : seam_message_role(m) == SEAM_ROLE_ASSISTANT ? "assistant"
                                                                     : "tool";
    int rc = SEAM_OK;
    for (size_t i = 0; rc == SEAM_OK && i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        switch (seam_part_get_type(p)) {
        case SEAM_PART_TEXT:
            rc = seam_buf_printf(b, "%s: %s\n", role, seam_part_text(p));
            break;
        case SEAM_PART_TOOL_CALL:
            rc = seam_buf_printf(b, "%s called %s(%s)\n", role, seam_part_tool_name(p),
                                 seam_part_args_json(p));
            break;
        case SEAM_PART_TOOL_RESULT:
            rc = seam_buf_printf(b, "tool %s %s: %s\n",
                                 seam_part_tool_name(p) ? seam_part_tool_name(p) : "",
                                 seam_part_is_error(p) ? "failed" : "returned",
                                 seam_part_result_json(p));
            break;
        case SEAM_PART_MEDIA:
            rc = seam_buf_printf(b, "%s: [%s attachment]\n", role, seam_part_mime_type(p));
            break;
        default: /* reasoning is not carried into a summary */
            break;
        }
    }
    return rc;
}

static const char summarizer_system[] =
    "You compress conversations for an assistant that will continue them. Write a concise "
    "summary of the conversation part you are given: keep every fact, decision, number, name "
    "and open task, and the results of tool calls. Answer with the summary only.";

static int default_compress(void *ud, seam_executor *ex, seam_session *s, seam_error *err)
{
    (void)ud;
    size_t n = seam_session_history_count(s);
    size_t head = ex->keep_first, tail = n > ex->keep_last ? n - ex->keep_last : 0;
    /* Never separate a tool call from its results: a kept tail starts at the
     * assistant message whose calls it answers, a kept head takes the results
     * of its last calls with it. */
    while (tail > head && seam_message_role(seam_session_history_at(s, tail)) == SEAM_ROLE_TOOL)
        tail--;
    while (head < tail && seam_message_role(seam_session_history_at(s, head)) == SEAM_ROLE_TOOL)
        head++;
    if (head >= tail || n == 0)
        return SEAM_OK;

    seam_buf transcript = { 0 };
    int rc = seam_buf_puts(&transcript, "Summarize this part of a conversation:\n\n");
    for (size_t i = head; rc == SEAM_OK && i < tail; i++)
        rc = render_message(&transcript, seam_session_history_at(s, i));
    seam_request *req = rc == SEAM_OK ? seam_request_new() : NULL;
    if (rc == SEAM_OK && req) {
        rc = seam_request_set_system(req, summarizer_system);
        if (rc == SEAM_OK)
            rc = seam_request_add_user_text(req, transcript.data);
    } else if (rc == SEAM_OK) {
        rc = SEAM_ERR_NOMEM;
    }
    seam_buf_free(&transcript);
    seam_result *res = NULL;
    if (rc == SEAM_OK)
        rc = seam_executor_auxiliary(ex, req, NULL, &res, err);
    else
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
    seam_request_free(req);
    if (rc != SEAM_OK)
        return rc;

    /* The middle becomes one item: a COMPACT of the history. */
    seam_history *h = seam_session_history(s);
    seam_message *summary = seam_message_new(SEAM_ROLE_USER);
    uint64_t *ids = calloc(tail - head, sizeof *ids);
    seam_buf text = { 0 };
    rc = h && summary && ids ? SEAM_OK : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK)
        rc = seam_buf_printf(&text, "Summary of the earlier conversation:\n%s", seam_result_text(res));
    if (rc == SEAM_OK)
        rc = seam_message_add_text(summary, text.data);
    if (rc == SEAM_OK) {
        for (size_t i = head; i < tail; i++)
            ids[i - head] = seam_history_item_id(h, i);
        seam_op compact = { .kind = SEAM_OP_COMPACT, .ids = ids, .n_ids = tail - head,
                            .message = summary };
        rc = seam_session_apply(s, &compact, 1, NULL, err);
    } else {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory while compressing the history");
    }
    seam_buf_free(&text);
    free(ids);
    seam_message_free(summary);
    seam_history_free(h);
    seam_result_free(res);
    return rc;
}

/* ---- executors ------------------------------------------------------------------------------ */

int seam_executor_new(seam_session *session, const seam_executor_options *opts, seam_executor **out,
                      seam_error *err)
{
    seam_error_clear(err);
    if (!session || !out)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    *out = NULL;
    if (opts && opts->size < sizeof(uint32_t))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "seam_executor_options.size is not set"),
               SEAM_ERR_INVALID;
    seam_executor_options o = { 0 };
    if (opts)
        memcpy(&o, opts, opts->size < sizeof o ? opts->size : sizeof o);
    if (o.max_iterations < 0)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "max_iterations must not be negative"),
               SEAM_ERR_INVALID;
    if (o.context && (o.context->size < sizeof(uint32_t) || !o.context->compress))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "the context engine has no compress"),
               SEAM_ERR_INVALID;
    if (o.send && o.send->size < sizeof(uint32_t))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "seam_send_options.size is not set"),
               SEAM_ERR_INVALID;
    seam_executor *ex = calloc(1, sizeof *ex);
    if (!ex)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    ex->session = session;
    ex->tools = o.tools;
    ex->max_iterations = o.max_iterations > 0 ? o.max_iterations : DEFAULT_ITERATIONS;
    ex->max_parallel = o.max_parallel_tools;
    ex->compress_at = o.compress_at_tokens;
    ex->keep_first = o.keep_first > 0 ? o.keep_first : DEFAULT_KEEP_FIRST;
    ex->keep_last = o.keep_last > 0 ? o.keep_last : DEFAULT_KEEP_LAST;
    if (o.send)
        memcpy(&ex->send, o.send, o.send->size < sizeof ex->send ? o.send->size : sizeof ex->send);
    ex->send.size = sizeof ex->send;
    if (o.context) {
        memcpy(&ex->engine, o.context,
               o.context->size < sizeof ex->engine ? o.context->size : sizeof ex->engine);
        ex->has_engine = 1;
    } else if (o.compress_at_tokens > 0) {
        ex->engine = (seam_context_engine){ sizeof ex->engine, default_should, default_compress,
                                            default_estimate, ex };
        ex->has_engine = 1;
    }
    *out = ex;
    return SEAM_OK;
}

int seam_executor_new_for_role(seam_client *client, const char *role,
                               const seam_session_options *session_opts,
                               const seam_executor_options *opts, seam_executor **out,
                               seam_error *err)
{
    if (out)
        *out = NULL;
    seam_session *s = NULL;
    int rc = seam_session_new_for_role(client, role, session_opts, &s, err);
    if (rc != SEAM_OK)
        return rc;
    rc = seam_executor_new(s, opts, out, err);
    if (rc != SEAM_OK) {
        seam_session_free(s);
        return rc;
    }
    (*out)->owns_session = 1;
    return SEAM_OK;
}

void seam_executor_free(seam_executor *ex)
{
    if (!ex)
        return;
    if (ex->owns_session)
        seam_session_free(ex->session);
    free(ex->handlers);
    free(ex);
}

seam_session *seam_executor_session(seam_executor *ex)
{
    return ex ? ex->session : NULL;
}

int seam_executor_add_handler(seam_executor *ex, const seam_tool_handler *h)
{
    if (!ex || !h || h->size < sizeof(uint32_t))
        return SEAM_ERR_INVALID;
    seam_tool_handler copy = { 0 };
    memcpy(&copy, h, h->size < sizeof copy ? h->size : sizeof copy);
    if (!copy.can_handle || !copy.handle)
        return SEAM_ERR_INVALID;
    seam_tool_handler *v = realloc(ex->handlers, (ex->n_handlers + 1) * sizeof *v);
    if (!v)
        return SEAM_ERR_NOMEM;
    ex->handlers = v;
    ex->handlers[ex->n_handlers++] = copy;
    return SEAM_OK;
}

/* ---- runs ------------------------------------------------------------------------------------- */

typedef enum run_state {
    R_TURN,
    R_RESPONSE,
    R_CALLS,
    R_RESULTS,
    R_COMPRESS,
    R_DONE,
    R_FAILED,
    R_END
} run_state;

struct seam_run {
    seam_executor *ex;
    seam_cancel *cancel;
    /* This run's settings: its options' or the executor's. */
    const seam_toolset *tools;
    int max_iterations;
    int max_parallel;
    seam_send_options send;
    int64_t timeout_ms;
    int64_t deadline_ms;         /* seam_now_ms clock; 0: none */
    seam_tool_errors tool_errors;
    run_state state;
    run_state after_compress;    /* R_TURN or R_DONE */
    int iteration;               /* turns made */
    seam_result *res;            /* the last turn */
    const seam_part **calls;
    size_t n_calls, k;
    seam_tool_job *jobs;
    long paused;                 /* index of the paused job, -1 none */
    seam_usage usage;
    const char *reason;
    seam_event ev;
    int status;
    seam_error err;
    int tools_failed;            /* the tool runner was interrupted: err holds why */
    long failing;                /* END_RUN: the first call that failed, -1 none */
    char *thread_id;             /* the history's when the run started */
};


static void release_turn(seam_run *r)
{
    for (size_t i = 0; r->jobs && i < r->n_calls; i++)
        seam_tool_job_release(&r->jobs[i]);
    free(r->jobs);
    r->jobs = NULL;
    free(r->calls);
    r->calls = NULL;
    r->n_calls = r->k = 0;
    seam_result_free(r->res);
    r->res = NULL;
}

void seam_run_free(seam_run *r)
{
    if (!r)
        return;
    release_turn(r);
    if (r->ex && r->ex->current == r)
        r->ex->current = NULL;
    free(r->thread_id);
    free(r);
}

/* The run's options, checked and with the executor's settings filled in. */
static int run_options(const seam_executor *ex, const seam_run_options *opts, seam_run_options *o,
                       seam_error *err)
{
    memset(o, 0, sizeof *o);
    if (opts && opts->size < sizeof(uint32_t))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "seam_run_options.size is not set"),
               SEAM_ERR_INVALID;
    if (opts)
        memcpy(o, opts, opts->size < sizeof *o ? opts->size : sizeof *o);
    o->size = sizeof *o;
    const char *bad = NULL;
    if (o->max_iterations < 0)
        bad = "max_iterations must not be negative";
    else if (o->max_parallel_tools < 0)
        bad = "max_parallel_tools must not be negative";
    else if (o->timeout_ms < 0)
        bad = "timeout_ms must not be negative";
    else if (o->tool_errors != SEAM_TOOL_ERRORS_AS_RESULTS && o->tool_errors != SEAM_TOOL_ERRORS_END_RUN)
        bad = "tool_errors is not a seam_tool_errors value";
    else if (o->send && o->send->size < sizeof(uint32_t))
        bad = "seam_send_options.size is not set";
    if (bad)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "%s", bad), SEAM_ERR_INVALID;
    if (!o->tools)
        o->tools = ex->tools;
    if (o->max_iterations == 0)
        o->max_iterations = ex->max_iterations;
    if (o->max_parallel_tools == 0)
        o->max_parallel_tools = ex->max_parallel;
    return SEAM_OK;
}

static int run_create(seam_executor *ex, const seam_run_options *o, seam_run **out, seam_error *err)
{
    seam_run *r = calloc(1, sizeof *r);
    if (!r)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    r->ex = ex;
    r->thread_id = seam_strdup(seam_session_thread_id(ex->session));
    if (!r->thread_id) {
        free(r);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    }
    r->send = ex->send;
    if (o->send) {
        memset(&r->send, 0, sizeof r->send);
        memcpy(&r->send, o->send, o->send->size < sizeof r->send ? o->send->size : sizeof r->send);
    }
    r->send.size = sizeof r->send;
    r->cancel = o->cancel ? o->cancel : r->send.cancel;
    r->send.cancel = r->cancel;
    r->tools = o->tools;
    r->max_iterations = o->max_iterations;
    r->max_parallel = o->max_parallel_tools;
    r->timeout_ms = o->timeout_ms;
    r->deadline_ms = o->timeout_ms > 0 ? seam_now_ms() + o->timeout_ms : 0;
    r->tool_errors = o->tool_errors;
    r->state = R_TURN;
    r->paused = -1;
    r->failing = -1;
    seam_error_clear(&r->err);
    *out = r;
    return SEAM_OK;
}

int seam_executor_run_messages(seam_executor *ex, const seam_message *const *messages, size_t n,
                               const seam_run_options *opts, seam_run **out, seam_error *err)
{
    seam_error_clear(err);
    if (!ex || !out || (n > 0 && !messages))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    *out = NULL;
    seam_run_options o;
    int rc = run_options(ex, opts, &o, err);
    if (rc != SEAM_OK)
        return rc;
    if (seam_session_pending_call(ex->session, NULL, NULL))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                              "the session waits for a person's answer: resume it"),
               SEAM_ERR_INVALID;
    if (n > 0) {
        seam_op *ops = calloc(n, sizeof *ops);
        if (!ops)
            return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
        for (size_t i = 0; i < n; i++)
            ops[i] = (seam_op){ .kind = SEAM_OP_ADD, .message = messages[i] };
        size_t failed = 0;
        rc = seam_session_apply(ex->session, ops, n, &failed, err);
        free(ops);
        if (rc != SEAM_OK)
            return rc;
    }
    if (seam_session_history_count(ex->session) == 0)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "nothing to run: no input and no history"),
               SEAM_ERR_INVALID;
    return run_create(ex, &o, out, err);
}

int seam_executor_run(seam_executor *ex, const char *input, seam_cancel *cancel, seam_run **out,
                      seam_error *err)
{
    seam_error_clear(err);
    if (!ex || !out)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    *out = NULL;
    seam_run_options o = { .size = sizeof o, .cancel = cancel };
    if (!input)
        return seam_executor_run_messages(ex, NULL, 0, &o, out, err);
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    int rc = m ? seam_message_add_text(m, input) : SEAM_ERR_NOMEM;
    if (rc != SEAM_OK) {
        seam_message_free(m);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), rc;
    }
    const seam_message *one[1] = { m };
    rc = seam_executor_run_messages(ex, one, 1, &o, out, err);
    seam_message_free(m);
    return rc;
}

int seam_executor_resume(seam_executor *ex, const char *answer, seam_cancel *cancel, seam_run **out,
                         seam_error *err)
{
    seam_run_options o = { .size = sizeof o, .cancel = cancel };
    return seam_executor_resume_with(ex, answer, &o, out, err);
}

int seam_executor_resume_with(seam_executor *ex, const char *answer, const seam_run_options *opts,
                              seam_run **out, seam_error *err)
{
    seam_error_clear(err);
    if (!ex || !out || !answer)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    *out = NULL;
    seam_run_options ro;
    int orc = run_options(ex, opts, &ro, err);
    if (orc != SEAM_OK)
        return orc;
    const char *name = NULL;
    const char *id = seam_session_pending_call(ex->session, &name, NULL);
    if (!id)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "no call waits for an answer"),
               SEAM_ERR_INVALID;
    char *quoted = seam_json_quote(answer);
    if (!quoted)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    /* The answer joins the other results of its turn, one tool message: an
     * UPDATE of that message, or an ADD when the turn had no other result. */
    seam_history *h = seam_session_history(ex->session);
    size_t n = seam_history_count(h);
    const seam_message *last = n ? seam_history_message(h, n - 1) : NULL;
    int update = last && seam_message_role(last) == SEAM_ROLE_TOOL;
    seam_message *m = update ? seam_message_dup(last) : seam_message_new(SEAM_ROLE_TOOL);
    int rc = h && m ? seam_message_add_tool_result(m, id, name, quoted, 0) : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK) {
        seam_op op = { .kind = update ? SEAM_OP_UPDATE : SEAM_OP_ADD,
                       .id = update ? seam_history_item_id(h, n - 1) : 0, .message = m };
        rc = seam_session_apply(ex->session, &op, 1, NULL, NULL);
    }
    seam_message_free(m);
    seam_history_free(h);
    free(quoted);
    if (rc == SEAM_OK)
        rc = seam_session_set_pending(ex->session, NULL, NULL, NULL);
    if (rc != SEAM_OK)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), rc;
    return run_create(ex, &ro, out, err);
}

int seam_executor_auxiliary(seam_executor *ex, const seam_request *req, const seam_send_options *o,
                            seam_result **out, seam_error *err)
{
    if (!ex || !req || !out)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    /* Inside a run, the run's send options and deadline. */
    seam_run *run = ex->current;
    seam_send_options so = run ? run->send : ex->send;
    if (o)
        memcpy(&so, o, o->size < sizeof so ? o->size : sizeof so);
    so.size = sizeof so;
    so.tools = NULL; /* a side call: no tool loop, no tools offered */
    if (!so.cancel && run)
        so.cancel = run->cancel;
    int rc = seam_session_send_by(ex->session, req, &so, run ? run->deadline_ms : 0, out, err);
    if (rc == SEAM_OK && ex->current)
        seam_usage_add(&ex->current->usage, seam_result_usage(*out));
    return rc;
}

/* The run's error event; the run then ends with status. */
static int run_fail(seam_run *r, int status, const seam_error *x, int iteration)
{
    r->status = status < 0 ? status : SEAM_ERR_PROVIDER;
    r->err = *x;
    r->ev = (seam_event){ .kind = SEAM_EVENT_ERROR, .iteration = iteration, .error = &r->err };
    r->state = R_FAILED;
    return 1;
}

/* 1 when the run's deadline has passed (a few ms early counts: a transfer
 * cut at its timeout ends about then). */
static int past_deadline(const seam_run *r, int64_t slack_ms)
{
    return r->deadline_ms > 0 && seam_now_ms() >= r->deadline_ms - slack_ms;
}

/* An error the run's deadline caused says so. */
static void explain_deadline(const seam_run *r, seam_error *x)
{
    if (x->kind != SEAM_ERROR_TIMEOUT || !past_deadline(r, 20))
        return;
    char why[sizeof x->message];
    snprintf(why, sizeof why, "the run's deadline (%lld ms) passed", (long long)r->timeout_ms);
    if (strstr(x->message, why) == NULL) {
        char full[sizeof x->message + sizeof why + 2];
        snprintf(full, sizeof full, "%s: %s", why, x->message);
        seam_strlcpy(x->message, full, sizeof x->message);
    }
}

static int do_turn(seam_run *r)
{
    seam_executor *ex = r->ex;
    release_turn(r);
    seam_error x;
    seam_error_clear(&x);
    if (seam_cancel_triggered(r->cancel)) {
        seam_error_set(&x, SEAM_ERROR_CANCELLED, "cancelled");
        return run_fail(r, SEAM_ERR_PROVIDER, &x, r->iteration);
    }
    if (past_deadline(r, 0)) {
        seam_error_set(&x, SEAM_ERROR_TIMEOUT, "the run's deadline (%lld ms) passed",
                       (long long)r->timeout_ms);
        return run_fail(r, SEAM_ERR_PROVIDER, &x, r->iteration);
    }
    seam_send_options so = r->send;
    so.size = sizeof so;
    so.tools = r->tools;
    so.cancel = r->cancel;
    int rc = seam_session_send_by(ex->session, NULL, &so, r->deadline_ms, &r->res, &x);
    int iteration = r->iteration++;
    if (rc != SEAM_OK) {
        explain_deadline(r, &x);
        return run_fail(r, rc, &x, iteration);
    }
    seam_usage_add(&r->usage, seam_result_usage(r->res));
    const seam_message *m = seam_result_message(r->res);
    size_t parts = seam_message_part_count(m);
    r->calls = calloc(parts ? parts : 1, sizeof *r->calls);
    if (!r->calls) {
        seam_error_set(&x, SEAM_ERROR_UNKNOWN, "out of memory");
        return run_fail(r, SEAM_ERR_NOMEM, &x, iteration);
    }
    for (size_t i = 0; i < parts; i++) {
        const seam_part *p = seam_message_part(m, i);
        if (seam_part_get_type(p) == SEAM_PART_TOOL_CALL && !seam_part_provider_executed(p))
            r->calls[r->n_calls++] = p;
    }
    r->ev = (seam_event){ .kind = SEAM_EVENT_RESPONSE, .iteration = iteration, .response = r->res };
    r->state = R_RESPONSE;
    return 1;
}

static const seam_tool_handler *find_handler(const seam_executor *ex, const char *name)
{
    for (size_t i = 0; name && i < ex->n_handlers; i++)
        if (ex->handlers[i].can_handle(ex->handlers[i].ud, name))
            return &ex->handlers[i];
    return NULL;
}

/* Resolves every call of the turn and runs them together. */
static int run_tools(seam_run *r)
{
    seam_executor *ex = r->ex;
    seam_error x;
    seam_error_clear(&x);
    r->jobs = calloc(r->n_calls, sizeof *r->jobs);
    if (!r->jobs) {
        seam_error_set(&x, SEAM_ERROR_UNKNOWN, "out of memory");
        return run_fail(r, SEAM_ERR_NOMEM, &x, r->iteration - 1);
    }
    for (size_t i = 0; i < r->n_calls; i++) {
        seam_tool_job *j = &r->jobs[i];
        j->id = seam_part_tool_call_id(r->calls[i]);
        j->name = seam_part_tool_name(r->calls[i]);
        j->args_json = seam_part_args_json(r->calls[i]);
        j->can_pause = 1;
        const seam_tool_handler *h = find_handler(ex, j->name);
        seam_tool_fn fn = NULL;
        const seam_compiled_schema *schema = NULL;
        int defined = seam_toolset_find(r->tools, j->name, &fn, NULL, &schema);
        int prep = SEAM_OK;
        if (h) {
            char why[512];
            prep = schema ? seam_compiled_schema_validate(schema, j->args_json, why, sizeof why)
                          : SEAM_OK;
            if (prep == SEAM_ERR_INVALID) {
                prep = seam_tool_job_fail(j, "Invalid arguments for tool %s: %s", j->name, why);
            } else if (prep == SEAM_OK) {
                j->fn = h->handle;
                j->ud = h->ud;
            }
        } else if (defined && !fn) {
            prep = seam_tool_job_fail(j, "no handler for tool %s", j->name);
        } else {
            prep = seam_tool_job_prepare(j, r->tools);
        }
        if (prep == SEAM_ERR_NOMEM) {
            /* Running out of memory is not a verdict on the arguments. */
            seam_error_set(&x, SEAM_ERROR_UNKNOWN, "out of memory");
            return run_fail(r, SEAM_ERR_NOMEM, &x, r->iteration - 1);
        }
    }
    int rc = seam_tools_run(r->jobs, r->n_calls, r->max_parallel, r->cancel, r->deadline_ms,
                            r->iteration - 1, &x);
    if (rc != SEAM_OK) {
        if (x.kind == SEAM_ERROR_TIMEOUT && r->deadline_ms > 0)
            seam_error_set(&x, SEAM_ERROR_TIMEOUT,
                           "the run's deadline (%lld ms) passed while tools were running",
                           (long long)r->timeout_ms);
        r->tools_failed = 1;
        r->err = x;
        r->status = rc;
    }
    /* A failing call that ends the run: nobody is asked to wait for a person
     * in a run that ends now, so a pause becomes an error result too. */
    long failing = -1;
    for (size_t i = 0; r->tool_errors == SEAM_TOOL_ERRORS_END_RUN && i < r->n_calls && failing < 0; i++)
        if (!r->jobs[i].paused && r->jobs[i].is_error)
            failing = (long)i;
    for (size_t i = 0; failing >= 0 && i < r->n_calls; i++) {
        if (r->jobs[i].paused) {
            r->jobs[i].paused = 0;
            seam_tool_job_fail(&r->jobs[i], "the run ended: tool %s failed", r->jobs[failing].name);
        }
    }
    r->failing = failing;
    /* One person at a time: later pauses of the same turn become errors. */
    for (size_t i = 0; i < r->n_calls; i++) {
        if (!r->jobs[i].paused)
            continue;
        if (r->paused < 0 && !r->tools_failed) {
            r->paused = (long)i;
        } else {
            r->jobs[i].paused = 0;
            seam_tool_job_fail(&r->jobs[i], "tool %s cannot wait for a person now", r->jobs[i].name);
        }
    }
    r->k = 0;
    r->state = R_RESULTS;
    return 0;
}

/* SEAM_TOOL_ERRORS_END_RUN: the error event naming the failed call, its
 * message the result's text (the result is a JSON string for every error the
 * library makes; other JSON goes verbatim). */
static int tool_error_fail(seam_run *r, const seam_tool_job *j)
{
    seam_error x;
    seam_error_clear(&x);
    const char *json = j->result_json ? j->result_json : "null";
    json_object *v = NULL;
    const char *text = json;
    if (seam_json_parse(json, JSON_TOKENER_STRICT, SEAM_JSON_MAX_DEPTH, &v) == SEAM_OK &&
        json_object_is_type(v, json_type_string))
        text = json_object_get_string(v);
    seam_error_set(&x, SEAM_ERROR_UNKNOWN, "tool %s (call %s) failed: %s", j->name ? j->name : "",
                   j->id ? j->id : "", text);
    json_object_put(v);
    seam_strlcpy(x.code, "tool_error", sizeof x.code);
    return run_fail(r, SEAM_ERR_PROVIDER, &x, r->iteration - 1);
}

/* After the last result event: the turn's results go into the history. */
static int finish_round(seam_run *r)
{
    seam_executor *ex = r->ex;
    seam_error x;
    seam_error_clear(&x);
    seam_message *m = seam_message_new(SEAM_ROLE_TOOL);
    int rc = m ? SEAM_OK : SEAM_ERR_NOMEM;
    for (size_t i = 0; rc == SEAM_OK && i < r->n_calls; i++) {
        const seam_tool_job *j = &r->jobs[i];
        if ((long)i == r->paused)
            continue;
        rc = seam_message_add_tool_result(m, j->id, j->name, j->result_json ? j->result_json : "null",
                                          j->is_error);
    }
    if (rc == SEAM_OK && seam_message_part_count(m) > 0)
        rc = seam_session_append(ex->session, m);
    seam_message_free(m);
    if (rc == SEAM_OK && r->paused >= 0) {
        const seam_tool_job *j = &r->jobs[r->paused];
        rc = seam_session_set_pending(ex->session, j->id, j->name, j->pause_prompt);
    }
    if (rc != SEAM_OK) {
        seam_error_set(&x, SEAM_ERROR_UNKNOWN, "out of memory");
        return run_fail(r, rc, &x, r->iteration - 1);
    }
    if (r->tools_failed) {
        x = r->err;
        return run_fail(r, r->status, &x, r->iteration - 1);
    }
    if (r->failing >= 0)
        return tool_error_fail(r, &r->jobs[r->failing]);
    if (r->paused >= 0) {
        r->reason = "paused";
        r->state = R_DONE; /* the history waits for an answer: no compression now */
    } else {
        r->after_compress = r->iteration >= r->max_iterations ? R_DONE : R_TURN;
        if (r->after_compress == R_DONE)
            r->reason = "max_iterations";
        r->state = R_COMPRESS;
    }
    return 0;
}

/* 1 with a context_compressed event, 0 when nothing was compressed. */
static int maybe_compress(seam_run *r)
{
    seam_executor *ex = r->ex;
    r->state = r->after_compress;
    if (!ex->has_engine)
        return 0;
    seam_session *s = ex->session;
    int64_t before = ex->engine.estimate_tokens ? ex->engine.estimate_tokens(ex->engine.ud, s)
                                                : default_estimate(NULL, s);
    if (ex->engine.should_compress && !ex->engine.should_compress(ex->engine.ud, s, before))
        return 0;
    size_t count_before = seam_session_history_count(s);
    seam_error x;
    seam_error_clear(&x);
    int rc = ex->engine.compress(ex->engine.ud, ex, s, &x);
    if (rc != SEAM_OK) {
        if (x.kind == SEAM_ERROR_NONE)
            seam_error_set(&x, SEAM_ERROR_UNKNOWN, "the context engine failed");
        explain_deadline(r, &x);
        return run_fail(r, rc, &x, r->iteration - 1);
    }
    int64_t after = ex->engine.estimate_tokens ? ex->engine.estimate_tokens(ex->engine.ud, s)
                                               : default_estimate(NULL, s);
    if (after == before && seam_session_history_count(s) == count_before)
        return 0;
    r->ev = (seam_event){ .kind = SEAM_EVENT_CONTEXT_COMPRESSED, .iteration = r->iteration - 1,
                          .tokens_before = before, .tokens_after = after };
    return 1;
}

static int run_step(seam_run *r, const seam_event **event, seam_error *err);

int seam_run_next(seam_run *r, const seam_event **event, seam_error *err)
{
    if (!r || !event)
        return SEAM_ERR_INVALID;
    int rc = run_step(r, event, err);
    if (rc == 1)
        r->ev.thread_id = r->thread_id;
    return rc;
}

static int run_step(seam_run *r, const seam_event **event, seam_error *err)
{
    *event = NULL;
    r->ex->current = r;
    for (;;) {
        switch (r->state) {
        case R_TURN:
            if (do_turn(r)) {
                *event = &r->ev;
                if (r->state == R_FAILED)
                    r->state = R_END;
                return 1;
            }
            break;
        case R_RESPONSE:
            if (r->n_calls == 0) {
                r->reason = "stop";
                r->after_compress = R_DONE;
                r->state = R_COMPRESS;
            } else {
                r->k = 0;
                r->state = R_CALLS;
            }
            break;
        case R_CALLS:
            if (r->k < r->n_calls) {
                const seam_part *p = r->calls[r->k++];
                r->ev = (seam_event){ .kind = SEAM_EVENT_TOOL_CALL, .iteration = r->iteration - 1,
                                      .tool_call_id = seam_part_tool_call_id(p),
                                      .tool_name = seam_part_tool_name(p),
                                      .args_json = seam_part_args_json(p) };
                *event = &r->ev;
                return 1;
            }
            if (run_tools(r)) {
                *event = &r->ev;
                r->state = R_END;
                return 1;
            }
            break;
        case R_RESULTS:
            while (r->k < r->n_calls && (long)r->k == r->paused)
                r->k++;
            if (r->k < r->n_calls) {
                const seam_tool_job *j = &r->jobs[r->k++];
                r->ev = (seam_event){ .kind = SEAM_EVENT_TOOL_RESULT, .iteration = r->iteration - 1,
                                      .tool_call_id = j->id, .tool_name = j->name,
                                      .result_json = j->result_json ? j->result_json : "null",
                                      .is_error = j->is_error };
                *event = &r->ev;
                return 1;
            }
            if (finish_round(r)) {
                *event = &r->ev;
                r->state = R_END;
                return 1;
            }
            break;
        case R_COMPRESS:
            if (maybe_compress(r)) {
                *event = &r->ev;
                if (r->state == R_FAILED)
                    r->state = R_END;
                return 1;
            }
            break;
        case R_DONE: {
            const char *pending = NULL, *prompt = NULL;
            if (r->paused >= 0)
                pending = seam_session_pending_call(r->ex->session, NULL, &prompt);
            r->ev = (seam_event){ .kind = SEAM_EVENT_DONE, .iteration = r->iteration - 1,
                                  .usage = &r->usage, .iterations = r->iteration,
                                  .reason = r->reason ? r->reason : "stop",
                                  .pending_call_id = pending, .prompt = prompt };
            r->status = SEAM_OK;
            r->state = R_END;
            *event = &r->ev;
            return 1;
        }
        case R_FAILED:
            r->state = R_END;
            *event = &r->ev;
            return 1;
        case R_END:
            if (r->status != SEAM_OK && err)
                *err = r->err;
            r->ex->current = NULL;
            return r->status;
        }
    }
}
