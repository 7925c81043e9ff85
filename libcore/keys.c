/* keys.c — a provider's key pool and the state the chain runner shares across
 * every request of a client: which key the next attempt uses (round robin, or
 * sticky per affinity so a provider's prompt cache stays warm), keys rejected
 * by the provider (dead until a refresh gives a new value), keys cooling after
 * a 429, keys the rate-limit guard saw exhausted (x-ratelimit-remaining-* /
 * anthropic-ratelimit-*-remaining at 0) until their window resets, and keys
 * refreshed before they expire. What other processes may share lives in the
 * client's state store (state.h) under names this file owns:
 *   cool:PROVIDER:I        key I cools after a 429 (its time to live)
 *   exh:PROVIDER:I         the guard saw key I's window exhausted
 *   rr:PROVIDER            round robin: a counter, the next key is its value mod n
 *   sticky:PROVIDER        sticky without affinity: the key in use
 *   lease:PROVIDER:HASH    sticky: the key a session (hashed) is bound to
 * Secrets, expiry and dead keys stay in the slot, under its mutex: each process
 * resolves its own credentials. Times are on the client's policy clock. A
 * secret never reaches an error or the store. */
#include "config.h"
#include "client.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* A key is refreshed when it has less than this left (issue 6: "under 60 s"). */
#define REFRESH_MARGIN_MS 60000
/* A window reported exhausted without any reset time: the usual per-minute window. */
#define GUARD_DEFAULT_WINDOW_MS 60000
#define NEVER INT64_MAX
/* How long a session stays bound to its key without a request: a provider's
 * prompt cache lives minutes to an hour. */
#define LEASE_TTL_MS 3600000
/* The round-robin counter is only a position: losing it after a quiet day costs nothing. */
#define RR_TTL_MS 86400000
/* Room for a store name: a kind, a provider's conf name, an index or a hash. */
#define NAME_MAX_LEN 320

/* The store's name for key i of slot s under kind ("cool", "exh"):
 * "kind:provider:i", cut to NAME_MAX_LEN - 1 bytes as snprintf would cut it.
 * Written by hand: every request names each key of its provider twice, and
 * snprintf was most of what picking a key cost. */
static void key_name(char *buf, const char *kind, const seam_provider_slot *s, size_t i)
{
    char digits[24];
    size_t nd = 0;
    do {
        digits[sizeof digits - ++nd] = (char)('0' + i % 10);
        i /= 10;
    } while (i);
    const char *parts[] = {kind, ":", s->conf->name, ":"};
    size_t at = 0;
    for (size_t k = 0; k <= sizeof parts / sizeof parts[0]; k++) {
        const char *p = k < 4 ? parts[k] : digits + sizeof digits - nd;
        size_t n = k < 4 ? strlen(p) : nd;
        if (n > NAME_MAX_LEN - 1 - at)
            n = NAME_MAX_LEN - 1 - at;
        memcpy(buf + at, p, n);
        at += n;
    }
    buf[at] = '\0';
}

int seam_keys_init(seam_provider_slot *s)
{
    seam_cred_source *pool = NULL;
    size_t n = 0;
    if (seam_credential_pool(s->conf, &pool, &n) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    s->keys = calloc(n ? n : 1, sizeof *s->keys);
    if (!s->keys) {
        free(pool);
        return SEAM_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        s->keys[i].src = pool[i];
    s->n_keys = n ? n : 1; /* keyless: one entry with src.kind 0 */
    for (size_t i = 0; i < s->n_keys; i++)
        s->keys[i].expires_at = NEVER;
    free(pool);
    return SEAM_OK;
}

void seam_keys_free(seam_provider_slot *s)
{
    for (size_t i = 0; i < s->n_keys; i++)
        seam_secret_free(s->keys[i].secret);
    free(s->keys);
    s->keys = NULL;
    s->n_keys = 0;
}

static int keyless(const seam_key *k)
{
    return k->src.kind == 0;
}

/* Resolves key k (again). Returns 1 when it holds a secret afterwards; *changed
 * tells whether the value is new (a refresh that worked). */
static int resolve_key(seam_client *c, seam_provider_slot *s, seam_key *k, seam_cancel *cancel,
                       int *changed, int *nomem, seam_error *why)
{
    *changed = 0;
    char *v = NULL;
    int64_t expires_in = -1;
    seam_error e;
    seam_error_clear(&e);
    int rc = seam_credential_resolve_source(s->conf, &k->src, &v, &expires_in, cancel, &e);
    if (rc == SEAM_ERR_NOMEM) {
        *nomem = 1;
        return 0;
    }
    if (rc != SEAM_OK || !v) {
        seam_secret_free(v);
        if (why)
            *why = e;
        return 0;
    }
    *changed = !k->secret || strcmp(k->secret, v) != 0;
    seam_secret_free(k->secret);
    k->secret = v;
    k->resolved = 1;
    if (*changed) {
        /* A new value is a new key: nothing learned about the old one holds. */
        k->generation++;
        k->dead = 0;
        char name[NAME_MAX_LEN];
        seam_state *st = seam_client_store(c);
        key_name(name, "cool", s, (size_t)(k - s->keys));
        seam_state_drop(st, name);
        key_name(name, "exh", s, (size_t)(k - s->keys));
        seam_state_drop(st, name);
    }
    int64_t now = seam_client_now(c);
    if (expires_in >= 0)
        k->expires_at = now + expires_in;
    else if (s->conf->api_key_ttl_ms > 0 && k->src.kind != SEAM_CRED_INLINE)
        k->expires_at = now + s->conf->api_key_ttl_ms;
    else
        k->expires_at = NEVER;
    return 1;
}

/* Makes sure k holds a secret fresh enough for an attempt starting now:
 * resolved once, refreshed when under REFRESH_MARGIN_MS from expiry (an old
 * value still valid is kept if the refresh fails). 1 when usable. */
static int ensure_fresh(seam_client *c, seam_provider_slot *s, seam_key *k, int64_t now,
                        seam_cancel *cancel, int *nomem, seam_error *why)
{
    if (keyless(k))
        return 1;
    int changed;
    if (!k->resolved)
        return resolve_key(c, s, k, cancel, &changed, nomem, why);
    if (k->expires_at != NEVER && now >= k->expires_at - REFRESH_MARGIN_MS) {
        if (resolve_key(c, s, k, cancel, &changed, nomem, why))
            return 1;
        return now < k->expires_at && k->secret;
    }
    return k->secret != NULL;
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

/* A session's name in the store: a hash, so that the store never holds what
 * an application passed as affinity. */
static uint64_t fnv1a64(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static void fill_cooling(seam_error *why, const seam_provider_slot *s, int64_t wait,
                         int guard_only)
{
    seam_error_set(why, SEAM_ERROR_RATE_LIMIT,
                   guard_only ? "every key of provider \"%s\" is exhausted for its rate-limit "
                                "window (%lld ms left)"
                              : "provider \"%s\" is cooling down after a rate limit (%lld ms left)",
                   s->conf->name, (long long)wait);
    why->retry_after_ms = wait;
    seam_strlcpy(why->provider, s->conf->name, sizeof why->provider);
}

/* What the store knew of a pool when a request began: each key's cooldown and
 * guard window (ms left), and where the selection starts. */
/* Pools this small are viewed without the heap: most providers have one key. */
#define VIEW_SMALL 2

typedef struct pool_view {
    int64_t *cool_left, *exh_left;
    int64_t small[2 * VIEW_SMALL]; /* cool_left for a pool of up to VIEW_SMALL keys */
    size_t start;
    char position[NAME_MAX_LEN]; /* the name of the sticky key or the session's lease; "" for round robin */
} pool_view;

static int lease_key(seam_provider_slot *s, const pool_view *v, size_t i, seam_key_lease *lease)
{
    seam_key *k = &s->keys[i];
    lease->index = i;
    lease->generation = k->generation;
    lease->cooling = v->cool_left[i] > 0;
    lease->secret = NULL;
    if (k->secret && !(lease->secret = strdup(k->secret)))
        return SEAM_ERR_NOMEM;
    return SEAM_OK;
}

/* Reads the pool's state from the store: one question for every key's
 * cooldown and window, and one for the position (the round-robin counter,
 * taken and advanced atomically, or the sticky key). */
static int view_pool(seam_client *c, seam_provider_slot *s, const char *affinity, pool_view *v)
{
    const size_t n = s->n_keys;
    seam_state *st = seam_client_store(c);
    char names_small[2 * VIEW_SMALL * NAME_MAX_LEN];
    const char *ptrs_small[2 * VIEW_SMALL];
    int small = n <= VIEW_SMALL;
    v->cool_left = small ? v->small : calloc(2 * n, sizeof *v->cool_left);
    char *names = small ? names_small : malloc(2 * n * NAME_MAX_LEN);
    const char **ptrs = small ? ptrs_small : malloc(2 * n * sizeof *ptrs);
    if (!v->cool_left || !names || !ptrs) {
        if (!small) {
            free(v->cool_left);
            free(names);
            free(ptrs);
        }
        v->cool_left = NULL;
        return SEAM_ERR_NOMEM;
    }
    if (small)
        memset(v->small, 0, sizeof v->small);
    v->exh_left = v->cool_left + n;
    for (size_t i = 0; i < n; i++) {
        key_name(names + i * NAME_MAX_LEN, "cool", s, i);
        key_name(names + (n + i) * NAME_MAX_LEN, "exh", s, i);
        ptrs[i] = names + i * NAME_MAX_LEN;
        ptrs[n + i] = names + (n + i) * NAME_MAX_LEN;
    }
    seam_state_left(st, ptrs, 2 * n, v->cool_left);
    if (!small) {
        free(ptrs);
        free(names);
    }

    v->position[0] = '\0';
    v->start = 0;
    if (n == 1)
        return SEAM_OK; /* nothing to choose: no position to keep */
    if (s->conf->key_selection == SEAM_KEYS_STICKY) {
        int64_t proposal = 0;
        if (affinity) {
            snprintf(v->position, sizeof v->position, "lease:%s:%016llx", s->conf->name,
                     (unsigned long long)fnv1a64(affinity));
            proposal = fnv1a(affinity) % n;
        } else {
            snprintf(v->position, sizeof v->position, "sticky:%s", s->conf->name);
        }
        int64_t at = seam_state_bind(st, v->position, proposal, 0, LEASE_TTL_MS);
        v->start = at >= 0 ? (size_t)(at % (int64_t)n) : (size_t)proposal;
    } else {
        char name[NAME_MAX_LEN];
        snprintf(name, sizeof name, "rr:%s", s->conf->name);
        int64_t at = 1;
        seam_state_add(st, name, 1, -1, RR_TTL_MS, &at);
        v->start = at > 0 ? (size_t)((at - 1) % (int64_t)n) : 0;
    }
    return SEAM_OK;
}

/* Key i was handed out: the next selection starts after it (round robin) or
 * at it (sticky), in every process sharing the store. */
static void record_choice(seam_client *c, seam_provider_slot *s, const pool_view *v, size_t i)
{
    if (i == v->start || s->n_keys == 1)
        return; /* the store already says so */
    seam_state *st = seam_client_store(c);
    if (v->position[0]) {
        seam_state_bind(st, v->position, (int64_t)i, 1, LEASE_TTL_MS);
    } else {
        char name[NAME_MAX_LEN];
        snprintf(name, sizeof name, "rr:%s", s->conf->name);
        seam_state_add(st, name, (int64_t)((i + s->n_keys - v->start) % s->n_keys), -1, RR_TTL_MS,
                       NULL);
    }
}

int seam_keys_acquire(seam_client *c, seam_provider_slot *s, const char *affinity, int retrying,
                      int64_t max_wait_ms, seam_cancel *cancel, seam_key_lease *lease,
                      int64_t *wait_ms, seam_key_verdict *verdict, seam_error *why)
{
    memset(lease, 0, sizeof *lease);
    *wait_ms = 0;
    *verdict = SEAM_KEY_NONE;
    const int64_t now = seam_client_now(c);
    /* The store is asked before the slot's lock is taken: a slow store holds
     * back this request only (for at most its timeout), not the others. */
    pool_view view;
    if (view_pool(c, s, affinity, &view) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    pthread_mutex_lock(&s->lock);
    const size_t n = s->n_keys;
    const int guard = s->conf->rate_limit_guard;
    const int sticky = s->conf->key_selection == SEAM_KEYS_STICKY;
    size_t start = view.start;
    size_t chosen = 0;

    int nomem = 0, rc = SEAM_OK;
    int64_t earliest = NEVER;       /* when the first blocked key frees up */
    int earliest_guard_only = 0;    /* ...and whether only the guard blocks it */
    size_t earliest_index = 0;
    size_t dead = 0;
    seam_error last;
    seam_error_clear(&last);

    for (size_t j = 0; j < n && !nomem; j++) {
        size_t i = (start + j) % n;
        seam_key *k = &s->keys[i];
        if (k->dead) {
            dead++;
            continue;
        }
        int64_t cooling = !retrying && view.cool_left[i] > 0 ? now + view.cool_left[i] : 0;
        /* A retry follows the chain's own rules (it already waited out the
         * Retry-After or the backoff): cooldown and guard are for other requests. */
        int64_t exhausted = !retrying && guard != SEAM_GUARD_OFF && view.exh_left[i] > 0
                                ? now + view.exh_left[i] : 0;
        if (cooling || exhausted) {
            int64_t free_at = cooling > exhausted ? cooling : exhausted;
            if (free_at < earliest) {
                earliest = free_at;
                earliest_guard_only = !cooling;
                earliest_index = i;
            }
            /* Sticky and told to wait: keep the session's key rather than
             * moving its prompt cache elsewhere. */
            if (j == 0 && sticky && guard == SEAM_GUARD_WAIT && !cooling &&
                exhausted - now <= max_wait_ms && ensure_fresh(c, s, k, now, cancel, &nomem, &last)) {
                *wait_ms = exhausted - now;
                *verdict = SEAM_KEY_READY;
                rc = lease_key(s, &view, chosen = i, lease);
                goto out;
            }
            continue;
        }
        if (!ensure_fresh(c, s, k, now, cancel, &nomem, &last))
            continue;
        *verdict = SEAM_KEY_READY;
        rc = lease_key(s, &view, chosen = i, lease);
        goto out;
    }
    if (nomem)
        goto out;

    /* Nothing usable right now. A dead key may have been fixed since (a new
     * value in its variable, file or command): that revives it. */
    for (size_t j = 0; dead && j < n && !nomem; j++) {
        size_t i = (start + j) % n;
        seam_key *k = &s->keys[i];
        int changed = 0;
        if (k->dead && !keyless(k) && k->src.kind != SEAM_CRED_INLINE &&
            resolve_key(c, s, k, cancel, &changed, &nomem, &last) && changed) {
            *verdict = SEAM_KEY_READY;
            rc = lease_key(s, &view, chosen = i, lease);
            goto out;
        }
    }
    if (nomem)
        goto out;

    if (earliest != NEVER) {
        seam_key *k = &s->keys[earliest_index];
        if (earliest_guard_only && guard == SEAM_GUARD_WAIT && earliest - now <= max_wait_ms &&
            ensure_fresh(c, s, k, now, cancel, &nomem, &last)) {
            *wait_ms = earliest - now;
            *verdict = SEAM_KEY_READY;
            rc = lease_key(s, &view, chosen = earliest_index, lease);
            goto out;
        }
        *verdict = SEAM_KEY_COOLING;
        fill_cooling(why, s, earliest - now, earliest_guard_only);
        goto out;
    }
    *verdict = SEAM_KEY_NONE;
    if (last.kind != SEAM_ERROR_NONE) {
        *why = last;
    } else {
        seam_error_set(why, SEAM_ERROR_AUTH,
                       n > 1 ? "every key of provider \"%s\" was rejected by the provider"
                             : "the key of provider \"%s\" was rejected by the provider",
                       s->conf->name);
    }
    seam_strlcpy(why->provider, s->conf->name, sizeof why->provider);
out:
    pthread_mutex_unlock(&s->lock);
    if (view.cool_left != view.small)
        free(view.cool_left);
    if (nomem || rc != SEAM_OK) {
        seam_keys_lease_release(lease);
        return SEAM_ERR_NOMEM;
    }
    if (*verdict == SEAM_KEY_READY)
        record_choice(c, s, &view, chosen);
    return SEAM_OK;
}

void seam_keys_lease_release(seam_key_lease *lease)
{
    if (!lease)
        return;
    seam_secret_free(lease->secret);
    lease->secret = NULL;
}

static seam_key *leased_key(seam_provider_slot *s, const seam_key_lease *lease)
{
    return lease && lease->index < s->n_keys ? &s->keys[lease->index] : NULL;
}

void seam_keys_succeeded(seam_client *c, seam_provider_slot *s, const seam_key_lease *lease)
{
    /* It answers again: other requests may use it. Only news when it was
     * cooling as the attempt left: a request sent before another's 429 says
     * nothing about the key now (and, with a shared store, every success
     * would otherwise cost a round trip). */
    if (!leased_key(s, lease) || !lease->cooling)
        return;
    char name[NAME_MAX_LEN];
    key_name(name, "cool", s, lease->index);
    seam_state_drop(seam_client_store(c), name);
}

void seam_keys_rate_limited(seam_client *c, seam_provider_slot *s, const seam_key_lease *lease,
                            int64_t until)
{
    if (!leased_key(s, lease))
        return;
    char name[NAME_MAX_LEN];
    key_name(name, "cool", s, lease->index);
    seam_state_hold(seam_client_store(c), name, until - seam_client_now(c));
}

int seam_keys_rejected(seam_client *c, seam_provider_slot *s, const seam_key_lease *lease,
                       seam_cancel *cancel)
{
    pthread_mutex_lock(&s->lock);
    int more = 0;
    seam_key *k = leased_key(s, lease);
    if (!k || keyless(k))
        goto out; /* nothing to refresh or rotate to */
    if (k->generation != lease->generation) {
        /* Another request refreshed it meanwhile: the new value deserves its try. */
        more = !k->dead;
        goto out;
    }
    int changed = 0, nomem = 0;
    if (k->src.kind != SEAM_CRED_INLINE && resolve_key(c, s, k, cancel, &changed, &nomem, NULL) && changed) {
        more = 1;
        goto out;
    }
    /* Marking the only key dead would turn the provider's real answers into
     * made-up ones for every later request (and a 403 may concern one model
     * only): with a single key the next request asks the provider again. */
    if (s->n_keys < 2)
        goto out;
    k->dead = 1;
    for (size_t i = 0; i < s->n_keys && !more; i++)
        more = i != lease->index && !s->keys[i].dead;
out:
    pthread_mutex_unlock(&s->lock);
    return more;
}

/* ---- the rate-limit guard -------------------------------------------------------- */

int64_t seam_parse_reset_duration(const char *v)
{
    if (!v)
        return -1;
    while (*v == ' ')
        v++;
    double total = 0;
    int parts = 0;
    while (*v && *v != ' ') {
        char *end;
        double x = strtod(v, &end);
        if (end == v || !(x >= 0 && x <= 1e12)) /* also NaN and infinities */
            return -1;
        v = end;
        if (strncmp(v, "ms", 2) == 0) {
            total += x;
            v += 2;
        } else if (*v == 'h') {
            total += x * 3600000.0;
            v++;
        } else if (*v == 'm') {
            total += x * 60000.0;
            v++;
        } else if (*v == 's') {
            total += x * 1000.0;
            v++;
        } else {
            return -1;
        }
        parts++;
    }
    if (!parts)
        return -1;
    return seam_ms_from_double(total, 1.0);
}

int64_t seam_parse_rfc3339(const char *v)
{
    int y, mo, d, h, mi, s, used = 0;
    if (!v || sscanf(v, " %4d-%2d-%2d%*[Tt ]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &used) != 6)
        return -1;
    const char *p = v + used;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++)
            ;
    long offset = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        /* Exactly "hh:mm": each test stops at the string's end, so a cut
         * offset ("+1:2") is refused instead of read past. */
        if (!isdigit((unsigned char)p[1]) || !isdigit((unsigned char)p[2]) || p[3] != ':' ||
            !isdigit((unsigned char)p[4]) || !isdigit((unsigned char)p[5]))
            return -1;
        int oh = (p[1] - '0') * 10 + (p[2] - '0'), om = (p[4] - '0') * 10 + (p[5] - '0');
        offset = (*p == '-' ? -1 : 1) * (oh * 3600L + om * 60L);
        p += 6;
    } else {
        return -1;
    }
    if (*p && *p != ' ')
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
        return -1;
    struct tm tm = {0};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    time_t t = timegm(&tm);
    if (t == (time_t)-1)
        return -1;
    return (int64_t)t - offset;
}

/* Milliseconds from now until a reset value: an RFC 3339 time, a duration
 * ("6m0s"), or a number (seconds; or a Unix time in s or ms when that large). */
static int64_t reset_in_ms(const char *v)
{
    int64_t at = seam_parse_rfc3339(v);
    if (at >= 0) {
        int64_t left = at - (int64_t)time(NULL);
        return left > 0 ? left * 1000 : 0;
    }
    char *end;
    double x = strtod(v, &end);
    while (end && *end == ' ')
        end++;
    if (end != v && end && *end == '\0' && x >= 0 && x <= 1e15) {
        double now = (double)time(NULL);
        if (x > 1e12) /* Unix ms */
            return x / 1000.0 > now ? seam_ms_from_double(x - now * 1000.0, 1.0) : 0;
        if (x > 1e9) /* Unix seconds */
            return x > now ? seam_ms_from_double(x - now, 1000.0) : 0;
        return seam_ms_from_double(x, 1000.0);
    }
    return seam_parse_reset_duration(v);
}

/* The value of header `name` in "name: value\n" lines, copied into out. */
static int header_value(const char *headers, const char *name, char *out, size_t outsize)
{
    size_t nlen = strlen(name);
    for (const char *line = headers; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (len > nlen && strncasecmp(line, name, nlen) == 0 && line[nlen] == ':') {
            const char *v = line + nlen + 1;
            while (*v == ' ')
                v++;
            size_t vlen = len - (size_t)(v - line);
            if (vlen >= outsize)
                vlen = outsize - 1;
            memcpy(out, v, vlen);
            out[vlen] = '\0';
            return 1;
        }
        line = eol ? eol + 1 : NULL;
    }
    return 0;
}

void seam_keys_observe_ratelimit(seam_client *c, seam_provider_slot *s,
                                 const seam_key_lease *lease, const char *headers)
{
    if (!headers || !*headers || s->conf->rate_limit_guard == SEAM_GUARD_OFF)
        return;
    int64_t until_in = -1;
    /* Every "...remaining..." header at 0 names an exhausted window; its reset
     * is the same name with "reset" for "remaining" (OpenAI
     * x-ratelimit-remaining-requests / x-ratelimit-reset-requests, Anthropic
     * anthropic-ratelimit-tokens-remaining / anthropic-ratelimit-tokens-reset). */
    for (const char *line = headers; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        const char *colon = memchr(line, ':', len);
        char name[128];
        size_t nlen = colon ? (size_t)(colon - line) : 0;
        if (colon && nlen < sizeof name - 8) {
            memcpy(name, line, nlen);
            name[nlen] = '\0';
            char *rem = strcasestr(name, "remaining");
            const char *v = colon + 1;
            while (*v == ' ')
                v++;
            char *end;
            long long remaining = strtoll(v, &end, 10);
            if (rem && end != v && remaining == 0) {
                char reset_name[128], value[128];
                snprintf(reset_name, sizeof reset_name, "%.*s%s%s", (int)(rem - name), name,
                         "reset", rem + strlen("remaining"));
                int64_t in = -1;
                if (header_value(headers, reset_name, value, sizeof value))
                    in = reset_in_ms(value);
                if (in < 0 && header_value(headers, "retry-after-ms", value, sizeof value))
                    in = seam_ms_from_double(strtod(value, NULL), 1.0);
                if (in < 0 && header_value(headers, "retry-after", value, sizeof value))
                    in = seam_parse_retry_after(value);
                if (in < 0)
                    in = GUARD_DEFAULT_WINDOW_MS;
                if (in > until_in)
                    until_in = in;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    if (until_in <= 0 || !leased_key(s, lease))
        return;
    char name[NAME_MAX_LEN];
    key_name(name, "exh", s, lease->index);
    seam_state_hold(seam_client_store(c), name, until_in);
}
