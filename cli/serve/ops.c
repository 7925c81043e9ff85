/* ops.c — the gateway's doors that are not chat: POST /v1/embeddings,
 * POST /v1/images/generations and POST /v1/audio/speech, in OpenAI's wire
 * format (the shapes of openai-node's embeddings.ts, images.ts and
 * speech.ts), over seam_embed and seam_generate_media with the same routing,
 * keys, limits, metrics and access log as a chat call.
 *
 * The library's calls for these are blocking (one request, one answer, no
 * stream), so they run on a small pool of worker threads of their own rather
 * than on the engine's loop or MHD's threads: the connection is suspended
 * while a worker waits for the provider, and resumed with the whole answer.
 * MHD does not poll a suspended connection, so a watcher thread polls the
 * client sockets of the calls queued and running here: a client that hangs
 * up triggers its call's cancel token, which ends the upstream transfer. A
 * shutdown cancels every call still running and joins the threads before
 * MHD stops. */
#include "config.h"

#include "serve.h"

#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#define OPS_WORKERS 4

struct serve_ops {
    pthread_mutex_t mu;
    pthread_cond_t more;
    pthread_t th[OPS_WORKERS];
    size_t nstarted;                  /* threads started (joined by ops_free) */
    size_t nthreads;                  /* threads that took a slot */
    serve_call *queue_head, *queue_tail;
    serve_call *running[OPS_WORKERS]; /* a worker's call, for cancel_all */
    size_t active;                    /* queued + running */
    int stop;
    int wake_fd;                      /* the watcher looks at the calls again */
    pthread_t watcher;
    int watching;                     /* the watcher thread was started */
};

static void wake_watcher(serve_ops *ops);

/* ---- parsing ------------------------------------------------------------------ */

static int parse_embeddings(serve_call *c, json_object *root, serve_err *e)
{
    const char *model = jstr(root, "model");
    if (!model || !*model) {
        serve_err_set(e, 400, SEAM_ERROR_BAD_REQUEST, "invalid_request_error",
                      "'model' is required: a chain, a role or PROVIDER/MODEL");
        return -1;
    }
    seam_embed_request *er = seam_embed_request_new();
    if (!er) {
        serve_err_set(e, 500, SEAM_ERROR_UNKNOWN, "internal_error", "out of memory");
        return -1;
    }
    json_object *input = jget(root, "input");
    int bad = 0;
    if (input && json_object_is_type(input, json_type_string)) {
        bad = seam_embed_request_add_text(er, json_object_get_string(input)) != SEAM_OK;
    } else if (input && json_object_is_type(input, json_type_array) &&
               json_object_array_length(input) > 0) {
        for (size_t i = 0; !bad && i < json_object_array_length(input); i++) {
            json_object *v = json_object_array_get_idx(input, i);
            bad = !json_object_is_type(v, json_type_string) ||
                  seam_embed_request_add_text(er, json_object_get_string(v)) != SEAM_OK;
        }
    } else {
        bad = 1;
    }
    if (bad) {
        seam_embed_request_free(er);
        serve_err_set(e, 400, SEAM_ERROR_BAD_REQUEST, "invalid_request_error",
                      "'input' must be a string or a non-empty array of strings "
                      "(token arrays are not accepted by this gateway)");
        return -1;
    }
    json_object *dims = jget(root, "dimensions");
    if (dims && (!json_object_is_type(dims, json_type_int) || json_object_get_int64(dims) <= 0 ||
                 seam_embed_request_set_dimensions(er, json_object_get_int64(dims)) != SEAM_OK)) {
        seam_embed_request_free(er);
        serve_err_set(e, 400, SEAM_ERROR_BAD_REQUEST, "invalid_request_error",
                      "'dimensions' must be a positive integer");
        return -1;
    }
    const char *format = jstr(root, "encoding_format");
    if (jget(root, "encoding_format") && (!format || (strcmp(format, "float") != 0 &&
                                                      strcmp(format, "base64") != 0))) {
        seam_embed_request_free(er);
        serve_err_set(e, 400, SEAM_ERROR_BAD_REQUEST, "invalid_request_error",
                      "'encoding_format' must be \"float\" or \"base64\"");
        return -1;
    }
    c->op_base64 = format && strcmp(format, "base64") == 0;
    c->embed = er;
    c->model = strdup(model);
    if (!c->model) {
        serve_err_set(e, 500, SEAM_ERROR_UNKNOWN, "internal_error", "out of memory");
        return -1;
    }
    return 0;
}

/* The endpoint's own fields the library has no setter for (names, those
 * the body holds) go to the provider as options of its media endpoint.
 * 0, or -1 out of memory. */
static int pass_options(seam_media_request *mr, json_object *root, const char *const *names,
                        size_t n)
{
    json_object *opts = json_object_new_object();
    if (!opts)
        return -1;
    for (size_t i = 0; i < n; i++) {
        json_object *v = jget(root, names[i]);
        if (v)
            json_object_object_add(opts, names[i], json_object_get(v));
    }
    int rc = 0;
    if (json_object_object_length(opts) > 0 &&
        seam_media_request_set_provider_options(
            mr, json_object_to_json_string_ext(opts, JSON_C_TO_STRING_PLAIN)) != SEAM_OK)
        rc = -1;
    json_object_put(opts);
    return rc;
}

/* A media request built (bad: out of memory on the way) becomes c's. */
static int media_parsed(serve_call *c, seam_media_request *mr, const char *model, int bad,
                        serve_err *e)
{
    c->media = mr;
    c->model = strdup(model);
    if (bad || !c->model) {
        serve_err_set(e, 500, SEAM_ERROR_UNKNOWN, "internal_error", "out of memory");
        return -1;
    }
    return 0;
}

static int parse_images(serve_call *c, json_object *root, serve_err *e)
{
    const char *model = jstr(root, "model");
    const char *prompt = jstr(root, "prompt");
    if (!model || !*model || !prompt || !*prompt) {
        serve_err_set(e, 400, SEAM_ERROR_BAD_REQUEST, "invalid_request_error",
                      "'model' (a chain, a role or PROVIDER/MODEL) and 'prompt' are required");
        return -1;
    }
    const char *format = jstr(root, "response_format");
    if (format && strcmp(format, "b64_json") != 0) {
        serve_err_set(e, 400, SEAM_ERROR_BAD_REQUEST, "invalid_request_error",
                      "'response_format' \"%.32s\" is not served: this gateway answers with "
                      "b64_json (it keeps no public URL of the images)", format);
        return -1;
    }
    json_object *n = jget(root, "n");
    if (n && (!json_object_is_type(n, json_type_int) || json_object_get_int64(n) < 1 ||
              json_object_get_int64(n) > 10)) {
        serve_err_set(e, 400, SEAM_ERROR_BAD_REQUEST, "invalid_request_error",
                      "'n' must be an integer from 1 to 10");
        return -1;
    }
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_IMAGE, prompt);
    const char *size = jstr(root, "size");
    static const char *const passed[] = { "quality", "output_format", "background", "style",
                                          "moderation", "output_compression" };
    int bad = !mr ||
              (n && seam_media_request_set_count(mr, (int)json_object_get_int64(n)) != SEAM_OK) ||
              (size && seam_media_request_set_size(mr, size) != SEAM_OK) ||
              pass_options(mr, root, passed, sizeof passed / sizeof passed[0]) != 0;
    return media_parsed(c, mr, model, bad, e);
}

/* OpenAI's speech formats and the MIME types seam's media requests name. */
static const struct {
    const char *format, *mime;
} speech_formats[] = {
    { "mp3", "audio/mpeg" }, { "opus", "audio/opus" }, { "aac", "audio/aac" },
    { "flac", "audio/flac" }, { "wav", "audio/wav" },  { "pcm", "audio/pcm" },
};

static int parse_speech(serve_call *c, json_object *root, serve_err *e)
{
    const char *model = jstr(root, "model");
    const char *input = jstr(root, "input");
    const char *voice = jstr(root, "voice");
    if (!model || !*model || !input || !*input || !voice || !*voice) {
        serve_err_set(e, 400, SEAM_ERROR_BAD_REQUEST, "invalid_request_error",
                      "'model' (a chain, a role or PROVIDER/MODEL), 'input' and 'voice' are "
                      "required");
        return -1;
    }
    const char *format = jstr(root, "response_format");
    const char *mime = "audio/mpeg"; /* OpenAI's default, mp3 */
    if (format) {
        mime = NULL;
        for (size_t i = 0; i < sizeof speech_formats / sizeof speech_formats[0]; i++)
            if (strcmp(format, speech_formats[i].format) == 0)
                mime = speech_formats[i].mime;
        if (!mime) {
            serve_err_set(e, 400, SEAM_ERROR_BAD_REQUEST, "invalid_request_error",
                          "'response_format' must be one of mp3, opus, aac, flac, wav, pcm");
            return -1;
        }
    }
    seam_media_request *mr = seam_media_request_new(SEAM_MODALITY_AUDIO, input);
    static const char *const passed[] = { "speed", "instructions" };
    int bad = !mr || seam_media_request_set_voice(mr, voice) != SEAM_OK ||
              seam_media_request_set_mime_type(mr, mime) != SEAM_OK ||
              pass_options(mr, root, passed, sizeof passed / sizeof passed[0]) != 0;
    return media_parsed(c, mr, model, bad, e);
}

int ops_parse(serve_call *c, json_object *root, serve_err *e)
{
    c->cancel = seam_cancel_new();
    if (!c->cancel) {
        serve_err_set(e, 500, SEAM_ERROR_UNKNOWN, "internal_error", "out of memory");
        return -1;
    }
    return c->op == OP_EMBEDDINGS ? parse_embeddings(c, root, e) :
           c->op == OP_SPEECH     ? parse_speech(c, root, e) :
                                    parse_images(c, root, e);
}

/* ---- answers ------------------------------------------------------------------ */

static void base64_to(sbuf *out, const unsigned char *p, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char quad[4];
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        quad[0] = abc[v >> 18 & 63];
        quad[1] = abc[v >> 12 & 63];
        quad[2] = i + 1 < n ? abc[v >> 6 & 63] : '=';
        quad[3] = i + 2 < n ? abc[v & 63] : '=';
        sb_add(out, quad, 4);
    }
}

static void embeddings_render(serve_call *c, const seam_embeddings *em, sbuf *out)
{
    sb_puts(out, "{\"object\":\"list\",\"data\":[");
    for (size_t i = 0; i < seam_embeddings_count(em); i++) {
        size_t dims = 0;
        const float *v = seam_embeddings_vector(em, i, &dims);
        sb_printf(out, "%s{\"object\":\"embedding\",\"index\":%zu,\"embedding\":", i ? "," : "", i);
        if (c->op_base64) {
            /* float32, little-endian, as OpenAI sends it, whatever this
             * host's byte order */
            unsigned char *le = dims ? malloc(dims * 4) : NULL;
            for (size_t k = 0; le && k < dims; k++) {
                uint32_t bits;
                memcpy(&bits, &v[k], 4);
                for (int b = 0; b < 4; b++)
                    le[k * 4 + (size_t)b] = (unsigned char)(bits >> (8 * b));
            }
            if (dims && !le)
                out->oom = 1;
            sb_add(out, "\"", 1);
            base64_to(out, le, le ? dims * 4 : 0);
            sb_add(out, "\"", 1);
            free(le);
        } else {
            sb_add(out, "[", 1);
            for (size_t k = 0; k < dims; k++)
                sb_printf(out, "%s%.9g", k ? "," : "", isfinite(v[k]) ? (double)v[k] : 0.0);
            sb_add(out, "]", 1);
        }
        sb_add(out, "}", 1);
    }
    char model[256];
    const char *p = seam_embeddings_provider(em), *m = seam_embeddings_model(em);
    if (p && m)
        snprintf(model, sizeof model, "%s/%s", p, m);
    else
        snprintf(model, sizeof model, "%s", c->model);
    sb_puts(out, "],\"model\":");
    sb_json_str(out, model);
    const seam_usage *u = seam_embeddings_usage(em);
    long long in = u && u->input_tokens > 0 ? (long long)u->input_tokens : 0;
    sb_printf(out, ",\"usage\":{\"prompt_tokens\":%lld,\"total_tokens\":%lld}}", in, in);
}

/* The stored bytes of a handle (malloc'ed, *len bytes). */
static unsigned char *read_stored(seam_client *client, const char *handle, size_t *len,
                                  seam_error *err)
{
    int fd = -1;
    if (seam_media_open(client, handle, &fd, err) != SEAM_OK)
        return NULL;
    struct stat st;
    unsigned char *bytes = NULL;
    size_t got = 0;
    if (fstat(fd, &st) == 0 && st.st_size >= 0 && (bytes = malloc((size_t)st.st_size + 1))) {
        while (got < (size_t)st.st_size) {
            ssize_t r = read(fd, bytes + got, (size_t)st.st_size - got);
            if (r <= 0)
                break;
            got += (size_t)r;
        }
    }
    close(fd);
    if (!bytes || got != (size_t)st.st_size) {
        free(bytes);
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "cannot read the stored media %s", handle);
        return NULL;
    }
    *len = got;
    return bytes;
}

/* The stored bytes of a handle, base64, into out. */
static int stored_base64(seam_client *client, const char *handle, sbuf *out, seam_error *err)
{
    size_t len = 0;
    unsigned char *bytes = read_stored(client, handle, &len, err);
    if (!bytes)
        return SEAM_ERR_PROVIDER;
    base64_to(out, bytes, len);
    free(bytes);
    return SEAM_OK;
}

/* The first media part of a speech result as the whole body, its MIME type
 * the answer's Content-Type. */
static int speech_render(serve_call *c, const seam_result *res, sbuf *out, seam_error *err)
{
    const seam_message *msg = seam_result_message(res);
    for (size_t i = 0; msg && i < seam_message_part_count(msg); i++) {
        const seam_part *part = seam_message_part(msg, i);
        if (seam_part_get_type(part) != SEAM_PART_MEDIA)
            continue;
        size_t len = 0;
        unsigned char *bytes = read_stored(c->gen->client, seam_part_media_data(part), &len, err);
        if (!bytes)
            return SEAM_ERR_PROVIDER;
        sb_add(out, (const char *)bytes, len);
        free(bytes);
        const char *mime = seam_part_mime_type(part);
        snprintf(c->content_type, sizeof c->content_type, "%s",
                 mime && *mime ? mime : "application/octet-stream");
        return SEAM_OK;
    }
    return seam_error_set(err, SEAM_ERROR_UNKNOWN, "the provider answered with no audio");
}

static int images_render(serve_call *c, const seam_result *res, sbuf *out, seam_error *err)
{
    const seam_message *msg = seam_result_message(res);
    sb_printf(out, "{\"created\":%lld,\"data\":[", (long long)c->created);
    int n = 0;
    for (size_t i = 0; msg && i < seam_message_part_count(msg); i++) {
        const seam_part *part = seam_message_part(msg, i);
        if (seam_part_get_type(part) != SEAM_PART_MEDIA)
            continue;
        sb_puts(out, n++ ? ",{\"b64_json\":\"" : "{\"b64_json\":\"");
        int rc = stored_base64(c->gen->client, seam_part_media_data(part), out, err);
        if (rc != SEAM_OK)
            return rc;
        sb_puts(out, "\"}");
    }
    if (n == 0)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "the provider answered with no image");
    sb_puts(out, "]");
    const seam_usage *u = seam_result_usage(res);
    if (u && (u->input_tokens > 0 || u->output_tokens > 0))
        sb_printf(out,
                  ",\"usage\":{\"input_tokens\":%lld,\"output_tokens\":%lld,\"total_tokens\":%lld}",
                  (long long)u->input_tokens, (long long)u->output_tokens,
                  (long long)(u->input_tokens + u->output_tokens));
    sb_puts(out, "}");
    return SEAM_OK;
}

/* ---- running one -------------------------------------------------------------- */

/* What answered, for the log, the metrics and the key's budget. */
static void note_answer(serve_call *c, const seam_usage *u, const char *provider,
                        const char *model)
{
    if (u)
        c->usage = *u;
    snprintf(c->answered_provider, sizeof c->answered_provider, "%s", provider ? provider : "");
    snprintf(c->answered_model, sizeof c->answered_model, "%s", model ? model : "");
}

static void run_op(serve_call *c)
{
    seam_call_options o = call_route_options(c);
    o.cancel = c->cancel;
    seam_error err;
    seam_error_clear(&err);
    sbuf body = { 0 };
    int rc;
    if (c->op == OP_EMBEDDINGS) {
        seam_embeddings *em = NULL;
        rc = seam_embed(c->gen->client, c->embed, &o, &em, &err);
        if (rc == SEAM_OK) {
            embeddings_render(c, em, &body);
            note_answer(c, seam_embeddings_usage(em), seam_embeddings_provider(em),
                        seam_embeddings_model(em));
        }
        seam_embeddings_free(em);
    } else {
        seam_result *res = NULL;
        rc = seam_generate_media(c->gen->client, c->media, &o, &res, NULL, &err);
        if (rc == SEAM_OK) {
            rc = c->op == OP_SPEECH ? speech_render(c, res, &body, &err)
                                    : images_render(c, res, &body, &err);
            note_answer(c, seam_result_usage(res), seam_result_provider(res),
                        seam_result_model(res));
        }
        seam_result_free(res);
    }
    if (rc == SEAM_OK && body.oom)
        rc = seam_error_set(&err, SEAM_ERROR_UNKNOWN, "out of memory");
    if (rc != SEAM_OK) {
        sb_free(&body);
        serve_err e;
        serve_err_from_seam(&e, &err, c->wire);
        pump_answer(c, &e, NULL);
        return;
    }
    pump_answer(c, NULL, &body);
}

static void *worker(void *arg)
{
    serve_ops *ops = arg;
    pthread_mutex_lock(&ops->mu);
    size_t slot = ops->nthreads++;
    for (;;) {
        while (!ops->queue_head && !ops->stop)
            pthread_cond_wait(&ops->more, &ops->mu);
        serve_call *c = ops->queue_head;
        if (!c)
            break; /* stopping, nothing left */
        ops->queue_head = c->next;
        if (!ops->queue_head)
            ops->queue_tail = NULL;
        ops->running[slot] = c;
        int cancelled = ops->stop;
        pthread_mutex_unlock(&ops->mu);
        if (cancelled)
            seam_cancel_trigger(c->cancel);
        run_op(c);
        pthread_mutex_lock(&ops->mu);
        ops->running[slot] = NULL; /* before the unref: the watcher may look */
        ops->active--;
        wake_watcher(ops);
        pthread_mutex_unlock(&ops->mu);
        call_unref(c);
        pthread_mutex_lock(&ops->mu);
    }
    pthread_mutex_unlock(&ops->mu);
    return NULL;
}

/* ---- hang-ups ------------------------------------------------------------------ */

static void wake_watcher(serve_ops *ops)
{
    uint64_t one = 1;
    ssize_t w = write(ops->wake_fd, &one, sizeof one);
    (void)w;
}

/* Adds c's client socket to the watch list, unless its hang-up was seen. */
static void watch_call(serve_call *c, struct pollfd *pfd, serve_call **calls, size_t *n)
{
    if (!c || c->fd < 0 || seam_cancel_triggered(c->cancel))
        return;
    pfd[*n] = (struct pollfd){ .fd = c->fd, .events = POLLRDHUP };
    calls[(*n)++] = c;
}

/* Under ops->mu: whether c is queued or running. */
static int still_here(const serve_ops *ops, const serve_call *c)
{
    for (const serve_call *q = ops->queue_head; q; q = q->next)
        if (q == c)
            return 1;
    for (size_t i = 0; i < OPS_WORKERS; i++)
        if (ops->running[i] == c)
            return 1;
    return 0;
}

static void *watcher(void *arg)
{
    serve_ops *ops = arg;
    struct pollfd *pfd = NULL;
    serve_call **calls = NULL;
    size_t cap = 0;
    for (;;) {
        pthread_mutex_lock(&ops->mu);
        if (ops->stop) {
            pthread_mutex_unlock(&ops->mu);
            break;
        }
        size_t want = 1 + ops->active;
        if (want > cap) {
            struct pollfd *np = realloc(pfd, want * sizeof *np);
            serve_call **nc = np ? realloc(calls, want * sizeof *nc) : NULL;
            if (np)
                pfd = np;
            if (nc)
                calls = nc;
            if (np && nc)
                cap = want;
        }
        size_t n = 1;
        pfd[0] = (struct pollfd){ .fd = ops->wake_fd, .events = POLLIN };
        if (cap >= want) {
            for (serve_call *c = ops->queue_head; c; c = c->next)
                watch_call(c, pfd, calls, &n);
            for (size_t i = 0; i < OPS_WORKERS; i++)
                watch_call(ops->running[i], pfd, calls, &n);
        }
        pthread_mutex_unlock(&ops->mu);
        /* without room for the list (out of memory), look again soon */
        if (poll(pfd, n, cap >= want ? -1 : 100) <= 0)
            continue;
        if (pfd[0].revents & POLLIN) {
            uint64_t v;
            ssize_t r = read(ops->wake_fd, &v, sizeof v);
            (void)r;
        }
        pthread_mutex_lock(&ops->mu);
        /* only a call still queued or running: one that has left the lists
         * may be freed (and its fd another connection's) */
        for (size_t i = 1; i < n; i++)
            if ((pfd[i].revents & (POLLRDHUP | POLLHUP | POLLERR)) && still_here(ops, calls[i]))
                seam_cancel_trigger(calls[i]->cancel);
        pthread_mutex_unlock(&ops->mu);
    }
    free(pfd);
    free(calls);
    return NULL;
}

/* ---- the pool ----------------------------------------------------------------- */

serve_ops *ops_start(char *msg, size_t msgsize)
{
    serve_ops *ops = calloc(1, sizeof *ops);
    if (!ops) {
        snprintf(msg, msgsize, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&ops->mu, NULL);
    pthread_cond_init(&ops->more, NULL);
    ops->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (ops->wake_fd < 0 || pthread_create(&ops->watcher, NULL, watcher, ops) != 0) {
        snprintf(msg, msgsize, "cannot start the embeddings, images and speech watcher");
        ops_free(ops);
        return NULL;
    }
    ops->watching = 1;
    while (ops->nstarted < OPS_WORKERS &&
           pthread_create(&ops->th[ops->nstarted], NULL, worker, ops) == 0)
        ops->nstarted++;
    if (ops->nstarted == 0) {
        snprintf(msg, msgsize, "cannot start the embeddings, images and speech workers");
        ops_free(ops);
        return NULL;
    }
    return ops;
}

void ops_submit(serve_ops *ops, serve_call *c)
{
    pthread_mutex_lock(&ops->mu);
    c->next = NULL;
    if (ops->queue_tail)
        ops->queue_tail->next = c;
    else
        ops->queue_head = c;
    ops->queue_tail = c;
    ops->active++;
    pthread_cond_signal(&ops->more);
    wake_watcher(ops);
    pthread_mutex_unlock(&ops->mu);
}

size_t ops_active(serve_ops *ops)
{
    if (!ops)
        return 0;
    pthread_mutex_lock(&ops->mu);
    size_t n = ops->active;
    pthread_mutex_unlock(&ops->mu);
    return n;
}

void ops_cancel_all(serve_ops *ops)
{
    if (!ops)
        return;
    pthread_mutex_lock(&ops->mu);
    for (serve_call *c = ops->queue_head; c; c = c->next)
        seam_cancel_trigger(c->cancel);
    for (size_t i = 0; i < OPS_WORKERS; i++)
        if (ops->running[i])
            seam_cancel_trigger(ops->running[i]->cancel);
    pthread_mutex_unlock(&ops->mu);
}

void ops_free(serve_ops *ops)
{
    if (!ops)
        return;
    /* what is still queued or running ends cancelled, answered, before the
     * workers exit: their connections are resumed while MHD still runs */
    ops_cancel_all(ops);
    pthread_mutex_lock(&ops->mu);
    ops->stop = 1;
    pthread_cond_broadcast(&ops->more);
    if (ops->watching)
        wake_watcher(ops);
    pthread_mutex_unlock(&ops->mu);
    for (size_t i = 0; i < ops->nstarted; i++)
        pthread_join(ops->th[i], NULL);
    if (ops->watching)
        pthread_join(ops->watcher, NULL);
    if (ops->wake_fd >= 0)
        close(ops->wake_fd);
    pthread_cond_destroy(&ops->more);
    pthread_mutex_destroy(&ops->mu);
    free(ops);
}
