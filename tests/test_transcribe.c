/* test_transcribe.c — speech to text (issue 13, seam_transcribe): OpenAI's
 * /audio/transcriptions upload (a multipart/form-data body, parsed here as
 * the server reads it), Gemini's generateContent with the audio inline, the
 * mock offline, chains that skip an entry whose plugin cannot transcribe,
 * and the refusals. Against the fake server, through the real plugins.
 *
 * The wires:
 *  - OpenAI's API reference, "Create transcription", as openai-node types it
 *    (src/resources/audio/transcriptions.ts): multipart fields file, model,
 *    language, prompt, response_format; answered Transcription {text, usage},
 *    the usage Transcription.Tokens {type:"tokens", input_tokens,
 *    output_tokens, total_tokens, input_token_details {audio_tokens,
 *    text_tokens}} or Transcription.Duration {type:"duration", seconds}.
 *  - Gemini: ai.google.dev/gemini-api/docs/audio ("Generate a transcript"):
 *    generateContent with an inlineData {mimeType, data} part and a text
 *    part asking for the transcript; the answer's candidates[0].content.parts
 *    text, usageMetadata. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

static seam_transcribe_request wav_request(const unsigned char *bytes, size_t len)
{
    seam_transcribe_request tr;
    memset(&tr, 0, sizeof tr);
    tr.size = sizeof tr;
    tr.mime_type = "audio/wav";
    tr.audio = bytes;
    tr.audio_len = len;
    return tr;
}

/* A request of a WAV of n 16-bit mono samples at 16 kHz (32000 bytes a
 * second), whose bytes (tr.audio_len of them) are *wav, the caller's to free. */
static seam_transcribe_request wav_of(size_t n_samples, unsigned char **wav)
{
    size_t data = n_samples * 2, total = data + 44;
    unsigned char *p = malloc(total);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    tu_wav_header(p, data, 16000);
    for (size_t i = 0; i < n_samples; i++) {
        /* NUL bytes and CR LF in the samples: the upload is binary-safe. */
        p[44 + 2 * i] = (unsigned char)(i % 3 == 0 ? 0 : i % 3 == 1 ? '\r' : '\n');
        p[44 + 2 * i + 1] = (unsigned char)(i * 7);
    }
    *wav = p;
    return wav_request(p, total);
}

/* seam_transcribe(tr) on c with o (NULL: c's transcribe chain), which must
 * succeed: the transcription. */
static seam_transcription *transcribed(seam_client *c, const seam_transcribe_request *tr,
                                       const seam_call_options *o)
{
    seam_transcription *t = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(tu_said(seam_transcribe(c, tr, o, &t, &err), &err, "seam_transcribe"), SEAM_OK);
    return t;
}

/* seam_transcribe(tr) on c with o fails with rc and no transcription: the error. */
static seam_error refused(seam_client *c, const seam_transcribe_request *tr, const seam_call_options *o,
                          int rc)
{
    seam_transcription *t = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_transcribe(c, tr, o, &t, &err), rc);
    CU_ASSERT_PTR_NULL(t);
    return err;
}

/* The form part name of the last request is want (a string). */
static void form_is(fake_server *srv, const char *name, const char *want)
{
    size_t i = fake_server_request_count(srv) - 1, n = 0;
    const char *d = NULL;
    if (!want) {
        CU_ASSERT_EQUAL(fake_server_request_form(srv, i, name, &d, &n, NULL, NULL, 0), 0);
        return;
    }
    CU_ASSERT_EQUAL_FATAL(fake_server_request_form(srv, i, name, &d, &n, NULL, NULL, 0), 1);
    CU_ASSERT_EQUAL(n, strlen(want));
    CU_ASSERT(n == strlen(want) && memcmp(d, want, n) == 0);
}

static void file_part_is(fake_server *srv, const char *filename, const char *type,
                         const unsigned char *bytes, size_t len)
{
    size_t i = fake_server_request_count(srv) - 1, n = 0;
    const char *d = NULL;
    char fname[128], ftype[128];
    CU_ASSERT_EQUAL_FATAL(fake_server_request_form(srv, i, "file", &d, &n, fname, ftype, sizeof fname), 1);
    TU_STR_EQ(fname, filename);
    TU_STR_EQ(ftype, type);
    CU_ASSERT_EQUAL(n, len);
    CU_ASSERT(n == len && memcmp(d, bytes, len) == 0);
}

/* *srv a new server; a client whose transcribe chain is anthropic (which
 * cannot) then gpt-4o-transcribe on it. */
static seam_client *openai_client(fake_server **srv)
{
    return tu_test_client_on(srv,
        "providers = { oa = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"sk-live-9f8e7d6c5b\"; };\n"
        "              an = { plugin = \"anthropic\"; base_url = \"@URL@\"; api_key = \"k\"; }; };\n"
        "chains = { transcribe = ( { provider = \"an\"; model = \"claude-sonnet-4-5\"; },\n"
        "                          { provider = \"oa\"; model = \"gpt-4o-transcribe\"; } ); };\n");
}

/* gpt-4o-transcribe: the upload, and usage in tokens; the chain's first
 * entry (anthropic, no transcription) is skipped and says why. */
static void test_openai_tokens(void)
{
    fake_server *srv;
    seam_client *c = openai_client(&srv);
    fake_server_push_json(srv, 200,
                          "{\"text\":\"Imagine the wildest idea that you've ever had.\","
                          "\"usage\":{\"type\":\"tokens\",\"input_tokens\":14,\"input_token_details\":"
                          "{\"text_tokens\":0,\"audio_tokens\":14},\"output_tokens\":45,\"total_tokens\":59}}",
                          NULL);
    unsigned char *wav;
    seam_transcribe_request tr = wav_of(8000, &wav); /* 0.5 s */
    tr.language = "en";
    tr.prompt = "A talk about ideas.";
    tu_attempts attempts = {.flags = TU_ATTEMPT_ERRORS};
    seam_call_options o = {.size = sizeof o, .on_attempt = tu_on_attempt, .ud = &attempts};
    seam_transcription *t = transcribed(c, &tr, &o);
    CU_ASSERT_PTR_NOT_NULL(strstr(attempts.log, "skipped an/claude-sonnet-4-5: provider \"an\" (plugin anthropic) "
                                                "cannot transcribe"));
    TU_STR_EQ(tu_last_path(srv), "/v1/audio/transcriptions");
    TU_STR_EQ(tu_last_header(srv, "Authorization"), "Bearer sk-live-9f8e7d6c5b");
    CU_ASSERT_PTR_NOT_NULL(strstr(tu_last_header(srv, "Content-Type"), "multipart/form-data; boundary="));
    file_part_is(srv, "audio.wav", "audio/wav", wav, tr.audio_len);
    form_is(srv, "model", "gpt-4o-transcribe");
    form_is(srv, "language", "en");
    form_is(srv, "prompt", "A talk about ideas.");
    form_is(srv, "response_format", "json");
    TU_STR_EQ(seam_transcription_text(t), "Imagine the wildest idea that you've ever had.");
    const seam_usage *u = seam_transcription_usage(t);
    CU_ASSERT_EQUAL(u->input_tokens, 14);
    CU_ASSERT_EQUAL(u->output_tokens, 45);
    CU_ASSERT(u->present & SEAM_USAGE_INPUT);
    /* Billed in tokens: the seconds come from the WAV header. */
    CU_ASSERT_DOUBLE_EQUAL(seam_transcription_seconds(t), 0.5, 1e-9);
    TU_STR_EQ(seam_transcription_provider(t), "oa");
    TU_STR_EQ(seam_transcription_model(t), "gpt-4o-transcribe");
    seam_transcription_free(t);
    free(wav);
    tu_client_free(c);
}

/* whisper-1: usage in seconds; a handle of the store as the audio; no
 * language or prompt fields when none is given. */
static void test_openai_duration_handle(void)
{
    fake_server *srv;
    seam_client *c = tu_test_client_on(&srv, "providers = { oa = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"k\"; }; };\n"
                                             "media = { store = \"@TMP@/store\"; };\n");
    fake_server_push_json(srv, 200, "{\"text\":\"hello\",\"usage\":{\"type\":\"duration\",\"seconds\":9}}", NULL);
    const unsigned char mp3[] = {0xff, 0xfb, 0x90, 0x64, 0, 0x0f, '\r', '\n', 0};
    char handle[SEAM_MEDIA_HANDLE_SIZE];
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_media_put(c, mp3, sizeof mp3, handle, &err), SEAM_OK);
    seam_transcribe_request tr;
    memset(&tr, 0, sizeof tr);
    tr.size = sizeof tr;
    tr.mime_type = "audio/mpeg";
    tr.handle = handle;
    seam_call_options o = tu_call_opts("oa", "whisper-1");
    seam_transcription *t = transcribed(c, &tr, &o);
    file_part_is(srv, "audio.mp3", "audio/mpeg", mp3, sizeof mp3);
    form_is(srv, "model", "whisper-1");
    form_is(srv, "language", NULL);
    form_is(srv, "prompt", NULL);
    TU_STR_EQ(seam_transcription_text(t), "hello");
    CU_ASSERT_DOUBLE_EQUAL(seam_transcription_seconds(t), 9, 1e-9);
    CU_ASSERT_EQUAL(seam_transcription_usage(t)->present & (SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT), 0);
    seam_transcription_free(t);
    tu_client_free(c);
}

/* An answer that is not a transcription, and an HTTP error, fail as such;
 * the key never shows. */
static void test_openai_errors(void)
{
    fake_server *srv;
    seam_client *c = openai_client(&srv);
    unsigned char *wav;
    seam_transcribe_request tr = wav_of(10, &wav);
    seam_call_options o = tu_call_opts("oa", "gpt-4o-transcribe");
    fake_server_push_json(srv, 200, "{\"words\":[]}", NULL);
    seam_error err = refused(c, &tr, &o, SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "malformed transcription: no text"));
    fake_server_push_json(srv, 401,
                          "{\"error\":{\"message\":\"Incorrect API key provided: sk-live-9f8e7d6c5b\","
                          "\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}",
                          NULL);
    err = refused(c, &tr, &o, SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_AUTH);
    CU_ASSERT_PTR_NULL(strstr(err.message, "sk-live-9f8e7d6c5b"));
    free(wav);
    tu_client_free(c);
}

/* Gemini: generateContent with the audio inline and the ask in text. */
static void test_gemini(void)
{
    fake_server *srv;
    seam_client *c = tu_test_client_on(&srv, "providers = { gm = { plugin = \"gemini\"; base_url = \"@URL@/v1beta\"; api_key = \"gk\"; }; };\n"
                                            "chains = { transcribe = ( { provider = \"gm\"; model = \"gemini-2.5-flash\"; } ); };\n");
    fake_server_push_json(srv, 200,
                          "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":["
                          "{\"text\":\"thinking about it\",\"thought\":true},"
                          "{\"text\":\"Hello from \"},{\"text\":\"the audio.\\n\"}]},"
                          "\"finishReason\":\"STOP\"}],"
                          "\"usageMetadata\":{\"promptTokenCount\":120,\"candidatesTokenCount\":6,"
                          "\"totalTokenCount\":126}}",
                          NULL);
    const unsigned char wav[] = "RIFF\x24\0\0\0WAVEfmt ";
    seam_transcribe_request tr = wav_request(wav, sizeof wav - 1);
    tr.language = "de";
    seam_transcription *t = transcribed(c, &tr, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(tu_last_path(srv), "/v1beta/models/gemini-2.5-flash:generateContent"));
    json_object *body = tu_last_body(srv);
    TU_STR_EQ(tu_json_str(body, "contents.0.role"), "user");
    TU_STR_EQ(tu_json_str(body, "contents.0.parts.0.inlineData.mimeType"), "audio/wav");
    TU_STR_EQ(tu_json_str(body, "contents.0.parts.0.inlineData.data"), "UklGRiQAAABXQVZFZm10IA==");
    const char *ask = tu_json_str(body, "contents.0.parts.1.text");
    CU_ASSERT_PTR_NOT_NULL(strstr(ask, "Generate a transcript of the speech"));
    CU_ASSERT_PTR_NOT_NULL(strstr(ask, "language de"));
    json_object_put(body);
    TU_STR_EQ(seam_transcription_text(t), "Hello from the audio.");
    CU_ASSERT_EQUAL(seam_transcription_usage(t)->input_tokens, 120);
    CU_ASSERT_EQUAL(seam_transcription_usage(t)->output_tokens, 6);
    seam_transcription_free(t);
    /* A model known to take no audio is refused before anything is sent. */
    size_t before = fake_server_request_count(srv);
    seam_call_options o = tu_call_opts("gm", "imagen-4.0-generate-001");
    seam_error err = refused(c, &tr, &o, SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "takes no audio"));
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before);
    tu_client_free(c);
}

/* The mock, offline: the core's form body read back by the mock's server. */
static void test_mock(void)
{
    seam_client *c = tu_clientf("providers = { m = { plugin = \"mock\"; }; s = { plugin = \"mock\"; options = { transcript = \"scripted words\"; }; }; };\n"
                                "roles = { transcribe = \"t\"; };\n"
                                "chains = { t = ( { provider = \"m\"; model = \"mock-1\"; } ); };\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    unsigned char *wav;
    seam_transcribe_request tr = wav_of(16000, &wav); /* 1 s */
    seam_transcription *t = transcribed(c, &tr, NULL);
    char want[96];
    snprintf(want, sizeof want, "mock transcript of %zu bytes of audio/wav", tr.audio_len);
    TU_STR_EQ(seam_transcription_text(t), want);
    CU_ASSERT_DOUBLE_EQUAL(seam_transcription_seconds(t), 1.0, 1e-9);
    TU_STR_EQ(seam_transcription_provider(t), "m");
    seam_transcription_free(t);
    seam_call_options o = tu_call_opts("s", "mock-1");
    t = transcribed(c, &tr, &o);
    TU_STR_EQ(seam_transcription_text(t), "scripted words");
    seam_transcription_free(t);
    free(wav);
    tu_client_free(c);
}

/* Audio that holds the form's first boundary: the body takes another, and the
 * bytes arrive whole. */
static void test_boundary_in_audio(void)
{
    fake_server *srv;
    seam_client *c = openai_client(&srv);
    const char audio[] = "ID3\r\n------seam-form-7d1c9a0b0\r\n--\r\n";
    fake_server_push_json(srv, 200, "{\"text\":\"ok\"}", NULL);
    seam_transcribe_request tr = wav_request((const unsigned char *)audio, sizeof audio - 1);
    tr.mime_type = "audio/mpeg";
    tr.name = "talk.mp3";
    seam_call_options o = tu_call_opts("oa", "whisper-1");
    seam_transcription *t = transcribed(c, &tr, &o);
    CU_ASSERT_PTR_NULL(strstr(tu_last_header(srv, "Content-Type"), "7d1c9a0b0"));
    file_part_is(srv, "talk.mp3", "audio/mpeg", (const unsigned char *)audio, sizeof audio - 1);
    seam_transcription_free(t);
    tu_client_free(c);
}

/* Refusals before anything is sent. */
static void test_refusals(void)
{
    fake_server *srv;
    seam_client *c = openai_client(&srv);
    const unsigned char bytes[] = "abc";
    seam_transcription *t = NULL;
    seam_error err;
    seam_call_options o = tu_call_opts("oa", "whisper-1");
    seam_transcribe_request tr = wav_request(bytes, 3);
    tr.mime_type = "image/png";
    CU_ASSERT_EQUAL(seam_transcribe(c, &tr, &o, &t, &err), SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "is not audio/*"));
    tr.mime_type = "audio/wav; rate=16000";
    CU_ASSERT_EQUAL(seam_transcribe(c, &tr, &o, &t, &err), SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "has parameters"));
    tr = wav_request(bytes, 3);
    tr.handle = "media://sha256-0000000000000000000000000000000000000000000000000000000000000000";
    CU_ASSERT_EQUAL(seam_transcribe(c, &tr, &o, &t, &err), SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "one of the two"));
    tr = wav_request(NULL, 0);
    CU_ASSERT_EQUAL(seam_transcribe(c, &tr, &o, &t, &err), SEAM_ERR_INVALID);
    tr = wav_request(bytes, 3);
    tr.size = 0;
    CU_ASSERT_EQUAL(seam_transcribe(c, &tr, &o, &t, &err), SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "size is not set"));
    /* A file name that would forge the part's headers. */
    tr = wav_request(bytes, 3);
    tr.name = "a\"\r\nContent-Type: text/html";
    CU_ASSERT_EQUAL(seam_transcribe(c, &tr, &o, &t, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "cannot go in a form header"));
    /* No chain for transcription. */
    seam_client *bare = tu_client_on(srv, "providers = { oa = { plugin = \"openai\"; base_url = \"@URL@/v1\"; }; };\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(bare);
    tr = wav_request(bytes, 3);
    CU_ASSERT_EQUAL(seam_transcribe(bare, &tr, NULL, &t, &err), SEAM_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "no chain \"transcribe\" for transcription"));
    CU_ASSERT_EQUAL(fake_server_request_count(srv), 0);
    tu_client_free(bare);
    tu_client_free(c);
}

/* Record and replay: the upload is one byte string with a boundary that is
 * the same for the same parts, so a recorded transcription replays with the
 * server gone, and other audio misses. */
static void test_cassette_replay(void)
{
    char *dir = tu_path(tu_dir(), "cassettes");
    fake_server *srv = fake_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv);
    fake_server_push_json(srv, 200, "{\"text\":\"recorded words\"}", NULL);
    char conf[512];
    snprintf(conf, sizeof conf,
             "providers = { oa = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"sk-rec-1234abcd\"; }; };\n",
             fake_server_url(srv));
    unsigned char *wav;
    seam_transcribe_request tr = wav_of(500, &wav);
    seam_call_options o = tu_call_opts("oa", "whisper-1");
    seam_error err;
    setenv("SEAM_RECORD", dir, 1);
    seam_client *c = tu_client(conf, &err);
    unsetenv("SEAM_RECORD");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    seam_transcription_free(transcribed(c, &tr, &o));
    tu_client_free(c);
    fake_server_stop(srv); /* nothing listens from here on */
    setenv("SEAM_REPLAY", dir, 1);
    c = tu_client(conf, &err);
    unsetenv("SEAM_REPLAY");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    seam_transcription *t = transcribed(c, &tr, &o);
    TU_STR_EQ(seam_transcription_text(t), "recorded words");
    seam_transcription_free(t);
    wav[tr.audio_len - 1] ^= 1; /* other audio: no cassette */
    err = refused(c, &tr, &o, SEAM_ERR_PROVIDER);
    TU_STR_EQ(err.code, "cassette_miss");
    tu_client_free(c);
    free(wav);
    free(dir);
}

static const tu_test tests[] = {
    {"openai: the upload, usage in tokens, a skipped entry", test_openai_tokens},
    {"openai: whisper's seconds, audio from the store", test_openai_duration_handle},
    {"openai: a malformed answer, an auth error", test_openai_errors},
    {"gemini: generateContent with the audio inline", test_gemini},
    {"mock: offline through the form body", test_mock},
    {"form: a boundary found in the audio is not used", test_boundary_in_audio},
    {"refusals before anything is sent", test_refusals},
    {"record and replay of an upload", test_cassette_replay},
    {NULL, NULL},
};

int main(void)
{
    return tu_run_suite("transcribe", tests, NULL);
}
