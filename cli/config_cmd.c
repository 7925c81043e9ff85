/* config_cmd.c — `seam config check [FILE]`: finds the conf seam would use
 * and checks it, printing its warnings; `seam config show [FILE]`: the merged
 * conf (a personal conf overlays the system one) with the FILE:LINE of each
 * definition. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <seam/seam.h>

#include "cli.h"

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The conf seam would load, in the library's order: $SEAM_CONF,
 * $XDG_CONFIG_HOME/seam/seam.conf (default ~/.config), the installed one.
 * Writes into buf; returns NULL when none exists. */
static const char *default_conf_path(char *buf, size_t size)
{
    const char *env = getenv("SEAM_CONF");
    if (env && *env) {
        snprintf(buf, size, "%s", env);
        return buf;
    }
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg)
        snprintf(buf, size, "%s/seam/seam.conf", xdg);
    else if (home && *home)
        snprintf(buf, size, "%s/.config/seam/seam.conf", home);
    else
        buf[0] = '\0';
    if (buf[0] && file_exists(buf))
        return buf;
    if (file_exists(SEAM_CONF_INSTALLED)) {
        snprintf(buf, size, "%s", SEAM_CONF_INSTALLED);
        return buf;
    }
    return NULL;
}

static void print_line(void *ud, const char *text)
{
    (void)ud;
    puts(text);
}

int cmd_config(const char *conf, int argc, char **argv)
{
    if (argc < 1)
        return usage_error("config: expected 'check' or 'show'");
    if (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0) {
        fputs(help_text, stdout);
        return EXIT_OK;
    }
    int show = strcmp(argv[0], "show") == 0;
    if (strcmp(argv[0], "check") != 0 && !show)
        return usage_error("config: unknown subcommand '%s' (expected 'check' or 'show')",
                           argv[0]);

    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        int r = option_value(argc, argv, &i, "--conf", &value);
        if (r < 0)
            return usage_error("config %s: --conf needs a value", argv[0]);
        if (r > 0) {
            conf = value;
            continue;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(help_text, stdout);
            return EXIT_OK;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return usage_error("config %s: unknown option '%s'", argv[0], argv[i]);
        if (file)
            return usage_error("config %s: one FILE at most", argv[0]);
        file = argv[i];
    }

    char buf[4096];
    const char *path = file ? file : conf ? conf : default_conf_path(buf, sizeof buf);
    if (!path) {
        say("no conf file found ($SEAM_CONF, $XDG_CONFIG_HOME/seam/seam.conf, %s)",
            SEAM_CONF_INSTALLED);
        return EXIT_USAGE;
    }
    seam_error err;
    seam_error_clear(&err);
    /* No FILE: the default search, where a personal conf overlays the system one. */
    const char *given = file ? file : conf;
    if (show) {
        if (seam_conf_show(given, print_line, NULL, &err) != SEAM_OK) {
            say("%s", err.message[0] ? err.message : "invalid conf");
            return EXIT_USAGE;
        }
        return EXIT_OK;
    }
    if (seam_conf_check(given, print_warning, NULL, &err) != SEAM_OK) {
        say("%s", err.message[0] ? err.message : "invalid conf");
        return EXIT_USAGE;
    }
    printf("%s: ok\n", path);
    return EXIT_OK;
}
