#!/bin/sh
# run-cli-audio.sh — end-to-end test of audio in the `seam` command (issue
# 13): `seam transcribe` (text and --json output, chain skips shown by -v,
# the type sniffed, exit codes) offline through the mock and against the fake
# provider speaking OpenAI's /audio/transcriptions; and `seam chat --output
# text+audio` against a streamed OpenAI audio answer: the transcript shown,
# the audio stored under the sha256 of its bytes (seam media path finds it),
# and no base64 and no credential in any output. Run by `make check` with
# top_builddir, top_srcdir and SEAM_TEST_PLUGIN_DIR set; exits 0 when every
# check passes.
set -u

. "$(dirname "$0")/testlib.sh"
tl_cli_setup cli-audio
SECRET=sk-seamtest-AUDIO-7e1b3c5d9f2a4b68

# A WAV of 1 s: 16 kHz, 16-bit mono.
python3 - "$tmp/speech.wav" <<'EOPY'
import struct, sys
data = bytes((i * 7) & 0xff for i in range(32000))
hdr = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, 16000, 32000, 2, 16) + b"data" + struct.pack("<I", len(data))
open(sys.argv[1], "wb").write(hdr + data)
EOPY
printf 'not audio at all' >"$tmp/notes.txt"

cat >"$tmp/mock.conf" <<EOCONF
plugin_path = [ "$PLUGINS", "$TESTPLUGINS" ];
model_catalog = "";
providers = {
  mock = { plugin = "mock"; };
  echo = { plugin = "testecho"; };
  said = { plugin = "mock"; options = { transcript = "hello from the mock"; }; };
};
chains = {
  default = ( { provider = "mock"; model = "mock-1"; } );
  transcribe = ( { provider = "echo"; model = "e"; }, { provider = "mock"; model = "mock-1"; } );
};
EOCONF
chmod 600 "$tmp/mock.conf"
S="$SEAM --conf $tmp/mock.conf"

# ---- seam transcribe, offline ------------------------------------------------------------
run tr $S transcribe -v "$tmp/speech.wav"
expect_rc tr 0
expect_grep tr out '^mock transcript of 32044 bytes of audio/wav$' 'the text on stdout (type sniffed: audio/wav)'
expect_grep tr err 'attempt 1 echo e: skipped: provider "echo" (plugin testecho) cannot transcribe' '-v: a plugin that cannot transcribe is skipped'
expect_grep tr err 'transcription: 1.0 s  provider: mock  model: mock-1' 'the usage line'

run tr_json $S transcribe --json --provider said --model mock-1 --language en "$tmp/speech.wav"
expect_rc tr_json 0
expect_py tr_json '(o["type"], o["text"], o["provider"], o["model"], o["seconds"])' \
    "('transcription', 'hello from the mock', 'said', 'mock-1', 1.0)"

run tr_type $S transcribe "$tmp/notes.txt"
expect_rc tr_type 2
expect_grep tr_type err "cannot tell the audio's type" 'unknown bytes need --type'
run tr_notaudio $S transcribe --type text/plain "$tmp/notes.txt"
expect_rc tr_notaudio 2
expect_grep tr_notaudio err 'is of no media modality' 'a type that is not audio is refused'
run tr_missing $S transcribe "$tmp/nosuch.wav"
expect_rc tr_missing 2
run tr_none $S transcribe
expect_rc tr_none 2
run tr_help $S transcribe --help
expect_rc tr_help 0
expect_grep tr_help out 'Usage: seam' 'help'
tl_default_mock_conf "$tmp/nochain.conf"
run tr_nochain "$SEAM" --conf "$tmp/nochain.conf" transcribe "$tmp/speech.wav"
expect_rc tr_nochain 2
expect_grep tr_nochain err 'no chain "transcribe" for transcription' 'no transcription chain is a conf error'

# The shipped conf, with no API key: the mock ends the transcribe chain.
run default_tr env SEAM_PLUGIN_PATH="$PLUGINS" "$SEAM" --conf "$top_srcdir/conf/seam.conf" transcribe "$tmp/speech.wav"
expect_rc default_tr 0
expect_grep default_tr err 'provider: mock' 'the offline mock transcribes'

# ---- the OpenAI codec, against the fake provider ---------------------------------------------
if [ -f "$PLUGINS/openai.so" ]; then
    tl_start_fake oa_tr --status 200 --record "$tmp/oa_tr.bodies" \
        --json-body '{"text":"Hello world.","usage":{"type":"duration","seconds":3}}'
    tport=$port
    # A streamed audio answer: the transcript, then base64 fragments cut at
    # odd places, then the finish (OpenAI's delta.audio, openai family framing).
    python3 - "$tmp/audio.sse" "$tmp/audio.pcm" <<'EOPY'
import base64, json, sys
pcm = bytes((i * 31 + (i >> 4)) & 0xff for i in range(9600))  # 0.2 s of pcm16 at 24 kHz
open(sys.argv[2], "wb").write(pcm)
b64 = base64.b64encode(pcm).decode()
def ev(delta, finish=None):
    return json.dumps({"id": "chatcmpl-a", "object": "chat.completion.chunk", "model": "gpt-4o-audio-preview",
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
lines = [ev({"role": "assistant"}), ev({"content": None, "audio": {"id": "audio_1", "transcript": "Hi"}}),
         ev({"audio": {"transcript": " there!"}})]
at, cuts, k = 0, [1, 5, 7, 13, 997], 0
while at < len(b64):
    n = cuts[k % len(cuts)]; k += 1
    lines.append(ev({"audio": {"data": b64[at:at + n]}})); at += n
lines.append(ev({"audio": {"expires_at": 1729444178}}))
lines.append(ev({}, "stop"))
lines.append(json.dumps({"id": "chatcmpl-a", "object": "chat.completion.chunk", "choices": [],
                         "usage": {"prompt_tokens": 5, "completion_tokens": 20, "total_tokens": 25,
                                   "completion_tokens_details": {"audio_tokens": 15}}}))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
EOPY
    tl_start_fake oa_chat --sse-file "$tmp/audio.sse" --family openai --split 50
    cport=$port
    cat >"$tmp/wire.conf" <<EOCONF
plugin_path = [ "$PLUGINS" ];
model_catalog = "";
media = { store = "$tmp/store"; };
providers = {
  oa = { plugin = "openai"; base_url = "http://127.0.0.1:$tport/v1"; api_key = "$SECRET"; };
  oachat = { plugin = "openai"; base_url = "http://127.0.0.1:$cport/v1"; api_key = "$SECRET"; };
};
chains = { default = ( { provider = "oachat"; model = "gpt-4o"; },
                       { provider = "oachat"; model = "gpt-4o-audio-preview"; } );
           transcribe = ( { provider = "oa"; model = "whisper-1"; } ); };
EOCONF
    W="$SEAM --conf $tmp/wire.conf"
    run wire_tr $W transcribe --json --prompt "a greeting" "$tmp/speech.wav"
    expect_rc wire_tr 0
    expect_py wire_tr '(o["text"], o["provider"], o["model"], o["seconds"])' "('Hello world.', 'oa', 'whisper-1', 3.0)"
    # (The record stops at the audio's first NUL byte: the fields after it are
    # checked by tests/test_transcribe.)
    expect_grep oa_tr bodies 'name="file"; filename="speech.wav"' 'the upload is multipart; the file part keeps its name'

    run wire_chat $W chat --json --no-log --output text+audio "say hi"
    expect_rc wire_chat 0
    handle=$(python3 -c 'import sys, hashlib; print("media://sha256-" + hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$tmp/audio.pcm")
    expect_py wire_chat '[l["media"]["handle"] for l in lines if l["type"] == "media_end"] == ["'"$handle"'"]' 'True'
    expect_py wire_chat '[(l["media"]["mime_type"], l["media"]["byte_length"], l["media"]["duration_ms"]) for l in lines if l["type"] == "media_end"]' \
        "[('audio/pcm', 9600, 200)]"
    expect_py wire_chat '"".join(l.get("transcript", "") for l in lines if l["type"] == "media_delta")' 'Hi there!'
    expect_py wire_chat '(o["type"], o["media_units"])' "('result', [{'modality': 'audio', 'units': 0.2, 'unit': 'second'}])"
    run wire_path $W media path "$handle"
    expect_rc wire_path 0
    checks=$((checks + 1))
    if cmp -s "$(cat "$tmp/wire_path.out")" "$tmp/audio.pcm"; then
        ok "seam media path: the stored file is the audio"
    else
        fail "seam media path: the stored file is not the audio"
    fi
    run wire_plain $W chat --no-log --output text+audio "say hi"
    expect_rc wire_plain 0
    expect_grep wire_plain out '^Hi there!$' 'the transcript is shown as text'
    expect_grep wire_plain err "seam: audio/pcm $handle" 'the stored audio is named'
    run wire_badout $W chat --no-log --output text+smell "x"
    expect_rc wire_badout 2

    # No base64 of the audio in any output: a run of 24 characters of it anywhere.
    checks=$((checks + 1))
    if python3 - "$tmp/audio.pcm" "$tmp/all.log" <<'EOPY'
import base64, sys
b64 = base64.b64encode(open(sys.argv[1], "rb").read()).decode()
log = open(sys.argv[2]).read()
sys.exit(1 if any(b64[i:i + 24] in log for i in range(0, len(b64) - 24, 8)) else 0)
EOPY
    then
        ok "no base64 of the audio in any output"
    else
        fail "base64 of the audio appears in an output"
    fi
else
    echo "the openai plugin is not built: its CLI checks are skipped"
fi

# ---- no credential anywhere -------------------------------------------------------------------
expect_nowhere "no credential in any output" "$SECRET" "$tmp/all.log"

tl_finish run-cli-audio.sh
