/* result.c — seam_result and the accumulator seam_result_add_chunk(): folds a
 * stream of seam chunks into the assistant message (parts in stream order), the
 * stop reason, the usage and the error, exactly as a blocking generate returns
 * them. Tracks the reasoning blocks and tool calls still open, by id, so that
 * interleaved deltas land in the right part. */
#include "config.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tool call between its start and end chunks: its part and its argument text. */
typedef struct open_call {
    char *id;
    size_t part;
    seam_buf args;
} open_call;

/* A reasoning block between its start (or first delta) and its end chunk. */
typedef struct open_reasoning {
    char *id;
    size_t part;
} open_reasoning;

/* Media between its start and its end: the transcript its deltas carried. */
typedef struct open_media {
    char *id;
    seam_buf transcript;
} open_media;

struct seam_result {
    seam_message *message; /* SEAM_ROLE_ASSISTANT */
    seam_stop_reason stop_reason;
    seam_usage usage;
    char *provider;
    char *model;
    char *response_id; /* the provider's id for the answer, from the stop chunk */
    int incomplete;
    int has_error;
    seam_error error;
    open_call *calls;
    size_t n_calls;
    size_t cap_calls;
    open_reasoning *reasonings;
    size_t n_reasonings;
    size_t cap_reasonings;
    int64_t media_images;  /* output images: the media_units entry (image, count) */
    double media_seconds[2]; /* audio, video: the (modality, second) entries: the seconds
                              * generation endpoints reported (seam_result_add_media_seconds)
                              * plus the durations media_end chunks gave */
    int media_timed[2];      /* an audio / video part with a known duration was seen */
    open_media *media;
    size_t n_media;
};

seam_result *seam_result_new(void)
{
    seam_result *res = calloc(1, sizeof *res);
    if (!res)
        return NULL;
    res->message = seam_message_new(SEAM_ROLE_ASSISTANT);
    if (!res->message) {
        free(res);
        return NULL;
    }
    seam_error_clear(&res->error);
    return res;
}

static void close_call(seam_result *res, size_t k)
{
    free(res->calls[k].id);
    seam_buf_free(&res->calls[k].args);
    res->calls[k] = res->calls[--res->n_calls];
}

static void close_reasoning(seam_result *res, size_t k)
{
    free(res->reasonings[k].id);
    res->reasonings[k] = res->reasonings[--res->n_reasonings];
}

void seam_result_free(seam_result *res)
{
    if (!res)
        return;
    while (res->n_calls)
        close_call(res, 0);
    free(res->calls);
    while (res->n_reasonings)
        close_reasoning(res, 0);
    free(res->reasonings);
    for (size_t i = 0; i < res->n_media; i++) {
        free(res->media[i].id);
        seam_buf_free(&res->media[i].transcript);
    }
    free(res->media);
    seam_message_free(res->message);
    free(res->provider);
    free(res->model);
    free(res->response_id);
    free(res);
}

/* Chunks may leave a reasoning id out (wires without block ids): "" stands in. */
static const char *chunk_id(const seam_chunk *chunk)
{
    return chunk->id ? chunk->id : "";
}

static open_call *find_call(seam_result *res, const char *id)
{
    for (size_t k = 0; k < res->n_calls; k++)
        if (strcmp(res->calls[k].id, id) == 0)
            return &res->calls[k];
    return NULL;
}

static open_reasoning *find_reasoning(seam_result *res, const char *id)
{
    for (size_t k = 0; k < res->n_reasonings; k++)
        if (strcmp(res->reasonings[k].id, id) == 0)
            return &res->reasonings[k];
    return NULL;
}

static size_t last_part(const seam_result *res)
{
    return seam_message_part_count(res->message) - 1;
}

/* ---- text ------------------------------------------------------------------------ */

static int add_text_delta(seam_result *res, const seam_chunk *chunk)
{
    if (!chunk->text)
        return SEAM_ERR_INVALID;
    if (!*chunk->text)
        return SEAM_OK;
    size_t n = seam_message_part_count(res->message);
    if (n && seam_part_get_type(seam_message_part(res->message, n - 1)) == SEAM_PART_TEXT)
        return seam_message_append_part_text(res->message, n - 1, chunk->text,
                                             strlen(chunk->text));
    return seam_message_add_text(res->message, chunk->text);
}

/* ---- reasoning ------------------------------------------------------------------- */

/* Opens a reasoning block: a new empty reasoning part, tracked under id. */
static int open_reasoning_block(seam_result *res, const char *id, open_reasoning **out)
{
    if (res->n_reasonings == res->cap_reasonings) {
        size_t cap = res->cap_reasonings ? res->cap_reasonings * 2 : 4;
        open_reasoning *r = realloc(res->reasonings, cap * sizeof *r);
        if (!r)
            return SEAM_ERR_NOMEM;
        res->reasonings = r;
        res->cap_reasonings = cap;
    }
    char *id_copy = seam_strdup(id);
    if (!id_copy)
        return SEAM_ERR_NOMEM;
    int rc = seam_message_add_reasoning(res->message, "", NULL, 0);
    if (rc != SEAM_OK) {
        free(id_copy);
        return rc;
    }
    open_reasoning *r = &res->reasonings[res->n_reasonings++];
    r->id = id_copy;
    r->part = last_part(res);
    *out = r;
    return SEAM_OK;
}

static int reasoning_start(seam_result *res, const seam_chunk *chunk)
{
    open_reasoning *r;
    if (find_reasoning(res, chunk_id(chunk)))
        return SEAM_ERR_INVALID; /* started twice */
    return open_reasoning_block(res, chunk_id(chunk), &r);
}

static int reasoning_delta(seam_result *res, const seam_chunk *chunk)
{
    if (!chunk->text)
        return SEAM_ERR_INVALID;
    open_reasoning *r = find_reasoning(res, chunk_id(chunk));
    if (!r) {
        /* A delta without a start opens the block implicitly. */
        int rc = open_reasoning_block(res, chunk_id(chunk), &r);
        if (rc != SEAM_OK)
            return rc;
    }
    return seam_message_append_part_text(res->message, r->part, chunk->text,
                                         strlen(chunk->text));
}

static int reasoning_end(seam_result *res, const seam_chunk *chunk)
{
    open_reasoning *r = find_reasoning(res, chunk_id(chunk));
    if (!r) {
        /* An end alone is a block with no text (e.g. only a signature). */
        int rc = open_reasoning_block(res, chunk_id(chunk), &r);
        if (rc != SEAM_OK)
            return rc;
    }
    int rc = seam_message_set_part_signature(res->message, r->part, chunk->signature,
                                             chunk->redacted);
    if (rc == SEAM_OK)
        close_reasoning(res, (size_t)(r - res->reasonings));
    return rc;
}

/* ---- tool calls ------------------------------------------------------------------ */

static int tool_call_start(seam_result *res, const seam_chunk *chunk)
{
    if (!chunk->id || !chunk->name || find_call(res, chunk->id))
        return SEAM_ERR_INVALID;
    if (res->n_calls == res->cap_calls) {
        size_t cap = res->cap_calls ? res->cap_calls * 2 : 4;
        open_call *calls = realloc(res->calls, cap * sizeof *calls);
        if (!calls)
            return SEAM_ERR_NOMEM;
        res->calls = calls;
        res->cap_calls = cap;
    }
    char *id_copy = seam_strdup(chunk->id);
    if (!id_copy)
        return SEAM_ERR_NOMEM;
    int rc = seam_message_add_tool_call(res->message, chunk->id, chunk->name, "{}");
    if (rc != SEAM_OK) {
        free(id_copy);
        return rc;
    }
    open_call *call = &res->calls[res->n_calls++];
    memset(call, 0, sizeof *call);
    call->id = id_copy;
    call->part = last_part(res);
    return SEAM_OK;
}

static int tool_call_delta(seam_result *res, const seam_chunk *chunk)
{
    open_call *call = chunk->id ? find_call(res, chunk->id) : NULL;
    if (!call || !chunk->text)
        return SEAM_ERR_INVALID;
    return seam_buf_puts(&call->args, chunk->text);
}

/* Sets the call's final arguments and closes it. Arguments that are not a JSON
 * object leave the call with {} and give SEAM_ERR_INVALID. */
static int finish_call(seam_result *res, open_call *call, const char *args_json)
{
    if (!args_json)
        args_json = call->args.data ? call->args.data : "";
    int rc = seam_message_set_part_args(res->message, call->part, args_json);
    if (rc == SEAM_ERR_INVALID) {
        /* The part already holds {} from the start chunk. */
        close_call(res, (size_t)(call - res->calls));
        return SEAM_ERR_INVALID;
    }
    if (rc == SEAM_OK)
        close_call(res, (size_t)(call - res->calls));
    return rc;
}

static int tool_call_end(seam_result *res, const seam_chunk *chunk)
{
    open_call *call = chunk->id ? find_call(res, chunk->id) : NULL;
    if (!call)
        return SEAM_ERR_INVALID;
    return finish_call(res, call, chunk->args_json);
}

/* Provider-executed: recorded, never run. Its call (same id), if the plugin
 * emitted one, is marked too so that no tool loop runs it a second time. */
static int tool_result(seam_result *res, const seam_chunk *chunk)
{
    if (!chunk->id || !chunk->result_json)
        return SEAM_ERR_INVALID;
    int rc = seam_message_add_tool_result(res->message, chunk->id, chunk->name,
                                          chunk->result_json, chunk->is_error);
    if (rc != SEAM_OK)
        return rc;
    seam_message_set_part_provider_executed(res->message, last_part(res), 1);
    for (size_t i = last_part(res); i-- > 0;) {
        const seam_part *p = seam_message_part(res->message, i);
        if (seam_part_get_type(p) == SEAM_PART_TOOL_CALL &&
            strcmp(seam_part_tool_call_id(p), chunk->id) == 0) {
            seam_message_set_part_provider_executed(res->message, i, 1);
            break;
        }
    }
    return SEAM_OK;
}

/* ---- the end of the stream ------------------------------------------------------ */

/* Closes whatever is still open: reasoning blocks keep what they got, tool calls
 * are finished from their fragments. Returns SEAM_ERR_INVALID when some call's
 * arguments were not a JSON object (it keeps {}), after closing everything. */
static int close_everything(seam_result *res)
{
    int rc = SEAM_OK;
    while (res->n_reasonings)
        close_reasoning(res, 0);
    while (res->n_calls) {
        int one = finish_call(res, &res->calls[0], NULL);
        if (one == SEAM_ERR_NOMEM) {
            /* Keep {} rather than leave the call open forever. */
            close_call(res, 0);
        }
        if (one != SEAM_OK && rc != SEAM_ERR_NOMEM)
            rc = one;
    }
    return rc;
}

static int fold_stop(seam_result *res, const seam_chunk *chunk)
{
    int rc = close_everything(res);
    /* An error already folded in stays the outcome. */
    if (!res->has_error)
        res->stop_reason = chunk->stop_reason;
    res->usage = chunk->usage;
    if (chunk->id && *chunk->id) {
        char *id = seam_strdup(chunk->id);
        if (!id)
            return SEAM_ERR_NOMEM;
        free(res->response_id);
        res->response_id = id;
    }
    return rc;
}

static int fold_error(seam_result *res, const seam_chunk *chunk)
{
    if (!chunk->error)
        return SEAM_ERR_INVALID;
    /* Arguments cut short by the failure are expected to be broken: not reported. */
    close_everything(res);
    res->error = *chunk->error;
    res->has_error = 1;
    res->stop_reason = SEAM_STOP_ERROR;
    return SEAM_OK;
}

static open_media *find_media(seam_result *res, const char *id, int create)
{
    for (size_t k = 0; k < res->n_media; k++)
        if (strcmp(res->media[k].id, id) == 0)
            return &res->media[k];
    if (!create)
        return NULL;
    open_media *m = realloc(res->media, (res->n_media + 1) * sizeof *m);
    if (!m)
        return NULL;
    res->media = m;
    m = &res->media[res->n_media];
    memset(m, 0, sizeof *m);
    if (!(m->id = seam_strdup(id)))
        return NULL;
    res->n_media++;
    return m;
}

/* media_delta: a piece of the transcript (audio), when it carries text. */
static int fold_media_delta(seam_result *res, const seam_chunk *chunk)
{
    if (!chunk->text || !*chunk->text)
        return SEAM_OK;
    open_media *m = find_media(res, chunk_id(chunk), 1);
    if (!m)
        return SEAM_ERR_NOMEM;
    return seam_buf_append(&m->transcript, chunk->text, strlen(chunk->text));
}

/* A count in a media chunk's metadata ({"byte_length":N,"duration_ms":M},
 * written by the core), -1 when absent. */
static int64_t meta_count(const char *meta, const char *key)
{
    char quoted[32];
    snprintf(quoted, sizeof quoted, "\"%s\":", key);
    const char *at = meta ? strstr(meta, quoted) : NULL;
    if (!at)
        return -1;
    char *end;
    long long v = strtoll(at + strlen(quoted), &end, 10);
    return end != at + strlen(quoted) && v >= 0 ? (int64_t)v : -1;
}

/* media_end: the part as the handle it carries (a legacy chunk with any
 * other text is kept as a URL), with the transcript its deltas carried and
 * the length and duration its metadata says. Each image counts one output
 * image unit; audio and video count their seconds. */
static int fold_media_end(seam_result *res, const seam_chunk *chunk)
{
    if (!chunk->text || !chunk->mime_type)
        return SEAM_ERR_INVALID;
    int handle = seam_media_handle_valid(chunk->text);
    open_media *om = find_media(res, chunk_id(chunk), 0);
    seam_media_meta meta = {.size = sizeof meta,
                            .transcript = om && om->transcript.len ? om->transcript.data : NULL,
                            .byte_length = meta_count(chunk->result_json, "byte_length"),
                            .duration_ms = meta_count(chunk->result_json, "duration_ms")};
    int rc = seam_message_add_media_meta(res->message, chunk->mime_type,
                                         handle ? SEAM_MEDIA_HANDLE : SEAM_MEDIA_URL, chunk->text,
                                         &meta);
    if (om) {
        free(om->id);
        seam_buf_free(&om->transcript);
        *om = res->media[--res->n_media];
    }
    if (rc != SEAM_OK)
        return rc;
    uint32_t modality = seam_media_modality(chunk->mime_type);
    if (modality == SEAM_MODALITY_IMAGE)
        res->media_images++;
    int timed = modality == SEAM_MODALITY_AUDIO ? 0 : modality == SEAM_MODALITY_VIDEO ? 1 : -1;
    if (timed >= 0 && meta.duration_ms >= 0) {
        res->media_seconds[timed] += (double)meta.duration_ms / 1000.0;
        res->media_timed[timed] = 1;
    }
    return SEAM_OK;
}

/* The entries present, in the order image, audio, video. */
static size_t media_units_entries(const seam_result *res, uint32_t modality[3])
{
    size_t n = 0;
    if (!res)
        return 0;
    if (res->media_images > 0)
        modality[n++] = SEAM_MODALITY_IMAGE;
    if (res->media_timed[0])
        modality[n++] = SEAM_MODALITY_AUDIO;
    if (res->media_timed[1])
        modality[n++] = SEAM_MODALITY_VIDEO;
    return n;
}

size_t seam_result_media_units_count(const seam_result *res)
{
    uint32_t m[3];
    return media_units_entries(res, m);
}

int seam_result_media_units_at(const seam_result *res, size_t i, uint32_t *modality,
                               double *units, const char **unit)
{
    uint32_t m[3];
    if (i >= media_units_entries(res, m))
        return SEAM_ERR_INVALID;
    if (modality)
        *modality = m[i];
    if (units)
        *units = m[i] == SEAM_MODALITY_IMAGE ? (double)res->media_images
                                              : res->media_seconds[m[i] == SEAM_MODALITY_VIDEO];
    if (unit)
        *unit = m[i] == SEAM_MODALITY_IMAGE ? "count" : "second";
    return SEAM_OK;
}

int seam_result_add_media_seconds(seam_result *res, uint32_t modality, double seconds)
{
    if (!res || !(seconds > 0) ||
        (modality != SEAM_MODALITY_AUDIO && modality != SEAM_MODALITY_VIDEO))
        return SEAM_ERR_INVALID;
    res->media_seconds[modality == SEAM_MODALITY_VIDEO] += seconds;
    res->media_timed[modality == SEAM_MODALITY_VIDEO] = 1;
    return SEAM_OK;
}

int seam_result_add_chunk(seam_result *res, const seam_chunk *chunk)
{
    if (!res || !chunk)
        return SEAM_ERR_INVALID;
    switch (chunk->type) {
    case SEAM_CHUNK_TEXT_DELTA: return add_text_delta(res, chunk);
    case SEAM_CHUNK_REASONING_START: return reasoning_start(res, chunk);
    case SEAM_CHUNK_REASONING_DELTA: return reasoning_delta(res, chunk);
    case SEAM_CHUNK_REASONING_END: return reasoning_end(res, chunk);
    case SEAM_CHUNK_TOOL_CALL_START: return tool_call_start(res, chunk);
    case SEAM_CHUNK_TOOL_CALL_DELTA: return tool_call_delta(res, chunk);
    case SEAM_CHUNK_TOOL_CALL_END: return tool_call_end(res, chunk);
    case SEAM_CHUNK_MEDIA_START:
        return SEAM_OK; /* the part comes with media_end */
    case SEAM_CHUNK_MEDIA_DELTA:
        return fold_media_delta(res, chunk);
    case SEAM_CHUNK_MEDIA_END:
        return fold_media_end(res, chunk);
    case SEAM_CHUNK_TOOL_RESULT: return tool_result(res, chunk);
    case SEAM_CHUNK_STOP: return fold_stop(res, chunk);
    case SEAM_CHUNK_ERROR: return fold_error(res, chunk);
    case SEAM_CHUNK_STREAM_START: return SEAM_OK; /* the origin is set by the caller */
    case SEAM_CHUNK_STEP_FINISH: return SEAM_OK;  /* the loop's, not one answer's */
    }
    return SEAM_ERR_INVALID;
}

/* ---- readers ---------------------------------------------------------------------- */

const seam_message *seam_result_message(const seam_result *res)
{
    return res ? res->message : NULL;
}

const char *seam_result_text(const seam_result *res)
{
    return res ? seam_message_text(res->message) : "";
}

seam_stop_reason seam_result_stop_reason(const seam_result *res)
{
    return res ? res->stop_reason : SEAM_STOP_NONE;
}

const seam_usage *seam_result_usage(const seam_result *res)
{
    return res ? &res->usage : NULL;
}

const char *seam_result_provider(const seam_result *res)
{
    return res ? res->provider : NULL;
}

const char *seam_result_model(const seam_result *res)
{
    return res ? res->model : NULL;
}

const char *seam_result_response_id(const seam_result *res)
{
    return res ? res->response_id : NULL;
}

int seam_result_set_origin(seam_result *res, const char *provider, const char *model)
{
    if (!res)
        return SEAM_ERR_INVALID;
    char *provider_copy = seam_strdup(provider);
    char *model_copy = seam_strdup(model);
    if ((provider && !provider_copy) || (model && !model_copy)) {
        free(provider_copy);
        free(model_copy);
        return SEAM_ERR_NOMEM;
    }
    free(res->provider);
    free(res->model);
    res->provider = provider_copy;
    res->model = model_copy;
    return SEAM_OK;
}

int seam_result_incomplete(const seam_result *res)
{
    return res ? res->incomplete : 0;
}

void seam_result_set_incomplete(seam_result *res, int incomplete)
{
    if (res)
        res->incomplete = incomplete != 0;
}

const seam_error *seam_result_error(const seam_result *res)
{
    return res && res->has_error ? &res->error : NULL;
}
