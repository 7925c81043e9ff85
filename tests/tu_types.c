/* tu_types.c — the part checker test_types_message and test_types_result
 * share (see tu_types.h). */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "tu_types.h"

/* p answers every accessor as w says: one assertion an accessor, each
 * difference printed with the caller's line. */
void part_is(const seam_part *p, const part_want *w, int line)
{
    const struct {
        const char *name, *got, *want;
    } strs[] = {
        {"text", seam_part_text(p), w->text},
        {"signature", seam_part_signature(p), w->signature},
        {"tool_call_id", seam_part_tool_call_id(p), w->tool_call_id},
        {"tool_name", seam_part_tool_name(p), w->tool_name},
        {"args_json", seam_part_args_json(p), w->args_json},
        {"result_json", seam_part_result_json(p), w->result_json},
        {"mime_type", seam_part_mime_type(p), w->mime_type},
        {"media_data", seam_part_media_data(p), w->media_data},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        int ok = strs[i].got && strs[i].want ? strcmp(strs[i].got, strs[i].want) == 0 : strs[i].got == strs[i].want;
        if (!ok)
            fprintf(stderr, "\n  line %d: part %s \"%s\", want \"%s\"\n", line, strs[i].name,
                    strs[i].got ? strs[i].got : "(null)", strs[i].want ? strs[i].want : "(null)");
        CU_ASSERT(ok);
    }
    const struct {
        const char *name;
        int got, want;
    } ints[] = {
        {"type", (int)seam_part_get_type(p), (int)w->type},
        {"redacted", seam_part_redacted(p), w->redacted},
        {"is_error", seam_part_is_error(p), w->is_error},
        {"provider_executed", seam_part_provider_executed(p), w->provider_executed},
        {"media_source", (int)seam_part_media_source(p), (int)w->media_source},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        if (ints[i].got != ints[i].want)
            fprintf(stderr, "\n  line %d: part %s %d, want %d\n", line, ints[i].name, ints[i].got, ints[i].want);
        CU_ASSERT_EQUAL(ints[i].got, ints[i].want);
    }
}
