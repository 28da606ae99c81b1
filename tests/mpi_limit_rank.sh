#!/bin/sh
# tests/mpi_limit_rank.sh RANK KB CMD... — runs CMD with its address space limited to KB
# kilobytes on the mpirun rank RANK only (tests/mpi.cmake: a rank that runs out of memory
# must end the whole job, not leave the others waiting).
rank=$1 kb=$2
shift 2
if [ "${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" = "$rank" ]; then ulimit -v "$kb"; fi
exec "$@"
