/* tokens.h — the `seam tokens` subcommand (tokens.c). */
#ifndef SEAM_CLI_TOKENS_H
#define SEAM_CLI_TOKENS_H

/* Runs `seam tokens` with the arguments after the command name; conf is the
 * global --conf (may be NULL). Returns the exit code. */
int cmd_tokens(const char *conf, int argc, char **argv);

#endif
