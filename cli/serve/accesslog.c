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

/* The line is written once per request: printf's format parsing was most of
 * its cost (13,000 instructions a line under callgrind), so the numbers are
 * written by hand and the date part of the time stamp is made once a second
 * per thread. */
static void num(sbuf *b, const char *key, long long v)
{
    char d[24];
    size_t i = sizeof d;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do
        d[--i] = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        d[--i] = '-';
    sb_puts(b, key);
    sb_add(b, d + i, sizeof d - i);
}

/* " key=N.MMM" for a duration in microseconds (what %.3f of ms printed). */
static void millis(sbuf *b, const char *key, int64_t us)
{
    num(b, key, (long long)(us / 1000));
    char f[4] = { '.', (char)('0' + us / 100 % 10), (char)('0' + us / 10 % 10),
                  (char)('0' + us % 10) };
    sb_add(b, f, 4);
}

void accesslog_write(const serve_call *c)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    static __thread time_t ts_sec = -1;
    static __thread char ts[40];
    if (tv.tv_sec != ts_sec) {
        struct tm tm;
        gmtime_r(&tv.tv_sec, &tm);
        strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
        ts_sec = tv.tv_sec;
    }
    static const char *const wires[] = { "openai", "anthropic", "responses" };
    char answered[256];
    size_t pl = strnlen(c->answered_provider, sizeof c->answered_provider);
    size_t ml = strnlen(c->answered_model, sizeof c->answered_model);
    if (pl + 1 + ml >= sizeof answered)
        ml = sizeof answered - 2 - pl;
    memcpy(answered, c->answered_provider, pl);
    size_t al = pl;
    if (pl)
        answered[al++] = '/';
    memcpy(answered + al, c->answered_model, ml);
    answered[al + ml] = '\0';
    const seam_usage *u = &c->usage;
    sbuf b = { 0 };
    sb_puts(&b, ts);
    int msec = (int)(tv.tv_usec / 1000);
    char frac[6] = { '.', (char)('0' + msec / 100), (char)('0' + msec / 10 % 10),
                     (char)('0' + msec % 10), 'Z', '\0' };
    sb_puts(&b, frac);
    sb_puts(&b, " remote=");
    value(&b, c->remote);
    sb_puts(&b, " method=");
    sb_puts(&b, c->method);
    sb_puts(&b, " path=");
    sb_puts(&b, c->path);
    num(&b, " status=", c->status);
    sb_puts(&b, " wire=");
    sb_puts(&b, wires[c->wire]);
    sb_puts(&b, " id=");
    value(&b, c->id);
    sb_puts(&b, " key=");
    value(&b, c->key_name);
    sb_puts(&b, " model=");
    value(&b, c->model);
    sb_puts(&b, " answered=");
    value(&b, answered);
    num(&b, " stream=", c->stream);
    if (u->present & SEAM_USAGE_INPUT)
        num(&b, " input_tokens=", (long long)u->input_tokens);
    if (u->present & SEAM_USAGE_OUTPUT)
        num(&b, " output_tokens=", (long long)u->output_tokens);
    if (u->present & SEAM_USAGE_COST)
        num(&b, " cost_microcents=", (long long)u->cost_microcents);
    if (c->error_kind != SEAM_ERROR_NONE) {
        sb_puts(&b, " error=");
        sb_puts(&b, seam_error_kind_name(c->error_kind));
        sb_puts(&b, " provider=");
        value(&b, c->error_provider);
    }
    num(&b, " bytes=", (long long)c->bytes_out);
    millis(&b, " ms=", c->t_end_us > c->t0_us ? c->t_end_us - c->t0_us : 0);
    if (c->t_first_us > c->t0_us)
        millis(&b, " first_ms=", c->t_first_us - c->t0_us);
    sb_puts(&b, "\n");
    if (!b.oom) {
        pthread_mutex_lock(&log_mu);
        ssize_t w = write(log_fd, b.p, b.len);
        pthread_mutex_unlock(&log_mu);
        (void)w;
    }
    sb_free(&b);
}
