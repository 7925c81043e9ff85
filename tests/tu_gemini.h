/* tu_gemini.h — what the tests of the Gemini plugin share (tu_gemini.c). */
#ifndef SEAM_TU_GEMINI_H
#define SEAM_TU_GEMINI_H

#include <json-c/json.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

#define API_KEY "gm-test-secret-key"
#define MODEL "gemini-2.5-flash"
/* A whole answer "ok". */
#define OK_ANSWER "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\"}]}"

extern fake_server *server;
extern seam_client *client;

seam_call_options call_options(void);

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

void outcome_free(outcome *o);

/* One call to the given model, whole (streaming 0) or streamed. */
outcome run_model(const seam_request *req, int streaming, const char *model);

outcome run(const seam_request *req, int streaming);

seam_request *user_request(const char *text);

size_t count_parts(const seam_message *m, seam_part_type t);

const seam_part *nth_part(const seam_message *m, seam_part_type t, size_t nth);

/* The last request the server received. */
size_t last_request(void);

json_object *request_body(size_t i);

/* The body of the last request the server received (the caller puts it). */
json_object *sent_body(void);

/* The body the server got for req, run whole on model against answer (a
 * 200), which must succeed; the caller puts it. */
json_object *body_sent_for(const seam_request *req, const char *model, const char *answer);

/* A call streamed, its answer the SSE body (split bytes a write). */
outcome streamed(const seam_request *req, const char *sse, size_t split);

/* Asserts that actual equals the JSON text expected (objects compare by key). */
#define CHECK_JSON(actual, expected) CU_ASSERT_TRUE(tu_json_equal((actual), (expected)))

/* One assertion: schema passes is_subset; when not, what it is not and why
 * go to stderr. */
void assert_subset(json_object *schema, int (*is_subset)(json_object *, char *, size_t),
                   const char *what);

/* Whether schema s is an object whose every key is one of allowed (why says
 * what is not). */
int keywords_allowed(json_object *s, const char *const *allowed, size_t n, char *why,
                     size_t why_size);

/* Text, then two parallel calls; the signature on the first call only. */
extern const char STREAM_TOOLS[];

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
extern const char WEATHER_SCHEMA[];

/* Runs tests (ended by { NULL, NULL }) as the suite "gemini", on the server
 * and client start makes; returns main's status. */
int tu_gemini_run(const tu_test *tests);

#endif
