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
/* Replaces every occurrence of secret (if non-empty, >= 4 chars) in s by "<redacted>". */
void seam_redact(char *s, size_t size, const char *secret);
/* Monotonic milliseconds. */
int64_t seam_now_ms(void);
/* Wipes and frees a secret string. */
void seam_secret_free(char *s);

/* ---- message.c / request.c ------------------------------------------------ */

/* Drops every reasoning part (and its signature) from every message: done before
 * a request crosses to a different provider. Returns the number removed. */
size_t seam_request_strip_reasoning(seam_request *req);
/* 1 when text parses as JSON (and, when want_object, is a JSON object). */
int seam_json_is_valid(const char *text, int want_object);

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
    char *file;                  /* where defined */
    int line;
} seam_conf_chain;

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
} seam_conf_provider;

typedef struct seam_conf_role {
    char *name;
    char *chain;
} seam_conf_role;

typedef struct seam_conf {
    char *path;             /* main file, NULL for an empty conf */
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
 * Chains referring to unknown providers are an error too. */
int seam_conf_load(const char *path, seam_conf **out, seam_error *err);
void seam_conf_free(seam_conf *conf);
const seam_conf_provider *seam_conf_find_provider(const seam_conf *c, const char *name);
const seam_conf_chain *seam_conf_find_chain(const seam_conf *c, const char *name);

/* ---- credential.c ---------------------------------------------------------- */

/* Resolves the provider's credential: api_key_env, api_key_file (first line,
 * trimmed), api_key_command (stdout, first line, trimmed), api_key, in that order
 * of preference among those configured. Returns SEAM_OK with *out malloc'ed (free
 * with seam_secret_free), SEAM_OK with *out NULL when none is configured at all,
 * or SEAM_ERR_NO_CREDENTIAL with err filled (never holding the secret) when one is
 * configured but unavailable (unset variable, unreadable file, failing command). */
int seam_credential_resolve(const seam_conf_provider *p, char **out, seam_error *err);
/* A description such as "env OPENAI_API_KEY" (static or borrowed from p). */
const char *seam_credential_source(const seam_conf_provider *p);

#endif /* SEAM_INTERNAL_H */
