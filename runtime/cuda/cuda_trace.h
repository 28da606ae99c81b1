/* cuda_trace.h — the HDG trace system built on the device: element-matrix
 * statistics, assembly of the dense-block matrix (coalesced layout of
 * cuda_linalg.h) from the element matrices, Dirichlet elimination, and the
 * scatter of the trace solution back to the elements. The same conventions as runtime/solve/blockmat.h
 * (element face order, orientation maps hdg_face_maps, slots); each device routine is the
 * host one of blockmat.c / krylov.c with one thread per trace row (or per
 * face, element dof), so the results agree with the host to rounding.
 *
 * The kernels are part of the runtime module (hdg_cuda_linalg_source appends
 * hdg_cuda_trace_source), compiled with the face block size HDG_M and the
 * blocks per row HDG_NA = 2 nfe - 1 (5 on triangles, 7 on tetrahedra). */
#ifndef HDG_CUDA_TRACE_H
#define HDG_CUDA_TRACE_H

#include "hdg.h"
#include "runtime/cuda/cuda_linalg.h"
#include "runtime/solve/blockmat.h"
#include "support/util.h"

/* The trace kernels' CUDA source (appended to the runtime module). */
void hdg_cuda_trace_source(hdg_str *out);

/* The mesh topology the assembly and scatter need, on the device. */
typedef struct hdg_cuda_topology {
    hdg_cuda_linalg *L;
    int ne, nf, nfe;     /* nfe: faces per element (3 or 4) */
    int dense;           /* the maps are dense m x m (tetrahedra), else diagonals (triangles) */
    hdg_cuptr ef;        /* nfe*ne ints */
    hdg_cuptr eforient;  /* nfe*ne ints (zeros when the host has none) */
    hdg_cuptr fe, flf;   /* 2*nf ints */
    hdg_cuptr slot;      /* 2*nfe*nf ints: (l*2+k)*nfe+i -> block a of row l (-1: none) */
    hdg_cuptr maps;      /* the orientation maps: norient*m (diagonals) or norient*m*m doubles */
} hdg_cuda_topology;

/* Uploads the topology and the orientation maps S (S->nfe faces an element, which
 * must match the module's na = 2 nfe - 1); nbr (nf*na) are the rows of
 * hdg_blockmat_neighbours_n, from which the slots are found (hdg_blockmat_slots_n;
 * its errors). */
hdg_status hdg_cuda_topology_upload(hdg_cuda_linalg *L, int ne, int nf, const int *ef, const int *eforient,
                                    const int *fe, const int *flf, const int *nbr, const hdg_face_maps *S,
                                    hdg_cuda_topology *T, hdg_error *err);
void hdg_cuda_topology_free(hdg_cuda_topology *T);

/* Per element of Ke (ne matrices nt x nt): out[3e] = trace, out[3e+1] =
 * max |K_ij|, out[3e+2] = max |K_ij - K_ji| (device array of 3*ne). */
hdg_status hdg_cuda_element_stats(hdg_cuda_linalg *L, int ne, int nt, hdg_cuptr Ke, hdg_cuptr out,
                                  hdg_error *err);

/* A device block matrix with B's neighbour lists and unset values. */
hdg_status hdg_cuda_blockmat_alloc(hdg_cuda_linalg *L, int nf, const int *nbr, hdg_cuda_blockmat *dB,
                                   hdg_error *err);

/* dB = sum over elements of S_j^T Ke S_i, rhs = sum of S_j^T Fe (every entry written). */
hdg_status hdg_cuda_trace_assemble(const hdg_cuda_topology *T, hdg_cuptr Ke, hdg_cuptr Fe,
                                   hdg_cuda_blockmat *dB, hdg_cuptr rhs, hdg_error *err);

/* hdg_blockmat_apply_dirichlet_dofs on the device: dofd (nf*m bytes: 1 for a Dirichlet
 * dof), xD (nf*m), diag the Dirichlet rows' diagonal. */
hdg_status hdg_cuda_trace_dirichlet(hdg_cuda_blockmat *dB, hdg_cuptr dofd, hdg_cuptr xD, hdg_cuptr rhs,
                                    double diag, hdg_error *err);

/* hdg_blockmat_scatter_maps on the device: out (ne*nfe*m) from x (nf*m). */
hdg_status hdg_cuda_trace_scatter(const hdg_cuda_topology *T, hdg_cuptr x, hdg_cuptr out, hdg_error *err);

#endif
