/* tu_stream.c — a call run to its end by a test (tests/testutil.h): the
 * chunks of a stream collected as a one-line log of their kinds and ids, and
 * a result reduced to one canonical JSON line (text, reasoning, tool calls,
 * stop reason, usage) that a test compares with a golden string or with the
 * result of the same answer given whole; a call that must fail, and the media
 * units a result counts; two answers' parts compared member by member,
 * turns of one part appended to a conversation, what a call made of an
 * HTTP error, and a codec's stop reasons. */
#include "config.h"

#include "testutil.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

seam_call_options tu_call_opts(const char *provider, const char *model)
{
    seam_call_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.provider = provider;
    o.model = model;
    return o;
}

seam_request *tu_user_request(const char *text)
{
    seam_request *r = seam_request_new();
    if (r)
        seam_request_add_user_text(r, text);
    return r;
}

seam_request *tu_request_out(const char *text, uint32_t modalities)
{
    seam_request *r = seam_request_new();
    seam_request_add_user_text(r, text);
    CU_ASSERT_EQUAL(seam_request_set_output_modalities(r, modalities), SEAM_OK);
    return r;
}

seam_request *tu_user(const char *text)
{
    seam_request *r = seam_request_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL_FATAL(seam_request_add_user_text(r, text), SEAM_OK);
    return r;
}

void tu_on_attempt(void *ud, const seam_attempt *a)
{
    tu_attempts *at = ud;
    int errors = (at->flags & TU_ATTEMPT_ERRORS) && a->error;
    size_t used = strlen(at->log);
    snprintf(at->log + used, sizeof at->log - used, "%s %s/%s%s%s\n",
             a->outcome == SEAM_ATTEMPT_SUCCEEDED ? "succeeded"
             : a->outcome == SEAM_ATTEMPT_FAILED  ? "failed"
                                                  : "skipped",
             a->provider, a->model ? a->model : "?", errors ? ": " : "",
             errors ? a->error->message : "");
    at->n++;
}

/* Appends s to *into (a malloc'ed string); keeps *into on failure. */
static void append(char **into, const char *s)
{
    char *joined = NULL;
    if (asprintf(&joined, "%s%s", *into, s ? s : "") >= 0) {
        free(*into);
        *into = joined;
    }
}

char *tu_summary(const seam_result *res, unsigned flags)
{
    json_object *o = json_object_new_object();
    json_object *calls = json_object_new_array();
    json_object *sigs = json_object_new_array();
    const seam_message *m = seam_result_message(res);
    char *text = strdup(""), *reasoning = strdup("");
    for (size_t i = 0; text && reasoning && i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        if (seam_part_get_type(p) == SEAM_PART_TEXT) {
            append(&text, seam_part_text(p));
        } else if (seam_part_get_type(p) == SEAM_PART_REASONING) {
            append(&reasoning, seam_part_text(p));
            if (seam_part_signature(p))
                json_object_array_add(sigs, json_object_new_string(seam_part_signature(p)));
        } else if (seam_part_get_type(p) == SEAM_PART_TOOL_CALL) {
            json_object *c = json_object_new_object();
            json_object_object_add(c, "id", json_object_new_string(seam_part_tool_call_id(p)));
            json_object_object_add(c, "name", json_object_new_string(seam_part_tool_name(p)));
            json_object_object_add(c, "args", json_tokener_parse(seam_part_args_json(p)));
            json_object_array_add(calls, c);
        }
    }
    json_object_object_add(o, "text", json_object_new_string(text ? text : "(out of memory)"));
    json_object_object_add(o, "reasoning", json_object_new_string(reasoning ? reasoning : "(out of memory)"));
    if (flags & TU_SIGNATURES)
        json_object_object_add(o, "signatures", sigs);
    else
        json_object_put(sigs);
    json_object_object_add(o, "tool_calls", calls);
    json_object_object_add(o, "stop", json_object_new_string(seam_stop_reason_name(seam_result_stop_reason(res))));
    const seam_usage *u = seam_result_usage(res);
    json_object *uo = json_object_new_object();
    if (u->present & SEAM_USAGE_INPUT)
        json_object_object_add(uo, "in", json_object_new_int64(u->input_tokens));
    if (u->present & SEAM_USAGE_OUTPUT)
        json_object_object_add(uo, "out", json_object_new_int64(u->output_tokens));
    if (u->present & SEAM_USAGE_CACHE_READ)
        json_object_object_add(uo, "cache_read", json_object_new_int64(u->cache_read_tokens));
    if (u->present & SEAM_USAGE_CACHE_WRITE)
        json_object_object_add(uo, "cache_write", json_object_new_int64(u->cache_write_tokens));
    if (u->present & SEAM_USAGE_REASONING)
        json_object_object_add(uo, "reasoning", json_object_new_int64(u->reasoning_tokens));
    json_object_object_add(o, "usage", uo);
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    free(text);
    free(reasoning);
    return s;
}

/* Whether the log ends with item: a run of deltas logs once, so that where a
 * server splits its text does not change the log. */
static int log_ends_with(const char *log, const char *item)
{
    size_t used = strlen(log), n = strlen(item);
    return used >= n && strcmp(log + used - n, item) == 0;
}

void tu_log_chunk(char *log, size_t size, const seam_chunk *c, unsigned flags)
{
    char item[200];
    switch (c->type) {
    case SEAM_CHUNK_TEXT_DELTA:
        if (log_ends_with(log, "TD "))
            return;
        snprintf(item, sizeof item, "TD ");
        break;
    case SEAM_CHUNK_REASONING_START: snprintf(item, sizeof item, "RS(%s) ", c->id); break;
    case SEAM_CHUNK_REASONING_DELTA:
        if (log_ends_with(log, "RD "))
            return;
        snprintf(item, sizeof item, "RD ");
        break;
    case SEAM_CHUNK_REASONING_END:
        if (flags & TU_SIGNATURES)
            snprintf(item, sizeof item, "RE(%s,%s) ", c->id, c->signature ? c->signature : "-");
        else
            snprintf(item, sizeof item, "RE(%s) ", c->id);
        break;
    case SEAM_CHUNK_TOOL_CALL_START: snprintf(item, sizeof item, "TS(%s,%s) ", c->id, c->name); break;
    case SEAM_CHUNK_TOOL_CALL_DELTA: return; /* their count depends on the server */
    case SEAM_CHUNK_TOOL_CALL_END: snprintf(item, sizeof item, "TE(%s,%s) ", c->id, c->args_json); break;
    case SEAM_CHUNK_STOP: snprintf(item, sizeof item, "STOP(%s)", seam_stop_reason_name(c->stop_reason)); break;
    default: snprintf(item, sizeof item, "%s ", seam_chunk_type_name(c->type)); break;
    }
    strncat(log, item, size - strlen(log) - 1);
}

/* Runs one call streamed or whole; what a test reads of it is the same. */
static tu_call run_call(seam_client *client, const char *provider, const char *model,
                        const seam_request *req, unsigned flags, int streamed)
{
    tu_call r;
    memset(&r, 0, sizeof r);
    seam_call_options o = tu_call_opts(provider, model);
    seam_stream *s = NULL;
    seam_result *whole = NULL;
    const seam_result *res = NULL;
    if (streamed) {
        r.status = seam_stream_open(client, req, &o, &s, &r.err);
        if (r.status == SEAM_OK) {
            const seam_chunk *c;
            while ((r.status = seam_stream_next(s, &c, &r.err)) == 1)
                tu_log_chunk(r.log, sizeof r.log, c, flags);
            res = seam_stream_result(s);
        }
    } else {
        r.status = seam_generate(client, req, &o, &whole, &r.err);
        res = whole;
    }
    if (res) {
        r.summary = tu_summary(res, flags);
        r.incomplete = seam_result_incomplete(res);
        if (flags & TU_KEEP_MESSAGE)
            r.message = seam_message_dup(seam_result_message(res));
    }
    seam_stream_free(s);
    seam_result_free(whole);
    return r;
}

tu_call tu_run_stream(seam_client *client, const char *provider, const char *model,
                      const seam_request *req, unsigned flags)
{
    return run_call(client, provider, model, req, flags, 1);
}

tu_call tu_run_generate(seam_client *client, const char *provider, const char *model,
                        const seam_request *req, unsigned flags)
{
    return run_call(client, provider, model, req, flags, 0);
}

int tu_summary_is(const tu_call *r, const char *want, const char *what)
{
    if (r->summary && strcmp(r->summary, want) == 0)
        return 1;
    fprintf(stderr, "\n%s: status %d (%s)\n     got %s\nexpected %s\n", what, r->status, r->err.message,
            r->summary ? r->summary : "(none)", want);
    return 0;
}

void tu_media_units_are(const seam_result *res, uint32_t modality, double units, const char *unit)
{
    CU_ASSERT_EQUAL_FATAL(seam_result_media_units_count(res), 1);
    uint32_t m = 0;
    double u = 0;
    const char *name = NULL;
    CU_ASSERT_EQUAL(seam_result_media_units_at(res, 0, &m, &u, &name), SEAM_OK);
    CU_ASSERT_EQUAL(m, modality);
    CU_ASSERT_DOUBLE_EQUAL(u, units, 1e-9);
    CU_ASSERT_STRING_EQUAL(name ? name : "(null)", unit);
}

void tu_generate_refused(seam_client *c, const seam_request *req, seam_error_kind kind,
                         const char *message_part)
{
    seam_result *res = NULL;
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_generate(c, req, NULL, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, kind);
    if (!strstr(err.message, message_part))
        fprintf(stderr, "\n  error: %s\n  want a part: %s\n", err.message, message_part);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, message_part));
    seam_result_free(res);
}

/* ---- dupmedia: a stream read chunk by chunk ---- */

int tu_stream_chunks(seam_client *c, const seam_request *req, const seam_call_options *o,
                     void (*on_chunk)(void *ud, const seam_chunk *ch), void *ud, seam_stream **out,
                     seam_error *err)
{
    seam_stream *st = NULL;
    CU_ASSERT_EQUAL_FATAL(tu_said(seam_stream_open(c, req, o, &st, err), err, "seam_stream_open"), SEAM_OK);
    const seam_chunk *ch;
    int rc;
    while ((rc = seam_stream_next(st, &ch, err)) == 1)
        if (on_chunk)
            on_chunk(ud, ch);
    if (out)
        *out = st;
    else
        seam_stream_free(st);
    return rc;
}

/* ---- dupcodec: two answers' parts compared ------------------------------------ */

int tu_json_text_equal(const char *a, const char *b)
{
    json_object *ja = json_tokener_parse(a), *jb = json_tokener_parse(b);
    int same = ja && jb && json_object_equal(ja, jb);
    json_object_put(ja);
    json_object_put(jb);
    return same;
}

void tu_parts_alike(const seam_message *a, const seam_message *b, unsigned flags)
{
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(a), seam_message_part_count(b));
    for (size_t i = 0; i < seam_message_part_count(a); i++) {
        const seam_part *pa = seam_message_part(a, i), *pb = seam_message_part(b, i);
        CU_ASSERT_EQUAL_FATAL(seam_part_get_type(pa), seam_part_get_type(pb));
        const char *sa = seam_part_signature(pa), *sb = seam_part_signature(pb);
        switch (seam_part_get_type(pa)) {
        case SEAM_PART_TEXT:
            TU_ASSERT_STR(seam_part_text(pa), seam_part_text(pb));
            break;
        case SEAM_PART_REASONING:
            TU_ASSERT_STR(seam_part_text(pa), seam_part_text(pb));
            CU_ASSERT_EQUAL(!sa, !sb);
            CU_ASSERT_STRING_EQUAL(sa ? sa : "", sb ? sb : "");
            break;
        case SEAM_PART_TOOL_CALL:
            TU_ASSERT_STR(seam_part_tool_name(pa), seam_part_tool_name(pb));
            if (flags & TU_PARTS_ARGS_AS_JSON) {
                CU_ASSERT_PTR_NOT_NULL(seam_part_args_json(pa));
                CU_ASSERT_TRUE(tu_json_text_equal(seam_part_args_json(pa), seam_part_args_json(pb)));
            } else {
                TU_ASSERT_STR(seam_part_args_json(pa), seam_part_args_json(pb));
            }
            if (flags & TU_PARTS_NEW_IDS) {
                CU_ASSERT(strlen(seam_part_tool_call_id(pa)) > 0);
                CU_ASSERT(strcmp(seam_part_tool_call_id(pa), seam_part_tool_call_id(pb)) != 0);
            } else {
                TU_ASSERT_STR(seam_part_tool_call_id(pa), seam_part_tool_call_id(pb));
            }
            break;
        default:
            CU_FAIL("unexpected part type");
        }
    }
}

/* ---- dupcodec: turns of one part appended to a conversation ------------------ */

static void add_turn(seam_request *req, seam_message *m)
{
    CU_ASSERT_EQUAL_FATAL(seam_request_add_message(req, m), SEAM_OK);
}

void tu_add_assistant_text(seam_request *req, const char *text)
{
    tu_add_turn(req, SEAM_ROLE_ASSISTANT, TU_PARTS(TU_TEXT(text)));
}

void tu_add_tool_call(seam_request *req, const char *id, const char *name, const char *args_json)
{
    tu_add_turn(req, SEAM_ROLE_ASSISTANT, TU_PARTS(TU_CALL(id, name, args_json)));
}

void tu_add_tool_result(seam_request *req, const char *id, const char *name, const char *output,
                        int is_error)
{
    tu_add_turn(req, SEAM_ROLE_TOOL, TU_PARTS(TU_RESULT(id, name, output, is_error)));
}

void tu_add_turn(seam_request *req, seam_role role, const tu_part *parts)
{
    seam_message *m = seam_message_new(role);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    for (const tu_part *p = parts; p->a; p++) {
        int rc = SEAM_ERR_INVALID;
        switch (p->type) {
        case SEAM_PART_TEXT:
            rc = seam_message_add_text(m, p->a);
            break;
        case SEAM_PART_REASONING:
            rc = seam_message_add_reasoning(m, p->a, p->b, p->flag);
            break;
        case SEAM_PART_TOOL_CALL:
            rc = seam_message_add_tool_call(m, p->a, p->b, p->c);
            break;
        case SEAM_PART_TOOL_RESULT:
            rc = seam_message_add_tool_result(m, p->a, p->b, p->c, p->flag);
            break;
        case SEAM_PART_MEDIA:
            rc = seam_message_add_media(m, p->a, (seam_media_source)p->flag, p->b);
            break;
        }
        CU_ASSERT_EQUAL_FATAL(rc, SEAM_OK);
    }
    add_turn(req, m);
}

/* ---- dupcodec: an HTTP error answered, and what the call made of it ------------ */

void tu_push_http_error(fake_server *s, const tu_http_error *e)
{
    fake_server_push_json(s, e->status, e->body, e->headers);
}

int tu_error_is(const seam_error *err, const tu_http_error *e, const char *secret)
{
    int held = err->kind == e->kind && err->retryable == e->retryable && err->http_status == e->status &&
               strcmp(err->code, e->code) == 0 &&
               (!e->message_part || strstr(err->message, e->message_part)) &&
               (!secret || !strstr(err->message, secret));
    if (!held)
        fprintf(stderr, "\n  HTTP %d: kind %s retryable %d status %d code \"%s\" message \"%s\"\n", e->status,
                seam_error_kind_name(err->kind), err->retryable, err->http_status, err->code, err->message);
    CU_ASSERT_EQUAL(err->kind, e->kind);
    CU_ASSERT_EQUAL(err->retryable, e->retryable);
    CU_ASSERT_EQUAL(err->http_status, e->status);
    CU_ASSERT_STRING_EQUAL(err->code, e->code);
    if (e->message_part)
        CU_ASSERT_PTR_NOT_NULL(strstr(err->message, e->message_part));
    if (secret)
        CU_ASSERT_PTR_NULL(strstr(err->message, secret));
    return held;
}

/* ---- dupcodec: a codec's stop reasons ----------------------------------------- */

void tu_stop_reasons_are(fake_server *s, seam_client *c, const char *provider, const char *model,
                         const seam_request *req, const char *body_text, const tu_stop_case *cases)
{
    const char *at = strstr(body_text, "@STOP@");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    for (; cases->wire; cases++) {
        char body[1024];
        snprintf(body, sizeof body, "%.*s%s%s", (int)(at - body_text), body_text, cases->wire, at + 6);
        fake_server_push_json(s, 200, body, NULL);
        tu_call r = tu_run_generate(c, provider, model, req, 0);
        CU_ASSERT_EQUAL(r.status, SEAM_OK);
        json_object *summary = json_tokener_parse(r.summary ? r.summary : "null");
        const char *got = tu_json_str(summary, "stop");
        if (strcmp(got, seam_stop_reason_name(cases->want)) != 0)
            fprintf(stderr, "\n  stop reason %s gave %s\n", cases->wire, got);
        CU_ASSERT_STRING_EQUAL(got, seam_stop_reason_name(cases->want));
        json_object_put(summary);
        free(r.summary);
    }
}

/* ---- added on branch dupcore (issue 19: one harness for tests/) ---- */

seam_call_options tu_chain_opts(const char *chain)
{
    seam_call_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.chain = chain;
    return o;
}
