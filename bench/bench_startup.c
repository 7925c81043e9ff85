/* bench_startup.c — what creating a client costs with the four provider
 * plugins installed and the shipped conf (seam.conf, its conf.d snippets and
 * the model catalog): seam_client_new alone (plugins are recorded, none is
 * opened), the first use of one provider (its plugin loaded, its instance
 * created), and the eager start the loader used to make (every plugin loaded,
 * as `seam plugins` still does). Two settings: in a fresh process (a forked
 * child that has initialised nothing: libcurl's global init and the first
 * dlopen are paid, as a one-shot command pays them), and warm (each round a
 * whole new/free cycle in one process). Medians are reported, since a shared
 * machine adds outliers. Usage: bench_startup CONF PLUGIN_DIR [ROUNDS] */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <seam/seam.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One new/free cycle: t[0] seam_client_new, t[1] first use of the mock
 * provider, t[2] from new until every plugin is loaded. */
static int one_round(const char *conf, double t[3], size_t *n_plugins)
{
    seam_client_options o = { sizeof o, conf, 1 };
    seam_client *c = NULL;
    seam_error err;
    double t0 = now_s();
    int rc = seam_client_new(&o, &c, &err);
    double t1 = now_s();
    if (rc != SEAM_OK) {
        fprintf(stderr, "bench: seam_client_new failed: %s\n", err.message);
        return -1;
    }
    seam_capabilities caps = { .size = sizeof caps };
    if (seam_client_capabilities(c, "mock", "mock", &caps, &err) != SEAM_OK) {
        fprintf(stderr, "bench: the mock provider did not load: %s\n", err.message);
        return -1;
    }
    double t2 = now_s();
    *n_plugins = seam_client_plugin_count(c);
    double t3 = now_s();
    t[0] = t1 - t0;
    t[1] = t2 - t1;
    t[2] = t3 - t0;
    seam_client_free(c);
    return 0;
}

/* The same round as the first thing a new process does, `n` times. */
static int fresh_processes(const char *conf, int n, double *t_new, double *t_all)
{
    for (int i = 0; i < n; i++) {
        int fd[2];
        if (pipe(fd) != 0)
            return -1;
        pid_t pid = fork();
        if (pid < 0)
            return -1;
        if (pid == 0) {
            double t[3];
            size_t np;
            close(fd[0]);
            int ok = one_round(conf, t, &np) == 0 && write(fd[1], t, sizeof t) == (ssize_t)sizeof t;
            _exit(ok ? 0 : 1);
        }
        close(fd[1]);
        double t[3];
        ssize_t got = read(fd[0], t, sizeof t);
        close(fd[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        if (got != (ssize_t)sizeof t || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return -1;
        t_new[i] = t[0];
        t_all[i] = t[2];
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_startup CONF PLUGIN_DIR [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 3 ? atoi(argv[3]) : 200;
    if (rounds < 1)
        rounds = 1;
    setenv("SEAM_PLUGIN_PATH", argv[2], 1);
    double *t_new = calloc((size_t)rounds, sizeof *t_new);
    double *t_first = calloc((size_t)rounds, sizeof *t_first);
    double *t_all = calloc((size_t)rounds, sizeof *t_all);
    if (!t_new || !t_first || !t_all)
        return 1;
    size_t n_plugins = 0;
    /* Before this process initialises anything, so that the children start clean. */
    const int procs = 30;
    double cold_new[30], cold_all[30];
    if (fresh_processes(argv[1], procs, cold_new, cold_all) != 0) {
        fprintf(stderr, "bench: a fresh-process round failed\n");
        return 1;
    }
    for (int r = 0; r < rounds; r++) {
        double t[3];
        if (one_round(argv[1], t, &n_plugins) != 0)
            return 1;
        t_new[r] = t[0];
        t_first[r] = t[1];
        t_all[r] = t[2];
    }
    printf("plugins installed: %zu, rounds: %d\n", n_plugins, rounds);
    printf("fresh process (median of %d):\n", procs);
    printf("  seam_client_new:                %8.3f ms\n", median(cold_new, procs) * 1e3);
    printf("  new + every plugin loaded:      %8.3f ms\n", median(cold_all, procs) * 1e3);
    printf("warm, in one process (median of %d):\n", rounds);
    printf("  seam_client_new:                %8.3f ms\n", median(t_new, rounds) * 1e3);
    printf("  first use of one provider:      %8.3f ms\n", median(t_first, rounds) * 1e3);
    printf("  new + every plugin loaded:      %8.3f ms\n", median(t_all, rounds) * 1e3);
    free(t_new);
    free(t_first);
    free(t_all);
    return 0;
}
