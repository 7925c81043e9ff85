#!/bin/sh
# fuzz/run.sh — builds the libFuzzer harness for each codec with clang
# (ASan + UBSan + libFuzzer) and runs it for SECONDS (default 60) each, from
# seed transcripts in fuzz/seeds/TARGET when present. A target is a plugin
# name, or openai-responses (the openai plugin with options.api = "responses").
# Needs clang and
# libclang-rt (Debian: clang, libclang-rt-14-dev) and a configured build dir
# for config.h. Usage: fuzz/run.sh BUILD_DIR [SECONDS] [PLUGIN...]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: fuzz/run.sh BUILD_DIR [SECONDS] [PLUGIN...]}" && pwd)
secs=${2:-60}
shift 2 2>/dev/null || shift $#
plugins=${*:-openai openai-responses anthropic gemini mock}
out=$build/fuzz
mkdir -p "$out"
core="util error message request result sse http"
status=0
for target in $plugins; do
    p=${target%%-*}
    options='{}'
    [ "$target" = openai-responses ] && options='{"api":"responses"}'
    bin=$out/fuzz_$target
    set --
    for f in $core; do set -- "$@" "$src/libcore/$f.c"; done
    # The plugin's other files (the harness includes its main one) and the
    # helpers every plugin shares.
    for f in "$src/plugins/$p"/*.c; do
        [ "$f" = "$src/plugins/$p/$p.c" ] || set -- "$@" "$f"
    done
    set -- "$@" "$src/plugins/common/codec_util.c" "$src/plugins/common/json_scan.c"
    clang -g -O1 -std=c11 -D_GNU_SOURCE -DSEAM_BUILDING_LIBRARY \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        -I"$build" -I"$src/libcore" -I"$src/sdk" $(pkg-config --cflags json-c libcurl) \
        -DPLUGIN_SOURCE="\"$src/plugins/$p/$p.c\"" -DPLUGIN_OPTIONS="$(printf '%s' "$options" | sed 's/"/\\"/g; s/^/"/; s/$/"/')" \
        "$src/fuzz/fuzz_decode.c" "$@" $(pkg-config --libs json-c libcurl) -lm -o "$bin"
    corpus=$out/corpus_$target
    mkdir -p "$corpus"
    [ -d "$src/fuzz/seeds/$target" ] && cp "$src/fuzz/seeds/$target"/* "$corpus"/ 2>/dev/null || true
    echo "== fuzz $target for ${secs}s"
    if ! "$bin" -max_total_time="$secs" -max_len=8192 -timeout=10 -rss_limit_mb=1024 \
        -artifact_prefix="$out/crash_${target}_" "$corpus" >"$out/$target.log" 2>&1; then
        echo "fuzz $target: FAILED (see $out/$target.log and $out/crash_${target}_*)"
        tail -30 "$out/$target.log"
        status=1
    else
        grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$out/$target.log" | tail -1
    fi
done
exit $status
