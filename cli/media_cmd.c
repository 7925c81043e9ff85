/* media_cmd.c — media in the `seam` command: `seam media path HANDLE` (the
 * stored file of a handle; generation is mediagen_cmd.c's), and the attachments of `seam chat -a FILE|URL`:
 * a file is stored in the media store and sent as its handle, its MIME type
 * sniffed from its first bytes (the extension only breaks a tie the bytes
 * cannot, e.g. an MP4 container); a URL is sent as a URL part, its type from
 * its extension. Uses only <seam/seam.h>. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "media_cmd.h"

/* ---- sniffing ------------------------------------------------------------------ */

static int has(const unsigned char *b, size_t n, size_t at, const char *magic)
{
    size_t m = strlen(magic);
    return n >= at + m && memcmp(b + at, magic, m) == 0;
}

/* The MIME type of bytes from their signature; NULL when none is known. */
const char *media_sniff(const unsigned char *b, size_t n)
{
    if (has(b, n, 0, "\x89PNG\r\n\x1a\n"))
        return "image/png";
    if (n >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff)
        return "image/jpeg";
    if (has(b, n, 0, "GIF87a") || has(b, n, 0, "GIF89a"))
        return "image/gif";
    if (has(b, n, 0, "RIFF") && has(b, n, 8, "WEBP"))
        return "image/webp";
    if (has(b, n, 0, "RIFF") && has(b, n, 8, "WAVE"))
        return "audio/wav";
    if (has(b, n, 0, "%PDF-"))
        return "application/pdf";
    if (has(b, n, 0, "ID3") || (n >= 2 && b[0] == 0xff && (b[1] & 0xe0) == 0xe0))
        return "audio/mpeg";
    if (has(b, n, 0, "OggS"))
        return "audio/ogg";
    if (has(b, n, 0, "fLaC"))
        return "audio/flac";
    if (has(b, n, 4, "ftyp"))
        return has(b, n, 8, "M4A") ? "audio/mp4" : "video/mp4";
    if (has(b, n, 0, "\x1a\x45\xdf\xa3"))
        return "video/webm";
    return NULL;
}

/* A URL's type from its extension (seam does not fetch it to look). */
static const char *mime_of_extension(const char *url)
{
    static const struct { const char *ext, *mime; } table[] = {
        {".png", "image/png"}, {".jpg", "image/jpeg"}, {".jpeg", "image/jpeg"},
        {".gif", "image/gif"}, {".webp", "image/webp"}, {".pdf", "application/pdf"},
        {".wav", "audio/wav"}, {".mp3", "audio/mpeg"}, {".ogg", "audio/ogg"},
        {".flac", "audio/flac"}, {".mp4", "video/mp4"}, {".webm", "video/webm"},
    };
    size_t len = strcspn(url, "?#");
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        size_t e = strlen(table[i].ext);
        if (len > e && strncasecmp(url + len - e, table[i].ext, e) == 0)
            return table[i].mime;
    }
    return NULL;
}

static unsigned char *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            unsigned char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
            cap = ncap;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    *len = n;
    return buf;
}

/* The URL as it may be shown: without a user:password@ part and without its
 * query or fragment, where tokens travel. */
static void url_for_display(const char *url, char *out, size_t size)
{
    const char *host = strstr(url, "://");
    host = host ? host + 3 : url;
    size_t scheme = (size_t)(host - url);
    const char *end = host + strcspn(host, "/?#");
    const char *at = memchr(host, '@', (size_t)(end - host));
    if (at)
        host = at + 1;
    size_t rest = strcspn(host, "?#");
    snprintf(out, size, "%.*s%.*s", (int)scheme, url, (int)(rest > 300 ? 300 : rest), host);
}

int media_attach(seam_client *client, seam_message *msg, const char *what, seam_error *err)
{
    if (strncmp(what, "https://", 8) == 0 || strncmp(what, "http://", 7) == 0) {
        const char *mime = mime_of_extension(what);
        if (!mime) {
            char shown[400];
            url_for_display(what, shown, sizeof shown);
            say("chat: -a %s: cannot tell the media type of the URL from its name", shown);
            return EXIT_USAGE;
        }
        /* The conf's media.fetch_urls decides: the URL goes to the provider,
         * or seam fetches it (https, public addresses) and sends a handle. */
        int rc = seam_message_add_media_url(client, msg, mime, what, err);
        if (rc != SEAM_OK) {
            print_error(err);
            return rc == SEAM_ERR_INVALID ? EXIT_USAGE : EXIT_PROVIDER;
        }
        return EXIT_OK;
    }
    size_t n = 0;
    unsigned char *bytes = read_whole(what, &n);
    if (!bytes) {
        say("chat: -a %s: %s", what, strerror(errno));
        return EXIT_USAGE;
    }
    const char *mime = media_sniff(bytes, n);
    if (!mime) {
        free(bytes);
        say("chat: -a %s: not a media file seam knows (image, audio, video or PDF)", what);
        return EXIT_USAGE;
    }
    char handle[SEAM_MEDIA_HANDLE_SIZE];
    int rc = seam_media_put(client, bytes, n, handle, err);
    free(bytes);
    if (rc != SEAM_OK) {
        print_error(err);
        return EXIT_PROVIDER;
    }
    const char *slash = strrchr(what, '/');
    seam_media_meta meta = {.size = sizeof meta, .name = slash ? slash + 1 : what,
                            .byte_length = (int64_t)n, .duration_ms = -1};
    if (strlen(meta.name) > 255)
        meta.name = NULL;
    if (seam_message_add_media_meta(msg, mime, SEAM_MEDIA_HANDLE, handle, &meta) != SEAM_OK) {
        say("out of memory");
        return EXIT_PROVIDER;
    }
    return EXIT_OK;
}

/* ---- seam media ------------------------------------------------------------------- */

static const char media_help[] =
    "Usage: seam [--conf FILE] media path HANDLE\n"
    "       seam [--conf FILE] media image|speech|video [--provider P --model M | --chain C]\n"
    "                                [--size S] [--count N] [--seconds N] [--voice V]\n"
    "                                [--format MIME] [--json] [-o FILE] PROMPT\n"
    "       seam [--conf FILE] media resume|cancel [--json] [-o FILE] JOB\n"
    "  path     print the path of the stored file of HANDLE (media://sha256-...)\n"
    "  image    generate an image of PROMPT; speech: PROMPT spoken; video: a clip\n"
    "           (a job, waited for with its progress on a terminal). Prints each\n"
    "           media's handle and stored file's path; -o FILE also writes the\n"
    "           bytes. Without --provider or --chain: the chain of role \"media\",\n"
    "           else the chain \"media\".\n"
    "  resume   wait for JOB again (after the command was interrupted or killed);\n"
    "           its checkpoint is under $XDG_DATA_HOME/seam/jobs\n"
    "  cancel   give JOB up (and stop a command waiting on it)\n";

int cmd_media(const char *conf, int argc, char **argv)
{
    if (argc >= 1 && (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0)) {
        fputs(media_help, stdout);
        return EXIT_OK;
    }
    if (argc < 1)
        return usage_error("media: missing subcommand (path, image, speech, video, resume, cancel)");
    if (strcmp(argv[0], "image") == 0 || strcmp(argv[0], "speech") == 0 ||
        strcmp(argv[0], "video") == 0 || strcmp(argv[0], "resume") == 0 ||
        strcmp(argv[0], "cancel") == 0)
        return media_generate_cmd(conf, argc, argv);
    if (strcmp(argv[0], "path") != 0)
        return usage_error("media: unknown subcommand '%s' (path, image, speech, video, resume, "
                           "cancel)",
                           argv[0]);
    if (argc != 2)
        return usage_error("media path: give one handle");
    seam_client *client = NULL;
    seam_error err;
    int code = open_client(conf, &client, &err);
    if (code != EXIT_OK)
        return code;
    char *path = NULL;
    int rc = seam_media_path(client, argv[1], &path, &err);
    if (rc == SEAM_OK) {
        printf("%s\n", path);
        free(path);
        code = EXIT_OK;
    } else {
        say("media path: %s", err.message);
        code = rc == SEAM_ERR_INVALID ? EXIT_USAGE : EXIT_PROVIDER;
    }
    seam_client_free(client);
    return code;
}
