/* nosym.c — a test shared object that is not a seam plugin: it exports neither
 * seam_plugin_abi nor seam_plugin_init, so the loader must refuse it with a
 * "missing entry point" reason. */
#include "config.h"

#if defined(__GNUC__)
#define NOSYM_EXPORT __attribute__((visibility("default")))
#else
#define NOSYM_EXPORT
#endif

/* Something to export, so the object is an ordinary, loadable library. */
NOSYM_EXPORT int nosym_answer(void);

int nosym_answer(void)
{
    return 42;
}
