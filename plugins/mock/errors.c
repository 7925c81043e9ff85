/* errors.c — the mock's error answers (a scripted error_status, serve.c)
 * -> a classified seam_error. */
#include "config.h"

#include <seam/plugin.h>

#include <json-c/json.h>
#include <stddef.h>

#include "../common/codec_util.h"
#include "mock_internal.h"

/* A body {"error":{"type":<seam kind name>,"message":...,"code":...}} refines the
 * core's default from the status; anything else keeps it. */
void mock_classify_error(void *instance, int http_status, const seam_http_headers *headers,
                                const char *body, size_t len, seam_error *err)
{
    (void)instance;
    (void)http_status;
    (void)headers;
    if (!err)
        return;
    json_object *root = body ? json_parse_strict(body, len) : NULL;
    json_object *e = jget(root, "error");
    if (e && json_object_is_type(e, json_type_object)) {
        const char *type = jstr(e, "type");
        const char *message = jstr(e, "message");
        const char *code = jstr(e, "code");
        seam_error_kind kind = mock_kind_from_name(type);
        if (kind != SEAM_ERROR_NONE) {
            err->kind = kind;
            err->retryable = seam_error_kind_retryable(kind);
        }
        if (message)
            seam_strlcpy(err->message, message, sizeof err->message);
        if (code || type)
            seam_strlcpy(err->code, code ? code : type, sizeof err->code);
    }
    json_object_put(root);
}
