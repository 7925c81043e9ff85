/* responses_decode.c — the openai plugin's decoder for OpenAI's Responses API
 * (`POST {base_url}/responses`): the stream's semantic events (and a whole
 * Response object) -> seam chunks: text, reasoning summaries (a reasoning
 * item's encrypted content as its signature), function calls by output_index
 * with their argument deltas, usage from the terminal event. The encoder and
 * the request's shape: responses_encode.c.
 *
 * Wire shapes, from OpenAI's API reference (Responses: create, the output item
 * objects, "Streaming events"):
 *   - stream events: response.output_item.added/.done (the item whole, with
 *     the reasoning item's encrypted_content and the function call's final
 *     arguments in .done), response.output_text.delta, response.refusal.delta,
 *     response.reasoning_summary_text.delta (summary_index numbers the summary
 *     parts, joined here by a blank line), response.reasoning_text.delta (raw
 *     reasoning text from other servers), response.function_call_arguments.delta
 *     (item_id, output_index), then one of response.completed /
 *     response.incomplete (incomplete_details.reason max_output_tokens ->
 *     length, content_filter -> content_filter) / response.failed (error
 *     {code, message}); an `error` event carries {code, message} (or an
 *     `error` object). There is no [DONE] (one is ignored).
 *   - usage (in the terminal event's response): input_tokens (of which
 *     input_tokens_details.cached_tokens were cache reads: seam's input is net
 *     of them), output_tokens (of which output_tokens_details.reasoning_tokens).
 * The whole (non-streamed) answer is the Response object itself: it is decoded
 * by the code that completes a stream, so both give the same chunks. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ==== decode ================================================================= */

typedef enum rs_kind { RK_OTHER = 0, RK_MESSAGE, RK_REASONING, RK_CALL } rs_kind;

/* One output item of the response, keyed by its output_index. */
typedef struct rs_item {
    int64_t output_index;
    char *item_id;         /* the wire's item id (may be NULL) */
    rs_kind kind;
    char *id;              /* the chunks' id: reasoning item id, function call_id */
    char *name;            /* function name */
    strbuf args;           /* argument text received so far */
    int started;           /* reasoning_start / tool_call_start emitted */
    int ended;             /* reasoning_end / tool_call_end emitted, or done */
    int text_seen;         /* some text (or summary text) was emitted for it */
    int64_t summary_index; /* reasoning: the summary part that last gave text */
} rs_item;

typedef struct rs_decoder {
    unsigned wire; /* OA_WIRE_RESPONSES; first, like the chat decoder's */
    const oa_instance *in;
    json_tokener *tok;
    rs_item *items;
    size_t n_items, cap_items;
    unsigned synthesized; /* ids made up for items that came without one */
    int calls;            /* function calls ended */
    int refusal;
    int stop_emitted;
} rs_decoder;

void *oa_resp_decoder_new(const oa_instance *in, const seam_request *req)
{
    (void)req;
    rs_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->wire = OA_WIRE_RESPONSES;
    d->in = in;
    if (!(d->tok = json_tokener_new())) {
        free(d);
        return NULL;
    }
    return d;
}

void oa_resp_decoder_free(void *decoder)
{
    rs_decoder *d = decoder;
    if (!d)
        return;
    for (size_t i = 0; i < d->n_items; i++) {
        free(d->items[i].item_id);
        free(d->items[i].id);
        free(d->items[i].name);
        sb_free(&d->items[i].args);
    }
    free(d->items);
    if (d->tok) /* json-c 0.16 dereferences a NULL tokener */
        json_tokener_free(d->tok);
    free(d);
}

/* The item of an event: by output_index when the event has one, else by item_id. */
static rs_item *rs_find(rs_decoder *d, json_object *ev)
{
    int64_t index;
    int has_index = jint(ev, "output_index", &index);
    const char *item_id = jstr(ev, "item_id");
    for (size_t i = d->n_items; i-- > 0;) {
        rs_item *it = &d->items[i];
        if (has_index ? it->output_index == index
                      : item_id && it->item_id && strcmp(it->item_id, item_id) == 0)
            return it;
    }
    return NULL;
}

/* A new item of the given kind; its id is the wire's (call_id for a call), or
 * one made up. NULL when out of memory. */
static rs_item *rs_add(rs_decoder *d, int64_t index, rs_kind kind, json_object *item,
                       const char *item_id)
{
    if (d->n_items == d->cap_items) {
        size_t cap = d->cap_items ? d->cap_items * 2 : 4;
        rs_item *items = realloc(d->items, cap * sizeof *items);
        if (!items)
            return NULL;
        d->items = items;
        d->cap_items = cap;
    }
    rs_item *it = &d->items[d->n_items++];
    memset(it, 0, sizeof *it);
    it->output_index = index;
    it->kind = kind;
    it->summary_index = -1;
    if (!item_id)
        item_id = jstr(item, "id");
    const char *id = kind == RK_CALL ? jstr(item, "call_id") : item_id;
    if (kind == RK_CALL && (!id || !*id))
        id = item_id;
    char made[48];
    if (!id || !*id) {
        snprintf(made, sizeof made, kind == RK_CALL ? "call_seam_%u" : "reasoning_%u", d->synthesized++);
        id = made;
    }
    const char *name = jstr(item, "name");
    if ((item_id && !(it->item_id = xstrdup(item_id))) || !(it->id = xstrdup(id)) ||
        (name && !(it->name = xstrdup(name))))
        return NULL; /* freed with the decoder */
    return it;
}

static rs_kind rs_kind_of(json_object *item)
{
    const char *type = jstr(item, "type");
    if (!type)
        return RK_OTHER;
    if (!strcmp(type, "message"))
        return RK_MESSAGE;
    if (!strcmp(type, "reasoning"))
        return RK_REASONING;
    if (!strcmp(type, "function_call"))
        return RK_CALL;
    return RK_OTHER; /* built-in tool calls and the like: run by the provider */
}

static int rs_emit(seam_emitter *em, const seam_chunk *c)
{
    return seam_emit(em, c);
}

/* Ends every open reasoning item (one without its .done: no signature). */
static int rs_close_reasoning(rs_decoder *d, seam_emitter *em)
{
    for (size_t i = 0; i < d->n_items; i++) {
        rs_item *it = &d->items[i];
        if (it->kind != RK_REASONING || !it->started || it->ended)
            continue;
        it->ended = 1;
        seam_chunk c = {.type = SEAM_CHUNK_REASONING_END, .id = it->id};
        int rc = rs_emit(em, &c);
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}

static int rs_start(rs_decoder *d, rs_item *it, seam_emitter *em)
{
    if (it->started || it->ended)
        return SEAM_OK;
    int rc = rs_close_reasoning(d, em);
    if (rc != SEAM_OK)
        return rc;
    it->started = 1;
    if (it->kind == RK_REASONING) {
        seam_chunk c = {.type = SEAM_CHUNK_REASONING_START, .id = it->id};
        return rs_emit(em, &c);
    }
    if (it->kind == RK_CALL) {
        seam_chunk c = {.type = SEAM_CHUNK_TOOL_CALL_START, .id = it->id, .name = it->name ? it->name : ""};
        if ((rc = rs_emit(em, &c)) != SEAM_OK)
            return rc;
        if (it->args.len) { /* arguments that came before the name */
            seam_chunk a = {.type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = it->id, .text = it->args.data};
            return rs_emit(em, &a);
        }
    }
    return SEAM_OK;
}

static int rs_text(rs_decoder *d, rs_item *it, const char *text, seam_emitter *em)
{
    if (!text || !*text)
        return SEAM_OK;
    int rc = rs_close_reasoning(d, em);
    if (rc != SEAM_OK)
        return rc;
    if (it)
        it->text_seen = 1;
    seam_chunk c = {.type = SEAM_CHUNK_TEXT_DELTA, .text = text};
    return rs_emit(em, &c);
}

/* Summary text of part summary_index (or raw reasoning text, index -1) of a
 * reasoning item; a new summary part after text is set off by a blank line. */
static int rs_reasoning_text(rs_decoder *d, rs_item *it, int64_t summary_index, const char *text,
                             seam_emitter *em)
{
    if (!text || !*text || it->ended)
        return SEAM_OK;
    int rc = rs_start(d, it, em);
    if (rc != SEAM_OK)
        return rc;
    if (summary_index >= 0 && it->text_seen && summary_index != it->summary_index) {
        seam_chunk sep = {.type = SEAM_CHUNK_REASONING_DELTA, .id = it->id, .text = "\n\n"};
        if ((rc = rs_emit(em, &sep)) != SEAM_OK)
            return rc;
    }
    if (summary_index >= 0)
        it->summary_index = summary_index;
    it->text_seen = 1;
    seam_chunk c = {.type = SEAM_CHUNK_REASONING_DELTA, .id = it->id, .text = text};
    return rs_emit(em, &c);
}

static int rs_args(rs_decoder *d, rs_item *it, const char *delta, seam_emitter *em)
{
    (void)d;
    if (!delta || !*delta || it->ended)
        return SEAM_OK;
    if (sb_puts(&it->args, delta) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    if (!it->started)
        return SEAM_OK; /* sent with the start, once the name is known */
    seam_chunk c = {.type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = it->id, .text = delta};
    return rs_emit(em, &c);
}

/* response.output_item.added, or an item met first whole (.done, a whole body). */
static int rs_item_added(rs_decoder *d, int64_t index, json_object *item, const char *item_id,
                         seam_emitter *em, rs_item **out)
{
    rs_kind kind = rs_kind_of(item);
    rs_item *it = rs_add(d, index, kind, item, item_id);
    *out = it;
    if (!it)
        return SEAM_ERR_NOMEM;
    if (kind == RK_REASONING || (kind == RK_CALL && it->name))
        return rs_start(d, it, em);
    return SEAM_OK;
}

/* The texts of a message item's content: output_text and refusal parts. */
static int rs_message_texts(rs_decoder *d, rs_item *it, json_object *item, seam_emitter *em)
{
    json_object *content = jget(item, "content");
    for (size_t i = 0; json_object_is_type(content, json_type_array) && i < json_object_array_length(content); i++) {
        json_object *part = json_object_array_get_idx(content, i);
        const char *type = jstr(part, "type");
        int rc = SEAM_OK;
        if (type && !strcmp(type, "refusal")) {
            d->refusal = 1;
            rc = rs_text(d, it, jstr(part, "refusal"), em);
        } else if (!type || !strcmp(type, "output_text")) {
            rc = rs_text(d, it, jstr(part, "text"), em);
        }
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}

/* The summary texts of a whole reasoning item (or, without a summary, its raw
 * reasoning_text content). */
static int rs_reasoning_texts(rs_decoder *d, rs_item *it, json_object *item, seam_emitter *em)
{
    json_object *summary = jget(item, "summary");
    size_t n = json_object_is_type(summary, json_type_array) ? json_object_array_length(summary) : 0;
    int rc = SEAM_OK;
    for (size_t i = 0; i < n && rc == SEAM_OK; i++)
        rc = rs_reasoning_text(d, it, (int64_t)i, jstr(json_object_array_get_idx(summary, i), "text"), em);
    if (rc != SEAM_OK || it->text_seen)
        return rc;
    json_object *content = jget(item, "content");
    for (size_t i = 0; json_object_is_type(content, json_type_array) && i < json_object_array_length(content) && rc == SEAM_OK; i++)
        rc = rs_reasoning_text(d, it, -1, jstr(json_object_array_get_idx(content, i), "text"), em);
    return rc;
}

/* response.output_item.done: the item whole. What its deltas did not bring is
 * taken from it; a reasoning item ends with its encrypted content as the
 * signature, a function call with its final arguments. */
static int rs_item_done(rs_decoder *d, rs_item *it, json_object *item, seam_emitter *em)
{
    int rc = SEAM_OK;
    if (it->ended)
        return SEAM_OK;
    switch (it->kind) {
    case RK_MESSAGE:
        if (!it->text_seen)
            rc = rs_message_texts(d, it, item, em);
        it->ended = 1;
        return rc;
    case RK_REASONING: {
        if ((rc = rs_start(d, it, em)) != SEAM_OK)
            return rc;
        if (!it->text_seen && (rc = rs_reasoning_texts(d, it, item, em)) != SEAM_OK)
            return rc;
        const char *enc = jstr(item, "encrypted_content");
        /* The item's id goes into the signature, to be replayed with it: the
         * spec's input ReasoningItem requires one. An id that would not parse
         * back (empty, or with the separator) is left out. */
        const char *rid = jstr(item, "id");
        if (!rid || !*rid)
            rid = it->item_id;
        if (rid && (!*rid || strchr(rid, ':')))
            rid = NULL;
        strbuf sig = {0};
        if (enc && *enc &&
            (sb_puts(&sig, OA_SIGNATURE_TAG) || (rid && (sb_puts(&sig, rid) || sb_puts(&sig, ":"))) ||
             sb_puts(&sig, enc))) {
            sb_free(&sig);
            return SEAM_ERR_NOMEM;
        }
        it->ended = 1;
        seam_chunk c = {.type = SEAM_CHUNK_REASONING_END, .id = it->id, .signature = sig.data};
        rc = rs_emit(em, &c);
        sb_free(&sig);
        return rc;
    }
    case RK_CALL: {
        if (!it->name && jstr(item, "name") && !(it->name = xstrdup(jstr(item, "name"))))
            return SEAM_ERR_NOMEM;
        const char *call_id = jstr(item, "call_id");
        if (!it->started && call_id && *call_id && strcmp(call_id, it->id) != 0) {
            /* not yet announced: the call's own id replaces a stand-in */
            char *id = xstrdup(call_id);
            if (!id)
                return SEAM_ERR_NOMEM;
            free(it->id);
            it->id = id;
        }
        const char *args = jstr(item, "arguments");
        if (!it->args.len && (rc = rs_args(d, it, args, em)) != SEAM_OK)
            return rc; /* no deltas came: the item's arguments are the one delta */
        if ((rc = rs_start(d, it, em)) != SEAM_OK)
            return rc;
        /* The item's own arguments are the final word; the deltas were progress. */
        char *final = args ? oa_final_args(d->tok, args, strlen(args))
                           : oa_final_args(d->tok, it->args.data, it->args.len);
        if (!final)
            return SEAM_ERR_NOMEM;
        it->ended = 1;
        d->calls++;
        seam_chunk c = {.type = SEAM_CHUNK_TOOL_CALL_END, .id = it->id, .args_json = final};
        rc = rs_emit(em, &c);
        free(final);
        return rc;
    }
    default:
        it->ended = 1;
        return SEAM_OK;
    }
}

/* A call cut short (an incomplete response) ends with what it has. */
static int rs_end_open_calls(rs_decoder *d, seam_emitter *em)
{
    for (size_t i = 0; i < d->n_items; i++) {
        rs_item *it = &d->items[i];
        if (it->kind != RK_CALL || it->ended)
            continue;
        int rc = rs_start(d, it, em);
        char *final = rc == SEAM_OK ? oa_final_args(d->tok, it->args.data, it->args.len) : NULL;
        if (rc == SEAM_OK && !final)
            rc = SEAM_ERR_NOMEM;
        if (rc != SEAM_OK)
            return rc;
        it->ended = 1;
        d->calls++;
        seam_chunk c = {.type = SEAM_CHUNK_TOOL_CALL_END, .id = it->id, .args_json = final};
        rc = rs_emit(em, &c);
        free(final);
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}

static void rs_read_usage(json_object *u, seam_usage *out)
{
    memset(out, 0, sizeof *out);
    if (!json_object_is_type(u, json_type_object))
        return;
    /* input_tokens counts the cached ones: the SDK makes input net of them. */
    int64_t input = -1, output = -1, cached = -1, reasoning = -1;
    if (!oa_jcount(jget(u, "input_tokens_details"), "cached_tokens", &cached))
        cached = -1;
    if (!oa_jcount(u, "input_tokens", &input))
        input = -1;
    if (!oa_jcount(u, "output_tokens", &output))
        output = -1;
    if (!oa_jcount(jget(u, "output_tokens_details"), "reasoning_tokens", &reasoning))
        reasoning = -1;
    seam_usage_from_counts(out, input, cached, -1, output, reasoning, 1);
}

/* The error of a failed response, or of an `error` event: {code, message,
 * type} directly or inside an "error" member. */
static int rs_error(rs_decoder *d, json_object *ev, const char *fallback, seam_error *err)
{
    json_object *e = jget(ev, "error");
    if (!json_object_is_type(e, json_type_object))
        e = ev;
    const char *type = jstr(e, "type");
    if (type && !strncmp(type, "response.", 9))
        type = NULL; /* the event's own type, not an error type */
    if (type && !strcmp(type, "error"))
        type = NULL;
    const char *msg = jstr(e, "message");
    oa_error_from_fields(d->in, jstr(e, "code"), type, msg && *msg ? msg : fallback, err);
    return SEAM_ERR_PROVIDER;
}

/* The end of the response (a terminal event's response, or a whole body):
 * items not yet done are completed from response.output, then the stop chunk. */
static int rs_finish(rs_decoder *d, json_object *response, const char *status, seam_emitter *em,
                     seam_error *err)
{
    if (status && !strcmp(status, "failed"))
        return rs_error(d, response, "the response failed", err);
    json_object *output = jget(response, "output");
    size_t n = json_object_is_type(output, json_type_array) ? json_object_array_length(output) : 0;
    int rc = SEAM_OK;
    for (size_t i = 0; i < n && rc == SEAM_OK; i++) {
        json_object *item = json_object_array_get_idx(output, i);
        rs_item *it = NULL;
        for (size_t k = 0; k < d->n_items; k++)
            if (d->items[k].output_index == (int64_t)i)
                it = &d->items[k];
        if (!it && (rc = rs_item_added(d, (int64_t)i, item, NULL, em, &it)) != SEAM_OK)
            break;
        rc = rs_item_done(d, it, item, em);
    }
    if (rc == SEAM_OK)
        rc = rs_close_reasoning(d, em);
    if (rc == SEAM_OK)
        rc = rs_end_open_calls(d, em);
    if (rc != SEAM_OK)
        return rc;
    seam_stop_reason reason = SEAM_STOP_STOP;
    if (status && !strcmp(status, "incomplete")) {
        const char *why = jstr(jget(response, "incomplete_details"), "reason");
        reason = why && !strcmp(why, "content_filter") ? SEAM_STOP_CONTENT_FILTER : SEAM_STOP_LENGTH;
    } else if (d->calls > 0) {
        reason = SEAM_STOP_TOOL_USE;
    } else if (d->refusal) {
        reason = SEAM_STOP_CONTENT_FILTER;
    }
    d->stop_emitted = 1;
    seam_chunk c = {.type = SEAM_CHUNK_STOP, .stop_reason = reason, .id = jstr(response, "id")};
    rs_read_usage(jget(response, "usage"), &c.usage);
    return rs_emit(em, &c);
}

/* The item an event refers to; one of the given type is made for it when its
 * .added never came (known then by the event's output_index and item_id). */
static int rs_item_of(rs_decoder *d, json_object *ev, const char *type, seam_emitter *em,
                      rs_item **out)
{
    if ((*out = rs_find(d, ev)))
        return SEAM_OK;
    int64_t index;
    if (!jint(ev, "output_index", &index))
        index = (int64_t)d->n_items;
    json_object *stub = json_object_new_object();
    if (!stub)
        return SEAM_ERR_NOMEM;
    json_object_object_add(stub, "type", json_object_new_string(type));
    int rc = rs_item_added(d, index, stub, jstr(ev, "item_id"), em, out);
    json_object_put(stub);
    return rc;
}

/* One event (its JSON parsed) of the stream. */
static int rs_event(rs_decoder *d, const char *type, json_object *ev, seam_emitter *em,
                    seam_error *err)
{
    rs_item *it;
    int64_t index = 0;
    if (!strcmp(type, "response.output_item.added")) {
        json_object *item = jget(ev, "item");
        if (!jint(ev, "output_index", &index))
            index = (int64_t)d->n_items;
        if ((it = rs_find(d, ev)) && it->kind == rs_kind_of(item))
            return SEAM_OK; /* a repeat */
        return rs_item_added(d, index, item, NULL, em, &it);
    }
    if (!strcmp(type, "response.output_item.done")) {
        json_object *item = jget(ev, "item");
        if (!jint(ev, "output_index", &index))
            index = (int64_t)d->n_items;
        it = rs_find(d, ev);
        if (!it) {
            int rc = rs_item_added(d, index, item, NULL, em, &it);
            if (rc != SEAM_OK)
                return rc;
        }
        return rs_item_done(d, it, item, em);
    }
    if (!strcmp(type, "response.output_text.delta") || !strcmp(type, "response.refusal.delta")) {
        if (!strcmp(type, "response.refusal.delta"))
            d->refusal = 1;
        int rc = rs_item_of(d, ev, "message", em, &it);
        return rc != SEAM_OK ? rc : rs_text(d, it, jstr(ev, "delta"), em);
    }
    if (!strcmp(type, "response.output_text.done") || !strcmp(type, "response.refusal.done")) {
        int rc = rs_item_of(d, ev, "message", em, &it);
        if (rc != SEAM_OK || it->text_seen)
            return rc;
        if (!strcmp(type, "response.refusal.done")) {
            d->refusal = 1;
            return rs_text(d, it, jstr(ev, "refusal"), em);
        }
        return rs_text(d, it, jstr(ev, "text"), em);
    }
    if (!strcmp(type, "response.reasoning_summary_text.delta") ||
        !strcmp(type, "response.reasoning_summary_text.done") ||
        !strcmp(type, "response.reasoning_text.delta")) {
        int summary = strncmp(type, "response.reasoning_summary_text", 31) == 0;
        int done = !strcmp(type, "response.reasoning_summary_text.done");
        int64_t part = -1;
        if (summary && !jint(ev, "summary_index", &part))
            part = 0;
        int rc = rs_item_of(d, ev, "reasoning", em, &it);
        if (rc != SEAM_OK)
            return rc;
        if (it->kind != RK_REASONING)
            return SEAM_OK;
        if (done) /* only a part whose deltas never came */
            return part == it->summary_index ? SEAM_OK : rs_reasoning_text(d, it, part, jstr(ev, "text"), em);
        return rs_reasoning_text(d, it, part, jstr(ev, "delta"), em);
    }
    if (!strcmp(type, "response.function_call_arguments.delta") ||
        !strcmp(type, "response.function_call_arguments.done")) {
        int rc = rs_item_of(d, ev, "function_call", em, &it);
        if (rc != SEAM_OK)
            return rc;
        if (it->kind != RK_CALL)
            return SEAM_OK;
        if (!strcmp(type, "response.function_call_arguments.done"))
            return it->args.len ? SEAM_OK : rs_args(d, it, jstr(ev, "arguments"), em);
        return rs_args(d, it, jstr(ev, "delta"), em);
    }
    if (!strcmp(type, "response.completed") || !strcmp(type, "response.incomplete") ||
        !strcmp(type, "response.failed")) {
        json_object *response = jget(ev, "response");
        return rs_finish(d, response, type + 9, em, err);
    }
    if (!strcmp(type, "error"))
        return rs_error(d, ev, "the provider reported an error", err);
    if (!strcmp(type, "response.created") || !strcmp(type, "response.in_progress")) {
        const char *id = jstr(jget(ev, "response"), "id");
        if (id)
            seam_emit_response_id(em, id);
        return SEAM_OK;
    }
    /* .queued, content parts, summary parts,
     * annotations, built-in tool progress: nothing to emit. */
    return SEAM_OK;
}

int oa_resp_decode_event(void *decoder, const seam_frame *frame, seam_emitter *out,
                         seam_error *err)
{
    rs_decoder *d = decoder;
    const char *data = frame && frame->data ? frame->data : "";
    size_t len = frame ? frame->data_len : 0;
    while (len && isspace((unsigned char)*data)) {
        data++;
        len--;
    }
    while (len && isspace((unsigned char)data[len - 1]))
        len--;
    if (len == 0 || seam_sse_is_done(frame) || d->stop_emitted)
        return SEAM_OK; /* the Responses API has no [DONE]: a server that adds one ends nothing */
    json_object *ev = json_parse_with(d->tok, data, len);
    if (!json_object_is_type(ev, json_type_object)) {
        json_object_put(ev);
        return oa_malformed(err, "stream event");
    }
    const char *type = jstr(ev, "type");
    if (!type)
        type = frame->event ? frame->event : "";
    int rc = rs_event(d, type, ev, out, err);
    json_object_put(ev);
    if (rc == SEAM_ERR_NOMEM && err && err->kind == SEAM_ERROR_NONE)
        oa_nomem(err);
    return rc;
}

int oa_resp_decode_finish(void *decoder, seam_emitter *out, seam_error *err)
{
    /* Without a terminal event the answer is incomplete: the core says so. */
    (void)decoder;
    (void)out;
    (void)err;
    return SEAM_OK;
}

int oa_resp_decode_response(const oa_instance *in, const seam_request *req, const char *body,
                            size_t len, seam_emitter *out, seam_error *err)
{
    rs_decoder *d = oa_resp_decoder_new(in, req);
    if (!d)
        return oa_nomem(err);
    json_object *root = json_parse_with(d->tok, body, len);
    int rc;
    if (!json_object_is_type(root, json_type_object)) {
        rc = oa_malformed(err, "response body");
    } else if (jget(root, "error") && !jget(root, "output")) {
        rc = oa_error_event(in, root, err);
    } else if (!json_object_is_type(jget(root, "output"), json_type_array)) {
        rc = oa_malformed(err, "response (no output)");
    } else {
        const char *status = jstr(root, "status");
        rc = rs_finish(d, root, status ? status : "completed", out, err);
        if (rc == SEAM_ERR_NOMEM && err && err->kind == SEAM_ERROR_NONE)
            oa_nomem(err);
    }
    json_object_put(root);
    oa_resp_decoder_free(d);
    return rc;
}
