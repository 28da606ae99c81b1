#!/bin/sh
# gpu-bundle.sh — pack what a lent GPU machine needs to run hdgc, here, into .devrun/.
#
# The device machines (the `device` tool) have CUDA, CMake and Python but none of
# flex/bison/cJSON/LLVM 14/Clang 14/METIS/cairo, and cannot fetch packages. So hdgc
# is built here (Release, build/) and travels with the shared libraries it needs,
# the Clang resource headers and the C library's headers that generated C includes
# (math.h), in one xz tarball (the device tool carries at most 64 MiB).
# On the device: sh scripts/gpu-run.sh (with `carry: [".devrun"]`).
set -eu
cd "$(dirname "$0")/.."
B=${BUILD:-build}
D=.devrun
rm -rf "$D" && mkdir -p "$D/stage/lib" "$D/stage/lib-std" "$D/stage/sysinc"
grep -qx '/.devrun/' .git/info/exclude 2>/dev/null || echo '/.devrun/' >> .git/info/exclude

bins="$B/hdgc $B/tests/test_cusparse $B/tests/test_cuda_gpu $B/tests/test_dg_cuda \
$B/tests/test_hdg_cuda $B/tests/test_hdg_cuda_mg"
mkdir -p "$D/stage/bin"
for f in $bins; do cp "$f" "$D/stage/bin/"; done
strip "$D"/stage/bin/*

# Every library the binaries load, except the C library itself; libstdc++ and
# libgcc_s go apart (used only when the device's are older than these).
for l in $(ldd $bins | awk '$3 ~ /^\// {print $3}' | sort -u); do
    case $(basename "$l") in
    libc.so*|libm.so*|ld-linux*|libpthread*|libdl.so*|librt.so*) ;;
    libstdc++*|libgcc_s*) cp -L "$l" "$D/stage/lib-std/" ;;
    *) cp -L "$l" "$D/stage/lib/" ;;
    esac
done

# Clang's resource headers (stddef.h, the x86 intrinsics), top level only.
R=$(ls -d /usr/lib/llvm-14/lib/clang/*/ | head -1)
mkdir -p "$D/stage/clang/include"
find "$R/include" -maxdepth 1 -type f -name '*.h' -exec cp {} "$D/stage/clang/include/" \;

# The C library's headers that math.h and stdint.h pull in (if the device has none).
printf '#include <math.h>\n#include <stdint.h>\n#include <stddef.h>\n' |
    cc -M -x c - | tr ' \\' '\n\n' | grep '^/usr/include/' | sort -u |
    while read -r h; do mkdir -p "$D/stage/sysinc$(dirname "$h")"; cp "$h" "$D/stage/sysinc$h"; done

tar -C "$D/stage" -cf - . | xz -T2 -6 > "$D/bundle.tar.xz"
rm -rf "$D/stage"
ls -l "$D/bundle.tar.xz"
