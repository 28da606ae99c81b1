/* maxwell2d_cuda.c — hand-written CUDA kernels for examples/maxwell2d.hdg (being written). */
#include "bench/handwritten/sets.h"

hdg_status hdg_hw_maxwell2d_cuda(int k, hdg_hw_cuda *out, hdg_error *err)
{
    (void)k, (void)out;
    return hdg_fail(err, HDG_EINPUT, "no hand-written CUDA kernels for maxwell2d yet");
}
