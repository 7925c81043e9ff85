/* jsonin.c — reading the members of a request body the doors (chat.c,
 * messages.c, responses.c) parse with json-c: absent and mistyped members
 * read as NULL, so a door checks what it needs once. */
#include "config.h"

#include "serve.h"

#include <json-c/json.h>

const char *jstr(json_object *o, const char *key)
{
    json_object *v;
    if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

json_object *jget(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (o && json_object_object_get_ex(o, key, &v))
        return v;
    return NULL;
}
