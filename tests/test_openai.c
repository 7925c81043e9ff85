/* test_openai.c — the OpenAI-compatible plugin through the real loader and the
 * fake provider server: the request's wire shape (URL, headers, JSON body) for
 * plain, tool, multimodal, structured and reasoning requests and for each
 * profile, OpenAI's current families (GPT-6, GPT-5.x: golden bodies for
 * gpt-6-luna with and without tools, reasoning_effort "none" with tools, the
 * refusal of a model that rejects "none" when Chat Completions is forced); stream decoding of our own transcripts cut at every byte position
 * (text, reasoning, interleaved tool calls, usage, the servers' variants);
 * whole-response decoding equal to the accumulated stream; the error table;
 * an unreachable local server.
 *
 * The codec's internal tables (capability flags per model family and their conf
 * overrides, OpenAI's model rules and effort ladder, key scrubbing) are unit
 * tested by building the plugin's sources into this program and including its
 * internal.h: they are internal and no core API reads them (duration parsing
 * is the SDK's, tested by test_codec). The Responses API codec has its own
 * test program, test_openai_responses. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

#include "../plugins/openai/internal.h"

#define KEY "sk-test-secret-123"

static fake_server *srv;
static seam_client *client;

/* Every provider the tests use, all pointed at the fake server. */
static const char providers[] =
    "providers = {\n"
    "  oa = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\";\n"
    "         options = { seed = 7; user = \"tester\"; headers = { X-Title = \"seam-test\"; }; }; };\n"
    "  ds = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\"; options = { profile = \"deepseek\"; }; };\n"
    "  mi = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\"; options = { profile = \"mistral\"; }; };\n"
    "  gq = { plugin = \"openai\"; base_url = \"@URL@/openai/v1/\"; api_key = \"" KEY "\"; options = { profile = \"groq\"; }; };\n"
    "  xa = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\"; options = { profile = \"xai\"; }; };\n"
    "  orr = { plugin = \"openai\"; base_url = \"@URL@/api/v1\"; api_key = \"" KEY "\"; options = { profile = \"openrouter\"; }; };\n"
    "  ol = { plugin = \"openai\"; base_url = \"@URL@/v1\"; options = { profile = \"ollama\"; }; };\n"
    "  olnt = { plugin = \"openai\"; base_url = \"@URL@/v1\"; options = { profile = \"ollama\"; think_tags = false; }; };\n"
    "  oap = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\"; options = { profile = \"openai\"; }; };\n"
    "  vl = { plugin = \"openai\"; base_url = \"@URL@/v1\"; options = { profile = \"vllm\"; }; };\n"
    "  fixed = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\";\n"
    "            options = { max_tokens_param = \"max_completion_tokens\"; stream_usage = false; }; };\n"
    "  badprofile = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\"; options = { profile = \"nope\"; }; };\n"
    "  oachat = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\"; options = { profile = \"openai\"; api = \"chat\"; }; };\n"
    "  dead = { plugin = \"openai\"; base_url = \"http://127.0.0.1:1/v1\"; connect_timeout_ms = 2000; };\n"
    "};\n"
    "media = { inline_document_bytes = 65536; };\n"; /* small PDFs inline (default 0) */

/* Builds an SSE body from payload lines (NULL-terminated), ending with [DONE]
 * when done is set. */
static char *sse(int done, const char *const *lines)
{
    strbuf b = {0};
    for (size_t i = 0; lines[i]; i++) {
        sb_puts(&b, "data: ");
        sb_puts(&b, lines[i]);
        sb_puts(&b, "\n\n");
    }
    if (done)
        sb_puts(&b, "data: [DONE]\n\n");
    return b.data;
}

/* ---- transcripts (written for these tests) ---------------------------------- */

#define CH(delta, finish) \
    "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":" delta ",\"finish_reason\":" finish "}]}"

static const char *const text_lines[] = {
    CH("{\"role\":\"assistant\",\"content\":\"\"}", "null"),
    CH("{\"content\":\"Hel\"}", "null"),
    CH("{\"content\":\"lo, w\\u00f6rld\"}", "null"),
    CH("{}", "\"stop\""),
    "{\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5,\"total_tokens\":17,"
    "\"prompt_tokens_details\":{\"cached_tokens\":4},\"completion_tokens_details\":{\"reasoning_tokens\":0}}}",
    NULL};

/* Reasoning, text, then two tool calls whose fragments interleave, one of them
 * with an empty argument string, two calls starting in one chunk. */
static const char *const mixed_lines[] = {
    CH("{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"\"}", "null"),
    CH("{\"reasoning_content\":\"Think \"}", "null"),
    CH("{\"reasoning_content\":\"\\\"hard\\\".\"}", "null"),
    CH("{\"content\":\"Calling.\"}", "null"),
    CH("{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}},"
       "{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"arguments\":\"\"}}]}", "null"),
    CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"ci\"}}]}", "null"),
    CH("{\"tool_calls\":[{\"index\":2,\"id\":\"call_c\",\"type\":\"function\",\"function\":{\"name\":\"noop\",\"arguments\":\"\"}}]}", "null"),
    CH("{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"{\\\"tz\\\":\"}}]}", "null"),
    CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"ty\\\": \\\"Par\\u00eds\\\"}\"}}]}", "null"),
    CH("{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"\\\"UTC\\\"}\"}}]}", "null"),
    CH("{}", "\"tool_calls\""),
    "{\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":30,"
    "\"prompt_tokens_details\":{\"cached_tokens\":10},\"completion_tokens_details\":{\"reasoning_tokens\":8}}}",
    NULL};

static const char *mixed_summary =
    "{\"text\":\"Calling.\",\"reasoning\":\"Think \\\"hard\\\".\",\"tool_calls\":["
    "{\"id\":\"call_a\",\"name\":\"get_weather\",\"args\":{\"city\":\"Par\xc3\xads\"}},"
    "{\"id\":\"call_b\",\"name\":\"get_time\",\"args\":{\"tz\":\"UTC\"}},"
    "{\"id\":\"call_c\",\"name\":\"noop\",\"args\":{}}],"
    "\"stop\":\"tool_use\",\"usage\":{\"in\":30,\"out\":30,\"cache_read\":10,\"reasoning\":8}}";

/* The SSE answer of text_lines (with [DONE]) most tests push, made once. */
static char *text_sse;

static void free_text_sse(void *p)
{
    free(p);
}

static int start(void)
{
    text_sse = sse(1, text_lines);
    if (!text_sse)
        return -1;
    tu_at_end(free_text_sse, text_sse);
    return tu_start_client_on(&srv, &client, providers);
}

/* Streams answer (an SSE body) as provider's answer with model to req, and
 * checks the members of the request sent; the call's status. */
#define SENT(answer, provider, model, req, wants) \
    sent_at((answer), (provider), (model), (req), (wants), __LINE__)
static int sent_at(const char *answer, const char *provider, const char *model,
                   const seam_request *req, const tu_member *wants, int line)
{
    fake_server_push_sse(srv, answer, 0);
    tu_call r = tu_run_stream(client, provider, model, req, 0);
    json_object *b = tu_last_body(srv);
    tu_members_are(b, wants, __FILE__, line);
    json_object_put(b);
    free(r.summary);
    return r.status;
}

/* ---- encode ----------------------------------------------------------------- */

static void test_wire_basic_stream(void)
{
    fake_server_push_sse(srv, text_sse, 0);
    seam_request *req = tu_user_request("hi");
    seam_request_set_system(req, "Be brief.");
    seam_request_set_temperature(req, 0.7);
    seam_request_set_max_tokens(req, 64);
    seam_request_add_stop(req, "END");
    tu_call r = tu_run_stream(client, "oa", "gpt-4.1-mini", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.summary,
        "{\"text\":\"Hello, w\xc3\xb6rld\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"stop\","
        "\"usage\":{\"in\":8,\"out\":5,\"cache_read\":4,\"reasoning\":0}}");
    CU_ASSERT_STRING_EQUAL(r.log, "TD STOP(stop)");

    size_t n = fake_server_request_count(srv);
    CU_ASSERT_STRING_EQUAL(fake_server_request_method(srv, n - 1), "POST");
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, n - 1), "/v1/chat/completions");
    CU_ASSERT(TU_STR_EQ(tu_last_header(srv, "Authorization"), "Bearer " KEY));
    CU_ASSERT_PTR_NOT_NULL(strstr(tu_last_header(srv, "Content-Type"), "application/json"));
    CU_ASSERT(TU_STR_EQ(tu_last_header(srv, "X-Title"), "seam-test"));
    json_object *b = tu_last_body(srv);
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "model"), "gpt-4.1-mini");
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "messages.0.role"), "system");
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "messages.0.content"), "Be brief.");
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "messages.1.role"), "user");
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "messages.1.content"), "hi");
    CU_ASSERT_EQUAL(json_object_array_length(tu_json_at(b, "messages")), 2);
    /* 0.7 exactly as written, not 0.69999999999999996 */
    CU_ASSERT_PTR_NOT_NULL(strstr(fake_server_request_body(srv, n - 1), "\"temperature\":0.7,") );
    CU_ASSERT_EQUAL(tu_json_int(b, "max_tokens"), 64);
    CU_ASSERT_FALSE(tu_json_has(b, "max_completion_tokens"));
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "stop.0"), "END");
    CU_ASSERT_TRUE(json_object_get_boolean(tu_json_at(b, "stream")));
    CU_ASSERT_TRUE(json_object_get_boolean(tu_json_at(b, "stream_options.include_usage")));
    /* the conf's options: merged into the text_sse, the plugin's own keys not */
    CU_ASSERT_EQUAL(tu_json_int(b, "seed"), 7);
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "user"), "tester");
    CU_ASSERT_FALSE(tu_json_has(b, "headers"));
    CU_ASSERT_FALSE(tu_json_has(b, "tools"));
    CU_ASSERT_FALSE(tu_json_has(b, "tool_choice"));
    json_object_put(b);
    free(r.summary);
    seam_request_free(req);
}

/* The whole body, compared as JSON with what the wire must carry: nothing
 * missing, nothing extra. */
static void test_wire_exact_body(void)
{
    fake_server_push_sse(srv, text_sse, 0);
    seam_request *req = seam_request_new();
    seam_request_set_system(req, "You are terse.");
    seam_request_add_user_text(req, "Weather in Paris?");
    tu_add_tool_call(req, "call_1", "get_weather", "{\"city\":\"Paris\"}");
    tu_add_tool_result(req, "call_1", "get_weather", "{\"temp\":21}", 0);
    seam_request_add_tool(req, "get_weather", "Weather of a city",
                          "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}");
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_REQUIRED, NULL);
    seam_request_set_temperature(req, 0.25);
    seam_request_set_max_tokens(req, 300);
    seam_request_add_stop(req, "\n\n");
    seam_request_set_provider_options(req, "{\"seed\":null,\"user\":null}");
    tu_call r = tu_run_stream(client, "oa", "gpt-4o-mini", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_TRUE(tu_last_body_is(srv,
        "{\"model\":\"gpt-4o-mini\","
        "\"messages\":["
        "{\"role\":\"system\",\"content\":\"You are terse.\"},"
        "{\"role\":\"user\",\"content\":\"Weather in Paris?\"},"
        "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
        "\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]},"
        "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"{\\\"temp\\\":21}\"}],"
        "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"description\":\"Weather of a city\","
        "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}],"
        "\"tool_choice\":\"required\","
        "\"temperature\":0.25,\"max_tokens\":300,\"stop\":[\"\\n\\n\"],"
        "\"stream\":true,\"stream_options\":{\"include_usage\":true}}"));
    free(r.summary);
    seam_request_free(req);
}

static seam_request *conversation(void)
{
    seam_request *req = seam_request_new();
    tu_add_turn(req, SEAM_ROLE_USER, TU_PARTS(TU_TEXT("What is in this picture, and the weather?"),
                                              TU_MEDIA("image/png", SEAM_MEDIA_BASE64, "iVBORw0KGgo="),
                                              TU_MEDIA("image/jpeg", SEAM_MEDIA_URL, "https://example.org/cat.jpg")));
    tu_add_turn(req, SEAM_ROLE_ASSISTANT, TU_PARTS(TU_REASONING("private thoughts", "sig", 0),
                                                   TU_TEXT("Let me check."),
                                                   TU_CALL("call_1", "get_weather", "{\"city\":\"Paris\"}"),
                                                   TU_CALL("call_2", "get_time", "")));
    tu_add_turn(req, SEAM_ROLE_TOOL, TU_PARTS(TU_RESULT("call_1", "get_weather", "{\"temp\":21}", 0),
                                              TU_RESULT("call_2", "get_time", "\"noon\"", 1)));
    seam_request_add_user_text(req, "Thanks. JSON please.");
    seam_request_add_tool(req, "get_weather", "Weather of a city",
                          "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}");
    seam_request_add_tool(req, "get_time", NULL, NULL);
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_NAMED, "get_weather");
    seam_request_set_response_format(req, SEAM_FORMAT_JSON, "weather_report",
                                      "{\"type\":\"object\",\"properties\":{\"summary\":{\"type\":\"string\"}}}", 1);
    return req;
}

static const char *whole_tool_answer =
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
    "\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
    "{\"id\":\"call_9\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Oslo\\\"}\"}},"
    "{\"id\":\"call_10\",\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"arguments\":\"\"}}]},"
    "\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":20,"
    "\"prompt_tokens_details\":{\"cached_tokens\":64}}}";

static void test_wire_conversation(void)
{
    fake_server_push_json(srv, 200, whole_tool_answer, NULL);
    seam_request *req = conversation();
    tu_call r = tu_run_generate(client, "oa", "gpt-4o", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.summary,
        "{\"text\":\"\",\"reasoning\":\"\",\"tool_calls\":["
        "{\"id\":\"call_9\",\"name\":\"get_weather\",\"args\":{\"city\":\"Oslo\"}},"
        "{\"id\":\"call_10\",\"name\":\"get_time\",\"args\":{}}],"
        "\"stop\":\"tool_use\",\"usage\":{\"in\":36,\"out\":20,\"cache_read\":64}}");

    json_object *b = tu_last_body(srv);
    CU_ASSERT_FALSE(tu_json_has(b, "stream"));
    CU_ASSERT_FALSE(tu_json_has(b, "stream_options"));
    CU_ASSERT(TU_STR_EQ(tu_last_header(srv, "Accept"), "application/json"));
    CU_ASSERT_PTR_NULL(strstr(fake_server_request_body(srv, fake_server_request_count(srv) - 1), "private thoughts"));
    json_object *args = json_tokener_parse(tu_json_str(b, "messages.1.tool_calls.0.function.arguments"));
    CU_ASSERT_STRING_EQUAL(tu_json_str(args, "city"), "Paris");
    json_object_put(args);
    TU_ASSERT_MEMBERS(b,
        /* user: text + two images as parts */
        { "messages.0.role", "\"user\"" },
        { "messages.0.content.0.type", "\"text\"" },
        { "messages.0.content.1.type", "\"image_url\"" },
        { "messages.0.content.1.image_url.url", "\"data:image/png;base64,iVBORw0KGgo=\"" },
        { "messages.0.content.2.image_url.url", "\"https://example.org/cat.jpg\"" },
        /* assistant: text and tool calls, no reasoning (see above) */
        { "messages.1.role", "\"assistant\"" },
        { "messages.1.content", "\"Let me check.\"" },
        { "messages.1.tool_calls.0.id", "\"call_1\"" },
        { "messages.1.tool_calls.0.type", "\"function\"" },
        { "messages.1.tool_calls.0.function.name", "\"get_weather\"" },
        { "messages.1.tool_calls.1.function.arguments", "\"{}\"" },
        /* tool results: one message each, a JSON string result sent as its text */
        { "messages.2.role", "\"tool\"" },
        { "messages.2.tool_call_id", "\"call_1\"" },
        { "messages.2.content", "\"{\\\"temp\\\":21}\"" },
        { "messages.2.name", TU_ABSENT }, /* only the mistral profile names it */
        { "messages.3.tool_call_id", "\"call_2\"" },
        { "messages.3.content", "\"noon\"" },
        { "messages.4.content", "\"Thanks. JSON please.\"" },
        /* tools, tool choice, response format */
        { "tools.0.type", "\"function\"" },
        { "tools.0.function.name", "\"get_weather\"" },
        { "tools.0.function.description", "\"Weather of a city\"" },
        { "tools.0.function.parameters.required.0", "\"city\"" },
        { "tools.1.function.parameters.type", "\"object\"" },
        { "tools.1.function.parameters.properties", TU_PRESENT },
        { "tools.1.function.description", TU_ABSENT },
        { "tool_choice.type", "\"function\"" },
        { "tool_choice.function.name", "\"get_weather\"" },
        { "response_format.type", "\"json_schema\"" },
        { "response_format.json_schema.name", "\"weather_report\"" },
        { "response_format.json_schema.strict", "true" },
        { "response_format.json_schema.schema.properties.summary.type", "\"string\"" });
    CU_ASSERT_EQUAL(json_object_array_length(tu_json_at(b, "messages")), 5);
    json_object_put(b);
    free(r.summary);
    seam_request_free(req);
}

static void test_tool_choice_variants(void)
{
    static const struct {
        seam_tool_choice choice;
        const char *wire;
    } cases[] = {{SEAM_TOOL_CHOICE_AUTO, "auto"}, {SEAM_TOOL_CHOICE_NONE, "none"},
                 {SEAM_TOOL_CHOICE_REQUIRED, "required"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake_server_push_json(srv, 200, whole_tool_answer, NULL);
        seam_request *req = tu_user_request("x");
        seam_request_add_tool(req, "t", "a tool", "{\"type\":\"object\",\"properties\":{}}");
        seam_request_set_tool_choice(req, cases[i].choice, NULL);
        tu_call r = tu_run_generate(client, "oa", "gpt-4o", req, 0);
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        json_object *b = tu_last_body(srv);
        CU_ASSERT_STRING_EQUAL(tu_json_str(b, "tool_choice"), cases[i].wire);
        json_object_put(b);
        free(r.summary);
        seam_request_free(req);
    }
    /* JSON output without a schema: json_object */
    fake_server_push_json(srv, 200, whole_tool_answer, NULL);
    seam_request *req = tu_user_request("x");
    seam_request_set_response_format(req, SEAM_FORMAT_JSON, NULL, NULL, 0);
    tu_call r = tu_run_generate(client, "oa", "gpt-4o", req, 0);
    json_object *b = tu_last_body(srv);
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "response_format.type"), "json_object");
    json_object_put(b);
    free(r.summary);
    seam_request_free(req);
}

static void test_reasoning_families(void)
{
    /* o-series: max_completion_tokens, developer role, no temperature, effort */
    seam_request *req = tu_user_request("hi");
    seam_request_set_system(req, "sys");
    seam_request_set_temperature(req, 0.2);
    seam_request_set_max_tokens(req, 5000);
    seam_request_set_reasoning_budget(req, 8000);
    CU_ASSERT_EQUAL(SENT(text_sse, "oa", "o3-mini", req,
                         TU_MEMBERS({ "max_completion_tokens", "5000" },
                                    { "max_tokens", TU_ABSENT },
                                    { "messages.0.role", "\"developer\"" },
                                    { "temperature", TU_ABSENT },
                                    { "reasoning_effort", "\"medium\"" })),
                    SEAM_OK);

    /* gpt-5 is a reasoning family; gpt-5-chat is not */
    SENT(text_sse, "oa", "gpt-5-mini", req,
         TU_MEMBERS({ "max_completion_tokens", "5000" }));
    SENT(text_sse, "oa", "gpt-5-chat-latest", req,
         TU_MEMBERS({ "max_tokens", "5000" },
                    { "messages.0.role", "\"system\"" },
                    { "temperature", TU_PRESENT },
                    { "reasoning_effort", TU_ABSENT }));

    /* forced by the conf: max_completion_tokens everywhere, no stream_options */
    SENT(text_sse, "fixed", "gpt-4o", req,
         TU_MEMBERS({ "max_completion_tokens", "5000" },
                    { "stream_options", TU_ABSENT },
                    { "stream", TU_PRESENT }));
    seam_request_free(req);
}

#define WEATHER_SCHEMA "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}"

/* GPT-6 on Chat Completions: the reasoning-model parameters; with function
 * tools, reasoning_effort "none" whatever the budget (and then temperature is
 * accepted); a model that refuses "none" goes to the Responses API, or is
 * refused before sending when the conf pins Chat Completions. */
static void test_current_families(void)
{
    seam_request *req = tu_user_request("hi");
    seam_request_set_system(req, "sys");
    seam_request_set_temperature(req, 0.3);
    seam_request_set_max_tokens(req, 500);
    seam_request_set_reasoning_budget(req, 20000);

    /* gpt-6-luna, no tools: the budget's effort, no temperature */
    fake_server_push_sse(srv, text_sse, 0);
    tu_call r = tu_run_stream(client, "oap", "gpt-6-luna", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, fake_server_request_count(srv) - 1),
                           "/v1/chat/completions");
    CU_ASSERT_TRUE(tu_last_body_is(srv,
        "{\"model\":\"gpt-6-luna\",\"messages\":[{\"role\":\"developer\",\"content\":\"sys\"},"
        "{\"role\":\"user\",\"content\":\"hi\"}],\"max_completion_tokens\":500,"
        "\"reasoning_effort\":\"high\",\"stream\":true,\"stream_options\":{\"include_usage\":true}}"));
    free(r.summary);

    /* gpt-6-luna with a function tool: effort none (the budget cannot apply),
     * so the sampling parameters are accepted again */
    seam_request_add_tool(req, "get_weather", "Weather of a city", WEATHER_SCHEMA);
    fake_server_push_sse(srv, text_sse, 0);
    r = tu_run_stream(client, "oap", "gpt-6-luna", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_TRUE(tu_last_body_is(srv,
        "{\"model\":\"gpt-6-luna\",\"messages\":[{\"role\":\"developer\",\"content\":\"sys\"},"
        "{\"role\":\"user\",\"content\":\"hi\"}],"
        "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
        "\"description\":\"Weather of a city\",\"parameters\":" WEATHER_SCHEMA "}}],"
        "\"tool_choice\":\"auto\",\"temperature\":0.3,\"max_completion_tokens\":500,"
        "\"reasoning_effort\":\"none\",\"stream\":true,\"stream_options\":{\"include_usage\":true}}"));
    free(r.summary);

    /* the same for the rest of the families that take function tools only so */
    static const char *const none_with_tools[] = {"gpt-6-sol", "gpt-6.1-terra", "gpt-5.6-terra",
                                                  "gpt-5.4-mini", "gpt-5.5", "gpt-6-luna-2026-09-22"};
    for (size_t i = 0; i < sizeof none_with_tools / sizeof none_with_tools[0]; i++) {
        fake_server_push_sse(srv, text_sse, 0);
        r = tu_run_stream(client, "oap", none_with_tools[i], req, 0);
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        json_object *b = tu_last_body(srv);
        if (strcmp(tu_json_str(b, "reasoning_effort"), "none") != 0)
            fprintf(stderr, "\n%s: %s\n", none_with_tools[i], json_object_to_json_string(b));
        CU_ASSERT_STRING_EQUAL(tu_json_str(b, "reasoning_effort"), "none");
        CU_ASSERT_TRUE(tu_json_has(b, "temperature"));
        CU_ASSERT_EQUAL(tu_json_int(b, "max_completion_tokens"), 500);
        json_object_put(b);
        free(r.summary);
    }
    /* older families keep the budget's effort with tools */
    SENT(text_sse, "oap", "gpt-5.2", req,
         TU_MEMBERS({ "reasoning_effort", "\"high\"" }, { "temperature", TU_ABSENT }));

    /* gpt-6.1-sol, gpt-6-astra, gpt-6.2-*: refuse "none"; on a provider pinned to
     * Chat Completions the request is refused before anything is sent */
    static const char *const no_none[] = {"gpt-6.1-sol", "gpt-6-astra", "gpt-6.2-sol", "gpt-6.2-astra"};
    for (size_t i = 0; i < sizeof no_none / sizeof no_none[0]; i++) {
        size_t before = fake_server_request_count(srv);
        r = tu_run_stream(client, "oachat", no_none[i], req, 0);
        CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
        CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_BAD_REQUEST);
        CU_ASSERT_FALSE(r.err.retryable);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "Responses API"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "options.api"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, no_none[i]));
        CU_ASSERT_EQUAL(fake_server_request_count(srv), before);
        free(r.summary);
    }
    seam_request_free(req);

    /* without tools they stay on Chat Completions, with efforts from "low" */
    req = tu_user_request("hi");
    seam_request_set_reasoning_budget(req, 100);
    for (size_t i = 0; i < sizeof no_none / sizeof no_none[0]; i++) {
        CU_ASSERT_EQUAL(SENT(text_sse, "oap", no_none[i], req,
                             TU_MEMBERS({ "reasoning_effort", "\"low\"" })), SEAM_OK);
        CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, fake_server_request_count(srv) - 1),
                               "/v1/chat/completions");
    }
    /* another profile's model of the same name gets none of OpenAI's rules */
    seam_request_add_tool(req, "get_weather", NULL, WEATHER_SCHEMA);
    seam_request_set_temperature(req, 0.5);
    CU_ASSERT_EQUAL(SENT(text_sse, "orr", "openai/gpt-6.1-sol", req,
                         TU_MEMBERS({ "reasoning_effort", TU_ABSENT },
                                    { "temperature", TU_PRESENT })), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, fake_server_request_count(srv) - 1),
                           "/api/v1/chat/completions");
    seam_request_free(req);
}

/* OpenAI's reasoning families take no stop sequences: the API reference's
 * `stop` is "not supported with latest reasoning models o3 and o4-mini", and
 * the gpt-5 family answers 400 "Unsupported parameter: 'stop'" (gpt-5, -mini,
 * -nano, 5.1, 5.2, even at their default effort "none"). Chat models keep it. */
static void test_stop_reasoning_models(void)
{
    static const struct {
        const char *provider, *model;
        int stop;
    } cases[] = {
        {"oap", "o3", 0},          {"oap", "o4-mini", 0},      {"oap", "o3-mini", 0},
        {"oap", "o1", 0},          {"oap", "codex-mini-latest", 0},
        {"oap", "gpt-5", 0},       {"oap", "gpt-5-mini", 0},   {"oap", "gpt-5-nano", 0},
        {"oap", "gpt-5.1", 0},     {"oap", "gpt-5.2", 0},      {"oap", "gpt-5.4", 0},
        {"oap", "gpt-5.6-sol", 0}, {"oap", "gpt-6-luna", 0},
        {"oap", "gpt-4o", 1},      {"oap", "gpt-4.1-mini", 1}, {"oap", "gpt-5-chat-latest", 1},
        /* another vendor's o3 on another server: not OpenAI's rules */
        {"ol", "o3", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        seam_request *req = tu_user_request("hi");
        seam_request_add_stop(req, "END");
        fake_server_push_sse(srv, text_sse, 0);
        tu_call r = tu_run_stream(client, cases[i].provider, cases[i].model, req, 0);
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        json_object *b = tu_last_body(srv);
        if (tu_json_has(b, "stop") != cases[i].stop)
            fprintf(stderr, "\n%s: stop %s\n", cases[i].model, cases[i].stop ? "missing" : "sent");
        CU_ASSERT_EQUAL(tu_json_has(b, "stop"), cases[i].stop);
        json_object_put(b);
        free(r.summary);
        seam_request_free(req);
    }
    /* with tools and effort "none" too (gpt-6-luna, gpt-5.4) */
    seam_request *req = tu_user_request("hi");
    seam_request_add_stop(req, "END");
    seam_request_add_tool(req, "get_weather", "Weather of a city", WEATHER_SCHEMA);
    fake_server_push_sse(srv, text_sse, 0);
    tu_call r = tu_run_stream(client, "oap", "gpt-6-luna", req, 0);
    json_object *b = tu_last_body(srv);
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "reasoning_effort"), "none");
    CU_ASSERT_FALSE(tu_json_has(b, "stop"));
    json_object_put(b);
    free(r.summary);
    seam_request_free(req);
}

static void test_profiles(void)
{
    seam_request *req = conversation();
    seam_request_set_reasoning_budget(req, 2000);
    seam_request_add_stop(req, "###");

    /* deepseek: json_object only, usage asked for */
    fake_server_push_sse(srv, text_sse, 0);
    tu_call r = tu_run_stream(client, "ds", "deepseek-chat", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    json_object *b = tu_last_body(srv);
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "response_format.type"), "json_object");
    CU_ASSERT_TRUE(tu_json_has(b, "stream_options"));
    CU_ASSERT_FALSE(tu_json_has(b, "reasoning_effort"));
    CU_ASSERT_FALSE(tu_json_has(b, "seed")); /* another provider's options stay there */
    json_object_put(b);
    free(r.summary);

    /* mistral: no stream_options, tool messages named */
    CU_ASSERT_EQUAL(SENT(text_sse, "mi", "mistral-small-latest", req,
                         TU_MEMBERS({ "stream_options", TU_ABSENT },
                                    { "messages.2.name", "\"get_weather\"" },
                                    { "response_format.type", "\"json_schema\"" })), SEAM_OK);

    /* groq: no stream_options; trailing slash of base_url handled */
    CU_ASSERT_EQUAL(SENT(text_sse, "gq", "llama-3.3-70b-versatile", req,
                         TU_MEMBERS({ "stream_options", TU_ABSENT })), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, fake_server_request_count(srv) - 1),
                           "/openai/v1/chat/completions");

    /* xai: grok-4 takes no stop and no effort; grok-3-mini takes effort */
    SENT(text_sse, "xa", "grok-4", req,
         TU_MEMBERS({ "stop", TU_ABSENT },
                    { "reasoning_effort", TU_ABSENT }));
    SENT(text_sse, "xa", "grok-3-mini", req,
         TU_MEMBERS({ "reasoning_effort", "\"low\"" },
                    { "stop", TU_ABSENT }));

    /* openrouter: reasoning.effort from the budget (see test_openrouter_reasoning) */
    SENT(text_sse, "orr", "deepseek/deepseek-r1", req,
         TU_MEMBERS({ "reasoning.effort", "\"low\"" },
                    { "reasoning.max_tokens", TU_ABSENT },
                    { "stop.0", "\"###\"" }));

    /* ollama: no key, no Authorization header */
    CU_ASSERT_EQUAL(SENT(text_sse, "ol", "qwen3:8b", req,
                         TU_MEMBERS({ "reasoning_effort", "\"low\"" },
                                    { "stream_options", TU_PRESENT })), SEAM_OK);
    CU_ASSERT_PTR_NULL(tu_last_header(srv, "Authorization"));

    /* an unknown profile: the provider cannot be created, the entry is skipped
     * with the reason */
    r = tu_run_stream(client, "badprofile", "m", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "unknown profile"));
    free(r.summary);
    seam_request_free(req);
}

/* Counts near the int64 limits, negative or as huge doubles: bounded, never
 * an overflow in prompt - cached (undefined behaviour the sanitizer build
 * would stop on). */
static void test_usage_absurd_counts(void)
{
    const char *body =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}],"
        "\"usage\":{\"prompt_tokens\":-9223372036854775807,\"completion_tokens\":1e300,"
        "\"prompt_tokens_details\":{\"cached_tokens\":9223372036854775807},"
        "\"completion_tokens_details\":{\"reasoning_tokens\":-1e300}}}\n\n"
        "data: [DONE]\n\n";
    fake_server_push_sse(srv, body, 0);
    seam_request *req = tu_user_request("hi");
    tu_call r = tu_run_stream(client, "oa", "gpt-4o", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"usage\":{\"in\":0,\"out\":1000000000000,"
                                             "\"cache_read\":1000000000000,\"reasoning\":0}"));
    free(r.summary);
    seam_request_free(req);
}

static void test_request_options_merge(void)
{
    fake_server_push_sse(srv, text_sse, 0);
    seam_request *req = tu_user_request("hi");
    seam_request_set_provider_options(req,
        "{\"stream_options\":null,\"top_p\":0.5,\"seed\":9,\"profile\":\"mistral\",\"logprobs\":true,"
        "\"cache_strategy\":\"system_and_3\"}");
    tu_call r = tu_run_stream(client, "oa", "gpt-4o", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    json_object *b = tu_last_body(srv);
    CU_ASSERT_FALSE(tu_json_has(b, "stream_options")); /* null removes */
    CU_ASSERT_EQUAL(tu_json_int(b, "seed"), 9);      /* the request's over the conf's */
    CU_ASSERT_TRUE(json_object_get_boolean(tu_json_at(b, "logprobs")));
    CU_ASSERT_FALSE(tu_json_has(b, "profile"));
    CU_ASSERT_FALSE(tu_json_has(b, "cache_strategy")); /* the session's key, not OpenAI's */
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "user"), "tester");
    json_object_put(b);
    free(r.summary);
    seam_request_free(req);
}

static void test_media_refused(void)
{
    seam_request *req = seam_request_new();
    tu_add_turn(req, SEAM_ROLE_USER, TU_PARTS(TU_TEXT("listen"),
                                              TU_MEDIA("video/mp4", SEAM_MEDIA_URL, "https://example.org/v.mp4")));
    size_t before = fake_server_request_count(srv);
    tu_call r = tu_run_stream(client, "oa", "gpt-4o", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "video/mp4"));
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before); /* nothing was sent */
    free(r.summary);
    seam_request_free(req);

    /* audio and PDF as base64 go as input_audio and file parts */
    fake_server_push_json(srv, 200, whole_tool_answer, NULL);
    req = seam_request_new();
    tu_add_turn(req, SEAM_ROLE_USER, TU_PARTS(TU_MEDIA("audio/wav", SEAM_MEDIA_BASE64, "UklGRg=="),
                                              TU_MEDIA("application/pdf", SEAM_MEDIA_BASE64, "JVBERi0=")));
    r = tu_run_generate(client, "oa", "gpt-4o", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    json_object *b = tu_last_body(srv);
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "messages.0.content.0.type"), "input_audio");
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "messages.0.content.0.input_audio.format"), "wav");
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "messages.0.content.1.type"), "file");
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "messages.0.content.1.file.file_data"), "data:application/pdf;base64,JVBERi0=");
    json_object_put(b);
    free(r.summary);
    seam_request_free(req);
}

/* ---- decode ----------------------------------------------------------------- */

static void test_decode_split_everywhere(void)
{
    char *body = sse(1, mixed_lines);
    seam_request *req = tu_user_request("weather?");
    size_t len = strlen(body);
    /* one byte per segment cuts at every byte position; the others vary the shapes */
    size_t splits[] = {1, 2, 3, 5, 7, 11, 64, 0};
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
        fake_response fr = {.body = body, .split = splits[i], .chunked = (int)(i % 2)};
        fake_server_push(srv, &fr);
        tu_call r = tu_run_stream(client, "oa", "deepseek-reasoner", req, 0);
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r.summary);
        if (strcmp(r.summary, mixed_summary) != 0)
            fprintf(stderr, "\nsplit %zu of %zu: %s\n", splits[i], len, r.summary);
        CU_ASSERT_STRING_EQUAL(r.summary, mixed_summary);
        CU_ASSERT_STRING_EQUAL(r.log,
            "RS(reasoning_0) RD RE(reasoning_0) TD TS(call_a,get_weather) TS(call_b,get_time) "
            "TS(call_c,noop) TE(call_a,{\"city\":\"Par\xc3\xads\"}) TE(call_b,{\"tz\":\"UTC\"}) "
            "TE(call_c,{}) STOP(tool_use)");
        free(r.summary);
    }
    seam_request_free(req);
    free(body);
}

/* The same answer as a whole (non-streamed) body gives the same result. */
static void test_whole_equals_stream(void)
{
    const char *whole =
        "{\"id\":\"x\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{"
        "\"role\":\"assistant\",\"reasoning_content\":\"Think \\\"hard\\\".\",\"content\":\"Calling.\","
        "\"tool_calls\":[{\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
        "\"arguments\":\"{\\\"city\\\": \\\"Par\\u00eds\\\"}\"}},{\"id\":\"call_b\",\"type\":\"function\","
        "\"function\":{\"name\":\"get_time\",\"arguments\":\"{\\\"tz\\\":\\\"UTC\\\"}\"}},{\"id\":\"call_c\","
        "\"type\":\"function\",\"function\":{\"name\":\"noop\",\"arguments\":\"\"}}]},"
        "\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":30,"
        "\"prompt_tokens_details\":{\"cached_tokens\":10},\"completion_tokens_details\":{\"reasoning_tokens\":8}}}";
    fake_server_push_json(srv, 200, whole, NULL);
    seam_request *req = tu_user_request("weather?");
    tu_call r = tu_run_generate(client, "oa", "deepseek-reasoner", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.summary, mixed_summary);
    free(r.summary);

    /* and a whole body that is an error object despite a 200 */
    fake_server_push_json(srv, 200, "{\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}", NULL);
    r = tu_run_generate(client, "oa", "gpt-4o", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_OVERLOADED);
    free(r.summary);
    seam_request_free(req);
}

typedef struct variant {
    const char *what;
    int done;
    const char *lines[8];
    const char *expect;
} variant;

static void test_decode_variants(void)
{
    static const variant variants[] = {
        {"mistral: content parts with thinking, index-less tool calls, usage with finish", 1,
         {CH("{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\":\"hmm \"}]}]}", "null"),
          CH("{\"content\":[{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\":\"ok\"}]},{\"type\":\"text\",\"text\":\"Sure.\"}]}", "null"),
          "{\"choices\":[{\"index\":0,\"delta\":{\"content\":null,\"tool_calls\":[{\"id\":\"AbC123xyZ\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\": 1}\"}},"
          "{\"id\":\"QwE456rtY\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}],"
          "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":3,\"total_tokens\":12}}",
          NULL},
         "{\"text\":\"Sure.\",\"reasoning\":\"hmm ok\",\"tool_calls\":[{\"id\":\"AbC123xyZ\",\"name\":\"f\",\"args\":{\"a\":1}},"
         "{\"id\":\"QwE456rtY\",\"name\":\"g\",\"args\":{}}],\"stop\":\"tool_use\",\"usage\":{\"in\":9,\"out\":3}}"},
        {"groq: usage in x_groq, reasoning field", 1,
         {CH("{\"role\":\"assistant\",\"reasoning\":\"r1\"}", "null"),
          CH("{\"content\":\"t1\"}", "null"),
          "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"x_groq\":{\"id\":\"req_1\",\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}}",
          NULL},
         "{\"text\":\"t1\",\"reasoning\":\"r1\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{\"in\":5,\"out\":2}}"},
        {"deepseek cache hits, finish_reason without [DONE]", 0,
         {CH("{\"content\":\"a\"}", "null"),
          "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":339,"
          "\"completion_tokens\":83,\"prompt_cache_hit_tokens\":320,\"prompt_cache_miss_tokens\":19}}",
          NULL},
         "{\"text\":\"a\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"length\",\"usage\":{\"in\":19,\"out\":83,\"cache_read\":320}}"},
        {"stop after tool calls means tool_use; arguments sent as an object", 1,
         {CH("{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":{\"k\":[1,2]}}}]}", "null"),
          CH("{}", "\"stop\""), NULL},
         "{\"text\":\"\",\"reasoning\":\"\",\"tool_calls\":[{\"id\":\"c\",\"name\":\"f\",\"args\":{\"k\":[1,2]}}],\"stop\":\"tool_use\",\"usage\":{}}"},
        {"content filter", 1,
         {CH("{\"content\":\"I can\"}", "null"), CH("{}", "\"content_filter\""), NULL},
         "{\"text\":\"I can\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"content_filter\",\"usage\":{}}"},
        {"refusal", 1,
         {CH("{\"content\":null,\"refusal\":\"I cannot help with that.\"}", "null"), CH("{}", "\"stop\""), NULL},
         "{\"text\":\"I cannot help with that.\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"content_filter\",\"usage\":{}}"},
        {"a tool call without an id gets one; a reused index with a new id is a new call", 1,
         {CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}", "null"),
          CH("{\"tool_calls\":[{\"index\":0,\"id\":\"x1\",\"function\":{\"name\":\"g\",\"arguments\":\"{\\\"n\\\":1}\"}}]}", "null"),
          CH("{}", "\"tool_calls\""), NULL},
         "{\"text\":\"\",\"reasoning\":\"\",\"tool_calls\":[{\"id\":\"call_seam_0\",\"name\":\"f\",\"args\":{}},"
         "{\"id\":\"x1\",\"name\":\"g\",\"args\":{\"n\":1}}],\"stop\":\"tool_use\",\"usage\":{}}"},
        {"index-less calls without ids, several in one chunk; a reused index with a new name", 1,
         {CH("{\"tool_calls\":[{\"id\":\"\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}},"
             "{\"id\":\"\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]}", "null"),
          CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"h\",\"arguments\":\"{\\\"b\\\":2}\"}}]}", "null"),
          CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"k\",\"arguments\":\"\"}}]}", "null"),
          CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"c\\\":3}\"}}]}", "null"),
          CH("{}", "\"tool_calls\""), NULL},
         "{\"text\":\"\",\"reasoning\":\"\",\"tool_calls\":[{\"id\":\"call_seam_0\",\"name\":\"f\",\"args\":{\"a\":1}},"
         "{\"id\":\"call_seam_1\",\"name\":\"g\",\"args\":{}},{\"id\":\"call_seam_2\",\"name\":\"h\",\"args\":{\"b\":2}},"
         "{\"id\":\"call_seam_3\",\"name\":\"k\",\"args\":{\"c\":3}}],\"stop\":\"tool_use\",\"usage\":{}}"},
        {"second choice ignored, keep-alive noise", 1,
         {"{\"choices\":[{\"index\":1,\"delta\":{\"content\":\"other\"}},{\"index\":0,\"delta\":{\"content\":\"mine\"}}]}",
          CH("{}", "\"stop\""), NULL},
         "{\"text\":\"mine\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{}}"},
    };
    seam_request *req = tu_user_request("x");
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        char *body = sse(variants[i].done, variants[i].lines);
        for (size_t split = 0; split <= 1; split++) {
            fake_server_push_sse(srv, body, split);
            tu_call r = tu_run_stream(client, "oa", "m", req, 0);
            CU_ASSERT_EQUAL(r.status, SEAM_OK);
            CU_ASSERT(tu_summary_is(&r, variants[i].expect, variants[i].what));
            free(r.summary);
        }
        free(body);
    }
    seam_request_free(req);
}

/* A stream of the payload lines (sse: with [DONE] when done), split bytes a
 * write, as the answer of "oa" with model "m" to req. */
static tu_call stream_lines(int done, const char *const *lines, size_t split, const seam_request *req)
{
    char *body = sse(done, lines);
    fake_server_push_sse(srv, body, split);
    tu_call r = tu_run_stream(client, "oa", "m", req, 0);
    free(body);
    return r;
}

static void test_stream_cut_and_errors(void)
{
    seam_request *req = tu_user_request("x");
    /* no finish_reason, no [DONE]: the stream is incomplete */
    const char *const cut[] = {CH("{\"content\":\"partial\"}", "null"), NULL};
    tu_call r = stream_lines(0, cut, 0, req);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_TRANSPORT);
    CU_ASSERT_TRUE(r.incomplete);
    free(r.summary);

    /* an error object inside a 200 stream after some content */
    const char *const mid[] = {CH("{\"content\":\"Hel\"}", "null"),
                               "{\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\",\"code\":null}}",
                               NULL};
    r = stream_lines(0, mid, 1, req);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_TRUE(r.err.retryable);
    CU_ASSERT_STRING_EQUAL(r.err.message, "The server had an error");
    CU_ASSERT_STRING_EQUAL(r.err.provider, "oa");
    CU_ASSERT_TRUE(r.incomplete);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"text\":\"Hel\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"stop\":\"error\""));
    free(r.summary);

    /* OpenRouter style: the HTTP status as a numeric code, before any content */
    const char *const early[] = {"{\"error\":{\"code\":429,\"message\":\"Rate limit exceeded upstream\"}}", NULL};
    r = stream_lines(0, early, 0, req);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_TRUE(r.err.retryable);
    free(r.summary);

    /* context overflow reported in-stream */
    const char *const ctx[] = {"{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens\",\"type\":\"invalid_request_error\",\"code\":\"context_length_exceeded\"}}", NULL};
    r = stream_lines(0, ctx, 0, req);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_CONTEXT_OVERFLOW);
    CU_ASSERT_FALSE(r.err.retryable);
    CU_ASSERT_STRING_EQUAL(r.err.code, "context_length_exceeded");
    free(r.summary);

    /* garbage in the stream */
    const char *const junk[] = {"{not json", NULL};
    r = stream_lines(1, junk, 0, req);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "malformed"));
    free(r.summary);
    seam_request_free(req);
}

/* ---- <think> tags in content ------------------------------------------------- */

static void *create_with(const char *name, const char *base_url, const char *options);

/* An SSE body whose content arrives as s cut at the given offsets (ascending),
 * then finish_reason "stop" (when finish) and [DONE]. */
static char *content_sse(const char *s, const size_t *cuts, size_t ncuts, int finish)
{
    strbuf b = {0};
    size_t len = strlen(s), from = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : len;
        json_object *delta = json_object_new_object();
        json_object_object_add(delta, "content", json_object_new_string_len(s + from, (int)(to - from)));
        json_object *choice = json_object_new_object();
        json_object_object_add(choice, "index", json_object_new_int(0));
        json_object_object_add(choice, "delta", delta);
        json_object_object_add(choice, "finish_reason", NULL);
        json_object *choices = json_object_new_array();
        json_object_array_add(choices, choice);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "choices", choices);
        sb_puts(&b, "data: ");
        sb_puts(&b, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        sb_puts(&b, "\n\n");
        json_object_put(o);
        from = to;
    }
    if (finish)
        sb_puts(&b, "data: " CH("{}", "\"stop\"") "\n\ndata: [DONE]\n\n");
    return b.data;
}

/* Streams s cut at cuts through provider; 1 when the result and the chunk
 * sequence are the expected ones (a mismatch is printed with the cuts). */
static int think_case(const char *provider, const char *s, const size_t *cuts, size_t ncuts,
                      const char *want_summary, const char *want_log)
{
    char *body = content_sse(s, cuts, ncuts, 1);
    fake_server_push_sse(srv, body, 0);
    seam_request *req = tu_user_request("6*7?");
    tu_call r = tu_run_stream(client, provider, "qwq", req, 0);
    int ok = r.status == SEAM_OK && r.summary && strcmp(r.summary, want_summary) == 0 &&
             (!want_log || strcmp(r.log, want_log) == 0);
    if (!ok) {
        fprintf(stderr, "\n%s, cuts", provider);
        for (size_t i = 0; i < ncuts; i++)
            fprintf(stderr, " %zu", cuts[i]);
        fprintf(stderr, ": status %d, got %s\n  log %s\n", r.status, r.summary ? r.summary : "(none)",
                r.log);
    }
    free(r.summary);
    seam_request_free(req);
    free(body);
    return ok;
}

static const char think_answer[] = "<think>Let me see: 6*7.</think>\n\nThe answer is <b>42</b>.";
static const char think_summary[] =
    "{\"text\":\"The answer is <b>42</b>.\",\"reasoning\":\"Let me see: 6*7.\",\"tool_calls\":[],"
    "\"stop\":\"stop\",\"usage\":{}}";
static const char think_log[] = "RS(reasoning_0) RD RE(reasoning_0) TD STOP(stop)";

/* The tags split across deltas at every byte: one byte per delta, every cut in
 * two, and every pair of cuts that splits both tags. */
static void test_think_tags_split(void)
{
    size_t len = strlen(think_answer);
    size_t every[sizeof think_answer];
    for (size_t i = 1; i < len; i++)
        every[i - 1] = i;
    CU_ASSERT_TRUE(think_case("ol", think_answer, every, len - 1, think_summary, think_log));
    CU_ASSERT_TRUE(think_case("ol", think_answer, NULL, 0, think_summary, think_log));
    int failed = 0;
    for (size_t i = 1; i < len && failed < 3; i++) {
        size_t cut[1] = {i};
        failed += !think_case("ol", think_answer, cut, 1, think_summary, think_log);
    }
    size_t close_at = (size_t)(strstr(think_answer, "</think>") - think_answer);
    for (size_t i = 1; i <= 7 && failed < 3; i++)
        for (size_t j = close_at; j <= close_at + 9 && failed < 3; j++) {
            size_t cuts[2] = {i, j};
            failed += !think_case("ol", think_answer, cuts, 2, think_summary, think_log);
        }
    CU_ASSERT_EQUAL(failed, 0);
}

static void test_think_tags_edges(void)
{
    static const struct {
        const char *what, *provider, *content;
        size_t cuts[4];
        size_t ncuts;
        const char *text, *reasoning;
    } cases[] = {
        {"whitespace before <think>", "ol", "\n \n<think>r</think>  t", {1, 3, 6}, 3, "t", "r"},
        {"a tag's beginning that is not one", "ol", "<this is text", {3}, 1, "<this is text", ""},
        {"<thinking> is not <think>", "ol", "<thinking about it", {6}, 1, "<thinking about it", ""},
        {"the content ends on a tag's beginning", "ol", "<thi", {2}, 1, "<thi", ""},
        {"a <think> after text is text", "ol", "Use <think> tags.", {4, 11}, 2, "Use <think> tags.", ""},
        {"whitespace only, then text", "ol", "\n\nHello", {2}, 1, "\n\nHello", ""},
        {"an unterminated <think> is reasoning", "ol", "<think>never ends", {12}, 1, "", "never ends"},
        {"ends on a closing tag's beginning", "ol", "<think>abc</th", {11}, 1, "", "abc</th"},
        {"a second <think> inside is reasoning", "ol", "<think>a<think>b</think>c", {9}, 1, "c", "a<think>b"},
        {"think_tags = false", "olnt", "<think>x</think>y", {3}, 1, "<think>x</think>y", ""},
        {"the openai profile: off", "oap", "<think>x</think>y", {0}, 0, "<think>x</think>y", ""},
        {"an unknown local server: on", "oa", "<think>x</think>y", {0}, 0, "y", "x"},
        {"vllm: on", "vl", "<think>x</think>y", {10}, 1, "y", "x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_object *want = json_object_new_object();
        json_object_object_add(want, "text", json_object_new_string(cases[i].text));
        json_object_object_add(want, "reasoning", json_object_new_string(cases[i].reasoning));
        json_object_object_add(want, "tool_calls", json_object_new_array());
        json_object_object_add(want, "stop", json_object_new_string("stop"));
        json_object_object_add(want, "usage", json_object_new_object());
        int ok = think_case(cases[i].provider, cases[i].content, cases[i].cuts, cases[i].ncuts,
                            json_object_to_json_string_ext(want, JSON_C_TO_STRING_PLAIN |
                                                                     JSON_C_TO_STRING_NOSLASHESCAPE),
                            NULL);
        if (!ok)
            fprintf(stderr, "  (case \"%s\")\n", cases[i].what);
        CU_ASSERT_TRUE(ok);
        json_object_put(want);
    }

    /* reasoning closes before a tool call, also with a closing tag's beginning held */
    const char *const tool_lines[] = {
        CH("{\"content\":\"<think>plan</th\"}", "null"),
        CH("{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}", "null"),
        CH("{}", "\"tool_calls\""), NULL};
    char *body = sse(1, tool_lines);
    fake_server_push_sse(srv, body, 0);
    seam_request *req = tu_user_request("x");
    tu_call r = tu_run_stream(client, "ol", "qwq", req, 0);
    CU_ASSERT_STRING_EQUAL(r.summary,
        "{\"text\":\"\",\"reasoning\":\"plan</th\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\",\"args\":{}}],"
        "\"stop\":\"tool_use\",\"usage\":{}}");
    CU_ASSERT_STRING_EQUAL(r.log, "RS(reasoning_0) RD RE(reasoning_0) TS(c1,f) TE(c1,{}) STOP(tool_use)");
    free(r.summary);
    free(body);

    /* a refusal after held text keeps the order */
    const char *const refusal_lines[] = {CH("{\"content\":\"<th\"}", "null"),
                                         CH("{\"refusal\":\"No.\"}", "null"), CH("{}", "\"stop\""), NULL};
    body = sse(1, refusal_lines);
    fake_server_push_sse(srv, body, 0);
    r = tu_run_stream(client, "ol", "qwq", req, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"text\":\"<thNo.\""));
    free(r.summary);
    free(body);

    /* a stream cut short: the held bytes are still part of the partial answer */
    body = content_sse("\n<thi", NULL, 0, 0);
    fake_server_push_sse(srv, body, 0);
    r = tu_run_stream(client, "ol", "qwq", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_TRUE(r.incomplete);
    CU_ASSERT_PTR_NOT_NULL(r.summary && strstr(r.summary, "\"text\":\"\\n<thi\""));
    free(r.summary);
    free(body);
    body = content_sse("<think>half a tho", NULL, 0, 0);
    fake_server_push_sse(srv, body, 0);
    r = tu_run_stream(client, "ol", "qwq", req, 0);
    CU_ASSERT_TRUE(r.incomplete);
    CU_ASSERT_PTR_NOT_NULL(r.summary && strstr(r.summary, "\"reasoning\":\"half a tho\""));
    free(r.summary);
    free(body);

    /* a whole (non-streamed) answer gives the same result as the stream */
    fake_server_push_json(srv, 200,
        "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
        "\"<think>Let me see: 6*7.</think>\\n\\nThe answer is <b>42</b>.\"},\"finish_reason\":\"stop\"}]}",
        NULL);
    r = tu_run_generate(client, "ol", "qwq", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.summary, think_summary);
    free(r.summary);
    fake_server_push_json(srv, 200,
        "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
        "\"<think>unfinished\"},\"finish_reason\":\"length\"}]}", NULL);
    r = tu_run_generate(client, "ol", "qwq", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"text\":\"\",\"reasoning\":\"unfinished\""));
    free(r.summary);
    fake_server_push_json(srv, 200,
        "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
        "\"<think>x</think>y\"},\"finish_reason\":\"stop\"}]}", NULL);
    r = tu_run_generate(client, "oap", "gpt-4o", req, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"text\":\"<think>x</think>y\""));
    free(r.summary);
    seam_request_free(req);
}

/* ---- the reasoning budget on each wire ------------------------------------------ */

/* OpenRouter: @openrouter/sdk 1.3.19's ChatRequestReasoning has effort and
 * summary only (no max_tokens), so a budget goes as reasoning.effort on the
 * ladder low < 4096 <= medium < 16384 <= high < 32768 <= xhigh. */
static void test_openrouter_reasoning(void)
{
    static const struct {
        int64_t budget;
        const char *reasoning; /* the whole reasoning object, NULL: absent */
    } cases[] = {
        {1, "{\"effort\":\"low\"}"},        {4095, "{\"effort\":\"low\"}"},
        {4096, "{\"effort\":\"medium\"}"},  {16383, "{\"effort\":\"medium\"}"},
        {16384, "{\"effort\":\"high\"}"},   {32767, "{\"effort\":\"high\"}"},
        {32768, "{\"effort\":\"xhigh\"}"},  {1000000, "{\"effort\":\"xhigh\"}"},
        {0, NULL},
    };
    static const char *const models[] = {"anthropic/claude-sonnet-4", "openai/o3", "deepseek/deepseek-r1"};
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            fake_server_push_sse(srv, text_sse, 0);
            seam_request *req = tu_user_request("think");
            seam_request_set_reasoning_budget(req, cases[i].budget);
            tu_call r = tu_run_stream(client, "orr", models[m], req, 0);
            CU_ASSERT_EQUAL(r.status, SEAM_OK);
            json_object *b = tu_last_body(srv);
            json_object *want = cases[i].reasoning ? json_tokener_parse(cases[i].reasoning) : NULL;
            int ok = cases[i].reasoning ? json_object_equal(want, tu_json_at(b, "reasoning")) : !tu_json_has(b, "reasoning");
            ok = ok && !tu_json_has(b, "reasoning_effort");
            if (!ok)
                fprintf(stderr, "\nopenrouter %s budget %" PRId64 ": %s\n", models[m], cases[i].budget,
                        fake_server_request_body(srv, fake_server_request_count(srv) - 1));
            CU_ASSERT_TRUE(ok);
            json_object_put(want);
            json_object_put(b);
            free(r.summary);
            seam_request_free(req);
        }
}


static void test_reasoning_budget_wires(void)
{
    static const struct {
        const char *provider, *model;
        int64_t budget;
        const char *effort; /* reasoning_effort, NULL: absent */
        const char *format; /* reasoning_format, NULL: absent */
        const char *int_path; /* a number that must be the budget, NULL: none */
    } cases[] = {
        {"oap", "o3-mini", 1000, "low", NULL, NULL},
        {"oap", "o3-mini", 4095, "low", NULL, NULL},
        {"oap", "o3-mini", 4096, "medium", NULL, NULL},
        {"oap", "o4-mini", 16383, "medium", NULL, NULL},
        {"oap", "gpt-5", 16384, "high", NULL, NULL},
        {"oap", "gpt-5", 40000, "high", NULL, NULL},      /* no xhigh before gpt-5.2 */
        {"oap", "gpt-5-mini", 100, "low", NULL, NULL},
        {"oap", "o3", 70000, "high", NULL, NULL},
        {"oap", "gpt-5.1", 40000, "high", NULL, NULL},
        {"oap", "gpt-5.2", 40000, "xhigh", NULL, NULL},
        {"oap", "gpt-5.4", 70000, "xhigh", NULL, NULL},
        {"oap", "gpt-6-luna", 1000, "low", NULL, NULL},
        {"oap", "gpt-6-luna", 4096, "medium", NULL, NULL},
        {"oap", "gpt-6-luna", 16384, "high", NULL, NULL},
        {"oap", "gpt-6-luna", 32767, "high", NULL, NULL},
        {"oap", "gpt-6-luna", 32768, "xhigh", NULL, NULL},
        {"oap", "gpt-6-luna", 200000, "xhigh", NULL, NULL}, /* max: Responses only */
        {"oap", "gpt-5.6-sol", 65536, "xhigh", NULL, NULL},
        {"oap", "gpt-6.2-astra", 1, "low", NULL, NULL},
        {"oap", "gpt-6-luna", 0, NULL, NULL, NULL},
        {"oap", "gpt-5.1-chat-latest", 20000, NULL, NULL, NULL},
        {"oap", "gpt-5-chat-latest", 20000, NULL, NULL, NULL},
        {"oap", "gpt-4o", 20000, NULL, NULL, NULL},
        {"oap", "o3-mini", 0, NULL, NULL, NULL},
        {"ds", "deepseek-reasoner", 8000, NULL, NULL, NULL},
        {"ds", "deepseek-chat", 8000, NULL, NULL, NULL},
        {"gq", "openai/gpt-oss-120b", 20000, "high", NULL, NULL},
        {"gq", "openai/gpt-oss-20b", 1000, "low", NULL, NULL},
        {"gq", "qwen/qwen3-32b", 2000, "default", "parsed", NULL},
        {"gq", "deepseek-r1-distill-llama-70b", 2000, NULL, "parsed", NULL},
        {"gq", "llama-3.3-70b-versatile", 2000, NULL, NULL, NULL},
        {"mi", "mistral-small-latest", 2000, "high", NULL, NULL},
        {"mi", "magistral-medium-latest", 2000, NULL, NULL, NULL},
        {"mi", "mistral-large-latest", 2000, NULL, NULL, NULL},
        {"xa", "grok-3-mini", 8191, "low", NULL, NULL},
        {"xa", "grok-3-mini", 8192, "high", NULL, NULL},
        {"xa", "grok-4.3", 8192, "medium", NULL, NULL},
        {"xa", "grok-4", 8192, NULL, NULL, NULL},
        {"xa", "grok-4-fast-reasoning", 8192, NULL, NULL, NULL},
        {"ol", "qwen3:8b", 20000, "high", NULL, NULL},
        {"vl", "Qwen/Qwen3-8B", 3000, NULL, NULL, "thinking_token_budget"},
        {"vl", "Qwen/Qwen3-8B", 0, NULL, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake_server_push_sse(srv, text_sse, 0);
        seam_request *req = tu_user_request("think");
        seam_request_set_reasoning_budget(req, cases[i].budget);
        tu_call r = tu_run_stream(client, cases[i].provider, cases[i].model, req, 0);
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        json_object *b = tu_last_body(srv);
        const char *effort = tu_json_has(b, "reasoning_effort") ? tu_json_str(b, "reasoning_effort") : NULL;
        const char *format = tu_json_has(b, "reasoning_format") ? tu_json_str(b, "reasoning_format") : NULL;
        int ok = (cases[i].effort ? effort && strcmp(effort, cases[i].effort) == 0 : !effort) &&
                 (cases[i].format ? format && strcmp(format, cases[i].format) == 0 : !format) &&
                 (cases[i].int_path ? tu_json_int(b, cases[i].int_path) == cases[i].budget : 1) &&
                 !tu_json_has(b, "reasoning") &&
                 tu_json_has(b, "thinking_token_budget") == (cases[i].int_path && !strcmp(cases[i].int_path, "thinking_token_budget")) &&
                 !tu_json_has(b, "think") && !tu_json_has(b, "thinking");
        if (!ok)
            fprintf(stderr, "\n%s %s budget %" PRId64 ": %s\n", cases[i].provider, cases[i].model,
                    cases[i].budget, fake_server_request_body(srv, fake_server_request_count(srv) - 1));
        CU_ASSERT_TRUE(ok);
        json_object_put(b);
        free(r.summary);
        seam_request_free(req);
    }

    /* deepseek-reasoner: no sampling parameters; deepseek-chat keeps them */
    seam_request *req = tu_user_request("x");
    seam_request_set_temperature(req, 0.5);
    fake_server_push_sse(srv, text_sse, 0);
    tu_call r = tu_run_stream(client, "ds", "deepseek-reasoner", req, 0);
    json_object *b = tu_last_body(srv);
    CU_ASSERT_FALSE(tu_json_has(b, "temperature"));
    json_object_put(b);
    free(r.summary);
    SENT(text_sse, "ds", "deepseek-chat", req,
         TU_MEMBERS({ "temperature", TU_PRESENT }));
    seam_request_free(req);
}

/* ---- Mistral's 9-character tool call ids -------------------------------------- */

static int valid_mistral_id(const char *id)
{
    if (!id || strlen(id) != 9)
        return 0;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return 0;
    return 1;
}

static seam_request *foreign_tool_conversation(void)
{
    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "weather, time, nothing?");
    tu_add_turn(req, SEAM_ROLE_ASSISTANT, TU_PARTS(TU_CALL("call_abc123DEF456ghi", "get_weather", "{\"city\":\"Paris\"}"),
                                                   TU_CALL("AbC123xyZ", "get_time", "{}"),
                                                   TU_CALL("toolu_01XyZ-long_id", "noop", "{}")));
    tu_add_turn(req, SEAM_ROLE_TOOL, TU_PARTS(TU_RESULT("toolu_01XyZ-long_id", "noop", "null", 0),
                                              TU_RESULT("call_abc123DEF456ghi", "get_weather", "{\"temp\":21}", 0),
                                              TU_RESULT("AbC123xyZ", "get_time", "\"noon\"", 0)));
    seam_request_add_user_text(req, "thanks");
    return req;
}

static void test_mistral_tool_ids(void)
{
    seam_request *req = foreign_tool_conversation();
    char first[3][16];
    for (int round = 0; round < 2; round++) {
        fake_server_push_sse(srv, text_sse, 0);
        tu_call r = tu_run_stream(client, "mi", "mistral-large-latest", req, 0);
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        json_object *b = tu_last_body(srv);
        const char *weather = tu_json_str(b, "messages.1.tool_calls.0.id");
        const char *time = tu_json_str(b, "messages.1.tool_calls.1.id");
        const char *noop = tu_json_str(b, "messages.1.tool_calls.2.id");
        CU_ASSERT_TRUE(valid_mistral_id(weather));
        CU_ASSERT_TRUE(valid_mistral_id(noop));
        CU_ASSERT_STRING_EQUAL(time, "AbC123xyZ"); /* Mistral's own: untouched */
        CU_ASSERT_STRING_NOT_EQUAL(weather, noop);
        CU_ASSERT_STRING_NOT_EQUAL(weather, time);
        CU_ASSERT_STRING_NOT_EQUAL(noop, time);
        /* each result carries its call's id */
        CU_ASSERT_STRING_EQUAL(tu_json_str(b, "messages.2.tool_call_id"), noop);
        CU_ASSERT_STRING_EQUAL(tu_json_str(b, "messages.3.tool_call_id"), weather);
        CU_ASSERT_STRING_EQUAL(tu_json_str(b, "messages.4.tool_call_id"), time);
        CU_ASSERT_PTR_NULL(strstr(fake_server_request_body(srv, fake_server_request_count(srv) - 1), "call_abc"));
        if (round == 0) {
            snprintf(first[0], sizeof first[0], "%s", weather);
            snprintf(first[1], sizeof first[1], "%s", time);
            snprintf(first[2], sizeof first[2], "%s", noop);
        } else { /* deterministic: the next turn sends the same ids */
            CU_ASSERT_STRING_EQUAL(weather, first[0]);
            CU_ASSERT_STRING_EQUAL(time, first[1]);
            CU_ASSERT_STRING_EQUAL(noop, first[2]);
        }
        json_object_put(b);
        free(r.summary);
    }
    /* other servers get the ids as they are */
    fake_server_push_sse(srv, text_sse, 0);
    tu_call r = tu_run_stream(client, "oa", "gpt-4o", req, 0);
    json_object *b = tu_last_body(srv);
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "messages.1.tool_calls.0.id"), "call_abc123DEF456ghi");
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "messages.3.tool_call_id"), "call_abc123DEF456ghi");
    json_object_put(b);
    free(r.summary);
    seam_request_free(req);

    /* unit: what Mistral accepts, and a short id never takes one already used */
    CU_ASSERT_TRUE(oa_mistral_id_ok("AbC123xyZ"));
    CU_ASSERT_FALSE(oa_mistral_id_ok("AbC123xy"));
    CU_ASSERT_FALSE(oa_mistral_id_ok("AbC123xyZ0"));
    CU_ASSERT_FALSE(oa_mistral_id_ok("AbC_23xyZ"));
    CU_ASSERT_FALSE(oa_mistral_id_ok(""));
    char taken[10];
    oa_short_id("call_1", 0, taken);
    oa_id_map m = {0};
    oa_id_map_add(&m, taken, taken); /* a native id equal to call_1's first choice */
    const char *w = oa_wire_id(&m, "call_1");
    CU_ASSERT_TRUE(valid_mistral_id(w));
    CU_ASSERT_STRING_NOT_EQUAL(w, taken);
    CU_ASSERT_PTR_EQUAL(oa_wire_id(&m, "call_1"), w); /* the same id, the same short id */
    CU_ASSERT_STRING_EQUAL(oa_wire_id(NULL, "call_1"), "call_1");
    CU_ASSERT_STRING_EQUAL(oa_wire_id(&m, taken), taken);
    free(m.items);
}

/* One tokener serves a whole stream: each parse starts afresh, even after one
 * that failed half-way. */
static void test_tokener_reuse(void)
{
    json_tokener *tok = json_tokener_new();
    CU_ASSERT_PTR_NULL(json_parse_with(tok, "{\"a\":[1,", 8));
    json_object *o = json_parse_with(tok, "{\"b\":2}", 7);
    CU_ASSERT_EQUAL(tu_json_int(o, "b"), 2);
    CU_ASSERT_FALSE(tu_json_has(o, "a"));
    json_object_put(o);
    CU_ASSERT_PTR_NULL(json_parse_with(tok, "{} x", 4));
    o = json_parse_with(tok, " [1] ", 5);
    CU_ASSERT_TRUE(json_object_is_type(o, json_type_array));
    json_object_put(o);
    json_tokener_free(tok);

    /* and a malformed event in a stream does not spoil the decoder's parser */
    oa_instance *in = create_with("local", "http://127.0.0.1:8080/v1", "{}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    oa_decoder *d = oa_decoder_new(in, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_PTR_NULL(d->tok); /* made on first use: the scanner needs none */
    seam_error err;
    seam_error_clear(&err);
    const char *half = "{\"choices\":[", *usage = "{\"choices\":[],\"usage\":{\"prompt_tokens\":3}}";
    seam_frame f = {NULL, half, strlen(half), NULL};
    CU_ASSERT_NOT_EQUAL(oa_decode_event(d, &f, NULL, &err), SEAM_OK);
    seam_frame g = {NULL, usage, strlen(usage), NULL};
    CU_ASSERT_EQUAL(oa_decode_event(d, &g, NULL, &err), SEAM_OK);
    CU_ASSERT_EQUAL(d->usage.input_tokens, 3);
    oa_decoder_free(d);
    oa_destroy(in);
}

/* ---- errors ------------------------------------------------------------------ */

/* The rate-limit headers of the RPM row: Retry-After and the request limit's. */
static const char rpm_headers[] =
    "Retry-After: 3\r\nx-ratelimit-limit-requests: 3\r\nx-ratelimit-remaining-requests: 0\r\nx-ratelimit-reset-requests: 20s\r\n";

/* Each row: the answer (status, body) on its first line, then its extra
 * headers and what the core must make of it. */
static void test_error_table(void)
{
    static const tu_http_error cases[] = {
        {400, "{\"error\":{\"message\":\"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.\",\"type\":\"invalid_request_error\",\"param\":\"messages\",\"code\":\"context_length_exceeded\"}}",
         NULL, SEAM_ERROR_CONTEXT_OVERFLOW, 0, "context_length_exceeded", "maximum context length"},
        {400, "{\"object\":\"error\",\"message\":\"Prompt contains 40000 tokens, too large for model with 32768 maximum context length\",\"type\":\"invalid_request_error\",\"code\":null}",
         NULL, SEAM_ERROR_CONTEXT_OVERFLOW, 0, "invalid_request_error", "too large"},
        {400, "{\"error\":{\"message\":\"Invalid value for 'temperature'\",\"type\":\"invalid_request_error\",\"param\":\"temperature\",\"code\":\"invalid_value\"}}",
         NULL, SEAM_ERROR_BAD_REQUEST, 0, "invalid_value", "temperature"},
        {400, "{\"error\":{\"message\":\"Your request was rejected as a result of our safety system\",\"type\":\"invalid_request_error\",\"code\":\"content_policy_violation\"}}",
         NULL, SEAM_ERROR_CONTENT_FILTER, 0, "content_policy_violation", "safety"},
        {401, "{\"error\":{\"message\":\"Incorrect API key provided: sk-test-**********-123. You can find your API key at https://platform.openai.com/account/api-keys.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}",
         NULL, SEAM_ERROR_AUTH, 0, "invalid_api_key", "Incorrect API key provided: <redacted>"},
        {403, "{\"error\":{\"message\":\"Country, region, or territory not supported\",\"type\":\"request_forbidden\",\"code\":\"unsupported_country_region_territory\"}}",
         NULL, SEAM_ERROR_AUTH, 0, "unsupported_country_region_territory", "Country"},
        {404, "{\"error\":{\"message\":\"The model `gpt-9` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}",
         NULL, SEAM_ERROR_MODEL_NOT_FOUND, 0, "model_not_found", "gpt-9"},
        {404, "{\"error\":\"model 'llama9' not found, try pulling it first\"}",
         NULL, SEAM_ERROR_MODEL_NOT_FOUND, 0, "", "llama9"},
        {429, "{\"error\":{\"message\":\"Rate limit reached for gpt-4o on requests per min (RPM): Limit 3, Used 3\",\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}",
         rpm_headers, SEAM_ERROR_RATE_LIMIT, 1, "rate_limit_exceeded", "Rate limit reached"},
        {429, "{\"error\":{\"message\":\"You exceeded your current quota, please check your plan and billing details.\",\"type\":\"insufficient_quota\",\"param\":null,\"code\":\"insufficient_quota\"}}",
         NULL, SEAM_ERROR_RATE_LIMIT, 0, "insufficient_quota", "quota"},
        {402, "{\"error\":{\"message\":\"Insufficient Balance\",\"type\":\"unknown_error\",\"param\":null,\"code\":\"invalid_request_error\"}}",
         NULL, SEAM_ERROR_RATE_LIMIT, 0, "invalid_request_error", "Insufficient Balance"},
        {408, "{\"error\":{\"message\":\"Request timed out\"}}",
         NULL, SEAM_ERROR_TIMEOUT, 1, "", "timed out"},
        {500, "{\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\"}}",
         NULL, SEAM_ERROR_OVERLOADED, 1, "server_error", "server had an error"},
        {503, "<html>Service Unavailable</html>",
         NULL, SEAM_ERROR_OVERLOADED, 1, "", "Service Unavailable"},
        {504, "",
         NULL, SEAM_ERROR_TIMEOUT, 1, "", "HTTP 504"},
        {413, "{\"error\":{\"message\":\"Request too large for model on tokens per minute (TPM): Limit 6000, Requested 9000\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}",
         NULL, SEAM_ERROR_RATE_LIMIT, 1, "rate_limit_exceeded", "tokens per minute"},
        {422, "{\"object\":\"error\",\"message\":{\"detail\":[{\"type\":\"extra_forbidden\",\"loc\":[\"body\",\"foo\"],\"msg\":\"Extra inputs are not permitted\"}]},\"type\":\"invalid_request_error\",\"param\":null,\"code\":null}",
         NULL, SEAM_ERROR_BAD_REQUEST, 0, "invalid_request_error", "Extra inputs"},
    };
    seam_request *req = tu_user_request("x");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_push_http_error(srv, &cases[i]);
        tu_call r = tu_run_stream(client, "oa", "gpt-4o", req, 0);
        CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
        tu_error_is(&r.err, &cases[i], "sk-test");
        CU_ASSERT_STRING_EQUAL(r.err.provider, "oa");
        if (cases[i].headers) {
            CU_ASSERT_EQUAL(r.err.retry_after_ms, 3000);
            CU_ASSERT_PTR_NOT_NULL(strstr(r.err.ratelimit, "x-ratelimit-reset-requests: 20s"));
            CU_ASSERT_PTR_NOT_NULL(strstr(r.err.ratelimit, "x-ratelimit-remaining-requests: 0"));
        }
        free(r.summary);
    }

    /* No Retry-After: the reset time of the exhausted limit stands in. */
    fake_server_push_json(srv, 429,
        "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}",
        "x-ratelimit-remaining-requests: 10\r\nx-ratelimit-reset-requests: 1s\r\n"
        "x-ratelimit-remaining-tokens: 0\r\nx-ratelimit-reset-tokens: 1m2.5s\r\n");
    tu_call r = tu_run_stream(client, "oa", "gpt-4o", req, 0);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_EQUAL(r.err.retry_after_ms, 62500);
    free(r.summary);
    seam_request_free(req);
}

static void test_unreachable_server(void)
{
    seam_request *req = tu_user_request("x");
    int64_t t0 = tu_now_ms();
    tu_call r = tu_run_stream(client, "dead", "llama3", req, 0);
    int64_t elapsed = tu_now_ms() - t0;
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_TRANSPORT);
    CU_ASSERT_TRUE(r.err.retryable);
    CU_ASSERT_TRUE(elapsed < 2500);
    free(r.summary);
    seam_request_free(req);
}

/* ---- the codec's tables, unit tested --------------------------------------------- */

static void *create_with(const char *name, const char *base_url, const char *options)
{
    seam_provider_config cfg = {sizeof cfg, name, base_url, options};
    seam_error err;
    seam_error_clear(&err);
    void *in = oa_create(&cfg, &err);
    if (!in)
        fprintf(stderr, "create: %s\n", err.message);
    return in;
}

/* Options the plugin refuses for provider "prov": no instance, a conf error
 * whose message holds needle. */
static void expect_conf_refused(const char *options, const char *needle)
{
    seam_provider_config cfg = {sizeof cfg, "prov", NULL, options};
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_PTR_NULL(oa_create(&cfg, &err));
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CONF);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, needle));
}

static void test_profile_inference(void)
{
    static const struct {
        const char *name, *base_url, *options, *profile, *url;
    } cases[] = {
        {"openai", NULL, "{}", "openai", "https://api.openai.com/v1"},
        {"deepseek", NULL, "{}", "deepseek", "https://api.deepseek.com/v1"},
        {"groq", NULL, "{}", "groq", "https://api.groq.com/openai/v1"},
        {"local", "http://localhost:11434/v1/", "{}", "ollama", "http://localhost:11434/v1"},
        {"x", "https://api.mistral.ai/v1", "{}", "mistral", "https://api.mistral.ai/v1"},
        {"x", "https://api.x.ai/v1", "{}", "xai", "https://api.x.ai/v1"},
        {"x", "https://openrouter.ai/api/v1", "{}", "openrouter", "https://openrouter.ai/api/v1"},
        {"x", "https://API.DeepSeek.com", "{}", "deepseek", "https://API.DeepSeek.com"},
        {"x", "https://notdeepseek.com.example/v1", "{}", "openai", "https://notdeepseek.com.example/v1"},
        {"x", "http://10.0.0.5:8000/v1", "{\"profile\":\"vllm\"}", "vllm", "http://10.0.0.5:8000/v1"},
        {"myollama", NULL, "{\"profile\":\"ollama\"}", "ollama", "http://127.0.0.1:11434/v1"},
        {"x", "https://api.groq.com/openai/v1", "{\"profile\":\"OpenAI\"}", "openai", "https://api.groq.com/openai/v1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        oa_instance *in = create_with(cases[i].name, cases[i].base_url, cases[i].options);
        CU_ASSERT_PTR_NOT_NULL_FATAL(in);
        CU_ASSERT_STRING_EQUAL(in->profile->id, cases[i].profile);
        CU_ASSERT_STRING_EQUAL(in->base_url, cases[i].url);
        /* no body field among the options: no read-back merge per request */
        CU_ASSERT_PTR_NULL(in->body_options);
        oa_destroy(in);
    }
    oa_instance *with_field = create_with("x", NULL, "{\"profile\":\"vllm\",\"top_k\":5}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(with_field);
    TU_ASSERT_STR(with_field->body_options, "{\"top_k\":5}");
    oa_destroy(with_field);
    /* think_tags: on where content may carry <think>, off elsewhere; the option wins */
    static const struct {
        const char *name, *base_url, *options;
        int think;
    } think[] = {
        {"openai", NULL, "{}", 0},
        {"x", "https://api.openai.com/v1", "{}", 0},
        {"x", "http://127.0.0.1:8080/v1", "{\"profile\":\"openai\"}", 0},
        {"x", "https://api.deepseek.com", "{}", 0},
        {"x", "https://api.groq.com/openai/v1", "{}", 1},
        {"x", "http://localhost:11434/v1", "{}", 1},
        {"x", "http://10.0.0.5:8000/v1", "{\"profile\":\"vllm\"}", 1},
        {"llamacpp", "http://127.0.0.1:8080/v1", "{}", 1},
        {"lmstudio", "http://localhost:1234/v1", "{}", 1},
        {"x", "http://[::1]:8080/v1", "{}", 1},
        {"x", "http://192.168.1.20:8080/v1", "{}", 1},
        {"x", "http://172.20.0.3:8080/v1", "{}", 1},
        {"x", "http://172.32.0.3:8080/v1", "{}", 0},
        {"x", "http://127.0.0.1.example.com/v1", "{}", 0},
        {"x", "https://llm.example.com/v1", "{}", 0},
        {"x", "http://localhost:11434/v1", "{\"think_tags\":false}", 0},
        {"x", "https://api.openai.com/v1", "{\"think_tags\":true}", 1},
    };
    for (size_t i = 0; i < sizeof think / sizeof think[0]; i++) {
        oa_instance *in = create_with(think[i].name, think[i].base_url, think[i].options);
        CU_ASSERT_PTR_NOT_NULL_FATAL(in);
        if (in->think_tags != think[i].think)
            fprintf(stderr, "\nthink_tags of %s %s: %d\n", think[i].base_url ? think[i].base_url : "-",
                    think[i].options, in->think_tags);
        CU_ASSERT_EQUAL(in->think_tags, think[i].think);
        oa_destroy(in);
    }
    /* bad plugin options are conf errors naming the provider */
    static const char *const bad[] = {"{\"profile\":\"nope\"}", "{\"profile\":3}",
                                      "{\"max_tokens_param\":\"tokens\"}", "{\"stream_usage\":\"yes\"}",
                                      "{\"headers\":{\"X\":1}}", "{\"headers\":{\"authorization\":\"Bearer x\"}}",
                                      "{\"capabilities\":[]}", "[]", "{\"think_tags\":\"yes\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_conf_refused(bad[i], "prov");
}

static void test_capabilities(void)
{
    oa_instance *in = create_with("openai", NULL, "{}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    seam_capabilities c;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    CU_ASSERT_EQUAL(oa_capabilities(in, "gpt-4o-mini", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.tools && c.parallel_tool_calls && c.vision && c.structured_output && c.streaming);
    CU_ASSERT_FALSE(c.reasoning);
    CU_ASSERT_EQUAL(c.context_window, 128000);
    CU_ASSERT_EQUAL(c.size, sizeof c);
    CU_ASSERT_EQUAL(oa_capabilities(in, "o3-mini-2025-01-31", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.reasoning && c.tools);
    CU_ASSERT_FALSE(c.vision);
    CU_ASSERT_EQUAL(oa_capabilities(in, "o3", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.reasoning && c.vision);
    CU_ASSERT_EQUAL(oa_capabilities(in, "gpt-4.1-nano", &c), SEAM_OK);
    CU_ASSERT_EQUAL(c.context_window, 1047576);
    CU_ASSERT_EQUAL(oa_capabilities(in, "deepseek-reasoner", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.reasoning && c.prompt_cache);
    CU_ASSERT_FALSE(c.vision);
    CU_ASSERT_EQUAL(oa_capabilities(in, "deepseek/deepseek-chat", &c), SEAM_OK); /* OpenRouter ids */
    CU_ASSERT_FALSE(c.reasoning);
    CU_ASSERT_TRUE(c.tools);
    CU_ASSERT_EQUAL(oa_capabilities(in, "qwen3:8b", &c), SEAM_OK); /* Ollama tags */
    CU_ASSERT_TRUE(c.reasoning);
    CU_ASSERT_EQUAL(oa_capabilities(in, "gpt-6-luna", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.reasoning && c.tools && c.vision && c.structured_output);
    CU_ASSERT_EQUAL(c.context_window, 1050000);
    CU_ASSERT_EQUAL(c.max_output_tokens, 128000);
    CU_ASSERT_EQUAL(oa_capabilities(in, "gpt-6.2-sol", &c), SEAM_OK);
    CU_ASSERT_EQUAL(c.context_window, 1050000);
    CU_ASSERT_EQUAL(oa_capabilities(in, "gpt-5.6-terra", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.reasoning);
    CU_ASSERT_EQUAL(c.context_window, 1050000);
    CU_ASSERT_EQUAL(oa_capabilities(in, "gpt-5.4-mini", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.reasoning);
    CU_ASSERT_EQUAL(c.context_window, 0); /* not checked: the catalog's applies */
    CU_ASSERT_EQUAL(oa_capabilities(in, "o10-hypothetical", &c), SEAM_OK); /* not o1 */
    CU_ASSERT_FALSE(c.reasoning);
    CU_ASSERT_TRUE(c.tools && c.streaming);
    CU_ASSERT_EQUAL(c.context_window, 0);
    oa_destroy(in);

    /* conf overrides: for every model, then per model prefix */
    in = create_with("local", "http://127.0.0.1:11434/v1",
                     "{\"capabilities\":{\"context_window\":32768,\"tools\":false,"
                     "\"models\":[{\"match\":\"llava\",\"vision\":true,\"context_window\":4096}]}}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_EQUAL(oa_capabilities(in, "mystery-model", &c), SEAM_OK);
    CU_ASSERT_EQUAL(c.context_window, 32768);
    CU_ASSERT_FALSE(c.tools);
    CU_ASSERT_FALSE(c.vision);
    CU_ASSERT_EQUAL(oa_capabilities(in, "llava:13b", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.vision);
    CU_ASSERT_EQUAL(c.context_window, 4096);
    /* an older, smaller struct is not written past */
    unsigned char buf[sizeof(seam_capabilities) + 8];
    memset(buf, 0xAB, sizeof buf);
    seam_capabilities *small = (seam_capabilities *)(void *)buf;
    small->size = (uint32_t)offsetof(seam_capabilities, context_window);
    CU_ASSERT_EQUAL(oa_capabilities(in, "llava", small), SEAM_OK);
    CU_ASSERT_EQUAL(small->size, offsetof(seam_capabilities, context_window));
    CU_ASSERT_EQUAL(buf[offsetof(seam_capabilities, context_window)], 0xAB);
    oa_destroy(in);
}

/* OpenAI's model rules and the endpoint choice, from the table. */
static void test_model_rules(void)
{
    oa_instance *in = create_with("openai", NULL, "{}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_EQUAL(in->api, OA_API_AUTO);
    CU_ASSERT_STRING_EQUAL(in->reasoning_summary, "auto");
    static const struct {
        const char *model;
        int reasoning;
        unsigned efforts;
        int tools_need_none;
    } cases[] = {
        {"gpt-6-luna", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"GPT-6-Luna", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-6-sol", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-6-astra", 1, EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-6.1-sol", 1, EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-6.1-terra", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-6.2-astra", 1, EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-6.2-sol-2026-11-17", 1, EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-5.6-luna", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-5.5", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH, 1},
        {"gpt-5.4-nano", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH, 1},
        {"gpt-5.2", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH, 0},
        {"gpt-5.1-codex", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH, 0},
        {"gpt-5.1-chat-latest", 1, 0, 0},
        {"gpt-5-chat-latest", 0, 0, 0},
        {"gpt-5-nano", 1, EF_MINIMAL | EF_LOW | EF_MEDIUM | EF_HIGH, 0},
        {"o4-mini", 1, EF_LOW | EF_MEDIUM | EF_HIGH, 0},
        {"gpt-4.1", 0, 0, 0},
        {"gpt-60", 0, 0, 0}, /* not a gpt-6 at a name boundary */
        {"deepseek-chat", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        oa_model_rules r;
        oa_model_rules_of(in, cases[i].model, &r);
        if (r.reasoning != cases[i].reasoning || r.efforts != cases[i].efforts ||
            r.tools_need_none != cases[i].tools_need_none)
            fprintf(stderr, "\n%s: reasoning %d efforts %#x tools_need_none %d\n", cases[i].model,
                    r.reasoning, r.efforts, r.tools_need_none);
        CU_ASSERT_EQUAL(r.reasoning, cases[i].reasoning);
        CU_ASSERT_EQUAL(r.efforts, cases[i].efforts);
        CU_ASSERT_EQUAL(r.tools_need_none, cases[i].tools_need_none);
    }

    /* the endpoint: auto sends only tools on a model refusing "none" to /responses */
    seam_request *req = tu_user_request("x");
    seam_request_set_model(req, "gpt-6.1-sol");
    CU_ASSERT_FALSE(oa_use_responses(in, req));
    seam_request_add_tool(req, "t", NULL, NULL);
    CU_ASSERT_TRUE(oa_use_responses(in, req));
    seam_request_set_model(req, "gpt-6-luna");
    CU_ASSERT_FALSE(oa_use_responses(in, req));
    oa_destroy(in);
    in = create_with("x", "https://api.groq.com/openai/v1", "{}"); /* not OpenAI's rules */
    seam_request_set_model(req, "gpt-6.1-sol");
    CU_ASSERT_FALSE(oa_use_responses(in, req));
    oa_destroy(in);
    in = create_with("x", NULL, "{\"api\":\"chat\",\"reasoning_summary\":\"none\"}");
    CU_ASSERT_FALSE(oa_use_responses(in, req));
    CU_ASSERT_PTR_NULL(in->reasoning_summary);
    oa_destroy(in);
    in = create_with("x", "http://127.0.0.1:8000/v1", "{\"profile\":\"vllm\",\"api\":\"responses\",\"reasoning_summary\":\"detailed\"}");
    seam_request_set_model(req, "Qwen/Qwen3-8B");
    CU_ASSERT_TRUE(oa_use_responses(in, req));
    CU_ASSERT_STRING_EQUAL(in->reasoning_summary, "detailed");
    oa_destroy(in);
    seam_request_free(req);
    static const char *const bad[] = {"{\"api\":\"completions\"}", "{\"api\":true}",
                                      "{\"reasoning_summary\":\"short\"}", "{\"reasoning_summary\":1}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_conf_refused(bad[i], "options.");

    /* the effort ladder: the highest accepted level at or below the budget's */
    unsigned all = EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX;
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 1, 1), "low");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 4095, 1), "low");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 4096, 1), "medium");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 16384, 1), "high");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 32768, 1), "xhigh");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 65535, 1), "xhigh");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 65536, 1), "max");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 65536, 0), "xhigh");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(EF_LOW | EF_MEDIUM | EF_HIGH, 1000000, 1), "high");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(EF_HIGH, 10, 1), "high"); /* none lower: the next up */
    CU_ASSERT_PTR_NULL(oa_effort_for_budget(EF_NONE | EF_MINIMAL, 10, 1));
    CU_ASSERT_PTR_NULL(oa_effort_for_budget(EF_MAX, 10, 0));
}

/* oa_parse_duration_ms is seam_parse_duration_ms, whose vectors test_codec
 * checks. */
static void test_helpers(void)
{
    char s[200] = "Incorrect API key provided: sk-proj-abc***xyz. See docs; also gsk_1234567890abcdef, not task-sk-x.";
    oa_scrub_keys(s);
    CU_ASSERT_STRING_EQUAL(s, "Incorrect API key provided: <redacted>. See docs; also <redacted>, not task-sk-x.");

    CU_ASSERT_EQUAL(oa_map_finish("stop"), SEAM_STOP_STOP);
    CU_ASSERT_EQUAL(oa_map_finish("length"), SEAM_STOP_LENGTH);
    CU_ASSERT_EQUAL(oa_map_finish("tool_calls"), SEAM_STOP_TOOL_USE);
    CU_ASSERT_EQUAL(oa_map_finish("function_call"), SEAM_STOP_TOOL_USE);
    CU_ASSERT_EQUAL(oa_map_finish("content_filter"), SEAM_STOP_CONTENT_FILTER);
    CU_ASSERT_EQUAL(oa_map_finish("error"), SEAM_STOP_ERROR);
}

static const tu_test tests[] = {
    { "wire: basic streamed request", test_wire_basic_stream },
    { "wire: exact body", test_wire_exact_body },
    { "wire: conversation, tools, media, json schema", test_wire_conversation },
    { "wire: tool choice variants", test_tool_choice_variants },
    { "wire: reasoning families", test_reasoning_families },
    { "wire: GPT-6 and GPT-5.x on Chat Completions", test_current_families },
    { "wire: no stop for OpenAI's reasoning models", test_stop_reasoning_models },
    { "wire: profiles", test_profiles },
    { "wire: request options merged", test_request_options_merge },
    { "decode: absurd usage counts are bounded", test_usage_absurd_counts },
    { "wire: media", test_media_refused },
    { "decode: split at every byte", test_decode_split_everywhere },
    { "decode: whole equals stream", test_whole_equals_stream },
    { "decode: server variants", test_decode_variants },
    { "decode: cut streams and in-stream errors", test_stream_cut_and_errors },
    { "decode: <think> tags split at every byte", test_think_tags_split },
    { "decode: <think> tags, edges and profiles", test_think_tags_edges },
    { "decode: one tokener per decoder", test_tokener_reuse },
    { "wire: reasoning budget per server", test_reasoning_budget_wires },
    { "wire: openrouter reasoning effort from a budget", test_openrouter_reasoning },
    { "wire: mistral tool call ids", test_mistral_tool_ids },
    { "errors: classification table", test_error_table },
    { "errors: unreachable server", test_unreachable_server },
    { "unit: profile inference and options", test_profile_inference },
    { "unit: capabilities", test_capabilities },
    { "unit: OpenAI model rules and the endpoint", test_model_rules },
    { "unit: helpers", test_helpers },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("openai", tests, start);
}
