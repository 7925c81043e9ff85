/* transcribe.c — speech to text on the Gemini API (seam_transcribe): Gemini
 * has no transcription endpoint; it transcribes audio given to
 * generateContent with a prompt that asks for it (ai.google.dev
 * gemini-api/docs/audio, "Generate a transcript": an inlineData part
 * {mimeType, data} and the text "Generate a transcript of the speech.").
 * The request is encode.c's for a user turn of that text and the audio, so
 * the conf's options and the model's rules apply as to a chat turn; the
 * answer's text parts (thoughts left out) are the transcript, its
 * usageMetadata the usage. A model the plugin knows to take no audio is
 * refused, and the chain skips the entry. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int no_audio(seam_error *err, const char *model)
{
    if (model)
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "gemini: model \"%s\" takes no audio", model);
    else
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "gemini: no model for the transcription");
    return SEAM_ERR_PROVIDER;
}

int gemini_transcribe_encode(void *instance, const seam_transcribe_request *tr,
                             seam_http_request *out, seam_error *err)
{
    const char *model = tr->model;
    if (!model || !*model)
        return no_audio(err, NULL);
    const model_family *f = gemini_find_family(model);
    if ((f && !f->audio) || strstr(model, "embedding") || strstr(model, "imagen"))
        return no_audio(err, model);
    strbuf prompt = {0};
    sb_puts(&prompt, "Generate a transcript of the speech in this audio: the words as they are "
                     "said, nothing else (no title, no timestamps, no comment).");
    if (tr->language && *tr->language) {
        sb_puts(&prompt, " The speech is in the language ");
        sb_puts(&prompt, tr->language);
        sb_puts(&prompt, " (ISO-639-1).");
    }
    if (tr->prompt && *tr->prompt) {
        sb_puts(&prompt, "\nContext that may help with names and spelling: ");
        sb_puts(&prompt, tr->prompt);
    }
    char *b64 = seam_base64_encode(tr->audio, tr->audio_len);
    seam_request *req = seam_request_new();
    seam_message *msg = seam_message_new(SEAM_ROLE_USER);
    int rc = prompt.failed || !b64 || !req || !msg ? SEAM_ERR_NOMEM : SEAM_OK;
    if (rc == SEAM_OK)
        rc = seam_message_add_media(msg, tr->mime_type, SEAM_MEDIA_BASE64, b64);
    if (rc == SEAM_OK)
        rc = seam_message_add_text(msg, prompt.data);
    if (rc == SEAM_OK && (rc = seam_request_add_message(req, msg)) == SEAM_OK)
        msg = NULL;
    if (rc == SEAM_OK)
        rc = seam_request_set_model(req, model);
    free(b64);
    sb_free(&prompt);
    seam_message_free(msg);
    if (rc != SEAM_OK) {
        seam_request_free(req);
        return nomem(err);
    }
    rc = gemini_encode(instance, req, 0, out, err);
    seam_request_free(req);
    return rc;
}

int gemini_transcribe_decode(void *instance, const seam_transcribe_request *tr, const char *body,
                             size_t len, seam_transcription *out, seam_error *err)
{
    (void)instance;
    (void)tr;
    json_object *root = parse_json_len(body, len);
    json_object *cands = jget(root, "candidates");
    json_object *parts = jis(cands, json_type_array) && json_object_array_length(cands) > 0
                             ? jget(jget(json_object_array_get_idx(cands, 0), "content"), "parts")
                             : NULL;
    if (!jis(parts, json_type_array)) {
        json_object_put(root);
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "gemini: the transcription answer has no text");
        seam_strlcpy(err->code, "bad_response", sizeof err->code);
        return SEAM_ERR_PROVIDER;
    }
    strbuf text = {0};
    for (size_t i = 0; i < json_object_array_length(parts); i++) {
        json_object *p = json_object_array_get_idx(parts, i);
        json_object *thought = jget(p, "thought");
        if (jis(thought, json_type_boolean) && json_object_get_boolean(thought))
            continue;
        const char *t = jstr(p, "text");
        if (t)
            sb_puts(&text, t);
    }
    /* The model ends its answer with a newline or two: not part of the speech. */
    while (text.len && (text.data[text.len - 1] == '\n' || text.data[text.len - 1] == ' '))
        text.data[--text.len] = '\0';
    int rc = text.failed ? SEAM_ERR_NOMEM : seam_transcription_set_text(out, text.data ? text.data : "");
    json_object *um = jget(root, "usageMetadata");
    if (rc == SEAM_OK && jis(um, json_type_object)) {
        seam_usage u;
        gemini_parse_usage(um, &u);
        rc = seam_transcription_set_usage(out, &u);
    }
    sb_free(&text);
    json_object_put(root);
    return rc == SEAM_OK ? SEAM_OK : nomem(err);
}
