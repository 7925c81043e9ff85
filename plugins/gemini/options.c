/* options.c — the gemini plugin's provider options: the conf's `options`
 * and a request's provider options are Gemini's own request fields
 * (safetySettings, cachedContent, generationConfig, thinkingConfig), merged
 * into the body encode.c builds, the request's over the conf's; where an
 * option names the twin of a field the codec set, the option wins.
 * doc/providers.md has the reference.
 */
#include "config.h"

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

