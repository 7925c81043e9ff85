#!/bin/sh
# check.sh — `make check` of the hello plugin: runs the freshly built
# ./hello.so through the installed `seam` command ($SEAM, default `seam`),
# with a throwaway conf made of hello.conf, so nothing of yours takes part:
#
#   1. hello-offline answers a prompt, streamed and --no-stream;
#   2. an error response is classified (rate_limit, exit status 1);
#   3. every recorded stream tests/NAME.sse is served by a local HTTP server
#      (replay.py, 127.0.0.1 only) to the network codec `hello`, and the `result`
#      line of `seam chat --json` must match tests/NAME.expected.json: text,
#      stop_reason and every usage count it names. This is how to test a codec
#      against a corpus of recorded provider streams: record the bytes a real
#      server sent, write down what they must normalize to, and replay them.
#   4. the conformance kit, seam-plugin-check(1) ($SEAM_PLUGIN_CHECK, default
#      the one beside $SEAM, else from PATH): the loader's checks, the request
#      the codec encodes, the same recorded streams cut at random byte
#      positions, and a fault matrix (HTTP errors, cut streams).
#
# Exits 0 when every check passes.
set -u
SEAM=${SEAM:-seam}
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$here/hello.so" ] || { echo "check.sh: build hello.so first (make)" >&2; exit 2; }

# Beside the plugin, on a path seam trusts: it refuses a plugin below a
# directory that others can write (see seam-plugin(7)).
tmp=$(mktemp -d "$here/.check.XXXXXX") || exit 2
server_pid=
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# seam refuses plugins on a path others can write: load a copy from a
# private directory. No user conf, plugin dir or credential may take part.
umask 022
mkdir "$tmp/plugins" "$tmp/conf.d"
cp "$here/hello.so" "$tmp/plugins/"
cp "$here/hello.conf" "$tmp/conf.d/"
printf '# the hello checks: providers and chains come from conf.d/hello.conf\n' >"$tmp/seam.conf"
SEAM_PLUGIN_PATH=$tmp/plugins
HOME=$tmp
XDG_CONFIG_HOME=$tmp/xdg
export SEAM_PLUGIN_PATH HOME XDG_CONFIG_HOME
unset SEAM_CONF HELLO_API_KEY

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

# 1. offline
out=$("$SEAM" --conf "$tmp/seam.conf" chat --provider hello-offline --model hello-1 'hi there' 2>"$tmp/err")
rc=$?
if [ $rc -eq 0 ] && [ "$out" = "Hello! You said: hi there" ]; then
    ok "hello-offline answers a streamed chat"
else
    fail "hello-offline streamed: exit $rc, stdout '$out'"; cat "$tmp/err" >&2
    "$SEAM" --conf "$tmp/seam.conf" plugins >&2 # why the plugin did not load, if it did not
fi
out=$("$SEAM" --conf "$tmp/seam.conf" chat --no-stream --provider hello-offline --model hello-1 'hi' 2>"$tmp/err")
rc=$?
if [ $rc -eq 0 ] && [ "$out" = "Hello! You said: hi" ]; then
    ok "hello-offline answers --no-stream"
else
    fail "hello-offline --no-stream: exit $rc, stdout '$out'"; cat "$tmp/err" >&2
fi

# 2. an error response, classified by classify_error
"$SEAM" --conf "$tmp/seam.conf" chat --json --provider hello-offline --model hello-1 '/busy' \
    >"$tmp/busy.out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q '"kind":"rate_limit"' "$tmp/busy.out"; then
    ok "a 429 is classified as rate_limit"
else
    fail "/busy: exit $rc (expected 1 with kind rate_limit)"; cat "$tmp/busy.out" "$tmp/err" >&2
fi

# 3. recorded streams through the network codec
command -v python3 >/dev/null || { echo "check.sh: python3 is needed for the recorded streams" >&2; exit 2; }
for sse in "$here"/tests/*.sse; do
    [ -f "$sse" ] || continue
    name=$(basename "$sse" .sse)
    expected=$here/tests/$name.expected.json
    rm -f "$tmp/port"
    python3 "$here/replay.py" serve "$sse" "$tmp/port" &
    server_pid=$!
    i=0
    while [ ! -s "$tmp/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    port=$(cat "$tmp/port" 2>/dev/null)
    cat >"$tmp/recorded.conf" <<EOF
providers = { recorded = { plugin = "hello"; base_url = "http://127.0.0.1:$port/v1"; }; };
EOF
    "$SEAM" --conf "$tmp/recorded.conf" chat --json --provider recorded --model hello-1 'replay' \
        >"$tmp/$name.out" 2>"$tmp/err"
    rc=$?
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
    server_pid=
    if [ $rc -ne 0 ]; then
        fail "$name: exit $rc"; cat "$tmp/$name.out" "$tmp/err" >&2
        continue
    fi
    if python3 "$here/replay.py" compare "$tmp/$name.out" "$expected"
    then
        ok "$name: the recorded stream decodes as expected"
    else
        fail "$name: the recorded stream does not match $(basename "$expected")"
    fi
done

# 4. the conformance kit, on the private copy (the path seam trusts)
if [ -z "${SEAM_PLUGIN_CHECK:-}" ]; then
    case $SEAM in
    */*) SEAM_PLUGIN_CHECK=$(dirname "$SEAM")/seam-plugin-check ;;
    *) SEAM_PLUGIN_CHECK=seam-plugin-check ;;
    esac
fi
"$SEAM_PLUGIN_CHECK" "$tmp/plugins/hello.so" --corpus "$here/tests" >"$tmp/kit.out" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
    ok "seam-plugin-check: $(tail -n 1 "$tmp/kit.out")"
else
    fail "seam-plugin-check (exit $rc):"; grep -v '^PASS' "$tmp/kit.out" >&2
fi

[ "$failures" -eq 0 ] && echo "all hello checks passed"
[ "$failures" -eq 0 ]
