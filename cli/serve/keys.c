/* keys.c — the gateway's `serve` conf section and its keys: each key is
 * stored as the sha256 of its text (a leaked conf leaks no key), names what it
 * may use (chains, roles, PROVIDER/MODEL, PROVIDER/ * or *), and carries a
 * budget in micro-cents and request and token rate limits per minute. The
 * budget is also kept in the client's state store (seam_budget_check/_debit,
 * under "serve:HASH"), so that gateways sharing a store (the conf's `state`
 * section, e.g. Redis) spend one budget between them; the process's own count
 * stands in when the store is away and survives a reload. The rate limits are
 * token buckets of this process, refilled continuously, and fixed one-minute
 * windows in the store, which every gateway sharing it counts against. A key
 * is compared by its hash, in constant time, and never printed. */
#include "config.h"

#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libconfig.h>

typedef struct gw_key {
    char name[64];
    char hash[65];
    char **allow;            /* NULL: everything */
    size_t nallow;
    int64_t budget_microcents; /* 0: none */
    int64_t rpm, tpm;          /* 0: no limit */
    /* counters, under the keys' mutex */
    double req_tokens, tok_tokens;
    int64_t last_us;
    int64_t spent_microcents;
} gw_key;

struct serve_keys {
    pthread_mutex_t mu;
    gw_key *k;
    size_t n;
};

/* ---- the conf section ------------------------------------------------------------------ */

/* An unknown key is refused with FILE:LINE, as the core does for its own
 * sections: a misspelt requests_per_minute must not leave a key unlimited. */
static int check_names(const config_setting_t *g, const char *where, const char *const *names,
                       char *msg, size_t msgsize)
{
    for (int i = 0; i < config_setting_length(g); i++) {
        const config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(m);
        int known = 0;
        for (const char *const *n = names; *n; n++)
            known |= name && strcmp(name, *n) == 0;
        if (!known) {
            sbuf list = { 0 };
            for (const char *const *n = names; *n; n++)
                sb_printf(&list, "%s%s", n == names ? "" : ", ", *n);
            snprintf(msg, msgsize, "%s:%d: unknown setting %s.%s (expected one of: %s)",
                     config_setting_source_file(m) ? config_setting_source_file(m) : "conf",
                     config_setting_source_line(m), where, name ? name : "?",
                     list.p ? list.p : "");
            sb_free(&list);
            return -1;
        }
    }
    return 0;
}

static int64_t get_int(const config_setting_t *s, const char *name, int64_t dflt)
{
    long long v;
    if (config_setting_lookup_int64(s, name, &v))
        return v;
    int i;
    if (config_setting_lookup_int(s, name, &i))
        return i;
    return dflt;
}

static int load_key(gw_key *k, const config_setting_t *ks, char *msg, size_t msgsize)
{
    static const char *const key_names[] = { "sha256", "models", "budget_microcents",
                                             "requests_per_minute", "tokens_per_minute", NULL };
    const char *name = config_setting_name(ks);
    char where[128];
    snprintf(where, sizeof where, "serve.keys.%s", name ? name : "?");
    if (!config_setting_is_group(ks)) {
        snprintf(msg, msgsize, "%s:%d: %s must be a group { sha256 = \"...\"; ... }",
                 config_setting_source_file(ks) ? config_setting_source_file(ks) : "conf",
                 config_setting_source_line(ks), where);
        return -1;
    }
    if (check_names(ks, where, key_names, msg, msgsize) < 0)
        return -1;
    snprintf(k->name, sizeof k->name, "%s", name);
    const char *hash;
    if (!config_setting_lookup_string(ks, "sha256", &hash) || strlen(hash) != 64 ||
        strspn(hash, "0123456789abcdefABCDEF") != 64) {
        snprintf(msg, msgsize, "%s:%d: serve.keys.%s.sha256 must be 64 hex digits (the sha256 "
                 "of the key: printf %%s KEY | sha256sum)",
                 config_setting_source_file(ks) ? config_setting_source_file(ks) : "conf",
                 config_setting_source_line(ks), name);
        return -1;
    }
    for (int i = 0; i < 64; i++)
        k->hash[i] = (char)(hash[i] | 0x20); /* lower case */
    k->hash[64] = '\0';
    const config_setting_t *models = config_setting_get_member(ks, "models");
    if (models) {
        int n = config_setting_length(models);
        k->allow = calloc((size_t)n + 1, sizeof *k->allow);
        for (int i = 0; k->allow && i < n; i++) {
            const char *m = config_setting_get_string_elem(models, i);
            if (m)
                k->allow[k->nallow++] = strdup(m);
        }
    }
    k->budget_microcents = get_int(ks, "budget_microcents", 0);
    k->rpm = get_int(ks, "requests_per_minute", 0);
    k->tpm = get_int(ks, "tokens_per_minute", 0);
    k->req_tokens = (double)k->rpm;
    k->tok_tokens = (double)k->tpm;
    k->last_us = serve_now_us();
    return 0;
}

int keys_load(const char *conf_path, serve_keys **out, serve_conf *sc, char *msg, size_t msgsize)
{
    serve_keys *ks = calloc(1, sizeof *ks);
    if (!ks) {
        snprintf(msg, msgsize, "out of memory");
        return -1;
    }
    pthread_mutex_init(&ks->mu, NULL);
    *out = ks;
    if (!conf_path)
        return 0;
    config_t cf;
    config_init(&cf);
    if (!config_read_file(&cf, conf_path)) {
        snprintf(msg, msgsize, "%s:%d: %s", config_error_file(&cf) ? config_error_file(&cf) :
                 conf_path, config_error_line(&cf), config_error_text(&cf));
        config_destroy(&cf);
        return -1;
    }
    int rc = 0;
    static const char *const serve_names[] = { "listen", "threads", "drain_timeout_ms",
                                               "max_body_bytes", "access_log", "keys",
                                               "always_stream_upstream", NULL };
    const config_setting_t *s = config_lookup(&cf, "serve");
    if (s && (!config_setting_is_group(s) || check_names(s, "serve", serve_names, msg,
                                                          msgsize) < 0)) {
        if (!config_setting_is_group(s))
            snprintf(msg, msgsize, "%s:%d: serve must be a group { ... }", conf_path,
                     config_setting_source_line(s));
        rc = -1;
        s = NULL;
    }
    if (s) {
        const char *str;
        if (config_setting_lookup_string(s, "listen", &str))
            snprintf(sc->listen, sizeof sc->listen, "%s", str);
        if (config_setting_lookup_string(s, "access_log", &str))
            snprintf(sc->access_log, sizeof sc->access_log, "%s", str);
        sc->threads = (int)get_int(s, "threads", sc->threads);
        sc->drain_ms = get_int(s, "drain_timeout_ms", sc->drain_ms);
        sc->max_body = get_int(s, "max_body_bytes", sc->max_body);
        int b;
        if (config_setting_lookup_bool(s, "always_stream_upstream", &b))
            sc->always_stream = b != 0;
        const config_setting_t *keys = config_setting_get_member(s, "keys");
        int n = keys ? config_setting_length(keys) : 0;
        if (n > 0 && !(ks->k = calloc((size_t)n, sizeof *ks->k))) {
            snprintf(msg, msgsize, "out of memory");
            rc = -1;
        }
        for (int i = 0; rc == 0 && i < n; i++) {
            if (load_key(&ks->k[i], config_setting_get_elem(keys, (unsigned)i), msg, msgsize) < 0)
                rc = -1;
            ks->n = (size_t)i + 1;
        }
    }
    config_destroy(&cf);
    return rc;
}

void keys_free(serve_keys *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->n; i++) {
        for (size_t j = 0; j < k->k[i].nallow; j++)
            free(k->k[i].allow[j]);
        free(k->k[i].allow);
    }
    free(k->k);
    pthread_mutex_destroy(&k->mu);
    free(k);
}

size_t keys_count(const serve_keys *k)
{
    return k ? k->n : 0;
}

void keys_carry(serve_keys *to, serve_keys *from)
{
    if (!to || !from)
        return;
    pthread_mutex_lock(&from->mu);
    for (size_t i = 0; i < to->n; i++)
        for (size_t j = 0; j < from->n; j++)
            if (strcmp(to->k[i].hash, from->k[j].hash) == 0) {
                to->k[i].spent_microcents = from->k[j].spent_microcents;
                to->k[i].req_tokens = from->k[j].req_tokens < (double)to->k[i].rpm ?
                                      from->k[j].req_tokens : (double)to->k[i].rpm;
                to->k[i].tok_tokens = from->k[j].tok_tokens < (double)to->k[i].tpm ?
                                      from->k[j].tok_tokens : (double)to->k[i].tpm;
            }
    pthread_mutex_unlock(&from->mu);
}

int keys_check(serve_keys *k, const char *presented, int *index, char *name, size_t namesize,
               serve_err *e)
{
    *index = -1;
    name[0] = '\0';
    if (!k || k->n == 0)
        return 0;
    if (!presented || !*presented) {
        serve_err_set(e, 401, SEAM_ERROR_AUTH, "missing_api_key",
                      "This gateway needs a key: send Authorization: Bearer KEY (or x-api-key)");
        return -1;
    }
    char hex[65];
    seam_sha256_hex(presented, strlen(presented), hex);
    int found = -1;
    for (size_t i = 0; i < k->n; i++) {
        unsigned char diff = 0;
        for (int j = 0; j < 64; j++)
            diff |= (unsigned char)(hex[j] ^ k->k[i].hash[j]);
        if (diff == 0 && found < 0)
            found = (int)i;
    }
    if (found < 0) {
        serve_err_set(e, 401, SEAM_ERROR_AUTH, "invalid_api_key", "Incorrect API key provided");
        return -1;
    }
    *index = found;
    snprintf(name, namesize, "%s", k->k[found].name);
    return 0;
}

static int pattern_ok(const char *pat, const char *name, const char *chain, const char *provider,
                      const char *model)
{
    if (strcmp(pat, "*") == 0 || strcmp(pat, name) == 0 || (chain && strcmp(pat, chain) == 0))
        return 1;
    size_t n = strlen(pat);
    if (provider && n >= 2 && strcmp(pat + n - 2, "/*") == 0 && strlen(provider) == n - 2 &&
        strncmp(pat, provider, n - 2) == 0)
        return 1;
    if (provider && model) {
        size_t pl = strlen(provider);
        if (n == pl + 1 + strlen(model) && strncmp(pat, provider, pl) == 0 && pat[pl] == '/' &&
            strcmp(pat + pl + 1, model) == 0)
            return 1;
    }
    return 0;
}

int keys_allows(const serve_keys *k, int index, const char *name, const char *chain,
                const char *provider, const char *model)
{
    if (!k || index < 0 || (size_t)index >= k->n || !k->k[index].allow)
        return 1;
    const gw_key *key = &k->k[index];
    for (size_t i = 0; i < key->nallow; i++)
        if (pattern_ok(key->allow[i], name, chain, provider, model))
            return 1;
    return 0;
}

static void refill(gw_key *k, int64_t now)
{
    double dt = (double)(now - k->last_us) / 60e6;
    k->last_us = now;
    if (k->rpm) {
        k->req_tokens += dt * (double)k->rpm;
        if (k->req_tokens > (double)k->rpm)
            k->req_tokens = (double)k->rpm;
    }
    if (k->tpm) {
        k->tok_tokens += dt * (double)k->tpm;
        if (k->tok_tokens > (double)k->tpm)
            k->tok_tokens = (double)k->tpm;
    }
}

/* A budget's life in the shared store: a year, i.e. until the conf changes it
 * (a store name needs a TTL; the gateway's budgets do not reset by time). */
#define BUDGET_WINDOW_MS ((int64_t)366 * 24 * 3600 * 1000)

static void budget_name(const gw_key *key, char *buf, size_t size)
{
    snprintf(buf, size, "serve:%s", key->hash);
}

/* 1 when the shared store says the key's budget is spent (by any gateway). */
static int shared_budget_spent(seam_client *client, const gw_key *key)
{
    if (!client || key->budget_microcents <= 0)
        return 0;
    char name[80];
    budget_name(key, name, sizeof name);
    seam_error err;
    seam_error_clear(&err);
    return seam_budget_check(client, name, key->budget_microcents, NULL, &err) == 0;
}

/* The shared store's view of the key's rate limits, taken after this
 * process's own buckets admitted the request: the requests of this minute's
 * window (counting this one) and the tokens charged in it, across every
 * gateway sharing the store. 0 when within both, else -1 with e filled. The
 * store keeps fixed one-minute windows and does not say when one started, so
 * Retry-After is the spacing the limit allows, not the window's end. */
static int shared_rates_admit(seam_client *client, const gw_key *key, serve_err *e)
{
    if (!client || (!key->rpm && !key->tpm))
        return 0;
    char name[96];
    seam_error err;
    seam_error_clear(&err);
    if (key->tpm) {
        snprintf(name, sizeof name, "serve:%s:tpm", key->hash);
        if (seam_budget_check(client, name, key->tpm, NULL, &err) == 0) {
            serve_err_set(e, 429, SEAM_ERROR_RATE_LIMIT, "rate_limit_exceeded",
                          "Rate limit reached for this key: %lld tokens per minute",
                          (long long)key->tpm);
            e->retry_after_ms = 60000;
            return -1;
        }
    }
    if (key->rpm) {
        snprintf(name, sizeof name, "serve:%s:rpm", key->hash);
        if (seam_rate_take(client, name, key->rpm, 60000, &err) == 0) {
            serve_err_set(e, 429, SEAM_ERROR_RATE_LIMIT, "rate_limit_exceeded",
                          "Rate limit reached for this key: %lld requests per minute",
                          (long long)key->rpm);
            e->retry_after_ms = 60000 / key->rpm + 1;
            return -1;
        }
    }
    return 0;
}

int keys_admit(serve_keys *k, seam_client *client, int index, const serve_call *c, serve_err *e)
{
    if (!k || index < 0)
        return 0;
    gw_key *key = &k->k[index];
    if (!keys_allows(k, index, c->model, c->route_chain, c->route_provider, c->route_model)) {
        serve_err_set(e, 403, SEAM_ERROR_AUTH, "model_not_allowed",
                      "This key may not use '%.200s'", c->model);
        return -1;
    }
    /* The store is asked outside the keys' lock: it may take up to its timeout. */
    int shared_spent = shared_budget_spent(client, key);
    pthread_mutex_lock(&k->mu);
    refill(key, serve_now_us());
    int rc = 0;
    if (key->budget_microcents > 0 &&
        (key->spent_microcents >= key->budget_microcents || shared_spent)) {
        serve_err_set(e, 429, SEAM_ERROR_RATE_LIMIT, "insufficient_quota",
                      "This key has spent its budget");
        rc = -1;
    } else if (key->rpm && key->req_tokens < 1.0) {
        serve_err_set(e, 429, SEAM_ERROR_RATE_LIMIT, "rate_limit_exceeded",
                      "Rate limit reached for this key: %lld requests per minute",
                      (long long)key->rpm);
        e->retry_after_ms = (int64_t)((1.0 - key->req_tokens) * 60000.0 / (double)key->rpm) + 1;
        rc = -1;
    } else if (key->tpm && key->tok_tokens <= 0.0) {
        serve_err_set(e, 429, SEAM_ERROR_RATE_LIMIT, "rate_limit_exceeded",
                      "Rate limit reached for this key: %lld tokens per minute",
                      (long long)key->tpm);
        e->retry_after_ms = (int64_t)((1.0 - key->tok_tokens) * 60000.0 / (double)key->tpm) + 1;
        rc = -1;
    } else if (key->rpm) {
        key->req_tokens -= 1.0;
    }
    pthread_mutex_unlock(&k->mu);
    if (rc == 0 && shared_rates_admit(client, key, e) < 0) {
        if (key->rpm) { /* this process's token goes back: the request is not sent */
            pthread_mutex_lock(&k->mu);
            key->req_tokens += 1.0;
            pthread_mutex_unlock(&k->mu);
        }
        rc = -1;
    }
    return rc;
}

void keys_charge(serve_keys *k, seam_client *client, int index, const seam_usage *u)
{
    if (!k || index < 0 || (size_t)index >= k->n)
        return;
    gw_key *key = &k->k[index];
    int64_t tokens = (u->present & SEAM_USAGE_INPUT ? u->input_tokens : 0) +
                     (u->present & SEAM_USAGE_OUTPUT ? u->output_tokens : 0) +
                     (u->present & SEAM_USAGE_CACHE_READ ? u->cache_read_tokens : 0) +
                     (u->present & SEAM_USAGE_CACHE_WRITE ? u->cache_write_tokens : 0);
    pthread_mutex_lock(&k->mu);
    refill(key, serve_now_us());
    if (key->tpm)
        key->tok_tokens -= (double)tokens;
    if (u->present & SEAM_USAGE_COST)
        key->spent_microcents += u->cost_microcents;
    pthread_mutex_unlock(&k->mu);
    seam_error err;
    seam_error_clear(&err);
    if (client && key->budget_microcents > 0 && (u->present & SEAM_USAGE_COST) &&
        u->cost_microcents > 0) {
        char name[80];
        budget_name(key, name, sizeof name);
        seam_budget_debit(client, name, u->cost_microcents, BUDGET_WINDOW_MS, NULL, &err);
    }
    if (client && key->tpm && tokens > 0) {
        char name[96];
        snprintf(name, sizeof name, "serve:%s:tpm", key->hash);
        seam_budget_debit(client, name, tokens, 60000, NULL, &err);
    }
}
