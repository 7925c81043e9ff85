/* embedding.h — the embedding request and result as the core sees them
 * (embedding.c owns them; embed.c reads them while running a call). */
#ifndef SEAM_EMBEDDING_H
#define SEAM_EMBEDDING_H

#include <seam/embed.h>

struct seam_embed_request {
    char **texts;
    size_t n, cap;
    char *model;
    int64_t dimensions;
};

struct seam_embeddings {
    float **vectors;   /* n entries, NULL until set */
    size_t *dims;
    size_t n;
    seam_usage usage;
    char *provider, *model;
};

#endif
