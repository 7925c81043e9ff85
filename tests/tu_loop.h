/* tu_loop.h — the tool loop tests' shared harness (tests/tu_loop.c). */
#ifndef SEAM_TU_LOOP_H
#define SEAM_TU_LOOP_H

#include <pthread.h>
#include <stdint.h>

#include "fakeserver.h"
#include <seam/seam.h>

extern seam_client *mock;     /* provider "m" (mock), chain default */
extern fake_server *srv;
extern seam_client *oa;       /* provider "o" (openai) at the fake server, chain default */

/* The suite's init: the clients and the fake server. */
int start(void);
void sleep_ms(int ms);
/* A request with one user message whose provider options hold a mock script. */
seam_request *scripted(const char *prompt, const char *script_json);

/* The calls of the tools below: how many, when each ran, the last arguments,
 * whether waits() saw its cancel. */
typedef struct tool_log {
    pthread_mutex_t mu;
    int calls;
    int64_t start[16], end[16];
    char last_args[256];
    int saw_cancel;
} tool_log;

extern tool_log tlog;
void tlog_reset(void);

/* add(a, b) -> a + b */
int tool_add(void *ud, const seam_tool_call *call, seam_tool_output *out);
/* slow(): sleeps 150 ms, for the overlap test. */
int tool_slow(void *ud, const seam_tool_call *call, seam_tool_output *out);
/* fails(): an error with a message. */
int tool_fails(void *ud, const seam_tool_call *call, seam_tool_output *out);
/* waits(): waits for its cancel token, up to 3 s. */
int tool_waits(void *ud, const seam_tool_call *call, seam_tool_output *out);

extern const char add_schema[];
/* A toolset of add (owned by the caller). */
seam_toolset *tools_with_add(void);
/* ts with one more tool, name (no schema) served by fn; returns ts. */
seam_toolset *plus_tool(seam_toolset *ts, const char *name, const char *description, seam_tool_fn fn);

/* A loop run on the mock: its toolset and request (owned), its options (the
 * toolset's tools; r.o.call = &r.co counts the model calls in model_calls),
 * and the generation and error of the last run. */
typedef struct loop_run {
    seam_toolset *ts;
    seam_request *req;
    int model_calls;
    seam_call_options co;
    seam_loop_options o;
    seam_generation *g;
    seam_error err;
} loop_run;

/* A run of ts (owned, may be NULL) on a request of the prompt, which the mock
 * answers by script_json; the tool log reset. */
void run_init(loop_run *r, seam_toolset *ts, const char *prompt, const char *script_json);
/* seam_loop_generate of the run's request and options on the mock. */
int run_generate(loop_run *r);
/* The generation freed, for another run. */
void run_done(loop_run *r);
void run_free(loop_run *r);

/* Two rounds of add, each with usage, then the answer "3, 7 and 10.". */
extern const char two_round_script[];

#endif
