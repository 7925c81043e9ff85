/* logs.c — the conversation log: each exchange of `seam chat` (prompt,
 * answer, tool calls, usage, cost, provider, model, duration, conversation
 * id) as a row of an SQLite database, $XDG_DATA_HOME/seam/logs.db (default
 * ~/.local/share/seam/logs.db); `seam logs` to read it; `chat -c` and
 * `--cid` to continue a conversation from it. The library writes no files of
 * its own accord (DESIGN.md, 12): the log is the command's. No credential is
 * ever in it (the command never holds one), and attachments are kept as
 * handles (their paths), never as bytes. Built without SQLite
 * (configure --without-sqlite) the log is off and `seam logs` says so. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <seam/seam.h>

#include "chat.h"
#include "cli.h"
#include "logs.h"

int chat_log_wanted(const chat_options *o, seam_client *client)
{
    if (o->no_log || !chat_log_available())
        return 0;
    json_object *cli = json_tokener_parse(seam_client_cli_settings(client));
    json_object *log = NULL;
    int on = 1;
    if (cli && json_object_object_get_ex(cli, "log", &log) && json_object_is_type(log, json_type_boolean))
        on = json_object_get_boolean(log);
    json_object_put(cli);
    return on;
}

void chat_log_new_cid(char out[48])
{
    /* Time-ordered and unique enough for one person's logs. */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned r = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, &r, sizeof r) != (ssize_t)sizeof r)
        r = (unsigned)ts.tv_nsec ^ (unsigned)getpid();
    if (fd >= 0)
        close(fd);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    snprintf(out, 48, "%04d%02d%02d-%02d%02d%02d-%06x", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, r & 0xffffffu);
}

#ifdef HAVE_SQLITE
#include <sqlite3.h>

struct chat_log {
    sqlite3 *db;
};

int chat_log_available(void)
{
    return 1;
}

/* $XDG_DATA_HOME/seam (default ~/.local/share/seam), created 0700. */
static int log_dir(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(buf, size, "%s/seam", xdg);
    else if (home && *home)
        snprintf(buf, size, "%s/.local/share/seam", home);
    else
        return -1;
    /* mkdir -p, the last level private. */
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(buf, 0755);
        *p = '/';
    }
    if (mkdir(buf, 0700) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS exchanges ("
    " id INTEGER PRIMARY KEY,"
    " cid TEXT NOT NULL,"
    " time_ms INTEGER NOT NULL,"
    " system TEXT, prompt TEXT NOT NULL, answer TEXT,"
    " tool_calls TEXT,"      /* JSON array of {"name","args"} */
    " attachments TEXT,"     /* JSON array of paths: handles, never bytes */
    " provider TEXT, model TEXT,"
    " input_tokens INTEGER, output_tokens INTEGER, cost_microcents INTEGER,"
    " duration_ms INTEGER);"
    "CREATE INDEX IF NOT EXISTS exchanges_cid ON exchanges(cid, id);";

chat_log *chat_log_open(void)
{
    char dir[4096], path[4200];
    if (log_dir(dir, sizeof dir) != 0) {
        say("cannot create the folder of the conversation log (--no-log chats without it)");
        return NULL;
    }
    snprintf(path, sizeof path, "%s/logs.db", dir);
    /* Created private before SQLite opens it. */
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
    chat_log *log = calloc(1, sizeof *log);
    if (!log) {
        say("cannot open the conversation log: out of memory");
        return NULL;
    }
    if (sqlite3_open_v2(path, &log->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
            SQLITE_OK ||
        sqlite3_busy_timeout(log->db, 2000) != SQLITE_OK ||
        sqlite3_exec(log->db, schema_sql, NULL, NULL, NULL) != SQLITE_OK) {
        say("cannot open the conversation log %s: %s (--no-log chats without it)", path,
            log->db ? sqlite3_errmsg(log->db) : "out of memory");
        chat_log_close(log);
        return NULL;
    }
    return log;
}

void chat_log_close(chat_log *log)
{
    if (!log)
        return;
    sqlite3_close(log->db);
    free(log);
}

int chat_log_last_cid(chat_log *log, char out[48])
{
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(log->db, "SELECT cid FROM exchanges ORDER BY id DESC LIMIT 1", -1,
                           &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        snprintf(out, 48, "%s", (const char *)sqlite3_column_text(st, 0));
        found = 1;
    }
    sqlite3_finalize(st);
    return found;
}

static const char *col(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : NULL;
}

int chat_log_load(chat_log *log, const char *cid, seam_request *req, char **system)
{
    *system = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(log->db,
                           "SELECT system, prompt, answer FROM exchanges WHERE cid = ?1 ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK) {
        say("cannot read the conversation log: %s", sqlite3_errmsg(log->db));
        return -1;
    }
    sqlite3_bind_text(st, 1, cid, -1, SQLITE_STATIC);
    int n = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *sys = col(st, 0), *prompt = col(st, 1), *answer = col(st, 2);
        if (sys) {
            free(*system);
            *system = strdup(sys);
        }
        seam_message *a = seam_message_new(SEAM_ROLE_ASSISTANT);
        if (seam_request_add_user_text(req, prompt ? prompt : "") != SEAM_OK || !a ||
            seam_message_add_text(a, answer ? answer : "") != SEAM_OK ||
            seam_request_add_message(req, a) != SEAM_OK) {
            seam_message_free(a);
            sqlite3_finalize(st);
            say("out of memory");
            return -1;
        }
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        say("cannot read the conversation log: %s", sqlite3_errmsg(log->db));
        return -1;
    }
    return n;
}

/* The answer's tool calls as a JSON array, NULL when none. */
static char *tool_calls_json(const seam_message *m)
{
    json_object *arr = NULL;
    for (size_t i = 0; m && i < seam_message_part_count(m); i++) {
        const seam_part *p = seam_message_part(m, i);
        if (seam_part_get_type(p) != SEAM_PART_TOOL_CALL)
            continue;
        if (!arr)
            arr = json_object_new_array();
        json_object *c = json_object_new_object();
        json_object_object_add(c, "name", json_object_new_string(seam_part_tool_name(p) ? seam_part_tool_name(p) : ""));
        json_object *args = json_tokener_parse(seam_part_args_json(p) ? seam_part_args_json(p) : "{}");
        json_object_object_add(c, "args", args);
        json_object_array_add(arr, c);
    }
    char *out = arr ? strdup(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN)) : NULL;
    json_object_put(arr);
    return out;
}

int chat_log_add(chat_log *log, const char *cid, const chat_options *o, const char *prompt,
                 int64_t started_ms, int64_t duration_ms)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(log->db,
                           "INSERT INTO exchanges (cid, time_ms, system, prompt, answer, tool_calls,"
                           " attachments, provider, model, input_tokens, output_tokens,"
                           " cost_microcents, duration_ms)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                           -1, &st, NULL) != SQLITE_OK) {
        say("the exchange was not logged: %s", sqlite3_errmsg(log->db));
        return -1;
    }
    char *calls = tool_calls_json(o->answer);
    char *attachments = NULL;
    if (o->n_attachments) {
        json_object *arr = json_object_new_array();
        for (size_t i = 0; i < o->n_attachments; i++) {
            char *abs = realpath(o->attachments[i], NULL);
            json_object_array_add(arr, json_object_new_string(abs ? abs : o->attachments[i]));
            free(abs);
        }
        attachments = strdup(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN |
                                                                     JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(arr);
    }
    const seam_usage *u = &o->usage;
    sqlite3_bind_text(st, 1, cid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, started_ms);
    if (o->system)
        sqlite3_bind_text(st, 3, o->system, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, prompt, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, o->answer ? seam_message_text(o->answer) : "", -1, SQLITE_STATIC);
    if (calls)
        sqlite3_bind_text(st, 6, calls, -1, SQLITE_STATIC);
    if (attachments)
        sqlite3_bind_text(st, 7, attachments, -1, SQLITE_STATIC);
    if (o->answer_provider)
        sqlite3_bind_text(st, 8, o->answer_provider, -1, SQLITE_STATIC);
    if (o->answer_model)
        sqlite3_bind_text(st, 9, o->answer_model, -1, SQLITE_STATIC);
    if (u->present & SEAM_USAGE_INPUT)
        sqlite3_bind_int64(st, 10, u->input_tokens);
    if (u->present & SEAM_USAGE_OUTPUT)
        sqlite3_bind_int64(st, 11, u->output_tokens);
    if (u->present & SEAM_USAGE_COST)
        sqlite3_bind_int64(st, 12, u->cost_microcents);
    sqlite3_bind_int64(st, 13, duration_ms);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    if (rc != 0)
        say("the exchange was not logged: %s", sqlite3_errmsg(log->db));
    sqlite3_finalize(st);
    free(calls);
    free(attachments);
    return rc;
}

/* ---- seam logs ------------------------------------------------------------------ */

static void print_time(int64_t ms)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    char buf[32];
    localtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    fputs(buf, stdout);
}

static void json_add_text(json_object *o, const char *key, sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) != SQLITE_NULL)
        json_object_object_add(o, key, json_object_new_string(col(st, i)));
}

static void json_add_int(json_object *o, const char *key, sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) != SQLITE_NULL)
        json_object_object_add(o, key, json_object_new_int64(sqlite3_column_int64(st, i)));
}

int cmd_logs(const char *conf, int argc, char **argv)
{
    (void)conf;
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"cid", required_argument, NULL, 'C'},
        {"query", required_argument, NULL, 'q'},
        {"count", required_argument, NULL, 'n'},
        {"conf", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0;
    long count = 3;
    const char *cid = NULL, *query = NULL;
    char **args = argv - 1;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc + 1, args, "+:n:q:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'C': cid = optarg; break;
        case 'q': query = optarg; break;
        case 'f': break; /* the log does not depend on the conf */
        case 'n': {
            char *end = NULL;
            count = strtol(optarg, &end, 10);
            if (end == optarg || *end || count < 0)
                return usage_error("logs: -n must be a whole number >= 0 (0: all), not '%s'",
                                   optarg);
            break;
        }
        case 'h':
            fputs(help_text, stdout);
            return EXIT_OK;
        case ':':
            return usage_error("logs: %s needs a value", args[optind - 1]);
        default:
            return usage_error("logs: unknown option '%s'", args[optind - 1]);
        }
    }
    if (optind < argc + 1)
        return usage_error("logs: unexpected argument '%s'", args[optind]);
    chat_log *log = chat_log_open();
    if (!log)
        return EXIT_PROVIDER;
    /* The newest N that match, printed oldest first. */
    sqlite3_stmt *st = NULL;
    const char *sql =
        "SELECT * FROM (SELECT id, cid, time_ms, system, prompt, answer, tool_calls, attachments,"
        " provider, model, input_tokens, output_tokens, cost_microcents, duration_ms"
        " FROM exchanges WHERE (?1 IS NULL OR cid = ?1)"
        " AND (?2 IS NULL OR instr(prompt, ?2) > 0 OR instr(answer, ?2) > 0)"
        " ORDER BY id DESC LIMIT ?3) ORDER BY id";
    if (sqlite3_prepare_v2(log->db, sql, -1, &st, NULL) != SQLITE_OK) {
        say("cannot read the conversation log: %s", sqlite3_errmsg(log->db));
        chat_log_close(log);
        return EXIT_PROVIDER;
    }
    if (cid)
        sqlite3_bind_text(st, 1, cid, -1, SQLITE_STATIC);
    if (query)
        sqlite3_bind_text(st, 2, query, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, count > 0 ? count : -1);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (json) {
            json_object *o = json_object_new_object();
            json_add_int(o, "id", st, 0);
            json_add_text(o, "cid", st, 1);
            json_add_int(o, "time_ms", st, 2);
            json_add_text(o, "system", st, 3);
            json_add_text(o, "prompt", st, 4);
            json_add_text(o, "answer", st, 5);
            if (sqlite3_column_type(st, 6) != SQLITE_NULL)
                json_object_object_add(o, "tool_calls", json_tokener_parse(col(st, 6)));
            if (sqlite3_column_type(st, 7) != SQLITE_NULL)
                json_object_object_add(o, "attachments", json_tokener_parse(col(st, 7)));
            json_add_text(o, "provider", st, 8);
            json_add_text(o, "model", st, 9);
            json_object *u = json_object_new_object();
            json_add_int(u, "input_tokens", st, 10);
            json_add_int(u, "output_tokens", st, 11);
            json_add_int(u, "cost_microcents", st, 12);
            json_object_object_add(o, "usage", u);
            json_add_int(o, "duration_ms", st, 13);
            puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                       JSON_C_TO_STRING_NOSLASHESCAPE));
            json_object_put(o);
            continue;
        }
        fputs("# ", stdout);
        print_time(sqlite3_column_int64(st, 2));
        printf("  conversation %s  %s %s", col(st, 1), col(st, 8) ? col(st, 8) : "?",
               col(st, 9) ? col(st, 9) : "?");
        if (sqlite3_column_type(st, 10) != SQLITE_NULL)
            printf("  tokens in %lld out %lld", (long long)sqlite3_column_int64(st, 10),
                   (long long)sqlite3_column_int64(st, 11));
        printf("  %lld ms\n", (long long)sqlite3_column_int64(st, 13));
        if (col(st, 3))
            printf("system: %s\n", col(st, 3));
        printf("> %s\n%s\n", col(st, 4), col(st, 5) ? col(st, 5) : "");
        if (col(st, 6))
            printf("tool calls: %s\n", col(st, 6));
        putchar('\n');
    }
    int code = EXIT_OK;
    if (rc != SQLITE_DONE) {
        say("cannot read the conversation log: %s", sqlite3_errmsg(log->db));
        code = EXIT_PROVIDER;
    }
    sqlite3_finalize(st);
    chat_log_close(log);
    return code;
}

#else /* !HAVE_SQLITE */

int chat_log_available(void)
{
    return 0;
}

chat_log *chat_log_open(void)
{
    return NULL;
}

void chat_log_close(chat_log *log)
{
    (void)log;
}

int chat_log_last_cid(chat_log *log, char out[48])
{
    (void)log;
    (void)out;
    return 0;
}

int chat_log_load(chat_log *log, const char *cid, seam_request *req, char **system)
{
    (void)log;
    (void)cid;
    (void)req;
    *system = NULL;
    return -1;
}

int chat_log_add(chat_log *log, const char *cid, const chat_options *o, const char *prompt,
                 int64_t started_ms, int64_t duration_ms)
{
    (void)log, (void)cid, (void)o, (void)prompt, (void)started_ms, (void)duration_ms;
    return -1;
}

int cmd_logs(const char *conf, int argc, char **argv)
{
    (void)conf, (void)argc, (void)argv;
    say("this seam was built without SQLite (configure --without-sqlite): no conversation logs");
    return EXIT_USAGE;
}
#endif
