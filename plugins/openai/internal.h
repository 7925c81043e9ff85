/* internal.h — what the files of the openai plugin share: the provider
 * instance and its profile, OpenAI's model rules, the Chat Completions
 * decoder's state, and every function one file calls in another. Private to
 * the plugin (and to the tests and fuzz harnesses built from its sources):
 * nothing here is exported, the plugin being built with hidden visibility.
 *
 * Which file owns what:
 *   plugin.c            the vtable, seam_plugin_init, and the choice of wire
 *                       (Chat Completions or the Responses API) per request
 *   options.c           the provider instance: profiles, conf options, create
 *   models.c            model-family tables: OpenAI's model rules, the effort
 *                       ladder, capabilities per family
 *   encode.c            Chat Completions: seam request -> request body
 *   mistral_ids.c       Chat Completions: tool call ids on the mistral profile
 *   encode_common.c     what both encoders share: tool schemas, JSON format,
 *                       the escape hatch, the finished HTTP request
 *   decode.c            Chat Completions: stream events and a whole response
 *                       -> seam chunks (text and reasoning deltas, <think>
 *                       tags, tool calls, finish, usage)
 *   decode_scan.c       the fast path of decode.c: plain delta events scanned
 *                       in place
 *   audio.c             Chat Completions audio output: modalities + audio in
 *                       the request, message.audio / delta.audio -> media
 *   errors.c            classify_error: an error answer (429, 401, ...) -> a
 *                       classified seam_error; in-stream error events
 *   responses_encode.c  the Responses API: seam request -> request body
 *   responses_decode.c  the Responses API: stream events and a whole Response
 *                       -> seam chunks
 *   embed.c             POST /embeddings: the embedding request and its answer
 *   count_tokens.c      POST /responses/input_tokens: the token count
 *   transcribe.c        POST /audio/transcriptions: speech to text
 *   compat.c            libseam-openai-compat only: a third party's profile
 *                       as an instance and a vtable (<seam/openai_compat.h>)
 *   media.c             media generation: /images/generations, /audio/speech,
 *                       /videos (a job: poll, then download the content) */
#ifndef SEAM_OPENAI_INTERNAL_H
#define SEAM_OPENAI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include <seam/plugin.h>
#include <seam/openai_compat.h>

#include "../common/codec_util.h"
#include "../common/json_scan.h"

/* strbuf, xstrdup, contains_ci, the JSON parsers and accessors, json_double
 * and json_text: ../common/codec_util.h. */

/* ---- the provider instance and its profile (options.c) ----------------------------- */

/* A profile is the SDK's seam_openai_profile (<seam/openai_compat.h>): the
 * built-in ones of options.c and a third party's, through
 * libseam-openai-compat (compat.c), are the same thing. The codec's short
 * names for its quirks and reasoning wires: */
enum {
    PF_STREAM_USAGE = SEAM_OPENAI_STREAM_USAGE,       /* send stream_options.include_usage */
    PF_OPENAI_REASONING = SEAM_OPENAI_MODEL_RULES,    /* OpenAI's model rules (oa_model_rules_of) and the auto endpoint */
    PF_JSON_SCHEMA = SEAM_OPENAI_JSON_SCHEMA,         /* response_format json_schema (else json_object) */
    PF_TOOL_NAME = SEAM_OPENAI_TOOL_NAME,             /* tool result messages carry the tool name */
    PF_XAI = SEAM_OPENAI_XAI_STOP,                    /* xAI reasoning models reject stop */
    PF_THINK_TAGS = SEAM_OPENAI_THINK_TAGS,           /* <think>...</think> in content is reasoning (think_tags default) */
    PF_SHORT_TOOL_IDS = SEAM_OPENAI_SHORT_TOOL_IDS,   /* tool call ids must be exactly 9 of [a-zA-Z0-9] (Mistral) */
    PF_DEEPSEEK = SEAM_OPENAI_DEEPSEEK                /* deepseek-reasoner: no sampling parameters */
};

/* How a request's reasoning budget (tokens) is written for each server; see
 * encode_reasoning() and encode.c's header comment for the field names and
 * values. */
typedef seam_openai_reasoning reasoning_wire;
#define RW_NONE SEAM_OPENAI_REASONING_NONE       /* nothing documented that takes a budget: nothing is sent */
#define RW_OPENAI SEAM_OPENAI_REASONING_OPENAI   /* reasoning_effort per model family (oa_model_rules_of):
                                                  * o-series, gpt-5.x and gpt-6.x, none..max as each takes */
#define RW_GROQ SEAM_OPENAI_REASONING_GROQ       /* gpt-oss: reasoning_effort; qwen3: reasoning_effort default
                                                  * + reasoning_format parsed; qwq, r1 distills: reasoning_format */
#define RW_MISTRAL SEAM_OPENAI_REASONING_MISTRAL /* reasoning_effort "high" on the adjustable models */
#define RW_XAI SEAM_OPENAI_REASONING_XAI         /* reasoning_effort: grok-3-mini low/high, grok-4.3 low/medium/high */
#define RW_OPENROUTER SEAM_OPENAI_REASONING_OPENROUTER /* reasoning: {effort} low..xhigh */
#define RW_OLLAMA SEAM_OPENAI_REASONING_EFFORT   /* reasoning_effort low/medium/high */
#define RW_VLLM SEAM_OPENAI_REASONING_BUDGET     /* thinking_token_budget */

/* One server that speaks this wire (options.c's table, or a third party's). */
typedef seam_openai_profile oa_profile;

/* Which endpoint a request goes to (options.api). */
typedef enum oa_api {
    OA_API_AUTO = 0, /* Chat Completions, except what only the Responses API can do */
    OA_API_CHAT,     /* always POST /chat/completions */
    OA_API_RESPONSES /* always POST /responses */
} oa_api;

/* options.max_tokens_param */
enum { MAXTOK_AUTO = 0, MAXTOK_MAX_TOKENS, MAXTOK_MAX_COMPLETION_TOKENS };

/* Immutable after create: safe to share between threads. JSON is kept as text
 * and parsed per call because json-c reference counts are not atomic. */
typedef struct oa_instance {
    char *name;
    char *base_url; /* without a trailing slash */
    const oa_profile *profile;
    int openai_rules;    /* the profile applies OpenAI's model rules (see oa_model_rules_of) */
    char *body_options;  /* JSON object: the conf options minus the plugin's own keys; NULL: none */
    char *conf_extra;    /* JSON object: the conf's extra_body, or NULL */
    char *conf_notes;    /* the conf's unknown option keys, as warnings; NULL: none */
    char *headers_json;  /* JSON object of extra headers, or NULL */
    char *caps_json;     /* JSON object of capability overrides, or NULL */
    int max_tokens_param;
    int stream_usage;    /* -1: the profile decides */
    int think_tags;      /* 1: <think>...</think> at the start of content is reasoning */
    oa_api api;
    char *reasoning_summary; /* Responses: reasoning.summary for reasoning models, NULL: none */
    oa_profile *profile_copy; /* a third party's profile, copied whole (compat.c); NULL else */
} oa_instance;

/* The vtable's create and destroy. oa_create_with: an instance of the fixed
 * profile p (libseam-openai-compat, compat.c), or, p NULL, of the profile the
 * conf names or implies (the openai plugin's create). */
void *oa_create(const seam_provider_config *cfg, seam_error *err);
void *oa_create_with(const oa_profile *p, const seam_provider_config *cfg, seam_error *err);
void oa_destroy(void *instance);
/* 1 for the plugin's own option keys (never copied into a body). */
int oa_is_reserved_option(const char *key);
/* 1 when options may set the body field key on the wire of path
 * ("/chat/completions", "/responses"; NULL: either) for in's profile
 * (body_fields.c). */
int oa_body_field_known(const oa_instance *in, const char *key, const char *path);
/* popt_known_fn for the instance: a plugin key or a body field of either wire. */
int oa_option_known(const char *key, void *instance);

/* ---- model families (models.c) ----------------------------------------------------- */

/* The model id without a "vendor/" prefix; oa_model_is: a prefix at a name boundary. */
const char *oa_model_base(const char *model);
int oa_model_is(const char *model, const char *prefix);

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
/* The vtable's capabilities: the family defaults, then the conf's overrides. */
int oa_capabilities(void *instance, const char *model, seam_capabilities *out);

/* ---- the choice of wire and the vtable (plugin.c) ---------------------------------- */

/* 1 when the request goes to the Responses API (a pure function of the
 * instance and the request: encode and the decoders agree on it). */
int oa_use_responses(const oa_instance *in, const seam_request *req);

/* Decoders of both wires begin with this tag, so that the vtable's decoder
 * functions can tell them apart. */
enum { OA_WIRE_CHAT = 0x6f616363u, OA_WIRE_RESPONSES = 0x6f617273u };

/* The vtable's encode and decode entry points: each hands the request to the
 * wire oa_use_responses() chose. */
int oa_encode(void *instance, const seam_request *req, int stream, seam_http_request *out,
              seam_error *err);
void *oa_decoder_new(void *instance, const seam_request *req);
void oa_decoder_free(void *decoder);
int oa_decode_event(void *decoder, const seam_frame *frame, seam_emitter *out, seam_error *err);
int oa_decode_finish(void *decoder, seam_emitter *out, seam_error *err);
int oa_decode_response(void *instance, const seam_request *req, const char *body, size_t len,
                       seam_emitter *out, seam_error *err);

/* ---- encode pieces both wires use (encode_common.c) -------------------------------- */

#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
int oa_bad_request(seam_error *err, const char *fmt, ...);

/* A tool result as the text a tool message / function_call_output carries: a
 * JSON string as its text, anything else as its JSON text. */
json_object *oa_tool_result_content(const char *result_json);
/* "data:<mime>;base64,<b64>" as a JSON string. */
json_object *oa_data_url(const char *mime, const char *b64);
/* The JSON Schema of tool i ({"type":"object","properties":{}} when none; an
 * object schema without properties gets an empty one). */
int oa_tool_parameters(const seam_request *req, size_t i, json_object **out, seam_error *err);
/* The request's JSON response format: 0 for text; else 1 with *schema the
 * schema object to send (caller puts) or NULL for "any JSON object". */
int oa_json_format(const seam_request *req, const char **name, json_object **schema,
                   int *strict, seam_error *err);
/* Shallow-merges the options object (text) into body; a null value deletes.
 * filter_reserved skips the plugin's own keys; path (NULL: none) drops a field
 * that is not of that wire for in's profile, with a note in notes. */
int oa_merge_options(const oa_instance *in, json_object *body, const char *options_text,
                     int filter_reserved, const char *path, seam_error *err);
int oa_merge_object(const oa_instance *in, json_object *body, json_object *opts,
                    int filter_reserved, const char *path, strbuf *notes);
/* The credential's header: the profile's auth_header and auth_prefix, else
 * "Authorization: Bearer <key>" (added only when the conf gives a key). */
int oa_add_auth(const oa_instance *in, seam_http_request *out);
/* The conf's options then the request's over body, then URL base_url + path,
 * method, body, headers (credential, extra headers) and framing into out.
 * Does not take body. */
int oa_finish_request(const oa_instance *in, const seam_request *req, json_object *body,
                      const char *path, int stream, seam_http_request *out, seam_error *err);

/* ---- a request body written as JSON text (body.c) ---------------------------------- */

/* JSON text as json-c's printer writes it (JSON_C_TO_STRING_PLAIN |
 * NOSLASHESCAPE): a string of n bytes, a C string (NULL as ""), and
 * `,"key":` (no comma when first) followed by a string value unless NULL. */
int oa_json_string_n(strbuf *b, const char *s, size_t n);
int oa_json_string(strbuf *b, const char *s);
int oa_json_member(strbuf *b, int first, const char *key, const char *value);

/* A body's top-level members, key and value text kept back to back in text. */
typedef struct oa_member {
    size_t key, key_len, val, val_len;
} oa_member;
typedef struct oa_body {
    strbuf text;
    oa_member *m;
    size_t n, cap;
} oa_body;

/* Starts member key (appended) and returns the buffer its value's JSON text
 * is written to; oa_body_end closes it. Failures show in text.failed. */
strbuf *oa_body_begin(oa_body *b, const char *key);
void oa_body_end(oa_body *b);
/* A member whose value is the JSON text given / a JSON string of value. */
int oa_body_add(oa_body *b, const char *key, const char *value_json);
int oa_body_add_string(oa_body *b, const char *key, const char *value);
/* The body's JSON text (malloc'ed, *len its length), NULL when out of memory. */
char *oa_body_render(oa_body *b, size_t *len);
void oa_body_free(oa_body *b);
/* The HTTP request of a written body, as oa_finish_request makes it (the
 * same filtered option merge when there are options). Does not take body. */
int oa_finish_body(const oa_instance *in, const seam_request *req, oa_body *body, const char *path,
                   int stream, seam_http_request *out, seam_error *err);

/* ---- Chat Completions (encode.c, decode.c, decode_scan.c) -------------------------- */

int oa_chat_encode(const oa_instance *in, const seam_request *req, int stream,
                   seam_http_request *out, seam_error *err);

/* Tool call ids on the mistral profile (mistral_ids.c): every id that is not
 * 9 characters of [a-zA-Z0-9] goes on the wire as a short id derived from it. */
typedef struct oa_id_entry {
    const char *orig; /* borrowed from the request being encoded */
    char wire[10];
} oa_id_entry;

typedef struct oa_id_map {
    oa_id_entry *items;
    size_t n, cap;
    int nomem;
} oa_id_map;

/* 1 when Mistral accepts id as it is. */
int oa_mistral_id_ok(const char *id);
/* The short id of id rehashed with salt: 9 characters of [0-9A-Za-z]. */
void oa_short_id(const char *id, unsigned salt, char out[10]);
/* Adds orig -> wire; NULL (and m->nomem set) when out of memory. */
oa_id_entry *oa_id_map_add(oa_id_map *m, const char *orig, const char *wire);
/* The id as the wire carries it: unchanged without a map or when Mistral
 * accepts it, else its short id. */
const char *oa_wire_id(oa_id_map *m, const char *id);
/* Reserves every id of the request that Mistral accepts as it is. */
void oa_id_map_reserve(oa_id_map *m, const seam_request *req);

typedef struct oa_decoder {
    unsigned wire;      /* OA_WIRE_CHAT: tells it from a Responses decoder */
    const oa_instance *in;
    int reasoning_open;
    unsigned reasoning_seq;
    char reasoning_id[32];
    seam_toolcalls *tools; /* the SDK's assembler, made on the first tool call */
    int finish_seen;
    seam_stop_reason stop;
    int refusal_seen;
    seam_usage usage;
    int stop_emitted;
    char response_id[128]; /* the chunks' "id", carried on the stop chunk */
    json_tokener *tok;  /* reused for every event of the stream */
    int think_on;       /* the instance's think_tags */
    int think_state;    /* THINK_*, see oa_chat_on_content_text() */
    strbuf think_hold;  /* content held back: a possible tag's first bytes */
    strbuf scratch;     /* a NUL-terminated copy of a piece of content */
    jscan_buf scan;     /* the fast path's decoded strings, reused per event */
    char audio_mime[24];  /* the MIME type of the audio asked for (audio.c) */
    int64_t audio_bps;    /* raw PCM: bytes a second; 0 otherwise */
    int audio_open;       /* media begun, not yet ended */
    unsigned audio_seq;
    char audio_id[96];
} oa_decoder;

/* audio.c: modalities + audio in a Chat Completions body when the request
 * asks for audio output; the decoder's audio format (the options' or seam's
 * default for a stream or a whole answer); an audio object of a delta or a
 * message into media chunks; the end of the answer's audio. */
int oa_chat_encode_audio(const oa_instance *in, const seam_request *req, int stream,
                         oa_body *body, seam_error *err);
void oa_chat_audio_setup(oa_decoder *d, const oa_instance *in, const seam_request *req, int stream);
int oa_chat_on_audio(oa_decoder *d, seam_emitter *em, json_object *audio, seam_error *err);
int oa_chat_end_audio(oa_decoder *d, seam_emitter *em, seam_error *err);

void *oa_chat_decoder_new(const oa_instance *in);
void oa_chat_decoder_free(oa_decoder *d);
int oa_chat_decode_event(oa_decoder *d, const seam_frame *frame, seam_emitter *out,
                         seam_error *err);
int oa_chat_decode_finish(oa_decoder *d, seam_emitter *out, seam_error *err);
int oa_chat_decode_response(const oa_instance *in, const seam_request *req, const char *body,
                            size_t len, seam_emitter *out, seam_error *err);
/* The finish reason of a choice: the SDK's table of the common wires. */
#define oa_map_finish seam_stop_reason_from_wire

/* What the fast path hands its deltas to (decode.c), in the json-c path's order. */
int oa_chat_on_reasoning(oa_decoder *d, seam_emitter *em, const char *text);
int oa_chat_on_content_text(oa_decoder *d, seam_emitter *em, const char *text);
int oa_chat_on_tool_fragment(oa_decoder *d, seam_emitter *em, int has_index, int index,
                             const char *id, const char *name, const char *args);
/* decode_scan.c: 1 when the event was scanned and decoded (*rc its status), 0
 * when it must take the json-c path (nothing has been emitted then). */
int oa_scan_event(oa_decoder *d, const seam_frame *frame, const char *data, size_t len,
                  seam_emitter *out, int *rc);
/* decode_scan.c: the same for a whole (non-streamed) chat.completion body of
 * the usual shape. */
int oa_scan_response(oa_decoder *d, const char *body, size_t len, seam_emitter *out, int *rc);

/* What both paths of a whole response share (decode.c): a message's refusal,
 * the response id, and the end (finish reason, usage, stop chunk). */
int oa_chat_on_refusal(oa_decoder *d, seam_emitter *em, const char *refusal);
void oa_chat_note_id(oa_decoder *d, seam_emitter *out, const char *id);
int oa_chat_whole_end(oa_decoder *d, seam_emitter *out, const char *finish_reason,
                      const seam_usage *usage);

/* Chat Completions' usage counts as read from the wire (clamped), and the
 * seam_usage they make (net of cache; *out untouched when none is there). */
enum {
    OA_HAVE_PROMPT = 1u << 0,     /* prompt_tokens */
    OA_HAVE_COMPLETION = 1u << 1, /* completion_tokens */
    OA_HAVE_CACHED = 1u << 2,     /* prompt_tokens_details.cached_tokens */
    OA_HAVE_CACHE_HIT = 1u << 3,  /* prompt_cache_hit_tokens (DeepSeek) */
    OA_HAVE_REASONING = 1u << 4   /* completion_tokens_details.reasoning_tokens */
};
typedef struct oa_usage_counts {
    unsigned have;
    int64_t prompt, completion, cached, cache_hit, reasoning;
} oa_usage_counts;
void oa_chat_usage(const oa_usage_counts *c, seam_usage *out);

/* ---- decode pieces both wires use (decode.c) --------------------------------------- */

/* A token count from the wire, clamped to [0, OA_MAX_TOKENS] so that the
 * differences taken on usage stay defined whatever a server sends. */
#define OA_MAX_TOKENS ((int64_t)1000000000000)
int64_t oa_clamp_count(int64_t n);
int oa_jcount(json_object *obj, const char *key, int64_t *out);
/* The whole arguments text for tool_call_end: "" means {}; a JSON object is
 * re-serialized; anything else is passed on for the accumulator to reject. */
char *oa_final_args(json_tokener *tok, const char *text, size_t len);

/* ---- errors (errors.c) ------------------------------------------------------------- */

/* The vtable's classify_error. */
void oa_classify_error(void *instance, int http_status, const seam_http_headers *headers,
                       const char *body, size_t len, seam_error *err);
/* An error object (any of the shapes OpenAI-compatible servers send) that came
 * inside a 2xx answer, classified into err; returns SEAM_ERR_PROVIDER. */
int oa_error_event(const oa_instance *in, json_object *root, seam_error *err);
/* Fills err from an error's code/type/message as found in an event (status 0). */
void oa_error_from_fields(const oa_instance *in, const char *code, const char *type,
                          const char *message, seam_error *err);
int oa_malformed(seam_error *err, const char *what);
/* Out of memory, as both wires' codecs report it; returns its status. */
int oa_nomem(seam_error *err);
/* "6m0s", "1.5s", "20ms", "1h2m" (OpenAI's x-ratelimit-reset-*) -> ms; -1 if
 * not; and the masking of what looks like an API key in a provider's message,
 * in place: the SDK's helpers (<seam/codec.h>). */
#define oa_parse_duration_ms seam_parse_duration_ms
#define oa_scrub_keys seam_scrub_keys

/* ---- the Responses API (responses_encode.c, responses_decode.c) -------------------- */

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
 * reasoning item's id + ":" + its encrypted_content (an id with a ':' is left
 * out, and so is the ':' after it). Only signatures with this tag and an id
 * are replayed: another provider's reasoning is dropped, and so is one signed
 * without an id (the spec's ReasoningItem requires one). */
#define OA_SIGNATURE_TAG "openai:"

/* ---- embeddings and token counts (embed.c, count_tokens.c) ------------------------- */

int oa_embed_encode(void *instance, const seam_embed_request *er, seam_http_request *out,
                    seam_error *err);
int oa_embed_decode(void *instance, const seam_embed_request *er, const char *body, size_t len,
                    seam_embeddings *out, seam_error *err);
int oa_count_tokens_encode(void *instance, const seam_request *req, seam_http_request *out,
                           seam_error *err);
int oa_count_tokens_decode(void *instance, const seam_request *req, const char *body, size_t len,
                           int64_t *input_tokens, seam_error *err);

/* ---- media generation (media.c) ----------------------------------------------------- */

int oa_media_encode(void *instance, const seam_media_request *mr, seam_http_request *out,
                    seam_error *err);
int oa_media_decode(void *instance, const seam_media_request *mr, const char *body, size_t len,
                    seam_media_sink *out, seam_error *err);
int oa_media_poll_encode(void *instance, const char *ref, seam_http_request *out, seam_error *err);
int oa_media_poll_decode(void *instance, const char *ref, const char *body, size_t len,
                         seam_media_sink *out, seam_error *err);
/* ---- speech to text (transcribe.c) ------------------------------------------------ */

int oa_transcribe_encode(void *instance, const seam_transcribe_request *tr,
                         seam_http_request *out, seam_error *err);
int oa_transcribe_decode(void *instance, const seam_transcribe_request *tr, const char *body,
                         size_t len, seam_transcription *out, seam_error *err);

#endif /* SEAM_OPENAI_INTERNAL_H */
