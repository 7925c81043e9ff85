/* conf_overlay.c — which conf files make up the conf a client uses: the one
 * seam_conf_find picks, and, when that is the personal conf
 * ($XDG_CONFIG_HOME/seam/seam.conf), the system conf it overlays, so that a
 * personal conf holding only a chain still sees the providers that the
 * packages put in the system conf.d/. An explicit path or $SEAM_CONF is a
 * whole conf of its own and is read alone. */
#include "config.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The system conf: $SEAM_SYSTEM_CONF (for a relocated installation, and for
 * tests), else the installed path. NULL when it does not exist. */
static const char *system_conf(const char *installed_path)
{
    const char *env = getenv("SEAM_SYSTEM_CONF");
    const char *p = env && *env ? env : installed_path;
    struct stat st;
    return p && stat(p, &st) == 0 ? p : NULL;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int seam_conf_open(const char *explicit_path, const char *installed_path, seam_conf **out,
                   seam_error *err)
{
    char *path = NULL;
    int rc = seam_conf_find(explicit_path, installed_path, &path, err);
    if (rc != SEAM_OK)
        return rc;
    const char *env = getenv("SEAM_CONF");
    int personal = path && !explicit_path && !(env && *env);
    const char *base = personal ? system_conf(installed_path) : NULL;
    if (base && same_file(base, path))
        base = NULL; /* the system conf itself was found */
    rc = seam_conf_load_overlay(base, path, out, err);
    free(path);
    return rc;
}
