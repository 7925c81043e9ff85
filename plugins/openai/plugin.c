/* plugin.c — the openai plugin's registration (provider id "openai"): its
 * vtable, seam_plugin_init, and the one decision every entry point shares,
 * which wire a request goes to (oa_use_responses): Chat Completions
 * (`POST {base_url}/chat/completions`, the wire spoken by OpenAI and by most
 * other providers and local servers: encode.c, decode.c) or OpenAI's
 * Responses API (`POST {base_url}/responses`: responses_encode.c,
 * responses_decode.c). Which file owns what: internal.h. */
#include "config.h"

#include <string.h>

#include "internal.h"

/* ==== the choice of wire ===================================================== */

int oa_use_responses(const oa_instance *in, const seam_request *req)
{
    if (!in || in->api == OA_API_RESPONSES)
        return in != NULL;
    if (in->api == OA_API_CHAT || seam_request_tool_count(req) == 0)
        return 0;
    /* auto: function tools on a model that takes them on Chat Completions only
     * with effort "none", which it refuses, can only go to the Responses API. */
    oa_model_rules rules;
    oa_model_rules_of(in, seam_request_model(req), &rules);
    return rules.tools_need_none && !(rules.efforts & EF_NONE);
}

/* The wire of a decoder: both kinds begin with an unsigned tag. */
static unsigned decoder_wire(const void *decoder)
{
    unsigned wire;
    memcpy(&wire, decoder, sizeof wire);
    return wire;
}

/* ==== the vtable's entry points: each hands the request to its wire ======== */

int oa_encode(void *instance, const seam_request *req, int stream, seam_http_request *out,
              seam_error *err)
{
    const oa_instance *in = instance;
    const char *model = seam_request_model(req);
    if (!model || !*model)
        return oa_bad_request(err, "the request names no model");
    if (oa_use_responses(in, req))
        return oa_resp_encode(in, req, stream, out, err);
    return oa_chat_encode(in, req, stream, out, err);
}

void *oa_decoder_new(void *instance, const seam_request *req)
{
    if (oa_use_responses(instance, req))
        return oa_resp_decoder_new(instance, req);
    oa_decoder *d = oa_chat_decoder_new(instance);
    if (d)
        oa_chat_audio_setup(d, instance, req, 1);
    return d;
}

void oa_decoder_free(void *decoder)
{
    if (!decoder)
        return;
    if (decoder_wire(decoder) == OA_WIRE_RESPONSES) {
        oa_resp_decoder_free(decoder);
        return;
    }
    oa_chat_decoder_free(decoder);
}

int oa_decode_event(void *decoder, const seam_frame *frame, seam_emitter *out, seam_error *err)
{
    if (decoder_wire(decoder) == OA_WIRE_RESPONSES)
        return oa_resp_decode_event(decoder, frame, out, err);
    return oa_chat_decode_event(decoder, frame, out, err);
}

int oa_decode_finish(void *decoder, seam_emitter *out, seam_error *err)
{
    if (decoder_wire(decoder) == OA_WIRE_RESPONSES)
        return oa_resp_decode_finish(decoder, out, err);
    return oa_chat_decode_finish(decoder, out, err);
}

int oa_decode_response(void *instance, const seam_request *req, const char *body, size_t len,
                       seam_emitter *out, seam_error *err)
{
    if (oa_use_responses(instance, req))
        return oa_resp_decode_response(instance, req, body, len, out, err);
    return oa_chat_decode_response(instance, req, body, len, out, err);
}

/* ==== registration ============================================================ */

/* libseam-openai-compat is built from these sources too: there, the entry
 * points are a third party's (compat.c), not this plugin's. */
#ifndef SEAM_BUILDING_OPENAI_COMPAT

static const seam_provider_vtable openai_vtable = {
    .abi_version = SEAM_PLUGIN_ABI_VERSION,
    .size = sizeof(seam_provider_vtable),
    .id = "openai",
    .description = "OpenAI-compatible Chat Completions and the Responses API (OpenAI, DeepSeek, "
                   "Groq, Mistral, xAI, OpenRouter, Ollama, vLLM)",
    .framing = SEAM_FRAMING_SSE,
    .create = oa_create,
    .destroy = oa_destroy,
    .encode = oa_encode,
    .decoder_new = oa_decoder_new,
    .decoder_free = oa_decoder_free,
    .decode_event = oa_decode_event,
    .decode_finish = oa_decode_finish,
    .decode_response = oa_decode_response,
    .classify_error = oa_classify_error,
    .capabilities = oa_capabilities,
    .serve = NULL,
    .embed_encode = oa_embed_encode,
    .embed_decode = oa_embed_decode,
    .count_tokens_encode = oa_count_tokens_encode,
    .count_tokens_decode = oa_count_tokens_decode,
    .media_encode = oa_media_encode,
    .media_decode = oa_media_decode,
    .media_poll_encode = oa_media_poll_encode,
    .media_poll_decode = oa_media_poll_decode,
    .transcribe_encode = oa_transcribe_encode,
    .transcribe_decode = oa_transcribe_decode,
};

static int openai_init(seam_registrar *r)
{
    return seam_registrar_add(r, &openai_vtable);
}

SEAM_PLUGIN_DEFINE(openai_init)
#endif
