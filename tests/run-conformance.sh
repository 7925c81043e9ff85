#!/bin/sh
# run-conformance.sh — runs the wire conformance driver (tests/conformance) over
# a corpus of recorded provider streams:
#
#   tests/run-conformance.sh CORPUS_DIR
#
# For each family (openai, anthropic, gemini) whose plugin is built, every
# CORPUS_DIR/FAMILY/*.chunks.txt is served through the real plugin and compared
# with the *.expected.json beside it, twice: by the C driver through the
# library (one byte per segment, then whole), and end to end by
# `seam chat --json` against tests/fake-provider (7-byte segments), comparing
# the CLI's `result` line. Prints each PASS/FAIL line, then a summary; exits 0
# only when every stream run passed (and at least one ran).
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

seam=$top/cli/seam
fake=$top/tests/fake-provider
work=$(mktemp -d) || exit 2
fake_pid=""
trap '[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null; rm -rf "$work"' EXIT

# The seam chat --json run of one stream: 0 when its result line matches.
cli_check() {
    family=$1 chunks=$2 expected=$3
    case $family in
    openai) base=v1 model=gpt-4o ;;
    anthropic) base=v1 model=claude-sonnet-4-5 ;;
    gemini) base=v1beta model=gemini-2.5-flash ;;
    esac
    rm -f "$work/port"
    "$fake" --port-file "$work/port" --split 7 --sse-file "$chunks" --family "$family" 2>"$work/fake.err" &
    fake_pid=$!
    i=0
    while [ ! -s "$work/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    if [ ! -s "$work/port" ]; then
        echo "  fake-provider did not start: $(cat "$work/fake.err")"
        kill "$fake_pid" 2>/dev/null; wait "$fake_pid" 2>/dev/null; fake_pid=""
        return 1
    fi
    cat >"$work/seam.conf" <<CONF
model_catalog = "";
providers = { p = { plugin = "$family"; base_url = "http://127.0.0.1:$(cat "$work/port")/$base";
                    api_key = "conformance-key"; }; };
CONF
    SEAM_PLUGIN_PATH=$SEAM_TEST_PLUGIN_DIR "$seam" chat --conf "$work/seam.conf" --provider p \
        --model "$model" --json "hi" >"$work/out.ndjson" 2>"$work/err.txt"
    rc=$?
    kill "$fake_pid" 2>/dev/null; wait "$fake_pid" 2>/dev/null; fake_pid=""
    python3 - "$work/out.ndjson" "$expected" "$rc" <<'PY'
import json, sys
out, expected, rc = sys.argv[1], json.load(open(sys.argv[2])), int(sys.argv[3])
lines = [json.loads(l) for l in open(out) if l.strip()]
res = [l for l in lines if l.get("type") == "result"]
if rc != 0 or not res:
    print("  seam chat exited %d without a result line: %s" % (rc, lines[-1:] if lines else "no output"))
    sys.exit(1)
r = res[-1]
got = {
    "text": "".join(p["text"] for p in r["content"] if p["type"] == "text"),
    "reasoning": "".join(p["text"] for p in r["content"] if p["type"] == "reasoning" and not p.get("redacted")),
    "tool_calls": [p for p in r["content"] if p["type"] == "tool_call" and not p.get("provider_executed")],
    "stop_reason": r["stop_reason"],
}
bad = []
for k in ("text", "reasoning", "stop_reason"):
    if k in expected and expected[k] != got[k]:
        bad.append("%s: got %r, want %r" % (k, got[k], expected[k]))
want_calls = expected.get("tool_calls", [])
if len(want_calls) != len(got["tool_calls"]):
    bad.append("tool_calls: got %d, want %d" % (len(got["tool_calls"]), len(want_calls)))
else:
    for w, g in zip(want_calls, got["tool_calls"]):
        if (w.get("id") is not None and w["id"] != g.get("id")) or not g.get("id") \
                or w["name"] != g["name"] or w["args"] != g["args"]:
            bad.append("tool_call: got %r, want %r" % (g, w))
usage = r.get("usage", {})
for k, v in expected.get("usage", {}).items():
    if usage.get(k, 0) != v:
        bad.append("usage.%s: got %r, want %r" % (k, usage.get(k), v))
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
}

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
        if cli_check "$family" "$chunks" "$expected"; then
            echo "PASS $family/$(basename "$chunks") (seam chat --json)"
            passed=$((passed + 1))
        else
            echo "FAIL $family/$(basename "$chunks") (seam chat --json)"
            failed=$((failed + 1))
        fi
    done
done

total=$((passed + failed))
echo "conformance: $passed of $total passed, $failed failed${skipped:+ (plugins not built:$skipped)}"
[ "$failed" -eq 0 ] && [ "$total" -gt 0 ]
