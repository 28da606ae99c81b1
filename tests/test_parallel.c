/* test_parallel.c — thread pool: every index exactly once for several sizes
 * and thread counts, real use of the workers, nesting, concurrent callers,
 * HDG_THREADS, restart after shutdown, deterministic reductions, STREAM. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/solve/krylov.h"
#include "runtime/parallel/parallel.h"
#include "runtime/parallel/stream.h"
#include "test.h"

typedef struct cover {
    unsigned char *hits;
    atomic_int calls;
    atomic_int bad_range;
    pthread_t who[64];
    atomic_int nwho;
} cover;

static void mark(long long b, long long e, void *vctx)
{
    cover *c = vctx;
    if (b >= e) atomic_store(&c->bad_range, 1);
    for (long long i = b; i < e; i++) c->hits[i]++;
    int k = atomic_fetch_add(&c->calls, 1);
    if (k < 64) c->who[k] = pthread_self();
    atomic_fetch_add(&c->nwho, 1);
}

static int distinct_threads(const cover *c)
{
    int n = atomic_load(&c->calls) < 64 ? atomic_load(&c->calls) : 64, d = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++) seen |= pthread_equal(c->who[i], c->who[j]);
        d += !seen;
    }
    return d;
}

/* Runs one loop and checks that [0, n) was covered exactly once; returns the
 * number of chunks. */
static int check_cover(long long n, long long grain, int nthreads, int *distinct)
{
    cover c;
    memset(&c, 0, sizeof c);
    c.hits = calloc((size_t)(n ? n : 1), 1);
    if (grain) hdg_parallel_for_grain(n, grain, mark, &c);
    else hdg_parallel_for(n, mark, &c);
    long long wrong = 0;
    for (long long i = 0; i < n; i++) wrong += c.hits[i] != 1;
    CHECK(wrong == 0, "n=%lld grain=%lld threads=%d: %lld indices not hit exactly once", n, grain,
          nthreads, wrong);
    CHECK(!atomic_load(&c.bad_range), "n=%lld: empty chunk passed to fn", n);
    CHECK(atomic_load(&c.calls) <= nthreads && (n == 0) == (atomic_load(&c.calls) == 0),
          "n=%lld threads=%d: %d chunks", n, nthreads, atomic_load(&c.calls));
    if (distinct) *distinct = distinct_threads(&c);
    int calls = atomic_load(&c.calls);
    free(c.hits);
    return calls;
}

/* ---- nesting ---- */

typedef struct nest {
    unsigned char *hits; /* 64 x 100 */
} nest;

static void inner(long long b, long long e, void *vctx)
{
    unsigned char *row = vctx;
    for (long long i = b; i < e; i++) row[i]++;
}

static void outer(long long b, long long e, void *vctx)
{
    nest *n = vctx;
    for (long long i = b; i < e; i++) hdg_parallel_for_grain(100, 1, inner, n->hits + i * 100);
}

/* ---- concurrent callers ---- */

/* Runs loops from a second user thread; counts wrong coverages itself
 * (CHECK is not thread-safe). */
static void *other_caller(void *arg)
{
    int *wrong = arg;
    long long n = 100000;
    unsigned char *hits = calloc(n, 1);
    for (int r = 0; r < 50; r++) {
        cover c;
        memset(&c, 0, sizeof c);
        c.hits = hits;
        memset(hits, 0, n);
        hdg_parallel_for_grain(n, 1, mark, &c);
        for (long long i = 0; i < n; i++) *wrong += hits[i] != 1;
    }
    free(hits);
    return NULL;
}

/* ---- reductions ---- */

typedef struct three {
    const double *x;
} three;

static void three_sums(long long b, long long e, void *vctx, double *out)
{
    const three *t = vctx;
    out[0] = out[1] = out[2] = 0;
    for (long long i = b; i < e; i++) {
        out[0] += t->x[i];
        out[1] += t->x[i] * t->x[i];
        out[2] += 1;
    }
}

int main(void)
{
    long long sizes[] = {0, 1, 7, 1000003};
    for (int T = 1; T <= 4; T++) {
        hdg_parallel_set_threads(T);
        CHECK(hdg_parallel_threads() == T, "set_threads(%d) gives %d", T, hdg_parallel_threads());
        for (int s = 0; s < 4; s++) {
            int distinct;
            check_cover(sizes[s], 0, T, NULL);
            int calls = check_cover(sizes[s], 1, T, &distinct);
            long long want = sizes[s] < T ? sizes[s] : T;
            CHECK(calls == want, "n=%lld grain 1, %d threads: %d chunks, want %lld", sizes[s], T, calls, want);
            CHECK(distinct == want, "n=%lld, %d threads: chunks ran on %d distinct threads", sizes[s], T, distinct);
            check_cover(sizes[s], 300000, T, NULL);
        }
        CHECK(check_cover(7, 0, T, NULL) == 1, "n = 7 with the default grain runs inline");
    }

    /* nested loops run inline inside a job */
    hdg_parallel_set_threads(4);
    nest n = {calloc(6400, 1)};
    hdg_parallel_for_grain(64, 1, outer, &n);
    int nest_ok = 1;
    for (int i = 0; i < 6400; i++) nest_ok &= n.hits[i] == 1;
    CHECK(nest_ok, "nested parallel loops cover every index once");
    free(n.hits);

    /* two user threads using the pool at once */
    pthread_t th;
    int other_wrong = 0;
    pthread_create(&th, NULL, other_caller, &other_wrong);
    for (int r = 0; r < 50; r++) check_cover(100000, 1, 4, NULL);
    pthread_join(th, NULL);
    CHECK(other_wrong == 0, "loops from a second thread: %d indices wrong", other_wrong);

    /* HDG_THREADS */
    setenv("HDG_THREADS", "3", 1);
    hdg_parallel_set_threads(0);
    CHECK(hdg_parallel_threads() == 3, "HDG_THREADS=3 gives %d threads", hdg_parallel_threads());
    setenv("HDG_THREADS", "zero", 1);
    hdg_parallel_set_threads(0);
    CHECK(hdg_parallel_threads() >= 1, "bad HDG_THREADS falls back to the CPU count");
    unsetenv("HDG_THREADS");

    /* shutdown, then the pool restarts on demand */
    hdg_parallel_set_threads(2);
    hdg_parallel_shutdown();
    hdg_parallel_shutdown();
    int distinct;
    check_cover(1000, 1, 2, &distinct);
    CHECK(distinct == 2, "pool restarts after shutdown (%d threads ran)", distinct);

    /* a forked child gets a working pool of its own */
    hdg_parallel_set_threads(3);
    check_cover(1000, 1, 3, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        cover c;
        memset(&c, 0, sizeof c);
        c.hits = calloc(1000, 1);
        hdg_parallel_for_grain(1000, 1, mark, &c);
        int ok = atomic_load(&c.calls) == 3 && distinct_threads(&c) == 3;
        for (int i = 0; i < 1000; i++) ok &= c.hits[i] == 1;
        free(c.hits);
        hdg_parallel_shutdown();
        _exit(ok ? 0 : 1);
    }
    int wst = -1;
    waitpid(pid, &wst, 0);
    CHECK(pid > 0 && WIFEXITED(wst) && WEXITSTATUS(wst) == 0, "pool in a forked child (status %d)", wst);

    /* deterministic dot products: bitwise equal across runs and thread counts */
    long long N = 1000003;
    double *x = malloc(sizeof(double) * N), *y = malloc(sizeof(double) * N);
    unsigned long long st = 12345;
    for (long long i = 0; i < N; i++) {
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        x[i] = (double)(st >> 11) / 9007199254740992.0 - 0.5;
        y[i] = 1.0 / (1.0 + (double)i) - 0.3 * x[i];
    }
    long double ref = 0;
    for (long long i = 0; i < N; i++) ref += (long double)x[i] * y[i];
    const hdg_vecops *v = hdg_vecops_host();
    hdg_parallel_set_threads(1);
    double d1 = v->dot(v->ctx, N, x, y);
    int same = 1;
    for (int T = 1; T <= 4; T++) {
        hdg_parallel_set_threads(T);
        for (int r = 0; r < 5; r++) {
            double d = v->dot(v->ctx, N, x, y);
            same &= memcmp(&d, &d1, sizeof d) == 0;
        }
    }
    CHECK(same, "dot product bitwise identical over 5 runs x 4 thread counts");
    CHECK_NEAR(d1, (double)ref, 1e-12 * fabs((double)ref) + 1e-12, "dot vs long double reference");
    three t3 = {x};
    double s3[3], s3b[3];
    hdg_parallel_set_threads(4);
    hdg_parallel_sums(N, 3, three_sums, &t3, s3);
    hdg_parallel_set_threads(1);
    hdg_parallel_sums(N, 3, three_sums, &t3, s3b);
    CHECK(!memcmp(s3, s3b, sizeof s3), "hdg_parallel_sums independent of thread count");
    CHECK_NEAR(s3[2], (double)N, 0, "count of indices");
    CHECK_NEAR(sqrt(s3[1]), v->norm2(v->ctx, N, x), 1e-9, "sum of squares vs norm2");
    free(x);
    free(y);

    /* STREAM triad on small arrays: a positive, finite bandwidth */
    hdg_parallel_set_threads(2);
    double gbs = hdg_stream_triad((size_t)4 << 20, 3);
    CHECK(gbs > 0.1 && isfinite(gbs), "stream triad gives %g GB/s", gbs);
    hdg_parallel_set_threads(0);
    return test_summary("parallel");
}
