/* codec_json.c — owns the JSON helpers of the codec SDK (<seam/codec.h>):
 * the strict parse that refuses what json-c would build incompletely, the
 * NULL-safe accessors and adders, locale-proof doubles and plain JSON text.
 * Lifted from the plugins' former private codec_util.c, which every in-tree
 * codec used; now one copy in libseam serves them and third-party codecs. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <seam/codec.h>

/* RFC 8259's whitespace, not isspace(): \v and \f are not JSON. */
static int json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Members and array elements in text[0..len) (one JSON value, already parsed
 * whole), or SIZE_MAX when nested deeper than counted or not read the way
 * json-c read it. json-c also takes 'single-quoted' strings and comments: the
 * quotes are followed here; a comment may miscount, which only costs the
 * second parse below. */
static size_t count_slots(const char *text, size_t len)
{
    enum { DEPTH = 128 };
    char kind[DEPTH];    /* '{' or '[' per open container */
    char filled[DEPTH];  /* an array has an element */
    int depth = 0;
    char in_string = 0; /* the quote that opened it */
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == in_string)
                in_string = 0;
            continue;
        }
        if (json_space(c))
            continue;
        if (depth > 0 && kind[depth - 1] == '[' && !filled[depth - 1] && c != ']') {
            filled[depth - 1] = 1;
            n++;
        }
        if (c == '"' || c == '\'')
            in_string = c;
        else if (c == '{' || c == '[') {
            if (depth == DEPTH)
                return SIZE_MAX;
            kind[depth] = c;
            filled[depth++] = 0;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return SIZE_MAX;
            depth--;
        } else if (c == ':' && depth > 0 && kind[depth - 1] == '{')
            n++;
        else if (c == ',' && depth > 0 && kind[depth - 1] == '[')
            n++;
    }
    return n;
}

/* Members and array elements json-c built for v. */
static size_t count_built(json_object *v)
{
    size_t n = 0;
    if (json_object_is_type(v, json_type_object)) {
        json_object_object_foreach(v, key, member) {
            (void)key;
            n += 1 + count_built(member);
        }
    } else if (json_object_is_type(v, json_type_array)) {
        size_t len = json_object_array_length(v);
        n += len;
        for (size_t i = 0; i < len; i++)
            n += count_built(json_object_array_get_idx(v, i));
    }
    return n;
}

json_object *seam_json_read_with(json_tokener *tok, const char *text, size_t len)
{
    if (!text || !tok || len > INT_MAX)
        return NULL;
    json_tokener_reset(tok);
    /* json-c 0.16's parser ignores a failed allocation of a member's key or of
     * an array's growth: the member or element is dropped and the parse
     * "succeeds" (a text delta or the prompt silently lost). A failed malloc
     * sets errno, but json-c clears errno for every integer it reads, so the
     * values built are counted against the text as well. A repeated member
     * name also makes fewer: a second parse that builds as many tells it from
     * a loss (rare, so the cost does not matter). errno is put back after a
     * good parse: an encoder's earlier failure must still show (transport.c). */
    int saved = errno;
    errno = 0;
    json_object *obj = json_tokener_parse_ex(tok, text, (int)len);
    if (obj && json_tokener_get_error(tok) == json_tokener_success && errno != ENOMEM) {
        size_t end = json_tokener_get_parse_end(tok);
        size_t want = count_slots(text, end), got = count_built(obj);
        if (want != SIZE_MAX && want != got) {
            json_tokener *again = json_tokener_new();
            json_object *second = again ? json_tokener_parse_ex(again, text, (int)len) : NULL;
            if (!second || count_built(second) != got)
                errno = ENOMEM;
            json_object_put(second);
            if (again)
                json_tokener_free(again);
        }
    }
    if (!obj || json_tokener_get_error(tok) != json_tokener_success || errno == ENOMEM) {
        json_object_put(obj);
        json_tokener_reset(tok); /* drop what an incomplete parse holds */
        return NULL;
    }
    for (size_t used = json_tokener_get_parse_end(tok); used < len; used++) {
        if (!json_space(text[used])) {
            json_object_put(obj);
            return NULL;
        }
    }
    errno = saved;
    return obj;
}

json_object *seam_json_read(const char *text, size_t len, int depth)
{
    json_tokener *tok = json_tokener_new_ex(depth > 0 ? depth : JSON_TOKENER_DEFAULT_DEPTH);
    if (!tok)
        return NULL;
    json_object *obj = seam_json_read_with(tok, text, len);
    json_tokener_free(tok);
    return obj;
}

/* As json-c's own, the caller keeps val when -1 is returned (an unchecked call
 * leaks it: better than an abort). */
int seam_json_object_add(json_object *obj, const char *key, json_object *val)
{
    if (!obj || !json_object_is_type(obj, json_type_object)) {
        errno = ENOMEM;
        return -1;
    }
    return json_object_object_add(obj, key, val);
}

int seam_json_array_add(json_object *arr, json_object *val)
{
    if (!arr || !json_object_is_type(arr, json_type_array)) {
        errno = ENOMEM;
        return -1;
    }
    return json_object_array_add(arr, val);
}

json_object *seam_json_get(json_object *obj, const char *key)
{
    json_object *v = NULL;
    if (obj && key && json_object_is_type(obj, json_type_object) &&
        json_object_object_get_ex(obj, key, &v))
        return v; /* may be NULL for a JSON null */
    return NULL;
}

const char *seam_json_string(json_object *obj, const char *key)
{
    json_object *v = seam_json_get(obj, key);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int seam_json_int(json_object *obj, const char *key, int64_t *out)
{
    json_object *v = seam_json_get(obj, key);
    if (!v || !out)
        return 0;
    if (json_object_is_type(v, json_type_int)) {
        *out = json_object_get_int64(v);
        return 1;
    }
    if (json_object_is_type(v, json_type_double)) {
        /* Casting a double outside int64's range is undefined: clamp first. */
        double d = json_object_get_double(v);
        *out = d != d ? 0 : d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : (int64_t)d;
        return 1;
    }
    return 0;
}

json_object *seam_json_double(double d)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.15g", d);
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.';
    return json_object_new_double_s(d, buf);
}

const char *seam_json_text(json_object *obj)
{
    /* json-c's printer skips a piece it cannot append and still returns the
     * text; errno ENOMEM is the only sign of a text printed short. */
    int saved = errno;
    errno = 0;
    const char *text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE);
    if (errno == ENOMEM)
        return NULL; /* errno stays ENOMEM: an encode that ignores NULL still fails */
    errno = saved;
    return text;
}
