/* serve.c — the vtable's serve: the bytes a mock server would send. The
 * request's URL picks the operation (embeddings, token count, media,
 * transcription: their files); a chat request's script (script.c) becomes SSE
 * events of the mock's own small wire when streaming, a JSON body otherwise,
 * or a scripted HTTP error / cut stream.
 *
 * The mock's wire. Streamed, one SSE event per served piece, `event:` = type:
 *   {"type":"reasoning_delta","text":T}   {"type":"reasoning_end","signature":S}
 *   {"type":"text_delta","text":T}
 *   {"type":"tool_call_start","id":I,"name":N}  {"type":"tool_call_delta","id":I,"text":F}
 *   {"type":"tool_call_end","id":I}
 *   {"type":"stop","stop_reason":R,"usage":{...}}   {"type":"error","error":{"type":K,"message":M}}
 * Whole: {"content":[{"type":"reasoning"|"text"|"tool_call",...}],"stop_reason":R,
 *         "usage":{...}} (with "error" instead of stop_reason/usage for a stream_error). */
#include "config.h"

#include <seam/plugin.h>

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/codec_util.h"
#include "mock_internal.h"

/* Calls piece(ud, p, len) for at most n pieces of s of roughly equal numbers of
 * code points (never splitting a UTF-8 sequence). Nothing for an empty s. */
static int split_utf8(const char *s, long n, int (*piece)(void *, const char *, size_t), void *ud)
{
    size_t cps = 0;
    for (const char *p = s; *p; p++)
        if (((unsigned char)*p & 0xC0) != 0x80)
            cps++;
    if (cps == 0)
        return 0;
    if (n < 1)
        n = 1;
    if ((size_t)n > cps)
        n = (long)cps;
    const char *start = s;
    size_t cp_index = 0;
    for (long k = 0; k < n; k++) {
        size_t end_cp = (size_t)(((unsigned long long)(k + 1) * cps) / (unsigned long long)n);
        const char *p = start;
        /* Advance to the start of code point end_cp (or the end of the string). */
        while (*p && cp_index < end_cp) {
            p++;
            while (*p && ((unsigned char)*p & 0xC0) == 0x80)
                p++;
            cp_index++;
        }
        int rc = piece(ud, start, (size_t)(p - start));
        if (rc)
            return rc;
        start = p;
    }
    return 0;
}

/* ---- serve: the bytes a mock server would send ------------------------------------ */

typedef struct piece_list {
    char **v;
    size_t n, cap;
    int failed;
} piece_list;

static void pieces_take(piece_list *l, char *s)
{
    if (!s || l->failed) {
        free(s);
        l->failed = 1;
        return;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **p = realloc(l->v, cap * sizeof *p);
        if (!p) {
            free(s);
            l->failed = 1;
            return;
        }
        l->v = p;
        l->cap = cap;
    }
    l->v[l->n++] = s;
}

static void pieces_free(piece_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* Adds one SSE event "event: <type>\ndata: <json>\n\n" and releases ev. */
static void add_event(piece_list *l, json_object *ev)
{
    char *s = NULL;
    if (ev) {
        const char *type = jstr(ev, "type");
        /* json-c's printer skips what it cannot append and still returns the
         * text: errno ENOMEM is the only sign of an event printed short. */
        errno = 0;
        const char *data = json_object_to_json_string_ext(ev, JSON_FLAGS);
        if (errno == ENOMEM)
            data = NULL;
        if (type && data && asprintf(&s, "event: %s\ndata: %s\n\n", type, data) < 0)
            s = NULL;
        json_object_put(ev);
    }
    pieces_take(l, s);
}

static json_object *event_new(const char *type)
{
    json_object *ev = json_object_new_object();
    if (ev && mock_add_string(ev, "type", type) != 0) {
        json_object_put(ev);
        return NULL;
    }
    return ev;
}

typedef struct delta_ctx {
    piece_list *l;
    const char *type;
    const char *id; /* tool call deltas only */
} delta_ctx;

static int add_delta(void *ud, const char *text, size_t len)
{
    delta_ctx *d = ud;
    json_object *ev = event_new(d->type);
    if (ev && d->id)
        mock_add_string(ev, "id", d->id);
    json_object *t = json_object_new_string_len(text, (int)len);
    if (ev && (!t || mock_put(ev, "text", t) != 0)) {
        json_object_put(ev);
        ev = NULL;
    }
    add_event(d->l, ev);
    return d->l->failed;
}

static json_object *usage_json(const seam_usage *u)
{
    json_object *o = json_object_new_object();
    int rc = 0;
    if (u->present & SEAM_USAGE_INPUT)
        rc |= mock_put(o, "input_tokens", json_object_new_int64(u->input_tokens));
    if (u->present & SEAM_USAGE_OUTPUT)
        rc |= mock_put(o, "output_tokens", json_object_new_int64(u->output_tokens));
    if (u->present & SEAM_USAGE_CACHE_READ)
        rc |= mock_put(o, "cache_read_tokens", json_object_new_int64(u->cache_read_tokens));
    if (u->present & SEAM_USAGE_CACHE_WRITE)
        rc |= mock_put(o, "cache_write_tokens", json_object_new_int64(u->cache_write_tokens));
    if (u->present & SEAM_USAGE_REASONING)
        rc |= mock_put(o, "reasoning_tokens", json_object_new_int64(u->reasoning_tokens));
    if (rc) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static json_object *error_json(const mock_script *sc)
{
    json_object *e = json_object_new_object();
    int rc = mock_add_string(e, "type", sc->stream_error_type ? sc->stream_error_type : "overloaded");
    rc |= mock_add_string(e, "message", sc->stream_error_message ? sc->stream_error_message
                                                             : "mock: scripted stream error");
    if (rc) {
        json_object_put(e);
        return NULL;
    }
    return e;
}

/* Deterministic media: a 1x1 PNG (every chunk's CRC valid) and a WAV of
 * 8 silent 8 kHz 8-bit mono samples, in base64. */
const char mock_png_b64[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const char mock_wav_b64[] =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/* The media items of the answer: an image and/or audio as the request asked. */
static int add_media_items(const mock_script *sc, json_object *(*make)(void),
                           void (*take)(void *, json_object *), void *ud)
{
    int rc = 0;
    const struct { uint32_t bit; const char *mime, *data; } media[] = {
        {SEAM_MODALITY_IMAGE, "image/png", mock_png_b64},
        {SEAM_MODALITY_AUDIO, "audio/wav", mock_wav_b64},
    };
    for (size_t i = 0; i < sizeof media / sizeof media[0]; i++) {
        if (!(sc->media & media[i].bit))
            continue;
        json_object *m = make();
        rc |= mock_add_string(m, "mime_type", media[i].mime);
        rc |= mock_add_string(m, "data", media[i].data);
        take(ud, m);
    }
    return rc;
}

static json_object *media_event(void)
{
    return event_new("media");
}

static void take_event(void *ud, json_object *e)
{
    add_event(ud, e);
}

static json_object *media_part(void)
{
    json_object *p = json_object_new_object();
    mock_add_string(p, "type", "media");
    return p;
}

static void take_part(void *ud, json_object *p)
{
    mock_push(ud, p);
}

/* The SSE events of a streamed answer, in order, one piece each. */
static void stream_events(const mock_script *sc, piece_list *l)
{
    int rc = 0;
    if (sc->reasoning && *sc->reasoning) {
        delta_ctx d = { l, "reasoning_delta", NULL };
        split_utf8(sc->reasoning, sc->chunks, add_delta, &d);
        json_object *end = event_new("reasoning_end");
        rc |= mock_add_string(end, "signature", sc->signature);
        add_event(l, end);
    }
    delta_ctx d = { l, "text_delta", NULL };
    split_utf8(sc->reply, sc->chunks, add_delta, &d);
    rc |= add_media_items(sc, media_event, take_event, l);
    if (sc->stream_error) {
        json_object *ev = event_new("error");
        json_object *e = error_json(sc);
        rc |= e ? mock_put(ev, "error", e) : -1;
        add_event(l, ev);
    } else {
        for (size_t i = 0; i < sc->n_tools; i++) {
            const mock_tool *t = &sc->tools[i];
            json_object *start = event_new("tool_call_start");
            rc |= mock_add_string(start, "id", t->id);
            rc |= mock_add_string(start, "name", t->name);
            add_event(l, start);
            delta_ctx td = { l, "tool_call_delta", t->id };
            split_utf8(t->args, sc->chunks > 2 ? sc->chunks : 2, add_delta, &td);
            json_object *end = event_new("tool_call_end");
            rc |= mock_add_string(end, "id", t->id);
            add_event(l, end);
        }
        json_object *stop = event_new("stop");
        rc |= mock_add_string(stop, "stop_reason", seam_stop_reason_name(sc->stop_reason));
        json_object *usage = usage_json(&sc->usage);
        rc |= usage ? mock_put(stop, "usage", usage) : -1;
        add_event(l, stop);
    }
    if (rc)
        l->failed = 1;
}

/* The JSON body of a non-streamed answer (malloc'ed), NULL when out of memory. */
static char *whole_body(const mock_script *sc)
{
    json_object *root = json_object_new_object();
    json_object *content = json_object_new_array();
    int rc = 0;
    if (sc->reasoning && *sc->reasoning) {
        json_object *p = json_object_new_object();
        rc |= mock_add_string(p, "type", "reasoning");
        rc |= mock_add_string(p, "text", sc->reasoning);
        rc |= mock_add_string(p, "signature", sc->signature);
        rc |= mock_push(content, p);
    }
    if (*sc->reply) {
        json_object *p = json_object_new_object();
        rc |= mock_add_string(p, "type", "text");
        rc |= mock_add_string(p, "text", sc->reply);
        rc |= mock_push(content, p);
    }
    rc |= add_media_items(sc, media_part, take_part, content);
    if (sc->stream_error) {
        json_object *e = error_json(sc);
        rc |= e ? mock_put(root, "error", e) : -1;
    } else {
        for (size_t i = 0; i < sc->n_tools; i++) {
            json_object *p = json_object_new_object();
            rc |= mock_add_string(p, "type", "tool_call");
            rc |= mock_add_string(p, "id", sc->tools[i].id);
            rc |= mock_add_string(p, "name", sc->tools[i].name);
            rc |= mock_put(p, "args", json_parse_strict(sc->tools[i].args, strlen(sc->tools[i].args)));
            rc |= mock_push(content, p);
        }
        rc |= mock_add_string(root, "stop_reason", seam_stop_reason_name(sc->stop_reason));
        json_object *usage = usage_json(&sc->usage);
        rc |= usage ? mock_put(root, "usage", usage) : -1;
    }
    rc |= mock_put(root, "content", content);
    errno = 0;
    const char *s = rc == 0 ? json_object_to_json_string_ext(root, JSON_FLAGS) : NULL;
    char *copy = s && errno != ENOMEM ? strdup(s) : NULL; /* see add_event */
    json_object_put(root);
    return copy;
}

static int add_body_piece(void *ud, const char *text, size_t len)
{
    piece_list *l = ud;
    char *s = malloc(len + 1);
    if (s) {
        memcpy(s, text, len);
        s[len] = '\0';
    }
    pieces_take(l, s);
    return l->failed;
}

static int serve_error(const mock_script *sc, seam_served *out)
{
    int rc = seam_served_set_status(out, sc->error_status);
    if (rc == SEAM_OK)
        rc = seam_served_add_header(out, "Content-Type", "application/json");
    size_t n = sc->error_headers ? json_object_array_length(sc->error_headers) : 0;
    for (size_t i = 0; rc == SEAM_OK && i < n; i++) {
        const char *line = json_object_get_string(json_object_array_get_idx(sc->error_headers, i));
        const char *colon = strchr(line, ':');
        char *name = strndup(line, (size_t)(colon - line));
        const char *value = colon + 1;
        while (*value == ' ' || *value == '\t')
            value++;
        rc = name ? seam_served_add_header(out, name, value) : SEAM_ERR_NOMEM;
        free(name);
    }
    char fallback[160];
    const char *body = sc->error_body;
    if (!body) {
        snprintf(fallback, sizeof fallback,
                 "{\"error\":{\"message\":\"mock: scripted HTTP %d\"}}", sc->error_status);
        body = fallback;
    }
    if (rc == SEAM_OK)
        rc = seam_served_add_piece(out, body, strlen(body), sc->delay_ms);
    return rc;
}

int mock_serve_script_error(json_object *request, seam_served *out, seam_error *err)
{
    json_object *options = jget(request, "options");
    json_object *script = options && json_object_is_type(options, json_type_object)
                              ? mock_script_for_turn(options, 0, err)
                              : json_object_new_object();
    if (!script)
        return err->kind == SEAM_ERROR_BAD_REQUEST ? SEAM_ERR_INVALID : SEAM_ERR_NOMEM;
    mock_script sc = { 0 };
    int rc = mock_read_script(request, script, 0, &sc, err);
    if (rc == SEAM_OK && sc.error_status)
        rc = serve_error(&sc, out) == SEAM_OK ? 1 : SEAM_ERR_NOMEM;
    mock_script_free(&sc);
    json_object_put(script);
    return rc;
}

int mock_serve(void *instance, const seam_http_request *hr, seam_served *out,
                      seam_error *err)
{
    const char *url = seam_http_request_url(hr);
    if (url && strcmp(url, MOCK_EMBED_URL) == 0)
        return mock_embed_serve(instance, hr, out, err);
    if (url && strcmp(url, MOCK_COUNT_URL) == 0)
        return mock_count_serve(instance, hr, out, err);
    if (url && strncmp(url, MOCK_MEDIA_URL, strlen(MOCK_MEDIA_URL)) == 0)
        return mock_media_serve(instance, hr, out, err);
    if (url && strcmp(url, MOCK_TRANSCRIBE_URL) == 0)
        return mock_transcribe_serve(instance, hr, out, err);
    size_t len = 0;
    const char *body = seam_http_request_body(hr, &len);
    json_object *request = body ? json_parse_strict(body, len) : NULL;
    if (!request || !json_object_is_type(request, json_type_object)) {
        json_object_put(request);
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "mock: the request body is not JSON"),
               SEAM_ERR_INVALID;
    }
    json_object *options = jget(request, "options");
    size_t turn = mock_assistant_turns(jget(request, "messages"));
    json_object *script = options && json_object_is_type(options, json_type_object)
                              ? mock_script_for_turn(options, turn, err)
                              : json_object_new_object();
    mock_script sc = { 0 };
    int rc = script ? mock_read_script(request, script, turn, &sc, err)
             : err->kind == SEAM_ERROR_BAD_REQUEST ? SEAM_ERR_INVALID : SEAM_ERR_NOMEM;
    if (!script && rc == SEAM_ERR_NOMEM)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory");
    piece_list l = { 0 };

    if (rc == SEAM_OK && sc.error_status) {
        rc = serve_error(&sc, out);
    } else if (rc == SEAM_OK) {
        int stream = seam_http_request_streaming(hr);
        rc = seam_served_set_status(out, 200);
        if (rc == SEAM_OK)
            rc = seam_served_add_header(out, "Content-Type",
                                        stream ? "text/event-stream" : "application/json");
        if (stream) {
            stream_events(&sc, &l);
        } else {
            char *whole = whole_body(&sc);
            /* A whole body arrives in `chunks` byte pieces too, so delays and cuts
             * apply to non-streamed calls alike. */
            if (whole) {
                size_t blen = strlen(whole), parts = (size_t)sc.chunks;
                if (parts > blen)
                    parts = blen ? blen : 1;
                for (size_t k = 0; k < parts; k++) {
                    size_t from = k * blen / parts, to = (k + 1) * blen / parts;
                    add_body_piece(&l, whole + from, to - from);
                }
            } else {
                l.failed = 1;
            }
            free(whole);
        }
        if (l.failed)
            rc = SEAM_ERR_NOMEM;
        size_t send = l.n;
        if (sc.cut_after >= 0 && (size_t)sc.cut_after < send)
            send = (size_t)sc.cut_after;
        for (size_t i = 0; rc == SEAM_OK && i < send; i++)
            rc = seam_served_add_piece(out, l.v[i], strlen(l.v[i]), sc.delay_ms);
        if (rc == SEAM_OK && sc.cut_after >= 0)
            rc = seam_served_cut(out);
    }
    if (rc == SEAM_ERR_NOMEM)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory");
    pieces_free(&l);
    mock_script_free(&sc);
    json_object_put(script);
    json_object_put(request);
    return rc;
}
