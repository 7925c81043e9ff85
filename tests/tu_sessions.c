/* tu_sessions.c — the sessions and executors a test makes (tests/testutil.h):
 * made or the test stops there, with the library's reason on stderr. */
#include "config.h"

#include "testutil.h"

#include <CUnit/Basic.h>

seam_session *tu_session(seam_client *c, const seam_session_options *o)
{
    seam_session *s = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(tu_said(seam_session_new(c, o, &s, &err), &err, "seam_session_new"), SEAM_OK);
    return s;
}

seam_executor *tu_executor(seam_session *s, const seam_executor_options *eo)
{
    seam_executor *ex = NULL;
    seam_error err;
    CU_ASSERT_EQUAL_FATAL(tu_said(seam_executor_new(s, eo, &ex, &err), &err, "seam_executor_new"), SEAM_OK);
    return ex;
}
