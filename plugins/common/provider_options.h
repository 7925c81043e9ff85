/* provider_options.h — how a codec reads provider options: which members are
 * its own (namespaces), which of those it knows, the raw `extra_body` it
 * merges on purpose, and the notes about what it dropped. Plugin-private,
 * compiled into each plugin like codec_util.c.
 *
 * A request's provider options are one JSON object for every provider a call
 * may reach, so they are namespaced:
 *
 *   {"openai": {"seed": 7, "extra_body": {"x_vendor": 1}},
 *    "anthropic": {"top_k": 40},
 *    "my-deepseek": {"seed": 8},
 *    "cache_strategy": "prefix_and_2"}
 *
 * A codec's namespaces are its plugin id and the conf name of the provider
 * (the conf name wins over the plugin id, key by key). Members outside any
 * namespace are flat options (seam's own, like cache_strategy, or the form
 * before namespaces): a codec takes those it knows, skips objects it does not
 * know silently (another provider's namespace), and drops the rest with a
 * note. Inside its namespace a codec takes the keys it knows and drops every
 * other with a note: a key it does not know never reaches the wire. Raw body
 * fields go in the namespace's `extra_body` object, merged into the body last
 * (a null member removes the field). The conf's `options` group is the
 * provider's own namespace already. */
#ifndef SEAM_PLUGIN_PROVIDER_OPTIONS_H
#define SEAM_PLUGIN_PROVIDER_OPTIONS_H

#include <stddef.h>

#include <json-c/json.h>
#include <seam/plugin.h>

#include "codec_util.h"

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* 1 when the codec knows key (reads it, or sends it to the wire). */
typedef int (*popt_known_fn)(const char *key, void *ud);

/* What one codec takes from an options object. */
typedef struct popt_view {
    json_object *own;   /* the known keys, later namespaces over earlier; NULL: none */
    json_object *extra; /* extra_body members, the same order; NULL: none */
    strbuf notes;       /* one note a line ("\n"-separated): what was dropped */
} popt_view;

/* Fills v from opts (may be NULL: nothing). conf nonzero: opts is the conf's
 * options group, all of it this provider's (its extra_body member included).
 * Else opts is a request's: ns[0..n_ns) are the codec's namespaces, lowest
 * precedence first (NULL or repeated names are skipped). who names the codec
 * in notes ("openai"). Values are shared with opts (json_object_get): opts
 * must not be used from another thread meanwhile. SEAM_OK or SEAM_ERR_NOMEM
 * (v then holds nothing). */
int popt_select(json_object *opts, int conf, const char *const *ns, size_t n_ns,
                popt_known_fn known, void *ud, const char *who, popt_view *v);
void popt_view_free(popt_view *v);

/* Shallow-merges extra into body: each member replaces the body's, a null one
 * removes it. */
int popt_merge_extra(json_object *body, json_object *extra);

/* Hands every line of notes to hr as a warning (seam_http_request_warn). */
int popt_warn(seam_http_request *hr, const char *notes);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* SEAM_PLUGIN_PROVIDER_OPTIONS_H */
