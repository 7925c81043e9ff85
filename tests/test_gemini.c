/* test_gemini.c — the Gemini provider plugin through the real loader and the fake
 * server: the wire it sends (path, headers, body, the reshaped JSON Schemas), the
 * decode of streams (CRLF-framed, cut at every byte) and of whole responses, the
 * synthesized tool-call ids over a two-step tool conversation, thought signatures
 * replayed, finish reasons, usage, and the error table; for Gemini 3 and later the
 * golden request bodies (thinkingLevel, the output cap, the JSON Schema fields),
 * the placeholder signature, and capabilities per family. The transcripts below
 * are written for this test in the shape the Gemini API documents. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

#define API_KEY "gm-test-secret-key"
#define MODEL "gemini-2.5-flash"
/* A whole answer "ok". */
#define OK_ANSWER "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\"}]}"

static fake_server *server;
static seam_client *client;

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

static seam_call_options call_options(void)
{
    seam_call_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.provider = "gm";
    o.model = MODEL;
    return o;
}

/* What a call gave: the assistant message (a copy), stop, usage, chunk counts. */
typedef struct outcome {
    int rc;
    seam_error err;
    seam_message *msg;
    seam_stop_reason stop;
    seam_usage usage;
    int stop_chunks;
    int chunks;
} outcome;

static void outcome_free(outcome *o)
{
    seam_message_free(o->msg);
    memset(o, 0, sizeof *o);
}

/* One call to the given model, whole (streaming 0) or streamed. */
static outcome run_model(const seam_request *req, int streaming, const char *model)
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

static outcome run(const seam_request *req, int streaming)
{
    return run_model(req, streaming, MODEL);
}

static seam_request *user_request(const char *text)
{
    seam_request *req = seam_request_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(req);
    CU_ASSERT_EQUAL(seam_request_add_user_text(req, text), SEAM_OK);
    return req;
}

/* Concatenated reasoning text of a message. */
static char *reasoning_text(const seam_message *m)
{
    size_t cap = 1, len = 0;
    for (size_t i = 0; m && i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        if (seam_part_get_type(p) == SEAM_PART_REASONING && seam_part_text(p))
            cap += strlen(seam_part_text(p));
    }
    char *out = calloc(1, cap);
    for (size_t i = 0; out && m && i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        if (seam_part_get_type(p) == SEAM_PART_REASONING && seam_part_text(p)) {
            memcpy(out + len, seam_part_text(p), strlen(seam_part_text(p)));
            len += strlen(seam_part_text(p));
        }
    }
    return out;
}

static size_t count_parts(const seam_message *m, seam_part_type t)
{
    size_t n = 0;
    for (size_t i = 0; m && i < seam_message_part_count(m); i++)
        n += seam_part_get_type(seam_message_part(m, i)) == t;
    return n;
}

static const seam_part *nth_part(const seam_message *m, seam_part_type t, size_t nth)
{
    for (size_t i = 0; m && i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        if (seam_part_get_type(p) == t && nth-- == 0)
            return p;
    }
    return NULL;
}

/* The last request the server received. */
static size_t last_request(void)
{
    size_t n = fake_server_request_count(server);
    CU_ASSERT_FATAL(n > 0);
    return n - 1;
}

static json_object *request_body(size_t i)
{
    const char *body = fake_server_request_body(server, i);
    json_object *j = body ? json_tokener_parse(body) : NULL;
    CU_ASSERT_PTR_NOT_NULL(j);
    return j;
}

/* The body of the last request the server received (the caller puts it). */
static json_object *sent_body(void)
{
    return request_body(last_request());
}

/* The body the server got for req, run whole on model against answer (a
 * 200), which must succeed; the caller puts it. */
static json_object *body_sent_for(const seam_request *req, const char *model, const char *answer)
{
    fake_server_push_json(server, 200, answer, NULL);
    outcome o = run_model(req, 0, model);
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    outcome_free(&o);
    return sent_body();
}

/* A call whole, its answer body (a 200). */
static outcome answered(const seam_request *req, const char *body)
{
    fake_server_push_json(server, 200, body, NULL);
    return run(req, 0);
}

/* A call streamed, its answer the SSE body (split bytes a write). */
static outcome streamed(const seam_request *req, const char *sse, size_t split)
{
    fake_server_push_sse(server, sse, split);
    return run(req, 1);
}

/* Asserts that actual equals the JSON text expected (objects compare by key). */
#define CHECK_JSON(actual, expected) CU_ASSERT_TRUE(tu_json_equal((actual), (expected)))

/* One assertion: schema passes is_subset; when not, what it is not and why
 * go to stderr. */
static void assert_subset(json_object *schema, int (*is_subset)(json_object *, char *, size_t),
                          const char *what)
{
    char why[128] = "";
    CU_ASSERT_TRUE(is_subset(schema, why, sizeof why));
    if (why[0])
        fprintf(stderr, "\nnot %s: %s\n", what, why);
}

/* Whether schema s is an object whose every key is one of allowed (why says
 * what is not). */
static int keywords_allowed(json_object *s, const char *const *allowed, size_t n, char *why,
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

/* Every keyword anywhere in a Gemini schema tree must be one Gemini accepts. */
static int schema_is_gemini_subset(json_object *s, char *why, size_t why_size)
{
    static const char *const allowed[] = {
        "type",     "format",    "title",     "description",   "nullable", "enum",
        "properties", "required", "propertyOrdering", "minProperties", "maxProperties",
        "items",    "minItems",  "maxItems",  "minLength",     "maxLength", "pattern",
        "minimum",  "maximum",   "anyOf",     "default",
    };
    static const char *const types[] = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"};
    if (!keywords_allowed(s, allowed, sizeof allowed / sizeof allowed[0], why, why_size))
        return 0;
    json_object_object_foreach(s, key, val)
    {
        if (strcmp(key, "type") == 0) {
            int known = 0;
            for (size_t i = 0; i < 6; i++)
                known |= json_object_is_type(val, json_type_string) &&
                         strcmp(json_object_get_string(val), types[i]) == 0;
            if (!known) {
                snprintf(why, why_size, "type %s", json_object_to_json_string(val));
                return 0;
            }
        }
        if (strcmp(key, "enum") == 0)
            for (size_t i = 0; i < json_object_array_length(val); i++)
                if (!json_object_is_type(json_object_array_get_idx(val, i), json_type_string)) {
                    snprintf(why, why_size, "a non-string enum value");
                    return 0;
                }
        if (strcmp(key, "properties") == 0) {
            if (json_object_object_length(val) == 0) {
                snprintf(why, why_size, "empty properties");
                return 0;
            }
            json_object_object_foreach(val, pname, sub)
            {
                (void)pname;
                if (!schema_is_gemini_subset(sub, why, why_size))
                    return 0;
            }
        }
        if (strcmp(key, "items") == 0 && !schema_is_gemini_subset(val, why, why_size))
            return 0;
        if (strcmp(key, "anyOf") == 0)
            for (size_t i = 0; i < json_object_array_length(val); i++)
                if (!schema_is_gemini_subset(json_object_array_get_idx(val, i), why, why_size))
                    return 0;
    }
    const char *t = NULL;
    json_object *tv;
    if (json_object_object_get_ex(s, "type", &tv))
        t = json_object_get_string(tv);
    if (t && strcmp(t, "ARRAY") == 0 && !json_object_object_get_ex(s, "items", NULL)) {
        snprintf(why, why_size, "an ARRAY without items");
        return 0;
    }
    if ((!t || strcmp(t, "OBJECT") != 0) &&
        (json_object_object_get_ex(s, "properties", NULL) || json_object_object_get_ex(s, "required", NULL))) {
        snprintf(why, why_size, "properties on a non-OBJECT");
        return 0;
    }
    return 1;
}

/* ---- transcripts ----------------------------------------------------------------------- */

/* Thoughts, then text with UTF-8 that a cut can split, then the signature in a
 * final empty text part, as Gemini 3 streams it. */
static const char STREAM_REASONING[] =
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Counting the r's\",\"thought\":true}],"
    "\"role\":\"model\"},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":12,\"totalTokenCount\":40,"
    "\"thoughtsTokenCount\":28},\"modelVersion\":\"gemini-2.5-flash\"}\r\n\r\n"
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" in strawberry.\",\"thought\":true}],"
    "\"role\":\"model\"},\"index\":0}]}\r\n\r\n"
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"There are 3 r\xe2\x80\x99s \xe2\x80\x94 "
    "\xc3\xa9t\xc3\xa9 \xe2\x9c\x93\"}],\"role\":\"model\"},\"index\":0}]}\r\n\r\n"
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" in strawberry.\"}],\"role\":\"model\"},"
    "\"index\":0}]}\r\n\r\n"
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\",\"thoughtSignature\":\"c2lnLXRleHQ=\"}],"
    "\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":12,"
    "\"cachedContentTokenCount\":4,\"candidatesTokenCount\":9,\"totalTokenCount\":49,"
    "\"thoughtsTokenCount\":28}}\r\n\r\n";
static const char REASONING_TEXT[] = "Counting the r's in strawberry.";
static const char ANSWER_TEXT[] =
    "There are 3 r\xe2\x80\x99s \xe2\x80\x94 \xc3\xa9t\xc3\xa9 \xe2\x9c\x93 in strawberry.";

/* Text, then two parallel calls; the signature on the first call only. */
static const char STREAM_TOOLS[] =
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Let me check.\"}],\"role\":\"model\"},"
    "\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":40,\"totalTokenCount\":44}}\r\n\r\n"
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"get_weather\","
    "\"args\":{\"city\":\"Paris\",\"days\":2}},\"thoughtSignature\":\"c2lnLWNhbGw=\"},"
    "{\"functionCall\":{\"name\":\"get_time\",\"args\":{\"tz\":\"Europe/Paris\"}}}],\"role\":\"model\"},"
    "\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":40,"
    "\"candidatesTokenCount\":20,\"totalTokenCount\":60}}\r\n\r\n";

static void check_reasoning_outcome(const outcome *o)
{
    CU_ASSERT_EQUAL(o->rc, SEAM_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o->msg);
    CU_ASSERT_STRING_EQUAL(seam_message_text(o->msg), ANSWER_TEXT);
    char *r = reasoning_text(o->msg);
    CU_ASSERT_STRING_EQUAL(r, REASONING_TEXT);
    free(r);
    CU_ASSERT_EQUAL(o->stop, SEAM_STOP_STOP);
    CU_ASSERT_EQUAL(o->stop_chunks, 1);
    CU_ASSERT_EQUAL(o->usage.input_tokens, 8); /* 12 prompt - 4 cached */
    CU_ASSERT_EQUAL(o->usage.cache_read_tokens, 4);
    CU_ASSERT_EQUAL(o->usage.output_tokens, 37); /* 9 candidates + 28 thoughts */
    CU_ASSERT_EQUAL(o->usage.reasoning_tokens, 28);
    CU_ASSERT(o->usage.present & SEAM_USAGE_INPUT);
    CU_ASSERT(o->usage.present & SEAM_USAGE_OUTPUT);
    CU_ASSERT(o->usage.present & SEAM_USAGE_REASONING);
    CU_ASSERT_FALSE(o->usage.present & SEAM_USAGE_CACHE_WRITE);
    /* The thought block, then the answer, then the signature carrier. */
    CU_ASSERT_EQUAL(count_parts(o->msg, SEAM_PART_REASONING), 2);
    const seam_part *sig = nth_part(o->msg, SEAM_PART_REASONING, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sig);
    CU_ASSERT_STRING_EQUAL(seam_part_text(sig), "");
    CU_ASSERT_PTR_NOT_NULL_FATAL(seam_part_signature(sig));
    CU_ASSERT_STRING_EQUAL(seam_part_signature(sig), "gemini:c2lnLXRleHQ=");
}

/* ---- tests: streaming decode ----------------------------------------------------------------- */

static void test_stream_reasoning_and_wire(void)
{
    seam_request *req = user_request("How many r's in strawberry?");
    fake_server_push_sse(server, STREAM_REASONING, 0);
    outcome o = run(req, 1);
    check_reasoning_outcome(&o);

    size_t i = last_request();
    CU_ASSERT_STRING_EQUAL(fake_server_request_method(server, i), "POST");
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(server, i),
                           "/v1beta/models/" MODEL ":streamGenerateContent?alt=sse");
    const char *key = fake_server_request_header(server, i, "x-goog-api-key");
    CU_ASSERT_PTR_NOT_NULL_FATAL(key);
    CU_ASSERT_STRING_EQUAL(key, API_KEY);
    CU_ASSERT_PTR_NULL(fake_server_request_header(server, i, "Authorization"));
    const char *ct = fake_server_request_header(server, i, "Content-Type");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ct);
    CU_ASSERT_PTR_NOT_NULL(strstr(ct, "application/json"));
    CU_ASSERT_PTR_NULL(strstr(fake_server_request_body(server, i), API_KEY));
    outcome_free(&o);
    seam_request_free(req);
}

/* The same transcript cut at every byte position (one byte per piece, paced so
 * that TCP delivers them apart), then in pieces of every size up to 48. */
static void test_stream_cut_everywhere(void)
{
    seam_request *req = user_request("How many r's in strawberry?");
    fake_response r = {.status = 200, .content_type = "text/event-stream",
                       .body = STREAM_REASONING, .split = 1, .delay_ms = 1, .chunked = 1};
    fake_server_push(server, &r);
    outcome o = run(req, 1);
    check_reasoning_outcome(&o);
    outcome_free(&o);
    for (size_t split = 2; split <= 48; split++) {
        fake_server_push_sse(server, STREAM_REASONING, split);
        o = run(req, 1);
        check_reasoning_outcome(&o);
        outcome_free(&o);
        fake_server_push_sse(server, STREAM_TOOLS, split);
        o = run(req, 1);
        CU_ASSERT_EQUAL(o.rc, SEAM_OK);
        CU_ASSERT_EQUAL(count_parts(o.msg, SEAM_PART_TOOL_CALL), 2);
        CU_ASSERT_EQUAL(o.stop, SEAM_STOP_TOOL_USE);
        CU_ASSERT_EQUAL(o.stop_chunks, 1);
        outcome_free(&o);
    }
    seam_request_free(req);
}

/* The start of an event whose candidate says "Hi" (its finishReason and usage follow). */
#define SSE_HI "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],\"role\":\"model\"},"

/* A stream of one candidate saying "Hi", its events from finishReason on, and
 * what the call must make of it; -1 (0 for lacks) leaves a member unchecked. */
typedef struct usage_case {
    const char *name;
    const char *events;         /* what follows SSE_HI */
    int rc;
    seam_error_kind kind;       /* checked when rc is not SEAM_OK */
    int stop_chunks;
    seam_stop_reason stop;      /* checked when stop_chunks > 0 */
    int64_t in, out, reasoning; /* the usage's tokens */
    unsigned lacks;             /* usage members that must be absent (~0u: all) */
} usage_case;

static const usage_case usage_cases[] = {
    /* Found by fuzz/run.sh: counts near INT64_MAX once overflowed the sum of
     * candidates and thoughts (undefined behaviour). They are bounded now. */
    { "absurd counts are bounded",
      "\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":-7,"
      "\"cachedContentTokenCount\":1e300,\"candidatesTokenCount\":2,"
      "\"thoughtsTokenCount\":222222222222222222222222222222221}}\r\n\r\n",
      SEAM_OK, 0, -1, 0, 0, 1000000000000LL, 1000000000000LL, 0 },
    /* finishReason first, usage in a later event: one stop, with that usage. */
    { "usage after the finish",
      "\"finishReason\":\"STOP\",\"index\":0}]}\r\n\r\n"
      "data: {\"usageMetadata\":{\"promptTokenCount\":3,\"candidatesTokenCount\":1,"
      "\"totalTokenCount\":4}}\r\n\r\n",
      SEAM_OK, 0, 1, SEAM_STOP_STOP, 3, 1, -1, SEAM_USAGE_REASONING },
    /* finishReason and never any usage: the stop still comes, at the end. */
    { "a finish and no usage",
      "\"finishReason\":\"MAX_TOKENS\",\"index\":0}]}\r\n\r\n",
      SEAM_OK, 0, 1, SEAM_STOP_LENGTH, -1, -1, -1, ~0u },
    /* No finishReason at all before the server closes: a cut stream. */
    { "no finish: a cut stream",
      "\"index\":0}]}\r\n\r\n",
      SEAM_ERR_PROVIDER, SEAM_ERROR_TRANSPORT, 0, 0, -1, -1, -1, 0 },
};

static void test_stream_usage_and_finish(void)
{
    seam_request *req = user_request("hi");
    for (size_t i = 0; i < sizeof usage_cases / sizeof usage_cases[0]; i++) {
        const usage_case *c = &usage_cases[i];
        char sse[1024];
        snprintf(sse, sizeof sse, "%s%s", SSE_HI, c->events);
        outcome o = streamed(req, sse, 0);
        unsigned failed = CU_get_number_of_failures();
        CU_ASSERT_EQUAL(o.rc, c->rc);
        if (c->rc != SEAM_OK)
            CU_ASSERT_EQUAL(o.err.kind, c->kind);
        if (c->stop_chunks >= 0)
            CU_ASSERT_EQUAL(o.stop_chunks, c->stop_chunks);
        if (c->stop_chunks > 0)
            CU_ASSERT_EQUAL(o.stop, c->stop);
        if (c->in >= 0)
            CU_ASSERT_EQUAL(o.usage.input_tokens, c->in);
        if (c->reasoning >= 0)
            CU_ASSERT_EQUAL(o.usage.reasoning_tokens, c->reasoning);
        if (c->out >= 0)
            CU_ASSERT_EQUAL(o.usage.output_tokens, c->out);
        if (c->lacks)
            CU_ASSERT_EQUAL(o.usage.present & c->lacks, 0);
        if (CU_get_number_of_failures() != failed)
            fprintf(stderr, "\n  in case \"%s\"\n", c->name);
        outcome_free(&o);
    }
    seam_request_free(req);
}

static void test_finish_reasons_and_blocked_prompt(void)
{
    static const tu_stop_case table[] = {
        {"STOP", SEAM_STOP_STOP},
        {"MAX_TOKENS", SEAM_STOP_LENGTH},
        {"SAFETY", SEAM_STOP_CONTENT_FILTER},
        {"RECITATION", SEAM_STOP_CONTENT_FILTER},
        {"BLOCKLIST", SEAM_STOP_CONTENT_FILTER},
        {"PROHIBITED_CONTENT", SEAM_STOP_CONTENT_FILTER},
        {"SPII", SEAM_STOP_CONTENT_FILTER},
        {"MALFORMED_FUNCTION_CALL", SEAM_STOP_ERROR},
        {"OTHER", SEAM_STOP_STOP},
        /* Gemini 4 long decode: the request's own cap was reached, the answer is cut. */
        {"CONTINUATION", SEAM_STOP_LENGTH},
        {"MODEL_ARMOR", SEAM_STOP_CONTENT_FILTER},
        {"MALFORMED_RESPONSE", SEAM_STOP_ERROR},
        {"MISSING_THOUGHT_SIGNATURE", SEAM_STOP_ERROR},
        {NULL, 0},
    };
    seam_request *req = user_request("hi");
    tu_stop_reasons_are(server, client, "gm", MODEL, req,
                        "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"partial\"}],\"role\":\"model\"},"
                        "\"finishReason\":\"@STOP@\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":5,"
                        "\"candidatesTokenCount\":2,\"totalTokenCount\":7}}",
                        table);

    /* A blocked prompt has no candidates, only promptFeedback. Whole and streamed. */
    static const char blocked[] =
        "{\"promptFeedback\":{\"blockReason\":\"SAFETY\",\"safetyRatings\":[{\"category\":"
        "\"HARM_CATEGORY_DANGEROUS_CONTENT\",\"probability\":\"HIGH\"}]},"
        "\"usageMetadata\":{\"promptTokenCount\":7,\"totalTokenCount\":7}}";
    fake_server_push_json(server, 200, blocked, NULL);
    outcome o = run(req, 0);
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_CONTENT_FILTER);
    CU_ASSERT_STRING_EQUAL(seam_message_text(o.msg), "");
    CU_ASSERT_EQUAL(o.usage.input_tokens, 7);
    outcome_free(&o);

    char sse[1024];
    snprintf(sse, sizeof sse, "data: %s\r\n\r\n", blocked);
    fake_server_push_sse(server, sse, 7);
    o = run(req, 1);
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_CONTENT_FILTER);
    CU_ASSERT_EQUAL(o.stop_chunks, 1);
    outcome_free(&o);

    /* Safety stop in the middle of a stream. */
    o = streamed(req,
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Sure, \"}],\"role\":\"model\"},"
            "\"index\":0}]}\r\n\r\n"
            "data: {\"candidates\":[{\"finishReason\":\"SAFETY\",\"index\":0,\"safetyRatings\":[]}],"
            "\"usageMetadata\":{\"promptTokenCount\":5,\"candidatesTokenCount\":2,"
            "\"totalTokenCount\":7}}\r\n\r\n",
            3);
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_CONTENT_FILTER);
    CU_ASSERT_STRING_EQUAL(seam_message_text(o.msg), "Sure, ");
    outcome_free(&o);
    seam_request_free(req);
}

/* One GenerateContentResponse as a whole body and as a single stream event:
 * the same parts, stop and usage. And the reasoning transcript, streamed and as
 * the equivalent whole response: the same text, reasoning, stop and usage. */
static void test_whole_response_equals_stream(void)
{
    static const char response[] =
        "{\"candidates\":[{\"content\":{\"parts\":["
        "{\"text\":\"Planning the lookup.\",\"thought\":true},"
        "{\"text\":\"Checking the weather.\"},"
        "{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":\"Oslo\",\"units\":[\"c\"]}},"
        "\"thoughtSignature\":\"c2lnLW9zbG8=\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],"
        "\"usageMetadata\":{\"promptTokenCount\":30,\"candidatesTokenCount\":12,\"thoughtsTokenCount\":50,"
        "\"totalTokenCount\":92},\"modelVersion\":\"gemini-2.5-flash\"}";
    seam_request *req = user_request("Weather in Oslo?");
    fake_server_push_json(server, 200, response, NULL);
    outcome whole = run(req, 0);
    char sse[2048];
    snprintf(sse, sizeof sse, "data: %s\r\n\r\n", response);
    fake_server_push_sse(server, sse, 5);
    outcome streamed = run(req, 1);

    CU_ASSERT_EQUAL(whole.rc, SEAM_OK);
    CU_ASSERT_EQUAL(streamed.rc, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(server, last_request() - 1),
                           "/v1beta/models/" MODEL ":generateContent");
    CU_ASSERT_PTR_NOT_NULL_FATAL(whole.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(streamed.msg);
    CU_ASSERT_EQUAL(whole.stop, SEAM_STOP_TOOL_USE);
    CU_ASSERT_EQUAL(streamed.stop, whole.stop);
    CU_ASSERT_EQUAL(memcmp(&whole.usage, &streamed.usage, sizeof whole.usage), 0);
    CU_ASSERT_EQUAL(whole.usage.output_tokens, 62);
    CU_ASSERT_EQUAL(whole.usage.reasoning_tokens, 50);
    CU_ASSERT_EQUAL(seam_message_part_count(whole.msg), 4); /* thought, text, signature carrier, tool call */
    /* Ids are synthesized per response: both present, not the same. */
    tu_parts_alike(whole.msg, streamed.msg, TU_PARTS_NEW_IDS | TU_PARTS_ARGS_AS_JSON);
    CU_ASSERT_TRUE(tu_json_text_equal(seam_part_args_json(nth_part(whole.msg, SEAM_PART_TOOL_CALL, 0)),
                                   "{\"city\":\"Oslo\",\"units\":[\"c\"]}"));
    const seam_part *carrier = seam_message_part(whole.msg, 2);
    CU_ASSERT_EQUAL(seam_part_get_type(carrier), SEAM_PART_REASONING);
    CU_ASSERT_STRING_EQUAL(seam_part_signature(carrier), "gemini:c2lnLW9zbG8=");
    outcome_free(&whole);
    outcome_free(&streamed);

    static const char merged[] =
        "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Counting the r's in strawberry.\","
        "\"thought\":true},{\"text\":\"There are 3 r\xe2\x80\x99s \xe2\x80\x94 \xc3\xa9t\xc3\xa9 \xe2\x9c\x93 "
        "in strawberry.\",\"thoughtSignature\":\"c2lnLXRleHQ=\"}],\"role\":\"model\"},"
        "\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":12,"
        "\"cachedContentTokenCount\":4,\"candidatesTokenCount\":9,\"totalTokenCount\":49,"
        "\"thoughtsTokenCount\":28}}";
    fake_server_push_json(server, 200, merged, NULL);
    whole = run(req, 0);
    check_reasoning_outcome(&whole);
    outcome_free(&whole);
    seam_request_free(req);
}

/* ---- tests: encode ---------------------------------------------------------------------- */

static void test_encode_conversation(void)
{
    seam_request *req = seam_request_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(req);
    seam_request_set_system(req, "You are terse.");
    tu_add_turn(req, SEAM_ROLE_USER, TU_PARTS(TU_TEXT("What is in these?"),
                                              TU_MEDIA("image/png", SEAM_MEDIA_BASE64, "iVBORw0KGgo="),
                                              TU_MEDIA("application/pdf", SEAM_MEDIA_URL,
                                                       "https://generativelanguage.googleapis.com/v1beta/files/abc"),
                                              TU_TEXT("")));
    seam_message *a = seam_message_new(SEAM_ROLE_ASSISTANT);
    /* A reasoning part of another provider (no signature) is not replayed. */
    seam_message_add_reasoning(a, "thinking elsewhere", NULL, 0);
    seam_message_add_text(a, "A cat and a report.");
    CU_ASSERT_EQUAL(seam_request_add_message(req, a), SEAM_OK);
    seam_request_add_user_text(req, "Thanks.");
    seam_request_add_user_text(req, "Summarize.");
    seam_request_set_temperature(req, 0.7);
    seam_request_set_max_tokens(req, 256);
    seam_request_add_stop(req, "END");
    seam_request_add_stop(req, "STOP HERE");

    outcome o = answered(req,
            "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Done.\"}],"
            "\"role\":\"model\"},\"finishReason\":\"STOP\"}]}");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_message_text(o.msg), "Done.");
    json_object *body = sent_body();
    CHECK_JSON(body,
               "{\"systemInstruction\":{\"parts\":[{\"text\":\"You are terse.\"}]},"
               "\"contents\":["
               "{\"role\":\"user\",\"parts\":[{\"text\":\"What is in these?\"},"
               "{\"inlineData\":{\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgo=\"}},"
               "{\"fileData\":{\"mimeType\":\"application/pdf\",\"fileUri\":"
               "\"https://generativelanguage.googleapis.com/v1beta/files/abc\"}}]},"
               "{\"role\":\"model\",\"parts\":[{\"text\":\"A cat and a report.\"}]},"
               "{\"role\":\"user\",\"parts\":[{\"text\":\"Thanks.\"},{\"text\":\"Summarize.\"}]}],"
               "\"generationConfig\":{\"temperature\":0.7,\"maxOutputTokens\":256,"
               "\"stopSequences\":[\"END\",\"STOP HERE\"]}}");
    json_object_put(body);
    outcome_free(&o);
    seam_request_free(req);
}

/* Properties of WEATHER_SCHEMA that its JSON Schema subset (Gemini 3 and
 * later, WEATHER_SCHEMA_JSON_SUBSET) keeps as they are. */
#define WEATHER_PROPERTIES_KEPT                                                                   \
    "  \"extra\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"             \
    "  \"raw\":{\"type\":\"array\"},"                                                               \
    "  \"note\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}],\"description\":\"Optional note\"}," \
    "  \"level\":{\"type\":\"integer\",\"enum\":[1,2,3]},"                                          \
    "  \"node\":{\"$ref\":\"#/$defs/Node\"},"                                                       \
    "  \"either\":{\"type\":[\"string\",\"array\"],\"items\":{\"type\":\"number\"}},"

/* The schema of the issue: $ref/$defs, additionalProperties, const, a nullable
 * type array, plus the shapes Gemini's validator refuses. */
static const char WEATHER_SCHEMA[] =
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

static const char WEATHER_SCHEMA_GEMINI[] =
    "{\"type\":\"OBJECT\",\"properties\":{"
    "\"place\":{\"type\":\"OBJECT\",\"description\":\"Where\",\"properties\":{"
    "   \"city\":{\"type\":\"STRING\",\"minLength\":1},\"country\":{\"type\":\"STRING\"}},"
    "   \"required\":[\"city\"]},"
    "\"unit\":{\"type\":\"STRING\",\"description\":\"Temperature unit\",\"enum\":[\"celsius\",\"fahrenheit\"]},"
    "\"kind\":{\"type\":\"STRING\",\"enum\":[\"forecast\"]},"
    "\"days\":{\"type\":\"INTEGER\",\"nullable\":true,\"minimum\":1,\"maximum\":14},"
    "\"when\":{\"type\":\"STRING\",\"format\":\"date-time\"},"
    "\"email\":{\"type\":\"STRING\"},"
    "\"tags\":{\"type\":\"ARRAY\",\"items\":{\"type\":\"STRING\"},\"maxItems\":5},"
    "\"extra\":{\"type\":\"OBJECT\"},"
    "\"raw\":{\"type\":\"ARRAY\",\"items\":{}},"
    "\"note\":{\"type\":\"STRING\",\"description\":\"Optional note\",\"nullable\":true},"
    "\"level\":{\"type\":\"INTEGER\",\"format\":\"enum\",\"enum\":[\"1\",\"2\",\"3\"]},"
    "\"node\":{\"type\":\"OBJECT\",\"properties\":{\"value\":{\"type\":\"STRING\"},\"next\":{}}},"
    "\"either\":{\"anyOf\":[{\"type\":\"STRING\"},{\"type\":\"ARRAY\",\"items\":{\"type\":\"NUMBER\"}}]},"
    "\"both\":{\"type\":\"OBJECT\",\"properties\":{\"a\":{\"type\":\"BOOLEAN\"},"
    "   \"b\":{\"type\":\"NUMBER\",\"format\":\"double\"}},\"required\":[\"a\"]}"
    "},\"required\":[\"place\",\"unit\"]}";

static void test_encode_tools_and_schema_reshape(void)
{
    seam_request *req = user_request("Weather in Paris?");
    CU_ASSERT_EQUAL(seam_request_add_tool(req, "get_weather", "Forecast for a place", WEATHER_SCHEMA),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_tool(req, "ping", "No arguments", NULL), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_tool(req, "noop", "",
                                          "{\"type\":\"object\",\"properties\":{},"
                                          "\"additionalProperties\":false}"),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_NAMED, "get_weather"), SEAM_OK);

    outcome o = answered(req,
            "{\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":"
            "\"get_weather\",\"args\":{\"place\":{\"city\":\"Paris\"},\"unit\":\"celsius\"}}}],"
            "\"role\":\"model\"},\"finishReason\":\"STOP\"}]}");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_TOOL_USE);
    const seam_part *call = nth_part(o.msg, SEAM_PART_TOOL_CALL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(call);
    CU_ASSERT_STRING_EQUAL(seam_part_tool_name(call), "get_weather");
    CU_ASSERT_TRUE(tu_json_text_equal(seam_part_args_json(call),
                                   "{\"place\":{\"city\":\"Paris\"},\"unit\":\"celsius\"}"));

    json_object *body = sent_body();
    CHECK_JSON(tu_json_at(body, "tools.0.functionDeclarations.0.parameters"), WEATHER_SCHEMA_GEMINI);
    CU_ASSERT_STRING_EQUAL(tu_json_str(body, "tools.0.functionDeclarations.0.name"), "get_weather");
    CU_ASSERT_STRING_EQUAL(tu_json_str(body, "tools.0.functionDeclarations.0.description"),
                           "Forecast for a place");
    /* Functions without arguments are declared without parameters. */
    CHECK_JSON(tu_json_at(body, "tools.0.functionDeclarations.1"),
               "{\"name\":\"ping\",\"description\":\"No arguments\"}");
    CHECK_JSON(tu_json_at(body, "tools.0.functionDeclarations.2"), "{\"name\":\"noop\"}");
    CHECK_JSON(tu_json_at(body, "toolConfig"),
               "{\"functionCallingConfig\":{\"mode\":\"ANY\",\"allowedFunctionNames\":[\"get_weather\"]}}");
    assert_subset(tu_json_at(body, "tools.0.functionDeclarations.0.parameters"), schema_is_gemini_subset,
                  "Gemini's subset");
    json_object_put(body);
    outcome_free(&o);

    /* The other tool choices. */
    static const struct {
        seam_tool_choice choice;
        const char *mode;
    } modes[] = {{SEAM_TOOL_CHOICE_AUTO, "AUTO"}, {SEAM_TOOL_CHOICE_REQUIRED, "ANY"},
                 {SEAM_TOOL_CHOICE_NONE, "NONE"}};
    for (size_t i = 0; i < 3; i++) {
        seam_request_set_tool_choice(req, modes[i].choice, NULL);
        body = body_sent_for(req, MODEL, OK_ANSWER);
        CU_ASSERT_STRING_EQUAL(tu_json_str(body, "toolConfig.functionCallingConfig.mode"), modes[i].mode);
        CU_ASSERT_PTR_NULL(tu_json_at(body, "toolConfig.functionCallingConfig.allowedFunctionNames"));
        json_object_put(body);
    }

    /* A named choice that is not a declared tool cannot be expressed. */
    size_t before = fake_server_request_count(server);
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_NAMED, "missing_tool");
    o = run(req, 0);
    CU_ASSERT_NOT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_EQUAL(fake_server_request_count(server), before);
    outcome_free(&o);
    seam_request_free(req);
}

static void test_encode_json_mode_thinking_and_options(void)
{
    seam_request *req = user_request("List two colors.");
    CU_ASSERT_EQUAL(seam_request_set_response_format(
                        req, SEAM_FORMAT_JSON, "colors",
                        "{\"type\":\"object\",\"properties\":{\"colors\":{\"type\":\"array\","
                        "\"items\":{\"type\":\"string\"},\"minItems\":2}},\"required\":[\"colors\"],"
                        "\"additionalProperties\":false}",
                        1),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_reasoning_budget(req, 1024), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_provider_options(
                        req, "{\"safetySettings\":[{\"category\":\"HARM_CATEGORY_HARASSMENT\","
                             "\"threshold\":\"BLOCK_NONE\"}],\"generationConfig\":{\"topK\":20},"
                             "\"unknownKey\":1}"),
                    SEAM_OK);
    outcome o = answered(req,
            "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"{\\\"colors\\\":"
            "[\\\"red\\\",\\\"blue\\\"]}\"}]},\"finishReason\":\"STOP\"}]}");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_TRUE(tu_json_text_equal(seam_message_text(o.msg), "{\"colors\":[\"red\",\"blue\"]}"));
    json_object *body = sent_body();
    CHECK_JSON(tu_json_at(body, "generationConfig"),
               "{\"responseMimeType\":\"application/json\",\"responseSchema\":{\"type\":\"OBJECT\","
               "\"properties\":{\"colors\":{\"type\":\"ARRAY\",\"items\":{\"type\":\"STRING\"},"
               "\"minItems\":2}},\"required\":[\"colors\"]},"
               "\"thinkingConfig\":{\"thinkingBudget\":1024,\"includeThoughts\":true},\"topK\":20}");
    CHECK_JSON(tu_json_at(body, "safetySettings"),
               "[{\"category\":\"HARM_CATEGORY_HARASSMENT\",\"threshold\":\"BLOCK_NONE\"}]");
    CU_ASSERT_PTR_NULL(tu_json_at(body, "unknownKey"));
    json_object_put(body);
    outcome_free(&o);

    /* JSON mode without a schema: the mime type alone. */
    seam_request_set_response_format(req, SEAM_FORMAT_JSON, NULL, NULL, 0);
    seam_request_set_reasoning_budget(req, 0);
    seam_request_set_provider_options(req, "{}");
    o = answered(req,
            "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"{}\"}]},"
            "\"finishReason\":\"STOP\"}]}");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    body = sent_body();
    CHECK_JSON(tu_json_at(body, "generationConfig"), "{\"responseMimeType\":\"application/json\"}");
    json_object_put(body);
    outcome_free(&o);
    seam_request_free(req);
}

static void test_encode_rejects_what_gemini_cannot_take(void)
{
    size_t before = fake_server_request_count(server);
    seam_request *req = user_request("hi");
    seam_call_options opts = call_options();
    opts.model = "gemini 2.5/../../x?key=1";
    seam_result *res = NULL;
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_NOT_EQUAL(seam_generate(client, req, &opts, &res, &err), SEAM_OK);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_PTR_NULL(res);
    seam_request_free(req);

    /* Only empty text: nothing Gemini accepts as content. */
    req = seam_request_new();
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    seam_message_add_text(m, "");
    seam_request_add_message(req, m);
    outcome o = run(req, 0);
    CU_ASSERT_NOT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_BAD_REQUEST);
    outcome_free(&o);
    seam_request_free(req);

    /* A tool result that matches no call and names no tool. */
    req = user_request("hi");
    m = seam_message_new(SEAM_ROLE_TOOL);
    seam_message_add_tool_result(m, "call_unknown", NULL, "\"x\"", 0);
    seam_request_add_message(req, m);
    o = run(req, 0);
    CU_ASSERT_NOT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_BAD_REQUEST);
    outcome_free(&o);
    seam_request_free(req);
    CU_ASSERT_EQUAL(fake_server_request_count(server), before);
}

/* ---- tests: the two-step tool conversation ------------------------------------------------- */

static void test_tool_round_trip_with_synthesized_ids(void)
{
    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "Weather and time in Paris?");
    seam_request_add_tool(req, "get_weather", "Weather",
                          "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
                          "\"days\":{\"type\":\"integer\"}},\"required\":[\"city\"]}");
    seam_request_add_tool(req, "get_time", "Time",
                          "{\"type\":\"object\",\"properties\":{\"tz\":{\"type\":\"string\"}}}");

    /* Step 1: two parallel calls, streamed. */
    fake_server_push_sse(server, STREAM_TOOLS, 11);
    outcome step1 = run(req, 1);
    CU_ASSERT_EQUAL_FATAL(step1.rc, SEAM_OK);
    CU_ASSERT_EQUAL(step1.stop, SEAM_STOP_TOOL_USE);
    CU_ASSERT_EQUAL(step1.usage.input_tokens, 40);
    CU_ASSERT_EQUAL(step1.usage.output_tokens, 20);
    CU_ASSERT_EQUAL_FATAL(count_parts(step1.msg, SEAM_PART_TOOL_CALL), 2);
    const seam_part *weather = nth_part(step1.msg, SEAM_PART_TOOL_CALL, 0);
    const seam_part *clock = nth_part(step1.msg, SEAM_PART_TOOL_CALL, 1);
    CU_ASSERT_STRING_EQUAL(seam_part_tool_name(weather), "get_weather");
    CU_ASSERT_STRING_EQUAL(seam_part_tool_name(clock), "get_time");
    char weather_id[128], clock_id[128];
    snprintf(weather_id, sizeof weather_id, "%s", seam_part_tool_call_id(weather));
    snprintf(clock_id, sizeof clock_id, "%s", seam_part_tool_call_id(clock));
    CU_ASSERT(strlen(weather_id) > 0);
    CU_ASSERT(strlen(clock_id) > 0);
    CU_ASSERT(strcmp(weather_id, clock_id) != 0);
    CU_ASSERT_TRUE(tu_json_text_equal(seam_part_args_json(weather), "{\"city\":\"Paris\",\"days\":2}"));
    /* The signature that came on the first call sits just before it. */
    const seam_part *carrier = nth_part(step1.msg, SEAM_PART_REASONING, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(carrier);
    CU_ASSERT_STRING_EQUAL(seam_part_signature(carrier), "gemini:c2lnLWNhbGw=");

    /* Step 2: the results come back in the other order, without names, one
     * message each (as an OpenAI-shaped caller sends them), then a user remark. */
    CU_ASSERT_EQUAL(seam_request_add_message(req, seam_message_dup(step1.msg)), SEAM_OK);
    tu_add_tool_result(req, clock_id, NULL, "\"14:05\"", 0);
    tu_add_tool_result(req, weather_id, NULL, "{\"temp_c\":18}", 0);
    seam_request_add_user_text(req, "Be brief.");
    outcome step2 = answered(req,
            "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"18\xc2\xb0"
            "C, 14:05.\"}],\"role\":\"model\"},\"finishReason\":\"STOP\"}],"
            "\"usageMetadata\":{\"promptTokenCount\":80,\"candidatesTokenCount\":6}}");
    CU_ASSERT_EQUAL(step2.rc, SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_message_text(step2.msg), "18\xc2\xb0" "C, 14:05.");
    CU_ASSERT_EQUAL(step2.stop, SEAM_STOP_STOP);

    json_object *body = sent_body();
    CHECK_JSON(tu_json_at(body, "contents"),
               "[{\"role\":\"user\",\"parts\":[{\"text\":\"Weather and time in Paris?\"}]},"
               "{\"role\":\"model\",\"parts\":[{\"text\":\"Let me check.\"},"
               "{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\",\"days\":2}},"
               "\"thoughtSignature\":\"c2lnLWNhbGw=\"},"
               "{\"functionCall\":{\"name\":\"get_time\",\"args\":{\"tz\":\"Europe/Paris\"}}}]},"
               "{\"role\":\"user\",\"parts\":["
               "{\"functionResponse\":{\"name\":\"get_weather\",\"response\":{\"output\":{\"temp_c\":18}}}},"
               "{\"functionResponse\":{\"name\":\"get_time\",\"response\":{\"output\":\"14:05\"}}},"
               "{\"text\":\"Be brief.\"}]}]");
    json_object_put(body);

    /* Step 1 again: a new response gets new ids. */
    fake_server_push_sse(server, STREAM_TOOLS, 0);
    seam_request *again = user_request("Weather and time in Paris?");
    outcome step1b = run(again, 1);
    CU_ASSERT_EQUAL(step1b.rc, SEAM_OK);
    const seam_part *w2 = nth_part(step1b.msg, SEAM_PART_TOOL_CALL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w2);
    CU_ASSERT(strcmp(seam_part_tool_call_id(w2), weather_id) != 0);
    CU_ASSERT(strcmp(seam_part_tool_call_id(w2), clock_id) != 0);
    outcome_free(&step1b);
    seam_request_free(again);

    outcome_free(&step1);
    outcome_free(&step2);
    seam_request_free(req);
}

/* Signatures replayed where they came from: on a thought part, on the text part
 * before a trailing carrier, and as an empty text part when nothing is left;
 * another provider's reasoning never reaches Gemini; an error result goes back
 * under "error". */
static void test_signature_replay_shapes(void)
{
    seam_request *req = user_request("Go.");
    seam_message *a = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_reasoning(a, "Thinking it over.", "gemini:c2lnLXRob3VnaHQ=", 0);
    /* Anthropic-style thinking (an untagged signature) and redacted data. */
    seam_message_add_reasoning(a, "Claude thought.", "EqQBCkYIBxgCKkB", 0);
    seam_message_add_reasoning(a, "opaque", "sig", 1);
    seam_message_add_text(a, "Answer.");
    seam_message_add_reasoning(a, "", "gemini:c2lnLXRyYWlsaW5n", 0);
    seam_request_add_message(req, a);
    seam_request_add_user_text(req, "Again.");
    seam_message *b = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_reasoning(b, "", "gemini:c2lnLWFsb25l", 0);
    seam_request_add_message(req, b);
    tu_add_tool_call(req, "call_7", "lookup", "{\"q\":\"x\"}");
    tu_add_tool_result(req, "call_7", NULL, "\"not found\"", 1);

    json_object *body = body_sent_for(req, MODEL, OK_ANSWER);
    /* The two consecutive model messages merge into one model content. */
    CHECK_JSON(tu_json_at(body, "contents"),
               "[{\"role\":\"user\",\"parts\":[{\"text\":\"Go.\"}]},"
               "{\"role\":\"model\",\"parts\":[{\"text\":\"Thinking it over.\",\"thought\":true,"
               "\"thoughtSignature\":\"c2lnLXRob3VnaHQ=\"},"
               "{\"text\":\"Answer.\",\"thoughtSignature\":\"c2lnLXRyYWlsaW5n\"}]},"
               "{\"role\":\"user\",\"parts\":[{\"text\":\"Again.\"}]},"
               "{\"role\":\"model\",\"parts\":[{\"text\":\"\",\"thoughtSignature\":\"c2lnLWFsb25l\"},"
               "{\"functionCall\":{\"name\":\"lookup\",\"args\":{\"q\":\"x\"}}}]},"
               "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"lookup\","
               "\"response\":{\"error\":\"not found\"}}}]}]");
    json_object_put(body);
    seam_request_free(req);
}

/* ---- tests: Gemini 3 and later ---------------------------------------------------------- */

/* WEATHER_SCHEMA in the JSON Schema subset responseJsonSchema/parametersJsonSchema
 * document: $ref/$defs, anyOf, type arrays, additionalProperties and const (as a
 * one-value enum) stay JSON Schema; undocumented keywords and formats go; allOf is
 * merged; `required` names only properties that exist. */
static const char WEATHER_SCHEMA_JSON_SUBSET[] =
    "{\"type\":\"object\",\"additionalProperties\":false,"
    "\"$defs\":{"
    "  \"Unit\":{\"type\":\"string\",\"enum\":[\"celsius\",\"fahrenheit\"],\"description\":\"Temperature unit\"},"
    "  \"Place\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
    "     \"country\":{\"type\":\"string\"}},\"required\":[\"city\"],\"additionalProperties\":false},"
    "  \"Node\":{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"},"
    "     \"next\":{\"$ref\":\"#/$defs/Node\"}}}},"
    "\"properties\":{"
    "  \"place\":{\"$ref\":\"#/$defs/Place\",\"description\":\"Where\"},"
    "  \"unit\":{\"$ref\":\"#/$defs/Unit\"},"
    "  \"kind\":{\"enum\":[\"forecast\"]},"
    "  \"days\":{\"type\":[\"integer\",\"null\"],\"minimum\":1,\"maximum\":14},"
    "  \"when\":{\"type\":\"string\",\"format\":\"date-time\"},"
    "  \"email\":{\"type\":\"string\"},"
    "  \"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":5},"
    WEATHER_PROPERTIES_KEPT
    "  \"both\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"boolean\"},"
    "     \"b\":{\"type\":\"number\"}},\"required\":[\"a\"]}"
    "},\"required\":[\"place\",\"unit\"]}";

/* Every keyword anywhere in a JSON-Schema-path schema is one the API documents. */
static int json_schema_is_documented_subset(json_object *s, char *why, size_t why_size)
{
    static const char *const allowed[] = {
        "type",     "title",       "description", "properties", "required", "additionalProperties",
        "enum",     "format",      "minimum",     "maximum",    "items",    "prefixItems",
        "minItems", "maxItems",    "anyOf",       "$ref",       "$defs",    "propertyOrdering",
    };
    if (json_object_is_type(s, json_type_boolean))
        return 1;
    if (!keywords_allowed(s, allowed, sizeof allowed / sizeof allowed[0], why, why_size))
        return 0;
    json_object_object_foreach(s, key, val)
    {
        if (strcmp(key, "type") == 0 && json_object_is_type(val, json_type_string)) {
            const char *t = json_object_get_string(val);
            if (strcmp(t, "object") && strcmp(t, "array") && strcmp(t, "string") && strcmp(t, "number") &&
                strcmp(t, "integer") && strcmp(t, "boolean") && strcmp(t, "null")) {
                snprintf(why, why_size, "type %s", t);
                return 0;
            }
        }
        if (strcmp(key, "properties") == 0 || strcmp(key, "$defs") == 0) {
            json_object_object_foreach(val, pname, sub)
            {
                (void)pname;
                if (!json_schema_is_documented_subset(sub, why, why_size))
                    return 0;
            }
        }
        if ((strcmp(key, "items") == 0 || strcmp(key, "additionalProperties") == 0) &&
            !json_schema_is_documented_subset(val, why, why_size))
            return 0;
        if (strcmp(key, "anyOf") == 0 || strcmp(key, "prefixItems") == 0)
            for (size_t i = 0; i < json_object_array_length(val); i++)
                if (!json_schema_is_documented_subset(json_object_array_get_idx(val, i), why, why_size))
                    return 0;
    }
    return 1;
}

static const char LOOKUP_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\",\"minLength\":1},"
    "\"when\":{\"type\":[\"string\",\"null\"],\"format\":\"date\"},"
    "\"opts\":{\"type\":\"object\",\"nullable\":true,\"properties\":{\"n\":{\"type\":\"integer\"}}}},"
    "\"required\":[\"q\",\"missing\"],\"additionalProperties\":false}";
static const char LOOKUP_SCHEMA_JSON_SUBSET[] =
    "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"},"
    "\"when\":{\"type\":[\"string\",\"null\"],\"format\":\"date\"},"
    "\"opts\":{\"type\":[\"object\",\"null\"],\"properties\":{\"n\":{\"type\":\"integer\"}}}},"
    "\"required\":[\"q\"],\"additionalProperties\":false}";

/* The golden Gemini 4 request, streamed and whole: thinkingLevel from the budget,
 * maxOutputTokens clamped to one request's cap (65,536 streamed, 32,768 whole),
 * parametersJsonSchema; and a hop that ends with CONTINUATION is a cut answer. */
static void test_gemini4_request_and_continuation(void)
{
    seam_request *req = seam_request_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(req);
    seam_request_set_system(req, "You are terse.");
    seam_request_add_user_text(req, "Plan the migration.");
    CU_ASSERT_EQUAL(seam_request_add_tool(req, "lookup", "Find a record", LOOKUP_SCHEMA), SEAM_OK);
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_AUTO, NULL);
    seam_request_set_max_tokens(req, 200000);
    seam_request_set_reasoning_budget(req, 20000);

    static const char golden_prefix[] =
        "{\"systemInstruction\":{\"parts\":[{\"text\":\"You are terse.\"}]},"
        "\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Plan the migration.\"}]}],"
        "\"tools\":[{\"functionDeclarations\":[{\"name\":\"lookup\",\"description\":\"Find a record\","
        "\"parametersJsonSchema\":%s}]}],"
        "\"toolConfig\":{\"functionCallingConfig\":{\"mode\":\"AUTO\"}},"
        "\"generationConfig\":{\"maxOutputTokens\":%d,"
        "\"thinkingConfig\":{\"thinkingLevel\":\"HIGH\",\"includeThoughts\":true}}}";
    char golden[4096];

    /* Streamed: the hop reaches the cap, the answer so far is kept, stop "length". */
    fake_server_push_sse(server,
                         "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Step 1: inventory.\"}],"
                         "\"role\":\"model\"},\"index\":0}]}\r\n\r\n"
                         "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" Step 2:\"}],"
                         "\"role\":\"model\"},\"finishReason\":\"CONTINUATION\",\"continuationToken\":"
                         "\"Y29udGludWU=\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":30,"
                         "\"candidatesTokenCount\":5000,\"thoughtsTokenCount\":60536,"
                         "\"totalTokenCount\":65566},\"modelVersion\":\"gemini-4-argon\"}\r\n\r\n",
                         9);
    outcome o = run_model(req, 1, "gemini-4-argon");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_LENGTH);
    CU_ASSERT_EQUAL(o.stop_chunks, 1);
    CU_ASSERT_STRING_EQUAL(seam_message_text(o.msg), "Step 1: inventory. Step 2:");
    CU_ASSERT_EQUAL(o.usage.output_tokens, 65536);
    CU_ASSERT_EQUAL(o.usage.reasoning_tokens, 60536);
    size_t i = last_request();
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(server, i),
                           "/v1beta/models/gemini-4-argon:streamGenerateContent?alt=sse");
    json_object *body = request_body(i);
    snprintf(golden, sizeof golden, golden_prefix, LOOKUP_SCHEMA_JSON_SUBSET, 65536);
    CHECK_JSON(body, golden);
    assert_subset(tu_json_at(body, "tools.0.functionDeclarations.0.parametersJsonSchema"),
                  json_schema_is_documented_subset, "the documented subset");
    json_object_put(body);
    outcome_free(&o);

    /* Whole: a non-streamed Gemini 4 call takes at most 32,768. */
    fake_server_push_json(server, 200,
                          "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Done.\"}],\"role\":\"model\"},"
                          "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":30,"
                          "\"candidatesTokenCount\":2}}",
                          NULL);
    o = run_model(req, 0, "gemini-4-argon");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_STOP);
    i = last_request();
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(server, i),
                           "/v1beta/models/gemini-4-argon:generateContent");
    body = request_body(i);
    snprintf(golden, sizeof golden, golden_prefix, LOOKUP_SCHEMA_JSON_SUBSET, 32768);
    CHECK_JSON(body, golden);
    json_object_put(body);
    outcome_free(&o);

    /* A max_tokens under the cap is sent as is. */
    seam_request_set_max_tokens(req, 1000);
    body = body_sent_for(req, "gemini-4-hydrogen", OK_ANSWER);
    CU_ASSERT_EQUAL(json_object_get_int64(tu_json_at(body, "generationConfig.maxOutputTokens")), 1000);
    json_object_put(body);
    seam_request_free(req);
}

/* The golden Gemini 3.5 Flash-Lite request: responseJsonSchema (not responseSchema),
 * MINIMAL for a small budget, the 65,536 cap whole and streamed. */
static void test_gemini35_flash_lite_request(void)
{
    seam_request *req = user_request("Weather in Paris?");
    CU_ASSERT_EQUAL(seam_request_set_response_format(req, SEAM_FORMAT_JSON, "weather", WEATHER_SCHEMA, 1),
                    SEAM_OK);
    seam_request_set_reasoning_budget(req, 512);
    seam_request_set_max_tokens(req, 100000);
    seam_request_set_temperature(req, 0.3);
    char golden[8192];
    snprintf(golden, sizeof golden,
             "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Weather in Paris?\"}]}],"
             "\"generationConfig\":{\"temperature\":0.3,\"maxOutputTokens\":65536,"
             "\"responseMimeType\":\"application/json\",\"responseJsonSchema\":%s,"
             "\"thinkingConfig\":{\"thinkingLevel\":\"MINIMAL\",\"includeThoughts\":true}}}",
             WEATHER_SCHEMA_JSON_SUBSET);
    for (int streaming = 0; streaming <= 1; streaming++) {
        if (streaming)
            fake_server_push_sse(server,
                                 "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"{}\"}],"
                                 "\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}]}\r\n\r\n",
                                 0);
        else
            fake_server_push_json(server, 200,
                                  "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"{}\"}]},"
                                  "\"finishReason\":\"STOP\"}]}",
                                  NULL);
        outcome o = run_model(req, streaming, "gemini-3.5-flash-lite");
        CU_ASSERT_EQUAL(o.rc, SEAM_OK);
        json_object *body = sent_body();
        CHECK_JSON(body, golden);
        assert_subset(tu_json_at(body, "generationConfig.responseJsonSchema"), json_schema_is_documented_subset,
                      "the documented subset");
        json_object_put(body);
        outcome_free(&o);
    }
    seam_request_free(req);
}

/* The budget -> thinkingLevel map per family, 2.x keeping thinkingBudget and its
 * unclamped maxOutputTokens, and options naming the twin field winning. */
static void test_thinking_levels_per_family(void)
{
    static const struct {
        const char *model;
        int64_t budget;
        const char *level; /* NULL: thinkingBudget = budget */
    } table[] = {
        {"gemini-3.8-flash", 500, "LOW"}, /* 3.8 Flash has no MINIMAL */
        {"gemini-3.8-flash", 5000, "MEDIUM"},
        {"gemini-3.5-flash-lite", 500, "MINIMAL"},
        {"gemini-3.5-flash-lite", 20000, "HIGH"},
        {"gemini-3.5-flash-lite", 100000, "HIGH"}, /* no XHIGH: the highest it has */
        {"gemini-3-pro-preview", 5000, "HIGH"},    /* low/high only: up, not down */
        {"gemini-3-pro-preview", 2000, "LOW"},
        {"gemini-4-argon", 3000, "LOW"},
        {"gemini-4-argon", 100000, "HIGH"},
        {"gemini-4-hydrogen", 100000, "HIGH"}, /* XHIGH is not a ThinkingLevel */
        {"models/gemini-4-hydrogen", 8000, "MEDIUM"},
        {"gemini-2.5-flash", 5000, NULL},
        {"gemini-2.5-pro", 128, NULL},
    };
    seam_request *req = user_request("Think.");
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        seam_request_set_reasoning_budget(req, table[i].budget);
        json_object *body = body_sent_for(req, table[i].model, OK_ANSWER);
        char want[128];
        if (table[i].level)
            snprintf(want, sizeof want, "{\"thinkingLevel\":\"%s\",\"includeThoughts\":true}", table[i].level);
        else
            snprintf(want, sizeof want, "{\"thinkingBudget\":%lld,\"includeThoughts\":true}",
                     (long long)table[i].budget);
        json_object *want_json = json_tokener_parse(want);
        if (!json_object_equal(tu_json_at(body, "generationConfig.thinkingConfig"), want_json))
            fprintf(stderr, "\n%s, budget %lld:\n", table[i].model, (long long)table[i].budget);
        json_object_put(want_json);
        CHECK_JSON(tu_json_at(body, "generationConfig.thinkingConfig"), want);
        json_object_put(body);
    }

    /* Gemini 2.x: maxOutputTokens as asked (the 2.x wire is unchanged). */
    seam_request_set_reasoning_budget(req, 0);
    seam_request_set_max_tokens(req, 200000);
    fake_server_push_json(server, 200,
                          "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\"}]}",
                          NULL);
    outcome o = run_model(req, 0, "gemini-2.5-flash");
    json_object *body = sent_body();
    CHECK_JSON(tu_json_at(body, "generationConfig"), "{\"maxOutputTokens\":200000}");
    json_object_put(body);
    outcome_free(&o);

    /* Options that name the twin of a field the codec sets win: thinkingBudget
     * over the derived level, responseSchema over responseJsonSchema. */
    seam_request_set_max_tokens(req, 0);
    seam_request_set_reasoning_budget(req, 20000);
    seam_request_set_response_format(req, SEAM_FORMAT_JSON, "x",
                                     "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}", 0);
    seam_request_set_provider_options(req, "{\"thinkingConfig\":{\"thinkingBudget\":2048},"
                                           "\"generationConfig\":{\"responseSchema\":{\"type\":\"STRING\"}}}");
    body = body_sent_for(req, "gemini-4-argon",
                         "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\\\"x\\\"\"}]},"
                         "\"finishReason\":\"STOP\"}]}");
    CHECK_JSON(tu_json_at(body, "generationConfig"),
               "{\"responseMimeType\":\"application/json\",\"responseSchema\":{\"type\":\"STRING\"},"
               "\"thinkingConfig\":{\"thinkingBudget\":2048,\"includeThoughts\":true}}");
    json_object_put(body);
    seam_request_free(req);
}

/* Every thinkingLevel sent is one of the values @google/genai 3.1.0's
 * ThinkingLevel accepts (MINIMAL, LOW, MEDIUM, HIGH): the largest budget on
 * every family with levels, Gemini 4 Hydrogen included, is HIGH at most. A
 * caller who wants another value names it in the thinkingConfig option. */
static void test_thinking_level_within_sdk_values(void)
{
    static const char *const models[] = {
        "gemini-4-hydrogen", "gemini-4-argon", "gemini-4-x", "gemini-3.8-flash",
        "gemini-3.5-flash-lite", "gemini-3.1-pro", "gemini-3-flash", "gemini-3-pro-preview",
    };
    static const int64_t budgets[] = { 1, 2000, 8000, 20000, 65536, 1000000, INT64_MAX };
    seam_request *req = user_request("Think hard.");
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
            seam_request_set_reasoning_budget(req, budgets[b]);
            json_object *body = body_sent_for(req, models[m], OK_ANSWER);
            const char *level =
                json_object_get_string(tu_json_at(body, "generationConfig.thinkingConfig.thinkingLevel"));
            int known = level && (!strcmp(level, "MINIMAL") || !strcmp(level, "LOW") ||
                                  !strcmp(level, "MEDIUM") || !strcmp(level, "HIGH"));
            if (!known)
                fprintf(stderr, "\n%s, budget %lld: thinkingLevel %s\n", models[m],
                        (long long)budgets[b], level ? level : "(none)");
            CU_ASSERT_TRUE(known);
            json_object_put(body);
        }
    }

    /* The option still sends what the caller names, as it does any member. */
    seam_request_set_reasoning_budget(req, 100000);
    seam_request_set_provider_options(req, "{\"thinkingConfig\":{\"thinkingLevel\":\"XHIGH\"}}");
    json_object *body = body_sent_for(req, "gemini-4-hydrogen", OK_ANSWER);
    CHECK_JSON(tu_json_at(body, "generationConfig.thinkingConfig"),
               "{\"thinkingLevel\":\"XHIGH\",\"includeThoughts\":true}");
    json_object_put(body);
    seam_request_free(req);
}

/* Calls of the current turn that carry no signature (another provider's, or
 * stripped by a failover) get the documented placeholder on Gemini 3 and later,
 * on the first call of each step only; real signatures and earlier turns are
 * left alone; Gemini 2.x gets nothing added. */
static void test_placeholder_signature_on_unsigned_calls(void)
{
    seam_request *req = user_request("Hi.");
    tu_add_tool_call(req, "toolu_0", "lookup", "{\"q\":\"hi\"}");
    tu_add_tool_result(req, "toolu_0", NULL, "\"found\"", 0);
    tu_add_assistant_text(req, "Hello.");
    seam_request_add_user_text(req, "Weather and time?");
    /* Step 1 of the current turn: two parallel calls without signatures. */
    tu_add_turn(req, SEAM_ROLE_ASSISTANT, TU_PARTS(TU_CALL("toolu_1", "get_weather", "{\"city\":\"Paris\"}"),
                                                   TU_CALL("toolu_2", "get_time", "{}")));
    tu_add_turn(req, SEAM_ROLE_TOOL, TU_PARTS(TU_RESULT("toolu_1", NULL, "{\"temp_c\":18}", 0),
                                              TU_RESULT("toolu_2", NULL, "\"14:05\"", 0)));
    /* Step 2: Gemini's own call with its signature. */
    tu_add_turn(req, SEAM_ROLE_ASSISTANT, TU_PARTS(TU_REASONING("", "gemini:c2lnLXN0ZXAy", 0),
                                                   TU_CALL("gmcall_x_0", "get_time", "{\"tz\":\"UTC\"}")));
    tu_add_tool_result(req, "gmcall_x_0", NULL, "\"12:05\"", 0);

    static const char contents_fmt[] =
        "[{\"role\":\"user\",\"parts\":[{\"text\":\"Hi.\"}]},"
        "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"lookup\",\"args\":{\"q\":\"hi\"}}}]},"
        "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"lookup\",\"response\":{\"output\":\"found\"}}}]},"
        "{\"role\":\"model\",\"parts\":[{\"text\":\"Hello.\"}]},"
        "{\"role\":\"user\",\"parts\":[{\"text\":\"Weather and time?\"}]},"
        "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"}}%s},"
        "{\"functionCall\":{\"name\":\"get_time\",\"args\":{}}}]},"
        "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"get_weather\",\"response\":{\"output\":{\"temp_c\":18}}}},"
        "{\"functionResponse\":{\"name\":\"get_time\",\"response\":{\"output\":\"14:05\"}}}]},"
        "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"get_time\",\"args\":{\"tz\":\"UTC\"}},"
        "\"thoughtSignature\":\"c2lnLXN0ZXAy\"}]},"
        "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"get_time\",\"response\":{\"output\":\"12:05\"}}}]}]";
    static const struct {
        const char *model;
        int placeholder; /* on the first call of the current turn */
    } cases[] = {
        {"gemini-3.8-flash", 1},
        {"gemini-4-argon", 1},
        {"gemini-2.5-flash", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_object *body = body_sent_for(req, cases[i].model,
                                          "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"18 C, 14:05.\"}]},"
                                          "\"finishReason\":\"STOP\"}]}");
        char want[4096];
        snprintf(want, sizeof want, contents_fmt,
                 cases[i].placeholder ? ",\"thoughtSignature\":\"skip_thought_signature_validator\"" : "");
        CHECK_JSON(tu_json_at(body, "contents"), want);
        json_object_put(body);
    }
    seam_request_free(req);
}

/* gemini-3.5-flash-lite refuses contents that end with a model turn: refused
 * before any request; other families send it. */
static void test_flash_lite_refuses_trailing_model_turn(void)
{
    seam_request *req = user_request("Name a color.");
    tu_add_assistant_text(req, "The color is");
    size_t before = fake_server_request_count(server);
    outcome o = run_model(req, 0, "gemini-3.5-flash-lite");
    CU_ASSERT_NOT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_EQUAL(fake_server_request_count(server), before);
    outcome_free(&o);

    fake_server_push_json(server, 200,
                          "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" blue.\"}]},\"finishReason\":\"STOP\"}]}",
                          NULL);
    o = run_model(req, 0, "gemini-3.8-flash");
    CU_ASSERT_EQUAL(o.rc, SEAM_OK);
    CU_ASSERT_EQUAL(fake_server_request_count(server), before + 1);
    outcome_free(&o);
    seam_request_free(req);
}

/* Capabilities per family, through the client. */
static void test_capabilities_per_family(void)
{
    static const struct {
        const char *model;
        int tools, reasoning, vision, audio, structured, cache;
        int64_t context, max_output;
    } table[] = {
        {"gemini-4-argon", 1, 1, 1, 0, 1, 1, 1048576, 65536},
        {"gemini-4-hydrogen", 1, 1, 1, 0, 1, 1, 1048576, 65536},
        {"models/gemini-4-argon", 1, 1, 1, 0, 1, 1, 1048576, 65536},
        {"gemini-3.8-flash", 1, 1, 1, 1, 1, 1, 1048576, 65536},
        {"gemini-3.5-flash-lite", 1, 1, 1, 1, 1, 1, 1048576, 65536},
        {"gemini-2.5-flash", 1, 1, 1, 1, 1, 1, 1048576, 65536},
        {"gemini-2.0-flash", 1, 0, 1, 1, 1, 1, 1048576, 8192},
        {"gemini-2.5-flash-image", 0, 0, 1, 0, 1, 1, 32768, 32768},
        {"gemma-3-27b-it", 0, 0, 1, 0, 0, 0, 131072, 8192},
        {"not-a-gemini", 0, 0, 0, 0, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        seam_capabilities caps = tu_capabilities(client, "gm", table[i].model);
        int ok = caps.tools == (unsigned)table[i].tools && caps.parallel_tool_calls == (unsigned)table[i].tools &&
                 caps.reasoning == (unsigned)table[i].reasoning && caps.vision == (unsigned)table[i].vision &&
                 caps.audio_input == (unsigned)table[i].audio &&
                 caps.structured_output == (unsigned)table[i].structured &&
                 caps.prompt_cache == (unsigned)table[i].cache &&
                 caps.pdf_input == (unsigned)(table[i].vision && table[i].tools) && caps.streaming == 1 &&
                 caps.context_window == table[i].context && caps.max_output_tokens == table[i].max_output;
        if (!ok)
            fprintf(stderr, "\ncapabilities of %s differ\n", table[i].model);
        CU_ASSERT_TRUE(ok);
    }
}

/* ---- tests: errors ----------------------------------------------------------------------- */

static void test_error_table(void)
{
    /* Google's error object, {"error":{"code","message","status"[,"details"]}},
     * from its fields; or a body as it comes (raw). The code a row expects is
     * its status. */
    static const struct {
        int status;
        const char *code, *message, *details, *raw;
        seam_error_kind kind;
        int retryable;
        int64_t retry_after_ms;
    } table[] = {
        {400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \\\"foo\\\"", NULL, NULL, SEAM_ERROR_BAD_REQUEST, 0, -1},
        {400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", NULL, NULL, SEAM_ERROR_CONTEXT_OVERFLOW, 0, -1},
        {400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.",
         "[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"API_KEY_INVALID\",\"domain\":\"googleapis.com\"}]", NULL, SEAM_ERROR_AUTH, 0, -1},
        {400, "FAILED_PRECONDITION", "User location is not supported for the API use.", NULL, NULL, SEAM_ERROR_BAD_REQUEST, 0, -1},
        {401, "UNAUTHENTICATED", "Request had invalid authentication credentials.", NULL, NULL, SEAM_ERROR_AUTH, 0, -1},
        {403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers.", NULL, NULL, SEAM_ERROR_AUTH, 0, -1},
        {404, "NOT_FOUND", "models/gemini-9 is not found for API version v1beta", NULL, NULL, SEAM_ERROR_MODEL_NOT_FOUND, 0, -1},
        {429, "RESOURCE_EXHAUSTED", "You exceeded your current quota.",
         "[{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[]},{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"2.5s\"}]", NULL, SEAM_ERROR_RATE_LIMIT, 1, 2500},
        {429, "RESOURCE_EXHAUSTED", NULL, NULL,
         "[{\"error\":{\"code\":429,\"message\":\"Resource exhausted. Please try again later.\",\"status\":\"RESOURCE_EXHAUSTED\"}}]", SEAM_ERROR_RATE_LIMIT, 1, -1},
        {500, "INTERNAL", "An internal error has occurred.", NULL, NULL, SEAM_ERROR_OVERLOADED, 1, -1},
        {503, "UNAVAILABLE", "The model is overloaded. Please try again later.", NULL, NULL, SEAM_ERROR_OVERLOADED, 1, -1},
        {504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete.", NULL, NULL, SEAM_ERROR_TIMEOUT, 1, -1},
        {502, "", NULL, NULL, "<html><body>Bad Gateway</body></html>", SEAM_ERROR_OVERLOADED, 1, -1},
    };
    seam_request *req = user_request("hi");
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        for (int streaming = 0; streaming <= 1; streaming++) {
            char body[1024];
            if (table[i].raw)
                snprintf(body, sizeof body, "%s", table[i].raw);
            else
                snprintf(body, sizeof body,
                         "{\"error\":{\"code\":%d,\"message\":\"%s\",\"status\":\"%s\"%s%s}}",
                         table[i].status, table[i].message, table[i].code,
                         table[i].details ? ",\"details\":" : "", table[i].details ? table[i].details : "");
            fake_server_push_json(server, table[i].status, body, NULL);
            outcome o = run(req, streaming);
            CU_ASSERT_EQUAL(o.rc, SEAM_ERR_PROVIDER);
            if (o.err.kind != table[i].kind)
                fprintf(stderr, "\nrow %zu: kind %s, want %s (%s)\n", i, seam_error_kind_name(o.err.kind),
                        seam_error_kind_name(table[i].kind), o.err.message);
            CU_ASSERT_EQUAL(o.err.kind, table[i].kind);
            CU_ASSERT_EQUAL(o.err.retryable, table[i].retryable);
            CU_ASSERT_EQUAL(o.err.retry_after_ms, table[i].retry_after_ms);
            CU_ASSERT_EQUAL(o.err.http_status, table[i].status);
            CU_ASSERT_STRING_EQUAL(o.err.code, table[i].code);
            CU_ASSERT_STRING_EQUAL(o.err.provider, "gm");
            outcome_free(&o);
        }
    }
    /* A Retry-After header without a retryDelay is kept. */
    fake_server_push_json(server, 429,
                          "{\"error\":{\"code\":429,\"message\":\"Slow down.\",\"status\":\"RESOURCE_EXHAUSTED\"}}",
                          "Retry-After: 3\r\n");
    outcome o = run(req, 0);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_EQUAL(o.err.retry_after_ms, 3000);
    CU_ASSERT_STRING_EQUAL(o.err.message, "Slow down.");
    outcome_free(&o);

    /* A message that echoes the key never carries it out. */
    fake_server_push_json(server, 400,
                          "{\"error\":{\"code\":400,\"message\":\"API key not valid: " API_KEY "\","
                          "\"status\":\"INVALID_ARGUMENT\"}}",
                          NULL);
    o = run(req, 0);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_AUTH);
    CU_ASSERT_PTR_NULL(strstr(o.err.message, API_KEY));
    outcome_free(&o);
    seam_request_free(req);
}

static void test_error_event_in_stream(void)
{
    seam_request *req = user_request("hi");
    /* Before any content: the stream fails with the classified error. */
    outcome o = streamed(req,
            "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded.\","
            "\"status\":\"UNAVAILABLE\"}}\r\n\r\n",
            4);
    CU_ASSERT_EQUAL(o.rc, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_EQUAL(o.err.http_status, 503);
    CU_ASSERT_STRING_EQUAL(o.err.code, "UNAVAILABLE");
    outcome_free(&o);

    /* After content: the text so far is kept, the error surfaces. */
    o = streamed(req,
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Once upon\"}],"
            "\"role\":\"model\"},\"index\":0}]}\r\n\r\n"
            "data: {\"error\":{\"code\":500,\"message\":\"Internal error.\",\"status\":\"INTERNAL\"}}\r\n\r\n",
            0);
    CU_ASSERT_EQUAL(o.rc, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(o.err.kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_STRING_EQUAL(seam_message_text(o.msg), "Once upon");
    CU_ASSERT_EQUAL(o.stop, SEAM_STOP_ERROR);
    outcome_free(&o);

    /* An event that is not JSON. */
    o = streamed(req,
            "data: {\"candidates\":[\r\n\r\n",
            0);
    CU_ASSERT_EQUAL(o.rc, SEAM_ERR_PROVIDER);
    outcome_free(&o);
    seam_request_free(req);
}

static const tu_test tests[] = {
    { "stream: reasoning, text, signature, wire", test_stream_reasoning_and_wire },
    { "stream: cut at every byte (CRLF)", test_stream_cut_everywhere },
    { "stream: usage after finish, no finish, absurd counts bounded", test_stream_usage_and_finish },
    { "finish reasons, blocked prompt", test_finish_reasons_and_blocked_prompt },
    { "whole response equals stream", test_whole_response_equals_stream },
    { "encode: conversation, media, generation config", test_encode_conversation },
    { "encode: tools, schema reshape, tool choice", test_encode_tools_and_schema_reshape },
    { "encode: JSON mode, thinking, options", test_encode_json_mode_thinking_and_options },
    { "encode: rejected requests", test_encode_rejects_what_gemini_cannot_take },
    { "two-step tool conversation, synthesized ids", test_tool_round_trip_with_synthesized_ids },
    { "thought signatures replayed", test_signature_replay_shapes },
    { "Gemini 4: golden request, output cap, CONTINUATION", test_gemini4_request_and_continuation },
    { "Gemini 3.5 Flash-Lite: golden request, responseJsonSchema", test_gemini35_flash_lite_request },
    { "thinking levels per family, 2.x unchanged, option twins", test_thinking_levels_per_family },
    { "thinkingLevel within @google/genai's values", test_thinking_level_within_sdk_values },
    { "placeholder signature on unsigned calls (3+)", test_placeholder_signature_on_unsigned_calls },
    { "3.5 Flash-Lite refuses a trailing model turn", test_flash_lite_refuses_trailing_model_turn },
    { "capabilities per family", test_capabilities_per_family },
    { "error table", test_error_table },
    { "error event in a stream", test_error_event_in_stream },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("gemini", tests, start);
}
