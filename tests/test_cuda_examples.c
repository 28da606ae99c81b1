/* test_cuda_examples.c — every generated kernel of every example compiles
 * with NVRTC for sm_90 at k = 1, 4, 8 (issue 7; runs without a GPU): the same
 * lowering and IR passes as the C backend, then the CUDA emitter, then NVRTC
 * to a CUBIN with ptxas statistics. Prints registers and stack per kernel so
 * register pressure of generated kernels is visible in the test log, with
 * each kernel's mapping (backends/cuda/emit.h: "thread" = an item per
 * thread, "block" = a thread block per item) and dynamic shared memory.
 * With HDGC_CUDA_MAPPING=block every kernel whose locals fit in shared memory
 * is mapped a block per item (the ctests cuda_examples_block_*), and then
 * the HDG local kernels at k = 4 and 8 must be, with no stack left for locals.
 * The 3D files (poisson3d, heat3d of tests/data/hdg, maxwell3d, acoustics3d) at k = 1, 2, 4; the
 * nonlinear examples (nonlinear_diffusion, bratu, nonlinear_heat: Newton's kernels) at k = 1, 2, 3,
 * the nonlinear DG ones (euler2d, burgers2d, shallow_water) at N = 1, 2, 4.
 * usage: test_cuda_examples [EXAMPLE]   (the six 2D ones when none is given)
 * Exit 77 (skip) only when libnvrtc itself is missing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/emit.h"
#include "backends/cuda/nvrtc.h"
#include "compiler/module.h"
#include "support/util.h"
#include "test.h"

static void one(const char *dir, const char *example, int k)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.hdg", dir, example);
    hdg_frontend_options fo = {k, NULL, 0};
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_load(path, &fo, &d);
    hdg_diags_free(&d);
    CHECK(p != NULL, "%s loads", example);
    if (!p) return;
    hdg_ir_module *m = NULL;
    hdg_error err = {0};
    hdg_status st = hdg_problem_module(p, HDG_IR_OPT_DEFAULT, &m, &err);
    CHECK(st == HDG_OK, "%s k=%d lowers: %s", example, k, err.msg);
    hdg_str src;
    hdg_str_init(&src);
    hdg_cuda_shape *shape = hdg_xcalloc((size_t)(m ? m->nkernels : 0) + 1, sizeof *shape);
    if (!st) st = hdg_emit_cuda(m, &src, NULL, shape, &err);
    CHECK(st == HDG_OK, "%s k=%d emits CUDA: %s", example, k, err.msg);
    hdg_nvrtc_output out;
    memset(&out, 0, sizeof out);
    hdg_nvrtc_options o = {0};
    o.arch = 90;
    char file[128];
    snprintf(file, sizeof file, "%s_k%d.cu", example, k);
    double t0 = hdg_wtime();
    if (!st) st = hdg_nvrtc_compile(src.s, file, &o, &out, &err);
    printf("%s k=%d: NVRTC %.2f s\n", example, k, hdg_wtime() - t0);
    CHECK(st == HDG_OK, "%s k=%d compiles with NVRTC: %.2000s", example, k, err.msg);
    if (!st) {
        CHECK(out.image && out.image_size > 0 && !out.is_ptx, "%s k=%d: a CUBIN", example, k);
        for (int i = 0; i < m->nkernels; i++) {
            const hdg_nvrtc_stats *s = hdg_nvrtc_find_stats(&out, m->kernels[i]->name);
            CHECK(s && s->registers > 0, "%s k=%d: ptxas statistics for %s", example, k, m->kernels[i]->name);
            const hdg_cuda_shape *sh = &shape[i];
            if (s)
                printf("%-22s k=%d %-34s %-6s block %3d %s %6lld B regs %3d stack %7d B spills %d/%d B\n", example,
                       k, s->name, sh->mapping == HDG_CUDA_BLOCK_PER_ITEM ? "block" : "thread", sh->block,
                       sh->scratch_bytes ? "scratch" : "shared ", sh->scratch_bytes ? sh->scratch_bytes : sh->shared_bytes,
                       s->registers, s->stack_bytes, s->spill_stores, s->spill_loads);
            /* every HDG element kernel of degree >= 4 keeps its locals out of the stack */
            if (s && k >= 4 && sh->mapping == HDG_CUDA_BLOCK_PER_ITEM)
                CHECK(s->stack_bytes < 1024, "%s k=%d: %s stack %d B in a block-per-element kernel", example, k, s->name,
                      s->stack_bytes);
            const char *env = getenv("HDGC_CUDA_MAPPING");
            size_t len = strlen(m->kernels[i]->name);
            int local = len > 6 && !strcmp(m->kernels[i]->name + len - 6, "_local");
            if (env && !strcmp(env, "block") && local && k >= 4) {
                /* locals in shared memory, or (poisson at k = 8: the block elimination's [A B; C D]
                 * beside A..D is over 227 KiB) in the block's slice of global scratch */
                CHECK(sh->mapping == HDG_CUDA_BLOCK_PER_ITEM &&
                      ((sh->shared_bytes > 0 && sh->shared_bytes <= 232448) || sh->scratch_bytes > 0),
                      "%s k=%d: %s a block per element (shared %d B, scratch %lld B)", example, k, s ? s->name : "?",
                      sh->shared_bytes, sh->scratch_bytes);
                CHECK(s && s->stack_bytes < 1024, "%s k=%d: %s stack %d B with its locals in shared memory", example, k,
                      s ? s->name : "?", s ? s->stack_bytes : -1);
            }
        }
    }
    hdg_nvrtc_output_free(&out);
    free(shape);
    hdg_str_free(&src);
    hdg_ir_module_free(m);
    hdg_problem_free(p);
}

int main(int argc, char **argv)
{
    char version[64];
    hdg_error err = {0};
    if (hdg_nvrtc_load(version, sizeof version, &err)) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    printf("NVRTC %s\n", version);
    /* the 2D examples at k = 1, 4, 8; on tetrahedra (their kernels' dz, 12 geometric factors
     * a face, 4 faces an element) at k = 1, 2, 4: NVRTC takes minutes over 3D kernels of k = 8 */
    static const struct { const char *name, *dir; int orders[3]; } examples[] = {
        {"poisson", HDG_EXAMPLES, {1, 4, 8}},          {"reaction_diffusion", HDG_EXAMPLES, {1, 4, 8}},
        {"convection_diffusion", HDG_EXAMPLES, {1, 4, 8}}, {"maxwell2d", HDG_EXAMPLES, {1, 4, 8}},
        {"acoustics2d", HDG_EXAMPLES, {1, 4, 8}},      {"advection2d", HDG_EXAMPLES, {1, 4, 8}},
        {"poisson3d", HDG_EXAMPLES, {1, 2, 4}},        {"heat3d", HDG_TEST_DATA "/hdg", {1, 2, 4}},
        {"maxwell3d", HDG_EXAMPLES, {1, 2, 4}},        {"acoustics3d", HDG_EXAMPLES, {1, 2, 4}},
        /* nonlinear HDG (Newton): local and recover read the state, the residual and initial kernels */
        {"nonlinear_diffusion", HDG_EXAMPLES, {1, 2, 3}}, {"bratu", HDG_EXAMPLES, {1, 2, 3}},
        {"nonlinear_heat", HDG_EXAMPLES, {1, 2, 3}},
        /* nonlinear explicit DG: quadrature kernels, the builtin 'wavespeed' (euler2d) in the faces */
        {"euler2d", HDG_EXAMPLES, {1, 2, 4}},          {"burgers2d", HDG_EXAMPLES, {1, 2, 4}},
        {"shallow_water", HDG_EXAMPLES, {1, 2, 4}},
    };
    int found = 0;
    for (size_t e = 0; e < sizeof examples / sizeof *examples; e++)
        if (argc < 2 ? e < 6 : !strcmp(argv[1], examples[e].name)) {
            found++;
            for (size_t k = 0; k < 3; k++) one(examples[e].dir, examples[e].name, examples[e].orders[k]);
        }
    CHECK(found > 0, "no example named %s", argc > 1 ? argv[1] : "");
    return test_summary("cuda_examples");
}
