#!/bin/sh
# tests/install/run.sh BUILD_DIR EXAMPLES: installs BUILD_DIR into a fresh prefix, builds
# tests/install/hello.c against it with pkg-config and with find_package(hdgc), runs both
# and the installed hdgc binary (whose PETSc module must be found in the moved tree).
set -eu
build=$1; ex=$2; here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export HDGC_CACHE_DIR="$T/cache"
cmake --install "$build" --prefix "$T/prefix" > "$T/install.log"
lib=$(dirname "$(find "$T/prefix" -name libhdgc.so -print -quit)")
pc=$(dirname "$(find "$T/prefix" -name hdgc.pc -print -quit)")
echo "== pkg-config ($pc)"
PKG_CONFIG_PATH=$pc pkg-config --modversion hdgc
cc -std=c11 -Wall -Werror "$here/hello.c" $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs hdgc) -o "$T/hello_pc"
# no LD_LIBRARY_PATH: hdgc.pc's Libs carry the rpath of the installed libdir
env -u LD_LIBRARY_PATH "$T/hello_pc" "$ex/poisson.hdg" square:4
echo "== find_package"
cmake -S "$here" -B "$T/cm" -DCMAKE_PREFIX_PATH="$T/prefix" -DCMAKE_BUILD_TYPE=Release > "$T/cm.log"
cmake --build "$T/cm" > "$T/cmb.log"
env -u LD_LIBRARY_PATH "$T/cm/hello" "$T/prefix/share/hdgc/examples/poisson.hdg" square:4
echo "== installed hdgc, PETSc module from the moved tree"
HDGC_CACHE_DIR="$T/cache2" "$T/prefix/bin/hdgc" run "$T/prefix/share/hdgc/examples/poisson.hdg" --mesh square:40 \
    --order 2 --precond mg --json "$T/r.json"
grep -q "\"petsc_module\":[[:space:]]*\"$T/prefix/bin/../$(basename "$lib")/libhdgc_petsc.so\"" "$T/r.json" ||
    { echo "FAIL: the PETSc module did not come from the installed tree:"; grep petsc_module "$T/r.json"; exit 1; }
echo "== no private symbols exported"
if nm -D --defined-only "$lib/libhdgc.so" | awk '{print $3}' | grep -v -E '^(hdgc_|hdg_status_name$|hdg_error_clear$)'; then
    echo "FAIL: libhdgc.so exports symbols outside the API"; exit 1
fi
echo "install test: ok"
