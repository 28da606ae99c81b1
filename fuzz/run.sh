#!/bin/sh
# fuzz/run.sh TARGET SECONDS BUILD [ci] — one libFuzzer run of BUILD/hdg_fuzz_TARGET
# (parser, gmsh, cache, spec, api) for SECONDS, from its seed corpus (fuzz/corpus/TARGET, plus
# examples/ and tests/data/frontend/ for parser, tests/data/*.msh for gmsh) with its
# dictionary (fuzz/dict/). New inputs accumulate in BUILD/corpus/TARGET ("ci": in a
# temporary folder, so runs do not depend on each other); a crash, leak, timeout or
# broken invariant saves its input in BUILD/crashes/TARGET/ and exits non-zero.
set -e
t=$1 secs=$2 b=$3 mode=$4
case "$t" in
parser) seeds="examples tests/data/frontend"; dict=fuzz/dict/hdg.dict; max_len=8192 ;;
gmsh)   seeds="fuzz/corpus/gmsh"; dict=fuzz/dict/gmsh.dict; max_len=4096 ;;
cache)  seeds="fuzz/corpus/cache"; dict=fuzz/dict/cache.dict; max_len=1024 ;;
spec)   seeds="fuzz/corpus/spec"; dict=fuzz/dict/spec.dict; max_len=256 ;;
# api: a solve compiles kernels the first time (seconds under ASan, more on a loaded machine)
api)    seeds="fuzz/corpus/api"; dict=fuzz/dict/api.dict; max_len=512; limit=120; rss=4096 ;;
*) echo "fuzz/run.sh: unknown target '$t' (parser, gmsh, cache, spec, api)" >&2; exit 2 ;;
esac
work=$b/corpus/$t
[ "$mode" = ci ] && work=$b/corpus-ci/$t && rm -rf "$work"
mkdir -p "$work" "$b/crashes/$t"
[ "$t" = gmsh ] && cp tests/data/*.msh "$work/"
log=$b/fuzz-$t.log
echo "fuzz: $t for ${secs} s (log: $log)"
rc=0
"$b/hdg_fuzz_$t" -max_total_time="$secs" -max_len=$max_len -timeout=${limit:-10} -rss_limit_mb=${rss:-2048} \
    -malloc_limit_mb=1024 -print_final_stats=1 -dict="$dict" -artifact_prefix="$b/crashes/$t/" \
    "$work" $seeds >"$log" 2>&1 || rc=$?
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | tr '\n' ' '
echo
if [ $rc -ne 0 ]; then
    tail -n 60 "$log"
    echo "fuzz: $t FAILED (exit $rc); the input is in $b/crashes/$t/" >&2
    exit 1
fi
