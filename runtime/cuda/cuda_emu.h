/* cuda_emu.h — a host emulator of the CUDA driver, so that every device code
 * path (runtime/cuda/cuda_linalg, compiler/pipeline_cuda, the device drivers of
 * the HDG and DG pipelines) runs and is tested without a GPU.
 *
 * Selected with HDGC_LIBCUDA=emulator: runtime/cuda/cuda_driver.c then fills its
 * table of driver entry points (runtime/cuda/cuda_api.h) from this emulator
 * instead of dlopen'ing libcuda.so.1, and hdg_cuda_props.emulated is 1. The
 * device: one GPU, "hdgc CUDA emulator (host)", compute capability 9.0, 2
 * multiprocessors, 1024 threads per block, 227 KiB opt-in shared memory,
 * $HDGC_EMU_MEMORY bytes of memory (default 4 GiB; suffixes K, M, G allowed).
 *
 * Memory is host memory in a registry of live allocations. What it checks
 * (each failure is a CUresult plus one line of detail that the driver layer
 * appends to its message, see hdg_cuda_emu_detail in cuda_api.h):
 *   - allocations beyond the emulated memory: CUDA_ERROR_OUT_OF_MEMORY, and
 *     cuMemGetInfo agrees with what is allocated;
 *   - copies and memsets whose device range is not inside one live
 *     allocation, and host pointers that point into device memory (and the
 *     other way round): CUDA_ERROR_INVALID_VALUE;
 *   - cuMemFree of something that is not a live allocation (double free,
 *     offset pointer): CUDA_ERROR_INVALID_VALUE, and since hdg_cuda_free
 *     cannot return it, the next cuCtxSynchronize (hdg_cuda_sync) reports it;
 *   - pointer arguments of a kernel (and the pointers in an hdg_kargs
 *     argument that the kernel's source reads) that are neither NULL nor
 *     inside a live allocation: CUDA_ERROR_ILLEGAL_ADDRESS at the launch;
 *   - launches: block larger than 1024 threads or than the kernel's
 *     __launch_bounds__, too much dynamic shared memory: INVALID_VALUE
 *     (as on the device, more than 48 KiB needs cuFuncSetAttribute
 *     MAX_DYNAMIC_SHARED_SIZE_BYTES first; accepted up to 227 KiB, or
 *     $HDGC_EMU_SHARED bytes to emulate a device with less shared memory);
 *   - __syncthreads: every thread of a block must reach the same barriers
 *     (same source line, same count), else CUDA_ERROR_LAUNCH_FAILED;
 *   - calls without a current context (a thread that did not call
 *     hdg_cuda_device_use): CUDA_ERROR_INVALID_CONTEXT.
 * New allocations and the dynamic shared memory of each block are filled
 * with 0xff bytes (NaN doubles, -1 ints), so reads of memory never written
 * show up in results.
 *
 * Modules: the image is the CUDA C++ *source text* (not a CUBIN or PTX; the
 * compiler layer hands it over when the device is emulated). A loader
 * registered by the compiler layer (backends/cuda/emu.h, with the C
 * backend's JIT) compiles it into host code; runtime/ does not depend on the
 * backends. A kernel runs as grid x block calls of one thread, blocks one
 * after another, on the calling host thread; a launch is synchronous.
 * Kernels that may reach __syncthreads (the loader tells) run each thread
 * of a block as a fiber (stacks of $HDGC_EMU_STACK bytes, default 256 KiB,
 * with a guard page, allocated once and reused; switched by a few
 * instructions on x86-64, by swapcontext elsewhere), resumed in turn at
 * every barrier; the others call one thread after another. __shared__
 * arrays are static (one block at a time). Under AddressSanitizer the
 * fiber switches are announced to it. Events read the host clock. Launches
 * are serialized process-wide (one launch at a time).
 *
 * What it cannot check: performance (timings are host timings); real
 * concurrency: threads run one at a time in index order, so races (between
 * blocks, or warp-synchronous code) go unnoticed and a missing
 * __syncthreads shows only where a thread reads what a later thread writes
 * (warp intrinsics such as __shfl_sync are not provided and fail to
 * compile); register and stack limits; the size of static __shared__
 * arrays; loads and stores out of bounds inside kernels (kernels are not
 * instrumented); pointers stored in device memory; the numerics of the
 * GPU's math library (host libm instead); asynchronous errors (all are
 * reported by the call that causes them, none is sticky). */
#ifndef HDG_CUDA_EMU_H
#define HDG_CUDA_EMU_H

#include "hdg.h"

/* How the compiler layer turns CUDA source into host code. compile returns
 * an opaque module (err filled on failure), lookup a symbol's address or
 * NULL, unload frees the module. */
typedef struct hdg_cuda_emu_loader {
    hdg_status (*compile)(const char *source, void **module, hdg_error *err);
    void *(*lookup)(void *module, const char *symbol);
    void (*unload)(void *module);
} hdg_cuda_emu_loader;

/* Registers the loader (copied; NULL removes it). Without one, loading a
 * module fails with a message saying so. */
void hdg_cuda_emu_set_loader(const hdg_cuda_emu_loader *loader);

/* ----------------------------------------------------------------------
 * The ABI between the emulator and a loaded module (the loader writes the
 * module side; backends/cuda/emu.c). The module defines, with C linkage:
 *   hdg_cuda_emu_state *hdg_emu_state;    bound by the emulator at load;
 *   const int hdg_emu_state_size;         sizeof(hdg_cuda_emu_state), checked;
 *   const char hdg_emu_kernels[];         the kernel names, space-separated;
 * and per __global__ kernel NAME:
 *   void NAME__hdg_emu(void **params);    runs the current thread of NAME with
 *                                         driver-style params;
 *   int NAME__hdg_emu_check(void **params);  passes every pointer argument to
 *                                         state->check_ptr, returns 0 if all pass;
 *   const int NAME__hdg_emu_attr[3];      { max threads per block from
 *                                         __launch_bounds__ (1024 without),
 *                                         1 if NAME may reach __syncthreads,
 *                                         the number of arguments }.
 * threadIdx etc. read the fields below; __syncthreads() calls sync(line). */
typedef struct hdg_cuda_emu_dim3 { unsigned x, y, z; } hdg_cuda_emu_dim3;

typedef struct hdg_cuda_emu_state {
    hdg_cuda_emu_dim3 thread_idx, block_idx, block_dim, grid_dim;
    void (*sync)(int line);
    void *dyn_shared;                   /* extern __shared__ memory of the block */
    /* 0 if p is NULL or points into (or just past) a live allocation; else
     * records why not and returns 1. arg: 0-based argument; field/index name
     * a pointer inside an hdg_kargs argument ("in", 1), or NULL/-1. */
    int (*check_ptr)(const void *p, int arg, const char *field, int index);
} hdg_cuda_emu_state;

#endif
