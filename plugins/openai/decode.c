/* decode.c — the openai plugin's Chat Completions decoder: SSE
 * `chat.completion.chunk` events (and a whole non-streamed body) -> seam
 * chunks: text deltas, the reasoning channel (reasoning_content, reasoning,
 * content parts, <think> tags in content), tool calls assembled by index,
 * finish reasons, usage normalized net of cache. Plain delta events, and whole
 * responses of the usual shape, take the fast path in decode_scan.c first.
 *
 * Decoding does not depend on the profile: every variant seen on this wire is
 * understood from every server. The one exception is <think> tags in content
 * (options.think_tags), which could be an answer's own text.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ==== small helpers (the shared ones are in ../common/codec_util.c) ==== */

int64_t oa_clamp_count(int64_t n)
{
    return n < 0 ? 0 : n > OA_MAX_TOKENS ? OA_MAX_TOKENS : n;
}

int oa_jcount(json_object *obj, const char *key, int64_t *out)
{
    if (!jint(obj, key, out))
        return 0;
    *out = oa_clamp_count(*out);
    return 1;
}

void *oa_chat_decoder_new(const oa_instance *in)
{
    oa_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->wire = OA_WIRE_CHAT;
    d->in = in;
    d->think_on = d->in && d->in->think_tags > 0;
    return d;
}

/* The tokener is made on first use: a response or stream the scanner
 * (decode_scan.c) decodes whole never needs one. NULL when out of memory. */
static json_tokener *chat_tok(oa_decoder *d)
{
    if (!d->tok)
        d->tok = json_tokener_new();
    return d->tok;
}

void oa_chat_decoder_free(oa_decoder *d)
{
    if (!d)
        return;
    seam_toolcalls_free(d->tools);
    if (d->tok) /* json-c 0.16 dereferences a NULL tokener */
        json_tokener_free(d->tok);
    sb_free(&d->think_hold);
    sb_free(&d->scratch);
    jscan_buf_free(&d->scan);
    free(d);
}

static int emit(seam_emitter *em, const seam_chunk *c)
{
    return seam_emit(em, c);
}

static int close_reasoning(oa_decoder *d, seam_emitter *em)
{
    if (!d->reasoning_open)
        return SEAM_OK;
    d->reasoning_open = 0;
    seam_chunk c = {.type = SEAM_CHUNK_REASONING_END, .id = d->reasoning_id};
    return emit(em, &c);
}

int oa_chat_on_reasoning(oa_decoder *d, seam_emitter *em, const char *text)
{
    if (!text || !*text)
        return SEAM_OK;
    int rc;
    if (!d->reasoning_open) {
        snprintf(d->reasoning_id, sizeof d->reasoning_id, "reasoning_%u", d->reasoning_seq++);
        d->reasoning_open = 1;
        seam_chunk s = {.type = SEAM_CHUNK_REASONING_START, .id = d->reasoning_id};
        if ((rc = emit(em, &s)) != SEAM_OK)
            return rc;
    }
    seam_chunk c = {.type = SEAM_CHUNK_REASONING_DELTA, .id = d->reasoning_id, .text = text};
    return emit(em, &c);
}

static int on_text(oa_decoder *d, seam_emitter *em, const char *text)
{
    if (!text || !*text)
        return SEAM_OK;
    int rc = close_reasoning(d, em);
    if (rc != SEAM_OK)
        return rc;
    seam_chunk c = {.type = SEAM_CHUNK_TEXT_DELTA, .text = text};
    return emit(em, &c);
}

/* ---- <think> tags in content ------------------------------------------------
 *
 * A server that runs a reasoning model without a reasoning parser (Ollama with
 * older deepseek-r1/qwq builds, vLLM without --reasoning-parser, llama.cpp's
 * server, Groq's reasoning_format "raw") sends the model's thoughts in
 * delta.content as "<think>...</think>" before the answer. With think_tags on,
 * a <think> that opens the content (whitespace before it allowed) starts the
 * reasoning channel; </think> ends it, and the whitespace after it is dropped.
 * A "<think>" anywhere later is the answer's own text and is left alone.
 * Tags may be split across deltas at any byte, so the bytes that could be the
 * start of a tag are held back until the next delta decides; bytes that turn
 * out not to be a tag are released unchanged. The end of the content (finish,
 * [DONE], a tool call, a refusal) releases what is held, and an unterminated
 * <think> is closed as reasoning. Not handled: output whose <think> was part of
 * the prompt (only "</think>" appears), which cannot be told apart from an
 * answer until the end. */
enum {
    THINK_START = 0, /* nothing visible yet: a <think> may open the content */
    THINK_IN,        /* inside <think>: content is reasoning until </think> */
    THINK_AFTER,     /* just after </think>: whitespace is dropped */
    THINK_TEXT       /* the answer: content is text, no more tags looked for */
};

static const char think_open[] = "<think>";
static const char think_close[] = "</think>";
#define THINK_OPEN_LEN (sizeof think_open - 1)
#define THINK_CLOSE_LEN (sizeof think_close - 1)
/* Leading whitespace held while waiting for a <think>: past this, it is text. */
#define THINK_MAX_LEADING_SPACE 64

/* s[0..n) as a NUL-terminated string: s itself when it is terminated there,
 * else a copy in the decoder's scratch buffer. NULL when out of memory. */
static const char *terminated(oa_decoder *d, const char *s, size_t n)
{
    if (s[n] == '\0')
        return s;
    d->scratch.len = 0;
    if (sb_append(&d->scratch, s, n) != SEAM_OK)
        return NULL;
    return d->scratch.data;
}

static int text_n(oa_decoder *d, seam_emitter *em, const char *s, size_t n)
{
    if (n == 0)
        return SEAM_OK;
    const char *t = terminated(d, s, n);
    return t ? on_text(d, em, t) : SEAM_ERR_NOMEM;
}

static int reasoning_n(oa_decoder *d, seam_emitter *em, const char *s, size_t n)
{
    if (n == 0)
        return SEAM_OK;
    const char *t = terminated(d, s, n);
    return t ? oa_chat_on_reasoning(d, em, t) : SEAM_ERR_NOMEM;
}

/* Where tag (tlen bytes) starts in p[0..len), or NULL. */
static const char *find_tag(const char *p, size_t len, const char *tag, size_t tlen)
{
    const char *end = p + len;
    while (p && (size_t)(end - p) >= tlen) {
        if (memcmp(p, tag, tlen) == 0)
            return p;
        p = memchr(p + 1, tag[0], (size_t)(end - p - 1));
    }
    return NULL;
}

/* The length of the longest end of p[0..len) that is a proper beginning of tag. */
static size_t tag_prefix_at_end(const char *p, size_t len, const char *tag, size_t tlen)
{
    for (size_t k = tlen - 1 < len ? tlen - 1 : len; k > 0; k--)
        if (memcmp(p + len - k, tag, k) == 0)
            return k;
    return 0;
}

/* Runs content p[0..len) (the held bytes and the new delta) through the states. */
static int think_run(oa_decoder *d, seam_emitter *em, const char *p, size_t len)
{
    int rc;
    for (;;) {
        size_t space = 0;
        switch (d->think_state) {
        case THINK_START: {
            while (space < len && isspace((unsigned char)p[space]))
                space++;
            size_t rest = len - space;
            size_t cmp = rest < THINK_OPEN_LEN ? rest : THINK_OPEN_LEN;
            if ((rest > 0 && memcmp(p + space, think_open, cmp) != 0) ||
                (rest == 0 && space > THINK_MAX_LEADING_SPACE)) {
                d->think_state = THINK_TEXT; /* the answer starts without a <think> */
                return text_n(d, em, p, len);
            }
            if (rest < THINK_OPEN_LEN) /* whitespace, or the beginning of "<think>" */
                return sb_append(&d->think_hold, p, len);
            p += space + THINK_OPEN_LEN;
            len -= space + THINK_OPEN_LEN;
            d->think_state = THINK_IN;
            break;
        }
        case THINK_IN: {
            const char *close = find_tag(p, len, think_close, THINK_CLOSE_LEN);
            if (!close) {
                size_t keep = tag_prefix_at_end(p, len, think_close, THINK_CLOSE_LEN);
                if ((rc = reasoning_n(d, em, p, len - keep)) != SEAM_OK)
                    return rc;
                return sb_append(&d->think_hold, p + len - keep, keep);
            }
            if ((rc = reasoning_n(d, em, p, (size_t)(close - p))) != SEAM_OK ||
                (rc = close_reasoning(d, em)) != SEAM_OK)
                return rc;
            len -= (size_t)(close - p) + THINK_CLOSE_LEN;
            p = close + THINK_CLOSE_LEN;
            d->think_state = THINK_AFTER;
            break;
        }
        case THINK_AFTER:
            while (space < len && isspace((unsigned char)p[space]))
                space++;
            if (space == len)
                return SEAM_OK;
            d->think_state = THINK_TEXT;
            return text_n(d, em, p + space, len - space);
        default:
            return text_n(d, em, p, len);
        }
    }
}

/* One piece of the answer's content (a delta's string or a text part). */
int oa_chat_on_content_text(oa_decoder *d, seam_emitter *em, const char *text)
{
    if (!text || !*text)
        return SEAM_OK;
    if (!d->think_on || (d->think_state == THINK_TEXT && d->think_hold.len == 0))
        return on_text(d, em, text); /* the common case: no copy */
    size_t n = strlen(text);
    if (d->think_hold.len == 0)
        return think_run(d, em, text, n);
    strbuf joined = d->think_hold; /* the held bytes, then the new ones */
    memset(&d->think_hold, 0, sizeof d->think_hold);
    int rc = sb_append(&joined, text, n);
    if (rc == SEAM_OK)
        rc = think_run(d, em, joined.data, joined.len);
    sb_free(&joined);
    return rc;
}

/* The content is over (or something other than content comes): what is held
 * is released, an open <think> is closed; tags are no longer looked for. */
static int think_end(oa_decoder *d, seam_emitter *em)
{
    if (!d->think_on || d->think_state == THINK_TEXT)
        return SEAM_OK;
    int state = d->think_state;
    strbuf held = d->think_hold;
    memset(&d->think_hold, 0, sizeof d->think_hold);
    d->think_state = THINK_TEXT;
    int rc = SEAM_OK;
    if (state == THINK_START) {
        rc = text_n(d, em, held.data, held.len); /* it was not a tag: unchanged */
    } else if (state == THINK_IN) {
        rc = reasoning_n(d, em, held.data, held.len);
        if (rc == SEAM_OK)
            rc = close_reasoning(d, em);
    }
    sb_free(&held);
    return rc;
}

/* Before each tool call starts: what was held as a possible <think> tag and
 * an open reasoning block end first. */
static int before_tool_start(void *ud, seam_emitter *em)
{
    oa_decoder *d = ud;
    int rc = think_end(d, em);
    if (rc == SEAM_OK)
        rc = close_reasoning(d, em);
    return rc;
}

/* Tool calls are assembled by the SDK's assembler (<seam/codec.h>), which
 * holds the rules for indexes reused, ids without an index and names that
 * come late. */
int oa_chat_on_tool_fragment(oa_decoder *d, seam_emitter *em, int has_index, int index,
                            const char *id, const char *name, const char *args)
{
    if (!d->tools) {
        if (!(d->tools = seam_toolcalls_new()))
            return SEAM_ERR_NOMEM;
        seam_toolcalls_set_hook(d->tools, before_tool_start, d);
    }
    return seam_toolcalls_add(d->tools, em, has_index ? index : -1, id, name, args);
}

char *oa_final_args(json_tokener *tok, const char *text, size_t len)
{
    const char *p = text ? text : "";
    const char *whole = p;
    while (len && isspace((unsigned char)*p)) {
        p++;
        len--;
    }
    while (len && isspace((unsigned char)p[len - 1]))
        len--;
    if (len == 0)
        return xstrdup("{}");
    json_object *obj = json_parse_with(tok, p, len);
    char *out;
    if (json_object_is_type(obj, json_type_object))
        out = xstrdup(json_text(obj));
    else
        out = xstrdup(whole);
    json_object_put(obj);
    return out;
}

static int end_tools(oa_decoder *d, seam_emitter *em)
{
    return d->tools ? seam_toolcalls_finish(d->tools, em) : SEAM_OK;
}

/* Content is over: close reasoning, end every tool call. */
static int finish_content(oa_decoder *d, seam_emitter *em)
{
    int rc = think_end(d, em);
    if (rc == SEAM_OK)
        rc = close_reasoning(d, em);
    if (rc == SEAM_OK)
        rc = end_tools(d, em);
    return rc;
}

static int emit_stop(oa_decoder *d, seam_emitter *em)
{
    if (d->stop_emitted)
        return SEAM_OK;
    int rc = finish_content(d, em);
    if (rc != SEAM_OK)
        return rc;
    seam_stop_reason r = d->stop;
    /* Some servers (older Ollama, vLLM) say "stop" after tool calls. */
    if ((r == SEAM_STOP_NONE || r == SEAM_STOP_STOP) && seam_toolcalls_count(d->tools) > 0)
        r = SEAM_STOP_TOOL_USE;
    if (r == SEAM_STOP_NONE)
        r = SEAM_STOP_STOP;
    if (r == SEAM_STOP_STOP && d->refusal_seen)
        r = SEAM_STOP_CONTENT_FILTER;
    d->stop_emitted = 1;
    seam_chunk c = {.type = SEAM_CHUNK_STOP, .stop_reason = r, .usage = d->usage};
    if (d->response_id[0])
        c.id = d->response_id;
    return emit(em, &c);
}

void oa_chat_usage(const oa_usage_counts *c, seam_usage *out)
{
    /* prompt_tokens counts the cached ones: the SDK makes input net of them. */
    int64_t cached = (c->have & OA_HAVE_CACHED) ? c->cached : (c->have & OA_HAVE_CACHE_HIT) ? c->cache_hit : -1;
    seam_usage us;
    seam_usage_from_counts(&us, (c->have & OA_HAVE_PROMPT) ? c->prompt : -1, cached, -1,
                           (c->have & OA_HAVE_COMPLETION) ? c->completion : -1,
                           (c->have & OA_HAVE_REASONING) ? c->reasoning : -1, 1);
    if (us.present)
        *out = us;
}

static void read_usage(json_object *u, seam_usage *out)
{
    if (!json_object_is_type(u, json_type_object))
        return;
    oa_usage_counts c = {0};
    if (oa_jcount(jget(u, "prompt_tokens_details"), "cached_tokens", &c.cached))
        c.have |= OA_HAVE_CACHED;
    if (oa_jcount(u, "prompt_cache_hit_tokens", &c.cache_hit))
        c.have |= OA_HAVE_CACHE_HIT;
    if (oa_jcount(u, "prompt_tokens", &c.prompt))
        c.have |= OA_HAVE_PROMPT;
    if (oa_jcount(u, "completion_tokens", &c.completion))
        c.have |= OA_HAVE_COMPLETION;
    if (oa_jcount(jget(u, "completion_tokens_details"), "reasoning_tokens", &c.reasoning))
        c.have |= OA_HAVE_REASONING;
    oa_chat_usage(&c, out);
}

/* A Mistral thinking part: "thinking" is a string or an array of text parts. */
static int on_thinking_part(oa_decoder *d, seam_emitter *em, json_object *part)
{
    json_object *th = jget(part, "thinking");
    if (json_object_is_type(th, json_type_string))
        return oa_chat_on_reasoning(d, em, json_object_get_string(th));
    if (json_object_is_type(th, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(th); i++) {
            json_object *t = json_object_array_get_idx(th, i);
            const char *s = json_object_is_type(t, json_type_string) ? json_object_get_string(t)
                                                                    : jstr(t, "text");
            int rc = oa_chat_on_reasoning(d, em, s);
            if (rc != SEAM_OK)
                return rc;
        }
    }
    return SEAM_OK;
}

static int on_content(oa_decoder *d, seam_emitter *em, json_object *content)
{
    if (json_object_is_type(content, json_type_string))
        return oa_chat_on_content_text(d, em, json_object_get_string(content));
    if (!json_object_is_type(content, json_type_array))
        return SEAM_OK;
    for (size_t i = 0; i < json_object_array_length(content); i++) {
        json_object *part = json_object_array_get_idx(content, i);
        int rc = SEAM_OK;
        if (json_object_is_type(part, json_type_string)) {
            rc = oa_chat_on_content_text(d, em, json_object_get_string(part));
        } else {
            const char *type = jstr(part, "type");
            if (!type || !strcmp(type, "text"))
                rc = oa_chat_on_content_text(d, em, jstr(part, "text"));
            else if (!strcmp(type, "thinking") || !strcmp(type, "reasoning"))
                rc = jget(part, "thinking") ? on_thinking_part(d, em, part)
                                            : oa_chat_on_reasoning(d, em, jstr(part, "text"));
            else if (!strcmp(type, "refusal")) {
                d->refusal_seen = 1;
                rc = think_end(d, em);
                if (rc == SEAM_OK)
                    rc = on_text(d, em, jstr(part, "refusal"));
            }
        }
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}

int oa_chat_on_refusal(oa_decoder *d, seam_emitter *em, const char *refusal)
{
    if (!refusal || !*refusal)
        return SEAM_OK;
    d->refusal_seen = 1;
    int rc = think_end(d, em);
    return rc == SEAM_OK ? on_text(d, em, refusal) : rc;
}

/* One delta (stream) or message (whole response). `whole`: tool calls are
 * complete, their position is their index. */
static int on_delta(oa_decoder *d, seam_emitter *em, json_object *delta, int whole)
{
    if (!json_object_is_type(delta, json_type_object))
        return SEAM_OK;
    int rc;
    const char *reasoning = jstr(delta, "reasoning_content");
    if (!reasoning)
        reasoning = jstr(delta, "reasoning");
    if ((rc = oa_chat_on_reasoning(d, em, reasoning)) != SEAM_OK)
        return rc;
    if ((rc = on_content(d, em, jget(delta, "content"))) != SEAM_OK)
        return rc;
    if ((rc = oa_chat_on_refusal(d, em, jstr(delta, "refusal"))) != SEAM_OK)
        return rc;
    json_object *calls = jget(delta, "tool_calls");
    if (!json_object_is_type(calls, json_type_array))
        return SEAM_OK;
    for (size_t i = 0; i < json_object_array_length(calls); i++) {
        json_object *call = json_object_array_get_idx(calls, i);
        if (!json_object_is_type(call, json_type_object))
            continue;
        int64_t index = 0;
        int has_index = whole ? 1 : jint(call, "index", &index);
        if (whole)
            index = (int64_t)seam_toolcalls_count(d->tools); /* each call of a whole message is new */
        json_object *fn = jget(call, "function");
        json_object *args = jget(fn, "arguments");
        const char *args_text = NULL;
        if (json_object_is_type(args, json_type_string))
            args_text = json_object_get_string(args);
        else if (json_object_is_type(args, json_type_object))
            args_text = json_text(args); /* servers that send the object itself */
        rc = oa_chat_on_tool_fragment(d, em, has_index, (int)index, jstr(call, "id"), jstr(fn, "name"),
                              args_text);
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}

/* The choice this decoder follows: index 0 (n > 1 is not supported). */
static json_object *first_choice(json_object *root)
{
    json_object *choices = jget(root, "choices");
    if (!json_object_is_type(choices, json_type_array))
        return NULL;
    for (size_t i = 0; i < json_object_array_length(choices); i++) {
        json_object *c = json_object_array_get_idx(choices, i);
        int64_t idx = 0;
        if (!jint(c, "index", &idx) || idx == 0)
            return c;
    }
    return NULL;
}

static int stream_error(const oa_decoder *d, json_object *root, seam_error *err)
{
    return oa_error_event(d->in, root, err);
}

/* The fast path skips the id; the finish event, which it never takes, has it too. */
void oa_chat_note_id(oa_decoder *d, seam_emitter *out, const char *id)
{
    if (id && !d->response_id[0] && strlen(id) < sizeof d->response_id) {
        memcpy(d->response_id, id, strlen(id) + 1);
        seam_emit_response_id(out, id);
    }
}

static void note_id(oa_decoder *d, seam_emitter *out, json_object *root)
{
    oa_chat_note_id(d, out, jstr(root, "id"));
}

static int on_finish(oa_decoder *d, seam_emitter *em, const char *fr)
{
    if (!fr)
        return SEAM_OK;
    d->finish_seen = 1;
    d->stop = oa_map_finish(fr);
    return finish_content(d, em);
}

int oa_chat_decode_event(oa_decoder *d, const seam_frame *frame, seam_emitter *out,
                         seam_error *err)
{
    const char *data = frame && frame->data ? frame->data : "";
    size_t len = frame ? frame->data_len : 0;
    while (len && isspace((unsigned char)*data)) {
        data++;
        len--;
    }
    while (len && isspace((unsigned char)data[len - 1]))
        len--;
    if (len == 0)
        return SEAM_OK;
    if (seam_sse_is_done(frame)) {
        /* [DONE] alone does not say the answer is whole: only a finish_reason
         * does. Without one the answer was cut short upstream. */
        if (!d->finish_seen && !d->stop_emitted)
            return codec_protocol_error(err, "openai: the stream ended ([DONE]) before a finish_reason: "
                                             "the response is incomplete");
        return emit_stop(d, out);
    }
    if (d->stop_emitted)
        return SEAM_OK; /* nothing after the end counts */
    int rc_fast;
    if (oa_scan_event(d, frame, data, len, out, &rc_fast))
        return rc_fast;
    if (!chat_tok(d))
        return oa_nomem(err);
    json_object *root = json_parse_with(d->tok, data, len);
    if (!root)
        return oa_malformed(err, "stream event");
    int rc = SEAM_OK;
    if (jget(root, "error") || (frame->event && strcmp(frame->event, "error") == 0) ||
        (json_object_is_type(root, json_type_object) && jstr(root, "object") &&
         strcmp(jstr(root, "object"), "error") == 0)) {
        rc = stream_error(d, root, err);
        json_object_put(root);
        return rc;
    }
    note_id(d, out, root);
    json_object *choice = first_choice(root);
    if (choice) {
        json_object *delta = jget(choice, "delta");
        rc = on_delta(d, out, delta, 0);
        if (rc == SEAM_OK)
            rc = oa_chat_on_audio(d, out, jget(delta, "audio"), err);
        /* The audio is whole when the choice finishes: it ends before the stop. */
        if (rc == SEAM_OK && jstr(choice, "finish_reason"))
            rc = oa_chat_end_audio(d, out, err);
        if (rc == SEAM_OK)
            rc = on_finish(d, out, jstr(choice, "finish_reason"));
    }
    if (rc == SEAM_OK) {
        json_object *usage = jget(root, "usage");
        if (!usage)
            usage = jget(jget(root, "x_groq"), "usage");
        read_usage(usage, &d->usage);
    }
    json_object_put(root);
    return rc;
}

int oa_chat_decode_finish(oa_decoder *d, seam_emitter *out, seam_error *err)
{
    (void)err;
    /* No [DONE] but a finish_reason: the answer is complete all the same. */
    if (!d->stop_emitted && d->finish_seen)
        return emit_stop(d, out);
    /* Cut short: what content was held back still belongs to the partial answer. */
    if (!d->stop_emitted)
        return think_end(d, out);
    return SEAM_OK;
}

/* The end of a whole response, on both paths: its finish reason, its usage,
 * the stop chunk. */
int oa_chat_whole_end(oa_decoder *d, seam_emitter *out, const char *finish_reason,
                      const seam_usage *usage)
{
    int rc = on_finish(d, out, finish_reason);
    if (rc != SEAM_OK)
        return rc;
    if (usage && usage->present)
        d->usage = *usage;
    return emit_stop(d, out);
}

int oa_chat_decode_response(const oa_instance *in, const seam_request *req, const char *body,
                            size_t len, seam_emitter *out, seam_error *err)
{
    oa_decoder *d = oa_chat_decoder_new(in);
    if (!d)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: out of memory");
    int rc_fast;
    if (oa_scan_response(d, body, len, out, &rc_fast)) {
        oa_chat_decoder_free(d);
        return rc_fast;
    }
    if (!chat_tok(d)) {
        oa_chat_decoder_free(d);
        return oa_nomem(err);
    }
    /* Only here: the scanner leaves a message with audio to this path. */
    oa_chat_audio_setup(d, in, req, 0);
    json_object *root = json_parse_with(d->tok, body, len);
    if (!json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        oa_chat_decoder_free(d);
        return oa_malformed(err, "response body");
    }
    int rc;
    if (jget(root, "error")) {
        rc = stream_error(d, root, err);
    } else {
        note_id(d, out, root);
        json_object *choice = first_choice(root);
        if (!choice) {
            rc = oa_malformed(err, "response (no choices)");
        } else {
            json_object *message = jget(choice, "message");
            rc = on_delta(d, out, message, 1);
            if (rc == SEAM_OK)
                rc = oa_chat_on_audio(d, out, jget(message, "audio"), err);
            if (rc == SEAM_OK)
                rc = oa_chat_end_audio(d, out, err);
            if (rc == SEAM_OK) {
                json_object *usage = jget(root, "usage");
                if (!usage)
                    usage = jget(jget(root, "x_groq"), "usage");
                seam_usage us = {0};
                read_usage(usage, &us);
                rc = oa_chat_whole_end(d, out, jstr(choice, "finish_reason"), &us);
            }
        }
    }
    oa_chat_decoder_free(d);
    json_object_put(root);
    return rc;
}
