/* embedding.c — the embedding request (the inputs, the model, the length
 * asked for) and its result (one vector per input, the usage, who answered):
 * plain data shared by applications, the core and the plugins that encode and
 * decode them. No client here: the fuzz harnesses and the plugins' tests link
 * it with the type modules alone. The call itself is embed.c's. */
#include "config.h"
#include "internal.h"
#include "embedding.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Bounds that keep one vector's allocation sane whatever a server sends. */
#define MAX_DIMENSIONS ((size_t)1 << 20)

/* ---- the request ------------------------------------------------------------------ */

seam_embed_request *seam_embed_request_new(void)
{
    return calloc(1, sizeof(seam_embed_request));
}

void seam_embed_request_free(seam_embed_request *er)
{
    if (!er)
        return;
    for (size_t i = 0; i < er->n; i++)
        free(er->texts[i]);
    free(er->texts);
    free(er->model);
    free(er);
}

int seam_embed_request_add_text(seam_embed_request *er, const char *text)
{
    if (!er || !text)
        return SEAM_ERR_INVALID;
    if (er->n == er->cap) {
        size_t cap = er->cap ? er->cap * 2 : 4;
        char **t = realloc(er->texts, cap * sizeof *t);
        if (!t)
            return SEAM_ERR_NOMEM;
        er->texts = t;
        er->cap = cap;
    }
    char *copy = strdup(text);
    if (!copy)
        return SEAM_ERR_NOMEM;
    er->texts[er->n++] = copy;
    return SEAM_OK;
}

int seam_embed_request_set_model(seam_embed_request *er, const char *model)
{
    if (!er)
        return SEAM_ERR_INVALID;
    char *copy = NULL;
    if (model && !(copy = strdup(model)))
        return SEAM_ERR_NOMEM;
    free(er->model);
    er->model = copy;
    return SEAM_OK;
}

int seam_embed_request_set_dimensions(seam_embed_request *er, int64_t dimensions)
{
    if (!er || dimensions < 0 || (uint64_t)dimensions > MAX_DIMENSIONS)
        return SEAM_ERR_INVALID;
    er->dimensions = dimensions;
    return SEAM_OK;
}

size_t seam_embed_request_count(const seam_embed_request *er)
{
    return er ? er->n : 0;
}

const char *seam_embed_request_text(const seam_embed_request *er, size_t i)
{
    return er && i < er->n ? er->texts[i] : NULL;
}

const char *seam_embed_request_model(const seam_embed_request *er)
{
    return er ? er->model : NULL;
}

int64_t seam_embed_request_dimensions(const seam_embed_request *er)
{
    return er ? er->dimensions : 0;
}

/* ---- the result ----------------------------------------------------------------------- */

seam_embeddings *seam_embeddings_new(size_t count)
{
    seam_embeddings *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    if (count) {
        e->vectors = calloc(count, sizeof *e->vectors);
        e->dims = calloc(count, sizeof *e->dims);
        if (!e->vectors || !e->dims) {
            free(e->vectors);
            free(e->dims);
            free(e);
            return NULL;
        }
    }
    e->n = count;
    return e;
}

void seam_embeddings_free(seam_embeddings *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->n; i++)
        free(e->vectors[i]);
    free(e->vectors);
    free(e->dims);
    free(e->provider);
    free(e->model);
    free(e);
}

size_t seam_embeddings_count(const seam_embeddings *e)
{
    return e ? e->n : 0;
}

const float *seam_embeddings_vector(const seam_embeddings *e, size_t i, size_t *dimensions)
{
    if (dimensions)
        *dimensions = 0;
    if (!e || i >= e->n || !e->vectors[i])
        return NULL;
    if (dimensions)
        *dimensions = e->dims[i];
    return e->vectors[i];
}

const seam_usage *seam_embeddings_usage(const seam_embeddings *e)
{
    return e ? &e->usage : NULL;
}

const char *seam_embeddings_provider(const seam_embeddings *e)
{
    return e ? e->provider : NULL;
}

const char *seam_embeddings_model(const seam_embeddings *e)
{
    return e ? e->model : NULL;
}

int seam_embeddings_set_vector(seam_embeddings *e, size_t i, const float *values, size_t dimensions)
{
    if (!e || i >= e->n || !values || dimensions == 0 || dimensions > MAX_DIMENSIONS)
        return SEAM_ERR_INVALID;
    for (size_t k = 0; k < dimensions; k++)
        if (!isfinite(values[k]))
            return SEAM_ERR_INVALID;
    float *copy = malloc(dimensions * sizeof *copy);
    if (!copy)
        return SEAM_ERR_NOMEM;
    memcpy(copy, values, dimensions * sizeof *copy);
    free(e->vectors[i]);
    e->vectors[i] = copy;
    e->dims[i] = dimensions;
    return SEAM_OK;
}

int seam_embeddings_set_usage(seam_embeddings *e, const seam_usage *usage)
{
    if (!e || !usage)
        return SEAM_ERR_INVALID;
    e->usage = *usage;
    seam_usage_sanitize(&e->usage);
    return SEAM_OK;
}

