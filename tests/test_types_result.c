/* test_types_result.c — unit tests of result.c: seam_result and the chunk
 * accumulator (text, reasoning, interleaved tool calls, stop and usage, error
 * chunks, provider-executed tool results, media, a whole turn fed back into
 * a request). */
#include "config.h"
#include "internal.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tu_types.h"

/* ---- the accumulator ------------------------------------------------------------- */

static seam_chunk chunk_of(seam_chunk_type type)
{
    seam_chunk c;
    memset(&c, 0, sizeof c);
    c.type = type;
    return c;
}

static int fold_text(seam_result *res, const char *text)
{
    seam_chunk c = chunk_of(SEAM_CHUNK_TEXT_DELTA);
    c.text = text;
    return seam_result_add_chunk(res, &c);
}

static int fold_id_text(seam_result *res, seam_chunk_type type, const char *id, const char *text)
{
    seam_chunk c = chunk_of(type);
    c.id = id;
    c.text = text;
    return seam_result_add_chunk(res, &c);
}

static int fold_call_start(seam_result *res, const char *id, const char *name)
{
    seam_chunk c = chunk_of(SEAM_CHUNK_TOOL_CALL_START);
    c.id = id;
    c.name = name;
    return seam_result_add_chunk(res, &c);
}

static int fold_call_end(seam_result *res, const char *id, const char *args_json)
{
    seam_chunk c = chunk_of(SEAM_CHUNK_TOOL_CALL_END);
    c.id = id;
    c.args_json = args_json;
    return seam_result_add_chunk(res, &c);
}

static int fold_stop(seam_result *res, seam_stop_reason reason, const seam_usage *usage)
{
    seam_chunk c = chunk_of(SEAM_CHUNK_STOP);
    c.stop_reason = reason;
    if (usage)
        c.usage = *usage;
    return seam_result_add_chunk(res, &c);
}

/* A chunk of a media part or of a tool's result as the fields a test sets. */
static seam_chunk media_chunk(seam_chunk_type type, const char *id, const char *mime_type, const char *text)
{
    seam_chunk c = chunk_of(type);
    c.id = id;
    c.mime_type = mime_type;
    c.text = text;
    return c;
}

static seam_chunk result_chunk(const char *id, const char *name, const char *result_json, int is_error)
{
    seam_chunk c = chunk_of(SEAM_CHUNK_TOOL_RESULT);
    c.id = id;
    c.name = name;
    c.result_json = result_json;
    c.is_error = is_error;
    return c;
}

/* c is refused (SEAM_ERR_INVALID) and the message keeps the parts it had:
 * two assertions. */
static void refused_unchanged(seam_result *res, const seam_chunk *c)
{
    size_t before = seam_message_part_count(seam_result_message(res));
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, c), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_part_count(seam_result_message(res)), before);
}

static void test_result_new_free(void)
{
    seam_result *res = seam_result_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(res);
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 0);
    CU_ASSERT_STRING_EQUAL(seam_result_text(res), "");
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_NONE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(seam_result_usage(res));
    CU_ASSERT_EQUAL(seam_result_usage(res)->present, 0);
    CU_ASSERT_PTR_NULL(seam_result_error(res));
    CU_ASSERT_PTR_NULL(seam_result_provider(res));
    CU_ASSERT_PTR_NULL(seam_result_model(res));
    CU_ASSERT_EQUAL(seam_result_incomplete(res), 0);

    CU_ASSERT_EQUAL(seam_result_set_origin(res, "deepseek", "deepseek-chat"), SEAM_OK);
    ASSERT_STR(seam_result_provider(res), "deepseek");
    ASSERT_STR(seam_result_model(res), "deepseek-chat");
    CU_ASSERT_EQUAL(seam_result_set_origin(res, "other", NULL), SEAM_OK);
    ASSERT_STR(seam_result_provider(res), "other");
    CU_ASSERT_PTR_NULL(seam_result_model(res));
    seam_result_set_incomplete(res, 5);
    CU_ASSERT_EQUAL(seam_result_incomplete(res), 1);
    seam_result_set_incomplete(res, 0);
    CU_ASSERT_EQUAL(seam_result_incomplete(res), 0);

    CU_ASSERT_EQUAL(seam_result_add_chunk(res, NULL), SEAM_ERR_INVALID);
    seam_chunk bogus = chunk_of((seam_chunk_type)0);
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &bogus), SEAM_ERR_INVALID);
    bogus.type = (seam_chunk_type)99;
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &bogus), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_result_add_chunk(NULL, &bogus), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 0);
    seam_result_free(res);
    seam_result_free(NULL);
    CU_ASSERT_PTR_NULL(seam_result_message(NULL));
    CU_ASSERT_PTR_NULL(seam_result_error(NULL));
}

static void test_acc_text_deltas(void)
{
    seam_result *res = seam_result_new();
    const char *pieces[] = {"The", " quick", " ", "", "brown", " fox", " jumps", "."};
    for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++)
        CU_ASSERT_EQUAL(fold_text(res, pieces[i]), SEAM_OK);
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 1);
    ASSERT_STR(seam_part_text(seam_message_part(m, 0)), "The quick brown fox jumps.");
    CU_ASSERT_STRING_EQUAL(seam_result_text(res), "The quick brown fox jumps.");
    CU_ASSERT_EQUAL(fold_text(res, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 1);

    /* Many small deltas (a long answer) stay one part. */
    for (int i = 0; i < 5000; i++)
        fold_text(res, "ab");
    CU_ASSERT_EQUAL(seam_message_part_count(m), 1);
    CU_ASSERT_EQUAL(strlen(seam_result_text(res)), strlen("The quick brown fox jumps.") + 10000);
    seam_result_free(res);
}

static void test_acc_text_tool_text(void)
{
    seam_result *res = seam_result_new();
    fold_text(res, "Let me ");
    fold_text(res, "check.");
    CU_ASSERT_EQUAL(fold_call_start(res, "t1", "lookup"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_call_end(res, "t1", "{\"q\":1}"), SEAM_OK);
    fold_text(res, "Done");
    fold_text(res, "!");
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 3);
    CU_ASSERT_EQUAL(seam_part_get_type(seam_message_part(m, 0)), SEAM_PART_TEXT);
    CU_ASSERT_EQUAL(seam_part_get_type(seam_message_part(m, 1)), SEAM_PART_TOOL_CALL);
    CU_ASSERT_EQUAL(seam_part_get_type(seam_message_part(m, 2)), SEAM_PART_TEXT);
    ASSERT_STR(seam_part_text(seam_message_part(m, 0)), "Let me check.");
    ASSERT_STR(seam_part_text(seam_message_part(m, 2)), "Done!");
    CU_ASSERT_STRING_EQUAL(seam_result_text(res), "Let me check.Done!");
    seam_result_free(res);
}

static void test_acc_reasoning(void)
{
    seam_result *res = seam_result_new();
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_START, "r0", NULL), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_START, "r0", NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, "r0", "The user "), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, "r0", "asks."), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, "r0", NULL), SEAM_ERR_INVALID);
    seam_chunk end = chunk_of(SEAM_CHUNK_REASONING_END);
    end.id = "r0";
    end.signature = "EqQBCgIYAhIM";
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &end), SEAM_OK);
    fold_text(res, "Answer.");

    /* A delta without a start opens a block; a redacted block carries opaque data. */
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, "r1", "opaque-data"), SEAM_OK);
    end.id = "r1";
    end.signature = NULL;
    end.redacted = 1;
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &end), SEAM_OK);
    /* A block with no id at all still works. */
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, NULL, "anon"), SEAM_OK);
    end.id = NULL;
    end.signature = "s2";
    end.redacted = 0;
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &end), SEAM_OK);

    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 4);
    ASSERT_PART(seam_message_part(m, 0), .type = SEAM_PART_REASONING, .text = "The user asks.",
                .signature = "EqQBCgIYAhIM");
    ASSERT_PART(seam_message_part(m, 1), .type = SEAM_PART_TEXT, .text = "Answer.");
    ASSERT_PART(seam_message_part(m, 2), .type = SEAM_PART_REASONING, .text = "opaque-data", .redacted = 1);
    ASSERT_PART(seam_message_part(m, 3), .type = SEAM_PART_REASONING, .text = "anon", .signature = "s2");
    /* Reasoning is not text. */
    CU_ASSERT_STRING_EQUAL(seam_result_text(res), "Answer.");

    /* Once ended, the id may start a new block. */
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_REASONING_START, "r0", NULL), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 5);
    seam_result_free(res);
}

static void test_acc_interleaved_tool_calls(void)
{
    seam_result *res = seam_result_new();
    CU_ASSERT_EQUAL(fold_call_start(res, "call_a", "get_weather"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_call_start(res, "call_b", "get_time"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "call_a", "{\"ci"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "call_b", "{\"tz\":"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "call_a", "ty\": \"Pa"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "call_b", "\"UTC\"}"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "call_a", "ris\"}"), SEAM_OK);

    /* Until its end chunk, a call shows empty arguments. */
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 2);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 0)), "{}");

    CU_ASSERT_EQUAL(fold_call_end(res, "call_b", NULL), SEAM_OK);
    CU_ASSERT_EQUAL(fold_call_end(res, "call_a", NULL), SEAM_OK);
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_TOOL_USE, NULL), SEAM_OK);

    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 2);
    const seam_part *a = seam_message_part(m, 0), *b = seam_message_part(m, 1);
    ASSERT_STR(seam_part_tool_call_id(a), "call_a");
    ASSERT_STR(seam_part_tool_name(a), "get_weather");
    ASSERT_STR(seam_part_args_json(a), "{\"city\": \"Paris\"}");
    CU_ASSERT_EQUAL(seam_part_provider_executed(a), 0);
    ASSERT_STR(seam_part_tool_call_id(b), "call_b");
    ASSERT_STR(seam_part_tool_name(b), "get_time");
    ASSERT_STR(seam_part_args_json(b), "{\"tz\":\"UTC\"}");
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_TOOL_USE);

    /* Closed calls take no more fragments. */
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "call_a", "x"),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_call_end(res, "call_a", NULL), SEAM_ERR_INVALID);
    ASSERT_STR(seam_part_args_json(a), "{\"city\": \"Paris\"}");
    seam_result_free(res);
}

static void test_acc_tool_call_args(void)
{
    seam_result *res = seam_result_new();
    const seam_message *m = seam_result_message(res);

    /* No fragments at all: {}. */
    fold_call_start(res, "e1", "noargs");
    CU_ASSERT_EQUAL(fold_call_end(res, "e1", NULL), SEAM_OK);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 0)), "{}");

    /* Only empty fragments: {}. */
    fold_call_start(res, "e2", "noargs");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "e2", "");
    CU_ASSERT_EQUAL(fold_call_end(res, "e2", NULL), SEAM_OK);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 1)), "{}");

    /* The end chunk's args_json is final and wins over the fragments. */
    fold_call_start(res, "e3", "f");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "e3", "{\"partial\":");
    CU_ASSERT_EQUAL(fold_call_end(res, "e3", "{\"whole\":true}"), SEAM_OK);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 2)), "{\"whole\":true}");

    /* Broken arguments: the call is kept with {} and SEAM_ERR_INVALID returned. */
    fold_call_start(res, "bad1", "f");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "bad1", "{\"x\": 1");
    CU_ASSERT_EQUAL(fold_call_end(res, "bad1", NULL), SEAM_ERR_INVALID);
    const seam_part *p = seam_message_part(m, 3);
    ASSERT_STR(seam_part_tool_call_id(p), "bad1");
    ASSERT_STR(seam_part_args_json(p), "{}");

    /* Valid JSON that is not an object is refused the same way. */
    fold_call_start(res, "bad2", "f");
    CU_ASSERT_EQUAL(fold_call_end(res, "bad2", "[1,2]"), SEAM_ERR_INVALID);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 4)), "{}");
    CU_ASSERT_EQUAL(seam_message_part_count(m), 5);

    /* Out of sequence: nothing changes. */
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "nope", "{}"),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_call_end(res, "nope", "{}"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_call_end(res, NULL, "{}"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_call_start(res, NULL, "f"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_call_start(res, "x", NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_call_start(res, "open", "f"), SEAM_OK);
    CU_ASSERT_EQUAL(fold_call_start(res, "open", "f"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "open", NULL),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 6);
    CU_ASSERT_EQUAL(fold_call_end(res, "open", ""), SEAM_OK);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 5)), "{}");
    seam_result_free(res);
}

static void test_acc_stop_finalizes_open_calls(void)
{
    seam_result *res = seam_result_new();
    fold_call_start(res, "ok", "f");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "ok", "{\"n\":");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "ok", "3}");
    fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, "r", "half a thought");
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_TOOL_USE, NULL), SEAM_OK);
    const seam_message *m = seam_result_message(res);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 0)), "{\"n\":3}");
    ASSERT_STR(seam_part_text(seam_message_part(m, 1)), "half a thought");
    CU_ASSERT_EQUAL(fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "ok", "x"), SEAM_ERR_INVALID);
    seam_result_free(res);

    res = seam_result_new();
    fold_call_start(res, "cut", "f");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "cut", "{\"n\":");
    seam_usage u = {.present = SEAM_USAGE_OUTPUT, .output_tokens = 9};
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_LENGTH, &u), SEAM_ERR_INVALID);
    m = seam_result_message(res);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 0)), "{}");
    /* The stop itself is still applied. */
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_LENGTH);
    CU_ASSERT_EQUAL(seam_result_usage(res)->output_tokens, 9);
    seam_result_free(res);
}

static void test_acc_stop_usage(void)
{
    seam_result *res = seam_result_new();
    fold_text(res, "hi");
    seam_usage u = {.present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT | SEAM_USAGE_CACHE_READ,
                    .input_tokens = 12, .output_tokens = 3, .cache_read_tokens = 100};
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_STOP, &u), SEAM_OK);
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_STOP);
    const seam_usage *got = seam_result_usage(res);
    /* The present bits compared whole: no CACHE_WRITE, REASONING or COST. */
    TU_ASSERT_USAGE(got, .present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT | SEAM_USAGE_CACHE_READ,
                    .input_tokens = 12, .output_tokens = 3, .cache_read_tokens = 100);

    /* A later stop replaces usage wholesale: no bit of the first survives. */
    seam_usage u2 = {.present = SEAM_USAGE_REASONING, .reasoning_tokens = 4};
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_LENGTH, &u2), SEAM_OK);
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_LENGTH);
    TU_ASSERT_USAGE(got, .present = SEAM_USAGE_REASONING, .reasoning_tokens = 4);
    CU_ASSERT_EQUAL(got->input_tokens, 0);
    CU_ASSERT_STRING_EQUAL(seam_result_text(res), "hi");
    CU_ASSERT_PTR_NULL(seam_result_error(res));
    seam_result_free(res);
}

static void test_acc_error_chunk(void)
{
    seam_result *res = seam_result_new();
    fold_text(res, "partial ans");
    fold_call_start(res, "c", "f");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "c", "{\"broken");

    seam_chunk c = chunk_of(SEAM_CHUNK_ERROR);
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_ERR_INVALID); /* no error given */
    CU_ASSERT_PTR_NULL(seam_result_error(res));
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_NONE);

    seam_error err;
    seam_error_clear(&err);
    seam_error_set(&err, SEAM_ERROR_OVERLOADED, "upstream overloaded");
    err.http_status = 529;
    err.retry_after_ms = 1500;
    snprintf(err.code, sizeof err.code, "overloaded_error");
    snprintf(err.provider, sizeof err.provider, "anthropic");
    c.error = &err;
    /* An error cutting a call short is not a second failure. */
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_OK);
    /* The result keeps its own copy. */
    seam_error_set(&err, SEAM_ERROR_AUTH, "changed");

    const seam_error *got = seam_result_error(res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_EQUAL(got->kind, SEAM_ERROR_OVERLOADED);
    CU_ASSERT_EQUAL(got->retryable, 1);
    CU_ASSERT_EQUAL(got->http_status, 529);
    CU_ASSERT_EQUAL(got->retry_after_ms, 1500);
    CU_ASSERT_STRING_EQUAL(got->code, "overloaded_error");
    CU_ASSERT_STRING_EQUAL(got->provider, "anthropic");
    CU_ASSERT_STRING_EQUAL(got->message, "upstream overloaded");
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_ERROR);
    CU_ASSERT_STRING_EQUAL(seam_result_text(res), "partial ans");
    const seam_message *m = seam_result_message(res);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 1)), "{}");

    /* A stop after the error updates usage but the outcome stays an error. */
    seam_usage u = {.present = SEAM_USAGE_INPUT, .input_tokens = 5};
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_STOP, &u), SEAM_OK);
    CU_ASSERT_EQUAL(seam_result_stop_reason(res), SEAM_STOP_ERROR);
    CU_ASSERT_EQUAL(seam_result_usage(res)->input_tokens, 5);
    CU_ASSERT_PTR_NOT_NULL(seam_result_error(res));
    seam_result_free(res);
}

static void test_acc_provider_executed_tool_result(void)
{
    seam_result *res = seam_result_new();
    fold_call_start(res, "srv_1", "web_search");
    fold_call_end(res, "srv_1", "{\"query\":\"seam\"}");
    fold_call_start(res, "local_1", "run_tests");
    fold_call_end(res, "local_1", NULL);
    seam_chunk c = result_chunk("srv_1", "web_search", "[{\"url\":\"https://example.invalid\"}]", 0);
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_OK);
    c = result_chunk("srv_2", NULL, "\"quota exceeded\"", 1);
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_OK);

    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 4);
    CU_ASSERT_EQUAL(seam_part_provider_executed(seam_message_part(m, 0)), 1);
    CU_ASSERT_EQUAL(seam_part_provider_executed(seam_message_part(m, 1)), 0);
    const seam_part *p = seam_message_part(m, 2);
    CU_ASSERT_EQUAL(seam_part_get_type(p), SEAM_PART_TOOL_RESULT);
    CU_ASSERT_EQUAL(seam_part_provider_executed(p), 1);
    ASSERT_STR(seam_part_tool_call_id(p), "srv_1");
    ASSERT_STR(seam_part_tool_name(p), "web_search");
    ASSERT_STR(seam_part_result_json(p), "[{\"url\":\"https://example.invalid\"}]");
    CU_ASSERT_EQUAL(seam_part_is_error(p), 0);
    p = seam_message_part(m, 3);
    CU_ASSERT_EQUAL(seam_part_provider_executed(p), 1);
    CU_ASSERT_EQUAL(seam_part_is_error(p), 1);
    CU_ASSERT_PTR_NULL(seam_part_tool_name(p));

    c.result_json = "not json";
    refused_unchanged(res, &c);
    c.result_json = NULL;
    refused_unchanged(res, &c);
    c.result_json = "1";
    c.id = NULL;
    refused_unchanged(res, &c);
    seam_result_free(res);
}

/* A whole Anthropic-like turn: reasoning, text, a tool call, stop; then the
 * result's message goes back into a request (the tool loop's next step). */
static void test_acc_whole_turn_into_request(void)
{
    seam_result *res = seam_result_new();
    fold_id_text(res, SEAM_CHUNK_REASONING_START, "0", NULL);
    fold_id_text(res, SEAM_CHUNK_REASONING_DELTA, "0", "Need the weather.");
    seam_chunk end = chunk_of(SEAM_CHUNK_REASONING_END);
    end.id = "0";
    end.signature = "sig";
    seam_result_add_chunk(res, &end);
    fold_text(res, "Checking");
    fold_call_start(res, "toolu_1", "get_weather");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "toolu_1", "");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "toolu_1", "{\"city\": \"Par");
    fold_id_text(res, SEAM_CHUNK_TOOL_CALL_DELTA, "toolu_1", "is\"}");
    fold_call_end(res, "toolu_1", NULL);
    seam_usage u = {.present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT, .input_tokens = 472,
                    .output_tokens = 89};
    CU_ASSERT_EQUAL(fold_stop(res, SEAM_STOP_TOOL_USE, &u), SEAM_OK);

    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "Weather?");
    seam_message *copy = seam_message_dup(seam_result_message(res));
    CU_ASSERT_EQUAL(seam_request_add_message(req, copy), SEAM_OK);
    seam_result_free(res);
    const seam_message *m = seam_request_message(req, 1);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 3);
    ASSERT_STR(seam_part_signature(seam_message_part(m, 0)), "sig");
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 2)), "{\"city\": \"Paris\"}");
    CU_ASSERT_EQUAL(seam_request_strip_reasoning(req), 1);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 2);
    seam_request_free(req);
}

static void test_acc_media(void)
{
    seam_result *res = seam_result_new();
    seam_chunk c = media_chunk(SEAM_CHUNK_MEDIA_START, "m1", "image/png", NULL);
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_OK);
    c = media_chunk(SEAM_CHUNK_MEDIA_DELTA, "m1", NULL, NULL);
    c.progress = 0.5;
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_OK);
    const seam_message *m = seam_result_message(res);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 0);
    c = media_chunk(SEAM_CHUNK_MEDIA_END, "m1", "image/png", "media://sha256-0123");
    CU_ASSERT_EQUAL(seam_result_add_chunk(res, &c), SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 1);
    const seam_part *p = seam_message_part(m, 0);
    CU_ASSERT_EQUAL(seam_part_get_type(p), SEAM_PART_MEDIA);
    ASSERT_STR(seam_part_mime_type(p), "image/png");
    CU_ASSERT_EQUAL(seam_part_media_source(p), SEAM_MEDIA_URL);
    ASSERT_STR(seam_part_media_data(p), "media://sha256-0123");
    c.text = NULL;
    refused_unchanged(res, &c);
    seam_result_free(res);
}

static const tu_test tests[] = {
    { "result_new_free", test_result_new_free },
    { "acc_text_deltas", test_acc_text_deltas },
    { "acc_text_tool_text", test_acc_text_tool_text },
    { "acc_reasoning", test_acc_reasoning },
    { "acc_interleaved_tool_calls", test_acc_interleaved_tool_calls },
    { "acc_tool_call_args", test_acc_tool_call_args },
    { "acc_stop_finalizes_open_calls", test_acc_stop_finalizes_open_calls },
    { "acc_stop_usage", test_acc_stop_usage },
    { "acc_error_chunk", test_acc_error_chunk },
    { "acc_provider_executed_tool_result", test_acc_provider_executed_tool_result },
    { "acc_media", test_acc_media },
    { "acc_whole_turn_into_request", test_acc_whole_turn_into_request },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("types_result", tests, NULL);
}
