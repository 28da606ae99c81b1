/* test_cuda_emu.c — the host emulator of the CUDA driver (runtime/cuda/cuda_emu.h,
 * backends/cuda/emu.h), run with HDGC_LIBCUDA=emulator HDGC_EMU_MEMORY=64M:
 *   device properties and memory accounting; kernels with __shared__ tree
 *   reductions over several blocks (static and dynamic shared memory) give
 *   exact sums; thread and block indices; __syncthreads reached by only
 *   some threads, or at different lines, fails with the kernel named (and
 *   the next launch works); the messages for copies out of range, host and
 *   device pointers mixed up, double free, out of memory, host pointers as
 *   kernel arguments (also in hdg_kargs, only the slots the kernel reads),
 *   what the translation finds (barriers through helpers and macros,
 *   launch bounds, hdg_kargs reads),
 *   a missing kernel, __launch_bounds__ exceeded, a thread without a
 *   current context, a CUBIN image, a source that does not compile, no
 *   loader registered. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/emu.h"
#include "compiler/pipeline_cuda.h"
#include "runtime/cuda/cuda_emu.h"
#include "test.h"
#include "test_kernels.h"

static hdg_cuda_device *dev;

static const char source[] =
    "#define B 128\n"
    "/* per block: out[b] = sum of x over the block's items (tree in shared memory) */\n"
    "extern \"C\" __global__ void __launch_bounds__(B) block_sums(int n, const double *__restrict__ x,\n"
    "                                                        double *__restrict__ out)\n"
    "{\n"
    "    __shared__ double s[B];\n"
    "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    s[threadIdx.x] = i < n ? x[i] : 0.0;\n"
    "    for (int w = B / 2; w > 0; w >>= 1) {\n"
    "        __syncthreads();\n"
    "        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];\n"
    "    }\n"
    "    if (threadIdx.x == 0) out[blockIdx.x] = s[0];\n"
    "}\n"
    "\n"
    "static __device__ double tree(double *s)   /* the barrier in a helper */\n"
    "{\n"
    "    for (unsigned w = blockDim.x / 2; w > 0; w >>= 1) {\n"
    "        __syncthreads();\n"
    "        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];\n"
    "    }\n"
    "    __syncthreads();\n"
    "    return s[0];\n"
    "}\n"
    "\n"
    "/* the same with dynamic shared memory and a grid-stride loop */\n"
    "extern \"C\" __global__ void dyn_sums(long long n, const double *x, double *out)\n"
    "{\n"
    "    extern __shared__ __align__(16) double dyn[];\n"
    "    double t = 0;\n"
    "    for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) t += x[i];\n"
    "    dyn[threadIdx.x] = t;\n"
    "    double b = tree(dyn);\n"
    "    if (threadIdx.x == 0) out[blockIdx.x] = b;\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void where(int *out)   /* no barrier: runs without fibers */\n"
    "{\n"
    "    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
    "    int b = blockIdx.x + gridDim.x * blockIdx.y;\n"
    "    out[b * blockDim.x * blockDim.y * blockDim.z + t] =\n"
    "        threadIdx.x + 10 * threadIdx.y + 100 * threadIdx.z + 1000 * blockIdx.x + 10000 * blockIdx.y;\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void diverge(double *x)\n"
    "{\n"
    "    if (threadIdx.x < 16) __syncthreads();\n"
    "    x[threadIdx.x] = 1;\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void two_lines(double *x)\n"
    "{\n"
    "    if (threadIdx.x & 1) __syncthreads();\n"
    "    else __syncthreads();\n"
    "    x[threadIdx.x] = 2;\n"
    "}\n"
    "\n"
    "static __device__ void hidden(void) { __syncthreads(); }\n"
    "extern \"C\" __global__ void by_pointer(double *x)\n"
    "{\n"
    "    void (*f)(void) = hidden;   /* a call the source scan cannot see */\n"
    "    f();\n"
    "    x[threadIdx.x] = 3;\n"
    "}\n";

static int has(const char *msg, const char *part)
{
    if (strstr(msg, part)) return 1;
    fprintf(stderr, "  expected \"%s\" in: %s\n", part, msg);
    return 0;
}

static hdg_cuptr dalloc(size_t bytes)
{
    hdg_cuptr p = 0;
    hdg_error err;
    if (hdg_cuda_alloc(dev, bytes, &p, &err)) CHECK(0, "alloc: %s", err.msg);
    return p;
}

static hdg_status launch(hdg_cuda_module *mod, const char *name, unsigned grid, unsigned block, unsigned shared,
                         void **params, hdg_error *err)
{
    hdg_cuda_func *f = NULL;
    hdg_status st = hdg_cuda_module_function(mod, name, &f, err);
    return st ? st : hdg_cuda_launch(dev, f, name, grid, block, shared, params, err);
}

static void test_props(void)
{
    const hdg_cuda_props *p = hdg_cuda_device_props(dev);
    CHECK(p->emulated == 1 && !strcmp(p->name, "hdgc CUDA emulator (host)"), "%s emulated %d", p->name, p->emulated);
    CHECK(p->cc_major == 9 && p->cc_minor == 0 && p->sm_count == 2 && p->max_threads_per_block == 1024 &&
              p->max_shared_per_block == 227 * 1024,
          "cc %d.%d, %d SMs, %d threads, %d B shared", p->cc_major, p->cc_minor, p->sm_count, p->max_threads_per_block,
          p->max_shared_per_block);
    CHECK(p->total_mem == 64u << 20, "HDGC_EMU_MEMORY=64M: %zu", p->total_mem);
    size_t fr = 0, tot = 0;
    hdg_error err;
    CHECK(!hdg_cuda_mem_info(dev, &fr, &tot, &err) && fr == tot && tot == 64u << 20, "free %zu of %zu", fr, tot);
}

static void test_reductions(hdg_cuda_module *mod)
{
    enum { N = 1000, NB = 8 };   /* 8 blocks of 128, the last partly filled */
    double x[N], out[NB];
    for (int i = 0; i < N; i++) x[i] = i;
    hdg_cuptr dx = dalloc(sizeof x), dout = dalloc(sizeof out);
    hdg_error err;
    int n = N;
    void *p[] = { &n, &dx, &dout };
    hdg_status st = hdg_cuda_upload(dev, dx, x, sizeof x, &err);
    if (!st) st = launch(mod, "block_sums", NB, 128, 0, p, &err);
    if (!st) st = hdg_cuda_download(dev, out, dout, sizeof out, &err);
    CHECK(st == HDG_OK, "block_sums: %s", err.msg);
    int bad = 0;
    for (int b = 0; b < NB && !st; b++) {
        int lo = 128 * b, hi = lo + 128 < N ? lo + 128 : N;
        bad += out[b] != (double)(lo + hi - 1) * (hi - lo) / 2;
    }
    CHECK(!st && bad == 0, "block sums: %d wrong (block 0: %g, want 8128)", bad, out[0]);

    /* dynamic shared memory, 3 blocks of 256 over 1000 items */
    long long nl = N;
    void *q[] = { &nl, &dx, &dout };
    st = launch(mod, "dyn_sums", 3, 256, 256 * sizeof(double), q, &err);
    if (!st) st = hdg_cuda_download(dev, out, dout, 3 * sizeof(double), &err);
    CHECK(st == HDG_OK, "dyn_sums: %s", err.msg);
    CHECK(!st && out[0] + out[1] + out[2] == (double)N * (N - 1) / 2, "dynamic shared sum %.17g", out[0] + out[1] + out[2]);
    hdg_cuda_free(dev, dx);
    hdg_cuda_free(dev, dout);
}

static void test_indices(hdg_cuda_module *mod)
{
    enum { BX = 4, BY = 3, BZ = 2, GX = 3, GY = 2, NT = BX * BY * BZ * GX * GY };   /* as 1-D: 6 x 24 */
    hdg_cuptr d = dalloc(NT * sizeof(int));
    int out[NT];
    hdg_error err;
    void *p[] = { &d };
    hdg_cuda_func *f = NULL;
    hdg_status st = hdg_cuda_module_function(mod, "where", &f, &err);
    /* hdg_cuda_launch is 1-D: y and z are 0 */
    if (!st) st = hdg_cuda_launch(dev, f, "where", GX * GY, BX * BY * BZ, 0, p, &err);
    if (!st) st = hdg_cuda_download(dev, out, d, sizeof out, &err);
    CHECK(st == HDG_OK, "where: %s", err.msg);
    int bad = 0;
    for (int b = 0; b < GX * GY && !st; b++)
        for (int t = 0; t < BX * BY * BZ; t++) bad += out[b * BX * BY * BZ + t] != t + 1000 * b;
    CHECK(bad == 0, "thread/block indices: %d wrong", bad);
    hdg_cuda_func_attrs a;
    CHECK(!hdg_cuda_func_attributes(dev, f, &a, &err) && a.max_threads == 1024 && a.registers == 0, "attrs %d %d",
          a.max_threads, a.registers);
    hdg_cuda_free(dev, d);
}

static void test_barrier_errors(hdg_cuda_module *mod)
{
    hdg_cuptr d = dalloc(64 * sizeof(double));
    hdg_error err;
    void *p[] = { &d };
    hdg_status st = launch(mod, "diverge", 2, 64, 0, p, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "launching CUDA kernel 'diverge' (grid 2, block 64, 0 B shared) failed: "
                                            "CUDA_ERROR_LAUNCH_FAILED (719): block (0,0,0): thread (16,0,0) returned while "
                                            "thread (0,0,0) waits at __syncthreads (line 47, barrier 1 of the block)"),
          "diverge: %s", err.msg);
    st = launch(mod, "two_lines", 1, 32, 0, p, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "thread (0,0,0) waits at __syncthreads on line 54, thread (1,0,0) on line 53"),
          "two_lines: %s", err.msg);
    st = launch(mod, "by_pointer", 1, 32, 0, p, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "kernel 'by_pointer' reached __syncthreads (line 58) although the emulator's "
                                            "source scan found none in it"),
          "by_pointer: %s", err.msg);
    /* the abandoned fibers are reused cleanly */
    test_reductions(mod);
    hdg_cuda_free(dev, d);
}

static void test_launch_errors(hdg_cuda_module *mod)
{
    hdg_error err;
    hdg_cuptr dout = dalloc(8 * sizeof(double));
    double host[8] = { 0 };
    int n = 8;
    hdg_cuptr hx = (hdg_cuptr)(uintptr_t)host;
    void *p[] = { &n, &hx, &dout };
    hdg_status st = launch(mod, "block_sums", 1, 128, 0, p, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "CUDA_ERROR_ILLEGAL_ADDRESS (700): kernel 'block_sums': argument 2: 0x") &&
              has(err.msg, "is not device memory (a host pointer, or never allocated)"),
          "host argument: %s", err.msg);
    void *q[] = { &n, &dout, &dout };
    st = launch(mod, "block_sums", 1, 256, 0, q, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "block of 256 threads exceeds __launch_bounds__(128) of kernel 'block_sums'"),
          "bounds: %s", err.msg);
    long long nl = 8;
    void *r[] = { &nl, &dout, &dout };
    st = launch(mod, "dyn_sums", 1, 32, 300 * 1024, r, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "307200 B of dynamic shared memory, the device has 232448 B"), "shared: %s", err.msg);
    hdg_cuda_func *f = NULL;
    st = hdg_cuda_module_function(mod, "nope", &f, &err);
    CHECK(st && has(err.msg, "kernel 'nope' not found in the loaded CUDA module: CUDA_ERROR_NOT_FOUND: the module has no "
                             "__global__ function 'nope' (its kernels: block_sums dyn_sums where diverge two_lines by_pointer)"),
          "missing kernel: %s", err.msg);
    hdg_cuda_free(dev, dout);
}

static void test_memory_errors(void)
{
    hdg_error err;
    double h[64] = { 0 };
    hdg_cuptr a = dalloc(100);
    hdg_status st = hdg_cuda_upload(dev, a, h, 200, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "cuMemcpyHtoD: CUDA_ERROR_INVALID_VALUE (1): cuMemcpyHtoD: destination 0x") &&
              has(err.msg, " + 200 B runs 100 B past the end of its allocation (0x"),
          "upload past the end: %s", err.msg);
    CHECK(hdg_cuda_upload(dev, a + 8, h, 92, &err) == HDG_OK, "upload inside: %s", err.msg);
    st = hdg_cuda_download(dev, h, (hdg_cuptr)(uintptr_t)(h + 32), 16, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "cuMemcpyDtoH: source 0x") && has(err.msg, "is not device memory"),
          "host pointer as device source: %s", err.msg);
    st = hdg_cuda_upload(dev, a, (const void *)(uintptr_t)a, 16, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "B is device memory, not a host buffer"), "device pointer as host: %s", err.msg);
    hdg_cuptr b = dalloc(64);
    st = hdg_cuda_copy(dev, b, a, 96, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "cuMemcpyDtoD: destination 0x") && has(err.msg, "runs 32 B past the end"),
          "copy: %s", err.msg);
    st = hdg_cuda_memset0(dev, b + 60, 8, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "cuMemsetD8: destination"), "memset: %s", err.msg);

    /* double free: cuMemFree's failure surfaces at the next sync, once */
    hdg_cuda_free(dev, a);
    hdg_cuda_free(dev, a);
    st = hdg_cuda_sync(dev, &err);
    char want[128];
    snprintf(want, sizeof want, "cuMemFree(0x%llx): 0x%llx is not device memory (it was freed) (double free)", a, a);
    CHECK(st == HDG_EDEVICE && has(err.msg, "CUDA_ERROR_INVALID_VALUE (1): ") && has(err.msg, want), "double free: %s", err.msg);
    CHECK(hdg_cuda_sync(dev, &err) == HDG_OK, "reported once: %s", err.msg);
    hdg_cuda_free(dev, b + 8);
    st = hdg_cuda_sync(dev, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "points 8 B into an allocation of 64 B, not at its start"), "offset free: %s", err.msg);
    hdg_cuda_free(dev, b);

    /* out of memory with HDGC_EMU_MEMORY=64M, and what cuMemGetInfo says */
    size_t fr = 0, tot = 0;
    hdg_cuptr big = dalloc(48u << 20), more = 0;
    CHECK(!hdg_cuda_mem_info(dev, &fr, &tot, &err) && fr == 16u << 20, "free after 48 MiB: %zu", fr);
    st = hdg_cuda_alloc(dev, 32u << 20, &more, &err);
    CHECK(st == HDG_EDEVICE && more == 0 &&
              !strcmp(err.msg, "out of device memory: allocating 32.0 MiB on hdgc CUDA emulator (host) failed (16.0 MiB free of 64.0 MiB)"),
          "oom: %s", err.msg);
    hdg_cuda_free(dev, big);
    CHECK(!hdg_cuda_mem_info(dev, &fr, &tot, &err) && fr == tot, "all free again: %zu of %zu", fr, tot);
}

/* hdg_kargs: the slots a generated kernel reads are checked, others not. */
static void test_kargs(void)
{
    hdg_ir_module *m = tk_module("emukargs");
    hdg_cuda_compiled c;
    hdg_error err;
    hdg_status st = hdg_compile_cuda(m, NULL, dev, &c, &err);
    CHECK(st == HDG_OK && c.stats[0].registers == -1, "compile for the emulator: %s", err.msg);
    if (st) { hdg_ir_module_free(m); return; }
    enum { N = 300 };
    double geom[N], params[1] = { 2 };
    for (int i = 0; i < N; i++) geom[i] = 1 + i % 3;
    hdg_cuptr dg = dalloc(sizeof geom), dm = dalloc(sizeof(double) * N * 9);
    hdg_kargs a = { .nitems = N, .geom = geom, .params = params };   /* host pointers */
    a.out[0] = (double *)(uintptr_t)dm;
    int k = hdg_cuda_compiled_find(&c, "mass");
    st = hdg_launch_cuda(&c, k, N, &a, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "kernel 'mass': argument 3 (hdg_kargs.geom): 0x"), "host geom: %s", err.msg);
    hdg_cuda_upload(dev, dg, geom, sizeof geom, &err);
    a.geom = (const double *)(uintptr_t)dg;   /* params stays a host pointer: mass does not read it */
    st = hdg_launch_cuda(&c, k, N, &a, &err);
    double M[9];
    if (!st) st = hdg_cuda_download(dev, M, dm + sizeof M * (N - 1), sizeof M, &err);
    CHECK(st == HDG_OK, "mass: %s", err.msg);
    double want = geom[N - 1] * (TK_W[0] * TK_PHI[0][0] * TK_PHI[0][0] + TK_W[1] * TK_PHI[1][0] * TK_PHI[1][0] +
                                 TK_W[2] * TK_PHI[2][0] * TK_PHI[2][0]);
    CHECK(!st && fabs(M[0] - want) < 1e-15, "mass[0][0] %.17g vs %.17g", M[0], want);
    hdg_cuda_free(dev, dg);
    hdg_cuda_free(dev, dm);
    hdg_cuda_compiled_free(&c);
    hdg_ir_module_free(m);
}

static void *other_thread(void *arg)
{
    hdg_error *err = arg;
    hdg_cuptr p = 0;
    hdg_status st = hdg_cuda_alloc(dev, 64, &p, err);
    if (st == HDG_OK) return "allocated without a context";
    if (hdg_cuda_device_use(dev, err) || hdg_cuda_alloc(dev, 64, &p, err)) return "failed after hdg_cuda_device_use";
    hdg_cuda_free(dev, p);
    return NULL;
}

static void test_context(void)
{
    hdg_error err;
    pthread_t t;
    void *r = "not run";
    if (!pthread_create(&t, NULL, other_thread, &err)) pthread_join(t, &r);
    CHECK(r == NULL && strstr(err.msg, "cuMemAlloc: CUDA_ERROR_INVALID_CONTEXT (201): cuMemAlloc: no current context on this thread"),
          "%s: %s", r ? (const char *)r : "ok", err.msg);
    hdg_cuda_timer tm;
    double s = -1;
    CHECK(!hdg_cuda_timer_start(dev, &tm, &err) && !hdg_cuda_timer_stop(dev, &tm, &s, &err) && s >= 0 && s < 1, "timer %g", s);
}

/* The translation: which kernels may reach a barrier (through a helper, or
 * behind a macro: then all), their launch bounds, the hdg_kargs reads. */
static void test_translate(void)
{
    hdg_str t;
    hdg_str_init(&t);
    hdg_error err;
    CHECK(hdg_cuda_emu_translate(source, &t, &err) == HDG_OK, "translate");
    CHECK(has(t.s, "block_sums__hdg_emu_attr[3] = { (B), 1, hdg_emu_arity(block_sums) }") &&
              has(t.s, "dyn_sums__hdg_emu_attr[3] = { 1024, 1,") && has(t.s, "where__hdg_emu_attr[3] = { 1024, 0,") &&
              has(t.s, "by_pointer__hdg_emu_attr[3] = { 1024, 0,") && has(t.s, "static hdg_emu_dyn_shared< double > dyn;"),
          "attributes");
    hdg_str_free(&t);
    static const char macro[] =
        "#define SYNC() __syncthreads()\n"
        "extern \"C\" __global__ void total(const double *x, double *out)\n"
        "{\n"
        "    __shared__ double s[64];\n"
        "    s[threadIdx.x] = x[threadIdx.x];\n"
        "    for (int w = 32; w > 0; w /= 2) {\n"
        "        SYNC();\n"
        "        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];\n"
        "    }\n"
        "    if (threadIdx.x == 0) *out = s[0];\n"
        "}\n"
        "extern \"C\" __global__ void __launch_bounds__(256, 2) plain(hdg_kargs a) { a.out[1][0] = a.in[2][0] + *a.geom; }\n";
    hdg_str_init(&t);
    hdg_cuda_emu_translate(macro, &t, &err);
    CHECK(has(t.s, "total__hdg_emu_attr[3] = { 1024, 1,") && has(t.s, "plain__hdg_emu_attr[3] = { (256), 1,") &&
              has(t.s, "plain__hdg_emu_check(void **p) { return hdg_emu_check(plain, p, 0x100204u); }"),
          "barrier behind a macro, kargs reads");
    hdg_str_free(&t);
    hdg_cuda_module *m = NULL;
    double x[64], sum = 0;
    for (int i = 0; i < 64; i++) x[i] = i * i;
    hdg_cuptr dx = dalloc(sizeof x), dout = dalloc(sizeof sum);
    void *p[] = { &dx, &dout };
    hdg_status st = hdg_cuda_upload(dev, dx, x, sizeof x, &err);
    if (!st) st = hdg_cuda_module_load(dev, macro + 0, &m, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "unknown type name 'hdg_kargs'"), "kernel without the ABI header: %s", err.msg);
    char fixed[1024];
    snprintf(fixed, sizeof fixed, "%.*s", (int)(strstr(macro, "extern \"C\" __global__ void __launch_bounds__(256") - macro), macro);
    st = hdg_cuda_module_load(dev, fixed, &m, &err);
    if (!st) st = launch(m, "total", 1, 64, 0, p, &err);
    if (!st) st = hdg_cuda_download(dev, &sum, dout, sizeof sum, &err);
    CHECK(st == HDG_OK && sum == 63.0 * 64 * 127 / 6, "sum %g: %s", sum, st ? err.msg : "");
    hdg_cuda_module_unload(m);
    hdg_cuda_free(dev, dx);
    hdg_cuda_free(dev, dout);
}

static void test_modules(void)
{
    hdg_error err;
    hdg_cuda_module *m = NULL;
    hdg_status st = hdg_cuda_module_load(dev, "\x7f" "ELF\2\1\1", &m, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "CUDA_ERROR_INVALID_IMAGE (200): cuModuleLoadData: the emulator loads CUDA source "
                                            "text, not a CUBIN or PTX"),
          "cubin: %s", err.msg);
    st = hdg_cuda_module_load(dev, "extern \"C\" __global__ void k(double *x)\n{\n    x[0] = undefined_thing;\n}\n", &m, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "loading the kernels (cuModuleLoadData): CUDA_ERROR_INVALID_SOURCE (300): ") &&
              has(err.msg, "module.cu:3:12: error: use of undeclared identifier 'undefined_thing'"),
          "bad source: %s", err.msg);
    hdg_cuda_emu_set_loader(NULL);
    st = hdg_cuda_module_load(dev, source, &m, &err);
    CHECK(st == HDG_EDEVICE && has(err.msg, "CUDA_ERROR_NOT_SUPPORTED (801): cuModuleLoadData: no module loader is registered"),
          "no loader: %s", err.msg);
    hdg_cuda_emu_use_jit();
}

int main(void)
{
    setenv("HDGC_LIBCUDA", "emulator", 0);
    setenv("HDGC_EMU_MEMORY", "64M", 0);
    hdg_error err;
    if (hdg_cuda_device_open(0, &dev, &err)) {
        fprintf(stderr, "emulator: %s\n", err.msg);
        return 1;
    }
    test_props();
    hdg_cuda_emu_use_jit();
    hdg_cuda_module *mod = NULL;
    if (hdg_cuda_module_load(dev, source, &mod, &err)) CHECK(0, "load: %s", err.msg);
    if (mod) {
        test_reductions(mod);
        test_indices(mod);
        test_barrier_errors(mod);
        test_launch_errors(mod);
    }
    test_memory_errors();
    test_kargs();
    test_context();
    test_translate();
    test_modules();
    hdg_cuda_module_unload(mod);
    hdg_cuda_device_close(dev);
    return test_summary("cuda_emu");
}
