/* embed.c — `seam embed`: embeds each TEXT argument (or each non-empty line
 * of stdin) through the conf's embedding chain or one provider, and prints
 * one vector per input as a JSON array on its own line, in input order, with
 * a usage line on stderr (inputs, dimensions, tokens, cost, provider, model).
 * --json prints one line {"type":"embeddings",...} instead, or the error line
 * of `seam chat --json`. Uses only <seam/seam.h>. */
#include "config.h"

#include "cli.h"
#include "json_out.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <seam/seam.h>

static const char *const embed_help =
    "Usage: seam [--conf FILE] embed [--chain C | --provider P --model M | -m M]\n"
    "                                [--dimensions N] [--json] [-v] [TEXT...]\n"
    "\n"
    "Embeds each TEXT (or each non-empty line of stdin when there is none) and\n"
    "prints one vector per input, as a JSON array on a line of its own, in order.\n"
    "A usage line (inputs, dimensions, tokens, cost, provider, model) goes to stderr.\n"
    "\n"
    "  --chain C            the chain C (default: the chain of role \"embed\", else\n"
    "                       the chain named \"embed\")\n"
    "  --provider P --model M\n"
    "                       the configured provider P with model M only\n"
    "  -m, --model M        this model for every entry of the chain\n"
    "  --dimensions N       ask for vectors of N values (models that can shorten them)\n"
    "  --json               one line {\"type\":\"embeddings\",\"provider\",\"model\",\n"
    "                       \"dimensions\",\"data\":[{\"index\",\"embedding\"}],\"usage\"}\n"
    "                       or {\"type\":\"error\",...}\n"
    "  -v, --verbose        every attempt of the chain on stderr (skips say why)\n";

static void embed_cost(int64_t microcents, char *buf, size_t size)
{
    uint64_t v = microcents < 0 ? 0 : (uint64_t)microcents;
    char frac[16];
    snprintf(frac, sizeof frac, "%08llu", (unsigned long long)(v % 100000000u));
    size_t n = strlen(frac);
    while (n > 2 && frac[n - 1] == '0')
        frac[--n] = '\0';
    snprintf(buf, size, "$%llu.%s", (unsigned long long)(v / 100000000u), frac);
}

static void embed_on_attempt(void *ud, const seam_attempt *a)
{
    (void)ud;
    print_attempt_head(a, 1);
    if (a->wait_ms > 0)
        fprintf(stderr, "; retrying in %lld ms", (long long)a->wait_ms);
    fputc('\n', stderr);
}

/* Each non-empty line of stdin becomes an input. */
static int read_lines(seam_embed_request *er)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int rc = SEAM_OK;
    while (rc == SEAM_OK && (got = getline(&line, &cap, stdin)) >= 0) {
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = '\0';
        if (got > 0)
            rc = seam_embed_request_add_text(er, line);
    }
    free(line);
    return ferror(stdin) ? SEAM_ERR_INVALID : rc;
}

/* A float as the shortest text that reads back as the same float. */
static json_object *float_json(float f)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.9g", (double)f);
    return json_object_new_double_s((double)f, buf);
}

static json_object *vector_json(const float *v, size_t dims)
{
    json_object *a = json_object_new_array();
    for (size_t k = 0; a && k < dims; k++)
        if (json_object_array_add(a, float_json(v[k])) != 0)
            return json_object_put(a), NULL;
    return a;
}

static int print_line(json_object *o)
{
    errno = 0;
    const char *s = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                             JSON_C_TO_STRING_NOSLASHESCAPE)
                      : NULL;
    int ok = s && errno != ENOMEM && puts(s) >= 0 && fflush(stdout) == 0;
    return ok ? 0 : -1;
}

static int print_json(const seam_embeddings *e)
{
    size_t dims = 0;
    seam_embeddings_vector(e, 0, &dims);
    json_object *o = json_object_new_object();
    json_object *data = json_object_new_array();
    int bad = !o || !data;
    const char *provider = seam_embeddings_provider(e), *model = seam_embeddings_model(e);
    bad |= json_object_object_add(o, "type", json_object_new_string("embeddings")) != 0;
    bad |= json_object_object_add(o, "provider", provider ? json_object_new_string(provider) : NULL) != 0;
    bad |= json_object_object_add(o, "model", model ? json_object_new_string(model) : NULL) != 0;
    bad |= json_object_object_add(o, "dimensions", json_object_new_int64((int64_t)dims)) != 0;
    for (size_t i = 0; !bad && i < seam_embeddings_count(e); i++) {
        size_t d = 0;
        const float *v = seam_embeddings_vector(e, i, &d);
        json_object *item = json_object_new_object();
        bad |= !item || json_object_array_add(data, item) != 0;
        bad |= json_object_object_add(item, "index", json_object_new_int64((int64_t)i)) != 0;
        bad |= json_object_object_add(item, "embedding", vector_json(v, d)) != 0;
    }
    bad |= json_object_object_add(o, "data", data) != 0;
    const seam_usage *u = seam_embeddings_usage(e);
    json_object *usage = json_object_new_object();
    if (u->present & SEAM_USAGE_INPUT)
        bad |= json_object_object_add(usage, "input_tokens", json_object_new_int64(u->input_tokens)) != 0;
    if (u->present & SEAM_USAGE_COST)
        bad |= json_object_object_add(usage, "cost_microcents",
                                      json_object_new_int64(u->cost_microcents)) != 0;
    bad |= json_object_object_add(o, "usage", usage) != 0;
    int rc = bad ? -1 : print_line(o);
    json_object_put(o);
    return rc;
}

static int print_text(const seam_embeddings *e)
{
    for (size_t i = 0; i < seam_embeddings_count(e); i++) {
        size_t d = 0;
        const float *v = seam_embeddings_vector(e, i, &d);
        json_object *a = vector_json(v, d);
        int rc = print_line(a);
        json_object_put(a);
        if (rc != 0)
            return -1;
    }
    size_t dims = 0;
    seam_embeddings_vector(e, 0, &dims);
    const seam_usage *u = seam_embeddings_usage(e);
    fprintf(stderr, "embeddings: %zu x %zu  tokens: in ", seam_embeddings_count(e), dims);
    if (u->present & SEAM_USAGE_INPUT)
        fprintf(stderr, "%lld", (long long)u->input_tokens);
    else
        fputc('?', stderr);
    if (u->present & SEAM_USAGE_COST) {
        char cost[48];
        embed_cost(u->cost_microcents, cost, sizeof cost);
        fprintf(stderr, "  cost: %s", cost);
    }
    if (seam_embeddings_provider(e))
        fprintf(stderr, "  provider: %s", seam_embeddings_provider(e));
    if (seam_embeddings_model(e))
        fprintf(stderr, "  model: %s", seam_embeddings_model(e));
    fputc('\n', stderr);
    return 0;
}

int cmd_embed(const char *conf, int argc, char **argv)
{
    target_opts o;
    int done = parse_target_opts("embed", embed_help, "--dimensions", argc, argv, &o);
    if (done >= 0)
        return done;
    long long dims = 0;
    if (o.extra) {
        char *end = NULL;
        errno = 0;
        dims = strtoll(o.extra, &end, 10);
        if (errno || !end || *end || dims <= 0) {
            fprintf(stderr, "seam: --dimensions needs a positive number, not '%s'\n", o.extra);
            return EXIT_USAGE;
        }
    }

    seam_embed_request *er = seam_embed_request_new();
    int rc = er ? SEAM_OK : SEAM_ERR_NOMEM;
    for (int i = o.first; rc == SEAM_OK && i < argc; i++)
        rc = seam_embed_request_add_text(er, argv[i]);
    if (rc == SEAM_OK && o.first >= argc)
        rc = read_lines(er);
    if (rc == SEAM_OK && dims)
        rc = seam_embed_request_set_dimensions(er, dims);
    if (rc != SEAM_OK) {
        say("%s", rc == SEAM_ERR_NOMEM               ? "out of memory"
                  : dims && rc == SEAM_ERR_INVALID ? "--dimensions is too large"
                                                   : "cannot read the input");
        seam_embed_request_free(er);
        return rc == SEAM_ERR_NOMEM ? EXIT_PROVIDER : EXIT_USAGE;
    }
    if (seam_embed_request_count(er) == 0) {
        seam_embed_request_free(er);
        fputs("seam: nothing to embed: give TEXT arguments or lines on stdin\n", stderr);
        return EXIT_USAGE;
    }

    seam_client *client = NULL;
    seam_error err;
    int code = open_client(conf, &client, &err);
    if (code != EXIT_OK) {
        seam_embed_request_free(er);
        return code;
    }
    seam_call_options opts = target_call_options(&o, embed_on_attempt);
    seam_embeddings *e = NULL;
    rc = seam_embed(client, er, &opts, &e, &err);
    int exit_code = EXIT_OK;
    if (rc != SEAM_OK) {
        if (o.json)
            json_out_error(stdout, &err);
        else
            print_error(&err);
        exit_code = err.kind == SEAM_ERROR_CONF || rc == SEAM_ERR_NOT_FOUND || rc == SEAM_ERR_INVALID
                        ? EXIT_USAGE
                        : EXIT_PROVIDER;
    } else if ((o.json ? print_json(e) : print_text(e)) != 0) {
        say("cannot write the output");
        exit_code = EXIT_PROVIDER;
    }
    seam_embeddings_free(e);
    seam_embed_request_free(er);
    seam_client_free(client);
    return exit_code;
}
