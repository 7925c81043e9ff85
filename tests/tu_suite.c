/* tu_suite.c — the main of every CUnit test program (tests/testutil.h): runs a
 * table of suites in verbose mode, then releases what the program's fixtures
 * registered with tu_at_end (fake servers, temp dirs), and turns the outcome
 * into the exit status `make check` reads. Also the monotonic clock the tests
 * time themselves with. */
#include "config.h"

#include "testutil.h"

#include <CUnit/Basic.h>
#include <stdlib.h>
#include <time.h>

typedef struct at_end {
    void (*fn)(void *);
    void *arg;
    struct at_end *next;
} at_end;

static at_end *at_ends;

void tu_at_end(void (*fn)(void *), void *arg)
{
    at_end *e = malloc(sizeof *e);
    if (!e) {
        fn(arg); /* cannot defer it: release it now rather than leak it */
        return;
    }
    e->fn = fn;
    e->arg = arg;
    e->next = at_ends;
    at_ends = e;
}

static void run_at_ends(void)
{
    while (at_ends) {
        at_end *e = at_ends;
        at_ends = e->next;
        e->fn(e->arg);
        free(e);
    }
}

int tu_run_suites(const tu_suite *suites)
{
    if (CU_initialize_registry() != CUE_SUCCESS) {
        run_at_ends();
        return 2;
    }
    unsigned listed = 0;
    for (const tu_suite *s = suites; s->name; s++) {
        CU_pSuite cs = CU_add_suite_with_setup_and_teardown(s->name, s->init, s->clean, s->setup,
                                                            s->teardown);
        int ok = cs != NULL;
        for (const tu_test *t = s->tests; ok && t->name; t++, listed++)
            ok = CU_add_test(cs, t->name, t->run) != NULL;
        if (!ok) {
            CU_cleanup_registry();
            run_at_ends();
            return 2;
        }
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    /* A test stopped by a fatal assertion, a suite whose set-up failed and a
     * test that never ran fail the program as a failed check does. */
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed() +
                      CU_get_number_of_suites_failed();
    unsigned ran = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    run_at_ends();
    return failed || ran != listed ? 1 : 0;
}

int tu_run_suite(const char *name, const tu_test *tests, int (*init)(void))
{
    const tu_suite suites[] = { { .name = name, .tests = tests, .init = init }, { .name = NULL } };
    return tu_run_suites(suites);
}

int64_t tu_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
