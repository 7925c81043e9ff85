/* embed.c — the mock's embeddings: deterministic vectors, offline.
 *
 *   encode   the embedding request -> mock://local/v1/embeddings with the
 *            body {"model":M,"input":[T...],"dimensions":N,"options":{...}}
 *            (dimensions only when asked; options: the conf's, for the script)
 *   serve    {"data":[{"index":i,"embedding":[...]}...],"usage":{"input_tokens":W}}
 *            where each vector is a function of its text and length only:
 *            FNV-1a of the text seeds splitmix64, whose outputs in [-1, 1)
 *            are scaled to unit length. W is the words of every input. The
 *            length is the request's dimensions, else the script's
 *            `embed_dimensions`, else 16. The script's error_status (and
 *            error_body, error_headers) answers with that HTTP error instead.
 *   decode   that body -> seam_embeddings_set_vector per item, the usage.
 *
 * A model whose id contains "embed" (mock-embed) is the mock's embedding
 * model: its capabilities say so, and the others' say they do not embed. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/codec_util.h"
#include "mock_internal.h"

#define DEFAULT_DIMENSIONS 16
#define MAX_DIMENSIONS 4096

static int put_new(json_object *o, const char *key, json_object *v)
{
    if (!o || !v || json_object_object_add(o, key, v) != 0) {
        json_object_put(v);
        return -1;
    }
    return 0;
}

int mock_embed_encode(void *instance, const seam_embed_request *er, seam_http_request *out,
                      seam_error *err)
{
    const mock_instance *m = instance;
    json_object *root = json_object_new_object();
    json_object *input = json_object_new_array();
    int rc = root && input ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < seam_embed_request_count(er); i++) {
        json_object *t = json_object_new_string(seam_embed_request_text(er, i));
        if (!t || json_object_array_add(input, t) != 0) {
            json_object_put(t);
            rc = -1;
        }
    }
    const char *model = seam_embed_request_model(er);
    rc |= put_new(root, "model", json_object_new_string(model ? model : ""));
    rc |= put_new(root, "input", input);
    input = NULL;
    if (seam_embed_request_dimensions(er) > 0)
        rc |= put_new(root, "dimensions", json_object_new_int64(seam_embed_request_dimensions(er)));
    const char *opts = m && m->options_json ? m->options_json : "{}";
    rc |= put_new(root, "options", json_parse_strict(opts, strlen(opts)));
    json_object_put(input);
    const char *text = rc == 0 ? json_object_to_json_string_ext(root, JSON_FLAGS) : NULL;
    int status = text ? SEAM_OK : SEAM_ERR_NOMEM;
    if (status == SEAM_OK)
        status = seam_http_request_set_url(out, MOCK_EMBED_URL);
    if (status == SEAM_OK)
        status = seam_http_request_add_header(out, "Content-Type", "application/json");
    if (status == SEAM_OK)
        status = seam_http_request_add_secret_header(out, "Authorization", "Bearer ");
    if (status == SEAM_OK)
        status = seam_http_request_set_body(out, text, strlen(text));
    json_object_put(root);
    if (status != SEAM_OK)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: cannot build the embedding request");
    return status;
}

/* ---- serve ----------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The vector of text: the same text and length give the same vector, on any
 * machine (no libm function whose last bit may differ between builds besides
 * sqrt, which IEEE 754 rounds exactly). */
static json_object *vector_of(const char *text, int64_t dims)
{
    uint64_t seed = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        seed ^= *p;
        seed *= 0x100000001b3ULL;
    }
    double *v = malloc((size_t)dims * sizeof *v);
    json_object *arr = json_object_new_array();
    if (!v || !arr) {
        free(v);
        json_object_put(arr);
        return NULL;
    }
    double norm = 0;
    for (int64_t k = 0; k < dims; k++) {
        v[k] = (double)(splitmix64(&seed) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        norm += v[k] * v[k];
    }
    norm = sqrt(norm);
    for (int64_t k = 0; k < dims; k++) {
        json_object *x = json_object_new_double(norm > 0 ? v[k] / norm : 0);
        if (!x || json_object_array_add(arr, x) != 0) {
            json_object_put(x);
            json_object_put(arr);
            arr = NULL;
            break;
        }
    }
    free(v);
    return arr;
}

static int64_t words_of(const char *s)
{
    int64_t n = 0;
    int in_word = 0;
    for (; *s; s++) {
        int space = *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r';
        if (!space && !in_word)
            n++;
        in_word = !space;
    }
    return n;
}

int mock_embed_serve(void *instance, const seam_http_request *hr, seam_served *out,
                     seam_error *err)
{
    (void)instance;
    size_t len = 0;
    const char *body = seam_http_request_body(hr, &len);
    json_object *request = body ? json_parse_strict(body, len) : NULL;
    json_object *input = jget(request, "input");
    if (!request || !input || !json_object_is_type(input, json_type_array)) {
        json_object_put(request);
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "mock: the embedding request is not JSON"),
               SEAM_ERR_INVALID;
    }
    int rc = mock_serve_script_error(request, out, err);
    if (rc != 0) {
        json_object_put(request);
        return rc > 0 ? SEAM_OK : rc;
    }
    int64_t dims = DEFAULT_DIMENSIONS, asked = 0;
    if (jint(jget(request, "options"), "embed_dimensions", &asked) && asked > 0)
        dims = asked;
    if (jint(request, "dimensions", &asked) && asked > 0)
        dims = asked;
    if (dims > MAX_DIMENSIONS) {
        json_object_put(request);
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "mock: at most %d dimensions",
                              MAX_DIMENSIONS), SEAM_ERR_INVALID;
    }
    json_object *root = json_object_new_object();
    json_object *data = json_object_new_array();
    int failed = !root || !data;
    int64_t words = 0;
    for (size_t i = 0; !failed && i < json_object_array_length(input); i++) {
        const char *text = json_object_get_string(json_object_array_get_idx(input, i));
        words += words_of(text ? text : "");
        json_object *item = json_object_new_object();
        failed |= put_new(item, "index", json_object_new_int64((int64_t)i)) != 0;
        failed |= put_new(item, "embedding", vector_of(text ? text : "", dims)) != 0;
        if (!item || json_object_array_add(data, item) != 0) {
            json_object_put(item);
            failed = 1;
        }
    }
    json_object *usage = json_object_new_object();
    failed |= put_new(usage, "input_tokens", json_object_new_int64(words)) != 0;
    failed |= put_new(root, "data", data) != 0;
    failed |= put_new(root, "usage", usage) != 0;
    const char *text = failed ? NULL : json_object_to_json_string_ext(root, JSON_FLAGS);
    rc = text ? seam_served_set_status(out, 200) : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK)
        rc = seam_served_add_header(out, "Content-Type", "application/json");
    if (rc == SEAM_OK)
        rc = seam_served_add_piece(out, text, strlen(text), 0);
    json_object_put(root);
    json_object_put(request);
    if (rc != SEAM_OK)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory");
    return rc;
}

/* ---- decode ----------------------------------------------------------------------- */

static int malformed(seam_error *err, const char *what)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: malformed embeddings: %s", what);
    seam_strlcpy(err->code, "bad_response", sizeof err->code);
    return SEAM_ERR_PROVIDER;
}

int mock_embed_decode(void *instance, const seam_embed_request *er, const char *body, size_t len,
                      seam_embeddings *out, seam_error *err)
{
    (void)instance;
    (void)er;
    json_object *root = json_parse_strict(body, len);
    json_object *data = jget(root, "data");
    if (!data || !json_object_is_type(data, json_type_array)) {
        json_object_put(root);
        return malformed(err, "no data");
    }
    int rc = SEAM_OK;
    float *v = NULL;
    for (size_t i = 0; rc == SEAM_OK && i < json_object_array_length(data); i++) {
        json_object *item = json_object_array_get_idx(data, i);
        json_object *emb = jget(item, "embedding");
        int64_t index;
        if (!jint(item, "index", &index) || index < 0 || !emb ||
            !json_object_is_type(emb, json_type_array) || json_object_array_length(emb) == 0) {
            rc = malformed(err, "an item without index or embedding");
            break;
        }
        size_t dims = json_object_array_length(emb);
        float *nv = realloc(v, dims * sizeof *nv);
        if (!nv) {
            seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory"), rc = SEAM_ERR_NOMEM;
            break;
        }
        v = nv;
        for (size_t k = 0; k < dims; k++)
            v[k] = (float)json_object_get_double(json_object_array_get_idx(emb, k));
        int set = seam_embeddings_set_vector(out, (size_t)index, v, dims);
        if (set == SEAM_ERR_NOMEM)
            seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory"), rc = SEAM_ERR_NOMEM;
        else if (set != SEAM_OK)
            rc = malformed(err, "an index past the inputs or a value out of range");
    }
    free(v);
    int64_t tokens;
    if (rc == SEAM_OK && jint(jget(root, "usage"), "input_tokens", &tokens)) {
        seam_usage u = { .present = SEAM_USAGE_INPUT, .input_tokens = tokens };
        rc = seam_embeddings_set_usage(out, &u);
    }
    json_object_put(root);
    return rc;
}
