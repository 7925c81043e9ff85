/* test_loader.c — plugin discovery through the real loader: a good plugin is
 * listed with its ABI and ids; a wrong ABI major, a missing entry point, a
 * duplicate provider id and a group/world-writable directory are each refused
 * with a message naming the reason, without stopping the other plugins; a
 * broken conf fails the client with file:line. Files that are not whole ELF
 * objects for this machine are refused without being mapped, a wrong-ABI
 * plugin without its constructor running, and a file whose path anyone but
 * root or the user could change (symlink into a world-writable directory,
 * world-writable parent, hard link, another owner) is refused. Plugins load
 * lazily: a client opens only the plugin files its providers need. */
#include "config.h"

#include <CUnit/Basic.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include <seam/plugin.h>
#include <seam/seam.h>

static char *tmp;

static int start(void)
{
    tmp = tu_mkdtemp_private();
    tu_rm_rf_at_end(tmp);
    return tmp ? 0 : -1;
}

static char *test_plugin(const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/tests/plugins/.libs/%s.so", TOP_BUILDDIR, name);
    return strdup(p);
}

static char *real_plugin(const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s.so", tu_plugin_dir(), name);
    return strdup(p);
}

/* A fresh plugin dir holding copies of the given files (NULL-terminated). */
static char *plugin_dir(const char *sub, char **files)
{
    char *dir = tu_path(tmp, sub);
    mkdir(dir, 0755);
    for (size_t i = 0; files[i]; i++) {
        const char *base = strrchr(files[i], '/') + 1;
        char *to = tu_path(dir, base);
        CU_ASSERT_FATAL(tu_copy_file(files[i], to) == 0);
        free(to);
    }
    return dir;
}

/* Frees a plugin_dir and the file names it was made of. */
static void plugin_dir_free(char *dir, char **files)
{
    for (size_t i = 0; files[i]; i++)
        free(files[i]);
    free(dir);
}

static seam_client *client_with(const char *dir, const char *extra, seam_error *err)
{
    char conf[8200];
    snprintf(conf, sizeof conf, "plugin_path = [ \"%s\" ];\n%s", dir, extra);
    char *path = tu_path(tmp, "loader.conf");
    tu_write_file(path, conf);
    seam_client_options o = { sizeof o, path, 1 };
    seam_client *c = NULL;
    int rc = seam_client_new(&o, &c, err);
    free(path);
    return rc == SEAM_OK ? c : NULL;
}

static seam_client *client_for(const char *dir, seam_error *err)
{
    return client_with(dir, "", err);
}

static const seam_plugin_info *find_plugin(seam_client *c, const char *base, seam_plugin_info *info)
{
    for (size_t i = 0; i < seam_client_plugin_count(c); i++) {
        seam_client_plugin_at(c, i, info);
        const char *slash = strrchr(info->file, '/');
        if (slash && strcmp(slash + 1, base) == 0)
            return info;
    }
    return NULL;
}

/* c lists the plugin file base as refused, for a reason that holds why: three
 * assertions, the first fatal. *info is left filled for more checks. */
static void expect_refused(seam_client *c, const char *base, const char *why,
                           seam_plugin_info *info)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(find_plugin(c, base, info));
    CU_ASSERT_FALSE(info->loaded);
    CU_ASSERT_TRUE(info->reason && strstr(info->reason, why));
}

static int mapped(const char *needle);

static void test_good_and_bad_side_by_side(void)
{
    char *files[] = { real_plugin("mock"), test_plugin("badabi"), test_plugin("nosym"),
                      test_plugin("dupmock"), NULL };
    char *dir = plugin_dir("mixed", files);
    seam_error err;
    seam_client *c = client_for(dir, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(seam_client_plugin_count(c), 4);
    seam_plugin_info info;

    /* mock.so is named after the id "mock": it owns it, whatever loads first. */
    CU_ASSERT_PTR_NOT_NULL_FATAL(find_plugin(c, "mock.so", &info));
    CU_ASSERT_TRUE(info.loaded);
    CU_ASSERT_EQUAL(info.abi_version, SEAM_PLUGIN_ABI_VERSION);
    CU_ASSERT_STRING_EQUAL(info.provider_ids, "mock");

    expect_refused(c, "badabi.so", "99.0", &info);
    char ours[32];
    snprintf(ours, sizeof ours, "%u.%u", SEAM_PLUGIN_ABI_MAJOR, SEAM_PLUGIN_ABI_MINOR);
    CU_ASSERT_PTR_NOT_NULL(strstr(info.reason, ours));

    expect_refused(c, "nosym.so", "entry point", &info);

    /* dupmock.so sorts first but is refused, naming the file that owns the id. */
    expect_refused(c, "dupmock.so", "belongs to", &info);
    CU_ASSERT_PTR_NOT_NULL(strstr(info.reason, "/mock.so"));
    seam_client_free(c);

    /* A client that only uses "mock" loads mock.so alone, and the listing
     * then agrees with the one above. */
    c = client_with(dir, "providers = { m = { plugin = \"mock\"; }; };\n", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    seam_provider_info pi;
    CU_ASSERT_EQUAL(seam_client_provider_at(c, 0, &pi), SEAM_OK);
    CU_ASSERT_TRUE(pi.plugin_loaded);
    char *dup_copy = tu_path(dir, "dupmock.so"), *mock_copy = tu_path(dir, "mock.so");
    CU_ASSERT_TRUE(mapped(mock_copy));
    CU_ASSERT_FALSE(mapped(dup_copy));
    free(dup_copy);
    free(mock_copy);
    CU_ASSERT_PTR_NOT_NULL_FATAL(find_plugin(c, "mock.so", &info));
    CU_ASSERT_TRUE(info.loaded);
    expect_refused(c, "dupmock.so", "already registered", &info);

    seam_client_free(c);
    plugin_dir_free(dir, files);
}

static void test_unsafe_dir(void)
{
    char *files[] = { real_plugin("mock"), NULL };
    char *dir = plugin_dir("unsafe", files);
    chmod(dir, 0777);
    seam_error err;
    seam_client *c = client_for(dir, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    seam_plugin_info info;
    expect_refused(c, "mock.so", "writable by group or others", &info);
    seam_client_free(c);

    /* The same file in a private directory loads. */
    chmod(dir, 0755);
    c = client_for(dir, &err);
    CU_ASSERT_PTR_NOT_NULL(find_plugin(c, "mock.so", &info));
    CU_ASSERT_TRUE(info.loaded);
    seam_client_free(c);
    free(files[0]);
    free(dir);
}

static void test_plugin_path_env_order(void)
{
    /* $SEAM_PLUGIN_PATH comes before the conf's plugin_path: its mock wins. */
    char *a_files[] = { real_plugin("mock"), NULL };
    char *b_files[] = { test_plugin("dupmock"), NULL };
    char *a = plugin_dir("env-first", a_files);
    char *b = plugin_dir("conf-second", b_files);
    setenv("SEAM_PLUGIN_PATH", a, 1);
    seam_error err;
    seam_client *c = client_for(b, &err);
    unsetenv("SEAM_PLUGIN_PATH");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    seam_plugin_info info;
    CU_ASSERT_PTR_NOT_NULL(find_plugin(c, "mock.so", &info));
    CU_ASSERT_TRUE(info.loaded);
    CU_ASSERT_PTR_NOT_NULL(find_plugin(c, "dupmock.so", &info));
    CU_ASSERT_FALSE(info.loaded);
    seam_client_free(c);
    free(a_files[0]);
    free(b_files[0]);
    free(a);
    free(b);
}

static void test_broken_conf(void)
{
    char *path = tu_path(tmp, "broken.conf");
    tu_write_file(path, "providers = {\n  x = { plugin = \"mock\" ;\n};\n");
    seam_client_options o = { sizeof o, path, 1 };
    seam_client *c = NULL;
    seam_error err;
    CU_ASSERT_EQUAL(seam_client_new(&o, &c, &err), SEAM_ERR_CONF);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "broken.conf:"));
    free(path);

    o.conf_path = "/nonexistent/seam.conf";
    CU_ASSERT_EQUAL(seam_client_new(&o, &c, &err), SEAM_ERR_CONF);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "/nonexistent/seam.conf"));
}

/* 1 when a mapping of the process names a file whose path contains `needle`. */
static int mapped(const char *needle)
{
    char *maps = tu_read_file("/proc/self/maps", NULL);
    int found = maps && strstr(maps, needle) != NULL;
    free(maps);
    return found;
}

static void write_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void test_broken_files_and_lazy_loading(void)
{
    char *files[] = { real_plugin("mock"), real_plugin("openai"), real_plugin("anthropic"),
                      real_plugin("gemini"), NULL };
    char *dir = plugin_dir("lazy", files);

    /* A real plugin cut after its headers: its loadable segments run past the
     * end of the file, which dlopen would map and fault on (SIGBUS, in every
     * command, before this fix). */
    char *whole = real_plugin("openai");
    char *trunc = tu_path(dir, "trunc.so");
    CU_ASSERT_FATAL(tu_copy_file(whole, trunc) == 0);
    CU_ASSERT_FATAL(truncate(trunc, 8192) == 0);
    /* Cut in half: the segments are whole, the section table is gone. */
    char *half = tu_path(dir, "half.so");
    CU_ASSERT_FATAL(tu_copy_file(whole, half) == 0);
    struct stat st;
    CU_ASSERT_FATAL(stat(half, &st) == 0);
    CU_ASSERT_FATAL(truncate(half, st.st_size / 2) == 0);
    char *junk = tu_path(dir, "junk.so");
    write_bytes(junk, "#!/bin/sh\necho not a plugin\n", 28);
    /* A whole plugin whose header says it is for another machine. */
    char *other = tu_path(dir, "other.so");
    CU_ASSERT_FATAL(tu_copy_file(whole, other) == 0);
    size_t len = 0;
    char *bytes = tu_read_file(other, &len);
    CU_ASSERT_FATAL(bytes && len > 20);
    /* e_machine, at offset 18: 0x3e is x86-64, 0xb7 AArch64. */
    unsigned char m = (unsigned char)bytes[18] == 0xb7 ? 0x3e : 0xb7;
    bytes[18] = (char)m;
    bytes[19] = 0;
    write_bytes(other, bytes, len);
    free(bytes);

    seam_error err;
    seam_client *c = client_with(dir, "providers = { m = { plugin = \"mock\"; }; };\n", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    /* Creating the client opens no plugin file. */
    CU_ASSERT_FALSE(mapped(dir));

    /* Using the mock provider loads mock.so alone. */
    seam_provider_info pi;
    CU_ASSERT_EQUAL_FATAL(seam_client_provider_at(c, 0, &pi), SEAM_OK);
    CU_ASSERT_TRUE(pi.plugin_loaded);
    char *mock_copy = tu_path(dir, "mock.so");
    CU_ASSERT_TRUE(mapped(mock_copy));
    const char *others[] = { "openai.so", "anthropic.so", "gemini.so", "trunc.so", "half.so", "junk.so",
                             "other.so" };
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        char *p = tu_path(dir, others[i]);
        CU_ASSERT_FALSE(mapped(p));
        free(p);
    }

    /* The listing loads everything and gives each refusal its true reason. */
    CU_ASSERT_EQUAL(seam_client_plugin_count(c), 8);
    seam_plugin_info info;
    expect_refused(c, "trunc.so", "truncated ELF file", &info);
    CU_ASSERT_TRUE(info.reason && strstr(info.reason, "loadable segment"));
    expect_refused(c, "half.so", "truncated ELF file", &info);
    expect_refused(c, "junk.so", "not an ELF file", &info);
    expect_refused(c, "other.so", "wrong machine", &info);
    CU_ASSERT_PTR_NOT_NULL_FATAL(find_plugin(c, "openai.so", &info));
    CU_ASSERT_TRUE(info.loaded);
    CU_ASSERT_FALSE(mapped(trunc));
    seam_client_free(c);

    free(mock_copy);
    free(whole);
    free(trunc);
    free(half);
    free(junk);
    free(other);
    plugin_dir_free(dir, files);
}

static void test_abi_read_before_constructors(void)
{
    /* ctorabi's constructor aborts: reaching the end of this test is the proof
     * that a wrong-ABI plugin's code never ran. */
    char *files[] = { test_plugin("ctorabi"), real_plugin("mock"), NULL };
    char *dir = plugin_dir("ctor", files);
    seam_error err;
    seam_client *c = client_for(dir, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    seam_plugin_info info;
    expect_refused(c, "ctorabi.so", "99.0", &info);
    CU_ASSERT_EQUAL(info.abi_version, 99u << 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(find_plugin(c, "mock.so", &info));
    CU_ASSERT_TRUE(info.loaded);
    seam_client_free(c);
    plugin_dir_free(dir, files);
}

/* The reason seam gives for dir/mock.so; "" when it loaded. malloc'ed. */
static char *mock_verdict(const char *dir)
{
    seam_error err;
    seam_client *c = client_for(dir, &err);
    if (!c)
        return strdup("no client");
    seam_plugin_info info;
    char *v = NULL;
    if (!find_plugin(c, "mock.so", &info))
        v = strdup("not listed");
    else
        v = strdup(info.loaded ? "" : info.reason ? info.reason : "refused without a reason");
    seam_client_free(c);
    return v;
}

/* 1 when root is the only member of group 0 (the usual case). */
static int root_group_is_private(void)
{
    struct group *g = getgrgid(0);
    if (!g || (g->gr_mem[0] && (strcmp(g->gr_mem[0], "root") != 0 || g->gr_mem[1])))
        return 0;
    struct passwd *p;
    int ok = 1;
    setpwent();
    while ((p = getpwent()) != NULL)
        if (p->pw_gid == 0 && p->pw_uid != 0)
            ok = 0;
    endpwent();
    return ok;
}

/* A new directory name in parent, of mode (set by chmod when it is not 0755:
 * mkdir's mode is narrowed by the umask). Malloc'ed. */
static char *new_dir(const char *parent, const char *name, mode_t mode)
{
    char *d = tu_path(parent, name);
    mkdir(d, 0755);
    if (mode != 0755)
        chmod(d, mode);
    return d;
}

/* dir/name, a copy of the file from (a fatal assertion when it cannot be
 * made). Malloc'ed. */
static char *copied(const char *from, const char *dir, const char *name)
{
    char *to = tu_path(dir, name);
    CU_ASSERT_FATAL(tu_copy_file(from, to) == 0);
    return to;
}

/* dir/name made by how (symlink or link) to target (a fatal assertion when it
 * cannot be). Malloc'ed. */
static char *linked(int (*how)(const char *, const char *), const char *target, const char *dir,
                    const char *name)
{
    char *to = tu_path(dir, name);
    CU_ASSERT_FATAL(how(target, to) == 0);
    return to;
}

/* A plugin directory (0755) in tmp whose mock.so is a link, made by how, to
 * a copy of the mock plugin in a world-writable directory (sticky, like /tmp).
 * Each member malloc'ed; linked_plugin_free frees them. */
typedef struct linked_plugin {
    char *ww;     /* the world-writable directory */
    char *target; /* the copy in it */
    char *dir;    /* the plugin directory */
    char *link;   /* dir/mock.so */
} linked_plugin;

static linked_plugin link_to_world_writable(int (*how)(const char *, const char *), const char *mock,
                                            const char *ww_name, const char *target_name,
                                            const char *dir_name)
{
    linked_plugin lp;
    lp.ww = new_dir(tmp, ww_name, 01777);
    lp.target = copied(mock, lp.ww, target_name);
    lp.dir = new_dir(tmp, dir_name, 0755);
    lp.link = linked(how, lp.target, lp.dir, "mock.so");
    return lp;
}

static void linked_plugin_free(linked_plugin *lp)
{
    free(lp->ww);
    free(lp->target);
    free(lp->dir);
    free(lp->link);
}

static void test_untrusted_paths(void)
{
    char *mock = real_plugin("mock");

    /* A symlink into a world-writable (sticky, like /tmp) directory. */
    linked_plugin sym = link_to_world_writable(symlink, mock, "ww", "mock.so", "sym");
    char *v = mock_verdict(sym.dir);
    CU_ASSERT_PTR_NOT_NULL(strstr(v, "writable by group or others"));
    CU_ASSERT_PTR_NOT_NULL(strstr(v, sym.ww));
    free(v);

    /* The same symlink to a file in a private directory loads. */
    char *good = new_dir(tmp, "good", 0755);
    char *good_mock = copied(mock, good, "mock.so");
    unlink(sym.link);
    CU_ASSERT_FATAL(symlink(good_mock, sym.link) == 0);
    v = mock_verdict(sym.dir);
    CU_ASSERT_STRING_EQUAL(v, "");
    free(v);

    /* A symlink to that good file, from a world-writable plugin directory:
     * anyone could point it elsewhere. */
    char *wwlist = new_dir(tmp, "wwlist", 0777);
    char *wwlist_mock = linked(symlink, good_mock, wwlist, "mock.so");
    v = mock_verdict(wwlist);
    CU_ASSERT_PTR_NOT_NULL(strstr(v, "writable by group or others"));
    CU_ASSERT_PTR_NOT_NULL(strstr(v, wwlist));
    free(v);
    free(wwlist_mock);
    free(wwlist);

    /* A private plugin directory inside a world-writable one. */
    char *wwp = new_dir(tmp, "wwp", 0777);
    char *inner = new_dir(wwp, "plugins", 0755);
    char *inner_mock = copied(mock, inner, "mock.so");
    v = mock_verdict(inner);
    CU_ASSERT_PTR_NOT_NULL(strstr(v, "writable by group or others"));
    CU_ASSERT_PTR_NOT_NULL(strstr(v, wwp));
    free(v);
    /* A sticky world-writable ancestor (a build tree under /tmp) is fine:
     * nobody else can rename or remove `plugins`, which is ours. */
    chmod(wwp, 01777);
    v = mock_verdict(inner);
    CU_ASSERT_STRING_EQUAL(v, "");
    free(v);
    chmod(wwp, 0755);
    v = mock_verdict(inner);
    CU_ASSERT_STRING_EQUAL(v, "");
    free(v);

    /* Group-writable: refused when the group has members besides the owner
     * (root can hand the directory to nobody's group), accepted when the
     * owner is its only member (a user-private group, root's group here). */
    if (geteuid() == 0) {
        chmod(inner, 0775);
        CU_ASSERT_FATAL(chown(inner, 0, 65534) == 0);
        v = mock_verdict(inner);
        CU_ASSERT_PTR_NOT_NULL(strstr(v, "writable by group or others"));
        free(v);
        CU_ASSERT_FATAL(chown(inner, 0, 0) == 0);
        if (root_group_is_private()) {
            v = mock_verdict(inner);
            CU_ASSERT_STRING_EQUAL(v, "");
            free(v);
        }
        chmod(inner, 0755);
    }

    /* A file owned by someone else (only root can make one). */
    if (geteuid() == 0) {
        CU_ASSERT_FATAL(chown(good_mock, 65534, 65534) == 0);
        v = mock_verdict(good);
        CU_ASSERT_PTR_NOT_NULL(strstr(v, "owned by uid 65534"));
        free(v);
        CU_ASSERT_FATAL(chown(good_mock, 0, 0) == 0);
    } else {
        printf("(skipped: a file owned by another user needs root) ");
    }

    free(mock);
    linked_plugin_free(&sym);
    free(good);
    free(good_mock);
    free(wwp);
    free(inner);
    free(inner_mock);
}

/* The hard-link check as `uid`, in a forked child: 0 when the linked file is
 * refused for its links and the unlinked copy loads, 77 when `uid` cannot read
 * the build tree, another code naming what went wrong. */
static int hard_link_child(uid_t uid, const char *copy_mock, const char *hl_conf, const char *copy_conf)
{
    if (setgid(uid) != 0 || setuid(uid) != 0)
        return 10;
    /* A build tree below a private directory (/root) is out of nobody's reach. */
    if (access(copy_mock, R_OK) != 0 || access(hl_conf, R_OK) != 0)
        return 77;
    const char *confs[] = { hl_conf, copy_conf };
    int want_loaded[] = { 0, 1 };
    for (int i = 0; i < 2; i++) {
        seam_client_options o = { sizeof o, confs[i], 1 };
        seam_client *c = NULL;
        seam_error err;
        if (seam_client_new(&o, &c, &err) != SEAM_OK)
            return 11;
        seam_plugin_info info;
        int code = 0;
        if (!find_plugin(c, "mock.so", &info))
            code = 12;
        else if (info.loaded != want_loaded[i])
            code = 13 + i;
        else if (!info.loaded && !(info.reason && strstr(info.reason, "hard links")))
            code = 15;
        seam_client_free(c);
        if (code)
            return code;
    }
    return 0;
}

/* Hard links: a file of the user's linked from a world-writable directory is
 * refused, an unlinked copy beside it loads. Root's own files are exempt from
 * the link rule, so as root the check runs in a child that became nobody. */
static void test_hard_link(void)
{
    char *mock = real_plugin("mock");
    linked_plugin hl = link_to_world_writable(link, mock, "ww-hl", "orig.so", "hl");
    char *copy = new_dir(tmp, "hl-copy", 0755);
    char *copy_mock = copied(mock, copy, "mock.so");

    if (geteuid() != 0) {
        char *v = mock_verdict(hl.dir);
        CU_ASSERT_PTR_NOT_NULL(strstr(v, "hard links"));
        free(v);
        v = mock_verdict(copy);
        CU_ASSERT_STRING_EQUAL(v, "");
        free(v);
    } else {
        const uid_t nobody = 65534;
        int ok = chown(hl.target, nobody, nobody) == 0 && chown(hl.dir, nobody, nobody) == 0 &&
                 chown(copy, nobody, nobody) == 0 && chown(copy_mock, nobody, nobody) == 0 &&
                 chmod(tmp, 0755) == 0;
        CU_ASSERT_FATAL(ok);
        /* The child only reads: write its confs now, readable by nobody. */
        char conf[8200];
        char *hl_conf = tu_path(tmp, "hl.conf"), *copy_conf = tu_path(tmp, "copy.conf");
        snprintf(conf, sizeof conf, "plugin_path = [ \"%s\" ];\n", hl.dir);
        tu_write_file(hl_conf, conf);
        snprintf(conf, sizeof conf, "plugin_path = [ \"%s\" ];\n", copy);
        tu_write_file(copy_conf, conf);
        chmod(hl_conf, 0644);
        chmod(copy_conf, 0644);
        fflush(NULL);
        pid_t pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0) {
            int code = hard_link_child(nobody, copy_mock, hl_conf, copy_conf);
            /* The parent's strings, freed so that valgrind sees no leak in the child. */
            char *mine[] = { mock, copy, copy_mock, hl_conf, copy_conf };
            for (size_t i = 0; i < sizeof mine / sizeof *mine; i++)
                free(mine[i]);
            linked_plugin_free(&hl);
            free(tmp);
            _exit(code);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        CU_ASSERT_TRUE(WIFEXITED(status));
        if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
            printf("(skipped: nobody cannot reach the build tree) ");
        else
            CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
        chmod(tmp, 0700);
        free(hl_conf);
        free(copy_conf);
    }
    free(mock);
    linked_plugin_free(&hl);
    free(copy);
    free(copy_mock);
}

/* Many threads using providers of one fresh client at once: each provider's
 * plugin is loaded and its instance created exactly once, and every thread
 * sees it ready. */
typedef struct race_arg {
    seam_client *c;
    pthread_barrier_t *start;
    const char *provider;
    int rc;
} race_arg;

static void *race_thread(void *ud)
{
    race_arg *a = ud;
    pthread_barrier_wait(a->start);
    seam_capabilities caps = { .size = sizeof caps };
    seam_error err;
    a->rc = seam_client_capabilities(a->c, a->provider, "mock-1", &caps, &err);
    return NULL;
}

static void test_concurrent_first_use(void)
{
    char *files[] = { real_plugin("mock"), real_plugin("openai"), NULL };
    char *dir = plugin_dir("race", files);
    seam_error err;
    seam_client *c = client_with(dir,
                                 "providers = { m1 = { plugin = \"mock\"; }; m2 = { plugin = \"mock\"; };\n"
                                 "  oa = { plugin = \"openai\"; base_url = \"http://127.0.0.1:9/v1\"; }; };\n",
                                 &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    enum { N = 12 };
    pthread_t th[N];
    race_arg args[N];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, N);
    const char *names[] = { "m1", "m2", "oa" };
    for (int i = 0; i < N; i++) {
        args[i] = (race_arg){ c, &start, names[i % 3], -1 };
        CU_ASSERT_FATAL(pthread_create(&th[i], NULL, race_thread, &args[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        CU_ASSERT_EQUAL(args[i].rc, SEAM_OK);
    }
    pthread_barrier_destroy(&start);
    seam_plugin_info info;
    CU_ASSERT_PTR_NOT_NULL_FATAL(find_plugin(c, "mock.so", &info));
    CU_ASSERT_TRUE(info.loaded);
    CU_ASSERT_STRING_EQUAL(info.provider_ids, "mock");
    CU_ASSERT_PTR_NULL(info.reason);
    seam_client_free(c);
    plugin_dir_free(dir, files);
}

/* Out of descriptors at a provider's first use: the plugin is not recorded as
 * refused (nor the provider as having none), and the next use loads it. */
static void test_first_use_out_of_descriptors(void)
{
    char *files[] = { real_plugin("mock"), NULL };
    char *dir = plugin_dir("emfile", files);
    seam_error err;
    seam_client *c = client_with(dir, "providers = { m = { plugin = \"mock\"; }; };\n", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    tu_fds_jam jam;
    tu_fds_use_up(&jam, 8);
    seam_capabilities caps = { .size = sizeof caps };
    int rc = seam_client_capabilities(c, "m", "mock-1", &caps, &err);
    tu_fds_give_back(&jam);
    CU_ASSERT_NOT_EQUAL(rc, SEAM_OK);
    rc = seam_client_capabilities(c, "m", "mock-1", &caps, &err);
    CU_ASSERT_EQUAL(rc, SEAM_OK);
    seam_plugin_info info;
    CU_ASSERT_PTR_NOT_NULL_FATAL(find_plugin(c, "mock.so", &info));
    CU_ASSERT_TRUE(info.loaded);
    seam_client_free(c);
    free(files[0]);
    free(dir);
}

static const tu_test tests[] = {
    { "good and bad plugins side by side", test_good_and_bad_side_by_side },
    { "unsafe directory refused", test_unsafe_dir },
    { "SEAM_PLUGIN_PATH before plugin_path", test_plugin_path_env_order },
    { "broken conf", test_broken_conf },
    { "broken files refused, plugins loaded lazily", test_broken_files_and_lazy_loading },
    { "ABI read before any constructor runs", test_abi_read_before_constructors },
    { "untrusted paths refused", test_untrusted_paths },
    { "hard link refused", test_hard_link },
    { "concurrent first use", test_concurrent_first_use },
    { "first use out of descriptors, then again", test_first_use_out_of_descriptors },
    { NULL, NULL },
};

int main(void)
{
    return tu_run_suite("loader", tests, start);
}
