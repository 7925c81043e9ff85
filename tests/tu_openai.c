/* tu_openai.c — what the OpenAI-compatible plugin's test programs
 * (test_openai, test_openai_decode, test_openai_models) share: the fake
 * server and client every test talks to, the providers all pointed at it,
 * the SSE builder and the plain text answer, an instance made straight from
 * the plugin's sources. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

#include "../plugins/openai/internal.h"
#include "tu_openai.h"

fake_server *srv;
seam_client *client;

/* Every provider the tests use, all pointed at the fake server. */
static const char providers[] =
    "providers = {\n"
    "  oa = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\";\n"
    "         options = { seed = 7; user = \"tester\"; headers = { X-Title = \"seam-test\"; }; }; };\n"
    "  ds = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\"; options = { profile = \"deepseek\"; }; };\n"
    "  mi = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\"; options = { profile = \"mistral\"; }; };\n"
    "  gq = { plugin = \"openai\"; base_url = \"@URL@/openai/v1/\"; api_key = \"" KEY "\"; options = { profile = \"groq\"; }; };\n"
    "  xa = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\"; options = { profile = \"xai\"; }; };\n"
    "  orr = { plugin = \"openai\"; base_url = \"@URL@/api/v1\"; api_key = \"" KEY "\"; options = { profile = \"openrouter\"; }; };\n"
    "  ol = { plugin = \"openai\"; base_url = \"@URL@/v1\"; options = { profile = \"ollama\"; }; };\n"
    "  olnt = { plugin = \"openai\"; base_url = \"@URL@/v1\"; options = { profile = \"ollama\"; think_tags = false; }; };\n"
    "  oap = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\"; options = { profile = \"openai\"; }; };\n"
    "  vl = { plugin = \"openai\"; base_url = \"@URL@/v1\"; options = { profile = \"vllm\"; }; };\n"
    "  fixed = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\";\n"
    "            options = { max_tokens_param = \"max_completion_tokens\"; stream_usage = false; }; };\n"
    "  badprofile = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\"; options = { profile = \"nope\"; }; };\n"
    "  oachat = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" KEY "\"; options = { profile = \"openai\"; api = \"chat\"; }; };\n"
    "  dead = { plugin = \"openai\"; base_url = \"http://127.0.0.1:1/v1\"; connect_timeout_ms = 2000; };\n"
    "};\n"
    "media = { inline_document_bytes = 65536; };\n"; /* small PDFs inline (default 0) */


/* Builds an SSE body from payload lines (NULL-terminated), ending with [DONE]
 * when done is set. */
char *sse(int done, const char *const *lines)
{
    strbuf b = {0};
    for (size_t i = 0; lines[i]; i++) {
        sb_puts(&b, "data: ");
        sb_puts(&b, lines[i]);
        sb_puts(&b, "\n\n");
    }
    if (done)
        sb_puts(&b, "data: [DONE]\n\n");
    return b.data;
}

/* ---- transcripts (written for these tests) ---------------------------------- */
static const char *const text_lines[] = {
    CH("{\"role\":\"assistant\",\"content\":\"\"}", "null"),
    CH("{\"content\":\"Hel\"}", "null"),
    CH("{\"content\":\"lo, w\\u00f6rld\"}", "null"),
    CH("{}", "\"stop\""),
    "{\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5,\"total_tokens\":17,"
    "\"prompt_tokens_details\":{\"cached_tokens\":4},\"completion_tokens_details\":{\"reasoning_tokens\":0}}}",
    NULL};

/* The SSE answer of text_lines (with [DONE]) most tests push, made once. */
char *text_sse;

static void free_text_sse(void *p)
{
    free(p);
}

int start(void)
{
    text_sse = sse(1, text_lines);
    if (!text_sse)
        return -1;
    tu_at_end(free_text_sse, text_sse);
    return tu_start_client_on(&srv, &client, providers);
}

void *create_with(const char *name, const char *base_url, const char *options)
{
    seam_provider_config cfg = {sizeof cfg, name, base_url, options};
    seam_error err;
    seam_error_clear(&err);
    void *in = oa_create(&cfg, &err);
    if (!in)
        fprintf(stderr, "create: %s\n", err.message);
    return in;
}
