#!/bin/sh
# bench/mg_iterations.sh — trace-solver iterations against N for k = 1..6 (issue 13):
# --precond mg (default rtol) against face-block Jacobi CG on poisson_exp (a smooth
# solution that is no Laplace eigenfunction). Prints one row per (k, N).
# In 3D (FILE a `mesh tetrahedron` problem, MESH cube) the same on cube:N.
#   usage: bench/mg_iterations.sh [HDGC] [KS] [NS] [BLOCK_MAX_N] [FILE] [MESH]
#   e.g.   bench/mg_iterations.sh build/hdgc "1 2 3 4 5 6" "8 16 32 64 128 256 512" 128
#          bench/mg_iterations.sh build/hdgc "1 2 3" "4 8 16 32" 0 examples/poisson3d.hdg cube
#          bench/mg_iterations.sh build/hdgc "1 2 3" "4 8 16 32" 0 examples/poisson3d.hdg cube,perturb=0.2
HDGC=${1:-build/hdgc}
KS=${2:-"1 2 3 4 5 6"}
NS=${3:-"8 16 32 64 128 256 512"}
BLOCK_MAX_N=${4:-128}     # block Jacobi CG only up to this N (its iterations grow like N)
FILE=${5:-$(dirname "$0")/../tests/data/hdg/poisson_exp.hdg}
MESH=${6:-square}         # square or cube, then any mesh options: cube,perturb=0.2
J=$(mktemp)
mesh_spec() {  # N -> square:N or cube:N,perturb=0.2 ...
    case "$MESH" in *,*) echo "${MESH%%,*}:$1,${MESH#*,}" ;; *) echo "$MESH:$1" ;; esac
}
row() {  # k N precond
    "$HDGC" run "$FILE" --order "$1" --mesh "$(mesh_spec "$2")" --precond "$3" --json "$J" --quiet >/dev/null 2>&1
    python3 - "$J" "$1" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = r.get("solver", {}); e = r.get("errors") or {}
print("%d %5d %-6s %8s %9s  %-20s %10s %8.2f" % (int(sys.argv[2]), int(sys.argv[3]), sys.argv[4],
      r.get("dofs", {}).get("trace", ""), s.get("iterations", "-"), s.get("stopped", r.get("error", "")[:20]),
      "%.2e" % e["ustar"] if "ustar" in e else "-", r.get("timings", {}).get("solve", float("nan"))))
PY
}
echo "k     N precond  iterations  stopped              u* error   solve s"
for k in $KS; do
    for N in $NS; do
        row "$k" "$N" mg
        [ "$N" -le "$BLOCK_MAX_N" ] && row "$k" "$N" block
    done
done
rm -f "$J"
