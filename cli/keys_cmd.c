/* keys_cmd.c — `seam keys set NAME` and `seam keys list`: API keys stored
 * for the providers, one file per provider name under
 * $XDG_CONFIG_HOME/seam/keys/ (default ~/.config), mode 0600 in a folder of
 * mode 0700. libseam reads one when the provider's environment variable is
 * not set (libcore/stored_key.c); storing them is the command's business.
 * The key is read without echo and never printed: `list` shows names only. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <seam/seam.h>

#include "cli.h"

static int keys_dir(char *buf, size_t size, int create)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(buf, size, "%s/seam/keys", xdg);
    else if (home && *home)
        snprintf(buf, size, "%s/.config/seam/keys", home);
    else
        return -1;
    if (!create)
        return 0;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(buf, 0755);
        *p = '/';
    }
    if (mkdir(buf, 0700) != 0 && errno != EEXIST)
        return -1;
    return chmod(buf, 0700);
}

/* As stored_key.c accepts: a provider name, never a path. */
static int valid_name(const char *name)
{
    if (!*name || name[0] == '.' || strlen(name) > 128)
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_' || *c == '-' || *c == '.'))
            return 0;
    return 1;
}

/* The key, one line from stdin: typed without echo on a terminal. */
static char *read_key(const char *name)
{
    int tty = isatty(STDIN_FILENO);
    struct termios old, quiet;
    if (tty) {
        fprintf(stderr, "Key for %s: ", name);
        fflush(stderr);
        if (tcgetattr(STDIN_FILENO, &old) == 0) {
            quiet = old;
            quiet.c_lflag &= ~(tcflag_t)ECHO;
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
        } else {
            tty = 0;
        }
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    if (tty) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
        fputc('\n', stderr);
    }
    if (n < 0) {
        free(line);
        return NULL;
    }
    line[strcspn(line, "\r\n")] = '\0';
    return line;
}

static int keys_set(const char *name)
{
    if (!valid_name(name))
        return usage_error("keys set: '%s' is not a provider name (letters, digits, _ - .)", name);
    char dir[4096], path[4300], tmp[4400];
    if (keys_dir(dir, sizeof dir, 1) != 0) {
        say("keys set: cannot create %s: %s", dir, strerror(errno));
        return EXIT_PROVIDER;
    }
    char *key = read_key(name);
    if (!key || !*key) {
        free(key);
        say("keys set: no key given");
        return EXIT_USAGE;
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld", dir, name, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    size_t len = strlen(key);
    int ok = fd >= 0 && write(fd, key, len) == (ssize_t)len && write(fd, "\n", 1) == 1 &&
             fsync(fd) == 0;
    int e = errno;
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    memset(key, 0, len);
    free(key);
    if (!ok || rename(tmp, path) != 0) {
        if (ok)
            e = errno;
        unlink(tmp);
        say("keys set: cannot write %s: %s", path, strerror(e));
        return EXIT_PROVIDER;
    }
    fprintf(stderr, "seam: stored the key for %s in %s\n", name, path);
    return EXIT_OK;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int keys_list(void)
{
    char dir[4096];
    if (keys_dir(dir, sizeof dir, 0) != 0)
        return EXIT_OK;
    DIR *d = opendir(dir);
    if (!d)
        return EXIT_OK; /* none stored yet */
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!valid_name(de->d_name))
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        if (!grown)
            break;
        names = grown;
        names[n] = strdup(de->d_name);
        if (names[n])
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp);
    for (size_t i = 0; i < n; i++) {
        puts(names[i]);
        free(names[i]);
    }
    free(names);
    return EXIT_OK;
}

int cmd_keys(const char *conf, int argc, char **argv)
{
    (void)conf;
    if (argc >= 1 && (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0)) {
        fputs(help_text, stdout);
        return EXIT_OK;
    }
    if (argc == 2 && strcmp(argv[0], "set") == 0)
        return keys_set(argv[1]);
    if (argc == 1 && strcmp(argv[0], "list") == 0)
        return keys_list();
    return usage_error("keys: expected 'set NAME' or 'list'");
}
