#!/bin/sh
# check-man3.sh — libseam's section 3 manual (doc/man3) against the library.
#
#  1. every function the public headers declare with SEAM_EXPORT, and every
#     seam_* symbol the built libseam.so exports, has a page: NAME.3, either a
#     hand-written page or a `.so` link page, so that `man NAME` works;
#  2. that page lists NAME in its NAME section and shows the header's exact
#     prototype in its SYNOPSIS (compared on the rendered text);
#  3. every link page points at a hand-written page that names it, every name a
#     page lists has its link page, and man3.am (what Makefile.am installs)
#     lists every file: i.e. doc/man3/gen.py's output is up to date;
#  4. every page renders without a warning: groff -man -ww, and man --warnings
#     as lintian runs it; mandoc -T lint too when mandoc is installed; and
#     no word (an identifier) is hyphenated at a line end;
#  5. every EXAMPLE is escaped for any groff (no bare - or ' in the code), and,
#     as rendered, compiles with -Wall -Wextra -Werror against the headers,
#     links against the built libseam and runs against the mock provider,
#     printing what it should.
#
# Run by `make check` with top_srcdir and top_builddir set; exits 0 when every
# check passes, 77 (skipped) without groff.
set -u

: "${top_srcdir:?top_srcdir must be set (run through make check)}"
: "${top_builddir:?top_builddir must be set (run through make check)}"
MAN3=$top_srcdir/doc/man3
HEADERS="$top_srcdir/libcore/seam/types.h $top_srcdir/libcore/seam/seam.h
$top_srcdir/libcore/seam/loop.h $top_srcdir/sdk/seam/plugin.h
$top_srcdir/libcore/seam/embed.h $top_srcdir/sdk/seam/codec.h
$top_srcdir/libcore/seam/mediagen.h
$top_srcdir/libcore/seam/transcribe.h"
LIBSEAM=$top_builddir/.libs/libseam.so
PLUGINS=${SEAM_TEST_PLUGIN_DIR:-$top_builddir/plugins/.libs}

if ! command -v groff >/dev/null 2>&1; then
    echo "check-man3: groff is not installed: the manual is not checked" >&2
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-man3.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
fail=0
bad() {
    echo "FAIL: $*" >&2
    fail=1
}

# ---- what the library exports ---------------------------------------------------

# libseam-openai-compat's header marks its exports with a macro of its own:
# read it as the others.
sed 's/SEAM_OPENAI_COMPAT_EXPORT /SEAM_EXPORT /' "$top_srcdir/sdk/seam/openai_compat.h" \
    >"$tmp/openai_compat.h"
HEADERS="$HEADERS $tmp/openai_compat.h"

# "name<TAB>prototype" for every SEAM_EXPORT declaration of the headers:
# comments and preprocessor lines dropped, the declaration read up to the
# parenthesis closing its parameter list, white space squeezed.
# shellcheck disable=SC2086
awk '
    /^[ \t]*#/ { next }
    { text = text " " $0 }
    END {
        while ((i = index(text, "/*")) > 0) {
            rest = substr(text, i + 2)
            j = index(rest, "*/")
            text = substr(text, 1, i - 1) " " (j ? substr(rest, j + 2) : "")
        }
        while ((i = index(text, "SEAM_EXPORT ")) > 0) {
            text = substr(text, i + 12)
            depth = 0; opened = 0
            for (k = 1; k <= length(text); k++) {
                c = substr(text, k, 1)
                if (c == "(") { depth++; opened = 1 }
                else if (c == ")" && --depth == 0 && opened) break
            }
            proto = substr(text, 1, k)
            text = substr(text, k + 1)
            gsub(/[ \t]+/, " ", proto)
            gsub(/\( /, "(", proto)
            gsub(/ \)/, ")", proto)
            sub(/^ /, "", proto)
            name = substr(proto, 1, index(proto, "(") - 1)
            sub(/.*[ *]/, "", name)
            print name "\t" proto
        }
    }' $HEADERS | sort >"$tmp/protos"
cut -f1 "$tmp/protos" >"$tmp/declared"
if [ "$(wc -l <"$tmp/declared")" -lt 100 ]; then
    bad "found only $(wc -l <"$tmp/declared") declarations in the headers: the parser is broken"
fi
for n in $(uniq -d "$tmp/declared"); do
    bad "$n is declared twice in the headers"
done

: >"$tmp/exported"
if [ -f "$LIBSEAM" ] && command -v nm >/dev/null 2>&1; then
    nm -D --defined-only "$LIBSEAM" | awk '$3 ~ /^seam_/ { print $3 }' | sort -u >"$tmp/exported"
    comm -13 "$tmp/declared" "$tmp/exported" | while read -r n; do
        echo "FAIL: libseam.so exports $n, which no public header declares" >&2
    done >"$tmp/undeclared" 2>&1
    if [ -s "$tmp/undeclared" ]; then
        cat "$tmp/undeclared" >&2
        fail=1
    fi
else
    echo "check-man3: $LIBSEAM not built (or no nm): names come from the headers only" >&2
fi
sort -u "$tmp/declared" "$tmp/exported" >"$tmp/names"

# ---- the pages: rendered once, their NAME lists read ---------------------------

is_link() { head -n 1 "$1" | grep -q '^\.so man3/'; }
# The names before \- in a page's NAME section, one a line.
page_names() {
    awk '/^\.SH NAME$/ { on = 1; next } on && /^\./ { exit } on { print }' "$1" |
        tr '\n' ' ' | sed 's/\\-.*//' | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -v '^$'
}
# Plain text of a page as man shows it, without bold or underline.
render() { (cd "$top_srcdir/doc" && groff -man -Tutf8 -P-cbou "man3/$1" 2>/dev/null); }
# The body of section $2 of rendered text $1 on one line, white space squeezed
# as the prototypes' is.
section_line() {
    awk -v s="$2" '$0 == s { on = 1; next } on && /^[A-Z]/ { exit } on { print }' "$1" |
        tr '\n' ' ' | tr -s ' \t' '  ' | sed 's/( /(/g; s/ )/)/g'
}

mkdir "$tmp/r"
: >"$tmp/pages"
: >"$tmp/links"
for f in "$MAN3"/*.3; do
    base=${f##*/}
    if is_link "$f"; then
        echo "$base" >>"$tmp/links"
        continue
    fi
    echo "$base" >>"$tmp/pages"
    render "$base" >"$tmp/r/$base"
    page_names "$f" >"$tmp/r/$base.names"
    section_line "$tmp/r/$base" SYNOPSIS >"$tmp/r/$base.synopsis"
done
npages=$(wc -l <"$tmp/pages")

# ---- 1, 2: every function has a page showing its prototype ----------------------

while read -r name; do
    f=$MAN3/$name.3
    if [ ! -f "$f" ]; then
        bad "no page for $name (doc/man3/$name.3): document it, then run doc/man3/gen.py"
        continue
    fi
    page=$name.3
    if is_link "$f"; then
        page=$(sed -n '1s|^\.so man3/||p' "$f")
    fi
    if [ ! -f "$tmp/r/$page" ]; then
        bad "$name.3 links to $page, which is not a hand-written page"
        continue
    fi
    grep -qx "$name" "$tmp/r/$page.names" || bad "$page documents $name but its NAME does not list it"
    proto=$(awk -F '\t' -v n="$name" '$1 == n { print $2 }' "$tmp/protos")
    if [ -z "$proto" ]; then
        bad "$name is exported but declared in no public header"
    elif ! grep -qF "$proto" "$tmp/r/$page.synopsis"; then
        bad "the SYNOPSIS of $page does not show the prototype of $name: $proto;"
    fi
done <"$tmp/names"

# ---- 3: link pages and man3.am match the pages ----------------------------------

while read -r base; do
    target=$(sed -n '1s|^\.so man3/||p' "$MAN3/$base")
    if [ "$(wc -l <"$MAN3/$base")" -ne 1 ]; then
        bad "$base: a link page is the single line .so man3/PAGE.3"
    elif [ ! -f "$tmp/r/$target" ]; then
        bad "$base links to $target, which is not a hand-written page"
    elif ! grep -qx "${base%.3}" "$tmp/r/$target.names"; then
        bad "$base links to $target, whose NAME does not list ${base%.3}: rerun doc/man3/gen.py"
    fi
done <"$tmp/links"
while read -r base; do
    while read -r n; do
        [ "$n.3" = "$base" ] && continue
        [ -f "$MAN3/$n.3" ] || bad "$base lists $n but doc/man3/$n.3 is missing: rerun doc/man3/gen.py"
    done <"$tmp/r/$base.names"
done <"$tmp/pages"
sed -n 's|^[ \t]*doc/man3/\([^ \t]*\.3\).*|\1|p' "$MAN3/man3.am" | sort >"$tmp/am"
sort "$tmp/pages" "$tmp/links" >"$tmp/files"
if ! cmp -s "$tmp/am" "$tmp/files"; then
    bad "doc/man3/man3.am does not list exactly the pages of doc/man3 (rerun doc/man3/gen.py):"
    diff "$tmp/am" "$tmp/files" | sed -n 's/^[<>]/  &/p' >&2
fi

# ---- 4: every page renders without a warning -------------------------------------

have_man=0
command -v man >/dev/null 2>&1 && have_man=1
have_mandoc=0
if command -v mandoc >/dev/null 2>&1; then
    have_mandoc=1
else
    echo "check-man3: mandoc is not installed: mandoc -T lint skipped (groff and man still run)" >&2
fi
while read -r base; do
    out=$(cd "$top_srcdir/doc" && groff -man -ww -z -Tutf8 "man3/$base" 2>&1)
    [ -z "$out" ] || bad "groff -man -ww man3/$base: $out"
    if [ $have_man = 1 ]; then
        # What lintian runs on an installed page.
        out=$(cd "$top_srcdir/doc" && LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
              man --warnings -E UTF-8 -l -Tutf8 -Z "man3/$base" 2>&1 >/dev/null)
        [ -z "$out" ] || bad "man --warnings -l man3/$base: $out"
    fi
    # A word broken at a line end cannot be copied: identifiers must not be.
    if [ -f "$tmp/r/$base" ] && grep -q '[a-z0-9_]‐$' "$tmp/r/$base"; then
        bad "man3/$base hyphenates words at line ends (.nr HY 0 after .nh): $(grep '‐$' "$tmp/r/$base" | head -n 1)"
    fi
    if [ $have_mandoc = 1 ] && grep -qx "$base" "$tmp/pages"; then
        # (mandoc calls any .so fragile: only the pages themselves)
        out=$(cd "$top_srcdir/doc" && mandoc -T lint -W warning "man3/$base" 2>&1)
        [ -z "$out" ] || bad "mandoc -T lint: $out"
    fi
done <"$tmp/files"

# ---- 5: the examples compile, link and run ----------------------------------------

# Build flags of this tree (the examples must be built like libseam when it
# carries sanitizers).
mkvar() { sed -n "s/^$1 = //p" "$top_builddir/Makefile" | head -n 1; }
CC_=$(mkvar CC)
SAN_CFLAGS_=$(mkvar SAN_CFLAGS)
SAN_LDFLAGS_=$(mkvar SAN_LDFLAGS)
: "${CC_:=cc}"
can_compile=1
if ! command -v "${CC_%% *}" >/dev/null 2>&1; then
    echo "check-man3: no C compiler ($CC_): the examples are not compiled" >&2
    can_compile=0
fi
can_run=1
if [ ! -f "$LIBSEAM" ] || [ ! -f "$PLUGINS/mock.so" ]; then
    echo "check-man3: libseam or the mock plugin is not built: the examples are compiled only" >&2
    can_run=0
fi

# The confs the examples run against: a plain answer, and a turn that calls
# the tool "clock" before answering (the mock's replies follow the number of
# assistant messages in the request).
cat >"$tmp/plain.conf" <<EOF
plugin_path = [ "$PLUGINS" ];
providers = { mock = { plugin = "mock";
                       options = { reply = "Paris is the capital of France."; }; }; };
chains = { default = ( { provider = "mock"; model = "mock-1"; } ); };
roles = { assistant = "default"; };
EOF
cat >"$tmp/tools.conf" <<EOF
plugin_path = [ "$PLUGINS" ];
providers = { mock = { plugin = "mock"; options = { replies = (
    { reply = ""; tool_calls = ( { id = "c1"; name = "clock"; } ); },
    { reply = "It is 12:00."; } ); }; }; };
chains = { default = ( { provider = "mock"; model = "mock-1"; } ); };
roles = { assistant = "default"; };
EOF
# Every EXAMPLE program: its page, its conf, and what its output must contain.
cat >"$tmp/expect" <<'EOF'
seam.3	plain	Paris is the capital of France.
seam_cancel_new.3	plain	Paris is the capital of France.
seam_client_new.3	plain	mock: plugin mock, credential none
seam_count_tokens.3	plain	5 tokens for mock/mock-1 (exact)
seam_embed.3	plain	input 1: 16 dimensions
seam_executor_run.3	tools	<- clock "12:00"
seam_generate.3	plain	Paris is the capital of France.
seam_history_apply.3	plain	trip-planning: 4 items, then 2; the undo point has 2
seam_loop_generate.3	tools	It is 12:00.
seam_loop_stream_open.3	plain	Paris is the capital of France.
seam_message_add_text.3	plain	2 parts: What is in this picture?
seam_message_add_media_meta.3	plain	hello.wav 4
seam_media_put.3	plain	media://sha256-ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
seam_media_fetch.3	plain	refused: media URL: host 169.254.169.254 resolves to 169.254.169.254, a cloud metadata address
seam_part_get_type.3	plain	c1 weather({"city":"Oslo"})
seam_request_set.3	plain	1 tool(s), choice weather, max 500 tokens
seam_result_new.3	plain	Hello, world. (stop, 2 tokens)
seam_schema_validate.3	plain	rejected: /city
seam_session_new.3	plain	(4 messages)
seam_stream_next_nowait.3	plain	[1] Paris is the capital of France.
seam_stream_open.3	plain	Paris is the capital of France.
EOF

nexamples=0
while read -r base; do
    # Code (every .EX block) is escaped so that any groff shows ASCII: \- for
    # -, \(aq for ', \(ga for `. (Debian's groff maps - and ' to ASCII anyway,
    # groff 1.23 elsewhere does not.)
    awk -v p="$base" '
        BEGIN { q = sprintf("%c", 39) }
        /^\.EX/ { code = 1; next }
        /^\.EE/ { code = 0 }
        code {
            line = $0
            gsub(/\\e/, "", line); gsub(/\\-/, "", line)
            if (index(line, "-") || index(line, q) || index(line, "`"))
                printf "FAIL: %s:%d: write - as \\-, %s as \\(aq and ` as \\(ga in code: %s\n", p, NR, q, $0
        }' "$MAN3/$base" >"$tmp/escapes"
    if [ -s "$tmp/escapes" ]; then
        cat "$tmp/escapes" >&2
        fail=1
    fi
    grep -q '^\.SH EXAMPLE$' "$MAN3/$base" || continue
    nexamples=$((nexamples + 1))
    [ $can_compile = 1 ] || continue
    # The program as rendered: the code lines of the EXAMPLE section, indented
    # 11 columns (the section's 7 and .in +4n).
    awk '$0 == "EXAMPLE" { on = 1; next } on && /^[A-Z]/ { exit } on { print }' "$tmp/r/$base" |
        awk '/^           / { code = 1 } code && (/^           / || /^$/) { print substr($0, 12) }' \
        >"$tmp/ex.c"
    ex=$tmp/ex-${base%.3}
    # shellcheck disable=SC2086
    if ! $CC_ -std=c11 -Wall -Wextra -Werror $SAN_CFLAGS_ -I"$top_srcdir/libcore" -I"$top_srcdir/sdk" \
         -c -o "$ex.o" "$tmp/ex.c" 2>"$tmp/cc.err"; then
        bad "the EXAMPLE of $base does not compile:"
        sed 's/^/  /' "$tmp/cc.err" >&2
        continue
    fi
    # A plugin's example has no main: compiled only. A program must link, run
    # and print what the table above says.
    grep -q '^int main(' "$tmp/ex.c" || continue
    line=$(awk -F '\t' -v p="$base" '$1 == p' "$tmp/expect")
    if [ -z "$line" ]; then
        bad "the EXAMPLE of $base is a program, but this script does not say what it prints"
        continue
    fi
    [ $can_run = 1 ] || continue
    # shellcheck disable=SC2086
    if ! $CC_ $SAN_LDFLAGS_ -o "$ex" "$ex.o" -L"$top_builddir/.libs" -lseam \
         -Wl,-rpath,"$top_builddir/.libs" 2>"$tmp/cc.err"; then
        bad "the EXAMPLE of $base does not link:"
        sed 's/^/  /' "$tmp/cc.err" >&2
        continue
    fi
    conf=$(echo "$line" | cut -f2)
    want=$(echo "$line" | cut -f3)
    run=$ex
    command -v timeout >/dev/null 2>&1 && run="timeout 60 $ex"
    # shellcheck disable=SC2086
    if ! (cd "$tmp" && SEAM_CONF="$tmp/$conf.conf" SEAM_PLUGIN_PATH='' $run) >"$tmp/out" 2>&1 </dev/null; then
        bad "the EXAMPLE of $base failed:"
        sed 's/^/  /' "$tmp/out" >&2
    elif ! grep -qF -- "$want" "$tmp/out"; then
        bad "the EXAMPLE of $base does not print \"$want\":"
        sed 's/^/  /' "$tmp/out" >&2
    fi
done <"$tmp/pages"
awk -F '\t' '{ print $1 }' "$tmp/expect" | while read -r base; do
    grep -q '^\.SH EXAMPLE$' "$MAN3/$base" 2>/dev/null || echo "FAIL: $base has no EXAMPLE section" >&2
done 2>"$tmp/noex"
if [ -s "$tmp/noex" ]; then
    cat "$tmp/noex" >&2
    fail=1
fi

echo "check-man3: $(wc -l <"$tmp/names") functions, $npages pages, $(wc -l <"$tmp/links") link pages," \
     "$nexamples examples"
exit $fail
