/* test_mediagen.c — media generation on separate endpoints
 * (seam_generate_media) and asynchronous jobs: the mock plugin offline, and
 * the openai codec against the fake provider server, each request as the
 * provider documents it and each answer stored in the media store.
 *
 * Wire formats checked against the official SDK, openai/openai-node at
 * commit 7b7d6ca:
 *  - src/resources/images.ts: images.generate is POST /images/generations
 *    with ImageGenerateParamsBase {prompt, model, n, size, output_format,
 *    response_format}; ImagesResponse {created, data: [{b64_json}],
 *    output_format, usage: {input_tokens, output_tokens, ...}}.
 *  - src/resources/audio/speech.ts: audio.speech.create is POST /audio/speech
 *    with SpeechCreateParams {model, input, voice, response_format: mp3 |
 *    opus | aac | flac | wav | pcm}, answered with the audio's bytes.
 *  - src/resources/videos.ts: videos.create is POST /videos as
 *    multipart/form-data (VideoCreateParams {prompt, model, seconds, size}),
 *    answered by a Video {id, object: "video", status: queued | in_progress |
 *    completed | failed, progress, seconds, error: {code, message}};
 *    videos.retrieve is GET /videos/{id}; downloadContent is
 *    GET /videos/{id}/content (Accept: application/binary), the MP4 bytes.
 * and, for Gemini, the official SDK googleapis/js-genai at commit 6e9b35c:
 *  - src/models.ts: generateImages is POST {model}:predict, generateVideos
 *    POST {model}:predictLongRunning; src/operations.ts: an operation is
 *    polled with GET {operationName}.
 *  - src/converters/_models_converters.ts: generateImagesParametersToMldev
 *    ({instances:[{prompt}], parameters:{sampleCount, aspectRatio}}),
 *    generatedImageFromMldev (predictions[].bytesBase64Encoded, mimeType,
 *    raiFilteredReason), generateVideosParametersToMldev (parameters
 *    durationSeconds, aspectRatio), generateVideosOperationFromMldev
 *    (name, done, error, response.generateVideoResponse),
 *    generateVideosResponseFromMldev (generatedSamples,
 *    raiMediaFilteredCount, raiMediaFilteredReasons) and videoFromMldev
 *    (video.uri, encodedVideo, encoding).
 *  - native image output: generateContent with
 *    generationConfig.responseModalities ["IMAGE"], the image in a
 *    candidate part's inlineData {mimeType, data}; speech (the Gemini API
 *    docs, ai.google.dev/gemini-api/docs/speech-generation):
 *    responseModalities ["AUDIO"], speechConfig.voiceConfig.
 *    prebuiltVoiceConfig.voiceName, the answer's inlineData
 *    "audio/L16;codec=pcm;rate=24000", 16-bit little-endian mono PCM.
 */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include <seam/seam.h>

#define OAI_KEY "sk-oai-media-test-3c4d5e6f"
#define GEM_KEY "gm-media-test-7a8b9c0d"

/* A 1x1 PNG, and its bytes' sha256 as a handle. */
#define PNG_B64                                                                                \
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5E" \
    "rkJggg=="

static fake_server *srv;
static seam_client *client;

/* The client's clock: sleeps are recorded and take no time. */
static int64_t fake_now;
static int64_t sleeps[64];
static size_t n_sleeps;

static int64_t clock_now(void *ud)
{
    (void)ud;
    return fake_now;
}

static int clock_sleep(void *ud, int64_t ms, seam_cancel *cancel)
{
    (void)ud;
    if (n_sleeps < 64)
        sleeps[n_sleeps++] = ms;
    fake_now += ms;
    return cancel && seam_cancel_triggered(cancel);
}

static const char conf_text[] =
    "media = { store = \"@TMP@/store\"; job_poll_ms = 100; job_poll_max_ms = 400; };\n"
    "providers = {\n"
    "  mk = { plugin = \"mock\"; };\n"
    "  oa = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"" OAI_KEY "\"; };\n"
    "  gm = { plugin = \"gemini\"; base_url = \"@URL@/v1beta\"; api_key = \"" GEM_KEY "\"; };\n"
    "};\n"
    "chains = { media = ( { provider = \"mk\"; model = \"mock-image\"; } ); };\n";

static int start(void)
{
    srv = tu_server_start();
    client = srv ? tu_client_at_end(tu_client_on(srv, conf_text)) : NULL;
    if (!client)
        return -1;
    seam_client_set_clock(client, clock_now, clock_sleep, NULL);
    return 0;
}

/* The stored bytes of a handle, checked to be the handle's. */
static char *stored(const char *handle, size_t *len)
{
    char *path = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_media_path(client, handle, &path, &err), SEAM_OK);
    char *bytes = tu_read_file(path, len);
    free(path);
    CU_ASSERT_FATAL(bytes != NULL);
    char again[SEAM_MEDIA_HANDLE_SIZE];
    CU_ASSERT_EQUAL(seam_media_put(client, bytes, *len, again, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(again, handle);
    return bytes;
}

static const seam_part *media_part(const seam_result *res, size_t i)
{
    const seam_message *m = seam_result_message(res);
    size_t seen = 0;
    for (size_t k = 0; m && k < seam_message_part_count(m); k++) {
        const seam_part *p = seam_message_part(m, k);
        if (seam_part_get_type(p) == SEAM_PART_MEDIA && seen++ == i)
            return p;
    }
    return NULL;
}

/* seam_generate_media(mr) on provider's model, waited for: its status. */
static int generate_media_on(const seam_media_request *mr, const char *provider, const char *model,
                             seam_result **res, seam_error *err)
{
    seam_call_options o = tu_call_opts(provider, model);
    return seam_generate_media(client, mr, &o, res, NULL, err);
}

/* generate_media_on, which must succeed: the result. */
static seam_result *generated(const seam_media_request *mr, const char *provider, const char *model)
{
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(tu_said(generate_media_on(mr, provider, model, &res, &err), &err,
                                  "seam_generate_media"),
                          SEAM_OK);
    return res;
}

/* generate_media_on, which the provider must refuse (no result): the error. */
static seam_error media_refused(const seam_media_request *mr, const char *provider,
                                const char *model)
{
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(generate_media_on(mr, provider, model, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NULL(res);
    seam_result_free(res);
    return err;
}

/* seam_generate_media(mr) on provider's model, which must answer with a job
 * and no result yet: the job. */
static seam_media_job *job_on(const seam_media_request *mr, const char *provider, const char *model)
{
    seam_call_options o = tu_call_opts(provider, model);
    seam_result *res = NULL;
    seam_media_job *job = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(tu_said(seam_generate_media(client, mr, &o, &res, &job, &err), &err,
                                  "seam_generate_media"),
                          SEAM_OK);
    CU_ASSERT_PTR_NULL(res);
    CU_ASSERT_FATAL(job != NULL);
    return job;
}

/* Polls job on c until it is no longer pending, at most max times, each poll
 * succeeding: how many polls it took; *res the result once done, and
 * *progress (unless NULL) the last progress seen while it was pending. */
static int poll_to_end(seam_client *c, seam_media_job *job, int max, seam_result **res,
                       double *progress)
{
    int polls = 0;
    seam_error err;
    while (seam_media_job_status(job) == SEAM_MEDIA_JOB_PENDING && polls < max) {
        CU_ASSERT_EQUAL(tu_said(seam_media_job_poll(c, job, NULL, res, &err), &err, "poll"), SEAM_OK);
        if (progress && seam_media_job_status(job) == SEAM_MEDIA_JOB_PENDING)
            *progress = seam_media_job_progress(job);
        polls++;
    }
    return polls;
}

/* res's first media part, which must be there, of type mime. */
static const seam_part *first_media(const seam_result *res, const char *mime)
{
    const seam_part *p = media_part(res, 0);
    CU_ASSERT_FATAL(p != NULL);
    CU_ASSERT_STRING_EQUAL(seam_part_mime_type(p), mime);
    return p;
}

/* How many bytes the store holds for part p (stored: checked to be its handle's). */
static size_t stored_length(const seam_part *p)
{
    size_t len = 0;
    free(stored(seam_part_media_data(p), &len));
    return len;
}

/* ---- the mock -------------------------------------------------------------------------- */

static void test_mock_image(void)
{
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_IMAGE, "a cat");
    CU_ASSERT_EQUAL(seam_media_request_set_count(mr, 2), SEAM_OK);
    seam_result *res = NULL;
    seam_error err;
    /* NULL options: the chain "media". */
    CU_ASSERT_EQUAL_FATAL(seam_generate_media(client, mr, NULL, &res, NULL, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_result_provider(res), "mk");
    const seam_part *p = first_media(res, "image/png");
    CU_ASSERT_FATAL(media_part(res, 1) != NULL);
    CU_ASSERT_EQUAL(seam_part_media_source(p), SEAM_MEDIA_HANDLE);
    size_t len = 0;
    char *bytes = stored(seam_part_media_data(p), &len);
    CU_ASSERT(len > 8 && memcmp(bytes, "\x89PNG", 4) == 0);
    free(bytes);
    tu_media_units_are(res, SEAM_MODALITY_IMAGE, 2, "count");
    seam_result_free(res);
    seam_media_request_free(mr);
}

static void test_mock_speech(void)
{
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_AUDIO, "hello");
    seam_result *res = generated(mr, "mk", "mock-tts");
    CU_ASSERT_EQUAL(stored_length(first_media(res, "audio/wav")), 52);
    /* 8 samples at 8 kHz, from the WAV's header. */
    tu_media_units_are(res, SEAM_MODALITY_AUDIO, 0.001, "second");
    seam_result_free(res);
    seam_media_request_free(mr);
}

static void test_request_checks(void)
{
    CU_ASSERT_PTR_NULL(seam_media_request_new(SEAM_MODALITY_TEXT, "x"));
    CU_ASSERT_PTR_NULL(seam_media_request_new(SEAM_MODALITY_IMAGE, ""));
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_IMAGE, "x");
    CU_ASSERT_EQUAL(seam_media_request_set_mime_type(mr, "audio/wav"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_media_request_set_mime_type(mr, "image/png; q=1"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_media_request_set_mime_type(mr, "image/webp"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_media_request_set_count(mr, 17), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_media_request_set_provider_options(mr, "[1]"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_media_request_set_provider_options(mr, "{\"quality\":\"low\"}"), SEAM_OK);
    /* A plugin without media generation is skipped, and says why. */
    seam_media_request_free(mr);
}

/* The mock's job: done after N polls. */
static seam_media_job *start_job(const char *options)
{
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_VIDEO, "a cat surfing");
    if (options)
        CU_ASSERT_EQUAL(seam_media_request_set_provider_options(mr, options), SEAM_OK);
    seam_media_job *job = job_on(mr, "mk", "mock-video");
    seam_media_request_free(mr);
    return job;
}

static void test_mock_job_polls(void)
{
    seam_error err;
    seam_media_job *job = start_job("{\"job_polls\":3}");
    const char *id = seam_media_job_id(job);
    CU_ASSERT(strncmp(id, "job-", 4) == 0 && strlen(id) == 36);
    CU_ASSERT_EQUAL(seam_media_job_status(job), SEAM_MEDIA_JOB_PENDING);
    CU_ASSERT_STRING_EQUAL(seam_media_job_provider(job), "mk");
    CU_ASSERT_STRING_EQUAL(seam_media_job_model(job), "mock-video");
    seam_result *res = NULL;
    double progress[3];
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(seam_media_job_poll(client, job, NULL, &res, &err), SEAM_OK);
        CU_ASSERT_PTR_NULL(res);
        CU_ASSERT_EQUAL(seam_media_job_status(job), SEAM_MEDIA_JOB_PENDING);
        progress[i] = seam_media_job_progress(job);
    }
    CU_ASSERT_DOUBLE_EQUAL(progress[0], 1.0 / 3, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(progress[1], 2.0 / 3, 1e-3);
    /* The back-off: 100, then half as much again each poll, up to 400. */
    CU_ASSERT_EQUAL(seam_media_job_next_poll_ms(job), 150);
    CU_ASSERT_EQUAL(seam_media_job_poll(client, job, NULL, &res, &err), SEAM_OK);
    CU_ASSERT_EQUAL(seam_media_job_status(job), SEAM_MEDIA_JOB_DONE);
    CU_ASSERT_FATAL(res != NULL);
    const seam_part *p = first_media(res, "video/mp4");
    CU_ASSERT(stored_length(p) > 0);
    tu_media_units_are(res, SEAM_MODALITY_VIDEO, 4, "second");
    /* A done job's checkpoint names its handle, and resumes to the same result. */
    char *cp = seam_media_job_checkpoint(job);
    CU_ASSERT(cp && strstr(cp, seam_part_media_data(p)) && strstr(cp, "\"done\""));
    seam_media_job *again = NULL;
    CU_ASSERT_EQUAL(seam_media_job_resume(client, cp, &again, &err), SEAM_OK);
    seam_result *res2 = NULL;
    CU_ASSERT_EQUAL(seam_media_job_poll(client, again, NULL, &res2, &err), SEAM_OK);
    CU_ASSERT(res2 && media_part(res2, 0) &&
              strcmp(seam_part_media_data(media_part(res2, 0)), seam_part_media_data(p)) == 0);
    seam_result_free(res2);
    seam_media_job_free(again);
    free(cp);
    seam_result_free(res);
    seam_media_job_free(job);
}

static void test_mock_job_wait_backs_off(void)
{
    seam_error err;
    seam_media_job *job = start_job("{\"job_polls\":6}");
    n_sleeps = 0;
    seam_result *res = NULL;
    CU_ASSERT_EQUAL(seam_media_job_wait(client, job, NULL, NULL, NULL, &res, &err), SEAM_OK);
    CU_ASSERT(res != NULL);
    /* Five waits between six polls: 100, 150, 225, 337, 400 (the ceiling). */
    CU_ASSERT_EQUAL_FATAL(n_sleeps, 5);
    int64_t want[] = {100, 150, 225, 337, 400};
    for (size_t i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(sleeps[i], want[i]);
    seam_result_free(res);
    seam_media_job_free(job);
}

static void test_mock_blocking_waits(void)
{
    /* Without a job pointer the call waits for the job itself. */
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_VIDEO, "waves");
    seam_result *res = generated(mr, "mk", "mock-video");
    first_media(res, "video/mp4");
    seam_result_free(res);
    seam_media_request_free(mr);
}

static void test_mock_job_resume(void)
{
    seam_error err;
    seam_media_job *job = start_job("{\"job_polls\":4}");
    CU_ASSERT_EQUAL(seam_media_job_poll(client, job, NULL, NULL, &err), SEAM_OK);
    char *cp = seam_media_job_checkpoint(job);
    CU_ASSERT_FATAL(cp != NULL);
    /* seam's own id, never the plugin's ref as the id. */
    char id[40];
    snprintf(id, sizeof id, "%s", seam_media_job_id(job));
    seam_media_job_free(job);
    /* Another client (another process, as far as the job knows). */
    seam_client *c2 = tu_client_on(srv, conf_text);
    CU_ASSERT_FATAL(c2 != NULL);
    seam_client_set_clock(c2, clock_now, clock_sleep, NULL);
    seam_media_job *back = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_media_job_resume(c2, cp, &back, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_media_job_id(back), id);
    CU_ASSERT_DOUBLE_EQUAL(seam_media_job_progress(back), 0.25, 1e-3);
    seam_result *res = NULL;
    CU_ASSERT_EQUAL(poll_to_end(c2, back, 10, &res, NULL), 3); /* where it was: 1 of 4 polls made */
    CU_ASSERT(res != NULL);
    seam_result_free(res);
    seam_media_job_free(back);
    tu_client_free(c2);
    free(cp);
    /* Not a checkpoint. */
    CU_ASSERT_EQUAL(seam_media_job_resume(client, "{\"id\":\"x\"}", &back, &err), SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NULL(back);
    CU_ASSERT_EQUAL(seam_media_job_resume(client, "not json", &back, &err), SEAM_ERR_INVALID);
}

/* Waiting for job (with cancel, may be NULL) ends in a provider error of
 * kind, with no result. */
static void wait_fails(seam_media_job *job, seam_cancel *cancel, seam_error_kind kind)
{
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_media_job_wait(client, job, cancel, NULL, NULL, &res, &err),
                    SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, kind);
    CU_ASSERT_PTR_NULL(res);
    seam_result_free(res);
}

static void test_mock_job_cancel(void)
{
    seam_media_job *job = start_job(NULL);
    /* A cancel token triggered: the wait ends, the job stays resumable. */
    seam_cancel *cancel = seam_cancel_new();
    seam_cancel_trigger(cancel);
    wait_fails(job, cancel, SEAM_ERROR_CANCELLED);
    CU_ASSERT_EQUAL(seam_media_job_status(job), SEAM_MEDIA_JOB_PENDING);
    seam_cancel_free(cancel);
    /* Cancelling the job: failed, and the checkpoint says so. */
    CU_ASSERT_EQUAL(seam_media_job_cancel(job), SEAM_OK);
    CU_ASSERT_EQUAL(seam_media_job_status(job), SEAM_MEDIA_JOB_FAILED);
    CU_ASSERT_EQUAL(seam_media_job_error(job)->kind, SEAM_ERROR_CANCELLED);
    size_t before = fake_server_request_count(srv);
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_media_job_poll(client, job, NULL, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CANCELLED);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before);
    char *cp = seam_media_job_checkpoint(job);
    seam_media_job *back = NULL;
    CU_ASSERT_EQUAL(seam_media_job_resume(client, cp, &back, &err), SEAM_OK);
    CU_ASSERT_EQUAL(seam_media_job_status(back), SEAM_MEDIA_JOB_FAILED);
    CU_ASSERT_EQUAL(seam_media_job_error(back)->kind, SEAM_ERROR_CANCELLED);
    seam_media_job_free(back);
    free(cp);
    seam_media_job_free(job);
}

static void test_mock_job_fails(void)
{
    seam_media_job *job = start_job("{\"job_polls\":1,\"job_fail\":true}");
    wait_fails(job, NULL, SEAM_ERROR_CONTENT_FILTER);
    CU_ASSERT_EQUAL(seam_media_job_status(job), SEAM_MEDIA_JOB_FAILED);
    seam_media_job_free(job);
}

static void test_mock_job_deadline(void)
{
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_VIDEO, "slow");
    CU_ASSERT_EQUAL(seam_media_request_set_deadline_ms(mr, 50), SEAM_OK);
    seam_media_job *job = job_on(mr, "mk", "mock-video");
    seam_result *res = NULL;
    seam_error err;
    usleep(80 * 1000); /* the deadline is wall-clock time: it holds across restarts */
    CU_ASSERT_EQUAL(seam_media_job_poll(client, job, NULL, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_TIMEOUT);
    CU_ASSERT(err.retryable);
    CU_ASSERT_EQUAL(seam_media_job_status(job), SEAM_MEDIA_JOB_FAILED);
    seam_media_job_free(job);
    seam_media_request_free(mr);
}

/* ---- the openai codec against the fake server ---------------------------------------- */

static void test_openai_images(void)
{
    fake_server_push_json(srv, 200,
                          "{\"created\":1713833628,\"data\":[{\"b64_json\":\"" PNG_B64 "\"}],"
                          "\"output_format\":\"png\",\"usage\":{\"input_tokens\":12,"
                          "\"output_tokens\":272,\"total_tokens\":284}}",
                          NULL);
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_IMAGE, "a cat");
    seam_media_request_set_size(mr, "1024x1024");
    seam_media_request_set_mime_type(mr, "image/png");
    seam_result *res = generated(mr, "oa", "gpt-image-1");
    CU_ASSERT_STRING_EQUAL(tu_last_path(srv), "/v1/images/generations");
    CU_ASSERT_STRING_EQUAL(tu_last_header(srv, "Authorization"), "Bearer " OAI_KEY);
    CU_ASSERT(tu_last_body_is(srv, "{\"model\":\"gpt-image-1\",\"prompt\":\"a cat\","
                                   "\"size\":\"1024x1024\",\"output_format\":\"png\"}"));
    CU_ASSERT_EQUAL(stored_length(first_media(res, "image/png")), 70);
    const seam_usage *u = seam_result_usage(res);
    CU_ASSERT_EQUAL(u->input_tokens, 12);
    CU_ASSERT_EQUAL(u->output_tokens, 272);
    tu_media_units_are(res, SEAM_MODALITY_IMAGE, 1, "count");
    seam_result_free(res);
    /* dall-e answers a URL unless told b64_json. */
    fake_server_push_json(srv, 200, "{\"created\":1,\"data\":[{\"b64_json\":\"" PNG_B64 "\"}]}",
                          NULL);
    seam_media_request_set_size(mr, NULL);
    seam_media_request_set_count(mr, 1);
    res = generated(mr, "oa", "dall-e-3");
    CU_ASSERT(tu_last_body_is(srv, "{\"model\":\"dall-e-3\",\"prompt\":\"a cat\",\"n\":1,"
                                   "\"response_format\":\"b64_json\"}"));
    seam_result_free(res);
    /* A URL instead of bytes is not media seam can store. */
    fake_server_push_json(srv, 200, "{\"created\":1,\"data\":[{\"url\":\"https://x/y.png\"}]}",
                          NULL);
    seam_error err = media_refused(mr, "oa", "dall-e-3");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "b64_json"));
    /* A refusal (400 moderation_blocked) is a content_filter error. */
    fake_server_push_json(srv, 400,
                          "{\"error\":{\"message\":\"Your request was rejected by the safety "
                          "system.\",\"type\":\"image_generation_user_error\",\"code\":"
                          "\"moderation_blocked\"}}",
                          NULL);
    err = media_refused(mr, "oa", "dall-e-3");
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CONTENT_FILTER);
    CU_ASSERT_PTR_NULL(strstr(err.message, OAI_KEY));
    seam_media_request_free(mr);
}

/* A WAV of 16000 bytes per second holding 8000 bytes: half a second. */
static size_t make_wav(unsigned char *b)
{
    static const unsigned char head[] = {
        'R', 'I', 'F', 'F', 0x64, 0x1f, 0, 0, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ', 16, 0, 0,
        0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0, 'd', 'a', 't', 'a',
        0x40, 0x1f, 0, 0};
    memcpy(b, head, sizeof head);
    for (size_t i = 0; i < 8000; i++)
        b[sizeof head + i] = (unsigned char)(i * 7);
    return sizeof head + 8000;
}

static void test_openai_speech(void)
{
    static unsigned char wav[8100];
    size_t n = make_wav(wav);
    fake_response r = {.status = 200, .content_type = "audio/wav", .body = (const char *)wav,
                       .body_len = n};
    fake_server_push(srv, &r);
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_AUDIO, "Hello there.");
    seam_media_request_set_voice(mr, "coral");
    seam_media_request_set_mime_type(mr, "audio/wav");
    seam_result *res = generated(mr, "oa", "gpt-4o-mini-tts");
    CU_ASSERT_STRING_EQUAL(tu_last_path(srv), "/v1/audio/speech");
    CU_ASSERT(tu_last_body_is(srv, "{\"model\":\"gpt-4o-mini-tts\",\"input\":\"Hello there.\","
                                   "\"voice\":\"coral\",\"response_format\":\"wav\"}"));
    const seam_part *p = first_media(res, "audio/wav");
    size_t len = 0;
    char *bytes = stored(seam_part_media_data(p), &len);
    CU_ASSERT(len == n && memcmp(bytes, wav, n) == 0);
    free(bytes);
    tu_media_units_are(res, SEAM_MODALITY_AUDIO, 0.5, "second");
    seam_result_free(res);
    /* The default: mp3, voice alloy. */
    fake_server_push(srv, &r);
    seam_media_request_set_voice(mr, NULL);
    seam_media_request_set_mime_type(mr, NULL);
    res = generated(mr, "oa", "gpt-4o-mini-tts");
    CU_ASSERT(tu_last_body_is(srv, "{\"model\":\"gpt-4o-mini-tts\",\"input\":\"Hello there.\","
                                   "\"voice\":\"alloy\",\"response_format\":\"mp3\"}"));
    CU_ASSERT_STRING_EQUAL(seam_part_mime_type(media_part(res, 0)), "audio/mpeg");
    seam_result_free(res);
    seam_media_request_free(mr);
}

/* ---- videos: a job, polled, then its content --------------------------------------- */

/* The content download of a finished video: mp4[0..len). */
static void push_mp4(const char *mp4, size_t len)
{
    fake_response content = {.status = 200, .content_type = "video/mp4", .body = mp4,
                             .body_len = len};
    fake_server_push(srv, &content);
}

static seam_media_request *video_request(const char *prompt, int seconds, const char *size)
{
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_VIDEO, prompt);
    seam_media_request_set_seconds(mr, seconds);
    seam_media_request_set_size(mr, size);
    return mr;
}

/* job_on(mr, provider, model); *first is the index of the job's first
 * request to the server. */
static seam_media_job *start_media_job(const seam_media_request *mr, const char *provider,
                                       const char *model, size_t *first)
{
    *first = fake_server_request_count(srv);
    return job_on(mr, provider, model);
}


/* res's first media part is stored as exactly mp4[0..n), seconds long. */
static void video_is(const seam_result *res, const char *mp4, size_t n, double seconds)
{
    size_t len = 0;
    char *bytes = stored(seam_part_media_data(media_part(res, 0)), &len);
    CU_ASSERT(len == n && memcmp(bytes, mp4, len) == 0);
    free(bytes);
    tu_media_units_are(res, SEAM_MODALITY_VIDEO, seconds, "second");
}

static const char video_queued[] =
    "{\"id\":\"video_68d7512d\",\"object\":\"video\",\"created_at\":1758941485,"
    "\"status\":\"queued\",\"model\":\"sora-2\",\"progress\":0,\"seconds\":\"8\","
    "\"size\":\"1280x720\"}";

static void push_video(const char *status, int progress)
{
    char body[512];
    snprintf(body, sizeof body,
             "{\"id\":\"video_68d7512d\",\"object\":\"video\",\"created_at\":1758941485,"
             "\"status\":\"%s\",\"model\":\"sora-2\",\"progress\":%d,\"seconds\":\"8\","
             "\"size\":\"1280x720\"}",
             status, progress);
    fake_server_push_json(srv, 200, body, NULL);
}

static void test_openai_video(void)
{
    static const char mp4[] = "\0\0\0\x18" "ftypmp42\0\0\0\0mp42isom-and-more-bytes";
    fake_server_push_json(srv, 200, video_queued, NULL);
    push_video("in_progress", 30);
    /* A poll the server cannot answer: the job stays pending and backs off. */
    fake_server_push_json(srv, 503, "{\"error\":{\"message\":\"busy\",\"type\":\"server_error\"}}",
                          NULL);
    push_video("in_progress", 70);
    push_video("completed", 100);
    push_mp4(mp4, sizeof mp4 - 1);

    seam_media_request *mr = video_request("a calico cat", 8, "1280x720");
    size_t first;
    seam_media_job *job = start_media_job(mr, "oa", "sora-2", &first);
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, first), "/v1/videos");
    CU_ASSERT_STRING_EQUAL(fake_server_request_method(srv, first), "POST");
    const char *ctype = fake_server_request_header(srv, first, "Content-Type");
    CU_ASSERT(ctype && strncmp(ctype, "multipart/form-data; boundary=", 30) == 0);
    const char *body = fake_server_request_body(srv, first);
    CU_ASSERT(body && strstr(body, "name=\"prompt\"\r\n\r\na calico cat\r\n") &&
              strstr(body, "name=\"model\"\r\n\r\nsora-2\r\n") &&
              strstr(body, "name=\"seconds\"\r\n\r\n8\r\n") &&
              strstr(body, "name=\"size\"\r\n\r\n1280x720\r\n"));
    /* seam's id, not the vendor's. */
    CU_ASSERT_PTR_NULL(strstr(seam_media_job_id(job), "video_"));
    seam_result *res = NULL;
    double last_progress = -1;
    /* 30, the 503, 70, completed + content */
    CU_ASSERT_EQUAL(poll_to_end(client, job, 10, &res, &last_progress), 4);
    CU_ASSERT_DOUBLE_EQUAL(last_progress, 0.7, 1e-9);
    for (size_t i = first + 1; i < first + 5; i++) {
        CU_ASSERT_STRING_EQUAL(fake_server_request_method(srv, i), "GET");
        CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, i), "/v1/videos/video_68d7512d");
    }
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, first + 5),
                           "/v1/videos/video_68d7512d/content");
    CU_ASSERT_STRING_EQUAL(fake_server_request_header(srv, first + 5, "Authorization"),
                           "Bearer " OAI_KEY);
    CU_ASSERT_FATAL(res != NULL);
    first_media(res, "video/mp4");
    video_is(res, mp4, sizeof mp4 - 1, 8);
    /* The checkpoint holds no credential and no bytes. */
    char *cp = seam_media_job_checkpoint(job);
    CU_ASSERT(cp && !strstr(cp, OAI_KEY) && !strstr(cp, "ftyp"));
    free(cp);
    seam_result_free(res);
    seam_media_job_free(job);
    seam_media_request_free(mr);
}

static void *cancel_later(void *arg)
{
    usleep(150 * 1000);
    seam_cancel_trigger(arg);
    return NULL;
}

static void test_cancel_in_flight(void)
{
    /* A poll the server holds for 5 s is aborted by the cancel token at once;
     * the job stays pending (resumable). */
    fake_server_push_json(srv, 200, video_queued, NULL);
    fake_response slow = {.status = 200, .content_type = "application/json",
                          .body = video_queued, .delay_ms = 5000};
    fake_server_push(srv, &slow);
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_VIDEO, "slow");
    seam_media_job *job = job_on(mr, "oa", "sora-2");
    seam_result *res = NULL;
    seam_error err;
    seam_cancel *cancel = seam_cancel_new();
    pthread_t t;
    CU_ASSERT_FATAL(pthread_create(&t, NULL, cancel_later, cancel) == 0);
    int64_t t0 = tu_now_ms();
    CU_ASSERT_EQUAL(seam_media_job_poll(client, job, cancel, &res, &err), SEAM_ERR_PROVIDER);
    int64_t took = tu_now_ms() - t0;
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CANCELLED);
    CU_ASSERT(took < 2000);
    CU_ASSERT_EQUAL(seam_media_job_status(job), SEAM_MEDIA_JOB_PENDING);
    seam_cancel_free(cancel);
    seam_media_job_free(job);
    seam_media_request_free(mr);
}

/* A video job the provider's filter refuses: its acceptance, then its end. */
static const struct filtered_job {
    const char *provider, *model, *accepted, *refused;
} filtered_jobs[] = {
    {"oa", "sora-2", video_queued,
     "{\"id\":\"video_68d7512d\",\"object\":\"video\",\"status\":\"failed\","
     "\"progress\":0,\"error\":{\"code\":\"moderation_blocked\",\"message\":"
     "\"The prompt was blocked.\"}}"},
    {"gm", "veo-3.0-generate-001", "{\"name\":\"models/veo-3.0-generate-001/operations/x1\"}",
     "{\"name\":\"models/veo-3.0-generate-001/operations/x1\",\"done\":true,"
     "\"response\":{\"generateVideoResponse\":{\"raiMediaFilteredCount\":1,"
     "\"raiMediaFilteredReasons\":[\"The video was blocked.\"]}}}"},
};

/* Waited for by the call itself (job NULL): a content_filter error that says
 * it was blocked. */
static void test_video_filtered(void)
{
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_VIDEO, "something");
    for (size_t i = 0; i < sizeof filtered_jobs / sizeof filtered_jobs[0]; i++) {
        const struct filtered_job *c = &filtered_jobs[i];
        fake_server_push_json(srv, 200, c->accepted, NULL);
        fake_server_push_json(srv, 200, c->refused, NULL);
        seam_error err = media_refused(mr, c->provider, c->model);
        if (err.kind != SEAM_ERROR_CONTENT_FILTER)
            fprintf(stderr, "\n  %s: %s\n", c->provider, err.message);
        CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CONTENT_FILTER);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "blocked"));
    }
    seam_media_request_free(mr);
}

/* A job that is gone (404) fails the job. */
static void test_openai_video_gone(void)
{
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_VIDEO, "something");
    fake_server_push_json(srv, 200, video_queued, NULL);
    fake_server_push_json(srv, 404,
                          "{\"error\":{\"message\":\"Video not found\",\"type\":"
                          "\"invalid_request_error\",\"code\":null}}",
                          NULL);
    seam_media_job *job = job_on(mr, "oa", "sora-2");
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_media_job_poll(client, job, NULL, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(seam_media_job_status(job), SEAM_MEDIA_JOB_FAILED);
    seam_media_job_free(job);
    seam_media_request_free(mr);
}

/* ---- the gemini codec -------------------------------------------------------------------- */

static void test_gemini_imagen(void)
{
    fake_server_push_json(srv, 200,
                          "{\"predictions\":[{\"bytesBase64Encoded\":\"" PNG_B64 "\","
                          "\"mimeType\":\"image/png\"}]}",
                          NULL);
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_IMAGE, "a cat");
    seam_media_request_set_count(mr, 1);
    seam_media_request_set_size(mr, "16:9");
    seam_result *res = generated(mr, "gm", "imagen-4.0-generate-001");
    CU_ASSERT_STRING_EQUAL(tu_last_path(srv), "/v1beta/models/imagen-4.0-generate-001:predict");
    CU_ASSERT_STRING_EQUAL(tu_last_header(srv, "x-goog-api-key"), GEM_KEY);
    CU_ASSERT(tu_last_body_is(srv, "{\"instances\":[{\"prompt\":\"a cat\"}],\"parameters\":"
                                   "{\"sampleCount\":1,\"aspectRatio\":\"16:9\"}}"));
    CU_ASSERT_EQUAL(stored_length(first_media(res, "image/png")), 70);
    tu_media_units_are(res, SEAM_MODALITY_IMAGE, 1, "count");
    seam_result_free(res);
    /* Every image filtered: a content_filter error naming the reason. */
    fake_server_push_json(srv, 200,
                          "{\"predictions\":[{\"raiFilteredReason\":\"The image was filtered "
                          "by the safety filter.\"}]}",
                          NULL);
    seam_error err = media_refused(mr, "gm", "imagen-4.0-generate-001");
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CONTENT_FILTER);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "safety filter"));
    seam_media_request_free(mr);
}

static void test_gemini_native_image(void)
{
    fake_server_push_json(srv, 200,
                          "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":["
                          "{\"text\":\"Here is a cat.\"},{\"inlineData\":{\"mimeType\":"
                          "\"image/png\",\"data\":\"" PNG_B64 "\"}}]},\"finishReason\":\"STOP\"}],"
                          "\"usageMetadata\":{\"promptTokenCount\":5,\"candidatesTokenCount\":"
                          "1290}}",
                          NULL);
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_IMAGE, "a cat");
    seam_result *res = generated(mr, "gm", "gemini-2.5-flash-image");
    CU_ASSERT_STRING_EQUAL(tu_last_path(srv),
                           "/v1beta/models/gemini-2.5-flash-image:generateContent");
    CU_ASSERT(tu_last_body_is(srv, "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":"
                                   "\"a cat\"}]}],\"generationConfig\":{\"responseModalities\":"
                                   "[\"IMAGE\"]}}"));
    first_media(res, "image/png");
    CU_ASSERT_PTR_NULL(media_part(res, 1));
    CU_ASSERT_EQUAL(seam_result_usage(res)->output_tokens, 1290);
    seam_result_free(res);
    /* No image, the prompt blocked: content_filter. */
    fake_server_push_json(srv, 200, "{\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}", NULL);
    CU_ASSERT_EQUAL(media_refused(mr, "gm", "gemini-2.5-flash-image").kind,
                    SEAM_ERROR_CONTENT_FILTER);
    seam_media_request_free(mr);
}

static void test_gemini_speech(void)
{
    /* Four samples of 16-bit PCM at 24 kHz, base64: stored as a WAV. */
    fake_server_push_json(srv, 200,
                          "{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{"
                          "\"mimeType\":\"audio/L16;codec=pcm;rate=24000\",\"data\":"
                          "\"AQACAAMABAA=\"}}]},\"finishReason\":\"STOP\"}]}",
                          NULL);
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_AUDIO, "Say hello.");
    seam_media_request_set_voice(mr, "Puck");
    seam_result *res = generated(mr, "gm", "gemini-2.5-flash-preview-tts");
    CU_ASSERT_STRING_EQUAL(tu_last_path(srv),
                           "/v1beta/models/gemini-2.5-flash-preview-tts:generateContent");
    CU_ASSERT(tu_last_body_is(srv, "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":"
                                   "\"Say hello.\"}]}],\"generationConfig\":{\"responseModalities\":"
                                   "[\"AUDIO\"],\"speechConfig\":{\"voiceConfig\":{"
                                   "\"prebuiltVoiceConfig\":{\"voiceName\":\"Puck\"}}}}}"));
    const seam_part *p = first_media(res, "audio/wav");
    size_t len = 0;
    unsigned char *b = (unsigned char *)stored(seam_part_media_data(p), &len);
    static const unsigned char pcm[] = {1, 0, 2, 0, 3, 0, 4, 0};
    CU_ASSERT(len == 52 && memcmp(b, "RIFF", 4) == 0 && memcmp(b + 44, pcm, 8) == 0);
    /* 24000 Hz, 48000 bytes a second. */
    CU_ASSERT(b[24] == 0xc0 && b[25] == 0x5d && b[28] == 0x80 && b[29] == 0xbb);
    free(b);
    tu_media_units_are(res, SEAM_MODALITY_AUDIO, 8.0 / 48000, "second");
    seam_result_free(res);
    seam_media_request_free(mr);
}

static void test_gemini_veo(void)
{
    static const char mp4[] = "\0\0\0\x18" "ftypmp42\0\0\0\0veo-bytes";
    const char *op = "models/veo-3.0-generate-001/operations/abc123";
    char body[1024];
    snprintf(body, sizeof body, "{\"name\":\"%s\"}", op);
    fake_server_push_json(srv, 200, body, NULL);
    snprintf(body, sizeof body, "{\"name\":\"%s\",\"done\":false}", op);
    fake_server_push_json(srv, 200, body, NULL);
    snprintf(body, sizeof body,
             "{\"name\":\"%s\",\"done\":true,\"response\":{\"@type\":\"type.googleapis.com/"
             "google.ai.generativelanguage.v1beta.PredictLongRunningResponse\","
             "\"generateVideoResponse\":{\"generatedSamples\":[{\"video\":{\"uri\":"
             "\"%s/v1beta/files/vid1:download?alt=media\"}}]}}}",
             op, fake_server_url(srv));
    fake_server_push_json(srv, 200, body, NULL);
    push_mp4(mp4, sizeof mp4 - 1);
    seam_media_request *mr = video_request("a cat surfing", 8, "16:9");
    size_t first;
    seam_media_job *job = start_media_job(mr, "gm", "veo-3.0-generate-001", &first);
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, first),
                           "/v1beta/models/veo-3.0-generate-001:predictLongRunning");
    CU_ASSERT(tu_last_body_is(srv, "{\"instances\":[{\"prompt\":\"a cat surfing\"}],"
                                   "\"parameters\":{\"aspectRatio\":\"16:9\","
                                   "\"durationSeconds\":8}}"));
    CU_ASSERT_PTR_NULL(strstr(seam_media_job_id(job), "abc123"));
    seam_result *res = NULL;
    CU_ASSERT_EQUAL(poll_to_end(client, job, 5, &res, NULL), 2);
    CU_ASSERT_STRING_EQUAL(fake_server_request_method(srv, first + 1), "GET");
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, first + 1), "/v1beta/models/veo-3.0-generate-001/operations/abc123");
    CU_ASSERT_STRING_EQUAL(fake_server_request_header(srv, first + 1, "x-goog-api-key"), GEM_KEY);
    CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, first + 3),
                           "/v1beta/files/vid1:download?alt=media");
    /* The uri is the API's own origin: the key goes with it (plain http too,
     * as the conf chose for the API). */
    CU_ASSERT_STRING_EQUAL(fake_server_request_header(srv, first + 3, "x-goog-api-key"), GEM_KEY);
    CU_ASSERT_FATAL(res != NULL);
    video_is(res, mp4, sizeof mp4 - 1, 8);
    seam_result_free(res);
    seam_media_job_free(job);

    /* A plain http uri elsewhere is refused. */
    snprintf(body, sizeof body, "{\"name\":\"%s\"}", op);
    fake_server_push_json(srv, 200, body, NULL);
    char other[256];
    snprintf(other, sizeof other, "http://localhost:%d", fake_server_port(srv));
    snprintf(body, sizeof body,
             "{\"name\":\"%s\",\"done\":true,\"response\":{\"generateVideoResponse\":"
             "{\"generatedSamples\":[{\"video\":{\"uri\":\"%s/files/vid2\"}}]}}}",
             op, other);
    fake_server_push_json(srv, 200, body, NULL);
    first = fake_server_request_count(srv);
    seam_error err = media_refused(mr, "gm", "veo-3.0-generate-001");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "https"));
    CU_ASSERT_EQUAL(fake_server_request_count(srv), first + 2);
    seam_media_request_free(mr);
}

/* Inline bytes (encodedVideo) are stored without a download. */
static void test_gemini_veo_inline(void)
{
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_VIDEO, "x");
    fake_server_push_json(srv, 200, "{\"name\":\"models/veo-3.0-generate-001/operations/x2\"}",
                          NULL);
    fake_server_push_json(srv, 200,
                          "{\"name\":\"models/veo-3.0-generate-001/operations/x2\",\"done\":true,"
                          "\"response\":{\"generateVideoResponse\":{\"generatedSamples\":[{"
                          "\"video\":{\"encodedVideo\":\"AAAAGGZ0eXBtcDQy\",\"encoding\":"
                          "\"video/mp4\"}}]}}}",
                          NULL);
    size_t before = fake_server_request_count(srv);
    seam_result *res = generated(mr, "gm", "veo-3.0-generate-001");
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 2);
    first_media(res, "video/mp4");
    seam_result_free(res);
    seam_media_request_free(mr);
}

static void test_chain_until_accepted(void)
{
    /* The chain fails over while no provider has the job (a 500 from oa),
     * and the job then stays with the provider that accepted it (mk). */
    seam_client *c = tu_client_on(
        srv, "media = { store = \"@TMP@/store\"; job_poll_ms = 1; };\n"
             "providers = {\n"
             "  oa = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"k\"; };\n"
             "  mk = { plugin = \"mock\"; options = { job_polls = 2; }; };\n"
             "};\n"
             "chains = { video = ( { provider = \"oa\"; model = \"sora-2\"; max_attempts = 1; },\n"
             "                     { provider = \"mk\"; model = \"mock-video\"; } ); };\n");
    CU_ASSERT_FATAL(c != NULL);
    fake_server_push_json(srv, 500, "{\"error\":{\"message\":\"down\",\"type\":\"server_error\"}}",
                          NULL);
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_VIDEO, "a cat");
    seam_call_options o = {.size = sizeof o, .chain = "video"};
    seam_result *res = NULL;
    seam_media_job *job = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_generate_media(c, mr, &o, &res, &job, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_media_job_provider(job), "mk");
    CU_ASSERT_STRING_EQUAL(seam_media_job_model(job), "mock-video");
    /* Resumed where "mk" is not configured: the poll fails, the job does not. */
    char *cp = seam_media_job_checkpoint(job);
    seam_media_job *other = NULL;
    CU_ASSERT_EQUAL(seam_media_job_resume(client, cp, &other, &err), SEAM_OK);
    free(cp);
    cp = NULL;
    seam_media_job_free(other);
    seam_client *c2 = tu_client_on(srv, "media = { store = \"@TMP@/store\"; };\n");
    CU_ASSERT_FATAL(c2 != NULL);
    cp = seam_media_job_checkpoint(job);
    CU_ASSERT_EQUAL(seam_media_job_resume(c2, cp, &other, &err), SEAM_OK);
    CU_ASSERT_EQUAL(seam_media_job_poll(c2, other, NULL, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CONF);
    CU_ASSERT_EQUAL(seam_media_job_status(other), SEAM_MEDIA_JOB_PENDING);
    seam_media_job_free(other);
    tu_client_free(c2);
    free(cp);
    CU_ASSERT_EQUAL(seam_media_job_wait(c, job, NULL, NULL, NULL, &res, &err), SEAM_OK);
    CU_ASSERT(res && strcmp(seam_result_provider(res), "mk") == 0);
    seam_result_free(res);
    seam_media_job_free(job);
    seam_media_request_free(mr);
    tu_client_free(c);
}

static void test_no_media_generation(void)
{
    /* A provider whose plugin has no media generation is skipped with the reason. */
    seam_client *c = tu_client_on(srv, "media = { store = \"@TMP@/store\"; };\n"
                                       "providers = { an = { plugin = \"anthropic\"; "
                                       "base_url = \"@URL@\"; api_key = \"k\"; }; };\n"
                                       "chains = { media = ( { provider = \"an\"; "
                                       "model = \"claude-x\"; } ); };\n");
    CU_ASSERT_FATAL(c != NULL);
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_IMAGE, "a cat");
    seam_result *res = NULL;
    seam_error err;
    size_t before = fake_server_request_count(srv);
    CU_ASSERT_NOT_EQUAL(seam_generate_media(c, mr, NULL, &res, NULL, &err), SEAM_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "has no media generation"));
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before);
    seam_media_request_free(mr);
    tu_client_free(c);
}

static void test_older_plugin(void)
{
    /* A plugin of ABI 1.0 still loads; media generation sees its short table
     * and never calls the members past it (which abort). */
    char *conf = NULL;
    if (asprintf(&conf,
                 "plugin_path = [ \"%s\", \"%s\" ];\n"
                 "media = { store = \"@TMP@/store\"; };\n"
                 "providers = { old = { plugin = \"testabi10\"; }; };\n"
                 "chains = { media = ( { provider = \"old\"; model = \"m\"; } ); };\n",
                 tu_plugin_dir(), tu_test_plugin_dir()) < 0)
        CU_FAIL_FATAL("out of memory");
    seam_client *c = tu_client_on(srv, conf);
    free(conf);
    CU_ASSERT_FATAL(c != NULL);
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_IMAGE, "a cat");
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_NOT_EQUAL(seam_generate_media(c, mr, NULL, &res, NULL, &err), SEAM_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "has no media generation"));
    /* ...and still answers a generation. */
    seam_call_options o = tu_call_opts("old", "m");
    seam_request *req = tu_user_request("hi");
    CU_ASSERT_EQUAL(seam_generate(c, req, &o, &res, &err), SEAM_OK);
    CU_ASSERT(res && strcmp(seam_result_text(res), "abi 1.0") == 0);
    seam_result_free(res);
    seam_request_free(req);
    seam_media_request_free(mr);
    tu_client_free(c);
}

static const tu_test tests[] = {
    {"mock: image, stored under its sha256", test_mock_image},
    {"mock: speech, seconds from the WAV", test_mock_speech},
    {"request: checks", test_request_checks},
    {"mock job: polls to done, checkpoint of a done job", test_mock_job_polls},
    {"mock job: wait backs off", test_mock_job_wait_backs_off},
    {"mock job: the blocking call waits", test_mock_blocking_waits},
    {"mock job: resume from a checkpoint in another client", test_mock_job_resume},
    {"mock job: cancel", test_mock_job_cancel},
    {"mock job: a refused job fails", test_mock_job_fails},
    {"mock job: deadline", test_mock_job_deadline},
    {"openai: images", test_openai_images},
    {"openai: speech", test_openai_speech},
    {"openai: video job, poll, back off, download", test_openai_video},
    {"openai: video gone", test_openai_video_gone},
    {"job: cancel aborts the poll in flight", test_cancel_in_flight},
    {"gemini: imagen", test_gemini_imagen},
    {"gemini: native image output", test_gemini_native_image},
    {"gemini: speech (PCM stored as a WAV)", test_gemini_speech},
    {"gemini: veo operation, poll, download", test_gemini_veo},
    {"gemini: veo inline bytes", test_gemini_veo_inline},
    {"video: refused by the filter (openai, gemini veo)", test_video_filtered},
    {"chain: fails over until a provider accepts the job, which stays there",
     test_chain_until_accepted},
    {"chain: a plugin without media generation is skipped", test_no_media_generation},
    {"abi: a plugin of ABI 1.0 loads, without media generation", test_older_plugin},
    {NULL, NULL},
};

int main(void)
{
    return tu_run_suite("mediagen", tests, start);
}
