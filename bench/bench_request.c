/* bench_request.c — what a non-streamed request costs through seam against
 * raw libcurl + json-c, both over a kept-alive loopback connection to the
 * same fake server (tests/fakeserver.c), interleaved request by request. The
 * raw client reuses one easy handle (so one connection), builds each request
 * body with json-c from the conversation (model, messages), as a hand-written
 * client must, and parses the answer with json-c, picking out the text and the
 * usage; seam runs seam_generate through the real openai plugin. Prints the median and p99 of each and their
 * ratio.
 *
 * The tool-loop row: one seam_loop_generate round trip (the server answers
 * first with a call of an in-process tool "add" whose arguments the loop
 * validates against its schema, then with the final text) against the same
 * exchange written by hand: two libcurl requests, the tool call parsed, its
 * arguments checked and the result sent back, bodies built with json-c.
 *
 * Usage: bench_request [REQUESTS] [all|both|raw|seam|loop|loop-raw|loop-seam]
 * all (default): both rows; both/raw/seam: the single-request row only;
 * loop/loop-raw/loop-seam: the tool-loop row only. One side alone is for
 * counting its system calls under strace -c or its instructions under
 * callgrind (doc/benchmarks.md). */
#include "config.h"

#include <curl/curl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

static const char *answer =
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"gpt-4o\","
    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
    "\"Paris is the capital of France.\"},\"finish_reason\":\"stop\"}],"
    "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":8,\"total_tokens\":20}}";

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

typedef struct body {
    char *p;
    size_t len, cap;
} body;

static size_t collect(char *p, size_t s, size_t n, void *ud)
{
    body *b = ud;
    size_t len = s * n;
    if (b->len + len + 1 > b->cap) {
        b->cap = (b->len + len + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, p, len);
    b->len += len;
    b->p[b->len] = '\0';
    return len;
}

/* The hand-written client: build the JSON from the conversation, POST it,
 * parse the answer, take text and usage. */
static int raw_request(CURL *e, body *b, const char *model, const char *prompt)
{
    json_object *req = json_object_new_object(), *msgs = json_object_new_array(), *user = json_object_new_object();
    json_object_object_add(user, "role", json_object_new_string("user"));
    json_object_object_add(user, "content", json_object_new_string(prompt));
    json_object_array_add(msgs, user);
    json_object_object_add(req, "model", json_object_new_string(model));
    json_object_object_add(req, "messages", msgs);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN));
    b->len = 0;
    CURLcode code = curl_easy_perform(e);
    json_object_put(req);
    if (code != CURLE_OK)
        return -1;
    json_object *o = json_tokener_parse(b->p), *ch, *c0, *m, *t, *u, *ct;
    int ok = o && json_object_object_get_ex(o, "choices", &ch) &&
             (c0 = json_object_array_get_idx(ch, 0)) && json_object_object_get_ex(c0, "message", &m) &&
             json_object_object_get_ex(m, "content", &t) && json_object_object_get_ex(o, "usage", &u) &&
             json_object_object_get_ex(u, "completion_tokens", &ct) && strlen(json_object_get_string(t)) > 0 &&
             json_object_get_int(ct) == 8;
    json_object_put(o);
    return ok ? 0 : -1;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void stats(const char *name, double *v, int n, double *median)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    *median = v[n / 2];
    printf("%-28s median %8.1f us   p99 %8.1f us\n", name, v[n / 2], v[(n * 99) / 100]);
}

/* ---- the tool-loop row -------------------------------------------------------- */

static const char *tool_call_answer =
    "{\"id\":\"chatcmpl-2\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"gpt-4o\","
    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
    "{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"add\","
    "\"arguments\":\"{\\\"a\\\":2,\\\"b\\\":3}\"}}]},\"finish_reason\":\"tool_calls\"}],"
    "\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":18,\"total_tokens\":58}}";

static const char *final_answer =
    "{\"id\":\"chatcmpl-3\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"gpt-4o\","
    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
    "\"2 plus 3 is 5.\"},\"finish_reason\":\"stop\"}],"
    "\"usage\":{\"prompt_tokens\":70,\"completion_tokens\":8,\"total_tokens\":78}}";

static const char add_schema[] =
    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
    "\"required\":[\"a\",\"b\"],\"additionalProperties\":false}";

/* add(a, b) -> a + b: the loop has validated the arguments against add_schema. */
static int tool_add(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    json_object *args = json_tokener_parse(call->args_json), *a = NULL, *b = NULL;
    json_object_object_get_ex(args, "a", &a);
    json_object_object_get_ex(args, "b", &b);
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)(json_object_get_int64(a) + json_object_get_int64(b)));
    json_object_put(args);
    return seam_tool_output_json(out, text);
}

/* What the hand-written client sends: the same tool definition seam sends. */
static const char *loop_tools_json =
    "[{\"type\":\"function\",\"function\":{\"name\":\"add\",\"description\":\"Adds two integers\","
    "\"parameters\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
    "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"],\"additionalProperties\":false}}}]";

static int raw_post(CURL *e, body *b, const char *post)
{
    b->len = 0;
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, post);
    return curl_easy_perform(e) == CURLE_OK ? 0 : -1;
}

/* The hand-written tool exchange: ask with the tool offered, take the call,
 * check its arguments (two integers, nothing else: what the schema says), run
 * add, send the assistant message and the result back, take the final text and
 * usage. Bodies are built with json-c, as such a client would. */
static int raw_loop(CURL *e, body *b, json_object *tools)
{
    int ok = 0;
    json_object *req = json_object_new_object(), *msgs = json_object_new_array(), *user = json_object_new_object();
    json_object_object_add(user, "role", json_object_new_string("user"));
    json_object_object_add(user, "content", json_object_new_string("add 2 and 3"));
    json_object_array_add(msgs, user);
    json_object_object_add(req, "model", json_object_new_string("gpt-4o"));
    json_object_object_add(req, "messages", msgs);
    json_object_object_add(req, "tools", json_object_get(tools));
    json_object *first = NULL, *second = NULL, *args = NULL;
    if (raw_post(e, b, json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN)) != 0)
        goto out;
    first = json_tokener_parse(b->p);
    json_object *ch, *c0, *m, *calls, *call, *id, *fn, *name, *argstr, *a, *bb;
    if (!first || !json_object_object_get_ex(first, "choices", &ch) || !(c0 = json_object_array_get_idx(ch, 0)) ||
        !json_object_object_get_ex(c0, "message", &m) || !json_object_object_get_ex(m, "tool_calls", &calls) ||
        !(call = json_object_array_get_idx(calls, 0)) || !json_object_object_get_ex(call, "id", &id) ||
        !json_object_object_get_ex(call, "function", &fn) || !json_object_object_get_ex(fn, "name", &name) ||
        strcmp(json_object_get_string(name), "add") != 0 ||
        !json_object_object_get_ex(fn, "arguments", &argstr))
        goto out;
    args = json_tokener_parse(json_object_get_string(argstr));
    if (!args || !json_object_is_type(args, json_type_object) || json_object_object_length(args) != 2 ||
        !json_object_object_get_ex(args, "a", &a) || !json_object_object_get_ex(args, "b", &bb) ||
        !json_object_is_type(a, json_type_int) || !json_object_is_type(bb, json_type_int))
        goto out;
    char result[32];
    snprintf(result, sizeof result, "%lld", (long long)(json_object_get_int64(a) + json_object_get_int64(bb)));
    json_object *tool = json_object_new_object();
    json_object_object_add(tool, "role", json_object_new_string("tool"));
    json_object_object_add(tool, "tool_call_id", json_object_get(id));
    json_object_object_add(tool, "content", json_object_new_string(result));
    json_object_array_add(msgs, json_object_get(m));
    json_object_array_add(msgs, tool);
    if (raw_post(e, b, json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN)) != 0)
        goto out;
    second = json_tokener_parse(b->p);
    json_object *t, *u, *ct;
    ok = second && json_object_object_get_ex(second, "choices", &ch) && (c0 = json_object_array_get_idx(ch, 0)) &&
         json_object_object_get_ex(c0, "message", &m) && json_object_object_get_ex(m, "content", &t) &&
         json_object_object_get_ex(second, "usage", &u) && json_object_object_get_ex(u, "completion_tokens", &ct) &&
         strcmp(json_object_get_string(t), "2 plus 3 is 5.") == 0 && json_object_get_int(ct) == 8;
out:
    json_object_put(args);
    json_object_put(first);
    json_object_put(second);
    json_object_put(req);
    return ok ? 0 : -1;
}

static int seam_loop(seam_client *c, const seam_loop_options *lo, seam_error *err)
{
    seam_generation *g = NULL;
    int rc = seam_loop_generate(c, NULL, lo, &g, err);
    int ok = rc == SEAM_OK && strcmp(seam_generation_text(g), "2 plus 3 is 5.") == 0 &&
             seam_generation_step_count(g) == 2 &&
             seam_step_tool_result_count(seam_generation_step(g, 0)) == 1 &&
             strcmp(seam_part_result_json(seam_step_tool_result(seam_generation_step(g, 0), 0)), "5") == 0 &&
             seam_generation_usage(g)->output_tokens == 26;
    seam_generation_free(g);
    return ok ? 0 : -1;
}

/* Both clients must have sent the result back: the last request holds it. */
static int sent_result(fake_server *srv)
{
    size_t n = fake_server_request_count(srv);
    const char *last = n ? fake_server_request_body(srv, n - 1) : NULL;
    return last && strstr(last, "\"tool_call_id\":\"call_1\"") && strstr(last, "\"content\":\"5\"");
}

static int loop_row(fake_server *srv, seam_client *c, CURL *e, body *b, int n, int do_raw, int do_seam)
{
    seam_error err = { 0 };
    seam_toolset *ts = seam_toolset_new();
    if (!ts || seam_toolset_add(ts, "add", "Adds two integers", add_schema, tool_add, NULL) != SEAM_OK) {
        fprintf(stderr, "bench: toolset setup failed\n");
        return 1;
    }
    seam_call_options co = { .size = sizeof co, .provider = "oa", .model = "gpt-4o" };
    seam_loop_options lo;
    seam_loop_options_init(&lo);
    lo.call = &co;
    lo.prompt = "add 2 and 3";
    lo.tools = ts;
    json_object *tools = json_tokener_parse(loop_tools_json);
    double *t_raw = calloc((size_t)n, sizeof *t_raw), *t_seam = calloc((size_t)n, sizeof *t_seam);
    int status = 0;
    for (int r = -1; r < n && status == 0; r++) {
        for (int k = 0; k < 2; k++) {
            int seam_turn = (k == 0) == (r % 2 == 0);
            if (seam_turn ? !do_seam : !do_raw)
                continue;
            fake_server_push_json(srv, 200, tool_call_answer, NULL);
            fake_server_push_json(srv, 200, final_answer, NULL);
            double t0 = now_us();
            int rc = seam_turn ? seam_loop(c, &lo, &err) : raw_loop(e, b, tools);
            double dt = now_us() - t0;
            if (rc == 0 && r < 0 && !sent_result(srv))
                rc = -1;
            if (rc != 0) {
                fprintf(stderr, "bench: %s tool exchange failed %s\n", seam_turn ? "seam" : "raw",
                        seam_turn ? err.message : "");
                status = 1;
                break;
            }
            if (r >= 0)
                (seam_turn ? t_seam : t_raw)[r] = dt;
        }
    }
    if (status == 0) {
        printf("tool loop: %d round trips each (2 requests per round trip), interleaved; "
               "server connections accepted: %zu\n", n, fake_server_connection_count(srv));
        double m_raw = 0, m_seam = 0, p_raw = 0, p_seam = 0;
        if (do_raw) {
            stats("raw, 2 requests + tool:", t_raw, n, &m_raw);
            p_raw = t_raw[(n * 99) / 100];
        }
        if (do_seam) {
            stats("seam_loop_generate:", t_seam, n, &m_seam);
            p_seam = t_seam[(n * 99) / 100];
        }
        if (do_raw && do_seam) {
            printf("ratio loop / raw (median):   %8.2f\n", m_seam / m_raw);
            printf("loop adds per request:       median %8.1f us   p99 %8.1f us\n", (m_seam - m_raw) / 2,
                   (p_seam - p_raw) / 2);
        }
    }
    json_object_put(tools);
    free(t_raw);
    free(t_seam);
    seam_toolset_free(ts);
    return status;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    const char *mode = argc > 2 ? argv[2] : "all";
    int all = strcmp(mode, "all") == 0, both = strcmp(mode, "both") == 0, loop = strcmp(mode, "loop") == 0;
    int do_raw = all || both || strcmp(mode, "raw") == 0, do_seam = all || both || strcmp(mode, "seam") == 0;
    int loop_raw = all || loop || strcmp(mode, "loop-raw") == 0;
    int loop_seam = all || loop || strcmp(mode, "loop-seam") == 0;
    if (!do_raw && !do_seam && !loop_raw && !loop_seam) {
        fprintf(stderr, "usage: bench_request [REQUESTS] [all|both|raw|seam|loop|loop-raw|loop-seam]\n");
        return 2;
    }
    if (n < 10)
        n = 10;
    fake_server *srv = fake_server_start();
    char conf[1024];
    snprintf(conf, sizeof conf,
             "providers = { oa = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"sk-bench\"; }; };\n",
             fake_server_url(srv));
    seam_error err;
    seam_client *c = tu_client(conf, &err);
    if (!srv || !c) {
        fprintf(stderr, "bench: setup failed: %s\n", c ? "" : err.message);
        return 1;
    }
    char url[256];
    snprintf(url, sizeof url, "%s/v1/chat/completions", fake_server_url(srv));
    CURL *e = curl_easy_init();
    body b = { 0 };
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    h = curl_slist_append(h, "Authorization: Bearer sk-bench");
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L); /* as seam sets it: no signal handler juggling */
    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "bench");
    seam_call_options o = { .size = sizeof o, .provider = "oa", .model = "gpt-4o" };
    double *t_raw = calloc((size_t)n, sizeof *t_raw), *t_seam = calloc((size_t)n, sizeof *t_seam);
    /* One warm-up request each: the connection is open before timing. */
    for (int r = -1; r < n && (do_raw || do_seam); r++) {
        for (int k = 0; k < 2; k++) {
            int seam_turn = (k == 0) == (r % 2 == 0); /* alternate who goes first */
            if (seam_turn ? !do_seam : !do_raw)
                continue;
            fake_server_push_json(srv, 200, answer, NULL);
            double t0 = now_us();
            int rc;
            if (seam_turn) {
                seam_result *res = NULL;
                rc = seam_generate(c, req, &o, &res, &err) == SEAM_OK &&
                             strlen(seam_result_text(res)) > 0 ? 0 : -1;
                seam_result_free(res);
            } else {
                rc = raw_request(e, &b, "gpt-4o", "bench");
            }
            double dt = now_us() - t0;
            if (rc != 0) {
                fprintf(stderr, "bench: %s request failed: %s\n", seam_turn ? "seam" : "raw",
                        seam_turn ? err.message : "");
                return 1;
            }
            if (r >= 0)
                (seam_turn ? t_seam : t_raw)[r] = dt;
        }
    }
    long raw_conns = 0;
    curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &raw_conns);
    double m_raw = 0, m_seam = 0;
    if (do_raw || do_seam)
        printf("requests: %d each, interleaved; server connections accepted: %zu\n", n,
               fake_server_connection_count(srv));
    if (do_raw)
        stats("raw libcurl + json-c:", t_raw, n, &m_raw);
    if (do_seam)
        stats("seam_generate (openai):", t_seam, n, &m_seam);
    if (do_raw && do_seam)
        printf("ratio seam / raw (median):   %8.2f\n", m_seam / m_raw);
    int status = loop_raw || loop_seam ? loop_row(srv, c, e, &b, n, loop_raw, loop_seam) : 0;
    seam_request_free(req);
    free(t_raw);
    free(t_seam);
    free(b.p);
    curl_slist_free_all(h);
    curl_easy_cleanup(e);
    tu_client_free(c);
    fake_server_stop(srv);
    return status;
}
