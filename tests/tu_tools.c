/* tu_tools.c — the tools the agent tests (executor, loop) hand the model
 * (tests/testutil.h): add(a, b) with its JSON schema. */
#include "config.h"

#include "testutil.h"

#include <json-c/json.h>
#include <stdio.h>

const char tu_add_schema[] =
    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
    "\"required\":[\"a\",\"b\"]}";

int tu_tool_add(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    json_object *args = json_tokener_parse(call->args_json), *a = NULL, *b = NULL;
    json_object_object_get_ex(args, "a", &a);
    json_object_object_get_ex(args, "b", &b);
    char text[32];
    snprintf(text, sizeof text, "%lld",
             (long long)(json_object_get_int64(a) + json_object_get_int64(b)));
    json_object_put(args);
    return seam_tool_output_json(out, text);
}
