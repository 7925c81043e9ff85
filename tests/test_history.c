/* test_history.c — the conversation state (seam_history, issue 14 item 3):
 * every operation (ADD, REMOVE, UPDATE, COMPACT, CLEAR) on its own and in
 * batches, a failing batch leaving no partial state and an error naming the
 * operation's index and reason, old states unchanged after every apply
 * (branches off one state included, and appends from many threads at once),
 * structure sharing, thread ids (random, given, kept, forked); then the
 * session's history as such a state (snapshots that do not move, an applied
 * batch, going back to an old state, all seen on the wire of the OpenAI
 * plugin at the fake server), the executor's compression made a COMPACT and
 * a resumed call's answer an UPDATE. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <seam/seam.h>

static fake_server *srv;
static seam_client *oa; /* provider o (openai) at the fake server, chain default */

static int start(void)
{
    return tu_start_client_on(&srv, &oa, TU_CONF_OPENAI_DEFAULT);
}

/* ---- helpers ----------------------------------------------------------------------- */

static seam_message *text_msg(seam_role role, const char *text)
{
    seam_message *m = seam_message_new(role);
    CU_ASSERT_FATAL(m != NULL);
    CU_ASSERT_EQUAL_FATAL(seam_message_add_text(m, text), SEAM_OK);
    return m;
}

/* The text of item i's first part. */
static const char *text_at(const seam_history *h, size_t i)
{
    const seam_message *m = seam_history_message(h, i);
    return m && seam_message_part_count(m) ? seam_part_text(seam_message_part(m, 0)) : "(none)";
}

/* "id:text id:text ..." of every item, for one-line comparisons. */
static const char *items(const seam_history *h)
{
    static char buf[1024];
    buf[0] = '\0';
    for (size_t i = 0; i < seam_history_count(h); i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, "%s%llu:%s", i ? " " : "",
                 (unsigned long long)seam_history_item_id(h, i), text_at(h, i));
    }
    return buf;
}

/* A new state: h with one user message `text` added (h is kept). */
static seam_history *plus(const seam_history *h, const char *text)
{
    seam_message *m = text_msg(SEAM_ROLE_USER, text);
    seam_op op = { .kind = SEAM_OP_ADD, .message = m };
    seam_history *out = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_history_apply(h, &op, &out, &err), SEAM_OK);
    seam_message_free(m);
    return out;
}

/* The new state op makes of h (a fatal assertion when it is refused). */
static seam_history *applied(const seam_history *h, const seam_op *op)
{
    seam_history *out = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_history_apply(h, op, &out, &err), SEAM_OK);
    return out;
}

/* op on h, which must be refused as invalid with message (err gets the
 * error). The state it left: NULL is expected. */
static seam_history *refused(const seam_history *h, const seam_op *op, seam_error *err,
                             const char *message)
{
    seam_history *out = (seam_history *)1;
    CU_ASSERT_EQUAL(seam_history_apply(h, op, &out, err), SEAM_ERR_INVALID);
    TU_STR_EQ(err->message, message);
    return out;
}

/* Frees the n states of list (NULL ones included); STATES_FREE(a, b, ...). */
static void states_free(seam_history **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        seam_history_free(list[i]);
}
#define STATES_FREE(...) \
    states_free((seam_history *[]){ __VA_ARGS__ }, sizeof((seam_history *[]){ __VA_ARGS__ }) / sizeof(seam_history *))

/* a, b, c, d, e as ids 1..5. */
static seam_history *five(void)
{
    seam_history *h = seam_history_new("t-five");
    const char *t[] = { "a", "b", "c", "d", "e" };
    for (size_t i = 0; i < 5; i++) {
        seam_history *next = plus(h, t[i]);
        seam_history_free(h);
        h = next;
    }
    return h;
}

/* ---- thread ids ------------------------------------------------------------------------ */

static void test_thread_ids(void)
{
    seam_history *a = seam_history_new(NULL), *b = seam_history_new(NULL);
    CU_ASSERT_FATAL(a && b);
    const char *ida = seam_history_thread_id(a);
    CU_ASSERT_EQUAL(strlen(ida), 7 + 32);
    CU_ASSERT_EQUAL(strncmp(ida, "thread_", 7), 0);
    CU_ASSERT_EQUAL(strspn(ida + 7, "0123456789abcdef"), 32);
    CU_ASSERT_STRING_NOT_EQUAL(ida, seam_history_thread_id(b));

    /* A given id is kept, by every state derived from it too. */
    seam_history *t = seam_history_new("support-42");
    TU_STR_EQ(seam_history_thread_id(t), "support-42");
    seam_history *t2 = plus(t, "hello");
    TU_STR_EQ(seam_history_thread_id(t2), "support-42");
    seam_history *d = seam_history_dup(t2);
    TU_STR_EQ(seam_history_thread_id(d), "support-42");

    /* A fork is a branch under another id: same items, shared, ids going on. */
    seam_history *f = seam_history_fork(t2, "support-42-b");
    TU_STR_EQ(seam_history_thread_id(f), "support-42-b");
    CU_ASSERT_EQUAL(seam_history_count(f), 1);
    CU_ASSERT_PTR_EQUAL(seam_history_message(f, 0), seam_history_message(t2, 0));
    CU_ASSERT_EQUAL(seam_history_next_id(f), seam_history_next_id(t2));
    seam_history *fr = seam_history_fork(t2, NULL);
    CU_ASSERT_EQUAL(strncmp(seam_history_thread_id(fr), "thread_", 7), 0);
    seam_history *f2 = plus(f, "on the branch");
    TU_STR_EQ(items(f2), "1:hello 2:on the branch");
    TU_STR_EQ(items(t2), "1:hello");

    /* Bad ids. */
    char longid[300];
    memset(longid, 'x', sizeof longid - 1);
    longid[sizeof longid - 1] = '\0';
    CU_ASSERT_PTR_NULL(seam_history_new(""));
    CU_ASSERT_PTR_NULL(seam_history_new(longid));
    CU_ASSERT_PTR_NULL(seam_history_fork(t2, ""));
    longid[255] = '\0';
    seam_history *ok = seam_history_new(longid);
    CU_ASSERT_PTR_NOT_NULL(ok);

    STATES_FREE(a, b, t, t2, d, f, fr, f2, ok, NULL);
}

/* ---- each operation ---------------------------------------------------------------------- */

static void test_add(void)
{
    seam_history *h0 = seam_history_new("t");
    CU_ASSERT_EQUAL(seam_history_count(h0), 0);
    CU_ASSERT_EQUAL(seam_history_next_id(h0), 1);
    seam_message *m = text_msg(SEAM_ROLE_USER, "first");
    seam_op op = { .kind = SEAM_OP_ADD, .message = m };
    seam_history *h1 = applied(h0, &op);
    /* The state holds a copy: the caller's message may go. */
    seam_message_free(m);
    seam_history *h2 = plus(h1, "second");
    TU_STR_EQ(items(h2), "1:first 2:second");
    CU_ASSERT_EQUAL(seam_message_role(seam_history_message(h2, 0)), SEAM_ROLE_USER);
    CU_ASSERT_EQUAL(seam_history_next_id(h2), 3);
    size_t at = 99;
    CU_ASSERT_EQUAL(seam_history_find(h2, 2, &at), SEAM_OK);
    CU_ASSERT_EQUAL(at, 1);
    CU_ASSERT_EQUAL(seam_history_find(h2, 3, &at), SEAM_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(seam_history_find(h2, 0, NULL), SEAM_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NULL(seam_history_message(h2, 2));
    CU_ASSERT_EQUAL(seam_history_item_id(h2, 2), 0);
    /* The old states did not move. */
    CU_ASSERT_EQUAL(seam_history_count(h0), 0);
    TU_STR_EQ(items(h1), "1:first");
    CU_ASSERT_EQUAL(seam_history_next_id(h1), 2);
    /* The items are shared, not copied, by the states that hold them. */
    CU_ASSERT_PTR_EQUAL(seam_history_message(h1, 0), seam_history_message(h2, 0));

    /* ADD without a message. */
    seam_op bad = { .kind = SEAM_OP_ADD };
    seam_error err;
    CU_ASSERT_PTR_NULL(refused(h2, &bad, &err, "operation 0 (add): no message to add"));
    STATES_FREE(h0, h1, h2);
}

static void test_remove(void)
{
    seam_history *h = five();
    seam_op op = { .kind = SEAM_OP_REMOVE, .id = 2 };
    seam_history *r = applied(h, &op);
    TU_STR_EQ(items(r), "1:a 3:c 4:d 5:e");
    TU_STR_EQ(items(h), "1:a 2:b 3:c 4:d 5:e");
    /* Removing it again from the new state: it is gone there. */
    seam_error err;
    CU_ASSERT_PTR_NULL(refused(r, &op, &err, "operation 0 (remove): no item 2 in the history"));
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    /* Ids are never reused: the next add does not take 2 or 5 again. */
    seam_history *r3 = plus(r, "f");
    TU_STR_EQ(items(r3), "1:a 3:c 4:d 5:e 6:f");
    STATES_FREE(h, r, r3);
}

static void test_update(void)
{
    seam_history *h = five();
    seam_message *m = text_msg(SEAM_ROLE_ASSISTANT, "C!");
    seam_op op = { .kind = SEAM_OP_UPDATE, .id = 3, .message = m };
    seam_history *u = applied(h, &op);
    seam_message_free(m);
    /* Same id, same place, new message; the old state keeps the old one. */
    TU_STR_EQ(items(u), "1:a 2:b 3:C! 4:d 5:e");
    CU_ASSERT_EQUAL(seam_message_role(seam_history_message(u, 2)), SEAM_ROLE_ASSISTANT);
    TU_STR_EQ(items(h), "1:a 2:b 3:c 4:d 5:e");
    CU_ASSERT_EQUAL(seam_message_role(seam_history_message(h, 2)), SEAM_ROLE_USER);
    CU_ASSERT_EQUAL(seam_history_next_id(u), 6);
    /* The untouched items are shared. */
    CU_ASSERT_PTR_EQUAL(seam_history_message(u, 4), seam_history_message(h, 4));

    seam_error err;
    op.id = 42;
    m = text_msg(SEAM_ROLE_USER, "?");
    op.message = m;
    CU_ASSERT_PTR_NULL(refused(h, &op, &err, "operation 0 (update): no item 42 in the history"));
    op.id = 1;
    op.message = NULL;
    refused(h, &op, &err, "operation 0 (update): no message to update item 1 with");
    seam_message_free(m);
    STATES_FREE(h, u);
}

static void test_compact(void)
{
    seam_history *h = five();
    seam_message *sum = text_msg(SEAM_ROLE_USER, "b+c+d");
    uint64_t ids[] = { 3, 2, 4 }; /* any order */
    seam_op op = { .kind = SEAM_OP_COMPACT, .ids = ids, .n_ids = 3, .message = sum };
    seam_history *c = applied(h, &op);
    /* Several items became one, with a new id, where the first of them was. */
    TU_STR_EQ(items(c), "1:a 6:b+c+d 5:e");
    TU_STR_EQ(items(h), "1:a 2:b 3:c 4:d 5:e");
    CU_ASSERT_EQUAL(seam_history_next_id(c), 7);

    /* Items need not be neighbours. */
    uint64_t apart[] = { 5, 1 };
    seam_op op2 = { .kind = SEAM_OP_COMPACT, .ids = apart, .n_ids = 2, .message = sum };
    seam_history *c2 = applied(c, &op2);
    TU_STR_EQ(items(c2), "7:b+c+d 6:b+c+d");

    /* Refusals: an id not there (one compacted away already), one named
     * twice, no ids, no message. */
    seam_error err;
    CU_ASSERT_PTR_NULL(refused(c, &op, &err, "operation 0 (compact): no item 3 in the history"));
    uint64_t twice[] = { 1, 1 };
    op2.ids = twice;
    refused(h, &op2, &err, "operation 0 (compact): item 1 is named twice");
    op2.n_ids = 0;
    refused(h, &op2, &err, "operation 0 (compact): no items to compact");
    op2.ids = apart;
    op2.n_ids = 2;
    op2.message = NULL;
    refused(h, &op2, &err, "operation 0 (compact): no message to compact into");
    seam_message_free(sum);
    STATES_FREE(h, c, c2);
}

static void test_clear(void)
{
    seam_history *h = five();
    seam_op op = { .kind = SEAM_OP_CLEAR };
    seam_history *c = applied(h, &op);
    CU_ASSERT_EQUAL(seam_history_count(c), 0);
    TU_STR_EQ(seam_history_thread_id(c), "t-five");
    CU_ASSERT_EQUAL(seam_history_count(h), 5);
    /* Ids go on after a clear: an id from before never names a new item. */
    seam_history *c2 = plus(c, "fresh");
    TU_STR_EQ(items(c2), "6:fresh");
    /* Clearing an empty state is fine. */
    seam_history *e = seam_history_new("e"), *e2 = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_history_apply(e, &op, &e2, &err), SEAM_OK);
    CU_ASSERT_EQUAL(seam_history_count(e2), 0);
    STATES_FREE(e, e2, h, c, c2);
}

static void test_kind_names_and_bad_kind(void)
{
    static const char *const names[] = {
        [SEAM_OP_ADD] = "add",         [SEAM_OP_REMOVE] = "remove", [SEAM_OP_UPDATE] = "update",
        [SEAM_OP_COMPACT] = "compact", [SEAM_OP_CLEAR] = "clear",
    };
    for (int k = SEAM_OP_ADD; k <= SEAM_OP_CLEAR; k++)
        TU_STR_EQ(seam_op_kind_name((seam_op_kind)k), names[k]);
    TU_STR_EQ(seam_op_kind_name((seam_op_kind)77), "unknown");
    seam_history *h = seam_history_new("k"), *x = (seam_history *)1;
    seam_op op = { .kind = (seam_op_kind)77 };
    seam_error err;
    CU_ASSERT_PTR_NULL(refused(h, &op, &err, "operation 0 (unknown): unknown operation kind 77"));
    CU_ASSERT_EQUAL(seam_history_apply(NULL, &op, &x, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(seam_history_apply(h, NULL, &x, &err), SEAM_ERR_INVALID);
    seam_history_free(h);
}

/* ---- batches -------------------------------------------------------------------------------- */

static void test_batch(void)
{
    seam_history *h = five();
    seam_message *f = text_msg(SEAM_ROLE_USER, "f"), *g = text_msg(SEAM_ROLE_USER, "g"),
                 *sum = text_msg(SEAM_ROLE_USER, "sum");
    /* Each operation sees the ones before it: the batch compacts an item it
     * added itself (ids are taken in order from next_id). */
    uint64_t first_new = seam_history_next_id(h);
    uint64_t ids[] = { 4, first_new };
    seam_op ops[] = {
        { .kind = SEAM_OP_ADD, .message = f },
        { .kind = SEAM_OP_REMOVE, .id = 1 },
        { .kind = SEAM_OP_UPDATE, .id = 2, .message = g },
        { .kind = SEAM_OP_COMPACT, .ids = ids, .n_ids = 2, .message = sum },
        { .kind = SEAM_OP_ADD, .message = f },
    };
    seam_history *b = NULL;
    size_t failed = 99;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_history_apply_batch(h, ops, 5, &b, &failed, &err), SEAM_OK);
    TU_STR_EQ(items(b), "2:g 3:c 7:sum 5:e 8:f");
    CU_ASSERT_EQUAL(failed, 99);
    TU_STR_EQ(items(h), "1:a 2:b 3:c 4:d 5:e");

    /* An empty batch: a new handle on the same state. */
    seam_history *same = NULL;
    CU_ASSERT_EQUAL(seam_history_apply_batch(h, NULL, 0, &same, NULL, &err), SEAM_OK);
    TU_STR_EQ(items(same), items(h));
    seam_history_free(same);
    seam_message_free(f);
    seam_message_free(g);
    seam_message_free(sum);
    STATES_FREE(h, b);
}

static void test_batch_all_or_nothing(void)
{
    seam_history *h = five();
    seam_message *f = text_msg(SEAM_ROLE_USER, "f");
    seam_op ops[] = {
        { .kind = SEAM_OP_ADD, .message = f },
        { .kind = SEAM_OP_REMOVE, .id = 1 },
        { .kind = SEAM_OP_CLEAR },
        { .kind = SEAM_OP_UPDATE, .id = 3, .message = f }, /* 3 went with the clear */
        { .kind = SEAM_OP_ADD, .message = f },
    };
    seam_history *b = (seam_history *)1;
    size_t failed = 99;
    seam_error err;
    CU_ASSERT_EQUAL(seam_history_apply_batch(h, ops, 5, &b, &failed, &err), SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NULL(b);
    CU_ASSERT_EQUAL(failed, 3);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_BAD_REQUEST);
    TU_STR_EQ(err.message, "operation 3 (update): no item 3 in the history");
    /* Nothing of the batch happened, not even its ids. */
    TU_STR_EQ(items(h), "1:a 2:b 3:c 4:d 5:e");
    CU_ASSERT_EQUAL(seam_history_next_id(h), 6);
    seam_history *next = plus(h, "g");
    TU_STR_EQ(items(next), "1:a 2:b 3:c 4:d 5:e 6:g");

    /* An appends-only batch failing at its end adds nothing either (the
     * appends would otherwise go in place). */
    seam_op adds[] = { { .kind = SEAM_OP_ADD, .message = f }, { .kind = SEAM_OP_ADD } };
    CU_ASSERT_EQUAL(seam_history_apply_batch(next, adds, 2, &b, &failed, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(failed, 1);
    TU_STR_EQ(err.message, "operation 1 (add): no message to add");
    seam_history *after = plus(next, "h");
    TU_STR_EQ(items(after), "1:a 2:b 3:c 4:d 5:e 6:g 7:h");
    seam_message_free(f);
    STATES_FREE(h, next, after);
}

/* ---- immutability under sharing ----------------------------------------------------------- */

static void test_branches_do_not_see_each_other(void)
{
    seam_history *empty = seam_history_new("r");
    seam_history *base = plus(empty, "x");
    seam_history_free(empty);
    seam_history *b1 = plus(base, "one");   /* appends in place */
    seam_history *b2 = plus(base, "two");   /* the slot is taken: copies */
    seam_history *b1b = plus(b1, "one-more");
    TU_STR_EQ(items(base), "1:x");
    TU_STR_EQ(items(b1), "1:x 2:one");
    TU_STR_EQ(items(b2), "1:x 2:two");
    TU_STR_EQ(items(b1b), "1:x 2:one 3:one-more");
    CU_ASSERT_PTR_EQUAL(seam_history_message(b1, 0), seam_history_message(b2, 0));
    /* Freeing states in any order leaves the others whole. */
    STATES_FREE(base, b1);
    TU_STR_EQ(items(b1b), "1:x 2:one 3:one-more");
    TU_STR_EQ(items(b2), "1:x 2:two");
    STATES_FREE(b2, b1b);
}

#define APPENDERS 8
#define APPENDS 300

typedef struct appender {
    const seam_history *base;
    int k;
    int ok;
} appender;

static void *append_main(void *arg)
{
    appender *a = arg;
    seam_message *m = seam_message_new(SEAM_ROLE_USER);
    char text[32];
    snprintf(text, sizeof text, "w%d", a->k);
    seam_message_add_text(m, text);
    seam_op op = { .kind = SEAM_OP_ADD, .message = m };
    seam_history *cur = seam_history_dup(a->base);
    int ok = cur != NULL;
    for (int i = 0; ok && i < APPENDS; i++) {
        seam_history *next = NULL;
        ok = seam_history_apply(cur, &op, &next, NULL) == SEAM_OK;
        seam_history_free(cur);
        cur = next;
    }
    /* This thread's line holds the base item then only its own. */
    ok = ok && seam_history_count(cur) == 1 + APPENDS;
    for (size_t i = 1; ok && i < seam_history_count(cur); i++)
        ok = strcmp(text_at(cur, i), text) == 0;
    seam_history_free(cur);
    seam_message_free(m);
    a->ok = ok;
    return NULL;
}

static void test_appends_from_many_threads(void)
{
    seam_history *empty = seam_history_new("shared");
    seam_history *base = plus(empty, "base");
    seam_history_free(empty);
    pthread_t t[APPENDERS];
    appender a[APPENDERS];
    for (int i = 0; i < APPENDERS; i++) {
        a[i] = (appender){ .base = base, .k = i };
        CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, append_main, &a[i]), 0);
    }
    int ok = 0;
    for (int i = 0; i < APPENDERS; i++) {
        pthread_join(t[i], NULL);
        ok += a[i].ok;
    }
    CU_ASSERT_EQUAL(ok, APPENDERS);
    TU_STR_EQ(items(base), "1:base");
    seam_history_free(base);
}

/* ---- the session's history --------------------------------------------------------------------- */

static const char answer_fmt[] =
    "{\"id\":\"x\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
    "\"message\":{\"role\":\"assistant\",\"content\":\"%s\"},\"finish_reason\":\"stop\"}],"
    "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":1}}";

static void push_answer(const char *text)
{
    char body[1024];
    snprintf(body, sizeof body, answer_fmt, text);
    fake_server_push_json(srv, 200, body, NULL);
}

/* The contents of the messages the request i carried, joined by "|". */
static const char *wire_messages(size_t i)
{
    static char buf[1024];
    buf[0] = '\0';
    json_object *b = json_tokener_parse(fake_server_request_body(srv, i)), *msgs = NULL;
    json_object_object_get_ex(b, "messages", &msgs);
    for (size_t k = 0; k < json_object_array_length(msgs); k++) {
        json_object *c = NULL;
        json_object_object_get_ex(json_object_array_get_idx(msgs, k), "content", &c);
        size_t len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, "%s%s", k ? "|" : "",
                 c && json_object_is_type(c, json_type_string) ? json_object_get_string(c) : "?");
    }
    json_object_put(b);
    return buf;
}

static void send_ok(seam_session *s)
{
    seam_result *r = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(tu_said(seam_session_send(s, NULL, &r, &err), &err, "send"), SEAM_OK);
    seam_result_free(r);
}

static void test_session_history_is_a_state(void)
{
    seam_session_options so = { .size = sizeof so, .thread_id = "conv-7" };
    seam_session *s = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_session_new(oa, &so, &s, &err), SEAM_OK);
    seam_session_append_user_text(s, "hi");
    push_answer("hello");
    send_ok(s);
    seam_history *h1 = seam_session_history(s);
    TU_STR_EQ(seam_history_thread_id(h1), "conv-7");
    TU_STR_EQ(items(h1), "1:hi 2:hello");

    seam_session_append_user_text(s, "more");
    push_answer("sure");
    send_ok(s);
    /* The snapshot did not move; the session went on. */
    TU_STR_EQ(items(h1), "1:hi 2:hello");
    seam_history *h2 = seam_session_history(s);
    TU_STR_EQ(items(h2), "1:hi 2:hello 3:more 4:sure");

    /* A failing batch leaves the session's history as it was. */
    seam_message *m = text_msg(SEAM_ROLE_USER, "x");
    seam_op bad[] = { { .kind = SEAM_OP_ADD, .message = m }, { .kind = SEAM_OP_REMOVE, .id = 40 } };
    size_t failed = 0;
    CU_ASSERT_EQUAL(seam_session_apply(s, bad, 2, &failed, &err), SEAM_ERR_INVALID);
    CU_ASSERT_EQUAL(failed, 1);
    TU_STR_EQ(err.message, "operation 1 (remove): no item 40 in the history");
    CU_ASSERT_EQUAL(seam_session_history_count(s), 4);
    /* A good one applies, and the wire carries what it made. */
    seam_op good[] = { { .kind = SEAM_OP_REMOVE, .id = 2 }, { .kind = SEAM_OP_UPDATE, .id = 1, .message = m } };
    CU_ASSERT_EQUAL(seam_session_apply(s, good, 2, NULL, &err), SEAM_OK);
    size_t before = fake_server_request_count(srv);
    push_answer("ok");
    send_ok(s);
    TU_STR_EQ(wire_messages(before), "x|more|sure");

    /* Back to the first snapshot: the next turn is sent from it. */
    CU_ASSERT_EQUAL(seam_session_set_history(s, h1), SEAM_OK);
    seam_history_free(h1); /* the session keeps its own handle */
    seam_session_append_user_text(s, "again");
    before = fake_server_request_count(srv);
    push_answer("back");
    send_ok(s);
    TU_STR_EQ(wire_messages(before), "hi|hello|again");
    seam_history *h3 = seam_session_history(s);
    /* ids go on from the snapshot's line */
    TU_STR_EQ(items(h3), "1:hi 2:hello 3:again 4:back");
    TU_STR_EQ(items(h2), "1:hi 2:hello 3:more 4:sure");

    /* The older calls keep working over the state: truncate is REMOVEs,
     * clear a CLEAR. */
    seam_session_truncate(s, 1, 1);
    seam_history *h4 = seam_session_history(s);
    TU_STR_EQ(items(h4), "1:hi 4:back");
    seam_session_clear(s);
    CU_ASSERT_EQUAL(seam_session_history_count(s), 0);
    TU_STR_EQ(items(h4), "1:hi 4:back");

    /* A random thread id by default; a bad one refused. */
    seam_session *s2 = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_session_new(oa, NULL, &s2, &err), SEAM_OK);
    seam_history *h5 = seam_session_history(s2);
    CU_ASSERT_EQUAL(strncmp(seam_history_thread_id(h5), "thread_", 7), 0);
    seam_session *s3 = NULL;
    so.thread_id = "";
    CU_ASSERT_EQUAL(seam_session_new(oa, &so, &s3, &err), SEAM_ERR_INVALID);
    CU_ASSERT_PTR_NULL(s3);

    seam_message_free(m);
    STATES_FREE(h2, h3, h4, h5);
    seam_session_free(s);
    seam_session_free(s2);
}

/* ---- the executor's memory ------------------------------------------------------------------------ */

static void test_executor_compression_is_a_compact(void)
{
    seam_session *s = tu_session(oa, NULL);
    seam_error err;
    const char *earlier[] = { "one", "two", "three", "four", "five" };
    for (size_t i = 0; i < 5; i++) {
        seam_message *m = text_msg(i % 2 ? SEAM_ROLE_ASSISTANT : SEAM_ROLE_USER, earlier[i]);
        seam_session_append(s, m);
        seam_message_free(m);
    }
    seam_history *h0 = seam_session_history(s);
    seam_executor_options eo = { .size = sizeof eo, .compress_at_tokens = 1, .keep_first = 1,
                                 .keep_last = 2 };
    seam_executor *ex = tu_executor(s, &eo);
    size_t before = fake_server_request_count(srv);
    push_answer("six");          /* the turn */
    push_answer("a summary");    /* the summary, through auxiliary */
    seam_run *run = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_executor_run(ex, NULL, NULL, &run, &err), SEAM_OK);
    const seam_event *ev;
    char kinds[256] = "";
    int rc;
    while ((rc = seam_run_next(run, &ev, &err)) == 1) {
        strcat(kinds, seam_event_kind_name(ev->kind));
        strcat(kinds, " ");
    }
    CU_ASSERT_EQUAL(rc, 0);
    TU_STR_EQ(kinds, "response context_compressed done ");
    seam_run_free(run);
    CU_ASSERT_EQUAL(fake_server_request_count(srv), before + 2);
    /* The summary request carried the middle (items 2..4). */
    CU_ASSERT_PTR_NOT_NULL(strstr(wire_messages(before + 1), "two"));
    CU_ASSERT_PTR_NOT_NULL(strstr(wire_messages(before + 1), "four"));
    CU_ASSERT_PTR_NULL(strstr(wire_messages(before + 1), "six"));

    /* Kept: the first item and the last two with their ids; the middle is
     * one new item (id 7: the answer took 6). */
    seam_history *h1 = seam_session_history(s);
    CU_ASSERT_EQUAL_FATAL(seam_history_count(h1), 4);
    CU_ASSERT_EQUAL(seam_history_item_id(h1, 0), 1);
    CU_ASSERT_EQUAL(seam_history_item_id(h1, 1), 7);
    CU_ASSERT_PTR_NOT_NULL(strstr(text_at(h1, 1), "a summary"));
    CU_ASSERT_EQUAL(seam_history_item_id(h1, 2), 5);
    CU_ASSERT_EQUAL(seam_history_item_id(h1, 3), 6);
    TU_STR_EQ(text_at(h1, 3), "six");
    /* The state from before the run is whole. */
    TU_STR_EQ(items(h0), "1:one 2:two 3:three 4:four 5:five");
    STATES_FREE(h0, h1);
    seam_executor_free(ex);
    seam_session_free(s);
}

static int tool_add(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    (void)call;
    return seam_tool_output_json(out, "3");
}

static int tool_ask(void *ud, const seam_tool_call *call, seam_tool_output *out)
{
    (void)ud;
    (void)call;
    return seam_tool_output_pause(out, "Which city?");
}

static const char two_calls[] =
    "{\"id\":\"x\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
    "\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
    "{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"add\",\"arguments\":\"{}\"}},"
    "{\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":\"ask\",\"arguments\":\"{}\"}}]},"
    "\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":5}}";

/* Runs run to its end, which must be want_reason, and frees it. */
static void drain(seam_run *run, const char *want_reason)
{
    const seam_event *ev;
    seam_error err;
    const char *reason = "";
    int rc;
    while ((rc = seam_run_next(run, &ev, &err)) == 1)
        if (ev->kind == SEAM_EVENT_DONE)
            reason = ev->reason;
        else if (ev->kind == SEAM_EVENT_ERROR)
            fprintf(stderr, "run: %s\n", ev->error->message);
    CU_ASSERT_EQUAL(rc, 0);
    TU_STR_EQ(reason, want_reason);
    seam_run_free(run);
}

/* The third item of h is the tool message, id 3, holding n results. */
static void tool_item_holds(const seam_history *h, size_t n)
{
    CU_ASSERT_EQUAL(seam_history_item_id(h, 2), 3);
    CU_ASSERT_EQUAL(seam_message_part_count(seam_history_message(h, 2)), n);
}

static void test_executor_resume_is_an_update(void)
{
    seam_session *s = tu_session(oa, NULL);
    seam_error err;
    seam_toolset *ts = seam_toolset_new();
    seam_toolset_add(ts, "add", "Adds", NULL, tool_add, NULL);
    seam_toolset_add(ts, "ask", "Asks a person", NULL, tool_ask, NULL);
    seam_executor_options eo = { .size = sizeof eo, .tools = ts };
    seam_executor *ex = tu_executor(s, &eo);
    fake_server_push_json(srv, 200, two_calls, NULL);
    seam_run *run = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_executor_run(ex, "plan", NULL, &run, &err), SEAM_OK);
    drain(run, "paused");
    /* user, the calls, the tool message with add's result (item 3). */
    seam_history *paused = seam_session_history(s);
    CU_ASSERT_EQUAL_FATAL(seam_history_count(paused), 3);
    tool_item_holds(paused, 1);

    size_t before = fake_server_request_count(srv);
    push_answer("Oslo it is");
    CU_ASSERT_EQUAL_FATAL(seam_executor_resume(ex, "Oslo", NULL, &run, &err), SEAM_OK);
    drain(run, "stop");
    /* The answer joined item 3 (same id, now two results); the paused state
     * still has the one. */
    seam_history *now = seam_session_history(s);
    CU_ASSERT_EQUAL_FATAL(seam_history_count(now), 4);
    tool_item_holds(now, 2);
    tool_item_holds(paused, 1);
    TU_STR_EQ(wire_messages(before), "plan|?|3|Oslo");
    STATES_FREE(paused, now);
    seam_executor_free(ex);
    seam_toolset_free(ts);
    seam_session_free(s);
}

static const tu_test tests[] = {
    { "thread ids: random, given, kept, forked", test_thread_ids },
    { "ADD", test_add },
    { "REMOVE", test_remove },
    { "UPDATE", test_update },
    { "COMPACT", test_compact },
    { "CLEAR", test_clear },
    { "kind names, unknown kind", test_kind_names_and_bad_kind },
    { "batch: each operation sees the ones before", test_batch },
    { "batch: all or nothing, the failing index named", test_batch_all_or_nothing },
    { "immutability: branches off one state", test_branches_do_not_see_each_other },
    { "immutability: appends from many threads", test_appends_from_many_threads },
    { "session: the history is a state (wire)", test_session_history_is_a_state },
    { "executor: compression is a COMPACT (wire)", test_executor_compression_is_a_compact },
    { "executor: a resumed answer is an UPDATE (wire)", test_executor_resume_is_an_update },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("history", tests, start);
}
