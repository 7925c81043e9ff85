/* tu_loop.c — what the tool loop tests (test_loop*.c) share: the clients (the
 * scripted mock, and the OpenAI codec at the fake server), the tools the tests
 * run with their call log, and one loop run on the mock set up, run and
 * freed. */
#include "config.h"

#include <CUnit/Basic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeserver.h"
#include "testutil.h"
#include "tu_loop.h"
#include <seam/seam.h>

seam_client *mock;     /* provider "m" (mock), chain default */
fake_server *srv;
seam_client *oa;       /* provider "o" (openai) at the fake server, chain default */

int start(void)
{
    mock = tu_client_at_end(tu_clientf(
        "providers = { m = { plugin = \"mock\"; }; };\n"
        "chains = { default = ( { provider = \"m\"; model = \"mock-1\"; } ); };\n"));
    srv = tu_server_start();
    if (!mock || !srv)
        return -1;
    oa = tu_client_at_end(tu_if_built(tu_clientf(
        "providers = { o = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"sk-test\"; }; };\n"
        "chains = { default = ( { provider = \"o\"; model = \"gpt-4o\"; } ); };\n",
        fake_server_url(srv))));
    return 0;
}

void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* A request with one user message whose provider options hold a mock script. */
seam_request *scripted(const char *prompt, const char *script_json)
{
    seam_request *r = seam_request_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL_FATAL(seam_request_add_user_text(r, prompt), SEAM_OK);
    if (script_json)
        CU_ASSERT_EQUAL_FATAL(seam_request_set_provider_options(r, script_json), SEAM_OK);
    return r;
}
/* ---- tools used by the tests ----------------------------------------------------- */

tool_log tlog = { .mu = PTHREAD_MUTEX_INITIALIZER };

void tlog_reset(void)
{
    pthread_mutex_lock(&tlog.mu);
    tlog.calls = 0;
    tlog.saw_cancel = 0;
    tlog.last_args[0] = '\0';
    pthread_mutex_unlock(&tlog.mu);
}

static int record(const seam_tool_call *call, int64_t start)
{
    pthread_mutex_lock(&tlog.mu);
    int i = tlog.calls++;
    if (i < 16) {
        tlog.start[i] = start;
        tlog.end[i] = tu_now_ms();
    }
    snprintf(tlog.last_args, sizeof tlog.last_args, "%s", call->args_json);
    pthread_mutex_unlock(&tlog.mu);
    return i;
}

/* add(a, b) -> a + b */
int tool_add(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    int64_t start = tu_now_ms();
    int rc = tu_tool_add(ud, call, out);
    record(call, start);
    return rc;
}

/* slow(): sleeps 150 ms, for the overlap test. */
int tool_slow(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    int64_t start = tu_now_ms();
    sleep_ms(150);
    record(call, start);
    return seam_tool_output_text(out, call->id);
}

/* fails(): an error with a message. */
int tool_fails(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    record(call, tu_now_ms());
    seam_tool_output_error(out, "disk %s is full", "/dev/sda1");
    return -1;
}

/* waits(): waits for its cancel token, up to 3 s. */
int tool_waits(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    int64_t start = tu_now_ms();
    while (!seam_cancel_triggered(call->cancel) && tu_now_ms() - start < 3000)
        sleep_ms(5);
    pthread_mutex_lock(&tlog.mu);
    tlog.saw_cancel = seam_cancel_triggered(call->cancel);
    pthread_mutex_unlock(&tlog.mu);
    record(call, start);
    return seam_tool_output_text(out, "stopped");
}

const char add_schema[] =
    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
    "\"required\":[\"a\",\"b\"],\"additionalProperties\":false}";

seam_toolset *tools_with_add(void)
{
    seam_toolset *ts = seam_toolset_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    CU_ASSERT_EQUAL(seam_toolset_add(ts, "add", "Adds two integers", add_schema, tool_add, NULL), SEAM_OK);
    return ts;
}

/* ts with one more tool, name (no schema) served by fn; returns ts. */
seam_toolset *plus_tool(seam_toolset *ts, const char *name, const char *description, seam_tool_fn fn)
{
    CU_ASSERT_EQUAL(seam_toolset_add(ts, name, description, NULL, fn, NULL), SEAM_OK);
    return ts;
}

/* Counts the successful model calls. */
static void count_attempt(void *ud, const seam_attempt *a)
{
    if (a->outcome == SEAM_ATTEMPT_SUCCEEDED)
        (*(int *)ud)++;
}

/* A run of ts (owned, may be NULL) on a request of the prompt, which the mock
 * answers by script_json; the tool log reset. */
void run_init(loop_run *r, seam_toolset *ts, const char *prompt, const char *script_json)
{
    memset(r, 0, sizeof *r);
    r->ts = ts;
    r->req = scripted(prompt, script_json);
    r->co = (seam_call_options){ .size = sizeof r->co, .on_attempt = count_attempt, .ud = &r->model_calls };
    seam_loop_options_init(&r->o);
    r->o.tools = ts;
    tlog_reset();
}

/* seam_loop_generate of the run's request and options on the mock. */
int run_generate(loop_run *r)
{
    return seam_loop_generate(mock, r->req, &r->o, &r->g, &r->err);
}

/* The generation freed, for another run. */
void run_done(loop_run *r)
{
    seam_generation_free(r->g);
    r->g = NULL;
}

void run_free(loop_run *r)
{
    run_done(r);
    seam_request_free(r->req);
    seam_toolset_free(r->ts);
}
const char two_round_script[] =
    "{\"replies\":["
    "{\"reply\":\"Adding.\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"add\",\"args\":{\"a\":1,\"b\":2}},"
    "{\"id\":\"c2\",\"name\":\"add\",\"args\":{\"a\":3,\"b\":4}}],\"usage\":{\"input_tokens\":10,\"output_tokens\":5}},"
    "{\"reply\":\"Again.\",\"tool_calls\":[{\"id\":\"c3\",\"name\":\"add\",\"args\":{\"a\":3,\"b\":7}}],"
    "\"usage\":{\"input_tokens\":20,\"output_tokens\":6}},"
    "{\"reply\":\"3, 7 and 10.\",\"usage\":{\"input_tokens\":30,\"output_tokens\":4}}]}";
