/* cache.c — explicit context caching for the cache strategies (the provider
 * option cache_strategy, which a session's seam_cache_strategy sets): the
 * request that creates a CachedContent, and the reading of its answer. The
 * core sends it (plugin ABI 1.4), keeps the handle in its state store, and
 * hands it to encode, which then names it as `cachedContent` and leaves out
 * what it holds.
 *
 * Wire (Gemini API reference, cachedContents.create and the CachedContent
 * resource; the context caching guide): POST {base}/cachedContents with a
 * CachedContent body {model: "models/{id}", systemInstruction, contents,
 * tools, toolConfig, ttl: "300s"}; the answer is the CachedContent with its
 * `name` ("cachedContents/{id}") and `expireTime` (RFC 3339, always given),
 * next to `createTime`/`updateTime`. A generateContent naming a cachedContent
 * may not set systemInstruction, tools or toolConfig.
 *
 * What each strategy caches:
 *   system_and_3  the system instruction and the tools: the part every call
 *                 of a conversation shares;
 *   prefix_and_2  those and every content before the last two user turns (a
 *                 user content that is not only function responses starts a
 *                 turn): the conversation's shared prefix, the last two turns
 *                 sent fresh.
 * Nothing is cached when the part would be empty, when the options name a
 * cachedContent themselves, or for Gemini 4, which has implicit caching only.
 * A prefix under the model's minimum (1,024 to 4,096 tokens) is refused by
 * the API with a 400; the core then sends the whole request and does not ask
 * again for a while. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "internal.h"

/* A user content made only of functionResponse parts answers the model's
 * calls: it continues a turn rather than starting one. */
static int starts_turn(json_object *content)
{
    const char *role = jstr(content, "role");
    if (!role || strcmp(role, "user") != 0)
        return 0;
    json_object *parts = jget(content, "parts");
    size_t n = jis(parts, json_type_array) ? json_object_array_length(parts) : 0;
    for (size_t i = 0; i < n; i++)
        if (!jget(json_object_array_get_idx(parts, i), "functionResponse"))
            return 1;
    return n == 0;
}

size_t gemini_cached_contents(json_object *body, int strategy)
{
    if (strategy != GEMINI_CACHE_PREFIX)
        return 0;
    json_object *contents = jget(body, "contents");
    size_t n = jis(contents, json_type_array) ? json_object_array_length(contents) : 0;
    int turns = 0;
    for (size_t i = n; i-- > 0;)
        if (starts_turn(json_object_array_get_idx(contents, i)) && ++turns == 2)
            return i;
    return 0;
}

/* Gemini 4 has implicit caching only (models.c). */
static int explicit_caching(const char *model)
{
    const char *id = strncmp(model, "models/", 7) == 0 ? model + 7 : model;
    return strncmp(id, "gemini-4", 8) != 0 && strncmp(model, "tunedModels/", 12) != 0;
}

int gemini_cache_encode(void *instance, const seam_request *req, seam_http_request *out,
                        seam_error *err)
{
    gemini_instance *g = instance;
    const char *model = seam_request_model(req);
    if (!model || !explicit_caching(model))
        return SEAM_ERR_NOT_FOUND;
    gemini_options o;
    if (gemini_read_options(g, req, &o) != SEAM_OK)
        return nomem(err);
    int strategy = o.explicit_cache ? GEMINI_CACHE_NONE : o.cache;
    json_object *ttl = o.cache_ttl ? json_object_get(o.cache_ttl) : NULL;
    gemini_options_free(&o);
    if (strategy == GEMINI_CACHE_NONE) {
        json_object_put(ttl);
        return SEAM_ERR_NOT_FOUND;
    }
    /* The generate request as encode writes it whole, quietly (encode warns
     * about the options), and the cached part taken from it. */
    int rc = gemini_encode_ex(instance, req, 0, 1, 1, out, err);
    if (rc != SEAM_OK) {
        json_object_put(ttl);
        return rc;
    }
    size_t len = 0;
    const char *text = seam_http_request_body(out, &len);
    json_object *gen = text ? parse_json_len(text, len) : NULL;
    json_object *cc = json_object_new_object();
    size_t k = gemini_cached_contents(gen, strategy);
    int ok = gen && cc;
    char resource[512];
    snprintf(resource, sizeof resource, "%s%s", strncmp(model, "models/", 7) == 0 ? "" : "models/",
             model);
    ok = ok && jadd(cc, "model", json_object_new_string(resource));
    json_object *v;
    if (ok && (v = jget(gen, "systemInstruction")))
        ok = jadd(cc, "systemInstruction", json_object_get(v));
    if (ok && k) {
        json_object *contents = json_object_new_array();
        json_object *all = jget(gen, "contents");
        for (size_t i = 0; contents && i < k; i++)
            jpush(contents, json_object_get(json_object_array_get_idx(all, i)));
        ok = jadd(cc, "contents", contents);
    }
    if (ok && (v = jget(gen, "tools")))
        ok = jadd(cc, "tools", json_object_get(v));
    if (ok && (v = jget(gen, "toolConfig")))
        ok = jadd(cc, "toolConfig", json_object_get(v));
    int empty = ok && json_object_object_length(cc) == 1; /* the model alone: nothing to cache */
    if (ok && !empty && ttl) {
        char seconds[32];
        if (jis(ttl, json_type_int)) {
            snprintf(seconds, sizeof seconds, "%llds", (long long)json_object_get_int64(ttl));
            ok = jadd(cc, "ttl", json_object_new_string(seconds));
        } else if (jis(ttl, json_type_string)) {
            ok = jadd(cc, "ttl", json_object_get(ttl));
        }
    }
    json_object_put(ttl);
    char *url = NULL;
    if (ok && !empty) {
        size_t n = strlen(g->base_url) + sizeof "/cachedContents";
        url = malloc(n);
        if (url)
            snprintf(url, n, "%s/cachedContents", g->base_url);
    }
    const char *body = url ? json_object_to_json_string_length(cc, JSON_OUT_FLAGS, &len) : NULL;
    if (empty)
        rc = SEAM_ERR_NOT_FOUND;
    else if (!body || seam_http_request_set_url(out, url) != SEAM_OK ||
             seam_http_request_set_body(out, body, len) != SEAM_OK)
        rc = nomem(err);
    free(url);
    json_object_put(cc);
    json_object_put(gen);
    return rc;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* An RFC 3339 time ("2026-11-24T08:00:00.123456Z", or with an offset) in
 * milliseconds since the epoch; -1 when it is not one. */
static int64_t rfc3339_ms(const char *s)
{
    int y, mo, d, h, mi, se, used = 0;
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &used) != 6 ||
        mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return -1;
    const char *p = s + used;
    int64_t ms = 0;
    if (*p == '.') {
        int digits = 0;
        for (p++; *p >= '0' && *p <= '9'; p++, digits++)
            if (digits < 3)
                ms = ms * 10 + (*p - '0');
        for (; digits < 3; digits++)
            ms *= 10;
    }
    int64_t offset = 0;
    if (*p == '+' || *p == '-') {
        int oh, om;
        if (sscanf(p + 1, "%2d:%2d", &oh, &om) != 2)
            return -1;
        offset = (*p == '+' ? 1 : -1) * ((int64_t)oh * 60 + om) * 60000;
    } else if (*p != 'Z' && *p != 'z') {
        return -1;
    }
    int64_t days = days_from_civil(y, (unsigned)mo, (unsigned)d);
    return ((days * 24 + h) * 60 + mi) * 60000 + (int64_t)se * 1000 + ms - offset;
}

int gemini_cache_decode(void *instance, const seam_request *req, const char *body, size_t len,
                        char *handle, size_t handlesize, int64_t *ttl_ms, seam_error *err)
{
    (void)instance;
    (void)req;
    json_object *root = parse_json_len(body, len);
    const char *name = jstr(root, "name");
    /* The lifetime by the server's own clock (expireTime less the time it
     * made or last updated the cache), so that no local clock enters. */
    int64_t expire = rfc3339_ms(jstr(root, "expireTime"));
    int64_t made = rfc3339_ms(jstr(root, "updateTime"));
    if (made < 0)
        made = rfc3339_ms(jstr(root, "createTime"));
    int ok = name && *name && strlen(name) < handlesize && expire >= 0 && made >= 0 && expire > made;
    if (ok) {
        memcpy(handle, name, strlen(name) + 1);
        *ttl_ms = expire - made;
    }
    json_object_put(root);
    if (!ok) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN,
                       "gemini: a CachedContent without name, expireTime and createTime");
        seam_strlcpy(err->code, "bad_response", sizeof err->code);
        return SEAM_ERR_PROVIDER;
    }
    return SEAM_OK;
}
