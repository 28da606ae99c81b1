/* mg.c — the two-level trace preconditioner (runtime/solve/mg.h): P1 coarse space,
 * Galerkin coarse operator, Chebyshev smoother, the cycle. */
#include "runtime/solve/mg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/parallel/parallel.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "support/util.h"

/* ---------------------------------------------------------------- coarse space */

/* The hats of a face's vertices in the trace basis (mg.h). On an edge the
 * Legendre coefficients (modes 0, 1) of (1-t)/2 and (1+t)/2 by 3-point Gauss;
 * on a triangle those of the barycentrics -(a+b)/2, (1+a)/2, (1+b)/2 in the
 * orthonormal Dubiner basis by a rule exact to degree 2 + 1; the modes of
 * degree > 1 are orthogonal to them, set to exactly 0. */
hdg_status hdg_mg_hat_coefficients(int dim, int nk, double *H, hdg_error *err)
{
    memset(H, 0, sizeof(double) * (size_t)dim * nk);
    if (dim == 2) {
        double t[3], w[3], L[6];
        hdg_status st = hdg_gauss_legendre(3, t, w, err);
        if (st) return st;
        hdg_legendre_eval(1, 3, t, L, NULL);
        for (int i = 0; i < 2 && i < nk; i++)
            for (int q = 0; q < 3; q++) {
                H[i] += w[q] * L[q * 2 + i] * (1 - t[q]) / 2;
                H[nk + i] += w[q] * L[q * 2 + i] * (1 + t[q]) / 2;
            }
        return HDG_OK;
    }
    int k = 0;
    while ((k + 1) * (k + 2) / 2 < nk) k++;
    if ((k + 1) * (k + 2) / 2 != nk)
        return hdg_fail(err, HDG_EINTERNAL, "multigrid: %d face modes is no triangle's space", nk);
    hdg_quad q = {0};
    hdg_status st = hdg_quad_simplex(&q, 2, 3, err);
    if (st) return st;
    double *P = hdg_xmalloc(sizeof(double) * (size_t)q.n * nk);
    hdg_face_basis_eval(3, k, q.n, (const double *const *)q.x, P);
    for (int i = 0; i < nk; i++) {
        int deg = 0;                  /* H&W order: i = (a, b), b fastest */
        for (int a = 0, j = 0; a <= k; a++)
            for (int b = 0; b <= k - a; b++, j++)
                if (j == i) deg = a + b;
        if (deg > 1) continue;
        for (int n = 0; n < q.n; n++) {
            double a = q.x[0][n], b = q.x[1][n], lam[3] = {-(a + b) / 2, (1 + a) / 2, (1 + b) / 2};
            for (int v = 0; v < 3; v++) H[v * nk + i] += q.w[n] * P[(size_t)n * nk + i] * lam[v];
        }
    }
    free(P);
    hdg_quad_free(&q);
    return HDG_OK;
}

/* The modes that some hat reaches (in increasing order); returns their count. */
static int hat_modes(const double *H, int nvf, int nk, int *hm)
{
    int n = 0;
    for (int i = 0; i < nk; i++) {
        int any = 0;
        for (int v = 0; v < nvf; v++) any |= H[v * nk + i] != 0;
        if (any) hm[n++] = i;
    }
    return n;
}

/* Row p of face l couples to nothing but itself. */
static int row_decoupled(const hdg_blockmat *B, int l, int p)
{
    int m = B->m;
    for (int a = 0; a < B->na; a++) {
        if (B->nbr[(size_t)l * B->na + a] < 0) continue;
        const double *row = hdg_blockmat_block(B, l, a) + (size_t)p * m;
        for (int q = 0; q < m; q++)
            if (row[q] != 0 && !(a == 0 && q == p)) return 0;
    }
    return 1;
}

/* fixed[l*ncomp + c]: every dof of component c on face l is decoupled. */
unsigned char *hdg_mg_fixed_components(const hdg_blockmat *B, int nk, int *nfixed)
{
    int ncomp = B->m / nk;
    unsigned char *fixed = hdg_xcalloc((size_t)B->nf * ncomp + 1, 1);
    *nfixed = 0;
    for (int l = 0; l < B->nf; l++)
        for (int c = 0; c < ncomp; c++) {
            int all = 1;
            for (int i = 0; i < nk && all; i++) all = row_decoupled(B, l, c * nk + i);
            fixed[(size_t)l * ncomp + c] = (unsigned char)all;
            *nfixed += all;
        }
    return fixed;
}

/* Appends (col, val) to a CSR being built row by row. */
typedef struct csr_builder {
    hdg_csr *C;
    int cap;
} csr_builder;

static void push(csr_builder *b, int col, double val)
{
    hdg_csr *C = b->C;
    if (C->nnz == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 1024;
        C->col = hdg_xrealloc(C->col, sizeof(int) * (size_t)b->cap);
        C->val = hdg_xrealloc(C->val, sizeof(double) * (size_t)b->cap);
    }
    C->col[C->nnz] = col;
    C->val[C->nnz++] = val;
}

/* per_row: the expected entries per row (the first allocation). */
static void builder_start(csr_builder *b, hdg_csr *C, int rows, int cols, int per_row)
{
    memset(C, 0, sizeof *C);
    C->n = rows;
    C->ncol = cols;
    C->rowptr = hdg_xcalloc((size_t)rows + 1, sizeof(int));
    b->C = C;
    long long cap = (long long)rows * per_row + 16;
    b->cap = cap < (1 << 30) ? (int)cap : 1 << 30;
    C->col = hdg_xmalloc(sizeof(int) * (size_t)b->cap);
    C->val = hdg_xmalloc(sizeof(double) * (size_t)b->cap);
}

/* P: row (l, c*nk + i), i a hat mode, gets the hat coefficients H[v][i] of the
 * face's vertices' coarse unknowns cidx[fv[nvf l + v]*ncomp + c] (-1: none). */
static void build_prolongation(hdg_csr *P, const hdg_blockmat *B, int nk, int nvf, const int *fv, const int *cidx,
                               int nc, const unsigned char *fixed, const double *H)
{
    int m = B->m, ncomp = m / nk;
    csr_builder b;
    builder_start(&b, P, B->nf * m, nc, (2 * nvf + nk - 1) / nk);
    for (int l = 0; l < B->nf; l++)
        for (int p = 0; p < m; p++) {
            int c = p / nk, i = p % nk;
            if (!fixed[(size_t)l * ncomp + c])
                for (int v = 0; v < nvf; v++) {
                    int j = cidx[(size_t)fv[(size_t)nvf * l + v] * ncomp + c];
                    if (j >= 0 && H[v * nk + i] != 0) push(&b, j, H[v * nk + i]);
                }
            P->rowptr[(size_t)l * m + p + 1] = P->nnz;
        }
}

static void csr_transpose(const hdg_csr *A, hdg_csr *T)
{
    memset(T, 0, sizeof *T);
    T->n = A->ncol;
    T->ncol = A->n;
    T->nnz = A->nnz;
    T->rowptr = hdg_xcalloc((size_t)T->n + 1, sizeof(int));
    T->col = hdg_xmalloc(sizeof(int) * (size_t)(A->nnz + 1));
    T->val = hdg_xmalloc(sizeof(double) * (size_t)(A->nnz + 1));
    for (int k = 0; k < A->nnz; k++) T->rowptr[A->col[k] + 1]++;
    for (int i = 0; i < T->n; i++) T->rowptr[i + 1] += T->rowptr[i];
    int *next = hdg_xmalloc(sizeof(int) * (size_t)(T->n + 1));
    memcpy(next, T->rowptr, sizeof(int) * (size_t)T->n);
    for (int i = 0; i < A->n; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int j = next[A->col[k]]++;
            T->col[j] = i;
            T->val[j] = A->val[k];
        }
    free(next);
}

static void sort_row(int *col, double *val, int n)
{
    for (int i = 1; i < n; i++) {
        int c = col[i];
        double v = val[i];
        int j = i;
        for (; j > 0 && col[j - 1] > c; j--) col[j] = col[j - 1], val[j] = val[j - 1];
        col[j] = c, val[j] = v;
    }
}

/* Sparse rows by a dense accumulator: the row's entries (col, val) are
 * gathered in acc/seen/touched, then pushed in column order. */
typedef struct row_acc {
    double *acc;
    int *seen, *touched, nt;
} row_acc;

static void acc_init(row_acc *a, int ncols)
{
    a->acc = hdg_xcalloc((size_t)ncols + 1, sizeof(double));
    a->seen = hdg_xmalloc(sizeof(int) * (size_t)(ncols + 1));
    a->touched = hdg_xmalloc(sizeof(int) * (size_t)(ncols + 1));
    for (int j = 0; j <= ncols; j++) a->seen[j] = -1;
    a->nt = 0;
}

static void acc_add(row_acc *a, int row, int col, double v)
{
    if (a->seen[col] != row) a->seen[col] = row, a->acc[col] = 0, a->touched[a->nt++] = col;
    a->acc[col] += v;
}

static void acc_flush(row_acc *a, csr_builder *b, int row)
{
    hdg_csr *C = b->C;
    int start = C->nnz;
    for (int i = 0; i < a->nt; i++) push(b, a->touched[i], a->acc[a->touched[i]]);
    sort_row(C->col + start, C->val + start, a->nt);
    C->rowptr[row + 1] = C->nnz;
    a->nt = 0;
}

static void acc_free(row_acc *a)
{
    free(a->acc), free(a->seen), free(a->touched);
}

/* Sparse rows built in parallel: fn adds row r's entries to a (acc_add);
 * the rows are cut into pieces, each built into its own CSR by a thread
 * with its own accumulator, then joined in order: the result is the same
 * as one thread's, entry for entry. */
typedef void (*row_fn)(row_acc *a, int r, const void *ctx);

typedef struct rows_job {
    int rows, cols, per_row, npieces;
    row_fn fn;
    const void *ctx;
    hdg_csr *piece;
} rows_job;

static void rows_pieces(long long begin, long long end, void *ctx)
{
    rows_job *j = ctx;
    row_acc a;
    acc_init(&a, j->cols);
    for (long long q = begin; q < end; q++) {
        int r0 = (int)((long long)j->rows * q / j->npieces), r1 = (int)((long long)j->rows * (q + 1) / j->npieces);
        csr_builder b;
        builder_start(&b, &j->piece[q], r1 - r0, j->cols, j->per_row);
        for (int r = r0; r < r1; r++) {
            j->fn(&a, r, j->ctx);
            acc_flush(&a, &b, r - r0);
        }
    }
    acc_free(&a);
}

static void rows_parallel(hdg_csr *C, int rows, int cols, int per_row, row_fn fn, const void *ctx)
{
    rows_job j = {rows, cols, per_row, 0, fn, ctx, NULL};
    j.npieces = 4 * hdg_parallel_threads();
    if (j.npieces > rows) j.npieces = rows > 0 ? rows : 1;
    j.piece = hdg_xcalloc((size_t)j.npieces, sizeof(hdg_csr));
    hdg_parallel_for_grain(j.npieces, 1, rows_pieces, &j);
    memset(C, 0, sizeof *C);
    C->n = rows;
    C->ncol = cols;
    C->rowptr = hdg_xcalloc((size_t)rows + 1, sizeof(int));
    for (int q = 0; q < j.npieces; q++) C->nnz += j.piece[q].nnz;
    C->col = hdg_xmalloc(sizeof(int) * (size_t)(C->nnz + 1));
    C->val = hdg_xmalloc(sizeof(double) * (size_t)(C->nnz + 1));
    int r0 = 0, off = 0;
    for (int q = 0; q < j.npieces; q++) {
        hdg_csr *P = &j.piece[q];
        for (int r = 0; r < P->n; r++) C->rowptr[r0 + r + 1] = off + P->rowptr[r + 1];
        memcpy(C->col + off, P->col, sizeof(int) * (size_t)P->nnz);
        memcpy(C->val + off, P->val, sizeof(double) * (size_t)P->nnz);
        r0 += P->n, off += P->nnz;
        hdg_csr_free(P);
    }
    free(j.piece);
}

typedef struct bp_ctx {
    const hdg_blockmat *B;
    int nk, ncomp, nvf;
    const int *fv, *cidx;
    const unsigned char *fixed;
    const double *H;     /* nvf x nk hat coefficients */
    int nhm, hm[8];      /* the modes the hats reach */
    int *rowptr, *col;   /* first pass: each row's bound; second: its entries from rowptr[r] */
    double *val;
    int *len;            /* second pass: each row's entries */
    int cap;             /* > 0: rows hold at most cap entries (rowptr[r] = r cap) */
    int *over;           /* set when a face's rows need more than cap */
} bp_ctx;

/* The coarse unknowns face l's rows of B P can reach: for each (block k,
 * component, face vertex) of P's entries, slot[] indexes cols (-1: none), and cols
 * is sorted. Returns the count. */
static int face_slots(const bp_ctx *c, int l, int *slot, int *cols)
{
    const hdg_blockmat *B = c->B;
    int ns = 0, ncomp = c->ncomp, nvf = c->nvf;
    for (int k = 0; k < B->na; k++) {
        int g = B->nbr[(size_t)l * B->na + k];
        for (int cc = 0; cc < ncomp; cc++)
            for (int v = 0; v < nvf; v++) {
                int *s = &slot[(k * ncomp + cc) * nvf + v], j;
                *s = -1;
                if (g < 0 || c->fixed[(size_t)g * ncomp + cc]) continue;
                if ((j = c->cidx[(size_t)c->fv[(size_t)nvf * g + v] * ncomp + cc]) < 0) continue;
                int t = 0;
                while (t < ns && cols[t] != j) t++;
                if (t == ns) cols[ns++] = j;
                *s = t;
            }
    }
    int order[ns ? ns : 1], rank[ns ? ns : 1], sorted[ns ? ns : 1];
    for (int t = 0; t < ns; t++) order[t] = t;
    for (int t = 1; t < ns; t++)   /* insertion sort of the few columns */
        for (int u = t; u > 0 && cols[order[u - 1]] > cols[order[u]]; u--) {
            int x = order[u];
            order[u] = order[u - 1], order[u - 1] = x;
        }
    for (int t = 0; t < ns; t++) rank[order[t]] = t, sorted[t] = cols[order[t]];
    memcpy(cols, sorted, sizeof(int) * (size_t)ns);
    for (int i = 0; i < B->na * ncomp * nvf; i++)
        if (slot[i] >= 0) slot[i] = rank[slot[i]];
    return ns;
}

/* Faces [f0, f1): a bound on the entries of each of their rows (c->val NULL:
 * the columns with contributions, B not read), or their entries, written from
 * rowptr[r] on, with their count in len[r].
 * From P's structure (build_prolongation) rather than its rows: only the hat
 * modes of a free component have entries, H[v][i] at face vertex v's coarse
 * unknown. So entry (l, p; cols[t]) sums
 * B[l][k](p, c nk + i) w over a face's list of contributions (k, c, i, w) to
 * column t, in the order of B's row and P's entries, as a CSR product would;
 * an entry is stored when one of its products had a nonzero B value. */
static void bp_faces(long long f0, long long f1, void *ctx)
{
    const bp_ctx *c = ctx;
    const hdg_blockmat *B = c->B;
    const int m = B->m, nk = c->nk, ncomp = c->ncomp, nvf = c->nvf, nslot = B->na * ncomp * nvf;
    const long long row_len = (long long)B->na * m * m;
    int *slot = hdg_xmalloc(sizeof(int) * (size_t)nslot), *cols = hdg_xmalloc(sizeof(int) * (size_t)nslot);
    size_t ncon = (size_t)nslot * (size_t)c->nhm;   /* contributions: slots x hat modes */
    int *cs = hdg_xmalloc(sizeof(int) * ncon), *coff = hdg_xmalloc(sizeof(int) * ncon);
    int *first = hdg_xmalloc(sizeof(int) * (size_t)(nslot + 1)), *order = hdg_xmalloc(sizeof(int) * ncon);
    double *cw = hdg_xmalloc(sizeof(double) * ncon);
    for (long long l = f0; l < f1; l++) {
        int ns = face_slots(c, (int)l, slot, cols), nc = 0;
        for (int k = 0; k < B->na; k++)   /* the contributions, in product order */
            for (int cc = 0; cc < ncomp; cc++)
                for (int h = 0; h < c->nhm; h++)
                    for (int v = 0; v < nvf; v++) {
                        int i = c->hm[h], t = slot[(k * ncomp + cc) * nvf + v];
                        double w = c->H[v * nk + i];
                        if (t < 0 || w == 0) continue;
                        cs[nc] = t, coff[nc] = k * m * m + cc * nk + i, cw[nc++] = w;
                    }
        for (int t = 0; t <= ns; t++) first[t] = 0;   /* grouped by column, stably */
        for (int j = 0; j < nc; j++) first[cs[j] + 1]++;
        for (int t = 0; t < ns; t++) first[t + 1] += first[t];
        for (int j = 0; j < nc; j++) order[first[cs[j]]++] = j;
        for (int t = ns; t > 0; t--) first[t] = first[t - 1];
        first[0] = 0;
        int bound = 0;   /* columns with contributions: at most the entries of each row */
        for (int t = 0; t < ns; t++) bound += first[t + 1] > first[t];
        if (!c->val) {
            for (int p = 0; p < m; p++) c->rowptr[l * m + p + 1] = bound;
            continue;
        }
        if (c->cap && bound > c->cap) {
            __atomic_store_n(c->over, 1, __ATOMIC_RELAXED);
            continue;
        }
        const double *Al = B->A + l * row_len;
        for (int p = 0; p < m; p++) {
            long long r = l * m + p;
            int k = c->rowptr[r];
            for (int t = 0; t < ns; t++) {
                double a = 0;
                int hit = 0;
                for (int q = first[t]; q < first[t + 1]; q++) {
                    int j = order[q];
                    double v = Al[coff[j] + p * m];
                    a += v * cw[j];
                    hit |= v != 0;
                }
                if (hit) c->col[k] = cols[t], c->val[k] = a;
                k += hit;
            }
            c->len[r] = k - c->rowptr[r];
        }
    }
    free(slot), free(cols), free(cs), free(coff), free(first), free(order), free(cw);
}

/* AP = B P, by faces, threaded: the entries written at room for nvf + 2 per row and
 * component (a face's rows reach the vertices of its two simplices; where one
 * reaches more, a first pass counts from the structure instead), then the rows
 * closed up. One pass over the faces' set-up and B, not two. */
static void times_prolongation(hdg_csr *AP, const hdg_blockmat *B, const hdg_csr *P, int nk, int nvf, const int *fv,
                               const int *cidx, const unsigned char *fixed, const double *H)
{
    memset(AP, 0, sizeof *AP);
    AP->n = P->n;
    AP->ncol = P->ncol;
    AP->rowptr = hdg_xcalloc((size_t)P->n + 1, sizeof(int));
    int over = 0, nslot = B->na * (B->m / nk) * nvf;
    bp_ctx c = {B, nk, B->m / nk, nvf, fv, cidx, fixed, H, 0, {0}, AP->rowptr, NULL, NULL, NULL, 0, &over};
    c.nhm = hat_modes(H, nvf, nk, c.hm);
    c.cap = (nvf + 2) * c.ncomp < nslot ? (nvf + 2) * c.ncomp : nslot;
    for (int r = 0; r <= P->n; r++) AP->rowptr[r] = r * c.cap;
    c.len = hdg_xmalloc(sizeof(int) * ((size_t)P->n + 1));
    for (int pass = 0; pass < 2; pass++) {
        size_t room = (size_t)AP->rowptr[P->n];
        AP->col = c.col = hdg_xmalloc(sizeof(int) * (room + 1));
        AP->val = c.val = hdg_xmalloc(sizeof(double) * (room + 1));
        hdg_parallel_for_grain(B->nf, 256, bp_faces, &c);
        if (!over) break;
        free(AP->col), free(AP->val);   /* some row needs more room: count it */
        c.col = NULL, c.val = NULL, c.cap = 0, over = 0;
        AP->rowptr[0] = 0;
        hdg_parallel_for_grain(B->nf, 256, bp_faces, &c);
        for (int r = 0; r < P->n; r++) AP->rowptr[r + 1] += AP->rowptr[r];
    }
    int at = 0;   /* close up: row r's entries move down to at (never past their own place) */
    for (int r = 0; r < P->n; r++) {
        int from = AP->rowptr[r], n = c.len[r];
        if (at != from) {
            memmove(AP->col + at, AP->col + from, sizeof(int) * (size_t)n);
            memmove(AP->val + at, AP->val + from, sizeof(double) * (size_t)n);
        }
        AP->rowptr[r] = at;
        at += n;
    }
    AP->rowptr[P->n] = at;
    AP->nnz = at;
    free(c.len);
}

typedef struct rap_ctx {
    const hdg_csr *R, *AP;
} rap_ctx;

/* Row J of R (B P). */
static void rap_row(row_acc *a, int J, const void *ctx)
{
    const rap_ctx *c = ctx;
    const hdg_csr *R = c->R, *AP = c->AP;
    for (int kr = R->rowptr[J]; kr < R->rowptr[J + 1]; kr++) {
        int r = R->col[kr];
        for (int k = AP->rowptr[r]; k < AP->rowptr[r + 1]; k++) acc_add(a, J, AP->col[k], R->val[kr] * AP->val[k]);
    }
}

/* Ac = R (B P). */
static void galerkin(hdg_csr *Ac, const hdg_csr *R, const hdg_csr *AP)
{
    rap_ctx c = {R, AP};
    rows_parallel(Ac, R->n, R->n, 8, rap_row, &c);
}

static double csr_entry(const hdg_csr *C, int i, int j)
{
    for (int k = C->rowptr[i]; k < C->rowptr[i + 1]; k++)
        if (C->col[k] == j) return C->val[k];
    return 0;
}

/* Marks the coarse unknowns whose Galerkin diagonal is not positive (relative
 * to the largest) as dropped in keep; returns how many. */
static int drop_weak(const hdg_csr *Ac, const int *cidx, long long ncv, unsigned char *keep)
{
    double dmax = 0;
    for (int J = 0; J < Ac->n; J++) dmax = fmax(dmax, csr_entry(Ac, J, J));
    int nd = 0;
    for (long long i = 0; i < ncv; i++)
        if (cidx[i] >= 0 && !(csr_entry(Ac, cidx[i], cidx[i]) > 1e-12 * dmax)) keep[i] = 0, nd++;
    return nd;
}

/* Coarse unknown j decoupled: identity row and column in Ac, zero column in
 * P and row in R (its value never reaches the fine space). */
static void pin(hdg_mg_coarse *C, int j)
{
    hdg_csr *A = &C->Ac;
    for (int i = 0; i < A->n; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (i == j || A->col[k] == j) A->val[k] = i == A->col[k] ? 1.0 : 0.0;
    for (int k = 0; k < C->P.nnz; k++)
        if (C->P.col[k] == j) C->P.val[k] = 0;
    for (int k = C->R.rowptr[j]; k < C->R.rowptr[j + 1]; k++) C->R.val[k] = 0;
    for (int k = 0; k < C->AP.nnz; k++)
        if (C->AP.col[k] == j) C->AP.val[k] = 0;
}

/* The first coarse unknown of component c (-1: none). */
static int first_of(const int *cidx, long long ncv, int ncomp, int c)
{
    for (long long i = c; i < ncv; i += ncomp)
        if (cidx[i] >= 0) return cidx[i];
    return -1;
}

/* Rigid motions free: the coarse unknowns of the null components at the dim vertices of
 * the first face that has them all (pinned[], at most 3 x 31); their count. */
static int pin_face(const int *cidx, int ncomp, unsigned mask, int nf, int nvf, const int *fv, int *pinned)
{
    for (int l = 0; l < nf; l++) {
        int n = 0, ok = 1;
        for (int v = 0; v < nvf && ok; v++)
            for (int c = 0; c < ncomp && c < 31 && ok; c++)
                if (mask >> c & 1u) ok = (pinned[n++] = cidx[(long long)fv[(size_t)nvf * l + v] * ncomp + c]) >= 0;
        if (ok) return n;
    }
    return 0;
}

hdg_status hdg_mg_coarse_build(hdg_mg_coarse *C, const hdg_blockmat *B, int dim, int nk, int nv, const int *fv,
                               unsigned null_mask, hdg_error *err)
{
    memset(C, 0, sizeof *C);
    if (nk < 1 || B->m % nk)
        return hdg_fail(err, HDG_EINTERNAL, "multigrid: %d dofs per face is not a multiple of %d modes", B->m, nk);
    int nvf = dim;
    double *H = hdg_xmalloc(sizeof(double) * (size_t)nvf * nk);
    hdg_status st = hdg_mg_hat_coefficients(dim, nk, H, err);
    if (st) {
        free(H);
        return st;
    }
    int ncomp = B->m / nk;
    long long ncv = (long long)nv * ncomp;
    unsigned char *fixed = hdg_mg_fixed_components(B, nk, &C->nfixed), *keep = hdg_xmalloc((size_t)ncv + 1);
    memset(keep, 1, (size_t)ncv + 1);
    for (int l = 0; l < B->nf; l++)   /* coarse functions vanish on fixed faces */
        for (int c = 0; c < ncomp; c++)
            if (fixed[(size_t)l * ncomp + c])
                for (int v = 0; v < nvf; v++) keep[(size_t)fv[(size_t)nvf * l + v] * ncomp + c] = 0;
    int *cidx = hdg_xmalloc(sizeof(int) * (size_t)(ncv + 1));
    for (int pass = 0; pass < 2; pass++) {
        int nc = 0;
        for (long long i = 0; i < ncv; i++) cidx[i] = keep[i] ? nc++ : -1;
        hdg_mg_coarse_free(C);
        C->nc = nc;
        build_prolongation(&C->P, B, nk, nvf, fv, cidx, nc, fixed, H);
        csr_transpose(&C->P, &C->R);
        times_prolongation(&C->AP, B, &C->P, nk, nvf, fv, cidx, fixed, H);
        galerkin(&C->Ac, &C->R, &C->AP);
        if (!drop_weak(&C->Ac, cidx, ncv, keep)) break;
    }
    int pinned[96], npin = 0;   /* each null component's first coarse unknown */
    if (null_mask & HDG_MG_NULL_ROTATIONS) npin = pin_face(cidx, ncomp, null_mask, B->nf, nvf, fv, pinned);
    else
        for (int c = 0; c < ncomp && c < 31; c++)
            if (null_mask >> c & 1u) pinned[npin] = first_of(cidx, ncv, ncomp, c), npin += pinned[npin] >= 0;
    free(fixed), free(keep), free(cidx), free(H);
    if (C->nc == 0) return hdg_fail(err, HDG_EINPUT, "multigrid: no coarse unknowns (every face is fixed)");
    for (int i = 0; i < npin; i++) pin(C, pinned[i]);
    return HDG_OK;
}

void hdg_mg_coarse_free(hdg_mg_coarse *C)
{
    int nfixed = C->nfixed;
    hdg_csr_free(&C->P);
    hdg_csr_free(&C->R);
    hdg_csr_free(&C->AP);
    hdg_csr_free(&C->Ac);
    memset(C, 0, sizeof *C);
    C->nfixed = nfixed;
}

/* ---------------------------------------------------------------- cycle */

hdg_mg_opts hdg_mg_opts_default(void)
{
    hdg_mg_opts o = {2, 4.0, 10};
    return o;
}

double *hdg_mg_start_vector(long long n)
{
    double *x = hdg_xmalloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    unsigned long long s = 88172645463325252ULL;   /* xorshift64, fixed seed: runs repeat */
    for (long long i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        x[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
    return x;
}

/* lmax of D^-1 A by power iteration, times 1.1. */
static double estimate_lmax(hdg_mg *g, const double *start)
{
    const hdg_vecops *v = g->v;
    double *x = g->d, *y = g->t, *z = g->w, lam = 0;
    if (start) v->copy(v->ctx, g->n, start, x);
    else v->set(v->ctx, g->n, 1.0, x);
    double nx = v->norm2(v->ctx, g->n, x);
    if (!(nx > 0)) v->set(v->ctx, g->n, 1.0, x), nx = sqrt((double)g->n);
    v->scal(v->ctx, g->n, 1.0 / nx, x);
    for (int it = 0; it < g->o.power_its; it++) {
        if (g->F.jacobi) g->F.jacobi(g->F.ctx, x, z);
        else g->A.apply(g->A.ctx, x, y), g->D.apply(g->D.ctx, y, z);
        lam = v->norm2(v->ctx, g->n, z);
        if (!(lam > 0) || !isfinite(lam)) return lam;
        if (g->F.jacobi) {   /* x <- z without a copy (both are work vectors) */
            double *s = x;
            x = z, z = s;
        } else v->copy(v->ctx, g->n, z, x);
        v->scal(v->ctx, g->n, 1.0 / lam, x);
    }
    g->d = x, g->w = z;   /* the swaps may have exchanged them */
    return 1.1 * lam;
}

hdg_status hdg_mg_init(hdg_mg *g, const hdg_linop *A, const hdg_linop *D, const hdg_linop *P,
                       const hdg_linop *R, const hdg_linop *Cs, long long nc, const hdg_vecops *v,
                       const hdg_mg_opts *o, const double *start, const hdg_mg_fused *F, hdg_error *err)
{
    memset(g, 0, sizeof *g);
    if (F) g->F = *F;
    g->A = *A, g->D = *D, g->P = *P, g->R = *R, g->Cs = *Cs;
    g->v = v;
    g->n = A->n;
    g->nc = nc;
    g->o = o ? *o : hdg_mg_opts_default();
    if (g->o.nu < 1 || !(g->o.ratio > 1) || g->o.power_its < 1)
        return hdg_fail(err, HDG_EINPUT, "multigrid: nu %d, ratio %g, power iterations %d (want >= 1, > 1, >= 1)",
                        g->o.nu, g->o.ratio, g->o.power_its);
    double **vec[] = {&g->r, &g->d, &g->t, &g->w};
    for (int i = 0; i < 4; i++)
        if (!(*vec[i] = v->alloc(v->ctx, g->n))) break;
    g->rc = v->alloc(v->ctx, nc > 0 ? nc : 1);
    g->ec = v->alloc(v->ctx, nc > 0 ? nc : 1);
    if (!g->r || !g->d || !g->t || !g->w || !g->rc || !g->ec) {
        hdg_mg_free(g);
        return hdg_fail(err, HDG_ENOMEM, "multigrid: cannot allocate 4 vectors of %lld and 2 of %lld", g->n, nc);
    }
    g->lmax = estimate_lmax(g, start);
    if (!(g->lmax > 0) || !isfinite(g->lmax)) {
        hdg_fail(err, HDG_ESOLVER, "multigrid: the smoother's eigenvalue estimate is %g (the block-Jacobi "
                 "preconditioned trace matrix is not positive)", g->lmax);
        hdg_mg_free(g);
        return HDG_ESOLVER;
    }
    return HDG_OK;
}

/* nu Chebyshev steps on D^-1 A for A z = b, updating z and r = b - A z
 * (the last update of r skipped when last). */
static void chebyshev(hdg_mg *g, double *z, int last)
{
    const hdg_vecops *v = g->v;
    long long n = g->n;
    double lmax = g->lmax, lmin = lmax / g->o.ratio;
    double theta = (lmax + lmin) / 2, delta = (lmax - lmin) / 2, sigma = theta / delta, rho = 1 / sigma;
    g->D.apply(g->D.ctx, g->r, g->d);
    v->scal(v->ctx, n, 1 / theta, g->d);
    for (int k = 1; k <= g->o.nu; k++) {
        v->axpy(v->ctx, n, 1.0, g->d, z);
        if (k == g->o.nu && last) break;
        g->A.apply(g->A.ctx, g->d, g->t);
        v->axpy(v->ctx, n, -1.0, g->t, g->r);
        if (k == g->o.nu) break;
        g->D.apply(g->D.ctx, g->r, g->w);
        double rho1 = 1 / (2 * sigma - rho);
        v->scal(v->ctx, n, rho1 * rho, g->d);
        v->axpy(v->ctx, n, 2 * rho1 / delta, g->w, g->d);
        rho = rho1;
    }
}

/* The same steps with the fused passes: d = D r / theta and the first z += d
 * in one pass, then each middle step's SpMV, residual, D, update of d and the
 * next z += d in one, and the last step's residual update in one. */
static void chebyshev_fused(hdg_mg *g, double *z, int z_zero, int last)
{
    double lmax = g->lmax, lmin = lmax / g->o.ratio;
    double theta = (lmax + lmin) / 2, delta = (lmax - lmin) / 2, sigma = theta / delta, rho = 1 / sigma;
    const hdg_mg_fused *F = &g->F;
    F->start(F->ctx, 1 / theta, g->r, g->d, z, z_zero);
    for (int k = 1; k < g->o.nu; k++) {
        double rho1 = 1 / (2 * sigma - rho);
        F->step(F->ctx, rho1 * rho, 2 * rho1 / delta, g->d, g->r, g->w, z);
        double *t = g->d;
        g->d = g->w, g->w = t;
        rho = rho1;
    }
    if (!last) F->resid(F->ctx, g->d, g->r);
}

static void mg_apply(void *ctx, const double *b, double *z)
{
    hdg_mg *g = ctx;
    const hdg_vecops *v = g->v;
    v->copy(v->ctx, g->n, b, g->r);
    if (g->F.start) chebyshev_fused(g, z, 1, 0);
    else v->set(v->ctx, g->n, 0.0, z), chebyshev(g, z, 0);
    g->R.apply(g->R.ctx, g->r, g->rc);
    g->Cs.apply(g->Cs.ctx, g->rc, g->ec);
    g->P.apply(g->P.ctx, g->ec, g->d);
    v->axpy(v->ctx, g->n, 1.0, g->d, z);
    if (g->AP.apply) g->AP.apply(g->AP.ctx, g->ec, g->t);   /* B P ec, cheaper than B (P ec) */
    else g->A.apply(g->A.ctx, g->d, g->t);
    v->axpy(v->ctx, g->n, -1.0, g->t, g->r);
    if (g->F.start) chebyshev_fused(g, z, 0, 1);
    else chebyshev(g, z, 1);
}

hdg_linop hdg_mg_op(hdg_mg *g)
{
    hdg_linop op = {g, g->n, mg_apply};
    return op;
}

void hdg_mg_free(hdg_mg *g)
{
    const hdg_vecops *v = g->v;
    double **vec[] = {&g->r, &g->d, &g->t, &g->w, &g->rc, &g->ec};
    for (int i = 0; i < 6; i++)
        if (*vec[i]) v->free(v->ctx, *vec[i]), *vec[i] = NULL;
}
