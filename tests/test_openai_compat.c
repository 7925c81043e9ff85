/* test_openai_compat.c — a third party's OpenAI-compatible provider built
 * on libseam-openai-compat (<seam/openai_compat.h>, issue 16) as its author
 * builds it: the template's acme.c (under 50 lines), compiled out of tree
 * against a staged SDK (this build's headers, libraries and .pc files under
 * a prefix of their own, reached with pkg-config alone), loaded by the real
 * loader from a plugin directory of its own, and chatting through a conf
 * chain against the fake server: the first entry's server is down, the
 * second is the fake one. The request carries the profile's auth header and
 * quirks, the answer is the openai codec's (text, <think> reasoning, usage
 * net of cache), and an error answer is classified as the openai plugin
 * classifies it. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <seam/seam.h>

static char *stage;   /* the staged SDK and the plugin directory, under the build tree */
static int built;     /* acme.so was built */

/* Stages the SDK as `make install` would lay it out in a prefix, then builds
 * the template's acme.c there with pkg-config alone. */
static int build_acme(void)
{
    stage = tu_mkdtemp_private();
    if (!stage)
        return -1;
    tu_rm_rf_at_end(stage);
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "set -e; S='%s'; B='%s'; T='%s'\n"
             "mkdir -p \"$S/include/seam\" \"$S/lib/pkgconfig\" \"$S/plugins\"\n"
             "cp \"$T\"/libcore/seam/*.h \"$T\"/sdk/seam/*.h \"$S/include/seam/\"\n"
             "for f in \"$B\"/.libs/libseam.so* \"$B\"/.libs/libseam-openai-compat.so*; do\n"
             "  ln -s \"$f\" \"$S/lib/\"\n"
             "done\n"
             "for pc in seam seam-plugin seam-openai-compat; do\n"
             "  sed -e \"s|^prefix=.*|prefix=$S|\" -e 's|^exec_prefix=.*|exec_prefix=${prefix}|' \\\n"
             "      -e 's|^libdir=.*|libdir=${exec_prefix}/lib|' \\\n"
             "      -e 's|^includedir=.*|includedir=${prefix}/include|' \\\n"
             "      \"$B/sdk/$pc.pc\" > \"$S/lib/pkgconfig/$pc.pc\"\n"
             "done\n"
             "flags=$(PKG_CONFIG_PATH=\"$S/lib/pkgconfig\" pkg-config --cflags --libs seam-openai-compat)\n"
             "case \"$flags\" in *\"$T/sdk\"*|*\"$T/libcore\"*|*\"$B/.libs\"*) echo \"pkg-config points into the tree: $flags\" >&2; exit 1;; esac\n"
             "${CC:-cc} -std=c11 -Wall -Wextra -Werror -fPIC -fvisibility=hidden -shared \\\n"
             "  -o \"$S/plugins/acme.so\" \"$T/sdk/template/acme.c\" $flags -Wl,-rpath,\"$S/lib\"\n",
             stage, TOP_BUILDDIR, TOP_SRCDIR);
    char *out = NULL, *err = NULL;
    int rc = tu_run(cmd, &out, &err);
    if (rc != 0)
        fprintf(stderr, "building acme.so failed (%d):\n%s%s\n", rc, out ? out : "", err ? err : "");
    free(out);
    free(err);
    built = rc == 0;
    return 0;
}

static void test_under_50_lines(void)
{
    char *path = tu_path(TOP_SRCDIR, "sdk/template/acme.c");
    char *text = tu_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    CU_ASSERT(lines < 50);
    free(text);
    free(path);
    CU_ASSERT_TRUE(built);
}

static const char stream[] =
    "data: {\"id\":\"a1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
    "\"content\":\"<think>Ask acme.</think>\"}}]}\n\n"
    "data: {\"id\":\"a1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello from acme.\"}}]}\n\n"
    "data: {\"id\":\"a1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
    "data: {\"id\":\"a1\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5,"
    "\"prompt_tokens_details\":{\"cached_tokens\":4}}}\n\n"
    "data: [DONE]\n\n";

static seam_client *acme_client(fake_server *srv)
{
    if (!built)
        return NULL;
    char conf[2048];
    snprintf(conf, sizeof conf,
             "plugin_path = [ \"%s/plugins\" ];\n"
             "providers = {\n"
             "  down = { plugin = \"acme\"; base_url = \"http://127.0.0.1:1/v1\";\n"
             "           api_key = \"acme-key-down\"; };\n"
             "  acme = { plugin = \"acme\"; base_url = \"@URL@/v1\"; api_key = \"acme-key-0123456789\"; };\n"
             "};\n"
             "chains = { default = ( { provider = \"down\"; model = \"acme-large\"; },\n"
             "                       { provider = \"acme\"; model = \"acme-large\"; } ); };\n",
             stage);
    return tu_client_on(srv, conf);
}

static void test_chat_through_chain(void)
{
    fake_server *srv = tu_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv);
    seam_client *c = acme_client(srv);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    fake_server_push_sse(srv, stream, 0);
    seam_request *req = tu_user_request("hi");
    tu_call r = tu_run_stream(c, NULL, NULL, req, 0);
    CU_ASSERT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT(tu_summary_is(&r,
                            "{\"text\":\"Hello from acme.\",\"reasoning\":\"Ask acme.\",\"tool_calls\":[],"
                            "\"stop\":\"stop\",\"usage\":{\"in\":8,\"out\":5,\"cache_read\":4}}",
                            "the acme answer"));
    free(r.summary);
    seam_request_free(req);

    /* The wire: Chat Completions at the conf's base_url, the key in the
     * profile's header as it is, the profile's quirks in the body. */
    CU_ASSERT_EQUAL_FATAL(fake_server_request_count(srv), 1);
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, 0), "/v1/chat/completions");
    const char *key = fake_server_request_header(srv, 0, "X-Acme-Key");
    CU_ASSERT_PTR_NOT_NULL(key);
    if (key)
        CU_ASSERT_STRING_EQUAL(key, "acme-key-0123456789");
    CU_ASSERT_PTR_NULL(fake_server_request_header(srv, 0, "Authorization"));
    json_object *body = tu_last_body(srv);
    CU_ASSERT_STRING_EQUAL(tu_json_str(body, "model"), "acme-large");
    CU_ASSERT(tu_json_equal(tu_json_at(body, "stream_options"), "{\"include_usage\":true}"));
    json_object_put(body);
    tu_client_free(c);
}

static void test_error_classified(void)
{
    fake_server *srv = tu_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv);
    seam_client *c = acme_client(srv);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    fake_server_push_json(srv, 429,
                          "{\"error\":{\"message\":\"You exceeded your current quota\","
                          "\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\"}}",
                          NULL);
    seam_request *req = tu_user_request("hi");
    tu_call r = tu_run_stream(c, "acme", "acme-large", req, 0);
    CU_ASSERT_NOT_EQUAL(r.status, SEAM_OK);
    CU_ASSERT_EQUAL(r.err.kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_FALSE(r.err.retryable); /* out of money, as the openai plugin says */
    CU_ASSERT_STRING_EQUAL(r.err.code, "insufficient_quota");
    CU_ASSERT_EQUAL(r.err.http_status, 429);
    free(r.summary);
    seam_request_free(req);
    tu_client_free(c);
}

static void test_listed(void)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "printf 'plugin_path = [ \"%s/plugins\" ];\\n' > '%s/list.conf' && "
             "SEAM_PLUGIN_PATH= '%s/cli/seam' --conf '%s/list.conf' plugins",
             stage, stage, TOP_BUILDDIR, stage);
    char *out = NULL;
    CU_ASSERT_EQUAL(tu_run(cmd, &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "acme.so"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "acme"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "loaded"));
    if (!strstr(out, "loaded"))
        fprintf(stderr, "seam plugins:\n%s\n", out);
    free(out);
}

static const tu_test tests[] = {
    {"acme.c: under 50 lines, built against the staged SDK", test_under_50_lines},
    {"a chat through a conf chain", test_chat_through_chain},
    {"an error answer classified", test_error_classified},
    {"seam plugins lists it", test_listed},
    {NULL, NULL},
};

int main(void)
{
    return tu_run_suite("openai-compat", tests, build_acme);
}
