/* request.c — seam_request: model, system prompt, messages, tool definitions and
 * tool choice, sampling limits, stop sequences, response format, provider
 * options and reasoning budget; its deep copy; and seam_request_strip_reasoning()
 * (run before a request crosses to another provider). */
#include "config.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOOL_PARAMETERS "{\"type\":\"object\"}"
#define DEFAULT_FORMAT_SCHEMA "{\"type\":\"object\"}"
#define DEFAULT_FORMAT_NAME "response"

typedef struct tool_def {
    char *name;
    char *description; /* may be NULL */
    char *parameters;  /* a JSON Schema object, never NULL */
} tool_def;

struct seam_request {
    char *model;
    char *system;
    seam_message **messages;
    size_t n_messages;
    size_t cap_messages;
    tool_def *tools;
    size_t n_tools;
    seam_tool_choice tool_choice;
    char *tool_choice_name;  /* only for SEAM_TOOL_CHOICE_NAMED */
    int has_temperature;
    double temperature;
    int64_t max_tokens;
    char **stops;
    size_t n_stops;
    seam_response_format format;
    char *format_name;       /* only for SEAM_FORMAT_JSON */
    char *format_schema;     /* only for SEAM_FORMAT_JSON */
    int format_strict;
    char *provider_options;
    char *cache_handle;      /* the provider cache of this attempt (call.c), NULL: none */
    int64_t reasoning_budget;
    uint32_t output_modalities; /* 0: text only (the default) */
    int borrowed;               /* a view (seam_request_borrow): only model and
                                 * cache_handle are its own */
};

seam_request *seam_request_new(void)
{
    return calloc(1, sizeof(seam_request));
}

static void tool_def_clear(tool_def *t)
{
    free(t->name);
    free(t->description);
    free(t->parameters);
}

static int copy_string(char **dst, const char *s);

seam_request *seam_request_borrow(const seam_request *req, const char *model)
{
    seam_request *v = req ? malloc(sizeof *v) : NULL;
    if (!v)
        return NULL;
    *v = *req;
    v->borrowed = 1;
    v->model = NULL;
    /* The attempt sets its provider cache on the view: its own, like model. */
    v->cache_handle = NULL;
    if (!copy_string(&v->model, model ? model : req->model) ||
        !copy_string(&v->cache_handle, req->cache_handle)) {
        free(v->model);
        free(v);
        return NULL;
    }
    return v;
}

void seam_request_free(seam_request *req)
{
    if (!req)
        return;
    free(req->model);
    free(req->cache_handle);
    if (req->borrowed) {
        free(req);
        return;
    }
    free(req->system);
    for (size_t i = 0; i < req->n_messages; i++)
        seam_message_free(req->messages[i]);
    free(req->messages);
    for (size_t i = 0; i < req->n_tools; i++)
        tool_def_clear(&req->tools[i]);
    free(req->tools);
    free(req->tool_choice_name);
    for (size_t i = 0; i < req->n_stops; i++)
        free(req->stops[i]);
    free(req->stops);
    free(req->format_name);
    free(req->format_schema);
    free(req->provider_options);
    free(req);
}

/* Copies s into *dst; NULL stays NULL. Returns 0 on allocation failure. */
static int copy_string(char **dst, const char *s)
{
    *dst = seam_strdup(s);
    return s == NULL || *dst != NULL;
}

seam_request *seam_request_dup(const seam_request *req)
{
    if (!req)
        return NULL;
    seam_request *copy = seam_request_new();
    if (!copy)
        return NULL;
    copy->tool_choice = req->tool_choice;
    copy->has_temperature = req->has_temperature;
    copy->temperature = req->temperature;
    copy->max_tokens = req->max_tokens;
    copy->format = req->format;
    copy->format_strict = req->format_strict;
    copy->reasoning_budget = req->reasoning_budget;
    copy->output_modalities = req->output_modalities;
    if (!copy_string(&copy->model, req->model) || !copy_string(&copy->system, req->system) ||
        !copy_string(&copy->tool_choice_name, req->tool_choice_name) ||
        !copy_string(&copy->format_name, req->format_name) ||
        !copy_string(&copy->format_schema, req->format_schema) ||
        !copy_string(&copy->provider_options, req->provider_options) ||
        !copy_string(&copy->cache_handle, req->cache_handle))
        goto fail;

    if (req->n_messages) {
        copy->messages = calloc(req->n_messages, sizeof *copy->messages);
        if (!copy->messages)
            goto fail;
        copy->cap_messages = req->n_messages;
        for (size_t i = 0; i < req->n_messages; i++) {
            copy->messages[i] = seam_message_dup(req->messages[i]);
            if (!copy->messages[i])
                goto fail;
            copy->n_messages++;
        }
    }
    if (req->n_tools) {
        copy->tools = calloc(req->n_tools, sizeof *copy->tools);
        if (!copy->tools)
            goto fail;
        for (size_t i = 0; i < req->n_tools; i++) {
            const tool_def *t = &req->tools[i];
            tool_def *c = &copy->tools[i];
            copy->n_tools++; /* counted first: a half-copied entry is freed too */
            if (!copy_string(&c->name, t->name) || !copy_string(&c->description, t->description) ||
                !copy_string(&c->parameters, t->parameters))
                goto fail;
        }
    }
    if (req->n_stops) {
        copy->stops = calloc(req->n_stops, sizeof *copy->stops);
        if (!copy->stops)
            goto fail;
        for (size_t i = 0; i < req->n_stops; i++) {
            copy->stops[i] = seam_strdup(req->stops[i]);
            if (!copy->stops[i])
                goto fail;
            copy->n_stops++;
        }
    }
    return copy;
fail:
    seam_request_free(copy);
    return NULL;
}

/* Replaces *field by a copy of value (NULL clears it). */
static int replace_string(char **field, const char *value)
{
    char *copy = NULL;
    if (!copy_string(&copy, value))
        return SEAM_ERR_NOMEM;
    free(*field);
    *field = copy;
    return SEAM_OK;
}

int seam_request_set_model(seam_request *req, const char *model)
{
    if (!req)
        return SEAM_ERR_INVALID;
    return replace_string(&req->model, model);
}

int seam_request_set_system(seam_request *req, const char *system)
{
    if (!req)
        return SEAM_ERR_INVALID;
    return replace_string(&req->system, system);
}

int seam_request_add_message(seam_request *req, seam_message *msg)
{
    if (!req || !msg)
        return SEAM_ERR_INVALID;
    if (req->n_messages == req->cap_messages) {
        size_t cap = req->cap_messages ? req->cap_messages * 2 : 8;
        seam_message **messages = realloc(req->messages, cap * sizeof *messages);
        if (!messages)
            return SEAM_ERR_NOMEM;
        req->messages = messages;
        req->cap_messages = cap;
    }
    req->messages[req->n_messages++] = msg;
    return SEAM_OK;
}

int seam_request_add_user_text(seam_request *req, const char *text)
{
    if (!req || !text)
        return SEAM_ERR_INVALID;
    seam_message *msg = seam_message_new(SEAM_ROLE_USER);
    if (!msg)
        return SEAM_ERR_NOMEM;
    int rc = seam_message_add_text(msg, text);
    if (rc == SEAM_OK)
        rc = seam_request_add_message(req, msg);
    if (rc != SEAM_OK)
        seam_message_free(msg);
    return rc;
}

int seam_request_add_tool(seam_request *req, const char *name, const char *description,
                          const char *parameters_json)
{
    if (!req || !name || !*name)
        return SEAM_ERR_INVALID;
    int rc = parameters_json ? seam_json_check(parameters_json, 1) : SEAM_OK;
    if (rc != SEAM_OK)
        return rc;
    /* Every provider refuses two tools of one name: refuse it here, named. */
    for (size_t i = 0; i < req->n_tools; i++)
        if (strcmp(req->tools[i].name, name) == 0)
            return SEAM_ERR_INVALID;
    tool_def t = {0};
    if (!copy_string(&t.name, name) || !copy_string(&t.description, description) ||
        !copy_string(&t.parameters, parameters_json ? parameters_json : DEFAULT_TOOL_PARAMETERS)) {
        tool_def_clear(&t);
        return SEAM_ERR_NOMEM;
    }
    tool_def *tools = realloc(req->tools, (req->n_tools + 1) * sizeof *tools);
    if (!tools) {
        tool_def_clear(&t);
        return SEAM_ERR_NOMEM;
    }
    req->tools = tools;
    req->tools[req->n_tools++] = t;
    return SEAM_OK;
}

int seam_request_set_tool_choice(seam_request *req, seam_tool_choice choice, const char *name)
{
    if (!req)
        return SEAM_ERR_INVALID;
    switch (choice) {
    case SEAM_TOOL_CHOICE_AUTO:
    case SEAM_TOOL_CHOICE_NONE:
    case SEAM_TOOL_CHOICE_REQUIRED:
        name = NULL;
        break;
    case SEAM_TOOL_CHOICE_NAMED:
        if (!name || !*name)
            return SEAM_ERR_INVALID;
        break;
    default:
        return SEAM_ERR_INVALID;
    }
    int rc = replace_string(&req->tool_choice_name, name);
    if (rc == SEAM_OK)
        req->tool_choice = choice;
    return rc;
}

int seam_request_set_temperature(seam_request *req, double temperature)
{
    if (!req || !isfinite(temperature) || temperature < 0)
        return SEAM_ERR_INVALID;
    req->temperature = temperature;
    req->has_temperature = 1;
    return SEAM_OK;
}

int seam_request_set_max_tokens(seam_request *req, int64_t max_tokens)
{
    if (!req || max_tokens < 0)
        return SEAM_ERR_INVALID;
    req->max_tokens = max_tokens;
    return SEAM_OK;
}

int seam_request_add_stop(seam_request *req, const char *stop)
{
    if (!req || !stop || !*stop)
        return SEAM_ERR_INVALID;
    char *copy = seam_strdup(stop);
    if (!copy)
        return SEAM_ERR_NOMEM;
    char **stops = realloc(req->stops, (req->n_stops + 1) * sizeof *stops);
    if (!stops) {
        free(copy);
        return SEAM_ERR_NOMEM;
    }
    req->stops = stops;
    req->stops[req->n_stops++] = copy;
    return SEAM_OK;
}

int seam_request_set_response_format(seam_request *req, seam_response_format fmt,
                                     const char *name, const char *schema_json, int strict)
{
    if (!req)
        return SEAM_ERR_INVALID;
    if (fmt == SEAM_FORMAT_TEXT) {
        free(req->format_name);
        free(req->format_schema);
        req->format_name = req->format_schema = NULL;
        req->format_strict = 0;
        req->format = fmt;
        return SEAM_OK;
    }
    if (fmt != SEAM_FORMAT_JSON)
        return SEAM_ERR_INVALID;
    int rc = schema_json ? seam_json_check(schema_json, 1) : SEAM_OK;
    if (rc != SEAM_OK)
        return rc;
    char *name_copy = seam_strdup(name ? name : DEFAULT_FORMAT_NAME);
    char *schema_copy = seam_strdup(schema_json ? schema_json : DEFAULT_FORMAT_SCHEMA);
    if (!name_copy || !schema_copy) {
        free(name_copy);
        free(schema_copy);
        return SEAM_ERR_NOMEM;
    }
    free(req->format_name);
    free(req->format_schema);
    req->format_name = name_copy;
    req->format_schema = schema_copy;
    req->format_strict = strict != 0;
    req->format = fmt;
    return SEAM_OK;
}

int seam_request_set_provider_options(seam_request *req, const char *options_json)
{
    if (!req)
        return SEAM_ERR_INVALID;
    int rc = options_json ? seam_json_check(options_json, 1) : SEAM_OK;
    if (rc != SEAM_OK)
        return rc;
    return replace_string(&req->provider_options, options_json);
}

int seam_request_set_reasoning_budget(seam_request *req, int64_t budget_tokens)
{
    if (!req || budget_tokens < 0)
        return SEAM_ERR_INVALID;
    req->reasoning_budget = budget_tokens;
    return SEAM_OK;
}

/* ---- readers ------------------------------------------------------------------ */

const char *seam_request_model(const seam_request *req)
{
    return req ? req->model : NULL;
}

const char *seam_request_system(const seam_request *req)
{
    return req ? req->system : NULL;
}

size_t seam_request_message_count(const seam_request *req)
{
    return req ? req->n_messages : 0;
}

const seam_message *seam_request_message(const seam_request *req, size_t i)
{
    return req && i < req->n_messages ? req->messages[i] : NULL;
}

size_t seam_request_tool_count(const seam_request *req)
{
    return req ? req->n_tools : 0;
}

const char *seam_request_tool_name(const seam_request *req, size_t i)
{
    return req && i < req->n_tools ? req->tools[i].name : NULL;
}

const char *seam_request_tool_description(const seam_request *req, size_t i)
{
    return req && i < req->n_tools ? req->tools[i].description : NULL;
}

const char *seam_request_tool_parameters(const seam_request *req, size_t i)
{
    return req && i < req->n_tools ? req->tools[i].parameters : NULL;
}

seam_tool_choice seam_request_tool_choice(const seam_request *req, const char **name)
{
    if (name)
        *name = req ? req->tool_choice_name : NULL;
    return req ? req->tool_choice : SEAM_TOOL_CHOICE_AUTO;
}

int seam_request_temperature(const seam_request *req, double *out)
{
    if (!req || !req->has_temperature)
        return 0;
    if (out)
        *out = req->temperature;
    return 1;
}

int64_t seam_request_max_tokens(const seam_request *req)
{
    return req ? req->max_tokens : 0;
}

size_t seam_request_stop_count(const seam_request *req)
{
    return req ? req->n_stops : 0;
}

const char *seam_request_stop(const seam_request *req, size_t i)
{
    return req && i < req->n_stops ? req->stops[i] : NULL;
}

seam_response_format seam_request_response_format(const seam_request *req, const char **name,
                                                  const char **schema_json, int *strict)
{
    if (name)
        *name = req ? req->format_name : NULL;
    if (schema_json)
        *schema_json = req ? req->format_schema : NULL;
    if (strict)
        *strict = req ? req->format_strict : 0;
    return req ? req->format : SEAM_FORMAT_TEXT;
}

const char *seam_request_provider_options(const seam_request *req)
{
    return req ? req->provider_options : NULL;
}

int seam_request_set_cache_handle(seam_request *req, const char *handle)
{
    if (!req)
        return SEAM_ERR_INVALID;
    return replace_string(&req->cache_handle, handle);
}

const char *seam_request_cache_handle(const seam_request *req)
{
    return req ? req->cache_handle : NULL;
}

int64_t seam_request_reasoning_budget(const seam_request *req)
{
    return req ? req->reasoning_budget : 0;
}

/* ---- crossing providers ----------------------------------------------------- */

size_t seam_request_strip_reasoning(seam_request *req)
{
    if (!req)
        return 0;
    size_t removed = 0, kept = 0;
    for (size_t i = 0; i < req->n_messages; i++) {
        seam_message *msg = req->messages[i];
        size_t n = seam_message_strip_reasoning(msg);
        removed += n;
        /* A message that held only reasoning would go out empty, which providers
         * refuse ("content must be non-empty"): drop it. */
        if (n && seam_message_part_count(msg) == 0) {
            seam_message_free(msg);
            continue;
        }
        req->messages[kept++] = msg;
    }
    req->n_messages = kept;
    return removed;
}

int seam_request_set_output_modalities(seam_request *req, uint32_t modalities)
{
    const uint32_t outputs = SEAM_MODALITY_TEXT | SEAM_MODALITY_IMAGE | SEAM_MODALITY_AUDIO |
                             SEAM_MODALITY_VIDEO;
    if (!req || !modalities || (modalities & ~outputs))
        return SEAM_ERR_INVALID;
    req->output_modalities = modalities == SEAM_MODALITY_TEXT ? 0 : modalities;
    return SEAM_OK;
}

uint32_t seam_request_output_modalities(const seam_request *req)
{
    return req && req->output_modalities ? req->output_modalities : SEAM_MODALITY_TEXT;
}

/* The prepare_step hook's active tools: the others are left out of one turn. */
size_t seam_request_retain_tools(seam_request *req, const char *names)
{
    size_t kept = 0;
    for (size_t i = 0; i < req->n_tools; i++) {
        const char *n = req->tools[i].name;
        size_t len = strlen(n);
        int found = 0;
        for (const char *p = names; p && *p && !found;) {
            size_t l = strcspn(p, ",");
            found = l == len && strncmp(p, n, len) == 0;
            p += l + (p[l] == ',');
        }
        if (found)
            req->tools[kept++] = req->tools[i];
        else
            tool_def_clear(&req->tools[i]);
    }
    req->n_tools = kept;
    return kept;
}
