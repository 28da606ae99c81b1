/* bench_kernels_cuda.h — one kernel of `hdgc bench kernels --backend cuda` on
 * the device: the generated version (kernel i of g) and the hand-written one
 * (kernel i of h, after hdg_hw_cuda_overlay) on the same inputs. */
#ifndef HDG_BENCH_KERNELS_CUDA_H
#define HDG_BENCH_KERNELS_CUDA_H

#include "backends/handwritten/handwritten.h"
#include "compiler/pipeline_cuda.h"

/* host: the kernel's geometry, parameters, maps and inputs on the host
 * (host->nitems rows each). Both versions run over all items into their own
 * outputs (those the kernel reads start from the same random values); the
 * outputs are compared as hdg_hw_compare does, then each is timed (device
 * events), alternating, best of reps. */
hdg_status hdg_bench_kernel_cuda(hdg_cuda_device *dev, const hdg_cuda_compiled *g, const hdg_cuda_compiled *h, int i,
                                 const hdg_kargs *host, int reps, double *sec_gen, double *sec_hw, hdg_hw_diff *d,
                                 hdg_error *err);

#endif
