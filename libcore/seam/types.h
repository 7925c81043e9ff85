/* seam/types.h — the seam types: the one vocabulary shared by applications and
 * provider plugins. Requests, messages, content parts, streaming chunks, results,
 * usage, stop reasons, errors and capability flags.
 *
 * Conventions (hold for every function in this header):
 *  - Opaque handles are created with *_new and released with *_free; *_free(NULL)
 *    is a no-op.
 *  - A `const char *` argument is copied; the caller keeps ownership of its own
 *    string. A `const char *` return value is borrowed from the object it was read
 *    from and stays valid until that object is modified or freed.
 *  - JSON values (tool arguments, tool results, JSON Schemas, provider options)
 *    travel as JSON text so that no JSON library appears in the ABI.
 *  - Fallible functions return SEAM_OK (0) or a negative seam_status and, when
 *    given a non-NULL seam_error, fill it.
 */
#ifndef SEAM_TYPES_H
#define SEAM_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SEAM_BUILDING_LIBRARY) && defined(__GNUC__)
#define SEAM_EXPORT __attribute__((visibility("default")))
#else
#define SEAM_EXPORT
#endif

/* ---- status codes ------------------------------------------------------- */

typedef enum seam_status {
    SEAM_OK = 0,
    SEAM_ERR_INVALID = -1,    /* bad argument or validation error */
    SEAM_ERR_NOMEM = -2,
    SEAM_ERR_CONF = -3,       /* conf file missing, malformed, or inconsistent */
    SEAM_ERR_NOT_FOUND = -4,  /* unknown provider, chain, plugin or model */
    SEAM_ERR_PROVIDER = -5,   /* the provider (or transport) failed; see seam_error */
    SEAM_ERR_NO_CREDENTIAL = -6,
    SEAM_ERR_PLUGIN = -7      /* a plugin misbehaved or was refused */
} seam_status;

/* ---- errors -------------------------------------------------------------- */

typedef enum seam_error_kind {
    SEAM_ERROR_NONE = 0,
    /* retryable */
    SEAM_ERROR_RATE_LIMIT,
    SEAM_ERROR_OVERLOADED,
    SEAM_ERROR_TIMEOUT,
    SEAM_ERROR_TRANSPORT,
    /* fatal */
    SEAM_ERROR_AUTH,
    SEAM_ERROR_BAD_REQUEST,
    SEAM_ERROR_CONTEXT_OVERFLOW,
    SEAM_ERROR_MODEL_NOT_FOUND,
    SEAM_ERROR_CONTENT_FILTER,
    SEAM_ERROR_CANCELLED,
    SEAM_ERROR_CONF,
    SEAM_ERROR_UNKNOWN,
    /* fatal, appended: values above never change */
    SEAM_ERROR_RESOURCE /* this process ran out of a local resource (file descriptors) */
} seam_error_kind;

/* A caller-provided error. Plain data: no allocation, nothing to free; zero it or
 * call seam_error_clear() before use. `message` never holds a credential: the core
 * redacts the credential of the provider it called from every message it returns.
 * Fields a source did not supply are empty strings, 0, or -1 (retry_after_ms). */
typedef struct seam_error {
    seam_error_kind kind;
    int retryable;            /* 1 when a retry (same or next entry) may succeed */
    int http_status;          /* upstream HTTP status, 0 when there was none */
    int64_t retry_after_ms;   /* from Retry-After / retry-after-ms / retryDelay; -1 absent */
    char code[64];            /* provider or transport code, e.g. "insufficient_quota" */
    char provider[64];        /* configured provider name (or plugin id) */
    char message[512];        /* human-readable, redacted */
    char ratelimit[512];      /* rate-limit response headers kept verbatim, "name: value\n" each */
    /* Appended (issue 14): the adapter behind `provider`, the plugin's provider
     * id ("openai" for a conf provider "work" with plugin = "openai"); empty
     * when no configured provider was involved. */
    char plugin[64];
} seam_error;

SEAM_EXPORT void seam_error_clear(seam_error *err);
/* Fills err (if non-NULL) with kind, the kind's default retryability and a
 * printf-style message. Returns SEAM_ERR_PROVIDER for provider kinds, or the
 * matching status for SEAM_ERROR_CONF (SEAM_ERR_CONF). */
SEAM_EXPORT int seam_error_set(seam_error *err, seam_error_kind kind, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The stable snake_case name of a kind ("rate_limit", "context_overflow", ...). */
SEAM_EXPORT const char *seam_error_kind_name(seam_error_kind kind);
/* 1 for rate_limit, overloaded, timeout, transport; 0 otherwise. */
SEAM_EXPORT int seam_error_kind_retryable(seam_error_kind kind);

/* ---- stop reasons -------------------------------------------------------- */

typedef enum seam_stop_reason {
    SEAM_STOP_NONE = 0, /* not known yet */
    SEAM_STOP_STOP,
    SEAM_STOP_LENGTH,
    SEAM_STOP_TOOL_USE,
    SEAM_STOP_CONTENT_FILTER,
    SEAM_STOP_ERROR
} seam_stop_reason;

/* "stop", "length", "tool_use", "content_filter", "error"; "none" for NONE. */
SEAM_EXPORT const char *seam_stop_reason_name(seam_stop_reason r);

/* ---- usage --------------------------------------------------------------- */

/* Bits of seam_usage.present: a count is meaningful only when its bit is set
 * ("absent when unknown" — never confuse an unknown count with zero). */
enum {
    SEAM_USAGE_INPUT = 1u << 0,
    SEAM_USAGE_OUTPUT = 1u << 1,
    SEAM_USAGE_CACHE_READ = 1u << 2,
    SEAM_USAGE_CACHE_WRITE = 1u << 3,
    SEAM_USAGE_REASONING = 1u << 4,
    SEAM_USAGE_COST = 1u << 5
};

/* Token usage of one response. input_tokens is net of cache: input, cache_read and
 * cache_write are disjoint, each billed once. reasoning_tokens is a subset of
 * output_tokens. cost_microcents is integer micro-cents (1e-8 USD). */
typedef struct seam_usage {
    uint32_t present;
    int64_t input_tokens;
    int64_t output_tokens;
    int64_t cache_read_tokens;
    int64_t cache_write_tokens;
    int64_t reasoning_tokens;
    int64_t cost_microcents;
} seam_usage;

/* Adds every present count of `add` into `sum` (a count present in either is
 * present in the result). */
SEAM_EXPORT void seam_usage_add(seam_usage *sum, const seam_usage *add);

/* ---- content parts and messages ----------------------------------------- */

typedef enum seam_role {
    SEAM_ROLE_USER = 1,
    SEAM_ROLE_ASSISTANT,
    SEAM_ROLE_TOOL
} seam_role;

typedef enum seam_part_type {
    SEAM_PART_TEXT = 1,
    SEAM_PART_REASONING,
    SEAM_PART_TOOL_CALL,
    SEAM_PART_TOOL_RESULT,
    SEAM_PART_MEDIA
} seam_part_type;

typedef enum seam_media_source {
    SEAM_MEDIA_BASE64 = 1,
    SEAM_MEDIA_URL,
    SEAM_MEDIA_HANDLE /* appended: "media://sha256-<64 hex>", bytes in the media store */
} seam_media_source;

/* A media part's modality, derived from its MIME type's prefix (image/,
 * audio/, video/) — application/pdf is a document, gated apart from images.
 * As bits, a set of modalities (output_modalities, output combinations). */
typedef enum seam_modality {
    SEAM_MODALITY_TEXT = 1u << 0,
    SEAM_MODALITY_IMAGE = 1u << 1,
    SEAM_MODALITY_AUDIO = 1u << 2,
    SEAM_MODALITY_VIDEO = 1u << 3,
    SEAM_MODALITY_DOCUMENT = 1u << 4
} seam_modality;

/* The length of a media handle, "media://sha256-" and 64 hex digits, with its NUL. */
#define SEAM_MEDIA_HANDLE_SIZE 80

typedef struct seam_part seam_part;       /* owned by its message */
typedef struct seam_message seam_message;

/* A new empty message with the given role; NULL on allocation failure or a bad
 * role. Free with seam_message_free() unless ownership is passed on (see
 * seam_request_add_message). */
SEAM_EXPORT seam_message *seam_message_new(seam_role role);
SEAM_EXPORT void seam_message_free(seam_message *msg);
/* A deep copy; NULL on allocation failure. */
SEAM_EXPORT seam_message *seam_message_dup(const seam_message *msg);

/* Appending parts. Every string is copied. Each returns SEAM_OK,
 * SEAM_ERR_INVALID (a required string is NULL, or JSON text does not parse) or
 * SEAM_ERR_NOMEM. */
SEAM_EXPORT int seam_message_add_text(seam_message *msg, const char *text);
/* signature may be NULL; redacted marks an opaque (encrypted) reasoning block
 * whose `text` is the provider's opaque data. */
SEAM_EXPORT int seam_message_add_reasoning(seam_message *msg, const char *text,
                                           const char *signature, int redacted);
/* args_json: a JSON object as text; NULL or "" means {}. */
SEAM_EXPORT int seam_message_add_tool_call(seam_message *msg, const char *id,
                                           const char *name, const char *args_json);
/* result_json: any JSON value as text (a bare string must be quoted). name may
 * be NULL (some wires need it: the core fills it from the matching call). */
SEAM_EXPORT int seam_message_add_tool_result(seam_message *msg, const char *tool_call_id,
                                             const char *name, const char *result_json,
                                             int is_error);
/* data: base64 (no data: prefix) for SEAM_MEDIA_BASE64, an URL for SEAM_MEDIA_URL. */
SEAM_EXPORT int seam_message_add_media(seam_message *msg, const char *mime_type,
                                       seam_media_source source, const char *data);
/* What a media part may say besides its bytes. Zero it, set size, then what
 * you know: strings may be NULL, byte_length and duration_ms are -1 (or 0
 * when size does not reach them) when unknown. */
typedef struct seam_media_meta {
    uint32_t size;          /* sizeof(seam_media_meta) */
    const char *name;       /* a file name, at most 255 bytes */
    const char *transcript; /* audio/video: what is said */
    int64_t byte_length;    /* the decoded size */
    int64_t duration_ms;    /* audio/video */
} seam_media_meta;
/* As seam_message_add_media, for any source (SEAM_MEDIA_HANDLE included),
 * with the optional metadata (meta may be NULL). */
SEAM_EXPORT int seam_message_add_media_meta(seam_message *msg, const char *mime_type,
                                            seam_media_source source, const char *data,
                                            const seam_media_meta *meta);

SEAM_EXPORT seam_role seam_message_role(const seam_message *msg);
SEAM_EXPORT size_t seam_message_part_count(const seam_message *msg);
/* Borrowed; NULL when i is out of range. */
SEAM_EXPORT const seam_part *seam_message_part(const seam_message *msg, size_t i);
/* Concatenation of the text parts (borrowed, cached in the message; "" if none). */
SEAM_EXPORT const char *seam_message_text(const seam_message *msg);

/* Part accessors. A string accessor returns NULL when the part has no such field. */
SEAM_EXPORT seam_part_type seam_part_get_type(const seam_part *p);
SEAM_EXPORT const char *seam_part_text(const seam_part *p);       /* text, reasoning */
SEAM_EXPORT const char *seam_part_signature(const seam_part *p);  /* reasoning */
SEAM_EXPORT int seam_part_redacted(const seam_part *p);           /* reasoning */
SEAM_EXPORT const char *seam_part_tool_call_id(const seam_part *p); /* tool_call, tool_result */
SEAM_EXPORT const char *seam_part_tool_name(const seam_part *p);  /* tool_call, tool_result */
SEAM_EXPORT const char *seam_part_args_json(const seam_part *p);  /* tool_call: never NULL */
SEAM_EXPORT const char *seam_part_result_json(const seam_part *p); /* tool_result */
SEAM_EXPORT int seam_part_is_error(const seam_part *p);           /* tool_result */
SEAM_EXPORT int seam_part_provider_executed(const seam_part *p);  /* tool_call, tool_result */
SEAM_EXPORT const char *seam_part_mime_type(const seam_part *p);  /* media */
SEAM_EXPORT seam_media_source seam_part_media_source(const seam_part *p);
SEAM_EXPORT const char *seam_part_media_data(const seam_part *p); /* base64, URL or handle */
SEAM_EXPORT const char *seam_part_media_name(const seam_part *p);       /* NULL if none */
SEAM_EXPORT const char *seam_part_media_transcript(const seam_part *p); /* NULL if none */
SEAM_EXPORT int64_t seam_part_media_byte_length(const seam_part *p);    /* -1 unknown */
SEAM_EXPORT int64_t seam_part_media_duration_ms(const seam_part *p);    /* -1 unknown */

/* ---- requests ------------------------------------------------------------ */

typedef enum seam_tool_choice {
    SEAM_TOOL_CHOICE_AUTO = 0,
    SEAM_TOOL_CHOICE_NONE,
    SEAM_TOOL_CHOICE_REQUIRED,
    SEAM_TOOL_CHOICE_NAMED
} seam_tool_choice;

typedef enum seam_response_format {
    SEAM_FORMAT_TEXT = 0,
    SEAM_FORMAT_JSON
} seam_response_format;

typedef struct seam_request seam_request;

/* A new empty request; free with seam_request_free(). */
SEAM_EXPORT seam_request *seam_request_new(void);
SEAM_EXPORT void seam_request_free(seam_request *req);
/* A deep copy; NULL on allocation failure. */
SEAM_EXPORT seam_request *seam_request_dup(const seam_request *req);

SEAM_EXPORT int seam_request_set_model(seam_request *req, const char *model);
SEAM_EXPORT int seam_request_set_system(seam_request *req, const char *system);
/* Takes ownership of msg on success (and only then). */
SEAM_EXPORT int seam_request_add_message(seam_request *req, seam_message *msg);
/* Convenience: appends a user message holding one text part. */
SEAM_EXPORT int seam_request_add_user_text(seam_request *req, const char *text);
/* parameters_json: a JSON Schema object as text; NULL means {"type":"object"}. */
SEAM_EXPORT int seam_request_add_tool(seam_request *req, const char *name,
                                      const char *description, const char *parameters_json);
/* name is required for SEAM_TOOL_CHOICE_NAMED and ignored otherwise. */
SEAM_EXPORT int seam_request_set_tool_choice(seam_request *req, seam_tool_choice choice,
                                             const char *name);
SEAM_EXPORT int seam_request_set_temperature(seam_request *req, double temperature);
SEAM_EXPORT int seam_request_set_max_tokens(seam_request *req, int64_t max_tokens);
SEAM_EXPORT int seam_request_add_stop(seam_request *req, const char *stop);
/* For SEAM_FORMAT_JSON: schema_json is a JSON Schema (NULL: any JSON object),
 * name may be NULL ("response"), strict is 0/1. */
SEAM_EXPORT int seam_request_set_response_format(seam_request *req, seam_response_format fmt,
                                                 const char *name, const char *schema_json,
                                                 int strict);
/* A JSON object as text, handed to the plugin as is (merged over the conf's
 * options). Namespaced per provider: {"openai": {...}, "my-conf-name": {...}};
 * each plugin takes its plugin id's and its conf name's members and the flat
 * keys it knows, drops (and logs) the keys it does not know, and sends an
 * "extra_body" object of a namespace as raw body fields. */
SEAM_EXPORT int seam_request_set_provider_options(seam_request *req, const char *options_json);
/* Requested reasoning budget in tokens; 0 (the default) leaves reasoning to the provider. */
SEAM_EXPORT int seam_request_set_reasoning_budget(seam_request *req, int64_t budget_tokens);

SEAM_EXPORT const char *seam_request_model(const seam_request *req);  /* NULL if unset */
SEAM_EXPORT const char *seam_request_system(const seam_request *req); /* NULL if unset */
SEAM_EXPORT size_t seam_request_message_count(const seam_request *req);
SEAM_EXPORT const seam_message *seam_request_message(const seam_request *req, size_t i);
SEAM_EXPORT size_t seam_request_tool_count(const seam_request *req);
SEAM_EXPORT const char *seam_request_tool_name(const seam_request *req, size_t i);
SEAM_EXPORT const char *seam_request_tool_description(const seam_request *req, size_t i);
SEAM_EXPORT const char *seam_request_tool_parameters(const seam_request *req, size_t i);
/* Returns the choice; *name (if non-NULL) gets the named tool or NULL. */
SEAM_EXPORT seam_tool_choice seam_request_tool_choice(const seam_request *req, const char **name);
/* 1 and *out set when a temperature was given, 0 otherwise. */
SEAM_EXPORT int seam_request_temperature(const seam_request *req, double *out);
/* 0 when unset. */
SEAM_EXPORT int64_t seam_request_max_tokens(const seam_request *req);
SEAM_EXPORT size_t seam_request_stop_count(const seam_request *req);
SEAM_EXPORT const char *seam_request_stop(const seam_request *req, size_t i);
SEAM_EXPORT seam_response_format seam_request_response_format(const seam_request *req,
                                                              const char **name,
                                                              const char **schema_json,
                                                              int *strict);
SEAM_EXPORT const char *seam_request_provider_options(const seam_request *req); /* NULL if unset */
SEAM_EXPORT int64_t seam_request_reasoning_budget(const seam_request *req);
/* The modalities the answer may hold, a set of SEAM_MODALITY_* bits among
 * text, image, audio and video; SEAM_MODALITY_TEXT (the default) asks for text
 * only. A chain skips an entry whose model cannot emit this set in one turn. */
SEAM_EXPORT int seam_request_set_output_modalities(seam_request *req, uint32_t modalities);
SEAM_EXPORT uint32_t seam_request_output_modalities(const seam_request *req);

/* ---- streaming chunks ---------------------------------------------------- */

typedef enum seam_chunk_type {
    SEAM_CHUNK_TEXT_DELTA = 1,
    SEAM_CHUNK_REASONING_START,
    SEAM_CHUNK_REASONING_DELTA,
    SEAM_CHUNK_REASONING_END,
    SEAM_CHUNK_TOOL_CALL_START,
    SEAM_CHUNK_TOOL_CALL_DELTA,
    SEAM_CHUNK_TOOL_CALL_END,
    SEAM_CHUNK_MEDIA_START,
    SEAM_CHUNK_MEDIA_DELTA,
    SEAM_CHUNK_MEDIA_END,
    SEAM_CHUNK_TOOL_RESULT, /* provider-executed tool result: record, never run */
    SEAM_CHUNK_STOP,
    SEAM_CHUNK_ERROR,
    SEAM_CHUNK_STREAM_START, /* appended: values above are ABI */
    SEAM_CHUNK_STEP_FINISH
} seam_chunk_type;

/* One streaming chunk: a flat tagged record (fields not used by a type are
 * NULL / 0). Always borrowed: valid until the next call on the stream that gave
 * it. Fields per type:
 *   text_delta        text
 *   reasoning_start   id
 *   reasoning_delta   id, text
 *   reasoning_end     id, signature (may be NULL), redacted
 *   tool_call_start   id, name
 *   tool_call_delta   id, text (a fragment of the arguments' JSON text)
 *   tool_call_end     id, args_json (the whole parsed-and-reserialized arguments)
 *   media_start       id, mime_type
 *   media_delta       id, progress (0..1; -1 when the whole size is not known),
 *                     text (a piece of the transcript of audio, or NULL),
 *                     result_json (NULL, or {"bytes":N}: the bytes so far)
 *   media_end         id, mime_type, text (the part's handle, "media://sha256-…";
 *                     never bytes: base64 never appears in a chunk),
 *                     result_json (NULL, or {"byte_length":N,"duration_ms":M},
 *                     each when known: the part's length and duration)
 *   tool_result       id, name, result_json, is_error (provider-executed)
 *   stop              stop_reason, usage, id (the provider's response id, or NULL)
 *   error             error
 *   stream_start      name (the conf provider), text (the model), id (the
 *                     provider's response id, as soon as the stream names it:
 *                     OpenAI, Anthropic and Gemini streams do in their first
 *                     event; NULL for a provider that names none before its
 *                     end, whose stop chunk has it). The core emits it once per call
 *                     that asks (seam_call_options.stream_start), before the
 *                     answering attempt's first chunk; codecs never.
 *   step_finish       stop_reason, usage: of the tool loop's step that just
 *                     ended (seam_loop_stream_step() gives its index), between
 *                     it and the next step; loop streams that ask only.
 */
typedef struct seam_chunk {
    seam_chunk_type type;
    const char *id;
    const char *name;
    const char *text;
    const char *signature;
    int redacted;
    const char *args_json;
    const char *result_json;
    int is_error;
    const char *mime_type;
    double progress;
    seam_stop_reason stop_reason;
    seam_usage usage;
    const seam_error *error;
} seam_chunk;

/* "text_delta", "reasoning_start", ..., "stop", "error": the snake_case names of
 * the --json contract. */
SEAM_EXPORT const char *seam_chunk_type_name(seam_chunk_type t);

/* ---- results and the accumulator ------------------------------------------ */

typedef struct seam_result seam_result;

/* An empty result; folding chunks into it with seam_result_add_chunk() gives the
 * same result a blocking generate would. Free with seam_result_free(). */
SEAM_EXPORT seam_result *seam_result_new(void);
SEAM_EXPORT void seam_result_free(seam_result *res);
/* Folds one chunk in: text deltas merge into a text part, reasoning start..end
 * into a reasoning part (with its signature), tool_call start..end into a
 * tool_call part with parsed arguments, a stop chunk sets stop reason and usage,
 * an error chunk marks the result failed (stop reason error) and keeps the error.
 * Returns SEAM_OK, SEAM_ERR_NOMEM, or SEAM_ERR_INVALID (a chunk out of sequence,
 * or tool arguments that are not a JSON object: the call is kept with {} and
 * the error recorded). */
SEAM_EXPORT int seam_result_add_chunk(seam_result *res, const seam_chunk *chunk);

/* The assistant message (content parts in stream order). Borrowed. */
SEAM_EXPORT const seam_message *seam_result_message(const seam_result *res);
/* Concatenated text ("" when none). Borrowed. */
SEAM_EXPORT const char *seam_result_text(const seam_result *res);
SEAM_EXPORT seam_stop_reason seam_result_stop_reason(const seam_result *res);
SEAM_EXPORT const seam_usage *seam_result_usage(const seam_result *res);
/* The configured provider name and model that produced it (NULL if unknown). */
SEAM_EXPORT const char *seam_result_provider(const seam_result *res);
SEAM_EXPORT const char *seam_result_model(const seam_result *res);
SEAM_EXPORT int seam_result_set_origin(seam_result *res, const char *provider, const char *model);
/* The provider's id for this answer (OpenAI "chatcmpl-…" or "resp_…", Anthropic
 * "msg_…", Gemini responseId), from the stop chunk's id; NULL when the provider
 * gave none or the stream never stopped. Borrowed: valid while res lives. */
SEAM_EXPORT const char *seam_result_response_id(const seam_result *res);
/* 1 when the stream ended early (error after content, cancel, cut stream). */
SEAM_EXPORT int seam_result_incomplete(const seam_result *res);
SEAM_EXPORT void seam_result_set_incomplete(seam_result *res, int incomplete);
/* Media usage, apart from tokens (reference ADR-0031 mediaUnits): entries of
 * (modality, units, unit), unit "count" (images) or "second" (audio, video).
 * The core counts each output image of the answer, and the seconds of each
 * output audio or video whose duration is known (media_end's duration_ms);
 * entries come in that order: images, audio, video. _at returns
 * SEAM_ERR_INVALID past the end; any out pointer may be NULL. */
SEAM_EXPORT size_t seam_result_media_units_count(const seam_result *res);
SEAM_EXPORT int seam_result_media_units_at(const seam_result *res, size_t i, uint32_t *modality,
                                           double *units, const char **unit);
/* The error folded in from an error chunk, or NULL. Borrowed. */
SEAM_EXPORT const seam_error *seam_result_error(const seam_result *res);

/* ---- capability flags ---------------------------------------------------- */

/* Per-model capabilities. `size` is set by whoever fills the struct to
 * sizeof(seam_capabilities) of its own build: a reader ignores members past it. */
typedef struct seam_capabilities {
    uint32_t size;
    unsigned tools : 1;
    unsigned streaming : 1;
    unsigned parallel_tool_calls : 1;
    unsigned vision : 1;         /* image input */
    unsigned audio_input : 1;
    unsigned pdf_input : 1;
    unsigned prompt_cache : 1;
    unsigned reasoning : 1;
    unsigned structured_output : 1;
    int64_t context_window;      /* tokens; 0 unknown */
    int64_t max_output_tokens;   /* tokens; 0 unknown */
    /* Appended: present when size >= offsetof(seam_capabilities, embed) + sizeof(int). */
    int embed;                   /* 1: an embedding model (seam_embed serves it) */
    /* appended (media): vision is image input, pdf_input document input */
    unsigned video_input : 1;
    /* The closed set of modality sets (SEAM_MODALITY_* bits) the model can
     * emit in one turn; none (0 entries): text only. */
    uint32_t output_combinations[8];
    uint32_t n_output_combinations;
    int surface;                 /* SEAM_SURFACE_*; 0: chat */
} seam_capabilities;

enum { SEAM_SURFACE_CHAT = 0, SEAM_SURFACE_GENERATIVE = 1 };

#ifdef __cplusplus
}
#endif
#endif /* SEAM_TYPES_H */
