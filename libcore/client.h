/* client.h — the client's internals shared by client.c and call.c: the loaded
 * conf, the plugin registry, one slot per configured provider (its plugin
 * instance and cached credential) and the libcurl share handle. */
#ifndef SEAM_CLIENT_H
#define SEAM_CLIENT_H

#include "registry.h"
#include "transport.h"

#include <pthread.h>

typedef struct seam_provider_slot {
    const seam_conf_provider *conf;
    const seam_provider_vtable *vt; /* NULL: plugin not loaded */
    void *instance;                 /* NULL when vt is NULL or create failed */
    char create_error[256];
    char *credential;               /* cached after the first resolve */
    int credential_resolved;
} seam_provider_slot;

struct seam_client {
    seam_conf *conf;
    seam_registry *reg;
    seam_provider_slot *slots;
    size_t n_slots;
    CURLSH *share;
    pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
    pthread_mutex_t lock; /* credentials */
};

seam_provider_slot *seam_client_slot(seam_client *c, const char *provider_name);
/* A private copy of the provider's credential (free with seam_secret_free):
 * SEAM_OK with *out NULL when none is configured, SEAM_ERR_NO_CREDENTIAL when
 * configured but unavailable. */
int seam_client_credential(seam_client *c, seam_provider_slot *slot, char **out, seam_error *err);

#endif
