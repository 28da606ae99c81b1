/* run_hdg_null_compat.c — compatibility of the data with a pure Neumann
 * problem (the right-hand side's part along the constants against the
 * quadrature error of the data) and its projection (see run_hdg_null.h). */
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

/* ---------------------------------------------------------------- compatibility */

/* A load term the constants see: no unknown, a scalar test taken by value. */
static int balance_atom(const hdg_problem *p, const hdg_equation *E, const hdg_atom *A)
{
    return !E->post && A->trial < 0 && A->role == HDG_ROLE_SOURCE && A->test_op == HDG_OP_VALUE &&
           p->tests[A->test].ncomp == 1;
}

/* The integral of A's coefficient over element e by the simplex rule q. */
static double volume_integral(const hdg_problem *p, const hdg_mesh *M, int e, const hdg_atom *A, const hdg_quad *q)
{
    double s = 0, ws = 0;
    for (int i = 0; i < q->n; i++) {
        hdg_eval_env env = {.problem = p};
        hdg_hdg_element_point(M, e, q, i, &env);
        s += q->w[i] * hdg_expr_eval(A->coef, &env);
        ws += q->w[i];
    }
    return s / ws * hdg_hdg_element_volume(M, e);
}

/* ... over boundary face f (outward normal) by the face rule q (dim - 1
 * coordinates on the reference interval or triangle, both of measure 2). */
static double face_integral(const hdg_problem *p, const hdg_mesh *M, int f, const hdg_atom *A, const hdg_quad *q)
{
    hdg_hdg_face F;
    hdg_hdg_face_frame(M, f, &F);
    double s = 0;
    for (int i = 0; i < q->n; i++) {
        double r[2] = {q->x[0][i], F.dim == 3 ? q->x[1][i] : 0}, x[3];
        hdg_hdg_face_point(&F, r, x);
        hdg_eval_env env = {.x = x[0], .y = x[1], .z = x[2], .nx = F.n[0], .ny = F.n[1], .nz = F.n[2],
                            .problem = p};
        s += q->w[i] * hdg_expr_eval(A->coef, &env);
    }
    return s * F.meas / 2;
}

static int marked_boundary(const hdg_mesh *M, const hdg_atom *A, int f)
{
    if (M->fe[2 * f + 1] >= 0 || (M->partition_marker && M->fmark[f] == M->partition_marker)) return 0;
    int id = M->fmark[f];
    const char *name = M->marker_names && id > 0 && id <= M->nmarkers ? M->marker_names[id] : NULL;
    return !A->markers || hdg_markers_match(A->markers, name, id);
}

/* Sum |Q_lo - Q_hi| (into s[0]) and |Q_hi| (s[1]) of atom A over the mesh. */
static void atom_quadrature(const hdg_problem *p, const hdg_mesh *M, const hdg_atom *A, const hdg_quad *q,
                            double *s)
{
    if (A->domain == HDG_VOLUME) {
        for (int e = 0; e < M->ne; e++) {
            double lo = volume_integral(p, M, e, A, &q[0]), hi = volume_integral(p, M, e, A, &q[1]);
            s[0] += fabs(lo - hi), s[1] += fabs(hi);
        }
        return;
    }
    for (int f = 0; f < M->nf; f++) {
        if (!marked_boundary(M, A, f)) continue;
        double lo = face_integral(p, M, f, A, &q[2]), hi = face_integral(p, M, f, A, &q[3]);
        s[0] += fabs(lo - hi), s[1] += fabs(hi);
    }
}

/* The face rules of the kernels (ir/lower_hdg.c: exact to degree 2k + 5, k + 3 Gauss
 * points on an edge) and finer ones (2k + 17) into q[2], q[3]; t, w: the edges' storage. */
static int face_rules(int dim, int k, hdg_quad *q, double (*t)[32], double (*w)[32])
{
    hdg_error err;
    if (dim == 3) {
        if (hdg_quad_simplex(&q[2], 2, 2 * k + 5, &err)) return 0;
        if (hdg_quad_simplex(&q[3], 2, 2 * k + 17, &err)) return hdg_quad_free(&q[2]), 0;
        return 1;
    }
    for (int i = 0; i < 2; i++) {
        int n = k + 3 + 6 * i;
        if (hdg_gauss_legendre(n, t[i], w[i], &err)) return 0;
        q[2 + i] = (hdg_quad){.n = n, .dim = 1, .r = t[i], .w = w[i]};
    }
    return 1;
}

double hdg_hdg_null_quadrature(const hdg_problem *p, const hdg_mesh *M, int k)
{
    hdg_quad q[4];   /* volume: the kernels' rule, a finer one; faces: the same */
    double t[2][32], w[2][32];
    hdg_error err;
    double s[2] = {0, 0};
    int dim = hdg_mesh_dim(M);
    if (k + 9 > 32) k = 23;
    int ok = !hdg_quad_simplex(&q[0], dim, 2 * k + 4, &err);   /* the kernels' volume rule (ir/lower_hdg.c) */
    if (ok && hdg_quad_simplex(&q[1], dim, 2 * k + 12, &err)) hdg_quad_free(&q[0]), ok = 0;
    if (ok && !face_rules(dim, k, q, t, w)) hdg_quad_free(&q[0]), hdg_quad_free(&q[1]), ok = 0;
    for (int e = 0; ok && e < p->nequations; e++)
        for (int a = 0; a < p->equations[e].natoms; a++)
            if (balance_atom(p, &p->equations[e], &p->equations[e].atoms[a]))
                atom_quadrature(p, M, &p->equations[e].atoms[a], q, s);
    if (ok) hdg_quad_free(&q[0]), hdg_quad_free(&q[1]);
    if (ok && dim == 3) hdg_quad_free(&q[2]), hdg_quad_free(&q[3]);
    hdg_comm_sum(s, 2);   /* under mpirun: every rank's elements and faces */
    return s[1] > 0 && isfinite(s[0]) ? s[0] / s[1] : 0;
}

/* The largest part along the constants taken for rounding and quadrature. */
double hdg_hdg_compatible_below(double quad)
{
    return fmax(HDG_HDG_COMPATIBLE, HDG_HDG_QUAD_FACTOR * quad);
}

hdg_status hdg_hdg_incompatible(double part, double quad, hdg_error *err)
{
    return hdg_fail(err, HDG_EINPUT, "the data are not compatible with the pure Neumann problem: the sources and "
                    "boundary fluxes do not balance (their part along the constants is %.3g of the right-hand side, "
                    "more than %.3g: 1e-6, or %g times the relative quadrature error of the data, estimated at "
                    "%.3g); check f and the Neumann data", part, hdg_hdg_compatible_below(quad), HDG_HDG_QUAD_FACTOR, quad);
}

/* part <= 1e-6 passes at once; above, the quadrature estimate decides (the
 * same branch on every rank: part is reduced). */
static hdg_status compatible(const hdg_hdg_data *D, double part, hdg_report *rep, hdg_error *err)
{
    hdg_report_number(rep, "solver.rhs_null_component", part);
    if (part <= HDG_HDG_COMPATIBLE) return HDG_OK;
    double quad = hdg_hdg_null_quadrature(D->p, D->M, D->k);
    hdg_report_number(rep, "solver.rhs_quadrature_error", quad);
    return part <= hdg_hdg_compatible_below(quad) ? HDG_OK : hdg_hdg_incompatible(part, quad, err);
}

hdg_status hdg_hdg_null_project_rhs(const hdg_vecops *v, long long n, const double *z, double *b,
                                    const hdg_hdg_data *D, hdg_report *rep, hdg_error *err)
{
    double zb = v->dot(v->ctx, n, z, b), zz = v->dot(v->ctx, n, z, z), bn = v->norm2(v->ctx, n, b);
    double part = bn > 0 ? fabs(zb) / (sqrt(zz) * bn) : 0;
    hdg_status st = compatible(D, part, rep, err);
    if (st) return st;
    v->axpy(v->ctx, n, -zb / zz, z, b);
    return HDG_OK;
}

/* Under mpirun each piece's b has partial sums on its partition faces: the
 * sums of the pieces' z.b are the whole z.b, z.z counts every face once (the
 * owned ones), and the projection is subtracted on the owned faces only.
 * ||b|| (for the compatibility ratio) is taken over owned rows, whose
 * partition faces hold a partial sum: an estimate, enough for the test. */
hdg_status hdg_hdg_null_project_dist(const hdg_mesh_dist *d, int nf, int m, const double *z, double *b,
                                     const hdg_hdg_data *D, hdg_report *rep, hdg_error *err)
{
    double s[3] = {0, 0, 0};   /* z.b, z.z, b.b */
    for (int f = 0; f < nf; f++)
        for (int i = 0; i < m; i++) {
            double zi = z[(size_t)f * m + i], bi = b[(size_t)f * m + i];
            s[0] += zi * bi;
            if (d->fowner[f] == d->rank) s[1] += zi * zi, s[2] += bi * bi;
        }
    hdg_comm_sum(s, 3);
    double part = s[2] > 0 ? fabs(s[0]) / sqrt(s[1] * s[2]) : 0;
    hdg_status st = compatible(D, part, rep, err);
    if (st) return st;
    for (int f = 0; f < nf; f++)
        if (d->fowner[f] == d->rank)
            for (int i = 0; i < m; i++) b[(size_t)f * m + i] -= s[0] / s[1] * z[(size_t)f * m + i];
    return HDG_OK;
}
