/* test_anthropic_encode.c — the Anthropic plugin's encode (plugins/anthropic/encode.c)
 * through the real loader and the fake provider server: the wire the core
 * sends (URL, headers, JSON body: golden bodies for messages, tools, thinking,
 * caching, structured output, the anthropic_version's sampling rule), and a
 * thinking turn replayed with its signature to Anthropic and without it to
 * another provider. */
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
    { "encode golden", test_encode_golden },
    { "tool choice mapping", test_tool_choice_mapping },
    { "thinking encode", test_thinking_encode },
    { "thinking round trip with signature", test_thinking_round_trip_with_signature },
    { "cache auto", test_cache_auto },
    { "headers from options", test_headers_from_options },
    { "structured output", test_structured_output },
    { "anthropic_version 2026-10-21 drops sampling", test_version_2026_10_21_drops_sampling },
    { NULL, NULL },
};

int main(void)
{
    return tu_anthropic_run(tests);
}
