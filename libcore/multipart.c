/* multipart.c — multipart/form-data bodies (RFC 7578) for upload endpoints
 * (OpenAI's /audio/transcriptions): the parts a codec adds to its HTTP
 * request, and the body the core writes from them after encode.
 *
 * The core writes the body itself rather than handing the parts to libcurl's
 * mime API: the request then stays one byte string like every other, so the
 * `serve` hook, record and replay (cassettes match on the body) and the
 * error paths see what is sent, with no second code path in the transport.
 * The boundary is a fixed string with a counter, raised until no part holds
 * it: the same parts give the same body, so a recorded cassette replays. */
#include "config.h"
#include "transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct seam_form_part {
    char *name;
    char *filename; /* NULL: a plain field */
    char *mime;
    unsigned char *data;
    size_t len;
};

/* A header value seam writes between quotes: no quote, CR, LF or NUL. */
static int header_safe(const char *s)
{
    return s && *s && !strpbrk(s, "\"\r\n");
}

static int add_part(seam_http_request *hr, const char *name, const char *filename,
                    const char *mime, const void *data, size_t len)
{
    struct seam_form_part *f = realloc(hr->form, (hr->n_form + 1) * sizeof *f);
    if (!f)
        return SEAM_ERR_NOMEM;
    hr->form = f;
    f = &hr->form[hr->n_form];
    memset(f, 0, sizeof *f);
    f->name = strdup(name);
    f->filename = filename ? strdup(filename) : NULL;
    f->mime = mime ? strdup(mime) : NULL;
    f->data = malloc(len ? len : 1);
    if (!f->name || (filename && !f->filename) || (mime && !f->mime) || !f->data) {
        free(f->name);
        free(f->filename);
        free(f->mime);
        free(f->data);
        return SEAM_ERR_NOMEM;
    }
    if (len)
        memcpy(f->data, data, len);
    f->len = len;
    hr->n_form++;
    return SEAM_OK;
}

int seam_http_request_add_form_field(seam_http_request *hr, const char *name, const char *value)
{
    if (!hr || !header_safe(name) || !value)
        return SEAM_ERR_INVALID;
    return add_part(hr, name, NULL, NULL, value, strlen(value));
}

int seam_http_request_add_form_file(seam_http_request *hr, const char *name, const char *filename,
                                    const char *mime_type, const void *data, size_t len)
{
    if (!hr || !header_safe(name) || !header_safe(filename) || !header_safe(mime_type) ||
        (!data && len))
        return SEAM_ERR_INVALID;
    return add_part(hr, name, filename, mime_type, data, len);
}

void seam_form_release(seam_http_request *hr)
{
    for (size_t i = 0; i < hr->n_form; i++) {
        free(hr->form[i].name);
        free(hr->form[i].filename);
        free(hr->form[i].mime);
        free(hr->form[i].data);
    }
    free(hr->form);
    hr->form = NULL;
    hr->n_form = 0;
}

static int holds(const unsigned char *d, size_t n, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= n; i++)
        if (d[i] == (unsigned char)s[0] && memcmp(d + i, s, k) == 0)
            return 1;
    return 0;
}

int seam_form_finish(seam_http_request *hr, seam_error *err)
{
    if (!hr->n_form)
        return SEAM_OK;
    if (hr->body.len) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN,
                       "the provider plugin set both a body and form parts");
        return SEAM_ERR_PLUGIN;
    }
    char boundary[64];
    for (unsigned n = 0;; n++) {
        snprintf(boundary, sizeof boundary, "----seam-form-7d1c9a0b%u", n);
        int clash = 0;
        for (size_t i = 0; i < hr->n_form && !clash; i++)
            clash = holds(hr->form[i].data, hr->form[i].len, boundary);
        if (!clash)
            break;
    }
    seam_buf *b = &hr->body;
    int rc = SEAM_OK;
    for (size_t i = 0; rc == SEAM_OK && i < hr->n_form; i++) {
        const struct seam_form_part *f = &hr->form[i];
        rc = seam_buf_printf(b, "--%s\r\nContent-Disposition: form-data; name=\"%s\"", boundary,
                             f->name);
        if (rc == SEAM_OK && f->filename)
            rc = seam_buf_printf(b, "; filename=\"%s\"\r\nContent-Type: %s", f->filename,
                                 f->mime ? f->mime : "application/octet-stream");
        if (rc == SEAM_OK)
            rc = seam_buf_append(b, "\r\n\r\n", 4);
        if (rc == SEAM_OK)
            rc = seam_buf_append(b, (const char *)f->data, f->len);
        if (rc == SEAM_OK)
            rc = seam_buf_append(b, "\r\n", 2);
    }
    if (rc == SEAM_OK)
        rc = seam_buf_printf(b, "--%s--\r\n", boundary);
    char type[128];
    snprintf(type, sizeof type, "multipart/form-data; boundary=%s", boundary);
    if (rc == SEAM_OK)
        rc = seam_http_request_add_header(hr, "Content-Type", type);
    seam_form_release(hr);
    if (rc != SEAM_OK)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory writing a form body");
    return rc;
}
