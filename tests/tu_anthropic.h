/* tu_anthropic.h — what the tests of the Anthropic plugin share (tu_anthropic.c). */
#ifndef SEAM_TU_ANTHROPIC_H
#define SEAM_TU_ANTHROPIC_H

#include <json-c/json.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

#define SECRET "sk-ant-test-secret"

extern fake_server *srv;

extern const char T_TEXT[];

extern const char B_TEXT[];

extern const char T_THINK_TOOL[];

/* The JSON answer of a model without native structured output: a forced "json" tool. */
extern const char T_JSON_TOOL[];

extern const char B_JSON_TOOL[];

/* Frames one-payload-per-line as Anthropic does: event: <type>, data: <line>. */
char *to_sse(const char *lines);

void push_stream(const char *lines, size_t split);

/* A client with provider "claude" (plugin anthropic) at <server>/v1 and
 * "claude2" at <server>/v2 (and "oai", plugin openai, at <server>/v3, used when
 * that plugin is built); `options` goes inside claude's options group,
 * `extra` after the providers (chains). */
seam_client *client_with(const char *options, const char *extra);

/* What a result holds, flattened for comparisons. */
typedef struct call_info {
    char id[128], name[128], args[1024];
    int provider_executed;
} call_info;

typedef struct result_info {
    char id[128], name[128], result[2048];
    int is_error, provider_executed;
} result_info;

typedef struct summary {
    int status;
    seam_error err;
    char text[4096];
    char reasoning[4096];
    char signature[1024];
    int n_reasoning, redacted;
    call_info calls[8];
    int n_calls;
    result_info results[8];
    int n_results;
    seam_stop_reason stop;
    seam_usage usage;
    int incomplete;
    int n_chunks;
    int chunk_count[SEAM_CHUNK_ERROR + 1];
    seam_message *message; /* the assistant message (owned) */
} summary;

void summary_free(summary *s);

void summarize(const seam_result *res, summary *s);

/* An empty summary with a clear error, before a call fills it. */
void summary_start(summary *s);

void run_generate(seam_client *c, const seam_request *req, const seam_call_options *o,
                  summary *s);

void run_stream(seam_client *c, const seam_request *req, const seam_call_options *o,
                summary *s);

seam_request *user_request(const char *text);

/* What the calls of a test share: a client (client_with's options and
 * extra), a request (owned) and the call options naming "claude" with model. */
typedef struct call {
    seam_client *c;
    seam_request *req;
    seam_call_options o;
} call;

call call_new(const char *options, const char *extra, seam_request *req, const char *model);

void call_free(call *k);

/* The call streamed, its answer transcript (split bytes a write). */
summary stream_answer(call *k, const char *transcript, size_t split);

/* The call not streamed, its answer the whole body (a 200). */
summary whole_answer(call *k, const char *body);

/* s holds n reasoning blocks whose texts, joined, are text; the last
 * signature is signature (unless NULL). */
void reasoning_is(const summary *s, int n, const char *text, const char *signature);

json_object *encode_with(seam_client *c, seam_request *req, const char *model);

/* A member of a request body and what it must be: JSON text, or NULL for
 * absent. */
typedef struct member {
    const char *path, *want;
} member;
/* A table of members, ended for encodes. */
#define MEMBERS(...) ((const member[]){ __VA_ARGS__, { NULL, NULL } })

/* Encodes req for model (encode_with) and checks each member of the body sent
 * (one assertion a member; the model and member named when it fails). */
void encodes(seam_client *c, seam_request *req, const char *model, const member *wants);

/* The schema of the structured-output tests, and the "json" tool's description. */
#define PERSON_SCHEMA                                                                     \
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"                \
    "\"required\":[\"name\"],\"additionalProperties\":false}"
#define JSON_TOOL_HEAD \
    "{\"name\":\"json\",\"description\":\"Respond with a JSON object: the input of this tool is the answer.\","

/* A call of "who?" asking for a person as JSON, on a client of its own; the
 * check that model answers natively (output_config, no tool). */
call person_call(const char *native_model);

/* The answer of the "json" tool (B_JSON_TOOL) decoded into text. */
void expect_ada(const summary *s);

/* A call (options o) that fails before anything is sent, the reason naming
 * needle; of that kind unless kind is SEAM_ERROR_NONE. */
void expect_unsent_with(seam_client *c, const seam_request *req, const seam_call_options *o,
                        seam_error_kind kind, const char *needle);

/* A call to model that fails before anything is sent, the reason named; a
 * bad_request unless it is a conf error (the provider could not load its options). */
void expect_unsent(seam_client *c, const seam_request *req, const char *model,
                   const char *needle, int bad_request);

void expect_refused(seam_client *c, const seam_request *req, const char *model,
                    const char *needle);

/* Runs tests (ended by { NULL, NULL }) as the suite "anthropic", each test on
 * a server of its own (start_server, stop_server); returns main's status. */
int tu_anthropic_run(const tu_test *tests);

#endif
