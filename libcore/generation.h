/* generation.h — the record of a tool loop run and of its steps, as the
 * engine (loop.c) fills it and generation.c reads it out (<seam/loop.h>). */
#ifndef SEAM_GENERATION_H
#define SEAM_GENERATION_H

#include "internal.h"

struct seam_step {
    seam_result *result;
    const seam_part **calls;     /* the client tool calls of the result (borrowed parts) */
    size_t n_calls;
    seam_message *tool_results;  /* role tool; NULL when no call was run */
    seam_usage usage;
};

struct seam_generation {
    seam_step **steps;
    size_t n_steps, cap_steps;
    seam_usage usage;
    seam_message **added;
    size_t n_added, cap_added;
    int pending;                 /* the last step's calls were left for the caller */
    int has_error;
    seam_error error;
};

seam_generation *seam_generation_new(void);
/* Takes res. The step's calls are the result's tool calls the client must run. */
int seam_generation_add_step(seam_generation *g, seam_result *res, seam_step **out);
/* Records a copy of msg among the messages the run added. */
int seam_generation_add_message(seam_generation *g, const seam_message *msg);

#endif
