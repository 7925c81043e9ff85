/* test_session.c — sessions through the real loader: history (snapshot,
 * append, truncate, clear), send and stream appending the answer, one-off
 * sends leaving the history alone, the retry policy (retryable failures
 * retried with backoff, fatal ones not, a cancel during the wait), the system
 * suffix, provider flags and cache strategy as they reach the wire (OpenAI
 * codec against the fake server), the credential refresh before expiry, and
 * the role factory. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

static seam_client *mock;  /* m1, m2 (mock); chains default (m1), second (m2); roles */
static fake_server *srv;
static seam_client *oa;    /* o (openai, key from $SEAM_TEST_SESSION_KEY) at the fake server */
static seam_client *an;    /* a (anthropic) at the fake server */

static int start(void)
{
    mock = tu_client_at_end(tu_clientf(TU_CONF_TWO_MOCKS("options = { reply = \"from m1\"; };")));
    srv = tu_server_start();
    if (!mock || !srv)
        return -1;
    setenv("SEAM_TEST_SESSION_KEY", "key-old", 1);
    oa = tu_client_at_end(tu_if_built(tu_clientf(
        "providers = { o = { plugin = \"openai\"; base_url = \"%s/v1\"; "
        "api_key_env = \"SEAM_TEST_SESSION_KEY\"; }; };\n"
        "chains = { default = ( { provider = \"o\"; model = \"gpt-4o\"; } ); };\n",
        fake_server_url(srv))));
    an = tu_client_at_end(tu_if_built(tu_clientf(
        "providers = { a = { plugin = \"anthropic\"; base_url = \"%s/v1\"; api_key = \"k-an\"; }; };\n"
        "chains = { default = ( { provider = \"a\"; model = \"claude-sonnet-4-5\"; } ); };\n",
        fake_server_url(srv))));
    return 0;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static seam_session *new_session(seam_client *c, const seam_session_options *o)
{
    seam_session *s = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(tu_said(seam_session_new(c, o, &s, &err), &err, "session"), SEAM_OK);
    return s;
}

/* A session on oa that retries as retry says, holding the user's "hello". */
static seam_session *hello_session(seam_retry_policy retry)
{
    seam_session_options o = { .size = sizeof o, .retry = retry };
    seam_session *s = new_session(oa, &o);
    seam_session_append_user_text(s, "hello");
    return s;
}

/* Reads st to its end: the text deltas joined into text (size bytes) and
 * counted in *deltas (if not NULL). The last seam_session_stream_next status. */
static int read_stream(seam_session_stream *st, char *text, size_t size, int *deltas, seam_error *err)
{
    const seam_chunk *c;
    int rc;
    while ((rc = seam_session_stream_next(st, &c, err)) == 1)
        if (c->type == SEAM_CHUNK_TEXT_DELTA) {
            size_t len = strlen(text);
            snprintf(text + len, size - len, "%s", c->text);
            if (deltas)
                (*deltas)++;
        }
    return rc;
}

static const char *text_of(const seam_session *s, size_t i)
{
    return seam_message_text(seam_session_history_at(s, i));
}

/* ---- history ---------------------------------------------------------------------- */

static void test_history(void)
{
    seam_session *s = new_session(mock, NULL);
    char text[16];
    for (int i = 0; i < 6; i++) {
        snprintf(text, sizeof text, "m%d", i);
        CU_ASSERT_EQUAL(seam_session_append_user_text(s, text), SEAM_OK);
    }
    CU_ASSERT_EQUAL(seam_session_history_count(s), 6);
    CU_ASSERT_STRING_EQUAL(text_of(s, 5), "m5");
    CU_ASSERT_PTR_NULL(seam_session_history_at(s, 6));

    /* A snapshot does not follow later changes. */
    seam_request *snap = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_session_snapshot(s, &snap), SEAM_OK);
    seam_session_truncate(s, 2, 1);
    CU_ASSERT_EQUAL(seam_session_history_count(s), 3);
    CU_ASSERT_STRING_EQUAL(text_of(s, 0), "m0");
    CU_ASSERT_STRING_EQUAL(text_of(s, 1), "m1");
    CU_ASSERT_STRING_EQUAL(text_of(s, 2), "m5");
    CU_ASSERT_EQUAL(seam_request_message_count(snap), 6);
    CU_ASSERT_STRING_EQUAL(seam_message_text(seam_request_message(snap, 3)), "m3");
    seam_request_free(snap);

    /* Keeping at least everything changes nothing; keep_last 0 works. */
    seam_session_truncate(s, 2, 1);
    seam_session_truncate(s, 3, 0);
    seam_session_truncate(s, 0, 5);
    CU_ASSERT_EQUAL(seam_session_history_count(s), 3);
    seam_session_truncate(s, 1, 0);
    CU_ASSERT_EQUAL(seam_session_history_count(s), 1);
    CU_ASSERT_STRING_EQUAL(text_of(s, 0), "m0");

    /* append copies */
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_text(m, "mine");
    CU_ASSERT_EQUAL(seam_session_append(s, m), SEAM_OK);
    seam_message_add_text(m, " changed");
    CU_ASSERT_STRING_EQUAL(text_of(s, 1), "mine");
    seam_message_free(m);

    seam_session_clear(s);
    CU_ASSERT_EQUAL(seam_session_history_count(s), 0);
    CU_ASSERT_PTR_NULL(seam_session_pending_call(s, NULL, NULL));
    seam_session_free(s);
    seam_session_free(NULL);
}

/* ---- sends -------------------------------------------------------------------------- */

static void test_send_appends(void)
{
    seam_request *defaults = seam_request_new();
    seam_request_set_provider_options(defaults, "{\"replies\":[{\"reply\":\"first\"},{\"reply\":\"second\"}]}");
    seam_session_options o = { .size = sizeof o, .defaults = defaults, .system = "Be brief." };
    seam_session *s = new_session(mock, &o);
    seam_request_free(defaults);
    seam_error err;
    seam_result *r = NULL;
    seam_session_append_user_text(s, "one");
    CU_ASSERT_EQUAL_FATAL(seam_session_send(s, NULL, &r, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_result_text(r), "first");
    seam_result_free(r);
    seam_session_append_user_text(s, "two");
    CU_ASSERT_EQUAL_FATAL(seam_session_send(s, NULL, &r, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_result_text(r), "second");
    seam_result_free(r);
    CU_ASSERT_EQUAL(seam_session_history_count(s), 4);
    CU_ASSERT_EQUAL(seam_message_role(seam_session_history_at(s, 3)), SEAM_ROLE_ASSISTANT);
    CU_ASSERT_STRING_EQUAL(text_of(s, 3), "second");

    seam_request *snap = NULL;
    seam_session_snapshot(s, &snap);
    CU_ASSERT_STRING_EQUAL(seam_request_system(snap), "Be brief.");
    seam_request_free(snap);

    /* A one-off send leaves the history alone. */
    seam_request *side = seam_request_new();
    seam_request_add_user_text(side, "aside");
    seam_request_set_provider_options(side, "{\"reply\":\"side answer\"}");
    CU_ASSERT_EQUAL_FATAL(seam_session_send_request(s, side, NULL, &r, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_result_text(r), "side answer");
    CU_ASSERT_EQUAL(seam_session_history_count(s), 4);
    seam_result_free(r);
    seam_request_free(side);

    /* Tools offered through the send options are not run: the call comes back. */
    seam_toolset *ts = seam_toolset_new();
    seam_toolset_add(ts, "look", "looks", NULL, NULL, NULL);
    seam_send_options so = { .size = sizeof so, .tools = ts,
                             .provider_flags_json = "{\"replies\":[{\"reply\":\"x\"}],"
                                                    "\"tool_calls\":[{\"id\":\"t1\",\"name\":\"look\"}]}" };
    seam_session_append_user_text(s, "look it up");
    CU_ASSERT_EQUAL_FATAL(seam_session_send(s, &so, &r, &err), SEAM_OK);
    CU_ASSERT_EQUAL(seam_result_stop_reason(r), SEAM_STOP_TOOL_USE);
    CU_ASSERT_EQUAL(seam_session_history_count(s), 6);
    seam_result_free(r);
    seam_toolset_free(ts);

    /* Nothing to send is an error, with the history untouched. */
    seam_session_clear(s);
    CU_ASSERT_NOT_EQUAL(seam_session_send(s, NULL, &r, &err), SEAM_OK);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_EQUAL(seam_session_history_count(s), 0);
    seam_session_free(s);
}

static void test_stream_appends(void)
{
    seam_request *defaults = seam_request_new();
    seam_request_set_provider_options(defaults, "{\"reply\":\"streamed answer here\",\"chunks\":3}");
    seam_session_options o = { .size = sizeof o, .defaults = defaults };
    seam_session *s = new_session(mock, &o);
    seam_request_free(defaults);
    seam_session_append_user_text(s, "go");
    seam_session_stream *st = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_session_stream_open(s, NULL, &st, &err), SEAM_OK);
    char text[128] = "";
    int deltas = 0;
    CU_ASSERT_EQUAL(read_stream(st, text, sizeof text, &deltas, &err), 0);
    CU_ASSERT_EQUAL(deltas, 3);
    CU_ASSERT_STRING_EQUAL(text, "streamed answer here");
    CU_ASSERT_STRING_EQUAL(seam_result_text(seam_session_stream_result(st)), text);
    CU_ASSERT_EQUAL(seam_session_history_count(s), 2);
    CU_ASSERT_STRING_EQUAL(text_of(s, 1), "streamed answer here");
    seam_session_stream_free(st);
    seam_session_free(s);
}

static void test_role_factory(void)
{
    seam_session *s = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_session_new_for_role(mock, "planner", NULL, &s, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_session_chain(s), "second");
    seam_session_append_user_text(s, "plan");
    seam_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_session_send(s, NULL, &r, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_result_text(r), "from m2");
    CU_ASSERT_STRING_EQUAL(seam_result_provider(r), "m2");
    seam_result_free(r);
    seam_session_free(s);

    /* Without a chain: the role "assistant". */
    s = new_session(mock, NULL);
    CU_ASSERT_STRING_EQUAL(seam_session_chain(s), "default");
    seam_session_free(s);

    CU_ASSERT_EQUAL(seam_session_new_for_role(mock, "nobody", NULL, &s, &err), SEAM_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "nobody"));
    seam_session_options o = { .size = sizeof o, .chain = "nochain" };
    CU_ASSERT_EQUAL(seam_session_new(mock, &o, &s, &err), SEAM_ERR_NOT_FOUND);
    seam_session_options p = { .size = sizeof p, .provider = "noprovider" };
    CU_ASSERT_EQUAL(seam_session_new(mock, &p, &s, &err), SEAM_ERR_NOT_FOUND);
    seam_session_options q = { .size = sizeof q, .provider_flags_json = "[1]" };
    CU_ASSERT_EQUAL(seam_session_new(mock, &q, &s, &err), SEAM_ERR_INVALID);
    /* A single provider with a model instead of a chain. */
    seam_session_options one = { .size = sizeof one, .provider = "m2", .model = "mock-x" };
    s = new_session(mock, &one);
    CU_ASSERT_PTR_NULL(seam_session_chain(s));
    seam_session_append_user_text(s, "hi");
    CU_ASSERT_EQUAL_FATAL(seam_session_send(s, NULL, &r, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_result_model(r), "mock-x");
    seam_result_free(r);
    seam_session_free(s);
}

/* ---- the wire: suffix, flags, cache, retries, credentials -------------------------------- */

static const char text_answer[] =
    "{\"id\":\"x\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
    "\"message\":{\"role\":\"assistant\",\"content\":\"fine\"},\"finish_reason\":\"stop\"}],"
    "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":1}}";

static const char overloaded[] = "{\"error\":{\"message\":\"busy\",\"type\":\"server_error\"}}";

static json_object *body_at(size_t i)
{
    const char *b = fake_server_request_body(srv, i);
    return b ? json_tokener_parse(b) : NULL;
}

static const char *member_str(json_object *o, const char *key)
{
    json_object *v = NULL;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : "";
}

static void test_wire_suffix_flags_cache(void)
{
    if (!oa)
        return;
    seam_session_options o = { .size = sizeof o, .system = "You are terse.", .cache = SEAM_CACHE_SYSTEM_AND_3,
                               .provider_flags_json = "{\"user\":\"u-1\",\"seed\":4}" };
    seam_session *s = new_session(oa, &o);
    seam_session_append_user_text(s, "hello");
    seam_send_options so = { .size = sizeof so, .system_suffix = "Today is Monday.",
                             .provider_flags_json = "{\"seed\":5}" };
    size_t before = fake_server_request_count(srv);
    fake_server_push_json(srv, 200, text_answer, NULL);
    seam_result *r = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_session_send(s, &so, &r, &err), SEAM_OK);
    seam_result_free(r);
    json_object *b = body_at(before);
    json_object *msgs = NULL, *seed = NULL;
    json_object_object_get_ex(b, "messages", &msgs);
    json_object *sys = json_object_array_get_idx(msgs, 0);
    CU_ASSERT_STRING_EQUAL(member_str(sys, "role"), "system");
    CU_ASSERT_STRING_EQUAL(member_str(sys, "content"), "You are terse.\n\nToday is Monday.");
    CU_ASSERT_STRING_EQUAL(member_str(b, "user"), "u-1");
    /* OpenAI caches prefixes by itself: the plugin consumes the strategy. */
    CU_ASSERT_FALSE(json_object_object_get_ex(b, "cache_strategy", NULL));
    CU_ASSERT(json_object_object_get_ex(b, "seed", &seed) && json_object_get_int(seed) == 5);
    json_object_put(b);

    /* The next call without a suffix: the plain system prompt; its own cache choice wins. */
    seam_session_append_user_text(s, "again");
    seam_send_options plain = { .size = sizeof plain, .cache = SEAM_CACHE_NONE };
    fake_server_push_json(srv, 200, text_answer, NULL);
    CU_ASSERT_EQUAL_FATAL(seam_session_send(s, &plain, &r, &err), SEAM_OK);
    seam_result_free(r);
    b = body_at(before + 1);
    json_object_object_get_ex(b, "messages", &msgs);
    CU_ASSERT_STRING_EQUAL(member_str(json_object_array_get_idx(msgs, 0), "content"), "You are terse.");
    CU_ASSERT_EQUAL(json_object_array_length(msgs), 4);
    CU_ASSERT_FALSE(json_object_object_get_ex(b, "cache_strategy", NULL));
    json_object_put(b);
    seam_session_free(s);
}

/* The cache strategy reaches a plugin that places breakpoints: Anthropic marks
 * the system prompt when the session asks for system_and_3, and not when one
 * call asks for none. */
static void test_wire_cache_strategy(void)
{
    if (!an)
        return;
    static const char answer[] =
        "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\","
        "\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"stop_reason\":\"end_turn\","
        "\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}";
    seam_session_options o = { .size = sizeof o, .system = "You are terse.", .cache = SEAM_CACHE_SYSTEM_AND_3 };
    seam_session *s = new_session(an, &o);
    seam_session_append_user_text(s, "hello");
    size_t before = fake_server_request_count(srv);
    fake_server_push_json(srv, 200, answer, NULL);
    seam_result *r = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_session_send(s, NULL, &r, &err), SEAM_OK);
    seam_result_free(r);
    CU_ASSERT_PTR_NOT_NULL(strstr(fake_server_request_body(srv, before), "\"cache_control\""));
    CU_ASSERT_PTR_NULL(strstr(fake_server_request_body(srv, before), "cache_strategy"));

    seam_session_append_user_text(s, "again");
    seam_send_options none = { .size = sizeof none, .cache = SEAM_CACHE_NONE };
    fake_server_push_json(srv, 200, answer, NULL);
    CU_ASSERT_EQUAL_FATAL(seam_session_send(s, &none, &r, &err), SEAM_OK);
    seam_result_free(r);
    CU_ASSERT_PTR_NULL(strstr(fake_server_request_body(srv, before + 1), "cache_control"));
    seam_session_free(s);
}

static void test_wire_retry_policy(void)
{
    if (!oa)
        return;
    seam_session *s = hello_session(
        (seam_retry_policy){ .max_attempts = 3, .base_delay_ms = 60, .max_delay_ms = 1000, .jitter = 1 });
    seam_error err;
    seam_result *r = NULL;

    /* 503, 503, then an answer: three requests, waits of >= 60 and >= 120 ms. */
    size_t before = fake_server_request_count(srv);
    fake_server_push_json(srv, 503, overloaded, NULL);
    fake_server_push_json(srv, 503, overloaded, NULL);
    fake_server_push_json(srv, 200, text_answer, NULL);
    int64_t t0 = tu_now_ms();
    CU_ASSERT_EQUAL(seam_session_send(s, NULL, &r, &err), SEAM_OK);
    int64_t took = tu_now_ms() - t0;
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 3);
    CU_ASSERT(took >= 180 && took < 1500);
    seam_result_free(r);

    /* Exhausted: the last error is returned after max_attempts. */
    before = fake_server_request_count(srv);
    for (int i = 0; i < 3; i++)
        fake_server_push_json(srv, 503, overloaded, NULL);
    CU_ASSERT_EQUAL(seam_session_send(s, NULL, &r, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 3);
    CU_ASSERT_PTR_NULL(r);

    /* A fatal error is not retried. */
    before = fake_server_request_count(srv);
    fake_server_push_json(srv, 400, "{\"error\":{\"message\":\"bad field\",\"type\":\"invalid_request_error\"}}", NULL);
    CU_ASSERT_EQUAL(seam_session_send(s, NULL, &r, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);

    /* A per-call policy: no retry at all. */
    seam_retry_policy none = { .max_attempts = 1 };
    seam_send_options so = { .size = sizeof so, .retry = &none };
    before = fake_server_request_count(srv);
    fake_server_push_json(srv, 503, overloaded, NULL);
    CU_ASSERT_EQUAL(seam_session_send(s, &so, &r, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    CU_ASSERT_EQUAL(seam_session_history_count(s), 2); /* only the first success was appended */
    seam_session_free(s);
}

static void *cancel_after_100ms(void *arg)
{
    struct timespec ts = { 0, 100 * 1000000L };
    nanosleep(&ts, NULL);
    seam_cancel_trigger(arg);
    return NULL;
}

static void test_wire_cancel_during_backoff(void)
{
    if (!oa)
        return;
    seam_session *s = hello_session((seam_retry_policy){ .max_attempts = 2, .base_delay_ms = 5000 });
    seam_cancel *cancel = seam_cancel_new();
    seam_send_options so = { .size = sizeof so, .cancel = cancel };
    fake_server_push_json(srv, 503, overloaded, NULL);
    pthread_t th;
    pthread_create(&th, NULL, cancel_after_100ms, cancel);
    seam_result *r = NULL;
    seam_error err;
    int64_t t0 = tu_now_ms();
    CU_ASSERT_EQUAL(seam_session_send(s, &so, &r, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT(tu_now_ms() - t0 < 2000);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CANCELLED);
    pthread_join(th, NULL);
    seam_cancel_free(cancel);
    seam_session_free(s);
}

static const char sse_answer[] =
    "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
    "\"delta\":{\"role\":\"assistant\",\"content\":\"stream \"},\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
    "\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n"
    "data: [DONE]\n\n";

static void test_wire_stream_retry_before_content(void)
{
    if (!oa)
        return;
    seam_session *s = hello_session((seam_retry_policy){ .max_attempts = 2, .base_delay_ms = 20 });
    size_t before = fake_server_request_count(srv);
    fake_server_push_json(srv, 503, overloaded, NULL);
    fake_server_push_sse(srv, sse_answer, 7);
    seam_session_stream *st = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_session_stream_open(s, NULL, &st, &err), SEAM_OK);
    char text[64] = "";
    CU_ASSERT_EQUAL(read_stream(st, text, sizeof text, NULL, &err), 0);
    CU_ASSERT_STRING_EQUAL(text, "stream ok");
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 2);
    CU_ASSERT_EQUAL(seam_session_history_count(s), 2);
    seam_session_stream_free(st);
    seam_session_free(s);
}

typedef struct refresher {
    int calls;
    const char *next_key;
} refresher;

static int refresh_key(void *ud, int64_t *expires_at_ms, seam_error *err)
{
    (void)err;
    refresher *r = ud;
    r->calls++;
    setenv("SEAM_TEST_SESSION_KEY", r->next_key, 1);
    *expires_at_ms = wall_ms() + 3600 * 1000;
    return SEAM_OK;
}

static int refresh_fails(void *ud, int64_t *expires_at_ms, seam_error *err)
{
    (void)ud;
    (void)expires_at_ms;
    seam_error_set(err, SEAM_ERROR_AUTH, "the identity provider is down");
    return SEAM_ERR_NO_CREDENTIAL;
}

static void test_wire_credential_refresh(void)
{
    if (!oa)
        return;
    setenv("SEAM_TEST_SESSION_KEY", "key-old", 1);
    refresher rf = { 0, "key-new" };
    /* The credential expires in 10 s: within the 60 s margin. */
    seam_session_options o = { .size = sizeof o, .refresh_credential = refresh_key,
                               .credential_expires_at_ms = wall_ms() + 10000, .ud = &rf };
    seam_session *s = new_session(oa, &o);
    seam_session_append_user_text(s, "hello");
    seam_result *r = NULL;
    seam_error err;
    size_t before = fake_server_request_count(srv);
    fake_server_push_json(srv, 200, text_answer, NULL);
    fake_server_push_json(srv, 200, text_answer, NULL);
    CU_ASSERT_EQUAL_FATAL(seam_session_send(s, NULL, &r, &err), SEAM_OK);
    seam_result_free(r);
    CU_ASSERT_EQUAL(rf.calls, 1);
    CU_ASSERT_STRING_EQUAL(fake_server_request_header(srv, before, "Authorization"), "Bearer key-new");
    /* Fresh now: no second refresh. */
    CU_ASSERT_EQUAL_FATAL(seam_session_send(s, NULL, &r, &err), SEAM_OK);
    seam_result_free(r);
    CU_ASSERT_EQUAL(rf.calls, 1);
    CU_ASSERT_STRING_EQUAL(fake_server_request_header(srv, before + 1, "Authorization"), "Bearer key-new");
    /* A forced refresh. */
    rf.next_key = "key-third";
    CU_ASSERT_EQUAL(seam_session_refresh_credential(s, &err), SEAM_OK);
    CU_ASSERT_EQUAL(rf.calls, 2);
    fake_server_push_json(srv, 200, text_answer, NULL);
    CU_ASSERT_EQUAL_FATAL(seam_session_send(s, NULL, &r, &err), SEAM_OK);
    seam_result_free(r);
    CU_ASSERT_STRING_EQUAL(fake_server_request_header(srv, before + 2, "Authorization"), "Bearer key-third");
    seam_session_free(s);

    /* A failing refresh fails the call before anything is sent. */
    seam_session_options bad = { .size = sizeof bad, .refresh_credential = refresh_fails,
                                 .credential_expires_at_ms = wall_ms() + 1000 };
    s = new_session(oa, &bad);
    seam_session_append_user_text(s, "hello");
    before = fake_server_request_count(srv);
    CU_ASSERT_EQUAL(seam_session_send(s, NULL, &r, &err), SEAM_ERR_NO_CREDENTIAL);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_AUTH);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "identity provider"));
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before);
    seam_session_free(s);

    /* No expiry known: the hook is never called by itself. */
    rf.calls = 0;
    seam_session_options unknown = { .size = sizeof unknown, .refresh_credential = refresh_key, .ud = &rf };
    s = new_session(oa, &unknown);
    seam_session_append_user_text(s, "hello");
    fake_server_push_json(srv, 200, text_answer, NULL);
    CU_ASSERT_EQUAL_FATAL(seam_session_send(s, NULL, &r, &err), SEAM_OK);
    seam_result_free(r);
    CU_ASSERT_EQUAL(rf.calls, 0);
    seam_session_free(s);
}

static const tu_test tests[] = {
    { "history", test_history },
    { "wire: cache strategy reaches the plugin", test_wire_cache_strategy },
    { "send appends", test_send_appends },
    { "stream appends", test_stream_appends },
    { "role factory", test_role_factory },
    { "wire: suffix, flags, cache", test_wire_suffix_flags_cache },
    { "wire: retry policy", test_wire_retry_policy },
    { "wire: cancel during backoff", test_wire_cancel_during_backoff },
    { "wire: stream retried before content", test_wire_stream_retry_before_content },
    { "wire: credential refresh", test_wire_credential_refresh },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("session", tests, start);
}
