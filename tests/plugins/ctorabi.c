/* ctorabi.c — a test plugin built for an ABI major the core does not speak
 * (99) whose constructor aborts. plugin.h promises that a wrong-ABI plugin is
 * refused without any of its code running: the ABI must be read from the file,
 * before dlopen would run this constructor and take the process down. */
#include "config.h"

#include <stdlib.h>

#include <seam/plugin.h>

SEAM_PLUGIN_EXPORT const uint32_t seam_plugin_abi = (uint32_t)(99u << 16);
SEAM_PLUGIN_EXPORT int seam_plugin_init(seam_registrar *r);

__attribute__((constructor)) static void ctorabi_boom(void)
{
    abort();
}

int seam_plugin_init(seam_registrar *r)
{
    (void)r;
    abort();
}
