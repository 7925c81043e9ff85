/* decode.c — the mock's chat decode: its wire (serve.c), streamed events or a
 * whole body, -> seam chunks, as a real codec would. */
#include "config.h"

#include <seam/plugin.h>

#include <errno.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/codec_util.h"
#include "mock_internal.h"

/* ---- decode ------------------------------------------------------------------------ */

typedef struct mock_decoder {
    int in_reasoning;
    int reasoning_seq;
    char reasoning_id[32];
    char *tool_id;
    strbuf tool_args;
} mock_decoder;

void *mock_decoder_new(void *instance, const seam_request *req)
{
    (void)instance;
    (void)req;
    return calloc(1, sizeof(mock_decoder));
}

void mock_decoder_free(void *decoder)
{
    mock_decoder *d = decoder;
    if (!d)
        return;
    free(d->tool_id);
    free(d->tool_args.data);
    free(d);
}

/* Parsed-and-reserialized arguments ("{}" for none); NULL when they do not parse. */
static char *normalize_args(const char *text, size_t len)
{
    if (len == 0)
        return strdup("{}");
    json_object *o = json_parse_strict(text, len);
    if (!o)
        return NULL;
    errno = 0;
    const char *printed = json_object_to_json_string_ext(o, JSON_FLAGS);
    char *s = printed && errno != ENOMEM ? strdup(printed) : NULL; /* see add_event */
    json_object_put(o);
    return s;
}

static int fill_usage(json_object *u, seam_usage *usage)
{
    static const struct { const char *key; uint32_t bit; size_t off; } fields[] = {
        { "input_tokens", SEAM_USAGE_INPUT, offsetof(seam_usage, input_tokens) },
        { "output_tokens", SEAM_USAGE_OUTPUT, offsetof(seam_usage, output_tokens) },
        { "cache_read_tokens", SEAM_USAGE_CACHE_READ, offsetof(seam_usage, cache_read_tokens) },
        { "cache_write_tokens", SEAM_USAGE_CACHE_WRITE, offsetof(seam_usage, cache_write_tokens) },
        { "reasoning_tokens", SEAM_USAGE_REASONING, offsetof(seam_usage, reasoning_tokens) },
    };
    memset(usage, 0, sizeof *usage);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        json_object *v = jget(u, fields[i].key);
        if (!mock_is_number(v))
            continue;
        *(int64_t *)((char *)usage + fields[i].off) = json_object_get_int64(v);
        usage->present |= fields[i].bit;
    }
    return SEAM_OK;
}

static int emit_stop(json_object *o, seam_emitter *out)
{
    seam_chunk c = { .type = SEAM_CHUNK_STOP };
    c.stop_reason = mock_stop_from_name(jstr(o, "stop_reason"));
    if (c.stop_reason == SEAM_STOP_NONE)
        c.stop_reason = SEAM_STOP_STOP;
    fill_usage(jget(o, "usage"), &c.usage);
    return seam_emit(out, &c);
}

/* An error object {type, message} -> err; returns SEAM_ERR_PROVIDER. */
static int error_from_json(json_object *e, seam_error *err)
{
    const char *type = jstr(e, "type");
    const char *message = jstr(e, "message");
    seam_error_kind kind = mock_kind_from_name(type);
    seam_error_set(err, kind != SEAM_ERROR_NONE ? kind : SEAM_ERROR_UNKNOWN, "%s",
                   message ? message : "mock: stream error");
    if (err && type)
        seam_strlcpy(err->code, type, sizeof err->code);
    return SEAM_ERR_PROVIDER;
}

static int malformed(seam_error *err, const char *what)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: malformed response (%s)", what);
    return SEAM_ERR_INVALID;
}

/* {"mime_type", "data": base64}: to the core's media store. */
static int emit_media(json_object *m, seam_emitter *out, seam_error *err)
{
    const char *mime = jstr(m, "mime_type");
    const char *data = jstr(m, "data");
    if (!mime || !data)
        return malformed(err, "media without mime_type or data");
    return seam_emit_media(out, NULL, mime, data, strlen(data), err);
}

int mock_decode_event(void *decoder, const seam_frame *frame, seam_emitter *out,
                             seam_error *err)
{
    mock_decoder *d = decoder;
    json_object *ev = json_parse_strict(frame->data, frame->data_len);
    const char *type = jstr(ev, "type");
    int rc = SEAM_OK;
    if (!type) {
        json_object_put(ev);
        return malformed(err, "an event that is not a typed JSON object");
    }
    seam_chunk c = { 0 };
    if (strcmp(type, "reasoning_delta") == 0) {
        if (!d->in_reasoning) {
            d->in_reasoning = 1;
            snprintf(d->reasoning_id, sizeof d->reasoning_id, "reasoning_%d", d->reasoning_seq++);
            seam_chunk start = { .type = SEAM_CHUNK_REASONING_START, .id = d->reasoning_id };
            rc = seam_emit(out, &start);
        }
        if (rc == SEAM_OK) {
            c.type = SEAM_CHUNK_REASONING_DELTA;
            c.id = d->reasoning_id;
            c.text = jstr(ev, "text");
            rc = c.text ? seam_emit(out, &c) : malformed(err, "reasoning_delta without text");
        }
    } else if (strcmp(type, "reasoning_end") == 0) {
        if (d->in_reasoning) {
            c.type = SEAM_CHUNK_REASONING_END;
            c.id = d->reasoning_id;
            c.signature = jstr(ev, "signature");
            d->in_reasoning = 0;
            rc = seam_emit(out, &c);
        }
    } else if (strcmp(type, "text_delta") == 0) {
        c.type = SEAM_CHUNK_TEXT_DELTA;
        c.text = jstr(ev, "text");
        rc = c.text ? seam_emit(out, &c) : malformed(err, "text_delta without text");
    } else if (strcmp(type, "tool_call_start") == 0) {
        const char *id = jstr(ev, "id");
        const char *name = jstr(ev, "name");
        if (!id || !name) {
            rc = malformed(err, "tool_call_start without id or name");
        } else {
            free(d->tool_id);
            d->tool_id = strdup(id);
            d->tool_args.len = 0;
            if (d->tool_args.data)
                d->tool_args.data[0] = '\0';
            c.type = SEAM_CHUNK_TOOL_CALL_START;
            c.id = id;
            c.name = name;
            rc = d->tool_id ? seam_emit(out, &c) : SEAM_ERR_NOMEM;
        }
    } else if (strcmp(type, "tool_call_delta") == 0) {
        const char *text = jstr(ev, "text");
        if (!text || !d->tool_id) {
            rc = malformed(err, "tool_call_delta outside a tool call");
        } else {
            sb_puts(&d->tool_args, text);
            c.type = SEAM_CHUNK_TOOL_CALL_DELTA;
            c.id = d->tool_id;
            c.text = text;
            rc = d->tool_args.failed ? SEAM_ERR_NOMEM : seam_emit(out, &c);
        }
    } else if (strcmp(type, "tool_call_end") == 0) {
        if (!d->tool_id) {
            rc = malformed(err, "tool_call_end outside a tool call");
        } else {
            char *args = normalize_args(d->tool_args.data ? d->tool_args.data : "",
                                        d->tool_args.len);
            c.type = SEAM_CHUNK_TOOL_CALL_END;
            c.id = d->tool_id;
            /* Arguments that do not parse are handed on as sent: the accumulator
             * records the error and keeps the call with {}. */
            c.args_json = args ? args : (d->tool_args.data ? d->tool_args.data : "");
            rc = seam_emit(out, &c);
            free(args);
            free(d->tool_id);
            d->tool_id = NULL;
        }
    } else if (strcmp(type, "media") == 0) {
        rc = emit_media(ev, out, err);
    } else if (strcmp(type, "stop") == 0) {
        rc = emit_stop(ev, out);
    } else if (strcmp(type, "error") == 0) {
        rc = error_from_json(jget(ev, "error"), err);
    }
    /* Other event types are ignored, as a real codec ignores pings. */
    json_object_put(ev);
    return rc;
}

int mock_decode_response(void *instance, const seam_request *req, const char *body,
                                size_t len, seam_emitter *out, seam_error *err)
{
    (void)instance;
    (void)req;
    json_object *root = json_parse_strict(body, len);
    json_object *content = jget(root, "content");
    if (!root || !content || !json_object_is_type(content, json_type_array)) {
        json_object_put(root);
        return malformed(err, "a body without content");
    }
    int rc = SEAM_OK;
    int reasoning_seq = 0;
    for (size_t i = 0; rc == SEAM_OK && i < json_object_array_length(content); i++) {
        json_object *p = json_object_array_get_idx(content, i);
        const char *type = jstr(p, "type");
        if (!type)
            continue;
        if (strcmp(type, "reasoning") == 0) {
            char id[32];
            snprintf(id, sizeof id, "reasoning_%d", reasoning_seq++);
            seam_chunk start = { .type = SEAM_CHUNK_REASONING_START, .id = id };
            seam_chunk delta = { .type = SEAM_CHUNK_REASONING_DELTA, .id = id,
                                 .text = jstr(p, "text") };
            seam_chunk end = { .type = SEAM_CHUNK_REASONING_END, .id = id,
                               .signature = jstr(p, "signature") };
            rc = seam_emit(out, &start);
            if (rc == SEAM_OK && delta.text)
                rc = seam_emit(out, &delta);
            if (rc == SEAM_OK)
                rc = seam_emit(out, &end);
        } else if (strcmp(type, "text") == 0) {
            seam_chunk c = { .type = SEAM_CHUNK_TEXT_DELTA, .text = jstr(p, "text") };
            if (c.text && *c.text)
                rc = seam_emit(out, &c);
        } else if (strcmp(type, "media") == 0) {
            rc = emit_media(p, out, err);
        } else if (strcmp(type, "tool_call") == 0) {
            const char *id = jstr(p, "id");
            const char *name = jstr(p, "name");
            json_object *args = jget(p, "args");
            const char *args_text = args ? json_object_to_json_string_ext(args, JSON_FLAGS) : "{}";
            if (!id || !name) {
                rc = malformed(err, "a tool_call without id or name");
                break;
            }
            seam_chunk start = { .type = SEAM_CHUNK_TOOL_CALL_START, .id = id, .name = name };
            seam_chunk delta = { .type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = id, .text = args_text };
            seam_chunk end = { .type = SEAM_CHUNK_TOOL_CALL_END, .id = id, .args_json = args_text };
            rc = seam_emit(out, &start);
            if (rc == SEAM_OK)
                rc = seam_emit(out, &delta);
            if (rc == SEAM_OK)
                rc = seam_emit(out, &end);
        }
    }
    if (rc == SEAM_OK) {
        json_object *e = jget(root, "error");
        rc = e ? error_from_json(e, err) : emit_stop(root, out);
    }
    json_object_put(root);
    return rc;
}
