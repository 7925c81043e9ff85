/* acme.c — the second example of the template: a provider whose server
 * speaks OpenAI's Chat Completions wire is a profile, not a codec. The whole
 * codec (encode, streaming and whole decode, tool calls, usage, errors,
 * capabilities) comes from seam's own openai plugin, through
 * libseam-openai-compat. Build and install:
 *
 *   make acme.so          (cc ... $(pkg-config --cflags --libs seam-openai-compat))
 *   make install-acme     acme.so -> plugindir, acme.conf -> conf.d/
 *
 * See <seam/openai_compat.h> for every member and quirk. */
#include <seam/openai_compat.h>

static const seam_openai_profile acme = {
    .size = sizeof(seam_openai_profile),
    .id = "acme",                                  /* the conf's plugin = "acme" */
    .description = "Acme Inference (OpenAI-compatible)",
    .base_url = "https://api.acme.example/v1",     /* when the conf gives none */
    .key_env = "ACME_API_KEY",                     /* documentation: see acme.conf */
    .auth_header = "X-Acme-Key",                   /* the key goes here, as it is */
    .auth_prefix = "",
    /* usage on the last chunk when asked; json_schema output; a reasoning
     * model's <think>...</think> in content is reasoning */
    .flags = SEAM_OPENAI_STREAM_USAGE | SEAM_OPENAI_JSON_SCHEMA | SEAM_OPENAI_THINK_TAGS,
    .reasoning = SEAM_OPENAI_REASONING_EFFORT,     /* reasoning_effort low/medium/high */
};

SEAM_OPENAI_COMPAT_PLUGIN(acme)
