#!/bin/sh
# installcheck.sh — the SDK as a third party meets it: an installed seam, and a
# plugin built out of tree from the installed template with pkg-config alone.
# Run by `make installcheck` (and so by `make distcheck`) after `make install`:
#
#   tests/installcheck.sh DESTDIR PREFIX BINDIR LIBDIR PKGDATADIR PLUGINDIR CONFDIR
#
# Steps: copy $PKGDATADIR/plugin-template to a temporary directory; build it
# there with only PKG_CONFIG_PATH=$LIBDIR/pkgconfig (no path into the source or
# build tree); run its own `make check` against the installed seam; `make
# install` it, which drops hello.so into the plugin dir and hello.conf into
# conf.d/; then the installed `seam plugins` must list it, `seam providers` and
# `seam config check` must accept its snippet, and `seam chat` must answer
# through it, with the default chain still answering too. The installed seam
# and libseam must be byte-for-byte untouched (the core is not rebuilt), and
# `make uninstall` of the template must leave nothing behind.
#
# With a non-empty DESTDIR the installed files are not where the installed
# binaries look for them, so the script points seam at them (--conf,
# SEAM_PLUGIN_PATH, LD_LIBRARY_PATH) and pkg-config at DESTDIR
# (PKG_CONFIG_SYSROOT_DIR). Exits 0 when every check passes.
set -u

if [ $# -ne 7 ]; then
    echo "usage: $0 DESTDIR PREFIX BINDIR LIBDIR PKGDATADIR PLUGINDIR CONFDIR" >&2
    exit 2
fi
destdir=$1
prefix=$2
bindir=$3
libdir=$4
pkgdatadir=$5
plugindir=$6
confdir=$7

seam=$destdir$bindir/seam
template=$destdir$pkgdatadir/plugin-template
pcdir=$destdir$libdir/pkgconfig
for f in "$seam" "$template/Makefile" "$template/hello.c" "$pcdir/seam-plugin.pc" "$pcdir/seam.pc"; do
    if [ ! -f "$f" ]; then
        echo "installcheck: $f is not installed: run make install first" >&2
        exit 1
    fi
done

# Plugin directories must not be group- or world-writable, or seam refuses
# what is in them.
umask 022
# Nor may any directory above them (seam-plugin(7)), but for a sticky one
# such as /tmp, where nobody else can rename or remove what is ours. Say so
# plainly rather than fail further down.
d=$destdir$plugindir
while [ "$d" != / ] && [ "$d" != . ]; do
    d=$(dirname "$d")
    if [ -d "$d" ] && [ -n "$(find "$d" -maxdepth 0 -perm /022 ! -perm -1000 2>/dev/null)" ]; then
        echo "installcheck: $d is writable by group or others, and seam refuses any plugin" >&2
        echo "installcheck: below such a directory: install to a private prefix" >&2
        exit 1
    fi
done
# The template is built and checked in here: below the build tree, a path seam
# trusts (it refuses a plugin below a directory others can write).
mkdir -p tests
. "$(dirname "$0")/testlib.sh"
template_installed=
tl_cleanup() {
    if [ -n "$template_installed" ]; then
        make -s -C "$tmp/hello" uninstall DESTDIR="$destdir" >/dev/null 2>&1
    fi
}
tl_tmpdir "$(pwd)/tests/tmp-installcheck.XXXXXX"

# Nothing of the user's may take part: no conf, plugin dir or credential.
unset SEAM_CONF OPENAI_API_KEY ANTHROPIC_API_KEY GEMINI_API_KEY GOOGLE_API_KEY HELLO_API_KEY
SEAM_PLUGIN_PATH=
HOME=$tmp/home
XDG_CONFIG_HOME=$tmp/home/.config
mkdir -p "$HOME"
export SEAM_PLUGIN_PATH HOME XDG_CONFIG_HOME

# pkg-config sees the installed SDK and nothing else of seam's.
PKG_CONFIG_PATH=$pcdir
export PKG_CONFIG_PATH
conf_args=
if [ -n "$destdir" ]; then
    PKG_CONFIG_SYSROOT_DIR=$destdir
    LD_LIBRARY_PATH=$destdir$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    SEAM_PLUGIN_PATH=$destdir$plugindir
    export PKG_CONFIG_SYSROOT_DIR LD_LIBRARY_PATH
    conf_args="--conf $destdir$confdir/seam.conf"
fi
PKG_CONFIG=${PKG_CONFIG:-pkg-config}

# The core as installed, to show afterwards that nothing rebuilt it.
fingerprint() {
    cksum "$seam" "$destdir$libdir"/libseam.so* 2>/dev/null
}
fingerprint >"$tmp/core.before"

# ---- the SDK through pkg-config ---------------------------------------------------------
run pc_plugindir "$PKG_CONFIG" --variable=plugindir seam-plugin
check pc_plugindir "seam-plugin.pc gives the plugin dir $plugindir" \
    test "$rc" -eq 0 -a "$(cat "$tmp/pc_plugindir.out")" = "$plugindir"
run pc_flags "$PKG_CONFIG" --cflags --libs seam-plugin
check pc_flags "seam-plugin.pc links -lseam" grep -q -e "-lseam" "$tmp/pc_flags.out"
run pc_includedir "$PKG_CONFIG" --variable=includedir seam
check pc_includedir "seam.pc's include dir holds <seam/plugin.h>" \
    test -f "$destdir$(cat "$tmp/pc_includedir.out")/seam/plugin.h"

# ---- build the template out of tree -----------------------------------------------------
cp -R "$template" "$tmp/hello"
chmod -R u+w "$tmp/hello"
run build make -C "$tmp/hello"
check build "the template builds against the installed SDK" test "$rc" -eq 0 -a -f "$tmp/hello/hello.so"
checks=$((checks + 1))
srcdir=$(cd "$(dirname "$0")/.." && pwd)
if grep -q -e "$srcdir/sdk" -e "$srcdir/libcore" "$tmp/build.out" 2>/dev/null; then
    fail "build: the template build refers to the source tree"
    show build >&2
else
    ok "build: no path into the source tree"
fi

run template_check make -C "$tmp/hello" check SEAM="$seam"
check template_check "the template's own make check passes against the installed seam" test "$rc" -eq 0

# ---- drop it into the plugin dir ------------------------------------------------------------
run install make -C "$tmp/hello" install DESTDIR="$destdir"
template_installed=1
check install "make install puts hello.so into the plugin dir and hello.conf into conf.d" \
    test "$rc" -eq 0 -a -f "$destdir$plugindir/hello.so" -a -f "$destdir$confdir/conf.d/hello.conf"

# shellcheck disable=SC2086 # conf_args is empty or "--conf FILE"
run plugins "$seam" $conf_args plugins
check plugins "seam plugins finds hello.so in the plugin dir and loads it" \
    grep -q "^$destdir$plugindir/hello\.so .*providers: .*hello.*  loaded" "$tmp/plugins.out"
sed 's/^/    | /' "$tmp/plugins.out"

# shellcheck disable=SC2086
run providers "$seam" $conf_args providers
check providers "seam providers shows the snippet's providers" \
    grep -q "^  hello-offline: plugin hello-offline (loaded)" "$tmp/providers.out"

# shellcheck disable=SC2086
run config_check "$seam" $conf_args config check
check config_check "seam config check accepts the installed conf with the snippet" test "$rc" -eq 0

# shellcheck disable=SC2086
run chat "$seam" $conf_args chat --provider hello-offline --model hello-1 'installed and found'
check chat "seam chat answers through the out-of-tree plugin" \
    test "$rc" -eq 0 -a "$(cat "$tmp/chat.out")" = "Hello! You said: installed and found"
sed 's/^/    | /' "$tmp/chat.out" "$tmp/chat.err"

# shellcheck disable=SC2086
run chat_json "$seam" $conf_args chat --json --no-stream --provider hello-offline --model hello-1 'json'
check chat_json "the result names the provider" \
    grep -q '"type":"result","provider":"hello-offline","model":"hello-1"' "$tmp/chat_json.out"

# The default chain still answers (offline: the mock, when it was built).
if [ -f "$destdir$plugindir/mock.so" ]; then
    # shellcheck disable=SC2086
    run default "$seam" $conf_args chat 'hello'
    check default "the default chain still answers" test "$rc" -eq 0 -a -s "$tmp/default.out"
fi

# ---- nothing rebuilt, nothing left behind ---------------------------------------------------
fingerprint >"$tmp/core.after"
check core "the installed seam and libseam were not touched" cmp -s "$tmp/core.before" "$tmp/core.after"

run uninstall make -C "$tmp/hello" uninstall DESTDIR="$destdir"
template_installed=
check uninstall "make uninstall removes the plugin and its snippet" \
    test "$rc" -eq 0 -a ! -e "$destdir$plugindir/hello.so" -a ! -e "$destdir$confdir/conf.d/hello.conf"

tl_finish installcheck
