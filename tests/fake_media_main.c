/* fake_media_main.c — `tests/fake-media`: the fake provider server
 * (fakeserver.c) speaking the media generation endpoints, with state, for the
 * shell test of `seam media` (tests/run-cli-media.sh):
 *
 *   fake-media --port-file PATH [--polls N] [--delay-ms MS]
 *
 *   POST /v1/images/generations   {"created","data":[{"b64_json":PNG}],"usage"}
 *   POST /v1/audio/speech         a WAV's bytes
 *   POST /v1/videos               a Video {"id":"video_K","status":"queued"}
 *   GET  /v1/videos/video_K       "in_progress" with progress 100*i/N for the
 *                                 first N polls of that video, then "completed"
 *   GET  /v1/videos/video_K/content  the MP4 bytes
 *   POST /v1beta/models/M:predictLongRunning  an operation
 *                                 {"name":"models/M/operations/opK"}
 *   GET  /v1beta/models/M/operations/opK      {"done":false} N times, then
 *                                 done with the video inline (encodedVideo)
 *
 * (the shapes of openai-node's images.ts, speech.ts and videos.ts, and of
 * js-genai's Veo operation: see tests/test_mediagen.c). The polls are counted
 * here, so a client killed mid-job and resumed sees the job go on. --delay-ms
 * holds every poll answer back (a job slow enough to kill the client during).
 * It serves until SIGTERM or SIGINT. */
#include "config.h"

#include "fakeserver.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PNG_B64                                                                                \
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5E" \
    "rkJggg=="

static const char wav[] = "RIFF\x2c\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0\x40\x1f\0\0"
                          "\x01\0\x08\0data\x08\0\0\0\x80\x80\x80\x80\x80\x80\x80\x80";
static const char mp4[] = "\0\0\0\x18" "ftypmp42\0\0\0\0mp42isom-fake-media-video";

#define MAX_JOBS 64

typedef struct state {
    long polls;       /* polls before a job is done */
    unsigned delay;   /* ms before each poll answer */
    int n_videos, n_ops;
    int video_polls[MAX_JOBS];
    int op_polls[MAX_JOBS];
    char buf[4096];
} state;

static int json(fake_response *out, int status, const char *body)
{
    out->status = status;
    out->content_type = "application/json";
    out->body = body;
    return 0;
}

static int respond(void *ud, const char *method, const char *path, const char *body,
                   size_t body_len, fake_response *out)
{
    (void)body;
    (void)body_len;
    state *st = ud;
    int k;
    char tail[64];
    if (strcmp(method, "POST") == 0 && strcmp(path, "/v1/images/generations") == 0)
        return json(out, 200,
                    "{\"created\":1713833628,\"data\":[{\"b64_json\":\"" PNG_B64 "\"}],"
                    "\"output_format\":\"png\",\"usage\":{\"input_tokens\":10,\"output_tokens\":"
                    "272,\"total_tokens\":282}}");
    if (strcmp(method, "POST") == 0 && strcmp(path, "/v1/audio/speech") == 0) {
        out->status = 200;
        out->content_type = "audio/wav";
        out->body = wav;
        out->body_len = sizeof wav - 1;
        return 0;
    }
    if (strcmp(method, "POST") == 0 && strcmp(path, "/v1/videos") == 0) {
        if (st->n_videos == MAX_JOBS)
            return json(out, 429, "{\"error\":{\"message\":\"too many videos\"}}");
        k = st->n_videos++;
        snprintf(st->buf, sizeof st->buf,
                 "{\"id\":\"video_%d\",\"object\":\"video\",\"status\":\"queued\",\"progress\":0,"
                 "\"model\":\"sora-2\",\"seconds\":\"4\",\"size\":\"720x1280\"}",
                 k);
        return json(out, 200, st->buf);
    }
    if (strcmp(method, "GET") == 0 && sscanf(path, "/v1/videos/video_%d%63s", &k, tail) >= 1 &&
        k >= 0 && k < st->n_videos) {
        out->delay_ms = st->delay;
        if (sscanf(path, "/v1/videos/video_%d%63s", &k, tail) == 2) {
            if (strcmp(tail, "/content") != 0 || st->video_polls[k] <= st->polls)
                return json(out, 404, "{\"error\":{\"message\":\"no content\"}}");
            out->status = 200;
            out->content_type = "video/mp4";
            out->body = mp4;
            out->body_len = sizeof mp4 - 1;
            return 0;
        }
        int i = ++st->video_polls[k];
        if (i <= st->polls)
            snprintf(st->buf, sizeof st->buf,
                     "{\"id\":\"video_%d\",\"object\":\"video\",\"status\":\"in_progress\","
                     "\"progress\":%ld,\"seconds\":\"4\"}",
                     k, 100 * (i - 1) / (st->polls ? st->polls : 1));
        else
            snprintf(st->buf, sizeof st->buf,
                     "{\"id\":\"video_%d\",\"object\":\"video\",\"status\":\"completed\","
                     "\"progress\":100,\"seconds\":\"4\"}",
                     k);
        return json(out, 200, st->buf);
    }
    char model[128];
    if (strcmp(method, "POST") == 0 &&
        sscanf(path, "/v1beta/models/%127[^:]:predictLongRunning", model) == 1) {
        if (st->n_ops == MAX_JOBS)
            return json(out, 429, "{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\"}}");
        k = st->n_ops++;
        snprintf(st->buf, sizeof st->buf, "{\"name\":\"models/%s/operations/op%d\"}", model, k);
        return json(out, 200, st->buf);
    }
    if (strcmp(method, "GET") == 0 &&
        sscanf(path, "/v1beta/models/%127[^/]/operations/op%d", model, &k) == 2 && k >= 0 &&
        k < st->n_ops) {
        out->delay_ms = st->delay;
        if (++st->op_polls[k] <= st->polls)
            snprintf(st->buf, sizeof st->buf,
                     "{\"name\":\"models/%s/operations/op%d\",\"done\":false}", model, k);
        else
            snprintf(st->buf, sizeof st->buf,
                     "{\"name\":\"models/%s/operations/op%d\",\"done\":true,\"response\":{"
                     "\"generateVideoResponse\":{\"generatedSamples\":[{\"video\":{"
                     "\"encodedVideo\":\"AAAAGGZ0eXBtcDQy\",\"encoding\":\"video/mp4\"}}]}}}",
                     model, k);
        return json(out, 200, st->buf);
    }
    return json(out, 404, "{\"error\":{\"message\":\"fake-media: no such endpoint\"}}");
}

static void write_port_file(const char *path, int port)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "fake-media: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    const char *port_file = NULL;
    static state st = {.polls = 3};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--port-file") == 0)
            port_file = argv[i + 1];
        else if (strcmp(argv[i], "--polls") == 0)
            st.polls = strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--delay-ms") == 0)
            st.delay = (unsigned)strtoul(argv[i + 1], NULL, 10);
    }
    if (!port_file || st.polls < 0 || st.polls > 1000) {
        fprintf(stderr, "usage: fake-media --port-file PATH [--polls N] [--delay-ms MS]\n");
        return 2;
    }
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
    fake_server *s = fake_server_start();
    if (!s) {
        fprintf(stderr, "fake-media: cannot start the server\n");
        return 1;
    }
    fake_server_set_responder(s, respond, &st);
    write_port_file(port_file, fake_server_port(s));
    int sig;
    do
        sig = sigwaitinfo(&stop_signals, NULL);
    while (sig < 0 && errno == EINTR);
    fake_server_stop(s);
    return 0;
}
