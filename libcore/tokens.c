/* tokens.c — how many tokens a request's input is: seam's local estimate,
 * and seam_count_tokens, which asks the provider's own count endpoint where
 * its plugin has one and falls back to the estimate otherwise.
 *
 * The estimate is the one function every budget decision of the core uses:
 * the chain's context-window skip (catalog.c) and the executor's compression
 * threshold (executor.c). It imitates what a BPE tokenizer's pre-tokenizer
 * does rather than dividing bytes by four: a word with its leading space is
 * one token, a long word one more per five letters past six, digits go in
 * threes, a run of punctuation one token per two characters, a character
 * outside the Latin and Greek/Cyrillic ranges one token each. Framing costs
 * a few tokens per message, tool call and tool definition. doc/tokens.md has
 * its measured error against the token counts providers reported. */
#include "config.h"
#include "client.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Framing the tokenizers of the chat APIs add around content (OpenAI's
 * published accounting: 3 per message plus 3 to prime the answer; a tool
 * call's name, id and delimiters cost about a dozen in the recorded streams). */
#define TOKENS_PER_REQUEST 3
#define TOKENS_PER_MESSAGE 4
#define TOKENS_PER_TOOL_CALL 12
#define TOKENS_PER_TOOL 8
/* A picture (or other media) costs about this much, whatever its size. */
#define TOKENS_PER_MEDIA 1000

static int is_letter(unsigned char c)
{
    /* ASCII letters, and the lead and continuation bytes of two-byte UTF-8
     * characters (accented Latin, Greek, Cyrillic...), which BPE vocabularies
     * merge into words much as they merge ASCII letters. */
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c < 0xE0) ||
           (c >= 0x80 && c < 0xC0);
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int64_t seam_tokens_text(const char *text)
{
    if (!text)
        return 0;
    const unsigned char *p = (const unsigned char *)text;
    int64_t n = 0;
    while (*p) {
        if (is_letter(*p)) {
            int64_t letters = 0;
            for (; is_letter(*p); p++)
                if (*p < 0x80 || *p >= 0xC0) /* count characters, not bytes */
                    letters++;
            n += 1 + (letters > 6 ? (letters - 6 + 4) / 5 : 0);
        } else if (is_digit(*p)) {
            int64_t digits = 0;
            for (; is_digit(*p); p++)
                digits++;
            n += (digits + 2) / 3;
        } else if (is_space(*p)) {
            /* One space before anything else is part of the next token. */
            if (*p == ' ' && p[1] && !is_space(p[1])) {
                p++;
                continue;
            }
            for (; is_space(*p); p++)
                ;
            n++;
        } else if (*p >= 0xE0) {
            /* CJK, symbols, emoji: about one token a character. */
            p++;
            while (*p >= 0x80 && *p < 0xC0)
                p++;
            n++;
        } else {
            int64_t marks = 0;
            for (; *p && *p < 0x80 && !is_letter(*p) && !is_digit(*p) && !is_space(*p); p++)
                marks++;
            n += (marks + 1) / 2;
        }
    }
    return n;
}

int64_t seam_tokens_parts(const seam_message *m)
{
    int64_t n = 0;
    for (size_t i = 0; i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        switch (seam_part_get_type(p)) {
        case SEAM_PART_TEXT:
        case SEAM_PART_REASONING:
            n += seam_tokens_text(seam_part_text(p));
            break;
        case SEAM_PART_TOOL_CALL:
            n += TOKENS_PER_TOOL_CALL + seam_tokens_text(seam_part_tool_name(p)) +
                 seam_tokens_text(seam_part_args_json(p));
            break;
        case SEAM_PART_TOOL_RESULT:
            n += TOKENS_PER_TOOL_CALL + seam_tokens_text(seam_part_result_json(p));
            break;
        case SEAM_PART_MEDIA:
            n += TOKENS_PER_MEDIA;
            break;
        }
    }
    return n;
}

int64_t seam_tokens_message(const seam_message *m)
{
    return m ? TOKENS_PER_MESSAGE + seam_tokens_parts(m) : 0;
}

int64_t seam_estimate_tokens(const seam_request *req)
{
    if (!req)
        return 0;
    int64_t n = TOKENS_PER_REQUEST;
    const char *system = seam_request_system(req);
    if (system && *system)
        n += TOKENS_PER_MESSAGE + seam_tokens_text(system);
    for (size_t i = 0; i < seam_request_message_count(req); i++)
        n += seam_tokens_message(seam_request_message(req, i));
    for (size_t i = 0; i < seam_request_tool_count(req); i++)
        n += TOKENS_PER_TOOL + seam_tokens_text(seam_request_tool_name(req, i)) +
             seam_tokens_text(seam_request_tool_description(req, i)) +
             seam_tokens_text(seam_request_tool_parameters(req, i));
    return n;
}

/* ---- the provider's count --------------------------------------------------------- */

typedef struct count_state {
    int64_t tokens;
    int have;
} count_state;

static int count_encode(void *ud, const seam_provider_vtable *vt, void *instance,
                        const seam_request *req, seam_http_request *out, seam_error *err)
{
    (void)ud;
    return vt->count_tokens_encode(instance, req, out, err);
}

static int count_decode(void *ud, const seam_provider_vtable *vt, void *instance,
                        const seam_request *req, const char *body, size_t len, seam_emitter *out,
                        seam_error *err)
{
    count_state *st = ud;
    int64_t n = -1;
    int rc = vt->count_tokens_decode(instance, req, body, len, &n, err);
    if (rc != SEAM_OK)
        return rc;
    if (n < 0 || n > SEAM_MAX_TOKENS) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "the provider's token count is out of range");
        seam_strlcpy(err->code, "bad_response", sizeof err->code);
        return SEAM_ERR_PROVIDER;
    }
    st->tokens = n;
    st->have = 1;
    /* A count is free: the stop carries no usage. */
    seam_chunk stop = {.type = SEAM_CHUNK_STOP, .stop_reason = SEAM_STOP_STOP};
    return seam_emit(out, &stop);
}

/* 1 when the provider's credential is set (any key of its pool), or it
 * needs none: what seam_client_provider_at reports. */
static int has_credential(seam_client *c, const seam_provider_slot *s)
{
    seam_provider_info info;
    size_t i = (size_t)(s - c->slots);
    memset(&info, 0, sizeof info);
    return seam_client_provider_at(c, i, &info) == SEAM_OK && info.has_credential;
}

/* The provider and model to count for: opts' provider, else the first entry
 * of the chain seam_generate would use that it would reach (see below). */
static int pick_target(seam_client *c, const seam_request *req, const seam_call_options *opts,
                       const char **provider, const char **model, seam_provider_slot **slot,
                       seam_error *err)
{
    const char *opt_model = opts && opts->model ? opts->model : NULL;
    if (opts && opts->provider) {
        if (!seam_conf_find_provider(c->conf, opts->provider)) {
            seam_error_set(err, SEAM_ERROR_CONF, "no provider \"%s\" in the conf", opts->provider);
            return SEAM_ERR_NOT_FOUND;
        }
        *provider = opts->provider;
        *model = opt_model ? opt_model : seam_request_model(req);
        *slot = seam_client_slot(c, opts->provider);
        if (!*model || !**model) {
            seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "no model given for provider \"%s\"",
                           opts->provider);
            return SEAM_ERR_INVALID;
        }
        return SEAM_OK;
    }
    const char *name = opts && opts->chain ? opts->chain : NULL;
    if (!name)
        name = seam_client_role_chain(c, "assistant");
    if (!name)
        name = "default";
    const seam_conf_chain *ch = seam_conf_find_chain(c->conf, name);
    if (!ch) {
        seam_error_set(err, SEAM_ERROR_CONF, "no chain \"%s\" in the conf", name);
        return SEAM_ERR_NOT_FOUND;
    }
    /* The entry a call would reach: its plugin loaded, a model, and a usable
     * credential (or none needed); failing that, the first with a plugin and
     * a model, so that the estimate still answers for a model of the chain. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < ch->n_entries; i++) {
            const seam_conf_entry *e = &ch->entries[i];
            const char *m = opt_model ? opt_model : e->model ? e->model : seam_request_model(req);
            seam_provider_slot *s = seam_client_slot(c, e->provider);
            if (!s || !s->vt || !s->instance || !m || !*m)
                continue;
            if (pass == 0 && !has_credential(c, s))
                continue;
            *provider = e->provider;
            *model = m;
            *slot = s;
            return SEAM_OK;
        }
    }
    seam_error_set(err, SEAM_ERROR_CONF,
                   "no entry of chain \"%s\" has a configured provider with its plugin and a model",
                   name);
    return SEAM_ERR_NOT_FOUND;
}

int seam_count_tokens(seam_client *client, const seam_request *req, const seam_call_options *opts,
                      seam_token_count *out, seam_error *err)
{
    seam_error_clear(err);
    if (!client || !req || !out || out->size < sizeof *out)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    if (opts && opts->size < offsetof(seam_call_options, ud) + sizeof opts->ud)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "seam_call_options.size is not set"),
               SEAM_ERR_INVALID;
    uint32_t size = out->size;
    memset(out, 0, sizeof *out);
    out->size = size;

    const char *provider = NULL, *model = NULL;
    seam_provider_slot *slot = NULL;
    int rc = pick_target(client, req, opts, &provider, &model, &slot, err);
    if (rc != SEAM_OK)
        return rc;
    seam_strlcpy(out->provider, provider, sizeof out->provider);
    seam_strlcpy(out->model, model, sizeof out->model);

    if (slot && slot->vt && slot->vt->count_tokens_encode && slot->vt->count_tokens_decode) {
        /* One provider, as asked: its key, timeouts and error handling. */
        seam_call_options one;
        memset(&one, 0, sizeof one);
        if (opts)
            memcpy(&one, opts, opts->size < sizeof one ? opts->size : sizeof one);
        one.size = sizeof one;
        one.chain = NULL;
        one.provider = provider;
        one.model = model;
        count_state st = {0};
        seam_call_op op = {NULL, count_encode, count_decode, &st};
        seam_result *res = NULL;
        seam_error why;
        seam_error_clear(&why);
        rc = seam_call_run_op(client, req, &one, &op, &res, &why);
        seam_result_free(res);
        if (rc == SEAM_OK && st.have) {
            out->input_tokens = st.tokens;
            out->exact = 1;
            return SEAM_OK;
        }
        if (rc == SEAM_ERR_NOMEM)
            return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
        static const char failed[] = "the count endpoint failed: ";
        memcpy(out->note, failed, sizeof failed);
        seam_text_field_set(out->note + sizeof failed - 1, sizeof out->note - (sizeof failed - 1),
                            why.message, strlen(why.message));
    } else if (slot && slot->vt) {
        snprintf(out->note, sizeof out->note, "plugin %s has no token count endpoint",
                 slot->vt->id ? slot->vt->id : slot->conf->plugin);
    } else {
        snprintf(out->note, sizeof out->note, "the plugin of provider %s is not loaded", provider);
    }
    out->input_tokens = seam_estimate_tokens(req);
    return SEAM_OK;
}
