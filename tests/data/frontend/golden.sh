#!/bin/sh
# golden.sh HDGC NAME [--update] — run from the repository root: compares
# `HDGC check examples/NAME.hdg` (stdout, exit code 0) with
# tests/data/frontend/NAME.summary; --update rewrites the golden file instead.
hdgc=$1; name=$2
golden=tests/data/frontend/$name.summary
out=$("$hdgc" check "examples/$name.hdg" 2>&1)
rc=$?
if [ "$rc" != 0 ]; then
    echo "FAIL: hdgc check examples/$name.hdg exited $rc"; printf '%s\n' "$out"; exit 1
fi
if [ "$3" = "--update" ]; then
    printf '%s\n' "$out" > "$golden"; echo "updated $golden"; exit 0
fi
if ! printf '%s\n' "$out" | diff -u "$golden" -; then
    echo "FAIL: summary of examples/$name.hdg differs from $golden (diff above: - golden, + now)"
    exit 1
fi
exit 0
