/* seam/openai_compat.h — the OpenAI-compatible codec, reusable: a provider
 * that speaks OpenAI's Chat Completions wire (most cloud and local servers
 * do) is a profile, not a codec. A third party describes its server in a
 * seam_openai_profile (default base URL, auth header, quirks) and gets the
 * whole codec of seam's openai plugin: encode, streaming and whole decode
 * (text, reasoning, <think> tags, tool calls, usage, finish reasons),
 * error classification, capabilities, embeddings.
 *
 * It lives in libseam-openai-compat (pkg-config seam-openai-compat), a
 * shared library built from the very sources of seam's openai plugin, whose
 * own profiles (openai, deepseek, groq, mistral, xai, openrouter, ollama,
 * vllm) are seam_openai_profile values too. A whole plugin:
 *
 *   #include <seam/openai_compat.h>
 *   static const seam_openai_profile acme = {
 *       .size = sizeof(seam_openai_profile), .id = "acme",
 *       .description = "Acme Inference", .base_url = "https://api.acme.ai/v1",
 *       .flags = SEAM_OPENAI_STREAM_USAGE | SEAM_OPENAI_JSON_SCHEMA,
 *   };
 *   SEAM_OPENAI_COMPAT_PLUGIN(acme)
 *
 *   cc -shared -fPIC -fvisibility=hidden -o acme.so acme.c \
 *      $(pkg-config --cflags --libs seam-openai-compat)
 *
 * The conf's options are those of the openai plugin (seam-providers(7)),
 * but `profile`: the profile is the plugin's. Versioning: a profile begins
 * with its size, and members are only appended; the library reads the
 * members below the size it is given.
 */
#ifndef SEAM_OPENAI_COMPAT_H
#define SEAM_OPENAI_COMPAT_H

#include <seam/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SEAM_BUILDING_OPENAI_COMPAT) && defined(__GNUC__)
#define SEAM_OPENAI_COMPAT_EXPORT __attribute__((visibility("default")))
#else
#define SEAM_OPENAI_COMPAT_EXPORT
#endif

/* ---- quirks: seam_openai_profile.flags ----------------------------------------- */

/* Usage placement: ask for usage on the stream's last chunk with
 * stream_options.include_usage. Leave it out for a server that refuses the
 * field (Mistral: 422) or sends usage unasked (Groq's x_groq.usage); usage is
 * read wherever it arrives either way. */
#define SEAM_OPENAI_STREAM_USAGE (1u << 0)
/* OpenAI's own model rules (reasoning families: max_completion_tokens, the
 * developer role, no sampling parameters, the Responses API where Chat
 * Completions cannot serve a request): for a server that hosts OpenAI's
 * models under their names. */
#define SEAM_OPENAI_MODEL_RULES (1u << 1)
/* response_format json_schema is accepted (else json_object is sent). */
#define SEAM_OPENAI_JSON_SCHEMA (1u << 2)
/* Tool result messages carry the tool's name (Mistral requires it). */
#define SEAM_OPENAI_TOOL_NAME (1u << 3)
/* xAI's reasoning models refuse `stop`: it is not sent to them. */
#define SEAM_OPENAI_XAI_STOP (1u << 4)
/* Reasoning in content: a "<think>...</think>" that opens the content is
 * reasoning (the default of the think_tags option). */
#define SEAM_OPENAI_THINK_TAGS (1u << 5)
/* Tool-id rule: tool call ids must be exactly 9 characters of [a-zA-Z0-9]
 * (Mistral); others are sent as short ids derived from them, the same for a
 * call and its result. */
#define SEAM_OPENAI_SHORT_TOOL_IDS (1u << 6)
/* DeepSeek's deepseek-reasoner: no sampling parameters. */
#define SEAM_OPENAI_DEEPSEEK (1u << 7)

/* How a request's reasoning budget is sent (reasoning arrives in
 * reasoning_content or reasoning, or in <think> tags, whatever this says). */
typedef enum seam_openai_reasoning {
    SEAM_OPENAI_REASONING_NONE = 0, /* nothing is sent */
    SEAM_OPENAI_REASONING_OPENAI,   /* reasoning_effort per OpenAI model family */
    SEAM_OPENAI_REASONING_GROQ,     /* reasoning_effort / reasoning_format per Groq model */
    SEAM_OPENAI_REASONING_MISTRAL,  /* reasoning_effort "high" on the adjustable models */
    SEAM_OPENAI_REASONING_XAI,      /* reasoning_effort on grok-3-mini and grok-4.3 */
    SEAM_OPENAI_REASONING_OPENROUTER, /* reasoning: {effort} */
    SEAM_OPENAI_REASONING_EFFORT,   /* reasoning_effort low/medium/high from the budget (Ollama) */
    SEAM_OPENAI_REASONING_BUDGET    /* thinking_token_budget: the budget itself (vLLM) */
} seam_openai_reasoning;

/* One server that speaks the wire. Static storage: the library keeps a
 * pointer to it for as long as an instance lives. */
typedef struct seam_openai_profile {
    uint32_t size;           /* sizeof(seam_openai_profile) */
    const char *id;          /* the provider id registered, and the conf's `plugin`: "acme" */
    const char *description; /* for `seam plugins`; NULL: a generic one */
    const char *base_url;    /* used when the conf gives none, e.g. "https://api.acme.ai/v1" */
    const char *key_env;     /* documentation only: the key's usual variable (the conf says
                              * where the key is; the core resolves it) */
    const char *auth_header; /* the header that carries the key; NULL: "Authorization" */
    const char *auth_prefix; /* put before the key; NULL: "Bearer " for Authorization, else "" */
    unsigned flags;          /* SEAM_OPENAI_* quirks */
    seam_openai_reasoning reasoning;
} seam_openai_profile;

/* An instance of the codec for profile p and the provider conf cfg (what a
 * vtable's create returns): cfg's base_url or the profile's, the conf's
 * options (a `profile` option is ignored: the profile is p). NULL with err
 * filled (kind conf, or unknown when out of memory). p is borrowed for the
 * instance's life. */
SEAM_OPENAI_COMPAT_EXPORT void *seam_openai_compat_create(const seam_openai_profile *p,
                                                          const seam_provider_config *cfg,
                                                          seam_error *err);
/* Fills vt (all of it: ABI version, size, id and description from p,
 * framing, every entry point of the codec) with create as its create, which
 * calls seam_openai_compat_create with p. vt must have static storage, as
 * seam_registrar_add requires. SEAM_ERR_INVALID for a NULL argument, a
 * profile without an id or smaller than the members up to id. */
SEAM_OPENAI_COMPAT_EXPORT int seam_openai_compat_vtable(
    seam_provider_vtable *vt, const seam_openai_profile *p,
    void *(*create)(const seam_provider_config *cfg, seam_error *err));

/* Defines `static void *fn(cfg, err)`, the create of profile (a
 * seam_openai_profile variable), for a plugin that registers several. */
#define SEAM_OPENAI_COMPAT_CREATE(fn, profile)                                                 \
    static void *fn(const seam_provider_config *cfg, seam_error *err)                          \
    {                                                                                          \
        return seam_openai_compat_create(&(profile), cfg, err);                                \
    }

/* A whole plugin of one provider: its create, its vtable and the entry
 * points. */
#define SEAM_OPENAI_COMPAT_PLUGIN(profile)                                                     \
    SEAM_OPENAI_COMPAT_CREATE(seam_openai_compat_create_, profile)                             \
    static int seam_openai_compat_init_(seam_registrar *r)                                     \
    {                                                                                          \
        static seam_provider_vtable vt;                                                        \
        int rc = seam_openai_compat_vtable(&vt, &(profile), seam_openai_compat_create_);       \
        return rc == SEAM_OK ? seam_registrar_add(r, &vt) : rc;                                \
    }                                                                                          \
    SEAM_PLUGIN_DEFINE(seam_openai_compat_init_)

#ifdef __cplusplus
}
#endif
#endif /* SEAM_OPENAI_COMPAT_H */
