#!/bin/sh
# run-cli-media.sh — end-to-end test of `seam media image|speech|video`,
# `seam media resume` and `seam media cancel` against tests/fake-media (a
# loopback server speaking OpenAI's Images, speech and Videos APIs and
# Gemini's Veo operations): the PNG stored under the sha256 of its bytes and
# found by `seam media path`, -o, --json lines without base64, a video job
# polled to the end, killed with SIGKILL mid-job and resumed from its
# checkpoint, cancelled from another command, usage errors. Run by `make
# check` with top_builddir, top_srcdir and SEAM_TEST_PLUGIN_DIR set; exits 0
# when every check passes.
set -u

. "$(dirname "$0")/testlib.sh"
tl_cli_setup cli-media
FAKE=$top_builddir/tests/fake-media # tl_start_fake's program here
SECRET=sk-seamtest-MEDIA-8e1f2a3b4c5d6e7f
PNG_B64=iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==

bg_pids=
tl_cleanup() {
    tl_stop_pids $bg_pids
    tl_stop_fakes
}
XDG_DATA_HOME=$tmp/data
export XDG_DATA_HOME
JOBS=$XDG_DATA_HOME/seam/jobs

# wait_for CMD...: up to 10 s for CMD to succeed.
wait_for() {
    i=0
    until "$@"; do
        i=$((i + 1))
        [ $i -lt 200 ] || return 1
        sleep 0.05
    done
}
write_conf() { # FILE PORT
    cat >"$1" <<EOCONF
plugin_path = [ "$PLUGINS" ];
model_catalog = "";
media = { store = "$tmp/store"; job_poll_ms = 50; job_poll_max_ms = 100; };
providers = {
  oa = { plugin = "openai"; base_url = "http://127.0.0.1:$2/v1"; api_key = "$SECRET"; };
  gm = { plugin = "gemini"; base_url = "http://127.0.0.1:$2/v1beta"; api_key = "$SECRET"; };
  mk = { plugin = "mock"; };
};
chains = { media = ( { provider = "oa"; model = "gpt-image-1"; } ); };
EOCONF
    chmod 600 "$1"
}

tl_start_fake fast --polls 3
write_conf "$tmp/fast.conf" "$port"
tl_start_fake slow --polls 8 --delay-ms 250
write_conf "$tmp/slow.conf" "$port"
S="$SEAM --conf $tmp/fast.conf"
SLOW="$SEAM --conf $tmp/slow.conf"

# ---- an image, as a new user would ask for it --------------------------------------------
run image $S media image --provider oa --model gpt-image-1 --json "a cat"
expect_rc image 0
want=media://sha256-$(printf '%s' "$PNG_B64" | base64 -d | sha256sum | cut -d' ' -f1)
expect_py image '[l["type"] for l in lines]' "['media_end', 'result']"
expect_py image 'lines[0]["media"]["handle"]' "$want"
expect_py image 'lines[0]["media"]["mime_type"]' "image/png"
expect_py image 'lines[-1]["media_units"]' "[{'modality': 'image', 'units': 1.0, 'unit': 'count'}]"
expect_py image '(lines[-1]["provider"], lines[-1]["model"], lines[-1]["usage"]["output_tokens"])' \
    "('oa', 'gpt-image-1', 272)"
run path $S media path "$want"
expect_rc path 0
stored=$(cat "$tmp/path.out")
check path 'the stored file holds the PNG' sh -c "printf '%s' '$PNG_B64' | base64 -d | cmp -s - '$stored'"
check path 'the stored file is named by the handle' test "$(basename "$stored")" = "sha256-${want#media://sha256-}"
check path 'the stored file is mode 0600' test "$(stat -c %a "$stored")" = 600

run image_text $S media image -o "$tmp/cat.png" "a cat"
expect_rc image_text 0
check image_text 'prints the handle and the path' grep -qx "$want $stored" "$tmp/image_text.out"
check image_text '-o writes the bytes' cmp -s "$tmp/cat.png" "$stored"

# ---- speech ---------------------------------------------------------------------------------
run speech $S media speech --provider oa --model gpt-4o-mini-tts --format audio/wav --voice coral \
    --json -o "$tmp/hello.wav" "Hello."
expect_rc speech 0
expect_py speech 'lines[0]["media"]["mime_type"]' "audio/wav"
expect_py speech 'lines[-1]["media_units"][0]["unit"]' "second"
check speech '-o writes the WAV' sh -c "head -c 4 '$tmp/hello.wav' | grep -q RIFF"

# ---- a video job, polled to the end ------------------------------------------------------------
run video $S media video --provider oa --model sora-2 --json "a calico cat"
expect_rc video 0
expect_py video '[l["type"] for l in lines]' \
    "['job', 'job', 'job', 'job', 'media_end', 'result']"
expect_py video '[l.get("state") for l in lines[:4]]' "['pending', 'pending', 'pending', 'done']"
expect_py video 'lines[-2]["media"]["mime_type"]' "video/mp4"
expect_py video 'lines[-1]["media_units"]' "[{'modality': 'video', 'units': 4.0, 'unit': 'second'}]"
expect_py video 'lines[0]["id"].startswith("job-") and "video_" not in lines[0]["id"]' "True"
job=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["id"])' "$tmp/video.out")
check video 'the checkpoint is kept under the data dir, 0600' test "$(stat -c %a "$JOBS/$job.json")" = 600
check video 'the checkpoint holds no credential' sh -c "! grep -q '$SECRET' '$JOBS/$job.json'"
run video_again $S media resume --json "$job"
expect_rc video_again 0
expect_py video_again 'lines[-2]["media"]["handle"] == json.loads(open(sys.argv[1].replace("video_again", "video")).read().splitlines()[-2])["media"]["handle"]' "True"

# On a terminal (script(1) gives the command one) the wait shows the progress.
if command -v script >/dev/null 2>&1; then
    run tty script -qec "$S media video --provider oa --model sora-2 'a tty cat'" /dev/null
    expect_rc tty 0
    expect_grep tty out 'job-[0-9a-f]*  33%' 'the progress shows on a terminal'
    expect_grep tty out 'media://sha256-' 'then the handle'
fi

run veo $S media video --provider gm --model veo-3.0-generate-001 --json "waves"
expect_rc veo 0
expect_py veo 'lines[-2]["media"]["mime_type"]' "video/mp4"

# ---- killed mid-job, then resumed ----------------------------------------------------------------
$SLOW media video --provider oa --model sora-2 --json "slow waves" >"$tmp/killed.out" 2>"$tmp/killed.err" &
victim=$!
bg_pids="$bg_pids $victim"
# Killed once a poll has answered pending (a job line on stdout).
check killed 'the job was accepted and polled' wait_for grep -q '"state":"pending"' "$tmp/killed.out"
kill -9 "$victim" 2>/dev/null
wait "$victim" 2>/dev/null
killed_polls=$(grep -c '"type":"job"' "$tmp/killed.out")
kjob=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["id"])' "$tmp/killed.out")
check killed 'its checkpoint survived the kill' test -s "$JOBS/$kjob.json"
run resumed $SLOW media resume --json -o "$tmp/resumed.mp4" "$kjob"
expect_rc resumed 0
expect_py resumed 'lines[-2]["media"]["mime_type"]' "video/mp4"
# 8 pending polls and the last: the resumed command makes only those left.
expect_py resumed "sum(1 for l in lines if l['type'] == 'job') <= 9 - $killed_polls" "True"
check resumed '-o writes the MP4' sh -c "head -c 12 '$tmp/resumed.mp4' | grep -q ftyp"

# ---- cancelled from another command ----------------------------------------------------------------
$SLOW media video --provider oa --model sora-2 --json "never mind" >"$tmp/cancelled.out" 2>"$tmp/cancelled.err" &
waiter=$!
bg_pids="$bg_pids $waiter"
check cancelled 'the job was accepted and polled' wait_for grep -q '"state":"pending"' "$tmp/cancelled.out"
cjob=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["id"])' "$tmp/cancelled.out")
run cancel $SLOW media cancel "$cjob"
expect_rc cancel 0
wait "$waiter"
rc=$?
checks=$((checks + 1))
if [ "$rc" -eq 1 ]; then ok "cancelled: the waiting command stopped (exit 1)"; else fail "cancelled: the waiting command exited $rc"; fi
expect_grep cancelled err 'was cancelled' 'the waiting command says the job was cancelled'
run cancelled_resume $SLOW media resume "$cjob"
expect_rc cancelled_resume 1
expect_grep cancelled_resume err 'cancelled' 'a cancelled job is not taken up again'

# ---- usage errors ---------------------------------------------------------------------------------
run no_prompt $S media image
expect_rc no_prompt 2
run bad_job $S media resume ../etc/passwd
expect_rc bad_job 2
run no_job $S media resume job-0123456789abcdef0123456789abcdef
expect_rc no_job 2
run half $S media image --provider oa "a cat"
expect_rc half 2
run mock_default env SEAM_PLUGIN_PATH="$PLUGINS" XDG_DATA_HOME="$tmp/data2" "$SEAM" --conf "$top_srcdir/conf/seam.conf" media image --provider mock --model mock-image "a cat"
expect_rc mock_default 0

# ---- never base64, never a credential --------------------------------------------------------------
checks=$((checks + 1))
if grep -q -e 'iVBORw0KGgo' -e 'AAAAGGZ0eXBt' -e 'UklGR' "$tmp/all.log" "$tmp"/*.out; then
    fail "base64 media appears in an output"
    grep -n -e 'iVBORw0KGgo' -e 'AAAAGGZ0eXBt' -e 'UklGR' "$tmp/all.log" "$tmp"/*.out >&2
else
    ok "no base64 media in any output"
fi
expect_nowhere "no credential in any output or checkpoint" "$SECRET" "$tmp/all.log" "$tmp"/*.out "$tmp"/*.err "$JOBS"

tl_finish run-cli-media.sh
