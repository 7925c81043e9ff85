/* test_openai.c — the OpenAI-compatible plugin's encoder (encode.c,
 * encode_common.c, body.c, body_fields.c, mistral_ids.c) through the real
 * loader and the fake provider server: the request's wire shape (URL, headers,
 * JSON body) for plain, tool, multimodal, structured and reasoning requests
 * and for each profile, OpenAI's current families (GPT-6, GPT-5.x: golden
 * bodies for gpt-6-luna with and without tools, reasoning_effort "none" with
 * tools, the refusal of a model that rejects "none" when Chat Completions is
 * forced), the reasoning budget on each server's wire, Mistral's tool call ids.
 *
 * The decoder and the error table have test_openai_decode, the codec's
 * internal tables test_openai_models; the fixtures they share are in
 * tu_openai.c. The Responses API codec has its own test program,
 * test_openai_responses. */
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
#include "tu_openai.h"

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
    { "wire: media", test_media_refused },
    { "wire: reasoning budget per server", test_reasoning_budget_wires },
    { "wire: openrouter reasoning effort from a budget", test_openrouter_reasoning },
    { "wire: mistral tool call ids", test_mistral_tool_ids },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("openai", tests, start);
}
