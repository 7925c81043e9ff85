/* seam/plugin.h — the provider plugin ABI.
 *
 * A plugin is a shared object that exports two symbols (use SEAM_PLUGIN_DEFINE):
 *
 *   const uint32_t seam_plugin_abi;          the ABI version it was built for
 *   int seam_plugin_init(seam_registrar *r); registers one or more providers
 *
 * The core reads `seam_plugin_abi` from the file itself, through its dynamic
 * symbol table, before mapping it: a plugin built for a different ABI major is
 * refused (the message names both versions) without any of its code running,
 * constructors included. So `seam_plugin_abi` must be a constant initialised in
 * the file, as SEAM_PLUGIN_DEFINE makes it. A file that is not a whole ELF
 * shared object for this machine is refused the same way, with the reason.
 * Only then is it dlopen-ed (its constructors run) and seam_plugin_init()
 * called, which calls seam_registrar_add() once per provider vtable. An
 * optional `void seam_plugin_exit(void)` runs before unload.
 *
 * Loading is lazy: a plugin is loaded when a provider it serves is first used
 * (from whichever thread uses it first; the core serializes loading), or when
 * the plugins are listed. The provider id "x" is looked for in a file named
 * x.so first, and that file has first claim on the id; a plugin that registers
 * ids other than its file's name is found by loading the other files in order.
 *
 * A provider is a codec and does no I/O of its own: it turns a seam request into
 * an HTTP request (encode), a framed stream event or a whole response body into
 * seam chunks (decode), and an error response into a classified seam_error
 * (classify_error). The core sends, frames, times out, cancels and retries.
 * A provider that answers in-process (a scripted mock, a local model) implements
 * `serve`, which produces the bytes the core would have received.
 *
 * Versioning (SQLite's iVersion, OpenSSL 3 dispatch tables): every vtable begins
 * with abi_version and its own size; members are only ever appended, so a newer
 * core reads an older plugin's shorter table and treats the missing members as
 * NULL. Optional members are NULL-checked by the core.
 *
 * Threading: the core may call a provider from several threads at once, with
 * different instances or the same one; encode, decode and classify must not
 * share mutable state across calls except through their own decoder object.
 */
#ifndef SEAM_PLUGIN_H
#define SEAM_PLUGIN_H

#include <seam/types.h>
#include <seam/embed.h>
#include <seam/mediagen.h>
#include <seam/transcribe.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SEAM_PLUGIN_ABI_MAJOR 1
#define SEAM_PLUGIN_ABI_MINOR 7 /* 1.1: embed_* and count_tokens_* appended; 1.2: seam_emit_media,
                                 * seam_capabilities media members; 1.3: the codec helper
                                 * set, <seam/codec.h> (JSON, finish reasons, usage, tool-call
                                 * assembly, error shapes, message text): functions only, no
                                 * vtable change; 1.4: cache_encode and cache_decode appended,
                                 * seam_http_request_warn, seam_request_cache_handle; 1.5: media_*
                                 * appended (generation on separate endpoints, async jobs)
                                 * and seam_media_sink_*; 1.6: seam_emit_media_begin, _append,
                                 * _transcript, _end (media in pieces), form parts,
                                 * transcribe_* appended; 1.7: seam_emit_response_id,
                                 * seam_base64_encode */
#define SEAM_PLUGIN_ABI_VERSION ((uint32_t)((SEAM_PLUGIN_ABI_MAJOR << 16) | SEAM_PLUGIN_ABI_MINOR))
#define SEAM_PLUGIN_ABI_MAJOR_OF(v) ((unsigned)((v) >> 16))
#define SEAM_PLUGIN_ABI_MINOR_OF(v) ((unsigned)((v) & 0xffffu))

#if defined(__GNUC__)
#define SEAM_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define SEAM_PLUGIN_EXPORT
#endif

/* How the core frames a streamed response body before handing it to decode_event. */
typedef enum seam_framing {
    SEAM_FRAMING_SSE = 1, /* WHATWG server-sent events: one call per dispatched event */
    SEAM_FRAMING_NDJSON,  /* one call per non-empty line; event and id are NULL */
    SEAM_FRAMING_RAW      /* one call per received block of bytes */
} seam_framing;

/* One framed event. Borrowed for the duration of the call. `data` is
 * NUL-terminated and data_len excludes the terminator. */
typedef struct seam_frame {
    const char *event; /* SSE event type, NULL when the event had none */
    const char *data;
    size_t data_len;
    const char *id;    /* SSE last event id, NULL when none */
} seam_frame;

/* ---- what the core gives a provider ------------------------------------- */

/* A configured provider, as the conf file describes it. Borrowed for the
 * duration of `create`; copy what you keep. */
typedef struct seam_provider_config {
    uint32_t size;            /* sizeof of the core's struct: read members below it only */
    const char *name;         /* the conf name of the provider, e.g. "deepseek" */
    const char *base_url;     /* NULL when the conf gives none: use your default */
    const char *options_json; /* the conf's `options` group as a JSON object; never NULL */
} seam_provider_config;

/* The HTTP request a provider builds in encode. Opaque; set with the functions
 * below (each copies its arguments). */
typedef struct seam_http_request seam_http_request;

typedef enum seam_http_method { SEAM_HTTP_POST = 0, SEAM_HTTP_GET } seam_http_method;

SEAM_EXPORT int seam_http_request_set_url(seam_http_request *hr, const char *url);
SEAM_EXPORT int seam_http_request_set_method(seam_http_request *hr, seam_http_method m);
/* One header, "Name: value" split in two. A header holding the credential must
 * be added with seam_http_request_add_secret_header so that it is never logged. */
SEAM_EXPORT int seam_http_request_add_header(seam_http_request *hr, const char *name,
                                             const char *value);
/* value_prefix may be NULL or e.g. "Bearer "; the credential is appended by the
 * core. When the conf gives the provider no credential at all (a local server),
 * no header is added and SEAM_OK is returned. */
SEAM_EXPORT int seam_http_request_add_secret_header(seam_http_request *hr, const char *name,
                                                    const char *value_prefix);
/* The body is copied. */
SEAM_EXPORT int seam_http_request_set_body(seam_http_request *hr, const char *body, size_t len);
/* Takes ownership of a malloc'ed body (freed by the core with free()). */
SEAM_EXPORT int seam_http_request_take_body(seam_http_request *hr, char *body, size_t len);
/* A multipart/form-data body (ABI 1.6; an upload endpoint such as OpenAI's
 * /audio/transcriptions): each call appends one part, a field (name=value)
 * or a file (its bytes, a file name and a MIME type), all copied. The core
 * writes the body and its Content-Type header (with a boundary found in none
 * of the parts) after encode returns; a request with form parts takes no
 * other body. SEAM_ERR_INVALID for a name, file name or type holding a
 * quote, CR or LF (they would forge the part's headers); SEAM_ERR_NOMEM. */
SEAM_EXPORT int seam_http_request_add_form_field(seam_http_request *hr, const char *name,
                                                 const char *value);
SEAM_EXPORT int seam_http_request_add_form_file(seam_http_request *hr, const char *name,
                                                const char *filename, const char *mime_type,
                                                const void *data, size_t len);
/* Framing of a streamed answer; defaults to the vtable's `framing`. */
SEAM_EXPORT int seam_http_request_set_framing(seam_http_request *hr, seam_framing f);

/* A note about the request for the application (ABI 1.4), e.g. a provider
 * option the codec did not know and so did not send. The core hands each to
 * the client's log callback (seam_client_set_log) as a warning naming the
 * provider; nothing is printed and the request goes on. The message is
 * copied; it must not hold a credential. At most 32 are kept per request. */
SEAM_EXPORT int seam_http_request_warn(seam_http_request *hr, const char *message);

/* The provider-side cache of this attempt (ABI 1.4): the handle the core got
 * from cache_decode (or from the state store) for the request cache_encode
 * built, or NULL when none (no cache asked, or none could be made: encode then sends
 * the whole request). Borrowed from req. */
SEAM_EXPORT const char *seam_request_cache_handle(const seam_request *req);

/* Readers, for `serve` and for tests. */
SEAM_EXPORT const char *seam_http_request_url(const seam_http_request *hr);
SEAM_EXPORT const char *seam_http_request_body(const seam_http_request *hr, size_t *len);
/* The value of the first header named `name` (case-insensitive), NULL if none.
 * Secret headers read back as "<redacted>". */
SEAM_EXPORT const char *seam_http_request_header(const seam_http_request *hr, const char *name);
/* 1 when the request asks for a streamed answer. */
SEAM_EXPORT int seam_http_request_streaming(const seam_http_request *hr);

/* Response headers, for classify_error. Names compare case-insensitively. */
typedef struct seam_http_headers seam_http_headers;
SEAM_EXPORT const char *seam_http_headers_get(const seam_http_headers *h, const char *name);
SEAM_EXPORT size_t seam_http_headers_count(const seam_http_headers *h);
/* Borrowed; returns SEAM_ERR_INVALID past the end. */
SEAM_EXPORT int seam_http_headers_at(const seam_http_headers *h, size_t i, const char **name,
                                     const char **value);

/* Where decode puts its chunks. The chunk (and its strings) is copied by the
 * core during the call; returns SEAM_OK, or non-zero when the consumer wants the
 * stream to stop (cancel): return that value from decode at once. */
typedef struct seam_emitter seam_emitter;
SEAM_EXPORT int seam_emit(seam_emitter *em, const seam_chunk *chunk);
/* Media in an answer (ABI 1.2): the decoded bytes of base64[0..len) go into
 * the media store and the consumer gets a media_start chunk, a media_delta
 * with the byte count (1.5) and a media_end chunk whose text is the handle
 * ("media://sha256-...", with the length and duration): base64 never reaches
 * a chunk, a result or a log. id correlates the two (NULL: "media-N").
 * mime_type must be a bare type/subtype of a media modality. Returns SEAM_OK,
 * SEAM_ERR_PROVIDER with err filled (invalid base64, a bad MIME type: the
 * answer is malformed; a store that cannot be written), or the consumer's
 * non-zero cancel value, to be returned from decode as seam_emit's is. */
SEAM_EXPORT int seam_emit_media(seam_emitter *em, const char *id, const char *mime_type,
                                const char *base64, size_t len, seam_error *err);
/* Media in pieces (ABI 1.6): for media whose base64 arrives in fragments
 * (streamed audio), or that has a transcript. begin opens media `id` (not
 * NULL, unique among the media open on em) and the consumer gets media_start.
 * Each append hands over a fragment of the base64: it may end anywhere (a
 * group of four characters cut between two fragments is carried over), or be
 * a padded base64 text of its own; the core decodes it at once into the
 * media store and the consumer gets a media_delta with the progress, never the
 * characters. transcript hands over a piece of what is said (audio); the
 * consumer gets it as a media_delta's text, and the part keeps the whole.
 * end stores the bytes under their handle and the consumer gets media_end
 * with the handle. bytes_per_second: for raw PCM, whose bytes say nothing of
 * their rate, the bytes that play per second (OpenAI's pcm16, 24 kHz 16-bit
 * mono: 48000), so that the part gets its duration; 0 otherwise (a WAV header
 * is read for it). Media never ended (a cut stream) is dropped when the
 * transfer ends. Each returns SEAM_OK, SEAM_ERR_PROVIDER with err filled
 * (invalid base64, with the position but never the characters; a bad MIME
 * type; an unknown id; a store that cannot be written), or the consumer's
 * non-zero cancel value, to be returned from decode as seam_emit's is. */
SEAM_EXPORT int seam_emit_media_begin(seam_emitter *em, const char *id, const char *mime_type,
                                      int64_t bytes_per_second, seam_error *err);
SEAM_EXPORT int seam_emit_media_append(seam_emitter *em, const char *id, const char *base64,
                                       size_t len, seam_error *err);
SEAM_EXPORT int seam_emit_media_transcript(seam_emitter *em, const char *id, const char *text,
                                           seam_error *err);
SEAM_EXPORT int seam_emit_media_end(seam_emitter *em, const char *id, seam_error *err);
/* The provider's id for the answer, as soon as the stream names it (ABI 1.7):
 * the core puts it on the stream_start chunk, which goes out before the first
 * content. The first id given wins; the stop chunk still carries it (id).
 * Emits nothing. Returns SEAM_OK, SEAM_ERR_INVALID for a NULL argument. */
SEAM_EXPORT int seam_emit_response_id(seam_emitter *em, const char *id);

/* Where media_decode and media_poll_decode put what an answer says (ABI
 * 1.5). Media goes into the store at once: base64 or raw bytes in, a handle
 * in the result, never bytes. mime_type must be a bare type/subtype of a
 * media modality. Each returns SEAM_OK or SEAM_ERR_PROVIDER with err filled
 * (invalid base64, a bad MIME type: the answer is malformed; a store that
 * cannot be written), to be returned from the decoder. */
typedef struct seam_media_sink seam_media_sink;
SEAM_EXPORT int seam_media_sink_base64(seam_media_sink *s, const char *mime_type,
                                       const char *base64, size_t len, seam_error *err);
SEAM_EXPORT int seam_media_sink_bytes(seam_media_sink *s, const char *mime_type,
                                      const void *bytes, size_t len, seam_error *err);
/* The job is accepted or still running: the core polls again with ref (the
 * plugin's own text, at most 2048 printable bytes, kept in the job's
 * checkpoint; never shown as the job id), after its back-off, or at once
 * when fetch_now (the media is ready and ref fetches it). progress 0..1, or
 * -1 when the answer gives none. SEAM_ERR_INVALID for a bad ref. */
SEAM_EXPORT int seam_media_sink_pending(seam_media_sink *s, const char *ref, double progress,
                                        int fetch_now);
/* The length of the generated audio or video, for its media units. */
SEAM_EXPORT int seam_media_sink_seconds(seam_media_sink *s, double seconds);
/* Token usage the answer reports (OpenAI's image models). */
SEAM_EXPORT int seam_media_sink_usage(seam_media_sink *s, const seam_usage *usage);

/* The response a `serve` hook produces: what an HTTP server would have sent.
 * Pieces are played back in order, each after its delay; the core applies the
 * same framing, timeouts and cancellation as for a network transfer. */
typedef struct seam_served seam_served;
SEAM_EXPORT int seam_served_set_status(seam_served *s, int http_status);
SEAM_EXPORT int seam_served_add_header(seam_served *s, const char *name, const char *value);
SEAM_EXPORT int seam_served_add_piece(seam_served *s, const char *data, size_t len,
                                      unsigned delay_ms);
/* The connection drops after the pieces so far (a cut stream). */
SEAM_EXPORT int seam_served_cut(seam_served *s);

/* ---- the provider vtable ------------------------------------------------- */

typedef struct seam_provider_vtable {
    uint32_t abi_version; /* SEAM_PLUGIN_ABI_VERSION */
    uint32_t size;        /* sizeof(seam_provider_vtable) */
    const char *id;       /* provider id, unique among loaded plugins: "openai" */
    const char *description;
    seam_framing framing; /* of streamed answers */

    /* Per configured provider: parse cfg->options_json and keep what you need.
     * Returns an instance (may be any non-NULL pointer) or NULL with err filled. */
    void *(*create)(const seam_provider_config *cfg, seam_error *err);
    void (*destroy)(void *instance);

    /* request → HTTP request. `stream` is 1 for a streamed answer. Fill err
     * (kind bad_request) for a request this provider cannot express. */
    int (*encode)(void *instance, const seam_request *req, int stream, seam_http_request *out,
                  seam_error *err);

    /* Streaming decode: one decoder per transfer holds the stream's state. */
    void *(*decoder_new)(void *instance, const seam_request *req);
    void (*decoder_free)(void *decoder);
    /* One framed event → zero or more chunks. An error event inside a 200
     * stream is returned as SEAM_ERR_PROVIDER with err classified. */
    int (*decode_event)(void *decoder, const seam_frame *frame, seam_emitter *out,
                        seam_error *err);
    /* Optional: the body ended cleanly at the transport level; emit what is
     * pending (e.g. a stop chunk for a wire that has no end marker). If no stop
     * chunk has been emitted after this, the core ends the stream with a
     * transport error ("stream ended before the response was complete"). */
    int (*decode_finish)(void *decoder, seam_emitter *out, seam_error *err);

    /* A whole (non-streamed) 2xx body → the same chunks the stream would give. */
    int (*decode_response)(void *instance, const seam_request *req, const char *body,
                           size_t len, seam_emitter *out, seam_error *err);

    /* A non-2xx answer → a classified error. The core has already filled
     * http_status, retry_after_ms (from Retry-After / retry-after-ms) and a default
     * kind from the status; the plugin refines kind, code and message. */
    void (*classify_error)(void *instance, int http_status, const seam_http_headers *headers,
                           const char *body, size_t len, seam_error *err);

    /* Optional: capabilities of a model (fill what you know, leave the rest 0). */
    int (*capabilities)(void *instance, const char *model, seam_capabilities *caps);

    /* Optional: answer in-process instead of over the network. */
    int (*serve)(void *instance, const seam_http_request *req, seam_served *out,
                 seam_error *err);

    /* ---- ABI 1.1: appended; a 1.0 plugin's table ends above, so the core
     * sees NULL for these. ---- */

    /* Optional: embeddings (seam_embed). embed_encode turns er, whose model
     * the core has set, into the HTTP request of the provider's embedding
     * endpoint; a provider or model without one fills err (kind bad_request)
     * and fails, and the chain skips the entry. embed_decode reads the whole
     * 2xx body into `out`, which expects one vector per input of er:
     * seam_embeddings_set_vector for each, seam_embeddings_set_usage when the
     * body reports usage. The core checks that every input got a vector of
     * one length, and prices the usage. Both or neither. */
    int (*embed_encode)(void *instance, const seam_embed_request *er, seam_http_request *out,
                        seam_error *err);
    int (*embed_decode)(void *instance, const seam_embed_request *er, const char *body,
                        size_t len, seam_embeddings *out, seam_error *err);

    /* Optional: the provider's own count of a request's input tokens
     * (seam_count_tokens). encode builds the request to the count endpoint
     * for req's model, or fails (err filled) when this provider or model has
     * none: the core then estimates locally. decode reads the 2xx body into
     * *input_tokens (the whole input: cached tokens included). Both or
     * neither. */
    int (*count_tokens_encode)(void *instance, const seam_request *req, seam_http_request *out,
                               seam_error *err);
    int (*count_tokens_decode)(void *instance, const seam_request *req, const char *body,
                               size_t len, int64_t *input_tokens, seam_error *err);

    /* ---- ABI 1.4: appended. ---- */

    /* Optional: a prefix of the request that the provider keeps between
     * requests once a request of its own has created it (explicit context
     * caching: Gemini's cachedContents). Both or neither.
     * cache_encode builds the request that creates the prefix req would use,
     * or returns SEAM_ERR_NOT_FOUND (err untouched) when req asks for no such
     * cache. The core names the cache by a hash of that request (URL and
     * body) and looks it up in the client's state store (per provider and
     * key of its pool, shared by the processes that share the store): a live
     * handle there is used and nothing is sent. Otherwise it sends the request
     * and hands cache_decode the 2xx body, which fills handle (shorter than
     * handlesize) and *ttl_ms, its lifetime from now. The handle is kept until
     * shortly before then and reaches encode through
     * seam_request_cache_handle. A creation that fails costs the call
     * nothing: it is logged, encode runs without a handle, and a creation the
     * provider refused (a 4xx) is not asked again for that prefix for a
     * while. */
    int (*cache_encode)(void *instance, const seam_request *req, seam_http_request *out,
                        seam_error *err);
    int (*cache_decode)(void *instance, const seam_request *req, const char *body, size_t len,
                        char *handle, size_t handlesize, int64_t *ttl_ms, seam_error *err);

    /* ---- ABI 1.5: appended (media generation, seam_generate_media) ---- */

    /* Optional: media generation on a separate endpoint. media_encode turns
     * mr, whose model the core has set, into the HTTP request (a provider or
     * model without one fills err, kind bad_request, and fails: the chain
     * skips the entry). media_decode reads the whole 2xx body (JSON, or the
     * raw bytes of an audio endpoint) into out: the media
     * (seam_media_sink_base64 / _bytes) of a synchronous endpoint, or
     * seam_media_sink_pending with the ref of an accepted job. Both or neither. */
    int (*media_encode)(void *instance, const seam_media_request *mr, seam_http_request *out,
                        seam_error *err);
    int (*media_decode)(void *instance, const seam_media_request *mr, const char *body,
                        size_t len, seam_media_sink *out, seam_error *err);
    /* Optional, for asynchronous jobs: the request that asks after the job
     * ref (a GET: seam_http_request_set_method), and its 2xx answer into out:
     * pending (the same or a new ref), the media, or a failed job as
     * SEAM_ERR_PROVIDER with err classified (content_filter for a refusal).
     * The core decides nothing from the vendor's states. Both or neither. */
    int (*media_poll_encode)(void *instance, const char *ref, seam_http_request *out,
                             seam_error *err);
    int (*media_poll_decode)(void *instance, const char *ref, const char *body, size_t len,
                             seam_media_sink *out, seam_error *err);

    /* ---- ABI 1.6: appended (speech to text, seam_transcribe) ---- */

    /* Optional: speech to text (seam_transcribe). transcribe_encode turns tr,
     * whose bytes and model the core has filled in, into the HTTP request of
     * the provider's transcription endpoint (a multipart upload: the form
     * functions above; or a JSON body); a provider or model that cannot
     * transcribe fills err (kind bad_request) and fails, and the chain skips
     * the entry. transcribe_decode reads the whole 2xx body into `out`:
     * seam_transcription_set_text, and _set_usage / _set_seconds when the
     * body says. Both or neither. */
    int (*transcribe_encode)(void *instance, const seam_transcribe_request *tr,
                             seam_http_request *out, seam_error *err);
    int (*transcribe_decode)(void *instance, const seam_transcribe_request *tr,
                             const char *body, size_t len, seam_transcription *out,
                             seam_error *err);
} seam_provider_vtable;

/* ---- registration -------------------------------------------------------- */

typedef struct seam_registrar seam_registrar;

/* Registers a provider. The vtable must outlive the plugin (static storage).
 * Refused (SEAM_ERR_PLUGIN, with the reason recorded against the plugin file)
 * for a wrong ABI major, a size too small for the ABI's mandatory members, a
 * missing mandatory member, or an id already registered. */
SEAM_EXPORT int seam_registrar_add(seam_registrar *r, const seam_provider_vtable *vt);

/* ---- state backends: the second kind of plugin --------------------------- */

/* A state backend is the store several seam processes share: provider
 * cooldowns, the rate-limit guard's windows, key-pool leases and the
 * round-robin position, budget and rate counters, checkpoints. The core keeps
 * its own in-process store ("local") and names no backend: the conf's
 * state.backend names the id a plugin registers with seam_registrar_add_state
 * (the file <id>.so has first claim on it, as for providers).
 *
 * The core owns what the entries mean; a backend keeps named integers and
 * blobs, each with a time to live, and makes each operation below atomic
 * across every process using the store. A name is printable ASCII without
 * spaces ("cool:openai:0"); the backend puts cfg->prefix before it.
 *
 * Every operation returns SEAM_OK, or a negative status with err filled (kind
 * transport or timeout, never a password) when the store did not answer within
 * cfg->timeout_ms. No operation may block longer than that: the core then uses
 * its local store and asks the backend again about once a second. Operations
 * are called from any thread, concurrently, on one instance. */
typedef struct seam_state_config {
    uint32_t size;         /* sizeof of the core's struct: read members below it only */
    const char *host;      /* NULL: the backend's default */
    int port;              /* 0: the backend's default */
    const char *socket;    /* a unix socket path, or NULL for host and port */
    const char *password;  /* NULL: none. A secret: never in an error or a description */
    int db;                /* the database number (0 by default) */
    const char *prefix;    /* put before every name; never NULL */
    int64_t timeout_ms;    /* the longest any operation may take */
} seam_state_config;

typedef struct seam_state_vtable {
    uint32_t abi_version;  /* SEAM_PLUGIN_ABI_VERSION */
    uint32_t size;         /* sizeof(seam_state_vtable) */
    const char *id;        /* the conf's state.backend: "redis" */
    const char *description;

    /* An instance for cfg (borrowed during the call: copy what you keep), or
     * NULL with err filled for a configuration the backend cannot use. Must
     * not wait on the store longer than cfg->timeout_ms (connect lazily). */
    void *(*create)(const seam_state_config *cfg, seam_error *err);
    void (*destroy)(void *instance);
    /* Where the store is, for people ("redis 127.0.0.1:6379 db 0"), without
     * the password. */
    void (*describe)(void *instance, char *buf, size_t size);

    /* `name` exists for at least ttl_ms more: created, or its time to live
     * raised (never lowered). */
    int (*hold)(void *instance, const char *name, int64_t ttl_ms, seam_error *err);
    /* Removes `name` (absent is not an error). */
    int (*drop)(void *instance, const char *name, seam_error *err);
    /* The milliseconds each of names[0..n) has left in left_ms[i]; 0 when absent. */
    int (*left)(void *instance, const char *const *names, size_t n, int64_t *left_ms,
                seam_error *err);
    /* A counter: unless limit >= 0 and its value is already >= limit (then
     * *refused = 1 and nothing changes), adds delta. *value is the value after.
     * A counter created here lives ttl_ms; an existing one keeps its time. An
     * absent counter reads as 0, and delta 0 does not create it. */
    int (*add)(void *instance, const char *name, int64_t delta, int64_t limit, int64_t ttl_ms,
               int64_t *value, int *refused, seam_error *err);
    /* A binding: sets `name` to proposal when it is absent, or always when
     * force; *value is what it holds afterwards; its time to live is ttl_ms. */
    int (*bind)(void *instance, const char *name, int64_t proposal, int force, int64_t ttl_ms,
                int64_t *value, seam_error *err);
    /* A blob (a checkpoint): stored whole for ttl_ms; get gives a malloc'ed
     * copy (freed by the core with free()) or *data NULL when absent. */
    int (*put)(void *instance, const char *name, const void *data, size_t len, int64_t ttl_ms,
               seam_error *err);
    int (*get)(void *instance, const char *name, void **data, size_t *len, seam_error *err);
    /* Calls fn for up to `max` names beginning with prefix (without the
     * instance's own prefix): the integer it holds (0 for a hold or a blob)
     * and the milliseconds it has left. */
    int (*scan)(void *instance, const char *prefix, size_t max,
                void (*fn)(void *ud, const char *name, int64_t value, int64_t left_ms), void *ud,
                seam_error *err);
} seam_state_vtable;

/* Registers a state backend. The vtable must outlive the plugin (static
 * storage). Refused (SEAM_ERR_PLUGIN, with the reason recorded against the
 * plugin file) for a wrong ABI major, a missing member, or an id already
 * registered as a state backend. A plugin may register providers and state
 * backends alike. */
SEAM_EXPORT int seam_registrar_add_state(seam_registrar *r, const seam_state_vtable *vt);

#define SEAM_PLUGIN_DEFINE(init_fn)                                                        \
    SEAM_PLUGIN_EXPORT const uint32_t seam_plugin_abi = SEAM_PLUGIN_ABI_VERSION;           \
    SEAM_PLUGIN_EXPORT int seam_plugin_init(seam_registrar *r);                            \
    int seam_plugin_init(seam_registrar *r) { return init_fn(r); }

/* ---- helpers a codec commonly needs (implemented in libseam) ------------- */

/* Sets err to the kind a bare HTTP status implies (401/403 auth, 404
 * model_not_found, 408 and 504 timeout, 413 bad_request, 429 rate_limit,
 * other 5xx overloaded, other 4xx bad_request), keeping http_status and
 * retry_after_ms. */
SEAM_EXPORT void seam_error_from_http_status(seam_error *err, int http_status);
/* Copies at most sizeof(field)-1 bytes, always terminating; for seam_error fields. */
SEAM_EXPORT void seam_strlcpy(char *dst, const char *src, size_t dstsize);

#ifdef __cplusplus
}
#endif
#endif /* SEAM_PLUGIN_H */
