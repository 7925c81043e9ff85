#!/bin/sh
# bench_serve.sh — what `seam serve` costs (issue 17), on loopback, no
# network: tests/fake-provider answers a small OpenAI chat completion (one
# JSON body: the gateway sends a non-streamed request upstream non-streamed);
# wrk sends small
# non-streamed chat completions straight to it, through the gateway and
# through bench/relay (a do-nothing byte relay: the floor any gateway adds on
# this machine) at about 1,000 and 5,000 requests/s, and the difference of
# the latency distributions is what each adds (median and p99). Pacing: each
# connection waits a random time between requests (exponential, mean 20 ms),
# so the arrivals are close to a Poisson stream; a fixed wait keeps every
# connection in step and sends the load in bursts whose queueing the
# figures would measure instead. Then wrk unpaced gives the highest
# throughput; then
# serve_streams.py holds 1,000 SSE streams open at once and reports the
# gateway's RSS and fds per stream and the chunks lost.
# Usage (make bench sets the variables): bench_serve.sh [SECONDS] [STREAMS]
set -u
: "${top_builddir:?}" "${top_srcdir:?}"
PLUGINS=${SEAM_TEST_PLUGIN_DIR:-$top_builddir/plugins/.libs}
SECS=${1:-10}
STREAMS=${2:-1000}
command -v wrk >/dev/null || { echo "bench_serve: wrk is not installed (apt-get install wrk)"; exit 1; }
ulimit -n 20000 2>/dev/null
tmp=$(mktemp -d "${TMPDIR:-/tmp}/seam-bench-serve.XXXXXX") || exit 1
pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

EVENTS=150
: > "$tmp/paced.sse"
i=0
while [ $i -lt $EVENTS ]; do
    echo '{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"tick "},"finish_reason":null}]}' >> "$tmp/paced.sse"
    i=$((i + 1))
done
echo '{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}' >> "$tmp/paced.sse"
line=$(head -1 "$tmp/paced.sse" | wc -c)

fake() { # NAME ARGS
    n=$1; shift
    "$top_builddir/tests/fake-provider" --port-file "$tmp/$n.port" "$@" 2>/dev/null &
    pids="$pids $!"
    while [ ! -s "$tmp/$n.port" ]; do sleep 0.01; done
}
fake small --status 200 --json-body '{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}'
# one event every 100 ms: 150 events, 15 s a stream, so that all are open at once
fake paced --sse-file "$tmp/paced.sse" --family openai --split $((line + 7)) --delay 100

serve() { # NAME UPSTREAM_PORT
    cat > "$tmp/$1.conf" <<C
plugin_path = [ "$PLUGINS" ];
model_catalog = "";
providers = { up = { plugin = "openai"; base_url = "http://127.0.0.1:$2/v1"; api_key = "sk-bench"; }; };
chains = { default = ( { provider = "up"; model = "m"; } ); };
C
: > "$tmp/$1.err"
    "$top_builddir/cli/seam" serve --conf "$tmp/$1.conf" --listen 127.0.0.1:0 \
        --access-log /dev/null 2>"$tmp/$1.err" &
    eval "$1_pid=$!"
    pids="$pids $!"
    while ! grep -q 'listening on port' "$tmp/$1.err"; do sleep 0.01; done
    eval "$1_port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$tmp/$1.err")"
}
serve gw "$(cat "$tmp/small.port")"
"$top_builddir/bench/relay" "$(cat "$tmp/small.port")" > "$tmp/relay.port" &
pids="$pids $!"
while [ ! -s "$tmp/relay.port" ]; do sleep 0.01; done

cat > "$tmp/post.lua" <<'L'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"default","messages":[{"role":"user","content":"hi"}]}'
local d = tonumber(os.getenv("WRK_DELAY_MS") or "0")
function delay()
  if d == 0 then return 0 end
  return math.floor(-d * math.log(1 - math.random()))
end
L

# wrk_run URL CONNS DELAY_MS -> "rps p50_us p99_us non2xx"
us() { # wrk's "123.45us" / "1.23ms" / "1.2s" -> microseconds
    awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) print n; else if (v ~ /ms$/) print n * 1000;
                           else if (v ~ /s$/) print n * 1000000; else print n }'
}
wrk_run() {
    WRK_DELAY_MS=$3 wrk -t1 -c"$2" -d"${SECS}s" --latency -s "$tmp/post.lua" "$1" > "$tmp/wrk.out" 2>&1
    rps=$(awk '/Requests\/sec/ { print int($2) }' "$tmp/wrk.out")
    p50=$(us "$(awk '$1 == "50%" { print $2 }' "$tmp/wrk.out")")
    p99=$(us "$(awk '$1 == "99%" { print $2 }' "$tmp/wrk.out")")
    bad=$(awk '/Non-2xx/ { print $NF }' "$tmp/wrk.out")
    echo "$rps $p50 $p99 ${bad:-0}"
}
# CPU time the gateway process has used, in microseconds (utime + stime)
cpu_us() {
    awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) * 1000000 / hz }' "/proc/$1/stat"
}
direct=http://127.0.0.1:$(cat "$tmp/small.port")/v1/chat/completions
through=http://127.0.0.1:$gw_port/v1/chat/completions
relayed=http://127.0.0.1:$(cat "$tmp/relay.port")/v1/chat/completions
wrk_run "$through" 8 0 >/dev/null   # warm-up: plugin loaded, connections pooled

echo "seam serve benchmark: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), ${SECS} s per run"
printf '%-10s %-8s %10s %10s %10s %8s\n' target path req/s p50_us p99_us non2xx
for rate in 1000 5000; do
    # each connection waits 20 ms between requests: rate/50 connections
    conns=$((rate / 50))
    delay=20
    set -- $(wrk_run "$direct" $conns $delay); d_rps=$1 d50=$2 d99=$3 d_bad=$4
    c0=$(cpu_us "$gw_pid")
    set -- $(wrk_run "$through" $conns $delay); g_rps=$1 g50=$2 g99=$3 g_bad=$4
    c1=$(cpu_us "$gw_pid")
    set -- $(wrk_run "$relayed" $conns $delay); r_rps=$1 r50=$2 r99=$3 r_bad=$4
    printf '%-10s %-8s %10s %10s %10s %8s\n' "$rate/s" direct "$d_rps" "$d50" "$d99" "$d_bad"
    printf '%-10s %-8s %10s %10s %10s %8s\n' "$rate/s" gateway "$g_rps" "$g50" "$g99" "$g_bad"
    printf '%-10s %-8s %10s %10s %10s %8s\n' "$rate/s" relay "$r_rps" "$r50" "$r99" "$r_bad"
    awk -v a="$g50" -v b="$d50" -v c="$g99" -v d="$d99" -v r="$rate" \
        'BEGIN { printf "added at %s/s: median %.0f us, p99 %.0f us\n", r, a - b, c - d }'
    awk -v a="$r50" -v b="$d50" -v c="$r99" -v d="$d99" -v r="$rate" \
        'BEGIN { printf "the relay (the floor) adds at %s/s: median %.0f us, p99 %.0f us\n", r, a - b, c - d }'
    awk -v c0="$c0" -v c1="$c1" -v n="$g_rps" -v s="$SECS" \
        'BEGIN { printf "gateway CPU per request: %.0f us (all its threads)\n", (c1 - c0) / (n * s) }'
done
set -- $(wrk_run "$through" 64 0); echo "highest throughput through the gateway: $1 req/s (p50 $2 us, p99 $3 us, non-2xx $4)"
set -- $(wrk_run "$direct" 64 0); echo "the fake upstream alone, same load: $1 req/s (p50 $2 us, p99 $3 us, non-2xx $4)"

serve gs "$(cat "$tmp/paced.port")"
echo "$STREAMS concurrent SSE streams ($EVENTS events each, one every 100 ms):"
python3 "$top_srcdir/bench/serve_streams.py" "$gs_port" "$gs_pid" "$STREAMS" $EVENTS
