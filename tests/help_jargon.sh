#!/bin/sh
# tests/help_jargon.sh HDGC ROOT: no help text of a command speaks the project's internal jargon
# (seed 000, issue N, session N, a MATH.md or DESIGN.md outside the repository), and no document
# of the repository points outside it (../shared, MATH.md): the mathematics is docs/method.md.
hdgc=$1; root=$2; bad=0
pat='seed 0[0-9][0-9]|issue [0-9]|[Ss]ession [0-9]|MATH\.md|DESIGN\.md|\.\./shared'
for c in run check convergence ir emit mesh "bench spmv" "bench pipeline" "bench stages" "bench kernels" \
         "bench partition"; do
    # shellcheck disable=SC2086
    if "$hdgc" $c --help 2>&1 | grep -n -E "$pat"; then echo "FAIL: hdgc $c --help"; bad=1; fi
done
if "$hdgc" --help 2>&1 | grep -n -E "$pat"; then echo "FAIL: hdgc --help"; bad=1; fi
if grep -n -E 'MATH\.md|DESIGN\.md|\.\./shared' "$root"/README.md "$root"/docs/*.md "$root"/python/README.md; then
    echo "FAIL: a document points outside the repository"; bad=1
fi
[ $bad = 0 ] && echo "help texts and documents: ok"
exit $bad
