/* test_embed.c — seam_embed through the chain runner with the mock plugin
 * (deterministic vectors, batch, dimensions, usage and cost, retries and
 * failover, scripted errors), the chain's skips of plugins and models that do
 * not embed (a plugin of ABI 1.0 among them, whose table ends before the
 * embed members), the default chain, and the embedding request and result
 * objects themselves. */
#include "config.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <seam/seam.h>

static seam_embed_request *texts(const char *a, const char *b, const char *c)
{
    seam_embed_request *er = seam_embed_request_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(er);
    const char *all[] = {a, b, c};
    for (size_t i = 0; i < 3; i++)
        if (all[i])
            CU_ASSERT_EQUAL(seam_embed_request_add_text(er, all[i]), SEAM_OK);
    return er;
}

static double norm(const float *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)v[i] * v[i];
    return sqrt(s);
}

/* ---- the mock ------------------------------------------------------------------- */

#define MOCK_CONF                                                                          \
    "providers = { m = { plugin = \"mock\"; }; };\n"                                        \
    "chains = { embed = ( { provider = \"m\"; model = \"mock-embed\"; } ); };\n"

static void test_batch_and_determinism(void)
{
    seam_client *c = tu_client_with_test_plugins(MOCK_CONF);
    seam_embed_request *er = texts("the same text", "another text", "the same text");
    seam_embeddings *e = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_embed(c, er, NULL, &e, &err), SEAM_OK);
    CU_ASSERT_EQUAL(seam_embeddings_count(e), 3);
    size_t d0 = 0, d1 = 0, d2 = 0;
    const float *v0 = seam_embeddings_vector(e, 0, &d0);
    const float *v1 = seam_embeddings_vector(e, 1, &d1);
    const float *v2 = seam_embeddings_vector(e, 2, &d2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v2);
    CU_ASSERT_EQUAL(d0, 16);
    CU_ASSERT_EQUAL(d1, 16);
    CU_ASSERT_EQUAL(d2, 16);
    /* One text, one vector; another text, another; unit length. */
    CU_ASSERT_EQUAL(memcmp(v0, v2, d0 * sizeof *v0), 0);
    CU_ASSERT_NOT_EQUAL(memcmp(v0, v1, d0 * sizeof *v0), 0);
    CU_ASSERT_DOUBLE_EQUAL(norm(v0, d0), 1.0, 1e-5);
    CU_ASSERT_PTR_NULL(seam_embeddings_vector(e, 3, &d0));
    CU_ASSERT_EQUAL(d0, 0);
    /* Usage: the mock counts words (3 + 2 + 3); no price, no cost. */
    const seam_usage *u = seam_embeddings_usage(e);
    CU_ASSERT(u->present & SEAM_USAGE_INPUT);
    CU_ASSERT_EQUAL(u->input_tokens, 8);
    CU_ASSERT_FALSE(u->present & SEAM_USAGE_COST);
    TU_ASSERT_STR(seam_embeddings_provider(e), "m");
    TU_ASSERT_STR(seam_embeddings_model(e), "mock-embed");

    /* The same call again gives the same vectors (and so does another client). */
    seam_embeddings *again = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_embed(c, er, NULL, &again, &err), SEAM_OK);
    CU_ASSERT_EQUAL(memcmp(seam_embeddings_vector(again, 1, NULL), v1, d1 * sizeof *v1), 0);
    seam_embeddings_free(again);
    seam_embeddings_free(e);
    seam_embed_request_free(er);
    tu_client_free(c);
}

static void test_dimensions(void)
{
    seam_client *c = tu_client_with_test_plugins(
        "providers = { m = { plugin = \"mock\"; }; d = { plugin = \"mock\"; options = { embed_dimensions = 5; }; }; };\n"
        "chains = { embed = ( { provider = \"m\"; model = \"mock-embed\"; } );\n"
        "           five = ( { provider = \"d\"; model = \"mock-embed\"; } ); };\n");
    seam_embed_request *er = texts("dimensions", NULL, NULL);
    CU_ASSERT_EQUAL(seam_embed_request_set_dimensions(er, -1), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_embed_request_set_dimensions(er, 8), SEAM_OK);
    CU_ASSERT_EQUAL(seam_embed_request_dimensions(er), 8);
    seam_embeddings *e = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_embed(c, er, NULL, &e, &err), SEAM_OK);
    size_t d = 0;
    CU_ASSERT_PTR_NOT_NULL(seam_embeddings_vector(e, 0, &d));
    CU_ASSERT_EQUAL(d, 8);
    seam_embeddings_free(e);
    /* No length asked: the provider's (here its script's) default. */
    CU_ASSERT_EQUAL(seam_embed_request_set_dimensions(er, 0), SEAM_OK);
    seam_call_options o = {.size = sizeof o, .chain = "five"};
    CU_ASSERT_EQUAL_FATAL(seam_embed(c, er, &o, &e, &err), SEAM_OK);
    seam_embeddings_vector(e, 0, &d);
    CU_ASSERT_EQUAL(d, 5);
    seam_embeddings_free(e);
    seam_embed_request_free(er);
    tu_client_free(c);
}

/* seam_embed of er on c (on chain, NULL for the default) with every attempt,
 * errors too, logged into *at (emptied first). */
static int embed_logged(seam_client *c, const seam_embed_request *er, const char *chain,
                        tu_attempts *at, seam_embeddings **e, seam_error *err)
{
    *at = (tu_attempts){.flags = TU_ATTEMPT_ERRORS};
    seam_call_options o = {.size = sizeof o, .on_attempt = tu_on_attempt, .ud = at, .chain = chain};
    return seam_embed(c, er, &o, e, err);
}

/* A call on a chain that succeeded: its embeddings (the caller frees them)
 * and every attempt it made. */
typedef struct chain_answer {
    seam_embeddings *e;
    tu_attempts at;
} chain_answer;

/* embed_logged on c's embed chain, which must succeed on the entry of
 * provider and model: the embeddings name them, and the attempts end with
 * that entry's success. */
static chain_answer answered_by(seam_client *c, const seam_embed_request *er, const char *provider,
                                const char *model)
{
    chain_answer a = {.e = NULL};
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(tu_said(embed_logged(c, er, NULL, &a.at, &a.e, &err), &err, "seam_embed"),
                          SEAM_OK);
    TU_ASSERT_STR(seam_embeddings_provider(a.e), provider);
    TU_ASSERT_STR(seam_embeddings_model(a.e), model);
    char tail[256];
    snprintf(tail, sizeof tail, "succeeded %s/%s\n", provider, model);
    size_t n = strlen(a.at.log), t = strlen(tail);
    if (n < t || strcmp(a.at.log + n - t, tail) != 0)
        fprintf(stderr, "\n  attempts:\n%s  want the last: %s", a.at.log, tail);
    CU_ASSERT(n >= t && strcmp(a.at.log + n - t, tail) == 0);
    return a;
}

/* Cost in micro-cents from the catalog's input price: $0.02 per million
 * tokens is 2,000,000 micro-cents per million, so 5 words cost 10. */
static void test_usage_and_cost(void)
{
    seam_client *c = tu_client_with_test_plugins(
        MOCK_CONF
        "models = ( { id = \"mock-embed\"; provider = \"mock\";\n"
        "             price = { input = 2000000L; output = 0L; }; } );\n");
    seam_embed_request *er = texts("one two three", "four five", NULL);
    chain_answer a = answered_by(c, er, "m", "mock-embed");
    const seam_usage *u = seam_embeddings_usage(a.e);
    CU_ASSERT_EQUAL(u->input_tokens, 5);
    CU_ASSERT(u->present & SEAM_USAGE_COST);
    CU_ASSERT_EQUAL(u->cost_microcents, 10);
    CU_ASSERT_EQUAL(a.at.n, 1);
    TU_ASSERT_STR(a.at.log, "succeeded m/mock-embed\n");
    seam_embeddings_free(a.e);
    seam_embed_request_free(er);
    tu_client_free(c);
}

/* ---- which entry of a chain answers --------------------------------------------- */

/* A chain run for one text: the entry that answers, and the attempts that
 * came before it. */
static const struct chain_case {
    const char *name;
    const char *conf;
    const char *provider, *model; /* the entry that answers */
    int attempts;                 /* how many were reported; 0: not checked */
    const char *log_head;         /* the attempts' log starts so; NULL: not checked */
    const char *log_has;          /* ...and holds this; NULL: not checked */
} chain_cases[] = {
    {"skips: a model that does not embed, a plugin without embeddings (ABI 1.0), "
     "a plugin not installed",
     "providers = { m = { plugin = \"mock\"; }; old = { plugin = \"testabi10\"; };\n"
     "              ec = { plugin = \"testecho\"; }; gone = { plugin = \"nosuchplugin\"; }; };\n"
     "chains = { embed = ( { provider = \"m\"; model = \"mock-1\"; },\n"
     "                     { provider = \"old\"; model = \"any\"; },\n"
     "                     { provider = \"gone\"; model = \"any\"; },\n"
     "                     { provider = \"m\"; model = \"mock-embed\"; } ); };\n",
     "m", "mock-embed", 0,
     /* The third line goes on with the plugin files the loader refused (the
      * test plugins hold one): one of them may have been the plugin named. */
     "skipped m/mock-1: model \"mock-1\" of provider \"m\" is not an embedding model "
     "(capability embed)\n"
     "skipped old/any: provider \"old\" (plugin testabi10) has no embeddings\n"
     "skipped gone/any: plugin \"nosuchplugin\" is not installed",
     NULL},
    {"the user's catalog entry says mock-1 embeds: it beats the plugin",
     "providers = { m = { plugin = \"mock\"; }; };\n"
     "chains = { embed = ( { provider = \"m\"; model = \"mock-1\"; } ); };\n"
     "models = ( { id = \"mock-1\"; provider = \"m\"; capabilities = [ \"embed\" ]; } );\n",
     "m", "mock-1", 1, NULL, NULL},
    {"a retryable error: retried on its entry, then the next entry answers",
     "providers = { busy = { plugin = \"mock\"; options = { error_status = 503; }; };\n"
     "              m = { plugin = \"mock\"; }; };\n"
     "chains = { embed = ( { provider = \"busy\"; model = \"mock-embed\"; max_attempts = 2;\n"
     "                       backoff = { base_ms = 1; max_ms = 1; }; },\n"
     "                     { provider = \"m\"; model = \"mock-embed\"; } ); };\n",
     "m", "mock-embed", 3, NULL,
     "failed busy/mock-embed: mock: scripted HTTP 503\nfailed busy/mock-embed"},
};

static void test_chain_answers(void)
{
    for (size_t i = 0; i < sizeof chain_cases / sizeof chain_cases[0]; i++) {
        const struct chain_case *k = &chain_cases[i];
        unsigned failed = CU_get_number_of_failures();
        seam_client *c = tu_client_with_test_plugins(k->conf);
        seam_embed_request *er = texts("which entry answers", NULL, NULL);
        chain_answer a = answered_by(c, er, k->provider, k->model);
        if (k->attempts)
            CU_ASSERT_EQUAL(a.at.n, k->attempts);
        if (k->log_head)
            CU_ASSERT_EQUAL(strncmp(a.at.log, k->log_head, strlen(k->log_head)), 0);
        if (k->log_has)
            CU_ASSERT_PTR_NOT_NULL(strstr(a.at.log, k->log_has));
        if (CU_get_number_of_failures() != failed)
            fprintf(stderr, "\n  case \"%s\"; the attempts:\n%s", k->name, a.at.log);
        seam_embeddings_free(a.e);
        seam_embed_request_free(er);
        tu_client_free(c);
    }
}

/* A chain none of whose entries embeds, on the plugin of ABI 1.0, whose table
 * ends before the embed members: the call fails, saying why for each entry,
 * and a generation still works (its table is read up to its size). */
static void test_no_entry_embeds(void)
{
    seam_client *c = tu_client_with_test_plugins("providers = { old = { plugin = \"testabi10\"; }; };\n"
                   "chains = { default = ( { provider = \"old\"; model = \"any\"; } );\n"
                   "           embed = ( { provider = \"old\"; model = \"any\"; } ); };\n");
    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "hi");
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_generate(c, req, NULL, &res, &err), SEAM_OK);
    if (res)
        TU_ASSERT_STR(seam_result_text(res), "abi 1.0");
    seam_result_free(res);
    seam_request_free(req);
    seam_embed_request *er = texts("skip to the embedder", NULL, NULL);
    seam_embeddings *e = NULL;
    CU_ASSERT_EQUAL(seam_embed(c, er, NULL, &e, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NULL(e);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "has no embeddings"));
    seam_embed_request_free(er);
    tu_client_free(c);
}

/* A provider named by the call is asked as it is: a model that does not embed
 * fails with the reason. */
static void test_single_provider(void)
{
    seam_client *c = tu_client_with_test_plugins(MOCK_CONF);
    seam_embed_request *er = texts("x", NULL, NULL);
    seam_call_options o = {.size = sizeof o, .provider = "m", .model = "mock-1"};
    seam_embeddings *e = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_embed(c, er, &o, &e, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "not an embedding model"));
    o.model = "mock-embed-small";
    CU_ASSERT_EQUAL(seam_embed(c, er, &o, &e, &err), SEAM_OK);
    TU_ASSERT_STR(seam_embeddings_model(e), "mock-embed-small");
    seam_embeddings_free(e);
    /* The request's own model, when neither the call nor a chain gives one. */
    o.model = NULL;
    CU_ASSERT_EQUAL(seam_embed_request_set_model(er, "mock-embed-2"), SEAM_OK);
    TU_ASSERT_STR(seam_embed_request_model(er), "mock-embed-2");
    CU_ASSERT_EQUAL(seam_embed(c, er, &o, &e, &err), SEAM_OK);
    TU_ASSERT_STR(seam_embeddings_model(e), "mock-embed-2");
    seam_embeddings_free(e);
    o.provider = "nobody";
    CU_ASSERT_EQUAL(seam_embed(c, er, &o, &e, &err), SEAM_ERR_NOT_FOUND);
    seam_embed_request_free(er);
    tu_client_free(c);
}

/* ---- errors ---------------------------------------------------------------------- */

/* A fatal error ends the call with the provider's error: the next entry is
 * not tried. (A retryable one: test_chain_answers.) */
static void test_fatal_error(void)
{
    seam_client *c = tu_client_with_test_plugins(
        "providers = { bad = { plugin = \"mock\"; options = { error_status = 400;\n"
        "                      error_body = \"{\\\"error\\\":{\\\"type\\\":\\\"bad_request\\\",\\\"message\\\":\\\"input too long\\\"}}\"; }; };\n"
        "              m = { plugin = \"mock\"; }; };\n"
        "chains = { fatal = ( { provider = \"bad\"; model = \"mock-embed\"; },\n"
        "                     { provider = \"m\"; model = \"mock-embed\"; } ); };\n");
    seam_embed_request *er = texts("retry me", NULL, NULL);
    tu_attempts at;
    seam_embeddings *e = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(embed_logged(c, er, "fatal", &at, &e, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NULL(e);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_EQUAL(err.http_status, 400);
    TU_ASSERT_STR(err.message, "input too long");
    TU_ASSERT_STR(err.provider, "bad");
    CU_ASSERT_EQUAL(at.n, 1);
    seam_embed_request_free(er);
    tu_client_free(c);
}

/* ---- the default chain and bad arguments ------------------------------------------ */

static void test_default_chain_and_arguments(void)
{
    seam_client *c = tu_client_with_test_plugins("providers = { m = { plugin = \"mock\"; }; };\n"
                                "chains = { default = ( { provider = \"m\"; model = \"mock-1\"; } ); };\n");
    seam_embed_request *er = texts("x", NULL, NULL);
    seam_embeddings *e = (seam_embeddings *)1;
    seam_error err;
    /* No embedding chain: the chat chain is not used in its place. */
    CU_ASSERT_EQUAL(seam_embed(c, er, NULL, &e, &err), SEAM_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NULL(e);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CONF);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "no chain \"embed\""));
    tu_client_free(c);

    /* Role "embed" names the chain. */
    c = tu_client_with_test_plugins("providers = { m = { plugin = \"mock\"; }; };\n"
                   "chains = { vectors = ( { provider = \"m\"; model = \"mock-embed\"; } ); };\n"
                   "roles = { embed = \"vectors\"; };\n");
    CU_ASSERT_EQUAL(seam_embed(c, er, NULL, &e, &err), SEAM_OK);
    seam_embeddings_free(e);

    seam_embed_request *none = seam_embed_request_new();
    CU_ASSERT_EQUAL(seam_embed(c, none, NULL, &e, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_embed(NULL, er, NULL, &e, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_embed(c, er, NULL, NULL, &err), SEAM_ERR_INVALID);
    seam_call_options unsized = {0};
    CU_ASSERT_EQUAL(seam_embed(c, er, &unsized, &e, &err), SEAM_ERR_INVALID);
    seam_embed_request_free(none);
    seam_embed_request_free(er);
    tu_client_free(c);
}

/* ---- the objects ---------------------------------------------------------------------- */

static void test_objects(void)
{
    seam_embed_request *er = seam_embed_request_new();
    CU_ASSERT_EQUAL(seam_embed_request_add_text(er, NULL), SEAM_ERR_INVALID);
    for (int i = 0; i < 20; i++)
        CU_ASSERT_EQUAL(seam_embed_request_add_text(er, i % 2 ? "odd" : "even"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_embed_request_count(er), 20);
    TU_ASSERT_STR(seam_embed_request_text(er, 19), "odd");
    CU_ASSERT_PTR_NULL(seam_embed_request_text(er, 20));
    CU_ASSERT_PTR_NULL(seam_embed_request_model(er));
    CU_ASSERT_EQUAL(seam_embed_request_set_model(er, "m"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_embed_request_set_model(er, NULL), SEAM_OK);
    CU_ASSERT_PTR_NULL(seam_embed_request_model(er));
    seam_embed_request_free(er);
    seam_embed_request_free(NULL);

    seam_embeddings *e = seam_embeddings_new(2);
    float v[3] = {1, 2, 3};
    CU_ASSERT_EQUAL(seam_embeddings_set_vector(e, 2, v, 3), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_embeddings_set_vector(e, 0, v, 0), SEAM_ERR_INVALID);
    float bad[2] = {1, NAN};
    CU_ASSERT_EQUAL(seam_embeddings_set_vector(e, 0, bad, 2), SEAM_ERR_INVALID);
    float inf[1] = {INFINITY};
    CU_ASSERT_EQUAL(seam_embeddings_set_vector(e, 0, inf, 1), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_embeddings_set_vector(e, 1, v, 3), SEAM_OK);
    v[0] = 9; /* copied */
    size_t d = 0;
    CU_ASSERT_EQUAL(seam_embeddings_vector(e, 1, &d)[0], 1.0f);
    CU_ASSERT_EQUAL(d, 3);
    CU_ASSERT_EQUAL(seam_embeddings_set_vector(e, 1, v, 2), SEAM_OK); /* replaced */
    CU_ASSERT_EQUAL(seam_embeddings_vector(e, 1, &d)[0], 9.0f);
    CU_ASSERT_EQUAL(d, 2);
    CU_ASSERT_PTR_NULL(seam_embeddings_vector(e, 0, &d));
    seam_usage u = {.present = SEAM_USAGE_INPUT, .input_tokens = -5};
    CU_ASSERT_EQUAL(seam_embeddings_set_usage(e, &u), SEAM_OK);
    CU_ASSERT_EQUAL(seam_embeddings_usage(e)->input_tokens, 0); /* clamped */
    CU_ASSERT_EQUAL(seam_embeddings_count(e), 2);
    CU_ASSERT_PTR_NULL(seam_embeddings_provider(e));
    seam_embeddings_free(e);
    seam_embeddings_free(NULL);
    CU_ASSERT_EQUAL(seam_embeddings_count(NULL), 0);
}

static const tu_test tests[] = {
    {"batch and determinism (mock)", test_batch_and_determinism},
    {"dimensions", test_dimensions},
    {"usage and cost", test_usage_and_cost},
    {"chains: the entry that answers, the attempts before it", test_chain_answers},
    {"chains: no entry embeds (ABI 1.0), a generation still works", test_no_entry_embeds},
    {"a single provider", test_single_provider},
    {"errors: a fatal one ends the call", test_fatal_error},
    {"default chain and arguments", test_default_chain_and_arguments},
    {"request and result objects", test_objects},
    {NULL, NULL},
};

int main(void)
{
    return tu_run_suite("embed", tests, NULL);
}
