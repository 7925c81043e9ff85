/* embed.c — the Gemini API's embeddings (seam_embed): one input goes to
 * models/{model}:embedContent, several to models/{model}:batchEmbedContents,
 * which answers them in request order. Reference: ai.google.dev/api/embeddings
 * (EmbedContentRequest: content, taskType, title, outputDimensionality;
 * BatchEmbedContentsRequest: requests[], each naming the same model;
 * responses {"embedding":{"values":[...]}} and {"embeddings":[{"values":[...]}]}).
 * The API reports no token counts for embeddings, so the usage is absent (and
 * the cost unknown) unless a body carries usageMetadata.promptTokenCount.
 * The provider option `taskType` (RETRIEVAL_QUERY, SEMANTIC_SIMILARITY,
 * ...) is sent as taskType. */
#include "config.h"

#include <stdio.h>

#include "internal.h"

char *gemini_model_url(const gemini_instance *g, const char *model, const char *method)
{
    /* "models/x" and "tunedModels/x" are full resource names; a bare id is a model. */
    const char *collection = strncmp(model, "models/", 7) == 0 ||
                                     strncmp(model, "tunedModels/", 12) == 0
                                 ? ""
                                 : "models/";
    size_t n = strlen(g->base_url) + strlen(collection) + strlen(model) + strlen(method) + 3;
    char *url = malloc(n);
    if (url)
        snprintf(url, n, "%s/%s%s:%s", g->base_url, collection, model, method);
    return url;
}

int gemini_model_id_ok(const char *model)
{
    if (!model || !*model)
        return 0;
    for (const char *p = model; *p; p++)
        if (*p == '?' || *p == '#' || *p == ':' || *p == ' ' || (unsigned char)*p < 0x20)
            return 0;
    return 1;
}

/* {"parts":[{"text":T}]} */
static json_object *text_content(const char *text)
{
    json_object *content = json_object_new_object();
    json_object *parts = json_object_new_array();
    json_object *part = json_object_new_object();
    if (!content || !parts || !part || !jadd(part, "text", json_object_new_string(text)) ||
        !jpush(parts, part) || !jadd(content, "parts", parts)) {
        json_object_put(content);
        return NULL;
    }
    return content;
}

/* One EmbedContentRequest: its content, and what the call asks of every input. */
static json_object *embed_request(const char *resource, const char *text, int64_t dims,
                                  const char *task_type)
{
    json_object *r = json_object_new_object();
    if (!r)
        return NULL;
    int ok = 1;
    if (resource)
        ok &= jadd(r, "model", json_object_new_string(resource));
    ok &= jadd(r, "content", text_content(text));
    if (task_type)
        ok &= jadd(r, "taskType", json_object_new_string(task_type));
    if (dims > 0)
        ok &= jadd(r, "outputDimensionality", json_object_new_int64(dims));
    if (!ok) {
        json_object_put(r);
        return NULL;
    }
    return r;
}

int gemini_embed_encode(void *instance, const seam_embed_request *er, seam_http_request *out,
                        seam_error *err)
{
    const gemini_instance *g = instance;
    const char *model = seam_embed_request_model(er);
    size_t n = seam_embed_request_count(er);
    if (!gemini_model_id_ok(model)) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "gemini: the model name is missing or not a "
                                                    "Gemini model id");
        return SEAM_ERR_INVALID;
    }
    json_object *options = parse_json(g->options_json);
    const char *task_type = jstr(options, "taskType");
    int64_t dims = seam_embed_request_dimensions(er);
    char resource[512];
    snprintf(resource, sizeof resource, "%s%s",
             strncmp(model, "models/", 7) == 0 || strncmp(model, "tunedModels/", 12) == 0 ? ""
                                                                                         : "models/",
             model);
    json_object *body = NULL;
    if (n == 1) {
        body = embed_request(NULL, seam_embed_request_text(er, 0), dims, task_type);
    } else {
        body = json_object_new_object();
        json_object *requests = json_object_new_array();
        int ok = body && requests;
        for (size_t i = 0; ok && i < n; i++)
            ok = jpush(requests, embed_request(resource, seam_embed_request_text(er, i), dims,
                                               task_type));
        if (!ok || !jadd(body, "requests", requests)) {
            if (!ok)
                json_object_put(requests);
            json_object_put(body);
            body = NULL;
        }
    }
    char *url = gemini_model_url(g, model, n == 1 ? "embedContent" : "batchEmbedContents");
    size_t len = 0;
    const char *text = body ? json_object_to_json_string_length(body, JSON_OUT_FLAGS, &len) : NULL;
    int rc = SEAM_OK;
    if (!text || !url || seam_http_request_set_url(out, url) != SEAM_OK ||
        seam_http_request_add_header(out, "Content-Type", "application/json") != SEAM_OK ||
        seam_http_request_add_secret_header(out, "x-goog-api-key", NULL) != SEAM_OK ||
        seam_http_request_set_body(out, text, len) != SEAM_OK)
        rc = nomem(err);
    free(url);
    json_object_put(body);
    json_object_put(options);
    return rc;
}

static int malformed(seam_error *err, const char *what)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "gemini: malformed embeddings: %s", what);
    seam_strlcpy(err->code, "bad_response", sizeof err->code);
    return SEAM_ERR_PROVIDER;
}

/* {"values":[...]} -> vector i. */
static int take_values(json_object *embedding, size_t i, seam_embeddings *out, seam_error *err)
{
    json_object *values = jget(embedding, "values");
    size_t dims = jis(values, json_type_array) ? json_object_array_length(values) : 0;
    if (!dims)
        return malformed(err, "an embedding without values");
    float *v = malloc(dims * sizeof *v);
    if (!v)
        return nomem(err);
    for (size_t k = 0; k < dims; k++)
        v[k] = (float)json_object_get_double(json_object_array_get_idx(values, k));
    int rc = seam_embeddings_set_vector(out, i, v, dims);
    free(v);
    if (rc == SEAM_ERR_NOMEM)
        return nomem(err);
    return rc == SEAM_OK ? SEAM_OK : malformed(err, "a value out of range");
}

int gemini_embed_decode(void *instance, const seam_embed_request *er, const char *body,
                        size_t len, seam_embeddings *out, seam_error *err)
{
    (void)instance;
    json_object *root = parse_json_len(body, len);
    if (!jis(root, json_type_object)) {
        json_object_put(root);
        return malformed(err, "the body is not a JSON object");
    }
    int rc = SEAM_OK;
    json_object *list = jget(root, "embeddings");
    if (seam_embed_request_count(er) == 1 && jget(root, "embedding")) {
        rc = take_values(jget(root, "embedding"), 0, out, err);
    } else if (jis(list, json_type_array)) {
        /* In request order: the answer has no index of its own. */
        size_t n = json_object_array_length(list);
        if (n != seam_embed_request_count(er))
            rc = malformed(err, "not one embedding per input");
        for (size_t i = 0; rc == SEAM_OK && i < n; i++)
            rc = take_values(json_object_array_get_idx(list, i), i, out, err);
    } else {
        rc = malformed(err, "no embedding");
    }
    int64_t tokens;
    if (rc == SEAM_OK && jint64(jget(root, "usageMetadata"), "promptTokenCount", &tokens)) {
        seam_usage u = {.present = SEAM_USAGE_INPUT, .input_tokens = tokens};
        rc = seam_embeddings_set_usage(out, &u);
    }
    json_object_put(root);
    return rc;
}
