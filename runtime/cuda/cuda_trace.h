/* cuda_trace.h — the HDG trace system built on the device: element-matrix
 * statistics, assembly of the dense-block matrix (coalesced layout of
 * cuda_linalg.h) from the element matrices, Dirichlet elimination, and the
 * scatter of the trace solution back to the elements. The same conventions as runtime/solve/blockmat.h
 * (element face order, orientation flips, slots); each device routine is the
 * host one of blockmat.c / krylov.c with one thread per trace row (or per
 * face, element dof), so the results agree with the host to rounding.
 *
 * The kernels are part of the runtime module (hdg_cuda_linalg_source appends
 * hdg_cuda_trace_source), compiled with the face block size HDG_M and the
 * blocks per row HDG_NA. */
#ifndef HDG_CUDA_TRACE_H
#define HDG_CUDA_TRACE_H

#include "hdg.h"
#include "runtime/cuda/cuda_linalg.h"
#include "support/util.h"

/* The trace kernels' CUDA source (appended to the runtime module). */
void hdg_cuda_trace_source(hdg_str *out);

/* The mesh topology the assembly and scatter need, on the device. */
typedef struct hdg_cuda_topology {
    hdg_cuda_linalg *L;
    int ne, nf;
    hdg_cuptr ef;        /* 3*ne ints */
    hdg_cuptr eforient;  /* 3*ne ints (zeros when the host has none) */
    hdg_cuptr fe, flf;   /* 2*nf ints */
    hdg_cuptr slot;      /* 6*nf ints: (l*2+k)*3+i -> block a of row l (-1: none) */
    hdg_cuptr flip;      /* m doubles */
} hdg_cuda_topology;

/* Uploads the topology; nbr (nf*na) are the rows of hdg_blockmat_neighbours,
 * from which the slots are found (hdg_blockmat_slots; its errors). */
hdg_status hdg_cuda_topology_upload(hdg_cuda_linalg *L, int ne, int nf, const int *ef, const int *eforient,
                                    const int *fe, const int *flf, const int *nbr, const double *flip,
                                    hdg_cuda_topology *T, hdg_error *err);
void hdg_cuda_topology_free(hdg_cuda_topology *T);

/* Per element of Ke (ne matrices nt x nt): out[3e] = trace, out[3e+1] =
 * max |K_ij|, out[3e+2] = max |K_ij - K_ji| (device array of 3*ne). */
hdg_status hdg_cuda_element_stats(hdg_cuda_linalg *L, int ne, int nt, hdg_cuptr Ke, hdg_cuptr out,
                                  hdg_error *err);

/* A device block matrix with B's neighbour lists and unset values. */
hdg_status hdg_cuda_blockmat_alloc(hdg_cuda_linalg *L, int nf, const int *nbr, hdg_cuda_blockmat *dB,
                                   hdg_error *err);

/* dB = sum over elements of S Ke S, rhs = sum of S Fe (every entry written). */
hdg_status hdg_cuda_trace_assemble(const hdg_cuda_topology *T, hdg_cuptr Ke, hdg_cuptr Fe,
                                   hdg_cuda_blockmat *dB, hdg_cuptr rhs, hdg_error *err);

/* hdg_blockmat_apply_dirichlet_dofs on the device: dofd (nf*m bytes: 1 for a Dirichlet
 * dof), xD (nf*m), diag the Dirichlet rows' diagonal. */
hdg_status hdg_cuda_trace_dirichlet(hdg_cuda_blockmat *dB, hdg_cuptr dofd, hdg_cuptr xD, hdg_cuptr rhs,
                                    double diag, hdg_error *err);

/* hdg_blockmat_scatter_to_elements on the device: out (ne*3m) from x (nf*m). */
hdg_status hdg_cuda_trace_scatter(const hdg_cuda_topology *T, hdg_cuptr x, hdg_cuptr out, hdg_error *err);

#endif
