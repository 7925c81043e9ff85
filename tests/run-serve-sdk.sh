#!/bin/sh
# run-serve-sdk.sh — `seam serve` tried with the official client SDKs (issue
# 17): installs `openai`, `@anthropic-ai/sdk`, `ai` and `@ai-sdk/openai-compatible`
# from npm into a temp dir (exit 77, skipped, when node or npm is missing or
# cannot install), starts tests/fake-provider upstreams on loopback (a text
# stream, a tool call, a slow stream, a 429, a 401) and the gateway in front
# of them, then runs tests/serve-sdk/interop.mjs once per SDK, and checks
# each wire's error format with curl. SEAM_SDK_DIR=DIR reuses a directory
# where the packages are already installed.
set -u
. "$(dirname "$0")/testlib.sh"
tl_build_env

command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && command -v curl >/dev/null 2>&1 \
    || { echo "SKIP: node, npm or curl missing"; exit 77; }
"$SEAM" serve --help >/dev/null 2>&1 || { echo "SKIP: seam built without serve"; exit 77; }

tl_tmpdir "${TMPDIR:-/tmp}/seam-sdk.XXXXXX"
pids=
tl_cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
    tl_stop_fakes
}

if [ -n "${SEAM_SDK_DIR:-}" ] && [ -d "$SEAM_SDK_DIR/node_modules/openai" ]; then
    sdk=$SEAM_SDK_DIR
else
    sdk=$tmp/sdk
    mkdir -p "$sdk" && cd "$sdk" && echo '{"private":true,"type":"module"}' > package.json
    # bounded, so that a machine without the registry skips instead of waiting
    if ! timeout 300 npm install --no-audit --no-fund --loglevel=error --fetch-retries=1 \
            --fetch-timeout=30000 \
            openai @anthropic-ai/sdk ai @ai-sdk/openai-compatible > "$tmp/npm.log" 2>&1; then
        echo "SKIP: npm cannot install the SDKs:"; tail -5 "$tmp/npm.log"
        exit 77
    fi
    cd - >/dev/null || exit 99
fi
cp "$top_srcdir/tests/serve-sdk/interop.mjs" "$sdk/interop.mjs" || exit 99

# ---- upstreams -----------------------------------------------------------------
cat > "$tmp/text.sse" <<'S'
{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}
{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":" world"},"finish_reason":null}]}
{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}
{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":3,"total_tokens":14}}
S
cat > "$tmp/tool.sse" <<'S'
{"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}
{"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":null}]}
{"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}
{"id":"c2","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29}}
S
: > "$tmp/slow.sse"
i=0
while [ $i -lt 300 ]; do
    echo '{"id":"c3","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"tick "},"finish_reason":null}]}' >> "$tmp/slow.sse"
    i=$((i + 1))
done
slow_line=$(head -1 "$tmp/slow.sse" | wc -c)

tl_start_fake text --sse-file "$tmp/text.sse" --family openai
tl_start_fake tool --sse-file "$tmp/tool.sse" --family openai
tl_start_fake slow --sse-file "$tmp/slow.sse" --family openai --split $((slow_line + 7)) --delay 20
tl_start_fake e429 --status 429 --header 'Retry-After: 2' \
    --json-body '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}'
tl_start_fake e401 --status 401 \
    --json-body '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}'
# embeddings, images and speech (the gateway's /v1/embeddings,
# /v1/images/generations and /v1/audio/speech)
tl_start_fake emb --status 200 --json-body '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.25,-0.5,0.125]},{"object":"embedding","index":1,"embedding":[1,0,-1]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":4,"total_tokens":4}}'
# tests/fake-media answers OpenAI's images (a 1x1 PNG) and speech (a WAV)
png_b64=iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==
fake_provider=$FAKE
FAKE=$top_builddir/tests/fake-media
tl_start_fake img
FAKE=$fake_provider
port() { cat "$tmp/$1.port"; }

tl_conf "$tmp/serve.conf" "$PLUGINS" <<C
providers = {
  text = { plugin = "openai"; base_url = "http://127.0.0.1:$(port text)/v1"; api_key = "sk-fake-text"; };
  tool = { plugin = "openai"; base_url = "http://127.0.0.1:$(port tool)/v1"; api_key = "sk-fake-tool"; };
  slow = { plugin = "openai"; base_url = "http://127.0.0.1:$(port slow)/v1"; api_key = "sk-fake-slow"; };
  e429 = { plugin = "openai"; base_url = "http://127.0.0.1:$(port e429)/v1"; api_key = "sk-fake-429"; };
  e401 = { plugin = "openai"; base_url = "http://127.0.0.1:$(port e401)/v1"; api_key = "sk-fake-401"; };
  emb = { plugin = "openai"; base_url = "http://127.0.0.1:$(port emb)/v1"; api_key = "sk-fake-emb"; };
  img = { plugin = "openai"; base_url = "http://127.0.0.1:$(port img)/v1"; api_key = "sk-fake-img"; };
};
chains = { default = ( { provider = "text"; model = "m"; } ); };
C
# the fake upstreams answer every chat with a stream; images are stored under $tmp/data
XDG_DATA_HOME=$tmp/data "$SEAM" serve --conf "$tmp/serve.conf" --listen 127.0.0.1:0 --always-stream-upstream \
    2>"$tmp/serve.err" &
pids="$pids $!"
w=0
while ! grep -q 'listening on port' "$tmp/serve.err" 2>/dev/null && [ $w -lt 500 ]; do
    sleep 0.01; w=$((w + 1))
done
gw_port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$tmp/serve.err")
[ -n "$gw_port" ] || { echo "FAIL: seam serve did not start"; cat "$tmp/serve.err"; exit 1; }
GW=http://127.0.0.1:$gw_port

for s in openai anthropic ai; do
    echo "== $s"
    checks=$((checks + 1))
    (cd "$sdk" && SEAM_GW=$GW SEAM_SLOW_PORT=$(port slow) SEAM_PNG_B64=$png_b64 node interop.mjs $s) ||
        fail "the $s SDK (its failed checks above)"
done

# ---- each wire's error format, with curl --------------------------------------------
echo "== curl"
curl_check() { # NAME PATH BODY STATUS PATTERN [HEADER]
    out=$(curl -s -i -X POST -H 'Content-Type: application/json' --data "$3" "$GW$2")
    status=$(printf '%s' "$out" | head -1 | cut -d' ' -f2)
    checks=$((checks + 1))
    if [ "$status" = "$4" ] && printf '%s' "$out" | grep -q -- "$5" &&
       { [ -z "${6:-}" ] || printf '%s' "$out" | grep -qi -- "$6"; }; then
        ok "curl $1"
    else
        fail "curl $1: got"; printf '%s\n' "$out" | head -12 >&2
    fi
}
curl_check "openai 400" /v1/chat/completions '{"model":' 400 '^{"error":{"message":".*","type":"invalid_request_error"'
curl_check "openai 404" /v1/chat/completions '{"model":"nope","messages":[{"role":"user","content":"x"}]}' 404 '"code":"model_not_found"'
curl_check "openai 401" /v1/chat/completions '{"model":"e401/m","messages":[{"role":"user","content":"x"}]}' 401 '"type":"authentication_error"'
curl_check "openai 429" /v1/chat/completions '{"model":"e429/m","messages":[{"role":"user","content":"x"}]}' 429 '"type":"rate_limit_error"' '^Retry-After: '
curl_check "anthropic 400" /v1/messages '{"model":"default","messages":[]}' 400 '^{"type":"error","error":{"type":"invalid_request_error"'
curl_check "anthropic 401" /v1/messages '{"model":"e401/m","max_tokens":5,"messages":[{"role":"user","content":"x"}]}' 401 '"type":"authentication_error"'
curl_check "anthropic 429" /v1/messages '{"model":"e429/m","max_tokens":5,"messages":[{"role":"user","content":"x"}]}' 429 '{"type":"error","error":{"type":"rate_limit_error"' '^Retry-After: '
curl_check "responses 400" /v1/responses '{"model":"default"}' 400 '^{"error":{"message":'
curl_check "responses 401" /v1/responses '{"model":"e401/m","input":"x"}' 401 '"type":"authentication_error"'
curl_check "embeddings 400" /v1/embeddings '{"model":"emb/e","input":[1,2]}' 400 '^{"error":{"message":"'"'"'input'"'"' must be a string or a non-empty array of strings'
curl_check "embeddings 401" /v1/embeddings '{"model":"e401/e","input":"x"}' 401 '"type":"authentication_error"'
curl_check "images 400" /v1/images/generations '{"model":"img/gpt-image-1"}' 400 '"type":"invalid_request_error"'
curl_check "images url refused" /v1/images/generations '{"model":"img/gpt-image-1","prompt":"a","response_format":"url"}' 400 'answers with b64_json'
curl_check "images 429" /v1/images/generations '{"model":"e429/gpt-image-1","prompt":"a"}' 429 '"type":"rate_limit_error"' '^Retry-After: '
curl_check "speech 400" /v1/audio/speech '{"model":"img/tts-1","input":"hi"}' 400 "'voice' are required"
curl_check "speech format" /v1/audio/speech '{"model":"img/tts-1","input":"hi","voice":"alloy","response_format":"ogg"}' 400 'must be one of mp3'

checks=$((checks + 1))
if grep -q 'sk-fake' "$tmp/serve.err"; then
    fail "an upstream key shows in the gateway's log"
else
    ok "no upstream key in the gateway's log"
fi
[ "$failures" -eq 0 ] || { echo "gateway log:"; tail -30 "$tmp/serve.err"; }
tl_finish run-serve-sdk
