/* test_sha256.c — seam_sha256_hex, the public SHA-256 in hex (what the
 * gateway's serve.keys hashes are written in): the FIPS 180-2 example
 * vectors, the padding boundaries (55, 56, 63, 64 and 119 bytes, where the
 * length spills into a second block or not), a long input, and agreement with
 * sha256sum(1) when it is installed. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <seam/seam.h>

/* Each text and its digest. */
static const char *const vectors[][2] = {
    { "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
    { "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
    { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
};

static void test_vectors(void)
{
    char hex[65];
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        memset(hex, 'x', sizeof hex);
        seam_sha256_hex(vectors[i][0], strlen(vectors[i][0]), hex);
        TU_ASSERT_STR(hex, vectors[i][1]);
    }
    seam_sha256_hex(NULL, 0, hex);
    TU_ASSERT_STR(hex, vectors[0][1]);
}

/* A million 'a's (the third FIPS 180-2 example): many blocks. */
static void test_long_input(void)
{
    size_t n = 1000000;
    char *a = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    memset(a, 'a', n);
    char hex[65];
    seam_sha256_hex(a, n, hex);
    free(a);
    TU_ASSERT_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Each length around the padding boundaries gives what sha256sum gives. */
static void test_boundaries_against_sha256sum(void)
{
    if (tu_run("command -v sha256sum >/dev/null", NULL, NULL) != 0) {
        fprintf(stderr, "(no sha256sum: boundaries not compared) ");
        return;
    }
    static const size_t lengths[] = { 1, 55, 56, 63, 64, 65, 119, 120, 128 };
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        char text[129];
        for (size_t k = 0; k < lengths[i]; k++)
            text[k] = (char)('a' + k % 26);
        text[lengths[i]] = '\0';
        char cmd[256], *out = NULL;
        snprintf(cmd, sizeof cmd, "printf %%s '%s' | sha256sum", text);
        CU_ASSERT_EQUAL_FATAL(tu_run(cmd, &out, NULL), 0);
        char hex[65];
        seam_sha256_hex(text, lengths[i], hex);
        CU_ASSERT(out && strncmp(out, hex, 64) == 0);
        if (!out || strncmp(out, hex, 64) != 0)
            fprintf(stderr, "\n  %zu bytes: %s, sha256sum %s", lengths[i], hex, out ? out : "?");
        free(out);
    }
}

static const tu_test tests[] = {
    { "FIPS 180-2 vectors", test_vectors },
    { "a million bytes", test_long_input },
    { "padding boundaries against sha256sum", test_boundaries_against_sha256sum },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("sha256", tests, NULL);
}
