/* bench_stream.c — what seam costs on top of the bytes. The same local server
 * streams the same recorded-style answer, for an OpenAI, an Anthropic and a
 * Gemini stream, to
 *   raw   libcurl that only receives the bytes,
 *   hand  libcurl plus the least a hand-written C client must do: split the
 *         events at blank lines, parse each one's JSON with json-c, pick out
 *         the text (that provider's path to it),
 *   seam  seam_stream through the real plugin (framing, decode, chunk queue,
 *         accumulator).
 * The figure is CPU time of the calling thread per event
 * (CLOCK_THREAD_CPUTIME_ID: the fake server's thread is not counted; every
 * client does all its work on the calling thread). Clients run interleaved,
 * round after round, in one process, so machine noise hits them alike; the
 * ratio seam/hand is the number to watch. Each provider is measured at SMALL
 * and LARGE events per stream (cost per event must stay flat) and, at SMALL,
 * with the server dribbling 1-7 bytes per send (TCP_NODELAY).
 *
 * Usage: bench_stream [SMALL [LARGE [ROUNDS [whole|dribble]]]]
 *        bench_stream --lines EVENTS   (defaults 1000 100000 20;
 * LARGE streams run max(ROUNDS/10, 2) rounds; LARGE 0 skips them). */
#include "config.h"

#include <curl/curl.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the streams ----------------------------------------------------------------- */

typedef struct body {
    char *data;
    size_t len, cap;
} body;

static void add(body *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(body *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (size_t)n + 1024;
        b->data = realloc(b->data, b->cap);
        if (!b->data)
            abort();
    }
}

/* Token texts of varied length with the escapes real answers carry. */
static const char *const words[] = {"The", " quick", " brown", " fox", "\\n\\n", " jumps",
                                    " \\\"over\\\"", " the", " lazy", " d\\u00f6g", ".", " 42"};
#define WORD(i) words[(i) % (sizeof words / sizeof words[0])]

static void openai_body(body *b, int events)
{
    for (int i = 0; i < events; i++)
        add(b,
            "data: {\"id\":\"chatcmpl-AbC123\",\"object\":\"chat.completion.chunk\",\"created\":1732000000,"
            "\"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":\"fp_45c6de4934\",\"choices\":[{\"index\":0,"
            "\"delta\":{\"content\":\"%s\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n",
            WORD(i));
    add(b,
        "data: {\"id\":\"chatcmpl-AbC123\",\"object\":\"chat.completion.chunk\",\"created\":1732000000,"
        "\"model\":\"gpt-4o-2024-08-06\",\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,"
        "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":%d,"
        "\"total_tokens\":%d}}\n\ndata: [DONE]\n\n",
        events, events + 5);
}

static void anthropic_body(body *b, int events)
{
    add(b, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01\","
           "\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\","
           "\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,"
           "\"output_tokens\":1}}}\n\n"
           "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
           "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    for (int i = 0; i < events; i++)
        add(b,
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
            "\"delta\":{\"type\":\"text_delta\",\"text\":\"%s\"}}\n\n",
            WORD(i));
    add(b,
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
        "\"stop_sequence\":null},\"usage\":{\"output_tokens\":%d}}\n\n"
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        events);
}

static void gemini_body(body *b, int events)
{
    for (int i = 0; i < events; i++)
        add(b,
            "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"%s\"}],\"role\": \"model\"},"
            "\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 5,\"candidatesTokenCount\": %d,"
            "\"totalTokenCount\": %d},\"modelVersion\": \"gemini-2.5-flash\","
            "\"responseId\": \"abcDEF123\"}\n\n",
            WORD(i), i + 1, i + 6);
    add(b,
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"\"}],\"role\": \"model\"},"
        "\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 5,"
        "\"candidatesTokenCount\": %d,\"totalTokenCount\": %d},\"modelVersion\": \"gemini-2.5-flash\","
        "\"responseId\": \"abcDEF123\"}\n\n",
        events, events + 5);
}

/* ---- the hand-written client ----------------------------------------------------- */

/* What each provider's hand-written client picks: the text of one event. */
static const char *openai_text(json_object *o)
{
    json_object *ch, *c0, *d, *t;
    if (json_object_object_get_ex(o, "choices", &ch) && (c0 = json_object_array_get_idx(ch, 0)) &&
        json_object_object_get_ex(c0, "delta", &d) && json_object_object_get_ex(d, "content", &t))
        return json_object_get_string(t);
    return NULL;
}

static const char *anthropic_text(json_object *o)
{
    json_object *ty, *d, *t;
    if (json_object_object_get_ex(o, "type", &ty) &&
        strcmp(json_object_get_string(ty), "content_block_delta") == 0 &&
        json_object_object_get_ex(o, "delta", &d) && json_object_object_get_ex(d, "text", &t))
        return json_object_get_string(t);
    return NULL;
}

static const char *gemini_text(json_object *o)
{
    json_object *c, *c0, *ct, *parts, *p0, *t;
    if (json_object_object_get_ex(o, "candidates", &c) && (c0 = json_object_array_get_idx(c, 0)) &&
        json_object_object_get_ex(c0, "content", &ct) && json_object_object_get_ex(ct, "parts", &parts) &&
        (p0 = json_object_array_get_idx(parts, 0)) && json_object_object_get_ex(p0, "text", &t))
        return json_object_get_string(t);
    return NULL;
}

typedef struct hand {
    char buf[65536];
    size_t len;
    size_t text;
    size_t calls; /* write callbacks: how finely the bytes arrived */
    const char *(*pick)(json_object *);
} hand;

static size_t hand_sink(char *p, size_t s, size_t n, void *ud)
{
    hand *h = ud;
    size_t len = s * n;
    h->calls++;
    if (h->len + len > sizeof h->buf)
        return 0;
    memcpy(h->buf + h->len, p, len);
    h->len += len;
    char *start = h->buf, *end;
    while ((end = memmem(start, (size_t)(h->buf + h->len - start), "\n\n", 2)) != NULL) {
        *end = '\0';
        char *data = strncmp(start, "data: ", 6) == 0 ? start : strstr(start, "\ndata: ");
        if (data) {
            data += data == start ? 6 : 7;
            if (*data == '{') {
                json_object *o = json_tokener_parse(data);
                const char *t = o ? h->pick(o) : NULL;
                if (t)
                    h->text += strlen(t);
                json_object_put(o);
            }
        }
        start = end + 2;
    }
    h->len -= (size_t)(start - h->buf);
    memmove(h->buf, start, h->len);
    return len;
}

static size_t sink(char *p, size_t s, size_t n, void *ud)
{
    (void)p;
    *(size_t *)ud += s * n;
    return s * n;
}

/* ---- the run --------------------------------------------------------------------- */

typedef struct provider {
    const char *name;    /* conf name and plugin */
    const char *path;    /* the request path the hand client posts to */
    const char *model;
    void (*make)(body *, int);
    const char *(*pick)(json_object *);
} provider;

static const provider providers[] = {
    {"openai", "/v1/chat/completions", "gpt-4o", openai_body, openai_text},
    {"anthropic", "/v1/messages", "claude-sonnet-4-5", anthropic_body, anthropic_text},
    {"gemini", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "gemini-2.5-flash",
     gemini_body, gemini_text},
};

static fake_server *srv;
static seam_client *client;
static CURL *easy;

static void push(const body *b, int dribble)
{
    fake_response fr = {.body = b->data, .body_len = b->len, .chunked = 1};
    if (dribble) {
        fr.split = 1;
        fr.split_max = 7;
    }
    fake_server_push(srv, &fr);
}

/* The three clients, each one stream; not inlined so that callgrind reports
 * each one's instructions on its own (doc/benchmarks.md). */
__attribute__((noinline)) static void client_raw(const char *url)
{
    size_t got = 0;
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, "{}");
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &got);
    curl_easy_perform(easy);
}

__attribute__((noinline)) static void client_hand(const char *url, hand *h)
{
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, "{}");
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, hand_sink);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, h);
    curl_easy_perform(easy);
}

/* The text bytes received, or (size_t)-1 on failure. */
__attribute__((noinline)) static size_t client_seam(const provider *p)
{
    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "bench");
    seam_call_options o = {.size = sizeof o, .provider = p->name, .model = p->model};
    seam_stream *s = NULL;
    const seam_chunk *ch;
    seam_error err;
    size_t text = (size_t)-1;
    int rc = seam_stream_open(client, req, &o, &s, &err);
    if (rc == SEAM_OK)
        while ((rc = seam_stream_next(s, &ch, &err)) == 1)
            ;
    if (rc == SEAM_OK)
        text = strlen(seam_result_text(seam_stream_result(s)));
    else
        fprintf(stderr, "bench: %s stream failed (%d): %s\n", p->name, rc, err.message);
    seam_stream_free(s);
    seam_request_free(req);
    return text;
}

/* One configuration: rounds of raw, hand and seam, interleaved. */
static int run(const provider *p, int events, int rounds, int dribble)
{
    body b = {0};
    p->make(&b, events);
    char url[512];
    snprintf(url, sizeof url, "%s%s", fake_server_url(srv), p->path);
    double t_raw = 0, t_hand = 0, t_seam = 0;
    size_t hand_text = 0, seam_text = 0, calls = 0;
    static hand h;
    for (int r = 0; r < rounds; r++) {
        push(&b, dribble);
        double t0 = cpu_s();
        client_raw(url);
        t_raw += cpu_s() - t0;

        push(&b, dribble);
        h.len = h.text = h.calls = 0;
        h.pick = p->pick;
        t0 = cpu_s();
        client_hand(url, &h);
        t_hand += cpu_s() - t0;
        hand_text = h.text;
        calls += h.calls;

        push(&b, dribble);
        t0 = cpu_s();
        seam_text = client_seam(p);
        t_seam += cpu_s() - t0;
        if (seam_text == (size_t)-1)
            return 1;
    }
    if (hand_text != seam_text) {
        fprintf(stderr, "bench: %s: the hand-written client got %zu text bytes, seam %zu\n", p->name,
                hand_text, seam_text);
        return 1;
    }
    double per = 1e9 / rounds / events;
    printf("%-9s %7d %-6s %7.0f %9.1f %9.1f %9.1f %9.2f %9.1f %9.1f\n", p->name, events,
           dribble ? "1-7 B" : "whole", (double)b.len * rounds / (double)(calls ? calls : 1),
           t_raw * per, t_hand * per, t_seam * per, t_seam / t_hand, (t_hand - t_raw) * per,
           (t_seam - t_raw) * per);
    fflush(stdout);
    free(b.data);
    return 0;
}

/* --lines N: the OpenAI stream's payloads, one a line, for tests/fake-provider
 * --sse-file (which frames them again): the Node SDK reference runs on the
 * same bytes (bench/node/README). */
static int dump_lines(int events)
{
    body b = {0};
    openai_body(&b, events);
    for (char *p = b.data, *e; (e = strstr(p, "\n\n")) != NULL; p = e + 2) {
        if (strncmp(p, "data: {", 7) == 0)
            printf("%.*s\n", (int)(e - p - 6), p + 6);
    }
    free(b.data);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--lines") == 0)
        return dump_lines(atoi(argv[2]));
    int small = argc > 1 ? atoi(argv[1]) : 1000;
    int large = argc > 2 ? atoi(argv[2]) : 100000;
    int rounds = argc > 3 ? atoi(argv[3]) : 20;
    const char *only = argc > 4 ? argv[4] : ""; /* "whole" or "dribble": that server only */
    int whole = strcmp(only, "dribble") != 0, dribble = strcmp(only, "whole") != 0;
    srv = fake_server_start();
    char conf[2048];
    const char *u = srv ? fake_server_url(srv) : "";
    snprintf(conf, sizeof conf,
             "providers = {\n"
             "  openai = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"sk-bench\"; };\n"
             "  anthropic = { plugin = \"anthropic\"; base_url = \"%s/v1\"; api_key = \"sk-ant-bench\"; };\n"
             "  gemini = { plugin = \"gemini\"; base_url = \"%s/v1beta\"; api_key = \"gm-bench\"; };\n"
             "};\n",
             u, u, u);
    seam_error err;
    client = srv ? tu_client(conf, &err) : NULL;
    if (!srv || !client) {
        fprintf(stderr, "bench: setup failed: %s\n", client ? "" : err.message);
        return 1;
    }
    easy = curl_easy_init();
    printf("CPU time of the calling thread per event, ns (rounds: %d at %d events, %d at %d)\n",
           rounds, small, large > 0 ? (rounds / 10 > 2 ? rounds / 10 : 2) : 0, large);
    printf("(arrival: bytes per libcurl write callback; hand-raw and seam-raw: the cost of\n"
           " the client's own work over receiving the bytes)\n");
    printf("%-9s %7s %-6s %7s %9s %9s %9s %9s %9s %9s\n", "provider", "events", "server",
           "arrival", "raw", "hand", "seam", "seam/hand", "hand-raw", "seam-raw");
    int rc = 0;
    for (size_t i = 0; i < sizeof providers / sizeof providers[0] && !rc; i++) {
        if (whole)
            rc = run(&providers[i], small, rounds, 0);
        if (!rc && whole && large > 0)
            rc = run(&providers[i], large, rounds / 10 > 2 ? rounds / 10 : 2, 0);
        if (!rc && dribble)
            rc = run(&providers[i], small, rounds / 4 > 2 ? rounds / 4 : 2, 1);
    }
    curl_easy_cleanup(easy);
    tu_client_free(client);
    fake_server_stop(srv);
    return rc;
}
