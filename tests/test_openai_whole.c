/* test_openai_whole.c — the openai plugin's non-streamed Chat Completions
 * answers through the in-place scanner (plugins/openai/decode_scan.c,
 * oa_scan_response): a table of bodies each decoded with the scanner on and
 * with it off (json-c) must give the same chunks, the usual shapes must be
 * taken by the scanner and the unusual ones left to json-c; and the same
 * bodies served by the fake server through seam_generate and the real
 * plugin give the results a caller expects. Built with the plugin's sources
 * (like test_openai) to reach the decoder and the scanner switch. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

#include "../plugins/openai/internal.h"
#include "transport.h" /* struct seam_emitter: the chunks are recorded here, not queued */

static fake_server *srv;
static seam_client *client;

static int start(void)
{
    return tu_start_client_on(&srv, &client,
        "providers = {\n"
        "  oa = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"sk-t\"; };\n"
        "  ol = { plugin = \"openai\"; base_url = \"@URL@/v1\"; options = { profile = \"ollama\"; }; };\n"
        "};\n");
}

/* ---- the bodies ------------------------------------------------------------------ */

typedef struct whole_case {
    const char *name;
    const char *body;
    int scanned;         /* the scanner takes it (else json-c does) */
    const char *summary; /* tu_summary of seam_generate's result; NULL: the call fails */
} whole_case;

#define USAGE_DETAILS                                                                         \
    "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":8,\"total_tokens\":20,"              \
    "\"prompt_tokens_details\":{\"cached_tokens\":4,\"audio_tokens\":0},"                       \
    "\"completion_tokens_details\":{\"reasoning_tokens\":2,\"accepted_prediction_tokens\":0}}"

static const whole_case cases[] = {
    {"text, usage with details",
     "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"gpt-4o\","
     "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Paris \\u00e9\\n\\\"x\\\"\","
     "\"refusal\":null,\"annotations\":[]},\"logprobs\":null,\"finish_reason\":\"stop\"}]," USAGE_DETAILS
     ",\"service_tier\":\"default\",\"system_fingerprint\":\"fp_1\"}",
     1,
     "{\"text\":\"Paris \xc3\xa9\\n\\\"x\\\"\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{\"in\":8,\"out\":8,"
     "\"cache_read\":4,\"reasoning\":2}}"},
    {"two tool calls, null content",
     "{\"id\":\"chatcmpl-2\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,"
     "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"add\","
     "\"arguments\":\"{\\\"a\\\":2, \\\"b\\\":3}\"}},{\"index\":0,\"id\":\"call_2\",\"type\":\"function\","
     "\"function\":{\"name\":\"now\",\"arguments\":\"\"}}]},\"finish_reason\":\"tool_calls\"}],"
     "\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":18}}",
     1,
     "{\"text\":\"\",\"reasoning\":\"\",\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"add\",\"args\":{\"a\":2,\"b\":3}},"
     "{\"id\":\"call_2\",\"name\":\"now\",\"args\":{}}],\"stop\":\"tool_use\",\"usage\":{\"in\":40,\"out\":18}}"},
    {"a tool call without an id, stop after tools",
     "{\"choices\":[{\"message\":{\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},"
     "\"finish_reason\":\"stop\"}]}",
     1, "{\"text\":\"\",\"reasoning\":\"\",\"tool_calls\":[{\"id\":\"call_seam_0\",\"name\":\"f\",\"args\":{}}],\"stop\":\"tool_use\",\"usage\":{}}"},
    {"reasoning_content, DeepSeek's cache hits, a null count",
     "{\"id\":\"r-3\",\"choices\":[{\"message\":{\"reasoning_content\":\"think\",\"reasoning\":\"other\","
     "\"content\":\"answer\"},\"finish_reason\":\"length\"}],"
     "\"usage\":{\"prompt_tokens\":5,\"prompt_cache_hit_tokens\":2,\"completion_tokens\":null},"
     "\"x\":[1,2.5,true,false,null,{}]}",
     1, "{\"text\":\"answer\",\"reasoning\":\"think\",\"tool_calls\":[],\"stop\":\"length\",\"usage\":{\"in\":3,\"cache_read\":2}}"},
    {"a refusal",
     "{\"choices\":[{\"index\":0,\"message\":{\"content\":null,\"refusal\":\"I can't help with that.\"},"
     "\"finish_reason\":\"stop\"}]}",
     1, "{\"text\":\"I can't help with that.\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"content_filter\",\"usage\":{}}"},
    {"a null message, another choice after the first",
     "{\"choices\":[{\"index\":0,\"message\":null,\"finish_reason\":\"stop\"},"
     "{\"index\":1,\"message\":{\"content\":\"second\"}}],\"usage\":null}",
     1, "{\"text\":\"\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{}}"},
    {"counts out of range are clamped",
     "{\"choices\":[{\"message\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}],"
     "\"usage\":{\"prompt_tokens\":-5,\"completion_tokens\":999999999999999999}}",
     1, "{\"text\":\"x\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{\"in\":0,\"out\":1000000000000}}"},
    /* json-c's: */
    {"content parts",
     "{\"choices\":[{\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"thinking\","
     "\"thinking\":\"t\"}]},\"finish_reason\":\"stop\"}]}",
     0, "{\"text\":\"a\",\"reasoning\":\"t\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{}}"},
    {"arguments sent as an object",
     "{\"choices\":[{\"message\":{\"tool_calls\":[{\"id\":\"c\",\"function\":{\"name\":\"f\","
     "\"arguments\":{\"k\":1}}}]},\"finish_reason\":\"tool_calls\"}]}",
     0, "{\"text\":\"\",\"reasoning\":\"\",\"tool_calls\":[{\"id\":\"c\",\"name\":\"f\",\"args\":{\"k\":1}}],\"stop\":\"tool_use\",\"usage\":{}}"},
    {"usage in x_groq",
     "{\"choices\":[{\"message\":{\"content\":\"g\"},\"finish_reason\":\"stop\"}],"
     "\"x_groq\":{\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}}",
     0, "{\"text\":\"g\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{\"in\":3,\"out\":1}}"},
    {"a count with a fraction",
     "{\"choices\":[{\"message\":{\"content\":\"f\"},\"finish_reason\":\"stop\"}],"
     "\"usage\":{\"prompt_tokens\":3.0,\"completion_tokens\":1}}",
     0, "{\"text\":\"f\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{\"in\":3,\"out\":1}}"},
    {"a first choice of index 1",
     "{\"choices\":[{\"index\":1,\"message\":{\"content\":\"one\"}},{\"index\":0,\"message\":"
     "{\"content\":\"zero\"},\"finish_reason\":\"stop\"}]}",
     0, "{\"text\":\"zero\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{}}"},
    {"a duplicated member",
     "{\"choices\":[{\"message\":{\"content\":\"a\",\"content\":\"b\"},\"finish_reason\":\"stop\"}]}",
     0, "{\"text\":\"b\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{}}"},
    {"a \\u0000 in the text",
     "{\"choices\":[{\"message\":{\"content\":\"a\\u0000b\"},\"finish_reason\":\"stop\"}]}",
     0, "{\"text\":\"a\",\"reasoning\":\"\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{}}"},
    {"an error in a 200", "{\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}", 0, NULL},
    {"no choices", "{\"id\":\"x\",\"choices\":[]}", 0, NULL},
    {"not JSON", "{\"choices\":[{\"message\":{\"content\":\"cut", 0, NULL},
    {"trailing bytes", "{\"choices\":[{\"message\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]} x", 0,
     NULL},
    {NULL, NULL, 0, NULL},
};

/* ---- the scanner against json-c ---------------------------------------------------- */

/* Everything a consumer could see of a chunk, appended to a transcript. */
static int record(void *ud, const seam_chunk *c)
{
    strbuf *t = ud;
    char head[160];
    snprintf(head, sizeof head, "\n%d s%d u%u/%lld/%lld/%lld/%lld;", (int)c->type, (int)c->stop_reason,
             (unsigned)c->usage.present, (long long)c->usage.input_tokens, (long long)c->usage.output_tokens,
             (long long)c->usage.cache_read_tokens, (long long)c->usage.reasoning_tokens);
    sb_puts(t, head);
    const char *fields[] = {c->id, c->name, c->text, c->args_json};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        sb_puts(t, fields[i] ? fields[i] : "(null)");
        sb_puts(t, "|");
    }
    return SEAM_OK;
}

/* The body decoded whole, with the scanner on (fast) or off, as a transcript
 * ending with the status and error. Malloc'ed. */
static char *decode(const oa_instance *in, const char *body, int fast)
{
    strbuf t = {0};
    seam_emitter em = {.fn = record, .ud = &t};
    seam_error err;
    seam_error_clear(&err);
    jscan_disabled = !fast;
    int rc = oa_chat_decode_response(in, NULL, body, strlen(body), &em, &err);
    jscan_disabled = 0;
    char tail[600];
    snprintf(tail, sizeof tail, "\n= %d k%d %s", rc, (int)err.kind, err.message);
    sb_puts(&t, tail);
    return t.data;
}

/* An instance of the plugin named "local" with options (no server behind it:
 * the decoders alone are used); a fatal assertion when it cannot be made. */
static oa_instance *instance(const char *options)
{
    seam_provider_config cfg = {sizeof cfg, "local", "http://127.0.0.1:9/v1", options};
    seam_error err;
    seam_error_clear(&err);
    oa_instance *in = oa_create(&cfg, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    return in;
}

static void test_scanner_equals_jsonc(void)
{
    oa_instance *in = instance("{}");
    for (const whole_case *c = cases; c->name; c++) {
        char *fast = decode(in, c->body, 1), *slow = decode(in, c->body, 0);
        if (strcmp(fast, slow) != 0)
            fprintf(stderr, "\n%s: the paths differ\n--- scanner:%s\n--- json-c:%s\n", c->name, fast, slow);
        CU_ASSERT_STRING_EQUAL(fast, slow);
        free(fast);
        free(slow);

        /* which path the body takes: the scanner alone says */
        oa_decoder *d = oa_chat_decoder_new(in);
        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        strbuf t = {0};
        seam_emitter em = {.fn = record, .ud = &t};
        int rc = -1;
        int scanned = oa_scan_response(d, c->body, strlen(c->body), &em, &rc);
        if (scanned != c->scanned)
            fprintf(stderr, "\n%s: scanned %d, expected %d\n", c->name, scanned, c->scanned);
        CU_ASSERT_EQUAL(scanned, c->scanned);
        if (scanned) {
            CU_ASSERT_EQUAL(rc, SEAM_OK);
        } else {
            CU_ASSERT_EQUAL(t.len, 0); /* nothing emitted before giving up */
        }
        if (!scanned) /* given up without making a json-c tokener */
            CU_ASSERT_PTR_NULL(d->tok);
        sb_free(&t);
        oa_chat_decoder_free(d);
    }
    oa_destroy(in);
}

/* <think> tags in a whole answer's content take the same road on both paths. */
static void test_think_tags(void)
{
    oa_instance *in = instance("{\"profile\":\"ollama\"}");
    const char *body = "{\"choices\":[{\"message\":{\"content\":\"  <think>a</think>\\n b\"},\"finish_reason\":\"stop\"}]}";
    char *fast = decode(in, body, 1), *slow = decode(in, body, 0);
    CU_ASSERT_STRING_EQUAL(fast, slow);
    CU_ASSERT_PTR_NOT_NULL(strstr(fast, "|a|")); /* the reasoning delta */
    free(fast);
    free(slow);
    oa_destroy(in);

    fake_server_push_json(srv, 200, body, NULL);
    seam_request *req = tu_user_request("hi");
    tu_call r = tu_run_generate(client, "ol", "qwq", req, 0);
    CU_ASSERT_TRUE(tu_summary_is(&r, "{\"text\":\"b\",\"reasoning\":\"a\",\"tool_calls\":[],\"stop\":\"stop\",\"usage\":{}}", "think tags, whole"));
    free(r.summary);
    seam_request_free(req);
}

/* ---- through seam_generate ----------------------------------------------------------- */

static void test_generate(void)
{
    seam_request *req = tu_user_request("hi");
    for (const whole_case *c = cases; c->name; c++) {
        fake_server_push_json(srv, 200, c->body, NULL);
        tu_call r = tu_run_generate(client, "oa", "gpt-4o", req, 0);
        if (c->summary) {
            CU_ASSERT_EQUAL(r.status, SEAM_OK);
            CU_ASSERT_TRUE(tu_summary_is(&r, c->summary, c->name));
        } else {
            if (r.status == SEAM_OK)
                fprintf(stderr, "\n%s: succeeded\n", c->name);
            CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
        }
        free(r.summary);
    }
    seam_request_free(req);
}

/* The response id of a whole answer is the stop chunk's. */
static void test_response_id(void)
{
    oa_instance *in = instance("{}");
    char *t = decode(in, cases[0].body, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "chatcmpl-1|(null)|(null)|(null)|\n= 0"));
    free(t);
    oa_destroy(in);
}

static const tu_test tests[] = {
    {"whole: the scanner and json-c give the same chunks", test_scanner_equals_jsonc},
    {"whole: <think> tags", test_think_tags},
    {"whole: through seam_generate", test_generate},
    {"whole: the response id", test_response_id},
    {NULL, NULL},
};

int main(void)
{
    return tu_run_suite("openai whole responses", tests, start);
}
