/* cuda_trace.c — the HDG trace system on the device (see cuda_trace.h): the
 * kernels are the text below, one thread per trace row t = l*HDG_M + p (or
 * per element, element dof); each mirrors its host routine in blockmat.c,
 * for triangles and tetrahedra alike (HDG_NFE faces an element, the
 * orientation maps as diagonals or dense). */
#include "runtime/cuda/cuda_trace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/solve/blockmat.h"

static const char kernels[] =
    "\n/* ---- HDG trace system (runtime/cuda/cuda_trace.c) ---- */\n"
    "\n"
    "#define HDG_NFE ((HDG_NA + 1) / 2)   /* faces per element: 3 (triangles, na 5) or 4 (tetrahedra, na 7) */\n"
    "\n"
    "/* out[3e..3e+2] = trace, max |K|, max |K - K^T| of element matrix e (nt x nt) */\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_kstats(int ne, int nt, const double *__restrict__ K,\n"
    "                                                                     double *__restrict__ out)\n"
    "{\n"
    "    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (e >= ne) return;\n"
    "    const double *__restrict__ Ke = K + e * nt * nt;\n"
    "    double diag = 0.0, amax = 0.0, asym = 0.0, nonfinite = 0.0; /* NaN when an entry is NaN/Inf */\n"
    "    for (int i = 0; i < nt; i++) {\n"
    "        diag += Ke[i * nt + i];\n"
    "        for (int j = 0; j < nt; j++) {\n"
    "            nonfinite += 0.0 * Ke[i * nt + j];\n"
    "            amax = fmax(amax, fabs(Ke[i * nt + j]));\n"
    "            asym = fmax(asym, fabs(Ke[i * nt + j] - Ke[j * nt + i]));\n"
    "        }\n"
    "    }\n"
    "    out[3 * e] = diag + nonfinite, out[3 * e + 1] = amax, out[3 * e + 2] = asym;\n"
    "}\n"
    "\n"
    "/* The map of element e's local face j (orientation o = eforient[e*NFE + j]): NULL for\n"
    " * o = 0 (the identity), else S + o*M (a diagonal) or S + o*M*M (dense, row-major). */\n"
    "static __device__ __forceinline__ const double *hdg_rt_map(const double *__restrict__ S, int dense, int o)\n"
    "{\n"
    "    return o ? S + (long long)o * HDG_M * (dense ? HDG_M : 1) : (const double *)0;\n"
    "}\n"
    "\n"
    "/* Row t of the trace system: A[(a*M + q)*rows + t] = sum over the (one or two)\n"
    " * elements of face l of (S_j^T Ke[j, i] S_i)[p][q], rhs[t] = (S_j^T Fe[j])[p]\n"
    " * (hdg_blockmat_assemble_maps: the diagonal maps in the same arithmetic; dense\n"
    " * ones as (S_j^T K) S_i, the host's products in another order). */\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_assemble(int nf, const double *__restrict__ Ke,\n"
    "        const double *__restrict__ Fe, const int *__restrict__ fe, const int *__restrict__ flf,\n"
    "        const int *__restrict__ eforient, const double *__restrict__ S, int dense, const int *__restrict__ slot,\n"
    "        double *__restrict__ A, double *__restrict__ rhs)\n"
    "{\n"
    "    const long long rows = (long long)nf * HDG_M;\n"
    "    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= rows) return;\n"
    "    const int l = (int)(t / HDG_M), p = (int)(t % HDG_M), ld = HDG_NFE * HDG_M;\n"
    "    for (int a = 0; a < HDG_NA; a++)\n"
    "        for (int q = 0; q < HDG_M; q++) A[((long long)a * HDG_M + q) * rows + t] = 0.0;\n"
    "    double r = 0.0, w[HDG_M];\n"
    "    for (int k = 0; k < 2; k++) {\n"
    "        const int e = fe[2 * l + k], j = flf[2 * l + k];\n"
    "        if (e < 0) continue;\n"
    "        const double *__restrict__ sj = hdg_rt_map(S, dense, eforient[HDG_NFE * e + j]);\n"
    "        const double *__restrict__ Kj = Ke + (long long)e * ld * ld + (long long)j * HDG_M * ld;\n"
    "        const double *__restrict__ Fj = Fe ? Fe + (long long)e * ld + j * HDG_M : (const double *)0;\n"
    "        for (int i = 0; i < HDG_NFE; i++) {\n"
    "            const int a = slot[(l * 2 + k) * HDG_NFE + i];\n"
    "            const double *__restrict__ si = hdg_rt_map(S, dense, eforient[HDG_NFE * e + i]);\n"
    "            double *__restrict__ Ar = A + (long long)a * HDG_M * rows + t;\n"
    "            if (!dense) {\n"
    "                const double sp = sj ? sj[p] : 1.0;\n"
    "                for (int q = 0; q < HDG_M; q++)\n"
    "                    Ar[q * rows] += sp * Kj[(long long)p * ld + i * HDG_M + q] * (si ? si[q] : 1.0);\n"
    "                continue;\n"
    "            }\n"
    "            for (int c = 0; c < HDG_M; c++) {   /* w = row p of S_j^T Ke[j, i] */\n"
    "                double v = 0.0;\n"
    "                if (!sj) v = Kj[(long long)p * ld + i * HDG_M + c];\n"
    "                else\n"
    "                    for (int s = 0; s < HDG_M; s++) v += sj[s * HDG_M + p] * Kj[(long long)s * ld + i * HDG_M + c];\n"
    "                w[c] = v;\n"
    "            }\n"
    "            for (int q = 0; q < HDG_M; q++) {   /* (w S_i)[q] */\n"
    "                double v = 0.0;\n"
    "                if (!si) v = w[q];\n"
    "                else\n"
    "                    for (int c = 0; c < HDG_M; c++) v += w[c] * si[c * HDG_M + q];\n"
    "                Ar[q * rows] += v;\n"
    "            }\n"
    "        }\n"
    "        if (!Fj) continue;\n"
    "        if (!dense || !sj) r += (sj ? sj[p] : 1.0) * Fj[p];\n"
    "        else {\n"
    "            double v = 0.0;\n"
    "            for (int s = 0; s < HDG_M; s++) v += sj[s * HDG_M + p] * Fj[s];\n"
    "            r += v;\n"
    "        }\n"
    "    }\n"
    "    if (rhs) rhs[t] = r;\n"
    "}\n"
    "\n"
    "/* Symmetric Dirichlet elimination of row t (hdg_blockmat_apply_dirichlet_dofs): dof t is\n"
    "   Dirichlet when dofd[t] (a face may be Dirichlet for some of its dofs only). */\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_dirichlet(int nf, double *__restrict__ A,\n"
    "        const int *__restrict__ nbr, const unsigned char *__restrict__ dofd, const double *__restrict__ xD,\n"
    "        double *__restrict__ rhs, double dg)\n"
    "{\n"
    "    const long long rows = (long long)nf * HDG_M;\n"
    "    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= rows) return;\n"
    "    const int l = (int)(t / HDG_M), p = (int)(t % HDG_M);\n"
    "    if (dofd[t]) {\n"
    "        for (int a = 0; a < HDG_NA; a++)\n"
    "            for (int q = 0; q < HDG_M; q++) A[((long long)a * HDG_M + q) * rows + t] = a == 0 && q == p ? dg : 0.0;\n"
    "        rhs[t] = dg * xD[t];\n"
    "        return;\n"
    "    }\n"
    "    double r = rhs[t];\n"
    "    for (int a = 0; a < HDG_NA; a++) {\n"
    "        const int g = nbr[(long long)l * HDG_NA + a];\n"
    "        if (g < 0) continue;\n"
    "        double s = 0.0;\n"
    "        for (int q = 0; q < HDG_M; q++) {\n"
    "            if (!dofd[(long long)g * HDG_M + q]) continue;\n"
    "            double *v = A + ((long long)a * HDG_M + q) * rows + t;\n"
    "            s += *v * xD[(long long)g * HDG_M + q];\n"
    "            *v = 0.0;\n"
    "        }\n"
    "        r -= s;\n"
    "    }\n"
    "    rhs[t] = r;\n"
    "}\n"
    "\n"
    "/* out[(e*NFE + j)*M + i] = (S_j x[ef[e*NFE + j]])[i] (hdg_blockmat_scatter_maps) */\n"
    "extern \"C\" __global__ void __launch_bounds__(HDG_BLOCK) hdg_rt_scatter(int ne, const int *__restrict__ ef,\n"
    "        const int *__restrict__ eforient, const double *__restrict__ S, int dense, const double *__restrict__ x,\n"
    "        double *__restrict__ out)\n"
    "{\n"
    "    const long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (u >= (long long)ne * HDG_NFE * HDG_M) return;\n"
    "    const long long ej = u / HDG_M;\n"
    "    const int i = (int)(u % HDG_M);\n"
    "    const double *__restrict__ xf = x + (long long)ef[ej] * HDG_M;\n"
    "    const double *__restrict__ s = hdg_rt_map(S, dense, eforient[ej]);\n"
    "    if (!s) { out[u] = xf[i]; return; }\n"
    "    if (!dense) { out[u] = s[i] * xf[i]; return; }\n"
    "    double v = 0.0;\n"
    "    for (int r = 0; r < HDG_M; r++) v += s[i * HDG_M + r] * xf[r];\n"
    "    out[u] = v;\n"
    "}\n";

void hdg_cuda_trace_source(hdg_str *out) { hdg_str_puts(out, kernels); }

/* ---------------------------------------------------------------- topology */

static hdg_status upload_ints(hdg_cuda_linalg *L, const int *h, size_t n, hdg_cuptr *d, hdg_error *err)
{
    hdg_status st = hdg_cuda_alloc(L->dev, sizeof(int) * (n ? n : 1), d, err);
    if (!st && n) st = hdg_cuda_upload(L->dev, *d, h, sizeof(int) * n, err);
    return st;
}

hdg_status hdg_cuda_topology_upload(hdg_cuda_linalg *L, int ne, int nf, const int *ef, const int *eforient,
                                    const int *fe, const int *flf, const int *nbr, const hdg_face_maps *S,
                                    hdg_cuda_topology *T, hdg_error *err)
{
    memset(T, 0, sizeof *T);
    int nfe = S->nfe;
    if (S->m != L->m || 2 * nfe - 1 != L->na)
        return hdg_fail(err, HDG_EINTERNAL, "device trace module for %d dofs a face and %d blocks a row, given "
                        "maps of %d dofs and %d faces an element", L->m, L->na, S->m, nfe);
    T->L = L, T->ne = ne, T->nf = nf, T->nfe = nfe;
    T->dense = S->diag ? 0 : 1;
    size_t nmap = (size_t)S->norient * S->m * (T->dense ? S->m : 1);
    int *slot = hdg_xmalloc(sizeof(int) * ((size_t)nf * 2 * nfe + 1));
    int *orient = eforient ? NULL : hdg_xcalloc((size_t)ne * nfe + 1, sizeof(int));
    hdg_status st = hdg_blockmat_slots_n(nfe, nf, L->na, nbr, ef, fe, flf, slot, err);
    if (!st) st = upload_ints(L, ef, (size_t)ne * nfe, &T->ef, err);
    if (!st) st = upload_ints(L, eforient ? eforient : orient, (size_t)ne * nfe, &T->eforient, err);
    if (!st) st = upload_ints(L, fe, (size_t)nf * 2, &T->fe, err);
    if (!st) st = upload_ints(L, flf, (size_t)nf * 2, &T->flf, err);
    if (!st) st = upload_ints(L, slot, (size_t)nf * 2 * nfe, &T->slot, err);
    if (!st) st = hdg_cuda_vec_upload(L, T->dense ? S->S : S->diag, (long long)nmap, &T->maps, err);
    free(slot);
    free(orient);
    if (st) hdg_cuda_topology_free(T);
    return st;
}

void hdg_cuda_topology_free(hdg_cuda_topology *T)
{
    if (!T || !T->L) return;
    hdg_cuptr *p[] = { &T->ef, &T->eforient, &T->fe, &T->flf, &T->slot, &T->maps };
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) hdg_cuda_free(T->L->dev, *p[i]);
    memset(T, 0, sizeof *T);
}

/* ------------------------------------------------------------------ stages */

hdg_status hdg_cuda_element_stats(hdg_cuda_linalg *L, int ne, int nt, hdg_cuptr Ke, hdg_cuptr out,
                                  hdg_error *err)
{
    void *p[] = { &ne, &nt, &Ke, &out };
    return hdg_cuda_linalg_launch(L, L->kstats, "hdg_rt_kstats", ne, p, err);
}

hdg_status hdg_cuda_blockmat_alloc(hdg_cuda_linalg *L, int nf, const int *nbr, hdg_cuda_blockmat *dB,
                                   hdg_error *err)
{
    memset(dB, 0, sizeof *dB);
    dB->L = L, dB->nf = nf, dB->m = L->m, dB->na = L->na;
    size_t nblk = (size_t)nf * L->na;
    hdg_status st = hdg_cuda_alloc(L->dev, sizeof(double) * nblk * L->m * L->m, &dB->A, err);
    if (!st) st = upload_ints(L, nbr, nblk, &dB->nbr, err);
    if (st) hdg_cuda_blockmat_free(dB);
    return st;
}

hdg_status hdg_cuda_trace_assemble(const hdg_cuda_topology *T, hdg_cuptr Ke, hdg_cuptr Fe,
                                   hdg_cuda_blockmat *dB, hdg_cuptr rhs, hdg_error *err)
{
    hdg_cuda_linalg *L = T->L;
    int nf = T->nf;
    int dense = T->dense;
    hdg_cuptr fe = T->fe, flf = T->flf, orient = T->eforient, maps = T->maps, slot = T->slot, A = dB->A;
    void *p[] = { &nf, &Ke, &Fe, &fe, &flf, &orient, &maps, &dense, &slot, &A, &rhs };
    return hdg_cuda_linalg_launch(L, L->assemble, "hdg_rt_assemble", (long long)nf * L->m, p, err);
}

hdg_status hdg_cuda_trace_dirichlet(hdg_cuda_blockmat *dB, hdg_cuptr dofd, hdg_cuptr xD, hdg_cuptr rhs,
                                    double diag, hdg_error *err)
{
    hdg_cuda_linalg *L = dB->L;
    int nf = dB->nf;
    hdg_cuptr A = dB->A, nbr = dB->nbr;
    void *p[] = { &nf, &A, &nbr, &dofd, &xD, &rhs, &diag };
    return hdg_cuda_linalg_launch(L, L->dirichlet, "hdg_rt_dirichlet", (long long)nf * L->m, p, err);
}

hdg_status hdg_cuda_trace_scatter(const hdg_cuda_topology *T, hdg_cuptr x, hdg_cuptr out, hdg_error *err)
{
    hdg_cuda_linalg *L = T->L;
    int ne = T->ne, dense = T->dense;
    hdg_cuptr ef = T->ef, orient = T->eforient, maps = T->maps;
    void *p[] = { &ne, &ef, &orient, &maps, &dense, &x, &out };
    return hdg_cuda_linalg_launch(L, L->scatter, "hdg_rt_scatter", (long long)ne * T->nfe * L->m, p, err);
}
