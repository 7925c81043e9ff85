/* decode.c — the gemini plugin's decode: GenerateContentResponse objects,
 * one per SSE event or the whole body (an object, or the non-SSE stream's
 * array), -> seam chunks: text and thought text, tool calls with the ids
 * Gemini does not send synthesized ("gmcall_" + a random per-response prefix
 * + index), thought signatures handed out as reasoning parts (internal.h),
 * finish reasons and usage. Responses of plain text parts, most of a long
 * stream, take a fast path (../common/json_scan.h) that ends in the same
 * place.
 */
#include "config.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define GEMINI_SYNTH_ID_PREFIX "gmcall_"

/* ======================================================================== */
/* decode                                                                    */
/* ======================================================================== */


static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Not a secret, only unique: time, pid, address and a process-wide counter. */
static void make_id_prefix(char *buf, size_t size, const void *salt)
{
    static atomic_uint_fast64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    seed ^= (uint64_t)getpid() << 40;
    seed ^= (uint64_t)(uintptr_t)salt;
    seed += splitmix64((uint64_t)atomic_fetch_add(&counter, 1));
    snprintf(buf, size, "%016llx", (unsigned long long)splitmix64(seed));
}

void *gemini_decoder_new(void *instance, const seam_request *req)
{
    (void)instance;
    (void)req;
    gemini_decoder *d = calloc(1, sizeof *d);
    if (d)
        make_id_prefix(d->id_prefix, sizeof d->id_prefix, d);
    return d;
}

void gemini_decoder_free(void *decoder)
{
    gemini_decoder *d = decoder;
    if (!d)
        return;
    free(d->reasoning_signature);
    jscan_buf_free(&d->scan);
    free(d);
}

static int emit(seam_emitter *out, seam_chunk *c)
{
    return seam_emit(out, c);
}

/* A signature as handed to the caller: tagged as Gemini's (see internal.h). */
static char *tagged_signature(const char *signature)
{
    size_t n = strlen(GEMINI_SIGNATURE_TAG) + strlen(signature) + 1;
    char *tagged = malloc(n);
    if (tagged)
        snprintf(tagged, n, "%s%s", GEMINI_SIGNATURE_TAG, signature);
    return tagged;
}

static int close_reasoning(gemini_decoder *d, seam_emitter *out)
{
    if (!d->reasoning_open)
        return SEAM_OK;
    seam_chunk c = {.type = SEAM_CHUNK_REASONING_END, .id = d->reasoning_id,
                    .signature = d->reasoning_signature};
    d->reasoning_open = 0;
    int rc = emit(out, &c);
    free(d->reasoning_signature);
    d->reasoning_signature = NULL;
    return rc;
}

static int open_reasoning(gemini_decoder *d, seam_emitter *out)
{
    snprintf(d->reasoning_id, sizeof d->reasoning_id, "reasoning_%u", d->n_reasoning++);
    d->reasoning_open = 1;
    seam_chunk c = {.type = SEAM_CHUNK_REASONING_START, .id = d->reasoning_id};
    return emit(out, &c);
}

/* A signature that came on a non-thought part: a reasoning block with no text,
 * just before the part's content (see the file comment). */
static int emit_signature_carrier(gemini_decoder *d, seam_emitter *out, const char *signature)
{
    int rc = close_reasoning(d, out);
    if (rc != SEAM_OK)
        return rc;
    char *tagged = tagged_signature(signature);
    if (!tagged)
        return SEAM_ERR_NOMEM;
    snprintf(d->reasoning_id, sizeof d->reasoning_id, "reasoning_%u", d->n_reasoning++);
    seam_chunk start = {.type = SEAM_CHUNK_REASONING_START, .id = d->reasoning_id};
    seam_chunk end = {.type = SEAM_CHUNK_REASONING_END, .id = d->reasoning_id,
                      .signature = tagged};
    rc = emit(out, &start);
    if (rc == SEAM_OK)
        rc = emit(out, &end);
    free(tagged);
    return rc;
}

static int emit_tool_call(gemini_decoder *d, seam_emitter *out, json_object *fc)
{
    const char *name = jstr(fc, "name");
    const char *server_id = jstr(fc, "id");
    char id[64];
    if (server_id && *server_id && strlen(server_id) < sizeof id)
        seam_strlcpy(id, server_id, sizeof id);
    else
        snprintf(id, sizeof id, GEMINI_SYNTH_ID_PREFIX "%s_%u", d->id_prefix, d->n_calls);
    d->n_calls++;
    d->saw_tool_call = 1;
    json_object *args = jget(fc, "args");
    const char *args_json = jis(args, json_type_object)
                                ? json_object_to_json_string_ext(args, JSON_OUT_FLAGS)
                                : "{}";
    seam_chunk start = {.type = SEAM_CHUNK_TOOL_CALL_START, .id = id, .name = name ? name : ""};
    seam_chunk delta = {.type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = id, .text = args_json};
    seam_chunk end = {.type = SEAM_CHUNK_TOOL_CALL_END, .id = id, .args_json = args_json};
    int rc = emit(out, &start);
    if (rc == SEAM_OK)
        rc = emit(out, &delta);
    if (rc == SEAM_OK)
        rc = emit(out, &end);
    return rc;
}

/* A part's members that matter; the json-c path and the scanner both end here
 * (the scanner only with fc and signature NULL). */
static int decode_part_fields(gemini_decoder *d, seam_emitter *out, const char *text,
                              int is_thought, const char *signature, json_object *fc)
{
    int rc = SEAM_OK;

    if (is_thought && !fc) {
        /* A second signed thought closes the first: one signature per block. */
        if (d->reasoning_open && signature && d->reasoning_signature)
            rc = close_reasoning(d, out);
        if (rc == SEAM_OK && !d->reasoning_open)
            rc = open_reasoning(d, out);
        if (rc == SEAM_OK && text && *text) {
            seam_chunk c = {.type = SEAM_CHUNK_REASONING_DELTA, .id = d->reasoning_id, .text = text};
            rc = emit(out, &c);
        }
        if (rc == SEAM_OK && signature && !d->reasoning_signature) {
            d->reasoning_signature = tagged_signature(signature);
            if (!d->reasoning_signature)
                rc = SEAM_ERR_NOMEM;
        }
        return rc;
    }

    rc = close_reasoning(d, out);
    if (rc == SEAM_OK && signature)
        rc = emit_signature_carrier(d, out, signature);
    if (rc != SEAM_OK)
        return rc;
    if (jis(fc, json_type_object))
        return emit_tool_call(d, out, fc);
    if (text && *text) {
        seam_chunk c = {.type = SEAM_CHUNK_TEXT_DELTA, .text = text};
        return emit(out, &c);
    }
    /* Other parts (executableCode, inlineData output, ...) carry nothing the seam
     * chunk union delivers on this path. */
    return SEAM_OK;
}

/* An inlineData part of the answer (native image output, generateContent
 * with generationConfig.responseModalities; ai.google.dev/api/generate-content:
 * Part.inlineData is a Blob { mimeType, data (base64) }): the core stores the
 * bytes and the consumer gets a handle, never the base64. A Part is atomic in
 * a GenerateContentResponse, so a streamed answer brings each blob whole in
 * one event: it goes through the core's media-in-pieces path as one piece
 * (media_start, one media_delta with the byte count, media_end with the
 * length and, for audio, the duration).
 *
 * Audio output (the TTS models, responseModalities ["AUDIO"]) comes as
 * "audio/L16;codec=pcm;rate=24000" (ai.google.dev/gemini-api/docs/speech-
 * generation: 16-bit little-endian mono PCM at 24 kHz). seam's MIME check
 * takes no parameters, and L16 proper is big-endian: the part is named
 * audio/pcm, as OpenAI's pcm16 is, and its rate gives the duration. Any
 * other type with parameters is passed on as it is, for the core to refuse
 * (one MIME rule at every position). */
static int decode_inline_data(gemini_decoder *d, seam_emitter *out, json_object *blob,
                              seam_error *err)
{
    const char *mime = jstr(blob, "mimeType");
    json_object *data = jget(blob, "data");
    if (!mime || !jis(data, json_type_string)) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "gemini: an inlineData part without mimeType or data");
        return SEAM_ERR_PROVIDER;
    }
    int rc = close_reasoning(d, out);
    if (rc != SEAM_OK)
        return rc;
    int64_t bytes_per_second = 0;
    size_t n = strcspn(mime, "; \t");
    if ((n == 9 && strncasecmp(mime, "audio/L16", 9) == 0) ||
        (n == 9 && strncasecmp(mime, "audio/pcm", 9) == 0)) {
        const char *r = strstr(mime, "rate=");
        long long rate = r ? strtoll(r + 5, NULL, 10) : 24000;
        bytes_per_second = rate > 0 && rate <= 1000000 ? rate * 2 : 48000;
        mime = "audio/pcm";
    }
    char id[40];
    snprintf(id, sizeof id, "%s-media-%u", d->id_prefix, ++d->n_media);
    rc = seam_emit_media_begin(out, id, mime, bytes_per_second, err);
    if (rc == SEAM_OK)
        rc = seam_emit_media_append(out, id, json_object_get_string(data),
                                    (size_t)json_object_get_string_len(data), err);
    if (rc == SEAM_OK)
        rc = seam_emit_media_end(out, id, err);
    return rc;
}

static int decode_part(gemini_decoder *d, seam_emitter *out, json_object *part, seam_error *err)
{
    json_object *blob = jget(part, "inlineData");
    if (jis(blob, json_type_object))
        return decode_inline_data(d, out, blob, err);
    json_object *thought = jget(part, "thought");
    const char *signature = jstr(part, "thoughtSignature");
    return decode_part_fields(d, out, jstr(part, "text"),
                              jis(thought, json_type_boolean) && json_object_get_boolean(thought),
                              signature && *signature ? signature : NULL, jget(part, "functionCall"));
}

/* Gemini's finish reasons are in the SDK's table of the common wires
 * (<seam/codec.h>): MAX_TOKENS and CONTINUATION cut the answer, SAFETY and
 * the other blocks filter it, MALFORMED_FUNCTION_CALL and the like fail it;
 * STOP, OTHER and reasons added later end it normally. */
#define map_finish_reason seam_stop_reason_from_wire

/* usageMetadata -> seam usage: input net of the cached prompt tokens; thinking
 * tokens are billed as output on Gemini, so output counts them and reasoning is
 * that subset. */
/* A token count from the wire, clamped to [0, 1e12] so that the sums and
 * differences below stay defined whatever a server sends. */
static int64_t clamp_count(int64_t n)
{
    return n < 0 ? 0 : n > 1000000000000 ? 1000000000000 : n;
}

static int token_count(json_object *o, const char *key, int64_t *out)
{
    if (!jint64(o, key, out))
        return 0;
    *out = clamp_count(*out);
    return 1;
}

/* The four counts of a usageMetadata, in this order. */
static const char *const usage_keys[4] = {"promptTokenCount", "cachedContentTokenCount",
                                          "candidatesTokenCount", "thoughtsTokenCount"};

/* has[i]/n[i]: usage_keys[i] was given (n clamped). */
static void usage_from_counts(const int has[4], const int64_t n[4], seam_usage *u)
{
    int64_t prompt = n[0], cached = n[1], candidates = n[2], thoughts = n[3];
    int has_prompt = has[0], has_cached = has[1], has_candidates = has[2], has_thoughts = has[3];
    /* Gemini reports cachedContentTokenCount whenever a cache was read, so a
     * prompt count without one means a known zero. */
    seam_usage_from_counts(u, has_prompt ? prompt : -1,
                           has_prompt ? (has_cached ? cached : 0) : -1, -1,
                           has_candidates || has_thoughts || has_prompt ? candidates + thoughts : -1,
                           has_thoughts ? thoughts : -1, 1);
}

void gemini_parse_usage(json_object *um, seam_usage *u)
{
    int has[4];
    int64_t n[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++)
        has[i] = token_count(um, usage_keys[i], &n[i]);
    usage_from_counts(has, n, u);
}

static int emit_stop(gemini_decoder *d, seam_emitter *out)
{
    int rc = close_reasoning(d, out);
    if (rc != SEAM_OK)
        return rc;
    seam_stop_reason reason = d->finish;
    if (reason == SEAM_STOP_STOP && d->saw_tool_call)
        reason = SEAM_STOP_TOOL_USE;
    seam_chunk c = {.type = SEAM_CHUNK_STOP, .stop_reason = reason};
    if (d->response_id[0])
        c.id = d->response_id;
    if (d->have_usage)
        c.usage = d->usage;
    d->stop_emitted = 1;
    return emit(out, &c);
}

static void note_id(gemini_decoder *d, seam_emitter *out, const char *id)
{
    if (id && !d->response_id[0] && strlen(id) < sizeof d->response_id) {
        memcpy(d->response_id, id, strlen(id) + 1);
        seam_emit_response_id(out, id);
    }
}

/* One GenerateContentResponse. */
static int decode_response_object(gemini_decoder *d, json_object *resp, seam_emitter *out,
                                  seam_error *err)
{
    json_object *e = jget(resp, "error");
    if (jis(e, json_type_object)) {
        gemini_classify_status(e, err);
        return SEAM_ERR_PROVIDER;
    }
    if (d->stop_emitted)
        return SEAM_OK; /* nothing may follow the stop chunk */

    note_id(d, out, jstr(resp, "responseId"));
    int rc = SEAM_OK;
    json_object *um = jget(resp, "usageMetadata");
    int usage_here = jis(um, json_type_object);
    if (usage_here) {
        gemini_parse_usage(um, &d->usage);
        d->have_usage = 1;
    }

    json_object *candidates = jget(resp, "candidates");
    json_object *cand = jis(candidates, json_type_array) && json_object_array_length(candidates) > 0
                            ? json_object_array_get_idx(candidates, 0)
                            : NULL;
    json_object *parts = jget(jget(cand, "content"), "parts");
    for (size_t i = 0; rc == SEAM_OK && jis(parts, json_type_array) &&
                       i < json_object_array_length(parts);
         i++)
        rc = decode_part(d, out, json_object_array_get_idx(parts, i), err);
    if (rc != SEAM_OK)
        return rc;

    const char *finish = jstr(cand, "finishReason");
    if (finish && !d->finished) {
        d->finished = 1;
        d->finish = map_finish_reason(finish);
    }
    /* A blocked prompt: no candidates, promptFeedback.blockReason. */
    const char *blocked = jstr(jget(resp, "promptFeedback"), "blockReason");
    if (blocked && !d->finished) {
        d->finished = 1;
        d->finish = SEAM_STOP_CONTENT_FILTER;
    }
    /* The stop goes out with the usage of the same or a later event; a stream
     * whose usage never follows gets it from decode_finish. */
    if (d->finished && usage_here)
        rc = emit_stop(d, out);
    return rc;
}

static int malformed(seam_error *err, const char *what)
{
    return codec_protocol_error(err, "gemini: %s", what);
}

/* ---- the fast path ---------------------------------------------------------
 *
 * A long stream is mostly responses of one candidate whose parts are text (or
 * thought text), often with a running usageMetadata. Those are scanned in place
 * (json_scan.h) and handed to decode_part_fields and usage_from_counts as the
 * json-c path would. A finishReason, a function call, a signature, an error, a
 * prompt block or anything the scanner is unsure of goes the json-c way before
 * anything is emitted. */
#define GEMINI_SCAN_MAX_PARTS 8

typedef struct scan_part {
    const char *text;
    int thought;
} scan_part;

typedef struct scan_resp {
    scan_part parts[GEMINI_SCAN_MAX_PARTS];
    size_t n_parts;
    int usage_here;
    int has[4];
    int64_t n[4];
} scan_resp;

static int scan_usage(jscan *s, scan_resp *sr)
{
    const char *k;
    size_t kl;
    int r;
    if (jscan_null(s))
        return 1;
    if (!jscan_object(s))
        return 0;
    sr->usage_here = 1;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int i = 0;
        while (i < 4 && !jscan_key_is(k, kl, usage_keys[i]))
            i++;
        if (i == 4) {
            if (!jscan_skip(s))
                return 0;
            continue;
        }
        if (sr->has[i] || !jscan_int(s, &sr->n[i]))
            return 0;
        sr->has[i] = 1;
        sr->n[i] = clamp_count(sr->n[i]);
    }
    return r == 0;
}

static int scan_part_(jscan *s, scan_part *p)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int ok;
        if (JSCAN_KEY(k, kl, "text")) {
            ok = !(seen & 1) && jscan_string_or_null(s, &p->text);
            seen |= 1;
        } else if (JSCAN_KEY(k, kl, "thought")) {
            ok = !(seen & 2) && jscan_bool(s, &p->thought);
            seen |= 2;
        } else if (JSCAN_KEY(k, kl, "thoughtSignature") || JSCAN_KEY(k, kl, "functionCall") ||
                   JSCAN_KEY(k, kl, "inlineData")) {
            ok = 0;
        } else {
            ok = jscan_skip(s);
        }
        if (!ok)
            return 0;
    }
    return r == 0;
}

static int scan_content(jscan *s, scan_resp *sr)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        if (!JSCAN_KEY(k, kl, "parts")) {
            if (!jscan_skip(s))
                return 0;
            continue;
        }
        int e;
        if (seen || !jscan_array(s))
            return 0;
        seen = 1;
        while ((e = jscan_element(s)) == 1) {
            if (sr->n_parts == GEMINI_SCAN_MAX_PARTS)
                return 0;
            scan_part *p = &sr->parts[sr->n_parts++];
            p->text = NULL;
            p->thought = 0;
            if (!scan_part_(s, p))
                return 0;
        }
        if (e != 0)
            return 0;
    }
    return r == 0;
}

static int scan_candidate(jscan *s, scan_resp *sr)
{
    const char *k;
    size_t kl;
    int r, seen = 0;
    if (!jscan_object(s))
        return 0;
    while ((r = jscan_member(s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "content")        ? 1
                  : JSCAN_KEY(k, kl, "finishReason") ? 2
                                                        : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        int ok = bit == 1 ? scan_content(s, sr) : bit == 2 ? jscan_null(s) : jscan_skip(s);
        if (!ok)
            return 0;
    }
    return r == 0;
}

/* 1 when the response was scanned and decoded (*rc its status), 0 when it must
 * take the json-c path. */
static int scan_response(gemini_decoder *d, const char *data, size_t len, seam_emitter *out,
                         int *rc)
{
    jscan s;
    if (d->stop_emitted || !jscan_begin(&s, &d->scan, data, len) || !jscan_object(&s))
        return 0;
    scan_resp sr;
    memset(&sr, 0, sizeof sr);
    const char *response_id = NULL;
    const char *k;
    size_t kl;
    int r, seen = 0;
    while ((r = jscan_member(&s, &k, &kl)) == 1) {
        int bit = JSCAN_KEY(k, kl, "candidates")      ? 1
                  : JSCAN_KEY(k, kl, "usageMetadata") ? 2
                  : JSCAN_KEY(k, kl, "responseId")    ? 4
                                                         : 0;
        if (bit & seen)
            return 0;
        seen |= bit;
        int ok;
        if (bit == 1) {
            int e;
            ok = jscan_array(&s);
            if (ok && (e = jscan_element(&s)) == 1) {
                ok = scan_candidate(&s, &sr);
                while (ok && (e = jscan_element(&s)) == 1)
                    ok = jscan_skip(&s);
            }
            ok = ok && e == 0;
        } else if (bit == 2) {
            ok = scan_usage(&s, &sr);
        } else if (bit == 4) {
            ok = jscan_string_or_null(&s, &response_id);
        } else {
            ok = !JSCAN_KEY(k, kl, "error") && !JSCAN_KEY(k, kl, "promptFeedback") &&
                 jscan_skip(&s);
        }
        if (!ok)
            return 0;
    }
    if (r != 0 || !jscan_end(&s))
        return 0;
    note_id(d, out, response_id);
    /* decode_response_object's order: usage, parts, (finish), stop. */
    if (sr.usage_here) {
        usage_from_counts(sr.has, sr.n, &d->usage);
        d->have_usage = 1;
    }
    *rc = SEAM_OK;
    for (size_t i = 0; *rc == SEAM_OK && i < sr.n_parts; i++)
        *rc = decode_part_fields(d, out, sr.parts[i].text, sr.parts[i].thought, NULL, NULL);
    if (*rc == SEAM_OK && d->finished && sr.usage_here)
        *rc = emit_stop(d, out);
    return 1;
}

static int decode_json_text(gemini_decoder *d, const char *data, size_t len, seam_emitter *out,
                            seam_error *err)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)data[i]))
        i++;
    if (i == len)
        return SEAM_OK; /* an empty event (keep-alive) */
    int rc_fast;
    if (scan_response(d, data + i, len - i, out, &rc_fast))
        return rc_fast;
    json_object *root = parse_json_len(data + i, len - i);
    if (!root)
        return malformed(err, "a response event is not valid JSON");
    int rc = SEAM_OK;
    if (jis(root, json_type_array)) {
        /* The non-SSE stream shape: an array of responses. */
        for (size_t k = 0; rc == SEAM_OK && k < json_object_array_length(root); k++)
            rc = decode_response_object(d, json_object_array_get_idx(root, k), out, err);
    } else if (jis(root, json_type_object)) {
        rc = decode_response_object(d, root, out, err);
    } else {
        rc = malformed(err, "a response event is not a JSON object");
    }
    json_object_put(root);
    return rc;
}

int gemini_decode_event(void *decoder, const seam_frame *frame, seam_emitter *out,
                               seam_error *err)
{
    gemini_decoder *d = decoder;
    if (!frame || !frame->data)
        return SEAM_OK;
    return decode_json_text(d, frame->data, frame->data_len, out, err);
}

int gemini_decode_finish(void *decoder, seam_emitter *out, seam_error *err)
{
    gemini_decoder *d = decoder;
    (void)err;
    if (d->stop_emitted || !d->finished)
        return SEAM_OK; /* no finishReason: the core reports the cut stream */
    return emit_stop(d, out);
}

int gemini_decode_response(void *instance, const seam_request *req, const char *body,
                                  size_t len, seam_emitter *out, seam_error *err)
{
    gemini_decoder *d = gemini_decoder_new(instance, req);
    if (!d)
        return nomem(err);
    int rc = decode_json_text(d, body ? body : "", body ? len : 0, out, err);
    if (rc == SEAM_OK)
        rc = gemini_decode_finish(d, out, err);
    if (rc == SEAM_OK && !d->stop_emitted)
        rc = malformed(err, "the response has no candidate with a finishReason");
    gemini_decoder_free(d);
    return rc;
}

