/* redisserver.h — a real redis-server for tests: started on an ephemeral
 * 127.0.0.1 port in a temporary directory (no persistence), killed and
 * restarted on the same port to play an outage, or made to hang, and spoken
 * to with a plain socket (no hiredis in the tests); and whether a test of the
 * redis plugin can run at all. */
#ifndef SEAM_REDISSERVER_H
#define SEAM_REDISSERVER_H

#include <pthread.h>

typedef struct tu_redis tu_redis;

/* 1 when a redis-server program is on $PATH (a test skips with 77 without it). */
int tu_redis_available(void);
/* Where the built redis plugin would be (malloc'ed; it may not exist), or NULL
 * when redis-server is not on $PATH: "<program>: ... skipped" is said on
 * stderr, and the test exits 77. */
char *tu_redis_plugin_path(const char *program);
/* Starts redis-server with extra arguments (NULL-terminated list, may be NULL,
 * e.g. "--requirepass", "pw", NULL) and waits until it answers. NULL on failure. */
tu_redis *tu_redis_start(const char *const *extra_args);
int tu_redis_port(const tu_redis *r);
/* Kills the server (SIGKILL) and waits for it: what a crash looks like. */
void tu_redis_kill(tu_redis *r);
/* Starts it again on the same port with the same arguments; 0 when it answers. */
int tu_redis_restart(tu_redis *r);
/* Stops it, removes its directory, frees r. */
void tu_redis_stop(tu_redis *r);
/* Sends one command (inline protocol, e.g. "GET seam:x"; AUTH first with the
 * password given) and returns the reply's first line, malloc'ed ("+PONG",
 * ":3", "$-1", ...), or NULL when the server does not answer. */
char *tu_redis_cmd(const tu_redis *r, const char *password, const char *command);

/* ---- added on branch dupcore (issue 19: one harness for tests/) ---- */

/* 1 when a test of the redis plugin can run: redis-server is on $PATH and
 * the plugin was built; else 0, after "<program>: ... skipped" on stderr
 * (the test exits 77). */
int tu_redis_plugin_built(const char *program);
/* tu_redis_start, stopped (tu_redis_stop) when the suites end. NULL on failure. */
tu_redis *tu_redis_start_at_end(const char *const *extra_args);

/* A hang of a server: "DEBUG SLEEP <seconds>" sent to it from a thread of
 * its own, so that it answers no one until the sleep ends.
 * tu_redis_hang_wait waits for that answer. */
typedef struct tu_redis_hang {
    const tu_redis *r;
    double seconds;
    pthread_t thread;
    int started;
} tu_redis_hang;
void tu_redis_hang_start(tu_redis_hang *h, const tu_redis *r, double seconds);
void tu_redis_hang_wait(tu_redis_hang *h);

#endif
