#!/bin/sh
# Installs the Debian packages hdgc needs to build and test, only when one is missing
# (bsdutils: script(1), the pseudo-terminal of tests/progress.cmake; python3-meshio: an
# independent reader of the binary .vtu files in tests/output.cmake; python3-venv: `python3 -m
# venv`, which the README's `pip install .` and tests/pip_install.sh use; pip then fetches
# scikit-build-core and numpy from PyPI).
# A no-op (and no network access) when everything is already there.
set -e
PKGS="cmake make gcc g++ flex bison libcjson-dev libclang-cpp14-dev llvm-14-dev libclang-14-dev libclang-rt-14-dev clang-14 python3 python3-venv libpetsc-real-dev openmpi-bin libmetis-dev pkg-config libcairo2-dev libpng-dev zlib1g-dev python3-numpy python3-pytest python3-matplotlib python3-meshio bsdutils"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
