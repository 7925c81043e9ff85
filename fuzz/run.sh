#!/bin/sh
# fuzz/run.sh — builds libFuzzer harnesses with clang (ASan + UBSan + libFuzzer)
# and runs each for SECONDS (default 60; 0 = no time limit), from the seeds in
# fuzz/seeds/TARGET when present. Targets:
#   openai openai-responses anthropic gemini mock
#            a codec's decoders (fuzz_decode.c; openai-responses is the openai
#            plugin with options.api = "responses")
#   encode   every codec's encoder on random requests (fuzz_encode.c)
#   conf     the conf loader with a conf.d/ drop-in (fuzz_conf.c)
#   sse      the framer, whole against split feeding (fuzz_sse.c)
#   headers  Retry-After and rate-limit header parsing (fuzz_headers.c)
#   jsonschema  the JSON-Schema validator, PCRE2 patterns included
#            (fuzz_jsonschema.c)
# Needs clang and libclang-rt (Debian: clang, libclang-rt-14-dev) and a
# configured build dir for config.h. Extra libFuzzer flags come from
# $FUZZ_FLAGS (e.g. FUZZ_FLAGS=-runs=10000000 for a long run; FUZZ_RUNS=N is
# short for FUZZ_FLAGS=-runs=N). $FUZZ_SAN replaces the sanitizers and
# $FUZZ_OPT the optimisation level, for a long run that wants throughput
# (e.g. FUZZ_SAN="-fsanitize=undefined -fno-sanitize-recover=undefined"
# FUZZ_OPT=-O2, then replay its corpus with the default ASan build).
# Everything built or found goes to BUILD_DIR/fuzz-out: fuzz_TARGET,
# corpus_TARGET, TARGET.log, crash_TARGET_*.
# Usage: fuzz/run.sh BUILD_DIR [SECONDS] [TARGET...]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: fuzz/run.sh BUILD_DIR [SECONDS] [TARGET...]}" && pwd)
secs=${2:-60}
shift 2 2>/dev/null || shift $#
targets=${*:-openai openai-responses anthropic gemini mock encode conf sse headers jsonschema}
out=$build/fuzz-out
mkdir -p "$out"
CC=${CC:-clang}
SAN=${FUZZ_SAN:-"-fsanitize=address,undefined -fno-sanitize-recover=undefined"}
CFLAGS="-g ${FUZZ_OPT:--O1} -std=c11 -D_GNU_SOURCE -DSEAM_BUILDING_LIBRARY -I$build -I$src/libcore -I$src/sdk \
$(pkg-config --cflags json-c libcurl libconfig libpcre2-8)"
# Nothing installed on this machine may leak into a run: no plugin directory,
# no installed conf, no installed model catalog.
CORE_DEFS="-DSEAM_PLUGINDIR=\"/nonexistent\" -DSEAM_CONF_INSTALLED=\"/nonexistent/seam.conf\""
LIBS="$(pkg-config --libs json-c libcurl libconfig libpcre2-8) -lltdl -lpthread -lm"
[ -z "${FUZZ_RUNS:-}" ] || FUZZ_FLAGS="${FUZZ_FLAGS:-} -runs=$FUZZ_RUNS"
status=0
LSAN_OPTIONS=suppressions=$src/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}
export LSAN_OPTIONS

# Compiles $1 to $2 with instrumentation for libFuzzer unless $2 is newer than
# it and than every header.
compile() {
    obj=$2
    shift 2
    if [ ! -f "$obj" ] || [ -n "$(find "$src/libcore" "$src/sdk" "$src/plugins" "$src/fuzz" \
        -name '*.[ch]' -newer "$obj" 2>/dev/null | head -1)" ]; then
        # shellcheck disable=SC2086
        $CC $CFLAGS $SAN -fsanitize=fuzzer-no-link "$@" -c "$src_file" -o "$obj"
    fi
}

# The whole core, instrumented, as an archive a harness links against.
core_archive() {
    mkdir -p "$out/obj"
    for f in "$src"/libcore/*.c; do
        src_file=$f
        # shellcheck disable=SC2086
        compile "$f" "$out/obj/core_$(basename "$f" .c).o" $CORE_DEFS
    done
    rm -f "$out/libcore-fuzz.a"
    ar rcs "$out/libcore-fuzz.a" "$out"/obj/core_*.o
}

# Every plugin, instrumented, each init renamed so that they link together.
plugin_objects() {
    plugin_objs=
    for p in openai anthropic gemini mock; do
        for f in "$src/plugins/$p"/*.c; do
            src_file=$f
            o=$out/obj/plugin_${p}_$(basename "$f" .c).o
            compile "$f" "$o" -Dseam_plugin_init=seam_plugin_init_$p -Dseam_plugin_abi=seam_plugin_abi_$p
            plugin_objs="$plugin_objs $o"
        done
    done
    for f in codec_util json_scan provider_options; do
        src_file=$src/plugins/common/$f.c
        compile "$src_file" "$out/obj/plugin_$f.o"
        plugin_objs="$plugin_objs $out/obj/plugin_$f.o"
    done
}

build_decode() { # target
    p=${1%%-*}
    options='{}'
    [ "$1" = openai-responses ] && options='{"api":"responses"}'
    set --
    . "$src/fuzz/core_files.sh"
    for f in $FUZZ_CORE_FILES; do set -- "$@" "$src/libcore/$f.c"; done
    # Every file of the plugin and the helpers every plugin shares.
    for f in "$src/plugins/$p"/*.c; do set -- "$@" "$f"; done
    set -- "$@" "$src/plugins/common/codec_util.c" "$src/plugins/common/json_scan.c" "$src/plugins/common/provider_options.c"
    # shellcheck disable=SC2086
    $CC $CFLAGS -fsanitize=fuzzer $SAN \
        -DPLUGIN_OPTIONS="$(printf '%s' "$options" | sed 's/"/\\"/g; s/^/"/; s/$/"/')" \
        "$src/fuzz/fuzz_decode.c" "$@" $(pkg-config --libs json-c libcurl) -lm -o "$bin"
}

build_harness() { # harness.c [objects...]
    h=$1
    shift
    # shellcheck disable=SC2086
    $CC $CFLAGS -fsanitize=fuzzer $SAN "$h" "$@" "$out/libcore-fuzz.a" $LIBS -o "$bin"
}

built_core=
for target in $targets; do
    bin=$out/fuzz_$target
    max_len=8192
    case $target in
    openai | openai-responses | anthropic | gemini | mock)
        build_decode "$target" ;;
    jsonschema)
        # A lower match limit: the same paths, at a far higher rate.
        # shellcheck disable=SC2086
        $CC $CFLAGS -DSEAM_SCHEMA_MATCH_LIMIT=10000 -fsanitize=fuzzer $SAN \
            "$src/fuzz/fuzz_jsonschema.c" "$src/libcore/jsonschema.c" "$src/libcore/jsonparse.c" "$src/libcore/util.c" \
            "$src/libcore/error.c" $LIBS -o "$bin" ;;
    encode | conf | sse | headers)
        [ -n "$built_core" ] || { core_archive; built_core=1; }
        if [ "$target" = encode ]; then
            plugin_objects
            # shellcheck disable=SC2086
            build_harness "$src/fuzz/fuzz_encode.c" $plugin_objs
        else
            build_harness "$src/fuzz/fuzz_$target.c"
        fi
        # Longer inputs add no structure here, only time per run.
        case $target in headers) max_len=1024 ;; sse) max_len=2048 ;; conf) max_len=4096 ;; esac ;;
    *)
        echo "fuzz/run.sh: unknown target $target" >&2
        exit 2 ;;
    esac
    corpus=$out/corpus_$target
    mkdir -p "$corpus"
    [ -d "$src/fuzz/seeds/$target" ] && cp "$src/fuzz/seeds/$target"/* "$corpus"/ 2>/dev/null || true
    echo "== fuzz $target for ${secs}s ${FUZZ_FLAGS:-}"
    # shellcheck disable=SC2086
    if ! "$bin" -max_total_time="$secs" -max_len=$max_len -timeout=10 -rss_limit_mb=1024 \
        -artifact_prefix="$out/crash_${target}_" ${FUZZ_FLAGS:-} "$corpus" >"$out/$target.log" 2>&1; then
        echo "fuzz $target: FAILED (see $out/$target.log and $out/crash_${target}_*)"
        tail -30 "$out/$target.log"
        status=1
    else
        grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$out/$target.log" | tail -1
    fi
done
exit $status
