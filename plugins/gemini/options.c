/* options.c — the gemini plugin's provider options: the conf's `options`
 * and a request's provider options (its flat keys and its "gemini" and
 * conf-name namespaces, see ../common/provider_options.h) are Gemini's own
 * request fields (safetySettings, cachedContent, generationConfig,
 * thinkingConfig), merged into the body encode.c builds, the request's over
 * the conf's; where an option names the twin of a field the codec set, the
 * option wins. The plugin's own keys (cache_strategy, cache_ttl, taskType)
 * are read, not sent; any other key is dropped with a warning, and
 * extra_body is merged last. doc/providers.md has the reference.
 */
#include "config.h"

#include <string.h>

#include "internal.h"

/* Members of `from` replace those of `into` (one level; nested objects of the
 * same name are merged one more level, e.g. generationConfig.thinkingConfig). */
static void merge_object(json_object *into, json_object *from, int nested)
{
    json_object_object_foreach(from, key, val)
    {
        json_object *have = jget(into, key);
        if (nested && jis(have, json_type_object) && jis(val, json_type_object))
            merge_object(have, val, 0);
        else
            jadd(into, key, json_object_get(val));
    }
}

/* Provider options (the conf's `options`, then the request's): keys Gemini
 * understands are passed through. */
void gemini_apply_options(json_object *body, json_object *gen, json_object *options)
{
    if (!jis(options, json_type_object))
        return;
    json_object *v;
    if ((v = jget(options, "safetySettings")) && jis(v, json_type_array))
        jadd(body, "safetySettings", json_object_get(v));
    if ((v = jget(options, "cachedContent")) && jis(v, json_type_string))
        jadd(body, "cachedContent", json_object_get(v));
    if ((v = jget(options, "generationConfig")) && jis(v, json_type_object))
        merge_object(gen, v, 1);
    if ((v = jget(options, "thinkingConfig")) && jis(v, json_type_object)) {
        json_object *tc = jget(gen, "thinkingConfig");
        if (!tc) {
            tc = json_object_new_object();
            if (!jadd(gen, "thinkingConfig", tc))
                tc = NULL;
        }
        if (tc)
            merge_object(tc, v, 0);
    }
}

/* Options may name the twin of a field the codec set, which the API refuses
 * together (thinkingLevel with thinkingBudget, responseSchema with
 * responseJsonSchema): the caller's explicit choice wins and the codec's own
 * field is dropped. */
void gemini_drop_own_twin(json_object *obj, const char *own, const char *twin)
{
    if (own && jget(obj, own) && jget(obj, twin))
        json_object_object_del(obj, own);
}


static const char *const known_keys[] = {
    "safetySettings", "cachedContent", "generationConfig", "thinkingConfig", "taskType",
    "cache_strategy", "cache_ttl",
};

int gemini_option_known(const char *key, void *ud)
{
    (void)ud;
    for (size_t i = 0; i < sizeof known_keys / sizeof known_keys[0]; i++)
        if (strcmp(key, known_keys[i]) == 0)
            return 1;
    return 0;
}

int gemini_read_options(const gemini_instance *g, const seam_request *req, gemini_options *o)
{
    memset(o, 0, sizeof *o);
    json_object *conf = parse_json(g->options_json);
    const char *ro = seam_request_provider_options(req);
    json_object *mine = ro && *ro ? parse_json(ro) : NULL;
    const char *const ns[] = { "gemini", g->name };
    int rc = popt_select(conf, 1, NULL, 0, gemini_option_known, NULL, "gemini plugin", &o->conf);
    if (rc == SEAM_OK)
        rc = popt_select(mine, 0, ns, 2, gemini_option_known, NULL, "gemini plugin", &o->req);
    json_object_put(conf);
    json_object_put(mine);
    if (rc != SEAM_OK) {
        gemini_options_free(o);
        return rc;
    }
    /* The request's word over the conf's, key by key. */
    json_object *v;
    const char *cs = NULL;
    if ((v = jget(o->req.own, "cache_strategy")) || (v = jget(o->conf.own, "cache_strategy")))
        cs = jis(v, json_type_string) ? json_object_get_string(v) : NULL;
    o->cache = cs && strcmp(cs, "system_and_3") == 0   ? GEMINI_CACHE_SYSTEM
               : cs && strcmp(cs, "prefix_and_2") == 0 ? GEMINI_CACHE_PREFIX
                                                       : GEMINI_CACHE_NONE;
    if ((v = jget(o->req.own, "cache_ttl")) || (v = jget(o->conf.own, "cache_ttl")))
        o->cache_ttl = v;
    o->explicit_cache = jget(o->req.own, "cachedContent") || jget(o->conf.own, "cachedContent");
    return SEAM_OK;
}

void gemini_options_free(gemini_options *o)
{
    popt_view_free(&o->conf);
    popt_view_free(&o->req);
}
