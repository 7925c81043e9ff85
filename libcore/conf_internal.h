/* conf_internal.h — what the files of the conf loader share: the loader's
 * state while it reads, the range of every number, and every function one
 * file calls in another. Private to libcore (and to tests/test_conf,
 * tests/test_conf_credentials and the fuzz harness, built from the same
 * sources): nothing here is exported, and nothing from libconfig leaves
 * these files; the rest of libcore sees the plain seam_conf of internal.h.
 *
 * Which file owns what:
 *   config.c          finding the conf; loading it: each file's top-level
 *                     groups handed to their readers, conf.d/, the checks
 *                     across files, the model catalog; freeing; lookups
 *   conf_text.c       one file's raw text, read and checked before libconfig
 *                     sees it
 *   conf_read.c       the typed reads every group shares: FILE:LINE errors,
 *                     the ranges, strings, paths, growing arrays, lists of
 *                     names, options -> JSON
 *   conf_providers.c  providers
 *   conf_chains.c     chains and roles, and the references between them
 *   conf_state.c      state (where cooldowns, leases, budgets live)
 *   conf_tools.c      tools (commands) and the cli group
 *   conf_models.c     models (the catalog's and the user's), model_catalog
 *   conf_media.c      media (the store and the intake limits) */
#ifndef SEAM_CONF_INTERNAL_H
#define SEAM_CONF_INTERNAL_H

#include "internal.h"

#include <json-c/json.h>
#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* ---- the range of every number ---------------------------------------------- */

/* Every numeric key of the conf and the values it accepts (both ends
 * included). seam.conf(5) and doc/seam.conf.md document the same table. The
 * bounds keep every consumer's arithmetic inside int64 and inside what poll()
 * and libcurl take (a timeout fits in an int of milliseconds). */
typedef enum range_id {
    R_TIMEOUT_MS,           /* providers.NAME.timeout_ms */
    R_CONNECT_TIMEOUT_MS,   /* providers.NAME.connect_timeout_ms */
    R_IDLE_TIMEOUT_MS,      /* providers.NAME.idle_timeout_ms */
    R_MAX_RESPONSE_BYTES,   /* providers.NAME.max_response_bytes */
    R_KEY_TTL_MS,           /* providers.NAME.api_key_ttl_ms */
    R_KEY_COMMAND_TIMEOUT_MS, /* providers.NAME.api_key_command_timeout_ms */
    R_MAX_ATTEMPTS,         /* chains.NAME[i].max_attempts */
    R_BACKOFF_MS,           /* chains.NAME[i].backoff.base_ms, .max_ms */
    R_RETRY_AFTER_CAP_MS,   /* chains.NAME.retry_after_cap_ms */
    R_COOLDOWN_MS,          /* chains.NAME.cooldown_ms */
    R_TOOL_TIMEOUT_MS,      /* tools.NAME.timeout_ms */
    R_TOKENS,               /* models[i].context_window, .max_output_tokens */
    R_PRICE,                /* models[i].price.* (micro-cents per million tokens) */
    R_STATE_PORT,           /* state.port */
    R_STATE_DB,             /* state.db */
    R_STATE_TIMEOUT_MS,     /* state.timeout_ms */
    R_MEDIA_BYTES,          /* media.inline_*_bytes, media.max_message_bytes */
    R_MEDIA_PARTS,          /* media.max_parts */
    R_MEDIA_JOB_MS,         /* media.job_poll_ms, job_poll_max_ms, job_deadline_ms */
    R_COUNT
} range_id;

/* Room for a setting path such as "chains.default[3].backoff.base_ms". */
#define PATH_MAX_LEN 256

/* Where a chain's entries and fallbacks and a role were written: kept aside for
 * the checks that can only run once every file is merged. Parallel to
 * conf->chains and conf->roles. */
typedef struct chain_lines {
    int *entry_lines;
    int overflow_line;
    int filter_line;
} chain_lines;

typedef struct role_origin {
    char *file;
    int line;
} role_origin;

typedef struct loader {
    seam_conf *conf;
    seam_error *err;
    int status; /* first failure; later ones are not reported */

    /* the file being read */
    const char *file;
    char *dir; /* absolute directory of file: relative paths resolve here */
    int group_or_other_access; /* file mode & 077 */
    unsigned file_mode;

    size_t cap_plugin_path, cap_providers, cap_chains, cap_roles, cap_warnings, cap_models,
        cap_tools;
    int in_catalog; /* reading the model catalog: only `models`, entries marked from_catalog */
    int catalog_disabled; /* model_catalog = "" */
    char *catalog_named_in; /* the file and line of model_catalog, for an */
    int catalog_named_line; /* error about the whole catalog file */
    chain_lines *chain_lines;
    role_origin *role_origins;
    /* The overlay: while the personal conf is read, the definitions of the
     * system conf (indices below these) may be replaced by name. */
    size_t base_providers, base_chains, base_roles, base_tools, base_models;
    int state_seen;         /* 1: a `state` section was read in this layer (a second is an
                             * error); 2: the system conf's, which the personal conf replaces */
    int state_keys_given;   /* ...setting more than backend */
} loader;

/* A name a setting may list, and the bit it sets. */
typedef struct name_bit {
    const char *name;
    uint32_t bit;
} name_bit;

/* ---- conf_read.c: failing, typed reads, paths, arrays, options ------------------ */

int conf_fail_nomem(loader *ld);
int conf_fail_at(loader *ld, const char *file, int line, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;
const char *conf_setting_file(const loader *ld, const config_setting_t *s);
int conf_setting_line(const config_setting_t *s);

/* Fails at the file and line of setting s. */
#define fail_setting(ld, s, ...) \
    conf_fail_at((ld), conf_setting_file((ld), (s)), conf_setting_line(s), __VA_ARGS__)

int conf_fail_type(loader *ld, const config_setting_t *s, const char *path, const char *want);
/* Length of the UTF-8 sequence at s (at most n bytes), 0 when invalid. */
size_t conf_utf8_len(const unsigned char *s, size_t n);
/* out = parent "." name, cut at PATH_MAX_LEN (only a message would be cut). */
void conf_join_path(char *out, const char *parent, const char *name);
int conf_read_string(loader *ld, const config_setting_t *s, const char *path, char **out);
/* An integer inside the range r. */
int conf_read_int64(loader *ld, const config_setting_t *s, const char *path, range_id r,
                    int64_t *out);
int conf_read_number(loader *ld, const config_setting_t *s, const char *path, double *out);
int conf_expect_group(loader *ld, const config_setting_t *s, const char *path);
int conf_fail_unknown(loader *ld, const config_setting_t *s, const char *parent,
                      const char *known);
/* A path from the conf: "~/x" is under $HOME, a relative one is under the
 * directory of the file that says it. NULL when out of memory. */
char *conf_resolve_path(const loader *ld, const char *p);
/* Removes element i of an array of n elements of size elem. */
void conf_remove_at(void *arr, size_t *n, size_t i, size_t elem);
int conf_grow(void **arr, size_t *cap, size_t n, size_t elem);
/* Adds text (taken, NULL: out of memory) to the conf's warnings. */
int conf_add_warning(loader *ld, char *text);
/* An array or list of names, each one of names[0..n), ORed into *bits. */
int conf_read_name_bits(loader *ld, const config_setting_t *s, const char *path,
                        const char *array_what, const name_bit *names, size_t n,
                        const char *before, const char *after, uint32_t *bits);
/* A setting as JSON (NULL when out of memory); every string under s is UTF-8. */
json_object *conf_setting_to_json(const config_setting_t *s);
int conf_options_utf8(loader *ld, const config_setting_t *s, const char *path);
/* A group as JSON text into *out (replacing it). */
int conf_load_options(loader *ld, const config_setting_t *s, const char *path, char **out);

/* ---- conf_text.c: one file's raw text ------------------------------------------- */

/* Reads a whole conf file into a NUL-terminated buffer; fills *st. */
int conf_read_text(loader *ld, const char *file, struct stat *st, char **text, size_t *len);
/* What libconfig 1.5 would take without a word but seam must not. */
int conf_check_text(loader *ld, const char *file, const char *text, size_t len);

/* ---- the groups: each reads its top-level setting s into ld->conf -------------- */

/* conf_providers.c */
int conf_load_providers(loader *ld, const config_setting_t *s);
void conf_free_provider(seam_conf_provider *p);
/* conf_chains.c; conf_check_references runs once every file is read. */
int conf_load_chains(loader *ld, const config_setting_t *s);
int conf_load_roles(loader *ld, const config_setting_t *s);
int conf_check_references(loader *ld);
void conf_free_chain(seam_conf_chain *ch);
/* conf_state.c */
int conf_load_state(loader *ld, const config_setting_t *s);
void conf_free_state(seam_conf_state *st);
/* conf_tools.c */
int conf_load_tools(loader *ld, const config_setting_t *s);
int conf_load_cli(loader *ld, const config_setting_t *s);
void conf_free_tool(seam_conf_tool *t);
/* conf_models.c */
int conf_load_models(loader *ld, const config_setting_t *s);
int conf_load_model_catalog_key(loader *ld, const config_setting_t *s);
/* conf_media.c */
int conf_load_media(loader *ld, const config_setting_t *s);

#endif
