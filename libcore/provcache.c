/* provcache.c — provider-side caches of a request's prefix (plugin ABI 1.4:
 * cache_encode, cache_decode; Gemini's cachedContents): the exchange that
 * creates one before an attempt, and where its handle lives between calls.
 * A cache is named by the SHA-256 of the request that creates it (URL and
 * body: the same prefix, model and settings make the same request). The
 * handle is a blob in the client's state store named
 * "pcache:<provider>:<key index>:<hash>", kept until a minute before
 * the provider drops it, so every call of the client (and every process
 * sharing the store) reuses it instead of making another. A creation the
 * provider refused (a 4xx: a prefix under the model's minimum, a model
 * without explicit caching) is remembered for a while under "pcache-no:..."
 * so that each call does not pay for the same refusal again. A failed
 * creation never fails the call: the attempt goes on without a cache. */
#include "config.h"
#include "client.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reused until this long before the provider's expiry, so that a request
 * in flight does not name a cache that has just gone. */
#define PCACHE_MARGIN_MS 60000
/* A refused creation is not asked again for this long. */
#define PCACHE_REFUSED_MS 600000
/* A lifetime beyond this is not believed (a day). */
#define PCACHE_MAX_TTL_MS 86400000

static int printable(const char *k)
{
    if (!*k)
        return 0;
    for (; *k; k++)
        if (*k <= ' ' || *k > '~')
            return 0;
    return 1;
}

static int pcache_encode(void *ud, const seam_provider_vtable *vt, void *instance,
                         const seam_request *req, seam_http_request *out, seam_error *err)
{
    (void)ud;
    return vt->cache_encode(instance, req, out, err);
}

static int pcache_decode(void *ud, const seam_provider_vtable *vt, void *instance,
                         const seam_request *req, const char *body, size_t len, seam_emitter *out,
                         seam_error *err)
{
    seam_pcache *pc = ud;
    pc->handle[0] = '\0';
    pc->ttl_ms = 0;
    int rc = vt->cache_decode(instance, req, body, len, pc->handle, sizeof pc->handle, &pc->ttl_ms,
                              err);
    if (rc != SEAM_OK)
        return rc;
    pc->handle[sizeof pc->handle - 1] = '\0';
    if (!pc->handle[0] || pc->ttl_ms <= 0) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "the provider's cache answer has no name or lifetime");
        seam_strlcpy(err->code, "bad_response", sizeof err->code);
        return SEAM_ERR_PROVIDER;
    }
    seam_chunk stop = {.type = SEAM_CHUNK_STOP, .stop_reason = SEAM_STOP_STOP};
    return seam_emit(out, &stop);
}

int seam_pcache_begin(seam_client *c, const seam_transfer_params *p, const char *provider,
                      size_t key_index, seam_request *sent, seam_pcache *pc, seam_transfer **t)
{
    *t = NULL;
    memset(pc, 0, sizeof *pc);
    const seam_provider_vtable *vt = p->vt;
    if (!vt || vt->size < offsetof(seam_provider_vtable, cache_decode) + sizeof vt->cache_decode ||
        !vt->cache_encode || !vt->cache_decode)
        return 0;
    /* A caller's own credential is outside the pool: its caches are not
     * the pool's to share, so none is made. */
    if (key_index == SIZE_MAX || !printable(provider))
        return 0;
    /* The creating request, built to be named; sent below only when the
     * store has no handle for it. */
    seam_http_request hr;
    seam_http_request_init(&hr, NULL, 0, vt->framing);
    seam_error why;
    seam_error_clear(&why);
    int rc = vt->cache_encode(p->instance, sent, &hr, &why);
    if (rc != SEAM_OK || !hr.url) {
        if (rc != SEAM_ERR_NOT_FOUND && rc != SEAM_ERR_NOMEM)
            seam_client_log(c, SEAM_LOG_WARNING, "provider %s: no prompt cache: %s", provider,
                            why.message[0] ? why.message : "the plugin cannot make one");
        seam_http_request_release(&hr);
        return rc == SEAM_ERR_NOMEM ? rc : 0;
    }
    seam_buf id = { 0 };
    rc = seam_buf_puts(&id, hr.url);
    if (rc == SEAM_OK)
        rc = seam_buf_append(&id, "\n", 1);
    if (rc == SEAM_OK && hr.body.len)
        rc = seam_buf_append(&id, hr.body.data, hr.body.len);
    unsigned char digest[32];
    if (rc == SEAM_OK)
        seam_sha256(id.data, id.len, digest);
    seam_buf_free(&id);
    seam_http_request_release(&hr);
    if (rc != SEAM_OK)
        return rc;
    char hex[33];
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    int n = snprintf(pc->name, sizeof pc->name, "pcache:%s:%zu:%s", provider, key_index, hex);
    if (n < 0 || (size_t)n >= sizeof pc->name)
        return 0;
    seam_state *st = seam_client_store(c);
    void *data = NULL;
    size_t len = 0;
    if (st && seam_state_get(st, pc->name, &data, &len) == SEAM_OK && data) {
        rc = SEAM_OK;
        if (len > 0 && len < sizeof pc->handle) {
            memcpy(pc->handle, data, len);
            pc->handle[len] = '\0';
            rc = seam_request_set_cache_handle(sent, pc->handle);
        }
        free(data);
        return rc == SEAM_OK ? 0 : rc;
    }
    char refused[sizeof pc->name + 8];
    snprintf(refused, sizeof refused, "pcache-no:%s", pc->name + 7);
    const char *names[1] = { refused };
    int64_t left = 0;
    if (st)
        seam_state_left(st, names, 1, &left);
    if (left > 0)
        return 0;

    seam_transfer_params cp = *p;
    cp.stream = 0;
    cp.op_encode = pcache_encode;
    cp.op_decode = pcache_decode;
    cp.op_ud = pc;
    seam_error_clear(&why);
    rc = seam_transfer_open(&cp, t, &why);
    if (rc == SEAM_ERR_NOMEM)
        return rc;
    if (rc != SEAM_OK) {
        /* The codec cannot express this prefix as a cache: the attempt goes
         * on whole. */
        seam_client_log(c, SEAM_LOG_WARNING, "provider %s: no prompt cache: %s", provider,
                        why.message);
        *t = NULL;
        return 0;
    }
    pc->active = 1;
    return 1;
}

int seam_pcache_end(seam_client *c, seam_pcache *pc, int status, const seam_error *e,
                    seam_request *sent, const char *provider)
{
    pc->active = 0;
    if (status != SEAM_OK) {
        seam_client_log(c, SEAM_LOG_WARNING,
                        "provider %s: creating the prompt cache failed (%s): sending without it",
                        provider, e && e->message[0] ? e->message : "no reason given");
        /* A 4xx is the provider's answer to this prefix: do not ask again soon. */
        if (e && e->http_status >= 400 && e->http_status < 500 && e->http_status != 408 &&
            e->http_status != 429) {
            char refused[sizeof pc->name + 8];
            snprintf(refused, sizeof refused, "pcache-no:%s", pc->name + 7);
            seam_state *st = seam_client_store(c);
            if (st)
                seam_state_hold(st, refused, PCACHE_REFUSED_MS);
        }
        return SEAM_OK;
    }
    int64_t ttl = pc->ttl_ms > PCACHE_MAX_TTL_MS ? PCACHE_MAX_TTL_MS : pc->ttl_ms;
    seam_state *st = seam_client_store(c);
    if (st && ttl > PCACHE_MARGIN_MS)
        seam_state_put(st, pc->name, pc->handle, strlen(pc->handle), ttl - PCACHE_MARGIN_MS);
    return seam_request_set_cache_handle(sent, pc->handle);
}
