#!/bin/sh
# deb-test.sh — the Debian packages as a user meets them: build the .deb set,
# check it with lintian, install the library, the command and ONE plugin
# package, and show that seam sees only that plugin and that the default
# chain skips the providers whose packages are missing; then add a second
# plugin package and show the default chain answered by it. Everything
# installed is purged at the end. Not run by `make check` (it needs root and
# dpkg); .ci/run runs it.
#
#   tests/deb-test.sh [DEB_DIR]
#
# DEB_DIR holds already built packages (*_VERSION_ARCH.deb); without it the
# packages are built from a copy of this source tree with
# `dpkg-buildpackage -us -uc -b` (the test suite is skipped with
# DEB_BUILD_OPTIONS=nocheck unless DEB_TEST_RUN_CHECK=1: CI runs it already).
# Needs root or sudo, and none of the seam packages installed already (the
# script refuses to replace them; exit status 77 then, as for a skip).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
SUDO=
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        SUDO=sudo
    else
        echo "deb-test: needs root or password-less sudo to install packages; skipped" >&2
        exit 77
    fi
fi
for tool in dpkg dpkg-buildpackage; do
    command -v "$tool" >/dev/null || { echo "deb-test: $tool is missing; skipped" >&2; exit 77; }
done

packages="libseam0 libseam-dev seam seam-plugin-mock seam-plugin-openai seam-plugin-anthropic seam-plugin-gemini seam-state-redis"
for p in $packages; do
    if dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'installed'; then
        echo "deb-test: $p is installed already; not replacing it (dpkg --purge it first)" >&2
        exit 77
    fi
done

. "$(dirname "$0")/testlib.sh"
installed=
tl_cleanup() {
    if [ -n "$installed" ]; then
        # shellcheck disable=SC2086
        $SUDO dpkg --purge $installed >/dev/null 2>&1
    fi
}
tl_tmpdir "${TMPDIR:-/tmp}/seam-deb.XXXXXX" 755
# What seam printed, shown to the reader (testlib's show labels the streams).
show() {
    sed 's/^/    | /' "$tmp/$1.out" "$tmp/$1.err"
}

# ---- the packages ---------------------------------------------------------------------------
if [ $# -ge 1 ]; then
    debs=$(cd "$1" && pwd) || exit 2
else
    echo "== building the packages (dpkg-buildpackage -us -uc -b)"
    version=$(sed -n '1s/^seam (\([^)-]*\).*/\1/p' "$top/debian/changelog")
    src=$tmp/build/seam-$version
    mkdir -p "$src"
    # A copy of the sources: nothing is built or written in the tree itself.
    (cd "$top" && tar --exclude=.git --exclude=autom4te.cache --exclude='./_build' \
        --exclude='*.o' --exclude='*.lo' --exclude='*.la' --exclude=.libs --exclude=.deps \
        -cf - .) | (cd "$src" && tar -xf -) || exit 1
    opts=nocheck
    [ "${DEB_TEST_RUN_CHECK:-0}" = 1 ] && opts=
    if ! (cd "$src" && DEB_BUILD_OPTIONS=$opts dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; then
        tail -40 "$tmp/build.log" >&2
        echo "deb-test: dpkg-buildpackage failed" >&2
        exit 1
    fi
    debs=$tmp/build
fi
deb() { # deb PACKAGE: the path of its .deb
    ls "$debs/$1"_*.deb 2>/dev/null | grep -v dbgsym | head -1
}
for p in $packages; do
    [ -n "$(deb "$p")" ] || { echo "deb-test: no $p .deb in $debs" >&2; exit 1; }
done

if command -v lintian >/dev/null; then
    changes=$(ls "$debs"/*.changes 2>/dev/null | head -1)
    if [ -n "$changes" ]; then
        run lintian lintian "$changes"
    else
        # shellcheck disable=SC2046
        run lintian lintian $(for p in $packages; do deb "$p"; done)
    fi
    check lintian "lintian reports no errors" sh -c "! grep -q '^E:' '$tmp/lintian.out'"
    grep -c '^W:' "$tmp/lintian.out" | sed 's/^/    lintian warnings: /'
fi

# Per plugin: its .so and its conf.d snippet, nothing else.
for p in mock openai anthropic gemini; do
    dpkg-deb -c "$(deb "seam-plugin-$p")" | awk '{print $6}' >"$tmp/contents-$p.out"
    : >"$tmp/contents-$p.err"
    check "contents-$p" "seam-plugin-$p ships $p.so and conf.d/$p.conf" sh -c \
        "grep -q '/seam/plugins/$p\\.so\$' '$tmp/contents-$p.out' &&
         grep -q '^\\./etc/seam/conf\\.d/$p\\.conf\$' '$tmp/contents-$p.out' &&
         [ \$(grep -c '/seam/plugins/.*\\.so\$' '$tmp/contents-$p.out') -eq 1 ]"
done

# ---- libseam0, seam and only seam-plugin-openai -----------------------------------------------
echo "== dpkg -i libseam0 seam seam-plugin-openai"
installed="seam-plugin-openai seam libseam0"
if ! $SUDO dpkg -i "$(deb libseam0)" "$(deb seam)" "$(deb seam-plugin-openai)" >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log" >&2
    echo "deb-test: dpkg -i failed (missing dependencies? apt-get install the runtime libraries)" >&2
    exit 1
fi

# Nothing of the user's may take part: no conf, plugin dir or credential.
unset SEAM_CONF OPENAI_API_KEY ANTHROPIC_API_KEY GEMINI_API_KEY GOOGLE_API_KEY
SEAM_PLUGIN_PATH=
HOME=$tmp/home
XDG_CONFIG_HOME=$tmp/home/.config
mkdir -p "$HOME"
export SEAM_PLUGIN_PATH HOME XDG_CONFIG_HOME
seam=/usr/bin/seam

# A libseam.so.0 from a source install in /usr/local would shadow the package's.
ldd "$seam" | grep 'libseam\.so' >"$tmp/ldd.out"
: >"$tmp/ldd.err"
check ldd "/usr/bin/seam uses the packaged libseam" sh -c "! grep -q /usr/local '$tmp/ldd.out'"

run plugins "$seam" plugins
show plugins
check plugins "seam plugins lists the openai plugin, loaded" \
    grep -q '/seam/plugins/openai\.so  abi [0-9.]*  providers: openai  loaded$' "$tmp/plugins.out"
check plugins "seam plugins lists no other plugin" test "$(grep -c '\.so ' "$tmp/plugins.out")" -eq 1

run providers "$seam" providers
show providers
check providers "the providers are those of conf.d/openai.conf" sh -c \
    "grep -q '^  openai: plugin openai (loaded)' '$tmp/providers.out' &&
     grep -q '^  local: plugin openai (loaded)' '$tmp/providers.out' &&
     ! grep -q -e '^  anthropic:' -e '^  gemini:' -e '^  mock:' '$tmp/providers.out'"

run config_check "$seam" config check
show config_check
check config_check "the installed conf checks ok" test "$rc" -eq 0
for p in anthropic gemini mock; do
    check config_check "a warning says the $p entry of the default chain is skipped" \
        grep -q "warning: .*chains\.default\[[0-9]\] names provider \"$p\", which is not defined: the entry is skipped" \
        "$tmp/config_check.err"
done

# -v prints every attempt of the chain: the missing providers are skipped.
run chat "$seam" chat -v hello
show chat
for p in anthropic gemini; do
    check chat "the default chain skips $p: not configured" \
        grep -q "$p .*skipped.*provider \"$p\" is not configured" "$tmp/chat.err"
done
if [ "$rc" -eq 0 ]; then
    # Only possible when an OpenAI-compatible server answers on 127.0.0.1:11434.
    check chat "the default chain answered through the local provider" \
        grep -q 'provider: local' "$tmp/chat.err"
else
    check chat "with no key and no local server, seam chat fails with status 1" test "$rc" -eq 1
    check chat "the default chain skips mock: not configured" \
        grep -q "mock .*skipped.*provider \"mock\" is not configured" "$tmp/chat.err"
fi

# ---- one more plugin package: the offline mock answers ------------------------------------------
echo "== dpkg -i seam-plugin-mock"
installed="seam-plugin-mock $installed"
if ! $SUDO dpkg -i "$(deb seam-plugin-mock)" >"$tmp/install-mock.log" 2>&1; then
    cat "$tmp/install-mock.log" >&2
    exit 1
fi
run chat_mock "$seam" chat hello
show chat_mock
check chat_mock "with seam-plugin-mock installed, the default chain ends at the mock" sh -c \
    "[ $rc -eq 0 ] && grep -q 'provider: mock' '$tmp/chat_mock.err'"
run plugins_two "$seam" plugins
check plugins_two "seam plugins now lists two plugins" test "$(grep -c '\.so .* loaded$' "$tmp/plugins_two.out")" -eq 2

# The manual pages open by name.
if command -v man >/dev/null; then
    for page in seam seam.conf seam-providers; do
        run "man_$page" man -w "$page"
        check "man_$page" "man $page opens the packaged page" grep -q "^/usr/share/man/" "$tmp/man_$page.out"
    done
fi

# ---- purge ---------------------------------------------------------------------------------------
# shellcheck disable=SC2086
$SUDO dpkg --purge $installed >"$tmp/purge.log" 2>&1
installed=
: >"$tmp/purged.out"
for f in /usr/bin/seam /etc/seam/seam.conf /etc/seam/conf.d/openai.conf /etc/seam/conf.d/mock.conf; do
    [ -e "$f" ] && echo "$f" >>"$tmp/purged.out"
done
: >"$tmp/purged.err"
check purged "dpkg --purge leaves nothing behind" test ! -s "$tmp/purged.out"

tl_finish deb-test
