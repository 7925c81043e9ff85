/* pluginfile.c — what the loader learns about a plugin file before any of its
 * code runs: whether the whole path to it can be trusted (ssh's StrictModes
 * rule, applied up to /), and, from the ELF bytes alone, whether it is a
 * complete shared object for this machine and which plugin ABI it declares.
 * Both must be known before dlopen: dlopen maps the loadable segments straight
 * from the file (a truncated file then faults with SIGBUS on first touch, in
 * every command) and runs the plugin's constructors before a symbol can be
 * looked up. The file is read with pread, never mapped, for the same reason. */
#include "config.h"
#include "pluginfile.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if UINTPTR_MAX > 0xffffffffu
#define NATIVE_CLASS ELFCLASS64
#define NATIVE_BITS 64
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Phdr Phdr;
typedef Elf64_Shdr Shdr;
typedef Elf64_Sym Sym;
#else
#define NATIVE_CLASS ELFCLASS32
#define NATIVE_BITS 32
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Phdr Phdr;
typedef Elf32_Shdr Shdr;
typedef Elf32_Sym Sym;
#endif

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NATIVE_DATA ELFDATA2MSB
#else
#define NATIVE_DATA ELFDATA2LSB
#endif

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#elif defined(__i386__)
#define NATIVE_MACHINE EM_386
#elif defined(__arm__)
#define NATIVE_MACHINE EM_ARM
#elif defined(__riscv)
#define NATIVE_MACHINE EM_RISCV
#elif defined(__powerpc64__)
#define NATIVE_MACHINE EM_PPC64
#elif defined(__powerpc__)
#define NATIVE_MACHINE EM_PPC
#elif defined(__s390__)
#define NATIVE_MACHINE EM_S390
#elif defined(__mips__)
#define NATIVE_MACHINE EM_MIPS
#endif
/* Elsewhere the machine is left to dlopen, which checks it too (after mapping). */

/* 1 when errno says the system ran short (descriptors, memory), not that the
 * file is bad: the loader must not record such a file as refused. */
static int short_of_resources(int e)
{
    return e == EMFILE || e == ENFILE || e == ENOMEM;
}

static int why_set(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int why_set(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return -1;
}

/* why_set for a failed system call whose errno is e: -2 when the system ran
 * short, -1 when the file is at fault. */
static int why_sys(int e, char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int why_sys(int e, char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return short_of_resources(e) ? -2 : -1;
}

/* ---- trust ------------------------------------------------------------------------- */

/* Whether the group `gid` has exactly one member, `owner` (as its primary
 * group or in its member list): 1 yes, 0 no, -2 when the answer could not be
 * had for want of descriptors or memory. A user-private group (Debian's and
 * Fedora's default, umask 002) or root's own group: group-writable, yet only
 * the owner can write. A group without members is refused: setgid programs use
 * those. Debian's ssh applies the same test to StrictModes. The passwd
 * enumeration has global state, hence the lock; it only runs for a
 * group-writable entry. */
static int owner_only_group(gid_t gid, uid_t owner)
{
    static pthread_mutex_t pw_lock = PTHREAD_MUTEX_INITIALIZER;
    char buf[16384];
    struct group gr, *grp = NULL;
    struct passwd pw, *pwp = NULL;
    /* NSS may report a database it could not open as "no such entry", with
     * the cause left in errno. */
    errno = 0;
    int e = getgrgid_r(gid, &gr, buf, sizeof buf, &grp);
    if (e != 0 || !grp)
        return short_of_resources(e ? e : errno) ? -2 : 0;
    char owner_name[256] = "";
    char pwbuf[4096];
    errno = 0;
    e = getpwuid_r(owner, &pw, pwbuf, sizeof pwbuf, &pwp);
    if (e != 0 || !pwp)
        return short_of_resources(e ? e : errno) ? -2 : 0;
    snprintf(owner_name, sizeof owner_name, "%s", pwp->pw_name);
    int members = 0;
    for (char **m = grp->gr_mem; m && *m; m++) {
        if (strcmp(*m, owner_name) != 0)
            return 0;
        members++;
    }
    int verdict = 1, entries = 0;
    pthread_mutex_lock(&pw_lock);
    errno = 0;
    setpwent();
    for (;;) {
        e = getpwent_r(&pw, pwbuf, sizeof pwbuf, &pwp);
        if (e != 0 || !pwp) {
            /* No entry at all (root always has one): the database could not
             * be read, most likely for want of descriptors. */
            if (short_of_resources(e) || entries == 0)
                verdict = -2;
            else if (e != ENOENT && e != 0)
                verdict = 0; /* an unreadable user database: assume the worst */
            break;
        }
        entries++;
        if (pwp->pw_gid != gid)
            continue;
        if (pwp->pw_uid != owner) {
            verdict = 0;
            break;
        }
        members++;
    }
    endpwent();
    pthread_mutex_unlock(&pw_lock);
    if (verdict == 1 && members == 0)
        verdict = 0;
    return verdict;
}

/* Anyone but root and the invoking user owning a file or a directory on the
 * way, or anyone else able to write it, could swap the code seam is about to
 * run. The plugin's own directory gets no exception: in a sticky
 * world-writable directory (/tmp) others cannot remove our entries but can
 * plant theirs. A sticky *ancestor* is different, and is accepted (ancestor
 * set): the next component down is checked to be ours or root's, and the
 * sticky bit keeps anyone else from renaming or removing it, so nothing below
 * can be swapped. Without that, a build tree or a prefix under /tmp (CI jobs,
 * mktemp -d) could never load its own plugins.
 * Returns 0 when `name` passes, -1 (reason in why) when not, -2 when the
 * system ran short before the answer was known. */
static int check_entry(const char *what, const char *name, const struct stat *st, int ancestor,
                       char *why, size_t whylen)
{
    if (st->st_uid != 0 && st->st_uid != geteuid())
        return why_set(why, whylen, "%s %s is owned by uid %u, neither root nor the user running seam",
                       what, name, (unsigned)st->st_uid);
    if (ancestor && S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))
        return 0;
    int group_ok = 1;
    if (!(st->st_mode & S_IWOTH) && (st->st_mode & S_IWGRP))
        group_ok = owner_only_group(st->st_gid, st->st_uid);
    if (group_ok == -2)
        return why_sys(ENOMEM, why, whylen, "cannot read the group database to check %s %s", what, name);
    /* Which of the two it is: a umask of 002 makes the first, and the fix differs. */
    if (st->st_mode & S_IWOTH)
        return why_set(why, whylen, "%s %s is world-writable (writable by group or others)", what, name);
    if (!group_ok)
        return why_set(why, whylen,
                       "%s %s is group-writable (writable by group or others: its group has other members)",
                       what, name);
    return 0;
}

/* Checks `dir` (a real path: no symlinks) and every directory above it. */
static int walk_up(const char *dir0, char *why, size_t whylen)
{
    char *dir = strdup(dir0);
    if (!dir)
        return why_sys(ENOMEM, why, whylen, "out of memory");
    int rc = 0, ancestor = 0;
    struct stat st;
    for (;; ancestor = 1) {
        if (stat(dir, &st) != 0) {
            rc = why_sys(errno, why, whylen, "cannot stat directory %s: %s", dir, strerror(errno));
            break;
        }
        if ((rc = check_entry(ancestor ? "a directory above it," : "its directory", dir, &st, ancestor,
                              why, whylen)) != 0)
            break;
        char *slash = strrchr(dir, '/');
        if (!slash || strcmp(dir, "/") == 0)
            break;
        if (slash == dir)
            slash[1] = '\0'; /* "/" itself is the last one checked */
        else
            *slash = '\0';
    }
    free(dir);
    return rc;
}

/* The real directory of `path` as listed: whoever can write it could point a
 * symlink in it elsewhere, or swap the file. */
static int check_listed_dir(const char *path, char *why, size_t whylen)
{
    char *copy = strdup(path);
    if (!copy)
        return why_sys(ENOMEM, why, whylen, "out of memory");
    char *slash = strrchr(copy, '/');
    const char *dir = ".";
    if (slash == copy)
        dir = "/";
    else if (slash) {
        *slash = '\0';
        dir = copy;
    }
    char *real = realpath(dir, NULL);
    int rc = real ? walk_up(real, why, whylen)
                  : why_sys(errno, why, whylen, "cannot resolve its directory: %s", strerror(errno));
    free(real);
    free(copy);
    return rc;
}

int seam_plugin_file_trusted(const char *path, char **real, char *why, size_t whylen)
{
    *real = NULL;
    int listed = check_listed_dir(path, why, whylen);
    if (listed != 0)
        return listed;
    *real = realpath(path, NULL);
    if (!*real)
        return why_sys(errno, why, whylen, "cannot resolve its path: %s", strerror(errno));
    struct stat st;
    if (stat(*real, &st) != 0)
        return why_sys(errno, why, whylen, "cannot stat %s: %s", *real, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return why_set(why, whylen, "%s is not a regular file", *real);
    int verdict = check_entry("the file", *real, &st, 0, why, whylen);
    if (verdict != 0)
        return verdict;
    /* Another name of the same inode can sit in a directory this walk never
     * sees, e.g. a world-writable one. Only root's files are exempt: systems
     * that deduplicate /usr into hard links (ostree) keep them owned by root. */
    if (st.st_nlink > 1 && st.st_uid != 0)
        return why_set(why, whylen, "the file %s has %lu hard links and is not owned by root", *real,
                       (unsigned long)st.st_nlink);
    char *dir = strdup(*real);
    if (!dir)
        return why_sys(ENOMEM, why, whylen, "out of memory");
    char *slash = strrchr(dir, '/'); /* realpath's answer is absolute */
    if (slash == dir)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    int rc = walk_up(dir, why, whylen);
    free(dir);
    return rc;
}

/* ---- ELF ---------------------------------------------------------------------------- */

static const char *machine_name(unsigned m)
{
    switch (m) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "AArch64";
    case EM_386: return "i386";
    case EM_ARM: return "ARM";
    case EM_RISCV: return "RISC-V";
    case EM_PPC64: return "PowerPC64";
    case EM_PPC: return "PowerPC";
    case EM_S390: return "S/390";
    case EM_MIPS: return "MIPS";
    default: return NULL;
    }
}

/* 1 when [off, off+len) lies inside a file of `size` bytes (no overflow). */
static int inside(uint64_t off, uint64_t len, uint64_t size)
{
    return off <= size && len <= size - off;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

/* The file offset of `len` bytes at virtual address `va`, from the loadable
 * segment holding them in its file image; 0 when they are not in the file
 * (e.g. in .bss, which reads as zero). */
static int vaddr_to_offset(const Phdr *ph, size_t n, uint64_t va, uint64_t len, uint64_t *off)
{
    for (size_t i = 0; i < n; i++) {
        if (ph[i].p_type != PT_LOAD || va < ph[i].p_vaddr)
            continue;
        uint64_t rel = va - ph[i].p_vaddr;
        if (inside(rel, len, ph[i].p_filesz)) {
            *off = ph[i].p_offset + rel;
            return 1;
        }
    }
    return 0;
}

static int inspect_fd(int fd, seam_plugin_elf *out, char *why, size_t whylen)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return why_sys(errno, why, whylen, "cannot stat: %s", strerror(errno));
    const uint64_t size = (uint64_t)st.st_size;
    unsigned char ident[EI_NIDENT];
    if (size < SELFMAG || read_at(fd, ident, SELFMAG, 0) != 0 || memcmp(ident, ELFMAG, SELFMAG) != 0)
        return why_set(why, whylen, "not an ELF file");
    Ehdr eh;
    if (size < sizeof eh || read_at(fd, &eh, sizeof eh, 0) != 0)
        return why_set(why, whylen, "a truncated ELF file: %llu bytes, shorter than its ELF header",
                       (unsigned long long)size);
    if (eh.e_ident[EI_CLASS] != NATIVE_CLASS)
        return why_set(why, whylen, "an ELF file for %s-bit machines, this seam is %d-bit",
                       eh.e_ident[EI_CLASS] == ELFCLASS32 ? "32" : eh.e_ident[EI_CLASS] == ELFCLASS64 ? "64" : "unknown",
                       NATIVE_BITS);
    if (eh.e_ident[EI_DATA] != NATIVE_DATA)
        return why_set(why, whylen, "an ELF file of the other byte order");
    if (eh.e_type != ET_DYN)
        return why_set(why, whylen, "an ELF file but not a shared object");
#ifdef NATIVE_MACHINE
    if (eh.e_machine != NATIVE_MACHINE) {
        const char *m = machine_name(eh.e_machine);
        char num[32];
        snprintf(num, sizeof num, "machine %u", (unsigned)eh.e_machine);
        return why_set(why, whylen, "built for the wrong machine: %s, this seam runs on %s", m ? m : num,
                       machine_name(NATIVE_MACHINE));
    }
#endif
    if (eh.e_phentsize != sizeof(Phdr) || eh.e_phnum == 0)
        return why_set(why, whylen, "a malformed ELF file: no usable program header table");
    if (!inside(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Phdr), size))
        return why_set(why, whylen, "a truncated ELF file: its program headers end past its %llu bytes",
                       (unsigned long long)size);
    Phdr *ph = malloc((size_t)eh.e_phnum * sizeof *ph);
    Shdr *sh = NULL;
    Sym *syms = NULL;
    char *strs = NULL;
    int rc = -1;
    if (!ph) {
        rc = why_sys(ENOMEM, why, whylen, "out of memory");
        goto done;
    }
    if (read_at(fd, ph, (size_t)eh.e_phnum * sizeof *ph, eh.e_phoff) != 0) {
        why_set(why, whylen, "cannot read its program headers");
        goto done;
    }
    for (size_t i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD && !inside(ph[i].p_offset, ph[i].p_filesz, size)) {
            why_set(why, whylen, "a truncated ELF file: a loadable segment needs %llu bytes, the file has %llu",
                    (unsigned long long)ph[i].p_offset + (unsigned long long)ph[i].p_filesz,
                    (unsigned long long)size);
            goto done;
        }
    }
    if (eh.e_shnum == 0 || eh.e_shentsize != sizeof(Shdr)) {
        why_set(why, whylen, "an ELF file without a section table: its plugin ABI cannot be read");
        goto done;
    }
    if (!inside(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Shdr), size)) {
        why_set(why, whylen, "a truncated ELF file: its section headers end past its %llu bytes",
                (unsigned long long)size);
        goto done;
    }
    sh = malloc((size_t)eh.e_shnum * sizeof *sh);
    if (!sh || read_at(fd, sh, (size_t)eh.e_shnum * sizeof *sh, eh.e_shoff) != 0) {
        why_set(why, whylen, "cannot read its section headers");
        goto done;
    }
    const Shdr *dynsym = NULL;
    for (size_t i = 0; i < eh.e_shnum && !dynsym; i++)
        if (sh[i].sh_type == SHT_DYNSYM)
            dynsym = &sh[i];
    if (!dynsym || dynsym->sh_entsize != sizeof(Sym) || dynsym->sh_link >= eh.e_shnum ||
        sh[dynsym->sh_link].sh_type != SHT_STRTAB) {
        why_set(why, whylen, "an ELF file without a dynamic symbol table");
        goto done;
    }
    const Shdr *dynstr = &sh[dynsym->sh_link];
    if (!inside(dynsym->sh_offset, dynsym->sh_size, size) || !inside(dynstr->sh_offset, dynstr->sh_size, size)) {
        why_set(why, whylen, "a truncated ELF file: its dynamic symbol table ends past its %llu bytes",
                (unsigned long long)size);
        goto done;
    }
    size_t nsyms = (size_t)(dynsym->sh_size / sizeof(Sym)), strsz = (size_t)dynstr->sh_size;
    syms = malloc(nsyms ? nsyms * sizeof *syms : 1);
    strs = malloc(strsz + 1);
    if (!syms || !strs || read_at(fd, syms, nsyms * sizeof *syms, dynsym->sh_offset) != 0 ||
        read_at(fd, strs, strsz, dynstr->sh_offset) != 0) {
        why_set(why, whylen, "cannot read its dynamic symbol table");
        goto done;
    }
    strs[strsz] = '\0';
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < nsyms; i++) {
        const Sym *s = &syms[i];
        if (s->st_name >= strsz || s->st_shndx == SHN_UNDEF)
            continue;
        const char *name = strs + s->st_name;
        if (strcmp(name, "seam_plugin_init") == 0) {
            out->has_init = 1;
        } else if (strcmp(name, "seam_plugin_abi") == 0 && s->st_size >= sizeof(uint32_t)) {
            out->has_abi = 1;
            uint64_t off;
            /* SEAM_PLUGIN_DEFINE makes it a constant: its bytes are in the file. */
            if (vaddr_to_offset(ph, eh.e_phnum, s->st_value, sizeof(uint32_t), &off) &&
                read_at(fd, &out->abi, sizeof out->abi, off) != 0) {
                why_set(why, whylen, "cannot read seam_plugin_abi");
                goto done;
            }
        }
    }
    rc = 0;
done:
    free(ph);
    free(sh);
    free(syms);
    free(strs);
    return rc;
}

int seam_plugin_file_inspect(const char *path, seam_plugin_elf *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return why_sys(errno, why, whylen, "cannot open: %s", strerror(errno));
    int rc = inspect_fd(fd, out, why, whylen);
    close(fd);
    return rc;
}
