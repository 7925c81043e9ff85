/* registry.h — the plugin registry: discovery and loading of provider plugins
 * (libltdl), the ABI check, and the provider vtables they registered. */
#ifndef SEAM_REGISTRY_H
#define SEAM_REGISTRY_H

#include "internal.h"

typedef struct seam_registry seam_registry;

/* An empty registry (initialises libltdl; balanced by seam_registry_free). */
int seam_registry_new(seam_registry **out, seam_error *err);
/* Records every *.so in dir, in name order, after those already recorded,
 * without opening any. A missing directory is skipped silently. Called while
 * the client is being built, before any other thread can see the registry. */
void seam_registry_scan_dir(seam_registry *r, const char *dir);
/* Unloads every plugin (calling seam_plugin_exit where present). */
void seam_registry_free(seam_registry *r);

/* The vtable registered under id, in *out, loading plugins on first need: the
 * first recorded file named <id>.so, then, when that does not register id,
 * every file not yet tried, in order, until one does. SEAM_OK; or
 * SEAM_ERR_NOT_FOUND when no file does; or SEAM_ERR_PLUGIN with err of kind
 * resource when the system ran short of descriptors or memory while loading
 * (nothing is recorded: the next call tries again). The vtable stays valid
 * until seam_registry_free. Thread-safe. */
int seam_registry_provider(seam_registry *r, const char *id, const seam_provider_vtable **out,
                           seam_error *err);

/* The state backend registered under id, found and loaded as a provider's
 * vtable is (the file <id>.so first); same statuses. */
int seam_registry_state(seam_registry *r, const char *id, const seam_state_vtable **out,
                        seam_error *err);

/* Every recorded file, each loaded or refused (with its reason): the listing
 * loads what was not loaded yet. Thread-safe; strings borrowed until free. */
size_t seam_registry_plugin_count(seam_registry *r);
int seam_registry_plugin_at(seam_registry *r, size_t i, seam_plugin_info *info);

/* Why the file named <id>.so was refused: its reason and path in buf, and 1.
 * Else, when another file was refused (it may be the one registering id),
 * "FILE refused: REASON" in buf, and 2. 0 when no file was refused. So that a
 * call skipping the provider says why, not just "not installed". */
int seam_registry_refusal(seam_registry *r, const char *id, char *buf, size_t size);

/* Copies `vt` into `out` up to vt->size, leaving later members NULL: the view of
 * an older plugin's shorter vtable that the core reads. */
void seam_vtable_view(const seam_provider_vtable *vt, seam_provider_vtable *out);

#endif
