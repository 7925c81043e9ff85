/* transcribe.c — OpenAI-compatible speech to text (seam_transcribe): POST
 * {base}/audio/transcriptions as multipart/form-data with the fields file
 * (the audio, a file name whose extension names its format), model,
 * response_format "json", and language and prompt when given; answered
 * {"text": ..., "usage": ...}, the usage either {"type":"tokens",
 * "input_tokens","output_tokens","total_tokens","input_token_details":
 * {"audio_tokens","text_tokens"}} (gpt-4o-transcribe, gpt-4o-mini-transcribe)
 * or {"type":"duration","seconds"} (whisper-1). Reference: OpenAI's API
 * reference, "Create transcription", as openai-node types it
 * (src/resources/audio/transcriptions.ts: TranscriptionCreateParamsBase,
 * Transcription.Tokens, Transcription.Duration). Groq, Mistral and vLLM serve
 * the same endpoint; DeepSeek has none, and the entry is skipped. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* The extension OpenAI reads the upload's format from. */
static const char *extension_of(const char *mime)
{
    static const struct {
        const char *mime, *ext;
    } table[] = {
        {"audio/wav", "wav"},   {"audio/x-wav", "wav"}, {"audio/wave", "wav"},
        {"audio/mpeg", "mp3"},  {"audio/mp3", "mp3"},   {"audio/mpga", "mpga"},
        {"audio/flac", "flac"}, {"audio/x-flac", "flac"}, {"audio/ogg", "ogg"},
        {"audio/webm", "webm"}, {"audio/mp4", "m4a"},   {"audio/m4a", "m4a"},
        {"audio/x-m4a", "m4a"}, {"video/mp4", "mp4"},   {"video/webm", "webm"},
        {"video/mpeg", "mpeg"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcasecmp(mime, table[i].mime) == 0)
            return table[i].ext;
    return NULL;
}

int oa_transcribe_encode(void *instance, const seam_transcribe_request *tr,
                         seam_http_request *out, seam_error *err)
{
    const oa_instance *in = instance;
    if (in->profile && strcmp(in->profile->id, "deepseek") == 0)
        return oa_bad_request(err, "the deepseek profile's server has no transcription endpoint");
    if (!tr->model || !*tr->model)
        return oa_bad_request(err, "no model for the transcription");
    const char *ext = extension_of(tr->mime_type);
    if (!ext && !tr->name)
        return oa_bad_request(err, "audio of type %s cannot be uploaded for transcription "
                                   "(flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav or webm)",
                              tr->mime_type);
    char name[300];
    if (tr->name)
        snprintf(name, sizeof name, "%s", tr->name);
    else
        snprintf(name, sizeof name, "audio.%s", ext);
    strbuf url = {0};
    sb_puts(&url, in->base_url);
    sb_puts(&url, "/audio/transcriptions");
    int rc = url.failed ? SEAM_ERR_NOMEM : seam_http_request_set_url(out, url.data);
    sb_free(&url);
    if (rc == SEAM_OK)
        rc = seam_http_request_add_form_file(out, "file", name, tr->mime_type, tr->audio,
                                             tr->audio_len);
    if (rc == SEAM_ERR_INVALID)
        return oa_bad_request(err, "the upload's file name or type cannot go in a form header");
    if (rc == SEAM_OK)
        rc = seam_http_request_add_form_field(out, "model", tr->model);
    if (rc == SEAM_OK && tr->language && *tr->language)
        rc = seam_http_request_add_form_field(out, "language", tr->language);
    if (rc == SEAM_OK && tr->prompt && *tr->prompt)
        rc = seam_http_request_add_form_field(out, "prompt", tr->prompt);
    /* json: the one format every transcription model answers (gpt-4o-transcribe
     * takes no other), and the one that carries usage. */
    if (rc == SEAM_OK)
        rc = seam_http_request_add_form_field(out, "response_format", "json");
    if (rc == SEAM_OK)
        rc = seam_http_request_add_header(out, "Accept", "application/json");
    if (rc == SEAM_OK)
        rc = seam_http_request_add_secret_header(out, "Authorization", "Bearer ");
    if (rc == SEAM_OK && in->headers_json) {
        json_object *h = json_parse_strict(in->headers_json, strlen(in->headers_json));
        json_object_object_foreach(h, hk, hv)
        {
            if (rc == SEAM_OK)
                rc = seam_http_request_add_header(out, hk, json_object_get_string(hv));
        }
        json_object_put(h);
    }
    if (rc != SEAM_OK)
        return oa_nomem(err);
    return SEAM_OK;
}

/* Not retried: the same upload would get the same answer. */
static int malformed(seam_error *err, const char *what)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: malformed transcription: %s", what);
    seam_strlcpy(err->code, "bad_response", sizeof err->code);
    return SEAM_ERR_PROVIDER;
}

int oa_transcribe_decode(void *instance, const seam_transcribe_request *tr, const char *body,
                         size_t len, seam_transcription *out, seam_error *err)
{
    (void)instance;
    (void)tr;
    json_object *root = json_parse_strict(body, len);
    const char *text = jstr(root, "text");
    if (!text) {
        json_object_put(root);
        return malformed(err, "no text");
    }
    int rc = seam_transcription_set_text(out, text);
    json_object *u = jget(root, "usage");
    const char *type = jstr(u, "type");
    json_object *secs = jget(u, "seconds");
    if (rc == SEAM_OK && type && strcmp(type, "duration") == 0 &&
        (json_object_is_type(secs, json_type_int) || json_object_is_type(secs, json_type_double)))
        seam_transcription_set_seconds(out, json_object_get_double(secs));
    if (rc == SEAM_OK && type && strcmp(type, "tokens") == 0) {
        seam_usage us = {0};
        if (oa_jcount(u, "input_tokens", &us.input_tokens))
            us.present |= SEAM_USAGE_INPUT;
        if (oa_jcount(u, "output_tokens", &us.output_tokens))
            us.present |= SEAM_USAGE_OUTPUT;
        rc = seam_transcription_set_usage(out, &us);
    }
    /* verbose_json (asked for in the options of a compatible server) says the duration. */
    json_object *d = jget(root, "duration");
    if (rc == SEAM_OK && seam_transcription_seconds(out) < 0 &&
        (json_object_is_type(d, json_type_int) || json_object_is_type(d, json_type_double)))
        seam_transcription_set_seconds(out, json_object_get_double(d));
    json_object_put(root);
    return rc == SEAM_OK ? SEAM_OK : oa_nomem(err);
}
