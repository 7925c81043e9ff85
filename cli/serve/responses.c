/* responses.c — the OpenAI Responses door: POST /v1/responses (input as text
 * or items: messages, function_call, function_call_output; instructions;
 * function tools; tool_choice; text.format json_schema) turned into a seam
 * request, and the answer as a `response` object with message and
 * function_call output items, streamed as response.* events with their
 * sequence numbers. Reasoning items are not sent back. */
#include "config.h"

#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#define BAD(...) do { serve_err_set(e, 400, SEAM_ERROR_BAD_REQUEST, "invalid_request_error", \
                                    __VA_ARGS__); goto fail; } while (0)

static int add_content(seam_message *m, json_object *content, sbuf *system)
{
    if (json_object_is_type(content, json_type_string)) {
        if (system) {
            sb_puts(system, json_object_get_string(content));
            return 0;
        }
        return seam_message_add_text(m, json_object_get_string(content));
    }
    if (!json_object_is_type(content, json_type_array))
        return SEAM_ERR_INVALID;
    for (size_t i = 0; i < json_object_array_length(content); i++) {
        json_object *p = json_object_array_get_idx(content, i);
        const char *type = jstr(p, "type");
        int rc = SEAM_ERR_INVALID;
        if (type && (strcmp(type, "input_text") == 0 || strcmp(type, "output_text") == 0 ||
                     strcmp(type, "text") == 0) && jstr(p, "text")) {
            if (system) {
                sb_puts(system, jstr(p, "text"));
                rc = SEAM_OK;
            } else {
                rc = seam_message_add_text(m, jstr(p, "text"));
            }
        } else if (type && strcmp(type, "input_image") == 0 && jstr(p, "image_url") && !system) {
            const char *url = jstr(p, "image_url");
            char mime[100];
            const char *b64;
            rc = door_data_url(url, mime, sizeof mime, &b64) ?
                 seam_message_add_media(m, mime, SEAM_MEDIA_BASE64, b64) :
                 seam_message_add_media(m, door_url_mime(url), SEAM_MEDIA_URL, url);
        }
        if (rc != SEAM_OK)
            return rc;
    }
    return 0;
}

/* Appends msg unless it is NULL; consecutive items of one role share a message. */
static int flush(seam_request *req, seam_message **msg)
{
    if (!*msg)
        return 0;
    int rc = seam_request_add_message(req, *msg);
    if (rc != SEAM_OK)
        seam_message_free(*msg);
    *msg = NULL;
    return rc == SEAM_OK ? 0 : -1;
}

int responses_parse(serve_call *c, json_object *root, serve_err *e)
{
    seam_request *req = seam_request_new();
    seam_message *cur = NULL;
    sbuf system = { 0 };
    if (!req)
        BAD("out of memory");
    c->req = req;
    const char *model = jstr(root, "model");
    if (!model || !*model)
        BAD("model is required");
    c->model = strdup(model);
    c->stream = json_object_get_boolean(jget(root, "stream"));
    if (jstr(root, "instructions"))
        sb_puts(&system, jstr(root, "instructions"));
    json_object *input = jget(root, "input");
    if (json_object_is_type(input, json_type_string)) {
        if (seam_request_add_user_text(req, json_object_get_string(input)) != SEAM_OK)
            BAD("out of memory");
    } else if (json_object_is_type(input, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(input); i++) {
            json_object *it = json_object_array_get_idx(input, i);
            const char *type = jstr(it, "type");
            const char *role = jstr(it, "role");
            if ((!type || strcmp(type, "message") == 0) && role) {
                if (strcmp(role, "system") == 0 || strcmp(role, "developer") == 0) {
                    if (system.len)
                        sb_puts(&system, "\n\n");
                    if (add_content(NULL, jget(it, "content"), &system) != SEAM_OK)
                        BAD("input[%zu].content could not be read", i);
                    continue;
                }
                seam_role want = strcmp(role, "assistant") == 0 ? SEAM_ROLE_ASSISTANT :
                                 SEAM_ROLE_USER;
                if (cur && seam_message_role(cur) != want && flush(req, &cur) < 0)
                    BAD("out of memory");
                if (!cur && !(cur = seam_message_new(want)))
                    BAD("out of memory");
                if (add_content(cur, jget(it, "content"), NULL) != SEAM_OK)
                    BAD("input[%zu].content could not be read", i);
            } else if (type && strcmp(type, "function_call") == 0) {
                if (cur && seam_message_role(cur) != SEAM_ROLE_ASSISTANT && flush(req, &cur) < 0)
                    BAD("out of memory");
                if (!cur && !(cur = seam_message_new(SEAM_ROLE_ASSISTANT)))
                    BAD("out of memory");
                const char *args = jstr(it, "arguments");
                if (!jstr(it, "call_id") || !jstr(it, "name") ||
                    seam_message_add_tool_call(cur, jstr(it, "call_id"), jstr(it, "name"),
                                               args && *args ? args : "{}") != SEAM_OK)
                    BAD("input[%zu]: a function_call needs call_id, name and JSON arguments", i);
            } else if (type && strcmp(type, "function_call_output") == 0) {
                if (cur && seam_message_role(cur) != SEAM_ROLE_TOOL && flush(req, &cur) < 0)
                    BAD("out of memory");
                if (!cur && !(cur = seam_message_new(SEAM_ROLE_TOOL)))
                    BAD("out of memory");
                char *rj = door_result_json(jstr(it, "output") ? jstr(it, "output") : "");
                int rc = rj && jstr(it, "call_id") ?
                         seam_message_add_tool_result(cur, jstr(it, "call_id"), NULL, rj, 0) :
                         SEAM_ERR_INVALID;
                free(rj);
                if (rc != SEAM_OK)
                    BAD("input[%zu]: a function_call_output needs call_id and output", i);
            } else if (type && strcmp(type, "reasoning") == 0) {
                continue; /* not sent back to any provider by this door */
            } else {
                BAD("input[%zu]: item type '%.64s' is not supported", i, type ? type : "(none)");
            }
        }
        if (flush(req, &cur) < 0)
            BAD("out of memory");
    } else {
        BAD("input must be a string or an array of items");
    }
    if (system.len)
        seam_request_set_system(req, system.p);
    json_object *tools = jget(root, "tools");
    for (size_t i = 0; json_object_is_type(tools, json_type_array) &&
                       i < json_object_array_length(tools); i++) {
        json_object *t = json_object_array_get_idx(tools, i);
        if (!jstr(t, "type") || strcmp(jstr(t, "type"), "function") != 0)
            BAD("tools[%zu]: only function tools are supported", i);
        json_object *params = jget(t, "parameters");
        if (!jstr(t, "name") ||
            seam_request_add_tool(req, jstr(t, "name"), jstr(t, "description"),
                                  params ? json_object_to_json_string_ext(
                                               params, JSON_C_TO_STRING_PLAIN) : NULL) != SEAM_OK)
            BAD("tools[%zu] needs a name and parameters", i);
    }
    json_object *tc = jget(root, "tool_choice");
    if (json_object_is_type(tc, json_type_string)) {
        const char *s = json_object_get_string(tc);
        seam_request_set_tool_choice(req, strcmp(s, "none") == 0 ? SEAM_TOOL_CHOICE_NONE :
                                          strcmp(s, "required") == 0 ? SEAM_TOOL_CHOICE_REQUIRED :
                                          SEAM_TOOL_CHOICE_AUTO, NULL);
    } else if (tc && jstr(tc, "name")) {
        seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_NAMED, jstr(tc, "name"));
    }
    json_object *fmt = jget(jget(root, "text"), "format");
    if (jstr(fmt, "type") && strcmp(jstr(fmt, "type"), "json_schema") == 0) {
        json_object *schema = jget(fmt, "schema");
        seam_request_set_response_format(
            req, SEAM_FORMAT_JSON, jstr(fmt, "name"),
            schema ? json_object_to_json_string_ext(schema, JSON_C_TO_STRING_PLAIN) : NULL,
            json_object_get_boolean(jget(fmt, "strict")));
    } else if (jstr(fmt, "type") && strcmp(jstr(fmt, "type"), "json_object") == 0) {
        seam_request_set_response_format(req, SEAM_FORMAT_JSON, NULL, NULL, 0);
    }
    json_object *v = jget(root, "temperature");
    if (v)
        seam_request_set_temperature(req, json_object_get_double(v));
    v = jget(root, "max_output_tokens");
    if (v && json_object_get_int64(v) > 0)
        seam_request_set_max_tokens(req, json_object_get_int64(v));
    sb_free(&system);
    return 0;
fail:
    seam_message_free(cur);
    sb_free(&system);
    return -1;
}

/* ---- the answer ------------------------------------------------------------------ */

static void usage_obj(const seam_usage *u, sbuf *out)
{
    int64_t cached = u->present & SEAM_USAGE_CACHE_READ ? u->cache_read_tokens : 0;
    int64_t in = (u->present & SEAM_USAGE_INPUT ? u->input_tokens : 0) + cached +
                 (u->present & SEAM_USAGE_CACHE_WRITE ? u->cache_write_tokens : 0);
    int64_t outt = u->present & SEAM_USAGE_OUTPUT ? u->output_tokens : 0;
    sb_printf(out, "{\"input_tokens\":%lld,\"input_tokens_details\":{\"cached_tokens\":%lld},"
                   "\"output_tokens\":%lld,\"output_tokens_details\":{\"reasoning_tokens\":%lld},"
                   "\"total_tokens\":%lld}",
              (long long)in, (long long)cached, (long long)outt,
              (long long)(u->present & SEAM_USAGE_REASONING ? u->reasoning_tokens : 0),
              (long long)(in + outt));
}

static void message_item(serve_call *c, int index, const char *text, const char *status,
                         sbuf *out)
{
    sb_printf(out, "{\"type\":\"message\",\"id\":\"msg_%s_%d\",\"status\":\"%s\","
                   "\"role\":\"assistant\",\"content\":[", c->id + 5, index, status);
    if (text) {
        sb_puts(out, "{\"type\":\"output_text\",\"text\":");
        sb_json_str(out, text);
        sb_puts(out, ",\"annotations\":[]}");
    }
    sb_puts(out, "]}");
}

static void call_item(const char *call_id, const char *name, const char *args, const char *status,
                      sbuf *out)
{
    sb_puts(out, "{\"type\":\"function_call\",\"id\":");
    sbuf id = { 0 };
    sb_printf(&id, "fc_%s", call_id ? call_id : "");
    sb_json_str(out, id.p);
    sb_free(&id);
    sb_puts(out, ",\"call_id\":");
    sb_json_str(out, call_id);
    sb_puts(out, ",\"name\":");
    sb_json_str(out, name);
    sb_puts(out, ",\"arguments\":");
    sb_json_str(out, args);
    sb_printf(out, ",\"status\":\"%s\"}", status);
}

static void response_obj(serve_call *c, const seam_result *res, const char *status, sbuf *out)
{
    char model[256];
    sb_puts(out, "{\"id\":");
    sb_json_str(out, c->id);
    sb_printf(out, ",\"object\":\"response\",\"created_at\":%lld,\"status\":\"%s\",\"model\":",
              (long long)c->created, status);
    sb_json_str(out, door_answer_model(c, res, model, sizeof model));
    sb_puts(out, ",\"output\":[");
    int n = 0;
    const seam_message *m = res ? seam_result_message(res) : NULL;
    sbuf text = { 0 };
    for (size_t i = 0; m && i <= seam_message_part_count(m); i++) {
        const seam_part *p = i < seam_message_part_count(m) ? seam_message_part(m, i) : NULL;
        seam_part_type t = p ? seam_part_get_type(p) : 0;
        if (t == SEAM_PART_TEXT) {
            sb_puts(&text, seam_part_text(p));
            continue;
        }
        if (text.len) {
            if (n)
                sb_puts(out, ",");
            message_item(c, n++, text.p, "completed", out);
            sb_free(&text);
        }
        if (t == SEAM_PART_TOOL_CALL && !seam_part_provider_executed(p)) {
            if (n++)
                sb_puts(out, ",");
            call_item(seam_part_tool_call_id(p), seam_part_tool_name(p), seam_part_args_json(p),
                      "completed", out);
        }
    }
    sb_free(&text);
    sb_puts(out, "],\"parallel_tool_calls\":true,\"tool_choice\":\"auto\",\"tools\":[],"
                 "\"error\":null,\"incomplete_details\":");
    if (res && seam_result_stop_reason(res) == SEAM_STOP_LENGTH)
        sb_puts(out, "{\"reason\":\"max_output_tokens\"}");
    else
        sb_puts(out, "null");
    sb_puts(out, ",\"usage\":");
    if (res)
        usage_obj(seam_result_usage(res), out);
    else
        sb_puts(out, "null");
    sb_puts(out, "}");
}

void responses_render(serve_call *c, const seam_result *res, sbuf *out)
{
    response_obj(c, res, seam_result_stop_reason(res) == SEAM_STOP_LENGTH ? "incomplete" :
                         "completed", out);
}

/* ---- the stream --------------------------------------------------------------------- */

static void ev(serve_call *c, sbuf *out, const char *type)
{
    sb_printf(out, "event: %s\ndata: {\"type\":\"%s\",\"sequence_number\":%d", type, type,
              c->ws.seq++);
}

static void close_item(serve_call *c, sbuf *out)
{
    wire_state *ws = &c->ws;
    if (!ws->text_open)
        return;
    int idx = ws->output_index;
    const char *acc = ws->acc.p ? ws->acc.p : "";
    if (ws->text_open == 1) {
        ev(c, out, "response.output_text.done");
        sb_printf(out, ",\"item_id\":\"msg_%s_%d\",\"output_index\":%d,\"content_index\":0,"
                       "\"text\":", c->id + 5, idx, idx);
        sb_json_str(out, acc);
        sb_puts(out, "}\n\n");
        ev(c, out, "response.content_part.done");
        sb_printf(out, ",\"item_id\":\"msg_%s_%d\",\"output_index\":%d,\"content_index\":0,"
                       "\"part\":{\"type\":\"output_text\",\"text\":", c->id + 5, idx, idx);
        sb_json_str(out, acc);
        sb_puts(out, ",\"annotations\":[]}}\n\n");
        ev(c, out, "response.output_item.done");
        sb_printf(out, ",\"output_index\":%d,\"item\":", idx);
        message_item(c, idx, acc, "completed", out);
        sb_puts(out, "}\n\n");
    } else {
        ev(c, out, "response.function_call_arguments.done");
        sb_printf(out, ",\"item_id\":\"fc_");
        sb_puts(out, ws->tool_id);
        sb_printf(out, "\",\"output_index\":%d,\"arguments\":", idx);
        sb_json_str(out, acc[0] ? acc : "{}");
        sb_puts(out, "}\n\n");
        ev(c, out, "response.output_item.done");
        sb_printf(out, ",\"output_index\":%d,\"item\":", idx);
        call_item(ws->tool_id, ws->tool_name, acc[0] ? acc : "{}", "completed", out);
        sb_puts(out, "}\n\n");
    }
    ws->text_open = 0;
    ws->output_index++;
    sb_free(&ws->acc);
}

static void start(serve_call *c, sbuf *out)
{
    if (c->ws.started)
        return;
    c->ws.started = 1;
    ev(c, out, "response.created");
    sb_puts(out, ",\"response\":");
    response_obj(c, NULL, "in_progress", out);
    sb_puts(out, "}\n\n");
    ev(c, out, "response.in_progress");
    sb_puts(out, ",\"response\":");
    response_obj(c, NULL, "in_progress", out);
    sb_puts(out, "}\n\n");
}

void responses_sse_chunk(serve_call *c, const seam_chunk *ch, sbuf *out)
{
    wire_state *ws = &c->ws;
    start(c, out);
    switch (ch->type) {
    case SEAM_CHUNK_TEXT_DELTA:
        if (ws->text_open != 1) {
            close_item(c, out);
            ws->text_open = 1;
            ev(c, out, "response.output_item.added");
            sb_printf(out, ",\"output_index\":%d,\"item\":", ws->output_index);
            message_item(c, ws->output_index, NULL, "in_progress", out);
            sb_puts(out, "}\n\n");
            ev(c, out, "response.content_part.added");
            sb_printf(out, ",\"item_id\":\"msg_%s_%d\",\"output_index\":%d,\"content_index\":0,"
                           "\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[]}}"
                           "\n\n", c->id + 5, ws->output_index, ws->output_index);
        }
        sb_puts(&ws->acc, ch->text);
        ev(c, out, "response.output_text.delta");
        sb_printf(out, ",\"item_id\":\"msg_%s_%d\",\"output_index\":%d,\"content_index\":0,"
                       "\"delta\":", c->id + 5, ws->output_index, ws->output_index);
        sb_json_str(out, ch->text);
        sb_puts(out, "}\n\n");
        break;
    case SEAM_CHUNK_TOOL_CALL_START:
        close_item(c, out);
        ws->text_open = 2;
        ws->tool_had_delta = 0;
        snprintf(ws->tool_id, sizeof ws->tool_id, "%s", ch->id ? ch->id : "");
        snprintf(ws->tool_name, sizeof ws->tool_name, "%s", ch->name ? ch->name : "");
        ev(c, out, "response.output_item.added");
        sb_printf(out, ",\"output_index\":%d,\"item\":", ws->output_index);
        call_item(ws->tool_id, ws->tool_name, "", "in_progress", out);
        sb_puts(out, "}\n\n");
        break;
    case SEAM_CHUNK_TOOL_CALL_DELTA:
    case SEAM_CHUNK_TOOL_CALL_END: {
        if (ws->text_open != 2)
            break;
        const char *frag = ch->type == SEAM_CHUNK_TOOL_CALL_DELTA ? ch->text :
                           (!ws->tool_had_delta ? ch->args_json : NULL);
        if (frag && *frag) {
            ws->tool_had_delta = 1;
            sb_puts(&ws->acc, frag);
            ev(c, out, "response.function_call_arguments.delta");
            sb_puts(out, ",\"item_id\":");
            sbuf id = { 0 };
            sb_printf(&id, "fc_%s", ws->tool_id);
            sb_json_str(out, id.p);
            sb_free(&id);
            sb_printf(out, ",\"output_index\":%d,\"delta\":", ws->output_index);
            sb_json_str(out, frag);
            sb_puts(out, "}\n\n");
        }
        if (ch->type == SEAM_CHUNK_TOOL_CALL_END)
            close_item(c, out);
        break;
    }
    case SEAM_CHUNK_STOP:
        close_item(c, out);
        break;
    default:
        break;
    }
}

void responses_sse_end(serve_call *c, const seam_result *res, sbuf *out)
{
    start(c, out);
    close_item(c, out);
    int incomplete = seam_result_stop_reason(res) == SEAM_STOP_LENGTH;
    ev(c, out, incomplete ? "response.incomplete" : "response.completed");
    sb_puts(out, ",\"response\":");
    response_obj(c, res, incomplete ? "incomplete" : "completed", out);
    sb_puts(out, "}\n\n");
}
