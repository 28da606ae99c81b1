#!/bin/sh
# cli_expect.sh RC [-e REGEX]... [-n REGEX]... -- CMD ARGS...
# Runs CMD, then asserts its exit code equals RC, every -e extended regex
# matches its combined stdout+stderr, and no -n regex does. Prints the
# output on failure.
want_rc=$1; shift
pos=""; neg=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    case "$1" in
    -e) pos="$pos
$2"; shift 2 ;;
    -n) neg="$neg
$2"; shift 2 ;;
    *) echo "cli_expect: bad option $1" >&2; exit 2 ;;
    esac
done
shift
out=$("$@" 2>&1)
rc=$?
fail=0
if [ "$rc" != "$want_rc" ]; then
    echo "FAIL: exit code $rc, expected $want_rc"; fail=1
fi
IFS='
'
for re in $pos; do
    printf '%s\n' "$out" | grep -Eq -- "$re" || { echo "FAIL: output lacks /$re/"; fail=1; }
done
for re in $neg; do
    printf '%s\n' "$out" | grep -Eq -- "$re" && { echo "FAIL: output has /$re/"; fail=1; }
done
if [ $fail -ne 0 ]; then
    echo "--- command: $*"; echo "--- output:"; printf '%s\n' "$out"; exit 1
fi
exit 0
