#!/bin/sh
# run-cli.sh — end-to-end test of the `seam` command: chat (streamed, --json,
# --no-stream, interrupted), chat --tools (the conf's command tools in the tool
# loop), plugins (loaded, wrong ABI, unsafe dir), providers,
# config check, exit codes, the installed default conf, and that no credential
# ever shows in any output. Run by `make check` with top_builddir, top_srcdir
# and SEAM_TEST_PLUGIN_DIR set; exits 0 when every check passes.
set -u

. "$(dirname "$0")/testlib.sh"
# Files this script creates must not be group-writable, or the loader would
# (rightly) refuse the plugins copied below as unsafe.
tl_build_env
tl_hermetic

# Recognizable fake credentials: none of them may appear in any output.
SECRET_INLINE=sk-seamtest-INLINE-7f3a9c1e5b2d4680
SECRET_ENV=sk-seamtest-ENVVAR-2b4d6f8a0c1e3579
SEAM_TEST_FAKE_KEY=$SECRET_ENV
export SEAM_TEST_FAKE_KEY

priv=
tl_cleanup() {
    tl_stop_fakes
    [ -z "$priv" ] || rm -rf "$priv"
}
tl_tmpdir "${TMPDIR:-/tmp}/seam-cli.XXXXXX" 700
# Plugin copies go below the build tree: the loader refuses any file below a
# world-writable directory such as /tmp.
priv=$(mktemp -d "$top_builddir/tests/tmp-cli.XXXXXX") || exit 99
chmod 700 "$priv"
# Every output run keeps is also appended to $tmp/all.log for the credential check.
run_log=$tmp/all.log

# ---- the --json contract checker -------------------------------------------------
# check_json MODE FILE [ARGS]: every line is a JSON object of the contract.
#   success FILE TEXT   chunks, then one result line whose text is TEXT
#   error FILE KIND STATUS   exactly one error line, last, with that kind and
#                            status ("null" for none)
#   result-only FILE TEXT   one line: the result
#   tools FILE TEXT   as success for a run with --tools: the streamed text ends
#                     with TEXT (the last turn's), the result has "steps", and
#                     the tool_result lines of the calls seam ran (no
#                     provider_executed) are the steps' tool_results, in order
#   tools-result-only FILE TEXT   one line: the result, with "steps"
cat >"$tmp/check_json.py" <<'EOF'
import json, sys

mode, path = sys.argv[1], sys.argv[2]
args = sys.argv[3:]
problems = []

def need(cond, what):
    if not cond:
        problems.append(what)

def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)

def opt_str(v):
    return v is None or isinstance(v, str)

USAGE_KEYS = {"input_tokens", "output_tokens", "cache_read_tokens",
              "cache_write_tokens", "reasoning_tokens", "cost_microcents"}
# type -> (required keys, optional keys)
CHUNKS = {
    "text_delta": ({"text"}, set()),
    "reasoning_start": ({"id"}, set()),
    "reasoning_delta": ({"id", "text"}, set()),
    "reasoning_end": ({"id"}, {"signature", "redacted"}),
    "tool_call_start": ({"id", "name"}, set()),
    "tool_call_delta": ({"id", "args_delta"}, set()),
    "tool_call_end": ({"id", "args"}, set()),
    "tool_result": ({"id", "name", "result", "is_error"}, {"provider_executed"}),
    "media_start": ({"id", "mime_type"}, set()),
    "media_delta": ({"id", "progress"}, {"transcript", "bytes"}),
    "media_end": ({"id", "mime_type"}, {"ref", "media"}),
    "stop": ({"stop_reason", "usage"}, set()),
    "stream_start": ({"provider", "model", "response_id"}, set()),
    "step_finish": ({"step", "stop_reason", "usage"}, set()),
}
STOP_REASONS = {"stop", "length", "tool_use", "content_filter", "error"}

def check_usage(u, where):
    need(isinstance(u, dict), where + ": usage is an object")
    if isinstance(u, dict):
        need(set(u) <= USAGE_KEYS, where + ": usage keys %s" % sorted(set(u) - USAGE_KEYS))
        for k, v in u.items():
            need(is_int(v) and v >= 0, where + ": usage %s is a count" % k)

def check_keys(obj, required, optional, where):
    keys = set(obj) - {"type"}
    need(required <= keys, where + ": missing %s" % sorted(required - keys))
    need(keys <= required | optional, where + ": unexpected %s" % sorted(keys - required - optional))

def check_chunk(o, where):
    t = o["type"]
    req, opt = CHUNKS[t]
    check_keys(o, req, opt, where)
    for k in ("text", "args_delta", "name", "mime_type", "signature"):
        if k in o:
            need(isinstance(o[k], str), where + ": %s is a string" % k)
    if "id" in o:
        need(opt_str(o["id"]), where + ": id is a string")
    if t == "tool_call_end":
        need(isinstance(o["args"], dict), where + ": args is an object")
    if t == "reasoning_end" and "redacted" in o:
        need(o["redacted"] is True, where + ": redacted only when true")
    if t == "tool_result":
        need(isinstance(o["is_error"], bool), where + ": is_error is a bool")
        if "provider_executed" in o:
            need(o["provider_executed"] is True, where + ": provider_executed only when true")
    if t == "stream_start":
        need(isinstance(o["provider"], str) and isinstance(o["model"], str),
             where + ": provider and model are strings")
        need(opt_str(o["response_id"]), where + ": response_id is a string or null")
    if t == "step_finish":
        need(is_int(o["step"]) and o["step"] >= 0, where + ": step is a count")
        need(o["stop_reason"] in STOP_REASONS, where + ": stop_reason")
        check_usage(o["usage"], where)
    if t == "stop":
        need(o["stop_reason"] in STOP_REASONS, where + ": stop_reason")
        check_usage(o["usage"], where)

def objects(items, where, what):
    """Checks that items (the member what of where) is a non-empty list of
    objects; yields each object with its label."""
    need(isinstance(items, list) and items, "%s: %s is a non-empty list" % (where, what))
    for i, x in enumerate(items if isinstance(items, list) else []):
        w = "%s %s[%d]" % (where, what, i)
        need(isinstance(x, dict), w + ": an object")
        if isinstance(x, dict):
            yield w, x

OUTCOMES = {"succeeded", "failed", "skipped"}

def check_attempts(attempts, where):
    for w, a in objects(attempts, where, "attempts"):
        check_keys(dict(a, type=None), {"provider", "model", "outcome"}, {"error", "wait_ms", "usage"}, w)
        need(a.get("outcome") in OUTCOMES, w + ": outcome")
        need((a.get("outcome") == "succeeded") == ("error" not in a), w + ": error unless succeeded")
        if "wait_ms" in a:
            need(is_int(a["wait_ms"]) and a["wait_ms"] > 0, w + ": wait_ms")
        if "usage" in a:
            check_usage(a["usage"], w)
    if isinstance(attempts, list) and attempts and isinstance(attempts[-1], dict):
        need(attempts[-1].get("outcome") == "succeeded", where + ": the last attempt succeeded")

def check_part(p, w):
    need(isinstance(p, dict) and "type" in p, w + ": typed object")
    if not isinstance(p, dict):
        return
    t = p.get("type")
    if t == "tool_call":
        check_keys(p, {"id", "name", "args"}, {"provider_executed"}, w)
        need(isinstance(p.get("args"), dict), w + ": args is an object")
    elif t == "tool_result":
        check_keys(p, {"id", "name", "result", "is_error"}, {"provider_executed"}, w)
        need(isinstance(p.get("is_error"), bool), w + ": is_error is a bool")
    else:
        problems.append(w + ": unexpected part type %r" % t)

def check_steps(steps, where):
    for w, st in objects(steps, where, "steps"):
        check_keys(dict(st, type=None), {"tool_calls", "tool_results", "usage"}, set(), w)
        for key, want in (("tool_calls", "tool_call"), ("tool_results", "tool_result")):
            parts = st.get(key)
            need(isinstance(parts, list), w + ": %s is a list" % key)
            for k, p in enumerate(parts if isinstance(parts, list) else []):
                check_part(p, "%s %s[%d]" % (w, key, k))
                need(isinstance(p, dict) and p.get("type") == want, "%s %s[%d]: a %s" % (w, key, k, want))
        check_usage(st.get("usage"), w)

def check_result(o, where, steps=False):
    check_keys(o, {"provider", "model", "content", "stop_reason", "usage", "attempts"} | ({"steps"} if steps else set()), set(), where)
    if steps:
        check_steps(o.get("steps"), where)
    check_attempts(o.get("attempts"), where)
    need(isinstance(o.get("provider"), str) and o["provider"], where + ": provider")
    need(isinstance(o.get("model"), str) and o["model"], where + ": model")
    need(o.get("stop_reason") in STOP_REASONS, where + ": stop_reason")
    check_usage(o.get("usage"), where)
    content = o.get("content")
    need(isinstance(content, list), where + ": content is a list")
    text = ""
    for i, p in enumerate(content if isinstance(content, list) else []):
        w = "%s content[%d]" % (where, i)
        need(isinstance(p, dict) and "type" in p, w + ": typed object")
        if not isinstance(p, dict):
            continue
        t = p.get("type")
        if t == "text":
            check_keys(p, {"text"}, set(), w)
            text += p.get("text", "")
        elif t == "reasoning":
            check_keys(p, {"text"}, {"signature", "redacted"}, w)
        elif t == "tool_call":
            check_keys(p, {"id", "name", "args"}, {"provider_executed"}, w)
            need(isinstance(p.get("args"), dict), w + ": args is an object")
        elif t in ("tool_result", "media"):
            pass
        else:
            problems.append(w + ": unknown part type %r" % t)
    return text

def check_error(o, where, kind, status):
    check_keys(o, {"error"}, set(), where)
    e = o.get("error")
    need(isinstance(e, dict), where + ": error is an object")
    if not isinstance(e, dict):
        return
    check_keys(dict(e, type=None), {"kind", "retryable", "status", "provider", "message"}, {"code", "plugin"}, where)
    need(e.get("kind") == kind, where + ": kind %r, expected %r" % (e.get("kind"), kind))
    need(isinstance(e.get("retryable"), bool), where + ": retryable is a bool")
    want_status = None if status == "null" else int(status)
    need(e.get("status") == want_status, where + ": status %r, expected %r" % (e.get("status"), want_status))
    need(opt_str(e.get("provider")), where + ": provider")
    need(isinstance(e.get("message"), str), where + ": message is a string")
    if "code" in e:
        need(isinstance(e["code"], str) and e["code"], where + ": code is a non-empty string")

lines = open(path, encoding="utf-8").read().splitlines()
objs = []
for n, line in enumerate(lines, 1):
    try:
        o = json.loads(line)
    except ValueError as ex:
        problems.append("line %d is not JSON (%s): %r" % (n, ex, line))
        continue
    if not isinstance(o, dict) or not isinstance(o.get("type"), str):
        problems.append("line %d: not an object with a type" % n)
        continue
    objs.append((n, o))

if not problems:
    need(len(objs) > 0, "no output")
def check_chunks(body):
    """Checks every chunk line; returns the text they stream, whether a stop
    chunk came, and the tool_result lines of the calls seam ran."""
    streamed, saw_stop, ran = "", False, []
    for n, o in body:
        where = "line %d (%s)" % (n, o["type"])
        need(o["type"] in CHUNKS, where + ": a chunk type of the contract")
        if o["type"] in CHUNKS:
            check_chunk(o, where)
        if o["type"] == "text_delta":
            streamed += o["text"]
        if o["type"] == "stop":
            saw_stop = True
        if o["type"] == "tool_result" and "provider_executed" not in o:
            ran.append(dict(o))
    return streamed, saw_stop, ran

if objs and not problems:
    last_n, last = objs[-1]
    body = objs[:-1]
    steps = mode.startswith("tools")
    if mode in ("success", "tools"):
        need(last["type"] == "result", "the last line is the result")
        streamed, saw_stop, ran = check_chunks(body)
        if mode == "success":
            need(saw_stop, "a stop chunk before the result")
            need(len([1 for _, o in body if o["type"] == "text_delta"]) >= 1, "text_delta chunks")
        if last["type"] == "result":
            text = check_result(last, "result", steps=steps)
            if mode == "success":
                need(text == streamed, "result text %r == streamed text %r" % (text, streamed))
            need(text == args[0], "result text %r, expected %r" % (text, args[0]))
            if mode == "tools":
                need(streamed.endswith(text), "streamed text %r ends with the result's %r" % (streamed, text))
                results = [dict(p) for st in last.get("steps") or [] for p in st.get("tool_results") or []]
                for r in ran:
                    r["type"] = "tool_result"
                need(ran == results, "tool_result lines %r == the steps' tool_results %r" % (ran, results))
    elif mode in ("result-only", "tools-result-only"):
        need(len(objs) == 1, "exactly one line")
        need(last["type"] == "result", "the line is the result")
        if last["type"] == "result":
            text = check_result(last, "result", steps=steps)
            need(text == args[0], "result text %r, expected %r" % (text, args[0]))
    elif mode == "error":
        need(last["type"] == "error", "the last line is the error")
        need(sum(1 for _, o in objs if o["type"] == "error") == 1, "one error line")
        need(all(o["type"] != "result" for _, o in objs), "no result line")
        for n, o in body:
            if o["type"] in CHUNKS:
                check_chunk(o, "line %d" % n)
        if last["type"] == "error":
            check_error(last, "error line", args[0], args[1])
    else:
        problems.append("unknown mode " + mode)

for p in problems:
    print("  json: " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF

# check_json NAME MODE ARGS...: validates $tmp/NAME.out.
check_json() {
    name=$1
    shift
    checks=$((checks + 1))
    if python3 "$tmp/check_json.py" "$1" "$tmp/$name.out" "$2" ${3+"$3"}; then
        ok "$name: --json output follows the contract ($1)"
    else
        fail "$name: --json output breaks the contract ($1)"
        cat "$tmp/$name.out" >&2
    fi
}

# json_field NAME EXPR: evaluates EXPR on the last JSON line of NAME.out (as `o`).
json_field() {
    python3 -c 'import json,sys
lines = open(sys.argv[1]).read().splitlines()
o = json.loads(lines[-1])
print(eval(sys.argv[2]))' "$tmp/$1.out" "$2"
}

expect_json_field() {
    checks=$((checks + 1))
    got=$(json_field "$1" "$2" 2>&1)
    if [ "$got" = "$3" ]; then
        ok "$1: $2 == $3"
    else
        fail "$1: $2 is '$got', expected '$3'"
    fi
}

# ---- confs ------------------------------------------------------------------------
# The mock answers with this text, in several chunks, with usage. `thinker`
# also reasons and calls a tool; `failing` answers with an HTTP error.
MOCK_TEXT='Hello from the mock, streamed in pieces.'
cat >"$tmp/mock.conf" <<EOF
plugin_path = [ "$PLUGINS" ];
providers = {
  mock = {
    plugin = "mock";
    options = {
      reply = "$MOCK_TEXT";
      chunks = 5;
      usage = { input_tokens = 12; output_tokens = 7; };
    };
  };
  thinker = {
    plugin = "mock";
    options = {
      reply = "Let me look.";
      reasoning = "The user wants the weather.";
      signature = "sig-123";
      tool_calls = ( { id = "call_7"; name = "get_weather"; args = "{\"city\": \"Oslo\"}"; } );
      usage = { input_tokens = 30; output_tokens = 20; cache_read_tokens = 10; reasoning_tokens = 6; };
    };
  };
  failing = {
    plugin = "mock";
    options = {
      error_status = 503;
      error_body = "{\"error\": {\"type\": \"overloaded\", \"message\": \"try later\"}}";
    };
  };
};
chains = {
  default = ( { provider = "mock"; model = "mock-1"; max_attempts = 1; } );
  thinker = ( { provider = "thinker"; model = "mock-think"; max_attempts = 1; } );
  failing = ( { provider = "failing"; model = "mock-1"; max_attempts = 1; } );
  fallback = ( { provider = "failing"; model = "mock-1"; max_attempts = 2;
                 backoff = { base_ms = 10; max_ms = 20; jitter = 0; }; },
               { provider = "mock"; model = "mock-1"; } );
};
roles = { assistant = "default"; };
EOF

# ---- help, version, usage errors -------------------------------------------------
run help "$SEAM" --help
expect_rc help 0 && expect_grep help out 'chat \[--chain C | --provider P --model M\]' 'help shows the chat synopsis'
run help_cmd "$SEAM" help
expect_rc help_cmd 0 && expect_grep help_cmd out 'config check' 'help names config check'
run version "$SEAM" --version
expect_rc version 0 && expect_grep version out '^seam [0-9]' 'version line'
run no_command "$SEAM"
expect_rc no_command 2
run bad_command "$SEAM" frobnicate
expect_rc bad_command 2 && expect_grep bad_command err 'frobnicate' 'names the unknown command'
run bad_option "$SEAM" chat --frob hello
expect_rc bad_option 2 && expect_grep bad_option err '--frob' 'names the unknown option'
run missing_value "$SEAM" --conf "$tmp/mock.conf" chat --chain
expect_rc missing_value 2
# An -a URL whose type cannot be told is named without its password or query.
run attach_url_secret "$SEAM" --conf "$tmp/mock.conf" chat -a 'https://u:pw-SECRET-1@example.com/x?token=TOK-SECRET-2' hi
expect_rc attach_url_secret 2 && expect_grep attach_url_secret err 'https://example.com/x' 'names the URL' \
    && expect_no_grep attach_url_secret err 'SECRET' 'without its password or query'
# --provider alone: the provider's default_model (issue 14), else the
# library's bad_request error naming the provider.
run provider_without_model "$SEAM" --conf "$tmp/mock.conf" chat --provider mock hello
expect_rc provider_without_model 1
expect_grep provider_without_model err 'no model given for provider "mock"' 'says no model was given'
cat >"$tmp/default-model.conf" <<EOF
plugin_path = [ "$PLUGINS" ];
providers = { mock = { plugin = "mock"; default_model = "mock-default"; }; };
EOF
run provider_default_model "$SEAM" --conf "$tmp/default-model.conf" chat --no-stream --json --provider mock hello
expect_rc provider_default_model 0
expect_json_field provider_default_model 'o["model"]' mock-default
run chain_and_provider "$SEAM" --conf "$tmp/mock.conf" chat --chain default --provider mock --model m hello
expect_rc chain_and_provider 2

# ---- plugins and providers ------------------------------------------------------------
run plugins "$SEAM" --conf "$tmp/mock.conf" plugins
expect_rc plugins 0 && expect_grep plugins out 'mock\.so .*abi 1\.[0-9]*  providers: mock  loaded' 'lists the mock, loaded'

run providers "$SEAM" --conf "$tmp/mock.conf" providers
expect_rc providers 0
expect_grep providers out '^  mock: plugin mock (loaded)' 'lists the configured provider'
expect_grep providers out '^  default (role assistant):' 'lists the chain and its role'
expect_grep providers out '^    1\. mock mock-1 (max_attempts 1)' 'lists the chain entry'

# ---- chat through the mock --------------------------------------------------------------
run chat "$SEAM" --conf "$tmp/mock.conf" chat 'Say hello'
expect_rc chat 0
expect_grep chat out "$MOCK_TEXT" 'streams the answer to stdout'
expect_grep chat err '^tokens: in 12 out 7' 'usage line on stderr'
expect_grep chat err 'provider: mock  model: mock-1' 'usage line names provider and model'
expect_no_grep chat out 'tokens:' 'no usage line on stdout'

# The prompt from stdin; --conf after the subcommand.
echo "Say hello" >"$tmp/prompt.txt"
run_stdin=$tmp/prompt.txt run chat_stdin "$SEAM" chat --conf "$tmp/mock.conf"
expect_rc chat_stdin 0 && expect_grep chat_stdin out "$MOCK_TEXT" 'reads the prompt from stdin'
printf '\n' >"$tmp/blank.txt"
run_stdin=$tmp/blank.txt run chat_empty "$SEAM" chat --conf "$tmp/mock.conf"
expect_rc chat_empty 2 && expect_grep chat_empty err 'empty prompt' 'refuses an empty prompt'
run_stdin= # (an assignment before a function call may outlive it)
# --name=value spellings and a system prompt.
run chat_equals "$SEAM" --conf="$tmp/mock.conf" chat --chain=default --system='Be brief.' -- 'Say hello'
expect_rc chat_equals 0 && expect_grep chat_equals out "$MOCK_TEXT" 'accepts --name=value and --'

run chat_json "$SEAM" --conf "$tmp/mock.conf" chat --json 'Say hello'
expect_rc chat_json 0 && check_json chat_json success "$MOCK_TEXT"
expect_json_field chat_json 'o["provider"]' mock
expect_json_field chat_json 'o["model"]' mock-1
expect_json_field chat_json 'o["usage"].get("input_tokens")' 12
expect_json_field chat_json 'o["usage"].get("output_tokens")' 7
# Counts the mock did not report are absent, never 0.
expect_json_field chat_json '"cache_read_tokens" in o["usage"] or "cost_microcents" in o["usage"]' False
checks=$((checks + 1))
if [ "$(grep -c '"type":"text_delta"' "$tmp/chat_json.out")" -ge 2 ]; then
    ok "chat_json: the answer arrives in several text_delta lines"
else
    fail "chat_json: expected several text_delta lines"
fi
expect_no_grep chat_json err 'tokens:' 'no usage line on stderr in --json mode'

run chat_provider "$SEAM" --conf "$tmp/mock.conf" chat --json --provider mock --model other-model 'Say hello'
expect_rc chat_provider 0 && expect_json_field chat_provider 'o["model"]' other-model

# Reasoning, a signature, a tool call and cache usage through the --json contract.
run thinker_json "$SEAM" --conf "$tmp/mock.conf" chat --json --chain thinker 'Weather in Oslo?'
expect_rc thinker_json 0 && check_json thinker_json success 'Let me look.'
expect_grep thinker_json out '"type":"reasoning_start","id":' 'reasoning_start line'
expect_grep thinker_json out '"type":"reasoning_delta","id":[^,]*,"text":"' 'reasoning_delta lines'
expect_grep thinker_json out '"type":"reasoning_end","id":[^,]*,"signature":"sig-123"}' 'reasoning_end with its signature'
expect_grep thinker_json out '"type":"tool_call_end","id":"call_7","args":{"city":"Oslo"}}' 'tool_call_end with parsed args'
expect_grep thinker_json out '"type":"stop","stop_reason":"tool_use","usage":{' 'stop line'
expect_json_field thinker_json 'sorted(p["type"] for p in o["content"])' "['reasoning', 'text', 'tool_call']"
expect_json_field thinker_json '[p for p in o["content"] if p["type"] != "text"]' \
    "[{'type': 'reasoning', 'text': 'The user wants the weather.', 'signature': 'sig-123'}, {'type': 'tool_call', 'id': 'call_7', 'name': 'get_weather', 'args': {'city': 'Oslo'}}]"
expect_json_field thinker_json 'o["stop_reason"]' tool_use
expect_json_field thinker_json 'sorted(o["usage"].items())' \
    "[('cache_read_tokens', 10), ('input_tokens', 30), ('output_tokens', 20), ('reasoning_tokens', 6)]"
run thinker "$SEAM" --conf "$tmp/mock.conf" chat --chain thinker 'Weather in Oslo?'
expect_rc thinker 0
expect_grep thinker out '^Let me look\.$' 'prints the text'
expect_no_grep thinker out 'The user wants' 'keeps reasoning out of the answer'
expect_grep thinker err 'tool call get_weather {"city": *"Oslo"}' 'notes the tool call on stderr'
expect_grep thinker err '^tokens: in 30 (cache read 10) out 20 (reasoning 6)  provider: thinker  model: mock-think$' 'the full usage line'

# A failover, visible with -v on stderr and as "attempts" in the --json result.
run fallback_v "$SEAM" --conf "$tmp/mock.conf" chat -v --chain fallback 'Say hello'
expect_rc fallback_v 0 && expect_grep fallback_v out "$MOCK_TEXT" 'the last entry answers'
expect_grep fallback_v err '^seam: chain fallback: attempt 1 failing mock-1: failed: overloaded (HTTP 503): .*; retrying in 10 ms$' '-v: the first attempt, its error and the wait'
expect_grep fallback_v err '^seam: chain fallback: attempt 2 failing mock-1: failed: overloaded' '-v: the second attempt'
expect_grep fallback_v err '^seam: chain fallback: attempt 1 mock mock-1: succeeded \[in 12 out 7 cost unknown\]$' '-v: the answering attempt with its usage'
# On a terminal stdout and stderr meet: the succeeded note must start its own
# line, not run on from the answer's last line.
checks=$((checks + 1))
if "$SEAM" --conf "$tmp/mock.conf" chat -v --chain fallback 'Say hello' >"$tmp/merged.out" 2>&1 \
    && grep -q '^seam: chain fallback: attempt 1 mock mock-1: succeeded' "$tmp/merged.out"; then
    ok "fallback_v: with stdout and stderr merged, the note starts its own line"
else
    fail "fallback_v: with stdout and stderr merged, the note runs on from the text"
    cat "$tmp/merged.out" >&2
fi
run fallback_json "$SEAM" --conf "$tmp/mock.conf" chat --json --chain fallback 'Say hello'
expect_rc fallback_json 0 && check_json fallback_json success "$MOCK_TEXT"
expect_json_field fallback_json '[(a["provider"], a["outcome"], a.get("wait_ms"), a.get("error", {}).get("kind")) for a in o["attempts"]]' \
    "[('failing', 'failed', 10, 'overloaded'), ('failing', 'failed', None, 'overloaded'), ('mock', 'succeeded', None, None)]"
# The stream opens with one stream_start naming the entry that answered, not
# the ones that failed before it (issue 14, item 5).
checks=$((checks + 1))
if [ "$(head -n 1 "$tmp/fallback_json.out")" = '{"type":"stream_start","provider":"mock","model":"mock-1","response_id":null}' ] &&
    [ "$(grep -c '"type":"stream_start"' "$tmp/fallback_json.out")" -eq 1 ]; then
    ok "fallback_json: one stream_start first, naming the answering entry"
else
    fail "fallback_json: expected one stream_start line first, naming mock/mock-1"
fi

# A provider error: exit 1, and in --json the error line.
run failing "$SEAM" --conf "$tmp/mock.conf" chat --chain failing 'Hi'
expect_rc failing 1 && expect_grep failing err 'failing: .*overloaded.*HTTP 503' 'names provider, kind and status'
run failing_json "$SEAM" --conf "$tmp/mock.conf" chat --json --chain failing 'Hi'
expect_rc failing_json 1 && check_json failing_json error overloaded 503
expect_json_field failing_json 'o["error"]["provider"] + " " + str(o["error"]["retryable"])' 'failing True'
run failing_no_stream "$SEAM" --conf "$tmp/mock.conf" chat --json --no-stream --chain failing 'Hi'
expect_rc failing_no_stream 1 && check_json failing_no_stream error overloaded 503

run no_stream "$SEAM" --conf "$tmp/mock.conf" chat --no-stream 'Say hello'
expect_rc no_stream 0
expect_grep no_stream out "$MOCK_TEXT" 'prints the whole answer'
run no_stream_json "$SEAM" --conf "$tmp/mock.conf" chat --no-stream --json 'Say hello'
expect_rc no_stream_json 0 && check_json no_stream_json result-only "$MOCK_TEXT"

run unknown_chain "$SEAM" --conf "$tmp/mock.conf" chat --chain nosuch 'Say hello'
expect_rc unknown_chain 2

# ---- chat --tools: the conf's command tools in the tool loop ----------------------------
# The mock calls `add` and `fail` in its first turn and answers in its second
# (its replies are picked by the number of assistant messages in the request).
cat >"$tmp/add.py" <<'EOF'
import json, os, sys
args = json.load(sys.stdin)
open(os.environ["SEAM_TEST_ADD_MARKER"], "a").write(json.dumps(args) + "\n")
print(args["a"] + args["b"])
EOF
SEAM_TEST_ADD_MARKER=$tmp/add.ran
export SEAM_TEST_ADD_MARKER
{ echo "plugin_path = [ \"$PLUGINS\" ];"
  sed "s|@ADD_COMMAND@|python3 '$tmp/add.py'|" "$top_srcdir/tests/conf/tools.conf"; } >"$tmp/tools.conf"
run tools_check "$SEAM" config check "$tmp/tools.conf"
expect_rc tools_check 0

rm -f "$SEAM_TEST_ADD_MARKER"
run tools_text "$SEAM" --conf "$tmp/tools.conf" chat --tools add,fail 'What is 2+3?'
expect_rc tools_text 0
expect_grep tools_text out '^Let me compute\.$' 'the first turn'"'"'s text'
expect_grep tools_text out '^The sum is 5\.$' 'the final answer'
expect_grep tools_text err '^seam: tool call add {"a": *2, *"b": *3}$' 'notes the add call'
expect_grep tools_text err '^seam: tool call fail {"why": *"test"}$' 'notes the fail call'
expect_grep tools_text err '^seam: tool result add: 5$' 'notes the add result'
expect_grep tools_text err '^seam: tool result fail: error: command exited with status 3: disk on fire$' 'the failing tool is an error result with its stderr'
expect_no_grep tools_text err '^disk on fire' 'the stderr of a tool shows only with -v'
expect_grep tools_text err '^tokens: in 20 out 10  provider: toolmock  model: mock-1$' 'usage summed over both turns'
checks=$((checks + 1))
if [ "$(cat "$SEAM_TEST_ADD_MARKER" 2>/dev/null)" = '{"a": 2, "b": 3}' ]; then
    ok "tools_text: add ran once, with its arguments on stdin"
else
    fail "tools_text: add did not run once with {\"a\": 2, \"b\": 3}: $(cat "$SEAM_TEST_ADD_MARKER" 2>&1)"
fi

run tools_json "$SEAM" --conf "$tmp/tools.conf" chat --json --tools add --tools fail 'What is 2+3?'
expect_rc tools_json 0 && check_json tools_json tools 'The sum is 5.'
expect_grep tools_json out '^{"type":"tool_result","id":"c1","name":"add","result":5,"is_error":false}$' 'a tool_result line for add'
expect_grep tools_json out '^{"type":"tool_result","id":"c2","name":"fail","result":"command exited with status 3: disk on fire","is_error":true}$' 'a tool_result line for the failing tool'
expect_grep tools_json out '^{"type":"step_finish","step":0,"stop_reason":"tool_use","usage":{' 'a step_finish line between the steps'
expect_json_field tools_json 'len(o["steps"])' 2
expect_json_field tools_json '[(c["id"], c["name"], c["args"]) for c in o["steps"][0]["tool_calls"]]' \
    "[('c1', 'add', {'a': 2, 'b': 3}), ('c2', 'fail', {'why': 'test'})]"
expect_json_field tools_json '[(r["id"], r["result"], r["is_error"]) for r in o["steps"][0]["tool_results"]]' \
    "[('c1', 5, False), ('c2', 'command exited with status 3: disk on fire', True)]"
expect_json_field tools_json '(o["steps"][1]["tool_calls"], o["steps"][1]["tool_results"], o["steps"][1]["usage"])' \
    "([], [], {'input_tokens': 10, 'output_tokens': 5})"
expect_json_field tools_json '(o["usage"], o["stop_reason"], len(o["attempts"]))' \
    "({'input_tokens': 20, 'output_tokens': 10}, 'stop', 2)"

run tools_no_stream "$SEAM" --conf "$tmp/tools.conf" chat --no-stream --tools add,fail 'What is 2+3?'
expect_rc tools_no_stream 0
expect_grep tools_no_stream out '^The sum is 5\.$' 'the final answer'
expect_grep tools_no_stream err '^seam: tool result add: 5$' 'notes the add result'
expect_grep tools_no_stream err '^seam: tool result fail: error: ' 'notes the error result'
run tools_no_stream_json "$SEAM" --conf "$tmp/tools.conf" chat --no-stream --json --tools add,fail 'What is 2+3?'
expect_rc tools_no_stream_json 0 && check_json tools_no_stream_json tools-result-only 'The sum is 5.'
expect_json_field tools_no_stream_json '[(r["name"], r["result"], r["is_error"]) for r in o["steps"][0]["tool_results"]]' \
    "[('add', 5, False), ('fail', 'command exited with status 3: disk on fire', True)]"

run tools_verbose "$SEAM" --conf "$tmp/tools.conf" chat -v --tools add,fail 'What is 2+3?'
expect_rc tools_verbose 0 && expect_grep tools_verbose err '^disk on fire$' '-v: the tool'"'"'s stderr passes through'

# Arguments that do not match the tool's schema: an error result, the command not run.
rm -f "$SEAM_TEST_ADD_MARKER"
run tools_badargs "$SEAM" --conf "$tmp/tools.conf" chat --chain badargs --tools add 'Add two and three'
expect_rc tools_badargs 0 && expect_grep tools_badargs out '^Bad arguments handled\.$' 'the model answers after the error result'
expect_grep tools_badargs err '^seam: tool result add: error: Invalid arguments for tool add: ' 'an error result naming the tool'
checks=$((checks + 1))
if [ -e "$SEAM_TEST_ADD_MARKER" ]; then fail "tools_badargs: add ran with invalid arguments"; else ok "tools_badargs: add was not run"; fi
run tools_badargs_json "$SEAM" --conf "$tmp/tools.conf" chat --json --chain badargs --tools add 'Add two and three'
expect_rc tools_badargs_json 0 && check_json tools_badargs_json tools 'Bad arguments handled.'
expect_json_field tools_badargs_json '(o["steps"][0]["tool_results"][0]["is_error"], o["steps"][0]["tool_results"][0]["result"].startswith("Invalid arguments for tool add: /a"))' \
    "(True, True)"

# A command past its timeout_ms is stopped (with what it started) and is an error result.
start=$(date +%s)
run tools_timeout "$SEAM" --conf "$tmp/tools.conf" chat --chain slow --tools slow 'Wait'
elapsed=$(($(date +%s) - start))
expect_rc tools_timeout 0 && expect_grep tools_timeout out '^Gave up waiting\.$' 'the run goes on'
expect_grep tools_timeout err '^seam: tool result slow: error: command timed out after 300 ms: still working$' 'a timeout error result with the stderr tail'
checks=$((checks + 1))
if [ "$elapsed" -lt 10 ]; then ok "tools_timeout: stopped after its timeout (${elapsed}s)"; else fail "tools_timeout: took ${elapsed}s"; fi

# --max-tool-rounds 0: the calls come back unexecuted.
rm -f "$SEAM_TEST_ADD_MARKER"
run tools_rounds0 "$SEAM" --conf "$tmp/tools.conf" chat --json --max-tool-rounds 0 --tools add,fail 'What is 2+3?'
expect_rc tools_rounds0 0 && check_json tools_rounds0 tools 'Let me compute.'
expect_json_field tools_rounds0 '(o["stop_reason"], len(o["steps"]), o["steps"][0]["tool_results"], [p["name"] for p in o["content"] if p["type"] == "tool_call"])' \
    "('tool_use', 1, [], ['add', 'fail'])"
expect_no_grep tools_rounds0 out '"type":"tool_result"' 'no tool ran'
run tools_rounds0_text "$SEAM" --conf "$tmp/tools.conf" chat --max-tool-rounds 0 --tools add,fail 'What is 2+3?'
expect_rc tools_rounds0_text 0 && expect_grep tools_rounds0_text err '^seam: 2 tool calls not run (--max-tool-rounds 0)$' 'says the calls were not run'
checks=$((checks + 1))
if [ -e "$SEAM_TEST_ADD_MARKER" ]; then fail "tools_rounds0: add ran"; else ok "tools_rounds0: add was not run"; fi

# Usage errors: exit 2, naming what is wrong.
run tools_unknown "$SEAM" --conf "$tmp/tools.conf" chat --tools add,nope 'Hi'
expect_rc tools_unknown 2 && expect_grep tools_unknown err "unknown tool 'nope' (the conf defines: add, fail, slow)" 'names the unknown tool and the defined ones'
run tools_unknown_json "$SEAM" --conf "$tmp/tools.conf" chat --json --tools nope 'Hi'
expect_rc tools_unknown_json 2 && check_json tools_unknown_json error conf null
run tools_unknown_none "$SEAM" --conf "$tmp/mock.conf" chat --tools add 'Hi'
expect_rc tools_unknown_none 2 && expect_grep tools_unknown_none err "unknown tool 'add' (the conf defines no tools)" 'a conf without tools'
run tools_bad_rounds "$SEAM" --conf "$tmp/tools.conf" chat --tools add --max-tool-rounds -1 'Hi'
expect_rc tools_bad_rounds 2 && expect_grep tools_bad_rounds err 'max-tool-rounds' 'names the option'
run tools_rounds_alone "$SEAM" --conf "$tmp/tools.conf" chat --max-tool-rounds 2 'Hi'
expect_rc tools_rounds_alone 2 && expect_grep tools_rounds_alone err 'needs --tools' 'needs --tools'
run tools_empty "$SEAM" --conf "$tmp/tools.conf" chat --tools , 'Hi'
expect_rc tools_empty 2

# A broken tool in the conf: FILE:LINE.
printf 'tools = {\n  t = { description = "d"; command = "true";\n    parameters = "[1]"; };\n};\n' >"$tmp/badtool.conf"
run tools_badconf "$SEAM" config check "$tmp/badtool.conf"
expect_rc tools_badconf 2 && expect_grep tools_badconf err 'badtool.conf:3: tools.t.parameters must be a JSON Schema object' 'names file:line of the schema'
# A pattern PCRE2 refuses: config check and chat refuse the conf, FILE:LINE
# (issue 11.2: this unclosed "[" was read past its end and config check said ok).
printf 'tools = {\n  t = { description = "d"; command = "true";\n    parameters = "{\\"properties\\": {\\"q\\": {\\"pattern\\": \\"[abcdefghijklmnopqrstuvwxyz0123456789\\"}}}"; };\n};\n' >"$tmp/badpattern.conf"
run tools_badpattern "$SEAM" config check "$tmp/badpattern.conf"
expect_rc tools_badpattern 2 && expect_grep tools_badpattern err 'badpattern.conf:3: tools.t.parameters: invalid schema: pattern "\[abc.*" at offset 37: missing terminating \]' 'names file:line, pattern and offset'
run tools_badpattern_chat "$SEAM" --conf "$tmp/badpattern.conf" chat --tools t 'Hi'
expect_rc tools_badpattern_chat 2 && expect_grep tools_badpattern_chat err 'badpattern.conf:3:' 'chat refuses it too'

# ---- HTTP through the fake provider and the openai plugin ---------------------------------
if [ -e "$PLUGINS/openai.so" ]; then
    cat >"$tmp/stream.sse" <<'EOF'
{"id":"c1","object":"chat.completion.chunk","model":"fake-model","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}
{"id":"c1","object":"chat.completion.chunk","model":"fake-model","choices":[{"index":0,"delta":{"content":", wire \"world\"\n"},"finish_reason":null}]}
{"id":"c1","object":"chat.completion.chunk","model":"fake-model","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}
{"id":"c1","object":"chat.completion.chunk","model":"fake-model","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}]}
{"id":"c1","object":"chat.completion.chunk","model":"fake-model","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":null}]}
{"id":"c1","object":"chat.completion.chunk","model":"fake-model","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}
{"id":"c1","object":"chat.completion.chunk","model":"fake-model","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":5},"completion_tokens_details":{"reasoning_tokens":2}}}
EOF
    tl_start_fake stream --sse-file "$tmp/stream.sse" --family openai --split 7
    stream_port=$port
    tl_start_fake denied --status 401 --json-body "{\"error\":{\"message\":\"Incorrect API key provided: $SECRET_INLINE\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\",\"debug_marker\":\"zq-raw-only-77\"}}" --header 'X-Debug-Marker: zq-raw-header-77'
    denied_port=$port
    tl_start_fake limited --status 429 --header 'Retry-After: 1' --json-body '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}'
    limited_port=$port
    # Slow: one 40-byte piece every 100 ms, for the interrupt test.
    yes '{"choices":[{"index":0,"delta":{"content":"tick "},"finish_reason":null}]}' | head -n 100 >"$tmp/slow.sse"
    tl_start_fake slow --sse-file "$tmp/slow.sse" --family openai --split 40 --delay 100
    slow_port=$port
    tl_start_fake whole --status 200 --json-body '{"id":"c2","object":"chat.completion","model":"fake-model","choices":[{"index":0,"message":{"role":"assistant","content":"Whole answer."},"finish_reason":"stop"}],"usage":{"prompt_tokens":4,"completion_tokens":3,"total_tokens":7}}'
    whole_port=$port

    cat >"$tmp/http.conf" <<EOF
plugin_path = [ "$PLUGINS" ];
providers = {
  fake = { plugin = "openai"; base_url = "http://127.0.0.1:$stream_port/v1";
           api_key = "$SECRET_INLINE"; };
  denied = { plugin = "openai"; base_url = "http://127.0.0.1:$denied_port/v1";
             api_key = "$SECRET_INLINE"; };
  limited = { plugin = "openai"; base_url = "http://127.0.0.1:$limited_port/v1";
              api_key_env = "SEAM_TEST_FAKE_KEY"; };
  slow = { plugin = "openai"; base_url = "http://127.0.0.1:$slow_port/v1";
           api_key_env = "SEAM_TEST_FAKE_KEY"; };
  whole = { plugin = "openai"; base_url = "http://127.0.0.1:$whole_port/v1";
            api_key = "$SECRET_INLINE"; };
};
chains = {
  default = ( { provider = "fake"; model = "fake-model"; max_attempts = 1; } );
  denied = ( { provider = "denied"; model = "fake-model"; max_attempts = 1; } );
  limited = ( { provider = "limited"; model = "fake-model"; max_attempts = 1; } );
  slow = ( { provider = "slow"; model = "fake-model"; max_attempts = 1; } );
  whole = ( { provider = "whole"; model = "fake-model"; max_attempts = 1; } );
};
EOF
    wire_text='Hello, wire "world"
'
    run http_chat "$SEAM" --conf "$tmp/http.conf" chat 'Weather?'
    expect_rc http_chat 0
    expect_grep http_chat out 'Hello, wire "world"' 'streams the text from the wire'
    expect_grep http_chat err 'tool call get_weather {"city": *"Paris"}' 'notes the tool call on stderr'
    expect_grep http_chat err '^tokens: in 15 (cache read 5) out 9 (reasoning 2)' 'usage line with cache and reasoning'

    run http_json "$SEAM" --conf "$tmp/http.conf" chat --json 'Weather?'
    expect_rc http_json 0 && check_json http_json success "$wire_text"
    expect_json_field http_json 'o["stop_reason"]' tool_use
    expect_json_field http_json '[p for p in o["content"] if p["type"] == "tool_call"]' \
        "[{'type': 'tool_call', 'id': 'call_1', 'name': 'get_weather', 'args': {'city': 'Paris'}}]"
    expect_json_field http_json 'sorted(o["usage"].items())' \
        "[('cache_read_tokens', 5), ('input_tokens', 15), ('output_tokens', 9), ('reasoning_tokens', 2)]"
    expect_grep http_json out '"type":"tool_call_start","id":"call_1","name":"get_weather"' 'tool_call_start line'
    expect_grep http_json out '"type":"tool_call_delta","id":"call_1","args_delta":' 'tool_call_delta lines'
    expect_grep http_json out '"type":"tool_call_end","id":"call_1","args":{"city":"Paris"}' 'tool_call_end line'

    run http_no_stream "$SEAM" --conf "$tmp/http.conf" chat --no-stream --chain whole 'Hi'
    expect_rc http_no_stream 0 && expect_grep http_no_stream out '^Whole answer\.$' 'prints the whole answer'
    expect_grep http_no_stream err '^tokens: in 4 out 3 ' 'usage line after a blocking call'
    run http_no_stream_json "$SEAM" --conf "$tmp/http.conf" chat --no-stream --json --chain whole 'Hi'
    expect_rc http_no_stream_json 0 && check_json http_no_stream_json result-only 'Whole answer.'
    expect_json_field http_no_stream_json 'o["provider"] + " " + o["model"] + " " + o["stop_reason"]' 'whole fake-model stop'
    run http_denied "$SEAM" --conf "$tmp/http.conf" chat --chain denied 'Hi'
    expect_rc http_denied 1 && expect_grep http_denied err 'auth' 'names the error kind'
    run http_denied_json "$SEAM" --conf "$tmp/http.conf" chat --json --chain denied 'Hi'
    expect_rc http_denied_json 1 && check_json http_denied_json error auth 401
    expect_json_field http_denied_json 'o["error"]["provider"]' denied
    expect_json_field http_denied_json 'o["error"]["retryable"]' False
    expect_json_field http_denied_json 'o["error"].get("code")' invalid_api_key
    # The error names the adapter beside the conf provider; the raw answer (a
    # body field and a header no classifier reads) is never serialized.
    expect_json_field http_denied_json 'o["error"]["plugin"]' openai
    expect_no_grep http_denied_json out 'zq-raw' 'the raw body and headers stay out of --json'
    expect_no_grep http_denied_json err 'zq-raw' 'the raw body and headers stay off stderr'
    run http_limited_json "$SEAM" --conf "$tmp/http.conf" chat --json --chain limited 'Hi'
    expect_rc http_limited_json 1 && check_json http_limited_json error rate_limit 429
    expect_json_field http_limited_json 'o["error"]["retryable"]' True
    run http_single "$SEAM" --conf "$tmp/http.conf" chat --json --provider denied --model x 'Hi'
    expect_rc http_single 1 && check_json http_single error auth 401

    run http_providers "$SEAM" --conf "$tmp/http.conf" providers
    expect_rc http_providers 0
    expect_grep http_providers out '^  fake: plugin openai (loaded), base_url http://127.0.0.1:' 'shows plugin and base_url'
    expect_grep http_providers out 'credential env SEAM_TEST_FAKE_KEY (set)' 'shows where the credential comes from'
    run http_check "$SEAM" config check "$tmp/http.conf"
    expect_rc http_check 0

    # Ctrl-C: what arrived stays printed, exit 130; --json ends with a cancelled error.
    for mode in text json; do
        name=interrupt_$mode
        flag=
        [ $mode = json ] && flag=--json
        "$SEAM" --conf "$tmp/http.conf" chat $flag --chain slow 'Count' \
            >"$tmp/$name.out" 2>"$tmp/$name.err" &
        seam_pid=$!
        i=0
        while ! grep -q tick "$tmp/$name.out" 2>/dev/null && [ $i -lt 200 ]; do
            sleep 0.05
            i=$((i + 1))
        done
        kill -INT $seam_pid
        wait $seam_pid
        rc=$?
        cat "$tmp/$name.out" "$tmp/$name.err" >>"$tmp/all.log"
        expect_rc $name 130 && expect_grep $name out tick 'keeps what arrived'
    done
    check_json interrupt_json error cancelled null
else
    echo "skip: the openai plugin is not built; HTTP checks skipped"
fi

# ---- a broken conf, config check ---------------------------------------------------------
printf 'providers = {\n  mock = { plugin = "mock"; };\n  oops\n};\n' >"$tmp/broken.conf"
run broken "$SEAM" --conf "$tmp/broken.conf" chat 'hello'
expect_rc broken 2 && expect_grep broken err "broken.conf:[0-9]" 'names file:line'
run broken_json "$SEAM" --conf "$tmp/broken.conf" chat --json 'hello'
expect_rc broken_json 2 && check_json broken_json error conf null
run broken_plugins "$SEAM" --conf "$tmp/broken.conf" plugins
expect_rc broken_plugins 2
printf 'chains = {\n  default = "not a list";\n};\n' >"$tmp/wrongtype.conf"
run wrongtype "$SEAM" config check "$tmp/wrongtype.conf"
expect_rc wrongtype 2 && expect_grep wrongtype err "wrongtype.conf:2" 'names file:line of a wrong type'
run check_bad "$SEAM" config check "$tmp/broken.conf"
expect_rc check_bad 2 && expect_grep check_bad err "broken.conf:[0-9]" 'config check names file:line'
run check_good "$SEAM" config check "$tmp/mock.conf"
expect_rc check_good 0 && expect_grep check_good out 'ok' 'config check says ok'
run check_global "$SEAM" --conf "$tmp/mock.conf" config check
expect_rc check_global 0
run check_missing "$SEAM" config check "$tmp/no-such.conf"
expect_rc check_missing 2
run check_default "$SEAM" config check "$top_srcdir/conf/seam.conf"
expect_rc check_default 0

# An inline api_key in a file others can read: config check warns on stderr.
cat >"$tmp/inline.conf" <<EOF
providers = { p = { plugin = "openai"; api_key = "$SECRET_INLINE"; }; };
EOF
chmod 644 "$tmp/inline.conf"
run check_inline "$SEAM" config check "$tmp/inline.conf"
expect_rc check_inline 0 && expect_grep check_inline err 'warning' 'warns about a readable inline key'

# Plain HTTP to another machine: config check and chat -v warn (the call
# itself runs: the mock answers in-process); loopback does not.
cat >"$tmp/plainhttp.conf" <<EOF
plugin_path = [ "$PLUGINS" ];
providers = {
  mock = { plugin = "mock"; options = { reply = "$MOCK_TEXT"; }; };
  lan = { plugin = "openai"; base_url = "http://10.1.2.3:8000/v1"; };
  here = { plugin = "openai"; base_url = "http://127.0.0.1:8000/v1"; };
};
chains = { default = ( { provider = "mock"; model = "m"; } ); };
EOF
run check_plainhttp "$SEAM" config check "$tmp/plainhttp.conf"
expect_rc check_plainhttp 0 && expect_grep check_plainhttp err 'plainhttp.conf:4: provider "lan" sends its requests and its API key over plain HTTP to 10.1.2.3' 'config check warns about plain HTTP to a remote host'
expect_no_grep check_plainhttp err '"here"' 'no warning for loopback'
run chat_v_plainhttp "$SEAM" --conf "$tmp/plainhttp.conf" chat -v 'Hi'
expect_rc chat_v_plainhttp 0 && expect_grep chat_v_plainhttp err 'warning: .*provider "lan" .*plain HTTP' 'chat -v warns about plain HTTP'
run chat_plainhttp "$SEAM" --conf "$tmp/plainhttp.conf" chat 'Hi'
expect_rc chat_plainhttp 0 && expect_no_grep chat_plainhttp err 'plain HTTP' 'without -v, no warning'

# Ctrl-C while api_key_command runs: the call ends at once (exit 130), and the
# command's process group with it (issue 11: it was ignored for up to 30 s).
cat >"$tmp/slowkey.conf" <<EOF
plugin_path = [ "$PLUGINS" ];
providers = { slow = { plugin = "openai"; base_url = "http://127.0.0.1:9/v1";
                       api_key_command = "echo \$\$ > $tmp/slowkey.pid; sleep 60"; }; };
chains = { default = ( { provider = "slow"; model = "m"; } ); };
EOF
"$SEAM" --conf "$tmp/slowkey.conf" chat 'Hi' >"$tmp/slowkey.out" 2>"$tmp/slowkey.err" </dev/null &
seam_pid=$!
i=0
while [ ! -s "$tmp/slowkey.pid" ] && [ $i -lt 200 ]; do
    sleep 0.05
    i=$((i + 1))
done
start=$(date +%s)
kill -INT $seam_pid
wait $seam_pid
rc=$?
took=$(($(date +%s) - start))
checks=$((checks + 1))
if [ $rc = 130 ] && [ $took -le 2 ]; then
    ok "slowkey: Ctrl-C during api_key_command ends the call at once (exit 130)"
else
    fail "slowkey: Ctrl-C during api_key_command: exit $rc after ${took}s"
    cat "$tmp/slowkey.err" >&2
fi
checks=$((checks + 1))
keypid=$(cat "$tmp/slowkey.pid" 2>/dev/null)
if [ -n "$keypid" ] && kill -0 "$keypid" 2>/dev/null &&
    ! grep -q '^State:.*Z' "/proc/$keypid/status" 2>/dev/null; then
    fail "slowkey: the key command (pid $keypid) still runs"
    kill "$keypid" 2>/dev/null
else
    ok "slowkey: the key command was ended"
fi

# ---- refused plugins -------------------------------------------------------------------------
printf 'chains = { };\n' >"$tmp/empty.conf"
mkdir "$priv/abi"
cp "$top_builddir/tests/plugins/.libs/badabi.so" "$priv/abi/" && chmod 755 "$priv/abi/badabi.so"
run badabi env SEAM_PLUGIN_PATH="$priv/abi" "$SEAM" --conf "$tmp/empty.conf" plugins
expect_rc badabi 0 && expect_grep badabi out 'badabi\.so .*refused: ' 'the wrong-ABI plugin is refused'
checks=$((checks + 1))
# The line shows the plugin's ABI, and the reason names it and this seam's ABI.
if python3 - "$tmp/badabi.out" <<'EOF'
import re, sys
for line in open(sys.argv[1]):
    if "badabi.so" in line:
        m = re.search(r"abi (\d+\.\d+) .*refused: (.*)", line)
        versions = set(re.findall(r"\d+\.\d+", m.group(2))) if m else set()
        sys.exit(0 if m and m.group(1) in versions and len(versions) >= 2 else 1)
sys.exit(1)
EOF
then
    ok "badabi: the refusal names both ABI versions"
else
    fail "badabi: the refusal does not name both ABI versions"
    cat "$tmp/badabi.out" >&2
fi

mkdir "$priv/unsafe"
cp "$PLUGINS/mock.so" "$priv/unsafe/" && chmod 755 "$priv/unsafe/mock.so"
chmod 775 "$priv/unsafe"
# Group-writable is unsafe unless the group's only member is the owner (a
# user-private group): as root, hand the dir to a shared group (nobody's);
# otherwise our own group may well be private, so make it world-writable.
if [ "$(id -u)" -eq 0 ]; then chgrp 65534 "$priv/unsafe"; else chmod 777 "$priv/unsafe"; fi
run unsafe env SEAM_PLUGIN_PATH="$priv/unsafe" "$SEAM" --conf "$tmp/empty.conf" plugins
expect_rc unsafe 0
expect_grep unsafe out "$priv/unsafe/mock\.so .*refused: .*writable" 'a dir others can write is refused as unsafe'

# Broken plugin files (cut after the headers, not ELF at all) beside the mock:
# a command that needs only the mock never opens them, and the listing names
# each with its true reason.
mkdir "$priv/broken"
cp "$PLUGINS/mock.so" "$priv/broken/"
head -c 8192 "$PLUGINS/openai.so" >"$priv/broken/trunc.so"
printf 'not a plugin\n' >"$priv/broken/junk.so"
run badfiles_chat env SEAM_PLUGIN_PATH="$priv/broken" "$SEAM" --conf "$top_srcdir/conf/seam.conf" \
    chat --provider mock --model mock hello
expect_rc badfiles_chat 0
checks=$((checks + 1))
if [ -s "$tmp/badfiles_chat.out" ]; then ok "badfiles_chat: the mock answers"; else fail "badfiles_chat: no answer"; fi
run badfiles_plugins env SEAM_PLUGIN_PATH="$priv/broken" "$SEAM" --conf "$tmp/empty.conf" plugins
expect_rc badfiles_plugins 0
expect_grep badfiles_plugins out "$priv/broken/trunc\.so .*refused: .*truncated ELF file" 'a truncated .so is refused as truncated'
expect_grep badfiles_plugins out "$priv/broken/junk\.so .*refused: .*not an ELF file" 'a non-ELF .so is refused as not ELF'
expect_grep badfiles_plugins out "$priv/broken/mock\.so .*loaded" 'the mock beside them loads'

# ---- the installed default conf, on a machine with no API key --------------------------------
run default_conf env SEAM_PLUGIN_PATH="$PLUGINS" "$SEAM" --conf "$top_srcdir/conf/seam.conf" chat 'hello'
expect_rc default_conf 0
expect_grep default_conf err 'provider: mock' 'the offline mock answers'
checks=$((checks + 1))
if [ -s "$tmp/default_conf.out" ]; then ok "default_conf: an answer on stdout"; else fail "default_conf: no answer"; fi
run default_json env SEAM_PLUGIN_PATH="$PLUGINS" "$SEAM" --conf "$top_srcdir/conf/seam.conf" chat --json 'hello'
expect_rc default_json 0 && expect_json_field default_json 'o["type"] + " " + o["provider"]' 'result mock'
run default_providers env SEAM_PLUGIN_PATH="$PLUGINS" "$SEAM" --conf "$top_srcdir/conf/seam.conf" providers
expect_rc default_providers 0
expect_grep default_providers out 'credential env OPENAI_API_KEY (not set)' 'a missing key shows as not set'
expect_grep default_providers out '^    5\. mock ' 'the mock is the last entry of the default chain'

# ---- no credential anywhere -------------------------------------------------------------------
checks=$((checks + 1))
if grep -q -e "$SECRET_INLINE" -e "$SECRET_ENV" "$tmp/all.log"; then
    fail "a credential appears in the output:"
    grep -e "$SECRET_INLINE" -e "$SECRET_ENV" "$tmp/all.log" >&2
else
    ok "no credential in any output"
fi

tl_finish ""
