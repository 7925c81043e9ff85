/* embed.c — seam_embed, which runs an embedding request (embedding.c)
 * through a chain with the same policy as generation (call.c): an entry
 * whose plugin has no embeddings, or whose model is known not to embed, is
 * skipped and the skip reported; retries, key rotation, cooldowns and
 * failover apply unchanged; each attempt's usage is priced against its
 * model. The plugin encodes and decodes; the core checks that every input
 * got one vector and that all have one length. */
#include "config.h"
#include "client.h"
#include "embedding.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- the call ------------------------------------------------------------------------ */

typedef struct embed_state {
    const seam_embed_request *er;
    seam_embeddings *got;    /* the last attempt's decoded vectors */
} embed_state;

/* er as the plugin sees it for one attempt: the entry's model. */
static seam_embed_request attempt_view(const seam_embed_request *er, const seam_request *req)
{
    seam_embed_request view = *er;
    view.model = (char *)seam_request_model(req);
    return view;
}

static int embed_cannot_serve(void *ud, const seam_client *c, const seam_provider_slot *s,
                              const char *model, seam_error *why)
{
    (void)ud;
    if (!s->vt->embed_encode || !s->vt->embed_decode) {
        seam_error_set(why, SEAM_ERROR_BAD_REQUEST,
                       "provider \"%s\" (plugin %s) has no embeddings", s->conf->name,
                       s->vt->id ? s->vt->id : s->conf->plugin);
        seam_strlcpy(why->code, "capability", sizeof why->code);
        return 1;
    }
    if (seam_catalog_embeds(c, s, model) == 0) {
        seam_error_set(why, SEAM_ERROR_BAD_REQUEST,
                       "model \"%s\" of provider \"%s\" is not an embedding model (capability embed)",
                       model, s->conf->name);
        seam_strlcpy(why->code, "capability", sizeof why->code);
        return 1;
    }
    return 0;
}

static int embed_encode(void *ud, const seam_provider_vtable *vt, void *instance,
                        const seam_request *req, seam_http_request *out, seam_error *err)
{
    embed_state *st = ud;
    seam_embed_request view = attempt_view(st->er, req);
    return vt->embed_encode(instance, &view, out, err);
}

static int bad_answer(seam_error *err, const char *what, size_t i)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "the provider's embeddings are incomplete: %s %zu",
                   what, i);
    seam_strlcpy(err->code, "bad_response", sizeof err->code);
    return SEAM_ERR_PROVIDER;
}

static int embed_decode(void *ud, const seam_provider_vtable *vt, void *instance,
                        const seam_request *req, const char *body, size_t len, seam_emitter *out,
                        seam_error *err)
{
    embed_state *st = ud;
    seam_embed_request view = attempt_view(st->er, req);
    seam_embeddings *got = seam_embeddings_new(view.n);
    if (!got)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    int rc = vt->embed_decode(instance, &view, body, len, got, err);
    for (size_t i = 0; rc == SEAM_OK && i < got->n; i++) {
        if (!got->vectors[i])
            rc = bad_answer(err, "no vector for input", i);
        else if (got->dims[i] != got->dims[0])
            rc = bad_answer(err, "a vector of another length for input", i);
    }
    if (rc != SEAM_OK) {
        seam_embeddings_free(got);
        return rc;
    }
    seam_embeddings_free(st->got);
    st->got = got;
    /* The stop carries the usage: the chain runner prices it per attempt. */
    seam_chunk stop = {.type = SEAM_CHUNK_STOP, .stop_reason = SEAM_STOP_STOP, .usage = got->usage};
    return seam_emit(out, &stop);
}

int seam_embed(seam_client *client, const seam_embed_request *er, const seam_call_options *opts,
               seam_embeddings **out, seam_error *err)
{
    seam_error_clear(err);
    if (out)
        *out = NULL;
    if (!client || !er || !out)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    if (er->n == 0)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "nothing to embed: the request has no input"),
               SEAM_ERR_INVALID;
    if (opts && opts->size < offsetof(seam_call_options, ud) + sizeof opts->ud)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "seam_call_options.size is not set"),
               SEAM_ERR_INVALID;
    seam_call_options o;
    /* Embeddings have chains of their own: a chat model does not embed. */
    int orc = seam_op_call_options(client, opts, "embed", "embeddings", &o, err);
    if (orc != SEAM_OK)
        return orc;
    seam_request *req = seam_request_new();
    if (!req || (er->model && seam_request_set_model(req, er->model) != SEAM_OK)) {
        seam_request_free(req);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    }
    embed_state st = {er, NULL};
    seam_call_op op = {embed_cannot_serve, embed_encode, embed_decode, &st};
    seam_result *res = NULL;
    int rc = seam_call_run_op(client, req, &o, &op, &res, err);
    seam_request_free(req);
    if (rc == SEAM_OK && (!st.got || !res)) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "the call ended without embeddings");
        rc = SEAM_ERR_PROVIDER;
    }
    if (rc == SEAM_OK) {
        const seam_usage *u = seam_result_usage(res);
        if (u)
            st.got->usage = *u;
        const char *provider = seam_result_provider(res), *model = seam_result_model(res);
        if ((provider && !(st.got->provider = strdup(provider))) ||
            (model && !(st.got->model = strdup(model)))) {
            seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
            rc = SEAM_ERR_NOMEM;
        }
    }
    if (rc == SEAM_OK) {
        *out = st.got;
        st.got = NULL;
    }
    seam_embeddings_free(st.got);
    seam_result_free(res);
    return rc;
}
