/* fuzz_scan_diff.c — a differential libFuzzer harness for one codec's fast
 * path (plugins/common/json_scan.c): the input is a list of event bodies, one
 * per line, fed in order to two decoders of the same instance, one with the
 * scanner on and one with it forced off (jscan_disabled), so that every event
 * of the second takes the json-c path. Each event's status, error and chunks
 * are written down for both, and the harness aborts at the first difference.
 * The whole input is then decoded once more as a non-streamed response body
 * (decode_response), scanner on and off, and the two compared the same way.
 * Built by fuzz/scan_diff.sh with -DPLUGIN_SOURCE="…/openai.c" (a codec in
 * one file) or every file of its folder and -DPLUGIN_INTERNAL="…/internal.h". */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "transport.h"

#ifdef PLUGIN_SOURCE
#include PLUGIN_SOURCE
#else
int seam_plugin_init(seam_registrar *r);
#include PLUGIN_INTERNAL
#endif

#include "../plugins/common/json_scan.h"

static const seam_provider_vtable *vt;

int seam_registrar_add(seam_registrar *r, const seam_provider_vtable *v)
{
    (void)r;
    if (!vt)
        vt = v;
    return SEAM_OK;
}

/* A transcript: everything a consumer could observe, as text. */
static void put(strbuf *t, const char *name, const char *s)
{
    sb_puts(t, name);
    sb_puts(t, s ? "=" : "=(null)");
    if (s)
        sb_append(t, s, strlen(s) + 1); /* the NUL keeps "ab"+"c" from "a"+"bc" */
    sb_puts(t, ";");
}

static int record(void *ud, const seam_chunk *c)
{
    strbuf *t = ud;
    char num[256];
    snprintf(num, sizeof num, "\n%d r%d e%d p%.3f s%d u%u/%lld/%lld/%lld/%lld/%lld/%lld;",
             (int)c->type, c->redacted, c->is_error, c->progress, (int)c->stop_reason,
             (unsigned)c->usage.present, (long long)c->usage.input_tokens,
             (long long)c->usage.output_tokens, (long long)c->usage.cache_read_tokens,
             (long long)c->usage.cache_write_tokens, (long long)c->usage.reasoning_tokens,
             (long long)c->usage.cost_microcents);
    sb_puts(t, num);
    put(t, "id", c->id);
    put(t, "name", c->name);
    put(t, "text", c->text);
    put(t, "sig", c->signature);
    put(t, "args", c->args_json);
    put(t, "result", c->result_json);
    put(t, "mime", c->mime_type);
    if (c->error) {
        snprintf(num, sizeof num, "err%d/%d;", (int)c->error->kind, c->error->http_status);
        sb_puts(t, num);
        put(t, "msg", c->error->message);
    }
    return SEAM_OK;
}

static void status(strbuf *t, int rc, const seam_error *e)
{
    char num[64];
    snprintf(num, sizeof num, "\n= %d", rc);
    sb_puts(t, num);
    if (rc != SEAM_OK) {
        snprintf(num, sizeof num, " k%d r%d h%d;", (int)e->kind, e->retryable, e->http_status);
        sb_puts(t, num);
        put(t, "code", e->code);
        put(t, "msg", e->message);
    }
}

static void differ(const strbuf *tf, const strbuf *ts, const char *what)
{
    if (tf->failed || ts->failed)
        return;
    if (tf->len != ts->len || (tf->len && memcmp(tf->data, ts->data, tf->len) != 0)) {
        fprintf(stderr, "scanner and json-c paths differ (%s)\n--- scanner:%.*s\n--- json-c:%.*s\n", what,
                (int)tf->len, tf->data ? tf->data : "", (int)ts->len, ts->data ? ts->data : "");
        abort();
    }
}

/* The input as one non-streamed body, decoded with the scanner on and off. */
static void whole_body(void *inst, const seam_request *req, const uint8_t *data, size_t size)
{
    if (!vt->decode_response)
        return;
    char *body = malloc(size + 1); /* transport.c's body is NUL-terminated */
    if (!body)
        return;
    memcpy(body, data, size);
    body[size] = '\0';
    strbuf tf = { 0 }, ts = { 0 };
    seam_emitter ef = { record, &tf }, es = { record, &ts };
    seam_error e;
    for (int slow = 0; slow < 2; slow++) {
        jscan_disabled = slow;
        seam_error_clear(&e);
        int rc = vt->decode_response(inst, req, body, size, slow ? &es : &ef, &e);
        status(slow ? &ts : &tf, rc, &e);
    }
    jscan_disabled = 0;
    differ(&tf, &ts, "whole body");
    sb_free(&tf);
    sb_free(&ts);
    free(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!vt)
        seam_plugin_init(NULL);
    seam_provider_config cfg = { sizeof cfg, "fuzz", NULL, "{}" };
    seam_error e;
    seam_error_clear(&e);
    void *inst = vt->create(&cfg, &e);
    if (!inst)
        return 0;
    seam_request *req = seam_request_new();
    seam_request_set_model(req, "model-1");
    seam_request_add_user_text(req, "hi");
    void *fast = vt->decoder_new(inst, req);
    void *slow = vt->decoder_new(inst, req);
    strbuf tf = { 0 }, ts = { 0 };
    seam_emitter ef = { record, &tf }, es = { record, &ts };
    if (!fast || !slow)
        goto out;
#ifdef FUZZ_GEMINI
    /* Synthesized ids are random per decoder: make the two agree. */
    memcpy(((gemini_decoder *)slow)->id_prefix, ((gemini_decoder *)fast)->id_prefix,
           sizeof ((gemini_decoder *)fast)->id_prefix);
#endif
    const char *p = (const char *)data, *end = p + size;
    int live_f = 1, live_s = 1;
    while (p <= end && (live_f || live_s)) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char *ev = malloc(n + 1); /* the framer's frames are NUL-terminated */
        if (!ev)
            break;
        memcpy(ev, p, n);
        ev[n] = '\0';
        seam_frame f = { NULL, ev, n, NULL };
        /* A decoder that failed is done, as the core would make it. */
        if (live_f) {
            jscan_disabled = 0;
            seam_error_clear(&e);
            int rc = vt->decode_event(fast, &f, &ef, &e);
            status(&tf, rc, &e);
            live_f = rc == SEAM_OK;
        }
        if (live_s) {
            jscan_disabled = 1;
            seam_error_clear(&e);
            int rc = vt->decode_event(slow, &f, &es, &e);
            status(&ts, rc, &e);
            live_s = rc == SEAM_OK;
        }
        jscan_disabled = 0;
        free(ev);
        if (!nl)
            break;
        p = nl + 1;
    }
    if (live_f && vt->decode_finish) {
        seam_error_clear(&e);
        status(&tf, vt->decode_finish(fast, &ef, &e), &e);
    }
    if (live_s && vt->decode_finish) {
        jscan_disabled = 1;
        seam_error_clear(&e);
        status(&ts, vt->decode_finish(slow, &es, &e), &e);
        jscan_disabled = 0;
    }
    differ(&tf, &ts, "stream events");
#ifndef FUZZ_GEMINI /* its whole-body decoder draws random ids: no scanner there anyway */
    whole_body(inst, req, data, size);
#endif
out:
    sb_free(&tf);
    sb_free(&ts);
    if (fast)
        vt->decoder_free(fast);
    if (slow)
        vt->decoder_free(slow);
    seam_emitter_release(&ef);
    seam_emitter_release(&es);
    seam_request_free(req);
    vt->destroy(inst);
    return 0;
}
