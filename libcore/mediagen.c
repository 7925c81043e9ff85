/* mediagen.c — seam_generate_media: a media generation request run through
 * a chain with the policy of every call (call.c's operations): an entry
 * whose plugin has no media generation is skipped and the skip reported;
 * retries, key rotation, cooldowns and failover apply until one provider
 * answers. A synchronous answer is media, stored as it is decoded; an
 * asynchronous one is a job accepted by that provider, which stays with it
 * (mediajob.c) — the chain is over once a provider has the job. */
#include "config.h"
#include "mediagen_int.h"
#include "transport.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct gen_state {
    const seam_media_request *mr;
    seam_media_sink sink; /* the answering attempt's */
} gen_state;

/* mr as the plugin sees it for one attempt: the entry's model. */
static seam_media_request attempt_view(const seam_media_request *mr, const seam_request *req)
{
    seam_media_request view = *mr;
    view.model = (char *)seam_request_model(req);
    return view;
}

static int gen_cannot_serve(void *ud, const seam_client *c, const seam_provider_slot *s,
                            const char *model, seam_error *why)
{
    (void)ud;
    (void)c;
    (void)model;
    if (s->vt->size < offsetof(seam_provider_vtable, media_decode) + sizeof s->vt->media_decode ||
        !s->vt->media_encode || !s->vt->media_decode) {
        seam_error_set(why, SEAM_ERROR_BAD_REQUEST,
                       "provider \"%s\" (plugin %s) has no media generation", s->conf->name,
                       s->vt->id ? s->vt->id : s->conf->plugin);
        seam_strlcpy(why->code, "capability", sizeof why->code);
        return 1;
    }
    return 0;
}

static int gen_encode(void *ud, const seam_provider_vtable *vt, void *instance,
                      const seam_request *req, seam_http_request *out, seam_error *err)
{
    gen_state *st = ud;
    seam_media_request view = attempt_view(st->mr, req);
    return vt->media_encode(instance, &view, out, err);
}

static int gen_malformed(seam_error *err, const char *what)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "the provider's media answer %s", what);
    seam_strlcpy(err->code, "bad_response", sizeof err->code);
    return SEAM_ERR_PROVIDER;
}

static int gen_decode(void *ud, const seam_provider_vtable *vt, void *instance,
                      const seam_request *req, const char *body, size_t len, seam_emitter *out,
                      seam_error *err)
{
    gen_state *st = ud;
    seam_media_request view = attempt_view(st->mr, req);
    seam_media_sink_clear(&st->sink);
    st->sink.client = out->client;
    int rc = vt->media_decode(instance, &view, body, len, &st->sink, err);
    if (rc != SEAM_OK)
        return rc;
    if (st->sink.pending) {
        int can_poll = vt->size >= offsetof(seam_provider_vtable, media_poll_decode) +
                                        sizeof vt->media_poll_decode &&
                       vt->media_poll_encode && vt->media_poll_decode;
        if (!can_poll)
            return gen_malformed(err, "is a job, and the plugin cannot poll jobs");
        if (st->sink.n)
            return gen_malformed(err, "is both a job and media");
    } else if (!st->sink.n) {
        return gen_malformed(err, "holds no media");
    }
    return seam_media_sink_emit(&st->sink, out);
}

int seam_generate_media(seam_client *client, const seam_media_request *mr,
                        const seam_call_options *opts, seam_result **out, seam_media_job **job,
                        seam_error *err)
{
    seam_error_clear(err);
    if (out)
        *out = NULL;
    if (job)
        *job = NULL;
    if (!client || !mr || !out)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    if (opts && opts->size < offsetof(seam_call_options, ud) + sizeof opts->ud)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "seam_call_options.size is not set"),
               SEAM_ERR_INVALID;
    seam_call_options o;
    /* Generators have chains of their own: a chat model draws no picture. */
    int orc = seam_op_call_options(client, opts, "media", "media generation", &o, err);
    if (orc != SEAM_OK)
        return orc;
    seam_request *req = seam_request_new();
    if (!req || (mr->model && seam_request_set_model(req, mr->model) != SEAM_OK)) {
        seam_request_free(req);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    }
    gen_state st = {.mr = mr};
    seam_media_sink_init(&st.sink, client);
    seam_call_op op = {gen_cannot_serve, gen_encode, gen_decode, &st};
    seam_result *res = NULL;
    int rc = seam_call_run_op(client, req, &o, &op, &res, err);
    seam_request_free(req);
    if (rc == SEAM_OK && !res) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "the call ended without media");
        rc = SEAM_ERR_PROVIDER;
    }
    if (rc == SEAM_OK && st.sink.pending) {
        int64_t deadline = mr->deadline_ms > 0 ? mr->deadline_ms : 0;
        seam_media_job *j = seam_media_job_accepted(client, seam_result_provider(res),
                                                    seam_result_model(res), mr->modality,
                                                    st.sink.ref, st.sink.progress, mr->seconds,
                                                    deadline);
        seam_result_free(res);
        res = NULL;
        if (!j) {
            seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
            rc = SEAM_ERR_NOMEM;
        } else if (job) {
            *job = j;
        } else {
            rc = seam_media_job_wait(client, j, o.cancel, NULL, NULL, &res, err);
            seam_media_job_free(j);
        }
    } else if (rc == SEAM_OK) {
        seam_media_add_seconds(res, mr->modality, st.sink.seconds, mr->seconds);
    }
    seam_media_sink_clear(&st.sink);
    if (rc == SEAM_OK)
        *out = res;
    else
        seam_result_free(res);
    return rc;
}
