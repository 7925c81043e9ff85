/* call.c — generate and stream: turns call options into a plan of chain
 * entries and runs it. An entry that cannot serve (plugin not installed, no
 * credential) is skipped; a retryable error is retried on the same entry up to
 * max_attempts with exponential backoff (or the server's Retry-After, up to a
 * cap), then the next entry is tried; a fatal error ends the call. Failover is
 * transparent only until the first content chunk has been handed to the
 * caller: after that an error is surfaced and the result marked incomplete.
 * Every attempt is reported to the caller's observer. */
#include "config.h"
#include "client.h"

#include <stdlib.h>
#include <string.h>

typedef struct plan_entry {
    const char *provider;     /* borrowed from the conf or the options copy */
    const char *model;
    int max_attempts;
    seam_conf_backoff backoff;
} plan_entry;

struct seam_stream {
    seam_client *client;
    seam_request *req;
    int streaming;
    seam_cancel *cancel;
    int64_t timeout_ms, idle_timeout_ms;
    void (*on_attempt)(void *, const seam_attempt *);
    void *ud;
    char *opt_provider, *opt_model;

    plan_entry *plan;
    size_t n_plan, entry;
    int attempt;              /* attempts made on the current entry */
    int64_t retry_after_cap_ms;
    const char *chain_name;

    seam_transfer *transfer;
    char *credential;
    seam_request *sent;       /* the request as sent for the current attempt */
    int yielded_content;
    seam_result *result;
    int64_t start_ms;

    int done;
    int final_status;
    seam_error final_err;
    seam_error last_err;      /* the last attempt's failure, for the final error */
    int any_attempt;
    seam_buf skipped;         /* reasons entries were skipped */
};

static void report(seam_stream *s, seam_attempt_outcome outcome, const plan_entry *e,
                   const seam_error *err, const seam_usage *usage, int64_t wait_ms)
{
    if (!s->on_attempt)
        return;
    seam_attempt a = { outcome, e->provider, e->model, s->attempt, err, usage, wait_ms };
    s->on_attempt(s->ud, &a);
}

static void skip_entry(seam_stream *s, const plan_entry *e, seam_error *why)
{
    seam_strlcpy(why->provider, e->provider, sizeof why->provider);
    report(s, SEAM_ATTEMPT_SKIPPED, e, why, NULL, 0);
    seam_buf_printf(&s->skipped, "%s%s (%s)", s->skipped.len ? "; " : "", e->provider, why->message);
    s->entry++;
    s->attempt = 0;
}

static int build_plan(seam_stream *s, const seam_call_options *o, seam_error *err)
{
    seam_conf *conf = s->client->conf;
    if (o && o->provider) {
        s->opt_provider = strdup(o->provider);
        s->opt_model = seam_strdup(o->model ? o->model : seam_request_model(s->req));
        s->plan = calloc(1, sizeof *s->plan);
        if (!s->opt_provider || !s->plan)
            return SEAM_ERR_NOMEM;
        if (!seam_conf_find_provider(conf, o->provider)) {
            seam_error_set(err, SEAM_ERROR_CONF, "no provider \"%s\" in the conf", o->provider);
            return SEAM_ERR_NOT_FOUND;
        }
        s->plan[0] = (plan_entry){ s->opt_provider, s->opt_model, 1, { 500, 20000, 0.1 } };
        s->n_plan = 1;
        s->retry_after_cap_ms = 60000;
        return SEAM_OK;
    }
    const char *name = o && o->chain ? o->chain : NULL;
    if (!name)
        name = seam_client_role_chain(s->client, "assistant");
    if (!name)
        name = "default";
    const seam_conf_chain *ch = seam_conf_find_chain(conf, name);
    if (!ch) {
        seam_error_set(err, SEAM_ERROR_CONF, "no chain \"%s\" in the conf%s%s", name,
                       conf->path ? " " : "", conf->path ? conf->path : "");
        return SEAM_ERR_NOT_FOUND;
    }
    s->chain_name = ch->name;
    s->plan = calloc(ch->n_entries ? ch->n_entries : 1, sizeof *s->plan);
    if (!s->plan)
        return SEAM_ERR_NOMEM;
    if (o && o->model)
        s->opt_model = strdup(o->model);
    for (size_t i = 0; i < ch->n_entries; i++) {
        const seam_conf_entry *e = &ch->entries[i];
        s->plan[i] = (plan_entry){ e->provider, s->opt_model ? s->opt_model : e->model,
                                   e->max_attempts > 0 ? e->max_attempts : 1, e->backoff };
        if (!s->plan[i].model)
            s->plan[i].model = seam_request_model(s->req);
    }
    s->n_plan = ch->n_entries;
    s->retry_after_cap_ms = ch->retry_after_cap_ms > 0 ? ch->retry_after_cap_ms : 60000;
    return SEAM_OK;
}

static int stream_open(seam_client *client, const seam_request *req, const seam_call_options *opts,
                       int streaming, seam_stream **out, seam_error *err)
{
    seam_error_clear(err);
    if (!client || !req || !out)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    *out = NULL;
    if (opts && opts->size < sizeof(uint32_t))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "seam_call_options.size is not set"),
               SEAM_ERR_INVALID;
    if (seam_request_message_count(req) == 0)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "the request has no messages"),
               SEAM_ERR_INVALID;
    seam_stream *s = calloc(1, sizeof *s);
    if (!s)
        return SEAM_ERR_NOMEM;
    s->client = client;
    s->streaming = streaming;
    s->req = seam_request_dup(req);
    s->result = seam_result_new();
    seam_error_clear(&s->final_err);
    seam_error_clear(&s->last_err);
    if (opts) {
        s->cancel = opts->cancel;
        s->timeout_ms = opts->timeout_ms;
        s->idle_timeout_ms = opts->idle_timeout_ms;
        s->on_attempt = opts->on_attempt;
        s->ud = opts->ud;
    }
    int rc = s->req && s->result ? build_plan(s, opts, err) : SEAM_ERR_NOMEM;
    if (rc != SEAM_OK) {
        seam_stream_free(s);
        return rc;
    }
    s->start_ms = seam_now_ms();
    *out = s;
    return SEAM_OK;
}

int seam_stream_open(seam_client *client, const seam_request *req, const seam_call_options *opts,
                     seam_stream **out, seam_error *err)
{
    return stream_open(client, req, opts, 1, out, err);
}

static void end_with(seam_stream *s, int status, const seam_error *e)
{
    s->done = 1;
    s->final_status = status;
    if (status != SEAM_OK && e) {
        s->final_err = *e;
        seam_chunk c = { .type = SEAM_CHUNK_ERROR, .error = e };
        seam_result_add_chunk(s->result, &c);
    }
}

static int is_content(seam_chunk_type t)
{
    return t != SEAM_CHUNK_STOP && t != SEAM_CHUNK_ERROR;
}

/* Backoff before attempt n+1 on an entry: min(base * 2^n + jitter, max). */
static int64_t backoff_ms(const seam_conf_backoff *b, int n)
{
    int64_t base = b->base_ms > 0 ? b->base_ms : 500;
    int64_t max = b->max_ms > 0 ? b->max_ms : 20000;
    int64_t d = base;
    for (int i = 0; i < n && d < max; i++)
        d *= 2;
    double jitter = b->jitter >= 0 ? b->jitter : 0.1;
    d += (int64_t)((double)base * jitter * ((double)rand() / (double)RAND_MAX));
    return d < max ? d : max;
}

/* Starts the next attempt, skipping entries that cannot serve. 0 when a transfer
 * is running, 1 when the plan is exhausted (s->done set), <0 on a hard error. */
static int start_attempt(seam_stream *s)
{
    while (s->entry < s->n_plan) {
        const plan_entry *e = &s->plan[s->entry];
        seam_error why;
        seam_error_clear(&why);
        seam_provider_slot *slot = seam_client_slot(s->client, e->provider);
        if (!slot) {
            seam_error_set(&why, SEAM_ERROR_CONF, "provider \"%s\" is not configured", e->provider);
            skip_entry(s, e, &why);
            continue;
        }
        if (!slot->vt) {
            seam_error_set(&why, SEAM_ERROR_CONF, "plugin \"%s\" is not installed", slot->conf->plugin);
            skip_entry(s, e, &why);
            continue;
        }
        if (!slot->instance) {
            seam_error_set(&why, SEAM_ERROR_CONF, "%s", slot->create_error);
            skip_entry(s, e, &why);
            continue;
        }
        if (!e->model || !*e->model) {
            seam_error_set(&why, SEAM_ERROR_BAD_REQUEST, "no model given for provider \"%s\"", e->provider);
            skip_entry(s, e, &why);
            continue;
        }
        seam_secret_free(s->credential);
        s->credential = NULL;
        if (seam_client_credential(s->client, slot, &s->credential, &why) != SEAM_OK) {
            if (why.kind == SEAM_ERROR_NONE)
                seam_error_set(&why, SEAM_ERROR_AUTH, "no credential");
            skip_entry(s, e, &why);
            continue;
        }
        seam_request_free(s->sent);
        s->sent = seam_request_dup(s->req);
        if (!s->sent)
            return SEAM_ERR_NOMEM;
        /* A reasoning signature is only valid for the provider that made it. */
        if (s->entry > 0 && strcmp(e->provider, s->plan[0].provider) != 0)
            seam_request_strip_reasoning(s->sent);
        seam_request_set_model(s->sent, e->model);
        int64_t timeout = slot->conf->timeout_ms;
        if (s->timeout_ms > 0) {
            int64_t left = s->start_ms + s->timeout_ms - seam_now_ms();
            if (left <= 0) {
                seam_error_set(&why, SEAM_ERROR_TIMEOUT, "the call's deadline passed");
                end_with(s, SEAM_ERR_PROVIDER, &why);
                return 1;
            }
            if (timeout <= 0 || left < timeout)
                timeout = left;
        }
        seam_transfer_params p = {
            .vt = slot->vt,
            .instance = slot->instance,
            .provider_name = slot->conf->name,
            .req = s->sent,
            .stream = s->streaming,
            .credential = s->credential,
            .timeout_ms = timeout,
            .connect_timeout_ms = slot->conf->connect_timeout_ms,
            .idle_timeout_ms = s->idle_timeout_ms > 0 ? s->idle_timeout_ms : slot->conf->idle_timeout_ms,
            .max_response_bytes = slot->conf->max_response_bytes,
            .cancel = s->cancel,
            .share = s->client->share,
        };
        s->attempt++;
        s->any_attempt = 1;
        int rc = seam_transfer_open(&p, &s->transfer, &why);
        if (rc != SEAM_OK) {
            /* The codec cannot express this request: a fatal error for this call. */
            report(s, SEAM_ATTEMPT_FAILED, e, &why, NULL, 0);
            end_with(s, rc, &why);
            return 1;
        }
        return 0;
    }
    seam_error e;
    seam_error_clear(&e);
    if (s->any_attempt) {
        e = s->last_err;
    } else {
        seam_error_set(&e, SEAM_ERROR_CONF, "no provider could serve the request%s%s%s%s",
                       s->chain_name ? " (chain " : "", s->chain_name ? s->chain_name : "",
                       s->chain_name ? ")" : "", s->skipped.len ? ": " : "");
        size_t used = strlen(e.message);
        if (s->skipped.data)
            seam_strlcpy(e.message + used, s->skipped.data, sizeof e.message - used);
    }
    end_with(s, SEAM_ERR_PROVIDER, &e);
    return 1;
}

/* An attempt failed with e: decide between retry, next entry and the end. */
static void after_failure(seam_stream *s, seam_error *e)
{
    const plan_entry *pe = &s->plan[s->entry];
    seam_transfer_free(s->transfer);
    s->transfer = NULL;
    s->last_err = *e;
    if (s->yielded_content) {
        report(s, SEAM_ATTEMPT_FAILED, pe, e, NULL, 0);
        seam_result_set_incomplete(s->result, 1);
        end_with(s, SEAM_ERR_PROVIDER, e);
        return;
    }
    if (!e->retryable || e->kind == SEAM_ERROR_CANCELLED) {
        report(s, SEAM_ATTEMPT_FAILED, pe, e, NULL, 0);
        end_with(s, SEAM_ERR_PROVIDER, e);
        return;
    }
    if (s->attempt < pe->max_attempts) {
        int64_t wait = backoff_ms(&pe->backoff, s->attempt - 1);
        if (e->retry_after_ms >= 0) {
            if (e->retry_after_ms > s->retry_after_cap_ms) {
                report(s, SEAM_ATTEMPT_FAILED, pe, e, NULL, 0);
                s->entry++;
                s->attempt = 0;
                return;
            }
            wait = e->retry_after_ms;
        }
        if (s->timeout_ms > 0 && seam_now_ms() + wait > s->start_ms + s->timeout_ms) {
            report(s, SEAM_ATTEMPT_FAILED, pe, e, NULL, 0);
            end_with(s, SEAM_ERR_PROVIDER, e);
            return;
        }
        report(s, SEAM_ATTEMPT_FAILED, pe, e, NULL, wait);
        if (seam_cancel_sleep(s->cancel, wait)) {
            seam_error c;
            seam_error_clear(&c);
            seam_error_set(&c, SEAM_ERROR_CANCELLED, "cancelled");
            seam_strlcpy(c.provider, pe->provider, sizeof c.provider);
            end_with(s, SEAM_ERR_PROVIDER, &c);
        }
        return;
    }
    report(s, SEAM_ATTEMPT_FAILED, pe, e, NULL, 0);
    s->entry++;
    s->attempt = 0;
}

int seam_stream_next(seam_stream *s, const seam_chunk **chunk, seam_error *err)
{
    if (!s || !chunk)
        return SEAM_ERR_INVALID;
    *chunk = NULL;
    for (;;) {
        if (s->done) {
            if (s->final_status != SEAM_OK && err)
                *err = s->final_err;
            return s->final_status;
        }
        if (!s->transfer) {
            int rc = start_attempt(s);
            if (rc < 0) {
                seam_error e;
                seam_error_clear(&e);
                seam_error_set(&e, SEAM_ERROR_UNKNOWN, "out of memory");
                end_with(s, rc, &e);
            }
            continue;
        }
        const seam_chunk *c = NULL;
        seam_error e;
        seam_error_clear(&e);
        int rc = seam_transfer_next(s->transfer, &c, &e);
        if (rc == 1) {
            if (is_content(c->type))
                s->yielded_content = 1;
            seam_result_add_chunk(s->result, c);
            *chunk = c;
            return 1;
        }
        if (rc == SEAM_OK) {
            const plan_entry *pe = &s->plan[s->entry];
            seam_result_set_origin(s->result, pe->provider, pe->model);
            report(s, SEAM_ATTEMPT_SUCCEEDED, pe, NULL, seam_result_usage(s->result), 0);
            end_with(s, SEAM_OK, NULL);
            continue;
        }
        after_failure(s, &e);
    }
}

const seam_result *seam_stream_result(const seam_stream *s)
{
    return s ? s->result : NULL;
}

void seam_stream_free(seam_stream *s)
{
    if (!s)
        return;
    seam_transfer_free(s->transfer);
    seam_secret_free(s->credential);
    seam_request_free(s->sent);
    seam_request_free(s->req);
    seam_result_free(s->result);
    seam_buf_free(&s->skipped);
    free(s->plan);
    free(s->opt_provider);
    free(s->opt_model);
    free(s);
}

int seam_generate(seam_client *client, const seam_request *req, const seam_call_options *opts,
                  seam_result **out, seam_error *err)
{
    if (out)
        *out = NULL;
    seam_stream *s = NULL;
    int rc = stream_open(client, req, opts, 0, &s, err);
    if (rc != SEAM_OK)
        return rc;
    const seam_chunk *c;
    while ((rc = seam_stream_next(s, &c, err)) == 1)
        ;
    if (rc == SEAM_OK && out) {
        *out = s->result;
        s->result = NULL;
    }
    seam_stream_free(s);
    return rc;
}
