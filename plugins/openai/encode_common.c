/* encode_common.c — the encode pieces both of the openai plugin's wires
 * share (encode.c: Chat Completions; responses_encode.c: the Responses API):
 * a refused request's error, tool results and data URLs as the wire carries
 * them, tool parameter schemas, the JSON response format, and the finished
 * HTTP request (the conf's and the request's options merged over the body,
 * URL, headers, framing). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../common/provider_options.h"

int oa_bad_request(seam_error *err, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "openai: %s", msg);
}

/* A part's JSON value as it goes into a tool message's content: a JSON string is
 * sent as its text, anything else as its JSON text. */
json_object *oa_tool_result_content(const char *result_json)
{
    if (!result_json)
        return json_object_new_string("");
    json_object *v = json_parse_strict(result_json, strlen(result_json));
    json_object *out;
    if (json_object_is_type(v, json_type_string))
        out = json_object_new_string(json_object_get_string(v));
    else
        out = json_object_new_string(result_json);
    json_object_put(v);
    return out;
}

json_object *oa_data_url(const char *mime, const char *b64)
{
    strbuf b = {0};
    if (sb_puts(&b, "data:") || sb_puts(&b, mime) || sb_puts(&b, ";base64,") || sb_puts(&b, b64)) {
        sb_free(&b);
        return NULL;
    }
    json_object *s = json_object_new_string_len(b.data, (int)b.len);
    sb_free(&b);
    return s;
}

int oa_tool_parameters(const seam_request *req, size_t i, json_object **out, seam_error *err)
{
    const char *params = seam_request_tool_parameters(req, i);
    json_object *schema = params ? json_parse_strict(params, strlen(params)) : NULL;
    if (params && !json_object_is_type(schema, json_type_object)) {
        json_object_put(schema);
        return oa_bad_request(err, "the parameters of tool %s are not a JSON Schema object",
                           seam_request_tool_name(req, i));
    }
    if (!schema) {
        schema = json_object_new_object();
        json_object_object_add(schema, "type", json_object_new_string("object"));
    }
    /* OpenAI refuses an object schema without "properties". */
    const char *type = jstr(schema, "type");
    if (type && strcmp(type, "object") == 0 && !jget(schema, "properties"))
        json_object_object_add(schema, "properties", json_object_new_object());
    *out = schema;
    return SEAM_OK;
}

int oa_json_format(const seam_request *req, const char **name, json_object **schema, int *strict,
                   seam_error *err)
{
    const char *schema_text = NULL;
    *schema = NULL;
    if (seam_request_response_format(req, name, &schema_text, strict) != SEAM_FORMAT_JSON)
        return 0;
    json_object *s = schema_text ? json_parse_strict(schema_text, strlen(schema_text)) : NULL;
    if (schema_text && !json_object_is_type(s, json_type_object)) {
        json_object_put(s);
        return oa_bad_request(err, "the response format schema is not a JSON object");
    }
    /* No schema, or the bare {"type":"object"} that stands for "any JSON object":
     * JSON mode, which every server of this wire has. */
    const char *type = jstr(s, "type");
    if (s && json_object_object_length(s) == 1 && type && strcmp(type, "object") == 0) {
        json_object_put(s);
        s = NULL;
    }
    *schema = s;
    return 1;
}

/* Shallow-merges opts into body; a null value deletes. filter_reserved: the
 * plugin's own keys are skipped. path (NULL: no check): a field that is not
 * one of that wire's is skipped, with a note in notes (may be NULL). */
int oa_merge_object(const oa_instance *in, json_object *body, json_object *opts,
                    int filter_reserved, const char *path, strbuf *notes)
{
    json_object_object_foreach(opts, key, val)
    {
        if (filter_reserved && oa_is_reserved_option(key))
            continue;
        if (path && !oa_body_field_known(in, key, path)) {
            if (notes) {
                char line[200];
                snprintf(line, sizeof line, "openai plugin: provider option \"%.64s\" is not a field of %s: dropped",
                         key, path);
                if ((notes->len && sb_puts(notes, "\n") != SEAM_OK) || sb_puts(notes, line) != SEAM_OK)
                    return SEAM_ERR_NOMEM;
            }
            continue;
        }
        if (!val)
            json_object_object_del(body, key);
        else
            json_object_object_add(body, key, json_object_get(val));
    }
    return SEAM_OK;
}

/* The same from the options' JSON text. */
int oa_merge_options(const oa_instance *in, json_object *body, const char *options_text,
                     int filter_reserved, const char *path, seam_error *err)
{
    if (!options_text || !*options_text)
        return SEAM_OK;
    json_object *opts = json_parse_strict(options_text, strlen(options_text));
    if (!json_object_is_type(opts, json_type_object)) {
        json_object_put(opts);
        return oa_bad_request(err, "provider options are not a JSON object");
    }
    int rc = oa_merge_object(in, body, opts, filter_reserved, path, NULL);
    json_object_put(opts);
    return rc == SEAM_OK ? SEAM_OK : seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
}

int oa_add_auth(const oa_instance *in, seam_http_request *out)
{
    const char *header = in && in->profile ? in->profile->auth_header : NULL;
    const char *prefix = in && in->profile ? in->profile->auth_prefix : NULL;
    if (!header || !*header)
        return seam_http_request_add_secret_header(out, "Authorization", prefix ? prefix : "Bearer ");
    return seam_http_request_add_secret_header(out, header, prefix ? prefix : "");
}

/* The HTTP request around a finished body text (taken): URL, method, headers,
 * framing. */
static int finish_http(const oa_instance *in, char *text, size_t len, const char *path, int stream,
                       seam_http_request *out, seam_error *err)
{
    strbuf url = {0};
    if (!text || sb_puts(&url, in->base_url) || sb_puts(&url, path)) {
        free(text);
        sb_free(&url);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    }
    int rc = seam_http_request_set_url(out, url.data);
    sb_free(&url);
    if (rc == SEAM_OK)
        rc = seam_http_request_set_method(out, SEAM_HTTP_POST);
    if (rc == SEAM_OK)
        rc = seam_http_request_take_body(out, text, len);
    else
        free(text);
    if (rc == SEAM_OK)
        rc = seam_http_request_add_header(out, "Content-Type", "application/json");
    if (rc == SEAM_OK)
        rc = seam_http_request_add_header(out, "Accept", stream ? "text/event-stream" : "application/json");
    if (rc == SEAM_OK)
        rc = oa_add_auth(in, out);
    if (rc == SEAM_OK && in->headers_json) {
        json_object *h = json_parse_strict(in->headers_json, strlen(in->headers_json));
        json_object_object_foreach(h, hk, hv)
        {
            if (rc == SEAM_OK)
                rc = seam_http_request_add_header(out, hk, json_object_get_string(hv));
        }
        json_object_put(h);
    }
    if (rc == SEAM_OK && stream)
        rc = seam_http_request_set_framing(out, SEAM_FRAMING_SSE);
    if (rc != SEAM_OK && err && err->kind == SEAM_ERROR_NONE)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: could not build the HTTP request");
    return rc;
}

/* The options over a json-c body: the conf's body fields, then the
 * request's (its flat keys and its "openai" and conf-name namespaces), then
 * extra_body, the conf's and the request's; what the plugin does not know is
 * reported, never sent. */
static int merge_all_options(const oa_instance *in, const seam_request *req, json_object *body,
                             const char *path, seam_http_request *out, seam_error *err)
{
    int rc = SEAM_OK;
    popt_view view = { 0 };
    const char *ropts = seam_request_provider_options(req);
    json_object *parsed = ropts && *ropts ? json_parse_strict(ropts, strlen(ropts)) : NULL;
    if (ropts && *ropts && !json_object_is_type(parsed, json_type_object))
        rc = oa_bad_request(err, "provider options are not a JSON object");
    /* A third party's plugin built on this codec (compat.c) has its own id. */
    const char *id = in->profile_copy ? in->profile_copy->id : "openai";
    const char *const ns[] = { id, in->name };
    if (rc == SEAM_OK &&
        popt_select(parsed, 0, ns, 2, oa_option_known, (void *)in, "openai plugin", &view) != SEAM_OK)
        rc = seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    json_object_put(parsed);
    json_object *conf = rc == SEAM_OK && in->body_options
                            ? json_parse_strict(in->body_options, strlen(in->body_options))
                            : NULL;
    if (rc == SEAM_OK && conf && oa_merge_object(in, body, conf, 0, path, &view.notes) != SEAM_OK)
        rc = seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    json_object_put(conf);
    if (rc == SEAM_OK && view.own)
        rc = oa_merge_object(in, body, view.own, 1, path, &view.notes);
    if (rc == SEAM_OK && in->conf_extra)
        rc = oa_merge_options(in, body, in->conf_extra, 0, NULL, err);
    if (rc == SEAM_OK && popt_merge_extra(body, view.extra) != SEAM_OK)
        rc = seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    if (rc == SEAM_OK && (popt_warn(out, in->conf_notes) != SEAM_OK ||
                          popt_warn(out, view.notes.data) != SEAM_OK))
        rc = seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    popt_view_free(&view);
    return rc;
}

int oa_finish_request(const oa_instance *in, const seam_request *req, json_object *body,
                      const char *path, int stream, seam_http_request *out, seam_error *err)
{
    int rc = merge_all_options(in, req, body, path, out, err);
    if (rc != SEAM_OK)
        return rc;
    const char *text = json_text(body);
    size_t len = text ? strlen(text) : 0;
    char *copy = text ? malloc(len + 1) : NULL;
    if (copy)
        memcpy(copy, text, len + 1);
    return finish_http(in, copy, len, path, stream, out, err);
}

/* Whether anything could change or annotate a body: the conf's fields,
 * extra_body or notes, the request's provider options. */
static int has_options(const oa_instance *in, const seam_request *req)
{
    const char *ropts = seam_request_provider_options(req);
    return (in->body_options && *in->body_options) || in->conf_extra ||
           (in->conf_notes && *in->conf_notes) || (ropts && *ropts);
}

int oa_finish_body(const oa_instance *in, const seam_request *req, oa_body *body, const char *path,
                   int stream, seam_http_request *out, seam_error *err)
{
    size_t len = 0;
    char *text = oa_body_render(body, &len);
    if (!text)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    if (!has_options(in, req))
        return finish_http(in, text, len, path, stream, out, err);
    /* Options take the one filtered merge every body takes: the written text,
     * read back (the text is json-c's own printing, so the result is the
     * bytes the json-c encoder sent). The usual request has no options. */
    json_object *obj = json_parse_strict(text, len);
    free(text);
    if (!obj)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    int rc = oa_finish_request(in, req, obj, path, stream, out, err);
    json_object_put(obj);
    return rc;
}
