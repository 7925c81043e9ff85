/* token_error.c — measures seam_estimate_tokens against the token counts
 * providers reported: `make token-error CORPUS=DIR` runs it on a recorded
 * stream corpus (DIR/<family>/<name>.expected.json, as in
 * ../shared/fixtures/wire) and prints one line per recording and a summary;
 * doc/tokens.md quotes the figures.
 *
 * The corpus holds answers, not requests, so what is estimated is the answer:
 * its text, its visible reasoning and its tool calls as an assistant message
 * (the message's own framing taken off), against the output tokens the
 * provider billed. Reasoning the provider kept hidden (Gemini's thoughts:
 * counted in reasoning_tokens, no text) is taken off the real count too. The
 * same estimate counts a request's input, text for text. Bytes / 4, seam's
 * former estimate, is printed beside it. */
#include "config.h"

#include <dirent.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seam/seam.h>

static int64_t get_int(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

static const char *get_str(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : "";
}

/* The estimate of m's content: a request holding it, less one holding an
 * empty message of the same role. */
static int64_t content_estimate(const seam_message *m)
{
    seam_request *with = seam_request_new(), *without = seam_request_new();
    seam_request_add_message(with, seam_message_dup(m));
    seam_request_add_message(without, seam_message_new(seam_message_role(m)));
    int64_t n = seam_estimate_tokens(with) - seam_estimate_tokens(without);
    seam_request_free(with);
    seam_request_free(without);
    return n;
}

typedef struct stats {
    int n;
    double abs_sum, min, max;
    int64_t est_sum, real_sum;
} stats;

static void add(stats *s, int64_t est, int64_t real)
{
    double e = (double)(est - real) / (double)real;
    if (!s->n || e < s->min)
        s->min = e;
    if (!s->n || e > s->max)
        s->max = e;
    s->abs_sum += fabs(e);
    s->est_sum += est;
    s->real_sum += real;
    s->n++;
}

static void summary(const char *what, const stats *s)
{
    if (!s->n)
        return;
    printf("%-28s %2d recordings  mean |error| %5.1f%%  min %+6.1f%%  max %+6.1f%%  total %lld / %lld "
           "(%+.1f%%)\n",
           what, s->n, 100 * s->abs_sum / s->n, 100 * s->min, 100 * s->max, (long long)s->est_sum,
           (long long)s->real_sum, 100.0 * (double)(s->est_sum - s->real_sum) / (double)s->real_sum);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: token_error CORPUS_DIR\n");
        return 2;
    }
    const char *families[] = {"anthropic", "gemini", "openai"};
    stats est_all = {0}, est_prose = {0}, est_tools = {0}, b4_all = {0}, b4_prose = {0};
    printf("%-44s %6s %6s %7s %6s %7s\n", "recording", "real", "seam", "error", "b/4", "error");
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", argv[1], families[f]);
        DIR *d = opendir(dir);
        if (!d)
            continue;
        char **names = NULL;
        size_t n = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
            size_t len = strlen(de->d_name);
            if (len > 14 && strcmp(de->d_name + len - 14, ".expected.json") == 0) {
                names = realloc(names, (n + 1) * sizeof *names);
                names[n++] = strdup(de->d_name);
            }
        }
        closedir(d);
        qsort(names, n, sizeof *names, by_name);
        for (size_t i = 0; i < n; i++) {
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            json_object *root = json_object_from_file(path);
            json_object *usage = NULL, *calls = NULL;
            json_object_object_get_ex(root, "usage", &usage);
            json_object_object_get_ex(root, "tool_calls", &calls);
            const char *text = get_str(root, "text"), *reasoning = get_str(root, "reasoning");
            int64_t real = get_int(usage, "output_tokens");
            if (!*reasoning)
                real -= get_int(usage, "reasoning_tokens"); /* hidden thoughts */
            seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
            size_t bytes = strlen(text) + strlen(reasoning);
            if (*reasoning)
                seam_message_add_reasoning(m, reasoning, NULL, 0);
            if (*text)
                seam_message_add_text(m, text);
            size_t ncalls = calls ? json_object_array_length(calls) : 0;
            for (size_t k = 0; k < ncalls; k++) {
                json_object *c = json_object_array_get_idx(calls, k), *args = NULL;
                json_object_object_get_ex(c, "args", &args);
                const char *a = json_object_to_json_string_ext(args, JSON_C_TO_STRING_PLAIN);
                seam_message_add_tool_call(m, "id", get_str(c, "name"), a);
                bytes += strlen(get_str(c, "name")) + strlen(a);
            }
            if (real > 0 && seam_message_part_count(m) > 0) {
                int64_t est = content_estimate(m);
                int64_t b4 = (int64_t)((bytes + 3) / 4);
                names[i][strlen(names[i]) - 14] = '\0';
                char label[256];
                snprintf(label, sizeof label, "%s/%s", families[f], names[i]);
                printf("%-44s %6lld %6lld %+6.1f%% %6lld %+6.1f%%\n", label, (long long)real,
                       (long long)est, 100.0 * (double)(est - real) / (double)real, (long long)b4,
                       100.0 * (double)(b4 - real) / (double)real);
                add(&est_all, est, real);
                add(&b4_all, b4, real);
                add(ncalls ? &est_tools : &est_prose, est, real);
                if (!ncalls)
                    add(&b4_prose, b4, real);
            }
            seam_message_free(m);
            json_object_put(root);
            free(names[i]);
        }
        free(names);
    }
    printf("\n");
    summary("seam, all", &est_all);
    summary("seam, prose only", &est_prose);
    summary("seam, with tool calls", &est_tools);
    summary("bytes / 4, all", &b4_all);
    summary("bytes / 4, prose only", &b4_prose);
    return est_all.n ? 0 : 1;
}
