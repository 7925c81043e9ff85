/* media_cmd.h — media in the `seam` command (media_cmd.c): the attachments of
 * `seam chat -a` and the `seam media` subcommand (declared in cli.h). */
#ifndef SEAM_CLI_MEDIA_CMD_H
#define SEAM_CLI_MEDIA_CMD_H

#include <stddef.h>

#include <seam/seam.h>

/* The MIME type of bytes from their signature; NULL when unknown. */
const char *media_sniff(const unsigned char *bytes, size_t n);
/* Appends FILE (stored, sent as its handle) or URL (sent as a URL) to msg.
 * Returns an exit code, having said why on stderr. */
int media_attach(seam_client *client, seam_message *msg, const char *what, seam_error *err);

/* `seam media image|speech|video|resume|cancel ...` (mediagen_cmd.c): argv[0]
 * is the subcommand. Returns the exit code. */
int media_generate_cmd(const char *conf, int argc, char **argv);

#endif /* SEAM_CLI_MEDIA_CMD_H */
