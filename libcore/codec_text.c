/* codec_text.c — owns provider text made fit for a seam_error message in the
 * codec SDK (<seam/codec.h>): control characters turned to spaces, tokens
 * that look like API keys masked (some servers echo a partly masked key
 * back), and a cut that never splits a UTF-8 character. The core still
 * scrubs the configured credential from every message afterwards
 * (scrub.c); this is the codec's share, for keys the core does not know. */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include <seam/codec.h>

void seam_scrub_keys(char *s)
{
    static const char *const prefixes[] = {"sk-", "gsk_", "xai-", "sk_"};
    if (!s)
        return;
    for (char *p = s; *p; p++) {
        if (p != s && (isalnum((unsigned char)p[-1]) || p[-1] == '-' || p[-1] == '_'))
            continue;
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
            size_t n = strlen(prefixes[i]);
            if (strncmp(p, prefixes[i], n) != 0)
                continue;
            char *end = p;
            while (*end && !isspace((unsigned char)*end) && *end != '"' && *end != '\'' &&
                   *end != ',' && !(*end == '.' && (end[1] == '\0' || isspace((unsigned char)end[1]))))
                end++;
            static const char mask[] = "<redacted>";
            size_t span = (size_t)(end - p);
            if (span < sizeof mask - 1)
                break; /* too short to be a key, and no room to rewrite in place */
            memcpy(p, mask, sizeof mask - 1);
            memmove(p + sizeof mask - 1, end, strlen(end) + 1);
            p += sizeof mask - 2;
            break;
        }
    }
}

/* Length of the UTF-8 sequence that starts with byte c (1 for a stray byte,
 * which the core's scrub later repairs). */
static size_t seq_len(unsigned char c)
{
    return c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 1;
}

void seam_error_set_text(seam_error *err, const char *prefix, const char *text, size_t len,
                         size_t max)
{
    if (!err)
        return;
    size_t cap = sizeof err->message - 1;
    size_t used = 0;
    if (prefix) {
        used = strlen(prefix);
        if (used > cap)
            used = cap;
        memmove(err->message, prefix, used); /* prefix may be the message itself */
    }
    size_t room = cap - used;
    if (max > 0 && max < room)
        room = max;
    size_t n = 0;
    for (size_t i = 0; text && i < len;) {
        unsigned char c = (unsigned char)text[i];
        size_t k = seq_len(c);
        if (k > len - i)
            break; /* a character cut by the body's end */
        if (n + k > room)
            break; /* never half a character */
        for (size_t j = 0; j < k; j++) {
            unsigned char b = (unsigned char)text[i + j];
            err->message[used + n + j] = (char)(b < 0x20 || b == 0x7f ? ' ' : b);
        }
        n += k;
        i += k;
    }
    err->message[used + n] = '\0';
    seam_scrub_keys(err->message + used);
}
