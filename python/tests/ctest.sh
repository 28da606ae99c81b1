#!/bin/sh
# The ctest test "python" (tests/python.cmake): pytest over python/tests with /usr/bin/python3
# ($HDGC_PYTHON to use another). Exits 77 (ctest: skipped) saying why when that Python, numpy
# or pytest is missing; matplotlib missing skips only the plot test.
PY=${HDGC_PYTHON:-/usr/bin/python3}
here=$(dirname "$0")
if [ ! -x "$PY" ]; then
    echo "python: SKIPPED: no $PY"
    exit 77
fi
for m in numpy pytest; do
    if ! "$PY" -c "import $m" 2>/dev/null; then
        echo "python: SKIPPED: $PY cannot import $m (Debian: apt-get install python3-$m; scripts/install-deps.sh installs it)"
        exit 77
    fi
done
PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg exec "$PY" -m pytest -q -p no:cacheprovider -rs "$here"
