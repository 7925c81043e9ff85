/* cassette.c — record and replay at the transport seam (doc/cassettes.md).
 * SEAM_RECORD=DIR makes every network exchange of a client a cassette file in
 * DIR: the request (method, URL, headers, body) with every secret removed, and
 * the response's status, headers and body bytes as they arrived, each piece
 * with its time. SEAM_REPLAY=DIR serves them back instead of the network,
 * matching on method, URL and the body normalized (JSON with its keys sorted);
 * a request without a cassette fails with an error naming it. One file per
 * exchange, named by the match key and a sequence number, so that the same
 * request asked twice replays its two answers in turn. The files are text
 * (byte counts before raw blocks), stable and diffable; written atomically. */
#include "config.h"
#include "cassette.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define REDACTED "<redacted>"
#define MAX_CASSETTE_BYTES (256 * 1024 * 1024)

typedef struct key_count {
    char key[17];
    unsigned served;
} key_count;

struct seam_cassettes {
    char *dir;
    int replay; /* 1: replay, 0: record */
    pthread_mutex_t lock;
    key_count *counts;
    size_t n_counts;
};

struct seam_recording {
    int64_t start_ms;
    seam_piece *pieces;
    size_t n, cap;
    size_t bytes;
};

/* ---- the deck ------------------------------------------------------------------------ */

int seam_cassettes_from_env(seam_cassettes **out, seam_error *err)
{
    *out = NULL;
    const char *replay = getenv("SEAM_REPLAY");
    const char *record = getenv("SEAM_RECORD");
    const char *dir = replay && *replay ? replay : record && *record ? record : NULL;
    if (!dir)
        return SEAM_OK;
    int is_replay = replay && *replay;
    struct stat st;
    if (!is_replay && mkdir(dir, 0700) != 0 && errno != EEXIST) {
        seam_error_set(err, SEAM_ERROR_CONF, "SEAM_RECORD=%s: cannot create the directory: %s", dir,
                       strerror(errno));
        return SEAM_ERR_CONF;
    }
    int st_rc = stat(dir, &st);
    if (st_rc != 0 || !S_ISDIR(st.st_mode)) {
        seam_error_set(err, SEAM_ERROR_CONF, "%s=%s: %s", is_replay ? "SEAM_REPLAY" : "SEAM_RECORD", dir,
                       st_rc != 0 ? strerror(errno) : "not a directory");
        return SEAM_ERR_CONF;
    }
    seam_cassettes *d = calloc(1, sizeof *d);
    if (!d || !(d->dir = strdup(dir))) {
        free(d);
        return SEAM_ERR_NOMEM;
    }
    d->replay = is_replay;
    pthread_mutex_init(&d->lock, NULL);
    *out = d;
    return SEAM_OK;
}

void seam_cassettes_free(seam_cassettes *d)
{
    if (!d)
        return;
    pthread_mutex_destroy(&d->lock);
    free(d->counts);
    free(d->dir);
    free(d);
}

int seam_cassettes_replaying(const seam_cassettes *d)
{
    return d && d->replay;
}

int seam_cassettes_recording(const seam_cassettes *d)
{
    return d && !d->replay;
}

/* ---- what is kept of a request, and its key --------------------------------------------- */

static int auth_header(const char *name)
{
    static const char *const names[] = {"authorization", "proxy-authorization", "x-api-key",
                                        "x-goog-api-key", "api-key", "cookie"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* text with the credential removed, into out (reset first). */
static int scrubbed(seam_buf *out, const char *text, size_t len, const char *credential)
{
    seam_buf_reset(out);
    int rc = seam_scrub_secret(out, text ? text : "", text ? len : 0, credential);
    if (rc == SEAM_OK && !out->data)
        rc = seam_buf_append(out, "", 0);
    return rc;
}

/* The URL as kept: the credential removed wherever it stands (a query value). */
static int kept_url(seam_buf *out, const seam_http_request *hr, const char *credential)
{
    return scrubbed(out, hr->url ? hr->url : "", hr->url ? strlen(hr->url) : 0, credential);
}

static int canonical(seam_buf *out, json_object *o);

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* JSON with every object's keys in order and no whitespace: two encodings of
 * the same request compare equal whatever order a codec wrote its members. */
static int canonical(seam_buf *out, json_object *o)
{
    if (!json_object_is_type(o, json_type_object) && !json_object_is_type(o, json_type_array))
        return seam_buf_puts(out, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                                        JSON_C_TO_STRING_NOSLASHESCAPE));
    int rc = SEAM_OK;
    if (json_object_is_type(o, json_type_array)) {
        rc = seam_buf_puts(out, "[");
        for (size_t i = 0; rc == SEAM_OK && i < json_object_array_length(o); i++) {
            if (i)
                rc = seam_buf_puts(out, ",");
            if (rc == SEAM_OK)
                rc = canonical(out, json_object_array_get_idx(o, i));
        }
        return rc == SEAM_OK ? seam_buf_puts(out, "]") : rc;
    }
    size_t n = (size_t)json_object_object_length(o), k = 0;
    const char **keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys)
        return SEAM_ERR_NOMEM;
    json_object_object_foreach(o, name, val) {
        (void)val;
        keys[k++] = name;
    }
    qsort(keys, k, sizeof *keys, key_cmp);
    rc = seam_buf_puts(out, "{");
    for (size_t i = 0; rc == SEAM_OK && i < k; i++) {
        json_object *quoted = json_object_new_string(keys[i]);
        if (!quoted) {
            rc = SEAM_ERR_NOMEM;
            break;
        }
        rc = seam_buf_printf(out, "%s%s:", i ? "," : "",
                             json_object_to_json_string_ext(quoted, JSON_C_TO_STRING_PLAIN |
                                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(quoted);
        if (rc == SEAM_OK)
            rc = canonical(out, json_object_object_get(o, keys[i]));
    }
    free(keys);
    return rc == SEAM_OK ? seam_buf_puts(out, "}") : rc;
}

static uint64_t fnv1a(uint64_t h, const char *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)data[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* The match key of a request: method, kept URL and normalized body. The name
 * of its cassettes starts with a readable slug of the URL's path. */
static int request_key(const seam_http_request *hr, const char *credential, char key[17], char *slug,
                       size_t slug_size, seam_buf *url)
{
    seam_buf body = {0}, norm = {0};
    int rc = kept_url(url, hr, credential);
    if (rc == SEAM_OK)
        rc = scrubbed(&body, hr->body.data, hr->body.len, credential);
    if (rc != SEAM_OK) {
        seam_buf_free(&body);
        return rc;
    }
    json_object *parsed = NULL;
    if (body.len) {
        json_tokener *tok = json_tokener_new();
        if (tok) {
            parsed = json_tokener_parse_ex(tok, body.data, (int)body.len);
            if (json_tokener_get_error(tok) != json_tokener_success || tok->char_offset != (int)body.len) {
                json_object_put(parsed);
                parsed = NULL;
            }
            json_tokener_free(tok);
        }
    }
    if (parsed)
        rc = canonical(&norm, parsed);
    else
        rc = seam_buf_append(&norm, body.data ? body.data : "", body.len);
    json_object_put(parsed);
    const char *method = hr->method == SEAM_HTTP_GET ? "GET" : "POST";
    uint64_t h = 0xcbf29ce484222325ULL;
    h = fnv1a(h, method, strlen(method));
    h = fnv1a(h, "\n", 1);
    h = fnv1a(h, url->data, url->len);
    h = fnv1a(h, "\n", 1);
    h = fnv1a(h, norm.data ? norm.data : "", norm.len);
    snprintf(key, 17, "%016llx", (unsigned long long)h);
    /* The slug: the URL's path without scheme and host, letters and digits. */
    const char *p = strstr(url->data, "://");
    p = p ? strchr(p + 3, '/') : url->data;
    size_t n = 0;
    int dash = 1;
    for (; p && *p && *p != '?' && n + 2 < slug_size && n < 40; p++) {
        char c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            slug[n++] = c;
            dash = 0;
        } else if (!dash) {
            slug[n++] = '-';
            dash = 1;
        }
    }
    if (n == 0 || slug[n - 1] != '-')
        slug[n++] = '-';
    slug[n] = '\0';
    seam_buf_free(&norm);
    seam_buf_free(&body);
    return rc;
}

/* ---- recording ----------------------------------------------------------------------------- */

seam_recording *seam_recording_new(void)
{
    seam_recording *r = calloc(1, sizeof *r);
    if (r)
        r->start_ms = seam_now_ms();
    return r;
}

void seam_recording_free(seam_recording *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        free(r->pieces[i].data);
    free(r->pieces);
    free(r);
}

int seam_recording_add(seam_recording *r, const char *data, size_t len)
{
    if (!r || !len)
        return SEAM_OK;
    if (r->bytes + len > MAX_CASSETTE_BYTES)
        return SEAM_ERR_INVALID;
    int64_t at = seam_now_ms() - r->start_ms;
    unsigned ms = at < 0 ? 0 : at > 86400000 ? 86400000 : (unsigned)at;
    if (r->n && r->pieces[r->n - 1].delay_ms == ms) {
        /* Within the same millisecond: one piece (the time is all it adds). */
        seam_piece *last = &r->pieces[r->n - 1];
        char *grown = realloc(last->data, last->len + len);
        if (!grown)
            return SEAM_ERR_NOMEM;
        memcpy(grown + last->len, data, len);
        last->data = grown;
        last->len += len;
        r->bytes += len;
        return SEAM_OK;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        seam_piece *p = realloc(r->pieces, cap * sizeof *p);
        if (!p)
            return SEAM_ERR_NOMEM;
        r->pieces = p;
        r->cap = cap;
    }
    char *copy = malloc(len);
    if (!copy)
        return SEAM_ERR_NOMEM;
    memcpy(copy, data, len);
    r->pieces[r->n].data = copy;
    r->pieces[r->n].len = len;
    r->pieces[r->n].delay_ms = ms;
    r->n++;
    r->bytes += len;
    return SEAM_OK;
}

static int put_block(seam_buf *b, const char *label, const char *data, size_t len)
{
    int rc = seam_buf_printf(b, "%s %zu\n", label, len);
    if (rc == SEAM_OK)
        rc = seam_buf_append(b, data ? data : "", len);
    return rc == SEAM_OK ? seam_buf_puts(b, "\n") : rc;
}

/* A header line's value as kept: an auth header's value whole, the credential
 * wherever else it appears. Names and values cannot hold a newline (http.c
 * refuses them in requests; libcurl splits response headers at them). */
static int put_header(seam_buf *b, const char *name, const char *value, int secret, const char *credential)
{
    if (secret || auth_header(name))
        return seam_buf_printf(b, "header %s: " REDACTED "\n", name);
    seam_buf v = {0};
    int rc = scrubbed(&v, value, strlen(value), credential);
    if (rc == SEAM_OK)
        rc = seam_buf_printf(b, "header %s: %s\n", name, v.data);
    seam_buf_free(&v);
    return rc;
}

int seam_cassette_write(seam_cassettes *d, const seam_http_request *hr, const char *credential, long status,
                        const seam_http_headers *resp, const seam_recording *rec, int cut, seam_error *err)
{
    if (!d || d->replay || !hr)
        return SEAM_OK;
    char key[17], slug[64];
    seam_buf url = {0}, text = {0}, body = {0};
    int rc = request_key(hr, credential, key, slug, sizeof slug, &url);
    if (rc == SEAM_OK)
        rc = seam_buf_printf(&text, "seam-cassette 1\nrequest %s %s\n",
                             hr->method == SEAM_HTTP_GET ? "GET" : "POST", url.data);
    for (size_t i = 0; rc == SEAM_OK && i < hr->headers.n; i++)
        rc = put_header(&text, hr->headers.items[i].name, hr->headers.items[i].value, hr->headers.items[i].secret,
                        credential);
    if (rc == SEAM_OK)
        rc = scrubbed(&body, hr->body.data, hr->body.len, credential);
    if (rc == SEAM_OK)
        rc = put_block(&text, "body", body.data, body.len);
    if (rc == SEAM_OK)
        rc = seam_buf_printf(&text, "response %ld\n", status);
    for (size_t i = 0; rc == SEAM_OK && resp && i < resp->n; i++)
        rc = put_header(&text, resp->items[i].name, resp->items[i].value, 0, credential);
    /* Each piece as it arrived: its time in ms since the request was sent. */
    for (size_t i = 0; rc == SEAM_OK && rec && i < rec->n; i++) {
        char label[48];
        snprintf(label, sizeof label, "piece %u", rec->pieces[i].delay_ms);
        if (credential && *credential && rec->pieces[i].len >= strlen(credential) &&
            memmem(rec->pieces[i].data, rec->pieces[i].len, credential, strlen(credential))) {
            rc = scrubbed(&body, rec->pieces[i].data, rec->pieces[i].len, credential);
            if (rc == SEAM_OK)
                rc = put_block(&text, label, body.data, body.len);
        } else {
            rc = put_block(&text, label, rec->pieces[i].data, rec->pieces[i].len);
        }
    }
    if (rc == SEAM_OK)
        rc = seam_buf_puts(&text, cut ? "end cut\n" : "end\n");
    if (rc != SEAM_OK) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory writing a cassette");
        goto out;
    }
    /* Atomically, under the first free sequence number of this key. */
    char tmp[4096], name[4096];
    snprintf(tmp, sizeof tmp, "%s/.%s%s.XXXXXX", d->dir, slug, key);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        rc = SEAM_ERR_INVALID;
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "cannot write a cassette in %s: %s", d->dir, strerror(errno));
        goto out;
    }
    size_t off = 0;
    while (off < text.len) {
        ssize_t w = write(fd, text.data + off, text.len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    int bad = off < text.len || fsync(fd) != 0;
    bad |= close(fd) != 0;
    for (unsigned n = 1; !bad && n < 100000; n++) {
        snprintf(name, sizeof name, "%s/%s%s-%u.cassette", d->dir, slug, key, n);
        if (link(tmp, name) == 0)
            break;
        if (errno != EEXIST)
            bad = 1;
    }
    unlink(tmp);
    if (bad) {
        rc = SEAM_ERR_INVALID;
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "cannot write a cassette in %s: %s", d->dir, strerror(errno));
    }
out:
    seam_buf_free(&url);
    seam_buf_free(&body);
    seam_buf_free(&text);
    return rc;
}

/* ---- replaying ---------------------------------------------------------------------------- */

/* The next line of [*p, end) without its newline; NULL at the end. */
static const char *next_line(const char **p, const char *end, size_t *len)
{
    if (*p >= end)
        return NULL;
    const char *s = *p;
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    *len = nl ? (size_t)(nl - s) : (size_t)(end - s);
    *p = nl ? nl + 1 : end;
    return s;
}

/* A raw block of n bytes then a newline. */
static const char *take_block(const char **p, const char *end, size_t n)
{
    if ((size_t)(end - *p) < n + 1 || (*p)[n] != '\n')
        return NULL;
    const char *s = *p;
    *p += n + 1;
    return s;
}

static int parse_cassette(const char *text, size_t len, seam_served *out, const char *path, seam_error *err)
{
    const char *p = text, *end = text + len, *line;
    size_t n;
    int stage = 0; /* 0 request, 1 response, 2 end */
    unsigned last_ms = 0;
    int lineno = 0;
    while (stage < 2 && (line = next_line(&p, end, &n)) != NULL) {
        lineno++;
        char head[64];
        size_t hn = n < sizeof head - 1 ? n : sizeof head - 1;
        memcpy(head, line, hn);
        head[hn] = '\0';
        unsigned long long v;
        if (lineno == 1) {
            if (strcmp(head, "seam-cassette 1") != 0)
                goto bad;
        } else if (n >= 7 && memcmp(line, "header ", 7) == 0) {
            if (stage == 1) {
                const char *colon = memchr(line + 7, ':', n - 7);
                if (!colon)
                    goto bad;
                const char *val = colon + 1;
                while (val < line + n && *val == ' ')
                    val++;
                if (seam_http_headers_add(&out->headers, line + 7, (size_t)(colon - line - 7), val,
                                          (size_t)(line + n - val), 0) != SEAM_OK)
                    return SEAM_ERR_NOMEM;
            }
        } else if (sscanf(head, "body %llu", &v) == 1 && stage == 0) {
            if (!take_block(&p, end, (size_t)v))
                goto bad;
        } else if (sscanf(head, "response %llu", &v) == 1 && stage == 0) {
            out->status = (int)v;
            stage = 1;
        } else if (n >= 8 && memcmp(line, "request ", 8) == 0 && stage == 0) {
            continue;
        } else if (stage == 1 && strncmp(head, "piece ", 6) == 0) {
            unsigned long long at, size;
            if (sscanf(head, "piece %llu %llu", &at, &size) != 2)
                goto bad;
            const char *data = take_block(&p, end, (size_t)size);
            if (!data)
                goto bad;
            unsigned delay = at > last_ms ? (unsigned)(at - last_ms) : 0;
            last_ms = at > last_ms ? (unsigned)at : last_ms;
            if (seam_served_add_piece(out, data, (size_t)size, delay) != SEAM_OK)
                return SEAM_ERR_NOMEM;
        } else if (stage == 1 && (strcmp(head, "end") == 0 || strcmp(head, "end cut") == 0)) {
            out->cut = strcmp(head, "end cut") == 0;
            stage = 2;
        } else {
            goto bad;
        }
    }
    if (stage == 2)
        return SEAM_OK;
bad:
    seam_error_set(err, SEAM_ERROR_CONF, "cassette %s: unreadable near line %d", path, lineno);
    seam_strlcpy(err->code, "cassette_invalid", sizeof err->code);
    return SEAM_ERR_INVALID;
}

int seam_cassette_load(seam_cassettes *d, const seam_http_request *hr, const char *credential, seam_served *out,
                       seam_error *err)
{
    char key[17], slug[64];
    seam_buf url = {0};
    int rc = request_key(hr, credential, key, slug, sizeof slug, &url);
    if (rc != SEAM_OK) {
        seam_buf_free(&url);
        return rc;
    }
    /* This client's n-th ask of the same request gets the n-th answer, the
     * last one again when there are fewer. */
    pthread_mutex_lock(&d->lock);
    key_count *kc = NULL;
    for (size_t i = 0; i < d->n_counts; i++)
        if (strcmp(d->counts[i].key, key) == 0)
            kc = &d->counts[i];
    if (!kc) {
        key_count *c = realloc(d->counts, (d->n_counts + 1) * sizeof *c);
        if (c) {
            d->counts = c;
            kc = &c[d->n_counts++];
            memcpy(kc->key, key, sizeof kc->key);
            kc->served = 0;
        }
    }
    unsigned want = kc ? ++kc->served : 1;
    pthread_mutex_unlock(&d->lock);
    char path[4096];
    struct stat st;
    unsigned found = 0;
    for (unsigned n = 1; n <= want; n++) {
        snprintf(path, sizeof path, "%s/%s%s-%u.cassette", d->dir, slug, key, n);
        if (stat(path, &st) != 0)
            break;
        found = n;
    }
    if (!found) {
        seam_error_set(err, SEAM_ERROR_CONF,
                       "no cassette in %s for %s %s (key %s, body of %zu bytes): record it with SEAM_RECORD",
                       d->dir, hr->method == SEAM_HTTP_GET ? "GET" : "POST", url.data, key, hr->body.len);
        seam_strlcpy(err->code, "cassette_miss", sizeof err->code);
        seam_buf_free(&url);
        return SEAM_ERR_NOT_FOUND;
    }
    seam_buf_free(&url);
    snprintf(path, sizeof path, "%s/%s%s-%u.cassette", d->dir, slug, key, found);
    FILE *f = fopen(path, "rb");
    seam_buf text = {0};
    if (f) {
        char chunk[65536];
        size_t got;
        while (rc == SEAM_OK && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
            rc = text.len + got > MAX_CASSETTE_BYTES ? SEAM_ERR_INVALID : seam_buf_append(&text, chunk, got);
        if (ferror(f))
            rc = SEAM_ERR_INVALID;
        fclose(f);
    }
    if (!f || rc != SEAM_OK) {
        seam_error_set(err, SEAM_ERROR_CONF, "cannot read cassette %s%s%s", path, f ? "" : ": ",
                       f ? "" : strerror(errno));
        seam_buf_free(&text);
        return rc == SEAM_ERR_NOMEM ? rc : SEAM_ERR_INVALID;
    }
    rc = parse_cassette(text.data ? text.data : "", text.len, out, path, err);
    seam_buf_free(&text);
    if (rc != SEAM_OK)
        seam_served_release(out);
    return rc;
}
