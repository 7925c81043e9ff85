/* tu_threads.c — one client used by several threads at once (tests/testutil.h):
 * each thread runs the same test function on it, and the program sees how
 * many of their calls went as they should. */
#include "config.h"

#include "testutil.h"

#include <pthread.h>

typedef struct thread_job {
    int (*fn)(seam_client *c);
    seam_client *c;
    int times; /* fn is called this many times in a row */
    int good;
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *j = arg;
    for (int i = 0; i < j->times; i++)
        j->good += j->fn(j->c);
    return NULL;
}

int tu_on_threads(int n, int (*fn)(seam_client *c), seam_client *c)
{
    return tu_on_threads_times(n, 1, fn, c);
}

/* ---- added on branch dupcore (issue 19: one harness for tests/) ---- */

int tu_on_threads_times(int n, int times, int (*fn)(seam_client *c), seam_client *c)
{
    thread_job jobs[64];
    pthread_t th[64];
    int started = 0, good = 0;
    for (; started < n && started < 64; started++) {
        jobs[started] = (thread_job){ .fn = fn, .c = c, .times = times };
        if (pthread_create(&th[started], NULL, thread_main, &jobs[started]) != 0)
            break;
    }
    for (int i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        good += jobs[i].good;
    }
    return good;
}
