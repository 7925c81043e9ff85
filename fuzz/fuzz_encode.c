/* fuzz_encode.c — a libFuzzer harness for every codec's encoder: the input is
 * a little program that builds a seam_request through the public request and
 * message API (roles, text, reasoning, media, tool calls and results, tools
 * with JSON Schemas, tool choice, temperature, max tokens, stop sequences,
 * response format, provider options, reasoning budget) and the options of the
 * provider instance; the request is then encoded by the openai (chat and
 * responses), anthropic, gemini and mock plugins through their vtables,
 * streamed and not. Whatever the request, an encoder must return a status and
 * fill the error on failure, or a URL and a body that is valid JSON on
 * success, and encode a deep copy of the request to the same bytes. Never a
 * crash, a leak, undefined behaviour or an abort (json-c aborts on some NULL
 * arguments). The plugins are linked in with their init functions renamed
 * (fuzz/run.sh), and this harness is their registrar. */
#include "config.h"

#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "transport.h"

int seam_plugin_init_openai(seam_registrar *r);
int seam_plugin_init_anthropic(seam_registrar *r);
int seam_plugin_init_gemini(seam_registrar *r);
int seam_plugin_init_mock(seam_registrar *r);

static const seam_provider_vtable *vts[8];
static size_t n_vts;

int seam_registrar_add(seam_registrar *r, const seam_provider_vtable *v)
{
    (void)r;
    if (n_vts < sizeof vts / sizeof vts[0])
        vts[n_vts++] = v;
    return SEAM_OK;
}

/* ---- reading the input ------------------------------------------------------------ */

typedef struct input {
    const uint8_t *p;
    size_t n;
} input;

static unsigned byte(input *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

static uint64_t u64(input *in)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | byte(in);
    return v;
}

static const char *const words[] = {
    "", "hi", "gpt-4o", "o1-mini", "o3", "gpt-5", "gpt-6-luna", "claude-3-7-sonnet-latest",
    "claude-opus-4", "gemini-2.5-pro", "gemini-1.5-flash", "deepseek-reasoner", "mock",
    "image/png", "image/jpeg", "application/pdf", "audio/wav", "audio/mp3", "text/plain",
    "iVBORw0KGgo=", "https://example.com/a.png", "gs://bucket/x.pdf", "call_1", "toolu_01",
    "get_weather", "a.b-c", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\"quoted\"\\", "\n\r\t",
    "profile", "api", "responses", "chat", "auto", "reasoning_summary", "concise", "detailed",
    "none", "think_tags", "headers", "max_tokens_param", "max_tokens", "max_completion_tokens",
    "stream_usage", "cache_strategy", "capabilities", "thinking", "budget_tokens",
    "cache_control", "safety_settings", "generationConfig", "reasoning", "reasoning_effort",
    "type", "object", "string", "array", "integer", "number", "boolean", "null",
    "properties", "items", "required", "enum", "anyOf", "oneOf", "allOf", "$ref", "$defs",
    "additionalProperties", "format", "description", "deepseek", "groq", "mistral", "xai",
    "openrouter", "ollama", "vllm", "openai", "replies", "reply", "tool_calls", "chunks",
    "delay_ms", "error_status", "usage", "input_tokens", "output_tokens", "name", "args",
    "text", "model", "messages", "tools", "temperature", "stop", "strict",
};
#define N_WORDS (sizeof words / sizeof words[0])

/* A string: a known word, or up to 64 input bytes (cut at a NUL). Owned by
 * the caller's buffer. */
static const char *str(input *in, char *buf, size_t size)
{
    unsigned b = byte(in);
    if (b < 160)
        return words[b % N_WORDS];
    size_t len = byte(in) % 65, i = 0;
    while (i < len && i + 1 < size && in->n) {
        unsigned c = byte(in);
        if (!c)
            break;
        buf[i++] = (char)c;
    }
    buf[i] = '\0';
    return buf;
}

/* A JSON value built from the input, nested at most depth deep; sometimes the
 * raw bytes, valid JSON or not (the API must refuse what does not parse). */
static void gen_json(input *in, seam_buf *b, int depth)
{
    char tmp[80];
    unsigned k = byte(in) % (depth > 0 ? 10 : 6);
    switch (k) {
    case 0:
        seam_buf_puts(b, "null");
        break;
    case 1:
        seam_buf_puts(b, byte(in) & 1 ? "true" : "false");
        break;
    case 2: {
        static const char *const nums[] = {"0", "-1", "1e308", "-0.5", "9223372036854775807",
                                           "1e-400", "4096", "18446744073709551616"};
        seam_buf_puts(b, nums[byte(in) % 8]);
        break;
    }
    case 3:
    case 4:
    case 5: {
        json_object *s = json_object_new_string(str(in, tmp, sizeof tmp));
        seam_buf_puts(b, json_object_to_json_string_ext(s, JSON_C_TO_STRING_PLAIN));
        json_object_put(s);
        break;
    }
    case 6:
    case 7: {
        seam_buf_puts(b, "[");
        unsigned n = byte(in) % 4;
        for (unsigned i = 0; i < n; i++) {
            if (i)
                seam_buf_puts(b, ",");
            gen_json(in, b, depth - 1);
        }
        seam_buf_puts(b, "]");
        break;
    }
    default: {
        seam_buf_puts(b, "{");
        unsigned n = byte(in) % 5;
        for (unsigned i = 0; i < n; i++) {
            if (i)
                seam_buf_puts(b, ",");
            json_object *s = json_object_new_string(str(in, tmp, sizeof tmp));
            seam_buf_puts(b, json_object_to_json_string_ext(s, JSON_C_TO_STRING_PLAIN));
            json_object_put(s);
            seam_buf_puts(b, ":");
            gen_json(in, b, depth - 1);
        }
        seam_buf_puts(b, "}");
        break;
    }
    }
}

/* JSON text for an API argument: NULL, generated JSON, or raw bytes. */
static const char *json_arg(input *in, seam_buf *b)
{
    seam_buf_reset(b);
    unsigned k = byte(in) % 8;
    if (k == 0)
        return NULL;
    if (k == 1) {
        char tmp[80];
        seam_buf_puts(b, str(in, tmp, sizeof tmp));
    } else {
        gen_json(in, b, 4);
    }
    return b->data ? b->data : "";
}

/* ---- building the request ----------------------------------------------------------- */

static void add_parts(input *in, seam_message *m, seam_buf *jb)
{
    char a[80], c[80], d[80];
    unsigned n = 1 + byte(in) % 4;
    for (unsigned i = 0; i < n && in->n; i++) {
        switch (byte(in) % 5) {
        case 0:
            seam_message_add_text(m, str(in, a, sizeof a));
            break;
        case 1: {
            const char *text = str(in, a, sizeof a);
            const char *sig = byte(in) & 1 ? str(in, c, sizeof c) : NULL;
            seam_message_add_reasoning(m, text, sig, (int)(byte(in) & 1));
            break;
        }
        case 2: {
            const char *id = str(in, a, sizeof a);
            const char *name = str(in, c, sizeof c);
            seam_message_add_tool_call(m, id, name, json_arg(in, jb));
            break;
        }
        case 3: {
            const char *id = str(in, a, sizeof a);
            const char *name = byte(in) & 1 ? str(in, c, sizeof c) : NULL;
            const char *res = json_arg(in, jb);
            seam_message_add_tool_result(m, id, name, res ? res : "\"ok\"", (int)(byte(in) & 1));
            break;
        }
        default: {
            const char *mime = str(in, a, sizeof a);
            seam_media_source src = byte(in) & 1 ? SEAM_MEDIA_URL : SEAM_MEDIA_BASE64;
            seam_message_add_media(m, mime, src, str(in, d, sizeof d));
            break;
        }
        }
    }
}

static void build(input *in, seam_request *req)
{
    char a[80], c[80];
    seam_buf jb = {0};
    while (in->n) {
        switch (byte(in) % 13) {
        case 0:
            seam_request_set_model(req, str(in, a, sizeof a));
            break;
        case 1:
            seam_request_set_system(req, str(in, a, sizeof a));
            break;
        case 2:
        case 3: {
            seam_message *m = seam_message_new((seam_role)(1 + byte(in) % 3));
            if (!m)
                break;
            add_parts(in, m, &jb);
            if (seam_request_add_message(req, m) != SEAM_OK)
                seam_message_free(m);
            break;
        }
        case 4:
            seam_request_add_user_text(req, str(in, a, sizeof a));
            break;
        case 5: {
            const char *name = str(in, a, sizeof a);
            const char *desc = byte(in) & 1 ? str(in, c, sizeof c) : NULL;
            seam_request_add_tool(req, name, desc, json_arg(in, &jb));
            break;
        }
        case 6: {
            seam_tool_choice ch = (seam_tool_choice)(byte(in) % 4);
            seam_request_set_tool_choice(req, ch, byte(in) & 1 ? str(in, a, sizeof a) : NULL);
            break;
        }
        case 7: {
            static const double temps[] = {0.0, 0.7, 1.0, 2.0, -1.0, 1e300, NAN, INFINITY};
            unsigned k = byte(in);
            double t;
            if (k < 200) {
                t = temps[k % 8];
            } else {
                uint64_t bits = u64(in);
                memcpy(&t, &bits, sizeof t);
            }
            seam_request_set_temperature(req, t);
            break;
        }
        case 8: {
            static const int64_t toks[] = {1, 0, -1, 4096, 65536, INT32_MAX, (int64_t)INT32_MAX + 1,
                                           INT64_MAX};
            unsigned k = byte(in);
            seam_request_set_max_tokens(req, k < 200 ? toks[k % 8] : (int64_t)u64(in));
            break;
        }
        case 9:
            seam_request_add_stop(req, str(in, a, sizeof a));
            break;
        case 10: {
            seam_response_format f = byte(in) & 1 ? SEAM_FORMAT_JSON : SEAM_FORMAT_TEXT;
            const char *name = byte(in) & 1 ? str(in, a, sizeof a) : NULL;
            seam_request_set_response_format(req, f, name, json_arg(in, &jb),
                                             (int)(byte(in) % 3));
            break;
        }
        case 11:
            seam_request_set_provider_options(req, json_arg(in, &jb));
            break;
        default: {
            static const int64_t budgets[] = {0, 1, 1024, 16000, -5, INT32_MAX, INT64_MAX,
                                              128000};
            unsigned k = byte(in);
            seam_request_set_reasoning_budget(req, k < 200 ? budgets[k % 8] : (int64_t)u64(in));
            break;
        }
        }
    }
    seam_buf_free(&jb);
}

/* ---- encoding ------------------------------------------------------------------------- */

/* The credential belongs in a header only; the body may hold it only when
 * the request itself does (the fuzzer learns the string and types it in). */
static int credential_in_input;

static void fail(const char *what, const char *codec, const char *detail)
{
    fprintf(stderr, "%s: %s%s%s\n", codec, what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* Encodes req; returns the body (malloc'd, "" when none) or NULL on refusal. */
static char *encode(const seam_provider_vtable *vt, void *inst, const seam_request *req,
                    int stream, const char *codec)
{
    seam_http_request hr;
    seam_http_request_init(&hr, "sk-fuzz-credential", stream, vt->framing);
    seam_error e;
    seam_error_clear(&e);
    int rc = vt->encode(inst, req, stream, &hr, &e);
    char *body = NULL;
    if (rc == SEAM_OK) {
        if (!hr.url && !vt->serve)
            fail("encoded without a URL", codec, NULL);
        if (hr.body.len) {
            json_tokener *tok = json_tokener_new();
            json_object *o = json_tokener_parse_ex(tok, hr.body.data, (int)hr.body.len);
            int ok = o && json_tokener_get_error(tok) == json_tokener_success &&
                     tok->char_offset == (int)hr.body.len;
            json_object_put(o);
            json_tokener_free(tok);
            if (!ok)
                fail("body is not one JSON value", codec, hr.body.data);
            if (!credential_in_input && strstr(hr.body.data, "sk-fuzz-credential"))
                fail("credential in the body", codec, NULL);
        }
        body = malloc(hr.body.len + 1);
        if (body) {
            memcpy(body, hr.body.data ? hr.body.data : "", hr.body.len);
            body[hr.body.len] = '\0';
        }
    } else if (e.kind == SEAM_ERROR_NONE || !e.message[0]) {
        fail("refused without an error", codec, NULL);
    }
    seam_http_request_release(&hr);
    return body;
}

typedef struct codec {
    const char *name;
    const char *plugin;
    const char *options; /* NULL: from the input */
} codec;

static const codec codecs[] = {
    {"openai-chat", "openai", "{\"api\":\"chat\"}"},
    {"openai-responses", "openai", "{\"api\":\"responses\"}"},
    {"openai-input", "openai", NULL},
    {"anthropic", "anthropic", NULL},
    {"gemini", "gemini", NULL},
    {"mock", "mock", NULL},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!n_vts) {
        seam_plugin_init_openai(NULL);
        seam_plugin_init_anthropic(NULL);
        seam_plugin_init_gemini(NULL);
        seam_plugin_init_mock(NULL);
    }
    credential_in_input = memmem(data, size, "sk-fuzz", 7) != NULL;
    input in = {data, size};
    /* The instance options come first, then the request program. */
    seam_buf opts = {0};
    const char *inst_opts = json_arg(&in, &opts);
    seam_request *req = seam_request_new();
    if (!req)
        return 0;
    build(&in, req);
    seam_request *dup = seam_request_dup(req);

    for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
        const seam_provider_vtable *vt = NULL;
        for (size_t i = 0; i < n_vts; i++)
            if (strcmp(vts[i]->id, codecs[c].plugin) == 0)
                vt = vts[i];
        if (!vt)
            fail("plugin not registered", codecs[c].name, NULL);
        const char *o = codecs[c].options ? codecs[c].options : inst_opts;
        seam_provider_config cfg = {sizeof cfg, "fuzz", NULL, o ? o : "{}"};
        seam_error e;
        seam_error_clear(&e);
        void *inst = vt->create(&cfg, &e);
        if (!inst) {
            if (e.kind == SEAM_ERROR_NONE || !e.message[0])
                fail("create refused without an error", codecs[c].name, NULL);
            cfg.options_json = "{}";
            inst = vt->create(&cfg, &e);
            if (!inst)
                fail("create refused {}", codecs[c].name, e.message);
        }
        for (int stream = 0; stream < 2; stream++) {
            char *a = encode(vt, inst, req, stream, codecs[c].name);
            if (dup) {
                char *b = encode(vt, inst, dup, stream, codecs[c].name);
                if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
                    fail("a copy of the request encodes differently", codecs[c].name, a);
                free(b);
            }
            free(a);
        }
        vt->destroy(inst);
    }
    seam_request_free(dup);
    seam_request_free(req);
    seam_buf_free(&opts);
    return 0;
}
