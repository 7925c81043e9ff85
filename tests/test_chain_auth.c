/* test_chain_auth.c — the chain runner and credentials (issue 6): auth is
 * fatal to the chain, a refresh grants exactly one more attempt, key pools
 * rotate, key selection is sticky, credentials expire, and a key command is
 * cancelled or timed out mid-call. */
#include "config.h"

#include <CUnit/Basic.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>
#include "tu_chain.h"


static const char *auth_of(size_t i)
{
    const char *v = fake_server_request_header(srv, i, "Authorization");
    return v ? v : "(none)";
}

/* The Authorization header of one call on chain, answered by push_ok's
 * answer. Borrowed from the server: read it before the next request. */
static const char *key_of_call(seam_client *c, const char *chain)
{
    size_t before = fake_server_request_count(srv);
    push_ok();
    go_chain(c, chain);
    return auth_of(before);
}

/* ---- auth ----------------------------------------------------------------------------------- */

static void test_auth_stops_chain(void)
{
    seam_client *c = wire_client("chains = { a = ( { provider = \"w\"; model = \"m\"; max_attempts = 3; },\n"
                                 "                 { provider = \"w2\"; model = \"m2\"; } ); };\n");
    /* No retry, no next entry. */
    run r = refused_at_once(c, "a", 401, "{\"kind\":\"auth\"}", SEAM_ERROR_AUTH);
    CU_ASSERT_EQUAL(r.at.n, 1);
    CU_ASSERT_EQUAL(n_sleeps, 0);

    /* A single key is not marked dead: the next request asks the provider again. */
    push_ok();
    r = go_chain(c, "a");
    SERVED_BY(r, "w");
    tu_client_free(c);
}

/* A command printing key-1, key-2, ... one more each run (counter in FILE). */
static char *counter_command(const char *name, const char *extra_line)
{
    char *script = tu_path(tmpdir, name);
    char text[1024];
    snprintf(text, sizeof text,
             "n=$(cat '%s.count' 2>/dev/null || echo 0)\n"
             "n=$((n+1))\n"
             "echo $n > '%s.count'\n"
             "echo key-$n\n%s",
             script, script, extra_line ? extra_line : "");
    CU_ASSERT_FATAL(tu_write_file(script, text) == 0);
    char *cmd = NULL;
    CU_ASSERT_FATAL(asprintf(&cmd, "sh %s", script) > 0);
    free(script);
    return cmd;
}

static void test_auth_refresh_one_more_attempt(void)
{
    char *cmd = counter_command("refresh.sh", NULL);
    char conf[4096];
    snprintf(conf, sizeof conf,
             "providers = {\n" WIRE_PROVIDERS
             "  wc = { plugin = \"testwire\"; base_url = \"@URL@\"; api_key_command = \"%s\"; };\n"
             "};\n"
             "chains = { r = ( { provider = \"wc\"; model = \"m\"; },\n"
             "                 { provider = \"w2\"; model = \"m2\"; } ); };\n",
             cmd);
    seam_client *c = client_of(conf);
    size_t before = fake_server_request_count(srv);
    push_error_then_ok(401, "{\"kind\":\"auth\"}", NULL);
    run r = go_chain(c, "r");
    SERVED_BY(r, "wc");
    CU_ASSERT_EQUAL_FATAL(fake_server_request_count(srv), before + 2);
    CU_ASSERT_STRING_EQUAL(auth_of(before), "Bearer key-1");
    CU_ASSERT_STRING_EQUAL(auth_of(before + 1), "Bearer key-2"); /* refreshed, never the same key */
    CU_ASSERT_EQUAL_FATAL(r.at.n, 2);
    CU_ASSERT_EQUAL(r.at.r[0].kind, SEAM_ERROR_AUTH);
    CU_ASSERT_EQUAL(r.at.r[0].wait, 0);
    CU_ASSERT_EQUAL(r.at.r[1].outcome, SEAM_ATTEMPT_SUCCEEDED);
    CU_ASSERT_EQUAL(r.at.r[1].attempt, 2);

    /* Exactly one more: a second rejection is final (w2 is not tried). */
    before = fake_server_request_count(srv);
    fake_server_push_json(srv, 401, "{\"kind\":\"auth\"}", NULL);
    fake_server_push_json(srv, 401, "{\"kind\":\"auth\"}", NULL);
    r = go_chain(c, "r");
    FAILED_WITH(r, SEAM_ERROR_AUTH);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 2);
    CU_ASSERT_STRING_EQUAL(auth_of(before), "Bearer key-2");
    CU_ASSERT_STRING_EQUAL(auth_of(before + 1), "Bearer key-3");
    CU_ASSERT_EQUAL(r.at.n, 2);
    tu_client_free(c);
    free(cmd);
}

static void test_pool_rotation(void)
{
    setenv("SEAM_CHAIN_K1", "k-one", 1);
    setenv("SEAM_CHAIN_K2", "k-two", 1);
    seam_client *c = client_of(
        "providers = {\n" WIRE_PROVIDERS
        "  wp = { plugin = \"testwire\"; base_url = \"@URL@\";\n"
        "         api_keys_env = [ \"SEAM_CHAIN_K1\", \"SEAM_CHAIN_K2\" ]; };\n"
        "};\n"
        "chains = { p = ( { provider = \"wp\"; model = \"m\"; },\n"
        "                 { provider = \"w2\"; model = \"m2\"; } ); };\n");
    seam_provider_info info;
    CU_ASSERT_EQUAL(seam_client_provider_at(c, 4, &info), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(info.name, "wp");
    CU_ASSERT_STRING_EQUAL(info.credential_source, "pool of 2 keys (env SEAM_CHAIN_K1, env SEAM_CHAIN_K2)");
    CU_ASSERT_TRUE(info.has_credential);

    /* round_robin (the default): one key, then the other. */
    CU_ASSERT_STRING_EQUAL(key_of_call(c, "p"), "Bearer k-one");
    CU_ASSERT_STRING_EQUAL(key_of_call(c, "p"), "Bearer k-two");

    /* A 429 on k-one rotates to k-two at once: no wait, not counted against
     * max_attempts (1 here), the next entry is not needed. */
    size_t before = fake_server_request_count(srv);
    push_error_then_ok(429, "{}", NULL);
    run r = go_chain(c, "p");
    SERVED_BY(r, "wp");
    CU_ASSERT_EQUAL(n_sleeps, 0);
    CU_ASSERT_EQUAL_FATAL(fake_server_request_count(srv), before + 2);
    CU_ASSERT_STRING_EQUAL(auth_of(before), "Bearer k-one");
    CU_ASSERT_STRING_EQUAL(auth_of(before + 1), "Bearer k-two");
    CU_ASSERT_EQUAL_FATAL(r.at.n, 2);
    CU_ASSERT_EQUAL(r.at.r[0].kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_EQUAL(r.at.r[1].outcome, SEAM_ATTEMPT_SUCCEEDED);

    /* k-one cools down (30 s by default): the next request passes it over. */
    CU_ASSERT_STRING_EQUAL(key_of_call(c, "p"), "Bearer k-two");

    /* k-two rejected: marked dead; one more attempt on the other live key
     * (cooling or not: the chain's own retry). */
    before = fake_server_request_count(srv);
    push_error_then_ok(401, "{\"kind\":\"auth\"}", NULL);
    r = go_chain(c, "p");
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(fake_server_request_count(srv), before + 2);
    CU_ASSERT_STRING_EQUAL(auth_of(before), "Bearer k-two");
    CU_ASSERT_STRING_EQUAL(auth_of(before + 1), "Bearer k-one");

    /* k-one answered, so it is not cooling any more; k-two stays dead. */
    CU_ASSERT_STRING_EQUAL(key_of_call(c, "p"), "Bearer k-one");
    CU_ASSERT_STRING_EQUAL(key_of_call(c, "p"), "Bearer k-one");

    /* k-one rate limited with k-two dead: no rotation, the next entry. */
    push_error_then_ok(429, "{}", "Retry-After: 100\r\n");
    r = go_chain(c, "p");
    CU_ASSERT_STRING_EQUAL(r.provider, "w2");
    /* ...and while k-one cools, wp cannot serve at all. */
    before = fake_server_request_count(srv);
    push_ok();
    r = go_chain(c, "p");
    SERVED_BY(r, "w2");
    CU_ASSERT_EQUAL(r.at.r[0].outcome, SEAM_ATTEMPT_SKIPPED);
    CU_ASSERT_EQUAL(r.at.r[0].kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, before), "/second/stream");

    /* A dead key is used again once refreshed: a new value in its variable
     * revives it when no other key can serve. */
    setenv("SEAM_CHAIN_K2", "k-two-new", 1);
    before = fake_server_request_count(srv);
    push_ok();
    r = go_chain(c, "p");
    CU_ASSERT_STRING_EQUAL(r.provider, "wp");
    CU_ASSERT_STRING_EQUAL(auth_of(before), "Bearer k-two-new");
    tu_client_free(c);
    unsetenv("SEAM_CHAIN_K1");
    unsetenv("SEAM_CHAIN_K2");
}

static void test_key_selection_sticky(void)
{
    setenv("SEAM_CHAIN_S1", "s-one", 1);
    setenv("SEAM_CHAIN_S2", "s-two", 1);
    seam_client *c = client_of(
        "providers = {\n"
        "  ws = { plugin = \"testwire\"; base_url = \"@URL@\"; key_selection = \"sticky\";\n"
        "         api_keys_env = [ \"SEAM_CHAIN_S1\", \"SEAM_CHAIN_S2\" ]; };\n"
        "};\n"
        "chains = { s = ( { provider = \"ws\"; model = \"m\"; } ); };\n");
    /* Without an affinity: the provider's current key, again and again. */
    size_t before = fake_server_request_count(srv);
    for (int i = 0; i < 3; i++) {
        push_ok();
        go_chain(c, "s");
    }
    CU_ASSERT_STRING_EQUAL(auth_of(before), auth_of(before + 1));
    CU_ASSERT_STRING_EQUAL(auth_of(before), auth_of(before + 2));

    /* With an affinity (a session): the same key for the same session, and
     * sessions spread over the pool. */
    char seen[10][64];
    int distinct = 0;
    for (int i = 0; i < 10; i++) {
        char session[32];
        snprintf(session, sizeof session, "session-%d", i);
        for (int k = 0; k < 2; k++) {
            before = fake_server_request_count(srv);
            push_ok();
            how h = {.chain = "s", .affinity = session};
            run r = go(c, NULL, h);
            CU_ASSERT_EQUAL(r.status, SEAM_OK);
            if (k == 0)
                snprintf(seen[i], sizeof seen[i], "%s", auth_of(before));
            else
                CU_ASSERT_STRING_EQUAL(auth_of(before), seen[i]);
        }
        distinct |= strcmp(seen[i], seen[0]) != 0;
    }
    CU_ASSERT_TRUE(distinct);
    tu_client_free(c);
    unsetenv("SEAM_CHAIN_S1");
    unsetenv("SEAM_CHAIN_S2");
}

static void test_credential_expiry(void)
{
    char *cmd = counter_command("expiring.sh", "echo expires_in=61\n");
    char *ttl_cmd = counter_command("ttl.sh", NULL);
    char conf[4096];
    snprintf(conf, sizeof conf,
             "providers = {\n"
             "  we = { plugin = \"testwire\"; base_url = \"@URL@\"; api_key_command = \"%s\"; };\n"
             "  wt = { plugin = \"testwire\"; base_url = \"@URL@\"; api_key_command = \"%s\";\n"
             "         api_key_ttl_ms = 120000; };\n"
             "};\n"
             "chains = { e = ( { provider = \"we\"; model = \"m\"; } );\n"
             "           t = ( { provider = \"wt\"; model = \"m\"; } ); };\n",
             cmd, ttl_cmd);
    seam_client *c = client_of(conf);
    CU_ASSERT_STRING_EQUAL(key_of_call(c, "e"), "Bearer key-1");
    clock_advance(500); /* 60.5 s left: still good */
    CU_ASSERT_STRING_EQUAL(key_of_call(c, "e"), "Bearer key-1");
    clock_advance(600); /* 59.9 s left: refreshed before use */
    CU_ASSERT_STRING_EQUAL(key_of_call(c, "e"), "Bearer key-2");

    CU_ASSERT_STRING_EQUAL(key_of_call(c, "t"), "Bearer key-1");
    clock_advance(59000);
    CU_ASSERT_STRING_EQUAL(key_of_call(c, "t"), "Bearer key-1");
    clock_advance(2000);
    CU_ASSERT_STRING_EQUAL(key_of_call(c, "t"), "Bearer key-2");
    tu_client_free(c);
    free(cmd);
    free(ttl_cmd);
}

static void test_cancel_during_key_command(void)
{
    seam_client *c = client_of("providers = {\n" WIRE_PROVIDERS
                               "  slow = { plugin = \"testwire\"; base_url = \"@URL@\";\n"
                               "           api_key_command = \"sleep 60\"; };\n};\n"
                               "chains = { k = ( { provider = \"slow\"; model = \"m\"; },\n"
                               "                 { provider = \"w2\"; model = \"m2\"; } ); };\n");
    size_t before = fake_server_request_count(srv);
    seam_cancel *cancel = seam_cancel_new();
    tu_canceller k = {.cancel = cancel, .delay_ms = 150};
    tu_canceller_start(&k);
    how h = {.chain = "k", .cancel = cancel};
    int64_t t0 = tu_now_ms();
    run r = go(c, NULL, h);
    int64_t took = tu_now_ms() - t0;
    tu_canceller_join(&k);
    FAILED_WITH(r, SEAM_ERROR_CANCELLED);
    CU_ASSERT(took < 1000);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before);
    seam_cancel_free(cancel);

    /* The command's timeout, from the conf. */
    tu_client_free(c);
    c = client_of("providers = {\n"
                  "  slow = { plugin = \"testwire\"; base_url = \"@URL@\";\n"
                  "           api_key_command = \"sleep 60\"; api_key_command_timeout_ms = 200; };\n};\n"
                  "chains = { k = ( { provider = \"slow\"; model = \"m\"; } ); };\n");
    t0 = tu_now_ms();
    r = go_chain(c, "k");
    took = tu_now_ms() - t0;
    FAILED_WITH(r, SEAM_ERROR_AUTH);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err.message, "api_key_command timed out after 200 ms"));
    CU_ASSERT(took < 1000);
    tu_client_free(c);
}

/* An application's "no limit" written as INT64_MAX: no overflow anywhere (the
 * transport once computed last_byte + idle_timeout and timed out at once). */

static const tu_test tests[] = {
    { "auth stops the chain", test_auth_stops_chain },
    { "a refresh grants exactly one more attempt", test_auth_refresh_one_more_attempt },
    { "key pool rotation", test_pool_rotation },
    { "sticky key selection", test_key_selection_sticky },
    { "credential expiry", test_credential_expiry },
    { "cancel and timeout during a key command", test_cancel_during_key_command },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("chain_auth", tests, start);
}
