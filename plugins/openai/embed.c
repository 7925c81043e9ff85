/* embed.c — OpenAI-compatible embeddings (seam_embed): POST {base}/embeddings
 * with {"model", "input": [texts], "dimensions"}, answered
 * {"object":"list","data":[{"object":"embedding","index":i,"embedding":[...]}],
 * "model","usage":{"prompt_tokens","total_tokens"}} (OpenAI's API reference,
 * "Create embeddings": developers.openai.com/api/reference/resources/embeddings).
 * The profiles whose servers offer the endpoint: openai, mistral (which names
 * the length output_dimension), openrouter, ollama and vllm, and any server
 * without a profile of its own; deepseek, groq and xai have none, and the
 * entry is skipped. The conf's body options are a chat escape hatch and are
 * not merged here; the extra headers are sent. A vector may come as a base64
 * string of little-endian float32 (encoding_format "base64"): it is decoded. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int no_embeddings(const oa_instance *in)
{
    const char *id = in->profile ? in->profile->id : "";
    return strcmp(id, "deepseek") == 0 || strcmp(id, "groq") == 0 || strcmp(id, "xai") == 0;
}

int oa_embed_encode(void *instance, const seam_embed_request *er, seam_http_request *out,
                    seam_error *err)
{
    const oa_instance *in = instance;
    const char *model = seam_embed_request_model(er);
    if (no_embeddings(in))
        return oa_bad_request(err, "the %s profile's server has no embeddings endpoint",
                              in->profile->id);
    if (!model || !*model)
        return oa_bad_request(err, "no model for the embeddings");
    json_object *body = json_object_new_object();
    json_object *input = json_object_new_array();
    int ok = body && input;
    for (size_t i = 0; ok && i < seam_embed_request_count(er); i++) {
        json_object *t = json_object_new_string(seam_embed_request_text(er, i));
        if (!t || json_object_array_add(input, t) != 0) {
            json_object_put(t);
            ok = 0;
        }
    }
    ok = ok && json_object_object_add(body, "model", json_object_new_string(model)) == 0;
    if (ok && json_object_object_add(body, "input", input) == 0)
        input = NULL;
    else
        ok = 0;
    int64_t dims = seam_embed_request_dimensions(er);
    if (ok && dims > 0) {
        const char *key = in->profile && strcmp(in->profile->id, "mistral") == 0
                              ? "output_dimension"
                              : "dimensions";
        ok = json_object_object_add(body, key, json_object_new_int64(dims)) == 0;
    }
    const char *text = ok ? json_text(body) : NULL;
    strbuf url = {0};
    sb_puts(&url, in->base_url);
    sb_puts(&url, "/embeddings");
    int rc = text && !url.failed ? SEAM_OK : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK)
        rc = seam_http_request_set_url(out, url.data);
    if (rc == SEAM_OK)
        rc = seam_http_request_set_body(out, text, strlen(text));
    if (rc == SEAM_OK)
        rc = seam_http_request_add_header(out, "Content-Type", "application/json");
    if (rc == SEAM_OK)
        rc = oa_add_auth(in, out);
    if (rc == SEAM_OK && in->headers_json) {
        json_object *h = json_parse_strict(in->headers_json, strlen(in->headers_json));
        json_object_object_foreach(h, hk, hv)
        {
            if (rc == SEAM_OK)
                rc = seam_http_request_add_header(out, hk, json_object_get_string(hv));
        }
        json_object_put(h);
    }
    sb_free(&url);
    json_object_put(input);
    json_object_put(body);
    if (rc != SEAM_OK)
        return oa_nomem(err);
    return SEAM_OK;
}

static int malformed(seam_error *err, const char *what)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "openai: malformed embeddings: %s", what);
    seam_strlcpy(err->code, "bad_response", sizeof err->code);
    return SEAM_ERR_PROVIDER;
}

static int b64_value(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* A base64 string of little-endian float32 values -> v (malloc'ed), *n values. */
static int decode_base64_floats(const char *s, float **v, size_t *n)
{
    size_t len = strlen(s);
    unsigned char *bytes = malloc(len / 4 * 3 + 3);
    if (!bytes)
        return SEAM_ERR_NOMEM;
    size_t nb = 0;
    unsigned acc = 0;
    int bits = 0;
    for (const char *p = s; *p && *p != '='; p++) {
        int d = b64_value((unsigned char)*p);
        if (d < 0) {
            free(bytes);
            return SEAM_ERR_INVALID;
        }
        acc = (acc << 6) | (unsigned)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            bytes[nb++] = (unsigned char)(acc >> bits);
        }
    }
    if (nb == 0 || nb % 4) {
        free(bytes);
        return SEAM_ERR_INVALID;
    }
    *n = nb / 4;
    *v = malloc(*n * sizeof **v);
    if (!*v) {
        free(bytes);
        return SEAM_ERR_NOMEM;
    }
    for (size_t i = 0; i < *n; i++) {
        uint32_t u = (uint32_t)bytes[4 * i] | (uint32_t)bytes[4 * i + 1] << 8 |
                     (uint32_t)bytes[4 * i + 2] << 16 | (uint32_t)bytes[4 * i + 3] << 24;
        memcpy(&(*v)[i], &u, sizeof u);
    }
    free(bytes);
    return SEAM_OK;
}

int oa_embed_decode(void *instance, const seam_embed_request *er, const char *body, size_t len,
                    seam_embeddings *out, seam_error *err)
{
    (void)instance;
    (void)er;
    json_object *root = json_parse_strict(body, len);
    json_object *data = jget(root, "data");
    if (!jis(data, json_type_array)) {
        json_object_put(root);
        return malformed(err, "no data");
    }
    int rc = SEAM_OK;
    for (size_t i = 0; rc == SEAM_OK && i < json_object_array_length(data); i++) {
        json_object *item = json_object_array_get_idx(data, i);
        json_object *emb = jget(item, "embedding");
        int64_t index = (int64_t)i; /* in order when a server leaves index out */
        if (jget(item, "index") && (!jint(item, "index", &index) || index < 0)) {
            rc = malformed(err, "a bad index");
            break;
        }
        float *v = NULL;
        size_t dims = 0;
        if (jis(emb, json_type_array) && (dims = json_object_array_length(emb)) > 0) {
            v = malloc(dims * sizeof *v);
            if (!v) {
                rc = oa_nomem(err);
                break;
            }
            for (size_t k = 0; k < dims; k++)
                v[k] = (float)json_object_get_double(json_object_array_get_idx(emb, k));
        } else if (jis(emb, json_type_string)) {
            int d = decode_base64_floats(json_object_get_string(emb), &v, &dims);
            if (d == SEAM_ERR_NOMEM) {
                rc = oa_nomem(err);
                break;
            }
            if (d != SEAM_OK) {
                rc = malformed(err, "an embedding that is not base64 float32");
                break;
            }
        } else {
            rc = malformed(err, "an item without an embedding");
            break;
        }
        int set = seam_embeddings_set_vector(out, (size_t)index, v, dims);
        free(v);
        if (set == SEAM_ERR_NOMEM)
            rc = oa_nomem(err);
        else if (set != SEAM_OK)
            rc = malformed(err, "an index past the inputs or a value out of range");
    }
    int64_t tokens;
    if (rc == SEAM_OK && jint(jget(root, "usage"), "prompt_tokens", &tokens)) {
        seam_usage u = {.present = SEAM_USAGE_INPUT, .input_tokens = tokens};
        rc = seam_embeddings_set_usage(out, &u);
    }
    json_object_put(root);
    return rc;
}
