/* sse.c — seam's chunks written as each wire's server-sent events:
 * OpenAI `chat.completion.chunk` data lines ending with `data: [DONE]`, and
 * Anthropic's message_start / content_block_* / message_delta / message_stop
 * events. One place per wire knows the order its SDKs expect (an Anthropic
 * block is opened before its deltas and closed before the next one opens;
 * an OpenAI tool call is announced once with its index, then only the
 * argument fragments follow). */
#include "config.h"

#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *answer_model(serve_call *c, char *buf, size_t n)
{
    if (c->answered_provider[0])
        snprintf(buf, n, "%s/%s", c->answered_provider, c->answered_model);
    else
        snprintf(buf, n, "%s", c->model ? c->model : "");
    return buf;
}

/* ---- OpenAI chat completions ---------------------------------------------- */

static void oa_open(serve_call *c, sbuf *out)
{
    char model[256];
    sb_puts(out, "data: {\"id\":");
    sb_json_str(out, c->id);
    sb_printf(out, ",\"object\":\"chat.completion.chunk\",\"created\":%lld,\"model\":",
              (long long)c->created);
    sb_json_str(out, answer_model(c, model, sizeof model));
    sb_puts(out, ",\"choices\":[{\"index\":0,\"delta\":{");
    if (!c->ws.started) {
        sb_puts(out, "\"role\":\"assistant\",");
        c->ws.started = 1;
    }
}

static void oa_close(sbuf *out, const char *finish)
{
    sb_puts(out, "},\"logprobs\":null,\"finish_reason\":");
    sb_json_str(out, finish);
    sb_puts(out, "}]}\n\n");
}

static void oa_args(serve_call *c, sbuf *out, const char *frag)
{
    oa_open(c, out);
    sb_printf(out, "\"tool_calls\":[{\"index\":%d,\"function\":{\"arguments\":", c->ws.ntools - 1);
    sb_json_str(out, frag);
    sb_puts(out, "}}]");
    oa_close(out, NULL);
}

static void openai_chunk(serve_call *c, const seam_chunk *ch, sbuf *out)
{
    wire_state *ws = &c->ws;
    switch (ch->type) {
    case SEAM_CHUNK_TEXT_DELTA:
        oa_open(c, out);
        sb_puts(out, "\"content\":");
        sb_json_str(out, ch->text);
        oa_close(out, NULL);
        break;
    case SEAM_CHUNK_REASONING_DELTA:
        oa_open(c, out);
        sb_puts(out, "\"reasoning_content\":");
        sb_json_str(out, ch->text);
        oa_close(out, NULL);
        break;
    case SEAM_CHUNK_TOOL_CALL_START:
        ws->ntools++;
        ws->tool_had_delta = 0;
        oa_open(c, out);
        sb_printf(out, "\"tool_calls\":[{\"index\":%d,\"id\":", ws->ntools - 1);
        sb_json_str(out, ch->id);
        sb_puts(out, ",\"type\":\"function\",\"function\":{\"name\":");
        sb_json_str(out, ch->name);
        sb_puts(out, ",\"arguments\":\"\"}}]");
        oa_close(out, NULL);
        break;
    case SEAM_CHUNK_TOOL_CALL_DELTA:
        if (ws->ntools && ch->text && *ch->text) {
            ws->tool_had_delta = 1;
            oa_args(c, out, ch->text);
        }
        break;
    case SEAM_CHUNK_TOOL_CALL_END:
        /* a provider that gives the arguments whole at the end */
        if (ws->ntools && !ws->tool_had_delta && ch->args_json)
            oa_args(c, out, ch->args_json);
        break;
    case SEAM_CHUNK_STOP:
        oa_open(c, out);
        if (out->len && out->p[out->len - 1] == ',')
            out->len--;
        oa_close(out, chat_finish_reason(ch->stop_reason));
        break;
    default:
        break;
    }
}

static void openai_end(serve_call *c, const seam_result *res, sbuf *out)
{
    if (c->include_usage) {
        char model[256];
        sb_puts(out, "data: {\"id\":");
        sb_json_str(out, c->id);
        sb_printf(out, ",\"object\":\"chat.completion.chunk\",\"created\":%lld,\"model\":",
                  (long long)c->created);
        sb_json_str(out, answer_model(c, model, sizeof model));
        sb_puts(out, ",\"choices\":[],\"usage\":");
        chat_usage(seam_result_usage(res), out);
        sb_puts(out, "}\n\n");
    }
    sb_puts(out, "data: [DONE]\n\n");
}

/* ---- Anthropic Messages ---------------------------------------------------- */

static void an_event(sbuf *out, const char *type)
{
    sb_printf(out, "event: %s\ndata: {\"type\":\"%s\"", type, type);
}

static void an_start(serve_call *c, sbuf *out)
{
    if (c->ws.started)
        return;
    char model[256];
    c->ws.started = 1;
    an_event(out, "message_start");
    sb_puts(out, ",\"message\":{\"id\":");
    sb_json_str(out, c->id);
    sb_puts(out, ",\"type\":\"message\",\"role\":\"assistant\",\"model\":");
    sb_json_str(out, answer_model(c, model, sizeof model));
    sb_puts(out, ",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,"
                 "\"usage\":{\"input_tokens\":0,\"output_tokens\":0}}}\n\n");
}

static void an_block_stop(serve_call *c, sbuf *out)
{
    wire_state *ws = &c->ws;
    if (!ws->block_open)
        return;
    an_event(out, "content_block_stop");
    sb_printf(out, ",\"index\":%d}\n\n", ws->block_index);
    ws->block_open = 0;
    ws->block_index++;
}

static void an_block_start(serve_call *c, sbuf *out, int kind, const seam_chunk *ch)
{
    wire_state *ws = &c->ws;
    an_block_stop(c, out);
    ws->block_open = 1;
    ws->block_kind = kind;
    ws->block_had_delta = 0;
    an_event(out, "content_block_start");
    sb_printf(out, ",\"index\":%d,\"content_block\":", ws->block_index);
    if (kind == SEAM_PART_TEXT) {
        sb_puts(out, "{\"type\":\"text\",\"text\":\"\"}");
    } else if (kind == SEAM_PART_REASONING) {
        sb_puts(out, "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}");
    } else {
        sb_puts(out, "{\"type\":\"tool_use\",\"id\":");
        sb_json_str(out, ch->id);
        sb_puts(out, ",\"name\":");
        sb_json_str(out, ch->name);
        sb_puts(out, ",\"input\":{}}");
    }
    sb_puts(out, "}\n\n");
}

static void an_delta(serve_call *c, sbuf *out, const char *type, const char *field,
                     const char *text)
{
    an_event(out, "content_block_delta");
    sb_printf(out, ",\"index\":%d,\"delta\":{\"type\":\"%s\",\"%s\":", c->ws.block_index, type,
              field);
    sb_json_str(out, text);
    sb_puts(out, "}}\n\n");
}

static void anthropic_chunk(serve_call *c, const seam_chunk *ch, sbuf *out)
{
    wire_state *ws = &c->ws;
    an_start(c, out);
    switch (ch->type) {
    case SEAM_CHUNK_TEXT_DELTA:
        if (!ws->block_open || ws->block_kind != SEAM_PART_TEXT)
            an_block_start(c, out, SEAM_PART_TEXT, ch);
        an_delta(c, out, "text_delta", "text", ch->text);
        break;
    case SEAM_CHUNK_REASONING_START:
        an_block_start(c, out, SEAM_PART_REASONING, ch);
        break;
    case SEAM_CHUNK_REASONING_DELTA:
        if (!ws->block_open || ws->block_kind != SEAM_PART_REASONING)
            an_block_start(c, out, SEAM_PART_REASONING, ch);
        an_delta(c, out, "thinking_delta", "thinking", ch->text);
        break;
    case SEAM_CHUNK_REASONING_END:
        if (ws->block_open && ws->block_kind == SEAM_PART_REASONING) {
            if (ch->signature && *ch->signature)
                an_delta(c, out, "signature_delta", "signature", ch->signature);
            an_block_stop(c, out);
        }
        break;
    case SEAM_CHUNK_TOOL_CALL_START:
        an_block_start(c, out, SEAM_PART_TOOL_CALL, ch);
        break;
    case SEAM_CHUNK_TOOL_CALL_DELTA:
        if (ws->block_open && ws->block_kind == SEAM_PART_TOOL_CALL && ch->text && *ch->text) {
            ws->block_had_delta = 1;
            an_delta(c, out, "input_json_delta", "partial_json", ch->text);
        }
        break;
    case SEAM_CHUNK_TOOL_CALL_END:
        if (ws->block_open && ws->block_kind == SEAM_PART_TOOL_CALL) {
            if (!ws->block_had_delta && ch->args_json)
                an_delta(c, out, "input_json_delta", "partial_json", ch->args_json);
            an_block_stop(c, out);
        }
        break;
    case SEAM_CHUNK_STOP:
        an_block_stop(c, out);
        break;
    default:
        break;
    }
}

static void anthropic_end(serve_call *c, const seam_result *res, sbuf *out)
{
    an_start(c, out);
    an_block_stop(c, out);
    an_event(out, "message_delta");
    sb_puts(out, ",\"delta\":{\"stop_reason\":");
    sb_json_str(out, messages_stop_reason(seam_result_stop_reason(res)));
    sb_puts(out, ",\"stop_sequence\":null},\"usage\":");
    messages_usage(seam_result_usage(res), out);
    sb_puts(out, "}\n\n");
    an_event(out, "message_stop");
    sb_puts(out, "}\n\n");
}

/* ---- per wire -------------------------------------------------------------- */

void sse_chunk(serve_call *c, const seam_chunk *ch, sbuf *out)
{
    switch (c->wire) {
    case WIRE_ANTHROPIC: anthropic_chunk(c, ch, out); break;
    case WIRE_RESPONSES: responses_sse_chunk(c, ch, out); break;
    default: openai_chunk(c, ch, out); break;
    }
}

void sse_end(serve_call *c, const seam_result *res, sbuf *out)
{
    switch (c->wire) {
    case WIRE_ANTHROPIC: anthropic_end(c, res, out); break;
    case WIRE_RESPONSES: responses_sse_end(c, res, out); break;
    default: openai_end(c, res, out); break;
    }
}

void sse_error(serve_call *c, const serve_err *e, sbuf *out)
{
    serve_err_event(c->wire, e, out);
}

void sse_state_free(wire_state *ws)
{
    sb_free(&ws->acc);
}
