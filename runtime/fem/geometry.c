/* geometry.c — affine geometric factors, face normals and element sizes (see geometry.h). */
#include "runtime/fem/geometry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fem/refel.h"
#include "support/util.h"

void hdg_geom_free(hdg_geom *g)
{
    if (!g) return;
    for (int d = 0; d < 3; d++) {
        for (int k = 0; k < 3; k++) free(g->G[d][k]), free(g->Ginv[d][k]);
        free(g->n[d]);
    }
    free(g->J), free(g->sJ), free(g->Fscale), free(g->rin), free(g->h);
    memset(g, 0, sizeof *g);
}

static double *vec(int n) { return hdg_xmalloc((size_t)(n ? n : 1) * sizeof(double)); }

/* J = det G and Ginv = adj(G) / J (cofactors, the 2x2 case written out). */
static void invert_jacobian(int dim, hdg_simplex_geom *g)
{
    double (*G)[3] = g->G, (*A)[3] = g->Ginv;
    if (dim == 2) {
        double J = G[0][0] * G[1][1] - G[0][1] * G[1][0];
        g->J = J;
        A[0][0] = G[1][1] / J, A[0][1] = -G[0][1] / J;
        A[1][0] = -G[1][0] / J, A[1][1] = G[0][0] / J;
        return;
    }
    double C[3][3];                     /* C[k][d]: the cofactor of G[d][k] */
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < 3; k++) {
            int d1 = (d + 1) % 3, d2 = (d + 2) % 3, k1 = (k + 1) % 3, k2 = (k + 2) % 3;
            C[k][d] = G[d1][k1] * G[d2][k2] - G[d1][k2] * G[d2][k1];
        }
    double J = G[0][0] * C[0][0] + G[0][1] * C[1][0] + G[0][2] * C[2][0];
    g->J = J;
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 3; d++) A[k][d] = C[k][d] / J;
}

/* Face f: outward normal, sJ, Fscale; returns |f|. The normal is the edge
 * vector turned right (2D) or the cross product of the face's edges (3D),
 * flipped when it points towards the vertex off the face. */
static double face_factors(int dim, const double *X, int f, hdg_simplex_geom *g)
{
    const int *w = hdg_simplex_face_vertices(dim, f);
    int off = 0;                                  /* the vertex not on face f */
    while (off == w[0] || off == w[1] || (dim == 3 && off == w[2])) off++;
    const double *a = X + w[0] * dim, *b = X + w[1] * dim, *o = X + off * dim;
    double c[3], meas;
    if (dim == 2) {
        double dx = b[0] - a[0], dy = b[1] - a[1];
        meas = sqrt(dx * dx + dy * dy);
        c[0] = dy, c[1] = -dx, c[2] = 0.0;
    } else {
        const double *e = X + w[2] * dim;
        double u[3], v[3];
        for (int d = 0; d < 3; d++) u[d] = b[d] - a[d], v[d] = e[d] - a[d];
        c[0] = u[1] * v[2] - u[2] * v[1], c[1] = u[2] * v[0] - u[0] * v[2], c[2] = u[0] * v[1] - u[1] * v[0];
        meas = 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    }
    double side = 0.0, len = dim == 2 ? meas : 2.0 * meas;   /* |c| */
    for (int d = 0; d < dim; d++) side += c[d] * (o[d] - a[d]);
    for (int d = 0; d < dim; d++) g->n[f][d] = (side > 0 ? -c[d] : c[d]) / len;
    g->sJ[f] = meas / 2;
    g->Fscale[f] = g->sJ[f] / g->J;
    return meas;
}

void hdg_simplex_geometry(int dim, const double *X, hdg_simplex_geom *g)
{
    memset(g, 0, sizeof *g);
    for (int d = 0; d < dim; d++)
        for (int k = 0; k < dim; k++) g->G[d][k] = (X[(k + 1) * dim + d] - X[d]) / 2;
    invert_jacobian(dim, g);
    double area = 0.0, h = 0.0;
    for (int f = 0; f <= dim; f++) area += face_factors(dim, X, f, g);
    for (int i = 0; i <= dim; i++)                /* the longest edge */
        for (int j = i + 1; j <= dim; j++) {
            double l2 = 0.0;
            for (int d = 0; d < dim; d++) l2 += (X[j * dim + d] - X[i * dim + d]) * (X[j * dim + d] - X[i * dim + d]);
            if (sqrt(l2) > h) h = sqrt(l2);
        }
    g->h = h;
    g->rin = 4 * fabs(g->J) / area;
}

/* The vertices of element e, X[k*dim+d]. */
static void element_vertices(const hdg_mesh *m, int e, double *X)
{
    int dim = hdg_mesh_dim(m), nv = dim + 1;
    const double *c[3] = {m->vx, m->vy, m->vz};
    for (int k = 0; k < nv; k++)
        for (int d = 0; d < dim; d++) X[k * dim + d] = c[d][m->ev[nv * e + k]];
}

static void store(hdg_geom *g, int e, const hdg_simplex_geom *s)
{
    int dim = g->dim, nf = dim + 1;
    for (int d = 0; d < dim; d++)
        for (int k = 0; k < dim; k++) g->G[d][k][e] = s->G[d][k], g->Ginv[k][d][e] = s->Ginv[k][d];
    g->J[e] = s->J;
    for (int j = 0; j < nf; j++) {
        for (int d = 0; d < dim; d++) g->n[d][nf * e + j] = s->n[j][d];
        g->sJ[nf * e + j] = s->sJ[j], g->Fscale[nf * e + j] = s->Fscale[j];
    }
    g->h[e] = s->h;
    g->rin[e] = s->rin;
}

hdg_status hdg_geom_init(hdg_geom *g, const hdg_mesh *m, hdg_error *err)
{
    int ne = m->ne, dim = hdg_mesh_dim(m), nf = dim + 1;
    memset(g, 0, sizeof *g);
    g->ne = ne, g->dim = dim;
    for (int d = 0; d < dim; d++) {
        for (int k = 0; k < dim; k++) g->G[d][k] = vec(ne), g->Ginv[d][k] = vec(ne);
        g->n[d] = vec(nf * ne);
    }
    g->J = vec(ne), g->rin = vec(ne), g->h = vec(ne);
    g->sJ = vec(nf * ne), g->Fscale = vec(nf * ne);
    for (int e = 0; e < ne; e++) {
        double X[12];
        element_vertices(m, e, X);
        hdg_simplex_geom s;
        hdg_simplex_geometry(dim, X, &s);
        if (!(s.J > 0)) {
            hdg_geom_free(g);
            return hdg_fail(err, HDG_EINPUT, "element %d has Jacobian %g (%s or degenerate)", e, s.J,
                            dim == 2 ? "not counter-clockwise" : "negatively oriented");
        }
        store(g, e, &s);
    }
    return HDG_OK;
}

void hdg_geom_map_point(const hdg_mesh *m, int e, const double *r, double *x)
{
    int dim = hdg_mesh_dim(m);
    double X[12], l[4];
    element_vertices(m, e, X);
    l[0] = 1.0;
    for (int k = 0; k < dim; k++) l[k + 1] = (1 + r[k]) / 2, l[0] -= l[k + 1];
    for (int d = 0; d < dim; d++) {
        x[d] = 0.0;
        for (int k = 0; k <= dim; k++) x[d] += l[k] * X[k * dim + d];
    }
}

void hdg_geom_map(const hdg_mesh *m, int e, double r, double s, double *x, double *y)
{
    const int *v = m->ev + 3 * e;
    double l0 = -(r + s) / 2, l1 = (1 + r) / 2, l2 = (1 + s) / 2;
    *x = l0 * m->vx[v[0]] + l1 * m->vx[v[1]] + l2 * m->vx[v[2]];
    *y = l0 * m->vy[v[0]] + l1 * m->vy[v[1]] + l2 * m->vy[v[2]];
}
