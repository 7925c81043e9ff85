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

/* A NULL-ended list of log texts. */
#define LINES(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NO_LINES ((const char *const[]){ NULL })

/* One call with a request's options: the body members it must (not) carry and
 * what the client's log must (not) hold afterwards. */
typedef struct options_case {
    const char *name;
    const char *provider, *model, *answer;
    const char *options_json;
    const tu_member *body;
    const char *const *logged;
    const char *const *not_logged;
} options_case;

static const options_case cases[] = {
    { "openai: the issue's case, a flag nobody knows is not sent and is logged",
      "oa", "gpt-4o", OA_ANSWER, "{\"my_flag\":true}",
      TU_MEMBERS({ "my_flag", TU_ABSENT }, { "seed", "7" } /* the conf's known field still goes */),
      LINES("provider oa: openai plugin: unknown provider option \"my_flag\" dropped"),
      LINES("sk-test-provopts") },
    { "openai: namespaces by plugin id and conf name",
      "oa", "gpt-4o", OA_ANSWER,
      "{\"seed\":1,\"openai\":{\"seed\":3,\"top_p\":0.5},"
      "\"oa\":{\"top_p\":0.25,\"user\":\"u-1\"},"
      "\"anthropic\":{\"top_k\":5},\"gm\":{\"safetySettings\":[]},"
      "\"cache_strategy\":\"system_and_3\"}",
      TU_MEMBERS(/* The namespace over the flat key, the conf name over the plugin id. */
                 { "seed", "3" }, { "top_p", "0.25" }, { "user", "\"u-1\"" },
                 /* Other providers' namespaces and seam's own keys stay off the wire. */
                 { "openai", TU_ABSENT }, { "oa", TU_ABSENT }, { "anthropic", TU_ABSENT },
                 { "top_k", TU_ABSENT }, { "gm", TU_ABSENT }, { "cache_strategy", TU_ABSENT }),
      /* Another provider's namespace is no reason for a warning; the conf's
       * unknown key is. */
      LINES("unknown provider option \"bogus_conf\" dropped"),
      LINES("anthropic\" dropped") },
    { "openai: unknown keys in the namespace, fields of the other wire",
      "oa", "gpt-4o", OA_ANSWER, "{\"openai\":{\"reasoning_effortt\":\"low\",\"truncation\":\"auto\"}}",
      /* truncation: a field of the Responses API only, on Chat Completions */
      TU_MEMBERS({ "reasoning_effortt", TU_ABSENT }, { "truncation", TU_ABSENT }),
      LINES("\"reasoning_effortt\" dropped", "\"truncation\" is not a field of /chat/completions"),
      NO_LINES },
    { "openai: extra_body per namespace and in the conf",
      "oa", "gpt-4o", OA_ANSWER,
      "{\"openai\":{\"extra_body\":{\"x_vendor\":{\"a\":1},"
      "\"stream_options\":null,\"seed\":11}},"
      "\"extra_body\":{\"x_everyone\":1}}",
      TU_MEMBERS({ "x_vendor.a", "1" },
                 { "seed", "11" },           /* raw, over the known field */
                 { "x_conf", "\"c\"" },      /* the conf's extra_body */
                 { "x_everyone", TU_ABSENT }, /* for which provider? not sent */
                 { "extra_body", TU_ABSENT }),
      LINES("\"extra_body\" outside a provider's namespace dropped"),
      NO_LINES },
    /* Each profile's own fields: vLLM's top_k is known there, not on OpenAI. */
    { "openai: a profile's own fields (vLLM)",
      "vl", "qwen3", OA_ANSWER, "{\"openai\":{\"top_k\":20}}",
      TU_MEMBERS({ "top_k", "20" }), NO_LINES, NO_LINES },
    { "openai: a profile's own fields (OpenAI)",
      "oa", "gpt-4o", OA_ANSWER, "{\"openai\":{\"top_k\":20}}",
      TU_MEMBERS({ "top_k", TU_ABSENT }), LINES("\"top_k\" dropped"), NO_LINES },
    { "anthropic: namespaces, unknown keys, extra_body",
      "an", "claude-sonnet-4-5", TU_ANTHROPIC_OK,
      "{\"anthropic\":{\"top_k\":5,\"my_flag\":1,"
      "\"extra_body\":{\"x_raw\":true}},"
      "\"an\":{\"top_k\":6},\"openai\":{\"seed\":1},\"odd\":2}",
      TU_MEMBERS({ "top_k", "6" }, { "x_raw", "true" }, { "x_conf", "2" },
                 { "my_flag", TU_ABSENT }, { "seed", TU_ABSENT }, { "odd", TU_ABSENT }),
      LINES("provider an: anthropic plugin: unknown provider option \"my_flag\"",
            "anthropic plugin: unknown provider option \"odd\" dropped",
            "anthropic plugin: unknown provider option \"nonsense\" dropped"),
      NO_LINES },
    { "gemini: namespaces, unknown keys, extra_body",
      "gm", "gemini-2.5-flash", GM_ANSWER,
      "{\"gemini\":{\"generationConfig\":{\"topK\":3},\"bogus\":1,"
      "\"extra_body\":{\"labels\":{\"team\":\"x\"}}},"
      "\"gm\":{\"generationConfig\":{\"topP\":0.5}},"
      "\"openai\":{\"seed\":1}}",
      TU_MEMBERS({ "generationConfig.topK", "3" }, { "generationConfig.topP", "0.5" },
                 { "labels.team", "\"x\"" },
                 { "bogus", TU_ABSENT }, { "seed", TU_ABSENT }, { "openai", TU_ABSENT }),
      LINES("provider gm: gemini plugin: unknown provider option \"bogus\""),
      NO_LINES },
};

/* Every case's call, one assertion a body member and a log text, each failure
 * named by its case. */
static void test_options_per_provider(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const options_case *c = &cases[i];
        json_object *b = call_with(c->provider, c->model, c->answer, c->options_json);
        if (!tu_members_are(b, c->body, __FILE__, __LINE__))
            fprintf(stderr, "  in case \"%s\"\n", c->name);
        for (const char *const *l = c->logged; *l; l++) {
            if (!tu_log_has(*l))
                fprintf(stderr, "\n  case \"%s\": the log lacks \"%s\"\n", c->name, *l);
            CU_ASSERT_TRUE(tu_log_has(*l));
        }
        for (const char *const *l = c->not_logged; *l; l++) {
            if (tu_log_has(*l))
                fprintf(stderr, "\n  case \"%s\": the log holds \"%s\"\n", c->name, *l);
            CU_ASSERT_FALSE(tu_log_has(*l));
        }
        json_object_put(b);
    }
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
    { "options per provider (a table of calls)", test_options_per_provider },
    { "session: namespaces merged member by member", test_session_merges_namespaces },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("provider_options", tests, start);
}
