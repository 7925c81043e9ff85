/* seam/loop.h — generation with the automatic tool loop, sessions and the
 * agent executor. Included by <seam/seam.h>; may also be included alone (it
 * includes <seam/seam.h> for the client, call options and cancel tokens).
 *
 * The conventions of <seam/types.h> hold: opaque handles with _new/_free (free
 * of NULL is a no-op), `const char *` arguments copied, `const char *` results
 * borrowed from the object they come from, SEAM_OK or a negative seam_status
 * with a caller-provided seam_error filled on failure. Options structs start
 * with `size`: set it to sizeof the struct (the library ignores members past
 * it, so older callers keep working). Nothing here prints, exits or aborts.
 *
 * Threads: tool callbacks run on worker threads (all calls of one model turn at
 * once), so a tool must be safe to run concurrently with itself and with the
 * other tools of the set. Every worker is joined before the call that started
 * it returns, also on cancel and on timeout.
 */
#ifndef SEAM_LOOP_H
#define SEAM_LOOP_H

/* seam.h includes this file at its end; included first, this header pulls in
 * seam.h whole (its include of loop.h is then a no-op) before its own
 * declarations, which use seam_client, seam_call_options and seam_cancel. */
#include <seam/seam.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- JSON Schema ---------------------------------------------------------- */

/* Validates a JSON value against a JSON Schema (draft 2020-12 vocabulary: see
 * doc/generate.md for the keywords covered and the measured conformance).
 * Returns SEAM_OK when it matches; SEAM_ERR_INVALID when it does not, or when
 * the schema or the value is not JSON, with msg (if non-NULL) set to
 * "<JSON pointer>: <reason>" or "invalid schema: <reason>"; SEAM_ERR_NOMEM.
 * Patterns are ECMA-262 run on PCRE2 under compile and match limits: a pattern
 * PCRE2 refuses makes the schema invalid (the message names the pattern and
 * the offset), and a match that reaches the backtracking limit refuses the
 * value. The patterns are compiled at each call. */
SEAM_EXPORT int seam_schema_validate(const char *schema_json, const char *instance_json,
                                     char *msg, size_t msgsize);

/* ---- tools ------------------------------------------------------------------ */

/* One call of a tool, as handed to its callback (every member borrowed for the
 * duration of the callback). */
typedef struct seam_tool_call {
    const char *id;          /* the provider's call id */
    const char *name;
    const char *args_json;   /* a JSON object, already validated against the
                              * tool's parameters when it has some */
    seam_cancel *cancel;     /* triggered when the run is cancelled or its total
                              * deadline passes: a long tool should poll it */
    int step;                /* 0-based model turn that asked for the call */
} seam_tool_call;

/* Where a tool callback puts its result. Owned by the library. */
typedef struct seam_tool_output seam_tool_output;

/* The result as JSON text (any JSON value). SEAM_ERR_INVALID when it does not
 * parse. A later call replaces an earlier one. */
SEAM_EXPORT int seam_tool_output_json(seam_tool_output *out, const char *json);
/* The result as plain text (sent as a JSON string). */
SEAM_EXPORT int seam_tool_output_text(seam_tool_output *out, const char *text);
/* Marks the result as an error with a printf-style message (sent to the model
 * as a tool result with is_error set: the loop goes on). */
SEAM_EXPORT int seam_tool_output_error(seam_tool_output *out, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Executor runs only (a handler or a toolset callback): ends the run after
 * this turn, waiting for a person; `prompt` (may be NULL) is what to ask them.
 * The run is continued by seam_executor_resume() with their answer as this
 * call's result. One call per turn may wait; a second one gets an error result.
 * SEAM_ERR_INVALID when the call does not come from an executor run. */
SEAM_EXPORT int seam_tool_output_pause(seam_tool_output *out, const char *prompt);

/* An active tool's callback. Returns SEAM_OK, or any non-zero value for a
 * failure: the model then gets an is_error result carrying the message given to
 * seam_tool_output_error (or "tool NAME failed"). Nothing set on success sends
 * JSON null. SEAM_ERR_NOMEM, returned or met by a seam_tool_output_* call, ends
 * the run out of memory instead. Runs on a worker thread. */
typedef int (*seam_tool_fn)(void *ud, const seam_tool_call *call, seam_tool_output *out);

/* A set of tools offered to the model. Read-only once built: one set may serve
 * any number of concurrent runs. */
typedef struct seam_toolset seam_toolset;

SEAM_EXPORT seam_toolset *seam_toolset_new(void);
SEAM_EXPORT void seam_toolset_free(seam_toolset *ts);
/* Adds a tool. parameters_json: a JSON Schema for the arguments (NULL: any
 * object, arguments not validated). execute NULL makes the tool *passive*: its
 * calls are returned to the caller instead of being run. ud is passed to
 * execute. SEAM_ERR_INVALID for a NULL/empty/duplicate name, a schema that is
 * not a JSON object, or one with a "pattern" (or patternProperties name) that
 * PCRE2 refuses: the patterns are compiled here, once, not at each call. */
SEAM_EXPORT int seam_toolset_add(seam_toolset *ts, const char *name, const char *description,
                                 const char *parameters_json, seam_tool_fn execute, void *ud);
SEAM_EXPORT size_t seam_toolset_count(const seam_toolset *ts);
SEAM_EXPORT const char *seam_toolset_name(const seam_toolset *ts, size_t i);

/* ---- generation with the tool loop ------------------------------------------ */

typedef struct seam_generation seam_generation;
typedef struct seam_step seam_step;

#define SEAM_DEFAULT_TOOL_ROUNDS 10

/* What a prepare_step hook (seam_loop_options.prepare_step) may set for the
 * next model turn, like the Vercel AI SDK's prepareStep. On entry it holds
 * what the turn would use without the hook; what the hook sets applies to
 * that turn only (the next call starts again from the defaults). */
typedef struct seam_step_settings {
    uint32_t size;               /* sizeof(seam_step_settings), set by the library */
    seam_tool_choice tool_choice;/* default: the request's choice on the first
                                  * turn; after a round of tools "required" and
                                  * a named choice become "auto" */
    const char *tool_name;       /* for SEAM_TOOL_CHOICE_NAMED; copied after the hook */
    /* The tools offered in this turn, comma-separated names ("" offers none);
     * NULL (the default) offers all. A name no tool has is ignored. Copied
     * after the hook. Calls the model still makes to a tool not offered run
     * as usual. */
    const char *active_tools;
} seam_step_settings;

typedef struct seam_loop_options {
    uint32_t size;            /* sizeof(seam_loop_options) */
    /* Where and how each model turn is sent (chain or provider+model, on_attempt)
     * and the run's cancel token. Here timeout_ms is the TOTAL deadline of the
     * whole run (every turn and every tool), idle_timeout_ms the longest gap
     * between received bytes. NULL: the default chain, no deadline. Borrowed
     * for the duration of the call (a stream copies what it needs). */
    const seam_call_options *call;
    /* The input: either a prompt (one user message) or the request's messages,
     * not both (SEAM_ERR_INVALID). */
    const char *prompt;
    const seam_toolset *tools; /* may be NULL; tools the request defines itself
                                * (seam_request_add_tool) are passive */
    /* Rounds of tool execution (each followed by one continuation request).
     * 0 disables the loop: tool calls are returned. Set by
     * seam_loop_options_init to SEAM_DEFAULT_TOOL_ROUNDS; a NULL options
     * pointer means the defaults too. */
    int max_tool_rounds;
    int max_parallel_tools;    /* worker threads per turn; 0: one per call */
    int64_t step_timeout_ms;   /* deadline of each model turn, 0: none */
    int64_t first_content_timeout_ms; /* streams: from the start of a turn to its
                                       * first content chunk, 0: none */
    /* Called on the caller's thread after each step is complete (its tools run),
     * with the 0-based step index. May be NULL. */
    void (*on_step)(void *ud, const seam_step *step, size_t index);
    void *ud;
    /* Appended (issue 14). Called on the caller's thread before each model
     * turn with its 0-based index (the number of steps so far) and the
     * generation so far (its steps: seam_generation_step), to set the turn's
     * tool choice and active tools in *next (see seam_step_settings). Returns
     * SEAM_OK, or any other value to end the run with a bad_request error
     * (SEAM_ERR_NOMEM: out of memory). NULL: the defaults. ud is passed. */
    int (*prepare_step)(void *ud, size_t step, const seam_generation *so_far,
                        seam_step_settings *next);
} seam_loop_options;

/* Sets size and the defaults (max_tool_rounds = SEAM_DEFAULT_TOOL_ROUNDS, the
 * rest 0/NULL). */
SEAM_EXPORT void seam_loop_options_init(seam_loop_options *opts);

/* Runs the tool loop to the end: sends the request; while the answer asks for
 * tools that are all active, and rounds remain, runs the turn's calls
 * concurrently, sends every result back in one continuation request, and so on.
 * A failing tool, a call to an unknown tool and arguments that do not match the
 * tool's schema each become a tool result with is_error set, never a failure
 * of the run. A turn that calls a passive tool ends the run with its calls
 * unexecuted (seam_generation_tool_call*). req supplies model, system,
 * parameters, tool definitions, tool_choice (after a round of tools, "required"
 * and a named choice fall back to "auto" so the model can answer, unless a
 * prepare_step hook sets them again) and provider options; it may be NULL when opts->prompt is given. Media parts (base64 or
 * URL images) reach the plugin unchanged.
 * Returns SEAM_OK with *out set. On a failure before anything was sent (bad
 * input, unknown chain) *out is NULL. On a failure during the run (provider
 * error, cancel, deadline) the status is negative, err is filled AND *out is
 * set: it holds the steps so far, the usage seen so far and the error
 * (seam_generation_error). Free *out with seam_generation_free(). */
SEAM_EXPORT int seam_loop_generate(seam_client *client, const seam_request *req,
                                   const seam_loop_options *opts, seam_generation **out,
                                   seam_error *err);

SEAM_EXPORT void seam_generation_free(seam_generation *g);
/* The last model turn's result (partial, with its error, when the run failed
 * inside a turn); NULL when no turn started. Borrowed. */
SEAM_EXPORT const seam_result *seam_generation_response(const seam_generation *g);
/* The last turn's text ("" if none). */
SEAM_EXPORT const char *seam_generation_text(const seam_generation *g);
/* Usage summed over every turn (cost included where the provider gave it). */
SEAM_EXPORT const seam_usage *seam_generation_usage(const seam_generation *g);
/* Tool calls of the last turn that were not run (passive tools, rounds
 * exhausted or disabled): tool_call parts, borrowed. */
SEAM_EXPORT size_t seam_generation_tool_call_count(const seam_generation *g);
SEAM_EXPORT const seam_part *seam_generation_tool_call(const seam_generation *g, size_t i);
SEAM_EXPORT size_t seam_generation_step_count(const seam_generation *g);
SEAM_EXPORT const seam_step *seam_generation_step(const seam_generation *g, size_t i);
/* The messages the run added after its input, in order: each turn's assistant
 * message and each round's tool message (append them to continue a chat). */
SEAM_EXPORT size_t seam_generation_message_count(const seam_generation *g);
SEAM_EXPORT const seam_message *seam_generation_message(const seam_generation *g, size_t i);
/* Why the run failed (kind SEAM_ERROR_CANCELLED, SEAM_ERROR_TIMEOUT, a
 * provider's error...), NULL when it succeeded. Borrowed. */
SEAM_EXPORT const seam_error *seam_generation_error(const seam_generation *g);

/* A step: one model turn and the tools it ran. */
SEAM_EXPORT const seam_result *seam_step_result(const seam_step *s);
SEAM_EXPORT size_t seam_step_tool_call_count(const seam_step *s);
SEAM_EXPORT const seam_part *seam_step_tool_call(const seam_step *s, size_t i);
/* Results of the calls the loop ran, in call order (0 when none ran):
 * tool_result parts with id, name, result_json and is_error. */
SEAM_EXPORT size_t seam_step_tool_result_count(const seam_step *s);
SEAM_EXPORT const seam_part *seam_step_tool_result(const seam_step *s, size_t i);
SEAM_EXPORT const seam_usage *seam_step_usage(const seam_step *s);

/* ---- streaming with the tool loop ------------------------------------------------- */

typedef struct seam_loop_stream seam_loop_stream;

/* Opens a streamed run; nothing is sent before the first next. Same inputs and
 * checks as seam_loop_generate. req and the strings of opts (and of opts->call)
 * are copied; the toolset, the cancel token and the callbacks' ud are borrowed
 * until seam_loop_stream_free. */
SEAM_EXPORT int seam_loop_stream_open(seam_client *client, const seam_request *req,
                                      const seam_loop_options *opts, seam_loop_stream **out,
                                      seam_error *err);
/* Returns 1 and the next chunk (borrowed until the next call), 0 at the end of
 * a successful run, or a negative status with err filled. The chunks of every
 * turn follow each other: a turn's chunks end with its stop chunk; when the
 * loop runs the turn's tools, one SEAM_CHUNK_TOOL_RESULT chunk per call (id,
 * name, result_json, is_error) follows, in call order, once all have run; then
 * the next turn's chunks. A cancel or a deadline aborts the transfer in flight
 * at once. */
SEAM_EXPORT int seam_loop_stream_next(seam_loop_stream *s, const seam_chunk **chunk,
                                      seam_error *err);
/* The text-only iterator: 1 with the next text delta in *text (borrowed until
 * the next call), 0 at the end, negative on failure. Other chunks are skipped
 * (tools still run). */
SEAM_EXPORT int seam_loop_stream_next_text(seam_loop_stream *s, const char **text,
                                           seam_error *err);
/* 0-based step of the chunk last returned. */
SEAM_EXPORT size_t seam_loop_stream_step(const seam_loop_stream *s);
/* The generation so far (complete once next returned 0 or failed): the same
 * object seam_loop_generate returns for the same answers. Borrowed: valid until
 * seam_loop_stream_free. */
SEAM_EXPORT const seam_generation *seam_loop_stream_generation(const seam_loop_stream *s);
/* Aborts a transfer in flight, joins any worker, frees. */
SEAM_EXPORT void seam_loop_stream_free(seam_loop_stream *s);

/* ---- conversation state ---------------------------------------------------------- */

/* A conversation state: the messages of one conversation thread, each an item
 * with an id, as an immutable value. Nothing changes a state once made:
 * applying an operation returns a NEW state and leaves the old one as it was,
 * valid until it is freed (undo, branches, snapshots for free). States share
 * their messages and, along appends, their item arrays: a new state costs
 * little more than what changed. A state may be read, dup'ed and applied to
 * from any number of threads at once; each handle is freed once.
 *
 * Items have ids: 1, 2, ... in the order they were added (or made by a
 * compaction), never reused within a state's line, so an id names the same
 * item in every state derived from the one it was made in. A state belongs to
 * a thread id (a conversation's name), which derived states keep. */
typedef struct seam_history seam_history;

/* A new empty state of thread `thread_id` (copied; NULL: a random id
 * "thread_" + 32 hex digits). NULL when out of memory, or for an empty
 * thread id or one longer than 255 bytes. Free with seam_history_free. */
SEAM_EXPORT seam_history *seam_history_new(const char *thread_id);
/* Another handle on the same state (no message is copied); free both.
 * NULL when out of memory. */
SEAM_EXPORT seam_history *seam_history_dup(const seam_history *h);
/* The same items under another thread id (NULL: a random one): a branch of
 * the conversation. Ids go on from h's. NULL when out of memory or for a bad
 * thread id. */
SEAM_EXPORT seam_history *seam_history_fork(const seam_history *h, const char *thread_id);
/* Frees this handle (NULL: no-op); other states are not affected. */
SEAM_EXPORT void seam_history_free(seam_history *h);
/* The thread id (borrowed from h). */
SEAM_EXPORT const char *seam_history_thread_id(const seam_history *h);
SEAM_EXPORT size_t seam_history_count(const seam_history *h);
/* Item i's message (NULL past the end); borrowed from h, valid until h and
 * every state sharing it are freed. Do not cast away its const: states share
 * it. */
SEAM_EXPORT const seam_message *seam_history_message(const seam_history *h, size_t i);
/* Item i's id (0 past the end). */
SEAM_EXPORT uint64_t seam_history_item_id(const seam_history *h, size_t i);
/* SEAM_OK with *index (may be NULL) the position of the item `id`;
 * SEAM_ERR_NOT_FOUND when h has no such item. */
SEAM_EXPORT int seam_history_find(const seam_history *h, uint64_t id, size_t *index);
/* The id the next added item gets (ADD and COMPACT take ids in order, so a
 * batch may refer to an item it adds). */
SEAM_EXPORT uint64_t seam_history_next_id(const seam_history *h);

/* What an operation does. Values never change; new kinds are appended. */
typedef enum seam_op_kind {
    SEAM_OP_ADD = 1,  /* appends message as a new item */
    SEAM_OP_REMOVE,   /* removes item `id` */
    SEAM_OP_UPDATE,   /* replaces item `id`'s message (the id stays) */
    SEAM_OP_COMPACT,  /* replaces the n_ids items `ids` (any order, at least
                       * one) by one new item holding message, placed where
                       * the first of them in the state was */
    SEAM_OP_CLEAR     /* removes every item (ids still go on) */
} seam_op_kind;

/* One operation. Every member is borrowed for the call; message is copied
 * into the new state. Members a kind does not use are ignored. */
typedef struct seam_op {
    seam_op_kind kind;
    uint64_t id;                  /* REMOVE, UPDATE */
    const uint64_t *ids;          /* COMPACT */
    size_t n_ids;                 /* COMPACT */
    const seam_message *message;  /* ADD, UPDATE, COMPACT */
} seam_op;

/* "add", "remove", "update", "compact", "clear"; "unknown" otherwise. */
SEAM_EXPORT const char *seam_op_kind_name(seam_op_kind k);

/* Applies one operation to h: SEAM_OK with *out a new state (free it), h
 * unchanged. SEAM_ERR_INVALID (err filled: bad_request, the reason) for an
 * operation that does not apply (an unknown id, a missing message, an unknown
 * kind), SEAM_ERR_NOMEM; *out is then NULL. */
SEAM_EXPORT int seam_history_apply(const seam_history *h, const seam_op *op, seam_history **out,
                                   seam_error *err);
/* Applies ops[0..n) in order, all or nothing: each operation sees what the
 * ones before it did, and when one fails there is no new state at all (*out
 * NULL), *failed (may be NULL) is its index and err says "operation N (KIND):
 * reason". n == 0 gives a new handle on h's state. Returns as
 * seam_history_apply. */
SEAM_EXPORT int seam_history_apply_batch(const seam_history *h, const seam_op *ops, size_t n,
                                         seam_history **out, size_t *failed, seam_error *err);

/* ---- sessions ---------------------------------------------------------------------- */

/* Retries of a whole call (over the chain's own retries): attempt n (0-based)
 * waits min(base_delay_ms * 2^n + jitter, max_delay_ms), jitter up to 10% of the
 * base; a server's Retry-After is honoured up to max_delay_ms. Only retryable
 * errors (rate limit, overload, timeout, transport) are retried, and a stream
 * only before its first content chunk. */
typedef struct seam_retry_policy {
    int max_attempts;        /* 0 or 1: no retry */
    int64_t base_delay_ms;   /* 0: 500 */
    int64_t max_delay_ms;    /* 0: 20000 */
    int jitter;              /* 1: add random jitter */
} seam_retry_policy;

/* Prompt-cache breakpoints, passed to the plugin as the provider option
 * "cache_strategy" ("system_and_3": after the system prompt and the last three
 * user messages; "prefix_and_2": at the end of the shared prefix, everything
 * before the last two user turns, and after those two turns). The anthropic
 * plugin puts its cache_control breakpoints there; the gemini plugin caches
 * the system part (system_and_3) or the whole prefix (prefix_and_2) as an
 * explicit cachedContents, reused across calls through the client's state
 * store; OpenAI-compatible servers cache prefixes by themselves. */
typedef enum seam_cache_strategy {
    SEAM_CACHE_DEFAULT = 0,  /* in send options: the session's; in a session: none */
    SEAM_CACHE_NONE,
    SEAM_CACHE_SYSTEM_AND_3,
    SEAM_CACHE_PREFIX_AND_2
} seam_cache_strategy;

/* Called before a call when the credential expires within the margin. Refresh
 * it where the conf reads it from (its environment variable, file or command)
 * and set *expires_at_ms (wall clock, ms since the epoch; 0: unknown). Return
 * SEAM_OK, or a negative status with err filled to fail the call. */
typedef int (*seam_refresh_fn)(void *ud, int64_t *expires_at_ms, seam_error *err);

typedef struct seam_session_options {
    uint32_t size;              /* sizeof(seam_session_options) */
    const char *chain;          /* a chain, or provider + model; NULL: role "assistant" */
    const char *provider;
    const char *model;
    const char *system;         /* the system prompt (overrides defaults') */
    /* Model, parameters, tools, tool_choice and provider options of every call
     * (its messages are ignored); copied. May be NULL. */
    const seam_request *defaults;
    seam_retry_policy retry;
    seam_cache_strategy cache;
    const char *provider_flags_json; /* JSON object merged into the provider options */
    int64_t timeout_ms;         /* per call (all attempts), 0: the provider's */
    int64_t idle_timeout_ms;
    void (*on_attempt)(void *ud, const seam_attempt *a); /* each chain attempt */
    seam_refresh_fn refresh_credential; /* may be NULL */
    int64_t credential_expires_at_ms;   /* wall clock ms; 0: unknown (never refreshed) */
    int64_t refresh_margin_ms;          /* 0: 60000 */
    void *ud;
    /* Appended (issue 14): the thread id of the session's history (copied;
     * NULL: a random one, see seam_history_new). */
    const char *thread_id;
} seam_session_options;

/* Per-call overrides. Zero-initialize and set size. */
typedef struct seam_send_options {
    uint32_t size;              /* sizeof(seam_send_options) */
    const char *system_suffix;  /* appended to the system prompt for this call */
    seam_cache_strategy cache;  /* SEAM_CACHE_DEFAULT: the session's */
    const seam_retry_policy *retry;  /* NULL: the session's */
    const char *provider_flags_json; /* merged over the session's flags */
    int64_t reasoning_budget;   /* thinking tokens for this call, 0: the session's */
    const seam_toolset *tools;  /* definitions offered to the model (not run here) */
    seam_cancel *cancel;
    int64_t timeout_ms;         /* 0: the session's */
} seam_send_options;

/* A conversation: one per conversation, not shared between threads. */
typedef struct seam_session seam_session;

/* The session borrows client (which must outlive it). SEAM_ERR_NOT_FOUND for an
 * unknown chain or provider. opts may be NULL. */
SEAM_EXPORT int seam_session_new(seam_client *client, const seam_session_options *opts,
                                 seam_session **out, seam_error *err);
/* The role factory: a session on the chain the conf's `roles` gives `role`
 * (opts->chain/provider are ignored). SEAM_ERR_NOT_FOUND for an unknown role. */
SEAM_EXPORT int seam_session_new_for_role(seam_client *client, const char *role,
                                          const seam_session_options *opts,
                                          seam_session **out, seam_error *err);
SEAM_EXPORT void seam_session_free(seam_session *s);
SEAM_EXPORT seam_client *seam_session_client(const seam_session *s);
/* The chain the session sends through (NULL with a single provider). */
SEAM_EXPORT const char *seam_session_chain(const seam_session *s);

/* History. Messages are borrowed until the history next changes. */
SEAM_EXPORT size_t seam_session_history_count(const seam_session *s);
SEAM_EXPORT const seam_message *seam_session_history_at(const seam_session *s, size_t i);
/* A read-only snapshot: a new request (free it) holding copies of the system
 * prompt and every message; later changes to the session do not affect it. */
SEAM_EXPORT int seam_session_snapshot(const seam_session *s, seam_request **out);
/* Appends a copy of msg. */
SEAM_EXPORT int seam_session_append(seam_session *s, const seam_message *msg);
SEAM_EXPORT int seam_session_append_user_text(seam_session *s, const char *text);
/* Keeps the first keep_first and the last keep_last messages, dropping those
 * between; nothing changes when keep_first + keep_last >= the count. */
SEAM_EXPORT void seam_session_truncate(seam_session *s, size_t keep_first, size_t keep_last);
SEAM_EXPORT void seam_session_clear(seam_session *s);
/* The history as a conversation state (seam_history): a new handle on the
 * session's current state, which later changes to the session do not affect
 * (free it). NULL when out of memory. */
SEAM_EXPORT seam_history *seam_session_history(const seam_session *s);
/* Applies ops[0..n) to the history, all or nothing, as
 * seam_history_apply_batch: on failure the history is unchanged. Every
 * change the session and the executor make to a history goes through these
 * operations (append: ADD, truncate: REMOVE, clear: CLEAR, the executor's
 * compression: COMPACT). */
SEAM_EXPORT int seam_session_apply(seam_session *s, const seam_op *ops, size_t n, size_t *failed,
                                   seam_error *err);
/* Makes h the history (the session keeps its own handle: free yours as
 * usual), e.g. to go back to an earlier state; the thread id becomes h's. A
 * call waiting for a person is forgotten. SEAM_ERR_INVALID for a NULL
 * argument, SEAM_ERR_NOMEM. */
SEAM_EXPORT int seam_session_set_history(seam_session *s, const seam_history *h);
/* The call waiting for a person after a paused executor run (NULL if none);
 * *name and *prompt (may be NULL) get its tool name and question. */
SEAM_EXPORT const char *seam_session_pending_call(const seam_session *s, const char **name,
                                                  const char **prompt);

/* Sends the history (system prompt + suffix, messages) as one model turn,
 * through the chain, with the retry policy, refreshing the credential first
 * when due. On success appends the assistant message to the history and
 * returns its result in *out (free it). No tool is run. */
SEAM_EXPORT int seam_session_send(seam_session *s, const seam_send_options *o,
                                  seam_result **out, seam_error *err);
/* Like seam_session_send but sends req's messages instead of the history, and
 * leaves the history alone. The session's system prompt, flags, cache strategy
 * and retry policy apply, and the defaults' model, parameters and provider
 * options where req sets none (not the defaults' tools); req's own system
 * prompt, when set, wins. */
SEAM_EXPORT int seam_session_send_request(seam_session *s, const seam_request *req,
                                          const seam_send_options *o, seam_result **out,
                                          seam_error *err);

/* A streamed seam_session_send. */
typedef struct seam_session_stream seam_session_stream;
SEAM_EXPORT int seam_session_stream_open(seam_session *s, const seam_send_options *o,
                                         seam_session_stream **out, seam_error *err);
/* 1 with a chunk (borrowed until the next call), 0 at the end (the assistant
 * message is then in the history), negative on failure. A retryable failure
 * before the first content chunk is retried transparently. */
SEAM_EXPORT int seam_session_stream_next(seam_session_stream *st, const seam_chunk **chunk,
                                         seam_error *err);
SEAM_EXPORT const seam_result *seam_session_stream_result(const seam_session_stream *st);
SEAM_EXPORT void seam_session_stream_free(seam_session_stream *st);

/* Forces a credential refresh now (the hook, then the providers' cached
 * credentials are read again). SEAM_OK when there is no hook. */
SEAM_EXPORT int seam_session_refresh_credential(seam_session *s, seam_error *err);

/* ---- the agent executor ---------------------------------------------------------------- */

typedef enum seam_event_kind {
    SEAM_EVENT_RESPONSE = 1,     /* a model turn finished: response */
    SEAM_EVENT_TOOL_CALL,        /* the model asked for a call: tool_* */
    SEAM_EVENT_TOOL_RESULT,      /* a call's result: tool_*, result_json, is_error */
    SEAM_EVENT_CONTEXT_COMPRESSED, /* the history was compressed: tokens_* */
    SEAM_EVENT_DONE,             /* the run ended: usage, iterations, reason */
    SEAM_EVENT_ERROR             /* the run failed: error, iteration */
} seam_event_kind;

/* "response", "tool_call", "tool_result", "context_compressed", "done", "error". */
SEAM_EXPORT const char *seam_event_kind_name(seam_event_kind k);

/* One event of a run; every pointer borrowed until the next seam_run_next. */
typedef struct seam_event {
    seam_event_kind kind;
    int iteration;                 /* 0-based model turn it belongs to */
    const seam_result *response;   /* response */
    const char *tool_call_id;      /* tool_call, tool_result */
    const char *tool_name;         /* tool_call, tool_result */
    const char *args_json;         /* tool_call */
    const char *result_json;       /* tool_result */
    int is_error;                  /* tool_result */
    int64_t tokens_before;         /* context_compressed */
    int64_t tokens_after;          /* context_compressed */
    const seam_usage *usage;       /* done: summed over the run (with cost when known) */
    int iterations;                /* done: model turns made */
    const char *reason;            /* done: "stop", "max_iterations" or "paused" */
    const char *pending_call_id;   /* done, paused: the call waiting for a person */
    const char *prompt;            /* done, paused: what to ask them (may be NULL) */
    const seam_error *error;       /* error: classified */
    /* Appended (issue 14): every event, the thread id of the session's
     * history when the run started (see seam_history_new). */
    const char *thread_id;
} seam_event;

typedef struct seam_executor seam_executor;

/* A context engine, consulted after each turn. Every member may be NULL except
 * compress. */
typedef struct seam_context_engine {
    uint32_t size;               /* sizeof(seam_context_engine) */
    /* 1 when the history (of about `tokens` tokens) should be compressed now. */
    int (*should_compress)(void *ud, const seam_session *s, int64_t tokens);
    /* Rewrites the session's history (seam_session_clear/append/truncate; may
     * call seam_executor_auxiliary). SEAM_OK or a negative status. */
    int (*compress)(void *ud, seam_executor *ex, seam_session *s, seam_error *err);
    /* Token estimate of the history; NULL: seam_estimate_tokens's rules (tokens.c). */
    int64_t (*estimate_tokens)(void *ud, const seam_session *s);
    void *ud;
} seam_context_engine;

/* A tool handler: takes the calls it can handle, before the toolset's own
 * callbacks. handle runs on a worker thread, may pause the run
 * (seam_tool_output_pause) and returns like a seam_tool_fn. */
typedef struct seam_tool_handler {
    uint32_t size;               /* sizeof(seam_tool_handler) */
    int (*can_handle)(void *ud, const char *tool_name);
    int (*handle)(void *ud, const seam_tool_call *call, seam_tool_output *out);
    void *ud;
} seam_tool_handler;

typedef struct seam_executor_options {
    uint32_t size;               /* sizeof(seam_executor_options) */
    const seam_toolset *tools;   /* definitions offered, and their callbacks (borrowed) */
    int max_iterations;          /* model turns per run, 0: 10 */
    int max_parallel_tools;      /* 0: one thread per call */
    /* NULL: the default engine when compress_at_tokens > 0 (keeps the first
     * keep_first and the last keep_last messages and replaces the middle by a
     * summary made with seam_executor_auxiliary), else no compression. */
    const seam_context_engine *context;
    int64_t compress_at_tokens;
    size_t keep_first;           /* 0: 1 */
    size_t keep_last;            /* 0: 4 */
    /* Applied to every turn (the tools are the executor's). Copied, but what it
     * points to (strings, retry policy, cancel token) is borrowed for the
     * executor's life. */
    const seam_send_options *send;
} seam_executor_options;

/* An executor over a session it borrows (which must outlive it). */
SEAM_EXPORT int seam_executor_new(seam_session *session, const seam_executor_options *opts,
                                  seam_executor **out, seam_error *err);
/* The role factory: an executor owning a new session on the role's chain
 * (session_opts may be NULL). */
SEAM_EXPORT int seam_executor_new_for_role(seam_client *client, const char *role,
                                           const seam_session_options *session_opts,
                                           const seam_executor_options *opts,
                                           seam_executor **out, seam_error *err);
SEAM_EXPORT void seam_executor_free(seam_executor *ex);
SEAM_EXPORT seam_session *seam_executor_session(seam_executor *ex);
/* Handlers are consulted in the order added; h is copied. */
SEAM_EXPORT int seam_executor_add_handler(seam_executor *ex, const seam_tool_handler *h);
/* A single turn with no tools and no history change: for summaries and other
 * side work. Sends req's messages through the executor's session. */
SEAM_EXPORT int seam_executor_auxiliary(seam_executor *ex, const seam_request *req,
                                        const seam_send_options *o, seam_result **out,
                                        seam_error *err);

/* A run: a pull iterator of events. */
typedef struct seam_run seam_run;

/* Starts a run: appends `input` (a user message; NULL: run on the history as it
 * is) and returns the iterator; nothing is sent before the first next.
 * cancel may be NULL. SEAM_ERR_INVALID while the session waits for a person
 * (use seam_executor_resume). */
SEAM_EXPORT int seam_executor_run(seam_executor *ex, const char *input, seam_cancel *cancel,
                                  seam_run **out, seam_error *err);
/* Continues a paused run: the person's answer (plain text) becomes the pending
 * call's result, then the run goes on. SEAM_ERR_INVALID when nothing waits. */
SEAM_EXPORT int seam_executor_resume(seam_executor *ex, const char *answer, seam_cancel *cancel,
                                     seam_run **out, seam_error *err);
/* What a run does with a failing tool call (its callback failed, or it is
 * an unknown tool, a declared tool with no callback or handler, arguments
 * that do not match its schema: any result with is_error set). */
typedef enum seam_tool_errors {
    /* The default, as the generation API (seam_loop_generate) does: the error
     * goes back to the model as the call's result, with is_error set, and
     * the run goes on. */
    SEAM_TOOL_ERRORS_AS_RESULTS = 0,
    /* The run ends: the turn's results (the failed one included) go into the
     * history so that it stays well-formed, their tool_result events come,
     * then an error event (kind unknown, code "tool_error") naming the
     * tool. */
    SEAM_TOOL_ERRORS_END_RUN
} seam_tool_errors;

/* The options of one run; zero-initialize and set size. Every member left
 * 0/NULL takes the executor's setting. Borrowed (with what they point to)
 * until the run is freed. */
typedef struct seam_run_options {
    uint32_t size;               /* sizeof(seam_run_options) */
    const seam_toolset *tools;   /* tools offered and run in this run */
    int max_iterations;          /* model turns of this run */
    int max_parallel_tools;
    const seam_send_options *send; /* every turn of this run (its tools member
                                    * is ignored: `tools` is the run's) */
    /* The deadline of the whole run, from the call that starts it: every
     * turn (all its retries), every tool and the compressions. When it
     * passes the run ends with an error event of kind timeout. 0: none (each
     * turn still has its own timeout from the send options or session). */
    int64_t timeout_ms;
    seam_cancel *cancel;         /* NULL: the send options' */
    seam_tool_errors tool_errors;
} seam_run_options;

/* Starts a run on a message array: appends copies of messages[0..n) to the
 * session's history (one batch of ADD operations: all or none) and returns
 * the run. n == 0 runs on the history as it is. opts may be NULL (the
 * executor's settings). Returns as seam_executor_run; SEAM_ERR_INVALID also
 * for a bad option (size unset, a negative count or timeout). */
SEAM_EXPORT int seam_executor_run_messages(seam_executor *ex, const seam_message *const *messages,
                                           size_t n, const seam_run_options *opts, seam_run **out,
                                           seam_error *err);
/* seam_executor_resume with the options of one run (opts may be NULL). */
SEAM_EXPORT int seam_executor_resume_with(seam_executor *ex, const char *answer,
                                          const seam_run_options *opts, seam_run **out,
                                          seam_error *err);
/* 1 with the next event (the last one is a done or an error event); then 0
 * after a done event, or the run's negative status with err filled after an
 * error event. */
SEAM_EXPORT int seam_run_next(seam_run *r, const seam_event **event, seam_error *err);
SEAM_EXPORT void seam_run_free(seam_run *r);

#ifdef __cplusplus
}
#endif
#endif /* SEAM_LOOP_H */
