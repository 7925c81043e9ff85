/* mock.c — the scripted mock provider (id "mock"): what the tests and the
 * offline default use. It goes through the same codec path as a real provider
 * and does no I/O:
 *
 *   encode          seam request -> an HTTP request to mock://local/v1/generate
 *                   whose JSON body describes the request and carries the merged
 *                   script (conf `options`, overridden key by key by the
 *                   request's provider options);
 *   serve           reads that body back and produces the bytes a server would
 *                   send: SSE events of the mock's own small wire when streaming,
 *                   a JSON body otherwise, or a scripted HTTP error / cut stream;
 *   decode_*        turn those bytes into seam chunks, as a real codec would.
 *
 * The mock's wire. Streamed, one SSE event per served piece, `event:` = type:
 *   {"type":"reasoning_delta","text":T}   {"type":"reasoning_end","signature":S}
 *   {"type":"text_delta","text":T}
 *   {"type":"tool_call_start","id":I,"name":N}  {"type":"tool_call_delta","id":I,"text":F}
 *   {"type":"tool_call_end","id":I}
 *   {"type":"stop","stop_reason":R,"usage":{...}}   {"type":"error","error":{"type":K,"message":M}}
 * Whole: {"content":[{"type":"reasoning"|"text"|"tool_call",...}],"stop_reason":R,
 *         "usage":{...}} (with "error" instead of stop_reason/usage for a stream_error).
 *
 * The script (the provider's conf `options`, overridden key by key by the
 * request's provider options):
 *   reply        the answer text (default "Hello from the seam mock provider.
 *                You said: <last user text>")
 *   chunks       pieces the text (and reasoning, and a whole body) is sent in (4)
 *   delay_ms     pause before every piece (0)
 *   reasoning, signature   a reasoning block before the text
 *   tool_calls   ( { id, name, args } ...) after the text; args an object or JSON
 *                text; stop reason tool_use; args streamed in 2+ fragments
 *   stop_reason  override; usage { input_tokens, output_tokens, cache_read_tokens,
 *                cache_write_tokens, reasoning_tokens } (default input = words in
 *                the messages' text parts, output = words in the reply)
 *   error_status, error_body, error_headers   answer with that HTTP error
 *   cut_after    the connection drops after this many pieces (no stop event)
 *   stream_error { type, message }: an error event after the text, in a 200 stream
 *   replies      a list of objects with the keys above, laid over the top-level
 *                keys: entry = the number of assistant messages in the request
 *                (stateless, so tool loops and retries can be scripted); past the
 *                end the last one repeats.
 * Unknown keys are ignored: options meant for another provider of a chain must
 * not break the offline fallback. A key of the wrong type is a bad_request.
 *
 * Embeddings (embed.c) and the token count endpoint (count_tokens.c) are
 * served from the same `serve` hook, told apart by the request's URL. */
#include "config.h"

#include <seam/plugin.h>

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/codec_util.h"
#include "mock_internal.h"

#define MOCK_URL "mock://local/v1/generate"

/* ---- small helpers (the shared ones are in ../common/codec_util.c) ---------- */

static int is_number(json_object *v)
{
    return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
}

/* Adds key = v to object o, taking v; NULL-safe so that an allocation failure
 * anywhere in a tree only makes the result -1 (json-c asserts on a NULL object). */
static int put(json_object *o, const char *key, json_object *v)
{
    /* v NULL is a value whose allocation failed, not a JSON null. */
    if (!o || !v || json_object_object_add(o, key, v) != 0) {
        json_object_put(v);
        return -1;
    }
    return 0;
}

/* Appends v to array a, taking v; NULL-safe like put(). */
static int push(json_object *a, json_object *v)
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
static int add_string(json_object *o, const char *key, const char *value)
{
    if (!value)
        return 0;
    json_object *s = json_object_new_string(value);
    if (!s)
        return -1;
    return put(o, key, s);
}

static int64_t count_words(const char *s)
{
    int64_t n = 0;
    int in_word = 0;
    for (; s && *s; s++) {
        int space = *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' ||
                    *s == '\v';
        if (!space && !in_word)
            n++;
        in_word = !space;
    }
    return n;
}

static seam_error_kind kind_from_name(const char *name)
{
    if (!name)
        return SEAM_ERROR_NONE;
    for (int k = SEAM_ERROR_RATE_LIMIT; k <= SEAM_ERROR_UNKNOWN; k++)
        if (strcmp(seam_error_kind_name((seam_error_kind)k), name) == 0)
            return (seam_error_kind)k;
    return SEAM_ERROR_NONE;
}

static seam_stop_reason stop_from_name(const char *name)
{
    for (int r = SEAM_STOP_STOP; r <= SEAM_STOP_ERROR; r++)
        if (name && strcmp(seam_stop_reason_name((seam_stop_reason)r), name) == 0)
            return (seam_stop_reason)r;
    return SEAM_STOP_NONE;
}

/* Calls piece(ud, p, len) for at most n pieces of s of roughly equal numbers of
 * code points (never splitting a UTF-8 sequence). Nothing for an empty s. */
static int split_utf8(const char *s, long n, int (*piece)(void *, const char *, size_t), void *ud)
{
    size_t cps = 0;
    for (const char *p = s; *p; p++)
        if (((unsigned char)*p & 0xC0) != 0x80)
            cps++;
    if (cps == 0)
        return 0;
    if (n < 1)
        n = 1;
    if ((size_t)n > cps)
        n = (long)cps;
    const char *start = s;
    size_t cp_index = 0;
    for (long k = 0; k < n; k++) {
        size_t end_cp = (size_t)(((unsigned long long)(k + 1) * cps) / (unsigned long long)n);
        const char *p = start;
        /* Advance to the start of code point end_cp (or the end of the string). */
        while (*p && cp_index < end_cp) {
            p++;
            while (*p && ((unsigned char)*p & 0xC0) == 0x80)
                p++;
            cp_index++;
        }
        int rc = piece(ud, start, (size_t)(p - start));
        if (rc)
            return rc;
        start = p;
    }
    return 0;
}

/* ---- create / destroy ----------------------------------------------------------- */

static void *mock_create(const seam_provider_config *cfg, seam_error *err)
{
    const char *opts = cfg && cfg->options_json ? cfg->options_json : "{}";
    json_object *o = json_parse_strict(opts, strlen(opts));
    int ok = o && json_object_is_type(o, json_type_object);
    json_object_put(o);
    if (!ok) {
        seam_error_set(err, SEAM_ERROR_CONF, "mock: the provider's options are not a JSON object");
        return NULL;
    }
    mock_instance *m = calloc(1, sizeof *m);
    if (!m || !(m->options_json = strdup(opts))) {
        free(m);
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory");
        return NULL;
    }
    return m;
}

static void mock_destroy(void *instance)
{
    mock_instance *m = instance;
    if (!m)
        return;
    free(m->options_json);
    free(m);
}

/* ---- encode: seam request -> the mock's HTTP request ---------------------------- */

/* A JSON value from text, or the text as a JSON string when it does not parse. */
static json_object *json_or_string(const char *text)
{
    json_object *v = text ? json_parse_strict(text, strlen(text)) : NULL;
    if (v || (text && strcmp(text, "null") == 0))
        return v;
    return json_object_new_string(text ? text : "");
}

static json_object *encode_part(const seam_part *p)
{
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    int rc = 0;
    switch (seam_part_get_type(p)) {
    case SEAM_PART_TEXT:
        rc |= add_string(o, "type", "text");
        rc |= add_string(o, "text", seam_part_text(p));
        break;
    case SEAM_PART_REASONING:
        rc |= add_string(o, "type", "reasoning");
        rc |= add_string(o, "text", seam_part_text(p));
        rc |= add_string(o, "signature", seam_part_signature(p));
        rc |= put(o, "redacted",
                                     json_object_new_boolean(seam_part_redacted(p)));
        break;
    case SEAM_PART_TOOL_CALL:
        rc |= add_string(o, "type", "tool_call");
        rc |= add_string(o, "id", seam_part_tool_call_id(p));
        rc |= add_string(o, "name", seam_part_tool_name(p));
        rc |= put(o, "args", json_or_string(seam_part_args_json(p)));
        break;
    case SEAM_PART_TOOL_RESULT:
        rc |= add_string(o, "type", "tool_result");
        rc |= add_string(o, "tool_call_id", seam_part_tool_call_id(p));
        rc |= add_string(o, "name", seam_part_tool_name(p));
        rc |= put(o, "result", json_or_string(seam_part_result_json(p)));
        rc |= put(o, "is_error",
                                     json_object_new_boolean(seam_part_is_error(p)));
        break;
    case SEAM_PART_MEDIA:
        rc |= add_string(o, "type", "media");
        rc |= add_string(o, "mime_type", seam_part_mime_type(p));
        rc |= add_string(o, "source",
                         seam_part_media_source(p) == SEAM_MEDIA_URL ? "url" : "base64");
        rc |= add_string(o, "data", seam_part_media_data(p));
        break;
    default:
        rc = -1;
    }
    if (rc) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static const char *role_name(seam_role r)
{
    switch (r) {
    case SEAM_ROLE_USER: return "user";
    case SEAM_ROLE_ASSISTANT: return "assistant";
    case SEAM_ROLE_TOOL: return "tool";
    }
    return "user";
}

/* The conf options with the request's provider options laid over them, key by key. */
static json_object *merged_options(const mock_instance *m, const seam_request *req,
                                   seam_error *err)
{
    json_object *base = json_parse_strict(m->options_json, strlen(m->options_json));
    if (!base) {
        /* The options parsed when the provider was created: only memory can
         * fail now, and a script silently dropped would answer differently. */
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory");
        return NULL;
    }
    if (!json_object_is_type(base, json_type_object)) {
        json_object_put(base);
        base = json_object_new_object();
    }
    const char *ropts = seam_request_provider_options(req);
    if (ropts && *ropts) {
        json_object *over = json_parse_strict(ropts, strlen(ropts));
        if (!over || !json_object_is_type(over, json_type_object)) {
            json_object_put(over);
            json_object_put(base);
            seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                           "mock: the request's provider options are not a JSON object");
            return NULL;
        }
        json_object_object_foreach(over, key, val)
            json_object_object_add(base, key, json_object_get(val));
        json_object_put(over);
    }
    return base;
}

int mock_encode(void *instance, const seam_request *req, int stream, seam_http_request *out,
                seam_error *err)
{
    mock_instance *m = instance;
    json_object *options = merged_options(m, req, err);
    if (!options)
        return SEAM_ERR_INVALID;
    /* Children are filled before they are attached: put()/push() consume them. */
    json_object *root = json_object_new_object();
    int rc = root ? 0 : -1;
    if (rc == 0) {
        const char *model = seam_request_model(req);
        rc |= put(root, "model", model ? json_object_new_string(model) : NULL);
        rc |= add_string(root, "system", seam_request_system(req));
        rc |= put(root, "stream", json_object_new_boolean(stream));

        json_object *msgs = json_object_new_array();
        for (size_t i = 0; msgs && i < seam_request_message_count(req); i++) {
            const seam_message *msg = seam_request_message(req, i);
            json_object *parts = json_object_new_array();
            for (size_t j = 0; parts && j < seam_message_part_count(msg); j++)
                rc |= push(parts, encode_part(seam_message_part(msg, j)));
            json_object *jm = json_object_new_object();
            rc |= add_string(jm, "role", role_name(seam_message_role(msg)));
            rc |= put(jm, "content", parts);
            rc |= push(msgs, jm);
        }
        rc |= put(root, "messages", msgs);

        if (seam_request_tool_count(req) > 0) {
            json_object *tools = json_object_new_array();
            for (size_t i = 0; tools && i < seam_request_tool_count(req); i++) {
                json_object *t = json_object_new_object();
                rc |= add_string(t, "name", seam_request_tool_name(req, i));
                rc |= add_string(t, "description", seam_request_tool_description(req, i));
                rc |= put(t, "parameters", json_or_string(seam_request_tool_parameters(req, i)));
                rc |= push(tools, t);
            }
            rc |= put(root, "tools", tools);
            const char *named = NULL;
            switch (seam_request_tool_choice(req, &named)) {
            case SEAM_TOOL_CHOICE_NONE: rc |= add_string(root, "tool_choice", "none"); break;
            case SEAM_TOOL_CHOICE_REQUIRED: rc |= add_string(root, "tool_choice", "required"); break;
            case SEAM_TOOL_CHOICE_NAMED: {
                json_object *tc = json_object_new_object();
                rc |= add_string(tc, "name", named ? named : "");
                rc |= put(root, "tool_choice", tc);
                break;
            }
            default: rc |= add_string(root, "tool_choice", "auto"); break;
            }
        }

        double temperature;
        if (seam_request_temperature(req, &temperature))
            rc |= put(root, "temperature", json_object_new_double(temperature));
        if (seam_request_max_tokens(req) > 0)
            rc |= put(root, "max_tokens", json_object_new_int64(seam_request_max_tokens(req)));
        if (seam_request_reasoning_budget(req) > 0)
            rc |= put(root, "reasoning_budget",
                      json_object_new_int64(seam_request_reasoning_budget(req)));
        if (seam_request_stop_count(req) > 0) {
            json_object *stops = json_object_new_array();
            for (size_t i = 0; stops && i < seam_request_stop_count(req); i++)
                rc |= push(stops, json_object_new_string(seam_request_stop(req, i)));
            rc |= put(root, "stop", stops);
        }
        const char *fmt_name = NULL, *schema = NULL;
        int strict = 0;
        if (seam_request_response_format(req, &fmt_name, &schema, &strict) == SEAM_FORMAT_JSON) {
            json_object *rf = json_object_new_object();
            rc |= add_string(rf, "type", "json");
            rc |= add_string(rf, "name", fmt_name ? fmt_name : "response");
            if (schema)
                rc |= put(rf, "schema", json_or_string(schema));
            rc |= put(rf, "strict", json_object_new_boolean(strict));
            rc |= put(root, "response_format", rf);
        }
        rc |= put(root, "options", options);
        options = NULL;
    }
    json_object_put(options);
    if (rc == 0 && seam_request_output_modalities(req) != SEAM_MODALITY_TEXT)
        rc |= put(root, "output_modalities",
                  json_object_new_int64((int64_t)seam_request_output_modalities(req)));

    const char *text = rc == 0 ? json_object_to_json_string_ext(root, JSON_FLAGS) : NULL;
    int status = text ? SEAM_OK : SEAM_ERR_NOMEM;
    if (status == SEAM_OK)
        status = seam_http_request_set_url(out, MOCK_URL);
    if (status == SEAM_OK)
        status = seam_http_request_set_method(out, SEAM_HTTP_POST);
    if (status == SEAM_OK)
        status = seam_http_request_add_header(out, "Content-Type", "application/json");
    if (status == SEAM_OK && stream)
        status = seam_http_request_add_header(out, "Accept", "text/event-stream");
    /* Like a real provider, the credential (if the conf gives one) goes in a
     * secret header; the mock never checks it. */
    if (status == SEAM_OK)
        status = seam_http_request_add_secret_header(out, "Authorization", "Bearer ");
    if (status == SEAM_OK)
        status = seam_http_request_set_body(out, text, strlen(text));
    json_object_put(root);
    if (status != SEAM_OK)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: cannot build the request");
    return status;
}

/* ---- the script ----------------------------------------------------------------- */

typedef struct mock_tool {
    char *id;
    char *name;
    char *args; /* a JSON object as compact text */
} mock_tool;

typedef struct mock_script {
    char *reply;
    long chunks;
    unsigned delay_ms;
    const char *reasoning;
    const char *signature;
    mock_tool *tools;
    size_t n_tools;
    seam_stop_reason stop_reason;
    seam_usage usage;
    int error_status;
    const char *error_body;
    json_object *error_headers; /* array of "Name: value" strings, or NULL */
    long cut_after;             /* -1: no cut */
    int stream_error;
    const char *stream_error_type;
    const char *stream_error_message;
    uint32_t media;             /* output modalities asked for beyond text */
} mock_script;

static void script_free(mock_script *sc)
{
    free(sc->reply);
    for (size_t i = 0; i < sc->n_tools; i++) {
        free(sc->tools[i].id);
        free(sc->tools[i].name);
        free(sc->tools[i].args);
    }
    free(sc->tools);
}

static int bad_option(seam_error *err, const char *key, const char *what)
{
    seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "mock: script option '%s' must be %s", key, what);
    return SEAM_ERR_INVALID;
}

/* An integer option in [min, max]; *out untouched when absent. */
static int opt_int(json_object *o, const char *key, int64_t min, int64_t max, int64_t *out,
                   seam_error *err)
{
    json_object *v = jget(o, key);
    if (!v)
        return SEAM_OK;
    if (!is_number(v))
        return bad_option(err, key, "an integer");
    int64_t n = json_object_get_int64(v);
    if (n < min || n > max)
        return bad_option(err, key, "an integer in range");
    *out = n;
    return SEAM_OK;
}

static int opt_string(json_object *o, const char *key, const char **out, seam_error *err)
{
    json_object *v = jget(o, key);
    if (!v)
        return SEAM_OK;
    if (!json_object_is_type(v, json_type_string))
        return bad_option(err, key, "a string");
    *out = json_object_get_string(v);
    return SEAM_OK;
}

/* Text of the last user message (its text parts) from the encoded request. */
static const char *last_user_text(json_object *messages, strbuf *scratch)
{
    size_t n = messages && json_object_is_type(messages, json_type_array)
                   ? json_object_array_length(messages) : 0;
    for (size_t i = n; i-- > 0;) {
        json_object *m = json_object_array_get_idx(messages, i);
        const char *role = jstr(m, "role");
        if (!role || strcmp(role, "user") != 0)
            continue;
        json_object *parts = jget(m, "content");
        size_t np = parts && json_object_is_type(parts, json_type_array)
                        ? json_object_array_length(parts) : 0;
        for (size_t j = 0; j < np; j++) {
            json_object *p = json_object_array_get_idx(parts, j);
            const char *type = jstr(p, "type");
            const char *text = jstr(p, "text");
            if (type && strcmp(type, "text") == 0 && text)
                sb_puts(scratch, text);
        }
        break;
    }
    sb_append(scratch, "", 0);
    return scratch->failed ? NULL : scratch->data;
}

/* Words in the text parts of every message: the default input token count. */
int64_t request_words(json_object *messages)
{
    int64_t words = 0;
    size_t n = messages && json_object_is_type(messages, json_type_array)
                   ? json_object_array_length(messages) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *parts = jget(json_object_array_get_idx(messages, i), "content");
        size_t np = parts && json_object_is_type(parts, json_type_array)
                        ? json_object_array_length(parts) : 0;
        for (size_t j = 0; j < np; j++) {
            json_object *p = json_object_array_get_idx(parts, j);
            const char *type = jstr(p, "type");
            if (type && strcmp(type, "text") == 0)
                words += count_words(jstr(p, "text"));
        }
    }
    return words;
}

static size_t assistant_turns(json_object *messages)
{
    size_t turns = 0;
    size_t n = messages && json_object_is_type(messages, json_type_array)
                   ? json_object_array_length(messages) : 0;
    for (size_t i = 0; i < n; i++) {
        const char *role = jstr(json_object_array_get_idx(messages, i), "role");
        if (role && strcmp(role, "assistant") == 0)
            turns++;
    }
    return turns;
}

static int parse_tools(json_object *script, size_t turn, mock_script *sc, seam_error *err)
{
    json_object *list = jget(script, "tool_calls");
    if (!list)
        return SEAM_OK;
    if (!json_object_is_type(list, json_type_array))
        return bad_option(err, "tool_calls", "a list of {id, name, args}");
    size_t n = json_object_array_length(list);
    if (n == 0)
        return SEAM_OK;
    sc->tools = calloc(n, sizeof *sc->tools);
    if (!sc->tools)
        return SEAM_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        json_object *t = json_object_array_get_idx(list, i);
        if (!t || !json_object_is_type(t, json_type_object))
            return bad_option(err, "tool_calls", "a list of {id, name, args}");
        mock_tool *mt = &sc->tools[sc->n_tools++];
        const char *id = jstr(t, "id");
        const char *name = jstr(t, "name");
        if (!name || !*name)
            return bad_option(err, "tool_calls", "a list whose entries have a name");
        char id_buf[64];
        if (!id || !*id) {
            snprintf(id_buf, sizeof id_buf, "call_%zu_%zu", turn, i);
            id = id_buf;
        }
        json_object *args = jget(t, "args");
        json_object *parsed = NULL;
        if (args && json_object_is_type(args, json_type_string)) {
            const char *s = json_object_get_string(args);
            parsed = json_parse_strict(s, strlen(s));
            if (!parsed || !json_object_is_type(parsed, json_type_object)) {
                json_object_put(parsed);
                return bad_option(err, "tool_calls", "a list whose args are JSON objects");
            }
        } else if (args && !json_object_is_type(args, json_type_object)) {
            return bad_option(err, "tool_calls", "a list whose args are JSON objects");
        }
        json_object *use = parsed ? parsed : args;
        mt->id = strdup(id);
        mt->name = strdup(name);
        errno = 0;
        const char *printed = use ? json_object_to_json_string_ext(use, JSON_FLAGS) : "{}";
        /* NULL or printed short (see add_event): out of memory */
        mt->args = printed && errno != ENOMEM ? strdup(printed) : NULL;
        json_object_put(parsed);
        if (!mt->id || !mt->name || !mt->args)
            return SEAM_ERR_NOMEM;
    }
    return SEAM_OK;
}

static int parse_usage(json_object *script, mock_script *sc, int64_t input_default,
                       seam_error *err)
{
    sc->usage.present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT;
    sc->usage.input_tokens = input_default;
    sc->usage.output_tokens = count_words(sc->reply);
    json_object *u = jget(script, "usage");
    if (!u)
        return SEAM_OK;
    if (!json_object_is_type(u, json_type_object))
        return bad_option(err, "usage", "an object of token counts");
    static const struct { const char *key; uint32_t bit; size_t off; } fields[] = {
        { "input_tokens", SEAM_USAGE_INPUT, offsetof(seam_usage, input_tokens) },
        { "output_tokens", SEAM_USAGE_OUTPUT, offsetof(seam_usage, output_tokens) },
        { "cache_read_tokens", SEAM_USAGE_CACHE_READ, offsetof(seam_usage, cache_read_tokens) },
        { "cache_write_tokens", SEAM_USAGE_CACHE_WRITE, offsetof(seam_usage, cache_write_tokens) },
        { "reasoning_tokens", SEAM_USAGE_REASONING, offsetof(seam_usage, reasoning_tokens) },
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        json_object *v = jget(u, fields[i].key);
        if (!v)
            continue;
        if (!is_number(v) || json_object_get_int64(v) < 0)
            return bad_option(err, "usage", "an object of non-negative token counts");
        *(int64_t *)((char *)&sc->usage + fields[i].off) = json_object_get_int64(v);
        sc->usage.present |= fields[i].bit;
    }
    return SEAM_OK;
}

/* The effective script of this turn: the top-level keys, with the entry of
 * `replies` for this turn laid over them. Returns a new object. */
/* A member that could not be added would leave the script short of a
 * setting, and the mock would answer with its default instead: out of memory. */
static int script_add(json_object *script, const char *key, json_object *val)
{
    json_object_get(val);
    if (json_object_object_add(script, key, val) == 0)
        return 1;
    json_object_put(val);
    return 0;
}

/* NULL with err set: the replies are malformed, or memory ran out. */
static json_object *script_for_turn(json_object *options, size_t turn, seam_error *err)
{
    json_object *script = json_object_new_object();
    int ok = script != NULL;
    json_object_object_foreach(options, key, val) {
        if (ok && strcmp(key, "replies") != 0)
            ok = script_add(script, key, val);
    }
    json_object *replies = jget(options, "replies");
    if (ok && replies) {
        size_t n = json_object_is_type(replies, json_type_array)
                       ? json_object_array_length(replies) : 0;
        json_object *entry = n ? json_object_array_get_idx(replies, turn < n ? turn : n - 1) : NULL;
        if (!entry || !json_object_is_type(entry, json_type_object)) {
            json_object_put(script);
            bad_option(err, "replies", "a non-empty list of objects");
            return NULL;
        }
        json_object_object_foreach(entry, ekey, eval) {
            if (ok)
                ok = script_add(script, ekey, eval);
        }
    }
    if (!ok) {
        json_object_put(script);
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory");
        return NULL;
    }
    return script;
}

/* Reads the script out of the encoded request. Strings in sc borrow from
 * `script` (kept alive by the caller). */
static int read_script(json_object *request, json_object *script, size_t turn,
                       mock_script *sc, seam_error *err)
{
    json_object *messages = jget(request, "messages");
    int64_t n;
    int rc;
    sc->chunks = 4;
    sc->cut_after = -1;
    json_object *om = jget(request, "output_modalities");
    sc->media = om ? (uint32_t)json_object_get_int64(om) : 0;

    const char *reply = NULL;
    if ((rc = opt_string(script, "reply", &reply, err)) != SEAM_OK)
        return rc;
    if (reply) {
        sc->reply = strdup(reply);
    } else {
        strbuf said = { 0 };
        const char *text = last_user_text(messages, &said);
        if (said.failed) { /* the prompt must not go missing from the echo */
            free(said.data);
            return SEAM_ERR_NOMEM;
        }
        strbuf out = { 0 };
        sb_puts(&out, "Hello from the seam mock provider. You said: ");
        sb_puts(&out, text ? text : "");
        free(said.data);
        if (out.failed) {
            free(out.data);
            return SEAM_ERR_NOMEM;
        }
        sc->reply = out.data;
    }
    if (!sc->reply)
        return SEAM_ERR_NOMEM;

    n = sc->chunks;
    if ((rc = opt_int(script, "chunks", 1, 1000000, &n, err)) != SEAM_OK)
        return rc;
    sc->chunks = (long)n;
    n = 0;
    if ((rc = opt_int(script, "delay_ms", 0, 3600000, &n, err)) != SEAM_OK)
        return rc;
    sc->delay_ms = (unsigned)n;
    if ((rc = opt_string(script, "reasoning", &sc->reasoning, err)) != SEAM_OK ||
        (rc = opt_string(script, "signature", &sc->signature, err)) != SEAM_OK)
        return rc;
    if ((rc = parse_tools(script, turn, sc, err)) != SEAM_OK)
        return rc;

    const char *stop = NULL;
    if ((rc = opt_string(script, "stop_reason", &stop, err)) != SEAM_OK)
        return rc;
    sc->stop_reason = sc->n_tools ? SEAM_STOP_TOOL_USE : SEAM_STOP_STOP;
    if (stop) {
        sc->stop_reason = stop_from_name(stop);
        if (sc->stop_reason == SEAM_STOP_NONE)
            return bad_option(err, "stop_reason", "stop, length, tool_use, content_filter or error");
    }
    if ((rc = parse_usage(script, sc, request_words(messages), err)) != SEAM_OK)
        return rc;

    n = 0;
    if ((rc = opt_int(script, "error_status", 0, 599, &n, err)) != SEAM_OK)
        return rc;
    if (n != 0 && n < 100)
        return bad_option(err, "error_status", "an HTTP status");
    sc->error_status = (int)n;
    if ((rc = opt_string(script, "error_body", &sc->error_body, err)) != SEAM_OK)
        return rc;
    sc->error_headers = jget(script, "error_headers");
    if (sc->error_headers) {
        if (!json_object_is_type(sc->error_headers, json_type_array))
            return bad_option(err, "error_headers", "a list of \"Name: value\" strings");
        for (size_t i = 0; i < json_object_array_length(sc->error_headers); i++) {
            json_object *h = json_object_array_get_idx(sc->error_headers, i);
            if (!h || !json_object_is_type(h, json_type_string) ||
                !strchr(json_object_get_string(h), ':'))
                return bad_option(err, "error_headers", "a list of \"Name: value\" strings");
        }
    }
    n = -1;
    if ((rc = opt_int(script, "cut_after", 0, 100000000, &n, err)) != SEAM_OK)
        return rc;
    sc->cut_after = (long)n;

    json_object *se = jget(script, "stream_error");
    if (se) {
        if (!json_object_is_type(se, json_type_object))
            return bad_option(err, "stream_error", "an object {type, message}");
        sc->stream_error = 1;
        sc->stream_error_type = jstr(se, "type");
        sc->stream_error_message = jstr(se, "message");
    }
    return SEAM_OK;
}

/* ---- serve: the bytes a mock server would send ------------------------------------ */

typedef struct piece_list {
    char **v;
    size_t n, cap;
    int failed;
} piece_list;

static void pieces_take(piece_list *l, char *s)
{
    if (!s || l->failed) {
        free(s);
        l->failed = 1;
        return;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **p = realloc(l->v, cap * sizeof *p);
        if (!p) {
            free(s);
            l->failed = 1;
            return;
        }
        l->v = p;
        l->cap = cap;
    }
    l->v[l->n++] = s;
}

static void pieces_free(piece_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* Adds one SSE event "event: <type>\ndata: <json>\n\n" and releases ev. */
static void add_event(piece_list *l, json_object *ev)
{
    char *s = NULL;
    if (ev) {
        const char *type = jstr(ev, "type");
        /* json-c's printer skips what it cannot append and still returns the
         * text: errno ENOMEM is the only sign of an event printed short. */
        errno = 0;
        const char *data = json_object_to_json_string_ext(ev, JSON_FLAGS);
        if (errno == ENOMEM)
            data = NULL;
        if (type && data && asprintf(&s, "event: %s\ndata: %s\n\n", type, data) < 0)
            s = NULL;
        json_object_put(ev);
    }
    pieces_take(l, s);
}

static json_object *event_new(const char *type)
{
    json_object *ev = json_object_new_object();
    if (ev && add_string(ev, "type", type) != 0) {
        json_object_put(ev);
        return NULL;
    }
    return ev;
}

typedef struct delta_ctx {
    piece_list *l;
    const char *type;
    const char *id; /* tool call deltas only */
} delta_ctx;

static int add_delta(void *ud, const char *text, size_t len)
{
    delta_ctx *d = ud;
    json_object *ev = event_new(d->type);
    if (ev && d->id)
        add_string(ev, "id", d->id);
    json_object *t = json_object_new_string_len(text, (int)len);
    if (ev && (!t || put(ev, "text", t) != 0)) {
        json_object_put(ev);
        ev = NULL;
    }
    add_event(d->l, ev);
    return d->l->failed;
}

static json_object *usage_json(const seam_usage *u)
{
    json_object *o = json_object_new_object();
    int rc = 0;
    if (u->present & SEAM_USAGE_INPUT)
        rc |= put(o, "input_tokens", json_object_new_int64(u->input_tokens));
    if (u->present & SEAM_USAGE_OUTPUT)
        rc |= put(o, "output_tokens", json_object_new_int64(u->output_tokens));
    if (u->present & SEAM_USAGE_CACHE_READ)
        rc |= put(o, "cache_read_tokens", json_object_new_int64(u->cache_read_tokens));
    if (u->present & SEAM_USAGE_CACHE_WRITE)
        rc |= put(o, "cache_write_tokens", json_object_new_int64(u->cache_write_tokens));
    if (u->present & SEAM_USAGE_REASONING)
        rc |= put(o, "reasoning_tokens", json_object_new_int64(u->reasoning_tokens));
    if (rc) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static json_object *error_json(const mock_script *sc)
{
    json_object *e = json_object_new_object();
    int rc = add_string(e, "type", sc->stream_error_type ? sc->stream_error_type : "overloaded");
    rc |= add_string(e, "message", sc->stream_error_message ? sc->stream_error_message
                                                             : "mock: scripted stream error");
    if (rc) {
        json_object_put(e);
        return NULL;
    }
    return e;
}

/* Deterministic media: a 1x1 PNG (every chunk's CRC valid) and a WAV of
 * 8 silent 8 kHz 8-bit mono samples, in base64. */
const char mock_png_b64[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const char mock_wav_b64[] =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/* The media items of the answer: an image and/or audio as the request asked. */
static int add_media_items(const mock_script *sc, json_object *(*make)(void),
                           void (*take)(void *, json_object *), void *ud)
{
    int rc = 0;
    const struct { uint32_t bit; const char *mime, *data; } media[] = {
        {SEAM_MODALITY_IMAGE, "image/png", mock_png_b64},
        {SEAM_MODALITY_AUDIO, "audio/wav", mock_wav_b64},
    };
    for (size_t i = 0; i < sizeof media / sizeof media[0]; i++) {
        if (!(sc->media & media[i].bit))
            continue;
        json_object *m = make();
        rc |= add_string(m, "mime_type", media[i].mime);
        rc |= add_string(m, "data", media[i].data);
        take(ud, m);
    }
    return rc;
}

static json_object *media_event(void)
{
    return event_new("media");
}

static void take_event(void *ud, json_object *e)
{
    add_event(ud, e);
}

static json_object *media_part(void)
{
    json_object *p = json_object_new_object();
    add_string(p, "type", "media");
    return p;
}

static void take_part(void *ud, json_object *p)
{
    push(ud, p);
}

/* The SSE events of a streamed answer, in order, one piece each. */
static void stream_events(const mock_script *sc, piece_list *l)
{
    int rc = 0;
    if (sc->reasoning && *sc->reasoning) {
        delta_ctx d = { l, "reasoning_delta", NULL };
        split_utf8(sc->reasoning, sc->chunks, add_delta, &d);
        json_object *end = event_new("reasoning_end");
        rc |= add_string(end, "signature", sc->signature);
        add_event(l, end);
    }
    delta_ctx d = { l, "text_delta", NULL };
    split_utf8(sc->reply, sc->chunks, add_delta, &d);
    rc |= add_media_items(sc, media_event, take_event, l);
    if (sc->stream_error) {
        json_object *ev = event_new("error");
        json_object *e = error_json(sc);
        rc |= e ? put(ev, "error", e) : -1;
        add_event(l, ev);
    } else {
        for (size_t i = 0; i < sc->n_tools; i++) {
            const mock_tool *t = &sc->tools[i];
            json_object *start = event_new("tool_call_start");
            rc |= add_string(start, "id", t->id);
            rc |= add_string(start, "name", t->name);
            add_event(l, start);
            delta_ctx td = { l, "tool_call_delta", t->id };
            split_utf8(t->args, sc->chunks > 2 ? sc->chunks : 2, add_delta, &td);
            json_object *end = event_new("tool_call_end");
            rc |= add_string(end, "id", t->id);
            add_event(l, end);
        }
        json_object *stop = event_new("stop");
        rc |= add_string(stop, "stop_reason", seam_stop_reason_name(sc->stop_reason));
        json_object *usage = usage_json(&sc->usage);
        rc |= usage ? put(stop, "usage", usage) : -1;
        add_event(l, stop);
    }
    if (rc)
        l->failed = 1;
}

/* The JSON body of a non-streamed answer (malloc'ed), NULL when out of memory. */
static char *whole_body(const mock_script *sc)
{
    json_object *root = json_object_new_object();
    json_object *content = json_object_new_array();
    int rc = 0;
    if (sc->reasoning && *sc->reasoning) {
        json_object *p = json_object_new_object();
        rc |= add_string(p, "type", "reasoning");
        rc |= add_string(p, "text", sc->reasoning);
        rc |= add_string(p, "signature", sc->signature);
        rc |= push(content, p);
    }
    if (*sc->reply) {
        json_object *p = json_object_new_object();
        rc |= add_string(p, "type", "text");
        rc |= add_string(p, "text", sc->reply);
        rc |= push(content, p);
    }
    rc |= add_media_items(sc, media_part, take_part, content);
    if (sc->stream_error) {
        json_object *e = error_json(sc);
        rc |= e ? put(root, "error", e) : -1;
    } else {
        for (size_t i = 0; i < sc->n_tools; i++) {
            json_object *p = json_object_new_object();
            rc |= add_string(p, "type", "tool_call");
            rc |= add_string(p, "id", sc->tools[i].id);
            rc |= add_string(p, "name", sc->tools[i].name);
            rc |= put(p, "args", json_parse_strict(sc->tools[i].args, strlen(sc->tools[i].args)));
            rc |= push(content, p);
        }
        rc |= add_string(root, "stop_reason", seam_stop_reason_name(sc->stop_reason));
        json_object *usage = usage_json(&sc->usage);
        rc |= usage ? put(root, "usage", usage) : -1;
    }
    rc |= put(root, "content", content);
    errno = 0;
    const char *s = rc == 0 ? json_object_to_json_string_ext(root, JSON_FLAGS) : NULL;
    char *copy = s && errno != ENOMEM ? strdup(s) : NULL; /* see add_event */
    json_object_put(root);
    return copy;
}

static int add_body_piece(void *ud, const char *text, size_t len)
{
    piece_list *l = ud;
    char *s = malloc(len + 1);
    if (s) {
        memcpy(s, text, len);
        s[len] = '\0';
    }
    pieces_take(l, s);
    return l->failed;
}

static int serve_error(const mock_script *sc, seam_served *out)
{
    int rc = seam_served_set_status(out, sc->error_status);
    if (rc == SEAM_OK)
        rc = seam_served_add_header(out, "Content-Type", "application/json");
    size_t n = sc->error_headers ? json_object_array_length(sc->error_headers) : 0;
    for (size_t i = 0; rc == SEAM_OK && i < n; i++) {
        const char *line = json_object_get_string(json_object_array_get_idx(sc->error_headers, i));
        const char *colon = strchr(line, ':');
        char *name = strndup(line, (size_t)(colon - line));
        const char *value = colon + 1;
        while (*value == ' ' || *value == '\t')
            value++;
        rc = name ? seam_served_add_header(out, name, value) : SEAM_ERR_NOMEM;
        free(name);
    }
    char fallback[160];
    const char *body = sc->error_body;
    if (!body) {
        snprintf(fallback, sizeof fallback,
                 "{\"error\":{\"message\":\"mock: scripted HTTP %d\"}}", sc->error_status);
        body = fallback;
    }
    if (rc == SEAM_OK)
        rc = seam_served_add_piece(out, body, strlen(body), sc->delay_ms);
    return rc;
}

int mock_serve_script_error(json_object *request, seam_served *out, seam_error *err)
{
    json_object *options = jget(request, "options");
    json_object *script = options && json_object_is_type(options, json_type_object)
                              ? script_for_turn(options, 0, err)
                              : json_object_new_object();
    if (!script)
        return err->kind == SEAM_ERROR_BAD_REQUEST ? SEAM_ERR_INVALID : SEAM_ERR_NOMEM;
    mock_script sc = { 0 };
    int rc = read_script(request, script, 0, &sc, err);
    if (rc == SEAM_OK && sc.error_status)
        rc = serve_error(&sc, out) == SEAM_OK ? 1 : SEAM_ERR_NOMEM;
    script_free(&sc);
    json_object_put(script);
    return rc;
}

static int mock_serve(void *instance, const seam_http_request *hr, seam_served *out,
                      seam_error *err)
{
    const char *url = seam_http_request_url(hr);
    if (url && strcmp(url, MOCK_EMBED_URL) == 0)
        return mock_embed_serve(instance, hr, out, err);
    if (url && strcmp(url, MOCK_COUNT_URL) == 0)
        return mock_count_serve(instance, hr, out, err);
    if (url && strncmp(url, MOCK_MEDIA_URL, strlen(MOCK_MEDIA_URL)) == 0)
        return mock_media_serve(instance, hr, out, err);
    if (url && strcmp(url, MOCK_TRANSCRIBE_URL) == 0)
        return mock_transcribe_serve(instance, hr, out, err);
    size_t len = 0;
    const char *body = seam_http_request_body(hr, &len);
    json_object *request = body ? json_parse_strict(body, len) : NULL;
    if (!request || !json_object_is_type(request, json_type_object)) {
        json_object_put(request);
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "mock: the request body is not JSON"),
               SEAM_ERR_INVALID;
    }
    json_object *options = jget(request, "options");
    size_t turn = assistant_turns(jget(request, "messages"));
    json_object *script = options && json_object_is_type(options, json_type_object)
                              ? script_for_turn(options, turn, err)
                              : json_object_new_object();
    mock_script sc = { 0 };
    int rc = script ? read_script(request, script, turn, &sc, err)
             : err->kind == SEAM_ERROR_BAD_REQUEST ? SEAM_ERR_INVALID : SEAM_ERR_NOMEM;
    if (!script && rc == SEAM_ERR_NOMEM)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory");
    piece_list l = { 0 };

    if (rc == SEAM_OK && sc.error_status) {
        rc = serve_error(&sc, out);
    } else if (rc == SEAM_OK) {
        int stream = seam_http_request_streaming(hr);
        rc = seam_served_set_status(out, 200);
        if (rc == SEAM_OK)
            rc = seam_served_add_header(out, "Content-Type",
                                        stream ? "text/event-stream" : "application/json");
        if (stream) {
            stream_events(&sc, &l);
        } else {
            char *whole = whole_body(&sc);
            /* A whole body arrives in `chunks` byte pieces too, so delays and cuts
             * apply to non-streamed calls alike. */
            if (whole) {
                size_t blen = strlen(whole), parts = (size_t)sc.chunks;
                if (parts > blen)
                    parts = blen ? blen : 1;
                for (size_t k = 0; k < parts; k++) {
                    size_t from = k * blen / parts, to = (k + 1) * blen / parts;
                    add_body_piece(&l, whole + from, to - from);
                }
            } else {
                l.failed = 1;
            }
            free(whole);
        }
        if (l.failed)
            rc = SEAM_ERR_NOMEM;
        size_t send = l.n;
        if (sc.cut_after >= 0 && (size_t)sc.cut_after < send)
            send = (size_t)sc.cut_after;
        for (size_t i = 0; rc == SEAM_OK && i < send; i++)
            rc = seam_served_add_piece(out, l.v[i], strlen(l.v[i]), sc.delay_ms);
        if (rc == SEAM_OK && sc.cut_after >= 0)
            rc = seam_served_cut(out);
    }
    if (rc == SEAM_ERR_NOMEM)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: out of memory");
    pieces_free(&l);
    script_free(&sc);
    json_object_put(script);
    json_object_put(request);
    return rc;
}

/* ---- decode ------------------------------------------------------------------------ */

typedef struct mock_decoder {
    int in_reasoning;
    int reasoning_seq;
    char reasoning_id[32];
    char *tool_id;
    strbuf tool_args;
} mock_decoder;

static void *mock_decoder_new(void *instance, const seam_request *req)
{
    (void)instance;
    (void)req;
    return calloc(1, sizeof(mock_decoder));
}

static void mock_decoder_free(void *decoder)
{
    mock_decoder *d = decoder;
    if (!d)
        return;
    free(d->tool_id);
    free(d->tool_args.data);
    free(d);
}

/* Parsed-and-reserialized arguments ("{}" for none); NULL when they do not parse. */
static char *normalize_args(const char *text, size_t len)
{
    if (len == 0)
        return strdup("{}");
    json_object *o = json_parse_strict(text, len);
    if (!o)
        return NULL;
    errno = 0;
    const char *printed = json_object_to_json_string_ext(o, JSON_FLAGS);
    char *s = printed && errno != ENOMEM ? strdup(printed) : NULL; /* see add_event */
    json_object_put(o);
    return s;
}

static int fill_usage(json_object *u, seam_usage *usage)
{
    static const struct { const char *key; uint32_t bit; size_t off; } fields[] = {
        { "input_tokens", SEAM_USAGE_INPUT, offsetof(seam_usage, input_tokens) },
        { "output_tokens", SEAM_USAGE_OUTPUT, offsetof(seam_usage, output_tokens) },
        { "cache_read_tokens", SEAM_USAGE_CACHE_READ, offsetof(seam_usage, cache_read_tokens) },
        { "cache_write_tokens", SEAM_USAGE_CACHE_WRITE, offsetof(seam_usage, cache_write_tokens) },
        { "reasoning_tokens", SEAM_USAGE_REASONING, offsetof(seam_usage, reasoning_tokens) },
    };
    memset(usage, 0, sizeof *usage);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        json_object *v = jget(u, fields[i].key);
        if (!is_number(v))
            continue;
        *(int64_t *)((char *)usage + fields[i].off) = json_object_get_int64(v);
        usage->present |= fields[i].bit;
    }
    return SEAM_OK;
}

static int emit_stop(json_object *o, seam_emitter *out)
{
    seam_chunk c = { .type = SEAM_CHUNK_STOP };
    c.stop_reason = stop_from_name(jstr(o, "stop_reason"));
    if (c.stop_reason == SEAM_STOP_NONE)
        c.stop_reason = SEAM_STOP_STOP;
    fill_usage(jget(o, "usage"), &c.usage);
    return seam_emit(out, &c);
}

/* An error object {type, message} -> err; returns SEAM_ERR_PROVIDER. */
static int error_from_json(json_object *e, seam_error *err)
{
    const char *type = jstr(e, "type");
    const char *message = jstr(e, "message");
    seam_error_kind kind = kind_from_name(type);
    seam_error_set(err, kind != SEAM_ERROR_NONE ? kind : SEAM_ERROR_UNKNOWN, "%s",
                   message ? message : "mock: stream error");
    if (err && type)
        seam_strlcpy(err->code, type, sizeof err->code);
    return SEAM_ERR_PROVIDER;
}

static int malformed(seam_error *err, const char *what)
{
    seam_error_set(err, SEAM_ERROR_UNKNOWN, "mock: malformed response (%s)", what);
    return SEAM_ERR_INVALID;
}

/* {"mime_type", "data": base64}: to the core's media store. */
static int emit_media(json_object *m, seam_emitter *out, seam_error *err)
{
    const char *mime = jstr(m, "mime_type");
    const char *data = jstr(m, "data");
    if (!mime || !data)
        return malformed(err, "media without mime_type or data");
    return seam_emit_media(out, NULL, mime, data, strlen(data), err);
}

static int mock_decode_event(void *decoder, const seam_frame *frame, seam_emitter *out,
                             seam_error *err)
{
    mock_decoder *d = decoder;
    json_object *ev = json_parse_strict(frame->data, frame->data_len);
    const char *type = jstr(ev, "type");
    int rc = SEAM_OK;
    if (!type) {
        json_object_put(ev);
        return malformed(err, "an event that is not a typed JSON object");
    }
    seam_chunk c = { 0 };
    if (strcmp(type, "reasoning_delta") == 0) {
        if (!d->in_reasoning) {
            d->in_reasoning = 1;
            snprintf(d->reasoning_id, sizeof d->reasoning_id, "reasoning_%d", d->reasoning_seq++);
            seam_chunk start = { .type = SEAM_CHUNK_REASONING_START, .id = d->reasoning_id };
            rc = seam_emit(out, &start);
        }
        if (rc == SEAM_OK) {
            c.type = SEAM_CHUNK_REASONING_DELTA;
            c.id = d->reasoning_id;
            c.text = jstr(ev, "text");
            rc = c.text ? seam_emit(out, &c) : malformed(err, "reasoning_delta without text");
        }
    } else if (strcmp(type, "reasoning_end") == 0) {
        if (d->in_reasoning) {
            c.type = SEAM_CHUNK_REASONING_END;
            c.id = d->reasoning_id;
            c.signature = jstr(ev, "signature");
            d->in_reasoning = 0;
            rc = seam_emit(out, &c);
        }
    } else if (strcmp(type, "text_delta") == 0) {
        c.type = SEAM_CHUNK_TEXT_DELTA;
        c.text = jstr(ev, "text");
        rc = c.text ? seam_emit(out, &c) : malformed(err, "text_delta without text");
    } else if (strcmp(type, "tool_call_start") == 0) {
        const char *id = jstr(ev, "id");
        const char *name = jstr(ev, "name");
        if (!id || !name) {
            rc = malformed(err, "tool_call_start without id or name");
        } else {
            free(d->tool_id);
            d->tool_id = strdup(id);
            d->tool_args.len = 0;
            if (d->tool_args.data)
                d->tool_args.data[0] = '\0';
            c.type = SEAM_CHUNK_TOOL_CALL_START;
            c.id = id;
            c.name = name;
            rc = d->tool_id ? seam_emit(out, &c) : SEAM_ERR_NOMEM;
        }
    } else if (strcmp(type, "tool_call_delta") == 0) {
        const char *text = jstr(ev, "text");
        if (!text || !d->tool_id) {
            rc = malformed(err, "tool_call_delta outside a tool call");
        } else {
            sb_puts(&d->tool_args, text);
            c.type = SEAM_CHUNK_TOOL_CALL_DELTA;
            c.id = d->tool_id;
            c.text = text;
            rc = d->tool_args.failed ? SEAM_ERR_NOMEM : seam_emit(out, &c);
        }
    } else if (strcmp(type, "tool_call_end") == 0) {
        if (!d->tool_id) {
            rc = malformed(err, "tool_call_end outside a tool call");
        } else {
            char *args = normalize_args(d->tool_args.data ? d->tool_args.data : "",
                                        d->tool_args.len);
            c.type = SEAM_CHUNK_TOOL_CALL_END;
            c.id = d->tool_id;
            /* Arguments that do not parse are handed on as sent: the accumulator
             * records the error and keeps the call with {}. */
            c.args_json = args ? args : (d->tool_args.data ? d->tool_args.data : "");
            rc = seam_emit(out, &c);
            free(args);
            free(d->tool_id);
            d->tool_id = NULL;
        }
    } else if (strcmp(type, "media") == 0) {
        rc = emit_media(ev, out, err);
    } else if (strcmp(type, "stop") == 0) {
        rc = emit_stop(ev, out);
    } else if (strcmp(type, "error") == 0) {
        rc = error_from_json(jget(ev, "error"), err);
    }
    /* Other event types are ignored, as a real codec ignores pings. */
    json_object_put(ev);
    return rc;
}

static int mock_decode_response(void *instance, const seam_request *req, const char *body,
                                size_t len, seam_emitter *out, seam_error *err)
{
    (void)instance;
    (void)req;
    json_object *root = json_parse_strict(body, len);
    json_object *content = jget(root, "content");
    if (!root || !content || !json_object_is_type(content, json_type_array)) {
        json_object_put(root);
        return malformed(err, "a body without content");
    }
    int rc = SEAM_OK;
    int reasoning_seq = 0;
    for (size_t i = 0; rc == SEAM_OK && i < json_object_array_length(content); i++) {
        json_object *p = json_object_array_get_idx(content, i);
        const char *type = jstr(p, "type");
        if (!type)
            continue;
        if (strcmp(type, "reasoning") == 0) {
            char id[32];
            snprintf(id, sizeof id, "reasoning_%d", reasoning_seq++);
            seam_chunk start = { .type = SEAM_CHUNK_REASONING_START, .id = id };
            seam_chunk delta = { .type = SEAM_CHUNK_REASONING_DELTA, .id = id,
                                 .text = jstr(p, "text") };
            seam_chunk end = { .type = SEAM_CHUNK_REASONING_END, .id = id,
                               .signature = jstr(p, "signature") };
            rc = seam_emit(out, &start);
            if (rc == SEAM_OK && delta.text)
                rc = seam_emit(out, &delta);
            if (rc == SEAM_OK)
                rc = seam_emit(out, &end);
        } else if (strcmp(type, "text") == 0) {
            seam_chunk c = { .type = SEAM_CHUNK_TEXT_DELTA, .text = jstr(p, "text") };
            if (c.text && *c.text)
                rc = seam_emit(out, &c);
        } else if (strcmp(type, "media") == 0) {
            rc = emit_media(p, out, err);
        } else if (strcmp(type, "tool_call") == 0) {
            const char *id = jstr(p, "id");
            const char *name = jstr(p, "name");
            json_object *args = jget(p, "args");
            const char *args_text = args ? json_object_to_json_string_ext(args, JSON_FLAGS) : "{}";
            if (!id || !name) {
                rc = malformed(err, "a tool_call without id or name");
                break;
            }
            seam_chunk start = { .type = SEAM_CHUNK_TOOL_CALL_START, .id = id, .name = name };
            seam_chunk delta = { .type = SEAM_CHUNK_TOOL_CALL_DELTA, .id = id, .text = args_text };
            seam_chunk end = { .type = SEAM_CHUNK_TOOL_CALL_END, .id = id, .args_json = args_text };
            rc = seam_emit(out, &start);
            if (rc == SEAM_OK)
                rc = seam_emit(out, &delta);
            if (rc == SEAM_OK)
                rc = seam_emit(out, &end);
        }
    }
    if (rc == SEAM_OK) {
        json_object *e = jget(root, "error");
        rc = e ? error_from_json(e, err) : emit_stop(root, out);
    }
    json_object_put(root);
    return rc;
}

/* A body {"error":{"type":<seam kind name>,"message":...,"code":...}} refines the
 * core's default from the status; anything else keeps it. */
static void mock_classify_error(void *instance, int http_status, const seam_http_headers *headers,
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
        seam_error_kind kind = kind_from_name(type);
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

static int mock_capabilities(void *instance, const char *model, seam_capabilities *caps)
{
    (void)instance;
    if (!caps)
        return SEAM_ERR_INVALID;
    caps->size = sizeof *caps;
    if (model && strstr(model, "embed")) {
        /* "mock-embed": an embedding model, which does not chat. */
        memset(caps, 0, sizeof *caps);
        caps->size = sizeof *caps;
        caps->embed = 1;
        caps->context_window = 8192;
        return SEAM_OK;
    }
    caps->embed = 0;
    caps->tools = 1;
    caps->streaming = 1;
    caps->parallel_tool_calls = 1;
    caps->vision = 1;
    caps->audio_input = 1;
    caps->pdf_input = 1;
    caps->prompt_cache = 1;
    caps->reasoning = 1;
    caps->structured_output = 1;
    caps->context_window = 1000000;
    caps->video_input = 1;
    /* It answers an image and/or audio when asked (a PNG, a WAV). */
    const uint32_t T = SEAM_MODALITY_TEXT, I = SEAM_MODALITY_IMAGE, A = SEAM_MODALITY_AUDIO;
    const uint32_t combos[] = {T, T | I, T | A, T | I | A, I, A};
    for (size_t i = 0; i < sizeof combos / sizeof combos[0]; i++)
        caps->output_combinations[i] = combos[i];
    caps->n_output_combinations = sizeof combos / sizeof combos[0];
    return SEAM_OK;
}

static const seam_provider_vtable mock_vtable = {
    .abi_version = SEAM_PLUGIN_ABI_VERSION,
    .size = sizeof(seam_provider_vtable),
    .id = "mock",
    .description = "scripted offline provider for tests and the default chain",
    .framing = SEAM_FRAMING_SSE,
    .create = mock_create,
    .destroy = mock_destroy,
    .encode = mock_encode,
    .decoder_new = mock_decoder_new,
    .decoder_free = mock_decoder_free,
    .decode_event = mock_decode_event,
    .decode_finish = NULL, /* the mock's wire ends with an explicit stop event */
    .decode_response = mock_decode_response,
    .classify_error = mock_classify_error,
    .capabilities = mock_capabilities,
    .serve = mock_serve,
    .embed_encode = mock_embed_encode,
    .embed_decode = mock_embed_decode,
    .count_tokens_encode = mock_count_encode,
    .count_tokens_decode = mock_count_decode,
    .media_encode = mock_media_encode,
    .media_decode = mock_media_decode,
    .media_poll_encode = mock_media_poll_encode,
    .media_poll_decode = mock_media_poll_decode,
    .transcribe_encode = mock_transcribe_encode,
    .transcribe_decode = mock_transcribe_decode,
};

static int mock_init(seam_registrar *r)
{
    return seam_registrar_add(r, &mock_vtable);
}

SEAM_PLUGIN_DEFINE(mock_init)
