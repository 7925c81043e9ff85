/* seam-plugin-check.c — the conformance kit for provider plugins, installed
 * for third-party authors (seam-plugin-check(1)):
 *
 *   seam-plugin-check PLUGIN_FILE [--corpus DIR] [--provider ID] [--wire FAMILY]
 *                     [--model MODEL] [--seed N] [--cuts N]
 *
 * Loads PLUGIN_FILE through libseam's own loader and trust checks (from a
 * private directory holding a link to it, so no other plugin takes part), then
 * runs each provider it registers through:
 *   - load and ABI: the loader's verdict, the declared ABI against this seam's;
 *   - encode: a streamed and a whole request, captured by a real HTTP server on
 *     127.0.0.1, carry the provider's required fields (a table keyed by
 *     provider id or --wire; generic checks for any other wire);
 *   - corpus: each recorded stream of DIR (`*.chunks.txt` framed per family, or
 *     `*.sse` served as is, each beside its `*.expected.json`) served whole,
 *     one byte at a time and cut at random byte positions (seeded, printed);
 *   - faults: HTTP error statuses, cut and reset streams, garbage lines and an
 *     error event inside a 200 stream, each with its expected classification.
 * One PASS/FAIL/SKIP line per case, a summary "N passed, N failed"; exit 0
 * only when no case failed (and one passed), 1 otherwise, 2 on bad usage. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "corpus.h"
#include "fakeserver.h"
#include <seam/plugin.h>
#include <seam/seam.h>

#define KEY "sk-seamcheck-5f1e9a7c3b2d48e6"
#define PROMPT "seam-plugin-check probe 7f3a"
#define REPORT_MAX 16384

/* ---- what the kit knows of a wire ------------------------------------------------ */

typedef struct wire {
    const char *id;          /* provider id, and --wire name */
    const char *model;
    const char *url_suffix;
    const char *required[4]; /* members every request body carries */
    int stream_flag;         /* a streamed request says "stream": true */
    int model_in_path;       /* the model is in the URL path, not the body */
    const char *sample;      /* a complete short answer: "Hel" + "lo", then its end */
    size_t sample_split;     /* where the second text event starts in sample */
    const char *garbage;     /* a line that is no event of the wire */
    const char *stream_error;/* an overloaded error event inside a 200 stream */
} wire;

#define OA_TEXT(t) "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" t "\"}}]}\n\n"
#define AN_START                                                                                    \
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","       \
    "\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\","    \
    "\"stop_reason\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"                 \
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"              \
    "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
#define AN_TEXT(t)                                                                                  \
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"              \
    "\"delta\":{\"type\":\"text_delta\",\"text\":\"" t "\"}}\n\n"
#define GM_TEXT(t)                                                                                  \
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"" t "\"}],\"role\":\"model\"},"    \
    "\"index\":0}]}\r\n\r\n"

static const wire wires[] = {
    {"openai", "gpt-4.1-mini", "/v1", {"model", "messages", NULL}, 1, 0,
     OA_TEXT("Hel") OA_TEXT("lo")
     "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
     "data: [DONE]\n\n",
     sizeof(OA_TEXT("Hel")) - 1,
     "data: {this is not json\n\n",
     "data: {\"error\":{\"message\":\"The server had an error while processing your request.\","
     "\"type\":\"server_error\",\"code\":null}}\n\n"},
    {"anthropic", "claude-sonnet-4-5", "/v1", {"model", "messages", "max_tokens", NULL}, 1, 0,
     AN_START AN_TEXT("Hel") AN_TEXT("lo")
     "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
     "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
     "\"usage\":{\"output_tokens\":2}}\n\n"
     "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
     sizeof(AN_START AN_TEXT("Hel")) - 1,
     "event: content_block_delta\ndata: {this is not json\n\n",
     "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"},
    {"gemini", "gemini-2.5-flash", "/v1beta", {"contents", NULL}, 0, 1,
     GM_TEXT("Hel") GM_TEXT("lo")
     "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},"
     "\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":5,"
     "\"candidatesTokenCount\":2,\"totalTokenCount\":7}}\r\n\r\n",
     sizeof(GM_TEXT("Hel")) - 1,
     "data: {this is not json\r\n\r\n",
     "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded. Please try again later.\","
     "\"status\":\"UNAVAILABLE\"}}\r\n\r\n"},
};

/* An unknown wire: only what holds for every provider is checked. */
static const wire generic_wire = {"", "test-model", "/v1", {NULL}, 0, 0, NULL, 0, NULL, NULL};

static const wire *find_wire(const char *id)
{
    for (size_t i = 0; i < sizeof wires / sizeof wires[0]; i++)
        if (strcmp(wires[i].id, id) == 0)
            return &wires[i];
    return NULL;
}

/* The HTTP faults and the kind the core's contract gives each status
 * (seam_error_from_http_status; a plugin may refine only from the body). */
static const struct {
    int status;
    seam_error_kind kind;
} http_faults[] = {
    {400, SEAM_ERROR_BAD_REQUEST}, {401, SEAM_ERROR_AUTH},          {403, SEAM_ERROR_AUTH},
    {404, SEAM_ERROR_MODEL_NOT_FOUND}, {408, SEAM_ERROR_TIMEOUT},   {429, SEAM_ERROR_RATE_LIMIT},
    {500, SEAM_ERROR_OVERLOADED},  {502, SEAM_ERROR_OVERLOADED},    {503, SEAM_ERROR_OVERLOADED},
    {504, SEAM_ERROR_TIMEOUT},     {529, SEAM_ERROR_OVERLOADED},
};

/* An error body in the wire's shape, neutral in what it says: the status
 * decides the kind. */
static void error_body(const wire *w, int status, const char *msg, char *buf, size_t size)
{
    const char *an = status == 401 ? "authentication_error" : status == 403 ? "permission_error"
                   : status == 404 ? "not_found_error" : status == 429 ? "rate_limit_error"
                   : status == 529 ? "overloaded_error" : status == 408 || status == 504 ? "timeout_error"
                   : status >= 500 ? "api_error"
                   : "invalid_request_error";
    const char *gm = status == 400 ? "INVALID_ARGUMENT" : status == 401 ? "UNAUTHENTICATED"
                   : status == 403 ? "PERMISSION_DENIED" : status == 404 ? "NOT_FOUND"
                   : status == 429 ? "RESOURCE_EXHAUSTED" : status == 408 || status == 504 ? "DEADLINE_EXCEEDED"
                   : status == 500 ? "INTERNAL" : "UNAVAILABLE";
    if (strcmp(w->id, "anthropic") == 0)
        snprintf(buf, size, "{\"type\":\"error\",\"error\":{\"type\":\"%s\",\"message\":\"%s\"}}", an, msg);
    else if (strcmp(w->id, "gemini") == 0)
        snprintf(buf, size, "{\"error\":{\"code\":%d,\"message\":\"%s\",\"status\":\"%s\"}}", status, msg, gm);
    else
        snprintf(buf, size, "{\"error\":{\"message\":\"%s\",\"type\":\"%s\",\"code\":null}}", msg,
                 status >= 500 ? "server_error" : "invalid_request_error");
}

/* ---- results ----------------------------------------------------------------------- */

static int n_passed, n_failed, n_skipped;

#ifdef __GNUC__
__attribute__((format(printf, 3, 4)))
#endif
static void verdict(int ok, const char *details, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(ok ? "PASS " : "FAIL ", stdout);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    if (!ok && details && *details)
        fputs(details, stdout);
    fflush(stdout);
    if (ok)
        n_passed++;
    else
        n_failed++;
}

#ifdef __GNUC__
__attribute__((format(printf, 1, 2)))
#endif
static void skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("SKIP ", stdout);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
    n_skipped++;
}

/* ---- small helpers ------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *p = realloc(buf, cap);
            if (!p) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = p;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int rc = fputs(text, f) < 0;
    rc |= fclose(f) != 0;
    return rc ? -1 : 0;
}

/* A conf string literal (the paths may hold quotes or backslashes). */
static void conf_quote(char *dst, size_t size, const char *s)
{
    size_t n = 0;
    for (; *s && n + 3 < size; s++) {
        if (*s == '"' || *s == '\\')
            dst[n++] = '\\';
        dst[n++] = *s;
    }
    dst[n] = '\0';
}

/* xorshift64*: the random cuts, reproducible from the printed seed. */
static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* ---- the run's setting ---------------------------------------------------------------- */

typedef struct kit {
    const char *plugin_file;
    char *plugin_real;
    char *work;           /* private temp dir: confs and the plugin link */
    char plugin_dir[PATH_MAX];
    const char *corpus;
    const char *provider;
    const char *wire_name;
    const char *model;
    unsigned cuts;
    fake_server *srv;
} kit;

/* A client with one provider, under_test, of plugin id `id` at the fake server. */
static seam_client *make_client(kit *k, const char *id, const char *base_url, seam_error *err)
{
    char dir[PATH_MAX * 2], conf[PATH_MAX * 4], path[PATH_MAX + 32];
    conf_quote(dir, sizeof dir, k->plugin_dir);
    snprintf(conf, sizeof conf,
             "plugin_path = [ \"%s\" ];\nmodel_catalog = \"\";\n"
             "providers = { under_test = { plugin = \"%s\"; base_url = \"%s%s\"; api_key = \"" KEY "\";\n"
             "  timeout_ms = 20000; idle_timeout_ms = 10000; connect_timeout_ms = 5000; }; };\n",
             dir, id, base_url, "");
    snprintf(path, sizeof path, "%s/seam.conf", k->work);
    if (write_file(path, conf) != 0) {
        seam_error_set(err, SEAM_ERROR_CONF, "cannot write %s: %s", path, strerror(errno));
        return NULL;
    }
    seam_client_options o = {0};
    o.size = sizeof o;
    o.conf_path = path;
    o.no_default_plugin_dirs = 1;
    seam_client *c = NULL;
    if (seam_client_new(&o, &c, err) != SEAM_OK)
        return NULL;
    return c;
}

/* One call on under_test: *res (caller frees) when it succeeded. Returns the
 * status; err filled on failure. */
static int call(seam_client *c, const char *model, int stream, seam_result **res, seam_error *err)
{
    *res = NULL;
    seam_error_clear(err);
    seam_request *req = seam_request_new();
    if (!req)
        return SEAM_ERR_NOMEM;
    seam_request_set_system(req, "You are checked by seam-plugin-check.");
    seam_request_add_user_text(req, PROMPT);
    seam_request_set_model(req, model);
    seam_call_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.provider = "under_test";
    o.model = model;
    int rc;
    if (stream) {
        seam_stream *s = NULL;
        rc = seam_stream_open(c, req, &o, &s, err);
        if (rc == SEAM_OK) {
            /* The chunks as an application sees them, accumulated. */
            seam_result *acc = seam_result_new();
            const seam_chunk *ch;
            while (acc && (rc = seam_stream_next(s, &ch, err)) == 1)
                if (seam_result_add_chunk(acc, ch) != SEAM_OK)
                    rc = SEAM_ERR_NOMEM;
            if (!acc)
                rc = SEAM_ERR_NOMEM;
            if (rc == SEAM_OK)
                *res = acc;
            else
                seam_result_free(acc);
        }
        seam_stream_free(s);
    } else {
        rc = seam_generate(c, req, &o, res, err);
    }
    seam_request_free(req);
    return rc;
}

/* ---- load and ABI ------------------------------------------------------------------- */

/* Links the plugin into a private directory under its own name, so that the
 * loader's trust rule applies to the real file and its directories and no
 * other plugin is loaded. Returns the provider ids (malloc'ed), NULL when the
 * plugin was refused (a FAIL line printed). */
static char *check_load(kit *k)
{
    const char *base = strrchr(k->plugin_real, '/');
    base = base ? base + 1 : k->plugin_real;
    snprintf(k->plugin_dir, sizeof k->plugin_dir, "%s/plugins", k->work);
    char link_path[PATH_MAX * 2];
    snprintf(link_path, sizeof link_path, "%s/%s", k->plugin_dir, base);
    if (mkdir(k->plugin_dir, 0700) != 0 || symlink(k->plugin_real, link_path) != 0) {
        verdict(0, NULL, "load: cannot prepare %s: %s", k->plugin_dir, strerror(errno));
        return NULL;
    }
    seam_error err;
    seam_error_clear(&err);
    seam_client *c = make_client(k, "none", "http://127.0.0.1:9", &err);
    if (!c) {
        verdict(0, NULL, "load: cannot create a client: %s", err.message);
        return NULL;
    }
    char *ids = NULL;
    size_t n = seam_client_plugin_count(c);
    seam_plugin_info info;
    if (n != 1 || seam_client_plugin_at(c, 0, &info) != SEAM_OK) {
        verdict(0, NULL, "load: the loader did not see %s", k->plugin_real);
    } else if (!info.loaded) {
        verdict(0, NULL, "load: refused by the loader: %s", info.reason ? info.reason : "(no reason)");
    } else {
        verdict(1, NULL, "load: %s trusted and loaded by the loader (providers %s)", base, info.provider_ids);
        unsigned major = SEAM_PLUGIN_ABI_MAJOR_OF(info.abi_version);
        unsigned minor = SEAM_PLUGIN_ABI_MINOR_OF(info.abi_version);
        verdict(major == SEAM_PLUGIN_ABI_MAJOR && minor <= SEAM_PLUGIN_ABI_MINOR, NULL,
                "abi: declares plugin ABI %u.%u, this seam speaks %u.%u", major, minor,
                SEAM_PLUGIN_ABI_MAJOR, SEAM_PLUGIN_ABI_MINOR);
        if (info.reason && *info.reason)
            verdict(0, NULL, "vtable: some providers were refused: %s", info.reason);
        else
            verdict(*info.provider_ids != '\0', NULL,
                    "vtable: every registered vtable passed the loader's checks (version, size, id, mandatory members)");
        ids = strdup(info.provider_ids);
    }
    seam_client_free(c);
    return ids;
}

/* ---- encode ------------------------------------------------------------------------- */

/* Checks the request the server recorded at index i. Returns the number of
 * problems, each appended to rep. */
static void check_request(kit *k, const wire *w, const char *model, size_t i, int stream, corpus_report *rep)
{
    const char *method = fake_server_request_method(k->srv, i);
    const char *path = fake_server_request_path(k->srv, i);
    const char *body = fake_server_request_body(k->srv, i);
    if (!method || strcmp(method, "POST") != 0)
        corpus_differ(rep, "  method: expected POST, got %s", method ? method : "(none)");
    if (!body || !*body) {
        corpus_differ(rep, "  the request has no body");
        return;
    }
    if (!strstr(body, PROMPT))
        corpus_differ(rep, "  the body does not carry the prompt \"%s\"", PROMPT);
    if (strstr(body, KEY))
        corpus_differ(rep, "  the credential is in the body (it belongs in a header)");
    int key_sent = path && strstr(path, KEY) != NULL;
    static const char *const auth_headers[] = {"authorization", "x-api-key", "x-goog-api-key", "api-key"};
    for (size_t h = 0; h < sizeof auth_headers / sizeof auth_headers[0]; h++) {
        const char *v = fake_server_request_header(k->srv, i, auth_headers[h]);
        if (v && strstr(v, KEY))
            key_sent = 1;
    }
    if (!key_sent)
        corpus_differ(rep, "  the configured credential is sent in none of Authorization, x-api-key, "
                           "x-goog-api-key, api-key or the query");
    if (!w->id[0]) {
        /* Generic: the model must reach the provider somewhere. */
        if (!strstr(body, model) && !(path && strstr(path, model)) && !fake_server_request_has_value(k->srv, i, model))
            corpus_differ(rep, "  the model \"%s\" is in neither the body, the URL nor a header", model);
        return;
    }
    json_object *obj = json_tokener_parse(body);
    if (!json_object_is_type(obj, json_type_object)) {
        corpus_differ(rep, "  the body is not a JSON object");
        json_object_put(obj);
        return;
    }
    for (size_t r = 0; r < 4 && w->required[r]; r++) {
        json_object *v = NULL;
        if (!json_object_object_get_ex(obj, w->required[r], &v) || !v)
            corpus_differ(rep, "  the body lacks \"%s\"", w->required[r]);
        else if (json_object_is_type(v, json_type_array) && json_object_array_length(v) == 0)
            corpus_differ(rep, "  \"%s\" is an empty array", w->required[r]);
    }
    json_object *v = NULL;
    if (!w->model_in_path) {
        if (json_object_object_get_ex(obj, "model", &v) && strcmp(json_object_get_string(v), model) != 0)
            corpus_differ(rep, "  \"model\" is \"%s\", expected \"%s\"", json_object_get_string(v), model);
    } else if (!path || !strstr(path, model)) {
        corpus_differ(rep, "  the URL %s does not name the model \"%s\"", path ? path : "", model);
    }
    if (w->stream_flag && stream &&
        !(json_object_object_get_ex(obj, "stream", &v) && json_object_get_boolean(v)))
        corpus_differ(rep, "  a streamed request lacks \"stream\": true");
    if (json_object_object_get_ex(obj, "max_tokens", &v) && w->required[2] &&
        strcmp(w->required[2], "max_tokens") == 0 && json_object_get_int64(v) <= 0)
        corpus_differ(rep, "  \"max_tokens\" is not a positive integer");
    json_object_put(obj);
}

/* Returns 1 when the provider answers in-process (serve): no request reaches
 * the server, and the network cases do not apply. */
static int check_encode(kit *k, seam_client *c, const char *id, const wire *w, const char *model)
{
    int served = 0;
    for (int stream = 1; stream >= 0; stream--) {
        corpus_report rep = {{0}, 0};
        size_t before = fake_server_request_count(k->srv);
        char body[512];
        error_body(w->id[0] ? w : &wires[0], 400, "seam-plugin-check: the request was recorded", body,
                   sizeof body);
        fake_server_push_json(k->srv, 400, body, NULL);
        seam_result *res = NULL;
        seam_error err;
        int rc = call(c, model, stream, &res, &err);
        seam_result_free(res);
        size_t after = fake_server_request_count(k->srv);
        if (after == before) {
            if (rc == SEAM_OK) {
                served = 1;
                verdict(1, NULL, "encode %s %s: answered in-process (serve hook)", id,
                        stream ? "stream" : "whole");
            } else {
                verdict(0, NULL, "encode %s %s: no request was sent: %s: %s", id, stream ? "stream" : "whole",
                        seam_error_kind_name(err.kind), err.message);
            }
            continue;
        }
        if (after - before != 1)
            corpus_differ(&rep, "  %zu requests for one call (a 400 is not retried)", after - before);
        check_request(k, w, model, before, stream, &rep);
        verdict(rep.count == 0, rep.text, "encode %s %s: %s %s carries %s", id, stream ? "stream" : "whole",
                fake_server_request_method(k->srv, before) ? fake_server_request_method(k->srv, before) : "?",
                fake_server_request_path(k->srv, before) ? fake_server_request_path(k->srv, before) : "?",
                w->id[0] ? "the wire's required fields" : "the prompt, the model and the credential");
        if (served)
            break;
    }
    return served;
}

/* ---- corpus --------------------------------------------------------------------------- */

/* One serving of body in the given pieces (NULL, 0: whole); differences in rep. */
static void corpus_run(kit *k, seam_client *c, const char *model, const char *body, size_t len,
                       const size_t *pieces, size_t n_pieces, size_t split, json_object *expected,
                       corpus_report *rep)
{
    fake_response fr = {.body = body, .body_len = len, .split = split, .chunked = 1,
                        .pieces = pieces, .n_pieces = n_pieces, .delay_ms = n_pieces ? 2 : 0};
    fake_server_push(k->srv, &fr);
    seam_result *res = NULL;
    seam_error err;
    int rc = call(c, model, 1, &res, &err);
    if (rc != SEAM_OK)
        corpus_differ(rep, "  the stream failed: %s: %s", seam_error_kind_name(err.kind), err.message);
    else
        corpus_compare(rep, expected, res);
    seam_result_free(res);
}

static void corpus_case(kit *k, seam_client *c, const char *family, const char *model, const char *dir,
                        const char *name, int raw)
{
    char path[PATH_MAX * 2], epath[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t stem = strlen(name) - (raw ? strlen(".sse") : strlen(".chunks.txt"));
    snprintf(epath, sizeof epath, "%s/%.*s.expected.json", dir, (int)stem, name);
    const char *shown = strrchr(dir, '/');
    shown = shown ? shown + 1 : dir;
    size_t len = 0;
    char *text = read_file(path, &len);
    char *etext = read_file(epath, NULL);
    json_object *expected = etext ? json_tokener_parse(etext) : NULL;
    char *body = NULL;
    if (text && !raw)
        body = corpus_frame(family, text, &len);
    else if (text)
        body = text, text = NULL;
    if (!body || !json_object_is_type(expected, json_type_object)) {
        verdict(0, NULL, "corpus %s/%s: cannot read %s", shown, name, !body ? path : epath);
        goto done;
    }
    static char details[REPORT_MAX];
    details[0] = '\0';
    int failed = 0;
    corpus_report rep = {{0}, 0};
    corpus_run(k, c, model, body, len, NULL, 0, 0, expected, &rep);
    if (rep.count) {
        failed = 1;
        snprintf(details + strlen(details), sizeof details - strlen(details), "  served whole:\n%s", rep.text);
    }
    memset(&rep, 0, sizeof rep);
    corpus_run(k, c, model, body, len, NULL, 0, 1, expected, &rep);
    if (rep.count) {
        failed = 1;
        snprintf(details + strlen(details), sizeof details - strlen(details),
                 "  one byte at a time:\n%s", rep.text);
    }
    for (unsigned r = 0; r < k->cuts && len > 1; r++) {
        size_t n = 1 + rng_next() % 8, cuts[9], pieces[9];
        if (n > len - 1)
            n = len - 1;
        for (size_t i = 0; i < n; i++)
            cuts[i] = 1 + rng_next() % (len - 1);
        /* sort, drop repeats */
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
                size_t t = cuts[j];
                cuts[j] = cuts[j - 1];
                cuts[j - 1] = t;
            }
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (m == 0 || cuts[i] != cuts[m - 1])
                cuts[m++] = cuts[i];
        char where[200] = "";
        for (size_t i = 0; i < m; i++) {
            pieces[i] = cuts[i] - (i ? cuts[i - 1] : 0);
            snprintf(where + strlen(where), sizeof where - strlen(where), "%s%zu", i ? "," : "", cuts[i]);
        }
        memset(&rep, 0, sizeof rep);
        corpus_run(k, c, model, body, len, pieces, m, 0, expected, &rep);
        if (rep.count) {
            failed = 1;
            snprintf(details + strlen(details), sizeof details - strlen(details),
                     "  cut at bytes %s:\n%s", where, rep.text);
        }
    }
    verdict(!failed, details, "corpus %s/%s: whole, one byte at a time, %u random cuts", shown, name, k->cuts);
done:
    json_object_put(expected);
    free(etext);
    free(text);
    free(body);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

/* The cases of one directory, in name order; how many there were. */
static size_t corpus_dir(kit *k, seam_client *c, const char *family, const char *model, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!ends_with(e->d_name, ".chunks.txt") && !ends_with(e->d_name, ".sse"))
            continue;
        char **p = realloc(names, (n + 1) * sizeof *p);
        if (!p)
            break;
        names = p;
        if ((names[n] = strdup(e->d_name)) != NULL)
            n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++) {
        corpus_case(k, c, family, model, dir, names[i], ends_with(names[i], ".sse"));
        free(names[i]);
    }
    free(names);
    return n;
}

/* The first case of the corpus, framed: the base of the stream faults on a wire
 * the kit does not know. NULL when there is none. */
static char *first_case(const char *family, const char *dir, size_t *len)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char *best = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if ((ends_with(e->d_name, ".chunks.txt") || ends_with(e->d_name, ".sse")) &&
            (!best || strcmp(e->d_name, best) < 0)) {
            free(best);
            best = strdup(e->d_name);
        }
    closedir(d);
    if (!best)
        return NULL;
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%s", dir, best);
    char *text = read_file(path, len);
    if (text && !ends_with(best, ".sse")) {
        char *framed = corpus_frame(family, text, len);
        free(text);
        text = framed;
    }
    free(best);
    return text;
}

/* ---- faults --------------------------------------------------------------------------- */

static void expect_kind(const char *what, const char *id, int rc, const seam_error *err, seam_error_kind want,
                        int status, int64_t retry_after_ms)
{
    corpus_report rep = {{0}, 0};
    if (rc == SEAM_OK) {
        corpus_differ(&rep, "  the call succeeded");
    } else {
        if (err->kind != want)
            corpus_differ(&rep, "  kind: expected %s, got %s (%s)", seam_error_kind_name(want),
                          seam_error_kind_name(err->kind), err->message);
        if (err->retryable != seam_error_kind_retryable(want))
            corpus_differ(&rep, "  retryable: expected %d, got %d", seam_error_kind_retryable(want),
                          err->retryable);
        if (status && err->http_status != status)
            corpus_differ(&rep, "  http_status: expected %d, got %d", status, err->http_status);
        if (retry_after_ms >= 0 && err->retry_after_ms != retry_after_ms)
            corpus_differ(&rep, "  retry_after_ms: expected %lld, got %lld", (long long)retry_after_ms,
                          (long long)err->retry_after_ms);
        if (strstr(err->message, KEY))
            corpus_differ(&rep, "  the error message holds the credential");
    }
    verdict(rep.count == 0, rep.text, "fault %s %s: %s", id, what, seam_error_kind_name(want));
}

static void check_faults(kit *k, seam_client *c, const char *id, const wire *w, const char *model,
                         const char *sample, size_t sample_len, size_t split)
{
    for (size_t i = 0; i < sizeof http_faults / sizeof http_faults[0]; i++) {
        int st = http_faults[i].status;
        char body[1024], what[64];
        /* The 401 echoes the key, as some providers do: it must not come back. */
        error_body(w->id[0] ? w : &wires[0], st,
                   st == 401 ? "Incorrect API key provided: " KEY : "fault injected by seam-plugin-check",
                   body, sizeof body);
        fake_server_push_json(k->srv, st, body, st == 429 ? "Retry-After: 2\r\n" : NULL);
        seam_result *res = NULL;
        seam_error err;
        int rc = call(c, model, 1, &res, &err);
        seam_result_free(res);
        snprintf(what, sizeof what, "http-%d%s", st, st == 429 ? "+retry-after" : "");
        expect_kind(what, id, rc, &err, http_faults[i].kind, st, st == 429 ? 2000 : -1);
    }
    if (!sample) {
        skip("fault %s cut-stream, reset-stream: no recorded stream to cut (--corpus DIR, or --wire)", id);
    } else {
        for (int reset = 0; reset <= 1; reset++) {
            fake_response fr = {.body = sample, .body_len = sample_len, .chunked = 1,
                                .cut_after = split ? split : sample_len / 2, .reset = reset};
            fake_server_push(k->srv, &fr);
            seam_result *res = NULL;
            seam_error err;
            int rc = call(c, model, 1, &res, &err);
            seam_result_free(res);
            expect_kind(reset ? "reset-stream" : "cut-stream", id, rc, &err, SEAM_ERROR_TRANSPORT, 0, -1);
        }
    }
    if (!w->id[0]) {
        skip("fault %s garbage-line, error-event: the wire of \"%s\" is not known to the kit "
             "(--wire openai|anthropic|gemini for a compatible one)", id, id);
        return;
    }
    struct {
        const char *what;
        const char *insert;
        seam_error_kind kind;
    } stream_faults[] = {
        {"garbage-line", w->garbage, SEAM_ERROR_TRANSPORT},
        {"error-event", w->stream_error, SEAM_ERROR_OVERLOADED},
    };
    for (size_t i = 0; i < 2; i++) {
        char *body = NULL;
        if (asprintf(&body, "%.*s%s%s", (int)w->sample_split, w->sample, stream_faults[i].insert,
                     w->sample + w->sample_split) < 0)
            continue;
        fake_response fr = {.body = body, .chunked = 1};
        fake_server_push(k->srv, &fr);
        free(body);
        seam_result *res = NULL;
        seam_error err;
        int rc = call(c, model, 1, &res, &err);
        seam_result_free(res);
        expect_kind(stream_faults[i].what, id, rc, &err, stream_faults[i].kind, 0, -1);
    }
}

/* ---- one provider --------------------------------------------------------------------- */

static void check_provider(kit *k, const char *id)
{
    const wire *w = find_wire(k->wire_name ? k->wire_name : id);
    if (!w)
        w = &generic_wire;
    const char *family = w->id[0] ? w->id : "generic";
    const char *model = k->model ? k->model : w->model;
    seam_error err;
    seam_error_clear(&err);
    /* A server of its own: a provider answering in-process leaves its
     * scripted responses unused, and they must not reach the next one. */
    k->srv = fake_server_start();
    if (!k->srv) {
        verdict(0, NULL, "provider %s: cannot start a server on 127.0.0.1", id);
        return;
    }
    char base[256];
    snprintf(base, sizeof base, "%s%s", fake_server_url(k->srv), w->url_suffix);
    seam_client *c = make_client(k, id, base, &err);
    if (!c) {
        verdict(0, NULL, "provider %s: cannot create a client: %s", id, err.message);
        fake_server_stop(k->srv);
        k->srv = NULL;
        return;
    }
    /* create() with a plain provider conf: the instance every call needs. */
    seam_capabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.size = sizeof caps;
    if (seam_client_capabilities(c, "under_test", model, &caps, &err) == SEAM_OK)
        verdict(1, NULL, "vtable %s: create() accepts a provider conf (capabilities: streaming %u, tools %u, "
                         "context window %lld)", id, caps.streaming, caps.tools, (long long)caps.context_window);
    else
        verdict(0, NULL, "vtable %s: no instance from create() with base_url and api_key: %s", id, err.message);
    if (check_encode(k, c, id, w, model)) {
        skip("corpus, faults %s: the provider answers in-process", id);
        seam_client_free(c);
        fake_server_stop(k->srv);
        k->srv = NULL;
        return;
    }
    char dir[PATH_MAX * 2] = "";
    size_t cases = 0;
    if (k->corpus) {
        /* DIR/<wire>/, DIR/<provider id>/, else DIR itself. */
        const char *subs[] = {w->id, id, ""};
        for (size_t i = 0; i < 3 && !cases; i++) {
            if (i < 2 && !*subs[i])
                continue;
            snprintf(dir, sizeof dir, "%s%s%s", k->corpus, *subs[i] ? "/" : "", subs[i]);
            cases = corpus_dir(k, c, family, model, dir);
        }
        if (!cases)
            verdict(0, NULL, "corpus %s: no *.chunks.txt or *.sse in %s, %s/%s or %s/%s", id, k->corpus,
                    k->corpus, w->id[0] ? w->id : id, k->corpus, id);
    } else {
        skip("corpus %s: no --corpus DIR given", id);
    }
    size_t len = 0;
    char *sample = NULL;
    size_t split = 0;
    if (w->sample) {
        sample = strdup(w->sample);
        len = strlen(w->sample);
        split = w->sample_split + 10; /* inside the second text event */
    } else if (cases) {
        sample = first_case(family, dir, &len);
    }
    check_faults(k, c, id, w, model, sample, len, split);
    free(sample);
    seam_client_free(c);
    fake_server_stop(k->srv);
    k->srv = NULL;
}

/* ---- main ------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f, "usage: seam-plugin-check PLUGIN_FILE [--corpus DIR] [--provider ID] [--wire FAMILY]\n"
               "                         [--model MODEL] [--seed N] [--cuts N]\n"
               "Runs a provider plugin through load and ABI checks, encode checks, a\n"
               "recorded-stream corpus and a fault matrix (seam-plugin-check(1)).\n");
}

static void rm_work(const char *work)
{
    char p[PATH_MAX * 2];
    DIR *d;
    snprintf(p, sizeof p, "%s/plugins", work);
    if ((d = opendir(p)) != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                char f[PATH_MAX * 3];
                snprintf(f, sizeof f, "%s/%s", p, e->d_name);
                unlink(f);
            }
        closedir(d);
        rmdir(p);
    }
    snprintf(p, sizeof p, "%s/seam.conf", work);
    unlink(p);
    rmdir(work);
}

int main(int argc, char **argv)
{
    kit k;
    memset(&k, 0, sizeof k);
    k.cuts = 3;
    unsigned long long seed = 0;
    int have_seed = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **opt = strcmp(a, "--corpus") == 0     ? &k.corpus
                           : strcmp(a, "--provider") == 0 ? &k.provider
                           : strcmp(a, "--wire") == 0     ? &k.wire_name
                           : strcmp(a, "--model") == 0    ? &k.model
                                                          : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("seam-plugin-check %s (plugin ABI %u.%u)\n", seam_version(), SEAM_PLUGIN_ABI_MAJOR,
                   SEAM_PLUGIN_ABI_MINOR);
            return 0;
        } else if (opt || strcmp(a, "--seed") == 0 || strcmp(a, "--cuts") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "seam-plugin-check: %s needs a value\n", a);
                return 2;
            }
            const char *v = argv[++i];
            char *end;
            if (opt) {
                *opt = v;
            } else if (strcmp(a, "--seed") == 0) {
                seed = strtoull(v, &end, 10);
                have_seed = 1;
                if (*end || !*v) {
                    fprintf(stderr, "seam-plugin-check: --seed: not a number: %s\n", v);
                    return 2;
                }
            } else {
                unsigned long n = strtoul(v, &end, 10);
                if (*end || !*v || n > 1000) {
                    fprintf(stderr, "seam-plugin-check: --cuts: a number from 0 to 1000: %s\n", v);
                    return 2;
                }
                k.cuts = (unsigned)n;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "seam-plugin-check: unknown option %s\n", a);
            usage(stderr);
            return 2;
        } else if (!k.plugin_file) {
            k.plugin_file = a;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!k.plugin_file) {
        usage(stderr);
        return 2;
    }
    if (k.wire_name && !find_wire(k.wire_name)) {
        fprintf(stderr, "seam-plugin-check: --wire: openai, anthropic or gemini, not %s\n", k.wire_name);
        return 2;
    }
    if (!ends_with(k.plugin_file, ".so")) {
        fprintf(stderr, "seam-plugin-check: %s: a plugin file ends in .so\n", k.plugin_file);
        return 2;
    }
    k.plugin_real = realpath(k.plugin_file, NULL);
    if (!k.plugin_real) {
        fprintf(stderr, "seam-plugin-check: %s: %s\n", k.plugin_file, strerror(errno));
        return 2;
    }
    if (!have_seed)
        seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 16);
    rng_state = seed ? seed : 0x9E3779B97F4A7C15ULL;
    /* Nothing of the environment takes part: no plugin dir, no recording. */
    unsetenv("SEAM_PLUGIN_PATH");
    unsetenv("SEAM_RECORD");
    unsetenv("SEAM_REPLAY");
    const char *tmp = getenv("TMPDIR");
    char templ[PATH_MAX];
    snprintf(templ, sizeof templ, "%s/seam-plugin-check.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    k.work = mkdtemp(templ);
    if (!k.work) {
        fprintf(stderr, "seam-plugin-check: cannot create a temporary directory in %s: %s\n",
                tmp && *tmp ? tmp : "/tmp", strerror(errno));
        free(k.plugin_real);
        return 2;
    }
    printf("seam-plugin-check %s: %s, seed %llu (--seed %llu repeats the random cuts)\n", seam_version(),
           k.plugin_real, seed, seed);
    char *ids = check_load(&k);
    if (ids) {
        if (k.provider) {
            int found = 0;
            char *save = NULL, *copy = strdup(ids);
            for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save))
                found |= strcmp(t, k.provider) == 0;
            free(copy);
            if (found)
                check_provider(&k, k.provider);
            else
                verdict(0, NULL, "provider %s: not registered by the plugin (it registers %s)", k.provider, ids);
        } else {
            char *save = NULL;
            for (char *t = strtok_r(ids, ",", &save); t; t = strtok_r(NULL, ",", &save))
                check_provider(&k, t);
        }
    }
    free(ids);
    rm_work(k.work);
    free(k.plugin_real);
    if (n_skipped)
        printf("%d passed, %d failed, %d skipped\n", n_passed, n_failed, n_skipped);
    else
        printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed == 0 && n_passed > 0 ? 0 : 1;
}
