/* gemini.c — the Google Gemini provider plugin (provider id "gemini").
 *
 * A codec, no I/O. It owns:
 *  - encode: a seam request -> POST {base_url}/models/{model}:generateContent, or
 *    :streamGenerateContent?alt=sse for a stream, with the key in x-goog-api-key;
 *    systemInstruction, contents/parts (text, inlineData, fileData, functionCall,
 *    functionResponse), functionDeclarations whose JSON Schemas are reshaped into
 *    the OpenAPI subset Gemini accepts, toolConfig and generationConfig;
 *  - decode: GenerateContentResponse objects (one per SSE event, or the whole body)
 *    -> seam chunks, synthesizing the tool-call ids Gemini does not send;
 *  - classify_error: google.rpc.Status error bodies -> seam_error kinds, with the
 *    RetryInfo retryDelay kept as retry-after;
 *  - capabilities per model family.
 *
 * Gemini 3 and later (the families with thinking levels in model_families;
 * Gemini 2.x and unknown ids keep the 2.x wire unchanged). What changed, and
 * where the API documents it (ai.google.dev/gemini-api/docs/...; Vertex
 * guides at docs.cloud.google.com/gemini-enterprise-agent-platform/models/):
 *  - thinking: thinkingConfig.thinkingLevel, not thinkingBudget (a request
 *    with both is refused with a 400). The seam's budget is mapped to a level
 *    the family has (thinking_level_for_budget): gemini-4-argon LOW/MEDIUM/
 *    HIGH ("latest-model", "Developer's guide to Gemini 4 Argon");
 *    gemini-4-hydrogen adds XHIGH ("Developer's guide to Gemini 4 Hydrogen");
 *    gemini-3.8-flash and 3.7-flash LOW/MEDIUM/HIGH, no MINIMAL
 *    ("Developer's guide to Gemini 3.8 Flash"); gemini-3.5-flash-lite and
 *    3.5-flash MINIMAL..HIGH ("Gemini 3.5 Flash-Lite" model page, "Developer's
 *    guide to Gemini 3.5 Flash"); gemini-3.1-pro LOW/MEDIUM/HIGH,
 *    gemini-3.1-flash-lite and gemini-3-flash MINIMAL..HIGH, any other 3.x id
 *    LOW/HIGH, the set every 3.x text model takes ("thinking": Gemini 3 Pro).
 *  - output cap: one request returns at most 65,536 tokens (Gemini 4 and the
 *    3.x models above; a non-streamed Gemini 4 call 32,768, and more than
 *    that without a continuation token is a 400), so maxOutputTokens is
 *    clamped to the family's cap. Past it Gemini 4 does "long decode"
 *    ("generate-content/long-decode"): a hop that reaches the cap with budget
 *    left ends with finishReason CONTINUATION and candidate.continuationToken,
 *    and the client sends the same request again with that token, the total
 *    budget being maxOutputTokens across hops. That is a loop of requests whose
 *    outputs are joined, which belongs to the core (the codec does no I/O), so
 *    it is not done here: CONTINUATION is reported as stop reason "length".
 *  - schemas: generationConfig.responseJsonSchema and functionDeclarations[].
 *    parametersJsonSchema take JSON Schema itself ("structured-output"; API
 *    reference FunctionDeclaration), so the schema is copied into the
 *    documented JSON Schema subset (json_subset) instead of being reshaped
 *    into the OpenAPI subset of responseSchema/parameters.
 *  - signatures: a function call of the current turn whose step has no
 *    signature is refused (400 "Function call is missing a thought_signature";
 *    "thought-signatures"); the placeholder the guide gives for calls the
 *    model did not make is sent instead (sign_unsigned_calls_of_current_turn).
 *  - gemini-3.5-flash-lite refuses contents that end with a model turn (its
 *    model page): refused here before any request is sent.
 *  - finish reasons CONTINUATION (-> length), MODEL_ARMOR (-> content_filter),
 *    MALFORMED_RESPONSE (-> error), for every family.
 *  - media resolution (Gemini 3's mediaResolution) has no seam field: it goes
 *    through the provider options' generationConfig like any member of it.
 *
 * Thought signatures. Gemini puts an opaque `thoughtSignature` on any part (text,
 * functionCall, or a thought part) and requires it back, on the same part, when the
 * conversation is replayed (Gemini 3 rejects a function call without it). The seam
 * types carry signatures on reasoning parts only, so:
 *  - a signature on a thought part becomes that reasoning block's signature;
 *  - a signature on any other part is emitted as a reasoning block with no text
 *    and that signature (a "signature carrier") immediately BEFORE the part's
 *    content (the tool call, the text). Why a separate reasoning part: it keeps the
 *    signature out of the caller's text and tool calls, and the core already strips
 *    every reasoning part when a conversation fails over to another provider, which
 *    is exactly the "replayed to Gemini only" rule.
 *  - on encode, a carrier's signature is put back on the part that follows it in
 *    the same message; with nothing after it (a stream whose signature came in a
 *    final empty text part) it goes on the part before it, which is where a
 *    non-streamed response has it; with no part at all it is sent as the empty
 *    text part it arrived in.
 *  - signatures are handed out tagged "gemini:" (base64 has no ':'), and only
 *    tagged ones are replayed, without the tag: a history carried over from
 *    another provider in a new call (not a failover, so nothing stripped it) must
 *    not send that provider's signatures to Gemini, which rejects them.
 *
 * Tool-call ids. Gemini's generateContent matches function responses to calls by
 * name and order, not by id, so ids are synthesized on the way out ("gmcall_" + a
 * random per-response prefix + index; a server-supplied functionCall.id is used
 * as is) and never sent back: on the way in, each tool result gets its name from
 * the call with the same id, and the functionResponse parts of a turn are put in
 * the order of their calls. (An `id` on functionCall/functionResponse parts of a
 * request has been answered with 400 "Unknown name \"id\"" on some routes, so it
 * stays off the wire for every family.)
 */
#include "config.h"

#include <seam/plugin.h>

#include <json-c/json.h>

#include <ctype.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "../common/codec_util.h"
#include "../common/json_scan.h"

#define GEMINI_DEFAULT_BASE_URL "https://generativelanguage.googleapis.com/v1beta"
#define GEMINI_SYNTH_ID_PREFIX "gmcall_"
#define GEMINI_SIGNATURE_TAG "gemini:"
/* The placeholder the thought-signatures guide gives for function calls the
 * model did not produce (see sign_unsigned_calls_of_current_turn). */
#define GEMINI_SIGNATURE_PLACEHOLDER "skip_thought_signature_validator"
#define GEMINI_JSON_DEPTH 512
#define SCHEMA_MAX_DEPTH 64
#define SCHEMA_MAX_REFS 32
#define JSON_OUT_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* ======================================================================== */
/* small JSON helpers                                                        */
/* ======================================================================== */

/* An integer member given as a JSON number or (proto int64 style) a string. */
static int jint64(json_object *o, const char *key, int64_t *out)
{
    if (jint(o, key, out))
        return 1;
    json_object *v = jget(o, key);
    if (jis(v, json_type_string)) {
        char *end;
        long long n = strtoll(json_object_get_string(v), &end, 10);
        if (end != json_object_get_string(v) && *end == '\0') {
            *out = n;
            return 1;
        }
    }
    return 0;
}

/* Request-side JSON (schemas, options, tool arguments) may nest deeper than
 * json-c's default 32 levels: GEMINI_JSON_DEPTH. */
static json_object *parse_json_len(const char *text, size_t len)
{
    return json_parse_depth(text, len, GEMINI_JSON_DEPTH);
}

static json_object *parse_json(const char *text)
{
    return text ? parse_json_len(text, strlen(text)) : NULL;
}

/* Adds key -> val (taking val); returns 0 when val is NULL (allocation failure). */
static int jadd(json_object *obj, const char *key, json_object *val)
{
    if (!val)
        return 0;
    if (json_object_object_add(obj, key, val) != 0) {
        json_object_put(val);
        return 0;
    }
    return 1;
}

static int jpush(json_object *arr, json_object *val)
{
    if (!val)
        return 0;
    if (json_object_array_add(arr, val) != 0) {
        json_object_put(val);
        return 0;
    }
    return 1;
}

/* A shallow copy: the members are shared (reference-counted). */
static json_object *jshallow_copy(json_object *o)
{
    json_object *copy = json_object_new_object();
    if (!copy)
        return NULL;
    json_object_object_foreach(o, key, val)
    {
        if (json_object_object_add(copy, key, json_object_get(val)) != 0) {
            json_object_put(val);
            json_object_put(copy);
            return NULL;
        }
    }
    return copy;
}

/* ======================================================================== */
/* JSON Schema -> Gemini Schema                                              */
/* ======================================================================== */

/* Gemini's Schema is a select subset of OpenAPI 3.0: upper-case types, `nullable`
 * instead of null types, string-only enums, no $ref/$defs, no additionalProperties,
 * few formats. The reshape copies an allowlist of keywords — never a keyword the
 * API would reject with "Unknown name" — and fixes the shapes its validator
 * refuses: an OBJECT with empty properties, an ARRAY without items, `required`
 * naming a property that is not there, properties on a non-OBJECT. */

typedef struct schema_ctx {
    json_object *root;                      /* the input document, for $ref */
    const char *ref_stack[SCHEMA_MAX_REFS]; /* refs being expanded: cycle guard */
    int n_refs;
} schema_ctx;

static json_object *reshape(schema_ctx *cx, json_object *in, int depth);

static const char *gemini_type_of(const char *json_type)
{
    static const struct {
        const char *json, *gemini;
    } map[] = {
        {"string", "STRING"}, {"number", "NUMBER"},   {"integer", "INTEGER"},
        {"boolean", "BOOLEAN"}, {"array", "ARRAY"},   {"object", "OBJECT"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i].json, json_type) == 0)
            return map[i].gemini;
    return NULL;
}

/* Formats the Gemini API documents per type; any other makes it reject the
 * request or is ignored at best, so it is dropped. */
static int format_allowed(const char *gtype, const char *format)
{
    if (!gtype || !format)
        return 0;
    if (strcmp(gtype, "STRING") == 0)
        return strcmp(format, "enum") == 0 || strcmp(format, "date-time") == 0;
    if (strcmp(gtype, "NUMBER") == 0)
        return strcmp(format, "float") == 0 || strcmp(format, "double") == 0;
    if (strcmp(gtype, "INTEGER") == 0)
        return strcmp(format, "int32") == 0 || strcmp(format, "int64") == 0;
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Resolves a local JSON Pointer reference ("#", "#/$defs/Name",
 * "#/definitions/A~1B", percent-escapes allowed). NULL when it does not resolve
 * (external references included). */
static json_object *resolve_ref(json_object *root, const char *ref)
{
    if (!ref || ref[0] != '#')
        return NULL;
    const char *p = ref + 1;
    json_object *cur = root;
    if (*p == '\0')
        return root;
    if (*p != '/')
        return NULL;
    while (*p == '/') {
        p++;
        char token[256];
        size_t n = 0;
        while (*p && *p != '/') {
            int c = (unsigned char)*p++;
            if (c == '~' && (*p == '0' || *p == '1')) {
                c = *p == '0' ? '~' : '/';
                p++;
            } else if (c == '%' && hexval(p[0]) >= 0 && hexval(p[1]) >= 0) {
                c = hexval(p[0]) * 16 + hexval(p[1]);
                p += 2;
            }
            if (n + 1 >= sizeof token)
                return NULL;
            token[n++] = (char)c;
        }
        token[n] = '\0';
        if (jis(cur, json_type_object)) {
            if (!json_object_object_get_ex(cur, token, &cur))
                return NULL;
        } else if (jis(cur, json_type_array)) {
            char *end;
            long idx = strtol(token, &end, 10);
            if (end == token || *end || idx < 0 || (size_t)idx >= json_object_array_length(cur))
                return NULL;
            cur = json_object_array_get_idx(cur, (size_t)idx);
        } else {
            return NULL;
        }
    }
    return cur;
}

static int ref_in_progress(const schema_ctx *cx, const char *ref)
{
    for (int i = 0; i < cx->n_refs; i++)
        if (strcmp(cx->ref_stack[i], ref) == 0)
            return 1;
    return 0;
}

/* Copies description/title of `from` over `to` (a $ref's or an anyOf's own
 * annotations win over the target's). */
static void overlay_annotations(json_object *to, json_object *from)
{
    const char *keys[] = {"title", "description"};
    for (size_t i = 0; i < 2; i++) {
        const char *v = jstr(from, keys[i]);
        if (v)
            jadd(to, keys[i], json_object_new_string(v));
    }
}

static json_object *reshape_ref(schema_ctx *cx, json_object *in, const char *ref, int depth)
{
    json_object *target = resolve_ref(cx->root, ref);
    json_object *out;
    if (!target || ref_in_progress(cx, ref) || cx->n_refs >= SCHEMA_MAX_REFS) {
        /* Unresolvable, or recursive: Gemini schemas cannot refer back to
         * themselves, so the recursion point accepts anything. */
        out = json_object_new_object();
    } else {
        cx->ref_stack[cx->n_refs++] = ref;
        out = reshape(cx, target, depth + 1);
        cx->n_refs--;
    }
    if (out)
        overlay_annotations(out, in);
    return out;
}

/* Follows $ref links (not recursively past the guard) for allOf merging. */
static json_object *deref(schema_ctx *cx, json_object *s)
{
    for (int hops = 0; hops < SCHEMA_MAX_REFS && jstr(s, "$ref"); hops++) {
        json_object *t = resolve_ref(cx->root, jstr(s, "$ref"));
        if (!t)
            return NULL;
        s = t;
    }
    return s;
}

/* allOf: one schema with the union of properties and required and, for every
 * other keyword, the first value seen. Returns a new object (shared members). */
static json_object *merge_allof(schema_ctx *cx, json_object *in, int depth)
{
    json_object *merged = json_object_new_object();
    json_object *props = json_object_new_object();
    json_object *required = json_object_new_array();
    if (!merged || !props || !required)
        goto fail;

    json_object *queue[64];
    size_t nq = 0;
    queue[nq++] = in;
    for (size_t qi = 0; qi < nq; qi++) {
        json_object *s = deref(cx, queue[qi]);
        if (!jis(s, json_type_object))
            continue;
        json_object_object_foreach(s, key, val)
        {
            if (strcmp(key, "allOf") == 0) {
                if (jis(val, json_type_array) && depth < SCHEMA_MAX_DEPTH)
                    for (size_t i = 0; i < json_object_array_length(val) && nq < 64; i++)
                        queue[nq++] = json_object_array_get_idx(val, i);
            } else if (strcmp(key, "properties") == 0 && jis(val, json_type_object)) {
                json_object_object_foreach(val, pname, pval)
                {
                    if (!jget(props, pname))
                        jadd(props, pname, json_object_get(pval));
                }
            } else if (strcmp(key, "required") == 0 && jis(val, json_type_array)) {
                for (size_t i = 0; i < json_object_array_length(val); i++)
                    jpush(required, json_object_get(json_object_array_get_idx(val, i)));
            } else if (strcmp(key, "$ref") != 0 && !jget(merged, key)) {
                jadd(merged, key, json_object_get(val));
            }
        }
    }
    if (json_object_object_length(props) > 0)
        jadd(merged, "properties", props);
    else
        json_object_put(props);
    if (json_object_array_length(required) > 0)
        jadd(merged, "required", required);
    else
        json_object_put(required);
    return merged;
fail:
    json_object_put(merged);
    json_object_put(props);
    json_object_put(required);
    return NULL;
}

static int is_null_schema(json_object *s)
{
    const char *t = jstr(s, "type");
    return t && strcmp(t, "null") == 0;
}

/* anyOf/oneOf: null alternatives become `nullable`; one remaining alternative is
 * inlined; several become Gemini's anyOf. */
static json_object *reshape_alternatives(schema_ctx *cx, json_object *in, json_object *alts,
                                         int depth)
{
    json_object *kept[64];
    size_t n = 0;
    int nullable = 0;
    for (size_t i = 0; i < json_object_array_length(alts) && n < 64; i++) {
        json_object *a = json_object_array_get_idx(alts, i);
        if (is_null_schema(a))
            nullable = 1;
        else
            kept[n++] = a;
    }
    json_object *out;
    if (n == 1) {
        out = reshape(cx, kept[0], depth + 1);
    } else {
        out = json_object_new_object();
        json_object *any = json_object_new_array();
        if (!out || !any) {
            json_object_put(out);
            json_object_put(any);
            return NULL;
        }
        for (size_t i = 0; i < n; i++)
            jpush(any, reshape(cx, kept[i], depth + 1));
        if (n > 0)
            jadd(out, "anyOf", any);
        else
            json_object_put(any);
    }
    if (!out)
        return NULL;
    overlay_annotations(out, in);
    if (nullable)
        jadd(out, "nullable", json_object_new_boolean(1));
    return out;
}

/* A type array with several non-null types (JSON Schema names in `types`): one
 * anyOf branch per type, each with only the keywords that type takes (items on
 * the ARRAY branch, properties on the OBJECT branch). */
static json_object *reshape_multi_type(schema_ctx *cx, json_object *in, const char **types,
                                       size_t n, int nullable, int depth)
{
    json_object *out = json_object_new_object();
    json_object *any = json_object_new_array();
    if (!out || !any) {
        json_object_put(out);
        json_object_put(any);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *branch = jshallow_copy(in);
        if (!branch)
            continue;
        json_object_object_del(branch, "description");
        json_object_object_del(branch, "title");
        jadd(branch, "type", json_object_new_string(types[i]));
        jpush(any, reshape(cx, branch, depth + 1));
        json_object_put(branch);
    }
    overlay_annotations(out, in);
    if (nullable)
        jadd(out, "nullable", json_object_new_boolean(1));
    jadd(out, "anyOf", any);
    return out;
}

/* An enum value as the string Gemini's enum takes; NULL for null. */
static json_object *enum_value_string(json_object *v)
{
    if (!v)
        return NULL;
    if (jis(v, json_type_string))
        return json_object_new_string(json_object_get_string(v));
    return json_object_new_string(json_object_to_json_string_ext(v, JSON_OUT_FLAGS));
}

static const char *infer_enum_type(json_object *values)
{
    int all_str = 1, all_int = 1, all_num = 1, any = 0;
    for (size_t i = 0; i < json_object_array_length(values); i++) {
        json_object *v = json_object_array_get_idx(values, i);
        if (!v)
            continue;
        any = 1;
        all_str &= jis(v, json_type_string);
        all_int &= jis(v, json_type_int);
        all_num &= jis(v, json_type_int) || jis(v, json_type_double);
    }
    if (!any || all_str)
        return "STRING";
    if (all_int)
        return "INTEGER";
    if (all_num)
        return "NUMBER";
    return "STRING";
}

static void copy_int_keyword(json_object *out, json_object *in, const char *key)
{
    json_object *v = jget(in, key);
    if (jis(v, json_type_int) && json_object_get_int64(v) >= 0)
        jadd(out, key, json_object_new_int64(json_object_get_int64(v)));
    else if (jis(v, json_type_double) && json_object_get_double(v) >= 0 &&
             json_object_get_double(v) < 9e15)
        jadd(out, key, json_object_new_int64((int64_t)json_object_get_double(v)));
}

static void copy_number_keyword(json_object *out, json_object *in, const char *key)
{
    json_object *v = jget(in, key);
    if (jis(v, json_type_int) || jis(v, json_type_double))
        jadd(out, key, json_object_get(v));
}

static void reshape_object_keywords(schema_ctx *cx, json_object *in, json_object *out, int depth)
{
    json_object *props_in = jget(in, "properties");
    json_object *props = json_object_new_object();
    if (!props)
        return;
    if (jis(props_in, json_type_object)) {
        json_object_object_foreach(props_in, name, sub)
        {
            jadd(props, name, reshape(cx, sub, depth + 1));
        }
    }
    if (json_object_object_length(props) == 0) {
        /* "properties: should be non-empty for OBJECT type": a free-form object
         * is sent as a bare OBJECT, and required/ordering go with the names. */
        json_object_put(props);
        return;
    }
    jadd(out, "properties", props);

    json_object *req_in = jget(in, "required");
    if (jis(req_in, json_type_array)) {
        json_object *req = json_object_new_array();
        for (size_t i = 0; req && i < json_object_array_length(req_in); i++) {
            json_object *r = json_object_array_get_idx(req_in, i);
            if (jis(r, json_type_string) && jget(props, json_object_get_string(r)))
                jpush(req, json_object_new_string(json_object_get_string(r)));
        }
        if (req && json_object_array_length(req) > 0)
            jadd(out, "required", req);
        else
            json_object_put(req);
    }
    json_object *order_in = jget(in, "propertyOrdering");
    if (jis(order_in, json_type_array)) {
        json_object *order = json_object_new_array();
        for (size_t i = 0; order && i < json_object_array_length(order_in); i++) {
            json_object *r = json_object_array_get_idx(order_in, i);
            if (jis(r, json_type_string) && jget(props, json_object_get_string(r)))
                jpush(order, json_object_new_string(json_object_get_string(r)));
        }
        if (order && json_object_array_length(order) > 0)
            jadd(out, "propertyOrdering", order);
        else
            json_object_put(order);
    }
    copy_int_keyword(out, in, "minProperties");
    copy_int_keyword(out, in, "maxProperties");
}

static void reshape_array_keywords(schema_ctx *cx, json_object *in, json_object *out, int depth)
{
    json_object *items = jget(in, "items");
    if (!items)
        items = jget(in, "prefixItems");
    json_object *shaped;
    if (jis(items, json_type_object)) {
        shaped = reshape(cx, items, depth + 1);
    } else if (jis(items, json_type_array) && json_object_array_length(items) == 1) {
        shaped = reshape(cx, json_object_array_get_idx(items, 0), depth + 1);
    } else if (jis(items, json_type_array) && json_object_array_length(items) > 1) {
        /* A tuple: Gemini has none, the elements may be any of its types. */
        shaped = json_object_new_object();
        json_object *any = json_object_new_array();
        for (size_t i = 0; any && i < json_object_array_length(items); i++)
            jpush(any, reshape(cx, json_object_array_get_idx(items, i), depth + 1));
        if (shaped)
            jadd(shaped, "anyOf", any);
        else
            json_object_put(any);
    } else {
        /* Gemini refuses an ARRAY without items ("items: missing field"); an
         * empty schema keeps "elements of any type". */
        shaped = json_object_new_object();
    }
    jadd(out, "items", shaped);
    copy_int_keyword(out, in, "minItems");
    copy_int_keyword(out, in, "maxItems");
}

static json_object *reshape(schema_ctx *cx, json_object *in, int depth)
{
    if (depth > SCHEMA_MAX_DEPTH || !jis(in, json_type_object))
        return json_object_new_object(); /* `true`, or too deep: anything */

    const char *ref = jstr(in, "$ref");
    if (ref)
        return reshape_ref(cx, in, ref, depth);

    json_object *all = jget(in, "allOf");
    if (jis(all, json_type_array) && json_object_array_length(all) > 0) {
        json_object *merged = merge_allof(cx, in, depth);
        if (!merged)
            return NULL;
        json_object *out = reshape(cx, merged, depth + 1);
        json_object_put(merged);
        return out;
    }

    json_object *alts = jget(in, "anyOf");
    if (!jis(alts, json_type_array))
        alts = jget(in, "oneOf");
    if (jis(alts, json_type_array) && json_object_array_length(alts) > 0 && !jget(in, "type") &&
        !jget(in, "properties"))
        return reshape_alternatives(cx, in, alts, depth);

    int nullable = 0;
    const char *gtype = NULL;
    json_object *type = jget(in, "type");
    if (jis(type, json_type_string)) {
        if (strcmp(json_object_get_string(type), "null") == 0)
            nullable = 1;
        else
            gtype = gemini_type_of(json_object_get_string(type));
    } else if (jis(type, json_type_array)) {
        const char *types[8]; /* JSON Schema names, distinct, each one Gemini has */
        size_t n = 0;
        for (size_t i = 0; i < json_object_array_length(type); i++) {
            json_object *t = json_object_array_get_idx(type, i);
            if (!jis(t, json_type_string))
                continue;
            const char *name = json_object_get_string(t);
            if (strcmp(name, "null") == 0) {
                nullable = 1;
                continue;
            }
            int dup = 0;
            for (size_t k = 0; k < n; k++)
                dup |= strcmp(types[k], name) == 0;
            if (gemini_type_of(name) && !dup && n < 8)
                types[n++] = name;
        }
        if (n > 1)
            return reshape_multi_type(cx, in, types, n, nullable, depth);
        if (n == 1)
            gtype = gemini_type_of(types[0]);
    }

    /* const -> a one-value enum; enum values as strings; null values -> nullable. */
    json_object *enum_in = NULL, *const_holder = NULL;
    json_object *cv;
    if (json_object_object_get_ex(in, "const", &cv)) {
        const_holder = json_object_new_array();
        if (const_holder)
            json_object_array_add(const_holder, json_object_get(cv));
        enum_in = const_holder;
    } else if (jis(jget(in, "enum"), json_type_array)) {
        enum_in = jget(in, "enum");
    }
    json_object *enum_out = NULL;
    if (enum_in) {
        enum_out = json_object_new_array();
        for (size_t i = 0; enum_out && i < json_object_array_length(enum_in); i++) {
            json_object *v = json_object_array_get_idx(enum_in, i);
            if (!v)
                nullable = 1;
            else
                jpush(enum_out, enum_value_string(v));
        }
        if (!gtype && enum_out && json_object_array_length(enum_out) > 0)
            gtype = infer_enum_type(enum_in);
    }
    json_object_put(const_holder);
    if (!gtype && jget(in, "properties"))
        gtype = "OBJECT";
    if (!gtype && (jget(in, "items") || jget(in, "prefixItems")))
        gtype = "ARRAY";

    json_object *out = json_object_new_object();
    if (!out) {
        json_object_put(enum_out);
        return NULL;
    }
    if (gtype)
        jadd(out, "type", json_object_new_string(gtype));
    const char *format = jstr(in, "format");
    int is_numeric = gtype && (strcmp(gtype, "INTEGER") == 0 || strcmp(gtype, "NUMBER") == 0);
    if (format_allowed(gtype, format))
        jadd(out, "format", json_object_new_string(format));
    else if (is_numeric && enum_out && json_object_array_length(enum_out) > 0)
        /* Gemini documents non-string enums as {type:INTEGER, format:enum,
         * enum:["101","201"]}. */
        jadd(out, "format", json_object_new_string("enum"));
    overlay_annotations(out, in);
    if (nullable)
        jadd(out, "nullable", json_object_new_boolean(1));
    if (enum_out && json_object_array_length(enum_out) > 0 &&
        (is_numeric || (gtype && strcmp(gtype, "STRING") == 0))) {
        jadd(out, "enum", enum_out);
        enum_out = NULL;
    }
    json_object_put(enum_out);

    if (gtype && strcmp(gtype, "OBJECT") == 0) {
        reshape_object_keywords(cx, in, out, depth);
    } else if (gtype && strcmp(gtype, "ARRAY") == 0) {
        reshape_array_keywords(cx, in, out, depth);
    } else if (gtype && strcmp(gtype, "STRING") == 0) {
        copy_int_keyword(out, in, "minLength");
        copy_int_keyword(out, in, "maxLength");
        if (jstr(in, "pattern"))
            jadd(out, "pattern", json_object_new_string(jstr(in, "pattern")));
    } else if (is_numeric) {
        copy_number_keyword(out, in, "minimum");
        copy_number_keyword(out, in, "maximum");
    }
    return out;
}

/* Reshapes a schema given as JSON text. *out is NULL when the schema constrains
 * nothing Gemini can express (the caller then leaves the field out). Returns
 * SEAM_OK, SEAM_ERR_INVALID (not JSON) or SEAM_ERR_NOMEM. */
static int reshape_schema_text(const char *schema_json, int must_be_object, json_object **out)
{
    *out = NULL;
    if (!schema_json)
        return SEAM_OK;
    json_object *root = parse_json(schema_json);
    if (!root)
        return SEAM_ERR_INVALID;
    schema_ctx cx = {.root = root, .n_refs = 0};
    json_object *shaped = reshape(&cx, root, 0);
    json_object_put(root);
    if (!shaped)
        return SEAM_ERR_NOMEM;
    const char *t = jstr(shaped, "type");
    if (!t && jget(shaped, "properties")) {
        jadd(shaped, "type", json_object_new_string("OBJECT"));
        t = "OBJECT";
    }
    /* Function parameters must be an OBJECT with properties ("parameters.properties:
     * should be non-empty for OBJECT type"); a function without any is declared
     * without parameters. A response schema that is a bare object adds nothing to
     * JSON mode. */
    int bare_object = t && strcmp(t, "OBJECT") == 0 && !jget(shaped, "properties");
    if (bare_object || (must_be_object && (!t || strcmp(t, "OBJECT") != 0)) ||
        json_object_object_length(shaped) == 0) {
        json_object_put(shaped);
        return SEAM_OK;
    }
    json_object_object_del(shaped, "nullable");
    *out = shaped;
    return SEAM_OK;
}

/* ======================================================================== */
/* JSON Schema -> the subset responseJsonSchema / parametersJsonSchema take  */
/* ======================================================================== */

/* Gemini 3 and later are sent the caller's JSON Schema itself, in
 * generationConfig.responseJsonSchema and functionDeclarations[].
 * parametersJsonSchema (the fields the current API documents; each is
 * mutually exclusive with its OpenAPI-subset twin). The API documents a
 * subset of JSON Schema for them: type (a name or an array of names, "null"
 * among them), title, description, properties, required,
 * additionalProperties, enum, format (date-time, date, time), minimum,
 * maximum, items, prefixItems, minItems, maxItems, anyOf, $ref with $defs.
 * The copy below keeps exactly those (and propertyOrdering, which the
 * parametersJsonSchema example uses) and rewrites what has a documented
 * equivalent: const -> a one-value enum, oneOf -> anyOf, an items array
 * (draft 4 tuples) -> prefixItems, allOf -> one merged schema, OpenAPI
 * `nullable` -> "null" in the type. `required` naming a property that is not
 * there is still dropped (the validator refuses it on both paths); $ref,
 * $defs and recursion go through as they are. */

static json_object *json_subset(schema_ctx *cx, json_object *in, int depth);

static int json_type_name_ok(const char *t)
{
    static const char *const names[] = {"string", "number", "integer", "boolean",
                                        "array",  "object", "null"};
    for (size_t i = 0; t && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(t, names[i]) == 0)
            return 1;
    return 0;
}

/* `type` as the subset takes it: a known name, or an array of known names
 * (one name alone is written as a string); `nullable` adds "null". NULL when
 * nothing is left. */
static json_object *json_subset_type(json_object *type, int nullable)
{
    json_object *names = json_object_new_array();
    if (!names)
        return NULL;
    if (jis(type, json_type_string) && json_type_name_ok(json_object_get_string(type))) {
        jpush(names, json_object_new_string(json_object_get_string(type)));
    } else if (jis(type, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(type); i++) {
            json_object *t = json_object_array_get_idx(type, i);
            if (jis(t, json_type_string) && json_type_name_ok(json_object_get_string(t)))
                jpush(names, json_object_new_string(json_object_get_string(t)));
        }
    }
    int has_null = 0;
    for (size_t i = 0; i < json_object_array_length(names); i++)
        has_null |= strcmp(json_object_get_string(json_object_array_get_idx(names, i)), "null") == 0;
    if (nullable && !has_null && json_object_array_length(names) > 0)
        jpush(names, json_object_new_string("null"));
    size_t n = json_object_array_length(names);
    json_object *out = NULL;
    if (n == 1)
        out = json_object_new_string(json_object_get_string(json_object_array_get_idx(names, 0)));
    else if (n > 1)
        out = json_object_get(names);
    json_object_put(names);
    return out;
}

static json_object *json_subset_map(schema_ctx *cx, json_object *map, int depth)
{
    json_object *out = json_object_new_object();
    if (!out)
        return NULL;
    json_object_object_foreach(map, name, sub)
    {
        jadd(out, name, json_subset(cx, sub, depth + 1));
    }
    return out;
}

static json_object *json_subset_list(schema_ctx *cx, json_object *list, int depth)
{
    json_object *out = json_object_new_array();
    for (size_t i = 0; out && i < json_object_array_length(list); i++)
        jpush(out, json_subset(cx, json_object_array_get_idx(list, i), depth + 1));
    return out;
}

static int json_format_documented(const char *format)
{
    return format && (strcmp(format, "date-time") == 0 || strcmp(format, "date") == 0 ||
                      strcmp(format, "time") == 0);
}

static json_object *json_subset(schema_ctx *cx, json_object *in, int depth)
{
    if (depth > SCHEMA_MAX_DEPTH || !jis(in, json_type_object))
        return json_object_new_object(); /* `true`, or too deep: anything */

    json_object *all = jget(in, "allOf");
    if (jis(all, json_type_array) && json_object_array_length(all) > 0) {
        json_object *merged = merge_allof(cx, in, depth);
        if (!merged)
            return NULL;
        json_object *out = json_subset(cx, merged, depth + 1);
        json_object_put(merged);
        return out;
    }

    json_object *out = json_object_new_object();
    if (!out)
        return NULL;
    json_object *v;
    json_object *nullable = jget(in, "nullable");
    if ((v = jget(in, "type")))
        jadd(out, "type", json_subset_type(v, jis(nullable, json_type_boolean) &&
                                                  json_object_get_boolean(nullable)));
    const char *keep_strings[] = {"title", "description"};
    for (size_t i = 0; i < 2; i++)
        if (jstr(in, keep_strings[i]))
            jadd(out, keep_strings[i], json_object_new_string(jstr(in, keep_strings[i])));
    if (json_format_documented(jstr(in, "format")))
        jadd(out, "format", json_object_new_string(jstr(in, "format")));
    if (jis(v = jget(in, "enum"), json_type_array)) {
        jadd(out, "enum", json_object_get(v));
    } else if (json_object_object_get_ex(in, "const", &v)) {
        json_object *one = json_object_new_array();
        if (one && json_object_array_add(one, json_object_get(v)) != 0)
            json_object_put(v);
        jadd(out, "enum", one);
    }
    copy_number_keyword(out, in, "minimum");
    copy_number_keyword(out, in, "maximum");
    copy_int_keyword(out, in, "minItems");
    copy_int_keyword(out, in, "maxItems");

    json_object *props = jget(in, "properties");
    if (jis(props, json_type_object))
        jadd(out, "properties", json_subset_map(cx, props, depth));
    json_object *req = jget(in, "required");
    if (jis(req, json_type_array)) {
        json_object *kept = json_object_new_array();
        for (size_t i = 0; kept && i < json_object_array_length(req); i++) {
            json_object *r = json_object_array_get_idx(req, i);
            if (jis(r, json_type_string) &&
                (!jis(props, json_type_object) || jget(props, json_object_get_string(r))))
                jpush(kept, json_object_new_string(json_object_get_string(r)));
        }
        if (kept && json_object_array_length(kept) > 0)
            jadd(out, "required", kept);
        else
            json_object_put(kept);
    }
    if (jis(v = jget(in, "propertyOrdering"), json_type_array))
        jadd(out, "propertyOrdering", json_object_get(v));
    if ((v = jget(in, "additionalProperties"))) {
        if (jis(v, json_type_boolean))
            jadd(out, "additionalProperties", json_object_new_boolean(json_object_get_boolean(v)));
        else if (jis(v, json_type_object))
            jadd(out, "additionalProperties", json_subset(cx, v, depth + 1));
    }

    json_object *items = jget(in, "items");
    if (jis(items, json_type_object) || jis(items, json_type_boolean))
        jadd(out, "items", json_subset(cx, items, depth + 1));
    json_object *prefix = jget(in, "prefixItems");
    if (!jis(prefix, json_type_array) && jis(items, json_type_array))
        prefix = items; /* draft 4 tuple form */
    if (jis(prefix, json_type_array))
        jadd(out, "prefixItems", json_subset_list(cx, prefix, depth));

    json_object *any = jget(in, "anyOf");
    if (!jis(any, json_type_array))
        any = jget(in, "oneOf");
    if (jis(any, json_type_array) && json_object_array_length(any) > 0)
        jadd(out, "anyOf", json_subset_list(cx, any, depth));

    /* Local references only: an external one cannot be resolved by the API. */
    const char *ref = jstr(in, "$ref");
    if (ref && ref[0] == '#')
        jadd(out, "$ref", json_object_new_string(ref));
    const char *defs_keys[] = {"$defs", "definitions"};
    for (size_t i = 0; i < 2; i++)
        if (jis(v = jget(in, defs_keys[i]), json_type_object))
            jadd(out, defs_keys[i], json_subset_map(cx, v, depth));
    return out;
}

static int json_names_object(json_object *type)
{
    if (jis(type, json_type_string))
        return strcmp(json_object_get_string(type), "object") == 0;
    for (size_t i = 0; jis(type, json_type_array) && i < json_object_array_length(type); i++) {
        json_object *t = json_object_array_get_idx(type, i);
        if (jis(t, json_type_string) && strcmp(json_object_get_string(t), "object") == 0)
            return 1;
    }
    return 0;
}

/* The JSON Schema path's twin of reshape_schema_text, with the same rules for
 * what is left out: function parameters must be an object with properties
 * (parametersJsonSchema "must describe an object where the properties are the
 * parameters"), and a response schema that is an object without properties
 * adds nothing to JSON mode. */
static int json_schema_text(const char *schema_json, int must_be_object, json_object **out)
{
    *out = NULL;
    if (!schema_json)
        return SEAM_OK;
    json_object *root = parse_json(schema_json);
    if (!root)
        return SEAM_ERR_INVALID;
    schema_ctx cx = {.root = root, .n_refs = 0};
    json_object *shaped = json_subset(&cx, root, 0);
    json_object_put(root);
    if (!shaped)
        return SEAM_ERR_NOMEM;
    json_object *type = jget(shaped, "type");
    json_object *props = jget(shaped, "properties");
    int has_props = jis(props, json_type_object) && json_object_object_length(props) > 0;
    if (!type && has_props) {
        jadd(shaped, "type", json_object_new_string("object"));
        type = jget(shaped, "type");
    }
    if (must_be_object && json_names_object(type) && !jis(type, json_type_string))
        jadd(shaped, "type", json_object_new_string("object")); /* parameters are never null */
    int is_object = json_names_object(jget(shaped, "type"));
    int referenced = jstr(shaped, "$ref") != NULL || jget(shaped, "anyOf") != NULL;
    if ((is_object && !has_props && !referenced) ||
        (must_be_object && (!is_object || !has_props)) ||
        json_object_object_length(shaped) == 0) {
        json_object_put(shaped);
        return SEAM_OK;
    }
    *out = shaped;
    return SEAM_OK;
}

/* ======================================================================== */
/* model families                                                            */
/* ======================================================================== */

/* thinkingLevel values (Gemini 3 and later), as bits of model_family.levels. */
enum {
    LEVEL_MINIMAL = 1u << 0,
    LEVEL_LOW = 1u << 1,
    LEVEL_MEDIUM = 1u << 2,
    LEVEL_HIGH = 1u << 3,
    LEVEL_XHIGH = 1u << 4,
};
#define LEVELS_LMH (LEVEL_LOW | LEVEL_MEDIUM | LEVEL_HIGH)
#define LEVELS_MLMH (LEVEL_MINIMAL | LEVELS_LMH)

typedef struct model_family {
    const char *prefix;
    unsigned tools : 1, reasoning : 1, vision : 1, audio : 1, structured : 1;
    int64_t context_window, max_output; /* max_output: per request (a streamed one) */
    /* Gemini 3 and later (levels != 0): thinkingLevel instead of thinkingBudget,
     * the JSON Schema fields, maxOutputTokens clamped to the per-request cap,
     * and the documented placeholder signature on unsigned calls (see encode). */
    unsigned levels;          /* the thinkingLevel values the family takes */
    int64_t max_output_unary; /* a non-streamed request's cap when lower; 0: max_output */
    unsigned no_model_last : 1; /* refuses contents that end with a model turn */
} model_family;

/* Longest prefixes first: the first match wins. Sources per row in the file
 * comment ("Gemini 3 and later"). */
static const model_family model_families[] = {
    {"gemini-4-argon", 1, 1, 1, 0, 1, 1048576, 65536, LEVELS_LMH, 32768, 0},
    {"gemini-4-hydrogen", 1, 1, 1, 0, 1, 1048576, 65536, LEVELS_LMH | LEVEL_XHIGH, 32768, 0},
    {"gemini-4", 1, 1, 1, 0, 1, 1048576, 65536, LEVELS_LMH, 32768, 0},
    {"gemini-3.8-flash", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_LMH, 0, 0},
    {"gemini-3.7-flash", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_LMH, 0, 0},
    {"gemini-3.5-flash-lite", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_MLMH, 0, 1},
    {"gemini-3.5-flash", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_MLMH, 0, 0},
    {"gemini-3.1-flash-lite", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_MLMH, 0, 0},
    {"gemini-3.1-pro", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_LMH, 0, 0},
    {"gemini-3-flash", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_MLMH, 0, 0},
    {"gemini-3", 1, 1, 1, 1, 1, 1048576, 65536, LEVEL_LOW | LEVEL_HIGH, 0, 0},
    {"gemini-2.5-flash-image", 0, 0, 1, 0, 1, 32768, 32768, 0, 0, 0},
    {"gemini-2.5-pro", 1, 1, 1, 1, 1, 1048576, 65536, 0, 0, 0},
    {"gemini-2.5-flash", 1, 1, 1, 1, 1, 1048576, 65536, 0, 0, 0}, /* and -lite */
    {"gemini-2.0-flash-thinking", 0, 1, 1, 0, 0, 1048576, 65536, 0, 0, 0},
    {"gemini-2.0-flash", 1, 0, 1, 1, 1, 1048576, 8192, 0, 0, 0}, /* and -lite */
    {"gemini-1.5-pro", 1, 0, 1, 1, 1, 2097152, 8192, 0, 0, 0},
    {"gemini-1.5-flash", 1, 0, 1, 1, 1, 1048576, 8192, 0, 0, 0},
    {"gemma-3n", 0, 0, 1, 0, 0, 32768, 8192, 0, 0, 0},
    {"gemma-3", 0, 0, 1, 0, 0, 131072, 8192, 0, 0, 0},
    {"gemini-", 1, 0, 1, 0, 1, 0, 0, 0, 0, 0}, /* an unknown Gemini: the common ground */
};

/* The family of a model id ("models/" prefix allowed); NULL when unknown. */
static const model_family *find_family(const char *model)
{
    if (!model)
        return NULL;
    if (strncmp(model, "models/", 7) == 0)
        model += 7;
    for (size_t i = 0; i < sizeof model_families / sizeof model_families[0]; i++)
        if (strncmp(model, model_families[i].prefix, strlen(model_families[i].prefix)) == 0)
            return &model_families[i];
    return NULL;
}

/* A reasoning budget in tokens as the family's thinkingLevel. The same split as
 * the other plugins' effort levels (below 4096 tokens low, below 16384 medium,
 * else high), with below 1024 minimal and from 65536 (more than one request's
 * whole output) xhigh. A level the family lacks becomes the next one up that it
 * has (more thinking than asked, never less), else the highest it has. */
static const char *thinking_level_for_budget(int64_t budget, unsigned levels)
{
    static const char *const names[] = {"MINIMAL", "LOW", "MEDIUM", "HIGH", "XHIGH"};
    int want = budget < 1024 ? 0 : budget < 4096 ? 1 : budget < 16384 ? 2 : budget < 65536 ? 3 : 4;
    for (int i = want; i < 5; i++)
        if (levels & (1u << i))
            return names[i];
    for (int i = want; i-- > 0;)
        if (levels & (1u << i))
            return names[i];
    return NULL;
}

/* ======================================================================== */
/* the instance                                                              */
/* ======================================================================== */

typedef struct gemini_instance {
    char *base_url;     /* without a trailing slash */
    char *options_json; /* the conf's options object */
} gemini_instance;

static void *gemini_create(const seam_provider_config *cfg, seam_error *err)
{
    const char *base = cfg && cfg->base_url && *cfg->base_url ? cfg->base_url
                                                              : GEMINI_DEFAULT_BASE_URL;
    const char *options = cfg && cfg->options_json ? cfg->options_json : "{}";
    json_object *parsed = parse_json(options);
    int options_ok = jis(parsed, json_type_object);
    json_object_put(parsed);
    if (!options_ok) {
        seam_error_set(err, SEAM_ERROR_CONF, "gemini: the provider options are not a JSON object");
        return NULL;
    }
    gemini_instance *g = calloc(1, sizeof *g);
    if (!g) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "gemini: out of memory");
        return NULL;
    }
    g->base_url = strdup(base);
    g->options_json = strdup(options);
    if (!g->base_url || !g->options_json) {
        free(g->base_url);
        free(g->options_json);
        free(g);
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "gemini: out of memory");
        return NULL;
    }
    size_t n = strlen(g->base_url);
    while (n > 0 && g->base_url[n - 1] == '/')
        g->base_url[--n] = '\0';
    return g;
}

static void gemini_destroy(void *instance)
{
    gemini_instance *g = instance;
    if (!g)
        return;
    free(g->base_url);
    free(g->options_json);
    free(g);
}

/* ======================================================================== */
/* encode                                                                    */
/* ======================================================================== */

static int bad_request(seam_error *err, const char *what, const char *detail)
{
    seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "gemini: %s%s%s", what, detail ? ": " : "",
                   detail ? detail : "");
    return SEAM_ERR_INVALID;
}

static int nomem(seam_error *err)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "gemini: out of memory");
    return SEAM_ERR_NOMEM;
}

/* Model names go into the URL path: only the characters model ids use. */
static int model_name_ok(const char *m)
{
    if (!m || !*m)
        return 0;
    for (const char *p = m; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("-._/@", *p))
            return 0;
    return strstr(m, "..") == NULL;
}

/* A functionResponse part waiting for its place in the turn. */
typedef struct pending_response {
    long order; /* position of its call in the conversation; LONG_MAX unknown */
    json_object *part;
} pending_response;

/* One Gemini content being built; consecutive seam messages with the same Gemini
 * role are merged into one (tool results and the user's text both become "user"). */
typedef struct content_builder {
    const char *role;
    json_object *parts;
    pending_response *responses;
    size_t n_responses, cap_responses;
} content_builder;

static int builder_flush(content_builder *b, json_object *contents)
{
    size_t n_parts = b->parts ? json_object_array_length(b->parts) : 0;
    if (b->n_responses == 0 && n_parts == 0) {
        json_object_put(b->parts);
        b->parts = NULL;
        return SEAM_OK;
    }
    /* Function responses first, in the order of their calls (stable). */
    for (size_t i = 1; i < b->n_responses; i++) {
        pending_response r = b->responses[i];
        size_t j = i;
        while (j > 0 && b->responses[j - 1].order > r.order) {
            b->responses[j] = b->responses[j - 1];
            j--;
        }
        b->responses[j] = r;
    }
    json_object *content = json_object_new_object();
    json_object *parts = json_object_new_array();
    if (!content || !parts) {
        json_object_put(content);
        json_object_put(parts);
        return SEAM_ERR_NOMEM;
    }
    for (size_t i = 0; i < b->n_responses; i++) {
        jpush(parts, b->responses[i].part);
        b->responses[i].part = NULL;
    }
    for (size_t i = 0; i < n_parts; i++)
        jpush(parts, json_object_get(json_object_array_get_idx(b->parts, i)));
    json_object_put(b->parts);
    b->parts = NULL;
    b->n_responses = 0;
    jadd(content, "role", json_object_new_string(b->role));
    jadd(content, "parts", parts);
    return jpush(contents, content) ? SEAM_OK : SEAM_ERR_NOMEM;
}

static void builder_free(content_builder *b)
{
    for (size_t i = 0; i < b->n_responses; i++)
        json_object_put(b->responses[i].part);
    free(b->responses);
    json_object_put(b->parts);
}

static int builder_add_part(content_builder *b, json_object *part)
{
    if (!part)
        return SEAM_ERR_NOMEM;
    if (!b->parts)
        b->parts = json_object_new_array();
    if (!b->parts) {
        json_object_put(part);
        return SEAM_ERR_NOMEM;
    }
    return jpush(b->parts, part) ? SEAM_OK : SEAM_ERR_NOMEM;
}

static int builder_add_response(content_builder *b, long order, json_object *part)
{
    if (!part)
        return SEAM_ERR_NOMEM;
    if (b->n_responses == b->cap_responses) {
        size_t cap = b->cap_responses ? b->cap_responses * 2 : 8;
        pending_response *r = realloc(b->responses, cap * sizeof *r);
        if (!r) {
            json_object_put(part);
            return SEAM_ERR_NOMEM;
        }
        b->responses = r;
        b->cap_responses = cap;
    }
    b->responses[b->n_responses].order = order;
    b->responses[b->n_responses].part = part;
    b->n_responses++;
    return SEAM_OK;
}

static json_object *media_part(const seam_part *p)
{
    json_object *part = json_object_new_object();
    json_object *data = json_object_new_object();
    if (!part || !data) {
        json_object_put(part);
        json_object_put(data);
        return NULL;
    }
    const char *mime = seam_part_mime_type(p);
    const char *payload = seam_part_media_data(p) ? seam_part_media_data(p) : "";
    if (seam_part_media_source(p) == SEAM_MEDIA_URL) {
        if (mime && *mime)
            jadd(data, "mimeType", json_object_new_string(mime));
        jadd(data, "fileUri", json_object_new_string(payload));
        jadd(part, "fileData", data);
    } else {
        jadd(data, "mimeType", json_object_new_string(mime && *mime ? mime : "application/octet-stream"));
        jadd(data, "data", json_object_new_string(payload));
        jadd(part, "inlineData", data);
    }
    return part;
}

static json_object *function_call_part(const seam_part *p)
{
    json_object *part = json_object_new_object();
    json_object *call = json_object_new_object();
    json_object *args = parse_json(seam_part_args_json(p));
    if (!jis(args, json_type_object)) {
        json_object_put(args);
        args = json_object_new_object();
    }
    if (!part || !call || !args) {
        json_object_put(part);
        json_object_put(call);
        json_object_put(args);
        return NULL;
    }
    jadd(call, "name", json_object_new_string(seam_part_tool_name(p) ? seam_part_tool_name(p) : ""));
    jadd(call, "args", args);
    jadd(part, "functionCall", call);
    return part;
}

/* Where the call with this id sits in the conversation (message index, part
 * index) and its name; 0 when no earlier assistant message holds it. */
static int find_call(const seam_request *req, size_t before, const char *id, long *order,
                     const char **name)
{
    if (!id)
        return 0;
    for (size_t m = before; m-- > 0;) {
        const seam_message *msg = seam_request_message(req, m);
        if (seam_message_role(msg) != SEAM_ROLE_ASSISTANT)
            continue;
        for (size_t k = 0; k < seam_message_part_count(msg); k++) {
            const seam_part *p = seam_message_part(msg, k);
            if (seam_part_get_type(p) == SEAM_PART_TOOL_CALL && seam_part_tool_call_id(p) &&
                strcmp(seam_part_tool_call_id(p), id) == 0) {
                *order = (long)(m * 100000 + k);
                *name = seam_part_tool_name(p);
                return 1;
            }
        }
    }
    return 0;
}

static json_object *function_response_part(const char *name, const seam_part *p)
{
    json_object *part = json_object_new_object();
    json_object *fr = json_object_new_object();
    json_object *response = json_object_new_object();
    json_object *value = parse_json(seam_part_result_json(p));
    if (!value && seam_part_result_json(p))
        value = json_object_new_string(seam_part_result_json(p));
    if (!part || !fr || !response) {
        json_object_put(part);
        json_object_put(fr);
        json_object_put(response);
        json_object_put(value);
        return NULL;
    }
    /* Gemini reads `output` as the function's result and `error` as its failure;
     * wrapping every value keeps an object result with its own "error" key from
     * being taken for a failure. */
    if (json_object_object_add(response, seam_part_is_error(p) ? "error" : "output", value) != 0)
        json_object_put(value);
    jadd(fr, "name", json_object_new_string(name));
    jadd(fr, "response", response);
    jadd(part, "functionResponse", fr);
    return part;
}

/* Adds the thoughtSignature to a part that has none yet; 0 when it had one. */
static int sign_part(json_object *part, const char *signature)
{
    if (!part || jget(part, "thoughtSignature"))
        return 0;
    return jadd(part, "thoughtSignature", json_object_new_string(signature));
}

static json_object *signature_only_part(const char *signature)
{
    json_object *part = json_object_new_object();
    if (!part)
        return NULL;
    jadd(part, "text", json_object_new_string(""));
    jadd(part, "thoughtSignature", json_object_new_string(signature));
    return part;
}

/* The parts of one seam message, appended to the builder. */
static int encode_message(const seam_request *req, size_t mi, content_builder *b, seam_error *err)
{
    const seam_message *msg = seam_request_message(req, mi);
    int is_model = seam_message_role(msg) == SEAM_ROLE_ASSISTANT;
    const char *pending_signature = NULL; /* a carrier's, for the next part */
    json_object *last_part = NULL;        /* borrowed: the last part added */
    int rc = SEAM_OK;

    for (size_t k = 0; k < seam_message_part_count(msg) && rc == SEAM_OK; k++) {
        const seam_part *p = seam_message_part(msg, k);
        json_object *part = NULL;
        switch (seam_part_get_type(p)) {
        case SEAM_PART_TEXT: {
            const char *text = seam_part_text(p);
            /* Gemini refuses empty text parts. */
            if (text && *text) {
                part = json_object_new_object();
                if (part)
                    jadd(part, "text", json_object_new_string(text));
            }
            break;
        }
        case SEAM_PART_REASONING: {
            const char *text = seam_part_text(p);
            const char *sig = seam_part_signature(p);
            /* Only Gemini's own reasoning is replayed, and only what it needs: its
             * signature. Unsigned thought text and another provider's blocks
             * (untagged signatures, opaque redacted data) are dropped. */
            size_t tag_len = strlen(GEMINI_SIGNATURE_TAG);
            if (!is_model || seam_part_redacted(p) || !sig ||
                strncmp(sig, GEMINI_SIGNATURE_TAG, tag_len) != 0 || !sig[tag_len])
                break;
            sig += tag_len;
            if (!text || !*text) {
                if (pending_signature) {
                    rc = builder_add_part(b, signature_only_part(pending_signature));
                    last_part = NULL;
                }
                pending_signature = sig;
                continue;
            }
            part = json_object_new_object();
            if (part) {
                jadd(part, "text", json_object_new_string(text));
                jadd(part, "thought", json_object_new_boolean(1));
                jadd(part, "thoughtSignature", json_object_new_string(sig));
            }
            break;
        }
        case SEAM_PART_TOOL_CALL:
            if (seam_part_provider_executed(p))
                break;
            part = function_call_part(p);
            break;
        case SEAM_PART_TOOL_RESULT: {
            if (seam_part_provider_executed(p))
                break;
            long order = LONG_MAX;
            const char *name = seam_part_tool_name(p);
            const char *call_name = NULL;
            int found = find_call(req, mi, seam_part_tool_call_id(p), &order, &call_name);
            if (!name || !*name)
                name = call_name;
            if (!found)
                order = LONG_MAX;
            if (!name || !*name)
                return bad_request(err, "a tool result matches no earlier tool call and has no name",
                                   seam_part_tool_call_id(p));
            rc = builder_add_response(b, order, function_response_part(name, p));
            continue;
        }
        case SEAM_PART_MEDIA:
            part = media_part(p);
            break;
        }
        if (!part)
            continue;
        if (pending_signature) {
            sign_part(part, pending_signature);
            pending_signature = NULL;
        }
        last_part = part;
        rc = builder_add_part(b, part);
    }
    if (rc == SEAM_OK && pending_signature && !sign_part(last_part, pending_signature))
        rc = builder_add_part(b, signature_only_part(pending_signature));
    return rc == SEAM_OK ? SEAM_OK : nomem(err);
}

static int encode_contents(const seam_request *req, json_object *body, seam_error *err)
{
    json_object *contents = json_object_new_array();
    if (!contents)
        return nomem(err);
    content_builder b = {0};
    int rc = SEAM_OK;
    for (size_t i = 0; i < seam_request_message_count(req) && rc == SEAM_OK; i++) {
        const seam_message *msg = seam_request_message(req, i);
        const char *role = seam_message_role(msg) == SEAM_ROLE_ASSISTANT ? "model" : "user";
        if (b.role && strcmp(b.role, role) != 0 && builder_flush(&b, contents) != SEAM_OK)
            rc = nomem(err);
        b.role = role;
        if (rc == SEAM_OK)
            rc = encode_message(req, i, &b, err);
    }
    if (rc == SEAM_OK && b.role && builder_flush(&b, contents) != SEAM_OK)
        rc = nomem(err);
    builder_free(&b);
    if (rc != SEAM_OK) {
        json_object_put(contents);
        return rc;
    }
    if (json_object_array_length(contents) == 0) {
        json_object_put(contents);
        return bad_request(err, "the request has no message content", NULL);
    }
    jadd(body, "contents", contents);
    return SEAM_OK;
}

/* Gemini 3 and later refuse (400 "Function call is missing a thought_signature")
 * a request whose current turn (everything after the last user content that
 * is not only function responses) has a model step whose first functionCall
 * part carries no signature. That happens whenever the calls were not made by
 * Gemini, or their reasoning parts were stripped (a failover from another
 * provider, a history carried over in a new call). The API documents a
 * placeholder signature for such calls; it is put on those parts only, never
 * over a real one, and never on earlier turns, which are not validated. */
static void sign_unsigned_calls_of_current_turn(json_object *contents)
{
    size_t n = json_object_array_length(contents), start = 0;
    for (size_t i = n; i-- > 0;) {
        json_object *c = json_object_array_get_idx(contents, i);
        const char *role = jstr(c, "role");
        json_object *parts = jget(c, "parts");
        int user_input = 0;
        for (size_t k = 0; role && strcmp(role, "user") == 0 && k < json_object_array_length(parts); k++)
            user_input |= !jget(json_object_array_get_idx(parts, k), "functionResponse");
        if (user_input) {
            start = i + 1;
            break;
        }
    }
    for (size_t i = start; i < n; i++) {
        json_object *c = json_object_array_get_idx(contents, i);
        const char *role = jstr(c, "role");
        json_object *parts = jget(c, "parts");
        if (!role || strcmp(role, "model") != 0)
            continue;
        for (size_t k = 0; k < json_object_array_length(parts); k++) {
            json_object *p = json_object_array_get_idx(parts, k);
            if (!jget(p, "functionCall"))
                continue;
            sign_part(p, GEMINI_SIGNATURE_PLACEHOLDER);
            break;
        }
    }
}

static int encode_tools(const seam_request *req, const model_family *fam, json_object *body,
                        seam_error *err)
{
    int json_schema = fam && fam->levels; /* Gemini 3 and later: parametersJsonSchema */
    size_t n = seam_request_tool_count(req);
    const char *named = NULL;
    seam_tool_choice choice = seam_request_tool_choice(req, &named);
    if (n == 0)
        return SEAM_OK;
    json_object *decls = json_object_new_array();
    if (!decls)
        return nomem(err);
    int named_found = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = seam_request_tool_name(req, i);
        const char *desc = seam_request_tool_description(req, i);
        json_object *params = NULL;
        int rc = json_schema ? json_schema_text(seam_request_tool_parameters(req, i), 1, &params)
                             : reshape_schema_text(seam_request_tool_parameters(req, i), 1, &params);
        if (rc != SEAM_OK) {
            json_object_put(decls);
            return rc == SEAM_ERR_NOMEM ? nomem(err)
                                        : bad_request(err, "tool parameters are not JSON", name);
        }
        json_object *decl = json_object_new_object();
        if (!decl) {
            json_object_put(params);
            json_object_put(decls);
            return nomem(err);
        }
        jadd(decl, "name", json_object_new_string(name ? name : ""));
        if (desc && *desc)
            jadd(decl, "description", json_object_new_string(desc));
        if (params)
            jadd(decl, json_schema ? "parametersJsonSchema" : "parameters", params);
        jpush(decls, decl);
        named_found |= named && name && strcmp(named, name) == 0;
    }
    json_object *tool = json_object_new_object();
    json_object *tools = json_object_new_array();
    if (!tool || !tools) {
        json_object_put(tool);
        json_object_put(tools);
        json_object_put(decls);
        return nomem(err);
    }
    jadd(tool, "functionDeclarations", decls);
    jpush(tools, tool);
    jadd(body, "tools", tools);

    if (choice == SEAM_TOOL_CHOICE_NAMED && !named_found)
        return bad_request(err, "tool_choice names a tool the request does not declare", named);
    json_object *fcc = json_object_new_object();
    json_object *config = json_object_new_object();
    if (!fcc || !config) {
        json_object_put(fcc);
        json_object_put(config);
        return nomem(err);
    }
    const char *mode = choice == SEAM_TOOL_CHOICE_NONE     ? "NONE"
                       : choice == SEAM_TOOL_CHOICE_AUTO ? "AUTO"
                                                         : "ANY";
    jadd(fcc, "mode", json_object_new_string(mode));
    if (choice == SEAM_TOOL_CHOICE_NAMED) {
        json_object *allowed = json_object_new_array();
        if (allowed)
            jpush(allowed, json_object_new_string(named));
        jadd(fcc, "allowedFunctionNames", allowed);
    }
    jadd(config, "functionCallingConfig", fcc);
    jadd(body, "toolConfig", config);
    return SEAM_OK;
}

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
static void apply_options(json_object *body, json_object *gen, json_object *options)
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
static void drop_own_twin(json_object *obj, const char *own, const char *twin)
{
    if (own && jget(obj, own) && jget(obj, twin))
        json_object_object_del(obj, own);
}

static int encode_generation_config(const gemini_instance *g, const seam_request *req,
                                    const model_family *fam, int stream, json_object *body,
                                    seam_error *err)
{
    int modern = fam && fam->levels; /* Gemini 3 and later */
    json_object *gen = json_object_new_object();
    if (!gen)
        return nomem(err);
    double temperature;
    if (seam_request_temperature(req, &temperature))
        jadd(gen, "temperature", json_double(temperature));
    int64_t max_tokens = seam_request_max_tokens(req);
    if (max_tokens > 0 && modern) {
        /* One request's output is capped (Gemini 4: 65,536 streamed, 32,768
         * for a non-streamed call, which refuses more with a 400 unless it
         * carries a continuation token); more is long decode, several
         * requests, which is not the codec's to run. */
        int64_t cap = !stream && fam->max_output_unary ? fam->max_output_unary : fam->max_output;
        if (cap > 0 && max_tokens > cap)
            max_tokens = cap;
    }
    if (max_tokens > 0)
        jadd(gen, "maxOutputTokens", json_object_new_int64(max_tokens));
    size_t n_stop = seam_request_stop_count(req);
    if (n_stop > 0) {
        json_object *stops = json_object_new_array();
        for (size_t i = 0; stops && i < n_stop; i++)
            jpush(stops, json_object_new_string(seam_request_stop(req, i)));
        jadd(gen, "stopSequences", stops);
    }
    const char *schema_json = NULL;
    const char *schema_field = NULL;
    if (seam_request_response_format(req, NULL, &schema_json, NULL) == SEAM_FORMAT_JSON) {
        jadd(gen, "responseMimeType", json_object_new_string("application/json"));
        json_object *schema = NULL;
        int rc = modern ? json_schema_text(schema_json, 0, &schema)
                        : reshape_schema_text(schema_json, 0, &schema);
        if (rc != SEAM_OK) {
            json_object_put(gen);
            return rc == SEAM_ERR_NOMEM ? nomem(err)
                                        : bad_request(err, "the response schema is not JSON", NULL);
        }
        if (schema) {
            schema_field = modern ? "responseJsonSchema" : "responseSchema";
            jadd(gen, schema_field, schema);
        }
    }
    int64_t budget = seam_request_reasoning_budget(req);
    const char *thinking_field = NULL;
    if (budget > 0) {
        json_object *tc = json_object_new_object();
        if (tc) {
            if (modern) {
                /* Gemini 3 and later take a level; a budget together with a
                 * level is refused, so only the level is sent. */
                thinking_field = "thinkingLevel";
                jadd(tc, thinking_field,
                     json_object_new_string(thinking_level_for_budget(budget, fam->levels)));
            } else {
                thinking_field = "thinkingBudget";
                jadd(tc, thinking_field, json_object_new_int64(budget));
            }
            jadd(tc, "includeThoughts", json_object_new_boolean(1));
        }
        jadd(gen, "thinkingConfig", tc);
    }

    json_object *conf_options = parse_json(g->options_json);
    json_object *req_options = parse_json(seam_request_provider_options(req));
    apply_options(body, gen, conf_options);
    apply_options(body, gen, req_options);
    json_object_put(conf_options);
    json_object_put(req_options);

    drop_own_twin(jget(gen, "thinkingConfig"), thinking_field,
                  thinking_field && strcmp(thinking_field, "thinkingLevel") == 0 ? "thinkingBudget"
                                                                                 : "thinkingLevel");
    drop_own_twin(gen, schema_field,
                  schema_field && strcmp(schema_field, "responseSchema") == 0 ? "responseJsonSchema"
                                                                              : "responseSchema");

    if (json_object_object_length(gen) > 0)
        jadd(body, "generationConfig", gen);
    else
        json_object_put(gen);
    return SEAM_OK;
}

static int gemini_encode(void *instance, const seam_request *req, int stream,
                         seam_http_request *out, seam_error *err)
{
    gemini_instance *g = instance;
    const char *model = seam_request_model(req);
    if (!model_name_ok(model))
        return bad_request(err, "the model name is missing or not a Gemini model id", model);
    /* "models/x" and "tunedModels/x" are full resource names; a bare id is a model. */
    const char *collection = strncmp(model, "models/", 7) == 0 ||
                                     strncmp(model, "tunedModels/", 12) == 0
                                 ? ""
                                 : "models/";
    size_t url_len = strlen(g->base_url) + strlen(collection) + strlen(model) + 48;
    char *url = malloc(url_len);
    if (!url)
        return nomem(err);
    snprintf(url, url_len, "%s/%s%s:%s", g->base_url, collection, model,
             stream ? "streamGenerateContent?alt=sse" : "generateContent");

    json_object *body = json_object_new_object();
    if (!body) {
        free(url);
        return nomem(err);
    }
    int rc = SEAM_OK;
    const char *system = seam_request_system(req);
    if (system && *system) {
        json_object *si = json_object_new_object();
        json_object *parts = json_object_new_array();
        json_object *part = json_object_new_object();
        if (!si || !parts || !part) {
            json_object_put(si);
            json_object_put(parts);
            json_object_put(part);
            rc = nomem(err);
        } else {
            jadd(part, "text", json_object_new_string(system));
            jpush(parts, part);
            jadd(si, "parts", parts);
            jadd(body, "systemInstruction", si);
        }
    }
    const model_family *fam = find_family(model);
    if (rc == SEAM_OK)
        rc = encode_contents(req, body, err);
    if (rc == SEAM_OK && fam && fam->levels)
        sign_unsigned_calls_of_current_turn(jget(body, "contents"));
    if (rc == SEAM_OK && fam && fam->no_model_last) {
        json_object *contents = jget(body, "contents");
        size_t n = json_object_array_length(contents);
        const char *last = n ? jstr(json_object_array_get_idx(contents, n - 1), "role") : NULL;
        if (last && strcmp(last, "model") == 0)
            rc = bad_request(err, "this model does not take a conversation that ends with an "
                                  "assistant turn (prefill)", model);
    }
    if (rc == SEAM_OK)
        rc = encode_tools(req, fam, body, err);
    if (rc == SEAM_OK)
        rc = encode_generation_config(g, req, fam, stream, body, err);

    if (rc == SEAM_OK) {
        size_t len = 0;
        const char *text = json_object_to_json_string_length(body, JSON_OUT_FLAGS, &len);
        if (!text)
            rc = nomem(err);
        else if (seam_http_request_set_url(out, url) != SEAM_OK ||
                 seam_http_request_set_method(out, SEAM_HTTP_POST) != SEAM_OK ||
                 seam_http_request_add_header(out, "Content-Type", "application/json") != SEAM_OK ||
                 seam_http_request_add_secret_header(out, "x-goog-api-key", NULL) != SEAM_OK ||
                 seam_http_request_set_body(out, text, len) != SEAM_OK ||
                 (stream && seam_http_request_set_framing(out, SEAM_FRAMING_SSE) != SEAM_OK))
            rc = nomem(err);
    }
    json_object_put(body);
    free(url);
    return rc;
}

/* ======================================================================== */
/* errors                                                                    */
/* ======================================================================== */

/* INVALID_ARGUMENT is also how Gemini says the prompt is too long, e.g. "The
 * input token count (1200000) exceeds the maximum number of tokens allowed
 * (1048576)." */
static int is_context_overflow(const char *message)
{
    return contains_ci(message, "input token count") ||
           contains_ci(message, "exceeds the maximum number of tokens") ||
           contains_ci(message, "context length") || contains_ci(message, "context window") ||
           contains_ci(message, "too many tokens") || contains_ci(message, "prompt is too long");
}

/* A google.protobuf.Duration in JSON: "12s", "1.5s", "0.250s" (or an object with
 * seconds/nanos). -1 when unreadable. */
static int64_t parse_duration_ms(json_object *d)
{
    if (jis(d, json_type_string)) {
        const char *s = json_object_get_string(d);
        char *end;
        double secs = strtod(s, &end); /* "s" follows; the C locale's '.' is Google's */
        if (end == s || !(secs >= 0 && secs <= 1e9)) /* also NaN */
            return -1;
        return (int64_t)(secs * 1000.0 + 0.5);
    }
    if (jis(d, json_type_object)) {
        int64_t secs = 0, nanos = 0;
        int has = jint64(d, "seconds", &secs) | jint64(d, "nanos", &nanos);
        if (!has || secs < 0 || secs > 1000000000 || nanos < 0)
            return -1;
        return secs * 1000 + nanos / 1000000;
    }
    return -1;
}

/* The error object of a Gemini error body: {"error":{...}} or, from the
 * non-SSE stream endpoint, [{"error":{...}}]. */
static json_object *find_error_object(json_object *root)
{
    if (jis(root, json_type_array) && json_object_array_length(root) > 0)
        root = json_object_array_get_idx(root, 0);
    json_object *e = jget(root, "error");
    return jis(e, json_type_object) ? e : NULL;
}

/* Fills err from a google.rpc.Status. The HTTP status (and a default kind from
 * it) is already in err or is taken from error.code. */
static void classify_status(json_object *e, seam_error *err)
{
    const char *status = jstr(e, "status");
    const char *message = jstr(e, "message");
    int64_t code = 0;
    if (err->http_status == 0 && jint64(e, "code", &code) && code >= 100 && code < 600)
        seam_error_from_http_status(err, (int)code);

    const char *reason = NULL;
    int64_t retry_ms = -1;
    json_object *details = jget(e, "details");
    for (size_t i = 0; jis(details, json_type_array) && i < json_object_array_length(details); i++) {
        json_object *d = json_object_array_get_idx(details, i);
        const char *type = jstr(d, "@type");
        if (!type)
            continue;
        if (strstr(type, "google.rpc.RetryInfo"))
            retry_ms = parse_duration_ms(jget(d, "retryDelay"));
        else if (strstr(type, "google.rpc.ErrorInfo") && jstr(d, "reason"))
            reason = jstr(d, "reason");
    }

    seam_error_kind kind = err->kind != SEAM_ERROR_NONE ? err->kind : SEAM_ERROR_UNKNOWN;
    if (status) {
        if (strcmp(status, "INVALID_ARGUMENT") == 0 || strcmp(status, "FAILED_PRECONDITION") == 0 ||
            strcmp(status, "OUT_OF_RANGE") == 0 || strcmp(status, "UNIMPLEMENTED") == 0)
            kind = SEAM_ERROR_BAD_REQUEST;
        else if (strcmp(status, "UNAUTHENTICATED") == 0 || strcmp(status, "PERMISSION_DENIED") == 0)
            kind = SEAM_ERROR_AUTH;
        else if (strcmp(status, "NOT_FOUND") == 0)
            kind = SEAM_ERROR_MODEL_NOT_FOUND;
        else if (strcmp(status, "RESOURCE_EXHAUSTED") == 0)
            kind = SEAM_ERROR_RATE_LIMIT;
        else if (strcmp(status, "INTERNAL") == 0 || strcmp(status, "UNAVAILABLE") == 0 ||
                 strcmp(status, "ABORTED") == 0)
            kind = SEAM_ERROR_OVERLOADED;
        else if (strcmp(status, "DEADLINE_EXCEEDED") == 0)
            kind = SEAM_ERROR_TIMEOUT;
    }
    if (kind == SEAM_ERROR_BAD_REQUEST) {
        /* A wrong key is a 400 INVALID_ARGUMENT with reason API_KEY_INVALID. */
        if ((reason && strstr(reason, "API_KEY")) || contains_ci(message, "API key not valid") ||
            contains_ci(message, "API key expired"))
            kind = SEAM_ERROR_AUTH;
        else if (is_context_overflow(message))
            kind = SEAM_ERROR_CONTEXT_OVERFLOW;
    }
    err->kind = kind;
    err->retryable = seam_error_kind_retryable(kind);
    if (retry_ms >= 0)
        err->retry_after_ms = retry_ms;
    if (status)
        seam_strlcpy(err->code, status, sizeof err->code);
    else if (reason)
        seam_strlcpy(err->code, reason, sizeof err->code);
    if (message && *message) {
        seam_strlcpy(err->message, message, sizeof err->message);
        size_t n = strlen(err->message);
        while (n > 0 && (err->message[n - 1] == '\n' || err->message[n - 1] == ' '))
            err->message[--n] = '\0';
    }
}

static void gemini_classify_error(void *instance, int http_status, const seam_http_headers *headers,
                                  const char *body, size_t len, seam_error *err)
{
    (void)instance;
    (void)headers;
    if (!err)
        return;
    if (err->http_status == 0 && http_status > 0)
        seam_error_from_http_status(err, http_status);
    json_object *root = parse_json_len(body, len);
    json_object *e = find_error_object(root);
    if (e)
        classify_status(e, err);
    json_object_put(root);
}

/* ======================================================================== */
/* decode                                                                    */
/* ======================================================================== */

typedef struct gemini_decoder {
    char id_prefix[24];        /* random per response: synthesized ids stay unique */
    unsigned n_calls;          /* tool calls emitted */
    unsigned n_reasoning;      /* reasoning blocks opened */
    int reasoning_open;
    char reasoning_id[32];
    char *reasoning_signature; /* of the open block (from a thought part) */
    int saw_tool_call;
    int finished;              /* a finishReason (or a prompt block) was seen */
    seam_stop_reason finish;
    int stop_emitted;
    int have_usage;
    seam_usage usage;          /* from the last usageMetadata */
    jscan_buf scan;            /* the fast path's decoded strings, reused per event */
} gemini_decoder;

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Not a secret, only unique: time, pid, address and a process-wide counter. */
static void make_id_prefix(char *buf, size_t size, const void *salt)
{
    static atomic_uint_fast64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    seed ^= (uint64_t)getpid() << 40;
    seed ^= (uint64_t)(uintptr_t)salt;
    seed += splitmix64((uint64_t)atomic_fetch_add(&counter, 1));
    snprintf(buf, size, "%016llx", (unsigned long long)splitmix64(seed));
}

static void *gemini_decoder_new(void *instance, const seam_request *req)
{
    (void)instance;
    (void)req;
    gemini_decoder *d = calloc(1, sizeof *d);
    if (d)
        make_id_prefix(d->id_prefix, sizeof d->id_prefix, d);
    return d;
}

static void gemini_decoder_free(void *decoder)
{
    gemini_decoder *d = decoder;
    if (!d)
        return;
    free(d->reasoning_signature);
    jscan_buf_free(&d->scan);
    free(d);
}

static int emit(seam_emitter *out, seam_chunk *c)
{
    return seam_emit(out, c);
}

/* A signature as handed to the caller: tagged as Gemini's (see the file comment). */
static char *tagged_signature(const char *signature)
{
    size_t n = strlen(GEMINI_SIGNATURE_TAG) + strlen(signature) + 1;
    char *tagged = malloc(n);
    if (tagged)
        snprintf(tagged, n, "%s%s", GEMINI_SIGNATURE_TAG, signature);
    return tagged;
}

static int close_reasoning(gemini_decoder *d, seam_emitter *out)
{
    if (!d->reasoning_open)
        return SEAM_OK;
    seam_chunk c = {.type = SEAM_CHUNK_REASONING_END, .id = d->reasoning_id,
                    .signature = d->reasoning_signature};
    d->reasoning_open = 0;
    int rc = emit(out, &c);
    free(d->reasoning_signature);
    d->reasoning_signature = NULL;
    return rc;
}

static int open_reasoning(gemini_decoder *d, seam_emitter *out)
{
    snprintf(d->reasoning_id, sizeof d->reasoning_id, "reasoning_%u", d->n_reasoning++);
    d->reasoning_open = 1;
    seam_chunk c = {.type = SEAM_CHUNK_REASONING_START, .id = d->reasoning_id};
    return emit(out, &c);
}

/* A signature that came on a non-thought part: a reasoning block with no text,
 * just before the part's content (see the file comment). */
static int emit_signature_carrier(gemini_decoder *d, seam_emitter *out, const char *signature)
{
    int rc = close_reasoning(d, out);
    if (rc != SEAM_OK)
        return rc;
    char *tagged = tagged_signature(signature);
    if (!tagged)
        return SEAM_ERR_NOMEM;
    snprintf(d->reasoning_id, sizeof d->reasoning_id, "reasoning_%u", d->n_reasoning++);
    seam_chunk start = {.type = SEAM_CHUNK_REASONING_START, .id = d->reasoning_id};
    seam_chunk end = {.type = SEAM_CHUNK_REASONING_END, .id = d->reasoning_id,
                      .signature = tagged};
    rc = emit(out, &start);
    if (rc == SEAM_OK)
        rc = emit(out, &end);
    free(tagged);
    return rc;
}

static int emit_tool_call(gemini_decoder *d, seam_emitter *out, json_object *fc)
{
    const char *name = jstr(fc, "name");
    const char *server_id = jstr(fc, "id");
    char id[64];
    if (server_id && *server_id && strlen(server_id) < sizeof id)
        seam_strlcpy(id, server_id, sizeof id);
    else
        snprintf(id, sizeof id, GEMINI_SYNTH_ID_PREFIX "%s_%u", d->id_prefix, d->n_calls);
    d->n_calls++;
    d->saw_tool_call = 1;
    json_object *args = jget(fc, "args");
    const char *args_json = jis(args, json_type_object)
                                ? json_object_to_json_string_ext(args, JSON_OUT_FLAGS)
                                : "{}";
    seam_chunk start = {.type = SEAM_CHUNK_TOOL_CALL_START, .id = id, .name = name ? name : ""};
    seam_chunk delta = {.type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = id, .text = args_json};
    seam_chunk end = {.type = SEAM_CHUNK_TOOL_CALL_END, .id = id, .args_json = args_json};
    int rc = emit(out, &start);
    if (rc == SEAM_OK)
        rc = emit(out, &delta);
    if (rc == SEAM_OK)
        rc = emit(out, &end);
    return rc;
}

/* A part's members that matter; the json-c path and the scanner both end here
 * (the scanner only with fc and signature NULL). */
static int decode_part_fields(gemini_decoder *d, seam_emitter *out, const char *text,
                              int is_thought, const char *signature, json_object *fc)
{
    int rc = SEAM_OK;

    if (is_thought && !fc) {
        /* A second signed thought closes the first: one signature per block. */
        if (d->reasoning_open && signature && d->reasoning_signature)
            rc = close_reasoning(d, out);
        if (rc == SEAM_OK && !d->reasoning_open)
            rc = open_reasoning(d, out);
        if (rc == SEAM_OK && text && *text) {
            seam_chunk c = {.type = SEAM_CHUNK_REASONING_DELTA, .id = d->reasoning_id, .text = text};
            rc = emit(out, &c);
        }
        if (rc == SEAM_OK && signature && !d->reasoning_signature) {
            d->reasoning_signature = tagged_signature(signature);
            if (!d->reasoning_signature)
                rc = SEAM_ERR_NOMEM;
        }
        return rc;
    }

    rc = close_reasoning(d, out);
    if (rc == SEAM_OK && signature)
        rc = emit_signature_carrier(d, out, signature);
    if (rc != SEAM_OK)
        return rc;
    if (jis(fc, json_type_object))
        return emit_tool_call(d, out, fc);
    if (text && *text) {
        seam_chunk c = {.type = SEAM_CHUNK_TEXT_DELTA, .text = text};
        return emit(out, &c);
    }
    /* Other parts (executableCode, inlineData output, ...) carry nothing the seam
     * chunk union delivers on this path. */
    return SEAM_OK;
}

static int decode_part(gemini_decoder *d, seam_emitter *out, json_object *part)
{
    json_object *thought = jget(part, "thought");
    const char *signature = jstr(part, "thoughtSignature");
    return decode_part_fields(d, out, jstr(part, "text"),
                              jis(thought, json_type_boolean) && json_object_get_boolean(thought),
                              signature && *signature ? signature : NULL, jget(part, "functionCall"));
}

static seam_stop_reason map_finish_reason(const char *r)
{
    static const char *const filtered[] = {
        "SAFETY",        "RECITATION",  "BLOCKLIST",   "PROHIBITED_CONTENT", "SPII",
        "IMAGE_SAFETY",  "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "LANGUAGE",
        "MODEL_ARMOR",
    };
    static const char *const failed[] = {
        "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS",
        "MISSING_THOUGHT_SIGNATURE", "NO_IMAGE", "MALFORMED_RESPONSE",
    };
    /* CONTINUATION (Gemini 4): the request's own output cap was reached with
     * budget left; the answer goes on only in a further request that carries
     * the candidate's continuationToken, which the codec cannot send. For the
     * caller it is a cut answer, as MAX_TOKENS is. */
    if (strcmp(r, "MAX_TOKENS") == 0 || strcmp(r, "CONTINUATION") == 0)
        return SEAM_STOP_LENGTH;
    for (size_t i = 0; i < sizeof filtered / sizeof filtered[0]; i++)
        if (strcmp(r, filtered[i]) == 0)
            return SEAM_STOP_CONTENT_FILTER;
    for (size_t i = 0; i < sizeof failed / sizeof failed[0]; i++)
        if (strcmp(r, failed[i]) == 0)
            return SEAM_STOP_ERROR;
    /* STOP, OTHER, FINISH_REASON_UNSPECIFIED and reasons added later: the answer
     * ended without a known problem. */
    return SEAM_STOP_STOP;
}

/* usageMetadata -> seam usage: input net of the cached prompt tokens; thinking
 * tokens are billed as output on Gemini, so output counts them and reasoning is
 * that subset. */
/* A token count from the wire, clamped to [0, 1e12] so that the sums and
 * differences below stay defined whatever a server sends. */
static int64_t clamp_count(int64_t n)
{
    return n < 0 ? 0 : n > 1000000000000 ? 1000000000000 : n;
}

static int token_count(json_object *o, const char *key, int64_t *out)
{
    if (!jint64(o, key, out))
        return 0;
    *out = clamp_count(*out);
    return 1;
}

/* The four counts of a usageMetadata, in this order. */
static const char *const usage_keys[4] = {"promptTokenCount", "cachedContentTokenCount",
                                          "candidatesTokenCount", "thoughtsTokenCount"};

/* has[i]/n[i]: usage_keys[i] was given (n clamped). */
static void usage_from_counts(const int has[4], const int64_t n[4], seam_usage *u)
{
    int64_t prompt = n[0], cached = n[1], candidates = n[2], thoughts = n[3];
    int has_prompt = has[0], has_cached = has[1], has_candidates = has[2], has_thoughts = has[3];
    memset(u, 0, sizeof *u);
    if (has_prompt) {
        u->input_tokens = prompt - cached > 0 ? prompt - cached : 0;
        /* Gemini reports cachedContentTokenCount whenever a cache was read, so a
         * prompt count without one means a known zero. */
        u->cache_read_tokens = has_cached ? cached : 0;
        u->present |= SEAM_USAGE_INPUT | SEAM_USAGE_CACHE_READ;
    }
    if (has_candidates || has_thoughts || has_prompt) {
        u->output_tokens = candidates + thoughts;
        u->present |= SEAM_USAGE_OUTPUT;
    }
    if (has_thoughts) {
        u->reasoning_tokens = thoughts;
        u->present |= SEAM_USAGE_REASONING;
    }
}

static void parse_usage(json_object *um, seam_usage *u)
{
    int has[4];
    int64_t n[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++)
        has[i] = token_count(um, usage_keys[i], &n[i]);
    usage_from_counts(has, n, u);
}

static int emit_stop(gemini_decoder *d, seam_emitter *out)
{
    int rc = close_reasoning(d, out);
    if (rc != SEAM_OK)
        return rc;
    seam_stop_reason reason = d->finish;
    if (reason == SEAM_STOP_STOP && d->saw_tool_call)
        reason = SEAM_STOP_TOOL_USE;
    seam_chunk c = {.type = SEAM_CHUNK_STOP, .stop_reason = reason};
    if (d->have_usage)
        c.usage = d->usage;
    d->stop_emitted = 1;
    return emit(out, &c);
}

/* One GenerateContentResponse. */
static int decode_response_object(gemini_decoder *d, json_object *resp, seam_emitter *out,
                                  seam_error *err)
{
    json_object *e = jget(resp, "error");
    if (jis(e, json_type_object)) {
        classify_status(e, err);
        return SEAM_ERR_PROVIDER;
    }
    if (d->stop_emitted)
        return SEAM_OK; /* nothing may follow the stop chunk */

    int rc = SEAM_OK;
    json_object *um = jget(resp, "usageMetadata");
    int usage_here = jis(um, json_type_object);
    if (usage_here) {
        parse_usage(um, &d->usage);
        d->have_usage = 1;
    }

    json_object *candidates = jget(resp, "candidates");
    json_object *cand = jis(candidates, json_type_array) && json_object_array_length(candidates) > 0
                            ? json_object_array_get_idx(candidates, 0)
                            : NULL;
    json_object *parts = jget(jget(cand, "content"), "parts");
    for (size_t i = 0; rc == SEAM_OK && jis(parts, json_type_array) &&
                       i < json_object_array_length(parts);
         i++)
        rc = decode_part(d, out, json_object_array_get_idx(parts, i));
    if (rc != SEAM_OK)
        return rc;

    const char *finish = jstr(cand, "finishReason");
    if (finish && !d->finished) {
        d->finished = 1;
        d->finish = map_finish_reason(finish);
    }
    /* A blocked prompt: no candidates, promptFeedback.blockReason. */
    const char *blocked = jstr(jget(resp, "promptFeedback"), "blockReason");
    if (blocked && !d->finished) {
        d->finished = 1;
        d->finish = SEAM_STOP_CONTENT_FILTER;
    }
    /* The stop goes out with the usage of the same or a later event; a stream
     * whose usage never follows gets it from decode_finish. */
    if (d->finished && usage_here)
        rc = emit_stop(d, out);
    return rc;
}

static int malformed(seam_error *err, const char *what)
{
    return codec_protocol_error(err, "gemini: %s", what);
}

/* ---- the fast path ---------------------------------------------------------
 *
 * A long stream is mostly responses of one candidate whose parts are text (or
 * thought text), often with a running usageMetadata. Those are scanned in place
 * (json_scan.h) and handed to decode_part_fields and usage_from_counts as the
 * json-c path would. A finishReason, a function call, a signature, an error, a
 * prompt block or anything the scanner is unsure of goes the json-c way before
 * anything is emitted. */
#define GEMINI_SCAN_MAX_PARTS 8

typedef struct scan_part {
    const char *text;
    int thought;
} scan_part;

typedef struct scan_resp {
    scan_part parts[GEMINI_SCAN_MAX_PARTS];
    size_t n_parts;
    int usage_here;
    int has[4];
    int64_t n[4];
} scan_resp;

static int scan_usage(jscan *s, scan_resp *sr)
{
    const char *k;
    size_t kl;
    int r;
    if (jscan_null(s))
        return 1;
    if (!jscan_object(s))
        return 0;
    sr->usage_here = 1;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int i = 0;
        while (i < 4 && !jscan_key_is(k, kl, usage_keys[i]))
            i++;
        if (i == 4) {
            if (!jscan_skip(s))
                return 0;
            continue;
        }
        if (sr->has[i] || !jscan_int(s, &sr->n[i]))
            return 0;
        sr->has[i] = 1;
        sr->n[i] = clamp_count(sr->n[i]);
    }
    return r == 0;
}

static int scan_part_(jscan *s, scan_part *p)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int ok;
        if (JSCAN_KEY(k, kl, "text")) {
            ok = !(seen & 1) && jscan_string_or_null(s, &p->text);
            seen |= 1;
        } else if (JSCAN_KEY(k, kl, "thought")) {
            ok = !(seen & 2) && jscan_bool(s, &p->thought);
            seen |= 2;
        } else if (JSCAN_KEY(k, kl, "thoughtSignature") || JSCAN_KEY(k, kl, "functionCall")) {
            ok = 0;
        } else {
            ok = jscan_skip(s);
        }
        if (!ok)
            return 0;
    }
    return r == 0;
}

static int scan_content(jscan *s, scan_resp *sr)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        if (!JSCAN_KEY(k, kl, "parts")) {
            if (!jscan_skip(s))
                return 0;
            continue;
        }
        int e;
        if (seen || !jscan_array(s))
            return 0;
        seen = 1;
        while ((e = jscan_element(s)) == 1) {
            if (sr->n_parts == GEMINI_SCAN_MAX_PARTS)
                return 0;
            scan_part *p = &sr->parts[sr->n_parts++];
            p->text = NULL;
            p->thought = 0;
            if (!scan_part_(s, p))
                return 0;
        }
        if (e != 0)
            return 0;
    }
    return r == 0;
}

static int scan_candidate(jscan *s, scan_resp *sr)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "content")        ? 1
                  : JSCAN_KEY(k, kl, "finishReason") ? 2
                                                        : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        int ok = bit == 1 ? scan_content(s, sr) : bit == 2 ? jscan_null(s) : jscan_skip(s);
        if (!ok)
            return 0;
    }
    return r == 0;
}

/* 1 when the response was scanned and decoded (*rc its status), 0 when it must
 * take the json-c path. */
static int scan_response(gemini_decoder *d, const char *data, size_t len, seam_emitter *out,
                         int *rc)
{
    jscan s;
    if (d->stop_emitted || !jscan_begin(&s, &d->scan, data, len) || !jscan_object(&s))
        return 0;
    scan_resp sr;
    memset(&sr, 0, sizeof sr);
    const char *k;
    size_t kl;
    int r, seen = 0;
    while ((r = jscan_member(&s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "candidates")      ? 1
                  : JSCAN_KEY(k, kl, "usageMetadata") ? 2
                                                         : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        int ok;
        if (bit == 1) {
            int e;
            ok = jscan_array(&s);
            if (ok && (e = jscan_element(&s)) == 1) {
                ok = scan_candidate(&s, &sr);
                while (ok && (e = jscan_element(&s)) == 1)
                    ok = jscan_skip(&s);
            }
            ok = ok && e == 0;
        } else if (bit == 2) {
            ok = scan_usage(&s, &sr);
        } else {
            ok = !JSCAN_KEY(k, kl, "error") && !JSCAN_KEY(k, kl, "promptFeedback") &&
                 jscan_skip(&s);
        }
        if (!ok)
            return 0;
    }
    if (r != 0 || !jscan_end(&s))
        return 0;
    /* decode_response_object's order: usage, parts, (finish), stop. */
    if (sr.usage_here) {
        usage_from_counts(sr.has, sr.n, &d->usage);
        d->have_usage = 1;
    }
    *rc = SEAM_OK;
    for (size_t i = 0; *rc == SEAM_OK && i < sr.n_parts; i++)
        *rc = decode_part_fields(d, out, sr.parts[i].text, sr.parts[i].thought, NULL, NULL);
    if (*rc == SEAM_OK && d->finished && sr.usage_here)
        *rc = emit_stop(d, out);
    return 1;
}

static int decode_json_text(gemini_decoder *d, const char *data, size_t len, seam_emitter *out,
                            seam_error *err)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)data[i]))
        i++;
    if (i == len)
        return SEAM_OK; /* an empty event (keep-alive) */
    int rc_fast;
    if (scan_response(d, data + i, len - i, out, &rc_fast))
        return rc_fast;
    json_object *root = parse_json_len(data + i, len - i);
    if (!root)
        return malformed(err, "a response event is not valid JSON");
    int rc = SEAM_OK;
    if (jis(root, json_type_array)) {
        /* The non-SSE stream shape: an array of responses. */
        for (size_t k = 0; rc == SEAM_OK && k < json_object_array_length(root); k++)
            rc = decode_response_object(d, json_object_array_get_idx(root, k), out, err);
    } else if (jis(root, json_type_object)) {
        rc = decode_response_object(d, root, out, err);
    } else {
        rc = malformed(err, "a response event is not a JSON object");
    }
    json_object_put(root);
    return rc;
}

static int gemini_decode_event(void *decoder, const seam_frame *frame, seam_emitter *out,
                               seam_error *err)
{
    gemini_decoder *d = decoder;
    if (!frame || !frame->data)
        return SEAM_OK;
    return decode_json_text(d, frame->data, frame->data_len, out, err);
}

static int gemini_decode_finish(void *decoder, seam_emitter *out, seam_error *err)
{
    gemini_decoder *d = decoder;
    (void)err;
    if (d->stop_emitted || !d->finished)
        return SEAM_OK; /* no finishReason: the core reports the cut stream */
    return emit_stop(d, out);
}

static int gemini_decode_response(void *instance, const seam_request *req, const char *body,
                                  size_t len, seam_emitter *out, seam_error *err)
{
    gemini_decoder *d = gemini_decoder_new(instance, req);
    if (!d)
        return nomem(err);
    int rc = decode_json_text(d, body ? body : "", body ? len : 0, out, err);
    if (rc == SEAM_OK)
        rc = gemini_decode_finish(d, out, err);
    if (rc == SEAM_OK && !d->stop_emitted)
        rc = malformed(err, "the response has no candidate with a finishReason");
    gemini_decoder_free(d);
    return rc;
}

/* ======================================================================== */
/* capabilities                                                              */
/* ======================================================================== */

static int gemini_capabilities(void *instance, const char *model, seam_capabilities *caps)
{
    (void)instance;
    if (!model || !caps)
        return SEAM_ERR_INVALID;
    caps->size = sizeof *caps;
    caps->streaming = 1;
    const model_family *f = find_family(model);
    if (!f)
        return SEAM_OK; /* not a model this plugin knows: nothing more to say */
    caps->tools = f->tools;
    caps->parallel_tool_calls = f->tools;
    caps->vision = f->vision;
    caps->pdf_input = f->vision && f->tools;
    caps->audio_input = f->audio;
    /* Implicit caching (and cachedContent before Gemini 4, which has only the
     * implicit kind): a read is reported either way. */
    caps->prompt_cache = strncmp(f->prefix, "gemini-", 7) == 0;
    caps->reasoning = f->reasoning;
    caps->structured_output = f->structured;
    caps->context_window = f->context_window;
    caps->max_output_tokens = f->max_output;
    return SEAM_OK;
}

/* ======================================================================== */
/* registration                                                              */
/* ======================================================================== */

static const seam_provider_vtable gemini_vtable = {
    .abi_version = SEAM_PLUGIN_ABI_VERSION,
    .size = sizeof(seam_provider_vtable),
    .id = "gemini",
    .description = "Google Gemini API (generateContent / streamGenerateContent)",
    .framing = SEAM_FRAMING_SSE,
    .create = gemini_create,
    .destroy = gemini_destroy,
    .encode = gemini_encode,
    .decoder_new = gemini_decoder_new,
    .decoder_free = gemini_decoder_free,
    .decode_event = gemini_decode_event,
    .decode_finish = gemini_decode_finish,
    .decode_response = gemini_decode_response,
    .classify_error = gemini_classify_error,
    .capabilities = gemini_capabilities,
    .serve = NULL,
};

static int gemini_plugin_init(seam_registrar *r)
{
    return seam_registrar_add(r, &gemini_vtable);
}

SEAM_PLUGIN_DEFINE(gemini_plugin_init)
