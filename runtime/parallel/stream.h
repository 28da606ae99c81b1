/* stream.h — STREAM triad bandwidth, measured in the same run as a benchmark
 * so that kernels can be quoted as a fraction of attainable bandwidth. */
#ifndef HDG_STREAM_H
#define HDG_STREAM_H

#include <stddef.h>

/* Default array size: 3 arrays of 256 MiB, far beyond the 32 MiB L3. */
#define HDG_STREAM_DEFAULT_BYTES ((size_t)256 << 20)

/* Best bandwidth in GB/s (1e9 bytes/s) of a[i] = b[i] + s*c[i] over `reps`
 * repetitions (<= 0: 5) on the parallel pool, with arrays of
 * bytes_per_array bytes each (0: HDG_STREAM_DEFAULT_BYTES). Bytes counted as
 * in STREAM: 24 per element (two loads, one store; the write-allocate read of
 * a is not counted). Arrays are first touched with the same thread split as
 * the timed loop. Returns 0 when the arrays cannot be allocated. */
double hdg_stream_triad(size_t bytes_per_array, int reps);

/* The same triad with arrays that outlive one measurement, so that a
 * benchmark can interleave triad passes with its own kernels (on a shared
 * machine, load then hits both alike). */
typedef struct hdg_triad {
    double *a, *b, *c;
    long long n; /* elements per array */
} hdg_triad;

/* Allocates and first-touches the arrays (0: HDG_STREAM_DEFAULT_BYTES each).
 * Returns 0 on success, -1 when they cannot be allocated (t is then empty). */
int hdg_triad_init(hdg_triad *t, size_t bytes_per_array);

/* One timed pass a = b + 3c; returns its bandwidth in GB/s (24 bytes per
 * element, as above), or 0 if the result is wrong or the pass took no time. */
double hdg_triad_pass(hdg_triad *t);

void hdg_triad_free(hdg_triad *t);

#endif
