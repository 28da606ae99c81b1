/* sets.h — the entry points of the hand-written sets (registry.c lists them).
 * One file per problem and backend: poisson.c, poisson_cuda.c, maxwell2d.c,
 * maxwell2d_cuda.c, poisson3d.c (no CUDA version). */
#ifndef HDG_HW_SETS_H
#define HDG_HW_SETS_H

#include "backends/handwritten/handwritten.h"

int hdg_hw_poisson_c(int k, hdg_hw_kernel *out, hdg_error *err);
hdg_status hdg_hw_poisson_cuda(int k, hdg_hw_cuda *out, hdg_error *err);
int hdg_hw_maxwell2d_c(int k, hdg_hw_kernel *out, hdg_error *err);
hdg_status hdg_hw_maxwell2d_cuda(int k, hdg_hw_cuda *out, hdg_error *err);
int hdg_hw_poisson3d_c(int k, hdg_hw_kernel *out, hdg_error *err);

#endif
