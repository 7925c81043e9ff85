/* body_fields.c — the request-body fields the openai plugin lets provider
 * options set, per wire and per profile: a key in this table (or one of the
 * plugin's own option keys) is taken from the conf's options and a request's
 * namespace; any other key is dropped with a warning and never reaches the
 * wire. A field a server has that is not here goes in `extra_body`.
 *
 * Sources: OpenAI's API reference (CreateChatCompletionRequest,
 * CreateResponse), and for the profiles the servers' own request references
 * (Groq, Mistral, xAI, OpenRouter, vLLM's extra sampling parameters). The
 * fields the codec writes itself are listed too, so that a null in the
 * options can remove them. */
#include "config.h"

#include <string.h>

#include "internal.h"

enum { W_CHAT = 1u << 0, W_RESP = 1u << 1, W_BOTH = W_CHAT | W_RESP };

typedef struct body_field {
    const char *key;
    unsigned wires;
    const char *profile; /* NULL: every profile */
} body_field;

static const body_field fields[] = {
    /* both wires */
    { "metadata", W_BOTH, NULL },
    { "parallel_tool_calls", W_BOTH, NULL },
    { "prompt_cache_key", W_BOTH, NULL },
    { "prompt_cache_retention", W_BOTH, NULL },
    { "safety_identifier", W_BOTH, NULL },
    { "service_tier", W_BOTH, NULL },
    { "store", W_BOTH, NULL },
    { "stream", W_BOTH, NULL },
    { "stream_options", W_BOTH, NULL },
    { "temperature", W_BOTH, NULL },
    { "tool_choice", W_BOTH, NULL },
    { "tools", W_BOTH, NULL },
    { "top_logprobs", W_BOTH, NULL },
    { "top_p", W_BOTH, NULL },
    { "user", W_BOTH, NULL },
    /* Chat Completions */
    { "audio", W_CHAT, NULL },
    { "frequency_penalty", W_CHAT, NULL },
    { "logit_bias", W_CHAT, NULL },
    { "logprobs", W_CHAT, NULL },
    { "max_completion_tokens", W_CHAT, NULL },
    { "max_tokens", W_CHAT, NULL },
    { "modalities", W_CHAT, NULL },
    { "n", W_CHAT, NULL },
    { "prediction", W_CHAT, NULL },
    { "presence_penalty", W_CHAT, NULL },
    { "reasoning_effort", W_CHAT, NULL },
    { "response_format", W_CHAT, NULL },
    { "seed", W_CHAT, NULL },
    { "stop", W_CHAT, NULL },
    { "verbosity", W_CHAT, NULL },
    { "web_search_options", W_CHAT, NULL },
    /* the Responses API */
    { "background", W_RESP, NULL },
    { "conversation", W_RESP, NULL },
    { "include", W_RESP, NULL },
    { "instructions", W_RESP, NULL },
    { "max_output_tokens", W_RESP, NULL },
    { "max_tool_calls", W_RESP, NULL },
    { "previous_response_id", W_RESP, NULL },
    { "prompt", W_RESP, NULL },
    { "reasoning", W_RESP, NULL },
    { "text", W_RESP, NULL },
    { "truncation", W_RESP, NULL },
    /* profiles */
    { "reasoning_format", W_CHAT, "groq" },
    { "include_reasoning", W_CHAT, "groq" },
    { "search_settings", W_CHAT, "groq" },
    { "safe_prompt", W_CHAT, "mistral" },
    { "random_seed", W_CHAT, "mistral" },
    { "prompt_mode", W_CHAT, "mistral" },
    { "search_parameters", W_CHAT, "xai" },
    { "reasoning", W_CHAT, "openrouter" },
    { "provider", W_CHAT, "openrouter" },
    { "models", W_CHAT, "openrouter" },
    { "route", W_CHAT, "openrouter" },
    { "transforms", W_CHAT, "openrouter" },
    { "plugins", W_CHAT, "openrouter" },
    { "usage", W_CHAT, "openrouter" },
    { "top_k", W_CHAT, "openrouter" },
    { "min_p", W_CHAT, "openrouter" },
    { "top_a", W_CHAT, "openrouter" },
    { "repetition_penalty", W_CHAT, "openrouter" },
    { "top_k", W_CHAT, "vllm" },
    { "min_p", W_CHAT, "vllm" },
    { "repetition_penalty", W_CHAT, "vllm" },
    { "min_tokens", W_CHAT, "vllm" },
    { "ignore_eos", W_CHAT, "vllm" },
    { "skip_special_tokens", W_CHAT, "vllm" },
    { "guided_json", W_CHAT, "vllm" },
    { "guided_regex", W_CHAT, "vllm" },
    { "guided_choice", W_CHAT, "vllm" },
    { "guided_grammar", W_CHAT, "vllm" },
    { "structured_outputs", W_CHAT, "vllm" },
    { "chat_template", W_CHAT, "vllm" },
    { "chat_template_kwargs", W_CHAT, "vllm" },
    { "thinking_token_budget", W_CHAT, "vllm" },
    { "top_k", W_CHAT, "ollama" },
    { "keep_alive", W_CHAT, "ollama" },
};

static unsigned wire_of(const char *path)
{
    return path && strcmp(path, "/responses") == 0 ? W_RESP : W_CHAT;
}

int oa_body_field_known(const oa_instance *in, const char *key, const char *path)
{
    unsigned wires = path ? wire_of(path) : W_BOTH;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if ((fields[i].wires & wires) && strcmp(fields[i].key, key) == 0 &&
            (!fields[i].profile || (in && in->profile && !strcmp(fields[i].profile, in->profile->id))))
            return 1;
    return 0;
}

int oa_option_known(const char *key, void *instance)
{
    return oa_is_reserved_option(key) || oa_body_field_known(instance, key, NULL);
}
