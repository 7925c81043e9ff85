/* tu_wire.c — what the fake server received, read back by a test
 * (tests/testutil.h): the last request's body as JSON, its path and headers,
 * values found by a dotted path, a body compared with a golden text or
 * member by member with a table, printing both when they differ; its
 * headers checked from a table; texts holding needles, in any order or in
 * order. */
#include "config.h"

#include "testutil.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_object *tu_last_body(fake_server *s)
{
    size_t n = fake_server_request_count(s);
    CU_ASSERT_FATAL(n > 0);
    json_object *o = json_tokener_parse(fake_server_request_body(s, n - 1));
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    return o;
}

const char *tu_last_header(fake_server *s, const char *name)
{
    size_t n = fake_server_request_count(s);
    return n ? fake_server_request_header(s, n - 1, name) : NULL;
}

const char *tu_last_path(fake_server *s)
{
    size_t n = fake_server_request_count(s);
    return n ? fake_server_request_path(s, n - 1) : "";
}

json_object *tu_json_at(json_object *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save)) {
        if (json_object_is_type(o, json_type_array)) {
            size_t i = (size_t)strtoul(tok, NULL, 10);
            o = i < json_object_array_length(o) ? json_object_array_get_idx(o, i) : NULL;
        } else if (!json_object_object_get_ex(o, tok, &o)) {
            return NULL;
        }
    }
    return o;
}

int tu_json_has(json_object *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *dot = strrchr(buf, '.');
    json_object *parent = o;
    const char *key = buf;
    if (dot) {
        *dot = '\0';
        parent = tu_json_at(o, buf);
        key = dot + 1;
    }
    /* A member holding null is there: tu_json_at alone cannot tell it from absent. */
    return json_object_is_type(parent, json_type_object) && json_object_object_get_ex(parent, key, NULL);
}

const char *tu_json_str(json_object *o, const char *path)
{
    json_object *v = tu_json_at(o, path);
    return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "(not a string)";
}

int64_t tu_json_int(json_object *o, const char *path)
{
    json_object *v = tu_json_at(o, path);
    return json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -999;
}

/* Compares, printing both on a difference (got may be NULL). */
static int same_json(json_object *got, json_object *want)
{
    int same = got && json_object_equal(want, got);
    if (!same)
        fprintf(stderr, "\nexpected %s\n     got %s\n",
                json_object_to_json_string_ext(want, JSON_C_TO_STRING_PLAIN),
                got ? json_object_to_json_string_ext(got, JSON_C_TO_STRING_PLAIN) : "(none)");
    return same;
}

int tu_json_equal(json_object *got, const char *want_text)
{
    json_object *want = json_tokener_parse(want_text);
    if (!want) {
        fprintf(stderr, "\nbad expected JSON in the test: %s\n", want_text);
        return 0;
    }
    int same = same_json(got, want);
    json_object_put(want);
    return same;
}

int tu_last_body_is(fake_server *s, const char *want_text)
{
    json_object *got = tu_last_body(s);
    json_object *want = json_tokener_parse(want_text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    int same = same_json(got, want);
    json_object_put(want);
    json_object_put(got);
    return same;
}

int tu_str_eq(const char *got, const char *want, const char *file, int line)
{
    if (got && want && strcmp(got, want) == 0)
        return 1;
    fprintf(stderr, "\n  %s:%d: got \"%s\", want \"%s\"\n", file, line, got ? got : "(null)",
            want ? want : "(null)");
    /* Counted as a failed assertion here, so that a bare TU_STR_EQ(...) statement
     * fails its test too (wrapped in CU_ASSERT it is counted twice, harmlessly). */
    CU_assertImplementation(CU_FALSE, (unsigned)line, "TU_STR_EQ", file, "", CU_FALSE);
    return 0;
}

const char tu_present[] = "(present)";

int tu_members_are(json_object *body, const tu_member *wants, const char *file, int line)
{
    int all = 1;
    for (; wants->path; wants++) {
        int ok;
        if (wants->want == TU_ABSENT)
            ok = !tu_json_has(body, wants->path);
        else if (wants->want == TU_PRESENT)
            ok = tu_json_has(body, wants->path);
        else
            ok = tu_json_equal(tu_json_at(body, wants->path), wants->want);
        if (!ok)
            fprintf(stderr, "\n  %s:%d: member %s: want %s\n", file, line, wants->path,
                    wants->want == TU_ABSENT ? "(absent)" : wants->want);
        CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, (unsigned)line, "TU_ASSERT_MEMBERS", file, "",
                                CU_FALSE);
        all &= ok;
    }
    return all;
}

int tu_contains_all(const char *text, const char *const *needles, const char *file, int line)
{
    int all = 1;
    for (; *needles; needles++) {
        int ok = text && strstr(text, *needles);
        if (!ok)
            fprintf(stderr, "\n  %s:%d: not in the text: %s\n", file, line, *needles);
        CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, (unsigned)line, "TU_ASSERT_CONTAINS", file, "",
                                CU_FALSE);
        all &= ok;
    }
    return all;
}

/* ---- dupcodec: the headers of the last request ------------------------------- */

int tu_headers_are(fake_server *s, const tu_member *wants, const char *file, int line)
{
    int all = 1;
    for (; wants->path; wants++) {
        const char *got = tu_last_header(s, wants->path);
        int ok = wants->want == TU_ABSENT ? !got
                 : wants->want == TU_PRESENT ? got != NULL
                 : got && strcmp(got, wants->want) == 0;
        if (!ok)
            fprintf(stderr, "\n  %s:%d: header %s: want %s, got %s\n", file, line, wants->path,
                    wants->want == TU_ABSENT ? "(absent)" : wants->want, got ? got : "(absent)");
        CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, (unsigned)line, "TU_ASSERT_HEADERS", file, "",
                                CU_FALSE);
        all &= ok;
    }
    return all;
}

/* ---- added on branch dupcore (issue 19: one harness for tests/) ---- */

int tu_contains_in_order(const char *text, const char *const *needles, const char *file, int line)
{
    if (!*needles)
        return 1;
    const char *first[] = { needles[0], NULL };
    int found = tu_contains_all(text, first, file, line);
    const char *at = text ? strstr(text, needles[0]) : NULL;
    /* The rest after it; after a missing one, from where it was looked for,
     * so that one gap fails one assertion. */
    int rest = tu_contains_in_order(at ? at : text, needles + 1, file, line);
    return found && rest;
}
