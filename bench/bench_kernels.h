/* bench_kernels.h — `hdgc bench kernels`: the generated kernels of a problem
 * against their hand-written counterparts (backends/handwritten/handwritten.h).
 *
 * Per order, the problem is lowered and compiled as `hdgc run` does and its
 * per-element data built on the mesh (HDG: geometry and parameters; DG also
 * the face map, with nonzero LSERK4 stage values). Every kernel with a
 * hand-written counterpart runs over all elements on the same random inputs
 * (in [-1, 1)); the outputs are compared (max |hw - gen| / max |gen| per
 * output slot, at most HDG_HW_RTOL) and both are timed in one run, the two
 * alternating, best of reps (one thread: the thread's CPU time; more: wall
 * time on the thread pool). Figures per kernel: time per element, GFLOP/s and
 * GB/s of the generated kernel's cost model (the same work for both), and the
 * ratio generated / hand-written (< 1: the generated one is faster).
 * With cuda, the kernels with a hand-written CUDA version: the generated
 * CUDA module compiled twice, the hand-written kernels put in place in the
 * second (hdg_hw_cuda_overlay), both run on the device (bench_kernels_cuda.h). */
#ifndef HDG_BENCH_KERNELS_H
#define HDG_BENCH_KERNELS_H

#include <stdio.h>

#include "backends/handwritten/handwritten.h"
#include "hdg.h"
#include "runtime/output/report.h"

typedef struct hdg_bench_kernels_opts {
    const char *file;        /* the .hdg file */
    const char *mesh;        /* mesh spec (default square:64) */
    int kmin, kmax;          /* orders; 0: the file's */
    int reps;                /* timed runs per kernel (default 5) */
    int threads;             /* 1 (default): this thread; more: the thread pool with that many */
    const hdg_hw_set *set;   /* NULL: the set of the problem's module (tests pass a set of their own) */
    FILE *msg;               /* where a kernel that differs is named (NULL: nowhere) */
    int cuda;                /* 1: the CUDA versions on GPU 0 (or the emulator), device event times */
} hdg_bench_kernels_opts;

/* Runs the comparison, prints the table to out (NULL: nothing), fills rep
 * (rows[]: order, kernel, seconds_per_element of both, gflops, gbytes,
 * ratio, max_rel_diff, agree; missing[]: kernels with no counterpart) and
 * sets *mismatch to the number of kernels whose outputs differ (each named
 * on o->msg with its largest difference). Errors: HDG_EINPUT for a problem
 * without a set, an order outside the set's. */
hdg_status hdg_bench_kernels(const hdg_bench_kernels_opts *o, FILE *out, hdg_report *rep, int *mismatch,
                             hdg_error *err);

#endif
