/* chat_opts.c — `seam chat`'s command line (getopt_long, short options, the
 * options before the prompt) and the per-request options it turns into the
 * request: system prompt, temperature, max tokens, stop sequences, a JSON
 * Schema for structured output (and the check of the answer against it), a
 * reasoning level or budget, and attachments (files stored and sent as handles,
 * URLs; media_cmd.c).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>
#include <seam/seam.h>

#include "chat.h"
#include "media_cmd.h"
#include "cli.h"

/* Long-only options get codes above the character range. */
enum {
    OPT_CHAIN = 256,
    OPT_PROVIDER,
    OPT_CONF,
    OPT_JSON,
    OPT_NO_STREAM,
    OPT_NO_MOCK,
    OPT_TOOLS,
    OPT_MAX_TOOL_ROUNDS,
    OPT_TEMPERATURE,
    OPT_MAX_TOKENS,
    OPT_STOP,
    OPT_SCHEMA,
    OPT_REASONING,
    OPT_CID,
    OPT_NO_LOG,
    OPT_RECORD,
    OPT_OUTPUT,
};

static const struct option chat_longopts[] = {
    {"chain", required_argument, NULL, OPT_CHAIN},
    {"provider", required_argument, NULL, OPT_PROVIDER},
    {"model", required_argument, NULL, 'm'},
    {"system", required_argument, NULL, 's'},
    {"conf", required_argument, NULL, OPT_CONF},
    {"json", no_argument, NULL, OPT_JSON},
    {"no-stream", no_argument, NULL, OPT_NO_STREAM},
    {"no-mock", no_argument, NULL, OPT_NO_MOCK},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"tools", required_argument, NULL, OPT_TOOLS},
    {"max-tool-rounds", required_argument, NULL, OPT_MAX_TOOL_ROUNDS},
    {"temperature", required_argument, NULL, OPT_TEMPERATURE},
    {"max-tokens", required_argument, NULL, OPT_MAX_TOKENS},
    {"stop", required_argument, NULL, OPT_STOP},
    {"schema", required_argument, NULL, OPT_SCHEMA},
    {"reasoning", required_argument, NULL, OPT_REASONING},
    {"attach", required_argument, NULL, 'a'},
    {"template", required_argument, NULL, 't'},
    {"continue", no_argument, NULL, 'c'},
    {"cid", required_argument, NULL, OPT_CID},
    {"no-log", no_argument, NULL, OPT_NO_LOG},
    {"record", required_argument, NULL, OPT_RECORD},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {NULL, 0, NULL, 0},
};

/* "+": options end at the first word of the prompt, as before getopt. */
static const char chat_shortopts[] = "+:m:s:vha:t:c";

/* The name of the option getopt just refused (for the message). */
static const char *refused_option(char **argv, int code, char buf[8])
{
    if (code == 0 || code >= 256 || optopt == 0 || optopt >= 256)
        return argv[optind - 1];
    snprintf(buf, 8, "-%c", optopt);
    return buf;
}

/* Appends one --tools value to o->tool_names. */
static int add_tool_names(chat_options *o, const char *value)
{
    size_t old = o->tool_names ? strlen(o->tool_names) : 0;
    char *joined = realloc(o->tool_names, old + strlen(value) + 2);
    if (!joined)
        return -1;
    if (old)
        joined[old++] = ',';
    strcpy(joined + old, value);
    o->tool_names = joined;
    return 0;
}

static int whole_number(const char *v, long long min, long long max, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end || n < min || n > max)
        return -1;
    *out = n;
    return 0;
}

/* --output: modality names joined by '+' ("text+audio"). */
int chat_output_modalities(const char *v, uint32_t *out)
{
    static const struct {
        const char *name;
        uint32_t bit;
    } names[] = {{"text", SEAM_MODALITY_TEXT}, {"image", SEAM_MODALITY_IMAGE},
                 {"audio", SEAM_MODALITY_AUDIO}, {"video", SEAM_MODALITY_VIDEO}};
    uint32_t bits = 0;
    while (*v) {
        size_t n = strcspn(v, "+");
        size_t k = 0;
        while (k < sizeof names / sizeof names[0] &&
               !(strlen(names[k].name) == n && strncmp(v, names[k].name, n) == 0))
            k++;
        if (k == sizeof names / sizeof names[0])
            return -1;
        bits |= names[k].bit;
        v += n;
        if (*v == '+' && !*++v)
            return -1;
    }
    if (!bits)
        return -1;
    *out = bits;
    return 0;
}

/* --reasoning: a level (low, medium, high) or a budget in tokens. The levels
 * are budgets a plugin maps to its provider's effort setting. */
int chat_reasoning_budget(const char *v, int64_t *out)
{
    static const struct {
        const char *name;
        int64_t budget;
    } levels[] = { {"low", 1024}, {"medium", 4096}, {"high", 16384} };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strcmp(v, levels[i].name) == 0) {
            *out = levels[i].budget;
            return 0;
        }
    long long n;
    if (whole_number(v, 1, INT32_MAX, &n) != 0)
        return -1;
    *out = n;
    return 0;
}

int parse_chat_args(int argc, char **argv, chat_options *o)
{
    /* Each repeatable option is listed at most argc times. */
    o->stops = calloc((size_t)argc + 1, sizeof *o->stops);
    o->attachments = calloc((size_t)argc + 1, sizeof *o->attachments);
    if (!o->stops || !o->attachments)
        return usage_error("chat: out of memory");
    /* getopt reads from argv[1]: hand it "chat" first. */
    char **args = argv - 1;
    int nargs = argc + 1;
    optind = 1;
    opterr = 0;
    int c;
    char buf[8];
    long long n;
    while ((c = getopt_long(nargs, args, chat_shortopts, chat_longopts, NULL)) != -1) {
        switch (c) {
        case OPT_CHAIN: o->chain = optarg; break;
        case OPT_PROVIDER: o->provider = optarg; break;
        case 'm': o->model = optarg; break;
        case 's': o->system = optarg; break;
        case OPT_CONF: o->conf = optarg; break;
        case OPT_JSON: o->json = 1; break;
        case OPT_NO_STREAM: o->no_stream = 1; break;
        case OPT_NO_MOCK: o->no_mock = 1; break;
        case 'v': o->verbose = 1; break;
        case 'h':
            fputs(help_text, stdout);
            return -1;
        case OPT_TOOLS:
            if (add_tool_names(o, optarg) != 0)
                return usage_error("chat: out of memory");
            break;
        case OPT_MAX_TOOL_ROUNDS:
            if (whole_number(optarg, 0, INT_MAX, &n) != 0)
                return usage_error("chat: --max-tool-rounds must be a whole number >= 0, not '%s'",
                                   optarg);
            o->max_tool_rounds = (int)n;
            break;
        case OPT_TEMPERATURE: {
            char *end = NULL;
            errno = 0;
            double t = strtod(optarg, &end);
            if (errno || end == optarg || *end || !isfinite(t) || t < 0 || t > 2)
                return usage_error("chat: --temperature must be a number from 0 to 2, not '%s'",
                                   optarg);
            o->have_temperature = 1;
            o->temperature = t;
            break;
        }
        case OPT_MAX_TOKENS:
            if (whole_number(optarg, 1, INT32_MAX, &n) != 0)
                return usage_error("chat: --max-tokens must be a whole number >= 1, not '%s'",
                                   optarg);
            o->max_tokens = n;
            break;
        case OPT_STOP:
            o->stops[o->n_stops++] = optarg;
            break;
        case OPT_SCHEMA: o->schema = optarg; break;
        case OPT_REASONING:
            if (chat_reasoning_budget(optarg, &o->reasoning_budget) != 0)
                return usage_error("chat: --reasoning must be low, medium, high or a number of "
                                   "tokens, not '%s'", optarg);
            break;
        case 'a': o->attachments[o->n_attachments++] = optarg; break;
        case 't': o->template_name = optarg; break;
        case 'c': o->continue_last = 1; break;
        case OPT_CID: o->cid = optarg; break;
        case OPT_NO_LOG: o->no_log = 1; break;
        case OPT_OUTPUT:
            if (chat_output_modalities(optarg, &o->output_modalities) != 0)
                return usage_error("chat: --output must be modalities joined by '+' (text, "
                                   "image, audio, video), not '%s'", optarg);
            break;
        case OPT_RECORD: /* libseam records every exchange under SEAM_RECORD (doc/cassettes.md) */
            if (setenv("SEAM_RECORD", optarg, 1) != 0)
                return usage_error("chat: out of memory");
            break;
        case ':':
            return usage_error("chat: %s needs a value", refused_option(args, c, buf));
        default:
            return usage_error("chat: unknown option '%s'", refused_option(args, c, buf));
        }
    }
    o->nwords = nargs - optind;
    o->words = args + optind;

    if (o->chain && (o->provider || o->model))
        return usage_error("chat: --chain cannot be combined with --provider/--model");
    /* --provider alone: the provider's default_model, or the library says
     * that no model was given. */
    if (o->max_tool_rounds >= 0 && !o->tool_names)
        return usage_error("chat: --max-tool-rounds needs --tools");
    if (o->continue_last && o->cid)
        return usage_error("chat: -c and --cid cannot be combined");
    return 0;
}

/* Reads a whole (small) file; NULL with errno set on failure. */
static char *read_file(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
        fclose(f);
        errno = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
        return NULL;
    }
    char *data = malloc((size_t)st.st_size + 1);
    size_t got = data ? fread(data, 1, (size_t)st.st_size, f) : 0;
    int bad = !data || ferror(f);
    fclose(f);
    if (bad) {
        free(data);
        errno = ENOMEM;
        return NULL;
    }
    data[got] = '\0';
    *len = got;
    return data;
}

/* Appends the attachments to the last message of req (the user's turn): a
 * file goes into the media store and is sent as its handle, its type sniffed
 * from its bytes (image, audio, video, PDF); a URL is sent as a URL
 * (media_cmd.c). The core applies the intake limits and resolves handles. */
static int add_attachments(const chat_options *o, seam_request *req)
{
    size_t nm = seam_request_message_count(req);
    seam_message *last = nm ? (seam_message *)seam_request_message(req, nm - 1) : NULL;
    for (size_t i = 0; i < o->n_attachments && last; i++) {
        seam_error err;
        seam_error_clear(&err);
        int code = media_attach(o->client, last, o->attachments[i], &err);
        if (code != EXIT_OK)
            return code;
    }
    return EXIT_OK;
}

/* --schema: a file holding a JSON Schema, or the schema itself. */
static int load_schema(chat_options *o)
{
    const char *s = o->schema;
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    if (*s == '{') {
        o->schema_json = strdup(o->schema);
    } else {
        size_t len = 0;
        o->schema_json = read_file(o->schema, 1024 * 1024, &len);
        if (!o->schema_json) {
            say("cannot read the schema %s: %s", o->schema, strerror(errno));
            return EXIT_USAGE;
        }
    }
    if (!o->schema_json)
        return say("out of memory"), EXIT_PROVIDER;
    json_object *v = json_tokener_parse(o->schema_json);
    int ok = v && json_object_is_type(v, json_type_object);
    json_object_put(v);
    if (!ok) {
        say("--schema: not a JSON Schema object: %s", o->schema);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int apply_request_options(chat_options *o, seam_request *req)
{
    if (o->system && seam_request_set_system(req, o->system) != SEAM_OK)
        return say("out of memory"), EXIT_PROVIDER;
    if (o->have_temperature && seam_request_set_temperature(req, o->temperature) != SEAM_OK)
        return usage_error("chat: --temperature %g refused", o->temperature);
    if (o->max_tokens && seam_request_set_max_tokens(req, o->max_tokens) != SEAM_OK)
        return usage_error("chat: --max-tokens refused");
    for (size_t i = 0; i < o->n_stops; i++)
        if (seam_request_add_stop(req, o->stops[i]) != SEAM_OK)
            return usage_error("chat: --stop '%s' refused", o->stops[i]);
    if (o->schema) {
        int code = o->schema_json ? EXIT_OK : load_schema(o);
        if (code != EXIT_OK)
            return code;
        if (seam_request_set_response_format(req, SEAM_FORMAT_JSON, NULL, o->schema_json, 1) !=
            SEAM_OK)
            return usage_error("chat: --schema refused");
    }
    if (o->reasoning_budget &&
        seam_request_set_reasoning_budget(req, o->reasoning_budget) != SEAM_OK)
        return usage_error("chat: --reasoning refused");
    if (o->output_modalities &&
        seam_request_set_output_modalities(req, o->output_modalities) != SEAM_OK)
        return usage_error("chat: --output refused");
    return add_attachments(o, req);
}

int check_schema_answer(chat_options *o, const char *text)
{
    if (!o->schema_json)
        return EXIT_OK;
    char why[512] = "";
    if (seam_schema_validate(o->schema_json, text ? text : "", why, sizeof why) == SEAM_OK)
        return EXIT_OK;
    say("the answer does not match --schema: %s", why[0] ? why : "not valid JSON");
    return EXIT_PROVIDER;
}

void chat_options_free(chat_options *o)
{
    free(o->stops);
    free(o->attachments);
    free(o->schema_json);
    free(o->tool_names);
    free(o->skipped);
    free(o->repl_model);
    free(o->repl_system);
    json_object_put(o->cli_settings);
}
