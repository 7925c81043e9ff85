/* decode_scan.c — the fast path of the openai plugin's Chat Completions
 * decoder (decode.c): a plain delta event, or a whole non-streamed
 * chat.completion body of the usual shape, scanned in place.
 *
 * Most events of a long stream are one delta of one choice: content, reasoning
 * or a tool call's argument fragment, with no finish_reason and no usage. Those
 * are scanned in place (json_scan.h) and handed to the same oa_chat_on_*
 * functions the json-c path calls, in the same order. Anything else (a finish,
 * usage, an error, content parts, a refusal, a choice other than index 0
 * first) makes the scan give up before anything is emitted, and the event
 * takes the json-c path: this path only ever decides the cost of an event,
 * never its chunks.
 *
 * A whole response (oa_scan_response) is the same idea: one choice of index 0
 * whose message has string content, reasoning, a refusal and tool calls, a
 * finish_reason, integer usage counts and an id. Content parts, an "error",
 * x_groq, arguments sent as an object and anything the scanner cannot be sure
 * of go to json-c before anything is emitted. */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* Tool calls one scan takes: a stream's delta, a whole message. */
#define OA_SCAN_MAX_CALLS 4
#define OA_SCAN_MAX_WHOLE_CALLS 32

typedef struct oa_scan_call {
    int has_index;
    int64_t index;
    const char *id, *name, *args;
} oa_scan_call;

typedef struct oa_scan_delta {
    const char *content, *reasoning_content, *reasoning, *refusal;
    int whole;            /* a whole message: a refusal is taken, not refused */
    oa_scan_call *calls;  /* max_calls of them, filled as found */
    size_t n_calls, max_calls;
} oa_scan_delta;

/* {"name": ..., "arguments": ...} of a tool call. */
static int scan_function(jscan *s, oa_scan_call *c)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (jscan_null(s))
        return 1;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "name") ? 1 : JSCAN_KEY(k, kl, "arguments") ? 2 : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        if (!(bit == 1   ? jscan_string_or_null(s, &c->name)
              : bit == 2 ? jscan_string_or_null(s, &c->args)
                         : jscan_skip(s)))
            return 0;
    }
    return r == 0;
}

static int scan_tool_calls(jscan *s, oa_scan_delta *dl)
{
    int r;
    if (jscan_null(s))
        return 1;
    if (!jscan_array(s))
        return 0;
    while ((r = jscan_element(s)) == 1) {
        if (dl->n_calls == dl->max_calls || !jscan_object(s))
            return 0;
        oa_scan_call *c = &dl->calls[dl->n_calls++];
        memset(c, 0, sizeof *c);
        const char *k;
        size_t kl;
        int m, seen = 0;
        while ((m = jscan_member(s, &k, &kl)) == 1) {
            int bit = JSCAN_KEY(k, kl, "index")      ? 1
                      : JSCAN_KEY(k, kl, "id")       ? 2
                      : JSCAN_KEY(k, kl, "function") ? 4
                                                        : 0;
            if (bit & seen)
                return 0;
            seen |= bit;
            int ok;
            if (bit == 1 && dl->whole) {
                ok = jscan_skip(s); /* a whole message's calls are new by position */
            } else if (bit == 1) {
                /* An index that does not fit an int would wrap: json-c's turn. */
                ok = jscan_int(s, &c->index) && c->index >= 0 && c->index <= INT_MAX;
                c->has_index = 1;
            } else if (bit == 2) {
                ok = jscan_string_or_null(s, &c->id);
            } else if (bit == 4) {
                ok = scan_function(s, c);
            } else {
                ok = jscan_skip(s);
            }
            if (!ok)
                return 0;
        }
        if (m != 0)
            return 0;
    }
    return r == 0;
}

static int scan_delta(jscan *s, oa_scan_delta *dl)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (jscan_null(s))
        return 1;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "content")             ? 1
                  : JSCAN_KEY(k, kl, "reasoning_content") ? 2
                  : JSCAN_KEY(k, kl, "reasoning")         ? 4
                  : JSCAN_KEY(k, kl, "refusal")           ? 8
                  : JSCAN_KEY(k, kl, "tool_calls")        ? 16
                  : JSCAN_KEY(k, kl, "audio")             ? 32
                                                             : 0;
        if (bit & seen || bit == 32) /* audio is the json-c path's (audio.c) */
            return 0;
        seen |= bit;
        int ok;
        switch (bit) {
        case 1: ok = jscan_string_or_null(s, &dl->content); break;
        case 2: ok = jscan_string_or_null(s, &dl->reasoning_content); break;
        case 4: ok = jscan_string_or_null(s, &dl->reasoning); break;
        case 8:
            /* A stream's refusal goes the long way (json-c's path). */
            ok = jscan_string_or_null(s, &dl->refusal) && (dl->whole || !dl->refusal || !*dl->refusal);
            break;
        case 16: ok = scan_tool_calls(s, dl); break;
        default: ok = jscan_skip(s); break;
        }
        if (!ok)
            return 0;
    }
    return r == 0;
}

/* The first choice, which must be the one first_choice() would pick. */
static int scan_choice(jscan *s, oa_scan_delta *dl, int *have)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "index")           ? 1
                  : JSCAN_KEY(k, kl, "delta")         ? 2
                  : JSCAN_KEY(k, kl, "finish_reason") ? 4
                                                         : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        int64_t idx;
        int ok = bit == 1   ? jscan_int(s, &idx) && idx == 0
                 : bit == 2 ? scan_delta(s, dl)
                 : bit == 4 ? jscan_null(s) /* a finish goes the long way */
                            : jscan_skip(s);
        if (!ok)
            return 0;
    }
    *have = 1;
    return r == 0;
}

/* 1 when the event was scanned and decoded (*rc its status), 0 when it must
 * take the json-c path (nothing has been emitted then). */
int oa_scan_event(oa_decoder *d, const seam_frame *frame, const char *data, size_t len,
                         seam_emitter *out, int *rc)
{
    jscan s;
    if ((frame->event && strcmp(frame->event, "error") == 0) ||
        !jscan_begin(&s, &d->scan, data, len) || !jscan_object(&s))
        return 0;
    oa_scan_call calls[OA_SCAN_MAX_CALLS];
    oa_scan_delta dl;
    memset(&dl, 0, sizeof dl);
    dl.calls = calls;
    dl.max_calls = OA_SCAN_MAX_CALLS;
    int have_choice = 0, seen = 0, r;
    const char *k;
    size_t kl;
    while ((r = jscan_member(&s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "choices")  ? 1
                  : JSCAN_KEY(k, kl, "object") ? 2
                  : JSCAN_KEY(k, kl, "usage")  ? 4
                  : JSCAN_KEY(k, kl, "id")     ? 8
                                                  : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        /* The stream's response id is taken from the first event that has
         * one, by the json-c path (decode.c), so that both paths carry the
         * same id on the stop chunk. */
        if (bit == 8 && !d->response_id[0])
            return 0;
        int ok;
        if (bit == 1) {
            ok = jscan_array(&s);
            int e;
            if (ok && (e = jscan_element(&s)) != 0)
                ok = e == 1 && scan_choice(&s, &dl, &have_choice);
            while (ok && have_choice && (e = jscan_element(&s)) == 1)
                ok = jscan_skip(&s);
            if (ok && have_choice)
                ok = e == 0;
        } else if (bit == 2) {
            const char *obj;
            ok = jscan_peek(&s) == '"' ? jscan_string(&s, &obj) && strcmp(obj, "error") != 0
                                       : jscan_skip(&s);
        } else if (bit == 4) {
            ok = jscan_null(&s);
        } else {
            /* "error" and "x_groq" (usage inside) are for the json-c path. */
            ok = !JSCAN_KEY(k, kl, "error") && !JSCAN_KEY(k, kl, "x_groq") && jscan_skip(&s);
        }
        if (!ok)
            return 0;
    }
    if (r != 0 || !jscan_end(&s))
        return 0;

    /* The json-c path's order: reasoning, content, (refusal), tool calls,
     * (finish), (usage). */
    *rc = SEAM_OK;
    if (!have_choice)
        return 1;
    const char *reasoning = dl.reasoning_content ? dl.reasoning_content : dl.reasoning;
    if ((*rc = oa_chat_on_reasoning(d, out, reasoning)) != SEAM_OK)
        return 1;
    if (dl.content && (*rc = oa_chat_on_content_text(d, out, dl.content)) != SEAM_OK)
        return 1;
    for (size_t i = 0; i < dl.n_calls; i++) {
        oa_scan_call *c = &dl.calls[i];
        *rc = oa_chat_on_tool_fragment(d, out, c->has_index, (int)c->index, c->id, c->name, c->args);
        if (*rc != SEAM_OK)
            return 1;
    }
    return 1;
}

/* ---- a whole response ------------------------------------------------------------- */

/* {"cached_tokens": n} or {"reasoning_tokens": n} (or null): the one count
 * wanted, *have set when it is there. */
static int scan_details(jscan *s, const char *want, size_t want_len, int64_t *out, unsigned *have,
                        unsigned bit)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (jscan_null(s))
        return 1;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        if (kl == want_len && memcmp(k, want, kl) == 0) {
            if (seen)
                return 0;
            seen = 1;
            if (jscan_null(s))
                continue;
            if (!jscan_int(s, out))
                return 0;
            *out = oa_clamp_count(*out);
            *have |= bit;
        } else if (!jscan_skip(s)) {
            return 0;
        }
    }
    return r == 0;
}

/* A count: an integer (taken) or null (absent); a fraction, a string or
 * anything else is json-c's to read. */
static int scan_count(jscan *s, int64_t *out, unsigned *have, unsigned bit)
{
    if (jscan_null(s))
        return 1;
    if (!jscan_int(s, out))
        return 0;
    *out = oa_clamp_count(*out);
    *have |= bit;
    return 1;
}

static int scan_usage(jscan *s, oa_usage_counts *c)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (jscan_null(s))
        return 1;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "prompt_tokens")               ? 1
                  : JSCAN_KEY(k, kl, "completion_tokens")         ? 2
                  : JSCAN_KEY(k, kl, "prompt_tokens_details")     ? 4
                  : JSCAN_KEY(k, kl, "prompt_cache_hit_tokens")   ? 8
                  : JSCAN_KEY(k, kl, "completion_tokens_details") ? 16
                                                                  : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        int ok;
        switch (bit) {
        case 1: ok = scan_count(s, &c->prompt, &c->have, OA_HAVE_PROMPT); break;
        case 2: ok = scan_count(s, &c->completion, &c->have, OA_HAVE_COMPLETION); break;
        case 4: ok = scan_details(s, "cached_tokens", 13, &c->cached, &c->have, OA_HAVE_CACHED); break;
        case 8: ok = scan_count(s, &c->cache_hit, &c->have, OA_HAVE_CACHE_HIT); break;
        case 16:
            ok = scan_details(s, "reasoning_tokens", 16, &c->reasoning, &c->have, OA_HAVE_REASONING);
            break;
        default: ok = jscan_skip(s); break;
        }
        if (!ok)
            return 0;
    }
    return r == 0;
}

/* The first choice of a whole response: an object of index 0 (or none). */
static int scan_whole_choice(jscan *s, oa_scan_delta *msg, const char **finish)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "index")           ? 1
                  : JSCAN_KEY(k, kl, "message")       ? 2
                  : JSCAN_KEY(k, kl, "finish_reason") ? 4
                                                      : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        int64_t idx;
        int ok = bit == 1   ? jscan_int(s, &idx) && idx == 0
                 : bit == 2 ? scan_delta(s, msg)
                 : bit == 4 ? jscan_string_or_null(s, finish)
                            : jscan_skip(s);
        if (!ok)
            return 0;
    }
    return r == 0;
}

int oa_scan_response(oa_decoder *d, const char *body, size_t len, seam_emitter *out, int *rc)
{
    jscan s;
    if (!jscan_begin(&s, &d->scan, body, len) || !jscan_object(&s))
        return 0;
    oa_scan_call calls[OA_SCAN_MAX_WHOLE_CALLS];
    oa_scan_delta msg;
    memset(&msg, 0, sizeof msg);
    msg.whole = 1;
    msg.calls = calls;
    msg.max_calls = OA_SCAN_MAX_WHOLE_CALLS;
    oa_usage_counts usage = {0};
    const char *id = NULL, *finish = NULL, *k;
    size_t kl;
    int have_choice = 0, seen = 0, r;
    while ((r = jscan_member(&s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "choices") ? 1
                  : JSCAN_KEY(k, kl, "usage") ? 2
                  : JSCAN_KEY(k, kl, "id")    ? 4
                                              : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        int ok;
        if (bit == 1) {
            /* The first element must be the choice first_choice() picks; the
             * rest are skipped. No choice at all is json-c's error to tell. */
            int e;
            ok = jscan_array(&s) && (e = jscan_element(&s)) == 1 &&
                 scan_whole_choice(&s, &msg, &finish);
            while (ok && (e = jscan_element(&s)) == 1)
                ok = jscan_skip(&s);
            ok = ok && e == 0;
            have_choice = ok;
        } else if (bit == 2) {
            ok = scan_usage(&s, &usage);
        } else if (bit == 4) {
            ok = jscan_string_or_null(&s, &id);
        } else {
            /* An error, and x_groq's usage, are for the json-c path. */
            ok = !JSCAN_KEY(k, kl, "error") && !JSCAN_KEY(k, kl, "x_groq") && jscan_skip(&s);
        }
        if (!ok)
            return 0;
    }
    if (r != 0 || !jscan_end(&s) || !have_choice)
        return 0;

    /* The json-c path's order: the id, reasoning, content, refusal, tool
     * calls, the finish, the usage and the stop. */
    oa_chat_note_id(d, out, id);
    const char *reasoning = msg.reasoning_content ? msg.reasoning_content : msg.reasoning;
    if ((*rc = oa_chat_on_reasoning(d, out, reasoning)) != SEAM_OK ||
        (msg.content && (*rc = oa_chat_on_content_text(d, out, msg.content)) != SEAM_OK) ||
        (*rc = oa_chat_on_refusal(d, out, msg.refusal)) != SEAM_OK)
        return 1;
    for (size_t i = 0; i < msg.n_calls; i++) {
        oa_scan_call *c = &msg.calls[i];
        /* Each call of a whole message is new: its index is its position. */
        *rc = oa_chat_on_tool_fragment(d, out, 1, (int)seam_toolcalls_count(d->tools), c->id, c->name,
                                       c->args);
        if (*rc != SEAM_OK)
            return 1;
    }
    seam_usage us = {0};
    oa_chat_usage(&usage, &us);
    *rc = oa_chat_whole_end(d, out, finish, &us);
    return 1;
}
