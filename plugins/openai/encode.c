/* encode.c — the openai plugin's Chat Completions encoder: seam request ->
 * `POST {base_url}/chat/completions` JSON body (messages, tools, tool_choice,
 * response_format, sampling, max tokens, stop, the reasoning budget, stream
 * options), with each profile's quirks (the profiles: options.c; Mistral's
 * tool call ids: mistral_ids.c).
 *
 * The reasoning budget (seam_request_reasoning_budget, tokens; 0 sends
 * nothing) on each documented wire. Effort levels from a budget: three levels
 * "low" below 4096 tokens, "medium" below 16384, else "high"; two levels (low,
 * high) split at 8192. Where a server or model documents no control, nothing
 * is sent (several refuse unknown fields):
 *   openai      `reasoning_effort`, reasoning families only, on the ladder of
 *               oa_effort_for_budget() (low < 4096 <= medium < 16384 <= high <
 *               32768 <= xhigh) capped at the family's highest level ("max" is
 *               sent on the Responses API only); "none" with tools, see options.c.
 *   deepseek    nothing: deepseek-reasoner always reasons and has no budget or
 *               effort control; deepseek-chat does not reason.
 *   groq        openai/gpt-oss-*: `reasoning_effort` (three levels; Groq refuses
 *               `reasoning_format` for them). qwen/qwen3-*: `reasoning_effort`
 *               "default" (its only values are none/default) and
 *               `reasoning_format` "parsed". qwq, deepseek-r1-distill-*:
 *               `reasoning_format` "parsed". Other models: nothing.
 *   mistral     the adjustable models (mistral-small-latest, -2603, Small 4,
 *               mistral-medium-3-5): `reasoning_effort` "high" (the values are
 *               none/high). magistral reasons always: nothing.
 *   xai         grok-3-mini: `reasoning_effort` low/high (two levels);
 *               grok-4.3: `reasoning_effort` (three levels). grok-3, grok-4 and
 *               grok-4-fast refuse the field: nothing.
 *   openrouter  `reasoning: {effort}` on the ladder of oa_effort_for_budget()
 *               up to xhigh (low < 4096 <= medium < 16384 <= high < 32768 <=
 *               xhigh): @openrouter/sdk 1.3.19's request type has effort and
 *               summary only, no max_tokens.
 *   ollama      `reasoning_effort` (three levels): its /v1 endpoint maps it to
 *               thinking; the native `think` field is not read there.
 *   vllm        `thinking_token_budget: budget` (the server must run with
 *               --reasoning-parser and --reasoning-config; remove the field
 *               with the request option {"thinking_token_budget": null} if not).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

static int xai_reasoning_model(const char *model)
{
    const char *m = oa_model_base(model);
    return oa_model_is(m, "grok-4") || oa_model_is(m, "grok-3-mini") || oa_model_is(m, "grok-code-fast") ||
           oa_model_is(m, "grok-code");
}

/* One media part of a user message as a Chat Completions content part. */
static int media_part(const seam_part *p, json_object **out, seam_error *err)
{
    const char *mime = seam_part_mime_type(p);
    const char *data = seam_part_media_data(p);
    seam_media_source src = seam_part_media_source(p);
    if (!mime || !data)
        return oa_bad_request(err, "a media part lacks its type or data");
    json_object *part = json_object_new_object();
    if (strncasecmp(mime, "image/", 6) == 0) {
        json_object *img = json_object_new_object();
        json_object_object_add(img, "url", src == SEAM_MEDIA_URL ? json_object_new_string(data)
                                                                 : oa_data_url(mime, data));
        json_object_object_add(part, "type", json_object_new_string("image_url"));
        json_object_object_add(part, "image_url", img);
    } else if (strncasecmp(mime, "audio/", 6) == 0 && src == SEAM_MEDIA_BASE64) {
        const char *fmt = NULL;
        if (contains_ci(mime, "wav"))
            fmt = "wav";
        else if (contains_ci(mime, "mpeg") || contains_ci(mime, "mp3"))
            fmt = "mp3";
        if (!fmt) {
            json_object_put(part);
            return oa_bad_request(err, "audio type %s is not supported (wav or mp3 only)", mime);
        }
        json_object *audio = json_object_new_object();
        json_object_object_add(audio, "data", json_object_new_string(data));
        json_object_object_add(audio, "format", json_object_new_string(fmt));
        json_object_object_add(part, "type", json_object_new_string("input_audio"));
        json_object_object_add(part, "input_audio", audio);
    } else if (strcasecmp(mime, "application/pdf") == 0 && src == SEAM_MEDIA_BASE64) {
        json_object *file = json_object_new_object();
        json_object_object_add(file, "filename", json_object_new_string("document.pdf"));
        json_object_object_add(file, "file_data", oa_data_url(mime, data));
        json_object_object_add(part, "type", json_object_new_string("file"));
        json_object_object_add(part, "file", file);
    } else {
        json_object_put(part);
        return oa_bad_request(err, "media of type %s cannot be sent on this wire (as given)", mime);
    }
    *out = part;
    return SEAM_OK;
}

static json_object *tool_message(const oa_instance *in, oa_id_map *ids, const seam_part *p)
{
    json_object *m = json_object_new_object();
    json_object_object_add(m, "role", json_object_new_string("tool"));
    json_object_object_add(m, "tool_call_id",
                           json_object_new_string(oa_wire_id(ids, seam_part_tool_call_id(p))));
    if ((in->profile->flags & PF_TOOL_NAME) && seam_part_tool_name(p))
        json_object_object_add(m, "name", json_object_new_string(seam_part_tool_name(p)));
    json_object_object_add(m, "content", oa_tool_result_content(seam_part_result_json(p)));
    return m;
}

static int encode_user(const oa_instance *in, oa_id_map *ids, const seam_message *msg,
                       json_object *messages, seam_error *err)
{
    json_object *parts = json_object_new_array();
    size_t n_text = 0, n_other = 0;
    const char *only_text = NULL;
    for (size_t i = 0; i < seam_message_part_count(msg); i++) {
        const seam_part *p = seam_message_part(msg, i);
        switch (seam_part_get_type(p)) {
        case SEAM_PART_TEXT: {
            json_object *t = json_object_new_object();
            json_object_object_add(t, "type", json_object_new_string("text"));
            json_object_object_add(t, "text", json_object_new_string(seam_part_text(p) ? seam_part_text(p) : ""));
            json_object_array_add(parts, t);
            only_text = seam_part_text(p);
            n_text++;
            break;
        }
        case SEAM_PART_MEDIA: {
            json_object *mp = NULL;
            int rc = media_part(p, &mp, err);
            if (rc != SEAM_OK) {
                json_object_put(parts);
                return rc;
            }
            json_object_array_add(parts, mp);
            n_other++;
            break;
        }
        case SEAM_PART_TOOL_RESULT:
            /* Tool results must directly follow the assistant's tool calls. */
            json_object_array_add(messages, tool_message(in, ids, p));
            break;
        default: /* reasoning and tool calls do not belong in a user turn here */
            break;
        }
    }
    if (n_text + n_other > 0) {
        json_object *m = json_object_new_object();
        json_object_object_add(m, "role", json_object_new_string("user"));
        if (n_text == 1 && n_other == 0) {
            json_object_object_add(m, "content", json_object_new_string(only_text ? only_text : ""));
            json_object_put(parts);
        } else {
            json_object_object_add(m, "content", parts);
        }
        json_object_array_add(messages, m);
    } else {
        json_object_put(parts);
    }
    return SEAM_OK;
}

static int encode_assistant(oa_id_map *ids, const seam_message *msg, json_object *messages)
{
    strbuf text = {0}, spoken = {0};
    int has_text = 0;
    json_object *calls = json_object_new_array();
    for (size_t i = 0; i < seam_message_part_count(msg); i++) {
        const seam_part *p = seam_message_part(msg, i);
        switch (seam_part_get_type(p)) {
        case SEAM_PART_TEXT:
            if (sb_puts(&text, seam_part_text(p)) != SEAM_OK) {
                sb_free(&text);
                json_object_put(calls);
                return SEAM_ERR_NOMEM;
            }
            has_text = 1;
            break;
        case SEAM_PART_TOOL_CALL: {
            if (seam_part_provider_executed(p))
                break; /* run by the provider: not the client's call to replay */
            const char *args = seam_part_args_json(p);
            json_object *fn = json_object_new_object();
            json_object_object_add(fn, "name", json_object_new_string(seam_part_tool_name(p) ? seam_part_tool_name(p) : ""));
            json_object_object_add(fn, "arguments", json_object_new_string(args && *args ? args : "{}"));
            json_object *call = json_object_new_object();
            json_object_object_add(call, "id", json_object_new_string(oa_wire_id(ids, seam_part_tool_call_id(p))));
            json_object_object_add(call, "type", json_object_new_string("function"));
            json_object_object_add(call, "function", fn);
            json_object_array_add(calls, call);
            break;
        }
        case SEAM_PART_MEDIA:
            /* An audio answer goes back as its transcript: the audio id it
             * had expires within the hour, and OpenAI's audio guide takes the
             * transcript as the assistant's content in its stead. */
            if (seam_part_media_transcript(p) &&
                sb_puts(&spoken, seam_part_media_transcript(p)) != SEAM_OK) {
                sb_free(&text);
                json_object_put(calls);
                return SEAM_ERR_NOMEM;
            }
            break;
        default: /* reasoning is never sent back on this wire */
            break;
        }
    }
    if (!has_text && spoken.len) {
        strbuf t = text;
        text = spoken;
        spoken = t;
        has_text = 1;
    }
    sb_free(&spoken);
    size_t n_calls = json_object_array_length(calls);
    if (!has_text && n_calls == 0) {
        sb_free(&text);
        json_object_put(calls);
        return SEAM_OK; /* nothing this wire can carry (e.g. reasoning only) */
    }
    json_object *m = json_object_new_object();
    json_object_object_add(m, "role", json_object_new_string("assistant"));
    if (has_text)
        json_object_object_add(m, "content", json_object_new_string_len(text.data ? text.data : "", (int)text.len));
    else
        json_object_object_add(m, "content", NULL);
    if (n_calls)
        json_object_object_add(m, "tool_calls", calls);
    else
        json_object_put(calls);
    json_object_array_add(messages, m);
    sb_free(&text);
    return SEAM_OK;
}

static int encode_messages(const oa_instance *in, oa_id_map *ids, const seam_request *req,
                           int reasoning_model, json_object *messages, seam_error *err)
{
    const char *system = seam_request_system(req);
    if (system && *system) {
        json_object *m = json_object_new_object();
        json_object_object_add(m, "role", json_object_new_string(reasoning_model ? "developer" : "system"));
        json_object_object_add(m, "content", json_object_new_string(system));
        json_object_array_add(messages, m);
    }
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        const seam_message *msg = seam_request_message(req, i);
        int rc = SEAM_OK;
        switch (seam_message_role(msg)) {
        case SEAM_ROLE_USER:
            rc = encode_user(in, ids, msg, messages, err);
            break;
        case SEAM_ROLE_ASSISTANT:
            rc = encode_assistant(ids, msg, messages);
            break;
        case SEAM_ROLE_TOOL:
            for (size_t j = 0; j < seam_message_part_count(msg); j++) {
                const seam_part *p = seam_message_part(msg, j);
                if (seam_part_get_type(p) == SEAM_PART_TOOL_RESULT)
                    json_object_array_add(messages, tool_message(in, ids, p));
            }
            break;
        default:
            rc = oa_bad_request(err, "a message has an unknown role");
        }
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}

static int encode_tools(const seam_request *req, json_object *body, seam_error *err)
{
    size_t n = seam_request_tool_count(req);
    if (n == 0)
        return SEAM_OK;
    json_object *tools = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *schema = NULL;
        int rc = oa_tool_parameters(req, i, &schema, err);
        if (rc != SEAM_OK) {
            json_object_put(tools);
            return rc;
        }
        json_object *fn = json_object_new_object();
        json_object_object_add(fn, "name", json_object_new_string(seam_request_tool_name(req, i) ? seam_request_tool_name(req, i) : ""));
        const char *desc = seam_request_tool_description(req, i);
        if (desc && *desc)
            json_object_object_add(fn, "description", json_object_new_string(desc));
        json_object_object_add(fn, "parameters", schema);
        json_object *tool = json_object_new_object();
        json_object_object_add(tool, "type", json_object_new_string("function"));
        json_object_object_add(tool, "function", fn);
        json_object_array_add(tools, tool);
    }
    json_object_object_add(body, "tools", tools);

    const char *named = NULL;
    switch (seam_request_tool_choice(req, &named)) {
    case SEAM_TOOL_CHOICE_NONE:
        json_object_object_add(body, "tool_choice", json_object_new_string("none"));
        break;
    case SEAM_TOOL_CHOICE_REQUIRED:
        json_object_object_add(body, "tool_choice", json_object_new_string("required"));
        break;
    case SEAM_TOOL_CHOICE_NAMED: {
        json_object *fn = json_object_new_object();
        json_object_object_add(fn, "name", json_object_new_string(named ? named : ""));
        json_object *tc = json_object_new_object();
        json_object_object_add(tc, "type", json_object_new_string("function"));
        json_object_object_add(tc, "function", fn);
        json_object_object_add(body, "tool_choice", tc);
        break;
    }
    default:
        json_object_object_add(body, "tool_choice", json_object_new_string("auto"));
    }
    return SEAM_OK;
}

static int encode_response_format(const oa_instance *in, const seam_request *req,
                                  json_object *body, seam_error *err)
{
    const char *name = NULL;
    json_object *schema = NULL;
    int strict = 0;
    int rc = oa_json_format(req, &name, &schema, &strict, err);
    if (rc <= 0)
        return rc;
    json_object *rf = json_object_new_object();
    if (!(in->profile->flags & PF_JSON_SCHEMA) || !schema) {
        json_object_put(schema);
        json_object_object_add(rf, "type", json_object_new_string("json_object"));
    } else {
        json_object *js = json_object_new_object();
        json_object_object_add(js, "name", json_object_new_string(name && *name ? name : "response"));
        json_object_object_add(js, "schema", schema);
        json_object_object_add(js, "strict", json_object_new_boolean(strict ? 1 : 0));
        json_object_object_add(rf, "type", json_object_new_string("json_schema"));
        json_object_object_add(rf, "json_schema", js);
    }
    json_object_object_add(body, "response_format", rf);
    return SEAM_OK;
}

/* A reasoning budget in tokens as an effort level. Three levels (OpenAI,
 * Ollama, Groq's gpt-oss, grok-4.3): below 4096 tokens "low", below 16384
 * "medium", else "high" (so the common 1024..32768 budgets land on all three).
 * Two levels (grok-3-mini): below 8192 "low", else "high". */
static const char *effort_for_budget(int64_t budget, int two_levels)
{
    if (two_levels)
        return budget < 8192 ? "low" : "high";
    if (budget < 4096)
        return "low";
    if (budget < 16384)
        return "medium";
    return "high";
}

/* Mistral's "adjustable" reasoning models, the ones that take reasoning_effort
 * (magistral always reasons and takes nothing). */
static int mistral_adjustable_model(const char *m)
{
    return oa_model_is(m, "mistral-small-latest") || oa_model_is(m, "mistral-small-2603") ||
           oa_model_is(m, "mistral-small-4") || oa_model_is(m, "mistral-medium-3-5");
}

/* OpenAI's reasoning_effort on Chat Completions: "none" when the request has
 * function tools and the model takes them only with "none" (the budget cannot
 * apply then: with any other effort the request is refused); else the budget's
 * level among the model's efforts, below "max" (one source, LaoZhang's notes of
 * 2026-11-04, has gpt-6.1-sol stopping at xhigh on this endpoint: "max" is left
 * to the Responses API). NULL: nothing sent. A model that refuses "none" and has
 * tools does not reach here (oa_encode). */
static const char *openai_effort_of(const oa_model_rules *rules, const seam_request *req)
{
    if (rules->tools_need_none && seam_request_tool_count(req) > 0 && (rules->efforts & EF_NONE))
        return "none";
    int64_t budget = seam_request_reasoning_budget(req);
    if (budget <= 0 || !rules->efforts)
        return NULL;
    return oa_effort_for_budget(rules->efforts, budget, 0);
}

/* The request's reasoning budget on each server's documented wire; where a
 * server or model documents nothing, nothing is sent (an unknown field is
 * refused by several of them). See the header comment. */
static void encode_reasoning(const oa_instance *in, const char *model, const char *openai_effort,
                             int64_t budget, json_object *body)
{
    if (in->profile->reasoning == RW_OPENAI) { /* decided by openai_effort_of() */
        if (openai_effort)
            json_object_object_add(body, "reasoning_effort", json_object_new_string(openai_effort));
        return;
    }
    if (budget <= 0)
        return;
    const char *m = oa_model_base(model);
    const char *effort = NULL;
    switch (in->profile->reasoning) {
    case RW_OPENAI: /* handled above */
        break;
    case RW_GROQ:
        if (oa_model_is(m, "gpt-oss")) { /* reasoning_format is refused here */
            effort = effort_for_budget(budget, 0);
        } else if (oa_model_is(m, "qwen3")) { /* "none" or "default" only */
            effort = "default";
            json_object_object_add(body, "reasoning_format", json_object_new_string("parsed"));
        } else if (oa_model_is(m, "qwq") || oa_model_is(m, "deepseek-r1-distill-llama") ||
                   oa_model_is(m, "deepseek-r1-distill-qwen")) {
            json_object_object_add(body, "reasoning_format", json_object_new_string("parsed"));
        }
        break;
    case RW_MISTRAL:
        if (mistral_adjustable_model(m)) /* "none" or "high" only */
            effort = "high";
        break;
    case RW_XAI:
        if (oa_model_is(m, "grok-3-mini"))
            effort = effort_for_budget(budget, 1);
        else if (oa_model_is(m, "grok-4.3"))
            effort = effort_for_budget(budget, 0);
        break;
    case RW_OPENROUTER: {
        /* reasoning.effort, not reasoning.max_tokens: @openrouter/sdk 1.3.19's
         * ChatRequestReasoning has effort and summary only. Its effort values
         * run none..max; "max" is left out, as on OpenAI's Chat Completions. */
        json_object *r = json_object_new_object();
        json_object_object_add(r, "effort", json_object_new_string(oa_effort_for_budget(
                                                EF_LOW | EF_MEDIUM | EF_HIGH | EF_XHIGH, budget, 0)));
        json_object_object_add(body, "reasoning", r);
        break;
    }
    case RW_OLLAMA:
        effort = effort_for_budget(budget, 0);
        break;
    case RW_VLLM:
        json_object_object_add(body, "thinking_token_budget", json_object_new_int64(budget));
        break;
    case RW_NONE:
        break;
    }
    if (effort)
        json_object_object_add(body, "reasoning_effort", json_object_new_string(effort));
}

int oa_chat_encode(const oa_instance *in, const seam_request *req, int stream,
                       seam_http_request *out, seam_error *err)
{
    const char *model = seam_request_model(req);
    unsigned f = in->profile->flags;
    oa_model_rules rules;
    oa_model_rules_of(in, model, &rules);
    if (rules.tools_need_none && seam_request_tool_count(req) > 0 && !(rules.efforts & EF_NONE))
        return oa_bad_request(err,
                           "%s takes function tools on Chat Completions only with reasoning_effort "
                           "\"none\", which it refuses: use the Responses API (options.api = "
                           "\"responses\" or \"auto\" for provider %s)",
                           model, in->name);
    const char *openai_effort = openai_effort_of(&rules, req);
    int reasoning_model = rules.reasoning;
    /* No stop sequences for xAI's reasoning models (refused) nor for OpenAI's
     * reasoning families, whatever the effort: the API reference has `stop`
     * "not supported with latest reasoning models o3 and o4-mini", and gpt-5,
     * -mini, -nano, 5.1 and 5.2 answer 400 "Unsupported parameter: 'stop'"
     * even at effort "none". Dropped without a word: a plugin has no warning
     * channel, and the documentation says so (doc/providers.md). */
    int no_stop = ((f & PF_XAI) && xai_reasoning_model(model)) || reasoning_model;
    /* OpenAI's reasoning models refuse the sampling parameters unless the effort
     * is "none"; deepseek-reasoner ignores them (documented as not supported):
     * they are not sent rather than silently dropped there. */
    int no_sampling = (reasoning_model && !(openai_effort && strcmp(openai_effort, "none") == 0)) ||
                      ((f & PF_DEEPSEEK) && oa_model_is(oa_model_base(model), "deepseek-reasoner"));

    json_object *body = json_object_new_object();
    json_object *messages = json_object_new_array();
    if (!body || !messages) {
        json_object_put(body);
        json_object_put(messages);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    }
    json_object_object_add(body, "model", json_object_new_string(model));
    json_object_object_add(body, "messages", messages);
    oa_id_map ids = {0};
    if (f & PF_SHORT_TOOL_IDS)
        oa_id_map_reserve(&ids, req);
    int rc = encode_messages(in, (f & PF_SHORT_TOOL_IDS) ? &ids : NULL, req, reasoning_model,
                             messages, err);
    if (rc == SEAM_OK && ids.nomem)
        rc = seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    free(ids.items);
    if (rc == SEAM_OK)
        rc = encode_tools(req, body, err);
    if (rc == SEAM_OK)
        rc = encode_response_format(in, req, body, err);
    if (rc == SEAM_OK)
        rc = oa_chat_encode_audio(in, req, stream, body, err);
    if (rc != SEAM_OK) {
        json_object_put(body);
        return rc;
    }

    double temperature;
    if (seam_request_temperature(req, &temperature) && !no_sampling && isfinite(temperature))
        json_object_object_add(body, "temperature", json_double(temperature));
    int64_t max_tokens = seam_request_max_tokens(req);
    if (max_tokens > 0) {
        int param = in->max_tokens_param;
        if (param == MAXTOK_AUTO)
            param = reasoning_model ? MAXTOK_MAX_COMPLETION_TOKENS : MAXTOK_MAX_TOKENS;
        json_object_object_add(body,
                               param == MAXTOK_MAX_COMPLETION_TOKENS ? "max_completion_tokens" : "max_tokens",
                               json_object_new_int64(max_tokens));
    }
    size_t n_stop = seam_request_stop_count(req);
    if (n_stop > 0 && !no_stop) {
        json_object *stops = json_object_new_array();
        for (size_t i = 0; stops && i < n_stop; i++)
            json_object_array_add(stops, json_object_new_string(seam_request_stop(req, i)));
        json_object_object_add(body, "stop", stops);
    }
    encode_reasoning(in, model, openai_effort, seam_request_reasoning_budget(req), body);
    if (stream) {
        json_object_object_add(body, "stream", json_object_new_boolean(1));
        int usage = in->stream_usage >= 0 ? in->stream_usage : (f & PF_STREAM_USAGE) != 0;
        if (usage) {
            json_object *so = json_object_new_object();
            if (so) /* json-c asserts on a NULL object; the core sees errno */
                json_object_object_add(so, "include_usage", json_object_new_boolean(1));
            json_object_object_add(body, "stream_options", so);
        }
    }
    rc = oa_finish_request(in, req, body, "/chat/completions", stream, out, err);
    json_object_put(body);
    return rc;
}
