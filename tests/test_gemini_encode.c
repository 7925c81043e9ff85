/* test_gemini_encode.c — the Gemini plugin's encode (plugins/gemini/encode.c,
 * schema.c) through the real loader and the fake server: the wire it sends
 * (path, headers, body, the reshaped JSON Schemas), the requests it refuses,
 * the synthesized tool-call ids over a two-step tool conversation, and thought
 * signatures replayed. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include "tu_gemini.h"
#include <seam/seam.h>

/* A call whole, its answer body (a 200). */
static outcome answered(const seam_request *req, const char *body)
{
    fake_server_push_json(server, 200, body, NULL);
    return run(req, 0);
}

/* Every keyword anywhere in a Gemini schema tree must be one Gemini accepts. */
static int schema_is_gemini_subset(json_object *s, char *why, size_t why_size)
{
    static const char *const allowed[] = {
        "type",     "format",    "title",     "description",   "nullable", "enum",
        "properties", "required", "propertyOrdering", "minProperties", "maxProperties",
        "items",    "minItems",  "maxItems",  "minLength",     "maxLength", "pattern",
        "minimum",  "maximum",   "anyOf",     "default",
    };
    static const char *const types[] = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"};
    if (!keywords_allowed(s, allowed, sizeof allowed / sizeof allowed[0], why, why_size))
        return 0;
    json_object_object_foreach(s, key, val)
    {
        if (strcmp(key, "type") == 0) {
            int known = 0;
            for (size_t i = 0; i < 6; i++)
                known |= json_object_is_type(val, json_type_string) &&
                         strcmp(json_object_get_string(val), types[i]) == 0;
            if (!known) {
                snprintf(why, why_size, "type %s", json_object_to_json_string(val));
                return 0;
            }
        }
        if (strcmp(key, "enum") == 0)
            for (size_t i = 0; i < json_object_array_length(val); i++)
                if (!json_object_is_type(json_object_array_get_idx(val, i), json_type_string)) {
                    snprintf(why, why_size, "a non-string enum value");
                    return 0;
                }
        if (strcmp(key, "properties") == 0) {
            if (json_object_object_length(val) == 0) {
                snprintf(why, why_size, "empty properties");
                return 0;
            }
            json_object_object_foreach(val, pname, sub)
            {
                (void)pname;
                if (!schema_is_gemini_subset(sub, why, why_size))
                    return 0;
            }
        }
        if (strcmp(key, "items") == 0 && !schema_is_gemini_subset(val, why, why_size))
            return 0;
        if (strcmp(key, "anyOf") == 0)
            for (size_t i = 0; i < json_object_array_length(val); i++)
                if (!schema_is_gemini_subset(json_object_array_get_idx(val, i), why, why_size))
                    return 0;
    }
    const char *t = NULL;
    json_object *tv;
    if (json_object_object_get_ex(s, "type", &tv))
        t = json_object_get_string(tv);
    if (t && strcmp(t, "ARRAY") == 0 && !json_object_object_get_ex(s, "items", NULL)) {
        snprintf(why, why_size, "an ARRAY without items");
        return 0;
    }
    if ((!t || strcmp(t, "OBJECT") != 0) &&
        (json_object_object_get_ex(s, "properties", NULL) || json_object_object_get_ex(s, "required", NULL))) {
        snprintf(why, why_size, "properties on a non-OBJECT");
        return 0;
    }
    return 1;
}

/* ---- tests: encode ---------------------------------------------------------------------- */

static void test_encode_conversation(void)
{
    seam_request *req = seam_request_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(req);
    seam_request_set_system(req, "You are terse.");
    tu_add_turn(req, SEAM_ROLE_USER, TU_PARTS(TU_TEXT("What is in these?"),
                                              TU_MEDIA("image/png", SEAM_MEDIA_BASE64, "iVBORw0KGgo="),
                                              TU_MEDIA("application/pdf", SEAM_MEDIA_URL,
                                                       "https://generativelanguage.googleapis.com/v1beta/files/abc"),
                                              TU_TEXT("")));
    seam_message *a = seam_message_new(SEAM_ROLE_ASSISTANT);
    /* A reasoning part of another provider (no signature) is not replayed. */
    seam_message_add_reasoning(a, "thinking elsewhere", NULL, 0);
    seam_message_add_text(a, "A cat and a report.");
    CU_ASSERT_EQUAL(seam_request_add_message(req, a), SEAM_OK);
    seam_request_add_user_text(req, "Thanks.");
    seam_request_add_user_text(req, "Summarize.");
    seam_request_set_temperature(req, 0.7);
    seam_request_set_max_tokens(req, 256);
    seam_request_add_stop(req, "END");
    seam_request_add_stop(req, "STOP HERE");

    outcome o = answered(req,
            "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Done.\"}],"
            "\"role\":\"model\"},\"finishReason\":\"STOP\"}]}");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_message_text(o.msg), "Done.");
    json_object *body = sent_body();
    CHECK_JSON(body,
               "{\"systemInstruction\":{\"parts\":[{\"text\":\"You are terse.\"}]},"
               "\"contents\":["
               "{\"role\":\"user\",\"parts\":[{\"text\":\"What is in these?\"},"
               "{\"inlineData\":{\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgo=\"}},"
               "{\"fileData\":{\"mimeType\":\"application/pdf\",\"fileUri\":"
               "\"https://generativelanguage.googleapis.com/v1beta/files/abc\"}}]},"
               "{\"role\":\"model\",\"parts\":[{\"text\":\"A cat and a report.\"}]},"
               "{\"role\":\"user\",\"parts\":[{\"text\":\"Thanks.\"},{\"text\":\"Summarize.\"}]}],"
               "\"generationConfig\":{\"temperature\":0.7,\"maxOutputTokens\":256,"
               "\"stopSequences\":[\"END\",\"STOP HERE\"]}}");
    json_object_put(body);
    outcome_free(&o);
    seam_request_free(req);
}

static const char WEATHER_SCHEMA_GEMINI[] =
    "{\"type\":\"OBJECT\",\"properties\":{"
    "\"place\":{\"type\":\"OBJECT\",\"description\":\"Where\",\"properties\":{"
    "   \"city\":{\"type\":\"STRING\",\"minLength\":1},\"country\":{\"type\":\"STRING\"}},"
    "   \"required\":[\"city\"]},"
    "\"unit\":{\"type\":\"STRING\",\"description\":\"Temperature unit\",\"enum\":[\"celsius\",\"fahrenheit\"]},"
    "\"kind\":{\"type\":\"STRING\",\"enum\":[\"forecast\"]},"
    "\"days\":{\"type\":\"INTEGER\",\"nullable\":true,\"minimum\":1,\"maximum\":14},"
    "\"when\":{\"type\":\"STRING\",\"format\":\"date-time\"},"
    "\"email\":{\"type\":\"STRING\"},"
    "\"tags\":{\"type\":\"ARRAY\",\"items\":{\"type\":\"STRING\"},\"maxItems\":5},"
    "\"extra\":{\"type\":\"OBJECT\"},"
    "\"raw\":{\"type\":\"ARRAY\",\"items\":{}},"
    "\"note\":{\"type\":\"STRING\",\"description\":\"Optional note\",\"nullable\":true},"
    "\"level\":{\"type\":\"INTEGER\",\"format\":\"enum\",\"enum\":[\"1\",\"2\",\"3\"]},"
    "\"node\":{\"type\":\"OBJECT\",\"properties\":{\"value\":{\"type\":\"STRING\"},\"next\":{}}},"
    "\"either\":{\"anyOf\":[{\"type\":\"STRING\"},{\"type\":\"ARRAY\",\"items\":{\"type\":\"NUMBER\"}}]},"
    "\"both\":{\"type\":\"OBJECT\",\"properties\":{\"a\":{\"type\":\"BOOLEAN\"},"
    "   \"b\":{\"type\":\"NUMBER\",\"format\":\"double\"}},\"required\":[\"a\"]}"
    "},\"required\":[\"place\",\"unit\"]}";

static void test_encode_tools_and_schema_reshape(void)
{
    seam_request *req = user_request("Weather in Paris?");
    CU_ASSERT_EQUAL(seam_request_add_tool(req, "get_weather", "Forecast for a place", WEATHER_SCHEMA),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_tool(req, "ping", "No arguments", NULL), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_tool(req, "noop", "",
                                          "{\"type\":\"object\",\"properties\":{},"
                                          "\"additionalProperties\":false}"),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_NAMED, "get_weather"), SEAM_OK);

    outcome o = answered(req,
            "{\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":"
            "\"get_weather\",\"args\":{\"place\":{\"city\":\"Paris\"},\"unit\":\"celsius\"}}}],"
            "\"role\":\"model\"},\"finishReason\":\"STOP\"}]}");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_TOOL_USE);
    const seam_part *call = nth_part(o.msg, SEAM_PART_TOOL_CALL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(call);
    CU_ASSERT_STRING_EQUAL(seam_part_tool_name(call), "get_weather");
    CU_ASSERT_TRUE(tu_json_text_equal(seam_part_args_json(call),
                                   "{\"place\":{\"city\":\"Paris\"},\"unit\":\"celsius\"}"));

    json_object *body = sent_body();
    CHECK_JSON(tu_json_at(body, "tools.0.functionDeclarations.0.parameters"), WEATHER_SCHEMA_GEMINI);
    CU_ASSERT_STRING_EQUAL(tu_json_str(body, "tools.0.functionDeclarations.0.name"), "get_weather");
    CU_ASSERT_STRING_EQUAL(tu_json_str(body, "tools.0.functionDeclarations.0.description"),
                           "Forecast for a place");
    /* Functions without arguments are declared without parameters. */
    CHECK_JSON(tu_json_at(body, "tools.0.functionDeclarations.1"),
               "{\"name\":\"ping\",\"description\":\"No arguments\"}");
    CHECK_JSON(tu_json_at(body, "tools.0.functionDeclarations.2"), "{\"name\":\"noop\"}");
    CHECK_JSON(tu_json_at(body, "toolConfig"),
               "{\"functionCallingConfig\":{\"mode\":\"ANY\",\"allowedFunctionNames\":[\"get_weather\"]}}");
    assert_subset(tu_json_at(body, "tools.0.functionDeclarations.0.parameters"), schema_is_gemini_subset,
                  "Gemini's subset");
    json_object_put(body);
    outcome_free(&o);

    /* The other tool choices. */
    static const struct {
        seam_tool_choice choice;
        const char *mode;
    } modes[] = {{SEAM_TOOL_CHOICE_AUTO, "AUTO"}, {SEAM_TOOL_CHOICE_REQUIRED, "ANY"},
                 {SEAM_TOOL_CHOICE_NONE, "NONE"}};
    for (size_t i = 0; i < 3; i++) {
        seam_request_set_tool_choice(req, modes[i].choice, NULL);
        body = body_sent_for(req, MODEL, OK_ANSWER);
        CU_ASSERT_STRING_EQUAL(tu_json_str(body, "toolConfig.functionCallingConfig.mode"), modes[i].mode);
        CU_ASSERT_PTR_NULL(tu_json_at(body, "toolConfig.functionCallingConfig.allowedFunctionNames"));
        json_object_put(body);
    }

    /* A named choice that is not a declared tool cannot be expressed. */
    size_t before = fake_server_request_count(server);
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_NAMED, "missing_tool");
    o = run(req, 0);
    CU_ASSERT_NOT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_EQUAL(fake_server_request_count(server), before);
    outcome_free(&o);
    seam_request_free(req);
}

static void test_encode_json_mode_thinking_and_options(void)
{
    seam_request *req = user_request("List two colors.");
    CU_ASSERT_EQUAL(seam_request_set_response_format(
                        req, SEAM_FORMAT_JSON, "colors",
                        "{\"type\":\"object\",\"properties\":{\"colors\":{\"type\":\"array\","
                        "\"items\":{\"type\":\"string\"},\"minItems\":2}},\"required\":[\"colors\"],"
                        "\"additionalProperties\":false}",
                        1),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_reasoning_budget(req, 1024), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_provider_options(
                        req, "{\"safetySettings\":[{\"category\":\"HARM_CATEGORY_HARASSMENT\","
                             "\"threshold\":\"BLOCK_NONE\"}],\"generationConfig\":{\"topK\":20},"
                             "\"unknownKey\":1}"),
                    SEAM_OK);
    outcome o = answered(req,
            "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"{\\\"colors\\\":"
            "[\\\"red\\\",\\\"blue\\\"]}\"}]},\"finishReason\":\"STOP\"}]}");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_TRUE(tu_json_text_equal(seam_message_text(o.msg), "{\"colors\":[\"red\",\"blue\"]}"));
    json_object *body = sent_body();
    CHECK_JSON(tu_json_at(body, "generationConfig"),
               "{\"responseMimeType\":\"application/json\",\"responseSchema\":{\"type\":\"OBJECT\","
               "\"properties\":{\"colors\":{\"type\":\"ARRAY\",\"items\":{\"type\":\"STRING\"},"
               "\"minItems\":2}},\"required\":[\"colors\"]},"
               "\"thinkingConfig\":{\"thinkingBudget\":1024,\"includeThoughts\":true},\"topK\":20}");
    CHECK_JSON(tu_json_at(body, "safetySettings"),
               "[{\"category\":\"HARM_CATEGORY_HARASSMENT\",\"threshold\":\"BLOCK_NONE\"}]");
    CU_ASSERT_PTR_NULL(tu_json_at(body, "unknownKey"));
    json_object_put(body);
    outcome_free(&o);

    /* JSON mode without a schema: the mime type alone. */
    seam_request_set_response_format(req, SEAM_FORMAT_JSON, NULL, NULL, 0);
    seam_request_set_reasoning_budget(req, 0);
    seam_request_set_provider_options(req, "{}");
    o = answered(req,
            "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"{}\"}]},"
            "\"finishReason\":\"STOP\"}]}");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    body = sent_body();
    CHECK_JSON(tu_json_at(body, "generationConfig"), "{\"responseMimeType\":\"application/json\"}");
    json_object_put(body);
    outcome_free(&o);
    seam_request_free(req);
}

static void test_encode_rejects_what_gemini_cannot_take(void)
{
    size_t before = fake_server_request_count(server);
    seam_request *req = user_request("hi");
    seam_call_options opts = call_options();
    opts.model = "gemini 2.5/../../x?key=1";
    seam_result *res = NULL;
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_NOT_EQUAL(seam_generate(client, req, &opts, &res, &err), SEAM_OK);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_PTR_NULL(res);
    seam_request_free(req);

    /* Only empty text: nothing Gemini accepts as content. */
    req = seam_request_new();
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    seam_message_add_text(m, "");
    seam_request_add_message(req, m);
    outcome o = run(req, 0);
    CU_ASSERT_NOT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_BAD_REQUEST);
    outcome_free(&o);
    seam_request_free(req);

    /* A tool result that matches no call and names no tool. */
    req = user_request("hi");
    m = seam_message_new(SEAM_ROLE_TOOL);
    seam_message_add_tool_result(m, "call_unknown", NULL, "\"x\"", 0);
    seam_request_add_message(req, m);
    o = run(req, 0);
    CU_ASSERT_NOT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_BAD_REQUEST);
    outcome_free(&o);
    seam_request_free(req);
    CU_ASSERT_EQUAL(fake_server_request_count(server), before);
}

/* ---- tests: the two-step tool conversation ------------------------------------------------- */

static void test_tool_round_trip_with_synthesized_ids(void)
{
    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "Weather and time in Paris?");
    seam_request_add_tool(req, "get_weather", "Weather",
                          "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
                          "\"days\":{\"type\":\"integer\"}},\"required\":[\"city\"]}");
    seam_request_add_tool(req, "get_time", "Time",
                          "{\"type\":\"object\",\"properties\":{\"tz\":{\"type\":\"string\"}}}");

    /* Step 1: two parallel calls, streamed. */
    fake_server_push_sse(server, STREAM_TOOLS, 11);
    outcome step1 = run(req, 1);
    CU_ASSERT_EQUAL_FATAL(step1.rc, SEAM_OK);
    CU_ASSERT_EQUAL(step1.stop, SEAM_STOP_TOOL_USE);
    CU_ASSERT_EQUAL(step1.usage.input_tokens, 40);
    CU_ASSERT_EQUAL(step1.usage.output_tokens, 20);
    CU_ASSERT_EQUAL_FATAL(count_parts(step1.msg, SEAM_PART_TOOL_CALL), 2);
    const seam_part *weather = nth_part(step1.msg, SEAM_PART_TOOL_CALL, 0);
    const seam_part *clock = nth_part(step1.msg, SEAM_PART_TOOL_CALL, 1);
    CU_ASSERT_STRING_EQUAL(seam_part_tool_name(weather), "get_weather");
    CU_ASSERT_STRING_EQUAL(seam_part_tool_name(clock), "get_time");
    char weather_id[128], clock_id[128];
    snprintf(weather_id, sizeof weather_id, "%s", seam_part_tool_call_id(weather));
    snprintf(clock_id, sizeof clock_id, "%s", seam_part_tool_call_id(clock));
    CU_ASSERT(strlen(weather_id) > 0);
    CU_ASSERT(strlen(clock_id) > 0);
    CU_ASSERT(strcmp(weather_id, clock_id) != 0);
    CU_ASSERT_TRUE(tu_json_text_equal(seam_part_args_json(weather), "{\"city\":\"Paris\",\"days\":2}"));
    /* The signature that came on the first call sits just before it. */
    const seam_part *carrier = nth_part(step1.msg, SEAM_PART_REASONING, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(carrier);
    CU_ASSERT_STRING_EQUAL(seam_part_signature(carrier), "gemini:c2lnLWNhbGw=");

    /* Step 2: the results come back in the other order, without names, one
     * message each (as an OpenAI-shaped caller sends them), then a user remark. */
    CU_ASSERT_EQUAL(seam_request_add_message(req, seam_message_dup(step1.msg)), SEAM_OK);
    tu_add_tool_result(req, clock_id, NULL, "\"14:05\"", 0);
    tu_add_tool_result(req, weather_id, NULL, "{\"temp_c\":18}", 0);
    seam_request_add_user_text(req, "Be brief.");
    outcome step2 = answered(req,
            "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"18\xc2\xb0"
            "C, 14:05.\"}],\"role\":\"model\"},\"finishReason\":\"STOP\"}],"
            "\"usageMetadata\":{\"promptTokenCount\":80,\"candidatesTokenCount\":6}}");
    CU_ASSERT_EQUAL(step2.rc, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_message_text(step2.msg), "18\xc2\xb0" "C, 14:05.");
    CU_ASSERT_EQUAL(step2.stop, SEAM_STOP_STOP);

    json_object *body = sent_body();
    CHECK_JSON(tu_json_at(body, "contents"),
               "[{\"role\":\"user\",\"parts\":[{\"text\":\"Weather and time in Paris?\"}]},"
               "{\"role\":\"model\",\"parts\":[{\"text\":\"Let me check.\"},"
               "{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\",\"days\":2}},"
               "\"thoughtSignature\":\"c2lnLWNhbGw=\"},"
               "{\"functionCall\":{\"name\":\"get_time\",\"args\":{\"tz\":\"Europe/Paris\"}}}]},"
               "{\"role\":\"user\",\"parts\":["
               "{\"functionResponse\":{\"name\":\"get_weather\",\"response\":{\"output\":{\"temp_c\":18}}}},"
               "{\"functionResponse\":{\"name\":\"get_time\",\"response\":{\"output\":\"14:05\"}}},"
               "{\"text\":\"Be brief.\"}]}]");
    json_object_put(body);

    /* Step 1 again: a new response gets new ids. */
    fake_server_push_sse(server, STREAM_TOOLS, 0);
    seam_request *again = user_request("Weather and time in Paris?");
    outcome step1b = run(again, 1);
    CU_ASSERT_EQUAL(step1b.rc, SEAM_OK);
    const seam_part *w2 = nth_part(step1b.msg, SEAM_PART_TOOL_CALL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w2);
    CU_ASSERT(strcmp(seam_part_tool_call_id(w2), weather_id) != 0);
    CU_ASSERT(strcmp(seam_part_tool_call_id(w2), clock_id) != 0);
    outcome_free(&step1b);
    seam_request_free(again);

    outcome_free(&step1);
    outcome_free(&step2);
    seam_request_free(req);
}

/* Signatures replayed where they came from: on a thought part, on the text part
 * before a trailing carrier, and as an empty text part when nothing is left;
 * another provider's reasoning never reaches Gemini; an error result goes back
 * under "error". */
static void test_signature_replay_shapes(void)
{
    seam_request *req = user_request("Go.");
    seam_message *a = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_reasoning(a, "Thinking it over.", "gemini:c2lnLXRob3VnaHQ=", 0);
    /* Anthropic-style thinking (an untagged signature) and redacted data. */
    seam_message_add_reasoning(a, "Claude thought.", "EqQBCkYIBxgCKkB", 0);
    seam_message_add_reasoning(a, "opaque", "sig", 1);
    seam_message_add_text(a, "Answer.");
    seam_message_add_reasoning(a, "", "gemini:c2lnLXRyYWlsaW5n", 0);
    seam_request_add_message(req, a);
    seam_request_add_user_text(req, "Again.");
    seam_message *b = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_reasoning(b, "", "gemini:c2lnLWFsb25l", 0);
    seam_request_add_message(req, b);
    tu_add_tool_call(req, "call_7", "lookup", "{\"q\":\"x\"}");
    tu_add_tool_result(req, "call_7", NULL, "\"not found\"", 1);

    json_object *body = body_sent_for(req, MODEL, OK_ANSWER);
    /* The two consecutive model messages merge into one model content. */
    CHECK_JSON(tu_json_at(body, "contents"),
               "[{\"role\":\"user\",\"parts\":[{\"text\":\"Go.\"}]},"
               "{\"role\":\"model\",\"parts\":[{\"text\":\"Thinking it over.\",\"thought\":true,"
               "\"thoughtSignature\":\"c2lnLXRob3VnaHQ=\"},"
               "{\"text\":\"Answer.\",\"thoughtSignature\":\"c2lnLXRyYWlsaW5n\"}]},"
               "{\"role\":\"user\",\"parts\":[{\"text\":\"Again.\"}]},"
               "{\"role\":\"model\",\"parts\":[{\"text\":\"\",\"thoughtSignature\":\"c2lnLWFsb25l\"},"
               "{\"functionCall\":{\"name\":\"lookup\",\"args\":{\"q\":\"x\"}}}]},"
               "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"lookup\","
               "\"response\":{\"error\":\"not found\"}}}]}]");
    json_object_put(body);
    seam_request_free(req);
}

static const tu_test tests[] = {
    { "encode: conversation, media, generation config", test_encode_conversation },
    { "encode: tools, schema reshape, tool choice", test_encode_tools_and_schema_reshape },
    { "encode: JSON mode, thinking, options", test_encode_json_mode_thinking_and_options },
    { "encode: rejected requests", test_encode_rejects_what_gemini_cannot_take },
    { "two-step tool conversation, synthesized ids", test_tool_round_trip_with_synthesized_ids },
    { "thought signatures replayed", test_signature_replay_shapes },
    { NULL, NULL },
};

int main(void)
{
    return tu_gemini_run(tests);
}
