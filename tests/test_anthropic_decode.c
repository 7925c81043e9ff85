/* test_anthropic_decode.c — what comes back through the Anthropic plugin
 * (plugins/anthropic/decode.c, errors.c), the real loader and the fake provider
 * server: our own transcripts streamed byte by byte, cut at every byte, and as
 * whole responses that must give the same result; server tools, MCP and
 * unknown blocks, redacted thinking; errors inside a 200 stream, and the HTTP
 * error table. */
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

static const char B_THINK_TOOL[] =
    "{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":["
    "{\"type\":\"thinking\",\"thinking\":\"The user wants the weather.\",\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds\"},"
    "{\"type\":\"text\",\"text\":\"Let me check.\"},"
    "{\"type\":\"tool_use\",\"id\":\"toolu_01A\",\"name\":\"get_weather\",\"input\":{\"city\":\"Paris\",\"days\":3}},"
    "{\"type\":\"tool_use\",\"id\":\"toolu_01B\",\"name\":\"now\",\"input\":{}}],"
    "\"stop_reason\":\"tool_use\",\"stop_sequence\":null,"
    "\"usage\":{\"input_tokens\":300,\"cache_read_input_tokens\":0,\"cache_creation_input_tokens\":0,\"output_tokens\":90}}";

static const char T_SERVER_TOOL[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_3\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{\"input_tokens\":40,\"output_tokens\":1}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":\"web_search\",\"input\":{}}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"query\\\": \\\"seam c library\\\"}\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":0}\n"
    "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"web_search_tool_result\",\"tool_use_id\":\"srvtoolu_1\",\"content\":[{\"type\":\"web_search_result\",\"title\":\"Seam\",\"url\":\"https://example.org/seam\",\"encrypted_content\":\"Eq0x\",\"page_age\":null}]}}\n"
    "{\"type\":\"content_block_stop\",\"index\":1}\n"
    "{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_2\",\"name\":\"web_fetch\",\"input\":{}}}\n"
    "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"url\\\": \\\"https://example.org/x\\\"}\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":2}\n"
    "{\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"web_fetch_tool_result\",\"tool_use_id\":\"srvtoolu_2\",\"content\":{\"type\":\"web_fetch_tool_result_error\",\"error_code\":\"url_not_accessible\"}}}\n"
    "{\"type\":\"content_block_stop\",\"index\":3}\n"
    "{\"type\":\"content_block_start\",\"index\":4,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":4,\"delta\":{\"type\":\"text_delta\",\"text\":\"Seam is a C library.\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":4,\"delta\":{\"type\":\"citations_delta\",\"citation\":{\"type\":\"web_search_result_location\",\"url\":\"https://example.org/seam\",\"title\":\"Seam\",\"encrypted_index\":\"Eo8\",\"cited_text\":\"seam\"}}}\n"
    "{\"type\":\"content_block_stop\",\"index\":4}\n"
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":70,\"server_tool_use\":{\"web_search_requests\":1}}}\n"
    "{\"type\":\"message_stop\"}\n";

static const char B_SERVER_TOOL[] =
    "{\"id\":\"msg_3\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":["
    "{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":\"web_search\",\"input\":{\"query\":\"seam c library\"}},"
    "{\"type\":\"web_search_tool_result\",\"tool_use_id\":\"srvtoolu_1\",\"content\":[{\"type\":\"web_search_result\",\"title\":\"Seam\",\"url\":\"https://example.org/seam\",\"encrypted_content\":\"Eq0x\",\"page_age\":null}]},"
    "{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_2\",\"name\":\"web_fetch\",\"input\":{\"url\":\"https://example.org/x\"}},"
    "{\"type\":\"web_fetch_tool_result\",\"tool_use_id\":\"srvtoolu_2\",\"content\":{\"type\":\"web_fetch_tool_result_error\",\"error_code\":\"url_not_accessible\"}},"
    "{\"type\":\"text\",\"text\":\"Seam is a C library.\",\"citations\":[{\"type\":\"web_search_result_location\",\"url\":\"https://example.org/seam\",\"title\":\"Seam\",\"encrypted_index\":\"Eo8\",\"cited_text\":\"seam\"}]}],"
    "\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":40,\"output_tokens\":70,\"server_tool_use\":{\"web_search_requests\":1}}}";

static const char T_REDACTED[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_4\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":0}\n"
    "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Done.\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":1}\n"
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":20}}\n"
    "{\"type\":\"message_stop\"}\n";

static const char B_REDACTED[] =
    "{\"id\":\"msg_4\",\"type\":\"message\",\"role\":\"assistant\",\"content\":["
    "{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP\"},"
    "{\"type\":\"text\",\"text\":\"Done.\"}],"
    "\"stop_reason\":\"max_tokens\",\"usage\":{\"input_tokens\":10,\"output_tokens\":20}}";

/* A message_start that already holds content and its stop reason: a server
 * tool's result and a client tool call made from code execution. */
static const char T_PREPOPULATED[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_8\",\"type\":\"message\",\"role\":\"assistant\",\"content\":["
    "{\"type\":\"code_execution_tool_result\",\"tool_use_id\":\"srvtoolu_9\",\"content\":{\"type\":\"code_execution_result\",\"stdout\":\"42\\n\",\"stderr\":\"\",\"return_code\":0,\"content\":[]}},"
    "{\"type\":\"tool_use\",\"id\":\"toolu_9\",\"name\":\"lookup\",\"input\":{\"id\":\"c-1\"},\"caller\":{\"type\":\"code_execution_20250825\",\"tool_id\":\"srvtoolu_9\"}}],"
    "\"stop_reason\":\"tool_use\",\"usage\":{\"input_tokens\":0,\"output_tokens\":0}}}\n"
    "{\"type\":\"message_stop\"}\n";

/* Two whole messages back to back in one recording (a tool round and the answer). */
static const char T_TWO_MESSAGES[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_9\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":700,\"output_tokens\":1}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"first \"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"S1\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":0}\n"
    "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_m1\",\"name\":\"get\",\"input\":{}}}\n"
    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"k\\\": 1}\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":1}\n"
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":50}}\n"
    "{\"type\":\"message_stop\"}\n"
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_10\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":900,\"output_tokens\":1}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"second\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"S2\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":0}\n"
    "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"It is 1.\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":1}\n"
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":9}}\n"
    "{\"type\":\"message_stop\"}\n";

/* An MCP tool run by Anthropic, and block types this codec does not know
 * (a model fallback marker, a compaction summary) that carry no seam content. */
static const char T_MCP_UNKNOWN[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_11\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":589,\"output_tokens\":1}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"fallback\",\"from\":{\"model\":\"claude-a\"},\"to\":{\"model\":\"claude-b\"}}}\n"
    "{\"type\":\"content_block_stop\",\"index\":0}\n"
    "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"compaction\",\"content\":null}}\n"
    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"compaction_delta\",\"content\":\"## Summary\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":1}\n"
    "{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"mcp_tool_use\",\"id\":\"mcptoolu_1\",\"name\":\"echo\",\"input\":{},\"server_name\":\"echo\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"message\\\": \\\"hi\\\"}\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":2}\n"
    "{\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"mcp_tool_result\",\"tool_use_id\":\"mcptoolu_1\",\"is_error\":false,\"content\":[{\"type\":\"text\",\"text\":\"Tool echo: hi\"}]}}\n"
    "{\"type\":\"content_block_stop\",\"index\":3}\n"
    "{\"type\":\"content_block_start\",\"index\":4,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":4,\"delta\":{\"type\":\"text_delta\",\"text\":\"Echoed.\"}}\n"
    "{\"type\": \"ping\"}\n"
    "{\"type\":\"content_block_stop\",\"index\":4   }\n"
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"input_tokens\":1250,\"output_tokens\":83}}\n"
    "{\"type\":\"message_stop\"}\n";

static const char B_MCP_UNKNOWN[] =
    "{\"id\":\"msg_11\",\"type\":\"message\",\"role\":\"assistant\",\"content\":["
    "{\"type\":\"fallback\",\"from\":{\"model\":\"claude-a\"},\"to\":{\"model\":\"claude-b\"}},"
    "{\"type\":\"compaction\",\"content\":\"## Summary\"},"
    "{\"type\":\"mcp_tool_use\",\"id\":\"mcptoolu_1\",\"name\":\"echo\",\"input\":{\"message\":\"hi\"},\"server_name\":\"echo\"},"
    "{\"type\":\"mcp_tool_result\",\"tool_use_id\":\"mcptoolu_1\",\"is_error\":false,\"content\":[{\"type\":\"text\",\"text\":\"Tool echo: hi\"}]},"
    "{\"type\":\"text\",\"text\":\"Echoed.\"}],"
    "\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":1250,\"output_tokens\":83}}";

/* Streams transcript (split bytes a write) as the answer of "claude" with
 * model to the question "q", on a client of its own. */
static void stream_question(const char *model, const char *transcript, size_t split, summary *s)
{
    call k = call_new(NULL, NULL, user_request("q"), model);
    *s = stream_answer(&k, transcript, split);
    call_free(&k);
}

/* The answer s holds (taken from it) replayed: question, that answer, then
 * follow_up, sent on k's client and options and answered by B_TEXT. Returns
 * the body sent (the caller puts it). */
static json_object *replayed_body(call *k, const char *question, summary *s, const char *follow_up)
{
    seam_request *next = user_request(question);
    CU_ASSERT_FATAL(seam_request_add_message(next, s->message) == SEAM_OK);
    s->message = NULL;
    seam_request_add_user_text(next, follow_up);
    fake_server_push_json(srv, 200, B_TEXT, NULL);
    summary w;
    run_generate(k->c, next, &k->o, &w);
    CU_ASSERT_EQUAL(w.status, SEAM_OK);
    summary_free(&w);
    seam_request_free(next);
    return tu_last_body(srv);
}

/* r is the result of the tool call id, of the tool name. */
static void result_is(const result_info *r, const char *id, const char *name)
{
    CU_ASSERT(TU_STR_EQ(r->id, id));
    CU_ASSERT(TU_STR_EQ(r->name, name));
}

static void calls_equal(const call_info *a, const call_info *b)
{
    CU_ASSERT(TU_STR_EQ(a->id, b->id));
    CU_ASSERT(TU_STR_EQ(a->name, b->name));
    CU_ASSERT(TU_STR_EQ(a->args, b->args));
    CU_ASSERT_EQUAL(a->provider_executed, b->provider_executed);
}

static void results_equal(const result_info *a, const result_info *b)
{
    result_is(a, b->id, b->name);
    CU_ASSERT(TU_STR_EQ(a->result, b->result));
    CU_ASSERT_EQUAL(a->is_error, b->is_error);
}

static void summaries_equal(const summary *a, const summary *b)
{
    CU_ASSERT(a->status == SEAM_OK && b->status == SEAM_OK);
    CU_ASSERT(TU_STR_EQ(a->text, b->text));
    CU_ASSERT(TU_STR_EQ(a->reasoning, b->reasoning));
    CU_ASSERT(TU_STR_EQ(a->signature, b->signature));
    CU_ASSERT_EQUAL(a->n_reasoning, b->n_reasoning);
    CU_ASSERT_EQUAL(a->redacted, b->redacted);
    CU_ASSERT_EQUAL(a->n_calls, b->n_calls);
    for (int i = 0; i < a->n_calls && i < b->n_calls; i++)
        calls_equal(&a->calls[i], &b->calls[i]);
    CU_ASSERT_EQUAL(a->n_results, b->n_results);
    for (int i = 0; i < a->n_results && i < b->n_results; i++)
        results_equal(&a->results[i], &b->results[i]);
    CU_ASSERT_EQUAL(a->stop, b->stop);
    CU_ASSERT_EQUAL(a->usage.present, b->usage.present);
    CU_ASSERT_EQUAL(a->usage.input_tokens, b->usage.input_tokens);
    CU_ASSERT_EQUAL(a->usage.output_tokens, b->usage.output_tokens);
    CU_ASSERT_EQUAL(a->usage.cache_read_tokens, b->usage.cache_read_tokens);
    CU_ASSERT_EQUAL(a->usage.cache_write_tokens, b->usage.cache_write_tokens);
}

/* ==== streaming decode ======================================================= */

static void test_text_stream_and_wire(void)
{
    call k = call_new(NULL, NULL, user_request("hello"), "claude-sonnet-4-5");
    size_t before = fake_server_request_count(srv);
    summary s = stream_answer(&k, T_TEXT, 1);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    CU_ASSERT(TU_STR_EQ(s.text, "Hello, w\xc3\xb6rld \xe2\x80\x94 ok"));
    CU_ASSERT_EQUAL(s.stop, SEAM_STOP_STOP);
    CU_ASSERT_EQUAL(s.usage.present, SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT |
                                         SEAM_USAGE_CACHE_READ | SEAM_USAGE_CACHE_WRITE);
    CU_ASSERT_EQUAL(s.usage.input_tokens, 25);
    CU_ASSERT_EQUAL(s.usage.output_tokens, 12);
    CU_ASSERT_EQUAL(s.usage.cache_read_tokens, 100);
    CU_ASSERT_EQUAL(s.usage.cache_write_tokens, 50);
    CU_ASSERT_EQUAL(s.chunk_count[SEAM_CHUNK_TEXT_DELTA], 2);
    CU_ASSERT_EQUAL(s.chunk_count[SEAM_CHUNK_STOP], 1);

    /* The wire. */
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    CU_ASSERT(TU_STR_EQ(fake_server_request_method(srv, before), "POST"));
    CU_ASSERT(TU_STR_EQ(fake_server_request_path(srv, before), "/v1/messages"));
    CU_ASSERT(TU_STR_EQ(tu_last_header(srv, "x-api-key"), SECRET));
    CU_ASSERT(TU_STR_EQ(tu_last_header(srv, "anthropic-version"), "2023-06-01"));
    CU_ASSERT(TU_STR_EQ(tu_last_header(srv, "content-type"), "application/json"));
    CU_ASSERT_PTR_NULL(tu_last_header(srv, "anthropic-beta"));
    CU_ASSERT_PTR_NULL(tu_last_header(srv, "authorization"));
    json_object *body = tu_last_body(srv);
    CU_ASSERT(tu_json_equal(body, "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":16384,"
                                 "\"messages\":[{\"role\":\"user\",\"content\":"
                                 "[{\"type\":\"text\",\"text\":\"hello\"}]}],\"stream\":true}"));
    json_object_put(body);
    summary_free(&s);

    /* Not streamed: no "stream" member, and the same result from a whole body. */
    summary w = whole_answer(&k, B_TEXT);
    CU_ASSERT_EQUAL(w.status, SEAM_OK);
    body = tu_last_body(srv);
    CU_ASSERT_PTR_NULL(tu_json_at(body, "stream"));
    json_object_put(body);
    summary_free(&w);
    call_free(&k);
}

static void test_thinking_and_tools_stream(void)
{
    call k = call_new(NULL, NULL, user_request("weather in Paris?"), "claude-sonnet-4-5");
    summary s = stream_answer(&k, T_THINK_TOOL, 1);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    CU_ASSERT(TU_STR_EQ(s.reasoning, "The user wants the weather."));
    CU_ASSERT(TU_STR_EQ(s.signature, "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"));
    CU_ASSERT_EQUAL(s.redacted, 0);
    CU_ASSERT(TU_STR_EQ(s.text, "Let me check."));
    CU_ASSERT_EQUAL_FATAL(s.n_calls, 2);
    CU_ASSERT(TU_STR_EQ(s.calls[0].id, "toolu_01A"));
    CU_ASSERT(TU_STR_EQ(s.calls[0].name, "get_weather"));
    json_object *args = json_tokener_parse(s.calls[0].args);
    CU_ASSERT(tu_json_equal(args, "{\"city\":\"Paris\",\"days\":3}"));
    json_object_put(args);
    CU_ASSERT_EQUAL(s.calls[0].provider_executed, 0);
    CU_ASSERT(TU_STR_EQ(s.calls[1].name, "now"));
    CU_ASSERT(TU_STR_EQ(s.calls[1].args, "{}"));
    CU_ASSERT_EQUAL(s.stop, SEAM_STOP_TOOL_USE);
    CU_ASSERT_EQUAL(s.usage.input_tokens, 300);
    CU_ASSERT_EQUAL(s.usage.output_tokens, 90);
    CU_ASSERT_EQUAL(s.chunk_count[SEAM_CHUNK_REASONING_START], 1);
    CU_ASSERT_EQUAL(s.chunk_count[SEAM_CHUNK_REASONING_DELTA], 2);
    CU_ASSERT_EQUAL(s.chunk_count[SEAM_CHUNK_REASONING_END], 1);
    CU_ASSERT_EQUAL(s.chunk_count[SEAM_CHUNK_TOOL_CALL_START], 2);
    CU_ASSERT_EQUAL(s.chunk_count[SEAM_CHUNK_TOOL_CALL_DELTA], 2); /* empty fragments skipped */
    CU_ASSERT_EQUAL(s.chunk_count[SEAM_CHUNK_TOOL_CALL_END], 2);
    summary_free(&s);
    call_free(&k);
}

/* Every transcript: streamed (one byte per write) and whole give the same result. */
static void test_whole_response_equals_stream(void)
{
    static const struct {
        const char *stream, *body, *model;
        int json_format;
    } cases[] = {
        { T_TEXT, B_TEXT, "claude-sonnet-4-5", 0 },
        { T_THINK_TOOL, B_THINK_TOOL, "claude-sonnet-4-5", 0 },
        { T_SERVER_TOOL, B_SERVER_TOOL, "claude-sonnet-4-5", 0 },
        { T_REDACTED, B_REDACTED, "claude-sonnet-4-5", 0 },
        { T_JSON_TOOL, B_JSON_TOOL, "claude-3-5-haiku-20241022", 1 },
        { T_MCP_UNKNOWN, B_MCP_UNKNOWN, "claude-sonnet-4-5", 0 },
    };
    seam_client *c = client_with(NULL, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        call k = { c, user_request("q"), tu_call_opts("claude", cases[i].model) };
        if (cases[i].json_format)
            seam_request_set_response_format(k.req, SEAM_FORMAT_JSON, NULL, NULL, 0);
        summary st = stream_answer(&k, cases[i].stream, i % 2 ? 1 : 7);
        summary wh = whole_answer(&k, cases[i].body);
        if (st.status != SEAM_OK || wh.status != SEAM_OK)
            fprintf(stderr, "case %zu: %s / %s\n", i, st.err.message, wh.err.message);
        summaries_equal(&st, &wh);
        summary_free(&st);
        summary_free(&wh);
        seam_request_free(k.req);
    }
    tu_client_free(c);
}

/* A stream cut at any byte never gives a successful (silently truncated) result. */
static void test_cut_at_every_byte(void)
{
    call k = call_new(NULL, NULL, user_request("q"), "claude-sonnet-4-5");
    char *body = to_sse(T_THINK_TOOL);
    size_t len = strlen(body);
    int successes = 0;
    for (size_t cut = 1; cut < len; cut++) {
        fake_response r;
        memset(&r, 0, sizeof r);
        r.body = body;
        r.cut_after = cut;
        r.chunked = (int)(cut % 2);
        fake_server_push(srv, &r);
        summary s;
        run_stream(k.c, k.req, &k.o, &s);
        if (s.status == SEAM_OK) {
            successes++;
            fprintf(stderr, "cut at %zu of %zu succeeded\n", cut, len);
        }
        summary_free(&s);
    }
    CU_ASSERT_EQUAL(successes, 0);
    free(body);
    call_free(&k);
}

/* A body that ends cleanly after message_delta (a proxy that drops
 * message_stop) is complete; one that ends before it is not. */
static void test_clean_end_without_message_stop(void)
{
    call k = call_new(NULL, NULL, user_request("q"), "claude-sonnet-4-5");
    const char *stop = strstr(T_TEXT, "{\"type\":\"message_stop\"}");
    char *no_stop = strndup(T_TEXT, (size_t)(stop - T_TEXT));
    summary s = stream_answer(&k, no_stop, 0);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    CU_ASSERT_EQUAL(s.stop, SEAM_STOP_STOP);
    CU_ASSERT_EQUAL(s.usage.output_tokens, 12);
    summary_free(&s);

    const char *delta = strstr(T_TEXT, "{\"type\":\"message_delta\"");
    char *no_delta = strndup(T_TEXT, (size_t)(delta - T_TEXT));
    s = stream_answer(&k, no_delta, 0);
    CU_ASSERT(s.status < 0);
    CU_ASSERT_EQUAL(s.err.kind, SEAM_ERROR_TRANSPORT);
    summary_free(&s);
    free(no_stop);
    free(no_delta);
    call_free(&k);
}

static void test_server_tools(void)
{
    call k = call_new(NULL, NULL, user_request("what is seam?"), "claude-sonnet-4-5");
    summary s = stream_answer(&k, T_SERVER_TOOL, 3);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    CU_ASSERT_EQUAL(s.n_calls, 0); /* nothing for the engine to run */
    CU_ASSERT_EQUAL(s.chunk_count[SEAM_CHUNK_TOOL_CALL_START], 0);
    CU_ASSERT_EQUAL(s.chunk_count[SEAM_CHUNK_TOOL_RESULT], 2);
    CU_ASSERT_EQUAL_FATAL(s.n_results, 2);
    result_is(&s.results[0], "srvtoolu_1", "web_search");
    CU_ASSERT_EQUAL(s.results[0].provider_executed, 1);
    CU_ASSERT_EQUAL(s.results[0].is_error, 0);
    json_object *r = json_tokener_parse(s.results[0].result);
    CU_ASSERT(tu_json_equal(r, "[{\"type\":\"web_search_result\",\"title\":\"Seam\","
                              "\"url\":\"https://example.org/seam\",\"encrypted_content\":\"Eq0x\","
                              "\"page_age\":null}]"));
    json_object_put(r);
    CU_ASSERT(TU_STR_EQ(s.results[1].name, "web_fetch"));
    CU_ASSERT_EQUAL(s.results[1].is_error, 1);
    CU_ASSERT(TU_STR_EQ(s.text, "Seam is a C library."));
    CU_ASSERT_EQUAL(s.stop, SEAM_STOP_STOP);

    /* Replayed to Anthropic, the provider-executed parts are left out. */
    json_object *body = replayed_body(&k, "what is seam?", &s, "thanks");
    CU_ASSERT(tu_json_equal(tu_json_at(body, "messages"),
                           "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"what is seam?\"}]},"
                           "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Seam is a C library.\"}]},"
                           "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"thanks\"}]}]"));
    json_object_put(body);
    summary_free(&s);
    call_free(&k);
}

static void test_message_start_with_content(void)
{
    summary s;
    stream_question("claude-sonnet-4-6", T_PREPOPULATED, 0, &s);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(s.n_results, 1);
    result_is(&s.results[0], "srvtoolu_9", "code_execution");
    CU_ASSERT_EQUAL(s.results[0].provider_executed, 1);
    CU_ASSERT_EQUAL_FATAL(s.n_calls, 1);
    CU_ASSERT(TU_STR_EQ(s.calls[0].id, "toolu_9"));
    CU_ASSERT(TU_STR_EQ(s.calls[0].args, "{\"id\":\"c-1\"}"));
    CU_ASSERT_EQUAL(s.calls[0].provider_executed, 0); /* the client runs it */
    CU_ASSERT_EQUAL(s.stop, SEAM_STOP_TOOL_USE);
    summary_free(&s);
}

static void test_two_messages_in_one_stream(void)
{
    summary s;
    stream_question("claude-sonnet-4-5", T_TWO_MESSAGES, 1, &s);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    reasoning_is(&s, 2, "first second", "S2");
    CU_ASSERT(TU_STR_EQ(s.text, "It is 1."));
    CU_ASSERT_EQUAL_FATAL(s.n_calls, 1);
    CU_ASSERT(TU_STR_EQ(s.calls[0].args, "{\"k\":1}"));
    CU_ASSERT_EQUAL(s.stop, SEAM_STOP_STOP);
    CU_ASSERT_EQUAL(s.usage.input_tokens, 900);
    CU_ASSERT_EQUAL(s.usage.output_tokens, 9);
    summary_free(&s);
}

static void test_mcp_and_unknown_blocks(void)
{
    summary s;
    stream_question("claude-sonnet-4-5", T_MCP_UNKNOWN, 4, &s);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    CU_ASSERT(TU_STR_EQ(s.text, "Echoed."));
    CU_ASSERT_EQUAL(s.n_calls, 0);
    CU_ASSERT_EQUAL_FATAL(s.n_results, 1);
    result_is(&s.results[0], "mcptoolu_1", "echo");
    CU_ASSERT(TU_STR_EQ(s.results[0].result, "[{\"type\":\"text\",\"text\":\"Tool echo: hi\"}]"));
    CU_ASSERT_EQUAL(s.results[0].is_error, 0);
    CU_ASSERT_EQUAL(s.n_reasoning, 0);
    CU_ASSERT_EQUAL(s.usage.input_tokens, 1250);
    CU_ASSERT_EQUAL(s.usage.output_tokens, 83);
    CU_ASSERT_EQUAL(s.n_chunks, s.chunk_count[SEAM_CHUNK_TEXT_DELTA] +
                                    s.chunk_count[SEAM_CHUNK_TOOL_RESULT] +
                                    s.chunk_count[SEAM_CHUNK_STOP]);
    summary_free(&s);
}

static void test_redacted_thinking_round_trip(void)
{
    call k = call_new(NULL, NULL, user_request("q"), "claude-sonnet-4-5");
    summary s = stream_answer(&k, T_REDACTED, 5);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    CU_ASSERT_EQUAL(s.redacted, 1);
    reasoning_is(&s, 1, "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP", NULL);
    CU_ASSERT_EQUAL(s.stop, SEAM_STOP_LENGTH);

    json_object *body = replayed_body(&k, "q", &s, "go on");
    json_object *assistant = json_object_array_get_idx(tu_json_at(body, "messages"), 1);
    CU_ASSERT(tu_json_equal(tu_json_at(assistant, "content"),
                           "[{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP\"},"
                           "{\"type\":\"text\",\"text\":\"Done.\"}]"));
    json_object_put(body);
    summary_free(&s);
    call_free(&k);
}

static const char T_OVERLOADED_AFTER_START[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_6\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n"
    "{\"type\":\"ping\"}\n"
    "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n";

static const char T_API_ERROR_MIDWAY[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_7\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Partial\"}}\n"
    "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}\n";

/* ==== errors inside a 200 stream =============================================== */

static void test_overloaded_event_after_message_start(void)
{
    seam_client *c = client_with(NULL, "chains = { two = ( { provider = \"claude\"; model = \"claude-sonnet-4-5\"; },\n"
                                       "                   { provider = \"claude2\"; model = \"claude-sonnet-4-5\"; } ); };");
    seam_request *req = user_request("q");
    seam_call_options o = tu_call_opts("claude", "claude-sonnet-4-5");
    push_stream(T_OVERLOADED_AFTER_START, 1);
    summary s;
    run_stream(c, req, &o, &s);
    CU_ASSERT(s.status < 0);
    CU_ASSERT_EQUAL(s.err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_EQUAL(s.err.retryable, 1);
    CU_ASSERT(TU_STR_EQ(s.err.code, "overloaded_error"));
    CU_ASSERT(strstr(s.err.message, "Overloaded") != NULL);
    summary_free(&s);

    /* Retryable, and no content reached the caller: the chain fails over. */
    seam_call_options chain;
    memset(&chain, 0, sizeof chain);
    chain.size = sizeof chain;
    chain.chain = "two";
    size_t before = fake_server_request_count(srv);
    push_stream(T_OVERLOADED_AFTER_START, 0);
    push_stream(T_TEXT, 0);
    run_stream(c, req, &chain, &s);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    CU_ASSERT(TU_STR_EQ(s.text, "Hello, w\xc3\xb6rld \xe2\x80\x94 ok"));
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 2);
    CU_ASSERT(TU_STR_EQ(fake_server_request_path(srv, before + 1), "/v2/messages"));
    summary_free(&s);

    /* api_error after content: retryable too, surfaced with the result incomplete. */
    push_stream(T_API_ERROR_MIDWAY, 0);
    run_stream(c, req, &o, &s);
    CU_ASSERT(s.status < 0);
    CU_ASSERT_EQUAL(s.err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_EQUAL(s.err.retryable, 1);
    CU_ASSERT(TU_STR_EQ(s.err.code, "api_error"));
    CU_ASSERT(TU_STR_EQ(s.text, "Partial"));
    CU_ASSERT_EQUAL(s.incomplete, 1);
    summary_free(&s);
    seam_request_free(req);
    tu_client_free(c);
}

/* ==== the HTTP error table ===================================================== */

/* The rate-limit headers of the 429 row: the limits, Retry-After, and one
 * that is none of them. */
static const char ratelimit_headers[] =
    "retry-after: 7\r\nanthropic-ratelimit-requests-limit: 50\r\nanthropic-ratelimit-requests-remaining: 0\r\n"
    "anthropic-ratelimit-tokens-reset: 2025-01-01T00:00:07Z\r\nx-unrelated: 1\r\n";

static void test_error_table(void)
{
    /* Anthropic's error object, {"type":"error","error":{"type","message"}},
     * from its fields, or a body as it comes (type NULL); the code a row
     * expects is its type. */
    static const struct {
        int status;
        const char *type, *message;
        seam_error_kind kind;
        int retryable;
    } rows[] = {
        { 400, "invalid_request_error", "messages: roles must alternate", SEAM_ERROR_BAD_REQUEST, 0 },
        { 400, "invalid_request_error", "prompt is too long: 213512 tokens > 200000 maximum", SEAM_ERROR_CONTEXT_OVERFLOW, 0 },
        { 400, "invalid_request_error", "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000", SEAM_ERROR_CONTEXT_OVERFLOW, 0 },
        { 401, "authentication_error", "invalid x-api-key " SECRET, SEAM_ERROR_AUTH, 0 },
        { 403, "permission_error", "Your API key does not have permission", SEAM_ERROR_AUTH, 0 },
        { 404, "not_found_error", "model: claude-nope", SEAM_ERROR_MODEL_NOT_FOUND, 0 },
        { 413, "request_too_large", "Request exceeds the maximum allowed number of bytes.", SEAM_ERROR_BAD_REQUEST, 0 },
        { 429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", SEAM_ERROR_RATE_LIMIT, 1 },
        { 500, "api_error", "Internal server error", SEAM_ERROR_OVERLOADED, 1 },
        { 529, "overloaded_error", "Overloaded", SEAM_ERROR_OVERLOADED, 1 },
        { 529, NULL, "<html>busy</html>", SEAM_ERROR_OVERLOADED, 1 },
        { 504, "timeout_error", "Request timed out", SEAM_ERROR_TIMEOUT, 1 },
    };
    seam_client *c = client_with(NULL, NULL);
    seam_request *req = user_request("q");
    seam_call_options o = tu_call_opts("claude", "claude-sonnet-4-5");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char body[512];
        if (rows[i].type)
            snprintf(body, sizeof body, "{\"type\":\"error\",\"error\":{\"type\":\"%s\",\"message\":\"%s\"}}",
                     rows[i].type, rows[i].message);
        else
            snprintf(body, sizeof body, "%s", rows[i].message);
        tu_http_error e = { rows[i].status, body, rows[i].status == 429 ? ratelimit_headers : NULL, rows[i].kind,
                            rows[i].retryable, rows[i].type ? rows[i].type : "",
                            i == 0 ? "roles must alternate" : NULL };
        tu_push_http_error(srv, &e);
        summary s;
        run_generate(c, req, &o, &s);
        CU_ASSERT(s.status < 0);
        tu_error_is(&s.err, &e, SECRET);
        if (rows[i].status == 429) {
            CU_ASSERT_EQUAL(s.err.retry_after_ms, 7000);
            CU_ASSERT(strstr(s.err.ratelimit, "anthropic-ratelimit-requests-remaining: 0\n") != NULL);
            CU_ASSERT(strstr(s.err.ratelimit, "anthropic-ratelimit-requests-limit: 50\n") != NULL);
            CU_ASSERT(strstr(s.err.ratelimit, "anthropic-ratelimit-tokens-reset: 2025-01-01T00:00:07Z\n") != NULL);
            CU_ASSERT(strstr(s.err.ratelimit, "etry-after: 7\n") != NULL);
            CU_ASSERT(strstr(s.err.ratelimit, "x-unrelated") == NULL);
            /* each header once, even when the core kept some already */
            const char *first = strstr(s.err.ratelimit, "anthropic-ratelimit-requests-limit");
            CU_ASSERT(first && !strstr(first + 1, "anthropic-ratelimit-requests-limit"));
            first = strstr(s.err.ratelimit, "etry-after: 7");
            CU_ASSERT(first && !strstr(first + 1, "etry-after: 7"));
        }
        summary_free(&s);
    }
    seam_request_free(req);
    tu_client_free(c);
}

static const tu_test tests[] = {
    { "text stream and wire", test_text_stream_and_wire },
    { "thinking and tools stream", test_thinking_and_tools_stream },
    { "whole response equals stream", test_whole_response_equals_stream },
    { "cut at every byte", test_cut_at_every_byte },
    { "clean end without message_stop", test_clean_end_without_message_stop },
    { "server tools", test_server_tools },
    { "message_start with content", test_message_start_with_content },
    { "two messages in one stream", test_two_messages_in_one_stream },
    { "mcp and unknown blocks", test_mcp_and_unknown_blocks },
    { "redacted thinking round trip", test_redacted_thinking_round_trip },
    { "overloaded event after message_start", test_overloaded_event_after_message_start },
    { "error table", test_error_table },
    { NULL, NULL },
};

int main(void)
{
    return tu_anthropic_run(tests);
}
