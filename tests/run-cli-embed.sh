#!/bin/sh
# run-cli-embed.sh — end-to-end test of `seam tokens` and `seam embed`: text
# and --json output, stdin, options and their errors, chain skips shown by -v,
# exit codes, the shipped conf's embed chain, and, against the fake provider
# program, the real codecs' endpoints. Run by `make check` with top_builddir,
# top_srcdir and SEAM_TEST_PLUGIN_DIR set; exits 0 when every check passes.
set -u

. "$(dirname "$0")/testlib.sh"
tl_cli_setup cli-embed
SECRET=sk-seamtest-EMBED-4c2a9e7b1d3f5a68
# expect_lines NAME N: NAME printed N lines on stdout.
expect_lines() {
    check "$1" "$2 lines on stdout" test "$(wc -l <"$tmp/$1.out")" -eq "$2"
}
tl_conf "$tmp/mock.conf" "$PLUGINS" "$TESTPLUGINS" <<EOCONF
providers = {
  mock = { plugin = "mock"; };
  echo = { plugin = "testecho"; };
  broken = { plugin = "mock"; api_key = "$SECRET";
             options = { error_status = 400; error_body = "{\"error\":{\"type\":\"bad_request\",\"message\":\"too long\"}}"; }; };
};
chains = {
  default = ( { provider = "mock"; model = "mock-1"; } );
  embed = ( { provider = "echo"; model = "e"; }, { provider = "mock"; model = "mock-1"; },
            { provider = "mock"; model = "mock-embed"; } );
  bad = ( { provider = "broken"; model = "mock-embed"; } );
};
models = ( { id = "mock-embed"; provider = "mock"; price = { input = 2000000L; output = 0L; }; } );
EOCONF
chmod 600 "$tmp/mock.conf"
S="$SEAM --conf $tmp/mock.conf"

# ---- seam tokens ---------------------------------------------------------------------
run tokens $S tokens "five words are right here"
expect_rc tokens 0
expect_grep tokens out '^5$' 'the count on stdout'
expect_grep tokens err 'tokens: 5, counted by the provider  provider: mock  model: mock-1' 'stderr says it was counted'

run tokens_json $S tokens --json --provider mock --model mock-2 five words are right here
expect_rc tokens_json 0
expect_py tokens_json '(o["type"], o["input_tokens"], o["exact"], o["provider"], o["model"], "note" in o)' \
    "('tokens', 5, True, 'mock', 'mock-2', False)"

run_stdin=$tmp/prompt.txt
printf 'one two three\nfour\n' >"$run_stdin"
run tokens_stdin $S tokens --system "Be brief." -m mock-1
unset run_stdin
expect_rc tokens_stdin 0
expect_grep tokens_stdin out '^4$' 'the prompt read from stdin (the mock counts message words)'

run tokens_estimate $S tokens --json --provider echo --model e "Hello world"
expect_rc tokens_estimate 0
expect_py tokens_estimate '(o["input_tokens"], o["exact"], o["note"])' \
    "(9, False, 'plugin testecho has no token count endpoint')"
run tokens_estimate_text $S tokens --provider echo --model e "Hello world"
expect_grep tokens_estimate_text err 'tokens: about 9, estimated (plugin testecho has no token count endpoint)' 'stderr says it is an estimate'

run tokens_failing $S tokens -v --provider broken --model mock-1 "x"
expect_rc tokens_failing 0
expect_grep tokens_failing err 'attempt 1 broken mock-1: failed: bad_request (HTTP 400): too long' '-v shows the failed count'
expect_grep tokens_failing err 'estimated (the count endpoint failed: too long)' 'then the estimate, saying why'

run tokens_noprov $S tokens --provider mock "x"
expect_rc tokens_noprov 2
run tokens_nochain $S tokens --chain nosuch "x"
expect_rc tokens_nochain 2
expect_grep tokens_nochain err 'no chain "nosuch"' 'an unknown chain is named'
run tokens_badopt $S tokens --frobnicate
expect_rc tokens_badopt 2
run tokens_help $S tokens --help
expect_rc tokens_help 0
expect_grep tokens_help out 'Usage: seam' 'help'

# ---- seam embed ---------------------------------------------------------------------------
run embed $S embed -v "the same text" "another one" "the same text"
expect_rc embed 0
expect_lines embed 3
checks=$((checks + 1))
if [ "$(sed -n 1p "$tmp/embed.out")" = "$(sed -n 3p "$tmp/embed.out")" ] &&
   [ "$(sed -n 1p "$tmp/embed.out")" != "$(sed -n 2p "$tmp/embed.out")" ]; then
    ok "embed: one text, one vector"
else
    fail "embed: vectors do not follow their texts"
fi
expect_grep embed err 'skipped: bad_request: provider "echo" (plugin testecho) has no embeddings' '-v: a plugin without embeddings is skipped'
expect_grep embed err 'skipped: bad_request: model "mock-1" of provider "mock" is not an embedding model' '-v: a chat model is skipped'
expect_grep embed err 'embeddings: 3 x 16  tokens: in 8  cost: \$0.00000016  provider: mock  model: mock-embed' 'the usage line, priced'
expect_py embed 'len(o)' '16'

run embed_json $S embed --json --dimensions 4 "a b" "c"
expect_rc embed_json 0
expect_lines embed_json 1
expect_py embed_json '(o["type"], o["provider"], o["model"], o["dimensions"], [d["index"] for d in o["data"]], [len(d["embedding"]) for d in o["data"]], o["usage"])' \
    "('embeddings', 'mock', 'mock-embed', 4, [0, 1], [4, 4], {'input_tokens': 3, 'cost_microcents': 6})"

printf 'first line\n\nsecond line\n' >"$tmp/lines.txt"
run_stdin=$tmp/lines.txt
run embed_stdin $S embed --provider mock --model mock-embed
unset run_stdin
expect_rc embed_stdin 0
expect_lines embed_stdin 2

run embed_error $S embed --json --chain bad "x"
expect_rc embed_error 1
expect_py embed_error '(o["type"], o["error"]["kind"], o["error"]["status"], o["error"]["message"])' \
    "('error', 'bad_request', 400, 'too long')"
run embed_error_text $S embed --chain bad "x"
expect_rc embed_error_text 1
expect_grep embed_error_text err 'seam: broken: too long \[bad_request, HTTP 400' 'the error on stderr'

run embed_badchat $S embed --provider mock --model mock-1 "x"
expect_rc embed_badchat 1
expect_grep embed_badchat err 'not an embedding model' 'a chat model named on the command line is refused'
run embed_dims $S embed --dimensions 0 "x"
expect_rc embed_dims 2
run embed_nothing $S embed
expect_rc embed_nothing 2
expect_grep embed_nothing err 'nothing to embed' 'no input'
tl_default_mock_conf "$tmp/nochain.conf"
run embed_nochain "$SEAM" --conf "$tmp/nochain.conf" embed "x"
expect_rc embed_nochain 2
expect_grep embed_nochain err 'no chain "embed" for embeddings' 'no embedding chain is a conf error'

# ---- the real codecs, against the fake provider ---------------------------------------------
if [ -f "$PLUGINS/gemini.so" ] && [ -f "$PLUGINS/anthropic.so" ]; then
    tl_start_fake gemini_embed --status 200 --json-body '{"embeddings":[{"values":[0.5,-0.25]},{"values":[1,0]}]}'
    gport=$port
    tl_start_fake anthropic_count --status 200 --json-body '{"input_tokens":17}'
    aport=$port
    tl_conf "$tmp/wire.conf" "$PLUGINS" <<EOCONF
providers = {
  gm = { plugin = "gemini"; base_url = "http://127.0.0.1:$gport/v1beta"; api_key = "$SECRET"; };
  an = { plugin = "anthropic"; base_url = "http://127.0.0.1:$aport/v1"; api_key = "$SECRET"; };
};
chains = { default = ( { provider = "an"; model = "claude-sonnet-4-5"; } );
           embed = ( { provider = "an"; model = "claude-sonnet-4-5"; },
                     { provider = "gm"; model = "gemini-embedding-001"; } ); };
EOCONF
    run wire_embed "$SEAM" --conf "$tmp/wire.conf" embed --json -v "one" "two"
    expect_rc wire_embed 0
    expect_py wire_embed '(o["provider"], o["model"], o["dimensions"], [d["embedding"] for d in o["data"]])' \
        "('gm', 'gemini-embedding-001', 2, [[0.5, -0.25], [1, 0]])"
    expect_grep wire_embed err 'attempt 1 an claude-sonnet-4-5: skipped: bad_request: provider "an" (plugin anthropic) has no embeddings' 'anthropic is skipped for embeddings'
    run wire_tokens "$SEAM" --conf "$tmp/wire.conf" tokens --json "How many?"
    expect_rc wire_tokens 0
    expect_py wire_tokens '(o["input_tokens"], o["exact"], o["provider"])' "(17, True, 'an')"
else
    echo "the gemini or anthropic plugin is not built: their CLI checks are skipped"
fi

# ---- the shipped conf, with no API key: the mock ends the embed chain -------------------------
run default_embed env SEAM_PLUGIN_PATH="$PLUGINS" "$SEAM" --conf "$top_srcdir/conf/seam.conf" embed "hello"
expect_rc default_embed 0
expect_grep default_embed err 'provider: mock  model: mock-embed' 'the offline mock embeds'
run default_tokens env SEAM_PLUGIN_PATH="$PLUGINS" "$SEAM" --conf "$top_srcdir/conf/seam.conf" tokens "hello there"
expect_rc default_tokens 0

# ---- no credential anywhere -------------------------------------------------------------------
expect_nowhere "no credential in any output" "$SECRET" "$tmp/all.log"

tl_finish run-cli-embed.sh
