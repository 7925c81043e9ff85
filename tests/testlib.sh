# testlib.sh — the harness of the shell tests (run-cli.sh, run-cli-embed.sh,
# run-cli-media.sh, run-cli-audio.sh, run-serve-sdk.sh, run-hostile-conf.sh,
# installcheck.sh, deb-test.sh), sourced with `. "$(dirname "$0")/testlib.sh"`:
# the build tree's programs and a hermetic environment, a temp dir removed on
# exit (after the script's own tl_cleanup), the check counters with ok/fail,
# run NAME CMD... keeping a command's outputs and status, show NAME, check NAME
# WHAT CMD..., the expect_* checks of what run kept (expect_py: a Python
# expression over JSON lines), fake provider programs stopped on exit, and the
# closing tally. A script may redefine show or check after sourcing this file.

failures=0
checks=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

ok() {
    echo "ok: $*"
}

# tl_build_env: a test run by `make check` (top_builddir and top_srcdir set,
# else it exits): PLUGINS (the built plugins, or $SEAM_TEST_PLUGIN_DIR), SEAM,
# FAKE (the fake provider program), and a umask under which the files the test
# makes are not group-writable (the loader would refuse plugins copied there).
tl_build_env() {
    : "${top_builddir:?top_builddir must be set (run through make check)}"
    : "${top_srcdir:?top_srcdir must be set (run through make check)}"
    PLUGINS=${SEAM_TEST_PLUGIN_DIR:-$top_builddir/plugins/.libs}
    SEAM=$top_builddir/cli/seam
    FAKE=$top_builddir/tests/fake-provider
    umask 022
}

# tl_hermetic: no real credential, conf or plugin dir from the environment
# takes part.
tl_hermetic() {
    unset OPENAI_API_KEY ANTHROPIC_API_KEY GEMINI_API_KEY GOOGLE_API_KEY SEAM_CONF
    SEAM_PLUGIN_PATH=
    export SEAM_PLUGIN_PATH
}

# tl_cli_setup NAME: what a test of the seam command starts with: tl_build_env,
# tl_hermetic, TESTPLUGINS (the test plugins), $tmp (private, named after
# NAME) and run_log, where run keeps every command it ran.
tl_cli_setup() {
    tl_build_env
    tl_hermetic
    TESTPLUGINS=$top_builddir/tests/plugins/.libs
    tl_tmpdir "${TMPDIR:-/tmp}/seam-$1.XXXXXX" 700
    run_log=$tmp/all.log
}

# The fake provider programs tl_start_fake started, stopped by tl_stop_fakes.
tl_fake_pids=

# tl_stop_pids PID...: kills the background processes and reaps them.
tl_stop_pids() {
    for pid in "$@"; do
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
}

# tl_stop_fakes: stops them (a script's own tl_cleanup calls it).
tl_stop_fakes() {
    tl_stop_pids $tl_fake_pids
    tl_fake_pids=
}

# What a script must undo on exit besides removing $tmp: it redefines this,
# calling tl_stop_fakes when it started any.
tl_cleanup() {
    tl_stop_fakes
}

# tl_tmpdir TEMPLATE [MODE]: $tmp, a new directory (mktemp -d TEMPLATE, then
# chmod MODE), removed on exit; exits 99 when it cannot be made.
tl_tmpdir() {
    tmp=$(mktemp -d "$1") || exit 99
    [ -z "${2:-}" ] || chmod "$2" "$tmp"
    trap 'tl_cleanup; rm -rf "$tmp"' EXIT
    trap 'exit 130' INT TERM
}

# run NAME CMD...: runs CMD with stdin from $run_stdin (default /dev/null),
# stdout in $tmp/NAME.out, stderr in $tmp/NAME.err, exit status in $rc. With
# $run_log set, both outputs are appended to that file too (for a check over
# everything the script saw).
run() {
    name=$1
    shift
    "$@" <"${run_stdin:-/dev/null}" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    if [ -n "${run_log:-}" ]; then
        {
            echo "== $name (exit $rc)"
            cat "$tmp/$name.out" "$tmp/$name.err"
        } >>"$run_log"
    fi
}

# show NAME: the outputs run kept for NAME.
show() {
    echo "--- stdout:"
    cat "$tmp/$1.out"
    echo "--- stderr:"
    cat "$tmp/$1.err"
}

# check NAME WHAT CMD...: one check, passed when CMD succeeds; on a failure the
# outputs of NAME are shown on stderr.
check() {
    name=$1
    what=$2
    shift 2
    checks=$((checks + 1))
    if "$@"; then ok "$name: $what"; else fail "$name: $what"; show "$name" >&2; fi
}

# tl_conf FILE DIR...: writes FILE: a plugin_path of the DIRs, no model
# catalog (model_catalog = ""), then the conf text on stdin.
tl_conf() {
    f=$1
    shift
    {
        printf 'plugin_path = [ '
        sep=
        for d in "$@"; do
            printf '%s"%s"' "$sep" "$d"
            sep=', '
        done
        printf ' ];\nmodel_catalog = "";\n'
        cat
    } >"$f"
}

# tl_default_mock_conf FILE: writes FILE, a conf of the built plugins whose one
# chain, default, is the mock: a command that wants a chain of its own (embed,
# transcribe) finds none there.
tl_default_mock_conf() {
    cat >"$1" <<EOCONF
plugin_path = [ "$PLUGINS" ];
providers = { mock = { plugin = "mock"; }; };
chains = { default = ( { provider = "mock"; model = "mock-1"; } ); };
EOCONF
}

# expect_rc NAME WANT: checks $rc and shows the outputs when it is wrong.
expect_rc() {
    checks=$((checks + 1))
    if [ "$rc" -eq "$2" ]; then
        ok "$1: exit $rc"
        return 0
    fi
    fail "$1: exit $rc, expected $2"
    show "$1" >&2
    return 1
}

# expect_grep NAME FILE PATTERN WHAT: FILE (out or err of NAME) matches PATTERN.
expect_grep() {
    checks=$((checks + 1))
    if grep -q -- "$3" "$tmp/$1.$2"; then
        ok "$1: $4"
    else
        fail "$1: $4 (no '$3' in std$2)"
        cat "$tmp/$1.$2" >&2
    fi
}

# expect_no_grep NAME FILE PATTERN WHAT: FILE (out or err of NAME) does not.
expect_no_grep() {
    checks=$((checks + 1))
    if grep -q -- "$3" "$tmp/$1.$2"; then
        fail "$1: $4 (unexpected '$3' in std$2)"
        cat "$tmp/$1.$2" >&2
    else
        ok "$1: $4"
    fi
}

# expect_py NAME EXPR WANT: the Python EXPR prints WANT, over NAME's stdout
# read as JSON lines: o is the last non-blank line, lines all of them (None
# when one is not JSON), sys.argv[1] the stdout file. NAME's outputs are
# shown when it does not.
expect_py() {
    checks=$((checks + 1))
    got=$(python3 -c 'import json,sys
raw = [l for l in open(sys.argv[1]).read().splitlines() if l.strip()]
o = json.loads(raw[-1]) if raw else None
try:
    lines = [json.loads(l) for l in raw]
except ValueError:
    lines = None
print(eval(sys.argv[2]))' "$tmp/$1.out" "$2" 2>&1)
    if [ "$got" = "$3" ]; then
        ok "$1: $2 == $3"
    else
        fail "$1: $2 is '$got', expected '$3'"
        show "$1" >&2
    fi
}

# tl_start_fake NAME ARGS...: starts the fake provider program (FAKE) with
# ARGS, its output appended to $tmp/fake.log, and waits for its port: sets
# $port, or exits 1 when it did not start within 10 s.
tl_start_fake() {
    pf=$tmp/$1.port
    shift
    "$FAKE" --port-file "$pf" "$@" >>"$tmp/fake.log" 2>&1 &
    tl_fake_pids="$tl_fake_pids $!"
    i=0
    while [ ! -s "$pf" ] && [ $i -lt 200 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    if [ ! -s "$pf" ]; then
        echo "FAIL: the fake provider did not start" >&2
        cat "$tmp/fake.log" >&2
        exit 1
    fi
    port=$(cat "$pf")
}

# tl_finish [PREFIX]: prints the tally; its status is the script's (0 when
# every check passed).
tl_finish() {
    echo "${1:+$1: }$checks checks, $failures failed"
    [ "$failures" -eq 0 ]
}

# ---- dupmedia: checks over everything a script saw ----

# expect_nowhere WHAT PATTERN FILE...: one check that no line of the FILEs (a
# directory among them searched through) matches the grep PATTERN, e.g. that
# no output holds the script's credential; the lines that do are shown.
expect_nowhere() {
    what=$1
    pattern=$2
    shift 2
    checks=$((checks + 1))
    if grep -rq -e "$pattern" "$@"; then
        fail "$what: '$pattern' found"
        grep -rn -e "$pattern" "$@" >&2
    else
        ok "$what"
    fi
}
