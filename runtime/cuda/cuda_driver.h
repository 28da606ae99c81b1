/* cuda_driver.h — the CUDA driver API as the runtime uses it: libcuda.so.1 is
 * loaded with dlopen on first use, so one hdgc binary runs with or without a
 * GPU (and the build needs neither the CUDA headers nor nvcc).
 *
 * A device handle owns the primary context of one GPU; memory, modules
 * (CUBIN or PTX images, e.g. from NVRTC), kernel launches and event timing go
 * through it. Device pointers are hdg_cuptr (CUdeviceptr); they may be cast
 * to `double *` to travel through hdg_kargs or hdg_vecops (64-bit unified
 * addressing), but are never dereferenced on the host.
 *
 * Errors are HDG_EDEVICE with one clear line:
 *   "no CUDA driver: libcuda.so.1 not found (...)"       libcuda missing
 *   "no CUDA-capable GPU: cuInit: CUDA_ERROR_NO_DEVICE"  driver, no GPU
 *   "no CUDA-capable GPU (cuDeviceGetCount = 0)"
 *   "out of device memory: allocating 512.0 MiB on NVIDIA H100 ... (1.2 GiB free of 79.1 GiB)"
 * and every other failure names the driver call and the CUresult name.
 * $HDGC_LIBCUDA overrides the library looked up (tests use a missing path to
 * check the message on machines with a GPU); HDGC_LIBCUDA=emulator selects
 * the host emulator instead (runtime/cuda/cuda_emu.h: no GPU needed; module
 * images are then CUDA source text), and the emulator's account of a failure
 * follows the CUresult name in every message.
 *
 * All calls run on the default stream of the calling thread's current
 * context; hdg_cuda_device_open makes the context current on the calling
 * thread, hdg_cuda_device_use on another one. */
#ifndef HDG_CUDA_DRIVER_H
#define HDG_CUDA_DRIVER_H

#include <stddef.h>
#include "hdg.h"

typedef unsigned long long hdg_cuptr;        /* CUdeviceptr */
typedef struct hdg_cuda_device hdg_cuda_device;
typedef struct hdg_cuda_module hdg_cuda_module;
typedef struct hdg_cuda_func hdg_cuda_func;  /* CUfunction (opaque) */

/* What the runtime and the compiler want to know of a device. */
typedef struct hdg_cuda_props {
    char name[128];
    int ordinal;
    int cc_major, cc_minor;       /* compute capability: 9.0 on H100/H200 */
    int sm_count;                 /* multiprocessors */
    int max_threads_per_block;
    int max_threads_per_sm;       /* resident threads per multiprocessor: 2048 on sm_90 */
    int max_shared_per_block;     /* bytes, opt-in maximum */
    int driver_version;           /* e.g. 13000 */
    size_t total_mem;             /* bytes */
    int emulated;                 /* 1: the host emulator (HDGC_LIBCUDA=emulator, runtime/cuda/cuda_emu.h) */
} hdg_cuda_props;

/* Loads libcuda (once), initialises the driver, retains the primary context
 * of GPU `ordinal` and makes it current. */
hdg_status hdg_cuda_device_open(int ordinal, hdg_cuda_device **dev, hdg_error *err);
void hdg_cuda_device_close(hdg_cuda_device *dev);
const hdg_cuda_props *hdg_cuda_device_props(const hdg_cuda_device *dev);
/* Makes the device's context current on the calling thread. */
hdg_status hdg_cuda_device_use(hdg_cuda_device *dev, hdg_error *err);
/* Number of GPUs (0 with a driver but no GPU); HDG_EDEVICE when no driver. */
hdg_status hdg_cuda_device_count(int *count, hdg_error *err);

/* Memory. hdg_cuda_alloc of 0 bytes gives 0 (and free of 0 is a no-op). */
hdg_status hdg_cuda_alloc(hdg_cuda_device *dev, size_t bytes, hdg_cuptr *p, hdg_error *err);
void hdg_cuda_free(hdg_cuda_device *dev, hdg_cuptr p);
hdg_status hdg_cuda_upload(hdg_cuda_device *dev, hdg_cuptr dst, const void *src, size_t bytes,
                           hdg_error *err);
hdg_status hdg_cuda_download(hdg_cuda_device *dev, void *dst, hdg_cuptr src, size_t bytes,
                             hdg_error *err);
hdg_status hdg_cuda_copy(hdg_cuda_device *dev, hdg_cuptr dst, hdg_cuptr src, size_t bytes,
                         hdg_error *err);
hdg_status hdg_cuda_memset0(hdg_cuda_device *dev, hdg_cuptr dst, size_t bytes, hdg_error *err);
/* Waits for all work on the device; reports an asynchronous kernel fault. */
hdg_status hdg_cuda_sync(hdg_cuda_device *dev, hdg_error *err);
/* Free and total device memory in bytes. */
hdg_status hdg_cuda_mem_info(hdg_cuda_device *dev, size_t *free_b, size_t *total_b, hdg_error *err);

/* Modules: image is a CUBIN (ELF) or a NUL-terminated PTX text; on the
 * emulator, the NUL-terminated CUDA source. */
hdg_status hdg_cuda_module_load(hdg_cuda_device *dev, const void *image, hdg_cuda_module **mod,
                                hdg_error *err);
void hdg_cuda_module_unload(hdg_cuda_module *mod);
hdg_status hdg_cuda_module_function(hdg_cuda_module *mod, const char *name, hdg_cuda_func **fn,
                                    hdg_error *err);

/* Registers, local (stack) bytes per thread and the largest block the
 * function can be launched with, as the driver reports them. */
typedef struct hdg_cuda_func_attrs { int registers, local_bytes, max_threads, shared_bytes; } hdg_cuda_func_attrs;
hdg_status hdg_cuda_func_attributes(hdg_cuda_device *dev, hdg_cuda_func *fn, hdg_cuda_func_attrs *a,
                                    hdg_error *err);

/* Allows fn up to `bytes` of dynamic shared memory per block
 * (cuFuncSetAttribute, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES): a
 * launch with more than 48 KiB fails without it. At most the device's
 * max_shared_per_block. `what` names the kernel in errors. */
hdg_status hdg_cuda_func_set_max_shared(hdg_cuda_device *dev, hdg_cuda_func *fn, const char *what, int bytes,
                                        hdg_error *err);

/* cuLaunchKernel on the default stream; params as for the driver API (an
 * array of pointers to the argument values). `what` names the kernel in errors. */
hdg_status hdg_cuda_launch(hdg_cuda_device *dev, hdg_cuda_func *fn, const char *what,
                           unsigned grid, unsigned block, unsigned shared_bytes, void **params,
                           hdg_error *err);

/* Event timing on the default stream: start, run work, then stop returns the
 * elapsed seconds (waits for the work). */
typedef struct hdg_cuda_timer { void *start, *stop; } hdg_cuda_timer;
hdg_status hdg_cuda_timer_start(hdg_cuda_device *dev, hdg_cuda_timer *t, hdg_error *err);
hdg_status hdg_cuda_timer_stop(hdg_cuda_device *dev, hdg_cuda_timer *t, double *seconds,
                               hdg_error *err);

#endif
