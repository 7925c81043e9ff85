/* tu_threads.c — one client used by several threads at once (tests/testutil.h):
 * each thread runs the same test function on it, and the program sees how
 * many of their calls went as they should; and a cancel triggered from a
 * thread of its own once the call it cancels is under way. */
#include "config.h"

#include "testutil.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

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

static void *canceller_main(void *arg)
{
    tu_canceller *k = arg;
    for (int i = 0; k->ready && i < k->max_polls && !k->ready(k->ud); i++)
        usleep(10 * 1000);
    struct timespec delay = { k->delay_ms / 1000, (long)(k->delay_ms % 1000) * 1000000L };
    nanosleep(&delay, NULL);
    k->fired_ms = tu_now_ms();
    seam_cancel_trigger(k->cancel);
    return NULL;
}

void tu_canceller_start(tu_canceller *k)
{
    k->fired_ms = 0;
    k->started = pthread_create(&k->thread, NULL, canceller_main, k) == 0;
}

void tu_canceller_join(tu_canceller *k)
{
    if (k->started)
        pthread_join(k->thread, NULL);
    k->started = 0;
}
