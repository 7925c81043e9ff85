/* pluginfile.h — the checks the loader makes on a plugin file before running
 * any of its code: the trust rule on its whole path, and what its ELF bytes
 * say (a complete shared object for this machine, its declared plugin ABI). */
#ifndef SEAM_PLUGINFILE_H
#define SEAM_PLUGINFILE_H

#include <stddef.h>
#include <stdint.h>

/* Resolves `path` (symlinks included) into *real (malloc'ed, the caller frees)
 * and applies the trust rule to the file and every directory up to /.
 * Returns 0 when trusted; -1 with the reason in why (and *real possibly NULL);
 * -2 when the system ran short (descriptors, memory): nothing is known about
 * the file, try again later. */
int seam_plugin_file_trusted(const char *path, char **real, char *why, size_t whylen);

typedef struct seam_plugin_elf {
    uint32_t abi;  /* the value of seam_plugin_abi, 0 when absent */
    int has_abi;   /* seam_plugin_abi is a defined dynamic symbol */
    int has_init;  /* seam_plugin_init is a defined dynamic symbol */
} seam_plugin_elf;

/* Reads `path` as an ELF shared object without mapping or running it: a file
 * that is not ELF, is for another class, byte order or machine, or is too short
 * for what its headers and loadable segments describe is refused (returns -1,
 * reason in why); -2 as for seam_plugin_file_trusted. Otherwise fills *out
 * and returns 0. */
int seam_plugin_file_inspect(const char *path, seam_plugin_elf *out, char *why, size_t whylen);

#endif
