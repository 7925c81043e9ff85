/* bench_stream.c — what seam costs on top of the bytes: the same local server
 * streams the same OpenAI-style SSE answer to (a) raw libcurl that only
 * receives the bytes, (b) raw libcurl plus the least a hand-written client
 * must do (split the events, parse each one's JSON with json-c and pick out
 * the text), and (c) seam_stream through the real openai plugin (framing,
 * JSON decode, chunk queue, accumulator). All run in one process, interleaved,
 * and the ratios are the numbers to watch; absolute times depend on the
 * machine. Usage: bench_stream [EVENTS] [ROUNDS] */
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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t sink(char *p, size_t s, size_t n, void *ud)
{
    *(size_t *)ud += s * n;
    return s * n;
}

/* The hand-written client: buffer, cut at blank lines, parse, take delta.content. */
typedef struct hand {
    char buf[65536];
    size_t len;
    size_t text;
} hand;

static size_t hand_sink(char *p, size_t s, size_t n, void *ud)
{
    hand *h = ud;
    size_t len = s * n;
    if (h->len + len > sizeof h->buf)
        return 0;
    memcpy(h->buf + h->len, p, len);
    h->len += len;
    char *start = h->buf, *end;
    while ((end = memmem(start, (size_t)(h->buf + h->len - start), "\n\n", 2)) != NULL) {
        *end = '\0';
        if (strncmp(start, "data: {", 7) == 0) {
            json_object *o = json_tokener_parse(start + 6), *ch, *c0, *d, *t;
            if (o && json_object_object_get_ex(o, "choices", &ch) && (c0 = json_object_array_get_idx(ch, 0)) &&
                json_object_object_get_ex(c0, "delta", &d) && json_object_object_get_ex(d, "content", &t))
                h->text += strlen(json_object_get_string(t));
            json_object_put(o);
        }
        start = end + 2;
    }
    h->len -= (size_t)(start - h->buf);
    memmove(h->buf, start, h->len);
    return len;
}

static char *make_body(int events)
{
    size_t cap = (size_t)events * 220 + 1024, len = 0;
    char *b = malloc(cap);
    for (int i = 0; i < events; i++)
        len += (size_t)snprintf(b + len, cap - len,
                                "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                                "\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok%d \"},"
                                "\"finish_reason\":null}]}\n\n", i);
    len += (size_t)snprintf(b + len, cap - len,
                            "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                            "\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],"
                            "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\n"
                            "data: [DONE]\n\n", events, events + 5);
    return b;
}

int main(int argc, char **argv)
{
    int events = argc > 1 ? atoi(argv[1]) : 2000;
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    fake_server *srv = fake_server_start();
    char *body = make_body(events);
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
    double t_curl = 0, t_hand = 0, t_seam = 0;
    size_t text_len = 0;
    for (int r = 0; r < rounds; r++) {
        fake_response fr = { .body = body, .chunked = 1 };
        fake_server_push(srv, &fr);
        size_t got = 0;
        curl_easy_setopt(e, CURLOPT_URL, url);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, "{}");
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, sink);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, &got);
        double t0 = now_s();
        curl_easy_perform(e);
        t_curl += now_s() - t0;

        fake_server_push(srv, &fr);
        hand h = { .len = 0 };
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, hand_sink);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, &h);
        t0 = now_s();
        curl_easy_perform(e);
        t_hand += now_s() - t0;

        fake_server_push(srv, &fr);
        seam_request *req = seam_request_new();
        seam_request_add_user_text(req, "bench");
        seam_call_options o = { .size = sizeof o, .provider = "oa", .model = "gpt-4o" };
        seam_stream *s = NULL;
        const seam_chunk *ch;
        t0 = now_s();
        int rc = seam_stream_open(c, req, &o, &s, &err);
        if (rc == SEAM_OK)
            while ((rc = seam_stream_next(s, &ch, &err)) == 1)
                ;
        t_seam += now_s() - t0;
        if (rc != SEAM_OK) {
            fprintf(stderr, "bench: seam stream failed (%d): %s\n", rc, err.message);
            return 1;
        }
        text_len = strlen(seam_result_text(seam_stream_result(s)));
        seam_stream_free(s);
        seam_request_free(req);
    }
    printf("events per stream: %d, rounds: %d, text bytes: %zu\n", events, rounds, text_len);
    printf("raw libcurl (receive only): %8.3f ms/stream  %7.1f ns/event\n", t_curl * 1e3 / rounds,
           t_curl * 1e9 / rounds / events);
    printf("libcurl + hand-written SSE/JSON: %8.3f ms/stream  %7.1f ns/event\n", t_hand * 1e3 / rounds,
           t_hand * 1e9 / rounds / events);
    printf("seam + openai plugin:       %8.3f ms/stream  %7.1f ns/event\n", t_seam * 1e3 / rounds,
           t_seam * 1e9 / rounds / events);
    printf("ratio seam / raw libcurl:   %8.2f\n", t_seam / t_curl);
    printf("ratio seam / hand-written:  %8.2f\n", t_seam / t_hand);
    curl_easy_cleanup(e);
    tu_client_free(c);
    fake_server_stop(srv);
    free(body);
    return 0;
}
