/* tu_conf.c — what the conf tests (test_conf*.c) share: a conf text written
 * to a fresh directory and loaded, and the checks of a load that fails with
 * FILE:LINE. Each program compiles it in with the conf modules (it calls
 * seam_conf_load, internal to libseam). */
#include "config.h"
#include "internal.h"

#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "tu_conf.h"

char *make_temp_dir(void)
{
    char *d = tu_mkdtemp();
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    return d;
}

void remove_tree(char *dir)
{
    tu_rm_rf(dir);
    free(dir);
}

/* Writes dir/name with the given mode; returns the malloc'ed path. */
char *write_file(const char *dir, const char *name, const char *text, mode_t mode)
{
    char *path = tu_path(dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CU_ASSERT_FATAL(fd >= 0);
    size_t len = strlen(text);
    CU_ASSERT_FATAL(write(fd, text, len) == (ssize_t)len);
    close(fd);
    CU_ASSERT_FATAL(chmod(path, mode) == 0); /* exact mode, whatever the umask */
    return path;
}

void make_dir(const char *dir, const char *name)
{
    char *p = tu_path(dir, name);
    CU_ASSERT_FATAL(mkdir(p, 0700) == 0);
    free(p);
}

/* Loads text written as seam.conf (mode 0600) in a fresh directory. The
 * directory is returned in *dir_out (caller removes it) when non-NULL. */
int load_text(const char *text, seam_conf **conf, seam_error *err, char **dir_out)
{
    char *dir = make_temp_dir();
    char *path = write_file(dir, "seam.conf", text, 0600);
    seam_error_clear(err);
    int rc = seam_conf_load(path, conf, err);
    free(path);
    if (dir_out)
        *dir_out = dir;
    else
        remove_tree(dir);
    return rc;
}

/* The conf file at path (NULL: none) loaded: a fatal assertion that it loads. */
seam_conf *loaded_file(const char *path)
{
    seam_conf *c = NULL;
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(seam_conf_load(path, &c, &err), SEAM_OK);
    return c;
}

/* Loading path fails with SEAM_ERR_CONF and the message path + suffix (two
 * assertions). */
void expect_load_error(const char *path, const char *suffix)
{
    seam_conf *c = NULL;
    seam_error err;
    seam_error_clear(&err);
    CU_ASSERT_EQUAL(seam_conf_load(path, &c, &err), SEAM_ERR_CONF);
    seam_buf want = {0};
    seam_buf_printf(&want, "%s%s", path, suffix);
    CU_ASSERT_STRING_EQUAL(err.message, want.data);
    seam_buf_free(&want);
}

/* text loaded (a fatal assertion that it loads); *dir_out as load_text. */
seam_conf *loaded(const char *text, char **dir_out)
{
    seam_conf *c = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(load_text(text, &c, &err, dir_out), SEAM_OK);
    return c;
}

/* Asserts that text fails to load with a message equal to
 * "<dir>/seam.conf:" + want_suffix. */
void expect_error(const char *text, const char *want_suffix)
{
    seam_conf *conf = (seam_conf *)0x1;
    seam_error err;
    char *dir = NULL;
    int rc = load_text(text, &conf, &err, &dir);
    CU_ASSERT_EQUAL(rc, SEAM_ERR_CONF);
    CU_ASSERT_PTR_NULL(conf);
    CU_ASSERT_EQUAL(err.kind, SEAM_ERROR_CONF);
    seam_buf want = {0};
    seam_buf_printf(&want, "%s/seam.conf:", dir);
    seam_buf_puts(&want, want_suffix);
    if (strcmp(err.message, want.data) != 0) {
        fprintf(stderr, "\n got: %s\nwant: %s\n", err.message, want.data);
        CU_FAIL("conf error message");
    }
    seam_buf_free(&want);
    if (rc == SEAM_OK)
        seam_conf_free(conf);
    remove_tree(dir);
}

/* main text + one drop-in; returns the load status, err filled. */
int load_with_dropin(const char *main_text, const char *dropin_text, char **dir_out,
                     seam_error *err)
{
    char *dir = make_temp_dir();
    char *main_conf = write_file(dir, "seam.conf", main_text, 0600);
    make_dir(dir, "conf.d");
    free(write_file(dir, "conf.d/50-pkg.conf", dropin_text, 0644));
    seam_conf *c = NULL;
    seam_error_clear(err);
    int rc = seam_conf_load(main_conf, &c, err);
    seam_conf_free(c);
    free(main_conf);
    *dir_out = dir;
    return rc;
}

void expect_dropin_error(const char *main_text, const char *dropin_text,
                         const char *want_fmt)
{
    char *dir = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(load_with_dropin(main_text, dropin_text, &dir, &err), SEAM_ERR_CONF);
    /* want_fmt with each "%s" replaced by the temp dir */
    seam_buf want = {0};
    for (const char *c = want_fmt; *c; c++) {
        if (c[0] == '%' && c[1] == 's') {
            seam_buf_puts(&want, dir);
            c++;
        } else {
            seam_buf_append(&want, c, 1);
        }
    }
    if (strcmp(err.message, want.data) != 0) {
        fprintf(stderr, "\n got: %s\nwant: %s\n", err.message, want.data);
        CU_FAIL("conf.d error message");
    }
    seam_buf_free(&want);
    remove_tree(dir);
}
