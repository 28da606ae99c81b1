#!/bin/sh
# valgrind_kernels.sh HDGC EXAMPLES K — memcheck over `hdgc run poisson.hdg --order K`,
# the JIT-compiled kernels included (JIT code is not ASan-instrumented: memcheck is
# the tool). Exit 77 (skipped) without valgrind.
#
# The kernel cache is warmed first under valgrind's null tool: valgrind's floating
# point differs from the CPU's in the last bits, so the quadrature tables baked into
# the generated source differ and a natively warmed cache misses; Clang itself under
# memcheck would take minutes. The memcheck run must then load its kernels from cache.
command -v valgrind > /dev/null 2>&1 || { echo "valgrind not found: skipped"; exit 77; }
hdgc=$1; ex=$2; k=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/hdgc-vg.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
export HDGC_CACHE_DIR="$dir/cache"
set -- "$hdgc" run "$ex/poisson.hdg" --order "$k" --mesh square:1
if ! valgrind --tool=none -q "$@" > "$dir/warm.log" 2>&1; then
    cat "$dir/warm.log"; echo "FAIL: warm-up run under valgrind --tool=none"; exit 1
fi
valgrind --error-exitcode=9 -q "$@" > "$dir/check.log" 2>&1
rc=$?
cat "$dir/check.log"
[ $rc -eq 0 ] || { echo "FAIL: memcheck exit code $rc (9: errors reported above)"; exit 1; }
grep -q "kernels from cache" "$dir/check.log" || { echo "FAIL: kernels compiled under memcheck (cache not warm)"; exit 1; }
grep -Eq "L2 error u +[0-9.]+e-(0[7-9]|[1-9][0-9])" "$dir/check.log" || { echo "FAIL: no accurate L2 error of u"; exit 1; }
echo "memcheck clean at order $k"
