/* script.c — the script: what the mock is to answer, read back out of an
 * encoded request (the provider's conf `options`, overridden key by key by the
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
 * not break the offline fallback. A key of the wrong type is a bad_request. */
#include "config.h"

#include <seam/plugin.h>

#include <errno.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/codec_util.h"
#include "mock_internal.h"

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

void mock_script_free(mock_script *sc)
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
    if (!mock_is_number(v))
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
int64_t mock_request_words(json_object *messages)
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

size_t mock_assistant_turns(json_object *messages)
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
        if (!mock_is_number(v) || json_object_get_int64(v) < 0)
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
json_object *mock_script_for_turn(json_object *options, size_t turn, seam_error *err)
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
int mock_read_script(json_object *request, json_object *script, size_t turn,
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
        sc->stop_reason = mock_stop_from_name(stop);
        if (sc->stop_reason == SEAM_STOP_NONE)
            return bad_option(err, "stop_reason", "stop, length, tool_use, content_filter or error");
    }
    if ((rc = parse_usage(script, sc, mock_request_words(messages), err)) != SEAM_OK)
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
