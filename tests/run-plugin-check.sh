#!/bin/sh
# run-plugin-check.sh — the conformance kit (sdk/check/seam-plugin-check) on
# this build's plugins:
#
#   tests/run-plugin-check.sh [CORPUS_DIR]
#
# Every in-tree plugin passes it, the network codecs with CORPUS_DIR (default
# tests/corpus, the small in-repo corpus; CI passes the shared wire corpus);
# the template's hello plugin passes with sdk/template/tests; the same plugin
# with one deliberate decoding fault (tests/plugins/faulty.c) fails it, naming
# the corpus case and nothing else; and a run is repeated exactly by its
# printed seed. Run by `make check` (and `make plugin-check CORPUS=DIR`) with
# top_builddir and top_srcdir set.
set -u
: "${top_builddir:?top_builddir must be set (run through make check)}"
: "${top_srcdir:?top_srcdir must be set (run through make check)}"
corpus=${1:-$top_srcdir/tests/corpus}
KIT=$top_builddir/sdk/check/seam-plugin-check
PLUGINS=${SEAM_TEST_PLUGIN_DIR:-$top_builddir/plugins/.libs}
TESTPLUGINS=$top_builddir/tests/plugins/.libs
. "$top_srcdir/tests/testlib.sh"
tl_tmpdir "${TMPDIR:-/tmp}/seam-kit.XXXXXX"
# Each verdict is one check of the tally.
ok() { checks=$((checks + 1)); echo "ok: $*"; }
fail() { checks=$((checks + 1)); echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# 1. the in-tree plugins pass
for p in openai anthropic gemini mock; do
    [ -f "$PLUGINS/$p.so" ] || { echo "skip: $p.so is not built"; continue; }
    "$KIT" "$PLUGINS/$p.so" --corpus "$corpus" >"$tmp/$p.out" 2>&1
    rc=$?
    last=$(tail -n 1 "$tmp/$p.out")
    if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$tmp/$p.out"; then
        ok "$p.so passes: $last"
    else
        fail "$p.so (exit $rc)"; cat "$tmp/$p.out"
    fi
    # a network codec runs its corpus cases and the whole fault matrix
    if [ "$p" != mock ] && ! grep -q "^PASS corpus $p/" "$tmp/$p.out"; then
        fail "$p.so: no corpus case ran from $corpus/$p"
    fi
    if [ "$p" != mock ] && [ "$(grep -c "^PASS fault $p " "$tmp/$p.out")" -ne 15 ]; then
        fail "$p.so: the fault matrix did not run its 15 cases"; grep "fault" "$tmp/$p.out"
    fi
done

# 2. the template's plugin passes with its own recorded streams
"$KIT" "$TESTPLUGINS/hello.so" --corpus "$top_srcdir/sdk/template/tests" >"$tmp/hello.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^PASS corpus tests/basic.sse' "$tmp/hello.out"; then
    ok "hello.so passes: $(tail -n 1 "$tmp/hello.out")"
else
    fail "hello.so (exit $rc)"; cat "$tmp/hello.out"
fi

# 3. one deliberate decoding fault fails it, naming the case, and only it
"$KIT" "$TESTPLUGINS/faulty.so" --corpus "$top_srcdir/sdk/template/tests" --seed 7 >"$tmp/faulty.out" 2>&1
rc=$?
nfail=$(grep -c '^FAIL' "$tmp/faulty.out")
if [ $rc -eq 1 ] && [ "$nfail" -eq 1 ] && grep -q '^FAIL corpus tests/basic.sse' "$tmp/faulty.out" &&
    grep -q '^[0-9]* passed, 1 failed' "$tmp/faulty.out"; then
    ok "faulty.so fails on basic.sse alone"
else
    fail "faulty.so: exit $rc, $nfail FAIL lines"; cat "$tmp/faulty.out"
fi

# 4. the printed seed repeats the random cuts
"$KIT" "$TESTPLUGINS/faulty.so" --corpus "$top_srcdir/sdk/template/tests" --seed 7 >"$tmp/again.out" 2>&1
if grep -q "seed 7 " "$tmp/faulty.out" && grep -q "cut at bytes" "$tmp/faulty.out" &&
    [ "$(grep 'cut at bytes' "$tmp/faulty.out")" = "$(grep 'cut at bytes' "$tmp/again.out")" ]; then
    ok "--seed 7 repeats the cuts"
else
    fail "--seed 7 did not repeat the cuts"; grep "cut at" "$tmp/faulty.out" "$tmp/again.out"
fi

# 5. bad usage is exit 2, a file that is no plugin fails the load case
"$KIT" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "no argument: exit 2" || fail "no argument: exit $rc"
printf 'not an ELF file\n' >"$tmp/junk.so"
"$KIT" "$tmp/junk.so" >"$tmp/junk.out" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q '^FAIL load: refused by the loader' "$tmp/junk.out"; then
    ok "a file that is no plugin fails the load case"
else
    fail "junk.so: exit $rc"; cat "$tmp/junk.out"
fi

tl_finish "plugin check"
