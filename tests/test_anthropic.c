/* test_anthropic.c — the Anthropic plugin (plugins/anthropic) through the real
 * loader and the fake provider server: the wire the core sends (URL, headers,
 * JSON body: golden bodies for messages, tools, thinking, caching, structured
 * output, media), the decode of our own transcripts (streamed byte by byte,
 * cut at every byte, and as whole responses that must give the same result),
 * server tools, redacted thinking, a thinking turn replayed with its signature
 * to Anthropic and without it to another provider, errors inside a 200 stream,
 * and the HTTP error table. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

#define SECRET "sk-ant-test-secret"

static fake_server *srv;

/* ==== transcripts (one event payload per line, framed by to_sse) ============ */

static const char T_TEXT[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":25,\"cache_read_input_tokens\":100,\"cache_creation_input_tokens\":50,\"output_tokens\":1}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n"
    "{\"type\":\"ping\"}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\", w\\u00f6rld \\u2014 ok\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":0}\n"
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":12}}\n"
    "{\"type\":\"message_stop\"}\n";

static const char B_TEXT[] =
    "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\","
    "\"content\":[{\"type\":\"text\",\"text\":\"Hello, w\\u00f6rld \\u2014 ok\"}],"
    "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
    "\"usage\":{\"input_tokens\":25,\"cache_read_input_tokens\":100,\"cache_creation_input_tokens\":50,\"output_tokens\":12}}";

static const char T_THINK_TOOL[] =
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

/* The JSON answer of a model without native structured output: a forced "json" tool. */
static const char T_JSON_TOOL[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_5\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":80,\"output_tokens\":2}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_json\",\"name\":\"json\",\"input\":{}}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"name\\\": \"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"Ada\\\"}\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":0}\n"
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":15}}\n"
    "{\"type\":\"message_stop\"}\n";

static const char B_JSON_TOOL[] =
    "{\"id\":\"msg_5\",\"type\":\"message\",\"role\":\"assistant\",\"content\":["
    "{\"type\":\"tool_use\",\"id\":\"toolu_json\",\"name\":\"json\",\"input\":{\"name\":\"Ada\"}}],"
    "\"stop_reason\":\"tool_use\",\"usage\":{\"input_tokens\":80,\"output_tokens\":15}}";

static const char T_OVERLOADED_AFTER_START[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_6\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n"
    "{\"type\":\"ping\"}\n"
    "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n";

static const char T_API_ERROR_MIDWAY[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_7\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Partial\"}}\n"
    "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}\n";

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

/* ==== helpers =============================================================== */

/* Frames one-payload-per-line as Anthropic does: event: <type>, data: <line>. */
static char *to_sse(const char *lines)
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

static void push_stream(const char *lines, size_t split)
{
    char *body = to_sse(lines);
    fake_server_push_sse(srv, body, split);
    free(body);
}

/* A client with provider "claude" (plugin anthropic) at <server>/v1 and
 * "claude2" at <server>/v2 (and "oai", plugin openai, at <server>/v3, used when
 * that plugin is built); `options` goes inside claude's options group,
 * `extra` after the providers (chains). */
static seam_client *client_with(const char *options, const char *extra)
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

/* What a result holds, flattened for comparisons. */
typedef struct call_info {
    char id[128], name[128], args[1024];
    int provider_executed;
} call_info;

typedef struct result_info {
    char id[128], name[128], result[2048];
    int is_error, provider_executed;
} result_info;

typedef struct summary {
    int status;
    seam_error err;
    char text[4096];
    char reasoning[4096];
    char signature[1024];
    int n_reasoning, redacted;
    call_info calls[8];
    int n_calls;
    result_info results[8];
    int n_results;
    seam_stop_reason stop;
    seam_usage usage;
    int incomplete;
    int n_chunks;
    int chunk_count[SEAM_CHUNK_ERROR + 1];
    seam_message *message; /* the assistant message (owned) */
} summary;

static void summary_free(summary *s)
{
    seam_message_free(s->message);
    s->message = NULL;
}

static void summarize(const seam_result *res, summary *s)
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
static void summary_start(summary *s)
{
    memset(s, 0, sizeof *s);
    seam_error_clear(&s->err);
}

static void run_generate(seam_client *c, const seam_request *req, const seam_call_options *o,
                         summary *s)
{
    summary_start(s);
    seam_result *res = NULL;
    s->status = seam_generate(c, req, o, &res, &s->err);
    if (res)
        summarize(res, s);
    seam_result_free(res);
}

static void run_stream(seam_client *c, const seam_request *req, const seam_call_options *o,
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

static seam_request *user_request(const char *text)
{
    seam_request *r = seam_request_new();
    CU_ASSERT_FATAL(r != NULL);
    CU_ASSERT_FATAL(seam_request_add_user_text(r, text) == SEAM_OK);
    return r;
}

/* What the calls of a test share: a client (client_with's options and
 * extra), a request (owned) and the call options naming "claude" with model. */
typedef struct call {
    seam_client *c;
    seam_request *req;
    seam_call_options o;
} call;

static call call_new(const char *options, const char *extra, seam_request *req, const char *model)
{
    call k = { client_with(options, extra), req, tu_call_opts("claude", model) };
    return k;
}

static void call_free(call *k)
{
    seam_request_free(k->req);
    tu_client_free(k->c);
}

/* The call streamed, its answer transcript (split bytes a write). */
static summary stream_answer(call *k, const char *transcript, size_t split)
{
    summary s;
    push_stream(transcript, split);
    run_stream(k->c, k->req, &k->o, &s);
    return s;
}

/* The call not streamed, its answer the whole body (a 200). */
static summary whole_answer(call *k, const char *body)
{
    summary s;
    fake_server_push_json(srv, 200, body, NULL);
    run_generate(k->c, k->req, &k->o, &s);
    return s;
}

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

/* s holds n reasoning blocks whose texts, joined, are text; the last
 * signature is signature (unless NULL). */
static void reasoning_is(const summary *s, int n, const char *text, const char *signature)
{
    CU_ASSERT_EQUAL(s->n_reasoning, n);
    CU_ASSERT(TU_STR_EQ(s->reasoning, text));
    if (signature)
        CU_ASSERT(TU_STR_EQ(s->signature, signature));
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

/* ==== encode ==================================================================== */

static void test_encode_golden(void)
{
    seam_client *c = client_with(NULL, NULL);
    seam_request *req = seam_request_new();
    seam_request_set_system(req, "You are terse.");
    seam_request_add_user_text(req, "Look at these.");
    /* merged into the first user message */
    tu_add_turn(req, SEAM_ROLE_USER, TU_PARTS(TU_MEDIA("image/png", SEAM_MEDIA_BASE64, "iVBORw0KGgo="),
                                              TU_MEDIA("image/jpeg", SEAM_MEDIA_URL, "https://example.org/a.jpg"),
                                              TU_MEDIA("application/pdf", SEAM_MEDIA_BASE64, "JVBERi0xLjQ=")));
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_reasoning(m, "Think first.", "sig-123", 0);
    seam_message_add_reasoning(m, "opaque-data", NULL, 1);
    seam_message_add_reasoning(m, "unsigned thoughts from elsewhere", NULL, 0);
    seam_message_add_text(m, "");
    seam_message_add_text(m, "Calling tools.");
    seam_message_add_tool_call(m, "toolu_1", "get_weather", "{\"city\":\"Paris\"}");
    seam_message_add_tool_call(m, "toolu_2", "now", NULL);
    seam_request_add_message(req, m);
    m = seam_message_new(SEAM_ROLE_TOOL);
    seam_message_add_tool_result(m, "toolu_1", "get_weather", "{\"temp\":21}", 0);
    seam_request_add_message(req, m);
    m = seam_message_new(SEAM_ROLE_TOOL);
    seam_message_add_tool_result(m, "toolu_2", "now", "\"clock broken\"", 1);
    seam_request_add_message(req, m);
    seam_request_add_user_text(req, "And tomorrow?"); /* merged after the results */
    seam_request_add_tool(req, "get_weather", "Weather for a city",
                          "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}");
    seam_request_add_tool(req, "now", NULL, NULL);
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_NAMED, "get_weather");
    seam_request_set_temperature(req, 0.7);
    seam_request_set_max_tokens(req, 1000);
    seam_request_add_stop(req, "###");
    seam_call_options o = tu_call_opts("claude", "claude-sonnet-4-5-20250929");
    fake_server_push_json(srv, 200, B_TEXT, NULL);
    summary s;
    run_generate(c, req, &o, &s);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    CU_ASSERT(tu_last_body_is(srv,
        "{\"model\":\"claude-sonnet-4-5-20250929\",\"max_tokens\":1000,\"system\":\"You are terse.\","
        "\"messages\":["
        "{\"role\":\"user\",\"content\":["
        "{\"type\":\"text\",\"text\":\"Look at these.\"},"
        "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"iVBORw0KGgo=\"}},"
        "{\"type\":\"image\",\"source\":{\"type\":\"url\",\"url\":\"https://example.org/a.jpg\"}},"
        "{\"type\":\"document\",\"source\":{\"type\":\"base64\",\"media_type\":\"application/pdf\",\"data\":\"JVBERi0xLjQ=\"}}]},"
        "{\"role\":\"assistant\",\"content\":["
        "{\"type\":\"thinking\",\"thinking\":\"Think first.\",\"signature\":\"sig-123\"},"
        "{\"type\":\"redacted_thinking\",\"data\":\"opaque-data\"},"
        "{\"type\":\"text\",\"text\":\"Calling tools.\"},"
        "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{\"city\":\"Paris\"}},"
        "{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"now\",\"input\":{}}]},"
        "{\"role\":\"user\",\"content\":["
        "{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"{\\\"temp\\\":21}\"},"
        "{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_2\",\"content\":\"clock broken\",\"is_error\":true},"
        "{\"type\":\"text\",\"text\":\"And tomorrow?\"}]}],"
        "\"tools\":["
        "{\"name\":\"get_weather\",\"description\":\"Weather for a city\",\"input_schema\":"
        "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}},"
        "{\"name\":\"now\",\"input_schema\":{\"type\":\"object\"}}],"
        "\"tool_choice\":{\"type\":\"tool\",\"name\":\"get_weather\"},"
        "\"temperature\":0.7,\"stop_sequences\":[\"###\"]}"));
    /* 0.7 travels as 0.7, not as a 17-digit approximation. */
    CU_ASSERT(strstr(fake_server_request_body(srv, fake_server_request_count(srv) - 1),
                     "\"temperature\":0.7,") != NULL);
    summary_free(&s);
    seam_request_free(req);
    tu_client_free(c);
}

static json_object *encode_with(seam_client *c, seam_request *req, const char *model)
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

/* A member of a request body and what it must be: JSON text, or NULL for
 * absent. */
typedef struct member {
    const char *path, *want;
} member;
/* A table of members, ended for encodes. */
#define MEMBERS(...) ((const member[]){ __VA_ARGS__, { NULL, NULL } })

/* Encodes req for model (encode_with) and checks each member of the body sent
 * (one assertion a member; the model and member named when it fails). */
static void encodes(seam_client *c, seam_request *req, const char *model, const member *wants)
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

static void test_tool_choice_mapping(void)
{
    static const struct {
        seam_tool_choice choice;
        const char *want; /* NULL: absent */
    } cases[] = {
        { SEAM_TOOL_CHOICE_AUTO, NULL },
        { SEAM_TOOL_CHOICE_NONE, "{\"type\":\"none\"}" },
        { SEAM_TOOL_CHOICE_REQUIRED, "{\"type\":\"any\"}" },
        { SEAM_TOOL_CHOICE_NAMED, "{\"type\":\"tool\",\"name\":\"t\"}" },
    };
    seam_client *c = client_with(NULL, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        seam_request *req = user_request("q");
        seam_request_add_tool(req, "t", "a tool", NULL);
        seam_request_set_tool_choice(req, cases[i].choice, "t");
        json_object *body = encode_with(c, req, "claude-sonnet-4-5");
        if (cases[i].want) {
            CU_ASSERT(tu_json_equal(tu_json_at(body, "tool_choice"), cases[i].want));
        } else {
            CU_ASSERT_PTR_NULL(tu_json_at(body, "tool_choice"));
        }
        json_object_put(body);
        seam_request_free(req);
    }
    /* No tools: no tools and no tool_choice at all. */
    seam_request *req = user_request("q");
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_REQUIRED, NULL);
    json_object *body = encode_with(c, req, "claude-sonnet-4-5");
    CU_ASSERT_PTR_NULL(tu_json_at(body, "tools"));
    CU_ASSERT_PTR_NULL(tu_json_at(body, "tool_choice"));
    json_object_put(body);
    seam_request_free(req);
    tu_client_free(c);

    /* disable_parallel_tool_use rides inside tool_choice. */
    call k = call_new("disable_parallel_tool_use = true;", NULL, user_request("q"), "claude-sonnet-4-5");
    seam_request_add_tool(k.req, "t", NULL, NULL);
    encodes(k.c, k.req, "claude-sonnet-4-5", MEMBERS({ "tool_choice", "{\"type\":\"auto\",\"disable_parallel_tool_use\":true}" }));
    call_free(&k);
}

static void test_thinking_encode(void)
{
    seam_client *c = client_with(NULL, NULL);
    seam_request *req = user_request("q");
    seam_request_set_reasoning_budget(req, 2000);
    seam_request_set_temperature(req, 0.3);
    json_object *body = encode_with(c, req, "claude-sonnet-4-5");
    CU_ASSERT(tu_json_equal(tu_json_at(body, "thinking"), "{\"type\":\"enabled\",\"budget_tokens\":2000}"));
    CU_ASSERT(tu_json_equal(tu_json_at(body, "max_tokens"), "16384"));
    CU_ASSERT_PTR_NULL(tu_json_at(body, "temperature")); /* not allowed with thinking */
    json_object_put(body);

    /* max_tokens not above the budget: the budget is added. */
    seam_request_set_max_tokens(req, 1000);
    encodes(c, req, "claude-sonnet-4-5", MEMBERS({ "max_tokens", "3000" }));

    /* A budget near INT64_MAX (found by fuzz/fuzz_encode.c): max_tokens
     * saturates and is capped, never wraps negative. */
    seam_request_set_reasoning_budget(req, INT64_MAX);
    body = encode_with(c, req, "claude-sonnet-4-5");
    CU_ASSERT(json_object_get_int64(tu_json_at(body, "max_tokens")) > 0);
    CU_ASSERT(json_object_get_int64(tu_json_at(tu_json_at(body, "thinking"), "budget_tokens")) <
              json_object_get_int64(tu_json_at(body, "max_tokens")));
    json_object_put(body);

    /* Below the API's minimum budget: raised to 1024. */
    seam_request_set_reasoning_budget(req, 100);
    seam_request_set_max_tokens(req, 5000);
    encodes(c, req, "claude-sonnet-4-5",
            MEMBERS({ "thinking", "{\"type\":\"enabled\",\"budget_tokens\":1024}" },
                     { "max_tokens", "5000" }));

    /* A family without extended thinking, asked for a budget through the
     * provider options (a request-level budget is refused by the core, which
     * reads this plugin's capabilities): not sent, temperature kept. */
    seam_request_set_reasoning_budget(req, 0);
    seam_request_set_provider_options(req, "{\"thinking_budget\":2000}");
    encodes(c, req, "claude-3-5-sonnet-20241022",
            MEMBERS({ "thinking", NULL },
                     { "temperature", "0.3" }));
    encodes(c, req, "claude-sonnet-4-5", MEMBERS({ "thinking", "{\"type\":\"enabled\",\"budget_tokens\":2000}" }));
    seam_request_set_provider_options(req, NULL);
    seam_request_set_reasoning_budget(req, 100);

    /* A forced tool wins over the thinking hint. */
    seam_request_add_tool(req, "t", NULL, NULL);
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_REQUIRED, NULL);
    encodes(c, req, "claude-sonnet-4-5",
            MEMBERS({ "thinking", NULL },
                     { "tool_choice", "{\"type\":\"any\"}" }));
    seam_request_free(req);
    tu_client_free(c);

    /* The conf's budget applies when the request has none; capabilities can
     * switch it off per model prefix. */
    c = client_with("thinking_budget = 3000; models = { claude-opus-4-5 = { reasoning = false; }; };",
                    NULL);
    req = user_request("q");
    encodes(c, req, "claude-sonnet-4-5", MEMBERS({ "thinking", "{\"type\":\"enabled\",\"budget_tokens\":3000}" }));
    encodes(c, req, "claude-opus-4-5-20251101", MEMBERS({ "thinking", NULL }));
    /* A request's options win: thinking off for this call. */
    seam_request_set_provider_options(req, "{\"thinking\":\"disabled\"}");
    encodes(c, req, "claude-sonnet-4-5", MEMBERS({ "thinking", NULL }));
    seam_request_free(req);
    tu_client_free(c);
}

static void test_thinking_round_trip_with_signature(void)
{
    /* "cross" ends on a reasoning model: the request sets a reasoning budget,
     * and a chain skips an entry whose model lacks a capability it needs. */
    seam_client *c = client_with(NULL,
        "chains = { two = ( { provider = \"claude\"; model = \"claude-sonnet-4-5\"; },\n"
        "                   { provider = \"claude2\"; model = \"claude-sonnet-4-5\"; } );\n"
        "           cross = ( { provider = \"claude\"; model = \"claude-sonnet-4-5\"; },\n"
        "                     { provider = \"oai\"; model = \"o4-mini\"; } ); };");
    seam_request *req = user_request("weather in Paris?");
    seam_request_add_tool(req, "get_weather", NULL, NULL);
    seam_request_add_tool(req, "now", NULL, NULL);
    seam_request_set_reasoning_budget(req, 2048);
    seam_call_options o = tu_call_opts("claude", "claude-sonnet-4-5");
    push_stream(T_THINK_TOOL, 0);
    summary s;
    run_stream(c, req, &o, &s);
    CU_ASSERT_EQUAL_FATAL(s.status, SEAM_OK);
    CU_ASSERT_FATAL(seam_request_add_message(req, s.message) == SEAM_OK);
    s.message = NULL;
    tu_add_turn(req, SEAM_ROLE_TOOL, TU_PARTS(TU_RESULT("toolu_01A", "get_weather", "{\"temp\":18}", 0),
                                              TU_RESULT("toolu_01B", "now", "\"12:00\"", 0)));

    const char *assistant_head = "{\"role\":\"assistant\",\"content\":[";
    const char *assistant_tail =
        "{\"type\":\"text\",\"text\":\"Let me check.\"},"
        "{\"type\":\"tool_use\",\"id\":\"toolu_01A\",\"name\":\"get_weather\",\"input\":{\"city\":\"Paris\",\"days\":3}},"
        "{\"type\":\"tool_use\",\"id\":\"toolu_01B\",\"name\":\"now\",\"input\":{}}]}";
    const char *results_turn =
        "{\"role\":\"user\",\"content\":["
        "{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_01A\",\"content\":\"{\\\"temp\\\":18}\"},"
        "{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_01B\",\"content\":\"12:00\"}]}";
    char want[4096];

    /* To Anthropic: the thinking block goes back with its signature. */
    push_stream(T_TEXT, 0);
    run_stream(c, req, &o, &s);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    summary_free(&s);
    json_object *body = tu_last_body(srv);
    json_object *msgs = tu_json_at(body, "messages");
    CU_ASSERT_EQUAL_FATAL(json_object_array_length(msgs), 3);
    snprintf(want, sizeof want, "%s%s%s", assistant_head,
             "{\"type\":\"thinking\",\"thinking\":\"The user wants the weather.\","
             "\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds\"},",
             assistant_tail);
    CU_ASSERT(tu_json_equal(json_object_array_get_idx(msgs, 1), want));
    CU_ASSERT(tu_json_equal(json_object_array_get_idx(msgs, 2), results_turn));
    CU_ASSERT(tu_json_equal(tu_json_at(body, "thinking"), "{\"type\":\"enabled\",\"budget_tokens\":2048}"));
    json_object_put(body);

    /* Failing over to another provider: the reasoning (and its signature) is
     * stripped before the request crosses. */
    seam_call_options chain;
    memset(&chain, 0, sizeof chain);
    chain.size = sizeof chain;
    chain.chain = "two";
    size_t before = fake_server_request_count(srv);
    fake_server_push_json(srv, 529, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}", NULL);
    push_stream(T_TEXT, 0);
    run_stream(c, req, &chain, &s);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    summary_free(&s);
    CU_ASSERT_EQUAL_FATAL(fake_server_request_count(srv), before + 2);
    json_object *first = json_tokener_parse(fake_server_request_body(srv, before));
    CU_ASSERT(strstr(fake_server_request_body(srv, before), "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds") != NULL);
    json_object_put(first);
    CU_ASSERT(TU_STR_EQ(fake_server_request_path(srv, before + 1), "/v2/messages"));
    CU_ASSERT(TU_STR_EQ(fake_server_request_header(srv, before + 1, "x-api-key"), "sk-ant-other-key"));
    body = tu_last_body(srv);
    msgs = tu_json_at(body, "messages");
    snprintf(want, sizeof want, "%s%s", assistant_head, assistant_tail);
    CU_ASSERT(tu_json_equal(json_object_array_get_idx(msgs, 1), want));
    CU_ASSERT(tu_json_equal(json_object_array_get_idx(msgs, 2), results_turn));
    CU_ASSERT(strstr(fake_server_request_body(srv, before + 1), "signature") == NULL);
    /* The API refuses thinking on a tool turn that does not begin with a
     * thinking block: off for this request (temperature unset stays unset). */
    CU_ASSERT_PTR_NULL(tu_json_at(body, "thinking"));
    json_object_put(body);

    /* Another plugin altogether (OpenAI's wire), when it is built. */
    int have_openai = 0;
    for (size_t i = 0; i < seam_client_provider_count(c); i++) {
        seam_provider_info info;
        if (seam_client_provider_at(c, i, &info) == SEAM_OK && strcmp(info.name, "oai") == 0)
            have_openai = info.plugin_loaded;
    }
    if (have_openai) {
        /* No budget this time: the OpenAI model is not asked for reasoning,
         * only handed the history. */
        seam_request_set_reasoning_budget(req, 0);
        chain.chain = "cross";
        before = fake_server_request_count(srv);
        fake_server_push_json(srv, 529, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}", NULL);
        fake_server_push_json(srv, 200,
                              "{\"id\":\"c1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
                              "\"message\":{\"role\":\"assistant\",\"content\":\"18 degrees\"},\"finish_reason\":\"stop\"}],"
                              "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}",
                              NULL);
        run_generate(c, req, &chain, &s);
        CU_ASSERT_EQUAL(s.status, SEAM_OK);
        CU_ASSERT(TU_STR_EQ(s.text, "18 degrees"));
        summary_free(&s);
        CU_ASSERT_EQUAL_FATAL(fake_server_request_count(srv), before + 2);
        const char *sent = fake_server_request_body(srv, before + 1);
        CU_ASSERT(TU_STR_EQ(fake_server_request_path(srv, before + 1), "/v3/chat/completions"));
        CU_ASSERT(strstr(sent, "toolu_01A") != NULL);
        CU_ASSERT(strstr(sent, "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds") == NULL);
        CU_ASSERT(strstr(sent, "The user wants the weather.") == NULL);
    } else {
        fprintf(stderr, "(openai plugin not built: cross-plugin failover not checked) ");
    }
    seam_request_free(req);
    tu_client_free(c);
}

static void test_cache_auto(void)
{
    seam_client *c = client_with("cache = \"auto\"; cache_ttl = \"1h\";", NULL);
    seam_request *req = seam_request_new();
    seam_request_set_system(req, "sys");
    for (int i = 0; i < 5; i++) {
        char t[16];
        snprintf(t, sizeof t, "u%d", i);
        seam_request_add_user_text(req, t);
        seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
        snprintf(t, sizeof t, "a%d", i);
        seam_message_add_text(m, t);
        seam_request_add_message(req, m);
    }
    tu_add_turn(req, SEAM_ROLE_USER, TU_PARTS(TU_TEXT("last"),
                                              TU_MEDIA("image/png", SEAM_MEDIA_BASE64, "AAAA")));
    json_object *body = encode_with(c, req, "claude-sonnet-4-5");
    const char *cc = "{\"type\":\"ephemeral\",\"ttl\":\"1h\"}";
    CU_ASSERT(tu_json_equal(tu_json_at(body, "system"),
                           "[{\"type\":\"text\",\"text\":\"sys\",\"cache_control\":{\"type\":\"ephemeral\",\"ttl\":\"1h\"}}]"));
    json_object *msgs = tu_json_at(body, "messages");
    CU_ASSERT_EQUAL_FATAL(json_object_array_length(msgs), 11);
    int marked = 0;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        json_object *content = tu_json_at(json_object_array_get_idx(msgs, i), "content");
        for (size_t j = 0; j < json_object_array_length(content); j++) {
            json_object *mark = tu_json_at(json_object_array_get_idx(content, j), "cache_control");
            if (!mark)
                continue;
            marked++;
            /* Only the last block of user messages 3, 4 and 5 (indexes 6, 8, 10). */
            CU_ASSERT(i == 6 || i == 8 || i == 10);
            CU_ASSERT_EQUAL(j, json_object_array_length(content) - 1);
            CU_ASSERT(tu_json_equal(mark, cc));
        }
    }
    CU_ASSERT_EQUAL(marked, 3);
    json_object_put(body);

    /* Cache "none" in the request, or a model without prompt caching: no marks. */
    seam_request_set_provider_options(req, "{\"cache\":\"none\"}");
    body = encode_with(c, req, "claude-sonnet-4-5");
    CU_ASSERT(strstr(fake_server_request_body(srv, fake_server_request_count(srv) - 1),
                     "cache_control") == NULL);
    CU_ASSERT(tu_json_equal(tu_json_at(body, "system"), "\"sys\""));
    json_object_put(body);
    /* The session's provider-neutral cache_strategy turns the breakpoints on. */
    tu_client_free(c);
    c = client_with("cache_ttl = \"1h\";", NULL);
    seam_request_set_provider_options(req, "{\"cache_strategy\":\"system_and_3\"}");
    body = encode_with(c, req, "claude-sonnet-4-5");
    CU_ASSERT(tu_json_equal(tu_json_at(body, "system"),
                           "[{\"type\":\"text\",\"text\":\"sys\",\"cache_control\":{\"type\":\"ephemeral\",\"ttl\":\"1h\"}}]"));
    CU_ASSERT(strstr(fake_server_request_body(srv, fake_server_request_count(srv) - 1),
                     "cache_strategy") == NULL);
    json_object_put(body);
    seam_request_set_provider_options(req, NULL);
    tu_client_free(c);
    c = client_with("cache = \"auto\"; models = { claude-3-opus = { prompt_cache = false; }; };", NULL);
    body = encode_with(c, req, "claude-3-opus-20240229");
    CU_ASSERT(strstr(fake_server_request_body(srv, fake_server_request_count(srv) - 1),
                     "cache_control") == NULL);
    json_object_put(body);
    body = encode_with(c, req, "claude-3-haiku-20240307");
    CU_ASSERT(strstr(fake_server_request_body(srv, fake_server_request_count(srv) - 1),
                     "cache_control") != NULL);
    json_object_put(body);
    seam_request_free(req);
    tu_client_free(c);
}

static void test_headers_from_options(void)
{
    seam_client *c = client_with("beta = [ \"interleaved-thinking-2025-05-14\", \"b2\" ];"
                                 " anthropic_version = \"2024-01-01\";"
                                 " top_k = 5; metadata = { user_id = \"u-1\"; };",
                                 NULL);
    seam_request *req = user_request("q");
    seam_request_set_provider_options(req, "{\"beta\":\"b2, b3\",\"top_p\":0.5}");
    json_object *body = encode_with(c, req, "claude-sonnet-4-5");
    CU_ASSERT(TU_STR_EQ(tu_last_header(srv, "anthropic-beta"), "interleaved-thinking-2025-05-14,b2,b3"));
    CU_ASSERT(TU_STR_EQ(tu_last_header(srv, "anthropic-version"), "2024-01-01"));
    CU_ASSERT(tu_json_equal(tu_json_at(body, "top_k"), "5"));
    CU_ASSERT(tu_json_equal(tu_json_at(body, "top_p"), "0.5"));
    CU_ASSERT(tu_json_equal(tu_json_at(body, "metadata"), "{\"user_id\":\"u-1\"}"));
    json_object_put(body);
    seam_request_free(req);
    tu_client_free(c);

    c = client_with("auth = \"bearer\";", NULL);
    req = user_request("q");
    body = encode_with(c, req, "claude-sonnet-4-5");
    CU_ASSERT(TU_STR_EQ(tu_last_header(srv, "authorization"), "Bearer " SECRET));
    CU_ASSERT_PTR_NULL(tu_last_header(srv, "x-api-key"));
    json_object_put(body);
    seam_request_free(req);
    tu_client_free(c);
}

/* The schema of the structured-output tests, and the "json" tool's description. */
#define PERSON_SCHEMA                                                                     \
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"                \
    "\"required\":[\"name\"],\"additionalProperties\":false}"
#define JSON_TOOL_HEAD \
    "{\"name\":\"json\",\"description\":\"Respond with a JSON object: the input of this tool is the answer.\","

/* A call of "who?" asking for a person as JSON, on a client of its own; the
 * check that model answers natively (output_config, no tool). */
static call person_call(const char *native_model)
{
    call k = call_new(NULL, NULL, user_request("who?"), native_model);
    seam_request_set_response_format(k.req, SEAM_FORMAT_JSON, "person", PERSON_SCHEMA, 1);
    encodes(k.c, k.req, native_model,
            MEMBERS({ "output_config", "{\"format\":{\"type\":\"json_schema\",\"schema\":" PERSON_SCHEMA "}}" },
                    { "tools", NULL }));
    return k;
}

/* The answer of the "json" tool (B_JSON_TOOL) decoded into text. */
static void expect_ada(const summary *s)
{
    CU_ASSERT(TU_STR_EQ(s->text, "{\"name\":\"Ada\"}"));
    CU_ASSERT_EQUAL(s->n_calls, 0);
    CU_ASSERT_EQUAL(s->stop, SEAM_STOP_STOP);
}

static void test_structured_output(void)
{
    /* Native where the model has it. */
    call k = person_call("claude-sonnet-4-5");

    /* Otherwise a forced "json" tool, decoded back into the answer text. */
    k.o = tu_call_opts("claude", "claude-3-5-haiku-20241022");
    summary s = whole_answer(&k, B_JSON_TOOL);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    json_object *body = tu_last_body(srv);
    CU_ASSERT_PTR_NULL(tu_json_at(body, "output_config"));
    CU_ASSERT(tu_json_equal(tu_json_at(body, "tools"), "[" JSON_TOOL_HEAD "\"input_schema\":" PERSON_SCHEMA "}]"));
    CU_ASSERT(tu_json_equal(tu_json_at(body, "tool_choice"), "{\"type\":\"tool\",\"name\":\"json\"}"));
    json_object_put(body);
    expect_ada(&s);
    summary_free(&s);

    s = stream_answer(&k, T_JSON_TOOL, 2);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    CU_ASSERT(TU_STR_EQ(s.text, "{\"name\":\"Ada\"}"));
    CU_ASSERT_EQUAL(s.chunk_count[SEAM_CHUNK_TEXT_DELTA], 1);
    CU_ASSERT_EQUAL(s.n_calls, 0);
    CU_ASSERT_EQUAL(s.stop, SEAM_STOP_STOP);
    summary_free(&s);

    /* Without a schema ("any JSON object") even a native model uses the tool. */
    seam_request_set_response_format(k.req, SEAM_FORMAT_JSON, NULL, NULL, 0);
    encodes(k.c, k.req, "claude-sonnet-4-5",
            MEMBERS({ "tools", "[" JSON_TOOL_HEAD "\"input_schema\":{\"type\":\"object\"}}]" }));
    call_free(&k);
}

/* A call (options o) that fails before anything is sent, the reason naming
 * needle; of that kind unless kind is SEAM_ERROR_NONE. */
static void expect_unsent_with(seam_client *c, const seam_request *req, const seam_call_options *o,
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
static void expect_unsent(seam_client *c, const seam_request *req, const char *model,
                          const char *needle, int bad_request)
{
    seam_call_options o = tu_call_opts("claude", model);
    expect_unsent_with(c, req, &o, bad_request ? SEAM_ERROR_BAD_REQUEST : SEAM_ERROR_NONE, needle);
}

static void expect_refused(seam_client *c, const seam_request *req, const char *model,
                           const char *needle)
{
    expect_unsent(c, req, model, needle, 1);
}

/* A request of text and one media part in the same user turn. */
static seam_request *media_request(const char *text, const char *mime, const char *data)
{
    seam_request *req = user_request(text);
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    seam_message_add_media(m, mime, SEAM_MEDIA_BASE64, data);
    seam_request_add_message(req, m);
    return req;
}

static void test_model_defaults_and_capabilities(void)
{
    static const struct {
        const char *model;
        const char *max_tokens;
    } cases[] = {
        { "claude-3-haiku-20240307", "4096" },
        { "claude-3-5-sonnet-latest", "8192" },
        { "claude-3-7-sonnet-20250219", "16384" },
        { "claude-opus-4-20250514", "16384" },
        { "anthropic.claude-3-5-haiku-20241022-v1:0", "8192" },
        { "claude-opus-4-7", "16384" },
    };
    seam_client *c = client_with(NULL, NULL);
    seam_request *req = user_request("q");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        encodes(c, req, cases[i].model, MEMBERS({ "max_tokens", cases[i].max_tokens }));
    seam_request_free(req);

    /* A PDF to a family without PDF input: refused before anything is sent. */
    req = media_request("read this", "application/pdf", "JVBERi0=");
    expect_refused(c, req, "claude-3-haiku-20240307", "PDF");
    tu_client_free(c);

    /* ...unless the conf says that model has it; and max_tokens from the conf. */
    c = client_with("max_tokens = 777; models = { claude-3-haiku = { pdf_input = true; }; };", NULL);
    json_object *body = encode_with(c, req, "claude-3-haiku-20240307");
    CU_ASSERT(tu_json_equal(tu_json_at(body, "max_tokens"), "777"));
    json_object *content = tu_json_at(json_object_array_get_idx(tu_json_at(body, "messages"), 0), "content");
    CU_ASSERT(tu_json_equal(json_object_array_get_idx(content, 1),
                           "{\"type\":\"document\",\"source\":{\"type\":\"base64\","
                           "\"media_type\":\"application/pdf\",\"data\":\"JVBERi0=\"}}"));
    json_object_put(body);
    seam_request_free(req);

    /* Media the API cannot take at all. */
    req = media_request("listen", "audio/wav", "UklGRg==");
    seam_call_options o = tu_call_opts("claude", "claude-sonnet-4-5");
    summary s;
    run_generate(c, req, &o, &s);
    CU_ASSERT(s.status < 0);
    CU_ASSERT_EQUAL(s.err.kind, SEAM_ERROR_BAD_REQUEST);
    summary_free(&s);
    seam_request_free(req);
    tu_client_free(c);
}

/* The capability flags as the core sees them: its admission check refuses a
 * prompt larger than the model's context window before anything is sent. */
static void test_context_window_capability(void)
{
    /* 360k words: about 360k tokens by the core's estimate (seam_estimate_tokens),
     * 216k at the lowest reading the context-window skip allows it. */
    size_t words = 360 * 1000, n = 5 * words;
    char *big = malloc(n + 1);
    CU_ASSERT_FATAL(big != NULL);
    for (size_t k = 0; k < words; k++)
        memcpy(big + 5 * k, "word ", 5);
    big[n] = '\0';
    seam_request *req = user_request(big);
    free(big);
    /* Admission is a routing decision: it applies to chains. */
    const char *chain = "chains = { one = ( { provider = \"claude\"; model = \"claude-sonnet-4-5\"; } ); };";
    seam_call_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.chain = "one";

    seam_client *c = client_with(NULL, chain);
    size_t before = fake_server_request_count(srv);
    expect_unsent_with(c, req, &o, SEAM_ERROR_CONTEXT_OVERFLOW, "200000");
    tu_client_free(c);

    /* The 1M-context beta widens the window (and is sent); so does a conf
     * override for the model. */
    static const char *const wider[] = {
        "beta = [ \"context-1m-2025-08-07\" ];",
        "models = { claude-sonnet-4-5 = { context_window = 400000; }; };",
    };
    for (size_t i = 0; i < sizeof wider / sizeof wider[0]; i++) {
        call k = { client_with(wider[i], chain), req, o };
        summary s = whole_answer(&k, B_TEXT);
        CU_ASSERT_EQUAL(s.status, SEAM_OK);
        CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1 + i);
        if (i == 0)
            CU_ASSERT(TU_STR_EQ(tu_last_header(srv, "anthropic-beta"), "context-1m-2025-08-07"));
        summary_free(&s);
        tu_client_free(k.c);
    }
    seam_request_free(req);
}

static void test_stop_reasons(void)
{
    static const tu_stop_case cases[] = {
        { "end_turn", SEAM_STOP_STOP },         { "max_tokens", SEAM_STOP_LENGTH },
        { "tool_use", SEAM_STOP_TOOL_USE },     { "stop_sequence", SEAM_STOP_STOP },
        { "refusal", SEAM_STOP_CONTENT_FILTER }, { "pause_turn", SEAM_STOP_STOP },
        { "model_context_window_exceeded", SEAM_STOP_LENGTH },
        { NULL, 0 },
    };
    seam_client *c = client_with(NULL, NULL);
    seam_request *req = user_request("q");
    tu_stop_reasons_are(srv, c, "claude", "claude-sonnet-4-5", req,
                        "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}],"
                        "\"stop_reason\":\"@STOP@\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}",
                        cases);
    seam_request_free(req);
    tu_client_free(c);
}

static void test_bad_options(void)
{
    /* A conf typo: the provider cannot serve, and the reason names the option. */
    seam_client *c = client_with("cache = \"sometimes\";", NULL);
    seam_request *req = user_request("q");
    expect_unsent(c, req, "claude-sonnet-4-5", "cache", 0);
    tu_client_free(c);

    /* A bad request option: bad_request, nothing sent. */
    c = client_with(NULL, NULL);
    seam_request_set_provider_options(req, "{\"thinking_budget\":\"lots\"}");
    expect_refused(c, req, "claude-sonnet-4-5", "thinking_budget");
    seam_request_free(req);
    tu_client_free(c);
}

/* ==== Claude 5 / 5.5 families ===================================================== */

/* A 5.5-style tool turn: a signed thinking block with empty text (the default
 * display, "omitted"), then the tool call. */
static const char T_OPUS55_TOOL[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_55\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-opus-5-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":120,\"output_tokens\":1}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"Sig55xyz\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":0}\n"
    "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_55\",\"name\":\"get_weather\",\"input\":{}}}\n"
    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \\\"Paris\\\"}\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":1}\n"
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":40}}\n"
    "{\"type\":\"message_stop\"}\n";

/* A streamed refusal: the safety classifier stops the text; stop_details
 * arrives with the stop reason in message_delta. */
static const char T_REFUSAL_DETAILS[] =
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_56\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-5-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":30,\"output_tokens\":1}}}\n"
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n"
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello..\"}}\n"
    "{\"type\":\"content_block_stop\",\"index\":0}\n"
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\",\"stop_sequence\":null,\"stop_details\":{\"type\":\"refusal\",\"category\":\"cyber\",\"explanation\":\"This request was declined because it could enable cyber harm.\"}},\"usage\":{\"output_tokens\":5}}\n"
    "{\"type\":\"message_stop\"}\n";

/* The request of the 5.5 golden tests: a system prompt, one user turn and one tool. */
static seam_request *weather_request(seam_tool_choice choice)
{
    seam_request *req = seam_request_new();
    CU_ASSERT_FATAL(req != NULL);
    seam_request_set_system(req, "You are terse.");
    seam_request_add_user_text(req, "Weather in Paris?");
    seam_request_add_tool(req, "get_weather", "Weather for a city",
                          "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},"
                          "\"required\":[\"city\"],\"additionalProperties\":false}");
    seam_request_set_tool_choice(req, choice, choice == SEAM_TOOL_CHOICE_NAMED ? "get_weather" : NULL);
    return req;
}

#define WEATHER_MESSAGES "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Weather in Paris?\"}]}]"
#define WEATHER_TOOL                                                                            \
    "{\"name\":\"get_weather\",\"description\":\"Weather for a city\",\"input_schema\":"        \
    "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]," \
    "\"additionalProperties\":false}"

/* Capabilities of the current lineup as the core reads them. */
static void test_claude5_capabilities(void)
{
    static const struct {
        const char *model;
        int64_t context, output;
        unsigned reasoning;
    } cases[] = {
        { "claude-opus-5-5", 1000000, 128000, 1 },
        { "claude-sonnet-5-5", 1000000, 128000, 1 },
        { "claude-haiku-5-5", 1000000, 128000, 1 },
        { "claude-fable-5-1", 1000000, 128000, 1 },
        { "claude-mythos-5-1", 1000000, 128000, 1 },
        { "claude-opus-5", 1000000, 128000, 1 },
        { "claude-sonnet-5", 1000000, 128000, 1 },
        { "claude-opus-4-8", 1000000, 128000, 1 },
        { "claude-opus-4-7", 1000000, 128000, 1 },
        { "claude-opus-4-6", 1000000, 128000, 1 },
        { "claude-sonnet-4-6", 1000000, 128000, 1 },
        { "us.anthropic.claude-opus-5-5-v1:0", 1000000, 128000, 1 },  /* Bedrock */
        { "claude-haiku-5-5@20261007", 1000000, 128000, 1 },          /* Vertex-style tag */
        { "claude-fable-5-2", 1000000, 128000, 1 },  /* unknown: the newest rules */
        /* Older families as before. */
        { "claude-sonnet-4-5-20250929", 200000, 64000, 1 },
        { "claude-opus-4-1", 200000, 32000, 1 },
        { "claude-3-5-haiku-20241022", 200000, 8192, 0 },
    };
    seam_client *c = client_with(NULL, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        seam_capabilities caps = tu_capabilities(c, "claude", cases[i].model);
        if (caps.context_window != cases[i].context || caps.max_output_tokens != cases[i].output)
            fprintf(stderr, "\n  %s: %lld / %lld\n", cases[i].model, (long long)caps.context_window,
                    (long long)caps.max_output_tokens);
        CU_ASSERT_EQUAL(caps.context_window, cases[i].context);
        CU_ASSERT_EQUAL(caps.max_output_tokens, cases[i].output);
        CU_ASSERT_EQUAL(caps.reasoning, cases[i].reasoning);
        CU_ASSERT(caps.tools && caps.streaming && caps.structured_output);
        CU_ASSERT(caps.vision && caps.prompt_cache);
        CU_ASSERT_EQUAL(caps.pdf_input, 1);
        CU_ASSERT_EQUAL(caps.audio_input, 0);
    }
    tu_client_free(c);

    /* The conf still wins, per model prefix. */
    c = client_with("models = { claude-opus-5-5 = { context_window = 500000; vision = false; }; };",
                    NULL);
    seam_capabilities caps = tu_capabilities(c, "claude", "claude-opus-5-5");
    CU_ASSERT_EQUAL(caps.context_window, 500000);
    CU_ASSERT_EQUAL(caps.vision, 0);
    CU_ASSERT_EQUAL(caps.max_output_tokens, 128000);
    tu_client_free(c);

    /* A plugin-private rule with the wrong type is a conf error. */
    c = client_with("models = { claude-opus-5-5 = { forced_tool_choice = \"yes\"; }; };", NULL);
    seam_request *req = user_request("q");
    expect_refused(c, req, "claude-opus-5-5", "forced_tool_choice");
    seam_request_free(req);
    tu_client_free(c);
}

/* Opus 5.5 rejects a forced tool: auto plus a system-prompt line, sampling
 * parameters dropped, no thinking field, the default max_tokens. */
static void test_opus55_golden(void)
{
    seam_client *c = client_with("top_k = 5; top_p = 0.9;", NULL);
    seam_request *req = weather_request(SEAM_TOOL_CHOICE_NAMED);
    seam_request_set_temperature(req, 0.2);
    json_object *body = encode_with(c, req, "claude-opus-5-5");
    CU_ASSERT(tu_json_equal(body,
        "{\"model\":\"claude-opus-5-5\",\"max_tokens\":16384,"
        "\"system\":\"You are terse.\\n\\nAnswer by calling the get_weather tool.\","
        "\"messages\":" WEATHER_MESSAGES ","
        "\"tools\":[" WEATHER_TOOL "}],"
        "\"tool_choice\":{\"type\":\"auto\"}}"));
    CU_ASSERT_PTR_NULL(tu_last_header(srv, "anthropic-beta"));
    json_object_put(body);

    /* The same request to Opus 5, which accepts forcing: the tool is forced,
     * and no sampling parameter goes to it either (Opus 4.7 and later). */
    encodes(c, req, "claude-opus-5",
            MEMBERS({ "tool_choice", "{\"type\":\"tool\",\"name\":\"get_weather\"}" },
                     { "system", "\"You are terse.\"" },
                     { "temperature", NULL },
                     { "top_k", NULL },
                     { "top_p", NULL },
                     { "thinking", NULL }));

    /* And to Sonnet 4.5, as before: forced, and the sampling parameters sent. */
    encodes(c, req, "claude-sonnet-4-5",
            MEMBERS({ "tool_choice", "{\"type\":\"tool\",\"name\":\"get_weather\"}" },
                     { "temperature", "0.2" },
                     { "top_k", "5" },
                     { "top_p", "0.9" }));
    seam_request_free(req);

    /* tool_choice required, no system prompt: the line is the system prompt;
     * the same on Sonnet 5.5 and Fable 5.1. */
    req = weather_request(SEAM_TOOL_CHOICE_REQUIRED);
    seam_request_set_system(req, NULL);
    static const char *const no_forcing[] = { "claude-sonnet-5-5", "claude-fable-5-1",
                                              "claude-mythos-5-1", "claude-opus-5-5" };
    for (size_t i = 0; i < sizeof no_forcing / sizeof no_forcing[0]; i++) {
        encodes(c, req, no_forcing[i],
                MEMBERS({ "system", "\"Answer by calling one of the provided tools.\"" },
                         { "tool_choice", "{\"type\":\"auto\"}" }));
    }
    /* Haiku 5.5 accepts forcing (the call then comes without thinking), also
     * by its Bedrock and Vertex-style ids (an unknown id would not). */
    static const char *const haiku55[] = { "claude-haiku-5-5", "anthropic.claude-haiku-5-5-v1:0",
                                           "claude-haiku-5-5@20261007" };
    for (size_t i = 0; i < sizeof haiku55 / sizeof haiku55[0]; i++) {
        encodes(c, req, haiku55[i],
                MEMBERS({ "tool_choice", "{\"type\":\"any\"}" },
                         { "system", NULL },
                         { "thinking", NULL }));
    }
    /* An id this codec does not know gets the newest rules: no forcing. */
    encodes(c, req, "claude-opus-6", MEMBERS({ "tool_choice", "{\"type\":\"auto\"}" }));
    /* tool_choice none stays none; auto stays the API's default. */
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_NONE, NULL);
    encodes(c, req, "claude-opus-5-5",
            MEMBERS({ "tool_choice", "{\"type\":\"none\"}" },
                     { "system", NULL }));
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_AUTO, NULL);
    encodes(c, req, "claude-opus-5-5", MEMBERS({ "tool_choice", NULL }));
    seam_request_free(req);
    tu_client_free(c);

    /* With the auto cache, the line is a block after the cached system prompt,
     * so the cached prefix does not change with the tool choice. */
    c = client_with("cache = \"auto\";", NULL);
    req = weather_request(SEAM_TOOL_CHOICE_NAMED);
    encodes(c, req, "claude-opus-5-5",
            MEMBERS({ "system", "[{\"type\":\"text\",\"text\":\"You are terse.\",\"cache_control\":{\"type\":\"ephemeral\"}},"
                       "{\"type\":\"text\",\"text\":\"Answer by calling the get_weather tool.\"}]" }));
    seam_request_free(req);
    tu_client_free(c);
}

/* forced_tool = "reject": a bad_request before sending, only where forcing
 * is rejected; and the conf can change a model's rules. */
static void test_forced_tool_rules(void)
{
    seam_client *c = client_with("forced_tool = \"reject\";", NULL);
    seam_request *req = weather_request(SEAM_TOOL_CHOICE_REQUIRED);
    expect_refused(c, req, "claude-opus-5-5", "does not accept a forced tool choice");
    expect_refused(c, req, "claude-sonnet-5-5", "claude-sonnet-5-5");
    json_object *body = encode_with(c, req, "claude-sonnet-4-5");
    CU_ASSERT(tu_json_equal(tu_json_at(body, "tool_choice"), "{\"type\":\"any\"}"));
    json_object_put(body);
    /* A request's options win over the conf's. */
    seam_request_set_provider_options(req, "{\"forced_tool\":\"prompt\"}");
    encodes(c, req, "claude-opus-5-5", MEMBERS({ "tool_choice", "{\"type\":\"auto\"}" }));
    seam_request_free(req);
    tu_client_free(c);

    /* A newer snapshot that accepts forcing again, an older one that does not,
     * and sampling switched back on. */
    c = client_with("models = { claude-opus-5-5 = { forced_tool_choice = true; sampling = true; };"
                    "           claude-sonnet-4-5 = { forced_tool_choice = false; }; };",
                    NULL);
    req = weather_request(SEAM_TOOL_CHOICE_NAMED);
    seam_request_set_temperature(req, 0.5);
    encodes(c, req, "claude-opus-5-5",
            MEMBERS({ "tool_choice", "{\"type\":\"tool\",\"name\":\"get_weather\"}" },
                     { "temperature", "0.5" }));
    encodes(c, req, "claude-sonnet-4-5",
            MEMBERS({ "tool_choice", "{\"type\":\"auto\"}" },
                     { "system", "\"You are terse.\\n\\nAnswer by calling the get_weather tool.\"" }));
    seam_request_free(req);
    tu_client_free(c);

    /* A bad value of the option: a conf error naming it. */
    call bad = call_new("forced_tool = \"sometimes\";", NULL, user_request("q"), "claude-opus-5-5");
    expect_unsent(bad.c, bad.req, "claude-opus-5-5", "forced_tool", 0);
    call_free(&bad);
}

/* Thinking per family: a budget becomes adaptive from Opus 4.7 on; "disabled"
 * is {disabled}, {between_tools} or a low effort; never an invalid pair. */
static void test_claude5_thinking(void)
{
    seam_client *c = client_with(NULL, NULL);
    seam_request *req = user_request("q");

    /* A reasoning budget: {adaptive}, no budget_tokens, on every adaptive family. */
    seam_request_set_reasoning_budget(req, 8000);
    static const char *const adaptive[] = { "claude-opus-5-5", "claude-sonnet-5-5",
                                            "claude-haiku-5-5", "claude-opus-5",
                                            "claude-sonnet-5", "claude-opus-4-8",
                                            "claude-opus-4-7", "claude-fable-5-1" };
    for (size_t i = 0; i < sizeof adaptive / sizeof adaptive[0]; i++) {
        json_object *body = encode_with(c, req, adaptive[i]);
        CU_ASSERT(tu_json_equal(tu_json_at(body, "thinking"), "{\"type\":\"adaptive\"}"));
        CU_ASSERT(tu_json_equal(tu_json_at(body, "max_tokens"), "16384"));
        json_object_put(body);
    }
    /* max_tokens covers thinking too: a max_tokens under the budget gets it added. */
    seam_request_set_max_tokens(req, 2000);
    json_object *body = encode_with(c, req, "claude-opus-5-5");
    CU_ASSERT(tu_json_equal(body, "{\"model\":\"claude-opus-5-5\",\"max_tokens\":10000,"
                                 "\"messages\":[{\"role\":\"user\",\"content\":"
                                 "[{\"type\":\"text\",\"text\":\"q\"}]}],"
                                 "\"thinking\":{\"type\":\"adaptive\"}}"));
    json_object_put(body);
    /* 4.6 keeps its budget (deprecated there, still accepted). */
    seam_request_set_max_tokens(req, 0);
    encodes(c, req, "claude-opus-4-6", MEMBERS({ "thinking", "{\"type\":\"enabled\",\"budget_tokens\":8000}" }));
    seam_request_set_reasoning_budget(req, 0);

    /* Nothing asked: no thinking field (the 5.x families think by default,
     * 4.7 and 4.8 do not). */
    encodes(c, req, "claude-opus-5-5",
            MEMBERS({ "thinking", NULL },
                     { "output_config", NULL }));

    /* "disabled": Opus 5.5 always thinks, so a low effort instead... */
    seam_request_set_provider_options(req, "{\"thinking\":\"disabled\"}");
    body = encode_with(c, req, "claude-opus-5-5");
    CU_ASSERT(tu_json_equal(body, "{\"model\":\"claude-opus-5-5\",\"max_tokens\":16384,"
                                 "\"messages\":[{\"role\":\"user\",\"content\":"
                                 "[{\"type\":\"text\",\"text\":\"q\"}]}],"
                                 "\"output_config\":{\"effort\":\"low\"}}"));
    json_object_put(body);
    /* ...Sonnet 5.5 has its lowest setting... */
    encodes(c, req, "claude-sonnet-5-5",
            MEMBERS({ "thinking", "{\"type\":\"between_tools\"}" },
                     { "output_config", NULL }));
    /* ...Haiku 5.5, Opus 5 and Sonnet 5 take {disabled}; 4.7 needs nothing. */
    static const char *const can_disable[] = { "claude-haiku-5-5", "claude-opus-5", "claude-sonnet-5" };
    for (size_t i = 0; i < sizeof can_disable / sizeof can_disable[0]; i++) {
        encodes(c, req, can_disable[i], MEMBERS({ "thinking", "{\"type\":\"disabled\"}" }));
    }
    encodes(c, req, "claude-opus-4-7", MEMBERS({ "thinking", NULL }));

    /* An effort the caller chose is kept. */
    seam_request_set_provider_options(req, "{\"thinking\":\"disabled\",\"effort\":\"medium\"}");
    encodes(c, req, "claude-opus-5-5",
            MEMBERS({ "thinking", NULL },
                     { "output_config", "{\"effort\":\"medium\"}" }));

    /* Off at xhigh or max: refused where the API refuses it, before sending;
     * Sonnet 5 accepts it at any effort. */
    seam_request_set_provider_options(req, "{\"thinking\":\"disabled\",\"effort\":\"xhigh\"}");
    expect_refused(c, req, "claude-sonnet-5-5", "effort high or below");
    expect_refused(c, req, "claude-opus-5", "effort high or below");
    seam_request_set_provider_options(req, "{\"thinking\":\"disabled\",\"effort\":\"max\"}");
    expect_refused(c, req, "claude-haiku-5-5", "effort is max");
    body = encode_with(c, req, "claude-sonnet-5");
    CU_ASSERT(tu_json_equal(tu_json_at(body, "thinking"), "{\"type\":\"disabled\"}"));
    CU_ASSERT(tu_json_equal(tu_json_at(body, "output_config"), "{\"effort\":\"max\"}"));
    /* At xhigh or max the default max_tokens is 64k (the guides' starting point). */
    CU_ASSERT(tu_json_equal(tu_json_at(body, "max_tokens"), "64000"));
    json_object_put(body);
    seam_request_set_provider_options(req, "{\"effort\":\"xhigh\"}");
    encodes(c, req, "claude-opus-5-5", MEMBERS({ "max_tokens", "64000" }));
    encodes(c, req, "claude-3-haiku-20240307", MEMBERS({ "max_tokens", "4096" })); /* never past the model's limit */

    /* thinking_display rides with adaptive thinking, "updates" with its beta;
     * not with between_tools (a 400 there), not on the budget families. */
    seam_request_set_provider_options(req, "{\"thinking_display\":\"updates\"}");
    body = encode_with(c, req, "claude-opus-5-5");
    CU_ASSERT(tu_json_equal(tu_json_at(body, "thinking"), "{\"type\":\"adaptive\",\"display\":\"updates\"}"));
    CU_ASSERT(TU_STR_EQ(tu_last_header(srv, "anthropic-beta"), "thinking-display-updates-2026-08-18"));
    json_object_put(body);
    seam_request_set_provider_options(req, "{\"thinking_display\":\"summarized\",\"thinking\":\"disabled\"}");
    body = encode_with(c, req, "claude-sonnet-5-5");
    CU_ASSERT(tu_json_equal(tu_json_at(body, "thinking"), "{\"type\":\"between_tools\"}"));
    CU_ASSERT_PTR_NULL(tu_last_header(srv, "anthropic-beta"));
    json_object_put(body);
    seam_request_set_provider_options(req, "{\"thinking_display\":\"summarized\"}");
    encodes(c, req, "claude-opus-4-7", MEMBERS({ "thinking", NULL })); /* off unless asked: display alone is not asking */
    seam_request_set_reasoning_budget(req, 3000);
    encodes(c, req, "claude-opus-4-7", MEMBERS({ "thinking", "{\"type\":\"adaptive\",\"display\":\"summarized\"}" }));
    encodes(c, req, "claude-sonnet-4-5", MEMBERS({ "thinking", "{\"type\":\"enabled\",\"budget_tokens\":3000}" }));
    seam_request_set_provider_options(req, "{\"thinking_display\":\"loud\"}");
    expect_refused(c, req, "claude-opus-5-5", "thinking_display");
    seam_request_free(req);
    tu_client_free(c);
}

/* Betas the new families made the default are not sent to them. */
static void test_claude5_betas_and_strict_tools(void)
{
    seam_client *c = client_with("beta = [ \"interleaved-thinking-2025-05-14\", \"context-1m-2025-08-07\","
                                 " \"effort-2025-11-24\", \"b2\" ];",
                                 NULL);
    seam_request *req = user_request("q");
    json_object *body = encode_with(c, req, "claude-opus-5-5");
    CU_ASSERT(TU_STR_EQ(tu_last_header(srv, "anthropic-beta"), "b2"));
    json_object_put(body);
    body = encode_with(c, req, "claude-sonnet-4-5");
    CU_ASSERT(TU_STR_EQ(tu_last_header(srv, "anthropic-beta"),
                     "interleaved-thinking-2025-05-14,context-1m-2025-08-07,effort-2025-11-24,b2"));
    json_object_put(body);
    seam_request_free(req);
    tu_client_free(c);

    /* strict_tools: every caller tool strict where structured outputs exist. */
    c = client_with("strict_tools = true;", NULL);
    req = weather_request(SEAM_TOOL_CHOICE_REQUIRED);
    encodes(c, req, "claude-opus-5-5", MEMBERS({ "tools", "[" WEATHER_TOOL ",\"strict\":true}]" }));
    encodes(c, req, "claude-3-5-haiku-20241022", MEMBERS({ "tools", "[" WEATHER_TOOL "}]" }));
    seam_request_free(req);
    tu_client_free(c);
}

/* A JSON answer on a model that rejects forcing: native with a schema; the
 * "json" tool asked for in the prompt without one, decoded back into text. */
static void test_claude55_json_answer(void)
{
    call k = person_call("claude-sonnet-5-5");

    seam_request_set_response_format(k.req, SEAM_FORMAT_JSON, NULL, NULL, 0);
    k.o = tu_call_opts("claude", "claude-opus-5-5");
    summary s = whole_answer(&k, B_JSON_TOOL);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    CU_ASSERT(tu_last_body_is(srv,
        "{\"model\":\"claude-opus-5-5\",\"max_tokens\":16384,"
        "\"system\":\"Answer by calling the json tool: its input is your answer.\","
        "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"who?\"}]}],"
        "\"tools\":[" JSON_TOOL_HEAD "\"input_schema\":{\"type\":\"object\"}}],"
        "\"tool_choice\":{\"type\":\"auto\"}}"));
    expect_ada(&s);
    summary_free(&s);
    /* forced_tool = "reject" is about the caller's tool choice, not this. */
    seam_request_set_provider_options(k.req, "{\"forced_tool\":\"reject\"}");
    encodes(k.c, k.req, "claude-opus-5-5", MEMBERS({ "tool_choice", "{\"type\":\"auto\"}" }));
    call_free(&k);
}

/* Decoding what the 5.5 models send: a signed thinking block with empty text
 * before a tool call (replayed unchanged), and a refusal with stop_details. */
static void test_claude55_decode(void)
{
    seam_client *c = client_with(NULL, NULL);
    seam_request *req = weather_request(SEAM_TOOL_CHOICE_AUTO);
    seam_call_options o = tu_call_opts("claude", "claude-opus-5-5");
    push_stream(T_OPUS55_TOOL, 3);
    summary s;
    run_stream(c, req, &o, &s);
    CU_ASSERT_EQUAL_FATAL(s.status, SEAM_OK);
    reasoning_is(&s, 1, "", "Sig55xyz");
    CU_ASSERT_EQUAL(s.n_calls, 1);
    CU_ASSERT(TU_STR_EQ(s.calls[0].args, "{\"city\":\"Paris\"}"));
    CU_ASSERT_EQUAL(s.stop, SEAM_STOP_TOOL_USE);
    CU_ASSERT_FATAL(seam_request_add_message(req, s.message) == SEAM_OK);
    s.message = NULL;
    tu_add_tool_result(req, "toolu_55", "get_weather", "{\"temp\":18}", 0);
    push_stream(T_TEXT, 0);
    summary t;
    run_stream(c, req, &o, &t);
    CU_ASSERT_EQUAL(t.status, SEAM_OK);
    summary_free(&t);
    json_object *body = tu_last_body(srv);
    CU_ASSERT(tu_json_equal(json_object_array_get_idx(tu_json_at(body, "messages"), 1),
        "{\"role\":\"assistant\",\"content\":["
        "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"Sig55xyz\"},"
        "{\"type\":\"tool_use\",\"id\":\"toolu_55\",\"name\":\"get_weather\",\"input\":{\"city\":\"Paris\"}}]}"));
    json_object_put(body);
    summary_free(&s);

    push_stream(T_REFUSAL_DETAILS, 1);
    o = tu_call_opts("claude", "claude-sonnet-5-5");
    run_stream(c, req, &o, &s);
    CU_ASSERT_EQUAL(s.status, SEAM_OK);
    CU_ASSERT(TU_STR_EQ(s.text, "Hello.."));
    CU_ASSERT_EQUAL(s.stop, SEAM_STOP_CONTENT_FILTER);
    CU_ASSERT_EQUAL(s.usage.output_tokens, 5);
    summary_free(&s);
    seam_request_free(req);
    tu_client_free(c);
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

/* anthropic_version 2026-10-21 removed the sampling parameters (its SDK types
 * have no temperature, top_p or top_k, and the API answers them with a 400
 * even at their defaults): none is sent at that version or a later one, on a
 * model that takes them at 2023-06-01, where they are still sent. */
static void test_version_2026_10_21_drops_sampling(void)
{
    static const struct {
        const char *conf, *req_options;
        int sampling;
    } cases[] = {
        { "anthropic_version = \"2026-10-21\"; top_k = 5; top_p = 0.9;", NULL, 0 },
        { "anthropic_version = \"2027-03-01\"; top_k = 5; top_p = 0.9;", NULL, 0 },
        { "top_k = 5; top_p = 0.9;", "{\"anthropic_version\":\"2026-10-21\"}", 0 },
        { "top_k = 5; top_p = 0.9;", NULL, 1 }, /* the default, 2023-06-01 */
        { "anthropic_version = \"2023-06-01\"; top_k = 5; top_p = 0.9;", NULL, 1 },
        { "anthropic_version = \"2026-10-20\"; top_k = 5; top_p = 0.9;", NULL, 1 },
        { "anthropic_version = \"2026-10-21\"; top_k = 5; top_p = 0.9;",
          "{\"anthropic_version\":\"2023-06-01\"}", 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        seam_client *c = client_with(cases[i].conf, NULL);
        seam_request *req = user_request("q");
        seam_request_set_temperature(req, 0.7);
        if (cases[i].req_options)
            seam_request_set_provider_options(req, cases[i].req_options);
        json_object *body = encode_with(c, req, "claude-sonnet-4-5");
        if ((tu_json_at(body, "temperature") != NULL) != cases[i].sampling)
            fprintf(stderr, "\ncase %zu: %s\n", i, json_object_to_json_string(body));
        if (cases[i].sampling) {
            CU_ASSERT(tu_json_equal(tu_json_at(body, "temperature"), "0.7"));
            CU_ASSERT(tu_json_equal(tu_json_at(body, "top_p"), "0.9"));
            CU_ASSERT(tu_json_equal(tu_json_at(body, "top_k"), "5"));
        } else {
            CU_ASSERT_PTR_NULL(tu_json_at(body, "temperature"));
            CU_ASSERT_PTR_NULL(tu_json_at(body, "top_p"));
            CU_ASSERT_PTR_NULL(tu_json_at(body, "top_k"));
        }
        /* The rest of the request is as it was. */
        CU_ASSERT(tu_json_equal(tu_json_at(body, "messages"),
                               "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"q\"}]}]"));
        json_object_put(body);
        seam_request_free(req);
        tu_client_free(c);
    }
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
    { "encode golden", test_encode_golden },
    { "tool choice mapping", test_tool_choice_mapping },
    { "thinking encode", test_thinking_encode },
    { "thinking round trip with signature", test_thinking_round_trip_with_signature },
    { "cache auto", test_cache_auto },
    { "headers from options", test_headers_from_options },
    { "structured output", test_structured_output },
    { "model defaults and capabilities", test_model_defaults_and_capabilities },
    { "context window capability", test_context_window_capability },
    { "stop reasons", test_stop_reasons },
    { "bad options", test_bad_options },
    { "claude 5 capabilities", test_claude5_capabilities },
    { "opus 5.5 golden", test_opus55_golden },
    { "forced tool rules", test_forced_tool_rules },
    { "claude 5 thinking", test_claude5_thinking },
    { "claude 5 betas and strict tools", test_claude5_betas_and_strict_tools },
    { "claude 5.5 json answer", test_claude55_json_answer },
    { "claude 5.5 decode", test_claude55_decode },
    { "anthropic_version 2026-10-21 drops sampling", test_version_2026_10_21_drops_sampling },
    { NULL, NULL },
};

static const tu_suite suites[] = {
    { .name = "anthropic", .tests = tests, .setup = start_server, .teardown = stop_server },
    { .name = NULL },
};

int main(void)
{
    return tu_run_suites(suites);
}
