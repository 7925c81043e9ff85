/* tu_usage.c — a usage compared with the one a test expects (tests/testutil.h):
 * the present bits, then each count the expected one has, every difference
 * printed with the field's name and the caller's file:line. It calls nothing
 * of libseam, so the programs that link the core's objects directly use it too. */
#include "config.h"

#include "testutil.h"

#include <CUnit/Basic.h>
#include <stdio.h>

int tu_usage_is(const seam_usage *u, const seam_usage *want, const char *file, int line)
{
    const struct {
        uint32_t bit;
        const char *name;
        int64_t got, want;
    } counts[] = {
        {SEAM_USAGE_INPUT, "input_tokens", u->input_tokens, want->input_tokens},
        {SEAM_USAGE_OUTPUT, "output_tokens", u->output_tokens, want->output_tokens},
        {SEAM_USAGE_CACHE_READ, "cache_read_tokens", u->cache_read_tokens, want->cache_read_tokens},
        {SEAM_USAGE_CACHE_WRITE, "cache_write_tokens", u->cache_write_tokens, want->cache_write_tokens},
        {SEAM_USAGE_REASONING, "reasoning_tokens", u->reasoning_tokens, want->reasoning_tokens},
        {SEAM_USAGE_COST, "cost_microcents", u->cost_microcents, want->cost_microcents},
    };
    int all = 1;
    int ok = u->present == want->present;
    if (!ok)
        fprintf(stderr, "\n  %s:%d: usage present %#x, want %#x\n", file, line, (unsigned)u->present,
                (unsigned)want->present);
    CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, (unsigned)line, "TU_ASSERT_USAGE present", file, "",
                            CU_FALSE);
    all &= ok;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        if (!(want->present & counts[i].bit))
            continue;
        ok = counts[i].got == counts[i].want;
        if (!ok)
            fprintf(stderr, "\n  %s:%d: usage %s %lld, want %lld\n", file, line, counts[i].name,
                    (long long)counts[i].got, (long long)counts[i].want);
        CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, (unsigned)line, counts[i].name, file, "", CU_FALSE);
        all &= ok;
    }
    return all;
}
