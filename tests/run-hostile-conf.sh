#!/bin/sh
# run-hostile-conf.sh — issue 11: hostile conf files. Each file of
# tests/conf/hostile/ (each opens with a comment saying what it tries), and a
# few made here because they are large or not files at all (10,000 providers,
# a 1 MB string, nesting 100,000 deep, a 17 MB file, a FIFO, a directory, a
# device, a FIFO in conf.d/), goes through `seam config check`. Each must
# either be refused with exit 2 and a message naming FILE:LINE (FILE alone for
# what has no lines: a FIFO, a device, a file too large), or be accepted and
# then run a chat correctly (a mock provider from a conf.d/ drop-in answers).
# Never a crash, a hang (60 s each: 10,000 providers take a few seconds under
# the sanitizers on a busy machine) or another exit code. Run by `make check`.
set -u

: "${top_builddir:?top_builddir must be set (run through make check)}"
: "${top_srcdir:?top_srcdir must be set (run through make check)}"
PLUGINS=${SEAM_TEST_PLUGIN_DIR:-$top_builddir/plugins/.libs}
SEAM=$top_builddir/cli/seam
HOSTILE=$top_srcdir/tests/conf/hostile
REPLY='hostile conf survived'

umask 022
unset SEAM_CONF
. "$(dirname "$0")/testlib.sh"
tl_tmpdir "${TMPDIR:-/tmp}/seam-hostile.XXXXXX"
refused=0
accepted=0

# case_dir NAME: a fresh directory with the mock drop-in in conf.d/.
case_dir() {
    d=$tmp/$1
    mkdir -p "$d/conf.d"
    cat >"$d/conf.d/zz-seam-test-mock.conf" <<EOF
providers = { seam-test-mock = { plugin = "mock"; options = { reply = "$REPLY"; }; }; };
EOF
    echo "$d"
}

# check NAME PATH WANT: config check on PATH; WANT is "line" (a refusal must
# name PATH:LINE) or "file" (PATH alone will do).
check() {
    name=$1 path=$2 want=$3
    checks=$((checks + 1))
    timeout 60 "$SEAM" config check "$path" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    rc=$?
    case $rc in
    2)
        refused=$((refused + 1))
        if [ "$want" = line ]; then
            pattern="^seam: $path:[0-9][0-9]*: "
        else
            pattern="^seam: $path:"
        fi
        if grep -q -- "$pattern" "$tmp/$name.err"; then
            echo "ok: $name: refused: $(head -c 200 "$tmp/$name.err" | head -1)"
        else
            fail "$name: refused without naming $path${want:+ ($want)}:"
            cat "$tmp/$name.err" >&2
        fi
        ;;
    0)
        accepted=$((accepted + 1))
        timeout 60 env SEAM_PLUGIN_PATH="$PLUGINS" "$SEAM" --conf "$path" chat \
            --provider seam-test-mock --model m 'Hi' >"$tmp/$name.chat.out" \
            2>"$tmp/$name.chat.err" </dev/null
        crc=$?
        if [ $crc = 0 ] && grep -q -- "$REPLY" "$tmp/$name.chat.out"; then
            echo "ok: $name: accepted, and a chat runs"
        else
            fail "$name: accepted by config check, but chat exits $crc:"
            cat "$tmp/$name.chat.out" "$tmp/$name.chat.err" >&2
        fi
        ;;
    124)
        fail "$name: config check hangs"
        ;;
    *)
        fail "$name: config check exits $rc (a crash?)"
        cat "$tmp/$name.err" >&2
        ;;
    esac
}

n_files=0
for f in "$HOSTILE"/*.conf; do
    n_files=$((n_files + 1))
    name=$(basename "$f" .conf)
    head -c 1 "$f" | grep -q '#' || head -c 4 "$f" | grep -q '#' ||
        fail "$name: does not open with a comment saying what it tries"
    d=$(case_dir "$name")
    cp "$f" "$d/seam.conf"
    check "$name" "$d/seam.conf" line
done
if [ $n_files -lt 40 ]; then
    fail "only $n_files hostile files in $HOSTILE (40 or more expected)"
fi

# ---- made here ------------------------------------------------------------------------
d=$(case_dir many-providers)
awk 'BEGIN { print "# 10,000 providers and a chain of 10,000 entries."; print "providers = {";
             for (i = 0; i < 10000; i++) printf "  p%d = { plugin = \"mock\"; };\n", i;
             print "};"; print "chains = { big = (";
             for (i = 0; i < 10000; i++) printf "  { provider = \"p%d\"; model = \"m\"; }%s\n", i, i < 9999 ? "," : "";
             print "); };" }' >"$d/seam.conf"
check many-providers "$d/seam.conf" line

d=$(case_dir long-string)
awk 'BEGIN { printf "# A base_url of 1 MB.\nproviders = { p = { plugin = \"openai\"; base_url = \"https://";
             for (i = 0; i < 16384; i++) printf "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
             print "\"; }; };" }' >"$d/seam.conf"
check long-string "$d/seam.conf" line

d=$(case_dir deep-nesting)
awk 'BEGIN { printf "# Groups nested 100,000 deep.\nx = ";
             for (i = 0; i < 100000; i++) printf "{ a = ";
             printf "1;"; for (i = 0; i < 100000; i++) printf " };"; print "" }' >"$d/seam.conf"
check deep-nesting "$d/seam.conf" line

d=$(case_dir too-large)
{ echo "# A 17 MB file (the limit is 16 MiB)."; head -c 17000000 /dev/zero | tr '\0' '\n'; } >"$d/seam.conf"
check too-large "$d/seam.conf" file

d=$(case_dir fifo)
mkfifo "$d/seam.conf"
check fifo "$d/seam.conf" file

d=$(case_dir directory)
mkdir "$d/seam.conf"
check directory "$d/seam.conf" file

check device /dev/zero file

d=$(case_dir dropin-fifo)
echo '# a valid main file' >"$d/seam.conf"
mkfifo "$d/conf.d/50-fifo.conf"
checks=$((checks + 1))
timeout 60 "$SEAM" config check "$d/seam.conf" >"$tmp/dropin.out" 2>"$tmp/dropin.err" </dev/null
rc=$?
if [ $rc = 2 ] && grep -q "50-fifo.conf: not a regular file" "$tmp/dropin.err"; then
    echo "ok: dropin-fifo: refused: $(cat "$tmp/dropin.err")"
else
    fail "dropin-fifo: exit $rc"
    cat "$tmp/dropin.err" >&2
fi

echo "$checks checks ($refused refused, $accepted accepted and run), $failures failures"
[ $failures = 0 ]
