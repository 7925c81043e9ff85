/* test_loop_wire.c — the tool loop on the wire, through the OpenAI codec
 * against the fake server: one continuation request holding every result,
 * tool_choice modes, and multimodal input. */
#include "config.h"

#include <CUnit/Basic.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakeserver.h"
#include "testutil.h"
#include <seam/seam.h>
#include "tu_loop.h"


/* ---- the wire, through the OpenAI codec and the fake server ----------------------------------------- */

static json_object *body_at(size_t i)
{
    const char *b = fake_server_request_body(srv, i);
    return b ? json_tokener_parse(b) : NULL;
}

/* The value at a dotted path ("messages.1.role"); borrowed from root. */
static json_object *at(json_object *root, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_object *cur = root;
    for (char *save = NULL, *seg = strtok_r(buf, ".", &save); seg && cur; seg = strtok_r(NULL, ".", &save)) {
        if (json_object_is_type(cur, json_type_array)) {
            size_t i = (size_t)strtoul(seg, NULL, 10);
            cur = i < json_object_array_length(cur) ? json_object_array_get_idx(cur, i) : NULL;
        } else if (!json_object_object_get_ex(cur, seg, &cur)) {
            cur = NULL;
        }
    }
    return cur;
}

static const char *str_at(json_object *root, const char *path)
{
    json_object *v = at(root, path);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

static const char three_calls_answer[] =
    "{\"id\":\"x1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
    "\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
    "{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"add\",\"arguments\":\"{\\\"a\\\":1,\\\"b\\\":1}\"}},"
    "{\"id\":\"call_2\",\"type\":\"function\",\"function\":{\"name\":\"add\",\"arguments\":\"{\\\"a\\\":2,\\\"b\\\":2}\"}},"
    "{\"id\":\"call_3\",\"type\":\"function\",\"function\":{\"name\":\"add\",\"arguments\":\"{\\\"a\\\":3,\\\"b\\\":3}\"}}]},"
    "\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":30}}";

static const char text_answer[] =
    "{\"id\":\"x2\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
    "\"message\":{\"role\":\"assistant\",\"content\":\"2, 4 and 6.\"},\"finish_reason\":\"stop\"}],"
    "\"usage\":{\"prompt_tokens\":90,\"completion_tokens\":8}}";

/* seam_loop_generate on the OpenAI plugin of req (may be NULL) and prompt,
 * with ts's tools; it must succeed. The generation is the caller's. */
static seam_generation *oa_generate(const seam_request *req, const char *prompt, seam_toolset *ts)
{
    seam_loop_options o;
    seam_loop_options_init(&o);
    o.prompt = prompt;
    o.tools = ts;
    seam_generation *g = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(seam_loop_generate(oa, req, &o, &g, &err), SEAM_OK);
    return g;
}

/* A generation on the OpenAI plugin (oa_generate) with the fake server
 * answering answers (NULL-ended) in turn, and the requests it sent. */
typedef struct wire_run {
    seam_generation *g;
    size_t sent;          /* how many requests */
    json_object *body[4]; /* the first ones' bodies, parsed */
} wire_run;

static wire_run wire_run_of(const seam_request *req, const char *prompt, seam_toolset *ts,
                            const char *const *answers)
{
    wire_run w = { 0 };
    size_t before = fake_server_request_count(srv);
    for (; *answers; answers++)
        fake_server_push_json(srv, 200, *answers, NULL);
    w.g = oa_generate(req, prompt, ts);
    w.sent = fake_server_request_count(srv) - before;
    for (size_t i = 0; i < w.sent && i < 4; i++)
        w.body[i] = body_at(before + i);
    return w;
}

static void wire_run_free(wire_run *w)
{
    for (size_t i = 0; i < 4; i++)
        json_object_put(w->body[i]);
    seam_generation_free(w->g);
}

static void test_wire_one_continuation_request(void)
{
    if (!oa)
        return;
    seam_toolset *ts = tools_with_add();
    wire_run w = wire_run_of(NULL, "double 1, 2 and 3", ts, (const char *const[]){ three_calls_answer, text_answer, NULL });
    CU_ASSERT_STRING_EQUAL(seam_generation_text(w.g), "2, 4 and 6.");
    CU_ASSERT_EQUAL_FATAL(w.sent, 2);
    json_object *first = w.body[0], *second = w.body[1];
    CU_ASSERT_STRING_EQUAL(str_at(first, "tools.0.function.name"), "add");
    /* user, assistant with three calls, then the three results, in that order. */
    CU_ASSERT_EQUAL(json_object_array_length(at(second, "messages")), 5);
    CU_ASSERT_STRING_EQUAL(str_at(second, "messages.1.role"), "assistant");
    CU_ASSERT_EQUAL(json_object_array_length(at(second, "messages.1.tool_calls")), 3);
    const char *want[3][2] = { { "call_1", "2" }, { "call_2", "4" }, { "call_3", "6" } };
    for (int i = 0; i < 3; i++) {
        char p[64];
        snprintf(p, sizeof p, "messages.%d.role", i + 2);
        CU_ASSERT_STRING_EQUAL(str_at(second, p), "tool");
        snprintf(p, sizeof p, "messages.%d.tool_call_id", i + 2);
        CU_ASSERT_STRING_EQUAL(str_at(second, p), want[i][0]);
        snprintf(p, sizeof p, "messages.%d.content", i + 2);
        CU_ASSERT_STRING_EQUAL(str_at(second, p), want[i][1]);
    }
    CU_ASSERT_EQUAL(seam_generation_usage(w.g)->output_tokens, 38);
    wire_run_free(&w);
    seam_toolset_free(ts);
}

static void test_wire_tool_choice_modes(void)
{
    if (!oa)
        return;
    seam_toolset *ts = tools_with_add();
    struct { seam_tool_choice choice; const char *name; const char *want; } modes[] = {
        { SEAM_TOOL_CHOICE_AUTO, NULL, "auto" },
        { SEAM_TOOL_CHOICE_NONE, NULL, "none" },
        { SEAM_TOOL_CHOICE_REQUIRED, NULL, "required" },
        { SEAM_TOOL_CHOICE_NAMED, "add", NULL },
    };
    for (size_t i = 0; i < 4; i++) {
        seam_request *req = seam_request_new();
        seam_request_set_tool_choice(req, modes[i].choice, modes[i].name);
        wire_run w = wire_run_of(req, "hi", ts, (const char *const[]){ text_answer, NULL });
        if (modes[i].want) {
            CU_ASSERT_STRING_EQUAL(str_at(w.body[0], "tool_choice"), modes[i].want);
        } else {
            CU_ASSERT_STRING_EQUAL(str_at(w.body[0], "tool_choice.function.name"), "add");
        }
        wire_run_free(&w);
        seam_request_free(req);
    }
    /* A forced choice is kept for the first turn only: the continuation is free. */
    seam_request *req = seam_request_new();
    seam_request_set_tool_choice(req, SEAM_TOOL_CHOICE_REQUIRED, NULL);
    wire_run w = wire_run_of(req, "hi", ts, (const char *const[]){ three_calls_answer, text_answer, NULL });
    CU_ASSERT_STRING_EQUAL(str_at(w.body[0], "tool_choice"), "required");
    CU_ASSERT_STRING_EQUAL(str_at(w.body[1], "tool_choice"), "auto");
    wire_run_free(&w);
    seam_request_free(req);
    seam_toolset_free(ts);
}

static void test_wire_multimodal(void)
{
    if (!oa)
        return;
    static const char png[] = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    for (int url = 0; url <= 1; url++) {
        seam_request *req = seam_request_new();
        seam_message *m = seam_message_new(SEAM_ROLE_USER);
        seam_message_add_text(m, "What is in this picture?");
        if (url)
            seam_message_add_media(m, "image/jpeg", SEAM_MEDIA_URL, "https://example.org/cat.jpg");
        else
            seam_message_add_media(m, "image/png", SEAM_MEDIA_BASE64, png);
        seam_request_add_message(req, m);
        wire_run w = wire_run_of(req, NULL, NULL, (const char *const[]){ text_answer, NULL });
        json_object *b = w.body[0];
        CU_ASSERT_STRING_EQUAL(str_at(b, "messages.0.content.0.type"), "text");
        CU_ASSERT_STRING_EQUAL(str_at(b, "messages.0.content.0.text"), "What is in this picture?");
        CU_ASSERT_STRING_EQUAL(str_at(b, "messages.0.content.1.type"), "image_url");
        char want[256];
        if (url)
            snprintf(want, sizeof want, "https://example.org/cat.jpg");
        else
            snprintf(want, sizeof want, "data:image/png;base64,%s", png);
        CU_ASSERT_STRING_EQUAL(str_at(b, "messages.0.content.1.image_url.url"), want);
        wire_run_free(&w);
        seam_request_free(req);
    }
}

static const tu_test tests[] = {
    { "wire: one continuation request", test_wire_one_continuation_request },
    { "wire: tool_choice modes", test_wire_tool_choice_modes },
    { "wire: multimodal", test_wire_multimodal },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("loop_wire", tests, start);
}
