/* test_device.h — the device a device test runs on: the GPU, or the CUDA
 * emulator with HDGC_LIBCUDA=emulator. Without one the test skips (77), or
 * fails (1) under HDG_REQUIRE_GPU=1 (make test-gpu). */
#ifndef HDG_TEST_DEVICE_H
#define HDG_TEST_DEVICE_H

#include <stdio.h>
#include <stdlib.h>

#include "runtime/cuda/cuda_driver.h"

/* A crash prints the faulting address and the stack (tests/test_crash.c). */
void test_catch_crashes(void);

/* -1 with *dev open (its name printed), else the exit code. */
static inline int test_open_device(hdg_cuda_device **dev)
{
    hdg_error err = {0};
    test_catch_crashes();
    if (!hdg_cuda_device_open(0, dev, &err)) {
        const hdg_cuda_props *p = hdg_cuda_device_props(*dev);
        printf("device: %s (sm_%d%d, %d SMs)\n", p->name, p->cc_major, p->cc_minor, p->sm_count);
        return -1;
    }
    const char *req = getenv("HDG_REQUIRE_GPU");
    if (req && atoi(req)) {
        fprintf(stderr, "HDG_REQUIRE_GPU=1 but: %s\n", err.msg);
        return 1;
    }
    printf("skipped: %s\n", err.msg);
    return 77;
}

#endif
