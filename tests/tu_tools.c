/* tu_tools.c — what the agent tests (executor, loop) share
 * (tests/testutil.h): the tool add(a, b) with its JSON schema, and the
 * one-word-an-event trace of an executor's run their expectations are written in. */
#include "config.h"

#include "testutil.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

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

void tu_event_append(char *text, size_t size, const seam_event *ev)
{
    char item[1024] = "";
    switch (ev->kind) {
    case SEAM_EVENT_RESPONSE:
        snprintf(item, sizeof item, "response%d(%s)", ev->iteration, seam_result_text(ev->response));
        break;
    case SEAM_EVENT_TOOL_CALL:
        snprintf(item, sizeof item, "call%d(%s %s)", ev->iteration, ev->tool_name, ev->args_json);
        break;
    case SEAM_EVENT_TOOL_RESULT:
        snprintf(item, sizeof item, "result%d(%s=%s%s)", ev->iteration, ev->tool_name,
                 ev->result_json, ev->is_error ? " error" : "");
        break;
    case SEAM_EVENT_CONTEXT_COMPRESSED:
        snprintf(item, sizeof item, "compressed%d", ev->iteration);
        break;
    case SEAM_EVENT_DONE:
        snprintf(item, sizeof item, "done(%s)", ev->reason);
        break;
    case SEAM_EVENT_ERROR:
        snprintf(item, sizeof item, "error%d(%s)", ev->iteration, seam_error_kind_name(ev->error->kind));
        break;
    }
    size_t len = strlen(text);
    snprintf(text + len, size - len, "%s%s", len ? " " : "", item);
}
