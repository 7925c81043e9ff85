/* badabi.c — a test plugin built for an ABI major the core does not speak (99).
 * The loader must refuse it, naming both versions, without running any of its
 * code: seam_plugin_init here would register nothing anyway. */
#include "config.h"

#include <seam/plugin.h>

SEAM_PLUGIN_EXPORT const uint32_t seam_plugin_abi = (uint32_t)(99u << 16);
SEAM_PLUGIN_EXPORT int seam_plugin_init(seam_registrar *r);

int seam_plugin_init(seam_registrar *r)
{
    (void)r;
    /* Reaching this means the ABI check let the plugin through. */
    return SEAM_ERR_PLUGIN;
}
