/* transcribe.c — the mock's speech to text, offline, through the same
 * multipart upload a network provider gets (so the core's form body is
 * exercised without a server).
 *
 *   encode   the request -> mock://local/v1/audio/transcriptions, a
 *            multipart/form-data body with the parts file (the audio),
 *            model, language and prompt when given, and options (the conf's
 *            options as JSON text, for the script)
 *   serve    {"text": T, "usage": {"type":"duration","seconds": S}} where T is
 *            the script's `transcript`, else "mock transcript of N bytes of
 *            MIME" (the file part's length and type, as the server read
 *            them); S is the WAV header's duration (omitted for other types).
 *            The script's error_status (error_body, error_headers) answers
 *            with that HTTP error instead.
 *   decode   that body -> the text and the seconds. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/codec_util.h"
#include "mock_internal.h"

int mock_transcribe_encode(void *instance, const seam_transcribe_request *tr,
                           seam_http_request *out, seam_error *err)
{
    const mock_instance *m = instance;
    int rc = seam_http_request_set_url(out, MOCK_TRANSCRIBE_URL);
    if (rc == SEAM_OK)
        rc = seam_http_request_add_form_file(out, "file", tr->name ? tr->name : "audio",
                                             tr->mime_type, tr->audio, tr->audio_len);
    if (rc == SEAM_OK)
        rc = seam_http_request_add_form_field(out, "model", tr->model ? tr->model : "");
    if (rc == SEAM_OK && tr->language)
        rc = seam_http_request_add_form_field(out, "language", tr->language);
    if (rc == SEAM_OK && tr->prompt)
        rc = seam_http_request_add_form_field(out, "prompt", tr->prompt);
    if (rc == SEAM_OK)
        rc = seam_http_request_add_form_field(out, "options",
                                              m && m->options_json ? m->options_json : "{}");
    if (rc != SEAM_OK)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "mock: cannot build the upload"),
               SEAM_ERR_INVALID;
    return SEAM_OK;
}

/* A form part's bytes in a multipart body: the part named name (its
 * Content-Type in *type when given). NULL when absent. */
static const char *form_part(const char *body, size_t len, const char *boundary, const char *name,
                             size_t *part_len, char *type, size_t type_size)
{
    char head[128], delim[96];
    snprintf(head, sizeof head, "Content-Disposition: form-data; name=\"%s\"", name);
    snprintf(delim, sizeof delim, "\r\n--%s", boundary);
    const char *end = body + len;
    for (const char *p = body; p && p < end;) {
        const char *h = memmem(p, (size_t)(end - p), head, strlen(head));
        if (!h)
            return NULL;
        const char *blank = memmem(h, (size_t)(end - h), "\r\n\r\n", 4);
        if (!blank)
            return NULL;
        /* The name must end there: name="file" is not name="file2". */
        if (h[strlen(head)] != '\r' && h[strlen(head)] != ';') {
            p = h + 1;
            continue;
        }
        const char *ct = memmem(h, (size_t)(blank - h), "Content-Type: ", 14);
        if (type && type_size) {
            type[0] = '\0';
            if (ct) {
                const char *ce = memchr(ct, '\r', (size_t)(blank + 2 - ct));
                size_t n = ce ? (size_t)(ce - ct - 14) : 0;
                snprintf(type, type_size, "%.*s", (int)(n < type_size ? n : type_size - 1), ct + 14);
            }
        }
        const char *data = blank + 4;
        const char *stop = memmem(data, (size_t)(end - data), delim, strlen(delim));
        if (!stop)
            return NULL;
        *part_len = (size_t)(stop - data);
        return data;
    }
    return NULL;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int mock_transcribe_serve(void *instance, const seam_http_request *hr, seam_served *out,
                          seam_error *err)
{
    (void)instance;
    const char *ctype = seam_http_request_header(hr, "Content-Type");
    const char *b = ctype ? strstr(ctype, "boundary=") : NULL;
    size_t len = 0;
    const char *body = seam_http_request_body(hr, &len);
    size_t n = 0, on = 0;
    char type[128] = "";
    const char *audio = b ? form_part(body, len, b + 9, "file", &n, type, sizeof type) : NULL;
    const char *opts = b ? form_part(body, len, b + 9, "options", &on, NULL, 0) : NULL;
    if (!audio)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "mock: the upload has no file part"),
               SEAM_ERR_INVALID;
    json_object *options = opts ? json_parse_strict(opts, on) : NULL;
    json_object *request = json_object_new_object();
    if (options && request)
        json_object_object_add(request, "options", json_object_get(options));
    int rc = request ? mock_serve_script_error(request, out, err) : SEAM_ERR_NOMEM;
    json_object_put(request);
    if (rc != 0) {
        json_object_put(options);
        return rc > 0 ? SEAM_OK : rc;
    }
    char text[256];
    const char *scripted = jstr(options, "transcript");
    if (scripted)
        snprintf(text, sizeof text, "%s", scripted);
    else
        snprintf(text, sizeof text, "mock transcript of %zu bytes of %s", n, type);
    json_object *root = json_object_new_object();
    json_object_object_add(root, "text", json_object_new_string(text));
    const unsigned char *w = (const unsigned char *)audio;
    if (n >= 44 && memcmp(w, "RIFF", 4) == 0 && memcmp(w + 8, "WAVEfmt ", 8) == 0 &&
        memcmp(w + 36, "data", 4) == 0 && le32(w + 28) > 0) {
        json_object *usage = json_object_new_object();
        json_object_object_add(usage, "type", json_object_new_string("duration"));
        json_object_object_add(usage, "seconds",
                               json_object_new_double((double)(n - 44) / le32(w + 28)));
        json_object_object_add(root, "usage", usage);
    }
    json_object_put(options);
    const char *answer = json_object_to_json_string_ext(root, JSON_FLAGS);
    rc = seam_served_set_status(out, 200);
    if (rc == SEAM_OK)
        rc = seam_served_add_header(out, "Content-Type", "application/json");
    if (rc == SEAM_OK)
        rc = seam_served_add_piece(out, answer, strlen(answer), 0);
    json_object_put(root);
    if (rc != SEAM_OK)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory"), SEAM_ERR_NOMEM;
    return SEAM_OK;
}

int mock_transcribe_decode(void *instance, const seam_transcribe_request *tr, const char *body,
                           size_t len, seam_transcription *out, seam_error *err)
{
    (void)instance;
    (void)tr;
    json_object *root = json_parse_strict(body, len);
    const char *text = jstr(root, "text");
    json_object *secs = jget(jget(root, "usage"), "seconds");
    int rc = text ? seam_transcription_set_text(out, text) : SEAM_ERR_INVALID;
    if (rc == SEAM_OK && secs)
        seam_transcription_set_seconds(out, json_object_get_double(secs));
    json_object_put(root);
    if (rc != SEAM_OK)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: a transcription without text"),
               SEAM_ERR_PROVIDER;
    return SEAM_OK;
}
