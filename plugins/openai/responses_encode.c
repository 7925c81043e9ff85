/* responses_encode.c — the openai plugin's encoder for OpenAI's Responses API
 * (`POST {base_url}/responses`): seam request -> Responses body
 * (instructions, input items, tools, tool_choice, text.format,
 * max_output_tokens, reasoning, store/include). The decoder is
 * responses_decode.c. plugin.c sends a request here when options.api is
 * "responses", or when it is "auto" (the default) and the request has function
 * tools for an OpenAI model that takes them on Chat Completions only with
 * reasoning_effort "none" and refuses "none" (gpt-6-astra, gpt-6.1-sol,
 * gpt-6.2-*; see models.c).
 *
 * Wire shapes, from OpenAI's API reference (Responses: create, the input item
 * and output item objects, "Streaming events") and its reasoning and function
 * calling guides:
 *   - the system prompt is `instructions`; the conversation is `input`, a list
 *     of items: messages ({type:"message", role, content}; user content parts
 *     input_text / input_image / input_file), function_call items
 *     ({call_id, name, arguments}), function_call_output items ({call_id,
 *     output}) and reasoning items ({summary, encrypted_content}).
 *   - Stateless: every request is sent with store:false, and for reasoning
 *     models include:["reasoning.encrypted_content"], so each reasoning item
 *     comes back with its encrypted content, which seam keeps, with the
 *     item's id, as the reasoning part's signature (tagged "openai:", see
 *     OA_SIGNATURE_TAG) and sends back in the next turn's input as {type:
 *     "reasoning", id, summary, encrypted_content}: the API reference's input
 *     ReasoningItem requires id (and summary). Messages and function calls
 *     are replayed without their server ids (optional there): with store:false
 *     the server has nothing to look an id up in, and encrypted content carries
 *     what the model needs. Reasoning from another provider, without a
 *     signature, or signed without an id (a signature from an older seam) is
 *     not sent: an item the spec calls invalid is left out rather than sent.
 *   - function tools are {type:"function", name, description, parameters,
 *     strict:false}: the Responses API makes functions strict by default,
 *     which only a schema written for it satisfies.
 *   - the Responses API has no stop sequences: a request's stop strings are not
 *     sent (as xAI's reasoning models on Chat Completions).
 *   - reasoning models: reasoning:{effort, summary}: effort from the budget on
 *     the ladder of oa_effort_for_budget() including "max", summary from
 *     options.reasoning_summary ("auto" by default; "none" sends none — OpenAI
 *     may require a verified organization for summaries). No temperature.
 *     Other profiles' models get reasoning.effort low/medium/high from a budget.
 *   - structured output: text.format {type:"json_schema", name, schema,
 *     strict}, or {type:"json_object"} for any JSON object. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* ==== encode ================================================================= */

/* One media part of a user message as a Responses content part. */
static int rs_media_part(const seam_part *p, json_object **out, seam_error *err)
{
    const char *mime = seam_part_mime_type(p);
    const char *data = seam_part_media_data(p);
    seam_media_source src = seam_part_media_source(p);
    if (!mime || !data)
        return oa_bad_request(err, "a media part lacks its type or data");
    json_object *part = json_object_new_object();
    if (strncasecmp(mime, "image/", 6) == 0) {
        json_object_object_add(part, "type", json_object_new_string("input_image"));
        json_object_object_add(part, "image_url", src == SEAM_MEDIA_URL ? json_object_new_string(data)
                                                                        : oa_data_url(mime, data));
        json_object_object_add(part, "detail", json_object_new_string("auto"));
    } else if (strcasecmp(mime, "application/pdf") == 0 && src == SEAM_MEDIA_BASE64) {
        json_object_object_add(part, "type", json_object_new_string("input_file"));
        json_object_object_add(part, "filename", json_object_new_string("document.pdf"));
        json_object_object_add(part, "file_data", oa_data_url(mime, data));
    } else {
        json_object_put(part);
        return oa_bad_request(err, "media of type %s cannot be sent to the Responses API (as given)",
                           mime);
    }
    *out = part;
    return SEAM_OK;
}

static json_object *rs_call_output(const seam_part *p)
{
    const char *id = seam_part_tool_call_id(p);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_string("function_call_output"));
    json_object_object_add(o, "call_id", json_object_new_string(id ? id : ""));
    json_object_object_add(o, "output", oa_tool_result_content(seam_part_result_json(p)));
    return o;
}

static int rs_encode_user(const seam_message *msg, json_object *input, seam_error *err)
{
    json_object *content = json_object_new_array();
    for (size_t i = 0; i < seam_message_part_count(msg); i++) {
        const seam_part *p = seam_message_part(msg, i);
        switch (seam_part_get_type(p)) {
        case SEAM_PART_TEXT: {
            json_object *t = json_object_new_object();
            json_object_object_add(t, "type", json_object_new_string("input_text"));
            json_object_object_add(t, "text", json_object_new_string(seam_part_text(p) ? seam_part_text(p) : ""));
            json_object_array_add(content, t);
            break;
        }
        case SEAM_PART_MEDIA: {
            json_object *mp = NULL;
            int rc = rs_media_part(p, &mp, err);
            if (rc != SEAM_OK) {
                json_object_put(content);
                return rc;
            }
            json_object_array_add(content, mp);
            break;
        }
        case SEAM_PART_TOOL_RESULT:
            /* Results answer the calls before them: they go first, as on Chat Completions. */
            json_object_array_add(input, rs_call_output(p));
            break;
        default: /* reasoning and tool calls do not belong in a user turn */
            break;
        }
    }
    if (json_object_array_length(content) == 0) {
        json_object_put(content);
        return SEAM_OK;
    }
    json_object *m = json_object_new_object();
    json_object_object_add(m, "type", json_object_new_string("message"));
    json_object_object_add(m, "role", json_object_new_string("user"));
    json_object_object_add(m, "content", content);
    json_object_array_add(input, m);
    return SEAM_OK;
}

/* Pending assistant text becomes one message item. */
static int rs_flush_text(strbuf *text, int *has_text, json_object *input)
{
    if (!*has_text)
        return SEAM_OK;
    json_object *m = json_object_new_object();
    json_object_object_add(m, "type", json_object_new_string("message"));
    json_object_object_add(m, "role", json_object_new_string("assistant"));
    json_object_object_add(m, "content", json_object_new_string_len(text->data ? text->data : "", (int)text->len));
    json_object_array_add(input, m);
    text->len = 0;
    if (text->data)
        text->data[0] = '\0';
    *has_text = 0;
    return SEAM_OK;
}

/* A reasoning part this codec handed out, as the reasoning item to replay;
 * NULL for any other reasoning (another provider's, or unsigned), and for a
 * signature without the item's id (one from before ids were kept): the spec's
 * ReasoningItem requires an id, and an item without one is not sent rather
 * than sent invalid. */
static json_object *rs_reasoning_item(const seam_part *p)
{
    const char *sig = seam_part_signature(p);
    size_t tag = strlen(OA_SIGNATURE_TAG);
    if (!sig || strncmp(sig, OA_SIGNATURE_TAG, tag) != 0 || !sig[tag] || seam_part_redacted(p))
        return NULL;
    const char *colon = strchr(sig + tag, ':');
    if (!colon || colon == sig + tag || !colon[1])
        return NULL;
    json_object *summary = json_object_new_array();
    const char *text = seam_part_text(p);
    if (text && *text) {
        json_object *s = json_object_new_object();
        json_object_object_add(s, "type", json_object_new_string("summary_text"));
        json_object_object_add(s, "text", json_object_new_string(text));
        json_object_array_add(summary, s);
    }
    json_object *r = json_object_new_object();
    json_object_object_add(r, "type", json_object_new_string("reasoning"));
    json_object_object_add(r, "id", json_object_new_string_len(sig + tag, (int)(colon - sig - tag)));
    json_object_object_add(r, "summary", summary);
    json_object_object_add(r, "encrypted_content", json_object_new_string(colon + 1));
    return r;
}

static int rs_encode_assistant(const seam_message *msg, json_object *input)
{
    strbuf text = {0};
    int has_text = 0, rc = SEAM_OK;
    for (size_t i = 0; i < seam_message_part_count(msg) && rc == SEAM_OK; i++) {
        const seam_part *p = seam_message_part(msg, i);
        switch (seam_part_get_type(p)) {
        case SEAM_PART_TEXT:
            rc = sb_puts(&text, seam_part_text(p));
            has_text = 1;
            break;
        case SEAM_PART_REASONING: {
            json_object *r = rs_reasoning_item(p);
            if (r) {
                rc = rs_flush_text(&text, &has_text, input);
                json_object_array_add(input, r);
            }
            break;
        }
        case SEAM_PART_TOOL_CALL: {
            if (seam_part_provider_executed(p))
                break; /* run by the provider: not the client's call to replay */
            rc = rs_flush_text(&text, &has_text, input);
            const char *args = seam_part_args_json(p);
            const char *id = seam_part_tool_call_id(p);
            const char *name = seam_part_tool_name(p);
            json_object *c = json_object_new_object();
            json_object_object_add(c, "type", json_object_new_string("function_call"));
            json_object_object_add(c, "call_id", json_object_new_string(id ? id : ""));
            json_object_object_add(c, "name", json_object_new_string(name ? name : ""));
            json_object_object_add(c, "arguments", json_object_new_string(args && *args ? args : "{}"));
            json_object_array_add(input, c);
            break;
        }
        default: /* provider-executed results and media output are not replayed */
            break;
        }
    }
    if (rc == SEAM_OK)
        rc = rs_flush_text(&text, &has_text, input);
    sb_free(&text);
    return rc;
}

static int rs_encode_input(const seam_request *req, json_object *input, seam_error *err)
{
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        const seam_message *msg = seam_request_message(req, i);
        int rc = SEAM_OK;
        switch (seam_message_role(msg)) {
        case SEAM_ROLE_USER:
            rc = rs_encode_user(msg, input, err);
            break;
        case SEAM_ROLE_ASSISTANT:
            rc = rs_encode_assistant(msg, input);
            if (rc != SEAM_OK)
                rc = oa_nomem(err);
            break;
        case SEAM_ROLE_TOOL:
            for (size_t j = 0; j < seam_message_part_count(msg); j++) {
                const seam_part *p = seam_message_part(msg, j);
                if (seam_part_get_type(p) == SEAM_PART_TOOL_RESULT)
                    json_object_array_add(input, rs_call_output(p));
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

static int rs_encode_tools(const seam_request *req, json_object *body, seam_error *err)
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
        const char *name = seam_request_tool_name(req, i);
        const char *desc = seam_request_tool_description(req, i);
        json_object *t = json_object_new_object();
        json_object_object_add(t, "type", json_object_new_string("function"));
        json_object_object_add(t, "name", json_object_new_string(name ? name : ""));
        if (desc && *desc)
            json_object_object_add(t, "description", json_object_new_string(desc));
        json_object_object_add(t, "parameters", schema);
        json_object_object_add(t, "strict", json_object_new_boolean(0));
        json_object_array_add(tools, t);
    }
    json_object_object_add(body, "tools", tools);
    const char *named = NULL;
    json_object *choice;
    switch (seam_request_tool_choice(req, &named)) {
    case SEAM_TOOL_CHOICE_NONE:
        choice = json_object_new_string("none");
        break;
    case SEAM_TOOL_CHOICE_REQUIRED:
        choice = json_object_new_string("required");
        break;
    case SEAM_TOOL_CHOICE_NAMED:
        choice = json_object_new_object();
        json_object_object_add(choice, "type", json_object_new_string("function"));
        json_object_object_add(choice, "name", json_object_new_string(named ? named : ""));
        break;
    default:
        choice = json_object_new_string("auto");
    }
    json_object_object_add(body, "tool_choice", choice);
    return SEAM_OK;
}

static int rs_encode_format(const seam_request *req, json_object *body, seam_error *err)
{
    const char *name = NULL;
    json_object *schema = NULL;
    int strict = 0;
    int rc = oa_json_format(req, &name, &schema, &strict, err);
    if (rc <= 0)
        return rc;
    json_object *format = json_object_new_object();
    if (!schema) {
        json_object_object_add(format, "type", json_object_new_string("json_object"));
    } else {
        json_object_object_add(format, "type", json_object_new_string("json_schema"));
        json_object_object_add(format, "name", json_object_new_string(name && *name ? name : "response"));
        json_object_object_add(format, "schema", schema);
        json_object_object_add(format, "strict", json_object_new_boolean(strict ? 1 : 0));
    }
    json_object *text = json_object_new_object();
    json_object_object_add(text, "format", format);
    json_object_object_add(body, "text", text);
    return SEAM_OK;
}

/* reasoning / include / temperature: see the header comment. */
static void rs_encode_reasoning(const oa_instance *in, const seam_request *req, json_object *body)
{
    oa_model_rules rules;
    oa_model_rules_of(in, seam_request_model(req), &rules);
    int64_t budget = seam_request_reasoning_budget(req);
    double temperature;
    int has_temperature = seam_request_temperature(req, &temperature) && isfinite(temperature);
    if (rules.reasoning) {
        if (!rules.efforts)
            return; /* a gpt-5.x "-chat" model: reasoning parameters, no effort */
        json_object *r = json_object_new_object();
        const char *effort = budget > 0 ? oa_effort_for_budget(rules.efforts, budget, 1) : NULL;
        if (effort)
            json_object_object_add(r, "effort", json_object_new_string(effort));
        if (in->reasoning_summary)
            json_object_object_add(r, "summary", json_object_new_string(in->reasoning_summary));
        if (json_object_object_length(r) > 0)
            json_object_object_add(body, "reasoning", r);
        else
            json_object_put(r);
        json_object *include = json_object_new_array();
        json_object_array_add(include, json_object_new_string("reasoning.encrypted_content"));
        json_object_object_add(body, "include", include);
        return;
    }
    if (has_temperature)
        json_object_object_add(body, "temperature", json_double(temperature));
    if (budget > 0 && !in->openai_rules) {
        json_object *r = json_object_new_object();
        json_object_object_add(r, "effort",
                               json_object_new_string(oa_effort_for_budget(EF_LOW | EF_MEDIUM | EF_HIGH,
                                                                           budget, 0)));
        json_object_object_add(body, "reasoning", r);
    }
}

int oa_resp_encode(const oa_instance *in, const seam_request *req, int stream,
                   seam_http_request *out, seam_error *err)
{
    const char *model = seam_request_model(req);
    /* The Responses API answers in text: audio output is Chat Completions'
     * (audio.c), images are a tool there, not a modality. Refused rather
     * than answered without the media asked for. */
    if (seam_request_output_modalities(req) & ~(uint32_t)SEAM_MODALITY_TEXT)
        return oa_bad_request(err, "the Responses API answers in text only: audio output needs "
                                   "Chat Completions (options.api = \"chat\" or \"auto\" for "
                                   "provider %s)", in->name);
    json_object *body = json_object_new_object();
    json_object *input = json_object_new_array();
    if (!body || !input) {
        json_object_put(body);
        json_object_put(input);
        return oa_nomem(err);
    }
    json_object_object_add(body, "model", json_object_new_string(model ? model : ""));
    const char *system = seam_request_system(req);
    if (system && *system)
        json_object_object_add(body, "instructions", json_object_new_string(system));
    json_object_object_add(body, "input", input);
    int rc = rs_encode_input(req, input, err);
    if (rc == SEAM_OK)
        rc = rs_encode_tools(req, body, err);
    if (rc == SEAM_OK)
        rc = rs_encode_format(req, body, err);
    if (rc != SEAM_OK) {
        json_object_put(body);
        return rc;
    }
    int64_t max_tokens = seam_request_max_tokens(req);
    if (max_tokens > 0)
        json_object_object_add(body, "max_output_tokens", json_object_new_int64(max_tokens));
    rs_encode_reasoning(in, req, body);
    json_object_object_add(body, "store", json_object_new_boolean(0));
    if (stream)
        json_object_object_add(body, "stream", json_object_new_boolean(1));
    rc = oa_finish_request(in, req, body, "/responses", stream, out, err);
    json_object_put(body);
    return rc;
}
