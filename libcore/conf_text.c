/* conf_text.c — one conf file's raw text, before libconfig sees it.
 *
 * The file is read here, not by libconfig: only a regular file of at most
 * MAX_CONF_BYTES (a FIFO or /dev/zero must not block or exhaust us), UTF-8
 * without NUL bytes, no @include (libconfig 1.5 cannot bound what it opens;
 * conf.d/ is the way to split a conf), and no integer literal that libconfig
 * 1.5 would silently truncate: a decimal literal beyond 32 bits without the
 * `L` suffix (write 5000000000L), or one beyond 64 bits at all. */
#include "config.h"
#include "conf_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The largest conf file (or drop-in, or model catalog) read. */
#define MAX_CONF_BYTES ((size_t)16 * 1024 * 1024)

/* ---- one file ---------------------------------------------------------------------------------------- */

static const char *file_kind(mode_t mode)
{
    return S_ISFIFO(mode)                     ? "a FIFO"
           : S_ISDIR(mode)                    ? "a directory"
           : S_ISCHR(mode) || S_ISBLK(mode)   ? "a device"
           : S_ISSOCK(mode)                   ? "a socket"
                                              : "not a regular file";
}

/* Reads a whole conf file into a NUL-terminated buffer. Opened non-blocking
 * (a FIFO would wait for a writer), and only when it is a regular file of at
 * most MAX_CONF_BYTES. Fills *st. */
int conf_read_text(loader *ld, const char *file, struct stat *st, char **text,
                          size_t *len)
{
    *text = NULL;
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return conf_fail_at(ld, file, 0, "cannot read: %s", strerror(errno));
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return conf_fail_at(ld, file, 0, "cannot read: %s", strerror(e));
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return conf_fail_at(ld, file, 0, "not a regular file (%s)", file_kind(st->st_mode));
    }
    if ((uint64_t)st->st_size > MAX_CONF_BYTES) {
        close(fd);
        return conf_fail_at(ld, file, 0, "too large (%lld bytes; a conf file has at most %zu)",
                       (long long)st->st_size, MAX_CONF_BYTES);
    }
    size_t cap = (size_t)st->st_size + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return conf_fail_nomem(ld);
    }
    for (;;) {
        if (n + 1 == cap) {
            /* Grown since fstat: still bounded. */
            if (cap > MAX_CONF_BYTES) {
                free(buf);
                close(fd);
                return conf_fail_at(ld, file, 0, "too large (a conf file has at most %zu bytes)",
                               MAX_CONF_BYTES);
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                close(fd);
                return conf_fail_nomem(ld);
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return conf_fail_at(ld, file, 0, "cannot read: %s", strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return SEAM_OK;
}

/* An integer literal as libconfig 1.5 lexes it ([-+]?[0-9]+ or 0x[0-9a-f]+,
 * then L or LL for 64 bits), checked for what libconfig would truncate
 * without a word. tok is not NUL-terminated. */
static int check_int_literal(loader *ld, const char *file, int line, const char *tok,
                             size_t n)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (tok[i] == '-' || tok[i] == '+'))
        neg = tok[i++] == '-';
    int hex = n - i > 2 && tok[i] == '0' && (tok[i + 1] == 'x' || tok[i + 1] == 'X');
    if (hex)
        i += 2;
    size_t digits = i;
    while (i < n && (hex ? isxdigit((unsigned char)tok[i]) : isdigit((unsigned char)tok[i])))
        i++;
    if (i == digits)
        return SEAM_OK; /* not an integer: libconfig judges it */
    size_t end_digits = i;
    int wide = 0;
    if (i < n && tok[i] == 'L') {
        wide = 1;
        i++;
        if (i < n && tok[i] == 'L')
            i++;
    }
    if (i != n)
        return SEAM_OK; /* a float, or something libconfig will refuse */
    /* The magnitude, saturated past 2^64. */
    uint64_t v = 0;
    int overflow = 0;
    for (size_t k = digits; k < end_digits; k++) {
        unsigned d = hex ? (unsigned)(isdigit((unsigned char)tok[k]) ? tok[k] - '0'
                                                                      : (tok[k] | 0x20) - 'a' + 10)
                         : (unsigned)(tok[k] - '0');
        unsigned base = hex ? 16 : 10;
        if (v > (UINT64_MAX - d) / base)
            overflow = 1;
        else
            v = v * base + d;
    }
    int fits;
    if (wide)
        fits = !overflow && (hex ? 1 : neg ? v <= (uint64_t)INT64_MAX + 1 : v <= (uint64_t)INT64_MAX);
    else
        fits = !overflow && (hex ? v <= UINT32_MAX
                                 : neg ? v <= (uint64_t)INT32_MAX + 1 : v <= (uint64_t)INT32_MAX);
    if (fits)
        return SEAM_OK;
    int shown = n > 40 ? 40 : (int)n;
    if (wide || overflow || v > (uint64_t)INT64_MAX)
        return conf_fail_at(ld, file, line, "the integer %.*s%s is out of any range (beyond 64 bits)",
                       shown, tok, n > 40 ? "..." : "");
    return conf_fail_at(ld, file, line,
                   "the integer %.*s does not fit in 32 bits: write it with an L suffix "
                   "(%.*sL), as libconfig would otherwise truncate it", shown, tok, shown, tok);
}

/* What libconfig 1.5 would take without a word but seam must not: NUL bytes,
 * invalid UTF-8, @include, integers it would truncate. A light lexer: it
 * knows strings, comments, names and numbers, enough to find those. */
int conf_check_text(loader *ld, const char *file, const char *text, size_t len)
{
    int line = 1;
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\0')
            return conf_fail_at(ld, file, line, "a NUL byte: a conf file is text");
        if (c >= 0x80) {
            size_t u = conf_utf8_len((const unsigned char *)text + i, len - i);
            if (!u)
                return conf_fail_at(ld, file, line, "invalid UTF-8: a conf file is UTF-8 text");
            i += u;
            continue;
        }
        if (c == '\n') {
            line++;
            i++;
        } else if (c == '#' || (c == '/' && i + 1 < len && text[i + 1] == '/')) {
            while (i < len && text[i] != '\n') {
                unsigned char d = (unsigned char)text[i];
                if (d == '\0')
                    return conf_fail_at(ld, file, line, "a NUL byte: a conf file is text");
                size_t u = d < 0x80 ? 1 : conf_utf8_len((const unsigned char *)text + i, len - i);
                if (!u)
                    return conf_fail_at(ld, file, line, "invalid UTF-8: a conf file is UTF-8 text");
                i += u;
            }
        } else if (c == '/' && i + 1 < len && text[i + 1] == '*') {
            i += 2;
            int start = line;
            while (i < len && !(text[i] == '*' && i + 1 < len && text[i + 1] == '/')) {
                unsigned char d = (unsigned char)text[i];
                if (d == '\0')
                    return conf_fail_at(ld, file, line, "a NUL byte: a conf file is text");
                size_t u = d < 0x80 ? 1 : conf_utf8_len((const unsigned char *)text + i, len - i);
                if (!u)
                    return conf_fail_at(ld, file, line, "invalid UTF-8: a conf file is UTF-8 text");
                if (d == '\n')
                    line++;
                i += u;
            }
            if (i >= len)
                return conf_fail_at(ld, file, start, "a comment /* ... is never closed");
            i += 2;
        } else if (c == '"') {
            i++;
            while (i < len && text[i] != '"') {
                unsigned char d = (unsigned char)text[i];
                if (d == '\0')
                    return conf_fail_at(ld, file, line, "a NUL byte: a conf file is text");
                size_t u = d < 0x80 ? 1 : conf_utf8_len((const unsigned char *)text + i, len - i);
                if (!u)
                    return conf_fail_at(ld, file, line, "invalid UTF-8: a conf file is UTF-8 text");
                if (d == '\n')
                    line++;
                if (d == '\\' && i + 3 < len && (text[i + 1] == 'x' || text[i + 1] == 'X') &&
                    text[i + 2] == '0' && text[i + 3] == '0')
                    return conf_fail_at(ld, file, line,
                                   "a \\x00 escape in a string: a NUL would cut the string short");
                if (d == '\\' && i + 1 < len && text[i + 1] != '\n' && text[i + 1] != '\0')
                    u = 2;
                i += u;
            }
            i++; /* an unclosed string: libconfig reports it */
        } else if (c == '@') {
            if (len - i >= 8 && memcmp(text + i, "@include", 8) == 0)
                return conf_fail_at(ld, file, line,
                               "@include is not supported: put the settings in a conf.d/ drop-in");
            i++;
        } else if (isalpha(c) || c == '*') {
            while (i < len && (isalnum((unsigned char)text[i]) || text[i] == '_' ||
                               text[i] == '-' || text[i] == '*'))
                i++;
        } else if (isdigit(c) || ((c == '-' || c == '+' || c == '.') && i + 1 < len &&
                                  isdigit((unsigned char)text[i + 1]))) {
            size_t start = i++;
            while (i < len && (isalnum((unsigned char)text[i]) || text[i] == '.' ||
                               ((text[i] == '-' || text[i] == '+') &&
                                (text[i - 1] == 'e' || text[i - 1] == 'E'))))
                i++;
            if (check_int_literal(ld, file, line, text + start, i - start) != SEAM_OK)
                return ld->status;
        } else {
            i++;
        }
    }
    return SEAM_OK;
}
