/* json_out.c — owns the JSON shapes of `seam chat --json` (a public contract,
 * issue 2): chunk lines named as the chunk union in snake_case, the final
 * `result` line (with its "steps" when the tool loop ran: issue 7) and the
 * `error` line. Built with json-c so that every string is
 * escaped correctly whatever bytes a provider sends. */
#include "config.h"

#include "json_out.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

/* Plain one-line output; "/" is left alone so URLs and MIME types stay readable. */
#define JSON_OUT_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Set once a line could not be built whole or written: json-c keeps a null
 * member, or drops one, when an allocation fails, and a line with a part
 * missing must not pass for the answer (json_out_failed). */
static int failed;

int json_out_failed(void)
{
    return failed;
}

/* ---- small builders ------------------------------------------------------- */

/* Adds key with a string value, or null when s is NULL. */
static void add_string_or_null(json_object *obj, const char *key, const char *s)
{
    json_object_object_add(obj, key, s ? json_object_new_string(s) : NULL);
}

/* json_tokener_parse_verbose, held to account for memory: json-c 0.16 drops a
 * member or an element whose allocation fails and still "succeeds", and clears
 * errno for every integer it reads, so a failed allocation may leave no trace.
 * The text is parsed twice: two trees that differ (or one parse failing) mean
 * an allocation failed in one of them, and the line would be left short. */
static json_object *parse_checked(const char *text, enum json_tokener_error *jerr)
{
    int saved = errno;
    errno = 0;
    json_object *v = json_tokener_parse_verbose(text, jerr);
    int lost = errno == ENOMEM;
    enum json_tokener_error jerr2 = json_tokener_success;
    json_object *again = json_tokener_parse_verbose(text, &jerr2);
    if (errno == ENOMEM || jerr2 != *jerr || !json_object_equal(v, again))
        lost = 1;
    json_object_put(again);
    if (lost)
        failed = 1;
    errno = saved;
    return v;
}

/* Parses JSON text coming from the library (tool arguments, tool results). The
 * library hands over valid JSON; should it not, the text is kept as a string
 * rather than dropped, so nothing the provider said is lost. */
static json_object *parse_json_text(const char *text)
{
    if (!text)
        return NULL;
    enum json_tokener_error jerr = json_tokener_success;
    json_object *v = parse_checked(text, &jerr);
    if (jerr != json_tokener_success)
        return json_object_new_string(text);
    return v;
}

/* Tool arguments are always an object in the contract: {} stands in for
 * anything that is not one (the accumulator does the same). */
static json_object *parse_args_object(const char *args_json)
{
    json_object *v = NULL;
    if (args_json && *args_json) {
        enum json_tokener_error jerr = json_tokener_success;
        v = parse_checked(args_json, &jerr);
        if (jerr != json_tokener_success)
            v = NULL;
    }
    if (!v || !json_object_is_type(v, json_type_object)) {
        json_object_put(v);
        v = json_object_new_object();
    }
    return v;
}

/* The usage object: a count appears only when its present bit is set, so an
 * unknown count is absent rather than a misleading 0. */
static json_object *usage_object(const seam_usage *u)
{
    json_object *obj = json_object_new_object();
    if (!obj || !u)
        return obj;
    static const struct {
        uint32_t bit;
        const char *key;
        size_t offset;
    } fields[] = {
        {SEAM_USAGE_INPUT, "input_tokens", offsetof(seam_usage, input_tokens)},
        {SEAM_USAGE_OUTPUT, "output_tokens", offsetof(seam_usage, output_tokens)},
        {SEAM_USAGE_CACHE_READ, "cache_read_tokens", offsetof(seam_usage, cache_read_tokens)},
        {SEAM_USAGE_CACHE_WRITE, "cache_write_tokens", offsetof(seam_usage, cache_write_tokens)},
        {SEAM_USAGE_REASONING, "reasoning_tokens", offsetof(seam_usage, reasoning_tokens)},
        {SEAM_USAGE_COST, "cost_microcents", offsetof(seam_usage, cost_microcents)},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (!(u->present & fields[i].bit))
            continue;
        int64_t value;
        memcpy(&value, (const char *)u + fields[i].offset, sizeof value);
        json_object_object_add(obj, fields[i].key, json_object_new_int64(value));
    }
    return obj;
}

static json_object *error_object(const seam_error *err)
{
    json_object *e = json_object_new_object();
    if (!e)
        return NULL;
    json_object_object_add(e, "kind", json_object_new_string(seam_error_kind_name(err->kind)));
    json_object_object_add(e, "retryable", json_object_new_boolean(err->retryable != 0));
    json_object_object_add(e, "status",
                           err->http_status ? json_object_new_int(err->http_status) : NULL);
    add_string_or_null(e, "provider", err->provider[0] ? err->provider : NULL);
    if (err->plugin[0]) /* additive: the adapter behind the conf provider */
        json_object_object_add(e, "plugin", json_object_new_string(err->plugin));
    json_object_object_add(e, "message", json_object_new_string(err->message));
    if (err->code[0])
        json_object_object_add(e, "code", json_object_new_string(err->code));
    return e;
}

/* Writes obj as one line, flushes, and releases obj. */
static int emit_line(FILE *out, json_object *obj)
{
    /* errno was cleared when the building began: ENOMEM says a part is missing. */
    if (!obj || errno == ENOMEM) {
        json_object_put(obj);
        failed = 1;
        return -1;
    }
    const char *text = json_object_to_json_string_ext(obj, JSON_OUT_FLAGS);
    int rc = 0;
    if (!text || errno == ENOMEM || fputs(text, out) == EOF || fputc('\n', out) == EOF ||
        fflush(out) == EOF)
        rc = -1;
    json_object_put(obj);
    if (rc)
        failed = 1;
    return rc;
}

/* ---- chunks ----------------------------------------------------------------- */

static int write_chunk(FILE *out, const seam_chunk *c, int provider_executed);

/* A count of a media chunk's metadata (its result_json, a JSON object the
 * core writes) copied into o when present. */
static void add_media_meta(json_object *o, const char *meta, const char *key)
{
    json_object *m = meta ? json_tokener_parse(meta) : NULL;
    json_object *v = NULL;
    if (json_object_is_type(m, json_type_object) && json_object_object_get_ex(m, key, &v) &&
        json_object_is_type(v, json_type_int))
        json_object_object_add(o, key, json_object_new_int64(json_object_get_int64(v)));
    json_object_put(m);
}

int json_out_chunk(FILE *out, const seam_chunk *c)
{
    errno = 0;
    /* A tool_result chunk out of a plugin is a call the provider ran. */
    return write_chunk(out, c, 1);
}

int json_out_client_tool_result(FILE *out, const seam_chunk *c)
{
    errno = 0;
    return write_chunk(out, c, 0);
}

static int write_chunk(FILE *out, const seam_chunk *c, int provider_executed)
{
    if (c->type == SEAM_CHUNK_ERROR) {
        seam_error unknown;
        if (!c->error) {
            seam_error_clear(&unknown);
            seam_error_set(&unknown, SEAM_ERROR_UNKNOWN, "stream failed");
        }
        return json_out_error(out, c->error ? c->error : &unknown);
    }

    json_object *o = json_object_new_object();
    if (!o) {
        failed = 1;
        return -1;
    }
    json_object_object_add(o, "type", json_object_new_string(seam_chunk_type_name(c->type)));
    switch (c->type) {
    case SEAM_CHUNK_TEXT_DELTA:
        json_object_object_add(o, "text", json_object_new_string(c->text ? c->text : ""));
        break;
    case SEAM_CHUNK_REASONING_START:
        add_string_or_null(o, "id", c->id);
        break;
    case SEAM_CHUNK_REASONING_DELTA:
        add_string_or_null(o, "id", c->id);
        json_object_object_add(o, "text", json_object_new_string(c->text ? c->text : ""));
        break;
    case SEAM_CHUNK_REASONING_END:
        add_string_or_null(o, "id", c->id);
        if (c->signature)
            json_object_object_add(o, "signature", json_object_new_string(c->signature));
        if (c->redacted)
            json_object_object_add(o, "redacted", json_object_new_boolean(1));
        break;
    case SEAM_CHUNK_TOOL_CALL_START:
        add_string_or_null(o, "id", c->id);
        add_string_or_null(o, "name", c->name);
        break;
    case SEAM_CHUNK_TOOL_CALL_DELTA:
        add_string_or_null(o, "id", c->id);
        json_object_object_add(o, "args_delta", json_object_new_string(c->text ? c->text : ""));
        break;
    case SEAM_CHUNK_TOOL_CALL_END:
        add_string_or_null(o, "id", c->id);
        json_object_object_add(o, "args", parse_args_object(c->args_json));
        break;
    case SEAM_CHUNK_MEDIA_START:
        add_string_or_null(o, "id", c->id);
        add_string_or_null(o, "mime_type", c->mime_type);
        break;
    case SEAM_CHUNK_MEDIA_DELTA:
        add_string_or_null(o, "id", c->id);
        json_object_object_add(o, "progress", json_object_new_double(c->progress));
        /* A piece of the audio's transcript; the bytes so far (additive). */
        if (c->text)
            json_object_object_add(o, "transcript", json_object_new_string(c->text));
        add_media_meta(o, c->result_json, "bytes");
        break;
    case SEAM_CHUNK_MEDIA_END:
        add_string_or_null(o, "id", c->id);
        add_string_or_null(o, "mime_type", c->mime_type);
        /* The media handle, when the provider gave one (additive). */
        if (c->text)
            json_object_object_add(o, "ref", json_object_new_string(c->text));
        /* The handle-only part (issue 13): never the bytes. */
        if (c->text) {
            json_object *media = json_object_new_object();
            add_string_or_null(media, "mime_type", c->mime_type);
            json_object_object_add(media, "handle", json_object_new_string(c->text));
            add_media_meta(media, c->result_json, "byte_length");
            add_media_meta(media, c->result_json, "duration_ms");
            json_object_object_add(o, "media", media);
        }
        break;
    case SEAM_CHUNK_TOOL_RESULT:
        add_string_or_null(o, "id", c->id);
        add_string_or_null(o, "name", c->name);
        json_object_object_add(o, "result", parse_json_text(c->result_json));
        json_object_object_add(o, "is_error", json_object_new_boolean(c->is_error != 0));
        if (provider_executed)
            json_object_object_add(o, "provider_executed", json_object_new_boolean(1));
        break;
    case SEAM_CHUNK_STOP:
        json_object_object_add(o, "stop_reason",
                               json_object_new_string(seam_stop_reason_name(c->stop_reason)));
        json_object_object_add(o, "usage", usage_object(&c->usage));
        break;
    case SEAM_CHUNK_ERROR:
        break; /* handled above */
    case SEAM_CHUNK_STREAM_START:
        add_string_or_null(o, "provider", c->name);
        add_string_or_null(o, "model", c->text);
        add_string_or_null(o, "response_id", c->id);
        break;
    case SEAM_CHUNK_STEP_FINISH: /* json_out_step_finish() adds the step */
        json_object_object_add(o, "stop_reason",
                               json_object_new_string(seam_stop_reason_name(c->stop_reason)));
        json_object_object_add(o, "usage", usage_object(&c->usage));
        break;
    }
    return emit_line(out, o);
}

/* ---- the result --------------------------------------------------------------- */

static json_object *part_object(const seam_part *p)
{
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    switch (seam_part_get_type(p)) {
    case SEAM_PART_TEXT:
        json_object_object_add(o, "type", json_object_new_string("text"));
        json_object_object_add(o, "text", json_object_new_string(
                                              seam_part_text(p) ? seam_part_text(p) : ""));
        break;
    case SEAM_PART_REASONING:
        json_object_object_add(o, "type", json_object_new_string("reasoning"));
        json_object_object_add(o, "text", json_object_new_string(
                                              seam_part_text(p) ? seam_part_text(p) : ""));
        /* As on reasoning_end: kept so a caller can send the block back (additive). */
        if (seam_part_signature(p))
            json_object_object_add(o, "signature",
                                   json_object_new_string(seam_part_signature(p)));
        if (seam_part_redacted(p))
            json_object_object_add(o, "redacted", json_object_new_boolean(1));
        break;
    case SEAM_PART_TOOL_CALL:
        json_object_object_add(o, "type", json_object_new_string("tool_call"));
        add_string_or_null(o, "id", seam_part_tool_call_id(p));
        add_string_or_null(o, "name", seam_part_tool_name(p));
        json_object_object_add(o, "args", parse_args_object(seam_part_args_json(p)));
        if (seam_part_provider_executed(p))
            json_object_object_add(o, "provider_executed", json_object_new_boolean(1));
        break;
    case SEAM_PART_TOOL_RESULT:
        json_object_object_add(o, "type", json_object_new_string("tool_result"));
        add_string_or_null(o, "id", seam_part_tool_call_id(p));
        add_string_or_null(o, "name", seam_part_tool_name(p));
        json_object_object_add(o, "result", parse_json_text(seam_part_result_json(p)));
        json_object_object_add(o, "is_error", json_object_new_boolean(seam_part_is_error(p)));
        if (seam_part_provider_executed(p))
            json_object_object_add(o, "provider_executed", json_object_new_boolean(1));
        break;
    case SEAM_PART_MEDIA:
        json_object_object_add(o, "type", json_object_new_string("media"));
        add_string_or_null(o, "mime_type", seam_part_mime_type(p));
        add_string_or_null(o, seam_part_media_source(p) == SEAM_MEDIA_URL      ? "url"
                              : seam_part_media_source(p) == SEAM_MEDIA_HANDLE ? "handle"
                                                                               : "data",
                           seam_part_media_data(p));
        break;
    default:
        json_object_put(o);
        return NULL;
    }
    return o;
}

struct json_attempts {
    json_object *list;
    int incomplete; /* an attempt could not be added whole */
};

json_attempts *json_attempts_new(void)
{
    json_attempts *a = calloc(1, sizeof *a);
    if (a && !(a->list = json_object_new_array())) {
        free(a);
        a = NULL;
    }
    return a;
}

void json_attempts_add(json_attempts *a, const seam_attempt *at)
{
    if (!a || !at)
        return;
    errno = 0;
    json_object *o = json_object_new_object();
    if (!o) {
        a->incomplete = 1;
        return;
    }
    const char *outcome = at->outcome == SEAM_ATTEMPT_SUCCEEDED ? "succeeded"
                          : at->outcome == SEAM_ATTEMPT_FAILED  ? "failed"
                                                                : "skipped";
    add_string_or_null(o, "provider", at->provider);
    add_string_or_null(o, "model", at->model);
    json_object_object_add(o, "outcome", json_object_new_string(outcome));
    if (at->error)
        json_object_object_add(o, "error", error_object(at->error));
    if (at->wait_ms > 0)
        json_object_object_add(o, "wait_ms", json_object_new_int64(at->wait_ms));
    if (at->usage)
        json_object_object_add(o, "usage", usage_object(at->usage));
    if (errno == ENOMEM || json_object_array_add(a->list, o) != 0) {
        json_object_put(o);
        a->incomplete = 1;
    }
}

void json_attempts_free(json_attempts *a)
{
    if (!a)
        return;
    json_object_put(a->list);
    free(a);
}

int json_out_result(FILE *out, const seam_result *res)
{
    return json_out_result_with(out, res, NULL);
}

static json_object *result_object(const seam_result *res, const json_attempts *attempts)
{
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    json_object_object_add(o, "type", json_object_new_string("result"));
    add_string_or_null(o, "provider", seam_result_provider(res));
    add_string_or_null(o, "model", seam_result_model(res));

    json_object *content = json_object_new_array();
    const seam_message *msg = seam_result_message(res);
    size_t n = msg ? seam_message_part_count(msg) : 0;
    for (size_t i = 0; content && i < n; i++) {
        json_object *part = part_object(seam_message_part(msg, i));
        if (part)
            json_object_array_add(content, part);
    }
    json_object_object_add(o, "content", content);
    json_object_object_add(o, "stop_reason", json_object_new_string(
                                                 seam_stop_reason_name(seam_result_stop_reason(res))));
    json_object_object_add(o, "usage", usage_object(seam_result_usage(res)));
    if (seam_result_media_units_count(res)) {
        /* Media usage, apart from tokens: [{modality, units, unit}]. */
        json_object *mu = json_object_new_array();
        for (size_t k = 0; k < seam_result_media_units_count(res); k++) {
            uint32_t mod = 0;
            double units = 0;
            const char *unit = NULL;
            seam_result_media_units_at(res, k, &mod, &units, &unit);
            json_object *e = json_object_new_object();
            json_object_object_add(e, "modality",
                                   json_object_new_string(mod == SEAM_MODALITY_IMAGE   ? "image"
                                                          : mod == SEAM_MODALITY_AUDIO ? "audio"
                                                                                       : "video"));
            json_object_object_add(e, "units", json_object_new_double(units));
            add_string_or_null(e, "unit", unit);
            json_object_array_add(mu, e);
        }
        json_object_object_add(o, "media_units", mu);
    }
    if (attempts)
        json_object_object_add(o, "attempts", json_object_get(attempts->list));
    if (attempts && attempts->incomplete)
        errno = ENOMEM;
    return o;
}

int json_out_result_with(FILE *out, const seam_result *res, const json_attempts *attempts)
{
    errno = 0;
    return emit_line(out, result_object(res, attempts));
}

/* parts[0..n) as an array of part objects. */
static json_object *parts_array(size_t n, const seam_part *(*at)(const seam_step *, size_t),
                                const seam_step *st)
{
    json_object *arr = json_object_new_array();
    for (size_t i = 0; arr && i < n; i++) {
        json_object *part = part_object(at(st, i));
        if (part)
            json_object_array_add(arr, part);
    }
    return arr;
}

int json_out_generation(FILE *out, const seam_generation *g, const json_attempts *attempts)
{
    const seam_result *last = seam_generation_response(g);
    if (!last)
        return -1;
    errno = 0;
    json_object *o = result_object(last, attempts);
    if (!o) {
        failed = 1;
        return -1;
    }
    /* The run's cost is every turn's: the last turn's usage is in its step. */
    json_object_object_add(o, "usage", usage_object(seam_generation_usage(g)));
    json_object *steps = json_object_new_array();
    for (size_t i = 0; steps && i < seam_generation_step_count(g); i++) {
        const seam_step *st = seam_generation_step(g, i);
        json_object *so = json_object_new_object();
        if (!so)
            continue;
        json_object_object_add(so, "tool_calls",
                               parts_array(seam_step_tool_call_count(st), seam_step_tool_call, st));
        json_object_object_add(so, "tool_results",
                               parts_array(seam_step_tool_result_count(st), seam_step_tool_result, st));
        json_object_object_add(so, "usage", usage_object(seam_step_usage(st)));
        json_object_array_add(steps, so);
    }
    json_object_object_add(o, "steps", steps);
    return emit_line(out, o);
}

/* ---- errors ------------------------------------------------------------------- */

int json_out_error(FILE *out, const seam_error *err)
{
    errno = 0;
    json_object *o = json_object_new_object();
    if (!o)
        return -1;
    json_object_object_add(o, "type", json_object_new_string("error"));
    json_object_object_add(o, "error", error_object(err));
    return emit_line(out, o);
}

int json_out_step_finish(FILE *out, const seam_chunk *c, size_t step)
{
    errno = 0;
    json_object *o = json_object_new_object();
    if (!o) {
        failed = 1;
        return -1;
    }
    json_object_object_add(o, "type", json_object_new_string("step_finish"));
    json_object_object_add(o, "step", json_object_new_int64((int64_t)step));
    json_object_object_add(o, "stop_reason",
                           json_object_new_string(seam_stop_reason_name(c->stop_reason)));
    json_object_object_add(o, "usage", usage_object(&c->usage));
    return emit_line(out, o);
}
