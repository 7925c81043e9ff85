/* media.c — the mock's media generation: deterministic, offline.
 *
 *   image  mock://local/v1/media/image -> {"data":[{"b64_json":PNG}...]}, one
 *          1x1 PNG per image asked for (count, default 1)
 *   audio  mock://local/v1/media/audio -> the raw bytes of a short WAV
 *   video  mock://local/v1/media/video -> {"job":"N"}: a job that is done
 *          after N polls (the provider option or conf option job_polls,
 *          default 3). The job's ref is "mock:N:F:K" after K polls (F: 1 when
 *          it is to fail); a poll is mock://local/v1/media/poll/N/F/K, answered {"status":"running",
 *          "progress":K/N} until K reaches N, then {"status":"done",
 *          "video":B64} — a few bytes of an MP4 header, 4 seconds long.
 *          With job_fail true the last poll says {"status":"failed"}: a
 *          content_filter error.
 * The job keeps its state in its ref, so the plugin stays a pure function
 * and a resumed job (another process) goes on where it was. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/codec_util.h"
#include "mock_internal.h"

/* An ftyp box, as an MP4 file begins: enough for a sniffer to say video/mp4. */
static const char mock_mp4_b64[] = "AAAAGGZ0eXBtcDQyAAAAAG1wNDJpc29t";

static int build(seam_http_request *out, const char *url, const char *body, seam_error *err)
{
    int rc = seam_http_request_set_url(out, url);
    if (rc == SEAM_OK)
        rc = seam_http_request_add_secret_header(out, "Authorization", "Bearer ");
    if (rc == SEAM_OK && body)
        rc = seam_http_request_set_body(out, body, strlen(body));
    if (rc == SEAM_OK && !body)
        rc = seam_http_request_set_method(out, SEAM_HTTP_GET);
    if (rc != SEAM_OK)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: cannot build the media request");
    return rc;
}

/* The option key of the request's provider options, else of the conf's. */
static int64_t option_int(const mock_instance *m, const seam_media_request *mr, const char *key,
                          int64_t dflt)
{
    const char *texts[2] = {seam_media_request_provider_options(mr),
                            m && m->options_json ? m->options_json : NULL};
    for (int i = 0; i < 2; i++) {
        if (!texts[i])
            continue;
        json_object *o = json_parse_strict(texts[i], strlen(texts[i]));
        json_object *v = jget(o, key);
        int64_t x = jis(v, json_type_boolean) ? json_object_get_boolean(v)
                    : jis(v, json_type_int)   ? json_object_get_int64(v)
                                              : INT64_MIN;
        json_object_put(o);
        if (x != INT64_MIN)
            return x;
    }
    return dflt;
}

int mock_media_encode(void *instance, const seam_media_request *mr, seam_http_request *out,
                      seam_error *err)
{
    const mock_instance *m = instance;
    uint32_t modality = seam_media_request_modality(mr);
    const char *mime = seam_media_request_mime_type(mr);
    const char *made = modality == SEAM_MODALITY_IMAGE   ? "image/png"
                       : modality == SEAM_MODALITY_AUDIO ? "audio/wav"
                                                         : "video/mp4";
    if (mime && strcmp(mime, made) != 0) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "mock: it makes %s only, not %s", made, mime);
        return SEAM_ERR_INVALID;
    }
    char body[160];
    snprintf(body, sizeof body,
             "{\"count\":%d,\"polls\":%lld,\"fail\":%lld,\"prompt_bytes\":%zu}",
             seam_media_request_count(mr) > 0 ? seam_media_request_count(mr) : 1,
             (long long)option_int(m, mr, "job_polls", 3),
             (long long)option_int(m, mr, "job_fail", 0), strlen(seam_media_request_prompt(mr)));
    char url[64];
    snprintf(url, sizeof url, "%s%s", MOCK_MEDIA_URL,
             modality == SEAM_MODALITY_IMAGE ? "image"
             : modality == SEAM_MODALITY_AUDIO ? "audio"
                                               : "video");
    return build(out, url, body, err);
}

int mock_media_decode(void *instance, const seam_media_request *mr, const char *body, size_t len,
                      seam_media_sink *out, seam_error *err)
{
    (void)instance;
    uint32_t modality = seam_media_request_modality(mr);
    if (modality == SEAM_MODALITY_AUDIO)
        return seam_media_sink_bytes(out, "audio/wav", body, len, err);
    json_object *root = json_parse_strict(body, len);
    int rc = SEAM_OK;
    if (modality == SEAM_MODALITY_VIDEO) {
        const char *job = jstr(root, "job");
        char ref[64];
        snprintf(ref, sizeof ref, "mock:%s:0", job ? job : "");
        long n, f, k;
        char tail;
        if (job && sscanf(ref, "mock:%ld:%ld:%ld%c", &n, &f, &k, &tail) != 3)
            job = NULL;
        rc = job ? seam_media_sink_pending(out, ref, 0, 0) : SEAM_ERR_INVALID;
    } else {
        json_object *data = jget(root, "data");
        size_t n = jis(data, json_type_array) ? json_object_array_length(data) : 0;
        rc = n ? SEAM_OK : SEAM_ERR_INVALID;
        for (size_t i = 0; rc == SEAM_OK && i < n; i++) {
            const char *b64 = jstr(json_object_array_get_idx(data, i), "b64_json");
            rc = b64 ? seam_media_sink_base64(out, "image/png", b64, strlen(b64), err)
                     : SEAM_ERR_INVALID;
        }
    }
    json_object_put(root);
    if (rc == SEAM_ERR_INVALID)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: a malformed media answer"),
               SEAM_ERR_PROVIDER;
    return rc;
}

/* "mock:N:F:K" -> N, F, K; 0 when ref is not one. */
static int parse_ref(const char *ref, long *n, long *f, long *k)
{
    char tail;
    return sscanf(ref, "mock:%ld:%ld:%ld%c", n, f, k, &tail) == 3 && *n >= 0 && *n < 1000 &&
           *k >= 0 && *k <= *n && (*f == 0 || *f == 1);
}

int mock_media_poll_encode(void *instance, const char *ref, seam_http_request *out,
                           seam_error *err)
{
    (void)instance;
    long n, f, k;
    if (!parse_ref(ref, &n, &f, &k)) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "mock: not a job of the mock");
        return SEAM_ERR_INVALID;
    }
    char url[96];
    snprintf(url, sizeof url, "%spoll/%ld/%ld/%ld", MOCK_MEDIA_URL, n, f, k + 1);
    return build(out, url, NULL, err);
}

int mock_media_poll_decode(void *instance, const char *ref, const char *body, size_t len,
                           seam_media_sink *out, seam_error *err)
{
    (void)instance;
    long n, f, k;
    if (!parse_ref(ref, &n, &f, &k))
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: not a job of the mock"),
               SEAM_ERR_PROVIDER;
    json_object *root = json_parse_strict(body, len);
    const char *status = jstr(root, "status");
    int rc;
    if (status && strcmp(status, "done") == 0 && jstr(root, "video")) {
        const char *v = jstr(root, "video");
        rc = seam_media_sink_base64(out, "video/mp4", v, strlen(v), err);
        if (rc == SEAM_OK)
            (void)seam_media_sink_seconds(out, 4);
    } else if (status && strcmp(status, "failed") == 0) {
        seam_error_set(err, SEAM_ERROR_CONTENT_FILTER, "mock: the job was refused (job_fail)");
        seam_strlcpy(err->code, "moderation_blocked", sizeof err->code);
        rc = SEAM_ERR_PROVIDER;
    } else if (status && strcmp(status, "running") == 0) {
        char next[64];
        snprintf(next, sizeof next, "mock:%ld:%ld:%ld", n, f, k + 1 > n ? n : k + 1);
        json_object *p = jget(root, "progress");
        rc = seam_media_sink_pending(out, next, p ? json_object_get_double(p) : -1, 0);
        if (rc != SEAM_OK)
            rc = (seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory"), SEAM_ERR_PROVIDER);
    } else {
        rc = (seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: a malformed job answer"),
              SEAM_ERR_PROVIDER);
    }
    json_object_put(root);
    return rc;
}

static int serve_text(seam_served *out, const char *ctype, const char *data, size_t len)
{
    if (seam_served_set_status(out, 200) != SEAM_OK ||
        seam_served_add_header(out, "Content-Type", ctype) != SEAM_OK ||
        seam_served_add_piece(out, data, len, 0) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    return SEAM_OK;
}

int mock_media_serve(void *instance, const seam_http_request *hr, seam_served *out,
                     seam_error *err)
{
    (void)instance;
    const char *what = seam_http_request_url(hr) + strlen(MOCK_MEDIA_URL);
    size_t blen = 0;
    const char *body = seam_http_request_body(hr, &blen);
    json_object *req = body && blen ? json_parse_strict(body, blen) : NULL;
    int64_t count = 1, polls = 3, fail = 0;
    (void)jint(req, "count", &count);
    (void)jint(req, "polls", &polls);
    (void)jint(req, "fail", &fail);
    json_object_put(req);
    int rc;
    char buf[256];
    long n, f, k;
    if (strcmp(what, "image") == 0) {
        strbuf b = {0};
        sb_puts(&b, "{\"created\":0,\"data\":[");
        for (int64_t i = 0; i < count && i < 16; i++) {
            sb_puts(&b, i ? ",{\"b64_json\":\"" : "{\"b64_json\":\"");
            sb_puts(&b, mock_png_b64);
            sb_puts(&b, "\"}");
        }
        sb_puts(&b, "]}");
        rc = b.failed ? SEAM_ERR_NOMEM : serve_text(out, "application/json", b.data, b.len);
        sb_free(&b);
    } else if (strcmp(what, "audio") == 0) {
        size_t n_bytes = 0;
        /* The WAV's bytes: decoded here so that decode sees what a speech endpoint sends. */
        static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        unsigned char raw[128];
        unsigned acc = 0;
        int bits = 0;
        for (const char *p = mock_wav_b64; *p && *p != '='; p++) {
            acc = acc << 6 | (unsigned)(strchr(tbl, *p) - tbl);
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                raw[n_bytes++] = (unsigned char)(acc >> bits);
            }
        }
        rc = serve_text(out, "audio/wav", (const char *)raw, n_bytes);
    } else if (strcmp(what, "video") == 0) {
        snprintf(buf, sizeof buf, "{\"job\":\"%lld:%d\"}", (long long)(polls < 0 ? 0 : polls),
                 fail != 0);
        rc = serve_text(out, "application/json", buf, strlen(buf));
    } else if (sscanf(what, "poll/%ld/%ld/%ld", &n, &f, &k) == 3) {
        if (k < n)
            snprintf(buf, sizeof buf, "{\"status\":\"running\",\"progress\":%.4f}",
                     (double)k / (double)n);
        else if (f)
            snprintf(buf, sizeof buf, "{\"status\":\"failed\"}");
        else
            snprintf(buf, sizeof buf, "{\"status\":\"done\",\"video\":\"%s\"}", mock_mp4_b64);
        rc = serve_text(out, "application/json", buf, strlen(buf));
    } else {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "mock: no such media endpoint");
        return SEAM_ERR_INVALID;
    }
    if (rc != SEAM_OK)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory");
    return rc;
}
