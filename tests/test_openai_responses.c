/* test_openai_responses.c — the openai plugin's Responses API codec through the
 * real loader and the fake provider server: the request's wire shape (URL,
 * headers, JSON body) for GPT-6 with tools (sent there automatically), for a
 * conversation with media, structured output and replayed reasoning, and per
 * option; stream decoding of our own transcripts (written from the documented
 * event shapes) cut at every byte position; the whole Response object decoded
 * to the same result as the stream; reasoning signatures replayed on the next
 * turn; incomplete, refused and failed responses; in-stream and HTTP errors. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

#define KEY "sk-test-secret-456"

static fake_server *srv;
static seam_client *client;

/* ---- helpers -------------------------------------------------------------- */

/* Every provider the tests use, all pointed at the fake server. */
static const char providers[] =
    "providers = {\n"
    "  oap = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\"; options = { profile = \"openai\"; }; };\n"
    "  rs = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\";\n"
    "         options = { profile = \"openai\"; api = \"responses\"; headers = { X-Title = \"seam-test\"; }; }; };\n"
    "  rsq = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\";\n"
    "          options = { profile = \"openai\"; api = \"responses\"; reasoning_summary = \"none\"; }; };\n"
    "  vr = { plugin = \"openai\"; base_url = \"@URL@/v1\"; options = { profile = \"vllm\"; api = \"responses\"; }; };\n"
    "};\n"
    "media = { inline_document_bytes = 65536; };\n"; /* small PDFs inline (default 0) */

static int start(void)
{
    return tu_start_client_on(&srv, &client, providers);
}

/* An SSE body of Responses events (NULL-terminated), each as
 * "event: <its type>\ndata: <it>\n\n", as the API frames them. */
static char *sse(const char *const *events)
{
    size_t cap = 64;
    for (size_t i = 0; events[i]; i++)
        cap += strlen(events[i]) + 128;
    char *b = malloc(cap);
    size_t len = 0;
    b[0] = '\0';
    for (size_t i = 0; events[i]; i++) {
        json_object *ev = json_tokener_parse(events[i]);
        json_object *type = NULL;
        const char *t = ev && json_object_object_get_ex(ev, "type", &type) ? json_object_get_string(type) : NULL;
        len += (size_t)snprintf(b + len, cap - len, "%s%s%sdata: %s\n\n", t ? "event: " : "",
                                t ? t : "", t ? "\n" : "", events[i]);
        json_object_put(ev);
    }
    return b;
}

/* ---- transcripts (written for these tests from the documented events) --------- */

#define RS_ITEM \
    "{\"id\":\"rs_1\",\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"**Plan** check the weather.\"}," \
    "{\"type\":\"summary_text\",\"text\":\"Then answer.\"}],\"encrypted_content\":\"gAAAAABenc_1-xyz==\"}"
#define MSG_ITEM \
    "{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"completed\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\"," \
    "\"text\":\"Checking Par\\u00eds.\",\"annotations\":[]}]}"
#define FC1_ITEM \
    "{\"id\":\"fc_1\",\"type\":\"function_call\",\"status\":\"completed\",\"call_id\":\"call_a\",\"name\":\"get_weather\"," \
    "\"arguments\":\"{\\\"city\\\": \\\"Par\\u00eds\\\"}\"}"
#define FC2_ITEM \
    "{\"id\":\"fc_2\",\"type\":\"function_call\",\"status\":\"completed\",\"call_id\":\"call_b\",\"name\":\"noop\",\"arguments\":\"\"}"
#define OUTPUT "[" RS_ITEM "," MSG_ITEM "," FC1_ITEM "," FC2_ITEM "]"
#define USAGE \
    "{\"input_tokens\":120,\"input_tokens_details\":{\"cached_tokens\":100},\"output_tokens\":50," \
    "\"output_tokens_details\":{\"reasoning_tokens\":20},\"total_tokens\":170}"
#define RESPONSE(status, output, extra) \
    "{\"id\":\"resp_1\",\"object\":\"response\",\"created_at\":1790000000,\"status\":\"" status "\",\"error\":null," \
    "\"incomplete_details\":null,\"model\":\"gpt-6.2-sol\",\"output\":" output extra "}"

/* A reasoning item with two summary parts, text, then two function calls whose
 * events interleave (the second starts before the first is done, one has no
 * arguments), then response.completed with the whole output and usage. */
static const char *const mixed_events[] = {
    "{\"type\":\"response.created\",\"sequence_number\":0,\"response\":" RESPONSE("in_progress", "[]", ",\"usage\":null") "}",
    "{\"type\":\"response.in_progress\",\"sequence_number\":1,\"response\":" RESPONSE("in_progress", "[]", ",\"usage\":null") "}",
    "{\"type\":\"response.output_item.added\",\"sequence_number\":2,\"output_index\":0,\"item\":{\"id\":\"rs_1\",\"type\":\"reasoning\",\"summary\":[]}}",
    "{\"type\":\"response.reasoning_summary_part.added\",\"sequence_number\":3,\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":0,\"part\":{\"type\":\"summary_text\",\"text\":\"\"}}",
    "{\"type\":\"response.reasoning_summary_text.delta\",\"sequence_number\":4,\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":0,\"delta\":\"**Plan** \"}",
    "{\"type\":\"response.reasoning_summary_text.delta\",\"sequence_number\":5,\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":0,\"delta\":\"check the weather.\"}",
    "{\"type\":\"response.reasoning_summary_text.done\",\"sequence_number\":6,\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":0,\"text\":\"**Plan** check the weather.\"}",
    "{\"type\":\"response.reasoning_summary_part.done\",\"sequence_number\":7,\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":0,\"part\":{\"type\":\"summary_text\",\"text\":\"**Plan** check the weather.\"}}",
    "{\"type\":\"response.reasoning_summary_part.added\",\"sequence_number\":8,\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":1,\"part\":{\"type\":\"summary_text\",\"text\":\"\"}}",
    "{\"type\":\"response.reasoning_summary_text.delta\",\"sequence_number\":9,\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":1,\"delta\":\"Then answer.\"}",
    "{\"type\":\"response.reasoning_summary_text.done\",\"sequence_number\":10,\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":1,\"text\":\"Then answer.\"}",
    "{\"type\":\"response.output_item.done\",\"sequence_number\":11,\"output_index\":0,\"item\":" RS_ITEM "}",
    "{\"type\":\"response.output_item.added\",\"sequence_number\":12,\"output_index\":1,\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"in_progress\",\"role\":\"assistant\",\"content\":[]}}",
    "{\"type\":\"response.content_part.added\",\"sequence_number\":13,\"item_id\":\"msg_1\",\"output_index\":1,\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[]}}",
    "{\"type\":\"response.output_text.delta\",\"sequence_number\":14,\"item_id\":\"msg_1\",\"output_index\":1,\"content_index\":0,\"delta\":\"Checking \"}",
    "{\"type\":\"response.output_text.delta\",\"sequence_number\":15,\"item_id\":\"msg_1\",\"output_index\":1,\"content_index\":0,\"delta\":\"Par\\u00eds.\"}",
    "{\"type\":\"response.output_text.done\",\"sequence_number\":16,\"item_id\":\"msg_1\",\"output_index\":1,\"content_index\":0,\"text\":\"Checking Par\\u00eds.\"}",
    "{\"type\":\"response.content_part.done\",\"sequence_number\":17,\"item_id\":\"msg_1\",\"output_index\":1,\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"Checking Par\\u00eds.\",\"annotations\":[]}}",
    "{\"type\":\"response.output_item.done\",\"sequence_number\":18,\"output_index\":1,\"item\":" MSG_ITEM "}",
    "{\"type\":\"response.output_item.added\",\"sequence_number\":19,\"output_index\":2,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"status\":\"in_progress\",\"call_id\":\"call_a\",\"name\":\"get_weather\",\"arguments\":\"\"}}",
    "{\"type\":\"response.function_call_arguments.delta\",\"sequence_number\":20,\"item_id\":\"fc_1\",\"output_index\":2,\"delta\":\"{\\\"ci\"}",
    "{\"type\":\"response.output_item.added\",\"sequence_number\":21,\"output_index\":3,\"item\":{\"id\":\"fc_2\",\"type\":\"function_call\",\"status\":\"in_progress\",\"call_id\":\"call_b\",\"name\":\"noop\",\"arguments\":\"\"}}",
    "{\"type\":\"response.function_call_arguments.delta\",\"sequence_number\":22,\"item_id\":\"fc_1\",\"output_index\":2,\"delta\":\"ty\\\": \\\"Par\\u00eds\\\"}\"}",
    "{\"type\":\"response.function_call_arguments.done\",\"sequence_number\":23,\"item_id\":\"fc_1\",\"output_index\":2,\"arguments\":\"{\\\"city\\\": \\\"Par\\u00eds\\\"}\"}",
    "{\"type\":\"response.output_item.done\",\"sequence_number\":24,\"output_index\":2,\"item\":" FC1_ITEM "}",
    "{\"type\":\"response.function_call_arguments.done\",\"sequence_number\":25,\"item_id\":\"fc_2\",\"output_index\":3,\"arguments\":\"\"}",
    "{\"type\":\"response.output_item.done\",\"sequence_number\":26,\"output_index\":3,\"item\":" FC2_ITEM "}",
    "{\"type\":\"response.completed\",\"sequence_number\":27,\"response\":" RESPONSE("completed", OUTPUT, ",\"usage\":" USAGE) "}",
    NULL};

static const char mixed_summary[] =
    "{\"text\":\"Checking Par\xc3\xads.\",\"reasoning\":\"**Plan** check the weather.\\n\\nThen answer.\","
    "\"signatures\":[\"openai:rs_1:gAAAAABenc_1-xyz==\"],\"tool_calls\":["
    "{\"id\":\"call_a\",\"name\":\"get_weather\",\"args\":{\"city\":\"Par\xc3\xads\"}},"
    "{\"id\":\"call_b\",\"name\":\"noop\",\"args\":{}}],\"stop\":\"tool_use\","
    "\"usage\":{\"in\":20,\"out\":50,\"cache_read\":100,\"reasoning\":20}}";

static const char mixed_log[] =
    "RS(rs_1) RD RE(rs_1,openai:rs_1:gAAAAABenc_1-xyz==) TD TS(call_a,get_weather) TS(call_b,noop) "
    "TE(call_a,{\"city\":\"Par\xc3\xads\"}) TE(call_b,{}) STOP(tool_use)";

/* ---- encode ------------------------------------------------------------------ */

#define WEATHER_SCHEMA "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}"

/* gpt-6.2-sol refuses reasoning_effort "none", so with function tools the
 * default (auto) provider sends it to the Responses API: the golden body. */
static void test_wire_gpt62_tools(void)
{
    char *body = sse(mixed_events);
    fake_server_push_sse(srv, body, 0);
    seam_request *req = seam_request_new();
    seam_request_set_system(req, "You are terse.");
    seam_request_add_user_text(req, "Weather in Paris?");
    seam_message *a = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_reasoning(a, "Need weather.", "openai:rs_prev:gAAAAABprev==", 0);
    /* signed by an older seam, without the item's id: not sent (id is required) */
    seam_message_add_reasoning(a, "older thoughts", "openai:gAAAAABold==", 0);
    seam_message_add_reasoning(a, "another provider's thoughts", "EqQBCkgIAhABGAIiQ", 0);
    seam_message_add_reasoning(a, "unsigned thoughts", NULL, 0);
    seam_message_add_tool_call(a, "call_1", "get_weather", "{\"city\":\"Paris\"}");
    seam_request_add_message(req, a);
    tu_add_tool_result(req, "call_1", "get_weather", "{\"temp\":21}", 0);
    seam_request_add_tool(req, "get_weather", "Weather of a city", WEATHER_SCHEMA);
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_REQUIRED, NULL);
    seam_request_set_temperature(req, 0.25); /* refused by reasoning models: not sent */
    seam_request_set_max_tokens(req, 300);
    seam_request_add_stop(req, "\n\n");      /* no such parameter: not sent */
    seam_request_set_reasoning_budget(req, 100000);
    tu_call r = tu_run_stream(client, "oap", "gpt-6.2-sol", req, TU_SIGNATURES);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(tu_last_path(srv), "/v1/responses");
    TU_ASSERT_HEADERS(srv, { "Authorization", "Bearer " KEY }, { "Accept", "text/event-stream" },
                      { "Content-Type", "application/json" });
    CU_ASSERT_TRUE(tu_last_body_is(srv,
        "{\"model\":\"gpt-6.2-sol\",\"instructions\":\"You are terse.\",\"input\":["
        "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"Weather in Paris?\"}]},"
        "{\"type\":\"reasoning\",\"id\":\"rs_prev\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"Need weather.\"}],"
        "\"encrypted_content\":\"gAAAAABprev==\"},"
        "{\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"},"
        "{\"type\":\"function_call_output\",\"call_id\":\"call_1\",\"output\":\"{\\\"temp\\\":21}\"}],"
        "\"tools\":[{\"type\":\"function\",\"name\":\"get_weather\",\"description\":\"Weather of a city\","
        "\"parameters\":" WEATHER_SCHEMA ",\"strict\":false}],"
        "\"tool_choice\":\"required\",\"max_output_tokens\":300,"
        "\"reasoning\":{\"effort\":\"max\",\"summary\":\"auto\"},"
        "\"include\":[\"reasoning.encrypted_content\"],\"store\":false,\"stream\":true}"));
    /* and the stream decodes */
    CU_ASSERT_STRING_EQUAL(r.summary ? r.summary : "", mixed_summary);
    free(r.summary);
    seam_request_free(req);
    free(body);
}

static const char text_whole[] = RESPONSE("completed",
    "[{\"id\":\"msg_9\",\"type\":\"message\",\"status\":\"completed\",\"role\":\"assistant\",\"content\":"
    "[{\"type\":\"output_text\",\"text\":\"{\\\"summary\\\":\\\"sunny\\\"}\",\"annotations\":[]}]}]",
    ",\"usage\":{\"input_tokens\":10,\"output_tokens\":4}");

/* A conversation with media and structured output, not streamed, on a provider
 * pinned to the Responses API, for a model that is not a reasoning model. */
static void test_wire_conversation(void)
{
    fake_server_push_json(srv, 200, text_whole, NULL);
    seam_request *req = seam_request_new();
    tu_add_turn(req, SEAM_ROLE_USER, TU_PARTS(TU_TEXT("What is in these, and the weather?"),
                                              TU_MEDIA("image/png", SEAM_MEDIA_BASE64, "iVBORw0KGgo="),
                                              TU_MEDIA("image/jpeg", SEAM_MEDIA_URL, "https://example.org/cat.jpg"),
                                              TU_MEDIA("application/pdf", SEAM_MEDIA_BASE64, "JVBERi0=")));
    tu_add_turn(req, SEAM_ROLE_ASSISTANT, TU_PARTS(TU_TEXT("Let me "), TU_TEXT("check."),
                                                   TU_CALL("toolu_01", "get_weather", "{\"city\":\"Paris\"}"),
                                                   TU_CALL("call_2", "get_time", "")));
    tu_add_turn(req, SEAM_ROLE_TOOL, TU_PARTS(TU_RESULT("toolu_01", "get_weather", "{\"temp\":21}", 0),
                                              TU_RESULT("call_2", "get_time", "\"noon\"", 1)));
    seam_request_add_user_text(req, "Thanks. JSON please.");
    seam_request_add_tool(req, "get_weather", "Weather of a city", WEATHER_SCHEMA);
    seam_request_add_tool(req, "get_time", NULL, NULL);
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_NAMED, "get_weather");
    seam_request_set_response_format(req, SEAM_FORMAT_JSON, "weather_report",
                                      "{\"type\":\"object\",\"properties\":{\"summary\":{\"type\":\"string\"}}}", 1);
    seam_request_set_temperature(req, 0.5);
    tu_call r = tu_run_generate(client, "rs", "gpt-4.1", req, TU_SIGNATURES);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.summary ? r.summary : "",
        "{\"text\":\"{\\\"summary\\\":\\\"sunny\\\"}\",\"reasoning\":\"\",\"signatures\":[],\"tool_calls\":[],"
        "\"stop\":\"stop\",\"usage\":{\"in\":10,\"out\":4}}");
    CU_ASSERT_STRING_EQUAL(tu_last_path(srv), "/v1/responses");
    TU_ASSERT_HEADERS(srv, { "Accept", "application/json" }, { "X-Title", "seam-test" });
    CU_ASSERT_TRUE(tu_last_body_is(srv,
        "{\"model\":\"gpt-4.1\",\"input\":["
        "{\"type\":\"message\",\"role\":\"user\",\"content\":["
        "{\"type\":\"input_text\",\"text\":\"What is in these, and the weather?\"},"
        "{\"type\":\"input_image\",\"image_url\":\"data:image/png;base64,iVBORw0KGgo=\",\"detail\":\"auto\"},"
        "{\"type\":\"input_image\",\"image_url\":\"https://example.org/cat.jpg\",\"detail\":\"auto\"},"
        "{\"type\":\"input_file\",\"filename\":\"document.pdf\",\"file_data\":\"data:application/pdf;base64,JVBERi0=\"}]},"
        "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"Let me check.\"},"
        "{\"type\":\"function_call\",\"call_id\":\"toolu_01\",\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"},"
        "{\"type\":\"function_call\",\"call_id\":\"call_2\",\"name\":\"get_time\",\"arguments\":\"{}\"},"
        "{\"type\":\"function_call_output\",\"call_id\":\"toolu_01\",\"output\":\"{\\\"temp\\\":21}\"},"
        "{\"type\":\"function_call_output\",\"call_id\":\"call_2\",\"output\":\"noon\"},"
        "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"Thanks. JSON please.\"}]}],"
        "\"tools\":[{\"type\":\"function\",\"name\":\"get_weather\",\"description\":\"Weather of a city\","
        "\"parameters\":" WEATHER_SCHEMA ",\"strict\":false},"
        "{\"type\":\"function\",\"name\":\"get_time\",\"parameters\":{\"type\":\"object\",\"properties\":{}},\"strict\":false}],"
        "\"tool_choice\":{\"type\":\"function\",\"name\":\"get_weather\"},"
        "\"text\":{\"format\":{\"type\":\"json_schema\",\"name\":\"weather_report\","
        "\"schema\":{\"type\":\"object\",\"properties\":{\"summary\":{\"type\":\"string\"}}},\"strict\":true}},"
        "\"temperature\":0.5,\"store\":false}"));
    free(r.summary);
    seam_request_free(req);

    /* media the Responses API cannot take as given is refused before sending */
    static const struct {
        const char *mime;
        seam_media_source src;
    } refused[] = {{"audio/wav", SEAM_MEDIA_BASE64}, {"application/pdf", SEAM_MEDIA_URL},
                   {"video/mp4", SEAM_MEDIA_URL}};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        req = seam_request_new();
        tu_add_turn(req, SEAM_ROLE_USER, TU_PARTS(TU_MEDIA(refused[i].mime, refused[i].src, "AAAA")));
        size_t before = fake_server_request_count(srv);
        r = tu_run_stream(client, "rs", "gpt-4.1", req, TU_SIGNATURES);
        CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
        CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_BAD_REQUEST);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, refused[i].mime));
        CU_ASSERT_EQUAL(fake_server_request_count(srv), before);
        free(r.summary);
        seam_request_free(req);
    }
}

/* reasoning, include and sampling per model and option. */
static void test_wire_options(void)
{
    static const struct {
        const char *provider, *model;
        int64_t budget;
        int json_any;    /* a JSON response with no schema */
        const char *want; /* the body's keys other than model, input and stream */
    } cases[] = {
        /* a reasoning model, no budget: the summary, the encrypted content */
        {"rs", "gpt-6-luna", 0, 0,
         "{\"reasoning\":{\"summary\":\"auto\"},\"include\":[\"reasoning.encrypted_content\"],\"store\":false}"},
        /* options.reasoning_summary = "none" */
        {"rsq", "gpt-6-luna", 2000, 0,
         "{\"reasoning\":{\"effort\":\"low\"},\"include\":[\"reasoning.encrypted_content\"],\"store\":false}"},
        {"rsq", "gpt-6-luna", 0, 0, "{\"include\":[\"reasoning.encrypted_content\"],\"store\":false}"},
        /* gpt-5 has no xhigh or max: the budget's level stops at high */
        {"rs", "gpt-5-mini", 500000, 0,
         "{\"reasoning\":{\"effort\":\"high\",\"summary\":\"auto\"},\"include\":[\"reasoning.encrypted_content\"],\"store\":false}"},
        {"rs", "gpt-5.4", 500000, 0,
         "{\"reasoning\":{\"effort\":\"xhigh\",\"summary\":\"auto\"},\"include\":[\"reasoning.encrypted_content\"],\"store\":false}"},
        /* a gpt-5.x chat model: no reasoning settings, no temperature */
        {"rs", "gpt-5.1-chat-latest", 5000, 0, "{\"store\":false}"},
        /* not a reasoning model: temperature, no reasoning; JSON mode */
        {"rs", "gpt-4o", 5000, 1,
         "{\"text\":{\"format\":{\"type\":\"json_object\"}},\"temperature\":0.5,\"store\":false}"},
        /* another profile's server: effort from the budget on three levels */
        {"vr", "Qwen/Qwen3-8B", 20000, 0,
         "{\"temperature\":0.5,\"reasoning\":{\"effort\":\"high\"},\"store\":false}"},
        {"vr", "Qwen/Qwen3-8B", 0, 0, "{\"temperature\":0.5,\"store\":false}"},
    };
    char *body = sse(mixed_events);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake_server_push_sse(srv, body, 0);
        seam_request *req = tu_user_request("x");
        seam_request_set_temperature(req, 0.5);
        seam_request_set_reasoning_budget(req, cases[i].budget);
        if (cases[i].json_any)
            seam_request_set_response_format(req, SEAM_FORMAT_JSON, NULL, "{\"type\":\"object\"}", 0);
        tu_call r = tu_run_stream(client, cases[i].provider, cases[i].model, req, TU_SIGNATURES);
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        CU_ASSERT_STRING_EQUAL(tu_last_path(srv), "/v1/responses");
        json_object *got = tu_last_body(srv);
        json_object_object_del(got, "model");
        json_object_object_del(got, "input");
        json_object_object_del(got, "stream");
        json_object *want = json_tokener_parse(cases[i].want);
        CU_ASSERT_PTR_NOT_NULL_FATAL(want);
        if (!json_object_equal(want, got))
            fprintf(stderr, "\n%s %s: expected %s\n got %s\n", cases[i].provider, cases[i].model,
                    cases[i].want, json_object_to_json_string(got));
        CU_ASSERT_TRUE(json_object_equal(want, got));
        json_object_put(want);
        json_object_put(got);
        free(r.summary);
        seam_request_free(req);
    }
    /* the request's provider options go over the body; a null removes a field */
    fake_server_push_sse(srv, body, 0);
    seam_request *req = tu_user_request("x");
    seam_request_set_provider_options(req, "{\"store\":null,\"service_tier\":\"flex\",\"api\":\"chat\"}");
    tu_call r = tu_run_stream(client, "rs", "gpt-6-luna", req, TU_SIGNATURES);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(tu_last_path(srv), "/v1/responses"); /* the plugin's keys: conf only */
    json_object *b = tu_last_body(srv);
    CU_ASSERT_FALSE(tu_json_has(b, "store"));
    CU_ASSERT_FALSE(tu_json_has(b, "api"));
    CU_ASSERT_STRING_EQUAL(tu_json_str(b, "service_tier"), "flex");
    json_object_put(b);
    free(r.summary);
    seam_request_free(req);
    free(body);
}

/* ---- decode ------------------------------------------------------------------- */

static void test_decode_split_everywhere(void)
{
    char *body = sse(mixed_events);
    seam_request *req = tu_user_request("weather?");
    size_t splits[] = {1, 2, 3, 7, 13, 64, 0};
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
        fake_response fr = {.body = body, .split = splits[i], .chunked = (int)(i % 2)};
        fake_server_push(srv, &fr);
        tu_call r = tu_run_stream(client, "rs", "gpt-6.2-sol", req, TU_SIGNATURES);
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r.summary);
        if (strcmp(r.summary, mixed_summary) != 0 || strcmp(r.log, mixed_log) != 0)
            fprintf(stderr, "\nsplit %zu: %s\n  log %s\n", splits[i], r.summary, r.log);
        CU_ASSERT_STRING_EQUAL(r.summary, mixed_summary);
        CU_ASSERT_STRING_EQUAL(r.log, mixed_log);
        free(r.summary);
    }
    seam_request_free(req);
    free(body);
}

/* The same answer as a whole Response object gives the same result; so does a
 * stream that brings the items only whole (.done events, or only the terminal
 * event's output). */
static void test_whole_equals_stream(void)
{
    seam_request *req = tu_user_request("weather?");
    fake_server_push_json(srv, 200, RESPONSE("completed", OUTPUT, ",\"usage\":" USAGE), NULL);
    tu_call r = tu_run_generate(client, "rs", "gpt-6.2-sol", req, TU_SIGNATURES);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.summary ? r.summary : "", mixed_summary);
    free(r.summary);

    static const char *const done_only[] = {
        "{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":" RS_ITEM "}",
        "{\"type\":\"response.output_item.done\",\"output_index\":1,\"item\":" MSG_ITEM "}",
        "{\"type\":\"response.output_item.done\",\"output_index\":2,\"item\":" FC1_ITEM "}",
        "{\"type\":\"response.output_item.done\",\"output_index\":3,\"item\":" FC2_ITEM "}",
        "{\"type\":\"response.completed\",\"response\":" RESPONSE("completed", OUTPUT, ",\"usage\":" USAGE) "}",
        NULL};
    static const char *const terminal_only[] = {
        "{\"type\":\"response.completed\",\"response\":" RESPONSE("completed", OUTPUT, ",\"usage\":" USAGE) "}",
        NULL};
    const char *const *variants[] = {done_only, terminal_only};
    for (size_t i = 0; i < 2; i++) {
        char *body = sse(variants[i]);
        fake_server_push_sse(srv, body, 1);
        r = tu_run_stream(client, "rs", "gpt-6.2-sol", req, TU_SIGNATURES);
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        CU_ASSERT_STRING_EQUAL(r.summary ? r.summary : "", mixed_summary);
        free(r.summary);
        free(body);
    }
    seam_request_free(req);
}

/* The answer's reasoning goes back on the next turn as a reasoning item with
 * its id (the spec's ReasoningItem requires one) and its encrypted content;
 * the calls as function_call items with their call_id. */
static void test_reasoning_replayed(void)
{
    char *body = sse(mixed_events);
    fake_server_push_sse(srv, body, 0);
    seam_request *req = tu_user_request("Weather in Paris?");
    seam_request_add_tool(req, "get_weather", NULL, WEATHER_SCHEMA);
    seam_request_add_tool(req, "noop", NULL, NULL);
    tu_call r = tu_run_stream(client, "oap", "gpt-6.1-sol", req, TU_SIGNATURES | TU_KEEP_MESSAGE);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.message);
    CU_ASSERT_STRING_EQUAL(tu_last_path(srv), "/v1/responses");
    seam_request_add_message(req, r.message);
    tu_add_turn(req, SEAM_ROLE_TOOL, TU_PARTS(TU_RESULT("call_a", "get_weather", "{\"temp\":21}", 0),
                                              TU_RESULT("call_b", "noop", "null", 0)));
    free(r.summary);

    fake_server_push_json(srv, 200, text_whole, NULL);
    r = tu_run_generate(client, "oap", "gpt-6.1-sol", req, TU_SIGNATURES);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    json_object *b = tu_last_body(srv);
    CU_ASSERT_TRUE(tu_json_equal(tu_json_at(b, "input"),
        "[{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"Weather in Paris?\"}]},"
        "{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"**Plan** check the weather.\\n\\nThen answer.\"}],"
        "\"encrypted_content\":\"gAAAAABenc_1-xyz==\"},"
        "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"Checking Par\\u00eds.\"},"
        "{\"type\":\"function_call\",\"call_id\":\"call_a\",\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Par\\u00eds\\\"}\"},"
        "{\"type\":\"function_call\",\"call_id\":\"call_b\",\"name\":\"noop\",\"arguments\":\"{}\"},"
        "{\"type\":\"function_call_output\",\"call_id\":\"call_a\",\"output\":\"{\\\"temp\\\":21}\"},"
        "{\"type\":\"function_call_output\",\"call_id\":\"call_b\",\"output\":\"null\"}]"));
    json_object_put(b);
    free(r.summary);

    /* the same conversation to Chat Completions (gpt-6-luna) carries no reasoning */
    fake_server_push_json(srv, 200,
        "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
        "\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}", NULL);
    r = tu_run_generate(client, "oap", "gpt-6-luna", req, TU_SIGNATURES);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(tu_last_path(srv), "/v1/chat/completions");
    CU_ASSERT_PTR_NULL(strstr(fake_server_request_body(srv, fake_server_request_count(srv) - 1), "gAAAA"));
    free(r.summary);
    seam_request_free(req);
    free(body);
}

typedef struct variant {
    const char *what;
    const char *events[10];
    const char *expect;
} variant;

#define MSG_ADDED(i) \
    "{\"type\":\"response.output_item.added\",\"output_index\":" #i ",\"item\":{\"id\":\"msg_" #i "\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}"
#define TEXT_DELTA(i, t) \
    "{\"type\":\"response.output_text.delta\",\"item_id\":\"msg_" #i "\",\"output_index\":" #i ",\"content_index\":0,\"delta\":\"" t "\"}"
#define MSG_DONE(i, t) \
    "{\"type\":\"response.output_item.done\",\"output_index\":" #i ",\"item\":{\"id\":\"msg_" #i "\",\"type\":\"message\",\"role\":\"assistant\"," \
    "\"content\":[{\"type\":\"output_text\",\"text\":\"" t "\",\"annotations\":[]}]}}"
#define MSG_WHOLE(i, t) \
    "{\"id\":\"msg_" #i "\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"" t "\",\"annotations\":[]}]}"

static void test_decode_variants(void)
{
    static const variant variants[] = {
        {"incomplete: the output limit",
         {MSG_ADDED(0), TEXT_DELTA(0, "Once upon"),
          "{\"type\":\"response.incomplete\",\"response\":" RESPONSE("incomplete", "[" MSG_WHOLE(0, "Once upon") "]",
          ",\"incomplete_details\":{\"reason\":\"max_output_tokens\"},\"usage\":{\"input_tokens\":5,\"output_tokens\":16}") "}",
          NULL},
         "{\"text\":\"Once upon\",\"reasoning\":\"\",\"signatures\":[],\"tool_calls\":[],\"stop\":\"length\",\"usage\":{\"in\":5,\"out\":16}}"},
        {"incomplete: the content filter, a call cut short",
         {"{\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_x\",\"name\":\"f\",\"arguments\":\"\"}}",
          "{\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"output_index\":0,\"delta\":\"{\\\"a\\\":1}\"}",
          "{\"type\":\"response.incomplete\",\"response\":" RESPONSE("incomplete", "[]",
          ",\"incomplete_details\":{\"reason\":\"content_filter\"}") "}",
          NULL},
         "{\"text\":\"\",\"reasoning\":\"\",\"signatures\":[],\"tool_calls\":[{\"id\":\"call_x\",\"name\":\"f\",\"args\":{\"a\":1}}],"
         "\"stop\":\"content_filter\",\"usage\":{}}"},
        {"a refusal",
         {MSG_ADDED(0),
          "{\"type\":\"response.refusal.delta\",\"item_id\":\"msg_0\",\"output_index\":0,\"content_index\":0,\"delta\":\"I can't \"}",
          "{\"type\":\"response.refusal.delta\",\"item_id\":\"msg_0\",\"output_index\":0,\"content_index\":0,\"delta\":\"help.\"}",
          "{\"type\":\"response.refusal.done\",\"item_id\":\"msg_0\",\"output_index\":0,\"content_index\":0,\"refusal\":\"I can't help.\"}",
          "{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"id\":\"msg_0\",\"type\":\"message\",\"role\":\"assistant\","
          "\"content\":[{\"type\":\"refusal\",\"refusal\":\"I can't help.\"}]}}",
          "{\"type\":\"response.completed\",\"response\":" RESPONSE("completed",
          "[{\"id\":\"msg_0\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"refusal\",\"refusal\":\"I can't help.\"}]}]", "") "}",
          NULL},
         "{\"text\":\"I can't help.\",\"reasoning\":\"\",\"signatures\":[],\"tool_calls\":[],\"stop\":\"content_filter\",\"usage\":{}}"},
        {"raw reasoning text (other servers), no encrypted content; noise ignored; a trailing [DONE]",
         {"{\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"rs_0\",\"type\":\"reasoning\",\"summary\":[]}}",
          "{\"type\":\"response.reasoning_text.delta\",\"item_id\":\"rs_0\",\"output_index\":0,\"content_index\":0,\"delta\":\"hmm, \"}",
          "{\"type\":\"response.reasoning_text.delta\",\"item_id\":\"rs_0\",\"output_index\":0,\"content_index\":0,\"delta\":\"ok\"}",
          "{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"id\":\"rs_0\",\"type\":\"reasoning\",\"summary\":[],"
          "\"content\":[{\"type\":\"reasoning_text\",\"text\":\"hmm, ok\"}]}}",
          "{\"type\":\"response.output_item.added\",\"output_index\":1,\"item\":{\"id\":\"ws_1\",\"type\":\"web_search_call\",\"status\":\"in_progress\"}}",
          "{\"type\":\"response.web_search_call.searching\",\"output_index\":1,\"item_id\":\"ws_1\"}",
          MSG_ADDED(2), TEXT_DELTA(2, "Done."),
          "{\"type\":\"response.completed\",\"response\":" RESPONSE("completed", "[]", ",\"usage\":{\"input_tokens\":3,\"output_tokens\":2}") "}",
          "[DONE]"},
         "{\"text\":\"Done.\",\"reasoning\":\"hmm, ok\",\"signatures\":[],\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{\"in\":3,\"out\":2}}"},
        {"text without its item's .added, then the item whole: not twice",
         {TEXT_DELTA(0, "Hi "), TEXT_DELTA(0, "there"),
          "{\"type\":\"response.output_text.done\",\"item_id\":\"msg_0\",\"output_index\":0,\"content_index\":0,\"text\":\"Hi there\"}",
          MSG_DONE(0, "Hi there"),
          "{\"type\":\"response.completed\",\"response\":" RESPONSE("completed", "[" MSG_WHOLE(0, "Hi there") "]", "") "}",
          NULL},
         "{\"text\":\"Hi there\",\"reasoning\":\"\",\"signatures\":[],\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{}}"},
        {"reasoning without a summary (none asked, or none given): the signature alone",
         {"{\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"rs_7\",\"type\":\"reasoning\",\"summary\":[]}}",
          "{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"id\":\"rs_7\",\"type\":\"reasoning\",\"summary\":[],\"encrypted_content\":\"gAAAAB7\"}}",
          MSG_ADDED(1), TEXT_DELTA(1, "4"), MSG_DONE(1, "4"),
          "{\"type\":\"response.completed\",\"response\":" RESPONSE("completed", "[]",
          ",\"usage\":{\"input_tokens\":9,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":70,\"output_tokens_details\":{\"reasoning_tokens\":64}}") "}",
          NULL},
         "{\"text\":\"4\",\"reasoning\":\"\",\"signatures\":[\"openai:rs_7:gAAAAB7\"],\"tool_calls\":[],\"stop\":\"stop\","
         "\"usage\":{\"in\":9,\"out\":70,\"cache_read\":0,\"reasoning\":64}}"},
        {"a reasoning item without an id: its signature has none, so it is not replayed",
         {"{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"reasoning\",\"summary\":[],\"encrypted_content\":\"gAAAAB8\"}}",
          MSG_ADDED(1), TEXT_DELTA(1, "5"), MSG_DONE(1, "5"),
          "{\"type\":\"response.completed\",\"response\":" RESPONSE("completed", "[]", "") "}",
          NULL},
         "{\"text\":\"5\",\"reasoning\":\"\",\"signatures\":[\"openai:gAAAAB8\"],\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{}}"},
        {"a summary part whose deltas never came; a call whose name came only whole",
         {"{\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"rs_0\",\"type\":\"reasoning\",\"summary\":[]}}",
          "{\"type\":\"response.reasoning_summary_text.delta\",\"item_id\":\"rs_0\",\"output_index\":0,\"summary_index\":0,\"delta\":\"A\"}",
          "{\"type\":\"response.reasoning_summary_text.done\",\"item_id\":\"rs_0\",\"output_index\":0,\"summary_index\":1,\"text\":\"B\"}",
          "{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"id\":\"rs_0\",\"type\":\"reasoning\",\"summary\":[],\"encrypted_content\":\"e\"}}",
          "{\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"output_index\":1,\"delta\":\"{}\"}",
          "{\"type\":\"response.output_item.done\",\"output_index\":1,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"g\",\"arguments\":\"{}\"}}",
          "{\"type\":\"response.completed\",\"response\":" RESPONSE("completed", "[]", "") "}",
          NULL},
         "{\"text\":\"\",\"reasoning\":\"A\\n\\nB\",\"signatures\":[\"openai:rs_0:e\"],\"tool_calls\":[{\"id\":\"c1\",\"name\":\"g\",\"args\":{}}],"
         "\"stop\":\"tool_use\",\"usage\":{}}"},
    };
    seam_request *req = tu_user_request("x");
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        char *body = sse(variants[i].events);
        for (size_t split = 0; split <= 1; split++) {
            fake_server_push_sse(srv, body, split);
            tu_call r = tu_run_stream(client, "rs", "gpt-6-luna", req, TU_SIGNATURES);
            CU_ASSERT_EQUAL(r.status, SEAM_OK);
            CU_ASSERT(tu_summary_is(&r, variants[i].expect, variants[i].what));
            free(r.summary);
        }
        free(body);
    }
    /* whole bodies: incomplete and failed */
    fake_server_push_json(srv, 200, RESPONSE("incomplete", "[" MSG_WHOLE(0, "Once upon") "]",
                          ",\"incomplete_details\":{\"reason\":\"max_output_tokens\"}"), NULL);
    tu_call r = tu_run_generate(client, "rs", "gpt-6-luna", req, TU_SIGNATURES);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(r.summary ? r.summary : "",
        "{\"text\":\"Once upon\",\"reasoning\":\"\",\"signatures\":[],\"tool_calls\":[],\"stop\":\"length\",\"usage\":{}}");
    free(r.summary);
    seam_request_free(req);
}

static void test_errors(void)
{
    static const struct {
        const char *what;
        const char *events[4];
        seam_error_kind kind;
        int retryable;
        const char *code, *message;
        int incomplete; /* some content came before */
    } cases[] = {
        {"error event",
         {"{\"type\":\"error\",\"sequence_number\":1,\"code\":\"rate_limit_exceeded\",\"message\":\"Rate limit reached for gpt-6-luna\",\"param\":null}", NULL},
         SEAM_ERROR_RATE_LIMIT, 1, "rate_limit_exceeded", "Rate limit reached", 0},
        {"error event, nested error object",
         {MSG_ADDED(0), TEXT_DELTA(0, "Hel"),
          "{\"type\":\"error\",\"error\":{\"type\":\"server_error\",\"code\":\"server_error\",\"message\":\"The server had an error\",\"param\":null}}", NULL},
         SEAM_ERROR_OVERLOADED, 1, "server_error", "The server had an error", 1},
        {"response.failed after text",
         {MSG_ADDED(0), TEXT_DELTA(0, "Hel"),
          "{\"type\":\"response.failed\",\"response\":" RESPONSE("failed", "[]", "") "}", NULL},
         SEAM_ERROR_OVERLOADED, 1, "", "the response failed", 1},
        {"response.failed, server error",
         {"{\"type\":\"response.failed\",\"response\":{\"id\":\"r\",\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"The model failed to generate\"},\"output\":[]}}", NULL},
         SEAM_ERROR_OVERLOADED, 1, "server_error", "failed to generate", 0},
        {"response.failed, flagged prompt",
         {"{\"type\":\"response.failed\",\"response\":{\"id\":\"r\",\"status\":\"failed\",\"error\":{\"code\":\"invalid_prompt\",\"message\":\"Invalid prompt: flagged as potentially violating our usage policy\"},\"output\":[]}}", NULL},
         SEAM_ERROR_CONTENT_FILTER, 0, "invalid_prompt", "usage policy", 0},
        {"response.failed, context",
         {"{\"type\":\"response.failed\",\"response\":{\"id\":\"r\",\"status\":\"failed\",\"error\":{\"code\":\"context_length_exceeded\",\"message\":\"Your input exceeds the context window of this model\"},\"output\":[]}}", NULL},
         SEAM_ERROR_CONTEXT_OVERFLOW, 0, "context_length_exceeded", "context window", 0},
    };
    seam_request *req = tu_user_request("x");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *body = sse(cases[i].events);
        fake_server_push_sse(srv, body, i % 2);
        tu_call r = tu_run_stream(client, "rs", "gpt-6-luna", req, TU_SIGNATURES);
        if (r.status != SEAM_ERR_PROVIDER || r.err.kind != cases[i].kind || strcmp(r.err.code, cases[i].code) != 0 ||
            !strstr(r.err.message, cases[i].message))
            fprintf(stderr, "\n%s: status %d kind %s code \"%s\" message \"%s\"\n", cases[i].what, r.status,
                    seam_error_kind_name(r.err.kind), r.err.code, r.err.message);
        CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
        CU_ASSERT_EQUAL(r.err.kind, cases[i].kind);
        CU_ASSERT_EQUAL(r.err.retryable, cases[i].retryable);
        CU_ASSERT_STRING_EQUAL(r.err.code, cases[i].code);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, cases[i].message));
        CU_ASSERT_STRING_EQUAL(r.err.provider, "rs");
        CU_ASSERT_EQUAL(r.incomplete, cases[i].incomplete);
        if (cases[i].incomplete) {
            CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"text\":\"Hel\""));
            CU_ASSERT_PTR_NOT_NULL(strstr(r.summary, "\"stop\":\"error\""));
        }
        free(r.summary);
        free(body);
    }

    /* cut before a terminal event: incomplete, a transport error */
    static const char *const cut[] = {MSG_ADDED(0), TEXT_DELTA(0, "partial"), NULL};
    char *body = sse(cut);
    fake_server_push_sse(srv, body, 0);
    tu_call r = tu_run_stream(client, "rs", "gpt-6-luna", req, TU_SIGNATURES);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_TRANSPORT);
    CU_ASSERT_TRUE(r.incomplete);
    free(r.summary);
    free(body);

    /* garbage */
    fake_server_push_sse(srv, "data: {nope\n\n", 0);
    r = tu_run_stream(client, "rs", "gpt-6-luna", req, TU_SIGNATURES);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "malformed"));
    free(r.summary);

    /* HTTP errors from /responses: the chat table */
    static const tu_http_error http[] = {
        {400, "{\"error\":{\"message\":\"Your input exceeds the context window of this model.\",\"type\":\"invalid_request_error\",\"param\":\"input\",\"code\":\"context_length_exceeded\"}}",
         NULL, SEAM_ERROR_CONTEXT_OVERFLOW, 0, "context_length_exceeded", NULL},
        {400, "{\"error\":{\"message\":\"Unsupported value: 'reasoning.effort' does not support 'none' with this model.\",\"type\":\"invalid_request_error\",\"param\":\"reasoning.effort\",\"code\":\"unsupported_value\"}}",
         NULL, SEAM_ERROR_BAD_REQUEST, 0, "unsupported_value", NULL},
        {401, "{\"error\":{\"message\":\"Incorrect API key provided: sk-test-**456.\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}",
         NULL, SEAM_ERROR_AUTH, 0, "invalid_api_key", NULL},
        {429, "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}",
         "Retry-After: 3\r\n", SEAM_ERROR_RATE_LIMIT, 1, "rate_limit_exceeded", NULL},
        {500, "{\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}",
         NULL, SEAM_ERROR_OVERLOADED, 1, "server_error", NULL},
    };
    for (size_t i = 0; i < sizeof http / sizeof http[0]; i++) {
        tu_push_http_error(srv, &http[i]);
        r = tu_run_stream(client, "rs", "gpt-6-luna", req, TU_SIGNATURES);
        CU_ASSERT_STRING_EQUAL(tu_last_path(srv), "/v1/responses");
        CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
        tu_error_is(&r.err, &http[i], "sk-test");
        if (http[i].headers)
            CU_ASSERT_EQUAL(r.err.retry_after_ms, 3000);
        free(r.summary);
    }

    /* whole bodies: a failed response, an error object */
    fake_server_push_json(srv, 200, "{\"id\":\"r\",\"object\":\"response\",\"status\":\"failed\",\"error\":"
                                    "{\"code\":\"rate_limit_exceeded\",\"message\":\"slow down\"},\"output\":[]}", NULL);
    r = tu_run_generate(client, "rs", "gpt-6-luna", req, TU_SIGNATURES);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_RATE_LIMIT);
    free(r.summary);
    fake_server_push_json(srv, 200, "{\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}", NULL);
    r = tu_run_generate(client, "rs", "gpt-6-luna", req, TU_SIGNATURES);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_OVERLOADED);
    free(r.summary);
    fake_server_push_json(srv, 200, "{\"id\":\"r\",\"object\":\"response\"}", NULL);
    r = tu_run_generate(client, "rs", "gpt-6-luna", req, TU_SIGNATURES);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "malformed"));
    free(r.summary);
    seam_request_free(req);
}

static const tu_test tests[] = {
    { "wire: gpt-6.2-sol with tools goes to /responses", test_wire_gpt62_tools },
    { "wire: conversation, media, structured output", test_wire_conversation },
    { "wire: reasoning, include and sampling per model", test_wire_options },
    { "decode: split at every byte", test_decode_split_everywhere },
    { "decode: whole equals stream", test_whole_equals_stream },
    { "decode: reasoning replayed on the next turn", test_reasoning_replayed },
    { "decode: variants", test_decode_variants },
    { "errors: in-stream, HTTP, whole bodies", test_errors },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("openai responses", tests, start);
}
