#!/bin/sh
# mpi_no_hang.sh SECONDS REGEX COMMAND... — runs COMMAND (an mpirun) under a wall-clock limit
# and passes when it ends by itself with a non-zero status and its output (stdout + stderr)
# matches the extended regex REGEX: a failure that ends the job, not a hang (status 124, the
# limit) nor a success.
secs=$1 re=$2
shift 2
out=$(timeout "$secs" "$@" 2>&1)
rc=$?
printf '%s\nexit status %s\n' "$out" "$rc"
[ "$rc" -eq 124 ] && { echo "FAIL: still running after $secs s (a hang)"; exit 1; }
[ "$rc" -eq 0 ] && { echo "FAIL: exit status 0, expected a failure"; exit 1; }
printf '%s\n' "$out" | grep -Eq -- "$re" || { echo "FAIL: the output lacks /$re/"; exit 1; }
exit 0
