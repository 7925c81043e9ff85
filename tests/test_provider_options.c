/* test_provider_options.c — provider options through the real openai,
 * anthropic and gemini plugins and the fake server: a request's options are
 * namespaced per provider (the plugin id and the conf name), a codec sends
 * only the keys it knows (an unknown key never reaches the wire and is
 * reported to the client's log, nothing printed), extra_body sends raw fields
 * on purpose, the conf's options follow the same rules, and a session merges
 * its flags' namespaces member by member. Bodies are checked as the server
 * received them. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <seam/loop.h>
#include <seam/seam.h>

#define OA_ANSWER                                                                              \
    "{\"id\":\"c1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0," \
    "\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}],"       \
    "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}"
#define GM_ANSWER                                                                              \
    "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"ok\"}]},"          \
    "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":3,"                    \
    "\"candidatesTokenCount\":1}}"

static fake_server *srv;
static seam_client *client;

static int start(void)
{
    if (tu_start_client_on(&srv, &client,
        "providers = {\n"
        "  oa = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"sk-test-provopts\";\n"
        "         options = { profile = \"openai\"; seed = 7; bogus_conf = 1;\n"
        "                     extra_body = { x_conf = \"c\"; }; }; };\n"
        "  vl = { plugin = \"openai\"; base_url = \"@URL@/v1\"; options = { profile = \"vllm\"; }; };\n"
        "  an = { plugin = \"anthropic\"; base_url = \"@URL@/v1\"; api_key = \"sk-ant-provopts\";\n"
        "         options = { nonsense = true; extra_body = { x_conf = 2; }; }; };\n"
        "  gm = { plugin = \"gemini\"; base_url = \"@URL@/v1beta\"; api_key = \"gm-provopts\"; };\n"
        "};\n") != 0)
        return -1;
    tu_log_capture(client);
    return 0;
}

/* One call with options_json to provider/model, the log cleared first so that
 * it holds this call's lines; the body the server got. */
static json_object *call_with(const char *provider, const char *model, const char *answer,
                              const char *options_json)
{
    tu_log_clear();
    fake_server_push_json(srv, 200, answer, NULL);
    seam_request *req = tu_user_request("hi");
    CU_ASSERT_EQUAL_FATAL(seam_request_set_provider_options(req, options_json), SEAM_OK);
    tu_call r = tu_run_generate(client, provider, model, req, 0);
    CU_ASSERT_EQUAL(tu_said(r.status, &r.err, "call failed"), SEAM_OK);
    free(r.summary);
    seam_request_free(req);
    return tu_last_body(srv);
}

/* The case: a flag nobody knows is not sent, and is reported. */
static void test_openai_unknown_flag_not_sent(void)
{
    json_object *b = call_with("oa", "gpt-4o", OA_ANSWER, "{\"my_flag\":true}");
    CU_ASSERT_FALSE(tu_json_has(b, "my_flag"));
    CU_ASSERT_EQUAL(tu_json_int(b, "seed"), 7); /* the conf's known field still goes */
    CU_ASSERT_TRUE(tu_log_has("provider oa: openai plugin: unknown provider option \"my_flag\" dropped"));
    CU_ASSERT_FALSE(tu_log_has("sk-test-provopts"));
    json_object_put(b);
}

static void test_openai_namespaces(void)
{
    json_object *b = call_with("oa", "gpt-4o", OA_ANSWER,
                               "{\"seed\":1,\"openai\":{\"seed\":3,\"top_p\":0.5},"
                               "\"oa\":{\"top_p\":0.25,\"user\":\"u-1\"},"
                               "\"anthropic\":{\"top_k\":5},\"gm\":{\"safetySettings\":[]},"
                               "\"cache_strategy\":\"system_and_3\"}");
    TU_ASSERT_MEMBERS(b,
        /* The namespace over the flat key, the conf name over the plugin id. */
        { "seed", "3" }, { "top_p", "0.25" }, { "user", "\"u-1\"" },
        /* Other providers' namespaces and seam's own keys stay off the wire. */
        { "openai", TU_ABSENT }, { "oa", TU_ABSENT }, { "anthropic", TU_ABSENT },
        { "top_k", TU_ABSENT }, { "gm", TU_ABSENT }, { "cache_strategy", TU_ABSENT });
    /* Another provider's namespace is no reason for a warning; the conf's
     * unknown key is. */
    CU_ASSERT_FALSE(tu_log_has("anthropic\" dropped"));
    CU_ASSERT_TRUE(tu_log_has("unknown provider option \"bogus_conf\" dropped"));
    json_object_put(b);
}

static void test_openai_unknown_in_namespace(void)
{
    json_object *b = call_with("oa", "gpt-4o", OA_ANSWER,
                               "{\"openai\":{\"reasoning_effortt\":\"low\",\"truncation\":\"auto\"}}");
    CU_ASSERT_FALSE(tu_json_has(b, "reasoning_effortt"));
    /* A field of the Responses API only, on Chat Completions. */
    CU_ASSERT_FALSE(tu_json_has(b, "truncation"));
    CU_ASSERT_TRUE(tu_log_has("\"reasoning_effortt\" dropped"));
    CU_ASSERT_TRUE(tu_log_has("\"truncation\" is not a field of /chat/completions"));
    json_object_put(b);
}

static void test_openai_extra_body(void)
{
    json_object *b = call_with("oa", "gpt-4o", OA_ANSWER,
                               "{\"openai\":{\"extra_body\":{\"x_vendor\":{\"a\":1},"
                               "\"stream_options\":null,\"seed\":11}},"
                               "\"extra_body\":{\"x_everyone\":1}}");
    TU_ASSERT_MEMBERS(b, { "x_vendor.a", "1" },
                      { "seed", "11" },           /* raw, over the known field */
                      { "x_conf", "\"c\"" },      /* the conf's extra_body */
                      { "x_everyone", TU_ABSENT }, /* for which provider? not sent */
                      { "extra_body", TU_ABSENT });
    CU_ASSERT_TRUE(tu_log_has("\"extra_body\" outside a provider's namespace dropped"));
    json_object_put(b);
}

/* Each profile's own fields: vLLM's top_k is known there, not on OpenAI. */
static void test_openai_profile_fields(void)
{
    json_object *b = call_with("vl", "qwen3", OA_ANSWER, "{\"openai\":{\"top_k\":20}}");
    CU_ASSERT_EQUAL(tu_json_int(b, "top_k"), 20);
    json_object_put(b);
    b = call_with("oa", "gpt-4o", OA_ANSWER, "{\"openai\":{\"top_k\":20}}");
    CU_ASSERT_FALSE(tu_json_has(b, "top_k"));
    CU_ASSERT_TRUE(tu_log_has("\"top_k\" dropped"));
    json_object_put(b);
}

static void test_anthropic_namespaces(void)
{
    json_object *b = call_with("an", "claude-sonnet-4-5", TU_ANTHROPIC_OK,
                               "{\"anthropic\":{\"top_k\":5,\"my_flag\":1,"
                               "\"extra_body\":{\"x_raw\":true}},"
                               "\"an\":{\"top_k\":6},\"openai\":{\"seed\":1},\"odd\":2}");
    TU_ASSERT_MEMBERS(b, { "top_k", "6" }, { "x_raw", "true" }, { "x_conf", "2" },
                      { "my_flag", TU_ABSENT }, { "seed", TU_ABSENT }, { "odd", TU_ABSENT });
    CU_ASSERT_TRUE(tu_log_has("provider an: anthropic plugin: unknown provider option \"my_flag\""));
    CU_ASSERT_TRUE(tu_log_has("anthropic plugin: unknown provider option \"odd\" dropped"));
    CU_ASSERT_TRUE(tu_log_has("anthropic plugin: unknown provider option \"nonsense\" dropped"));
    json_object_put(b);
}

static void test_gemini_namespaces(void)
{
    json_object *b = call_with("gm", "gemini-2.5-flash", GM_ANSWER,
                               "{\"gemini\":{\"generationConfig\":{\"topK\":3},\"bogus\":1,"
                               "\"extra_body\":{\"labels\":{\"team\":\"x\"}}},"
                               "\"gm\":{\"generationConfig\":{\"topP\":0.5}},"
                               "\"openai\":{\"seed\":1}}");
    TU_ASSERT_MEMBERS(b, { "generationConfig.topK", "3" }, { "generationConfig.topP", "0.5" },
                      { "labels.team", "\"x\"" },
                      { "bogus", TU_ABSENT }, { "seed", TU_ABSENT }, { "openai", TU_ABSENT });
    CU_ASSERT_TRUE(tu_log_has("provider gm: gemini plugin: unknown provider option \"bogus\""));
    json_object_put(b);
}

/* A session's flags and a call's flags for the same namespace are merged
 * member by member, the call's over the session's. */
static void test_session_merges_namespaces(void)
{
    seam_session_options so = { .size = sizeof so, .provider = "oa", .model = "gpt-4o",
                                .provider_flags_json = "{\"openai\":{\"seed\":4,\"user\":\"s\"}}" };
    seam_session *s = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_session_new(client, &so, &s, &err), SEAM_OK);
    fake_server_push_json(srv, 200, OA_ANSWER, NULL);
    seam_send_options o = { .size = sizeof o,
                            .provider_flags_json = "{\"openai\":{\"seed\":5}}" };
    CU_ASSERT_EQUAL_FATAL(seam_session_append_user_text(s, "hi"), SEAM_OK);
    seam_result *res = NULL;
    int rc = seam_session_send(s, &o, &res, &err);
    CU_ASSERT_EQUAL(rc, SEAM_OK);
    json_object *b = tu_last_body(srv);
    CU_ASSERT_EQUAL(tu_json_int(b, "seed"), 5);
    TU_STR_EQ(tu_json_str(b, "user"), "s");
    json_object_put(b);
    seam_result_free(res);
    seam_session_free(s);
}

static const tu_test tests[] = {
    { "openai: an unknown flag is not sent, and is logged", test_openai_unknown_flag_not_sent },
    { "openai: namespaces by plugin id and conf name", test_openai_namespaces },
    { "openai: unknown keys in the namespace, fields of the other wire", test_openai_unknown_in_namespace },
    { "openai: extra_body per namespace and in the conf", test_openai_extra_body },
    { "openai: a profile's own fields", test_openai_profile_fields },
    { "anthropic: namespaces, unknown keys, extra_body", test_anthropic_namespaces },
    { "gemini: namespaces, unknown keys, extra_body", test_gemini_namespaces },
    { "session: namespaces merged member by member", test_session_merges_namespaces },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("provider_options", tests, start);
}
