#!/bin/sh
# run_case.sh RC REGEX COMMAND — one row of a tests/hostile table (see README.md).
want=$1; res=$2; cmd=$3
T=$(mktemp -d "${TMPDIR:-/tmp}/hostile.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export T
export HDGC_CACHE_DIR="$T/cache"
cd "$T" || exit 1
out=$(sh -c "$cmd" 2>&1)
rc=$?
fail=0
if [ "$want" = "-" ]; then
    [ "$rc" -ne 0 ] || { echo "FAIL: exit code 0, expected non-zero"; fail=1; }
elif [ "$rc" != "$want" ]; then
    echo "FAIL: exit code $rc, expected $want"; fail=1
fi
if [ "$res" != "-" ]; then
    rest=$res
    while [ -n "$rest" ]; do
        case "$rest" in
        *" && "*) re=${rest%% && *}; rest=${rest#* && } ;;
        *) re=$rest; rest="" ;;
        esac
        case "$re" in
        !*) printf '%s\n' "$out" | grep -Eq -- "${re#!}" && { echo "FAIL: output has /${re#!}/"; fail=1; } ;;
        *) printf '%s\n' "$out" | grep -Eq -- "$re" || { echo "FAIL: output lacks /$re/"; fail=1; } ;;
        esac
    done
fi
if [ $fail -ne 0 ]; then
    echo "--- command: $cmd"; echo "--- output:"; printf '%s\n' "$out" | tail -n 40; exit 1
fi
exit 0
