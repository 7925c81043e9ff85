/* internal.h — what the files of the gemini plugin share, and nothing else:
 * the wire conventions that encode and decode keep between them (below), the
 * small JSON helpers, the model-family record, the provider instance, the
 * decoder's state, and the functions one file calls in another. Private to
 * the plugin: nothing here is exported (the plugin is built with hidden
 * visibility), and every function that crosses files is named gemini_* so
 * that the fuzz harnesses can link all the plugins into one program.
 *
 * Thought signatures. Gemini puts an opaque `thoughtSignature` on any part (text,
 * functionCall, or a thought part) and requires it back, on the same part, when the
 * conversation is replayed (Gemini 3 rejects a function call without it). The seam
 * types carry signatures on reasoning parts only, so:
 *  - a signature on a thought part becomes that reasoning block's signature;
 *  - a signature on any other part is emitted as a reasoning block with no text
 *    and that signature (a "signature carrier") immediately BEFORE the part's
 *    content (the tool call, the text). Why a separate reasoning part: it keeps the
 *    signature out of the caller's text and tool calls, and the core already strips
 *    every reasoning part when a conversation fails over to another provider, which
 *    is exactly the "replayed to Gemini only" rule.
 *  - on encode, a carrier's signature is put back on the part that follows it in
 *    the same message; with nothing after it (a stream whose signature came in a
 *    final empty text part) it goes on the part before it, which is where a
 *    non-streamed response has it; with no part at all it is sent as the empty
 *    text part it arrived in.
 *  - signatures are handed out tagged "gemini:" (base64 has no ':'), and only
 *    tagged ones are replayed, without the tag: a history carried over from
 *    another provider in a new call (not a failover, so nothing stripped it) must
 *    not send that provider's signatures to Gemini, which rejects them.
 *
 * Tool-call ids. Gemini's generateContent matches function responses to calls by
 * name and order, not by id, so ids are synthesized on the way out ("gmcall_" + a
 * random per-response prefix + index; a server-supplied functionCall.id is used
 * as is) and never sent back: on the way in, each tool result gets its name from
 * the call with the same id, and the functionResponse parts of a turn are put in
 * the order of their calls. (An `id` on functionCall/functionResponse parts of a
 * request has been answered with 400 "Unknown name \"id\"" on some routes, so it
 * stays off the wire for every family.)
 */
#ifndef SEAM_PLUGIN_GEMINI_INTERNAL_H
#define SEAM_PLUGIN_GEMINI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <seam/plugin.h>

#include <json-c/json.h>

#include "../common/codec_util.h"
#include "../common/json_scan.h"
#include "../common/provider_options.h"

#define GEMINI_SIGNATURE_TAG "gemini:"
#define GEMINI_JSON_DEPTH 512
#define JSON_OUT_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* ======================================================================== */
/* small JSON helpers                                                        */
/* ======================================================================== */

/* An integer member given as a JSON number or (proto int64 style) a string. */
static inline int jint64(json_object *o, const char *key, int64_t *out)
{
    if (jint(o, key, out))
        return 1;
    json_object *v = jget(o, key);
    if (jis(v, json_type_string)) {
        char *end;
        long long n = strtoll(json_object_get_string(v), &end, 10);
        if (end != json_object_get_string(v) && *end == '\0') {
            *out = n;
            return 1;
        }
    }
    return 0;
}

/* Request-side JSON (schemas, options, tool arguments) may nest deeper than
 * json-c's default 32 levels: GEMINI_JSON_DEPTH. */
static inline json_object *parse_json_len(const char *text, size_t len)
{
    return json_parse_depth(text, len, GEMINI_JSON_DEPTH);
}

static inline json_object *parse_json(const char *text)
{
    return text ? parse_json_len(text, strlen(text)) : NULL;
}

/* Adds key -> val (taking val); returns 0 when val is NULL (allocation failure). */
static inline int jadd(json_object *obj, const char *key, json_object *val)
{
    if (!val)
        return 0;
    if (json_object_object_add(obj, key, val) != 0) {
        json_object_put(val);
        return 0;
    }
    return 1;
}

static inline int jpush(json_object *arr, json_object *val)
{
    if (!val)
        return 0;
    if (json_object_array_add(arr, val) != 0) {
        json_object_put(val);
        return 0;
    }
    return 1;
}

static inline int nomem(seam_error *err)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "gemini: out of memory");
    return SEAM_ERR_NOMEM;
}

/* ==== model families (models.c) ============================================= */

/* thinkingLevel values (Gemini 3 and later), as bits of model_family.levels:
 * the values of ThinkingLevel in @google/genai 3.1.0, in order. */
enum {
    LEVEL_MINIMAL = 1u << 0,
    LEVEL_LOW = 1u << 1,
    LEVEL_MEDIUM = 1u << 2,
    LEVEL_HIGH = 1u << 3,
};
#define LEVELS_LMH (LEVEL_LOW | LEVEL_MEDIUM | LEVEL_HIGH)
#define LEVELS_MLMH (LEVEL_MINIMAL | LEVELS_LMH)

typedef struct model_family {
    const char *prefix;
    unsigned tools : 1, reasoning : 1, vision : 1, audio : 1, structured : 1;
    int64_t context_window, max_output; /* max_output: per request (a streamed one) */
    /* Gemini 3 and later (levels != 0): thinkingLevel instead of thinkingBudget,
     * the JSON Schema fields, maxOutputTokens clamped to the per-request cap,
     * and the documented placeholder signature on unsigned calls (see encode). */
    unsigned levels;          /* the thinkingLevel values the family takes */
    int64_t max_output_unary; /* a non-streamed request's cap when lower; 0: max_output */
    unsigned no_model_last : 1; /* refuses contents that end with a model turn */
} model_family;

/* The family of a model id ("models/" prefix allowed); NULL when unknown. */
const model_family *gemini_find_family(const char *model);
/* A reasoning budget in tokens as one of the family's thinkingLevel values. */
const char *gemini_thinking_level_for_budget(int64_t budget, unsigned levels);
int gemini_capabilities(void *instance, const char *model, seam_capabilities *caps);

/* ==== the instance (plugin.c) ================================================ */

typedef struct gemini_instance {
    char *base_url;     /* without a trailing slash */
    char *options_json; /* the conf's options object */
    char *name;         /* the conf name: a request's options namespace, with "gemini" */
} gemini_instance;

/* ==== provider options (options.c) =========================================== */

/* Provider options (the conf's `options`, then the request's): keys Gemini
 * understands are passed through into body and its generationConfig gen. */
void gemini_apply_options(json_object *body, json_object *gen, json_object *options);
/* Drops obj's `own` member when the options also set its `twin`. */
void gemini_drop_own_twin(json_object *obj, const char *own, const char *twin);

/* What a cache strategy asks of explicit context caching (cache.c). */
enum { GEMINI_CACHE_NONE = 0, GEMINI_CACHE_SYSTEM, GEMINI_CACHE_PREFIX };

/* The options of one call: the conf's and the request's, each as this plugin
 * takes them (popt_select), and the plugin's own keys read from them. */
typedef struct gemini_options {
    popt_view conf, req;
    int cache;              /* GEMINI_CACHE_*, from cache_strategy */
    json_object *cache_ttl; /* borrowed from conf/req; NULL: the API's default */
    int explicit_cache;     /* the options name a cachedContent themselves */
} gemini_options;

int gemini_option_known(const char *key, void *ud);
/* SEAM_OK or SEAM_ERR_NOMEM (o then holds nothing). */
int gemini_read_options(const gemini_instance *g, const seam_request *req, gemini_options *o);
void gemini_options_free(gemini_options *o);

/* ==== JSON Schemas (schema.c) ================================================ */

/* A schema given as JSON text, reshaped into the OpenAPI subset of
 * responseSchema and parameters (Gemini 2.x)... */
int gemini_reshape_schema_text(const char *schema_json, int must_be_object, json_object **out);
/* ...or copied into the JSON Schema subset of responseJsonSchema and
 * parametersJsonSchema (Gemini 3 and later). *out is NULL when the schema
 * constrains nothing Gemini can express. SEAM_OK, SEAM_ERR_INVALID (not JSON)
 * or SEAM_ERR_NOMEM. */
int gemini_json_schema_text(const char *schema_json, int must_be_object, json_object **out);

/* ==== encode (encode.c) ====================================================== */

int gemini_encode(void *instance, const seam_request *req, int stream, seam_http_request *out,
                  seam_error *err);
/* gemini_encode without the warnings about dropped options (quiet), and
 * with the whole request even when req carries a cache handle (whole). */
int gemini_encode_ex(void *instance, const seam_request *req, int stream, int quiet, int whole,
                     seam_http_request *out, seam_error *err);

/* ==== explicit context caching (cache.c) ===================================== */

/* How many leading contents of body a cache of strategy holds: those before
 * the last two user turns (prefix_and_2), none (system_and_3). */
size_t gemini_cached_contents(json_object *body, int strategy);
int gemini_cache_encode(void *instance, const seam_request *req, seam_http_request *out,
                        seam_error *err);
int gemini_cache_decode(void *instance, const seam_request *req, const char *body, size_t len,
                        char *handle, size_t handlesize, int64_t *ttl_ms, seam_error *err);

/* ==== error classification (errors.c) ======================================== */

/* Fills err from a google.rpc.Status (also an error inside a 200 stream):
 * the SDK's rules (<seam/codec.h>). */
#define gemini_classify_status(e, err) seam_error_classify_google((err), (e))
void gemini_classify_error(void *instance, int http_status, const seam_http_headers *headers,
                           const char *body, size_t len, seam_error *err);

/* ==== decode (decode.c) ====================================================== */

typedef struct gemini_decoder {
    char id_prefix[24];        /* random per response: synthesized ids stay unique */
    unsigned n_calls;          /* tool calls emitted */
    unsigned n_reasoning;      /* reasoning blocks opened */
    unsigned n_media;          /* media parts emitted */
    int reasoning_open;
    char reasoning_id[32];
    char *reasoning_signature; /* of the open block (from a thought part) */
    int saw_tool_call;
    int finished;              /* a finishReason (or a prompt block) was seen */
    seam_stop_reason finish;
    int stop_emitted;
    int have_usage;
    seam_usage usage;          /* from the last usageMetadata */
    char response_id[128];     /* responseId, carried on the stop chunk */
    jscan_buf scan;            /* the fast path's decoded strings, reused per event */
} gemini_decoder;

void *gemini_decoder_new(void *instance, const seam_request *req);
void gemini_decoder_free(void *decoder);
int gemini_decode_event(void *decoder, const seam_frame *frame, seam_emitter *out,
                        seam_error *err);
int gemini_decode_finish(void *decoder, seam_emitter *out, seam_error *err);
int gemini_decode_response(void *instance, const seam_request *req, const char *body, size_t len,
                           seam_emitter *out, seam_error *err);

/* ==== embeddings and token counts (embed.c, count_tokens.c) ================ */

/* base_url/models/{model}:{method} (a "models/" or "tunedModels/" name kept
 * as it is); malloc'ed, NULL without memory. */
char *gemini_model_url(const gemini_instance *g, const char *model, const char *method);
/* usageMetadata -> seam usage (decode.c). */
void gemini_parse_usage(json_object *um, seam_usage *u);
/* Speech to text through generateContent (transcribe.c). */
int gemini_transcribe_encode(void *instance, const seam_transcribe_request *tr,
                             seam_http_request *out, seam_error *err);
int gemini_transcribe_decode(void *instance, const seam_transcribe_request *tr, const char *body,
                             size_t len, seam_transcription *out, seam_error *err);
/* 1 when model can go into a URL path as a model id. */
int gemini_model_id_ok(const char *model);
int gemini_embed_encode(void *instance, const seam_embed_request *er, seam_http_request *out,
                        seam_error *err);
int gemini_embed_decode(void *instance, const seam_embed_request *er, const char *body,
                        size_t len, seam_embeddings *out, seam_error *err);
/* media.c: Imagen, native image output, Veo (seam_generate_media). */
int gemini_media_encode(void *instance, const seam_media_request *mr, seam_http_request *out,
                        seam_error *err);
int gemini_media_decode(void *instance, const seam_media_request *mr, const char *body,
                        size_t len, seam_media_sink *out, seam_error *err);
int gemini_media_poll_encode(void *instance, const char *ref, seam_http_request *out,
                             seam_error *err);
int gemini_media_poll_decode(void *instance, const char *ref, const char *body, size_t len,
                             seam_media_sink *out, seam_error *err);
int gemini_count_tokens_encode(void *instance, const seam_request *req, seam_http_request *out,
                               seam_error *err);
int gemini_count_tokens_decode(void *instance, const seam_request *req, const char *body,
                               size_t len, int64_t *input_tokens, seam_error *err);

#endif /* SEAM_PLUGIN_GEMINI_INTERNAL_H */
