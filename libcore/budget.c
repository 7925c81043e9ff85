/* budget.c — budgets and rate limits an application (the gateway) keeps in the
 * client's state store, so that every process sharing the store counts
 * against the same total: "budget:NAME" is a counter debited after each
 * request and checked before the next, "rate:NAME" a fixed-window counter.
 * Neither call fails because the shared store is away: the process's own
 * count stands in (state.c). */
#include "config.h"
#include "client.h"

#include <stdio.h>
#include <string.h>

/* The longest application name, so that a store name stays short. */
#define MAX_NAME 200

static int bad_name(const char *name, seam_error *err)
{
    size_t n = name ? strlen(name) : 0;
    int bad = n == 0 || n > MAX_NAME;
    for (size_t i = 0; !bad && i < n; i++)
        bad = name[i] <= ' ' || name[i] > '~';
    if (bad)
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                       "a budget or rate-limit name is 1 to %d printable characters without spaces",
                       MAX_NAME);
    return bad;
}

static void store_name(char *buf, size_t size, const char *kind, const char *name)
{
    snprintf(buf, size, "%s:%s", kind, name);
}

int seam_budget_check(seam_client *c, const char *name, int64_t limit, int64_t *spent,
                      seam_error *err)
{
    if (spent)
        *spent = 0;
    if (!c || bad_name(name, err))
        return SEAM_ERR_INVALID;
    if (limit < 0) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "a budget's limit is >= 0");
        return SEAM_ERR_INVALID;
    }
    char key[MAX_NAME + 16];
    store_name(key, sizeof key, "budget", name);
    int rc = seam_state_add(seam_client_store(c), key, 0, limit, 1, spent);
    if (rc < 0)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
    return rc;
}

int seam_budget_debit(seam_client *c, const char *name, int64_t amount, int64_t window_ms,
                      int64_t *spent, seam_error *err)
{
    if (spent)
        *spent = 0;
    if (!c || bad_name(name, err))
        return SEAM_ERR_INVALID;
    if (amount < 0 || window_ms <= 0) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                       "a debit is >= 0 and a budget's window_ms > 0");
        return SEAM_ERR_INVALID;
    }
    char key[MAX_NAME + 16];
    store_name(key, sizeof key, "budget", name);
    if (seam_state_add(seam_client_store(c), key, amount, -1, window_ms, spent) < 0) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
        return SEAM_ERR_NOMEM;
    }
    return SEAM_OK;
}

int seam_rate_take(seam_client *c, const char *name, int64_t limit, int64_t window_ms,
                   seam_error *err)
{
    if (!c || bad_name(name, err))
        return SEAM_ERR_INVALID;
    if (limit < 0 || window_ms <= 0) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "a rate limit is >= 0 per window_ms > 0");
        return SEAM_ERR_INVALID;
    }
    char key[MAX_NAME + 16];
    store_name(key, sizeof key, "rate", name);
    int rc = seam_state_add(seam_client_store(c), key, 1, limit, window_ms, NULL);
    if (rc < 0)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
    return rc;
}
