#!/bin/sh
# run-template-install.sh — the plugin template's `make install` as a user
# runs it (issue 16): PLUGINDIR=~/... under sh lands in $HOME, not in a
# literal ./~; under umask 002 the plugin directory is still one seam trusts;
# and when seam does refuse a plugin for its directory, `seam chat` says so
# ("refused: ... group-writable") instead of "not installed". Uses the
# template's Makefile on the hello.so this build made (tests/plugins/). Run by
# `make check` with top_builddir and top_srcdir set.
set -u
: "${top_builddir:?top_builddir must be set (run through make check)}"
: "${top_srcdir:?top_srcdir must be set (run through make check)}"
SEAM=$top_builddir/cli/seam
HELLO=$top_builddir/tests/plugins/.libs/hello.so
unset SEAM_CONF
SEAM_PLUGIN_PATH=
export SEAM_PLUGIN_PATH

umask 022
# Below the build tree: the loader refuses anything below /tmp.
. "$top_srcdir/tests/testlib.sh"
tl_tmpdir "$top_builddir/tests/tmp-template.XXXXXX" 700
# Each verdict is one check of the tally.
ok() { checks=$((checks + 1)); echo "ok: $*"; }
fail() { checks=$((checks + 1)); echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# The template's sources with this build's hello.so, newer than hello.c so
# that make does not rebuild it (no installed SDK is needed: PKG_CONFIG=true).
src=$tmp/src
mkdir "$src"
cp "$top_srcdir/sdk/template/Makefile" "$top_srcdir/sdk/template/hello.c" \
    "$top_srcdir/sdk/template/hello.conf" "$src/"
cp "$HELLO" "$src/hello.so"
touch "$src/hello.so"
mkdir "$tmp/home"

# 1. PLUGINDIR=~/... under sh, umask 002.
HOME=$tmp/home sh -c "cd '$src' && umask 002 && make -s install PKG_CONFIG=true \
    PLUGINDIR=~/.local/lib/seam/plugins CONFDDIR=~/.config/seam/conf.d" >"$tmp/install.out" 2>&1
rc=$?
if [ -e "$src/~" ]; then
    fail "make install PLUGINDIR=~/... created a literal ./~ directory (exit $rc)"
elif [ $rc -ne 0 ] || [ ! -f "$tmp/home/.local/lib/seam/plugins/hello.so" ]; then
    fail "make install PLUGINDIR=~/... did not install into \$HOME (exit $rc)"; cat "$tmp/install.out"
else
    ok "PLUGINDIR=~/... under sh installs into \$HOME"
fi
mode=$(stat -c %a "$tmp/home/.local/lib/seam/plugins" 2>/dev/null)
if [ "$mode" = 755 ]; then
    ok "under umask 002 the plugin directory is 755"
else
    fail "under umask 002 the plugin directory is mode $mode, not 755"
fi

# 2. A relative PLUGINDIR is refused, not created beside the sources.
(cd "$src" && make -s install PKG_CONFIG=true PLUGINDIR=relative/plugins CONFDDIR=/nonexistent) \
    >"$tmp/rel.out" 2>&1
rc=$?
if [ $rc -ne 0 ] && [ ! -e "$src/relative" ] && grep -q "not an absolute path" "$tmp/rel.out"; then
    ok "a relative PLUGINDIR is refused"
else
    fail "a relative PLUGINDIR: exit $rc"; cat "$tmp/rel.out"
fi

# 3. The installed plugin answers; the same with its directory refused says why.
plugins=$tmp/home/.local/lib/seam/plugins
conf=$tmp/home/.config/seam/seam.conf
printf 'model_catalog = "";\n' >"$conf"
chat() {
    SEAM_PLUGIN_PATH=$plugins HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config \
        "$SEAM" --conf "$conf" chat --provider "$1" --model hello-1 hi >"$tmp/chat.out" 2>"$tmp/chat.err"
}
if chat hello-offline && grep -q "Hello! You said: hi" "$tmp/chat.out"; then
    ok "the installed plugin answers"
else
    fail "the installed plugin does not answer"; cat "$tmp/chat.out" "$tmp/chat.err"
fi
chmod 777 "$plugins"
chat hello
if grep -q 'plugin "hello" refused: its directory .* is world-writable' "$tmp/chat.err" &&
    ! grep -q "not installed" "$tmp/chat.err"; then
    ok "a refused plugin is reported with the loader's reason"
else
    fail "seam chat with a world-writable plugin dir:"; cat "$tmp/chat.err"
fi
chat hello-offline
if grep -q 'plugin "hello-offline" is not installed or was refused: .*hello.so refused: its directory .* is world-writable' \
    "$tmp/chat.err"; then
    ok "a provider of a refused file of another name is reported with the refusal"
else
    fail "seam chat hello-offline with a world-writable plugin dir:"; cat "$tmp/chat.err"
fi
# Group-writable with a group that has other members (root can make one).
chmod 775 "$plugins"
if chgrp daemon "$plugins" 2>/dev/null; then
    chat hello
    if grep -q 'plugin "hello" refused: its directory .* is group-writable' "$tmp/chat.err"; then
        ok "a group-writable plugin directory is reported as such"
    else
        fail "seam chat with a group-writable plugin dir:"; cat "$tmp/chat.err"
    fi
else
    echo "skip: cannot give the plugin directory a shared group (not root)"
fi

tl_finish "template install"
