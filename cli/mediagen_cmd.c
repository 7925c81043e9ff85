/* mediagen_cmd.c — `seam media image|speech|video PROMPT`, `seam media resume
 * JOB` and `seam media cancel JOB`: media generated on a provider's own
 * endpoint (seam_generate_media), stored in the media store, printed as its
 * handle and the stored file's path (and written to -o FILE).
 *
 * A video is a job: its checkpoint is kept under the seam data dir
 * ($XDG_DATA_HOME/seam/jobs/JOB.json, 0600) and rewritten after every poll,
 * so that a command killed mid-job is taken up again by `seam media resume
 * JOB`. `seam media cancel JOB` leaves a JOB.cancel marker, marks the
 * checkpoint cancelled, and stops the command waiting on the job (its pid is
 * in JOB.pid), which sees the marker. On a terminal the wait shows progress.
 * Uses only <seam/seam.h> (and json-c for the --json lines' strings). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "json_out.h"
#include "media_cmd.h"

typedef struct gen_opts {
    const char *provider, *model, *chain, *out_file;
    const char *size, *voice, *mime;
    int count, seconds, json;
} gen_opts;

/* ---- the job files ------------------------------------------------------------ */

/* $XDG_DATA_HOME/seam/jobs (default ~/.local/share/seam/jobs), made 0700. */
static int jobs_dir(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(buf, size, "%s/seam/jobs", xdg);
    else if (home && *home)
        snprintf(buf, size, "%s/.local/share/seam/jobs", home);
    else
        return -1;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(buf, 0700);
        *p = '/';
    }
    if (mkdir(buf, 0700) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* A job id as the command takes it: "job-" and 32 hex digits (nothing that
 * could walk out of the jobs dir). */
static int job_id_ok(const char *id)
{
    return strlen(id) == 36 && strncmp(id, "job-", 4) == 0 &&
           strspn(id + 4, "0123456789abcdef") == 32;
}

static int job_path(char *buf, size_t size, const char *id, const char *ext)
{
    char dir[4096];
    if (jobs_dir(dir, sizeof dir) != 0)
        return -1;
    int n = snprintf(buf, size, "%s/%s.%s", dir, id, ext);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

/* Writes text to the job's file atomically (a temporary, then rename), 0600. */
static int write_job_file(const char *id, const char *ext, const char *text)
{
    char path[4200], tmp[4300];
    if (job_path(path, sizeof path, id, ext) != 0)
        return -1;
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    int ok = off == len && write(fd, "\n", 1) == 1;
    if (close(fd) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static char *read_job_file(const char *id, const char *ext)
{
    char path[4200];
    if (job_path(path, sizeof path, id, ext) != 0)
        return NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n = getline(&buf, &cap, f);
    fclose(f);
    if (n <= 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int job_file_exists(const char *id, const char *ext)
{
    char path[4200];
    return job_path(path, sizeof path, id, ext) == 0 && access(path, F_OK) == 0;
}

static void remove_job_file(const char *id, const char *ext)
{
    char path[4200];
    if (job_path(path, sizeof path, id, ext) == 0)
        unlink(path);
}

/* ---- interrupting the wait ------------------------------------------------------- */

static seam_cancel *volatile waiting_cancel;

static void on_signal(int sig)
{
    (void)sig;
    seam_cancel *c = waiting_cancel;
    if (c)
        seam_cancel_trigger(c);
}

static void catch_signals(seam_cancel *cancel)
{
    waiting_cancel = cancel;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static void release_signals(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    waiting_cancel = NULL;
}

/* ---- output ----------------------------------------------------------------------- */

static int write_bytes_to(seam_client *client, const char *handle, const char *file,
                          seam_error *err)
{
    int in = -1;
    if (seam_media_open(client, handle, &in, err) != SEAM_OK) {
        print_error(err);
        return -1;
    }
    int out = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        say("media: -o %s: %s", file, strerror(errno));
        close(in);
        return -1;
    }
    char buf[65536];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof buf)) > 0) {
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                rc = -1;
                break;
            }
            off += w;
        }
        if (rc)
            break;
    }
    if (n < 0)
        rc = -1;
    if (close(out) != 0)
        rc = -1;
    close(in);
    if (rc)
        say("media: -o %s: %s", file, strerror(errno ? errno : EIO));
    return rc;
}

/* The media of res: a line each ("HANDLE PATH", or the media_end JSON line),
 * -o FILE for the first, then the result line in --json. */
static int print_result(seam_client *client, const seam_result *res, const gen_opts *o)
{
    const seam_message *m = seam_result_message(res);
    int written = 0, code = EXIT_OK;
    seam_error err;
    for (size_t i = 0; m && i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        if (seam_part_get_type(p) != SEAM_PART_MEDIA)
            continue;
        const char *handle = seam_part_media_data(p);
        char *path = NULL;
        if (seam_media_path(client, handle, &path, &err) != SEAM_OK) {
            print_error(&err);
            code = EXIT_PROVIDER;
            continue;
        }
        if (o->json) {
            char id[32];
            snprintf(id, sizeof id, "media-%zu", i + 1);
            seam_chunk c = {.type = SEAM_CHUNK_MEDIA_END, .id = id,
                            .mime_type = seam_part_mime_type(p), .text = handle};
            if (json_out_chunk(stdout, &c) != 0)
                code = EXIT_PROVIDER;
        } else {
            printf("%s %s\n", handle, path);
        }
        free(path);
        if (o->out_file && !written++ && write_bytes_to(client, handle, o->out_file, &err) != 0)
            code = EXIT_PROVIDER;
    }
    if (o->out_file && written > 1)
        say("media: %d media were made; -o %s holds the first", written, o->out_file);
    if (o->json && json_out_result(stdout, res) != 0)
        code = EXIT_PROVIDER;
    fflush(stdout);
    return code;
}

static void fail_output(const seam_error *err, const gen_opts *o)
{
    if (o->json)
        json_out_error(stdout, err);
    print_error(err);
}

/* ---- waiting on a job ---------------------------------------------------------------- */

typedef struct wait_ctx {
    seam_cancel *cancel;
    const gen_opts *o;
    int tty;
    int shown;
    int cancelled_elsewhere;
} wait_ctx;

static void on_poll(void *ud, const seam_media_job *job)
{
    wait_ctx *w = ud;
    const char *id = seam_media_job_id(job);
    /* `seam media cancel` said stop: leave its checkpoint as it wrote it. */
    if (job_file_exists(id, "cancel")) {
        w->cancelled_elsewhere = 1;
        seam_cancel_trigger(w->cancel);
        return;
    }
    char *cp = seam_media_job_checkpoint(job);
    if (!cp || write_job_file(id, "json", cp) != 0)
        say("media: cannot write the checkpoint of %s", id);
    free(cp);
    double p = seam_media_job_progress(job);
    if (w->o->json) {
        static const char *const states[] = {"", "pending", "done", "failed"};
        if (p >= 0)
            printf("{\"type\":\"job\",\"id\":\"%s\",\"state\":\"%s\",\"progress\":%.3f}\n", id,
                   states[seam_media_job_status(job)], p);
        else
            printf("{\"type\":\"job\",\"id\":\"%s\",\"state\":\"%s\"}\n", id,
                   states[seam_media_job_status(job)]);
        fflush(stdout);
    } else if (w->tty && seam_media_job_status(job) == SEAM_MEDIA_JOB_PENDING) {
        if (p >= 0)
            fprintf(stderr, "\rseam: %s %3.0f%%", id, p * 100);
        else
            fprintf(stderr, "\rseam: %s running", id);
        w->shown = 1;
    }
}

static int wait_job(seam_client *client, seam_media_job *job, const gen_opts *o)
{
    const char *id = seam_media_job_id(job);
    seam_cancel *cancel = seam_cancel_new();
    if (!cancel) {
        say("out of memory");
        return EXIT_PROVIDER;
    }
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    (void)write_job_file(id, "pid", pid);
    wait_ctx w = {.cancel = cancel, .o = o, .tty = isatty(STDERR_FILENO)};
    if (!o->json)
        say("job %s (seam media resume %s takes it up again)", id, id);
    seam_result *res = NULL;
    seam_error err;
    catch_signals(cancel);
    int rc = seam_media_job_wait(client, job, cancel, on_poll, &w, &res, &err);
    release_signals();
    if (w.shown)
        fputc('\n', stderr);
    remove_job_file(id, "pid");
    seam_cancel_free(cancel);
    if (rc == SEAM_OK) {
        int code = print_result(client, res, o);
        seam_result_free(res);
        return code;
    }
    if (w.cancelled_elsewhere || job_file_exists(id, "cancel")) {
        say("job %s was cancelled", id);
        if (o->json) {
            seam_error_clear(&err);
            err.kind = SEAM_ERROR_CANCELLED;
            snprintf(err.message, sizeof err.message, "the job %s was cancelled", id);
            json_out_error(stdout, &err);
        }
        return EXIT_PROVIDER;
    }
    if (err.kind == SEAM_ERROR_CANCELLED && seam_media_job_status(job) == SEAM_MEDIA_JOB_PENDING) {
        /* Interrupted here: the job runs on at the provider. */
        char *cp = seam_media_job_checkpoint(job);
        if (cp)
            (void)write_job_file(id, "json", cp);
        free(cp);
        say("interrupted: seam media resume %s takes the job up again", id);
        if (o->json)
            json_out_error(stdout, &err);
        return EXIT_INTERRUPTED;
    }
    fail_output(&err, o);
    return EXIT_PROVIDER;
}

/* ---- the subcommands ------------------------------------------------------------- */

static int parse_int(const char *v, int lo, int hi, const char *name, int *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < lo || n > hi) {
        usage_error("media: %s takes a number from %d to %d", name, lo, hi);
        return -1;
    }
    *out = (int)n;
    return 0;
}

static int generate(const char *conf, uint32_t modality, int argc, char **argv)
{
    gen_opts o = {0};
    const char *prompt = NULL, *v;
    for (int i = 0; i < argc; i++) {
        int r;
        if (strcmp(argv[i], "--json") == 0) {
            o.json = 1;
        } else if (strcmp(argv[i], "-o") == 0) {
            if (++i >= argc)
                return usage_error("media: -o needs a file");
            o.out_file = argv[i];
        } else if ((r = option_value(argc, argv, &i, "--provider", &v)) != 0) {
            if (r < 0)
                return usage_error("media: --provider needs a value");
            o.provider = v;
        } else if ((r = option_value(argc, argv, &i, "--model", &v)) != 0) {
            if (r < 0)
                return usage_error("media: --model needs a value");
            o.model = v;
        } else if ((r = option_value(argc, argv, &i, "--chain", &v)) != 0) {
            if (r < 0)
                return usage_error("media: --chain needs a value");
            o.chain = v;
        } else if ((r = option_value(argc, argv, &i, "--size", &v)) != 0) {
            if (r < 0)
                return usage_error("media: --size needs a value");
            o.size = v;
        } else if ((r = option_value(argc, argv, &i, "--voice", &v)) != 0) {
            if (r < 0)
                return usage_error("media: --voice needs a value");
            o.voice = v;
        } else if ((r = option_value(argc, argv, &i, "--format", &v)) != 0) {
            if (r < 0)
                return usage_error("media: --format needs a MIME type");
            o.mime = v;
        } else if ((r = option_value(argc, argv, &i, "--count", &v)) != 0) {
            if (r < 0 || parse_int(v, 1, 16, "--count", &o.count) != 0)
                return EXIT_USAGE;
        } else if ((r = option_value(argc, argv, &i, "--seconds", &v)) != 0) {
            if (r < 0 || parse_int(v, 1, 3600, "--seconds", &o.seconds) != 0)
                return EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("media: unknown option '%s'", argv[i]);
        } else if (!prompt) {
            prompt = argv[i];
        } else {
            return usage_error("media: give the prompt as one argument (quote it)");
        }
    }
    if (!prompt || !*prompt)
        return usage_error("media: missing PROMPT");
    if ((o.provider != NULL) != (o.model != NULL) || (o.provider && o.chain))
        return usage_error("media: give --provider P --model M together, or --chain C");

    seam_media_request *mr = seam_media_request_new(modality, prompt);
    if (!mr) {
        say("out of memory");
        return EXIT_PROVIDER;
    }
    if ((o.size && seam_media_request_set_size(mr, o.size) != SEAM_OK) ||
        (o.voice && seam_media_request_set_voice(mr, o.voice) != SEAM_OK) ||
        (o.mime && seam_media_request_set_mime_type(mr, o.mime) != SEAM_OK) ||
        (o.count && seam_media_request_set_count(mr, o.count) != SEAM_OK) ||
        (o.seconds && seam_media_request_set_seconds(mr, o.seconds) != SEAM_OK)) {
        seam_media_request_free(mr);
        return usage_error("media: a bad --size, --voice or --format (a MIME type of the media)");
    }
    seam_client *client = NULL;
    seam_error err;
    int code = open_client(conf, &client, &err);
    if (code != EXIT_OK) {
        seam_media_request_free(mr);
        return code;
    }
    seam_call_options call;
    memset(&call, 0, sizeof call);
    call.size = sizeof call;
    call.provider = o.provider;
    call.model = o.model;
    call.chain = o.chain;
    seam_cancel *cancel = seam_cancel_new();
    call.cancel = cancel;
    seam_result *res = NULL;
    seam_media_job *job = NULL;
    catch_signals(cancel);
    int rc = seam_generate_media(client, mr, &call, &res, &job, &err);
    release_signals();
    seam_cancel_free(cancel);
    seam_media_request_free(mr);
    if (rc != SEAM_OK) {
        fail_output(&err, &o);
        code = err.kind == SEAM_ERROR_CANCELLED ? EXIT_INTERRUPTED
               : rc == SEAM_ERR_INVALID          ? EXIT_USAGE
                                                 : EXIT_PROVIDER;
    } else if (job) {
        /* Persisted before the first wait: a kill from here on loses nothing. */
        char *cp = seam_media_job_checkpoint(job);
        if (!cp || write_job_file(seam_media_job_id(job), "json", cp) != 0)
            say("media: cannot write the checkpoint of %s", seam_media_job_id(job));
        free(cp);
        code = wait_job(client, job, &o);
        seam_media_job_free(job);
    } else {
        code = print_result(client, res, &o);
        seam_result_free(res);
    }
    seam_client_free(client);
    return code;
}

static int job_args(int argc, char **argv, const char *cmd, gen_opts *o, const char **id)
{
    *id = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            o->json = 1;
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            o->out_file = argv[++i];
        else if (argv[i][0] == '-')
            return usage_error("media %s: unknown option '%s'", cmd, argv[i]);
        else if (!*id)
            *id = argv[i];
        else
            return usage_error("media %s: give one job id", cmd);
    }
    if (!*id)
        return usage_error("media %s: give the job id (job-...)", cmd);
    if (!job_id_ok(*id))
        return usage_error("media %s: '%s' is not a job id (job- and 32 hex digits)", cmd, *id);
    return EXIT_OK;
}

static int resume(const char *conf, int argc, char **argv)
{
    gen_opts o = {0};
    const char *id;
    int code = job_args(argc, argv, "resume", &o, &id);
    if (code != EXIT_OK)
        return code;
    char *cp = read_job_file(id, "json");
    if (!cp) {
        say("media resume: no checkpoint of %s under the seam data dir", id);
        return EXIT_USAGE;
    }
    seam_client *client = NULL;
    seam_error err;
    code = open_client(conf, &client, &err);
    if (code != EXIT_OK) {
        free(cp);
        return code;
    }
    seam_media_job *job = NULL;
    int rc = seam_media_job_resume(client, cp, &job, &err);
    free(cp);
    if (rc != SEAM_OK) {
        fail_output(&err, &o);
        seam_client_free(client);
        return EXIT_PROVIDER;
    }
    if (job_file_exists(id, "cancel") || seam_media_job_status(job) == SEAM_MEDIA_JOB_FAILED) {
        const seam_error *e = seam_media_job_error(job);
        seam_error c;
        seam_error_clear(&c);
        if (e)
            c = *e;
        else {
            c.kind = SEAM_ERROR_CANCELLED;
            snprintf(c.message, sizeof c.message, "the job %s was cancelled", id);
        }
        fail_output(&c, &o);
        code = EXIT_PROVIDER;
    } else {
        code = wait_job(client, job, &o);
    }
    seam_media_job_free(job);
    seam_client_free(client);
    return code;
}

/* 1 when process pid runs a seam command: a pid file left by a command that
 * was killed may name a process that has nothing to do with seam since. */
static int is_seam_process(long pid)
{
    char path[64], cmd[4096];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(cmd, 1, sizeof cmd - 1, f);
    fclose(f);
    cmd[n] = '\0';
    const char *base = strrchr(cmd, '/');
    base = base ? base + 1 : cmd;
    return strcmp(base, "seam") == 0 || strcmp(base, "lt-seam") == 0;
}

static int cancel_job(const char *conf, int argc, char **argv)
{
    gen_opts o = {0};
    const char *id;
    int code = job_args(argc, argv, "cancel", &o, &id);
    if (code != EXIT_OK)
        return code;
    char *cp = read_job_file(id, "json");
    if (!cp) {
        say("media cancel: no checkpoint of %s under the seam data dir", id);
        return EXIT_USAGE;
    }
    seam_client *client = NULL;
    seam_error err;
    code = open_client(conf, &client, &err);
    if (code != EXIT_OK) {
        free(cp);
        return code;
    }
    seam_media_job *job = NULL;
    if (seam_media_job_resume(client, cp, &job, &err) != SEAM_OK) {
        free(cp);
        print_error(&err);
        seam_client_free(client);
        return EXIT_PROVIDER;
    }
    free(cp);
    if (seam_media_job_status(job) == SEAM_MEDIA_JOB_DONE) {
        say("media cancel: %s is already done", id);
        code = EXIT_USAGE;
    } else {
        /* The marker first: a waiter about to write its checkpoint sees it. */
        (void)write_job_file(id, "cancel", "cancelled");
        seam_media_job_cancel(job);
        char *text = seam_media_job_checkpoint(job);
        if (!text || write_job_file(id, "json", text) != 0)
            say("media cancel: cannot write the checkpoint of %s", id);
        free(text);
        char *pid = read_job_file(id, "pid");
        long p = pid ? strtol(pid, NULL, 10) : 0;
        free(pid);
        if (p > 1 && p != (long)getpid() && is_seam_process(p))
            kill((pid_t)p, SIGTERM);
        if (o.json)
            printf("{\"type\":\"job\",\"id\":\"%s\",\"state\":\"failed\",\"error\":{\"kind\":"
                   "\"cancelled\"}}\n",
                   id);
        else
            say("job %s cancelled", id);
        code = EXIT_OK;
    }
    seam_media_job_free(job);
    seam_client_free(client);
    return code;
}

int media_generate_cmd(const char *conf, int argc, char **argv)
{
    const char *sub = argv[0];
    if (strcmp(sub, "image") == 0)
        return generate(conf, SEAM_MODALITY_IMAGE, argc - 1, argv + 1);
    if (strcmp(sub, "speech") == 0)
        return generate(conf, SEAM_MODALITY_AUDIO, argc - 1, argv + 1);
    if (strcmp(sub, "video") == 0)
        return generate(conf, SEAM_MODALITY_VIDEO, argc - 1, argv + 1);
    if (strcmp(sub, "resume") == 0)
        return resume(conf, argc - 1, argv + 1);
    return cancel_job(conf, argc - 1, argv + 1);
}
