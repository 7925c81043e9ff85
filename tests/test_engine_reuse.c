/* test_engine_reuse.c — how a transfer sets up its easy handle (transport.c,
 * engine.c): a completed transfer's handle is kept without curl_easy_reset for
 * the next one, so nothing of the last transfer's settings may carry over and
 * the connection stays the one kept alive; and no request waits on an
 * "Expect: 100-continue", whatever its size. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

static fake_server *srv;
static seam_client *client;

static const char answer[] =
    "{\"id\":\"c\",\"choices\":[{\"index\":0,\"message\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}";

static int start(void)
{
    srv = tu_server_start();
    client = srv ? tu_client_at_end(tu_client_on(srv,
                                                 "providers = {\n"
                                                 "  quick = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"sk-a\";\n"
                                                 "            timeout_ms = 300; };\n"
                                                 "  patient = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"sk-b\";\n"
                                                 "              timeout_ms = 5000; };\n"
                                                 "};\n"))
                 : NULL;
    return client ? 0 : -1;
}

/* A transfer with a 300 ms limit completes; the next one, with 5 s, must not
 * inherit the 300 ms from the handle both ran on: its answer takes 700 ms. */
static void test_no_timeout_carried_over(void)
{
    seam_request *req = tu_user_request("hi");
    fake_server_push_json(srv, 200, answer, NULL);
    tu_call r = tu_run_generate(client, "quick", "m", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    free(r.summary);

    fake_response slow = {.status = 200, .content_type = "application/json", .body = answer, .delay_ms = 700};
    fake_server_push(srv, &slow);
    r = tu_run_generate(client, "patient", "m", req, 0);
    if (r.status != SEAM_OK)
        fprintf(stderr, "\nthe second call failed: %s\n", r.err.message);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    free(r.summary);

    /* and the first limit still holds for its own provider */
    fake_server_push(srv, &slow);
    r = tu_run_generate(client, "quick", "m", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_TIMEOUT);
    free(r.summary);
    seam_request_free(req);
}

/* Each call sends its own request (URL, headers, body) on the kept connection. */
static void test_each_call_its_own_request(void)
{
    size_t before = fake_server_request_count(srv), conns = fake_server_connection_count(srv);
    const char *prompts[] = {"first prompt", "second", "the third and longest prompt of all"};
    for (size_t i = 0; i < 3; i++) {
        seam_request *req = tu_user_request(prompts[i]);
        fake_server_push_json(srv, 200, answer, NULL);
        tu_call r = tu_run_generate(client, i % 2 ? "patient" : "quick", "m", req, 0);
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        free(r.summary);
        seam_request_free(req);
        CU_ASSERT_PTR_NOT_NULL(strstr(fake_server_request_body(srv, before + i), prompts[i]));
        CU_ASSERT_STRING_EQUAL(fake_server_request_header(srv, before + i, "authorization"),
                               i % 2 ? "Bearer sk-b" : "Bearer sk-a");
    }
    /* the timed-out call above closed its connection; these share one */
    CU_ASSERT_TRUE(fake_server_connection_count(srv) <= conns + 1);
}

/* libcurl asks "Expect: 100-continue" (and waits for it) before a large POST
 * unless told not to: a small request carries no Expect header at all, a
 * 2 MiB one not the 100-continue. */
static void test_no_expect(void)
{
    size_t before = fake_server_request_count(srv);
    seam_request *req = tu_user_request("small");
    fake_server_push_json(srv, 200, answer, NULL);
    tu_call r = tu_run_generate(client, "patient", "m", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    free(r.summary);
    seam_request_free(req);
    CU_ASSERT_PTR_NULL(fake_server_request_header(srv, before, "expect"));

    size_t big = 2u << 20;
    char *text = malloc(big + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    memset(text, 'a', big);
    text[big] = '\0';
    req = tu_user_request(text);
    free(text);
    fake_server_push_json(srv, 200, answer, NULL);
    r = tu_run_generate(client, "patient", "m", req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    free(r.summary);
    seam_request_free(req);
    const char *expect = fake_server_request_header(srv, before + 1, "expect");
    CU_ASSERT_TRUE(!expect || !strstr(expect, "100"));
}

static const tu_test tests[] = {
    {"reuse: no Expect: 100-continue", test_no_expect},
    {"reuse: no timeout carried over", test_no_timeout_carried_over},
    {"reuse: each call its own request", test_each_call_its_own_request},
    {NULL, NULL},
};

int main(void)
{
    return tu_run_suite("engine handle reuse", tests, start);
}
