/* tu_types.h — what the seam types' unit tests (test_types*.c) share: a
 * string assertion that prints "<NULL>" instead of crashing on NULL, and a
 * part's every accessor checked against what it should answer. */
#ifndef TU_TYPES_H
#define TU_TYPES_H

#include <CUnit/CUnit.h>
#include <seam/seam.h>

#define ASSERT_STR(actual, expected) CU_ASSERT_STRING_EQUAL_FATAL((actual) ? (actual) : "<NULL>", expected)

/* What a part answers, accessor by accessor (NULL, 0: nothing there). */
typedef struct part_want {
    seam_part_type type;
    const char *text, *signature, *tool_call_id, *tool_name, *args_json, *result_json, *mime_type, *media_data;
    int redacted, is_error, provider_executed;
    seam_media_source media_source;
} part_want;

/* p answers every accessor as w says: one assertion an accessor, each
 * difference printed with the caller's line. */
void part_is(const seam_part *p, const part_want *w, int line);
#define ASSERT_PART(p, ...) part_is((p), &(const part_want){ __VA_ARGS__ }, __LINE__)

#endif
