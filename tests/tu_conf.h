/* tu_conf.h — the conf tests' shared fixtures (tests/tu_conf.c). */
#ifndef SEAM_TU_CONF_H
#define SEAM_TU_CONF_H

#include <sys/types.h>

#include "internal.h"

/* A fresh temporary directory (fatal assertion); remove_tree removes and frees it. */
char *make_temp_dir(void);
void remove_tree(char *dir);
/* Writes dir/name with the given mode; returns the malloc'ed path. */
char *write_file(const char *dir, const char *name, const char *text, mode_t mode);
void make_dir(const char *dir, const char *name);
/* Loads text written as seam.conf (mode 0600) in a fresh directory. The
 * directory is returned in *dir_out (caller removes it) when non-NULL. */
int load_text(const char *text, seam_conf **conf, seam_error *err, char **dir_out);
/* The conf file at path (NULL: none) loaded: a fatal assertion that it loads. */
seam_conf *loaded_file(const char *path);
/* Loading path fails with SEAM_ERR_CONF and the message path + suffix (two
 * assertions). */
void expect_load_error(const char *path, const char *suffix);
/* text loaded (a fatal assertion that it loads); *dir_out as load_text. */
seam_conf *loaded(const char *text, char **dir_out);
/* Asserts that text fails to load with a message equal to
 * "<dir>/seam.conf:" + want_suffix. */
void expect_error(const char *text, const char *want_suffix);
/* main text + one drop-in (conf.d/50-pkg.conf); returns the load status, err
 * filled, the directory in *dir_out (caller removes it). */
int load_with_dropin(const char *main_text, const char *dropin_text, char **dir_out,
                     seam_error *err);
/* Loading main text + that drop-in fails with want_fmt, each "%s" in it the
 * temporary directory. */
void expect_dropin_error(const char *main_text, const char *dropin_text, const char *want_fmt);

#endif
