/* test_cuda_nvrtc.c — the CUDA backend without a GPU: IR kernels and the
 * runtime's kernels compile with NVRTC to sm_90 CUBIN (registers reported by
 * ptxas), PTX-only builds, the on-disk cache (hit keeps the stats), table
 * placement and kernel signatures in the emitted source, and a compile error
 * that names the kernel, the generated line and NVRTC's log.
 * Exits 77 (skipped) only when libnvrtc itself is absent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler/pipeline_cuda.h"
#include "test.h"
#include "test_kernels.h"

static char cache_dir[64];

static void test_module(void)
{
    hdg_ir_module *m = tk_module("tk");
    hdg_cuda_compile_options o = HDG_CUDA_COMPILE_OPTIONS_DEFAULT;
    o.use_cache = 0;
    hdg_cuda_compiled c;
    hdg_error err;
    hdg_status st = hdg_compile_cuda(m, &o, NULL, &c, &err);
    CHECK(st == HDG_OK, "compile: %s", err.msg);
    if (st) { hdg_ir_module_free(m); return; }
    const char *src = c.source;
    CHECK(c.arch == 90 && c.nkernels == 4, "arch %d, %d kernels", c.arch, c.nkernels);
    CHECK(strstr(src, "extern \"C\" __global__ void __launch_bounds__(128) mass(long long begin, long long end, hdg_kargs hdg_args)"),
          "kernel signature (kargs by value):\n%.3000s", src);
    CHECK(strstr(src, "static __constant__ double phi[3][3] = {\n    {0x1.5555555555555p-1,"), "phi in constant memory");
    CHECK(strstr(src, "static __device__ const int fmask[3][2]"), "fmask read at per-face indices: __device__ const");
    CHECK(strstr(src, "static __constant__ double odd[4] = {0x1.8p+0, -0x1p-2, HUGE_VAL, NAN};"), "non-finite table values");
    CHECK(strstr(src, "static __device__ __forceinline__ void hdg_lu(int n, double *__restrict__ A"), "dense helpers on the device");
    CHECK(strstr(src, "const double *__restrict__ J = a->geom + e * 1;"), "slot pointers with __restrict__");
    CHECK(strstr(src, "/* mass.hdg:3:1: (u, v) */"), "origins as comments");
    CHECK(strstr(src, "typedef struct hdg_kargs {"), "self-contained: ABI header pasted");
    CHECK(c.shape[0].mapping == HDG_CUDA_ITEM_PER_THREAD && c.shape[0].block == 128 && c.shape[0].items_per_block == 128,
          "launch shape %d %d %d", c.shape[0].mapping, c.shape[0].block, c.shape[0].items_per_block);
    CHECK(!c.image.out.is_ptx && c.image.out.image_size > 1000, "a CUBIN of %zu bytes", c.image.out.image_size);
    CHECK(c.image.out.image_size > 4 && !memcmp(c.image.out.image, "\x7f" "ELF", 4), "CUBIN is an ELF image");
    const char *names[4] = { "mass", "schur", "jump", "misc" };
    for (int i = 0; i < 4; i++) {
        CHECK(!strcmp(c.info[i].name, names[i]) && !strcmp(c.stats[i].name, names[i]), "kernel %d: %s", i, c.info[i].name);
        CHECK(c.stats[i].registers > 0 && c.stats[i].registers <= 255, "%s: %d registers", names[i], c.stats[i].registers);
        CHECK(i == 1 || (c.stats[i].spill_stores == 0 && c.stats[i].spill_loads == 0), "%s spills %d/%d", names[i],
              c.stats[i].spill_stores, c.stats[i].spill_loads);
        printf("%-6s %3d registers, stack %4d B, spills %d/%d B\n", names[i], c.stats[i].registers, c.stats[i].stack_bytes,
               c.stats[i].spill_stores, c.stats[i].spill_loads);
    }
    /* schur's locals (dense factors addressed by the helpers) need a stack frame; mass's 3x3 fits registers */
    CHECK(c.stats[1].stack_bytes > 0, "schur stack %d", c.stats[1].stack_bytes);
    CHECK(c.stats[0].stack_bytes == 0, "mass stack %d", c.stats[0].stack_bytes);
    CHECK(c.info[2].item == HDG_KITEM_FACE && c.info[2].in[0].flags == HDG_KSLOT_GATHER, "face kernel info");
    hdg_kargs a = {0};
    st = hdg_launch_cuda(&c, 0, 10, &a, &err);
    CHECK(st == HDG_EDEVICE && strstr(err.msg, "compiled without a device"), "launch without device: %s", err.msg);
    hdg_cuda_compiled_free(&c);
    hdg_ir_module_free(m);
}

static void test_cache_and_ptx(void)
{
    hdg_ir_module *m1 = tk_module("tkc"), *m2 = tk_module("tkc");
    hdg_cuda_compile_options o = HDG_CUDA_COMPILE_OPTIONS_DEFAULT;
    hdg_cuda_compiled c1, c2;
    hdg_error err;
    CHECK(hdg_compile_cuda(m1, &o, NULL, &c1, &err) == HDG_OK, "first: %s", err.msg);
    CHECK(hdg_compile_cuda(m2, &o, NULL, &c2, &err) == HDG_OK, "second: %s", err.msg);
    if (c1.nkernels == 4 && c2.nkernels == 4) {
        CHECK(!c1.image.cache_hit && c2.image.cache_hit, "cache hits %d %d (%s)", c1.image.cache_hit, c2.image.cache_hit,
              c1.image.warning);
        CHECK(c1.image.out.image_size == c2.image.out.image_size &&
              !memcmp(c1.image.out.image, c2.image.out.image, c1.image.out.image_size), "same CUBIN from the cache");
        for (int i = 0; i < 4; i++)
            CHECK(c2.stats[i].registers == c1.stats[i].registers && c2.stats[i].registers > 0,
                  "stats from the cache: %d vs %d", c2.stats[i].registers, c1.stats[i].registers);
        CHECK(!strcmp(c2.image.out.arch_flag, "--gpu-architecture=sm_90"), "arch flag '%s'", c2.image.out.arch_flag);
    }
    hdg_cuda_compiled_free(&c1);
    hdg_cuda_compiled_free(&c2);
    hdg_ir_module_free(m1);
    hdg_ir_module_free(m2);

    hdg_ir_module *m3 = tk_module("tkp");
    o.ptx_only = 1;
    o.use_cache = 0;
    hdg_cuda_compiled c3;
    CHECK(hdg_compile_cuda(m3, &o, NULL, &c3, &err) == HDG_OK, "ptx: %s", err.msg);
    if (c3.nkernels == 4) {
        const char *ptx = c3.image.out.image;
        CHECK(c3.image.out.is_ptx && strstr(ptx, ".target sm_90") && strstr(ptx, ".entry mass(") && strstr(ptx, ".entry jump("),
              "PTX:\n%.400s", ptx);
        CHECK(c3.stats[0].registers == -1, "no ptxas stats for PTX");
    }
    hdg_cuda_compiled_free(&c3);
    hdg_ir_module_free(m3);
}

static void test_runtime_kernels(void)
{
    for (int m = 2; m <= 11; m += 9) {   /* degree 1 and degree 10 face blocks */
        hdg_str src;
        hdg_str_init(&src);
        hdg_cuda_linalg_source(m, 5, &src);
        hdg_nvrtc_options o = {0};
        hdg_cuda_image img;
        hdg_error err;
        hdg_status st = hdg_cuda_build(src.s, "runtime.cu", &o, 0, &img, &err);
        CHECK(st == HDG_OK, "runtime kernels m=%d: %s", m, err.msg);
        const char *names[] = { "hdg_rt_copy", "hdg_rt_axpy", "hdg_rt_xpay", "hdg_rt_scal", "hdg_rt_set", "hdg_rt_dot",
                                "hdg_rt_reduce", "hdg_rt_spmv", "hdg_rt_diag", "hdg_rt_block" };
        for (size_t i = 0; i < sizeof names / sizeof *names && !st; i++) {
            const hdg_nvrtc_stats *s = hdg_nvrtc_find_stats(&img.out, names[i]);
            CHECK(s && s->registers > 0 && s->spill_stores == 0 && s->stack_bytes == 0, "%s (m=%d): %d registers, stack %d",
                  names[i], m, s ? s->registers : -1, s ? s->stack_bytes : -1);
        }
        hdg_cuda_image_free(&img);
        hdg_str_free(&src);
    }
}

static void test_compile_error(void)
{
    hdg_ir_module *m = tk_module("tkerr");
    hdg_str src;
    hdg_str_init(&src);
    hdg_error err;
    for (int i = 0; i < m->nkernels; i++) hdg_ir_optimize(m->kernels[i], HDG_IR_OPT_DEFAULT, &err);
    CHECK(hdg_emit_cuda(m, &src, NULL, NULL, &err) == HDG_OK, "emit: %s", err.msg);
    /* break one line inside schur */
    char *at = strstr(src.s, "hdg_lu(6, ");
    CHECK(at != NULL, "no hdg_lu call:\n%s", src.s);
    if (at) {
        memcpy(at, "hdg_lu(6 +", 10);
        hdg_nvrtc_output out;
        hdg_status st = hdg_nvrtc_compile(src.s, "tkerr.cu", NULL, &out, &err);
        CHECK(st == HDG_ECOMPILE, "status %d", st);
        CHECK(strstr(err.msg, "NVRTC failed to compile tkerr.cu for sm_90: kernel 'schur', line "), "names the kernel: %s", err.msg);
        CHECK(strstr(err.msg, "`hdg_lu(6 +"), "shows the generated line: %s", err.msg);
        CHECK(strstr(err.msg, "tkerr.cu(") && strstr(err.msg, "): error"), "has the NVRTC log: %s", err.msg);
        CHECK(out.image == NULL && out.log == NULL, "no output on failure");
    }
    hdg_str_free(&src);
    hdg_ir_module_free(m);
}

static void test_log_parser(void)
{
    const char *log =
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function 'k2' for 'sm_90'\n"
        "ptxas info    : Function properties for k2\n"
        "ptxas         .     24 bytes stack frame, 8 bytes spill stores, 16 bytes spill loads\n"
        "ptxas info    : Used 8 registers, used 0 barriers\n"
        "ptxas info    : Compiling entry function 'k1' for 'sm_90'\n"
        "ptxas info    : Function properties for k1\n"
        "ptxas         .     160 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 40 registers, used 0 barriers, 160 bytes cumulative stack size\n";
    hdg_nvrtc_stats *s = NULL;
    int n = hdg_nvrtc_parse_stats(log, &s);
    CHECK(n == 2, "%d entries", n);
    if (n == 2) {
        CHECK(!strcmp(s[0].name, "k2") && s[0].registers == 8 && s[0].stack_bytes == 24 && s[0].spill_stores == 8 &&
              s[0].spill_loads == 16, "k2: %d %d %d %d", s[0].registers, s[0].stack_bytes, s[0].spill_stores, s[0].spill_loads);
        CHECK(!strcmp(s[1].name, "k1") && s[1].registers == 40 && s[1].stack_bytes == 160, "k1");
    }
    free(s);
}

int main(void)
{
    char version[32];
    hdg_error err;
    if (hdg_nvrtc_load(version, sizeof version, &err)) {
        if (strstr(err.msg, "not found")) {
            printf("SKIP: %s\n", err.msg);
            return 77;
        }
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    printf("NVRTC %s\n", version);
    CHECK(hdg_nvrtc_best_arch(90) == 90 && hdg_nvrtc_best_arch(1000) >= 90 && hdg_nvrtc_best_arch(10) == 0, "arch choice");
    snprintf(cache_dir, sizeof cache_dir, "/tmp/hdgc_cuda_cache_%d", (int)getpid());
    setenv("HDGC_CACHE_DIR", cache_dir, 1);
    unsetenv("HDGC_CACHE");
    test_log_parser();
    test_module();
    test_cache_and_ptx();
    test_runtime_kernels();
    test_compile_error();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", cache_dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", cache_dir);
    return test_summary("cuda_nvrtc");
}
