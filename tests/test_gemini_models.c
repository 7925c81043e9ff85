/* test_gemini_models.c — Gemini 3 and later (plugins/gemini/models.c) through
 * the real loader and the fake server: the golden request bodies
 * (thinkingLevel, the output cap, the JSON Schema fields), the placeholder
 * signature, the turns a family refuses, and capabilities per family. */
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

/* ---- tests: Gemini 3 and later ---------------------------------------------------------- */

/* WEATHER_SCHEMA in the JSON Schema subset responseJsonSchema/parametersJsonSchema
 * document: $ref/$defs, anyOf, type arrays, additionalProperties and const (as a
 * one-value enum) stay JSON Schema; undocumented keywords and formats go; allOf is
 * merged; `required` names only properties that exist. */
static const char WEATHER_SCHEMA_JSON_SUBSET[] =
    "{\"type\":\"object\",\"additionalProperties\":false,"
    "\"$defs\":{"
    "  \"Unit\":{\"type\":\"string\",\"enum\":[\"celsius\",\"fahrenheit\"],\"description\":\"Temperature unit\"},"
    "  \"Place\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
    "     \"country\":{\"type\":\"string\"}},\"required\":[\"city\"],\"additionalProperties\":false},"
    "  \"Node\":{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"},"
    "     \"next\":{\"$ref\":\"#/$defs/Node\"}}}},"
    "\"properties\":{"
    "  \"place\":{\"$ref\":\"#/$defs/Place\",\"description\":\"Where\"},"
    "  \"unit\":{\"$ref\":\"#/$defs/Unit\"},"
    "  \"kind\":{\"enum\":[\"forecast\"]},"
    "  \"days\":{\"type\":[\"integer\",\"null\"],\"minimum\":1,\"maximum\":14},"
    "  \"when\":{\"type\":\"string\",\"format\":\"date-time\"},"
    "  \"email\":{\"type\":\"string\"},"
    "  \"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":5},"
    WEATHER_PROPERTIES_KEPT
    "  \"both\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"boolean\"},"
    "     \"b\":{\"type\":\"number\"}},\"required\":[\"a\"]}"
    "},\"required\":[\"place\",\"unit\"]}";

/* Every keyword anywhere in a JSON-Schema-path schema is one the API documents. */
static int json_schema_is_documented_subset(json_object *s, char *why, size_t why_size)
{
    static const char *const allowed[] = {
        "type",     "title",       "description", "properties", "required", "additionalProperties",
        "enum",     "format",      "minimum",     "maximum",    "items",    "prefixItems",
        "minItems", "maxItems",    "anyOf",       "$ref",       "$defs",    "propertyOrdering",
    };
    if (json_object_is_type(s, json_type_boolean))
        return 1;
    if (!keywords_allowed(s, allowed, sizeof allowed / sizeof allowed[0], why, why_size))
        return 0;
    json_object_object_foreach(s, key, val)
    {
        if (strcmp(key, "type") == 0 && json_object_is_type(val, json_type_string)) {
            const char *t = json_object_get_string(val);
            if (strcmp(t, "object") && strcmp(t, "array") && strcmp(t, "string") && strcmp(t, "number") &&
                strcmp(t, "integer") && strcmp(t, "boolean") && strcmp(t, "null")) {
                snprintf(why, why_size, "type %s", t);
                return 0;
            }
        }
        if (strcmp(key, "properties") == 0 || strcmp(key, "$defs") == 0) {
            json_object_object_foreach(val, pname, sub)
            {
                (void)pname;
                if (!json_schema_is_documented_subset(sub, why, why_size))
                    return 0;
            }
        }
        if ((strcmp(key, "items") == 0 || strcmp(key, "additionalProperties") == 0) &&
            !json_schema_is_documented_subset(val, why, why_size))
            return 0;
        if (strcmp(key, "anyOf") == 0 || strcmp(key, "prefixItems") == 0)
            for (size_t i = 0; i < json_object_array_length(val); i++)
                if (!json_schema_is_documented_subset(json_object_array_get_idx(val, i), why, why_size))
                    return 0;
    }
    return 1;
}

static const char LOOKUP_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\",\"minLength\":1},"
    "\"when\":{\"type\":[\"string\",\"null\"],\"format\":\"date\"},"
    "\"opts\":{\"type\":\"object\",\"nullable\":true,\"properties\":{\"n\":{\"type\":\"integer\"}}}},"
    "\"required\":[\"q\",\"missing\"],\"additionalProperties\":false}";
static const char LOOKUP_SCHEMA_JSON_SUBSET[] =
    "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"},"
    "\"when\":{\"type\":[\"string\",\"null\"],\"format\":\"date\"},"
    "\"opts\":{\"type\":[\"object\",\"null\"],\"properties\":{\"n\":{\"type\":\"integer\"}}}},"
    "\"required\":[\"q\"],\"additionalProperties\":false}";

/* The golden Gemini 4 request, streamed and whole: thinkingLevel from the budget,
 * maxOutputTokens clamped to one request's cap (65,536 streamed, 32,768 whole),
 * parametersJsonSchema; and a hop that ends with CONTINUATION is a cut answer. */
static void test_gemini4_request_and_continuation(void)
{
    seam_request *req = seam_request_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(req);
    seam_request_set_system(req, "You are terse.");
    seam_request_add_user_text(req, "Plan the migration.");
    CU_ASSERT_EQUAL(seam_request_add_tool(req, "lookup", "Find a record", LOOKUP_SCHEMA), SEAM_OK);
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_AUTO, NULL);
    seam_request_set_max_tokens(req, 200000);
    seam_request_set_reasoning_budget(req, 20000);

    static const char golden_prefix[] =
        "{\"systemInstruction\":{\"parts\":[{\"text\":\"You are terse.\"}]},"
        "\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Plan the migration.\"}]}],"
        "\"tools\":[{\"functionDeclarations\":[{\"name\":\"lookup\",\"description\":\"Find a record\","
        "\"parametersJsonSchema\":%s}]}],"
        "\"toolConfig\":{\"functionCallingConfig\":{\"mode\":\"AUTO\"}},"
        "\"generationConfig\":{\"maxOutputTokens\":%d,"
        "\"thinkingConfig\":{\"thinkingLevel\":\"HIGH\",\"includeThoughts\":true}}}";
    char golden[4096];

    /* Streamed: the hop reaches the cap, the answer so far is kept, stop "length". */
    fake_server_push_sse(server,
                         "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Step 1: inventory.\"}],"
                         "\"role\":\"model\"},\"index\":0}]}\r\n\r\n"
                         "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" Step 2:\"}],"
                         "\"role\":\"model\"},\"finishReason\":\"CONTINUATION\",\"continuationToken\":"
                         "\"Y29udGludWU=\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":30,"
                         "\"candidatesTokenCount\":5000,\"thoughtsTokenCount\":60536,"
                         "\"totalTokenCount\":65566},\"modelVersion\":\"gemini-4-argon\"}\r\n\r\n",
                         9);
    outcome o = run_model(req, 1, "gemini-4-argon");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_LENGTH);
    CU_ASSERT_EQUAL(o.stop_chunks, 1);
    CU_ASSERT_STRING_EQUAL(seam_message_text(o.msg), "Step 1: inventory. Step 2:");
    CU_ASSERT_EQUAL(o.usage.output_tokens, 65536);
    CU_ASSERT_EQUAL(o.usage.reasoning_tokens, 60536);
    size_t i = last_request();
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(server, i),
                           "/v1beta/models/gemini-4-argon:streamGenerateContent?alt=sse");
    json_object *body = request_body(i);
    snprintf(golden, sizeof golden, golden_prefix, LOOKUP_SCHEMA_JSON_SUBSET, 65536);
    CHECK_JSON(body, golden);
    assert_subset(tu_json_at(body, "tools.0.functionDeclarations.0.parametersJsonSchema"),
                  json_schema_is_documented_subset, "the documented subset");
    json_object_put(body);
    outcome_free(&o);

    /* Whole: a non-streamed Gemini 4 call takes at most 32,768. */
    fake_server_push_json(server, 200,
                          "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Done.\"}],\"role\":\"model\"},"
                          "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":30,"
                          "\"candidatesTokenCount\":2}}",
                          NULL);
    o = run_model(req, 0, "gemini-4-argon");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_STOP);
    i = last_request();
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(server, i),
                           "/v1beta/models/gemini-4-argon:generateContent");
    body = request_body(i);
    snprintf(golden, sizeof golden, golden_prefix, LOOKUP_SCHEMA_JSON_SUBSET, 32768);
    CHECK_JSON(body, golden);
    json_object_put(body);
    outcome_free(&o);

    /* A max_tokens under the cap is sent as is. */
    seam_request_set_max_tokens(req, 1000);
    body = body_sent_for(req, "gemini-4-hydrogen", OK_ANSWER);
    CU_ASSERT_EQUAL(json_object_get_int64(tu_json_at(body, "generationConfig.maxOutputTokens")), 1000);
    json_object_put(body);
    seam_request_free(req);
}

/* The golden Gemini 3.5 Flash-Lite request: responseJsonSchema (not responseSchema),
 * MINIMAL for a small budget, the 65,536 cap whole and streamed. */
static void test_gemini35_flash_lite_request(void)
{
    seam_request *req = user_request("Weather in Paris?");
    CU_ASSERT_EQUAL(seam_request_set_response_format(req, SEAM_FORMAT_JSON, "weather", WEATHER_SCHEMA, 1),
                    SEAM_OK);
    seam_request_set_reasoning_budget(req, 512);
    seam_request_set_max_tokens(req, 100000);
    seam_request_set_temperature(req, 0.3);
    char golden[8192];
    snprintf(golden, sizeof golden,
             "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Weather in Paris?\"}]}],"
             "\"generationConfig\":{\"temperature\":0.3,\"maxOutputTokens\":65536,"
             "\"responseMimeType\":\"application/json\",\"responseJsonSchema\":%s,"
             "\"thinkingConfig\":{\"thinkingLevel\":\"MINIMAL\",\"includeThoughts\":true}}}",
             WEATHER_SCHEMA_JSON_SUBSET);
    for (int streaming = 0; streaming <= 1; streaming++) {
        if (streaming)
            fake_server_push_sse(server,
                                 "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"{}\"}],"
                                 "\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}]}\r\n\r\n",
                                 0);
        else
            fake_server_push_json(server, 200,
                                  "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"{}\"}]},"
                                  "\"finishReason\":\"STOP\"}]}",
                                  NULL);
        outcome o = run_model(req, streaming, "gemini-3.5-flash-lite");
        CU_ASSERT_EQUAL(o.rc, SEAM_OK);
        json_object *body = sent_body();
        CHECK_JSON(body, golden);
        assert_subset(tu_json_at(body, "generationConfig.responseJsonSchema"), json_schema_is_documented_subset,
                      "the documented subset");
        json_object_put(body);
        outcome_free(&o);
    }
    seam_request_free(req);
}

/* The budget -> thinkingLevel map per family, 2.x keeping thinkingBudget and its
 * unclamped maxOutputTokens, and options naming the twin field winning. */
static void test_thinking_levels_per_family(void)
{
    static const struct {
        const char *model;
        int64_t budget;
        const char *level; /* NULL: thinkingBudget = budget */
    } table[] = {
        {"gemini-3.8-flash", 500, "LOW"}, /* 3.8 Flash has no MINIMAL */
        {"gemini-3.8-flash", 5000, "MEDIUM"},
        {"gemini-3.5-flash-lite", 500, "MINIMAL"},
        {"gemini-3.5-flash-lite", 20000, "HIGH"},
        {"gemini-3.5-flash-lite", 100000, "HIGH"}, /* no XHIGH: the highest it has */
        {"gemini-3-pro-preview", 5000, "HIGH"},    /* low/high only: up, not down */
        {"gemini-3-pro-preview", 2000, "LOW"},
        {"gemini-4-argon", 3000, "LOW"},
        {"gemini-4-argon", 100000, "HIGH"},
        {"gemini-4-hydrogen", 100000, "HIGH"}, /* XHIGH is not a ThinkingLevel */
        {"models/gemini-4-hydrogen", 8000, "MEDIUM"},
        {"gemini-2.5-flash", 5000, NULL},
        {"gemini-2.5-pro", 128, NULL},
    };
    seam_request *req = user_request("Think.");
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        seam_request_set_reasoning_budget(req, table[i].budget);
        json_object *body = body_sent_for(req, table[i].model, OK_ANSWER);
        char want[128];
        if (table[i].level)
            snprintf(want, sizeof want, "{\"thinkingLevel\":\"%s\",\"includeThoughts\":true}", table[i].level);
        else
            snprintf(want, sizeof want, "{\"thinkingBudget\":%lld,\"includeThoughts\":true}",
                     (long long)table[i].budget);
        json_object *want_json = json_tokener_parse(want);
        if (!json_object_equal(tu_json_at(body, "generationConfig.thinkingConfig"), want_json))
            fprintf(stderr, "\n%s, budget %lld:\n", table[i].model, (long long)table[i].budget);
        json_object_put(want_json);
        CHECK_JSON(tu_json_at(body, "generationConfig.thinkingConfig"), want);
        json_object_put(body);
    }

    /* Gemini 2.x: maxOutputTokens as asked (the 2.x wire is unchanged). */
    seam_request_set_reasoning_budget(req, 0);
    seam_request_set_max_tokens(req, 200000);
    fake_server_push_json(server, 200,
                          "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\"}]}",
                          NULL);
    outcome o = run_model(req, 0, "gemini-2.5-flash");
    json_object *body = sent_body();
    CHECK_JSON(tu_json_at(body, "generationConfig"), "{\"maxOutputTokens\":200000}");
    json_object_put(body);
    outcome_free(&o);

    /* Options that name the twin of a field the codec sets win: thinkingBudget
     * over the derived level, responseSchema over responseJsonSchema. */
    seam_request_set_max_tokens(req, 0);
    seam_request_set_reasoning_budget(req, 20000);
    seam_request_set_response_format(req, SEAM_FORMAT_JSON, "x",
                                     "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}", 0);
    seam_request_set_provider_options(req, "{\"thinkingConfig\":{\"thinkingBudget\":2048},"
                                           "\"generationConfig\":{\"responseSchema\":{\"type\":\"STRING\"}}}");
    body = body_sent_for(req, "gemini-4-argon",
                         "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\\\"x\\\"\"}]},"
                         "\"finishReason\":\"STOP\"}]}");
    CHECK_JSON(tu_json_at(body, "generationConfig"),
               "{\"responseMimeType\":\"application/json\",\"responseSchema\":{\"type\":\"STRING\"},"
               "\"thinkingConfig\":{\"thinkingBudget\":2048,\"includeThoughts\":true}}");
    json_object_put(body);
    seam_request_free(req);
}

/* Every thinkingLevel sent is one of the values @google/genai 3.1.0's
 * ThinkingLevel accepts (MINIMAL, LOW, MEDIUM, HIGH): the largest budget on
 * every family with levels, Gemini 4 Hydrogen included, is HIGH at most. A
 * caller who wants another value names it in the thinkingConfig option. */
static void test_thinking_level_within_sdk_values(void)
{
    static const char *const models[] = {
        "gemini-4-hydrogen", "gemini-4-argon", "gemini-4-x", "gemini-3.8-flash",
        "gemini-3.5-flash-lite", "gemini-3.1-pro", "gemini-3-flash", "gemini-3-pro-preview",
    };
    static const int64_t budgets[] = { 1, 2000, 8000, 20000, 65536, 1000000, INT64_MAX };
    seam_request *req = user_request("Think hard.");
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
            seam_request_set_reasoning_budget(req, budgets[b]);
            json_object *body = body_sent_for(req, models[m], OK_ANSWER);
            const char *level =
                json_object_get_string(tu_json_at(body, "generationConfig.thinkingConfig.thinkingLevel"));
            int known = level && (!strcmp(level, "MINIMAL") || !strcmp(level, "LOW") ||
                                  !strcmp(level, "MEDIUM") || !strcmp(level, "HIGH"));
            if (!known)
                fprintf(stderr, "\n%s, budget %lld: thinkingLevel %s\n", models[m],
                        (long long)budgets[b], level ? level : "(none)");
            CU_ASSERT_TRUE(known);
            json_object_put(body);
        }
    }

    /* The option still sends what the caller names, as it does any member. */
    seam_request_set_reasoning_budget(req, 100000);
    seam_request_set_provider_options(req, "{\"thinkingConfig\":{\"thinkingLevel\":\"XHIGH\"}}");
    json_object *body = body_sent_for(req, "gemini-4-hydrogen", OK_ANSWER);
    CHECK_JSON(tu_json_at(body, "generationConfig.thinkingConfig"),
               "{\"thinkingLevel\":\"XHIGH\",\"includeThoughts\":true}");
    json_object_put(body);
    seam_request_free(req);
}

/* Calls of the current turn that carry no signature (another provider's, or
 * stripped by a failover) get the documented placeholder on Gemini 3 and later,
 * on the first call of each step only; real signatures and earlier turns are
 * left alone; Gemini 2.x gets nothing added. */
static void test_placeholder_signature_on_unsigned_calls(void)
{
    seam_request *req = user_request("Hi.");
    tu_add_tool_call(req, "toolu_0", "lookup", "{\"q\":\"hi\"}");
    tu_add_tool_result(req, "toolu_0", NULL, "\"found\"", 0);
    tu_add_assistant_text(req, "Hello.");
    seam_request_add_user_text(req, "Weather and time?");
    /* Step 1 of the current turn: two parallel calls without signatures. */
    tu_add_turn(req, SEAM_ROLE_ASSISTANT, TU_PARTS(TU_CALL("toolu_1", "get_weather", "{\"city\":\"Paris\"}"),
                                                   TU_CALL("toolu_2", "get_time", "{}")));
    tu_add_turn(req, SEAM_ROLE_TOOL, TU_PARTS(TU_RESULT("toolu_1", NULL, "{\"temp_c\":18}", 0),
                                              TU_RESULT("toolu_2", NULL, "\"14:05\"", 0)));
    /* Step 2: Gemini's own call with its signature. */
    tu_add_turn(req, SEAM_ROLE_ASSISTANT, TU_PARTS(TU_REASONING("", "gemini:c2lnLXN0ZXAy", 0),
                                                   TU_CALL("gmcall_x_0", "get_time", "{\"tz\":\"UTC\"}")));
    tu_add_tool_result(req, "gmcall_x_0", NULL, "\"12:05\"", 0);

    static const char contents_fmt[] =
        "[{\"role\":\"user\",\"parts\":[{\"text\":\"Hi.\"}]},"
        "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"lookup\",\"args\":{\"q\":\"hi\"}}}]},"
        "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"lookup\",\"response\":{\"output\":\"found\"}}}]},"
        "{\"role\":\"model\",\"parts\":[{\"text\":\"Hello.\"}]},"
        "{\"role\":\"user\",\"parts\":[{\"text\":\"Weather and time?\"}]},"
        "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"}}%s},"
        "{\"functionCall\":{\"name\":\"get_time\",\"args\":{}}}]},"
        "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"get_weather\",\"response\":{\"output\":{\"temp_c\":18}}}},"
        "{\"functionResponse\":{\"name\":\"get_time\",\"response\":{\"output\":\"14:05\"}}}]},"
        "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"get_time\",\"args\":{\"tz\":\"UTC\"}},"
        "\"thoughtSignature\":\"c2lnLXN0ZXAy\"}]},"
        "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"get_time\",\"response\":{\"output\":\"12:05\"}}}]}]";
    static const struct {
        const char *model;
        int placeholder; /* on the first call of the current turn */
    } cases[] = {
        {"gemini-3.8-flash", 1},
        {"gemini-4-argon", 1},
        {"gemini-2.5-flash", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_object *body = body_sent_for(req, cases[i].model,
                                          "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"18 C, 14:05.\"}]},"
                                          "\"finishReason\":\"STOP\"}]}");
        char want[4096];
        snprintf(want, sizeof want, contents_fmt,
                 cases[i].placeholder ? ",\"thoughtSignature\":\"skip_thought_signature_validator\"" : "");
        CHECK_JSON(tu_json_at(body, "contents"), want);
        json_object_put(body);
    }
    seam_request_free(req);
}

/* gemini-3.5-flash-lite refuses contents that end with a model turn: refused
 * before any request; other families send it. */
static void test_flash_lite_refuses_trailing_model_turn(void)
{
    seam_request *req = user_request("Name a color.");
    tu_add_assistant_text(req, "The color is");
    size_t before = fake_server_request_count(server);
    outcome o = run_model(req, 0, "gemini-3.5-flash-lite");
    CU_ASSERT_NOT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_EQUAL(fake_server_request_count(server), before);
    outcome_free(&o);

    fake_server_push_json(server, 200,
                          "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" blue.\"}]},\"finishReason\":\"STOP\"}]}",
                          NULL);
    o = run_model(req, 0, "gemini-3.8-flash");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(fake_server_request_count(server), before + 1);
    outcome_free(&o);
    seam_request_free(req);
}

/* Capabilities per family, through the client. */
static void test_capabilities_per_family(void)
{
    static const struct {
        const char *model;
        int tools, reasoning, vision, audio, structured, cache;
        int64_t context, max_output;
    } table[] = {
        {"gemini-4-argon", 1, 1, 1, 0, 1, 1, 1048576, 65536},
        {"gemini-4-hydrogen", 1, 1, 1, 0, 1, 1, 1048576, 65536},
        {"models/gemini-4-argon", 1, 1, 1, 0, 1, 1, 1048576, 65536},
        {"gemini-3.8-flash", 1, 1, 1, 1, 1, 1, 1048576, 65536},
        {"gemini-3.5-flash-lite", 1, 1, 1, 1, 1, 1, 1048576, 65536},
        {"gemini-2.5-flash", 1, 1, 1, 1, 1, 1, 1048576, 65536},
        {"gemini-2.0-flash", 1, 0, 1, 1, 1, 1, 1048576, 8192},
        {"gemini-2.5-flash-image", 0, 0, 1, 0, 1, 1, 32768, 32768},
        {"gemma-3-27b-it", 0, 0, 1, 0, 0, 0, 131072, 8192},
        {"not-a-gemini", 0, 0, 0, 0, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        seam_capabilities caps = tu_capabilities(client, "gm", table[i].model);
        int ok = caps.tools == (unsigned)table[i].tools && caps.parallel_tool_calls == (unsigned)table[i].tools &&
                 caps.reasoning == (unsigned)table[i].reasoning && caps.vision == (unsigned)table[i].vision &&
                 caps.audio_input == (unsigned)table[i].audio &&
                 caps.structured_output == (unsigned)table[i].structured &&
                 caps.prompt_cache == (unsigned)table[i].cache &&
                 caps.pdf_input == (unsigned)(table[i].vision && table[i].tools) && caps.streaming == 1 &&
                 caps.context_window == table[i].context && caps.max_output_tokens == table[i].max_output;
        if (!ok)
            fprintf(stderr, "\ncapabilities of %s differ\n", table[i].model);
        CU_ASSERT_TRUE(ok);
    }
}

static const tu_test tests[] = {
    { "Gemini 4: golden request, output cap, CONTINUATION", test_gemini4_request_and_continuation },
    { "Gemini 3.5 Flash-Lite: golden request, responseJsonSchema", test_gemini35_flash_lite_request },
    { "thinking levels per family, 2.x unchanged, option twins", test_thinking_levels_per_family },
    { "thinkingLevel within @google/genai's values", test_thinking_level_within_sdk_values },
    { "placeholder signature on unsigned calls (3+)", test_placeholder_signature_on_unsigned_calls },
    { "3.5 Flash-Lite refuses a trailing model turn", test_flash_lite_refuses_trailing_model_turn },
    { "capabilities per family", test_capabilities_per_family },
    { NULL, NULL },
};

int main(void)
{
    return tu_gemini_run(tests);
}
