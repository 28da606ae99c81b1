/* poisson.cu — hand-written CUDA kernels for examples/poisson.hdg (HDG,
 * LDG-H flux), the way an expert would batch them on a GPU: one element per
 * thread block, the element's matrices in (dynamic) shared memory, the
 * threads of the block cooperating on assembly, elimination and products
 * (the batched style of Fabien, Kirby et al. / Roca et al.).
 *
 * backends/handwritten/poisson_cuda.c prints, in front of this body, the order
 * (K, NP Dubiner modes, NK Legendre modes, NF = 3 NK trace dofs, NB = NF + 1
 * right-hand sides, NPP post modes, NQ volume points, NT threads per block)
 * and the reference tables, built by the runtime with the lowering's rules
 * (ir/lower_hdg.c): T_Pr_P, T_Ps_P (NP x NP), TF_P_P [3][NP][NP],
 * TF_P_L [3][NP][NK], TF_L_L [NK][NK], vol_w/vol_lam/vol_P for the source;
 * and, precomputed once, the inverse mass matrix applied to the q-blocks:
 * MTr = Minv T_Pr_P, MTs = Minv T_Ps_P, MTFPL[f] = Minv TF_P_L[f].
 *
 * The local problem A [q.x q.y u] = B [uhat | 1] has the structure
 *     A = [ c M   0    Gx ]     c = J / kappa, M the modal mass matrix,
 *         [ 0    c M   Gy ]     Gx = -J (rx T_Pr_P + sx T_Ps_P), Gy likewise,
 *         [ Ex   Ey    Auu]     Ex = Gx + sum_f sJ nx TF_P_P[f], ...
 * so q is eliminated with M^-1 (tables) and only the Schur complement on u,
 *     S = Auu - (Ex Hx + Ey Hy) / c,  Hx = M^-1 Gx,
 * an NP x NP matrix (not 3NP x 3NP), is factored (LU, partial pivoting, the
 * right-hand sides eliminated along). C is B's transpose up to signs, so it
 * is never stored: K = D - C A^-1 B is formed face by face from the tables.
 *
 * Shared memory per block (doubles): 5 NP^2 + 3 NP NB (local; 111 KB at
 * k = 8), 5 NP^2 + 4 NP + NF (recover), NPP^2 + NPP (post). */

#define PI_ 3.141592653589793

/* geometric factors of the element (lower_hdg's geom layout) */
#define G_J 6
#define G_RX 7
#define G_RY 8
#define G_SX 9
#define G_SY 10
#define G_FACE 11   /* nx, ny, sJ per face */

/* The block's 20 geometric factors into shared memory. */
__device__ __forceinline__ void load_geom(const double *g, double *sg)
{
    if (threadIdx.x < 20) sg[threadIdx.x] = __ldg(g + threadIdx.x);
    __syncthreads();
}

/* Ex, Ey (u rows against q), Hx = M^-1 Gx, Hy and S = Auu - (Ex Hx + Ey Hy) / c. */
__device__ __forceinline__ void schur_operators(const double *sg, double kappa, double tau, double *Ex, double *Ey, double *Hx,
                                double *Hy, double *S)
{
    const double J = sg[G_J], rx = sg[G_RX], ry = sg[G_RY], sx = sg[G_SX], sy = sg[G_SY];
    for (int idx = threadIdx.x; idx < NP * NP; idx += NT) {
        const double tr = T_Pr_P[idx], ts = T_Ps_P[idx];
        double ex = -J * (rx * tr + sx * ts), ey = -J * (ry * tr + sy * ts), auu = 0;
        for (int f = 0; f < 3; f++) {
            const double w = TF_P_P[f * NP * NP + idx], sJ = sg[G_FACE + 3 * f + 2];
            ex += sJ * sg[G_FACE + 3 * f] * w;
            ey += sJ * sg[G_FACE + 3 * f + 1] * w;
            auu += tau * sJ * w;
        }
        Ex[idx] = ex, Ey[idx] = ey, S[idx] = auu;
        Hx[idx] = -J * (rx * MTr[idx] + sx * MTs[idx]);
        Hy[idx] = -J * (ry * MTr[idx] + sy * MTs[idx]);
    }
    __syncthreads();
    const double ic = kappa / J;
    for (int idx = threadIdx.x; idx < NP * NP; idx += NT) {
        const int i = idx / NP, j = idx % NP;
        double s = 0;
        for (int l = 0; l < NP; l++) s += Ex[i * NP + l] * Hx[l * NP + j] + Ey[i * NP + l] * Hy[l * NP + j];
        S[idx] -= ic * s;
    }
    __syncthreads();
}

/* The source column: src[i] = int f w_i = sum_q w_q J f(x_q) P_i(x_q), with
 * f = 2 pi^2 kappa sin(pi x) sin(pi y); fq: NQ doubles of scratch. */
__device__ __forceinline__ void source(const double *sg, double kappa, double *fq, double *src)
{
    const double J = sg[G_J];
    for (int q = threadIdx.x; q < NQ; q += NT) {
        const double l0 = vol_lam[3 * q], l1 = vol_lam[3 * q + 1], l2 = vol_lam[3 * q + 2];
        const double x = l0 * sg[0] + l1 * sg[2] + l2 * sg[4], y = l0 * sg[1] + l1 * sg[3] + l2 * sg[5];
        fq[q] = vol_w[q] * J * (2 * PI_ * PI_ * kappa * sin(PI_ * x) * sin(PI_ * y));
    }
    __syncthreads();
    for (int i = threadIdx.x; i < NP; i += NT) {
        double s = 0;
        for (int q = 0; q < NQ; q++) s += fq[q] * vol_P[q * NP + i];
        src[i] = s;
    }
    __syncthreads();
}

/* Solves S X = R in place (R: n x nc, row-major, X overwrites R) by LU with
 * partial pivoting (first largest |pivot|, found by thread 0), the
 * right-hand sides eliminated along; then a column-parallel back
 * substitution. S (n x n) is destroyed. *sp: one shared int. */
__device__ __forceinline__ void lu_solve(double *S, double *R, int n, int nc, int *sp)
{
    for (int p = 0; p < n; p++) {
        if (threadIdx.x == 0) {
            int best = p;
            double bv = fabs(S[p * n + p]);
            for (int i = p + 1; i < n; i++)
                if (fabs(S[i * n + p]) > bv) bv = fabs(S[i * n + p]), best = i;
            *sp = best;
        }
        __syncthreads();
        const int pr = *sp;
        if (pr != p) {
            for (int j = threadIdx.x; j < n + nc; j += NT) {
                double *a = j < n ? S + p * n + j : R + p * nc + (j - n);
                double *b = j < n ? S + pr * n + j : R + pr * nc + (j - n);
                const double t = *a;
                *a = *b, *b = t;
            }
            __syncthreads();
        }
        const double ip = 1.0 / S[p * n + p];
        const int rows = n - p - 1, w = n - p - 1 + nc;
        for (int idx = threadIdx.x; idx < rows * w; idx += NT) {
            const int i = p + 1 + idx / w, j = idx % w;
            const double l = S[i * n + p] * ip;
            if (j < n - p - 1) S[i * n + p + 1 + j] -= l * S[p * n + p + 1 + j];
            else R[i * nc + (j - (n - p - 1))] -= l * R[p * nc + (j - (n - p - 1))];
        }
        __syncthreads();
    }
    for (int p = n - 1; p >= 0; p--) {
        for (int c = threadIdx.x; c < nc; c += NT) R[p * nc + c] /= S[p * n + p];
        __syncthreads();
        for (int idx = threadIdx.x; idx < p * nc; idx += NT) {
            const int i = idx / nc, c = idx % nc;
            R[idx] -= S[i * n + p] * R[p * nc + c];
        }
        __syncthreads();
    }
}

/* K_e = D - C A^-1 B and F_e (the last column), per element. */
extern "C" __global__ void __launch_bounds__(NT) poisson_local(long long begin, long long end, hdg_kargs a,
                                                                 double *scratch)
{
    extern __shared__ double smem[];
    double *Ex = smem, *Ey = Ex + NP * NP, *Hx = Ey + NP * NP, *Hy = Hx + NP * NP, *S = Hy + NP * NP;
    double *Zx = S + NP * NP, *Zy = Zx + NP * NB, *R = Zy + NP * NB;
    __shared__ double sg[20], fq[NQ], src[NP];
    __shared__ int sp;
    const double kappa = a.params[0], tau = a.params[1];
    (void)scratch;
    for (long long e = begin + blockIdx.x; e < end; e += gridDim.x) {
        load_geom(a.geom + e * 20, sg);
        schur_operators(sg, kappa, tau, Ex, Ey, Hx, Hy, S);
        source(sg, kappa, fq, src);
        const double J = sg[G_J], ic = kappa / J;
        /* M^-1 B_q (from the tables) and B_u, every right-hand side column */
        for (int idx = threadIdx.x; idx < NP * NB; idx += NT) {
            const int i = idx / NB, m = idx % NB;
            double zx = 0, zy = 0, bu = src[i];
            if (m < NF) {
                const int f = m / NK, mm = m % NK;
                const double sJ = sg[G_FACE + 3 * f + 2], t = MTFPL[(f * NP + i) * NK + mm];
                zx = sJ * sg[G_FACE + 3 * f] * t;
                zy = sJ * sg[G_FACE + 3 * f + 1] * t;
                bu = -tau * sJ * TF_P_L[(f * NP + i) * NK + mm];
            }
            Zx[idx] = zx, Zy[idx] = zy, R[idx] = bu;
        }
        __syncthreads();
        /* R = B_u - (Ex M^-1 B_x + Ey M^-1 B_y) / c */
        for (int idx = threadIdx.x; idx < NP * NB; idx += NT) {
            const int i = idx / NB, m = idx % NB;
            double s = 0;
            for (int l = 0; l < NP; l++) s += Ex[i * NP + l] * Zx[l * NB + m] + Ey[i * NP + l] * Zy[l * NB + m];
            R[idx] -= ic * s;
        }
        __syncthreads();
        lu_solve(S, R, NP, NB, &sp);                      /* R = W_u */
        /* W_q = (M^-1 B_q - H W_u) / c, in place of Z */
        for (int idx = threadIdx.x; idx < NP * NB; idx += NT) {
            const int i = idx / NB, m = idx % NB;
            double sx = 0, sy = 0;
            for (int l = 0; l < NP; l++) {
                const double wu = R[l * NB + m];
                sx += Hx[i * NP + l] * wu, sy += Hy[i * NP + l] * wu;
            }
            Zx[idx] = ic * (Zx[idx] - sx);
            Zy[idx] = ic * (Zy[idx] - sy);
        }
        __syncthreads();
        /* K = D - C W, C of face f: sJ TF_P_L[f]^T (nx, ny, tau) */
        double *Ke = a.out[0] + e * (NF * NF), *Fe = a.out[1] + e * NF;
        for (int idx = threadIdx.x; idx < NF * NB; idx += NT) {
            const int fi = idx / NB, m = idx % NB, f = fi / NK, ii = fi % NK;
            const double nx = sg[G_FACE + 3 * f], ny = sg[G_FACE + 3 * f + 1], sJ = sg[G_FACE + 3 * f + 2];
            double s = 0;
            for (int j = 0; j < NP; j++)
                s += TF_P_L[(f * NP + j) * NK + ii] * (nx * Zx[j * NB + m] + ny * Zy[j * NB + m] + tau * R[j * NB + m]);
            double d = m < NF && m / NK == f ? -tau * sJ * TF_L_L[ii * NK + m % NK] : 0;
            d -= sJ * s;
            if (m < NF) Ke[fi * NF + m] = d;
            else Fe[fi] = d;
        }
        __syncthreads();
    }
}

/* x = A^-1 (F - B uhat): q.x, q.y, u modes of the element. */
extern "C" __global__ void __launch_bounds__(NT) poisson_recover(long long begin, long long end, hdg_kargs a,
                                                                   double *scratch)
{
    extern __shared__ double smem[];
    double *Ex = smem, *Ey = Ex + NP * NP, *Hx = Ey + NP * NP, *Hy = Hx + NP * NP, *S = Hy + NP * NP;
    double *zx = S + NP * NP, *zy = zx + NP, *r = zy + NP, *src = r + NP, *uh = src + NP;
    __shared__ double sg[20], fq[NQ];
    __shared__ int sp;
    const double kappa = a.params[0], tau = a.params[1];
    (void)scratch;
    for (long long e = begin + blockIdx.x; e < end; e += gridDim.x) {
        for (int m = threadIdx.x; m < NF; m += NT) uh[m] = __ldg(a.in[0] + e * NF + m);
        load_geom(a.geom + e * 20, sg);
        schur_operators(sg, kappa, tau, Ex, Ey, Hx, Hy, S);
        source(sg, kappa, fq, src);
        const double J = sg[G_J], ic = kappa / J;
        for (int i = threadIdx.x; i < NP; i += NT) {
            double bx = 0, by = 0, bu = 0;
            for (int m = 0; m < NF; m++) {
                const int f = m / NK, mm = m % NK;
                const double su = sg[G_FACE + 3 * f + 2] * uh[m];
                const double t = MTFPL[(f * NP + i) * NK + mm];
                bx += sg[G_FACE + 3 * f] * su * t;
                by += sg[G_FACE + 3 * f + 1] * su * t;
                bu += su * TF_P_L[(f * NP + i) * NK + mm];
            }
            zx[i] = -bx, zy[i] = -by, r[i] = src[i] + tau * bu;
        }
        __syncthreads();
        for (int i = threadIdx.x; i < NP; i += NT) {
            double s = 0;
            for (int l = 0; l < NP; l++) s += Ex[i * NP + l] * zx[l] + Ey[i * NP + l] * zy[l];
            r[i] -= ic * s;
        }
        __syncthreads();
        lu_solve(S, r, NP, 1, &sp);
        double *x = a.out[0] + e * (3 * NP);
        for (int i = threadIdx.x; i < NP; i += NT) {
            double sx = 0, sy = 0;
            for (int l = 0; l < NP; l++) sx += Hx[i * NP + l] * r[l], sy += Hy[i * NP + l] * r[l];
            x[i] = ic * (zx[i] - sx);
            x[NP + i] = ic * (zy[i] - sy);
            x[2 * NP + i] = r[i];
        }
        __syncthreads();
    }
}

/* u* of degree K+1: (grad u*, grad w) = -(q / kappa, grad w), mean u* = mean u
 * (mode 0 of an orthonormal basis), by LU in shared memory. */
extern "C" __global__ void __launch_bounds__(NT) poisson_post(long long begin, long long end, hdg_kargs a,
                                                                double *scratch)
{
    extern __shared__ double smem[];
    double *A = smem, *r = A + NPP * NPP;
    __shared__ double sg[20], sx_[3 * NP];
    __shared__ int sp;
    const double kappa = a.params[0];
    (void)scratch;
    for (long long e = begin + blockIdx.x; e < end; e += gridDim.x) {
        for (int m = threadIdx.x; m < 3 * NP; m += NT) sx_[m] = __ldg(a.in[0] + e * (3 * NP) + m);
        load_geom(a.geom + e * 20, sg);
        const double J = sg[G_J], rx = sg[G_RX], ry = sg[G_RY], sx = sg[G_SX], sy = sg[G_SY];
        for (int idx = threadIdx.x; idx < NPP * NPP; idx += NT) {
            const double grr = rx * rx + ry * ry, grs = rx * sx + ry * sy, gss = sx * sx + sy * sy;
            A[idx] = idx < NPP ? (idx == 0) : J * (grr * TP_Pr_Pr[idx] + grs * (TP_Pr_Ps[idx] + TP_Ps_Pr[idx]) + gss * TP_Ps_Ps[idx]);
        }
        const double c = J / kappa;
        for (int i = threadIdx.x; i < NPP; i += NT) {
            double vx = 0, vy = 0;
            for (int j = 0; j < NP; j++) {
                vx += (rx * TPK_Pr_P[i * NP + j] + sx * TPK_Ps_P[i * NP + j]) * sx_[j];
                vy += (ry * TPK_Pr_P[i * NP + j] + sy * TPK_Ps_P[i * NP + j]) * sx_[NP + j];
            }
            r[i] = i == 0 ? sx_[2 * NP] : -c * vx - c * vy;
        }
        __syncthreads();
        lu_solve(A, r, NPP, 1, &sp);
        for (int i = threadIdx.x; i < NPP; i += NT) a.out[0][e * NPP + i] = r[i];
        __syncthreads();
    }
}
