#!/bin/sh
# fuzz/smoke.sh — the CI smoke run of every fuzz target: builds each one
# (fuzz/run.sh) and runs it for SECONDS (default 10) from its seeds and the
# regression inputs in fuzz/seeds/TARGET, which libFuzzer replays first. A
# crash, leak, sanitizer report or broken invariant fails the run. Then the
# scanner differential (fuzz/scan_diff.sh), 2000 inputs per second asked. Skips
# (exit 77) when clang cannot build a libFuzzer binary.
# Usage: fuzz/smoke.sh BUILD_DIR [SECONDS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: fuzz/smoke.sh BUILD_DIR [SECONDS]}
secs=${2:-10}
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
    >"$probe/p.c"
if ! ${CC:-clang} -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2>/dev/null; then
    echo "fuzz/smoke.sh: clang with libFuzzer and the sanitizers is not available: skipped"
    exit 77
fi
# A fixed seed: the smoke is a regression check that CI can repeat, and the
# long runs (doc/reliability.md) are where new inputs are explored.
FUZZ_FLAGS="-seed=1 ${FUZZ_FLAGS:-}"
export FUZZ_FLAGS
status=0
"$here/run.sh" "$build" "$secs" || status=$?
# The scanner against the json-c path, a fixed number of inputs per codec.
"$here/scan_diff.sh" "$build" $((secs * 2000)) || status=$?
exit $status
