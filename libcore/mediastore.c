/* mediastore.c — the media store: content-addressed files named by the
 * sha256 of their bytes (handle "media://sha256-<64 hex>", file
 * "<store>/sha256-<64 hex>"). The directory is the conf's media.store, else
 * $XDG_DATA_HOME/seam/media, else ~/.local/share/seam/media, created 0700.
 * A file is written to a temporary name in the same directory, flushed, made
 * 0600 and renamed: a reader sees the whole file or none, and a crash leaves
 * only a temporary. Also here: de-inlining (base64 parts become handles) and
 * the resolution of handles to bytes before a codec encodes a request. */
#include "config.h"
#include "client.h"
#include <seam/codec.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest stored file seam reads back into a request: a codec needs it
 * in memory, base64 on top. */
#define MAX_RESOLVE_BYTES ((int64_t)1 << 30)

static const char handle_prefix[] = "media://sha256-";

/* The store's directory, malloc'ed; NULL (err filled) when no home is known. */
static char *store_dir(const seam_client *c, seam_error *err)
{
    const char *conf = c && c->conf ? c->conf->media.store : NULL;
    if (conf)
        return strdup(conf);
    seam_buf b = {0};
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int rc;
    if (xdg && xdg[0] == '/')
        rc = seam_buf_printf(&b, "%s/seam/media", xdg);
    else if (home && home[0] == '/')
        rc = seam_buf_printf(&b, "%s/.local/share/seam/media", home);
    else {
        seam_error_set(err, SEAM_ERROR_CONF,
                       "no media store: set media.store in the conf, or XDG_DATA_HOME or HOME");
        return NULL;
    }
    if (rc != SEAM_OK) {
        seam_buf_free(&b);
        return NULL;
    }
    return b.data;
}

/* mkdir -p, each new directory 0700. */
static int make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(path, 0700);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

static int fail_errno(seam_error *err, const char *what, const char *path)
{
    int e = errno;
    seam_error_set(err, e == EMFILE || e == ENFILE || e == ENOSPC ? SEAM_ERROR_RESOURCE
                                                                   : SEAM_ERROR_UNKNOWN,
                   "media store: %s %s: %s", what, path, strerror(e));
    return SEAM_ERR_PROVIDER;
}

static char *file_of(const char *dir, const char *hex)
{
    seam_buf b = {0};
    if (seam_buf_printf(&b, "%s/sha256-%s", dir, hex) != SEAM_OK) {
        seam_buf_free(&b);
        return NULL;
    }
    return b.data;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int seam_media_put(seam_client *client, const void *bytes, size_t len,
                   char handle[SEAM_MEDIA_HANDLE_SIZE], seam_error *err)
{
    seam_error_clear(err);
    if (!client || (!bytes && len) || !handle)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    unsigned char sum[32];
    seam_sha256(bytes, len, sum);
    char hex[65];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", sum[i]);
    char *dir = store_dir(client, err);
    if (!dir)
        return err && err->kind ? SEAM_ERR_CONF : SEAM_ERR_NOMEM;
    char *final = file_of(dir, hex);
    char *tmp = NULL;
    int rc = SEAM_OK;
    if (!final || !(tmp = malloc(strlen(dir) + 32))) {
        rc = SEAM_ERR_NOMEM;
        goto out;
    }
    if (make_dirs(dir) != 0) {
        rc = fail_errno(err, "cannot create", dir);
        goto out;
    }
    struct stat st;
    /* The same bytes have the same name: a whole file already there is them. */
    if (stat(final, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len)
        goto done;
    sprintf(tmp, "%s/.tmp-XXXXXX", dir);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        rc = fail_errno(err, "cannot create a file in", dir);
        goto out;
    }
    if (fchmod(fd, 0600) != 0 || write_all(fd, bytes, len) != 0 || fsync(fd) != 0) {
        rc = fail_errno(err, "cannot write", tmp);
        close(fd);
        unlink(tmp);
        goto out;
    }
    if (close(fd) != 0 || rename(tmp, final) != 0) {
        rc = fail_errno(err, "cannot store", final);
        unlink(tmp);
        goto out;
    }
done:
    snprintf(handle, SEAM_MEDIA_HANDLE_SIZE, "%s%s", handle_prefix, hex);
out:
    if (rc == SEAM_ERR_NOMEM)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
    free(tmp);
    free(final);
    free(dir);
    return rc;
}

int seam_media_path(seam_client *client, const char *handle, char **path, seam_error *err)
{
    seam_error_clear(err);
    if (path)
        *path = NULL;
    if (!client || !path)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    if (!seam_media_handle_valid(handle))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                              "not a media handle (media://sha256- and 64 lowercase hex digits)"),
               SEAM_ERR_INVALID;
    char *dir = store_dir(client, err);
    if (!dir)
        return err && err->kind ? SEAM_ERR_CONF : SEAM_ERR_NOMEM;
    char *file = file_of(dir, handle + sizeof handle_prefix - 1);
    free(dir);
    if (!file)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    struct stat st;
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "no media %s in the store", handle);
        free(file);
        return SEAM_ERR_NOT_FOUND;
    }
    *path = file;
    return SEAM_OK;
}

int seam_media_open(seam_client *client, const char *handle, int *fd, seam_error *err)
{
    if (fd)
        *fd = -1;
    if (!fd)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    char *path = NULL;
    int rc = seam_media_path(client, handle, &path, err);
    if (rc != SEAM_OK)
        return rc;
    *fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (*fd < 0)
        rc = fail_errno(err, "cannot open", path);
    free(path);
    return rc;
}

/* The stored bytes of handle, malloc'ed. */
int seam_media_read(seam_client *client, const char *handle, unsigned char **out, size_t *len,
                      seam_error *err)
{
    int fd;
    int rc = seam_media_open(client, handle, &fd, err);
    if (rc != SEAM_OK)
        return rc;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size > MAX_RESOLVE_BYTES) {
        close(fd);
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "media %s is too large to send", handle),
               SEAM_ERR_INVALID;
    }
    unsigned char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (!buf)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    if (got != (size_t)st.st_size) {
        free(buf);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "media %s could not be read whole", handle),
               SEAM_ERR_PROVIDER;
    }
    *out = buf;
    *len = got;
    return SEAM_OK;
}

int seam_media_deinline(seam_client *client, seam_message *msg, seam_error *err)
{
    seam_error_clear(err);
    if (!client || !msg)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    for (size_t i = 0; i < seam_message_part_count(msg); i++) {
        seam_part *p = seam_message_part_mut(msg, i);
        if (seam_part_get_type(p) != SEAM_PART_MEDIA ||
            seam_part_media_source(p) != SEAM_MEDIA_BASE64)
            continue;
        const char *data = seam_part_media_data(p);
        size_t n = 0;
        unsigned char *bytes = seam_base64_decode(data, strlen(data), &n);
        if (!bytes) {
            if (seam_base64_decoded_len(data, strlen(data)) < 0)
                return seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                                      "part %zu: the media data is not valid base64", i + 1),
                       SEAM_ERR_INVALID;
            return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
        }
        char handle[SEAM_MEDIA_HANDLE_SIZE];
        int rc = seam_media_put(client, bytes, n, handle, err);
        free(bytes);
        if (rc == SEAM_OK)
            rc = seam_part_set_media_handle(p, handle, (int64_t)n);
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}

int seam_media_resolve_handles(seam_client *client, seam_request *req, seam_error *err)
{
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        seam_message *msg = (seam_message *)seam_request_message(req, i);
        for (size_t j = 0; j < seam_message_part_count(msg); j++) {
            seam_part *p = seam_message_part_mut(msg, j);
            if (seam_part_get_type(p) != SEAM_PART_MEDIA ||
                seam_part_media_source(p) != SEAM_MEDIA_HANDLE)
                continue;
            unsigned char *bytes = NULL;
            size_t n = 0;
            int rc = seam_media_read(client, seam_part_media_data(p), &bytes, &n, err);
            if (rc != SEAM_OK)
                return rc;
            char *b64 = seam_base64_encode(bytes, n);
            free(bytes);
            if (!b64)
                return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
            seam_part_set_media_base64(p, b64);
        }
    }
    return SEAM_OK;
}

/* ---- the incremental writer: media that arrives in pieces ---------------------- */

struct seam_media_writer {
    seam_sha256_ctx sha;
    char *dir;    /* NULL: hash only */
    char *tmp;    /* the temporary file, removed unless committed */
    int fd;
    int64_t bytes;
};

seam_media_writer *seam_media_writer_new(seam_client *client, seam_error *err)
{
    seam_media_writer *w = calloc(1, sizeof *w);
    if (!w) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
        return NULL;
    }
    w->fd = -1;
    seam_sha256_init(&w->sha);
    if (!client)
        return w;
    if (!(w->dir = store_dir(client, err))) {
        if (!err || !err->kind)
            seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
        free(w);
        return NULL;
    }
    if (!(w->tmp = malloc(strlen(w->dir) + 32))) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
        seam_media_writer_free(w);
        return NULL;
    }
    if (make_dirs(w->dir) != 0) {
        fail_errno(err, "cannot create", w->dir);
        seam_media_writer_free(w);
        return NULL;
    }
    sprintf(w->tmp, "%s/.tmp-XXXXXX", w->dir);
    if ((w->fd = mkstemp(w->tmp)) < 0 || fchmod(w->fd, 0600) != 0) {
        fail_errno(err, "cannot create a file in", w->dir);
        if (w->fd < 0) {
            free(w->tmp);
            w->tmp = NULL;
        }
        seam_media_writer_free(w);
        return NULL;
    }
    return w;
}

int seam_media_writer_write(seam_media_writer *w, const void *data, size_t len, seam_error *err)
{
    if (!len)
        return SEAM_OK;
    seam_sha256_update(&w->sha, data, len);
    w->bytes += (int64_t)len;
    if (w->fd >= 0 && write_all(w->fd, data, len) != 0)
        return fail_errno(err, "cannot write", w->tmp);
    return SEAM_OK;
}

int seam_media_writer_commit(seam_media_writer *w, char handle[SEAM_MEDIA_HANDLE_SIZE],
                             seam_error *err)
{
    unsigned char sum[32];
    seam_sha256_final(&w->sha, sum);
    char hex[65];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", sum[i]);
    if (w->fd >= 0) {
        char *final = file_of(w->dir, hex);
        if (!final)
            return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
        int rc = SEAM_OK;
        struct stat st;
        if (fsync(w->fd) != 0)
            rc = fail_errno(err, "cannot write", w->tmp);
        int closed = close(w->fd);
        w->fd = -1;
        if (rc == SEAM_OK && closed != 0)
            rc = fail_errno(err, "cannot write", w->tmp);
        /* The same bytes are already there: the temporary goes (free). */
        if (rc == SEAM_OK && !(stat(final, &st) == 0 && S_ISREG(st.st_mode) &&
                               (int64_t)st.st_size == w->bytes)) {
            if (rename(w->tmp, final) != 0)
                rc = fail_errno(err, "cannot store", final);
            else {
                free(w->tmp);
                w->tmp = NULL;
            }
        }
        free(final);
        if (rc != SEAM_OK)
            return rc;
    }
    snprintf(handle, SEAM_MEDIA_HANDLE_SIZE, "%s%s", handle_prefix, hex);
    return SEAM_OK;
}

void seam_media_writer_free(seam_media_writer *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    if (w->tmp && (w->fd >= 0 || w->dir))
        unlink(w->tmp);
    free(w->tmp);
    free(w->dir);
    free(w);
}
