/* stored_key.c — the keys `seam keys set NAME` stores: the first line of
 * $XDG_CONFIG_HOME/seam/keys/NAME (default ~/.config/seam/keys/NAME), NAME a
 * provider's conf name. Credential lookup takes one after the provider's
 * environment variable, when that is not set (credential.c). A stored key is
 * read only from a regular file of the user's own that nobody else may read
 * or write; the library never writes one (the seam command does: DESIGN.md,
 * 12). Nothing here puts a key into a message. */
#include "config.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A stored key's name: a provider name, never a path. */
static int valid_name(const char *name)
{
    if (!name || !*name || name[0] == '.' || strlen(name) > 128)
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_' || *c == '-' || *c == '.'))
            return 0;
    return 1;
}

int seam_stored_key(const char *name, char **out)
{
    *out = NULL;
    if (!valid_name(name))
        return SEAM_ERR_NO_CREDENTIAL;
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    char path[4096];
    if (xdg && xdg[0] == '/')
        snprintf(path, sizeof path, "%s/seam/keys/%s", xdg, name);
    else if (home && *home)
        snprintf(path, sizeof path, "%s/.config/seam/keys/%s", home, name);
    else
        return SEAM_ERR_NO_CREDENTIAL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
    if (fd < 0)
        return SEAM_ERR_NO_CREDENTIAL;
    struct stat st;
    char buf[8192];
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        (st.st_mode & 077) == 0)
        n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return SEAM_ERR_NO_CREDENTIAL;
    size_t len = strcspn(buf, "\r\n");
    if ((size_t)n < len)
        len = (size_t)n;
    while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
        len--;
    size_t start = 0;
    while (start < len && (buf[start] == ' ' || buf[start] == '\t'))
        start++;
    int rc = SEAM_ERR_NO_CREDENTIAL;
    if (len > start) {
        *out = seam_strndup(buf + start, len - start);
        rc = *out ? SEAM_OK : SEAM_ERR_NOMEM;
    }
    /* The buffer held the key: not left on the stack. */
    volatile char *v = buf;
    for (size_t i = 0; i < sizeof buf; i++)
        v[i] = 0;
    return rc;
}
