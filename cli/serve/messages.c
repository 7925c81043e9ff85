/* messages.c — the Anthropic Messages door: POST /v1/messages turned into a
 * seam request (system as text or blocks, text, image, tool_use, tool_result,
 * thinking and redacted_thinking blocks, tools, tool_choice, thinking budget,
 * stop_sequences), and a finished seam result written back as a `message`
 * object. The streamed form is written by sse.c. */
#include "config.h"

#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#define BAD(...) do { serve_err_set(e, 400, SEAM_ERROR_BAD_REQUEST, "invalid_request_error", \
                                    __VA_ARGS__); goto fail; } while (0)

static void blocks_text(json_object *content, sbuf *out)
{
    if (json_object_is_type(content, json_type_string)) {
        sb_puts(out, json_object_get_string(content));
        return;
    }
    for (size_t i = 0; json_object_is_type(content, json_type_array) &&
                       i < json_object_array_length(content); i++) {
        const char *t = jstr(json_object_array_get_idx(content, i), "text");
        if (t)
            sb_puts(out, t);
    }
}

static int add_image(seam_message *m, json_object *b)
{
    json_object *src = jget(b, "source");
    const char *type = jstr(src, "type");
    if (type && strcmp(type, "base64") == 0 && jstr(src, "media_type") && jstr(src, "data"))
        return seam_message_add_media(m, jstr(src, "media_type"), SEAM_MEDIA_BASE64,
                                      jstr(src, "data"));
    if (type && strcmp(type, "url") == 0 && jstr(src, "url"))
        return seam_message_add_media(m, door_url_mime(jstr(src, "url")), SEAM_MEDIA_URL,
                                      jstr(src, "url"));
    return SEAM_ERR_INVALID;
}

/* One turn. A user turn's tool_result blocks become a seam tool message placed
 * before the turn's other content, which is how every wire orders them. */
static int add_turn(seam_request *req, const char *role, json_object *content, size_t idx,
                    serve_err *e)
{
    int user = strcmp(role, "user") == 0;
    seam_message *msg = seam_message_new(user ? SEAM_ROLE_USER : SEAM_ROLE_ASSISTANT);
    seam_message *results = NULL;
    if (!msg)
        BAD("out of memory");
    if (json_object_is_type(content, json_type_string)) {
        if (seam_message_add_text(msg, json_object_get_string(content)) != SEAM_OK)
            BAD("messages[%zu] could not be read", idx);
    } else if (json_object_is_type(content, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(content); i++) {
            json_object *b = json_object_array_get_idx(content, i);
            const char *type = jstr(b, "type");
            int rc = SEAM_ERR_INVALID;
            if (!type)
                BAD("messages[%zu].content[%zu].type is required", idx, i);
            if (strcmp(type, "text") == 0 && jstr(b, "text")) {
                rc = seam_message_add_text(msg, jstr(b, "text"));
            } else if (strcmp(type, "image") == 0 || strcmp(type, "document") == 0) {
                rc = add_image(msg, b);
            } else if (strcmp(type, "tool_use") == 0 && !user) {
                json_object *input = jget(b, "input");
                rc = seam_message_add_tool_call(
                    msg, jstr(b, "id"), jstr(b, "name"),
                    input ? json_object_to_json_string_ext(input, JSON_C_TO_STRING_PLAIN) : "{}");
            } else if (strcmp(type, "tool_result") == 0 && user) {
                if (!results && !(results = seam_message_new(SEAM_ROLE_TOOL)))
                    BAD("out of memory");
                sbuf t = { 0 };
                blocks_text(jget(b, "content"), &t);
                char *rj = door_result_json(t.p ? t.p : "");
                sb_free(&t);
                rc = rj ? seam_message_add_tool_result(
                              results, jstr(b, "tool_use_id"), NULL, rj,
                              json_object_get_boolean(jget(b, "is_error")))
                        : SEAM_ERR_NOMEM;
                free(rj);
            } else if (strcmp(type, "thinking") == 0 && !user) {
                rc = seam_message_add_reasoning(msg, jstr(b, "thinking") ? jstr(b, "thinking") : "",
                                                jstr(b, "signature"), 0);
            } else if (strcmp(type, "redacted_thinking") == 0 && !user && jstr(b, "data")) {
                rc = seam_message_add_reasoning(msg, jstr(b, "data"), NULL, 1);
            } else {
                BAD("messages[%zu].content[%zu]: block type '%.64s' is not supported here",
                    idx, i, type);
            }
            if (rc != SEAM_OK)
                BAD("messages[%zu].content[%zu] (%.64s) is missing a field", idx, i, type);
        }
    } else {
        BAD("messages[%zu].content must be a string or an array of blocks", idx);
    }
    if (results) {
        if (seam_request_add_message(req, results) != SEAM_OK)
            BAD("out of memory");
        results = NULL;
    }
    if (seam_message_part_count(msg) > 0 || !user) {
        if (seam_request_add_message(req, msg) != SEAM_OK)
            BAD("out of memory");
    } else {
        seam_message_free(msg);
    }
    return 0;
fail:
    seam_message_free(results);
    seam_message_free(msg);
    return -1;
}

int messages_parse(serve_call *c, json_object *root, serve_err *e)
{
    seam_request *req = seam_request_new();
    if (!req)
        BAD("out of memory");
    c->req = req;
    const char *model = jstr(root, "model");
    if (!model || !*model)
        BAD("model: Field required");
    c->model = strdup(model);
    c->stream = json_object_get_boolean(jget(root, "stream"));

    json_object *system = jget(root, "system");
    if (system) {
        sbuf t = { 0 };
        blocks_text(system, &t);
        if (t.len)
            seam_request_set_system(req, t.p);
        sb_free(&t);
    }
    json_object *msgs = jget(root, "messages");
    if (!json_object_is_type(msgs, json_type_array) || json_object_array_length(msgs) == 0)
        BAD("messages: must be a non-empty array");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        json_object *m = json_object_array_get_idx(msgs, i);
        const char *role = jstr(m, "role");
        if (!role || (strcmp(role, "user") && strcmp(role, "assistant")))
            BAD("messages.%zu.role: must be user or assistant", i);
        if (add_turn(req, role, jget(m, "content"), i, e) < 0)
            goto fail;
    }
    json_object *tools = jget(root, "tools");
    for (size_t i = 0; json_object_is_type(tools, json_type_array) &&
                       i < json_object_array_length(tools); i++) {
        json_object *t = json_object_array_get_idx(tools, i);
        json_object *schema = jget(t, "input_schema");
        if (!jstr(t, "name") ||
            seam_request_add_tool(req, jstr(t, "name"), jstr(t, "description"),
                                  schema ? json_object_to_json_string_ext(
                                               schema, JSON_C_TO_STRING_PLAIN) : NULL) != SEAM_OK)
            BAD("tools.%zu: a tool needs a name and an input_schema object", i);
    }
    json_object *tc = jget(root, "tool_choice");
    const char *tct = jstr(tc, "type");
    if (tct) {
        if (strcmp(tct, "auto") == 0)
            seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_AUTO, NULL);
        else if (strcmp(tct, "any") == 0)
            seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_REQUIRED, NULL);
        else if (strcmp(tct, "none") == 0)
            seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_NONE, NULL);
        else if (strcmp(tct, "tool") == 0 && jstr(tc, "name"))
            seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_NAMED, jstr(tc, "name"));
        else
            BAD("tool_choice: type must be auto, any, none or tool (with a name)");
    }
    json_object *thinking = jget(root, "thinking");
    if (thinking && jstr(thinking, "type") && strcmp(jstr(thinking, "type"), "enabled") == 0) {
        int64_t budget = json_object_get_int64(jget(thinking, "budget_tokens"));
        seam_request_set_reasoning_budget(req, budget > 0 ? budget : 1024);
    }
    json_object *v = jget(root, "temperature");
    if (v)
        seam_request_set_temperature(req, json_object_get_double(v));
    v = jget(root, "max_tokens");
    if (v && json_object_get_int64(v) > 0)
        seam_request_set_max_tokens(req, json_object_get_int64(v));
    v = jget(root, "stop_sequences");
    for (size_t i = 0; json_object_is_type(v, json_type_array) && i < json_object_array_length(v);
         i++)
        if (json_object_is_type(json_object_array_get_idx(v, i), json_type_string))
            seam_request_add_stop(req, json_object_get_string(json_object_array_get_idx(v, i)));
    return 0;
fail:
    return -1;
}

const char *messages_stop_reason(seam_stop_reason r)
{
    switch (r) {
    case SEAM_STOP_LENGTH: return "max_tokens";
    case SEAM_STOP_TOOL_USE: return "tool_use";
    case SEAM_STOP_CONTENT_FILTER: return "refusal";
    default: return "end_turn";
    }
}

void messages_usage(const seam_usage *u, sbuf *out)
{
    sb_printf(out, "{\"input_tokens\":%lld,\"output_tokens\":%lld,"
                   "\"cache_read_input_tokens\":%lld,\"cache_creation_input_tokens\":%lld}",
              (long long)(u->present & SEAM_USAGE_INPUT ? u->input_tokens : 0),
              (long long)(u->present & SEAM_USAGE_OUTPUT ? u->output_tokens : 0),
              (long long)(u->present & SEAM_USAGE_CACHE_READ ? u->cache_read_tokens : 0),
              (long long)(u->present & SEAM_USAGE_CACHE_WRITE ? u->cache_write_tokens : 0));
}

void messages_render(serve_call *c, const seam_result *res, sbuf *out)
{
    char model[256];
    const seam_message *m = seam_result_message(res);
    sb_puts(out, "{\"id\":");
    sb_json_str(out, c->id);
    sb_puts(out, ",\"type\":\"message\",\"role\":\"assistant\",\"model\":");
    sb_json_str(out, door_answer_model(c, res, model, sizeof model));
    sb_puts(out, ",\"content\":[");
    int first = 1;
    for (size_t i = 0; m && i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        seam_part_type t = seam_part_get_type(p);
        if (t != SEAM_PART_TEXT && t != SEAM_PART_REASONING && t != SEAM_PART_TOOL_CALL)
            continue;
        if (t == SEAM_PART_TOOL_CALL && seam_part_provider_executed(p))
            continue;
        sb_puts(out, first ? "{" : ",{");
        first = 0;
        if (t == SEAM_PART_TEXT) {
            sb_puts(out, "\"type\":\"text\",\"text\":");
            sb_json_str(out, seam_part_text(p));
        } else if (t == SEAM_PART_REASONING && seam_part_redacted(p)) {
            sb_puts(out, "\"type\":\"redacted_thinking\",\"data\":");
            sb_json_str(out, seam_part_text(p));
        } else if (t == SEAM_PART_REASONING) {
            sb_puts(out, "\"type\":\"thinking\",\"thinking\":");
            sb_json_str(out, seam_part_text(p));
            sb_puts(out, ",\"signature\":");
            sb_json_str(out, seam_part_signature(p) ? seam_part_signature(p) : "");
        } else {
            sb_puts(out, "\"type\":\"tool_use\",\"id\":");
            sb_json_str(out, seam_part_tool_call_id(p));
            sb_puts(out, ",\"name\":");
            sb_json_str(out, seam_part_tool_name(p));
            sb_puts(out, ",\"input\":");
            sb_puts(out, seam_part_args_json(p));
        }
        sb_puts(out, "}");
    }
    sb_puts(out, "],\"stop_reason\":");
    sb_json_str(out, messages_stop_reason(seam_result_stop_reason(res)));
    sb_puts(out, ",\"stop_sequence\":null,\"usage\":");
    messages_usage(seam_result_usage(res), out);
    sb_puts(out, "}");
}
