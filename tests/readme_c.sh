#!/bin/sh
# tests/readme_c.sh ROOT BUILD: the README's C program as a reader takes it: the ```c block of
# "## From C (and Python)" saved as hello.c, then the ```sh block after it run line by line as
# typed, in a fresh folder (with examples/ linked in) and with HOME in that folder, so that
# `make install` installs under its default prefix $HOME/.local. `make` is the checkout's,
# told that BUILD is built (-o build: the install step only). No LD_LIBRARY_PATH: the
# program must find libhdgc.so through the rpath hdgc.pc gives, and print the README's figure.
set -eu
root=$(cd "$1" && pwd); build=$(cd "$2" && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
/usr/bin/env python3 - "$root/README.md" "$T" <<'PYEOF'
import re, sys
text = open(sys.argv[1]).read()
sec = text[text.index("## From C (and Python)"):]
sec = sec[:re.search(r"^## ", sec[3:], re.M).start() + 3]
blocks = re.findall(r"^```(\w*)\n(.*?)^```", sec, re.S | re.M)
c = next(i for i, (lang, _) in enumerate(blocks) if lang == "c")
assert blocks[c + 1][0] == "sh", "the C block is not followed by its commands"
open(sys.argv[2] + "/hello.c", "w").write(blocks[c][1])
open(sys.argv[2] + "/commands.sh", "w").write(blocks[c + 1][1])
PYEOF
echo "== hello.c"; cat "$T/hello.c"
echo "== commands"; cat "$T/commands.sh"
grep -q "int main" "$T/hello.c" || { echo "FAIL: the README's C block has no main"; exit 1; }
ln -s "$root/examples" "$T/examples"
cd "$T"
export HOME="$T" HDGC_CACHE_DIR="$T/cache"
unset LD_LIBRARY_PATH PKG_CONFIG_PATH
make() { command make -s -C "$root" -o build BUILD="$build" "$@"; }
out=$(. ./commands.sh 2>&1) || { echo "$out"; echo "FAIL: the README's commands"; exit 1; }
echo "$out"
test -x "$T/.local/bin/hdgc" || { echo "FAIL: make install put no hdgc in \$HOME/.local/bin"; exit 1; }
echo "$out" | grep -q "^L2 error of u: 1.722e-06$" || { echo "FAIL: not the README's figure"; exit 1; }
echo "readme C program: ok"
