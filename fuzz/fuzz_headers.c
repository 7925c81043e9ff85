/* fuzz_headers.c — a libFuzzer harness for the pacing headers a provider
 * answers with: Retry-After (delta-seconds or an HTTP-date, libcore/transport.c),
 * retry-after-ms, and the rate-limit family the key guard reads
 * (x-ratelimit-remaining-* / -reset-*, anthropic-ratelimit-*; libcore/keys.c,
 * with its RFC 3339 and "6m0s" duration parsers). Whatever the bytes — huge,
 * negative, fractional, NaN, garbage, cut dates — each parser must return -1
 * or a wait in bounds, and the guard must move a key's window only forward
 * and by a bounded amount, without undefined behaviour (UBSan is fatal here).
 *
 * Input: the whole input is one header value for the single-value parsers;
 * its lines are also "name: value" response headers for the guard. */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "state.h"
#include "internal.h"
#include "transport.h"

/* The longest wait any of these can yield: an HTTP-date or RFC 3339 time is at
 * most year 9999, i.e. under 2.6e14 ms from now; delta forms stop at 1e12 ms. */
#define MAX_WAIT_MS 300000000000000LL

static const int64_t now_ms = 1000000; /* the fake client's monotonic clock */

static int64_t fake_now(void *ud)
{
    (void)ud;
    return now_ms;
}

static void check(const char *what, int64_t v, int64_t max)
{
    if (v < -1 || v > max) {
        fprintf(stderr, "%s out of bounds: %lld\n", what, (long long)v);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';

    check("Retry-After", seam_parse_retry_after(s), MAX_WAIT_MS);
    check("reset duration", seam_parse_reset_duration(s), 1000000000000LL);
    (void)seam_parse_rfc3339(s); /* any value: its callers range-check it */

    /* As response headers: what transport.c keeps for the guard. */
    seam_http_headers h = {0};
    seam_buf lines = {0};
    for (const char *p = s; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        if (colon && colon > p) {
            const char *v = colon + 1;
            while (v < p + len && *v == ' ')
                v++;
            seam_http_headers_add(&h, p, (size_t)(colon - p), v, (size_t)(p + len - v), 0);
        }
        p = eol ? eol + 1 : p + len;
    }
    for (size_t i = 0; i < h.n; i++) {
        const char *n = h.items[i].name;
        if (strcasecmp(n, "retry-after") == 0 || strcasecmp(n, "retry-after-ms") == 0 ||
            strcasestr(n, "ratelimit") || strcasestr(n, "remaining") || strcasestr(n, "reset"))
            seam_buf_printf(&lines, "%s: %s\n", n, h.items[i].value);
    }
    if (lines.len) {
        seam_error e;
        seam_error_clear(&e);
        seam_strlcpy(e.ratelimit, lines.data, sizeof e.ratelimit);

        for (int guard = SEAM_GUARD_ROTATE; guard <= SEAM_GUARD_OFF; guard++) {
            /* The guard's window lives in the client's state store (the
             * local one here) as "exh:PROVIDER:KEY". */
            seam_conf conf;
            memset(&conf, 0, sizeof conf);
            seam_conf_provider pc;
            memset(&pc, 0, sizeof pc);
            pc.name = (char *)"p";
            pc.rate_limit_guard = guard;
            seam_key key;
            memset(&key, 0, sizeof key);
            seam_provider_slot slot;
            memset(&slot, 0, sizeof slot);
            slot.conf = &pc;
            slot.keys = &key;
            slot.n_keys = 1;
            pthread_mutex_init(&slot.lock, NULL);
            seam_client client;
            memset(&client, 0, sizeof client);
            client.conf = &conf;
            client.clock_now = fake_now;
            pthread_mutex_init(&client.state_lock, NULL);
            seam_key_lease lease;
            memset(&lease, 0, sizeof lease);

            seam_keys_observe_ratelimit(&client, &slot, &lease, e.ratelimit);
            seam_keys_observe_ratelimit(&client, &slot, &lease, lines.data);
            seam_state *st = atomic_load(&client.state);
            const char *const names[] = {"exh:p:0"};
            int64_t left = 0;
            if (st)
                seam_state_left(st, names, 1, &left);
            if (left != 0 && (guard == SEAM_GUARD_OFF || left < 0 || left > MAX_WAIT_MS)) {
                fprintf(stderr, "guard window out of bounds: %lld ms\n", (long long)left);
                abort();
            }
            seam_state_free(st);
            pthread_mutex_destroy(&client.state_lock);
            pthread_mutex_destroy(&slot.lock);
        }
    }
    seam_buf_free(&lines);
    seam_http_headers_release(&h);
    free(s);
    return 0;
}
