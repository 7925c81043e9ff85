/* json_out.h — the `seam chat --json` output: one JSON object per line for each
 * stream chunk, the final `result` line (with "steps" after a tool loop), and
 * the `error` line. The shapes are a public contract (issues 2 and 7);
 * json_out.c is the only place that spells them. */
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

/* A tool_result chunk of a call the application ran itself (the tool loop of
 * `seam chat --tools`): as json_out_chunk writes one out of a plugin, but
 * without "provider_executed" (which appears only when true). */
int json_out_client_tool_result(FILE *out, const seam_chunk *chunk);

/* {"type":"step_finish","step":N,"stop_reason":...,"usage":{...}}: the tool
 * loop's step N (0-based) ended and the next one starts. */
int json_out_step_finish(FILE *out, const seam_chunk *chunk, size_t step);

/* {"type":"error","error":{"kind":...,"retryable":...,"status":...,"provider":...,
 *  "message":...}} ("code" added when the error has one). */
int json_out_error(FILE *out, const seam_error *err);
/* 1 once any line could not be written whole (out of memory, a write error):
 * the output is then not the answer, and seam chat must not exit 0. */
int json_out_failed(void);

/* The attempts of a call, collected from its on_attempt observer, for the
 * result line's "attempts":[{"provider","model","outcome","error"?,"wait_ms"?,
 * "usage"?}] ("error" as in the error line; "wait_ms" when the chain waited
 * after the attempt, or the rate-limit guard before it; "usage" when the
 * attempt reported one, its cost included when the model is priced). */
typedef struct json_attempts json_attempts;
json_attempts *json_attempts_new(void);
void json_attempts_add(json_attempts *a, const seam_attempt *attempt);
void json_attempts_free(json_attempts *a);
/* json_out_result with "attempts" (attempts may be NULL: no such member). */
int json_out_result_with(FILE *out, const seam_result *res, const json_attempts *attempts);

/* The result line of a run with the tool loop: the last turn's result as
 * json_out_result_with writes it, but with "usage" summed over every turn, and
 * "steps":[{"tool_calls":[tool_call parts],"tool_results":[tool_result parts],
 * "usage":{...}}, ...], one per model turn. -1 when g has no turn. */
int json_out_generation(FILE *out, const seam_generation *g, const json_attempts *attempts);

#endif /* SEAM_CLI_JSON_OUT_H */
