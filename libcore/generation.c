/* generation.c — the record of a tool loop run (seam_generation) and of each
 * of its steps (seam_step): each turn's result, the tool calls the client ran
 * and their results, the messages the run added, the usage summed. The engine
 * (loop.c) fills it through generation.h; the caller reads it here. */
#include "config.h"
#include "generation.h"

#include <stdlib.h>

static void step_free(seam_step *s)
{
    if (!s)
        return;
    seam_result_free(s->result);
    free(s->calls);
    seam_message_free(s->tool_results);
    free(s);
}

void seam_generation_free(seam_generation *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n_steps; i++)
        step_free(g->steps[i]);
    free(g->steps);
    for (size_t i = 0; i < g->n_added; i++)
        seam_message_free(g->added[i]);
    free(g->added);
    free(g);
}

seam_generation *seam_generation_new(void)
{
    seam_generation *g = calloc(1, sizeof *g);
    if (g)
        seam_error_clear(&g->error);
    return g;
}

/* Takes res. The step's calls are the result's tool calls the client must run. */
int seam_generation_add_step(seam_generation *g, seam_result *res, seam_step **out)
{
    seam_step *s = calloc(1, sizeof *s);
    if (!s) {
        seam_result_free(res);
        return SEAM_ERR_NOMEM;
    }
    s->result = res;
    const seam_message *m = seam_result_message(res);
    size_t parts = seam_message_part_count(m);
    s->calls = calloc(parts ? parts : 1, sizeof *s->calls);
    if (!s->calls) {
        step_free(s);
        return SEAM_ERR_NOMEM;
    }
    for (size_t i = 0; i < parts; i++) {
        const seam_part *p = seam_message_part(m, i);
        if (seam_part_get_type(p) == SEAM_PART_TOOL_CALL && !seam_part_provider_executed(p))
            s->calls[s->n_calls++] = p;
    }
    s->usage = *seam_result_usage(res);
    if (g->n_steps == g->cap_steps) {
        size_t cap = g->cap_steps ? g->cap_steps * 2 : 4;
        seam_step **v = realloc(g->steps, cap * sizeof *v);
        if (!v) {
            step_free(s);
            return SEAM_ERR_NOMEM;
        }
        g->steps = v;
        g->cap_steps = cap;
    }
    g->steps[g->n_steps++] = s;
    seam_usage_add(&g->usage, &s->usage);
    *out = s;
    return SEAM_OK;
}

/* Records a copy of msg among the messages the run added. */
int seam_generation_add_message(seam_generation *g, const seam_message *msg)
{
    if (g->n_added == g->cap_added) {
        size_t cap = g->cap_added ? g->cap_added * 2 : 8;
        seam_message **v = realloc(g->added, cap * sizeof *v);
        if (!v)
            return SEAM_ERR_NOMEM;
        g->added = v;
        g->cap_added = cap;
    }
    seam_message *copy = seam_message_dup(msg);
    if (!copy)
        return SEAM_ERR_NOMEM;
    g->added[g->n_added++] = copy;
    return SEAM_OK;
}

const seam_result *seam_generation_response(const seam_generation *g)
{
    return g && g->n_steps ? g->steps[g->n_steps - 1]->result : NULL;
}

const char *seam_generation_text(const seam_generation *g)
{
    const seam_result *r = seam_generation_response(g);
    return r ? seam_result_text(r) : "";
}

const seam_usage *seam_generation_usage(const seam_generation *g)
{
    static const seam_usage none;
    return g ? &g->usage : &none;
}

size_t seam_generation_tool_call_count(const seam_generation *g)
{
    return g && g->pending && g->n_steps ? g->steps[g->n_steps - 1]->n_calls : 0;
}

const seam_part *seam_generation_tool_call(const seam_generation *g, size_t i)
{
    return i < seam_generation_tool_call_count(g) ? g->steps[g->n_steps - 1]->calls[i] : NULL;
}

size_t seam_generation_step_count(const seam_generation *g)
{
    return g ? g->n_steps : 0;
}

const seam_step *seam_generation_step(const seam_generation *g, size_t i)
{
    return g && i < g->n_steps ? g->steps[i] : NULL;
}

size_t seam_generation_message_count(const seam_generation *g)
{
    return g ? g->n_added : 0;
}

const seam_message *seam_generation_message(const seam_generation *g, size_t i)
{
    return g && i < g->n_added ? g->added[i] : NULL;
}

const seam_error *seam_generation_error(const seam_generation *g)
{
    return g && g->has_error ? &g->error : NULL;
}

const seam_result *seam_step_result(const seam_step *s)
{
    return s ? s->result : NULL;
}

size_t seam_step_tool_call_count(const seam_step *s)
{
    return s ? s->n_calls : 0;
}

const seam_part *seam_step_tool_call(const seam_step *s, size_t i)
{
    return s && i < s->n_calls ? s->calls[i] : NULL;
}

size_t seam_step_tool_result_count(const seam_step *s)
{
    return s && s->tool_results ? seam_message_part_count(s->tool_results) : 0;
}

const seam_part *seam_step_tool_result(const seam_step *s, size_t i)
{
    return s && s->tool_results ? seam_message_part(s->tool_results, i) : NULL;
}

const seam_usage *seam_step_usage(const seam_step *s)
{
    static const seam_usage none;
    return s ? &s->usage : &none;
}
