/* test_executor.c — the agent executor through the real loader and the mock
 * plugin: each event kind in order (response, tool_call, tool_result,
 * context_compressed, done, error with its iteration), max_iterations, tool
 * handlers (can_handle/handle, precedence, a declared tool nobody handles),
 * pause for a person and resume from the session (also by another executor),
 * the default context engine (summary through auxiliary) and a custom one,
 * the role factory, and the two-tool agent of doc/generate.md compiled and
 * run against a conf chain. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <seam/seam.h>

#ifndef SEAM_SAN_CFLAGS
#define SEAM_SAN_CFLAGS ""
#endif

static seam_client *client; /* m1, m2 (mock); chains default (m1), second (m2); roles */

/* ---- helpers ---------------------------------------------------------------------- */

static int start(void)
{
    client = tu_client_at_end(tu_clientf(
        TU_CONF_TWO_MOCKS("")
        /* $1 per million input tokens, $2 per million output tokens */
        "models = ( { id = \"mock-1\"; price = { input = 100000000L; output = 200000000L; }; } );\n"));
    return client ? 0 : -1;
}

static int tool_now(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    (void)call;
    return seam_tool_output_text(out, "noon");
}

static seam_toolset *two_tools(void)
{
    seam_toolset *ts = seam_toolset_new();
    seam_toolset_add(ts, "add", "Adds", tu_add_schema, tu_tool_add, NULL);
    seam_toolset_add(ts, "now", "The time", NULL, tool_now, NULL);
    return ts;
}

/* A session on the default chain whose every call carries this mock script. */
static seam_session *scripted_session(const char *script)
{
    seam_request *defaults = seam_request_new();
    if (script)
        seam_request_set_provider_options(defaults, script);
    seam_session_options o = { .size = sizeof o, .defaults = defaults };
    seam_session *s = tu_session(client, &o);
    seam_request_free(defaults);
    return s;
}

/* What most tests run: a scripted session, two_tools plus the tools
 * `declared` lists ({ name, description } pairs ending with { NULL }) that no
 * callback serves, and an executor over them with the options of eo
 * (its tools the toolset). */
typedef struct agent {
    seam_session *s;
    seam_toolset *ts;
    seam_executor_options eo;
    seam_executor *ex;
} agent;

static agent agent_of(const char *script, const char *const (*declared)[2], seam_executor_options eo)
{
    agent a = { .s = scripted_session(script), .ts = two_tools(), .eo = eo };
    for (; declared && (*declared)[0]; declared++)
        seam_toolset_add(a.ts, (*declared)[0], (*declared)[1], NULL, NULL, NULL);
    a.eo.size = sizeof a.eo;
    a.eo.tools = a.ts;
    a.ex = tu_executor(a.s, &a.eo);
    return a;
}

static void agent_free(agent *a)
{
    seam_executor_free(a->ex);
    seam_toolset_free(a->ts);
    seam_session_free(a->s);
}

/* Runs to the end, tracing every event: "kind(detail)" joined by spaces. */
typedef struct trace {
    char text[4096];
    int status;
    seam_error err;
    seam_usage usage;
    int iterations;
    char reason[32];
    char pending[64];
    char prompt[128];
    int64_t before, after;
    int error_iteration;
} trace;

static void run_all(seam_run *run, trace *t)
{
    memset(t, 0, sizeof *t);
    t->error_iteration = -1;
    const seam_event *ev;
    int rc;
    while ((rc = seam_run_next(run, &ev, &t->err)) == 1) {
        tu_event_append(t->text, sizeof t->text, ev);
        switch (ev->kind) {
        case SEAM_EVENT_CONTEXT_COMPRESSED:
            t->before = ev->tokens_before;
            t->after = ev->tokens_after;
            break;
        case SEAM_EVENT_DONE:
            t->usage = *ev->usage;
            t->iterations = ev->iterations;
            snprintf(t->reason, sizeof t->reason, "%s", ev->reason);
            snprintf(t->pending, sizeof t->pending, "%s", ev->pending_call_id ? ev->pending_call_id : "");
            snprintf(t->prompt, sizeof t->prompt, "%s", ev->prompt ? ev->prompt : "");
            break;
        case SEAM_EVENT_ERROR:
            t->error_iteration = ev->iteration;
            break;
        default:
            break;
        }
    }
    t->status = rc;
}

static void run_input(seam_executor *ex, const char *input, trace *t)
{
    seam_run *run = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_executor_run(ex, input, NULL, &run, &err), SEAM_OK);
    run_all(run, t);
    seam_run_free(run);
}

/* ---- events -------------------------------------------------------------------------- */

static void test_events_in_order(void)
{
    agent a = agent_of(
        "{\"replies\":[{\"reply\":\"Checking.\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"add\",\"args\":{\"a\":2,\"b\":3}},"
        "{\"id\":\"c2\",\"name\":\"now\"}],\"usage\":{\"input_tokens\":10,\"output_tokens\":4}},"
        "{\"reply\":\"5, at noon.\",\"usage\":{\"input_tokens\":30,\"output_tokens\":3}}]}",
        NULL, (seam_executor_options){ 0 });
    trace t;
    run_input(a.ex, "add 2 and 3, and the time", &t);
    CU_ASSERT_EQUAL(t.status, 0);
    CU_ASSERT_STRING_EQUAL(t.text, "response0(Checking.) call0(add {\"a\":2,\"b\":3}) call0(now {}) "
                                   "result0(add=5) result0(now=\"noon\") response1(5, at noon.) done(stop)");
    CU_ASSERT_EQUAL(t.iterations, 2);
    /* The cost is summed too: 40 x 100 + 7 x 200 micro-cents. */
    TU_ASSERT_USAGE(&t.usage, .present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT | SEAM_USAGE_COST,
                    .input_tokens = 40, .output_tokens = 7, .cost_microcents = 5400);
    /* user, assistant (calls), tool (both results), assistant */
    CU_ASSERT_EQUAL(seam_session_history_count(a.s), 4);
    const seam_message *tool = seam_session_history_at(a.s, 2);
    CU_ASSERT_EQUAL(seam_message_role(tool), SEAM_ROLE_TOOL);
    CU_ASSERT_EQUAL(seam_message_part_count(tool), 2);
    CU_ASSERT_STRING_EQUAL(seam_event_kind_name(SEAM_EVENT_CONTEXT_COMPRESSED), "context_compressed");
    agent_free(&a);
}

static void test_error_events(void)
{
    /* Fails on the first turn. */
    seam_session *s = scripted_session("{\"error_status\":400,"
                                       "\"error_body\":\"{\\\"error\\\":{\\\"type\\\":\\\"bad_request\\\",\\\"message\\\":\\\"no\\\"}}\"}");
    seam_executor *ex = tu_executor(s, NULL);
    trace t;
    run_input(ex, "hi", &t);
    CU_ASSERT_STRING_EQUAL(t.text, "error0(bad_request)");
    CU_ASSERT_EQUAL(t.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(t.err.kind, SEAM_ERROR_BAD_REQUEST);
    seam_executor_free(ex);
    seam_session_free(s);

    /* Fails on the second turn: the error carries iteration 1. */
    agent a = agent_of("{\"replies\":[{\"reply\":\"\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"now\"}]},"
                       "{\"error_status\":503}]}",
                       NULL, (seam_executor_options){ 0 });
    run_input(a.ex, "hi", &t);
    CU_ASSERT_STRING_EQUAL(t.text, "response0() call0(now {}) result0(now=\"noon\") error1(overloaded)");
    CU_ASSERT_EQUAL(t.error_iteration, 1);
    CU_ASSERT_EQUAL(t.status, SEAM_ERR_PROVIDER);
    seam_executor_free(a.ex);

    /* A cancelled run: an error event, kind cancelled. */
    a.ex = tu_executor(a.s, &a.eo);
    seam_cancel *cancel = seam_cancel_new();
    seam_cancel_trigger(cancel);
    seam_run *run = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_executor_run(a.ex, "again", cancel, &run, &err), SEAM_OK);
    run_all(run, &t);
    CU_ASSERT_STRING_EQUAL(t.text, "error0(cancelled)");
    seam_run_free(run);
    seam_cancel_free(cancel);
    agent_free(&a);
}

static void test_max_iterations(void)
{
    agent a = agent_of("{\"reply\":\"\",\"tool_calls\":[{\"id\":\"c\",\"name\":\"now\"}]}", NULL,
                       (seam_executor_options){ .max_iterations = 2 });
    trace t;
    run_input(a.ex, "forever", &t);
    CU_ASSERT_EQUAL(t.status, 0);
    CU_ASSERT_STRING_EQUAL(t.reason, "max_iterations");
    CU_ASSERT_EQUAL(t.iterations, 2);
    CU_ASSERT_STRING_EQUAL(t.text, "response0() call0(now {}) result0(now=\"noon\") "
                                   "response1() call1(now {}) result1(now=\"noon\") done(max_iterations)");
    /* The last turn's results are in the history: it stays well-formed. */
    CU_ASSERT_EQUAL(seam_message_role(seam_session_history_at(a.s, seam_session_history_count(a.s) - 1)),
                    SEAM_ROLE_TOOL);
    agent_free(&a);
}

/* ---- handlers, pause and resume ---------------------------------------------------------- */

typedef struct desk {
    int lookups;
    int asked;
} desk;

static int desk_can_handle(void *ud, const char *name)
{
    (void)ud;
    return strcmp(name, "lookup") == 0 || strcmp(name, "ask_user") == 0 || strcmp(name, "now") == 0;
}

static int desk_handle(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    desk *d = ud;
    if (strcmp(call->name, "ask_user") == 0) {
        d->asked++;
        json_object *args = json_tokener_parse(call->args_json), *q = NULL;
        json_object_object_get_ex(args, "question", &q);
        int rc = seam_tool_output_pause(out, q ? json_object_get_string(q) : "?");
        json_object_put(args);
        return rc;
    }
    if (strcmp(call->name, "now") == 0)
        return seam_tool_output_text(out, "handler time");
    d->lookups++;
    return seam_tool_output_json(out, "{\"population\":709000}");
}

/* The handler of desk d: lookup and now. */
static seam_tool_handler desk_handler(desk *d)
{
    seam_tool_handler h = { .size = sizeof h, .can_handle = desk_can_handle, .handle = desk_handle, .ud = d };
    return h;
}

static void test_handlers(void)
{
    agent a = agent_of(
        "{\"replies\":[{\"reply\":\"\",\"tool_calls\":[{\"id\":\"l1\",\"name\":\"lookup\",\"args\":{\"city\":\"Oslo\"}},"
        "{\"id\":\"n1\",\"name\":\"now\"},{\"id\":\"x1\",\"name\":\"declared\"},{\"id\":\"u1\",\"name\":\"nope\"}]},"
        "{\"reply\":\"done\"}]}",
        (const char *const[][2]){ { "lookup", "Looks up a city" }, { "declared", "Nobody serves this" }, { NULL } },
        (seam_executor_options){ 0 });
    desk d = { 0 };
    seam_tool_handler h = desk_handler(&d);
    CU_ASSERT_EQUAL(seam_executor_add_handler(a.ex, &h), SEAM_OK);
    seam_tool_handler bad = { .size = sizeof bad };
    CU_ASSERT_EQUAL(seam_executor_add_handler(a.ex, &bad), SEAM_ERR_INVALID);
    trace t;
    run_input(a.ex, "tell me about Oslo", &t);
    CU_ASSERT_EQUAL(t.status, 0);
    CU_ASSERT_EQUAL(d.lookups, 1);
    /* The handler wins over the toolset's callback for "now". */
    CU_ASSERT_PTR_NOT_NULL(strstr(t.text, "result0(lookup={\"population\":709000})"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.text, "result0(now=\"handler time\")"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.text, "result0(declared=\"no handler for tool declared\" error)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.text, "result0(nope=\"Unknown tool: nope\" error)"));
    CU_ASSERT_STRING_EQUAL(t.reason, "stop");
    agent_free(&a);
}

/* A session whose model calls ask_user (question) and add, then answers "Blue
 * it is, and 3."; an executor over it with two_tools, ask_user (no callback)
 * and the desk's handler; run with "pick for me", which pauses on ask_user. */
typedef struct paused {
    agent a;
    desk d;
    seam_tool_handler h;
    trace t;
} paused;

static void pause_on(paused *p, const char *question)
{
    char script[512];
    snprintf(script, sizeof script,
             "{\"replies\":[{\"reply\":\"\",\"tool_calls\":["
             "{\"id\":\"q1\",\"name\":\"ask_user\",\"args\":{\"question\":\"%s\"}},"
             "{\"id\":\"a1\",\"name\":\"add\",\"args\":{\"a\":1,\"b\":2}}]},"
             "{\"reply\":\"Blue it is, and 3.\"}]}",
             question);
    p->a = agent_of(script, (const char *const[][2]){ { "ask_user", "Asks the user" }, { NULL } },
                    (seam_executor_options){ 0 });
    p->d = (desk){ 0 };
    p->h = desk_handler(&p->d);
    seam_executor_add_handler(p->a.ex, &p->h);
    run_input(p->a.ex, "pick for me", &p->t);
}

static void test_pause_and_resume(void)
{
    paused p;
    pause_on(&p, "Favourite colour?");
    seam_error err;
    CU_ASSERT_EQUAL(p.t.status, 0);
    CU_ASSERT_STRING_EQUAL(p.t.text, "response0() call0(ask_user {\"question\":\"Favourite colour?\"}) "
                                     "call0(add {\"a\":1,\"b\":2}) result0(add=3) done(paused)");
    CU_ASSERT_STRING_EQUAL(p.t.pending, "q1");
    CU_ASSERT_STRING_EQUAL(p.t.prompt, "Favourite colour?");
    const char *name = NULL, *prompt = NULL;
    CU_ASSERT_STRING_EQUAL(seam_session_pending_call(p.a.s, &name, &prompt), "q1");
    CU_ASSERT_STRING_EQUAL(name, "ask_user");
    CU_ASSERT_STRING_EQUAL(prompt, "Favourite colour?");
    /* Waiting: a new run is refused. */
    seam_run *run = NULL;
    CU_ASSERT_EQUAL(seam_executor_run(p.a.ex, "hello?", NULL, &run, &err), SEAM_ERR_INVALID);
    seam_executor_free(p.a.ex);

    /* Resumed later, by another executor over the same session. */
    p.a.ex = tu_executor(p.a.s, &p.a.eo);
    seam_executor_add_handler(p.a.ex, &p.h);
    CU_ASSERT_EQUAL_FATAL(seam_executor_resume(p.a.ex, "blue", NULL, &run, &err), SEAM_OK);
    run_all(run, &p.t);
    seam_run_free(run);
    CU_ASSERT_EQUAL(p.t.status, 0);
    CU_ASSERT_STRING_EQUAL(p.t.text, "response0(Blue it is, and 3.) done(stop)");
    /* Nothing waits any more. */
    CU_ASSERT_EQUAL(seam_executor_resume(p.a.ex, "blue", NULL, &run, &err), SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NULL(run);
    agent_free(&p.a);
}

/* The answer joins the other results of its turn, in one tool message. */
static void test_resume_answer_lands_with_its_turn(void)
{
    paused p;
    pause_on(&p, "Colour?");
    CU_ASSERT_STRING_EQUAL(p.t.reason, "paused");
    seam_run *run = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_executor_resume(p.a.ex, "blue", NULL, &run, &err), SEAM_OK);
    CU_ASSERT_PTR_NULL(seam_session_pending_call(p.a.s, NULL, NULL));
    run_all(run, &p.t);
    seam_run_free(run);
    CU_ASSERT_EQUAL(p.t.status, 0);
    CU_ASSERT_STRING_EQUAL(p.t.text, "response0(Blue it is, and 3.) done(stop)");
    /* user, assistant (2 calls), tool (add and the answer, together), assistant */
    CU_ASSERT_EQUAL_FATAL(seam_session_history_count(p.a.s), 4);
    const seam_message *tool = seam_session_history_at(p.a.s, 2);
    CU_ASSERT_EQUAL(seam_message_role(tool), SEAM_ROLE_TOOL);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(tool), 2);
    CU_ASSERT_STRING_EQUAL(seam_part_tool_call_id(seam_message_part(tool, 1)), "q1");
    CU_ASSERT_STRING_EQUAL(seam_part_result_json(seam_message_part(tool, 1)), "\"blue\"");
    CU_ASSERT_EQUAL(p.d.asked, 1);
    agent_free(&p.a);
}

/* ---- context engines ------------------------------------------------------------------------ */

static void test_default_compression(void)
{
    /* The mock answers replies[n] for n assistant messages: the summary request
     * (no assistant message) gets replies[0], the run's turn replies[2]. */
    seam_session *s = scripted_session("{\"replies\":[{\"reply\":\"SUMMARY: asked twice, answered twice.\","
                                       "\"usage\":{\"input_tokens\":50,\"output_tokens\":6}},"
                                       "{\"reply\":\"unused\"},"
                                       "{\"reply\":\"final answer\",\"usage\":{\"input_tokens\":80,\"output_tokens\":2}}]}");
    const char *seed[4] = { "first question", "first answer", "second question", "second answer" };
    for (int i = 0; i < 4; i++) {
        seam_message *m = seam_message_new(i % 2 ? SEAM_ROLE_ASSISTANT : SEAM_ROLE_USER);
        seam_message_add_text(m, seed[i]);
        if (i > 0) /* a long middle, worth compressing */
            for (int k = 0; k < 20; k++)
                seam_message_add_text(m, " and more words to make this message long");
        seam_session_append(s, m);
        seam_message_free(m);
    }
    seam_executor_options eo = { .size = sizeof eo, .compress_at_tokens = 1, .keep_first = 1, .keep_last = 2 };
    seam_executor *ex = tu_executor(s, &eo);
    trace t;
    run_input(ex, "third question", &t);
    CU_ASSERT_EQUAL(t.status, 0);
    CU_ASSERT_STRING_EQUAL(t.text, "response0(final answer) compressed0 done(stop)");
    CU_ASSERT(t.before > t.after && t.after > 0);
    /* first question | summary | third question, final answer */
    CU_ASSERT_EQUAL_FATAL(seam_session_history_count(s), 4);
    CU_ASSERT_STRING_EQUAL(seam_message_text(seam_session_history_at(s, 0)), "first question");
    CU_ASSERT_STRING_EQUAL(seam_message_text(seam_session_history_at(s, 1)),
                           "Summary of the earlier conversation:\nSUMMARY: asked twice, answered twice.");
    CU_ASSERT_STRING_EQUAL(seam_message_text(seam_session_history_at(s, 2)), "third question");
    CU_ASSERT_STRING_EQUAL(seam_message_text(seam_session_history_at(s, 3)), "final answer");
    /* The summary's usage counts toward the run. */
    CU_ASSERT_EQUAL(t.usage.input_tokens, 130);
    CU_ASSERT_EQUAL(t.usage.output_tokens, 8);
    seam_executor_free(ex);
    seam_session_free(s);
}

typedef struct engine_log {
    int should, compress;
} engine_log;

static int64_t count_tokens(void *ud, const seam_session *s)
{
    (void)ud;
    return (int64_t)seam_session_history_count(s) * 100;
}

static int should_when_long(void *ud, const seam_session *s, int64_t tokens)
{
    (void)s;
    engine_log *l = ud;
    l->should++;
    return tokens >= 400;
}

static int drop_middle(void *ud, seam_executor *ex, seam_session *s, seam_error *err)
{
    (void)ex;
    (void)err;
    engine_log *l = ud;
    l->compress++;
    seam_session_truncate(s, 1, 1);
    return SEAM_OK;
}

static void test_custom_engine(void)
{
    engine_log l = { 0 };
    seam_context_engine eng = { .size = sizeof eng, .should_compress = should_when_long,
                                .compress = drop_middle, .estimate_tokens = count_tokens, .ud = &l };
    agent a = agent_of("{\"reply\":\"\",\"tool_calls\":[{\"id\":\"c\",\"name\":\"now\"}]}", NULL,
                       (seam_executor_options){ .context = &eng, .max_iterations = 2 });
    trace t;
    run_input(a.ex, "go", &t);
    /* After turn 0: 3 messages (300, no). After turn 1: 5 (500): compressed to 2. */
    CU_ASSERT_EQUAL(l.should, 2);
    CU_ASSERT_EQUAL(l.compress, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(t.text, "result1(now=\"noon\") compressed1 done(max_iterations)"));
    CU_ASSERT_EQUAL(t.before, 500);
    CU_ASSERT_EQUAL(t.after, 200);

    seam_context_engine broken = { .size = sizeof broken };
    seam_executor_options bo = { .size = sizeof bo, .context = &broken };
    seam_executor *ex = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_executor_new(a.s, &bo, &ex, &err), SEAM_ERR_INVALID);
    agent_free(&a);
}

/* ---- factory and auxiliary --------------------------------------------------------------------- */

static void test_role_factory_and_auxiliary(void)
{
    seam_executor *ex = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_executor_new_for_role(client, "planner", NULL, NULL, &ex, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_session_chain(seam_executor_session(ex)), "second");
    trace t;
    run_input(ex, "plan", &t);
    CU_ASSERT_STRING_EQUAL(t.text, "response0(from m2) done(stop)");

    size_t before = seam_session_history_count(seam_executor_session(ex));
    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "summarize");
    seam_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_executor_auxiliary(ex, req, NULL, &r, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_result_text(r), "from m2");
    CU_ASSERT_EQUAL(seam_session_history_count(seam_executor_session(ex)), before);
    seam_result_free(r);
    seam_request_free(req);
    seam_executor_free(ex);

    CU_ASSERT_EQUAL(seam_executor_new_for_role(client, "nobody", NULL, NULL, &ex, &err), SEAM_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NULL(ex);
    /* Nothing to run. */
    seam_session *s = scripted_session(NULL);
    ex = tu_executor(s, NULL);
    seam_run *run = NULL;
    CU_ASSERT_EQUAL(seam_executor_run(ex, NULL, NULL, &run, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_executor_resume(ex, "x", NULL, &run, &err), SEAM_ERR_INVALID);
    seam_executor_free(ex);
    seam_session_free(s);
}

/* ---- the documented example ---------------------------------------------------------------------- */

/* Compiles the program after `marker` in doc/generate.md against the built
 * libseam and runs it with a mock conf whose two turns call both tools and
 * then answer; returns its stdout (malloc'ed) or NULL. */
static char *run_doc_program(const char *marker, int max_lines)
{
    char *doc = tu_read_file(TOP_SRCDIR "/doc/generate.md", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const char *at = strstr(doc, marker);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    const char *start = strstr(at, "```c\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(start);
    start += 5;
    const char *end = strstr(start, "\n```");
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);

    char *dir = tu_mkdtemp();
    char *src = tu_path(dir, "agent.c");
    char *bin = tu_path(dir, "agent");
    char *conf = tu_path(dir, "seam.conf");
    char *code = strndup(start, (size_t)(end - start) + 1);
    CU_ASSERT_EQUAL(tu_write_file(src, code), 0);
    /* The program's lines, as the doc promises a short program. */
    int lines = 0;
    for (const char *p = code; *p; p++)
        lines += *p == '\n';
    CU_ASSERT(lines <= max_lines);
    free(code);

    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cc -std=c11 -Wall -Wextra -Werror %s -I'%s/libcore' -o '%s' '%s' -L'%s/.libs' -lseam "
             "-Wl,-rpath,'%s/.libs'",
             SEAM_SAN_CFLAGS, TOP_SRCDIR, bin, src, TOP_BUILDDIR, TOP_BUILDDIR);
    char *out = NULL, *errs = NULL;
    int rc = tu_run(cmd, &out, &errs);
    if (rc != 0)
        fprintf(stderr, "\n%s\n%s\n", cmd, errs ? errs : "");
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    free(out);
    free(errs);

    char text[2048];
    snprintf(text, sizeof text,
             "plugin_path = [ \"%s\" ];\n"
             "providers = { mock = { plugin = \"mock\"; options = { replies = (\n"
             "  { reply = \"\"; tool_calls = ( { id = \"c1\"; name = \"add\"; args = \"{\\\"a\\\":2,\\\"b\\\":3}\"; },\n"
             "                                 { id = \"c2\"; name = \"clock\"; } ); },\n"
             "  { reply = \"2+3 is 5 and it is 12:00.\"; } ); }; }; };\n"
             "chains = { agents = ( { provider = \"mock\"; model = \"mock\"; } ); };\n"
             "roles = { assistant = \"agents\"; };\n",
             tu_plugin_dir());
    CU_ASSERT_EQUAL(tu_write_file(conf, text), 0);
    snprintf(cmd, sizeof cmd, "SEAM_CONF='%s' SEAM_PLUGIN_PATH= '%s'", conf, bin);
    out = NULL;
    rc = tu_run(cmd, &out, &errs);
    CU_ASSERT_EQUAL(rc, 0);
    free(errs);
    tu_rm_rf(dir);
    free(dir);
    free(src);
    free(bin);
    free(conf);
    free(doc);
    return out;
}

static void test_doc_example(void)
{
    if (!tu_have_command("cc", "the doc examples are not compiled"))
        return;
    char *out = run_doc_program("<!-- agent.c", 70);
    CU_ASSERT_PTR_NOT_NULL(out);
    if (out)
        CU_ASSERT_STRING_EQUAL(out, "-> add {\"a\":2,\"b\":3}\n-> clock {}\n<- add 5\n<- clock \"12:00\"\n"
                                    "2+3 is 5 and it is 12:00.\n");
    free(out);
    /* The short one: main is twenty lines; it prints the final answer. */
    out = run_doc_program("<!-- agent20.c", 42);
    CU_ASSERT_PTR_NOT_NULL(out);
    if (out)
        CU_ASSERT_STRING_EQUAL(out, "2+3 is 5 and it is 12:00.\n");
    free(out);
}

static const tu_test tests[] = {
    { "events in order", test_events_in_order },
    { "error events", test_error_events },
    { "max iterations", test_max_iterations },
    { "handlers", test_handlers },
    { "pause and resume", test_pause_and_resume },
    { "resume answer lands with its turn", test_resume_answer_lands_with_its_turn },
    { "default compression", test_default_compression },
    { "custom engine", test_custom_engine },
    { "role factory and auxiliary", test_role_factory_and_auxiliary },
    { "doc example", test_doc_example },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("executor", tests, start);
}
