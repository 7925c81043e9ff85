/* test_anthropic_claude5.c — the Claude 5 / 5.5 families through the Anthropic
 * plugin, the real loader and the fake provider server: their capabilities,
 * golden bodies, forced-tool rules, thinking, betas, JSON answers and what
 * they send back. */
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

static const tu_test tests[] = {
    { "claude 5 capabilities", test_claude5_capabilities },
    { "opus 5.5 golden", test_opus55_golden },
    { "forced tool rules", test_forced_tool_rules },
    { "claude 5 thinking", test_claude5_thinking },
    { "claude 5 betas and strict tools", test_claude5_betas_and_strict_tools },
    { "claude 5.5 json answer", test_claude55_json_answer },
    { "claude 5.5 decode", test_claude55_decode },
    { NULL, NULL },
};

int main(void)
{
    return tu_anthropic_run(tests);
}
