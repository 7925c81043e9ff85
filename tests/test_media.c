/* test_media.c — media intake (issue 13): the one MIME check, base64 refused
 * when invalid, the inline ceiling per modality in decoded bytes, the count and
 * aggregate caps of a message, each configurable in the conf and each refusal
 * a bad_request naming the limit and the value; the media store (handles,
 * atomic 0600 files, de-inlining); capability skips. Calls go through the real
 * loader to the mock plugin. */
#include "config.h"

#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include <seam/seam.h>

/* A client with a mock provider "m" and a default chain over it, plus extra conf. */
static seam_client *media_client(const char *extra)
{
    seam_client *c = tu_clientf("providers = { m = { plugin = \"mock\"; }; };\n"
                                "chains = { default = ( { provider = \"m\"; model = \"mock-1\"; } ); };\n"
                                "%s\n", extra ? extra : "");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

/* base64 of n zero bytes (n a multiple of 3: no padding). */
static char *zeros_b64(size_t n)
{
    char *s = malloc(n / 3 * 4 + 1);
    memset(s, 'A', n / 3 * 4);
    s[n / 3 * 4] = '\0';
    return s;
}

/* Sends one user message with one media part; returns the status, err filled. */
/* seam_generate of r (freed) on c; its status. */
static int generate_and_free(seam_client *c, seam_request *r, seam_error *err)
{
    seam_result *res = NULL;
    seam_error_clear(err);
    int rc = seam_generate(c, r, NULL, &res, err);
    seam_result_free(res);
    seam_request_free(r);
    return rc;
}

static int send_media(seam_client *c, const char *mime, seam_media_source src, const char *data,
                      seam_error *err)
{
    seam_request *r = seam_request_new();
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    seam_message_add_text(m, "look");
    CU_ASSERT_EQUAL(seam_message_add_media(m, mime, src, data), SEAM_OK);
    seam_request_add_message(r, m);
    return generate_and_free(c, r, err);
}

static void expect_refused(seam_client *c, const char *mime, const char *data, const char *says,
                           const char *says2)
{
    seam_error err;
    int rc = send_media(c, mime, SEAM_MEDIA_BASE64, data, &err);
    CU_ASSERT_EQUAL(rc, SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    if (!strstr(err.message, says) || (says2 && !strstr(err.message, says2)))
        fprintf(stderr, "\n  message: %s\n  wanted: %s / %s\n", err.message, says,
                says2 ? says2 : "");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, says));
    if (says2)
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, says2));
}

static void test_mime_check(void)
{
    seam_client *c = media_client(NULL);
    seam_error err;
    CU_ASSERT_EQUAL(send_media(c, "image/png", SEAM_MEDIA_BASE64, "iVBORw0KGgo=", &err), SEAM_OK);
    expect_refused(c, "image/png; charset=binary", "iVBORw0KGgo=", "has parameters",
                   "image/png; charset=binary");
    expect_refused(c, "image", "iVBORw0KGgo=", "not a bare type/subtype", NULL);
    expect_refused(c, "image/", "iVBORw0KGgo=", "not a bare type/subtype", NULL);
    expect_refused(c, "image/pn g", "iVBORw0KGgo=", "not a bare type/subtype", NULL);
    expect_refused(c, "text/plain", "iVBORw0KGgo=", "no media modality", NULL);
    char longmime[400] = "image/";
    memset(longmime + 6, 'x', 300);
    longmime[306] = '\0';
    /* Over the limit, and the message quotes only a bounded prefix. */
    expect_refused(c, longmime, "iVBORw0KGgo=", "longer than the limit of 255", NULL);
    CU_ASSERT_EQUAL(send_media(c, longmime, SEAM_MEDIA_BASE64, "iVBORw0KGgo=", &err),
                    SEAM_ERR_INVALID);
    CU_ASSERT(strlen(err.message) < 200);
    tu_client_free(c);
}

static void test_base64_refused(void)
{
    seam_client *c = media_client(NULL);
    const char *bad[] = {"iVBORw0KGgo", "iVBOR w0KGgo=", "iVBORw0KGgo==", "iVB*Rw0KGgo=",
                         "data:image/png;base64,iVBORw0KGgo=", "iVBORw0KGgp=" /* stray bits */};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_refused(c, "image/png", bad[i], "not valid base64", NULL);
    tu_client_free(c);
}

static void test_inline_ceiling(void)
{
    seam_client *c = media_client(NULL);
    seam_error err;
    /* The reference's default: 256 KiB decoded for an image... */
    char *at = zeros_b64(262143); /* 262143 = 3 * 87381: at the limit, under it */
    CU_ASSERT_EQUAL(send_media(c, "image/png", SEAM_MEDIA_BASE64, at, &err), SEAM_OK);
    free(at);
    char *mb = zeros_b64(1048575); /* a 1 MB image, as in the issue */
    expect_refused(c, "image/png", mb, "inline image of 1048575 bytes",
                   "over the limit of 262144 decoded bytes (media.inline_image_bytes)");
    expect_refused(c, "audio/wav", mb, "inline audio of 1048575 bytes",
                   "limit of 262144 decoded bytes (media.inline_audio_bytes)");
    free(mb);
    /* ...and video and documents are never inline. */
    expect_refused(c, "video/mp4", "AAAA", "inline video of 3 bytes",
                   "limit of 0 decoded bytes (media.inline_video_bytes)");
    expect_refused(c, "application/pdf", "JVBERi0=", "inline document of 5 bytes",
                   "limit of 0 decoded bytes (media.inline_document_bytes)");
    tu_client_free(c);

    /* Each is the conf's to move. */
    c = media_client("media = { inline_image_bytes = 3; inline_document_bytes = 100; };");
    CU_ASSERT_EQUAL(send_media(c, "image/png", SEAM_MEDIA_BASE64, "AAAA", &err), SEAM_OK);
    expect_refused(c, "image/png", "AAAAAAAA", "inline image of 6 bytes", "limit of 3 decoded");
    CU_ASSERT_EQUAL(send_media(c, "application/pdf", SEAM_MEDIA_BASE64, "JVBERi0=", &err), SEAM_OK);
    tu_client_free(c);
}

static int send_parts(seam_client *c, int n, size_t each, seam_error *err)
{
    seam_request *r = seam_request_new();
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    seam_message_add_text(m, "look");
    char *data = zeros_b64(each);
    for (int i = 0; i < n; i++)
        seam_message_add_media(m, "image/png", SEAM_MEDIA_BASE64, data);
    free(data);
    seam_request_add_message(r, m);
    return generate_and_free(c, r, err);
}

static void test_message_caps(void)
{
    seam_client *c = media_client(NULL);
    seam_error err;
    CU_ASSERT_EQUAL(send_parts(c, 16, 3, &err), SEAM_OK);
    CU_ASSERT_EQUAL(send_parts(c, 17, 3, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "more than 16 media parts (media.max_parts)"));
    /* 5 images of 240000 bytes: each under the ceiling, together over 1 MiB. */
    CU_ASSERT_EQUAL(send_parts(c, 5, 240000, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "carries 1200000 bytes of inline media, over the "
                                               "limit of 1048576 (media.max_message_bytes)"));
    tu_client_free(c);
    c = media_client("media = { max_parts = 2; max_message_bytes = 8; };");
    CU_ASSERT_EQUAL(send_parts(c, 3, 3, &err), SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "more than 2 media parts"));
    CU_ASSERT_EQUAL(send_parts(c, 2, 3, &err), SEAM_OK);
    CU_ASSERT_EQUAL(send_parts(c, 2, 6, &err), SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "carries 12 bytes"));
    tu_client_free(c);
}

static void test_conf_ranges(void)
{
    seam_error err;
    seam_error_clear(&err);
    seam_client *c = tu_client("media = { max_parts = 1001; };", &err);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "media.max_parts must be at most 1000"));
    tu_client_free(c);
    seam_error_clear(&err);
    c = tu_client("media = { inline_image_bytes = -1; };", &err);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "media.inline_image_bytes must be >= 0"));
    tu_client_free(c);
    seam_error_clear(&err);
    c = tu_client("media = { inline_pictures = 1; };", &err);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "inline_pictures"));
    tu_client_free(c);
}

static void test_part_meta(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    seam_media_meta meta = {.size = sizeof meta, .name = "hello.wav", .transcript = "hello",
                            .byte_length = 44, .duration_ms = 1000};
    const char *h = "media://sha256-e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    CU_ASSERT_EQUAL(seam_message_add_media_meta(m, "audio/wav", SEAM_MEDIA_HANDLE, h, &meta), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_media_meta(m, "audio/wav", SEAM_MEDIA_HANDLE,
                                                "media://sha256-E3B0", NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_add_media_meta(m, "audio/wav", SEAM_MEDIA_HANDLE,
                                                "/etc/passwd", NULL), SEAM_ERR_INVALID);
    seam_message *d = seam_message_dup(m);
    const seam_part *p = seam_message_part(d, 0);
    CU_ASSERT_EQUAL(seam_part_media_source(p), SEAM_MEDIA_HANDLE);
    TU_STR_EQ(seam_part_media_data(p), h);
    TU_STR_EQ(seam_part_media_name(p), "hello.wav");
    TU_STR_EQ(seam_part_media_transcript(p), "hello");
    CU_ASSERT_EQUAL(seam_part_media_byte_length(p), 44);
    CU_ASSERT_EQUAL(seam_part_media_duration_ms(p), 1000);
    seam_message_add_media(d, "image/png", SEAM_MEDIA_URL, "https://example.org/a.png");
    CU_ASSERT_EQUAL(seam_part_media_byte_length(seam_message_part(d, 1)), -1);
    CU_ASSERT_PTR_NULL(seam_part_media_name(seam_message_part(d, 1)));
    seam_message_free(d);
    seam_message_free(m);
}

/* ---- the store ------------------------------------------------------------------ */

static char *store_dir; /* a private temp dir: the store of store_client() */

static seam_client *store_client(const char *extra)
{
    if (!store_dir) {
        char *d = tu_mkdtemp_private();
        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        store_dir = tu_path(d, "media/store");
        tu_rm_rf_at_end(d);
    }
    char conf[2048];
    snprintf(conf, sizeof conf, "media = { store = \"%s\"; %s };", store_dir, extra ? extra : "");
    return media_client(conf);
}

static void test_sha256_vectors(void)
{
    /* FIPS 180-2 appendix B: "abc", the two-block message, and the empty
     * string; and a length whose padding needs a second block (56 bytes). */
    seam_client *c = store_client(NULL);
    seam_error err;
    char h[SEAM_MEDIA_HANDLE_SIZE];
    CU_ASSERT_EQUAL(seam_media_put(c, "abc", 3, h, &err), SEAM_OK);
    TU_STR_EQ(h, "media://sha256-ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    CU_ASSERT_EQUAL(seam_media_put(c, two, strlen(two), h, &err), SEAM_OK);
    TU_STR_EQ(h, "media://sha256-248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CU_ASSERT_EQUAL(seam_media_put(c, "", 0, h, &err), SEAM_OK);
    TU_STR_EQ(h, "media://sha256-e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    char million[1000];
    memset(million, 'a', sizeof million);
    CU_ASSERT_EQUAL(seam_media_put(c, million, 1000, h, &err), SEAM_OK);
    /* sha256 of 1000 'a' (coreutils sha256sum). */
    TU_STR_EQ(h, "media://sha256-41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
    tu_client_free(c);
}

static void test_store_files(void)
{
    seam_client *c = store_client(NULL);
    seam_error err;
    char h[SEAM_MEDIA_HANDLE_SIZE], h2[SEAM_MEDIA_HANDLE_SIZE];
    const char bytes[] = "\x89PNG\r\n\x1a\n some image";
    CU_ASSERT_EQUAL(seam_media_put(c, bytes, sizeof bytes - 1, h, &err), SEAM_OK);
    CU_ASSERT_EQUAL(seam_media_put(c, bytes, sizeof bytes - 1, h2, &err), SEAM_OK);
    TU_STR_EQ(h, h2);
    char *path = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_media_path(c, h, &path, &err), SEAM_OK);
    /* Named by the content, under the conf's store, 0600 in a 0700 directory. */
    char *want = tu_path(store_dir, h + strlen("media://"));
    TU_STR_EQ(path, want);
    free(want);
    struct stat st;
    CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
    CU_ASSERT_EQUAL((size_t)st.st_size, sizeof bytes - 1);
    CU_ASSERT_EQUAL(stat(store_dir, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0700);
    size_t n = 0;
    char *got = tu_read_file(path, &n);
    CU_ASSERT_EQUAL(n, sizeof bytes - 1);
    CU_ASSERT(got && memcmp(got, bytes, n) == 0);
    free(got);
    free(path);
    int fd = -1;
    CU_ASSERT_EQUAL(seam_media_open(c, h, &fd, &err), SEAM_OK);
    char buf[8];
    CU_ASSERT_EQUAL(read(fd, buf, 4), 4);
    CU_ASSERT(memcmp(buf, "\x89PNG", 4) == 0);
    close(fd);
    /* Atomic: only whole files, no temporary left behind. */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls -A '%s'", store_dir);
    char *out = NULL;
    CU_ASSERT_EQUAL(tu_run(cmd, &out, NULL), 0);
    CU_ASSERT_PTR_NULL(out ? strstr(out, ".tmp-") : "x");
    free(out);
    /* Refusals. */
    CU_ASSERT_EQUAL(seam_media_path(c, "media://sha256-../../etc/passwd", &path, &err),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_EQUAL(seam_media_path(c, "media://sha256-0000000000000000000000000000000000000000000000000000000000000000",
                                    &path, &err), SEAM_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NULL(path);
    tu_client_free(c);
}

static void test_store_default_dir(void)
{
    /* No media.store: $XDG_DATA_HOME/seam/media. */
    char *d = tu_mkdtemp_private();
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    char *old = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
    setenv("XDG_DATA_HOME", d, 1);
    seam_client *c = media_client(NULL);
    seam_error err;
    char h[SEAM_MEDIA_HANDLE_SIZE];
    CU_ASSERT_EQUAL(seam_media_put(c, "abc", 3, h, &err), SEAM_OK);
    char *path = NULL;
    CU_ASSERT_EQUAL(seam_media_path(c, h, &path, &err), SEAM_OK);
    char *want = tu_path(d, "seam/media/sha256-ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    TU_STR_EQ(path, want);
    free(want);
    free(path);
    tu_client_free(c);
    if (old)
        setenv("XDG_DATA_HOME", old, 1);
    else
        unsetenv("XDG_DATA_HOME");
    free(old);
    tu_rm_rf(d);
    free(d);
}

static void test_deinline(void)
{
    seam_client *c = store_client(NULL);
    seam_error err;
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_text(m, "here");
    seam_message_add_media(m, "image/png", SEAM_MEDIA_BASE64, "YWJj"); /* "abc" */
    seam_message_add_media(m, "image/png", SEAM_MEDIA_URL, "https://example.org/a.png");
    CU_ASSERT_EQUAL(seam_media_deinline(c, m, &err), SEAM_OK);
    const seam_part *p = seam_message_part(m, 1);
    CU_ASSERT_EQUAL(seam_part_media_source(p), SEAM_MEDIA_HANDLE);
    TU_STR_EQ(seam_part_media_data(p),
              "media://sha256-ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CU_ASSERT_EQUAL(seam_part_media_byte_length(p), 3);
    CU_ASSERT_EQUAL(seam_part_media_source(seam_message_part(m, 2)), SEAM_MEDIA_URL);
    /* Invalid base64 is refused, never stored as something else. */
    seam_message_add_media(m, "image/png", SEAM_MEDIA_BASE64, "Y*Jj");
    CU_ASSERT_EQUAL(seam_media_deinline(c, m, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    seam_message_free(m);
    tu_client_free(c);
}

/* A handle part reaches the codec as the stored bytes, in base64 — here the
 * OpenAI codec against the fake server — and a handle not in the store ends
 * the call with a bad_request. */
static void test_handle_resolved_for_the_codec(void)
{
    fake_server *srv = tu_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv);
    if (!store_dir)
        seam_client_free(store_client(NULL));
    seam_client *c = tu_clientf("providers = { oa = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"k\"; }; };\n"
                                "chains = { default = ( { provider = \"oa\"; model = \"gpt-4o\"; } ); };\n"
                                "media = { store = \"%s\"; };\n", fake_server_url(srv), store_dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    seam_error err;
    char h[SEAM_MEDIA_HANDLE_SIZE];
    CU_ASSERT_EQUAL(seam_media_put(c, "abc", 3, h, &err), SEAM_OK);
    fake_server_push_json(srv, 200,
                          "{\"id\":\"x\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
                          "\"message\":{\"role\":\"assistant\",\"content\":\"a cat\"},"
                          "\"finish_reason\":\"stop\"}]}", NULL);
    seam_request *r = seam_request_new();
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    seam_message_add_text(m, "what is it");
    seam_message_add_media(m, "image/png", SEAM_MEDIA_HANDLE, h);
    seam_request_add_message(r, m);
    seam_result *res = NULL;
    CU_ASSERT_EQUAL(seam_generate(c, r, NULL, &res, &err), SEAM_OK);
    TU_STR_EQ(res ? seam_result_text(res) : NULL, "a cat");
    seam_result_free(res);
    json_object *body = tu_last_body(srv);
    TU_STR_EQ(tu_json_str(body, "messages.0.content.1.image_url.url"), "data:image/png;base64,YWJj");
    json_object_put(body);
    /* The caller's request still holds the handle. */
    CU_ASSERT_EQUAL(seam_part_media_source(seam_message_part(seam_request_message(r, 0), 1)),
                    SEAM_MEDIA_HANDLE);
    seam_request_free(r);

    r = seam_request_new();
    m = seam_message_new(SEAM_ROLE_USER);
    seam_message_add_text(m, "what is it");
    seam_message_add_media(m, "image/png", SEAM_MEDIA_HANDLE,
                           "media://sha256-1111111111111111111111111111111111111111111111111111111111111111");
    seam_request_add_message(r, m);
    size_t before = fake_server_request_count(srv);
    tu_generate_refused(c, r, SEAM_ERROR_BAD_REQUEST, "no media media://sha256-1111");
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before);
    seam_request_free(r);
    tu_client_free(c);
}

/* ---- media output: Gemini native image output -------------------------------------- */

/* A 1x1 PNG (every chunk's CRC checked) and the sha256 of its 70 bytes. */
#define PNG_B64 "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
#define PNG_HANDLE "media://sha256-6b7fa434f92a8b80aab02d9bf1a12e49ffcae424e4013a1c4f68b67e3d2bbcd0"

/* The answer of generateContent with generationConfig.responseModalities
 * ["TEXT","IMAGE"], as documented at https://ai.google.dev/api/generate-content
 * (GenerateContentResponse.candidates[].content.parts[]: a Part is text or
 * inlineData, a Blob { mimeType, data: base64 }) and in the image-generation
 * guide (https://ai.google.dev/gemini-api/docs/image-generation: "for part in
 * response.candidates[0].content.parts: ... part.inline_data"). */
static const char gemini_image_answer[] =
    "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":["
    "{\"text\":\"Here is a cat.\"},"
    "{\"inlineData\":{\"mimeType\":\"image/png\",\"data\":\"" PNG_B64 "\"}}]},"
    "\"finishReason\":\"STOP\",\"index\":0}],"
    "\"usageMetadata\":{\"promptTokenCount\":5,\"candidatesTokenCount\":1290,\"totalTokenCount\":1295},"
    "\"modelVersion\":\"gemini-2.5-flash-image\"}";

static seam_client *gemini_client(fake_server *srv)
{
    if (!store_dir)
        seam_client_free(store_client(NULL));
    seam_client *c = tu_clientf("providers = { gm = { plugin = \"gemini\"; base_url = \"%s/v1beta\"; api_key = \"k\"; }; };\n"
                                "chains = { default = ( { provider = \"gm\"; model = \"gemini-2.5-flash\"; },\n"
                                "                       { provider = \"gm\"; model = \"gemini-2.5-flash-image\"; } ); };\n"
                                "media = { store = \"%s\"; };\n", fake_server_url(srv), store_dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

/* A gemini client on a new server (*srv, stopped when the suites end). */
static seam_client *gemini_on_new_server(fake_server **srv)
{
    *srv = tu_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(*srv);
    return gemini_client(*srv);
}

static seam_request *image_request(void)
{
    return tu_request_out("draw a cat", SEAM_MODALITY_TEXT | SEAM_MODALITY_IMAGE);
}

static char skipped_log[1024];

static void log_attempt(void *ud, const seam_attempt *a)
{
    (void)ud;
    size_t n = strlen(skipped_log);
    snprintf(skipped_log + n, sizeof skipped_log - n, "%s %s %s: %s\n",
             a->outcome == SEAM_ATTEMPT_SKIPPED ? "skipped" : a->outcome == SEAM_ATTEMPT_FAILED ? "failed" : "ok",
             a->provider, a->model, a->error ? a->error->message : "");
}

static void test_gemini_image_output(void)
{
    fake_server *srv;
    seam_client *c = gemini_on_new_server(&srv);
    fake_server_push_json(srv, 200, gemini_image_answer, NULL);
    seam_request *r = image_request();
    seam_call_options o = {.size = sizeof o, .on_attempt = log_attempt};
    skipped_log[0] = '\0';
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_generate(c, r, &o, &res, &err), SEAM_OK);
    /* The text-only model is skipped, and says why. */
    CU_ASSERT_PTR_NOT_NULL(strstr(skipped_log, "skipped gm gemini-2.5-flash: model \"gemini-2.5-flash\" "
                                               "of provider \"gm\" lacks a capability the request "
                                               "needs: output modalities text+image in one turn"));
    CU_ASSERT_PTR_NOT_NULL(strstr(skipped_log, "ok gm gemini-2.5-flash-image"));
    /* The lowering: generationConfig.responseModalities. */
    json_object *body = tu_last_body(srv);
    CU_ASSERT(tu_json_equal(tu_json_at(body, "generationConfig.responseModalities"), "[\"TEXT\",\"IMAGE\"]"));
    json_object_put(body);
    CU_ASSERT_PTR_NOT_NULL(strstr(tu_last_path(srv), "gemini-2.5-flash-image:generateContent"));
    /* The result holds the text and the image as a handle, never the bytes. */
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 2);
    TU_STR_EQ(seam_result_text(res), "Here is a cat.");
    const seam_part *p = seam_message_part(m, 1);
    CU_ASSERT_EQUAL(seam_part_get_type(p), SEAM_PART_MEDIA);
    CU_ASSERT_EQUAL(seam_part_media_source(p), SEAM_MEDIA_HANDLE);
    TU_STR_EQ(seam_part_mime_type(p), "image/png");
    TU_STR_EQ(seam_part_media_data(p), PNG_HANDLE);
    /* The stored file is the decoded PNG. */
    char *path = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_media_path(c, PNG_HANDLE, &path, &err), SEAM_OK);
    size_t n = 0;
    char *bytes = tu_read_file(path, &n);
    CU_ASSERT_EQUAL(n, 70);
    CU_ASSERT(bytes && memcmp(bytes, "\x89PNG\r\n\x1a\n", 8) == 0);
    free(bytes);
    free(path);
    /* Media usage, apart from tokens: one image. */
    tu_media_units_are(res, SEAM_MODALITY_IMAGE, 1, "count");
    seam_result_free(res);
    seam_request_free(r);
    tu_client_free(c);
}

static void test_gemini_image_stream_no_base64(void)
{
    fake_server *srv;
    seam_client *c = gemini_on_new_server(&srv);
    char sse[2048];
    snprintf(sse, sizeof sse, "data: %s\r\n\r\n", gemini_image_answer);
    fake_server_push_sse(srv, sse, 0);
    seam_request *r = image_request();
    seam_call_options o = {.size = sizeof o};
    seam_stream *st = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_stream_open(c, r, &o, &st, &err), SEAM_OK);
    const seam_chunk *ch;
    int rc, starts = 0, ends = 0;
    char seen[64] = "";
    while ((rc = seam_stream_next(st, &ch, &err)) == 1) {
        /* No chunk carries the base64 (its first 20 characters, anywhere). */
        const char *fields[] = {ch->id, ch->name, ch->text, ch->signature, ch->args_json,
                                ch->result_json, ch->mime_type};
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
            CU_ASSERT_PTR_NULL(fields[i] ? strstr(fields[i], "iVBORw0KGgoAAAANSUhE") : NULL);
        if (ch->type == SEAM_CHUNK_MEDIA_START) {
            starts++;
            TU_STR_EQ(ch->mime_type, "image/png");
            snprintf(seen, sizeof seen, "%s", ch->id);
        }
        if (ch->type == SEAM_CHUNK_MEDIA_END) {
            ends++;
            TU_STR_EQ(ch->id, seen);
            TU_STR_EQ(ch->text, PNG_HANDLE);
        }
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(starts, 1);
    CU_ASSERT_EQUAL(ends, 1);
    seam_stream_free(st);
    seam_request_free(r);
    tu_client_free(c);
}

static void test_gemini_bad_inline_data(void)
{
    fake_server *srv;
    seam_client *c = gemini_on_new_server(&srv);
    fake_server_push_json(srv, 200,
                          "{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":"
                          "\"image/png; q=1\",\"data\":\"AAAA\"}}]},\"finishReason\":\"STOP\"}]}", NULL);
    seam_request *r = image_request();
    seam_result *res = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_generate(c, r, NULL, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "has parameters"));
    fake_server_push_json(srv, 200,
                          "{\"candidates\":[{\"content\":{\"parts\":[{\"inlineData\":{\"mimeType\":"
                          "\"image/png\",\"data\":\"A*AA\"}}]},\"finishReason\":\"STOP\"}]}", NULL);
    CU_ASSERT_EQUAL(seam_generate(c, r, NULL, &res, &err), SEAM_ERR_PROVIDER);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "not valid base64"));
    seam_request_free(r);
    tu_client_free(c);
}

/* ---- capabilities: the chain skips what a model cannot take ----------------------- */

static void test_chain_skips_by_media_capability(void)
{
    seam_client *c = tu_clientf(
        "providers = { m = { plugin = \"mock\"; }; };\n"
        "chains = { default = ( { provider = \"m\"; model = \"text-only\"; },\n"
        "                       { provider = \"m\"; model = \"hears\"; } ); };\n"
        "models = ( { id = \"text-only\"; provider = \"m\"; capabilities = [ \"tools\", \"image_input\" ]; },\n"
        "           { id = \"hears\"; provider = \"m\"; capabilities = [ \"audio_input\", \"document_input\", \"vision\" ];\n"
        "             outputs = [ \"text\", \"text+audio\" ]; } );\n"
        "media = { inline_document_bytes = 100; };\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    struct {
        const char *mime, *data, *missing;
        uint32_t outputs;
    } cases[] = {
        {"audio/wav", "UklGRg==", "audio input", SEAM_MODALITY_TEXT},
        {"application/pdf", "JVBERi0=", "document (PDF) input", SEAM_MODALITY_TEXT},
        {"image/png", "iVBORw0KGgo=", "output modalities text+audio in one turn",
         SEAM_MODALITY_TEXT | SEAM_MODALITY_AUDIO},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        seam_request *r = seam_request_new();
        seam_message *m = seam_message_new(SEAM_ROLE_USER);
        seam_message_add_text(m, "hi");
        seam_message_add_media(m, cases[i].mime, SEAM_MEDIA_BASE64, cases[i].data);
        seam_request_add_message(r, m);
        seam_request_set_output_modalities(r, cases[i].outputs);
        seam_call_options o = {.size = sizeof o, .on_attempt = log_attempt};
        skipped_log[0] = '\0';
        seam_result *res = NULL;
        seam_error err;
        CU_ASSERT_EQUAL(seam_generate(c, r, &o, &res, &err), SEAM_OK);
        char want[256];
        snprintf(want, sizeof want, "skipped m text-only: model \"text-only\" of provider \"m\" lacks "
                                    "a capability the request needs: %s\nok m hears", cases[i].missing);
        if (!strstr(skipped_log, want))
            fprintf(stderr, "\n  log: %s\n  want: %s\n", skipped_log, want);
        CU_ASSERT_PTR_NOT_NULL(strstr(skipped_log, want));
        seam_result_free(res);
        seam_request_free(r);
    }
    /* Nobody can: the call fails, naming every reason. */
    seam_request *r = seam_request_new();
    seam_request_add_user_text(r, "film it");
    seam_request_set_output_modalities(r, SEAM_MODALITY_VIDEO);
    tu_generate_refused(c, r, SEAM_ERROR_BAD_REQUEST, "output modalities video in one turn");
    seam_request_free(r);
    tu_client_free(c);
}

/* ---- the mock's deterministic media, and the CLI ------------------------------------ */

static void test_mock_media(void)
{
    seam_client *c = store_client(NULL);
    char wav_handle[SEAM_MEDIA_HANDLE_SIZE];
    seam_error err;
    /* The WAV the mock answers, stored by hand: its handle is the sha256. */
    static const unsigned char wav[52] = "RIFF,\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0"
                                          "\x40\x1f\0\0\x01\0\x08\0data\x08\0\0\0"
                                          "\x80\x80\x80\x80\x80\x80\x80\x80";
    CU_ASSERT_EQUAL(seam_media_put(c, wav, sizeof wav, wav_handle, &err), SEAM_OK);
    for (int streaming = 0; streaming < 2; streaming++) {
        seam_request *r = seam_request_new();
        seam_request_add_user_text(r, "draw and say it");
        seam_request_set_output_modalities(r, SEAM_MODALITY_TEXT | SEAM_MODALITY_IMAGE |
                                                  SEAM_MODALITY_AUDIO);
        tu_call call;
        memset(&call, 0, sizeof call);
        if (streaming) {
            call = tu_run_stream(c, "m", "mock-1", r, TU_KEEP_MESSAGE);
        } else {
            seam_result *res = NULL;
            call.status = seam_generate(c, r, NULL, &res, &err);
            call.message = res ? seam_message_dup(seam_result_message(res)) : NULL;
            seam_result_free(res);
        }
        CU_ASSERT_EQUAL(call.status, SEAM_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(call.message);
        CU_ASSERT_EQUAL_FATAL(seam_message_part_count(call.message), 3);
        const seam_part *img = seam_message_part(call.message, 1);
        const seam_part *aud = seam_message_part(call.message, 2);
        TU_STR_EQ(seam_part_mime_type(img), "image/png");
        TU_STR_EQ(seam_part_media_data(img), PNG_HANDLE);
        TU_STR_EQ(seam_part_mime_type(aud), "audio/wav");
        TU_STR_EQ(seam_part_media_data(aud), wav_handle);
        CU_ASSERT_PTR_NULL(strstr(call.log, "iVBOR"));
        seam_message_free(call.message);
        free(call.summary);
        seam_request_free(r);
    }
    tu_client_free(c);
}

static void test_cli_attach_and_path(void)
{
    seam_client *c = store_client(NULL);
    const char *conf = seam_client_conf_path(c);
    char *dir = tu_mkdtemp_private();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    /* A PNG named .txt: the type comes from the bytes. */
    char *png = tu_path(dir, "picture.txt");
    FILE *f = fopen(png, "wb");
    static const unsigned char png_bytes[70] =
        "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00"
        "\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00"
        "\x0d\x49\x44\x41\x54\x78\xda\x63\x64\xf8\xcf\x50\x0f\x00\x03\x86\x01\x80"
        "\x5a\x34\x7d\x6b\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";
    fwrite(png_bytes, 1, sizeof png_bytes, f);
    fclose(f);
    char cmd[4096];
    char *out = NULL, *errout = NULL;
    snprintf(cmd, sizeof cmd, "SEAM_PLUGIN_PATH= '%s/cli/seam' --conf '%s' chat --json -a '%s' "
                              "-a https://example.org/cat.jpg 'what is it'", TOP_BUILDDIR, conf, png);
    int st = tu_run(cmd, &out, &errout);
    if (st != 0)
        fprintf(stderr, "\n  %s\n  %s\n", out ? out : "", errout ? errout : "");
    CU_ASSERT_EQUAL(st, 0);
    /* No base64 on any line of --json (nor on stderr). */
    CU_ASSERT_PTR_NULL(out ? strstr(out, "iVBORw0KGgo") : "x");
    CU_ASSERT_PTR_NULL(errout ? strstr(errout, "iVBORw0KGgo") : "x");
    free(out);
    free(errout);
    /* The file went into the store under the handle of its bytes. */
    snprintf(cmd, sizeof cmd, "SEAM_PLUGIN_PATH= '%s/cli/seam' --conf '%s' media path %s",
             TOP_BUILDDIR, conf, PNG_HANDLE);
    CU_ASSERT_EQUAL(tu_run(cmd, &out, NULL), 0);
    char *want = tu_path(store_dir, PNG_HANDLE + strlen("media://"));
    char line[2048];
    snprintf(line, sizeof line, "%s\n", want);
    TU_STR_EQ(out, line);
    free(want);
    free(out);
    /* Refusals: not a handle (usage), not media (usage). */
    snprintf(cmd, sizeof cmd, "SEAM_PLUGIN_PATH= '%s/cli/seam' --conf '%s' media path /etc/passwd",
             TOP_BUILDDIR, conf);
    CU_ASSERT_EQUAL(tu_run(cmd, NULL, NULL), 2);
    char *txt = tu_path(dir, "notes.png");
    tu_write_file(txt, "just text\n");
    snprintf(cmd, sizeof cmd, "SEAM_PLUGIN_PATH= '%s/cli/seam' --conf '%s' chat -a '%s' hi",
             TOP_BUILDDIR, conf, txt);
    CU_ASSERT_EQUAL(tu_run(cmd, NULL, &errout), 2);
    CU_ASSERT_PTR_NOT_NULL(errout ? strstr(errout, "not a media file") : NULL);
    free(errout);
    free(txt);
    free(png);
    tu_rm_rf(dir);
    free(dir);
    tu_client_free(c);
}

static const tu_test tests[] = {
    {"sha256: FIPS 180-2 vectors, as handles", test_sha256_vectors},
    {"store: content-addressed, 0600, atomic, path, open", test_store_files},
    {"store: $XDG_DATA_HOME/seam/media by default", test_store_default_dir},
    {"de-inlining: base64 parts become handles", test_deinline},
    {"handles resolved to bytes for the codec", test_handle_resolved_for_the_codec},
    {"gemini: image output stored, result holds the handle, media units", test_gemini_image_output},
    {"gemini: streamed image output, no base64 in any chunk", test_gemini_image_stream_no_base64},
    {"gemini: malformed inlineData refused", test_gemini_bad_inline_data},
    {"chain skips by input and output capability", test_chain_skips_by_media_capability},
    {"mock: deterministic PNG and WAV, generate and stream", test_mock_media},
    {"cli: chat -a (sniffed, stored), media path, no base64 in --json", test_cli_attach_and_path},
    {"one MIME check: bare type/subtype, bounded, no parameters", test_mime_check},
    {"invalid base64 refused", test_base64_refused},
    {"inline ceiling per modality, decoded bytes, from the conf", test_inline_ceiling},
    {"per-message count and aggregate caps", test_message_caps},
    {"media conf keys and their ranges", test_conf_ranges},
    {"media part metadata and handle sources", test_part_meta},
    {NULL, NULL},
};

int main(void)
{
    return tu_run_suite("media", tests, NULL);
}
