/* parallel.c — the persistent thread pool behind hdg_parallel_for.
 *
 * One job at a time: the caller writes the job (fn, ctx, n, parts), bumps the
 * generation counter and wakes the workers; worker t runs chunk t, the caller
 * runs chunk 0, and the last worker to finish signals the caller. Waiting is
 * a short spin (loops of a Krylov iteration follow each other closely) and
 * then a sleep on a condition variable. */
#include "runtime/parallel/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "support/util.h"

#define SPIN 4000 /* pause instructions before sleeping (~0.1 ms) */

static struct {
    pthread_mutex_t busy;        /* held by the one running parallel loop */
    pthread_mutex_t mu;          /* guards the sleeps below */
    pthread_cond_t wake, done;
    pthread_t *tid;
    int nworkers;                /* running workers = threads - 1 */
    unsigned long start_gen;     /* generation when the workers started */
    atomic_ulong gen;            /* bumped once per job */
    atomic_int pending;          /* workers not yet done with the job */
    atomic_int stop;
    hdg_range_fn fn;             /* the job, written before gen is bumped */
    void *ctx;
    long long n;
    int parts;
} P = {.busy = PTHREAD_MUTEX_INITIALIZER, .mu = PTHREAD_MUTEX_INITIALIZER,
       .wake = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static atomic_int wanted_threads;  /* 0: not decided yet */
static atomic_int atexit_registered;
static _Thread_local int in_job;   /* nested loops run inline */

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static int clamp_threads(long n)
{
    if (n < 1) return 1;
    return n > HDG_MAX_THREADS ? HDG_MAX_THREADS : (int)n;
}

hdg_status hdg_parallel_check_env(hdg_error *err)
{
    const char *s = getenv("HDG_THREADS");
    long v;
    if (s && !hdg_parse_long(s, 1, HDG_MAX_THREADS, &v))
        return hdg_fail(err, HDG_EINPUT, "HDG_THREADS=%.64s: expected an integer between 1 and %d", s,
                        HDG_MAX_THREADS);
    return HDG_OK;
}

static int default_threads(void)
{
    const char *s = getenv("HDG_THREADS");
    long v;
    if (s && hdg_parse_long(s, 1, HDG_MAX_THREADS, &v)) return (int)v;   /* else hdg_parallel_check_env says why */
    return clamp_threads(sysconf(_SC_NPROCESSORS_ONLN));
}

int hdg_parallel_threads(void)
{
    int n = atomic_load(&wanted_threads);
    if (n == 0) {
        int expected = 0;
        atomic_compare_exchange_strong(&wanted_threads, &expected, default_threads());
        n = atomic_load(&wanted_threads);
    }
    return n;
}

/* ---- workers ---- */

static unsigned long wait_for_job(unsigned long seen)
{
    for (int i = 0; i < SPIN; i++) {
        unsigned long g = atomic_load_explicit(&P.gen, memory_order_acquire);
        if (g != seen || atomic_load(&P.stop)) return g;
        cpu_relax();
    }
    unsigned long g;
    pthread_mutex_lock(&P.mu);
    while ((g = atomic_load(&P.gen)) == seen && !atomic_load(&P.stop))
        pthread_cond_wait(&P.wake, &P.mu);
    pthread_mutex_unlock(&P.mu);
    return g;
}

static void run_chunk(int t)
{
    if (t >= P.parts) return;
    long long begin = P.n * t / P.parts, end = P.n * (t + 1) / P.parts;
    if (begin < end) P.fn(begin, end, P.ctx);
}

static void *worker_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned long seen = P.start_gen;
    in_job = 1;
    for (;;) {
        seen = wait_for_job(seen);
        if (atomic_load(&P.stop)) break;
        run_chunk(t);
        if (atomic_fetch_sub(&P.pending, 1) == 1) {
            pthread_mutex_lock(&P.mu);
            pthread_cond_broadcast(&P.done);
            pthread_mutex_unlock(&P.mu);
        }
    }
    return NULL;
}

/* ---- pool life cycle (called with P.busy held) ---- */

static void stop_pool(void)
{
    if (!P.tid) return;
    pthread_mutex_lock(&P.mu);
    atomic_store(&P.stop, 1);
    pthread_cond_broadcast(&P.wake);
    pthread_mutex_unlock(&P.mu);
    for (int i = 0; i < P.nworkers; i++) pthread_join(P.tid[i], NULL);
    free(P.tid);
    P.tid = NULL;
    P.nworkers = 0;
    atomic_store(&P.stop, 0);
}

/* In a child after fork() only the forking thread exists: forget the
 * workers (a later loop starts new ones) and reset the locks. */
static void reset_in_child(void)
{
    free(P.tid);
    P.tid = NULL;
    P.nworkers = 0;
    atomic_store(&P.pending, 0);
    atomic_store(&P.stop, 0);
    pthread_mutex_init(&P.busy, NULL);
    pthread_mutex_init(&P.mu, NULL);
    pthread_cond_init(&P.wake, NULL);
    pthread_cond_init(&P.done, NULL);
}

static void start_pool(int nthreads)
{
    if (P.tid && P.nworkers == nthreads - 1) return;
    stop_pool();
    if (!atomic_exchange(&atexit_registered, 1)) {
        atexit(hdg_parallel_shutdown);
        pthread_atfork(NULL, NULL, reset_in_child);
    }
    P.tid = hdg_xmalloc(sizeof(pthread_t) * (size_t)(nthreads > 1 ? nthreads - 1 : 1));
    P.start_gen = atomic_load(&P.gen);
    P.nworkers = 0;
    for (int t = 1; t < nthreads; t++) {
        if (pthread_create(&P.tid[t - 1], NULL, worker_main, (void *)(intptr_t)t) != 0)
            break; /* run with the workers we got */
        P.nworkers++;
    }
}

void hdg_parallel_shutdown(void)
{
    if (in_job) return; /* from inside a loop: would wait for itself */
    pthread_mutex_lock(&P.busy);
    stop_pool();
    pthread_mutex_unlock(&P.busy);
}

void hdg_parallel_set_threads(int n)
{
    if (in_job) return; /* from inside a loop: ignored (see parallel.h) */
    pthread_mutex_lock(&P.busy);
    stop_pool();
    atomic_store(&wanted_threads, n <= 0 ? default_threads() : clamp_threads(n));
    pthread_mutex_unlock(&P.busy);
}

/* ---- loops ---- */

static void wait_for_workers(void)
{
    for (int i = 0; i < SPIN; i++) {
        if (atomic_load_explicit(&P.pending, memory_order_acquire) == 0) return;
        cpu_relax();
    }
    pthread_mutex_lock(&P.mu);
    while (atomic_load(&P.pending) != 0) pthread_cond_wait(&P.done, &P.mu);
    pthread_mutex_unlock(&P.mu);
}

void hdg_parallel_for_grain(long long n, long long grain, hdg_range_fn fn, void *ctx)
{
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    int nthreads = hdg_parallel_threads();
    long long parts = n / grain;
    if (parts > nthreads) parts = nthreads;
    if (parts <= 1 || in_job || pthread_mutex_trylock(&P.busy) != 0) {
        fn(0, n, ctx);
        return;
    }
    start_pool(nthreads);
    if (parts > P.nworkers + 1) parts = P.nworkers + 1;
    P.fn = fn;
    P.ctx = ctx;
    P.n = n;
    P.parts = (int)parts;
    atomic_store(&P.pending, P.nworkers);
    pthread_mutex_lock(&P.mu);
    atomic_fetch_add_explicit(&P.gen, 1, memory_order_release);
    pthread_cond_broadcast(&P.wake);
    pthread_mutex_unlock(&P.mu);

    in_job = 1;
    run_chunk(0);
    in_job = 0;
    wait_for_workers();
    pthread_mutex_unlock(&P.busy);
}

void hdg_parallel_for(long long n, hdg_range_fn fn, void *ctx)
{
    hdg_parallel_for_grain(n, 16, fn, ctx);
}

/* ---- deterministic reductions ---- */

typedef struct sum_job {
    hdg_partials_fn fn;
    void *ctx;
    long long n;
    int k;
    double *part; /* nblocks * k */
} sum_job;

static void sum_blocks(long long b0, long long b1, void *vjob)
{
    sum_job *j = vjob;
    for (long long b = b0; b < b1; b++) {
        long long lo = b * HDG_REDUCE_BLOCK;
        long long hi = lo + HDG_REDUCE_BLOCK < j->n ? lo + HDG_REDUCE_BLOCK : j->n;
        j->fn(lo, hi, j->ctx, j->part + b * j->k);
    }
}

void hdg_parallel_sums(long long n, int k, hdg_partials_fn fn, void *ctx, double *sum)
{
    for (int i = 0; i < k; i++) sum[i] = 0.0;
    if (n <= 0 || k <= 0) return;
    long long nblocks = (n + HDG_REDUCE_BLOCK - 1) / HDG_REDUCE_BLOCK;
    double stack[256];
    double *part = nblocks * k <= 256 ? stack : hdg_xmalloc(sizeof(double) * (size_t)(nblocks * k));
    sum_job job = {fn, ctx, n, k, part};
    hdg_parallel_for_grain(nblocks, 2, sum_blocks, &job);
    for (long long b = 0; b < nblocks; b++)
        for (int i = 0; i < k; i++) sum[i] += part[b * k + i];
    if (part != stack) free(part);
}

typedef struct one_sum {
    hdg_partial_fn fn;
    void *ctx;
} one_sum;

static void one_partial(long long begin, long long end, void *vctx, double *out)
{
    one_sum *s = vctx;
    *out = s->fn(begin, end, s->ctx);
}

double hdg_parallel_sum(long long n, hdg_partial_fn fn, void *ctx)
{
    one_sum s = {fn, ctx};
    double sum;
    hdg_parallel_sums(n, 1, one_partial, &s, &sum);
    return sum;
}
