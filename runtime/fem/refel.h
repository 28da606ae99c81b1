/* refel.h — the nodal reference triangle of degree N (Hesthaven & Warburton,
 * "Nodal Discontinuous Galerkin Methods", ch. 6): orthonormal Dubiner basis,
 * warp-and-blend nodes, Vandermonde, derivative and mass matrices, face node
 * maps, face mass matrix and the lift operator. Also the 1D orthonormal
 * Legendre basis for face/trace spaces.
 *
 * Reference triangle: v0 = (-1,-1), v1 = (1,-1), v2 = (-1,1), area 2.
 * Local face j joins vertex j to vertex (j+1)%3: face 0 is s = -1, face 1 is
 * r + s = 0, face 2 is r = -1. A face parameter t in [-1,1] runs from vertex j
 * (t = -1) to vertex (j+1)%3 (t = 1):
 *   face 0: (r,s) = (t, -1),  face 1: (r,s) = (-t, t),  face 2: (r,s) = (-1, -t).
 *
 * Node ordering: for j = 0..N (rows of constant s), for i = 0..N-j (r
 * increasing) — the same as hdg_equi_lattice. Dubiner modes psi_m, m = 0..Np-1,
 * in H&W order: for i = 0..N, for j = 0..N-i.
 *
 * All matrices are row-major, A[i*ncols + j]. */
#ifndef HDG_REFEL_H
#define HDG_REFEL_H

#include "hdg.h"

#define HDG_REFEL_MAX_DEGREE 12

typedef struct hdg_refel {
    int N, Np, Nfp;     /* degree, (N+1)(N+2)/2 nodes, N+1 nodes per face */
    double *r, *s;      /* Np node coordinates */
    double *V, *Vinv;   /* Np x Np, V[i*Np+j] = psi_j(node i) */
    double *Dr, *Ds;    /* Np x Np nodal derivative matrices: (Dr u)_i = du/dr(node i) */
    double *M;          /* reference mass matrix (V V^T)^-1, M_ij = int l_i l_j */
    double *Minv;       /* V V^T */
    int *Fmask;         /* 3 x Nfp: Fmask[j*Nfp+i] = node index of the i-th node of face j,
                         * ordered from vertex j to vertex (j+1)%3; for N = 0 all are 0 */
    double *tface;      /* Nfp face node parameters in [-1,1], ascending (the
                         * Gauss-Lobatto points; {0} for N = 0), same on every face */
    double *Mface;      /* Nfp x Nfp 1D mass matrix of the Lagrange basis at tface on [-1,1] */
    double *LIFT;       /* Np x 3Nfp: M^-1 E, E[Fmask[f*Nfp+i]][f*Nfp+k] = Mface[i][k];
                         * in the face-parameter measure dt (length 2 per face) */
    double cond_V;      /* 2-norm condition number of V */
} hdg_refel;

/* Builds the reference element of degree N (0..HDG_REFEL_MAX_DEGREE; else
 * HDG_EINPUT). On failure *re is left empty (safe to free).
 *
 * LIFT and physical elements: on an affine triangle K with Jacobian
 * determinant J = |K|/2 (mass M_K = J M) and a face of length L_f
 * (sJ = L_f/2, so ds = sJ dt), the lift of face data g is
 *   M_K^-1 int_f l_i g ds = (sJ/J) * LIFT g,
 * i.e. the runtime multiplies LIFT by Fscale = sJ/J per face. On the
 * reference triangle itself J = 1 and sJ = 1 on faces 0 and 2 but sqrt(2) on
 * face 1 (length 2 sqrt 2): LIFT alone integrates in dt, not in arclength. */
hdg_status hdg_refel_init(hdg_refel *re, int N, hdg_error *err);
void hdg_refel_free(hdg_refel *re);

/* Dubiner basis of degree N at npts points: P[p*Np+m] = psi_m(r_p, s_p), and
 * the r/s derivatives in Pr, Ps (which may be NULL). Orthonormal in L2 of the
 * reference triangle. Points must lie in the closed triangle (or the formula's
 * polynomial extension near it). */
void hdg_dubiner_eval(int N, int npts, const double *r, const double *s, double *P,
                      double *Pr, double *Ps);

/* Interpolation matrix I (npts x Np): (I u)_p = value at (r_p, s_p) of the
 * degree-N polynomial with nodal values u. */
void hdg_refel_interp(const hdg_refel *re, int npts, const double *r, const double *s,
                      double *I);

/* Equispaced lattice of degree p: for j = 0..p, for i = 0..p-j:
 * r = -1 + 2i/p, s = -1 + 2j/p (p = 0: the centroid). Returns (p+1)(p+2)/2;
 * r, s may be NULL to get only the count. */
int hdg_equi_lattice(int p, double *r, double *s);

/* Orthonormal Legendre basis on [-1,1] (JacobiP with alpha = beta = 0):
 * P[p*(N+1)+k] = P_k(x_p), k = 0..N; dP likewise (may be NULL). */
void hdg_legendre_eval(int N, int npts, const double *x, double *P, double *dP);

#endif
