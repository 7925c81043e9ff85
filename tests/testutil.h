/* testutil.h — small helpers shared by the CUnit tests: temporary directories
 * and files, a client built from conf text, and running a command. */
#ifndef SEAM_TESTUTIL_H
#define SEAM_TESTUTIL_H

#include <stddef.h>
#include <seam/seam.h>

/* A new 0700 directory under $TMPDIR (or /tmp); malloc'ed path, NULL on failure. */
char *tu_mkdtemp(void);
/* A new 0700 directory that may hold plugins: under the build tree
 * (TOP_BUILDDIR "/tests"), since the loader refuses any file below a
 * world-writable directory such as /tmp. malloc'ed path, NULL on failure. */
char *tu_mkdtemp_private(void);
/* Removes a directory tree (best effort). */
void tu_rm_rf(const char *path);
/* dir + "/" + name, malloc'ed. */
char *tu_path(const char *dir, const char *name);
/* Writes text to path (mode 0600); 0 on success. */
int tu_write_file(const char *path, const char *text);
/* Reads a whole file; malloc'ed, NUL-terminated; *len may be NULL. NULL on failure. */
char *tu_read_file(const char *path, size_t *len);
/* Copies a file (mode 0644); 0 on success. */
int tu_copy_file(const char *from, const char *to);

/* The directory holding the built provider plugins ($SEAM_TEST_PLUGIN_DIR, else
 * TOP_BUILDDIR "/plugins/.libs"). Borrowed. */
const char *tu_plugin_dir(void);

/* A client from conf text: writes `plugin_path = [ "<tu_plugin_dir()>" ];` (and
 * `model_catalog = "";` unless conf_text names a catalog) followed by conf_text
 * to a conf file in a fresh temp dir, and creates the client with
 * no_default_plugin_dirs = 1. NULL (err filled) on failure. The temp dir is
 * removed by tu_client_free. */
seam_client *tu_client(const char *conf_text, seam_error *err);
/* As tu_client, with the test-only plugins (TOP_BUILDDIR "/tests/plugins/.libs":
 * testecho, testabi10, ...) searched after the real ones. */
seam_client *tu_client_test_plugins(const char *conf_text, seam_error *err);
void tu_client_free(seam_client *c);

/* Runs `sh -c cmd`, capturing stdout and stderr (malloc'ed, NUL-terminated; pass
 * NULL to discard). Returns the exit status (or 128+signal, -1 on failure). */
int tu_run(const char *cmd, char **out, char **err);

#endif
