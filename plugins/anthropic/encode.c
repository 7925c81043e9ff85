/* encode.c — the anthropic plugin's encode: a seam request -> the URL,
 * headers and JSON body of `POST {base_url}/messages`. anthropic_make_plan
 * first decides everything the options, the request and the model's family
 * imply (thinking, max_tokens, a forced tool, structured output); build_body
 * then writes it.
 *
 * Choices the API forces on us, each applied silently because the request is
 * still meaningful without the dropped part:
 *  - Extended thinking cannot be combined with a forced tool (tool_choice
 *    any/tool), a temperature or top_k: a forced tool or a JSON-by-tool answer
 *    is a hard requirement of the caller, a reasoning budget only a hint, so
 *    thinking is dropped then; with thinking on, temperature and top_k are not sent.
 *  - max_tokens counts thinking tokens: a max_tokens not above the budget gets
 *    the budget added, so the budget never eats the whole answer (on the
 *    adaptive families too, where the caller's budget is room to think).
 *  - A tool loop continued with thinking on must replay the turn's thinking
 *    block first; a turn without one (stripped on a failover) is continued
 *    with thinking off for that request, as the API's documentation advises.
 *  - Reasoning parts are replayed only when Anthropic can verify them: with a
 *    signature (thinking) or as redacted data; any other reasoning (another
 *    provider's) is dropped. Provider-executed tool calls and results (server
 *    tools) are not replayed: the API accepts a turn without them.
 *  - Structured output uses output_config.format (json_schema) where the model
 *    supports it and a schema is given; otherwise a tool named "json" whose
 *    input is the answer (forced, or asked for where forcing is rejected),
 *    decoded back into plain text.
 */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define ANTHROPIC_DEFAULT_VERSION "2023-06-01"
/* The first anthropic_version without temperature, top_p and top_k. */
#define SAMPLING_REMOVED_VERSION "2026-10-21"
/* The API refuses budgets below this. */
#define THINKING_MIN_BUDGET 1024
#define THINKING_DEFAULT_BUDGET 4096
/* The beta that lets thinking.display be "updates" (progress updates only). */
#define THINKING_UPDATES_BETA "thinking-display-updates-2026-08-18"

/* json-c adds take ownership of the value even on failure in 0.16; these wrap
 * them so a NULL value (allocation failure) is reported, not stored. */
static int obj_add(json_object *o, const char *key, json_object *v)
{
    if (!v)
        return SEAM_ERR_NOMEM;
    if (json_object_object_add(o, key, v) != 0) {
        json_object_put(v);
        return SEAM_ERR_NOMEM;
    }
    return SEAM_OK;
}

static int arr_add(json_object *a, json_object *v)
{
    if (!v)
        return SEAM_ERR_NOMEM;
    if (json_object_array_add(a, v) != 0) {
        json_object_put(v);
        return SEAM_ERR_NOMEM;
    }
    return SEAM_OK;
}

static int obj_add_str(json_object *o, const char *key, const char *s)
{
    return obj_add(o, key, json_object_new_string(s ? s : ""));
}

/* ==== encode ================================================================= */


void anthropic_plan_free(plan *p)
{
    sb_free(&p->s.beta);
    json_object_put(p->req_options);
    json_object_put(p->req_extra);
    sb_free(&p->notes);
    p->req_options = NULL;
    p->req_extra = NULL;
}

static int bad_request(seam_error *err, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int bad_request(seam_error *err, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return seam_error_set(err, SEAM_ERROR_BAD_REQUEST, "anthropic: %s", msg);
}

/* 1 for anthropic_version 2026-10-21 and later, which removed temperature,
 * top_p and top_k from the Messages API: its SDK types (Python 2.0.0,
 * TypeScript 1.0.0) have none of them, and the API answers each with a 400,
 * "Extra inputs are not permitted", whatever its value or model. The
 * versions are dates, so a later one compares greater; a value that is not a
 * date (a proxy's own) keeps the 2023-06-01 rules. */
static int version_drops_sampling(const char *version)
{
    if (!version || strlen(version) != 10)
        return 0;
    for (int i = 0; i < 10; i++)
        if ((i == 4 || i == 7) ? version[i] != '-' : !isdigit((unsigned char)version[i]))
            return 0;
    return strcmp(version, SAMPLING_REMOVED_VERSION) >= 0;
}

int anthropic_make_plan(anthropic *a, const seam_request *req, plan *p, seam_error *err)
{
    char why[200] = "";
    memset(p, 0, sizeof *p);
    p->model = seam_request_model(req) ? seam_request_model(req) : "";
    int rc = anthropic_settings_apply(&p->s, a->options, why, sizeof why);
    const char *ro = seam_request_provider_options(req);
    if (rc == 0 && ro && *ro) {
        /* The flat keys this plugin knows and its namespaces ("anthropic",
         * the conf name); the rest is noted, never sent. */
        json_object *all = parse_json_str(ro);
        popt_view view;
        const char *const ns[] = { "anthropic", a->name };
        if (!json_object_is_type(all, json_type_object)) {
            snprintf(why, sizeof why, "provider options must be a JSON object");
            rc = -1;
        } else if (popt_select(all, 0, ns, 2, anthropic_option_known, NULL, "anthropic plugin",
                               &view) != SEAM_OK) {
            rc = SEAM_ERR_NOMEM;
        } else {
            p->req_options = view.own;
            p->req_extra = view.extra;
            p->notes = view.notes;
            rc = anthropic_settings_apply(&p->s, p->req_options, why, sizeof why);
        }
        json_object_put(all);
    }
    if (rc == 0)
        rc = anthropic_model_capabilities(a->options, seam_request_model(req), &p->mi, why, sizeof why);
    p->caps = p->mi.caps;
    p->sampling = p->mi.sampling && !version_drops_sampling(p->s.version);
    if (rc != 0) {
        anthropic_plan_free(p);
        return rc == SEAM_ERR_NOMEM ? nomem(err) : bad_request(err, "%s", why);
    }

    const char *fmt_name = NULL, *schema = NULL;
    int strict = 0;
    if (seam_request_response_format(req, &fmt_name, &schema, &strict) == SEAM_FORMAT_JSON) {
        /* Native needs a real schema: "any JSON object" ({"type":"object"}, what
         * the core stores when the caller gives none) is not expressible in
         * constrained decoding, which wants every object's properties. */
        int native = p->s.structured_mode == SO_NATIVE ||
                     (p->s.structured_mode == SO_DEFAULT &&
                      p->mi.family->structured_output);
        json_object *sch = native ? parse_json_str(schema) : NULL;
        int has_properties = member(sch, "properties", json_type_object) != NULL;
        json_object_put(sch);
        if (native && has_properties)
            p->json_native = 1;
        else
            p->json_tool = 1;
    }
    const model_family *f = p->mi.family;
    const char *named = NULL;
    seam_tool_choice tc = seam_request_tool_choice(req, &named);
    int caller_forces = seam_request_tool_count(req) > 0 &&
                        (tc == SEAM_TOOL_CHOICE_REQUIRED || tc == SEAM_TOOL_CHOICE_NAMED);
    p->forced_tool = p->json_tool || caller_forces;
    if (p->forced_tool && !p->mi.forced_tool_choice) {
        /* The model answers tool_choice any/tool with a 400. Its migration
         * guide's replacement is tool_choice auto, with the prompt saying when
         * the tool applies; the codec does that, unless the caller would
         * rather fail (forced_tool = "reject"): a forced call may be a hard
         * requirement, and auto lets the model answer in text instead. */
        if (!p->json_tool && p->s.forced_tool == FORCED_REJECT) {
            rc = bad_request(err,
                             "model %s does not accept a forced tool choice (tool_choice any "
                             "or tool); send auto, or set option forced_tool = \"prompt\"",
                             p->model);
            anthropic_plan_free(p);
            return rc;
        }
        p->prompted_tool = p->json_tool ? JSON_TOOL_NAME
                           : tc == SEAM_TOOL_CHOICE_NAMED && named ? named : "";
        p->forced_tool = 0;
    }

    int64_t budget = seam_request_reasoning_budget(req);
    if (budget <= 0)
        budget = p->s.thinking_budget;
    const int64_t budget_hint = budget; /* the caller's idea of room to think */
    const int mode = p->s.thinking_mode;
    p->effort = p->s.effort;
    if (!p->caps.reasoning || f->thinking <= THINKING_BUDGET_OR_ADAPTIVE) {
        /* The families that take a budget (and nothing when thinking is off). */
        if (mode == THINK_ENABLED && budget <= 0)
            budget = THINKING_DEFAULT_BUDGET;
        if (mode == THINK_DISABLED || !p->caps.reasoning || p->forced_tool)
            budget = 0;
        if (mode == THINK_ADAPTIVE && p->caps.reasoning && !p->forced_tool) {
            p->adaptive_thinking = 1;
            budget = 0;
        }
        if (budget > 0 && budget < THINKING_MIN_BUDGET)
            budget = THINKING_MIN_BUDGET;
    } else {
        /* Opus 4.7 and later take no budget ("thinking.type.enabled" is not
         * supported): a budget or "enabled" asks for adaptive thinking, and
         * effort is what sets its depth. */
        int wants = budget > 0 || mode == THINK_ENABLED || mode == THINK_ADAPTIVE;
        budget = 0;
        if (f->thinking == THINKING_ADAPTIVE) {
            /* Off unless asked for: "disabled" is sending nothing. */
            p->adaptive_thinking = wants && mode != THINK_DISABLED && !p->forced_tool;
        } else if (mode == THINK_DISABLED) {
            if (f->thinking == THINKING_DEFAULT_ON)
                p->thinking_off = 1;
            else if (f->between_tools)
                p->between_tools = 1; /* Sonnet 5.5's lowest setting */
            else if (!p->effort)
                /* Always-on thinking (Opus 5.5, Fable): the guides' advice
                 * where thinking was disabled to save tokens is a lower
                 * effort; an effort the caller chose is kept. */
                p->effort = "low";
        } else if (!p->forced_tool) {
            /* On by default anyway: sent when asked for, or to carry display.
             * A forced tool call has no thinking (Haiku 5.5's guide), so none
             * is asked for then. */
            p->adaptive_thinking = wants || p->s.thinking_display != NULL;
        }
        if ((p->thinking_off || p->between_tools) && f->off_at_high_or_below &&
            anthropic_effort_above_high(p->effort)) {
            /* The message first: the effort is borrowed from the options. */
            rc = bad_request(err,
                             "model %s turns thinking off only at effort high or below, "
                             "and effort is %s",
                             p->model, p->effort);
            anthropic_plan_free(p);
            return rc;
        }
    }

    int64_t mt = seam_request_max_tokens(req);
    if (mt <= 0)
        mt = p->s.max_tokens;
    if (mt <= 0)
        mt = anthropic_default_max_tokens(&p->caps, p->effort);
    /* Saturating: a budget near INT64_MAX must not wrap max_tokens negative. */
    if (budget > 0 && mt <= budget) {
        mt = budget > INT64_MAX - mt ? INT64_MAX : mt + budget;
    } else if (budget_hint > 0 && f->thinking >= THINKING_ADAPTIVE && p->caps.reasoning &&
               (p->adaptive_thinking ||
                (f->thinking >= THINKING_DEFAULT_ON && !p->thinking_off && !p->between_tools &&
                 !p->forced_tool)) &&
               mt <= budget_hint) {
        /* max_tokens covers thinking too: a budget the caller gave is room
         * to think on top of the answer, as it is where budgets are sent. */
        mt = budget_hint > INT64_MAX - mt ? INT64_MAX : mt + budget_hint;
    }
    if (p->caps.max_output_tokens > 0 && mt > p->caps.max_output_tokens)
        mt = p->caps.max_output_tokens;
    if (budget > 0 && budget >= mt) {
        /* The model cannot fit the budget and an answer: give up on thinking
         * rather than send a request the API refuses. */
        budget = mt - 1 >= THINKING_MIN_BUDGET ? mt - 1 : 0;
    }
    p->thinking_budget = budget;
    p->max_tokens = mt;
    return SEAM_OK;
}

/* An ephemeral cache_control marker, with the configured TTL. */
static json_object *cache_control(const plan *p)
{
    json_object *cc = json_object_new_object();
    if (!cc)
        return NULL;
    if (obj_add_str(cc, "type", "ephemeral") != SEAM_OK ||
        (p->s.cache_ttl && obj_add_str(cc, "ttl", p->s.cache_ttl) != SEAM_OK)) {
        json_object_put(cc);
        return NULL;
    }
    return cc;
}

static json_object *text_block(const char *text)
{
    json_object *b = json_object_new_object();
    if (b && (obj_add_str(b, "type", "text") != SEAM_OK || obj_add_str(b, "text", text) != SEAM_OK)) {
        json_object_put(b);
        return NULL;
    }
    return b;
}

/* A media part -> an image or document block. */
static int media_block(const plan *p, const seam_part *part, json_object **out, seam_error *err)
{
    const char *mime = seam_part_mime_type(part);
    const char *data = seam_part_media_data(part);
    seam_media_source src = seam_part_media_source(part);
    const char *type;
    *out = NULL;
    if (!mime || !data)
        return bad_request(err, "a media part has no MIME type or data");
    if (!strncasecmp(mime, "image/", 6)) {
        if (!p->caps.vision)
            return bad_request(err, "model %s does not accept image input (capability vision)",
                               p->model);
        type = "image";
    } else if (!strcasecmp(mime, "application/pdf")) {
        if (!p->caps.pdf_input)
            return bad_request(err, "model %s does not accept PDF input (capability pdf_input)",
                               p->model);
        type = "document";
    } else {
        return bad_request(err, "media type %s is not supported (images and PDF only)", mime);
    }
    json_object *b = json_object_new_object(), *s = json_object_new_object();
    int rc = (b && s) ? SEAM_OK : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK && src == SEAM_MEDIA_URL) {
        rc = obj_add_str(s, "type", "url");
        if (rc == SEAM_OK)
            rc = obj_add_str(s, "url", data);
    } else if (rc == SEAM_OK) {
        rc = obj_add_str(s, "type", "base64");
        if (rc == SEAM_OK)
            rc = obj_add_str(s, "media_type", mime);
        if (rc == SEAM_OK)
            rc = obj_add_str(s, "data", data);
    }
    if (rc == SEAM_OK)
        rc = obj_add_str(b, "type", type);
    if (rc == SEAM_OK) {
        rc = obj_add(b, "source", s);
        s = NULL;
    }
    json_object_put(s);
    if (rc != SEAM_OK) {
        json_object_put(b);
        return nomem(err);
    }
    *out = b;
    return SEAM_OK;
}

/* A tool result's content: a JSON string travels as its text, any other JSON
 * value as its JSON text. */
static json_object *tool_result_block(const seam_part *part)
{
    const char *rj = seam_part_result_json(part);
    json_object *val = parse_json_str(rj);
    const char *content = rj ? rj : "";
    if (val && json_object_is_type(val, json_type_string))
        content = json_object_get_string(val);
    json_object *b = json_object_new_object();
    int rc = b ? SEAM_OK : SEAM_ERR_NOMEM;
    if (rc == SEAM_OK)
        rc = obj_add_str(b, "type", "tool_result");
    if (rc == SEAM_OK)
        rc = obj_add_str(b, "tool_use_id", seam_part_tool_call_id(part));
    if (rc == SEAM_OK)
        rc = obj_add_str(b, "content", content);
    if (rc == SEAM_OK && seam_part_is_error(part))
        rc = obj_add(b, "is_error", json_object_new_boolean(1));
    json_object_put(val);
    if (rc != SEAM_OK) {
        json_object_put(b);
        return NULL;
    }
    return b;
}

/* One part -> zero or one block appended to `blocks`. */
static int part_block(const plan *p, int assistant, const seam_part *part, json_object *blocks,
                      seam_error *err)
{
    json_object *b = NULL;
    int rc = SEAM_OK;
    switch (seam_part_get_type(part)) {
    case SEAM_PART_TEXT: {
        const char *t = seam_part_text(part);
        if (!t || !*t)
            return SEAM_OK; /* the API refuses empty text blocks */
        b = text_block(t);
        break;
    }
    case SEAM_PART_REASONING: {
        const char *t = seam_part_text(part);
        const char *sig = seam_part_signature(part);
        if (!assistant)
            return SEAM_OK;
        if (seam_part_redacted(part)) {
            if (!t || !*t)
                return SEAM_OK;
            b = json_object_new_object();
            if (b && (obj_add_str(b, "type", "redacted_thinking") != SEAM_OK ||
                      obj_add_str(b, "data", t) != SEAM_OK)) {
                json_object_put(b);
                b = NULL;
            }
        } else if (sig && *sig) {
            b = json_object_new_object();
            if (b && (obj_add_str(b, "type", "thinking") != SEAM_OK ||
                      obj_add_str(b, "thinking", t ? t : "") != SEAM_OK ||
                      obj_add_str(b, "signature", sig) != SEAM_OK)) {
                json_object_put(b);
                b = NULL;
            }
        } else {
            return SEAM_OK; /* unsigned reasoning cannot be verified: not replayed */
        }
        break;
    }
    case SEAM_PART_TOOL_CALL: {
        if (seam_part_provider_executed(part))
            return SEAM_OK;
        const char *args = seam_part_args_json(part);
        json_object *input = (args && *args) ? parse_json_str(args) : json_object_new_object();
        if (!input || !json_object_is_type(input, json_type_object)) {
            json_object_put(input);
            return bad_request(err, "arguments of tool call %s are not a JSON object",
                               seam_part_tool_call_id(part) ? seam_part_tool_call_id(part) : "?");
        }
        b = json_object_new_object();
        if (!b || obj_add_str(b, "type", "tool_use") != SEAM_OK ||
            obj_add_str(b, "id", seam_part_tool_call_id(part)) != SEAM_OK ||
            obj_add_str(b, "name", seam_part_tool_name(part)) != SEAM_OK) {
            json_object_put(input);
            json_object_put(b);
            return nomem(err);
        }
        if (obj_add(b, "input", input) != SEAM_OK) {
            json_object_put(b);
            return nomem(err);
        }
        break;
    }
    case SEAM_PART_TOOL_RESULT:
        if (seam_part_provider_executed(part))
            return SEAM_OK;
        b = tool_result_block(part);
        break;
    case SEAM_PART_MEDIA:
        rc = media_block(p, part, &b, err);
        if (rc != SEAM_OK)
            return rc;
        break;
    default:
        return SEAM_OK;
    }
    if (!b || arr_add(blocks, b) != SEAM_OK)
        return nomem(err);
    return SEAM_OK;
}

/* In a user message, tool_result blocks must come before anything else. */
static int tool_results_first(json_object *content)
{
    size_t n = json_object_array_length(content);
    json_object *sorted = json_object_new_array();
    if (!sorted)
        return SEAM_ERR_NOMEM;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            json_object *b = json_object_array_get_idx(content, i);
            int is_result = str_eq(jstr(b, "type"), "tool_result");
            if (is_result == (pass == 0) && arr_add(sorted, json_object_get(b)) != SEAM_OK) {
                json_object_put(sorted);
                return SEAM_ERR_NOMEM;
            }
        }
    }
    /* Swap the sorted elements in place of the old ones. */
    for (size_t i = 0; i < n; i++)
        json_object_array_put_idx(content, i, json_object_get(json_object_array_get_idx(sorted, i)));
    json_object_put(sorted);
    return SEAM_OK;
}

/* The messages array: roles mapped (tool -> user), consecutive same-role
 * messages merged, empty ones dropped. */
static int build_messages(const plan *p, const seam_request *req, json_object *messages,
                          seam_error *err)
{
    json_object *last = NULL;
    int last_assistant = -1;
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        const seam_message *m = seam_request_message(req, i);
        int assistant = seam_message_role(m) == SEAM_ROLE_ASSISTANT;
        json_object *blocks = json_object_new_array();
        if (!blocks)
            return nomem(err);
        for (size_t j = 0; j < seam_message_part_count(m); j++) {
            int rc = part_block(p, assistant, seam_message_part(m, j), blocks, err);
            if (rc != SEAM_OK) {
                json_object_put(blocks);
                return rc;
            }
        }
        size_t nb = json_object_array_length(blocks);
        if (nb == 0) {
            json_object_put(blocks);
            continue;
        }
        if (last && last_assistant == assistant) {
            json_object *content = member(last, "content", json_type_array);
            for (size_t k = 0; k < nb; k++) {
                if (arr_add(content, json_object_get(json_object_array_get_idx(blocks, k))) !=
                    SEAM_OK) {
                    json_object_put(blocks);
                    return nomem(err);
                }
            }
            json_object_put(blocks);
            continue;
        }
        json_object *msg = json_object_new_object();
        if (!msg || obj_add_str(msg, "role", assistant ? "assistant" : "user") != SEAM_OK) {
            json_object_put(msg);
            json_object_put(blocks);
            return nomem(err);
        }
        /* obj_add and arr_add release what they could not store. */
        if (obj_add(msg, "content", blocks) != SEAM_OK) {
            json_object_put(msg);
            return nomem(err);
        }
        if (arr_add(messages, msg) != SEAM_OK)
            return nomem(err);
        last = msg;
        last_assistant = assistant;
    }
    for (size_t i = 0; i < json_object_array_length(messages); i++) {
        json_object *msg = json_object_array_get_idx(messages, i);
        if (str_eq(jstr(msg, "role"), "user") &&
            tool_results_first(member(msg, "content", json_type_array)) != SEAM_OK)
            return nomem(err);
    }
    if (json_object_array_length(messages) == 0)
        return bad_request(err, "the request has no message to send");
    return SEAM_OK;
}

/* Puts a breakpoint on the last block of msg that may carry one (thinking
 * blocks may not); 0 when msg has none, 1 placed, SEAM_ERR_NOMEM. */
static int mark_message(const plan *p, json_object *msg)
{
    json_object *content = member(msg, "content", json_type_array);
    for (size_t n = content ? json_object_array_length(content) : 0; n-- > 0;) {
        json_object *block = json_object_array_get_idx(content, n);
        const char *type = jstr(block, "type");
        if (str_eq(type, "thinking") || str_eq(type, "redacted_thinking"))
            continue;
        return obj_add(block, "cache_control", cache_control(p)) == SEAM_OK ? 1 : SEAM_ERR_NOMEM;
    }
    return 0;
}

/* The cache breakpoints of the strategy (four at most, the API's limit):
 *  system_and_3  the system prompt, and the last block of each of the last
 *                three user messages;
 *  prefix_and_2  the end of the shared prefix, that is the last message
 *                before the last two user messages (the system prompt when
 *                nothing comes before them, the last tool when there is no
 *                system prompt either), and the last block of each of the
 *                last two user messages.
 * A user message is a turn (tool results travel in user messages too). */
static int place_breakpoints(const plan *p, json_object *body)
{
    json_object *messages = member(body, "messages", json_type_array);
    size_t n = messages ? json_object_array_length(messages) : 0;
    int want = p->s.cache_auto == CACHE_PREFIX_AND_2 ? 2 : 3;
    int placed = 0;
    size_t earliest = n; /* the earliest user message marked */
    for (size_t i = n; i-- > 0 && placed < want;) {
        json_object *msg = json_object_array_get_idx(messages, i);
        if (!str_eq(jstr(msg, "role"), "user"))
            continue;
        int rc = mark_message(p, msg);
        if (rc < 0)
            return rc;
        placed += rc;
        earliest = i;
    }
    json_object *system = member(body, "system", json_type_array);
    json_object *sysblock = system ? json_object_array_get_idx(system, 0) : NULL;
    if (p->s.cache_auto == CACHE_SYSTEM_AND_3) {
        if (sysblock && obj_add(sysblock, "cache_control", cache_control(p)) != SEAM_OK)
            return SEAM_ERR_NOMEM;
        return SEAM_OK;
    }
    for (size_t i = earliest < n ? earliest : n; i-- > 0;) {
        int rc = mark_message(p, json_object_array_get_idx(messages, i));
        if (rc != 0)
            return rc < 0 ? rc : SEAM_OK;
    }
    if (sysblock)
        return obj_add(sysblock, "cache_control", cache_control(p)) == SEAM_OK ? SEAM_OK
                                                                               : SEAM_ERR_NOMEM;
    json_object *tools = member(body, "tools", json_type_array);
    size_t nt = tools ? json_object_array_length(tools) : 0;
    if (nt && obj_add(json_object_array_get_idx(tools, nt - 1), "cache_control", cache_control(p)) !=
                  SEAM_OK)
        return SEAM_ERR_NOMEM;
    return SEAM_OK;
}

static int build_tools(const plan *p, const seam_request *req, json_object *body, seam_error *err)
{
    size_t n = seam_request_tool_count(req);
    const char *fmt_name = NULL, *schema = NULL;
    int strict = 0;
    if (p->json_tool)
        seam_request_response_format(req, &fmt_name, &schema, &strict);
    if (n == 0 && !p->json_tool)
        return SEAM_OK;
    json_object *tools = json_object_new_array();
    if (!tools || obj_add(body, "tools", tools) != SEAM_OK)
        return nomem(err);
    for (size_t i = 0; i <= n; i++) {
        const char *name, *desc, *params;
        if (i < n) {
            name = seam_request_tool_name(req, i);
            desc = seam_request_tool_description(req, i);
            params = seam_request_tool_parameters(req, i);
        } else if (p->json_tool) {
            name = JSON_TOOL_NAME;
            desc = "Respond with a JSON object: the input of this tool is the answer.";
            params = schema;
        } else {
            break;
        }
        json_object *input_schema = params && *params ? parse_json_str(params)
                                                      : parse_json_str("{\"type\":\"object\"}");
        if (!input_schema || !json_object_is_type(input_schema, json_type_object)) {
            json_object_put(input_schema);
            return bad_request(err, "the schema of tool %s is not a JSON object",
                               name ? name : "?");
        }
        json_object *t = json_object_new_object();
        if (!t || obj_add_str(t, "name", name) != SEAM_OK ||
            (desc && *desc && obj_add_str(t, "description", desc) != SEAM_OK)) {
            json_object_put(t);
            json_object_put(input_schema);
            return nomem(err);
        }
        if (obj_add(t, "input_schema", input_schema) != SEAM_OK) {
            json_object_put(t);
            return nomem(err);
        }
        /* strict_tools: the caller vouches that its schemas fit strict tool
         * use (additionalProperties false on every object); not the "json"
         * tool, whose schema is "any object". */
        if (i < n && p->s.strict_tools && p->mi.family->structured_output &&
            obj_add(t, "strict", json_object_new_boolean(1)) != SEAM_OK) {
            json_object_put(t);
            return nomem(err);
        }
        if (arr_add(tools, t) != SEAM_OK)
            return nomem(err);
    }

    const char *named = NULL;
    seam_tool_choice tc = seam_request_tool_choice(req, &named);
    const char *type = "auto";
    if (p->prompted_tool) {
        /* A forced choice the model rejects: auto, sent explicitly as the
         * migration guides show it, and the system prompt asks for the tool. */
        type = "auto";
    } else if (p->json_tool) {
        type = "tool";
        named = JSON_TOOL_NAME;
    } else if (tc == SEAM_TOOL_CHOICE_NONE) {
        type = "none";
    } else if (tc == SEAM_TOOL_CHOICE_REQUIRED) {
        type = "any";
    } else if (tc == SEAM_TOOL_CHOICE_NAMED) {
        type = "tool";
    }
    if (!strcmp(type, "auto") && !p->s.disable_parallel_tool_use && !p->prompted_tool)
        return SEAM_OK; /* auto is the API's default */
    json_object *choice = json_object_new_object();
    if (!choice || obj_add_str(choice, "type", type) != SEAM_OK ||
        (!strcmp(type, "tool") && obj_add_str(choice, "name", named) != SEAM_OK) ||
        (p->s.disable_parallel_tool_use && strcmp(type, "none") &&
         obj_add(choice, "disable_parallel_tool_use", json_object_new_boolean(1)) != SEAM_OK)) {
        json_object_put(choice);
        return nomem(err);
    }
    if (obj_add(body, "tool_choice", choice) != SEAM_OK)
        return nomem(err);
    return SEAM_OK;
}

/* With thinking on, the API wants the assistant turn that a tool loop
 * continues (the last assistant message, answered by tool results) to begin
 * with a thinking block. A turn without one (its reasoning stripped on a
 * failover, or written by another provider) can only be continued with
 * thinking off for this request, as the API's documentation advises. */
static int tool_turn_lacks_thinking(json_object *messages)
{
    size_t n = json_object_array_length(messages);
    if (n < 2)
        return 0;
    json_object *last = json_object_array_get_idx(messages, n - 1);
    json_object *prev = json_object_array_get_idx(messages, n - 2);
    if (!str_eq(jstr(last, "role"), "user") || !str_eq(jstr(prev, "role"), "assistant"))
        return 0;
    /* tool results come first in a user message (tool_results_first) */
    json_object *answer = json_object_array_get_idx(member(last, "content", json_type_array), 0);
    if (!str_eq(jstr(answer, "type"), "tool_result"))
        return 0;
    const char *first = jstr(
        json_object_array_get_idx(member(prev, "content", json_type_array), 0), "type");
    return !str_eq(first, "thinking") && !str_eq(first, "redacted_thinking");
}

/* Copies a borrowed option value into the body (deep: the options object is
 * shared across threads, and serializing it would cache text inside it). */
static int add_copy(json_object *body, const char *key, json_object *v)
{
    json_object *copy = NULL;
    if (json_object_deep_copy(v, &copy, NULL) != 0)
        return SEAM_ERR_NOMEM;
    return obj_add(body, key, copy);
}

/* thinking.display goes with adaptive thinking on the families that have the
 * setting (Opus 4.7 and later; their default is "omitted"). */
static int sends_display(const plan *p, int thinking)
{
    return thinking && p->adaptive_thinking && p->s.thinking_display &&
           p->mi.family->thinking >= THINKING_ADAPTIVE;
}

/* Betas that the families from Opus 4.7 on have made the default, or never
 * needed (the migration guides say to remove them): adaptive thinking
 * interleaves on its own, 1M tokens is the window, effort and the 128K output
 * need no header, token-efficient tool use is built in. A conf shared with
 * older models keeps sending them there. */
static int beta_obsolete_for(const model_family *f, const char *name, size_t n)
{
    static const char *const prefixes[] = { "interleaved-thinking-", "context-1m-", "effort-",
                                            "output-128k-", "token-efficient-tools-" };
    if (f->thinking < THINKING_ADAPTIVE)
        return 0;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t m = strlen(prefixes[i]);
        if (n >= m && strncmp(name, prefixes[i], m) == 0)
            return 1;
    }
    return 0;
}

/* The anthropic-beta header: the options' betas less the obsolete ones, plus
 * the one that thinking.display "updates" needs. Empty: no header. */
static int beta_header(const plan *p, int display_updates, strbuf *out)
{
    const char *q = p->s.beta.data;
    while (q && *q) {
        const char *e = strchr(q, ',');
        size_t n = e ? (size_t)(e - q) : strlen(q);
        if (!beta_obsolete_for(p->mi.family, q, n) &&
            ((out->len && sb_append(out, ",", 1) != SEAM_OK) || sb_append(out, q, n) != SEAM_OK))
            return SEAM_ERR_NOMEM;
        q = e ? e + 1 : q + n;
    }
    if (display_updates && !(p->s.beta.data && strstr(p->s.beta.data, THINKING_UPDATES_BETA)) &&
        ((out->len && sb_append(out, ",", 1) != SEAM_OK) ||
         sb_puts(out, THINKING_UPDATES_BETA) != SEAM_OK))
        return SEAM_ERR_NOMEM;
    return SEAM_OK;
}

/* The sentence that asks for a tool the model cannot be forced to call
 * (tool_choice auto): the guides' "say in the prompt when to use it". */
static void tool_instruction(const char *tool, char *out, size_t size)
{
    if (!*tool)
        snprintf(out, size, "Answer by calling one of the provided tools.");
    else if (!strcmp(tool, JSON_TOOL_NAME))
        snprintf(out, size, "Answer by calling the %s tool: its input is your answer.", tool);
    else
        snprintf(out, size, "Answer by calling the %s tool.", tool);
}

/* *display_updates is set when the body asks for thinking.display "updates",
 * which needs its beta header. */
static int build_body(const plan *p, const seam_request *req, int stream, json_object *body,
                      int *display_updates, seam_error *err)
{
    const char *model = seam_request_model(req);
    if (!model || !*model)
        return bad_request(err, "the request names no model");
    if (obj_add_str(body, "model", model) != SEAM_OK ||
        obj_add(body, "max_tokens", json_object_new_int64(p->max_tokens)) != SEAM_OK)
        return nomem(err);

    int cache = p->s.cache_auto && p->caps.prompt_cache;
    const char *system = seam_request_system(req);
    char ask[160] = "";
    if (p->prompted_tool)
        tool_instruction(p->prompted_tool, ask, sizeof ask);
    if (system && *system && cache) {
        /* A breakpoint needs a block to sit on: the system prompt becomes one.
         * The tool instruction goes after it, so that it does not change the
         * cached prefix from one request to the next. */
        json_object *sys = json_object_new_array();
        if (!sys || obj_add(body, "system", sys) != SEAM_OK)
            return nomem(err);
        json_object *b = text_block(system);
        if (!b)
            return nomem(err);
        /* place_breakpoints decides whether this block gets one. */
        if (arr_add(sys, b) != SEAM_OK || (*ask && arr_add(sys, text_block(ask)) != SEAM_OK))
            return nomem(err);
    } else if ((system && *system) || *ask) {
        strbuf text = { 0 };
        int rc = sb_puts(&text, system);
        if (rc == SEAM_OK && system && *system && *ask)
            rc = sb_puts(&text, "\n\n");
        if (rc == SEAM_OK)
            rc = sb_puts(&text, ask);
        if (rc == SEAM_OK)
            rc = obj_add_str(body, "system", text.data);
        sb_free(&text);
        if (rc != SEAM_OK)
            return nomem(err);
    }

    json_object *messages = json_object_new_array();
    if (!messages || obj_add(body, "messages", messages) != SEAM_OK)
        return nomem(err);
    int rc = build_messages(p, req, messages, err);
    if (rc != SEAM_OK)
        return rc;
    rc = build_tools(p, req, body, err);
    if (rc != SEAM_OK)
        return rc;
    if (cache && place_breakpoints(p, body) != SEAM_OK)
        return nomem(err);

    int thinking = (p->thinking_budget > 0 || p->adaptive_thinking) &&
                   !tool_turn_lacks_thinking(messages);
    const char *thinking_type = thinking ? (p->adaptive_thinking ? "adaptive" : "enabled")
                                : p->thinking_off  ? "disabled"
                                : p->between_tools ? "between_tools" /* takes no other field */
                                                   : NULL;
    if (thinking_type) {
        json_object *t = json_object_new_object();
        if (!t || obj_add_str(t, "type", thinking_type) != SEAM_OK ||
            (p->thinking_budget > 0 && thinking &&
             obj_add(t, "budget_tokens", json_object_new_int64(p->thinking_budget)) != SEAM_OK) ||
            (sends_display(p, thinking) &&
             obj_add_str(t, "display", p->s.thinking_display) != SEAM_OK)) {
            json_object_put(t);
            return nomem(err);
        }
        *display_updates = sends_display(p, thinking) && !strcmp(p->s.thinking_display, "updates");
        if (obj_add(body, "thinking", t) != SEAM_OK)
            return nomem(err);
    }

    /* Sampling parameters: never to a family that rejects non-default values
     * (Opus 4.7 and later) nor at an API version without them (2026-10-21
     * on); with thinking on, temperature and top_k are not allowed either
     * (top_p is). All are hints, so they are dropped rather than fail the
     * request. */
    double temperature;
    if (!thinking && p->sampling && seam_request_temperature(req, &temperature)) {
        /* %.15g keeps 0.7 as 0.7 (json-c would print 0.69999999999999996). */
        char num[32];
        if (temperature != temperature || temperature < 0 || temperature > 1e6)
            return bad_request(err, "temperature is not a usable number");
        snprintf(num, sizeof num, "%.15g", temperature);
        if (obj_add(body, "temperature", json_object_new_double_s(temperature, num)) != SEAM_OK)
            return nomem(err);
    }

    size_t nstop = seam_request_stop_count(req);
    if (nstop) {
        json_object *stops = json_object_new_array();
        if (!stops || obj_add(body, "stop_sequences", stops) != SEAM_OK)
            return nomem(err);
        for (size_t i = 0; i < nstop; i++)
            if (arr_add(stops, json_object_new_string(seam_request_stop(req, i))) != SEAM_OK)
                return nomem(err);
    }

    if (p->json_native || p->effort) {
        json_object *oc = json_object_new_object();
        if (!oc || obj_add(body, "output_config", oc) != SEAM_OK)
            return nomem(err);
        if (p->json_native) {
            const char *fmt_name = NULL, *schema = NULL;
            int strict = 0;
            seam_request_response_format(req, &fmt_name, &schema, &strict);
            json_object *sch = parse_json_str(schema);
            if (!sch || !json_object_is_type(sch, json_type_object)) {
                json_object_put(sch);
                return bad_request(err, "the response schema is not a JSON object");
            }
            json_object *fmt = json_object_new_object();
            if (!fmt || obj_add_str(fmt, "type", "json_schema") != SEAM_OK) {
                json_object_put(fmt);
                json_object_put(sch);
                return nomem(err);
            }
            if (obj_add(fmt, "schema", sch) != SEAM_OK || obj_add(oc, "format", fmt) != SEAM_OK)
                return nomem(err);
        }
        if (p->effort && obj_add_str(oc, "effort", p->effort) != SEAM_OK)
            return nomem(err);
    }

    if ((!thinking && p->sampling && p->s.top_k &&
         add_copy(body, "top_k", p->s.top_k) != SEAM_OK) ||
        (p->sampling && p->s.top_p && add_copy(body, "top_p", p->s.top_p) != SEAM_OK) ||
        (p->s.metadata && add_copy(body, "metadata", p->s.metadata) != SEAM_OK) ||
        (p->s.service_tier && add_copy(body, "service_tier", p->s.service_tier) != SEAM_OK))
        return nomem(err);

    if (stream && obj_add(body, "stream", json_object_new_boolean(1)) != SEAM_OK)
        return nomem(err);
    return SEAM_OK;
}

int anthropic_encode(void *instance, const seam_request *req, int stream,
                            seam_http_request *out, seam_error *err)
{
    anthropic *a = instance;
    plan p;
    int rc = anthropic_make_plan(a, req, &p, err);
    if (rc != SEAM_OK)
        return rc;

    json_object *body = json_object_new_object();
    int display_updates = 0;
    rc = body ? build_body(&p, req, stream, body, &display_updates, err) : nomem(err);
    /* extra_body, the conf's then the request's: raw fields sent on purpose. */
    json_object *conf_extra = rc == SEAM_OK && a->conf_extra ? parse_json_str(a->conf_extra) : NULL;
    if (rc == SEAM_OK && (popt_merge_extra(body, conf_extra) != SEAM_OK ||
                          popt_merge_extra(body, p.req_extra) != SEAM_OK ||
                          popt_warn(out, a->conf_notes) != SEAM_OK ||
                          popt_warn(out, p.notes.data) != SEAM_OK))
        rc = nomem(err);
    json_object_put(conf_extra);
    strbuf betas = { 0 };
    if (rc == SEAM_OK && beta_header(&p, display_updates, &betas) != SEAM_OK)
        rc = nomem(err);

    char *url = NULL;
    if (rc == SEAM_OK) {
        size_t n = strlen(a->base_url) + sizeof "/messages";
        url = malloc(n);
        if (!url)
            rc = nomem(err);
        else
            snprintf(url, n, "%s/messages", a->base_url);
    }
    if (rc == SEAM_OK) {
        const char *text = json_text(body);
        int hr = seam_http_request_set_url(out, url);
        if (hr == SEAM_OK)
            hr = seam_http_request_set_method(out, SEAM_HTTP_POST);
        if (hr == SEAM_OK)
            hr = seam_http_request_add_header(out, "content-type", "application/json");
        if (hr == SEAM_OK)
            hr = p.s.bearer ? seam_http_request_add_secret_header(out, "authorization", "Bearer ")
                            : seam_http_request_add_secret_header(out, "x-api-key", NULL);
        if (hr == SEAM_OK)
            hr = seam_http_request_add_header(out, "anthropic-version",
                                              p.s.version ? p.s.version : ANTHROPIC_DEFAULT_VERSION);
        if (hr == SEAM_OK && betas.len)
            hr = seam_http_request_add_header(out, "anthropic-beta", betas.data);
        if (hr == SEAM_OK && stream)
            hr = seam_http_request_add_header(out, "accept", "text/event-stream");
        if (hr == SEAM_OK) /* json_text is NULL when json-c cannot print the body */
            hr = text ? seam_http_request_set_body(out, text, strlen(text)) : SEAM_ERR_NOMEM;
        if (hr == SEAM_OK && stream)
            hr = seam_http_request_set_framing(out, SEAM_FRAMING_SSE);
        if (hr != SEAM_OK)
            rc = nomem(err);
    }
    free(url);
    sb_free(&betas);
    json_object_put(body);
    anthropic_plan_free(&p);
    return rc;
}

