/* test_cassette.c — record and replay at the transport seam (issue 16):
 * a conversation recorded with SEAM_RECORD against the fake server replays
 * with SEAM_REPLAY chunk for chunk with the server stopped; the cassettes
 * hold no key (Authorization, x-api-key, x-goog-api-key, a key in a custom
 * header or in the URL), and a replay matches though the key differs; a
 * request without a cassette fails naming it; the same request asked twice
 * replays its two answers in turn; `seam chat --record DIR` then
 * `SEAM_REPLAY=DIR seam chat` prints the same bytes. */
#include "config.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

#define KEY "sk-rr-SECRET-8c1f2e3d4b5a6978"
#define OTHER_KEY "sk-rr-OTHER-0011223344556677"

static const char *tmpdir; /* tu_dir() */

#define OA(t) "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" t "\"}}]}\n\n"
#define OA_END(in, out)                                                                             \
    "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],"    \
    "\"usage\":{\"prompt_tokens\":" #in ",\"completion_tokens\":" #out ",\"total_tokens\":9}}\n\n"  \
    "data: [DONE]\n\n"

/* A client of provider p (plugin `plugin`) at base, with `key`. */
static seam_client *client_at(const char *plugin, const char *base, const char *key, const char *extra)
{
    char conf[2048];
    snprintf(conf, sizeof conf,
             "providers = { p = { plugin = \"%s\"; base_url = \"%s\"; api_key = \"%s\"; %s }; };\n", plugin,
             base, key, extra ? extra : "");
    seam_error err;
    seam_error_clear(&err);
    seam_client *c = tu_client(conf, &err);
    if (!c)
        fprintf(stderr, "client: %s\n", err.message);
    return c;
}

/* client_at made while the cassette variable var (SEAM_RECORD or SEAM_REPLAY)
 * names dir, unset again after; a fatal assertion when it cannot be made. */
static seam_client *client_taping(const char *var, const char *dir, const char *plugin,
                                  const char *base, const char *key, const char *extra)
{
    setenv(var, dir, 1);
    seam_client *c = client_at(plugin, base, key, extra);
    unsetenv(var);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

/* One turn: the chunks as text (type, text, usage), appended to log; the
 * answer's text added to the conversation. Returns the status. */
static int turn(seam_client *c, const char *model, seam_request *conv, const char *prompt, char *log,
                size_t size, seam_error *err)
{
    seam_request_add_user_text(conv, prompt);
    seam_request_set_model(conv, model);
    seam_call_options o = {.size = sizeof o, .provider = "p", .model = model};
    seam_stream *s = NULL;
    int rc = seam_stream_open(c, conv, &o, &s, err);
    const seam_chunk *ch;
    while (rc == SEAM_OK && s && (rc = seam_stream_next(s, &ch, err)) == 1) {
        size_t used = strlen(log);
        snprintf(log + used, size - used, "%s|%s|%lld/%lld\n", seam_chunk_type_name(ch->type),
                 ch->text ? ch->text : "", (long long)ch->usage.input_tokens, (long long)ch->usage.output_tokens);
        rc = SEAM_OK;
    }
    if (rc == 0 && !s)
        rc = SEAM_ERR_INVALID;
    if (rc == SEAM_OK) {
        const char *text = seam_result_text(seam_stream_result(s));
        seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
        seam_message_add_text(m, text ? text : "");
        seam_request_add_message(conv, m);
    }
    seam_stream_free(s);
    return rc;
}

/* Every cassette of dir concatenated (NULL: none); *count files. */
static char *cassettes(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    char *all = NULL;
    size_t len = 0;
    *count = 0;
    if (!d)
        return NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 9 || strcmp(e->d_name + n - 9, ".cassette") != 0)
            continue;
        char *path = tu_path(dir, e->d_name);
        size_t flen = 0;
        char *text = tu_read_file(path, &flen);
        free(path);
        if (!text)
            continue;
        all = realloc(all, len + flen + 1);
        memcpy(all + len, text, flen + 1);
        len += flen;
        free(text);
        (*count)++;
    }
    closedir(d);
    return all;
}

static void test_conversation_replays(void)
{
    char *dir = tu_path(tmpdir, "conv");
    fake_server *srv = fake_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv);
    fake_response r1 = {.body = OA("Bonjour") OA(", ça va ?") OA_END(4, 3), .split = 7, .chunked = 1};
    fake_response r2 = {.body = OA("Très ") OA("bien.") OA_END(12, 2), .split = 5, .chunked = 1};
    fake_server_push(srv, &r1);
    fake_server_push(srv, &r2);
    char base[128];
    snprintf(base, sizeof base, "%s/v1", fake_server_url(srv));

    char recorded[8192] = "", replayed[8192] = "";
    seam_error err;
    seam_client *c = client_taping("SEAM_RECORD", dir, "openai", base, KEY, NULL);
    seam_request *conv = seam_request_new();
    CU_ASSERT_EQUAL(turn(c, "gpt-4o", conv, "Salut", recorded, sizeof recorded, &err), SEAM_OK);
    CU_ASSERT_EQUAL(turn(c, "gpt-4o", conv, "Et toi ?", recorded, sizeof recorded, &err), SEAM_OK);
    seam_request_free(conv);
    tu_client_free(c);
    fake_server_stop(srv); /* nothing listens at base from here on */
    CU_ASSERT_PTR_NOT_NULL(strstr(recorded, "Très "));

    int n = 0;
    char *all = cassettes(dir, &n);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    CU_ASSERT_PTR_NULL(strstr(all, KEY));
    CU_ASSERT_PTR_NULL(strstr(all, "SECRET-8c1f"));
    CU_ASSERT_PTR_NOT_NULL(strstr(all, "header Authorization: <redacted>\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(all, "request POST "));
    CU_ASSERT_PTR_NOT_NULL(strstr(all, "response 200\n"));
    free(all);

    /* Replayed with no network, and another key: the same chunks. */
    setenv("SEAM_REPLAY", dir, 1);
    c = client_at("openai", base, OTHER_KEY, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    conv = seam_request_new();
    CU_ASSERT_EQUAL(turn(c, "gpt-4o", conv, "Salut", replayed, sizeof replayed, &err), SEAM_OK);
    CU_ASSERT_EQUAL(turn(c, "gpt-4o", conv, "Et toi ?", replayed, sizeof replayed, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(replayed, recorded);

    /* A request never recorded: an error naming it. */
    char miss[1024] = "";
    seam_error_clear(&err);
    CU_ASSERT_NOT_EQUAL(turn(c, "gpt-4o", conv, "something new", miss, sizeof miss, &err), SEAM_OK);
    if (strcmp(err.code, "cassette_miss") != 0)
        fprintf(stderr, "miss: %s [%s] %s\n", seam_error_kind_name(err.kind), err.code, err.message);
    CU_ASSERT_STRING_EQUAL(err.code, "cassette_miss");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "no cassette in"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "POST http://127.0.0.1:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "/v1/chat/completions"));
    seam_request_free(conv);
    tu_client_free(c);
    unsetenv("SEAM_REPLAY");
    free(dir);
}

/* The key leaves no trace, wherever a codec or a conf put it. */
static void test_no_key_in_any_cassette(void)
{
    static const struct {
        const char *plugin, *suffix, *extra, *body, *header;
    } cases[] = {
        {"anthropic", "/v1", NULL,
         "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\","
         "\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":1,"
         "\"output_tokens\":1}}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":"
         "{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\nevent: message_stop\ndata: "
         "{\"type\":\"message_stop\"}\n\n",
         "header x-api-key: <redacted>\n"},
        {"gemini", "/v1beta", NULL,
         "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}],\"role\":\"model\"},"
         "\"finishReason\":\"STOP\",\"index\":0}]}\r\n\r\n",
         "header x-goog-api-key: <redacted>\n"},
        /* the key in an ordinary header and in the URL's path */
        {"openai", "/" KEY "/v1", "options = { headers = { X-Tenant = \"" KEY "\"; }; };", OA("ok") OA_END(1, 1),
         "header X-Tenant: <redacted>\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "keys-%zu", i);
        char *dir = tu_path(tmpdir, name);
        fake_server *srv = fake_server_start();
        CU_ASSERT_PTR_NOT_NULL_FATAL(srv);
        fake_server_push_sse(srv, cases[i].body, 0);
        char base[256];
        snprintf(base, sizeof base, "%s%s", fake_server_url(srv), cases[i].suffix);
        seam_client *c = client_taping("SEAM_RECORD", dir, cases[i].plugin, base, KEY, cases[i].extra);
        char log[2048] = "";
        seam_error err;
        seam_request *conv = seam_request_new();
        int rc = turn(c, i == 0 ? "claude-sonnet-4-5" : i == 1 ? "gemini-2.5-flash" : "gpt-4o", conv, "hi", log,
                      sizeof log, &err);
        if (rc != SEAM_OK)
            fprintf(stderr, "%s: %s\n", cases[i].plugin, err.message);
        CU_ASSERT_EQUAL(rc, SEAM_OK);
        /* the key did reach the server: the cassette is where it must not */
        const char *path = fake_server_request_path(srv, 0);
        CU_ASSERT(i < 2 || (path && strstr(path, KEY)));
        seam_request_free(conv);
        tu_client_free(c);
        fake_server_stop(srv);
        int n = 0;
        char *all = cassettes(dir, &n);
        CU_ASSERT_EQUAL(n, 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(all);
        if (strstr(all, "SECRET-8c1f"))
            fprintf(stderr, "%s: the key is in the cassette:\n%s\n", cases[i].plugin, all);
        CU_ASSERT_PTR_NULL(strstr(all, "SECRET-8c1f"));
        CU_ASSERT_PTR_NOT_NULL(strstr(all, cases[i].header));
        free(all);
        free(dir);
    }
}

/* The same request twice gets its two recorded answers in turn. */
static void test_repeated_request_in_order(void)
{
    char *dir = tu_path(tmpdir, "twice");
    fake_server *srv = fake_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv);
    fake_server_push_sse(srv, OA("first") OA_END(1, 1), 0);
    fake_server_push_sse(srv, OA("second") OA_END(1, 1), 0);
    char base[128];
    snprintf(base, sizeof base, "%s/v1", fake_server_url(srv));
    char rec[2048] = "", rep[2048] = "";
    seam_error err;
    /* Recorded, then (the server gone) replayed. */
    for (int replay = 0; replay < 2; replay++) {
        seam_client *c = client_taping(replay ? "SEAM_REPLAY" : "SEAM_RECORD", dir, "openai", base, KEY, NULL);
        char *log = replay ? rep : rec;
        for (int i = 0; i < 2; i++) {
            seam_request *conv = seam_request_new();
            CU_ASSERT_EQUAL(turn(c, "gpt-4o", conv, "again", log, sizeof rec, &err), SEAM_OK);
            seam_request_free(conv);
        }
        tu_client_free(c);
        if (!replay)
            fake_server_stop(srv);
    }
    CU_ASSERT_STRING_EQUAL(rep, rec);
    CU_ASSERT(strstr(rep, "first") && strstr(rep, "second") && strstr(rep, "first") < strstr(rep, "second"));
    free(dir);
}

/* A whole (not streamed) answer, and an error status, replay too. */
static void test_whole_answer_and_error(void)
{
    char *dir = tu_path(tmpdir, "whole");
    fake_server *srv = fake_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv);
    const char *json = "{\"id\":\"c9\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
                       "{\"role\":\"assistant\",\"content\":\"entier\"},\"finish_reason\":\"stop\"}],"
                       "\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":1,\"total_tokens\":3}}";
    fake_server_push_json(srv, 200, json, NULL);
    fake_server_push_json(srv, 429, "{\"error\":{\"message\":\"slow down\",\"type\":\"rate_limit\"}}",
                          "Retry-After: 7\r\n");
    char base[128];
    snprintf(base, sizeof base, "%s/v1", fake_server_url(srv));
    seam_call_options o = {.size = sizeof o, .provider = "p", .model = "gpt-4o"};
    seam_result *res[2] = {NULL, NULL};
    seam_error err[2];
    int rc[2];
    for (int replay = 0; replay < 2; replay++) {
        seam_client *c = client_taping(replay ? "SEAM_REPLAY" : "SEAM_RECORD", dir, "openai", base, KEY, NULL);
        seam_request *req = seam_request_new();
        seam_request_add_user_text(req, "whole");
        seam_error scratch;
        rc[replay] = seam_generate(c, req, &o, &res[replay], &scratch);
        seam_result_free(res[replay]);
        res[replay] = NULL;
        seam_request_free(req);
        req = seam_request_new();
        seam_request_add_user_text(req, "refused");
        seam_error_clear(&err[replay]);
        CU_ASSERT_NOT_EQUAL(seam_generate(c, req, &o, &res[replay], &err[replay]), SEAM_OK);
        seam_request_free(req);
        tu_client_free(c);
        if (!replay)
            fake_server_stop(srv);
    }
    CU_ASSERT_EQUAL(rc[0], SEAM_OK);
    CU_ASSERT_EQUAL(rc[1], SEAM_OK);
    CU_ASSERT_EQUAL(err[1].kind, SEAM_ERROR_RATE_LIMIT);
    CU_ASSERT_EQUAL(err[1].http_status, 429);
    CU_ASSERT_EQUAL(err[1].retry_after_ms, 7000);
    CU_ASSERT_STRING_EQUAL(err[1].message, err[0].message);
    free(dir);
}

/* A replay directory that does not exist fails the client, naming it. */
static void test_bad_directory(void)
{
    setenv("SEAM_REPLAY", "/nonexistent/seam-cassettes", 1);
    seam_error err;
    seam_error_clear(&err);
    seam_client *c = tu_client("", &err);
    unsetenv("SEAM_REPLAY");
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "SEAM_REPLAY=/nonexistent/seam-cassettes"));
    tu_client_free(c);
}

/* The CLI: --record, then the same command replayed with the server gone. */
static void test_cli_record_replay(void)
{
    char *dir = tu_path(tmpdir, "cli");
    char *conf = tu_path(tmpdir, "cli.conf");
    fake_server *srv = fake_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv);
    fake_response r = {.body = OA("Hello ") OA("from ") OA("the past") OA_END(5, 3), .split = 9, .chunked = 1};
    fake_server_push(srv, &r);
    char text[1024];
    snprintf(text, sizeof text,
             "model_catalog = \"\";\nproviders = { p = { plugin = \"openai\"; base_url = \"%s/v1\"; "
             "api_key = \"" KEY "\"; }; };\n",
             fake_server_url(srv));
    CU_ASSERT_EQUAL_FATAL(tu_write_file(conf, text), 0);
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "SEAM_PLUGIN_PATH='%s' '%s/cli/seam' --conf '%s' chat --record '%s' --json --provider p "
             "--model gpt-4o 'tell me'",
             tu_plugin_dir(), TOP_BUILDDIR, conf, dir);
    char *out1 = NULL, *out2 = NULL, *err1 = NULL, *err2 = NULL;
    CU_ASSERT_EQUAL(tu_run(cmd, &out1, &err1), 0);
    fake_server_stop(srv);
    snprintf(cmd, sizeof cmd,
             "SEAM_REPLAY='%s' SEAM_PLUGIN_PATH='%s' '%s/cli/seam' --conf '%s' chat --json --provider p "
             "--model gpt-4o 'tell me'",
             dir, tu_plugin_dir(), TOP_BUILDDIR, conf);
    CU_ASSERT_EQUAL(tu_run(cmd, &out2, &err2), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out1, "the past"));
    CU_ASSERT_STRING_EQUAL(out2, out1);
    if (strcmp(out1, out2) != 0)
        fprintf(stderr, "recorded:\n%s\nreplayed:\n%s\n%s\n", out1, out2, err2 ? err2 : "");
    int n = 0;
    char *all = cassettes(dir, &n);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT(all && !strstr(all, KEY));
    free(all);
    free(out1);
    free(out2);
    free(err1);
    free(err2);
    free(conf);
    free(dir);
}

static const tu_test tests[] = {
    { "a recorded conversation replays with the server stopped", test_conversation_replays },
    { "no key in any cassette", test_no_key_in_any_cassette },
    { "the same request twice replays in order", test_repeated_request_in_order },
    { "a whole answer and an error status replay", test_whole_answer_and_error },
    { "a bad replay directory fails the client", test_bad_directory },
    { "seam chat --record, then SEAM_REPLAY", test_cli_record_replay },
    { NULL, NULL },
};

int main(void)
{
    unsetenv("SEAM_RECORD");
    unsetenv("SEAM_REPLAY");
    tmpdir = tu_dir();
    if (!tmpdir)
        return 1;
    return tu_run_suite("cassette", tests, NULL);
}
