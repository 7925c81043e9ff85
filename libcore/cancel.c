/* cancel.c — cancel tokens. A token is a flag plus a pipe whose read end becomes
 * readable when triggered and stays so: every transfer polls that fd beside its
 * sockets, so a cancel from any thread (or a signal handler) wakes them all at
 * once without the token knowing who is waiting. */
#include "config.h"
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

struct seam_cancel {
    atomic_int triggered;
    int fds[2];
};

seam_cancel *seam_cancel_new(void)
{
    seam_cancel *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (pipe2(c->fds, O_CLOEXEC | O_NONBLOCK) != 0) {
        free(c);
        return NULL;
    }
    atomic_init(&c->triggered, 0);
    return c;
}

void seam_cancel_free(seam_cancel *c)
{
    if (!c)
        return;
    close(c->fds[0]);
    close(c->fds[1]);
    free(c);
}

void seam_cancel_trigger(seam_cancel *c)
{
    if (!c)
        return;
    if (atomic_exchange(&c->triggered, 1) == 0) {
        const char b = 1;
        ssize_t w = write(c->fds[1], &b, 1);
        (void)w; /* a full pipe is already readable */
    }
}

int seam_cancel_triggered(const seam_cancel *c)
{
    return c ? atomic_load(&((seam_cancel *)c)->triggered) : 0;
}

int seam_cancel_fd(const seam_cancel *c)
{
    return c ? c->fds[0] : -1;
}

int seam_cancel_sleep(const seam_cancel *c, int64_t ms)
{
    int64_t end = seam_now_ms() + (ms > 0 ? ms : 0);
    for (;;) {
        if (seam_cancel_triggered(c))
            return 1;
        int64_t left = end - seam_now_ms();
        if (left <= 0)
            return 0;
        struct pollfd pfd = { seam_cancel_fd(c), POLLIN, 0 };
        int rc = poll(c ? &pfd : NULL, c ? 1 : 0, left > 1000000 ? 1000000 : (int)left);
        if (rc < 0 && errno != EINTR)
            return 0;
    }
}
