/* emu.h — the module loader of the CUDA emulator (runtime/cuda/cuda_emu.h): CUDA
 * C++ source -> host C++ -> the C backend's JIT (backends/c/jit.h, C++ mode).
 *
 * The translation prepends a prelude that makes CUDA source valid host C++
 * (__global__/__device__/__host__/__constant__ vanish, __forceinline__ is
 * inline, __launch_bounds__(...) vanishes, __restrict__ is __restrict,
 * __shared__ is static (blocks run one after another), extern __shared__
 * arrays read the block's dynamic shared memory, __ldg(p) is *(p),
 * threadIdx/blockIdx/blockDim/gridDim read the emulator's state through the
 * module's hdg_emu_state pointer, __syncthreads() calls the emulator's
 * barrier, atomics are plain read-modify-writes, <math.h> gives the math
 * functions, plus CUDA's min/max/rsqrt) and appends, for every __global__
 * function, the wrappers of the emulator's ABI (runtime/cuda/cuda_emu.h): a call
 * of one thread from a driver-style params array, a check of its pointer
 * arguments, and its attributes.
 *
 * A kernel may reach __syncthreads when its body, or a function it calls
 * (by name, transitively), contains it; a barrier inside a #define makes
 * every kernel of the module count as one that may. Only those run as
 * fibers. Of an hdg_kargs argument, the pointers the kernel reads
 * (a->in[0], a->geom, ...) are checked at launch. Template kernels are not
 * exported; warp intrinsics (__shfl_sync, __ballot_sync, ...) are not
 * provided and fail to compile. */
#ifndef HDG_CUDA_EMU_LOADER_H
#define HDG_CUDA_EMU_LOADER_H

#include "hdg.h"
#include "support/util.h"

/* Registers the JIT loader with the emulator (again: cheap, idempotent). */
void hdg_cuda_emu_use_jit(void);

/* The host C++ the loader compiles for cuda_source (appended to out). */
hdg_status hdg_cuda_emu_translate(const char *cuda_source, hdg_str *out, hdg_error *err);

#endif
