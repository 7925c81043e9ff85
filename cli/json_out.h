/* json_out.h — the `seam chat --json` output: one JSON object per line for each
 * stream chunk, the final `result` line, and the `error` line. The shapes are a
 * public contract (issue 2); json_out.c is the only place that spells them. */
#ifndef SEAM_CLI_JSON_OUT_H
#define SEAM_CLI_JSON_OUT_H

#include <stdio.h>
#include <seam/seam.h>

/* Each function writes one complete line ("{...}\n") to out and flushes it.
 * Returns 0, or -1 when the line could not be built or written. */

/* A stream chunk, e.g. {"type":"text_delta","text":"Hel"}. An error chunk is
 * written as the error line. */
int json_out_chunk(FILE *out, const seam_chunk *chunk);

/* {"type":"result","provider":...,"model":...,"content":[...],"stop_reason":...,
 *  "usage":{...}} */
int json_out_result(FILE *out, const seam_result *res);

/* {"type":"error","error":{"kind":...,"retryable":...,"status":...,"provider":...,
 *  "message":...}} ("code" added when the error has one). */
int json_out_error(FILE *out, const seam_error *err);

#endif /* SEAM_CLI_JSON_OUT_H */
