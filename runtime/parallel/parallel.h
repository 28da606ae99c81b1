/* parallel.h — a small persistent pthread pool for the runtime's loops.
 *
 * hdg_parallel_for(n, fn, ctx) splits [0, n) into contiguous chunks, one per
 * thread (the caller runs chunk 0), runs fn(begin, end, ctx) on each and waits.
 * Chunk t of T is [n*t/T, n*(t+1)/T), so a given thread count always gives the
 * same split (first-touch placement and streaming loops rely on that).
 * It runs inline (one call fn(0, n, ctx)) when there is one thread, when n is
 * below two grains, when called from inside a pool job (nesting), or when
 * another thread is already using the pool.
 *
 * Thread count: number of online CPUs, or the environment variable
 * HDG_THREADS (read once, on first use), or hdg_parallel_set_threads().
 * Workers start lazily on the first parallel loop and are joined by
 * hdg_parallel_shutdown(), which is also registered with atexit().
 *
 * Reductions: hdg_parallel_sum() cuts [0, n) into fixed blocks of
 * HDG_REDUCE_BLOCK indices (independent of the thread count), computes one
 * partial per block and adds the partials in block order. Its result is
 * therefore bitwise identical across runs AND across thread counts. */
#ifndef HDG_PARALLEL_H
#define HDG_PARALLEL_H

#include "hdg.h"

typedef void (*hdg_range_fn)(long long begin, long long end, void *ctx);

/* Runs fn over [0, n) on the pool; grain 16 (see hdg_parallel_for_grain). */
void hdg_parallel_for(long long n, hdg_range_fn fn, void *ctx);

/* Same, with at most n/grain chunks: each chunk has at least `grain` indices
 * (cheap per-index work wants a large grain, e.g. 8192 for vector entries). */
void hdg_parallel_for_grain(long long n, long long grain, hdg_range_fn fn, void *ctx);

/* HDG_THREADS, when set, must be a decimal integer in [1, HDG_MAX_THREADS]:
 * else HDG_EINPUT naming the variable (the CLI checks it before any work;
 * hdg_parallel_threads ignores a bad value). */
hdg_status hdg_parallel_check_env(hdg_error *err);

/* Number of threads the pool uses (caller included), >= 1. */
int hdg_parallel_threads(void);

/* Sets the thread count (n <= 0: back to HDG_THREADS / online CPUs; capped
 * at HDG_MAX_THREADS). Stops running workers; new ones start lazily.
 * Call it only while no parallel loop is running (from inside a loop body
 * it is ignored). A child process after fork() starts its own workers. */
void hdg_parallel_set_threads(int n);

/* Joins the workers and frees the pool (safe to call repeatedly; a later
 * parallel loop restarts it). */
void hdg_parallel_shutdown(void);

#define HDG_MAX_THREADS 256
#define HDG_REDUCE_BLOCK 4096

/* Deterministic parallel sum: fn(begin, end, ctx) returns the partial sum of
 * one block; see the note at the top of this file. */
typedef double (*hdg_partial_fn)(long long begin, long long end, void *ctx);
double hdg_parallel_sum(long long n, hdg_partial_fn fn, void *ctx);

/* k sums at once: fn writes its block's k partial sums to out[0..k-1] (it
 * must not accumulate); sum[0..k-1] is deterministic in the same way. */
typedef void (*hdg_partials_fn)(long long begin, long long end, void *ctx, double *out);
void hdg_parallel_sums(long long n, int k, hdg_partials_fn fn, void *ctx, double *sum);

#endif
