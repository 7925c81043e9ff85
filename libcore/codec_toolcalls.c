/* codec_toolcalls.c — owns the tool-call assembler of the codec SDK
 * (<seam/codec.h>): streamed tool-call fragments (by index, or by id where a
 * wire gives no index) -> tool_call_start / _delta / _end chunks, with the
 * arguments held until a call's name is known and the whole arguments
 * normalized at the end. Lifted from the openai codec's decoder, which every
 * OpenAI-compatible wire needs alike. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seam/codec.h>

#include "internal.h"

typedef struct slot {
    int index; /* the wire's index, or -1 when the server sent none */
    char *id;
    char *name;
    seam_buf args; /* fragments received before the start was emitted, then all */
    int started;
    int ended;
} slot;

struct seam_toolcalls {
    slot *slots;
    size_t n, cap;
    unsigned synthesized; /* ids made for calls that came without one */
    seam_toolcalls_hook hook;
    void *hook_ud;
    json_tokener *tok; /* for the final arguments, made on first use */
};

seam_toolcalls *seam_toolcalls_new(void)
{
    return calloc(1, sizeof(seam_toolcalls));
}

void seam_toolcalls_free(seam_toolcalls *tc)
{
    if (!tc)
        return;
    for (size_t i = 0; i < tc->n; i++) {
        free(tc->slots[i].id);
        free(tc->slots[i].name);
        seam_buf_free(&tc->slots[i].args);
    }
    free(tc->slots);
    if (tc->tok)
        json_tokener_free(tc->tok);
    free(tc);
}

void seam_toolcalls_set_hook(seam_toolcalls *tc, seam_toolcalls_hook fn, void *ud)
{
    if (!tc)
        return;
    tc->hook = fn;
    tc->hook_ud = ud;
}

size_t seam_toolcalls_count(const seam_toolcalls *tc)
{
    return tc ? tc->n : 0;
}

static slot *new_slot(seam_toolcalls *tc, int index)
{
    if (tc->n == tc->cap) {
        size_t cap = tc->cap ? tc->cap * 2 : 4;
        slot *t = realloc(tc->slots, cap * sizeof *t);
        if (!t)
            return NULL;
        tc->slots = t;
        tc->cap = cap;
    }
    slot *s = &tc->slots[tc->n++];
    memset(s, 0, sizeof *s);
    s->index = index;
    return s;
}

/* The slot a fragment belongs to (the rules are in <seam/codec.h>). */
static slot *slot_for(seam_toolcalls *tc, int index, const char *id, const char *name)
{
    int has_index = index >= 0;
    int have_id = id && *id;
    int have_name = name && *name;
    for (size_t i = tc->n; i-- > 0;) {
        slot *s = &tc->slots[i];
        if (s->ended)
            continue;
        if (has_index) {
            if (s->index != index)
                continue;
            if (have_id && s->id && strcmp(s->id, id) != 0)
                break; /* a new call on a reused index */
            if (have_name && s->name && strcmp(s->name, name) != 0)
                break;
            return s;
        }
        if (have_id) {
            if (s->id && strcmp(s->id, id) == 0)
                return s;
            continue;
        }
        if (have_name)
            break;
        return s; /* the most recent open call */
    }
    return new_slot(tc, has_index ? index : -1);
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int emit_chunk(seam_emitter *em, const seam_chunk *c)
{
    return seam_emit(em, c);
}

static int start_slot(seam_toolcalls *tc, slot *s, seam_emitter *em)
{
    int rc;
    if (tc->hook && (rc = tc->hook(tc->hook_ud, em)) != SEAM_OK)
        return rc;
    if (!s->id || !*s->id) {
        char buf[48];
        snprintf(buf, sizeof buf, "call_seam_%u", tc->synthesized++);
        free(s->id);
        if (!(s->id = strdup(buf)))
            return SEAM_ERR_NOMEM;
    }
    s->started = 1;
    seam_chunk c = {.type = SEAM_CHUNK_TOOL_CALL_START, .id = s->id, .name = s->name ? s->name : ""};
    if ((rc = emit_chunk(em, &c)) != SEAM_OK)
        return rc;
    if (s->args.len) {
        seam_chunk dl = {.type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = s->id, .text = s->args.data};
        return emit_chunk(em, &dl);
    }
    return SEAM_OK;
}

int seam_toolcalls_add(seam_toolcalls *tc, seam_emitter *em, int index, const char *id,
                       const char *name, const char *args)
{
    if (!tc)
        return SEAM_ERR_INVALID;
    slot *s = slot_for(tc, index, id, name);
    if (!s)
        return SEAM_ERR_NOMEM;
    if (id && *id && !s->id && !(s->id = dup_or_null(id)))
        return SEAM_ERR_NOMEM;
    if (name && *name && !s->name && !(s->name = dup_or_null(name)))
        return SEAM_ERR_NOMEM;
    if (args && *args && seam_buf_puts(&s->args, args) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    if (!s->started) {
        if (s->name) /* id and name come on the first fragment; wait for the name */
            return start_slot(tc, s, em);
        return SEAM_OK;
    }
    if (args && *args) {
        seam_chunk c = {.type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = s->id, .text = args};
        return emit_chunk(em, &c);
    }
    return SEAM_OK;
}

/* The whole arguments text for tool_call_end: "" means {}; a JSON object is
 * re-serialized; anything else is passed on for the accumulator to reject. */
static char *final_args(seam_toolcalls *tc, const char *text, size_t len)
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
        return strdup("{}");
    if (!tc->tok && !(tc->tok = json_tokener_new()))
        return NULL;
    json_object *obj = seam_json_read_with(tc->tok, p, len);
    char *out;
    if (obj && json_object_is_type(obj, json_type_object)) {
        const char *t = seam_json_text(obj);
        out = t ? strdup(t) : NULL;
    } else {
        out = strdup(whole);
    }
    json_object_put(obj);
    return out;
}

int seam_toolcalls_finish(seam_toolcalls *tc, seam_emitter *em)
{
    if (!tc)
        return SEAM_ERR_INVALID;
    int rc;
    for (size_t i = 0; i < tc->n; i++) {
        slot *s = &tc->slots[i];
        if (s->ended)
            continue;
        if (!s->started && (rc = start_slot(tc, s, em)) != SEAM_OK)
            return rc;
        s->ended = 1;
        char *args = final_args(tc, s->args.data, s->args.len);
        if (!args)
            return SEAM_ERR_NOMEM;
        seam_chunk c = {.type = SEAM_CHUNK_TOOL_CALL_END, .id = s->id, .args_json = args};
        rc = emit_chunk(em, &c);
        free(args);
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}
