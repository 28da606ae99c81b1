#!/bin/sh
# tests/hostile/solvers.sh "SOLVER PRECOND"... -- ARGS: `$HDGC run ARGS` with each solver and
# preconditioner ('-': the default), one line each: "[SOLVER PRECOND] EXIT VERDICT", VERDICT
# "answered" (an L2 error printed), "singular" (refused as singular) or "other". For rows
# that loop over solvers (a row cannot hold a ';': CMake splits there).
pairs=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do pairs="$pairs$1
"; shift; done
shift
echo "$pairs" | while read -r s p; do
    [ -z "$s" ] && continue
    a=""
    [ "$s" != - ] && a="--solver $s"
    [ "$p" != - ] && a="$a --precond $p"
    # shellcheck disable=SC2086
    "$HDGC" run "$@" $a > solvers.out 2>&1
    rc=$?
    w=other
    grep -q "trace system is singular" solvers.out && w=singular
    grep -q "L2 error" solvers.out && w=answered
    echo "[$s $p] $rc $w"
done
