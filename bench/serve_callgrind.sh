#!/bin/sh
# serve_callgrind.sh — the instructions `seam serve` spends per request
# (issue 17), counted by callgrind, so without the noise of a shared machine:
# the gateway runs under valgrind twice, once for 1 request and once for N+1
# (small non-streamed chat completions, one keep-alive connection, from
# python3), in front of tests/fake-provider answering one JSON chat
# completion (json) or a small SSE stream (sse, with --always-stream-upstream);
# the difference over N is the per-request count of all its threads.
# Usage: bench/serve_callgrind.sh BUILDDIR [N] [json|sse] [SERVE-OPTION...]
set -u
B=${1:?usage: serve_callgrind.sh BUILDDIR [N] [json|sse] [SERVE-OPTION...]}
N=${2:-300}
MODE=${3:-json}
[ $# -ge 3 ] && shift 3 || shift $#
command -v valgrind >/dev/null || { echo "serve_callgrind: valgrind is not installed"; exit 1; }
t=$(mktemp -d "${TMPDIR:-/tmp}/seam-cg.XXXXXX") || exit 1
fp=
trap '[ -n "$fp" ] && kill $fp; rm -rf "$t"' EXIT
if [ "$MODE" = json ]; then
    "$B/tests/fake-provider" --port-file "$t/port" --status 200 --json-body '{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}' &
else
    printf '%s\n%s\n' '{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}' \
        '{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}' > "$t/small.sse"
    "$B/tests/fake-provider" --port-file "$t/port" --sse-file "$t/small.sse" --family openai &
    set -- "$@" --always-stream-upstream
fi
fp=$!
while [ ! -s "$t/port" ]; do sleep 0.05; done
cat > "$t/c.conf" <<C
plugin_path = [ "$B/plugins/.libs" ];
model_catalog = "";
providers = { up = { plugin = "openai"; base_url = "http://127.0.0.1:$(cat "$t/port")/v1"; api_key = "sk-bench"; }; };
chains = { default = ( { provider = "up"; model = "m"; } ); };
C
export LD_LIBRARY_PATH="$B/.libs"
run() { # REQUESTS [SERVE-OPTION...] -> total instructions
    n=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file="$t/cg.$n.%p" "$B/cli/.libs/seam" serve \
        --conf "$t/c.conf" --listen 127.0.0.1:0 --access-log /dev/null "$@" 2>"$t/err.$n" &
    gp=$!
    while ! grep -q 'listening on port' "$t/err.$n"; do sleep 0.1; done
    port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$t/err.$n")
    python3 - "$port" "$n" <<'P'
import http.client, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
c = http.client.HTTPConnection("127.0.0.1", port)
body = '{"model":"default","messages":[{"role":"user","content":"hi"}]}'
for i in range(n):
    c.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    r = c.getresponse(); d = r.read()
    if r.status != 200: print("status", r.status, d, file=sys.stderr); sys.exit(1)
    time.sleep(0.001)  # the fake upstream tops up its scripted answers every 5 ms
P
    kill -TERM $gp; wait $gp
    callgrind_annotate "$t"/cg."$n".* 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}
a=$(run 1 "$@")
b=$(run $((N + 1)) "$@")
echo "seam serve ($MODE upstream${*:+, $*}): $(( (b - a) / N )) instructions per request (callgrind, $N requests)"
