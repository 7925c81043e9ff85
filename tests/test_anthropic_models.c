/* test_anthropic_models.c — the Anthropic plugin's models and options
 * (plugins/anthropic/models.c, options.c) through the real loader and the fake
 * provider server: model defaults and capabilities as the core sees them,
 * the context window, stop reasons, and options that are refused. */
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

static const tu_test tests[] = {
    { "model defaults and capabilities", test_model_defaults_and_capabilities },
    { "context window capability", test_context_window_capability },
    { "stop reasons", test_stop_reasons },
    { "bad options", test_bad_options },
    { NULL, NULL },
};

int main(void)
{
    return tu_anthropic_run(tests);
}
