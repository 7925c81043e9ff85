/* test_faults.c — the fault matrix of issue 11: every fault scenario against
 * every real provider codec (openai, anthropic, gemini), each in the chain
 * [provider under test → mock], through the real loader and the fake provider
 * server. One table of scenarios × one table of plugins; each cell checks:
 *   - the error kind (or success),
 *   - whether the chain failed over to the mock (only before any content),
 *   - the partial text kept when the failure came after content,
 *   - that it took less than the configured timeout (no hang),
 *   - that no fragment of the provider key appears in the error, the attempt
 *     reports, the chunks or the result; the key-echo cells also run
 *     `seam chat --json` and check its every line (valid UTF-8 JSON, no key).
 * The key is deliberately not "sk-" shaped, and the echo cells put it at
 * offsets that straddle the 400 and 512-byte cuts of the plugins' messages. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>

/* The provider's whole-request timeout: 4 s, 20 s under valgrind (which reads
 * a 50 MB body twenty times slower). Its idle timeout (the stall cells): 400
 * ms, 2 s under valgrind, where a loaded machine can leave the fake server's
 * thread writing that body unscheduled for longer than 400 ms. */
static int timeout_ms = 4000;
static int idle_ms = 400;
#define TIMEOUT_MS timeout_ms
#define IDLE_MS idle_ms
#define FRAGMENT 6        /* no run of this many key characters may show */
#define MOCK_REPLY "backup answer"

static fake_server *srv;
static const char *tmpdir;
static char key[80];      /* AIzaTESTKEY + random: not an sk- key */
static int refused_port;  /* a port nobody listens on */

/* ---- the plugin table -------------------------------------------------------------- */

typedef struct plugin_def {
    const char *name;
    const char *base_suffix;   /* appended to the fake server's URL */
    const char *model;
    /* SSE text: the start of a response and one text delta ("Hel", then "lo"). */
    const char *start;
    const char *(*text)(const char *t, char *buf, size_t size);
    const char *finish;        /* everything after the content that completes the answer */
    const char *stream_error;  /* an overloaded error event inside a 200 stream */
    const char *done_no_finish;/* the wire's end marker with no finish reason before it */
    /* error bodies */
    const char *(*auth_body)(const char *msg, char *buf, size_t size);
    const char *overflow_body;
} plugin_def;

static const char *oa_text(const char *t, char *buf, size_t size)
{
    snprintf(buf, size, "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s\"}}]}\n\n", t);
    return buf;
}

static const char *an_text(const char *t, char *buf, size_t size)
{
    snprintf(buf, size,
             "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
             "\"delta\":{\"type\":\"text_delta\",\"text\":\"%s\"}}\n\n", t);
    return buf;
}

static const char *gm_text(const char *t, char *buf, size_t size)
{
    snprintf(buf, size,
             "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"%s\"}],\"role\":\"model\"},\"index\":0}]}\r\n\r\n", t);
    return buf;
}

static const char *oa_auth(const char *msg, char *buf, size_t size)
{
    snprintf(buf, size, "{\"error\":{\"message\":\"%s\",\"type\":\"invalid_request_error\","
             "\"param\":null,\"code\":\"invalid_api_key\"}}", msg);
    return buf;
}

static const char *an_auth(const char *msg, char *buf, size_t size)
{
    snprintf(buf, size, "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"%s\"}}", msg);
    return buf;
}

static const char *gm_auth(const char *msg, char *buf, size_t size)
{
    snprintf(buf, size, "{\"error\":{\"code\":401,\"message\":\"%s\",\"status\":\"UNAUTHENTICATED\"}}", msg);
    return buf;
}

static const plugin_def plugins[] = {
    {
        "openai", "/v1", "gpt-4.1-mini",
        "",
        oa_text,
        "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
        "data: [DONE]\n\n",
        "data: {\"error\":{\"message\":\"The server had an error while processing your request.\","
        "\"type\":\"server_error\",\"code\":null}}\n\n",
        "data: [DONE]\n\n",
        oa_auth,
        "{\"error\":{\"message\":\"This model's maximum context length is 128000 tokens. However, your "
        "messages resulted in 190000 tokens.\",\"type\":\"invalid_request_error\",\"param\":\"messages\","
        "\"code\":\"context_length_exceeded\"}}",
    },
    {
        "anthropic", "/v1", "claude-sonnet-4-5",
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
        "\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,"
        "\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
        "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        an_text,
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
        "\"usage\":{\"output_tokens\":2}}\n\n"
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        an_auth,
        "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: "
        "250000 tokens > 200000 maximum\"}}",
    },
    {
        "gemini", "/v1beta", "gemini-2.5-flash",
        "",
        gm_text,
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},"
        "\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":5,"
        "\"candidatesTokenCount\":2,\"totalTokenCount\":7}}\r\n\r\n",
        "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded. Please try again later.\","
        "\"status\":\"UNAVAILABLE\"}}\r\n\r\n",
        NULL, /* Gemini's stream has no end marker of its own */
        gm_auth,
        "{\"error\":{\"code\":400,\"message\":\"The input token count (1200000) exceeds the maximum "
        "number of tokens allowed (1048576).\",\"status\":\"INVALID_ARGUMENT\"}}",
    },
};
#define N_PLUGINS (sizeof plugins / sizeof plugins[0])

/* ---- the scenario table -------------------------------------------------------------- */

typedef enum fault {
    FT_OK,              /* control: a clean answer */
    FT_STATUS,          /* an HTTP error status (with an empty-ish JSON body) */
    FT_EVENT_BEFORE,    /* an error event in a 200 stream before any content */
    FT_EVENT_AFTER,     /* ... after content */
    FT_REFUSED,         /* nothing listens */
    FT_RESET_BEFORE,    /* the connection is reset before any content */
    FT_RESET_AFTER,     /* ... mid-stream, after content */
    FT_TRUNCATED,       /* the stream ends cleanly, without its end */
    FT_DONE_NO_FINISH,  /* the wire's end marker, but no finish reason */
    FT_GARBAGE_BEFORE,  /* a non-JSON line before any content */
    FT_GARBAGE_AFTER,   /* ... after content */
    FT_STALL_BEFORE,    /* headers, then silence */
    FT_STALL_AFTER,     /* content, then silence */
    FT_HUGE,            /* a 50 MB event */
    FT_HUGE_ERROR,      /* a 50 MB error body */
    FT_BAD_UTF8,        /* invalid UTF-8 inside the text */
    FT_KEY_ECHO,        /* a 401 whose message echoes the key at offset `arg` */
    FT_KEY_MASKED,      /* a 401 echoing the key masked: first 6 chars, stars, last 4 */
    FT_KEY_ECHO_UTF8,   /* FT_KEY_ECHO with a filler of 2-byte characters */
    FT_OVERFLOW,        /* a context-length 400 */
} fault;

typedef struct scenario {
    const char *name;
    fault f;
    int arg;                 /* the status, or the echo offset */
    const char *extra_headers;
    seam_error_kind kind;    /* NONE: the call succeeds (on the provider or the mock) */
    int failover;            /* 1: the chain ends on the mock */
    const char *partial;     /* the text kept with the error ("" none) */
    int cli;                 /* also run `seam chat --json` */
} scenario;

static const scenario scenarios[] = {
    {"clean answer", FT_OK, 0, NULL, SEAM_ERROR_NONE, 0, "Hello", 0},
    {"429 with Retry-After", FT_STATUS, 429, "Retry-After: 1\r\n", SEAM_ERROR_RATE_LIMIT, 1, "", 0},
    {"500", FT_STATUS, 500, NULL, SEAM_ERROR_OVERLOADED, 1, "", 0},
    {"502", FT_STATUS, 502, NULL, SEAM_ERROR_OVERLOADED, 1, "", 0},
    {"503", FT_STATUS, 503, NULL, SEAM_ERROR_OVERLOADED, 1, "", 0},
    {"504", FT_STATUS, 504, NULL, SEAM_ERROR_TIMEOUT, 1, "", 0},
    {"529", FT_STATUS, 529, NULL, SEAM_ERROR_OVERLOADED, 1, "", 0},
    {"302 redirect", FT_STATUS, 302, "Location: https://elsewhere.example/v1/chat\r\n",
     SEAM_ERROR_BAD_REQUEST, 0, "", 0},
    {"error event before content", FT_EVENT_BEFORE, 0, NULL, SEAM_ERROR_OVERLOADED, 1, "", 0},
    {"error event after content", FT_EVENT_AFTER, 0, NULL, SEAM_ERROR_OVERLOADED, 0, "Hel", 0},
    {"connection refused", FT_REFUSED, 0, NULL, SEAM_ERROR_TRANSPORT, 1, "", 0},
    {"reset before content", FT_RESET_BEFORE, 0, NULL, SEAM_ERROR_TRANSPORT, 1, "", 0},
    {"reset mid-stream", FT_RESET_AFTER, 0, NULL, SEAM_ERROR_TRANSPORT, 0, "Hel", 0},
    {"truncated stream", FT_TRUNCATED, 0, NULL, SEAM_ERROR_TRANSPORT, 0, "Hello", 0},
    {"end marker without finish", FT_DONE_NO_FINISH, 0, NULL, SEAM_ERROR_TRANSPORT, 0, "Hello", 0},
    {"garbage line before content", FT_GARBAGE_BEFORE, 0, NULL, SEAM_ERROR_TRANSPORT, 1, "", 0},
    {"garbage line after content", FT_GARBAGE_AFTER, 0, NULL, SEAM_ERROR_TRANSPORT, 0, "Hel", 0},
    {"stall before content", FT_STALL_BEFORE, 0, NULL, SEAM_ERROR_TIMEOUT, 1, "", 0},
    {"stall after content", FT_STALL_AFTER, 0, NULL, SEAM_ERROR_TIMEOUT, 0, "Hel", 0},
    {"50 MB event", FT_HUGE, 0, NULL, SEAM_ERROR_TRANSPORT, 1, "", 0},
    {"50 MB error body", FT_HUGE_ERROR, 0, NULL, SEAM_ERROR_OVERLOADED, 1, "", 0},
    {"invalid UTF-8", FT_BAD_UTF8, 0, NULL, SEAM_ERROR_NONE, 0, "A\xEF\xBF\xBD" "B\xEF\xBF\xBD" "C", 1},
    {"401 echoing the key at 0", FT_KEY_ECHO, 0, NULL, SEAM_ERROR_AUTH, 0, "", 1},
    {"401 echoing the key at 380", FT_KEY_ECHO, 380, NULL, SEAM_ERROR_AUTH, 0, "", 1},
    {"401 echoing the key at 395", FT_KEY_ECHO, 395, NULL, SEAM_ERROR_AUTH, 0, "", 0},
    {"401 echoing the key at 470", FT_KEY_ECHO, 470, NULL, SEAM_ERROR_AUTH, 0, "", 0},
    {"401 echoing the key at 490", FT_KEY_ECHO, 490, NULL, SEAM_ERROR_AUTH, 0, "", 1},
    {"401 echoing the key masked", FT_KEY_MASKED, 0, NULL, SEAM_ERROR_AUTH, 0, "", 1},
    {"401 echoing the key after 2-byte text at 388", FT_KEY_ECHO_UTF8, 388, NULL, SEAM_ERROR_AUTH, 0, "", 0},
    {"401 echoing the key after 2-byte text at 504", FT_KEY_ECHO_UTF8, 504, NULL, SEAM_ERROR_AUTH, 0, "", 1},
    {"context-length 400", FT_OVERFLOW, 400, NULL, SEAM_ERROR_CONTEXT_OVERFLOW, 0, "", 0},
};
#define N_SCENARIOS (sizeof scenarios / sizeof scenarios[0])

/* ---- helpers ---------------------------------------------------------------------------- */

/* The first run of FRAGMENT or more key characters found in text, or NULL. */
static const char *key_fragment_in(const char *text)
{
    if (!text)
        return NULL;
    size_t klen = strlen(key);
    for (size_t i = 0; i + FRAGMENT <= klen; i++) {
        char frag[FRAGMENT + 1];
        memcpy(frag, key + i, FRAGMENT);
        frag[FRAGMENT] = '\0';
        const char *hit = strstr(text, frag);
        if (hit)
            return hit;
    }
    return NULL;
}

static int utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        unsigned c = *p;
        size_t len;
        unsigned min;
        if (c < 0x80) {
            p++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2, min = 0x80, c &= 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3, min = 0x800, c &= 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4, min = 0x10000, c &= 0x07;
        } else {
            return 0;
        }
        if ((size_t)(end - p) < len)
            return 0;
        for (size_t k = 1; k < len; k++) {
            if ((p[k] & 0xC0) != 0x80)
                return 0;
            c = (c << 6) | (p[k] & 0x3F);
        }
        if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
            return 0;
        p += len;
    }
    return 1;
}

/* The provider message of a key-echo cell: `offset` filler bytes, the key (or
 * its masked form), then more text, so the key straddles a plugin's cut. */
static void echo_message(char *buf, size_t size, int offset, int masked, int wide)
{
    static const char ascii[] = "Incorrect API key provided. You can find your API key at the console. ";
    static const char two_byte[] = "\xC3\xA9"; /* é: a cut in the middle of it is invalid UTF-8 */
    const char *filler = wide ? two_byte : ascii;
    size_t flen = wide ? 2 : sizeof ascii - 1;
    size_t n = 0;
    if (wide)
        offset &= ~1; /* whole characters: only a cut can split one */
    while (n < (size_t)offset && n + 1 < size) {
        buf[n] = filler[n % flen];
        n++;
    }
    size_t klen = strlen(key);
    if (masked)
        n += (size_t)snprintf(buf + n, size - n, "%.6s************%s", key, key + klen - 4);
    else
        n += (size_t)snprintf(buf + n, size - n, "%s", key);
    snprintf(buf + n, size - n, " is not valid; please check it and try again with a working key.");
}

static char *conf_text(const plugin_def *p, int port_refused)
{
    char *s = NULL;
    char base[128];
    if (port_refused)
        snprintf(base, sizeof base, "http://127.0.0.1:%d%s", refused_port, p->base_suffix);
    else
        snprintf(base, sizeof base, "%s%s", fake_server_url(srv), p->base_suffix);
    if (asprintf(&s,
                 "plugin_path = [ \"%s\" ];\n"
                 "model_catalog = \"\";\n"
                 "providers = {\n"
                 "  under_test = { plugin = \"%s\"; base_url = \"%s\"; api_key = \"%s\";\n"
                 "                 timeout_ms = %d; idle_timeout_ms = %d; connect_timeout_ms = 2000; };\n"
                 "  backup = { plugin = \"mock\"; options = { reply = \"" MOCK_REPLY "\"; }; };\n"
                 "};\n"
                 "chains = { default = ( { provider = \"under_test\"; model = \"%s\"; max_attempts = 1; },\n"
                 "                       { provider = \"backup\"; model = \"mock-1\"; } ); };\n",
                 tu_plugin_dir(), p->name, base, key, TIMEOUT_MS, IDLE_MS, p->model) < 0)
        return NULL;
    return s;
}

/* The strings up to a NULL one, joined; malloc'ed, NULL when out of memory. */
static char *joined(const char *first, ...)
{
    va_list ap;
    size_t len = 0;
    va_start(ap, first);
    for (const char *p = first; p; p = va_arg(ap, const char *))
        len += strlen(p);
    va_end(ap);
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    s[0] = '\0';
    va_start(ap, first);
    for (const char *p = first; p; p = va_arg(ap, const char *))
        strcat(s, p);
    va_end(ap);
    return s;
}

/* Scripts the fake server for one cell. Returns 0 when the cell does not apply. */
static int script(const plugin_def *p, const scenario *sc)
{
    char t1[512], t2[512];
    p->text("Hel", t1, sizeof t1);
    p->text("lo", t2, sizeof t2);
    char *body = NULL;
    fake_response r = {.status = 200, .chunked = 1};
    switch (sc->f) {
    case FT_OK:
        body = joined(p->start, t1, t2, p->finish, NULL);
        break;
    case FT_STATUS:
        fake_server_push_json(srv, sc->arg, "{}", sc->extra_headers);
        return 1;
    case FT_EVENT_BEFORE:
        body = joined(p->start, p->stream_error, NULL);
        break;
    case FT_EVENT_AFTER:
        body = joined(p->start, t1, p->stream_error, NULL);
        break;
    case FT_REFUSED:
        return 1;
    case FT_RESET_BEFORE:
    case FT_RESET_AFTER:
        body = joined(p->start, sc->f == FT_RESET_AFTER ? t1 : "", t2, NULL);
        if (!body)
            return 0;
        /* Cut inside the last event: what came before it is all the client gets. */
        r.cut_after = strlen(body) - strlen(t2) + 5;
        r.split = strlen(body) - strlen(t2);
        r.delay_ms = 20;
        r.reset = 1;
        break;
    case FT_TRUNCATED:
        body = joined(p->start, t1, t2, NULL);
        break;
    case FT_DONE_NO_FINISH:
        if (!p->done_no_finish)
            return 0;
        body = joined(p->start, t1, t2, p->done_no_finish, NULL);
        break;
    case FT_GARBAGE_BEFORE:
        body = joined(p->start, "data: <html>502 Bad Gateway</html>\n\n", t1, p->finish, NULL);
        break;
    case FT_GARBAGE_AFTER:
        body = joined(p->start, t1, "data: <html>502 Bad Gateway</html>\n\n", p->finish, NULL);
        break;
    case FT_STALL_BEFORE:
    case FT_STALL_AFTER:
        body = joined(p->start, sc->f == FT_STALL_AFTER ? t1 : "", NULL);
        if (!body)
            return 0;
        r.hang_ms = TIMEOUT_MS * 2;
        if (!*body) { /* nothing to send before the stall: a lone comment keeps headers going */
            free(body);
            body = strdup(": hi\n\n");
        }
        break;
    case FT_HUGE:
    case FT_HUGE_ERROR: {
        size_t n = 50u << 20;
        body = malloc(n + 1);
        if (!body)
            return 0;
        if (sc->f == FT_HUGE) {
            memcpy(body, "data: \"", 7);
            memset(body + 7, 'x', n - 7);
        } else {
            memset(body, ' ', n);
            body[0] = '{';
        }
        body[n] = '\0';
        r.body_len = n;
        if (sc->f == FT_HUGE_ERROR) {
            r.status = 503;
            r.content_type = "application/json";
            r.chunked = 0;
        }
        break;
    }
    case FT_BAD_UTF8: {
        char b1[512], b2[512];
        /* A lone continuation byte, and a truncated 3-byte sequence. */
        p->text("A\x80" "B", b1, sizeof b1);
        p->text("\xE2\x82" "C", b2, sizeof b2);
        body = joined(p->start, b1, b2, p->finish, NULL);
        break;
    }
    case FT_KEY_ECHO:
    case FT_KEY_ECHO_UTF8:
    case FT_KEY_MASKED: {
        char msg[1024], json[2048];
        echo_message(msg, sizeof msg, sc->arg, sc->f == FT_KEY_MASKED, sc->f == FT_KEY_ECHO_UTF8);
        fake_server_push_json(srv, 401, p->auth_body(msg, json, sizeof json), NULL);
        return 1;
    }
    case FT_OVERFLOW:
        fake_server_push_json(srv, 400, p->overflow_body, NULL);
        return 1;
    }
    if (!body) /* out of memory */
        return 0;
    if (!r.body_len)
        r.body_len = strlen(body);
    r.body = body;
    fake_server_push(srv, &r);
    free(body);
    return 1;
}

/* ---- one cell ------------------------------------------------------------------------------ */

typedef struct observed {
    int n;
    seam_error_kind first_kind;
    char messages[2048]; /* every failed attempt's message and code */
} observed;

static void observe(void *ud, const seam_attempt *a)
{
    observed *o = ud;
    if (a->outcome != SEAM_ATTEMPT_FAILED || !a->error)
        return;
    if (o->n++ == 0)
        o->first_kind = a->error->kind;
    size_t used = strlen(o->messages);
    snprintf(o->messages + used, sizeof o->messages - used, "%s|%s\n", a->error->message,
             a->error->code);
}

static int cell_failures;

#define CELL_CHECK(cond, ...)                                                 \
    do {                                                                      \
        CU_ASSERT(cond);                                                      \
        if (!(cond)) {                                                        \
            cell_failures++;                                                  \
            fprintf(stderr, "\n  [%s × %s] ", p->name, sc->name);             \
            fprintf(stderr, __VA_ARGS__);                                     \
        }                                                                     \
    } while (0)

static void run_cli(const plugin_def *p, const scenario *sc, const char *conf_path)
{
    /* The CLI reads the same conf: queue the same script again. */
    if (!script(p, sc))
        return;
    char *cmd = NULL, *out = NULL, *errout = NULL;
    if (asprintf(&cmd, "SEAM_PLUGIN_PATH= '%s/cli/seam' --conf '%s' chat --json 'hello'", TOP_BUILDDIR,
                 conf_path) < 0)
        return;
    int rc = tu_run(cmd, &out, &errout);
    free(cmd);
    CELL_CHECK(rc == (sc->kind == SEAM_ERROR_NONE ? 0 : rc) && rc < 128, "cli exit %d\n", rc);
    if (sc->kind != SEAM_ERROR_NONE)
        CELL_CHECK(rc != 0, "cli exit 0 on a failure\n");
    const char *frag = key_fragment_in(out);
    CELL_CHECK(!frag, "key fragment in --json output: %.40s\n", frag);
    frag = key_fragment_in(errout);
    CELL_CHECK(!frag, "key fragment in stderr: %.40s\n", frag);
    /* Every line is valid UTF-8 and parses as a JSON object. */
    int lines = 0, saw_error = 0;
    for (char *line = out, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lines++;
        CELL_CHECK(utf8_valid(line, strlen(line)), "--json line is not UTF-8: %s\n", line);
        json_object *o = json_tokener_parse(line);
        CELL_CHECK(json_object_is_type(o, json_type_object), "--json line does not parse: %s\n", line);
        json_object *type = NULL;
        if (o && json_object_object_get_ex(o, "type", &type) &&
            strcmp(json_object_get_string(type), "error") == 0)
            saw_error = 1;
        json_object_put(o);
    }
    CELL_CHECK(lines > 0, "no --json output (stderr: %s)\n", errout ? errout : "");
    if (sc->kind != SEAM_ERROR_NONE)
        CELL_CHECK(saw_error, "no error line in --json output: %s\n", out ? out : "");
    free(out);
    free(errout);
}

static void run_cell(const plugin_def *p, const scenario *sc)
{
    if (!script(p, sc))
        return; /* not applicable to this wire */
    char *text = conf_text(p, sc->f == FT_REFUSED);
    char *conf_path = tu_path(tmpdir, "faults.conf");
    CU_ASSERT_FATAL(text && conf_path && tu_write_file(conf_path, text) == 0);
    free(text);
    seam_client_options co = {sizeof co, conf_path, 1};
    seam_client *c = NULL;
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_FATAL(seam_client_new(&co, &c, &err) == SEAM_OK);

    seam_request *req = seam_request_new();
    seam_request_add_user_text(req, "hello");
    observed ob;
    memset(&ob, 0, sizeof ob);
    seam_call_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.chain = "default";
    o.on_attempt = observe;
    o.ud = &ob;

    char textbuf[8192] = "", chunk_errors[2048] = "";
    int64_t t0 = tu_now_ms();
    seam_stream *s = NULL;
    int status = seam_stream_open(c, req, &o, &s, &err);
    const char *provider = "";
    int incomplete = 0;
    char result_text[8192] = "";
    if (status == SEAM_OK) {
        const seam_chunk *ch;
        while ((status = seam_stream_next(s, &ch, &err)) == 1) {
            if (ch->type == SEAM_CHUNK_TEXT_DELTA && ch->text)
                strncat(textbuf, ch->text, sizeof textbuf - strlen(textbuf) - 1);
            if (ch->type == SEAM_CHUNK_ERROR && ch->error) {
                size_t used = strlen(chunk_errors);
                snprintf(chunk_errors + used, sizeof chunk_errors - used, "%s\n", ch->error->message);
            }
        }
        const seam_result *res = seam_stream_result(s);
        incomplete = seam_result_incomplete(res);
        provider = seam_result_provider(res) ? seam_result_provider(res) : "";
        snprintf(result_text, sizeof result_text, "%s", seam_result_text(res) ? seam_result_text(res) : "");
        const seam_error *re = seam_result_error(res);
        if (re) {
            size_t used = strlen(chunk_errors);
            snprintf(chunk_errors + used, sizeof chunk_errors - used, "%s|%s\n", re->message, re->code);
        }
    }
    int64_t elapsed = tu_now_ms() - t0;
    char on_provider[64];
    snprintf(on_provider, sizeof on_provider, "%s", provider);

    if (sc->kind == SEAM_ERROR_NONE || sc->failover) {
        CELL_CHECK(status == SEAM_OK, "failed: %s: %s\n", seam_error_kind_name(err.kind), err.message);
        CELL_CHECK(!incomplete, "result marked incomplete\n");
    } else {
        CELL_CHECK(status != SEAM_OK, "succeeded (text \"%s\") where %s was due\n", textbuf,
                   seam_error_kind_name(sc->kind));
        CELL_CHECK(err.kind == sc->kind, "error kind %s, want %s (%s)\n", seam_error_kind_name(err.kind),
                   seam_error_kind_name(sc->kind), err.message);
    }
    if (sc->failover) {
        CELL_CHECK(strcmp(on_provider, "backup") == 0, "did not fail over (provider \"%s\")\n", on_provider);
        CELL_CHECK(strcmp(textbuf, MOCK_REPLY) == 0, "text \"%s\" after failover\n", textbuf);
        CELL_CHECK(ob.n >= 1 && ob.first_kind == sc->kind, "the failed attempt's kind %s, want %s (%s)\n",
                   seam_error_kind_name(ob.first_kind), seam_error_kind_name(sc->kind), ob.messages);
    } else {
        CELL_CHECK(strcmp(on_provider, "backup") != 0, "failed over where it must not (%s)\n", ob.messages);
        CELL_CHECK(strcmp(textbuf, sc->partial) == 0, "text \"%s\", want \"%s\"\n", textbuf, sc->partial);
        if (status == SEAM_OK || sc->partial[0])
            CELL_CHECK(strcmp(result_text, sc->partial) == 0, "result text \"%s\", want \"%s\"\n",
                       result_text, sc->partial);
        if (sc->partial[0] && sc->kind != SEAM_ERROR_NONE)
            CELL_CHECK(incomplete, "a partial answer not marked incomplete\n");
    }
    /* A plugin's cut never leaves half a redaction mark behind. */
    const char *mark = strstr(err.message, "<re");
    for (; mark; mark = strstr(mark + 1, "<re"))
        CELL_CHECK(strncmp(mark, "<redacted>", 10) == 0, "a cut redaction mark: %s\n", mark);
    if (sc->f == FT_STATUS && sc->arg >= 300 && sc->arg < 400)
        CELL_CHECK(strstr(err.message, "redirect not followed") &&
                       strstr(err.message, "https://elsewhere.example/v1/chat"),
                   "a redirect reported as \"%s\"\n", err.message);
    int64_t limit = sc->f == FT_STALL_BEFORE || sc->f == FT_STALL_AFTER ? IDLE_MS + 1500 : TIMEOUT_MS;
    CELL_CHECK(elapsed < limit, "took %lld ms (limit %lld)\n", (long long)elapsed, (long long)limit);

    CELL_CHECK(utf8_valid(textbuf, strlen(textbuf)), "chunk text is not UTF-8\n");
    CELL_CHECK(utf8_valid(result_text, strlen(result_text)), "result text is not UTF-8\n");
    CELL_CHECK(utf8_valid(err.message, strlen(err.message)), "error message is not UTF-8\n");
    const char *frag;
    CELL_CHECK(!(frag = key_fragment_in(err.message)), "key fragment in the error: %s\n", err.message);
    CELL_CHECK(!(frag = key_fragment_in(err.code)), "key fragment in the error code: %s\n", err.code);
    CELL_CHECK(!(frag = key_fragment_in(ob.messages)), "key fragment in an attempt report: %s\n", ob.messages);
    CELL_CHECK(!(frag = key_fragment_in(chunk_errors)), "key fragment in a chunk: %s\n", chunk_errors);
    CELL_CHECK(!(frag = key_fragment_in(textbuf)), "key fragment in the text\n");
    if (sc->f == FT_KEY_MASKED) {
        /* The masked echo shows the key's last four characters: gone too. */
        size_t klen = strlen(key);
        CELL_CHECK(!strstr(err.message, key + klen - 4), "masked key tail in the error: %s\n", err.message);
    }
    if (getenv("SEAM_TEST_VERBOSE"))
        fprintf(stderr, "\n  [%s × %s] %lld ms, %s: %s", p->name, sc->name, (long long)elapsed,
                seam_error_kind_name(err.kind), err.message);

    seam_stream_free(s);
    seam_request_free(req);
    seam_client_free(c);
    if (sc->cli)
        run_cli(p, sc, conf_path);
    free(conf_path);
}

static void test_fault_matrix(void)
{
    const char *only = getenv("SEAM_FAULTS_ONLY"); /* a scenario name substring, for debugging */
    for (size_t si = 0; si < N_SCENARIOS; si++) {
        if (only && !strstr(scenarios[si].name, only))
            continue;
        for (size_t pi = 0; pi < N_PLUGINS; pi++)
            run_cell(&plugins[pi], &scenarios[si]);
    }
    if (cell_failures)
        fprintf(stderr, "\n  %d failed checks\n", cell_failures);
}

/* ---- diagnostics outside the matrix -------------------------------------------------------- */

/* A client on conf text (the build's plugins and the test plugins). */
static seam_client *client_from(const char *body)
{
    char *text = NULL;
    CU_ASSERT_FATAL(asprintf(&text, "plugin_path = [ \"%s\", \"%s/tests/plugins/.libs\" ];\n"
                                    "model_catalog = \"\";\n%s", tu_plugin_dir(), TOP_BUILDDIR, body) >= 0);
    char *path = tu_path(tmpdir, "diag.conf");
    CU_ASSERT_FATAL(tu_write_file(path, text) == 0);
    free(text);
    seam_client_options co = {sizeof co, path, 1};
    seam_client *c = NULL;
    seam_error err;
    seam_error_clear(&err);
    int rc = seam_client_new(&co, &c, &err);
    free(path);
    if (rc != SEAM_OK)
        fprintf(stderr, "client: %s\n", err.message);
    CU_ASSERT_FATAL(rc == SEAM_OK);
    return c;
}

/* Streams "hello" through chain "c"; the text (if any) goes to text. */
static int stream_chain(seam_client *c, seam_error *err, char *text, size_t size, const char **provider)
{
    seam_request *req = tu_user_request("hello");
    seam_call_options o = tu_chain_opts("c");
    seam_stream *s = NULL;
    text[0] = '\0';
    int status = seam_stream_open(c, req, &o, &s, err);
    if (status == SEAM_OK) {
        const seam_chunk *ch;
        while ((status = seam_stream_next(s, &ch, err)) == 1)
            if (ch->type == SEAM_CHUNK_TEXT_DELTA)
                strncat(text, ch->text, size - strlen(text) - 1);
        static char prov[64];
        const char *p = seam_result_provider(seam_stream_result(s));
        snprintf(prov, sizeof prov, "%s", p ? p : "");
        *provider = prov;
    }
    seam_stream_free(s);
    seam_request_free(req);
    return status;
}

static void test_decoder_new_null(void)
{
    /* A plugin's decoder_new returning NULL was reported as "out of memory".
     * It is the plugin's failure: named as such, and the entry is passed by. */
    char base[128];
    snprintf(base, sizeof base, "%s", fake_server_url(srv));
    char conf[1024];
    snprintf(conf, sizeof conf,
             "providers = { w = { plugin = \"testwire\"; base_url = \"%s\"; };\n"
             "  backup = { plugin = \"mock\"; options = { reply = \"" MOCK_REPLY "\"; }; }; };\n"
             "chains = { c = ( { provider = \"w\"; model = \"no-decoder\"; } );\n"
             "  d = ( { provider = \"w\"; model = \"no-decoder\"; }, { provider = \"backup\"; model = \"m\"; } ); };\n",
             base);
    seam_client *c = client_from(conf);
    seam_error err;
    seam_error_clear(&err);
    char text[256];
    const char *provider = "";
    int status = stream_chain(c, &err, text, sizeof text, &provider);
    CU_ASSERT_NOT_EQUAL(status, SEAM_OK);
    CU_ASSERT_PTR_NULL(strstr(err.message, "out of memory"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "decoder"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "testwire"));
    if (!strstr(err.message, "decoder"))
        fprintf(stderr, "\n  decoder_new NULL reported as: %s\n", err.message);

    /* In a chain, the next entry serves. */
    seam_request *req = tu_user_request("hello");
    seam_call_options o = tu_chain_opts("d");
    seam_result *res = NULL;
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_generate(c, req, &o, &res, &err), SEAM_OK);
    seam_result_free(res);
    seam_stream *s = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_stream_open(c, req, &o, &s, &err), SEAM_OK);
    const seam_chunk *ch;
    text[0] = '\0';
    while (seam_stream_next(s, &ch, &err) == 1)
        if (ch->type == SEAM_CHUNK_TEXT_DELTA)
            strncat(text, ch->text, sizeof text - strlen(text) - 1);
    CU_ASSERT_STRING_EQUAL(text, MOCK_REPLY);
    seam_stream_free(s);
    seam_request_free(req);
    seam_client_free(c);
}

static void test_emfile_is_a_resource_error(void)
{
    /* Out of file descriptors was a retryable "couldn't connect" (and failed
     * over). It is this process's problem: a fatal resource error. */
    char conf[2048];
    snprintf(conf, sizeof conf,
             "providers = { oa = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"%s\"; };\n"
             "  backup = { plugin = \"mock\"; options = { reply = \"" MOCK_REPLY "\"; }; }; };\n"
             "chains = { c = ( { provider = \"oa\"; model = \"gpt-4.1-mini\"; max_attempts = 2; },\n"
             "                 { provider = \"backup\"; model = \"m\"; } ); };\n",
             fake_server_url(srv), key);
    seam_client *c = client_from(conf);
    /* Fill the table up to a low limit. */
    tu_fds_jam jam;
    tu_fds_use_up(&jam, 16);
    seam_error err;
    seam_error_clear(&err);
    char text[256];
    const char *provider = "";
    int status = stream_chain(c, &err, text, sizeof text, &provider);
    tu_fds_give_back(&jam);
    CU_ASSERT_TRUE(jam.exhausted);
    CU_ASSERT_NOT_EQUAL(status, SEAM_OK);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_RESOURCE);
    CU_ASSERT_FALSE(err.retryable);
    CU_ASSERT_STRING_EQUAL(seam_error_kind_name(SEAM_ERROR_RESOURCE), "resource");
    if (err.kind != SEAM_ERROR_RESOURCE)
        fprintf(stderr, "\n  EMFILE reported as %s: %s (provider \"%s\")\n", seam_error_kind_name(err.kind),
                err.message, provider);
    seam_client_free(c);
}

/* ---- suite ------------------------------------------------------------------------------- */

static int init(void)
{
    if (tu_start_server_and_dir(&srv, &tmpdir) != 0)
        return -1;
    /* A port that was free a moment ago and that nothing listens on. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) != 0)
        return -1;
    refused_port = ntohs(a.sin_port);
    const char *preload = getenv("LD_PRELOAD");
    if (preload && strstr(preload, "vgpreload")) {
        timeout_ms = 20000;
        idle_ms = 2000;
    }
    close(fd);
    /* A long random key that looks like no known prefix but Gemini's. */
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    int n = snprintf(key, sizeof key, "AIzaTESTKEY");
    for (; n < 64; n++)
        key[n] = alphabet[rand() % (int)(sizeof alphabet - 1)];
    key[n] = '\0';
    return 0;
}

static const tu_test tests[] = {
    { "fault matrix: scenarios x openai, anthropic, gemini", test_fault_matrix },
    { "decoder_new returning NULL is named, not out of memory", test_decoder_new_null },
    { "out of file descriptors is a resource error", test_emfile_is_a_resource_error },
    { NULL, NULL },
};

static const tu_suite suites[] = {
    { .name = "faults", .tests = tests, .init = init },
    { .name = NULL },
};

int main(void)
{
    return tu_run_suites(suites);
}
