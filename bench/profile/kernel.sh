#!/bin/sh
# bench/profile/kernel.sh HDGC FILE.hdg ORDER KERNEL [DIR]
#
# Times one generated HDG element kernel (e.g. poisson_exp_post) outside hdgc: `hdgc emit`
# writes the module's C (batched as `hdgc run` would: HDGC_BATCH, HDGC_JIT_CPU apply), clang-14
# compiles it with the JIT's options (-O3, no loop unrolling, libmvec, vectorizer minimum trip
# count 4), kernel_driver.c runs the kernel over square:64 and prints its best time per
# element. With PERF=1, `perf record` and the kernel's hottest source lines (compiled -g).
# Environment: CPU (clang -march; default HDGC_JIT_CPU, else native), REPS (default 200, fewer where they would take more than about 5 s),
# CC (default clang-14). DIR keeps the files (default a temporary directory, removed).
# See bench/README.md, "Profiling one generated kernel".
set -e
if [ $# -lt 4 ]; then
    echo "usage: $0 HDGC FILE.hdg ORDER KERNEL [DIR]" >&2
    exit 2
fi
hdgc=$1 file=$2 order=$3 kernel=$4
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${5:-}
if [ -z "$dir" ]; then
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"
cc=${CC:-clang-14}
cpu=${CPU:-${HDGC_JIT_CPU:-native}}
"$hdgc" emit "$file" --order "$order" -o "$dir" >/dev/null
src=$(ls "$dir"/*.c | head -n 1)
body=$(awk -v k="$kernel" '$0 ~ "^void " k "\\(long long begin" && /\{?$/ {p = 1} p {print} p && /^}/ {exit}' "$src")
if [ -z "$body" ]; then
    echo "$0: no kernel '$kernel' in $src; its kernels:" >&2
    grep -E '^void [a-z0-9_]+\(long long begin' "$src" | sed -E 's/^void ([a-z0-9_]+).*/  \1/' | sort -u >&2
    exit 2
fi
if ! "$hdgc" ir "$file" --order "$order" | grep -q "^kernel $kernel (per element)"; then
    echo "$0: '$kernel' is not an element kernel (kernel_driver.c runs element kernels only)" >&2
    exit 2
fi
stride=$(printf '%s\n' "$body" | sed -nE 's/.*a->geom \+ (hdg_el\[l\]|e) \* ([0-9]+).*/\2/p' | head -n 1)
[ -n "$stride" ] || { echo "$0: '$kernel' reads no element geometry (not an element kernel?)" >&2; exit 2; }
slot=$(printf '%s\n' "$body" | sed -nE 's/.*a->(in|out)\[[0-9]+\] \+ (hdg_el\[l\]|e) \* ([0-9]+).*/\3/p' | sort -n | tail -n 1)
"$cc" -O3 -march="$cpu" -fno-unroll-loops -ffp-contract=on -fno-math-errno -fveclib=libmvec \
    -mllvm -vectorizer-min-trip-count=4 -g -w -c "$src" -o "$dir/kernel.o"
"$cc" -O2 -I"$root" -I"$root/include" -DKFN="$kernel" "$here/kernel_driver.c" "$dir/kernel.o" -lm -lmvec -o "$dir/driver"
echo "$kernel, $(basename "$file") order $order, -march=$cpu, geometry stride $stride:"
"$dir/driver" "$stride" "${REPS:-200}" 64 "${slot:-1}"
if [ "${PERF:-0}" = 1 ]; then
    perf record -q -o "$dir/perf.data" "$dir/driver" "$stride" "${REPS:-200}" 64 "${slot:-1}" >/dev/null 2>&1
    echo "hottest lines of $(basename "$src") (% of the kernel's samples):"
    perf annotate -i "$dir/perf.data" --stdio -l -s "$kernel" 2>/dev/null |
        grep -E '^ +[0-9]+\.[0-9]+ +[^ ]+\.c:[0-9]+' | sort -rn | head -n 15 |
        while read -r pct loc; do
            line=${loc##*:}
            printf '%6s%%  %5s: %s\n' "$pct" "$line" "$(sed -n "${line}p" "$src" | sed 's/^ *//' | cut -c1-100)"
        done
fi
