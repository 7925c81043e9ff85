/* client.h — the client's internals shared by client.c, keys.c, catalog.c and
 * call.c: the loaded conf, the plugin registry, one slot per configured
 * provider (its plugin instance and its key pool with each key's cooldown,
 * rate-limit window and expiry), the clock the chain runner waits on, and the
 * libcurl share handle and the engine (one event loop per client). */
#ifndef SEAM_CLIENT_H
#define SEAM_CLIENT_H

#include "registry.h"
#include "state.h"
#include "transport.h"

#include <pthread.h>
#include <stdatomic.h>

/* One key of a provider's pool. A provider without any credential has one
 * keyless entry (src.kind 0, secret NULL) so that its cooldown lives in the
 * same place. Times are on the client's clock (seam_client_now). */
typedef struct seam_key {
    seam_cred_source src;
    char *secret;             /* resolved value; NULL until resolved or when keyless */
    int resolved;
    int dead;                 /* rejected by the provider (auth): unused until refreshed */
    int64_t expires_at;       /* 0: does not expire */
    unsigned generation;      /* bumped each time the secret changes */
    /* Its cooldown after a 429 and the rate-limit guard's window live in the
     * client's state store (keys.c names them), so that processes sharing a
     * store share them. */
} seam_key;

typedef struct seam_provider_slot {
    const seam_conf_provider *conf;
    atomic_int ready;               /* vt and instance below are set (see seam_client_slot) */
    seam_error load_error;          /* while not ready: why loading the plugin failed (resource) */
    const seam_provider_vtable *vt; /* NULL: plugin not loaded */
    void *instance;                 /* NULL when vt is NULL or create failed */
    char create_error[256];
    pthread_mutex_t lock;           /* the key pool below */
    seam_key *keys;                 /* at least one (see seam_key) */
    size_t n_keys;
    /* The round-robin position and the sticky key are in the state store too. */
} seam_provider_slot;

enum { SEAM_BLOCK_STREAM = 0, SEAM_BLOCK_TRANSFER = 1, SEAM_BLOCK_KINDS = 2 };

struct seam_client {
    seam_conf *conf;
    seam_registry *reg;
    seam_provider_slot *slots;
    size_t n_slots;
    pthread_mutex_t slots_lock;     /* the first use of a slot: loading its plugin */
    atomic_int curl_ready;          /* libcurl's global init and `share` are done */
    CURLSH *share;                  /* see seam_client_engine */
    pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
    seam_engine *engine;      /* every network transfer of the client runs here */
    /* The clock of the chain runner's policy (waits, cooldowns, key expiry):
     * seam_client_set_clock; NULL members mean the monotonic clock / a real
     * sleep that a cancel interrupts. */
    int64_t (*clock_now)(void *ud);
    int (*clock_sleep)(void *ud, int64_t ms, seam_cancel *cancel);
    void *clock_ud;
    void (*log)(void *ud, int level, const char *message); /* seam_client_set_log */
    void *log_ud;
    /* Cooldowns, key leases, the guard's windows, budgets: see
     * seam_client_store. Made on first need, under state_lock. */
    _Atomic(seam_state *) state;
    pthread_mutex_t state_lock;
    struct seam_cassettes *cassettes; /* SEAM_RECORD / SEAM_REPLAY (cassette.c), NULL: none */
    /* One block of each kind a call allocates, kept from the last call for
     * the next (seam_client_block_take): see there. */
    _Atomic(void *) spare[SEAM_BLOCK_KINDS];
};

/* A call's stream (call.c) and a transfer (transport.c) are a few KB each,
 * beyond malloc's small-size caches: each malloc and free of such a block
 * costs more than the rest of a short call's bookkeeping (and consolidates
 * the allocator's small bins). The client keeps the last one of each kind
 * freed and hands it to the next call, zeroed. Thread-safe; c may be NULL
 * (plain calloc and free). */
void *seam_client_block_take(seam_client *c, int kind, size_t size);
void seam_client_block_give(seam_client *c, int kind, void *block);

/* The client's state store (state.h), made on first use (which loads the
 * state backend plugin the conf names). NULL only when out of memory; the
 * state functions take NULL as "nothing known". Thread-safe. */
seam_state *seam_client_store(seam_client *c);

/* The slot of a configured provider, NULL when none. Its plugin is loaded and
 * its instance created on the first call for it (from any thread). */
seam_provider_slot *seam_client_slot(seam_client *c, const char *provider_name);
/* 1, with *err filled (kind resource), when the slot's plugin could not be
 * loaded for want of descriptors or memory at its last use: vt is NULL, and
 * the next seam_client_slot tries again. 0 otherwise. */
int seam_client_slot_load_error(seam_client *c, seam_provider_slot *s, seam_error *err);
/* The loader's refusal that explains a missing provider id `plugin`, as
 * seam_registry_refusal (1: its own file, 2: another file; 0: none). */
int seam_client_plugin_refusal(seam_client *c, const char *plugin, char *buf, size_t size);

/* The client's engine (NULL when it could not be made); the first call
 * initialises libcurl for this client, its share handle and the engine, so a
 * client that never goes to the network never pays for them. Thread-safe. */
seam_engine *seam_client_engine(seam_client *c);

/* A notice to the client's log callback (seam_client_set_log), if it has
 * one: printf-formatted, cut to one line of at most 511 bytes. c may be NULL. */
void seam_client_log(seam_client *c, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The policy clock: milliseconds, and a sleep that returns 1 when cancelled. */
int64_t seam_client_now(const seam_client *c);
int seam_client_sleep(const seam_client *c, int64_t ms, seam_cancel *cancel);

/* ---- keys.c: key pools, rotation, cooldowns, the rate-limit guard ---------- */

/* Sets up a slot's pool from its conf (nothing is resolved yet). */
int seam_keys_init(seam_provider_slot *s);
void seam_keys_free(seam_provider_slot *s);

/* A key handed to one attempt. */
typedef struct seam_key_lease {
    size_t index;
    int cooling;  /* the store had it cooling when it was handed out (a retry) */
    unsigned generation;
    char *secret; /* private copy (seam_secret_free); NULL for a keyless provider */
} seam_key_lease;

/* What seam_keys_acquire decided. */
typedef enum seam_key_verdict {
    SEAM_KEY_READY = 0,   /* *lease filled; wait *wait_ms first when > 0 (guard) */
    SEAM_KEY_NONE,        /* no usable credential: why says which (kind auth) */
    SEAM_KEY_COOLING      /* every key is cooling or exhausted: why is a rate_limit
                           * error whose retry_after_ms says for how long */
} seam_key_verdict;

/* Picks the key for an attempt on slot s by the provider's key_selection
 * (affinity: the sticky key of a session, may be NULL). Dead keys are passed
 * over; keys past (or within 60 s of) their expiry are refreshed first; keys
 * cooling after a 429 and keys the rate-limit guard saw exhausted are passed
 * over unless `retrying` (the chain's retry rules already waited); exhausted
 * keys are waited for instead with rate_limit_guard = "wait" (up to
 * max_wait_ms; *wait_ms says how long). A key command that runs stops at a
 * trigger of cancel (may be NULL). Returns
 * SEAM_OK with the verdict in *verdict, or SEAM_ERR_NOMEM. */
int seam_keys_acquire(seam_client *c, seam_provider_slot *s, const char *affinity, int retrying,
                      int64_t max_wait_ms, seam_cancel *cancel, seam_key_lease *lease,
                      int64_t *wait_ms, seam_key_verdict *verdict, seam_error *why);
void seam_keys_lease_release(seam_key_lease *lease);

/* The attempt succeeded: the key is not cooling any more. */
void seam_keys_succeeded(seam_client *c, seam_provider_slot *s, const seam_key_lease *lease);
/* A 429 on the key: it cools until `until` (client clock ms). */
void seam_keys_rate_limited(seam_client *c, seam_provider_slot *s, const seam_key_lease *lease,
                            int64_t until);
/* The provider rejected the key (auth). Its source is resolved again; when
 * that gives no new value and the pool has other keys, the key is marked dead
 * (a single key is not: the next request asks the provider again). Returns 1
 * when one more attempt can be made (a refreshed key, or another live key). */
int seam_keys_rejected(seam_client *c, seam_provider_slot *s, const seam_key_lease *lease,
                       seam_cancel *cancel);
/* Rate-limit guard: reads the rate-limit headers ("name: value\n" lines, as in
 * seam_error.ratelimit) that came with an answer on this key; a window whose
 * remaining count is 0 marks the key exhausted until the window resets. */
void seam_keys_observe_ratelimit(seam_client *c, seam_provider_slot *s,
                                 const seam_key_lease *lease, const char *headers);
/* Parses an OpenAI reset duration ("1s", "6m0s", "20ms", "1h2m3.5s") to ms; -1 if invalid. */
int64_t seam_parse_reset_duration(const char *v);
/* Parses an RFC 3339 time ("2024-01-01T00:00:00Z") to Unix seconds; -1 if invalid. */
int64_t seam_parse_rfc3339(const char *v);

/* ---- catalog.c: the model catalog, capabilities, the input estimate, cost --- */

/* The catalog entry for model on slot s, NULL when the model is unknown. */
const seam_conf_model *seam_catalog_find(const seam_client *c, const seam_provider_slot *s,
                                         const char *model);
/* Why the model cannot serve req (a capability it lacks, or an input estimate
 * (seam_estimate_tokens) beyond its context window): returns 1 and fills why,
 * else 0. Capabilities come from the user's `models` entry, else the plugin,
 * else the shipped catalog; nothing known means nothing is skipped. */
int seam_catalog_cannot_serve(const seam_client *c, const seam_provider_slot *s,
                              const char *model, const seam_request *req, seam_error *why);
/* Whether model on slot s is an embedding model, from the same sources in the
 * same order: 1 yes, 0 known not to be, -1 unknown. */
int seam_catalog_embeds(const seam_client *c, const seam_provider_slot *s, const char *model);
/* Prices usage against the entry m: sets cost_microcents and its present bit
 * when m is priced and the usage holds any count; leaves them unset otherwise.
 * Returns 1 when priced. */
int seam_catalog_price(const seam_conf_model *m, seam_usage *usage);

/* ---- call.c: operations other than generation through the chain runner ------ */

/* An operation (embeddings, a token count) run with the chain's policy:
 * skips, keys, retries, cooldowns, failover, attempt reports, usage priced
 * per attempt. The transfer is never streamed. */
typedef struct seam_call_op {
    /* 1 with why filled when the entry (slot, model) cannot serve the
     * operation; replaces the catalog's test of a generation request, and
     * applies to a single-provider call too. May be NULL. */
    int (*cannot_serve)(void *ud, const seam_client *c, const seam_provider_slot *s,
                        const char *model, seam_error *why);
    /* See seam_transfer_params.op_encode / op_decode: req is the call's
     * request with the entry's model set. */
    int (*encode)(void *ud, const seam_provider_vtable *vt, void *instance,
                  const seam_request *req, seam_http_request *out, seam_error *err);
    int (*decode)(void *ud, const seam_provider_vtable *vt, void *instance,
                  const seam_request *req, const char *body, size_t len, seam_emitter *out,
                  seam_error *err);
    void *ud;
} seam_call_op;

/* ---- provcache.c: provider-side prompt caches (plugin ABI 1.4) ------------- */

typedef struct seam_pcache {
    int active;        /* its creating transfer is the attempt's transfer */
    char name[400];    /* the state store's name for the handle */
    char handle[512];  /* from cache_decode, or from the store */
    int64_t ttl_ms;
} seam_pcache;

/* Before an attempt with params p on key key_index (SIZE_MAX: the caller's
 * own credential) of provider: when the codec asks for a cache for sent, its
 * handle from the store goes onto sent (0 returned), or the transfer that
 * creates it is opened into *t (1 returned, pc->active set). 0 with nothing
 * done when no cache applies or it cannot be made; SEAM_ERR_NOMEM. */
int seam_pcache_begin(seam_client *c, const seam_transfer_params *p, const char *provider,
                      size_t key_index, seam_request *sent, seam_pcache *pc, seam_transfer **t);
/* The creating transfer ended with status (err e): on success the handle is
 * stored and put on sent; a failure is logged (never fails the call).
 * SEAM_OK or SEAM_ERR_NOMEM. */
int seam_pcache_end(seam_client *c, seam_pcache *pc, int status, const seam_error *e,
                    seam_request *sent, const char *provider);

/* Runs op as seam_generate runs a request: req (messages optional) carries
 * the model unless the plan gives one. On success *out is the result, whose
 * usage is the whole call's (priced) and whose origin is the entry that
 * answered; op's decode kept what it decoded in op->ud. */
int seam_call_run_op(seam_client *client, const seam_request *req, const seam_call_options *opts,
                     const seam_call_op *op, seam_result **out, seam_error *err);

#endif
