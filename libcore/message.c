/* message.c — seam_message and seam_part: messages of content parts (text,
 * reasoning, tool_call, tool_result, media), their accessors, deep copies, the
 * part mutators the result accumulator builds with. Every JSON-text argument
 * goes through seam_json_check() (jsonparse.c). */
#include "config.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct seam_part {
    seam_part_type type;
    seam_buf text;          /* text, reasoning (data NULL while empty) */
    char *signature;        /* reasoning, may be NULL */
    int redacted;           /* reasoning */
    char *id;               /* tool_call id; tool_result: the call it answers */
    char *name;             /* tool_call; tool_result (may be NULL) */
    char *json;             /* tool_call arguments (never NULL); tool_result value */
    int is_error;           /* tool_result */
    int provider_executed;  /* tool_call, tool_result */
    char *mime_type;        /* media */
    seam_media_source media_source;
    char *media_data;       /* media: base64, URL or handle */
    char *media_name;       /* media, may be NULL */
    char *transcript;       /* media, may be NULL */
    int64_t byte_length;    /* media: -1 unknown */
    int64_t duration_ms;    /* media: -1 unknown */
};

struct seam_message {
    seam_role role;
    seam_part **parts; /* pointers, so a borrowed part survives appends */
    size_t n_parts;
    size_t cap_parts;
    /* seam_message_text(): with one text part its own text is returned; with
     * several, their concatenation is kept here, updated on every change so
     * that reading a const message never writes (safe from several threads). */
    size_t n_text_parts;
    seam_buf joined_text;
};

/* ---- parts ------------------------------------------------------------------ */

static void part_free(seam_part *p)
{
    if (!p)
        return;
    seam_buf_free(&p->text);
    free(p->signature);
    free(p->id);
    free(p->name);
    free(p->json);
    free(p->mime_type);
    free(p->media_data);
    free(p->media_name);
    free(p->transcript);
    free(p);
}

static seam_part *part_new(seam_part_type type)
{
    seam_part *p = calloc(1, sizeof *p);
    if (p) {
        p->type = type;
        p->byte_length = p->duration_ms = -1;
    }
    return p;
}

/* Copies s into a part field; NULL stays NULL. Returns 0 on allocation failure. */
static int copy_field(char **field, const char *s)
{
    *field = seam_strdup(s);
    return s == NULL || *field != NULL;
}

static int set_part_text(seam_part *p, const char *text)
{
    return seam_buf_puts(&p->text, text) == SEAM_OK;
}

static seam_part *part_dup(const seam_part *src)
{
    seam_part *p = part_new(src->type);
    if (!p)
        return NULL;
    p->redacted = src->redacted;
    p->is_error = src->is_error;
    p->provider_executed = src->provider_executed;
    p->media_source = src->media_source;
    p->byte_length = src->byte_length;
    p->duration_ms = src->duration_ms;
    if (!copy_field(&p->media_name, src->media_name) ||
        !copy_field(&p->transcript, src->transcript)) {
        part_free(p);
        return NULL;
    }
    if ((src->text.data && seam_buf_append(&p->text, src->text.data, src->text.len) != SEAM_OK) ||
        !copy_field(&p->signature, src->signature) || !copy_field(&p->id, src->id) ||
        !copy_field(&p->name, src->name) || !copy_field(&p->json, src->json) ||
        !copy_field(&p->mime_type, src->mime_type) ||
        !copy_field(&p->media_data, src->media_data)) {
        part_free(p);
        return NULL;
    }
    return p;
}

/* ---- the joined text ------------------------------------------------------- */

static int rebuild_joined_text(seam_message *msg)
{
    seam_buf joined = {0};
    size_t n_text = 0;
    for (size_t i = 0; i < msg->n_parts; i++) {
        const seam_part *p = msg->parts[i];
        if (p->type != SEAM_PART_TEXT)
            continue;
        n_text++;
        if (seam_buf_append(&joined, p->text.data ? p->text.data : "", p->text.len) != SEAM_OK) {
            seam_buf_free(&joined);
            return SEAM_ERR_NOMEM;
        }
    }
    seam_buf_free(&msg->joined_text);
    /* With one text part or none, seam_message_text() reads the part itself. */
    if (n_text >= 2)
        msg->joined_text = joined;
    else
        seam_buf_free(&joined);
    msg->n_text_parts = n_text;
    return SEAM_OK;
}

/* ---- messages --------------------------------------------------------------- */

seam_message *seam_message_new(seam_role role)
{
    if (role != SEAM_ROLE_USER && role != SEAM_ROLE_ASSISTANT && role != SEAM_ROLE_TOOL)
        return NULL;
    seam_message *msg = calloc(1, sizeof *msg);
    if (msg)
        msg->role = role;
    return msg;
}

void seam_message_free(seam_message *msg)
{
    if (!msg)
        return;
    for (size_t i = 0; i < msg->n_parts; i++)
        part_free(msg->parts[i]);
    free(msg->parts);
    seam_buf_free(&msg->joined_text);
    free(msg);
}

seam_message *seam_message_dup(const seam_message *msg)
{
    if (!msg)
        return NULL;
    seam_message *copy = seam_message_new(msg->role);
    if (!copy)
        return NULL;
    if (msg->n_parts) {
        copy->parts = calloc(msg->n_parts, sizeof *copy->parts);
        if (!copy->parts)
            goto fail;
        copy->cap_parts = msg->n_parts;
    }
    for (size_t i = 0; i < msg->n_parts; i++) {
        copy->parts[i] = part_dup(msg->parts[i]);
        if (!copy->parts[i])
            goto fail;
        copy->n_parts++;
    }
    if (rebuild_joined_text(copy) != SEAM_OK)
        goto fail;
    return copy;
fail:
    seam_message_free(copy);
    return NULL;
}

/* Appends p to msg (taking it) and keeps the joined text current; on failure
 * p is freed and msg is unchanged. */
static int push_part(seam_message *msg, seam_part *p)
{
    if (msg->n_parts == msg->cap_parts) {
        size_t cap = msg->cap_parts ? msg->cap_parts * 2 : 4;
        seam_part **parts = realloc(msg->parts, cap * sizeof *parts);
        if (!parts) {
            part_free(p);
            return SEAM_ERR_NOMEM;
        }
        msg->parts = parts;
        msg->cap_parts = cap;
    }
    msg->parts[msg->n_parts++] = p;
    if (p->type != SEAM_PART_TEXT)
        return SEAM_OK;
    int rc;
    if (msg->n_text_parts >= 2) {
        rc = seam_buf_append(&msg->joined_text, p->text.data ? p->text.data : "", p->text.len);
        if (rc == SEAM_OK)
            msg->n_text_parts++;
    } else {
        rc = rebuild_joined_text(msg);
    }
    if (rc != SEAM_OK) {
        msg->n_parts--;
        part_free(p);
    }
    return rc;
}

int seam_message_add_text(seam_message *msg, const char *text)
{
    if (!msg || !text)
        return SEAM_ERR_INVALID;
    seam_part *p = part_new(SEAM_PART_TEXT);
    if (!p || !set_part_text(p, text)) {
        part_free(p);
        return SEAM_ERR_NOMEM;
    }
    return push_part(msg, p);
}

int seam_message_add_reasoning(seam_message *msg, const char *text, const char *signature,
                               int redacted)
{
    if (!msg || !text)
        return SEAM_ERR_INVALID;
    seam_part *p = part_new(SEAM_PART_REASONING);
    if (!p || !set_part_text(p, text) || !copy_field(&p->signature, signature)) {
        part_free(p);
        return SEAM_ERR_NOMEM;
    }
    p->redacted = redacted != 0;
    return push_part(msg, p);
}

/* NULL or "" mean the empty object; anything else must be a JSON object.
 * SEAM_OK, SEAM_ERR_INVALID or SEAM_ERR_NOMEM (running out of memory while
 * parsing is not bad arguments). */
static int normalize_args(const char *args_json, const char **out)
{
    *out = "{}";
    if (!args_json || !*args_json)
        return SEAM_OK;
    *out = args_json;
    return seam_json_check(args_json, 1);
}

int seam_message_add_tool_call(seam_message *msg, const char *id, const char *name,
                               const char *args_json)
{
    if (!msg || !id || !name)
        return SEAM_ERR_INVALID;
    const char *args;
    int rc = normalize_args(args_json, &args);
    if (rc != SEAM_OK)
        return rc;
    seam_part *p = part_new(SEAM_PART_TOOL_CALL);
    if (!p || !copy_field(&p->id, id) || !copy_field(&p->name, name) ||
        !copy_field(&p->json, args)) {
        part_free(p);
        return SEAM_ERR_NOMEM;
    }
    return push_part(msg, p);
}

int seam_message_add_tool_result(seam_message *msg, const char *tool_call_id, const char *name,
                                 const char *result_json, int is_error)
{
    if (!msg || !tool_call_id || !result_json)
        return SEAM_ERR_INVALID;
    int rc = seam_json_check(result_json, 0);
    if (rc != SEAM_OK)
        return rc;
    seam_part *p = part_new(SEAM_PART_TOOL_RESULT);
    if (!p || !copy_field(&p->id, tool_call_id) || !copy_field(&p->name, name) ||
        !copy_field(&p->json, result_json)) {
        part_free(p);
        return SEAM_ERR_NOMEM;
    }
    p->is_error = is_error != 0;
    return push_part(msg, p);
}

int seam_message_add_media(seam_message *msg, const char *mime_type, seam_media_source source,
                           const char *data)
{
    return seam_message_add_media_meta(msg, mime_type, source, data, NULL);
}

#define META_HAS(m, field) ((m)->size >= offsetof(seam_media_meta, field) + sizeof((m)->field))

int seam_message_add_media_meta(seam_message *msg, const char *mime_type,
                                seam_media_source source, const char *data,
                                const seam_media_meta *meta)
{
    if (!msg || !mime_type || !*mime_type || !data ||
        (source != SEAM_MEDIA_BASE64 && source != SEAM_MEDIA_URL && source != SEAM_MEDIA_HANDLE))
        return SEAM_ERR_INVALID;
    /* A handle names bytes of the store: anything else in its place would be
     * resolved as a path. */
    if (source == SEAM_MEDIA_HANDLE && !seam_media_handle_valid(data))
        return SEAM_ERR_INVALID;
    if (meta && meta->size < offsetof(seam_media_meta, name) + sizeof meta->name)
        return SEAM_ERR_INVALID;
    seam_part *p = part_new(SEAM_PART_MEDIA);
    if (!p || !copy_field(&p->mime_type, mime_type) || !copy_field(&p->media_data, data) ||
        (meta && META_HAS(meta, name) && !copy_field(&p->media_name, meta->name)) ||
        (meta && META_HAS(meta, transcript) && !copy_field(&p->transcript, meta->transcript))) {
        part_free(p);
        return SEAM_ERR_NOMEM;
    }
    if (meta && META_HAS(meta, byte_length) && meta->byte_length >= 0)
        p->byte_length = meta->byte_length;
    if (meta && META_HAS(meta, duration_ms) && meta->duration_ms >= 0)
        p->duration_ms = meta->duration_ms;
    p->media_source = source;
    return push_part(msg, p);
}

/* De-inlining: the part's source becomes the handle its bytes were stored
 * under, the decoded size recorded. */
int seam_part_set_media_handle(seam_part *p, const char *handle, int64_t byte_length)
{
    if (!p || p->type != SEAM_PART_MEDIA || !seam_media_handle_valid(handle))
        return SEAM_ERR_INVALID;
    char *copy = seam_strdup(handle);
    if (!copy)
        return SEAM_ERR_NOMEM;
    free(p->media_data);
    p->media_data = copy;
    p->media_source = SEAM_MEDIA_HANDLE;
    p->byte_length = byte_length;
    return SEAM_OK;
}

/* Handle resolution before encode: the part carries the bytes as base64. */
int seam_part_set_media_base64(seam_part *p, char *base64_owned)
{
    if (!p || p->type != SEAM_PART_MEDIA || !base64_owned)
        return SEAM_ERR_INVALID;
    free(p->media_data);
    p->media_data = base64_owned;
    p->media_source = SEAM_MEDIA_BASE64;
    return SEAM_OK;
}

seam_role seam_message_role(const seam_message *msg)
{
    return msg ? msg->role : 0;
}

size_t seam_message_part_count(const seam_message *msg)
{
    return msg ? msg->n_parts : 0;
}

const seam_part *seam_message_part(const seam_message *msg, size_t i)
{
    return msg && i < msg->n_parts ? msg->parts[i] : NULL;
}

seam_part *seam_message_part_mut(seam_message *msg, size_t i)
{
    return msg && i < msg->n_parts ? msg->parts[i] : NULL;
}

const char *seam_message_text(const seam_message *msg)
{
    if (!msg || msg->n_text_parts == 0)
        return "";
    if (msg->n_text_parts >= 2)
        return msg->joined_text.data ? msg->joined_text.data : "";
    for (size_t i = 0; i < msg->n_parts; i++)
        if (msg->parts[i]->type == SEAM_PART_TEXT)
            return msg->parts[i]->text.data ? msg->parts[i]->text.data : "";
    return "";
}

/* ---- mutators for the accumulator and strip_reasoning ---------------------- */

static seam_part *part_at(seam_message *msg, size_t i)
{
    return msg && i < msg->n_parts ? msg->parts[i] : NULL;
}

static int is_last_text_part(const seam_message *msg, size_t i)
{
    for (size_t j = i + 1; j < msg->n_parts; j++)
        if (msg->parts[j]->type == SEAM_PART_TEXT)
            return 0;
    return 1;
}

int seam_message_append_part_text(seam_message *msg, size_t i, const char *text, size_t len)
{
    seam_part *p = part_at(msg, i);
    if (!p || (len && !text) || (p->type != SEAM_PART_TEXT && p->type != SEAM_PART_REASONING))
        return SEAM_ERR_INVALID;
    if (len == 0)
        return SEAM_OK;
    size_t old_len = p->text.len;
    if (seam_buf_append(&p->text, text, len) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    if (p->type != SEAM_PART_TEXT || msg->n_text_parts < 2)
        return SEAM_OK;
    /* The accumulator only ever appends to the last text part: the cheap case. */
    int rc = is_last_text_part(msg, i) ? seam_buf_append(&msg->joined_text, text, len)
                                        : rebuild_joined_text(msg);
    if (rc != SEAM_OK) {
        p->text.len = old_len;
        p->text.data[old_len] = '\0';
    }
    return rc;
}

int seam_message_set_part_signature(seam_message *msg, size_t i, const char *signature,
                                    int redacted)
{
    seam_part *p = part_at(msg, i);
    if (!p || p->type != SEAM_PART_REASONING)
        return SEAM_ERR_INVALID;
    char *copy = NULL;
    if (!copy_field(&copy, signature))
        return SEAM_ERR_NOMEM;
    free(p->signature);
    p->signature = copy;
    p->redacted = redacted != 0;
    return SEAM_OK;
}

int seam_message_set_part_args(seam_message *msg, size_t i, const char *args_json)
{
    seam_part *p = part_at(msg, i);
    if (!p || p->type != SEAM_PART_TOOL_CALL)
        return SEAM_ERR_INVALID;
    const char *args;
    int rc = normalize_args(args_json, &args);
    if (rc != SEAM_OK)
        return rc;
    char *copy = seam_strdup(args);
    if (!copy)
        return SEAM_ERR_NOMEM;
    free(p->json);
    p->json = copy;
    return SEAM_OK;
}

int seam_message_set_part_provider_executed(seam_message *msg, size_t i, int provider_executed)
{
    seam_part *p = part_at(msg, i);
    if (!p || (p->type != SEAM_PART_TOOL_CALL && p->type != SEAM_PART_TOOL_RESULT))
        return SEAM_ERR_INVALID;
    p->provider_executed = provider_executed != 0;
    return SEAM_OK;
}

size_t seam_message_strip_reasoning(seam_message *msg)
{
    if (!msg)
        return 0;
    size_t kept = 0, removed = 0;
    for (size_t i = 0; i < msg->n_parts; i++) {
        if (msg->parts[i]->type == SEAM_PART_REASONING) {
            part_free(msg->parts[i]);
            removed++;
        } else {
            msg->parts[kept++] = msg->parts[i];
        }
    }
    msg->n_parts = kept;
    /* Text parts are untouched, so the joined text stays right. */
    return removed;
}

/* ---- part accessors --------------------------------------------------------- */

seam_part_type seam_part_get_type(const seam_part *p)
{
    return p ? p->type : 0;
}

const char *seam_part_text(const seam_part *p)
{
    if (!p || (p->type != SEAM_PART_TEXT && p->type != SEAM_PART_REASONING))
        return NULL;
    return p->text.data ? p->text.data : "";
}

const char *seam_part_signature(const seam_part *p)
{
    return p && p->type == SEAM_PART_REASONING ? p->signature : NULL;
}

int seam_part_redacted(const seam_part *p)
{
    return p && p->type == SEAM_PART_REASONING ? p->redacted : 0;
}

static int is_tool_part(const seam_part *p)
{
    return p && (p->type == SEAM_PART_TOOL_CALL || p->type == SEAM_PART_TOOL_RESULT);
}

const char *seam_part_tool_call_id(const seam_part *p)
{
    return is_tool_part(p) ? p->id : NULL;
}

const char *seam_part_tool_name(const seam_part *p)
{
    return is_tool_part(p) ? p->name : NULL;
}

const char *seam_part_args_json(const seam_part *p)
{
    if (!p || p->type != SEAM_PART_TOOL_CALL)
        return NULL;
    return p->json ? p->json : "{}";
}

const char *seam_part_result_json(const seam_part *p)
{
    return p && p->type == SEAM_PART_TOOL_RESULT ? p->json : NULL;
}

int seam_part_is_error(const seam_part *p)
{
    return p && p->type == SEAM_PART_TOOL_RESULT ? p->is_error : 0;
}

int seam_part_provider_executed(const seam_part *p)
{
    return is_tool_part(p) ? p->provider_executed : 0;
}

const char *seam_part_mime_type(const seam_part *p)
{
    return p && p->type == SEAM_PART_MEDIA ? p->mime_type : NULL;
}

seam_media_source seam_part_media_source(const seam_part *p)
{
    return p && p->type == SEAM_PART_MEDIA ? p->media_source : 0;
}

const char *seam_part_media_data(const seam_part *p)
{
    return p && p->type == SEAM_PART_MEDIA ? p->media_data : NULL;
}

const char *seam_part_media_name(const seam_part *p)
{
    return p && p->type == SEAM_PART_MEDIA ? p->media_name : NULL;
}

const char *seam_part_media_transcript(const seam_part *p)
{
    return p && p->type == SEAM_PART_MEDIA ? p->transcript : NULL;
}

int64_t seam_part_media_byte_length(const seam_part *p)
{
    return p && p->type == SEAM_PART_MEDIA ? p->byte_length : -1;
}

int64_t seam_part_media_duration_ms(const seam_part *p)
{
    return p && p->type == SEAM_PART_MEDIA ? p->duration_ms : -1;
}
