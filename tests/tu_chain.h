/* tu_chain.h — the chain tests' shared harness (tests/tu_chain.c). */
#ifndef SEAM_TU_CHAIN_H
#define SEAM_TU_CHAIN_H

#include <stdint.h>

#include "fakeserver.h"
#include <seam/seam.h>

extern fake_server *srv;
extern const char *tmpdir;

/* The injected clock's sleeps since the last client_of/sleeps_reset. */
extern int64_t sleeps[64];
extern int n_sleeps;

/* The suite's init: the fake server and the temporary directory. */
int start(void);
/* Moves the injected clock on by ms. */
void clock_advance(int64_t ms);
void sleeps_reset(void);

/* A client on conf_text (plus the plugin dirs of the build), on the injected clock. */
seam_client *client_of(const char *conf_text);

/* The usual providers: w and w2 speak testwire to the fake server (w2 under
 * /second), e1/e2 are testecho. */
#define WIRE_PROVIDERS                                                                   \
    "  w = { plugin = \"testwire\"; base_url = \"@URL@\"; api_key = \"k-inline\"; };\n" \
    "  w2 = { plugin = \"testwire\"; base_url = \"@URL@/second\"; };\n"                 \
    "  e1 = { plugin = \"testecho\"; };\n"                                              \
    "  e2 = { plugin = \"testecho\"; };\n"

/* A client of the usual providers and chains_text (client_of). */
seam_client *wire_client(const char *chains_text);

extern const char *ok_body;
void push_ok(void);
/* Scripts the server: an error answer (status, a JSON body, extra header
 * lines or NULL), then push_ok's good one. */
void push_error_then_ok(int status, const char *json_body, const char *headers);

typedef struct rec {
    seam_attempt_outcome outcome;
    char provider[32], model[48], chain[32], message[512], code[64];
    int attempt;
    seam_error_kind kind;
    int64_t wait;
    int has_usage;
    seam_usage usage;
} rec;

typedef struct recs {
    int n;
    rec r[32];
    seam_cancel *cancel_on_wait; /* triggered when a failed attempt announces a wait */
} recs;

typedef struct run {
    int status;
    seam_error err;
    char text[4096];
    int incomplete;
    int n_stops;
    seam_usage stop_usage; /* of the stop chunk the caller saw */
    seam_usage usage;      /* the result's */
    char provider[32];
    recs at;
} run;

typedef struct how {
    const char *chain;
    const char *provider, *model; /* a single provider instead */
    const char *affinity;
    int generate;                 /* blocking generate instead of a stream */
    int64_t timeout_ms;
    int64_t idle_timeout_ms;
    seam_cancel *cancel;
    int cancel_on_wait;
} how;

/* One call on c as h says (req NULL: a user "hello"), every attempt recorded. */
run go(seam_client *c, const seam_request *req_in, how h);
run go_chain(seam_client *c, const char *chain);

/* The checks most tests make of a run, as macros so that a failure names the
 * test's line: served (SEAM_OK) by provider; failed (SEAM_ERR_PROVIDER) with
 * an error of kind; the server asked n times since before, the last time at
 * path. Two assertions each. */
#define SERVED_BY(r, prov)                                 \
    do {                                                   \
        CU_ASSERT_EQUAL((r).status, SEAM_OK);              \
        CU_ASSERT_STRING_EQUAL((r).provider, (prov));      \
    } while (0)
#define FAILED_WITH(r, error_kind)                         \
    do {                                                   \
        CU_ASSERT_EQUAL((r).status, SEAM_ERR_PROVIDER);    \
        CU_ASSERT_EQUAL((r).err.kind, (error_kind));       \
    } while (0)
#define ASKED(before, n, path)                                                        \
    do {                                                                              \
        CU_ASSERT_EQUAL(fake_server_request_count(srv), (before) + (n));              \
        CU_ASSERT_STRING_EQUAL(fake_server_request_path(srv, (before) + (n) - 1), (path)); \
    } while (0)

/* One call on chain, given one error answer (status, a JSON body): it fails
 * with an error of kind after asking the server once, no retry and no next
 * entry (three assertions). The run, for more checks. */
run refused_at_once(seam_client *c, const char *chain, int status, const char *json_body,
                    seam_error_kind kind);

#endif
