/* state.h — the client's state store: what the chain runner remembers between
 * requests (cooldowns, the rate-limit guard's windows, key-pool leases, the
 * round-robin position) and what budgets, rate limits and checkpoints count,
 * behind one interface. The in-process store ("local") is always there; a
 * state backend plugin (state.backend in the conf) makes it shared across
 * processes, with the local store standing in whenever the backend is away. */
#ifndef SEAM_STATE_H
#define SEAM_STATE_H

#include "internal.h"
#include "registry.h"

typedef struct seam_state seam_state;

/* The clock of the local store (the client's policy clock) and where notices go. */
typedef struct seam_state_hooks {
    int64_t (*now)(void *ud);
    void *now_ud;
    void (*log)(void *ud, int level, const char *message);
    void *log_ud;
} seam_state_hooks;

/* A store for conf (NULL or backend "local": in-process only). A backend that
 * is not installed or refuses its conf is reported once through hooks->log and
 * the local store serves alone. NULL only when out of memory. */
seam_state *seam_state_new(const seam_conf_state *conf, seam_registry *reg,
                           const seam_state_hooks *hooks);
void seam_state_free(seam_state *st);

/* Each operation below is made on the shared store when there is one and it
 * answers (within its timeout), and on the local store otherwise; writes go to
 * the local store as well, so that an outage starts from what this process
 * knew. None fails for want of the shared store. */

/* `name` holds for at least ttl_ms more. */
void seam_state_hold(seam_state *st, const char *name, int64_t ttl_ms);
void seam_state_drop(seam_state *st, const char *name);
/* left_ms[i]: how long names[i] still holds (the longer of the two stores), 0 if not. */
void seam_state_left(seam_state *st, const char *const *names, size_t n, int64_t *left_ms);
/* A counter (see seam_state_vtable.add). Returns 1 when added, 0 when refused
 * by limit, SEAM_ERR_NOMEM; *value (may be NULL) the value afterwards. */
int seam_state_add(seam_state *st, const char *name, int64_t delta, int64_t limit,
                   int64_t ttl_ms, int64_t *value);
/* A binding (see seam_state_vtable.bind): what name holds afterwards, or -1 out of memory. */
int64_t seam_state_bind(seam_state *st, const char *name, int64_t proposal, int force,
                        int64_t ttl_ms);
/* Checkpoints: a blob for ttl_ms; get gives a malloc'ed copy, or *data NULL. */
int seam_state_put(seam_state *st, const char *name, const void *data, size_t len,
                   int64_t ttl_ms);
int seam_state_get(seam_state *st, const char *name, void **data, size_t *len);
/* Names beginning with prefix, from the shared store when it answers, else the
 * local one; at most max. Returns SEAM_OK. */
int seam_state_scan(seam_state *st, const char *prefix, size_t max,
                    void (*fn)(void *ud, const char *name, int64_t value, int64_t left_ms),
                    void *ud);
/* "local", or the backend's description; *shared 1 while the shared store is
 * in use (not given up, not away); why the local store stands in otherwise. */
void seam_state_describe(seam_state *st, char *buf, size_t size, int *shared);

#endif
