#!/usr/bin/env python3
"""gen.py — writes the link pages of libseam's section 3 manual, and man3.am.

The pages themselves are written by hand: one page per group of functions that
form one concept (seam_request_new.3 covers new, free and dup). Each page names
every function it documents in its NAME section. For every such name that is
not the page's own, this script writes NAME.3 holding the single line
`.so man3/PAGE.3`, so that `man NAME` shows the page; it deletes link pages no
page names any more; and it writes man3.am, the list of pages and link pages
that Makefile.am installs (man3_MANS) and distributes.

It never touches a hand-written page, so rerunning it loses nothing. Run it by
hand after adding, renaming or regrouping a page, and commit its output:

    python3 doc/man3/gen.py            # write
    python3 doc/man3/gen.py --check    # exit 1 when the output is stale

The output depends only on the pages (sorted, no dates). tests/check-man3.sh
checks the same things without Python.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LINK_RE = re.compile(r"\A\.so man3/([A-Za-z0-9_.-]+\.3)\n\Z")
NAME_RE = re.compile(r"\A[a-z_][a-z0-9_]*\Z")
AM_HEADER = """\
# man3.am — written by doc/man3/gen.py from the pages' NAME sections: do not
# edit, rerun it. MAN3_PAGES are the hand-written pages, MAN3_LINKS the .so
# link pages that make `man FUNCTION` find the page documenting FUNCTION.
"""


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def is_link(text):
    return LINK_RE.match(text) is not None


def names_of(page, text):
    """The comma-separated names before `\\-` in the NAME section."""
    lines = text.split("\n")
    try:
        start = lines.index(".SH NAME") + 1
    except ValueError:
        sys.exit(f"gen.py: {page}: no .SH NAME section")
    words = []
    for line in lines[start:]:
        if line.startswith("."):
            break
        words.append(line)
    head = " ".join(words).split("\\-", 1)
    if len(head) != 2:
        sys.exit(f"gen.py: {page}: NAME has no '\\-' separator")
    names = [n.strip() for n in head[0].split(",")]
    for n in names:
        if not NAME_RE.match(n):
            sys.exit(f"gen.py: {page}: bad name {n!r} in NAME")
    return names


def plan():
    """(pages, links): the hand-written page names and {link file: target}."""
    pages, links, owner = [], {}, {}
    for entry in sorted(os.listdir(HERE)):
        if not entry.endswith(".3"):
            continue
        text = read(os.path.join(HERE, entry))
        if is_link(text):
            continue
        pages.append(entry)
        for name in names_of(entry, text):
            if name in owner:
                sys.exit(f"gen.py: {name} is named by both {owner[name]} and {entry}")
            owner[name] = entry
            if name + ".3" != entry:
                links[name + ".3"] = entry
    for link in links:
        if link in pages:
            sys.exit(f"gen.py: {link} is a page, and also named by {links[link]}")
    return pages, links


def am_text(pages, links):
    def block(var, files):
        body = " \\\n".join("\tdoc/man3/" + f for f in files)
        return f"{var} = \\\n{body}\n"

    return AM_HEADER + block("MAN3_PAGES", pages) + block("MAN3_LINKS", sorted(links))


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] and not check:
        sys.exit("usage: gen.py [--check]")
    pages, links = plan()
    wanted = {link: f".so man3/{target}\n" for link, target in links.items()}
    wanted["man3.am"] = am_text(pages, links)
    stale = [e for e in sorted(os.listdir(HERE))
             if e.endswith(".3") and e not in wanted and is_link(read(os.path.join(HERE, e)))]
    changed = [f for f, t in sorted(wanted.items())
               if not os.path.exists(os.path.join(HERE, f)) or read(os.path.join(HERE, f)) != t]
    if check:
        for f in changed:
            print(f"gen.py: {f} is missing or out of date", file=sys.stderr)
        for f in stale:
            print(f"gen.py: {f} links a name no page documents", file=sys.stderr)
        sys.exit(1 if changed or stale else 0)
    for f in stale:
        os.remove(os.path.join(HERE, f))
    for f in changed:
        with open(os.path.join(HERE, f), "w", encoding="utf-8") as out:
            out.write(wanted[f])
    print(f"gen.py: {len(pages)} pages, {len(links)} link pages "
          f"({len(changed)} written, {len(stale)} removed)")


if __name__ == "__main__":
    main()
