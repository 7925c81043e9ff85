#!/bin/sh
# smoke.sh — the sampled allocation-failure torture run of `make check`: every
# 17th allocation of each scenario fails in turn, for at most 60 s; the full
# run is `make torture` (torture.py, doc/reliability.md). Exit 77 (skip) where
# the shim cannot work, as in a sanitizer build. Every scenario must be clean:
# a wrong success fails the check as a crash or a hang does.
: "${top_builddir:?top_builddir must be set (run through make check)}"
: "${top_srcdir:?top_srcdir must be set (run through make check)}"
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
exec python3 "$top_srcdir/tests/torture/torture.py" --stride 17 --offset 11 --jobs 2 --budget 60 -v
