/* hello.c — a complete minimal seam provider plugin: copy this directory,
 * rename "hello", and replace the wire below with your provider's.
 *
 * It registers two providers that share one codec:
 *
 *   hello          a network codec: the core POSTs the request to base_url and
 *                  hands every server-sent event to decode_event;
 *   hello-offline  the same codec plus `serve`, which produces in-process the
 *                  bytes a hello server would send, so it answers with no
 *                  network at all (what `make check` and seam's installcheck use).
 *
 * The hello wire (made up, deliberately tiny so that no JSON library is
 * needed; a real wire is JSON: parse it with json-c as seam's own plugins do):
 *
 *   request   POST <base_url>/chat, header X-Hello-Model: <model>, body = the
 *             text of the last user message (text/plain), Authorization:
 *             Bearer <key> when the conf gives a credential;
 *             streamed when the request carries Accept: text/event-stream;
 *   streamed  SSE events   event: text   data: <a piece of the answer>
 *                          event: done   data: <input tokens> <output tokens>
 *                          event: error  data: <seam error kind> <message>
 *   whole     the answer text as the body (no usage);
 *   errors    a non-2xx status whose body is "<seam error kind>: <message>".
 *
 * The rules every plugin follows (seam-plugin(7)): no I/O, no printing, no
 * exit/abort; every failure is a status plus a filled seam_error; everything
 * the core hands over is borrowed for the call; chunks passed to seam_emit are
 * copied by the core; no global mutable state (calls may run on several
 * threads at once). */
#include <seam/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HELLO_DEFAULT_BASE_URL "http://127.0.0.1:8080/v1"

/* One configured provider: what `create` keeps from the conf. */
typedef struct hello_instance {
    char url[512];
} hello_instance;

static void *hello_create(const seam_provider_config *cfg, seam_error *err)
{
    const char *base = cfg->base_url ? cfg->base_url : HELLO_DEFAULT_BASE_URL;
    hello_instance *h = calloc(1, sizeof *h);
    if (!h) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "hello: out of memory");
        return NULL;
    }
    /* cfg->options_json is the conf's `options` group as JSON text ("{}" when
     * absent): a real plugin parses it here and keeps what it needs. */
    if ((size_t)snprintf(h->url, sizeof h->url, "%s/chat", base) >= sizeof h->url) {
        free(h);
        seam_error_set(err, SEAM_ERROR_CONF, "hello: base_url is too long");
        return NULL;
    }
    return h;
}

static void hello_destroy(void *instance)
{
    free(instance);
}

/* ---- request -> HTTP request ------------------------------------------------ */

/* The text of the last user message ("" when there is none). Borrowed. */
static const char *last_user_text(const seam_request *req)
{
    for (size_t i = seam_request_message_count(req); i > 0; i--) {
        const seam_message *m = seam_request_message(req, i - 1);
        if (seam_message_role(m) == SEAM_ROLE_USER)
            return seam_message_text(m);
    }
    return "";
}

static int hello_encode(void *instance, const seam_request *req, int stream,
                        seam_http_request *out, seam_error *err)
{
    hello_instance *h = instance;
    const char *model = seam_request_model(req);
    if (seam_request_tool_count(req) > 0)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "hello: this wire has no tools"),
               SEAM_ERR_INVALID;
    const char *text = last_user_text(req);
    int rc = seam_http_request_set_url(out, h->url);
    if (rc == SEAM_OK)
        rc = seam_http_request_add_header(out, "Content-Type", "text/plain; charset=utf-8");
    if (rc == SEAM_OK)
        rc = seam_http_request_add_header(out, "X-Hello-Model", model ? model : "hello-1");
    if (rc == SEAM_OK && stream)
        rc = seam_http_request_add_header(out, "Accept", "text/event-stream");
    /* The core appends the credential and keeps it out of every log and error. */
    if (rc == SEAM_OK)
        rc = seam_http_request_add_secret_header(out, "Authorization", "Bearer ");
    if (rc == SEAM_OK)
        rc = seam_http_request_set_body(out, text, strlen(text));
    if (rc != SEAM_OK)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "hello: out of memory");
    return rc;
}

/* ---- answer -> seam chunks --------------------------------------------------- */

static const struct {
    const char *name;
    seam_error_kind kind;
} kinds[] = {
    {"rate_limit", SEAM_ERROR_RATE_LIMIT},   {"overloaded", SEAM_ERROR_OVERLOADED},
    {"auth", SEAM_ERROR_AUTH},               {"bad_request", SEAM_ERROR_BAD_REQUEST},
    {"context_overflow", SEAM_ERROR_CONTEXT_OVERFLOW},
    {"content_filter", SEAM_ERROR_CONTENT_FILTER},
};

/* "<kind><sep><message>": sets err's kind (when known) and message. */
static void error_from_text(const char *text, size_t len, char sep, seam_error *err)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t n = strlen(kinds[i].name);
        if (len > n && strncmp(text, kinds[i].name, n) == 0 && text[n] == sep) {
            err->kind = kinds[i].kind;
            err->retryable = seam_error_kind_retryable(kinds[i].kind);
            seam_strlcpy(err->code, kinds[i].name, sizeof err->code);
            text += n + 1;
            len -= n + 1;
            while (len > 0 && *text == ' ')
                text++, len--;
            break;
        }
    }
    size_t copy = len < sizeof err->message - 1 ? len : sizeof err->message - 1;
    memcpy(err->message, text, copy);
    err->message[copy] = '\0';
}

/* One per streamed answer: the state of that stream (a real decoder keeps
 * e.g. the tool calls still open). decoder_new must return non-NULL. */
typedef struct hello_decoder {
    int done; /* the done event was seen: anything after it is ignored */
} hello_decoder;

static void *hello_decoder_new(void *instance, const seam_request *req)
{
    (void)instance;
    (void)req;
    return calloc(1, sizeof(hello_decoder));
}

static void hello_decoder_free(void *decoder)
{
    free(decoder);
}

static int hello_decode_event(void *decoder, const seam_frame *frame, seam_emitter *out,
                              seam_error *err)
{
    hello_decoder *d = decoder;
    const char *event = frame->event ? frame->event : "text";
    if (d->done)
        return SEAM_OK;
    if (strcmp(event, "text") == 0) {
        seam_chunk c = {.type = SEAM_CHUNK_TEXT_DELTA, .text = frame->data};
        /* A non-zero seam_emit means the consumer stopped: return it at once. */
        return frame->data_len ? seam_emit(out, &c) : SEAM_OK;
    }
    if (strcmp(event, "done") == 0) {
        seam_chunk c = {.type = SEAM_CHUNK_STOP, .stop_reason = SEAM_STOP_STOP};
        long long in = 0, outn = 0;
        /* Usage is "absent when unknown": set a bit only for a count the wire gave. */
        if (sscanf(frame->data, "%lld %lld", &in, &outn) == 2) {
            c.usage.present = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT;
            c.usage.input_tokens = in;
            c.usage.output_tokens = outn;
        }
        d->done = 1;
        return seam_emit(out, &c);
    }
    if (strcmp(event, "error") == 0) {
        /* An error inside a 200 stream: classify it and return SEAM_ERR_PROVIDER. */
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "hello: stream error");
        error_from_text(frame->data, frame->data_len, ' ', err);
        return SEAM_ERR_PROVIDER;
    }
    return SEAM_OK; /* unknown events are ignored, as SSE clients do */
}

static int hello_decode_response(void *instance, const seam_request *req, const char *body,
                                 size_t len, seam_emitter *out, seam_error *err)
{
    (void)instance;
    (void)req;
    (void)len;
    (void)err;
    seam_chunk text = {.type = SEAM_CHUNK_TEXT_DELTA, .text = body};
    seam_chunk stop = {.type = SEAM_CHUNK_STOP, .stop_reason = SEAM_STOP_STOP};
    int rc = *body ? seam_emit(out, &text) : SEAM_OK;
    return rc == SEAM_OK ? seam_emit(out, &stop) : rc;
}

/* The core has filled http_status, retry_after_ms and a kind from the status;
 * refine them from the body. */
static void hello_classify_error(void *instance, int http_status, const seam_http_headers *headers,
                                 const char *body, size_t len, seam_error *err)
{
    (void)instance;
    (void)http_status;
    (void)headers;
    if (body && len)
        error_from_text(body, len, ':', err);
}

static int hello_capabilities(void *instance, const char *model, seam_capabilities *caps)
{
    (void)instance;
    (void)model;
    caps->size = sizeof *caps;
    caps->streaming = 1;
    caps->context_window = 4096;
    return SEAM_OK;
}

/* ---- the offline server ---------------------------------------------------------- */

/* What a hello server would answer: "Hello! You said: <text>", streamed one word
 * per event. The prompt "/busy" gets a 429, to show error classification. */
static int hello_serve(void *instance, const seam_http_request *hr, seam_served *out,
                       seam_error *err)
{
    (void)instance;
    size_t len = 0;
    const char *text = seam_http_request_body(hr, &len);
    if (!text)
        text = "";
    if (len > 65536)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "hello: the prompt is too long"),
               SEAM_ERR_INVALID;
    if (len == 5 && memcmp(text, "/busy", 5) == 0) {
        static const char busy[] = "rate_limit: the hello server is busy";
        int rc = seam_served_set_status(out, 429);
        if (rc == SEAM_OK)
            rc = seam_served_add_header(out, "Retry-After", "1");
        if (rc == SEAM_OK)
            rc = seam_served_add_piece(out, busy, sizeof busy - 1, 0);
        if (rc != SEAM_OK)
            seam_error_set(err, SEAM_ERROR_UNKNOWN, "hello: out of memory");
        return rc;
    }
    long input_words = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] != ' ' && (i == 0 || text[i - 1] == ' '))
            input_words++;
    size_t size = len + 64;
    char *answer = malloc(size);
    char *event = malloc(size + 32);
    if (!answer || !event) {
        free(answer);
        free(event);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "hello: out of memory"), SEAM_ERR_NOMEM;
    }
    snprintf(answer, size, "Hello! You said: %.*s", (int)len, text);
    int rc = seam_served_set_status(out, 200);
    if (!seam_http_request_streaming(hr)) {
        if (rc == SEAM_OK)
            rc = seam_served_add_piece(out, answer, strlen(answer), 0);
    } else {
        long words = 0;
        /* One event per word, each word with the space before it. A data line
         * ends at a newline, so newlines inside the text are sent as spaces. */
        for (const char *p = answer; rc == SEAM_OK && *p;) {
            const char *end = p;
            while (*end == ' ')
                end++;
            while (*end && *end != ' ')
                end++;
            int n = snprintf(event, size + 32, "event: text\ndata: %.*s\n\n", (int)(end - p), p);
            for (int i = (int)sizeof "event: text\ndata: " - 1; i < n - 2; i++)
                if (event[i] == '\n' || event[i] == '\r')
                    event[i] = ' ';
            rc = seam_served_add_piece(out, event, (size_t)n, 0);
            words++;
            p = end;
        }
        if (rc == SEAM_OK) {
            int n = snprintf(event, size + 32, "event: done\ndata: %ld %ld\n\n", input_words,
                             words);
            rc = seam_served_add_piece(out, event, (size_t)n, 0);
        }
    }
    free(answer);
    free(event);
    if (rc != SEAM_OK)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "hello: out of memory");
    return rc;
}

/* ---- registration -------------------------------------------------------------------- */

/* Static storage: the core copies a table at registration but keeps pointers to
 * its strings and functions while the plugin is loaded. */
static const seam_provider_vtable hello_vtable = {
    .abi_version = SEAM_PLUGIN_ABI_VERSION,
    .size = sizeof(seam_provider_vtable),
    .id = "hello",
    .description = "template plugin: the hello wire over HTTP",
    .framing = SEAM_FRAMING_SSE,
    .create = hello_create,
    .destroy = hello_destroy,
    .encode = hello_encode,
    .decoder_new = hello_decoder_new,
    .decoder_free = hello_decoder_free,
    .decode_event = hello_decode_event,
    .decode_response = hello_decode_response,
    .classify_error = hello_classify_error,
    .capabilities = hello_capabilities,
};

static const seam_provider_vtable hello_offline_vtable = {
    .abi_version = SEAM_PLUGIN_ABI_VERSION,
    .size = sizeof(seam_provider_vtable),
    .id = "hello-offline",
    .description = "template plugin: the hello wire, answered in-process",
    .framing = SEAM_FRAMING_SSE,
    .create = hello_create,
    .destroy = hello_destroy,
    .encode = hello_encode,
    .decoder_new = hello_decoder_new,
    .decoder_free = hello_decoder_free,
    .decode_event = hello_decode_event,
    .decode_response = hello_decode_response,
    .classify_error = hello_classify_error,
    .capabilities = hello_capabilities,
    .serve = hello_serve,
};

static int hello_init(seam_registrar *r)
{
    int rc = seam_registrar_add(r, &hello_vtable);
    return rc == SEAM_OK ? seam_registrar_add(r, &hello_offline_vtable) : rc;
}

SEAM_PLUGIN_DEFINE(hello_init)
