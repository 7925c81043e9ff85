/* test_types_message.c — unit tests of message.c: messages and their parts
 * (construction, ownership of strings, text concatenation, argument
 * normalization, validation, deep copies, mutators). */
#include "config.h"
#include "internal.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tu_types.h"

/* ---- messages and parts ----------------------------------------------------------- */

static void test_message_new_free(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_USER);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 0);
    CU_ASSERT_PTR_NULL(seam_message_part(m, 0));
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "");
    seam_message_free(m);

    m = seam_message_new(SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_ASSISTANT);
    seam_message_free(m);
    m = seam_message_new(SEAM_ROLE_TOOL);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_TOOL);
    seam_message_free(m);

    CU_ASSERT_PTR_NULL(seam_message_new((seam_role)0));
    CU_ASSERT_PTR_NULL(seam_message_new((seam_role)4));
    seam_message_free(NULL);
    CU_ASSERT_PTR_NULL(seam_message_dup(NULL));
    CU_ASSERT_EQUAL(seam_message_part_count(NULL), 0);
    CU_ASSERT_STRING_EQUAL(seam_message_text(NULL), "");
}

static void test_message_parts(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL(seam_message_add_text(m, "Hello"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_reasoning(m, "thinking", "sig1", 0), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_reasoning(m, "opaque==", NULL, 1), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_tool_call(m, "call_1", "get_weather", "{\"city\":\"Paris\"}"),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_tool_result(m, "call_1", "get_weather", "{\"t\":21}", 1),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_media(m, "image/png", SEAM_MEDIA_BASE64, "iVBORw0KGgo="),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_media(m, "image/jpeg", SEAM_MEDIA_URL, "https://x/y.jpg"),
                    SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 7);

    /* Each part answers what it holds, and nothing for what it does not. */
    ASSERT_PART(seam_message_part(m, 0), .type = SEAM_PART_TEXT, .text = "Hello");
    ASSERT_PART(seam_message_part(m, 1), .type = SEAM_PART_REASONING, .text = "thinking", .signature = "sig1");
    ASSERT_PART(seam_message_part(m, 2), .type = SEAM_PART_REASONING, .text = "opaque==", .redacted = 1);
    ASSERT_PART(seam_message_part(m, 3), .type = SEAM_PART_TOOL_CALL, .tool_call_id = "call_1",
                .tool_name = "get_weather", .args_json = "{\"city\":\"Paris\"}");
    ASSERT_PART(seam_message_part(m, 4), .type = SEAM_PART_TOOL_RESULT, .tool_call_id = "call_1",
                .tool_name = "get_weather", .result_json = "{\"t\":21}", .is_error = 1);
    ASSERT_PART(seam_message_part(m, 5), .type = SEAM_PART_MEDIA, .mime_type = "image/png",
                .media_source = SEAM_MEDIA_BASE64, .media_data = "iVBORw0KGgo=");
    ASSERT_PART(seam_message_part(m, 6), .type = SEAM_PART_MEDIA, .mime_type = "image/jpeg",
                .media_source = SEAM_MEDIA_URL, .media_data = "https://x/y.jpg");

    CU_ASSERT_PTR_NULL(seam_message_part(m, 7));
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "Hello");

    /* NULL parts read as empty. */
    CU_ASSERT_EQUAL(seam_part_get_type(NULL), 0);
    CU_ASSERT_PTR_NULL(seam_part_text(NULL));
    CU_ASSERT_PTR_NULL(seam_part_args_json(NULL));
    CU_ASSERT_EQUAL(seam_part_is_error(NULL), 0);
    seam_message_free(m);
}

static void test_message_copies_strings(void)
{
    char text[] = "original", id[] = "id1", args[] = "{\"k\":1}";
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    seam_message_add_text(m, text);
    seam_message_add_tool_call(m, id, "f", args);
    text[0] = id[0] = 'X';
    args[2] = 'Z';
    ASSERT_STR(seam_part_text(seam_message_part(m, 0)), "original");
    ASSERT_STR(seam_part_tool_call_id(seam_message_part(m, 1)), "id1");
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 1)), "{\"k\":1}");
    seam_message_free(m);
}

static void test_message_text_concatenation(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_text(m, "one ");
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "one ");
    seam_message_add_reasoning(m, "hidden", NULL, 0);
    seam_message_add_tool_call(m, "c", "f", NULL);
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "one ");
    seam_message_add_text(m, "two ");
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "one two ");
    seam_message_add_text(m, "");
    seam_message_add_text(m, "three");
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "one two three");
    seam_message *copy = seam_message_dup(m);
    seam_message_add_text(m, "!");
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "one two three!");
    CU_ASSERT_STRING_EQUAL(seam_message_text(copy), "one two three");
    seam_message_free(copy);
    seam_message_free(m);
}

static void test_message_args_normalized(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL(seam_message_add_tool_call(m, "a", "f", NULL), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_tool_call(m, "b", "f", ""), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_add_tool_call(m, "c", "f", " { \"x\" : [1, 2] } "), SEAM_OK);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 0)), "{}");
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 1)), "{}");
    /* The caller's text is kept as given, not reserialized. */
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 2)), " { \"x\" : [1, 2] } ");
    seam_message_free(m);
}

static void test_message_tool_results_any_json(void)
{
    static const char *const values[] = {"\"a bare string\"", "42", "null", "[1,{}]", "{}",
                                         "false"};
    /* Tool results may live in a tool message or a user message. */
    seam_role roles[] = {SEAM_ROLE_TOOL, SEAM_ROLE_USER};
    for (size_t r = 0; r < 2; r++) {
        seam_message *m = seam_message_new(roles[r]);
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
            CU_ASSERT_EQUAL(seam_message_add_tool_result(m, "c1", NULL, values[i], 0), SEAM_OK);
        CU_ASSERT_EQUAL(seam_message_part_count(m), sizeof values / sizeof values[0]);
        const seam_part *p = seam_message_part(m, 0);
        ASSERT_STR(seam_part_result_json(p), "\"a bare string\"");
        CU_ASSERT_PTR_NULL(seam_part_tool_name(p));
        CU_ASSERT_EQUAL(seam_part_is_error(p), 0);
        seam_message_free(m);
    }
}

/* Every failing add returns SEAM_ERR_INVALID and leaves the message as it was. */
static void test_message_validation(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_text(m, "keep");
    seam_message_add_text(m, " me");

#define EXPECT_INVALID(call)                                                                  \
    do {                                                                                      \
        CU_ASSERT_EQUAL(call, SEAM_ERR_INVALID);                                              \
        CU_ASSERT_EQUAL(seam_message_part_count(m), 2);                                       \
        CU_ASSERT_STRING_EQUAL(seam_message_text(m), "keep me");                              \
    } while (0)

    EXPECT_INVALID(seam_message_add_text(m, NULL));
    EXPECT_INVALID(seam_message_add_reasoning(m, NULL, "sig", 0));
    EXPECT_INVALID(seam_message_add_tool_call(m, NULL, "f", "{}"));
    EXPECT_INVALID(seam_message_add_tool_call(m, "id", NULL, "{}"));
    EXPECT_INVALID(seam_message_add_tool_call(m, "id", "f", "[1,2]"));
    EXPECT_INVALID(seam_message_add_tool_call(m, "id", "f", "\"str\""));
    EXPECT_INVALID(seam_message_add_tool_call(m, "id", "f", "{\"a\":"));
    EXPECT_INVALID(seam_message_add_tool_call(m, "id", "f", "not json"));
    EXPECT_INVALID(seam_message_add_tool_call(m, "id", "f", "{} {}"));
    EXPECT_INVALID(seam_message_add_tool_result(m, NULL, "f", "{}", 0));
    EXPECT_INVALID(seam_message_add_tool_result(m, "id", "f", NULL, 0));
    EXPECT_INVALID(seam_message_add_tool_result(m, "id", "f", "", 0));
    EXPECT_INVALID(seam_message_add_tool_result(m, "id", "f", "bare words", 0));
    EXPECT_INVALID(seam_message_add_media(m, NULL, SEAM_MEDIA_URL, "https://x"));
    EXPECT_INVALID(seam_message_add_media(m, "", SEAM_MEDIA_URL, "https://x"));
    EXPECT_INVALID(seam_message_add_media(m, "image/png", (seam_media_source)0, "x"));
    EXPECT_INVALID(seam_message_add_media(m, "image/png", (seam_media_source)4, "x"));
    EXPECT_INVALID(seam_message_add_media(m, "image/png", SEAM_MEDIA_BASE64, NULL));
#undef EXPECT_INVALID

    CU_ASSERT_EQUAL(seam_message_add_text(NULL, "x"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_add_reasoning(NULL, "x", NULL, 0), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_add_tool_call(NULL, "i", "f", NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_add_tool_result(NULL, "i", "f", "1", 0), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_add_media(NULL, "a/b", SEAM_MEDIA_URL, "u"), SEAM_ERR_INVALID);
    seam_message_free(m);
}

static void test_message_mutators(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_text(m, "first");
    seam_message_add_reasoning(m, "r", NULL, 0);
    seam_message_add_tool_call(m, "c", "f", NULL);
    seam_message_add_text(m, "last");

    /* Appending to a text part that is not the last one keeps the joined text right. */
    CU_ASSERT_EQUAL(seam_message_append_part_text(m, 0, "+1", 2), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "first+1last");
    CU_ASSERT_EQUAL(seam_message_append_part_text(m, 3, "+2", 2), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "first+1last+2");
    CU_ASSERT_EQUAL(seam_message_append_part_text(m, 1, "easoning", 8), SEAM_OK);
    ASSERT_STR(seam_part_text(seam_message_part(m, 1)), "reasoning");
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "first+1last+2");
    CU_ASSERT_EQUAL(seam_message_append_part_text(m, 2, "x", 1), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_append_part_text(m, 9, "x", 1), SEAM_ERR_INVALID);

    CU_ASSERT_EQUAL(seam_message_set_part_signature(m, 1, "s", 1), SEAM_OK);
    ASSERT_STR(seam_part_signature(seam_message_part(m, 1)), "s");
    CU_ASSERT_EQUAL(seam_part_redacted(seam_message_part(m, 1)), 1);
    CU_ASSERT_EQUAL(seam_message_set_part_signature(m, 1, NULL, 0), SEAM_OK);
    CU_ASSERT_PTR_NULL(seam_part_signature(seam_message_part(m, 1)));
    CU_ASSERT_EQUAL(seam_message_set_part_signature(m, 0, "s", 0), SEAM_ERR_INVALID);

    CU_ASSERT_EQUAL(seam_message_set_part_args(m, 2, "{\"a\":1}"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_set_part_args(m, 2, "[1]"), SEAM_ERR_INVALID);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 2)), "{\"a\":1}");
    CU_ASSERT_EQUAL(seam_message_set_part_args(m, 2, NULL), SEAM_OK);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 2)), "{}");
    CU_ASSERT_EQUAL(seam_message_set_part_args(m, 0, "{}"), SEAM_ERR_INVALID);

    CU_ASSERT_EQUAL(seam_message_set_part_provider_executed(m, 0, 1), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_message_set_part_provider_executed(m, 2, 7), SEAM_OK);
    CU_ASSERT_EQUAL(seam_part_provider_executed(seam_message_part(m, 2)), 1);

    CU_ASSERT_EQUAL(seam_message_strip_reasoning(m), 1);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 3);
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "first+1last+2");
    CU_ASSERT_EQUAL(seam_message_strip_reasoning(m), 0);
    seam_message_free(m);
}

static void test_message_dup_deep(void)
{
    seam_message *m = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_text(m, "a");
    seam_message_add_reasoning(m, "r", "sig", 1);
    seam_message_add_tool_call(m, "c1", "f", "{\"x\":1}");
    seam_message_add_tool_result(m, "c1", "f", "[true]", 1);
    seam_message_add_media(m, "audio/wav", SEAM_MEDIA_BASE64, "UklGRg==");
    seam_message_add_text(m, "b");
    CU_ASSERT_EQUAL(seam_message_set_part_provider_executed(m, 2, 1), SEAM_OK);
    CU_ASSERT_EQUAL(seam_message_set_part_provider_executed(m, 3, 1), SEAM_OK);

    seam_message *copy = seam_message_dup(m);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    /* Changing and then freeing the original must not touch the copy. */
    seam_message_append_part_text(m, 0, "zzz", 3);
    seam_message_set_part_args(m, 2, "{\"changed\":true}");
    seam_message_free(m);

    CU_ASSERT_EQUAL(seam_message_role(copy), SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(copy), 6);
    ASSERT_STR(seam_part_text(seam_message_part(copy, 0)), "a");
    const seam_part *p = seam_message_part(copy, 1);
    ASSERT_STR(seam_part_text(p), "r");
    ASSERT_STR(seam_part_signature(p), "sig");
    CU_ASSERT_EQUAL(seam_part_redacted(p), 1);
    p = seam_message_part(copy, 2);
    ASSERT_STR(seam_part_args_json(p), "{\"x\":1}");
    CU_ASSERT_EQUAL(seam_part_provider_executed(p), 1);
    p = seam_message_part(copy, 3);
    ASSERT_STR(seam_part_result_json(p), "[true]");
    CU_ASSERT_EQUAL(seam_part_is_error(p), 1);
    CU_ASSERT_EQUAL(seam_part_provider_executed(p), 1);
    p = seam_message_part(copy, 4);
    ASSERT_STR(seam_part_mime_type(p), "audio/wav");
    CU_ASSERT_EQUAL(seam_part_media_source(p), SEAM_MEDIA_BASE64);
    ASSERT_STR(seam_part_media_data(p), "UklGRg==");
    CU_ASSERT_STRING_EQUAL(seam_message_text(copy), "ab");
    seam_message_free(copy);
}

static const tu_test tests[] = {
    { "message_new_free", test_message_new_free },
    { "message_parts", test_message_parts },
    { "message_copies_strings", test_message_copies_strings },
    { "message_text_concatenation", test_message_text_concatenation },
    { "message_args_normalized", test_message_args_normalized },
    { "message_tool_results_any_json", test_message_tool_results_any_json },
    { "message_validation", test_message_validation },
    { "message_dup_deep", test_message_dup_deep },
    { "message_mutators", test_message_mutators },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("types_message", tests, NULL);
}
