/* test_loop_tools.c — the tools the loop runs (libcore/tools.c) and the record
 * of a run (libcore/generation.c), on the scripted mock: active and passive
 * tools, max rounds and 0, parallel calls timed by overlap, error results, a
 * tool out of memory, no schema no validation, steps with usage, the on_step
 * observer and the toolset API. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>
#include "tu_loop.h"


/* ---- tools --------------------------------------------------------------------------------------- */

static const char add_once_script[] =
    "{\"replies\":[{\"reply\":\"\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"add\",\"args\":{\"a\":2,\"b\":3}}]},"
    "{\"reply\":\"The sum is 5.\"}]}";

static void test_active_tools_loop(void)
{
    loop_run r;
    run_init(&r, tools_with_add(), "what is 2+3?", add_once_script);
    r.o.call = &r.co;
    CU_ASSERT_EQUAL_FATAL(run_generate(&r), SEAM_OK);
    CU_ASSERT_EQUAL(r.model_calls, 2);
    CU_ASSERT_EQUAL(tlog.calls, 1);
    CU_ASSERT_STRING_EQUAL(seam_generation_text(r.g), "The sum is 5.");
    CU_ASSERT_EQUAL(seam_generation_step_count(r.g), 2);
    CU_ASSERT_EQUAL(seam_generation_tool_call_count(r.g), 0);
    const seam_step *s0 = seam_generation_step(r.g, 0);
    CU_ASSERT_EQUAL(seam_step_tool_call_count(s0), 1);
    CU_ASSERT_STRING_EQUAL(seam_part_tool_name(seam_step_tool_call(s0, 0)), "add");
    CU_ASSERT_EQUAL_FATAL(seam_step_tool_result_count(s0), 1);
    const seam_part *r0 = seam_step_tool_result(s0, 0);
    CU_ASSERT_STRING_EQUAL(seam_part_tool_call_id(r0), "c1");
    CU_ASSERT_STRING_EQUAL(seam_part_result_json(r0), "5");
    CU_ASSERT_FALSE(seam_part_is_error(r0));
    /* The run added: assistant (call), tool (result), assistant (answer). */
    CU_ASSERT_EQUAL(seam_generation_message_count(r.g), 3);
    CU_ASSERT_EQUAL(seam_message_role(seam_generation_message(r.g, 1)), SEAM_ROLE_TOOL);
    run_free(&r);
}

static void test_passive_tools_return_calls(void)
{
    /* Passive through the toolset (no callback) and through the request. */
    for (int via_request = 0; via_request <= 1; via_request++) {
        loop_run r;
        run_init(&r, seam_toolset_new(), "what is 2+3?", add_once_script);
        if (via_request)
            seam_request_add_tool(r.req, "add", "Adds", add_schema);
        else
            seam_toolset_add(r.ts, "add", "Adds", add_schema, NULL, NULL);
        r.o.call = &r.co;
        CU_ASSERT_EQUAL_FATAL(run_generate(&r), SEAM_OK);
        CU_ASSERT_EQUAL(r.model_calls, 1);
        CU_ASSERT_EQUAL(seam_generation_step_count(r.g), 1);
        CU_ASSERT_EQUAL_FATAL(seam_generation_tool_call_count(r.g), 1);
        CU_ASSERT_STRING_EQUAL(seam_part_tool_call_id(seam_generation_tool_call(r.g, 0)), "c1");
        CU_ASSERT_STRING_EQUAL(seam_part_args_json(seam_generation_tool_call(r.g, 0)), "{\"a\":2,\"b\":3}");
        CU_ASSERT_EQUAL(seam_step_tool_result_count(seam_generation_step(r.g, 0)), 0);
        CU_ASSERT_EQUAL(seam_result_stop_reason(seam_generation_response(r.g)), SEAM_STOP_TOOL_USE);
        run_free(&r);
    }
}

static const char always_add_script[] =
    "{\"reply\":\"\",\"tool_calls\":[{\"id\":\"c\",\"name\":\"add\",\"args\":{\"a\":1,\"b\":1}}]}";

static void test_max_rounds(void)
{
    loop_run r;
    run_init(&r, tools_with_add(), "loop forever", always_add_script);
    CU_ASSERT_EQUAL(r.o.max_tool_rounds, 10);
    r.o.call = &r.co;
    r.o.max_tool_rounds = 2;
    CU_ASSERT_EQUAL_FATAL(run_generate(&r), SEAM_OK);
    CU_ASSERT_EQUAL(tlog.calls, 2);
    CU_ASSERT_EQUAL(r.model_calls, 3);
    CU_ASSERT_EQUAL(seam_generation_step_count(r.g), 3);
    CU_ASSERT_EQUAL(seam_generation_tool_call_count(r.g), 1); /* the last turn's call, not run */
    run_done(&r);

    /* The default bounds an endless loop at 10 rounds. */
    seam_loop_options_init(&r.o);
    r.o.tools = r.ts;
    tlog_reset();
    CU_ASSERT_EQUAL_FATAL(run_generate(&r), SEAM_OK);
    CU_ASSERT_EQUAL(tlog.calls, 10);
    CU_ASSERT_EQUAL(seam_generation_step_count(r.g), 11);
    run_done(&r);

    /* NULL options mean the defaults too (here: no tools, so calls are unknown
     * tools answered with errors, ten times). */
    CU_ASSERT_EQUAL_FATAL(seam_loop_generate(mock, r.req, NULL, &r.g, &r.err), SEAM_OK);
    CU_ASSERT_EQUAL(seam_generation_step_count(r.g), 11);
    run_free(&r);
}

static void test_zero_rounds_disables(void)
{
    loop_run r;
    run_init(&r, tools_with_add(), "what is 2+3?", add_once_script);
    r.o.max_tool_rounds = 0;
    CU_ASSERT_EQUAL_FATAL(run_generate(&r), SEAM_OK);
    CU_ASSERT_EQUAL(tlog.calls, 0);
    CU_ASSERT_EQUAL(seam_generation_step_count(r.g), 1);
    CU_ASSERT_EQUAL(seam_generation_tool_call_count(r.g), 1);
    run_free(&r);
}

static void test_parallel_calls_overlap(void)
{
    loop_run r;
    run_init(&r, plus_tool(seam_toolset_new(), "slow", "takes a while", tool_slow),
        "three at once", "{\"replies\":[{\"reply\":\"\",\"tool_calls\":["
                         "{\"id\":\"p1\",\"name\":\"slow\"},{\"id\":\"p2\",\"name\":\"slow\"},{\"id\":\"p3\",\"name\":\"slow\"}]},"
                         "{\"reply\":\"all done\"}]}");
    r.o.call = &r.co;
    CU_ASSERT_EQUAL_FATAL(run_generate(&r), SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(tlog.calls, 3);
    /* Concurrent: every call started before any call ended. */
    int64_t last_start = 0, first_end = INT64_MAX;
    for (int i = 0; i < 3; i++) {
        if (tlog.start[i] > last_start)
            last_start = tlog.start[i];
        if (tlog.end[i] < first_end)
            first_end = tlog.end[i];
    }
    CU_ASSERT(last_start < first_end);
    /* All three results went back in one continuation request. */
    CU_ASSERT_EQUAL(r.model_calls, 2);
    const seam_step *s0 = seam_generation_step(r.g, 0);
    CU_ASSERT_EQUAL_FATAL(seam_step_tool_result_count(s0), 3);
    for (size_t i = 0; i < 3; i++) {
        char id[8];
        snprintf(id, sizeof id, "p%zu", i + 1);
        CU_ASSERT_STRING_EQUAL(seam_part_tool_call_id(seam_step_tool_result(s0, i)), id);
    }
    CU_ASSERT_EQUAL(seam_generation_message_count(r.g), 3);
    CU_ASSERT_EQUAL(seam_message_part_count(seam_generation_message(r.g, 1)), 3);
    run_done(&r);

    /* max_parallel_tools = 1 runs them one after the other. */
    r.o.max_parallel_tools = 1;
    tlog_reset();
    CU_ASSERT_EQUAL_FATAL(run_generate(&r), SEAM_OK);
    CU_ASSERT_EQUAL(tlog.calls, 3);
    CU_ASSERT(tlog.start[1] >= tlog.end[0] && tlog.start[2] >= tlog.end[1]);
    run_free(&r);
}

/* The results of one turn's tools fail, are unknown, or have bad arguments:
 * each becomes an is_error result, and the loop goes on. */
static void test_error_results(void)
{
    loop_run r;
    run_init(&r, plus_tool(tools_with_add(), "fails", "always fails", tool_fails),
        "try everything", "{\"replies\":[{\"reply\":\"\",\"tool_calls\":["
                          "{\"id\":\"e1\",\"name\":\"fails\"},"
                          "{\"id\":\"e2\",\"name\":\"nosuchtool\",\"args\":{\"x\":1}},"
                          "{\"id\":\"e3\",\"name\":\"add\",\"args\":{\"a\":\"two\",\"b\":3}},"
                          "{\"id\":\"e4\",\"name\":\"add\",\"args\":{\"a\":2,\"b\":3,\"c\":4}},"
                          "{\"id\":\"e5\",\"name\":\"add\",\"args\":{\"a\":2,\"b\":3}}]},"
                          "{\"reply\":\"coping\"}]}");
    CU_ASSERT_EQUAL_FATAL(run_generate(&r), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_generation_text(r.g), "coping");
    CU_ASSERT_EQUAL(tlog.calls, 2); /* fails and the good add: bad arguments never reach a tool */
    const seam_step *s0 = seam_generation_step(r.g, 0);
    CU_ASSERT_EQUAL_FATAL(seam_step_tool_result_count(s0), 5);
    /* Each result in call order: whether it is an error, and its JSON text
     * exactly (equals) or the parts it holds (needles). */
    static const struct {
        int is_error;
        const char *equals;
        const char *needles[2];
    } want[] = {
        { 1, "\"disk /dev/sda1 is full\"", { NULL } },
        { 1, "\"Unknown tool: nosuchtool\"", { NULL } },
        { 1, NULL, { "Invalid arguments for tool add", "/a" } },
        { 1, NULL, { "\\\"c\\\" is not allowed", NULL } },
        { 0, "5", { NULL } },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const seam_part *part = seam_step_tool_result(s0, i);
        CU_ASSERT_EQUAL(seam_part_is_error(part) != 0, want[i].is_error);
        if (want[i].equals)
            CU_ASSERT_STRING_EQUAL(seam_part_result_json(part), want[i].equals);
        for (size_t k = 0; k < 2 && want[i].needles[k]; k++)
            CU_ASSERT_PTR_NOT_NULL(strstr(seam_part_result_json(part), want[i].needles[k]));
    }
    run_free(&r);
}

/* A tool that ran out of memory: not an error for the model to cope with
 * (the run used to go on with "tool oom failed" and end in a success), the
 * run ends with SEAM_ERR_NOMEM. */
static int tool_out_of_memory(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    (void)call;
    seam_tool_output_error(out, "could not allocate");
    return SEAM_ERR_NOMEM;
}

static void test_tool_out_of_memory_ends_the_run(void)
{
    loop_run r;
    run_init(&r, plus_tool(tools_with_add(), "oom", "runs out of memory", tool_out_of_memory),
        "try", "{\"replies\":[{\"reply\":\"\",\"tool_calls\":["
               "{\"id\":\"m1\",\"name\":\"add\",\"args\":{\"a\":2,\"b\":3}},"
               "{\"id\":\"m2\",\"name\":\"oom\"}]},"
               "{\"reply\":\"coping\"}]}");
    CU_ASSERT_EQUAL(run_generate(&r), SEAM_ERR_NOMEM);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "out of memory"));
    CU_ASSERT(r.g == NULL || strcmp(seam_generation_text(r.g), "coping") != 0);
    run_free(&r);
}

/* A tool without a schema gets whatever arguments the model sent. */
static void test_no_schema_no_validation(void)
{
    loop_run r;
    run_init(&r, plus_tool(seam_toolset_new(), "add", "no schema", tool_add),
        "hi", "{\"replies\":[{\"reply\":\"\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"add\",\"args\":{\"a\":1,\"b\":2,\"junk\":[1]}}]},"
              "{\"reply\":\"ok\"}]}");
    CU_ASSERT_EQUAL_FATAL(run_generate(&r), SEAM_OK);
    CU_ASSERT_EQUAL(tlog.calls, 1);
    CU_ASSERT_STRING_EQUAL(tlog.last_args, "{\"a\":1,\"b\":2,\"junk\":[1]}");
    CU_ASSERT_FALSE(seam_part_is_error(seam_step_tool_result(seam_generation_step(r.g, 0), 0)));
    run_free(&r);
}

static void test_steps_carry_usage(void)
{
    loop_run r;
    run_init(&r, tools_with_add(), "add things", two_round_script);
    CU_ASSERT_EQUAL_FATAL(run_generate(&r), SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(seam_generation_step_count(r.g), 3);
    int64_t in[3] = { 10, 20, 30 }, out[3] = { 5, 6, 4 };
    for (size_t i = 0; i < 3; i++) {
        const seam_usage *u = seam_step_usage(seam_generation_step(r.g, i));
        CU_ASSERT_EQUAL(u->input_tokens, in[i]);
        CU_ASSERT_EQUAL(u->output_tokens, out[i]);
    }
    CU_ASSERT_EQUAL(seam_generation_usage(r.g)->input_tokens, 60);
    CU_ASSERT_EQUAL(seam_generation_usage(r.g)->output_tokens, 15);
    CU_ASSERT_EQUAL(seam_step_tool_call_count(seam_generation_step(r.g, 0)), 2);
    CU_ASSERT_EQUAL(seam_step_tool_call_count(seam_generation_step(r.g, 1)), 1);
    CU_ASSERT_EQUAL(seam_step_tool_call_count(seam_generation_step(r.g, 2)), 0);
    run_free(&r);
}

typedef struct step_seen {
    int n;
    size_t index[8];
    size_t results[8];
} step_seen;

static void on_step(void *ud, const seam_step *s, size_t index)
{
    step_seen *seen = ud;
    if (seen->n < 8) {
        seen->index[seen->n] = index;
        seen->results[seen->n] = seam_step_tool_result_count(s);
    }
    seen->n++;
}

static void test_on_step_observer(void)
{
    seam_toolset *ts = tools_with_add();
    seam_request *req = scripted("add things", two_round_script);
    step_seen seen = { 0 };
    seam_loop_options o;
    seam_loop_options_init(&o);
    o.tools = ts;
    o.on_step = on_step;
    o.ud = &seen;
    seam_generation *g = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_loop_generate(mock, req, &o, &g, &err), SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(seen.n, 3);
    CU_ASSERT(seen.index[0] == 0 && seen.index[1] == 1 && seen.index[2] == 2);
    CU_ASSERT(seen.results[0] == 2 && seen.results[1] == 1 && seen.results[2] == 0);
    seam_generation_free(g);
    seam_request_free(req);
    seam_toolset_free(ts);
}

static void test_toolset_api(void)
{
    seam_toolset *ts = seam_toolset_new();
    CU_ASSERT_EQUAL(seam_toolset_add(ts, "a", NULL, NULL, NULL, NULL), SEAM_OK);
    CU_ASSERT_EQUAL(seam_toolset_add(ts, "a", NULL, NULL, NULL, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_toolset_add(ts, "", NULL, NULL, NULL, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_toolset_add(ts, NULL, NULL, NULL, NULL, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_toolset_add(ts, "b", NULL, "{not json", NULL, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_toolset_add(ts, "b", NULL, "[1]", NULL, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_toolset_count(ts), 1);
    CU_ASSERT_STRING_EQUAL(seam_toolset_name(ts, 0), "a");
    CU_ASSERT_PTR_NULL(seam_toolset_name(ts, 1));
    seam_toolset_free(ts);
    seam_toolset_free(NULL);
    seam_generation_free(NULL);
    seam_loop_stream_free(NULL);
    CU_ASSERT_EQUAL(seam_generation_step_count(NULL), 0);
    /* Outputs outside an executor cannot pause. */
    CU_ASSERT_EQUAL(seam_tool_output_pause(NULL, "x"), SEAM_ERR_INVALID);
}

static const tu_test tests[] = {
    { "active tools loop", test_active_tools_loop },
    { "passive tools return calls", test_passive_tools_return_calls },
    { "max rounds", test_max_rounds },
    { "zero rounds disables", test_zero_rounds_disables },
    { "parallel calls overlap", test_parallel_calls_overlap },
    { "error results", test_error_results },
    { "tool out of memory ends the run", test_tool_out_of_memory_ends_the_run },
    { "no schema, no validation", test_no_schema_no_validation },
    { "steps carry usage", test_steps_carry_usage },
    { "on_step observer", test_on_step_observer },
    { "toolset api", test_toolset_api },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("loop_tools", tests, start);
}
