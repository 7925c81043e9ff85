/* models.c — the gemini plugin's model knowledge: the table of Gemini (and
 * Gemma) model families with their capability flags, context window, output
 * cap and thinking levels; the lookup of a model id's family; a reasoning
 * budget as a thinking level; and the capabilities query. encode.c applies
 * what a family implies on the wire.
 *
 * Gemini 3 and later (the families with thinking levels in model_families;
 * Gemini 2.x and unknown ids keep the 2.x wire unchanged). What changed, and
 * where the API documents it (ai.google.dev/gemini-api/docs/...; Vertex
 * guides at docs.cloud.google.com/gemini-enterprise-agent-platform/models/):
 *  - thinking: thinkingConfig.thinkingLevel, not thinkingBudget (a request
 *    with both is refused with a 400). The seam's budget is mapped to a level
 *    the family has (gemini_thinking_level_for_budget): gemini-4-argon LOW/MEDIUM/
 *    HIGH ("latest-model", "Developer's guide to Gemini 4 Argon");
 *    gemini-4-hydrogen the same: its guide ("Developer's guide to Gemini 4
 *    Hydrogen") also names an XHIGH, but ThinkingLevel in @google/genai 3.1.0
 *    and the API reference's thinkingConfig have MINIMAL, LOW, MEDIUM and
 *    HIGH only, so HIGH is the top level sent to any family (the
 *    thinkingConfig option can still name another value);
 *    gemini-3.8-flash and 3.7-flash LOW/MEDIUM/HIGH, no MINIMAL
 *    ("Developer's guide to Gemini 3.8 Flash"); gemini-3.5-flash-lite and
 *    3.5-flash MINIMAL..HIGH ("Gemini 3.5 Flash-Lite" model page, "Developer's
 *    guide to Gemini 3.5 Flash"); gemini-3.1-pro LOW/MEDIUM/HIGH,
 *    gemini-3.1-flash-lite and gemini-3-flash MINIMAL..HIGH, any other 3.x id
 *    LOW/HIGH, the set every 3.x text model takes ("thinking": Gemini 3 Pro).
 *  - output cap: one request returns at most 65,536 tokens (Gemini 4 and the
 *    3.x models above; a non-streamed Gemini 4 call 32,768, and more than
 *    that without a continuation token is a 400), so maxOutputTokens is
 *    clamped to the family's cap. Past it Gemini 4 does "long decode"
 *    ("generate-content/long-decode"): a hop that reaches the cap with budget
 *    left ends with finishReason CONTINUATION and candidate.continuationToken,
 *    and the client sends the same request again with that token, the total
 *    budget being maxOutputTokens across hops. That is a loop of requests whose
 *    outputs are joined, which belongs to the core (the codec does no I/O), so
 *    it is not done here: CONTINUATION is reported as stop reason "length".
 *  - schemas: generationConfig.responseJsonSchema and functionDeclarations[].
 *    parametersJsonSchema take JSON Schema itself ("structured-output"; API
 *    reference FunctionDeclaration), so the schema is copied into the
 *    documented JSON Schema subset (json_subset) instead of being reshaped
 *    into the OpenAPI subset of responseSchema/parameters.
 *  - signatures: a function call of the current turn whose step has no
 *    signature is refused (400 "Function call is missing a thought_signature";
 *    "thought-signatures"); the placeholder the guide gives for calls the
 *    model did not make is sent instead (sign_unsigned_calls_of_current_turn).
 *  - gemini-3.5-flash-lite refuses contents that end with a model turn (its
 *    model page): refused here before any request is sent.
 *  - finish reasons CONTINUATION (-> length), MODEL_ARMOR (-> content_filter),
 *    MALFORMED_RESPONSE (-> error), for every family.
 *  - media resolution (Gemini 3's mediaResolution) has no seam field: it goes
 *    through the provider options' generationConfig like any member of it.
 */
#include "config.h"

#include <string.h>

#include "internal.h"

/* ======================================================================== */
/* model families                                                            */
/* ======================================================================== */

/* Longest prefixes first: the first match wins. Sources per row in the file
 * comment ("Gemini 3 and later"). */
static const model_family model_families[] = {
    {"gemini-4-argon", 1, 1, 1, 0, 1, 1048576, 65536, LEVELS_LMH, 32768, 0},
    {"gemini-4-hydrogen", 1, 1, 1, 0, 1, 1048576, 65536, LEVELS_LMH, 32768, 0},
    {"gemini-4", 1, 1, 1, 0, 1, 1048576, 65536, LEVELS_LMH, 32768, 0},
    {"gemini-3.8-flash", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_LMH, 0, 0},
    {"gemini-3.7-flash", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_LMH, 0, 0},
    {"gemini-3.5-flash-lite", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_MLMH, 0, 1},
    {"gemini-3.5-flash", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_MLMH, 0, 0},
    {"gemini-3.1-flash-lite", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_MLMH, 0, 0},
    {"gemini-3.1-pro", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_LMH, 0, 0},
    {"gemini-3-flash", 1, 1, 1, 1, 1, 1048576, 65536, LEVELS_MLMH, 0, 0},
    {"gemini-3", 1, 1, 1, 1, 1, 1048576, 65536, LEVEL_LOW | LEVEL_HIGH, 0, 0},
    {"gemini-2.5-flash-image", 0, 0, 1, 0, 1, 32768, 32768, 0, 0, 0},
    {"gemini-2.5-pro", 1, 1, 1, 1, 1, 1048576, 65536, 0, 0, 0},
    {"gemini-2.5-flash", 1, 1, 1, 1, 1, 1048576, 65536, 0, 0, 0}, /* and -lite */
    {"gemini-2.0-flash-thinking", 0, 1, 1, 0, 0, 1048576, 65536, 0, 0, 0},
    {"gemini-2.0-flash", 1, 0, 1, 1, 1, 1048576, 8192, 0, 0, 0}, /* and -lite */
    {"gemini-1.5-pro", 1, 0, 1, 1, 1, 2097152, 8192, 0, 0, 0},
    {"gemini-1.5-flash", 1, 0, 1, 1, 1, 1048576, 8192, 0, 0, 0},
    {"gemma-3n", 0, 0, 1, 0, 0, 32768, 8192, 0, 0, 0},
    {"gemma-3", 0, 0, 1, 0, 0, 131072, 8192, 0, 0, 0},
    {"gemini-", 1, 0, 1, 0, 1, 0, 0, 0, 0, 0}, /* an unknown Gemini: the common ground */
};

/* The family of a model id ("models/" prefix allowed); NULL when unknown. */
const model_family *gemini_find_family(const char *model)
{
    if (!model)
        return NULL;
    if (strncmp(model, "models/", 7) == 0)
        model += 7;
    for (size_t i = 0; i < sizeof model_families / sizeof model_families[0]; i++)
        if (strncmp(model, model_families[i].prefix, strlen(model_families[i].prefix)) == 0)
            return &model_families[i];
    return NULL;
}

/* A reasoning budget in tokens as the family's thinkingLevel. The same split as
 * the other plugins' effort levels (below 4096 tokens low, below 16384 medium,
 * else high), with below 1024 minimal. HIGH is the top: the values of
 * ThinkingLevel in @google/genai 3.1.0 end there, and a body with another
 * fails the SDK's types (see the file comment). A level the family lacks
 * becomes the next one up that it has (more thinking than asked, never less),
 * else the highest it has. */
const char *gemini_thinking_level_for_budget(int64_t budget, unsigned levels)
{
    static const char *const names[] = {"MINIMAL", "LOW", "MEDIUM", "HIGH"};
    int want = budget < 1024 ? 0 : budget < 4096 ? 1 : budget < 16384 ? 2 : 3;
    for (int i = want; i < 4; i++)
        if (levels & (1u << i))
            return names[i];
    for (int i = want; i-- > 0;)
        if (levels & (1u << i))
            return names[i];
    return NULL;
}

/* ======================================================================== */
/* capabilities                                                              */
/* ======================================================================== */

int gemini_capabilities(void *instance, const char *model, seam_capabilities *caps)
{
    (void)instance;
    if (!model || !caps)
        return SEAM_ERR_INVALID;
    caps->size = sizeof *caps;
    if (strstr(model, "embedding")) {
        /* gemini-embedding-001, text-embedding-004: embedContent only (embed.c). */
        caps->embed = 1;
        return SEAM_OK;
    }
    caps->streaming = 1;
    const model_family *f = gemini_find_family(model);
    if (!f) {
        caps->embed = 1; /* not a model this plugin knows: nothing held against it */
        return SEAM_OK;
    }
    caps->tools = f->tools;
    caps->parallel_tool_calls = f->tools;
    caps->vision = f->vision;
    caps->pdf_input = f->vision && f->tools;
    caps->audio_input = f->audio;
    /* Implicit caching (and cachedContent before Gemini 4, which has only the
     * implicit kind): a read is reported either way. */
    caps->prompt_cache = strncmp(f->prefix, "gemini-", 7) == 0;
    caps->reasoning = f->reasoning;
    caps->structured_output = f->structured;
    caps->context_window = f->context_window;
    caps->max_output_tokens = f->max_output;
    /* Native image output ("Nano Banana": gemini-2.5-flash-image,
     * gemini-3-pro-image-preview, gemini-3.1-flash-image-preview): text and
     * image together, or image alone. */
    if (strstr(model, "-image")) {
        caps->output_combinations[0] = SEAM_MODALITY_TEXT | SEAM_MODALITY_IMAGE;
        caps->output_combinations[1] = SEAM_MODALITY_IMAGE;
        caps->n_output_combinations = 2;
    }
    /* Speech generation (gemini-2.5-flash-preview-tts, -pro-preview-tts):
     * audio alone (ai.google.dev/gemini-api/docs/speech-generation). */
    if (strstr(model, "-tts")) {
        caps->output_combinations[0] = SEAM_MODALITY_AUDIO;
        caps->n_output_combinations = 1;
    }
    return SEAM_OK;
}

