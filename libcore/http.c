/* http.c — the plain-data objects a codec fills or reads: the HTTP request it
 * encodes (URL, method, headers with secrets kept apart, body, framing), the
 * response headers it classifies, the emitter it decodes into, and the served
 * response of an in-process provider. */
#include "config.h"
#include "transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A header's name and value are one block (the value after the name's NUL):
 * a request has a handful of headers and a response a dozen, each added once. */
int seam_http_headers_add(seam_http_headers *h, const char *name, size_t name_len,
                          const char *value, size_t value_len, int secret)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 8;
        seam_header *items = realloc(h->items, cap * sizeof *items);
        if (!items)
            return SEAM_ERR_NOMEM;
        h->items = items;
        h->cap = cap;
    }
    char *n = malloc(name_len + value_len + 2);
    if (!n)
        return SEAM_ERR_NOMEM;
    memcpy(n, name, name_len);
    n[name_len] = '\0';
    char *v = n + name_len + 1;
    memcpy(v, value, value_len);
    v[value_len] = '\0';
    h->items[h->n].name = n;
    h->items[h->n].value = v;
    h->items[h->n].secret = secret;
    h->n++;
    return SEAM_OK;
}

void seam_http_headers_release(seam_http_headers *h)
{
    for (size_t i = 0; i < h->n; i++) {
        if (h->items[i].secret)
            explicit_bzero(h->items[i].value, strlen(h->items[i].value));
        free(h->items[i].name); /* the value too */
    }
    free(h->items);
    h->items = NULL;
    h->n = h->cap = 0;
}

const char *seam_http_headers_get(const seam_http_headers *h, const char *name)
{
    if (!h || !name)
        return NULL;
    for (size_t i = 0; i < h->n; i++)
        if (seam_strcaseeq(h->items[i].name, name))
            return h->items[i].secret ? "<redacted>" : h->items[i].value;
    return NULL;
}

size_t seam_http_headers_count(const seam_http_headers *h)
{
    return h ? h->n : 0;
}

int seam_http_headers_at(const seam_http_headers *h, size_t i, const char **name, const char **value)
{
    if (!h || i >= h->n)
        return SEAM_ERR_INVALID;
    if (name)
        *name = h->items[i].name;
    if (value)
        *value = h->items[i].secret ? "<redacted>" : h->items[i].value;
    return SEAM_OK;
}

void seam_http_request_init(seam_http_request *hr, const char *credential, int streaming,
                            seam_framing framing)
{
    memset(hr, 0, sizeof *hr);
    hr->credential = credential;
    hr->streaming = streaming;
    hr->framing = framing ? framing : SEAM_FRAMING_SSE;
}

void seam_http_request_release(seam_http_request *hr)
{
    free(hr->url);
    seam_http_headers_release(&hr->headers);
    seam_buf_free(&hr->body);
    seam_form_release(hr);
    for (size_t i = 0; i < hr->n_warnings; i++)
        free(hr->warnings[i]);
    free(hr->warnings);
    hr->warnings = NULL;
    hr->n_warnings = 0;
}

/* A codec's note about the request (an option it dropped): kept for the
 * transport, which logs it. A bounded number, so a codec in a loop cannot
 * grow it without end. */
int seam_http_request_warn(seam_http_request *hr, const char *message)
{
    if (!hr || !message)
        return SEAM_ERR_INVALID;
    if (hr->n_warnings >= 32)
        return SEAM_OK;
    char **w = realloc(hr->warnings, (hr->n_warnings + 1) * sizeof *w);
    if (!w)
        return SEAM_ERR_NOMEM;
    hr->warnings = w;
    if (!(w[hr->n_warnings] = strdup(message)))
        return SEAM_ERR_NOMEM;
    hr->n_warnings++;
    return SEAM_OK;
}

int seam_http_request_set_url(seam_http_request *hr, const char *url)
{
    if (!hr || !url)
        return SEAM_ERR_INVALID;
    char *u = strdup(url);
    if (!u)
        return SEAM_ERR_NOMEM;
    free(hr->url);
    hr->url = u;
    return SEAM_OK;
}

int seam_http_request_set_method(seam_http_request *hr, seam_http_method m)
{
    if (!hr || (m != SEAM_HTTP_POST && m != SEAM_HTTP_GET))
        return SEAM_ERR_INVALID;
    hr->method = m;
    return SEAM_OK;
}

/* A header name or value with CR or LF would let a codec (or a conf value it
 * copies) inject headers: refuse it. */
static int header_text_ok(const char *s)
{
    return s && !strpbrk(s, "\r\n");
}

int seam_http_request_add_header(seam_http_request *hr, const char *name, const char *value)
{
    if (!hr || !header_text_ok(name) || !*name || !header_text_ok(value) || strchr(name, ':'))
        return SEAM_ERR_INVALID;
    return seam_http_headers_add(&hr->headers, name, strlen(name), value, strlen(value), 0);
}

int seam_http_request_add_secret_header(seam_http_request *hr, const char *name,
                                        const char *value_prefix)
{
    if (!hr || !header_text_ok(name) || !*name || strchr(name, ':') ||
        (value_prefix && !header_text_ok(value_prefix)))
        return SEAM_ERR_INVALID;
    if (!hr->credential)
        return SEAM_OK;
    if (!header_text_ok(hr->credential))
        return SEAM_ERR_INVALID;
    seam_buf v = { 0 };
    if (seam_buf_puts(&v, value_prefix) != SEAM_OK || seam_buf_puts(&v, hr->credential) != SEAM_OK) {
        seam_secret_free(v.data);
        return SEAM_ERR_NOMEM;
    }
    int rc = seam_http_headers_add(&hr->headers, name, strlen(name), v.data, v.len, 1);
    seam_secret_free(v.data);
    return rc;
}

int seam_http_request_set_body(seam_http_request *hr, const char *body, size_t len)
{
    if (!hr || (!body && len))
        return SEAM_ERR_INVALID;
    seam_buf_reset(&hr->body);
    return seam_buf_append(&hr->body, body ? body : "", len);
}

int seam_http_request_take_body(seam_http_request *hr, char *body, size_t len)
{
    if (!hr || !body)
        return SEAM_ERR_INVALID;
    seam_buf_free(&hr->body);
    /* The buffer must be NUL-terminated for readers; re-home it if it is not. */
    int rc = seam_buf_append(&hr->body, body, len);
    free(body);
    return rc;
}

int seam_http_request_set_framing(seam_http_request *hr, seam_framing f)
{
    if (!hr || f < SEAM_FRAMING_SSE || f > SEAM_FRAMING_RAW)
        return SEAM_ERR_INVALID;
    hr->framing = f;
    return SEAM_OK;
}

const char *seam_http_request_url(const seam_http_request *hr)
{
    return hr ? hr->url : NULL;
}

const char *seam_http_request_body(const seam_http_request *hr, size_t *len)
{
    if (len)
        *len = hr ? hr->body.len : 0;
    return hr ? (hr->body.data ? hr->body.data : "") : NULL;
}

const char *seam_http_request_header(const seam_http_request *hr, const char *name)
{
    return hr ? seam_http_headers_get(&hr->headers, name) : NULL;
}

int seam_http_request_streaming(const seam_http_request *hr)
{
    return hr ? hr->streaming : 0;
}

int seam_emit(seam_emitter *em, const seam_chunk *chunk)
{
    if (!em || !chunk)
        return SEAM_ERR_INVALID;
    return em->fn(em->ud, chunk);
}

int seam_emit_response_id(seam_emitter *em, const char *id)
{
    if (!em || !id)
        return SEAM_ERR_INVALID;
    size_t n = strlen(id);
    /* The first id a stream names is its answer's; an id too long to keep
     * is left to the stop chunk, which carries any length. */
    if (!em->response_id[0] && n > 0 && n < sizeof em->response_id)
        memcpy(em->response_id, id, n + 1);
    return SEAM_OK;
}

/* Whole media is media in one piece (mediaemit.c): one path, so every media
 * part gets its length, and audio its duration, whichever call a codec uses. */
int seam_emit_media(seam_emitter *em, const char *id, const char *mime_type, const char *base64,
                    size_t len, seam_error *err)
{
    seam_error_clear(err);
    if (!em || !base64)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "seam_emit_media: invalid argument"),
               SEAM_ERR_PROVIDER;
    char idbuf[32];
    if (!id) {
        snprintf(idbuf, sizeof idbuf, "media-%u", em->n_media + 1);
        id = idbuf;
    }
    int rc = seam_emit_media_begin(em, id, mime_type, 0, err);
    if (rc == SEAM_OK)
        rc = seam_emit_media_append(em, id, base64, len, err);
    if (rc == SEAM_OK)
        rc = seam_emit_media_end(em, id, err);
    return rc;
}

int seam_served_set_status(seam_served *s, int http_status)
{
    if (!s || http_status < 100 || http_status > 599)
        return SEAM_ERR_INVALID;
    s->status = http_status;
    return SEAM_OK;
}

int seam_served_add_header(seam_served *s, const char *name, const char *value)
{
    if (!s || !name || !value)
        return SEAM_ERR_INVALID;
    return seam_http_headers_add(&s->headers, name, strlen(name), value, strlen(value), 0);
}

int seam_served_add_piece(seam_served *s, const char *data, size_t len, unsigned delay_ms)
{
    if (!s || (!data && len))
        return SEAM_ERR_INVALID;
    seam_piece *p = realloc(s->pieces, (s->n_pieces + 1) * sizeof *p);
    if (!p)
        return SEAM_ERR_NOMEM;
    s->pieces = p;
    char *copy = malloc(len + 1);
    if (!copy)
        return SEAM_ERR_NOMEM;
    if (len)
        memcpy(copy, data, len);
    copy[len] = '\0';
    p[s->n_pieces].data = copy;
    p[s->n_pieces].len = len;
    p[s->n_pieces].delay_ms = delay_ms;
    s->n_pieces++;
    return SEAM_OK;
}

int seam_served_cut(seam_served *s)
{
    if (!s)
        return SEAM_ERR_INVALID;
    s->cut = 1;
    return SEAM_OK;
}

void seam_served_release(seam_served *s)
{
    seam_http_headers_release(&s->headers);
    for (size_t i = 0; i < s->n_pieces; i++)
        free(s->pieces[i].data);
    free(s->pieces);
    memset(s, 0, sizeof *s);
}
