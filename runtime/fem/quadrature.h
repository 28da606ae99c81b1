/* quadrature.h — orthonormal Jacobi polynomials, Gauss rules on [-1, 1]
 * (Gauss-Jacobi, Gauss-Legendre, Gauss-Lobatto) and collapsed Gauss rules on
 * the reference triangle v0 = (-1,-1), v1 = (1,-1), v2 = (-1,1) (area 2) and
 * the reference tetrahedron (volume 4/3).
 *
 * Nodes come from the Golub-Welsch eigenvalue problem, polished by Newton on
 * the three-term recurrence in long double; weights from the Christoffel
 * function w_i = 1 / sum_k p_k(x_i)^2 (a sum of positive terms) at the
 * long-double node. Nodes and weights come out correctly rounded to about one
 * ulp (checked against 50-digit mpmath rules for n up to 300; the eigenvalue
 * step is O(n^3), meant for n up to a few hundred). Symmetric rules
 * (alpha == beta) are made exactly symmetric. */
#ifndef HDG_QUADRATURE_H
#define HDG_QUADRATURE_H

#include "hdg.h"

/* The Jacobi polynomial P_n^(alpha,beta), normalized as Hesthaven-Warburton's
 * JacobiP: orthonormal w.r.t. (1-x)^alpha (1+x)^beta on [-1,1], positive
 * leading coefficient. P[i] = P_n(x[i]) for i < npts. alpha, beta > -1. */
void hdg_jacobi_p(int n, double alpha, double beta, int npts, const double *x, double *P);

/* All degrees at one point: P[k] = P_k^(alpha,beta)(x) for k = 0..n and, when
 * dP is non-NULL, dP[k] = its derivative. */
void hdg_jacobi_all(int n, double alpha, double beta, double x, double *P, double *dP);

/* n-point Gauss-Jacobi rule for the weight (1-x)^alpha (1+x)^beta: exact for
 * polynomials of degree <= 2n-1; nodes ascending. n >= 1, alpha, beta > -1. */
hdg_status hdg_gauss_jacobi(int n, double alpha, double beta, double *x, double *w,
                            hdg_error *err);

/* n-point Gauss-Legendre rule (weight 1), exact to degree 2n-1. n >= 1. */
hdg_status hdg_gauss_legendre(int n, double *x, double *w, hdg_error *err);

/* n-point Gauss-Lobatto-Legendre rule including x = -1 and x = 1, exact to
 * degree 2n-3; nodes ascending. n >= 2. */
hdg_status hdg_gauss_lobatto(int n, double *x, double *w, hdg_error *err);

/* A quadrature rule on a reference simplex of dimension dim (2: the
 * triangle above; 3: the tetrahedron v0 = (-1,-1,-1), v1 = (1,-1,-1),
 * v2 = (-1,1,-1), v3 = (-1,-1,1), volume 4/3): n points with coordinates
 * x[d][i] (d < dim; r = x[0], s = x[1], t = x[2], t NULL in 2D) and weights
 * w[i] summing to the measure (2 or 4/3). */
typedef struct hdg_quad {
    int n, dim;
    union {
        struct {
            double *r, *s, *t;
        };
        double *x[3];
    };
    double *w;
} hdg_quad;
typedef hdg_quad hdg_quad2d;

/* Collapsed (Duffy) Gauss rule on the reference simplex of dimension dim
 * (2 or 3), exact for total degree <= degree: m = ceil((degree+1)/2) points
 * in each collapsed direction c_j (j = 0..dim-1), the Gauss-Jacobi(j, 0) rule
 * in c_j, and
 *     x_j = (1+c_j) prod_{k>j} (1-c_k) / 2^(dim-1-j) - 1  (j < dim-1),
 *     x_(dim-1) = c_(dim-1),   w = prod_j w_j / 2^(dim(dim-1)/2).
 * Point k = (j_(dim-1) m + ... ) m + j_0 (the first direction fastest):
 * k = jb*m + ia on the triangle. n = m^dim. degree >= 0. */
hdg_status hdg_quad_simplex(hdg_quad *q, int dim, int degree, hdg_error *err);
/* hdg_quad_simplex(q, 2, degree, err). */
hdg_status hdg_quad_triangle(hdg_quad2d *q, int degree, hdg_error *err);
void hdg_quad_free(hdg_quad *q);
void hdg_quad2d_free(hdg_quad2d *q);

#endif
