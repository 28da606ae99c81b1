/* refel.c — the nodal reference simplex (see refel.h): what the triangle and
 * the tetrahedron share (lattices, face maps and orientations, Vandermonde,
 * derivative, mass, face mass and LIFT) and the triangle's own basis
 * (H&W Simplex2DP / GradSimplex2DP) and nodes (H&W Nodes2D, xytors). The
 * tetrahedron's basis and nodes are in refel_tet.c. */
#include "runtime/fem/refel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel_internal.h"
#include "runtime/solve/dense.h"
#include "support/util.h"

/* ---- bases ---- */

void hdg_face_basis_eval(int dim, int N, int npts, const double *const *x, double *P)
{
    if (dim == 2) hdg_legendre_eval(N, npts, x[0], P, NULL);
    else hdg_dubiner_eval(N, npts, x[0], x[1], P, NULL, NULL);
}

void hdg_legendre_eval(int N, int npts, const double *x, double *P, double *dP)
{
    double *p = hdg_xmalloc(2 * (size_t)(N + 1) * sizeof *p), *dp = p + N + 1;
    for (int i = 0; i < npts; i++) {
        hdg_jacobi_all(N, 0.0, 0.0, x[i], p, dp);
        memcpy(P + (size_t)i * (N + 1), p, (size_t)(N + 1) * sizeof *p);
        if (dP) memcpy(dP + (size_t)i * (N + 1), dp, (size_t)(N + 1) * sizeof *dp);
    }
    free(p);
}

/* Collapsed coordinate: 1 + a = 2(1+r)/(1-s) (kept without cancellation for
 * the gradient), a = -1 at the top vertex s = 1; b = s. */
static double one_plus_a(double r, double s)
{
    return s != 1.0 ? 2.0 * (1.0 + r) / (1.0 - s) : 0.0;
}

/* psi_(i,j) = sqrt2 f_i(a) g_j(b) (1-b)^i with f_i = P_i^(0,0),
 * g_j = P_j^(2i+1,0). With a = 2(1+r)/(1-s) - 1, b = s:
 *   d/dr = 2 sqrt2 f' g (1-b)^(i-1)
 *   d/ds = sqrt2 [f' (1+a) g (1-b)^(i-1) + f g' (1-b)^i - i f g (1-b)^(i-1)]
 * (the f' terms vanish for i = 0), all polynomial: no division by 1 - b. */
void hdg_dubiner_eval(int N, int npts, const double *r, const double *s, double *P,
                      double *Pr, double *Ps)
{
    int Np = (N + 1) * (N + 2) / 2;
    double *f = hdg_xmalloc(4 * (size_t)(N + 1) * sizeof *f);
    double *df = f + N + 1, *g = f + 2 * (N + 1), *dg = f + 3 * (N + 1);
    const double sq2 = sqrt(2.0);
    for (int p = 0; p < npts; p++) {
        double opa = one_plus_a(r[p], s[p]), a = opa - 1.0, b = s[p];
        hdg_jacobi_all(N, 0.0, 0.0, a, f, df);
        double omb = 1.0 - b, pw = 1.0, pwm = 0.0;   /* (1-b)^i, (1-b)^(i-1) */
        int m = 0;
        for (int i = 0; i <= N; i++) {
            hdg_jacobi_all(N - i, 2.0 * i + 1.0, 0.0, b, g, dg);
            for (int j = 0; j <= N - i; j++, m++) {
                size_t o = (size_t)p * Np + m;
                P[o] = sq2 * f[i] * g[j] * pw;
                if (Pr) Pr[o] = i ? 2.0 * sq2 * df[i] * g[j] * pwm : 0.0;
                if (Ps) {
                    double v = f[i] * dg[j] * pw;
                    if (i) v += (df[i] * opa - i * f[i]) * g[j] * pwm;
                    Ps[o] = sq2 * v;
                }
            }
            pwm = pw;
            pw *= omb;
        }
    }
    free(f);
}

void hdg_simplex_eval(int dim, int N, int npts, const double *const *x, double *P,
                      double *const *dP)
{
    if (dim == 3) {
        hdg_refel_tet_eval(N, npts, x, P, dP);
        return;
    }
    hdg_dubiner_eval(N, npts, x[0], x[1], P, dP ? dP[0] : NULL, dP ? dP[1] : NULL);
}

/* ---- lattices ---- */

int hdg_simplex_count(int dim, int N)
{
    int n = 1;
    for (int d = 1; d <= dim; d++) n = n * (N + d) / d;   /* binomial(N+dim, dim) */
    return N < 0 ? 0 : n;
}

int hdg_refel_lattice_index(int dim, int N, const int *c)
{
    int idx = 0;
    for (int d = dim; d >= 1; d--) {            /* layers of the last coordinate first */
        idx += hdg_simplex_count(d, N) - hdg_simplex_count(d, N - c[d - 1]);
        N -= c[d - 1];
    }
    return idx;
}

/* The integer coordinates of every lattice point, in node order:
 * c[p*dim+d] (the first coordinate fastest). */
static int *lattice_coords(int dim, int N)
{
    int n = hdg_simplex_count(dim, N), cur[3] = {0, 0, 0};
    int *c = hdg_xcalloc((size_t)n * (size_t)(dim ? dim : 1), sizeof *c);
    for (int p = 0; p < n; p++) {
        for (int d = 0; d < dim; d++) c[p * dim + d] = cur[d];
        for (int d = 0; d < dim; d++) {         /* odometer step */
            int sum = 0;
            cur[d]++;
            for (int e = 0; e < dim; e++) sum += cur[e];
            if (sum <= N) break;
            cur[d] = 0;
        }
    }
    return c;
}

/* ---- nodes ---- */

int hdg_equi_lattice(int p, double *r, double *s)
{
    int n = (p + 1) * (p + 2) / 2;
    if (!r || !s) return n;
    if (p == 0) {
        r[0] = s[0] = -1.0 / 3.0;
        return 1;
    }
    int k = 0;
    for (int j = 0; j <= p; j++)
        for (int i = 0; i <= p - j; i++, k++) {
            r[k] = -1.0 + 2.0 * i / p;
            s[k] = -1.0 + 2.0 * j / p;
        }
    return n;
}

/* H&W Warpfactor: the interpolant (on N+1 equispaced points) of the
 * displacement from equispaced to Gauss-Lobatto points, evaluated at x and
 * divided by 1 - x^2 (zero at the end points). Lagrange form directly,
 * avoiding the equispaced Vandermonde. */
double hdg_refel_warp_factor(int N, const double *gll, double x)
{
    double warp = 0.0;
    for (int i = 0; i <= N; i++) {
        double xi = -1.0 + 2.0 * i / N, l = 1.0;
        for (int j = 0; j <= N; j++)
            if (j != i) l *= (x - (-1.0 + 2.0 * j / N)) / (xi - (-1.0 + 2.0 * j / N));
        warp += (gll[i] - xi) * l;
    }
    if (fabs(x) < 1.0 - 1e-10) return warp / (1.0 - x * x);
    return 0.0;
}

/* H&W Nodes2D (equilateral triangle) followed by xytors. */
hdg_status hdg_refel_tri_nodes(int N, double alpha, double *r, double *s, hdg_error *err)
{
    double *gll = hdg_xmalloc((size_t)(2 * (N + 1)) * sizeof *gll), *wgll = gll + N + 1;
    hdg_status st = hdg_gauss_lobatto(N + 1, gll, wgll, err);
    if (st) {
        free(gll);
        return st;
    }
    /* edge directions at 0, 120 and 240 degrees */
    const double sq3 = sqrt(3.0), c2 = -0.5, s2 = 0.5 * sq3, c4 = -0.5, s4 = -0.5 * sq3;
    int k = 0;
    for (int n = 0; n <= N; n++)
        for (int m = 0; m <= N - n; m++, k++) {
            double L1 = (double)n / N, L3 = (double)m / N, L2 = 1.0 - L1 - L3;
            double x = -L2 + L3, y = (-L2 - L3 + 2.0 * L1) / sq3;
            double b1 = 4.0 * L2 * L3, b2 = 4.0 * L1 * L3, b3 = 4.0 * L1 * L2;
            double w1 = b1 * hdg_refel_warp_factor(N, gll, L3 - L2) * (1.0 + (alpha * L1) * (alpha * L1));
            double w2 = b2 * hdg_refel_warp_factor(N, gll, L1 - L3) * (1.0 + (alpha * L2) * (alpha * L2));
            double w3 = b3 * hdg_refel_warp_factor(N, gll, L2 - L1) * (1.0 + (alpha * L3) * (alpha * L3));
            x += w1 + c2 * w2 + c4 * w3;
            y += s2 * w2 + s4 * w3;
            /* xytors */
            double l1 = (sq3 * y + 1.0) / 3.0;
            double l2 = (-3.0 * x - sq3 * y + 2.0) / 6.0;
            double l3 = (3.0 * x - sq3 * y + 2.0) / 6.0;
            r[k] = -l2 + l3 - l1;
            s[k] = -l2 - l3 + l1;
        }
    free(gll);
    return HDG_OK;
}

/* ---- faces and orientations ---- */

static const int tri_faces[3][2] = {{0, 1}, {1, 2}, {2, 0}};
static const int tet_faces[4][3] = {{0, 1, 2}, {0, 1, 3}, {1, 2, 3}, {0, 2, 3}};
static const int orient2[2][2] = {{0, 1}, {1, 0}};
static const int orient3[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};

const int *hdg_simplex_face_vertices(int dim, int f)
{
    return dim == 2 ? tri_faces[f] : tet_faces[f];
}

const int *hdg_face_orient_perm(int dim, int o)
{
    return dim == 2 ? orient2[o] : orient3[o];
}

static int norient(int dim) { return dim == 2 ? 2 : 6; }

int hdg_face_orientation(int dim, const int *a, const int *b)
{
    for (int i = 0; i < dim; i++)
        for (int j = 0; j < i; j++)
            if (a[i] == a[j]) return -1;
    for (int o = 0; o < norient(dim); o++) {
        const int *pi = hdg_face_orient_perm(dim, o);
        int k = 0;
        while (k < dim && b[k] == a[pi[k]]) k++;
        if (k == dim) return o;
    }
    return -1;
}

/* 2 mu_k - 1 for the face barycentric mu_k of the point with face
 * coordinates xi (mu_k weighs the face's vertex k). */
static double face_bary2(int dim, int k, const double *xi)
{
    if (k) return xi[k - 1];
    return dim == 2 ? -xi[0] : (-1.0 - xi[0]) - xi[1];
}

void hdg_face_orient_coords(int dim, int o, const double *xa, double *xb)
{
    const int *pi = hdg_face_orient_perm(dim, o);
    double e[2];
    for (int k = 1; k < dim; k++) e[k - 1] = face_bary2(dim, pi[k], xa);
    for (int k = 1; k < dim; k++) xb[k - 1] = e[k - 1];
}

hdg_status hdg_face_point_perm(int dim, int o, int npts, const double *const *x, double tol,
                               int *perm, hdg_error *err)
{
    for (int i = 0; i < npts; i++) {
        double xa[2], xb[2];
        for (int k = 0; k < dim - 1; k++) xa[k] = x[k][i];
        hdg_face_orient_coords(dim, o, xa, xb);
        perm[i] = -1;
        for (int j = 0; j < npts && perm[i] < 0; j++) {
            double d = 0.0;
            for (int k = 0; k < dim - 1; k++) d = fmax(d, fabs(x[k][j] - xb[k]));
            if (d <= tol) perm[i] = j;
        }
        if (perm[i] < 0)
            return hdg_fail(err, HDG_EINPUT,
                            "face point permutation, orientation %d: point %d has no image in the "
                            "set (not symmetric; map the coordinates instead)", o, i);
    }
    return HDG_OK;
}

/* Coordinate d of the point with face coordinates xi on face f: the affine
 * face map has integer coefficients (vertex coordinates are +-1); only the
 * nonzero terms are added, so that e.g. x = -t comes out exactly. */
static double face_point(int dim, int f, int d, const double *xi)
{
    const int *w = hdg_simplex_face_vertices(dim, f);
    int w0 = w[0] == d + 1 ? 1 : -1, c0 = w0;
    for (int k = 1; k < dim; k++) c0 += ((w[k] == d + 1 ? 1 : -1) - w0) / 2;
    double x = c0;
    int any = c0 != 0;
    for (int k = 1; k < dim; k++) {
        int c = ((w[k] == d + 1 ? 1 : -1) - w0) / 2;
        if (!c) continue;
        double term = c > 0 ? xi[k - 1] : -xi[k - 1];
        x = any ? x + term : term;
        any = 1;
    }
    return x;
}

/* The face's integer barycentrics m[0..dim-1] of face lattice point c. */
static void face_bary(int dim, int N, const int *c, int *m)
{
    m[0] = N;
    for (int k = 1; k < dim; k++) m[k] = c[k - 1], m[0] -= c[k - 1];
}

/* Fmask from the lattice structure, and face nodes snapped onto their face at
 * the exact face node coordinates (symmetric sets), so that neighbouring
 * elements see the same face points. */
static void build_faces(hdg_refel *re)
{
    int dim = re->dim, N = re->N, Nfp = re->Nfp, fd = dim - 1;
    int *fc = lattice_coords(fd, N);
    for (int f = 0; f < re->Nfaces; f++) {
        const int *w = hdg_simplex_face_vertices(dim, f);
        for (int i = 0; i < Nfp; i++) {
            int m[3], c[3] = {0, 0, 0};
            face_bary(dim, N, fc + i * fd, m);
            for (int k = 0; k < dim; k++)
                if (w[k] > 0) c[w[k] - 1] = m[k];
            re->Fmask[f * Nfp + i] = hdg_refel_lattice_index(dim, N, c);
        }
    }
    free(fc);
    if (N == 0) return;
    for (int f = 0; f < re->Nfaces; f++)
        for (int i = 0; i < Nfp; i++) {
            double xi[2] = {re->xface[0][i], fd > 1 ? re->xface[1][i] : 0.0};
            for (int d = 0; d < dim; d++) re->x[d][re->Fmask[f * Nfp + i]] = face_point(dim, f, d, xi);
        }
}

/* Fperm from the face lattice: B's barycentrics are A's permuted. */
static void build_fperm(hdg_refel *re)
{
    int dim = re->dim, N = re->N, Nfp = re->Nfp, fd = dim - 1;
    int *fc = lattice_coords(fd, N);
    for (int o = 0; o < re->Norient; o++) {
        const int *pi = hdg_face_orient_perm(dim, o);
        for (int i = 0; i < Nfp; i++) {
            int m[3], mb[3];
            face_bary(dim, N, fc + i * fd, m);
            for (int k = 0; k < dim; k++) mb[k] = m[pi[k]];
            re->Fperm[o * Nfp + i] = hdg_refel_lattice_index(fd, N, mb + 1);
        }
    }
    free(fc);
}

/* ---- matrices ---- */

static double *new_mat(int m, int n) { return hdg_xcalloc((size_t)m * n, sizeof(double)); }

/* M = Vinv^T Vinv (= (V V^T)^-1 without forming the product's inverse). */
static void gram_of_inverse(int n, const double *Vinv, double *M)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0.0;
            for (int k = 0; k < n; k++) sum += Vinv[(size_t)k * n + i] * Vinv[(size_t)k * n + j];
            M[(size_t)i * n + j] = sum;
        }
}

/* Mface = (V1 V1^T)^-1 for the face space's orthonormal basis at the face nodes. */
static hdg_status build_face_mass(hdg_refel *re, hdg_error *err)
{
    int Nfp = re->Nfp;
    double *V1 = new_mat(Nfp, Nfp);
    if (re->dim == 2)
        hdg_legendre_eval(re->N, Nfp, re->tface, V1, NULL);
    else
        hdg_dubiner_eval(re->N, Nfp, re->tface, re->sface, V1, NULL, NULL);
    if (hdg_invert(Nfp, V1)) {
        free(V1);
        return hdg_fail(err, HDG_EINTERNAL, "degree %d: singular face Vandermonde", re->N);
    }
    gram_of_inverse(Nfp, V1, re->Mface);
    free(V1);
    return HDG_OK;
}

static void build_lift(hdg_refel *re)
{
    int Np = re->Np, Nfp = re->Nfp, nf = re->Nfaces * Nfp;
    double *E = new_mat(Np, nf);
    for (int f = 0; f < re->Nfaces; f++)
        for (int i = 0; i < Nfp; i++)
            for (int k = 0; k < Nfp; k++)
                E[(size_t)re->Fmask[f * Nfp + i] * nf + f * Nfp + k] += re->Mface[i * Nfp + k];
    hdg_matmul(Np, nf, Np, 1.0, re->Minv, E, 0.0, re->LIFT);
    free(E);
}

void hdg_refel_free(hdg_refel *re)
{
    for (int d = 0; d < 3; d++) free(re->x[d]), free(re->D[d]);
    for (int d = 0; d < 2; d++) free(re->xface[d]);
    free(re->V);
    free(re->Vinv);
    free(re->M);
    free(re->Minv);
    free(re->Fmask);
    free(re->Mface);
    free(re->LIFT);
    free(re->Fperm);
    memset(re, 0, sizeof *re);
}

/* The face node set: Gauss-Lobatto points on the interval, the symmetric
 * warp-and-blend set on the triangle. */
static hdg_status face_nodes(hdg_refel *re, hdg_error *err)
{
    if (re->dim == 3) return hdg_refel_tet_face_nodes(re->N, re->tface, re->sface, err);
    double *w = new_mat(re->Nfp, 1);
    hdg_status st = hdg_gauss_lobatto(re->Nfp, re->tface, w, err);
    free(w);
    return st;
}

/* Nodes, face node coordinates, Fmask and Fperm. */
static hdg_status build_nodes(hdg_refel *re, hdg_error *err)
{
    if (re->N == 0) {
        double c = re->dim == 2 ? -1.0 / 3.0 : -0.5;  /* the centroids */
        for (int d = 0; d < re->dim; d++) re->x[d][0] = c;
        for (int k = 0; k < re->dim - 1; k++) re->xface[k][0] = re->dim == 2 ? 0.0 : -1.0 / 3.0;
    } else {
        static const double alpopt[15] = {0.0000, 0.0000, 1.4152, 0.1001, 0.2751,
                                          0.9800, 1.0999, 1.2832, 1.3648, 1.4773,
                                          1.4959, 1.5743, 1.5770, 1.6223, 1.6258};
        int N = re->N;
        hdg_status st = face_nodes(re, err);
        if (!st && re->dim == 2)
            st = hdg_refel_tri_nodes(N, N < 16 ? alpopt[N - 1] : 5.0 / 3.0, re->r, re->s, err);
        else if (!st)
            st = hdg_refel_tet_nodes(N, re->r, re->s, re->t, err);
        if (st) return st;
    }
    build_faces(re);
    build_fperm(re);
    return HDG_OK;
}

/* V, Vinv, D, M, Minv and cond(V). */
static hdg_status build_volume(hdg_refel *re, hdg_error *err)
{
    int N = re->N, Np = re->Np, dim = re->dim;
    size_t nn = (size_t)Np * Np;
    double *Vd[3] = {NULL, NULL, NULL};
    for (int d = 0; d < dim; d++) Vd[d] = new_mat(Np, Np);
    hdg_simplex_eval(dim, N, Np, (const double *const *)re->x, re->V, Vd);
    memcpy(re->Vinv, re->V, nn * sizeof *re->V);
    if (hdg_invert(Np, re->Vinv)) {
        for (int d = 0; d < dim; d++) free(Vd[d]);
        return hdg_fail(err, HDG_EINTERNAL, "degree %d: singular Vandermonde matrix", N);
    }
    for (int d = 0; d < dim; d++) {
        hdg_matmul(Np, Np, Np, 1.0, Vd[d], re->Vinv, 0.0, re->D[d]);
        free(Vd[d]);
    }
    gram_of_inverse(Np, re->Vinv, re->M);
    for (int i = 0; i < Np; i++)           /* Minv = V V^T */
        for (int j = 0; j < Np; j++) {
            double sum = 0.0;
            for (int k = 0; k < Np; k++)
                sum += re->V[(size_t)i * Np + k] * re->V[(size_t)j * Np + k];
            re->Minv[(size_t)i * Np + j] = sum;
        }
    re->cond_V = hdg_cond2(Np, re->V);
    return HDG_OK;
}

static void alloc_refel(hdg_refel *re, int dim, int N)
{
    int Np = hdg_simplex_count(dim, N), Nfp = hdg_simplex_count(dim - 1, N);
    re->dim = dim, re->N = N, re->Np = Np, re->Nfp = Nfp;
    re->Nv = re->Nfaces = dim + 1;
    re->Norient = norient(dim);
    for (int d = 0; d < dim; d++) re->x[d] = new_mat(Np, 1), re->D[d] = new_mat(Np, Np);
    for (int k = 0; k < dim - 1; k++) re->xface[k] = new_mat(Nfp, 1);
    re->V = new_mat(Np, Np), re->Vinv = new_mat(Np, Np);
    re->M = new_mat(Np, Np), re->Minv = new_mat(Np, Np);
    re->Fmask = hdg_xcalloc((size_t)re->Nfaces * Nfp, sizeof *re->Fmask);
    re->Fperm = hdg_xcalloc((size_t)re->Norient * Nfp, sizeof *re->Fperm);
    re->Mface = new_mat(Nfp, Nfp);
    re->LIFT = new_mat(Np, re->Nfaces * Nfp);
}

hdg_status hdg_refel_init(hdg_refel *re, int dim, int N, hdg_error *err)
{
    memset(re, 0, sizeof *re);
    if (dim != 2 && dim != 3)
        return hdg_fail(err, HDG_EINPUT, "reference element dimension must be 2 or 3, got %d", dim);
    if (N < 0 || N > HDG_REFEL_MAX_DEGREE)
        return hdg_fail(err, HDG_EINPUT, "reference element degree must be 0..%d, got %d",
                        HDG_REFEL_MAX_DEGREE, N);
    alloc_refel(re, dim, N);
    hdg_status st = build_nodes(re, err);
    if (!st) st = build_volume(re, err);
    if (!st) st = build_face_mass(re, err);
    if (st) {
        hdg_refel_free(re);
        return st;
    }
    build_lift(re);
    return HDG_OK;
}

void hdg_refel_interp_x(const hdg_refel *re, int npts, const double *const *x, double *I)
{
    double *P = new_mat(npts, re->Np);
    hdg_simplex_eval(re->dim, re->N, npts, x, P, NULL);
    hdg_matmul(npts, re->Np, re->Np, 1.0, P, re->Vinv, 0.0, I);
    free(P);
}

void hdg_refel_interp(const hdg_refel *re, int npts, const double *r, const double *s,
                      double *I)
{
    const double *x[2] = {r, s};
    hdg_refel_interp_x(re, npts, x, I);
}
