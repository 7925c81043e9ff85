/* conformance.c — the wire conformance driver: serves one recorded provider
 * stream (a `*.chunks.txt` of the corpus, one event payload per line) from the
 * fake server on 127.0.0.1, framed the way that provider family frames it, runs
 * it through the real plugin for the family (loaded by the real loader) with
 * seam_stream, and compares the accumulated result with the `*.expected.json`
 * beside it. The stream is served twice: one byte per TCP segment, then whole.
 *
 *   tests/conformance FAMILY CHUNKS_FILE EXPECTED_JSON
 *
 * FAMILY is openai | anthropic | gemini. Prints one PASS or FAIL line per file
 * (with each difference below a FAIL) and exits 0 only when both runs match.
 *
 * What is compared (the corpus README's normalization rules): text, reasoning,
 * the client tool calls in order (id, where an expected null means any
 * non-empty id; name; args deep-equal as JSON), stop_reason, and each usage
 * count the expected file names (a count the plugin left absent compares as 0:
 * "absent" means the provider did not say, and the expected files write 0). */
#include "config.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

typedef struct family {
    const char *name;   /* also the plugin's provider id */
    const char *model;  /* any model id the plugin accepts */
    const char *url_suffix;
} family;

static const family families[] = {
    {"openai", "gpt-4.1-mini", "/v1"},
    {"anthropic", "claude-sonnet-4-5", "/v1"},
    {"gemini", "gemini-2.5-flash", "/v1beta"},
};

/* Differences found, one per line. */
typedef struct report {
    char text[8192];
    int count;
} report;

#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
static void differ(report *r, const char *fmt, ...)
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

/* The chunks file as the family's server would have sent it. NULL on failure. */
static char *frame_stream(const char *family_name, const char *chunks, size_t *out_len)
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

static void compare_text(report *r, const char *what, const char *want, const char *got)
{
    if (strcmp(want, got) == 0)
        return;
    size_t i = 0;
    while (want[i] && want[i] == got[i])
        i++;
    char w[80], g[80];
    excerpt(w, sizeof w, want + i);
    excerpt(g, sizeof g, got + i);
    differ(r, "  %s differs at byte %zu (expected %zu bytes, got %zu): expected \"%s\", got \"%s\"",
           what, i, strlen(want), strlen(got), w, g);
}

static void compare_result(report *r, json_object *expected, const seam_result *res)
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
        differ(r, "  tool_calls: expected %zu, got %zu", nw, ng);
    for (size_t i = 0; i < nw && i < ng; i++) {
        json_object *w = json_object_array_get_idx(want_calls, i);
        json_object *g = json_object_array_get_idx(calls, i);
        json_object *wid = NULL;
        json_object_object_get_ex(w, "id", &wid);
        const char *gid = jstring(g, "id");
        if (json_object_is_type(wid, json_type_string)) {
            if (strcmp(json_object_get_string(wid), gid) != 0)
                differ(r, "  tool_calls[%zu].id: expected \"%s\", got \"%s\"", i,
                       json_object_get_string(wid), gid);
        } else if (!*gid) {
            differ(r, "  tool_calls[%zu].id: expected a non-empty id, got \"\"", i);
        }
        const char *wname = jstring(w, "name");
        if (strcmp(wname ? wname : "", jstring(g, "name")) != 0)
            differ(r, "  tool_calls[%zu].name: expected \"%s\", got \"%s\"", i, wname ? wname : "",
                   jstring(g, "name"));
        json_object *wargs = NULL, *gargs = NULL;
        json_object_object_get_ex(w, "args", &wargs);
        json_object_object_get_ex(g, "args", &gargs);
        if (!json_object_equal(wargs, gargs))
            differ(r, "  tool_calls[%zu].args: expected %s, got %s", i,
                   json_object_to_json_string_ext(wargs, JSON_C_TO_STRING_PLAIN),
                   json_object_to_json_string_ext(gargs, JSON_C_TO_STRING_PLAIN));
    }

    const char *want_stop = jstring(expected, "stop_reason");
    const char *got_stop = seam_stop_reason_name(seam_result_stop_reason(res));
    if (want_stop && strcmp(want_stop, got_stop) != 0)
        differ(r, "  stop_reason: expected %s, got %s", want_stop, got_stop);

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
            differ(r, "  usage.%s: expected %lld, got %lld%s", counts[i].key, (long long)want,
                   (long long)got, present ? "" : " (absent)");
    }

    json_object_put(calls);
    free(text);
    free(reasoning);
}

/* ---- one run --------------------------------------------------------------- */

static void run_once(const family *fam, fake_server *srv, const char *body, size_t len, size_t split,
                     json_object *expected, report *r)
{
    char conf[2048];
    snprintf(conf, sizeof conf,
             "providers = { under_test = { plugin = \"%s\"; base_url = \"%s%s\";"
             " api_key = \"sk-conformance-0000\"; idle_timeout_ms = 20000; }; };\n",
             fam->name, fake_server_url(srv), fam->url_suffix);
    seam_error err;
    seam_error_clear(&err);
    seam_client *client = tu_client(conf, &err);
    if (!client) {
        differ(r, "  cannot create a client: %s", err.message);
        return;
    }
    fake_response fr = {.body = body, .body_len = len, .split = split, .chunked = 1};
    fake_server_push(srv, &fr);

    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "conformance");
    seam_request_set_model(req, fam->model);
    seam_call_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.provider = "under_test";
    o.model = fam->model;
    seam_stream *s = NULL;
    int rc = seam_stream_open(client, req, &o, &s, &err);
    if (rc == SEAM_OK) {
        const seam_chunk *c;
        while ((rc = seam_stream_next(s, &c, &err)) == 1)
            ;
    }
    if (rc != SEAM_OK) {
        differ(r, "  the stream failed: %s: %s", seam_error_kind_name(err.kind), err.message);
    } else {
        compare_result(r, expected, seam_stream_result(s));
    }
    seam_stream_free(s);
    seam_request_free(req);
    tu_client_free(client);
}

static const family *find_family(const char *name)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strcmp(families[i].name, name) == 0)
            return &families[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s openai|anthropic|gemini CHUNKS_FILE EXPECTED_JSON\n", argv[0]);
        return 2;
    }
    const family *fam = find_family(argv[1]);
    if (!fam) {
        fprintf(stderr, "%s: unknown family \"%s\" (openai, anthropic or gemini)\n", argv[0], argv[1]);
        return 2;
    }
    /* Run by hand from anywhere: the plugins of this build, by absolute path. */
    const char *dir = getenv("SEAM_TEST_PLUGIN_DIR");
    if (!dir || !*dir)
        setenv("SEAM_TEST_PLUGIN_DIR", TOP_BUILDDIR "/plugins/.libs", 1);
    const char *base = strrchr(argv[2], '/');
    base = base ? base + 1 : argv[2];

    char *chunks = tu_read_file(argv[2], NULL);
    char *expected_text = tu_read_file(argv[3], NULL);
    json_object *expected = expected_text ? json_tokener_parse(expected_text) : NULL;
    if (!chunks || !json_object_is_type(expected, json_type_object)) {
        printf("FAIL %s/%s\n  cannot read %s\n", fam->name, base,
               !chunks ? argv[2] : argv[3]);
        free(chunks);
        free(expected_text);
        json_object_put(expected);
        return 1;
    }
    size_t len = 0;
    char *body = frame_stream(fam->name, chunks, &len);
    fake_server *srv = fake_server_start();
    report one_byte = {{0}, 0}, whole = {{0}, 0};
    if (!body || !srv) {
        differ(&whole, "  cannot %s", !body ? "frame the stream" : "start the fake server");
    } else {
        run_once(fam, srv, body, len, 1, expected, &one_byte);
        run_once(fam, srv, body, len, 0, expected, &whole);
    }
    int failed = one_byte.count + whole.count > 0;
    printf("%s %s/%s\n", failed ? "FAIL" : "PASS", fam->name, base);
    if (one_byte.count)
        printf("  split one byte at a time:\n%s", one_byte.text);
    if (whole.count)
        printf("  served whole:\n%s", whole.text);
    fflush(stdout);
    if (srv)
        fake_server_stop(srv);
    free(body);
    free(chunks);
    free(expected_text);
    json_object_put(expected);
    return failed ? 1 : 0;
}
