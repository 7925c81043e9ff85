/* test_serve.c — `seam serve` end to end (issue 17): the built `seam` binary
 * runs the gateway on an ephemeral loopback port in front of the fake
 * provider (tests/fakeserver.c, in this process), and the test talks HTTP to
 * it over plain sockets. Each wire's answers, streams, errors (status,
 * Retry-After, error object, error event after a stream began), routing,
 * /v1/models, /healthz, /metrics, keys and limits, the access log, the
 * upstream close on a client's hang-up, SIGHUP reload and SIGTERM drain. */
#include "config.h"

#include "fakeserver.h"
#include "redisserver.h"
#include "testutil.h"

#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static fake_server *up;
static char *tmpdir;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the gateway as a child process ------------------------------------------ */

typedef struct gw {
    pid_t pid;
    int port;
    char *conf;
    char *err;   /* its stderr: the listening line and the access log */
} gw;

static const char *base_conf(void)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "plugin_path = [ \"%s\" ];\nmodel_catalog = \"\";\n"
             "providers = {\n"
             "  up = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"sk-upstream-SECRET-1234\"; };\n"
             "  e429 = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"sk-upstream-SECRET-1234\"; };\n"
             "  e401 = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"sk-upstream-SECRET-1234\"; };\n"
             "  a429 = { plugin = \"openai\"; base_url = \"%s/v1\"; api_key = \"sk-upstream-SECRET-1234\"; };\n"
             "  ant = { plugin = \"anthropic\"; base_url = \"%s\"; api_key = \"sk-ant-SECRET-5678\"; };\n"
             "};\n"
             "chains = { default = ( { provider = \"up\"; model = \"gpt-x\"; max_attempts = 1; } );\n"
             "           claude = ( { provider = \"ant\"; model = \"claude-sonnet-4-5\"; max_attempts = 1; } ); };\n"
             "roles = { assistant = \"default\"; };\n"
             "models = ( { id = \"gpt-x\"; provider = \"up\"; capabilities = [ \"tools\", \"streaming\",\n"
             "             \"vision\", \"structured_output\" ]; price = { input = 100000000L; output = 200000000L; }; },\n"
             "           { id = \"claude-sonnet-4-5\"; provider = \"ant\"; capabilities = [ \"tools\", \"streaming\",\n"
             "             \"reasoning\" ]; } );\n",
             tu_plugin_dir(), fake_server_url(up), fake_server_url(up), fake_server_url(up),
             fake_server_url(up), fake_server_url(up));
    return buf;
}

/* Starts `seam serve` with base_conf() + extra, its conf and stderr in files
 * named after tag (two gateways at once need two); 0 on success. */
static int gw_whole; /* the gateway sends a non-streamed call upstream as such */
static int gw_start_tagged(gw *g, const char *extra, const char *listen, const char *tag)
{
    memset(g, 0, sizeof *g);
    char name[64];
    snprintf(name, sizeof name, "%s.conf", tag);
    g->conf = tu_path(tmpdir, name);
    snprintf(name, sizeof name, "%s.err", tag);
    g->err = tu_path(tmpdir, name);
    char *text = malloc(strlen(base_conf()) + strlen(extra ? extra : "") + 1);
    strcpy(text, base_conf());
    strcat(text, extra ? extra : "");
    tu_write_file(g->conf, text);
    free(text);
    unlink(g->err);
    fflush(NULL);
    g->pid = fork();
    if (g->pid == 0) {
        int fd = open(g->err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 2);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 0);
        /* the fixtures answer every call with a stream (test_whole_upstream: not) */
        execl(TOP_BUILDDIR "/cli/seam", "seam", "serve", "--conf", g->conf, "--listen", listen,
              gw_whole ? (char *)NULL : "--always-stream-upstream", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 500; i++) {
        char *e = tu_read_file(g->err, NULL);
        const char *p = e ? strstr(e, "listening on port ") : NULL;
        if (p)
            g->port = atoi(p + 18);
        free(e);
        if (g->port)
            return 0;
        int st;
        if (waitpid(g->pid, &st, WNOHANG) == g->pid) {
            g->pid = 0;
            return -1;
        }
        usleep(10000);
    }
    return -1;
}

static int gw_start_listen(gw *g, const char *extra, const char *listen)
{
    return gw_start_tagged(g, extra, listen, "serve");
}

static int gw_start(gw *g, const char *extra)
{
    return gw_start_listen(g, extra, "127.0.0.1:0");
}

/* Stops it (SIGTERM) and returns its exit status. */
static int gw_stop(gw *g)
{
    int st = -1;
    if (g->pid > 0) {
        kill(g->pid, SIGTERM);
        waitpid(g->pid, &st, 0);
    }
    free(g->conf);
    free(g->err);
    g->conf = g->err = NULL;
    g->pid = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *gw_log(gw *g)
{
    char *e = tu_read_file(g->err, NULL);
    return e ? e : strdup("");
}

/* ---- a small HTTP client ----------------------------------------------------------- */

static int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { 0 };
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int send_request(int fd, const char *method, const char *path, const char *headers,
                        const char *body)
{
    char head[2048];
    size_t blen = body ? strlen(body) : 0;
    int n = snprintf(head, sizeof head,
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s"
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                     method, path, headers ? headers : "", blen);
    if (write(fd, head, (size_t)n) != n)
        return -1;
    if (blen && write(fd, body, blen) != (ssize_t)blen)
        return -1;
    return 0;
}

typedef struct resp {
    int status;
    char *headers;
    char *body;  /* de-chunked */
} resp;

static void resp_free(resp *r)
{
    free(r->headers);
    free(r->body);
    memset(r, 0, sizeof *r);
}

static const char *resp_header(const resp *r, const char *name, char *buf, size_t n)
{
    size_t nl = strlen(name);
    for (const char *p = r->headers; p && *p;) {
        if (strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
            p += nl + 1;
            while (*p == ' ')
                p++;
            size_t k = strcspn(p, "\r\n");
            snprintf(buf, n, "%.*s", (int)(k < n ? k : n - 1), p);
            return buf;
        }
        const char *e = strstr(p, "\r\n");
        p = e ? e + 2 : NULL;
    }
    return NULL;
}

static char *dechunk(const char *s)
{
    size_t len = strlen(s);
    char *out = malloc(len + 1), *o = out;
    while (*s) {
        char *end;
        unsigned long n = strtoul(s, &end, 16);
        const char *data = strstr(end, "\r\n");
        if (!data || n == 0)
            break;
        data += 2;
        if (strlen(data) < n)
            n = strlen(data);
        memcpy(o, data, n);
        o += n;
        s = data + n;
        if (strncmp(s, "\r\n", 2) == 0)
            s += 2;
    }
    *o = '\0';
    return out;
}

static void parse_resp(const char *raw, resp *r)
{
    memset(r, 0, sizeof *r);
    if (strncmp(raw, "HTTP/1.1 ", 9) != 0)
        return;
    r->status = atoi(raw + 9);
    const char *sep = strstr(raw, "\r\n\r\n");
    if (!sep)
        return;
    r->headers = strndup(raw, (size_t)(sep - raw) + 2);
    char te[64];
    if (resp_header(r, "Transfer-Encoding", te, sizeof te) && strcasecmp(te, "chunked") == 0)
        r->body = dechunk(sep + 4);
    else
        r->body = strdup(sep + 4);
}

static char *read_all(int fd)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len + 1024 > cap)
            buf = realloc(buf, cap *= 2);
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, 10000) <= 0)
            break;
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    return buf;
}

static void http(int port, const char *method, const char *path, const char *headers,
                 const char *body, resp *r)
{
    memset(r, 0, sizeof *r);
    int fd = connect_to(port);
    if (fd < 0 || send_request(fd, method, path, headers, body) < 0) {
        if (fd >= 0)
            close(fd);
        return;
    }
    char *raw = read_all(fd);
    close(fd);
    parse_resp(raw, r);
    free(raw);
}

static void post(int port, const char *path, const char *body, resp *r)
{
    http(port, "POST", path, NULL, body, r);
}

/* The status of an exchange whose answer the test does not read. */
static int status_of(int port, const char *method, const char *path, const char *headers,
                     const char *body)
{
    resp r;
    http(port, method, path, headers, body, &r);
    int status = r.status;
    resp_free(&r);
    return status;
}

/* ---- upstream scripts ------------------------------------------------------------- */

#define OA(delta, finish) \
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-x\"," \
    "\"choices\":[{\"index\":0,\"delta\":" delta ",\"finish_reason\":" finish "}]}\n\n"
#define OA_USAGE \
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-x\"," \
    "\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":3,\"total_tokens\":14}}\n\n"

static const char *text_sse =
    OA("{\"role\":\"assistant\",\"content\":\"Hel\"}", "null")
    OA("{\"content\":\"lo \\\"w\\\"\"}", "null")
    OA("{}", "\"stop\"") OA_USAGE "data: [DONE]\n\n";

static const char *tool_sse =
    OA("{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\","
       "\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}", "null")
    OA("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"city\\\":\"}}]}", "null")
    OA("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"Paris\\\"}\"}}]}", "null")
    OA("{}", "\"tool_calls\"") OA_USAGE "data: [DONE]\n\n";

static const char *anthropic_thinking_sse =
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
    "\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Let me think\"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"SIG123\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Forty-two\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"calc\",\"input\":{}}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"x\\\":1}\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}\n\n"
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":20}}\n\n"
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

static const char *chat_body =
    "{\"model\":\"default\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
    "{\"role\":\"user\",\"content\":\"PROMPT-TEXT-hello\"}]}";

/* ---- chat completions --------------------------------------------------------------- */

static gw G; /* the gateway most tests share (no keys) */

/* Posts body to path on G, the upstream answering with answer (split bytes a
 * write); what G sent upstream (NULL when it sent nothing). */
static const char *exchange(const char *answer, size_t split, const char *path, const char *body,
                            resp *r)
{
    fake_server_push_sse(up, answer, split);
    size_t before = fake_server_request_count(up);
    post(G.port, path, body, r);
    return fake_server_request_count(up) > before ? fake_server_request_body(up, before) : NULL;
}

/* Sends method path (with body, may be NULL) to G: the answer has that
 * status and holds each of the needles (a NULL-ended list). */
static void expect_answer_at(const char *method, const char *path, const char *body, int status,
                             const char *const *needles, int line)
{
    resp r;
    http(G.port, method, path, NULL, body, &r);
    CU_ASSERT_EQUAL(r.status, status);
    tu_contains_all(r.body, needles, __FILE__, line);
    resp_free(&r);
}
#define EXPECT_ANSWER(method, path, body, status, ...) \
    expect_answer_at((method), (path), (body), (status), (const char *const[]){ __VA_ARGS__, NULL }, __LINE__)

static void test_chat_plain(void)
{
    fake_server_push_sse(up, text_sse, 0);
    size_t before = fake_server_request_count(up);
    resp r;
    post(G.port, "/v1/chat/completions", chat_body, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    TU_ASSERT_CONTAINS(r.body, "\"object\":\"chat.completion\"",
                       "\"content\":\"Hello \\\"w\\\"\"",
                       "\"model\":\"up/gpt-x\"",
                       "\"finish_reason\":\"stop\"",
                       "\"prompt_tokens\":11");
    CU_ASSERT_EQUAL(fake_server_request_count(up), before + 1);
    const char *sent = fake_server_request_body(up, before);
    TU_ASSERT_CONTAINS(sent, "Be brief.",
                       "\"gpt-x\"");
    resp_free(&r);
}

static void test_chat_stream(void)
{
    resp r;
    exchange(text_sse, 7, "/v1/chat/completions",
         "{\"model\":\"up/gpt-x\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
         "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", &r);
    char ct[128];
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT_STRING_EQUAL(resp_header(&r, "Content-Type", ct, sizeof ct) ? ct : "",
                           "text/event-stream");
    TU_ASSERT_CONTAINS(r.body, "\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}",
                       "\"finish_reason\":\"stop\"",
                       "\"choices\":[],\"usage\":{\"prompt_tokens\":11");
    size_t bl = r.body ? strlen(r.body) : 0;
    CU_ASSERT(bl > 14 && strcmp(r.body + bl - 14, "data: [DONE]\n\n") == 0);
    resp_free(&r);
}

static void test_chat_tools(void)
{
    resp r;
    const char *sent = exchange(tool_sse, 0, "/v1/chat/completions",
         "{\"model\":\"default\",\"messages\":[{\"role\":\"user\",\"content\":\"weather?\"}],"
         "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"description\":\"d\","
         "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}],"
         "\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}}", &r);
    CU_ASSERT_EQUAL(r.status, 200);
    TU_ASSERT_CONTAINS(r.body, "\"tool_calls\":[{\"id\":\"call_1\",\"type\":"
                           "\"function\",\"function\":{\"name\":\"get_weather\","
                           "\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]",
                       "\"finish_reason\":\"tool_calls\"",
                       "\"content\":null");
    TU_ASSERT_CONTAINS(sent, "\"get_weather\"",
                       "\"tool_choice\"");
    resp_free(&r);

    /* the second step: the tool's result goes back as a tool turn */
    sent = exchange(text_sse, 0, "/v1/chat/completions",
         "{\"model\":\"default\",\"messages\":[{\"role\":\"user\",\"content\":\"weather?\"},"
         "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
         "\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]},"
         "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"sunny, 21C\"}]}", &r);
    CU_ASSERT_EQUAL(r.status, 200);
    TU_ASSERT_CONTAINS(sent, "sunny, 21C",
                       "\"tool_call_id\":\"call_1\"");
    resp_free(&r);
}

static void test_chat_tool_stream(void)
{
    resp r;
    exchange(tool_sse, 0, "/v1/chat/completions",
         "{\"model\":\"default\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"w\"}],"
         "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}]}", &r);
    CU_ASSERT_EQUAL(r.status, 200);
    TU_ASSERT_CONTAINS(r.body, "\"tool_calls\":[{\"index\":0,\"id\":\"call_1\","
                           "\"type\":\"function\",\"function\":{\"name\":"
                           "\"get_weather\",\"arguments\":\"\"}}]",
                       "\"tool_calls\":[{\"index\":0,\"function\":"
                           "{\"arguments\":\"{\\\"city\\\":\"}}]",
                       "\"finish_reason\":\"tool_calls\"");
    resp_free(&r);
}

static void test_chat_schema_and_image(void)
{
    resp r;
    const char *sent = exchange(text_sse, 0, "/v1/chat/completions",
         "{\"model\":\"default\",\"messages\":[{\"role\":\"user\",\"content\":["
         "{\"type\":\"text\",\"text\":\"what is it?\"},"
         "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,iVBORw0KGgo=\"}}]}],"
         "\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"answer\","
         "\"strict\":true,\"schema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}}}}",
         &r);
    CU_ASSERT_EQUAL(r.status, 200);
    TU_ASSERT_CONTAINS(sent, "\"json_schema\"",
                       "\"answer\"",
                       "data:image/png;base64,iVBORw0KGgo=");
    resp_free(&r);
}

/* ---- errors -------------------------------------------------------------------------- */

static void test_errors_openai(void)
{
    resp r;
    char h[64];
    fake_server_push_json(up, 429, "{\"error\":{\"message\":\"slow down\",\"type\":\"requests\","
                                   "\"code\":\"rate_limit_exceeded\"}}", "Retry-After: 7\r\n");
    post(G.port, "/v1/chat/completions", "{\"model\":\"e429/gpt-x\",\"messages\":[{\"role\":\"user\","
                                         "\"content\":\"x\"}]}", &r);
    CU_ASSERT_EQUAL(r.status, 429);
    CU_ASSERT_STRING_EQUAL(resp_header(&r, "Retry-After", h, sizeof h) ? h : "", "7");
    TU_ASSERT_CONTAINS(r.body, "{\"error\":{\"message\":",
                       "\"type\":\"rate_limit_error\"");
    CU_ASSERT_PTR_NULL(r.body ? strstr(r.body, "SECRET") : NULL);
    resp_free(&r);

    fake_server_push_json(up, 401, "{\"error\":{\"message\":\"Incorrect API key provided\","
                                   "\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}", NULL);
    EXPECT_ANSWER("POST", "/v1/chat/completions", "{\"model\":\"e401/gpt-x\",\"messages\":[{\"role\":\"user\","
                  "\"content\":\"x\"}]}",
                  401, "\"type\":\"authentication_error\"");

    EXPECT_ANSWER("POST", "/v1/chat/completions", "{\"model\":\"nope\",\"messages\":[{\"role\":\"user\","
                  "\"content\":\"x\"}]}",
                  404, "\"code\":\"model_not_found\"");

    EXPECT_ANSWER("POST", "/v1/chat/completions", "{\"model\":",
                  400, "\"type\":\"invalid_request_error\"");

    CU_ASSERT_EQUAL(status_of(G.port, "POST", "/v1/chat/completions",
                              NULL, "{\"model\":\"default\",\"messages\":[{\"role\":\"wizard\","
                              "\"content\":\"x\"}]}"), 400);

    CU_ASSERT_EQUAL(status_of(G.port, "GET", "/v1/chat/completions", NULL, NULL), 405);
    CU_ASSERT_EQUAL(status_of(G.port, "GET", "/nowhere", NULL, NULL), 404);
}

static void test_errors_anthropic(void)
{
    resp r;
    char h[64];
    fake_server_push_json(up, 429, "{\"error\":{\"message\":\"slow down\",\"type\":\"requests\"}}",
                          "Retry-After: 3\r\n");
    post(G.port, "/v1/messages", "{\"model\":\"a429/gpt-x\",\"max_tokens\":5,\"messages\":"
                                 "[{\"role\":\"user\",\"content\":\"x\"}]}", &r);
    CU_ASSERT_EQUAL(r.status, 429);
    CU_ASSERT_STRING_EQUAL(resp_header(&r, "Retry-After", h, sizeof h) ? h : "", "3");
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "{\"type\":\"error\",\"error\":{\"type\":"
                                                    "\"rate_limit_error\""));
    resp_free(&r);
    EXPECT_ANSWER("POST", "/v1/messages", "{\"model\":\"default\",\"messages\":[]}",
                  400, "\"invalid_request_error\"");
    EXPECT_ANSWER("POST", "/v1/messages", "{\"model\":\"zzz\",\"max_tokens\":5,\"messages\":"
                  "[{\"role\":\"user\",\"content\":\"x\"}]}",
                  404, "\"not_found_error\"");
}

/* An upstream stream cut after content: the error goes out as the wire's
 * error event, after the content already sent. */
static void test_error_after_stream_began(void)
{
    static const char part[] = OA("{\"role\":\"assistant\",\"content\":\"partial\"}", "null");
    fake_response fr = { 0 };
    fr.body = part;
    fr.cut_after = sizeof part - 1;
    fake_server_push(up, &fr);
    resp r;
    post(G.port, "/v1/chat/completions", "{\"model\":\"default\",\"stream\":true,\"messages\":"
                                         "[{\"role\":\"user\",\"content\":\"x\"}]}", &r);
    CU_ASSERT_EQUAL(r.status, 200);
    const char *pc = r.body ? strstr(r.body, "partial") : NULL;
    const char *ev = r.body ? strstr(r.body, "data: {\"error\":{") : NULL;
    CU_ASSERT_PTR_NOT_NULL(pc);
    CU_ASSERT_PTR_NOT_NULL(ev);
    CU_ASSERT(pc && ev && pc < ev);
    CU_ASSERT_PTR_NULL(r.body ? strstr(r.body, "[DONE]") : NULL);
    resp_free(&r);

    fake_server_push(up, &fr);
    post(G.port, "/v1/messages", "{\"model\":\"default\",\"max_tokens\":5,\"stream\":true,\"messages\":"
                                 "[{\"role\":\"user\",\"content\":\"x\"}]}", &r);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "event: error\ndata: {\"type\":\"error\","));
    CU_ASSERT_PTR_NULL(r.body ? strstr(r.body, "message_stop") : NULL);
    resp_free(&r);
}

/* ---- a client that hangs up cancels the upstream call -------------------------------- */

static void hangup_case(const char *path, const char *body, int read_first)
{
    /* an upstream that dribbles one event every 10 ms for 5 s: it sees a
     * close at its next write, so it notices within 10 ms */
    static char slow[131072];
    slow[0] = '\0';
    for (int i = 0; i < 500; i++)
        strcat(slow, OA("{\"content\":\"tick \"}", "null"));
    strcat(slow, OA("{}", "\"stop\"") "data: [DONE]\n\n");
    fake_response fr = { 0 };
    fr.body = slow;
    fr.split = strlen(OA("{\"content\":\"tick \"}", "null"));
    fr.delay_ms = 10;
    size_t aborts = fake_server_client_aborts(up);
    fake_server_push(up, &fr);
    int fd = connect_to(G.port);
    CU_ASSERT_FATAL(fd >= 0);
    send_request(fd, "POST", path, NULL, body);
    if (read_first) {
        char buf[512];
        struct pollfd p = { fd, POLLIN, 0 };
        CU_ASSERT(poll(&p, 1, 5000) == 1);
        CU_ASSERT(read(fd, buf, sizeof buf) > 0);
    } else {
        usleep(150 * 1000); /* the call is in flight, nothing sent back yet */
    }
    int64_t t0 = now_ms();
    close(fd);
    while (fake_server_client_aborts(up) == aborts && now_ms() - t0 < 3000)
        usleep(1000);
    int64_t took = now_ms() - t0;
    CU_ASSERT_EQUAL(fake_server_client_aborts(up), aborts + 1);
    CU_ASSERT(took < 100);
    printf("[upstream closed %lld ms after the client hung up] ", (long long)took);
}

static void test_hangup_stream(void)
{
    hangup_case("/v1/chat/completions",
                "{\"model\":\"default\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", 1);
}

static void test_hangup_waiting(void)
{
    hangup_case("/v1/chat/completions",
                "{\"model\":\"default\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", 0);
}

/* An embeddings call runs on a worker of its own, its connection suspended
 * (MHD polls it no more): the gateway's watcher must still see the hang-up. */
static void test_hangup_embeddings(void)
{
    hangup_case("/v1/embeddings", "{\"model\":\"up/text-embedding-3-small\",\"input\":\"x\"}", 0);
}

/* ---- Anthropic Messages ----------------------------------------------------------------- */

static void test_messages(void)
{
    resp r;
    const char *sent = exchange(text_sse, 0, "/v1/messages",
         "{\"model\":\"default\",\"max_tokens\":100,\"system\":[{\"type\":\"text\",\"text\":\"Sys.\"}],"
         "\"messages\":[{\"role\":\"user\",\"content\":\"q\"},"
         "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_9\",\"name\":\"calc\",\"input\":{\"x\":2}}]},"
         "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_9\",\"content\":\"4\"}]}],"
         "\"tools\":[{\"name\":\"calc\",\"input_schema\":{\"type\":\"object\"}}],"
         "\"tool_choice\":{\"type\":\"any\"}}", &r);
    CU_ASSERT_EQUAL(r.status, 200);
    TU_ASSERT_CONTAINS(r.body, "\"type\":\"message\"",
                       "\"content\":[{\"type\":\"text\",\"text\":\"Hello \\\"w\\\"\"}]",
                       "\"stop_reason\":\"end_turn\"",
                       "\"input_tokens\":11");
    TU_ASSERT_CONTAINS(sent, "Sys.",
                       "\"tool_call_id\":\"toolu_9\"",
                       "\"tool_choice\":\"required\"");
    resp_free(&r);
}

static void test_messages_thinking_stream(void)
{
    /* What the streamed answer must say, in this order. */
    static const char *const events[] = {
        "event: message_start",
        "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}",
        "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Let me think\"}",
        "\"delta\":{\"type\":\"signature_delta\",\"signature\":\"SIG123\"}",
        "{\"type\":\"content_block_stop\",\"index\":0}",
        "\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}",
        "\"delta\":{\"type\":\"text_delta\",\"text\":\"Forty-two\"}",
        "\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"calc\"",
        "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"x\\\":1}\"}",
        "\"stop_reason\":\"tool_use\"",
        "event: message_stop",
        NULL,
    };
    resp r;
    const char *sent = exchange(anthropic_thinking_sse, 13, "/v1/messages",
         "{\"model\":\"claude\",\"max_tokens\":2000,\"stream\":true,\"thinking\":{\"type\":\"enabled\","
         "\"budget_tokens\":1024},\"messages\":[{\"role\":\"user\",\"content\":\"q\"}],"
         "\"tools\":[{\"name\":\"calc\",\"input_schema\":{\"type\":\"object\"}}]}", &r);
    CU_ASSERT_EQUAL(r.status, 200);
    tu_contains_in_order(r.body, events, __FILE__, __LINE__);
    CU_ASSERT_PTR_NOT_NULL(sent && strstr(sent, "\"budget_tokens\":1024"));
    resp_free(&r);

    /* not streamed: the same answer as blocks */
    exchange(anthropic_thinking_sse, 0, "/v1/messages",
         "{\"model\":\"ant/claude-sonnet-4-5\",\"max_tokens\":2000,\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}",
         &r);
    CU_ASSERT_EQUAL(r.status, 200);
    TU_ASSERT_CONTAINS(r.body, "{\"type\":\"thinking\",\"thinking\":\"Let me think\","
                           "\"signature\":\"SIG123\"}",
                       "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":"
                           "\"calc\",\"input\":{\"x\":1}}",
                       "\"model\":\"ant/claude-sonnet-4-5\"");
    resp_free(&r);
}

/* ---- Responses ----------------------------------------------------------------------------- */

static void test_responses(void)
{
    resp r;
    exchange(tool_sse, 0, "/v1/responses",
         "{\"model\":\"default\",\"instructions\":\"Be brief.\",\"input\":\"weather?\","
         "\"tools\":[{\"type\":\"function\",\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\"}}]}",
         &r);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "\"type\":\"function_call\",\"id\":\"fc_call_1\","
                                                    "\"call_id\":\"call_1\",\"name\":\"get_weather\","
                                                    "\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\""));
    resp_free(&r);

    /* The call's output handed back, the answer streamed. */
    const char *round_trip =
         "{\"model\":\"default\",\"stream\":true,\"input\":[{\"role\":\"user\",\"content\":\"weather?\"},"
         "{\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"{}\"},"
         "{\"type\":\"function_call_output\",\"call_id\":\"call_1\",\"output\":\"sunny\"}]}";
    const char *sent = exchange(text_sse, 5, "/v1/responses", round_trip, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    TU_ASSERT_CONTAINS(r.body, "event: response.created",
                       "\"type\":\"response.output_text.delta\",\"sequence_number\":4",
                       "\"text\":\"Hello \\\"w\\\"\"",
                       "event: response.completed");
    CU_ASSERT_PTR_NOT_NULL(sent && strstr(sent, "sunny"));
    resp_free(&r);
}

/* ---- models, health, metrics, the access log ---------------------------------------------- */

static void test_models_health_metrics(void)
{
    EXPECT_ANSWER("GET", "/v1/models", NULL, 200,
                  "{\"id\":\"default\",\"object\":\"model\"",
                  "{\"id\":\"assistant\"",
                  "{\"id\":\"up/gpt-x\"",
                  "{\"id\":\"ant/claude-sonnet-4-5\"");
    CU_ASSERT_EQUAL(status_of(G.port, "GET", "/healthz", NULL, NULL), 200);
    EXPECT_ANSWER("GET", "/metrics", NULL, 200,
                  "seam_gateway_requests_total{path=\"/v1/chat/completions\",status=\"200\"}",
                  "seam_gateway_errors_total{kind=\"rate_limit\",provider=\"e429\"}",
                  "seam_gateway_request_duration_seconds_bucket{le=\"+Inf\"}",
                  "seam_gateway_tokens_total{kind=\"input\"}");

    char *log = gw_log(&G);
    TU_ASSERT_CONTAINS(log, "path=/v1/chat/completions status=200",
                       "answered=up/gpt-x");
    CU_ASSERT_PTR_NULL(strstr(log, "PROMPT-TEXT"));
    CU_ASSERT_PTR_NULL(strstr(log, "SECRET"));
    free(log);
}

/* ---- keys and limits ------------------------------------------------------------------------- */

static void test_keys(void)
{
    /* sha256("gw-key-alice") and sha256("gw-key-bob") */
    char ha[65], hb[65];
    char hc[65];
    FILE *p = popen("printf %s gw-key-alice | sha256sum; printf %s gw-key-bob | sha256sum; "
                    "printf %s gw-key-carol | sha256sum", "r");
    CU_ASSERT_FATAL(p && fscanf(p, "%64s %*s %64s %*s %64s", ha, hb, hc) == 3);
    pclose(p);
    char extra[1024];
    snprintf(extra, sizeof extra,
             "serve = { keys = {\n"
             "  alice = { sha256 = \"%s\"; models = [ \"default\" ]; requests_per_minute = 2; };\n"
             "  bob = { sha256 = \"%s\"; models = [ \"ant/*\" ]; };\n"
             "  carol = { sha256 = \"%s\"; budget_microcents = 1000L; };\n"
             "}; };\n", ha, hb, hc);
    gw k;
    CU_ASSERT_FATAL(gw_start(&k, extra) == 0);
    resp r;
    CU_ASSERT_EQUAL(status_of(k.port, "POST", "/v1/chat/completions", NULL, chat_body), 401);
    http(k.port, "POST", "/v1/chat/completions", "Authorization: Bearer wrong\r\n", chat_body, &r);
    CU_ASSERT_EQUAL(r.status, 401);
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "\"code\":\"invalid_api_key\""));
    resp_free(&r);
    fake_server_push_sse(up, text_sse, 0);
    CU_ASSERT_EQUAL(status_of(k.port, "POST", "/v1/chat/completions",
                              "Authorization: Bearer gw-key-alice\r\n", chat_body), 200);
    /* bob may not use the default chain; he sees only what he may use */
    CU_ASSERT_EQUAL(status_of(k.port, "POST", "/v1/chat/completions",
                              "Authorization: Bearer gw-key-bob\r\n", chat_body), 403);
    http(k.port, "GET", "/v1/models", "x-api-key: gw-key-bob\r\n", NULL, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT_PTR_NULL(r.body ? strstr(r.body, "\"default\"") : "x");
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "\"ant/claude-sonnet-4-5\""));
    resp_free(&r);
    /* alice: 2 requests a minute, the second went through, the third waits */
    fake_server_push_sse(up, text_sse, 0);
    CU_ASSERT_EQUAL(status_of(k.port, "POST", "/v1/chat/completions",
                              "Authorization: Bearer gw-key-alice\r\n", chat_body), 200);
    http(k.port, "POST", "/v1/chat/completions", "Authorization: Bearer gw-key-alice\r\n",
         chat_body, &r);
    char h[32];
    CU_ASSERT_EQUAL(r.status, 429);
    CU_ASSERT_PTR_NOT_NULL(resp_header(&r, "Retry-After", h, sizeof h));
    resp_free(&r);
    /* carol's budget: the first answer costs 1700 micro-cents (11 input
     * tokens at $1/M, 3 output at $2/M), so the second is refused */
    fake_server_push_sse(up, text_sse, 0);
    CU_ASSERT_EQUAL(status_of(k.port, "POST", "/v1/chat/completions",
                              "Authorization: Bearer gw-key-carol\r\n", chat_body), 200);
    usleep(50 * 1000); /* charged when the gateway is done with the request */
    http(k.port, "POST", "/v1/chat/completions", "Authorization: Bearer gw-key-carol\r\n",
         chat_body, &r);
    CU_ASSERT_EQUAL(r.status, 429);
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "\"code\":\"insufficient_quota\""));
    resp_free(&r);
    char *log = gw_log(&k);
    TU_ASSERT_CONTAINS(log, "key=carol",
                       "cost_microcents=1700",
                       "key=alice");
    CU_ASSERT_PTR_NULL(strstr(log, "gw-key-"));
    free(log);
    CU_ASSERT_EQUAL(gw_stop(&k), 0);
}

static void test_serve_section_checked(void)
{
    gw k;
    CU_ASSERT_NOT_EQUAL(gw_start(&k, "serve = { keys = { x = { sha256 = \"00\"; }; }; };\n"), 0);
    char *log = gw_log(&k);
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "serve.keys.x.sha256 must be 64 hex digits"));
    free(log);
    gw_stop(&k);
    CU_ASSERT_NOT_EQUAL(gw_start(&k, "serve = { keys = { x = { sha256 = \"0000000000000000000000"
                                     "000000000000000000000000000000000000000000\";\n"
                                     "  requests_per_minut = 5; }; }; };\n"), 0);
    log = gw_log(&k);
    TU_ASSERT_CONTAINS(log, "serve.conf:",
                       ": unknown setting serve.keys.x.requests_per_minut (expected");
    free(log);
    gw_stop(&k);
}

static void test_no_keys_loopback_only(void)
{
    gw k;
    CU_ASSERT_NOT_EQUAL(gw_start_listen(&k, "", "0.0.0.0:0"), 0);
    char *log = gw_log(&k);
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "refusing to listen on 0.0.0.0:0 with no keys"));
    free(log);
    gw_stop(&k);
}

/* ---- reload and drain ---------------------------------------------------------------------- */

static void test_reload_and_drain(void)
{
    gw k;
    CU_ASSERT_FATAL(gw_start(&k, "") == 0);
    /* a stream in flight across the reload and the drain */
    fake_response fr = { 0 };
    fr.body = text_sse;
    fr.split = 40;
    fr.delay_ms = 60;
    fake_server_push(up, &fr);
    int fd = connect_to(k.port);
    send_request(fd, "POST", "/v1/chat/completions", NULL,
                 "{\"model\":\"default\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
    usleep(100 * 1000);
    char *text = tu_read_file(k.conf, NULL);
    char *more = malloc(strlen(text) + 200);
    sprintf(more, "%schains2 = 1;\n", text); /* a broken conf: the reload must keep the old one */
    tu_write_file(k.conf, more);
    kill(k.pid, SIGHUP);
    usleep(100 * 1000);
    sprintf(more, "%s", text);
    char *c = strstr(more, "claude = (");
    CU_ASSERT_FATAL(c != NULL);
    memcpy(c, "newone", 6); /* renames the chain claude -> newone */
    tu_write_file(k.conf, more);
    kill(k.pid, SIGHUP);
    usleep(200 * 1000);
    resp r;
    http(k.port, "GET", "/v1/models", NULL, NULL, &r);
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "\"newone\""));
    resp_free(&r);
    kill(k.pid, SIGTERM);
    char *raw = read_all(fd);
    close(fd);
    CU_ASSERT_PTR_NOT_NULL(strstr(raw, "data: [DONE]")); /* drained, not cut */
    free(raw);
    int st;
    waitpid(k.pid, &st, 0);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char *log = gw_log(&k);
    TU_ASSERT_CONTAINS(log, "reload failed, keeping the running conf",
                       "conf reloaded");
    free(log);
    k.pid = 0;
    gw_stop(&k);
    free(text);
    free(more);
}

static void stop_gateway(void *arg)
{
    (void)arg;
    gw_stop(&G);
}

static int start(void)
{
    up = tu_server_start();
    tmpdir = tu_mkdtemp_private();
    if (!up || !tmpdir)
        return -1;
    tu_rm_rf_at_end(tmpdir);
    printf("libseam %s, gateway on the fake provider at %s\n", seam_version(), fake_server_url(up));
    if (gw_start(&G, "") != 0) {
        fprintf(stderr, "cannot start seam serve\n");
        return -1;
    }
    tu_at_end(stop_gateway, NULL);
    return 0;
}

/* Two gateways sharing a Redis state store spend one key budget and one rate
 * limit between them (issue 18): the answer through A spends carol's budget,
 * so B refuses her next request although B itself has charged her nothing;
 * dave's one request a minute, made through A, leaves none for B. */
static void test_budget_shared_between_gateways(void)
{
    if (!tu_redis_available()) {
        fprintf(stderr, "\n  (no redis-server: the shared budget is not tried)\n");
        return;
    }
    tu_redis *redis = tu_redis_start(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(redis);
    char hc[65], hd[65];
    FILE *p = popen("printf %s gw-key-carol | sha256sum; printf %s gw-key-dave | sha256sum", "r");
    CU_ASSERT_FATAL(p && fscanf(p, "%64s %*s %64s", hc, hd) == 2);
    pclose(p);
    char extra[1024];
    snprintf(extra, sizeof extra,
             "state = { backend = \"redis\"; host = \"127.0.0.1\"; port = %d; prefix = \"gwtest\"; };\n"
             "serve = { keys = { carol = { sha256 = \"%s\"; budget_microcents = 1000L; };\n"
             "                   dave = { sha256 = \"%s\"; requests_per_minute = 1; }; }; };\n",
             tu_redis_port(redis), hc, hd);
    gw a, b;
    CU_ASSERT_FATAL(gw_start_tagged(&a, extra, "127.0.0.1:0", "serve-a") == 0);
    CU_ASSERT_FATAL(gw_start_tagged(&b, extra, "127.0.0.1:0", "serve-b") == 0);
    resp r;
    fake_server_push_sse(up, text_sse, 0); /* 1700 micro-cents, as in test_keys */
    CU_ASSERT_EQUAL(status_of(a.port, "POST", "/v1/chat/completions",
                              "Authorization: Bearer gw-key-carol\r\n", chat_body), 200);
    /* A charges the answer when it is done with the request: its access-log
     * line is written right after. */
    int charged = 0;
    for (int i = 0; i < 300 && !charged; i++) {
        char *log = gw_log(&a);
        charged = strstr(log, "cost_microcents=1700") != NULL;
        free(log);
        if (!charged)
            usleep(10 * 1000);
    }
    CU_ASSERT_TRUE(charged);
    size_t before = fake_server_request_count(up);
    http(b.port, "POST", "/v1/chat/completions", "Authorization: Bearer gw-key-carol\r\n",
         chat_body, &r);
    CU_ASSERT_EQUAL(r.status, 429);
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "\"code\":\"insufficient_quota\""));
    resp_free(&r);
    CU_ASSERT_EQUAL(fake_server_request_count(up), before); /* B sent nothing upstream */
    /* dave may make one request a minute, wherever it lands */
    fake_server_push_sse(up, text_sse, 0);
    CU_ASSERT_EQUAL(status_of(a.port, "POST", "/v1/chat/completions",
                              "Authorization: Bearer gw-key-dave\r\n", chat_body), 200);
    before = fake_server_request_count(up);
    http(b.port, "POST", "/v1/chat/completions", "Authorization: Bearer gw-key-dave\r\n",
         chat_body, &r);
    char h[32];
    CU_ASSERT_EQUAL(r.status, 429);
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "\"code\":\"rate_limit_exceeded\""));
    CU_ASSERT_PTR_NOT_NULL(resp_header(&r, "Retry-After", h, sizeof h));
    resp_free(&r);
    CU_ASSERT_EQUAL(fake_server_request_count(up), before);
    CU_ASSERT_EQUAL(gw_stop(&a), 0);
    CU_ASSERT_EQUAL(gw_stop(&b), 0);
    tu_redis_stop(redis);
}

/* Issue 17's latency work: a non-streamed request goes upstream non-streamed
 * (one JSON answer, decoded whole), and --threads 0 runs HTTP and the engine
 * on one loop: a whole answer, a stream, an upstream error, and a drain. */
static void test_whole_upstream_one_loop(void)
{
    gw k;
    gw_whole = 1;
    int started = gw_start(&k, "serve = { threads = 0; };\n");
    gw_whole = 0;
    CU_ASSERT_FATAL(started == 0);
    fake_server_push_json(up, 200, "{\"id\":\"c9\",\"object\":\"chat.completion\",\"model\":\"gpt-x\","
                          "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
                          "\"Whole\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":4,"
                          "\"completion_tokens\":1,\"total_tokens\":5}}", NULL);
    size_t before = fake_server_request_count(up);
    resp r;
    post(k.port, "/v1/chat/completions", chat_body, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "\"content\":\"Whole\""));
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "\"prompt_tokens\":4"));
    resp_free(&r);
    const char *sent = fake_server_request_body(up, before);
    CU_ASSERT_PTR_NOT_NULL(sent);
    CU_ASSERT_PTR_NULL(sent && strstr(sent, "\"stream\":true"));
    /* max_attempts = 1 */
    fake_server_push_json(up, 429, "{\"error\":{\"message\":\"slow down\"}}", "Retry-After: 0\r\n");
    post(k.port, "/v1/chat/completions", chat_body, &r);
    CU_ASSERT_EQUAL(r.status, 429);
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "\"error\""));
    resp_free(&r);
    fake_server_push_sse(up, text_sse, 7);
    post(k.port, "/v1/chat/completions",
         "{\"model\":\"default\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
         &r);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "lo \\\"w\\\""));
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "data: [DONE]"));
    resp_free(&r);
    CU_ASSERT_EQUAL(gw_stop(&k), 0);
}

static const tu_test tests[] = {
    { "chat: a whole answer", test_chat_plain },
    { "chat: streamed, with usage", test_chat_stream },
    { "chat: tools, tool_choice, two steps", test_chat_tools },
    { "chat: a streamed tool call", test_chat_tool_stream },
    { "chat: json_schema and an image", test_chat_schema_and_image },
    { "errors in OpenAI's shape", test_errors_openai },
    { "errors in Anthropic's shape", test_errors_anthropic },
    { "an error after the stream began", test_error_after_stream_began },
    { "hang-up mid-stream closes upstream", test_hangup_stream },
    { "hang-up while waiting closes upstream", test_hangup_waiting },
    { "hang-up during an embeddings call closes upstream", test_hangup_embeddings },
    { "messages: tools and tool results", test_messages },
    { "messages: thinking, streamed and not", test_messages_thinking_stream },
    { "responses: tools, streamed text", test_responses },
    { "models, healthz, metrics, access log", test_models_health_metrics },
    { "keys: hashes, models, rate limit, budget", test_keys },
    { "keys: a budget and a rate shared by two gateways on Redis", test_budget_shared_between_gateways },
    { "no keys: loopback only", test_no_keys_loopback_only },
    { "the serve section is checked", test_serve_section_checked },
    { "SIGHUP reload, SIGTERM drain", test_reload_and_drain },
    { "a whole answer from upstream, on one loop", test_whole_upstream_one_loop },
    { NULL, NULL },
};

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IONBF, 0);
    /* a seam built --without-microhttpd has no serve: skip */
    char *out = NULL;
    int rc = access(TOP_BUILDDIR "/cli/seam", X_OK) == 0 ?
             tu_run(TOP_BUILDDIR "/cli/seam serve --help", &out, NULL) : -1;
    free(out);
    if (rc != 0)
        return 77;
    return tu_run_suite("serve", tests, start);
}
