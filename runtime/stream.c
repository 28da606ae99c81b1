/* stream.c — the STREAM triad on the parallel pool. */
#include "runtime/stream.h"

#include <stdlib.h>

#include "runtime/parallel.h"
#include "support/util.h"

typedef struct triad {
    double *a, *b, *c;
    double s;
} triad;

static void init_range(long long i0, long long i1, void *vctx)
{
    triad *t = vctx;
    for (long long i = i0; i < i1; i++) {
        t->a[i] = 0.0;
        t->b[i] = 1.0;
        t->c[i] = 2.0;
    }
}

static void triad_range(long long i0, long long i1, void *vctx)
{
    triad *t = vctx;
    double *restrict a = t->a;
    const double *restrict b = t->b, *restrict c = t->c;
    const double s = t->s;
    for (long long i = i0; i < i1; i++) a[i] = b[i] + s * c[i];
}

double hdg_stream_triad(size_t bytes_per_array, int reps)
{
    if (bytes_per_array == 0) bytes_per_array = HDG_STREAM_DEFAULT_BYTES;
    if (reps <= 0) reps = 5;
    long long n = (long long)(bytes_per_array / sizeof(double));
    if (n < 1) n = 1;
    triad t = {malloc(sizeof(double) * (size_t)n), malloc(sizeof(double) * (size_t)n),
               malloc(sizeof(double) * (size_t)n), 3.0};
    double best = 0.0;
    if (t.a && t.b && t.c) {
        hdg_parallel_for_grain(n, 8192, init_range, &t);
        double tmin = -1.0;
        for (int r = 0; r < reps; r++) {
            double t0 = hdg_wtime();
            hdg_parallel_for_grain(n, 8192, triad_range, &t);
            double dt = hdg_wtime() - t0;
            if (tmin < 0 || dt < tmin) tmin = dt;
        }
        /* a[i] = 1 + 3*2 = 7 everywhere; a wrong value means the loop was skipped */
        if (tmin > 0 && t.a[0] == 7.0 && t.a[n - 1] == 7.0) best = 24.0 * (double)n / tmin / 1e9;
    }
    free(t.a);
    free(t.b);
    free(t.c);
    return best;
}
