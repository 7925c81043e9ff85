/* history.c — the conversation state (seam_history): an immutable value
 * holding one conversation thread's messages as items with ids, and the
 * operations (ADD, REMOVE, UPDATE, COMPACT, CLEAR) that derive a new state
 * from an old one, one at a time or as an all-or-nothing batch.
 *
 * Sharing. An item (id + message) is reference-counted and shared by every
 * state that holds it. A state is a window [0, n) on a reference-counted
 * array of item pointers. Appending to a state whose window ends where its
 * array's used part ends claims the next slots in place (compare-and-swap on
 * `used`, so two threads appending to the same state cannot both win); the
 * old state's window does not move, so it still sees what it saw. Any other
 * change copies the pointers (not the messages) into a new array. So a chat
 * that only grows costs O(1) per turn, and nothing is ever written where an
 * existing state can see it. */
#include "config.h"
#include "internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define MAX_THREAD_ID 255

typedef struct hitem {
    atomic_size_t refs;
    uint64_t id;
    seam_message *msg;
} hitem;

typedef struct hbuf {
    atomic_size_t refs;
    atomic_size_t used;  /* slots [0, used) hold an item reference each */
    size_t cap;
    hitem *v[];
} hbuf;

struct seam_history {
    char *thread_id;
    hbuf *buf;           /* NULL while empty */
    size_t n;            /* this state's window: buf->v[0, n) */
    uint64_t next_id;
};

/* ---- items and arrays ------------------------------------------------------------------- */

static void item_unref(hitem *it)
{
    if (it && atomic_fetch_sub(&it->refs, 1) == 1) {
        seam_message_free(it->msg);
        free(it);
    }
}

static hbuf *buf_new(size_t cap)
{
    if (cap < 8)
        cap = 8;
    if (cap > (SIZE_MAX - sizeof(hbuf)) / sizeof(hitem *))
        return NULL;
    hbuf *b = malloc(sizeof *b + cap * sizeof(hitem *));
    if (!b)
        return NULL;
    atomic_init(&b->refs, 1);
    atomic_init(&b->used, 0);
    b->cap = cap;
    return b;
}

static void buf_unref(hbuf *b)
{
    if (!b || atomic_fetch_sub(&b->refs, 1) != 1)
        return;
    size_t used = atomic_load(&b->used);
    for (size_t i = 0; i < used; i++)
        item_unref(b->v[i]);
    free(b);
}

/* ---- states ------------------------------------------------------------------------------- */

static int thread_id_ok(const char *id)
{
    return id && *id && strlen(id) <= MAX_THREAD_ID;
}

/* "thread_" + 32 hex digits from the kernel's random source (a counter and
 * the clock if that fails: unique in the process, which is what ids need). */
static char *random_thread_id(void)
{
    unsigned char raw[16];
    if (getrandom(raw, sizeof raw, GRND_NONBLOCK) != (ssize_t)sizeof raw) {
        static atomic_uint_fast64_t counter;
        uint64_t a = (uint64_t)seam_now_ms(), b = atomic_fetch_add(&counter, 1) + 1;
        memcpy(raw, &a, 8);
        memcpy(raw + 8, &b, 8);
    }
    char *s = malloc(7 + 32 + 1);
    if (!s)
        return NULL;
    memcpy(s, "thread_", 7);
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(s + 7 + 2 * i, 3, "%02x", raw[i]);
    return s;
}

static seam_history *state_new(const char *thread_id)
{
    if (thread_id && !thread_id_ok(thread_id))
        return NULL;
    seam_history *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->thread_id = thread_id ? strdup(thread_id) : random_thread_id();
    if (!h->thread_id) {
        free(h);
        return NULL;
    }
    h->next_id = 1;
    return h;
}

seam_history *seam_history_new(const char *thread_id)
{
    if (!thread_id)
        return state_new(NULL);
    return thread_id_ok(thread_id) ? state_new(thread_id) : NULL;
}

/* A handle on h's items (and next id) under thread_id. */
static seam_history *share(const seam_history *h, const char *thread_id, int random_id)
{
    seam_history *c = state_new(random_id ? NULL : thread_id);
    if (!c)
        return NULL;
    if (h->buf)
        atomic_fetch_add(&h->buf->refs, 1);
    c->buf = h->buf;
    c->n = h->n;
    c->next_id = h->next_id;
    return c;
}

seam_history *seam_history_dup(const seam_history *h)
{
    return h ? share(h, h->thread_id, 0) : NULL;
}

seam_history *seam_history_fork(const seam_history *h, const char *thread_id)
{
    if (!h || (thread_id && !thread_id_ok(thread_id)))
        return NULL;
    return share(h, thread_id, thread_id == NULL);
}

void seam_history_free(seam_history *h)
{
    if (!h)
        return;
    buf_unref(h->buf);
    free(h->thread_id);
    free(h);
}

const char *seam_history_thread_id(const seam_history *h)
{
    return h ? h->thread_id : NULL;
}

size_t seam_history_count(const seam_history *h)
{
    return h ? h->n : 0;
}

const seam_message *seam_history_message(const seam_history *h, size_t i)
{
    return h && i < h->n ? h->buf->v[i]->msg : NULL;
}

uint64_t seam_history_item_id(const seam_history *h, size_t i)
{
    return h && i < h->n ? h->buf->v[i]->id : 0;
}

int seam_history_find(const seam_history *h, uint64_t id, size_t *index)
{
    for (size_t i = 0; h && id && i < h->n; i++) {
        if (h->buf->v[i]->id == id) {
            if (index)
                *index = i;
            return SEAM_OK;
        }
    }
    return SEAM_ERR_NOT_FOUND;
}

uint64_t seam_history_next_id(const seam_history *h)
{
    return h ? h->next_id : 0;
}

const char *seam_op_kind_name(seam_op_kind k)
{
    switch (k) {
    case SEAM_OP_ADD: return "add";
    case SEAM_OP_REMOVE: return "remove";
    case SEAM_OP_UPDATE: return "update";
    case SEAM_OP_COMPACT: return "compact";
    case SEAM_OP_CLEAR: return "clear";
    }
    return "unknown";
}

/* ---- applying operations ----------------------------------------------------------------------- */

/* A batch is worked out on a private list of item pointers (borrowed from the
 * old state, or made by the batch); nothing is published until every
 * operation applied. */
typedef struct work {
    hitem **v;
    size_t n, cap;
    hitem **made;        /* items this batch created (not yet referenced) */
    size_t n_made, cap_made;
    uint64_t next_id;
} work;

static int grow(hitem ***v, size_t *cap, size_t want)
{
    if (want <= *cap)
        return SEAM_OK;
    size_t c = *cap ? *cap : 16;
    while (c < want)
        c *= 2;
    hitem **nv = realloc(*v, c * sizeof *nv);
    if (!nv)
        return SEAM_ERR_NOMEM;
    *v = nv;
    *cap = c;
    return SEAM_OK;
}

/* A new item holding a copy of msg, recorded as made by the batch. */
static int make_item(work *w, const seam_message *msg, uint64_t id, hitem **out)
{
    if (grow(&w->made, &w->cap_made, w->n_made + 1) != SEAM_OK)
        return SEAM_ERR_NOMEM;
    hitem *it = malloc(sizeof *it);
    seam_message *copy = it ? seam_message_dup(msg) : NULL;
    if (!copy) {
        free(it);
        return SEAM_ERR_NOMEM;
    }
    atomic_init(&it->refs, 0);
    it->id = id;
    it->msg = copy;
    w->made[w->n_made++] = it;
    *out = it;
    return SEAM_OK;
}

static long find_in(const work *w, uint64_t id)
{
    for (size_t i = 0; id && i < w->n; i++)
        if (w->v[i]->id == id)
            return (long)i;
    return -1;
}

/* Applies op to w. SEAM_OK, or a status with why[] saying what is wrong. */
static int apply_one(work *w, const seam_op *op, char *why, size_t whysize)
{
    if (!op) {
        snprintf(why, whysize, "the operation is NULL");
        return SEAM_ERR_INVALID;
    }
    hitem *it = NULL;
    long at;
    switch (op->kind) {
    case SEAM_OP_ADD:
        if (!op->message) {
            snprintf(why, whysize, "no message to add");
            return SEAM_ERR_INVALID;
        }
        if (grow(&w->v, &w->cap, w->n + 1) != SEAM_OK || make_item(w, op->message, w->next_id, &it))
            return SEAM_ERR_NOMEM;
        w->next_id++;
        w->v[w->n++] = it;
        return SEAM_OK;
    case SEAM_OP_REMOVE:
        if ((at = find_in(w, op->id)) < 0) {
            snprintf(why, whysize, "no item %llu in the history", (unsigned long long)op->id);
            return SEAM_ERR_INVALID;
        }
        memmove(&w->v[at], &w->v[at + 1], (w->n - (size_t)at - 1) * sizeof *w->v);
        w->n--;
        return SEAM_OK;
    case SEAM_OP_UPDATE:
        if (!op->message) {
            snprintf(why, whysize, "no message to update item %llu with", (unsigned long long)op->id);
            return SEAM_ERR_INVALID;
        }
        if ((at = find_in(w, op->id)) < 0) {
            snprintf(why, whysize, "no item %llu in the history", (unsigned long long)op->id);
            return SEAM_ERR_INVALID;
        }
        if (make_item(w, op->message, op->id, &it) != SEAM_OK)
            return SEAM_ERR_NOMEM;
        w->v[at] = it;
        return SEAM_OK;
    case SEAM_OP_COMPACT: {
        if (!op->message) {
            snprintf(why, whysize, "no message to compact into");
            return SEAM_ERR_INVALID;
        }
        if (op->n_ids == 0 || !op->ids) {
            snprintf(why, whysize, "no items to compact");
            return SEAM_ERR_INVALID;
        }
        /* Every id must name a distinct item now present. */
        long first = -1;
        for (size_t k = 0; k < op->n_ids; k++) {
            if ((at = find_in(w, op->ids[k])) < 0) {
                snprintf(why, whysize, "no item %llu in the history", (unsigned long long)op->ids[k]);
                return SEAM_ERR_INVALID;
            }
            for (size_t j = 0; j < k; j++) {
                if (op->ids[j] == op->ids[k]) {
                    snprintf(why, whysize, "item %llu is named twice", (unsigned long long)op->ids[k]);
                    return SEAM_ERR_INVALID;
                }
            }
            if (first < 0 || at < first)
                first = at;
        }
        if (make_item(w, op->message, w->next_id, &it) != SEAM_OK)
            return SEAM_ERR_NOMEM;
        w->next_id++;
        /* Keep the others in order, the new item where the first replaced one was. */
        size_t out = 0;
        for (size_t i = 0; i < w->n; i++) {
            int replaced = 0;
            for (size_t k = 0; k < op->n_ids && !replaced; k++)
                replaced = w->v[i]->id == op->ids[k];
            if ((long)i == first)
                w->v[out++] = it;
            else if (!replaced)
                w->v[out++] = w->v[i];
        }
        w->n = out;
        return SEAM_OK;
    }
    case SEAM_OP_CLEAR:
        w->n = 0;
        return SEAM_OK;
    }
    snprintf(why, whysize, "unknown operation kind %d", (int)op->kind);
    return SEAM_ERR_INVALID;
}

/* Appends-only batches extend h's array in place when h's window ends at the
 * array's used end and it has room. 1 when done (*out set), 0 to take the
 * general path, a negative status on failure. */
static int append_in_place(const seam_history *h, const seam_op *ops, size_t n, seam_history **out)
{
    if (!h->buf || n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (ops[i].kind != SEAM_OP_ADD || !ops[i].message)
            return 0;
    if (h->n + n > h->buf->cap)
        return 0;
    /* Copy the messages before claiming slots: a claim cannot be undone. */
    hitem **items = calloc(n, sizeof *items);
    int rc = items ? SEAM_OK : SEAM_ERR_NOMEM;
    for (size_t i = 0; rc == SEAM_OK && i < n; i++) {
        items[i] = malloc(sizeof **items);
        seam_message *m = items[i] ? seam_message_dup(ops[i].message) : NULL;
        if (!m) {
            rc = SEAM_ERR_NOMEM;
            break;
        }
        atomic_init(&items[i]->refs, 1);
        items[i]->id = h->next_id + i;
        items[i]->msg = m;
    }
    seam_history *c = rc == SEAM_OK ? share(h, h->thread_id, 0) : NULL;
    size_t expected = h->n;
    if (!c || !atomic_compare_exchange_strong(&h->buf->used, &expected, h->n + n)) {
        /* Another state already grew this array past h (or no memory):
         * the general path copies. */
        for (size_t i = 0; items && i < n; i++) {
            if (items[i] && items[i]->msg)
                seam_message_free(items[i]->msg);
            free(items[i]);
        }
        free(items);
        seam_history_free(c);
        return rc == SEAM_OK && c ? 0 : SEAM_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        h->buf->v[h->n + i] = items[i];
    free(items);
    c->n = h->n + n;
    c->next_id = h->next_id + n;
    *out = c;
    return 1;
}

int seam_history_apply_batch(const seam_history *h, const seam_op *ops, size_t n,
                             seam_history **out, size_t *failed, seam_error *err)
{
    seam_error_clear(err);
    if (out)
        *out = NULL;
    if (!h || !out || (n > 0 && !ops))
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;

    int fast = append_in_place(h, ops, n, out);
    if (fast == 1)
        return SEAM_OK;
    if (fast < 0)
        return seam_error_set(err, SEAM_ERROR_UNKNOWN, "out of memory"), fast;

    work w = { .next_id = h->next_id };
    int rc = grow(&w.v, &w.cap, h->n + 1);
    if (rc == SEAM_OK) {
        for (size_t i = 0; i < h->n; i++)
            w.v[i] = h->buf->v[i];
        w.n = h->n;
    }
    char why[256] = "";
    size_t bad = 0;
    for (size_t i = 0; rc == SEAM_OK && i < n; i++) {
        rc = apply_one(&w, &ops[i], why, sizeof why);
        bad = i;
    }
    seam_history *c = NULL;
    hbuf *b = NULL;
    if (rc == SEAM_OK) {
        c = share(h, h->thread_id, 0);
        /* Room to grow in place: the next appends are free. */
        b = c ? buf_new(w.n + w.n / 2 + 8) : NULL;
        if (!b)
            rc = SEAM_ERR_NOMEM;
    }
    if (rc == SEAM_OK) {
        for (size_t i = 0; i < w.n; i++) {
            atomic_fetch_add(&w.v[i]->refs, 1);
            b->v[i] = w.v[i];
        }
        atomic_store(&b->used, w.n);
        buf_unref(c->buf);
        c->buf = b;
        c->n = w.n;
        c->next_id = w.next_id;
    }
    /* Items the batch made and nothing kept (failure, or removed again). */
    for (size_t i = 0; i < w.n_made; i++) {
        if (atomic_load(&w.made[i]->refs) == 0) {
            seam_message_free(w.made[i]->msg);
            free(w.made[i]);
        }
    }
    free(w.made);
    free(w.v);
    if (rc != SEAM_OK) {
        seam_history_free(c);
        if (failed)
            *failed = bad;
        if (rc == SEAM_ERR_NOMEM)
            seam_error_set(err, SEAM_ERROR_UNKNOWN, "operation %zu (%s): out of memory", bad,
                           n ? seam_op_kind_name(ops[bad].kind) : "none");
        else
            seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "operation %zu (%s): %s", bad,
                           seam_op_kind_name(ops[bad].kind), why);
        return rc;
    }
    *out = c;
    return SEAM_OK;
}

int seam_history_apply(const seam_history *h, const seam_op *op, seam_history **out,
                       seam_error *err)
{
    if (!op) {
        seam_error_clear(err);
        if (out)
            *out = NULL;
        return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "invalid argument"), SEAM_ERR_INVALID;
    }
    return seam_history_apply_batch(h, op, 1, out, NULL, err);
}

void seam_history_empty_handle(seam_history *h)
{
    if (!h)
        return;
    buf_unref(h->buf);
    h->buf = NULL;
    h->n = 0;
}
