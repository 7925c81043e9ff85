/* decode.c — the anthropic plugin's decode: SSE events of a Messages API
 * stream, or a whole message body, -> seam chunks. Both go through the same
 * content-block state machine (block_start, block_delta, block_stop), so a
 * whole response gives exactly the chunks its stream would have given; the
 * content_block_delta events that make up most of a stream take a fast path
 * (../common/json_scan.h) that ends in the same place.
 *
 * Decoding: the stop chunk is emitted at message_stop with message_start's
 * usage overridden by every count message_delta gives. Server-side tools
 * (server_tool_use, mcp_tool_use) are never client tool calls: their
 * *_tool_result blocks become provider-executed tool_result chunks. An `error`
 * event is returned as a classified error (overloaded_error and api_error are
 * retryable). Content already inside message_start is folded in, and a
 * message_start after message_stop (recordings holding several messages)
 * continues the stream with the next message.
 *
 *  - Stop reasons: refusal (safety classifiers, with stop_details in
 *    message_delta) is content_filter; model_context_window_exceeded is
 *    length. The text between tool calls that Opus/Sonnet 5.5 and Fable return
 *    as thinking blocks (empty at the default display) decodes as reasoning,
 *    signature kept, and is replayed unchanged as the API requires.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../common/json_scan.h"

/* A content-block index past this is treated as garbage, not as a size to allocate. */
#define MAX_BLOCK_INDEX 4096

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ==== decode ================================================================== */

typedef enum block_kind {
    BLOCK_NONE = 0,
    BLOCK_TEXT,
    BLOCK_THINKING,
    BLOCK_REDACTED,
    BLOCK_TOOL_USE,
    BLOCK_JSON_ANSWER,   /* the forced "json" tool: its input is the answer text */
    BLOCK_SERVER_TOOL,   /* server_tool_use / mcp_tool_use: run by Anthropic */
    BLOCK_SERVER_RESULT, /* *_tool_result of a server tool */
    BLOCK_IGNORED        /* a block type this codec does not know */
} block_kind;

typedef struct block {
    block_kind kind;
    int open;
    char *id;
    char *name;
    char *type;      /* the wire type of a server result block */
    strbuf text;       /* tool input fragments; the signature of a thinking block */
    char *result_json;
    int is_error;
} block;

typedef struct decoder {
    int json_tool; /* the request's JSON answer travels as the "json" tool */
    unsigned n_ids;
    block *blocks;
    size_t n_blocks;
    seam_usage usage;
    seam_stop_reason stop_reason;
    int stopped;
    char response_id[128]; /* message.id, carried on the stop chunk */
    jscan_buf scan; /* the fast path's decoded strings, reused per event */
} decoder;

static void block_clear(block *b)
{
    free(b->id);
    free(b->name);
    free(b->type);
    free(b->result_json);
    sb_free(&b->text);
    memset(b, 0, sizeof *b);
}

void anthropic_decoder_free(void *d)
{
    decoder *dec = d;
    if (!dec)
        return;
    for (size_t i = 0; i < dec->n_blocks; i++)
        block_clear(&dec->blocks[i]);
    free(dec->blocks);
    jscan_buf_free(&dec->scan);
    free(dec);
}

static int json_tool_mode(anthropic *a, const seam_request *req)
{
    const char *fmt_name = NULL, *schema = NULL;
    int strict = 0;
    if (!req || seam_request_response_format(req, &fmt_name, &schema, &strict) != SEAM_FORMAT_JSON)
        return 0;
    plan p;
    seam_error ignored;
    seam_error_clear(&ignored);
    if (anthropic_make_plan(a, req, &p, &ignored) != SEAM_OK)
        return 0;
    int tool = p.json_tool;
    anthropic_plan_free(&p);
    return tool;
}

void *anthropic_decoder_new(void *instance, const seam_request *req)
{
    decoder *dec = calloc(1, sizeof *dec);
    if (!dec)
        return NULL;
    dec->json_tool = instance ? json_tool_mode(instance, req) : 0;
    return dec;
}

/* end_turn, stop_sequence, pause_turn and anything newer end the turn;
 * max_tokens and model_context_window_exceeded cut it; tool_use; refusal
 * filters it: the SDK's table of the common wires (<seam/codec.h>). */
#define map_stop_reason seam_stop_reason_from_wire

/* Folds a usage object in: every count present (and not null) overrides. */
static void read_usage(seam_usage *u, json_object *usage)
{
    static const struct {
        const char *key;
        uint32_t bit;
    } fields[] = {
        { "input_tokens", SEAM_USAGE_INPUT },
        { "output_tokens", SEAM_USAGE_OUTPUT },
        { "cache_read_input_tokens", SEAM_USAGE_CACHE_READ },
        { "cache_creation_input_tokens", SEAM_USAGE_CACHE_WRITE },
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        json_object *v = member(usage, fields[i].key, json_type_int);
        if (!v)
            continue;
        int64_t n = json_object_get_int64(v);
        u->present |= fields[i].bit;
        switch (fields[i].bit) {
        case SEAM_USAGE_INPUT: u->input_tokens = n; break;
        case SEAM_USAGE_OUTPUT: u->output_tokens = n; break;
        case SEAM_USAGE_CACHE_READ: u->cache_read_tokens = n; break;
        default: u->cache_write_tokens = n; break;
        }
    }
}

/* The block at content index i, growing the table as blocks appear. */
static block *block_at(decoder *dec, int64_t i, seam_error *err, int *rc)
{
    if (i < 0 || i >= MAX_BLOCK_INDEX) {
        *rc = seam_error_set(err, SEAM_ERROR_TRANSPORT,
                             "anthropic: content block index %lld out of range", (long long)i);
        return NULL;
    }
    if ((size_t)i >= dec->n_blocks) {
        size_t n = (size_t)i + 1;
        block *nb = realloc(dec->blocks, n * sizeof *nb);
        if (!nb) {
            *rc = nomem(err);
            return NULL;
        }
        memset(nb + dec->n_blocks, 0, (n - dec->n_blocks) * sizeof *nb);
        dec->blocks = nb;
        dec->n_blocks = n;
    }
    return &dec->blocks[i];
}

static int emit(seam_emitter *em, const seam_chunk *c)
{
    return seam_emit(em, c);
}

static int emit_text(seam_emitter *em, const char *text)
{
    if (!text || !*text)
        return SEAM_OK;
    seam_chunk c = { .type = SEAM_CHUNK_TEXT_DELTA, .text = text };
    return emit(em, &c);
}

/* The name of the server tool whose call has this id (for its result). */
static const char *server_tool_name(decoder *dec, const char *id)
{
    for (size_t i = 0; id && i < dec->n_blocks; i++)
        if (dec->blocks[i].kind == BLOCK_SERVER_TOOL && str_eq(dec->blocks[i].id, id))
            return dec->blocks[i].name;
    return NULL;
}

static int is_server_result_type(const char *type)
{
    return type && strcmp(type, "tool_result") && ends_with(type, "_tool_result");
}

/* content_block_start (and, for a whole response, each content block). */
static int block_start(decoder *dec, block *b, json_object *cb, seam_emitter *em,
                       seam_error *err)
{
    const char *type = jstr(cb, "type");
    int rc = SEAM_OK;
    /* Reasoning blocks have no id on the wire: number them per decoder, so
     * that ids stay unique even across the messages of one stream. */
    char idbuf[32];
    snprintf(idbuf, sizeof idbuf, "rs_%u", ++dec->n_ids);
    block_clear(b);
    b->open = 1;
    if (str_eq(type, "text")) {
        b->kind = BLOCK_TEXT;
        return emit_text(em, jstr(cb, "text"));
    }
    if (str_eq(type, "thinking") || str_eq(type, "redacted_thinking")) {
        int redacted = str_eq(type, "redacted_thinking");
        b->kind = redacted ? BLOCK_REDACTED : BLOCK_THINKING;
        b->id = xstrdup(idbuf);
        if (!b->id)
            return nomem(err);
        seam_chunk c = { .type = SEAM_CHUNK_REASONING_START, .id = b->id };
        if ((rc = emit(em, &c)) != SEAM_OK)
            return rc;
        /* Redacted data is the part's (opaque) text; a thinking block that
         * arrives whole (a whole response) carries its text and signature. */
        const char *text = jstr(cb, redacted ? "data" : "thinking");
        if (text && *text) {
            seam_chunk d = { .type = SEAM_CHUNK_REASONING_DELTA, .id = b->id, .text = text };
            if ((rc = emit(em, &d)) != SEAM_OK)
                return rc;
        }
        const char *sig = jstr(cb, "signature");
        if (sig && sb_puts(&b->text, sig) != SEAM_OK)
            return nomem(err);
        return SEAM_OK;
    }
    if (str_eq(type, "tool_use") || str_eq(type, "server_tool_use") ||
        str_eq(type, "mcp_tool_use")) {
        const char *id = jstr(cb, "id"), *name = jstr(cb, "name");
        b->id = xstrdup(id ? id : idbuf);
        b->name = xstrdup(name ? name : "");
        if (!b->id || !b->name)
            return nomem(err);
        /* A whole response carries the input; a stream starts it as {} and
         * sends input_json_delta fragments. */
        json_object *input = member(cb, "input", json_type_object);
        if (input && json_object_object_length(input) > 0 &&
            sb_puts(&b->text, json_text(input)) != SEAM_OK)
            return nomem(err);
        if (!str_eq(type, "tool_use")) {
            b->kind = BLOCK_SERVER_TOOL;
            return SEAM_OK;
        }
        if (dec->json_tool && str_eq(name, JSON_TOOL_NAME)) {
            /* Emitted whole at the block's end, normalized, so that a stream
             * and a whole response give the same text. */
            b->kind = BLOCK_JSON_ANSWER;
            return SEAM_OK;
        }
        b->kind = BLOCK_TOOL_USE;
        seam_chunk c = { .type = SEAM_CHUNK_TOOL_CALL_START, .id = b->id, .name = b->name };
        if ((rc = emit(em, &c)) != SEAM_OK)
            return rc;
        if (b->text.len) {
            seam_chunk d = { .type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = b->id, .text = b->text.data };
            rc = emit(em, &d);
        }
        return rc;
    }
    if (is_server_result_type(type)) {
        b->kind = BLOCK_SERVER_RESULT;
        const char *id = jstr(cb, "tool_use_id");
        json_object *content = member(cb, "content", json_type_null);
        const char *name = server_tool_name(dec, id);
        char derived[128];
        if (!name) {
            /* web_search_tool_result -> web_search */
            size_t n = strlen(type) - strlen("_tool_result");
            if (n >= sizeof derived)
                n = sizeof derived - 1;
            memcpy(derived, type, n);
            derived[n] = '\0';
            name = derived;
        }
        b->id = xstrdup(id ? id : idbuf);
        b->name = xstrdup(name);
        b->type = xstrdup(type);
        b->result_json = xstrdup(content ? json_text(content) : "null");
        if (!b->id || !b->name || !b->type || !b->result_json)
            return nomem(err);
        json_object *is_err = member(cb, "is_error", json_type_boolean);
        const char *ctype = jstr(content, "type");
        b->is_error = (is_err && json_object_get_boolean(is_err)) ||
                      (ctype && ends_with(ctype, "_error"));
        return SEAM_OK;
    }
    b->kind = BLOCK_IGNORED;
    return SEAM_OK;
}

/* The members of a delta that matter, each NULL when absent or not a string:
 * the json-c path and the scanner both end here. */
typedef struct delta_fields {
    const char *type, *text, *thinking, *signature, *partial_json;
} delta_fields;

static int block_delta_fields(decoder *dec, block *b, const delta_fields *f, seam_emitter *em,
                              seam_error *err)
{
    (void)dec;
    const char *type = f->type;
    if (!b->open)
        return SEAM_OK;
    if (str_eq(type, "text_delta") && b->kind == BLOCK_TEXT)
        return emit_text(em, f->text);
    if (str_eq(type, "thinking_delta") && b->kind == BLOCK_THINKING) {
        const char *t = f->thinking;
        if (!t || !*t)
            return SEAM_OK;
        seam_chunk c = { .type = SEAM_CHUNK_REASONING_DELTA, .id = b->id, .text = t };
        return emit(em, &c);
    }
    if (str_eq(type, "signature_delta") && b->kind == BLOCK_THINKING) {
        /* The signature arrives whole, but appending is as cheap and also right
         * should it ever come in pieces. */
        if (sb_puts(&b->text, f->signature) != SEAM_OK)
            return nomem(err);
        return SEAM_OK;
    }
    if (str_eq(type, "input_json_delta")) {
        const char *frag = f->partial_json;
        if (!frag || !*frag)
            return SEAM_OK;
        if (b->kind == BLOCK_TOOL_USE || b->kind == BLOCK_SERVER_TOOL ||
            b->kind == BLOCK_JSON_ANSWER) {
            if (sb_puts(&b->text, frag) != SEAM_OK)
                return nomem(err);
        }
        if (b->kind == BLOCK_TOOL_USE) {
            seam_chunk c = { .type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = b->id, .text = frag };
            return emit(em, &c);
        }
    }
    /* citations_delta and unknown deltas carry nothing the seam types hold. */
    return SEAM_OK;
}

static int block_delta(decoder *dec, block *b, json_object *delta, seam_emitter *em,
                       seam_error *err)
{
    delta_fields f = { jstr(delta, "type"), jstr(delta, "text"), jstr(delta, "thinking"),
                       jstr(delta, "signature"), jstr(delta, "partial_json") };
    return block_delta_fields(dec, b, &f, em, err);
}

static int block_stop(decoder *dec, block *b, seam_emitter *em, seam_error *err)
{
    (void)dec;
    if (!b->open)
        return SEAM_OK;
    b->open = 0;
    switch (b->kind) {
    case BLOCK_THINKING:
    case BLOCK_REDACTED: {
        seam_chunk c = { .type = SEAM_CHUNK_REASONING_END,
                         .id = b->id,
                         .signature = b->text.len ? b->text.data : NULL,
                         .redacted = b->kind == BLOCK_REDACTED };
        return emit(em, &c);
    }
    case BLOCK_TOOL_USE: {
        /* Parsed once, at the end; an empty input means {}. Text that is not
         * an object goes to the accumulator as is, which keeps the call with {}
         * and records the error. */
        const char *args = "{}";
        json_object *parsed = NULL;
        if (b->text.len) {
            parsed = json_parse_strict(b->text.data, b->text.len);
            args = parsed && json_object_is_type(parsed, json_type_object) ? json_text(parsed)
                                                                          : b->text.data;
        }
        seam_chunk c = { .type = SEAM_CHUNK_TOOL_CALL_END,
                         .id = b->id,
                         .name = b->name,
                         .args_json = args };
        int rc = emit(em, &c);
        json_object_put(parsed);
        return rc;
    }
    case BLOCK_JSON_ANSWER: {
        json_object *parsed = b->text.len ? json_parse_strict(b->text.data, b->text.len) : NULL;
        int rc = emit_text(em, parsed ? json_text(parsed) : b->text.len ? b->text.data : "{}");
        json_object_put(parsed);
        return rc;
    }
    case BLOCK_SERVER_RESULT: {
        seam_chunk c = { .type = SEAM_CHUNK_TOOL_RESULT,
                         .id = b->id,
                         .name = b->name,
                         .result_json = b->result_json,
                         .is_error = b->is_error };
        return emit(em, &c);
    }
    default:
        break;
    }
    (void)err;
    return SEAM_OK;
}

static int emit_stop(decoder *dec, seam_emitter *em)
{
    seam_chunk c = { .type = SEAM_CHUNK_STOP, .usage = dec->usage };
    if (dec->response_id[0])
        c.id = dec->response_id;
    c.stop_reason = dec->stop_reason != SEAM_STOP_NONE ? dec->stop_reason : SEAM_STOP_STOP;
    /* The JSON answer was a forced tool call, but to the caller it is the answer. */
    if (dec->json_tool && c.stop_reason == SEAM_STOP_TOOL_USE)
        c.stop_reason = SEAM_STOP_STOP;
    dec->stopped = 1;
    return emit(em, &c);
}

/* Blocks that arrive whole (a non-streamed body, or content already present
 * in message_start): each is started and stopped at once, at its index. */
static int fold_whole_blocks(decoder *dec, json_object *content, seam_emitter *out,
                             seam_error *err)
{
    size_t n = content ? json_object_array_length(content) : 0;
    int rc = SEAM_OK;
    for (size_t i = 0; i < n && rc == SEAM_OK; i++) {
        block *b = block_at(dec, (int64_t)i, err, &rc);
        if (!b)
            break;
        rc = block_start(dec, b, json_object_array_get_idx(content, i), out, err);
        if (rc == SEAM_OK)
            rc = block_stop(dec, b, out, err);
    }
    return rc;
}

/* message_start: usage so far, and whatever content and stop reason the
 * message already holds. A message_start after message_stop (recordings that
 * hold several messages back to back) opens the next message of the stream. */
static void note_id(decoder *dec, seam_emitter *out, json_object *msg)
{
    const char *id = jstr(msg, "id");
    dec->response_id[0] = '\0';
    if (id && strlen(id) < sizeof dec->response_id) {
        memcpy(dec->response_id, id, strlen(id) + 1);
        seam_emit_response_id(out, id);
    }
}

static int message_start(decoder *dec, json_object *msg, seam_emitter *out, seam_error *err)
{
    if (dec->stopped) {
        for (size_t i = 0; i < dec->n_blocks; i++)
            block_clear(&dec->blocks[i]);
        dec->stopped = 0;
        dec->stop_reason = SEAM_STOP_NONE;
    }
    note_id(dec, out, msg);
    read_usage(&dec->usage, member(msg, "usage", json_type_object));
    const char *reason = jstr(msg, "stop_reason");
    if (reason)
        dec->stop_reason = map_stop_reason(reason);
    return fold_whole_blocks(dec, member(msg, "content", json_type_array), out, err);
}

static int decode_error_event(json_object *ev, seam_error *err)
{
    json_object *eobj = member(ev, "error", json_type_object);
    if (err) {
        err->kind = SEAM_ERROR_NONE;
        anthropic_classify_error_object(eobj, 0, err);
        if (!eobj)
            snprintf(err->message, sizeof err->message, "anthropic: error event without detail");
    }
    return SEAM_ERR_PROVIDER;
}

/* ---- the fast path ---------------------------------------------------------
 *
 * Nearly every event of a long stream is a content_block_delta (text, thinking
 * or a tool's input JSON). Those are scanned in place (json_scan.h) and handed
 * to block_delta_fields, as the json-c path would. Any other event, or one the
 * scanner is unsure of, goes the json-c way before anything is emitted. */
static int scan_delta(jscan *s, delta_fields *f)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        const char **dst = NULL;
        int bit = 0;
        if (JSCAN_KEY(k, kl, "type"))
            dst = &f->type, bit = 1;
        else if (JSCAN_KEY(k, kl, "text"))
            dst = &f->text, bit = 2;
        else if (JSCAN_KEY(k, kl, "thinking"))
            dst = &f->thinking, bit = 4;
        else if (JSCAN_KEY(k, kl, "signature"))
            dst = &f->signature, bit = 8;
        else if (JSCAN_KEY(k, kl, "partial_json"))
            dst = &f->partial_json, bit = 16;
        if (bit & seen)
            return 0;
        seen |= bit;
        if (!(dst ? jscan_string_or_null(s, dst) : jscan_skip(s)))
            return 0;
    }
    return r == 0;
}

/* 1 when the event was a content_block_delta decoded here (*rc its status),
 * 0 when it must take the json-c path. */
static int scan_event(decoder *dec, const seam_frame *frame, seam_emitter *out, seam_error *err,
                      int *rc)
{
    jscan s;
    if (dec->stopped || !jscan_begin(&s, &dec->scan, frame->data, frame->data_len) ||
        !jscan_object(&s))
        return 0;
    delta_fields f = { 0 };
    const char *type = NULL, *k;
    size_t kl;
    int64_t index = 0;
    int r, seen = 0, have_delta = 0;
    while ((r = jscan_member(&s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "type")    ? 1
                  : JSCAN_KEY(k, kl, "index") ? 2
                  : JSCAN_KEY(k, kl, "delta") ? 4
                                                 : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        int ok;
        if (bit == 1)
            ok = jscan_string(&s, &type) && strcmp(type, "content_block_delta") == 0;
        else if (bit == 2)
            /* a negative or huge index is json-c's (and block_at's) to refuse */
            ok = jscan_int(&s, &index) && index >= 0 && index < MAX_BLOCK_INDEX;
        else if (bit == 4)
            ok = have_delta = scan_delta(&s, &f);
        else
            ok = jscan_skip(&s);
        if (!ok)
            return 0;
    }
    if (r != 0 || !type || !have_delta || !jscan_end(&s))
        return 0;
    *rc = SEAM_OK;
    block *b = block_at(dec, index, err, rc);
    if (b)
        *rc = block_delta_fields(dec, b, &f, out, err);
    return 1;
}

int anthropic_decode_event(void *d, const seam_frame *frame, seam_emitter *out, seam_error *err)
{
    decoder *dec = d;
    if (!frame || !frame->data)
        return SEAM_OK;
    int rc_fast;
    if (scan_event(dec, frame, out, err, &rc_fast))
        return rc_fast;
    json_object *ev = json_parse_strict(frame->data, frame->data_len);
    if (!ev || !json_object_is_type(ev, json_type_object)) {
        json_object_put(ev);
        if (frame->data_len == 0)
            return SEAM_OK;
        return codec_protocol_error(err, "anthropic: a stream event is not a JSON object");
    }
    const char *type = jstr(ev, "type");
    if (!type)
        type = frame->event;
    int rc = SEAM_OK;
    if (!type || (dec->stopped && strcmp(type, "message_start"))) {
        /* nothing to do: a typeless event, or data after message_stop */
    } else if (!strcmp(type, "message_start")) {
        rc = message_start(dec, member(ev, "message", json_type_object), out, err);
    } else if (!strcmp(type, "content_block_start") || !strcmp(type, "content_block_delta") ||
               !strcmp(type, "content_block_stop")) {
        json_object *index = member(ev, "index", json_type_int);
        block *b = block_at(dec, index ? json_object_get_int64(index) : 0, err, &rc);
        if (b) {
            if (!strcmp(type, "content_block_start"))
                rc = block_start(dec, b, member(ev, "content_block", json_type_object), out, err);
            else if (!strcmp(type, "content_block_delta"))
                rc = block_delta(dec, b, member(ev, "delta", json_type_object), out, err);
            else
                rc = block_stop(dec, b, out, err);
        }
    } else if (!strcmp(type, "message_delta")) {
        json_object *delta = member(ev, "delta", json_type_object);
        const char *reason = jstr(delta, "stop_reason");
        if (reason)
            dec->stop_reason = map_stop_reason(reason);
        read_usage(&dec->usage, member(ev, "usage", json_type_object));
    } else if (!strcmp(type, "message_stop")) {
        /* The stop reason comes in message_delta (or message_start): a
         * message_stop without it ends an answer cut short upstream. */
        if (dec->stop_reason == SEAM_STOP_NONE)
            rc = codec_protocol_error(err, "anthropic: message_stop before a stop_reason: "
                                           "the response is incomplete");
        else
            rc = emit_stop(dec, out);
    } else if (!strcmp(type, "error")) {
        rc = decode_error_event(ev, err);
    }
    /* ping and event types added later carry nothing to fold. */
    json_object_put(ev);
    return rc;
}

/* A body that ended cleanly without message_stop: complete when message_delta
 * already gave the stop reason (nothing but message_stop can follow it). */
int anthropic_decode_finish(void *d, seam_emitter *out, seam_error *err)
{
    decoder *dec = d;
    (void)err;
    if (dec->stopped || dec->stop_reason == SEAM_STOP_NONE)
        return SEAM_OK;
    return emit_stop(dec, out);
}

int anthropic_decode_response(void *instance, const seam_request *req, const char *body,
                           size_t len, seam_emitter *out, seam_error *err)
{
    json_object *msg = json_parse_strict(body, len);
    if (!msg || !json_object_is_type(msg, json_type_object)) {
        json_object_put(msg);
        return seam_error_set(err, SEAM_ERROR_TRANSPORT,
                              "anthropic: the response is not a JSON object");
    }
    if (str_eq(jstr(msg, "type"), "error")) {
        int rc = decode_error_event(msg, err);
        json_object_put(msg);
        return rc;
    }
    decoder *dec = anthropic_decoder_new(instance, req);
    if (!dec) {
        json_object_put(msg);
        return nomem(err);
    }
    note_id(dec, out, msg);
    read_usage(&dec->usage, member(msg, "usage", json_type_object));
    int rc = fold_whole_blocks(dec, member(msg, "content", json_type_array), out, err);
    if (rc == SEAM_OK) {
        dec->stop_reason = map_stop_reason(jstr(msg, "stop_reason"));
        rc = emit_stop(dec, out);
    }
    anthropic_decoder_free(dec);
    json_object_put(msg);
    return rc;
}
