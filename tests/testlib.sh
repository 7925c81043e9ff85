# testlib.sh — the harness of the shell tests (run-cli.sh, run-hostile-conf.sh,
# installcheck.sh, deb-test.sh), sourced with `. "$(dirname "$0")/testlib.sh"`:
# a temp dir removed on exit (after the script's own tl_cleanup), the check
# counters with ok/fail, run NAME CMD... keeping a command's outputs and
# status, show NAME, check NAME WHAT CMD..., and the closing tally. A script
# may redefine show or check after sourcing this file.

failures=0
checks=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

ok() {
    echo "ok: $*"
}

# What a script must undo on exit besides removing $tmp: it redefines this.
tl_cleanup() {
    :
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

# tl_finish [PREFIX]: prints the tally; its status is the script's (0 when
# every check passed).
tl_finish() {
    echo "${1:+$1: }$checks checks, $failures failed"
    [ "$failures" -eq 0 ]
}
