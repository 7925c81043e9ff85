/* test_contracts.c — what issue 14 asks of the library core beyond the codecs:
 * an error naming both the conf provider and its plugin, the per-call
 * credential, the raw response kept for debugging on request, the conf's
 * default model, the per-step hook of the tool loop, and the stream metadata
 * (stream start, step finish, response id). Through the real loader, against
 * the fake server. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

static fake_server *srv;
static seam_client *oa; /* work (openai plugin, key "k-conf") at the fake server */
static seam_client *wires; /* one provider per wire: oc, rs, an, gm */

static int start(void)
{
    srv = tu_server_start();
    if (!srv)
        return -1;
    oa = tu_client_at_end(tu_if_built(tu_clientf(
        "providers = { work = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"k-conf\"; }; };\n"
        "chains = { default = ( { provider = \"work\"; model = \"gpt-4o\"; } ); };\n",
        fake_server_url(srv))));
    const char *u = fake_server_url(srv);
    wires = tu_client_at_end(tu_if_built(tu_clientf(
        "providers = {\n"
        "  oc = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"k\"; };\n"
        "  rs = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"k\";\n"
        "         options = { profile = \"openai\"; api = \"responses\"; }; };\n"
        "  an = { plugin = \"anthropic\"; base_url = \"%s/v1\"; api_key = \"k\"; };\n"
        "  gm = { plugin = \"gemini\"; base_url = \"%s/v1beta\"; api_key = \"k\"; };\n"
        "};\n",
        u, u, u, u)));
    return 0;
}

static const char *OA_REPLY =
    "{\"id\":\"chatcmpl-77\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\","
    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},"
    "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}";

static const char *OA_401 =
    "{\"error\":{\"message\":\"bad key\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\","
    "\"debug_marker\":\"zq-raw-only-77\"}}";

/* The turn most tests take: a user text to work/gpt-4o on client c, as one
 * call or through the tool loop (lo, its call co), and the result, generation
 * and error of the last one. */
typedef struct turn {
    seam_client *c;
    seam_request *req;
    seam_call_options co;
    seam_loop_options lo;
    seam_result *res;
    seam_generation *g;
    seam_error err;
} turn;

/* 0 when c is NULL (its plugin is not built: the test has nothing to run). */
static int turn_start(turn *a, seam_client *c, const char *text)
{
    if (!c)
        return 0;
    a->c = c;
    a->req = tu_user_request(text);
    a->co = tu_call_opts("work", "gpt-4o");
    seam_loop_options_init(&a->lo);
    a->lo.call = &a->co;
    a->res = NULL;
    a->g = NULL;
    seam_error_clear(&a->err);
    return 1;
}

/* seam_generate of the turn, the previous result freed first; its status. */
static int turn_generate(turn *a)
{
    seam_result_free(a->res);
    a->res = NULL;
    return seam_generate(a->c, a->req, &a->co, &a->res, &a->err);
}

/* seam_loop_generate of the turn, the previous generation freed first; its status. */
static int turn_loop(turn *a)
{
    seam_generation_free(a->g);
    a->g = NULL;
    return seam_loop_generate(a->c, a->req, &a->lo, &a->g, &a->err);
}

static void turn_free(turn *a)
{
    seam_result_free(a->res);
    seam_generation_free(a->g);
    seam_request_free(a->req);
}

/* ---- the error's provider: conf name and plugin ------------------------------------ */

static void test_error_names_plugin(void)
{
    turn a;
    if (!turn_start(&a, oa, "hi"))
        return;
    fake_server_push_json(srv, 401, OA_401, NULL);
    CU_ASSERT_EQUAL(turn_generate(&a), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(a.err.kind, SEAM_ERROR_AUTH);
    CU_ASSERT_STRING_EQUAL(a.err.provider, "work");
    CU_ASSERT_STRING_EQUAL(a.err.plugin, "openai");
    turn_free(&a);
}

/* ---- the per-call credential ---------------------------------------------------------- */

static void test_call_credential(void)
{
    turn a;
    if (!turn_start(&a, oa, "hi"))
        return;
    a.co.credential = "sk-tenant-42";
    fake_server_push_json(srv, 200, OA_REPLY, NULL);
    CU_ASSERT_EQUAL_FATAL(turn_generate(&a), SEAM_OK);
    TU_STR_EQ(tu_last_header(srv, "authorization"), "Bearer sk-tenant-42");

    /* An error body echoing the key: the message never shows it, and the
     * conf's key is not tried after the caller's was refused. */
    size_t before = fake_server_request_count(srv);
    fake_server_push_json(srv, 401,
                          "{\"error\":{\"message\":\"Incorrect API key provided: sk-tenant-42\","
                          "\"code\":\"invalid_api_key\"}}", NULL);
    CU_ASSERT_EQUAL(turn_generate(&a), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(a.err.kind, SEAM_ERROR_AUTH);
    CU_ASSERT_PTR_NULL(strstr(a.err.message, "sk-tenant-42"));
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);

    /* Without it, the conf's key again. */
    a.co.credential = NULL;
    fake_server_push_json(srv, 200, OA_REPLY, NULL);
    CU_ASSERT_EQUAL(turn_generate(&a), SEAM_OK);
    TU_STR_EQ(tu_last_header(srv, "authorization"), "Bearer k-conf");

    /* A chain would hand one vendor's key to another: refused. */
    seam_call_options chain = { .size = sizeof chain, .chain = "default", .credential = "sk-x" };
    seam_result *res = NULL;
    CU_ASSERT_EQUAL(seam_generate(oa, a.req, &chain, &res, &a.err), SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NULL(res);
    CU_ASSERT_PTR_NULL(strstr(a.err.message, "sk-x"));

    /* The tool loop passes it to every turn. */
    a.co.credential = "sk-tenant-43";
    fake_server_push_json(srv, 200, OA_REPLY, NULL);
    CU_ASSERT_EQUAL(turn_loop(&a), SEAM_OK);
    TU_STR_EQ(tu_last_header(srv, "authorization"), "Bearer sk-tenant-43");
    turn_free(&a);
}

/* ---- the raw response, kept on request ------------------------------------------------ */

static void test_raw_response(void)
{
    turn a;
    if (!turn_start(&a, oa, "hi"))
        return;
    seam_raw_response *raw = seam_raw_response_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(raw);
    CU_ASSERT_EQUAL(seam_raw_response_status(raw), 0);
    CU_ASSERT_PTR_NULL(seam_raw_response_body(raw, NULL));
    CU_ASSERT_PTR_NULL(seam_raw_response_cause(raw));
    a.co.raw = raw;

    /* A failure: the body as sent (a field no classifier reads included),
     * the headers, and the attempt's own error as the cause. The key the
     * server echoes is scrubbed. */
    fake_server_push_json(srv, 401, OA_401, "X-Echo: k-conf\r\nX-Request-Id: req-9\r\n");
    CU_ASSERT_EQUAL(turn_generate(&a), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(seam_raw_response_status(raw), 401);
    size_t len = 0;
    const char *body = seam_raw_response_body(raw, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(body);
    CU_ASSERT_EQUAL(len, strlen(OA_401));
    CU_ASSERT_PTR_NOT_NULL(strstr(body, "zq-raw-only-77"));
    CU_ASSERT_PTR_NULL(strstr(a.err.message, "zq-raw-only-77"));
    const char *h = seam_raw_response_headers(raw);
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "X-Request-Id: req-9\n"));
    CU_ASSERT_PTR_NULL(strstr(h, "k-conf"));
    const seam_error *cause = seam_raw_response_cause(raw);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cause);
    CU_ASSERT_EQUAL(cause->kind, SEAM_ERROR_AUTH);
    CU_ASSERT_EQUAL(cause->http_status, 401);
    CU_ASSERT_STRING_EQUAL(cause->provider, "work");
    CU_ASSERT_STRING_EQUAL(cause->plugin, "openai");

    /* A success replaces it: the whole body, no cause. */
    fake_server_push_json(srv, 200, OA_REPLY, NULL);
    CU_ASSERT_EQUAL(turn_generate(&a), SEAM_OK);
    CU_ASSERT_EQUAL(seam_raw_response_status(raw), 200);
    body = seam_raw_response_body(raw, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(body);
    CU_ASSERT_EQUAL(len, strlen(OA_REPLY));
    CU_ASSERT_PTR_NOT_NULL(strstr(body, "chatcmpl-77"));
    CU_ASSERT_PTR_NULL(seam_raw_response_cause(raw));

    /* Not asked for: nothing kept (the record stays as it was). */
    a.co.raw = NULL;
    fake_server_push_json(srv, 401, OA_401, NULL);
    CU_ASSERT_EQUAL(turn_generate(&a), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(seam_raw_response_status(raw), 200);
    seam_raw_response_free(raw);
    seam_raw_response_free(NULL);
    turn_free(&a);
}

/* ---- default_model --------------------------------------------------------------------- */

static int conf_refused(const char *text, const char *want)
{
    char *dir = tu_mkdtemp();
    if (!dir)
        return 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/seam.conf", dir);
    seam_error err;
    seam_error_clear(&err);
    int ok = tu_write_file(path, text) == 0 && seam_conf_check(path, NULL, NULL, &err) == SEAM_ERR_CONF &&
             strstr(err.message, want) && strstr(err.message, "seam.conf:");
    if (!ok)
        fprintf(stderr, "conf check said: %s\n", err.message);
    tu_rm_rf(dir);
    free(dir);
    return ok;
}

/* The model of the request turn a sends, the fake server answering OA_REPLY:
 * the call's status one assertion. Borrowed until the next call. */
static const char *model_sent(turn *a)
{
    static char model[64];
    fake_server_push_json(srv, 200, OA_REPLY, NULL);
    CU_ASSERT_EQUAL(turn_generate(a), SEAM_OK);
    json_object *body = tu_last_body(srv);
    snprintf(model, sizeof model, "%s", tu_json_str(body, "model"));
    json_object_put(body);
    return model;
}

static void test_default_model(void)
{
    seam_client *c = tu_if_built(tu_clientf(
        "providers = { work = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"k\";\n"
        "  default_model = \"gpt-4o-mini\"; }; bare = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"k\"; }; };\n",
        fake_server_url(srv), fake_server_url(srv)));
    turn a;
    if (!turn_start(&a, c, "hi"))
        return;
    a.co = (seam_call_options){ .size = sizeof a.co, .provider = "work" };
    TU_STR_EQ(model_sent(&a), "gpt-4o-mini");
    TU_STR_EQ(seam_result_model(a.res), "gpt-4o-mini");

    /* The call's model, then the request's, win over it. */
    a.co.model = "gpt-4.1";
    TU_STR_EQ(model_sent(&a), "gpt-4.1");
    a.co.model = NULL;
    seam_request_set_model(a.req, "o3");
    TU_STR_EQ(model_sent(&a), "o3");

    /* A provider without one: no model, a bad_request error, nothing sent. */
    seam_request_free(a.req);
    a.req = tu_user_request("hi");
    size_t before = fake_server_request_count(srv);
    a.co.provider = "bare";
    CU_ASSERT_EQUAL(turn_generate(&a), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(a.err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before);
    turn_free(&a);
    tu_client_free(c);

    /* The conf check: a string, not empty, no space or control character,
     * at most 256 bytes; each refusal names file:line. */
    CU_ASSERT(conf_refused("providers = { p = { plugin = \"mock\"; default_model = 5; }; };\n",
                           "default_model"));
    CU_ASSERT(conf_refused("providers = { p = { plugin = \"mock\"; default_model = \"\"; }; };\n",
                           "non-empty"));
    CU_ASSERT(conf_refused("providers = { p = { plugin = \"mock\"; default_model = \"gpt 4\"; }; };\n",
                           "space or a control"));
    char big[600];
    char id[300];
    memset(id, 'm', 257);
    id[257] = '\0';
    snprintf(big, sizeof big, "providers = { p = { plugin = \"mock\"; default_model = \"%s\"; }; };\n", id);
    CU_ASSERT(conf_refused(big, "longer than 256"));
}

/* ---- the per-step hook of the tool loop ----------------------------------------------- */

static const char *OA_CALL_ADD =
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\","
    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,"
    "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"add\","
    "\"arguments\":\"{\\\"a\\\":2,\\\"b\\\":3}\"}}]},\"finish_reason\":\"tool_calls\"}],"
    "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}";

static int tool_five(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    (void)call;
    return seam_tool_output_json(out, "5");
}

typedef struct hook_log {
    size_t calls;
    size_t steps[4];
    size_t so_far[4];
    seam_tool_choice seen[4];
} hook_log;

static int prepare(void *ud, size_t step, const seam_generation *so_far, seam_step_settings *next)
{
    hook_log *h = ud;
    if (h->calls < 4) {
        h->steps[h->calls] = step;
        h->so_far[h->calls] = seam_generation_step_count(so_far);
        h->seen[h->calls] = next->tool_choice;
    }
    h->calls++;
    if (step == 0) {
        next->active_tools = "add";  /* the first turn sees add alone */
    } else {
        next->tool_choice = SEAM_TOOL_CHOICE_NAMED; /* kept forced after a round */
        next->tool_name = "mul";
        next->active_tools = "mul,nope";
    }
    return SEAM_OK;
}

static int fail_hook(void *ud, size_t step, const seam_generation *so_far, seam_step_settings *next)
{
    (void)ud;
    (void)step;
    (void)so_far;
    (void)next;
    return -1;
}

static json_object *body_at(size_t i)
{
    return json_tokener_parse(fake_server_request_body(srv, i));
}

static void test_prepare_step(void)
{
    turn a;
    if (!turn_start(&a, oa, "2+3?"))
        return;
    seam_toolset *ts = seam_toolset_new();
    CU_ASSERT_EQUAL_FATAL(seam_toolset_add(ts, "add", "adds", NULL, tool_five, NULL), SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(seam_toolset_add(ts, "mul", "multiplies", NULL, tool_five, NULL), SEAM_OK);
    seam_request_set_tool_choice(a.req, SEAM_TOOL_CHOICE_REQUIRED, NULL);
    a.lo.tools = ts;

    /* No hook: required on the first turn, auto after the round (as before). */
    size_t base = fake_server_request_count(srv);
    fake_server_push_json(srv, 200, OA_CALL_ADD, NULL);
    fake_server_push_json(srv, 200, OA_REPLY, NULL);
    CU_ASSERT_EQUAL_FATAL(turn_loop(&a), SEAM_OK);
    json_object *b0 = body_at(base), *b1 = body_at(base + 1);
    TU_STR_EQ(tu_json_str(b0, "tool_choice"), "required");
    TU_STR_EQ(tu_json_str(b1, "tool_choice"), "auto");
    CU_ASSERT_EQUAL(json_object_array_length(tu_json_at(b0, "tools")), 2);
    json_object_put(b0);
    json_object_put(b1);

    /* The hook: called before each turn with its index and the steps so
     * far; sets the tools offered and the choice, for that turn only. */
    hook_log h;
    memset(&h, 0, sizeof h);
    a.lo.prepare_step = prepare;
    a.lo.ud = &h;
    base = fake_server_request_count(srv);
    fake_server_push_json(srv, 200, OA_CALL_ADD, NULL);
    fake_server_push_json(srv, 200, OA_REPLY, NULL);
    CU_ASSERT_EQUAL_FATAL(turn_loop(&a), SEAM_OK);
    CU_ASSERT_EQUAL(seam_generation_step_count(a.g), 2);
    CU_ASSERT_EQUAL(h.calls, 2);
    CU_ASSERT_EQUAL(h.steps[0], 0);
    CU_ASSERT_EQUAL(h.so_far[0], 0);
    CU_ASSERT_EQUAL(h.seen[0], SEAM_TOOL_CHOICE_REQUIRED);
    CU_ASSERT_EQUAL(h.steps[1], 1);
    CU_ASSERT_EQUAL(h.so_far[1], 1);
    CU_ASSERT_EQUAL(h.seen[1], SEAM_TOOL_CHOICE_AUTO); /* the default it may override */
    b0 = body_at(base);
    b1 = body_at(base + 1);
    TU_STR_EQ(tu_json_str(b0, "tool_choice"), "required");
    CU_ASSERT_EQUAL(json_object_array_length(tu_json_at(b0, "tools")), 1);
    TU_STR_EQ(tu_json_str(b0, "tools.0.function.name"), "add");
    TU_STR_EQ(tu_json_str(b1, "tool_choice.function.name"), "mul");
    CU_ASSERT_EQUAL(json_object_array_length(tu_json_at(b1, "tools")), 1);
    TU_STR_EQ(tu_json_str(b1, "tools.0.function.name"), "mul");
    json_object_put(b0);
    json_object_put(b1);

    /* A hook that fails ends the run before anything is sent. */
    a.lo.prepare_step = fail_hook;
    base = fake_server_request_count(srv);
    CU_ASSERT_EQUAL(turn_loop(&a), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(a.err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), base);
    seam_toolset_free(ts);
    turn_free(&a);
}

/* ---- a partial result keeps its origin ------------------------------------------------ */

static void test_partial_origin(void)
{
    turn a;
    if (!turn_start(&a, oa, "hi"))
        return;
    static const char sse[] =
        "data: {\"id\":\"c9\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o\","
        "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello there\"},\"finish_reason\":null}]}\n\n"
        "data: {\"id\":\"c9\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o\","
        "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" and more\"},\"finish_reason\":null}]}\n\n";
    fake_response r = { .body = sse, .cut_after = sizeof sse - 1 - 20 };
    fake_server_push(srv, &r);
    seam_stream *st = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_stream_open(oa, a.req, &a.co, &st, &a.err), SEAM_OK);
    const seam_chunk *c;
    int rc, texts = 0;
    while ((rc = seam_stream_next(st, &c, &a.err)) == 1)
        texts += c->type == SEAM_CHUNK_TEXT_DELTA;
    CU_ASSERT(rc < 0);
    CU_ASSERT(texts >= 1);
    const seam_result *res = seam_stream_result(st);
    CU_ASSERT(seam_result_incomplete(res));
    TU_STR_EQ(seam_result_provider(res), "work");
    TU_STR_EQ(seam_result_model(res), "gpt-4o");
    seam_stream_free(st);
    turn_free(&a);
}

/* ---- the response id ------------------------------------------------------------------ */

typedef struct wire_case {
    const char *provider, *model, *sse, *id;
} wire_case;

static const wire_case WIRE_CASES[] = {
    { "oc", "gpt-4o",
      "data: {\"id\":\"chatcmpl-s1\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o\","
      "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}\n\n"
      "data: {\"id\":\"chatcmpl-s1\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o\","
      "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
      "data: [DONE]\n\n",
      "chatcmpl-s1" },
    { "rs", "gpt-4o",
      "event: response.created\n"
      "data: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_s2\",\"status\":\"in_progress\",\"output\":[]}}\n\n"
      "event: response.output_text.delta\n"
      "data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"item_id\":\"msg_1\","
      "\"content_index\":0,\"delta\":\"hi\"}\n\n"
      "event: response.completed\n"
      "data: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_s2\",\"status\":\"completed\","
      "\"output\":[{\"type\":\"message\",\"id\":\"msg_1\",\"role\":\"assistant\","
      "\"content\":[{\"type\":\"output_text\",\"text\":\"hi\"}]}],"
      "\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n",
      "resp_s2" },
    { "an", "claude-sonnet-4-5",
      "event: message_start\n"
      "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_s3\",\"type\":\"message\",\"role\":\"assistant\","
      "\"content\":[],\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":3,\"output_tokens\":0}}}\n\n"
      "event: content_block_start\n"
      "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_delta\n"
      "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n"
      "event: content_block_stop\n"
      "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\n"
      "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n"
      "event: message_stop\n"
      "data: {\"type\":\"message_stop\"}\n\n",
      "msg_s3" },
    { "gm", "gemini-2.5-flash",
      "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"hi\"}]}}],"
      "\"responseId\":\"gm-s4\"}\n\n"
      "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"!\"}]},"
      "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":3,\"candidatesTokenCount\":2},"
      "\"responseId\":\"gm-s4\"}\n\n",
      "gm-s4" },
};

/* Every wire's id reaches the result, streamed and (OpenAI chat, whose fast
 * path skips the id) blocking. */
static void test_response_id(void)
{
    if (!wires)
        return;
    seam_request *req = tu_user_request("hi");
    for (size_t i = 0; i < sizeof WIRE_CASES / sizeof WIRE_CASES[0]; i++) {
        const wire_case *w = &WIRE_CASES[i];
        fake_server_push_sse(srv, w->sse, 0);
        seam_call_options co = tu_call_opts(w->provider, w->model);
        seam_stream *st = NULL;
        seam_error err;
        seam_error_clear(&err);
        CU_ASSERT_EQUAL_FATAL(seam_stream_open(wires, req, &co, &st, &err), SEAM_OK);
        const seam_chunk *c;
        int rc;
        while ((rc = seam_stream_next(st, &c, &err)) == 1)
            ;
        CU_ASSERT_EQUAL(rc, 0);
        if (rc != 0)
            fprintf(stderr, "%s: %s\n", w->provider, err.message);
        const seam_result *res = seam_stream_result(st);
        CU_ASSERT(TU_STR_EQ(seam_result_text(res), i == 3 ? "hi!" : "hi"));
        CU_ASSERT(TU_STR_EQ(seam_result_response_id(res), w->id));
        seam_stream_free(st);
    }
    fake_server_push_json(srv, 200, OA_REPLY, NULL);
    seam_call_options co = tu_call_opts("oc", "gpt-4o");
    seam_result *res = NULL;
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_generate(wires, req, &co, &res, &err), SEAM_OK);
    CU_ASSERT(TU_STR_EQ(seam_result_response_id(res), "chatcmpl-77"));
    seam_result_free(res);
    CU_ASSERT_PTR_NULL(seam_result_response_id(NULL));
    seam_request_free(req);
}

/* ---- the stream_start chunk ------------------------------------------------------------ */

/* Appends the chunk type's name to log (cap bytes), after a space unless it is
 * the first. */
static void log_type(char *log, size_t cap, seam_chunk_type type)
{
    size_t n = strlen(log);
    snprintf(log + n, cap - n, "%s%s", n ? " " : "", seam_chunk_type_name(type));
}

/* Streams one answer of wire w with stream_start as asked; the chunk types
 * in order, space-separated, into log; the stream_start chunk's
 * name/text/id into who. */
static int stream_types(seam_client *c, const wire_case *w, int ask, char *log, size_t cap,
                        char *who, size_t who_cap)
{
    fake_server_push_sse(srv, w->sse, 0);
    turn a;
    turn_start(&a, c, "hi");
    a.co = tu_call_opts(w->provider, w->model);
    a.co.stream_start = ask;
    seam_stream *st = NULL;
    log[0] = who[0] = '\0';
    int rc = seam_stream_open(c, a.req, &a.co, &st, &a.err);
    const seam_chunk *ch;
    if (rc != SEAM_OK) {
        turn_free(&a);
        return rc;
    }
    while ((rc = seam_stream_next(st, &ch, &a.err)) == 1) {
        if (ch->type == SEAM_CHUNK_STREAM_START)
            snprintf(who, who_cap, "%s/%s/%s", ch->name ? ch->name : "(null)",
                     ch->text ? ch->text : "(null)", ch->id ? ch->id : "(null)");
        log_type(log, cap, ch->type);
    }
    seam_stream_free(st);
    turn_free(&a);
    return rc;
}

static void test_stream_start(void)
{
    if (!wires)
        return;
    char log[512], who[256], want[256];
    /* Every wire's response id is on the stream_start chunk, which goes out
     * before the first content: the codecs name it as soon as the stream does. */
    for (size_t i = 0; i < sizeof WIRE_CASES / sizeof WIRE_CASES[0]; i++) {
        const wire_case *w = &WIRE_CASES[i];
        CU_ASSERT_EQUAL(stream_types(wires, w, 1, log, sizeof log, who, sizeof who), 0);
        CU_ASSERT(strncmp(log, "stream_start text_delta", 23) == 0);
        snprintf(want, sizeof want, "%s/%s/%s", w->provider, w->model, w->id);
        CU_ASSERT(TU_STR_EQ(who, want));
    }
    CU_ASSERT_EQUAL(stream_types(wires, &WIRE_CASES[0], 1, log, sizeof log, who, sizeof who), 0);
    CU_ASSERT(TU_STR_EQ(log, "stream_start text_delta stop"));
    /* Not asked: the sequence is what it always was. */
    CU_ASSERT_EQUAL(stream_types(wires, &WIRE_CASES[0], 0, log, sizeof log, who, sizeof who), 0);
    CU_ASSERT(TU_STR_EQ(log, "text_delta stop"));
    CU_ASSERT(TU_STR_EQ(seam_chunk_type_name(SEAM_CHUNK_STREAM_START), "stream_start"));
    /* A chunk the accumulator takes without changing the result. */
    seam_result *res = seam_result_new();
    seam_chunk start = {.type = SEAM_CHUNK_STREAM_START, .name = "p", .text = "m"};
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &start), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_part_count(seam_result_message(res)), 0);
    seam_result_free(res);
}

/* ---- the tool loop's step_finish chunk ------------------------------------------------ */

static const char OA_SSE_CALL[] =
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
    "\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\","
    "\"function\":{\"name\":\"add\",\"arguments\":\"{}\"}}]},\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
    "\"delta\":{},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\n"
    "data: [DONE]\n\n";

/* Runs a two-step loop stream (a call of "add", then "hi"); the chunk types in
 * order into log; the step_finish's step, stop reason and usage into *fin. */
static int loop_types(int ask, char *log, size_t cap, size_t *fin_step, seam_chunk *fin)
{
    seam_toolset *ts = seam_toolset_new();
    seam_toolset_add(ts, "add", "adds", NULL, tool_five, NULL);
    turn a;
    turn_start(&a, wires, "2+3?");
    a.co = tu_call_opts("oc", "gpt-4o");
    a.co.stream_start = ask;
    a.lo.tools = ts;
    fake_server_push_sse(srv, OA_SSE_CALL, 0);
    fake_server_push_sse(srv, WIRE_CASES[0].sse, 0);
    seam_loop_stream *ls = NULL;
    log[0] = '\0';
    int rc = seam_loop_stream_open(wires, a.req, &a.lo, &ls, &a.err);
    const seam_chunk *ch;
    while (rc == SEAM_OK && (rc = seam_loop_stream_next(ls, &ch, &a.err)) == 1) {
        if (ch->type == SEAM_CHUNK_STEP_FINISH) {
            *fin = *ch;
            *fin_step = seam_loop_stream_step(ls);
        }
        log_type(log, cap, ch->type);
        rc = SEAM_OK;
    }
    seam_loop_stream_free(ls);
    turn_free(&a);
    seam_toolset_free(ts);
    return rc;
}

static void test_step_finish(void)
{
    if (!wires)
        return;
    char log[1024];
    size_t step = 99;
    seam_chunk fin = { 0 };
    CU_ASSERT_EQUAL(loop_types(1, log, sizeof log, &step, &fin), 0);
    CU_ASSERT(TU_STR_EQ(log, "stream_start tool_call_start tool_call_delta tool_call_end stop tool_result "
                             "step_finish stream_start text_delta stop"));
    CU_ASSERT_EQUAL(step, 0);
    CU_ASSERT_EQUAL(fin.stop_reason, SEAM_STOP_TOOL_USE);
    CU_ASSERT_EQUAL(fin.usage.input_tokens, 5);
    CU_ASSERT_EQUAL(fin.usage.output_tokens, 2);
    /* Not asked: neither chunk. */
    CU_ASSERT_EQUAL(loop_types(0, log, sizeof log, &step, &fin), 0);
    CU_ASSERT(TU_STR_EQ(log, "tool_call_start tool_call_delta tool_call_end stop tool_result text_delta stop"));
}

static const tu_test tests[] = {
    { "step_finish chunk", test_step_finish },
    { "stream_start chunk", test_stream_start },
    { "response id", test_response_id },
    { "partial result keeps its origin", test_partial_origin },
    { "prepare_step hook", test_prepare_step },
    { "default_model", test_default_model },
    { "raw response", test_raw_response },
    { "per-call credential", test_call_credential },
    { "error: provider and plugin", test_error_names_plugin },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("contracts", tests, start);
}
