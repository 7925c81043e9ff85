/* test_prompt_cache.c — the cache strategies of reference 000 (system_and_3,
 * prefix_and_2) through the real plugins and the fake server: where the
 * anthropic plugin puts its cache_control breakpoints for each, and the
 * gemini plugin's explicit context caching — the cachedContents exchange the
 * core makes before the generation, the cachedContent named in
 * generateContent, the handle reused from the state store across calls, made
 * again once it expires (the client's clock), and a refused creation that
 * sends the whole request and is not asked again.
 *
 * The Gemini wire follows its API reference: cachedContents.create is
 * `POST https://generativelanguage.googleapis.com/v1beta/cachedContents` with
 * a CachedContent body (model "models/{model}", systemInstruction, contents,
 * tools, toolConfig, ttl such as "300s"), answered by the CachedContent with
 * its `name` ("cachedContents/{id}") and `expireTime` ("always provided on
 * output"), https://ai.google.dev/api/rest/v1beta/cachedContents/create and
 * https://ai.google.dev/gemini-api/docs/caching; generateContent then names
 * it as `cachedContent` and may not set systemInstruction, tools or
 * toolConfig itself. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <seam/loop.h>
#include <seam/seam.h>

#define GM_ANSWER                                                                              \
    "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"ok\"}]},"          \
    "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":3,"                    \
    "\"cachedContentTokenCount\":2,\"candidatesTokenCount\":1}}"
/* A CachedContent that lives an hour by the server's clock. */
#define GM_CACHE(id)                                                                           \
    "{\"name\":\"cachedContents/" id "\",\"model\":\"models/gemini-2.5-flash\","               \
    "\"createTime\":\"2026-11-24T08:00:00.123456Z\",\"updateTime\":\"2026-11-24T08:00:00.123456Z\"," \
    "\"expireTime\":\"2026-11-24T09:00:00.123456Z\",\"usageMetadata\":{\"totalTokenCount\":4100}}"
#define HOUR_MS 3600000

static fake_server *srv;
static seam_client *client;
static int64_t fake_now = 1000000;

static int64_t clock_now(void *ud)
{
    (void)ud;
    return fake_now;
}

static int start(void)
{
    if (tu_start_client_on(&srv, &client,
        "providers = {\n"
        "  an = { plugin = \"anthropic\"; base_url = \"@URL@/v1\"; api_key = \"sk-ant-cache\"; };\n"
        "  gm = { plugin = \"gemini\"; base_url = \"@URL@/v1beta\"; api_key = \"gm-cache-key\"; };\n"
        "};\n") != 0)
        return -1;
    tu_log_capture(client);
    seam_client_set_clock(client, clock_now, NULL, NULL);
    return 0;
}

/* system, then user/assistant texts alternating from a user text. */
static seam_request *conversation(const char *system, const char *const *texts, size_t n,
                                  int with_tool, const char *options)
{
    seam_request *req = seam_request_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(req);
    if (system)
        seam_request_set_system(req, system);
    for (size_t i = 0; i < n; i++) {
        seam_message *m = seam_message_new(i % 2 ? SEAM_ROLE_ASSISTANT : SEAM_ROLE_USER);
        seam_message_add_text(m, texts[i]);
        CU_ASSERT_EQUAL_FATAL(seam_request_add_message(req, m), SEAM_OK);
    }
    if (with_tool)
        seam_request_add_tool(req, "lookup", "Looks a word up.",
                              "{\"type\":\"object\",\"properties\":{\"w\":{\"type\":\"string\"}}}");
    CU_ASSERT_EQUAL_FATAL(seam_request_set_provider_options(req, options), SEAM_OK);
    return req;
}

static int run(const char *provider, const char *model, const seam_request *req)
{
    tu_call r = tu_run_generate(client, provider, model, req, 0);
    free(r.summary);
    return tu_said(r.status, &r.err, "call failed");
}

/* ---- anthropic: where the breakpoints go ------------------------------------ */

static int has_cc(json_object *o, const char *path)
{
    json_object *v = tu_json_at(o, path);
    return v && tu_json_has(v, "cache_control");
}

static int count_cc(json_object *o)
{
    int n = 0;
    if (json_object_is_type(o, json_type_object)) {
        json_object_object_foreach(o, k, v)
        {
            n += strcmp(k, "cache_control") == 0;
            n += count_cc(v);
        }
    } else if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(o); i++)
            n += count_cc(json_object_array_get_idx(o, i));
    }
    return n;
}

/* The breakpoints of an Anthropic body: every path in marked (space-separated)
 * carries cache_control, none in unmarked does, and there are total in all. */
static void breakpoints_are(json_object *b, const char *marked, const char *unmarked, int total)
{
    const char *lists[] = { marked, unmarked };
    for (int want = 1; want >= 0; want--) {
        char paths[256];
        snprintf(paths, sizeof paths, "%s", lists[1 - want]);
        for (char *save = NULL, *path = strtok_r(paths, " ", &save); path;
             path = strtok_r(NULL, " ", &save)) {
            char what[300]; /* the failure's text: CUnit keeps a copy */
            snprintf(what, sizeof what, "%s %s cache_control", path, want ? "has" : "has no");
            CU_assertImplementation(has_cc(b, path) == want, __LINE__, what, __FILE__, "", CU_FALSE);
        }
    }
    CU_ASSERT_EQUAL(count_cc(b), total);
}

static const char *const five[] = { "u1", "a1", "u2", "a2", "u3" };

static json_object *anthropic_body(const char *system, const char *const *texts, size_t n,
                                   int with_tool, const char *options)
{
    fake_server_push_json(srv, 200, TU_ANTHROPIC_OK, NULL);
    seam_request *req = conversation(system, texts, n, with_tool, options);
    CU_ASSERT_EQUAL(run("an", "claude-sonnet-4-5", req), SEAM_OK);
    seam_request_free(req);
    return tu_last_body(srv);
}

static void test_anthropic_system_and_3(void)
{
    json_object *b = anthropic_body("Be terse.", five, 5, 0, "{\"cache_strategy\":\"system_and_3\"}");
    breakpoints_are(b, "system.0 messages.0.content.0 messages.2.content.0 messages.4.content.0",
                    "messages.1.content.0 messages.3.content.0", 4);
    json_object_put(b);
}

static void test_anthropic_prefix_and_2(void)
{
    /* The shared prefix ends at a1, before the last two turns (u2, u3). */
    json_object *b = anthropic_body("Be terse.", five, 5, 0, "{\"cache_strategy\":\"prefix_and_2\"}");
    breakpoints_are(b, "messages.1.content.0 messages.2.content.0 messages.4.content.0",
                    "system.0 messages.0.content.0 messages.3.content.0", 3);
    json_object_put(b);

    /* Nothing before the last two turns: the prefix is the system prompt... */
    static const char *const three[] = { "u1", "a1", "u2" };
    b = anthropic_body("Be terse.", three, 3, 0, "{\"anthropic\":{\"cache\":\"prefix_and_2\"}}");
    breakpoints_are(b, "system.0 messages.0.content.0 messages.2.content.0", "", 3);
    json_object_put(b);

    /* ...or, without one, the last tool. */
    b = anthropic_body(NULL, three, 1, 1, "{\"cache_strategy\":\"prefix_and_2\"}");
    breakpoints_are(b, "tools.0 messages.0.content.0", "", 2);
    json_object_put(b);
}

/* The session's strategy reaches the codec as the flat cache_strategy. */
static void test_anthropic_session_strategy(void)
{
    seam_session_options so = { .size = sizeof so, .provider = "an",
                                .model = "claude-sonnet-4-5", .system = "Be terse.",
                                .cache = SEAM_CACHE_PREFIX_AND_2 };
    seam_session *s = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_session_new(client, &so, &s, &err), SEAM_OK);
    for (size_t i = 0; i < 5; i++) {
        seam_message *m = seam_message_new(i % 2 ? SEAM_ROLE_ASSISTANT : SEAM_ROLE_USER);
        seam_message_add_text(m, five[i]);
        seam_session_append(s, m);
        seam_message_free(m);
    }
    fake_server_push_json(srv, 200, TU_ANTHROPIC_OK, NULL);
    seam_result *res = NULL;
    CU_ASSERT_EQUAL(seam_session_send(s, NULL, &res, &err), SEAM_OK);
    json_object *b = tu_last_body(srv);
    breakpoints_are(b, "messages.1.content.0", "system.0", 3);
    json_object_put(b);
    seam_result_free(res);
    seam_session_free(s);
}

/* ---- gemini: cachedContents -------------------------------------------------- */

static json_object *body_at(size_t i)
{
    const char *text = fake_server_request_body(srv, i);
    return text ? json_tokener_parse(text) : NULL;
}

/* One call to gm's model: the server answers first (a cache creation's
 * answer; none when first is NULL), then GM_ANSWER. The call must succeed
 * having made just those requests; returns the index of the first. */
static size_t gemini_round(const char *model, const seam_request *req, int first_status,
                           const char *first)
{
    size_t before = fake_server_request_count(srv);
    if (first)
        fake_server_push_json(srv, first_status, first, NULL);
    fake_server_push_json(srv, 200, GM_ANSWER, NULL);
    CU_ASSERT_EQUAL(run("gm", model, req), SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(fake_server_request_count(srv), before + (first ? 2 : 1));
    return before;
}

/* The cache the i-th request's generation names: want_json, or TU_ABSENT. */
#define ASSERT_CACHE_NAMED(i, want_json) assert_cache_named((i), (want_json), __LINE__)
static void assert_cache_named(size_t i, const char *want_json, int line)
{
    json_object *gb = body_at(i);
    tu_members_are(gb, TU_MEMBERS({ "cachedContent", want_json }), __FILE__, line);
    json_object_put(gb);
}

static void test_gemini_prefix_cache_created_and_reused(void)
{
    seam_request *req = conversation("You are a careful reader.", five, 5, 1,
                                     "{\"cache_strategy\":\"prefix_and_2\"}");
    size_t before = gemini_round("gemini-2.5-flash", req, 200, GM_CACHE("c1"));

    /* The creation: the model, the system instruction, the tools and the
     * contents before the last two turns (u1, a1). */
    TU_STR_EQ(fake_server_request_path(srv, before), "/v1beta/cachedContents");
    TU_STR_EQ(fake_server_request_method(srv, before), "POST");
    CU_ASSERT_PTR_NOT_NULL(fake_server_request_header(srv, before, "x-goog-api-key"));
    json_object *cb = body_at(before);
    CU_ASSERT_EQUAL(json_object_array_length(tu_json_at(cb, "contents")), 2);
    TU_ASSERT_MEMBERS(cb, { "model", "\"models/gemini-2.5-flash\"" },
                      { "systemInstruction.parts.0.text", "\"You are a careful reader.\"" },
                      { "contents.0.parts.0.text", "\"u1\"" },
                      { "contents.1.parts.0.text", "\"a1\"" },
                      { "tools.0.functionDeclarations.0.name", "\"lookup\"" },
                      { "toolConfig", TU_PRESENT },
                      { "ttl", TU_ABSENT }, /* the API's default: an hour */
                      { "generationConfig", TU_ABSENT });
    json_object_put(cb);

    /* The generation names it and leaves out what it holds. */
    CU_ASSERT_PTR_NOT_NULL(strstr(fake_server_request_path(srv, before + 1),
                                  "/v1beta/models/gemini-2.5-flash:generateContent"));
    json_object *gb = body_at(before + 1);
    CU_ASSERT_EQUAL(json_object_array_length(tu_json_at(gb, "contents")), 3);
    TU_ASSERT_MEMBERS(gb, { "cachedContent", "\"cachedContents/c1\"" },
                      { "systemInstruction", TU_ABSENT }, { "tools", TU_ABSENT },
                      { "toolConfig", TU_ABSENT }, { "cache_strategy", TU_ABSENT },
                      { "contents.0.parts.0.text", "\"u2\"" });
    json_object_put(gb);

    /* The same prefix again, 59 minutes on: the stored handle, no creation. */
    fake_now += HOUR_MS - 61000;
    ASSERT_CACHE_NAMED(gemini_round("gemini-2.5-flash", req, 0, NULL), "\"cachedContents/c1\"");

    /* Within a minute of its expiry it is not named any more: a new one. */
    fake_now += 2000;
    size_t at = gemini_round("gemini-2.5-flash", req, 200, GM_CACHE("c2"));
    TU_STR_EQ(fake_server_request_path(srv, at), "/v1beta/cachedContents");
    ASSERT_CACHE_NAMED(at + 1, "\"cachedContents/c2\"");

    /* A different prefix (another system prompt) is another cache. */
    seam_request_set_system(req, "You are a hasty reader.");
    ASSERT_CACHE_NAMED(gemini_round("gemini-2.5-flash", req, 200, GM_CACHE("c3")) + 1, "\"cachedContents/c3\"");
    seam_request_free(req);
}

static void test_gemini_system_cache(void)
{
    seam_request *req = conversation("System part only.", five, 5, 0,
                                     "{\"gemini\":{\"cache_strategy\":\"system_and_3\","
                                     "\"cache_ttl\":600}}");
    size_t before = gemini_round("gemini-2.5-flash", req, 200, GM_CACHE("s1"));
    json_object *cb = body_at(before);
    TU_ASSERT_MEMBERS(cb, { "systemInstruction.parts.0.text", "\"System part only.\"" },
                      { "contents", TU_ABSENT }, { "ttl", "\"600s\"" });
    json_object_put(cb);
    json_object *gb = body_at(before + 1);
    CU_ASSERT_EQUAL(json_object_array_length(tu_json_at(gb, "contents")), 5);
    TU_ASSERT_MEMBERS(gb, { "cachedContent", "\"cachedContents/s1\"" }, { "systemInstruction", TU_ABSENT });
    json_object_put(gb);
    seam_request_free(req);
}

static void test_gemini_refused_cache(void)
{
    seam_request *req = conversation("Tiny.", five, 5, 0, "{\"cache_strategy\":\"prefix_and_2\"}");
    size_t before = gemini_round("gemini-2.5-flash", req, 400,
                                 "{\"error\":{\"code\":400,\"message\":\"Cached content is too small. "
                                 "total_token_count=12, min_total_token_count=1024\","
                                 "\"status\":\"INVALID_ARGUMENT\"}}");
    json_object *gb = body_at(before + 1);
    CU_ASSERT_FALSE(tu_json_has(gb, "cachedContent"));
    TU_STR_EQ(tu_json_str(gb, "systemInstruction.parts.0.text"), "Tiny.");
    CU_ASSERT_EQUAL(json_object_array_length(tu_json_at(gb, "contents")), 5);
    json_object_put(gb);
    CU_ASSERT_TRUE(tu_log_has("provider gm: creating the prompt cache failed"));
    CU_ASSERT_FALSE(tu_log_has("gm-cache-key"));

    /* Not asked again for a while: the generation alone. */
    size_t at = gemini_round("gemini-2.5-flash", req, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(fake_server_request_path(srv, at), ":generateContent"));
    seam_request_free(req);
}

/* No strategy, or Gemini 4 (implicit caching only): no exchange. */
static void test_gemini_no_cache(void)
{
    static const char *const models[] = { "gemini-2.5-flash", "gemini-4-pro" };
    static const char *const opts[] = { "{}", "{\"cache_strategy\":\"prefix_and_2\"}" };
    for (size_t i = 0; i < 2; i++) {
        seam_request *req = conversation("Plain.", five, 5, 0, opts[i]);
        gemini_round(models[i], req, 0, NULL);
        json_object *gb = tu_last_body(srv);
        TU_ASSERT_MEMBERS(gb, { "cachedContent", TU_ABSENT }, { "systemInstruction", TU_PRESENT });
        json_object_put(gb);
        seam_request_free(req);
    }
}

static const tu_test tests[] = {
    { "anthropic: system_and_3 breakpoints", test_anthropic_system_and_3 },
    { "anthropic: prefix_and_2 breakpoints", test_anthropic_prefix_and_2 },
    { "anthropic: the session's strategy", test_anthropic_session_strategy },
    { "gemini: prefix cache created, reused, made again after expiry",
      test_gemini_prefix_cache_created_and_reused },
    { "gemini: system_and_3 caches the system part, with a ttl", test_gemini_system_cache },
    { "gemini: a refused creation sends the whole request", test_gemini_refused_cache },
    { "gemini: no strategy, or implicit caching only", test_gemini_no_cache },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("prompt_cache", tests, start);
}
