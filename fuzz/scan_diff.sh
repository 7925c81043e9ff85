#!/bin/sh
# fuzz/scan_diff.sh — builds fuzz/fuzz_scan_diff.c for each codec that has a
# fast path (openai, anthropic, gemini) with clang (libFuzzer + ASan + UBSan)
# and runs it for RUNS executions each (default 1000000), from the seeds in
# fuzz/seeds/scan-TARGET. A difference between the scanner and the json-c path
# aborts the run and leaves the input as BUILD_DIR/fuzz/crash_scan_TARGET_*.
# Needs clang and libclang-rt (Debian: clang, libclang-rt-14-dev) and a
# configured build dir for config.h. WIRE=DIR (e.g. the conformance corpus,
# /work/shared/fixtures/wire) adds DIR/TARGET/*.chunks.txt, recorded streams
# one payload a line, to the seeds. SANITIZE overrides the sanitizers
# (default fuzzer,address,undefined; "fuzzer,undefined" runs about three
# times as many inputs a second, for long runs). Usage: fuzz/scan_diff.sh BUILD_DIR [RUNS] [PLUGIN...]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: fuzz/scan_diff.sh BUILD_DIR [RUNS] [PLUGIN...]}" && pwd)
runs=${2:-1000000}
shift 2 2>/dev/null || shift $#
plugins=${*:-openai anthropic gemini}
out=$build/fuzz
mkdir -p "$out"
. "$src/fuzz/core_files.sh"
status=0
for p in $plugins; do
    bin=$out/fuzz_scan_$p
    set --
    for f in $FUZZ_CORE_FILES; do set -- "$@" "$src/libcore/$f.c"; done
    def=
    [ "$p" = gemini ] && def=-DFUZZ_GEMINI
    if [ -f "$src/plugins/$p/$p.c" ]; then
        # A codec in one file: the harness includes it, to reach its decoder.
        for f in "$src/plugins/$p"/*.c; do
            [ "$f" = "$src/plugins/$p/$p.c" ] || set -- "$@" "$f"
        done
        def="$def -DPLUGIN_SOURCE=\"$src/plugins/$p/$p.c\""
    else
        # A codec split by role: every file linked, its internal header included.
        for f in "$src/plugins/$p"/*.c; do set -- "$@" "$f"; done
        def="$def -DPLUGIN_INTERNAL=\"$src/plugins/$p/internal.h\""
    fi
    set -- "$@" "$src/plugins/common/codec_util.c" "$src/plugins/common/json_scan.c" "$src/plugins/common/provider_options.c"
    clang -g -O1 -std=c11 -D_GNU_SOURCE -DSEAM_BUILDING_LIBRARY $def \
        -fsanitize="${SANITIZE:-fuzzer,address,undefined}" -fno-sanitize-recover=undefined \
        -I"$build" -I"$src/libcore" -I"$src/sdk" $(pkg-config --cflags json-c libcurl) \
        "$src/fuzz/fuzz_scan_diff.c" "$@" $(pkg-config --libs json-c libcurl) -lm -o "$bin"
    corpus=$out/corpus_scan_$p
    mkdir -p "$corpus"
    [ -d "$src/fuzz/seeds/scan-$p" ] && cp "$src/fuzz/seeds/scan-$p"/* "$corpus"/
    [ -n "${WIRE:-}" ] && [ -d "$WIRE/$p" ] && cp "$WIRE/$p"/*.chunks.txt "$corpus"/ 2>/dev/null || true
    echo "== scan diff $p for $runs runs"
    if ! "$bin" -runs="$runs" -max_len=2048 -timeout=10 -rss_limit_mb=1024 \
        -dict="$src/fuzz/scan.dict" -artifact_prefix="$out/crash_scan_${p}_" "$corpus" \
        >"$out/scan_$p.log" 2>&1; then
        echo "scan diff $p: FAILED (see $out/scan_$p.log)"
        tail -30 "$out/scan_$p.log"
        status=1
    else
        grep -E "Done [0-9]+ runs" "$out/scan_$p.log" | tail -1
    fi
done
exit $status
