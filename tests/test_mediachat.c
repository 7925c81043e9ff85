/* test_mediachat.c — media output in chat on OpenAI Chat Completions
 * (issue 13): the request's output modalities lowered to `modalities` and
 * `audio`, the answer's audio (whole: message.audio; streamed: delta.audio
 * in base64 fragments) stored under the sha256 of its bytes, the transcript
 * kept with the part, progress-only media_delta chunks, media_units in
 * seconds, and no base64 anywhere a consumer looks. Against the fake server,
 * through the real openai plugin.
 *
 * The wire is OpenAI's API reference for Chat Completions, as the official
 * SDK types it (openai-node src/resources/chat/completions/completions.ts):
 * ChatCompletionAudioParam {format: wav|aac|mp3|flac|opus|pcm16, voice},
 * required with modalities ["text","audio"]; ChatCompletionAudio {id, data
 * (base64 audio in the requested format), expires_at, transcript} in
 * message.audio. Streamed, choices[0].delta.audio carries {id, transcript}
 * first, then {data} and {transcript} pieces, the last with expires_at
 * (as OpenAI's streams show, e.g. community.openai.com/t/1004420), and a
 * stream takes pcm16 only. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

static char *store_dir;

/* The private media store every client of this file shares, made once. */
static const char *media_store(void)
{
    if (!store_dir) {
        store_dir = tu_mkdtemp_private();
        CU_ASSERT_PTR_NOT_NULL_FATAL(store_dir);
        tu_rm_rf_at_end(store_dir);
    }
    return store_dir;
}

/* A fake server started in *srv, and a client whose chain is gpt-4o then
 * the audio model on it, with the conf's options for the provider. */
static seam_client *openai_client(fake_server **srv, const char *options)
{
    *srv = tu_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(*srv);
    seam_client *c = tu_clientf(
        "providers = { oa = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"sk-test\"; %s }; };\n"
        "chains = { default = ( { provider = \"oa\"; model = \"gpt-4o\"; },\n"
        "                       { provider = \"oa\"; model = \"gpt-4o-audio-preview\"; } ); };\n"
        "media = { store = \"%s\"; };\n",
        fake_server_url(*srv), options ? options : "", media_store());
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

static char *b64(const unsigned char *d, size_t len)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((len + 2) / 3 * 4 + 1);
    size_t o = 0, i = 0;
    for (; i + 2 < len; i += 3) {
        unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 | d[i + 2];
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = tab[(v >> 6) & 63];
        out[o++] = tab[v & 63];
    }
    if (i < len) {
        unsigned v = (unsigned)d[i] << 16 | (i + 1 < len ? (unsigned)d[i + 1] << 8 : 0);
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < len ? tab[(v >> 6) & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
    return out;
}

/* Audio to answer with: n bytes of 16-bit samples (a ramp, so that no two
 * stretches are alike), after a 44-byte WAV header at 24 kHz mono when wav. */
static unsigned char *audio_bytes(size_t n_samples, int wav, size_t *len)
{
    size_t data = n_samples * 2, total = data + (wav ? TU_WAV_HEADER_SIZE : 0);
    unsigned char *b = malloc(total);
    unsigned char *p = b;
    if (wav) {
        tu_wav_header(p, data, 24000);
        p += TU_WAV_HEADER_SIZE;
    }
    for (size_t i = 0; i < n_samples; i++) {
        unsigned s = (unsigned)(i * 37 + (i >> 3));
        p[2 * i] = (unsigned char)s;
        p[2 * i + 1] = (unsigned char)(s >> 8);
    }
    *len = total;
    return b;
}

/* "media://sha256-" and the sha256 of the bytes, by sha256sum(1): a hash
 * computed apart from the core's. */
static void handle_of(const unsigned char *d, size_t len, char out[SEAM_MEDIA_HANDLE_SIZE])
{
    char *path = tu_path(tu_dir(), "bytes");
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(d, 1, len, f);
    fclose(f);
    char cmd[512], *hex = NULL;
    snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
    CU_ASSERT_EQUAL_FATAL(tu_run(cmd, &hex, NULL), 0);
    snprintf(out, SEAM_MEDIA_HANDLE_SIZE, "media://sha256-%.64s", hex);
    free(hex);
    free(path);
}

/* seam_generate(r) on c, which must succeed; with srv, the body the server
 * got in *sent (the caller puts it). */
static seam_result *generate_ok(fake_server *srv, seam_client *c, const seam_request *r,
                                json_object **sent)
{
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_generate(c, r, NULL, &res, &err), SEAM_OK);
    if (srv)
        *sent = tu_last_body(srv);
    return res;
}

/* A JSON answer: before, the base64 of d[0..len), after. */
static void push_b64_json(fake_server *srv, const unsigned char *d, size_t len, const char *before,
                          const char *after)
{
    char *data = b64(d, len);
    size_t cap = strlen(before) + strlen(data) + strlen(after) + 1;
    char *body = malloc(cap);
    snprintf(body, cap, "%s%s%s", before, data, after);
    fake_server_push_json(srv, 200, body, NULL);
    free(body);
    free(data);
}

/* A whole Chat Completions answer whose message.audio is d[0..len) in base64. */
static void push_audio_answer(fake_server *srv, const char *id, const unsigned char *d, size_t len)
{
    char *data = b64(d, len);
    char body[1024];
    snprintf(body, sizeof body,
             "{\"id\":\"chatcmpl-%s\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
             "\"content\":null,\"audio\":{\"id\":\"audio_%s\",\"data\":\"%s\",\"expires_at\":1,"
             "\"transcript\":\"ok\"}},\"finish_reason\":\"stop\"}]}",
             id, id, data);
    fake_server_push_json(srv, 200, body, NULL);
    free(data);
}

/* A whole Chat Completions answer of text alone. */
static void push_text_answer(fake_server *srv, const char *text)
{
    char body[256];
    snprintf(body, sizeof body,
             "{\"id\":\"c\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
             "\"content\":\"%s\"},\"finish_reason\":\"stop\"}]}",
             text);
    fake_server_push_json(srv, 200, body, NULL);
}

static seam_request *audio_request(void)
{
    return tu_request_out("say hello", SEAM_MODALITY_TEXT | SEAM_MODALITY_AUDIO);
}

/* The end of a generate test: its result, request and client freed. */
static void finish(seam_client *c, seam_request *r, seam_result *res)
{
    seam_result_free(res);
    seam_request_free(r);
    tu_client_free(c);
}

/* The first part of res's message, which must be there, of MIME type mime. */
static const seam_part *first_part_is(const seam_result *res, const char *mime)
{
    const seam_part *p = seam_message_part(seam_result_message(res), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    TU_STR_EQ(seam_part_mime_type(p), mime);
    return p;
}

/* The stored file of handle holds exactly d[0..len). */
static void stored_is(seam_client *c, const char *handle, const unsigned char *d, size_t len)
{
    char *path = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_media_path(c, handle, &path, &err), SEAM_OK);
    size_t n = 0;
    char *got = tu_read_file(path, &n);
    CU_ASSERT_EQUAL(n, len);
    CU_ASSERT(got && n == len && memcmp(got, d, len) == 0);
    free(got);
    free(path);
}

/* ---- a whole answer: message.audio ------------------------------------------------ */

static void test_whole_answer(void)
{
    fake_server *srv;
    seam_client *c = openai_client(&srv, NULL);
    size_t len;
    unsigned char *wav = audio_bytes(12000, 1, &len); /* 0.5 s */
    push_b64_json(srv, wav, len,
             "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o-audio-preview\","
             "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,"
             "\"refusal\":null,\"audio\":{\"id\":\"audio_abc\",\"data\":\"",
             "\",\"expires_at\":1729018505,"
             "\"transcript\":\"Hello there!\"}},\"finish_reason\":\"stop\"}],"
             "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":30,\"total_tokens\":40,"
             "\"completion_tokens_details\":{\"audio_tokens\":25,\"reasoning_tokens\":0}}}");
    seam_request *r = audio_request();
    /* gpt-4o cannot answer in audio: skipped, so the request went to the
     * audio model, with the lowering. */
    json_object *sent;
    seam_result *res = generate_ok(srv, c, r, &sent);
    TU_STR_EQ(tu_json_str(sent, "model"), "gpt-4o-audio-preview");
    CU_ASSERT(tu_json_equal(tu_json_at(sent, "modalities"), "[\"text\",\"audio\"]"));
    CU_ASSERT(tu_json_equal(tu_json_at(sent, "audio"), "{\"voice\":\"alloy\",\"format\":\"wav\"}"));
    json_object_put(sent);
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 1);
    const seam_part *p = seam_message_part(m, 0);
    CU_ASSERT_EQUAL(seam_part_get_type(p), SEAM_PART_MEDIA);
    CU_ASSERT_EQUAL(seam_part_media_source(p), SEAM_MEDIA_HANDLE);
    TU_STR_EQ(seam_part_mime_type(p), "audio/wav");
    char want[SEAM_MEDIA_HANDLE_SIZE];
    handle_of(wav, len, want);
    TU_STR_EQ(seam_part_media_data(p), want);
    TU_STR_EQ(seam_part_media_transcript(p), "Hello there!");
    CU_ASSERT_EQUAL(seam_part_media_byte_length(p), (int64_t)len);
    CU_ASSERT_EQUAL(seam_part_media_duration_ms(p), 500);
    stored_is(c, want, wav, len);
    /* Seconds of audio, apart from the tokens (audio tokens stay in output). */
    tu_media_units_are(res, SEAM_MODALITY_AUDIO, 0.5, "second");
    CU_ASSERT_EQUAL(seam_result_usage(res)->output_tokens, 30);
    TU_STR_EQ(seam_result_text(res), "");
    seam_result_free(res);
    seam_request_free(r);
    free(wav);
    tu_client_free(c);
}

/* ---- a stream: delta.audio fragments -------------------------------------------- */

/* No field of the chunk holds a run of 16 characters of the base64. */
static int holds_base64(const seam_chunk *ch, const char *data)
{
    const char *fields[] = {ch->id, ch->name, ch->text, ch->signature, ch->args_json,
                            ch->result_json, ch->mime_type};
    size_t n = strlen(data);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (!fields[i])
            continue;
        for (size_t at = 0; at + 16 <= n; at += 16) {
            char probe[17];
            memcpy(probe, data + at, 16);
            probe[16] = '\0';
            if (strstr(fields[i], probe))
                return 1;
        }
    }
    return 0;
}

/* printf at the end of a growing buffer. */
typedef struct gbuf {
    char *p;
    size_t len, cap;
} gbuf;

static void __attribute__((format(printf, 2, 3))) gput(gbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = (b->len + (size_t)n + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* The SSE body of a streamed audio answer: data cut in fragments whose sizes
 * are taken in turn from cuts (odd sizes: groups of four split anywhere), or
 * each fragment base64-encoded apart when padded_each. */
static char *stream_body(const unsigned char *pcm, size_t len, const size_t *cuts, size_t n_cuts,
                         int padded_each, const char *bad_fragment)
{
    char *data = b64(pcm, len);
    gbuf out = {0};
#define PUT(...) gput(&out, __VA_ARGS__)
    const char *head = "data: {\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\","
                       "\"model\":\"gpt-4o-audio-preview\",\"choices\":[{\"index\":0,\"delta\":";
    PUT("%s{\"role\":\"assistant\",\"refusal\":null},\"finish_reason\":null}]}\n\n", head);
    PUT("%s{\"content\":null,\"audio\":{\"id\":\"audio_x1\",\"transcript\":\"Hi\"}},\"finish_reason\":null}]}\n\n", head);
    PUT("%s{\"audio\":{\"transcript\":\" there\"}},\"finish_reason\":null}]}\n\n", head);
    size_t at = 0, k = 0;
    if (padded_each) {
        size_t raw = 0;
        while (raw < len) {
            size_t take = cuts[k++ % n_cuts];
            if (take > len - raw)
                take = len - raw;
            char *piece = b64(pcm + raw, take);
            PUT("%s{\"audio\":{\"id\":\"audio_x1\",\"data\":\"%s\"}},\"finish_reason\":null}]}\n\n", head, piece);
            free(piece);
            raw += take;
        }
    } else {
        size_t n = strlen(data);
        while (at < n) {
            size_t take = cuts[k++ % n_cuts];
            if (take > n - at)
                take = n - at;
            PUT("%s{\"audio\":{\"data\":\"%.*s\"}},\"finish_reason\":null}]}\n\n", head, (int)take, data + at);
            at += take;
            if (k == 3 && bad_fragment)
                PUT("%s{\"audio\":{\"data\":\"%s\"}},\"finish_reason\":null}]}\n\n", head, bad_fragment);
        }
    }
    PUT("%s{\"audio\":{\"transcript\":\"!\"}},\"finish_reason\":null}]}\n\n", head);
    PUT("%s{\"audio\":{\"expires_at\":1729444178}},\"finish_reason\":null}]}\n\n", head);
    PUT("%s{},\"finish_reason\":\"stop\"}]}\n\n", head);
    PUT("data: {\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"choices\":[],"
        "\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":40,\"total_tokens\":47,"
        "\"completion_tokens_details\":{\"audio_tokens\":33}}}\n\n");
    PUT("data: [DONE]\n\n");
#undef PUT
    free(data);
    return out.p;
}

typedef struct streamed {
    int rc;
    seam_error err;
    const char *data_b64; /* the audio's base64, which no chunk may hold */
    int starts, deltas, progress_deltas, ends, leaked;
    char transcript[256];
    char handle[SEAM_MEDIA_HANDLE_SIZE];
    char mime[32];
    char last_meta[128];
} streamed;

/* One chunk of an audio stream, counted into the streamed at ud. */
static void count_chunk(void *ud, const seam_chunk *ch)
{
    streamed *s = ud;
    if (holds_base64(ch, s->data_b64))
        s->leaked++;
    if (ch->type == SEAM_CHUNK_MEDIA_START) {
        s->starts++;
        snprintf(s->mime, sizeof s->mime, "%s", ch->mime_type);
        TU_STR_EQ(ch->id, "audio_x1");
    } else if (ch->type == SEAM_CHUNK_MEDIA_DELTA) {
        s->deltas++;
        TU_STR_EQ(ch->id, "audio_x1");
        if (ch->text)
            strncat(s->transcript, ch->text, sizeof s->transcript - strlen(s->transcript) - 1);
        else {
            s->progress_deltas++;
            CU_ASSERT_EQUAL(ch->progress, -1); /* raw PCM: the whole size is unknown */
            CU_ASSERT_PTR_NOT_NULL(ch->result_json && strstr(ch->result_json, "\"bytes\":"));
        }
    } else if (ch->type == SEAM_CHUNK_MEDIA_END) {
        s->ends++;
        snprintf(s->handle, sizeof s->handle, "%s", ch->text ? ch->text : "");
        snprintf(s->last_meta, sizeof s->last_meta, "%s", ch->result_json ? ch->result_json : "");
    }
}

static streamed run_stream(seam_client *c, const char *data_b64)
{
    streamed s = {.data_b64 = data_b64};
    seam_request *r = audio_request();
    s.rc = tu_stream_chunks(c, r, NULL, count_chunk, &s, NULL, &s.err);
    seam_request_free(r);
    return s;
}

/* A stream test's server, client and audio: PCM samples and their base64. */
typedef struct audio_fixture {
    fake_server *srv;
    seam_client *c;
    unsigned char *pcm;
    size_t len;
    char *data;
} audio_fixture;

static audio_fixture audio_setup(size_t n_samples)
{
    audio_fixture f;
    f.c = openai_client(&f.srv, NULL);
    f.pcm = audio_bytes(n_samples, 0, &f.len);
    f.data = b64(f.pcm, f.len);
    return f;
}

static void audio_done(audio_fixture *f)
{
    free(f->data);
    free(f->pcm);
    tu_client_free(f->c);
}

static void test_stream_fragments(void)
{
    audio_fixture f = audio_setup(4801); /* 9602 bytes: 200.04 ms */
    /* Fragments of 1, 2, 3, 5, 7, 11 and 13 characters, over and over: groups
     * of four cut at every place, and SSE pieces of the server's own sizes. */
    static const size_t cuts[] = {1, 2, 3, 5, 7, 11, 13, 997};
    char *sse = stream_body(f.pcm, f.len, cuts, sizeof cuts / sizeof cuts[0], 0, NULL);
    fake_response fr = {.body = sse, .split = 7, .split_max = 4099};
    fake_server_push(f.srv, &fr);
    streamed s = run_stream(f.c, f.data);
    CU_ASSERT_EQUAL(s.rc, 0);
    /* A stream asks for pcm16, the one format OpenAI streams. */
    json_object *sent = tu_last_body(f.srv);
    CU_ASSERT(tu_json_equal(tu_json_at(sent, "audio"), "{\"voice\":\"alloy\",\"format\":\"pcm16\"}"));
    CU_ASSERT(tu_json_equal(tu_json_at(sent, "modalities"), "[\"text\",\"audio\"]"));
    json_object_put(sent);
    CU_ASSERT_EQUAL(s.starts, 1);
    CU_ASSERT_EQUAL(s.ends, 1);
    CU_ASSERT(s.progress_deltas > 100); /* one per data fragment */
    CU_ASSERT_EQUAL(s.leaked, 0);
    TU_STR_EQ(s.mime, "audio/pcm");
    TU_STR_EQ(s.transcript, "Hi there!");
    char want[SEAM_MEDIA_HANDLE_SIZE];
    handle_of(f.pcm, f.len, want);
    TU_STR_EQ(s.handle, want);
    TU_STR_EQ(s.last_meta, "{\"byte_length\":9602,\"duration_ms\":200}");
    stored_is(f.c, want, f.pcm, f.len);
    free(sse);
    audio_done(&f);
}

/* The result of a streamed audio answer: the part with its transcript and
 * duration, the seconds in media_units; seam_generate folds the same. */
static void test_stream_result(void)
{
    audio_fixture f = audio_setup(12000); /* 24000 bytes: 0.5 s */
    static const size_t cuts[] = {4095, 4097, 1};
    char *sse = stream_body(f.pcm, f.len, cuts, 3, 0, NULL);
    fake_server_push_sse(f.srv, sse, 0);
    seam_request *r = audio_request();
    seam_stream *st = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(tu_stream_chunks(f.c, r, NULL, NULL, NULL, &st, &err), 0);
    const seam_result *res = seam_stream_result(st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res);
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 1);
    const seam_part *p = seam_message_part(m, 0);
    TU_STR_EQ(seam_part_mime_type(p), "audio/pcm");
    TU_STR_EQ(seam_part_media_transcript(p), "Hi there!");
    CU_ASSERT_EQUAL(seam_part_media_byte_length(p), 24000);
    CU_ASSERT_EQUAL(seam_part_media_duration_ms(p), 500);
    tu_media_units_are(res, SEAM_MODALITY_AUDIO, 0.5, "second");
    CU_ASSERT_EQUAL(seam_result_usage(res)->output_tokens, 40);
    seam_stream_free(st);
    seam_request_free(r);
    free(sse);
    audio_done(&f);
}

/* A server that base64-encodes each piece apart (each fragment padded). */
static void test_stream_padded_fragments(void)
{
    audio_fixture f = audio_setup(3000);
    static const size_t cuts[] = {100, 101, 250, 7}; /* raw bytes: 1 or 2 padding characters */
    char *sse = stream_body(f.pcm, f.len, cuts, 4, 1, NULL);
    fake_server_push_sse(f.srv, sse, 0);
    streamed s = run_stream(f.c, f.data);
    CU_ASSERT_EQUAL(s.rc, 0);
    char want[SEAM_MEDIA_HANDLE_SIZE];
    handle_of(f.pcm, f.len, want);
    TU_STR_EQ(s.handle, want);
    stored_is(f.c, want, f.pcm, f.len);
    free(sse);
    audio_done(&f);
}

/* Garbage in the base64: the stream fails with a clear error that names the
 * position and holds none of the characters; nothing is stored. */
static void test_stream_bad_base64(void)
{
    audio_fixture f = audio_setup(600);
    static const size_t cuts[] = {5, 6, 7};
    const char *bads[] = {"QUJD$$$$RUZH", "QQ==QUJD", "QUJ!"};
    for (size_t b = 0; b < 3; b++) {
        char *sse = stream_body(f.pcm, f.len, cuts, 3, 0, bads[b]);
        fake_server_push_sse(f.srv, sse, 0);
        streamed s = run_stream(f.c, f.data);
        CU_ASSERT_EQUAL(s.rc, SEAM_ERR_PROVIDER);
        CU_ASSERT_PTR_NOT_NULL(strstr(s.err.message, "is not valid base64"));
        CU_ASSERT_PTR_NULL(strstr(s.err.message, "QUJD"));
        CU_ASSERT_EQUAL(s.ends, 0);
        CU_ASSERT_EQUAL(s.leaked, 0);
        free(sse);
    }
    /* The store holds no temporary left behind. */
    char cmd[512], *out = NULL;
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c '^.tmp-' || true", store_dir);
    CU_ASSERT_EQUAL(tu_run(cmd, &out, NULL), 0);
    TU_STR_EQ(out, "0\n");
    free(out);
    audio_done(&f);
}

/* Base64 that ends inside a group of four is refused at the end. */
static void test_stream_cut_group(void)
{
    audio_fixture f = audio_setup(3); /* 6 bytes: 8 characters */
    char *sse = stream_body(f.pcm, f.len, (const size_t[]){3}, 1, 0, NULL);
    /* Drop the last character of the data: "data":"XX" becomes "data":"X". */
    char last[16];
    snprintf(last, sizeof last, "\"data\":\"%s\"", f.data + 6);
    char *at = strstr(sse, last);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    memmove(at + 9, at + 10, strlen(at + 10) + 1);
    fake_server_push_sse(f.srv, sse, 0);
    streamed s = run_stream(f.c, f.data);
    CU_ASSERT_EQUAL(s.rc, SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NOT_NULL(strstr(s.err.message, "ends inside a group of four"));
    free(sse);
    audio_done(&f);
}

/* ---- whole answers: formats, the Responses API, text only, the next turn, the mock -- */

/* The conf's options choose the voice and format: the MIME type follows. */
static void test_options_format(void)
{
    fake_server *srv;
    seam_client *c = openai_client(&srv, "options = { audio = { voice = \"verse\"; format = \"mp3\"; }; };");
    const unsigned char mp3[] = {0xff, 0xfb, 0x90, 0x64, 0x00, 0x0f, 0xf0, 0x00, 0x00};
    push_audio_answer(srv, "2", mp3, sizeof mp3);
    seam_request *r = audio_request();
    json_object *sent;
    seam_result *res = generate_ok(srv, c, r, &sent);
    CU_ASSERT(tu_json_equal(tu_json_at(sent, "audio"), "{\"voice\":\"verse\",\"format\":\"mp3\"}"));
    json_object_put(sent);
    const seam_part *p = first_part_is(res, "audio/mpeg");
    /* An MP3's duration is not read: no seconds are claimed. */
    CU_ASSERT_EQUAL(seam_part_media_duration_ms(p), -1);
    CU_ASSERT_EQUAL(seam_result_media_units_count(res), 0);
    finish(c, r, res);
}

/* A request's options in the plugin's namespace choose the format too, and
 * the decoder names the part by the format the body asked for. */
static void test_request_namespaced_format(void)
{
    fake_server *srv;
    seam_client *c = openai_client(&srv, NULL);
    const unsigned char flac[] = {'f', 'L', 'a', 'C', 0, 0, 0, 34};
    push_audio_answer(srv, "3", flac, sizeof flac);
    seam_request *r = audio_request();
    CU_ASSERT_EQUAL(seam_request_set_provider_options(
                        r, "{\"openai\":{\"audio\":{\"voice\":\"ash\",\"format\":\"flac\"}}}"),
                    SEAM_OK);
    json_object *sent;
    seam_result *res = generate_ok(srv, c, r, &sent);
    CU_ASSERT(tu_json_equal(tu_json_at(sent, "audio"), "{\"voice\":\"ash\",\"format\":\"flac\"}"));
    json_object_put(sent);
    first_part_is(res, "audio/flac");
    finish(c, r, res);
}

/* The Responses API cannot answer in audio: refused, nothing sent. */
static void test_responses_refuses_audio(void)
{
    fake_server *srv;
    seam_client *c = openai_client(&srv, "options = { api = \"responses\"; };");
    seam_request *r = audio_request();
    seam_call_options o = tu_call_opts("oa", "gpt-4o-audio-preview");
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_generate(c, r, &o, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "Responses API answers in text only"));
    CU_ASSERT_EQUAL(fake_server_request_count(srv), 0);
    finish(c, r, res);
}

/* The body that generating r sends, on a client of its own whose server
 * answers with text (the caller puts it). */
static json_object *sent_for(const seam_request *r, const char *answer)
{
    fake_server *srv;
    seam_client *c = openai_client(&srv, NULL);
    push_text_answer(srv, answer);
    json_object *sent;
    seam_result_free(generate_ok(srv, c, r, &sent));
    tu_client_free(c);
    return sent;
}

/* Text only (the default): no modalities, no audio in the body. */
static void test_text_only_unchanged(void)
{
    seam_request *r = tu_user_request("hi");
    json_object *sent = sent_for(r, "hi");
    CU_ASSERT(!tu_json_has(sent, "modalities"));
    CU_ASSERT(!tu_json_has(sent, "audio"));
    TU_STR_EQ(tu_json_str(sent, "model"), "gpt-4o");
    json_object_put(sent);
    seam_request_free(r);
}

/* The next turn after an audio answer: the assistant's audio goes back as
 * its transcript (OpenAI's audio guide: the transcript as the assistant's
 * content when the audio id is not sent). */
static void test_next_turn_transcript(void)
{
    seam_request *r = tu_user_request("say hello");
    seam_message *a = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_media_meta meta = {.size = sizeof meta, .transcript = "Hello there!", .byte_length = -1,
                            .duration_ms = -1};
    CU_ASSERT_EQUAL(seam_message_add_media_meta(a, "audio/wav", SEAM_MEDIA_URL,
                                                "https://example.org/a.wav", &meta), SEAM_OK);
    seam_request_add_message(r, a);
    seam_message *u = seam_message_new(SEAM_ROLE_USER);
    seam_message_add_text(u, "and again?");
    seam_request_add_message(r, u);
    json_object *sent = sent_for(r, "fine");
    TU_STR_EQ(tu_json_str(sent, "messages.1.role"), "assistant");
    TU_STR_EQ(tu_json_str(sent, "messages.1.content"), "Hello there!");
    json_object_put(sent);
    seam_request_free(r);
}

/* Whole media through seam_emit_media (the mock's WAV: 8 samples at 8000
 * bytes a second) gets its length and duration too, offline. */
static void test_mock_audio_meta(void)
{
    seam_client *c = tu_clientf("providers = { m = { plugin = \"mock\"; }; };\n"
                                "chains = { default = ( { provider = \"m\"; model = \"mock-1\"; } ); };\n"
                                "media = { store = \"%s\"; };\n", store_dir ? store_dir : tu_dir());
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    seam_request *r = audio_request();
    seam_result *res = generate_ok(NULL, c, r, NULL);
    const seam_message *m = seam_result_message(res);
    const seam_part *audio = NULL;
    for (size_t i = 0; i < seam_message_part_count(m); i++)
        if (seam_part_get_type(seam_message_part(m, i)) == SEAM_PART_MEDIA)
            audio = seam_message_part(m, i);
    CU_ASSERT_PTR_NOT_NULL_FATAL(audio);
    TU_STR_EQ(seam_part_mime_type(audio), "audio/wav");
    CU_ASSERT_EQUAL(seam_part_media_byte_length(audio), 52);
    CU_ASSERT_EQUAL(seam_part_media_duration_ms(audio), 1);
    tu_media_units_are(res, SEAM_MODALITY_AUDIO, 0.001, "second");
    finish(c, r, res);
}

/* ---- Gemini: a blob comes whole in one event, through the same pieces ------------- */

/* A fake server started in *srv, and a client whose one chain is model on it. */
static seam_client *gemini_client(fake_server **srv, const char *model)
{
    *srv = tu_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(*srv);
    seam_client *c = tu_clientf(
        "providers = { gm = { plugin = \"gemini\"; base_url = \"%s/v1beta\"; api_key = \"k\"; }; };\n"
        "chains = { default = ( { provider = \"gm\"; model = \"%s\"; } ); };\n"
        "media = { store = \"%s\"; };\n",
        fake_server_url(*srv), model, media_store());
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

/* A stream's chunks as words (media deltas and ends with their JSON), and
 * base64 that no chunk may hold. */
typedef struct piece_log {
    const char *data_b64;
    char text[512];
} piece_log;

static void log_piece(void *ud, const seam_chunk *ch)
{
    piece_log *log = ud;
    CU_ASSERT(!holds_base64(ch, log->data_b64));
    size_t n = strlen(log->text);
    if (ch->type == SEAM_CHUNK_MEDIA_DELTA)
        snprintf(log->text + n, sizeof log->text - n, "delta%s ", ch->result_json ? ch->result_json : "");
    else if (ch->type == SEAM_CHUNK_MEDIA_END)
        snprintf(log->text + n, sizeof log->text - n, "end%s ", ch->result_json ? ch->result_json : "");
    else
        snprintf(log->text + n, sizeof log->text - n, "%s ", seam_chunk_type_name(ch->type));
}

/* A streamed Gemini image (GenerateContentResponse events, a Part whole in
 * one: ai.google.dev/api/generate-content): media_start, one media_delta with
 * the byte count, media_end with the length. */
static void test_gemini_image_pieces(void)
{
    fake_server *srv;
    seam_client *c = gemini_client(&srv, "gemini-2.5-flash-image");
    const char *png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    char sse[1024];
    snprintf(sse, sizeof sse,
             "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"A cat.\"}]}}]}\r\n\r\n"
             "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"inlineData\":"
             "{\"mimeType\":\"image/png\",\"data\":\"%s\"}}]},\"finishReason\":\"STOP\"}]}\r\n\r\n",
             png);
    fake_server_push_sse(srv, sse, 9);
    seam_request *r = tu_request_out("draw a cat", SEAM_MODALITY_TEXT | SEAM_MODALITY_IMAGE);
    seam_stream *st = NULL;
    seam_error err;
    piece_log log = {.data_b64 = png};
    CU_ASSERT_EQUAL(tu_stream_chunks(c, r, NULL, log_piece, &log, &st, &err), 0);
    TU_STR_EQ(log.text, "text_delta media_start delta{\"bytes\":70} end{\"byte_length\":70} stop ");
    const seam_part *p = seam_message_part(seam_result_message(seam_stream_result(st)), 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(seam_part_media_byte_length(p), 70);
    seam_stream_free(st);
    seam_request_free(r);
    tu_client_free(c);
}

/* Gemini speech generation answers "audio/L16;codec=pcm;rate=24000"
 * (ai.google.dev/gemini-api/docs/speech-generation): stored as audio/pcm, its
 * duration from the rate. */
static void test_gemini_tts(void)
{
    fake_server *srv;
    seam_client *c = gemini_client(&srv, "gemini-2.5-flash-preview-tts");
    size_t len;
    unsigned char *pcm = audio_bytes(12000, 0, &len); /* 24000 bytes at 48000 a second */
    push_b64_json(srv, pcm, len,
             "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"inlineData\":"
             "{\"mimeType\":\"audio/L16;codec=pcm;rate=24000\",\"data\":\"",
             "\"}}]},"
             "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":9,"
             "\"candidatesTokenCount\":300}}");
    seam_request *r = tu_request_out("Say cheerfully: have a wonderful day!", SEAM_MODALITY_AUDIO);
    json_object *sent;
    seam_result *res = generate_ok(srv, c, r, &sent);
    CU_ASSERT(tu_json_equal(tu_json_at(sent, "generationConfig.responseModalities"), "[\"AUDIO\"]"));
    json_object_put(sent);
    const seam_part *p = first_part_is(res, "audio/pcm");
    CU_ASSERT_EQUAL(seam_part_media_duration_ms(p), 500);
    char want[SEAM_MEDIA_HANDLE_SIZE];
    handle_of(pcm, len, want);
    TU_STR_EQ(seam_part_media_data(p), want);
    tu_media_units_are(res, SEAM_MODALITY_AUDIO, 0.5, "second");
    seam_result_free(res);
    seam_request_free(r);
    free(pcm);
    tu_client_free(c);
}

static const tu_test tests[] = {
    {"openai audio: a whole answer stored, transcript, duration, media_units", test_whole_answer},
    {"openai audio: a stream of odd fragments, no base64 in any chunk", test_stream_fragments},
    {"openai audio: the stream's result", test_stream_result},
    {"openai audio: fragments padded each", test_stream_padded_fragments},
    {"openai audio: garbage base64 is a clear error", test_stream_bad_base64},
    {"openai audio: base64 cut inside a group", test_stream_cut_group},
    {"openai audio: the conf's voice and format", test_options_format},
    {"openai audio: text only sends neither", test_text_only_unchanged},
    {"openai audio: the Responses API refuses it", test_responses_refuses_audio},
    {"openai audio: a request's namespaced format", test_request_namespaced_format},
    {"openai audio: the next turn sends the transcript back", test_next_turn_transcript},
    {"mock: whole media gets its length and duration", test_mock_audio_meta},
    {"gemini: a streamed image through the pieces, with its length", test_gemini_image_pieces},
    {"gemini: speech (audio/L16) stored as audio/pcm with its duration", test_gemini_tts},
    {NULL, NULL},
};

int main(void)
{
    return tu_run_suite("mediachat", tests, NULL);
}
