#!/bin/sh
# tests/pip_install.sh ROOT [BUILD_DIR]: the README's Python install as a new user types it:
#   python3 -m venv v && v/bin/pip install .      (in ROOT, the repository's root)
# then, from a folder outside the checkout and with no HDGC_* variable, PYTHONPATH or
# LD_LIBRARY_PATH set: `import hdgc` loads the libhdgc.so bundled in the venv, a solve gives
# the README's error, and `--solver petsc` loads the PETSc module bundled beside it.
# Exits 77 (ctest: skipped) with the reason when python3 has no venv or PyPI (which pip needs
# for scikit-build-core and numpy) is unreachable. With BUILD_DIR, the CMake build of pip goes
# to BUILD_DIR/pip-build (SKBUILD_BUILD_DIR) and ccache is used when there, so a second run is
# incremental; neither changes what is built.
set -u
root=$(cd "$1" && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
unset HDGC_LIBRARY HDGC_PETSC_MODULE HDGC_BIN PYTHONPATH LD_LIBRARY_PATH
export HDGC_CACHE_DIR="$T/cache"
if [ $# -ge 2 ]; then
    export SKBUILD_BUILD_DIR="$2/pip-build"
    if command -v ccache >/dev/null 2>&1; then
        export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
    fi
fi
: "${CMAKE_BUILD_PARALLEL_LEVEL:=2}"; export CMAKE_BUILD_PARALLEL_LEVEL   # this machine's other tests run beside it
PY=${HDGC_PIP_PYTHON:-python3}
cd "$T"
if ! "$PY" -m venv v > venv.log 2>&1; then
    echo "pip_install: SKIPPED: '$PY -m venv v' failed: $(tail -1 venv.log)"
    exit 77
fi
if ! v/bin/pip download -q --no-deps -d probe scikit-build-core > probe.log 2>&1; then
    echo "pip_install: SKIPPED: PyPI unreachable (pip download scikit-build-core: $(tail -1 probe.log))"
    exit 77
fi
echo "== pip install . (in $root)"
if ! (cd "$root" && "$T/v/bin/pip" install .) > pip.log 2>&1; then
    tail -40 pip.log
    echo "FAIL: pip install . failed"
    exit 1
fi
grep -E "^Successfully installed" pip.log
mkdir elsewhere && cd elsewhere
echo "== import hdgc from $PWD"
"$T/v/bin/python" - "$root/examples/poisson.hdg" "$T/v" <<'PYEOF' || { echo "FAIL: import hdgc / solve"; exit 1; }
import os, sys
import hdgc
example, venv = sys.argv[1], os.path.realpath(sys.argv[2])
lib = os.path.realpath(hdgc.library_path)
print("library:", lib)
assert lib.startswith(venv + os.sep), "libhdgc.so is not the one bundled in the venv: " + lib
r = hdgc.Problem(example).solve(order=3, mesh="square:16")
print("errors:", r.errors)
assert abs(r.errors["u"] / 1.7215e-06 - 1) < 1e-3, r.errors
r = hdgc.Problem(example).solve(order=2, mesh="square:8", solver="petsc")
module = os.path.realpath(r.report["solver"]["petsc_module"])
print("PETSc module:", module)
assert module == os.path.join(os.path.dirname(lib), "libhdgc_petsc.so"), module
print("pip install test: ok")
PYEOF
