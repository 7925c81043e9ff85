/* fake_provider_main.c — `tests/fake-provider`: the fake provider server
 * (fakeserver.c) as a standalone program for the shell tests and the
 * conformance script. It serves one response to every request until SIGTERM or
 * SIGINT:
 *
 *   fake-provider --port-file PATH [--split N] [--delay MS] [--echo-digest 1]
 *       (--sse-file FILE --family openai|anthropic|gemini
 *        | --status CODE --json-body TEXT [--header 'Name: value']...)
 *
 * --sse-file holds one event payload per line and is framed as the family's
 * wire does (see fixtures/wire/README.md): openai `data: L\n\n` ending with
 * `data: [DONE]\n\n`; anthropic `event: <"type" of L>\ndata: L\n\n`; gemini
 * `data: L\r\n\r\n`. The port goes to PATH once listening (written to a temp
 * file and renamed, so a reader never sees a partial file). With --echo-digest 1,
 * each "@REQ_DIGEST@" in the body becomes the hash of the request's body
 * (fakeserver.h), so the answer shows whether the client sent the same request.
 * With --record FILE, the body of each request received is appended to FILE,
 * one line each (a JSON body's own line breaks become spaces), so a test can
 * read what the client sent. */
#include "config.h"

#include "fakeserver.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Responses kept queued ahead of the requests: the server pops one per
 * request, and the main loop tops the queue up every few milliseconds. */
#define RESERVE 64

static void usage(void)
{
    fprintf(stderr,
            "usage: fake-provider --port-file PATH [--split N] [--delay MS] [--echo-digest 1]\n"
            "         [--record FILE]\n"
            "         (--sse-file FILE --family openai|anthropic|gemini\n"
            "          | --status CODE --json-body TEXT [--header 'Name: value']...)\n");
    exit(2);
}

typedef struct text {
    char *data;
    size_t len, cap;
} text;

static void text_add(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *p = realloc(t->data, cap);
        if (!p) {
            fprintf(stderr, "fake-provider: out of memory\n");
            exit(1);
        }
        t->data = p;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void text_puts(text *t, const char *s)
{
    text_add(t, s, strlen(s));
}

/* The value of the top-level "type" member of a JSON object line (NULL if
 * none): a small scanner is enough for the one-object-per-line corpus. */
static char *top_level_type(const char *json)
{
    int depth = 0;
    const char *p = json;
    while (*p) {
        char c = *p;
        if (c == '"') {
            const char *start = ++p;
            while (*p && *p != '"') {
                if (*p == '\\' && p[1])
                    p++;
                p++;
            }
            if (!*p)
                return NULL;
            size_t klen = (size_t)(p - start);
            p++;
            if (depth == 1 && klen == 4 && memcmp(start, "type", 4) == 0) {
                const char *q = p;
                while (*q == ' ' || *q == '\t')
                    q++;
                if (*q != ':')
                    continue;
                q++;
                while (*q == ' ' || *q == '\t')
                    q++;
                if (*q != '"')
                    continue;
                const char *vs = ++q;
                while (*q && *q != '"') {
                    if (*q == '\\' && q[1])
                        q++;
                    q++;
                }
                return strndup(vs, (size_t)(q - vs));
            }
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']')
            depth--;
        p++;
    }
    return NULL;
}

static char *frame_sse_file(const char *path, const char *family)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "fake-provider: cannot open %s: %s\n", path, strerror(errno));
        exit(1);
    }
    text out = { 0 };
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0)
            continue;
        if (strcmp(family, "openai") == 0) {
            text_puts(&out, "data: ");
            text_puts(&out, line);
            text_puts(&out, "\n\n");
        } else if (strcmp(family, "anthropic") == 0) {
            char *type = top_level_type(line);
            if (type) {
                text_puts(&out, "event: ");
                text_puts(&out, type);
                text_puts(&out, "\n");
                free(type);
            }
            text_puts(&out, "data: ");
            text_puts(&out, line);
            text_puts(&out, "\n\n");
        } else {
            text_puts(&out, "data: ");
            text_puts(&out, line);
            text_puts(&out, "\r\n\r\n");
        }
    }
    free(line);
    fclose(f);
    if (strcmp(family, "openai") == 0)
        text_puts(&out, "data: [DONE]\n\n");
    if (!out.data)
        text_add(&out, "", 0);
    return out.data;
}

/* Appends the bodies of the requests received since the last call to f. */
static void record_requests(fake_server *s, FILE *f, size_t *recorded)
{
    size_t n = fake_server_request_count(s);
    for (; f && *recorded < n; (*recorded)++) {
        const char *body = fake_server_request_body(s, *recorded);
        for (const char *p = body ? body : ""; *p; p++)
            fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
        fputc('\n', f);
        fflush(f);
    }
}

int main(int argc, char **argv)
{
    const char *record_file = NULL;
    const char *port_file = NULL, *sse_file = NULL, *family = NULL, *json_body = NULL;
    long split = 0, delay = 0, status = 0, echo = 0;
    text headers = { 0 };
    text_add(&headers, "", 0);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc)
            usage();
        const char *v = argv[++i];
        if (strcmp(a, "--port-file") == 0)
            port_file = v;
        else if (strcmp(a, "--split") == 0)
            split = strtol(v, NULL, 10);
        else if (strcmp(a, "--delay") == 0)
            delay = strtol(v, NULL, 10);
        else if (strcmp(a, "--echo-digest") == 0)
            echo = strtol(v, NULL, 10);
        else if (strcmp(a, "--record") == 0)
            record_file = v;
        else if (strcmp(a, "--sse-file") == 0)
            sse_file = v;
        else if (strcmp(a, "--family") == 0)
            family = v;
        else if (strcmp(a, "--status") == 0)
            status = strtol(v, NULL, 10);
        else if (strcmp(a, "--json-body") == 0)
            json_body = v;
        else if (strcmp(a, "--header") == 0) {
            text_puts(&headers, v);
            text_puts(&headers, "\r\n");
        } else
            usage();
    }
    if (!port_file || split < 0 || delay < 0)
        usage();
    int sse_mode = sse_file != NULL;
    if (sse_mode == (status != 0 || json_body != NULL))
        usage();
    if (sse_mode && (!family || (strcmp(family, "openai") != 0 &&
                                 strcmp(family, "anthropic") != 0 &&
                                 strcmp(family, "gemini") != 0)))
        usage();
    if (!sse_mode && (status < 100 || status > 999 || !json_body))
        usage();

    char *body = sse_mode ? frame_sse_file(sse_file, family) : strdup(json_body);
    if (!body) {
        fprintf(stderr, "fake-provider: out of memory\n");
        return 1;
    }
    fake_response r = {
        .status = sse_mode ? 200 : (int)status,
        .content_type = sse_mode ? "text/event-stream" : "application/json",
        .extra_headers = headers.data,
        .body = body,
        .split = (size_t)split,
        .delay_ms = (unsigned)delay,
        .chunked = sse_mode, /* streams arrive chunked, as from real providers */
        .echo_digest = echo != 0,
    };

    /* Block the signals before the server thread exists so only sigtimedwait sees them. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

    FILE *record = NULL;
    size_t recorded = 0;
    if (record_file && !(record = fopen(record_file, "a"))) {
        fprintf(stderr, "fake-provider: cannot open %s: %s\n", record_file, strerror(errno));
        return 1;
    }
    fake_server *s = fake_server_start();
    if (!s) {
        fprintf(stderr, "fake-provider: cannot start the server\n");
        return 1;
    }
    size_t pushed = 0;
    for (; pushed < RESERVE; pushed++)
        fake_server_push(s, &r);
    if (fake_server_write_port_file(s, port_file) != 0) {
        fprintf(stderr, "fake-provider: cannot write %s: %s\n", port_file, strerror(errno));
        return 1;
    }

    for (;;) {
        struct timespec tick = { .tv_sec = 0, .tv_nsec = 5 * 1000 * 1000 };
        int sig = sigtimedwait(&stop_signals, NULL, &tick);
        if (sig == SIGTERM || sig == SIGINT)
            break;
        while (pushed < fake_server_request_count(s) + RESERVE) {
            fake_server_push(s, &r);
            pushed++;
        }
        record_requests(s, record, &recorded);
    }
    record_requests(s, record, &recorded);
    if (record)
        fclose(record);
    fake_server_stop(s);
    free(body);
    free(headers.data);
    return 0;
}
