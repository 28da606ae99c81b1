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
static void face_point(const hdg_hdg_face *F, const double *r, double *x)
{
    for (int c = 0; c < 3; c++) {
        x[c] = F->X[0][c];
        for (int k = 0; k + 1 < F->dim; k++) x[c] += (1 + r[k]) / 2 * (F->X[k + 1][c] - F->X[0][c]);
    }
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
                face_point(&F, rs, x);
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
static int name_candidate(const hdg_problem *p, hdg_hdg_null_cand c, char *b, size_t n)
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
        if (at < n) at += (size_t)name_candidate(p, N->cand[k], b + at, n - at);
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
                    "of one component of one trace unknown, not a rotation or a combination of them, so give "
                    "Dirichlet conditions that fix those (e.g. every component of the displacement on part of "
                    "the boundary)", p->file, at.line, at.col, N->dim, what,
                    N->dim == (p->dim == 3 ? 6 : 3) && strstr(what, "rotation") ? ": the rigid motions" : "");
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
    fix->g = 1 + L->toff[c.t] / L->nk + c.comp;
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

/* The measure of element e: a triangle's area, a tetrahedron's volume. */
static double volume(const hdg_mesh *M, int e)
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
static void element_point(const hdg_mesh *M, int e, const hdg_quad *q, int i, hdg_eval_env *env)
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
        element_point(M, e, q, i, &env);
        s += q->w[i] * hdg_expr_eval(A->coef, &env);
        ws += q->w[i];
    }
    return s / ws * volume(M, e);
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
        face_point(&F, r, x);
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

/* y = x - sum (z.x / z.z) z over the (orthogonal) vectors */
static void project(const hdg_hdg_null_op *c, const double *x, double *y)
{
    if (x != y) c->v->copy(c->v->ctx, c->n, x, y);
    for (int j = 0; j < c->nz; j++) {
        const double *z = c->z + (size_t)j * (size_t)c->n;
        c->v->axpy(c->v->ctx, c->n, -c->v->dot(c->v->ctx, c->n, z, y) / c->zz[j], z, y);
    }
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
    return hdg_hdg_null_precond_all(c, M, v, z, 1, t, n);
}

hdg_linop hdg_hdg_null_precond_all(hdg_hdg_null_op *c, const hdg_linop *M, const hdg_vecops *v, const double *z,
                                   int nz, double *t, long long n)
{
    c->M = M, c->v = v, c->z = z, c->t = t, c->n = n, c->nz = nz;
    for (int j = 0; j < nz; j++) c->zz[j] = v->dot(v->ctx, n, z + (size_t)j * (size_t)n, z + (size_t)j * (size_t)n);
    hdg_linop op = {c, n, null_apply};
    return op;
}


/* The integral of an orthonormal (Dubiner, PKD) expansion over an element is
 * its mode 0 times psi_0 times the element's measure over the reference one's
 * ... i.e. mode 0 times psi_0 (psi_0^2 |K_ref| = 1) times |K| (the other modes
 * are orthogonal to constants); psi_0 at the reference centroid. */
double hdg_hdg_domain_mean(const hdg_lowered *L, const hdg_mesh *M, int u, int comp, const double *xe)
{
    double r = -1.0 / 3, s = -1.0 / 3, P0 = 0, sum = 0, tot = 0;
    if (hdg_mesh_dim(M) == 2) hdg_dubiner_eval(0, 1, &r, &s, &P0, NULL, NULL);
    else {
        double c = -0.5;
        const double *x[3] = {&c, &c, &c};
        hdg_simplex_eval(3, 0, 1, x, &P0, NULL);
    }
    for (int e = 0; e < M->ne; e++) {
        double a = volume(M, e);
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
    hdg_quad q;
    if (hdg_quad_simplex(&q, hdg_mesh_dim(M), 2 * p->degree + 4, &err)) return NAN;
    double sum = 0, tot = 0;
    for (int e = 0; e < M->ne; e++) {
        double a = volume(M, e), s = 0, ws = 0;
        for (int i = 0; i < q.n; i++) {
            hdg_eval_env env = {.problem = p};
            element_point(M, e, &q, i, &env);
            s += q.w[i] * hdg_expr_eval(p->unknowns[u].mean_value[comp], &env);
            ws += q.w[i];
        }
        sum += s / ws * a;
        tot += a;
    }
    hdg_quad_free(&q);
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

/* dim constants, each a null vector alone: every used candidate a constant and as many as dim. */
static int separate_constants(const hdg_hdg_null *N, const int *used, int count)
{
    if (count != N->dim) return 0;
    for (int k = 0; k < N->ncand; k++)
        if (used[k] && N->cand[k].comp < 0) return 0;
    return 1;
}

static hdg_status multi_elsewhere(const hdg_problem *p, const hdg_hdg_null *N, hdg_error *err)
{
    char what[1024];
    hdg_hdg_null_describe(p, N, what, sizeof what);
    hdg_loc at = p->boundary_loc.line ? p->boundary_loc : p->loc;
    return hdg_fail(err, HDG_EINPUT, "%s:%d:%d: the trace matrix has %d free constants (%s), found on the "
                    "assembled matrix; several are projected out by the host's native solvers only, serial and "
                    "steady (--backend c, --solver cg or gmres, --precond block, jacobi or none): this run's "
                    "solver (PETSc, mg, the device or mpirun) removes one; use those options, or give a "
                    "Dirichlet condition that fixes all but one", p->file, at.line, at.col, N->dim, what);
}

hdg_status hdg_hdg_null_decide_all(const hdg_problem *p, const hdg_lowered *L, const hdg_hdg_null *N, int left,
                                   double asym, int multi_ok, hdg_report *rep, hdg_hdg_null_fixes *F,
                                   hdg_error *err)
{
    memset(F, 0, sizeof *F);
    if (N->dim <= 1) {
        hdg_status st = hdg_hdg_null_decide(p, L, N, left, asym, rep, &F->fix[0], err);
        F->dim = !st && F->fix[0].c.t >= 0;
        return st;
    }
    hdg_report_number(rep, "solver.null_smallest", N->smallest);
    hdg_status st = hdg_hdg_null_symmetric(asym, err);
    if (st) return st;
    int used[HDG_HDG_NULL_MAXC], count = used_candidates(N, used);
    if (!separate_constants(N, used, count)) return hdg_hdg_null_refuse(p, N, err);
    if (!multi_ok) return multi_elsewhere(p, N, err);
    char means[512] = "";
    size_t at = 0;
    for (int k = 0; k < N->ncand; k++) {
        if (!used[k]) continue;
        hdg_hdg_null_fix *f = &F->fix[F->dim++];
        f->c = N->cand[k];
        if ((st = hdg_hdg_null_unknown(p, f->c, &f->u, err))) return st;
        f->g = 1 + L->toff[f->c.t] / L->nk + f->c.comp;
        int again = 0;   /* each unknown named once */
        for (int i = 0; i + 1 < F->dim; i++) again |= F->fix[i].u == f->u;
        if (!again && at < sizeof means)
            at += (size_t)snprintf(means + at, sizeof means - at, "%s%s", at ? ", " : "", p->unknowns[f->u].name);
    }
    char what[1024];
    hdg_hdg_null_describe(p, N, what, sizeof what);
    hdg_report_string(rep, "solver.null_space", "constants");
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
    name_candidate(p, f->c, b, n);
}

hdg_status hdg_hdg_null_project_all(const hdg_problem *p, const hdg_hdg_null_fixes *F, long long n, const double *Q,
                                    double *b, const hdg_hdg_data *D, hdg_report *rep, hdg_error *err)
{
    const hdg_vecops *v = hdg_vecops_host();
    double bn = v->norm2(v->ctx, n, b), worst = 0, quad = -1;
    for (int j = 0; j < F->dim; j++) {
        const double *q = Q + (size_t)j * (size_t)n;
        double qb = v->dot(v->ctx, n, q, b), part = bn > 0 ? fabs(qb) / bn : 0;
        worst = fmax(worst, part);
        if (part > HDG_HDG_COMPATIBLE) {
            if (quad < 0) quad = hdg_hdg_null_quadrature(D->p, D->M, D->k);
            if (part > compatible_below(quad)) {
                char what[256];
                fix_name(p, &F->fix[j], what, sizeof what);
                hdg_report_number(rep, "solver.rhs_null_component", part);
                hdg_report_number(rep, "solver.rhs_quadrature_error", quad);
                hdg_status st = incompatible(part, quad, err);
                char msg[sizeof err->msg];
                memcpy(msg, err->msg, sizeof msg);
                msg[sizeof msg - 1] = 0;
                return hdg_fail(err, st, "along %s (null vector %d of %d): %s", what, j + 1, F->dim, msg);
            }
        }
        v->axpy(v->ctx, n, -qb, q, b);
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

hdg_status hdg_hdg_null_shift_all(const hdg_problem *p, const hdg_mesh *M, const hdg_hdg_null_fixes *F, long long n,
                                  const double *Q, double *x, hdg_hdg_means_fn means, void *ctx, hdg_report *rep,
                                  hdg_error *err)
{
    int d = F->dim;
    double m0[HDG_HDG_NULL_MAXC], m1[HDG_HDG_NULL_MAXC], A[HDG_HDG_NULL_MAXC * HDG_HDG_NULL_MAXC],
        c[HDG_HDG_NULL_MAXC];
    hdg_status st = means(ctx, x, m0, err);
    for (int j = 0; j < d && !st; j++) {   /* column j: the response of every mean to q_j */
        const double *q = Q + (size_t)j * (size_t)n;
        for (long long a = 0; a < n; a++) x[a] += q[a];
        st = means(ctx, x, m1, err);
        for (long long a = 0; a < n; a++) x[a] -= q[a];
        for (int i = 0; i < d; i++) A[i * d + j] = m1[i] - m0[i];
    }
    if (st) return st;
    for (int i = 0; i < d; i++) {
        const hdg_hdg_null_fix *f = &F->fix[i];
        double want = hdg_hdg_mean_target(p, M, f->u, f->c.comp);
        if (!isfinite(want))
            return hdg_fail(err, HDG_EINPUT, "the 'mean' condition of '%s' is not finite", p->unknowns[f->u].name);
        if (i == 0) hdg_report_number(rep, "solver.mean", want);
        c[i] = want - m0[i];
    }
    if (!small_solve(A, c, d)) {
        char what[128];
        fix_name(p, &F->fix[0], what, sizeof what);
        return hdg_fail(err, HDG_EINPUT, "the 'mean' conditions do not fix the %d free constants (%s, ...): the "
                        "means they name do not move independently with them", d, what);
    }
    for (int j = 0; j < d; j++)
        for (long long a = 0; a < n; a++) x[a] += c[j] * Q[(size_t)j * (size_t)n + a];
    return HDG_OK;
}
