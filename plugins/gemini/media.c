/* media.c — the Gemini API's media generation (seam_generate_media):
 *
 *   Imagen   an "imagen-*" model: POST models/{model}:predict with
 *            {"instances":[{"prompt"}],"parameters":{"sampleCount",
 *            "aspectRatio"}}, answered {"predictions":[{"bytesBase64Encoded",
 *            "mimeType"}]} (a prediction filtered by safety carries
 *            "raiFilteredReason" instead of bytes).
 *   native   any other model: POST models/{model}:generateContent with
 *            generationConfig.responseModalities ["IMAGE"] (and
 *            imageConfig.aspectRatio), answered by candidates whose parts
 *            carry inlineData {mimeType, data}.
 *   speech   a TTS model: generateContent with responseModalities ["AUDIO"]
 *            and speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName
 *            (default "Kore"), answered with inlineData of raw PCM,
 *            "audio/L16;codec=pcm;rate=24000" (signed 16-bit little-endian,
 *            mono: ai.google.dev/gemini-api/docs/speech-generation), which
 *            is stored as a WAV (a MIME type with parameters is no media
 *            type seam keeps).
 *   Veo      a "veo-*" model (video): POST models/{model}:predictLongRunning
 *            with {"instances":[{"prompt"}],"parameters":{"durationSeconds",
 *            "aspectRatio","sampleCount"}}, answered by an Operation {"name"}.
 *            A poll is GET {base}/{name}: {"done":false} runs on;
 *            {"done":true,"error":{code,message}} failed; {"done":true,
 *            "response":{"generateVideoResponse":{"generatedSamples":[{"video":
 *            {"uri"} or {"encodedVideo","encoding"}}],"raiMediaFilteredCount",
 *            "raiMediaFilteredReasons"}}} is done: inline bytes are stored, a
 *            uri is downloaded (GET, the key sent only to the API's own host).
 *
 * Wire formats from the official SDK, googleapis/js-genai at commit 6e9b35c:
 * src/models.ts ('{model}:predict', '{model}:predictLongRunning'),
 * src/converters/_models_converters.ts (generateImagesParametersToMldev,
 * generatedImageFromMldev, generateVideosParametersToMldev,
 * generateVideosOperationFromMldev: response.generateVideoResponse,
 * generateVideosResponseFromMldev: generatedSamples, raiMediaFilteredCount,
 * videoFromMldev: uri, encodedVideo, encoding) and src/operations.ts (GET
 * {operationName}). The job's ref: "op:NAME" while it runs, "dl:URI" for
 * the download. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int bad(seam_error *err, const char *what)
{
    seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "gemini: %s", what);
    return SEAM_ERR_INVALID;
}

static int malformed(seam_error *err, const char *what)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "gemini: malformed media answer: %s", what);
    seam_strlcpy(err->code, "bad_response", sizeof err->code);
    return SEAM_ERR_PROVIDER;
}

static int refused(seam_error *err, const char *why)
{
    seam_error_set(err, SEAM_ERROR_CONTENT_FILTER, "gemini: the media was filtered%s%s",
                   why ? ": " : "", why ? why : "");
    return SEAM_ERR_PROVIDER;
}

static int is_model(const char *model, const char *prefix)
{
    const char *id = strncmp(model, "models/", 7) == 0 ? model + 7 : model;
    return strncmp(id, prefix, strlen(prefix)) == 0;
}

/* An aspect ratio ("16:9") given as the request's size; NULL otherwise. */
static const char *aspect_ratio(const seam_media_request *mr)
{
    const char *s = seam_media_request_size(mr);
    return s && strchr(s, ':') ? s : NULL;
}

static int send_json(const gemini_instance *g, const char *model, const char *method,
                     json_object *body, seam_http_request *out, seam_error *err)
{
    char *url = gemini_model_url(g, model, method);
    size_t len = 0;
    const char *text = json_object_to_json_string_length(body, JSON_OUT_FLAGS, &len);
    int rc = SEAM_OK;
    if (!text || !url || seam_http_request_set_url(out, url) != SEAM_OK ||
        seam_http_request_add_header(out, "Content-Type", "application/json") != SEAM_OK ||
        seam_http_request_add_secret_header(out, "x-goog-api-key", NULL) != SEAM_OK ||
        seam_http_request_set_body(out, text, len) != SEAM_OK)
        rc = nomem(err);
    free(url);
    return rc;
}

/* The request's provider options merged over obj (shallow). */
static int merge_options(json_object *obj, const seam_media_request *mr)
{
    json_object *o = parse_json(seam_media_request_provider_options(mr));
    int ok = 1;
    if (jis(o, json_type_object)) {
        json_object_object_foreach(o, k, v)
        {
            ok &= jadd(obj, k, json_object_get(v));
        }
    }
    json_object_put(o);
    return ok;
}

int gemini_media_encode(void *instance, const seam_media_request *mr, seam_http_request *out,
                        seam_error *err)
{
    const gemini_instance *g = instance;
    const char *model = seam_media_request_model(mr);
    if (!gemini_model_id_ok(model))
        return bad(err, "the model name is missing or not a Gemini model id");
    uint32_t modality = seam_media_request_modality(mr);
    const char *prompt = seam_media_request_prompt(mr);
    int count = seam_media_request_count(mr);
    json_object *body = json_object_new_object();
    int ok = body != NULL;
    const char *method;
    if (modality == SEAM_MODALITY_AUDIO && seam_media_request_mime_type(mr) &&
        strcmp(seam_media_request_mime_type(mr), "audio/wav") != 0) {
        json_object_put(body);
        return bad(err, "Gemini speech is stored as audio/wav");
    }
    /* jadd and jpush take their value even when they fail: every piece is
     * handed on once, and ok says whether all arrived. */
    if (modality == SEAM_MODALITY_VIDEO || is_model(model, "imagen")) {
        if (modality == SEAM_MODALITY_VIDEO && seam_media_request_mime_type(mr) &&
            strcmp(seam_media_request_mime_type(mr), "video/mp4") != 0) {
            json_object_put(body);
            return bad(err, "Veo makes video/mp4");
        }
        json_object *instances = json_object_new_array();
        json_object *inst = json_object_new_object();
        json_object *params = json_object_new_object();
        ok = ok && instances && inst && params;
        if (inst)
            ok &= jadd(inst, "prompt", json_object_new_string(prompt));
        if (instances)
            ok &= jpush(instances, inst);
        else
            json_object_put(inst);
        if (params) {
            if (count > 0)
                ok &= jadd(params, "sampleCount", json_object_new_int(count));
            if (aspect_ratio(mr))
                ok &= jadd(params, "aspectRatio", json_object_new_string(aspect_ratio(mr)));
            if (modality == SEAM_MODALITY_VIDEO && seam_media_request_seconds(mr) > 0)
                ok &= jadd(params, "durationSeconds",
                           json_object_new_int(seam_media_request_seconds(mr)));
            if (modality == SEAM_MODALITY_IMAGE && seam_media_request_mime_type(mr)) {
                json_object *oo = json_object_new_object();
                if (oo)
                    ok &= jadd(oo, "mimeType",
                               json_object_new_string(seam_media_request_mime_type(mr)));
                ok &= jadd(params, "outputOptions", oo);
            }
            ok &= merge_options(params, mr);
        }
        if (body) {
            ok &= jadd(body, "instances", instances);
            ok &= jadd(body, "parameters", params);
        } else {
            json_object_put(instances);
            json_object_put(params);
        }
        method = modality == SEAM_MODALITY_VIDEO ? "predictLongRunning" : "predict";
    } else {
        /* Native image output: generateContent asking for an image. */
        json_object *contents = json_object_new_array();
        json_object *content = json_object_new_object();
        json_object *parts = json_object_new_array();
        json_object *part = json_object_new_object();
        json_object *gen = json_object_new_object();
        json_object *mods = json_object_new_array();
        ok = ok && contents && content && parts && part && gen && mods;
        if (part)
            ok &= jadd(part, "text", json_object_new_string(prompt));
        if (parts)
            ok &= jpush(parts, part);
        else
            json_object_put(part);
        if (content) {
            ok &= jadd(content, "role", json_object_new_string("user"));
            ok &= jadd(content, "parts", parts);
        } else {
            json_object_put(parts);
        }
        if (contents)
            ok &= jpush(contents, content);
        else
            json_object_put(content);
        if (mods)
            ok &= jpush(mods, json_object_new_string(modality == SEAM_MODALITY_AUDIO ? "AUDIO"
                                                                                    : "IMAGE"));
        if (gen) {
            ok &= jadd(gen, "responseModalities", mods);
            if (modality == SEAM_MODALITY_AUDIO) {
                const char *voice = seam_media_request_voice(mr);
                json_object *sc = json_object_new_object(), *vc = json_object_new_object(),
                            *pv = json_object_new_object();
                if (pv)
                    ok &= jadd(pv, "voiceName", json_object_new_string(voice ? voice : "Kore"));
                if (vc)
                    ok &= jadd(vc, "prebuiltVoiceConfig", pv);
                else
                    json_object_put(pv);
                if (sc)
                    ok &= jadd(sc, "voiceConfig", vc);
                else
                    json_object_put(vc);
                ok &= jadd(gen, "speechConfig", sc);
            }
            if (count > 0)
                ok &= jadd(gen, "candidateCount", json_object_new_int(count));
            if (aspect_ratio(mr)) {
                json_object *ic = json_object_new_object();
                if (ic)
                    ok &= jadd(ic, "aspectRatio", json_object_new_string(aspect_ratio(mr)));
                ok &= jadd(gen, "imageConfig", ic);
            }
            ok &= merge_options(gen, mr);
        } else {
            json_object_put(mods);
        }
        if (body) {
            ok &= jadd(body, "contents", contents);
            ok &= jadd(body, "generationConfig", gen);
        } else {
            json_object_put(contents);
            json_object_put(gen);
        }
        method = "generateContent";
    }
    int rc = ok ? send_json(g, model, method, body, out, err) : nomem(err);
    json_object_put(body);
    return rc;
}

static void usage_of(json_object *root, seam_media_sink *out)
{
    json_object *um = jget(root, "usageMetadata");
    if (!um)
        return;
    seam_usage u;
    memset(&u, 0, sizeof u);
    if (jint64(um, "promptTokenCount", &u.input_tokens))
        u.present |= SEAM_USAGE_INPUT;
    if (jint64(um, "candidatesTokenCount", &u.output_tokens))
        u.present |= SEAM_USAGE_OUTPUT;
    (void)seam_media_sink_usage(out, &u);
}

static int decode_predict(json_object *root, seam_media_sink *out, seam_error *err)
{
    json_object *preds = jget(root, "predictions");
    size_t n = jis(preds, json_type_array) ? json_object_array_length(preds) : 0;
    const char *filtered = NULL;
    size_t stored = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *p = json_object_array_get_idx(preds, i);
        json_object *b64 = jget(p, "bytesBase64Encoded");
        if (!jis(b64, json_type_string)) {
            if (jstr(p, "raiFilteredReason"))
                filtered = jstr(p, "raiFilteredReason");
            continue;
        }
        const char *mime = jstr(p, "mimeType");
        int rc = seam_media_sink_base64(out, mime ? mime : "image/png", json_object_get_string(b64),
                                        (size_t)json_object_get_string_len(b64), err);
        if (rc != SEAM_OK)
            return rc;
        stored++;
    }
    if (!stored)
        return filtered || n ? refused(err, filtered) : malformed(err, "no predictions");
    return SEAM_OK;
}

static int b64val(int c)
{
    return c >= 'A' && c <= 'Z'   ? c - 'A'
           : c >= 'a' && c <= 'z' ? c - 'a' + 26
           : c >= '0' && c <= '9' ? c - '0' + 52
           : c == '+'             ? 62
           : c == '/'             ? 63
                                  : -1;
}

/* Raw PCM (audio/L16;...;rate=R, base64) as the bytes of a WAV file, 16-bit
 * mono at R Hz; NULL for invalid base64 or without memory. */
static unsigned char *pcm_to_wav(const char *mime, const char *b64, size_t len, size_t *out_len)
{
    const char *r = strstr(mime, "rate=");
    long rate = r ? strtol(r + 5, NULL, 10) : 24000;
    if (rate < 1000 || rate > 384000)
        rate = 24000;
    unsigned char *w = malloc(44 + len / 4 * 3 + 3);
    if (!w)
        return NULL;
    size_t n = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len && b64[i] != '='; i++) {
        int v = b64val((unsigned char)b64[i]);
        if (v < 0) {
            free(w);
            return NULL;
        }
        acc = (acc << 6 | (unsigned)v) & 0xffffff;
        if ((bits += 6) >= 8) {
            bits -= 8;
            w[44 + n++] = (unsigned char)(acc >> bits);
        }
    }
    n &= ~(size_t)1; /* whole samples */
    uint32_t byte_rate = (uint32_t)rate * 2;
    unsigned char h[44] = {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ',
                           16, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 16, 0,
                           'd', 'a', 't', 'a', 0, 0, 0, 0};
    uint32_t vals[4][2] = {{4, (uint32_t)(36 + n)}, {24, (uint32_t)rate}, {28, byte_rate},
                           {40, (uint32_t)n}};
    for (int k = 0; k < 4; k++)
        for (int b = 0; b < 4; b++)
            h[vals[k][0] + (uint32_t)b] = (unsigned char)(vals[k][1] >> (8 * b));
    memcpy(w, h, 44);
    *out_len = 44 + n;
    return w;
}

static int decode_native(json_object *root, seam_media_sink *out, seam_error *err)
{
    json_object *cands = jget(root, "candidates");
    size_t n = jis(cands, json_type_array) ? json_object_array_length(cands) : 0;
    size_t stored = 0;
    const char *finish = NULL;
    for (size_t i = 0; i < n; i++) {
        json_object *c = json_object_array_get_idx(cands, i);
        if (jstr(c, "finishReason"))
            finish = jstr(c, "finishReason");
        json_object *parts = jget(jget(c, "content"), "parts");
        for (size_t k = 0; jis(parts, json_type_array) && k < json_object_array_length(parts); k++) {
            json_object *d = jget(json_object_array_get_idx(parts, k), "inlineData");
            json_object *data = jget(d, "data");
            if (!jis(data, json_type_string))
                continue;
            const char *mime = jstr(d, "mimeType");
            int rc;
            if (mime && (strncmp(mime, "audio/L16", 9) == 0 || strncmp(mime, "audio/pcm", 9) == 0)) {
                size_t wlen = 0;
                unsigned char *wav = pcm_to_wav(mime, json_object_get_string(data),
                                                (size_t)json_object_get_string_len(data), &wlen);
                rc = wav ? seam_media_sink_bytes(out, "audio/wav", wav, wlen, err)
                         : malformed(err, "speech that is not base64 PCM");
                free(wav);
            } else {
                rc = seam_media_sink_base64(out, mime ? mime : "image/png",
                                            json_object_get_string(data),
                                            (size_t)json_object_get_string_len(data), err);
            }
            if (rc != SEAM_OK)
                return rc;
            stored++;
        }
    }
    usage_of(root, out);
    if (stored)
        return SEAM_OK;
    const char *block = jstr(jget(root, "promptFeedback"), "blockReason");
    if (block)
        return refused(err, block);
    if (finish && strcmp(finish, "STOP") != 0 && strcmp(finish, "MAX_TOKENS") != 0)
        return refused(err, finish);
    return malformed(err, "the answer holds no media");
}

/* scheme://host[:port] of url: its length. */
static size_t origin_len(const char *url)
{
    const char *p = strstr(url, "://");
    if (!p)
        return 0;
    p += 3;
    return (size_t)(p - url) + strcspn(p, "/?#");
}

/* 1 when url is on the API's own origin (the conf's base_url). */
static int same_origin(const gemini_instance *g, const char *url)
{
    size_t o = origin_len(g->base_url);
    return o && origin_len(url) == o && strncmp(url, g->base_url, o) == 0;
}

/* An operation: running, failed, or done with its video. */
static int decode_operation(const gemini_instance *g, json_object *root, seam_media_sink *out,
                            seam_error *err)
{
    const char *name = jstr(root, "name");
    json_object *done = jget(root, "done");
    int is_done = jis(done, json_type_boolean) && json_object_get_boolean(done);
    json_object *e = jget(root, "error");
    if (jis(e, json_type_object)) {
        const char *msg = jstr(e, "message");
        if (msg && (contains_ci(msg, "safety") || contains_ci(msg, "filter") ||
                    contains_ci(msg, "blocked") || contains_ci(msg, "policy")))
            return refused(err, msg);
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "gemini: the video job failed: %s",
                       msg ? msg : "no message");
        return SEAM_ERR_PROVIDER;
    }
    if (!is_done) {
        if (!name || strlen(name) > 1000)
            return malformed(err, "an operation without a name");
        char ref[1100];
        snprintf(ref, sizeof ref, "op:%s", name);
        int64_t pct = -1;
        jint64(jget(root, "metadata"), "progressPercent", &pct);
        int rc = seam_media_sink_pending(out, ref, pct >= 0 && pct <= 100 ? pct / 100.0 : -1, 0);
        return rc == SEAM_OK ? rc : malformed(err, "an operation name seam cannot keep");
    }
    json_object *resp = jget(jget(root, "response"), "generateVideoResponse");
    json_object *samples = jget(resp, "generatedSamples");
    size_t n = jis(samples, json_type_array) ? json_object_array_length(samples) : 0;
    if (!n) {
        json_object *reasons = jget(resp, "raiMediaFilteredReasons");
        const char *why = jis(reasons, json_type_array) && json_object_array_length(reasons)
                              ? json_object_get_string(json_object_array_get_idx(reasons, 0))
                              : NULL;
        int64_t filtered = 0;
        if (why || (jint64(resp, "raiMediaFilteredCount", &filtered) && filtered > 0))
            return refused(err, why);
        return malformed(err, "a finished operation without a video");
    }
    json_object *video = jget(json_object_array_get_idx(samples, 0), "video");
    json_object *bytes = jget(video, "encodedVideo");
    if (jis(bytes, json_type_string)) {
        const char *mime = jstr(video, "encoding");
        return seam_media_sink_base64(out, mime ? mime : "video/mp4", json_object_get_string(bytes),
                                      (size_t)json_object_get_string_len(bytes), err);
    }
    const char *uri = jstr(video, "uri");
    if (!uri || strlen(uri) > 2000 || (strncmp(uri, "https://", 8) != 0 && !same_origin(g, uri)))
        return malformed(err, "a video without bytes, or its uri neither https nor the API's own");
    char ref[2100];
    snprintf(ref, sizeof ref, "dl:%s", uri);
    return seam_media_sink_pending(out, ref, 1, 1) == SEAM_OK
               ? SEAM_OK
               : malformed(err, "a video uri seam cannot keep");
}

int gemini_media_decode(void *instance, const seam_media_request *mr, const char *body,
                        size_t len, seam_media_sink *out, seam_error *err)
{
    json_object *root = parse_json_len(body, len);
    if (!jis(root, json_type_object)) {
        json_object_put(root);
        return malformed(err, "not a JSON object");
    }
    const char *model = seam_media_request_model(mr);
    int rc = seam_media_request_modality(mr) == SEAM_MODALITY_VIDEO
                 ? decode_operation(instance, root, out, err)
             : is_model(model, "imagen") ? decode_predict(root, out, err)
                                         : decode_native(root, out, err);
    json_object_put(root);
    return rc;
}

int gemini_media_poll_encode(void *instance, const char *ref, seam_http_request *out,
                             seam_error *err)
{
    const gemini_instance *g = instance;
    int rc;
    if (strncmp(ref, "op:", 3) == 0) {
        const char *name = ref + 3;
        if (!*name || strstr(name, "..") || strpbrk(name, "?# \\") || name[0] == '/')
            return bad(err, "not an operation name");
        size_t n = strlen(g->base_url) + strlen(name) + 2;
        char *url = malloc(n);
        if (!url)
            return nomem(err);
        snprintf(url, n, "%s/%s", g->base_url, name);
        rc = seam_http_request_set_url(out, url);
        free(url);
        if (rc == SEAM_OK)
            rc = seam_http_request_add_secret_header(out, "x-goog-api-key", NULL);
    } else if (strncmp(ref, "dl:", 3) == 0) {
        const char *uri = ref + 3;
        rc = seam_http_request_set_url(out, uri);
        /* The key goes only where the API lives: a uri elsewhere gets none. */
        if (rc == SEAM_OK && same_origin(g, uri))
            rc = seam_http_request_add_secret_header(out, "x-goog-api-key", NULL);
    } else {
        return bad(err, "not a job of the gemini plugin");
    }
    if (rc == SEAM_OK)
        rc = seam_http_request_set_method(out, SEAM_HTTP_GET);
    return rc == SEAM_OK ? SEAM_OK : nomem(err);
}

int gemini_media_poll_decode(void *instance, const char *ref, const char *body, size_t len,
                             seam_media_sink *out, seam_error *err)
{
    if (strncmp(ref, "dl:", 3) == 0)
        return seam_media_sink_bytes(out, "video/mp4", body, len, err);
    json_object *root = parse_json_len(body, len);
    int rc = jis(root, json_type_object) ? decode_operation(instance, root, out, err)
                                         : malformed(err, "not a JSON object");
    json_object_put(root);
    return rc;
}
