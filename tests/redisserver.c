/* redisserver.c — a real redis-server for tests (redisserver.h). */
#include "redisserver.h"
#include "testutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 32

struct tu_redis {
    pid_t pid;
    int port;
    char *dir;
    char *args[MAX_ARGS];
    int n_args;
};

int tu_redis_available(void)
{
    return tu_run("command -v redis-server", NULL, NULL) == 0;
}

char *tu_redis_plugin_path(const char *program)
{
    if (!tu_redis_available()) {
        fprintf(stderr, "%s: redis-server is not installed: skipped\n", program);
        return NULL;
    }
    return tu_path(tu_plugin_dir(), "redis.so");
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    int port = -1;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

static int spawn(tu_redis *r)
{
    char port[16], log[4096];
    snprintf(port, sizeof port, "%d", r->port);
    snprintf(log, sizeof log, "%s/redis.log", r->dir);
    const char *argv[MAX_ARGS + 20];
    int n = 0;
    argv[n++] = "redis-server";
    argv[n++] = "--port";
    argv[n++] = port;
    argv[n++] = "--bind";
    argv[n++] = "127.0.0.1";
    argv[n++] = "--dir";
    argv[n++] = r->dir;
    argv[n++] = "--save";
    argv[n++] = "";
    argv[n++] = "--appendonly";
    argv[n++] = "no";
    argv[n++] = "--daemonize";
    argv[n++] = "no";
    argv[n++] = "--logfile";
    argv[n++] = log;
    argv[n++] = "--enable-debug-command";
    argv[n++] = "local";
    for (int i = 0; i < r->n_args; i++)
        argv[n++] = r->args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execvp("redis-server", (char *const *)argv);
        _exit(127);
    }
    r->pid = pid;
    /* Up to 5 s for it to answer. */
    for (int i = 0; i < 500; i++) {
        char *pong = tu_redis_cmd(r, NULL, "PING");
        int ok = pong && (strcmp(pong, "+PONG") == 0 || strncmp(pong, "-NOAUTH", 7) == 0);
        free(pong);
        if (ok)
            return 0;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            r->pid = 0;
            return -1;
        }
        usleep(10000);
    }
    return -1;
}

tu_redis *tu_redis_start(const char *const *extra_args)
{
    tu_redis *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    for (int i = 0; extra_args && extra_args[i] && r->n_args < MAX_ARGS; i++)
        r->args[r->n_args++] = strdup(extra_args[i]);
    r->dir = tu_mkdtemp();
    /* A port someone takes between the probe and the start: try another. */
    for (int attempt = 0; attempt < 5 && r->dir; attempt++) {
        r->port = free_port();
        if (r->port > 0 && spawn(r) == 0)
            return r;
        tu_redis_kill(r);
    }
    tu_redis_stop(r);
    return NULL;
}

int tu_redis_port(const tu_redis *r)
{
    return r->port;
}

void tu_redis_kill(tu_redis *r)
{
    if (!r || r->pid <= 0)
        return;
    kill(r->pid, SIGKILL);
    int status;
    while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
        ;
    r->pid = 0;
}

int tu_redis_restart(tu_redis *r)
{
    tu_redis_kill(r);
    return spawn(r);
}

void tu_redis_stop(tu_redis *r)
{
    if (!r)
        return;
    tu_redis_kill(r);
    if (r->dir) {
        tu_rm_rf(r->dir);
        free(r->dir);
    }
    for (int i = 0; i < r->n_args; i++)
        free(r->args[i]);
    free(r);
}

static char *read_line(int fd)
{
    char buf[4096];
    size_t n = 0;
    while (n + 1 < sizeof buf) {
        ssize_t got = read(fd, buf + n, 1);
        if (got <= 0)
            return NULL;
        if (buf[n] == '\n') {
            if (n && buf[n - 1] == '\r')
                n--;
            buf[n] = '\0';
            return strdup(buf);
        }
        n++;
    }
    return NULL;
}

static int send_all(int fd, const char *s)
{
    size_t len = strlen(s);
    while (len) {
        ssize_t w = send(fd, s, len, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        s += w;
        len -= (size_t)w;
    }
    return 0;
}

char *tu_redis_cmd(const tu_redis *r, const char *password, const char *command)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return NULL;
    struct timeval tv = { 5, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)r->port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    char *reply = NULL;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
        int ok = 1;
        if (password) {
            char auth[512];
            snprintf(auth, sizeof auth, "AUTH %s\r\n", password);
            char *line = send_all(fd, auth) == 0 ? read_line(fd) : NULL;
            ok = line && line[0] == '+';
            free(line);
        }
        char line[4096];
        snprintf(line, sizeof line, "%s\r\n", command);
        if (ok && send_all(fd, line) == 0)
            reply = read_line(fd);
    }
    close(fd);
    return reply;
}

/* ---- added on branch dupcore (issue 19: one harness for tests/) ---- */

int tu_redis_plugin_built(const char *program)
{
    char *plugin = tu_redis_plugin_path(program);
    if (!plugin)
        return 0;
    struct stat st;
    int built = stat(plugin, &st) == 0;
    free(plugin);
    if (!built)
        fprintf(stderr, "%s: the redis plugin was not built (no hiredis): skipped\n", program);
    return built;
}

static void stop_at_end(void *r)
{
    tu_redis_stop(r);
}

tu_redis *tu_redis_start_at_end(const char *const *extra_args)
{
    tu_redis *r = tu_redis_start(extra_args);
    if (r)
        tu_at_end(stop_at_end, r);
    return r;
}

static void *hang_main(void *arg)
{
    tu_redis_hang *h = arg;
    char command[64];
    snprintf(command, sizeof command, "DEBUG SLEEP %g", h->seconds);
    free(tu_redis_cmd(h->r, NULL, command));
    return NULL;
}

void tu_redis_hang_start(tu_redis_hang *h, const tu_redis *r, double seconds)
{
    h->r = r;
    h->seconds = seconds;
    h->started = pthread_create(&h->thread, NULL, hang_main, h) == 0;
}

void tu_redis_hang_wait(tu_redis_hang *h)
{
    if (h->started)
        pthread_join(h->thread, NULL);
    h->started = 0;
}
