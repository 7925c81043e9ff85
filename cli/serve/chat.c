/* chat.c — the OpenAI chat-completions door: POST /v1/chat/completions turned
 * into a seam request (messages, system and developer turns, images, tools,
 * tool_choice, response_format json_schema, sampling fields), and a finished
 * seam result written back as a `chat.completion` object. The streamed form
 * is written by sse.c. Also the small helpers every door shares. */
#include "config.h"

#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

/* ---- shared by the doors -------------------------------------------------- */

char *door_result_json(const char *text)
{
    if (!text)
        return strdup("\"\"");
    enum json_tokener_error jerr;
    json_object *v = json_tokener_parse_verbose(text, &jerr);
    if (jerr == json_tokener_success) {
        json_object_put(v);
        /* a bare JSON text such as `42` or `"x"` stays as sent */
        return strdup(text);
    }
    sbuf b = { 0 };
    sb_json_str(&b, text);
    return sb_take(&b, NULL);
}

const char *door_answer_model(serve_call *c, const seam_result *res, char *buf, size_t n)
{
    const char *p = res ? seam_result_provider(res) : NULL;
    const char *m = res ? seam_result_model(res) : NULL;
    if (p && m)
        snprintf(buf, n, "%s/%s", p, m);
    else
        snprintf(buf, n, "%s", c->model ? c->model : "");
    return buf;
}

int door_data_url(const char *url, char *mime, size_t mimesize, const char **b64)
{
    if (strncmp(url, "data:", 5) != 0)
        return 0;
    const char *semi = strstr(url, ";base64,");
    if (!semi)
        return 0;
    size_t n = (size_t)(semi - (url + 5));
    if (n == 0 || n >= mimesize)
        return 0;
    memcpy(mime, url + 5, n);
    mime[n] = '\0';
    *b64 = semi + 8;
    return 1;
}

const char *door_url_mime(const char *url)
{
    const char *q = strchr(url, '?');
    size_t n = q ? (size_t)(q - url) : strlen(url);
    static const struct { const char *ext, *mime; } t[] = {
        { ".png", "image/png" }, { ".gif", "image/gif" }, { ".webp", "image/webp" },
        { ".jpg", "image/jpeg" }, { ".jpeg", "image/jpeg" }, { ".pdf", "application/pdf" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        size_t e = strlen(t[i].ext);
        if (n > e && strncasecmp(url + n - e, t[i].ext, e) == 0)
            return t[i].mime;
    }
    return "image/jpeg";
}

/* ---- parsing -------------------------------------------------------------- */

#define BAD(...) do { serve_err_set(e, 400, SEAM_ERROR_BAD_REQUEST, "invalid_request_error", \
                                    __VA_ARGS__); goto fail; } while (0)

/* Text of a content value (a string, or an array of text parts). */
static void content_text(json_object *content, sbuf *out)
{
    if (json_object_is_type(content, json_type_string)) {
        sb_puts(out, json_object_get_string(content));
        return;
    }
    if (!json_object_is_type(content, json_type_array))
        return;
    for (size_t i = 0; i < json_object_array_length(content); i++) {
        const char *t = jstr(json_object_array_get_idx(content, i), "text");
        if (t)
            sb_puts(out, t);
    }
}

static int add_user_content(seam_message *m, json_object *content, serve_err *e)
{
    if (!content || json_object_is_type(content, json_type_null))
        return 0;
    if (json_object_is_type(content, json_type_string))
        return seam_message_add_text(m, json_object_get_string(content)) == SEAM_OK ? 0 : -1;
    if (!json_object_is_type(content, json_type_array))
        BAD("messages[].content must be a string or an array of parts");
    for (size_t i = 0; i < json_object_array_length(content); i++) {
        json_object *part = json_object_array_get_idx(content, i);
        const char *type = jstr(part, "type");
        if (type && strcmp(type, "text") == 0) {
            const char *t = jstr(part, "text");
            if (!t || seam_message_add_text(m, t) != SEAM_OK)
                BAD("a text part needs its text");
        } else if (type && strcmp(type, "image_url") == 0) {
            json_object *iu = jget(part, "image_url");
            const char *url = json_object_is_type(iu, json_type_string) ?
                              json_object_get_string(iu) : jstr(iu, "url");
            if (!url)
                BAD("an image_url part needs image_url.url");
            char mime[100];
            const char *b64;
            int rc = door_data_url(url, mime, sizeof mime, &b64) ?
                     seam_message_add_media(m, mime, SEAM_MEDIA_BASE64, b64) :
                     seam_message_add_media(m, door_url_mime(url), SEAM_MEDIA_URL, url);
            if (rc != SEAM_OK)
                BAD("an image_url part could not be read");
        } else {
            BAD("content part type '%.64s' is not supported", type ? type : "(none)");
        }
    }
    return 0;
fail:
    return -1;
}

static int add_tools(seam_request *req, json_object *tools, serve_err *e)
{
    if (!tools)
        return 0;
    if (!json_object_is_type(tools, json_type_array))
        BAD("tools must be an array");
    for (size_t i = 0; i < json_object_array_length(tools); i++) {
        json_object *t = json_object_array_get_idx(tools, i);
        json_object *fn = jget(t, "function");
        const char *name = jstr(fn, "name");
        if (!name)
            BAD("tools[%zu].function.name is required", i);
        json_object *params = jget(fn, "parameters");
        const char *pj = params ? json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN)
                                : NULL;
        if (seam_request_add_tool(req, name, jstr(fn, "description"), pj) != SEAM_OK)
            BAD("tools[%zu] is not a valid tool", i);
    }
    return 0;
fail:
    return -1;
}

static int set_tool_choice(seam_request *req, json_object *tc, serve_err *e)
{
    if (!tc)
        return 0;
    if (json_object_is_type(tc, json_type_string)) {
        const char *s = json_object_get_string(tc);
        seam_tool_choice ch = strcmp(s, "none") == 0 ? SEAM_TOOL_CHOICE_NONE :
                              strcmp(s, "required") == 0 ? SEAM_TOOL_CHOICE_REQUIRED :
                              SEAM_TOOL_CHOICE_AUTO;
        if (strcmp(s, "auto") && strcmp(s, "none") && strcmp(s, "required"))
            BAD("tool_choice '%.64s' is not one of auto, none, required", s);
        seam_request_set_tool_choice(req, ch, NULL);
        return 0;
    }
    const char *name = jstr(jget(tc, "function"), "name");
    if (!name)
        BAD("tool_choice.function.name is required");
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_NAMED, name);
    return 0;
fail:
    return -1;
}

static int set_response_format(seam_request *req, json_object *rf, serve_err *e)
{
    const char *type = jstr(rf, "type");
    if (!rf || !type || strcmp(type, "text") == 0)
        return 0;
    if (strcmp(type, "json_object") == 0) {
        seam_request_set_response_format(req, SEAM_FORMAT_JSON, NULL, NULL, 0);
        return 0;
    }
    if (strcmp(type, "json_schema") != 0)
        BAD("response_format.type '%.64s' is not supported", type);
    json_object *js = jget(rf, "json_schema");
    json_object *schema = jget(js, "schema");
    json_object *strict = jget(js, "strict");
    if (seam_request_set_response_format(
            req, SEAM_FORMAT_JSON, jstr(js, "name"),
            schema ? json_object_to_json_string_ext(schema, JSON_C_TO_STRING_PLAIN) : NULL,
            strict && json_object_get_boolean(strict)) != SEAM_OK)
        BAD("response_format.json_schema is not valid");
    return 0;
fail:
    return -1;
}

/* temperature, max_tokens, stop: shared with the other doors' spellings. */
static void set_sampling(seam_request *req, json_object *root)
{
    json_object *v = jget(root, "temperature");
    if (v && (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
        seam_request_set_temperature(req, json_object_get_double(v));
    v = jget(root, "max_completion_tokens");
    if (!v)
        v = jget(root, "max_tokens");
    if (v && json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0)
        seam_request_set_max_tokens(req, json_object_get_int64(v));
    v = jget(root, "stop");
    if (v && json_object_is_type(v, json_type_string))
        seam_request_add_stop(req, json_object_get_string(v));
    else if (v && json_object_is_type(v, json_type_array))
        for (size_t i = 0; i < json_object_array_length(v); i++) {
            json_object *s = json_object_array_get_idx(v, i);
            if (json_object_is_type(s, json_type_string))
                seam_request_add_stop(req, json_object_get_string(s));
        }
}

int chat_parse(serve_call *c, json_object *root, serve_err *e)
{
    seam_request *req = seam_request_new();
    seam_message *tools_msg = NULL; /* consecutive tool turns go in one message */
    sbuf system = { 0 };
    if (!req)
        BAD("out of memory");
    c->req = req;
    const char *model = jstr(root, "model");
    if (!model || !*model)
        BAD("model is required");
    c->model = strdup(model);
    json_object *st = jget(root, "stream");
    c->stream = st && json_object_get_boolean(st);
    c->include_usage = json_object_get_boolean(jget(jget(root, "stream_options"), "include_usage"));

    json_object *msgs = jget(root, "messages");
    if (!json_object_is_type(msgs, json_type_array) || json_object_array_length(msgs) == 0)
        BAD("messages must be a non-empty array");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        json_object *m = json_object_array_get_idx(msgs, i);
        const char *role = jstr(m, "role");
        json_object *content = jget(m, "content");
        if (!role)
            BAD("messages[%zu].role is required", i);
        if (strcmp(role, "tool") != 0 && tools_msg) {
            if (seam_request_add_message(req, tools_msg) != SEAM_OK)
                BAD("out of memory");
            tools_msg = NULL;
        }
        if (strcmp(role, "system") == 0 || strcmp(role, "developer") == 0) {
            if (system.len)
                sb_puts(&system, "\n\n");
            content_text(content, &system);
        } else if (strcmp(role, "user") == 0) {
            seam_message *msg = seam_message_new(SEAM_ROLE_USER);
            if (!msg || add_user_content(msg, content, e) < 0 ||
                seam_request_add_message(req, msg) != SEAM_OK) {
                seam_message_free(msg);
                if (!e->status)
                    BAD("messages[%zu] could not be read", i);
                goto fail;
            }
        } else if (strcmp(role, "assistant") == 0) {
            seam_message *msg = seam_message_new(SEAM_ROLE_ASSISTANT);
            sbuf t = { 0 };
            content_text(content, &t);
            int ok = msg != NULL;
            const char *reasoning = jstr(m, "reasoning_content");
            if (ok && reasoning && *reasoning)
                ok = seam_message_add_reasoning(msg, reasoning, NULL, 0) == SEAM_OK;
            if (ok && t.len)
                ok = seam_message_add_text(msg, t.p) == SEAM_OK;
            sb_free(&t);
            json_object *calls = jget(m, "tool_calls");
            for (size_t k = 0; ok && calls && k < json_object_array_length(calls); k++) {
                json_object *tc = json_object_array_get_idx(calls, k);
                json_object *fn = jget(tc, "function");
                const char *args = jstr(fn, "arguments");
                ok = jstr(tc, "id") && jstr(fn, "name") &&
                     seam_message_add_tool_call(msg, jstr(tc, "id"), jstr(fn, "name"),
                                                args && *args ? args : "{}") == SEAM_OK;
            }
            if (!ok || seam_request_add_message(req, msg) != SEAM_OK) {
                seam_message_free(msg);
                BAD("messages[%zu]: an assistant turn's tool_calls need id, function.name "
                    "and arguments holding a JSON object", i);
            }
        } else if (strcmp(role, "tool") == 0) {
            const char *id = jstr(m, "tool_call_id");
            if (!id)
                BAD("messages[%zu].tool_call_id is required", i);
            if (!tools_msg && !(tools_msg = seam_message_new(SEAM_ROLE_TOOL)))
                BAD("out of memory");
            sbuf t = { 0 };
            content_text(content, &t);
            char *rj = door_result_json(t.p ? t.p : "");
            sb_free(&t);
            int rc = rj ? seam_message_add_tool_result(tools_msg, id, NULL, rj, 0) : SEAM_ERR_NOMEM;
            free(rj);
            if (rc != SEAM_OK)
                BAD("messages[%zu] could not be read", i);
        } else {
            BAD("messages[%zu].role '%.32s' is not one of system, developer, user, assistant, "
                "tool", i, role);
        }
    }
    if (tools_msg) {
        if (seam_request_add_message(req, tools_msg) != SEAM_OK)
            BAD("out of memory");
        tools_msg = NULL;
    }
    if (system.len)
        seam_request_set_system(req, system.p);
    sb_free(&system);
    if (add_tools(req, jget(root, "tools"), e) < 0 ||
        set_tool_choice(req, jget(root, "tool_choice"), e) < 0 ||
        set_response_format(req, jget(root, "response_format"), e) < 0)
        goto fail;
    set_sampling(req, root);
    return 0;
fail:
    seam_message_free(tools_msg);
    sb_free(&system);
    return -1;
}

/* ---- the answer ----------------------------------------------------------- */

static const char *finish_reason(seam_stop_reason r)
{
    switch (r) {
    case SEAM_STOP_LENGTH: return "length";
    case SEAM_STOP_TOOL_USE: return "tool_calls";
    case SEAM_STOP_CONTENT_FILTER: return "content_filter";
    default: return "stop";
    }
}

const char *chat_finish_reason(seam_stop_reason r)
{
    return finish_reason(r);
}

void chat_usage(const seam_usage *u, sbuf *out)
{
    int64_t cached = u->present & SEAM_USAGE_CACHE_READ ? u->cache_read_tokens : 0;
    int64_t prompt = (u->present & SEAM_USAGE_INPUT ? u->input_tokens : 0) + cached +
                     (u->present & SEAM_USAGE_CACHE_WRITE ? u->cache_write_tokens : 0);
    int64_t completion = u->present & SEAM_USAGE_OUTPUT ? u->output_tokens : 0;
    sb_printf(out, "{\"prompt_tokens\":%lld,\"completion_tokens\":%lld,\"total_tokens\":%lld,"
                   "\"prompt_tokens_details\":{\"cached_tokens\":%lld},"
                   "\"completion_tokens_details\":{\"reasoning_tokens\":%lld}}",
              (long long)prompt, (long long)completion, (long long)(prompt + completion),
              (long long)cached,
              (long long)(u->present & SEAM_USAGE_REASONING ? u->reasoning_tokens : 0));
}

void chat_render(serve_call *c, const seam_result *res, sbuf *out)
{
    char model[256];
    const seam_message *m = seam_result_message(res);
    sbuf text = { 0 }, reasoning = { 0 }, calls = { 0 };
    int ncalls = 0;
    for (size_t i = 0; m && i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        switch (seam_part_get_type(p)) {
        case SEAM_PART_TEXT: sb_puts(&text, seam_part_text(p)); break;
        case SEAM_PART_REASONING:
            if (!seam_part_redacted(p))
                sb_puts(&reasoning, seam_part_text(p));
            break;
        case SEAM_PART_TOOL_CALL:
            if (seam_part_provider_executed(p))
                break;
            sb_puts(&calls, ncalls++ ? ",{\"id\":" : "{\"id\":");
            sb_json_str(&calls, seam_part_tool_call_id(p));
            sb_puts(&calls, ",\"type\":\"function\",\"function\":{\"name\":");
            sb_json_str(&calls, seam_part_tool_name(p));
            sb_puts(&calls, ",\"arguments\":");
            sb_json_str(&calls, seam_part_args_json(p));
            sb_puts(&calls, "}}");
            break;
        default: break;
        }
    }
    sb_puts(out, "{\"id\":");
    sb_json_str(out, c->id);
    sb_printf(out, ",\"object\":\"chat.completion\",\"created\":%lld,\"model\":",
              (long long)c->created);
    sb_json_str(out, door_answer_model(c, res, model, sizeof model));
    sb_puts(out, ",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":");
    sb_json_str(out, text.len || !ncalls ? (text.p ? text.p : "") : NULL);
    if (reasoning.len) {
        sb_puts(out, ",\"reasoning_content\":");
        sb_json_str(out, reasoning.p);
    }
    sb_puts(out, ",\"refusal\":null");
    if (ncalls) {
        sb_puts(out, ",\"tool_calls\":[");
        sb_add(out, calls.p, calls.len);
        sb_puts(out, "]");
    }
    sb_puts(out, "},\"logprobs\":null,\"finish_reason\":");
    sb_json_str(out, finish_reason(seam_result_stop_reason(res)));
    sb_puts(out, "}],\"usage\":");
    chat_usage(seam_result_usage(res), out);
    sb_puts(out, "}");
    sb_free(&text);
    sb_free(&reasoning);
    sb_free(&calls);
}
