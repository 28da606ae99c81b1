/* test_face_maps.c — the orientation maps S_o of the HDG trace bases
 * (drivers/run_hdg_common.h hdg_hdg_face_maps) and their use in the block
 * assembly and scatter (runtime/solve/blockmat.h, hdg_face_maps):
 *  - triangles: S_1 = diag((-1)^i) exactly, as sign diagonals (the flip vector);
 *  - tetrahedra: each S_o orthogonal to 1e-13, S_0 = I, S_o^T = S_o' for the
 *    inverse orientation o' and S_(o p) = S_o S_p (composition, pi_(o p) = pi_p o pi_o);
 *  - the maps say what they mean: the canonical expansion at a face point
 *    equals the element's expansion (S_o u) at the same point in the
 *    element's face coordinates, for every orientation;
 *  - assembly with dense maps: a symmetric K_e gives a symmetric trace matrix,
 *    and the scatter is the transpose of the rhs gather (x . gather(F) =
 *    scatter(x) . F) on a pair of tetrahedra sharing a face in each orientation. */
#include <stdlib.h>
#include <string.h>

#include "drivers/run_hdg_common.h"
#include "ir/lower.h"
#include "runtime/fem/refel.h"
#include "runtime/solve/blockmat.h"
#include "test.h"

static hdg_lowered lowered(int dim, int k, int ncomp)
{
    hdg_lowered L;
    memset(&L, 0, sizeof L);
    L.dim = dim, L.nfe = dim + 1, L.k = k;
    L.nk = hdg_simplex_count(dim - 1, k);
    L.m = ncomp * L.nk;
    L.nt = L.nfe * L.m;
    return L;
}

static const double *map_of(const hdg_hdg_maps *M, int o) { return M->S.S + (size_t)o * M->S.m * M->S.m; }

static void basis(int dim, int k, double a, double b, double *P)
{
    if (dim == 2) hdg_legendre_eval(k, 1, &a, P, NULL);
    else hdg_dubiner_eval(k, 1, &a, &b, P, NULL, NULL);
}

/* the orientation o3 with pi3 = pi1 o pi2 (b_k = a_pi(k)), -1 if none */
static int compose(int dim, int o1, int o2)
{
    const int *p1 = hdg_face_orient_perm(dim, o1), *p2 = hdg_face_orient_perm(dim, o2);
    int a[3] = {0, 1, 2}, b[3];
    for (int k = 0; k < dim; k++) b[k] = a[p2[p1[k]]];
    return hdg_face_orientation(dim, a, b);
}

static void test_triangle(int k)
{
    hdg_lowered L = lowered(2, k, 2);
    hdg_hdg_maps M;
    hdg_hdg_face_maps(&L, &M);
    CHECK(M.S.diag && !M.S.S && M.S.norient == 2 && M.S.nfe == 3, "triangles k=%d: sign diagonals", k);
    int bad = 0;
    for (int i = 0; M.S.diag && i < L.m; i++)
        bad += M.S.diag[i] != 1.0 || M.S.diag[L.m + i] != ((i % L.nk) % 2 ? -1.0 : 1.0);
    CHECK(!bad, "triangles k=%d: S_0 = I, S_1 = diag((-1)^i) exactly (%d entries differ)", k, bad);
    hdg_hdg_face_maps_free(&M);
}

static double orth_defect(const double *S, int m)
{
    double d = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            double v = 0;
            for (int r = 0; r < m; r++) v += S[i * m + r] * S[j * m + r];
            d = fmax(d, fabs(v - (i == j)));
        }
    return d;
}

static void test_tet_maps(int k)
{
    hdg_lowered L = lowered(3, k, 2);
    hdg_hdg_maps M;
    hdg_hdg_face_maps(&L, &M);
    int m = L.m, nk = L.nk;
    CHECK(M.S.S && !M.S.diag && M.S.norient == 6 && M.S.nfe == 4, "tetrahedra k=%d: dense maps", k);
    if (!M.S.S) return;
    double orth = 0, id = 0, inv = 0, comp = 0, expand = 0;
    for (int o = 0; o < 6; o++) {
        const double *S = map_of(&M, o);
        orth = fmax(orth, orth_defect(S, m));
        for (int i = 0; o == 0 && i < m * m; i++) id = fmax(id, fabs(S[i] - (i / m == i % m)));
        int oi = compose(3, o, 0), back = -1;
        for (int p = 0; p < 6; p++)
            if (compose(3, o, p) == 0) back = p;
        CHECK(oi == o && back >= 0, "orientation %d: composition table", o);
        const double *Si = map_of(&M, back);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) inv = fmax(inv, fabs(S[i * m + j] - Si[j * m + i]));
        for (int p = 0; p < 6; p++) {   /* S_(o p) = S_o S_p */
            const double *Sp = map_of(&M, p), *Sc = map_of(&M, compose(3, o, p));
            double e1 = 0;
            for (int i = 0; i < m; i++)
                for (int j = 0; j < m; j++) {
                    double v = 0;
                    for (int r = 0; r < m; r++) v += S[i * m + r] * Sp[r * m + j];
                    e1 = fmax(e1, fabs(v - Sc[i * m + j]));
                }
            comp = fmax(comp, e1);
        }
        /* the expansions agree at a few face points, u_c random per component block */
        double u[64], ue[64], Pa[64], Pb[64];
        for (int i = 0; i < m; i++) u[i] = sin(1.0 + 3.7 * i);
        for (int i = 0; i < m; i++) {
            ue[i] = 0;
            for (int j = 0; j < m; j++) ue[i] += S[i * m + j] * u[j];
        }
        static const double pts[4][2] = {{-0.5, -0.3}, {0.1, -0.8}, {-0.9, 0.6}, {-1.0 / 3, -1.0 / 3}};
        for (int q = 0; q < 4; q++) {
            double xb[2];
            hdg_face_orient_coords(3, o, pts[q], xb);
            basis(3, k, pts[q][0], pts[q][1], Pa);
            basis(3, k, xb[0], xb[1], Pb);
            for (int c = 0; c < m / nk; c++) {
                double va = 0, vb = 0;
                for (int a = 0; a < nk; a++) va += u[c * nk + a] * Pa[a], vb += ue[c * nk + a] * Pb[a];
                expand = fmax(expand, fabs(va - vb));
            }
        }
    }
    CHECK(orth <= 1e-13, "tetrahedra k=%d: max |S_o S_o^T - I| = %.3g", k, orth);
    CHECK(id == 0, "tetrahedra k=%d: S_0 = I exactly (%.3g)", k, id);
    CHECK(inv <= 1e-13, "tetrahedra k=%d: S_o^T = S_(o^-1) to %.3g", k, inv);
    CHECK(comp <= 1e-13, "tetrahedra k=%d: S_(o p) = S_o S_p to %.3g", k, comp);
    CHECK(expand <= 1e-12, "tetrahedra k=%d: expansions differ by %.3g", k, expand);
    hdg_hdg_face_maps_free(&M);
}

/* Two tetrahedra sharing face 0 of element 0 (face 0 of the mesh) with the
 * second element seeing it in orientation o; the other 6 faces boundary. */
static void test_tet_assembly(int k, int o)
{
    hdg_lowered L = lowered(3, k, 1);
    hdg_hdg_maps M;
    hdg_hdg_face_maps(&L, &M);
    int m = L.m, nt = L.nt, nf = 7, ne = 2;
    int ef[8] = {0, 1, 2, 3, 4, 5, 0, 6}, eforient[8] = {0, 0, 0, 0, 0, 0, o, 0};
    int fe[14] = {0, 1, 0, -1, 0, -1, 0, -1, 1, -1, 1, -1, 1, -1};
    int flf[14] = {0, 2, 1, -1, 2, -1, 3, -1, 0, -1, 1, -1, 3, -1};
    double *Ke = malloc(sizeof(double) * ne * nt * nt), *Fe = malloc(sizeof(double) * ne * nt);
    for (int e = 0; e < ne; e++)
        for (int i = 0; i < nt; i++) {
            Fe[e * nt + i] = cos(0.3 + i + 7.0 * e);
            for (int j = 0; j <= i; j++)
                Ke[(e * nt + i) * nt + j] = Ke[(e * nt + j) * nt + i] = sin(1.0 + i * 0.37 + j * 1.91 + e);
        }
    int nbr[7 * 7];
    hdg_error err;
    hdg_blockmat B;
    double *rhs = calloc((size_t)nf * m, sizeof(double));
    hdg_status st = hdg_blockmat_neighbours_n(4, nf, ne, ef, fe, flf, nbr, &err);
    if (!st) st = hdg_blockmat_init(&B, nf, m, 7, nbr, &err);
    if (!st) st = hdg_blockmat_assemble_maps(&B, rhs, ne, Ke, Fe, ef, eforient, fe, flf, &M.S, &err);
    CHECK(!st, "assembly o=%d: %s", o, st ? err.msg : "");
    if (!st) {
        double asym = 0, amax = 0;
        for (int l = 0; l < nf; l++)
            for (int a = 0; a < 7; a++) {
                int g = B.nbr[l * 7 + a];
                if (g < 0) continue;
                int b = -1;
                for (int c = 0; c < 7; c++)
                    if (B.nbr[g * 7 + c] == l) b = c;
                CHECK(b >= 0, "row %d couples to %d but not back", l, g);
                if (b < 0) continue;
                const double *X = hdg_blockmat_block(&B, l, a), *Y = hdg_blockmat_block(&B, g, b);
                for (int p = 0; p < m; p++)
                    for (int q = 0; q < m; q++)
                        asym = fmax(asym, fabs(X[p * m + q] - Y[q * m + p])), amax = fmax(amax, fabs(X[p * m + q]));
            }
        CHECK(amax > 0 && asym <= 1e-13 * amax, "k=%d o=%d: assembled trace matrix asymmetry %.3g of %.3g", k, o, asym,
              amax);
        /* x . rhs = sum_e scatter(x)_e . F_e */
        double *x = malloc(sizeof(double) * nf * m), *xe = malloc(sizeof(double) * ne * nt), l1 = 0, l2 = 0;
        for (int i = 0; i < nf * m; i++) x[i] = sin(0.7 * i + 0.1);
        hdg_blockmat_scatter_maps(ne, ef, eforient, &M.S, x, xe);
        for (int i = 0; i < nf * m; i++) l1 += x[i] * rhs[i];
        for (int i = 0; i < ne * nt; i++) l2 += xe[i] * Fe[i];
        CHECK_NEAR(l1, l2, 1e-12 * (fabs(l1) + 1), "scatter is the transpose of the gather");
        free(x), free(xe);
        hdg_blockmat_free(&B);
    }
    free(Ke), free(Fe), free(rhs);
    hdg_hdg_face_maps_free(&M);
}

int main(void)
{
    for (int k = 0; k <= 6; k++) test_triangle(k);
    for (int k = 1; k <= 4; k++) test_tet_maps(k);
    for (int o = 0; o < 6; o++) test_tet_assembly(2, o);
    return test_summary("face_maps");
}
