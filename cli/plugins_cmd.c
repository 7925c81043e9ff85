/* plugins_cmd.c — `seam plugins`: each plugin file found, its ABI, its
 * provider ids, and whether it loaded or why it was refused. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <seam/seam.h>

#include "cli.h"

int cmd_plugins(const char *conf, int argc, char **argv)
{
    int rc = parse_simple_args("plugins", argc, argv, &conf);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    seam_client *client = NULL;
    seam_error err;
    int code = open_client(conf, &client, &err);
    if (code != EXIT_OK)
        return code;

    size_t n = seam_client_plugin_count(client);
    if (n == 0)
        say("no plugins found (set SEAM_PLUGIN_PATH or plugin_path in the conf)");
    for (size_t i = 0; i < n; i++) {
        seam_plugin_info info;
        memset(&info, 0, sizeof info);
        if (seam_client_plugin_at(client, i, &info) != SEAM_OK)
            continue;
        printf("%s  abi ", info.file ? info.file : "?");
        /* The ABI version is (major << 16) | minor, as <seam/plugin.h> encodes it. */
        if (info.abi_version)
            printf("%u.%u", (unsigned)(info.abi_version >> 16),
                   (unsigned)(info.abi_version & 0xffffu));
        else
            fputc('?', stdout);
        printf("  providers: %s", info.provider_ids && *info.provider_ids ? info.provider_ids : "-");
        if (info.loaded && info.reason)
            printf("  loaded (%s)\n", info.reason); /* some of its providers were refused */
        else if (info.loaded)
            printf("  loaded\n");
        else
            printf("  refused: %s\n", info.reason && *info.reason ? info.reason : "unknown reason");
    }
    seam_client_free(client);
    return EXIT_OK;
}
