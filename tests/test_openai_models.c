/* test_openai_models.c — the OpenAI-compatible codec's internal tables, unit
 * tested by building the plugin's sources into this program and including
 * its internal.h (they are internal and no core API reads them): profile
 * inference and options (options.c), capability flags per model family and
 * their conf overrides, OpenAI's model rules, effort ladder and endpoint
 * choice (models.c), and small helpers. Duration parsing is the SDK's, tested
 * by test_codec. */
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

/* ---- the codec's tables, unit tested --------------------------------------------- */

/* Options the plugin refuses for provider "prov": no instance, a conf error
 * whose message holds needle. */
static void expect_conf_refused(const char *options, const char *needle)
{
    seam_provider_config cfg = {sizeof cfg, "prov", NULL, options};
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_PTR_NULL(oa_create(&cfg, &err));
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CONF);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, needle));
}

static void test_profile_inference(void)
{
    static const struct {
        const char *name, *base_url, *options, *profile, *url;
    } cases[] = {
        {"openai", NULL, "{}", "openai", "https://api.openai.com/v1"},
        {"deepseek", NULL, "{}", "deepseek", "https://api.deepseek.com/v1"},
        {"groq", NULL, "{}", "groq", "https://api.groq.com/openai/v1"},
        {"local", "http://localhost:11434/v1/", "{}", "ollama", "http://localhost:11434/v1"},
        {"x", "https://api.mistral.ai/v1", "{}", "mistral", "https://api.mistral.ai/v1"},
        {"x", "https://api.x.ai/v1", "{}", "xai", "https://api.x.ai/v1"},
        {"x", "https://openrouter.ai/api/v1", "{}", "openrouter", "https://openrouter.ai/api/v1"},
        {"x", "https://API.DeepSeek.com", "{}", "deepseek", "https://API.DeepSeek.com"},
        {"x", "https://notdeepseek.com.example/v1", "{}", "openai", "https://notdeepseek.com.example/v1"},
        {"x", "http://10.0.0.5:8000/v1", "{\"profile\":\"vllm\"}", "vllm", "http://10.0.0.5:8000/v1"},
        {"myollama", NULL, "{\"profile\":\"ollama\"}", "ollama", "http://127.0.0.1:11434/v1"},
        {"x", "https://api.groq.com/openai/v1", "{\"profile\":\"OpenAI\"}", "openai", "https://api.groq.com/openai/v1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        oa_instance *in = create_with(cases[i].name, cases[i].base_url, cases[i].options);
        CU_ASSERT_PTR_NOT_NULL_FATAL(in);
        CU_ASSERT_STRING_EQUAL(in->profile->id, cases[i].profile);
        CU_ASSERT_STRING_EQUAL(in->base_url, cases[i].url);
        /* no body field among the options: no read-back merge per request */
        CU_ASSERT_PTR_NULL(in->body_options);
        oa_destroy(in);
    }
    oa_instance *with_field = create_with("x", NULL, "{\"profile\":\"vllm\",\"top_k\":5}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(with_field);
    TU_ASSERT_STR(with_field->body_options, "{\"top_k\":5}");
    oa_destroy(with_field);
    /* think_tags: on where content may carry <think>, off elsewhere; the option wins */
    static const struct {
        const char *name, *base_url, *options;
        int think;
    } think[] = {
        {"openai", NULL, "{}", 0},
        {"x", "https://api.openai.com/v1", "{}", 0},
        {"x", "http://127.0.0.1:8080/v1", "{\"profile\":\"openai\"}", 0},
        {"x", "https://api.deepseek.com", "{}", 0},
        {"x", "https://api.groq.com/openai/v1", "{}", 1},
        {"x", "http://localhost:11434/v1", "{}", 1},
        {"x", "http://10.0.0.5:8000/v1", "{\"profile\":\"vllm\"}", 1},
        {"llamacpp", "http://127.0.0.1:8080/v1", "{}", 1},
        {"lmstudio", "http://localhost:1234/v1", "{}", 1},
        {"x", "http://[::1]:8080/v1", "{}", 1},
        {"x", "http://192.168.1.20:8080/v1", "{}", 1},
        {"x", "http://172.20.0.3:8080/v1", "{}", 1},
        {"x", "http://172.32.0.3:8080/v1", "{}", 0},
        {"x", "http://127.0.0.1.example.com/v1", "{}", 0},
        {"x", "https://llm.example.com/v1", "{}", 0},
        {"x", "http://localhost:11434/v1", "{\"think_tags\":false}", 0},
        {"x", "https://api.openai.com/v1", "{\"think_tags\":true}", 1},
    };
    for (size_t i = 0; i < sizeof think / sizeof think[0]; i++) {
        oa_instance *in = create_with(think[i].name, think[i].base_url, think[i].options);
        CU_ASSERT_PTR_NOT_NULL_FATAL(in);
        if (in->think_tags != think[i].think)
            fprintf(stderr, "\nthink_tags of %s %s: %d\n", think[i].base_url ? think[i].base_url : "-",
                    think[i].options, in->think_tags);
        CU_ASSERT_EQUAL(in->think_tags, think[i].think);
        oa_destroy(in);
    }
    /* bad plugin options are conf errors naming the provider */
    static const char *const bad[] = {"{\"profile\":\"nope\"}", "{\"profile\":3}",
                                      "{\"max_tokens_param\":\"tokens\"}", "{\"stream_usage\":\"yes\"}",
                                      "{\"headers\":{\"X\":1}}", "{\"headers\":{\"authorization\":\"Bearer x\"}}",
                                      "{\"capabilities\":[]}", "[]", "{\"think_tags\":\"yes\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_conf_refused(bad[i], "prov");
}

static void test_capabilities(void)
{
    oa_instance *in = create_with("openai", NULL, "{}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    seam_capabilities c;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    CU_ASSERT_EQUAL(oa_capabilities(in, "gpt-4o-mini", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.tools && c.parallel_tool_calls && c.vision && c.structured_output && c.streaming);
    CU_ASSERT_FALSE(c.reasoning);
    CU_ASSERT_EQUAL(c.context_window, 128000);
    CU_ASSERT_EQUAL(c.size, sizeof c);
    CU_ASSERT_EQUAL(oa_capabilities(in, "o3-mini-2025-01-31", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.reasoning && c.tools);
    CU_ASSERT_FALSE(c.vision);
    CU_ASSERT_EQUAL(oa_capabilities(in, "o3", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.reasoning && c.vision);
    CU_ASSERT_EQUAL(oa_capabilities(in, "gpt-4.1-nano", &c), SEAM_OK);
    CU_ASSERT_EQUAL(c.context_window, 1047576);
    CU_ASSERT_EQUAL(oa_capabilities(in, "deepseek-reasoner", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.reasoning && c.prompt_cache);
    CU_ASSERT_FALSE(c.vision);
    CU_ASSERT_EQUAL(oa_capabilities(in, "deepseek/deepseek-chat", &c), SEAM_OK); /* OpenRouter ids */
    CU_ASSERT_FALSE(c.reasoning);
    CU_ASSERT_TRUE(c.tools);
    CU_ASSERT_EQUAL(oa_capabilities(in, "qwen3:8b", &c), SEAM_OK); /* Ollama tags */
    CU_ASSERT_TRUE(c.reasoning);
    CU_ASSERT_EQUAL(oa_capabilities(in, "gpt-6-luna", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.reasoning && c.tools && c.vision && c.structured_output);
    CU_ASSERT_EQUAL(c.context_window, 1050000);
    CU_ASSERT_EQUAL(c.max_output_tokens, 128000);
    CU_ASSERT_EQUAL(oa_capabilities(in, "gpt-6.2-sol", &c), SEAM_OK);
    CU_ASSERT_EQUAL(c.context_window, 1050000);
    CU_ASSERT_EQUAL(oa_capabilities(in, "gpt-5.6-terra", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.reasoning);
    CU_ASSERT_EQUAL(c.context_window, 1050000);
    CU_ASSERT_EQUAL(oa_capabilities(in, "gpt-5.4-mini", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.reasoning);
    CU_ASSERT_EQUAL(c.context_window, 0); /* not checked: the catalog's applies */
    CU_ASSERT_EQUAL(oa_capabilities(in, "o10-hypothetical", &c), SEAM_OK); /* not o1 */
    CU_ASSERT_FALSE(c.reasoning);
    CU_ASSERT_TRUE(c.tools && c.streaming);
    CU_ASSERT_EQUAL(c.context_window, 0);
    oa_destroy(in);

    /* conf overrides: for every model, then per model prefix */
    in = create_with("local", "http://127.0.0.1:11434/v1",
                     "{\"capabilities\":{\"context_window\":32768,\"tools\":false,"
                     "\"models\":[{\"match\":\"llava\",\"vision\":true,\"context_window\":4096}]}}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_EQUAL(oa_capabilities(in, "mystery-model", &c), SEAM_OK);
    CU_ASSERT_EQUAL(c.context_window, 32768);
    CU_ASSERT_FALSE(c.tools);
    CU_ASSERT_FALSE(c.vision);
    CU_ASSERT_EQUAL(oa_capabilities(in, "llava:13b", &c), SEAM_OK);
    CU_ASSERT_TRUE(c.vision);
    CU_ASSERT_EQUAL(c.context_window, 4096);
    /* an older, smaller struct is not written past */
    unsigned char buf[sizeof(seam_capabilities) + 8];
    memset(buf, 0xAB, sizeof buf);
    seam_capabilities *small = (seam_capabilities *)(void *)buf;
    small->size = (uint32_t)offsetof(seam_capabilities, context_window);
    CU_ASSERT_EQUAL(oa_capabilities(in, "llava", small), SEAM_OK);
    CU_ASSERT_EQUAL(small->size, offsetof(seam_capabilities, context_window));
    CU_ASSERT_EQUAL(buf[offsetof(seam_capabilities, context_window)], 0xAB);
    oa_destroy(in);
}

/* OpenAI's model rules and the endpoint choice, from the table. */
static void test_model_rules(void)
{
    oa_instance *in = create_with("openai", NULL, "{}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_EQUAL(in->api, OA_API_AUTO);
    CU_ASSERT_STRING_EQUAL(in->reasoning_summary, "auto");
    static const struct {
        const char *model;
        int reasoning;
        unsigned efforts;
        int tools_need_none;
    } cases[] = {
        {"gpt-6-luna", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"GPT-6-Luna", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-6-sol", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-6-astra", 1, EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-6.1-sol", 1, EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-6.1-terra", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-6.2-astra", 1, EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-6.2-sol-2026-11-17", 1, EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-5.6-luna", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX, 1},
        {"gpt-5.5", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH, 1},
        {"gpt-5.4-nano", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH, 1},
        {"gpt-5.2", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH, 0},
        {"gpt-5.1-codex", 1, EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH, 0},
        {"gpt-5.1-chat-latest", 1, 0, 0},
        {"gpt-5-chat-latest", 0, 0, 0},
        {"gpt-5-nano", 1, EF_MINIMAL | EF_LOW | EF_MEDIUM | EF_HIGH, 0},
        {"o4-mini", 1, EF_LOW | EF_MEDIUM | EF_HIGH, 0},
        {"gpt-4.1", 0, 0, 0},
        {"gpt-60", 0, 0, 0}, /* not a gpt-6 at a name boundary */
        {"deepseek-chat", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        oa_model_rules r;
        oa_model_rules_of(in, cases[i].model, &r);
        if (r.reasoning != cases[i].reasoning || r.efforts != cases[i].efforts ||
            r.tools_need_none != cases[i].tools_need_none)
            fprintf(stderr, "\n%s: reasoning %d efforts %#x tools_need_none %d\n", cases[i].model,
                    r.reasoning, r.efforts, r.tools_need_none);
        CU_ASSERT_EQUAL(r.reasoning, cases[i].reasoning);
        CU_ASSERT_EQUAL(r.efforts, cases[i].efforts);
        CU_ASSERT_EQUAL(r.tools_need_none, cases[i].tools_need_none);
    }

    /* the endpoint: auto sends only tools on a model refusing "none" to /responses */
    seam_request *req = tu_user_request("x");
    seam_request_set_model(req, "gpt-6.1-sol");
    CU_ASSERT_FALSE(oa_use_responses(in, req));
    seam_request_add_tool(req, "t", NULL, NULL);
    CU_ASSERT_TRUE(oa_use_responses(in, req));
    seam_request_set_model(req, "gpt-6-luna");
    CU_ASSERT_FALSE(oa_use_responses(in, req));
    oa_destroy(in);
    in = create_with("x", "https://api.groq.com/openai/v1", "{}"); /* not OpenAI's rules */
    seam_request_set_model(req, "gpt-6.1-sol");
    CU_ASSERT_FALSE(oa_use_responses(in, req));
    oa_destroy(in);
    in = create_with("x", NULL, "{\"api\":\"chat\",\"reasoning_summary\":\"none\"}");
    CU_ASSERT_FALSE(oa_use_responses(in, req));
    CU_ASSERT_PTR_NULL(in->reasoning_summary);
    oa_destroy(in);
    in = create_with("x", "http://127.0.0.1:8000/v1", "{\"profile\":\"vllm\",\"api\":\"responses\",\"reasoning_summary\":\"detailed\"}");
    seam_request_set_model(req, "Qwen/Qwen3-8B");
    CU_ASSERT_TRUE(oa_use_responses(in, req));
    CU_ASSERT_STRING_EQUAL(in->reasoning_summary, "detailed");
    oa_destroy(in);
    seam_request_free(req);
    static const char *const bad[] = {"{\"api\":\"completions\"}", "{\"api\":true}",
                                      "{\"reasoning_summary\":\"short\"}", "{\"reasoning_summary\":1}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_conf_refused(bad[i], "options.");

    /* the effort ladder: the highest accepted level at or below the budget's */
    unsigned all = EF_NONE | EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH | EF_MAX;
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 1, 1), "low");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 4095, 1), "low");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 4096, 1), "medium");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 16384, 1), "high");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 32768, 1), "xhigh");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 65535, 1), "xhigh");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 65536, 1), "max");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(all, 65536, 0), "xhigh");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(EF_LOW | EF_MEDIUM | EF_HIGH, 1000000, 1), "high");
    CU_ASSERT_STRING_EQUAL(oa_effort_for_budget(EF_HIGH, 10, 1), "high"); /* none lower: the next up */
    CU_ASSERT_PTR_NULL(oa_effort_for_budget(EF_NONE | EF_MINIMAL, 10, 1));
    CU_ASSERT_PTR_NULL(oa_effort_for_budget(EF_MAX, 10, 0));
}

/* oa_parse_duration_ms is seam_parse_duration_ms, whose vectors test_codec
 * checks. */
static void test_helpers(void)
{
    char s[200] = "Incorrect API key provided: sk-proj-abc***xyz. See docs; also gsk_1234567890abcdef, not task-sk-x.";
    oa_scrub_keys(s);
    CU_ASSERT_STRING_EQUAL(s, "Incorrect API key provided: <redacted>. See docs; also <redacted>, not task-sk-x.");

    CU_ASSERT_EQUAL(oa_map_finish("stop"), SEAM_STOP_STOP);
    CU_ASSERT_EQUAL(oa_map_finish("length"), SEAM_STOP_LENGTH);
    CU_ASSERT_EQUAL(oa_map_finish("tool_calls"), SEAM_STOP_TOOL_USE);
    CU_ASSERT_EQUAL(oa_map_finish("function_call"), SEAM_STOP_TOOL_USE);
    CU_ASSERT_EQUAL(oa_map_finish("content_filter"), SEAM_STOP_CONTENT_FILTER);
    CU_ASSERT_EQUAL(oa_map_finish("error"), SEAM_STOP_ERROR);
}

static const tu_test tests[] = {
    { "unit: profile inference and options", test_profile_inference },
    { "unit: capabilities", test_capabilities },
    { "unit: OpenAI model rules and the endpoint", test_model_rules },
    { "unit: helpers", test_helpers },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("openai_models", tests, NULL);
}
