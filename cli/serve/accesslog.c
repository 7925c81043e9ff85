/* accesslog.c — one line per request, in logfmt, to stderr or to the file
 * the conf names (reopened on SIGHUP, for logrotate). A line says who (the
 * client's address and the key's *name*), what (path, the model asked for,
 * the provider/model that answered, streamed or not), how it went (status,
 * error kind, tokens, cost, duration, time to first chunk, bytes) — never a
 * prompt, an answer or a key. Each line is one write(2), so lines from the
 * server's threads never interleave. */
#include "config.h"

#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int log_fd = 2;
static char log_path[512];
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

int accesslog_open(const char *path, char *msg, size_t msgsize)
{
    if (!path || !*path || strcmp(path, "-") == 0) {
        log_fd = 2;
        log_path[0] = '\0';
        return 0;
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0) {
        snprintf(msg, msgsize, "cannot open the access log %s: %s", path, strerror(errno));
        return -1;
    }
    snprintf(log_path, sizeof log_path, "%s", path);
    log_fd = fd;
    return 0;
}

void accesslog_reopen(void)
{
    if (!log_path[0])
        return;
    int fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0)
        return; /* keep writing to the old file */
    pthread_mutex_lock(&log_mu);
    int old = log_fd;
    log_fd = fd;
    pthread_mutex_unlock(&log_mu);
    if (old > 2)
        close(old);
}

void accesslog_close(void)
{
    if (log_fd > 2)
        close(log_fd);
    log_fd = 2;
}

/* A value as logfmt: bare when it is plain, quoted and escaped otherwise. */
static void value(sbuf *b, const char *v)
{
    if (!v || !*v) {
        sb_puts(b, "-");
        return;
    }
    int plain = 1;
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p <= ' ' || *p == '"' || *p == '=' || *p == '\\' || *p >= 0x7f)
            plain = 0;
    if (plain)
        sb_puts(b, v);
    else
        sb_json_str(b, v);
}

void accesslog_write(const serve_call *c)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char ts[40];
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    static const char *const wires[] = { "openai", "anthropic", "responses" };
    char answered[256];
    snprintf(answered, sizeof answered, "%s%s%s", c->answered_provider,
             c->answered_provider[0] ? "/" : "", c->answered_model);
    const seam_usage *u = &c->usage;
    sbuf b = { 0 };
    sb_printf(&b, "%s.%03dZ remote=", ts, (int)(tv.tv_usec / 1000));
    value(&b, c->remote);
    sb_printf(&b, " method=%s path=%s status=%d wire=%s id=", c->method, c->path, c->status,
              wires[c->wire]);
    value(&b, c->id);
    sb_puts(&b, " key=");
    value(&b, c->key_name);
    sb_puts(&b, " model=");
    value(&b, c->model);
    sb_puts(&b, " answered=");
    value(&b, answered);
    sb_printf(&b, " stream=%d", c->stream);
    if (u->present & SEAM_USAGE_INPUT)
        sb_printf(&b, " input_tokens=%lld", (long long)u->input_tokens);
    if (u->present & SEAM_USAGE_OUTPUT)
        sb_printf(&b, " output_tokens=%lld", (long long)u->output_tokens);
    if (u->present & SEAM_USAGE_COST)
        sb_printf(&b, " cost_microcents=%lld", (long long)u->cost_microcents);
    if (c->error_kind != SEAM_ERROR_NONE) {
        sb_printf(&b, " error=%s provider=", seam_error_kind_name(c->error_kind));
        value(&b, c->error_provider);
    }
    sb_printf(&b, " bytes=%zu ms=%.3f", c->bytes_out,
              c->t_end_us > c->t0_us ? (double)(c->t_end_us - c->t0_us) / 1000.0 : 0.0);
    if (c->t_first_us > c->t0_us)
        sb_printf(&b, " first_ms=%.3f", (double)(c->t_first_us - c->t0_us) / 1000.0);
    sb_puts(&b, "\n");
    if (!b.oom) {
        pthread_mutex_lock(&log_mu);
        ssize_t w = write(log_fd, b.p, b.len);
        pthread_mutex_unlock(&log_mu);
        (void)w;
    }
    sb_free(&b);
}
