/* fuzz_conf.c — a libFuzzer harness for the conf loader (libcore/config.c and
 * its conf_*.c): the input is a seam.conf and, after its first NUL byte, a
 * conf.d/ drop-in merged over it. Whatever the text, seam_conf_load must
 * return a status with a message, or a conf whose invariants hold (what `seam
 * conf check` relies on): every chain, role and tool reachable by name, every
 * `options` group and tool schema a JSON object, every model findable. Never
 * a crash, a leak or undefined behaviour.
 *
 * @include is disabled ('@' becomes a space): it would let an input read any
 * file on the machine, and libconfig's own include code is not ours. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static char dir[256], main_path[300], dropin_dir[300], dropin_path[320];

static void cleanup(void)
{
    unlink(dropin_path);
    rmdir(dropin_dir);
    unlink(main_path);
    rmdir(dir);
}

static void setup(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/seam-fuzz-conf.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        abort();
    snprintf(main_path, sizeof main_path, "%s/seam.conf", dir);
    snprintf(dropin_dir, sizeof dropin_dir, "%s/conf.d", dir);
    snprintf(dropin_path, sizeof dropin_path, "%s/10-fuzz.conf", dropin_dir);
    if (mkdir(dropin_dir, 0700) != 0)
        abort();
    atexit(cleanup);
}

static void write_file(const char *path, const uint8_t *data, size_t n)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        abort();
    for (size_t i = 0; i < n; i++)
        fputc(data[i] == '@' ? ' ' : data[i], fp);
    if (fclose(fp) != 0)
        abort();
}

static void need(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "conf invariant broken: %s\n", what);
        abort();
    }
}

static void check_conf(const seam_conf *c)
{
    for (size_t i = 0; i < c->n_providers; i++) {
        const seam_conf_provider *p = &c->providers[i];
        need(p->name && p->plugin && p->options_json, "provider fields");
        need(seam_conf_find_provider(c, p->name) != NULL, "provider by name");
        need(seam_json_is_valid(p->options_json, 1), "provider options are a JSON object");
        need(p->timeout_ms >= 0 && p->connect_timeout_ms >= 0 && p->idle_timeout_ms >= 0 &&
                 p->max_response_bytes >= 0 && p->api_key_ttl_ms >= 0,
             "provider limits");
        for (size_t k = 0; k < p->n_api_keys_env; k++)
            need(p->api_keys_env[k] != NULL, "api_keys_env");
        for (size_t k = 0; k < p->n_api_key_files; k++)
            need(p->api_key_files[k] != NULL, "api_key_files");
        for (size_t k = 0; k < p->n_api_key_commands; k++)
            need(p->api_key_commands[k] != NULL, "api_key_commands");
    }
    for (size_t i = 0; i < c->n_chains; i++) {
        const seam_conf_chain *ch = &c->chains[i];
        need(ch->name && seam_conf_find_chain(c, ch->name) != NULL, "chain by name");
        need(ch->retry_after_cap_ms >= 0 && ch->cooldown_ms >= 0, "chain limits");
        for (size_t k = 0; k < ch->n_entries; k++) {
            const seam_conf_entry *e = &ch->entries[k];
            need(e->provider != NULL && e->max_attempts >= 1, "chain entry");
            need(e->backoff.base_ms >= 0 && e->backoff.max_ms >= 0 &&
                     e->backoff.jitter >= 0.0 && e->backoff.jitter <= 1.0,
                 "backoff");
        }
        need(!ch->context_overflow_fallback ||
                 seam_conf_find_chain(c, ch->context_overflow_fallback) != NULL,
             "context_overflow_fallback names a chain");
        need(!ch->content_filter_fallback ||
                 seam_conf_find_chain(c, ch->content_filter_fallback) != NULL,
             "content_filter_fallback names a chain");
    }
    for (size_t i = 0; i < c->n_roles; i++)
        need(c->roles[i].name && c->roles[i].chain &&
                 seam_conf_find_chain(c, c->roles[i].chain) != NULL,
             "role names a chain");
    for (size_t i = 0; i < c->n_tools; i++) {
        const seam_conf_tool *t = &c->tools[i];
        need(t->name && seam_conf_find_tool(c, t->name) != NULL, "tool by name");
        need(!t->parameters_json || seam_json_is_valid(t->parameters_json, 1),
             "tool parameters are a JSON object");
        need(t->timeout_ms >= 0, "tool timeout");
    }
    for (size_t i = 0; i < c->n_models; i++) {
        const seam_conf_model *m = &c->models[i];
        need(m->id != NULL, "model id");
        need(seam_conf_find_model(c, m->provider, m->provider, m->id) != NULL,
             "model findable");
    }
    for (size_t i = 0; i < c->n_warnings; i++)
        need(c->warnings[i] != NULL, "warning text");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0])
        setup();
    const uint8_t *nul = memchr(data, '\0', size);
    size_t main_len = nul ? (size_t)(nul - data) : size;
    write_file(main_path, data, main_len);
    if (nul)
        write_file(dropin_path, nul + 1, size - main_len - 1);
    else
        unlink(dropin_path);

    seam_conf *conf = NULL;
    seam_error err;
    seam_error_clear(&err);
    int rc = seam_conf_load(main_path, &conf, &err);
    if (rc == SEAM_OK) {
        need(conf != NULL, "a conf on success");
        check_conf(conf);
        seam_conf_free(conf);
    } else {
        need(conf == NULL, "no conf on failure");
        need(memchr(err.message, '\0', sizeof err.message) != NULL && err.message[0],
             "a failure has a message");
    }
    return 0;
}
