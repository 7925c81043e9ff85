/* corpus.h — the recorded-stream corpus format, shared by tests/conformance
 * and seam-plugin-check: framing a `*.chunks.txt` as its family's server
 * would, and comparing a result with its `*.expected.json`. */
#ifndef SEAM_CHECK_CORPUS_H
#define SEAM_CHECK_CORPUS_H

#include <json-c/json.h>
#include <stddef.h>
#include <seam/seam.h>

/* Differences found, one indented line each. */
typedef struct corpus_report {
    char text[8192];
    int count;
} corpus_report;

#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
void corpus_differ(corpus_report *r, const char *fmt, ...);

/* The chunks file (one event payload a line) as a server of family
 * "openai", "anthropic" or "gemini" sends it (corpus README's table); any
 * other family is framed as openai without the [DONE]. malloc'ed, NULL
 * without memory; its length in *out_len. */
char *corpus_frame(const char *family_name, const char *chunks, size_t *out_len);

/* Compares res with an expected object: text, reasoning, client tool calls,
 * stop_reason and each usage count it names. */
void corpus_compare(corpus_report *r, json_object *expected, const seam_result *res);

#endif
