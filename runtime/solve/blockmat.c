/* blockmat.c — dense block trace matrix: neighbour lists, per-face-row
 * assembly without atomics, symmetric Dirichlet elimination, threaded SpMV. */
#include "runtime/solve/blockmat.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/parallel/parallel.h"
#include "support/util.h"

#define MAXM_FIXED 12 /* SpMV has a constant-m kernel for m = 1..12 */

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* The single-precision smoother passes have a second version for x86-64-v3
 * (AVX2) hosts on x86-64 with GCC 12 or later (the x86-64-v3 name), chosen at
 * run time (hdg_blockmat_lo_vec_available, smooth_rows). */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 && defined(__x86_64__)
#define HAVE_V3 1
#define TARGET_V3 __attribute__((target("arch=x86-64-v3")))
#else
#define HAVE_V3 0
#endif

/* ---- topology checks ---- */

/* Checks that fe/flf/ef agree for every face and every element (nfe faces each). */
static hdg_status check_topology(int nfe, int nf, int ne, const int *ef, const int *fe, const int *flf,
                                 hdg_error *err)
{
    if (nf < 0 || ne < 0) return hdg_fail(err, HDG_EINPUT, "negative face or element count");
    if ((nf > 0 && (!fe || !flf)) || (ne > 0 && !ef))
        return hdg_fail(err, HDG_EINPUT, "missing topology array (ef, fe or flf is NULL)");
    for (int e = 0; e < ne; e++)
        for (int j = 0; j < nfe; j++) {
            int f = ef[nfe * e + j];
            if (f < 0 || f >= nf)
                return hdg_fail(err, HDG_EINPUT, "element %d local face %d: face %d out of range [0, %d)",
                                e, j, f, nf);
            int k0 = fe[2 * f] == e && flf[2 * f] == j;
            int k1 = fe[2 * f + 1] == e && flf[2 * f + 1] == j;
            if (!k0 && !k1)
                return hdg_fail(err, HDG_EINPUT,
                                "element %d local face %d is face %d, but face %d does not list it",
                                e, j, f, f);
        }
    for (int f = 0; f < nf; f++) {
        int count = 0;
        for (int k = 0; k < 2; k++) {
            int e = fe[2 * f + k], j = flf[2 * f + k];
            if (e == -1) continue;
            if (e < 0 || e >= ne)
                return hdg_fail(err, HDG_EINPUT, "face %d: element %d out of range [0, %d)", f, e, ne);
            if (j < 0 || j >= nfe)
                return hdg_fail(err, HDG_EINPUT, "face %d: local face index %d not in 0..%d", f, j, nfe - 1);
            if (ef[nfe * e + j] != f)
                return hdg_fail(err, HDG_EINPUT,
                                "face %d: element %d local face %d is face %d, not %d", f, e, j,
                                ef[nfe * e + j], f);
            count++;
        }
        if (count == 0) return hdg_fail(err, HDG_EINPUT, "face %d belongs to no element", f);
        if (count == 2 && fe[2 * f] == fe[2 * f + 1])
            return hdg_fail(err, HDG_EINPUT, "face %d lists element %d twice", f, fe[2 * f]);
    }
    return HDG_OK;
}

hdg_status hdg_blockmat_neighbours(int nf, int ne, const int *ef, const int *fe,
                                   const int *flf, int *nbr, hdg_error *err)
{
    return hdg_blockmat_neighbours_n(3, nf, ne, ef, fe, flf, nbr, err);
}

hdg_status hdg_blockmat_neighbours_n(int nfe, int nf, int ne, const int *ef, const int *fe,
                                     const int *flf, int *nbr, hdg_error *err)
{
    hdg_status st = check_topology(nfe, nf, ne, ef, fe, flf, err);
    if (st) return st;
    int na = 2 * nfe - 1;
    for (int l = 0; l < nf; l++) {
        int *row = nbr + (size_t)na * l;
        row[0] = l;
        for (int a = 1; a < na; a++) row[a] = -1;
        for (int k = 0; k < 2; k++) {
            int e = fe[2 * l + k];
            if (e < 0) continue;
            for (int s = 0; s < nfe - 1; s++) {
                int g = ef[nfe * e + (flf[2 * l + k] + 1 + s) % nfe];
                int seen = 0;
                for (int a = 0; a < na; a++) seen |= row[a] == g;
                if (!seen) row[1 + (nfe - 1) * k + s] = g;
            }
        }
    }
    return HDG_OK;
}

/* ---- construction ---- */

hdg_status hdg_blockmat_init(hdg_blockmat *B, int nf, int m, int na, const int *nbr,
                             hdg_error *err)
{
    memset(B, 0, sizeof *B);
    if (nf < 0 || m < 1 || na < 1)
        return hdg_fail(err, HDG_EINPUT, "block matrix: bad sizes nf=%d m=%d na=%d", nf, m, na);
    if ((double)nf * na * m * m > (double)LLONG_MAX / 16 || (double)nf * na > INT_MAX)
        return hdg_fail(err, HDG_EINPUT, "block matrix: too large (nf=%d m=%d na=%d)", nf, m, na);
    if (nf > 0 && !nbr) return hdg_fail(err, HDG_EINPUT, "block matrix: neighbour list is NULL");
    for (int l = 0; l < nf; l++) {
        const int *row = nbr + (size_t)l * na;
        if (row[0] != l)
            return hdg_fail(err, HDG_EINPUT, "block matrix: row %d: first block is face %d, not the diagonal",
                            l, row[0]);
        for (int a = 1; a < na; a++) {
            if (row[a] < -1 || row[a] >= nf)
                return hdg_fail(err, HDG_EINPUT, "block matrix: row %d block %d: face %d out of range [0, %d)",
                                l, a, row[a], nf);
            for (int b = 0; b < a; b++)
                if (row[a] >= 0 && row[a] == row[b])
                    return hdg_fail(err, HDG_EINPUT, "block matrix: row %d lists face %d twice", l, row[a]);
        }
    }
    size_t nblk = (size_t)nf * na;
    B->nf = nf;
    B->m = m;
    B->na = na;
    B->nbr = hdg_xmalloc(sizeof(int) * (nblk ? nblk : 1));
    if (nblk) memcpy(B->nbr, nbr, sizeof(int) * nblk);
    B->A = hdg_xcalloc(nblk * m * m, sizeof(double));
    return HDG_OK;
}

void hdg_blockmat_free(hdg_blockmat *B)
{
    if (!B) return;
    free(B->nbr);
    free(B->A);
    memset(B, 0, sizeof *B);
}

/* ---- assembly ---- */

typedef struct assembly {
    hdg_blockmat *B;     /* NULL: the right-hand side only */
    double *rhs;
    const double *Ke, *Fe;
    const hdg_face_maps *S;
    const int *ef, *eforient, *fe, *flf;
    const int *slot; /* (l*2+k)*nfe+i -> block index a in row l */
    int m, nfe;
} assembly;

/* The map of element e's local face j: NULL for the identity (orientation 0). */
static const double *face_map(const hdg_face_maps *S, const int *eforient, int nfe, long long e, int j)
{
    int o = eforient ? eforient[nfe * e + j] : 0;
    if (!o) return NULL;
    return S->diag ? S->diag + (size_t)o * S->m : S->S + (size_t)o * S->m * S->m;
}

/* Adds S_j^T Ke[j,i] S_i into blk (m x m); diagonal maps (sj, si: their
 * diagonals) or dense ones (m x m; t: m*m scratch), NULL the identity. */
static void add_block(double *blk, const double *K, int ld, int m, const double *sj, const double *si, int dense,
                      double *t)
{
    if (!dense) {
        for (int p = 0; p < m; p++) {
            double sp = sj ? sj[p] : 1.0;
            for (int q = 0; q < m; q++) blk[p * m + q] += sp * K[(size_t)p * ld + q] * (si ? si[q] : 1.0);
        }
        return;
    }
    for (int p = 0; p < m; p++)   /* t = K S_i */
        for (int q = 0; q < m; q++) {
            double v = 0;
            if (!si) v = K[(size_t)p * ld + q];
            else
                for (int r = 0; r < m; r++) v += K[(size_t)p * ld + r] * si[r * m + q];
            t[p * m + q] = v;
        }
    for (int p = 0; p < m; p++)   /* blk += S_j^T t */
        for (int q = 0; q < m; q++) {
            double v = 0;
            if (!sj) v = t[p * m + q];
            else
                for (int r = 0; r < m; r++) v += sj[r * m + p] * t[r * m + q];
            blk[p * m + q] += v;
        }
}

/* rhs += S_j^T F (m entries) */
static void add_rhs(double *rhs, const double *F, int m, const double *sj, int dense)
{
    for (int p = 0; p < m; p++) {
        if (!dense) { rhs[p] += (sj ? sj[p] : 1.0) * F[p]; continue; }
        double v = 0;
        if (!sj) v = F[p];
        else
            for (int r = 0; r < m; r++) v += sj[r * m + p] * F[r];
        rhs[p] += v;
    }
}

static void assemble_rows(long long l0, long long l1, void *vctx)
{
    const assembly *as = vctx;
    hdg_blockmat *B = as->B;
    int m = as->m, nfe = as->nfe, na = B ? B->na : 0, ld = nfe * m, dense = !as->S->diag;
    double *t = dense ? hdg_xmalloc(sizeof(double) * (size_t)m * m) : NULL;
    for (long long l = l0; l < l1; l++) {
        if (B) memset(hdg_blockmat_block(B, (int)l, 0), 0, sizeof(double) * na * m * m);
        if (as->rhs) memset(as->rhs + l * m, 0, sizeof(double) * m);
        for (int k = 0; k < 2; k++) {
            int e = as->fe[2 * l + k], j = as->flf[2 * l + k];
            if (e < 0) continue;
            const double *sj = face_map(as->S, as->eforient, nfe, e, j);
            const double *Kj = B ? as->Ke + (size_t)e * ld * ld + (size_t)j * m * ld : NULL;
            for (int i = 0; B && i < nfe; i++) {
                int a = as->slot[(l * 2 + k) * nfe + i];
                add_block(hdg_blockmat_block(B, (int)l, a), Kj + i * m, ld, m, sj,
                          face_map(as->S, as->eforient, nfe, e, i), dense, t);
            }
            if (as->rhs) add_rhs(as->rhs + l * m, as->Fe + (size_t)e * ld + j * m, m, sj, dense);
        }
    }
    free(t);
}

hdg_status hdg_blockmat_slots(int nf, int na, const int *nbr, const int *ef, const int *fe, const int *flf,
                              int *slot, hdg_error *err)
{
    return hdg_blockmat_slots_n(3, nf, na, nbr, ef, fe, flf, slot, err);
}

hdg_status hdg_blockmat_slots_n(int nfe, int nf, int na, const int *nbr, const int *ef, const int *fe,
                                const int *flf, int *slot, hdg_error *err)
{
    for (int l = 0; l < nf; l++) {
        const int *row = nbr + (size_t)l * na;
        for (int k = 0; k < 2; k++) {
            int e = fe[2 * l + k];
            for (int i = 0; i < nfe; i++) {
                int *s = &slot[((size_t)l * 2 + k) * nfe + i];
                *s = -1;
                if (e < 0) continue;
                int g = ef[nfe * e + i];
                for (int a = 0; a < na && *s < 0; a++)
                    if (row[a] == g) *s = a;
                if (*s < 0)
                    return hdg_fail(err, HDG_EINPUT,
                                    "assembly: face %d couples to face %d through element %d, "
                                    "but row %d has no block for face %d", l, g, e, l, g);
            }
        }
    }
    return HDG_OK;
}

/* The 2D maps of a flip vector: S_1 = diag(flip) (d: 2m doubles). */
static hdg_face_maps flip_maps(int m, const double *flip, double *d)
{
    for (int i = 0; i < m; i++) d[i] = 1.0, d[m + i] = flip ? flip[i] : 1.0;
    return (hdg_face_maps){3, 2, m, d, NULL};
}

hdg_status hdg_blockmat_assemble(hdg_blockmat *B, double *rhs, int ne, const double *Ke,
                                 const double *Fe, const int *ef, const int *eforient,
                                 const int *fe, const int *flf, const double *flip,
                                 hdg_error *err)
{
    if (eforient && !flip)
        for (int i = 0; i < 3 * ne; i++)
            if (eforient[i] == 1)
                return hdg_fail(err, HDG_EINPUT,
                                "assembly: element %d local face %d is reversed but no flip vector was given",
                                i / 3, i % 3);
    double *d = hdg_xmalloc(sizeof(double) * 2 * (size_t)B->m);
    hdg_face_maps S = flip_maps(B->m, flip, d);
    hdg_status st = hdg_blockmat_assemble_maps(B, rhs, ne, Ke, Fe, ef, eforient, fe, flf, &S, err);
    free(d);
    return st;
}

hdg_status hdg_blockmat_assemble_maps(hdg_blockmat *B, double *rhs, int ne, const double *Ke,
                                      const double *Fe, const int *ef, const int *eforient,
                                      const int *fe, const int *flf, const hdg_face_maps *S,
                                      hdg_error *err)
{
    int nfe = S->nfe;
    hdg_status st = check_topology(nfe, B->nf, ne, ef, fe, flf, err);
    if (st) return st;
    if (ne > 0 && !Ke) return hdg_fail(err, HDG_EINPUT, "assembly: element matrices are NULL");
    if (S->m != B->m)
        return hdg_fail(err, HDG_EINPUT, "assembly: face maps of %d dofs for a matrix of blocks of %d", S->m, B->m);
    if (eforient)
        for (long long i = 0; i < (long long)nfe * ne; i++)
            if (eforient[i] < 0 || eforient[i] >= S->norient)
                return hdg_fail(err, HDG_EINPUT, "assembly: element %lld local face %lld: orientation %d is not in 0..%d",
                                i / nfe, i % nfe, eforient[i], S->norient - 1);
    int *slot = hdg_xmalloc(sizeof(int) * ((size_t)B->nf * 2 * nfe + 1));
    st = hdg_blockmat_slots_n(nfe, B->nf, B->na, B->nbr, ef, fe, flf, slot, err);
    if (!st) {
        assembly as = {B, rhs && Fe ? rhs : NULL, Ke, Fe, S, ef, eforient, fe, flf, slot, B->m, nfe};
        hdg_parallel_for_grain(B->nf, 64, assemble_rows, &as);
    }
    free(slot);
    return st;
}

void hdg_blockmat_assemble_rhs(int nf, int m, double *rhs, const double *Fe, const int *ef, const int *eforient,
                               const int *fe, const int *flf, const double *flip)
{
    double *d = hdg_xmalloc(sizeof(double) * 2 * (size_t)m);
    hdg_face_maps S = flip_maps(m, flip, d);
    hdg_blockmat_assemble_rhs_maps(nf, rhs, Fe, ef, eforient, fe, flf, &S);
    free(d);
}

void hdg_blockmat_assemble_rhs_maps(int nf, double *rhs, const double *Fe, const int *ef, const int *eforient,
                                    const int *fe, const int *flf, const hdg_face_maps *S)
{
    assembly as = {NULL, rhs, NULL, Fe, S, ef, eforient, fe, flf, NULL, S->m, S->nfe};
    hdg_parallel_for_grain(nf, 64, assemble_rows, &as);
}

/* ---- Dirichlet elimination ---- */

typedef struct dirichlet {
    hdg_blockmat *B;
    double *rhs;
    const unsigned char *isd;    /* per face: some dof is Dirichlet */
    const unsigned char *dofd;   /* per dof (nf*m), or NULL: every dof of a face with isd */
    const double *xD;
    double diag; /* Dirichlet rows become diag I, their rhs diag x_D */
    int keep;    /* 1: the matrix is left as it is (the right-hand side only) */
} dirichlet;

static int is_dir(const dirichlet *d, long long f, int p)
{
    return d->isd[f] && (!d->dofd || d->dofd[f * d->B->m + p]);
}

static void dirichlet_rows(long long l0, long long l1, void *vctx)
{
    const dirichlet *d = vctx;
    hdg_blockmat *B = d->B;
    int m = B->m, na = B->na;
    for (long long l = l0; l < l1; l++) {
        const int *row = B->nbr + l * na;
        double *r = d->rhs + l * m;
        for (int p = 0; p < m; p++) {   /* Dirichlet rows: diag I, rhs = diag x_D */
            if (!is_dir(d, l, p)) continue;
            for (int a = 0; a < na && !d->keep; a++) memset(hdg_blockmat_block(B, (int)l, a) + p * m, 0, sizeof(double) * m);
            if (!d->keep) hdg_blockmat_block(B, (int)l, 0)[p * m + p] = d->diag;
            r[p] = d->diag * d->xD[l * m + p];
        }
        for (int a = 0; a < na; a++) {   /* free rows: the Dirichlet columns lifted to the rhs */
            int g = row[a];
            if (g < 0 || !d->isd[g]) continue;
            double *blk = hdg_blockmat_block(B, (int)l, a);
            const double *xg = d->xD + (size_t)g * m;
            for (int p = 0; p < m; p++) {
                if (is_dir(d, l, p)) continue;
                double s = 0.0;
                for (int q = 0; q < m; q++)
                    if (is_dir(d, g, q)) {
                        s += blk[p * m + q] * xg[q];
                        if (!d->keep) blk[p * m + q] = 0.0;
                    }
                r[p] -= s;
            }
        }
    }
}

void hdg_blockmat_apply_dirichlet(hdg_blockmat *B, double *rhs,
                                  const unsigned char *is_dirichlet, const double *xD)
{
    hdg_blockmat_apply_dirichlet_dofs(B, rhs, is_dirichlet, NULL, xD, 1.0);
}

void hdg_blockmat_apply_dirichlet_dofs(hdg_blockmat *B, double *rhs, const unsigned char *is_dirichlet,
                                       const unsigned char *dof_dirichlet, const double *xD, double diag)
{
    dirichlet d = {B, rhs, is_dirichlet, dof_dirichlet, xD, diag, 0};
    hdg_parallel_for_grain(B->nf, 64, dirichlet_rows, &d);
}

void hdg_blockmat_dirichlet_rhs(const hdg_blockmat *B, double *rhs, const unsigned char *is_dirichlet,
                                const unsigned char *dof_dirichlet, const double *xD, double diag)
{
    dirichlet d = {(hdg_blockmat *)B, rhs, is_dirichlet, dof_dirichlet, xD, diag, 1};
    hdg_parallel_for_grain(B->nf, 64, dirichlet_rows, &d);
}

/* ---- SpMV ---- */

typedef struct spmv_job {
    const hdg_blockmat *B;
    const double *x;
    double *y;
} spmv_job;

/* The SpMV streams A once; one core's hardware prefetcher does not keep
 * enough of that stream in flight to reach the memory bandwidth (measured at
 * k = 2 on square:256, one thread: 14.5 GB/s without, 19-22 GB/s with), so
 * while block a of row l is multiplied, block a of the row PREFETCH_BYTES
 * ahead is requested (interleaved with the arithmetic, one request per
 * 64-byte line). */
#define PREFETCH_BYTES 4096

static ALWAYS_INLINE void prefetch_block(const char *blk, int bytes)
{
#if defined(__GNUC__)
    for (int c = 0; c < bytes; c += 64) __builtin_prefetch(blk + c, 0, 3);
#else
    (void)blk, (void)bytes;
#endif
}

/* The row PREFETCH_BYTES (at least one row) after row l, or row l itself
 * near the end (a harmless request that keeps the loop free of branches);
 * row_bytes: the bytes of one row of values (8 or 4 a value). */
static ALWAYS_INLINE const char *prefetch_row(const void *vals, int nf, long long l, long long row_bytes)
{
    long long ahead = PREFETCH_BYTES / row_bytes;
    if (ahead < 1) ahead = 1;
    return (const char *)vals + (l + ahead < nf ? l + ahead : l) * row_bytes;
}

/* s = A_b x for the m x m block of single-precision values at offset o
 * stored by columns: s[p] = sum_q A[q m + p] x[q], summed over q in order
 * from 0.0 like the scalar loops (no contraction in ISO C), so the same value
 * in both versions. vec (the x86-64-v3 version): each column as ceil(m/4)
 * vectors of 4 (GCC vector extensions: 4 conversions, products and sums in
 * one AVX instruction each); the lanes past the column's m read the next
 * column, or the 3 floats of slack after the array (to_single), and are
 * dropped. Without AVX the same vectors are slower than the scalar loop. */
#if HAVE_V3
typedef float f4 __attribute__((vector_size(16)));
typedef double d4 __attribute__((vector_size(32)));
enum { NCHUNK = (MAXM_FIXED + 3) / 4 };
#endif

static ALWAYS_INLINE void block_cols(const float *restrict A, long long o, const double *restrict x, const int m,
                                     const int vec, double *restrict s)
{
#if HAVE_V3
    if (vec) {
        const int nc = (m + 3) / 4;
        d4 v[NCHUNK];
        for (int c = 0; c < nc; c++) v[c] = (d4){0.0, 0.0, 0.0, 0.0};
        for (int q = 0; q < m; q++) {
            const d4 xq = {x[q], x[q], x[q], x[q]};
            for (int c = 0; c < nc; c++) {
                f4 a;
                memcpy(&a, A + o + q * m + 4 * c, sizeof a);
                v[c] += __builtin_convertvector(a, d4) * xq;
            }
        }
        double t[4 * NCHUNK];
        memcpy(t, v, sizeof(d4) * nc);
        for (int p = 0; p < m; p++) s[p] = t[p];
        return;
    }
#endif
    (void)vec;
    for (int p = 0; p < m; p++) s[p] = 0.0;
    for (int q = 0; q < m; q++)
        for (int p = 0; p < m; p++) s[p] += (double)A[o + q * m + p] * x[q];
}

/* acc = (A x)_l for a block size m that is a compile-time constant after
 * inlining (m <= MAXM_FIXED), A's values vals in double or (lo) single
 * precision, the arithmetic in double. The x values of each block are loaded
 * once into registers and reused for the m rows of the block. */
static ALWAYS_INLINE void row_product(const hdg_blockmat *B, const void *vals, const int lo,
                                      const double *restrict x, long long l, const int m, double *restrict acc)
{
    const int na = B->na, size = lo ? 4 : 8;
    const long long row_len = (long long)na * m * m;
    const long long Al = l * row_len;
    const char *Pl = prefetch_row(vals, B->nf, l, row_len * size);
    const int *nl = B->nbr + l * na;
    for (int p = 0; p < m; p++) acc[p] = 0.0;
    for (int a = 0; a < na; a++) {
        prefetch_block(Pl + a * m * m * size, m * m * size);
        int g = nl[a];
        if (g < 0) continue;
        double xa[MAXM_FIXED];
        for (int q = 0; q < m; q++) xa[q] = x[(size_t)g * m + q];
        const long long Ab = Al + a * m * m;
        if (lo) {
            double s[MAXM_FIXED];
            block_cols(vals, Ab, xa, m, lo == 2, s);
            for (int p = 0; p < m; p++) acc[p] += s[p];
            continue;
        }
        for (int p = 0; p < m; p++) {
            double s = 0.0;
            for (int q = 0; q < m; q++) s += ((const double *)vals)[Ab + p * m + q] * xa[q];
            acc[p] += s;
        }
    }
}

static ALWAYS_INLINE void spmv_rows_fixed(const hdg_blockmat *B, const double *restrict x, double *restrict y,
                                          long long l0, long long l1, const int m)
{
    for (long long l = l0; l < l1; l++) {
        double acc[MAXM_FIXED];
        row_product(B, B->A, 0, x, l, m, acc);
        for (int p = 0; p < m; p++) y[l * m + p] = acc[p];
    }
}

static void spmv_rows_generic(const hdg_blockmat *B, const double *x, double *y, long long l0,
                              long long l1)
{
    const int m = B->m, na = B->na;
    const long long row_len = (long long)na * m * m;
    for (long long l = l0; l < l1; l++) {
        const char *Pl = prefetch_row(B->A, B->nf, l, 8 * row_len);
        double *yl = y + l * m;
        for (int p = 0; p < m; p++) yl[p] = 0.0;
        for (int a = 0; a < na; a++) {
            prefetch_block(Pl + 8 * a * m * m, 8 * m * m);
            int g = B->nbr[l * na + a];
            if (g < 0) continue;
            const double *Ab = hdg_blockmat_block(B, (int)l, a), *xa = x + (size_t)g * m;
            for (int p = 0; p < m; p++) {
                double s = 0.0;
                for (int q = 0; q < m; q++) s += Ab[p * m + q] * xa[q];
                yl[p] += s;
            }
        }
    }
}

static void spmv_rows(long long l0, long long l1, void *vctx)
{
    const spmv_job *j = vctx;
    const hdg_blockmat *B = j->B;
    switch (B->m) {
#define CASE(M) case M: spmv_rows_fixed(B, j->x, j->y, l0, l1, M); break;
    CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6)
    CASE(7) CASE(8) CASE(9) CASE(10) CASE(11) CASE(12)
#undef CASE
    default: spmv_rows_generic(B, j->x, j->y, l0, l1);
    }
}

/* Each thread gets at least this many bytes of A: waking a worker costs more
 * than a few microseconds of streaming (much more on a loaded machine), so
 * small matrices run on one thread. */
#define SPMV_MIN_CHUNK_BYTES (128 << 10)

void hdg_blockmat_spmv(const hdg_blockmat *B, const double *x, double *y)
{
    spmv_job j = {B, x, y};
    long long row_bytes = 8LL * B->na * B->m * B->m;
    long long grain = SPMV_MIN_CHUNK_BYTES / row_bytes;
    hdg_parallel_for_grain(B->nf, grain > 64 ? grain : 64, spmv_rows, &j);
}

/* ---- fused smoother passes (runtime/solve/mg.c's Chebyshev steps) ---- */

typedef struct smooth_job {
    const hdg_blockmat *B;
    const void *A, *Di;        /* B's values and the nf*m*m inverse diagonal blocks */
    int lo;                    /* A and Di in single precision (hdg_blockmat_lo) */
    double c1, c2;
    const double *d;
    double *r, *dn, *z;
    int kind;                  /* 0: start, 1: step, 2: residual, 3: Di A d */
    int z_zero;                /* start: z = dn instead of z += dn */
} smooth_job;

/* y = Di_l x_l (m x m times m); the single-precision copies hold each block
 * by columns (hdg_blockmat_lo_init). */
static ALWAYS_INLINE void block_solve(const void *restrict Di, long long l, const int lo,
                                      const double *restrict x, const int m, double *restrict y)
{
    const long long o = l * m * m;
    if (lo) {
        block_cols(Di, o, x, m, lo == 2, y);
        return;
    }
    for (int p = 0; p < m; p++) {
        double s = 0.0;
        for (int q = 0; q < m; q++) s += ((const double *)Di)[o + p * m + q] * x[q];
        y[p] = s;
    }
}

static ALWAYS_INLINE void smooth_rows_fixed(const smooth_job *j, long long l0, long long l1, const int m,
                                            const int lo)
{
    const double c1 = j->c1, c2 = j->c2;
    for (long long l = l0; l < l1; l++) {
        double *restrict rl = j->r + l * m, acc[MAXM_FIXED], w[MAXM_FIXED];
        if (j->kind == 0) {   /* dn = c1 D r; z = dn or z += dn */
            block_solve(j->Di, l, lo, rl, m, w);
            for (int p = 0; p < m; p++) {
                double v = c1 * w[p];
                j->dn[l * m + p] = v;
                j->z[l * m + p] = j->z_zero ? v : j->z[l * m + p] + v;
            }
            continue;
        }
        row_product(j->B, j->A, lo, j->d, l, m, acc);
        if (j->kind == 3) {   /* dn = Di (A d) */
            block_solve(j->Di, l, lo, acc, m, j->dn + l * m);
            continue;
        }
        for (int p = 0; p < m; p++) rl[p] -= acc[p];
        if (j->kind == 2) continue;
        block_solve(j->Di, l, lo, rl, m, w);
        for (int p = 0; p < m; p++) {
            double v = c1 * j->d[l * m + p] + c2 * w[p];
            j->dn[l * m + p] = v;
            j->z[l * m + p] += v;
        }
    }
}

/* lo: 0 double, 1 single, 2 single with the x86-64-v3 vectors (smooth_rows_v3) */
#define SMOOTH_CASES(LO)                                                   \
    switch (j->B->m) {                                                     \
    CASE(1, LO) CASE(2, LO) CASE(3, LO) CASE(4, LO) CASE(5, LO) CASE(6, LO) \
    CASE(7, LO) CASE(8, LO) CASE(9, LO) CASE(10, LO) CASE(11, LO) CASE(12, LO) \
    }
#define CASE(M, LO) case M: smooth_rows_fixed(j, l0, l1, M, LO); break;

#if HAVE_V3
TARGET_V3 static void smooth_rows_v3(const smooth_job *j, long long l0, long long l1) { SMOOTH_CASES(2) }
#endif

static void smooth_rows(long long l0, long long l1, void *vctx)
{
    const smooth_job *j = vctx;
#if HAVE_V3
    if (j->lo == 2) {
        smooth_rows_v3(j, l0, l1);
        return;
    }
#endif
    if (j->lo) SMOOTH_CASES(1)
    else SMOOTH_CASES(0)
}
#undef CASE
#undef SMOOTH_CASES

static void smooth_run(smooth_job *j, const hdg_blockmat *B, const double *Di, const hdg_blockmat_lo *L)
{
    j->B = B;
    j->lo = L && L->A ? (L->vec ? 2 : 1) : 0;
    j->A = j->lo ? (const void *)L->A : (const void *)B->A;
    j->Di = j->lo ? (const void *)L->Di : (const void *)Di;
    long long row_bytes = (j->lo ? 4LL : 8LL) * B->na * B->m * B->m;
    long long grain = SPMV_MIN_CHUNK_BYTES / row_bytes;
    hdg_parallel_for_grain(B->nf, grain > 64 ? grain : 64, smooth_rows, j);
}

/* y = the nb m x m blocks of x (by rows) in single precision, each block by
 * columns (block_cols); 0 (y freed) when a value is not finite or its
 * magnitude lies outside float's normal range, where the copy would lose it. */
static int to_single(const double *x, size_t nb, int m, float **y)
{
    size_t mm = (size_t)m * m, n = nb * mm;
    float *f = hdg_xmalloc(sizeof(float) * (n + 3));   /* 3 of slack: block_cols reads up to 4 at once */
    f[n] = f[n + 1] = f[n + 2] = 0.0f;
    for (size_t o = 0; o < n; o += mm)
        for (int p = 0; p < m; p++)
            for (int q = 0; q < m; q++) {
                double v = x[o + p * m + q], a = fabs(v);
                if (a != 0 && !(a >= FLT_MIN && a <= FLT_MAX)) {
                    free(f);
                    *y = NULL;
                    return 0;
                }
                f[o + q * m + p] = (float)v;
            }
    *y = f;
    return 1;
}

int hdg_blockmat_lo_init(hdg_blockmat_lo *L, const hdg_blockmat *B, const double *Di)
{
    size_t nf = (size_t)B->nf;
    memset(L, 0, sizeof *L);
    if (to_single(B->A, nf * B->na, B->m, &L->A) && to_single(Di, nf, B->m, &L->Di)) {
        L->vec = hdg_blockmat_lo_vec_available();
        return 1;
    }
    hdg_blockmat_lo_free(L);
    return 0;
}

void hdg_blockmat_lo_free(hdg_blockmat_lo *L)
{
    free(L->A);
    free(L->Di);
    L->A = L->Di = NULL;
}

int hdg_blockmat_lo_vec_available(void)
{
#if HAVE_V3
    __builtin_cpu_init();
    return __builtin_cpu_supports("x86-64-v3") ? 1 : 0;
#else
    return 0;
#endif
}

int hdg_blockmat_fused_ok(const hdg_blockmat *B) { return B->m >= 1 && B->m <= MAXM_FIXED; }

void hdg_blockmat_smooth_start(const hdg_blockmat *B, const double *Di, const hdg_blockmat_lo *L, double s,
                               const double *r, double *d, double *z, int z_zero)
{
    smooth_job j = {.c1 = s, .r = (double *)r, .dn = d, .z = z, .kind = 0, .z_zero = z_zero};
    smooth_run(&j, B, Di, L);
}

void hdg_blockmat_smooth_step(const hdg_blockmat *B, const double *Di, const hdg_blockmat_lo *L, double c1,
                              double c2, const double *d, double *r, double *dn, double *z)
{
    smooth_job j = {.c1 = c1, .c2 = c2, .d = d, .r = r, .dn = dn, .z = z, .kind = 1};
    smooth_run(&j, B, Di, L);
}

void hdg_blockmat_residual_update(const hdg_blockmat *B, const hdg_blockmat_lo *L, const double *d, double *r)
{
    smooth_job j = {.d = d, .r = r, .kind = 2};
    smooth_run(&j, B, NULL, L);
}

void hdg_blockmat_jacobi_product(const hdg_blockmat *B, const double *Di, const hdg_blockmat_lo *L,
                                 const double *x, double *y)
{
    smooth_job j = {.d = x, .dn = y, .kind = 3};
    smooth_run(&j, B, Di, L);
}

/* ---- performance arithmetic ---- */

long long hdg_blockmat_nblocks(const hdg_blockmat *B)
{
    long long n = 0;
    for (long long i = 0; i < (long long)B->nf * B->na; i++) n += B->nbr[i] >= 0;
    return n;
}

double hdg_blockmat_spmv_bytes(const hdg_blockmat *B)
{
    double nf = B->nf, na = B->na, m = B->m;
    return 8.0 * (nf * na * m * m + 2.0 * nf * m) + 4.0 * nf * na;
}

double hdg_blockmat_smooth_bytes(const hdg_blockmat *B)
{
    double nf = B->nf, na = B->na, m = B->m;
    return 4.0 * (nf * na * m * m + nf * m * m) + 8.0 * 6.0 * nf * m + 4.0 * nf * na;
}

double hdg_blockmat_spmv_flops(const hdg_blockmat *B)
{
    return 2.0 * (double)B->m * B->m * (double)hdg_blockmat_nblocks(B);
}

typedef struct scatter_ctx {
    int m, nfe;
    const int *ef, *eforient;
    const hdg_face_maps *S;
    const double *x;
    double *out;
} scatter_ctx;

static void scatter_range(long long b, long long end, void *ctx)
{
    const scatter_ctx *c = ctx;
    int m = c->m, nfe = c->nfe;
    for (long long e = b; e < end; e++)
        for (int j = 0; j < nfe; j++) {
            const double *xf = c->x + (size_t)c->ef[nfe * e + j] * m;
            double *o = c->out + ((size_t)e * nfe + j) * m;
            const double *s = face_map(c->S, c->eforient, nfe, e, j);
            if (!s) memcpy(o, xf, sizeof(double) * (size_t)m);
            else if (c->S->diag)
                for (int i = 0; i < m; i++) o[i] = s[i] * xf[i];
            else
                for (int i = 0; i < m; i++) {
                    double v = 0;
                    for (int r = 0; r < m; r++) v += s[i * m + r] * xf[r];
                    o[i] = v;
                }
        }
}

void hdg_blockmat_scatter_to_elements(int ne, int m, const int *ef, const int *eforient,
                                      const double *flip, const double *x, double *out)
{
    double *d = hdg_xmalloc(sizeof(double) * 2 * (size_t)m);
    hdg_face_maps S = flip_maps(m, flip, d);
    hdg_blockmat_scatter_maps(ne, ef, eforient, &S, x, out);
    free(d);
}

void hdg_blockmat_scatter_maps(int ne, const int *ef, const int *eforient, const hdg_face_maps *S,
                               const double *x, double *out)
{
    scatter_ctx c = {S->m, S->nfe, ef, eforient, S, x, out};
    hdg_parallel_for(ne, scatter_range, &c);
}
