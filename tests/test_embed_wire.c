/* test_embed_wire.c — the real codecs' embedding and token count endpoints
 * against the fake provider server: each request as the provider documents
 * it (path, credential header, body), each answer decoded, batch order,
 * dimensions, usage and cost, and errors classified as a call's are.
 *
 * Wire formats checked against:
 *  - Anthropic, "Count tokens in a Message": POST /v1/messages/count_tokens,
 *    the Messages body without max_tokens/stream/sampling, answer
 *    {"input_tokens": N} (platform.claude.com/docs/en/api/messages/count_tokens).
 *  - Gemini, models.countTokens: POST /v1beta/models/{model}:countTokens with
 *    {"generateContentRequest": {"model": "models/{model}", ...}}, answer
 *    {"totalTokens": N} (ai.google.dev/api/tokens).
 *  - Gemini, models.embedContent / models.batchEmbedContents:
 *    {"content":{"parts":[{"text"}]},"outputDimensionality"} and
 *    {"requests":[{"model","content",...}]}, answers {"embedding":{"values"}}
 *    and {"embeddings":[{"values"}]} in request order
 *    (ai.google.dev/api/embeddings).
 *  - OpenAI, "Create embeddings": POST /v1/embeddings {"model","input":[...],
 *    "dimensions"}, answer {"object":"list","data":[{"object":"embedding",
 *    "index","embedding"}],"usage":{"prompt_tokens","total_tokens"}}, the
 *    embedding a float list or (encoding_format base64) base64 float32
 *    (developers.openai.com/api/reference/resources/embeddings).
 *  - OpenAI, "Get input token counts": POST /v1/responses/input_tokens with the
 *    Responses body's model, input, instructions, tools, tool_choice, reasoning,
 *    text..., answer {"object":"response.input_tokens","input_tokens":N}
 *    (developers.openai.com/api/reference/resources/responses/subresources/input_tokens/methods/count).
 */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <seam/seam.h>

#define ANT_KEY "sk-ant-wire-test-9f1e2d3c"
#define GEM_KEY "gm-wire-test-5a6b7c8d"
#define OAI_KEY "sk-oai-wire-test-1b2c3d4e"

static fake_server *server;
static seam_client *client;

static seam_token_count count_for(const char *provider, const char *model, const seam_request *req,
                                  seam_error *err)
{
    seam_call_options o = tu_call_opts(provider, model);
    seam_token_count tc;
    memset(&tc, 0, sizeof tc);
    tc.size = sizeof tc;
    seam_error_clear(err);
    CU_ASSERT_EQUAL(seam_count_tokens(client, req, &o, &tc, err), SEAM_OK);
    return tc;
}

static seam_request *rich_request(const char *model)
{
    seam_request *req = tu_user_request("What is the weather in Paris?");
    seam_request_set_model(req, model);
    seam_request_set_system(req, "Be brief.");
    seam_request_set_max_tokens(req, 300);
    seam_request_set_temperature(req, 0.5);
    seam_request_add_stop(req, "END");
    seam_request_add_tool(req, "weather", "The weather in a city",
                          "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}");
    return req;
}

/* The last request went to path; with key_header, that header is key (NULL:
 * the header is absent, as a keyless server's). */
static void asked_at(const char *path, const char *key_header, const char *key)
{
    TU_STR_EQ(tu_last_path(server), path);
    if (key_header && key)
        TU_STR_EQ(tu_last_header(server, key_header), key);
    else if (key_header)
        CU_ASSERT_PTR_NULL(tu_last_header(server, key_header));
}

/* The server answers answer (a 200) to a count of req by provider's model:
 * the count is exact, tokens, with no note. */
static void count_is_exact(const char *provider, const char *model, const seam_request *req,
                           const char *answer, int64_t tokens)
{
    fake_server_push_json(server, 200, answer, NULL);
    seam_error err;
    seam_token_count tc = count_for(provider, model, req, &err);
    CU_ASSERT_EQUAL(tc.exact, 1);
    CU_ASSERT_EQUAL(tc.input_tokens, tokens);
    TU_STR_EQ(tc.note, "");
}

/* A count of req by provider's model that the server answers with status and
 * body (NULL: nothing may be sent) falls back to the estimate, its note
 * holding why. */
static void count_falls_back(const char *provider, const char *model, const seam_request *req,
                             int status, const char *body, const char *why)
{
    size_t before = fake_server_request_count(server);
    if (body)
        fake_server_push_json(server, status, body, NULL);
    seam_error err;
    seam_token_count tc = count_for(provider, model, req, &err);
    CU_ASSERT_EQUAL(tc.exact, 0);
    CU_ASSERT_EQUAL(tc.input_tokens, seam_estimate_tokens(req));
    CU_ASSERT_PTR_NOT_NULL(strstr(tc.note, why));
    if (!body)
        CU_ASSERT_EQUAL(fake_server_request_count(server), before);
}

/* ---- Anthropic ----------------------------------------------------------------- */

static void test_anthropic_count(void)
{
    seam_request *req = rich_request("claude-sonnet-4-5");
    count_is_exact("an", "claude-sonnet-4-5", req, "{\"input_tokens\":421}", 421);
    asked_at("/v1/messages/count_tokens", "x-api-key", ANT_KEY);
    CU_ASSERT_PTR_NOT_NULL(tu_last_header(server, "anthropic-version"));
    json_object *b = tu_last_body(server);
    TU_ASSERT_MEMBERS(b, {"model", "\"claude-sonnet-4-5\""}, {"messages.0.role", "\"user\""},
                      {"system", TU_PRESENT}, {"tools.0.name", "\"weather\""},
                      /* What the count endpoint does not take is not sent. */
                      {"max_tokens", TU_ABSENT}, {"stream", TU_ABSENT}, {"temperature", TU_ABSENT},
                      {"top_p", TU_ABSENT}, {"top_k", TU_ABSENT}, {"stop_sequences", TU_ABSENT},
                      {"metadata", TU_ABSENT}, {"service_tier", TU_ABSENT});
    json_object_put(b);

    /* An error answer: classified, and the count falls back to the estimate. */
    count_falls_back("an", "claude-sonnet-4-5", req, 400,
                     "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                     "\"message\":\"messages: field required\"}}",
                     "messages: field required");
    /* A body without the count is not a count. */
    count_falls_back("an", "claude-sonnet-4-5", req, 200, "{\"tokens\":3}", "without input_tokens");
    seam_request_free(req);
}

/* Anthropic has no embeddings: the entry is skipped, with the reason. */
static void test_anthropic_no_embeddings(void)
{
    seam_embed_request *er = seam_embed_request_new();
    seam_embed_request_add_text(er, "x");
    seam_call_options o = tu_call_opts("an", "claude-sonnet-4-5");
    seam_embeddings *e = NULL;
    seam_error err;
    size_t before = fake_server_request_count(server);
    CU_ASSERT_EQUAL(seam_embed(client, er, &o, &e, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "has no embeddings"));
    CU_ASSERT_EQUAL(fake_server_request_count(server), before); /* nothing sent */
    seam_embed_request_free(er);
}

/* ---- Gemini ---------------------------------------------------------------------- */

static void test_gemini_count(void)
{
    seam_request *req = rich_request("gemini-2.5-flash");
    count_is_exact("gm", "gemini-2.5-flash", req,
                   "{\"totalTokens\":31,\"promptTokensDetails\":[{\"modality\":\"TEXT\","
                   "\"tokenCount\":31}]}",
                   31);
    asked_at("/v1beta/models/gemini-2.5-flash:countTokens", "x-goog-api-key", GEM_KEY);
    json_object *b = tu_last_body(server);
    TU_ASSERT_MEMBERS(b, {"generateContentRequest.model", "\"models/gemini-2.5-flash\""},
                      {"generateContentRequest.contents.0.parts.0.text",
                       "\"What is the weather in Paris?\""},
                      {"generateContentRequest.systemInstruction.parts.0.text", "\"Be brief.\""},
                      {"generateContentRequest.tools.0.functionDeclarations.0.name", "\"weather\""},
                      /* contents and generateContentRequest are mutually exclusive: only the latter. */
                      {"contents", TU_ABSENT});
    json_object_put(b);

    /* totalTokens as a string (int64 in JSON, as Google's APIs may print it). */
    count_is_exact("gm", "gemini-2.5-flash", req, "{\"totalTokens\":\"1234\"}", 1234);
    /* A 429 is a rate limit: one attempt on a single provider, then the estimate. */
    count_falls_back("gm", "gemini-2.5-flash", req, 429,
                     "{\"error\":{\"code\":429,\"message\":\"Resource has been exhausted\","
                     "\"status\":\"RESOURCE_EXHAUSTED\"}}",
                     "exhausted");
    seam_request_free(req);
}

static seam_embeddings *embed3(const char *provider, const char *model, int n, int64_t dims,
                               int expect_rc, seam_error *err)
{
    seam_embed_request *er = seam_embed_request_new();
    const char *texts[] = {"first text", "second text", "third text"};
    for (int i = 0; i < n; i++)
        seam_embed_request_add_text(er, texts[i]);
    if (dims)
        seam_embed_request_set_dimensions(er, dims);
    seam_call_options o = tu_call_opts(provider, model);
    seam_embeddings *e = NULL;
    seam_error_clear(err);
    CU_ASSERT_EQUAL(seam_embed(client, er, &o, &e, err), expect_rc);
    seam_embed_request_free(er);
    return e;
}

/* A model or provider that the plugin knows cannot embed: refused, saying
 * why, before any request is made. */
static void assert_refused_unsent(const char *provider, const char *model, const char *why)
{
    seam_error err;
    size_t before = fake_server_request_count(server);
    embed3(provider, model, 1, 0, SEAM_ERR_PROVIDER, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, why));
    CU_ASSERT_EQUAL(fake_server_request_count(server), before);
}

/* A call of n texts that the server answers with answer (a 200): the
 * embeddings, which must be there. */
static seam_embeddings *embedded(const char *provider, const char *model, int n, int64_t dims,
                                 const char *answer)
{
    fake_server_push_json(server, 200, answer, NULL);
    seam_error err;
    seam_embeddings *e = embed3(provider, model, n, dims, SEAM_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    return e;
}

static void test_gemini_embed_one(void)
{
    /* A full resource name ("models/...") is kept as it is. */
    seam_embeddings *e = embedded("gm", "models/gemini-embedding-001", 1, 3,
                                  "{\"embedding\":{\"values\":[0.25,-0.5,1]}}");
    asked_at("/v1beta/models/gemini-embedding-001:embedContent", "x-goog-api-key", GEM_KEY);
    CU_ASSERT(tu_last_body_is(server, "{\"content\":{\"parts\":[{\"text\":\"first text\"}]},"
                                      "\"taskType\":\"SEMANTIC_SIMILARITY\","
                                      "\"outputDimensionality\":3}"));
    size_t d = 0;
    const float *v = seam_embeddings_vector(e, 0, &d);
    CU_ASSERT_EQUAL(d, 3);
    CU_ASSERT_EQUAL(v[0], 0.25f);
    CU_ASSERT_EQUAL(v[1], -0.5f);
    CU_ASSERT_EQUAL(v[2], 1.0f);
    /* No token count in Gemini's answer: usage absent, cost unknown. */
    CU_ASSERT_FALSE(seam_embeddings_usage(e)->present & (SEAM_USAGE_INPUT | SEAM_USAGE_COST));
    TU_STR_EQ(seam_embeddings_provider(e), "gm");
    seam_embeddings_free(e);
}

static void test_gemini_embed_batch(void)
{
    seam_embeddings *e = embedded("gm", "gemini-embedding-001", 3, 0,
                                  "{\"embeddings\":[{\"values\":[1,0]},{\"values\":[0,1]},"
                                  "{\"values\":[0.5,0.5]}],\"usageMetadata\":{\"promptTokenCount\":6}}");
    asked_at("/v1beta/models/gemini-embedding-001:batchEmbedContents", NULL, NULL);
    json_object *b = tu_last_body(server);
    CU_ASSERT_EQUAL(json_object_array_length(tu_json_at(b, "requests")), 3);
    for (int i = 0; i < 3; i++) {
        char path[64];
        snprintf(path, sizeof path, "requests.%d.model", i);
        TU_STR_EQ(tu_json_str(b, path), "models/gemini-embedding-001");
        snprintf(path, sizeof path, "requests.%d.outputDimensionality", i);
        CU_ASSERT_FALSE(tu_json_has(b, path));
    }
    TU_STR_EQ(tu_json_str(b, "requests.2.content.parts.0.text"), "third text");
    json_object_put(b);
    /* In request order; usage when the body has it, priced from the catalog. */
    CU_ASSERT_EQUAL(seam_embeddings_vector(e, 1, NULL)[1], 1.0f);
    CU_ASSERT_EQUAL(seam_embeddings_vector(e, 2, NULL)[0], 0.5f);
    CU_ASSERT_EQUAL(seam_embeddings_usage(e)->input_tokens, 6);
    CU_ASSERT(seam_embeddings_usage(e)->present & SEAM_USAGE_COST);
    CU_ASSERT_EQUAL(seam_embeddings_usage(e)->cost_microcents, 90); /* 6 x $0.15 / M */
    seam_embeddings_free(e);
    assert_refused_unsent("gm", "gemini-2.5-flash", "not an embedding model");
}

/* ---- OpenAI and the compatible servers --------------------------------------------- */

static void test_openai_embed(void)
{
    /* Out of order on purpose: the index places each vector. */
    seam_embeddings *e = embedded("oai", "text-embedding-3-small", 3, 2,
                                  "{\"object\":\"list\",\"data\":["
                                  "{\"object\":\"embedding\",\"index\":1,\"embedding\":[0,1]},"
                                  "{\"object\":\"embedding\",\"index\":0,\"embedding\":[1,0]},"
                                  "{\"object\":\"embedding\",\"index\":2,\"embedding\":[0.5,0.5]}],"
                                  "\"model\":\"text-embedding-3-small\","
                                  "\"usage\":{\"prompt_tokens\":8,\"total_tokens\":8}}");
    asked_at("/v1/embeddings", "authorization", "Bearer " OAI_KEY);
    CU_ASSERT(tu_last_body_is(server, "{\"model\":\"text-embedding-3-small\","
                                      "\"input\":[\"first text\",\"second text\",\"third text\"],"
                                      "\"dimensions\":2}"));
    CU_ASSERT_EQUAL(seam_embeddings_vector(e, 0, NULL)[0], 1.0f);
    CU_ASSERT_EQUAL(seam_embeddings_vector(e, 1, NULL)[1], 1.0f);
    CU_ASSERT_EQUAL(seam_embeddings_vector(e, 2, NULL)[0], 0.5f);
    const seam_usage *u = seam_embeddings_usage(e);
    CU_ASSERT_EQUAL(u->input_tokens, 8);
    CU_ASSERT_EQUAL(u->cost_microcents, 16); /* 8 tokens x $0.02 / M */
    TU_STR_EQ(seam_embeddings_model(e), "text-embedding-3-small");
    seam_embeddings_free(e);

    /* base64 float32 (1.0, -2.0), as encoding_format "base64" answers. */
    e = embedded("oai", "text-embedding-3-small", 1, 0,
                 "{\"data\":[{\"index\":0,\"embedding\":\"AACAPwAAAMA=\"}]}");
    size_t d = 0;
    const float *v = seam_embeddings_vector(e, 0, &d);
    CU_ASSERT_EQUAL(d, 2);
    CU_ASSERT_EQUAL(v[0], 1.0f);
    CU_ASSERT_EQUAL(v[1], -2.0f);
    CU_ASSERT_FALSE(seam_embeddings_usage(e)->present & SEAM_USAGE_INPUT);
    seam_embeddings_free(e);
    assert_refused_unsent("oai", "gpt-4.1-mini", "not an embedding model");
}

static void test_compatible_embed(void)
{
    /* Mistral names the length output_dimension. */
    seam_embeddings *e = embedded("mis", "mistral-embed", 1, 3,
                                  "{\"data\":[{\"index\":0,\"embedding\":[0.1,0.2,0.3]}],"
                                  "\"usage\":{\"prompt_tokens\":2}}");
    asked_at("/mistral/embeddings", NULL, NULL);
    CU_ASSERT(tu_last_body_is(server, "{\"model\":\"mistral-embed\",\"input\":[\"first text\"],"
                                      "\"output_dimension\":3}"));
    seam_embeddings_free(e);
    /* Ollama: no key, the same wire. */
    e = embedded("oll", "nomic-embed-text", 1, 0, "{\"data\":[{\"index\":0,\"embedding\":[1,2]}]}");
    asked_at("/ollama/embeddings", "authorization", NULL);
    seam_embeddings_free(e);
    /* DeepSeek has no embeddings: the entry cannot serve, nothing is sent. */
    assert_refused_unsent("ds", "text-embedding-3-small", "has no embeddings endpoint");
}

/* ---- answers an embedding call fails on ---------------------------------------------- */

/* Each codec's: an answer that is not the embeddings asked for (fewer
 * vectors than inputs, an index past them: never a short answer), and an
 * HTTP error, classified as a call's. */
static const struct embed_error {
    const char *provider, *model;
    int n;
    tu_http_error answer;
} embed_errors[] = {
    {"gm", "gemini-embedding-001", 2,
     {200, "{\"embeddings\":[{\"values\":[1,0]}]}", NULL, SEAM_ERROR_UNKNOWN, 0, "bad_response"}},
    {"gm", "gemini-embedding-001", 2,
     {400,
      "{\"error\":{\"code\":400,\"message\":\"Request contains an invalid "
      "argument.\",\"status\":\"INVALID_ARGUMENT\"}}",
      NULL, SEAM_ERROR_BAD_REQUEST, 0, "INVALID_ARGUMENT"}},
    {"oai", "text-embedding-3-small", 1,
     {200, "{\"data\":[{\"index\":5,\"embedding\":[1]}]}", NULL, SEAM_ERROR_UNKNOWN, 0,
      "bad_response"}},
    {"oai", "text-embedding-3-small", 1,
     {401,
      "{\"error\":{\"message\":\"Incorrect API key provided\","
      "\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}",
      NULL, SEAM_ERROR_AUTH, 0, "invalid_api_key"}},
};

static void test_embed_errors(void)
{
    for (size_t i = 0; i < sizeof embed_errors / sizeof embed_errors[0]; i++) {
        const struct embed_error *c = &embed_errors[i];
        fake_server_push_json(server, c->answer.status, c->answer.body, c->answer.headers);
        seam_error err;
        CU_ASSERT_PTR_NULL(embed3(c->provider, c->model, c->n, 0, SEAM_ERR_PROVIDER, &err));
        if (err.kind != c->answer.kind || err.retryable != c->answer.retryable)
            fprintf(stderr, "\n  %s answered %d: %s\n", c->provider, c->answer.status, err.message);
        CU_ASSERT_EQUAL(err.kind, c->answer.kind);
        CU_ASSERT_EQUAL(err.retryable, c->answer.retryable);
        TU_STR_EQ(err.code, c->answer.code);
        /* An HTTP error keeps its status; a 200 that is no answer has none. */
        CU_ASSERT_EQUAL(err.http_status, c->answer.status == 200 ? 0 : c->answer.status);
    }
}

static void test_openai_count(void)
{
    seam_request *req = rich_request("gpt-4.1-mini");
    count_is_exact("oai", "gpt-4.1-mini", req,
                   "{\"object\":\"response.input_tokens\",\"input_tokens\":57}", 57);
    asked_at("/v1/responses/input_tokens", "authorization", "Bearer " OAI_KEY);
    json_object *b = tu_last_body(server);
    TU_ASSERT_MEMBERS(b, {"model", "\"gpt-4.1-mini\""}, {"input", TU_PRESENT},
                      {"tools.0.name", "\"weather\""}, {"stream", TU_ABSENT},
                      {"max_output_tokens", TU_ABSENT}, {"temperature", TU_ABSENT},
                      {"store", TU_ABSENT}, {"include", TU_ABSENT});
    json_object_put(b);
    /* The compatible servers have no count endpoint: the estimate, nothing sent. */
    count_falls_back("oll", "llama3.2", req, 0, NULL, "no token count endpoint");
    seam_request_free(req);
}

/* The shipped model catalog prices the embedding models. */
static int start(void)
{
    return tu_start_client_on(
        &server, &client,
        "model_catalog = \"" TOP_SRCDIR "/conf/models.conf\";\n"
        "providers = {\n"
        "  an = { plugin = \"anthropic\"; base_url = \"@URL@/v1\"; api_key = \"" ANT_KEY "\"; };\n"
        "  gm = { plugin = \"gemini\"; base_url = \"@URL@/v1beta\"; api_key = \"" GEM_KEY "\";\n"
        "         options = { taskType = \"SEMANTIC_SIMILARITY\"; }; };\n"
        "  oai = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" OAI_KEY "\";\n"
        "          options = { profile = \"openai\"; }; };\n"
        "  mis = { plugin = \"openai\"; base_url = \"@URL@/mistral\"; api_key = \"k\";\n"
        "          options = { profile = \"mistral\"; }; };\n"
        "  oll = { plugin = \"openai\"; base_url = \"@URL@/ollama\"; options = { profile = \"ollama\"; }; };\n"
        "  ds = { plugin = \"openai\"; base_url = \"@URL@/ds\"; api_key = \"k\";\n"
        "         options = { profile = \"deepseek\"; }; };\n"
        "};\n");
}

static const tu_test tests[] = {
    {"anthropic: count_tokens request, answer, errors", test_anthropic_count},
    {"anthropic: no embeddings", test_anthropic_no_embeddings},
    {"gemini: countTokens request, answer, errors", test_gemini_count},
    {"gemini: embedContent, one input", test_gemini_embed_one},
    {"gemini: batchEmbedContents, order, usage, a chat model refused", test_gemini_embed_batch},
    {"openai: embeddings, index order, base64, usage, cost, a chat model refused", test_openai_embed},
    {"compatible servers: mistral, ollama, deepseek", test_compatible_embed},
    {"errors: a short answer, an index past the inputs, HTTP errors", test_embed_errors},
    {"openai: responses/input_tokens; none on compatible servers", test_openai_count},
    {NULL, NULL},
};

int main(void)
{
    return tu_run_suite("embed_wire", tests, start);
}
