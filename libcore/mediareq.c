/* mediareq.c — the two ends of a media generation's codec: the request an
 * application fills and a plugin's media_encode reads (seam_media_request),
 * and the sink a plugin's media_decode / media_poll_decode writes to
 * (seam_media_sink), which puts every byte into the media store at once so
 * that what leaves it — chunks, results, checkpoints — holds handles only. */
#include "config.h"
#include "mediagen_int.h"
#include "transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the request ------------------------------------------------------------------- */

seam_media_request *seam_media_request_new(uint32_t modality, const char *prompt)
{
    if ((modality != SEAM_MODALITY_IMAGE && modality != SEAM_MODALITY_AUDIO &&
         modality != SEAM_MODALITY_VIDEO) ||
        !prompt || !*prompt)
        return NULL;
    seam_media_request *mr = calloc(1, sizeof *mr);
    if (!mr)
        return NULL;
    mr->modality = modality;
    if (!(mr->prompt = strdup(prompt))) {
        free(mr);
        return NULL;
    }
    return mr;
}

void seam_media_request_free(seam_media_request *mr)
{
    if (!mr)
        return;
    free(mr->prompt);
    free(mr->model);
    free(mr->mime_type);
    free(mr->voice);
    free(mr->size);
    free(mr->options);
    free(mr);
}

static int set_string(char **field, const char *value)
{
    char *copy = NULL;
    if (value && !(copy = strdup(value)))
        return SEAM_ERR_NOMEM;
    free(*field);
    *field = copy;
    return SEAM_OK;
}

int seam_media_request_set_model(seam_media_request *mr, const char *model)
{
    if (!mr || (model && !*model))
        return SEAM_ERR_INVALID;
    return set_string(&mr->model, model);
}

int seam_media_request_set_mime_type(seam_media_request *mr, const char *mime_type)
{
    if (!mr)
        return SEAM_ERR_INVALID;
    if (mime_type) {
        /* An image request asking for audio would reach the provider as nonsense. */
        seam_error e;
        seam_error_clear(&e);
        if (seam_media_mime_check(mime_type, "the output format", &e) != mr->modality)
            return SEAM_ERR_INVALID;
    }
    return set_string(&mr->mime_type, mime_type);
}

int seam_media_request_set_count(seam_media_request *mr, int count)
{
    if (!mr || count < 0 || count > SEAM_MEDIA_SINK_MAX)
        return SEAM_ERR_INVALID;
    mr->count = count;
    return SEAM_OK;
}

int seam_media_request_set_seconds(seam_media_request *mr, int seconds)
{
    if (!mr || seconds < 0 || seconds > 3600)
        return SEAM_ERR_INVALID;
    mr->seconds = seconds;
    return SEAM_OK;
}

int seam_media_request_set_voice(seam_media_request *mr, const char *voice)
{
    if (!mr || (voice && (!*voice || strlen(voice) > 255)))
        return SEAM_ERR_INVALID;
    return set_string(&mr->voice, voice);
}

int seam_media_request_set_size(seam_media_request *mr, const char *size)
{
    if (!mr || (size && (!*size || strlen(size) > 64)))
        return SEAM_ERR_INVALID;
    return set_string(&mr->size, size);
}

int seam_media_request_set_provider_options(seam_media_request *mr, const char *options_json)
{
    if (!mr)
        return SEAM_ERR_INVALID;
    if (options_json) {
        int rc = seam_json_check(options_json, 1);
        if (rc != SEAM_OK)
            return rc;
    }
    return set_string(&mr->options, options_json);
}

int seam_media_request_set_deadline_ms(seam_media_request *mr, int64_t deadline_ms)
{
    if (!mr || deadline_ms < 0)
        return SEAM_ERR_INVALID;
    mr->deadline_ms = deadline_ms;
    return SEAM_OK;
}

uint32_t seam_media_request_modality(const seam_media_request *mr)
{
    return mr ? mr->modality : 0;
}

const char *seam_media_request_prompt(const seam_media_request *mr)
{
    return mr ? mr->prompt : NULL;
}

const char *seam_media_request_model(const seam_media_request *mr)
{
    return mr ? mr->model : NULL;
}

const char *seam_media_request_mime_type(const seam_media_request *mr)
{
    return mr ? mr->mime_type : NULL;
}

int seam_media_request_count(const seam_media_request *mr)
{
    return mr ? mr->count : 0;
}

int seam_media_request_seconds(const seam_media_request *mr)
{
    return mr ? mr->seconds : 0;
}

const char *seam_media_request_voice(const seam_media_request *mr)
{
    return mr ? mr->voice : NULL;
}

const char *seam_media_request_size(const seam_media_request *mr)
{
    return mr ? mr->size : NULL;
}

const char *seam_media_request_provider_options(const seam_media_request *mr)
{
    return mr ? mr->options : NULL;
}

/* ---- the sink ------------------------------------------------------------------------ */

void seam_media_sink_init(seam_media_sink *s, seam_client *client)
{
    memset(s, 0, sizeof *s);
    s->client = client;
    s->progress = -1;
}

void seam_media_sink_clear(seam_media_sink *s)
{
    free(s->ref);
    seam_media_sink_init(s, s->client);
}

static int sink_malformed(seam_error *err, const char *what, const char *arg)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "the provider's answer %s (%s)", what, arg);
    seam_strlcpy(err->code, "bad_response", sizeof err->code);
    return SEAM_ERR_PROVIDER;
}

/* The length of a PCM WAV file from its header: the data chunk's bytes over
 * the byte rate. 0 when the bytes are not such a file. */
static double wav_seconds(const unsigned char *b, size_t n)
{
    if (n < 12 || memcmp(b, "RIFF", 4) != 0 || memcmp(b + 8, "WAVE", 4) != 0)
        return 0;
    uint32_t byte_rate = 0;
    for (size_t at = 12; at + 8 <= n;) {
        uint32_t size = (uint32_t)b[at + 4] | (uint32_t)b[at + 5] << 8 |
                        (uint32_t)b[at + 6] << 16 | (uint32_t)b[at + 7] << 24;
        if (memcmp(b + at, "fmt ", 4) == 0 && at + 20 <= n)
            byte_rate = (uint32_t)b[at + 16] | (uint32_t)b[at + 17] << 8 |
                        (uint32_t)b[at + 18] << 16 | (uint32_t)b[at + 19] << 24;
        if (memcmp(b + at, "data", 4) == 0) {
            /* A streamed WAV says 0xffffffff: take what is there. */
            size_t data = size > n - at - 8 ? n - at - 8 : size;
            return byte_rate ? (double)data / byte_rate : 0;
        }
        if (size > n - at - 8)
            break;
        at += 8 + (size_t)size + (size & 1);
    }
    return 0;
}

int seam_media_sink_bytes(seam_media_sink *s, const char *mime_type, const void *bytes,
                          size_t len, seam_error *err)
{
    seam_error_clear(err);
    if (!s || (!bytes && len))
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "seam_media_sink_bytes: invalid argument"),
               SEAM_ERR_PROVIDER;
    if (!seam_media_mime_check(mime_type, "generated media", err)) {
        err->kind = SEAM_ERROR_UNKNOWN; /* the provider's answer is malformed */
        return SEAM_ERR_PROVIDER;
    }
    if (len == 0)
        return sink_malformed(err, "holds empty media", mime_type);
    if (s->n == SEAM_MEDIA_SINK_MAX)
        return sink_malformed(err, "holds more media than seam takes at once", mime_type);
    seam_media_item *it = &s->items[s->n];
    if (s->client) {
        if (seam_media_put(s->client, bytes, len, it->handle, err) != SEAM_OK)
            return SEAM_ERR_PROVIDER;
    } else {
        unsigned char sum[32];
        seam_sha256(bytes, len, sum);
        int o = snprintf(it->handle, sizeof it->handle, "media://sha256-");
        for (int i = 0; i < 32; i++)
            o += snprintf(it->handle + o, sizeof it->handle - (size_t)o, "%02x", sum[i]);
    }
    seam_strlcpy(it->mime_type, mime_type, sizeof it->mime_type);
    it->bytes = (int64_t)len;
    s->n++;
    if (s->seconds <= 0 && strcmp(mime_type, "audio/wav") == 0)
        s->seconds = wav_seconds(bytes, len);
    return SEAM_OK;
}

int seam_media_sink_base64(seam_media_sink *s, const char *mime_type, const char *base64,
                           size_t len, seam_error *err)
{
    seam_error_clear(err);
    if (!s || !base64)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "seam_media_sink_base64: invalid argument"),
               SEAM_ERR_PROVIDER;
    size_t n = 0;
    unsigned char *bytes = seam_base64_decode(base64, len, &n);
    if (!bytes) {
        if (seam_base64_decoded_len(base64, len) < 0) {
            char what[32];
            snprintf(what, sizeof what, "%zu characters", len);
            return sink_malformed(err, "holds media that is not valid base64", what);
        }
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory decoding media"),
               SEAM_ERR_PROVIDER;
    }
    int rc = seam_media_sink_bytes(s, mime_type, bytes, n, err);
    free(bytes);
    return rc;
}

int seam_media_sink_pending(seam_media_sink *s, const char *ref, double progress, int fetch_now)
{
    if (!s || !ref || !*ref || strlen(ref) > SEAM_MEDIA_REF_MAX)
        return SEAM_ERR_INVALID;
    for (const char *p = ref; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return SEAM_ERR_INVALID;
    char *copy = strdup(ref);
    if (!copy)
        return SEAM_ERR_NOMEM;
    free(s->ref);
    s->ref = copy;
    s->pending = 1;
    s->progress = progress >= 0 && progress <= 1 ? progress : -1;
    s->fetch_now = fetch_now != 0;
    return SEAM_OK;
}

int seam_media_sink_seconds(seam_media_sink *s, double seconds)
{
    if (!s || !(seconds > 0) || seconds > 86400)
        return SEAM_ERR_INVALID;
    s->seconds = seconds;
    return SEAM_OK;
}

int seam_media_sink_usage(seam_media_sink *s, const seam_usage *usage)
{
    if (!s || !usage)
        return SEAM_ERR_INVALID;
    s->usage = *usage;
    s->has_usage = 1;
    return SEAM_OK;
}

int seam_media_sink_emit(const seam_media_sink *s, seam_emitter *em)
{
    for (size_t i = 0; i < s->n; i++) {
        char id[32];
        snprintf(id, sizeof id, "media-%zu", i + 1);
        seam_chunk c = {.type = SEAM_CHUNK_MEDIA_START, .id = id,
                        .mime_type = s->items[i].mime_type};
        int rc = seam_emit(em, &c);
        if (rc != SEAM_OK)
            return rc;
        c = (seam_chunk){.type = SEAM_CHUNK_MEDIA_END, .id = id,
                         .mime_type = s->items[i].mime_type, .text = s->items[i].handle};
        if ((rc = seam_emit(em, &c)) != SEAM_OK)
            return rc;
    }
    seam_chunk stop = {.type = SEAM_CHUNK_STOP, .stop_reason = SEAM_STOP_STOP};
    if (s->has_usage)
        stop.usage = s->usage;
    return seam_emit(em, &stop);
}

void seam_media_add_seconds(seam_result *res, uint32_t modality, double said, int asked)
{
    if (modality != SEAM_MODALITY_AUDIO && modality != SEAM_MODALITY_VIDEO)
        return;
    double seconds = said > 0 ? said : (modality == SEAM_MODALITY_VIDEO ? asked : 0);
    if (seconds > 0)
        (void)seam_result_add_media_seconds(res, modality, seconds);
}
