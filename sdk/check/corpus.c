/* corpus.c — the recorded-stream corpus shared by the conformance driver
 * (tests/conformance) and the plugin authors' kit (seam-plugin-check): a
 * `*.chunks.txt` framed the way its provider family's server sends it, and a
 * result compared with the `*.expected.json` beside it under the corpus
 * README's normalization rules (doc/plugin-check.md). */
#include "config.h"

#include "corpus.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void corpus_differ(corpus_report *r, const char *fmt, ...)
{
    size_t used = strlen(r->text);
    if (used < sizeof r->text - 1) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->text + used, sizeof r->text - used, fmt, ap);
        va_end(ap);
        used = strlen(r->text);
        if (used < sizeof r->text - 1) {
            r->text[used] = '\n';
            r->text[used + 1] = '\0';
        }
    }
    r->count++;
}

/* ---- framing ------------------------------------------------------------- */

static int append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (c < *len + n + 1)
            c *= 2;
        char *p = realloc(*buf, c);
        if (!p)
            return -1;
        *buf = p;
        *cap = c;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 0;
}

char *corpus_frame(const char *family_name, const char *chunks, size_t *out_len)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int ok = 0;
    const char *line = chunks;
    while (*line) {
        size_t n = strcspn(line, "\n");
        size_t content = n;
        if (content && line[content - 1] == '\r')
            content--;
        int blank = 1;
        for (size_t i = 0; i < content; i++)
            if (line[i] != ' ' && line[i] != '\t')
                blank = 0;
        if (!blank) {
            if (strcmp(family_name, "anthropic") == 0) {
                /* event: <value of "type"> */
                char *copy = strndup(line, content);
                json_object *obj = copy ? json_tokener_parse(copy) : NULL;
                json_object *type = NULL;
                const char *t = obj && json_object_object_get_ex(obj, "type", &type)
                                    ? json_object_get_string(type)
                                    : NULL;
                int rc = 0;
                if (t)
                    rc = append(&buf, &len, &cap, "event: ", 7) ||
                         append(&buf, &len, &cap, t, strlen(t)) ||
                         append(&buf, &len, &cap, "\n", 1);
                json_object_put(obj);
                free(copy);
                if (rc || append(&buf, &len, &cap, "data: ", 6) ||
                    append(&buf, &len, &cap, line, content) || append(&buf, &len, &cap, "\n\n", 2))
                    goto done;
            } else if (strcmp(family_name, "gemini") == 0) {
                if (append(&buf, &len, &cap, "data: ", 6) || append(&buf, &len, &cap, line, content) ||
                    append(&buf, &len, &cap, "\r\n\r\n", 4))
                    goto done;
            } else {
                if (append(&buf, &len, &cap, "data: ", 6) || append(&buf, &len, &cap, line, content) ||
                    append(&buf, &len, &cap, "\n\n", 2))
                    goto done;
            }
        }
        line += n;
        if (*line == '\n')
            line++;
    }
    if (strcmp(family_name, "openai") == 0 &&
        append(&buf, &len, &cap, "data: [DONE]\n\n", 14))
        goto done;
    if (!buf && append(&buf, &len, &cap, "", 0))
        goto done;
    ok = 1;
done:
    if (!ok) {
        free(buf);
        return NULL;
    }
    *out_len = len;
    return buf;
}

/* ---- comparing ----------------------------------------------------------- */

static const char *jstring(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

/* A short, one-line view of a possibly long text for a difference report. */
static void excerpt(char *dst, size_t size, const char *s)
{
    size_t n = strlen(s);
    if (n < size) {
        memcpy(dst, s, n + 1);
    } else {
        memcpy(dst, s, size - 4);
        memcpy(dst + size - 4, "...", 4);
    }
    for (char *p = dst; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

static void compare_text(corpus_report *r, const char *what, const char *want, const char *got)
{
    if (strcmp(want, got) == 0)
        return;
    size_t i = 0;
    while (want[i] && want[i] == got[i])
        i++;
    char w[80], g[80];
    excerpt(w, sizeof w, want + i);
    excerpt(g, sizeof g, got + i);
    corpus_differ(r, "  %s differs at byte %zu (expected %zu bytes, got %zu): expected \"%s\", got \"%s\"",
           what, i, strlen(want), strlen(got), w, g);
}

void corpus_compare(corpus_report *r, json_object *expected, const seam_result *res)
{
    const seam_message *msg = seam_result_message(res);

    /* text and reasoning, each concatenated in stream order */
    char *text = NULL, *reasoning = NULL;
    size_t tlen = 0, tcap = 0, rlen = 0, rcap = 0;
    append(&text, &tlen, &tcap, "", 0);
    append(&reasoning, &rlen, &rcap, "", 0);
    json_object *calls = json_object_new_array();
    for (size_t i = 0; i < seam_message_part_count(msg); i++) {
        const seam_part *p = seam_message_part(msg, i);
        const char *t = seam_part_text(p);
        switch (seam_part_get_type(p)) {
        case SEAM_PART_TEXT:
            if (t)
                append(&text, &tlen, &tcap, t, strlen(t));
            break;
        case SEAM_PART_REASONING:
            if (t && !seam_part_redacted(p))
                append(&reasoning, &rlen, &rcap, t, strlen(t));
            break;
        case SEAM_PART_TOOL_CALL: {
            if (seam_part_provider_executed(p))
                break; /* run by the provider: not a client tool call */
            json_object *c = json_object_new_object();
            const char *id = seam_part_tool_call_id(p);
            const char *name = seam_part_tool_name(p);
            json_object_object_add(c, "id", json_object_new_string(id ? id : ""));
            json_object_object_add(c, "name", json_object_new_string(name ? name : ""));
            const char *args = seam_part_args_json(p);
            json_object *a = args ? json_tokener_parse(args) : NULL;
            json_object_object_add(c, "args", a ? a : json_object_new_string(args ? args : "(null)"));
            json_object_array_add(calls, c);
            break;
        }
        default:
            break;
        }
    }

    const char *want_text = jstring(expected, "text");
    compare_text(r, "text", want_text ? want_text : "", text);
    const char *want_reasoning = jstring(expected, "reasoning");
    compare_text(r, "reasoning", want_reasoning ? want_reasoning : "", reasoning);

    json_object *want_calls = NULL;
    json_object_object_get_ex(expected, "tool_calls", &want_calls);
    size_t nw = json_object_is_type(want_calls, json_type_array) ? json_object_array_length(want_calls) : 0;
    size_t ng = json_object_array_length(calls);
    if (nw != ng)
        corpus_differ(r, "  tool_calls: expected %zu, got %zu", nw, ng);
    for (size_t i = 0; i < nw && i < ng; i++) {
        json_object *w = json_object_array_get_idx(want_calls, i);
        json_object *g = json_object_array_get_idx(calls, i);
        json_object *wid = NULL;
        json_object_object_get_ex(w, "id", &wid);
        const char *gid = jstring(g, "id");
        if (json_object_is_type(wid, json_type_string)) {
            if (strcmp(json_object_get_string(wid), gid) != 0)
                corpus_differ(r, "  tool_calls[%zu].id: expected \"%s\", got \"%s\"", i,
                       json_object_get_string(wid), gid);
        } else if (!*gid) {
            corpus_differ(r, "  tool_calls[%zu].id: expected a non-empty id, got \"\"", i);
        }
        const char *wname = jstring(w, "name");
        if (strcmp(wname ? wname : "", jstring(g, "name")) != 0)
            corpus_differ(r, "  tool_calls[%zu].name: expected \"%s\", got \"%s\"", i, wname ? wname : "",
                   jstring(g, "name"));
        json_object *wargs = NULL, *gargs = NULL;
        json_object_object_get_ex(w, "args", &wargs);
        json_object_object_get_ex(g, "args", &gargs);
        if (!json_object_equal(wargs, gargs))
            corpus_differ(r, "  tool_calls[%zu].args: expected %s, got %s", i,
                   json_object_to_json_string_ext(wargs, JSON_C_TO_STRING_PLAIN),
                   json_object_to_json_string_ext(gargs, JSON_C_TO_STRING_PLAIN));
    }

    const char *want_stop = jstring(expected, "stop_reason");
    const char *got_stop = seam_stop_reason_name(seam_result_stop_reason(res));
    if (want_stop && strcmp(want_stop, got_stop) != 0)
        corpus_differ(r, "  stop_reason: expected %s, got %s", want_stop, got_stop);

    json_object *want_usage = NULL;
    json_object_object_get_ex(expected, "usage", &want_usage);
    const seam_usage *u = seam_result_usage(res);
    static const struct {
        const char *key;
        uint32_t bit;
        size_t offset;
    } counts[] = {
        {"input_tokens", SEAM_USAGE_INPUT, offsetof(seam_usage, input_tokens)},
        {"output_tokens", SEAM_USAGE_OUTPUT, offsetof(seam_usage, output_tokens)},
        {"cache_read_tokens", SEAM_USAGE_CACHE_READ, offsetof(seam_usage, cache_read_tokens)},
        {"cache_write_tokens", SEAM_USAGE_CACHE_WRITE, offsetof(seam_usage, cache_write_tokens)},
        {"reasoning_tokens", SEAM_USAGE_REASONING, offsetof(seam_usage, reasoning_tokens)},
        {"cost_microcents", SEAM_USAGE_COST, offsetof(seam_usage, cost_microcents)},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        json_object *v = NULL;
        if (!json_object_object_get_ex(want_usage, counts[i].key, &v) ||
            !json_object_is_type(v, json_type_int))
            continue;
        int64_t want = json_object_get_int64(v);
        int present = (u->present & counts[i].bit) != 0;
        int64_t got = present ? *(const int64_t *)(const void *)((const char *)u + counts[i].offset) : 0;
        if (got != want)
            corpus_differ(r, "  usage.%s: expected %lld, got %lld%s", counts[i].key, (long long)want,
                   (long long)got, present ? "" : " (absent)");
    }

    json_object_put(calls);
    free(text);
    free(reasoning);
}
