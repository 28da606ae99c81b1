/* test_jit.c — the in-process C compiler (backends/c/jit.cpp) and its disk cache:
 * results against the same code compiled into this test, diagnostics, link
 * errors, two live modules, cache hits/misses/corruption/unwritable dirs, and a
 * timing of a ~700-line generated kernel (printed, not asserted). */
#include "backends/c/jit.h"
#include "compiler/pipeline.h"
#include "support/cache.h"
#include "support/util.h"
#include "test.h"
#include "test_fs.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kernel, compiled twice: here by the host compiler, and by the JIT from
 * its stringified text. */
#define KERNEL(NAME)                                                               \
    static const double weights_##NAME[5] = {0.125, -0.5, 1.75, 3.0e-3, 2.5};      \
    double NAME(int n, const double *restrict x, double *restrict y)               \
    {                                                                              \
        double sum = 0.0;                                                          \
        for (int i = 0; i < n; i++) {                                              \
            double w = weights_##NAME[i % 5];                                      \
            y[i] = w * sin(x[i]) + sqrt(fabs(x[i]) + 1.0) / (1.0 + x[i] * x[i]);   \
            sum += y[i];                                                           \
        }                                                                          \
        return sum;                                                                \
    }
#define STR_(...) #__VA_ARGS__
#define STR(...) STR_(__VA_ARGS__)

KERNEL(native_kernel)
typedef double kernel_fn(int, const double *, double *);

static const char *kernel_source(void)
{
    return "#include <math.h>\n" STR(KERNEL(kernel)) "\n";
}

static char root[] = "/tmp/hdgc-test-jit-XXXXXX";

/* The single *.o entry in dir (0 if there is not exactly one). */
static int only_entry(const char *dir, char *path, size_t n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int count = 0;
    while (d && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 2 && !strcmp(e->d_name + len - 2, ".o")) {
            snprintf(path, n, "%s/%s", dir, e->d_name);
            count++;
        }
    }
    if (d) closedir(d);
    return count == 1;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Runs the JIT-compiled kernel and the native one on the same input. */
static void check_kernel(hdg_jit *jit, const char *what)
{
    kernel_fn *f = jit ? (kernel_fn *)hdg_jit_lookup(jit, "kernel") : NULL;
    CHECK(f != NULL, "%s: symbol 'kernel' found", what);
    if (!f) return;
    enum { N = 103 };
    double x[N], y[N], yref[N];
    for (int i = 0; i < N; i++) x[i] = -3.0 + 0.0637 * i;
    double s = f(N, x, y), sref = native_kernel(N, x, yref);
    double worst = 0.0;
    for (int i = 0; i < N; i++)
        worst = fmax(worst, fabs(y[i] - yref[i]) / fmax(1.0, fabs(yref[i])));
    CHECK(worst <= 1e-15, "%s: max relative difference %.3g", what, worst);
    CHECK_NEAR(s, sref, 1e-15 * fmax(1.0, fabs(sref)) * N, what);
}

static hdg_jit *compile(const char *src, const char *name, const hdg_jit_options *o,
                        hdg_jit_stats *st, hdg_error *err)
{
    hdg_jit *jit = NULL;
    hdg_status s = hdg_jit_compile(src, name, o, &jit, st, err);
    CHECK((s == HDG_OK) == (jit != NULL), "%s: status %d and handle agree", name, (int)s);
    return jit;
}

static void test_basic(void)
{
    hdg_error err;
    hdg_jit_stats st;
    hdg_jit_options o = {"", 3, 1, 0}; /* cache disabled */
    hdg_jit *jit = compile(kernel_source(), "basic", &o, &st, &err);
    CHECK(jit != NULL, "compile: %s", err.msg);
    CHECK(st.cache_hit == 0 && st.compile_seconds > 0, "no cache, compiled");
    CHECK(st.warning[0] == '\0', "no warning: %s", st.warning);
    check_kernel(jit, "O3");
    CHECK(hdg_jit_lookup(jit, "no_such_symbol") == NULL, "absent symbol -> NULL");
    CHECK(hdg_jit_lookup(jit, "printf") == NULL, "process symbols are not the module's");
    CHECK(hdg_jit_lookup(jit, "weights_kernel") == NULL, "static data is not exported");
    hdg_jit_free(jit);

    hdg_jit_options o0 = {"", 0, 0, 0};
    jit = compile(kernel_source(), "basic_O0", &o0, NULL, &err);
    CHECK(jit != NULL, "compile -O0: %s", err.msg);
    check_kernel(jit, "O0");
    hdg_jit_free(jit);
    hdg_jit_free(NULL);

    const char *v = hdg_jit_version();
    CHECK(strstr(v, "clang 14.") == v, "version: %s", v);

    /* the target's features, which choose the C backend's batch width (compiler/pipeline.c) */
    CHECK(!hdg_jit_host_has("no-such-feature") && !hdg_jit_host_has(""), "unknown features are absent");
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    CHECK(hdg_jit_host_has("sse2"), "x86-64 has sse2");
    CHECK(hdg_jit_host_has("avx512vl") == !!__builtin_cpu_supports("avx512vl") &&
          hdg_jit_host_has("avx2") == !!__builtin_cpu_supports("avx2"), "LLVM and the CPU agree on avx2, avx512vl");
#endif
    unsetenv("HDGC_BATCH");
    int w = hdg_batch_width();
    CHECK(w == (hdg_jit_host_has("avx512f") && hdg_jit_host_has("avx512vl") ? 8 : 4), "default batch width %d", w);
    setenv("HDGC_BATCH", "4", 1);
    CHECK(hdg_batch_width() == 4, "HDGC_BATCH=4: %d", hdg_batch_width());
    unsetenv("HDGC_BATCH");
}

static void test_compile_error(void)
{
    const char *src = "#include <math.h>\n"
                      "double broken(double x)\n"
                      "{\n"
                      "    double y = sqrt(x) * 2.0;\n"
                      "    return y + undeclared_var;\n"
                      "}\n";
    hdg_error err;
    hdg_jit_options o = {"", 3, 1, 0};
    hdg_jit *jit = NULL;
    hdg_status s = hdg_jit_compile(src, "poisson_k3", &o, &jit, NULL, &err);
    CHECK(s == HDG_ECOMPILE && err.code == HDG_ECOMPILE, "status %d", (int)s);
    CHECK(jit == NULL, "no module on error");
    CHECK(strstr(err.msg, "poisson_k3.c:5:16: error: use of undeclared identifier 'undeclared_var'"),
          "diagnostic with line:col: %s", err.msg);
    CHECK(strstr(err.msg, "    return y + undeclared_var;"), "source line shown: %s", err.msg);
    CHECK(!strstr(err.msg, "generated.\n") || strstr(err.msg, "1 error generated."),
          "summary (if any) is in the message, not on stderr: %s", err.msg);

    /* an undeclared function is an error, not an implicit declaration */
    const char *implicit = "double g(double x) { return mystery(x); }\n";
    s = hdg_jit_compile(implicit, "implicit", &o, &jit, NULL, &err);
    CHECK(s == HDG_ECOMPILE && strstr(err.msg, "implicit.c:1:29: error:") &&
              strstr(err.msg, "mystery"), "implicit declaration: %s", err.msg);
}

static void test_link_error(void)
{
    const char *src = "double nosuch_function_xyz(double);\n"
                      "double calls_missing(double x) { return 2.0 * nosuch_function_xyz(x); }\n";
    hdg_error err;
    hdg_jit_options o = {"", 3, 1, 0};
    hdg_jit *jit = NULL;
    hdg_status s = hdg_jit_compile(src, "linkfail", &o, &jit, NULL, &err);
    CHECK(s == HDG_ECOMPILE && jit == NULL, "undefined function fails at load (%d)", (int)s);
    CHECK(strstr(err.msg, "linkfail.c") && strstr(err.msg, "nosuch_function_xyz"),
          "message names module and symbol: %s", err.msg);
}

static void test_two_modules(void)
{
    hdg_error err;
    hdg_jit_options o = {"", 2, 1, 0};
    hdg_jit *a = compile("int which(void) { return 1; }\n"
                         "static int counter;\n"
                         "int bump(void) { return ++counter; }\n",
                         "mod_a", &o, NULL, &err);
    CHECK(a != NULL, "mod_a: %s", err.msg);
    hdg_jit *b = compile("int which(void) { return 2; }\n"
                         "static int counter = 100;\n"
                         "int bump(void) { return ++counter; }\n",
                         "mod_b", &o, NULL, &err);
    CHECK(b != NULL, "mod_b: %s", err.msg);
    if (!a || !b) {
        hdg_jit_free(a);
        hdg_jit_free(b);
        return;
    }
    int (*wa)(void) = (int (*)(void))hdg_jit_lookup(a, "which");
    int (*wb)(void) = (int (*)(void))hdg_jit_lookup(b, "which");
    int (*ba)(void) = (int (*)(void))hdg_jit_lookup(a, "bump");
    int (*bb)(void) = (int (*)(void))hdg_jit_lookup(b, "bump");
    CHECK(wa && wb && ba && bb, "all symbols found");
    if (wa && wb && ba && bb) {
        CHECK(wa() == 1 && wb() == 2, "each module has its own 'which'");
        ba();
        CHECK(ba() == 2 && bb() == 101, "each module has its own data");
    }
    hdg_jit_free(a); /* b stays usable */
    if (wb) CHECK(wb() == 2, "b alive after a is freed");
    hdg_jit_free(b);
}

static void test_cache(void)
{
    char dir[4096], entry[4200];
    snprintf(dir, sizeof dir, "%s/env-cache", root);
    mkdir(dir, 0755);
    setenv("HDGC_CACHE_DIR", dir, 1);
    hdg_error err;
    hdg_jit_stats st;
    hdg_jit *jit;

    jit = compile(kernel_source(), "cached", NULL, &st, &err);
    CHECK(jit && st.cache_hit == 0, "first compile misses: %s", err.msg);
    CHECK(st.warning[0] == '\0', "no warning: %s", st.warning);
    hdg_jit_free(jit);
    CHECK(only_entry(dir, entry, sizeof entry), "one object in %s", dir);
    long size = file_size(entry);

    jit = compile(kernel_source(), "cached", NULL, &st, &err);
    CHECK(jit && st.cache_hit == 1 && st.compile_seconds == 0.0, "second compile hits");
    check_kernel(jit, "from cache");
    hdg_jit_free(jit);

    /* one character changed (0.125 -> 0.126): a miss, and the right result */
    char *changed = hdg_xstrdup(kernel_source());
    char *p = strstr(changed, "0.125");
    CHECK(p != NULL, "find constant");
    if (p) p[4] = '6';
    jit = compile(changed, "cached", NULL, &st, &err);
    CHECK(jit && st.cache_hit == 0, "changed source misses");
    double (*g)(int, const double *, double *) =
        jit ? (kernel_fn *)hdg_jit_lookup(jit, "kernel") : NULL;
    if (g) {
        double x[1] = {1.0}, y[1];
        g(1, x, y);
        CHECK_NEAR(y[0], 0.126 * sin(1.0) + sqrt(2.0) / 2.0, 1e-15, "changed kernel value");
    }
    hdg_jit_free(jit);
    free(changed);
    unsetenv("HDGC_CACHE_DIR");

    /* damaged entries, in a cache dir of their own (one entry) */
    char dmg[4096];
    snprintf(dmg, sizeof dmg, "%s/damaged", root);
    hdg_jit_options o = {dmg, 3, 1, 0};
    jit = compile(kernel_source(), "dmg", &o, &st, &err);
    hdg_jit_free(jit);
    CHECK(only_entry(dmg, entry, sizeof entry), "one object in %s", dmg);
    CHECK(file_size(entry) == size, "same key and object as via HDGC_CACHE_DIR");

    CHECK(truncate(entry, size / 2) == 0, "truncate entry");
    jit = compile(kernel_source(), "dmg", &o, &st, &err);
    CHECK(jit && st.cache_hit == 0, "truncated entry detected, rebuilt");
    check_kernel(jit, "after truncation");
    hdg_jit_free(jit);
    CHECK(file_size(entry) == size, "entry rewritten (%ld bytes)", file_size(entry));

    FILE *f = fopen(entry, "r+b");
    CHECK(f != NULL, "open entry");
    if (f) {
        fseek(f, size / 2, SEEK_SET);
        int c = fgetc(f);
        fseek(f, size / 2, SEEK_SET);
        fputc(c ^ 0x40, f);
        fclose(f);
    }
    jit = compile(kernel_source(), "dmg", &o, &st, &err);
    CHECK(jit && st.cache_hit == 0, "flipped byte detected, rebuilt");
    check_kernel(jit, "after flipped byte");
    hdg_jit_free(jit);
    jit = compile(kernel_source(), "dmg", &o, &st, &err);
    CHECK(jit && st.cache_hit == 1, "rebuilt entry hits");
    hdg_jit_free(jit);

    /* unwritable cache dir: under a regular file (works even as root) */
    char file[4096], bad[4200];
    snprintf(file, sizeof file, "%s/plainfile", root);
    f = fopen(file, "w");
    if (f) fclose(f);
    snprintf(bad, sizeof bad, "%s/sub", file);
    hdg_jit_options ob = {bad, 3, 1, 0};
    jit = compile(kernel_source(), "nocache", &ob, &st, &err);
    CHECK(jit != NULL && st.cache_hit == 0, "compiles without a cache: %s", err.msg);
    CHECK(strstr(st.warning, "cache") && strstr(st.warning, "plainfile"), "warning: '%s'",
          st.warning);
    check_kernel(jit, "uncached");
    hdg_jit_free(jit);

    /* HDGC_CACHE=off and use_cache=0 write nothing */
    char off[4096];
    snprintf(off, sizeof off, "%s/off", root);
    mkdir(off, 0755);
    hdg_jit_options oo = {off, 3, 1, 0};
    setenv("HDGC_CACHE", "off", 1);
    jit = compile(kernel_source(), "off", &oo, &st, &err);
    unsetenv("HDGC_CACHE");
    CHECK(jit && st.cache_hit == 0 && !only_entry(off, entry, sizeof entry), "HDGC_CACHE=off");
    hdg_jit_free(jit);
    oo.use_cache = 0;
    jit = compile(kernel_source(), "off", &oo, &st, &err);
    CHECK(jit && st.cache_hit == 0 && !only_entry(off, entry, sizeof entry), "use_cache=0");
    hdg_jit_free(jit);
}

/* A module of several kernels is compiled on several threads, one object per
 * group of kernels; each object keeps the tables and helpers its kernels use.
 * A module with mutable data its functions share stays one object. */
static const char split_source[] =
    "static const double tab[4] = {1.0, 2.0, 3.0, 4.0};\n"
    "static inline double twice(double x) { return 2.0 * x; }\n"
    "double k0(int i) { return tab[i]; }\n"
    "double k1(int i) { return twice(tab[i]); }\n"
    "double k2(int i) { double s = 0; for (int j = 0; j <= i; j++) s += tab[j]; return s; }\n"
    "double k3(double x) { return twice(x) + 1.0; }\n";

static void test_split(void)
{
    char dir[4096], entry[4200];
    snprintf(dir, sizeof dir, "%s/split", root);
    hdg_error err;
    hdg_jit_stats st;
    for (int threads = 1; threads <= 3; threads += 2) {   /* 2 costs another compile under valgrind */
        hdg_jit_options o = {dir, 3, 1, threads};
        for (int pass = 0; pass < 2; pass++) {   /* compiled, then from the cache */
            hdg_jit *jit = compile(split_source, "split", &o, &st, &err);
            CHECK(jit != NULL, "%d threads: %s", threads, err.msg);
            if (!jit) continue;
            CHECK(st.cache_hit == pass, "%d threads, pass %d: cache hit %d", threads, pass, st.cache_hit);
            CHECK(st.objects == (pass ? 0 : threads), "%d threads: %d objects", threads, st.objects);
            double (*f0)(int) = (double (*)(int))hdg_jit_lookup(jit, "k0");
            double (*f1)(int) = (double (*)(int))hdg_jit_lookup(jit, "k1");
            double (*f2)(int) = (double (*)(int))hdg_jit_lookup(jit, "k2");
            double (*f3)(double) = (double (*)(double))hdg_jit_lookup(jit, "k3");
            CHECK(f0 && f1 && f2 && f3, "%d threads: every kernel found", threads);
            if (f0 && f1 && f2 && f3)
                CHECK(f0(2) == 3.0 && f1(3) == 8.0 && f2(3) == 10.0 && f3(0.5) == 2.0,
                      "%d threads: %g %g %g %g", threads, f0(2), f1(3), f2(3), f3(0.5));
            hdg_jit_free(jit);
        }
        CHECK(only_entry(dir, entry, sizeof entry), "one cache entry");
        if (threads < 3) unlink(entry);
    }
    /* an entry whose checksum holds but whose payload is not a pack of objects (written by
       something else under the key): compiled again with a warning, and replaced */
    {
        hdg_jit_options o = {dir, 3, 1, 3};   /* the entry the last round left */
        hdg_jit *jit;
        const char *base = only_entry(dir, entry, sizeof entry) ? strrchr(entry, '/') : NULL;
        unsigned long long key = 0;
        CHECK(base && sscanf(base + 1, "%16llx.o", &key) == 1, "entry name: %s", entry);
        char w[256];
        CHECK(hdg_cache_put(dir, "o", key, "not objects", 11, w, sizeof w) == 0, "put: %s", w);
        jit = compile(split_source, "split", &o, &st, &err);
        CHECK(jit && st.cache_hit == 0 && strstr(st.warning, "held no objects"), "foreign entry: hit %d, '%s'",
              st.cache_hit, st.warning);
        double (*f1)(int) = jit ? (double (*)(int))hdg_jit_lookup(jit, "k1") : NULL;
        if (f1) CHECK(f1(3) == 8.0, "foreign entry: k1(3) = %g", f1(3));
        hdg_jit_free(jit);
        jit = compile(split_source, "split", &o, &st, &err);
        CHECK(jit && st.cache_hit == 1 && !st.warning[0], "replaced entry hits: '%s'", st.warning);
        hdg_jit_free(jit);
    }
    /* shared mutable data: one object, one counter */
    hdg_jit_options o = {"", 3, 1, 4};
    hdg_jit *jit = compile("static int counter;\n"
                           "int bump(void) { return ++counter; }\n"
                           "int peek(void) { return counter; }\n",
                           "shared", &o, &st, &err);
    CHECK(jit && st.objects == 1, "shared data: %d objects (%s)", st.objects, err.msg);
    int (*bump)(void) = jit ? (int (*)(void))hdg_jit_lookup(jit, "bump") : NULL;
    int (*peek)(void) = jit ? (int (*)(void))hdg_jit_lookup(jit, "peek") : NULL;
    if (bump && peek) {
        bump(), bump();
        CHECK(peek() == 2, "one counter: %d", peek());
    }
    hdg_jit_free(jit);
}

/* ---- timing of a representative generated kernel ------------------------ */

enum { M = 100, LINES = 500 };

static double table(int i, int j) { return sin(0.37 * i + 1.3 * j) / (1.0 + i + j); }
static double coef(int k) { return 0.5 + 0.4 * cos(0.7 * k); }

/* ~700 lines: a 100x100 static const table, a loop kernel using it, and a
 * straight-line kernel of LINES statements (as an unrolled generated kernel). */
static char *big_source(void)
{
    hdg_str s;
    hdg_str_init(&s);
    hdg_str_puts(&s, "#include <math.h>\n#include <stdint.h>\n\n");
    hdg_str_printf(&s, "static const double A[%d][%d] = {\n", M, M);
    for (int i = 0; i < M; i++) {
        hdg_str_puts(&s, "  {");
        for (int j = 0; j < M; j++) hdg_str_printf(&s, "%.17g%s", table(i, j), j + 1 < M ? "," : "");
        hdg_str_puts(&s, "},\n");
    }
    hdg_str_puts(&s, "};\n\n");
    hdg_str_printf(&s, "void big_matvec(int64_t ne, const double *restrict x, double *restrict y)\n"
                       "{\n"
                       "    for (int64_t e = 0; e < ne; e++)\n"
                       "        for (int i = 0; i < %d; i++) {\n"
                       "            double s = 0.0;\n"
                       "            for (int j = 0; j < %d; j++) s += A[i][j] * x[%d * e + j];\n"
                       "            y[%d * e + i] = s;\n"
                       "        }\n"
                       "}\n\n", M, M, M, M);
    hdg_str_puts(&s, "double big_chain(const double *restrict x)\n{\n    double t0 = x[0];\n");
    for (int k = 1; k <= LINES; k++)
        hdg_str_printf(&s, "    double t%d = %.17g * (x[%d] + t%d) + sqrt(x[%d] * x[%d] + 1.0);\n",
                       k, coef(k), k % M, k - 1, (3 * k) % M, (3 * k) % M);
    hdg_str_printf(&s, "    return t%d;\n}\n", LINES);
    return hdg_str_take(&s);
}

static double chain_ref(const double *x)
{
    double t = x[0];
    for (int k = 1; k <= LINES; k++) {
        double a = x[(3 * k) % M];
        t = coef(k) * (x[k % M] + t) + sqrt(a * a + 1.0);
    }
    return t;
}

static void test_big(void)
{
    char *src = big_source();
    int lines = 0;
    for (const char *p = src; *p; p++) lines += *p == '\n';
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/big", root);
    hdg_jit_options o = {dir, 3, 1, 0};
    hdg_error err;
    hdg_jit_stats cold, warm;
    double t0 = hdg_wtime();
    hdg_jit *jit = compile(src, "big", &o, &cold, &err);
    double t1 = hdg_wtime();
    CHECK(jit && cold.cache_hit == 0, "cold compile: %s", err.msg);
    hdg_jit_free(jit);
    double t2 = hdg_wtime();
    jit = compile(src, "big", &o, &warm, &err);
    double t3 = hdg_wtime();
    CHECK(jit && warm.cache_hit == 1, "warm compile: %s", err.msg);
    printf("big kernel: %d lines, %zu bytes of C\n", lines, strlen(src));
    printf("  cold: %.1f ms total (compile %.1f ms, load %.1f ms)\n", 1e3 * (t1 - t0),
           1e3 * cold.compile_seconds, 1e3 * cold.load_seconds);
    printf("  warm: %.1f ms total (load %.1f ms)\n", 1e3 * (t3 - t2), 1e3 * warm.load_seconds);

    void (*mv)(long long, const double *, double *) =
        jit ? (void (*)(long long, const double *, double *))hdg_jit_lookup(jit, "big_matvec") : NULL;
    double (*chain)(const double *) =
        jit ? (double (*)(const double *))hdg_jit_lookup(jit, "big_chain") : NULL;
    CHECK(mv && chain, "big symbols found");
    if (mv && chain) {
        enum { NE = 3 };
        static double x[NE * M], y[NE * M];
        for (int i = 0; i < NE * M; i++) x[i] = cos(0.11 * i);
        mv(NE, x, y);
        double worst = 0.0;
        for (int e = 0; e < NE; e++)
            for (int i = 0; i < M; i++) {
                double s = 0.0;
                for (int j = 0; j < M; j++) s += table(i, j) * x[M * e + j];
                worst = fmax(worst, fabs(y[M * e + i] - s));
            }
        CHECK(worst <= 1e-14, "matvec max difference %.3g", worst);
        double c = chain(x), r = chain_ref(x);
        CHECK_NEAR(c, r, 1e-13 * fabs(r), "straight-line kernel");
    }
    hdg_jit_free(jit);
    free(src);
}

int main(void)
{
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    unsetenv("HDGC_CACHE");
    test_basic();
    test_compile_error();
    test_link_error();
    test_two_modules();
    test_cache();
    test_split();
    test_big();
    rm_tree(root);
    return test_summary("jit");
}
