/* test_types_request.c — unit tests of request.c: defaults, setters,
 * validation, deep copies and seam_request_strip_reasoning. */
#include "config.h"
#include "internal.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tu_types.h"

/* ---- requests --------------------------------------------------------------------- */

static void test_request_defaults(void)
{
    seam_request *r = seam_request_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_PTR_NULL(seam_request_model(r));
    CU_ASSERT_PTR_NULL(seam_request_system(r));
    CU_ASSERT_EQUAL(seam_request_message_count(r), 0);
    CU_ASSERT_PTR_NULL(seam_request_message(r, 0));
    CU_ASSERT_EQUAL(seam_request_tool_count(r), 0);
    CU_ASSERT_PTR_NULL(seam_request_tool_name(r, 0));
    const char *name = "sentinel";
    CU_ASSERT_EQUAL(seam_request_tool_choice(r, &name), SEAM_TOOL_CHOICE_AUTO);
    CU_ASSERT_PTR_NULL(name);
    double t = 7;
    CU_ASSERT_EQUAL(seam_request_temperature(r, &t), 0);
    CU_ASSERT_EQUAL(t, 7);
    CU_ASSERT_EQUAL(seam_request_max_tokens(r), 0);
    CU_ASSERT_EQUAL(seam_request_stop_count(r), 0);
    const char *schema = "sentinel";
    int strict = 5;
    name = "sentinel";
    CU_ASSERT_EQUAL(seam_request_response_format(r, &name, &schema, &strict), SEAM_FORMAT_TEXT);
    CU_ASSERT_PTR_NULL(name);
    CU_ASSERT_PTR_NULL(schema);
    CU_ASSERT_EQUAL(strict, 0);
    CU_ASSERT_PTR_NULL(seam_request_provider_options(r));
    CU_ASSERT_EQUAL(seam_request_reasoning_budget(r), 0);
    seam_request_free(r);
    seam_request_free(NULL);
    CU_ASSERT_PTR_NULL(seam_request_dup(NULL));
}

static seam_request *full_request(void)
{
    seam_request *r = seam_request_new();
    CU_ASSERT_EQUAL(seam_request_set_model(r, "gpt-x"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_system(r, "Be brief."), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_user_text(r, "Weather in Paris?"), SEAM_OK);
    seam_message *a = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_reasoning(a, "user wants weather", "sig", 0);
    seam_message_add_tool_call(a, "call_1", "get_weather", "{\"city\":\"Paris\"}");
    CU_ASSERT_EQUAL(seam_request_add_message(r, a), SEAM_OK);
    seam_message *t = seam_message_new(SEAM_ROLE_TOOL);
    seam_message_add_tool_result(t, "call_1", "get_weather", "{\"c\":21}", 0);
    CU_ASSERT_EQUAL(seam_request_add_message(r, t), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, "get_weather", "Current weather",
                                          "{\"type\":\"object\",\"properties\":{\"city\":"
                                          "{\"type\":\"string\"}}}"),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, "noop", NULL, NULL), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(r, SEAM_TOOL_CHOICE_NAMED, "get_weather"),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_temperature(r, 0.25), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_max_tokens(r, 512), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_stop(r, "END"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_add_stop(r, "\n\n"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_response_format(r, SEAM_FORMAT_JSON, "answer",
                                                     "{\"type\":\"object\"}", 9),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_provider_options(r, "{\"seed\":7}"), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_set_reasoning_budget(r, 2048), SEAM_OK);
    return r;
}

static void check_full_request(const seam_request *r)
{
    ASSERT_STR(seam_request_model(r), "gpt-x");
    ASSERT_STR(seam_request_system(r), "Be brief.");
    CU_ASSERT_EQUAL_FATAL(seam_request_message_count(r), 3);
    const seam_message *m = seam_request_message(r, 0);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_USER);
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "Weather in Paris?");
    m = seam_request_message(r, 1);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL(seam_message_part_count(m), 2);
    ASSERT_STR(seam_part_args_json(seam_message_part(m, 1)), "{\"city\":\"Paris\"}");
    m = seam_request_message(r, 2);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_TOOL);
    ASSERT_STR(seam_part_result_json(seam_message_part(m, 0)), "{\"c\":21}");
    CU_ASSERT_PTR_NULL(seam_request_message(r, 3));

    CU_ASSERT_EQUAL_FATAL(seam_request_tool_count(r), 2);
    ASSERT_STR(seam_request_tool_name(r, 0), "get_weather");
    ASSERT_STR(seam_request_tool_description(r, 0), "Current weather");
    ASSERT_STR(seam_request_tool_parameters(r, 0),
               "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}");
    ASSERT_STR(seam_request_tool_name(r, 1), "noop");
    CU_ASSERT_PTR_NULL(seam_request_tool_description(r, 1));
    ASSERT_STR(seam_request_tool_parameters(r, 1), "{\"type\":\"object\"}");
    CU_ASSERT_PTR_NULL(seam_request_tool_name(r, 2));
    CU_ASSERT_PTR_NULL(seam_request_tool_parameters(r, 2));

    const char *name = NULL;
    CU_ASSERT_EQUAL(seam_request_tool_choice(r, &name), SEAM_TOOL_CHOICE_NAMED);
    ASSERT_STR(name, "get_weather");
    CU_ASSERT_EQUAL(seam_request_tool_choice(r, NULL), SEAM_TOOL_CHOICE_NAMED);
    double t = 0;
    CU_ASSERT_EQUAL(seam_request_temperature(r, &t), 1);
    CU_ASSERT_DOUBLE_EQUAL(t, 0.25, 1e-12);
    CU_ASSERT_EQUAL(seam_request_max_tokens(r), 512);
    CU_ASSERT_EQUAL_FATAL(seam_request_stop_count(r), 2);
    ASSERT_STR(seam_request_stop(r, 0), "END");
    ASSERT_STR(seam_request_stop(r, 1), "\n\n");
    CU_ASSERT_PTR_NULL(seam_request_stop(r, 2));
    const char *schema = NULL;
    int strict = 0;
    CU_ASSERT_EQUAL(seam_request_response_format(r, &name, &schema, &strict), SEAM_FORMAT_JSON);
    ASSERT_STR(name, "answer");
    ASSERT_STR(schema, "{\"type\":\"object\"}");
    CU_ASSERT_EQUAL(strict, 1);
    ASSERT_STR(seam_request_provider_options(r), "{\"seed\":7}");
    CU_ASSERT_EQUAL(seam_request_reasoning_budget(r), 2048);
}

static void test_request_setters(void)
{
    seam_request *r = full_request();
    check_full_request(r);

    /* Setters replace; NULL unsets the optional strings; 0 unsets limits. */
    CU_ASSERT_EQUAL(seam_request_set_model(r, "other"), SEAM_OK);
    ASSERT_STR(seam_request_model(r), "other");
    CU_ASSERT_EQUAL(seam_request_set_model(r, NULL), SEAM_OK);
    CU_ASSERT_PTR_NULL(seam_request_model(r));
    CU_ASSERT_EQUAL(seam_request_set_system(r, NULL), SEAM_OK);
    CU_ASSERT_PTR_NULL(seam_request_system(r));
    CU_ASSERT_EQUAL(seam_request_set_provider_options(r, NULL), SEAM_OK);
    CU_ASSERT_PTR_NULL(seam_request_provider_options(r));
    CU_ASSERT_EQUAL(seam_request_set_max_tokens(r, 0), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_max_tokens(r), 0);
    CU_ASSERT_EQUAL(seam_request_set_temperature(r, 0), SEAM_OK);
    double t = -1;
    CU_ASSERT_EQUAL(seam_request_temperature(r, &t), 1);
    CU_ASSERT_EQUAL(t, 0);

    /* A non-named choice ignores (and drops) the name. */
    const char *name = "sentinel";
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(r, SEAM_TOOL_CHOICE_REQUIRED, "ignored"),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_tool_choice(r, &name), SEAM_TOOL_CHOICE_REQUIRED);
    CU_ASSERT_PTR_NULL(name);
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(r, SEAM_TOOL_CHOICE_NONE, NULL), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_tool_choice(r, NULL), SEAM_TOOL_CHOICE_NONE);

    /* JSON format defaults: name "response", any JSON object; strict is 0/1. */
    const char *schema = NULL;
    int strict = -1;
    CU_ASSERT_EQUAL(seam_request_set_response_format(r, SEAM_FORMAT_JSON, NULL, NULL, 0),
                    SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_response_format(r, &name, &schema, &strict), SEAM_FORMAT_JSON);
    ASSERT_STR(name, "response");
    ASSERT_STR(schema, "{\"type\":\"object\"}");
    CU_ASSERT_EQUAL(strict, 0);
    CU_ASSERT_EQUAL(seam_request_set_response_format(r, SEAM_FORMAT_TEXT, "x", "[]", 1), SEAM_OK);
    CU_ASSERT_EQUAL(seam_request_response_format(r, &name, &schema, &strict), SEAM_FORMAT_TEXT);
    CU_ASSERT_PTR_NULL(name);
    CU_ASSERT_PTR_NULL(schema);
    CU_ASSERT_EQUAL(strict, 0);
    seam_request_free(r);
}

/* Every failing setter returns SEAM_ERR_INVALID and changes nothing. */
static void test_request_validation(void)
{
    seam_request *r = full_request();

    CU_ASSERT_EQUAL(seam_request_add_tool(r, "bad", NULL, "[]"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, "bad", NULL, "\"object\""), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, "bad", NULL, "{\"type\":"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, NULL, NULL, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, "", NULL, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_tool(r, "noop", "again", NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(r, SEAM_TOOL_CHOICE_NAMED, NULL),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(r, SEAM_TOOL_CHOICE_NAMED, ""),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_tool_choice(r, (seam_tool_choice)42, NULL),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_temperature(r, -0.5), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_temperature(r, NAN), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_temperature(r, INFINITY), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_max_tokens(r, -1), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_stop(r, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_stop(r, ""), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_response_format(r, SEAM_FORMAT_JSON, "n", "[]", 0),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_response_format(r, SEAM_FORMAT_JSON, "n", "{oops}", 0),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_response_format(r, (seam_response_format)5, NULL, NULL, 0),
                    SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_provider_options(r, "[1]"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_provider_options(r, ""), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_provider_options(r, "{\"a\":}"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_reasoning_budget(r, -5), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_message(r, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_user_text(r, NULL), SEAM_ERR_INVALID);

    check_full_request(r);

    /* A NULL request is refused everywhere, and reads as empty. */
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    CU_ASSERT_EQUAL(seam_request_add_message(NULL, m), SEAM_ERR_INVALID);
    seam_message_free(m); /* not taken on failure: still ours */
    CU_ASSERT_EQUAL(seam_request_set_model(NULL, "m"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_system(NULL, "s"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_user_text(NULL, "t"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_tool(NULL, "t", NULL, NULL), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_temperature(NULL, 1), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_add_stop(NULL, "s"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_set_provider_options(NULL, "{}"), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_request_message_count(NULL), 0);
    CU_ASSERT_EQUAL(seam_request_temperature(NULL, NULL), 0);
    seam_request_free(r);
}

static void test_request_dup_deep(void)
{
    seam_request *r = full_request();
    seam_request *copy = seam_request_dup(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    check_full_request(copy);
    /* The copy shares nothing: change the original, free it, read the copy. */
    seam_request_set_model(r, "changed");
    seam_request_add_user_text(r, "more");
    seam_request_add_stop(r, "X");
    seam_request_strip_reasoning(r);
    seam_request_free(r);
    check_full_request(copy);
    CU_ASSERT_EQUAL(seam_message_part_count(seam_request_message(copy, 1)), 2);

    /* An empty request copies too. */
    seam_request *empty = seam_request_new();
    seam_request *empty_copy = seam_request_dup(empty);
    CU_ASSERT_PTR_NOT_NULL(empty_copy);
    CU_ASSERT_EQUAL(seam_request_message_count(empty_copy), 0);
    seam_request_free(empty);
    seam_request_free(empty_copy);
    seam_request_free(copy);
}

static void test_request_strip_reasoning(void)
{
    seam_request *r = seam_request_new();
    seam_request_add_user_text(r, "q1");
    seam_message *a1 = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_reasoning(a1, "think", "sig-a", 0);
    seam_message_add_text(a1, "answer");
    seam_message_add_reasoning(a1, "more", NULL, 1);
    seam_message_add_tool_call(a1, "c1", "f", NULL);
    seam_request_add_message(r, a1);
    seam_request_add_user_text(r, "q2");
    seam_message *a2 = seam_message_new(SEAM_ROLE_ASSISTANT);
    seam_message_add_reasoning(a2, "only reasoning", "sig-b", 0);
    seam_request_add_message(r, a2);
    seam_request_add_user_text(r, "q3");

    CU_ASSERT_EQUAL(seam_request_strip_reasoning(r), 3);
    /* a2 held nothing else and is gone: an empty message would be refused. */
    CU_ASSERT_EQUAL_FATAL(seam_request_message_count(r), 4);
    CU_ASSERT_STRING_EQUAL(seam_message_text(seam_request_message(r, 0)), "q1");
    const seam_message *m = seam_request_message(r, 1);
    CU_ASSERT_EQUAL(seam_message_role(m), SEAM_ROLE_ASSISTANT);
    CU_ASSERT_EQUAL_FATAL(seam_message_part_count(m), 2);
    CU_ASSERT_EQUAL(seam_part_get_type(seam_message_part(m, 0)), SEAM_PART_TEXT);
    CU_ASSERT_EQUAL(seam_part_get_type(seam_message_part(m, 1)), SEAM_PART_TOOL_CALL);
    CU_ASSERT_STRING_EQUAL(seam_message_text(m), "answer");
    CU_ASSERT_STRING_EQUAL(seam_message_text(seam_request_message(r, 2)), "q2");
    CU_ASSERT_STRING_EQUAL(seam_message_text(seam_request_message(r, 3)), "q3");
    for (size_t i = 0; i < seam_request_message_count(r); i++) {
        const seam_message *mi = seam_request_message(r, i);
        for (size_t j = 0; j < seam_message_part_count(mi); j++)
            CU_ASSERT_NOT_EQUAL(seam_part_get_type(seam_message_part(mi, j)),
                                SEAM_PART_REASONING);
    }
    CU_ASSERT_EQUAL(seam_request_strip_reasoning(r), 0);
    CU_ASSERT_EQUAL(seam_request_message_count(r), 4);
    CU_ASSERT_EQUAL(seam_request_strip_reasoning(NULL), 0);

    /* An empty message the caller added on purpose is not dropped. */
    seam_request_add_message(r, seam_message_new(SEAM_ROLE_ASSISTANT));
    CU_ASSERT_EQUAL(seam_request_strip_reasoning(r), 0);
    CU_ASSERT_EQUAL(seam_request_message_count(r), 5);
    seam_request_free(r);
}

static const tu_test tests[] = {
    { "request_defaults", test_request_defaults },
    { "request_setters", test_request_setters },
    { "request_validation", test_request_validation },
    { "request_dup_deep", test_request_dup_deep },
    { "request_strip_reasoning", test_request_strip_reasoning },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("types_request", tests, NULL);
}
