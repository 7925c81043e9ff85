/* internal.h — interfaces between libcore's modules. Nothing here is exported:
 * every symbol is hidden by -fvisibility=hidden. One section per module; each
 * module's .c file opens with a comment saying what it owns. */
#ifndef SEAM_INTERNAL_H
#define SEAM_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <seam/plugin.h>
#include <seam/seam.h>

/* ---- util.c: growable buffers and small string helpers ------------------- */

typedef struct seam_buf {
    char *data; /* always NUL-terminated when non-NULL */
    size_t len;
    size_t cap;
} seam_buf;

int seam_buf_append(seam_buf *b, const char *data, size_t len); /* SEAM_OK / SEAM_ERR_NOMEM */
int seam_buf_puts(seam_buf *b, const char *s);
int seam_buf_printf(seam_buf *b, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void seam_buf_reset(seam_buf *b);  /* len = 0, keeps memory */
void seam_buf_free(seam_buf *b);   /* frees and zeroes */
char *seam_strdup(const char *s);  /* NULL-safe: NULL -> NULL */
char *seam_strndup(const char *s, size_t n);
int seam_strcaseeq(const char *a, const char *b);
/* A duration in ms read from a header or a body (untrusted): the number v
 * times scale, rounded; -1 for NaN, infinities, negatives or more than 1e12 ms
 * (about 31 years), so that no cast from double is ever out of range. */
int64_t seam_ms_from_double(double v, double scale);
/* Monotonic milliseconds. */
int64_t seam_now_ms(void);
/* Wipes and frees a secret string. */
void seam_secret_free(char *s);

/* Bounds that keep usage and cost arithmetic inside int64: a count a server
 * reports is clamped to [0, SEAM_MAX_TOKENS] where the core receives it, and a
 * conf price (micro-cents per million tokens) is at most SEAM_MAX_PRICE, so
 * tokens x price / 1e6 summed over every line and attempt cannot overflow. */
#define SEAM_MAX_TOKENS ((int64_t)1000000000000)  /* 1e12 tokens */
#define SEAM_MAX_PRICE ((int64_t)100000000000000) /* $1,000,000 per million */

/* Clamps every count of u into [0, SEAM_MAX_TOKENS]. */
void seam_usage_sanitize(seam_usage *u);

/* ---- scrub.c: provider text made safe to hand on --------------------------- */

/* Appends in[0..len) to out with every trace of secret replaced by
 * "<redacted>": the whole secret, a masked echo of it (its first and/or last
 * characters around "***", "..." or "…"), and any run of 8 or more of its
 * characters (a secret cut short). Copies unchanged when secret is NULL or
 * shorter than 4. SEAM_OK or SEAM_ERR_NOMEM. */
int seam_scrub_secret(seam_buf *out, const char *in, size_t len, const char *secret);
/* The same on a buffer in place (the old bytes are wiped). */
int seam_scrub_secret_inplace(seam_buf *b, const char *secret);
/* How many leading bytes of s[0..len) are valid UTF-8. */
size_t seam_utf8_valid_prefix(const char *s, size_t len);
/* A malloc'ed copy of s with each byte of an invalid UTF-8 sequence replaced by
 * U+FFFD, or NULL when s is valid already (or on out of memory). */
char *seam_utf8_repair(const char *s);
/* Sets a fixed-size text field (of a seam_error) from src[0..len): invalid
 * UTF-8 becomes U+FFFD except a sequence cut at the very end, which is
 * dropped; the field is cut at a character boundary and never ends in part of
 * a "<redacted>" mark. */
void seam_text_field_set(char *dst, size_t size, const char *src, size_t len);
/* seam_scrub_secret, then seam_text_field_set, on e's message and code. */
void seam_scrub_error(seam_error *e, const char *secret);


/* ---- message.c / request.c ------------------------------------------------ */

/* Drops every reasoning part (and its signature) from every message: done before
 * a request crosses to a different provider. Returns the number removed. */
size_t seam_request_strip_reasoning(seam_request *req);
/* opts (its size checked by the caller; NULL: defaults) copied into *o, and,
 * when it names neither a chain nor a provider, the chain of role `role`,
 * else the chain called `role`: for the operations with chains of their own
 * (embeddings, media generation, transcription), which a chat chain would
 * not serve. `what` names the operation in the error when the conf has no
 * such chain: SEAM_ERR_NOT_FOUND, kind conf. call.c. */
int seam_op_call_options(seam_client *client, const seam_call_options *opts, const char *role,
                         const char *what, seam_call_options *o, seam_error *err);
/* The provider cache handle an attempt's request carries to its codec
 * (seam_request_cache_handle); NULL clears it. */
int seam_request_set_cache_handle(seam_request *req, const char *handle);
/* A view of req sharing its messages, tools and strings, with its own model
 * (model, or req's when NULL): for a call that reads the request while its
 * caller keeps it (seam_generate), or an attempt that changes only the model.
 * req must outlive the view and stay unchanged; seam_request_free frees only
 * the view. Nothing but the model may be set on it. NULL when out of memory. */
seam_request *seam_request_borrow(const seam_request *req, const char *model);
/* Part i of msg, mutable (NULL out of range): for de-inlining and handle
 * resolution, which rewrite a media part's source in place. */
seam_part *seam_message_part_mut(seam_message *msg, size_t i);
/* A media part's source becomes a handle (byte_length recorded) / base64 (the
 * string is taken over). SEAM_OK, SEAM_ERR_NOMEM or SEAM_ERR_INVALID. */
int seam_part_set_media_handle(seam_part *p, const char *handle, int64_t byte_length);
int seam_part_set_media_base64(seam_part *p, char *base64_owned);

/* ---- media.c: the MIME check, base64 and the intake limits ----------------- */

typedef struct seam_conf_media seam_conf_media; /* below, with the conf */

#define SEAM_MEDIA_DEFAULT_INLINE_IMAGE ((int64_t)256 * 1024)
#define SEAM_MEDIA_DEFAULT_INLINE_AUDIO ((int64_t)256 * 1024)
#define SEAM_MEDIA_DEFAULT_INLINE_VIDEO 0
#define SEAM_MEDIA_DEFAULT_INLINE_DOCUMENT 0
#define SEAM_MEDIA_DEFAULT_MAX_PARTS 16
#define SEAM_MEDIA_DEFAULT_MAX_MESSAGE_BYTES ((int64_t)1024 * 1024)
/* The limits with every default filled in. */
seam_conf_media seam_media_limits(const seam_conf_media *conf);

/* The one MIME check of every position: a bare type/subtype of RFC 6838
 * restricted-name characters, at most 255 bytes, no parameters. Returns the
 * modality (SEAM_MODALITY_*), or 0 with err (bad_request) naming what is wrong
 * — where names the position ("message 1 part 2"). */
uint32_t seam_media_mime_check(const char *mime, const char *where, seam_error *err);
/* The modality of a MIME type already checked (0: none a part can carry). */
uint32_t seam_media_modality(const char *mime);
/* 1 when s is "media://sha256-" and 64 lowercase hex digits. */
int seam_media_handle_valid(const char *s);
/* result.c: seconds of generated audio or video, a media_units entry (mediagen.c). */
int seam_result_add_media_seconds(seam_result *res, uint32_t modality, double seconds);
/* A WAV file's layout from its first head_len bytes: the byte rate, where
 * its samples start and their size (0: not said, or a streamed file's
 * placeholder); 0 when they are not a WAV header with both chunks. */
int seam_wav_layout(const unsigned char *head, size_t head_len, uint32_t *rate, size_t *data_at,
                    uint32_t *data_size);
/* The duration in ms of a WAV file of total bytes whose first head_len are
 * at d; -1 when it cannot be told. */
int64_t seam_wav_duration_ms(const unsigned char *d, size_t head_len, int64_t total);
/* The 6-bit value of a base64 alphabet character, -1 for any other. */
int seam_base64_value(unsigned char c);
/* Standard base64 (RFC 4648 §4, padded): the decoded length, or -1 when s is
 * not valid base64. */
int64_t seam_base64_decoded_len(const char *s, size_t len);
/* Decodes s (valid, as checked above) into a malloc'ed buffer; NULL on
 * invalid input or allocation failure. */
unsigned char *seam_base64_decode(const char *s, size_t len, size_t *out_len);
/* The intake limits applied to every media part of req: MIME check, base64
 * validity, the inline ceiling per modality in decoded bytes, the count and
 * aggregate caps per message. SEAM_OK, or SEAM_ERR_INVALID with err
 * (bad_request) naming the limit and the value. */
int seam_media_intake(const seam_request *req, const seam_conf_media *limits, seam_error *err);
/* The modalities of the media parts of req (SEAM_MODALITY_* bits). */
uint32_t seam_media_request_inputs(const seam_request *req);

/* ---- sha256.c / mediastore.c ------------------------------------------------ */

void seam_sha256(const void *data, size_t len, unsigned char out[32]);
/* The same, fed in pieces. */
typedef struct seam_sha256_ctx {
    uint32_t h[8];
    uint64_t len;
    unsigned char buf[64];
    size_t n;
} seam_sha256_ctx;
void seam_sha256_init(seam_sha256_ctx *c);
void seam_sha256_update(seam_sha256_ctx *c, const void *data, size_t len);
void seam_sha256_final(seam_sha256_ctx *c, unsigned char out[32]);
/* An incremental writer into the media store (mediastore.c): bytes go to a
 * temporary file as they come and are hashed on the way; commit renames the
 * file to its content address. With a NULL client nothing is written, the
 * handle is only computed (decoders under test). free after commit or to
 * abandon it (the temporary file is removed). */
typedef struct seam_media_writer seam_media_writer;
seam_media_writer *seam_media_writer_new(seam_client *client, seam_error *err);
int seam_media_writer_write(seam_media_writer *w, const void *data, size_t len, seam_error *err);
int seam_media_writer_commit(seam_media_writer *w, char handle[SEAM_MEDIA_HANDLE_SIZE],
                             seam_error *err);
void seam_media_writer_free(seam_media_writer *w);
/* Every handle part of req (a copy about to be encoded) becomes base64 of the
 * stored bytes: codecs see bytes, never the store. */
int seam_media_resolve_handles(seam_client *client, seam_request *req, seam_error *err);
/* The stored bytes of handle, malloc'ed (at most 1 GiB). */
int seam_media_read(seam_client *client, const char *handle, unsigned char **out, size_t *len,
                    seam_error *err);
/* ---- tokens.c: the local token estimate (seam_estimate_tokens) ---------------- */

/* Tokens of a text by the estimate's rules (0 for NULL). */
int64_t seam_tokens_text(const char *text);
/* Tokens of a message's parts, without the message's own framing. */
int64_t seam_tokens_parts(const seam_message *m);
/* Tokens of a message in a request: its parts and its framing. */
int64_t seam_tokens_message(const seam_message *m);

/* Keeps only the tools named in `names` (comma-separated): a step's active
 * tools. Returns the number of tools kept. */
size_t seam_request_retain_tools(seam_request *req, const char *names);
/* ---- jsonparse.c: JSON text, an allocation failure told from invalid text ---- */

/* The nesting limit of JSON seam takes from callers: deep enough for any real
 * JSON Schema; json-c's default of 32 is not. */
#define SEAM_JSON_MAX_DEPTH 512
struct json_object;
/* Parses text with json-c (flags: JSON_TOKENER_*) into *out (caller puts it;
 * NULL for the literal null). SEAM_OK, SEAM_ERR_INVALID when text is not JSON,
 * SEAM_ERR_NOMEM when memory ran out (never reported as invalid). */
int seam_json_parse(const char *text, int flags, int max_depth, struct json_object **out);
/* Strict, UTF-8-validated JSON (and, when want_object, a JSON object):
 * SEAM_OK, SEAM_ERR_INVALID or SEAM_ERR_NOMEM. */
int seam_json_check(const char *text, int want_object);
/* o printed by json-c (flags: JSON_C_TO_STRING_*), malloc'ed; NULL when memory
 * ran out (json-c's printer would otherwise return a text short a piece). */
char *seam_json_print(struct json_object *o, int flags);
/* seam_json_check() == SEAM_OK: for checks (the fuzzers', the tests') where
 * running out of memory cannot be taken for a verdict on the text. */
int seam_json_is_valid(const char *text, int want_object);
/* The allocation-free RFC 8259 scanner behind them: 1 when text is one JSON
 * value nested less than max_depth deep; *n_values counts its values and *top
 * is its first character (either may be NULL). */
int seam_json_scan(const char *text, int validate_utf8, int max_depth, size_t *n_values,
                   char *top);

/* What the accumulator (result.c) and strip_reasoning need beyond the public
 * message API. Each acts on part i of msg and returns SEAM_OK, SEAM_ERR_NOMEM or
 * SEAM_ERR_INVALID (i out of range, wrong part type, bad JSON), changing nothing
 * on failure. */
int seam_message_append_part_text(seam_message *msg, size_t i, const char *text, size_t len);
/* reasoning: sets the signature (NULL clears it) and the redacted flag. */
int seam_message_set_part_signature(seam_message *msg, size_t i, const char *signature,
                                    int redacted);
/* tool_call: replaces the arguments (a JSON object; NULL or "" means {}). */
int seam_message_set_part_args(seam_message *msg, size_t i, const char *args_json);
/* tool_call, tool_result: marks the part as run on the provider's side. */
int seam_message_set_part_provider_executed(seam_message *msg, size_t i, int provider_executed);
/* Drops every reasoning part of msg; returns how many. */
size_t seam_message_strip_reasoning(seam_message *msg);

/* ---- sse.c: response framing (SSE, NDJSON, raw) ---------------------------- */

typedef struct seam_framer seam_framer;
/* Called per dispatched frame; a non-zero return stops feeding and is returned
 * by seam_framer_feed. */
typedef int (*seam_frame_cb)(void *ud, const seam_frame *frame);

/* max_event_bytes bounds one event's buffered data (0: 16 MiB); an event past it
 * makes feed return SEAM_ERR_INVALID. NULL on allocation failure. */
seam_framer *seam_framer_new(seam_framing kind, size_t max_event_bytes, seam_frame_cb cb,
                             void *ud);
/* Feeds bytes cut anywhere. Returns SEAM_OK, the callback's non-zero value, or
 * SEAM_ERR_INVALID / SEAM_ERR_NOMEM. */
int seam_framer_feed(seam_framer *f, const char *data, size_t len);
/* End of body: NDJSON dispatches a last unterminated line; SSE discards an
 * incomplete event (WHATWG). Returns like feed. */
int seam_framer_finish(seam_framer *f);
void seam_framer_free(seam_framer *f);

/* ---- config.c: the conf file and its conf.d/ drop-ins -------------------- */

typedef struct seam_conf_backoff {
    int64_t base_ms;   /* default 500 */
    int64_t max_ms;    /* default 20000 */
    double jitter;     /* fraction of base, default 0.1 */
} seam_conf_backoff;

typedef struct seam_conf_entry {
    char *provider;
    char *model;
    int max_attempts;  /* default 1 */
    seam_conf_backoff backoff;
} seam_conf_entry;

typedef struct seam_conf_chain {
    char *name;
    seam_conf_entry *entries;
    size_t n_entries;
    int64_t retry_after_cap_ms;  /* default 60000 */
    int64_t cooldown_ms;         /* default 30000 */
    char *context_overflow_fallback; /* chain name or NULL */
    char *content_filter_fallback;   /* chain name or NULL */
    unsigned failover_on;        /* SEAM_FAILOVER_* bits: fatal errors that move on to
                                  * the next entry of another provider; 0 by default */
    char *file;                  /* where defined */
    int line;
} seam_conf_chain;

/* failover_on: one bit per seam_error_kind (1u << kind), and one for a quota
 * error (a rate_limit the provider says waiting will not fix: out of credit). */
#define SEAM_FAILOVER_KIND(kind) (1u << (unsigned)(kind))
#define SEAM_FAILOVER_QUOTA (1u << 31)

typedef struct seam_conf_provider {
    char *name;
    char *plugin;           /* defaults to name */
    char *base_url;         /* NULL: plugin default */
    char *api_key_env;
    char *api_key_file;
    char *api_key_command;
    char *api_key;          /* inline */
    int64_t timeout_ms;         /* default 600000 */
    int64_t connect_timeout_ms; /* default 10000 */
    int64_t idle_timeout_ms;    /* default 60000 */
    int64_t max_response_bytes; /* default 64 MiB */
    char *options_json;     /* the `options` group as JSON text; "{}" when absent */
    char *file;             /* where defined */
    int line;
    /* Key pool (issue 6): keys beyond the single one named above. */
    char **api_keys_env;
    size_t n_api_keys_env;
    char **api_key_files;   /* resolved paths */
    size_t n_api_key_files;
    char **api_key_commands;
    size_t n_api_key_commands;
    int key_selection;      /* seam_key_selection, default round robin */
    int rate_limit_guard;   /* seam_ratelimit_guard, default rotate */
    int64_t api_key_ttl_ms; /* 0: a resolved key does not expire (unless its command says so) */
    int64_t api_key_command_timeout_ms; /* default 30000; never more than timeout_ms */
    char *ca_file;          /* CA bundle to trust (resolved path), NULL: the system's */
    char *ca_path;          /* directory of hashed CA certificates, NULL: the system's */
    char *default_model;    /* the model of a call naming this provider and none, NULL: none */
} seam_conf_provider;

#define SEAM_DEFAULT_KEY_COMMAND_TIMEOUT_MS 30000

typedef enum seam_key_selection {
    SEAM_KEYS_ROUND_ROBIN = 0,
    SEAM_KEYS_STICKY
} seam_key_selection;

typedef enum seam_ratelimit_guard {
    SEAM_GUARD_ROTATE = 0, /* pass over an exhausted key; skip the entry when all are */
    SEAM_GUARD_WAIT,       /* wait for the key's window to reset (up to retry_after_cap_ms) */
    SEAM_GUARD_OFF
} seam_ratelimit_guard;

/* Capability bits of a catalog entry (seam_conf_model.capabilities). */
enum {
    SEAM_CAP_TOOLS = 1u << 0,
    SEAM_CAP_STREAMING = 1u << 1,
    SEAM_CAP_PARALLEL_TOOL_CALLS = 1u << 2,
    SEAM_CAP_VISION = 1u << 3,
    SEAM_CAP_AUDIO_INPUT = 1u << 4,
    SEAM_CAP_PDF_INPUT = 1u << 5,
    SEAM_CAP_PROMPT_CACHE = 1u << 6,
    SEAM_CAP_REASONING = 1u << 7,
    SEAM_CAP_STRUCTURED_OUTPUT = 1u << 8,
    SEAM_CAP_EMBED = 1u << 9,
    SEAM_CAP_VIDEO_INPUT = 1u << 10
};

/* One model of the catalog (the shipped models.conf or a `models` entry of the
 * user's conf). Prices are integer micro-cents per million tokens. */
typedef struct seam_conf_model {
    char *id;
    char *provider;           /* plugin id or conf provider name; NULL: any provider */
    int64_t context_window;   /* tokens; 0 unknown */
    int64_t max_output_tokens;/* tokens; 0 unknown */
    int has_capabilities;     /* `capabilities` was given */
    uint32_t capabilities;    /* SEAM_CAP_* */
    uint32_t outputs[8];      /* output combinations (SEAM_MODALITY_* sets), `outputs` */
    uint32_t n_outputs;
    int priced;               /* `price` was given (input and output at least) */
    int64_t price_input;
    int64_t price_output;
    int64_t price_cache_read;  /* -1: billed at the input price */
    int64_t price_cache_write; /* -1: billed at the input price */
    int from_catalog;         /* 1: the shipped catalog; 0: the user's conf (takes precedence) */
    char *file;
    int line;
} seam_conf_model;

typedef struct seam_conf_role {
    char *name;
    char *chain;
    char *file;             /* where defined */
    int line;
} seam_conf_role;

/* A tool the application runs as a shell command (`tools = { NAME = {...}; }`):
 * the library only reads and checks it; running it is the application's
 * choice (the seam CLI does, with --tools). */
typedef struct seam_conf_tool {
    char *name;
    char *description;
    char *parameters_json;  /* a JSON Schema object as text; NULL: not given */
    char *command;          /* run with /bin/sh -c */
    int64_t timeout_ms;     /* 0: not given (the application's default) */
    char *file;             /* where defined */
    int line;
} seam_conf_tool;

/* The `state` section: where cooldowns, key leases, rate-limit windows and
 * budgets live (state.c). Backend NULL: the in-process store only. */
typedef struct seam_conf_state {
    char *backend;          /* NULL for "local"; else a state backend plugin id ("redis") */
    char *host;             /* NULL: the backend's default */
    int port;               /* 0: the backend's default */
    char *socket;           /* a unix socket path, instead of host and port */
    char *password;         /* inline (discouraged); or one of: */
    char *password_env;     /* ...an environment variable */
    char *password_file;    /* ...the first line of a file */
    int db;
    char *prefix;           /* NULL: "seam:" */
    int64_t timeout_ms;     /* 0: 50 */
    char *file;             /* where the backend was chosen, for messages */
    int line;
} seam_conf_state;
/* The intake limits (conf `media`), -1 in a field meaning "the default". */
typedef struct seam_conf_media {
    char *store;                  /* NULL: $XDG_DATA_HOME/seam/media */
    int64_t inline_image_bytes;   /* decoded bytes of one base64 image part */
    int64_t inline_audio_bytes;
    int64_t inline_video_bytes;
    int64_t inline_document_bytes;
    int64_t max_parts;            /* media parts in one message */
    int64_t max_message_bytes;    /* decoded inline bytes of one message */
    int allow_private_urls;       /* seam_media_fetch may reach private addresses */
    int fetch_urls;               /* seam_message_add_media_url fetches and stores */
    /* Asynchronous generation jobs (mediajob.c); 0: the default. */
    int64_t job_poll_ms;          /* the first wait between polls */
    int64_t job_poll_max_ms;      /* the back-off's ceiling */
    int64_t job_deadline_ms;      /* a job's whole life */
} seam_conf_media;

typedef struct seam_conf {
    char *path;             /* main file, NULL for an empty conf */
    char *base_path;        /* the system conf path overlays, NULL when none */
    char *cli_json;         /* the `cli` group as a JSON object, NULL when absent */
    char **plugin_path;
    size_t n_plugin_path;
    seam_conf_provider *providers;
    size_t n_providers;
    seam_conf_chain *chains;
    size_t n_chains;
    seam_conf_role *roles;
    size_t n_roles;
    char **warnings;        /* e.g. inline api_key in a group/other-readable file */
    size_t n_warnings;
    seam_conf_model *models;/* the user's entries first, then the catalog's */
    size_t n_models;
    char *model_catalog;    /* the catalog file read, NULL when none */
    seam_conf_tool *tools;  /* in the order defined (main file, then conf.d/) */
    size_t n_tools;
    seam_conf_state state;
    seam_conf_media media;  /* intake limits and the store (-1: default) */
} seam_conf;

/* The conf path to use: explicit if non-NULL, else $SEAM_CONF, else
 * $XDG_CONFIG_HOME/seam/seam.conf (XDG default ~/.config), else installed_path,
 * each only if it exists (explicit and $SEAM_CONF must exist: SEAM_ERR_CONF).
 * *out is malloc'ed, or NULL when no file was found. */
int seam_conf_find(const char *explicit_path, const char *installed_path, char **out,
                   seam_error *err);
/* Loads path (NULL: an empty conf) and merges the *.conf files of the conf.d/
 * directory beside it, in name order. A syntax error, a wrong type or a name
 * defined twice fails with SEAM_ERR_CONF and err->message "FILE:LINE: what".
 * A chain entry naming a provider no file defines is a warning (the entry
 * is skipped at run time); a role naming an unknown chain is an error. */
int seam_conf_load(const char *path, seam_conf **out, seam_error *err);
/* The key stored for provider `name` by `seam keys set` (stored_key.c):
 * SEAM_OK with *out malloc'ed (free with seam_secret_free),
 * SEAM_ERR_NO_CREDENTIAL when none is stored, SEAM_ERR_NOMEM. */
int seam_stored_key(const char *name, char **out);
/* As seam_conf_load, but path (the personal conf) overlays base (the system
 * conf; NULL: none): base and its conf.d/ are read first, then path and its
 * conf.d/, whose providers, chains, roles, tools and model entries add to
 * base's or replace them by name (conf_overlay.c decides when). */
int seam_conf_load_overlay(const char *base, const char *path, seam_conf **out, seam_error *err);
/* Finds the conf (seam_conf_find) and loads it: a personal conf found in
 * $XDG_CONFIG_HOME overlays the system one ($SEAM_SYSTEM_CONF, else
 * installed_path) when that exists; an explicit path or $SEAM_CONF is read
 * alone. *out is NULL-free on success (an empty conf when none was found). */
int seam_conf_open(const char *explicit_path, const char *installed_path, seam_conf **out,
                   seam_error *err);
void seam_conf_free(seam_conf *conf);
const seam_conf_provider *seam_conf_find_provider(const seam_conf *c, const char *name);
const seam_conf_chain *seam_conf_find_chain(const seam_conf *c, const char *name);
const seam_conf_tool *seam_conf_find_tool(const seam_conf *c, const char *name);
/* The catalog entry for `model` as served by the provider named provider_name
 * (plugin plugin_id): the entry of that exact id, else of the longest base id
 * it is a snapshot or alias of ("-YYYYMMDD", "-YYYY-MM-DD", "-latest", "-0");
 * then an entry naming the conf provider beats one naming the plugin, which
 * beats one naming no provider; the user's entries beat the catalog's. NULL
 * when the model is unknown. */
const seam_conf_model *seam_conf_find_model(const seam_conf *c, const char *provider_name,
                                            const char *plugin_id, const char *model);

/* ---- credential.c ---------------------------------------------------------- */

/* Resolves the provider's credential: api_key_env, api_key_file (first line,
 * trimmed), api_key_command (stdout, first line, trimmed), api_key, in that order
 * of preference among those configured. Returns SEAM_OK with *out malloc'ed (free
 * with seam_secret_free), SEAM_OK with *out NULL when none is configured at all,
 * or SEAM_ERR_NO_CREDENTIAL with err filled (never holding the secret) when one is
 * configured but unavailable (unset variable, unreadable file, failing command). */
int seam_credential_resolve(const seam_conf_provider *p, char **out, seam_error *err);
/* A description such as "env OPENAI_API_KEY" (static or borrowed from p); for
 * a pool, "pool of N keys (env K1, env K2, ...)". */
const char *seam_credential_source(const seam_conf_provider *p);

/* One source of a provider's key pool; value is borrowed from the provider conf. */
typedef enum seam_cred_kind {
    SEAM_CRED_ENV = 1,
    SEAM_CRED_FILE,
    SEAM_CRED_COMMAND,
    SEAM_CRED_INLINE
} seam_cred_kind;

typedef struct seam_cred_source {
    seam_cred_kind kind;
    const char *value;
} seam_cred_source;

/* The provider's key pool, in order: its single key (the one
 * seam_credential_resolve would use), then api_keys_env, api_key_files,
 * api_key_commands. *out is malloc'ed (free()), *n may be 0 (no credential). */
int seam_credential_pool(const seam_conf_provider *p, seam_cred_source **out, size_t *n);
/* Resolves one source like seam_credential_resolve. A command runs in a
 * process group of its own for at most api_key_command_timeout_ms (capped by
 * timeout_ms); that timeout, or a trigger of cancel (may be NULL), ends the
 * whole group at once (err kind cancelled for a cancel). *expires_in_ms (if non-NULL)
 * is set from an `expires_in=SECONDS` or `expires_at=UNIX_SECONDS` line a
 * command printed after the key, else -1. */
int seam_credential_resolve_source(const seam_conf_provider *p, const seam_cred_source *src,
                                   char **out, int64_t *expires_in_ms, seam_cancel *cancel,
                                   seam_error *err);

/* ---- loop.c, session.c, executor.c: generation with tools -------------------- */

/* One tool call to run. The caller fills the first half; seam_tools_run fills
 * the rest. A job with fn NULL and result_json already set is passed through
 * (unknown tool, invalid arguments). */
typedef struct seam_tool_job {
    const char *id, *name, *args_json; /* borrowed from the call part */
    seam_tool_fn fn;                   /* NULL: result already set */
    void *ud;
    int can_pause;                     /* executor handlers only */
    char *result_json;                 /* malloc'ed JSON text */
    int is_error;
    int paused;
    char *pause_prompt;                /* malloc'ed, may be NULL */
    int64_t started_ms, finished_ms;   /* monotonic */
} seam_tool_job;

/* A JSON Schema with its patterns compiled (jsonschema.c): built once, then
 * validated against from any number of threads at once. */
typedef struct seam_compiled_schema seam_compiled_schema;
/* Parses schema_json and compiles its patterns. SEAM_OK and *out (free with
 * seam_compiled_schema_free); SEAM_ERR_INVALID with msg "invalid schema: ..."
 * when it is not JSON or a pattern is refused (the message names the pattern
 * and the offset); SEAM_ERR_NOMEM. */
int seam_compiled_schema_new(const char *schema_json, seam_compiled_schema **out, char *msg,
                             size_t msgsize);
/* As seam_schema_validate, with the schema compiled already. */
int seam_compiled_schema_validate(const seam_compiled_schema *cs, const char *instance_json,
                                  char *msg, size_t msgsize);
void seam_compiled_schema_free(seam_compiled_schema *cs);

/* Looks a tool up: 1 when ts defines it (*fn NULL for a passive tool; *schema
 * NULL when its arguments are not validated). */
int seam_toolset_find(const seam_toolset *ts, const char *name, seam_tool_fn *fn, void **ud,
                      const seam_compiled_schema **schema);
/* Adds the definitions of ts that req does not define yet. */
int seam_toolset_add_to_request(const seam_toolset *ts, seam_request *req);
/* 1 when req defines a tool named name (tools.c). */
int seam_request_defines_tool(const seam_request *req, const char *name);
/* Sets an error result on a job (fn cleared): "message" as a JSON string. */
int seam_tool_job_fail(seam_tool_job *job, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Resolves a job against ts: unknown tool and arguments failing the schema
 * become error results; 1 when the tool is passive (nothing set), 0 when
 * resolved, SEAM_ERR_NOMEM when memory ran out (checking the arguments or
 * writing the error result): never an "invalid arguments" result then. */
int seam_tool_job_prepare(seam_tool_job *job, const seam_toolset *ts);
/* Runs the jobs on up to max_parallel worker threads (0: one per job) and joins
 * every worker. A cancel of `cancel` or the monotonic deadline_ms (0: none)
 * triggers the tools' own cancel token; the call still waits for every job.
 * Returns SEAM_OK, or SEAM_ERR_PROVIDER with err CANCELLED / TIMEOUT when the
 * run was interrupted (results are filled either way). */
int seam_tools_run(seam_tool_job *jobs, size_t n, int max_parallel, seam_cancel *cancel,
                   int64_t deadline_ms, int step, seam_error *err);
void seam_tool_job_release(seam_tool_job *job);
/* A JSON string literal for text (malloc'ed), NULL when out of memory. */
char *seam_json_quote(const char *text);

/* session.c: the state an executor keeps in its session. */
int seam_session_set_pending(seam_session *s, const char *call_id, const char *name,
                             const char *prompt);
/* seam_session_send (req NULL) or seam_session_send_request (req set) under
 * a deadline on seam_now_ms's clock (0: none): each attempt's timeout is cut
 * to what is left and no retry waits past it; a call the deadline ends fails
 * with kind timeout. */
int seam_session_send_by(seam_session *s, const seam_request *req, const seam_send_options *o,
                         int64_t deadline_ms, seam_result **out, seam_error *err);

/* The thread id of the session's history (borrowed until it changes). */
const char *seam_session_thread_id(const seam_session *s);

/* history.c: empties this handle in place, without allocating (for the
 * owner of a handle nobody else sees, when an operation ran out of memory). */
void seam_history_empty_handle(seam_history *h);

#endif /* SEAM_INTERNAL_H */
