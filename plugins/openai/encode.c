/* encode.c — the openai plugin's Chat Completions encoder: seam request ->
 * `POST {base_url}/chat/completions` JSON body (messages, tools, tool_choice,
 * response_format, sampling, max tokens, stop, the reasoning budget, stream
 * options), with each profile's quirks (the profiles: options.c; Mistral's
 * tool call ids: mistral_ids.c). The body is written as JSON text member by
 * member (body.c): json-c builds only the tools, the response format and the
 * reasoning object, whose schemas it parses anyway.
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

#include <inttypes.h>
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

/* "data:<mime>;base64,<b64>" as a JSON string (as oa_data_url makes it). */
static int data_url(strbuf *b, const char *mime, const char *b64)
{
    strbuf u = {0};
    int rc = SEAM_ERR_NOMEM;
    if (!sb_puts(&u, "data:") && !sb_puts(&u, mime) && !sb_puts(&u, ";base64,") && !sb_puts(&u, b64))
        rc = oa_json_string_n(b, u.data, u.len);
    sb_free(&u);
    return rc;
}

/* One media part of a user message as a Chat Completions content part. */
static int media_part(const seam_part *p, strbuf *b, seam_error *err)
{
    const char *mime = seam_part_mime_type(p);
    const char *data = seam_part_media_data(p);
    seam_media_source src = seam_part_media_source(p);
    if (!mime || !data)
        return oa_bad_request(err, "a media part lacks its type or data");
    if (strncasecmp(mime, "image/", 6) == 0) {
        sb_puts(b, "{\"type\":\"image_url\",\"image_url\":{\"url\":");
        if (src == SEAM_MEDIA_URL) {
            oa_json_string(b, data);
        } else {
            data_url(b, mime, data);
        }
        return sb_puts(b, "}}");
    }
    if (strncasecmp(mime, "audio/", 6) == 0 && src == SEAM_MEDIA_BASE64) {
        const char *fmt = NULL;
        if (contains_ci(mime, "wav"))
            fmt = "wav";
        else if (contains_ci(mime, "mpeg") || contains_ci(mime, "mp3"))
            fmt = "mp3";
        if (!fmt)
            return oa_bad_request(err, "audio type %s is not supported (wav or mp3 only)", mime);
        sb_puts(b, "{\"type\":\"input_audio\",\"input_audio\":{");
        oa_json_member(b, 1, "data", data);
        oa_json_member(b, 0, "format", fmt);
        return sb_puts(b, "}}");
    }
    if (strcasecmp(mime, "application/pdf") == 0 && src == SEAM_MEDIA_BASE64) {
        sb_puts(b, "{\"type\":\"file\",\"file\":{\"filename\":\"document.pdf\",\"file_data\":");
        data_url(b, mime, data);
        return sb_puts(b, "}}");
    }
    return oa_bad_request(err, "media of type %s cannot be sent on this wire (as given)", mime);
}

/* A tool result's message: role tool, the call's id, (the tool's name,) the
 * result as oa_tool_result_content carries it. */
static int tool_message(const oa_instance *in, oa_id_map *ids, const seam_part *p, strbuf *b, int *first)
{
    if (!*first)
        sb_puts(b, ",");
    *first = 0;
    sb_puts(b, "{\"role\":\"tool\"");
    oa_json_member(b, 0, "tool_call_id", oa_wire_id(ids, seam_part_tool_call_id(p)));
    if ((in->profile->flags & PF_TOOL_NAME) && seam_part_tool_name(p))
        oa_json_member(b, 0, "name", seam_part_tool_name(p));
    oa_json_member(b, 0, "content", NULL);
    const char *result = seam_part_result_json(p);
    json_object *v = result ? json_parse_strict(result, strlen(result)) : NULL;
    /* A JSON string goes as its text, anything else as its JSON text. */
    oa_json_string(b, !result ? "" : json_object_is_type(v, json_type_string) ? json_object_get_string(v) : result);
    json_object_put(v);
    return sb_puts(b, "}");
}

static int encode_user(const oa_instance *in, oa_id_map *ids, const seam_message *msg, strbuf *b,
                       int *first, seam_error *err)
{
    size_t n_text = 0, n_other = 0;
    const char *only_text = NULL;
    strbuf parts = {0}; /* the content parts, in case there is more than one text */
    for (size_t i = 0; i < seam_message_part_count(msg); i++) {
        const seam_part *p = seam_message_part(msg, i);
        switch (seam_part_get_type(p)) {
        case SEAM_PART_TEXT: {
            const char *text = seam_part_text(p) ? seam_part_text(p) : "";
            sb_puts(&parts, n_text + n_other ? ",{\"type\":\"text\"" : "{\"type\":\"text\"");
            oa_json_member(&parts, 0, "text", text);
            sb_puts(&parts, "}");
            only_text = seam_part_text(p);
            n_text++;
            break;
        }
        case SEAM_PART_MEDIA: {
            if (n_text + n_other)
                sb_puts(&parts, ",");
            int rc = media_part(p, &parts, err);
            if (rc != SEAM_OK) {
                sb_free(&parts);
                return rc;
            }
            n_other++;
            break;
        }
        case SEAM_PART_TOOL_RESULT:
            /* Tool results must directly follow the assistant's tool calls. */
            tool_message(in, ids, p, b, first);
            break;
        default: /* reasoning and tool calls do not belong in a user turn here */
            break;
        }
    }
    if (n_text + n_other > 0) {
        if (!*first)
            sb_puts(b, ",");
        *first = 0;
        sb_puts(b, "{\"role\":\"user\",\"content\":");
        if (n_text == 1 && n_other == 0) {
            oa_json_string(b, only_text ? only_text : "");
        } else {
            sb_puts(b, "[");
            if (parts.failed)
                b->failed = 1;
            else
                sb_append(b, parts.data, parts.len);
            sb_puts(b, "]");
        }
        sb_puts(b, "}");
    }
    int rc = parts.failed ? SEAM_ERR_NOMEM : SEAM_OK;
    sb_free(&parts);
    return rc;
}

static int encode_assistant(oa_id_map *ids, const seam_message *msg, strbuf *b, int *first)
{
    strbuf text = {0}, calls = {0}, spoken = {0};
    int has_text = 0;
    size_t n_calls = 0;
    for (size_t i = 0; i < seam_message_part_count(msg); i++) {
        const seam_part *p = seam_message_part(msg, i);
        switch (seam_part_get_type(p)) {
        case SEAM_PART_TEXT:
            sb_puts(&text, seam_part_text(p));
            has_text = 1;
            break;
        case SEAM_PART_TOOL_CALL: {
            if (seam_part_provider_executed(p))
                break; /* run by the provider: not the client's call to replay */
            const char *args = seam_part_args_json(p);
            sb_puts(&calls, n_calls ? ",{" : "{");
            oa_json_member(&calls, 1, "id", oa_wire_id(ids, seam_part_tool_call_id(p)));
            sb_puts(&calls, ",\"type\":\"function\",\"function\":{");
            oa_json_member(&calls, 1, "name", seam_part_tool_name(p) ? seam_part_tool_name(p) : "");
            oa_json_member(&calls, 0, "arguments", args && *args ? args : "{}");
            sb_puts(&calls, "}}");
            n_calls++;
            break;
        }
        case SEAM_PART_MEDIA:
            /* An audio answer goes back as its transcript: the audio id it
             * had expires within the hour, and OpenAI's audio guide takes the
             * transcript as the assistant's content in its stead. */
            if (seam_part_media_transcript(p))
                sb_puts(&spoken, seam_part_media_transcript(p)); /* failure: spoken.failed */
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
    int rc = text.failed || calls.failed || spoken.failed ? SEAM_ERR_NOMEM : SEAM_OK;
    sb_free(&spoken);
    if (rc == SEAM_OK && (has_text || n_calls)) {
        if (!*first)
            sb_puts(b, ",");
        *first = 0;
        sb_puts(b, "{\"role\":\"assistant\",\"content\":");
        if (has_text)
            oa_json_string_n(b, text.data ? text.data : "", text.len);
        else
            sb_puts(b, "null");
        if (n_calls) {
            sb_puts(b, ",\"tool_calls\":[");
            sb_append(b, calls.data, calls.len);
            sb_puts(b, "]");
        }
        sb_puts(b, "}");
    }
    sb_free(&text);
    sb_free(&calls);
    return rc;
}

static int encode_messages(const oa_instance *in, oa_id_map *ids, const seam_request *req,
                           int reasoning_model, strbuf *b, seam_error *err)
{
    int first = 1;
    sb_puts(b, "[");
    const char *system = seam_request_system(req);
    if (system && *system) {
        sb_puts(b, reasoning_model ? "{\"role\":\"developer\"" : "{\"role\":\"system\"");
        oa_json_member(b, 0, "content", system);
        sb_puts(b, "}");
        first = 0;
    }
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        const seam_message *msg = seam_request_message(req, i);
        int rc = SEAM_OK;
        switch (seam_message_role(msg)) {
        case SEAM_ROLE_USER:
            rc = encode_user(in, ids, msg, b, &first, err);
            break;
        case SEAM_ROLE_ASSISTANT:
            rc = encode_assistant(ids, msg, b, &first);
            break;
        case SEAM_ROLE_TOOL:
            for (size_t j = 0; j < seam_message_part_count(msg); j++) {
                const seam_part *p = seam_message_part(msg, j);
                if (seam_part_get_type(p) == SEAM_PART_TOOL_RESULT)
                    tool_message(in, ids, p, b, &first);
            }
            break;
        default:
            rc = oa_bad_request(err, "a message has an unknown role");
        }
        if (rc != SEAM_OK)
            return rc;
    }
    sb_puts(b, "]");
    return b->failed ? SEAM_ERR_NOMEM : SEAM_OK;
}

/* A json-c value (taken) as a member's JSON text. */
static int add_json(oa_body *body, const char *key, json_object *v)
{
    const char *text = v ? json_text(v) : "null";
    int rc = text ? oa_body_add(body, key, text) : SEAM_ERR_NOMEM;
    json_object_put(v);
    return rc;
}

static int encode_tools(const seam_request *req, oa_body *body, seam_error *err)
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
    add_json(body, "tools", tools);

    const char *named = NULL;
    switch (seam_request_tool_choice(req, &named)) {
    case SEAM_TOOL_CHOICE_NONE:
        oa_body_add_string(body, "tool_choice", "none");
        break;
    case SEAM_TOOL_CHOICE_REQUIRED:
        oa_body_add_string(body, "tool_choice", "required");
        break;
    case SEAM_TOOL_CHOICE_NAMED: {
        json_object *fn = json_object_new_object();
        json_object_object_add(fn, "name", json_object_new_string(named ? named : ""));
        json_object *tc = json_object_new_object();
        json_object_object_add(tc, "type", json_object_new_string("function"));
        json_object_object_add(tc, "function", fn);
        add_json(body, "tool_choice", tc);
        break;
    }
    default:
        oa_body_add_string(body, "tool_choice", "auto");
    }
    return SEAM_OK;
}

static int encode_response_format(const oa_instance *in, const seam_request *req,
                                  oa_body *body, seam_error *err)
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
    add_json(body, "response_format", rf);
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
                             int64_t budget, oa_body *body)
{
    if (in->profile->reasoning == RW_OPENAI) { /* decided by openai_effort_of() */
        if (openai_effort)
            oa_body_add_string(body, "reasoning_effort", openai_effort);
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
            oa_body_add_string(body, "reasoning_format", "parsed");
        } else if (oa_model_is(m, "qwq") || oa_model_is(m, "deepseek-r1-distill-llama") ||
                   oa_model_is(m, "deepseek-r1-distill-qwen")) {
            oa_body_add_string(body, "reasoning_format", "parsed");
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
        add_json(body, "reasoning", r);
        break;
    }
    case RW_OLLAMA:
        effort = effort_for_budget(budget, 0);
        break;
    case RW_VLLM:
        add_json(body, "thinking_token_budget", json_object_new_int64(budget));
        break;
    case RW_NONE:
        break;
    }
    if (effort)
        oa_body_add_string(body, "reasoning_effort", effort);
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

    oa_body body = {0};
    oa_body_add_string(&body, "model", model);
    oa_id_map ids = {0};
    if (f & PF_SHORT_TOOL_IDS)
        oa_id_map_reserve(&ids, req);
    int rc = encode_messages(in, (f & PF_SHORT_TOOL_IDS) ? &ids : NULL, req, reasoning_model,
                             oa_body_begin(&body, "messages"), err);
    oa_body_end(&body);
    if (rc == SEAM_OK && ids.nomem)
        rc = SEAM_ERR_NOMEM;
    free(ids.items);
    if (rc == SEAM_OK)
        rc = encode_tools(req, &body, err);
    if (rc == SEAM_OK)
        rc = encode_response_format(in, req, &body, err);
    if (rc == SEAM_OK)
        rc = oa_chat_encode_audio(in, req, stream, &body, err);
    if (rc != SEAM_OK) {
        oa_body_free(&body);
        if (rc == SEAM_ERR_NOMEM && err && err->kind == SEAM_ERROR_NONE)
            seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
        return rc;
    }

    char num[64];
    double temperature;
    if (seam_request_temperature(req, &temperature) && !no_sampling && isfinite(temperature)) {
        /* as json_double() prints it, whatever the locale's decimal mark */
        snprintf(num, sizeof num, "%.15g", temperature);
        for (char *p = num; *p; p++)
            if (*p == ',')
                *p = '.';
        oa_body_add(&body, "temperature", num);
    }
    int64_t max_tokens = seam_request_max_tokens(req);
    if (max_tokens > 0) {
        int param = in->max_tokens_param;
        if (param == MAXTOK_AUTO)
            param = reasoning_model ? MAXTOK_MAX_COMPLETION_TOKENS : MAXTOK_MAX_TOKENS;
        snprintf(num, sizeof num, "%" PRId64, max_tokens);
        oa_body_add(&body, param == MAXTOK_MAX_COMPLETION_TOKENS ? "max_completion_tokens" : "max_tokens", num);
    }
    size_t n_stop = seam_request_stop_count(req);
    if (n_stop > 0 && !no_stop) {
        strbuf *b = oa_body_begin(&body, "stop");
        sb_puts(b, "[");
        for (size_t i = 0; i < n_stop; i++) {
            if (i)
                sb_puts(b, ",");
            oa_json_string(b, seam_request_stop(req, i));
        }
        sb_puts(b, "]");
        oa_body_end(&body);
    }
    encode_reasoning(in, model, openai_effort, seam_request_reasoning_budget(req), &body);
    if (stream) {
        oa_body_add(&body, "stream", "true");
        int usage = in->stream_usage >= 0 ? in->stream_usage : (f & PF_STREAM_USAGE) != 0;
        if (usage)
            oa_body_add(&body, "stream_options", "{\"include_usage\":true}");
    }
    rc = oa_finish_body(in, req, &body, "/chat/completions", stream, out, err);
    oa_body_free(&body);
    return rc;
}
