/* body.c — a Chat Completions request body written straight as JSON text
 * (encode.c), without building json-c objects: a list of top-level members
 * whose values are JSON text, rendered in member order. A request with
 * provider options has its text read back and merged as every other body is
 * (oa_finish_body). Strings are escaped as
 * json-c's printer escapes them (JSON_C_TO_STRING_NOSLASHESCAPE), so the
 * text is the one the json-c encoder printed. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int oa_json_string_n(strbuf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (sb_append(b, "\"", 1) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        if (sb_append(b, s + run, i - run) != SEAM_OK)
            return SEAM_ERR_NOMEM;
        run = i + 1;
        char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
        size_t el = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 0xf];
            el = 6;
        }
        if (sb_append(b, esc, el) != SEAM_OK)
            return SEAM_ERR_NOMEM;
    }
    if (sb_append(b, s + run, n - run) != SEAM_OK || sb_append(b, "\"", 1) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    return SEAM_OK;
}

int oa_json_string(strbuf *b, const char *s)
{
    /* json-c's json_object_new_string takes the C string: up to its NUL. */
    return s ? oa_json_string_n(b, s, strlen(s)) : oa_json_string_n(b, "", 0);
}

int oa_json_member(strbuf *b, int first, const char *key, const char *value)
{
    if ((!first && sb_append(b, ",", 1) != SEAM_OK) || oa_json_string(b, key) != SEAM_OK ||
        sb_append(b, ":", 1) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    return value ? oa_json_string(b, value) : SEAM_OK;
}

void oa_body_free(oa_body *b)
{
    sb_free(&b->text);
    free(b->m);
    memset(b, 0, sizeof *b);
}

strbuf *oa_body_begin(oa_body *b, const char *key)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 16;
        oa_member *m = realloc(b->m, cap * sizeof *m);
        if (!m) {
            b->text.failed = 1;
            return &b->text;
        }
        b->m = m;
        b->cap = cap;
    }
    oa_member *m = &b->m[b->n++];
    memset(m, 0, sizeof *m);
    size_t klen = strlen(key);
    m->key = b->text.len;
    m->key_len = klen;
    sb_append(&b->text, key, klen);
    m->val = b->text.len;
    return &b->text;
}

void oa_body_end(oa_body *b)
{
    if (b->n && !b->text.failed) {
        oa_member *m = &b->m[b->n - 1];
        m->val_len = b->text.len - m->val;
    }
}

int oa_body_add(oa_body *b, const char *key, const char *value_json)
{
    sb_puts(oa_body_begin(b, key), value_json);
    oa_body_end(b);
    return b->text.failed ? SEAM_ERR_NOMEM : SEAM_OK;
}

int oa_body_add_string(oa_body *b, const char *key, const char *value)
{
    oa_json_string(oa_body_begin(b, key), value);
    oa_body_end(b);
    return b->text.failed ? SEAM_ERR_NOMEM : SEAM_OK;
}

char *oa_body_render(oa_body *b, size_t *len)
{
    if (b->text.failed)
        return NULL;
    strbuf out = {0};
    size_t want = b->text.len + 2 + 6 * b->n;
    /* One allocation of about the right size: keys gain quotes and a colon. */
    if (sb_append(&out, "{", 1) != SEAM_OK)
        return NULL;
    if (out.cap < want + 1) {
        char *p = realloc(out.data, want + 1);
        if (!p) {
            sb_free(&out);
            return NULL;
        }
        out.data = p;
        out.cap = want + 1;
    }
    int first = 1;
    for (size_t i = 0; i < b->n; i++) {
        const oa_member *m = &b->m[i];
        if ((!first && sb_append(&out, ",", 1) != SEAM_OK) ||
            oa_json_string_n(&out, b->text.data + m->key, m->key_len) != SEAM_OK ||
            sb_append(&out, ":", 1) != SEAM_OK || sb_append(&out, b->text.data + m->val, m->val_len) != SEAM_OK) {
            sb_free(&out);
            return NULL;
        }
        first = 0;
    }
    if (sb_append(&out, "}", 1) != SEAM_OK) {
        sb_free(&out);
        return NULL;
    }
    *len = out.len;
    return out.data;
}
