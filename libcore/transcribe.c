/* transcribe.c — seam_transcribe, speech to text through a chain with the
 * same policy as generation (call.c): an entry whose plugin cannot
 * transcribe is skipped and the skip reported; retries, key rotation,
 * cooldowns and failover apply unchanged; each attempt's usage is priced
 * against its model. The core resolves a handle to the stored bytes once,
 * before the chain; the plugin encodes (an upload, see multipart.c) and
 * decodes. The result type is transcription.c's. */
#include "config.h"
#include "client.h"
#include "transcription.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- the call ------------------------------------------------------------------------ */

typedef struct transcribe_state {
    seam_transcribe_request view; /* the caller's request, bytes resolved */
    seam_transcription *got;      /* the last attempt's decoded answer */
} transcribe_state;

static int transcribe_cannot_serve(void *ud, const seam_client *c, const seam_provider_slot *s,
                                   const char *model, seam_error *why)
{
    (void)ud;
    (void)c;
    (void)model;
    if (!s->vt->transcribe_encode || !s->vt->transcribe_decode) {
        seam_error_set(why, SEAM_ERROR_BAD_REQUEST, "provider \"%s\" (plugin %s) cannot transcribe",
                       s->conf->name, s->vt->id ? s->vt->id : s->conf->plugin);
        seam_strlcpy(why->code, "capability", sizeof why->code);
        return 1;
    }
    return 0;
}

static int transcribe_encode(void *ud, const seam_provider_vtable *vt, void *instance,
                             const seam_request *req, seam_http_request *out, seam_error *err)
{
    transcribe_state *st = ud;
    seam_transcribe_request view = st->view;
    view.model = seam_request_model(req);
    return vt->transcribe_encode(instance, &view, out, err);
}

static int transcribe_decode(void *ud, const seam_provider_vtable *vt, void *instance,
                             const seam_request *req, const char *body, size_t len,
                             seam_emitter *out, seam_error *err)
{
    transcribe_state *st = ud;
    seam_transcribe_request view = st->view;
    view.model = seam_request_model(req);
    seam_transcription *got = seam_transcription_new();
    if (!got)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    int rc = vt->transcribe_decode(instance, &view, body, len, got, err);
    if (rc == SEAM_OK && !got->text) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "the provider's transcription has no text");
        seam_strlcpy(err->code, "bad_response", sizeof err->code);
        rc = SEAM_ERR_PROVIDER;
    }
    if (rc != SEAM_OK) {
        seam_transcription_free(got);
        return rc;
    }
    seam_transcription_free(st->got);
    st->got = got;
    /* The stop carries the usage: the chain runner prices it per attempt. */
    seam_chunk stop = {.type = SEAM_CHUNK_STOP, .stop_reason = SEAM_STOP_STOP, .usage = got->usage};
    return seam_emit(out, &stop);
}

static int bad(seam_error *err, const char *msg)
{
    seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "%s", msg);
    return SEAM_ERR_INVALID;
}

int seam_transcribe(seam_client *client, const seam_transcribe_request *tr,
                    const seam_call_options *opts, seam_transcription **out, seam_error *err)
{
    seam_error_clear(err);
    if (out)
        *out = NULL;
    if (!client || !tr || !out)
        return bad(err, "invalid argument");
    if (tr->size < offsetof(seam_transcribe_request, name) + sizeof tr->name)
        return bad(err, "seam_transcribe_request.size is not set");
    if (opts && opts->size < offsetof(seam_call_options, ud) + sizeof opts->ud)
        return bad(err, "seam_call_options.size is not set");
    uint32_t m = seam_media_mime_check(tr->mime_type, "the audio to transcribe", err);
    if (!m)
        return SEAM_ERR_INVALID;
    if (!(m & (SEAM_MODALITY_AUDIO | SEAM_MODALITY_VIDEO)))
        return bad(err, "the audio to transcribe: its MIME type is not audio/* (or a video "
                        "container such as video/mp4)");
    if ((tr->audio || tr->audio_len) == (tr->handle != NULL))
        return bad(err, "the audio to transcribe: give its bytes or a handle, one of the two");
    if (tr->audio_len && !tr->audio)
        return bad(err, "invalid argument");
    seam_call_options o;
    /* Transcription has chains of their own: a chat model may not take audio. */
    int orc = seam_op_call_options(client, opts, "transcribe", "transcription", &o, err);
    if (orc != SEAM_OK)
        return orc;
    transcribe_state st;
    memset(&st, 0, sizeof st);
    memcpy(&st.view, tr, tr->size < sizeof st.view ? tr->size : sizeof st.view);
    st.view.size = sizeof st.view;
    unsigned char *stored = NULL;
    size_t stored_len = 0;
    if (tr->handle) {
        int rc = seam_media_read(client, tr->handle, &stored, &stored_len, err);
        if (rc != SEAM_OK)
            return rc;
        st.view.audio = stored;
        st.view.audio_len = stored_len;
        st.view.handle = NULL;
    }
    seam_request *req = seam_request_new();
    if (!req || (tr->model && seam_request_set_model(req, tr->model) != SEAM_OK)) {
        seam_request_free(req);
        free(stored);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    }
    seam_call_op op = {transcribe_cannot_serve, transcribe_encode, transcribe_decode, &st};
    seam_result *res = NULL;
    int rc = seam_call_run_op(client, req, &o, &op, &res, err);
    seam_request_free(req);
    if (rc == SEAM_OK && (!st.got || !res)) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "the call ended without a transcription");
        rc = SEAM_ERR_PROVIDER;
    }
    if (rc == SEAM_OK) {
        const seam_usage *u = seam_result_usage(res);
        if (u)
            st.got->usage = *u;
        /* Seconds the provider did not report, where the audio says them. */
        if (st.got->seconds < 0) {
            int64_t ms = seam_wav_duration_ms(st.view.audio,
                                              st.view.audio_len < 4096 ? st.view.audio_len : 4096,
                                              (int64_t)st.view.audio_len);
            if (ms >= 0)
                st.got->seconds = (double)ms / 1000.0;
        }
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
    seam_transcription_free(st.got);
    seam_result_free(res);
    free(stored);
    return rc;
}
