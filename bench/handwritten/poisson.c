/* poisson.c — hand-written C kernels for examples/poisson.hdg (being written). */
#include "bench/handwritten/sets.h"

int hdg_hw_poisson_c(int k, hdg_hw_kernel *out, hdg_error *err)
{
    (void)k, (void)out;
    return hdg_fail(err, HDG_EINPUT, "no hand-written C kernels for poisson yet"), -1;
}
