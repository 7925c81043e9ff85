/* tu_gemini.c — what the tests of the Gemini plugin (tests/test_gemini_*.c) share:
 * the fake server and client of the suite, a call's outcome, the bodies sent,
 * and the checks that a schema is the subset Gemini documents. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include "tu_gemini.h"
#include <seam/seam.h>

fake_server *server;
seam_client *client;

static int start(void)
{
    server = tu_server_start();
    if (!server)
        return -1;
    client = tu_client_at_end(tu_clientf(
        "providers = { gm = { plugin = \"gemini\"; base_url = \"%s/v1beta\";\n"
        "                     api_key = \"" API_KEY "\"; idle_timeout_ms = 5000; }; };\n"
        "chains = { default = ( { provider = \"gm\"; model = \"" MODEL "\"; } ); };\n",
        fake_server_url(server)));
    return client ? 0 : -1;
}

seam_call_options call_options(void)
{
    seam_call_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.provider = "gm";
    o.model = MODEL;
    return o;
}

void outcome_free(outcome *o)
{
    seam_message_free(o->msg);
    memset(o, 0, sizeof *o);
}

/* One call to the given model, whole (streaming 0) or streamed. */
outcome run_model(const seam_request *req, int streaming, const char *model)
{
    outcome o;
    memset(&o, 0, sizeof o);
    seam_error_clear(&o.err);
    seam_call_options opts = call_options();
    opts.model = model;
    if (!streaming) {
        seam_result *res = NULL;
        o.rc = seam_generate(client, req, &opts, &res, &o.err);
        if (res) {
            o.msg = seam_message_dup(seam_result_message(res));
            o.stop = seam_result_stop_reason(res);
            o.usage = *seam_result_usage(res);
            o.stop_chunks = 1;
            seam_result_free(res);
        }
        return o;
    }
    seam_stream *s = NULL;
    o.rc = seam_stream_open(client, req, &opts, &s, &o.err);
    if (o.rc != SEAM_OK)
        return o;
    const seam_chunk *c;
    while ((o.rc = seam_stream_next(s, &c, &o.err)) == 1) {
        o.chunks++;
        if (c->type == SEAM_CHUNK_STOP)
            o.stop_chunks++;
    }
    const seam_result *res = seam_stream_result(s);
    o.msg = seam_message_dup(seam_result_message(res));
    o.stop = seam_result_stop_reason(res);
    o.usage = *seam_result_usage(res);
    seam_stream_free(s);
    return o;
}

outcome run(const seam_request *req, int streaming)
{
    return run_model(req, streaming, MODEL);
}

seam_request *user_request(const char *text)
{
    seam_request *req = seam_request_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(req);
    CU_ASSERT_EQUAL(seam_request_add_user_text(req, text), SEAM_OK);
    return req;
}

size_t count_parts(const seam_message *m, seam_part_type t)
{
    size_t n = 0;
    for (size_t i = 0; m && i < seam_message_part_count(m); i++)
        n += seam_part_get_type(seam_message_part(m, i)) == t;
    return n;
}

const seam_part *nth_part(const seam_message *m, seam_part_type t, size_t nth)
{
    for (size_t i = 0; m && i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        if (seam_part_get_type(p) == t && nth-- == 0)
            return p;
    }
    return NULL;
}

/* The last request the server received. */
size_t last_request(void)
{
    size_t n = fake_server_request_count(server);
    CU_ASSERT_FATAL(n > 0);
    return n - 1;
}

json_object *request_body(size_t i)
{
    const char *body = fake_server_request_body(server, i);
    json_object *j = body ? json_tokener_parse(body) : NULL;
    CU_ASSERT_PTR_NOT_NULL(j);
    return j;
}

/* The body of the last request the server received (the caller puts it). */
json_object *sent_body(void)
{
    return request_body(last_request());
}

/* The body the server got for req, run whole on model against answer (a
 * 200), which must succeed; the caller puts it. */
json_object *body_sent_for(const seam_request *req, const char *model, const char *answer)
{
    fake_server_push_json(server, 200, answer, NULL);
    outcome o = run_model(req, 0, model);
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    outcome_free(&o);
    return sent_body();
}

/* A call streamed, its answer the SSE body (split bytes a write). */
outcome streamed(const seam_request *req, const char *sse, size_t split)
{
    fake_server_push_sse(server, sse, split);
    return run(req, 1);
}

/* One assertion: schema passes is_subset; when not, what it is not and why
 * go to stderr. */
void assert_subset(json_object *schema, int (*is_subset)(json_object *, char *, size_t),
                   const char *what)
{
    char why[128] = "";
    CU_ASSERT_TRUE(is_subset(schema, why, sizeof why));
    if (why[0])
        fprintf(stderr, "\nnot %s: %s\n", what, why);
}

/* Whether schema s is an object whose every key is one of allowed (why says
 * what is not). */
int keywords_allowed(json_object *s, const char *const *allowed, size_t n, char *why,
                     size_t why_size)
{
    if (!json_object_is_type(s, json_type_object)) {
        snprintf(why, why_size, "a schema that is not an object");
        return 0;
    }
    json_object_object_foreach(s, key, val)
    {
        (void)val;
        int ok = 0;
        for (size_t i = 0; i < n; i++)
            ok |= strcmp(key, allowed[i]) == 0;
        if (!ok) {
            snprintf(why, why_size, "keyword %s", key);
            return 0;
        }
    }
    return 1;
}

/* Text, then two parallel calls; the signature on the first call only. */
const char STREAM_TOOLS[] =
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Let me check.\"}],\"role\":\"model\"},"
    "\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":40,\"totalTokenCount\":44}}\r\n\r\n"
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"get_weather\","
    "\"args\":{\"city\":\"Paris\",\"days\":2}},\"thoughtSignature\":\"c2lnLWNhbGw=\"},"
    "{\"functionCall\":{\"name\":\"get_time\",\"args\":{\"tz\":\"Europe/Paris\"}}}],\"role\":\"model\"},"
    "\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":40,"
    "\"candidatesTokenCount\":20,\"totalTokenCount\":60}}\r\n\r\n";

/* The schema of the issue: $ref/$defs, additionalProperties, const, a nullable
 * type array, plus the shapes Gemini's validator refuses. */
const char WEATHER_SCHEMA[] =
    "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
    "\"additionalProperties\":false,"
    "\"$defs\":{"
    "  \"Unit\":{\"type\":\"string\",\"enum\":[\"celsius\",\"fahrenheit\"],\"description\":\"Temperature unit\"},"
    "  \"Place\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\",\"minLength\":1},"
    "     \"country\":{\"type\":\"string\",\"format\":\"iso-3166\"}},\"required\":[\"city\",\"zip\"],"
    "     \"additionalProperties\":false},"
    "  \"Node\":{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"},"
    "     \"next\":{\"$ref\":\"#/$defs/Node\"}}}},"
    "\"properties\":{"
    "  \"place\":{\"$ref\":\"#/$defs/Place\",\"description\":\"Where\"},"
    "  \"unit\":{\"$ref\":\"#/$defs/Unit\"},"
    "  \"kind\":{\"const\":\"forecast\"},"
    "  \"days\":{\"type\":[\"integer\",\"null\"],\"minimum\":1,\"maximum\":14,\"exclusiveMaximum\":15},"
    "  \"when\":{\"type\":\"string\",\"format\":\"date-time\"},"
    "  \"email\":{\"type\":\"string\",\"format\":\"email\"},"
    "  \"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"uniqueItems\":true,\"maxItems\":5},"
    WEATHER_PROPERTIES_KEPT
    "  \"both\":{\"allOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"boolean\"}},"
    "     \"required\":[\"a\"]},{\"properties\":{\"b\":{\"type\":\"number\",\"format\":\"double\"}}}]}"
    "},"
    "\"required\":[\"place\",\"unit\",\"ghost\"]}";


/* Runs tests as the suite "gemini", on the server and client start makes. */
int tu_gemini_run(const tu_test *tests)
{
    return tu_run_suite("gemini", tests, start);
}
