/* encode.c — the gemini plugin's encode: a seam request -> POST
 * {base_url}/models/{model}:generateContent, or :streamGenerateContent?alt=sse
 * for a stream, with the key in x-goog-api-key: systemInstruction,
 * contents/parts (text, inlineData, fileData, functionCall, functionResponse),
 * functionDeclarations (their schemas from schema.c), toolConfig and
 * generationConfig (thinking, output cap, JSON mode), then the provider
 * options (options.c). The thought-signature and tool-call-id rules it
 * follows are in internal.h; what each model family changes, in models.c.
 */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The placeholder the thought-signatures guide gives for function calls the
 * model did not produce (see sign_unsigned_calls_of_current_turn). */
#define GEMINI_SIGNATURE_PLACEHOLDER "skip_thought_signature_validator"

/* ======================================================================== */
/* encode                                                                    */
/* ======================================================================== */

static int bad_request(seam_error *err, const char *what, const char *detail)
{
    seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "gemini: %s%s%s", what, detail ? ": " : "",
                   detail ? detail : "");
    return SEAM_ERR_INVALID;
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
        int rc = json_schema ? gemini_json_schema_text(seam_request_tool_parameters(req, i), 1, &params)
                             : gemini_reshape_schema_text(seam_request_tool_parameters(req, i), 1, &params);
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

static int encode_generation_config(const gemini_options *o, const seam_request *req,
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
        int rc = modern ? gemini_json_schema_text(schema_json, 0, &schema)
                        : gemini_reshape_schema_text(schema_json, 0, &schema);
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
    /* Output modalities (reference ADR-0031: Gemini lowers them to
     * generationConfig.responseModalities, ai.google.dev/api/generate-content
     * GenerationConfig.Modality: TEXT, IMAGE, AUDIO). Text alone is the
     * default and is not sent. */
    uint32_t outputs = seam_request_output_modalities(req);
    if (outputs != SEAM_MODALITY_TEXT) {
        if (outputs & SEAM_MODALITY_VIDEO) {
            seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                           "gemini: video output is not a response modality of generateContent");
            return SEAM_ERR_INVALID;
        }
        json_object *mods = json_object_new_array();
        if (outputs & SEAM_MODALITY_TEXT)
            json_object_array_add(mods, json_object_new_string("TEXT"));
        if (outputs & SEAM_MODALITY_IMAGE)
            json_object_array_add(mods, json_object_new_string("IMAGE"));
        if (outputs & SEAM_MODALITY_AUDIO)
            json_object_array_add(mods, json_object_new_string("AUDIO"));
        jadd(gen, "responseModalities", mods);
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
                     json_object_new_string(gemini_thinking_level_for_budget(budget, fam->levels)));
            } else {
                thinking_field = "thinkingBudget";
                jadd(tc, thinking_field, json_object_new_int64(budget));
            }
            jadd(tc, "includeThoughts", json_object_new_boolean(1));
        }
        jadd(gen, "thinkingConfig", tc);
    }

    gemini_apply_options(body, gen, o->conf.own);
    gemini_apply_options(body, gen, o->req.own);

    gemini_drop_own_twin(jget(gen, "thinkingConfig"), thinking_field,
                  thinking_field && strcmp(thinking_field, "thinkingLevel") == 0 ? "thinkingBudget"
                                                                                 : "thinkingLevel");
    gemini_drop_own_twin(gen, schema_field,
                  schema_field && strcmp(schema_field, "responseSchema") == 0 ? "responseJsonSchema"
                                                                              : "responseSchema");

    if (json_object_object_length(gen) > 0)
        jadd(body, "generationConfig", gen);
    else
        json_object_put(gen);
    return SEAM_OK;
}

int gemini_encode(void *instance, const seam_request *req, int stream,
                         seam_http_request *out, seam_error *err)
{
    return gemini_encode_ex(instance, req, stream, 0, 0, out, err);
}

/* A request that names a cache (seam_request_cache_handle) leaves out what
 * the cache holds: the API refuses systemInstruction, tools and toolConfig
 * next to a cachedContent, and the cached leading contents would count
 * twice. */
static int use_cache(json_object *body, int strategy, const char *handle)
{
    size_t k = gemini_cached_contents(body, strategy);
    json_object *contents = jget(body, "contents");
    if (k && json_object_array_del_idx(contents, 0, k) != 0)
        return SEAM_ERR_NOMEM;
    json_object_object_del(body, "systemInstruction");
    json_object_object_del(body, "tools");
    json_object_object_del(body, "toolConfig");
    return jadd(body, "cachedContent", json_object_new_string(handle)) ? SEAM_OK : SEAM_ERR_NOMEM;
}

int gemini_encode_ex(void *instance, const seam_request *req, int stream, int quiet, int whole,
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
    gemini_options opts;
    if (!body || gemini_read_options(g, req, &opts) != SEAM_OK) {
        json_object_put(body);
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
    const model_family *fam = gemini_find_family(model);
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
        rc = encode_generation_config(&opts, req, fam, stream, body, err);
    const char *handle = whole ? NULL : seam_request_cache_handle(req);
    if (rc == SEAM_OK && handle && opts.cache && !opts.explicit_cache &&
        use_cache(body, opts.cache, handle) != SEAM_OK)
        rc = nomem(err);
    if (rc == SEAM_OK && (popt_merge_extra(body, opts.conf.extra) != SEAM_OK ||
                          popt_merge_extra(body, opts.req.extra) != SEAM_OK ||
                          (!quiet && (popt_warn(out, opts.conf.notes.data) != SEAM_OK ||
                                      popt_warn(out, opts.req.notes.data) != SEAM_OK))))
        rc = nomem(err);

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
    gemini_options_free(&opts);
    free(url);
    return rc;
}

