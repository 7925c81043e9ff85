#!/bin/sh
# fuzz/run.sh — builds the libFuzzer harness for each codec with clang
# (ASan + UBSan + libFuzzer) and runs it for SECONDS (default 60) each, from
# seed transcripts in fuzz/seeds/PLUGIN when present. Needs clang and
# libclang-rt (Debian: clang, libclang-rt-14-dev) and a configured build dir
# for config.h. Usage: fuzz/run.sh BUILD_DIR [SECONDS] [PLUGIN...]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: fuzz/run.sh BUILD_DIR [SECONDS] [PLUGIN...]}" && pwd)
secs=${2:-60}
shift 2 2>/dev/null || shift $#
plugins=${*:-openai anthropic gemini mock}
out=$build/fuzz
mkdir -p "$out"
core="util error message request result sse http"
status=0
for p in $plugins; do
    bin=$out/fuzz_$p
    set --
    for f in $core; do set -- "$@" "$src/libcore/$f.c"; done
    clang -g -O1 -std=c11 -D_GNU_SOURCE -DSEAM_BUILDING_LIBRARY \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        -I"$build" -I"$src/libcore" -I"$src/sdk" $(pkg-config --cflags json-c libcurl) \
        -DPLUGIN_SOURCE="\"$src/plugins/$p/$p.c\"" \
        "$src/fuzz/fuzz_decode.c" "$@" $(pkg-config --libs json-c libcurl) -lm -o "$bin"
    corpus=$out/corpus_$p
    mkdir -p "$corpus"
    [ -d "$src/fuzz/seeds/$p" ] && cp "$src/fuzz/seeds/$p"/* "$corpus"/ 2>/dev/null || true
    echo "== fuzz $p for ${secs}s"
    if ! "$bin" -max_total_time="$secs" -max_len=8192 -timeout=10 -rss_limit_mb=1024 \
        -artifact_prefix="$out/crash_${p}_" "$corpus" >"$out/$p.log" 2>&1; then
        echo "fuzz $p: FAILED (see $out/$p.log and $out/crash_${p}_*)"
        tail -30 "$out/$p.log"
        status=1
    else
        grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$out/$p.log" | tail -1
    fi
done
exit $status
