/* mediajob.c — asynchronous media generation jobs (reference ADR-0045): the
 * record seam keeps of a job a provider runs in the background — seam's own
 * id, the configured provider and model that accepted it, the plugin's ref
 * (never shown as the id), state, progress, back-off and deadline — its
 * checkpoint (one line of JSON a caller persists and resumes from in
 * another process), one poll, the wait, and cancel.
 *
 * A poll is an operation of the chain runner (call.c) on the one provider
 * that accepted the job: its keys, timeouts and cancel apply; the plugin
 * encodes the poll and reads its answer (media_poll_encode / _decode).
 * The deadline is wall-clock time, so that it holds across a restart; the
 * waits between polls are on the client's clock (seam_client_set_clock). */
#include "config.h"
#include "mediagen_int.h"
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#define DEFAULT_POLL_MS 2000
#define DEFAULT_POLL_MAX_MS 30000
#define DEFAULT_DEADLINE_MS ((int64_t)3600 * 1000)
/* A ready job's download is asked for at once; a plugin that keeps saying
 * "fetch now" is broken, not slow. */
#define MAX_FETCH_HOPS 4

struct seam_media_job {
    char id[40];            /* "job-" + 32 hex */
    char *provider;
    char *model;
    uint32_t modality;
    char *ref;
    seam_media_job_state state;
    double progress;
    int seconds;            /* asked for (video), for the media units */
    int64_t deadline_wall;  /* Unix ms */
    int64_t interval_ms;    /* the next wait */
    int64_t poll_max_ms;
    int waited;             /* a poll found it pending before: the next wait grows */
    seam_error error;       /* failed */
    seam_media_item items[SEAM_MEDIA_SINK_MAX]; /* done */
    size_t n_items;
    double seconds_said;
};

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void new_id(char id[40])
{
    unsigned char r[16];
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t n = getrandom(r + got, sizeof r - got, 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            break;
        }
        got += (size_t)n;
    }
    if (got < sizeof r) {
        /* No entropy source: a hash of the time and the process is still unique enough
         * for an id that only names a local record. */
        int64_t seed[3] = {wall_ms(), (int64_t)getpid(), (int64_t)(intptr_t)id};
        unsigned char sum[32];
        seam_sha256(seed, sizeof seed, sum);
        memcpy(r, sum, sizeof r);
    }
    int o = snprintf(id, 40, "job-");
    for (size_t i = 0; i < sizeof r; i++)
        o += snprintf(id + o, 40 - (size_t)o, "%02x", r[i]);
}

static void apply_conf(seam_media_job *j, seam_client *client, int64_t deadline_ms, int fresh)
{
    const seam_conf_media *m = client ? &client->conf->media : NULL;
    j->poll_max_ms = m && m->job_poll_max_ms > 0 ? m->job_poll_max_ms : DEFAULT_POLL_MAX_MS;
    if (fresh) {
        j->interval_ms = m && m->job_poll_ms > 0 ? m->job_poll_ms : DEFAULT_POLL_MS;
        if (deadline_ms <= 0)
            deadline_ms = m && m->job_deadline_ms > 0 ? m->job_deadline_ms : DEFAULT_DEADLINE_MS;
        j->deadline_wall = wall_ms() + deadline_ms;
    }
    if (j->interval_ms > j->poll_max_ms)
        j->interval_ms = j->poll_max_ms;
}

seam_media_job *seam_media_job_accepted(seam_client *client, const char *provider,
                                        const char *model, uint32_t modality, const char *ref,
                                        double progress, int seconds, int64_t deadline_ms)
{
    seam_media_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    new_id(j->id);
    j->provider = seam_strdup(provider);
    j->model = seam_strdup(model);
    j->ref = seam_strdup(ref);
    if (!j->provider || !j->model || !j->ref) {
        seam_media_job_free(j);
        return NULL;
    }
    j->modality = modality;
    j->state = SEAM_MEDIA_JOB_PENDING;
    j->progress = progress;
    j->seconds = seconds;
    seam_error_clear(&j->error);
    apply_conf(j, client, deadline_ms, 1);
    return j;
}

void seam_media_job_free(seam_media_job *job)
{
    if (!job)
        return;
    free(job->provider);
    free(job->model);
    free(job->ref);
    free(job);
}

const char *seam_media_job_id(const seam_media_job *job)
{
    return job ? job->id : NULL;
}

seam_media_job_state seam_media_job_status(const seam_media_job *job)
{
    return job ? job->state : SEAM_MEDIA_JOB_FAILED;
}

double seam_media_job_progress(const seam_media_job *job)
{
    return job ? job->progress : -1;
}

const char *seam_media_job_provider(const seam_media_job *job)
{
    return job ? job->provider : NULL;
}

const char *seam_media_job_model(const seam_media_job *job)
{
    return job ? job->model : NULL;
}

int64_t seam_media_job_next_poll_ms(const seam_media_job *job)
{
    return job && job->state == SEAM_MEDIA_JOB_PENDING ? job->interval_ms : 0;
}

const seam_error *seam_media_job_error(const seam_media_job *job)
{
    return job && job->state == SEAM_MEDIA_JOB_FAILED ? &job->error : NULL;
}

int seam_media_job_cancel(seam_media_job *job)
{
    if (!job)
        return SEAM_ERR_INVALID;
    if (job->state == SEAM_MEDIA_JOB_PENDING) {
        job->state = SEAM_MEDIA_JOB_FAILED;
        seam_error_clear(&job->error);
        seam_error_set(&job->error, SEAM_ERROR_CANCELLED, "the job %s was cancelled", job->id);
        seam_strlcpy(job->error.provider, job->provider, sizeof job->error.provider);
    }
    return SEAM_OK;
}

/* ---- the checkpoint ------------------------------------------------------------------- */

static const char *const state_names[] = {"", "pending", "done", "failed"};
static const char *const modality_names[] = {"image", "audio", "video"};

static const char *modality_name(uint32_t m)
{
    return m == SEAM_MODALITY_IMAGE ? modality_names[0]
                                    : m == SEAM_MODALITY_AUDIO ? modality_names[1] : modality_names[2];
}

static int add(json_object *o, const char *key, json_object *v)
{
    if (!v || json_object_object_add(o, key, v) != 0) {
        json_object_put(v);
        return 0;
    }
    return 1;
}

char *seam_media_job_checkpoint(const seam_media_job *job)
{
    if (!job)
        return NULL;
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    int ok = add(o, "seam_media_job", json_object_new_int(1)) &&
             add(o, "id", json_object_new_string(job->id)) &&
             add(o, "provider", json_object_new_string(job->provider)) &&
             add(o, "model", json_object_new_string(job->model)) &&
             add(o, "modality", json_object_new_string(modality_name(job->modality))) &&
             add(o, "state", json_object_new_string(state_names[job->state])) &&
             add(o, "ref", json_object_new_string(job->ref)) &&
             add(o, "progress", json_object_new_double(job->progress)) &&
             add(o, "seconds", json_object_new_int(job->seconds)) &&
             add(o, "deadline", json_object_new_int64(job->deadline_wall)) &&
             add(o, "interval_ms", json_object_new_int64(job->interval_ms));
    if (ok && job->state == SEAM_MEDIA_JOB_FAILED) {
        json_object *e = json_object_new_object();
        ok = e && add(e, "kind", json_object_new_string(seam_error_kind_name(job->error.kind))) &&
             add(e, "message", json_object_new_string(job->error.message)) &&
             add(e, "code", json_object_new_string(job->error.code)) &&
             add(e, "retryable", json_object_new_boolean(job->error.retryable));
        ok = ok && add(o, "error", e);
        if (!ok && e && !json_object_object_get_ex(o, "error", NULL))
            json_object_put(e);
    }
    if (ok && job->state == SEAM_MEDIA_JOB_DONE) {
        json_object *media = json_object_new_array();
        for (size_t i = 0; ok && media && i < job->n_items; i++) {
            json_object *m = json_object_new_object();
            ok = m && add(m, "handle", json_object_new_string(job->items[i].handle)) &&
                 add(m, "mime_type", json_object_new_string(job->items[i].mime_type)) &&
                 add(m, "bytes", json_object_new_int64(job->items[i].bytes));
            if (ok && json_object_array_add(media, m) != 0)
                ok = 0;
            if (!ok)
                json_object_put(m);
        }
        ok = ok && media && add(o, "media", media);
        if (ok)
            ok = add(o, "seconds_said", json_object_new_double(job->seconds_said));
        else if (media && !json_object_object_get_ex(o, "media", NULL))
            json_object_put(media);
    }
    char *text = ok ? seam_json_print(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
                    : NULL;
    json_object_put(o);
    return text;
}

static const char *jstring(json_object *o, const char *key)
{
    json_object *v = NULL;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

static int jnumber(json_object *o, const char *key, double *out)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) ||
        !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
        return 0;
    *out = json_object_get_double(v);
    return 1;
}

static int bad_checkpoint(seam_error *err, const char *what)
{
    seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "not a media job checkpoint: %s", what);
    return SEAM_ERR_INVALID;
}

int seam_media_job_resume(seam_client *client, const char *checkpoint, seam_media_job **out,
                          seam_error *err)
{
    seam_error_clear(err);
    if (out)
        *out = NULL;
    if (!client || !checkpoint || !out)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    json_object *o = NULL;
    int rc = seam_json_parse(checkpoint, JSON_TOKENER_STRICT, 8, &o);
    if (rc == SEAM_ERR_NOMEM)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), rc;
    if (rc != SEAM_OK || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return bad_checkpoint(err, "the text is not a JSON object");
    }
    double version = 0, progress = -1, seconds = 0, deadline = 0, interval = 0;
    const char *id = jstring(o, "id"), *provider = jstring(o, "provider"),
               *model = jstring(o, "model"), *modality = jstring(o, "modality"),
               *state = jstring(o, "state"), *ref = jstring(o, "ref");
    const char *why = NULL;
    if (!jnumber(o, "seam_media_job", &version) || version != 1)
        why = "no version 1";
    else if (!id || strlen(id) != 36 || strncmp(id, "job-", 4) != 0 ||
             strspn(id + 4, "0123456789abcdef") != 32)
        why = "no job id";
    else if (!provider || !*provider || !model || !*model)
        why = "no provider and model";
    else if (!ref || !*ref || strlen(ref) > SEAM_MEDIA_REF_MAX)
        why = "no ref";
    else if (!modality || !state)
        why = "no modality or state";
    else if (!jnumber(o, "deadline", &deadline) || !jnumber(o, "interval_ms", &interval))
        why = "no deadline";
    if (why) {
        json_object_put(o);
        return bad_checkpoint(err, why);
    }
    (void)jnumber(o, "progress", &progress);
    (void)jnumber(o, "seconds", &seconds);
    uint32_t m = strcmp(modality, "image") == 0   ? SEAM_MODALITY_IMAGE
                 : strcmp(modality, "audio") == 0 ? SEAM_MODALITY_AUDIO
                 : strcmp(modality, "video") == 0 ? SEAM_MODALITY_VIDEO
                                                  : 0;
    seam_media_job_state st = 0;
    for (int i = 1; i <= 3; i++)
        if (strcmp(state, state_names[i]) == 0)
            st = (seam_media_job_state)i;
    if (!m || !st) {
        json_object_put(o);
        return bad_checkpoint(err, "an unknown modality or state");
    }
    seam_media_job *j = seam_media_job_accepted(client, provider, model, m, ref, progress,
                                                (int)seconds, 1);
    if (!j) {
        json_object_put(o);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    }
    memcpy(j->id, id, 37);
    j->state = st;
    j->deadline_wall = (int64_t)deadline;
    j->interval_ms = interval >= 1 ? (int64_t)interval : DEFAULT_POLL_MS;
    j->waited = 1;
    apply_conf(j, client, 0, 0);
    if (st == SEAM_MEDIA_JOB_FAILED) {
        json_object *e = NULL;
        const char *msg = json_object_object_get_ex(o, "error", &e) ? jstring(e, "message") : NULL;
        const char *kind = e ? jstring(e, "kind") : NULL;
        seam_error_kind k = SEAM_ERROR_UNKNOWN;
        for (int i = 0; kind && i <= SEAM_ERROR_RESOURCE; i++)
            if (strcmp(seam_error_kind_name((seam_error_kind)i), kind) == 0) {
                k = (seam_error_kind)i;
                break;
            }
        seam_error_set(&j->error, k, "%s", msg ? msg : "the job failed");
        const char *code = e ? jstring(e, "code") : NULL;
        if (code)
            seam_strlcpy(j->error.code, code, sizeof j->error.code);
        seam_strlcpy(j->error.provider, j->provider, sizeof j->error.provider);
    } else if (st == SEAM_MEDIA_JOB_DONE) {
        json_object *media = NULL;
        size_t n = json_object_object_get_ex(o, "media", &media) &&
                           json_object_is_type(media, json_type_array)
                       ? json_object_array_length(media)
                       : 0;
        for (size_t i = 0; i < n && j->n_items < SEAM_MEDIA_SINK_MAX; i++) {
            json_object *it = json_object_array_get_idx(media, i);
            const char *h = jstring(it, "handle"), *mt = jstring(it, "mime_type");
            double bytes = 0;
            (void)jnumber(it, "bytes", &bytes);
            seam_error e;
            seam_error_clear(&e);
            if (!h || !seam_media_handle_valid(h) || !mt || !seam_media_mime_check(mt, "media", &e))
                continue;
            seam_media_item *item = &j->items[j->n_items++];
            seam_strlcpy(item->handle, h, sizeof item->handle);
            seam_strlcpy(item->mime_type, mt, sizeof item->mime_type);
            item->bytes = (int64_t)bytes;
        }
        (void)jnumber(o, "seconds_said", &j->seconds_said);
        if (!j->n_items) {
            seam_media_job_free(j);
            json_object_put(o);
            return bad_checkpoint(err, "a done job without media");
        }
    }
    json_object_put(o);
    *out = j;
    return SEAM_OK;
}

/* ---- polling -------------------------------------------------------------------------- */

typedef struct poll_state {
    seam_media_job *job;
    seam_media_sink sink;
    int decoded;       /* the plugin read an answer (its verdict is the job's) */
} poll_state;

static int poll_encode(void *ud, const seam_provider_vtable *vt, void *instance,
                       const seam_request *req, seam_http_request *out, seam_error *err)
{
    (void)req;
    poll_state *ps = ud;
    if (!vt->media_poll_encode || !vt->media_poll_decode) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "the plugin of provider \"%s\" cannot poll jobs",
                       ps->job->provider);
        return SEAM_ERR_INVALID;
    }
    return vt->media_poll_encode(instance, ps->job->ref, out, err);
}

static int poll_decode(void *ud, const seam_provider_vtable *vt, void *instance,
                       const seam_request *req, const char *body, size_t len, seam_emitter *out,
                       seam_error *err)
{
    (void)req;
    poll_state *ps = ud;
    seam_media_sink_clear(&ps->sink);
    ps->sink.client = out->client;
    ps->decoded = 1;
    int rc = vt->media_poll_decode(instance, ps->job->ref, body, len, &ps->sink, err);
    if (rc != SEAM_OK)
        return rc;
    if (!ps->sink.pending && !ps->sink.n) {
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "the provider's answer about the job holds neither "
                                                "a state nor media");
        seam_strlcpy(err->code, "bad_response", sizeof err->code);
        return SEAM_ERR_PROVIDER;
    }
    return seam_media_sink_emit(&ps->sink, out);
}

static void fail_job(seam_media_job *j, const seam_error *e)
{
    j->state = SEAM_MEDIA_JOB_FAILED;
    j->error = *e;
    seam_strlcpy(j->error.provider, j->provider, sizeof j->error.provider);
}

/* The first wait is media.job_poll_ms; each later one half as long again. */
static void back_off(seam_media_job *j)
{
    if (!j->waited) {
        j->waited = 1;
        return;
    }
    int64_t next = j->interval_ms + j->interval_ms / 2;
    j->interval_ms = next > j->poll_max_ms ? j->poll_max_ms : next;
}

/* The result of a done job: its media as handle parts, its media units. */
static int done_result(const seam_media_job *j, seam_result **out, seam_error *err)
{
    seam_result *res = seam_result_new();
    int rc = res ? SEAM_OK : SEAM_ERR_NOMEM;
    for (size_t i = 0; rc == SEAM_OK && i < j->n_items; i++) {
        char id[32];
        snprintf(id, sizeof id, "media-%zu", i + 1);
        seam_chunk c = {.type = SEAM_CHUNK_MEDIA_START, .id = id,
                        .mime_type = j->items[i].mime_type};
        rc = seam_result_add_chunk(res, &c);
        c = (seam_chunk){.type = SEAM_CHUNK_MEDIA_END, .id = id,
                         .mime_type = j->items[i].mime_type, .text = j->items[i].handle};
        if (rc == SEAM_OK)
            rc = seam_result_add_chunk(res, &c);
    }
    seam_chunk stop = {.type = SEAM_CHUNK_STOP, .stop_reason = SEAM_STOP_STOP};
    if (rc == SEAM_OK)
        rc = seam_result_add_chunk(res, &stop);
    if (rc == SEAM_OK)
        rc = seam_result_set_origin(res, j->provider, j->model);
    if (rc != SEAM_OK) {
        seam_result_free(res);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    }
    seam_media_add_seconds(res, j->modality, j->seconds_said, j->seconds);
    *out = res;
    return SEAM_OK;
}

static int failed_return(const seam_media_job *j, seam_error *err)
{
    if (err)
        *err = j->error;
    return SEAM_ERR_PROVIDER;
}

int seam_media_job_poll(seam_client *client, seam_media_job *job, seam_cancel *cancel,
                        seam_result **out, seam_error *err)
{
    seam_error_clear(err);
    if (out)
        *out = NULL;
    if (!client || !job)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    if (job->state == SEAM_MEDIA_JOB_FAILED)
        return failed_return(job, err);
    if (job->state == SEAM_MEDIA_JOB_DONE)
        return out ? done_result(job, out, err) : SEAM_OK;
    for (int hop = 0;; hop++) {
        int64_t left = job->deadline_wall - wall_ms();
        if (left <= 0) {
            seam_error e;
            seam_error_clear(&e);
            seam_error_set(&e, SEAM_ERROR_TIMEOUT, "the job %s passed its deadline", job->id);
            e.retryable = 1;
            fail_job(job, &e);
            return failed_return(job, err);
        }
        seam_request *req = seam_request_new();
        if (!req || seam_request_set_model(req, job->model) != SEAM_OK) {
            seam_request_free(req);
            return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
        }
        poll_state ps = {.job = job};
        seam_media_sink_init(&ps.sink, client);
        seam_call_op op = {NULL, poll_encode, poll_decode, &ps};
        seam_call_options o = {.size = sizeof o, .provider = job->provider, .model = job->model,
                               .cancel = cancel, .timeout_ms = left};
        seam_result *res = NULL;
        seam_error e;
        seam_error_clear(&e);
        int rc = seam_call_run_op(client, req, &o, &op, &res, &e);
        seam_request_free(req);
        seam_result_free(res);
        if (rc == SEAM_ERR_NOMEM) {
            seam_media_sink_clear(&ps.sink);
            if (err)
                *err = e;
            return rc;
        }
        if (rc != SEAM_OK) {
            seam_media_sink_clear(&ps.sink);
            if (e.kind == SEAM_ERROR_CANCELLED || seam_cancel_triggered(cancel)) {
                /* The poll was given up, not the job. */
                if (err)
                    *err = e;
                if (err && err->kind != SEAM_ERROR_CANCELLED)
                    seam_error_set(err, SEAM_ERROR_CANCELLED, "the poll of job %s was cancelled",
                                   job->id);
                return SEAM_ERR_PROVIDER;
            }
            int transient = !ps.decoded &&
                            (e.retryable || e.kind == SEAM_ERROR_TRANSPORT ||
                             e.kind == SEAM_ERROR_TIMEOUT || e.kind == SEAM_ERROR_OVERLOADED ||
                             e.kind == SEAM_ERROR_RATE_LIMIT);
            if (transient) {
                /* The provider could not say: the job may well be running. */
                back_off(job);
                return SEAM_OK;
            }
            if (!ps.decoded && (e.kind == SEAM_ERROR_CONF || e.kind == SEAM_ERROR_AUTH ||
                                e.kind == SEAM_ERROR_RESOURCE)) {
                /* This side cannot ask (the provider not configured here, no
                 * key, no descriptors): the job itself is not known to fail. */
                if (err)
                    *err = e;
                return SEAM_ERR_PROVIDER;
            }
            fail_job(job, &e);
            return failed_return(job, err);
        }
        if (ps.sink.n) {
            job->state = SEAM_MEDIA_JOB_DONE;
            job->progress = 1;
            job->n_items = ps.sink.n;
            memcpy(job->items, ps.sink.items, ps.sink.n * sizeof ps.sink.items[0]);
            job->seconds_said = ps.sink.seconds;
            seam_media_sink_clear(&ps.sink);
            return out ? done_result(job, out, err) : SEAM_OK;
        }
        char *ref = ps.sink.ref;
        ps.sink.ref = NULL;
        int fetch_now = ps.sink.fetch_now;
        if (ps.sink.progress >= 0)
            job->progress = ps.sink.progress;
        seam_media_sink_clear(&ps.sink);
        free(job->ref);
        job->ref = ref;
        if (!fetch_now) {
            back_off(job);
            return SEAM_OK;
        }
        if (hop + 1 >= MAX_FETCH_HOPS) {
            seam_error_set(&e, SEAM_ERROR_UNKNOWN,
                           "the provider's plugin asked to fetch job %s again and again", job->id);
            fail_job(job, &e);
            return failed_return(job, err);
        }
    }
}

int seam_media_job_wait(seam_client *client, seam_media_job *job, seam_cancel *cancel,
                        void (*on_poll)(void *ud, const seam_media_job *job), void *ud,
                        seam_result **out, seam_error *err)
{
    seam_error_clear(err);
    if (out)
        *out = NULL;
    if (!client || !job || !out)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    for (;;) {
        int rc = seam_media_job_poll(client, job, cancel, out, err);
        if (on_poll)
            on_poll(ud, job);
        if (rc != SEAM_OK || job->state != SEAM_MEDIA_JOB_PENDING)
            return rc;
        /* Never sleep past the deadline: the next poll reports it. */
        int64_t wait = job->interval_ms;
        int64_t left = job->deadline_wall - wall_ms();
        if (left < wait)
            wait = left > 0 ? left : 0;
        if (seam_client_sleep(client, wait, cancel)) {
            seam_error_set(err, SEAM_ERROR_CANCELLED, "the wait for job %s was cancelled", job->id);
            seam_strlcpy(err->provider, job->provider, sizeof err->provider);
            return SEAM_ERR_PROVIDER;
        }
    }
}
