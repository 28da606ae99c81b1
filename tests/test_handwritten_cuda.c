/* test_handwritten_cuda.c — the hand-written CUDA kernels (backends/handwritten:
 * poisson.cu, maxwell2d.cu) against the generated ones (issue 14):
 *   - on the device (the emulator with HDGC_LIBCUDA=emulator): for each order,
 *     the generated module is compiled and its kernels run on a perturbed
 *     square:4 mesh with deterministic random inputs (uhat, x, U, res), then
 *     hdg_hw_cuda_overlay puts the hand-written kernels in place and the same
 *     launches run again; every output must agree to
 *     max |hw - gen| / max |gen| <= 1e-12;
 *   - without a device: the overlay's compile-only path builds the
 *     hand-written source with NVRTC for sm_90 (ptxas statistics printed).
 * usage: test_handwritten_cuda [k...]   (default 1 2 3 8)
 * Exit 77 when there is no device and no NVRTC. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/handwritten/handwritten.h"
#include "drivers/mesh_data.h"
#include "compiler/module.h"
#include "compiler/pipeline_cuda.h"
#include "drivers/run_dg_common.h"
#include "ir/lower.h"
#include "support/util.h"
#include "test.h"
#include "test_device.h"

#define TOL 1e-12
#define MESH "square:4,perturb=0.15"

static unsigned long long rng = 88172645463325252ULL;
static double rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

/* The host data of one problem at one order: the module and what its kernels read. */
typedef struct data {
    hdg_ir_module *mod;       /* owned unless dg */
    long long ne;
    int ngeom, nimap;
    double *geom, *params;
    int *imap;
    hdg_dg_data dg;           /* maxwell2d */
    hdg_lowered L;            /* poisson */
    hdg_mesh mesh;
    hdg_problem *p;
} data;

static hdg_problem *load(const char *example, int k)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.hdg", HDG_EXAMPLES, example);
    hdg_frontend_options fo = {k, NULL, 0};
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_load(path, &fo, &d);
    hdg_diags_free(&d);
    return p;
}

static int setup(const char *example, int k, data *D)
{
    memset(D, 0, sizeof *D);
    hdg_error err = {0};
    D->p = load(example, k);
    CHECK(D->p != NULL, "%s k=%d loads", example, k);
    if (!D->p) return 0;
    hdg_status st = hdg_mesh_load(&D->mesh, MESH, &err);
    CHECK(!st, "mesh: %s", err.msg);
    if (st) return 0;
    D->ne = D->mesh.ne;
    if (!strcmp(example, "maxwell2d")) {
        st = hdg_dg_lower_problem(&D->dg, D->p, &D->mesh, &err);
        hdg_run_options defs;
        if (!st) st = hdg_dg_prepare(&D->dg, hdg_dg_options(NULL, &defs), &err);
        CHECK(!st, "%s k=%d prepares: %s", example, k, err.msg);
        if (st) return 0;
        D->mod = D->dg.L.mod;
        D->ngeom = D->dg.L.ngeom, D->nimap = D->dg.L.nimap;
        D->geom = D->dg.geom, D->imap = D->dg.fmap;
        D->params = hdg_xcalloc(16, sizeof(double));
        memcpy(D->params, D->dg.params, sizeof(double) * (size_t)D->dg.L.nparams);
        D->params[D->dg.L.p_rka] = -0.417, D->params[D->dg.L.p_rkb] = 0.831, D->params[D->dg.L.p_dt] = 0.0123;
        return 1;
    }
    st = hdg_lower_hdg(D->p, &D->L, &err);
    CHECK(!st, "%s k=%d lowers: %s", example, k, err.msg);
    if (st) return 0;
    D->mod = D->L.mod;
    D->ngeom = D->L.ngeom;
    hdg_geom g;
    st = hdg_geom_init(&g, &D->mesh, &err);
    CHECK(!st, "geometry: %s", err.msg);
    if (st) return 0;
    D->geom = hdg_xmalloc(sizeof(double) * (size_t)(D->ne * D->ngeom));
    hdg_hdg_fill_geom(&D->L, &D->mesh, &g, D->geom);
    hdg_geom_free(&g);
    D->params = hdg_xcalloc(16, sizeof(double));
    D->params[0] = 1.3, D->params[1] = 0.7;   /* kappa, tau: not 1, so that misplaced factors show */
    return 1;
}

static void teardown(data *D)
{
    if (D->dg.L.mod) hdg_dg_data_free(&D->dg);
    else {
        hdg_lowered_free(&D->L);
        free(D->geom);
    }
    free(D->params);
    hdg_mesh_free(&D->mesh);
    if (D->p) hdg_problem_free(D->p);
}

/* Runs kernel ki of cc over all elements with the inputs in[] (host, fixed
 * per slot) and initial outputs init[] (for outputs the kernel reads);
 * downloads the outputs into res[]. */
static int launch(hdg_cuda_device *dev, const hdg_cuda_compiled *cc, int ki, data *D, double **in, double **init,
                  double **res)
{
    const hdg_kernel_info *info = &cc->info[ki];
    hdg_error err = {0};
    hdg_kargs a;
    memset(&a, 0, sizeof a);
    hdg_cuptr p[2 + HDG_KMAX_IN + HDG_KMAX_OUT + 1] = {0};
    size_t gb = sizeof(double) * (size_t)(D->ne * D->ngeom);
    hdg_status st = hdg_cuda_alloc(dev, gb, &p[0], &err);
    if (!st) st = hdg_cuda_upload(dev, p[0], D->geom, gb, &err);
    if (!st) st = hdg_cuda_alloc(dev, 16 * sizeof(double), &p[1], &err);
    if (!st) st = hdg_cuda_upload(dev, p[1], D->params, 16 * sizeof(double), &err);
    a.geom = (const double *)(uintptr_t)p[0], a.params = (const double *)(uintptr_t)p[1];
    for (int s = 0; s < info->nin && !st; s++) {
        size_t b = sizeof(double) * (size_t)(D->ne * info->in[s].stride);
        st = hdg_cuda_alloc(dev, b, &p[2 + s], &err);
        if (!st) st = hdg_cuda_upload(dev, p[2 + s], in[s], b, &err);
        a.in[s] = (const double *)(uintptr_t)p[2 + s];
    }
    for (int s = 0; s < info->nout && !st; s++) {
        size_t b = sizeof(double) * (size_t)(D->ne * info->out[s].stride);
        st = hdg_cuda_alloc(dev, b, &p[2 + HDG_KMAX_IN + s], &err);
        if (!st && (info->out[s].flags & HDG_KSLOT_READS)) st = hdg_cuda_upload(dev, p[2 + HDG_KMAX_IN + s], init[s], b, &err);
        a.out[s] = (double *)(uintptr_t)p[2 + HDG_KMAX_IN + s];
    }
    hdg_cuptr im = 0;
    if (!st && info->nimap) {
        size_t b = sizeof(int) * (size_t)(D->ne * D->nimap);
        st = hdg_cuda_alloc(dev, b, &im, &err);
        if (!st) st = hdg_cuda_upload(dev, im, D->imap, b, &err);
        a.imap[0] = (const int *)(uintptr_t)im;
    }
    a.nitems = D->ne;
    if (!st) st = hdg_launch_cuda(cc, ki, D->ne, &a, &err);
    if (!st) st = hdg_cuda_sync(dev, &err);
    for (int s = 0; s < info->nout && !st; s++)
        st = hdg_cuda_download(dev, res[s], p[2 + HDG_KMAX_IN + s], sizeof(double) * (size_t)(D->ne * info->out[s].stride), &err);
    CHECK(!st, "%s runs: %s", info->name, err.msg);
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) hdg_cuda_free(dev, p[i]);
    hdg_cuda_free(dev, im);
    return !st;
}

static double rel_diff(const double *x, const double *y, long long n)
{
    double d = 0, m = 0;
    for (long long i = 0; i < n; i++) {
        d = fmax(d, isfinite(x[i]) ? fabs(x[i] - y[i]) : INFINITY);
        m = fmax(m, fabs(y[i]));
    }
    return m > 0 ? d / m : d;
}

/* Generated vs hand-written on the device, every kernel of the set. */
static void compare_on_device(hdg_cuda_device *dev, const hdg_hw_set *set, int k, data *D)
{
    hdg_error err = {0};
    hdg_cuda_compiled cc;
    double t0 = hdg_wtime();
    hdg_status st = hdg_compile_cuda(D->mod, NULL, dev, &cc, &err);
    CHECK(!st, "%s k=%d: generated CUDA compiles: %s", set->module, k, err.msg);
    if (st) return;
    hdg_hw_cuda hw;
    st = set->cuda(k, &hw, &err);
    CHECK(!st, "%s k=%d: hand-written source: %s", set->module, k, err.msg);
    /* per hand-written kernel i: inputs, initial outputs, generated and hand-written results */
    double *in[HDG_HW_MAX][HDG_KMAX_IN] = {{0}}, *init[HDG_HW_MAX][HDG_KMAX_OUT] = {{0}};
    double *gen[HDG_HW_MAX][HDG_KMAX_OUT] = {{0}}, *out[HDG_HW_MAX][HDG_KMAX_OUT] = {{0}};
    int ki[HDG_HW_MAX];
    for (int i = 0; i < hw.n && !st; i++) {
        ki[i] = hdg_cuda_compiled_find(&cc, hw.name[i]);
        CHECK(ki[i] >= 0, "%s k=%d: generated kernel %s exists", set->module, k, hw.name[i]);
        if (ki[i] < 0) continue;
        const hdg_kernel_info *info = &cc.info[ki[i]];
        for (int s = 0; s < info->nin; s++) {
            long long n = D->ne * info->in[s].stride;
            in[i][s] = hdg_xmalloc(sizeof(double) * (size_t)(n + 1));
            for (long long j = 0; j < n; j++) in[i][s][j] = rnd();
        }
        for (int s = 0; s < info->nout; s++) {
            long long n = D->ne * info->out[s].stride;
            init[i][s] = hdg_xmalloc(sizeof(double) * (size_t)(n + 1));
            for (long long j = 0; j < n; j++) init[i][s][j] = rnd();
            gen[i][s] = hdg_xmalloc(sizeof(double) * (size_t)(n + 1));
            out[i][s] = hdg_xmalloc(sizeof(double) * (size_t)(n + 1));
        }
        launch(dev, &cc, ki[i], D, in[i], init[i], gen[i]);
    }
    double t1 = hdg_wtime();
    /* an order the set does not cover: an error, and cc as it was */
    hdg_cuda_func *fn0 = hw.n > 0 && ki[0] >= 0 ? cc.fn[ki[0]] : NULL;
    CHECK(hdg_hw_cuda_overlay(set, 99, &cc, &err) == HDG_EINPUT && cc.mod2 == NULL && (hw.n == 0 || ki[0] < 0 || cc.fn[ki[0]] == fn0),
          "%s: overlay of order 99 refused, generated kernels kept", set->module);
    st = hdg_hw_cuda_overlay(set, k, &cc, &err);
    CHECK(!st, "%s k=%d: overlay: %s", set->module, k, err.msg);
    CHECK(st || (cc.mod2 != NULL && cc.fn[ki[0]] != fn0), "%s k=%d: the hand-written functions are in place", set->module, k);
    for (int i = 0; i < hw.n && !st; i++) {
        if (ki[i] < 0) continue;
        const hdg_kernel_info *info = &cc.info[ki[i]];
        CHECK(cc.shape[ki[i]].block == hw.block[i], "%s: the hand-written launch shape", hw.name[i]);
        if (!launch(dev, &cc, ki[i], D, in[i], init[i], out[i])) continue;
        for (int s = 0; s < info->nout; s++) {
            double r = rel_diff(out[i][s], gen[i][s], D->ne * info->out[s].stride);
            printf("%-10s k=%d %-16s out[%d] %-6s (%4d per element, block %3d, shared %6d B): max|hw-gen|/max|gen| = %.2e\n",
                   set->module, k, hw.name[i], s, info->out[s].name, info->out[s].stride, hw.block[i], hw.shared_bytes[i], r);
            CHECK(r <= TOL, "%s k=%d %s out[%d]: %.3e > %g", set->module, k, hw.name[i], s, r, TOL);
        }
    }
    printf("%-10s k=%d: generated compile+run %.2f s, hand-written %.2f s (emulator: host timings)\n", set->module, k,
           t1 - t0, hdg_wtime() - t1);
    for (int i = 0; i < HDG_HW_MAX; i++) {
        for (int s = 0; s < HDG_KMAX_IN; s++) free(in[i][s]);
        for (int s = 0; s < HDG_KMAX_OUT; s++) free(init[i][s]), free(gen[i][s]), free(out[i][s]);
    }
    hdg_hw_cuda_free(&hw);
    hdg_cuda_compiled_free(&cc);
}

/* The overlay's compile-only path: NVRTC for sm_90, statistics of every
 * hand-written kernel. Uses the kernel infos of the IR module. */
static void compile_only(const hdg_hw_set *set, int k, data *D)
{
    hdg_error err = {0};
    hdg_cuda_compiled cc;
    memset(&cc, 0, sizeof cc);
    int nk = D->mod->nkernels;
    cc.nkernels = nk, cc.arch = 90;
    cc.info = hdg_xcalloc((size_t)nk, sizeof *cc.info);
    cc.shape = hdg_xcalloc((size_t)nk, sizeof *cc.shape);
    cc.stats = hdg_xcalloc((size_t)nk, sizeof *cc.stats);
    cc.fn = hdg_xcalloc((size_t)nk, sizeof *cc.fn);
    for (int i = 0; i < nk; i++) hdg_ir_kernel_info(D->mod->kernels[i], &cc.info[i]);
    double t0 = hdg_wtime();
    hdg_status st = hdg_hw_cuda_overlay(set, k, &cc, &err);
    CHECK(!st, "%s k=%d: hand-written CUDA compiles with NVRTC for sm_90: %.3000s", set->module, k, err.msg);
    printf("%-10s k=%d: NVRTC sm_90 %.2f s\n", set->module, k, hdg_wtime() - t0);
    for (int i = 0; i < nk && !st; i++)
        if (cc.shape[i].block) {
            const hdg_nvrtc_stats *s = &cc.stats[i];
            printf("%-10s k=%d %-16s block %3d shared %6d B regs %3d stack %5d B spills %d/%d B\n", set->module, k,
                   cc.info[i].name, cc.shape[i].block, cc.shape[i].shared_bytes, s->registers, s->stack_bytes,
                   s->spill_stores, s->spill_loads);
            CHECK(s->registers > 0, "%s k=%d: ptxas statistics for %s", set->module, k, cc.info[i].name);
            CHECK(cc.fn[i] == NULL, "no function without a device");
        }
    free(cc.info), free(cc.shape), free(cc.stats), free(cc.fn);
}

int main(int argc, char **argv)
{
    int ks[16] = {1, 2, 3, 8}, nks = 4;
    if (argc > 1) {
        nks = 0;
        for (int i = 1; i < argc && nks < 16; i++) ks[nks++] = atoi(argv[i]);
    }
    hdg_cuda_device *dev = NULL;
    int rc = test_open_device(&dev);
    char version[32];
    hdg_error nerr = {0};
    int nvrtc = !hdg_nvrtc_load(version, sizeof version, &nerr);
    if (rc != -1 && !nvrtc) {
        printf("skipped: no device and %s\n", nerr.msg);
        return rc == 1 ? 1 : 77;
    }
    if (!nvrtc) printf("NVRTC not available (%s): compile-only checks skipped\n", nerr.msg);
    static const char *const examples[2] = {"poisson", "maxwell2d"};
    for (int e = 0; e < 2; e++) {
        const hdg_hw_set *set = hdg_hw_find(examples[e]);
        CHECK(set && set->cuda, "a CUDA set for %s", examples[e]);
        if (!set || !set->cuda) continue;
        for (int i = 0; i < nks; i++) {
            data D;
            if (setup(examples[e], ks[i], &D)) {
                if (rc == -1) compare_on_device(dev, set, ks[i], &D);
                if (nvrtc) compile_only(set, ks[i], &D);
            }
            teardown(&D);
        }
    }
    if (dev) hdg_cuda_device_close(dev);
    return test_summary("handwritten_cuda");
}
