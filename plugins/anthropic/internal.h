/* internal.h — what the files of the anthropic plugin share, and nothing
 * else: the small JSON helpers, the model-family record, the effective
 * options of one call (settings), the provider instance, the encode plan, and
 * the functions one file calls in another. Private to the plugin: nothing
 * here is exported (the plugin is built with hidden visibility), and every
 * function that crosses files is named anthropic_* so that the fuzz
 * harnesses can link all the plugins into one program. The decoder's state
 * is decode.c's own. */
#ifndef SEAM_PLUGIN_ANTHROPIC_INTERNAL_H
#define SEAM_PLUGIN_ANTHROPIC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <seam/plugin.h>

#include <json-c/json.h>

#include "../common/codec_util.h"
#include "../common/provider_options.h"

/* The tool that carries a JSON answer where native structured output is not
 * used (encode.c asks for it, decode.c turns its input back into text). */
#define JSON_TOOL_NAME "json"

/* ==== small helpers (the shared ones are in ../common/codec_util.c) ======== */

static inline json_object *parse_json_str(const char *text)
{
    return text ? json_parse_strict(text, strlen(text)) : NULL;
}

/* Borrowed member `key` of object o when it has type t (json_type_null: any
 * non-null value). */
static inline json_object *member(json_object *o, const char *key, json_type t)
{
    json_object *v = jget(o, key);
    return t == json_type_null || jis(v, t) ? v : NULL;
}

static inline int str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static inline int nomem(seam_error *err)
{
    return seam_error_set(err, SEAM_ERROR_UNKNOWN, "anthropic: out of memory");
}

/* ==== model families (models.c) ============================================= */

/* How a family takes the `thinking` request field. */
typedef enum thinking_style {
    THINKING_NONE = 0,    /* no extended thinking */
    THINKING_BUDGET,      /* {enabled, budget_tokens} only; off unless asked for */
    THINKING_BUDGET_OR_ADAPTIVE, /* 4.6: both (budgets deprecated); off unless asked for */
    THINKING_ADAPTIVE,    /* 4.7, 4.8: {adaptive} only, a budget is a 400; off unless asked */
    THINKING_DEFAULT_ON,  /* adaptive runs when `thinking` is omitted; {disabled} accepted */
    THINKING_ALWAYS_ON    /* adaptive always runs; {disabled} and {enabled} are 400s */
} thinking_style;

typedef struct model_family {
    const char *prefix; /* matches the id itself or the id followed by a date/tag */
    int64_t context_window;
    int64_t max_output_tokens;
    unsigned reasoning : 1;
    unsigned vision : 1;
    unsigned pdf_input : 1;
    unsigned prompt_cache : 1;
    unsigned structured_output : 1; /* native output_config.format */
    unsigned thinking : 3;           /* thinking_style */
    /* The rules below are zero for the families that predate them, so an old
     * row written without them keeps its old behavior. */
    unsigned rejects_forced_tool : 1; /* tool_choice any/tool is a 400 */
    unsigned rejects_sampling : 1;    /* non-default temperature/top_p/top_k are 400s */
    unsigned off_at_high_or_below : 1; /* thinking goes off only at effort high or below */
    unsigned between_tools : 1;       /* the lowest setting is {between_tools}, not {disabled} */
} model_family;

/* What encode needs to know of a model: the flags the core sees, and the
 * request rules of its family (two of which the conf can override). */
typedef struct model_info {
    seam_capabilities caps;
    const model_family *family;
    unsigned forced_tool_choice : 1; /* tool_choice any/tool accepted */
    unsigned sampling : 1;           /* temperature/top_p/top_k accepted */
} model_info;

/* The capabilities of `model`: its family, then options.capabilities, then the
 * longest options.models prefix matching the model. -1 with `why` filled for
 * a bad override. */
int anthropic_model_capabilities(json_object *options, const char *model, model_info *mi,
                                 char *why, size_t whysize);
/* 1 for the effort levels above "high" (xhigh, max). */
int anthropic_effort_above_high(const char *effort);
/* The max_tokens sent when neither the request nor the options give one. */
int64_t anthropic_default_max_tokens(const seam_capabilities *c, const char *effort);

/* ==== options (options.c) ==================================================== */

enum { THINK_DEFAULT = 0, THINK_ENABLED, THINK_ADAPTIVE, THINK_DISABLED };
/* Where cache breakpoints go (settings.cache_auto): after the system prompt
 * and the last three user messages, or at the shared prefix's end and the
 * last two user messages (encode.c, place_breakpoints). */
enum { CACHE_NONE = 0, CACHE_SYSTEM_AND_3, CACHE_PREFIX_AND_2 };
enum { SO_DEFAULT = 0, SO_NATIVE, SO_TOOL };
enum { FORCED_PROMPT = 0, FORCED_REJECT };

/* The effective options of one call. Strings and JSON values are borrowed from
 * the option objects they came from (alive for the whole encode). */
typedef struct settings {
    const char *version;
    strbuf beta; /* comma-joined, owned */
    int bearer;
    int cache_auto;      /* a CACHE_* strategy; 0: none */
    const char *cache_ttl;
    int thinking_mode;
    int64_t thinking_budget;
    int64_t max_tokens;
    json_object *top_k, *top_p, *metadata, *service_tier;
    const char *effort;
    int disable_parallel_tool_use;
    int structured_mode; /* SO_DEFAULT, SO_NATIVE, SO_TOOL */
    int forced_tool;     /* FORCED_PROMPT, FORCED_REJECT */
    const char *thinking_display;
    int strict_tools;
} settings;

/* Applies one options object over s. -1 with `why` for a bad value,
 * SEAM_ERR_NOMEM on allocation failure. */
int anthropic_settings_apply(settings *s, json_object *o, char *why, size_t whysize);
/* popt_known_fn: 1 for the option keys above (and capabilities, models). */
int anthropic_option_known(const char *key, void *ud);

/* ==== the instance (plugin.c) ================================================ */

typedef struct anthropic {
    char *base_url;       /* no trailing slash */
    json_object *options; /* the conf's options; read-only after create */
    char *name;           /* the conf name: a request's options namespace, with "anthropic" */
    char *conf_extra;     /* the conf's extra_body (JSON text), NULL: none */
    char *conf_notes;     /* the conf's unknown keys, warned on each request; NULL: none */
} anthropic;

/* ==== encode (encode.c) ====================================================== */

/* Everything encode decides before writing the body; decode repeats the part
 * it needs (json_tool) from the same inputs. */
typedef struct plan {
    settings s;
    const char *model;
    json_object *req_options; /* the request's options this codec takes, owned */
    json_object *req_extra;   /* the request's extra_body for this provider, owned */
    strbuf notes;             /* what the request's options had that was dropped */
    model_info mi;
    seam_capabilities caps;  /* mi.caps */
    int json_native;   /* output_config.format */
    int json_tool;     /* the "json" tool carries the answer */
    int forced_tool;   /* tool_choice any/tool is sent */
    /* A forced tool the model does not accept, asked for in the system prompt
     * instead, with tool_choice auto: "" for any tool, else the tool's name. */
    const char *prompted_tool;
    int64_t thinking_budget; /* > 0: thinking enabled with this budget */
    int adaptive_thinking;   /* thinking {adaptive} */
    int thinking_off;        /* thinking {disabled} */
    int between_tools;       /* thinking {between_tools} */
    const char *effort;      /* output_config.effort, NULL: none sent */
    int64_t max_tokens;
    /* temperature, top_p and top_k may be sent: the model takes them
     * (mi.sampling) and the API version still has them. */
    int sampling;
} plan;

/* Fills p from the conf's options, the request's and the model's family; on
 * failure err is set and p holds nothing to free. */
int anthropic_make_plan(anthropic *a, const seam_request *req, plan *p, seam_error *err);
void anthropic_plan_free(plan *p);
int anthropic_encode(void *instance, const seam_request *req, int stream,
                     seam_http_request *out, seam_error *err);

/* ==== error classification (errors.c) ======================================== */

/* Fills kind, code and message from an Anthropic error object
 * {"type": "...", "message": "..."} (status 0: inside a stream). */
void anthropic_classify_error_object(json_object *eobj, int http_status, seam_error *err);
void anthropic_classify_error(void *instance, int http_status, const seam_http_headers *headers,
                              const char *body, size_t len, seam_error *err);

/* ==== decode (decode.c) ====================================================== */

void *anthropic_decoder_new(void *instance, const seam_request *req);
void anthropic_decoder_free(void *d);
int anthropic_decode_event(void *d, const seam_frame *frame, seam_emitter *out, seam_error *err);
int anthropic_decode_finish(void *d, seam_emitter *out, seam_error *err);
int anthropic_decode_response(void *instance, const seam_request *req, const char *body,
                              size_t len, seam_emitter *out, seam_error *err);

/* ==== the token count (count_tokens.c) ======================================= */

int anthropic_count_tokens_encode(void *instance, const seam_request *req,
                                  seam_http_request *out, seam_error *err);
int anthropic_count_tokens_decode(void *instance, const seam_request *req, const char *body,
                                  size_t len, int64_t *input_tokens, seam_error *err);

#endif /* SEAM_PLUGIN_ANTHROPIC_INTERNAL_H */
