/* stream.c — the STREAM triad on the parallel pool. */
#include "runtime/parallel/stream.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/parallel/parallel.h"
#include "support/util.h"

#define GRAIN 8192

static void init_range(long long i0, long long i1, void *vctx)
{
    hdg_triad *t = vctx;
    for (long long i = i0; i < i1; i++) {
        t->a[i] = 0.0;
        t->b[i] = 1.0;
        t->c[i] = 2.0;
    }
}

static void triad_range(long long i0, long long i1, void *vctx)
{
    hdg_triad *t = vctx;
    double *restrict a = t->a;
    const double *restrict b = t->b, *restrict c = t->c;
    for (long long i = i0; i < i1; i++) a[i] = b[i] + 3.0 * c[i];
}

int hdg_triad_init(hdg_triad *t, size_t bytes_per_array)
{
    if (bytes_per_array == 0) bytes_per_array = HDG_STREAM_DEFAULT_BYTES;
    long long n = (long long)(bytes_per_array / sizeof(double));
    if (n < 1) n = 1;
    t->n = n;
    t->a = malloc(sizeof(double) * (size_t)n);
    t->b = malloc(sizeof(double) * (size_t)n);
    t->c = malloc(sizeof(double) * (size_t)n);
    if (!t->a || !t->b || !t->c) {
        hdg_triad_free(t);
        return -1;
    }
    hdg_parallel_for_grain(n, GRAIN, init_range, t);
    return 0;
}

double hdg_triad_pass(hdg_triad *t)
{
    if (!t->a) return 0.0;
    t->a[0] = t->a[t->n - 1] = 0.0;
    double t0 = hdg_wtime();
    hdg_parallel_for_grain(t->n, GRAIN, triad_range, t);
    double dt = hdg_wtime() - t0;
    /* a[i] = 1 + 3*2 = 7 everywhere; a wrong value means the loop was skipped */
    if (dt <= 0 || t->a[0] != 7.0 || t->a[t->n - 1] != 7.0) return 0.0;
    return 24.0 * (double)t->n / dt / 1e9;
}

void hdg_triad_free(hdg_triad *t)
{
    free(t->a);
    free(t->b);
    free(t->c);
    memset(t, 0, sizeof *t);
}

double hdg_stream_triad(size_t bytes_per_array, int reps)
{
    if (reps <= 0) reps = 5;
    hdg_triad t;
    if (hdg_triad_init(&t, bytes_per_array)) return 0.0;
    double best = 0.0;
    for (int r = 0; r < reps; r++) {
        double g = hdg_triad_pass(&t);
        if (g == 0.0) {
            best = 0.0;
            break;
        }
        if (g > best) best = g;
    }
    hdg_triad_free(&t);
    return best;
}
