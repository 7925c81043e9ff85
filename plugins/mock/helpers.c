/* helpers.c — the small helpers the mock's files share (the ones every
 * plugin shares are in ../common/codec_util.c): building JSON that an
 * allocation failure cannot leave half-made, and seam's names of an error
 * kind and a stop reason read back. */
#include "config.h"

#include <seam/plugin.h>

#include <json-c/json.h>
#include <string.h>

#include "../common/codec_util.h"
#include "mock_internal.h"

int mock_is_number(json_object *v)
{
    return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
}

/* Adds key = v to object o, taking v; NULL-safe so that an allocation failure
 * anywhere in a tree only makes the result -1 (json-c asserts on a NULL object). */
int mock_put(json_object *o, const char *key, json_object *v)
{
    /* v NULL is a value whose allocation failed, not a JSON null. */
    if (!o || !v || json_object_object_add(o, key, v) != 0) {
        json_object_put(v);
        return -1;
    }
    return 0;
}

/* Appends v to array a, taking v; NULL-safe like mock_put(). */
int mock_push(json_object *a, json_object *v)
{
    if (!a || !v) {
        json_object_put(v);
        return -1;
    }
    if (json_object_array_add(a, v) != 0) {
        json_object_put(v);
        return -1;
    }
    return 0;
}

/* Adds key = "value"; nothing for a NULL value. */
int mock_add_string(json_object *o, const char *key, const char *value)
{
    if (!value)
        return 0;
    json_object *s = json_object_new_string(value);
    if (!s)
        return -1;
    return mock_put(o, key, s);
}

seam_error_kind mock_kind_from_name(const char *name)
{
    if (!name)
        return SEAM_ERROR_NONE;
    for (int k = SEAM_ERROR_RATE_LIMIT; k <= SEAM_ERROR_UNKNOWN; k++)
        if (strcmp(seam_error_kind_name((seam_error_kind)k), name) == 0)
            return (seam_error_kind)k;
    return SEAM_ERROR_NONE;
}

seam_stop_reason mock_stop_from_name(const char *name)
{
    for (int r = SEAM_STOP_STOP; r <= SEAM_STOP_ERROR; r++)
        if (name && strcmp(seam_stop_reason_name((seam_stop_reason)r), name) == 0)
            return (seam_stop_reason)r;
    return SEAM_STOP_NONE;
}
