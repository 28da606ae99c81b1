/* maxwell2d.cu — hand-written CUDA kernels for examples/maxwell2d.hdg (nodal
 * DG, Maxwell TM, upwind flux with alpha, PEC walls), in the style of
 * Klöckner, Warburton, Bridge & Hesthaven, "Nodal discontinuous Galerkin
 * methods on graphics processors" (2009): a thread per node, EPB elements
 * per thread block (so a block holds whole warps' worth of nodes), the
 * block's fields staged in shared memory with coalesced loads, the
 * derivative and lift matrices read transposed (DrT[m][n]: consecutive
 * threads read consecutive entries), the face fluxes computed once per face
 * node into shared memory and lifted by every node of the element.
 *
 * backends/handwritten/maxwell2d_cuda.c prints in front of this body: N, NP
 * nodes, NFP nodes per face, EPB, NT = EPB NP threads, FMAP_STRIDE (the
 * face map's ints per element), P_RKA/P_RKB/P_DT (the parameter indices of
 * the LSERK4 stage values) and the tables DrT, DsT (NP x NP), LIFTT
 * (3 NFP x NP) and Fmask (3 x NFP), all from runtime/fem/refel.h.
 *
 * Data layout (ir/lower_dg.h): U[e][field][node] with fields Hx, Hy, Ez;
 * geom per element: vertices, J, rx ry sx sy, then nx ny Fscale per face;
 * face map: neighbour per face, its local face, bc (-1 interior). */

#define G_RX 7
#define G_RY 8
#define G_SX 9
#define G_SY 10
#define G_FACE 11
#define NF3 (3 * NFP)

/* One LSERK4 stage (step = 1: res = a res + dt rhs, Unew = U + b res) or the
 * right-hand side alone (step = 0: out[0] = rhs). */
__device__ __forceinline__ void maxwell_stage(long long begin, long long end, const hdg_kargs &a, const int step)
{
    __shared__ double sU[EPB * 3 * NP];
    __shared__ double sF[EPB * 3 * NF3];
    const int le = threadIdx.x / NP, n = threadIdx.x % NP;
    const double alpha = a.params[0];
    for (long long e0 = begin + (long long)blockIdx.x * EPB; e0 < end; e0 += (long long)gridDim.x * EPB) {
        const long long ne = end - e0 < EPB ? end - e0 : EPB;
        const long long e = e0 + le;
        const bool live = le < ne;
        /* coalesced load of the block's elements */
        const double *Ug = a.in[0] + e0 * (3 * NP);
        for (int i = threadIdx.x; i < ne * 3 * NP; i += NT) sU[i] = __ldg(Ug + i);
        __syncthreads();
        const double *u = sU + le * 3 * NP;
        double rHx = 0, rHy = 0, rEz = 0;
        if (live) {
            const double *g = a.geom + e * 20;
            const double rx = __ldg(g + G_RX), ry = __ldg(g + G_RY), sx = __ldg(g + G_SX), sy = __ldg(g + G_SY);
            /* volume: reference derivatives at node n */
            double hxr = 0, hxs = 0, hyr = 0, hys = 0, ezr = 0, ezs = 0;
            for (int m = 0; m < NP; m++) {
                const double dr = DrT[m * NP + n], ds = DsT[m * NP + n];
                const double hx = u[m], hy = u[NP + m], ez = u[2 * NP + m];
                hxr += dr * hx, hxs += ds * hx;
                hyr += dr * hy, hys += ds * hy;
                ezr += dr * ez, ezs += ds * ez;
            }
            rHx = -(ry * ezr + sy * ezs);
            rHy = rx * ezr + sx * ezs;
            rEz = rx * hyr + sx * hys - (ry * hxr + sy * hxs);
            /* surface: the fluxes at this element's face nodes */
            const int *fmap = a.imap[0] + e * FMAP_STRIDE;
            for (int fp = n; fp < NF3; fp += NP) {
                const int f = fp / NFP, i = fp % NFP, node = Fmask[fp];
                const double nx = __ldg(g + G_FACE + 3 * f), ny = __ldg(g + G_FACE + 3 * f + 1);
                const double fs = __ldg(g + G_FACE + 3 * f + 2);
                const double hx = u[node], hy = u[NP + node], ez = u[2 * NP + node];
                double dHx = 0, dHy = 0, dEz = 2 * ez;          /* PEC: ext = (Hx, Hy, -Ez) */
                if (__ldg(fmap + 6 + f) < 0) {                  /* interior face */
                    const long long nb = __ldg(fmap + f);
                    const int nlf = __ldg(fmap + 3 + f);
                    const double *un = a.in[0] + nb * (3 * NP);
                    const int en = Fmask[nlf * NFP + NFP - 1 - i];
                    dHx = hx - __ldg(un + en), dHy = hy - __ldg(un + NP + en), dEz = ez - __ldg(un + 2 * NP + en);
                }
                const double ndH = nx * dHx + ny * dHy;
                double *F = sF + le * 3 * NF3;
                F[fp] = fs * 0.5 * (ny * dEz + alpha * (nx * ndH - dHx));
                F[NF3 + fp] = fs * 0.5 * (-nx * dEz + alpha * (ny * ndH - dHy));
                F[2 * NF3 + fp] = fs * 0.5 * (ny * dHx - nx * dHy - alpha * dEz);
            }
        }
        __syncthreads();
        if (live) {
            /* lift */
            const double *F = sF + le * 3 * NF3;
            for (int fp = 0; fp < NF3; fp++) {
                const double l = LIFTT[fp * NP + n];
                rHx += l * F[fp], rHy += l * F[NF3 + fp], rEz += l * F[2 * NF3 + fp];
            }
            const long long o = e * (3 * NP) + n;
            if (step) {
                const double ra = a.params[P_RKA], rb = a.params[P_RKB], dt = a.params[P_DT];
                double *res = a.out[1], *Un = a.out[0];
                const double r0 = ra * res[o] + dt * rHx, r1 = ra * res[o + NP] + dt * rHy;
                const double r2 = ra * res[o + 2 * NP] + dt * rEz;
                res[o] = r0, res[o + NP] = r1, res[o + 2 * NP] = r2;
                Un[o] = u[n] + rb * r0, Un[o + NP] = u[NP + n] + rb * r1, Un[o + 2 * NP] = u[2 * NP + n] + rb * r2;
            } else {
                double *R = a.out[0];
                R[o] = rHx, R[o + NP] = rHy, R[o + 2 * NP] = rEz;
            }
        }
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(NT) maxwell2d_rhs(long long begin, long long end, hdg_kargs a,
                                                                 double *scratch)
{
    (void)scratch;
    maxwell_stage(begin, end, a, 0);
}

extern "C" __global__ void __launch_bounds__(NT) maxwell2d_step(long long begin, long long end, hdg_kargs a,
                                                                  double *scratch)
{
    (void)scratch;
    maxwell_stage(begin, end, a, 1);
}
