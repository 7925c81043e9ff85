/* schema.c — the gemini plugin's JSON Schemas: a tool's parameters or a
 * response schema, as the caller gives them in JSON Schema, turned into what
 * Gemini takes: the OpenAPI subset of `parameters` / `responseSchema`
 * (Gemini 2.x, gemini_reshape_schema_text) or the documented JSON Schema
 * subset of `parametersJsonSchema` / `responseJsonSchema` (Gemini 3 and
 * later, gemini_json_schema_text). encode.c picks one per model family.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SCHEMA_MAX_DEPTH 64
#define SCHEMA_MAX_REFS 32

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
int gemini_reshape_schema_text(const char *schema_json, int must_be_object, json_object **out)
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

/* The JSON Schema path's twin of gemini_reshape_schema_text, with the same rules for
 * what is left out: function parameters must be an object with properties
 * (parametersJsonSchema "must describe an object where the properties are the
 * parameters"), and a response schema that is an object without properties
 * adds nothing to JSON mode. */
int gemini_json_schema_text(const char *schema_json, int must_be_object, json_object **out)
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

