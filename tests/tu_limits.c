/* tu_limits.c — a process out of file descriptors, on purpose
 * (tests/testutil.h): the soft RLIMIT_NOFILE lowered to a few above the
 * descriptors in use, the rest taken, and all of it given back, so that a test
 * can see how the core meets EMFILE. */
#include "config.h"

#include "testutil.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <unistd.h>

void tu_fds_use_up(tu_fds_jam *j, int spare)
{
    j->n = 0;
    CU_ASSERT_FATAL(getrlimit(RLIMIT_NOFILE, &j->old) == 0);
    int highest = dup(0);
    close(highest);
    struct rlimit low = j->old;
    low.rlim_cur = (rlim_t)highest + (rlim_t)spare;
    if (low.rlim_cur > j->old.rlim_cur)
        low.rlim_cur = j->old.rlim_cur;
    CU_ASSERT_FATAL(setrlimit(RLIMIT_NOFILE, &low) == 0);
    int fd = 0;
    while (j->n < (int)(sizeof j->fds / sizeof j->fds[0]) && (fd = dup(0)) >= 0)
        j->fds[j->n++] = fd;
    j->exhausted = fd < 0 && errno == EMFILE;
}

void tu_fds_give_back(tu_fds_jam *j)
{
    while (j->n > 0)
        close(j->fds[--j->n]);
    setrlimit(RLIMIT_NOFILE, &j->old);
}
