/* test_mediafetch.c — seam's own fetch of a media URL (issue 13,
 * seam_media_fetch): only https, and no host that resolves to a loopback,
 * private, link-local, CGNAT, unspecified, multicast or cloud metadata
 * address unless the conf allows private ones; each refusal a bad_request
 * naming the rule and the host, before any byte is sent. Nothing here
 * reaches the internet: refused addresses are refused before connecting, and
 * the allowed path connects to the fake server on 127.0.0.1. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

static char *store_dir;

static seam_client *fetch_client(const char *extra)
{
    if (!store_dir)
        store_dir = tu_mkdtemp_private();
    seam_client *c = tu_clientf("media = { store = \"%s\"; %s };\n", store_dir,
                                extra ? extra : "");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

/* Fetches url, expecting a bad_request whose message holds says and says2. */
static void expect_refused(seam_client *c, const char *url, const char *says, const char *says2)
{
    char handle[SEAM_MEDIA_HANDLE_SIZE] = "";
    seam_error err;
    int rc = seam_media_fetch(c, url, handle, &err);
    CU_ASSERT_EQUAL(rc, SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    if (!strstr(err.message, says) || (says2 && !strstr(err.message, says2)))
        fprintf(stderr, "\n  %s: got \"%s\", want \"%s\" and \"%s\"\n", url, err.message, says,
                says2 ? says2 : "");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, says));
    if (says2)
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, says2));
    CU_ASSERT_STRING_EQUAL(handle, "");
}

static void test_schemes(void)
{
    fake_server *srv = tu_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv);
    seam_client *c = fetch_client("allow_private_urls = true;");
    expect_refused(c, "file:///etc/passwd", "scheme \"file\"", "only https");
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/cat.png", fake_server_port(srv));
    expect_refused(c, url, "scheme \"http\"", "only https");
    expect_refused(c, "ftp://example.org/x", "scheme \"ftp\"", "only https");
    expect_refused(c, "gopher-no-colon", "only https", NULL);
    /* Nothing reached the server. */
    CU_ASSERT_EQUAL(fake_server_connection_count(srv), 0);
    tu_client_free(c);
}

static void test_private_refused(void)
{
    fake_server *srv = tu_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv);
    seam_client *c = fetch_client(NULL);
    char url[128];
    snprintf(url, sizeof url, "https://127.0.0.1:%d/cat.png", fake_server_port(srv));
    expect_refused(c, url, "host 127.0.0.1", "loopback address");
    /* A name resolving to loopback: the address connected to is checked. */
    snprintf(url, sizeof url, "https://localhost:%d/cat.png", fake_server_port(srv));
    expect_refused(c, url, "host localhost", "loopback address");
    snprintf(url, sizeof url, "https://user:pw@127.0.0.1:%d/", fake_server_port(srv));
    expect_refused(c, url, "host 127.0.0.1", "loopback");
    CU_ASSERT_EQUAL(fake_server_connection_count(srv), 0);

    expect_refused(c, "https://169.254.169.254/latest/meta-data/", "host 169.254.169.254",
                   "cloud metadata address");
    expect_refused(c, "https://[fd00:ec2::254]/", "host fd00:ec2::254", "cloud metadata address");
    expect_refused(c, "https://metadata.google.internal/computeMetadata/v1/",
                   "host metadata.google.internal", "cloud metadata");
    expect_refused(c, "https://METADATA.google.internal./", "cloud metadata", NULL);
    expect_refused(c, "https://10.1.2.3/", "host 10.1.2.3", "private address (RFC 1918)");
    expect_refused(c, "https://172.16.0.1/", "172.16.0.1", "RFC 1918");
    expect_refused(c, "https://172.31.255.255/", "172.31.255.255", "RFC 1918");
    expect_refused(c, "https://192.168.1.1/", "192.168.1.1", "RFC 1918");
    expect_refused(c, "https://169.254.1.1/", "169.254.1.1", "link-local address");
    expect_refused(c, "https://100.64.0.1/", "100.64.0.1", "CGNAT");
    expect_refused(c, "https://100.127.255.254/", "100.127.255.254", "CGNAT");
    expect_refused(c, "https://0.0.0.0/", "0.0.0.0", "unspecified address");
    expect_refused(c, "https://224.0.0.1/", "224.0.0.1", "multicast");
    expect_refused(c, "https://255.255.255.255/", "255.255.255.255", "multicast or reserved");
    expect_refused(c, "https://[::1]/", "host ::1", "loopback address");
    expect_refused(c, "https://[::]/", "host ::", "unspecified address");
    expect_refused(c, "https://[fc00::1]/", "fc00::1", "private address (fc00::/7)");
    expect_refused(c, "https://[fdab::1]/", "fdab::1", "fc00::/7");
    expect_refused(c, "https://[fe80::1]/", "fe80::1", "link-local address");
    expect_refused(c, "https://[ff02::1]/", "ff02::1", "multicast");
    /* The IPv4-mapped form reaches the IPv4 address and is judged as it. */
    expect_refused(c, "https://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1", "loopback address");
    expect_refused(c, "https://[::ffff:169.254.169.254]/", "cloud metadata", NULL);
    expect_refused(c, "https://[64:ff9b::10.0.0.1]/", "64:ff9b::a00:1", "RFC 1918");
    /* Decimal and short forms are parsed by the resolver to the same address. */
    expect_refused(c, "https://2130706433/", "127.0.0.1", "loopback");
    tu_client_free(c);
}

/* With media.allow_private_urls, loopback is allowed: the fetch connects to
 * the fake server (plain HTTP, so the TLS handshake fails: a transport error,
 * not a refusal). Metadata addresses stay refused. */
static void test_private_allowed(void)
{
    fake_server *srv = tu_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv);
    seam_client *c = fetch_client("allow_private_urls = true;");
    char url[128];
    snprintf(url, sizeof url, "https://127.0.0.1:%d/cat.png", fake_server_port(srv));
    char handle[SEAM_MEDIA_HANDLE_SIZE] = "";
    seam_error err;
    int rc = seam_media_fetch(c, url, handle, &err);
    CU_ASSERT_NOT_EQUAL(rc, SEAM_OK);
    CU_ASSERT_NOT_EQUAL(rc, SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_TRANSPORT);
    CU_ASSERT_PTR_NULL(strstr(err.message, "refused"));
    CU_ASSERT(fake_server_connection_count(srv) >= 1);
    expect_refused(c, "https://169.254.169.254/", "cloud metadata address", NULL);
    expect_refused(c, "https://[fd00:ec2::254]/", "cloud metadata address", NULL);
    tu_client_free(c);
}

static void test_conf_key(void)
{
    seam_error err;
    seam_client *c = tu_client("media = { allow_private_urls = \"yes\"; };\n", &err);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CONF);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "media.allow_private_urls"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "boolean"));
    tu_client_free(c);
}

static void test_bad_args(void)
{
    seam_client *c = fetch_client(NULL);
    char handle[SEAM_MEDIA_HANDLE_SIZE];
    seam_error err;
    CU_ASSERT_EQUAL(seam_media_fetch(NULL, "https://x/", handle, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_media_fetch(c, NULL, handle, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_media_fetch(c, "https://x/", NULL, &err), SEAM_ERR_INVALID);
    expect_refused(c, "https:///nohost", "no host", NULL);
    tu_client_free(c);
}

/* seam_message_add_media_url: a URL part by default; with media.fetch_urls
 * the URL is fetched under the same rules, a refusal leaving msg as it was. */
static void test_add_media_url(void)
{
    fake_server *srv = tu_server_start();
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv);
    char url[128];
    snprintf(url, sizeof url, "https://127.0.0.1:%d/cat.png", fake_server_port(srv));
    seam_error err;

    seam_client *c = fetch_client(NULL);
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    CU_ASSERT_EQUAL(seam_message_add_media_url(c, m, "image/png", url, &err), SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 1);
    const seam_part *p = seam_message_part(m, 0);
    CU_ASSERT_EQUAL(seam_part_media_source(p), SEAM_MEDIA_URL);
    TU_STR_EQ(seam_part_media_data(p), url);
    seam_message_free(m);
    tu_client_free(c);
    CU_ASSERT_EQUAL(fake_server_connection_count(srv), 0);

    c = fetch_client("fetch_urls = true;");
    m = seam_message_new(SEAM_ROLE_USER);
    CU_ASSERT_EQUAL(seam_message_add_media_url(c, m, "image/png", url, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "host 127.0.0.1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "loopback"));
    CU_ASSERT_EQUAL(seam_message_add_media_url(c, m, "image/png", "http://example.org/a.png", &err),
                    SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "only https"));
    CU_ASSERT_EQUAL(seam_message_part_count(m), 0);
    seam_message_free(m);
    tu_client_free(c);
    CU_ASSERT_EQUAL(fake_server_connection_count(srv), 0);
}

/* seam chat -a URL under media.fetch_urls: refused before any provider is
 * tried, the rule and the host on stderr. */
static void test_cli_attach_url(void)
{
    if (!store_dir)
        store_dir = tu_mkdtemp_private();
    seam_client *c = tu_clientf("providers = { m = { plugin = \"mock\"; }; };\n"
                                "chains = { default = ( { provider = \"m\"; model = \"mock-1\"; } ); };\n"
                                "media = { store = \"%s\"; fetch_urls = true; };\n", store_dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    char cmd[4096];
    char *out = NULL, *errout = NULL;
    snprintf(cmd, sizeof cmd, "SEAM_PLUGIN_PATH= '%s/cli/seam' --conf '%s' chat "
                              "-a https://169.254.169.254/latest/x.png hi",
             TOP_BUILDDIR, seam_client_conf_path(c));
    int st = tu_run(cmd, &out, &errout);
    CU_ASSERT_EQUAL(st, 2);
    CU_ASSERT_PTR_NOT_NULL(errout ? strstr(errout, "host 169.254.169.254") : NULL);
    CU_ASSERT_PTR_NOT_NULL(errout ? strstr(errout, "cloud metadata address") : NULL);
    CU_ASSERT_PTR_NULL(out ? strstr(out, "mock") : NULL);
    free(out);
    free(errout);
    tu_client_free(c);
}

static void cleanup(void *arg)
{
    (void)arg;
    if (store_dir)
        tu_rm_rf(store_dir);
    free(store_dir);
}

static int init(void)
{
    tu_at_end(cleanup, NULL);
    return 0;
}

static const tu_test tests[] = {
    { "only https is fetched", test_schemes },
    { "private, loopback and metadata hosts refused", test_private_refused },
    { "media.allow_private_urls opens private, not metadata", test_private_allowed },
    { "allow_private_urls is a boolean", test_conf_key },
    { "invalid arguments", test_bad_args },
    { "seam_message_add_media_url: URL part, or fetched under media.fetch_urls", test_add_media_url },
    { "cli: chat -a URL with media.fetch_urls refuses a metadata host", test_cli_attach_url },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("mediafetch", tests, init);
}
