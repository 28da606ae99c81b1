/* maxwell2d.c — hand-written C kernels for examples/maxwell2d.hdg (being written). */
#include "bench/handwritten/sets.h"

int hdg_hw_maxwell2d_c(int k, hdg_hw_kernel *out, hdg_error *err)
{
    (void)k, (void)out;
    return hdg_fail(err, HDG_EINPUT, "no hand-written C kernels for maxwell2d yet"), -1;
}
