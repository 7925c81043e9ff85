/* relay.c — the floor under bench_serve.sh's "added latency": the least any
 * gateway can do. One thread, one epoll loop; each client connection is paired
 * with its own connection to the upstream and bytes are copied both ways, with
 * no parsing, no routing, no accounting. What it adds over the direct path is
 * what the machine charges for one more process on the path (two more
 * wake-ups and two more loopback hops a request): a gateway cannot add less.
 * Usage: relay UPSTREAM_PORT — prints the port it listens on (127.0.0.1). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_FD 65536

static int peer_of[MAX_FD]; /* -1: not (or no longer) a relayed connection */

static int connect_upstream(int port)
{
    int one = 1;
    int u = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (u < 0)
        return -1;
    setsockopt(u, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    if (connect(u, (struct sockaddr *)&to, sizeof to) != 0 || u >= MAX_FD) {
        close(u);
        return -1;
    }
    return u;
}

static void watch(int ep, int fd)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static void hang_up(int fd)
{
    int other = peer_of[fd];
    peer_of[fd] = peer_of[other] = -1;
    close(fd);
    close(other); /* closing removes both from the epoll set */
}

/* Copies what is readable on fd to its peer; blocking writes are fine here:
 * a benchmark's answers are a few hundred bytes. */
static void relay_once(int fd)
{
    if (peer_of[fd] < 0) /* its peer hung up earlier in this batch */
        return;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) {
        if (n < 0 && errno == EINTR)
            return;
        hang_up(fd);
        return;
    }
    for (ssize_t off = 0; off < n;) {
        ssize_t w = write(peer_of[fd], buf + off, (size_t)(n - off));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            hang_up(fd);
            return;
        }
        off += w;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2 || atoi(argv[1]) <= 0) {
        fprintf(stderr, "usage: relay UPSTREAM_PORT\n");
        return 2;
    }
    int upstream_port = atoi(argv[1]);
    for (int i = 0; i < MAX_FD; i++)
        peer_of[i] = -1;
    int one = 1;
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in at = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof at;
    if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(lfd, (struct sockaddr *)&at, sizeof at) != 0 || listen(lfd, 4096) != 0 ||
        getsockname(lfd, (struct sockaddr *)&at, &len) != 0) {
        perror("relay: listen");
        return 1;
    }
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) {
        perror("relay: epoll");
        return 1;
    }
    watch(ep, lfd);
    printf("%d\n", ntohs(at.sin_port));
    fflush(stdout);

    struct epoll_event events[256];
    for (;;) {
        int n = epoll_wait(ep, events, 256, -1);
        if (n < 0 && errno != EINTR) {
            perror("relay: epoll_wait");
            return 1;
        }
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            if (fd != lfd) {
                relay_once(fd);
                continue;
            }
            int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
            if (c < 0)
                continue;
            int u = c < MAX_FD ? connect_upstream(upstream_port) : -1;
            if (u < 0) {
                close(c);
                continue;
            }
            setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            peer_of[c] = u;
            peer_of[u] = c;
            watch(ep, c);
            watch(ep, u);
        }
    }
}
