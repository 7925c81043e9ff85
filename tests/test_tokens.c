/* test_tokens.c — token counts: the local estimate's rules
 * (seam_estimate_tokens), that the chain's context-window skip and the
 * executor's compression use that same estimate, and seam_count_tokens: the
 * provider's count endpoint (the mock's), the estimate for a plugin without
 * one (testecho, and testabi10 whose ABI 1.0 table ends before the member),
 * the estimate with a note when the endpoint fails, and which chain entry is
 * counted for. The real codecs' endpoints are tested against the fake server
 * in test_wire_counts.c. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <seam/seam.h>

/* The estimate of one user message holding text, less the request's and the
 * message's framing (3 + 4). */
static int64_t text_tokens(const char *text)
{
    seam_request *r = tu_user(text);
    int64_t n = seam_estimate_tokens(r) - 7;
    seam_request_free(r);
    return n;
}

/* ---- the estimate ------------------------------------------------------------------ */

static void test_estimate_rules(void)
{
    CU_ASSERT_EQUAL(seam_estimate_tokens(NULL), 0);
    seam_request *empty = seam_request_new();
    CU_ASSERT_EQUAL(seam_estimate_tokens(empty), 3); /* priming the answer */
    /* A word with its leading space is one token. */
    CU_ASSERT_EQUAL(text_tokens("Hello world"), 2);
    CU_ASSERT_EQUAL(text_tokens("Hello"), 1);
    /* Long words: one more per five letters past six. */
    CU_ASSERT_EQUAL(text_tokens("internationalization"), 4);
    CU_ASSERT_EQUAL(text_tokens("abcdefg"), 2);
    CU_ASSERT_EQUAL(text_tokens("abcdef"), 1);
    /* Digits in threes; punctuation a token per two marks. */
    CU_ASSERT_EQUAL(text_tokens("12345"), 2);
    CU_ASSERT_EQUAL(text_tokens("!!!!"), 2);
    CU_ASSERT_EQUAL(text_tokens("a, b."), 4);
    /* A line break is a token of its own; CJK a token a character. */
    CU_ASSERT_EQUAL(text_tokens("a\n\nb"), 3);
    CU_ASSERT_EQUAL(text_tokens("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"), 3);
    /* Accented Latin letters stay in their word. */
    CU_ASSERT_EQUAL(text_tokens("caf\xc3\xa9 cr\xc3\xa8me"), 2);

    /* The system prompt is a message; media a flat 1000; a tool definition 8
     * plus its name, description and schema. */
    seam_request *r = tu_user("Hello");
    int64_t base = seam_estimate_tokens(r);
    CU_ASSERT_EQUAL(base, 3 + 4 + 1);
    seam_request_set_system(r, "Be brief.");
    CU_ASSERT_EQUAL(seam_estimate_tokens(r), base + 4 + 3);
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    seam_message_add_media(m, "image/png", SEAM_MEDIA_URL, "https://example.com/a.png");
    seam_request_add_message(r, m);
    CU_ASSERT_EQUAL(seam_estimate_tokens(r), base + 7 + 4 + 1000);
    seam_request_add_tool(r, "f", "d", "{}");
    CU_ASSERT_EQUAL(seam_estimate_tokens(r), base + 7 + 1004 + 8 + 1 + 1 + 1);
    /* A tool call and its result: 12 each for their framing. */
    seam_message *call = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_tool_call(call, "c1", "f", "{}");
    seam_request_add_message(r, call);
    CU_ASSERT_EQUAL(seam_estimate_tokens(r), base + 7 + 1004 + 11 + 4 + 12 + 1 + 1);
    seam_request_free(r);
    seam_request_free(empty);
}

/* The chain skips a model whose window the estimate exceeds, judged at the
 * estimate's lowest reading (60%): one token less of window skips, exactly
 * that much serves. */
static void test_context_window_uses_the_estimate(void)
{
    seam_request *req = tu_user("The quick brown fox jumps over the lazy dog, then rests for a while "
                             "under the old oak tree beside the river, watching the water flow.");
    int64_t est = seam_estimate_tokens(req);
    int64_t lowest = est - est * 4 / 10;
    for (int fits = 0; fits <= 1; fits++) {
        char conf[1024];
        snprintf(conf, sizeof conf,
                 "providers = { small = { plugin = \"mock\"; options = { reply = \"small\"; }; };\n"
                 "              big = { plugin = \"mock\"; options = { reply = \"big\"; }; }; };\n"
                 "chains = { default = ( { provider = \"small\"; model = \"tiny\"; },\n"
                 "                       { provider = \"big\"; model = \"mock-1\"; } ); };\n"
                 "models = ( { id = \"tiny\"; provider = \"small\"; context_window = %lld; } );\n",
                 (long long)(fits ? lowest : lowest - 1));
        seam_client *c = tu_client_with_test_plugins(conf);
        seam_result *res = NULL;
        seam_error err;
        CU_ASSERT_EQUAL_FATAL(seam_generate(c, req, NULL, &res, &err), SEAM_OK);
        TU_ASSERT_STR(seam_result_text(res), fits ? "small" : "big");
        seam_result_free(res);
        tu_client_free(c);
    }
    seam_request_free(req);
}

/* The executor's default estimate is the same function over the history. */
typedef struct seen {
    int64_t tokens, expected;
    int calls;
} seen;

static int64_t history_estimate(const seam_session *s)
{
    seam_request *r = seam_request_new();
    for (size_t i = 0; i < seam_session_history_count(s); i++)
        seam_request_add_message(r, seam_message_dup(seam_session_history_at(s, i)));
    seam_request *empty = seam_request_new();
    int64_t n = seam_estimate_tokens(r) - seam_estimate_tokens(empty);
    seam_request_free(empty);
    seam_request_free(r);
    return n;
}

static int should_compress(void *ud, const seam_session *s, int64_t tokens)
{
    seen *sn = ud;
    sn->tokens = tokens;
    sn->expected = history_estimate(s);
    sn->calls++;
    return 0;
}

static int no_compress(void *ud, seam_executor *ex, seam_session *s, seam_error *err)
{
    return SEAM_OK;
}

static void test_executor_uses_the_estimate(void)
{
    seam_client *c = tu_client_with_test_plugins("providers = { m = { plugin = \"mock\";\n"
                                "  options = { reply = \"An answer of several words, 42 of them.\"; }; }; };\n"
                                "chains = { default = ( { provider = \"m\"; model = \"mock-1\"; } ); };\n");
    seam_session *s = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_session_new(c, NULL, &s, &err), SEAM_OK);
    seen sn = {0, 0, 0};
    seam_context_engine engine = {.size = sizeof engine, .should_compress = should_compress,
                                  .compress = no_compress, .ud = &sn};
    seam_executor_options eo = {.size = sizeof eo, .context = &engine};
    seam_executor *ex = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_executor_new(s, &eo, &ex, &err), SEAM_OK);
    seam_run *run = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_executor_run(ex, "How many words, internationally?", NULL, &run, &err),
                          SEAM_OK);
    const seam_event *ev;
    while (seam_run_next(run, &ev, &err) == 1)
        ;
    seam_run_free(run);
    CU_ASSERT_EQUAL(sn.calls, 1);
    CU_ASSERT(sn.tokens > 0);
    CU_ASSERT_EQUAL(sn.tokens, sn.expected);
    seam_executor_free(ex);
    seam_session_free(s);
    tu_client_free(c);
}

/* ---- seam_count_tokens ---------------------------------------------------------------- */

#define COUNT_CONF                                                                         \
    "providers = { m = { plugin = \"mock\"; }; ec = { plugin = \"testecho\"; };\n"          \
    "              old = { plugin = \"testabi10\"; };\n"                                   \
    "              down = { plugin = \"mock\"; options = { error_status = 500; }; };\n"     \
    "              gone = { plugin = \"nosuchplugin\"; };\n"                                 \
    "              nokey = { plugin = \"mock\"; api_key_env = \"SEAM_TEST_UNSET_KEY\"; }; };\n" \
    "chains = { default = ( { provider = \"gone\"; model = \"x\"; },\n"                     \
    "                       { provider = \"m\"; model = \"mock-1\"; } );\n"                  \
    "           echo = ( { provider = \"ec\"; model = \"e-1\"; } );\n"                   \
    "           keyed = ( { provider = \"nokey\"; model = \"k-1\"; },\n"                  \
    "                     { provider = \"m\"; model = \"mock-3\"; } );\n"                  \
    "           nokeys = ( { provider = \"nokey\"; model = \"k-1\"; } ); };\n"

static seam_token_count count(seam_client *c, const seam_request *req, const seam_call_options *o,
                              int expect_rc)
{
    seam_token_count tc;
    memset(&tc, 0, sizeof tc);
    tc.size = sizeof tc;
    seam_error err;
    CU_ASSERT_EQUAL(seam_count_tokens(c, req, o, &tc, &err), expect_rc);
    return tc;
}

static void test_count_endpoint(void)
{
    seam_client *c = tu_client_with_test_plugins(COUNT_CONF);
    seam_request *req = tu_user("five words are right here");
    tu_attempts at = {{0}};
    seam_call_options o = {.size = sizeof o, .provider = "m", .model = "mock-1",
                           .on_attempt = tu_on_attempt, .ud = &at};
    seam_token_count tc = count(c, req, &o, SEAM_OK);
    CU_ASSERT_EQUAL(tc.exact, 1);
    CU_ASSERT_EQUAL(tc.input_tokens, 5); /* the mock counts words */
    TU_ASSERT_STR(tc.provider, "m");
    TU_ASSERT_STR(tc.model, "mock-1");
    TU_ASSERT_STR(tc.note, "");
    TU_ASSERT_STR(at.log, "succeeded m/mock-1\n");

    /* Through the default chain: the first entry with a plugin is counted for. */
    tc = count(c, req, NULL, SEAM_OK);
    CU_ASSERT_EQUAL(tc.exact, 1);
    TU_ASSERT_STR(tc.provider, "m");
    /* An entry whose key is not set is passed over, as a call would pass it. */
    unsetenv("SEAM_TEST_UNSET_KEY");
    seam_call_options ok = {.size = sizeof ok, .chain = "keyed"};
    tc = count(c, req, &ok, SEAM_OK);
    TU_STR_EQ(tc.provider, "m");
    TU_STR_EQ(tc.model, "mock-3");
    CU_ASSERT_EQUAL(tc.exact, 1);
    /* ...unless every entry lacks one: the first is estimated for, saying why. */
    seam_call_options nk = {.size = sizeof nk, .chain = "nokeys"};
    tc = count(c, req, &nk, SEAM_OK);
    TU_STR_EQ(tc.provider, "nokey");
    CU_ASSERT_EQUAL(tc.exact, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(tc.note, "the count endpoint failed"));
    /* -m: the model replaces the entry's. */
    seam_call_options om = {.size = sizeof om, .model = "mock-2"};
    tc = count(c, req, &om, SEAM_OK);
    TU_ASSERT_STR(tc.model, "mock-2");
    seam_request_free(req);
    tu_client_free(c);
}

static void test_count_estimate(void)
{
    seam_client *c = tu_client_with_test_plugins(COUNT_CONF);
    seam_request *req = tu_user("five words are right here");
    int64_t est = seam_estimate_tokens(req);

    /* No count endpoint in the plugin: the estimate, saying so. */
    seam_call_options o = {.size = sizeof o, .chain = "echo"};
    seam_token_count tc = count(c, req, &o, SEAM_OK);
    CU_ASSERT_EQUAL(tc.exact, 0);
    CU_ASSERT_EQUAL(tc.input_tokens, est);
    TU_ASSERT_STR(tc.provider, "ec");
    TU_ASSERT_STR(tc.note, "plugin testecho has no token count endpoint");

    /* A plugin of ABI 1.0 has none either (its table is never read past its size). */
    seam_call_options old = {.size = sizeof old, .provider = "old", .model = "any"};
    tc = count(c, req, &old, SEAM_OK);
    CU_ASSERT_EQUAL(tc.exact, 0);
    TU_ASSERT_STR(tc.note, "plugin testabi10 has no token count endpoint");

    /* The endpoint fails: the attempt is reported, and the estimate says why. */
    tu_attempts at = {{0}};
    seam_call_options down = {.size = sizeof down, .provider = "down", .model = "mock-1",
                              .on_attempt = tu_on_attempt, .ud = &at};
    tc = count(c, req, &down, SEAM_OK);
    CU_ASSERT_EQUAL(tc.exact, 0);
    CU_ASSERT_EQUAL(tc.input_tokens, est);
    TU_ASSERT_STR(tc.note, "the count endpoint failed: mock: scripted HTTP 500");
    TU_ASSERT_STR(at.log, "failed down/mock-1\n");

    /* What cannot be counted at all fails. */
    seam_call_options nobody = {.size = sizeof nobody, .provider = "nobody", .model = "x"};
    count(c, req, &nobody, SEAM_ERR_NOT_FOUND);
    seam_call_options nomodel = {.size = sizeof nomodel, .provider = "m"};
    count(c, req, &nomodel, SEAM_ERR_INVALID);
    seam_call_options nochain = {.size = sizeof nochain, .chain = "nochain"};
    count(c, req, &nochain, SEAM_ERR_NOT_FOUND);
    seam_token_count small = {.size = 8};
    seam_error err;
    CU_ASSERT_EQUAL(seam_count_tokens(c, req, NULL, &small, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_count_tokens(NULL, req, NULL, &tc, &err), SEAM_ERR_INVALID);
    seam_request_free(req);
    tu_client_free(c);

    /* A chain none of whose providers has its plugin. */
    c = tu_client_with_test_plugins("providers = { gone = { plugin = \"nosuchplugin\"; }; };\n"
                   "chains = { default = ( { provider = \"gone\"; model = \"x\"; } ); };\n");
    req = tu_user("x");
    count(c, req, NULL, SEAM_ERR_NOT_FOUND);
    seam_request_free(req);
    tu_client_free(c);
}

static const tu_test tests[] = {
    {"estimate rules", test_estimate_rules},
    {"context-window skip uses the estimate", test_context_window_uses_the_estimate},
    {"executor compression uses the estimate", test_executor_uses_the_estimate},
    {"count endpoint (mock)", test_count_endpoint},
    {"count falls back to the estimate", test_count_estimate},
    {NULL, NULL},
};

int main(void)
{
    return tu_run_suite("tokens", tests, NULL);
}
