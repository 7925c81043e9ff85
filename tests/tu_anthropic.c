/* tu_anthropic.c — what the tests of the Anthropic plugin (tests/test_anthropic_*.c)
 * share: the fake server of each test, the transcripts more than one of them
 * replays, the client they talk through, and a result flattened for
 * comparisons. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include "tu_anthropic.h"
#include <seam/seam.h>

fake_server *srv;

const char T_TEXT[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":25,\"cache_read_input_tokens\":100,\"cache_creation_input_tokens\":50,\"output_tokens\":1}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n"
    "{\"type\":\"ping\"}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\", w\\u00f6rld \\u2014 ok\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":0}\n"
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":12}}\n"
    "{\"type\":\"message_stop\"}\n";

const char B_TEXT[] =
    "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\","
    "\"content\":[{\"type\":\"text\",\"text\":\"Hello, w\\u00f6rld \\u2014 ok\"}],"
    "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
    "\"usage\":{\"input_tokens\":25,\"cache_read_input_tokens\":100,\"cache_creation_input_tokens\":50,\"output_tokens\":12}}";

const char T_THINK_TOOL[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":300,\"cache_read_input_tokens\":0,\"cache_creation_input_tokens\":0,\"output_tokens\":3}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"The user wants\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\" the weather.\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":0}\n"
    "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me check.\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":1}\n"
    "{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01A\",\"name\":\"get_weather\",\"input\":{}}}\n"
    "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \\\"Par\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"is\\\", \\\"days\\\": 3}\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":2}\n"
    "{\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01B\",\"name\":\"now\",\"input\":{}}}\n"
    "{\"type\":\"content_block_stop\",\"index\":3}\n"
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":90}}\n"
    "{\"type\":\"message_stop\"}\n";

/* The JSON answer of a model without native structured output: a forced "json" tool. */
const char T_JSON_TOOL[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_5\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":80,\"output_tokens\":2}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_json\",\"name\":\"json\",\"input\":{}}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"name\\\": \"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"Ada\\\"}\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":0}\n"
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":15}}\n"
    "{\"type\":\"message_stop\"}\n";

const char B_JSON_TOOL[] =
    "{\"id\":\"msg_5\",\"type\":\"message\",\"role\":\"assistant\",\"content\":["
    "{\"type\":\"tool_use\",\"id\":\"toolu_json\",\"name\":\"json\",\"input\":{\"name\":\"Ada\"}}],"
    "\"stop_reason\":\"tool_use\",\"usage\":{\"input_tokens\":80,\"output_tokens\":15}}";

/* Frames one-payload-per-line as Anthropic does: event: <type>, data: <line>. */
char *to_sse(const char *lines)
{
    size_t cap = strlen(lines) * 2 + 256, len = 0;
    char *out = malloc(cap);
    CU_ASSERT_FATAL(out != NULL);
    out[0] = '\0';
    const char *p = lines;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char *line = strndup(p, n);
        json_object *o = json_tokener_parse(line);
        CU_ASSERT_FATAL(o != NULL);
        json_object *t = NULL;
        json_object_object_get_ex(o, "type", &t);
        len += (size_t)snprintf(out + len, cap - len, "event: %s\ndata: %s\n\n",
                                t ? json_object_get_string(t) : "message", line);
        json_object_put(o);
        free(line);
        p += n + (nl ? 1 : 0);
    }
    return out;
}

void push_stream(const char *lines, size_t split)
{
    char *body = to_sse(lines);
    fake_server_push_sse(srv, body, split);
    free(body);
}

/* A client with provider "claude" (plugin anthropic) at <server>/v1 and
 * "claude2" at <server>/v2 (and "oai", plugin openai, at <server>/v3, used when
 * that plugin is built); `options` goes inside claude's options group,
 * `extra` after the providers (chains). */
seam_client *client_with(const char *options, const char *extra)
{
    char conf[8192];
    snprintf(conf, sizeof conf,
             "providers = {\n"
             "  claude = { plugin = \"anthropic\"; base_url = \"%s/v1\"; api_key = \"" SECRET "\";\n"
             "             options = { %s }; };\n"
             "  claude2 = { plugin = \"anthropic\"; base_url = \"%s/v2\"; api_key = \"sk-ant-other-key\"; };\n"
             "  oai = { plugin = \"openai\"; base_url = \"%s/v3\"; api_key = \"sk-oai-key\"; };\n"
             "};\n%s\n"
             /* The wire tests send small PDFs inline (the default ceiling is 0). */
             "media = { inline_document_bytes = 65536; };\n",
             fake_server_url(srv), options ? options : "", fake_server_url(srv),
             fake_server_url(srv), extra ? extra : "");
    seam_error err;
    seam_error_clear(&err);
    seam_client *c = tu_client(conf, &err);
    if (!c)
        fprintf(stderr, "client: %s\n", err.message);
    CU_ASSERT_FATAL(c != NULL);
    return c;
}

void summary_free(summary *s)
{
    seam_message_free(s->message);
    s->message = NULL;
}

void summarize(const seam_result *res, summary *s)
{
    const seam_message *m = seam_result_message(res);
    snprintf(s->text, sizeof s->text, "%s", seam_result_text(res));
    for (size_t i = 0; m && i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        switch (seam_part_get_type(p)) {
        case SEAM_PART_REASONING:
            s->n_reasoning++;
            strncat(s->reasoning, seam_part_text(p) ? seam_part_text(p) : "",
                    sizeof s->reasoning - strlen(s->reasoning) - 1);
            if (seam_part_signature(p))
                snprintf(s->signature, sizeof s->signature, "%s", seam_part_signature(p));
            s->redacted |= seam_part_redacted(p);
            break;
        case SEAM_PART_TOOL_CALL:
            if (s->n_calls < 8) {
                call_info *c = &s->calls[s->n_calls++];
                snprintf(c->id, sizeof c->id, "%s", seam_part_tool_call_id(p));
                snprintf(c->name, sizeof c->name, "%s", seam_part_tool_name(p));
                snprintf(c->args, sizeof c->args, "%s", seam_part_args_json(p));
                c->provider_executed = seam_part_provider_executed(p);
            }
            break;
        case SEAM_PART_TOOL_RESULT:
            if (s->n_results < 8) {
                result_info *r = &s->results[s->n_results++];
                snprintf(r->id, sizeof r->id, "%s", seam_part_tool_call_id(p));
                snprintf(r->name, sizeof r->name, "%s",
                         seam_part_tool_name(p) ? seam_part_tool_name(p) : "");
                snprintf(r->result, sizeof r->result, "%s", seam_part_result_json(p));
                r->is_error = seam_part_is_error(p);
                r->provider_executed = seam_part_provider_executed(p);
            }
            break;
        default:
            break;
        }
    }
    s->stop = seam_result_stop_reason(res);
    s->usage = *seam_result_usage(res);
    s->incomplete = seam_result_incomplete(res);
    s->message = m ? seam_message_dup(m) : NULL;
}

/* An empty summary with a clear error, before a call fills it. */
void summary_start(summary *s)
{
    memset(s, 0, sizeof *s);
    seam_error_clear(&s->err);
}

void run_generate(seam_client *c, const seam_request *req, const seam_call_options *o,
                  summary *s)
{
    summary_start(s);
    seam_result *res = NULL;
    s->status = seam_generate(c, req, o, &res, &s->err);
    if (res)
        summarize(res, s);
    seam_result_free(res);
}

void run_stream(seam_client *c, const seam_request *req, const seam_call_options *o,
                summary *s)
{
    summary_start(s);
    seam_stream *st = NULL;
    s->status = seam_stream_open(c, req, o, &st, &s->err);
    if (s->status != SEAM_OK)
        return;
    const seam_chunk *ch;
    int rc;
    while ((rc = seam_stream_next(st, &ch, &s->err)) == 1) {
        s->n_chunks++;
        if (ch->type >= 1 && ch->type <= SEAM_CHUNK_ERROR)
            s->chunk_count[ch->type]++;
    }
    s->status = rc;
    summarize(seam_stream_result(st), s);
    seam_stream_free(st);
}

seam_request *user_request(const char *text)
{
    seam_request *r = seam_request_new();
    CU_ASSERT_FATAL(r != NULL);
    CU_ASSERT_FATAL(seam_request_add_user_text(r, text) == SEAM_OK);
    return r;
}

call call_new(const char *options, const char *extra, seam_request *req, const char *model)
{
    call k = { client_with(options, extra), req, tu_call_opts("claude", model) };
    return k;
}

void call_free(call *k)
{
    seam_request_free(k->req);
    tu_client_free(k->c);
}

/* The call streamed, its answer transcript (split bytes a write). */
summary stream_answer(call *k, const char *transcript, size_t split)
{
    summary s;
    push_stream(transcript, split);
    run_stream(k->c, k->req, &k->o, &s);
    return s;
}

/* The call not streamed, its answer the whole body (a 200). */
summary whole_answer(call *k, const char *body)
{
    summary s;
    fake_server_push_json(srv, 200, body, NULL);
    run_generate(k->c, k->req, &k->o, &s);
    return s;
}

/* s holds n reasoning blocks whose texts, joined, are text; the last
 * signature is signature (unless NULL). */
void reasoning_is(const summary *s, int n, const char *text, const char *signature)
{
    CU_ASSERT_EQUAL(s->n_reasoning, n);
    CU_ASSERT(TU_STR_EQ(s->reasoning, text));
    if (signature)
        CU_ASSERT(TU_STR_EQ(s->signature, signature));
}

json_object *encode_with(seam_client *c, seam_request *req, const char *model)
{
    seam_call_options o = tu_call_opts("claude", model);
    fake_server_push_json(srv, 200, B_TEXT, NULL);
    summary s;
    run_generate(c, req, &o, &s);
    if (s.status != SEAM_OK)
        fprintf(stderr, "encode_with: %s\n", s.err.message);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    summary_free(&s);
    return tu_last_body(srv);
}

/* Encodes req for model (encode_with) and checks each member of the body sent
 * (one assertion a member; the model and member named when it fails). */
void encodes(seam_client *c, seam_request *req, const char *model, const member *wants)
{
    json_object *body = encode_with(c, req, model);
    for (; wants->path; wants++) {
        json_object *got = tu_json_at(body, wants->path);
        int ok = wants->want ? tu_json_equal(got, wants->want) : got == NULL;
        if (!ok)
            fprintf(stderr, "  (%s: %s%s)\n", model, wants->path, wants->want ? "" : " present");
        CU_ASSERT(ok);
    }
    json_object_put(body);
}

/* A call of "who?" asking for a person as JSON, on a client of its own; the
 * check that model answers natively (output_config, no tool). */
call person_call(const char *native_model)
{
    call k = call_new(NULL, NULL, user_request("who?"), native_model);
    seam_request_set_response_format(k.req, SEAM_FORMAT_JSON, "person", PERSON_SCHEMA, 1);
    encodes(k.c, k.req, native_model,
            MEMBERS({ "output_config", "{\"format\":{\"type\":\"json_schema\",\"schema\":" PERSON_SCHEMA "}}" },
                    { "tools", NULL }));
    return k;
}

/* The answer of the "json" tool (B_JSON_TOOL) decoded into text. */
void expect_ada(const summary *s)
{
    CU_ASSERT(TU_STR_EQ(s->text, "{\"name\":\"Ada\"}"));
    CU_ASSERT_EQUAL(s->n_calls, 0);
    CU_ASSERT_EQUAL(s->stop, SEAM_STOP_STOP);
}

/* A call (options o) that fails before anything is sent, the reason naming
 * needle; of that kind unless kind is SEAM_ERROR_NONE. */
void expect_unsent_with(seam_client *c, const seam_request *req, const seam_call_options *o,
                        seam_error_kind kind, const char *needle)
{
    size_t before = fake_server_request_count(srv);
    summary s;
    run_generate(c, req, o, &s);
    CU_ASSERT(s.status < 0);
    if (kind != SEAM_ERROR_NONE)
        CU_ASSERT_EQUAL(s.err.kind, kind);
    if (!strstr(s.err.message, needle))
        fprintf(stderr, "\n  error: %s\n  wanted: %s\n", s.err.message, needle);
    CU_ASSERT(strstr(s.err.message, needle) != NULL);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before);
    summary_free(&s);
}

/* A call to model that fails before anything is sent, the reason named; a
 * bad_request unless it is a conf error (the provider could not load its options). */
void expect_unsent(seam_client *c, const seam_request *req, const char *model,
                   const char *needle, int bad_request)
{
    seam_call_options o = tu_call_opts("claude", model);
    expect_unsent_with(c, req, &o, bad_request ? SEAM_ERROR_BAD_REQUEST : SEAM_ERROR_NONE, needle);
}

void expect_refused(seam_client *c, const seam_request *req, const char *model,
                    const char *needle)
{
    expect_unsent(c, req, model, needle, 1);
}

/* Each test gets its own server, so a response one test left queued (after a
 * failure) cannot shift the answers of the next. */
static void start_server(void)
{
    srv = fake_server_start();
    CU_ASSERT_FATAL(srv != NULL);
}

static void stop_server(void)
{
    fake_server_stop(srv);
    srv = NULL;
}

/* Runs tests as the suite "anthropic", each test on a server of its own. */
int tu_anthropic_run(const tu_test *tests)
{
    const tu_suite suites[] = {
        { .name = "anthropic", .tests = tests, .setup = start_server, .teardown = stop_server },
        { .name = NULL },
    };
    return tu_run_suites(suites);
}
