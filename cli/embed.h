/* embed.h — the `seam embed` subcommand (embed.c). */
#ifndef SEAM_CLI_EMBED_H
#define SEAM_CLI_EMBED_H

/* Runs `seam embed` with the arguments after the command name; conf is the
 * global --conf (may be NULL). Returns the exit code. */
int cmd_embed(const char *conf, int argc, char **argv);

#endif
