/* tokens.c — `seam tokens`: how many input tokens a prompt is for a model.
 * The provider's own count endpoint where its plugin has one, else seam's
 * local estimate (seam_count_tokens). Prints the number on stdout and, on
 * stderr, whether it is exact and for which provider and model; --json
 * prints one line {"type":"tokens",...} instead. Uses only <seam/seam.h>. */
#include "config.h"

#include "cli.h"
#include "json_out.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seam/seam.h>

static const char *const tokens_help =
    "Usage: seam [--conf FILE] tokens [--chain C | --provider P --model M | -m M]\n"
    "                                 [--system S] [--json] [-v] [PROMPT]\n"
    "\n"
    "Counts the input tokens of PROMPT (stdin when absent) for a model: the\n"
    "provider's own count endpoint where it has one (Anthropic, Gemini, OpenAI),\n"
    "else seam's local estimate. Prints the number; stderr says which it was.\n"
    "\n"
    "  --chain C            the first usable entry of chain C (default: the chain\n"
    "                       of role \"assistant\", else \"default\")\n"
    "  --provider P --model M\n"
    "                       the configured provider P with model M\n"
    "  -m, --model M        this model instead of the chain entry's\n"
    "  --system S           a system prompt, counted too\n"
    "  --json               one line {\"type\":\"tokens\",\"input_tokens\",\"exact\",\n"
    "                       \"provider\",\"model\",\"note\"} or {\"type\":\"error\",...}\n"
    "  -v, --verbose        the count endpoint's attempts on stderr\n";

static void tokens_on_attempt(void *ud, const seam_attempt *a)
{
    (void)ud;
    print_attempt_head(a, 0);
    fputc('\n', stderr);
}

static char *slurp_stdin(void)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (cap - len < 2) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger)
                break;
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, stdin);
        len += got;
        if (got == 0) {
            if (ferror(stdin))
                break;
            buf[len] = '\0';
            return buf;
        }
    }
    free(buf);
    return NULL;
}

static int print_json(const seam_token_count *tc)
{
    json_object *o = json_object_new_object();
    int bad = !o;
    bad |= json_object_object_add(o, "type", json_object_new_string("tokens")) != 0;
    bad |= json_object_object_add(o, "input_tokens", json_object_new_int64(tc->input_tokens)) != 0;
    bad |= json_object_object_add(o, "exact", json_object_new_boolean(tc->exact)) != 0;
    bad |= json_object_object_add(o, "provider", json_object_new_string(tc->provider)) != 0;
    bad |= json_object_object_add(o, "model", json_object_new_string(tc->model)) != 0;
    if (!tc->exact)
        bad |= json_object_object_add(o, "note", json_object_new_string(tc->note)) != 0;
    errno = 0;
    const char *s = bad ? NULL
                        : json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = s && errno != ENOMEM && puts(s) >= 0 && fflush(stdout) == 0 ? 0 : -1;
    json_object_put(o);
    return rc;
}

int cmd_tokens(const char *conf, int argc, char **argv)
{
    target_opts o;
    int done = parse_target_opts("tokens", tokens_help, "--system", argc, argv, &o);
    if (done >= 0)
        return done;
    char *prompt = o.first < argc ? join_words(argc - o.first, argv + o.first)
                                     : slurp_stdin();
    if (!prompt) {
        fputs("seam: cannot read the prompt\n", stderr);
        return EXIT_USAGE;
    }
    seam_request *req = seam_request_new();
    int rc = req ? seam_request_add_user_text(req, prompt) : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK && o.extra)
        rc = seam_request_set_system(req, o.extra);
    free(prompt);
    if (rc != SEAM_OK) {
        seam_request_free(req);
        fputs("seam: out of memory\n", stderr);
        return EXIT_PROVIDER;
    }

    seam_client *client = NULL;
    seam_error err;
    int code = open_client(conf, &client, &err);
    if (code != EXIT_OK) {
        seam_request_free(req);
        return code;
    }
    seam_call_options opts = target_call_options(&o, tokens_on_attempt);
    seam_token_count tc;
    memset(&tc, 0, sizeof tc);
    tc.size = sizeof tc;
    rc = seam_count_tokens(client, req, &opts, &tc, &err);
    int exit_code = EXIT_OK;
    if (rc != SEAM_OK) {
        if (o.json)
            json_out_error(stdout, &err);
        else
            print_error(&err);
        exit_code = rc == SEAM_ERR_NOMEM ? EXIT_PROVIDER : EXIT_USAGE;
    } else if (o.json) {
        if (print_json(&tc) != 0)
            exit_code = EXIT_PROVIDER;
    } else {
        printf("%lld\n", (long long)tc.input_tokens);
        if (fflush(stdout) != 0)
            exit_code = EXIT_PROVIDER;
        if (tc.exact)
            fprintf(stderr, "tokens: %lld, counted by the provider  provider: %s  model: %s\n",
                    (long long)tc.input_tokens, tc.provider, tc.model);
        else
            fprintf(stderr, "tokens: about %lld, estimated (%s)  provider: %s  model: %s\n",
                    (long long)tc.input_tokens, tc.note, tc.provider, tc.model);
    }
    seam_request_free(req);
    seam_client_free(client);
    return exit_code;
}
