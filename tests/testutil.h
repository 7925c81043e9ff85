/* testutil.h — the harness every CUnit test program uses: its main (a table
 * of tests run under CUnit), fake servers and temp dirs released when the
 * suites end, clients made from conf text, what the server received (bodies
 * as JSON, headers, golden comparison), streams run to the end with their
 * chunks collected, files, and running a command.
 *
 * A test program is its tests, then:
 *
 *     static fake_server *srv;
 *     static seam_client *client;
 *
 *     static int start(void)  // the suite's init: what every test shares
 *     {
 *         return tu_start_client_on(&srv, &client,
 *             "providers = { p = { plugin = \"openai\"; base_url = \"@URL@/v1\"; }; };\n");
 *     }
 *
 *     static const tu_test tests[] = {
 *         { "wire: basic request", test_wire_basic },
 *         { NULL, NULL },
 *     };
 *
 *     int main(void)
 *     {
 *         return tu_run_suite("name", tests, start);
 *     }
 *
 * and in Makefile.am its _LDADD is $(TEST_LDADD). The shell tests have
 * tests/testlib.sh. */
#ifndef SEAM_TESTUTIL_H
#define SEAM_TESTUTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <json-c/json.h>
#include <seam/seam.h>

#include "fakeserver.h"

/* ---- the program (tu_suite.c) ------------------------------------------------- */

/* One test, and a suite of them; a table of tests ends with { NULL, NULL }. */
typedef struct tu_test {
    const char *name;
    void (*run)(void);
} tu_test;
typedef struct tu_suite {
    const char *name;
    const tu_test *tests;
    int (*init)(void);       /* may be NULL: before the suite, 0 on success */
    int (*clean)(void);      /* may be NULL: after it */
    void (*setup)(void);     /* may be NULL: before each test */
    void (*teardown)(void);  /* may be NULL: after each test */
} tu_suite;

/* Runs the suites (a table ending with { .name = NULL }) in CUnit's verbose
 * mode, then everything registered with tu_at_end, last registered first.
 * Returns the exit status for main: 0 when every test ran and every assertion
 * held, 1 otherwise, 2 when CUnit could not start. */
int tu_run_suites(const tu_suite *suites);
/* tu_run_suites for a program of one suite; init (may be NULL) makes what
 * the tests share (servers, clients), returning 0, or -1 to fail the program. */
int tu_run_suite(const char *name, const tu_test *tests, int (*init)(void));
/* fn(arg) once the suites have run (or right away when out of memory). */
void tu_at_end(void (*fn)(void *), void *arg);
/* Milliseconds of the monotonic clock. */
int64_t tu_now_ms(void);

/* 1 in a build with AddressSanitizer, which replaces the allocator and
 * reserves terabytes of address space (no RLIMIT_AS, no allocation failures
 * injected by the test); else 0. */
#if defined(__SANITIZE_ADDRESS__)
#define TU_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_SANITIZED 1
#endif
#endif
#ifndef TU_SANITIZED
#define TU_SANITIZED 0
#endif

/* ---- out of descriptors (tu_limits.c) --------------------------------------------- */

typedef struct tu_fds_jam {
    struct rlimit old;
    int fds[64];
    int n;
    int exhausted; /* the last dup failed with EMFILE */
} tu_fds_jam;
/* Lowers the soft descriptor limit to `spare` above the lowest free one and
 * takes descriptors until none is left (fatal assertions on the limits). */
void tu_fds_use_up(tu_fds_jam *j, int spare);
/* Closes them and puts the limit back. */
void tu_fds_give_back(tu_fds_jam *j);

/* ---- servers and clients (tu_fixture.c) ---------------------------------------- */

/* A fake server on an ephemeral 127.0.0.1 port, stopped when the suites end.
 * NULL (said on stderr) on failure. */
fake_server *tu_server_start(void);

/* A client from conf text: writes `plugin_path = [ "<tu_plugin_dir()>" ];`
 * (unless conf_text names its own) and `model_catalog = "";` (unless conf_text
 * names a catalog) followed by conf_text to a conf file in a fresh temp dir,
 * and creates the client with no_default_plugin_dirs = 1. NULL (err filled)
 * on failure. The temp dir is removed by tu_client_free. */
seam_client *tu_client(const char *conf_text, seam_error *err);
void tu_client_free(seam_client *c);
/* c, freed by tu_client_free when the suites end (a client the whole program
 * shares); NULL stays NULL. */
seam_client *tu_client_at_end(seam_client *c);
/* tu_client of printf-formatted conf text; NULL (the error on stderr) on failure. */
seam_client *tu_clientf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* text with every "@URL@" replaced by the server's URL and every "@TMP@" by
 * tu_dir(). Malloc'ed; NULL when out of memory. */
char *tu_expand(fake_server *srv, const char *text);
/* tu_client of tu_expand(srv, conf_text); NULL (the error on stderr) on failure. */
seam_client *tu_client_on(fake_server *srv, const char *conf_text);
/* The suite init of most wire tests: *srv a server (tu_server_start) and
 * *client a client of conf_text on it (tu_client_on) that the program shares.
 * 0, or -1 when either could not be made. */
int tu_start_client_on(fake_server **srv, seam_client **client, const char *conf_text);
/* The same inside one test: *srv a new server and a client of conf_text on it
 * that the test frees (tu_client_free); either failing is a fatal CUnit
 * assertion (two assertions). */
seam_client *tu_test_client_on(fake_server **srv, const char *conf_text);
/* rc, the status of a library call that filled err; when it is not SEAM_OK,
 * "what: <err's message>" goes to stderr first, so a failed assertion on it
 * says why. */
int tu_said(int rc, const seam_error *err, const char *what);
/* For the wire tests of a plugin the build may leave out: c, or NULL (c freed,
 * a note on stderr) when its first provider's plugin is not loaded. */
seam_client *tu_if_built(seam_client *c);

/* A client of conf_text whose plugin_path lists the built plugins first, then
 * the test plugins (tests/plugins also holds a duplicate "mock": the real one
 * must win). Failure is a fatal CUnit assertion. */
seam_client *tu_client_with_test_plugins(const char *conf_text);

/* Conf text of one provider o (the openai plugin at the fake server's /v1, key
 * "k") and the default chain on it, model gpt-4o: for tu_start_client_on. */
#define TU_CONF_OPENAI_DEFAULT                                                            \
    "providers = { o = { plugin = \"openai\"; base_url = \"@URL@/v1\"; api_key = \"k\"; }; };\n" \
    "chains = { default = ( { provider = \"o\"; model = \"gpt-4o\"; } ); };\n"

/* An Anthropic Messages answer: the text "ok", 3 tokens in and 1 out. */
#define TU_ANTHROPIC_OK                                                                        \
    "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\"," \
    "\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"stop_reason\":\"end_turn\","            \
    "\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}"

/* Conf text of two mock providers, m1 (its conf members m1_members, e.g.
 * "options = { reply = \"hi\"; };") and m2 answering "from m2"; chains
 * default (m1) and second (m2); roles assistant (default) and planner (second). */
#define TU_CONF_TWO_MOCKS(m1_members)                                            \
    "providers = {\n"                                                            \
    "  m1 = { plugin = \"mock\"; " m1_members " };\n"                             \
    "  m2 = { plugin = \"mock\"; options = { reply = \"from m2\"; }; };\n"        \
    "};\n"                                                                       \
    "chains = {\n"                                                               \
    "  default = ( { provider = \"m1\"; model = \"mock-1\"; } );\n"              \
    "  second = ( { provider = \"m2\"; model = \"mock-2\"; } );\n"               \
    "};\n"                                                                       \
    "roles = { assistant = \"default\"; planner = \"second\"; };\n"

/* The lines a log callback (seam_client_set_log, seam_state_hooks) was given,
 * one a line, and how many: tu_on_log with a zeroed tu_logbook as ud. */
typedef struct tu_logbook {
    char text[4096];
    int n;
} tu_logbook;
void tu_on_log(void *ud, int level, const char *message);

/* One program-wide capture of client logs, safe from any thread: tu_log_capture
 * sends c's log lines ("<level> <message>") to it, tu_log_has says whether
 * the lines so far hold text, tu_log_clear empties it. */
void tu_log_capture(seam_client *c);
void tu_log_clear(void);
int tu_log_has(const char *text);

/* Runs fn(c) on n threads at once (64 at most) and returns the sum of what
 * they returned: how many of their calls went as they should. */
int tu_on_threads(int n, int (*fn)(seam_client *c), seam_client *c);

/* ---- what the server received (tu_wire.c) ------------------------------------ */

/* The last request's body parsed (caller puts); a fatal assertion without one. */
json_object *tu_last_body(fake_server *s);
/* The last request's header `name` (case-insensitive); NULL when absent. Borrowed. */
const char *tu_last_header(fake_server *s, const char *name);
/* The last request's path with its query; "" before any request. Borrowed. */
const char *tu_last_path(fake_server *s);
/* The last request's body equals the JSON text want (printed with the body when not). */
int tu_last_body_is(fake_server *s, const char *want_text);
/* Walks "a.b.0.c" through objects and arrays; NULL when absent (or null). */
json_object *tu_json_at(json_object *o, const char *path);
/* Whether the member at path exists (null included). */
int tu_json_has(json_object *o, const char *path);
/* The string at path, else "(not a string)"; the integer at path, else -999. */
const char *tu_json_str(json_object *o, const char *path);
int64_t tu_json_int(json_object *o, const char *path);
/* got (may be NULL) equals the JSON text want; both printed when not. */
int tu_json_equal(json_object *got, const char *want_text);
/* Strings equal, neither NULL; both printed with file:line, and a failed CUnit
 * assertion recorded, when not. */
int tu_str_eq(const char *got, const char *want, const char *file, int line);
#define TU_STR_EQ(got, want) tu_str_eq((got), (want), __FILE__, __LINE__)
/* Two CUnit assertions: actual is not NULL, and (then) equals expected; what
 * it was is printed when not (CU_ASSERT_STRING_EQUAL alone would crash on NULL). */
#define TU_ASSERT_STR(actual, expected)                                                    \
    do {                                                                                   \
        const char *actual_ = (actual);                                                    \
        CU_ASSERT_PTR_NOT_NULL(actual_);                                                   \
        if (actual_) {                                                                     \
            if (strcmp(actual_, (expected)) != 0)                                          \
                fprintf(stderr, "\n  %s:%d: got \"%s\"\n", __FILE__, __LINE__, actual_);   \
            CU_ASSERT_STRING_EQUAL(actual_, (expected));                                   \
        }                                                                                  \
    } while (0)

/* A member of a request body (a tu_json_at path) and what it must be: the
 * JSON text it equals, TU_ABSENT (no such member, not even null) or
 * TU_PRESENT (there, whatever it holds). A table of them, TU_MEMBERS(...),
 * ends with { NULL, NULL }. */
typedef struct tu_member {
    const char *path;
    const char *want;
} tu_member;
extern const char tu_present[];
#define TU_ABSENT ((const char *)0)
#define TU_PRESENT tu_present
#define TU_MEMBERS(...) ((const tu_member[]){ __VA_ARGS__, { NULL, NULL } })
/* One CUnit assertion a member of wants, each failure printed with the path
 * and with file:line (the caller's); returns whether all held. */
int tu_members_are(json_object *body, const tu_member *wants, const char *file, int line);
#define TU_ASSERT_MEMBERS(body, ...) tu_members_are((body), TU_MEMBERS(__VA_ARGS__), __FILE__, __LINE__)

/* One CUnit assertion a needle (a NULL-ended list): text is not NULL and
 * holds it; each missing one printed with file:line. Returns whether all were there. */
int tu_contains_all(const char *text, const char *const *needles, const char *file, int line);
#define TU_ASSERT_CONTAINS(text, ...) \
    tu_contains_all((text), (const char *const[]){ __VA_ARGS__, NULL }, __FILE__, __LINE__)

/* An HTTP error answer of the fake server, and what the core must make of it
 * (a table of them is a codec's error table). */
typedef struct tu_http_error {
    int status;
    const char *body;
    const char *headers;      /* extra header lines, each ending "\r\n"; may be NULL */
    seam_error_kind kind;
    int retryable;
    const char *code;
    const char *message_part; /* the error's message holds it; may be NULL */
} tu_http_error;

/* ---- calls run to the end (tu_stream.c) ------------------------------------------ */

/* Flags of the functions below. */
#define TU_SIGNATURES 1u   /* reasoning signatures in the summary and the chunk log */
#define TU_KEEP_MESSAGE 2u /* tu_run_stream keeps a copy of the answer */

/* Call options naming one provider and model; a request of one user text. */
seam_call_options tu_call_opts(const char *provider, const char *model);
seam_request *tu_user_request(const char *text);
/* tu_user_request, its failure (out of memory, the text refused) a fatal
 * CUnit assertion. */
seam_request *tu_user(const char *text);
/* A request of one user text that asks for output in modalities
 * (SEAM_MODALITY_* or'ed), that setting one CUnit assertion. */
seam_request *tu_request_out(const char *text, uint32_t modalities);

/* The attempts a call reports (seam_call_options.on_attempt = tu_on_attempt,
 * .ud = a tu_attempts zeroed), one line each: "outcome provider/model", with
 * TU_ATTEMPT_ERRORS in flags followed by ": message" when it failed. */
#define TU_ATTEMPT_ERRORS 1u
typedef struct tu_attempts {
    char log[4096];
    int n;          /* how many */
    unsigned flags;
} tu_attempts;
void tu_on_attempt(void *ud, const seam_attempt *a);
/* One canonical JSON line of a result: {"text", "reasoning", ["signatures"],
 * "tool_calls": [{"id","name","args"}], "stop", "usage": {"in","out",
 * "cache_read","cache_write","reasoning"} (those present)}. Malloc'ed. */
char *tu_summary(const seam_result *res, unsigned flags);
/* seam_generate of req on c (default chain) fails with SEAM_ERR_PROVIDER, an
 * error of kind whose message holds message_part: three assertions. */
void tu_generate_refused(seam_client *c, const seam_request *req, seam_error_kind kind,
                         const char *message_part);
/* res counts one kind of media use: units of unit ("count", "second") of modality. */
void tu_media_units_are(const seam_result *res, uint32_t modality, double units, const char *unit);
/* Appends a chunk to a log of size bytes: "TD " (a run of text deltas once),
 * "RS(id) ", "RD ", "RE(id) ", "TS(id,name) ", "TE(id,args) ", "STOP(reason)",
 * else the chunk type's name; tool-call deltas are not logged. */
void tu_log_chunk(char *log, size_t size, const seam_chunk *c, unsigned flags);

/* A call run to its end; the caller frees summary and message. */
typedef struct tu_call {
    int status;            /* seam_generate's, or the last seam_stream_next's */
    seam_error err;
    char *summary;         /* tu_summary of the result (malloc'ed), NULL without one */
    char log[8192];        /* tu_log_chunk of every chunk */
    int incomplete;        /* seam_result_incomplete */
    seam_message *message; /* with TU_KEEP_MESSAGE: the answer (owned) */
} tu_call;
tu_call tu_run_stream(seam_client *client, const char *provider, const char *model,
                      const seam_request *req, unsigned flags);
tu_call tu_run_generate(seam_client *client, const char *provider, const char *model,
                        const seam_request *req, unsigned flags);
/* The call's summary is want; else what, the call's status and both
 * summaries are printed. */
int tu_summary_is(const tu_call *r, const char *want, const char *what);

/* ---- files and commands (testutil.c) ------------------------------------------- */

/* A new 0700 directory under $TMPDIR (or /tmp); malloc'ed path, NULL on failure. */
char *tu_mkdtemp(void);
/* A new 0700 directory that may hold plugins: under the build tree
 * (TOP_BUILDDIR "/tests"), since the loader refuses any file below a
 * world-writable directory such as /tmp. malloc'ed path, NULL on failure. */
char *tu_mkdtemp_private(void);
/* The program's temp dir (tu_mkdtemp), made on first use and removed when
 * the suites end. Borrowed; NULL on failure. */
const char *tu_dir(void);
/* Removes a directory tree (best effort). */
void tu_rm_rf(const char *path);
/* Removes the tree and frees the malloc'ed path when the suites end. */
void tu_rm_rf_at_end(char *path);
/* dir + "/" + name, malloc'ed. */
char *tu_path(const char *dir, const char *name);
/* Writes text to path (mode 0600); 0 on success. */
int tu_write_file(const char *path, const char *text);
/* Reads a whole file; malloc'ed, NUL-terminated; *len may be NULL. NULL on failure. */
char *tu_read_file(const char *path, size_t *len);
/* Copies a file (mode 0644); 0 on success. */
int tu_copy_file(const char *from, const char *to);

/* The directory holding the built provider plugins ($SEAM_TEST_PLUGIN_DIR, else
 * TOP_BUILDDIR "/plugins/.libs"). Borrowed. */
const char *tu_plugin_dir(void);
/* The directory holding the test plugins (tests/plugins: testwire, testecho,
 * the broken ones), TOP_BUILDDIR "/tests/plugins/.libs". Borrowed. */
const char *tu_test_plugin_dir(void);

/* Runs `sh -c cmd`, capturing stdout and stderr (malloc'ed, NUL-terminated; pass
 * NULL to discard). Returns the exit status (or 128+signal, -1 on failure). */
int tu_run(const char *cmd, char **out, char **err);
/* 1 when the command program is installed; else 0, after a note on stderr
 * that what_not names what is skipped without it. */
int tu_have_command(const char *program, const char *what_not);

/* ---- media bytes (tu_media.c) ---------------------------------------------------- */

/* The 44-byte header of a WAV file of 16-bit mono PCM at rate samples a
 * second whose data is data_bytes long, written at p. */
#define TU_WAV_HEADER_SIZE 44
void tu_wav_header(unsigned char *p, size_t data_bytes, unsigned rate);

/* ---- tools for the agent tests (tu_tools.c) ---- */
/* The JSON schema of add: an object of two required integers a and b. */
extern const char tu_add_schema[];
/* The tool add(a, b): a + b as a JSON number. */
int tu_tool_add(void *ud, const seam_tool_call *call, seam_tool_output *out);
/* Appends to text (size bytes, a string) the event as one word, after a space
 * unless text is empty: response<i>(text), call<i>(name args),
 * result<i>(name=json[ error]), compressed<i>, done(reason), error<i>(kind). */
void tu_event_append(char *text, size_t size, const seam_event *ev);

/* ---- duptypes: usage compared (tu_usage.c) ----------------------------------------- */

/* u holds the usage want describes: the same present bits (one CUnit
 * assertion), and each count whose bit want has equal to want's (one
 * assertion each); counts whose bit is absent are not looked at. Each
 * difference is printed with the field and file:line (the caller's).
 * Returns whether all held. TU_ASSERT_USAGE takes want's members:
 * TU_ASSERT_USAGE(&u, .present = SEAM_USAGE_INPUT, .input_tokens = 3). */
int tu_usage_is(const seam_usage *u, const seam_usage *want, const char *file, int line);
#define TU_ASSERT_USAGE(u, ...) tu_usage_is((u), &(const seam_usage){ __VA_ARGS__ }, __FILE__, __LINE__)

/* ---- duptypes: sessions and executors (tu_sessions.c) ------------------------------- */

/* A new session of c with o (may be NULL), and a new executor over s with
 * eo (may be NULL); the caller frees them. Refused, the library's message
 * goes to stderr and the test stops there (a fatal CUnit assertion). */
seam_session *tu_session(seam_client *c, const seam_session_options *o);
seam_executor *tu_executor(seam_session *s, const seam_executor_options *eo);

/* ---- dupmedia: a stream read chunk by chunk (tu_stream.c) ---- */

/* Opens a stream of req on c with o (may be NULL), which must open (a fatal
 * CUnit assertion), and reads it to its end, giving each chunk to
 * on_chunk(ud, chunk) unless on_chunk is NULL. Returns the last
 * seam_stream_next's status (0 at the end), err filled when it failed. The
 * stream goes to *out (the caller frees it; its result is there) when out is
 * not NULL, else it is freed. */
int tu_stream_chunks(seam_client *c, const seam_request *req, const seam_call_options *o,
                     void (*on_chunk)(void *ud, const seam_chunk *ch), void *ud, seam_stream **out,
                     seam_error *err);

/* ---- dupcodec: HTTP errors and stop reasons, parts compared, conversations
 * (tu_stream.c); headers (tu_wire.c); capabilities (tu_fixture.c) -------------- */

/* The fake server s answers the next request with e's status, JSON body and
 * extra headers. */
void tu_push_http_error(fake_server *s, const tu_http_error *e);
/* err, what a call made of e, has e's kind, retryable flag, HTTP status and
 * code, a message holding e's message_part (unless NULL) and free of secret
 * (unless NULL): one assertion each, and what err holds on stderr when any
 * fails. Returns whether all held. */
int tu_error_is(const seam_error *err, const tu_http_error *e, const char *secret);

/* One CUnit assertion a header of the last request s received (a tu_member
 * of its name and the value it must have, or TU_ABSENT, TU_PRESENT), each
 * failure printed with file:line; returns whether all held (tu_wire.c). */
int tu_headers_are(fake_server *s, const tu_member *wants, const char *file, int line);
#define TU_ASSERT_HEADERS(s, ...) tu_headers_are((s), TU_MEMBERS(__VA_ARGS__), __FILE__, __LINE__)

/* A stop (finish) reason as a wire says it and the one the core must make of
 * it: a codec's table of them ends with { NULL, 0 }. */
typedef struct tu_stop_case {
    const char *wire;
    seam_stop_reason want;
} tu_stop_case;
/* For each case, s answers req (whole, on provider/model of c) with
 * body_text, its "@STOP@" replaced by the case's wire reason: the call
 * succeeds and stops for the case's reason, two assertions a case and a
 * fatal one that body_text holds "@STOP@"; a wrong reason said on stderr. */
void tu_stop_reasons_are(fake_server *s, seam_client *c, const char *provider, const char *model,
                         const seam_request *req, const char *body_text, const tu_stop_case *cases);

/* What c says provider/model can do (seam_client_capabilities), every member
 * set to all ones before so that one left unset shows; the call failing is a
 * fatal assertion, its message on stderr. */
seam_capabilities tu_capabilities(seam_client *c, const char *provider, const char *model);

/* Flags of tu_parts_alike. */
#define TU_PARTS_NEW_IDS 1u      /* tool-call ids are made per response: both set, not equal */
#define TU_PARTS_ARGS_AS_JSON 2u /* tool-call arguments the same JSON value, not the same text */
/* a and b hold as many parts (fatal), each of the same type (fatal) with the
 * same text; reasoning with the same signature (both absent, or equal);
 * tool calls with the same name, arguments and ids (flags say how), two
 * assertions a member; a part of another type fails. */
void tu_parts_alike(const seam_message *a, const seam_message *b, unsigned flags);
/* Texts a and b both parse as JSON, to the same value (objects compare by key). */
int tu_json_text_equal(const char *a, const char *b);

/* Turns of one part appended to a conversation (tu_add_turn): an assistant
 * message of one text, or of one tool call; a tool message of one result
 * (name may be NULL). */
void tu_add_assistant_text(seam_request *req, const char *text);
void tu_add_tool_call(seam_request *req, const char *id, const char *name, const char *args_json);
void tu_add_tool_result(seam_request *req, const char *id, const char *name, const char *output,
                        int is_error);
/* A part of a turn, made by one of the macros below; a list of them,
 * TU_PARTS(...), ends with a NULL first string. */
typedef struct tu_part {
    seam_part_type type;
    const char *a, *b, *c;
    int flag;
} tu_part;
#define TU_TEXT(text) { SEAM_PART_TEXT, (text), NULL, NULL, 0 }
#define TU_REASONING(text, signature, redacted) { SEAM_PART_REASONING, (text), (signature), NULL, (redacted) }
#define TU_CALL(id, name, args) { SEAM_PART_TOOL_CALL, (id), (name), (args), 0 }
#define TU_RESULT(id, name, output, is_error) { SEAM_PART_TOOL_RESULT, (id), (name), (output), (is_error) }
#define TU_MEDIA(mime, source, data) { SEAM_PART_MEDIA, (mime), (data), NULL, (int)(source) }
#define TU_PARTS(...) ((const tu_part[]){ __VA_ARGS__, { SEAM_PART_TEXT, NULL, NULL, NULL, 0 } })
/* A message of role holding parts, in order, appended to req (adding a part
 * or the message failing is a fatal assertion). */
void tu_add_turn(seam_request *req, seam_role role, const tu_part *parts);

/* ---- added on branch dupcore (issue 19: one harness for tests/) ---- */

/* Call options naming a chain (tu_stream.c). */
seam_call_options tu_chain_opts(const char *chain);

/* tu_on_threads with each thread calling fn(c) times times in a row: how
 * many of all those calls went as they should (tu_threads.c). */
int tu_on_threads_times(int n, int times, int (*fn)(seam_client *c), seam_client *c);

/* A cancel triggered from a thread of its own (tu_threads.c): once ready(ud)
 * holds (asked every 10 ms, max_polls times at most; a NULL ready holds at
 * once), then delay_ms later. Fill cancel, ready, ud, max_polls and delay_ms,
 * then tu_canceller_start; tu_canceller_join waits for the thread. */
typedef struct tu_canceller {
    seam_cancel *cancel;
    int (*ready)(void *ud);
    void *ud;
    int max_polls;
    int delay_ms;
    int64_t fired_ms; /* tu_now_ms() when it triggered the cancel; 0 before */
    pthread_t thread;
    int started;
} tu_canceller;
void tu_canceller_start(tu_canceller *k);
void tu_canceller_join(tu_canceller *k);

/* tu_contains_all, each needle found after the one before it (tu_wire.c):
 * one CUnit assertion a needle, each missing one printed with file:line. */
int tu_contains_in_order(const char *text, const char *const *needles, const char *file, int line);

/* The suite init of the tests that share a server and the program's temp dir
 * (tu_fixture.c): *srv a server (tu_server_start), *dir tu_dir(). 0, or -1
 * when either could not be made. */
int tu_start_server_and_dir(fake_server **srv, const char **dir);

#endif
