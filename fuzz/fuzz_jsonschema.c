/* fuzz_jsonschema.c — a libFuzzer harness for the JSON-Schema validator: the
 * input is a schema, then NUL, then instances separated by NUL. The schema is
 * compiled once (seam_compiled_schema_new, as a toolset does) and each
 * instance validated against it; for one input in four the first one again
 * through the one-shot seam_schema_validate. An input starting with byte 0x01 is instead a
 * raw pattern: it is wrapped as {"pattern": P, "patternProperties": {P: ...}}
 * and the instances as strings and property names, so that the fuzzer reaches
 * the regular-expression engine without having to write JSON. Whatever the
 * bytes, the validator must return a status, within the match limits, and
 * never crash, leak or read out of bounds. Built by fuzz/run.sh. */
#include "config.h"

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_INSTANCES 8

/* A JSON string literal of bytes [s, s+n) (json-c escapes what it must). */
static char *quote(const char *s, size_t n)
{
    json_object *o = json_object_new_string_len(s, (int)n);
    const char *t = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : NULL;
    char *copy = t ? strdup(t) : NULL;
    json_object_put(o);
    return copy;
}

static void run(const char *schema, const char *const *inst, size_t n, int one_shot)
{
    char msg[512];
    seam_compiled_schema *cs = NULL;
    if (seam_compiled_schema_new(schema, &cs, msg, sizeof msg) == SEAM_OK) {
        for (size_t i = 0; i < n; i++)
            seam_compiled_schema_validate(cs, inst[i], msg, sizeof msg);
        seam_compiled_schema_free(cs);
    }
    if (one_shot)
        seam_schema_validate(schema, n ? inst[0] : "null", msg, sizeof msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int raw = size > 0 && data[0] == 0x01;
    if (raw) {
        data++;
        size--;
    }
    /* Split on NUL: part 0 the schema (or pattern), the rest instances. */
    const char *parts[MAX_INSTANCES + 1];
    size_t lens[MAX_INSTANCES + 1], n = 0, start = 0;
    for (size_t i = 0; i <= size && n < MAX_INSTANCES + 1; i++) {
        if (i == size || data[i] == 0) {
            parts[n] = (const char *)data + start;
            lens[n++] = i - start;
            start = i + 1;
        }
    }
    char *owned[2 * MAX_INSTANCES + 2] = { 0 };
    size_t nowned = 0;
    const char *inst[2 * MAX_INSTANCES];
    size_t ninst = 0;
    char *schema = NULL;
    if (raw) {
        char *pat = quote(parts[0], lens[0]);
        if (pat && asprintf(&schema, "{\"pattern\":%s,\"patternProperties\":{%s:{\"type\":\"null\"}}}",
                            pat, pat) < 0)
            schema = NULL;
        free(pat);
        for (size_t i = 1; i < n; i++) {
            char *q = quote(parts[i], lens[i]);
            char *obj = NULL;
            if (q && asprintf(&obj, "{%s:1}", q) < 0)
                obj = NULL;
            if (q)
                inst[ninst++] = owned[nowned++] = q;
            if (obj)
                inst[ninst++] = owned[nowned++] = obj;
        }
    } else {
        schema = strndup(parts[0], lens[0]);
        for (size_t i = 1; i < n; i++) {
            char *t = strndup(parts[i], lens[i]);
            if (t)
                inst[ninst++] = owned[nowned++] = t;
        }
    }
    if (schema)
        run(schema, inst, ninst, size % 4 == 0); /* the one-shot path is the same code: now and then */
    free(schema);
    for (size_t i = 0; i < nowned; i++)
        free(owned[i]);
    return 0;
}
