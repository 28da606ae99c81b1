/* maxwell2d.c — hand-written C kernels for examples/maxwell2d.hdg: Maxwell TM
 * (eps = mu = 1) by nodal DG on triangles, Hesthaven & Warburton's
 * MaxwellRHS2D with the upwind flux (alpha = 1) or the central one (alpha = 0)
 * and a PEC wall on every boundary face.
 *
 * They stand for the generated kernels of the same names, with their ABI,
 * slots and layout (ir/lower_dg.h): per element the state is [Hx|Hy|Ez] at
 * the Np nodes, geom holds DG_G_* (rx, ry, sx, sy, and nx, ny, Fscale per
 * face), imap[0] the face map DG_M_* (neighbour, its local face, bc index:
 * < 0 interior, >= 0 the PEC condition, the problem's only one). Parameters:
 * params[0] = alpha (first 'param' of the file), then mx, my, omega, then the
 * LSERK4 stage values a, b, dt that the lowering appends (indices 4, 5, 6).
 *
 *   maxwell2d_volume   rhs  = volume part
 *   maxwell2d_surface  rhs += LIFT (Fscale * flux)
 *   maxwell2d_rhs      both
 *   maxwell2d_step     res = a res + dt rhs(U); Unew = U + b res  (U, Unew distinct)
 *   maxwell2d_update   res = a res + dt rhs; U += b res
 *
 * The right-hand side, as in the book:
 *   dHx/dt = -dEz/dy + LIFT(Fscale fHx)/2,   dHy/dt = dEz/dx + LIFT(Fscale fHy)/2,
 *   dEz/dt = dHy/dx - dHx/dy + LIFT(Fscale fEz)/2,
 *   fHx = ny dEz + alpha (nx ndH - dHx),  fHy = -nx dEz + alpha (ny ndH - dHy),
 *   fEz = ny dHx - nx dHy - alpha dEz,    ndH = nx dHx + ny dHy,
 * with d. = interior - exterior; on a PEC face dHx = dHy = 0, dEz = 2 Ez.
 * The curl is taken as Dr (rx Hy - ry Hx) + Ds (sx Hy - sy Hx) (affine
 * elements): four Np x Np products per element instead of six.
 *
 * Speed: the order is a compile-time constant (one inline body, instantiated
 * for N = 1..8), the operators are stored transposed with rows padded to a
 * multiple of 4, and the products run over a few SIMD vectors of output nodes
 * whose accumulators stay in registers while the sum runs over the columns
 * (the micro-kernel of a GEMM); the face values of the neighbours of the
 * element two ahead are prefetched. On x86-64 each order is compiled for
 * AVX-512, AVX2+FMA and the SSE2 baseline, and the set-up call picks what
 * the CPU has, as the JIT compiles the generated code for the host CPU.
 * The face map has no marker-set flags here (stride DG_M_SETS): the only
 * boundary rule is 'on all'. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast")   /* -std=c11 turns FMA contraction off */
#elif defined(__clang__)
#pragma clang fp contract(fast)
#endif

#include "backends/handwritten/sets.h"

#include <string.h>

#include "ir/lower_dg.h"
#include "runtime/fem/refel.h"

#define MW_NMAX 8
#define MW_NP(N) (((N) + 1) * ((N) + 2) / 2)
#define MW_B 4                                              /* rows padded to a multiple of this */
#define MW_NPP(N) ((MW_NP(N) + MW_B - 1) / MW_B * MW_B)     /* Np padded to the block */
#define MW_NPMAX MW_NP(MW_NMAX)
#define MW_NPPMAX MW_NPP(MW_NMAX)
#define MW_NFPMAX (MW_NMAX + 1)
/* Prefetch distance (elements) for the neighbours' face values, from order
 * MW_PF_MIN on: below it elements are small, their neighbours mostly still
 * in cache, and the prefetches cost more than they save (measured). */
#ifndef MW_PF
#define MW_PF 2
#endif
#define MW_PF_MIN 5
#define MW_PFN(N) (MW_PF > 0 && (N) >= MW_PF_MIN)
#define MW_NVMAX 4                                          /* vectors per accumulator */

/* maxwell2d.hdg's parameters, and the stage values the lowering appends */
enum { MW_P_ALPHA = 0, MW_P_RKA = 4, MW_P_RKB = 5, MW_P_DT = 6 };

/* The reference operators of one order, rows padded to MW_NPP(N) with zeros:
 * DrT[j][i] = Dr[i][j], DsT likewise, LIFTT[k][i] = LIFT[i][k]. */
typedef struct mw_tables {
    _Alignas(64) double DrT[MW_NPMAX * MW_NPPMAX];
    _Alignas(64) double DsT[MW_NPMAX * MW_NPPMAX];
    _Alignas(64) double LIFTT[3 * MW_NFPMAX * MW_NPPMAX];
    int Fmask[3][MW_NFPMAX];      /* node of face node i of local face f */
    int FmaskRev[3][MW_NFPMAX];   /* the same face read from the other side: Fmask[f][Nfp-1-i] */
    int ready;
} mw_tables;

static mw_tables mw_tab[MW_NMAX + 1];   /* filled by hdg_hw_maxwell2d_c, then only read */

#define MW_INLINE static inline __attribute__((always_inline))

/* SIMD vectors (GCC/Clang vector extension): 4 doubles for AVX2/AVX-512
 * (256-bit: the same FMA rate on current x86, half the register pressure),
 * 2 for the SSE2 baseline. */
typedef double mw_v4 __attribute__((vector_size(32)));
typedef double mw_v2 __attribute__((vector_size(16)));

/* The upwind flux at face node k from the jumps (interior - exterior). */
MW_INLINE void mw_flux_node(int k, double nx, double ny, double fs, double alpha, double dHx, double dHy,
                            double dEz, double *restrict fx, double *restrict fy, double *restrict fz)
{
    const double ndH = nx * dHx + ny * dHy;
    fx[k] = fs * (ny * dEz + alpha * (nx * ndH - dHx));
    fy[k] = fs * (-nx * dEz + alpha * (ny * ndH - dHy));
    fz[k] = fs * (ny * dHx - nx * dHy - alpha * dEz);
}

/* Fscale/2 times the flux at the 3 Nfp face nodes of element U (fx, fy, fz
 * for Hx, Hy, Ez), exterior values from the neighbour (its face node
 * Nfp-1-i faces node i) or, on a boundary face, the PEC rule:
 * ext(Hx, Hy, Ez) = (Hx, Hy, -Ez), so the jumps are (0, 0, 2 Ez). */
MW_INLINE void mw_flux(const int N, const mw_tables *restrict T, const double *restrict Uall,
                       const double *restrict U, const double *restrict g, const int *restrict fm,
                       double alpha, double *restrict fx, double *restrict fy, double *restrict fz)
{
    const int Np = MW_NP(N), Nfp = N + 1;
    for (int f = 0; f < 3; f++) {
        const double nx = g[DG_G_FACE0 + 3 * f], ny = g[DG_G_FACE0 + 3 * f + 1];
        const double fs = 0.5 * g[DG_G_FACE0 + 3 * f + 2];
        const int *in = T->Fmask[f];
        if (fm[DG_M_BC + f] < 0) {
            const double *P = Uall + (long long)fm[DG_M_NBR + f] * 3 * Np;
            const int *ex = T->FmaskRev[fm[DG_M_NLF + f]];
            for (int i = 0; i < Nfp; i++) {
                const int m = in[i], p = ex[i];
                mw_flux_node(f * Nfp + i, nx, ny, fs, alpha, U[m] - P[p], U[Np + m] - P[Np + p],
                             U[2 * Np + m] - P[2 * Np + p], fx, fy, fz);
            }
        } else
            for (int i = 0; i < Nfp; i++)
                mw_flux_node(f * Nfp + i, nx, ny, fs, alpha, 0.0, 0.0, 2 * U[2 * Np + in[i]], fx, fy, fz);
    }
}

/* Rows ib .. ib + NV VL of the right-hand side into R: the sums run over the
 * columns (j of Dr, Ds; k of LIFT) with the 6 NV accumulator vectors in
 * registers, NV independent FMA chains each (the micro-kernel of a GEMM).
 * Defined for each vector type VT of VL doubles. */
#define MW_ROWS_DEF(NAME, VT, VL)                                                                    \
    MW_INLINE void NAME(const int N, const int NV, const int vol, const int surf,                    \
                        const mw_tables *restrict T, const int ib, const double *restrict Ez,        \
                        const double *restrict w1, const double *restrict w2,                        \
                        const double *restrict fx, const double *restrict fy,                        \
                        const double *restrict fz, const double *restrict g, double R[3][MW_NPPMAX]) \
    {                                                                                                \
        const int Np = MW_NP(N), NPP = MW_NPP(N), NF = 3 * (N + 1);                                  \
        VT dr[MW_NVMAX], ds[MW_NVMAX], c1[MW_NVMAX], c2[MW_NVMAX], lx[MW_NVMAX], ly[MW_NVMAX];       \
        for (int b = 0; b < NV; b++) dr[b] = ds[b] = c1[b] = c2[b] = lx[b] = ly[b] = (VT){0};        \
        if (vol)                                                                                     \
            for (int j = 0; j < Np; j++) {                                                           \
                const double ez = Ez[j], p = w1[j], q = w2[j];                                       \
                const VT *x = (const VT *)(T->DrT + j * NPP + ib);                                   \
                const VT *y = (const VT *)(T->DsT + j * NPP + ib);                                   \
                for (int b = 0; b < NV; b++) {                                                       \
                    dr[b] += x[b] * ez;                                                              \
                    ds[b] += y[b] * ez;                                                              \
                    c1[b] += x[b] * p;                                                               \
                    c2[b] += y[b] * q;                                                               \
                }                                                                                    \
            }                                                                                        \
        if (surf)                                                                                    \
            for (int k = 0; k < NF; k++) {                                                           \
                const double px = fx[k], py = fy[k], pz = fz[k];                                     \
                const VT *l = (const VT *)(T->LIFTT + k * NPP + ib);                                 \
                for (int b = 0; b < NV; b++) {                                                       \
                    lx[b] += l[b] * px;                                                              \
                    ly[b] += l[b] * py;                                                              \
                    c1[b] += l[b] * pz;                                                              \
                }                                                                                    \
            }                                                                                        \
        const double rx = g[DG_G_RX], ry = g[DG_G_RY], sx = g[DG_G_SX], sy = g[DG_G_SY];             \
        for (int b = 0; b < NV; b++) {                                                               \
            *(VT *)(R[0] + ib + VL * b) = lx[b] - (ry * dr[b] + sy * ds[b]);                         \
            *(VT *)(R[1] + ib + VL * b) = ly[b] + (rx * dr[b] + sx * ds[b]);                         \
            *(VT *)(R[2] + ib + VL * b) = c1[b] + c2[b];                                             \
        }                                                                                            \
    }
MW_ROWS_DEF(mw_rows4, mw_v4, 4)
MW_ROWS_DEF(mw_rows2, mw_v2, 2)

/* Prefetches the neighbours' face values of element e (fm: its face map):
 * they are gathered, and a neighbour far away in the element order has left
 * the cache. */
MW_INLINE void mw_prefetch(const int N, const mw_tables *restrict T, const double *restrict Uall,
                           const int *restrict fm)
{
    const int Np = MW_NP(N), Nfp = N + 1;
    for (int f = 0; f < 3; f++) {
        if (fm[DG_M_BC + f] >= 0) continue;
        const double *P = Uall + (long long)fm[DG_M_NBR + f] * 3 * Np;
        const int *ex = T->Fmask[fm[DG_M_NLF + f]];
        for (int i = 0; i < Nfp; i++)
            for (int c = 0; c < 3; c++) __builtin_prefetch(P + c * Np + ex[i]);
    }
}

/* R = the right-hand side of element e (vol: volume part, surf: lifted
 * flux), R[f][i] for the padded node range, by vectors of VL doubles, NV of
 * them per pass over the operators (then the rest in one pass). */
MW_INLINE void mw_element(const int N, const int VL, const int NV, const int vol, const int surf,
                          const mw_tables *restrict T, const double *restrict Uall, long long e,
                          const double *restrict g, const int *restrict fm, double alpha,
                          double R[3][MW_NPPMAX])
{
    const int Np = MW_NP(N), NPP = MW_NPP(N);
    const double *restrict U = Uall + e * 3 * Np;
    const double rx = g[DG_G_RX], ry = g[DG_G_RY], sx = g[DG_G_SX], sy = g[DG_G_SY];
    double w1[MW_NPMAX], w2[MW_NPMAX];                 /* the curl's arguments */
    double fx[3 * MW_NFPMAX], fy[3 * MW_NFPMAX], fz[3 * MW_NFPMAX];
    if (vol)
        for (int j = 0; j < Np; j++) {
            w1[j] = rx * U[Np + j] - ry * U[j];
            w2[j] = sx * U[Np + j] - sy * U[j];
        }
    if (surf) mw_flux(N, T, Uall, U, g, fm, alpha, fx, fy, fz);
    const double *Ez = U + 2 * Np;
    int ib = 0;
    for (; ib + NV * VL <= NPP; ib += NV * VL)
        if (VL == 4) mw_rows4(N, NV, vol, surf, T, ib, Ez, w1, w2, fx, fy, fz, g, R);
        else mw_rows2(N, NV, vol, surf, T, ib, Ez, w1, w2, fx, fy, fz, g, R);
    if (ib < NPP) {                                    /* the rest in one pass */
        if (VL == 4) mw_rows4(N, (NPP - ib) / 4, vol, surf, T, ib, Ez, w1, w2, fx, fy, fz, g, R);
        else mw_rows2(N, (NPP - ib) / 2, vol, surf, T, ib, Ez, w1, w2, fx, fy, fz, g, R);
    }
}

/* The kernels' bodies: rhs = R (add: rhs += R) with R the volume and/or
 * surface part; the LSERK4 stage fused with R; the stage update alone. */
MW_INLINE void mw_rhs_body(const int N, const int VL, const int NV, const int vol, const int surf,
                           const int add, long long begin, long long end, const hdg_kargs *a)
{
    const int Np = MW_NP(N);
    const mw_tables *T = &mw_tab[N];
    const double alpha = a->params[MW_P_ALPHA];
    for (long long e = begin; e < end; e++) {
        _Alignas(64) double R[3][MW_NPPMAX];
        if (surf && MW_PFN(N) && e + MW_PF < end) mw_prefetch(N, T, a->in[0], a->imap[0] + (e + MW_PF) * DG_M_SETS);
        mw_element(N, VL, NV, vol, surf, T, a->in[0], e, a->geom + e * DG_G_SIZE, a->imap[0] + e * DG_M_SETS,
                   alpha, R);
        double *restrict rhs = a->out[0] + e * 3 * Np;
        for (int f = 0; f < 3; f++)
            for (int i = 0; i < Np; i++) rhs[f * Np + i] = add ? rhs[f * Np + i] + R[f][i] : R[f][i];
    }
}

MW_INLINE void mw_step_body(const int N, const int VL, const int NV, long long begin, long long end,
                            const hdg_kargs *a)
{
    const int Np = MW_NP(N);
    const mw_tables *T = &mw_tab[N];
    const double alpha = a->params[MW_P_ALPHA];
    const double ra = a->params[MW_P_RKA], rb = a->params[MW_P_RKB], dt = a->params[MW_P_DT];
    for (long long e = begin; e < end; e++) {
        _Alignas(64) double R[3][MW_NPPMAX];
        if (MW_PFN(N) && e + MW_PF < end) mw_prefetch(N, T, a->in[0], a->imap[0] + (e + MW_PF) * DG_M_SETS);
        mw_element(N, VL, NV, 1, 1, T, a->in[0], e, a->geom + e * DG_G_SIZE, a->imap[0] + e * DG_M_SETS,
                   alpha, R);
        const double *restrict U = a->in[0] + e * 3 * Np;
        double *restrict Unew = a->out[0] + e * 3 * Np, *restrict res = a->out[1] + e * 3 * Np;
        for (int f = 0; f < 3; f++)
            for (int i = 0; i < Np; i++) {
                const double r = ra * res[f * Np + i] + dt * R[f][i];
                res[f * Np + i] = r;
                Unew[f * Np + i] = U[f * Np + i] + rb * r;
            }
    }
}

MW_INLINE void mw_update_body(const int N, long long begin, long long end, const hdg_kargs *a)
{
    const int n = 3 * MW_NP(N);
    const double ra = a->params[MW_P_RKA], rb = a->params[MW_P_RKB], dt = a->params[MW_P_DT];
    for (long long e = begin; e < end; e++) {
        const double *restrict rhs = a->in[0] + e * n;
        double *restrict U = a->out[0] + e * n, *restrict res = a->out[1] + e * n;
        for (int i = 0; i < n; i++) {
            const double r = ra * res[i] + dt * rhs[i];
            res[i] = r;
            U[i] += rb * r;
        }
    }
}

/* Instances: the five kernels of order N for one instruction set (ATTR),
 * vectors of VL doubles, NV of them per pass. */
#define MW_KERNELS(N, ISA, ATTR, VL, NV)                                                          \
    ATTR static void mw_volume_##N##ISA(long long b, long long e, const hdg_kargs *a)             \
    { mw_rhs_body(N, VL, NV, 1, 0, 0, b, e, a); }                                                 \
    ATTR static void mw_surface_##N##ISA(long long b, long long e, const hdg_kargs *a)            \
    { mw_rhs_body(N, VL, NV, 0, 1, 1, b, e, a); }                                                 \
    ATTR static void mw_rhs_##N##ISA(long long b, long long e, const hdg_kargs *a)                \
    { mw_rhs_body(N, VL, NV, 1, 1, 0, b, e, a); }                                                 \
    ATTR static void mw_step_##N##ISA(long long b, long long e, const hdg_kargs *a)               \
    { mw_step_body(N, VL, NV, b, e, a); }                                                         \
    ATTR static void mw_update_##N##ISA(long long b, long long e, const hdg_kargs *a)             \
    { mw_update_body(N, b, e, a); }
#define MW_ROW(N, ISA) { mw_volume_##N##ISA, mw_surface_##N##ISA, mw_rhs_##N##ISA, mw_step_##N##ISA, \
                         mw_update_##N##ISA }
#define MW_ALL(ISA, ATTR, VL, NV)                                                            \
    MW_KERNELS(1, ISA, ATTR, VL, NV) MW_KERNELS(2, ISA, ATTR, VL, NV)                        \
    MW_KERNELS(3, ISA, ATTR, VL, NV) MW_KERNELS(4, ISA, ATTR, VL, NV)                        \
    MW_KERNELS(5, ISA, ATTR, VL, NV) MW_KERNELS(6, ISA, ATTR, VL, NV)                        \
    MW_KERNELS(7, ISA, ATTR, VL, NV) MW_KERNELS(8, ISA, ATTR, VL, NV)                        \
    static const hdg_kernel_fn mw_fns##ISA[MW_NMAX][5] = {                                   \
        MW_ROW(1, ISA), MW_ROW(2, ISA), MW_ROW(3, ISA), MW_ROW(4, ISA),                      \
        MW_ROW(5, ISA), MW_ROW(6, ISA), MW_ROW(7, ISA), MW_ROW(8, ISA)};

static const char *const mw_names[5] = {"maxwell2d_volume", "maxwell2d_surface", "maxwell2d_rhs",
                                         "maxwell2d_step", "maxwell2d_update"};

/* Vectors per pass: the 6 NV accumulators must fit the registers (16
 * xmm/ymm without AVX-512, 32 with it); 4-wide vectors with AVX2/AVX-512
 * (256-bit: the FMA rate of 512-bit on current x86), 2-wide with SSE2. */
#ifndef MW_NV_AVX512
#define MW_NV_AVX512 4
#endif
#ifndef MW_NV_AVX2
#define MW_NV_AVX2 2
#endif
#ifndef MW_NV_BASE
#define MW_NV_BASE 2
#endif
MW_ALL(_base, , 2, MW_NV_BASE)
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MW_X86 1
MW_ALL(_avx2, __attribute__((target("avx2,fma"))), 4, MW_NV_AVX2)
MW_ALL(_avx512, __attribute__((target("avx512f,avx512vl,avx2,fma"))), 4, MW_NV_AVX512)
#endif

/* The kernels for this CPU. */
static const hdg_kernel_fn (*mw_pick(void))[5]
{
#ifdef MW_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return mw_fns_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return mw_fns_avx2;
#endif
    return mw_fns_base;
}

/* The tables of order N from the reference element. */
static hdg_status mw_tables_init(int N, hdg_error *err)
{
    mw_tables *T = &mw_tab[N];
    if (T->ready) return HDG_OK;
    hdg_refel re;
    hdg_status st = hdg_refel_init(&re, 2, N, err);
    if (st) return st;
    const int Np = re.Np, Nfp = re.Nfp, NPP = MW_NPP(N);
    memset(T, 0, sizeof *T);
    for (int i = 0; i < Np; i++)
        for (int j = 0; j < Np; j++) {
            T->DrT[j * NPP + i] = re.Dr[i * Np + j];
            T->DsT[j * NPP + i] = re.Ds[i * Np + j];
        }
    for (int i = 0; i < Np; i++)
        for (int k = 0; k < 3 * Nfp; k++) T->LIFTT[k * NPP + i] = re.LIFT[i * 3 * Nfp + k];
    for (int f = 0; f < 3; f++)
        for (int i = 0; i < Nfp; i++) {
            T->Fmask[f][i] = re.Fmask[f * Nfp + i];
            T->FmaskRev[f][i] = re.Fmask[f * Nfp + Nfp - 1 - i];
        }
    hdg_refel_free(&re);
    T->ready = 1;
    return HDG_OK;
}

int hdg_hw_maxwell2d_c(int k, hdg_hw_kernel *out, hdg_error *err)
{
    if (k < 1 || k > MW_NMAX)
        return hdg_fail(err, HDG_EINPUT, "hand-written maxwell2d kernels cover orders 1..%d, not %d", MW_NMAX, k), -1;
    if (mw_tables_init(k, err)) return -1;
    const hdg_kernel_fn(*fns)[5] = mw_pick();
    for (int i = 0; i < 5; i++) out[i] = (hdg_hw_kernel){mw_names[i], fns[k - 1][i]};
    return 5;
}
