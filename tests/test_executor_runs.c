/* test_executor_runs.c — the executor's runs as `000_…` has them (issue 14
 * item 4), through the OpenAI plugin at the fake server: a run on a message
 * array (added all or nothing), options given per run (tools, send options,
 * max iterations) that do not stick to the executor, the deadline of the
 * whole run (in a turn, in the tools, across turns, no retry waiting past
 * it), and both behaviours of a failing tool: an is_error result fed back to
 * the model (the default, as `001_…`) or an error event that ends the run
 * (`000_…`), the history left well-formed either way. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"
#include <seam/seam.h>

static fake_server *srv;
static seam_client *oa; /* provider o (openai) at the fake server, chain default */

static int start(void)
{
    srv = tu_server_start();
    oa = srv ? tu_client_at_end(tu_client_on(srv,
                   "providers = { o = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"k\"; }; };\n"
                   "chains = { default = ( { provider = \"o\"; model = \"gpt-4o\"; } ); };\n"))
             : NULL;
    return oa ? 0 : -1;
}

/* ---- answers of the fake server ------------------------------------------------------- */

static char *text_answer(const char *text)
{
    char *b = NULL;
    CU_ASSERT_FATAL(asprintf(&b,
        "{\"id\":\"x\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
        "\"message\":{\"role\":\"assistant\",\"content\":\"%s\"},\"finish_reason\":\"stop\"}],"
        "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2}}", text) > 0);
    return b;
}

static void push_text(const char *text)
{
    char *b = text_answer(text);
    fake_server_push_json(srv, 200, b, NULL);
    free(b);
}

/* The same answer, held back delay_ms before it is sent. */
static void push_text_late(const char *text, unsigned delay_ms)
{
    char *b = text_answer(text);
    fake_response r = { .status = 200, .content_type = "application/json", .body = b,
                        .delay_ms = delay_ms };
    fake_server_push(srv, &r);
    free(b);
}

/* A turn calling tool `name` (call id `id`) with JSON object text args. */
static void push_call(const char *id, const char *name, const char *args)
{
    json_object *a = json_object_new_string(args);
    char *b = NULL;
    CU_ASSERT_FATAL(asprintf(&b,
        "{\"id\":\"x\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
        "\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"%s\","
        "\"type\":\"function\",\"function\":{\"name\":\"%s\",\"arguments\":%s}}]},"
        "\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5}}",
        id, name, json_object_to_json_string(a)) > 0);
    fake_server_push_json(srv, 200, b, NULL);
    free(b);
    json_object_put(a);
}

static json_object *body_at(size_t i)
{
    json_object *b = json_tokener_parse(fake_server_request_body(srv, i));
    CU_ASSERT_FATAL(b != NULL);
    return b;
}

/* "role:content" of every message request i carried, joined by "|" (content
 * "-" when not a string). */
static const char *wire_messages(size_t i)
{
    static char buf[2048];
    buf[0] = '\0';
    json_object *b = body_at(i), *msgs = NULL;
    json_object_object_get_ex(b, "messages", &msgs);
    for (size_t k = 0; k < json_object_array_length(msgs); k++) {
        json_object *m = json_object_array_get_idx(msgs, k), *role = NULL, *c = NULL;
        json_object_object_get_ex(m, "role", &role);
        json_object_object_get_ex(m, "content", &c);
        size_t len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, "%s%s:%s", k ? "|" : "", json_object_get_string(role),
                 c && json_object_is_type(c, json_type_string) ? json_object_get_string(c) : "-");
    }
    json_object_put(b);
    return buf;
}

/* ---- tools ------------------------------------------------------------------------------ */

static int tool_add(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    json_object *args = json_tokener_parse(call->args_json), *a = NULL, *b = NULL;
    json_object_object_get_ex(args, "a", &a);
    json_object_object_get_ex(args, "b", &b);
    char text[32];
    snprintf(text, sizeof text, "%d", json_object_get_int(a) + json_object_get_int(b));
    json_object_put(args);
    return seam_tool_output_json(out, text);
}

static int tool_fail(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    (void)call;
    seam_tool_output_error(out, "boom");
    return 1;
}

static atomic_int slow_cancelled;

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Works up to 3 s, stopping when its cancel token fires. */
static int tool_slow(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    for (int i = 0; i < 300; i++) {
        if (seam_cancel_triggered(call->cancel)) {
            atomic_store(&slow_cancelled, 1);
            return seam_tool_output_error(out, "stopped"), 1;
        }
        sleep_ms(10);
    }
    return seam_tool_output_text(out, "finished");
}

/* Takes 250 ms, whatever happens. */
static int tool_nap(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    (void)call;
    sleep_ms(250);
    return seam_tool_output_text(out, "rested");
}

static seam_toolset *tools(void)
{
    seam_toolset *ts = seam_toolset_new();
    CU_ASSERT_EQUAL_FATAL(seam_toolset_add(ts, "add", "Adds",
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
        "\"required\":[\"a\",\"b\"]}", tool_add, NULL), SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(seam_toolset_add(ts, "fail", "Fails", NULL, tool_fail, NULL), SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(seam_toolset_add(ts, "slow", "Slow", NULL, tool_slow, NULL), SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(seam_toolset_add(ts, "nap", "Naps", NULL, tool_nap, NULL), SEAM_OK);
    return ts;
}

/* ---- runs -------------------------------------------------------------------------------- */

typedef struct trace {
    char text[4096];
    int status;
    seam_error err;        /* the error event's, else seam_run_next's */
    int iterations;
    int64_t ms;            /* from the start of the run to its end */
    char thread[64];       /* the thread id every event carried ("mixed" if not one) */
} trace;

static seam_session *new_session(const seam_session_options *o)
{
    seam_session *s = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_session_new(oa, o, &s, &err), SEAM_OK);
    return s;
}

static seam_executor *new_executor(seam_session *s, const seam_executor_options *o)
{
    seam_executor *ex = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_executor_new(s, o, &ex, &err), SEAM_OK);
    return ex;
}

static void run_all(seam_run *run, trace *t, int64_t t0)
{
    const seam_event *ev;
    int rc;
    while ((rc = seam_run_next(run, &ev, &t->err)) == 1) {
        char item[600] = "";
        switch (ev->kind) {
        case SEAM_EVENT_RESPONSE:
            snprintf(item, sizeof item, "response%d(%s)", ev->iteration, seam_result_text(ev->response));
            break;
        case SEAM_EVENT_TOOL_CALL:
            snprintf(item, sizeof item, "call%d(%s %s)", ev->iteration, ev->tool_name, ev->args_json);
            break;
        case SEAM_EVENT_TOOL_RESULT:
            snprintf(item, sizeof item, "result%d(%s=%s%s)", ev->iteration, ev->tool_name,
                     ev->result_json, ev->is_error ? " error" : "");
            break;
        case SEAM_EVENT_CONTEXT_COMPRESSED:
            snprintf(item, sizeof item, "compressed%d", ev->iteration);
            break;
        case SEAM_EVENT_DONE:
            snprintf(item, sizeof item, "done(%s)", ev->reason);
            t->iterations = ev->iterations;
            break;
        case SEAM_EVENT_ERROR:
            snprintf(item, sizeof item, "error%d(%s)", ev->iteration, seam_error_kind_name(ev->error->kind));
            t->err = *ev->error;
            break;
        }
        if (t->text[0])
            strcat(t->text, " ");
        strcat(t->text, item);
        if (!t->thread[0])
            snprintf(t->thread, sizeof t->thread, "%s", ev->thread_id ? ev->thread_id : "(null)");
        else if (!ev->thread_id || strcmp(t->thread, ev->thread_id) != 0)
            snprintf(t->thread, sizeof t->thread, "mixed");
    }
    t->status = rc;
    t->ms = tu_now_ms() - t0;
}

/* A run on messages (n may be 0) with opts (may be NULL), to its end. */
static void run_with(seam_executor *ex, const seam_message *const *msgs, size_t n,
                     const seam_run_options *opts, trace *t)
{
    memset(t, 0, sizeof *t);
    int64_t t0 = tu_now_ms();
    seam_run *run = NULL;
    seam_error err;
    int rc = seam_executor_run_messages(ex, msgs, n, opts, &run, &err);
    if (rc != SEAM_OK)
        fprintf(stderr, "run: %s\n", err.message);
    CU_ASSERT_EQUAL_FATAL(rc, SEAM_OK);
    run_all(run, t, t0);
    seam_run_free(run);
}

static seam_message *text_msg(seam_role role, const char *text)
{
    seam_message *m = seam_message_new(role);
    CU_ASSERT_FATAL(m != NULL);
    CU_ASSERT_EQUAL_FATAL(seam_message_add_text(m, text), SEAM_OK);
    return m;
}

/* A run on one user message. */
static void run_text(seam_executor *ex, const char *text, const seam_run_options *opts, trace *t)
{
    seam_message *m = text_msg(SEAM_ROLE_USER, text);
    const seam_message *one[] = { m };
    run_with(ex, one, 1, opts, t);
    seam_message_free(m);
}

/* ---- a message array ----------------------------------------------------------------------- */

static void test_run_on_messages(void)
{
    seam_session_options so = { .size = sizeof so, .thread_id = "runs-1" };
    seam_session *s = new_session(&so);
    seam_executor *ex = new_executor(s, NULL);
    seam_message *a = text_msg(SEAM_ROLE_USER, "a"), *b = text_msg(SEAM_ROLE_ASSISTANT, "b"),
                 *c = text_msg(SEAM_ROLE_USER, "c");
    const seam_message *msgs[] = { a, b, c };
    size_t before = fake_server_request_count(srv);
    push_text("d");
    trace t;
    run_with(ex, msgs, 3, NULL, &t);
    TU_STR_EQ(t.text, "response0(d) done(stop)");
    CU_ASSERT_EQUAL(t.status, 0);
    /* Every event names the conversation's thread. */
    TU_STR_EQ(t.thread, "runs-1");
    TU_STR_EQ(wire_messages(before), "user:a|assistant:b|user:c");
    CU_ASSERT_EQUAL(seam_session_history_count(s), 4);

    /* All or nothing: a NULL in the array adds none of them, and the error
     * names the operation. */
    const seam_message *holey[] = { a, NULL, c };
    seam_run *run = (seam_run *)1;
    seam_error err;
    CU_ASSERT_EQUAL(seam_executor_run_messages(ex, holey, 3, NULL, &run, &err), SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NULL(run);
    TU_STR_EQ(err.message, "operation 1 (add): no message to add");
    CU_ASSERT_EQUAL(seam_session_history_count(s), 4);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);

    /* No messages: a run on the history as it is (and none when it is empty). */
    before = fake_server_request_count(srv);
    push_text("e");
    run_with(ex, NULL, 0, NULL, &t);
    TU_STR_EQ(t.text, "response0(e) done(stop)");
    TU_STR_EQ(wire_messages(before), "user:a|assistant:b|user:c|assistant:d");
    seam_session_clear(s);
    CU_ASSERT_EQUAL(seam_executor_run_messages(ex, NULL, 0, NULL, &run, &err), SEAM_ERR_INVALID);
    TU_STR_EQ(err.message, "nothing to run: no input and no history");

    seam_message_free(a);
    seam_message_free(b);
    seam_message_free(c);
    seam_executor_free(ex);
    seam_session_free(s);
}

/* ---- options per run ----------------------------------------------------------------------- */

static void test_tools_and_send_options_per_run(void)
{
    seam_session *s = new_session(NULL);
    seam_executor *ex = new_executor(s, NULL); /* no tools of its own */
    seam_toolset *ts = tools();
    seam_send_options so = { .size = sizeof so, .system_suffix = "Answer in French." };
    seam_run_options ro = { .size = sizeof ro, .tools = ts, .send = &so };
    size_t before = fake_server_request_count(srv);
    push_call("c1", "add", "{\"a\":2,\"b\":3}");
    push_text("cinq");
    trace t;
    run_text(ex, "2+3?", &ro, &t);
    TU_STR_EQ(t.text, "response0() call0(add {\"a\":2,\"b\":3}) result0(add=5) response1(cinq) done(stop)");
    CU_ASSERT_EQUAL_FATAL(fake_server_request_count(srv), before + 2);
    for (size_t i = before; i < before + 2; i++) {
        json_object *b = body_at(i);
        TU_STR_EQ(tu_json_str(b, "tools.0.function.name"), "add");
        TU_STR_EQ(tu_json_str(b, "messages.0.content"), "Answer in French.");
        json_object_put(b);
    }
    TU_STR_EQ(wire_messages(before + 1), "system:Answer in French.|user:2+3?|assistant:-|tool:5");

    /* The next run without options: the executor's settings (no tools, no suffix). */
    before = fake_server_request_count(srv);
    push_text("five");
    run_text(ex, "again", NULL, &t);
    TU_STR_EQ(t.text, "response0(five) done(stop)");
    json_object *b = body_at(before);
    CU_ASSERT_FALSE(tu_json_has(b, "tools"));
    TU_STR_EQ(tu_json_str(b, "messages.0.role"), "user");
    json_object_put(b);
    seam_executor_free(ex);
    seam_toolset_free(ts);
    seam_session_free(s);
}

static void test_max_iterations_per_run(void)
{
    seam_session *s = new_session(NULL);
    seam_toolset *ts = tools();
    seam_executor_options eo = { .size = sizeof eo, .tools = ts, .max_iterations = 10 };
    seam_executor *ex = new_executor(s, &eo);
    seam_run_options one = { .size = sizeof one, .max_iterations = 1 };
    size_t before = fake_server_request_count(srv);
    push_call("c1", "add", "{\"a\":1,\"b\":1}");
    trace t;
    run_text(ex, "go", &one, &t);
    /* One turn; its tools still run so that the history stays well-formed. */
    TU_STR_EQ(t.text, "response0() call0(add {\"a\":1,\"b\":1}) result0(add=2) done(max_iterations)");
    CU_ASSERT_EQUAL(t.iterations, 1);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);

    seam_run_options two = { .size = sizeof two, .max_iterations = 2 };
    before = fake_server_request_count(srv);
    push_call("c2", "add", "{\"a\":2,\"b\":2}");
    push_call("c3", "add", "{\"a\":3,\"b\":3}");
    run_with(ex, NULL, 0, &two, &t);
    TU_STR_EQ(t.text, "response0() call0(add {\"a\":2,\"b\":2}) result0(add=4) "
                      "response1() call1(add {\"a\":3,\"b\":3}) result1(add=6) done(max_iterations)");
    CU_ASSERT_EQUAL(t.iterations, 2);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 2);

    /* Without options the executor's 10 apply: the model may stop by itself. */
    before = fake_server_request_count(srv);
    push_call("c4", "add", "{\"a\":4,\"b\":4}");
    push_text("done");
    run_with(ex, NULL, 0, NULL, &t);
    TU_STR_EQ(t.text, "response0() call0(add {\"a\":4,\"b\":4}) result0(add=8) response1(done) done(stop)");
    seam_executor_free(ex);
    seam_toolset_free(ts);
    seam_session_free(s);
}

static void test_bad_options(void)
{
    seam_session *s = new_session(NULL);
    seam_executor *ex = new_executor(s, NULL);
    seam_message *m = text_msg(SEAM_ROLE_USER, "x");
    const seam_message *one[] = { m };
    seam_run *run = (seam_run *)1;
    seam_error err;
    seam_run_options o = { 0 };
    CU_ASSERT_EQUAL(seam_executor_run_messages(ex, one, 1, &o, &run, &err), SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NULL(run);
    TU_STR_EQ(err.message, "seam_run_options.size is not set");
    o = (seam_run_options){ .size = sizeof o, .timeout_ms = -1 };
    CU_ASSERT_EQUAL(seam_executor_run_messages(ex, one, 1, &o, &run, &err), SEAM_ERR_INVALID);
    TU_STR_EQ(err.message, "timeout_ms must not be negative");
    o = (seam_run_options){ .size = sizeof o, .max_iterations = -2 };
    CU_ASSERT_EQUAL(seam_executor_run_messages(ex, one, 1, &o, &run, &err), SEAM_ERR_INVALID);
    o = (seam_run_options){ .size = sizeof o, .tool_errors = (seam_tool_errors)9 };
    CU_ASSERT_EQUAL(seam_executor_run_messages(ex, one, 1, &o, &run, &err), SEAM_ERR_INVALID);
    TU_STR_EQ(err.message, "tool_errors is not a seam_tool_errors value");
    seam_send_options unsized = { 0 };
    o = (seam_run_options){ .size = sizeof o, .send = &unsized };
    CU_ASSERT_EQUAL(seam_executor_run_messages(ex, one, 1, &o, &run, &err), SEAM_ERR_INVALID);
    /* Nothing was added by the refused runs. */
    CU_ASSERT_EQUAL(seam_session_history_count(s), 0);
    /* An older caller's smaller struct: only its members are read. */
    o = (seam_run_options){ .size = offsetof(seam_run_options, max_parallel_tools),
                            .max_iterations = 1, .tool_errors = (seam_tool_errors)9 };
    push_text("small");
    trace t;
    run_with(ex, one, 1, &o, &t);
    TU_STR_EQ(t.text, "response0(small) done(stop)");
    seam_message_free(m);
    seam_executor_free(ex);
    seam_session_free(s);
}

/* ---- the deadline of the whole run ------------------------------------------------------- */

static void test_deadline_in_a_turn(void)
{
    seam_session *s = new_session(NULL);
    seam_executor *ex = new_executor(s, NULL);
    seam_run_options ro = { .size = sizeof ro, .timeout_ms = 250 };
    push_text_late("too late", 1500);
    trace t;
    run_text(ex, "hurry", &ro, &t);
    TU_STR_EQ(t.text, "error0(timeout)");
    CU_ASSERT_EQUAL(t.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(t.err.kind, SEAM_ERROR_TIMEOUT);
    CU_ASSERT_EQUAL(strncmp(t.err.message, "the run's deadline (250 ms) passed", 34), 0);
    CU_ASSERT(t.ms >= 200 && t.ms < 1200);
    if (t.ms >= 1200 || t.ms < 200)
        fprintf(stderr, "ended after %lld ms: %s\n", (long long)t.ms, t.err.message);
    /* The failed turn added nothing but the input. */
    CU_ASSERT_EQUAL(seam_session_history_count(s), 1);
    seam_executor_free(ex);
    seam_session_free(s);
}

static void test_deadline_in_the_tools(void)
{
    seam_session *s = new_session(NULL);
    seam_toolset *ts = tools();
    seam_run_options ro = { .size = sizeof ro, .tools = ts, .timeout_ms = 300 };
    seam_executor *ex = new_executor(s, NULL);
    atomic_store(&slow_cancelled, 0);
    size_t before = fake_server_request_count(srv);
    push_call("s1", "slow", "{}");
    trace t;
    run_text(ex, "work", &ro, &t);
    TU_STR_EQ(t.text, "response0() call0(slow {}) result0(slow=\"stopped\" error) error0(timeout)");
    TU_STR_EQ(t.err.message, "the run's deadline (300 ms) passed while tools were running");
    CU_ASSERT(atomic_load(&slow_cancelled));
    CU_ASSERT(t.ms >= 250 && t.ms < 2000);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    /* The result went into the history with its call: well-formed. */
    CU_ASSERT_EQUAL(seam_session_history_count(s), 3);
    seam_executor_free(ex);
    seam_toolset_free(ts);
    seam_session_free(s);
}

static void test_deadline_spans_the_turns(void)
{
    /* Each piece alone fits in 400 ms; together they do not. */
    seam_session *s = new_session(NULL);
    seam_toolset *ts = tools();
    seam_executor_options eo = { .size = sizeof eo, .tools = ts };
    seam_executor *ex = new_executor(s, &eo);
    seam_run_options ro = { .size = sizeof ro, .timeout_ms = 400 };
    push_call("n1", "nap", "{}");
    push_text_late("awake", 300);
    trace t;
    run_text(ex, "rest first", &ro, &t);
    TU_STR_EQ(t.text, "response0() call0(nap {}) result0(nap=\"rested\") error1(timeout)");
    CU_ASSERT(t.ms >= 350 && t.ms < 1500);

    /* The same without a deadline gets through. */
    push_call("n2", "nap", "{}");
    push_text_late("awake", 300);
    run_text(ex, "rest again", NULL, &t);
    TU_STR_EQ(t.text, "response0() call0(nap {}) result0(nap=\"rested\") response1(awake) done(stop)");
    seam_executor_free(ex);
    seam_toolset_free(ts);
    seam_session_free(s);
}

static void test_deadline_stops_retries(void)
{
    seam_session_options so = { .size = sizeof so,
                                .retry = { .max_attempts = 4, .base_delay_ms = 2000, .max_delay_ms = 4000 } };
    seam_session *s = new_session(&so);
    seam_executor *ex = new_executor(s, NULL);
    seam_run_options ro = { .size = sizeof ro, .timeout_ms = 500 };
    size_t before = fake_server_request_count(srv);
    fake_server_push_json(srv, 503, "{\"error\":{\"message\":\"busy\",\"type\":\"server_error\"}}", NULL);
    trace t;
    run_text(ex, "hi", &ro, &t);
    /* A retry would only start after the deadline: the provider's error now. */
    TU_STR_EQ(t.text, "error0(overloaded)");
    CU_ASSERT(t.ms < 1500);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    seam_executor_free(ex);
    seam_session_free(s);
}

/* ---- a failing tool ----------------------------------------------------------------------------- */

static void test_failing_tool_is_a_result_by_default(void)
{
    seam_session *s = new_session(NULL);
    seam_toolset *ts = tools();
    seam_executor_options eo = { .size = sizeof eo, .tools = ts };
    seam_executor *ex = new_executor(s, &eo);
    size_t before = fake_server_request_count(srv);
    push_call("f1", "fail", "{}");
    push_text("recovered");
    trace t;
    run_text(ex, "try", NULL, &t);
    TU_STR_EQ(t.text, "response0() call0(fail {}) result0(fail=\"boom\" error) response1(recovered) done(stop)");
    CU_ASSERT_EQUAL(t.status, 0);
    /* The model saw the error as the call's result. */
    TU_STR_EQ(wire_messages(before + 1), "user:try|assistant:-|tool:boom");
    seam_executor_free(ex);
    seam_toolset_free(ts);
    seam_session_free(s);
}

static void test_failing_tool_can_end_the_run(void)
{
    seam_session *s = new_session(NULL);
    seam_toolset *ts = tools();
    seam_executor_options eo = { .size = sizeof eo, .tools = ts };
    seam_executor *ex = new_executor(s, &eo);
    seam_run_options ro = { .size = sizeof ro, .tool_errors = SEAM_TOOL_ERRORS_END_RUN };
    size_t before = fake_server_request_count(srv);
    push_call("f1", "fail", "{}");
    trace t;
    run_text(ex, "try", &ro, &t);
    TU_STR_EQ(t.text, "response0() call0(fail {}) result0(fail=\"boom\" error) error0(unknown)");
    CU_ASSERT_EQUAL(t.status, SEAM_ERR_PROVIDER);
    TU_STR_EQ(t.err.code, "tool_error");
    TU_STR_EQ(t.err.message, "tool fail (call f1) failed: boom");
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    /* user, the call, its result: a later run can go on from there. */
    CU_ASSERT_EQUAL(seam_session_history_count(s), 3);
    before = fake_server_request_count(srv);
    push_text("carry on");
    run_with(ex, NULL, 0, NULL, &t);
    TU_STR_EQ(t.text, "response0(carry on) done(stop)");
    TU_STR_EQ(wire_messages(before), "user:try|assistant:-|tool:boom");

    /* An unknown tool fails the same way; before it, nothing did. */
    push_call("u1", "nope", "{}");
    run_text(ex, "again", &ro, &t);
    TU_STR_EQ(t.text, "response0() call0(nope {}) result0(nope=\"Unknown tool: nope\" error) error0(unknown)");
    TU_STR_EQ(t.err.message, "tool nope (call u1) failed: Unknown tool: nope");

    /* A tool that works does not end the run in this mode. */
    push_call("a1", "add", "{\"a\":1,\"b\":2}");
    push_text("3");
    run_text(ex, "add", &ro, &t);
    TU_STR_EQ(t.text, "response0() call0(add {\"a\":1,\"b\":2}) result0(add=3) response1(3) done(stop)");
    seam_executor_free(ex);
    seam_toolset_free(ts);
    seam_session_free(s);
}

static const tu_test tests[] = {
    { "a run on a message array, added all or nothing", test_run_on_messages },
    { "tools and send options per run (wire)", test_tools_and_send_options_per_run },
    { "max iterations per run", test_max_iterations_per_run },
    { "bad run options refused", test_bad_options },
    { "deadline: passes in a turn", test_deadline_in_a_turn },
    { "deadline: passes in the tools", test_deadline_in_the_tools },
    { "deadline: spans the turns", test_deadline_spans_the_turns },
    { "deadline: no retry waits past it", test_deadline_stops_retries },
    { "failing tool: an is_error result (default)", test_failing_tool_is_a_result_by_default },
    { "failing tool: ends the run (option)", test_failing_tool_can_end_the_run },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("executor runs", tests, start);
}
