/* test_cuda_driver.c — loading the CUDA driver and NVRTC.
 *   (no argument)  run with HDGC_LIBCUDA / HDGC_LIBNVRTC pointing at missing
 *                  files: every entry point reports the missing library clearly.
 *   --real         this machine as it is: a GPU opens (props, memory round trip,
 *                  out-of-memory message), or the reason is one clear line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/pipeline_cuda.h"
#include "test.h"
#include "test_kernels.h"

static void forced_missing(void)
{
    hdg_cuda_device *d = NULL;
    hdg_error err;
    hdg_status st = hdg_cuda_device_open(0, &d, &err);
    CHECK(st == HDG_EDEVICE && d == NULL, "status %d", st);
    CHECK(!strncmp(err.msg, "no CUDA driver: /nonexistent/libcuda.so.1 not found", 51), "message: %s", err.msg);
    int n = -1;
    st = hdg_cuda_device_count(&n, &err);
    CHECK(st == HDG_EDEVICE && strstr(err.msg, "no CUDA driver"), "count: %s", err.msg);
    char v[32];
    st = hdg_nvrtc_load(v, sizeof v, &err);
    CHECK(st == HDG_EDEVICE && !strcmp(err.msg, "NVRTC not available: libnvrtc.so not found (tried /nonexistent/libnvrtc.so)"),
          "nvrtc: %s", err.msg);
    hdg_ir_module *m = tk_module("nolib");
    hdg_cuda_compiled c;
    st = hdg_compile_cuda(m, NULL, NULL, &c, &err);
    CHECK(st == HDG_EDEVICE && strstr(err.msg, "NVRTC not available"), "compile: %s", err.msg);
    CHECK(c.nkernels == 0 && c.source == NULL, "nothing left allocated");
    hdg_ir_module_free(m);
    printf("messages as expected: %s\n", "no CUDA driver / NVRTC not available");
}

static void real(void)
{
    hdg_cuda_device *d = NULL;
    hdg_error err;
    hdg_status st = hdg_cuda_device_open(0, &d, &err);
    if (st) {
        CHECK(st == HDG_EDEVICE, "status %d", st);
        CHECK(strstr(err.msg, "no CUDA driver: libcuda.so.1 not found") || strstr(err.msg, "no CUDA-capable GPU"),
              "unclear reason: %s", err.msg);
        printf("no GPU here: %s\n", err.msg);
        return;
    }
    const hdg_cuda_props *p = hdg_cuda_device_props(d);
    printf("GPU %d: %s, sm_%d%d, %d SMs, %.1f GiB, driver %d\n", p->ordinal, p->name, p->cc_major, p->cc_minor,
           p->sm_count, p->total_mem / 1073741824.0, p->driver_version);
    CHECK(p->cc_major >= 3 && p->sm_count > 0 && p->total_mem > 0, "props");
    double h[1000], back[1000];
    for (int i = 0; i < 1000; i++) h[i] = i * 0.5 - 3;
    hdg_cuptr x = 0, y = 0;
    st = hdg_cuda_alloc(d, sizeof h, &x, &err);
    if (!st) st = hdg_cuda_alloc(d, sizeof h, &y, &err);
    if (!st) st = hdg_cuda_upload(d, x, h, sizeof h, &err);
    if (!st) st = hdg_cuda_copy(d, y, x, sizeof h, &err);
    if (!st) st = hdg_cuda_download(d, back, y, sizeof h, &err);
    CHECK(st == HDG_OK && !memcmp(h, back, sizeof h), "round trip: %s", st ? err.msg : "data differ");
    hdg_cuptr huge = 0;
    st = hdg_cuda_alloc(d, p->total_mem * 4, &huge, &err);
    CHECK(st == HDG_EDEVICE && strstr(err.msg, "out of device memory: allocating"), "oom: %s", err.msg);
    hdg_cuda_free(d, x);
    hdg_cuda_free(d, y);
    hdg_cuda_device_close(d);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--real")) real();
    else forced_missing();
    return test_summary(argc > 1 ? "cuda_device" : "cuda_driver");
}
