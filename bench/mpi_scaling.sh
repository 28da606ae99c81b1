#!/bin/sh
# bench/mpi_scaling.sh — np = 1, 2 against the serial run on this machine, one thread a rank,
# three rounds alternating (docs/performance.md, "Beyond one machine"). Run from anywhere.
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HDG_THREADS=1
show() { python3 -c "
import json,sys;d=json.load(open('${TMPDIR:-/tmp}/hdgc_scal.json'));t=d['timings'];m=d.get('mpi',{})
print('$1', 'total %.2f'%t['total'], 'solve %.2f'%t.get('solve',0), 'steps %.2f'%t.get('steps',0), 'its', d.get('solver',{}).get('iterations'))"; }
for rep in 1 2 3; do
  build/hdgc run examples/poisson.hdg --mesh square:256 --order 3 --json ${TMPDIR:-/tmp}/hdgc_scal.json --quiet; show "serial  poisson square:256 k=3"
  for np in 1 2; do timeout 600 mpirun --oversubscribe -np $np build/hdgc run examples/poisson.hdg --mesh square:256 --order 3 --json ${TMPDIR:-/tmp}/hdgc_scal.json --quiet; show "np=$np    poisson square:256 k=3"; done
  build/hdgc run examples/poisson.hdg --mesh square:362 --order 3 --json ${TMPDIR:-/tmp}/hdgc_scal.json --quiet; show "serial  poisson square:362 k=3"
  timeout 600 mpirun --oversubscribe -np 2 build/hdgc run examples/poisson.hdg --mesh square:362 --order 3 --json ${TMPDIR:-/tmp}/hdgc_scal.json --quiet; show "np=2    poisson square:362 k=3"
  build/hdgc run examples/maxwell2d.hdg --mesh square:64 --order 4 --json ${TMPDIR:-/tmp}/hdgc_scal.json --quiet; show "serial  maxwell2d square:64 k=4"
  for np in 1 2; do timeout 600 mpirun --oversubscribe -np $np build/hdgc run examples/maxwell2d.hdg --mesh square:64 --order 4 --json ${TMPDIR:-/tmp}/hdgc_scal.json --quiet; show "np=$np    maxwell2d square:64 k=4"; done
done
