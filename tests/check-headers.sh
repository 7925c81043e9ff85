#!/bin/sh
# Each public header compiles alone, first in its translation unit, as C11
# with -Wall -Wextra -Werror: an
# application includes the one header it needs (issue 14, item 9).
: "${top_srcdir:=.}"
CC=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/seam-headers.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
for h in seam/types.h seam/seam.h seam/loop.h seam/plugin.h seam/codec.h seam/openai_compat.h; do
    printf '#include <%s>\nint main(void) { return 0; }\n' "$h" > "$tmp/t.c"
    if ! $CC -std=c11 -Wall -Wextra -Werror -I"$top_srcdir/libcore" -I"$top_srcdir/sdk" \
            -c "$tmp/t.c" -o "$tmp/t.o" 2> "$tmp/err"; then
        echo "FAIL: <$h> does not compile alone:"; cat "$tmp/err"; fail=1
    else
        echo "ok: <$h>"
    fi
done
exit $fail
