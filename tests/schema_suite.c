/* schema_suite.c — runs seam_schema_validate() against the official
 * JSON-Schema-Test-Suite (draft 2020-12) and prints the pass rate.
 *
 *   schema_suite DIR              the keywords the validator covers
 *   schema_suite DIR FILE.json... those files only
 *   schema_suite -v DIR ...       also list every failing case
 *
 * DIR is the suite's tests/draft2020-12 directory. The "covered" set is the
 * keyword files named in doc/generate.md; the run also reports, apart, the
 * other keyword files the validator handles. Exit status: 0 when every file
 * was read (the rate is information, not a verdict), 1 when a file is missing
 * or unreadable, 2 on bad usage. */
#include "config.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seam/seam.h>

static const char *const covered[] = {
    "type.json", "properties.json", "required.json", "additionalProperties.json",
    "items.json", "prefixItems.json", "enum.json", "const.json", "minimum.json",
    "maximum.json", "exclusiveMinimum.json", "exclusiveMaximum.json", "minLength.json",
    "maxLength.json", "pattern.json", "anyOf.json", "oneOf.json", "allOf.json", "not.json",
    "boolean_schema.json",
};

static const char *const extra[] = {
    "multipleOf.json", "minItems.json", "maxItems.json", "uniqueItems.json", "contains.json",
    "minContains.json", "maxContains.json", "minProperties.json", "maxProperties.json",
    "patternProperties.json", "propertyNames.json", "dependentRequired.json",
    "dependentSchemas.json", "if-then-else.json", "defs.json", "ref.json",
};

typedef struct tally {
    int passed, total;
} tally;

static int verbose;

/* The member key of o, or NULL. */
static json_object *member(json_object *o, const char *key)
{
    json_object *v = NULL;
    json_object_object_get_ex(o, key, &v);
    return v;
}

/* Runs one suite file; -1 when it cannot be read. */
static int run_file(const char *dir, const char *name, tally *t)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_object *groups = json_object_from_file(path);
    if (!groups || !json_object_is_type(groups, json_type_array)) {
        fprintf(stderr, "schema_suite: cannot read %s\n", path);
        json_object_put(groups);
        return -1;
    }
    tally f = { 0, 0 };
    for (size_t g = 0; g < json_object_array_length(groups); g++) {
        json_object *group = json_object_array_get_idx(groups, g);
        json_object *schema = member(group, "schema"), *tests = member(group, "tests"),
                    *gdesc = member(group, "description");
        const char *schema_text = json_object_to_json_string_ext(schema, JSON_C_TO_STRING_PLAIN);
        char *schema_copy = strdup(schema_text ? schema_text : "null");
        for (size_t i = 0; tests && i < json_object_array_length(tests); i++) {
            json_object *tc = json_object_array_get_idx(tests, i);
            json_object *data = member(tc, "data"), *valid = member(tc, "valid"),
                        *tdesc = member(tc, "description");
            const char *data_text = json_object_to_json_string_ext(data, JSON_C_TO_STRING_PLAIN);
            char msg[512];
            int rc = seam_schema_validate(schema_copy, data_text, msg, sizeof msg);
            int want = json_object_get_boolean(valid);
            int ok = (rc == SEAM_OK) == want;
            f.total++;
            f.passed += ok;
            if (!ok && verbose)
                printf("  FAIL %s: %s / %s (want %s; %s)\n", name, json_object_get_string(gdesc),
                       json_object_get_string(tdesc), want ? "valid" : "invalid",
                       rc == SEAM_OK ? "accepted" : msg);
        }
        free(schema_copy);
    }
    json_object_put(groups);
    printf("%-28s %4d / %4d\n", name, f.passed, f.total);
    t->passed += f.passed;
    t->total += f.total;
    return 0;
}

static void print_rate(const char *what, const tally *t)
{
    printf("%s: %d / %d passed (%.1f%%)\n", what, t->passed, t->total,
           t->total ? 100.0 * t->passed / t->total : 0.0);
}

int main(int argc, char **argv)
{
    int a = 1;
    if (a < argc && strcmp(argv[a], "-v") == 0) {
        verbose = 1;
        a++;
    }
    if (a >= argc) {
        fprintf(stderr, "usage: schema_suite [-v] DIR [FILE.json...]\n");
        return 2;
    }
    const char *dir = argv[a++];
    int failed = 0;
    tally t = { 0, 0 };
    if (a < argc) {
        for (; a < argc; a++)
            failed |= run_file(dir, argv[a], &t) != 0;
        print_rate("selected keywords", &t);
        return failed;
    }
    for (size_t i = 0; i < sizeof covered / sizeof covered[0]; i++)
        failed |= run_file(dir, covered[i], &t) != 0;
    print_rate("covered keywords", &t);
    tally x = { 0, 0 };
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
        failed |= run_file(dir, extra[i], &x) != 0;
    print_rate("other keywords handled", &x);
    return failed;
}
