#!/bin/sh
# run-conformance.sh — runs the wire conformance driver (tests/conformance) over
# a corpus of recorded provider streams:
#
#   tests/run-conformance.sh CORPUS_DIR
#
# For each family (openai, anthropic, gemini) whose plugin is built, every
# CORPUS_DIR/FAMILY/*.chunks.txt is served through the real plugin and compared
# with the *.expected.json beside it. Prints each PASS/FAIL line, then a
# summary; exits 0 only when every stream run passed (and at least one ran).
#
# Run from the build directory, or set top_builddir. SEAM_TEST_PLUGIN_DIR
# defaults to $top_builddir/plugins/.libs.
set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "usage: $0 CORPUS_DIR   (a directory holding openai/, anthropic/, gemini/)" >&2
    exit 2
fi
corpus=$1
top=${top_builddir:-.}
top=$(cd "$top" && pwd) || exit 2
driver=$top/tests/conformance
if [ ! -x "$driver" ]; then
    echo "$0: $driver is not built (make tests/conformance)" >&2
    exit 2
fi
SEAM_TEST_PLUGIN_DIR=${SEAM_TEST_PLUGIN_DIR:-$top/plugins/.libs}
export SEAM_TEST_PLUGIN_DIR
# No user conf or plugin dir may leak into the runs.
SEAM_CONF=
SEAM_PLUGIN_PATH=
export SEAM_CONF SEAM_PLUGIN_PATH

passed=0
failed=0
skipped=""
for family in openai anthropic gemini; do
    [ -d "$corpus/$family" ] || continue
    if [ ! -f "$SEAM_TEST_PLUGIN_DIR/$family.so" ]; then
        skipped="$skipped $family"
        continue
    fi
    for chunks in "$corpus/$family"/*.chunks.txt; do
        [ -f "$chunks" ] || continue
        expected=${chunks%.chunks.txt}.expected.json
        if [ ! -f "$expected" ]; then
            echo "FAIL $family/$(basename "$chunks")"
            echo "  no $(basename "$expected") beside it"
            failed=$((failed + 1))
            continue
        fi
        if "$driver" "$family" "$chunks" "$expected"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
        fi
    done
done

total=$((passed + failed))
echo "conformance: $passed of $total passed, $failed failed${skipped:+ (plugins not built:$skipped)}"
[ "$failed" -eq 0 ] && [ "$total" -gt 0 ]
