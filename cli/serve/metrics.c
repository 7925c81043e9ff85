/* metrics.c — the gateway's counters, served at GET /metrics in the
 * Prometheus text format (version 0.0.4): requests by path and status,
 * latency histograms (whole request, and time to the first chunk), tokens by
 * kind, cost in micro-cents, errors by kind and provider, and the streams
 * open now. One mutex: a request records once, when it ends. */
#include "config.h"

#include "serve.h"

#include <stdio.h>
#include <string.h>

static const double bounds[] = { 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                 0.5, 1, 2.5, 5, 10, 30, 60 };
#define NB (sizeof bounds / sizeof bounds[0])

typedef struct hist {
    uint64_t bucket[NB];
    uint64_t count;
    double sum;
} hist;

#define MAXROWS 128

static struct {
    pthread_mutex_t mu;
    struct { char path[32]; int status; uint64_t n; } req[MAXROWS];
    size_t nreq;
    struct { char kind[32]; char provider[64]; uint64_t n; } err[MAXROWS];
    size_t nerr;
    hist duration, first;
    uint64_t tokens[5];
    int64_t cost;
    int streams;
} m = { .mu = PTHREAD_MUTEX_INITIALIZER };

void metrics_init(void)
{
}

static void observe(hist *h, double v)
{
    for (size_t i = 0; i < NB; i++)
        if (v <= bounds[i])
            h->bucket[i]++;
    h->count++;
    h->sum += v;
}

void metrics_stream_delta(int d)
{
    pthread_mutex_lock(&m.mu);
    m.streams += d;
    pthread_mutex_unlock(&m.mu);
}

int metrics_streams_open(void)
{
    pthread_mutex_lock(&m.mu);
    int n = m.streams;
    pthread_mutex_unlock(&m.mu);
    return n;
}

void metrics_record(const serve_call *c)
{
    pthread_mutex_lock(&m.mu);
    size_t i = 0;
    while (i < m.nreq && (m.req[i].status != c->status || strcmp(m.req[i].path, c->path) != 0))
        i++;
    if (i == m.nreq && m.nreq < MAXROWS) {
        snprintf(m.req[i].path, sizeof m.req[i].path, "%s", c->path);
        m.req[i].status = c->status;
        m.nreq++;
    }
    if (i < m.nreq)
        m.req[i].n++;
    if (c->t_end_us > c->t0_us)
        observe(&m.duration, (double)(c->t_end_us - c->t0_us) / 1e6);
    if (c->t_first_us > c->t0_us)
        observe(&m.first, (double)(c->t_first_us - c->t0_us) / 1e6);
    const seam_usage *u = &c->usage;
    static const uint32_t bits[5] = { SEAM_USAGE_INPUT, SEAM_USAGE_OUTPUT, SEAM_USAGE_CACHE_READ,
                                      SEAM_USAGE_CACHE_WRITE, SEAM_USAGE_REASONING };
    const int64_t vals[5] = { u->input_tokens, u->output_tokens, u->cache_read_tokens,
                              u->cache_write_tokens, u->reasoning_tokens };
    for (int k = 0; k < 5; k++)
        if (u->present & bits[k] && vals[k] > 0)
            m.tokens[k] += (uint64_t)vals[k];
    if (u->present & SEAM_USAGE_COST)
        m.cost += u->cost_microcents;
    if (c->error_kind != SEAM_ERROR_NONE) {
        const char *kind = seam_error_kind_name(c->error_kind);
        size_t j = 0;
        while (j < m.nerr && (strcmp(m.err[j].kind, kind) || strcmp(m.err[j].provider,
                                                                     c->error_provider)))
            j++;
        if (j == m.nerr && m.nerr < MAXROWS) {
            snprintf(m.err[j].kind, sizeof m.err[j].kind, "%s", kind);
            snprintf(m.err[j].provider, sizeof m.err[j].provider, "%s", c->error_provider);
            m.nerr++;
        }
        if (j < m.nerr)
            m.err[j].n++;
    }
    pthread_mutex_unlock(&m.mu);
}

/* A label value: the names come from the conf, so escape as the format asks. */
static void label(sbuf *out, const char *v)
{
    for (; *v; v++) {
        if (*v == '"' || *v == '\\')
            sb_add(out, "\\", 1);
        if (*v == '\n')
            sb_puts(out, "\\n");
        else
            sb_add(out, v, 1);
    }
}

static void render_hist(sbuf *out, const char *name, const char *help, const hist *h)
{
    sb_printf(out, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
    for (size_t i = 0; i < NB; i++)
        sb_printf(out, "%s_bucket{le=\"%g\"} %llu\n", name, bounds[i],
                  (unsigned long long)h->bucket[i]);
    sb_printf(out, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %.6f\n%s_count %llu\n", name,
              (unsigned long long)h->count, name, h->sum, name, (unsigned long long)h->count);
}

void metrics_render(sbuf *out, int streams_open)
{
    pthread_mutex_lock(&m.mu);
    sb_puts(out, "# HELP seam_gateway_requests_total Requests answered, by path and status.\n"
                 "# TYPE seam_gateway_requests_total counter\n");
    for (size_t i = 0; i < m.nreq; i++) {
        sb_puts(out, "seam_gateway_requests_total{path=\"");
        label(out, m.req[i].path);
        sb_printf(out, "\",status=\"%d\"} %llu\n", m.req[i].status,
                  (unsigned long long)m.req[i].n);
    }
    render_hist(out, "seam_gateway_request_duration_seconds",
                "Time from the request to the end of its answer.", &m.duration);
    render_hist(out, "seam_gateway_first_chunk_seconds",
                "Time from the request to the first content from the provider.", &m.first);
    static const char *const kinds[5] = { "input", "output", "cache_read", "cache_write",
                                          "reasoning" };
    sb_puts(out, "# HELP seam_gateway_tokens_total Tokens of the answers, by kind.\n"
                 "# TYPE seam_gateway_tokens_total counter\n");
    for (int k = 0; k < 5; k++)
        sb_printf(out, "seam_gateway_tokens_total{kind=\"%s\"} %llu\n", kinds[k],
                  (unsigned long long)m.tokens[k]);
    sb_printf(out, "# HELP seam_gateway_cost_microcents_total Cost of the answers (1e-8 USD).\n"
                   "# TYPE seam_gateway_cost_microcents_total counter\n"
                   "seam_gateway_cost_microcents_total %lld\n", (long long)m.cost);
    sb_puts(out, "# HELP seam_gateway_errors_total Failed requests, by error kind and provider.\n"
                 "# TYPE seam_gateway_errors_total counter\n");
    for (size_t i = 0; i < m.nerr; i++) {
        sb_printf(out, "seam_gateway_errors_total{kind=\"%s\",provider=\"", m.err[i].kind);
        label(out, m.err[i].provider);
        sb_printf(out, "\"} %llu\n", (unsigned long long)m.err[i].n);
    }
    pthread_mutex_unlock(&m.mu);
    sb_printf(out, "# HELP seam_gateway_streams_open Streams being answered now.\n"
                   "# TYPE seam_gateway_streams_open gauge\n"
                   "seam_gateway_streams_open %d\n", streams_open);
}
