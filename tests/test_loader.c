/* test_loader.c — plugin discovery through the real loader: a good plugin is
 * listed with its ABI and ids; a wrong ABI major, a missing entry point, a
 * duplicate provider id and a group/world-writable directory are each refused
 * with a message naming the reason, without stopping the other plugins; a
 * broken conf fails the client with file:line. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include <seam/plugin.h>
#include <seam/seam.h>

static char *tmp;

static char *test_plugin(const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/tests/plugins/.libs/%s.so", TOP_BUILDDIR, name);
    return strdup(p);
}

static char *real_plugin(const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s.so", tu_plugin_dir(), name);
    return strdup(p);
}

/* A fresh plugin dir holding copies of the given files (NULL-terminated). */
static char *plugin_dir(const char *sub, char **files)
{
    char *dir = tu_path(tmp, sub);
    mkdir(dir, 0755);
    for (size_t i = 0; files[i]; i++) {
        const char *base = strrchr(files[i], '/') + 1;
        char *to = tu_path(dir, base);
        CU_ASSERT_FATAL(tu_copy_file(files[i], to) == 0);
        free(to);
    }
    return dir;
}

static seam_client *client_for(const char *dir, seam_error *err)
{
    char conf[4200];
    snprintf(conf, sizeof conf, "plugin_path = [ \"%s\" ];\n", dir);
    char *path = tu_path(tmp, "loader.conf");
    tu_write_file(path, conf);
    seam_client_options o = { sizeof o, path, 1 };
    seam_client *c = NULL;
    int rc = seam_client_new(&o, &c, err);
    free(path);
    return rc == SEAM_OK ? c : NULL;
}

static const seam_plugin_info *find_plugin(seam_client *c, const char *base, seam_plugin_info *info)
{
    for (size_t i = 0; i < seam_client_plugin_count(c); i++) {
        seam_client_plugin_at(c, i, info);
        const char *slash = strrchr(info->file, '/');
        if (slash && strcmp(slash + 1, base) == 0)
            return info;
    }
    return NULL;
}

static void test_good_and_bad_side_by_side(void)
{
    char *files[] = { real_plugin("mock"), test_plugin("badabi"), test_plugin("nosym"),
                      test_plugin("dupmock"), NULL };
    char *dir = plugin_dir("mixed", files);
    seam_error err;
    seam_client *c = client_for(dir, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(seam_client_plugin_count(c), 4);
    seam_plugin_info info;

    /* dupmock.so sorts first and takes the id "mock": it is the good plugin here. */
    CU_ASSERT_PTR_NOT_NULL_FATAL(find_plugin(c, "dupmock.so", &info));
    CU_ASSERT_TRUE(info.loaded);
    CU_ASSERT_EQUAL(info.abi_version, SEAM_PLUGIN_ABI_VERSION);
    CU_ASSERT_STRING_EQUAL(info.provider_ids, "mock");

    CU_ASSERT_PTR_NOT_NULL_FATAL(find_plugin(c, "badabi.so", &info));
    CU_ASSERT_FALSE(info.loaded);
    CU_ASSERT_PTR_NOT_NULL(strstr(info.reason, "99.0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(info.reason, "1.0"));

    CU_ASSERT_PTR_NOT_NULL_FATAL(find_plugin(c, "nosym.so", &info));
    CU_ASSERT_FALSE(info.loaded);
    CU_ASSERT_PTR_NOT_NULL(strstr(info.reason, "entry point"));

    /* The real mock comes second: refused, naming the file that owns the id. */
    CU_ASSERT_PTR_NOT_NULL_FATAL(find_plugin(c, "mock.so", &info));
    CU_ASSERT_FALSE(info.loaded);
    CU_ASSERT_PTR_NOT_NULL(strstr(info.reason, "already registered"));
    CU_ASSERT_PTR_NOT_NULL(strstr(info.reason, "dupmock.so"));

    seam_client_free(c);
    for (size_t i = 0; files[i]; i++)
        free(files[i]);
    free(dir);
}

static void test_unsafe_dir(void)
{
    char *files[] = { real_plugin("mock"), NULL };
    char *dir = plugin_dir("unsafe", files);
    chmod(dir, 0777);
    seam_error err;
    seam_client *c = client_for(dir, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    seam_plugin_info info;
    CU_ASSERT_PTR_NOT_NULL_FATAL(find_plugin(c, "mock.so", &info));
    CU_ASSERT_FALSE(info.loaded);
    CU_ASSERT_PTR_NOT_NULL(strstr(info.reason, "writable by group or others"));
    seam_client_free(c);

    /* The same file in a private directory loads. */
    chmod(dir, 0755);
    c = client_for(dir, &err);
    CU_ASSERT_PTR_NOT_NULL(find_plugin(c, "mock.so", &info));
    CU_ASSERT_TRUE(info.loaded);
    seam_client_free(c);
    free(files[0]);
    free(dir);
}

static void test_plugin_path_env_order(void)
{
    /* $SEAM_PLUGIN_PATH comes before the conf's plugin_path: its mock wins. */
    char *a_files[] = { real_plugin("mock"), NULL };
    char *b_files[] = { test_plugin("dupmock"), NULL };
    char *a = plugin_dir("env-first", a_files);
    char *b = plugin_dir("conf-second", b_files);
    setenv("SEAM_PLUGIN_PATH", a, 1);
    seam_error err;
    seam_client *c = client_for(b, &err);
    unsetenv("SEAM_PLUGIN_PATH");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    seam_plugin_info info;
    CU_ASSERT_PTR_NOT_NULL(find_plugin(c, "mock.so", &info));
    CU_ASSERT_TRUE(info.loaded);
    CU_ASSERT_PTR_NOT_NULL(find_plugin(c, "dupmock.so", &info));
    CU_ASSERT_FALSE(info.loaded);
    seam_client_free(c);
    free(a_files[0]);
    free(b_files[0]);
    free(a);
    free(b);
}

static void test_broken_conf(void)
{
    char *path = tu_path(tmp, "broken.conf");
    tu_write_file(path, "providers = {\n  x = { plugin = \"mock\" ;\n};\n");
    seam_client_options o = { sizeof o, path, 1 };
    seam_client *c = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_client_new(&o, &c, &err), SEAM_ERR_CONF);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "broken.conf:"));
    free(path);

    o.conf_path = "/nonexistent/seam.conf";
    CU_ASSERT_EQUAL(seam_client_new(&o, &c, &err), SEAM_ERR_CONF);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "/nonexistent/seam.conf"));
}

int main(void)
{
    tmp = tu_mkdtemp();
    if (!tmp)
        return 1;
    CU_initialize_registry();
    CU_pSuite s = CU_add_suite("loader", NULL, NULL);
    CU_add_test(s, "good and bad plugins side by side", test_good_and_bad_side_by_side);
    CU_add_test(s, "unsafe directory refused", test_unsafe_dir);
    CU_add_test(s, "SEAM_PLUGIN_PATH before plugin_path", test_plugin_path_env_order);
    CU_add_test(s, "broken conf", test_broken_conf);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    tu_rm_rf(tmp);
    free(tmp);
    return failed ? 1 : 0;
}
