#!/bin/sh
# gpu-bundle-petsc.sh — pack the PETSc module (libhdgc_petsc.so) and what it loads into
# .devpetsc/petsc.tar.xz, apart from scripts/gpu-bundle.sh's bundle: the two do not fit
# in the 64 MiB one `run` call carries. So a lent GPU machine gets hdgc and LLVM in one
# call (`carry: [".devrun"]`), and this in the next, while it is still warm
# (`carry: [".devpetsc"]`, STEPS=petsc; the first call's unpacked files stay there).
# Open MPI comes with its plugins (MPI_Init of a singleton loads them); gpu-run.sh
# points Open MPI and PMIx at them and tells the singleton not to start a daemon.
set -eu
cd "$(dirname "$0")/.."
B=${BUILD:-build}
D=.devpetsc
M=$B/libhdgc_petsc.so
[ -f "$M" ] || { echo "no $M (PETSc not found at configure time)"; exit 1; }
rm -rf "$D" && mkdir -p "$D/stage/lib"
grep -qx '/.devpetsc/' .git/info/exclude 2>/dev/null || echo '/.devpetsc/' >> .git/info/exclude
OMPI=/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
PMIX=/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
cp -L "$M" "$D/stage/lib/"
cp -r "$OMPI" "$D/stage/openmpi3"
[ -d "$PMIX" ] && cp -r "$PMIX" "$D/stage/pmix"
# The libraries the module and the plugins load that hdgc's own bundle lacks.
ldd "$B/hdgc" | awk '$3 ~ /^\// {print $3}' | sort -u > "$D/have"
find "$D/stage" -name '*.so*' | xargs ldd 2>/dev/null | awk '$3 ~ /^\// {print $3}' | sort -u |
    comm -13 "$D/have" - | while read -r l; do
    case $(basename "$l") in
    libc.so*|libm.so*|ld-linux*|libpthread*|libdl.so*|librt.so*|libstdc++*|libgcc_s*) ;;
    *) cp -L "$l" "$D/stage/lib/" ;;
    esac
done
rm -f "$D/have"
strip --strip-unneeded "$D"/stage/lib/*.so* 2>/dev/null || true
tar -C "$D/stage" -cf - . | xz -T2 -9 > "$D/petsc.tar.xz"
rm -rf "$D/stage"
ls -l "$D/petsc.tar.xz"
