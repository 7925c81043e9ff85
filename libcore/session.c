/* session.c — the session: one conversation's history (snapshots, append,
 * truncate), and single model turns sent through the chain runner with the
 * session's settings: system prompt plus a per-call suffix, a request template
 * (model, parameters, tools), provider flags and the cache strategy passed as
 * provider options, a retry policy over the whole call (exponential backoff
 * with jitter, honouring Retry-After), and a credential refresh hook called
 * before expiry. Also the pending-call state a paused executor run leaves in
 * its session. A session belongs to one conversation and one thread.
 *
 * The history is a conversation state (history.c): the session holds a
 * handle on its current state and every change is an operation that yields
 * the next one, so a state handed out (seam_session_history) never changes. */
#include "config.h"
#include "client.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct seam_session {
    seam_client *client;
    char *chain, *provider, *model;
    char *system;
    seam_request *defaults;      /* settings only: never holds messages */
    seam_retry_policy retry;
    seam_cache_strategy cache;
    char *flags_json;
    int64_t timeout_ms, idle_timeout_ms;
    void (*on_attempt)(void *, const seam_attempt *);
    seam_refresh_fn refresh;
    int64_t expires_at_ms;
    int64_t margin_ms;
    void *ud;

    seam_history *hist;          /* never NULL once created */

    char *pending_id, *pending_name, *pending_prompt;
};

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- request settings ----------------------------------------------------------------- */

/* Copies every setting of src except its messages into dst. */
static int copy_settings(seam_request *dst, const seam_request *src)
{
    int rc = SEAM_OK;
    if (!src)
        return SEAM_OK;
    if (seam_request_model(src))
        rc = seam_request_set_model(dst, seam_request_model(src));
    if (rc == SEAM_OK && seam_request_system(src))
        rc = seam_request_set_system(dst, seam_request_system(src));
    for (size_t i = 0; rc == SEAM_OK && i < seam_request_tool_count(src); i++)
        rc = seam_request_add_tool(dst, seam_request_tool_name(src, i),
                                   seam_request_tool_description(src, i),
                                   seam_request_tool_parameters(src, i));
    const char *named = NULL;
    seam_tool_choice choice = seam_request_tool_choice(src, &named);
    if (rc == SEAM_OK && choice != SEAM_TOOL_CHOICE_AUTO)
        rc = seam_request_set_tool_choice(dst, choice, named);
    double t;
    if (rc == SEAM_OK && seam_request_temperature(src, &t))
        rc = seam_request_set_temperature(dst, t);
    if (rc == SEAM_OK && seam_request_max_tokens(src) > 0)
        rc = seam_request_set_max_tokens(dst, seam_request_max_tokens(src));
    for (size_t i = 0; rc == SEAM_OK && i < seam_request_stop_count(src); i++)
        rc = seam_request_add_stop(dst, seam_request_stop(src, i));
    const char *fname = NULL, *schema = NULL;
    int strict = 0;
    if (rc == SEAM_OK &&
        seam_request_response_format(src, &fname, &schema, &strict) == SEAM_FORMAT_JSON)
        rc = seam_request_set_response_format(dst, SEAM_FORMAT_JSON, fname, schema, strict);
    if (rc == SEAM_OK && seam_request_provider_options(src))
        rc = seam_request_set_provider_options(dst, seam_request_provider_options(src));
    if (rc == SEAM_OK && seam_request_reasoning_budget(src) > 0)
        rc = seam_request_set_reasoning_budget(dst, seam_request_reasoning_budget(src));
    return rc;
}

/* The settings of defaults that req leaves unset (model, parameters, provider
 * options): a one-off send gets them, but not the defaults' tools. */
static int fill_unset_settings(seam_request *req, const seam_request *defaults)
{
    int rc = SEAM_OK;
    double t;
    if (!seam_request_model(req) && seam_request_model(defaults))
        rc = seam_request_set_model(req, seam_request_model(defaults));
    if (rc == SEAM_OK && !seam_request_temperature(req, &t) && seam_request_temperature(defaults, &t))
        rc = seam_request_set_temperature(req, t);
    if (rc == SEAM_OK && seam_request_max_tokens(req) == 0 && seam_request_max_tokens(defaults) > 0)
        rc = seam_request_set_max_tokens(req, seam_request_max_tokens(defaults));
    if (rc == SEAM_OK && !seam_request_provider_options(req) && seam_request_provider_options(defaults))
        rc = seam_request_set_provider_options(req, seam_request_provider_options(defaults));
    if (rc == SEAM_OK && seam_request_reasoning_budget(req) == 0 &&
        seam_request_reasoning_budget(defaults) > 0)
        rc = seam_request_set_reasoning_budget(req, seam_request_reasoning_budget(defaults));
    return rc;
}

/* Merges the JSON object text `over` into obj: a member replaces obj's,
 * except that two objects of the same name (a provider's namespace,
 * {"openai": {...}}) are merged member by member. */
static int merge_object(json_object *obj, const char *over)
{
    if (!over || !*over)
        return SEAM_OK;
    json_object *o;
    int rc = seam_json_parse(over, JSON_TOKENER_STRICT, SEAM_JSON_MAX_DEPTH, &o);
    if (rc != SEAM_OK)
        return rc;
    if (!json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return SEAM_ERR_INVALID;
    }
    json_object_object_foreach(o, key, val) {
        json_object *have = NULL;
        if (json_object_is_type(val, json_type_object) &&
            json_object_object_get_ex(obj, key, &have) &&
            json_object_is_type(have, json_type_object)) {
            /* A copy: have may be shared with an earlier layer's parse. */
            json_object *merged = NULL;
            if (json_object_deep_copy(have, &merged, NULL) != 0) {
                json_object_put(o);
                return SEAM_ERR_NOMEM;
            }
            json_object_object_foreach(val, k2, v2) {
                if (json_object_object_add(merged, k2, json_object_get(v2)) != 0) {
                    json_object_put(merged);
                    json_object_put(o);
                    return SEAM_ERR_NOMEM;
                }
            }
            val = merged;
        } else {
            json_object_get(val);
        }
        if (json_object_object_add(obj, key, val) != 0) {
            json_object_put(val);
            json_object_put(o);
            return SEAM_ERR_NOMEM;
        }
    }
    json_object_put(o);
    return SEAM_OK;
}

static const char *cache_name(seam_cache_strategy c)
{
    switch (c) {
    case SEAM_CACHE_SYSTEM_AND_3: return "system_and_3";
    case SEAM_CACHE_PREFIX_AND_2: return "prefix_and_2";
    default: return NULL;
    }
}

/* The provider options of a call: the request's own, the session's flags, the
 * call's flags, then the cache strategy. Nothing is set when all are empty. */
static int apply_provider_options(const seam_session *s, const seam_send_options *o,
                                  seam_request *req, seam_error *err)
{
    const char *call_flags = o ? o->provider_flags_json : NULL;
    seam_cache_strategy cache = o && o->cache != SEAM_CACHE_DEFAULT ? o->cache : s->cache;
    const char *cache_value = cache_name(cache);
    const char *own = seam_request_provider_options(req);
    if (!s->flags_json && !call_flags && !cache_value)
        return SEAM_OK;
    json_object *obj = json_object_new_object();
    if (!obj)
        return SEAM_ERR_NOMEM;
    int rc = merge_object(obj, own);
    if (rc == SEAM_OK)
        rc = merge_object(obj, s->flags_json);
    if (rc == SEAM_OK)
        rc = merge_object(obj, call_flags);
    if (rc == SEAM_OK && cache_value &&
        json_object_object_add(obj, "cache_strategy", json_object_new_string(cache_value)) != 0)
        rc = SEAM_ERR_NOMEM;
    char *text = NULL;
    if (rc == SEAM_OK && !(text = seam_json_print(obj, JSON_C_TO_STRING_PLAIN)))
        rc = SEAM_ERR_NOMEM;
    if (rc == SEAM_OK)
        rc = seam_request_set_provider_options(req, text);
    free(text);
    json_object_put(obj);
    if (rc == SEAM_ERR_INVALID)
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "provider flags are not a JSON object");
    return rc;
}

/* system + "\n\n" + suffix, either may be missing. */
static int apply_system(const char *system, const seam_send_options *o, seam_request *req)
{
    const char *suffix = o ? o->system_suffix : NULL;
    if (!suffix || !*suffix)
        return system ? seam_request_set_system(req, system) : SEAM_OK;
    seam_buf b = { 0 };
    int rc = SEAM_OK;
    if (system && *system) {
        rc = seam_buf_puts(&b, system);
        if (rc == SEAM_OK)
            rc = seam_buf_puts(&b, "\n\n");
    }
    if (rc == SEAM_OK)
        rc = seam_buf_puts(&b, suffix);
    if (rc == SEAM_OK)
        rc = seam_request_set_system(req, b.data);
    seam_buf_free(&b);
    return rc;
}

/* The per-call parts common to history sends and one-off sends. */
static int apply_call_settings(const seam_session *s, const seam_send_options *o,
                               seam_request *req, seam_error *err)
{
    int rc = SEAM_OK;
    if (o && o->tools)
        rc = seam_toolset_add_to_request(o->tools, req);
    if (rc == SEAM_OK && o && o->reasoning_budget > 0)
        rc = seam_request_set_reasoning_budget(req, o->reasoning_budget);
    if (rc == SEAM_OK)
        rc = apply_provider_options(s, o, req, err);
    if (rc == SEAM_ERR_NOMEM)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
    return rc;
}

/* The request a history send makes. */
static int history_request(const seam_session *s, const seam_send_options *o, seam_request **out,
                           seam_error *err)
{
    seam_request *req = seam_request_new();
    int rc = req ? copy_settings(req, s->defaults) : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK)
        rc = apply_system(s->system ? s->system : seam_request_system(s->defaults), o, req);
    for (size_t i = 0; rc == SEAM_OK && i < seam_history_count(s->hist); i++) {
        seam_message *m = seam_message_dup(seam_history_message(s->hist, i));
        rc = m ? seam_request_add_message(req, m) : SEAM_ERR_NOMEM;
        if (rc != SEAM_OK)
            seam_message_free(m);
    }
    if (rc == SEAM_OK)
        rc = apply_call_settings(s, o, req, err);
    else if (rc == SEAM_ERR_NOMEM)
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
    if (rc != SEAM_OK) {
        seam_request_free(req);
        return rc;
    }
    *out = req;
    return SEAM_OK;
}

/* ---- life cycle --------------------------------------------------------------------------- */

static int chain_exists(const seam_client *c, const char *name)
{
    for (size_t i = 0; i < seam_client_chain_count(c); i++)
        if (strcmp(seam_client_chain_name(c, i), name) == 0)
            return 1;
    return 0;
}

static int dup_opt(char **dst, const char *src)
{
    *dst = NULL;
    return src && !(*dst = strdup(src)) ? SEAM_ERR_NOMEM : SEAM_OK;
}

static int session_create(seam_client *client, const seam_session_options *opts,
                          const char *role_chain, seam_session **out, seam_error *err)
{
    seam_error_clear(err);
    if (!client || !out)
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    *out = NULL;
    if (opts && opts->size < sizeof(uint32_t))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "seam_session_options.size is not set"),
               SEAM_ERR_INVALID;
    seam_session_options o = { 0 };
    if (opts)
        memcpy(&o, opts, opts->size < sizeof o ? opts->size : sizeof o);
    o.size = sizeof o;
    if (role_chain) {
        o.chain = role_chain;
        o.provider = NULL;
    }
    if (o.provider && !seam_client_slot(client, o.provider)) {
        seam_error_set(err, SEAM_ERROR_CONF, "no provider \"%s\" in the conf", o.provider);
        return SEAM_ERR_NOT_FOUND;
    }
    if (!o.provider) {
        const char *name = o.chain ? o.chain : seam_client_role_chain(client, "assistant");
        if (!name)
            name = "default";
        if (!chain_exists(client, name)) {
            seam_error_set(err, SEAM_ERROR_CONF, "no chain \"%s\" in the conf", name);
            return SEAM_ERR_NOT_FOUND;
        }
        o.chain = name;
    }
    int jrc = o.provider_flags_json ? seam_json_check(o.provider_flags_json, 1) : SEAM_OK;
    if (jrc == SEAM_ERR_NOMEM)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    if (jrc != SEAM_OK) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "provider flags are not a JSON object");
        return SEAM_ERR_INVALID;
    }
    if (o.thread_id && (!*o.thread_id || strlen(o.thread_id) > 255)) {
        seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "a thread id is 1 to 255 bytes");
        return SEAM_ERR_INVALID;
    }
    seam_session *s = calloc(1, sizeof *s);
    if (!s)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    s->client = client;
    s->retry = o.retry;
    s->cache = o.cache;
    s->timeout_ms = o.timeout_ms;
    s->idle_timeout_ms = o.idle_timeout_ms;
    s->on_attempt = o.on_attempt;
    s->refresh = o.refresh_credential;
    s->expires_at_ms = o.credential_expires_at_ms;
    s->margin_ms = o.refresh_margin_ms > 0 ? o.refresh_margin_ms : 60000;
    s->ud = o.ud;
    int rc = dup_opt(&s->chain, o.provider ? NULL : o.chain);
    if (rc == SEAM_OK)
        rc = dup_opt(&s->provider, o.provider);
    if (rc == SEAM_OK)
        rc = dup_opt(&s->model, o.model);
    if (rc == SEAM_OK)
        rc = dup_opt(&s->system, o.system);
    if (rc == SEAM_OK)
        rc = dup_opt(&s->flags_json, o.provider_flags_json);
    if (rc == SEAM_OK)
        rc = (s->defaults = seam_request_new()) ? copy_settings(s->defaults, o.defaults)
                                                : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK && !(s->hist = seam_history_new(o.thread_id)))
        rc = SEAM_ERR_NOMEM;
    if (rc != SEAM_OK) {
        seam_session_free(s);
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    }
    *out = s;
    return SEAM_OK;
}

int seam_session_new(seam_client *client, const seam_session_options *opts, seam_session **out,
                     seam_error *err)
{
    return session_create(client, opts, NULL, out, err);
}

int seam_session_new_for_role(seam_client *client, const char *role,
                              const seam_session_options *opts, seam_session **out, seam_error *err)
{
    seam_error_clear(err);
    if (out)
        *out = NULL;
    const char *chain = seam_client_role_chain(client, role);
    if (!chain) {
        seam_error_set(err, SEAM_ERROR_CONF, "no role \"%s\" in the conf's roles", role ? role : "");
        return SEAM_ERR_NOT_FOUND;
    }
    return session_create(client, opts, chain, out, err);
}

void seam_session_clear(seam_session *s)
{
    if (!s || !s->hist)
        return;
    seam_op clear = { .kind = SEAM_OP_CLEAR };
    if (seam_session_apply(s, &clear, 1, NULL, NULL) != SEAM_OK)
        seam_history_empty_handle(s->hist); /* out of memory: a clear must not fail */
    seam_session_set_pending(s, NULL, NULL, NULL);
}

void seam_session_free(seam_session *s)
{
    if (!s)
        return;
    seam_session_set_pending(s, NULL, NULL, NULL);
    seam_history_free(s->hist);
    seam_request_free(s->defaults);
    free(s->chain);
    free(s->provider);
    free(s->model);
    free(s->system);
    free(s->flags_json);
    free(s);
}

seam_client *seam_session_client(const seam_session *s)
{
    return s ? s->client : NULL;
}

const char *seam_session_chain(const seam_session *s)
{
    return s ? s->chain : NULL;
}

/* ---- history --------------------------------------------------------------------------------- */

size_t seam_session_history_count(const seam_session *s)
{
    return s ? seam_history_count(s->hist) : 0;
}

const seam_message *seam_session_history_at(const seam_session *s, size_t i)
{
    return s ? seam_history_message(s->hist, i) : NULL;
}

const char *seam_session_thread_id(const seam_session *s)
{
    return s ? seam_history_thread_id(s->hist) : NULL;
}

seam_history *seam_session_history(const seam_session *s)
{
    return s ? seam_history_dup(s->hist) : NULL;
}

int seam_session_apply(seam_session *s, const seam_op *ops, size_t n, size_t *failed,
                       seam_error *err)
{
    if (!s) {
        seam_error_clear(err);
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    }
    seam_history *next = NULL;
    int rc = seam_history_apply_batch(s->hist, ops, n, &next, failed, err);
    if (rc != SEAM_OK)
        return rc;
    seam_history_free(s->hist);
    s->hist = next;
    return SEAM_OK;
}

int seam_session_set_history(seam_session *s, const seam_history *h)
{
    if (!s || !h)
        return SEAM_ERR_INVALID;
    seam_history *mine = seam_history_dup(h);
    if (!mine)
        return SEAM_ERR_NOMEM;
    seam_history_free(s->hist);
    s->hist = mine;
    seam_session_set_pending(s, NULL, NULL, NULL);
    return SEAM_OK;
}

int seam_session_snapshot(const seam_session *s, seam_request **out)
{
    if (!s || !out)
        return SEAM_ERR_INVALID;
    *out = NULL;
    seam_request *req = seam_request_new();
    const char *system = s->system ? s->system : seam_request_system(s->defaults);
    int rc = req ? SEAM_OK : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK && system)
        rc = seam_request_set_system(req, system);
    for (size_t i = 0; rc == SEAM_OK && i < seam_history_count(s->hist); i++) {
        seam_message *m = seam_message_dup(seam_history_message(s->hist, i));
        rc = m ? seam_request_add_message(req, m) : SEAM_ERR_NOMEM;
        if (rc != SEAM_OK)
            seam_message_free(m);
    }
    if (rc != SEAM_OK) {
        seam_request_free(req);
        return rc;
    }
    *out = req;
    return SEAM_OK;
}

int seam_session_append(seam_session *s, const seam_message *msg)
{
    if (!s || !msg)
        return SEAM_ERR_INVALID;
    seam_op add = { .kind = SEAM_OP_ADD, .message = msg };
    return seam_session_apply(s, &add, 1, NULL, NULL);
}

int seam_session_append_user_text(seam_session *s, const char *text)
{
    if (!s || !text)
        return SEAM_ERR_INVALID;
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    int rc = m ? seam_message_add_text(m, text) : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK)
        rc = seam_session_append(s, m);
    seam_message_free(m);
    return rc;
}

void seam_session_truncate(seam_session *s, size_t keep_first, size_t keep_last)
{
    size_t n = seam_session_history_count(s);
    if (!s || keep_first >= n || keep_last >= n || keep_first + keep_last >= n)
        return;
    size_t drop = n - keep_first - keep_last;
    seam_op *ops = calloc(drop, sizeof *ops);
    if (!ops)
        return; /* out of memory: the history stays as it was */
    for (size_t i = 0; i < drop; i++)
        ops[i] = (seam_op){ .kind = SEAM_OP_REMOVE, .id = seam_history_item_id(s->hist, keep_first + i) };
    seam_session_apply(s, ops, drop, NULL, NULL);
    free(ops);
}

int seam_session_set_pending(seam_session *s, const char *call_id, const char *name,
                             const char *prompt)
{
    free(s->pending_id);
    free(s->pending_name);
    free(s->pending_prompt);
    s->pending_id = seam_strdup(call_id);
    s->pending_name = seam_strdup(name);
    s->pending_prompt = seam_strdup(prompt);
    if ((call_id && !s->pending_id) || (name && !s->pending_name) || (prompt && !s->pending_prompt))
        return SEAM_ERR_NOMEM;
    return SEAM_OK;
}

const char *seam_session_pending_call(const seam_session *s, const char **name, const char **prompt)
{
    if (name)
        *name = s ? s->pending_name : NULL;
    if (prompt)
        *prompt = s ? s->pending_prompt : NULL;
    return s ? s->pending_id : NULL;
}

/* ---- credentials ----------------------------------------------------------------------------- */

/* Makes the client read the session's providers' credentials again at their
 * next call (after the hook refreshed where they come from). Marking a key
 * unresolved is enough: the key pool resolves it again on its next lease and
 * treats a changed value as a new key. */
static void forget_credentials(seam_session *s)
{
    seam_client *c = s->client;
    const seam_conf_chain *ch = s->provider ? NULL : seam_conf_find_chain(c->conf, s->chain);
    for (size_t i = 0; i < c->n_slots; i++) {
        seam_provider_slot *slot = &c->slots[i];
        int ours = 0;
        if (s->provider)
            ours = strcmp(slot->conf->name, s->provider) == 0;
        for (size_t j = 0; ch && j < ch->n_entries && !ours; j++)
            ours = strcmp(ch->entries[j].provider, slot->conf->name) == 0;
        if (!ours)
            continue;
        pthread_mutex_lock(&slot->lock);
        for (size_t k = 0; k < slot->n_keys; k++)
            slot->keys[k].resolved = 0;
        pthread_mutex_unlock(&slot->lock);
    }
}

int seam_session_refresh_credential(seam_session *s, seam_error *err)
{
    if (!s)
        return SEAM_ERR_INVALID;
    if (!s->refresh)
        return SEAM_OK;
    int64_t expires = 0;
    seam_error x;
    seam_error_clear(&x);
    int rc = s->refresh(s->ud, &expires, &x);
    if (rc != SEAM_OK) {
        if (x.kind == SEAM_ERROR_NONE)
            seam_error_set(&x, SEAM_ERROR_AUTH, "the credential refresh failed");
        if (err)
            *err = x;
        return rc < 0 ? rc : SEAM_ERR_NO_CREDENTIAL;
    }
    s->expires_at_ms = expires;
    forget_credentials(s);
    return SEAM_OK;
}

static int refresh_if_due(seam_session *s, seam_error *err)
{
    if (!s->refresh || s->expires_at_ms <= 0 || wall_ms() + s->margin_ms < s->expires_at_ms)
        return SEAM_OK;
    return seam_session_refresh_credential(s, err);
}

/* ---- calls ------------------------------------------------------------------------------------- */

static seam_call_options call_options(const seam_session *s, const seam_send_options *o)
{
    seam_call_options co = {
        .size = sizeof co,
        .chain = s->chain,
        .provider = s->provider,
        .model = s->model,
        .cancel = o ? o->cancel : NULL,
        .timeout_ms = o && o->timeout_ms > 0 ? o->timeout_ms : s->timeout_ms,
        .idle_timeout_ms = s->idle_timeout_ms,
        .on_attempt = s->on_attempt,
        .ud = s->ud,
    };
    return co;
}

static seam_retry_policy policy_of(const seam_session *s, const seam_send_options *o)
{
    seam_retry_policy p = o && o->retry ? *o->retry : s->retry;
    if (p.max_attempts < 1)
        p.max_attempts = 1;
    if (p.base_delay_ms <= 0)
        p.base_delay_ms = 500;
    if (p.max_delay_ms <= 0)
        p.max_delay_ms = 20000;
    return p;
}

/* The wait before retry n+1 (n 0-based): min(base * 2^n + jitter, max), at
 * least the server's Retry-After (still capped). */
static int64_t retry_delay(const seam_retry_policy *p, int n, const seam_error *e)
{
    int64_t d = p->base_delay_ms;
    for (int i = 0; i < n && d < p->max_delay_ms; i++)
        d *= 2;
    if (p->jitter)
        d += (int64_t)((double)p->base_delay_ms * 0.1 * ((double)rand() / (double)RAND_MAX));
    if (e && e->retry_after_ms > d)
        d = e->retry_after_ms;
    return d < p->max_delay_ms ? d : p->max_delay_ms;
}

/* 1 when the failure x of attempt `attempt` (1-based) should be retried; waits
 * first. On a cancel during the wait, x becomes the cancel. */
static int retry_after_wait(const seam_retry_policy *p, int attempt, seam_cancel *cancel,
                            seam_error *x)
{
    if (!x->retryable || x->kind == SEAM_ERROR_CANCELLED || attempt >= p->max_attempts)
        return 0;
    if (seam_cancel_sleep(cancel, retry_delay(p, attempt - 1, x))) {
        seam_error_clear(x);
        seam_error_set(x, SEAM_ERROR_CANCELLED, "cancelled");
        return 0;
    }
    return 1;
}

static int send_with_retry(seam_session *s, const seam_request *req, const seam_send_options *o,
                           int64_t deadline_ms, seam_result **out, seam_error *err)
{
    seam_retry_policy p = policy_of(s, o);
    seam_call_options co = call_options(s, o);
    int64_t own_timeout = co.timeout_ms;
    for (int attempt = 1;; attempt++) {
        seam_error x;
        seam_error_clear(&x);
        int rc = refresh_if_due(s, &x);
        if (rc == SEAM_OK && deadline_ms > 0) {
            int64_t left = deadline_ms - seam_now_ms();
            if (left <= 0)
                rc = seam_error_set(&x, SEAM_ERROR_TIMEOUT, "the deadline passed");
            else
                co.timeout_ms = own_timeout > 0 && own_timeout < left ? own_timeout : left;
        }
        if (rc != SEAM_OK) {
            if (err)
                *err = x;
            return rc;
        }
        rc = seam_generate(s->client, req, &co, out, &x);
        if (rc == SEAM_OK)
            return SEAM_OK;
        /* No retry whose wait would end past the deadline. */
        if (rc == SEAM_ERR_PROVIDER && deadline_ms > 0 &&
            seam_now_ms() + retry_delay(&p, attempt - 1, &x) >= deadline_ms)
            p.max_attempts = attempt;
        if (rc == SEAM_ERR_PROVIDER && retry_after_wait(&p, attempt, co.cancel, &x))
            continue;
        if (err)
            *err = x;
        return rc;
    }
}

static int send_history(seam_session *s, const seam_send_options *o, int64_t deadline_ms,
                        seam_result **out, seam_error *err)
{
    seam_error_clear(err);
    if (!s || !out || (o && o->size < sizeof(uint32_t)))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    *out = NULL;
    seam_request *req = NULL;
    int rc = history_request(s, o, &req, err);
    if (rc != SEAM_OK)
        return rc;
    rc = send_with_retry(s, req, o, deadline_ms, out, err);
    seam_request_free(req);
    if (rc != SEAM_OK)
        return rc;
    rc = seam_session_append(s, seam_result_message(*out));
    if (rc != SEAM_OK) {
        seam_result_free(*out);
        *out = NULL;
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
    }
    return rc;
}

int seam_session_send(seam_session *s, const seam_send_options *o, seam_result **out,
                      seam_error *err)
{
    return send_history(s, o, 0, out, err);
}

static int send_one_off(seam_session *s, const seam_request *req, const seam_send_options *o,
                        int64_t deadline_ms, seam_result **out, seam_error *err)
{
    seam_error_clear(err);
    if (!s || !req || !out || (o && o->size < sizeof(uint32_t)))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    *out = NULL;
    seam_request *r = seam_request_dup(req);
    int rc = r ? SEAM_OK : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK && !seam_request_system(r))
        rc = apply_system(s->system ? s->system : seam_request_system(s->defaults), o, r);
    rc = rc == SEAM_OK ? fill_unset_settings(r, s->defaults) : rc;
    if (rc == SEAM_OK)
        rc = apply_call_settings(s, o, r, err);
    else
        seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory");
    if (rc == SEAM_OK)
        rc = send_with_retry(s, r, o, deadline_ms, out, err);
    seam_request_free(r);
    return rc;
}

int seam_session_send_request(seam_session *s, const seam_request *req, const seam_send_options *o,
                              seam_result **out, seam_error *err)
{
    return send_one_off(s, req, o, 0, out, err);
}

int seam_session_send_by(seam_session *s, const seam_request *req, const seam_send_options *o,
                         int64_t deadline_ms, seam_result **out, seam_error *err)
{
    return req ? send_one_off(s, req, o, deadline_ms, out, err)
               : send_history(s, o, deadline_ms, out, err);
}

/* ---- streams ------------------------------------------------------------------------------------- */

struct seam_session_stream {
    seam_session *s;
    seam_request *req;
    seam_send_options o;
    seam_retry_policy policy;
    seam_stream *cur;
    int attempt;
    int content;
    int done;
    int status;
    seam_error err;
};

int seam_session_stream_open(seam_session *s, const seam_send_options *o, seam_session_stream **out,
                             seam_error *err)
{
    seam_error_clear(err);
    if (!s || !out || (o && o->size < sizeof(uint32_t)))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    *out = NULL;
    seam_session_stream *st = calloc(1, sizeof *st);
    if (!st)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), SEAM_ERR_NOMEM;
    st->s = s;
    if (o)
        memcpy(&st->o, o, o->size < sizeof st->o ? o->size : sizeof st->o);
    st->o.size = sizeof st->o;
    /* Strings are used at open only; the cancel token and retry policy are kept. */
    st->policy = policy_of(s, o);
    st->o.retry = NULL;
    seam_error_clear(&st->err);
    int rc = history_request(s, &st->o, &st->req, err);
    if (rc != SEAM_OK) {
        free(st);
        return rc;
    }
    st->o.system_suffix = NULL;
    st->o.provider_flags_json = NULL;
    st->o.tools = NULL;
    *out = st;
    return SEAM_OK;
}

static int stream_end(seam_session_stream *st, int status, const seam_error *x)
{
    st->done = 1;
    st->status = status;
    if (x)
        st->err = *x;
    return status;
}

int seam_session_stream_next(seam_session_stream *st, const seam_chunk **chunk, seam_error *err)
{
    if (!st || !chunk)
        return SEAM_ERR_INVALID;
    *chunk = NULL;
    for (;;) {
        if (st->done) {
            if (st->status != SEAM_OK && err)
                *err = st->err;
            return st->status;
        }
        seam_error x;
        seam_error_clear(&x);
        if (!st->cur) {
            int rc = refresh_if_due(st->s, &x);
            seam_call_options co = call_options(st->s, &st->o);
            if (rc == SEAM_OK)
                rc = seam_stream_open(st->s->client, st->req, &co, &st->cur, &x);
            if (rc != SEAM_OK) {
                stream_end(st, rc, &x);
                continue;
            }
            st->attempt++;
        }
        const seam_chunk *c = NULL;
        int rc = seam_stream_next(st->cur, &c, &x);
        if (rc == 1) {
            if (c->type != SEAM_CHUNK_STOP && c->type != SEAM_CHUNK_ERROR)
                st->content = 1;
            *chunk = c;
            return 1;
        }
        if (rc == SEAM_OK) {
            rc = seam_session_append(st->s, seam_result_message(seam_stream_result(st->cur)));
            if (rc != SEAM_OK)
                seam_error_set(&x, SEAM_ERROR_UNKNOWN, "out of memory");
            stream_end(st, rc, &x);
            continue;
        }
        if (!st->content && rc == SEAM_ERR_PROVIDER &&
            retry_after_wait(&st->policy, st->attempt, st->o.cancel, &x)) {
            seam_stream_free(st->cur);
            st->cur = NULL;
            continue;
        }
        stream_end(st, rc, &x);
    }
}

const seam_result *seam_session_stream_result(const seam_session_stream *st)
{
    return st && st->cur ? seam_stream_result(st->cur) : NULL;
}

void seam_session_stream_free(seam_session_stream *st)
{
    if (!st)
        return;
    seam_stream_free(st->cur);
    seam_request_free(st->req);
    free(st);
}
