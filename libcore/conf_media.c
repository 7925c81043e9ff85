/* conf_media.c — the `media` group: the media store's directory and the
 * intake limits (inline bytes per modality, parts and bytes in a message,
 * URL fetching, job polling). */
#include "config.h"
#include "conf_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- media ----------------------------------------------------------------------------------------------- */

static const char media_keys[] =
    "store, inline_image_bytes, inline_audio_bytes, inline_video_bytes, inline_document_bytes, "
    "max_parts, max_message_bytes, allow_private_urls, fetch_urls, job_poll_ms, job_poll_max_ms, "
    "job_deadline_ms";

/* media = { ... }: the store's directory and the intake limits. A drop-in
 * may set any key again: the last file read wins, key by key. */
int conf_load_media(loader *ld, const config_setting_t *s)
{
    if (conf_expect_group(ld, s, "media") != SEAM_OK)
        return ld->status;
    seam_conf_media *m = &ld->conf->media;
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *key = config_setting_name(e);
        char path[PATH_MAX_LEN];
        conf_join_path(path, "media", key);
        int rc;
        if (strcmp(key, "store") == 0) {
            char *v = NULL;
            rc = conf_read_string(ld, e, path, &v);
            if (rc == SEAM_OK) {
                free(m->store);
                m->store = conf_resolve_path(ld, v);
                free(v);
                if (!m->store)
                    rc = conf_fail_nomem(ld);
            }
        } else if (strcmp(key, "inline_image_bytes") == 0)
            rc = conf_read_int64(ld, e, path, R_MEDIA_BYTES, &m->inline_image_bytes);
        else if (strcmp(key, "inline_audio_bytes") == 0)
            rc = conf_read_int64(ld, e, path, R_MEDIA_BYTES, &m->inline_audio_bytes);
        else if (strcmp(key, "inline_video_bytes") == 0)
            rc = conf_read_int64(ld, e, path, R_MEDIA_BYTES, &m->inline_video_bytes);
        else if (strcmp(key, "inline_document_bytes") == 0)
            rc = conf_read_int64(ld, e, path, R_MEDIA_BYTES, &m->inline_document_bytes);
        else if (strcmp(key, "max_parts") == 0)
            rc = conf_read_int64(ld, e, path, R_MEDIA_PARTS, &m->max_parts);
        else if (strcmp(key, "max_message_bytes") == 0)
            rc = conf_read_int64(ld, e, path, R_MEDIA_BYTES, &m->max_message_bytes);
        else if (strcmp(key, "job_poll_ms") == 0)
            rc = conf_read_int64(ld, e, path, R_MEDIA_JOB_MS, &m->job_poll_ms);
        else if (strcmp(key, "job_poll_max_ms") == 0)
            rc = conf_read_int64(ld, e, path, R_MEDIA_JOB_MS, &m->job_poll_max_ms);
        else if (strcmp(key, "job_deadline_ms") == 0)
            rc = conf_read_int64(ld, e, path, R_MEDIA_JOB_MS, &m->job_deadline_ms);
        else if (strcmp(key, "allow_private_urls") == 0 || strcmp(key, "fetch_urls") == 0) {
            if (config_setting_type(e) != CONFIG_TYPE_BOOL)
                rc = conf_fail_type(ld, e, path, "a boolean");
            else {
                *(key[0] == 'a' ? &m->allow_private_urls : &m->fetch_urls) =
                    config_setting_get_bool(e);
                rc = SEAM_OK;
            }
        } else
            rc = conf_fail_unknown(ld, e, "media", media_keys);
        if (rc != SEAM_OK)
            return rc;
    }
    return SEAM_OK;
}
