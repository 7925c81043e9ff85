/* mediafetch.c — seam's own fetch of a media URL (seam_media_fetch): the
 * policy of what may be fetched — https only, and no address that reaches
 * this host, its private networks or a cloud metadata service unless the conf
 * says media.allow_private_urls — and the storing of the bytes as a handle.
 * The check runs on the socket address libcurl is about to connect to
 * (seam_fetch_url in transport.c), so a name that resolves to a public address
 * when checked and a private one when connected (DNS rebinding) is still
 * refused. Also here: seam_message_add_media_url, where the conf's
 * media.fetch_urls decides between passing a URL on and fetching it. */
#include "config.h"
#include "client.h"
#include "transport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

/* The rule an IPv4 address (host order) falls under, NULL: public. */
static const char *v4_rule(uint32_t a)
{
    if (a == 0xA9FEA9FEu) /* 169.254.169.254 */
        return "cloud metadata address";
    if ((a >> 24) == 127)
        return "loopback address";
    if ((a >> 24) == 10 || (a >> 20) == 0xAC1 || (a >> 16) == 0xC0A8)
        return "private address (RFC 1918)";
    if ((a >> 16) == 0xA9FE)
        return "link-local address";
    if ((a >> 22) == (0x64400000u >> 22)) /* 100.64.0.0/10 */
        return "shared address (CGNAT, RFC 6598)";
    if ((a >> 24) == 0)
        return "unspecified address";
    if ((a >> 28) >= 0xE) /* 224/4 multicast, 240/4 reserved and broadcast */
        return "multicast or reserved address";
    return NULL;
}

static const char *v6_rule(const unsigned char *b)
{
    static const unsigned char zero[16], loop[16] = { [15] = 1 };
    static const unsigned char ec2[16] = { 0xfd, 0x00, 0x0e, 0xc2, [14] = 0x02, [15] = 0x54 };
    static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
    if (memcmp(b, ec2, 16) == 0) /* fd00:ec2::254 */
        return "cloud metadata address";
    if (memcmp(b, loop, 16) == 0)
        return "loopback address";
    if (memcmp(b, zero, 16) == 0)
        return "unspecified address";
    static const unsigned char nat64[12] = { 0x00, 0x64, 0xff, 0x9b };
    /* ::ffff:a.b.c.d, the deprecated ::a.b.c.d and NAT64's 64:ff9b::a.b.c.d
     * reach the IPv4 address. */
    if (memcmp(b, mapped, 12) == 0 || memcmp(b, zero, 12) == 0 || memcmp(b, nat64, 12) == 0) {
        uint32_t a = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15];
        return v4_rule(a);
    }
    if ((b[0] & 0xfe) == 0xfc)
        return "private address (fc00::/7)";
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
        return "link-local address";
    if (b[0] == 0xff)
        return "multicast or reserved address";
    return NULL;
}

typedef struct fetch_policy {
    const char *host; /* for messages */
    int allow_private;
} fetch_policy;

static int addr_ok(void *ud, const struct sockaddr *sa, char *reason, size_t size)
{
    const fetch_policy *pol = ud;
    char text[INET6_ADDRSTRLEN] = "?";
    const char *rule;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        rule = v4_rule(ntohl(in->sin_addr.s_addr));
        inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        rule = v6_rule(in6->sin6_addr.s6_addr);
        inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
    } else
        rule = "address family other than IP";
    if (!rule)
        return 1;
    /* Metadata services hand out credentials: the conf opens private
     * networks, never them. */
    if (pol->allow_private && strcmp(rule, "cloud metadata address") != 0)
        return 1;
    int metadata = strcmp(rule, "cloud metadata address") == 0;
    snprintf(reason, size, "media URL: host %s resolves to %s, a %s; refused%s", pol->host, text,
             rule, metadata ? "" : " (media.allow_private_urls = true allows it)");
    return 0;
}

/* The host of an https URL, into host (size bytes): the authority without
 * userinfo, port or IPv6 brackets. -1 when there is none. */
static int url_host(const char *url, char *host, size_t size)
{
    const char *a = url + strlen("https://");
    size_t n = strcspn(a, "/?#");
    const char *at = memchr(a, '@', n);
    if (at) {
        n -= (size_t)(at + 1 - a);
        a = at + 1;
    }
    const char *end;
    if (n && a[0] == '[') {
        end = memchr(a, ']', n);
        if (!end)
            return -1;
        a++;
    } else {
        end = memchr(a, ':', n);
        if (!end)
            end = a + n;
    }
    size_t len = (size_t)(end - a);
    if (len == 0 || len >= size)
        return -1;
    memcpy(host, a, len);
    host[len] = '\0';
    return 0;
}

/* seam_media_fetch, with the stored length in *len. */
static int fetch(seam_client *client, const char *url, char handle[SEAM_MEDIA_HANDLE_SIZE],
                 size_t *len, seam_error *err)
{
    seam_error_clear(err);
    if (!client || !url || !handle)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    if (strncasecmp(url, "https://", 8) != 0) {
        size_t scheme = strcspn(url, ":/");
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                       "media URL: scheme \"%.*s\" refused: only https is fetched",
                       (int)(url[scheme] == ':' && scheme < 16 ? scheme : 0), url);
        return SEAM_ERR_INVALID;
    }
    char host[256];
    if (url_host(url, host, sizeof host) != 0)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "media URL: no host"), SEAM_ERR_INVALID;
    const seam_conf_media *conf = client->conf ? &client->conf->media : NULL;
    seam_conf_media lim = seam_media_limits(conf);
    fetch_policy pol = { .host = host, .allow_private = conf && conf->allow_private_urls > 0 };
    /* Named before it is resolved: the metadata service's name resolves
     * differently inside and outside the cloud. */
    size_t hl = strlen(host);
    if (hl && host[hl - 1] == '.')
        host[--hl] = '\0';
    if (strcasecmp(host, "metadata.google.internal") == 0) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                       "media URL: host %s is a cloud metadata service; refused", host);
        return SEAM_ERR_INVALID;
    }
    seam_fetch_params fp = {
        .url = url,
        .max_bytes = lim.max_message_bytes,
        .timeout_ms = 60000,
        .addr_ok = addr_ok,
        .ud = &pol,
    };
    seam_buf body = { 0 };
    int rc = seam_fetch_url(&fp, &body, err);
    if (rc != SEAM_OK)
        return rc;
    rc = seam_media_put(client, body.data, body.len, handle, err);
    *len = body.len;
    seam_buf_free(&body);
    return rc;
}

int seam_media_fetch(seam_client *client, const char *url, char handle[SEAM_MEDIA_HANDLE_SIZE],
                     seam_error *err)
{
    size_t len;
    return fetch(client, url, handle, &len, err);
}

int seam_message_add_media_url(seam_client *client, seam_message *msg, const char *mime_type,
                               const char *url, seam_error *err)
{
    seam_error_clear(err);
    if (!client || !msg || !mime_type || !url)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    int rc;
    if (!client->conf || client->conf->media.fetch_urls <= 0) {
        rc = seam_message_add_media(msg, mime_type, SEAM_MEDIA_URL, url);
    } else {
        char handle[SEAM_MEDIA_HANDLE_SIZE];
        size_t len = 0;
        rc = fetch(client, url, handle, &len, err);
        if (rc != SEAM_OK)
            return rc;
        seam_media_meta meta = { .size = sizeof meta, .byte_length = (int64_t)len,
                                 .duration_ms = -1 };
        rc = seam_message_add_media_meta(msg, mime_type, SEAM_MEDIA_HANDLE, handle, &meta);
    }
    if (rc == SEAM_ERR_NOMEM)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
    else if (rc != SEAM_OK)
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid media part");
    return rc;
}
