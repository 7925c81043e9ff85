/* logs.h — the conversation log of `seam chat` (logs.c): every exchange in
 * an SQLite database under $XDG_DATA_HOME/seam/, read back by `seam logs` and
 * by `chat -c` / `--cid` to continue a conversation. */
#ifndef SEAM_CLI_LOGS_H
#define SEAM_CLI_LOGS_H

#include <stdint.h>

#include <seam/seam.h>

#include "chat.h"

typedef struct chat_log chat_log; /* struct chat_log in chat.h too */

/* 1 when this build keeps logs (configure found SQLite). */
int chat_log_available(void);
/* Whether o's exchanges are logged: not with --no-log, nor with the conf's
 * `cli = { log = false; }`, nor in a build without SQLite. */
int chat_log_wanted(const chat_options *o, seam_client *client);
/* Opens the log, creating the database (mode 0600, its folder 0700). NULL
 * after saying why when it cannot: a chat that should be logged then fails
 * (exit 1), as an answer that cannot be written does. */
chat_log *chat_log_open(void);
void chat_log_close(chat_log *log);
/* A new conversation id. */
void chat_log_new_cid(char out[48]);
/* The id of the conversation logged last; 0 when there is none. */
int chat_log_last_cid(chat_log *log, char out[48]);
/* Appends conversation cid's turns to req (user, assistant, ...), and its
 * last system prompt to *system (malloc'ed, NULL when none). Returns the
 * number of exchanges, or -1 after saying why. */
int chat_log_load(chat_log *log, const char *cid, seam_request *req, char **system);
/* Records one exchange: the prompt and o's answer, usage, provider, model,
 * and the attachments as handles (their paths), never their bytes. 0, or -1
 * after saying why. */
int chat_log_add(chat_log *log, const char *cid, const chat_options *o, const char *prompt,
                 int64_t started_ms, int64_t duration_ms);

#endif /* SEAM_CLI_LOGS_H */
