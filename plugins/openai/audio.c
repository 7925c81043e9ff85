/* audio.c — audio output on Chat Completions: the lowering of the request's
 * output modalities, and the answer's audio as seam media.
 *
 * The wire (OpenAI API reference, Chat Completions; openai-node
 * src/resources/chat/completions/completions.ts):
 *   request   "modalities": ["text", "audio"] and "audio": {voice, format}
 *             (ChatCompletionAudioParam: format one of wav, aac, mp3, flac,
 *             opus, pcm16; voice e.g. alloy, ash, ballad, coral, echo, sage,
 *             shimmer, verse, marin, cedar). Both are required for audio.
 *   answer    message.audio = ChatCompletionAudio {id, data (base64 in the
 *             requested format), expires_at, transcript}; message.content is
 *             null.
 *   stream    choices[0].delta.audio carries the same fields in pieces: the
 *             first with id and a piece of the transcript, then data pieces
 *             (base64) and transcript pieces, the last with expires_at. A
 *             stream takes pcm16 only.
 * seam sends voice "alloy" and format "wav" (a whole answer) or "pcm16" (a
 * stream) unless the conf's or the request's options give an "audio" object
 * (flat, in the "openai" or conf-name namespace, or an extra_body), which
 * replaces seam's: options are merged over the body, and the decoder reads
 * the format the same way. The format
 * decides the part's MIME type: wav audio/wav, mp3 audio/mpeg, flac
 * audio/flac, opus audio/ogg (Ogg Opus), aac audio/aac, and pcm16 audio/pcm:
 * raw 16-bit little-endian mono samples at 24 kHz, which no registered type
 * names without parameters (audio/L16 is big-endian and needs its rate as a
 * parameter, which seam's MIME check refuses), so seam names it audio/pcm and
 * gives its duration from the 48000 bytes a second.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "../common/provider_options.h"

#define DEFAULT_VOICE "alloy"

int oa_chat_encode_audio(const oa_instance *in, const seam_request *req, int stream,
                         oa_body *body, seam_error *err)
{
    (void)in;
    uint32_t outputs = seam_request_output_modalities(req);
    if (!(outputs & ~(uint32_t)SEAM_MODALITY_TEXT))
        return SEAM_OK;
    if (outputs & ~(uint32_t)(SEAM_MODALITY_TEXT | SEAM_MODALITY_AUDIO))
        return oa_bad_request(err, "Chat Completions can answer with text and audio only");
    /* OpenAI documents ["text","audio"] for audio output; text comes too. */
    if (oa_body_add(body, "modalities", "[\"text\",\"audio\"]") != SEAM_OK)
        return oa_nomem(err);
    strbuf *a = oa_body_begin(body, "audio");
    sb_puts(a, "{");
    oa_json_member(a, 1, "voice", DEFAULT_VOICE);
    oa_json_member(a, 0, "format", stream ? "pcm16" : "wav");
    sb_puts(a, "}");
    oa_body_end(body);
    return body->text.failed ? oa_nomem(err) : SEAM_OK;
}

/* audio.format of an options object into buf; 0 when it gives none. */
static int format_of(json_object *opts, char *buf, size_t size)
{
    const char *f = jstr(jget(opts, "audio"), "format");
    if (!f || strlen(f) >= size)
        return 0;
    memcpy(buf, f, strlen(f) + 1);
    return 1;
}

static int format_in_text(const char *text, char *buf, size_t size)
{
    if (!text || !*text)
        return 0;
    json_object *o = json_parse_strict(text, strlen(text));
    int found = format_of(o, buf, size);
    json_object_put(o);
    return found;
}

/* The format the body will ask for: the last of what oa_finish_request
 * merges, in its order (the conf's options, the request's own and namespaced
 * options, the conf's extra_body, the request's extra_body), else seam's. */
void oa_chat_audio_setup(oa_decoder *d, const oa_instance *in, const seam_request *req, int stream)
{
    char buf[32];
    const char *f = NULL;
    const char *ropts = seam_request_provider_options(req);
    json_object *parsed = ropts && *ropts ? json_parse_strict(ropts, strlen(ropts)) : NULL;
    popt_view view = {0};
    if (in && json_object_is_type(parsed, json_type_object)) {
        const char *id = in->profile_copy ? in->profile_copy->id : "openai";
        const char *const ns[] = {id, in->name};
        if (popt_select(parsed, 0, ns, 2, oa_option_known, (void *)in, "openai plugin", &view) !=
            SEAM_OK)
            memset(&view, 0, sizeof view);
    }
    if (format_of(view.extra, buf, sizeof buf) ||
        (in && format_in_text(in->conf_extra, buf, sizeof buf)) ||
        format_of(view.own, buf, sizeof buf) ||
        (in && format_in_text(in->body_options, buf, sizeof buf)))
        f = buf;
    popt_view_free(&view);
    json_object_put(parsed);
    if (!f)
        f = stream ? "pcm16" : "wav";
    static const struct {
        const char *format, *mime;
    } table[] = {{"wav", "audio/wav"},   {"mp3", "audio/mpeg"}, {"flac", "audio/flac"},
                 {"opus", "audio/ogg"},  {"aac", "audio/aac"},  {"pcm16", "audio/pcm"}};
    const char *mime = "audio/wav";
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcasecmp(f, table[i].format) == 0)
            mime = table[i].mime;
    snprintf(d->audio_mime, sizeof d->audio_mime, "%s", mime);
    d->audio_bps = strcmp(mime, "audio/pcm") == 0 ? 48000 : 0;
}

/* A string field of the audio object; NULL when absent or null. */
static const char *field(json_object *audio, const char *key, size_t *len)
{
    json_object *v = jget(audio, key);
    if (!json_object_is_type(v, json_type_string))
        return NULL;
    if (len)
        *len = (size_t)json_object_get_string_len(v);
    return json_object_get_string(v);
}

int oa_chat_on_audio(oa_decoder *d, seam_emitter *em, json_object *audio, seam_error *err)
{
    if (!json_object_is_type(audio, json_type_object))
        return SEAM_OK;
    size_t n = 0;
    const char *data = field(audio, "data", &n);
    const char *transcript = field(audio, "transcript", NULL);
    int rc;
    if (!d->audio_open) {
        const char *id = field(audio, "id", NULL);
        /* An audio object with nothing in it (expires_at alone) opens nothing. */
        if (!data && !(transcript && *transcript) && !id)
            return SEAM_OK;
        if (id && *id && strlen(id) < sizeof d->audio_id)
            snprintf(d->audio_id, sizeof d->audio_id, "%s", id);
        else
            snprintf(d->audio_id, sizeof d->audio_id, "audio-%u", d->audio_seq + 1);
        d->audio_seq++;
        if (!d->audio_mime[0])
            snprintf(d->audio_mime, sizeof d->audio_mime, "audio/wav");
        rc = seam_emit_media_begin(em, d->audio_id, d->audio_mime, d->audio_bps, err);
        if (rc != SEAM_OK)
            return rc;
        d->audio_open = 1;
    }
    if (transcript && *transcript &&
        (rc = seam_emit_media_transcript(em, d->audio_id, transcript, err)) != SEAM_OK)
        return rc;
    if (data && n && (rc = seam_emit_media_append(em, d->audio_id, data, n, err)) != SEAM_OK)
        return rc;
    return SEAM_OK;
}

int oa_chat_end_audio(oa_decoder *d, seam_emitter *em, seam_error *err)
{
    if (!d->audio_open)
        return SEAM_OK;
    d->audio_open = 0;
    return seam_emit_media_end(em, d->audio_id, err);
}
