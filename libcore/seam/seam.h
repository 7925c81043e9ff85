/* seam/seam.h — the application API of libseam: the client (conf + plugins),
 * blocking generate, the pull iterator for streams, cancel tokens, and the
 * introspection the `seam` command uses (plugins, providers, conf check).
 *
 * The conventions of <seam/types.h> hold here: opaque handles with _new/_free,
 * borrowed `const char *` results, SEAM_OK or a negative seam_status, and a
 * caller-provided seam_error that is filled on failure. The library never
 * prints, never exits and never aborts on bad input.
 */
#ifndef SEAM_SEAM_H
#define SEAM_SEAM_H

#include <poll.h>
#include <seam/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SEAM_VERSION_MAJOR 0
#define SEAM_VERSION_MINOR 1
#define SEAM_VERSION_PATCH 0

/* The library's version string, e.g. "0.1.0". */
SEAM_EXPORT const char *seam_version(void);

/* The SHA-256 of the len bytes at data (NULL when len is 0) written to hex as
 * 64 lowercase hex digits and a NUL: what `sha256sum` prints. The caller owns
 * hex (65 bytes). */
SEAM_EXPORT void seam_sha256_hex(const void *data, size_t len, char hex[65]);

/* ---- cancel tokens ------------------------------------------------------- */

/* A cancel token may be shared by any number of calls and cancelled from any
 * thread (or a signal handler: seam_cancel_trigger only stores and writes to a
 * pipe). Cancelling aborts every in-flight transfer using it at once. */
typedef struct seam_cancel seam_cancel;
SEAM_EXPORT seam_cancel *seam_cancel_new(void);
SEAM_EXPORT void seam_cancel_free(seam_cancel *c);
SEAM_EXPORT void seam_cancel_trigger(seam_cancel *c);
SEAM_EXPORT int seam_cancel_triggered(const seam_cancel *c);

/* ---- the client ---------------------------------------------------------- */

typedef struct seam_client seam_client;

typedef struct seam_client_options {
    uint32_t size;          /* sizeof(seam_client_options) */
    const char *conf_path;  /* NULL: $SEAM_CONF, $XDG_CONFIG_HOME/seam/seam.conf,
                             * ~/.config/seam/seam.conf, then the installed seam.conf */
    int no_default_plugin_dirs; /* 1: load only $SEAM_PLUGIN_PATH and plugin_path */
} seam_client_options;

/* Loads the conf (and its conf.d/ drop-ins), records the plugin files found
 * (none is opened: a provider's plugin is loaded on the provider's first use),
 * and returns the client in *out. A plugin that is refused does not fail the
 * client: see seam_client_plugin_*. Fails with SEAM_ERR_CONF (err names file:line and what
 * was expected) for a broken conf. opts may be NULL. Thread-safe once created:
 * one client serves every thread of a process. Free with seam_client_free(). */
SEAM_EXPORT int seam_client_new(const seam_client_options *opts, seam_client **out,
                                seam_error *err);
SEAM_EXPORT void seam_client_free(seam_client *client);
/* The conf file in use, NULL when none was found (an empty conf is used). */
SEAM_EXPORT const char *seam_client_conf_path(const seam_client *client);

/* Plugins seen by the loader, loaded or refused, in load order. */
typedef struct seam_plugin_info {
    const char *file;        /* full path */
    uint32_t abi_version;    /* as the plugin declares it; 0 when unreadable */
    int loaded;              /* 1 loaded, 0 refused */
    const char *reason;      /* why refused; for a loaded plugin, NULL or which of
                              * its providers were refused (e.g. a duplicate id) */
    const char *provider_ids;/* comma-separated ids it registered ("" if none) */
} seam_plugin_info;
/* The number of plugin files found. Listing loads every plugin not loaded
 * yet, so that each is reported loaded or refused with its reason. */
SEAM_EXPORT size_t seam_client_plugin_count(const seam_client *client);
/* Fills *info with borrowed strings (valid until seam_client_free);
 * SEAM_ERR_INVALID past the end. */
SEAM_EXPORT int seam_client_plugin_at(const seam_client *client, size_t i,
                                      seam_plugin_info *info);

/* Configured providers. */
typedef struct seam_provider_info {
    const char *name;        /* conf name */
    const char *plugin;      /* plugin provider id it uses */
    const char *base_url;    /* NULL: the plugin's default */
    int plugin_loaded;       /* 1 when a loaded plugin registered `plugin` */
    int has_credential;      /* 1 credential configured and resolvable, or not needed */
    const char *credential_source; /* "env OPENAI_API_KEY", "file ...", "command", "inline", "none" */
} seam_provider_info;
SEAM_EXPORT size_t seam_client_provider_count(const seam_client *client);
SEAM_EXPORT int seam_client_provider_at(const seam_client *client, size_t i,
                                        seam_provider_info *info);

/* The capabilities of `model` on configured provider `provider`, as its plugin
 * reports them (fields it does not know stay 0). Set caps->size to
 * sizeof(seam_capabilities) before the call. SEAM_ERR_NOT_FOUND when the
 * provider is not configured or its plugin is not loaded. */
SEAM_EXPORT int seam_client_capabilities(const seam_client *client, const char *provider,
                                         const char *model, seam_capabilities *caps,
                                         seam_error *err);

/* The model catalog: the conf's `models` entries, then the shipped catalog's
 * (see seam.conf(5), MODEL CATALOG). Set info->size to sizeof(seam_model_info)
 * before the call; strings are borrowed from the client. */
typedef struct seam_model_info {
    uint32_t size;
    const char *id;
    const char *provider;        /* a plugin id or a conf provider name; NULL: any */
    int64_t context_window;      /* tokens; 0 unknown */
    int64_t max_output_tokens;   /* tokens; 0 unknown */
    int has_capabilities;        /* the entry lists its capabilities */
    char capabilities[192];      /* comma-separated: "tools,streaming,vision,..." */
    int priced;                  /* prices known: micro-cents per million tokens */
    int64_t price_input;
    int64_t price_output;
    int64_t price_cache_read;    /* -1: billed at the input price */
    int64_t price_cache_write;   /* -1: billed at the input price */
    int from_catalog;            /* 1: the shipped catalog; 0: the conf's own entry */
    const char *file;            /* where defined */
    int line;
} seam_model_info;
SEAM_EXPORT size_t seam_client_model_count(const seam_client *client);
/* The conf's `cli` group (the seam command's own settings: conversation log,
 * model aliases, templates; see seam.conf(5)) as JSON object text, "{}" when
 * the conf has none. The library does not interpret it. Borrowed. */
SEAM_EXPORT const char *seam_client_cli_settings(const seam_client *client);
/* Model i; SEAM_ERR_INVALID past the end or with info->size too small. */
SEAM_EXPORT int seam_client_model_at(const seam_client *client, size_t i, seam_model_info *info);

/* Configured chains: names and their entries. */
SEAM_EXPORT size_t seam_client_chain_count(const seam_client *client);
SEAM_EXPORT const char *seam_client_chain_name(const seam_client *client, size_t i);
SEAM_EXPORT size_t seam_client_chain_length(const seam_client *client, size_t i);
/* Entry j of chain i: provider, model and max_attempts (borrowed). */
SEAM_EXPORT int seam_client_chain_entry(const seam_client *client, size_t i, size_t j,
                                        const char **provider, const char **model,
                                        int *max_attempts);
/* The chain a role names (roles = { assistant = "default"; }), NULL if none. */
SEAM_EXPORT const char *seam_client_role_chain(const seam_client *client, const char *role);
/* Configured roles: name and chain of role i (borrowed); SEAM_ERR_INVALID past the end. */
SEAM_EXPORT size_t seam_client_role_count(const seam_client *client);
SEAM_EXPORT int seam_client_role_at(const seam_client *client, size_t i, const char **role,
                                    const char **chain);

/* Tools the conf defines as commands (`tools = { NAME = { description;
 * parameters; command; timeout_ms; }; }`, see seam.conf(5)), in the order
 * defined. The library does not run them: an application that chooses to
 * (the seam CLI with --tools) adds them to a seam_toolset with its own runner. */
SEAM_EXPORT size_t seam_client_tool_count(const seam_client *client);
/* Tool i (every string borrowed from the client; any out pointer may be NULL):
 * its name, description, parameters (a JSON Schema object as text, NULL when
 * the conf gives none: arguments not validated), the shell command, and
 * timeout_ms (0 when the conf sets none). SEAM_ERR_INVALID past the end. */
SEAM_EXPORT int seam_client_tool_at(const seam_client *client, size_t i, const char **name,
                                    const char **description, const char **parameters_json,
                                    const char **command, int64_t *timeout_ms);

/* Replaces the clock of the call policy (backoff and Retry-After waits,
 * cooldowns, the rate-limit guard, credential expiry) — for tests and
 * simulations, so that waits take no real time. now_ms returns milliseconds
 * of a monotonic clock; sleep_ms waits ms (or pretends to) and returns
 * non-zero when `cancel` (may be NULL) was triggered. NULL functions restore
 * the real clock. Set it before the client is used by any call; transport
 * timeouts keep the real clock. */
SEAM_EXPORT void seam_client_set_clock(seam_client *client, int64_t (*now_ms)(void *ud),
                                       int (*sleep_ms)(void *ud, int64_t ms, seam_cancel *cancel),
                                       void *ud);

/* The library's notices: it never prints, so what an operator should know
 * (the shared state store stopped answering, or answers again; a configured
 * state backend that cannot be used) goes to a callback the application sets.
 * Each is one line of text without a trailing newline and never holds a
 * credential. */
typedef enum seam_log_level {
    SEAM_LOG_ERROR = 0,
    SEAM_LOG_WARNING,
    SEAM_LOG_INFO
} seam_log_level;
/* Sets the client's log callback (NULL: notices are dropped, the default).
 * log(ud, level, message) may be called from any thread that uses the client,
 * with the message borrowed for the call; it must not call into the client.
 * Set it before the client is used by any call. */
SEAM_EXPORT void seam_client_set_log(seam_client *client,
                                     void (*log)(void *ud, int level, const char *message),
                                     void *ud);

/* ---- state shared across processes: budgets, rate limits, the listing ---- */

/* Budgets and rate limits live in the client's state store: in this process
 * by default, or shared by every process whose conf names the same store
 * (`state { backend = "redis"; ... }`, see seam.conf(5) and doc/scale-out.md).
 * A name is the application's (a gateway key, a team), printable ASCII
 * without spaces, at most 200 bytes.
 *
 * seam_budget_check: 1 when the budget `name` has spent less than limit (a
 * request may go), 0 when it is spent; *spent (may be NULL) is the amount so
 * far. seam_budget_debit adds amount (the request's real cost, in the
 * application's unit, e.g. micro-cents) once the request is done; a budget
 * first debited now runs for window_ms, then starts again from 0. Between the
 * check and the debit other processes may check too, so a budget holds to
 * within one request per process. Both return SEAM_ERR_INVALID for a bad
 * argument, SEAM_ERR_NOMEM; never fail because the shared store is away (the
 * process's own count stands in). */
SEAM_EXPORT int seam_budget_check(seam_client *client, const char *name, int64_t limit,
                                  int64_t *spent, seam_error *err);
SEAM_EXPORT int seam_budget_debit(seam_client *client, const char *name, int64_t amount,
                                  int64_t window_ms, int64_t *spent, seam_error *err);
/* A fixed-window rate limit: 1 when one more event fits in `name`'s current
 * window of window_ms (at most limit per window) and is counted, 0 when the
 * window is full. Atomic across processes sharing the store. */
SEAM_EXPORT int seam_rate_take(seam_client *client, const char *name, int64_t limit,
                               int64_t window_ms, seam_error *err);

/* One entry of the state the chain runner shares: a provider's key cooling
 * after a 429, a key the rate-limit guard saw exhausted, or a session's lease
 * on a key of a sticky pool. */
typedef struct seam_state_entry {
    uint32_t size;           /* sizeof(seam_state_entry) */
    const char *kind;        /* "cooling", "exhausted" or "lease" */
    const char *provider;    /* the conf name */
    int key;                 /* the key's place in the provider's pool, from 1 */
    const char *session;     /* a lease: the session's hash (never its text); else NULL */
    int64_t left_ms;         /* how long it still holds */
} seam_state_entry;
/* Where the client's state lives ("redis 127.0.0.1:6379 db 0", or "local
 * ...") into store (size bytes), *shared 1 when a shared store answers; then
 * fn(ud, entry) for each entry it holds now (strings borrowed for the call).
 * store and fn may be NULL. SEAM_OK, or SEAM_ERR_INVALID / SEAM_ERR_NOMEM. */
SEAM_EXPORT int seam_client_state(seam_client *client, char *store, size_t size, int *shared,
                                  void (*fn)(void *ud, const seam_state_entry *entry), void *ud,
                                  seam_error *err);

/* Checks a conf file (and its conf.d/) without loading plugins. Returns SEAM_OK
 * or SEAM_ERR_CONF with err filled. Each warning (e.g. an inline api_key in a
 * file readable by group or others) is passed to warn(ud, text) when warn is
 * non-NULL. */
SEAM_EXPORT int seam_conf_check(const char *path,
                                void (*warn)(void *ud, const char *text), void *ud,
                                seam_error *err);

/* ---- the media store -------------------------------------------------------
 *
 * Content-addressed files: the handle of some bytes is "media://sha256-" and
 * the 64 lowercase hex digits of their sha256. The store is the conf's
 * media.store, else $XDG_DATA_HOME/seam/media (~/.local/share/seam/media),
 * created 0700; each file is written atomically (a temporary, then rename)
 * and is mode 0600. Every function is safe from any thread. */

/* Stores len bytes and writes their handle (NUL-terminated) into handle.
 * Storing the same bytes again is a no-op that gives the same handle.
 * SEAM_OK, SEAM_ERR_INVALID, SEAM_ERR_CONF (no store directory known),
 * SEAM_ERR_NOMEM, or SEAM_ERR_PROVIDER (a file system error, in err). */
SEAM_EXPORT int seam_media_put(seam_client *client, const void *bytes, size_t len,
                               char handle[SEAM_MEDIA_HANDLE_SIZE], seam_error *err);
/* The path of the stored file of handle in *path (malloc'ed: free() it).
 * SEAM_ERR_INVALID for a string that is not a handle, SEAM_ERR_NOT_FOUND when
 * the store does not hold it. */
SEAM_EXPORT int seam_media_path(seam_client *client, const char *handle, char **path,
                                seam_error *err);
/* The stored file of handle opened read-only in *fd (the caller closes it);
 * the errors of seam_media_path. */
SEAM_EXPORT int seam_media_open(seam_client *client, const char *handle, int *fd,
                                seam_error *err);
/* Fetches url itself and stores the bytes: *handle gets the handle (as
 * seam_media_put). Only https; a host that resolves to a loopback, private
 * (RFC 1918, fc00::/7), link-local, CGNAT, unspecified, multicast or cloud
 * metadata address is refused unless the conf's media.allow_private_urls is
 * true (metadata addresses always). The address checked is the one
 * connected to; redirects are not followed; the body may be at most
 * media.max_message_bytes. A refusal is SEAM_ERR_INVALID with err
 * (bad_request) naming the rule and the host; a network failure
 * SEAM_ERR_PROVIDER; the store's errors as seam_media_put. Blocks. */
SEAM_EXPORT int seam_media_fetch(seam_client *client, const char *url,
                                 char handle[SEAM_MEDIA_HANDLE_SIZE], seam_error *err);
/* Appends a media part of url to msg as the conf asks: a URL part the
 * provider fetches (the default), or, with media.fetch_urls = true, a handle
 * part of the bytes seam_media_fetch stored (its refusals and errors; msg is
 * unchanged on failure). */
SEAM_EXPORT int seam_message_add_media_url(seam_client *client, seam_message *msg,
                                           const char *mime_type, const char *url,
                                           seam_error *err);
/* De-inlines msg: every base64 media part is stored and becomes a handle part
 * (its byte length recorded). URL and handle parts are left as they are.
 * On failure the parts before the failing one are already converted. */
SEAM_EXPORT int seam_media_deinline(seam_client *client, seam_message *msg, seam_error *err);
/* Writes the conf seam would use for path (NULL: the default search, where a
 * personal conf overlays the system conf and its conf.d/), merged, as conf
 * text: one call of line(ud, text) per line, each definition (provider,
 * chain, role, tool, model entry of the conf) ending with "  # FILE:LINE",
 * where it came from. No credential is ever written. Returns SEAM_OK, or
 * SEAM_ERR_CONF / SEAM_ERR_NOMEM with err filled. */
SEAM_EXPORT int seam_conf_show(const char *path, void (*line)(void *ud, const char *text),
                               void *ud, seam_error *err);

/* ---- calls: generate and stream ------------------------------------------ */

/* Attempt reports: every attempt of a call, in order. */
typedef enum seam_attempt_outcome {
    SEAM_ATTEMPT_SUCCEEDED = 1,
    SEAM_ATTEMPT_FAILED,
    SEAM_ATTEMPT_SKIPPED
} seam_attempt_outcome;

/* Every record is passed to the observer as it happens (on the calling thread)
 * and is valid for the duration of the callback only. */
typedef struct seam_attempt {
    seam_attempt_outcome outcome;
    const char *provider;    /* conf name */
    const char *model;
    int attempt;             /* 1-based attempt number on this entry */
    const seam_error *error; /* failed or skipped: why; NULL otherwise */
    const seam_usage *usage; /* this attempt's usage, with its cost when the model is
                              * priced (SEAM_USAGE_COST); NULL when none was seen */
    int64_t wait_ms;         /* failed: the time waited after it before the next
                              * attempt (backoff or Retry-After); skipped with a
                              * rate_limit error: the rate-limit guard's wait
                              * before the attempt it held back; 0 otherwise */
    const char *chain;       /* the chain of the entry (a fallback chain after a
                              * context_overflow / content_filter error); NULL for
                              * a single-provider call */
} seam_attempt;

/* What to call and how. Zero-initialize, set size, then what you need. */
typedef struct seam_call_options {
    uint32_t size;           /* sizeof(seam_call_options) */
    const char *chain;       /* a chain from the conf; NULL with provider NULL: the
                              * chain of role "assistant", else "default" */
    const char *provider;    /* a single provider instead of a chain... */
    const char *model;       /* ...with this model (overrides the request's model) */
    seam_cancel *cancel;     /* may be NULL */
    int64_t timeout_ms;      /* whole-call deadline, 0: the provider's timeout_ms */
    int64_t idle_timeout_ms; /* longest gap between received bytes, 0: provider's */
    void (*on_attempt)(void *ud, const seam_attempt *a); /* may be NULL */
    void *ud;
    const char *affinity;    /* key_selection = "sticky": calls with the same
                              * affinity (a session id) use the same key of a
                              * provider's pool while it works; may be NULL */
    const char *skip_plugins;/* comma-separated plugin ids (e.g. "mock"): a chain
                              * entry whose provider uses one of them is skipped
                              * as a conf reason; NULL: none */
    /* Appended (issue 14). The credential (API key) of this call instead of
     * the conf's: for a multi-tenant application whose users bring their own
     * key. Only with `provider` (a chain would hand one vendor's key to
     * another: SEAM_ERR_INVALID); the conf's key pool, its cooldowns and its
     * rotation are left out. Copied for the call and wiped after it; never
     * logged, never in an error (redacted from every message, like the conf's). */
    const char *credential;
    /* Appended (issue 14). Where to keep the raw answer of the call's last
     * attempt, for debugging (see seam_raw_response_new); NULL: not kept.
     * Borrowed for the call; one per call in flight. */
    struct seam_raw_response *raw;
    /* Appended (issue 14). Nonzero: a streamed generation opens with a
     * SEAM_CHUNK_STREAM_START chunk naming the conf provider and the model of
     * the chain entry that answers (see seam_chunk). 0: no such chunk, as
     * before, so callers that pin the chunk sequence are unaffected. */
    int stream_start;
    /* Appended (issue 17). Nonzero: seam_stream_open sends the request
     * non-streamed (the provider answers in one body, decoded once it is
     * complete) and the stream hands out that answer's chunks at its end,
     * the chunks seam_generate builds its result from. For a caller on the
     * event-driven API (seam_stream_next_nowait) that wants whole answers: no
     * SSE framing, no per-event decoding. Retries and failover as for any
     * call. 0: the request is streamed, as before. */
    int non_streamed;
} seam_call_options;

/* The raw answer of a call's last attempt, kept on request for debugging:
 * set seam_call_options.raw to one before the call, read it after (success or
 * failure). seam itself never logs, prints or serializes it. The call's
 * credential is scrubbed out of headers and body. */
typedef struct seam_raw_response seam_raw_response;
/* A new empty record; NULL without memory. Free with seam_raw_response_free. */
SEAM_EXPORT seam_raw_response *seam_raw_response_new(void);
SEAM_EXPORT void seam_raw_response_free(seam_raw_response *r);
/* The last attempt's HTTP status; 0 when none was received (a refused
 * connection, a skipped entry). */
SEAM_EXPORT int seam_raw_response_status(const seam_raw_response *r);
/* Its response headers, "name: value\n" each, as received ("" when none).
 * Borrowed until the next call using r, or seam_raw_response_free. */
SEAM_EXPORT const char *seam_raw_response_headers(const seam_raw_response *r);
/* Its body and, in *len (may be NULL), its length: an error body (the first
 * 64 KiB) or a whole non-streamed answer; NULL for a streamed answer that
 * succeeded (its events were decoded as they came) or when none was received.
 * Not NUL-safe: may hold any bytes. Borrowed like the headers. */
SEAM_EXPORT const char *seam_raw_response_body(const seam_raw_response *r, size_t *len);
/* The error the last attempt ended with, before the chain went on or wrapped
 * it: its provider, kind, status and message; NULL when it succeeded.
 * Borrowed like the headers. */
SEAM_EXPORT const seam_error *seam_raw_response_cause(const seam_raw_response *r);

/* Blocking call: sends req through the chain and returns the whole result in
 * *out (free with seam_result_free()). req is not modified. On failure returns
 * SEAM_ERR_PROVIDER (or another status) with err filled, and *out is NULL. */
SEAM_EXPORT int seam_generate(seam_client *client, const seam_request *req,
                              const seam_call_options *opts, seam_result **out,
                              seam_error *err);

/* A pull iterator over a streamed answer. */
typedef struct seam_stream seam_stream;

/* Opens a stream; nothing is sent until the first seam_stream_next(). req is
 * copied. Free with seam_stream_free() (which aborts a transfer in flight). */
SEAM_EXPORT int seam_stream_open(seam_client *client, const seam_request *req,
                                 const seam_call_options *opts, seam_stream **out,
                                 seam_error *err);
/* Returns 1 and points *chunk at the next chunk (borrowed until the next call),
 * 0 at the end of a successful stream, or a negative status with err filled
 * (the error is also folded into the stream's result). Framing chunks are held
 * back until the first content chunk so that a failure before any content fails
 * over to the next chain entry transparently. */
SEAM_EXPORT int seam_stream_next(seam_stream *s, const seam_chunk **chunk, seam_error *err);
/* ---- event-driven use: many streams on one thread ------------------------
 *
 * seam_stream_next blocks until a chunk is ready. An application that drives
 * many streams from one event loop (an editor, a daemon) calls
 * seam_stream_next_nowait instead, which returns at once:
 *
 *   1 and *chunk, 0 at the end, a negative status on failure (as
 *   seam_stream_next), or SEAM_STREAM_PENDING when nothing is ready yet.
 *
 * After SEAM_STREAM_PENDING, seam_stream_pollfds says what to wait for: the
 * client's fd while a network transfer is in flight (see seam_client_fd), or
 * the cancel token's fd between attempts, and the longest wait in ms (-1: none, 0: call again at
 * once). Wait with poll(2) (or add the fds to your loop) and call
 * seam_stream_next_nowait again when one is ready or the time is up. Retries,
 * backoff waits and failover work as in blocking use; the waits become the
 * timeout instead of a sleep. A stream may switch between the two calls. */
#define SEAM_STREAM_PENDING 2
SEAM_EXPORT int seam_stream_next_nowait(seam_stream *s, const seam_chunk **chunk, seam_error *err);
/* Fills up to max entries of fds (fd and events set, revents 0), *n with the
 * count, and *timeout_ms. SEAM_ERR_INVALID for a NULL argument. */
SEAM_EXPORT int seam_stream_pollfds(const seam_stream *s, struct pollfd *fds, size_t max,
                                    size_t *n, int *timeout_ms);

/* ---- event-driven use: one fd for the whole client -------------------------
 *
 * Every network transfer of a client runs on one event loop (one libcurl
 * multi handle over one epoll fd), so an application with many streams need
 * not collect each stream's fds:
 *
 *   add seam_client_fd() to your loop (poll/epoll/select for reading); when it
 *   is readable, or seam_client_timeout_ms() has passed, call
 *   seam_client_perform(), then seam_stream_next_nowait() on your streams
 *   (their data is already in their own queues: that call does not block and
 *   makes no system call when the client was just performed).
 *
 * The fd and the timeout cover network transfers only. A stream waiting out a
 * backoff or reading an in-process provider says so through
 * seam_stream_pollfds, which keeps working (for a network transfer it returns
 * the client's fd). The blocking calls and these may be mixed, from any
 * thread. */

/* The client's epoll fd (owned by the client: do not close or read it), -1
 * for NULL. Stable for the client's lifetime. */
SEAM_EXPORT int seam_client_fd(const seam_client *client);
/* How long the application may wait for seam_client_fd before calling
 * seam_client_perform anyway, in ms: -1 when nothing is timed, 0 at once. */
SEAM_EXPORT int seam_client_timeout_ms(const seam_client *client);
/* Runs the client's event loop once without waiting: reads ready sockets
 * (their data goes to each stream's queue), fires libcurl's timers, applies
 * idle timeouts and cancels. Returns how many sockets, timers, completions and
 * aborts it handled (0: no stream moved), or SEAM_ERR_INVALID for NULL. Does
 * nothing (returns 0) while another thread is running the loop. */
SEAM_EXPORT int seam_client_perform(seam_client *client);

/* The result accumulated so far (borrowed; valid until seam_stream_free). */
SEAM_EXPORT const seam_result *seam_stream_result(const seam_stream *s);
SEAM_EXPORT void seam_stream_free(seam_stream *s);

#ifdef __cplusplus
}
#endif

#include <seam/loop.h>
#include <seam/embed.h>
#include <seam/mediagen.h>
#include <seam/transcribe.h>

#endif /* SEAM_SEAM_H */
