/* plugin.c — the scripted mock provider (id "mock"): what the tests and the
 * offline default use. It goes through the same codec path as a real provider
 * and does no I/O:
 *
 *   encode          seam request -> an HTTP request to mock://local/v1/generate
 *                   whose JSON body describes the request and carries the merged
 *                   script (encode.c; the script's keys: script.c);
 *   serve           reads that body back and produces the bytes a server would
 *                   send: SSE events of the mock's own small wire when streaming,
 *                   a JSON body otherwise, or a scripted HTTP error / cut stream
 *                   (serve.c, which describes the wire);
 *   decode_*        turn those bytes into seam chunks, as a real codec would
 *                   (decode.c; an error answer: errors.c).
 *
 * Embeddings (embed.c), the token count endpoint (count_tokens.c), media
 * generation (media.c) and transcription (transcribe.c) are served from the
 * same `serve` hook, told apart by the request's URL. This file holds the
 * instance, the capabilities and the vtable. */
#include "config.h"

#include <seam/plugin.h>

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "../common/codec_util.h"
#include "mock_internal.h"

/* ---- create / destroy ----------------------------------------------------------- */

static void *mock_create(const seam_provider_config *cfg, seam_error *err)
{
    const char *opts = cfg && cfg->options_json ? cfg->options_json : "{}";
    json_object *o = json_parse_strict(opts, strlen(opts));
    int ok = o && json_object_is_type(o, json_type_object);
    json_object_put(o);
    if (!ok) {
        seam_error_set(err, SEAM_ERROR_CONF, "mock: the provider's options are not a JSON object");
        return NULL;
    }
    mock_instance *m = calloc(1, sizeof *m);
    if (!m || !(m->options_json = strdup(opts))) {
        free(m);
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory");
        return NULL;
    }
    return m;
}

static void mock_destroy(void *instance)
{
    mock_instance *m = instance;
    if (!m)
        return;
    free(m->options_json);
    free(m);
}

static int mock_capabilities(void *instance, const char *model, seam_capabilities *caps)
{
    (void)instance;
    if (!caps)
        return SEAM_ERR_INVALID;
    caps->size = sizeof *caps;
    if (model && strstr(model, "embed")) {
        /* "mock-embed": an embedding model, which does not chat. */
        memset(caps, 0, sizeof *caps);
        caps->size = sizeof *caps;
        caps->embed = 1;
        caps->context_window = 8192;
        return SEAM_OK;
    }
    caps->embed = 0;
    caps->tools = 1;
    caps->streaming = 1;
    caps->parallel_tool_calls = 1;
    caps->vision = 1;
    caps->audio_input = 1;
    caps->pdf_input = 1;
    caps->prompt_cache = 1;
    caps->reasoning = 1;
    caps->structured_output = 1;
    caps->context_window = 1000000;
    caps->video_input = 1;
    /* It answers an image and/or audio when asked (a PNG, a WAV). */
    const uint32_t T = SEAM_MODALITY_TEXT, I = SEAM_MODALITY_IMAGE, A = SEAM_MODALITY_AUDIO;
    const uint32_t combos[] = {T, T | I, T | A, T | I | A, I, A};
    for (size_t i = 0; i < sizeof combos / sizeof combos[0]; i++)
        caps->output_combinations[i] = combos[i];
    caps->n_output_combinations = sizeof combos / sizeof combos[0];
    return SEAM_OK;
}

static const seam_provider_vtable mock_vtable = {
    .abi_version = SEAM_PLUGIN_ABI_VERSION,
    .size = sizeof(seam_provider_vtable),
    .id = "mock",
    .description = "scripted offline provider for tests and the default chain",
    .framing = SEAM_FRAMING_SSE,
    .create = mock_create,
    .destroy = mock_destroy,
    .encode = mock_encode,
    .decoder_new = mock_decoder_new,
    .decoder_free = mock_decoder_free,
    .decode_event = mock_decode_event,
    .decode_finish = NULL, /* the mock's wire ends with an explicit stop event */
    .decode_response = mock_decode_response,
    .classify_error = mock_classify_error,
    .capabilities = mock_capabilities,
    .serve = mock_serve,
    .embed_encode = mock_embed_encode,
    .embed_decode = mock_embed_decode,
    .count_tokens_encode = mock_count_encode,
    .count_tokens_decode = mock_count_decode,
    .media_encode = mock_media_encode,
    .media_decode = mock_media_decode,
    .media_poll_encode = mock_media_poll_encode,
    .media_poll_decode = mock_media_poll_decode,
    .transcribe_encode = mock_transcribe_encode,
    .transcribe_decode = mock_transcribe_decode,
};

static int mock_init(seam_registrar *r)
{
    return seam_registrar_add(r, &mock_vtable);
}

SEAM_PLUGIN_DEFINE(mock_init)
