/* failmalloc.c — the allocation-failure shim of the torture run
 * (tests/torture/torture.py): an LD_PRELOAD library that makes the Nth heap
 * allocation of a program fail, the way curl's torture tests fail each
 * allocation in turn.
 *
 * Environment:
 *   SEAM_FAIL_AT=N       fail the Nth counted allocation (1-based); 0 or unset:
 *                        fail none, only count
 *   SEAM_FAIL_AFTER=1    fail every allocation from the Nth on, not only the Nth
 *   SEAM_FAIL_PROG=NAME  act only in a program whose argv[0] base name is NAME
 *                        or lt-NAME (children the program runs, a shell or a tool
 *                        command, inherit LD_PRELOAD and must be left alone)
 *   SEAM_FAIL_REPORT=F   at exit, append "count=C failed=K" to F: C allocations
 *                        were counted, K of them made to fail
 *   SEAM_FAIL_TRACE=F    append to F a backtrace of each failed allocation, and
 *                        of a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT)
 *
 * Counting starts when main() is entered (the shim wraps __libc_start_main),
 * so the dynamic loader's and libc's start-up allocations are not points: they
 * are the same in every program and nothing seam could handle. Libraries'
 * allocations (libcurl, json-c, libconfig, libltdl) count: seam must cope with
 * their failures too. A forked child stops failing: what it does before exec
 * is not the program's path.
 *
 * Why __libc_malloc and friends rather than dlsym(RTLD_NEXT, "malloc"): dlsym
 * itself allocates (calloc for its error state), so resolving calloc through it
 * recurses; glibc exports its allocator under these names for exactly this use.
 * Every pointer still comes from glibc's heap, so free() needs no wrapper.
 * glibc's own strdup, strndup, asprintf, getline... call malloc through the
 * interposable symbol, so they fail here too without wrappers of their own. */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);
/* Not declared by <stdlib.h> (obsolete), or not public at all: */
void *memalign(size_t align, size_t n);
void *pvalloc(size_t n);
void failmalloc_hit(unsigned long n);
typedef int (*main_fn)(int, char **, char **);
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                      void (*fini)(void), void (*rtld_fini)(void), void *stack_end);

#define EXPORT __attribute__((visibility("default")))

static int active;            /* main() has started in the chosen program */
static unsigned long fail_at; /* 0: count only */
static int fail_after;
static int trace_fd = -1;
static const char *report_path;
static unsigned long counted; /* atomic */
static unsigned long failed;  /* atomic */
static __thread int inside;   /* the shim's own calls (backtrace) do not count */

/* Called at each failure: a place for a debugger's breakpoint
 * (torture.py --where). */
__attribute__((noinline)) EXPORT void failmalloc_hit(unsigned long n)
{
    __asm__ volatile("" : : "r"(n) : "memory");
}

/* Counts one allocation; 1 when it must fail. */
static int should_fail(void)
{
    if (!__atomic_load_n(&active, __ATOMIC_RELAXED) || inside)
        return 0;
    unsigned long n = __atomic_add_fetch(&counted, 1, __ATOMIC_RELAXED);
    if (fail_at == 0 || n < fail_at || (n > fail_at && !fail_after))
        return 0;
    __atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);
    failmalloc_hit(n);
    if (trace_fd >= 0) {
        inside = 1;
        void *frames[48];
        int k = backtrace(frames, 48);
        char line[64];
        int len = snprintf(line, sizeof line, "failmalloc: allocation %lu fails\n", n);
        if (write(trace_fd, line, (size_t)len) < 0) {
            /* nothing to do: the trace is a debugging aid */
        }
        backtrace_symbols_fd(frames, k, trace_fd);
        inside = 0;
    }
    return 1;
}

/* What a failed allocation returns. */
static void *no_memory(void)
{
    errno = ENOMEM;
    return NULL;
}

EXPORT void *malloc(size_t n)
{
    return should_fail() ? no_memory() : __libc_malloc(n);
}

EXPORT void *calloc(size_t n, size_t size)
{
    return should_fail() ? no_memory() : __libc_calloc(n, size);
}

EXPORT void *realloc(void *p, size_t n)
{
    /* realloc(p, 0) frees: not an allocation that can fail. */
    return !(p && n == 0) && should_fail() ? no_memory() : __libc_realloc(p, n);
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
    size_t total;
    return __builtin_mul_overflow(n, size, &total) ? no_memory() : realloc(p, total);
}

EXPORT void *memalign(size_t align, size_t n)
{
    return should_fail() ? no_memory() : __libc_memalign(align, n);
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
    return memalign(align, n);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)) != 0)
        return EINVAL;
    void *p = memalign(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

EXPORT void *valloc(size_t n)
{
    return should_fail() ? no_memory() : __libc_valloc(n);
}

EXPORT void *pvalloc(size_t n)
{
    return should_fail() ? no_memory() : __libc_pvalloc(n);
}

/* The crash's backtrace, then the default action: the driver sees the signal. */
static void on_crash(int sig)
{
    inside = 1;
    char line[64];
    int len = snprintf(line, sizeof line, "failmalloc: crash, signal %d\n", sig);
    if (write(trace_fd, line, (size_t)len) < 0) {
        /* the signal still shows */
    }
    void *frames[64];
    int k = backtrace(frames, 64);
    backtrace_symbols_fd(frames, k, trace_fd);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void write_report(void)
{
    if (!report_path)
        return;
    int fd = open(report_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    char line[96];
    int len = snprintf(line, sizeof line, "count=%lu failed=%lu\n",
                       __atomic_load_n(&counted, __ATOMIC_RELAXED),
                       __atomic_load_n(&failed, __ATOMIC_RELAXED));
    if (write(fd, line, (size_t)len) < 0) {
        /* the driver sees no report and says so */
    }
    close(fd);
}

static void in_child(void)
{
    active = 0;
    report_path = NULL;
    trace_fd = -1;
}

static int chosen(const char *argv0)
{
    const char *want = getenv("SEAM_FAIL_PROG");
    if (!want || !*want)
        return 1;
    if (!argv0)
        return 0;
    const char *base = strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    if (strncmp(base, "lt-", 3) == 0)
        base += 3;
    return strcmp(base, want) == 0;
}

static main_fn real_main;

static int counting_main(int argc, char **argv, char **envp)
{
    if (chosen(argc > 0 ? argv[0] : NULL)) {
        const char *at = getenv("SEAM_FAIL_AT");
        fail_at = at ? strtoul(at, NULL, 10) : 0;
        const char *after = getenv("SEAM_FAIL_AFTER");
        fail_after = after && *after == '1';
        const char *tr = getenv("SEAM_FAIL_TRACE");
        report_path = getenv("SEAM_FAIL_REPORT");
        if (tr && *tr) {
            trace_fd = open(tr, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
            /* backtrace() loads libgcc_s on first use: do it now, uncounted. */
            void *frame;
            backtrace(&frame, 1);
            static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
            for (size_t i = 0; trace_fd >= 0 && i < sizeof sigs / sizeof sigs[0]; i++)
                signal(sigs[i], on_crash);
        }
        pthread_atfork(NULL, NULL, in_child);
        atexit(write_report);
        __atomic_store_n(&active, 1, __ATOMIC_RELAXED);
    }
    return real_main(argc, argv, envp);
}

typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);

EXPORT int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                             void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
    start_fn next = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
    real_main = main;
    return next(counting_main, argc, argv, init, fini, rtld_fini, stack_end);
}
