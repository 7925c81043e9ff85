/* raw.c — the raw response a caller asked to keep for debugging
 * (seam_call_options.raw): the last attempt's HTTP status, response headers
 * and body, and the error that attempt ended with. The library fills it and
 * never reads it back: nothing here is logged, printed or serialized by seam,
 * and the credential of the call is scrubbed out before it is stored. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "transport.h"

struct seam_raw_response {
    int status;
    seam_buf headers;
    seam_buf body;
    int has_body;
    int has_cause;
    seam_error cause;
};

seam_raw_response *seam_raw_response_new(void)
{
    seam_raw_response *r = calloc(1, sizeof *r);
    if (r)
        seam_error_clear(&r->cause);
    return r;
}

void seam_raw_response_free(seam_raw_response *r)
{
    if (!r)
        return;
    seam_buf_free(&r->headers);
    seam_buf_free(&r->body);
    free(r);
}

int seam_raw_response_status(const seam_raw_response *r)
{
    return r ? r->status : 0;
}

const char *seam_raw_response_headers(const seam_raw_response *r)
{
    return r && r->headers.data ? r->headers.data : "";
}

const char *seam_raw_response_body(const seam_raw_response *r, size_t *len)
{
    if (len)
        *len = r && r->has_body ? r->body.len : 0;
    if (!r || !r->has_body)
        return NULL;
    return r->body.data ? r->body.data : "";
}

const seam_error *seam_raw_response_cause(const seam_raw_response *r)
{
    return r && r->has_cause ? &r->cause : NULL;
}

int seam_raw_response_keep(seam_raw_response *r, const seam_transfer *t, const seam_error *cause)
{
    if (!r)
        return SEAM_OK;
    r->status = 0;
    r->has_body = 0;
    r->has_cause = 0;
    seam_buf_reset(&r->headers);
    seam_buf_reset(&r->body);
    if (cause) {
        r->cause = *cause;
        r->has_cause = 1;
    }
    if (!t)
        return SEAM_OK;
    long status = 0;
    const seam_http_headers *h = NULL;
    const char *body = NULL, *secret = NULL;
    size_t len = 0;
    seam_transfer_raw(t, &status, &h, &body, &len, &secret);
    r->status = (int)status;
    seam_buf line = {0};
    for (size_t i = 0; h && i < h->n; i++) {
        seam_buf_reset(&line);
        if (seam_buf_printf(&line, "%s: %s\n", h->items[i].name, h->items[i].value) != SEAM_OK ||
            seam_scrub_secret(&r->headers, line.data, line.len, secret) != SEAM_OK) {
            seam_buf_free(&line);
            return SEAM_ERR_NOMEM;
        }
    }
    seam_buf_free(&line);
    if (body) {
        if (seam_scrub_secret(&r->body, body, len, secret) != SEAM_OK)
            return SEAM_ERR_NOMEM;
        r->has_body = 1;
    }
    return SEAM_OK;
}
