/* bench_request.c — what a non-streamed request costs through seam against
 * raw libcurl + json-c, both over a kept-alive loopback connection to the
 * same fake server (tests/fakeserver.c), interleaved request by request. The
 * raw client reuses one easy handle (so one connection) and parses the answer
 * with json-c, picking out the text and the usage; seam runs seam_generate
 * through the real openai plugin. Prints the median and p99 of each and their
 * ratio. Usage: bench_request [REQUESTS] [raw|seam|both]
 * (one side alone is for counting its system calls under strace -c). */
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

/* The hand-written client: POST the JSON, parse the answer, take text and usage. */
static int raw_request(CURL *e, body *b)
{
    b->len = 0;
    if (curl_easy_perform(e) != CURLE_OK)
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

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    const char *mode = argc > 2 ? argv[2] : "both";
    int do_raw = strcmp(mode, "seam") != 0, do_seam = strcmp(mode, "raw") != 0;
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
    const char *post = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"bench\"}]}";
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, post);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L); /* as seam sets it: no signal handler juggling */
    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "bench");
    seam_call_options o = { .size = sizeof o, .provider = "oa", .model = "gpt-4o" };
    double *t_raw = calloc((size_t)n, sizeof *t_raw), *t_seam = calloc((size_t)n, sizeof *t_seam);
    /* One warm-up request each: the connection is open before timing. */
    for (int r = -1; r < n; r++) {
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
                rc = raw_request(e, &b);
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
    printf("requests: %d each, interleaved; server connections accepted: %zu\n", n,
           fake_server_connection_count(srv));
    double m_raw = 0, m_seam = 0;
    if (do_raw)
        stats("raw libcurl + json-c:", t_raw, n, &m_raw);
    if (do_seam)
        stats("seam_generate (openai):", t_seam, n, &m_seam);
    if (do_raw && do_seam)
        printf("ratio seam / raw (median):   %8.2f\n", m_seam / m_raw);
    seam_request_free(req);
    free(t_raw);
    free(t_seam);
    free(b.p);
    curl_slist_free_all(h);
    curl_easy_cleanup(e);
    tu_client_free(c);
    fake_server_stop(srv);
    return 0;
}
