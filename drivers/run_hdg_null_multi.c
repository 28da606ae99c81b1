/* run_hdg_null_multi.c — several free constants: decided, an orthonormal
 * basis, the right-hand side projected, the means applied (see run_hdg_null.h). */
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

/* ---------------------------------------------------------------- several free constants */

/* The candidates the null vectors use (as hdg_hdg_null_describe counts them): used[k]. */
static int used_candidates(const hdg_hdg_null *N, int *used)
{
    int count = 0;
    memset(used, 0, sizeof(int) * HDG_HDG_NULL_MAXC);
    for (int v = 0; v < N->dim; v++) {
        double big = 0;
        for (int k = 0; k < N->ncand; k++) big = fmax(big, fabs(N->basis[v][k]));
        for (int k = 0; k < N->ncand; k++)
            if (fabs(N->basis[v][k]) > 1e-8 * big && !used[k]) used[k] = 1, count++;
    }
    return count;
}

/* The null space spanned by dim candidates (constants and rotations), no combination of
 * more: as many used as dim. */
static int separate_candidates(const hdg_hdg_null *N, int count) { return count == N->dim; }

/* One rotation alone: decided here, not by hdg_hdg_null_decide (a constant's path). */
static int rotation_alone(const hdg_hdg_null *N)
{
    return N->dim == 1 && N->single >= 0 && N->cand[N->single].comp < 0;
}

hdg_status hdg_hdg_null_decide_all(const hdg_problem *p, const hdg_lowered *L, const hdg_hdg_null *N, int left,
                                   double asym, hdg_report *rep, hdg_hdg_null_fixes *F, hdg_error *err)
{
    memset(F, 0, sizeof *F);
    if (N->dim <= 1 && !rotation_alone(N)) {
        hdg_status st = hdg_hdg_null_decide(p, L, N, left, asym, rep, &F->fix[0], err);
        F->dim = !st && F->fix[0].c.t >= 0;
        return st;
    }
    hdg_report_number(rep, "solver.null_smallest", N->smallest);
    hdg_status st = hdg_hdg_null_symmetric(asym, err);
    if (st) return st;
    int used[HDG_HDG_NULL_MAXC], count = used_candidates(N, used);
    if (!separate_candidates(N, count)) return hdg_hdg_null_refuse(p, N, err);
    char means[512] = "";
    size_t at = 0;
    int rotations = 0;
    for (int k = 0; k < N->ncand; k++)   /* the rotations first: a 'mean' beside them is refused for them */
        if (used[k] && N->cand[k].comp < 0) {
            int u;
            if ((st = hdg_hdg_rigid_unknown(p, N, N->cand[k], &u, err))) return st;
            rotations++;
        }
    for (int k = 0; k < N->ncand; k++) {
        if (!used[k]) continue;
        hdg_hdg_null_fix *f = &F->fix[F->dim++];
        f->c = N->cand[k];
        st = f->c.comp < 0 ? hdg_hdg_rigid_unknown(p, N, f->c, &f->u, err) : hdg_hdg_null_unknown(p, f->c, &f->u, err);
        if (st) return st;
        f->g = 1 + L->toff[f->c.t] / L->nk + (f->c.comp < 0 ? 0 : f->c.comp);
        int again = 0;   /* each unknown named once */
        for (int i = 0; i + 1 < F->dim; i++) again |= F->fix[i].u == f->u;
        if (!again && at < sizeof means)
            at += (size_t)snprintf(means + at, sizeof means - at, "%s%s", at ? ", " : "", p->unknowns[f->u].name);
    }
    char what[1024];
    hdg_hdg_null_describe(p, N, what, sizeof what);
    hdg_report_string(rep, "solver.null_space", rotations ? "rigid motions" : "constants");
    hdg_report_string(rep, "solver.null_vectors", what);
    hdg_report_string(rep, "solver.null_mean", means);
    hdg_report_int(rep, "solver.null_dimension", F->dim);
    return HDG_OK;
}

double *hdg_hdg_null_basis(const hdg_lowered *L, const hdg_mesh *M, const hdg_mesh_dist *d,
                           const hdg_hdg_null_fixes *F)
{
    size_t n = (size_t)M->nf * L->m;
    double *Q = hdg_xcalloc(n * (size_t)(F->dim > 0 ? F->dim : 1) + 1, sizeof(double));
    for (int j = 0; j < F->dim; j++) {
        double *q = Q + (size_t)j * n, *z = hdg_hdg_null_cand_vector(L, M, F->fix[j].c);
        memcpy(q, z, sizeof(double) * n);
        free(z);
        for (int i = 0; i <= j; i++) {   /* modified Gram-Schmidt against the earlier ones, then normalise */
            const double *e = Q + (size_t)i * n;
            double s[1] = {0};
            for (int f = 0; f < M->nf; f++)
                if (!d || d->fowner[f] == d->rank)
                    for (int a = 0; a < L->m; a++) s[0] += (i < j ? e : q)[(size_t)f * L->m + a] * q[(size_t)f * L->m + a];
            hdg_comm_sum(s, 1);
            if (i < j) for (size_t a = 0; a < n; a++) q[a] -= s[0] * e[a];
            else for (size_t a = 0; a < n; a++) q[a] /= sqrt(s[0]);
        }
    }
    return Q;
}

/* "the constants of component 1 of 'uhat'" of fix j */
static void fix_name(const hdg_problem *p, const hdg_hdg_null_fix *f, char *b, size_t n)
{
    hdg_hdg_null_name_candidate(p, f->c, b, n);
}

/* s[0] = q.b over every face of the piece (b: partial sums under mpirun), s[1] = b.b over the
 * owned ones (every face when serial), summed over the ranks. */
static void along(const hdg_mesh_dist *d, int nf, int m, const double *q, const double *b, double *s)
{
    s[0] = s[1] = 0;
    for (int f = 0; f < nf; f++)
        for (int i = 0; i < m; i++) {
            double bi = b[(size_t)f * m + i];
            s[0] += q[(size_t)f * m + i] * bi;
            if (!d || d->fowner[f] == d->rank) s[1] += bi * bi;
        }
    hdg_comm_sum(s, 2);
}

hdg_status hdg_hdg_null_project_all(const hdg_problem *p, const hdg_hdg_null_fixes *F, const hdg_mesh_dist *d,
                                    int nf, int m, const double *Q, double *b, const hdg_hdg_data *D,
                                    hdg_report *rep, hdg_error *err)
{
    double worst = 0, quad = -1, s[2];
    size_t n = (size_t)nf * (size_t)m;
    for (int j = 0; j < F->dim; j++) {
        const double *q = Q + (size_t)j * n;
        along(d, nf, m, q, b, s);
        double qb = s[0], part = s[1] > 0 ? fabs(qb) / sqrt(s[1]) : 0;   /* ||q|| = 1 over the owned faces */
        worst = fmax(worst, part);
        if (part > HDG_HDG_COMPATIBLE) {
            if (quad < 0) quad = hdg_hdg_null_quadrature(D->p, D->M, D->k);
            if (part > hdg_hdg_compatible_below(quad)) {
                char what[256];
                fix_name(p, &F->fix[j], what, sizeof what);
                hdg_report_number(rep, "solver.rhs_null_component", part);
                hdg_report_number(rep, "solver.rhs_quadrature_error", quad);
                hdg_status st = hdg_hdg_incompatible(part, quad, err);
                char msg[sizeof err->msg];
                memcpy(msg, err->msg, sizeof msg);
                msg[sizeof msg - 1] = 0;
                return hdg_fail(err, st, "along %s (null vector %d of %d): %s", what, j + 1, F->dim, msg);
            }
        }
        for (int f = 0; f < nf; f++)
            if (!d || d->fowner[f] == d->rank)
                for (int i = 0; i < m; i++) b[(size_t)f * m + i] -= qb * q[(size_t)f * m + i];
    }
    hdg_report_number(rep, "solver.rhs_null_component", worst);
    if (quad >= 0) hdg_report_number(rep, "solver.rhs_quadrature_error", quad);
    return HDG_OK;
}

/* Solves the dim x dim system A c = r (Gaussian elimination, partial pivoting); 0 when singular. */
static int small_solve(double *A, double *r, int n)
{
    double big = 0;
    for (int i = 0; i < n * n; i++) big = fmax(big, fabs(A[i]));
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int i = c + 1; i < n; i++)
            if (fabs(A[i * n + c]) > fabs(A[piv * n + c])) piv = i;
        if (!(fabs(A[piv * n + c]) > 1e-8 * big)) return 0;
        for (int k = 0; k < n; k++) {
            double t = A[c * n + k];
            A[c * n + k] = A[piv * n + k], A[piv * n + k] = t;
        }
        double t = r[c];
        r[c] = r[piv], r[piv] = t;
        for (int i = c + 1; i < n; i++) {
            double f = A[i * n + c] / A[c * n + c];
            for (int k = c; k < n; k++) A[i * n + k] -= f * A[c * n + k];
            r[i] -= f * r[c];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int k = i + 1; k < n; k++) r[i] -= A[i * n + k] * r[k];
        r[i] /= A[i * n + i];
    }
    return 1;
}

hdg_status hdg_hdg_null_shift_all(const hdg_problem *p, const hdg_mesh *M, const hdg_hdg_null_fixes *F,
                                  const hdg_vecops *v, long long n, const double *Q, double *x, hdg_hdg_means_fn means,
                                  void *ctx, hdg_report *rep, hdg_error *err)
{
    int d = F->dim;
    double m0[HDG_HDG_NULL_MAXC], m1[HDG_HDG_NULL_MAXC], A[HDG_HDG_NULL_MAXC * HDG_HDG_NULL_MAXC],
        c[HDG_HDG_NULL_MAXC];
    hdg_status st = means(ctx, x, m0, err);
    for (int j = 0; j < d && !st; j++) {   /* column j: the response of every mean to q_j */
        const double *q = Q + (size_t)j * (size_t)n;
        v->axpy(v->ctx, n, 1.0, q, x);
        st = means(ctx, x, m1, err);
        v->axpy(v->ctx, n, -1.0, q, x);
        for (int i = 0; i < d; i++) A[i * d + j] = m1[i] - m0[i];
    }
    if (st) return st;
    for (int i = 0; i < d; i++) {
        const hdg_hdg_null_fix *f = &F->fix[i];
        double want = hdg_hdg_mean_target(p, M, f->u, f->c.comp);
        if (!isfinite(want))
            return hdg_fail(err, HDG_EINPUT, "%s:%d:%d: the '%s' condition of '%s' is not finite (its %s over the "
                            "domain is %g)", p->file, p->unknowns[f->u].mean_loc.line, p->unknowns[f->u].mean_loc.col,
                            p->unknowns[f->u].rigid ? "rigid" : "mean", p->unknowns[f->u].name,
                            f->c.comp < 0 ? "moment along a rotation" : "mean", want);
        if (i == 0) hdg_report_number(rep, "solver.mean", want);
        c[i] = want - m0[i];
    }
    if (!small_solve(A, c, d)) {
        char what[128];
        fix_name(p, &F->fix[0], what, sizeof what);
        return hdg_fail(err, HDG_EINPUT, "the 'mean'/'rigid' conditions do not fix the %d free null vectors (%s, "
                        "...): the means and moments they name do not move independently with them", d, what);
    }
    for (int j = 0; j < d; j++) v->axpy(v->ctx, n, c[j], Q + (size_t)j * (size_t)n, x);
    return HDG_OK;
}
