/* run_hdg_null_find.c — the null space per trace unknown, found on the
 * assembled matrix: candidates, Gram matrices, the left null vector test,
 * names and refusals (see run_hdg_null.h). */
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

/* The coefficient of atom A at the centroid of element 0 (a reaction
 * coefficient that --set made 0 is no reaction). */
static double at_centroid(const hdg_problem *p, const hdg_mesh *M, const hdg_atom *A)
{
    double x = 0, y = 0, z = 0;
    int nv = hdg_mesh_nfe(M);
    if (M->ne == 0) return 0;   /* an empty piece under mpirun: the others decide */
    for (int i = 0; i < nv; i++) {
        x += M->vx[M->ev[i]] / nv, y += M->vy[M->ev[i]] / nv;
        if (M->vz) z += M->vz[M->ev[i]] / nv;
    }
    hdg_eval_env env = {.x = x, .y = y, .z = z, .problem = p};
    return hdg_expr_eval(A->coef, &env);
}

/* Does a term with an unknown on marked boundary faces (a Robin term, e.g.
 * 'qn = g - alpha*uhat') act: its coefficient nonzero at the centroid of some
 * boundary face it covers, with that face's outward normal? (--set alpha=0
 * turns one off, leaving a pure Neumann problem.) */
static int robin_acts(const hdg_problem *p, const hdg_mesh *M, const hdg_atom *A)
{
    for (int f = 0; f < M->nf; f++) {
        if (M->fe[2 * f + 1] >= 0 || (M->partition_marker && M->fmark[f] == M->partition_marker)) continue;
        int id = M->fmark[f];
        const char *name = M->marker_names && id > 0 && id <= M->nmarkers ? M->marker_names[id] : NULL;
        if (!hdg_markers_match(A->markers, name, id)) continue;
        hdg_hdg_face F;
        hdg_hdg_face_frame(M, f, &F);
        hdg_eval_env env = {.x = F.c[0], .y = F.c[1], .z = F.c[2], .nx = F.n[0], .ny = F.n[1], .nz = F.n[2],
                            .problem = p};
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

/* Adds the element's row r (nfe * m, in the element's face orientations) to the
 * canonical y: y_a += sum_b S_o[b][a] r_b (the element coefficients are S_o
 * times the canonical ones; a diagonal S_o: its signs). */
static void add_oriented(const hdg_face_maps *S, int o, const double *r, double *y)
{
    int m = S->m;
    for (int a = 0; a < m; a++) {
        if (S->diag) {
            y[a] += S->diag[(size_t)o * m + a] < 0 ? -r[a] : r[a];
            continue;
        }
        double w = 0;
        for (int b = 0; b < m; b++) w += S->S[((size_t)o * m + b) * m + a] * r[b];
        y[a] += w;
    }
}

int hdg_hdg_null_left(const hdg_lowered *L, const hdg_mesh *M, const double *Ke, int t, double amax)
{
    int m = L->m, nt = L->nt, off = L->toff[t], nfe = hdg_mesh_nfe(M);
    double *y = hdg_xcalloc((size_t)M->nf * m + 1, sizeof(double)), *r = hdg_xmalloc(sizeof(double) * (size_t)m);
    hdg_hdg_maps maps;
    hdg_hdg_face_maps(L, &maps);
    for (int e = 0; e < M->ne; e++) {
        const double *K = Ke + (size_t)e * nt * nt;
        for (int i = 0; i < nfe; i++) {   /* column block of local face i, in the face's orientation */
            int g = M->ef[nfe * e + i], o = M->eforient ? M->eforient[nfe * e + i] : 0;
            for (int p = 0; p < m; p++) {
                double w = 0;
                for (int j = 0; j < nfe; j++) w += K[(j * m + off) * nt + i * m + p];
                r[p] = w;
            }
            add_oriented(&maps.S, o, r, y + (size_t)g * m);
        }
    }
    hdg_hdg_face_maps_free(&maps);
    double yn = 0;
    for (long long i = 0; i < (long long)M->nf * m; i++) yn += y[i] * y[i];
    free(y), free(r);
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
        /* the rotations of a displacement-like trace: (-y, x) in 2D; in 3D the three
         * (-y, x, 0), (-z, 0, x), (0, -z, y) */
        int nrot = p->dim == 3 ? 3 : 1;
        if (x->ncomp == (p->dim == 3 ? 3 : 2) && L->k >= 1)
            for (int r = 0; r < nrot && n < HDG_HDG_NULL_MAXC; r++) c[n++] = (hdg_hdg_null_cand){u, -1 - r};
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

/* The components (a, b) rotation r of a 3D trace moves: comp a = -x_b, comp b = x_a. */
static const int rot3[3][2] = {{0, 1}, {0, 2}, {1, 2}};

/* A triangle face's trace basis (the Dubiner basis of degree k in the canonical
 * parameterisation x = X0 + (X1 - X0)(1 + r)/2 + (X2 - X0)(1 + s)/2, X = fv)
 * at a rule exact to degree k + 1: enough for linear data. */
typedef struct face_basis {
    hdg_quad q;
    double *P;   /* q.n x nk */
    int nk;
} face_basis;

static int face_basis_init(face_basis *B, int k, int nk)
{
    hdg_error err;
    if (hdg_quad_simplex(&B->q, 2, k + 1, &err)) return 0;
    B->nk = nk;
    B->P = hdg_xmalloc(sizeof(double) * (size_t)B->q.n * nk);
    hdg_dubiner_eval(k, B->q.n, B->q.r, B->q.s, B->P, NULL, NULL);
    return 1;
}

/* Rotation r on triangle face f: per moved component the coefficients psi_0 *
 * integral of g psi_j over the reference face (the constants' scaling: mode 0 = 1
 * is the constant psi_0), g the component's linear function. */
static void rotation_face3(const hdg_mesh *M, int f, const face_basis *B, int r, double *z, int off)
{
    hdg_hdg_face F;
    hdg_hdg_face_frame(M, f, &F);
    double psi0 = B->P[0];
    for (int side = 0; side < 2; side++) {
        int comp = rot3[r][side], coord = rot3[r][1 - side];
        double sign = side == 0 ? -1 : 1;
        for (int j = 0; j < B->nk; j++) {
            double sum = 0;
            for (int i = 0; i < B->q.n; i++) {
                double rs[2] = {B->q.r[i], B->q.s[i]}, x[3];
                hdg_hdg_face_point(&F, rs, x);
                sum += B->q.w[i] * sign * x[coord] * B->P[(size_t)i * B->nk + j];
            }
            z[off + comp * B->nk + j] = psi0 * sum;
        }
    }
}

double *hdg_hdg_null_cand_vector(const hdg_lowered *L, const hdg_mesh *M, hdg_hdg_null_cand c)
{
    int m = L->m, nk = L->nk;
    double *z = hdg_xcalloc((size_t)M->nf * m + 1, sizeof(double));
    face_basis B = {0};
    if (c.comp < 0 && hdg_mesh_dim(M) == 3 && !face_basis_init(&B, L->k, nk)) return z;
    for (int f = 0; f < M->nf; f++) {
        if (c.comp >= 0) z[(size_t)f * m + L->toff[c.t] + c.comp * nk] = 1.0;
        else if (hdg_mesh_dim(M) == 3) rotation_face3(M, f, &B, -1 - c.comp, z + (size_t)f * m, L->toff[c.t]);
        else rotation_face(M, f, z + (size_t)f * m, L->toff[c.t], nk);
    }
    if (B.P) free(B.P), hdg_quad_free(&B.q);
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
int hdg_hdg_null_name_candidate(const hdg_problem *p, hdg_hdg_null_cand c, char *b, size_t n)
{
    const hdg_unknown *x = &p->unknowns[c.t];
    static const char *rot[3] = {"(-y, x, 0)", "(-z, 0, x)", "(0, -z, y)"};
    if (c.comp < 0 && p->dim == 3) return snprintf(b, n, "the rotation %s of '%s'", rot[(-1 - c.comp) % 3], x->name);
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
        if (at < n) at += (size_t)hdg_hdg_null_name_candidate(p, N->cand[k], b + at, n - at);
        i++;
    }
}

/* A null space that is not free constants alone (a rotation, a combination of
 * candidates): refused, named. */
hdg_status hdg_hdg_null_refuse(const hdg_problem *p, const hdg_hdg_null *N, hdg_error *err)
{
    char what[1024];
    hdg_hdg_null_describe(p, N, what, sizeof what);
    hdg_loc at = p->boundary_loc.line ? p->boundary_loc : p->loc;
    return hdg_fail(err, HDG_EINPUT, "%s:%d:%d: the solution is not unique: the trace matrix has a null space of "
                    "dimension %d (%s%s), found on the assembled matrix; a 'mean' condition fixes the constants "
                    "of one component of one trace unknown, 'rigid u = g' the translations and rotations of a "
                    "displacement, not a combination of them, so give Dirichlet conditions that fix those (e.g. "
                    "every component of the displacement on part of the boundary)", p->file, at.line, at.col, N->dim, what,
                    N->dim == (p->dim == 3 ? 6 : 3) && strstr(what, "rotation") ? ": the rigid motions" : "");
}
