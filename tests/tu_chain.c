/* tu_chain.c — what the chain tests (test_chain*.c) share: the fake provider
 * server and a temporary directory, an injected clock (every backoff, wait and
 * expiry exact and instant), clients of the test codecs on that clock, an
 * observer recording every attempt, and one call run and recorded. */
#include "config.h"

#include <CUnit/Basic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include "tu_chain.h"
#include <seam/seam.h>

fake_server *srv;
const char *tmpdir;

/* ---- the injected clock ----------------------------------------------------------- */

static pthread_mutex_t clock_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t fake_now = 5000000000LL;
int64_t sleeps[64];
int n_sleeps;

int start(void)
{
    return tu_start_server_and_dir(&srv, &tmpdir);
}

static int64_t clock_now(void *ud)
{
    (void)ud;
    pthread_mutex_lock(&clock_lock);
    int64_t v = fake_now;
    pthread_mutex_unlock(&clock_lock);
    return v;
}

static int clock_sleep(void *ud, int64_t ms, seam_cancel *cancel)
{
    (void)ud;
    pthread_mutex_lock(&clock_lock);
    fake_now += ms;
    if (n_sleeps < 64)
        sleeps[n_sleeps] = ms;
    n_sleeps++;
    pthread_mutex_unlock(&clock_lock);
    return seam_cancel_triggered(cancel);
}

void clock_advance(int64_t ms)
{
    pthread_mutex_lock(&clock_lock);
    fake_now += ms;
    pthread_mutex_unlock(&clock_lock);
}

void sleeps_reset(void)
{
    pthread_mutex_lock(&clock_lock);
    n_sleeps = 0;
    pthread_mutex_unlock(&clock_lock);
}

/* ---- clients ------------------------------------------------------------------------ */

/* A client on conf_text (plus the plugin dirs of the build), on the injected clock. */
seam_client *client_of(const char *conf_text)
{
    char *body = tu_expand(srv, conf_text);
    /* The real plugins first: tests/plugins also holds a duplicate "mock". */
    seam_client *c = tu_clientf("plugin_path = [ \"%s\", \"%s\" ];\n%s", tu_plugin_dir(),
                                tu_test_plugin_dir(), body);
    free(body);
    CU_ASSERT_FATAL(c != NULL);
    seam_client_set_clock(c, clock_now, clock_sleep, NULL);
    sleeps_reset();
    return c;
}

/* A client of the usual providers and chains_text (client_of). */
seam_client *wire_client(const char *chains_text)
{
    char *text = NULL;
    if (asprintf(&text, "providers = {\n" WIRE_PROVIDERS "};\n%s", chains_text) < 0)
        text = NULL;
    seam_client *c = client_of(text ? text : chains_text);
    free(text);
    return c;
}

const char *ok_body = "data: fine\n\nevent: stop\ndata: 3\n\n";

void push_ok(void)
{
    fake_response fr = {.body = ok_body, .chunked = 1};
    fake_server_push(srv, &fr);
}

/* Scripts the server: an error answer (status, a JSON body, extra header
 * lines or NULL), then push_ok's good one. */
void push_error_then_ok(int status, const char *json_body, const char *headers)
{
    fake_server_push_json(srv, status, json_body, headers);
    push_ok();
}

static void observe(void *ud, const seam_attempt *a)
{
    recs *rs = ud;
    if (rs->n >= 32)
        return;
    rec *r = &rs->r[rs->n++];
    memset(r, 0, sizeof *r);
    r->outcome = a->outcome;
    snprintf(r->provider, sizeof r->provider, "%s", a->provider);
    snprintf(r->model, sizeof r->model, "%s", a->model ? a->model : "");
    snprintf(r->chain, sizeof r->chain, "%s", a->chain ? a->chain : "");
    r->attempt = a->attempt;
    r->kind = a->error ? a->error->kind : SEAM_ERROR_NONE;
    if (a->error) {
        snprintf(r->message, sizeof r->message, "%s", a->error->message);
        snprintf(r->code, sizeof r->code, "%s", a->error->code);
    }
    r->wait = a->wait_ms;
    r->has_usage = a->usage != NULL;
    if (a->usage)
        r->usage = *a->usage;
    if (rs->cancel_on_wait && a->outcome == SEAM_ATTEMPT_FAILED && a->wait_ms > 0)
        seam_cancel_trigger(rs->cancel_on_wait);
}

run go(seam_client *c, const seam_request *req_in, how h)
{
    run r;
    memset(&r, 0, sizeof r);
    seam_request *own = req_in ? NULL : tu_user_request("hello");
    const seam_request *req = req_in ? req_in : own;
    seam_call_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.chain = h.chain;
    o.provider = h.provider;
    o.model = h.model;
    o.affinity = h.affinity;
    o.timeout_ms = h.timeout_ms;
    o.idle_timeout_ms = h.idle_timeout_ms;
    o.cancel = h.cancel;
    o.on_attempt = observe;
    o.ud = &r.at;
    if (h.cancel_on_wait)
        r.at.cancel_on_wait = h.cancel;
    if (h.generate) {
        seam_result *res = NULL;
        r.status = seam_generate(c, req, &o, &res, &r.err);
        if (res) {
            snprintf(r.text, sizeof r.text, "%s", seam_result_text(res));
            r.usage = *seam_result_usage(res);
            snprintf(r.provider, sizeof r.provider, "%s",
                     seam_result_provider(res) ? seam_result_provider(res) : "");
        }
        seam_result_free(res);
    } else {
        seam_stream *s = NULL;
        r.status = seam_stream_open(c, req, &o, &s, &r.err);
        if (r.status == SEAM_OK) {
            const seam_chunk *ch;
            while ((r.status = seam_stream_next(s, &ch, &r.err)) == 1) {
                if (ch->type == SEAM_CHUNK_TEXT_DELTA)
                    strncat(r.text, ch->text, sizeof r.text - strlen(r.text) - 1);
                if (ch->type == SEAM_CHUNK_STOP) {
                    r.n_stops++;
                    r.stop_usage = ch->usage;
                }
            }
            const seam_result *res = seam_stream_result(s);
            r.incomplete = seam_result_incomplete(res);
            r.usage = *seam_result_usage(res);
            snprintf(r.provider, sizeof r.provider, "%s",
                     seam_result_provider(res) ? seam_result_provider(res) : "");
        }
        seam_stream_free(s);
    }
    seam_request_free(own);
    if (getenv("SEAM_TEST_VERBOSE") && r.status != SEAM_OK)
        fprintf(stderr, "\n[%s: %s]\n", seam_error_kind_name(r.err.kind), r.err.message);
    return r;
}

run go_chain(seam_client *c, const char *chain)
{
    how h = {.chain = chain};
    return go(c, NULL, h);
}

/* One call on chain, given one error answer (status, a JSON body): it fails
 * with an error of kind after asking the server once, no retry and no next
 * entry (three assertions). The run, for more checks. */
run refused_at_once(seam_client *c, const char *chain, int status, const char *json_body,
                    seam_error_kind kind)
{
    size_t before = fake_server_request_count(srv);
    fake_server_push_json(srv, status, json_body, NULL);
    run r = go_chain(c, chain);
    FAILED_WITH(r, kind);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 1);
    return r;
}

