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
#include <pthread.h>
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
#define AN_ANSWER                                                                              \
    "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\"," \
    "\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"stop_reason\":\"end_turn\","            \
    "\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}"
#define GM_ANSWER                                                                              \
    "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"ok\"}]},"          \
    "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":3,"                    \
    "\"candidatesTokenCount\":1}}"

static fake_server *srv;
static seam_client *client;

/* The client's log, for the warnings about dropped options. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char logged[8192];

static void on_log(void *ud, int level, const char *message)
{
    (void)ud;
    pthread_mutex_lock(&log_lock);
    size_t n = strlen(logged);
    snprintf(logged + n, sizeof logged - n, "%d %s\n", level, message);
    pthread_mutex_unlock(&log_lock);
}

static void log_clear(void)
{
    pthread_mutex_lock(&log_lock);
    logged[0] = '\0';
    pthread_mutex_unlock(&log_lock);
}

static int log_has(const char *text)
{
    pthread_mutex_lock(&log_lock);
    int has = strstr(logged, text) != NULL;
    pthread_mutex_unlock(&log_lock);
    return has;
}

static int start(void)
{
    srv = tu_server_start();
    if (!srv)
        return -1;
    client = tu_client_at_end(tu_client_on(srv,
        "providers = {\n"
        "  oa = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"sk-test-provopts\";\n"
        "         options = { profile = \"openai\"; seed = 7; bogus_conf = 1;\n"
        "                     extra_body = { x_conf = \"c\"; }; }; };\n"
        "  vl = { plugin = \"openai\"; base_url = \"@URL@/v1\"; options = { profile = \"vllm\"; }; };\n"
        "  an = { plugin = \"anthropic\"; base_url = \"@URL@/v1\"; api_key = \"sk-ant-provopts\";\n"
        "         options = { nonsense = true; extra_body = { x_conf = 2; }; }; };\n"
        "  gm = { plugin = \"gemini\"; base_url = \"@URL@/v1beta\"; api_key = \"gm-provopts\"; };\n"
        "};\n"));
    if (client)
        seam_client_set_log(client, on_log, NULL);
    return client ? 0 : -1;
}

/* One call with options_json to provider/model; the body the server got. */
static json_object *call_with(const char *provider, const char *model, const char *answer,
                              const char *options_json)
{
    fake_server_push_json(srv, 200, answer, NULL);
    seam_request *req = tu_user_request("hi");
    CU_ASSERT_EQUAL_FATAL(seam_request_set_provider_options(req, options_json), SEAM_OK);
    tu_call r = tu_run_generate(client, provider, model, req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    if (r.status != SEAM_OK)
        fprintf(stderr, "call failed: %s\n", r.err.message);
    free(r.summary);
    seam_request_free(req);
    return tu_last_body(srv);
}

/* The case: a flag nobody knows is not sent, and is reported. */
static void test_openai_unknown_flag_not_sent(void)
{
    log_clear();
    json_object *b = call_with("oa", "gpt-4o", OA_ANSWER, "{\"my_flag\":true}");
    CU_ASSERT_FALSE(tu_json_has(b, "my_flag"));
    CU_ASSERT_EQUAL(tu_json_int(b, "seed"), 7); /* the conf's known field still goes */
    CU_ASSERT_TRUE(log_has("provider oa: openai plugin: unknown provider option \"my_flag\" dropped"));
    CU_ASSERT_FALSE(log_has("sk-test-provopts"));
    json_object_put(b);
}

static void test_openai_namespaces(void)
{
    log_clear();
    json_object *b = call_with("oa", "gpt-4o", OA_ANSWER,
                               "{\"seed\":1,\"openai\":{\"seed\":3,\"top_p\":0.5},"
                               "\"oa\":{\"top_p\":0.25,\"user\":\"u-1\"},"
                               "\"anthropic\":{\"top_k\":5},\"gm\":{\"safetySettings\":[]},"
                               "\"cache_strategy\":\"system_and_3\"}");
    /* The namespace over the flat key, the conf name over the plugin id. */
    CU_ASSERT_EQUAL(tu_json_int(b, "seed"), 3);
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(tu_json_at(b, "top_p")), 0.25, 1e-9);
    TU_STR_EQ(tu_json_str(b, "user"), "u-1");
    /* Other providers' namespaces and seam's own keys stay off the wire. */
    CU_ASSERT_FALSE(tu_json_has(b, "openai"));
    CU_ASSERT_FALSE(tu_json_has(b, "oa"));
    CU_ASSERT_FALSE(tu_json_has(b, "anthropic"));
    CU_ASSERT_FALSE(tu_json_has(b, "top_k"));
    CU_ASSERT_FALSE(tu_json_has(b, "gm"));
    CU_ASSERT_FALSE(tu_json_has(b, "cache_strategy"));
    /* Another provider's namespace is no reason for a warning; the conf's
     * unknown key is. */
    CU_ASSERT_FALSE(log_has("anthropic\" dropped"));
    CU_ASSERT_TRUE(log_has("unknown provider option \"bogus_conf\" dropped"));
    json_object_put(b);
}

static void test_openai_unknown_in_namespace(void)
{
    log_clear();
    json_object *b = call_with("oa", "gpt-4o", OA_ANSWER,
                               "{\"openai\":{\"reasoning_effortt\":\"low\",\"truncation\":\"auto\"}}");
    CU_ASSERT_FALSE(tu_json_has(b, "reasoning_effortt"));
    /* A field of the Responses API only, on Chat Completions. */
    CU_ASSERT_FALSE(tu_json_has(b, "truncation"));
    CU_ASSERT_TRUE(log_has("\"reasoning_effortt\" dropped"));
    CU_ASSERT_TRUE(log_has("\"truncation\" is not a field of /chat/completions"));
    json_object_put(b);
}

static void test_openai_extra_body(void)
{
    log_clear();
    json_object *b = call_with("oa", "gpt-4o", OA_ANSWER,
                               "{\"openai\":{\"extra_body\":{\"x_vendor\":{\"a\":1},"
                               "\"stream_options\":null,\"seed\":11}},"
                               "\"extra_body\":{\"x_everyone\":1}}");
    CU_ASSERT_EQUAL(tu_json_int(b, "x_vendor.a"), 1);
    CU_ASSERT_EQUAL(tu_json_int(b, "seed"), 11);        /* raw, over the known field */
    TU_STR_EQ(tu_json_str(b, "x_conf"), "c");          /* the conf's extra_body */
    CU_ASSERT_FALSE(tu_json_has(b, "x_everyone"));     /* for which provider? not sent */
    CU_ASSERT_FALSE(tu_json_has(b, "extra_body"));
    CU_ASSERT_TRUE(log_has("\"extra_body\" outside a provider's namespace dropped"));
    json_object_put(b);
}

/* Each profile's own fields: vLLM's top_k is known there, not on OpenAI. */
static void test_openai_profile_fields(void)
{
    log_clear();
    json_object *b = call_with("vl", "qwen3", OA_ANSWER, "{\"openai\":{\"top_k\":20}}");
    CU_ASSERT_EQUAL(tu_json_int(b, "top_k"), 20);
    json_object_put(b);
    b = call_with("oa", "gpt-4o", OA_ANSWER, "{\"openai\":{\"top_k\":20}}");
    CU_ASSERT_FALSE(tu_json_has(b, "top_k"));
    CU_ASSERT_TRUE(log_has("\"top_k\" dropped"));
    json_object_put(b);
}

static void test_anthropic_namespaces(void)
{
    log_clear();
    json_object *b = call_with("an", "claude-sonnet-4-5", AN_ANSWER,
                               "{\"anthropic\":{\"top_k\":5,\"my_flag\":1,"
                               "\"extra_body\":{\"x_raw\":true}},"
                               "\"an\":{\"top_k\":6},\"openai\":{\"seed\":1},\"odd\":2}");
    CU_ASSERT_EQUAL(tu_json_int(b, "top_k"), 6);
    CU_ASSERT_TRUE(json_object_get_boolean(tu_json_at(b, "x_raw")));
    CU_ASSERT_EQUAL(tu_json_int(b, "x_conf"), 2);
    CU_ASSERT_FALSE(tu_json_has(b, "my_flag"));
    CU_ASSERT_FALSE(tu_json_has(b, "seed"));
    CU_ASSERT_FALSE(tu_json_has(b, "odd"));
    CU_ASSERT_TRUE(log_has("provider an: anthropic plugin: unknown provider option \"my_flag\""));
    CU_ASSERT_TRUE(log_has("anthropic plugin: unknown provider option \"odd\" dropped"));
    CU_ASSERT_TRUE(log_has("anthropic plugin: unknown provider option \"nonsense\" dropped"));
    json_object_put(b);
}

static void test_gemini_namespaces(void)
{
    log_clear();
    json_object *b = call_with("gm", "gemini-2.5-flash", GM_ANSWER,
                               "{\"gemini\":{\"generationConfig\":{\"topK\":3},\"bogus\":1,"
                               "\"extra_body\":{\"labels\":{\"team\":\"x\"}}},"
                               "\"gm\":{\"generationConfig\":{\"topP\":0.5}},"
                               "\"openai\":{\"seed\":1}}");
    CU_ASSERT_EQUAL(tu_json_int(b, "generationConfig.topK"), 3);
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(tu_json_at(b, "generationConfig.topP")), 0.5,
                           1e-9);
    TU_STR_EQ(tu_json_str(b, "labels.team"), "x");
    CU_ASSERT_FALSE(tu_json_has(b, "bogus"));
    CU_ASSERT_FALSE(tu_json_has(b, "seed"));
    CU_ASSERT_FALSE(tu_json_has(b, "openai"));
    CU_ASSERT_TRUE(log_has("provider gm: gemini plugin: unknown provider option \"bogus\""));
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
