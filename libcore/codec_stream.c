/* codec_stream.c — owns the stream helpers of the codec SDK (<seam/codec.h>):
 * the "[DONE]" sentinel of OpenAI-style streams, the finish reasons of the
 * common wires mapped to seam stop reasons (one table where each codec had
 * its own), and usage built from a wire's counts, input net of cache. */
#include "config.h"

#include <string.h>

#include <seam/codec.h>

/* RFC 8259's whitespace plus what isspace() adds: the codecs trimmed with
 * isspace, and a sentinel is compared after the same trim. */
static int ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int seam_sse_is_done(const seam_frame *frame)
{
    if (!frame || !frame->data)
        return 0;
    const char *p = frame->data;
    size_t len = frame->data_len;
    while (len && ws(*p)) {
        p++;
        len--;
    }
    while (len && ws(p[len - 1]))
        len--;
    return len == 6 && memcmp(p, "[DONE]", 6) == 0;
}

/* Reasons are compared exactly: each wire has one spelling (lower case for
 * OpenAI-style and Anthropic, upper case for Gemini), and no spelling of one
 * wire means something else on another. */
static const struct {
    const char *wire;
    seam_stop_reason reason;
} reasons[] = {
    /* OpenAI-style servers and Anthropic */
    {"stop", SEAM_STOP_STOP},
    {"end_turn", SEAM_STOP_STOP},
    {"eos", SEAM_STOP_STOP},
    {"stop_sequence", SEAM_STOP_STOP},
    {"length", SEAM_STOP_LENGTH},
    {"max_tokens", SEAM_STOP_LENGTH},
    {"model_length", SEAM_STOP_LENGTH},
    {"model_context_window_exceeded", SEAM_STOP_LENGTH},
    {"tool_calls", SEAM_STOP_TOOL_USE},
    {"function_call", SEAM_STOP_TOOL_USE},
    {"tool_use", SEAM_STOP_TOOL_USE},
    {"content_filter", SEAM_STOP_CONTENT_FILTER},
    {"safety", SEAM_STOP_CONTENT_FILTER},
    {"refusal", SEAM_STOP_CONTENT_FILTER},
    {"error", SEAM_STOP_ERROR},
    /* Gemini. CONTINUATION: the request's own output cap was reached with
     * budget left; going on needs a continuationToken a codec cannot send,
     * so for the caller it is a cut answer, as MAX_TOKENS is. */
    {"MAX_TOKENS", SEAM_STOP_LENGTH},
    {"CONTINUATION", SEAM_STOP_LENGTH},
    {"SAFETY", SEAM_STOP_CONTENT_FILTER},
    {"RECITATION", SEAM_STOP_CONTENT_FILTER},
    {"BLOCKLIST", SEAM_STOP_CONTENT_FILTER},
    {"PROHIBITED_CONTENT", SEAM_STOP_CONTENT_FILTER},
    {"SPII", SEAM_STOP_CONTENT_FILTER},
    {"IMAGE_SAFETY", SEAM_STOP_CONTENT_FILTER},
    {"IMAGE_PROHIBITED_CONTENT", SEAM_STOP_CONTENT_FILTER},
    {"IMAGE_RECITATION", SEAM_STOP_CONTENT_FILTER},
    {"LANGUAGE", SEAM_STOP_CONTENT_FILTER},
    {"MODEL_ARMOR", SEAM_STOP_CONTENT_FILTER},
    {"MALFORMED_FUNCTION_CALL", SEAM_STOP_ERROR},
    {"UNEXPECTED_TOOL_CALL", SEAM_STOP_ERROR},
    {"TOO_MANY_TOOL_CALLS", SEAM_STOP_ERROR},
    {"MISSING_THOUGHT_SIGNATURE", SEAM_STOP_ERROR},
    {"NO_IMAGE", SEAM_STOP_ERROR},
    {"MALFORMED_RESPONSE", SEAM_STOP_ERROR},
};

seam_stop_reason seam_stop_reason_from_wire(const char *reason)
{
    if (!reason)
        return SEAM_STOP_NONE;
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (strcmp(reason, reasons[i].wire) == 0)
            return reasons[i].reason;
    /* pause_turn, STOP, OTHER, FINISH_REASON_UNSPECIFIED and reasons added
     * later: the turn ended without a known problem. */
    return SEAM_STOP_STOP;
}

static int64_t clamp_count(int64_t n)
{
    return n < 0 ? 0 : n > SEAM_USAGE_COUNT_MAX ? SEAM_USAGE_COUNT_MAX : n;
}

void seam_usage_from_counts(seam_usage *u, int64_t input, int64_t cache_read, int64_t cache_write,
                            int64_t output, int64_t reasoning, int input_includes_cache)
{
    if (!u)
        return;
    memset(u, 0, sizeof *u);
    if (cache_read >= 0) {
        u->cache_read_tokens = clamp_count(cache_read);
        u->present |= SEAM_USAGE_CACHE_READ;
    }
    if (cache_write >= 0) {
        u->cache_write_tokens = clamp_count(cache_write);
        u->present |= SEAM_USAGE_CACHE_WRITE;
    }
    if (input >= 0) {
        int64_t net = clamp_count(input);
        if (input_includes_cache)
            net -= u->cache_read_tokens + u->cache_write_tokens;
        u->input_tokens = net > 0 ? net : 0;
        u->present |= SEAM_USAGE_INPUT;
    }
    if (output >= 0) {
        u->output_tokens = clamp_count(output);
        u->present |= SEAM_USAGE_OUTPUT;
    }
    if (reasoning >= 0) {
        u->reasoning_tokens = clamp_count(reasoning);
        u->present |= SEAM_USAGE_REASONING;
    }
}
