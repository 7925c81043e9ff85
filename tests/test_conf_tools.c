/* test_conf_tools.c — the conf's command tools (libcore/conf_tools.c): every
 * key of a `tools` entry read back, and each check with its FILE:LINE. */
#include "config.h"
#include "internal.h"
#include "transport.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "tu_conf.h"


/* As expect_error, for a message that starts with want_prefix and goes on
 * (a reason worded by a library). */
static void expect_error_prefix(const char *text, const char *want_prefix)
{
    seam_conf *conf = (seam_conf *)0x1;
    seam_error err;
    char *dir = NULL;
    CU_ASSERT_EQUAL(load_text(text, &conf, &err, &dir), SEAM_ERR_CONF);
    CU_ASSERT_PTR_NULL(conf);
    seam_buf want = {0};
    seam_buf_printf(&want, "%s/seam.conf:%s", dir, want_prefix);
    if (strncmp(err.message, want.data, want.len) != 0 || strlen(err.message) <= want.len) {
        fprintf(stderr, "\n got: %s\nwant: %s...\n", err.message, want.data);
        CU_FAIL("conf error message");
    }
    seam_buf_free(&want);
    remove_tree(dir);
}

/* ---- tools (commands) ----------------------------------------------------------------------------- */

static const char tools_text[] =
    "tools = {\n"
    "  add = {\n"
    "    description = \"Adds two integers\";\n"
    "    parameters = \"{\\\"type\\\": \\\"object\\\", \\\"properties\\\": {\\\"a\\\": {\\\"type\\\": \\\"integer\\\"}},"
    " \\\"required\\\": [\\\"a\\\"]}\";\n"
    "    command = \"python3 -c 'import json,sys; print(1)'\";\n"
    "    timeout_ms = 2500;\n"
    "  };\n"
    "  now = { description = \"The time\"; command = \"date\"; };\n"
    "};\n";

static void test_tools_every_key(void)
{
    seam_conf *c = NULL;
    seam_error err;
    char *dir = NULL;
    int rc = load_text(tools_text, &c, &err, &dir);
    if (rc != SEAM_OK)
        fprintf(stderr, "\n%s\n", err.message);
    CU_ASSERT_EQUAL_FATAL(rc, SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(c->n_tools, 2);
    const seam_conf_tool *t = seam_conf_find_tool(c, "add");
    CU_ASSERT_PTR_EQUAL_FATAL(t, &c->tools[0]);
    CU_ASSERT_STRING_EQUAL(t->name, "add");
    CU_ASSERT_STRING_EQUAL(t->description, "Adds two integers");
    CU_ASSERT_STRING_EQUAL(t->parameters_json,
                           "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"integer\"}},"
                           " \"required\": [\"a\"]}");
    CU_ASSERT_STRING_EQUAL(t->command, "python3 -c 'import json,sys; print(1)'");
    CU_ASSERT_EQUAL(t->timeout_ms, 2500);
    CU_ASSERT_EQUAL(t->line, 2);
    char *want = tu_path(dir, "seam.conf");
    CU_ASSERT_STRING_EQUAL(t->file, want);
    free(want);
    /* Optional keys: no schema (arguments not validated), no timeout. */
    t = seam_conf_find_tool(c, "now");
    CU_ASSERT_PTR_EQUAL_FATAL(t, &c->tools[1]);
    CU_ASSERT_PTR_NULL(t->parameters_json);
    CU_ASSERT_EQUAL(t->timeout_ms, 0);
    CU_ASSERT_STRING_EQUAL(t->command, "date");
    CU_ASSERT_EQUAL(t->line, 8);
    CU_ASSERT_PTR_NULL(seam_conf_find_tool(c, "nope"));
    CU_ASSERT_PTR_NULL(seam_conf_find_tool(c, NULL));
    seam_conf_free(c);
    remove_tree(dir);

    /* No tools at all. */
    c = loaded("tools = { };\n", NULL);
    CU_ASSERT_EQUAL(c->n_tools, 0);
    seam_conf_free(c);
}

static void test_tools_errors(void)
{
    expect_error("tools = {\n  t = { description = \"d\"; command = \"true\";\n    comand = \"x\"; };\n};\n",
                 "3: unknown setting tools.t.comand (expected one of: description, parameters, "
                 "command, timeout_ms)");
    expect_error("tools = {\n  t = { description = \"d\"; command = \"true\";\n"
                 "    parameters = \"{\\\"type\\\": \\\"object\\\",\"; };\n};\n",
                 "3: tools.t.parameters is not JSON: the text ends too early");
    /* json-c's reason follows (its wording varies between versions). Strict
     * JSON, as the codecs read it: no bare words, no single quotes. */
    expect_error_prefix("tools = {\n  t = { description = \"d\"; command = \"true\";\n"
                        "    parameters = \"{type: object}\"; };\n};\n",
                        "3: tools.t.parameters is not JSON: ");
    expect_error_prefix("tools = {\n  t = { description = \"d\"; command = \"true\";\n"
                        "    parameters = \"{'type': 'object'}\"; };\n};\n",
                        "3: tools.t.parameters is not JSON: ");
    expect_error_prefix("tools = {\n  t = { description = \"d\"; command = \"true\";\n"
                        "    parameters = \"{} {}\"; };\n};\n",
                        "3: tools.t.parameters is not JSON: ");
    expect_error("tools = {\n  t = { description = \"d\"; command = \"true\";\n"
                 "    parameters = \"[1, 2]\"; };\n};\n",
                 "3: tools.t.parameters must be a JSON Schema object { ... }");
    /* A pattern PCRE2 refuses (issue 11.2: an unclosed "[" once read past
     * the pattern's end, and "config check" said ok). */
    expect_error("tools = {\n  t = { description = \"d\"; command = \"true\";\n"
                 "    parameters = \"{\\\"properties\\\": {\\\"q\\\": {\\\"pattern\\\": "
                 "\\\"[abcdefghijklmnopqrstuvwxyz0123456789\\\"}}}\"; };\n};\n",
                 "3: tools.t.parameters: invalid schema: pattern \"[abcdefghijklmnopqrstuvwxyz0123456789\" "
                 "at offset 37: missing terminating ] for character class");
    expect_error("tools = {\n  t = { description = \"d\"; command = \"true\";\n"
                 "    parameters = \"\"; };\n};\n",
                 "3: tools.t.parameters is not JSON: the text ends too early");
    expect_error("tools = {\n  t = { description = \"d\"; command = \"true\";\n"
                 "    parameters = { type = \"object\"; }; };\n};\n",
                 "3: tools.t.parameters must be a string holding a JSON Schema object, not a group");
    expect_error("tools = {\n  t = { description = \"d\"; };\n};\n", "2: tools.t has no command");
    expect_error("tools = {\n  t = { command = \"true\"; };\n};\n",
                 "2: tools.t has no description (what the model reads to choose it)");
    expect_error("tools = {\n  t = { description = \"d\"; command = \"\"; };\n};\n",
                 "2: tools.t.command must be a non-empty string");
    expect_error("tools = {\n  t = { description = \"d\"; command = \"true\";\n timeout_ms = 0; };\n};\n",
                 "3: tools.t.timeout_ms must be > 0");
    expect_error("tools = ( 1 );\n", "1: tools must be a group { ... }, not a list");
    expect_error("tools = {\n  t = \"true\";\n};\n", "2: tools.t must be a group { ... }, not a string");
    expect_error("tools = {\n  a123456789012345678901234567890123456789012345678901234567890123456 = {\n"
                 "    description = \"d\"; command = \"true\"; };\n};\n",
                 "2: tools.a123456789012345678901234567890123456789012345678901234567890123456: "
                 "a tool name has at most 64 characters");
    /* Exactly 64 characters is fine. */
    seam_conf *c = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(load_text("tools = { a123456789012345678901234567890123456789012345678901234567890123 = {"
                              " description = \"d\"; command = \"true\"; }; };\n",
                              &c, &err, NULL), SEAM_OK);
    seam_conf_free(c);
    /* A duplicate in one file is libconfig's error; across files, both are named. */
    expect_dropin_error("tools = {\n  t = { description = \"d\"; command = \"true\"; };\n};\n",
                        "\n\ntools = { t = { description = \"e\"; command = \"false\"; }; };\n",
                        "%s/conf.d/50-pkg.conf:3: tool \"t\" already defined in %s/seam.conf:2");
    /* Tools from a drop-in add to the main file's. */
    char *dir = NULL;
    CU_ASSERT_EQUAL(load_with_dropin("tools = { a = { description = \"d\"; command = \"true\"; }; };\n",
                                     "tools = { b = { description = \"d\"; command = \"true\"; }; };\n",
                                     &dir, &err), SEAM_OK);
    remove_tree(dir);
}

static const tu_test tests[] = {
    { "tools: every key", test_tools_every_key },
    { "tools: errors with FILE:LINE", test_tools_errors },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("conf_tools", tests, NULL);
}
