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
 * "absent" means the provider did not say, and the expected files write 0).
 * The framing and the comparison live in sdk/check/corpus.c, shared with
 * seam-plugin-check. */
#include "config.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
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

/* ---- one run --------------------------------------------------------------- */

static void run_once(const family *fam, fake_server *srv, const char *body, size_t len, size_t split,
                     json_object *expected, corpus_report *r)
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
        corpus_differ(r, "  cannot create a client: %s", err.message);
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
        corpus_differ(r, "  the stream failed: %s: %s", seam_error_kind_name(err.kind), err.message);
    } else {
        corpus_compare(r, expected, seam_stream_result(s));
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
    char *body = corpus_frame(fam->name, chunks, &len);
    fake_server *srv = fake_server_start();
    corpus_report one_byte = {{0}, 0}, whole = {{0}, 0};
    if (!body || !srv) {
        corpus_differ(&whole, "  cannot %s", !body ? "frame the stream" : "start the fake server");
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
