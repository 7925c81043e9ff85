/* registry.h — the plugin registry: discovery and loading of provider plugins
 * (libltdl), the ABI check, and the provider vtables they registered. */
#ifndef SEAM_REGISTRY_H
#define SEAM_REGISTRY_H

#include "internal.h"

typedef struct seam_registry seam_registry;

/* An empty registry (initialises libltdl; balanced by seam_registry_free). */
int seam_registry_new(seam_registry **out, seam_error *err);
/* Loads every *.so in dir, in name order. A missing directory is skipped
 * silently; each refused file is recorded with its reason. */
void seam_registry_load_dir(seam_registry *r, const char *dir);
/* Unloads every plugin (calling seam_plugin_exit where present). */
void seam_registry_free(seam_registry *r);

/* The vtable registered under id, or NULL. */
const seam_provider_vtable *seam_registry_find(const seam_registry *r, const char *id);

size_t seam_registry_plugin_count(const seam_registry *r);
int seam_registry_plugin_at(const seam_registry *r, size_t i, seam_plugin_info *info);

/* Copies `vt` into `out` up to vt->size, leaving later members NULL: the view of
 * an older plugin's shorter vtable that the core reads. */
void seam_vtable_view(const seam_provider_vtable *vt, seam_provider_vtable *out);

#endif
