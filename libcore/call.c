/* call.c — the chain runner behind generate and stream: turns call options into
 * a plan of chain entries and runs it under the policy of issue 6.
 *
 *  - An entry that cannot serve is skipped, not tried: provider not configured,
 *    plugin not installed or refused, no model, no usable credential, the
 *    provider cooling down after a rate limit (or every key exhausted by the
 *    rate-limit guard), a capability the request needs missing, or an input
 *    estimate beyond the model's context window (catalog.c).
 *  - A retryable error (rate_limit, overloaded, timeout, transport) is retried
 *    on the entry up to max_attempts, waiting min(base·2ⁿ + jitter, max) with
 *    jitter in [0, base·jitter] — or the server's Retry-After, up to the
 *    chain's retry_after_cap_ms; a longer wait advances to the next entry.
 *    A 429 on a pooled key first rotates to another ready key of the pool at
 *    once (not counted against max_attempts).
 *  - A fatal error stops the chain, except context_overflow / content_filter
 *    when the chain names a fallback chain for them, and auth when the
 *    credential can be refreshed (or another key of the pool is live): then
 *    exactly one more attempt is made. Never a blind retry on the same key.
 *    A chain may opt in (failover_on) to move on after a fatal error of the
 *    kinds it lists, to the next entry of a different provider only.
 *  - A 429 puts the key (the provider, for a single key) in a cooldown shared
 *    by every request of the client: until its Retry-After, else cooldown_ms.
 *  - Streaming: framing chunks (the *_start marks, stop) are held back until
 *    the first content chunk. A failure before it fails over transparently (the
 *    held chunks are dropped); after it the error is surfaced and the result
 *    marked incomplete — never a silent switch mid-answer.
 *  - Crossing to a provider other than the plan's first drops every reasoning
 *    part (and signature) from the request first.
 *  - Every attempt is reported to the observer (succeeded / failed / skipped,
 *    entry, error, usage with its cost, wait). Each attempt's usage is priced
 *    against that attempt's model and added into the call's usage, which the
 *    final stop chunk and the result carry.
 * Waits use the client's policy clock (seam_client_set_clock). */
#include "config.h"
#include "client.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct plan_entry {
    const char *provider;     /* borrowed from the conf or the options copy */
    const char *model;
    int max_attempts;
    seam_conf_backoff backoff;
} plan_entry;

/* A chunk copied out of a transfer: held back, or queued for the caller. */
typedef struct owned_chunk {
    seam_chunk c;
    char *block;              /* every string of c */
} owned_chunk;

struct seam_stream {
    seam_client *client;
    seam_request *req;
    int streaming;
    const seam_call_op *op;   /* NULL: generation; else embed.c's or tokens.c's operation */
    seam_cancel *cancel;
    int64_t timeout_ms, idle_timeout_ms;
    void (*on_attempt)(void *, const seam_attempt *);
    void *ud;
    char *affinity;
    char *skip_plugins;       /* the caller's skip_plugins, ",a,b," (NULL: none) */
    char *opt_provider, *opt_model;
    char *credential;         /* the caller's per-call credential (wiped), NULL: the conf's */
    seam_raw_response *raw;   /* the caller's, kept for debugging; NULL: not kept */

    /* the plan */
    int single;               /* one provider named by the call, not a chain */
    const seam_conf_chain *chain;
    const seam_conf_chain **visited; /* chains entered, so fallbacks cannot loop */
    size_t n_visited;
    const char *primary;      /* the plan's first provider: reasoning is valid only there */
    plan_entry *plan;
    size_t n_plan, entry;
    int64_t retry_after_cap_ms, cooldown_ms;
    int attempt;              /* attempts made on the current entry */
    int counted;              /* ...of which count against max_attempts */
    int free_attempt;         /* the next attempt is an auth refresh or a 429 rotation */
    int retrying;             /* the next attempt retries after the chain's wait */
    int auth_retry_used;
    int64_t wake_at;          /* policy clock: no attempt before this (backoff, guard); 0 none */
    int nowait;               /* event-driven: seam_stream_next_nowait never blocks */
    uint64_t rng;

    /* the attempt in flight */
    seam_transfer *transfer;
    seam_provider_slot *slot;
    seam_key_lease lease;
    int have_lease;
    seam_key_lease pending;   /* a rotated key prepared for the next attempt */
    int have_pending;
    seam_request *sent;
    seam_transfer_params xparams; /* the attempt's transfer, opened after its cache's */
    seam_pcache pcache;       /* the provider cache the attempt makes first (provcache.c) */
    seam_usage attempt_usage;
    int attempt_has_usage;

    /* chunks: [q_head, q_ready) go to the caller, [q_ready, q_len) are held */
    owned_chunk *queue;
    size_t q_head, q_ready, q_len, q_cap;
    owned_chunk current;      /* the chunk last handed out, when copied */
    int yielded_content;
    int want_start;           /* seam_call_options.stream_start */
    int start_sent;           /* the stream_start chunk is queued */

    seam_result *result;
    seam_usage total;         /* every attempt's usage, priced */
    int cost_unknown;         /* an attempt with usage had no price */
    int64_t start_ms;

    int done;
    int final_status;
    seam_error final_err;
    seam_error last_err;      /* the last attempt's failure, for the final error */
    int any_attempt;
    seam_buf skipped;         /* reasons entries were skipped */
    seam_error_kind skip_kind;
    int skip_kinds_differ;
    int64_t skip_retry_after_ms; /* the shortest wait of a cooling entry skipped */
};

#define OPT_HAS(o, field) ((o)->size >= offsetof(seam_call_options, field) + sizeof((o)->field))

/* ---- chunks ------------------------------------------------------------------------- */

static void owned_release(owned_chunk *oc)
{
    free(oc->block);
    memset(oc, 0, sizeof *oc);
}

static int owned_copy(owned_chunk *dst, const seam_chunk *src)
{
    memset(dst, 0, sizeof *dst);
    dst->c = *src;
    dst->c.error = NULL;
    const char **fields[] = {&dst->c.id, &dst->c.name, &dst->c.text, &dst->c.signature,
                             &dst->c.args_json, &dst->c.result_json, &dst->c.mime_type};
    size_t total = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (*fields[i])
            total += strlen(*fields[i]) + 1;
    if (!total)
        return SEAM_OK;
    dst->block = malloc(total);
    if (!dst->block)
        return SEAM_ERR_NOMEM;
    char *cursor = dst->block;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (!*fields[i])
            continue;
        size_t n = strlen(*fields[i]) + 1;
        memcpy(cursor, *fields[i], n);
        *fields[i] = cursor;
        cursor += n;
    }
    return SEAM_OK;
}

static int queue_push(seam_stream *s, const seam_chunk *c)
{
    if (s->q_head == s->q_len)
        s->q_head = s->q_ready = s->q_len = 0;
    if (s->q_len == s->q_cap) {
        /* A whole answer holds a few chunks: the first array stays small
         * enough for malloc's cache of small blocks. */
        size_t cap = s->q_cap ? s->q_cap * 2 : 4;
        owned_chunk *q = realloc(s->queue, cap * sizeof *q);
        if (!q)
            return SEAM_ERR_NOMEM;
        s->queue = q;
        s->q_cap = cap;
    }
    int rc = owned_copy(&s->queue[s->q_len], c);
    if (rc == SEAM_OK)
        s->q_len++;
    return rc;
}

/* Drops the held chunks of an attempt that failed before any content. */
static void drop_held(seam_stream *s)
{
    for (size_t i = s->q_ready; i < s->q_len; i++)
        owned_release(&s->queue[i]);
    s->q_len = s->q_ready;
}

/* Queues the stream_start chunk ahead of the answering attempt's chunks, which
 * are about to go out (its first content, or its success): only then is it
 * known which entry of the chain answers. Its id: what the codec named early
 * (response_id, may be NULL), else the held stop chunk's, when the attempt
 * already ended. Generation calls only. */
static int queue_start(seam_stream *s, const char *provider, const char *model,
                       const char *response_id)
{
    if (!s->want_start || s->start_sent || s->op)
        return SEAM_OK;
    for (size_t i = s->q_ready; !response_id && i < s->q_len; i++)
        if (s->queue[i].c.type == SEAM_CHUNK_STOP)
            response_id = s->queue[i].c.id;
    seam_chunk start = {.type = SEAM_CHUNK_STREAM_START, .name = provider, .text = model,
                        .id = response_id};
    if (queue_push(s, &start) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    size_t at = s->q_ready; /* read after the push, which may rewind an empty queue */
    owned_chunk moved = s->queue[s->q_len - 1];
    memmove(&s->queue[at + 1], &s->queue[at], (s->q_len - 1 - at) * sizeof *s->queue);
    s->queue[at] = moved;
    s->start_sent = 1;
    return SEAM_OK;
}

static void drop_all_queued(seam_stream *s)
{
    for (size_t i = s->q_head; i < s->q_len; i++)
        owned_release(&s->queue[i]);
    s->q_head = s->q_ready = s->q_len = 0;
}

/* Content is what a caller could have shown: text, reasoning, tool calls,
 * media. The *_start marks and the stop are framing. */
static int is_content(seam_chunk_type t)
{
    switch (t) {
    case SEAM_CHUNK_REASONING_START:
    case SEAM_CHUNK_TOOL_CALL_START:
    case SEAM_CHUNK_MEDIA_START:
    case SEAM_CHUNK_STOP:
    case SEAM_CHUNK_ERROR:
    case SEAM_CHUNK_STREAM_START:
    case SEAM_CHUNK_STEP_FINISH:
        return 0;
    default:
        return 1;
    }
}

/* ---- reporting ------------------------------------------------------------------------ */

/* An error names both the conf provider and its adapter: the conf name says
 * which entry, the plugin id which wire (two conf providers may share one). */
static void name_plugin(seam_stream *s, seam_error *e)
{
    if (!e->provider[0] || e->plugin[0])
        return;
    /* The conf, not the slot: naming must not load a plugin. */
    const seam_conf_provider *p = seam_conf_find_provider(s->client->conf, e->provider);
    if (p && p->plugin)
        seam_strlcpy(e->plugin, p->plugin, sizeof e->plugin);
}

static void report(seam_stream *s, seam_attempt_outcome outcome, const plan_entry *e,
                   const seam_error *err, const seam_usage *usage, int64_t wait_ms)
{
    if (!s->on_attempt)
        return;
    seam_error named;
    if (err) {
        named = *err;
        if (!named.provider[0])
            seam_strlcpy(named.provider, e->provider, sizeof named.provider);
        name_plugin(s, &named);
        err = &named;
    }
    seam_attempt a;
    memset(&a, 0, sizeof a);
    a.outcome = outcome;
    a.provider = e->provider;
    a.model = e->model;
    a.attempt = outcome == SEAM_ATTEMPT_SKIPPED ? s->attempt + 1 : s->attempt;
    a.error = err;
    a.usage = usage;
    a.wait_ms = wait_ms;
    a.chain = s->chain ? s->chain->name : NULL;
    s->on_attempt(s->ud, &a);
}

static void release_lease(seam_stream *s)
{
    if (s->have_lease)
        seam_keys_lease_release(&s->lease);
    s->have_lease = 0;
}

static void next_entry(seam_stream *s)
{
    release_lease(s);
    if (s->have_pending)
        seam_keys_lease_release(&s->pending);
    s->have_pending = 0;
    s->entry++;
    s->attempt = s->counted = 0;
    s->free_attempt = s->retrying = s->auth_retry_used = 0;
}

static void skip_entry(seam_stream *s, const plan_entry *e, seam_error *why, int64_t wait_ms)
{
    seam_strlcpy(why->provider, e->provider, sizeof why->provider);
    report(s, SEAM_ATTEMPT_SKIPPED, e, why, NULL, wait_ms);
    if (s->skipped.len == 0 && !s->skip_kinds_differ)
        s->skip_kind = why->kind;
    else if (why->kind != s->skip_kind)
        s->skip_kinds_differ = 1;
    seam_buf_printf(&s->skipped, "%s%s (%s)", s->skipped.len ? "; " : "", e->provider, why->message);
    next_entry(s);
}

static void end_with(seam_stream *s, int status, const seam_error *e)
{
    s->done = 1;
    s->final_status = status;
    release_lease(s);
    if (status != SEAM_OK && e) {
        s->final_err = *e;
        name_plugin(s, &s->final_err);
        seam_chunk c = {.type = SEAM_CHUNK_ERROR, .error = &s->final_err};
        seam_result_add_chunk(s->result, &c);
    }
}

static void end_cancelled(seam_stream *s, const char *provider)
{
    seam_error c;
    seam_error_clear(&c);
    seam_error_set(&c, SEAM_ERROR_CANCELLED, "cancelled");
    seam_strlcpy(c.provider, provider, sizeof c.provider);
    end_with(s, SEAM_ERR_PROVIDER, &c);
}

/* ---- the plan ----------------------------------------------------------------------------- */

static int plan_chain(seam_stream *s, const seam_conf_chain *ch)
{
    plan_entry *plan = calloc(ch->n_entries ? ch->n_entries : 1, sizeof *plan);
    const seam_conf_chain **visited = realloc(s->visited, (s->n_visited + 1) * sizeof *visited);
    if (visited)
        s->visited = visited;
    if (!plan || !visited) {
        free(plan);
        return SEAM_ERR_NOMEM;
    }
    s->visited[s->n_visited++] = ch;
    for (size_t i = 0; i < ch->n_entries; i++) {
        const seam_conf_entry *e = &ch->entries[i];
        plan[i] = (plan_entry){e->provider, s->opt_model ? s->opt_model : e->model,
                               e->max_attempts > 0 ? e->max_attempts : 1, e->backoff};
        if (!plan[i].model)
            plan[i].model = seam_request_model(s->req);
    }
    free(s->plan);
    s->plan = plan;
    s->n_plan = ch->n_entries;
    s->chain = ch;
    s->retry_after_cap_ms = ch->retry_after_cap_ms >= 0 ? ch->retry_after_cap_ms : 60000;
    s->cooldown_ms = ch->cooldown_ms >= 0 ? ch->cooldown_ms : 30000;
    s->entry = 0;
    s->attempt = s->counted = 0;
    s->free_attempt = s->retrying = s->auth_retry_used = 0;
    if (!s->primary && s->n_plan)
        s->primary = s->plan[0].provider;
    return SEAM_OK;
}

/* Routes an error of a fallback class to the chain the current chain names for
 * it: 1 when the plan now is that chain. */
static int take_fallback(seam_stream *s, seam_error_kind kind)
{
    if (!s->chain || s->yielded_content)
        return 0;
    const char *name = kind == SEAM_ERROR_CONTEXT_OVERFLOW ? s->chain->context_overflow_fallback
                       : kind == SEAM_ERROR_CONTENT_FILTER ? s->chain->content_filter_fallback
                                                           : NULL;
    const seam_conf_chain *ch = name ? seam_conf_find_chain(s->client->conf, name) : NULL;
    if (!ch)
        return 0;
    for (size_t i = 0; i < s->n_visited; i++)
        if (s->visited[i] == ch)
            return 0; /* a loop of fallbacks ends here */
    release_lease(s);
    if (s->have_pending)
        seam_keys_lease_release(&s->pending);
    s->have_pending = 0;
    return plan_chain(s, ch) == SEAM_OK;
}

static int build_plan(seam_stream *s, const seam_call_options *o, seam_error *err)
{
    seam_conf *conf = s->client->conf;
    if (o && o->provider) {
        s->opt_provider = strdup(o->provider);
        s->opt_model = seam_strdup(o->model ? o->model : seam_request_model(s->req));
        s->plan = calloc(1, sizeof *s->plan);
        if (!s->opt_provider || !s->plan)
            return SEAM_ERR_NOMEM;
        const seam_conf_provider *cp = seam_conf_find_provider(conf, o->provider);
        if (!cp) {
            seam_error_set(err, SEAM_ERROR_CONF, "no provider \"%s\" in the conf", o->provider);
            return SEAM_ERR_NOT_FOUND;
        }
        /* Neither the call nor the request names a model: the provider's own. */
        if (!s->opt_model && cp->default_model && !(s->opt_model = strdup(cp->default_model)))
            return SEAM_ERR_NOMEM;
        s->plan[0] = (plan_entry){s->opt_provider, s->opt_model, 1, {500, 20000, 0.1}};
        s->n_plan = 1;
        s->single = 1;
        s->primary = s->opt_provider;
        s->retry_after_cap_ms = 60000;
        s->cooldown_ms = 30000;
        return SEAM_OK;
    }
    const char *name = o && o->chain ? o->chain : NULL;
    if (!name)
        name = seam_client_role_chain(s->client, "assistant");
    if (!name)
        name = "default";
    const seam_conf_chain *ch = seam_conf_find_chain(conf, name);
    if (!ch) {
        seam_error_set(err, SEAM_ERROR_CONF, "no chain \"%s\" in the conf%s%s", name,
                       conf->path ? " " : "", conf->path ? conf->path : "");
        return SEAM_ERR_NOT_FOUND;
    }
    if (o && o->model && !(s->opt_model = strdup(o->model)))
        return SEAM_ERR_NOMEM;
    return plan_chain(s, ch);
}

/* ---- opening ------------------------------------------------------------------------------ */

/* A per-stream seed for the backoff jitter. Streams opened in the same
 * millisecond at a reused address must still differ (or every retry of a
 * burst waits the same time), so a process-wide counter goes through
 * splitmix64 with the clock and the address. */
static uint64_t jitter_seed(const void *stream)
{
    static atomic_uint_fast64_t opened;
    uint64_t z = (uint64_t)atomic_fetch_add(&opened, 1) * 0x9e3779b97f4a7c15ULL;
    z ^= (uint64_t)(uintptr_t)stream ^ ((uint64_t)seam_now_ms() << 20);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z ? z : 0x9e3779b97f4a7c15ULL; /* xorshift must not start at 0 */
}

/* borrow: the caller keeps req unchanged until the stream is freed (a blocking
 * call), so the stream reads it instead of copying it. */
static int stream_open(seam_client *client, const seam_request *req, const seam_call_options *opts,
                       int streaming, const seam_call_op *op, int borrow, seam_stream **out,
                       seam_error *err)
{
    seam_error_clear(err);
    if (!client || !req || !out)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    *out = NULL;
    if (opts && opts->size < offsetof(seam_call_options, ud) + sizeof opts->ud)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "seam_call_options.size is not set"),
               SEAM_ERR_INVALID;
    if (!op && seam_request_message_count(req) == 0)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "the request has no messages"),
               SEAM_ERR_INVALID;
    /* The intake limits hold for every call, before any entry is tried: a
     * refused part is the caller's to fix, no provider could take it. */
    if (seam_media_intake(req, &client->conf->media, err) != SEAM_OK)
        return SEAM_ERR_INVALID;
    seam_stream *s = seam_client_block_take(client, SEAM_BLOCK_STREAM, sizeof *s);
    if (!s)
        return SEAM_ERR_NOMEM;
    s->client = client;
    s->streaming = streaming;
    s->op = op;
    s->req = borrow ? seam_request_borrow(req, NULL) : seam_request_dup(req);
    s->result = seam_result_new();
    seam_error_clear(&s->final_err);
    seam_error_clear(&s->last_err);
    int rc = s->req && s->result ? SEAM_OK : SEAM_ERR_NOMEM;
    if (opts) {
        s->cancel = opts->cancel;
        s->timeout_ms = opts->timeout_ms;
        s->idle_timeout_ms = opts->idle_timeout_ms;
        s->on_attempt = opts->on_attempt;
        s->ud = opts->ud;
        if (OPT_HAS(opts, affinity) && opts->affinity && !(s->affinity = strdup(opts->affinity)))
            rc = SEAM_ERR_NOMEM;
        if (OPT_HAS(opts, raw))
            s->raw = opts->raw;
        if (OPT_HAS(opts, stream_start))
            s->want_start = opts->stream_start != 0;
        if (OPT_HAS(opts, non_streamed) && opts->non_streamed && !op)
            s->streaming = 0;
        if (OPT_HAS(opts, credential) && opts->credential) {
            if (!opts->provider) {
                seam_stream_free(s);
                return seam_error_set(err, SEAM_ERROR_BAD_REQUEST,
                                      "a per-call credential needs a provider, not a chain"),
                       SEAM_ERR_INVALID;
            }
            if (!(s->credential = strdup(opts->credential)))
                rc = SEAM_ERR_NOMEM;
        }
        if (OPT_HAS(opts, skip_plugins) && opts->skip_plugins && *opts->skip_plugins) {
            /* Framed by commas so that a lookup is one strstr of ",id,". */
            size_t n = strlen(opts->skip_plugins);
            if (!(s->skip_plugins = malloc(n + 3)))
                rc = SEAM_ERR_NOMEM;
            else
                sprintf(s->skip_plugins, ",%s,", opts->skip_plugins);
        }
    }
    if (rc == SEAM_OK)
        rc = build_plan(s, opts, err);
    if (rc != SEAM_OK) {
        if (rc == SEAM_ERR_NOMEM && err && err->kind == SEAM_ERROR_NONE)
            seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
        seam_stream_free(s);
        return rc;
    }
    s->start_ms = seam_client_now(client);
    s->rng = jitter_seed(s);
    *out = s;
    return SEAM_OK;
}

int seam_stream_open(seam_client *client, const seam_request *req, const seam_call_options *opts,
                     seam_stream **out, seam_error *err)
{
    return stream_open(client, req, opts, 1, NULL, 0, out, err);
}

/* ---- waits --------------------------------------------------------------------------------- */

static double next_random(seam_stream *s)
{
    /* xorshift64*: each stream its own generator, no shared state. */
    s->rng ^= s->rng >> 12;
    s->rng ^= s->rng << 25;
    s->rng ^= s->rng >> 27;
    return (double)((s->rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* Backoff before retry n (0-based) on an entry: min(base·2ⁿ + jitter, max),
 * jitter uniform in [0, base·jitter). */
static int64_t backoff_ms(seam_stream *s, const seam_conf_backoff *b, int n)
{
    /* The conf bounds base and max (one day), but a plan entry may come from
     * elsewhere: every step saturates at max rather than wrapping negative (a
     * wrapped wait is no wait, and the retries would hammer the server). */
    int64_t base = b->base_ms >= 0 ? b->base_ms : 500;
    int64_t max = b->max_ms >= base ? b->max_ms : base;
    int64_t d = base;
    for (int i = 0; i < n && d < max; i++)
        d = d > max / 2 ? max : d * 2;
    double jitter = b->jitter >= 0 && b->jitter <= 1 ? b->jitter : 0.1;
    double extra = (double)base * jitter * next_random(s);
    if (extra >= (double)(max - d))
        return max;
    d += (int64_t)extra;
    return d < max ? d : max;
}

/* A duration handed to the transport: at most INT32_MAX ms (what poll() and
 * libcurl take), so that "now + it" never overflows there. <= 0 stays as is
 * (none). */
static int64_t saturate_ms(int64_t ms)
{
    return ms > INT32_MAX ? INT32_MAX : ms;
}

/* Time left before the call's deadline; INT64_MAX without one. */
static int64_t time_left(const seam_stream *s)
{
    if (s->timeout_ms <= 0)
        return INT64_MAX;
    /* Elapsed first: start + timeout would overflow for an application's
     * INT64_MAX "no deadline". */
    return s->timeout_ms - (seam_client_now(s->client) - s->start_ms);
}

/* ---- usage and cost -------------------------------------------------------------------------- */

static const uint32_t token_bits = SEAM_USAGE_INPUT | SEAM_USAGE_OUTPUT | SEAM_USAGE_CACHE_READ |
                                   SEAM_USAGE_CACHE_WRITE | SEAM_USAGE_REASONING;

/* Prices the current attempt's usage against its model and adds it to the
 * call's total. Returns the priced usage (NULL when the attempt had none). */
static const seam_usage *charge_attempt(seam_stream *s, const plan_entry *e)
{
    if (!s->attempt_has_usage)
        return NULL;
    s->attempt_has_usage = 0;
    const seam_conf_model *m = seam_catalog_find(s->client, s->slot, e->model);
    int priced = seam_catalog_price(m, &s->attempt_usage);
    if (!priced && (s->attempt_usage.present & token_bits))
        s->cost_unknown = 1;
    seam_usage_add(&s->total, &s->attempt_usage);
    return &s->attempt_usage;
}

/* The call's usage so far: a cost only when every attempt with usage was priced
 * (a partial sum would pass an unknown cost off as a known one). */
static seam_usage call_usage(const seam_stream *s)
{
    seam_usage u = s->total;
    if (s->cost_unknown) {
        u.present &= ~(uint32_t)SEAM_USAGE_COST;
        u.cost_microcents = 0;
    }
    return u;
}

/* ---- attempts ------------------------------------------------------------------------------------ */

static void plan_exhausted(seam_stream *s)
{
    seam_error e;
    seam_error_clear(&e);
    if (s->any_attempt) {
        e = s->last_err;
    } else {
        const char *chain = s->chain ? s->chain->name : NULL;
        seam_error_set(&e, s->skip_kinds_differ || s->skipped.len == 0 ? SEAM_ERROR_CONF : s->skip_kind,
                       "no provider could serve the request%s%s%s%s", chain ? " (chain " : "",
                       chain ? chain : "", chain ? ")" : "", s->skipped.len ? ": " : "");
        size_t used = strlen(e.message);
        if (s->skipped.data)
            seam_strlcpy(e.message + used, s->skipped.data, sizeof e.message - used);
        if (e.kind == SEAM_ERROR_RATE_LIMIT)
            e.retry_after_ms = s->skip_retry_after_ms;
    }
    /* Every entry too small for the request, say: the chain's fallback for
     * that class of error takes over. */
    if (take_fallback(s, e.kind))
        return;
    end_with(s, SEAM_ERR_PROVIDER, &e);
}

/* 1 when the caller's skip_plugins names plugin. */
static int skipped_plugin(const seam_stream *s, const char *plugin)
{
    if (!s->skip_plugins || !plugin)
        return 0;
    size_t n = strlen(plugin);
    for (const char *p = strstr(s->skip_plugins, plugin); p; p = strstr(p + 1, plugin))
        if (p > s->skip_plugins && p[-1] == ',' && p[n] == ',')
            return 1;
    return 0;
}

/* 1 when a media part of req is a handle of the media store, which the attempt
 * resolves into its own copy of the request. */
static int has_media_handles(const seam_request *req)
{
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        const seam_message *m = seam_request_message(req, i);
        for (size_t j = 0; j < seam_message_part_count(m); j++) {
            const seam_part *p = seam_message_part(m, j);
            if (seam_part_get_type(p) == SEAM_PART_MEDIA && seam_part_media_source(p) == SEAM_MEDIA_HANDLE)
                return 1;
        }
    }
    return 0;
}

/* Starts the next attempt, skipping entries that cannot serve. 0 when a transfer
 * is running or the plan changed, 1 when the call has ended (s->done), <0 on a
 * hard error. */
static int open_transfer(seam_stream *s);

static int start_attempt(seam_stream *s)
{
    while (s->entry < s->n_plan && !s->done) {
        const plan_entry *e = &s->plan[s->entry];
        seam_error why;
        seam_error_clear(&why);
        seam_provider_slot *slot = seam_client_slot(s->client, e->provider);
        s->slot = slot;
        if (!slot) {
            seam_error_set(&why, SEAM_ERROR_CONF, "provider \"%s\" is not configured", e->provider);
            skip_entry(s, e, &why, 0);
            continue;
        }
        if (skipped_plugin(s, slot->conf->plugin)) {
            seam_error_set(&why, SEAM_ERROR_CONF, "plugin \"%s\" is excluded by the caller",
                           slot->conf->plugin);
            skip_entry(s, e, &why, 0);
            continue;
        }
        if (!slot->vt) {
            if (seam_client_slot_load_error(s->client, slot, &why)) {
                /* Out of descriptors or memory: fatal, as the same failure in
                 * the transport is; the next call loads the plugin. */
                seam_strlcpy(why.provider, e->provider, sizeof why.provider);
                report(s, SEAM_ATTEMPT_SKIPPED, e, &why, NULL, 0);
                end_with(s, SEAM_ERR_PROVIDER, &why);
                return 1;
            }
            /* A file that is there but was refused is not "not installed":
             * the loader's reason is what the user must act on. */
            char refusal[sizeof why.message];
            int refused = seam_client_plugin_refusal(s->client, slot->conf->plugin, refusal, sizeof refusal);
            if (refused == 1)
                seam_error_set(&why, SEAM_ERROR_CONF, "plugin \"%s\" refused: %s", slot->conf->plugin,
                               refusal);
            else if (refused == 2)
                seam_error_set(&why, SEAM_ERROR_CONF, "plugin \"%s\" is not installed or was refused: %s",
                               slot->conf->plugin, refusal);
            else
                seam_error_set(&why, SEAM_ERROR_CONF, "plugin \"%s\" is not installed", slot->conf->plugin);
            skip_entry(s, e, &why, 0);
            continue;
        }
        if (!slot->instance) {
            seam_error_set(&why, SEAM_ERROR_CONF, "%s", slot->create_error);
            skip_entry(s, e, &why, 0);
            continue;
        }
        if (!e->model || !*e->model) {
            seam_error_set(&why, SEAM_ERROR_BAD_REQUEST, "no model given for provider \"%s\"", e->provider);
            skip_entry(s, e, &why, 0);
            continue;
        }
        /* Routing only: a call naming one provider and model is made as asked
         * (the plugin decides what it can express). An operation's own test
         * is of ability (a plugin without embeddings), so it applies to both. */
        if (s->op ? s->op->cannot_serve && s->attempt == 0 &&
                        s->op->cannot_serve(s->op->ud, s->client, slot, e->model, &why)
                  : !s->single && s->attempt == 0 &&
                        seam_catalog_cannot_serve(s->client, slot, e->model, s->req, &why)) {
            skip_entry(s, e, &why, 0);
            continue;
        }

        /* The key. A call naming one provider is not routed: cooldowns and the
         * guard steer chains, an explicit provider is always called. */
        release_lease(s);
        if (s->credential) {
            /* The caller's key stands outside the pool: index past the keys,
             * so cooldowns and rejections touch no key of the conf. */
            s->lease = (seam_key_lease){ .index = SIZE_MAX };
            if (!(s->lease.secret = strdup(s->credential)))
                return SEAM_ERR_NOMEM;
        } else if (s->have_pending) {
            s->lease = s->pending;
            s->have_pending = 0;
        } else {
            int64_t wait = 0;
            seam_key_verdict verdict;
            int rc = seam_keys_acquire(s->client, slot, s->affinity, s->retrying || s->single,
                                       s->retry_after_cap_ms, s->cancel, &s->lease, &wait,
                                       &verdict, &why);
            if (rc != SEAM_OK)
                return rc;
            /* Cancelled while a key command ran: the call ends, no entry after. */
            if (seam_cancel_triggered(s->cancel)) {
                if (verdict == SEAM_KEY_READY)
                    seam_keys_lease_release(&s->lease);
                end_cancelled(s, e->provider);
                return 1;
            }
            if (verdict != SEAM_KEY_READY) {
                if (verdict == SEAM_KEY_COOLING &&
                    (s->skip_retry_after_ms <= 0 || why.retry_after_ms < s->skip_retry_after_ms))
                    s->skip_retry_after_ms = why.retry_after_ms;
                skip_entry(s, e, &why, 0);
                continue;
            }
            if (wait > 0) {
                if (wait >= time_left(s)) {
                    seam_keys_lease_release(&s->lease);
                    seam_error_set(&why, SEAM_ERROR_TIMEOUT,
                                   "the call's deadline passes before the rate-limit window resets");
                    seam_strlcpy(why.provider, e->provider, sizeof why.provider);
                    end_with(s, SEAM_ERR_PROVIDER, &why);
                    return 1;
                }
                seam_error_set(&why, SEAM_ERROR_RATE_LIMIT,
                               "rate-limit guard: waiting %lld ms for the key's window to reset",
                               (long long)wait);
                why.retry_after_ms = wait;
                seam_strlcpy(why.provider, e->provider, sizeof why.provider);
                report(s, SEAM_ATTEMPT_SKIPPED, e, &why, NULL, wait);
                /* The key is kept for the attempt the wait holds back. */
                s->pending = s->lease;
                s->have_pending = 1;
                s->wake_at = seam_client_now(s->client) + wait;
                return 0;
            }
        }
        s->have_lease = 1;
        s->retrying = 0;

        seam_request_free(s->sent);
        /* A reasoning signature is only valid for the provider that made it. */
        int crossing = s->primary && strcmp(e->provider, s->primary) != 0;
        /* Only the model changes, usually: the attempt reads the call's request. */
        s->sent = crossing || has_media_handles(s->req) ? seam_request_dup(s->req)
                                                        : seam_request_borrow(s->req, e->model);
        if (!s->sent)
            return SEAM_ERR_NOMEM;
        if (crossing)
            seam_request_strip_reasoning(s->sent);
        if (seam_request_set_model(s->sent, e->model) != SEAM_OK)
            return SEAM_ERR_NOMEM;
        /* A codec gets bytes, never the store: a handle no entry could send
         * (not in the store, unreadable) ends the call. */
        int hrc = seam_media_resolve_handles(s->client, s->sent, &why);
        if (hrc == SEAM_ERR_NOMEM)
            return hrc;
        if (hrc != SEAM_OK) {
            seam_strlcpy(why.provider, e->provider, sizeof why.provider);
            end_with(s, SEAM_ERR_PROVIDER, &why);
            return 1;
        }
        int64_t timeout = slot->conf->timeout_ms;
        int64_t left = time_left(s);
        if (left <= 0) {
            seam_error_set(&why, SEAM_ERROR_TIMEOUT, "the call's deadline passed");
            seam_strlcpy(why.provider, e->provider, sizeof why.provider);
            end_with(s, SEAM_ERR_PROVIDER, &why);
            return 1;
        }
        if (left != INT64_MAX && (timeout <= 0 || left < timeout))
            timeout = left;
        seam_transfer_params p = {
            .vt = slot->vt,
            .instance = slot->instance,
            .provider_name = slot->conf->name,
            .req = s->sent,
            .stream = s->streaming,
            .credential = s->lease.secret,
            .timeout_ms = saturate_ms(timeout),
            .connect_timeout_ms = saturate_ms(slot->conf->connect_timeout_ms),
            .idle_timeout_ms = saturate_ms(s->idle_timeout_ms > 0 ? s->idle_timeout_ms
                                                                  : slot->conf->idle_timeout_ms),
            .max_response_bytes = slot->conf->max_response_bytes,
            .cancel = s->cancel,
            .ca_file = slot->conf->ca_file,
            .ca_path = slot->conf->ca_path,
            .engine = seam_client_engine(s->client),
            .client = s->client,
            .cassettes = s->client->cassettes,
            .op_encode = s->op ? s->op->encode : NULL,
            .op_decode = s->op ? s->op->decode : NULL,
            .op_ud = s->op ? s->op->ud : NULL,
        };
        s->xparams = p;
        /* A provider cache of the prompt's prefix is made first, by an
         * exchange of its own (generation only); the attempt proper opens
         * when it ends (stream_next). */
        if (!s->op) {
            int crc = seam_pcache_begin(s->client, &s->xparams, e->provider, s->lease.index,
                                        s->sent, &s->pcache, &s->transfer);
            if (crc < 0)
                return crc;
            if (crc == 1)
                return 0;
        }
        int rc = open_transfer(s);
        if (rc < 0)
            return rc;
        if (rc == 1)
            continue;
        return 0;
    }
    if (!s->done)
        plan_exhausted(s);
    return s->done ? 1 : 0;
}

/* Opens the attempt's transfer from s->xparams: 0 when open, 1 when the
 * codec cannot express the request (the entry is skipped), SEAM_ERR_NOMEM. */
static int open_transfer(seam_stream *s)
{
    const plan_entry *e = &s->plan[s->entry];
    seam_error why;
    seam_error_clear(&why);
    s->attempt++;
    if (!s->free_attempt)
        s->counted++;
    s->free_attempt = 0;
    s->attempt_has_usage = 0;
    int rc = seam_transfer_open(&s->xparams, &s->transfer, &why);
    if (rc != SEAM_OK) {
        if (rc == SEAM_ERR_NOMEM)
            return rc;
        /* The codec cannot express this request: this entry cannot serve it. */
        s->attempt--;
        if (why.kind == SEAM_ERROR_NONE)
            seam_error_set(&why, SEAM_ERROR_BAD_REQUEST, "the plugin cannot encode the request");
        skip_entry(s, e, &why, 0);
        return 1;
    }
    s->any_attempt = 1;
    return 0;
}

/* The cache-creating transfer ended (status rc, error e): the attempt proper
 * goes on, with the cache or without it. A cancel ends the call. */
static void after_cache(seam_stream *s, int rc, const seam_error *e)
{
    seam_transfer_free(s->transfer);
    s->transfer = NULL;
    const plan_entry *pe = &s->plan[s->entry];
    if (rc != SEAM_OK && (e->kind == SEAM_ERROR_CANCELLED || seam_cancel_triggered(s->cancel))) {
        s->pcache.active = 0;
        end_cancelled(s, pe->provider);
        return;
    }
    int orc = seam_pcache_end(s->client, &s->pcache, rc, e, s->sent, pe->provider);
    /* The cache's exchange took part of the call's deadline. */
    int64_t left = time_left(s);
    if (left <= 0) {
        seam_error t;
        seam_error_clear(&t);
        seam_error_set(&t, SEAM_ERROR_TIMEOUT, "the call's deadline passed");
        seam_strlcpy(t.provider, pe->provider, sizeof t.provider);
        end_with(s, SEAM_ERR_PROVIDER, &t);
        return;
    }
    if (left != INT64_MAX && (s->xparams.timeout_ms <= 0 || left < s->xparams.timeout_ms))
        s->xparams.timeout_ms = saturate_ms(left);
    if (orc == SEAM_OK) {
        orc = open_transfer(s);
        if (orc == 1)
            return; /* skipped: stream_next starts the next entry */
    }
    if (orc < 0) {
        seam_error n;
        seam_error_clear(&n);
        seam_error_set(&n, SEAM_ERROR_UNKNOWN, "out of memory");
        end_with(s, SEAM_ERR_NOMEM, &n);
    }
}

static void on_success(seam_stream *s)
{
    const plan_entry *pe = &s->plan[s->entry];
    char ratelimit[sizeof ((seam_error *)0)->ratelimit];
    if (seam_transfer_ratelimit(s->transfer, ratelimit, sizeof ratelimit))
        seam_keys_observe_ratelimit(s->client, s->slot, &s->lease, ratelimit);
    /* Out of memory here costs the debugging copy only, not the answer. */
    (void)seam_raw_response_keep(s->raw, s->transfer, NULL);
    seam_transfer_free(s->transfer);
    s->transfer = NULL;
    const seam_usage *au = charge_attempt(s, pe);
    /* The stop chunk (held until now) carries the call's usage: every attempt,
     * priced, so a caller folding chunks gets what the result holds. */
    seam_usage total = call_usage(s);
    for (size_t i = s->q_ready; i < s->q_len; i++)
        if (s->queue[i].c.type == SEAM_CHUNK_STOP)
            s->queue[i].c.usage = total;
    if (queue_start(s, pe->provider, pe->model, NULL) != SEAM_OK) {
        seam_error e;
        seam_error_clear(&e);
        seam_error_set(&e, SEAM_ERROR_UNKNOWN, "out of memory");
        drop_all_queued(s);
        end_with(s, SEAM_ERR_NOMEM, &e);
        return;
    }
    s->q_ready = s->q_len;
    seam_keys_succeeded(s->client, s->slot, &s->lease);
    if (seam_result_set_origin(s->result, pe->provider, pe->model) != SEAM_OK) {
        /* A result that cannot say who answered is not a whole result. */
        seam_error e;
        seam_error_clear(&e);
        seam_error_set(&e, SEAM_ERROR_UNKNOWN, "out of memory");
        end_with(s, SEAM_ERR_NOMEM, &e);
        return;
    }
    report(s, SEAM_ATTEMPT_SUCCEEDED, pe, NULL, au, 0);
    end_with(s, SEAM_OK, NULL);
}

/* The chain's failover_on: when the fatal error e is of a kind the chain opts
 * into, the index of the next entry of a *different* provider (another key,
 * another account); 0 when there is none or the chain does not opt in. A
 * fallback chain named for the error's class (context_overflow_fallback,
 * content_filter_fallback) takes precedence. */
static size_t failover_target(const seam_stream *s, const seam_error *e)
{
    if (!s->chain || !s->chain->failover_on || s->single)
        return 0;
    unsigned bit = e->kind == SEAM_ERROR_RATE_LIMIT ? SEAM_FAILOVER_QUOTA
                                                    : SEAM_FAILOVER_KIND(e->kind);
    if (e->kind == SEAM_ERROR_CANCELLED || !(s->chain->failover_on & bit))
        return 0;
    if ((e->kind == SEAM_ERROR_CONTEXT_OVERFLOW && s->chain->context_overflow_fallback) ||
        (e->kind == SEAM_ERROR_CONTENT_FILTER && s->chain->content_filter_fallback))
        return 0;
    const char *here = s->plan[s->entry].provider;
    for (size_t j = s->entry + 1; j < s->n_plan; j++)
        if (strcmp(s->plan[j].provider, here) != 0)
            return j;
    return 0;
}

/* An attempt failed with e: decide between retry, rotation, the next entry, a
 * fallback chain and the end. */
static void after_failure(seam_stream *s, seam_error *e)
{
    const plan_entry *pe = &s->plan[s->entry];
    if (s->raw) {
        seam_error cause = *e;
        name_plugin(s, &cause);
        (void)seam_raw_response_keep(s->raw, s->transfer, &cause);
    }
    seam_transfer_free(s->transfer);
    s->transfer = NULL;
    const seam_usage *au = charge_attempt(s, pe);
    drop_held(s);
    s->last_err = *e;
    seam_provider_slot *slot = s->slot;
    int64_t now = seam_client_now(s->client);

    if (e->ratelimit[0])
        seam_keys_observe_ratelimit(s->client, slot, &s->lease, e->ratelimit);
    if (e->kind == SEAM_ERROR_RATE_LIMIT)
        seam_keys_rate_limited(s->client, slot, &s->lease,
                               now + (e->retry_after_ms >= 0 ? e->retry_after_ms : s->cooldown_ms));

    if (s->yielded_content) {
        report(s, SEAM_ATTEMPT_FAILED, pe, e, au, 0);
        seam_result_set_incomplete(s->result, 1);
        /* The partial answer is this entry's: say whose, as a whole one does
         * (out of memory only costs the names). */
        (void)seam_result_set_origin(s->result, pe->provider, pe->model);
        end_with(s, SEAM_ERR_PROVIDER, e);
        return;
    }
    if (e->kind == SEAM_ERROR_CANCELLED) {
        report(s, SEAM_ATTEMPT_FAILED, pe, e, au, 0);
        end_with(s, SEAM_ERR_PROVIDER, e);
        return;
    }
    if (e->kind == SEAM_ERROR_AUTH) {
        /* Never the same key again; one more attempt only with a refreshed
         * credential or another live key of the pool. The key is judged
         * (refreshed, or set aside in a pool) even when that attempt is spent. */
        int more = (!s->auth_retry_used || slot->n_keys > 1) &&
                   seam_keys_rejected(s->client, slot, &s->lease, s->cancel);
        if (more && !s->auth_retry_used) {
            s->auth_retry_used = 1;
            s->free_attempt = 1;
            s->retrying = 1;
            report(s, SEAM_ATTEMPT_FAILED, pe, e, au, 0);
            release_lease(s);
            return;
        }
    }
    if (!e->retryable) {
        size_t to = failover_target(s, e);
        if (to) {
            /* The attempt's report says where the call goes on. */
            seam_error shown = *e;
            size_t used = strlen(shown.message);
            snprintf(shown.message + used, sizeof shown.message - used,
                     "%sfailing over to provider \"%s\" (failover_on)", used ? "; " : "",
                     s->plan[to].provider);
            report(s, SEAM_ATTEMPT_FAILED, pe, &shown, au, 0);
            s->entry = to - 1;
            next_entry(s);
            return;
        }
        report(s, SEAM_ATTEMPT_FAILED, pe, e, au, 0);
        if (!take_fallback(s, e->kind))
            end_with(s, SEAM_ERR_PROVIDER, e);
        return;
    }
    if (e->kind == SEAM_ERROR_RATE_LIMIT && slot->n_keys > 1 && !s->credential) {
        /* Rotation: another key of the pool that is ready now takes the next
         * attempt at once. */
        seam_key_lease next;
        int64_t wait = 0;
        seam_key_verdict verdict;
        seam_error why;
        seam_error_clear(&why);
        if (seam_keys_acquire(s->client, slot, s->affinity, 0, 0, s->cancel, &next, &wait, &verdict, &why) ==
            SEAM_OK) {
            if (verdict == SEAM_KEY_READY && wait == 0 && next.index != s->lease.index) {
                s->pending = next;
                s->have_pending = 1;
                s->free_attempt = 1;
                report(s, SEAM_ATTEMPT_FAILED, pe, e, au, 0);
                release_lease(s);
                return;
            }
            seam_keys_lease_release(&next);
        }
    }
    if (s->counted < pe->max_attempts) {
        int64_t wait = backoff_ms(s, &pe->backoff, s->counted - 1);
        if (e->retry_after_ms >= 0) {
            if (e->retry_after_ms > s->retry_after_cap_ms) {
                /* Too long to wait here: the next entry may answer now. */
                report(s, SEAM_ATTEMPT_FAILED, pe, e, au, 0);
                next_entry(s);
                return;
            }
            wait = e->retry_after_ms;
        }
        if (wait >= time_left(s)) {
            report(s, SEAM_ATTEMPT_FAILED, pe, e, au, 0);
            end_with(s, SEAM_ERR_PROVIDER, e);
            return;
        }
        report(s, SEAM_ATTEMPT_FAILED, pe, e, au, wait);
        release_lease(s);
        s->wake_at = now + wait;
        s->retrying = 1;
        return;
    }
    report(s, SEAM_ATTEMPT_FAILED, pe, e, au, 0);
    next_entry(s);
}

/* ---- the pull iterator ------------------------------------------------------------------------- */

/* Before the next attempt: the chain's wait (backoff, rate-limit guard).
 * 0 when the attempt may start, SEAM_STREAM_PENDING in nowait mode while the
 * wait lasts; a cancel during it ends the call. */
static int wait_for_attempt(seam_stream *s)
{
    if (!s->wake_at)
        return 0;
    const char *provider = s->entry < s->n_plan ? s->plan[s->entry].provider : "";
    int64_t left = s->wake_at - seam_client_now(s->client);
    if (left > 0) {
        if (s->nowait) {
            if (!seam_cancel_triggered(s->cancel))
                return SEAM_STREAM_PENDING;
            end_cancelled(s, provider);
            return 0;
        }
        if (seam_client_sleep(s->client, left, s->cancel)) {
            end_cancelled(s, provider);
            return 0;
        }
    }
    s->wake_at = 0;
    return 0;
}

/* The accumulator could not take a chunk: the result would silently miss it
 * (a text delta lost from the answer), so the call ends out of memory. */
static void end_nomem(seam_stream *s)
{
    seam_error e;
    seam_error_clear(&e);
    seam_error_set(&e, SEAM_ERROR_UNKNOWN, "out of memory");
    seam_transfer_free(s->transfer);
    s->transfer = NULL;
    drop_all_queued(s);
    end_with(s, SEAM_ERR_NOMEM, &e);
}

static int stream_next(seam_stream *s, const seam_chunk **chunk, seam_error *err)
{
    if (!s || !chunk)
        return SEAM_ERR_INVALID;
    *chunk = NULL;
    owned_release(&s->current);
    for (;;) {
        if (s->q_head < s->q_ready) {
            s->current = s->queue[s->q_head++];
            if (seam_result_add_chunk(s->result, &s->current.c) != SEAM_OK) {
                end_nomem(s);
                continue;
            }
            *chunk = &s->current.c;
            return 1;
        }
        if (s->done) {
            drop_all_queued(s);
            if (s->final_status != SEAM_OK && err)
                *err = s->final_err;
            return s->final_status;
        }
        if (!s->transfer) {
            if (wait_for_attempt(s) == SEAM_STREAM_PENDING)
                return SEAM_STREAM_PENDING;
            if (s->done)
                continue;
            int rc = start_attempt(s);
            if (s->transfer)
                seam_transfer_set_nowait(s->transfer, s->nowait);
            if (rc < 0) {
                seam_error e;
                seam_error_clear(&e);
                seam_error_set(&e, SEAM_ERROR_UNKNOWN, "out of memory");
                end_with(s, rc, &e);
            }
            continue;
        }
        const seam_chunk *c = NULL;
        seam_error e;
        seam_error_clear(&e);
        int rc = seam_transfer_next(s->transfer, &c, &e);
        if (rc == SEAM_TRANSFER_PENDING)
            return SEAM_STREAM_PENDING;
        if (s->pcache.active) {
            /* The cache's exchange: its stop chunk is not the caller's. */
            if (rc != 1) {
                after_cache(s, rc, &e);
                if (s->transfer)
                    seam_transfer_set_nowait(s->transfer, s->nowait);
            }
            continue;
        }
        if (rc == 1) {
            if (c->type == SEAM_CHUNK_STOP) {
                s->attempt_usage = c->usage;
                s->attempt_has_usage = (c->usage.present & token_bits) != 0;
            }
            if (s->yielded_content && c->type != SEAM_CHUNK_STOP && s->q_len == s->q_ready &&
                s->q_head == s->q_ready) {
                /* Past the first content nothing is held: hand it on as is
                 * (it stays valid until the next transfer call, in our next call). */
                if (seam_result_add_chunk(s->result, c) != SEAM_OK) {
                    end_nomem(s);
                    continue;
                }
                *chunk = c;
                return 1;
            }
            if (queue_push(s, c) != SEAM_OK) {
                seam_error_set(&e, SEAM_ERROR_UNKNOWN, "out of memory");
                seam_transfer_free(s->transfer);
                s->transfer = NULL;
                end_with(s, SEAM_ERR_NOMEM, &e);
                continue;
            }
            if (is_content(c->type)) {
                const plan_entry *pe = &s->plan[s->entry];
                if (queue_start(s, pe->provider, pe->model,
                                seam_transfer_response_id(s->transfer)) != SEAM_OK) {
                    seam_error_set(&e, SEAM_ERROR_UNKNOWN, "out of memory");
                    seam_transfer_free(s->transfer);
                    s->transfer = NULL;
                    end_with(s, SEAM_ERR_NOMEM, &e);
                    continue;
                }
                s->yielded_content = 1;
                s->q_ready = s->q_len; /* the held framing goes out with it */
            }
            continue;
        }
        if (rc == SEAM_OK) {
            on_success(s);
            continue;
        }
        after_failure(s, &e);
    }
}

int seam_stream_next(seam_stream *s, const seam_chunk **chunk, seam_error *err)
{
    if (s)
        s->nowait = 0;
    return stream_next(s, chunk, err);
}

int seam_stream_next_nowait(seam_stream *s, const seam_chunk **chunk, seam_error *err)
{
    if (s)
        s->nowait = 1;
    if (s && s->transfer)
        seam_transfer_set_nowait(s->transfer, 1);
    int rc = stream_next(s, chunk, err);
    if (s && s->transfer)
        seam_transfer_set_nowait(s->transfer, 0);
    return rc;
}

int seam_stream_pollfds(const seam_stream *s, struct pollfd *fds, size_t max, size_t *n,
                        int *timeout_ms)
{
    if (!s || (!fds && max) || !n || !timeout_ms)
        return SEAM_ERR_INVALID;
    int64_t wait = INT64_MAX;
    *n = 0;
    if (s->done || s->q_head < s->q_ready) {
        wait = 0;
    } else if (s->transfer) {
        *n = seam_transfer_pollfds(s->transfer, fds, max, &wait);
    } else {
        if (s->wake_at) {
            wait = s->wake_at - seam_client_now(s->client);
            if (wait < 0)
                wait = 0;
        } else {
            wait = 0; /* the next attempt starts on the next call */
        }
        if (s->cancel && max > 0) {
            fds[0].fd = seam_cancel_fd(s->cancel);
            fds[0].events = POLLIN;
            fds[0].revents = 0;
            *n = 1;
        }
    }
    *timeout_ms = wait >= INT32_MAX ? -1 : (int)wait;
    return SEAM_OK;
}

const seam_result *seam_stream_result(const seam_stream *s)
{
    return s ? s->result : NULL;
}

void seam_stream_free(seam_stream *s)
{
    if (!s)
        return;
    seam_transfer_free(s->transfer);
    release_lease(s);
    if (s->have_pending)
        seam_keys_lease_release(&s->pending);
    owned_release(&s->current);
    drop_all_queued(s);
    free(s->queue);
    seam_request_free(s->sent);
    seam_request_free(s->req);
    seam_result_free(s->result);
    seam_buf_free(&s->skipped);
    free(s->plan);
    free(s->visited);
    free(s->opt_provider);
    free(s->opt_model);
    free(s->affinity);
    seam_secret_free(s->credential);
    free(s->skip_plugins);
    seam_client_block_give(s->client, SEAM_BLOCK_STREAM, s);
}

int seam_generate(seam_client *client, const seam_request *req, const seam_call_options *opts,
                  seam_result **out, seam_error *err)
{
    if (out)
        *out = NULL;
    seam_stream *s = NULL;
    int rc = stream_open(client, req, opts, 0, NULL, 1, &s, err);
    if (rc != SEAM_OK)
        return rc;
    const seam_chunk *c;
    while ((rc = seam_stream_next(s, &c, err)) == 1)
        ;
    if (rc == SEAM_OK && out) {
        *out = s->result;
        s->result = NULL;
    }
    seam_stream_free(s);
    return rc;
}

int seam_call_run_op(seam_client *client, const seam_request *req, const seam_call_options *opts,
                     const seam_call_op *op, seam_result **out, seam_error *err)
{
    if (out)
        *out = NULL;
    if (!op || !op->encode || !op->decode)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    seam_stream *s = NULL;
    int rc = stream_open(client, req, opts, 0, op, 1, &s, err);
    if (rc != SEAM_OK)
        return rc;
    const seam_chunk *c;
    while ((rc = seam_stream_next(s, &c, err)) == 1)
        ;
    if (rc == SEAM_OK && out) {
        *out = s->result;
        s->result = NULL;
    }
    seam_stream_free(s);
    return rc;
}

int seam_op_call_options(seam_client *client, const seam_call_options *opts, const char *role,
                         const char *what, seam_call_options *o, seam_error *err)
{
    memset(o, 0, sizeof *o);
    if (opts)
        memcpy(o, opts, opts->size < sizeof *o ? opts->size : sizeof *o);
    o->size = sizeof *o;
    if (o->chain || o->provider)
        return SEAM_OK;
    o->chain = seam_client_role_chain(client, role);
    if (!o->chain)
        o->chain = role;
    if (!seam_conf_find_chain(client->conf, o->chain)) {
        seam_error_set(err, SEAM_ERROR_CONF,
                       "no chain \"%s\" for %s in the conf: define one (or a role \"%s\"), or "
                       "name a provider and model",
                       o->chain, what, role);
        return SEAM_ERR_NOT_FOUND;
    }
    return SEAM_OK;
}
