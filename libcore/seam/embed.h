/* seam/embed.h — embeddings and token counts: the embedding request and its
 * result (shared by applications and the plugins that encode and decode
 * them), and the client calls seam_embed, seam_count_tokens and
 * seam_estimate_tokens. Included by <seam/seam.h> and <seam/plugin.h>.
 *
 * The conventions of <seam/types.h> hold: opaque handles with _new/_free,
 * borrowed `const char *` results, SEAM_OK or a negative seam_status, and a
 * caller-provided seam_error filled on failure.
 */
#ifndef SEAM_EMBED_H
#define SEAM_EMBED_H

#include <seam/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Declared in <seam/seam.h>; repeated so that a plugin needs only this header. */
typedef struct seam_client seam_client;
typedef struct seam_call_options seam_call_options;

/* ---- the embedding request ------------------------------------------------ */

typedef struct seam_embed_request seam_embed_request;

/* A new request without inputs; NULL on allocation failure. Free with
 * seam_embed_request_free(). */
SEAM_EXPORT seam_embed_request *seam_embed_request_new(void);
SEAM_EXPORT void seam_embed_request_free(seam_embed_request *er);
/* Appends one input text (copied): each input gets one vector, in order.
 * SEAM_ERR_INVALID for NULL, SEAM_ERR_NOMEM. */
SEAM_EXPORT int seam_embed_request_add_text(seam_embed_request *er, const char *text);
/* The model (copied); a chain entry's model or seam_call_options.model
 * replaces it for the call. NULL clears it. */
SEAM_EXPORT int seam_embed_request_set_model(seam_embed_request *er, const char *model);
/* The length of the vectors asked for (providers that can shorten them:
 * OpenAI text-embedding-3, Gemini); 0, the default, leaves it to the model.
 * SEAM_ERR_INVALID when negative. */
SEAM_EXPORT int seam_embed_request_set_dimensions(seam_embed_request *er, int64_t dimensions);

SEAM_EXPORT size_t seam_embed_request_count(const seam_embed_request *er);
/* Input i (borrowed), NULL past the end. */
SEAM_EXPORT const char *seam_embed_request_text(const seam_embed_request *er, size_t i);
SEAM_EXPORT const char *seam_embed_request_model(const seam_embed_request *er); /* NULL if unset */
SEAM_EXPORT int64_t seam_embed_request_dimensions(const seam_embed_request *er); /* 0 if unset */

/* ---- the result ------------------------------------------------------------ */

typedef struct seam_embeddings seam_embeddings;

/* An empty result expecting `count` vectors (a plugin's decoder fills the one
 * the core hands it; tests make their own). NULL on allocation failure. Free
 * with seam_embeddings_free(). */
SEAM_EXPORT seam_embeddings *seam_embeddings_new(size_t count);
SEAM_EXPORT void seam_embeddings_free(seam_embeddings *e);
/* The number of vectors: that of the request's inputs. */
SEAM_EXPORT size_t seam_embeddings_count(const seam_embeddings *e);
/* Vector i (borrowed, valid until seam_embeddings_free), its length in
 * *dimensions (if non-NULL); NULL past the end or when never set. */
SEAM_EXPORT const float *seam_embeddings_vector(const seam_embeddings *e, size_t i,
                                                size_t *dimensions);
/* The call's usage: input tokens (when the provider reports them) and, when
 * the model is priced, the cost in integer micro-cents. Never NULL for a
 * non-NULL e. */
SEAM_EXPORT const seam_usage *seam_embeddings_usage(const seam_embeddings *e);
/* The configured provider and the model that answered (NULL if unknown). */
SEAM_EXPORT const char *seam_embeddings_provider(const seam_embeddings *e);
SEAM_EXPORT const char *seam_embeddings_model(const seam_embeddings *e);

/* What a plugin's embed_decode calls. Sets vector i (the values are copied):
 * SEAM_ERR_INVALID when i is not below the count, dimensions is 0 or a value
 * is not finite; SEAM_ERR_NOMEM. Setting a vector twice replaces it. */
SEAM_EXPORT int seam_embeddings_set_vector(seam_embeddings *e, size_t i, const float *values,
                                           size_t dimensions);
/* Sets the usage the provider reported (its counts; the core prices it). */
SEAM_EXPORT int seam_embeddings_set_usage(seam_embeddings *e, const seam_usage *usage);

/* ---- the calls --------------------------------------------------------------- */

/* Embeds every input of er through a chain (opts->chain; when opts and its
 * chain and provider are NULL: the chain of role "embed", else the chain
 * named "embed") or one provider (opts->provider, opts->model), with the
 * chain's retries, key rotation and failover. An entry whose plugin has no
 * embeddings, or whose model is known not to embed (capability `embed` of
 * the model catalog or of the plugin), is skipped, and the skip reported to
 * opts->on_attempt. On success *out holds one vector per input in input order
 * (free with seam_embeddings_free()), its usage and cost, provider and model.
 * er is not modified. On failure *out is NULL and err is filled. */
SEAM_EXPORT int seam_embed(seam_client *client, const seam_embed_request *er,
                           const seam_call_options *opts, seam_embeddings **out, seam_error *err);

/* A token count of a request's input, and how it was made. Set size to
 * sizeof(seam_token_count) before the call. */
typedef struct seam_token_count {
    uint32_t size;
    int64_t input_tokens;
    int exact;          /* 1: counted by the provider's own endpoint; 0: seam's local
                         * estimate (see seam_estimate_tokens) */
    char provider[64];  /* the configured provider counted for */
    char model[128];    /* ...and the model */
    char note[256];     /* when not exact: why ("plugin mock has no token count
                         * endpoint", the endpoint's error); "" otherwise */
} seam_token_count;

/* Counts the input tokens of req for one model: opts->provider with
 * opts->model (or req's model), else the first entry of the chain (as
 * seam_generate picks it: opts->chain, the role "assistant", "default") whose
 * provider is configured with its plugin, a model and a credential set (or
 * none needed); when no entry has a credential, the first with a plugin and a
 * model. The provider's count
 * endpoint is used where its plugin has one (Anthropic, Gemini, OpenAI's
 * Responses API), with the provider's credential, timeouts and retries;
 * otherwise, or when that call fails (the attempt is reported to
 * opts->on_attempt), the local estimate, with out->exact 0 and out->note
 * saying why. Fails (SEAM_ERR_NOT_FOUND, SEAM_ERR_INVALID) only when no
 * model can be found or the arguments are bad. req is not modified. */
SEAM_EXPORT int seam_count_tokens(seam_client *client, const seam_request *req,
                                  const seam_call_options *opts, seam_token_count *out,
                                  seam_error *err);

/* seam's local estimate of req's input tokens (system prompt, messages, tool
 * definitions; a picture or other media counts a flat 1000): no I/O, no
 * client. The same function decides the chain's context-window skip and the
 * executor's compression threshold. Its error against real counts is
 * measured in doc/tokens.md. 0 for NULL. */
SEAM_EXPORT int64_t seam_estimate_tokens(const seam_request *req);

#ifdef __cplusplus
}
#endif
#endif /* SEAM_EMBED_H */
