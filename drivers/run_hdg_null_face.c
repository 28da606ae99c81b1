/* run_hdg_null_face.c — face frames and element measures/points in any
 * dimension, for the null-space and compatibility checks (see run_hdg_null.h). */
#include "drivers/run_hdg_null.h"
#include "drivers/run_hdg_null_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/run_hdg_common.h"
#include "runtime/parallel/comm.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/fem/geometry.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

void hdg_hdg_face_points(const hdg_mesh *M, const int *v, int w, hdg_hdg_face *F)
{
    int d = hdg_mesh_dim(M);
    memset(F, 0, sizeof *F);
    F->dim = d;
    for (int k = 0; k < d; k++) {
        F->X[k][0] = M->vx[v[k]], F->X[k][1] = M->vy[v[k]], F->X[k][2] = d == 3 ? M->vz[v[k]] : 0;
        for (int c = 0; c < 3; c++) F->c[c] += F->X[k][c];
    }
    for (int c = 0; c < 3; c++) F->c[c] /= d;
    if (d == 2) {   /* the edge a -> b, outward for a counter-clockwise element */
        double dx = F->X[1][0] - F->X[0][0], dy = F->X[1][1] - F->X[0][1], len = hypot(dx, dy);
        F->n[0] = dy / len, F->n[1] = -dx / len, F->meas = len, F->h = len;
        return;
    }
    double e1[3], e2[3], cr[3], o[3], dot = 0;
    for (int c = 0; c < 3; c++) e1[c] = F->X[1][c] - F->X[0][c], e2[c] = F->X[2][c] - F->X[0][c];
    cr[0] = e1[1] * e2[2] - e1[2] * e2[1], cr[1] = e1[2] * e2[0] - e1[0] * e2[2], cr[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double len = sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
    o[0] = M->vx[w] - F->X[0][0], o[1] = M->vy[w] - F->X[0][1], o[2] = M->vz[w] - F->X[0][2];
    for (int c = 0; c < 3; c++) dot += cr[c] * o[c];
    for (int c = 0; c < 3; c++) F->n[c] = (dot > 0 ? -cr[c] : cr[c]) / len;
    F->meas = len / 2;
    for (int a = 0; a < 3; a++) {
        const double *P = F->X[a], *Q = F->X[(a + 1) % 3];
        F->h = fmax(F->h, sqrt((Q[0] - P[0]) * (Q[0] - P[0]) + (Q[1] - P[1]) * (Q[1] - P[1]) +
                               (Q[2] - P[2]) * (Q[2] - P[2])));
    }
}

void hdg_hdg_face_frame(const hdg_mesh *M, int f, hdg_hdg_face *F)
{
    int d = hdg_mesh_dim(M), w = -1;
    const int *v = M->fv + (size_t)d * f;
    if (d == 3) {   /* the first element's vertex off the face */
        const int *ev = M->ev + 4 * (size_t)M->fe[2 * f];
        for (int k = 0; k < 4; k++)
            if (ev[k] != v[0] && ev[k] != v[1] && ev[k] != v[2]) w = ev[k];
    }
    hdg_hdg_face_points(M, v, w, F);
}

void hdg_hdg_element_face(const hdg_mesh *M, int e, int j, hdg_hdg_face *F)
{
    int d = hdg_mesh_dim(M), nfe = d + 1, v[3], on[4] = {0, 0, 0, 0};
    const int *fv = hdg_simplex_face_vertices(d, j), *ev = M->ev + (size_t)nfe * e;
    for (int k = 0; k < d; k++) v[k] = ev[fv[k]], on[fv[k]] = 1;
    int w = ev[0];
    for (int k = 0; k < nfe; k++)
        if (!on[k]) w = ev[k];
    hdg_hdg_face_points(M, v, w, F);
}

/* The point of face F at reference coordinates r (dim - 1 of them, on the
 * reference interval or triangle: x = X0 + sum_k (X_(k+1) - X0) (1 + r_k) / 2). */
void hdg_hdg_face_point(const hdg_hdg_face *F, const double *r, double *x)
{
    for (int c = 0; c < 3; c++) {
        x[c] = F->X[0][c];
        for (int k = 0; k + 1 < F->dim; k++) x[c] += (1 + r[k]) / 2 * (F->X[k + 1][c] - F->X[0][c]);
    }
}

/* The measure of element e: a triangle's area, a tetrahedron's volume. */
double hdg_hdg_element_volume(const hdg_mesh *M, int e)
{
    if (hdg_mesh_dim(M) == 2) {
        const int *v = M->ev + 3 * e;
        return 0.5 * fabs((M->vx[v[1]] - M->vx[v[0]]) * (M->vy[v[2]] - M->vy[v[0]]) -
                          (M->vx[v[2]] - M->vx[v[0]]) * (M->vy[v[1]] - M->vy[v[0]]));
    }
    const int *v = M->ev + 4 * (size_t)e;
    double a[3][3];
    for (int k = 0; k < 3; k++)
        a[k][0] = M->vx[v[k + 1]] - M->vx[v[0]], a[k][1] = M->vy[v[k + 1]] - M->vy[v[0]],
        a[k][2] = M->vz[v[k + 1]] - M->vz[v[0]];
    return fabs(a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])) / 6;
}

/* The point of element e at reference point i of rule q (env's x, y, z): in 2D the
 * barycentric combination the 2D checks always used, in 3D hdg_geom_map_point. */
void hdg_hdg_element_point(const hdg_mesh *M, int e, const hdg_quad *q, int i, hdg_eval_env *env)
{
    if (hdg_mesh_dim(M) == 2) {
        const int *v = M->ev + 3 * e;
        double l0 = -(q->r[i] + q->s[i]) / 2, l1 = (1 + q->r[i]) / 2, l2 = (1 + q->s[i]) / 2;
        env->x = l0 * M->vx[v[0]] + l1 * M->vx[v[1]] + l2 * M->vx[v[2]];
        env->y = l0 * M->vy[v[0]] + l1 * M->vy[v[1]] + l2 * M->vy[v[2]];
        return;
    }
    double r[3] = {q->r[i], q->s[i], q->t[i]}, x[3];
    hdg_geom_map_point(M, e, r, x);
    env->x = x[0], env->y = x[1], env->z = x[2];
}
