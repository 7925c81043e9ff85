/* openai_internal.h — what the two codecs of the openai plugin share: the Chat
 * Completions codec (openai.c, which owns the provider instance, the profiles,
 * the error table and the vtable) and the Responses API codec
 * (openai_responses.c). Private to the plugin: nothing here is exported (the
 * plugin is built with hidden visibility) and no other file includes it. */
#ifndef SEAM_OPENAI_INTERNAL_H
#define SEAM_OPENAI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include <seam/plugin.h>

#include "../common/codec_util.h"

/* ---- small helpers (openai.c) ---------------------------------------------- */

/* strbuf, xstrdup, contains_ci, the JSON parsers and accessors, json_double
 * and json_text: ../common/codec_util.h. */
/* A token count from the wire, clamped to [0, OA_MAX_TOKENS] so that the
 * differences taken on usage stay defined whatever a server sends. */
#define OA_MAX_TOKENS ((int64_t)1000000000000)
int jcount(json_object *obj, const char *key, int64_t *out);

#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
int bad_request(seam_error *err, const char *fmt, ...);

/* The model id without a "vendor/" prefix; model_is: a prefix at a name boundary. */
const char *model_base(const char *model);
int model_is(const char *model, const char *prefix);

/* ---- the provider instance (openai.c) ----------------------------------------- */

typedef struct oa_profile oa_profile;

/* Which endpoint a request goes to (options.api). */
typedef enum oa_api {
    OA_API_AUTO = 0, /* Chat Completions, except what only the Responses API can do */
    OA_API_CHAT,     /* always POST /chat/completions */
    OA_API_RESPONSES /* always POST /responses */
} oa_api;

/* Immutable after create: safe to share between threads. JSON is kept as text
 * and parsed per call because json-c reference counts are not atomic. */
typedef struct oa_instance {
    char *name;
    char *base_url; /* without a trailing slash */
    const oa_profile *profile;
    int openai_rules;    /* the profile applies OpenAI's model rules (see oa_model_rules_of) */
    char *body_options;  /* JSON object: the conf options minus the plugin's own keys */
    char *headers_json;  /* JSON object of extra headers, or NULL */
    char *caps_json;     /* JSON object of capability overrides, or NULL */
    int max_tokens_param;
    int stream_usage;    /* -1: the profile decides */
    int think_tags;      /* 1: <think>...</think> at the start of content is reasoning */
    oa_api api;
    char *reasoning_summary; /* Responses: reasoning.summary for reasoning models, NULL: none */
} oa_instance;

/* ---- OpenAI's model rules (openai.c) -------------------------------------------- */

/* reasoning_effort / reasoning.effort values a model accepts. */
enum {
    EF_NONE = 1u << 0,
    EF_MINIMAL = 1u << 1,
    EF_LOW = 1u << 2,
    EF_MEDIUM = 1u << 3,
    EF_HIGH = 1u << 4,
    EF_XHIGH = 1u << 5,
    EF_MAX = 1u << 6
};

typedef struct oa_model_rules {
    int reasoning;       /* max_completion_tokens, developer role, no sampling parameters
                          * unless the effort sent is "none" */
    unsigned efforts;    /* EF_* accepted; 0: no effort is ever sent */
    int tools_need_none; /* Chat Completions takes function tools only with effort "none" */
} oa_model_rules;

/* The rules of an OpenAI model; all zero for another vendor's model or when the
 * instance's profile is not OpenAI's. */
void oa_model_rules_of(const oa_instance *in, const char *model, oa_model_rules *out);
/* A reasoning budget (tokens, > 0) as the highest accepted effort at or below
 * its level on the ladder low < 4096 <= medium < 16384 <= high < 32768 <= xhigh
 * < 65536 <= max; "max" only when allow_max. NULL when efforts accepts none of
 * low..max. */
const char *oa_effort_for_budget(unsigned efforts, int64_t budget, int allow_max);
/* 1 when the request goes to the Responses API (a pure function of the
 * instance and the request: encode and the decoders agree on it). */
int oa_use_responses(const oa_instance *in, const seam_request *req);

/* ---- encode pieces both wires use (openai.c) ----------------------------------------- */

/* A tool result as the text a tool message / function_call_output carries: a
 * JSON string as its text, anything else as its JSON text. */
json_object *tool_result_content(const char *result_json);
/* "data:<mime>;base64,<b64>" as a JSON string. */
json_object *data_url(const char *mime, const char *b64);
/* The JSON Schema of tool i ({"type":"object","properties":{}} when none; an
 * object schema without properties gets an empty one). */
int oa_tool_parameters(const seam_request *req, size_t i, json_object **out, seam_error *err);
/* The request's JSON response format: 0 for text; else 1 with *schema the
 * schema object to send (caller puts) or NULL for "any JSON object". */
int oa_json_format(const seam_request *req, const char **name, json_object **schema,
                   int *strict, seam_error *err);
/* Shallow-merges the options object text into body; a null value deletes. */
int merge_options(json_object *body, const char *options_text, int filter_reserved,
                  seam_error *err);
/* The conf's options then the request's over body, then URL base_url + path,
 * method, body, headers (credential, extra headers) and framing into out.
 * Does not take body. */
int oa_finish_request(const oa_instance *in, const seam_request *req, json_object *body,
                      const char *path, int stream, seam_http_request *out, seam_error *err);

/* ---- decode pieces both wires use (openai.c) ----------------------------------------- */

/* An error object (any of the shapes OpenAI-compatible servers send) that came
 * inside a 2xx answer, classified into err; returns SEAM_ERR_PROVIDER. */
int oa_error_event(const oa_instance *in, json_object *root, seam_error *err);
/* Fills err from an error's code/type/message as found in an event (status 0). */
void oa_error_from_fields(const oa_instance *in, const char *code, const char *type,
                          const char *message, seam_error *err);
/* The whole arguments text for tool_call_end: "" means {}; a JSON object is
 * re-serialized; anything else is passed on for the accumulator to reject. */
char *oa_final_args(json_tokener *tok, const char *text, size_t len);
int oa_malformed(seam_error *err, const char *what);

/* ---- the Responses API codec (openai_responses.c) --------------------------------------- */

/* Decoders of both wires begin with this tag, so that the vtable's decoder
 * functions can tell them apart. */
enum { OA_WIRE_CHAT = 0x6f616363u, OA_WIRE_RESPONSES = 0x6f617273u };

int oa_resp_encode(const oa_instance *in, const seam_request *req, int stream,
                   seam_http_request *out, seam_error *err);
void *oa_resp_decoder_new(const oa_instance *in, const seam_request *req);
void oa_resp_decoder_free(void *decoder);
int oa_resp_decode_event(void *decoder, const seam_frame *frame, seam_emitter *out,
                         seam_error *err);
int oa_resp_decode_finish(void *decoder, seam_emitter *out, seam_error *err);
int oa_resp_decode_response(const oa_instance *in, const seam_request *req, const char *body,
                            size_t len, seam_emitter *out, seam_error *err);

/* Reasoning signatures handed out by the Responses codec: "openai:" + the
 * reasoning item's encrypted_content (base64 has no ':'). Only signatures with
 * this tag are replayed, without it: another provider's reasoning is dropped. */
#define OA_SIGNATURE_TAG "openai:"

#endif /* SEAM_OPENAI_INTERNAL_H */
