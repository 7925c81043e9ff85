/* encode.c — the mock's chat encode: a seam request -> an HTTP request to
 * mock://local/v1/generate whose JSON body describes the request and carries
 * the merged script (the conf's `options`, overridden key by key by the
 * request's provider options; script.c reads it back). */
#include "config.h"

#include <seam/plugin.h>

#include <json-c/json.h>
#include <string.h>

#include "../common/codec_util.h"
#include "mock_internal.h"

#define MOCK_URL "mock://local/v1/generate"

/* ---- encode: seam request -> the mock's HTTP request ---------------------------- */

/* A JSON value from text, or the text as a JSON string when it does not parse. */
static json_object *json_or_string(const char *text)
{
    json_object *v = text ? json_parse_strict(text, strlen(text)) : NULL;
    if (v || (text && strcmp(text, "null") == 0))
        return v;
    return json_object_new_string(text ? text : "");
}

static json_object *encode_part(const seam_part *p)
{
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    int rc = 0;
    switch (seam_part_get_type(p)) {
    case SEAM_PART_TEXT:
        rc |= mock_add_string(o, "type", "text");
        rc |= mock_add_string(o, "text", seam_part_text(p));
        break;
    case SEAM_PART_REASONING:
        rc |= mock_add_string(o, "type", "reasoning");
        rc |= mock_add_string(o, "text", seam_part_text(p));
        rc |= mock_add_string(o, "signature", seam_part_signature(p));
        rc |= mock_put(o, "redacted",
                                     json_object_new_boolean(seam_part_redacted(p)));
        break;
    case SEAM_PART_TOOL_CALL:
        rc |= mock_add_string(o, "type", "tool_call");
        rc |= mock_add_string(o, "id", seam_part_tool_call_id(p));
        rc |= mock_add_string(o, "name", seam_part_tool_name(p));
        rc |= mock_put(o, "args", json_or_string(seam_part_args_json(p)));
        break;
    case SEAM_PART_TOOL_RESULT:
        rc |= mock_add_string(o, "type", "tool_result");
        rc |= mock_add_string(o, "tool_call_id", seam_part_tool_call_id(p));
        rc |= mock_add_string(o, "name", seam_part_tool_name(p));
        rc |= mock_put(o, "result", json_or_string(seam_part_result_json(p)));
        rc |= mock_put(o, "is_error",
                                     json_object_new_boolean(seam_part_is_error(p)));
        break;
    case SEAM_PART_MEDIA:
        rc |= mock_add_string(o, "type", "media");
        rc |= mock_add_string(o, "mime_type", seam_part_mime_type(p));
        rc |= mock_add_string(o, "source",
                         seam_part_media_source(p) == SEAM_MEDIA_URL ? "url" : "base64");
        rc |= mock_add_string(o, "data", seam_part_media_data(p));
        break;
    default:
        rc = -1;
    }
    if (rc) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static const char *role_name(seam_role r)
{
    switch (r) {
    case SEAM_ROLE_USER: return "user";
    case SEAM_ROLE_ASSISTANT: return "assistant";
    case SEAM_ROLE_TOOL: return "tool";
    }
    return "user";
}

/* The conf options with the request's provider options laid over them, key by key. */
static json_object *merged_options(const mock_instance *m, const seam_request *req,
                                   seam_error *err)
{
    json_object *base = json_parse_strict(m->options_json, strlen(m->options_json));
    if (!base) {
        /* The options parsed when the provider was created: only memory can
         * fail now, and a script silently dropped would answer differently. */
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory");
        return NULL;
    }
    if (!json_object_is_type(base, json_type_object)) {
        json_object_put(base);
        base = json_object_new_object();
    }
    const char *ropts = seam_request_provider_options(req);
    if (ropts && *ropts) {
        json_object *over = json_parse_strict(ropts, strlen(ropts));
        if (!over || !json_object_is_type(over, json_type_object)) {
            json_object_put(over);
            json_object_put(base);
            seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                           "mock: the request's provider options are not a JSON object");
            return NULL;
        }
        json_object_object_foreach(over, key, val)
            json_object_object_add(base, key, json_object_get(val));
        json_object_put(over);
    }
    return base;
}

int mock_encode(void *instance, const seam_request *req, int stream, seam_http_request *out,
                seam_error *err)
{
    mock_instance *m = instance;
    json_object *options = merged_options(m, req, err);
    if (!options)
        return SEAM_ERR_INVALID;
    /* Children are filled before they are attached: mock_put()/mock_push() consume them. */
    json_object *root = json_object_new_object();
    int rc = root ? 0 : -1;
    if (rc == 0) {
        const char *model = seam_request_model(req);
        rc |= mock_put(root, "model", model ? json_object_new_string(model) : NULL);
        rc |= mock_add_string(root, "system", seam_request_system(req));
        rc |= mock_put(root, "stream", json_object_new_boolean(stream));

        json_object *msgs = json_object_new_array();
        for (size_t i = 0; msgs && i < seam_request_message_count(req); i++) {
            const seam_message *msg = seam_request_message(req, i);
            json_object *parts = json_object_new_array();
            for (size_t j = 0; parts && j < seam_message_part_count(msg); j++)
                rc |= mock_push(parts, encode_part(seam_message_part(msg, j)));
            json_object *jm = json_object_new_object();
            rc |= mock_add_string(jm, "role", role_name(seam_message_role(msg)));
            rc |= mock_put(jm, "content", parts);
            rc |= mock_push(msgs, jm);
        }
        rc |= mock_put(root, "messages", msgs);

        if (seam_request_tool_count(req) > 0) {
            json_object *tools = json_object_new_array();
            for (size_t i = 0; tools && i < seam_request_tool_count(req); i++) {
                json_object *t = json_object_new_object();
                rc |= mock_add_string(t, "name", seam_request_tool_name(req, i));
                rc |= mock_add_string(t, "description", seam_request_tool_description(req, i));
                rc |= mock_put(t, "parameters", json_or_string(seam_request_tool_parameters(req, i)));
                rc |= mock_push(tools, t);
            }
            rc |= mock_put(root, "tools", tools);
            const char *named = NULL;
            switch (seam_request_tool_choice(req, &named)) {
            case SEAM_TOOL_CHOICE_NONE: rc |= mock_add_string(root, "tool_choice", "none"); break;
            case SEAM_TOOL_CHOICE_REQUIRED: rc |= mock_add_string(root, "tool_choice", "required"); break;
            case SEAM_TOOL_CHOICE_NAMED: {
                json_object *tc = json_object_new_object();
                rc |= mock_add_string(tc, "name", named ? named : "");
                rc |= mock_put(root, "tool_choice", tc);
                break;
            }
            default: rc |= mock_add_string(root, "tool_choice", "auto"); break;
            }
        }

        double temperature;
        if (seam_request_temperature(req, &temperature))
            rc |= mock_put(root, "temperature", json_object_new_double(temperature));
        if (seam_request_max_tokens(req) > 0)
            rc |= mock_put(root, "max_tokens", json_object_new_int64(seam_request_max_tokens(req)));
        if (seam_request_reasoning_budget(req) > 0)
            rc |= mock_put(root, "reasoning_budget",
                      json_object_new_int64(seam_request_reasoning_budget(req)));
        if (seam_request_stop_count(req) > 0) {
            json_object *stops = json_object_new_array();
            for (size_t i = 0; stops && i < seam_request_stop_count(req); i++)
                rc |= mock_push(stops, json_object_new_string(seam_request_stop(req, i)));
            rc |= mock_put(root, "stop", stops);
        }
        const char *fmt_name = NULL, *schema = NULL;
        int strict = 0;
        if (seam_request_response_format(req, &fmt_name, &schema, &strict) == SEAM_FORMAT_JSON) {
            json_object *rf = json_object_new_object();
            rc |= mock_add_string(rf, "type", "json");
            rc |= mock_add_string(rf, "name", fmt_name ? fmt_name : "response");
            if (schema)
                rc |= mock_put(rf, "schema", json_or_string(schema));
            rc |= mock_put(rf, "strict", json_object_new_boolean(strict));
            rc |= mock_put(root, "response_format", rf);
        }
        rc |= mock_put(root, "options", options);
        options = NULL;
    }
    json_object_put(options);
    if (rc == 0 && seam_request_output_modalities(req) != SEAM_MODALITY_TEXT)
        rc |= mock_put(root, "output_modalities",
                  json_object_new_int64((int64_t)seam_request_output_modalities(req)));

    const char *text = rc == 0 ? json_object_to_json_string_ext(root, JSON_FLAGS) : NULL;
    int status = text ? SEAM_OK : SEAM_ERR_NOMEM;
    if (status == SEAM_OK)
        status = seam_http_request_set_url(out, MOCK_URL);
    if (status == SEAM_OK)
        status = seam_http_request_set_method(out, SEAM_HTTP_POST);
    if (status == SEAM_OK)
        status = seam_http_request_add_header(out, "Content-Type", "application/json");
    if (status == SEAM_OK && stream)
        status = seam_http_request_add_header(out, "Accept", "text/event-stream");
    /* Like a real provider, the credential (if the conf gives one) goes in a
     * secret header; the mock never checks it. */
    if (status == SEAM_OK)
        status = seam_http_request_add_secret_header(out, "Authorization", "Bearer ");
    if (status == SEAM_OK)
        status = seam_http_request_set_body(out, text, strlen(text));
    json_object_put(root);
    if (status != SEAM_OK)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: cannot build the request");
    return status;
}
