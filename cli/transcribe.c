/* transcribe.c — `seam transcribe`: the speech in an audio FILE (or a media
 * HANDLE of the store) as text, through the conf's transcription chain or
 * one provider (seam_transcribe). The text goes to stdout, a usage line
 * (seconds, tokens, provider, model) to stderr; --json prints one line
 * {"type":"transcription",...} instead, or the error line of `seam chat
 * --json`. The audio's type is sniffed from its first bytes unless --type
 * names it. Uses only <seam/seam.h>. */
#include "config.h"

#include "cli.h"
#include "json_out.h"
#include "media_cmd.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seam/seam.h>

/* The largest file read: OpenAI takes 25 MB, Gemini inline 20 MB. */
#define MAX_AUDIO_BYTES ((size_t)512 * 1024 * 1024)

static const char *const transcribe_help =
    "Usage: seam [--conf FILE] transcribe [--chain C | --provider P --model M | -m M]\n"
    "                                     [--language L] [--prompt TEXT] [--type MIME]\n"
    "                                     [--json] [-v] FILE|HANDLE\n"
    "\n"
    "Prints the speech in the audio FILE (or the media HANDLE media://sha256-...) as\n"
    "text. A usage line (seconds, tokens, provider, model) goes to stderr.\n"
    "\n"
    "  --chain C            the chain C (default: the chain of role \"transcribe\",\n"
    "                       else the chain named \"transcribe\")\n"
    "  --provider P --model M\n"
    "                       the configured provider P with model M only\n"
    "  -m, --model M        this model for every entry of the chain\n"
    "  --language L         the spoken language, ISO-639-1 (en, de, ...)\n"
    "  --prompt TEXT        text that guides names and spelling\n"
    "  --type MIME          the audio's type (default: sniffed from its bytes)\n"
    "  --json               one line {\"type\":\"transcription\",\"text\",\"provider\",\n"
    "                       \"model\",\"seconds\",\"usage\"} or {\"type\":\"error\",...}\n"
    "  -v, --verbose        every attempt of the chain on stderr (skips say why)\n";

static void on_attempt(void *ud, const seam_attempt *a)
{
    (void)ud;
    const char *outcome = a->outcome == SEAM_ATTEMPT_SUCCEEDED ? "succeeded"
                          : a->outcome == SEAM_ATTEMPT_FAILED  ? "failed"
                                                               : "skipped";
    fprintf(stderr, "seam: attempt %d %s %s: %s", a->attempt, a->provider,
            a->model ? a->model : "?", outcome);
    if (a->error && a->error->message[0])
        fprintf(stderr, ": %s", a->error->message);
    fputc('\n', stderr);
}

static unsigned char *read_file(const char *path, size_t *len, int *too_big)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            if (cap >= MAX_AUDIO_BYTES) {
                *too_big = 1;
                break;
            }
            size_t ncap = cap ? cap * 2 : 65536;
            unsigned char *b = realloc(buf, ncap);
            if (!b)
                break;
            buf = b;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                break;
            fclose(f);
            *len = n;
            return buf ? buf : malloc(1);
        }
    }
    fclose(f);
    free(buf);
    return NULL;
}

static int print_json(const seam_transcription *t)
{
    json_object *o = json_object_new_object();
    const char *provider = seam_transcription_provider(t), *model = seam_transcription_model(t);
    json_object_object_add(o, "type", json_object_new_string("transcription"));
    json_object_object_add(o, "text", json_object_new_string(seam_transcription_text(t)));
    json_object_object_add(o, "provider", provider ? json_object_new_string(provider) : NULL);
    json_object_object_add(o, "model", model ? json_object_new_string(model) : NULL);
    double s = seam_transcription_seconds(t);
    char secs[32];
    snprintf(secs, sizeof secs, "%.3f", s); /* ms: no float noise in the line */
    json_object_object_add(o, "seconds", s >= 0 ? json_object_new_double_s(s, secs) : NULL);
    const seam_usage *u = seam_transcription_usage(t);
    json_object *usage = json_object_new_object();
    if (u->present & SEAM_USAGE_INPUT)
        json_object_object_add(usage, "input_tokens", json_object_new_int64(u->input_tokens));
    if (u->present & SEAM_USAGE_OUTPUT)
        json_object_object_add(usage, "output_tokens", json_object_new_int64(u->output_tokens));
    if (u->present & SEAM_USAGE_COST)
        json_object_object_add(usage, "cost_microcents", json_object_new_int64(u->cost_microcents));
    json_object_object_add(o, "usage", usage);
    errno = 0;
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                              JSON_C_TO_STRING_NOSLASHESCAPE);
    int ok = text && errno != ENOMEM && puts(text) >= 0 && fflush(stdout) == 0;
    json_object_put(o);
    return ok ? 0 : -1;
}

static int print_text(const seam_transcription *t)
{
    if (puts(seam_transcription_text(t)) < 0 || fflush(stdout) != 0)
        return -1;
    double s = seam_transcription_seconds(t);
    const seam_usage *u = seam_transcription_usage(t);
    fputs("transcription:", stderr);
    if (s >= 0)
        fprintf(stderr, " %.1f s", s);
    if (u->present & SEAM_USAGE_INPUT)
        fprintf(stderr, "  tokens: in %lld", (long long)u->input_tokens);
    if (u->present & SEAM_USAGE_OUTPUT)
        fprintf(stderr, " out %lld", (long long)u->output_tokens);
    if (seam_transcription_provider(t))
        fprintf(stderr, "  provider: %s", seam_transcription_provider(t));
    if (seam_transcription_model(t))
        fprintf(stderr, "  model: %s", seam_transcription_model(t));
    fputc('\n', stderr);
    return 0;
}

int cmd_transcribe(const char *conf, int argc, char **argv)
{
    const char *chain = NULL, *provider = NULL, *model = NULL, *language = NULL, *prompt = NULL,
               *type = NULL, *what = NULL;
    int json = 0, verbose = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
        if (strcmp(a, "--") == 0) {
            if (i + 1 < argc)
                what = argv[i + 1];
            if (i + 2 < argc)
                return usage_error("transcribe takes one FILE or HANDLE");
            break;
        }
        if (a[0] != '-' || a[1] == '\0') {
            if (what)
                return usage_error("transcribe takes one FILE or HANDLE");
            what = a;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(transcribe_help, stdout);
            return EXIT_OK;
        }
        if (strcmp(a, "--json") == 0) {
            json = 1;
            continue;
        }
        if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            verbose = 1;
            continue;
        }
        static const char *const valued[] = {"--chain", "--provider", "--model", "-m",
                                             "--language", "--prompt", "--type"};
        const char **slot[] = {&chain, &provider, &model, &model, &language, &prompt, &type};
        int matched = 0;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0] && !matched; k++) {
            if ((r = option_value(argc, argv, &i, valued[k], &v)) == 0)
                continue;
            if (r < 0) {
                fprintf(stderr, "seam: %s needs a value\nTry 'seam transcribe --help'.\n", a);
                return EXIT_USAGE;
            }
            *slot[k] = v;
            matched = 1;
        }
        if (matched)
            continue;
        fprintf(stderr, "seam: unknown option '%s'\nTry 'seam transcribe --help'.\n", a);
        return EXIT_USAGE;
    }
    if (!what)
        return usage_error("transcribe needs a FILE or HANDLE");
    if (chain && provider)
        return usage_error("--chain and --provider exclude each other");
    if (provider && !model)
        return usage_error("--provider needs --model");

    seam_transcribe_request tr;
    memset(&tr, 0, sizeof tr);
    tr.size = sizeof tr;
    tr.model = model;
    tr.language = language;
    tr.prompt = prompt;
    unsigned char *bytes = NULL;
    if (strncmp(what, "media://", 8) == 0) {
        if (!type)
            return usage_error("a HANDLE needs --type (the store keeps no type)");
        tr.handle = what;
    } else {
        size_t len = 0;
        int too_big = 0;
        bytes = read_file(what, &len, &too_big);
        if (!bytes) {
            if (too_big)
                say("%s: larger than %zu bytes", what, MAX_AUDIO_BYTES);
            else
                say("%s: %s", what, strerror(errno ? errno : EIO));
            return EXIT_USAGE;
        }
        if (!type)
            type = media_sniff(bytes, len);
        if (!type) {
            free(bytes);
            return usage_error("%s: cannot tell the audio's type from its bytes: give --type",
                               what);
        }
        const char *slash = strrchr(what, '/');
        tr.name = slash ? slash + 1 : what;
        tr.audio = bytes;
        tr.audio_len = len;
    }
    tr.mime_type = type;

    seam_client *client = NULL;
    seam_error err;
    int code = open_client(conf, &client, &err);
    if (code != EXIT_OK) {
        free(bytes);
        return code;
    }
    seam_call_options opts;
    memset(&opts, 0, sizeof opts);
    opts.size = sizeof opts;
    opts.chain = chain;
    opts.provider = provider;
    opts.model = model;
    if (verbose)
        opts.on_attempt = on_attempt;
    seam_transcription *t = NULL;
    int rc = seam_transcribe(client, &tr, &opts, &t, &err);
    int exit_code = EXIT_OK;
    if (rc != SEAM_OK) {
        if (json)
            json_out_error(stdout, &err);
        else
            print_error(&err);
        exit_code = err.kind == SEAM_ERROR_CONF || rc == SEAM_ERR_NOT_FOUND || rc == SEAM_ERR_INVALID
                        ? EXIT_USAGE
                        : EXIT_PROVIDER;
    } else if ((json ? print_json(t) : print_text(t)) != 0) {
        say("cannot write the output");
        exit_code = EXIT_PROVIDER;
    }
    seam_transcription_free(t);
    free(bytes);
    seam_client_free(client);
    return exit_code;
}
