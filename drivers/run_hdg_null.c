/* run_hdg_null.c — the constant null space of pure Neumann HDG problems (see
 * run_hdg_null.h). */
#include "drivers/run_hdg_null.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/run_hdg_common.h"
#include "runtime/parallel/comm.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

/* The coefficient of atom A at the centroid of element 0 (a reaction
 * coefficient that --set made 0 is no reaction). */
static double at_centroid(const hdg_problem *p, const hdg_mesh *M, const hdg_atom *A)
{
    double x = 0, y = 0;
    if (M->ne == 0) return 0;   /* an empty piece under mpirun: the others decide */
    for (int i = 0; i < 3; i++) x += M->vx[M->ev[i]] / 3, y += M->vy[M->ev[i]] / 3;
    hdg_eval_env env = {.x = x, .y = y, .problem = p};
    return hdg_expr_eval(A->coef, &env);
}

/* Does a term with an unknown on marked boundary faces (a Robin term, e.g.
 * 'qn = g - alpha*uhat') act: its coefficient nonzero at the midpoint of some
 * boundary face it covers, with that face's outward normal? (--set alpha=0
 * turns one off, leaving a pure Neumann problem.) */
static int robin_acts(const hdg_problem *p, const hdg_mesh *M, const hdg_atom *A)
{
    for (int f = 0; f < M->nf; f++) {
        if (M->fe[2 * f + 1] >= 0 || (M->partition_marker && M->fmark[f] == M->partition_marker)) continue;
        int id = M->fmark[f];
        const char *name = M->marker_names && id > 0 && id <= M->nmarkers ? M->marker_names[id] : NULL;
        if (!hdg_markers_match(A->markers, name, id)) continue;
        int a = M->fv[2 * f], b = M->fv[2 * f + 1];
        double dx = M->vx[b] - M->vx[a], dy = M->vy[b] - M->vy[a], len = hypot(dx, dy);
        hdg_eval_env env = {.x = (M->vx[a] + M->vx[b]) / 2, .y = (M->vy[a] + M->vy[b]) / 2,
                            .nx = dy / len, .ny = -dx / len, .problem = p};
        if (hdg_expr_eval(A->coef, &env) != 0) return 1;   /* NaN too */
    }
    return 0;
}

int hdg_hdg_null_candidate(const hdg_problem *p, const hdg_mesh *M, const unsigned char *isdir)
{
    for (int f = 0; f < M->nf; f++)
        if (isdir[f]) return -1;
    int t = -1;
    for (int u = 0; u < p->nunknowns && t < 0; u++)
        if (p->unknowns[u].trace && p->unknowns[u].ncomp == 1) t = u;
    for (int q = 0; q < p->nequations && t >= 0; q++) {
        const hdg_equation *E = &p->equations[q];
        for (int a = 0; a < E->natoms && !E->post; a++) {
            const hdg_atom *A = &E->atoms[a];
            if (A->trial < 0) continue;
            if (A->domain == HDG_BOUNDARY && A->markers && robin_acts(p, M, A)) return -1;   /* Robin */
            if (A->domain == HDG_VOLUME && A->trial_op == HDG_OP_VALUE && A->test_op == HDG_OP_VALUE &&
                p->unknowns[A->trial].ncomp == 1 && p->tests[A->test].ncomp == 1 && at_centroid(p, M, A) != 0)
                return -1;                                              /* reaction */
        }
    }
    return t;
}

int hdg_hdg_null_left(const hdg_lowered *L, const hdg_mesh *M, const double *Ke, int t, double amax)
{
    int m = L->m, nt = L->nt, off = L->toff[t];
    double *y = hdg_xcalloc((size_t)M->nf * m + 1, sizeof(double));
    for (int e = 0; e < M->ne; e++) {
        const double *K = Ke + (size_t)e * nt * nt;
        for (int i = 0; i < 3; i++) {   /* column block of local face i, in the face's orientation */
            int g = M->ef[3 * e + i], rev = M->eforient ? M->eforient[3 * e + i] : 0;
            for (int p = 0; p < m; p++) {
                double w = 0;
                for (int j = 0; j < 3; j++) w += K[(j * m + off) * nt + i * m + p];
                y[(size_t)g * m + p] += rev && ((p % (L->k + 1)) & 1) ? -w : w;
            }
        }
    }
    double yn = 0;
    for (long long i = 0; i < (long long)M->nf * m; i++) yn += y[i] * y[i];
    free(y);
    return isfinite(yn) && sqrt(yn) <= 1e-10 * amax * sqrt((double)M->nf);
}

/* ---------------------------------------------------------------- per trace unknown */

int hdg_hdg_null_candidates(const hdg_problem *p, const hdg_lowered *L, hdg_hdg_null_cand *c)
{
    int n = 0;
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (!x->trace || L->toff[u] < 0) continue;
        for (int k = 0; k < x->ncomp && n < HDG_HDG_NULL_MAXC; k++) c[n++] = (hdg_hdg_null_cand){u, k};
        if (x->ncomp == 2 && L->k >= 1 && n < HDG_HDG_NULL_MAXC) c[n++] = (hdg_hdg_null_cand){u, -1};
    }
    return n;
}

/* The rotation (-y, x) on face f, canonical direction a -> b, parameter t in
 * [-1, 1]: a + b t per component, divided by sqrt(2) as the constants are
 * (mode 0 = 1 is the constant 1/sqrt(2)): with P0 = 1/sqrt(2) and
 * P1 = sqrt(3/2) t, the coefficients are a and b / sqrt(3). */
static void rotation_face(const hdg_mesh *M, int f, double *z, int off, int nk)
{
    int a = M->fv[2 * f], b = M->fv[2 * f + 1];
    double xm = (M->vx[a] + M->vx[b]) / 2, ym = (M->vy[a] + M->vy[b]) / 2;
    double dx = M->vx[b] - M->vx[a], dy = M->vy[b] - M->vy[a], s1 = 1 / sqrt(3.0);
    z[off] = -ym, z[off + 1] = -dy / 2 * s1;
    z[off + nk] = xm, z[off + nk + 1] = dx / 2 * s1;
}

double *hdg_hdg_null_cand_vector(const hdg_lowered *L, const hdg_mesh *M, hdg_hdg_null_cand c)
{
    int m = L->m, nk = L->k + 1;
    double *z = hdg_xcalloc((size_t)M->nf * m + 1, sizeof(double));
    for (int f = 0; f < M->nf; f++) {
        if (c.comp >= 0) z[(size_t)f * m + L->toff[c.t] + c.comp * nk] = 1.0;
        else rotation_face(M, f, z + (size_t)f * m, L->toff[c.t], nk);
    }
    return z;
}

/* Cholesky G = R^T R in place (upper R); 0 when G is not positive definite. */
static int cholesky(double *G, int n)
{
    for (int j = 0; j < n; j++) {
        double d = G[j * n + j];
        for (int k = 0; k < j; k++) d -= G[k * n + j] * G[k * n + j];
        if (!(d > 0)) return 0;
        G[j * n + j] = sqrt(d);
        for (int i = j + 1; i < n; i++) {
            double s = G[j * n + i];
            for (int k = 0; k < j; k++) s -= G[k * n + j] * G[k * n + i];
            G[j * n + i] = s / G[j * n + j];
        }
    }
    return 1;
}

/* Cyclic Jacobi: S (symmetric n x n) diagonalised, V its eigenvectors (columns). */
static void jacobi_eigen(double *S, double *V, int n)
{
    for (int i = 0; i < n * n; i++) V[i] = i % (n + 1) == 0;
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0, tot = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) *(i == j ? &tot : &off) += S[i * n + j] * S[i * n + j];
        if (off <= 1e-30 * (tot + off) || off == 0) return;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) {
                double apq = S[p * n + q];
                if (apq == 0) continue;
                double th = (S[q * n + q] - S[p * n + p]) / (2 * apq);
                double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1)), c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < n; k++) {   /* S <- S J, then J^T S */
                    double a = S[k * n + p], b = S[k * n + q];
                    S[k * n + p] = c * a - s * b, S[k * n + q] = s * a + c * b;
                }
                for (int k = 0; k < n; k++) {
                    double a = S[p * n + k], b = S[q * n + k];
                    S[p * n + k] = c * a - s * b, S[q * n + k] = s * a + c * b;
                    a = V[k * n + p], b = V[k * n + q];
                    V[k * n + p] = c * a - s * b, V[k * n + q] = s * a + c * b;
                }
            }
    }
}

/* The Gram matrices of the candidates Z (over the faces this rank owns) and
 * of K Z (over every face of the piece: each piece's partial K z is 0 when
 * its elements annihilate z, which they do for constants and rigid motions). */
static void gram(const hdg_lowered *L, const hdg_mesh *M, const hdg_mesh_dist *d, hdg_hdg_apply_fn apply,
                 void *ctx, hdg_hdg_null *N, double *Gz, double *Gy)
{
    int n = N->ncand;
    size_t len = (size_t)M->nf * L->m;
    double **Z = hdg_xmalloc(sizeof(double *) * (size_t)n), **Y = hdg_xmalloc(sizeof(double *) * (size_t)n);
    for (int i = 0; i < n; i++) {
        Z[i] = hdg_hdg_null_cand_vector(L, M, N->cand[i]);
        Y[i] = hdg_xcalloc(len + 1, sizeof(double));
        apply(ctx, Z[i], Y[i]);
    }
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++) {
            double sz = 0, sy = 0;
            for (int f = 0; f < M->nf; f++) {
                const double *zi = Z[i] + (size_t)f * L->m, *zj = Z[j] + (size_t)f * L->m;
                const double *yi = Y[i] + (size_t)f * L->m, *yj = Y[j] + (size_t)f * L->m;
                int own = !d || d->fowner[f] == d->rank;
                for (int a = 0; a < L->m; a++) sz += own ? zi[a] * zj[a] : 0, sy += yi[a] * yj[a];
            }
            Gz[i * n + j] = Gz[j * n + i] = sz, Gy[i * n + j] = Gy[j * n + i] = sy;
        }
    for (int i = 0; i < n; i++) free(Z[i]), free(Y[i]);
    free(Z), free(Y);
    hdg_comm_sum(Gz, n * n);
    hdg_comm_sum(Gy, n * n);
}

/* Solves R^T W = Gy, then S = W R^-1 ... i.e. S = R^-T Gy R^-1 (symmetric). */
static void congruence(const double *R, const double *Gy, double *S, int n)
{
    double *W = hdg_xmalloc(sizeof(double) * (size_t)n * n);
    for (int c = 0; c < n; c++)          /* W = R^-T Gy, column c by forward substitution */
        for (int i = 0; i < n; i++) {
            double s = Gy[i * n + c];
            for (int k = 0; k < i; k++) s -= R[k * n + i] * W[k * n + c];
            W[i * n + c] = s / R[i * n + i];
        }
    for (int r = 0; r < n; r++)          /* S = W R^-1, row r: S R = W */
        for (int j = 0; j < n; j++) {
            double s = W[r * n + j];
            for (int k = 0; k < j; k++) s -= S[r * n + k] * R[k * n + j];
            S[r * n + j] = s / R[j * n + j];
        }
    free(W);
}

/* The null vectors' coefficients on the candidates: x = R^-1 w. */
static void back_substitute(const double *R, const double *w, double *x, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        double s = w[i];
        for (int k = i + 1; k < n; k++) s -= R[i * n + k] * x[k];
        x[i] = s / R[i * n + i];
    }
}

/* Which single candidate a null vector is (its other coefficients at rounding level), or -1. */
static int single_candidate(const double *x, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (fabs(x[i]) > fabs(x[best])) best = i;
    for (int i = 0; i < n; i++)
        if (i != best && !(fabs(x[i]) <= 1e-8 * fabs(x[best]))) return -1;
    return best;
}

void hdg_hdg_null_find(const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *M, const hdg_mesh_dist *d,
                       hdg_hdg_apply_fn apply, void *ctx, double amax, hdg_hdg_null *N)
{
    memset(N, 0, sizeof *N);
    N->single = -1;
    N->smallest = INFINITY;
    N->ncand = hdg_hdg_null_candidates(p, L, N->cand);
    int n = N->ncand;
    if (!n) return;
    double *Gz = hdg_xmalloc(sizeof(double) * (size_t)n * n), *Gy = hdg_xmalloc(sizeof(double) * (size_t)n * n);
    double *S = hdg_xmalloc(sizeof(double) * (size_t)n * n), *V = hdg_xmalloc(sizeof(double) * (size_t)n * n);
    gram(L, M, d, apply, ctx, N, Gz, Gy);
    if (cholesky(Gz, n)) {
        congruence(Gz, Gy, S, n);
        jacobi_eigen(S, V, n);
        for (int i = 0; i < n; i++) {
            double s = sqrt(fabs(S[i * n + i])) / (amax > 0 ? amax : 1), w[HDG_HDG_NULL_MAXC];
            if (!isfinite(s)) s = INFINITY;
            if (s < N->smallest) N->smallest = s;
            if (!(s <= HDG_HDG_NULL_TOL) || N->dim >= HDG_HDG_NULL_MAXC) continue;
            for (int k = 0; k < n; k++) w[k] = V[k * n + i];
            back_substitute(Gz, w, N->basis[N->dim], n);
            N->sigma[N->dim++] = s;
        }
    }
    if (N->dim == 1) N->single = single_candidate(N->basis[0], n);
    free(Gz), free(Gy), free(S), free(V);
}

/* "the constants of 'uhat' (component 1)", "a rotation of 'uhat'" ... */
static int name_candidate(const hdg_problem *p, hdg_hdg_null_cand c, char *b, size_t n)
{
    const hdg_unknown *x = &p->unknowns[c.t];
    if (c.comp < 0) return snprintf(b, n, "the rotation (-y, x) of '%s'", x->name);
    if (x->ncomp == 1) return snprintf(b, n, "the constants of '%s'", x->name);
    return snprintf(b, n, "the constants of component %d of '%s'", c.comp, x->name);
}

void hdg_hdg_null_describe(const hdg_problem *p, const hdg_hdg_null *N, char *b, size_t n)
{
    int used[HDG_HDG_NULL_MAXC] = {0}, count = 0;
    for (int v = 0; v < N->dim; v++) {
        double big = 0;
        for (int k = 0; k < N->ncand; k++) big = fmax(big, fabs(N->basis[v][k]));
        for (int k = 0; k < N->ncand; k++)
            if (fabs(N->basis[v][k]) > 1e-8 * big && !used[k]) used[k] = 1, count++;
    }
    size_t at = (size_t)snprintf(b, n, "%s", count > N->dim ? "combinations of " : "");
    for (int k = 0, i = 0; k < N->ncand && at < n; k++) {
        if (!used[k]) continue;
        at += (size_t)snprintf(b + at, n - at, "%s", i == 0 ? "" : i == count - 1 ? " and " : ", ");
        if (at < n) at += (size_t)name_candidate(p, N->cand[k], b + at, n - at);
        i++;
    }
}

/* A null space other than one candidate alone (several constants, a rigid
 * motion): refused, named. */
hdg_status hdg_hdg_null_refuse(const hdg_problem *p, const hdg_hdg_null *N, hdg_error *err)
{
    char what[1024];
    hdg_hdg_null_describe(p, N, what, sizeof what);
    hdg_loc at = p->boundary_loc.line ? p->boundary_loc : p->loc;
    return hdg_fail(err, HDG_EINPUT, "%s:%d:%d: the solution is not unique: the trace matrix has a null space of "
                    "dimension %d (%s%s), found on the assembled matrix; a 'mean' condition fixes one constant of "
                    "one component only, so give Dirichlet conditions that fix the others (e.g. both components "
                    "of the displacement on part of the boundary)", p->file, at.line, at.col, N->dim, what,
                    N->dim == 3 && strstr(what, "rotation") ? ": the rigid motions" : "");
}

hdg_status hdg_hdg_null_decide(const hdg_problem *p, const hdg_lowered *L, const hdg_hdg_null *N, int left,
                               double asym, hdg_report *rep, hdg_hdg_null_fix *fix, hdg_error *err)
{
    memset(fix, 0, sizeof *fix);
    fix->c.t = -1;
    hdg_report_number(rep, "solver.null_smallest", N->smallest);
    if (!N->dim && !left) return HDG_OK;
    hdg_status st = hdg_hdg_null_symmetric(asym, err);
    if (st) return st;
    if (N->single < 0 || N->cand[N->single].comp < 0) return hdg_hdg_null_refuse(p, N, err);
    hdg_hdg_null_cand c = N->cand[N->single];
    if ((st = hdg_hdg_null_unknown(p, c, &fix->u, err))) return st;
    fix->c = c;
    fix->g = 1 + L->toff[c.t] / (L->k + 1) + c.comp;
    char what[256];
    hdg_hdg_null_describe(p, N, what, sizeof what);
    hdg_report_string(rep, "solver.null_space", "constants");
    hdg_report_string(rep, "solver.null_vectors", what);
    hdg_report_string(rep, "solver.null_mean", p->unknowns[fix->u].name);
    return HDG_OK;
}

hdg_status hdg_hdg_null_transient(const hdg_problem *p, const hdg_hdg_null *N, double sigma, hdg_report *rep,
                                  hdg_error *err)
{
    hdg_report_number(rep, "solver.null_smallest", N->smallest);
    if (!N->dim) return HDG_OK;
    char what[1024];
    hdg_hdg_null_describe(p, N, what, sizeof what);
    return hdg_fail(err, HDG_EINPUT, "%s: the trace matrix of a time step is singular to rounding: %s (||K z|| = "
                    "%.3g largest entry x ||z||): the dt() term, weighted sigma = %.3g, is lost beside the others, "
                    "and the step would be solved with an arbitrary constant; use a smaller --dt, or give a "
                    "Dirichlet condition", p->name, what, N->sigma[0], sigma);
}

hdg_status hdg_hdg_null_symmetric(double asym_rel, hdg_error *err)
{
    if (asym_rel <= HDG_HDG_SYMMETRIC) return HDG_OK;
    return hdg_fail(err, HDG_EINPUT, "the trace matrix is singular (the constants are a null vector of it or "
                    "of its transpose) and not symmetric (relative asymmetry %.3g): such a problem is not supported; give a Dirichlet "
                    "condition on part of the boundary", asym_rel);
}

/* Does equation q have trace unknown t as a trial? */
static int couples(const hdg_equation *E, int t)
{
    for (int a = 0; a < E->natoms; a++)
        if (E->atoms[a].trial == t) return 1;
    return 0;
}

/* The element unknowns of the main system that the constants of trace t move:
 * those with as many components, trial in an equation that has t as trial. */
static int moved_unknowns(const hdg_problem *p, int t, int *list)
{
    int n = 0;
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (x->trace || x->post || x->ncomp != p->unknowns[t].ncomp) continue;
        for (int q = 0; q < p->nequations; q++) {
            const hdg_equation *E = &p->equations[q];
            if (E->post || !couples(E, t) || !couples(E, u)) continue;
            list[n++] = u;
            break;
        }
    }
    return n;
}

hdg_status hdg_hdg_null_unknown(const hdg_problem *p, hdg_hdg_null_cand c, int *u, hdg_error *err)
{
    int list[64], n = moved_unknowns(p, c.t, list);
    for (int i = 0; i < n; i++)
        if (p->unknowns[list[i]].mean_value[c.comp]) {
            *u = list[i];
            return HDG_OK;
        }
    const hdg_unknown *T = &p->unknowns[c.t];
    const char *name = n ? p->unknowns[list[0]].name : "u";
    char what[64] = "", val[64] = "VALUE";
    if (T->ncomp > 1) {
        snprintf(what, sizeof what, " (component %d)", c.comp);
        snprintf(val, sizeof val, "[%s]", T->ncomp == 2 ? "VALUE, VALUE" : "VALUE, ...");
    }
    hdg_loc at = p->boundary_loc.line ? p->boundary_loc : p->loc;
    return hdg_fail(err, HDG_EINPUT, "%s:%d:%d: the solution is defined only up to a constant (no Dirichlet "
                    "face, no Robin or reaction term fixes the constants of the trace unknown '%s'%s: they are a "
                    "null vector of the trace matrix); add a condition 'mean %s = %s' (e.g. the exact solution) "
                    "that fixes the domain mean of '%s'%s", p->file, at.line, at.col, T->name, what, name, val, name,
                    what);
}

static double area(const hdg_mesh *M, int e)
{
    const int *v = M->ev + 3 * e;
    return 0.5 * fabs((M->vx[v[1]] - M->vx[v[0]]) * (M->vy[v[2]] - M->vy[v[0]]) -
                      (M->vx[v[2]] - M->vx[v[0]]) * (M->vy[v[1]] - M->vy[v[0]]));
}

/* ---------------------------------------------------------------- compatibility */

/* A load term the constants see: no unknown, a scalar test taken by value. */
static int balance_atom(const hdg_problem *p, const hdg_equation *E, const hdg_atom *A)
{
    return !E->post && A->trial < 0 && A->role == HDG_ROLE_SOURCE && A->test_op == HDG_OP_VALUE &&
           p->tests[A->test].ncomp == 1;
}

/* The integral of A's coefficient over element e by the triangle rule q. */
static double volume_integral(const hdg_problem *p, const hdg_mesh *M, int e, const hdg_atom *A, const hdg_quad2d *q)
{
    const int *v = M->ev + 3 * e;
    double s = 0, ws = 0;
    for (int i = 0; i < q->n; i++) {
        double l0 = -(q->r[i] + q->s[i]) / 2, l1 = (1 + q->r[i]) / 2, l2 = (1 + q->s[i]) / 2;
        hdg_eval_env env = {.x = l0 * M->vx[v[0]] + l1 * M->vx[v[1]] + l2 * M->vx[v[2]],
                            .y = l0 * M->vy[v[0]] + l1 * M->vy[v[1]] + l2 * M->vy[v[2]], .problem = p};
        s += q->w[i] * hdg_expr_eval(A->coef, &env);
        ws += q->w[i];
    }
    return s / ws * area(M, e);
}

/* ... over boundary face f (outward normal) by the n-point Gauss rule (t, w). */
static double face_integral(const hdg_problem *p, const hdg_mesh *M, int f, const hdg_atom *A, const double *t,
                            const double *w, int n)
{
    int a = M->fv[2 * f], b = M->fv[2 * f + 1];
    double dx = M->vx[b] - M->vx[a], dy = M->vy[b] - M->vy[a], len = hypot(dx, dy), s = 0;
    for (int i = 0; i < n; i++) {
        hdg_eval_env env = {.x = M->vx[a] + (1 + t[i]) / 2 * dx, .y = M->vy[a] + (1 + t[i]) / 2 * dy,
                            .nx = dy / len, .ny = -dx / len, .problem = p};
        s += w[i] * hdg_expr_eval(A->coef, &env);
    }
    return s * len / 2;
}

static int marked_boundary(const hdg_mesh *M, const hdg_atom *A, int f)
{
    if (M->fe[2 * f + 1] >= 0 || (M->partition_marker && M->fmark[f] == M->partition_marker)) return 0;
    int id = M->fmark[f];
    const char *name = M->marker_names && id > 0 && id <= M->nmarkers ? M->marker_names[id] : NULL;
    return !A->markers || hdg_markers_match(A->markers, name, id);
}

/* Sum |Q_lo - Q_hi| (into s[0]) and |Q_hi| (s[1]) of atom A over the mesh. */
static void atom_quadrature(const hdg_problem *p, const hdg_mesh *M, const hdg_atom *A, const hdg_quad2d *q,
                            int k, double *s)
{
    if (A->domain == HDG_VOLUME) {
        for (int e = 0; e < M->ne; e++) {
            double lo = volume_integral(p, M, e, A, &q[0]), hi = volume_integral(p, M, e, A, &q[1]);
            s[0] += fabs(lo - hi), s[1] += fabs(hi);
        }
        return;
    }
    double t0[32], w0[32], t1[32], w1[32];
    hdg_error err;
    int n0 = k + 3, n1 = k + 9;   /* the face rule of the kernels (ir/lower_hdg.c), and a finer one */
    if (hdg_gauss_legendre(n0, t0, w0, &err) || hdg_gauss_legendre(n1, t1, w1, &err)) return;
    for (int f = 0; f < M->nf; f++) {
        if (!marked_boundary(M, A, f)) continue;
        double lo = face_integral(p, M, f, A, t0, w0, n0), hi = face_integral(p, M, f, A, t1, w1, n1);
        s[0] += fabs(lo - hi), s[1] += fabs(hi);
    }
}

double hdg_hdg_null_quadrature(const hdg_problem *p, const hdg_mesh *M, int k)
{
    hdg_quad2d q[2];
    hdg_error err;
    double s[2] = {0, 0};
    if (k + 9 > 32) k = 23;
    int ok = !hdg_quad_triangle(&q[0], 2 * k + 4, &err);   /* the kernels' volume rule (ir/lower_hdg.c) */
    if (ok && hdg_quad_triangle(&q[1], 2 * k + 12, &err)) hdg_quad2d_free(&q[0]), ok = 0;
    for (int e = 0; ok && e < p->nequations; e++)
        for (int a = 0; a < p->equations[e].natoms; a++)
            if (balance_atom(p, &p->equations[e], &p->equations[e].atoms[a]))
                atom_quadrature(p, M, &p->equations[e].atoms[a], q, k, s);
    if (ok) hdg_quad2d_free(&q[0]), hdg_quad2d_free(&q[1]);
    hdg_comm_sum(s, 2);   /* under mpirun: every rank's elements and faces */
    return s[1] > 0 && isfinite(s[0]) ? s[0] / s[1] : 0;
}

/* The largest part along the constants taken for rounding and quadrature. */
static double compatible_below(double quad)
{
    return fmax(HDG_HDG_COMPATIBLE, HDG_HDG_QUAD_FACTOR * quad);
}

static hdg_status incompatible(double part, double quad, hdg_error *err)
{
    return hdg_fail(err, HDG_EINPUT, "the data are not compatible with the pure Neumann problem: the sources and "
                    "boundary fluxes do not balance (their part along the constants is %.3g of the right-hand side, "
                    "more than %.3g: 1e-6, or %g times the relative quadrature error of the data, estimated at "
                    "%.3g); check f and the Neumann data", part, compatible_below(quad), HDG_HDG_QUAD_FACTOR, quad);
}

/* part <= 1e-6 passes at once; above, the quadrature estimate decides (the
 * same branch on every rank: part is reduced). */
static hdg_status compatible(const hdg_hdg_data *D, double part, hdg_report *rep, hdg_error *err)
{
    hdg_report_number(rep, "solver.rhs_null_component", part);
    if (part <= HDG_HDG_COMPATIBLE) return HDG_OK;
    double quad = hdg_hdg_null_quadrature(D->p, D->M, D->k);
    hdg_report_number(rep, "solver.rhs_quadrature_error", quad);
    return part <= compatible_below(quad) ? HDG_OK : incompatible(part, quad, err);
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

/* y = x - (z.x / z.z) z */
static void project(const hdg_hdg_null_op *c, const double *x, double *y)
{
    if (x != y) c->v->copy(c->v->ctx, c->n, x, y);
    c->v->axpy(c->v->ctx, c->n, -c->v->dot(c->v->ctx, c->n, c->z, y) / c->zz, c->z, y);
}

static void null_apply(void *ctx, const double *x, double *y)
{
    const hdg_hdg_null_op *c = ctx;
    if (!c->M) {
        project(c, x, y);
        return;
    }
    project(c, x, c->t);
    c->M->apply(c->M->ctx, c->t, y);
    project(c, y, y);
}

hdg_linop hdg_hdg_null_precond(hdg_hdg_null_op *c, const hdg_linop *M, const hdg_vecops *v, const double *z,
                               double *t, long long n)
{
    c->M = M, c->v = v, c->z = z, c->t = t, c->n = n;
    c->zz = v->dot(v->ctx, n, z, z);
    hdg_linop op = {c, n, null_apply};
    return op;
}


/* The integral of a Dubiner expansion over an element is its mode 0 times
 * psi_0 times the area (the other modes are orthogonal to constants). */
double hdg_hdg_domain_mean(const hdg_lowered *L, const hdg_mesh *M, int u, int comp, const double *xe)
{
    double r = -1.0 / 3, s = -1.0 / 3, P0 = 0, sum = 0, tot = 0;
    hdg_dubiner_eval(0, 1, &r, &s, &P0, NULL, NULL);
    for (int e = 0; e < M->ne; e++) {
        double a = area(M, e);
        sum += xe[(size_t)e * L->nl + L->uoff[u] + comp * L->np] * P0 * a;
        tot += a;
    }
    double st[2] = {sum, tot};
    hdg_comm_sum(st, 2);   /* under mpirun: over every rank's elements */
    return st[0] / st[1];
}

double hdg_hdg_mean_target(const hdg_problem *p, const hdg_mesh *M, int u, int comp)
{
    hdg_error err;
    hdg_quad2d q;
    if (hdg_quad_triangle(&q, 2 * p->degree + 4, &err)) return NAN;
    double sum = 0, tot = 0;
    for (int e = 0; e < M->ne; e++) {
        const int *v = M->ev + 3 * e;
        double a = area(M, e), s = 0, ws = 0;
        for (int i = 0; i < q.n; i++) {
            double l0 = -(q.r[i] + q.s[i]) / 2, l1 = (1 + q.r[i]) / 2, l2 = (1 + q.s[i]) / 2;
            hdg_eval_env env = {.x = l0 * M->vx[v[0]] + l1 * M->vx[v[1]] + l2 * M->vx[v[2]],
                                .y = l0 * M->vy[v[0]] + l1 * M->vy[v[1]] + l2 * M->vy[v[2]], .problem = p};
            s += q.w[i] * hdg_expr_eval(p->unknowns[u].mean_value[comp], &env);
            ws += q.w[i];
        }
        sum += s / ws * a;
        tot += a;
    }
    hdg_quad2d_free(&q);
    double st[2] = {sum, tot};
    hdg_comm_sum(st, 2);
    return st[0] / st[1];
}

hdg_status hdg_hdg_mean_shift(const hdg_problem *p, int u, double m0, double m1, double want, double *c,
                              hdg_error *err)
{
    if (!(fabs(m1 - m0) > 1e-8) || !isfinite(want))
        return hdg_fail(err, HDG_EINTERNAL, "the constant trace changes the mean of '%s' by %g (target %g)",
                        p->unknowns[u].name, m1 - m0, want);
    *c = (want - m1) / (m1 - m0);
    return HDG_OK;
}
