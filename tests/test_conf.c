/* test_conf.c — the conf file (libcore/config.c, conf_*.c): every key read
 * back with its defaults, conf.d/ merge order and duplicates naming both
 * files, syntax and type errors with FILE:LINE, unknown keys and references,
 * options as JSON, discovery order, every number's range, hostile bytes, the
 * newer provider and chain keys, the state overlay, and the command tools
 * (`tools`) with their checks (credentials and key commands:
 * test_conf_credentials.c; the client's accessors are exercised by run-cli.sh:
 * this program links the conf modules only). */
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

/* ---- helpers ------------------------------------------------------------------- */


/* got is the path dir/name (one assertion). */
static void expect_in_dir(const char *got, const char *dir, const char *name)
{
    char *want = tu_path(dir, name);
    CU_ASSERT_STRING_EQUAL(got, want);
    free(want);
}

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

static const char *srcdir_file(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/tests/conf/%s", TOP_SRCDIR, name);
    return path;
}

static const char *json_str(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* ---- a good conf, every key ------------------------------------------------------------ */

static void test_good_conf_every_key(void)
{
    seam_conf *c = NULL;
    seam_error err;
    seam_error_clear(&err);
    int rc = seam_conf_load(srcdir_file("good.conf"), &c, &err);
    if (rc != SEAM_OK)
        fprintf(stderr, "\n%s\n", err.message);
    CU_ASSERT_EQUAL_FATAL(rc, SEAM_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(c->path, srcdir_file("good.conf"));

    /* plugin_path: relative to the file's directory. */
    CU_ASSERT_EQUAL_FATAL(c->n_plugin_path, 2);
    CU_ASSERT_STRING_EQUAL(c->plugin_path[0], TOP_SRCDIR "/tests/conf/plugins");
    CU_ASSERT_STRING_EQUAL(c->plugin_path[1], "/opt/seam/plugins");

    CU_ASSERT_EQUAL_FATAL(c->n_providers, 4);
    const seam_conf_provider *p = seam_conf_find_provider(c, "openai");
    CU_ASSERT_PTR_EQUAL_FATAL(p, &c->providers[0]);
    CU_ASSERT_STRING_EQUAL(p->name, "openai");
    CU_ASSERT_STRING_EQUAL(p->plugin, "openai");
    CU_ASSERT_STRING_EQUAL(p->base_url, "https://api.openai.com/v1");
    CU_ASSERT_STRING_EQUAL(p->api_key_env, "OPENAI_API_KEY");
    CU_ASSERT_PTR_NULL(p->api_key_file);
    CU_ASSERT_PTR_NULL(p->api_key_command);
    CU_ASSERT_PTR_NULL(p->api_key);
    CU_ASSERT_EQUAL(p->timeout_ms, 600001);
    CU_ASSERT_EQUAL(p->connect_timeout_ms, 10001);
    CU_ASSERT_EQUAL(p->idle_timeout_ms, 60001);
    CU_ASSERT_EQUAL(p->max_response_bytes, 67108865);
    CU_ASSERT_STRING_EQUAL(p->file, srcdir_file("good.conf"));
    CU_ASSERT_EQUAL(p->line, 6);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p->options_json);
    json_object *opts = json_tokener_parse(p->options_json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(opts);
    CU_ASSERT_TRUE(json_object_is_type(opts, json_type_object));
    CU_ASSERT_EQUAL(json_object_object_length(opts), 9);
    json_object_put(opts);

    p = seam_conf_find_provider(c, "local");
    CU_ASSERT_PTR_EQUAL_FATAL(p, &c->providers[1]);
    CU_ASSERT_STRING_EQUAL(p->plugin, "openai");
    CU_ASSERT_STRING_EQUAL(p->api_key_file, TOP_SRCDIR "/tests/conf/keys/local");
    CU_ASSERT_STRING_EQUAL(p->options_json, "{}");

    p = seam_conf_find_provider(c, "vault");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(p->api_key_command, "cat /nonexistent");

    /* An empty provider: every default. */
    p = seam_conf_find_provider(c, "mock");
    CU_ASSERT_PTR_EQUAL_FATAL(p, &c->providers[3]);
    CU_ASSERT_STRING_EQUAL(p->plugin, "mock");
    CU_ASSERT_PTR_NULL(p->base_url);
    CU_ASSERT_PTR_NULL(p->api_key_env);
    CU_ASSERT_EQUAL(p->timeout_ms, 600000);
    CU_ASSERT_EQUAL(p->connect_timeout_ms, 10000);
    CU_ASSERT_EQUAL(p->idle_timeout_ms, 60000);
    CU_ASSERT_EQUAL(p->max_response_bytes, 64 * 1024 * 1024);
    CU_ASSERT_STRING_EQUAL(p->options_json, "{}");
    CU_ASSERT_PTR_NULL(seam_conf_find_provider(c, "nope"));
    CU_ASSERT_PTR_NULL(seam_conf_find_provider(c, NULL));

    CU_ASSERT_EQUAL_FATAL(c->n_chains, 2);
    const seam_conf_chain *ch = seam_conf_find_chain(c, "default");
    CU_ASSERT_PTR_EQUAL_FATAL(ch, &c->chains[0]);
    CU_ASSERT_STRING_EQUAL(ch->file, srcdir_file("good.conf"));
    CU_ASSERT_EQUAL(ch->line, 32);
    CU_ASSERT_EQUAL_FATAL(ch->n_entries, 2);
    CU_ASSERT_STRING_EQUAL(ch->entries[0].provider, "openai");
    CU_ASSERT_STRING_EQUAL(ch->entries[0].model, "gpt-4.1-mini");
    CU_ASSERT_EQUAL(ch->entries[0].max_attempts, 2);
    CU_ASSERT_EQUAL(ch->entries[0].backoff.base_ms, 250);
    CU_ASSERT_EQUAL(ch->entries[0].backoff.max_ms, 8000);
    CU_ASSERT_DOUBLE_EQUAL(ch->entries[0].backoff.jitter, 0.25, 1e-9);
    /* Entry defaults. */
    CU_ASSERT_STRING_EQUAL(ch->entries[1].provider, "mock");
    CU_ASSERT_EQUAL(ch->entries[1].max_attempts, 1);
    CU_ASSERT_EQUAL(ch->entries[1].backoff.base_ms, 500);
    CU_ASSERT_EQUAL(ch->entries[1].backoff.max_ms, 20000);
    CU_ASSERT_DOUBLE_EQUAL(ch->entries[1].backoff.jitter, 0.1, 1e-9);
    /* Chain defaults. */
    CU_ASSERT_EQUAL(ch->retry_after_cap_ms, 60000);
    CU_ASSERT_EQUAL(ch->cooldown_ms, 30000);
    CU_ASSERT_PTR_NULL(ch->context_overflow_fallback);
    CU_ASSERT_PTR_NULL(ch->content_filter_fallback);

    ch = seam_conf_find_chain(c, "big");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
    CU_ASSERT_EQUAL_FATAL(ch->n_entries, 1);
    CU_ASSERT_STRING_EQUAL(ch->entries[0].model, "llama3");
    CU_ASSERT_EQUAL(ch->retry_after_cap_ms, 120000);
    CU_ASSERT_EQUAL(ch->cooldown_ms, 5000);
    CU_ASSERT_STRING_EQUAL(ch->context_overflow_fallback, "default");
    CU_ASSERT_STRING_EQUAL(ch->content_filter_fallback, "default");
    CU_ASSERT_PTR_NULL(seam_conf_find_chain(c, "nope"));

    CU_ASSERT_EQUAL_FATAL(c->n_roles, 2);
    CU_ASSERT_STRING_EQUAL(c->roles[0].name, "assistant");
    CU_ASSERT_STRING_EQUAL(c->roles[0].chain, "default");
    CU_ASSERT_STRING_EQUAL(c->roles[1].name, "summarizer");
    CU_ASSERT_STRING_EQUAL(c->roles[1].chain, "big");
    CU_ASSERT_EQUAL(c->n_warnings, 0);
    seam_conf_free(c);
}

static void test_empty_and_null_conf(void)
{
    seam_conf *c = loaded_file(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_NULL(c->path);
    CU_ASSERT_EQUAL(c->n_providers + c->n_chains + c->n_roles + c->n_plugin_path, 0);
    seam_conf_free(c);

    c = loaded("# nothing but a comment\n", NULL);
    CU_ASSERT_EQUAL(c->n_providers + c->n_chains + c->n_roles + c->n_plugin_path, 0);
    seam_conf_free(c);
    seam_conf_free(NULL);
}

static void test_relative_conf_path(void)
{
    /* A conf given as a relative path still yields absolute plugin and key paths:
     * the caller may chdir later. */
    char *dir = make_temp_dir();
    free(write_file(dir, "rel.conf",
                    "plugin_path = [ \"p\" ];\n"
                    "providers = { a = { api_key_file = \"k\"; }; };\n", 0600));
    char old[4096];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(old, sizeof old));
    CU_ASSERT_FATAL(chdir(dir) == 0);
    seam_conf *c = NULL;
    seam_error err;
    seam_error_clear(&err);
    int rc = seam_conf_load("rel.conf", &c, &err);
    CU_ASSERT_FATAL(chdir(old) == 0);
    CU_ASSERT_EQUAL_FATAL(rc, SEAM_OK);
    expect_in_dir(c->plugin_path[0], dir, "p");
    expect_in_dir(c->providers[0].api_key_file, dir, "k");
    seam_conf_free(c);
    remove_tree(dir);
}

/* ---- conf.d/ ------------------------------------------------------------------------------ */

static void test_conf_d_merge_in_name_order(void)
{
    char *dir = make_temp_dir();
    char *main_conf = write_file(dir, "seam.conf",
                                 "plugin_path = [ \"main\" ];\n"
                                 "providers = { a = { plugin = \"mock\"; }; };\n"
                                 /* b is only defined in a drop-in: references cross files */
                                 "chains = { default = ( { provider = \"b\"; model = \"m\"; } ); };\n",
                                 0600);
    make_dir(dir, "conf.d");
    free(write_file(dir, "conf.d/20-b.conf",
                    "plugin_path = [ \"/abs/twenty\" ];\n"
                    "providers = { b = { plugin = \"mock\"; }; };\n"
                    "roles = { assistant = \"other\"; };\n", 0644));
    free(write_file(dir, "conf.d/10-c.conf",
                    "plugin_path = [ \"ten\" ];\n"
                    "providers = { c = { plugin = \"mock\"; }; };\n"
                    "chains = { other = ( { provider = \"c\"; model = \"m\"; } ); };\n", 0644));
    /* strcmp order, not locale order: "10-" < "20-" < "A-". */
    free(write_file(dir, "conf.d/A-d.conf", "providers = { d = { }; };\n", 0644));
    /* Not drop-ins: a dotfile, another suffix, a bare ".conf", a directory. */
    free(write_file(dir, "conf.d/.hidden.conf", "this is not libconfig\n", 0644));
    free(write_file(dir, "conf.d/notes.txt", "neither is this\n", 0644));
    free(write_file(dir, "conf.d/x.conf.bak", "nor this\n", 0644));
    free(write_file(dir, "conf.d/.conf", "nor this\n", 0644));
    make_dir(dir, "conf.d/sub.conf");

    seam_conf *c = NULL;
    seam_error err;
    seam_error_clear(&err);
    int rc = seam_conf_load(main_conf, &c, &err);
    if (rc != SEAM_OK)
        fprintf(stderr, "\n%s\n", err.message);
    CU_ASSERT_EQUAL_FATAL(rc, SEAM_OK);
    CU_ASSERT_EQUAL_FATAL(c->n_providers, 4);
    CU_ASSERT_STRING_EQUAL(c->providers[0].name, "a");
    CU_ASSERT_STRING_EQUAL(c->providers[1].name, "c");
    CU_ASSERT_STRING_EQUAL(c->providers[2].name, "b");
    CU_ASSERT_STRING_EQUAL(c->providers[3].name, "d");
    expect_in_dir(c->providers[2].file, dir, "conf.d/20-b.conf");
    CU_ASSERT_EQUAL(c->providers[2].line, 2);

    /* plugin_path entries append; relative ones resolve in their own file's dir. */
    CU_ASSERT_EQUAL_FATAL(c->n_plugin_path, 3);
    expect_in_dir(c->plugin_path[0], dir, "main");
    expect_in_dir(c->plugin_path[1], dir, "conf.d/ten");
    CU_ASSERT_STRING_EQUAL(c->plugin_path[2], "/abs/twenty");

    CU_ASSERT_EQUAL(c->n_chains, 2);
    CU_ASSERT_EQUAL_FATAL(c->n_roles, 1);
    CU_ASSERT_STRING_EQUAL(c->roles[0].chain, "other");
    seam_conf_free(c);
    free(main_conf);
    remove_tree(dir);
}

static void test_conf_d_duplicates_name_both_files(void)
{
    expect_dropin_error("providers = {\n  x = { };\n};\n",
                        "\nproviders = { x = { plugin = \"other\"; }; };\n",
                        "%s/conf.d/50-pkg.conf:2: provider \"x\" already defined in "
                        "%s/seam.conf:2");
    expect_dropin_error("providers = { p = { }; };\nchains = { c = ( { provider = \"p\"; model = \"m\"; } ); };\n",
                        "chains = { c = ( { provider = \"p\"; model = \"n\"; } ); };\n",
                        "%s/conf.d/50-pkg.conf:1: chain \"c\" already defined in %s/seam.conf:2");
    expect_dropin_error("providers = { p = { }; };\nchains = { c = ( { provider = \"p\"; model = \"m\"; } ); };\n"
                        "roles = { r = \"c\"; };\n",
                        "roles = {\n  r = \"c\";\n};\n",
                        "%s/conf.d/50-pkg.conf:2: role \"r\" already defined in %s/seam.conf:3");
    /* A syntax error in a drop-in names the drop-in. */
    expect_dropin_error("providers = { p = { }; };\n", "providers = {\n  q = { plugin = ; };\n};\n",
                        "%s/conf.d/50-pkg.conf:2: syntax error");
}

/* ---- errors with FILE:LINE --------------------------------------------------------------------- */

static void test_syntax_error_has_file_and_line(void)
{
    expect_error("providers = {\n  a = { };\n  b = ;\n};\n", "3: syntax error");
    expect_error("providers = { a = { }; };\nproviders = { b = { }; };\n",
                 "2: duplicate setting name");

    seam_conf *c = NULL;
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_conf_load(srcdir_file("bad-syntax.conf"), &c, &err), SEAM_ERR_CONF);
    CU_ASSERT_PTR_NULL(c);
    seam_buf want = {0};
    seam_buf_printf(&want, "%s:4: syntax error", srcdir_file("bad-syntax.conf"));
    CU_ASSERT_STRING_EQUAL(err.message, want.data);
    seam_buf_free(&want);

    /* A missing file. */
    expect_load_error("/nonexistent/seam.conf", ": cannot read: No such file or directory");
}

static void test_wrong_type_has_file_line_and_expected(void)
{
    expect_load_error(srcdir_file("bad-type.conf"),
                      ":4: providers.mock.timeout_ms must be an integer, not a string");

    expect_error("providers = {\n a = { plugin = 1; };\n};\n",
                 "2: providers.a.plugin must be a string, not an integer");
    expect_error("providers = { a = { plugin = \"\"; }; };\n",
                 "1: providers.a.plugin must be a non-empty string");
    expect_error("providers = { a = { timeout_ms = 0; }; };\n", "1: providers.a.timeout_ms must be > 0");
    expect_error("providers = { a = { idle_timeout_ms = -5; }; };\n",
                 "1: providers.a.idle_timeout_ms must be > 0");
    expect_error("providers = { a = { connect_timeout_ms = 1.5; }; };\n",
                 "1: providers.a.connect_timeout_ms must be an integer, not a float");
    expect_error("providers = { a = { options = \"{}\"; }; };\n",
                 "1: providers.a.options must be a group { ... }, not a string");
    expect_error("providers = ( 1 );\n", "1: providers must be a group { ... }, not a list");
    expect_error("providers = { a = 3; };\n", "1: providers.a must be a group { ... }, not an integer");
    expect_error("plugin_path = \"/x\";\n",
                 "1: plugin_path must be an array of strings [ \"...\" ], not a string");
    expect_error("plugin_path = [ 1 ];\n", "1: plugin_path[0] must be a string, not an integer");
    expect_error("providers = { p = { }; };\n"
                 "chains = { c = (\n { provider = \"p\"; model = \"m\"; max_attempts = 0; } ); };\n",
                 "3: chains.c[0].max_attempts must be > 0");
    expect_error("providers = { p = { }; };\n"
                 "chains = { c = ( { provider = \"p\"; model = \"m\"; },\n"
                 "  { provider = \"p\"; model = \"m\"; max_attempts = \"2\"; } ); };\n",
                 "3: chains.c[1].max_attempts must be an integer, not a string");
    expect_error("providers = { p = { }; };\n"
                 "chains = { c = ( { provider = \"p\"; model = \"m\";\n"
                 "  backoff = { jitter = \"lots\"; }; } ); };\n",
                 "3: chains.c[0].backoff.jitter must be a number, not a string");
    expect_error("providers = { p = { }; };\n"
                 "chains = { c = ( { provider = \"p\"; model = \"m\";\n"
                 "  backoff = { jitter = 1.5; }; } ); };\n",
                 "3: chains.c[0].backoff.jitter must be between 0 and 1");
    expect_error("providers = { p = { }; };\n"
                 "chains = { c = ( { provider = \"p\"; model = \"m\";\n"
                 "  backoff = { base_ms = 100;\n max_ms = 10; }; } ); };\n",
                 "4: chains.c[0].backoff.max_ms (10) must be >= base_ms (100)");
    expect_error("providers = { p = { }; };\nchains = { c = \"p\"; };\n",
                 "2: chains.c must be a list of entries ( { ... } ) or a group { entries = ( ... ); }, "
                 "not a string");
    expect_error("providers = { p = { }; };\nchains = { c = ( \"p\" ); };\n",
                 "2: chains.c[0] must be a group { ... }, not a string");
    expect_error("providers = { p = { }; };\nchains = { c = ( ); };\n", "2: chains.c has no entries");
    expect_error("providers = { p = { }; };\nchains = { c = { cooldown_ms = 1; }; };\n",
                 "2: chains.c has no entries");
    expect_error("providers = { p = { }; };\nchains = { c = { entries = ( { provider = \"p\"; model = \"m\"; } );\n"
                 " cooldown_ms = -1; }; };\n",
                 "3: chains.c.cooldown_ms must be >= 0");
    expect_error("providers = { p = { }; };\nchains = { c = ( { provider = \"p\"; } ); };\n",
                 "2: chains.c[0] has no model");
    expect_error("providers = { p = { }; };\nchains = { c = ( { model = \"m\"; } ); };\n",
                 "2: chains.c[0] has no provider");
    expect_error("roles = { r = 1; };\n", "1: roles.r must be a string, not an integer");
}

static void test_integers_accept_int_and_int64(void)
{
    seam_conf *c = loaded("providers = { a = { max_response_bytes = 8589934592L;\n"
                          " timeout_ms = 0x10; }; };\n",
                          NULL);
    CU_ASSERT_EQUAL(c->providers[0].max_response_bytes, 8589934592LL);
    CU_ASSERT_EQUAL(c->providers[0].timeout_ms, 16);
    seam_conf_free(c);
    /* Jitter written as an integer is a number too. */
    c = loaded("providers = { p = { }; };\n"
               "chains = { c = ( { provider = \"p\"; model = \"m\";"
               " backoff = { jitter = 0; }; } ); };\n",
               NULL);
    CU_ASSERT_DOUBLE_EQUAL(c->chains[0].entries[0].backoff.jitter, 0.0, 1e-12);
    seam_conf_free(c);
}

static void test_unknown_keys(void)
{
    expect_error("providers = {\n a = { plugin = \"x\";\n  api_kye = \"K\"; };\n};\n",
                 "3: unknown setting providers.a.api_kye (expected one of: plugin, base_url, "
                 "api_key_env, api_key_file, api_key_command, api_key, api_keys_env, "
                 "api_key_files, api_key_commands, key_selection, rate_limit_guard, "
                 "api_key_ttl_ms, api_key_command_timeout_ms, timeout_ms, connect_timeout_ms, "
                 "idle_timeout_ms, max_response_bytes, ca_file, ca_path, options, default_model)");
    expect_error("providers = { p = { }; };\n"
                 "chains = { c = ( { provider = \"p\";\n modle = \"m\"; } ); };\n",
                 "3: unknown setting chains.c[0].modle (expected one of: provider, model, "
                 "max_attempts, backoff)");
    expect_error("providers = { p = { }; };\n"
                 "chains = { c = ( { provider = \"p\"; model = \"m\"; backoff = { base = 1; }; } ); };\n",
                 "2: unknown setting chains.c[0].backoff.base (expected one of: base_ms, max_ms, "
                 "jitter)");
    expect_error("providers = { p = { }; };\n"
                 "chains = { c = { entries = ( { provider = \"p\"; model = \"m\"; } ); cooldown = 1; }; };\n",
                 "2: unknown setting chains.c.cooldown (expected one of: entries, "
                 "retry_after_cap_ms, cooldown_ms, context_overflow_fallback, "
                 "content_filter_fallback, failover_on)");
    expect_error("provider = { p = { }; };\n",
                 "1: unknown setting provider (expected one of: plugin_path, providers, chains, "
                 "roles, models, model_catalog, tools, cli, state, serve, media)");

    /* Anything goes inside options. */
    seam_conf *c = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(load_text("providers = { p = { options = { whatever = 1; any_key = { x = 2; }; }; }; };\n",
                              &c, &err, NULL), SEAM_OK);
    seam_conf_free(c);
}

static void test_unknown_references(void)
{
    /* A chain entry naming an undefined provider loads, with a warning naming
     * FILE:LINE: a plugin package not installed leaves its conf.d/ snippet out,
     * and the chain runner skips the entry. */
    char *dir = NULL;
    seam_conf *c = loaded("providers = { p = { }; };\n"
                          "chains = { c = ( { provider = \"p\"; model = \"m\"; },\n"
                          "                 { provider = \"q\"; model = \"m\"; } ); };\n",
                          &dir);
    CU_ASSERT_EQUAL(c->chains[0].n_entries, 2);
    CU_ASSERT_EQUAL_FATAL(c->n_warnings, 1);
    seam_buf want = {0};
    seam_buf_printf(&want, "%s/seam.conf:3: chains.c[1] names provider \"q\", which is not "
                    "defined: the entry is skipped", dir);
    CU_ASSERT_STRING_EQUAL(c->warnings[0], want.data);
    seam_buf_free(&want);
    seam_conf_free(c);
    remove_tree(dir);

    expect_error("providers = { p = { }; };\n"
                 "chains = { c = ( { provider = \"p\"; model = \"m\"; } ); };\n"
                 "roles = { a = \"c\";\n b = \"nope\"; };\n",
                 "4: roles.b names chain \"nope\", which is not defined");
    expect_error("providers = { p = { }; };\n"
                 "chains = { c = { entries = ( { provider = \"p\"; model = \"m\"; } );\n"
                 "  context_overflow_fallback = \"big\"; }; };\n",
                 "3: chains.c.context_overflow_fallback names chain \"big\", which is not defined");
    expect_error("providers = { p = { }; };\n"
                 "chains = { c = { entries = ( { provider = \"p\"; model = \"m\"; } );\n"
                 "\n  content_filter_fallback = \"x\"; }; };\n",
                 "4: chains.c.content_filter_fallback names chain \"x\", which is not defined");
}

/* ---- options -> JSON ------------------------------------------------------------------------------ */

static void test_options_to_json(void)
{
    seam_conf *c = loaded_file(srcdir_file("good.conf"));
    const seam_conf_provider *p = seam_conf_find_provider(c, "openai");
    json_object *o = json_tokener_parse(p->options_json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    json_object *v, *w;

    CU_ASSERT_STRING_EQUAL(json_str(o, "organization"), "org-1");
    CU_ASSERT_STRING_EQUAL(json_str(o, "url"), "https://example.invalid/v1");
    /* No "\/" escaping: the plugin may compare the raw text. */
    CU_ASSERT_PTR_NOT_NULL(strstr(p->options_json, "https://example.invalid/v1"));

    CU_ASSERT_FATAL(json_object_object_get_ex(o, "reasoning", &v));
    CU_ASSERT_TRUE(json_object_is_type(v, json_type_object));
    CU_ASSERT_STRING_EQUAL(json_str(v, "effort"), "high");
    CU_ASSERT_FATAL(json_object_object_get_ex(v, "budget", &w));
    CU_ASSERT_TRUE(json_object_is_type(w, json_type_int));
    CU_ASSERT_EQUAL(json_object_get_int64(w), 1024);

    CU_ASSERT_FATAL(json_object_object_get_ex(o, "stop", &v));
    CU_ASSERT_TRUE(json_object_is_type(v, json_type_array));
    CU_ASSERT_EQUAL(json_object_array_length(v), 2);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(v, 1)), "b");

    CU_ASSERT_FATAL(json_object_object_get_ex(o, "mixed", &v));
    CU_ASSERT_EQUAL_FATAL(json_object_array_length(v), 5);
    CU_ASSERT_EQUAL(json_object_get_int(json_object_array_get_idx(v, 0)), 1);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(v, 1)), "x");
    CU_ASSERT_TRUE(json_object_is_type(json_object_array_get_idx(v, 2), json_type_boolean));
    CU_ASSERT_TRUE(json_object_get_boolean(json_object_array_get_idx(v, 2)));
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(json_object_array_get_idx(v, 3)), 2.5, 1e-12);
    w = json_object_array_get_idx(v, 4);
    CU_ASSERT_TRUE(json_object_is_type(w, json_type_object));
    CU_ASSERT_FATAL(json_object_object_get_ex(w, "deep", &w));
    CU_ASSERT_EQUAL(json_object_array_length(w), 2);

    CU_ASSERT_FATAL(json_object_object_get_ex(o, "big", &v));
    CU_ASSERT_EQUAL(json_object_get_int64(v), 5000000000LL);
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "temperature", &v));
    CU_ASSERT_TRUE(json_object_is_type(v, json_type_double));
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(v), 0.5, 1e-12);
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "flag", &v));
    CU_ASSERT_TRUE(json_object_is_type(v, json_type_boolean));
    CU_ASSERT_FALSE(json_object_get_boolean(v));
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "empty", &v));
    CU_ASSERT_TRUE(json_object_is_type(v, json_type_object));
    CU_ASSERT_EQUAL(json_object_object_length(v), 0);
    json_object_put(o);
    seam_conf_free(c);
}

/* ---- discovery ------------------------------------------------------------------------------------------ */

static void set_env(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

/* seam_conf_find(explicit_conf, installed) finds want (two assertions). */
static void expect_found(const char *explicit_conf, const char *installed, const char *want)
{
    char *found = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_conf_find(explicit_conf, installed, &found, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(found, want);
    free(found);
}

static void test_discovery_order(void)
{
    char *saved[3];
    static const char *const names[3] = {"SEAM_CONF", "XDG_CONFIG_HOME", "HOME"};
    for (int i = 0; i < 3; i++)
        saved[i] = getenv(names[i]) ? strdup(getenv(names[i])) : NULL;

    char *dir = make_temp_dir();
    char *explicit_conf = write_file(dir, "explicit.conf", "", 0600);
    char *env_conf = write_file(dir, "env.conf", "", 0600);
    char *installed = write_file(dir, "installed.conf", "", 0600);
    make_dir(dir, "xdg");
    make_dir(dir, "xdg/seam");
    char *xdg_conf = write_file(dir, "xdg/seam/seam.conf", "", 0600);
    make_dir(dir, "home");
    make_dir(dir, "home/.config");
    make_dir(dir, "home/.config/seam");
    char *home_conf = write_file(dir, "home/.config/seam/seam.conf", "", 0600);
    char *xdg = tu_path(dir, "xdg");
    char *home = tu_path(dir, "home");
    char *missing = tu_path(dir, "missing.conf");

    seam_error err;
    char *found = NULL;
    set_env("SEAM_CONF", env_conf);
    set_env("XDG_CONFIG_HOME", xdg);
    set_env("HOME", home);

    /* explicit beats everything */
    expect_found(explicit_conf, installed, explicit_conf);
    /* an explicit file must exist */
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_conf_find(missing, installed, &found, &err), SEAM_ERR_CONF);
    CU_ASSERT_PTR_NULL(found);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CONF);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, missing));

    /* then $SEAM_CONF */
    expect_found(NULL, installed, env_conf);
    set_env("SEAM_CONF", missing);
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_conf_find(NULL, installed, &found, &err), SEAM_ERR_CONF);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, missing));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "SEAM_CONF"));

    /* an empty $SEAM_CONF is unset: then $XDG_CONFIG_HOME/seam/seam.conf */
    set_env("SEAM_CONF", "");
    expect_found(NULL, installed, xdg_conf);

    /* no XDG_CONFIG_HOME (or a relative one, which XDG says to ignore): ~/.config */
    set_env("XDG_CONFIG_HOME", NULL);
    expect_found(NULL, installed, home_conf);
    set_env("XDG_CONFIG_HOME", "relative/dir");
    expect_found(NULL, installed, home_conf);

    /* an XDG dir without seam.conf: the installed one (not ~/.config) */
    set_env("XDG_CONFIG_HOME", dir);
    expect_found(NULL, installed, installed);

    /* nothing anywhere: OK and NULL */
    CU_ASSERT_EQUAL(seam_conf_find(NULL, missing, &found, &err), SEAM_OK);
    CU_ASSERT_PTR_NULL(found);
    CU_ASSERT_EQUAL(seam_conf_find(NULL, NULL, &found, &err), SEAM_OK);
    CU_ASSERT_PTR_NULL(found);

    for (int i = 0; i < 3; i++) {
        set_env(names[i], saved[i]);
        free(saved[i]);
    }
    free(explicit_conf);
    free(env_conf);
    free(installed);
    free(xdg_conf);
    free(home_conf);
    free(xdg);
    free(home);
    free(missing);
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

static void test_new_provider_and_chain_keys(void)
{
    char *dir = NULL;
    seam_conf *c = loaded("providers = { p = { ca_file = \"certs/ca.pem\"; ca_path = \"/etc/ssl/x\";\n"
                          " api_key_command_timeout_ms = 1500; }; q = { }; };\n"
                          "chains = { c = { entries = ( { provider = \"p\"; model = \"m\"; } );\n"
                          " failover_on = [ \"auth\", \"quota\", \"model_not_found\" ]; };\n"
                          " d = ( { provider = \"q\"; model = \"m\"; } ); };\n",
                          &dir);
    expect_in_dir(c->providers[0].ca_file, dir, "certs/ca.pem");
    CU_ASSERT_STRING_EQUAL(c->providers[0].ca_path, "/etc/ssl/x");
    CU_ASSERT_EQUAL(c->providers[0].api_key_command_timeout_ms, 1500);
    CU_ASSERT_PTR_NULL(c->providers[1].ca_file);
    CU_ASSERT_EQUAL(c->providers[1].api_key_command_timeout_ms, 30000);
    CU_ASSERT_EQUAL(c->chains[0].failover_on,
                    SEAM_FAILOVER_KIND(SEAM_ERROR_AUTH) | SEAM_FAILOVER_QUOTA |
                        SEAM_FAILOVER_KIND(SEAM_ERROR_MODEL_NOT_FOUND));
    CU_ASSERT_EQUAL(c->chains[1].failover_on, 0);
    seam_conf_free(c);
    remove_tree(dir);

    expect_error("providers = { p = { }; };\nchains = { c = { entries = ( { provider = \"p\"; model = \"m\"; } );\n"
                 " failover_on = [ \"auth\",\n \"overloaded\" ]; }; };\n",
                 "4: chains.c.failover_on[1]: \"overloaded\" is not an error kind failover_on takes "
                 "(expected one of: auth, quota, model_not_found, bad_request, context_overflow, "
                 "content_filter, unknown)");
    expect_error("providers = { p = { }; };\nchains = { c = { entries = ( { provider = \"p\"; model = \"m\"; } );\n"
                 " failover_on = \"auth\"; }; };\n",
                 "3: chains.c.failover_on must be an array of error kinds [ \"auth\", ... ], not a string");
    expect_error("providers = { p = {\n ca_file = \"\"; }; };\n",
                 "2: providers.p.ca_file must be a non-empty string");
}

/* The state section (issue 18) under the overlay: the personal conf's section
 * replaces the system conf's whole (none of its keys is kept), and within one
 * layer a second section is an error. */
static void test_state_overlay(void)
{
    char *dir = make_temp_dir();
    char *base = write_file(dir, "system.conf",
                            "state = { backend = \"redis\"; host = \"10.0.0.7\"; "
                            "password_env = \"SYS_PW\"; db = 2; };\n", 0600);
    char *mine = write_file(dir, "mine.conf", "state = { backend = \"redis\"; port = 6380; };\n", 0600);
    seam_conf *c = NULL;
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(seam_conf_load_overlay(base, mine, &c, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(c->state.backend, "redis");
    CU_ASSERT_EQUAL(c->state.port, 6380);
    CU_ASSERT_PTR_NULL(c->state.host);
    CU_ASSERT_PTR_NULL(c->state.password_env);
    CU_ASSERT_EQUAL(c->state.db, 0);
    CU_ASSERT_STRING_EQUAL(c->state.file, mine);
    seam_conf_free(c);
    /* A personal conf without one keeps the system conf's. */
    char *bare = write_file(dir, "bare.conf", "model_catalog = \"\";\n", 0600);
    c = NULL;
    CU_ASSERT_EQUAL_FATAL(seam_conf_load_overlay(base, bare, &c, &err), SEAM_OK);
    CU_ASSERT_STRING_EQUAL(c->state.host, "10.0.0.7");
    CU_ASSERT_EQUAL(c->state.db, 2);
    seam_conf_free(c);
    free(base);
    free(mine);
    free(bare);
    remove_tree(dir);
}

/* ---- issue 11: ranges, hostile files, key commands ------------------------------------------------ */

/* Each numeric key at both ends of its documented range and one step past
 * each: the ends load, the steps past are refused with FILE:LINE. */
static void test_every_number_has_a_range(void)
{
    static const struct {
        const char *before, *after; /* the text around the value */
        long long min, max;
    } keys[] = {
        {"providers = { p = {\n timeout_ms = ", "; }; };\n", 1, 2147483647LL},
        {"providers = { p = {\n connect_timeout_ms = ", "; }; };\n", 1, 2147483647LL},
        {"providers = { p = {\n idle_timeout_ms = ", "; }; };\n", 1, 2147483647LL},
        {"providers = { p = {\n max_response_bytes = ", "; }; };\n", 1, 1099511627776LL},
        {"providers = { p = {\n api_key_ttl_ms = ", "; }; };\n", 0, 31622400000LL},
        {"providers = { p = {\n api_key_command_timeout_ms = ", "; }; };\n", 1, 3600000},
        {"providers = { p = { }; };\nchains = { c = ( { provider = \"p\"; model = \"m\";\n"
         " max_attempts = ", "; } ); };\n", 1, 100},
        {"providers = { p = { }; };\nchains = { c = ( { provider = \"p\"; model = \"m\";\n"
         " backoff = { max_ms = 86400000; base_ms = ", "; }; } ); };\n", 0, 86400000},
        {"providers = { p = { }; };\nchains = { c = ( { provider = \"p\"; model = \"m\";\n"
         " backoff = { base_ms = 0; max_ms = ", "; }; } ); };\n", 0, 86400000},
        {"providers = { p = { }; };\nchains = { c = { entries = ( { provider = \"p\"; model = \"m\"; } );\n"
         " retry_after_cap_ms = ", "; }; };\n", 0, 86400000},
        {"providers = { p = { }; };\nchains = { c = { entries = ( { provider = \"p\"; model = \"m\"; } );\n"
         " cooldown_ms = ", "; }; };\n", 0, 86400000},
        {"tools = { t = { description = \"d\"; command = \"true\";\n timeout_ms = ", "; }; };\n",
         1, 2147483647LL},
        {"models = ( { id = \"m\";\n context_window = ", "; } );\n", 0, 1000000000000LL},
        {"models = ( { id = \"m\";\n max_output_tokens = ", "; } );\n", 0, 1000000000000LL},
        {"models = ( { id = \"m\"; price = { output = 1;\n input = ", "; }; } );\n", 0,
         100000000000000LL},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        long long values[4] = {keys[i].min, keys[i].max, keys[i].min - 1, keys[i].max + 1};
        for (int v = 0; v < 4; v++) {
            seam_buf text = {0};
            seam_buf_printf(&text, "%s%lldL%s", keys[i].before, values[v], keys[i].after);
            seam_conf *c = NULL;
            seam_error err;
            char *dir = NULL;
            int rc = load_text(text.data, &c, &err, &dir);
            if (v < 2) {
                if (rc != SEAM_OK)
                    fprintf(stderr, "\n%s\n -> %s\n", text.data, err.message);
                CU_ASSERT_EQUAL(rc, SEAM_OK);
                seam_conf_free(c);
            } else {
                CU_ASSERT_EQUAL(rc, SEAM_ERR_CONF);
                seam_buf want = {0};
                int line = 1;
                for (const char *q = keys[i].before; *q; q++)
                    line += *q == '\n';
                seam_buf_printf(&want, "%s/seam.conf:%d: ", dir, line);
                if (strncmp(err.message, want.data, want.len) != 0 ||
                    !strstr(err.message, "must be")) {
                    fprintf(stderr, "\n%s\n -> %s\n", text.data, err.message);
                    CU_FAIL("range error with FILE:LINE");
                }
                seam_buf_free(&want);
            }
            remove_tree(dir);
            seam_buf_free(&text);
        }
    }
    expect_error("providers = { p = {\n idle_timeout_ms = 9223372036854775807L; }; };\n",
                 "2: providers.p.idle_timeout_ms must be at most 2147483647 (about 24.8 days), "
                 "not 9223372036854775807");
    expect_error("providers = { p = { }; };\nchains = { c = ( { provider = \"p\"; model = \"m\";\n"
                 " backoff = { base_ms = 4611686018427387904L; max_ms = 9223372036854775807L; }; } ); };\n",
                 "3: chains.c[0].backoff.base_ms must be at most 86400000 (one day), "
                 "not 4611686018427387904");
}

/* libconfig 1.5 truncates a decimal literal past 32 bits without an L suffix
 * (5000000000 reads as 705032704) and saturates one past 64 bits: refused. */
static void test_integer_literals_never_truncated(void)
{
    expect_error("providers = { p = {\n timeout_ms = 5000000000; }; };\n",
                 "2: the integer 5000000000 does not fit in 32 bits: write it with an L suffix "
                 "(5000000000L), as libconfig would otherwise truncate it");
    expect_error("providers = { p = {\n timeout_ms = 4294967297; }; };\n",
                 "2: the integer 4294967297 does not fit in 32 bits: write it with an L suffix "
                 "(4294967297L), as libconfig would otherwise truncate it");
    expect_error("providers = { p = {\n\n idle_timeout_ms = 99999999999999999999999; }; };\n",
                 "3: the integer 99999999999999999999999 is out of any range (beyond 64 bits)");
    expect_error("providers = { p = { idle_timeout_ms = -99999999999999999999L; }; };\n",
                 "1: the integer -99999999999999999999L is out of any range (beyond 64 bits)");
    expect_error("providers = { p = { idle_timeout_ms = 0xFFFFFFFFFF; }; };\n",
                 "1: the integer 0xFFFFFFFFFF does not fit in 32 bits: write it with an L suffix "
                 "(0xFFFFFFFFFFL), as libconfig would otherwise truncate it");
    /* Inside options too (a plugin reads them): a truncated number is a wrong number. */
    expect_error("providers = { p = { options = { budget = 2147483648; }; }; };\n",
                 "1: the integer 2147483648 does not fit in 32 bits: write it with an L suffix "
                 "(2147483648L), as libconfig would otherwise truncate it");
    /* Names, strings and comments holding digits are not numbers; -2147483648 fits. */
    seam_conf *c = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(load_text("# 99999999999\n/* 88888888888 */\nproviders = { p9999999999 = {\n"
                              " base_url = \"http://127.0.0.1:77777777777/\";\n"
                              " options = { n = -2147483648; f = 1e300; g = 12345678901.5; }; }; };\n",
                              &c, &err, NULL), SEAM_OK);
    seam_conf_free(c);
}

static void test_hostile_bytes_and_include(void)
{
    /* A NUL byte: libconfig would stop reading there and drop the rest. */
    static const char nul_text[] = "providers = { p = { };\n q = { }; };\n\0chains = x;\n";
    char *dir = make_temp_dir();
    char *path = tu_path(dir, "seam.conf");
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fwrite(nul_text, 1, sizeof nul_text - 1, f);
    fclose(f);
    expect_load_error(path, ":3: a NUL byte: a conf file is text");
    free(path);
    remove_tree(dir);

    expect_error("providers = { p = {\n base_url = \"http://\xff\xfe/\"; }; };\n",
                 "2: invalid UTF-8: a conf file is UTF-8 text");
    expect_error("# caf\xc3\n", "1: invalid UTF-8: a conf file is UTF-8 text");
    expect_error("providers = { p = { base_url = \"http://\xed\xa0\x80/\"; }; };\n",
                 "1: invalid UTF-8: a conf file is UTF-8 text"); /* a surrogate */
    expect_error("providers = { };\n@include \"/dev/zero\"\n",
                 "2: @include is not supported: put the settings in a conf.d/ drop-in");
    expect_error("/* never closed\n\n", "1: a comment /* ... is never closed");
    /* UTF-8 is fine anywhere. */
    seam_conf *c = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(load_text("# café ☕\nproviders = { p = { options = { s = \"naïve 🙂\"; }; }; };\n",
                              &c, &err, NULL), SEAM_OK);
    seam_conf_free(c);
}

static const tu_test tests[] = {
    { "good conf: every key and default", test_good_conf_every_key },
    { "empty and NULL conf", test_empty_and_null_conf },
    { "relative conf path", test_relative_conf_path },
    { "conf.d merged in name order", test_conf_d_merge_in_name_order },
    { "conf.d duplicates name both files", test_conf_d_duplicates_name_both_files },
    { "syntax error: FILE:LINE", test_syntax_error_has_file_and_line },
    { "wrong type: FILE:LINE and expected", test_wrong_type_has_file_line_and_expected },
    { "int and int64", test_integers_accept_int_and_int64 },
    { "unknown keys", test_unknown_keys },
    { "unknown references", test_unknown_references },
    { "options as JSON", test_options_to_json },
    { "discovery order", test_discovery_order },
    { "tools: every key", test_tools_every_key },
    { "tools: errors with FILE:LINE", test_tools_errors },
    { "every number has a range", test_every_number_has_a_range },
    { "integer literals never truncated", test_integer_literals_never_truncated },
    { "NUL, invalid UTF-8, @include", test_hostile_bytes_and_include },
    { "ca_file, ca_path, failover_on, key command timeout", test_new_provider_and_chain_keys },
    { "state: the personal conf's section replaces the system's", test_state_overlay },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("conf", tests, NULL);
}
