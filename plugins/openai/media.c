/* media.c — OpenAI's media generation endpoints (seam_generate_media):
 *
 *   image  POST {base}/images/generations, JSON {"model","prompt","n","size",
 *          "output_format"} (GPT image models; a dall-e model gets
 *          "response_format":"b64_json" instead, its default being a URL),
 *          answered {"created","data":[{"b64_json"}],"output_format",
 *          "usage":{"input_tokens","output_tokens",...}}.
 *   speech POST {base}/audio/speech, JSON {"model","input","voice",
 *          "response_format"} (mp3, opus, aac, flac, wav, pcm), answered with
 *          the audio's raw bytes.
 *   video  POST {base}/videos, multipart/form-data {prompt, model, seconds,
 *          size}, answered by a Video object {"id","object":"video","status":
 *          queued|in_progress|completed|failed,"progress" (percent),"seconds",
 *          "error":{"code","message"}}: a job. A poll is GET {base}/videos/{id};
 *          once completed, GET {base}/videos/{id}/content gives the MP4 bytes.
 *
 * Wire formats from the official SDK, openai/openai-node
 * src/resources/images.ts (ImageGenerateParamsBase, ImagesResponse),
 * src/resources/audio/speech.ts (SpeechCreateParams) and
 * src/resources/videos.ts (VideoCreateParams, Video, downloadContent), as of
 * commit 7b7d6ca. The job's ref (the core keeps it, never shows it) is
 * "video:ID" while it runs and "content:SECONDS:ID" for the download. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- the request ------------------------------------------------------------------- */

/* URL base + path (+ id + tail), headers (credential, the conf's extra ones). */
static int finish(const oa_instance *in, const char *path, const char *id, const char *tail,
                  seam_http_request *out, seam_error *err)
{
    strbuf url = {0};
    sb_puts(&url, in->base_url);
    sb_puts(&url, path);
    if (id)
        sb_puts(&url, id);
    if (tail)
        sb_puts(&url, tail);
    int rc = url.failed ? SEAM_ERR_NOMEM : seam_http_request_set_url(out, url.data);
    sb_free(&url);
    if (rc == SEAM_OK)
        rc = seam_http_request_add_secret_header(out, "Authorization", "Bearer ");
    json_object *h = in->headers_json
                         ? json_parse_strict(in->headers_json, strlen(in->headers_json))
                         : NULL;
    if (rc == SEAM_OK && jis(h, json_type_object)) {
        json_object_object_foreach(h, hk, hv)
        {
            if (rc == SEAM_OK)
                rc = seam_http_request_add_header(out, hk, json_object_get_string(hv));
        }
    }
    json_object_put(h);
    if (rc != SEAM_OK)
        return oa_nomem(err), SEAM_ERR_NOMEM;
    return SEAM_OK;
}

static int json_body(json_object *body, seam_http_request *out, seam_error *err)
{
    const char *text = json_text(body);
    if (!text || seam_http_request_set_body(out, text, strlen(text)) != SEAM_OK ||
        seam_http_request_add_header(out, "Content-Type", "application/json") != SEAM_OK)
        return oa_nomem(err), SEAM_ERR_NOMEM;
    return SEAM_OK;
}

/* The speech endpoint's response_format for a MIME type, and back. */
static const struct {
    const char *format, *mime;
} speech_formats[] = {
    {"mp3", "audio/mpeg"}, {"opus", "audio/ogg"}, {"aac", "audio/aac"},
    {"flac", "audio/flac"}, {"wav", "audio/wav"}, {"pcm", "audio/pcm"},
};

static const char *speech_format(const char *mime)
{
    for (size_t i = 0; i < sizeof speech_formats / sizeof speech_formats[0]; i++)
        if (strcmp(speech_formats[i].mime, mime) == 0)
            return speech_formats[i].format;
    return NULL;
}

static const char *image_format(const char *mime)
{
    if (strcmp(mime, "image/png") == 0)
        return "png";
    if (strcmp(mime, "image/jpeg") == 0)
        return "jpeg";
    if (strcmp(mime, "image/webp") == 0)
        return "webp";
    return NULL;
}

static int add_str(json_object *o, const char *key, const char *v)
{
    return v ? json_object_object_add(o, key, json_object_new_string(v)) == 0 : 1;
}

static int encode_image(const oa_instance *in, const seam_media_request *mr, json_object *body,
                        seam_error *err)
{
    const char *model = seam_media_request_model(mr);
    const char *mime = seam_media_request_mime_type(mr);
    int ok = add_str(body, "prompt", seam_media_request_prompt(mr));
    if (seam_media_request_count(mr) > 0)
        ok = ok && json_object_object_add(body, "n",
                                          json_object_new_int(seam_media_request_count(mr))) == 0;
    ok = ok && add_str(body, "size", seam_media_request_size(mr));
    if (oa_model_is(model, "dall-e-2") || oa_model_is(model, "dall-e-3")) {
        /* dall-e answers with a URL unless told otherwise, and always a PNG. */
        if (mime && strcmp(mime, "image/png") != 0)
            return oa_bad_request(err, "%s makes PNG images only", model);
        ok = ok && add_str(body, "response_format", "b64_json");
    } else if (mime) {
        const char *f = image_format(mime);
        if (!f)
            return oa_bad_request(err, "the images endpoint makes png, jpeg or webp, not %s", mime);
        ok = ok && add_str(body, "output_format", f);
    }
    (void)in;
    return ok ? SEAM_OK : (oa_nomem(err), SEAM_ERR_NOMEM);
}

static int encode_speech(const seam_media_request *mr, json_object *body, seam_error *err)
{
    const char *mime = seam_media_request_mime_type(mr);
    const char *format = mime ? speech_format(mime) : "mp3";
    if (!format)
        return oa_bad_request(err, "the speech endpoint makes mp3, opus, aac, flac, wav or pcm, "
                                   "not %s", mime);
    const char *voice = seam_media_request_voice(mr);
    int ok = add_str(body, "input", seam_media_request_prompt(mr)) &&
             add_str(body, "voice", voice ? voice : "alloy") &&
             add_str(body, "response_format", format);
    return ok ? SEAM_OK : (oa_nomem(err), SEAM_ERR_NOMEM);
}

/* One text field of a multipart/form-data body (RFC 7578). */
static void form_field(strbuf *b, const char *boundary, const char *name, const char *value)
{
    sb_puts(b, "--");
    sb_puts(b, boundary);
    sb_puts(b, "\r\nContent-Disposition: form-data; name=\"");
    sb_puts(b, name);
    sb_puts(b, "\"\r\n\r\n");
    sb_puts(b, value);
    sb_puts(b, "\r\n");
}

static int encode_video(const oa_instance *in, const seam_media_request *mr,
                        seam_http_request *out, seam_error *err)
{
    const char *prompt = seam_media_request_prompt(mr);
    const char *boundary = "seam-form-7b1c2e0f9a4d";
    if (strstr(prompt, boundary))
        return oa_bad_request(err, "the prompt holds the form's boundary");
    const char *mime = seam_media_request_mime_type(mr);
    if (mime && strcmp(mime, "video/mp4") != 0)
        return oa_bad_request(err, "the videos endpoint makes video/mp4, not %s", mime);
    strbuf b = {0};
    form_field(&b, boundary, "prompt", prompt);
    form_field(&b, boundary, "model", seam_media_request_model(mr));
    if (seam_media_request_seconds(mr) > 0) {
        char s[16];
        snprintf(s, sizeof s, "%d", seam_media_request_seconds(mr));
        form_field(&b, boundary, "seconds", s);
    }
    if (seam_media_request_size(mr))
        form_field(&b, boundary, "size", seam_media_request_size(mr));
    /* Provider options: more form fields, their values as text. */
    const char *opts = seam_media_request_provider_options(mr);
    json_object *o = opts ? json_parse_strict(opts, strlen(opts)) : NULL;
    if (jis(o, json_type_object)) {
        json_object_object_foreach(o, k, v)
        {
            const char *text = jis(v, json_type_string) ? json_object_get_string(v) : json_text(v);
            form_field(&b, boundary, k, text ? text : "null");
        }
    }
    json_object_put(o);
    sb_puts(&b, "--");
    sb_puts(&b, boundary);
    sb_puts(&b, "--\r\n");
    char ctype[96];
    snprintf(ctype, sizeof ctype, "multipart/form-data; boundary=%s", boundary);
    int rc = finish(in, "/videos", NULL, NULL, out, err);
    if (rc == SEAM_OK && (b.failed || seam_http_request_set_body(out, b.data, b.len) != SEAM_OK ||
                          seam_http_request_add_header(out, "Content-Type", ctype) != SEAM_OK))
        rc = (oa_nomem(err), SEAM_ERR_NOMEM);
    sb_free(&b);
    return rc;
}

int oa_media_encode(void *instance, const seam_media_request *mr, seam_http_request *out,
                    seam_error *err)
{
    const oa_instance *in = instance;
    const char *model = seam_media_request_model(mr);
    if (!model || !*model)
        return oa_bad_request(err, "no model for the media generation");
    uint32_t modality = seam_media_request_modality(mr);
    if (modality == SEAM_MODALITY_VIDEO)
        return encode_video(in, mr, out, err);
    json_object *body = json_object_new_object();
    int rc = body && json_object_object_add(body, "model", json_object_new_string(model)) == 0
                 ? SEAM_OK
                 : (oa_nomem(err), SEAM_ERR_NOMEM);
    if (rc == SEAM_OK)
        rc = modality == SEAM_MODALITY_IMAGE ? encode_image(in, mr, body, err)
                                             : encode_speech(mr, body, err);
    if (rc == SEAM_OK)
        rc = oa_merge_options(in, body, seam_media_request_provider_options(mr), 0, NULL, err);
    if (rc == SEAM_OK)
        rc = finish(in, modality == SEAM_MODALITY_IMAGE ? "/images/generations" : "/audio/speech",
                    NULL, NULL, out, err);
    if (rc == SEAM_OK)
        rc = json_body(body, out, err);
    json_object_put(body);
    return rc;
}

/* ---- the answers ----------------------------------------------------------------------- */

static int decode_images(const seam_media_request *mr, const char *body, size_t len,
                         seam_media_sink *out, seam_error *err)
{
    json_object *root = json_parse_strict(body, len);
    json_object *data = jget(root, "data");
    if (!jis(data, json_type_array)) {
        json_object_put(root);
        return oa_malformed(err, "images answer (no data)");
    }
    /* The answer says its format; else the one asked for; PNG by default. */
    const char *format = jstr(root, "output_format");
    const char *mime = format && strcmp(format, "jpeg") == 0   ? "image/jpeg"
                       : format && strcmp(format, "webp") == 0 ? "image/webp"
                       : format                                ? "image/png"
                       : seam_media_request_mime_type(mr)      ? seam_media_request_mime_type(mr)
                                                               : "image/png";
    int rc = SEAM_OK;
    size_t n = json_object_array_length(data);
    for (size_t i = 0; rc == SEAM_OK && i < n; i++) {
        json_object *item = json_object_array_get_idx(data, i);
        json_object *b64 = jget(item, "b64_json");
        if (!jis(b64, json_type_string))
            rc = oa_malformed(err, jstr(item, "url") ? "images answer (a URL, not b64_json)"
                                                     : "images answer (an image without b64_json)");
        else
            rc = seam_media_sink_base64(out, mime, json_object_get_string(b64),
                                        (size_t)json_object_get_string_len(b64), err);
    }
    json_object *usage = jget(root, "usage");
    if (rc == SEAM_OK && usage) {
        seam_usage u;
        memset(&u, 0, sizeof u);
        if (oa_jcount(usage, "input_tokens", &u.input_tokens))
            u.present |= SEAM_USAGE_INPUT;
        if (oa_jcount(usage, "output_tokens", &u.output_tokens))
            u.present |= SEAM_USAGE_OUTPUT;
        (void)seam_media_sink_usage(out, &u);
    }
    json_object_put(root);
    return rc;
}

/* A video id as it may go into a URL path. */
static int id_ok(const char *id)
{
    if (!id || !*id || strlen(id) > 200)
        return 0;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-'))
            return 0;
    return 1;
}

/* A Video object: pending (ref "video:ID"), completed (fetch the content at
 * once) or failed. */
static int decode_video(const oa_instance *in, const char *body, size_t len, seam_media_sink *out,
                        seam_error *err)
{
    json_object *root = json_parse_strict(body, len);
    const char *id = jstr(root, "id"), *status = jstr(root, "status");
    if (!id_ok(id) || !status) {
        json_object_put(root);
        return oa_malformed(err, "video object (no id or status)");
    }
    int64_t pct = -1;
    double progress = jint(root, "progress", &pct) && pct >= 0 && pct <= 100 ? pct / 100.0 : -1;
    char ref[256];
    int rc = SEAM_OK;
    if (strcmp(status, "completed") == 0) {
        const char *secs = jstr(root, "seconds");
        long s = secs ? strtol(secs, NULL, 10) : 0;
        snprintf(ref, sizeof ref, "content:%ld:%s", s > 0 && s < 86400 ? s : 0, id);
        rc = seam_media_sink_pending(out, ref, 1, 1);
    } else if (strcmp(status, "failed") == 0) {
        json_object *e = jget(root, "error");
        oa_error_from_fields(in, jstr(e, "code"), NULL,
                             jstr(e, "message") ? jstr(e, "message") : "the video job failed", err);
        if (err->kind == SEAM_ERROR_OVERLOADED)
            err->kind = SEAM_ERROR_UNKNOWN; /* a failed job is over: nothing to retry */
        err->retryable = 0;
        rc = SEAM_ERR_PROVIDER;
    } else {
        snprintf(ref, sizeof ref, "video:%s", id);
        rc = seam_media_sink_pending(out, ref, progress, 0);
    }
    json_object_put(root);
    if (rc == SEAM_ERR_NOMEM || rc == SEAM_ERR_INVALID)
        return oa_nomem(err), SEAM_ERR_PROVIDER;
    return rc;
}

int oa_media_decode(void *instance, const seam_media_request *mr, const char *body, size_t len,
                    seam_media_sink *out, seam_error *err)
{
    switch (seam_media_request_modality(mr)) {
    case SEAM_MODALITY_IMAGE:
        return decode_images(mr, body, len, out, err);
    case SEAM_MODALITY_VIDEO:
        return decode_video(instance, body, len, out, err);
    default: {
        const char *mime = seam_media_request_mime_type(mr);
        return seam_media_sink_bytes(out, mime ? mime : "audio/mpeg", body, len, err);
    }
    }
}

int oa_media_poll_encode(void *instance, const char *ref, seam_http_request *out, seam_error *err)
{
    const oa_instance *in = instance;
    const char *id = NULL, *tail = NULL;
    if (strncmp(ref, "video:", 6) == 0) {
        id = ref + 6;
    } else if (strncmp(ref, "content:", 8) == 0 && strchr(ref + 8, ':')) {
        id = strchr(ref + 8, ':') + 1;
        tail = "/content";
    }
    if (!id_ok(id))
        return oa_bad_request(err, "not a job of the openai plugin");
    int rc = finish(in, "/videos/", id, tail, out, err);
    if (rc == SEAM_OK && seam_http_request_set_method(out, SEAM_HTTP_GET) != SEAM_OK)
        rc = (oa_nomem(err), SEAM_ERR_NOMEM);
    if (rc == SEAM_OK && tail &&
        seam_http_request_add_header(out, "Accept", "application/binary") != SEAM_OK)
        rc = (oa_nomem(err), SEAM_ERR_NOMEM);
    return rc;
}

int oa_media_poll_decode(void *instance, const char *ref, const char *body, size_t len,
                         seam_media_sink *out, seam_error *err)
{
    if (strncmp(ref, "content:", 8) != 0)
        return decode_video(instance, body, len, out, err);
    long seconds = strtol(ref + 8, NULL, 10);
    int rc = seam_media_sink_bytes(out, "video/mp4", body, len, err);
    if (rc == SEAM_OK && seconds > 0)
        (void)seam_media_sink_seconds(out, (double)seconds);
    return rc;
}
