/* test_ir_emit.c — IR kernels built by hand, emitted as C, compiled with the
 * system C compiler (cc -std=c11 -Wall -Wextra -Werror; clang too when
 * present) into a shared object, loaded with dlopen and run against plain C
 * references: a mass matrix, a coefficient kernel before/after optimization,
 * dense LU / Schur complement / Cholesky / matmul with transposes, a face
 * kernel gathering through an imap, random expressions (bit-exact against an
 * evaluator here, which checks the printed precedence), and origins as
 * comments and as #line directives. */
#include <dlfcn.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/c/emit.h"
#include "ir/ir.h"
#include "test.h"
#include "test_kernels.h"

static char tmpdir[64];
static int have_clang;

static char *emit(const hdg_ir_module *m, const hdg_emit_c_options *opt)
{
    hdg_str s;
    hdg_error err;
    hdg_str_init(&s);
    hdg_status st = hdg_emit_c(m, &s, opt, &err);
    CHECK(st == HDG_OK, "emit %s: %s", m->name, err.msg);
    return hdg_str_take(&s);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static void show_log(const char *path)
{
    char *text;
    size_t n;
    hdg_error err;
    if (hdg_read_file(path, &text, &n, &err) == HDG_OK) {
        fprintf(stderr, "%s", text);
        free(text);
    }
}

/* Compiles src into a shared object and loads it; NULL (and a failed check) on error. */
static void *build(const char *name, const char *src)
{
    char c[160], so[160], log[160], cmd[800];
    snprintf(c, sizeof c, "%s/%s.c", tmpdir, name);
    snprintf(so, sizeof so, "%s/%s.so", tmpdir, name);
    snprintf(log, sizeof log, "%s/%s.log", tmpdir, name);
    write_file(c, src);
    snprintf(cmd, sizeof cmd, "cc -std=c11 -O2 -Wall -Wextra -Werror -fPIC -shared -o %s %s -lm > %s 2>&1",
             so, c, log);
    int rc = system(cmd);
    CHECK(rc == 0, "cc failed on %s (rc %d)", c, rc);
    if (rc) {
        show_log(log);
        return NULL;
    }
    if (have_clang) {
        snprintf(cmd, sizeof cmd, "clang -std=c11 -Wall -Wextra -Werror -fsyntax-only %s > %s 2>&1", c, log);
        rc = system(cmd);
        CHECK(rc == 0, "clang -Werror failed on %s", c);
        if (rc) show_log(log);
    }
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL, "dlopen %s: %s", so, dlerror());
    return h;
}

static hdg_kernel_fn sym(void *h, const char *name)
{
    hdg_kernel_fn fn = NULL;
    void *p = h ? dlsym(h, name) : NULL;
    CHECK(p != NULL, "symbol %s missing", name);
    if (p) memcpy(&fn, &p, sizeof fn);
    return fn;
}

/* Removes a test's files (kept when HDG_IR_KEEP is set, for a look at the generated code). */
static void cleanup(const char *name)
{
    const char *ext[] = { "c", "so", "log" };
    if (getenv("HDG_IR_KEEP")) return;
    for (int i = 0; i < 3; i++) {
        char path[160];
        snprintf(path, sizeof path, "%s/%s.%s", tmpdir, name, ext[i]);
        unlink(path);
    }
}

static int count_substr(const char *s, const char *sub)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, sub)); p += strlen(sub)) n++;
    return n;
}

static unsigned long long rng = 88172645463325252ULL;
/* Garbage where the next call's locals will live: a pass that drops a fill
 * still needed shows as wrong values, not as the zeros a fresh stack holds. */
static __attribute__((noinline)) void poison_stack(void)
{
    volatile double junk[8192];
    for (int i = 0; i < 8192; i++) junk[i] = 1e300 * (i % 7 - 3);
    (void)junk[0];
}

static double urand(void)   /* uniform in [-1, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

/* ------------------------------------------------------------------ ABI */

static void test_abi_header(void)
{
    char *text;
    size_t n;
    hdg_error err;
    CHECK(hdg_read_file(HDG_TEST_DATA "/../../include/hdg_kernel.h", &text, &n, &err) == HDG_OK, "%s", err.msg);
    if (!text) return;
    CHECK(!strcmp(text, hdg_emit_c_abi_header()), "emit.c's copy of include/hdg_kernel.h is out of date");
    free(text);
}

/* ---------------------------------------------------- 1. mass matrix */

/* P1 basis on the reference triangle at the 3-point rule (1/6,1/6), (2/3,1/6), (1/6,2/3). */
static void build_mass(hdg_ir_module *m, const char *name, hdg_ir_tensor *phi, hdg_ir_tensor *w)
{
    tk_mass(m, name, phi, w);
}

static void test_mass(void)
{
    hdg_ir_module *m = hdg_ir_module_new("mass");
    hdg_ir_tensor *phi = hdg_ir_table(m, "phi", HDG_SHAPE(3, 3), &TK_PHI[0][0]);
    hdg_ir_tensor *w = hdg_ir_table(m, "w", HDG_SHAPE(3), TK_W);
    build_mass(m, "mass_raw", phi, w);
    build_mass(m, "mass_opt", phi, w);
    hdg_error err;
    CHECK(hdg_ir_optimize(m->kernels[1], HDG_IR_OPT_DEFAULT, &err) == HDG_OK, "%s", err.msg);
    char *src = emit(m, NULL);
    CHECK(strstr(src, "static const double phi[3][3] = {\n    {0x1.5555555555555p-1, 0x1.5555555555555p-3, 0x1.5555555555555p-3},"),
          "table printed exactly as hexadecimal floats:\n%s", src);
    CHECK(strstr(src, "void mass_opt(long long begin, long long end, const hdg_kargs *a)\n{"), "signature");
    CHECK(strstr(src, "const double *restrict J = a->geom + e * 1;") &&
          strstr(src, "double *restrict M = a->out[0] + e * 9;"), "slot pointers:\n%s", src);
    void *h = build("mass", src);
    hdg_kernel_fn fns[2] = { sym(h, "mass_raw"), sym(h, "mass_opt") };
    for (int f = 0; f < 2 && fns[f]; f++) {
        double geom[5] = { 1.0, 0.25, 2.0, 1e-3, 5.0 }, out[5 * 9];
        for (int x = 0; x < 5 * 9; x++) out[x] = 7.0;
        hdg_kargs a = { .nitems = 5, .geom = geom, .out = { out } };
        fns[f](1, 4, &a);   /* elements 1..3 only */
        for (int e = 0; e < 5; e++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double ref = 0;
                    for (int q = 0; q < 3; q++) ref += TK_W[q] * TK_PHI[q][i] * TK_PHI[q][j];
                    ref *= geom[e];
                    if (e == 0 || e == 4) ref = 7.0;   /* untouched */
                    CHECK_NEAR(out[e * 9 + i * 3 + j], ref, 1e-14 * fabs(ref), "mass entry");
                }
        hdg_kargs one = { .nitems = 1, .geom = (double[]){ 1.0 }, .out = { out } };
        fns[f](0, 1, &one);   /* J = 1: the exact P1 mass matrix [2 1 1; 1 2 1; 1 1 2] / 24 */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) CHECK_NEAR(out[i * 3 + j], (i == j ? 2 : 1) / 24.0, 1e-16, "P1 mass");
    }
    if (h) dlclose(h);
    cleanup("mass");
    free(src);
    hdg_ir_module_free(m);
}

/* ------------------------------------- 2. a coefficient, CSE and LICM */

static void build_coef(hdg_ir_module *m, const char *name, hdg_ir_tensor *phi, hdg_ir_tensor *w)
{
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, name, HDG_KITEM_ELEMENT);
    hdg_ir_tensor *X = hdg_ir_geom(k, "X", HDG_SHAPE(3, 2), "vertex coordinates");
    hdg_ir_tensor *M = hdg_ir_output(k, "M", HDG_SHAPE(3, 3), "weighted mass matrix");
    hdg_ir_tensor *Ml = hdg_ir_local(k, "Ml", HDG_IR_DOUBLE, HDG_SHAPE(3, 3));
    hdg_ir_fill(k, Ml, hdg_ir_num(k, 0));
    hdg_ir_set_origin(k, "coef.hdg", 7, 3, "(sin(x)*exp(y) u, v)");
    hdg_ir_expr *q = hdg_ir_for(k, "q", 3);
    hdg_ir_expr *i = hdg_ir_for(k, "i", 3);
    hdg_ir_expr *j = hdg_ir_for(k, "j", 3);
    hdg_ir_expr *c[2], *x[3][2];
    for (int v = 0; v < 3; v++)
        for (int d = 0; d < 2; d++) x[v][d] = hdg_ir_ld2(k, X, hdg_ir_int(k, v), hdg_ir_int(k, d));
    for (int d = 0; d < 2; d++)   /* the point: sum_v phi_v(q) X_v, written out as a naive lowering would */
        c[d] = hdg_ir_add(k, hdg_ir_add(k, hdg_ir_mul(k, hdg_ir_ld2(k, phi, q, hdg_ir_int(k, 0)), x[0][d]),
                                        hdg_ir_mul(k, hdg_ir_ld2(k, phi, q, hdg_ir_int(k, 1)), x[1][d])),
                          hdg_ir_mul(k, hdg_ir_ld2(k, phi, q, hdg_ir_int(k, 2)), x[2][d]));
    hdg_ir_expr *det = hdg_ir_sub(k, hdg_ir_mul(k, hdg_ir_sub(k, x[1][0], x[0][0]), hdg_ir_sub(k, x[2][1], x[0][1])),
                                  hdg_ir_mul(k, hdg_ir_sub(k, x[2][0], x[0][0]), hdg_ir_sub(k, x[1][1], x[0][1])));
    hdg_ir_expr *jac = hdg_ir_add(k, hdg_ir_mul(k, hdg_ir_call(k, HDG_FN_ABS, det), hdg_ir_num(k, 1)),
                                  hdg_ir_num(k, -0.0));   /* foldable noise */
    hdg_ir_expr *coef = hdg_ir_mul(k, hdg_ir_call(k, HDG_FN_SIN, c[0]), hdg_ir_call(k, HDG_FN_EXP, c[1]));
    hdg_ir_expr *v = hdg_ir_mul(k, hdg_ir_mul(k, hdg_ir_mul(k, hdg_ir_mul(k, hdg_ir_ld1(k, w, q), jac), coef),
                                              hdg_ir_ld2(k, phi, q, i)),
                                hdg_ir_ld2(k, phi, q, j));
    hdg_ir_accum(k, hdg_ir_ld2(k, Ml, i, j), v);
    hdg_ir_end(k);
    hdg_ir_end(k);
    hdg_ir_end(k);
    hdg_ir_copy(k, M, Ml);
}

static void test_coef(void)
{
    hdg_ir_module *m = hdg_ir_module_new("coef");
    hdg_ir_tensor *phi = hdg_ir_table(m, "phi", HDG_SHAPE(3, 3), &TK_PHI[0][0]);
    hdg_ir_tensor *w = hdg_ir_table(m, "w", HDG_SHAPE(3), TK_W);
    build_coef(m, "coef_raw", phi, w);
    build_coef(m, "coef_opt", phi, w);
    hdg_ir_kernel *raw = m->kernels[0], *opt = m->kernels[1];
    hdg_str pr, po;
    hdg_str_init(&pr);
    hdg_str_init(&po);
    hdg_ir_print(raw, &pr);
    long long before = hdg_ir_kernel_cost(opt).flops;
    hdg_error err;
    CHECK(hdg_ir_optimize(opt, HDG_IR_OPT_DEFAULT, &err) == HDG_OK, "%s", err.msg);
    long long after = hdg_ir_kernel_cost(opt).flops;
    hdg_ir_print(opt, &po);
    /* by hand: per (q,i,j) 2 points x 5, det 7, fabs 1, *1 and +(-0) 2, sin exp 40 and *, 5 mults, += 1 = 66 */
    CHECK(before == 27 * 66, "flops before %lld", before);
    CHECK(after < before / 5, "flops after %lld, before %lld:\n%s", after, before, po.s);
    /* the Jacobian is computed once per element, in front of the quadrature loop */
    const char *fabs_raw = strstr(pr.s, "fabs("), *loop_raw = strstr(pr.s, "for q in");
    const char *fabs_opt = strstr(po.s, "fabs("), *loop_opt = strstr(po.s, "for q in");
    CHECK(fabs_raw && loop_raw && fabs_raw > loop_raw, "raw: fabs inside the loops");
    CHECK(fabs_opt && loop_opt && fabs_opt < loop_opt, "opt: fabs hoisted:\n%s", po.s);
    {   /* the hoisted Jacobian is a let at the top level of the body */
        const char *line = fabs_opt;
        while (line > po.s && line[-1] != '\n') line--;
        CHECK(!strncmp(line, "  let ", 6), "hoisted temp: %.60s", line);
    }
    CHECK(!strstr(po.s, "* 1") && !strstr(po.s, "-0"), "folded *1 and +(-0):\n%s", po.s);
    /* sin and exp once per quadrature point: inside for q, outside for i */
    const char *sin_opt = loop_opt ? strstr(loop_opt, "sin(") : NULL, *i_opt = loop_opt ? strstr(loop_opt, "for i") : NULL;
    CHECK(sin_opt && i_opt && loop_opt && sin_opt > loop_opt && sin_opt < i_opt, "sin per point:\n%s", po.s);

    char *src = emit(m, NULL);
    void *h = build("coef", src);
    hdg_kernel_fn fr = sym(h, "coef_raw"), fo = sym(h, "coef_opt");
    enum { NE = 4 };
    double X[NE][6], Mr[NE * 9], Mo[NE * 9];
    for (int e = 0; e < NE; e++)
        for (int v = 0; v < 6; v++) X[e][v] = (v == 2 || v == 5 ? 1.0 : 0.0) + 0.3 * urand() + e;
    hdg_kargs ar = { .nitems = NE, .geom = &X[0][0], .out = { Mr } };
    hdg_kargs ao = { .nitems = NE, .geom = &X[0][0], .out = { Mo } };
    if (fr && fo) {
        fr(0, NE, &ar);
        fo(0, NE, &ao);
        for (int e = 0; e < NE; e++) {
            const double *x = X[e];
            double J = fabs((x[2] - x[0]) * (x[5] - x[1]) - (x[4] - x[0]) * (x[3] - x[1]));
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double ref = 0;
                    for (int q = 0; q < 3; q++) {
                        double px = TK_PHI[q][0] * x[0] + TK_PHI[q][1] * x[2] + TK_PHI[q][2] * x[4];
                        double py = TK_PHI[q][0] * x[1] + TK_PHI[q][1] * x[3] + TK_PHI[q][2] * x[5];
                        ref += TK_W[q] * J * sin(px) * exp(py) * TK_PHI[q][i] * TK_PHI[q][j];
                    }
                    CHECK_NEAR(Mr[e * 9 + i * 3 + j], ref, 1e-14 * fabs(ref), "coef raw");
                    CHECK_NEAR(Mo[e * 9 + i * 3 + j], ref, 1e-14 * fabs(ref), "coef optimized");
                }
        }
    }
    if (h) dlclose(h);
    cleanup("coef");
    free(src);
    hdg_str_free(&pr);
    hdg_str_free(&po);
    hdg_ir_module_free(m);
}

/* ------------------------------------------------------ 3. dense ops */

enum { NA = TK_NA, NB = TK_NB, NP = TK_NP };

/* Solves A X = B (A n x n, B n x m, row-major) by Gaussian elimination with partial pivoting. */
static void ref_solve(int n, int m, const double *A0, const double *B0, double *X)
{
    double A[NA * NA];
    memcpy(A, A0, sizeof(double) * n * n);
    memcpy(X, B0, sizeof(double) * n * m);
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        for (int j = 0; j < n; j++) { double t = A[k * n + j]; A[k * n + j] = A[p * n + j]; A[p * n + j] = t; }
        for (int j = 0; j < m; j++) { double t = X[k * m + j]; X[k * m + j] = X[p * m + j]; X[p * m + j] = t; }
        for (int i = k + 1; i < n; i++) {
            double l = A[i * n + k] / A[k * n + k];
            for (int j = k; j < n; j++) A[i * n + j] -= l * A[k * n + j];
            for (int j = 0; j < m; j++) X[i * m + j] -= l * X[k * m + j];
        }
    }
    for (int i = n - 1; i >= 0; i--)
        for (int j = 0; j < m; j++) {
            double s = X[i * m + j];
            for (int k = i + 1; k < n; k++) s -= A[i * n + k] * X[k * m + j];
            X[i * m + j] = s / A[i * n + i];
        }
}

static void test_dense(void)
{
    hdg_ir_module *m = hdg_ir_module_new("dense");
    hdg_ir_kernel *k = tk_schur(m);   /* test_kernels.h */
    hdg_error err;
    CHECK(hdg_ir_optimize(k, HDG_IR_OPT_DEFAULT, &err) == HDG_OK, "%s", err.msg);
    char *src = emit(m, NULL);
    CHECK(!strstr(src, "hdg_heap"), "small locals stay on the stack");
    CHECK(strstr(src, "hdg_lu(6, &Al[0][0], piv);") && strstr(src, "hdg_lu_solve(6, 4, &Al[0][0], piv, &Wl[0][0]);") &&
          strstr(src, "hdg_matmul(4, 4, 6, -1.0, C, 6, 1, &Wl[0][0], 4, 1, 1.0, &Sl[0][0]);") &&
          strstr(src, "hdg_matmul(6, 4, 6, 1.0, A, 1, 6, C, 1, 6, 0.0, R2);"), "dense calls:\n%s", src);
    void *h = build("dense", src);
    hdg_kernel_fn fn = sym(h, "schur");

    enum { NE = 3 };
    static double a[NE][NA * NA], bb[NE][NA * NB], c[NE][NB * NA], d[NE][NB * NB], p[NE][NP * NP], rhs[NE][NP];
    static double s[NE][NB * NB], x[NE][NA * NB], yy[NE][NP], r1[NE][NA * NA], r2[NE][NA * NB], r3[NE][NB * NA];
    static double fl[NE][NA], ft[NE][NB], fe[NE][NB];
    for (int e = 0; e < NE; e++) {
        for (int i = 0; i < NA * NA; i++) a[e][i] = urand() + (i % (NA + 1) == 0 ? 2.0 : 0.0);
        a[e][0] = 1e-3;   /* forces a row swap */
        for (int i = 0; i < NA * NB; i++) bb[e][i] = urand();
        for (int i = 0; i < NB * NA; i++) c[e][i] = urand();
        for (int i = 0; i < NB * NB; i++) d[e][i] = urand();
        double L[NP * NP];
        for (int i = 0; i < NP * NP; i++) L[i] = urand();
        for (int i = 0; i < NP; i++)   /* P = L L^T + NP I */
            for (int j = 0; j < NP; j++) {
                double t = i == j ? NP : 0;
                for (int l = 0; l < NP; l++) t += L[i * NP + l] * L[j * NP + l];
                p[e][i * NP + j] = t;
            }
        for (int i = 0; i < NP; i++) rhs[e][i] = urand();
        for (int i = 0; i < NA; i++) fl[e][i] = urand();
        for (int i = 0; i < NB; i++) ft[e][i] = urand();
    }
    hdg_kargs args = { .nitems = NE, .in = { a[0], bb[0], c[0], d[0], p[0], rhs[0], fl[0], ft[0] },
                       .out = { s[0], x[0], yy[0], r1[0], r2[0], r3[0], fe[0] } };
    if (fn) fn(0, NE, &args);
    for (int e = 0; e < NE && fn; e++) {
        double xr[NA * NB], yr[NP], wf[NA];
        ref_solve(NA, NB, a[e], bb[e], xr);
        ref_solve(NA, 1, a[e], fl[e], wf);
        for (int i = 0; i < NB; i++) {
            double t = ft[e][i];
            for (int l = 0; l < NA; l++) t -= c[e][i * NA + l] * wf[l];
            CHECK_NEAR(fe[e][i], t, 1e-12, "F_e = F_t - C A^-1 F_l");
        }
        ref_solve(NP, 1, p[e], rhs[e], yr);
        for (int i = 0; i < NA * NB; i++) CHECK_NEAR(x[e][i], xr[i], 1e-12, "A^-1 B");
        for (int i = 0; i < NB; i++)
            for (int j = 0; j < NB; j++) {
                double t = d[e][i * NB + j];
                for (int l = 0; l < NA; l++) t -= c[e][i * NA + l] * xr[l * NB + j];
                CHECK_NEAR(s[e][i * NB + j], t, 1e-12, "Schur complement");
            }
        for (int i = 0; i < NP; i++) CHECK_NEAR(yy[e][i], yr[i], 1e-12, "Cholesky solve");
        for (int i = 0; i < NA; i++)
            for (int j = 0; j < NA; j++) {
                double t = 0;
                for (int l = 0; l < NA; l++) t += a[e][l * NA + i] * a[e][l * NA + j];
                CHECK_NEAR(r1[e][i * NA + j], 0.5 * t, 1e-13, "A^T A");
            }
        for (int i = 0; i < NA; i++)
            for (int j = 0; j < NB; j++) {
                double t = 0;
                for (int l = 0; l < NA; l++) t += a[e][l * NA + i] * c[e][j * NA + l];
                CHECK_NEAR(r2[e][i * NB + j], t, 1e-13, "A^T C^T");
            }
        for (int i = 0; i < NB; i++)
            for (int j = 0; j < NA; j++) {
                double t1 = 0, t2 = 0;
                for (int l = 0; l < NA; l++) {
                    t1 += c[e][i * NA + l] * a[e][l * NA + j];
                    t2 += c[e][i * NA + l] * a[e][j * NA + l];
                }
                CHECK_NEAR(r3[e][i * NA + j], 3 * t1 - t2, 1e-13, "3 C A - C A^T");
            }
    }
    if (h) dlclose(h);
    cleanup("dense");
    free(src);
    hdg_ir_module_free(m);
}

/* ------------------------------------------- a face kernel with an imap */

static void test_face(void)
{
    hdg_ir_module *m = hdg_ir_module_new("face");
    hdg_ir_tensor *fm = hdg_ir_table_int(m, "fmask", HDG_SHAPE(3, 2), &TK_FMASK[0][0]);   /* nodes of local face f */
    /* the exterior runs the face backwards; on the boundary (e1 < 0) it is 0 */
    hdg_ir_kernel *k = tk_jump(m, fm);
    hdg_error err;
    CHECK(hdg_ir_optimize(k, HDG_IR_OPT_DEFAULT, &err) == HDG_OK, "%s", err.msg);
    hdg_str p;
    hdg_str_init(&p);
    hdg_ir_print(k, &p);
    /* the exterior load stays under the select's arm (it would read row -1) */
    const char *sel = strstr(p.s, " ? ");
    CHECK(sel != NULL, "no select left:\n%s", p.s);
    if (sel) {
        const char *eol = strchr(sel, '\n');
        const char *ld = strstr(sel, "u@(");
        CHECK(ld && ld < eol, "a guarded load was hoisted:\n%s", p.s);
    }
    hdg_kernel_info info;
    hdg_ir_kernel_info(k, &info);
    CHECK(info.in[0].flags == HDG_KSLOT_GATHER && info.imap[0].flags == HDG_KSLOT_ITEM && info.imap[0].stride == 4,
          "face slots %d %d", info.in[0].flags, info.imap[0].flags);
    char *src = emit(m, NULL);
    void *h = build("face", src);
    hdg_kernel_fn fn = sym(h, "jump");
    double uu[3][3] = { { 1, 2, 3 }, { 10, 20, 30 }, { 100, 200, 300 } }, out[3][2];
    int map[3][4] = { { 0, 0, 1, 2 }, { 1, 1, 2, 0 }, { 2, 2, -1, -1 } };
    hdg_kargs a = { .nitems = 3, .in = { &uu[0][0] }, .out = { &out[0][0] }, .imap = { &map[0][0] } };
    if (fn) fn(0, 3, &a);
    for (int f = 0; f < 3 && fn; f++)
        for (int jj = 0; jj < 2; jj++) {
            double ref = uu[map[f][0]][TK_FMASK[map[f][1]][jj]];
            if (map[f][2] >= 0) ref -= uu[map[f][2]][TK_FMASK[map[f][3]][1 - jj]];
            CHECK_NEAR(out[f][jj], ref, 0, "face jump");
        }
    if (h) dlclose(h);
    cleanup("face");
    free(src);
    hdg_str_free(&p);
    hdg_ir_module_free(m);
}

/* ------------------------- random expressions, bit-exact vs evaluation */

typedef struct rnode { int op; double c; int leaf; struct rnode *a, *b, *s; } rnode;
enum { R_CONST, R_PARAM, R_IN, R_ADD, R_SUB, R_MUL, R_DIV, R_NEG, R_MIN, R_SEL, R_POWI, R_SIN, R_ATAN2, R_N };
static rnode pool[16384];
static int npool;

static rnode *rtree(int depth)
{
    rnode *n = &pool[npool++];
    memset(n, 0, sizeof *n);
    n->op = depth == 0 ? (int)((urand() + 1) * 1.5) : 3 + (int)((urand() + 1) * 5) % (R_N - 3);
    if (n->op > R_IN && depth == 0) n->op = R_CONST;
    n->c = round(urand() * 40) / 8;     /* exact eighths, some negative, some zero */
    n->leaf = (int)((urand() + 1) * 2) % 4;
    if (n->op >= R_ADD) {
        n->a = rtree(depth - 1);
        n->b = rtree(depth - 1);
        n->s = rtree(depth - 1);
    }
    return n;
}

static double reval(const rnode *n, const double *par, const double *in)
{
    switch (n->op) {
    case R_CONST: return n->c;
    case R_PARAM: return par[n->leaf];
    case R_IN: return in[n->leaf];
    case R_ADD: return reval(n->a, par, in) + reval(n->b, par, in);
    case R_SUB: return reval(n->a, par, in) - reval(n->b, par, in);
    case R_MUL: return reval(n->a, par, in) * reval(n->b, par, in);
    case R_DIV: return reval(n->a, par, in) / reval(n->b, par, in);
    case R_NEG: return -reval(n->a, par, in);
    case R_MIN: return fmin(reval(n->a, par, in), reval(n->b, par, in));
    case R_SEL: return reval(n->s, par, in) < reval(n->b, par, in) ? reval(n->a, par, in) : reval(n->b, par, in);
    case R_POWI: return hdg_ir_powi_eval(reval(n->a, par, in), n->leaf - 1);
    case R_SIN: return sin(reval(n->a, par, in));
    default: return atan2(reval(n->a, par, in), reval(n->b, par, in));
    }
}

static hdg_ir_expr *rbuild(hdg_ir_kernel *k, const rnode *n, hdg_ir_tensor *u)
{
    switch (n->op) {
    case R_CONST: return hdg_ir_num(k, n->c);
    case R_PARAM: return hdg_ir_param(k, n->leaf, NULL);
    case R_IN: return hdg_ir_ld1(k, u, hdg_ir_int(k, n->leaf));
    case R_NEG: return hdg_ir_neg(k, rbuild(k, n->a, u));
    case R_POWI: return hdg_ir_powi(k, rbuild(k, n->a, u), n->leaf - 1);
    case R_SIN: return hdg_ir_call(k, HDG_FN_SIN, rbuild(k, n->a, u));
    case R_SEL:
        return hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_LT, rbuild(k, n->s, u), rbuild(k, n->b, u)), rbuild(k, n->a, u),
                             rbuild(k, n->b, u));
    default: break;
    }
    hdg_ir_expr *a = rbuild(k, n->a, u), *b = rbuild(k, n->b, u);
    switch (n->op) {
    case R_ADD: return hdg_ir_add(k, a, b);
    case R_SUB: return hdg_ir_sub(k, a, b);
    case R_MUL: return hdg_ir_mul(k, a, b);
    case R_DIV: return hdg_ir_div(k, a, b);
    case R_MIN: return hdg_ir_min(k, a, b);
    default: return hdg_ir_call2(k, HDG_FN_ATAN2, a, b);
    }
}

static int same_double(double x, double y) { return x == y || (x != x && y != y); }

static void test_random_exprs(void)
{
    enum { NX = 48 };
    hdg_ir_module *m = hdg_ir_module_new("rand");
    rnode *trees[NX];
    npool = 0;
    for (int x = 0; x < NX; x++) trees[x] = rtree(1 + x % 5);
    const char *names[2] = { "rand_raw", "rand_opt" };
    for (int v = 0; v < 2; v++) {
        hdg_ir_kernel *k = hdg_ir_kernel_new(m, names[v], HDG_KITEM_ELEMENT);
        hdg_ir_tensor *u = hdg_ir_input(k, "u", HDG_SHAPE(4), "");
        hdg_ir_tensor *o = hdg_ir_output(k, "o", HDG_SHAPE(NX), "");
        for (int x = 0; x < NX; x++) hdg_ir_assign(k, hdg_ir_ld1(k, o, hdg_ir_int(k, x)), rbuild(k, trees[x], u));
        hdg_error err;
        if (v) CHECK(hdg_ir_optimize(k, HDG_IR_OPT_DEFAULT, &err) == HDG_OK, "%s", err.msg);
    }
    /* ints: index arithmetic, imin/imax, mod, the item, an int table, names that are C keywords */
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "ints", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *perm = hdg_ir_table_int(m, "perm", HDG_SHAPE(4), (int[]){ 3, 1, 0, 2 });
    hdg_ir_tensor *o = hdg_ir_output(k, "int", HDG_SHAPE(4, 3), "");
    hdg_ir_tensor *loc = hdg_ir_local(k, "sin", HDG_IR_INT, HDG_SHAPE(4));
    hdg_ir_expr *i = hdg_ir_for(k, "e", 4);
    hdg_ir_assign(k, hdg_ir_ld1(k, loc, hdg_ir_ld1(k, perm, i)), hdg_ir_mod(k, hdg_ir_add(k, hdg_ir_mul(k, i, hdg_ir_int(k, 7)), hdg_ir_item(k)), hdg_ir_int(k, 5)));
    hdg_ir_end(k);
    i = hdg_ir_for(k, "a", 4);
    hdg_ir_expr *li = hdg_ir_ld1(k, loc, i);
    hdg_ir_assign(k, hdg_ir_ld2(k, o, i, hdg_ir_int(k, 0)), hdg_ir_todbl(k, hdg_ir_min(k, li, hdg_ir_div(k, hdg_ir_mul(k, i, i), hdg_ir_int(k, 2)))));
    hdg_ir_assign(k, hdg_ir_ld2(k, o, i, hdg_ir_int(k, 1)), hdg_ir_todbl(k, hdg_ir_max(k, li, hdg_ir_neg(k, i))));
    hdg_ir_assign(k, hdg_ir_ld2(k, o, i, hdg_ir_int(k, 2)),
                  hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_OR, hdg_ir_cmp(k, HDG_E_EQ, li, hdg_ir_int(k, 0)),
                                              hdg_ir_not(k, hdg_ir_cmp(k, HDG_E_AND, hdg_ir_cmp(k, HDG_E_GE, i, hdg_ir_int(k, 1)),
                                                                       hdg_ir_cmp(k, HDG_E_LE, i, hdg_ir_int(k, 2))))),
                                hdg_ir_add(k, hdg_ir_time(k), hdg_ir_powi(k, hdg_ir_todbl(k, li), -3)),
                                hdg_ir_call(k, HDG_FN_FLOOR, hdg_ir_pow(k, hdg_ir_todbl(k, li), hdg_ir_num(k, 1.5)))));
    hdg_ir_end(k);
    char *src = emit(m, NULL);
    void *h = build("rand", src);
    hdg_kernel_fn fr = sym(h, "rand_raw"), fo = sym(h, "rand_opt"), fi = sym(h, "ints");
    double par[4] = { 0.75, -1.25, 3.0, 0.0 }, in[2][4] = { { 0.5, -2.0, 1.0, 0.0 }, { -0.375, 4.0, -1.5, 2.0 } };
    double outr[2][NX], outo[2][NX];
    hdg_kargs ar = { .nitems = 2, .params = par, .in = { in[0] }, .out = { outr[0] } };
    hdg_kargs ao = { .nitems = 2, .params = par, .in = { in[0] }, .out = { outo[0] } };
    if (fr && fo) {
        poison_stack();
        fr(0, 2, &ar);
        poison_stack();
        fo(0, 2, &ao);
        int bad = 0;
        for (int e = 0; e < 2; e++)
            for (int x = 0; x < NX; x++) {
                double ref = reval(trees[x], par, in[e]);
                bad += !same_double(outr[e][x], ref) || !same_double(outo[e][x], ref);
                CHECK(same_double(outr[e][x], ref), "raw expr %d item %d: %.17g vs %.17g", x, e, outr[e][x], ref);
                CHECK(same_double(outo[e][x], ref), "opt expr %d item %d: %.17g vs %.17g", x, e, outo[e][x], ref);
            }
        if (bad) fprintf(stderr, "%s\n", src);
    }
    if (fi) {
        double out[2][12];
        hdg_kargs ai = { .nitems = 2, .t = 0.5, .out = { out[0] } };
        fi(0, 2, &ai);
        const int pm[4] = { 3, 1, 0, 2 };
        for (int e = 0; e < 2; e++) {
            int s[4];
            for (int x = 0; x < 4; x++) s[pm[x]] = (x * 7 + e) % 5;
            for (int x = 0; x < 4; x++) {
                int mn = s[x] < x * x / 2 ? s[x] : x * x / 2, mx = s[x] > -x ? s[x] : -x;
                double sel = (s[x] == 0 || !(x >= 1 && x <= 2)) ? 0.5 + 1.0 / ((double)s[x] * s[x] * s[x])
                                                                 : floor(pow(s[x], 1.5));
                CHECK(out[e][x * 3] == mn && out[e][x * 3 + 1] == mx, "ints %d %d: %g %g", e, x, out[e][x * 3], out[e][x * 3 + 1]);
                CHECK(same_double(out[e][x * 3 + 2], sel), "select %d %d: %g vs %g", e, x, out[e][x * 3 + 2], sel);
            }
        }
    }
    if (h) dlclose(h);
    cleanup("rand");
    free(src);
    hdg_ir_module_free(m);
}

/* --------------- random programs: raw vs optimized, bit-exact (loops, stores) */

typedef struct gen {
    hdg_ir_kernel *k;
    hdg_ir_tensor *u, *G, *L0, *L1;
    hdg_ir_expr *loops[8];
    int extent[8], nloops;
    hdg_ir_expr *lets[256];
    int nlets, budget;
    int ext;   /* 0: loops of 1..4 trips; else all of ext trips, and more of them (for fusion) */
} gen;

static int irand(int n) { return (int)((urand() + 1) * 0.5 * n) % n; }

/* An index into a dimension of size dim, in bounds by construction. */
static hdg_ir_expr *gidx(gen *g, int dim)
{
    hdg_ir_kernel *k = g->k;
    int r = g->ext && irand(4) ? 1 : irand(3);   /* for fusion: mostly a loop index */
    if (r == 1 && g->nloops) {
        int l = irand(g->nloops);
        if (g->extent[l] <= dim) return g->loops[l];
    }
    if (r == 2 && g->nloops) {
        hdg_ir_expr *v = g->loops[irand(g->nloops)];
        return hdg_ir_mod(k, hdg_ir_add(k, v, hdg_ir_int(k, irand(3))), hdg_ir_int(k, dim));
    }
    return hdg_ir_int(k, irand(dim));
}

static hdg_ir_expr *gexpr(gen *g, int depth)
{
    hdg_ir_kernel *k = g->k;
    if (depth == 0 || irand(4) == 0) {
        switch (irand(8)) {
        case 0: return hdg_ir_num(k, round(urand() * 24) / 8);
        case 1: return hdg_ir_param(k, irand(3), NULL);
        case 2: return hdg_ir_ld1(k, g->u, gidx(g, 4));
        case 3: return hdg_ir_ld1(k, g->G, hdg_ir_int(k, irand(3)));
        case 4: return hdg_ir_ld1(k, g->L0, gidx(g, 4));
        case 5: return hdg_ir_ld2(k, g->L1, gidx(g, 3), gidx(g, 4));
        case 6: if (g->nlets) return g->lets[irand(g->nlets)];
                return hdg_ir_num(k, 0.5);
        default: return g->nloops ? hdg_ir_todbl(k, g->loops[irand(g->nloops)]) : hdg_ir_num(k, 1);
        }
    }
    hdg_ir_expr *a = gexpr(g, depth - 1), *b = gexpr(g, depth - 1);
    switch (irand(10)) {
    case 0: case 1: return hdg_ir_add(k, a, b);
    case 2: return hdg_ir_sub(k, a, b);
    case 3: case 4: return hdg_ir_mul(k, a, b);
    case 5: return hdg_ir_div(k, a, hdg_ir_add(k, hdg_ir_num(k, 2), hdg_ir_mul(k, b, b)));
    case 6: return hdg_ir_neg(k, a);
    case 7: return hdg_ir_call(k, HDG_FN_SIN, a);
    case 8: return hdg_ir_min(k, a, b);
    default: return hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_LT, a, b), gexpr(g, depth - 1), b);
    }
}

static void gblock(gen *g, int depth)
{
    hdg_ir_kernel *k = g->k;
    int n = 1 + irand(4), nlets = g->nlets;
    for (int s = 0; s < n && g->budget > 0; s++, g->budget--) {
        int r = irand(8);
        if (r < 2 && depth < 3) {
            int ext = 1 + irand(4);
            g->extent[g->nloops] = ext;
            g->loops[g->nloops++] = hdg_ir_for(k, "i", ext);
            gblock(g, depth + 1);
            g->nloops--;
            hdg_ir_end(k);
        } else if (r < 4 && g->nlets < 256) {
            g->lets[g->nlets++] = hdg_ir_let(k, "v", gexpr(g, 3));
        } else {
            hdg_ir_expr *dst = irand(2) ? hdg_ir_ld1(k, g->L0, gidx(g, 4))
                                        : hdg_ir_ld2(k, g->L1, gidx(g, 3), gidx(g, 4));
            if (irand(2)) hdg_ir_accum(k, dst, gexpr(g, 3));
            else hdg_ir_assign(k, dst, gexpr(g, 3));
        }
    }
    g->nlets = nlets;   /* lets of a loop body are not visible after it */
}

/* For fusion: loop nests of g->ext trips (and an inner loop of 4), stores
 * mostly at the loops' indices, now and then a statement between them. */
static void gnests(gen *g)
{
    hdg_ir_kernel *k = g->k;
    for (int s = 0; s < 6; s++, g->budget--) {
        if (irand(3) == 0) {   /* between the nests: reads and writes a few entries */
            hdg_ir_expr *src = hdg_ir_ld2(k, g->L1, hdg_ir_int(k, irand(3)), hdg_ir_int(k, irand(4)));
            hdg_ir_expr *dst = irand(2) ? hdg_ir_ld2(k, g->L1, hdg_ir_int(k, irand(3)), hdg_ir_int(k, irand(4)))
                                        : hdg_ir_ld1(k, g->L0, hdg_ir_int(k, irand(4)));
            hdg_ir_accum(k, dst, hdg_ir_add(k, src, gexpr(g, 1)));
        }
        if (irand(3) == 0 && g->nlets < 256)   /* a let the nests after it may use */
            g->lets[g->nlets++] = hdg_ir_let(k, "v", hdg_ir_add(k, gexpr(g, 1), hdg_ir_ld1(k, g->L0, hdg_ir_int(k, irand(4)))));
        g->extent[g->nloops] = g->ext;
        g->loops[g->nloops++] = hdg_ir_for(k, "i", g->ext);
        int inner = irand(2);
        if (inner) {
            g->extent[g->nloops] = 4;
            g->loops[g->nloops++] = hdg_ir_for(k, "j", 4);
        }
        for (int n = 1 + irand(2); n > 0; n--) {
            hdg_ir_expr *dst = irand(3) ? hdg_ir_ld2(k, g->L1, gidx(g, 3), gidx(g, 4)) : hdg_ir_ld1(k, g->L0, gidx(g, 4));
            if (irand(4)) hdg_ir_accum(k, dst, gexpr(g, 2));
            else hdg_ir_assign(k, dst, gexpr(g, 2));
        }
        for (; inner >= 0; inner--) {
            g->nloops--;
            hdg_ir_end(k);
        }
    }
}

static void gprogram(hdg_ir_module *m, const char *name, unsigned long long seed, int ext)
{
    rng = seed;
    gen g = { .k = hdg_ir_kernel_new(m, name, HDG_KITEM_ELEMENT), .budget = 30, .ext = ext };
    hdg_ir_kernel *k = g.k;
    g.u = hdg_ir_input(k, "u", HDG_SHAPE(4), "");
    g.G = hdg_ir_geom(k, "G", HDG_SHAPE(3), "");
    hdg_ir_tensor *o = hdg_ir_output(k, "o", HDG_SHAPE(4, 4), "");
    g.L0 = hdg_ir_local(k, "L0", HDG_IR_DOUBLE, HDG_SHAPE(4));
    g.L1 = hdg_ir_local(k, "L1", HDG_IR_DOUBLE, HDG_SHAPE(3, 4));
    hdg_ir_fill(k, g.L0, hdg_ir_num(k, 0));
    hdg_ir_fill(k, g.L1, hdg_ir_num(k, 0));
    if (ext) gnests(&g);
    while (!ext && g.budget > 0) gblock(&g, 0);
    hdg_ir_expr *j = hdg_ir_for(k, "j", 4);
    hdg_ir_assign(k, hdg_ir_ld2(k, o, hdg_ir_int(k, 0), j), hdg_ir_ld1(k, g.L0, j));
    hdg_ir_expr *i = hdg_ir_for(k, "i", 3);
    hdg_ir_assign(k, hdg_ir_ld2(k, o, hdg_ir_add(k, i, hdg_ir_int(k, 1)), j), hdg_ir_ld2(k, g.L1, i, j));
    hdg_ir_end(k);
    hdg_ir_end(k);
}

static int count_loops(const hdg_ir_stmt *s)
{
    int n = 0;
    for (; s; s = s->next)
        if (s->kind == HDG_S_FOR) n += 1 + count_loops(s->body.first);
    return n;
}

static int count_accums(const hdg_ir_stmt *s)
{
    int n = 0;
    for (; s; s = s->next)
        n += s->kind == HDG_S_FOR ? count_accums(s->body.first) : s->kind == HDG_S_STORE && s->accumulate;
    return n;
}

/* What the pass run alone changed: loops merged (fusion), += made = (unfill). */
static int changes(unsigned flags, const hdg_ir_stmt *after, int loops, int accums)
{
    if (flags == HDG_IR_FUSE) return loops - count_loops(after);
    if (flags == HDG_IR_UNFILL) return accums - count_accums(after);
    return 0;
}

/* nprog programs (loops of ext trips, 0: mixed), program p optimized with
 * flags[p % nflags]; every output must be the raw program's to the bit (a
 * zero's sign aside). min_changed > 0: the programs given a single pass
 * (fusion or unfill) must show at least that many changes. */
static void random_programs(const char *tag, int nprog, int ext, const unsigned *flags, int nflags, int min_changed)
{
    hdg_ir_module *m = hdg_ir_module_new(tag);
    char name[32];
    long long before = 0, after = 0;
    int changed = 0;
    for (int p = 0; p < nprog; p++) {
        snprintf(name, sizeof name, "raw%d", p);
        gprogram(m, name, 1000003ULL * (p + 1), ext);
        snprintf(name, sizeof name, "opt%d", p);
        gprogram(m, name, 1000003ULL * (p + 1), ext);
        hdg_ir_kernel *raw = m->kernels[2 * p], *opt = m->kernels[2 * p + 1];
        hdg_error err;
        CHECK(hdg_ir_verify(raw, &err) == HDG_OK, "program %d: %s", p, err.msg);
        int loops = count_loops(opt->body.first), accums = count_accums(opt->body.first);
        CHECK(hdg_ir_optimize(opt, flags[p % nflags], &err) == HDG_OK, "program %d: %s", p, err.msg);
        changed += changes(flags[p % nflags], opt->body.first, loops, accums);
        before += hdg_ir_kernel_cost(raw).flops;
        after += hdg_ir_kernel_cost(opt).flops;
    }
    if (min_changed)
        CHECK(changed >= min_changed, "%s: the pass changed %d statements, expected %d or more", tag, changed, min_changed);
    else CHECK(after < before, "optimized programs: %lld flops, raw %lld", after, before);
    char *src = emit(m, NULL);
    void *h = build(tag, src);
    double par[3] = { 0.75, -1.25, 2.5 }, in[2][4] = { { 0.5, -2.0, 1.0, 0.25 }, { -0.375, 4.0, -1.5, 2.0 } };
    double geom[2][3] = { { 1.5, -0.5, 2.0 }, { 0.125, 3.0, -1.0 } };
    for (int p = 0; p < nprog && h; p++) {
        double outr[2][16], outo[2][16];
        snprintf(name, sizeof name, "raw%d", p);
        hdg_kernel_fn fr = sym(h, name);
        snprintf(name, sizeof name, "opt%d", p);
        hdg_kernel_fn fo = sym(h, name);
        hdg_kargs ar = { .nitems = 2, .geom = geom[0], .params = par, .in = { in[0] }, .out = { outr[0] } };
        hdg_kargs ao = { .nitems = 2, .geom = geom[0], .params = par, .in = { in[0] }, .out = { outo[0] } };
        if (!fr || !fo) continue;
        poison_stack();
        fr(0, 2, &ar);
        poison_stack();
        fo(0, 2, &ao);
        int bad = 0;
        for (int e = 0; e < 2; e++)
            for (int x = 0; x < 16; x++) bad += !same_double(outr[e][x], outo[e][x]);
        CHECK(!bad, "program %d: %d values differ after optimization", p, bad);
        if (bad) {
            hdg_str s;
            hdg_str_init(&s);
            hdg_ir_print(m->kernels[2 * p], &s);
            hdg_ir_print(m->kernels[2 * p + 1], &s);
            fprintf(stderr, "%s", s.s);
            hdg_str_free(&s);
        }
    }
    if (h) dlclose(h);
    cleanup(tag);
    free(src);
    hdg_ir_module_free(m);
}

static void test_random_programs(void)
{
    static const unsigned each[] = { HDG_IR_OPT_DEFAULT, HDG_IR_FOLD, HDG_IR_CSE, HDG_IR_LICM, HDG_IR_DCE,
                                     HDG_IR_CSE | HDG_IR_LICM };   /* each pass alone too */
    random_programs("prog", 24, 0, each, 6, 0);
    static const unsigned fuse[] = { HDG_IR_FUSE, HDG_IR_OPT_HOST };   /* loops of 3: many to fuse, or not */
    random_programs("fuse", 48, 3, fuse, 2, 10);
    static const unsigned unfill[] = { HDG_IR_UNFILL, HDG_IR_OPT_HOST, HDG_IR_UNFILL | HDG_IR_FUSE };
    random_programs("unfill", 48, 3, unfill, 3, 20);   /* the nests' first += into the filled locals */
    random_programs("unfill0", 24, 0, unfill, 3, 10);
}

/* ------------------------------------------------------------ 5. origins */

static void test_origins(void)
{
    hdg_ir_module *m = hdg_ir_module_new("orig");
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "local", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *o = hdg_ir_output(k, "o", HDG_SHAPE(3), "");
    hdg_ir_set_origin(k, "poisson.hdg", 14, 5, "(q/kappa, r)");
    hdg_ir_expr *i = hdg_ir_for(k, "i", 3);
    hdg_ir_assign(k, hdg_ir_ld1(k, o, i), hdg_ir_div(k, hdg_ir_todbl(k, i), hdg_ir_param(k, 0, "kappa")));
    hdg_ir_end(k);
    hdg_ir_set_origin(k, "poisson.hdg", 15, 1, "tricky */ text /* here");
    hdg_ir_accum(k, hdg_ir_ld1(k, o, hdg_ir_int(k, 0)), hdg_ir_num(k, 1));
    char *src = emit(m, NULL);
    CHECK(strstr(src, "        /* poisson.hdg:14:5: (q/kappa, r) */\n        HDG_UNROLL for (int i = 0; i < 3; ++i) {\n"
                      "            o[i] = (double)i / a->params[0];\n"), "origin comment:\n%s", src);
    CHECK(count_substr(src, "poisson.hdg:14:5") == 1, "one comment per change of origin");
    CHECK(strstr(src, "/* poisson.hdg:15:1: tricky * / text / * here */"), "escaped:\n%s", src);
    void *h = build("orig", src);
    if (h) dlclose(h);
    cleanup("orig");
    free(src);

    hdg_emit_c_options opt = { .line_directives = 1, .file_name = "orig_lines.c" };
    src = emit(m, &opt);
    CHECK(strstr(src, "#line 14 \"poisson.hdg\"\n        HDG_UNROLL for (int i = 0; i < 3; ++i) {\n#line "), "#line:\n%s", src);
    /* every #line back into the generated file names the line that follows it */
    int line = 1, checked = 0;
    for (const char *p = src; *p; p = strchr(p, '\n') + 1, line++) {
        int n;
        char file[64];
        if (sscanf(p, "#line %d \"%63[^\"]\"", &n, file) == 2 && !strcmp(file, "orig_lines.c")) {
            CHECK(n == line + 1, "#line %d on line %d", n, line);
            checked++;
        }
        if (!strchr(p, '\n')) break;
    }
    CHECK(checked == 3, "%d #line directives back", checked);
    h = build("orig_lines", src);
    if (h) dlclose(h);
    cleanup("orig_lines");
    free(src);

    /* an invalid module is refused with the verifier's message */
    hdg_ir_kernel *bad = hdg_ir_kernel_new(m, "bad", HDG_KITEM_ELEMENT);
    hdg_ir_for(bad, "i", 2);
    hdg_str s;
    hdg_error err;
    hdg_str_init(&s);
    CHECK(hdg_emit_c(m, &s, NULL, &err) == HDG_EINTERNAL && strstr(err.msg, "IR kernel bad: 1 loop(s) left open"),
          "%s", err.msg);
    hdg_str_free(&s);
    hdg_ir_module_free(m);
}

/* ------------------------------------------- locals too large for a stack */

/* 1100 x 1100 doubles (9.7 MB, the size of the HDG local matrix near k = 24) are more
 * than a default 8 MiB stack: the kernel keeps them in a block it mallocs, and runs
 * on a thread with a 1 MiB stack. */
enum { BIG = 1100 };
static hdg_kernel_fn big_fn;
static double big_u[2][BIG], big_v[2][BIG];

static void *run_big(void *arg)
{
    big_fn(0, 2, arg);
    return NULL;
}

static void test_big_locals(void)
{
    hdg_ir_module *m = hdg_ir_module_new("big");
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "big", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *u = hdg_ir_input(k, "u", HDG_SHAPE(BIG), "");
    hdg_ir_tensor *v = hdg_ir_output(k, "v", HDG_SHAPE(BIG), "u_i sum_j u_j");
    hdg_ir_tensor *A = hdg_ir_local(k, "A", HDG_IR_DOUBLE, HDG_SHAPE(BIG, BIG));
    hdg_ir_tensor *r = hdg_ir_local(k, "r", HDG_IR_DOUBLE, HDG_SHAPE(BIG));
    hdg_ir_expr *i = hdg_ir_for(k, "i", BIG);
    hdg_ir_expr *j = hdg_ir_for(k, "j", BIG);
    hdg_ir_assign(k, hdg_ir_ld2(k, A, i, j), hdg_ir_mul(k, hdg_ir_ld1(k, u, i), hdg_ir_ld1(k, u, j)));
    hdg_ir_end(k);
    hdg_ir_end(k);
    hdg_ir_fill(k, r, hdg_ir_num(k, 0));
    i = hdg_ir_for(k, "i", BIG);
    j = hdg_ir_for(k, "j", BIG);
    hdg_ir_accum(k, hdg_ir_ld1(k, r, i), hdg_ir_ld2(k, A, i, j));
    hdg_ir_end(k);
    hdg_ir_end(k);
    hdg_ir_copy(k, v, r);
    char *src = emit(m, NULL);
    CHECK(strstr(src, "malloc(9688832)") && strstr(src, "double (*restrict A)[1100] = (double (*)[1100])(hdg_heap + 0);") &&
          strstr(src, "free(hdg_heap);"), "A and r in a malloc'ed block:\n%.2000s", src);
    void *h = build("big", src);
    big_fn = sym(h, "big");
    double sum[2] = {0, 0};
    for (int e = 0; e < 2; e++)
        for (int l = 0; l < BIG; l++) sum[e] += big_u[e][l] = urand();
    hdg_kargs args = { .nitems = 2, .in = { big_u[0] }, .out = { big_v[0] } };
    pthread_attr_t attr;
    pthread_t tid;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1 << 20);
    int rc = big_fn ? pthread_create(&tid, &attr, run_big, &args) : -1;
    CHECK(rc == 0, "thread with a 1 MiB stack");
    if (rc == 0) pthread_join(tid, NULL);
    pthread_attr_destroy(&attr);
    for (int e = 0; e < 2 && rc == 0; e++)
        for (int l = 0; l < BIG; l += 97) CHECK_NEAR(big_v[e][l], big_u[e][l] * sum[e], 1e-11, "v = u sum(u)");
    if (h) dlclose(h);
    cleanup("big");
    free(src);
    hdg_ir_module_free(m);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/hdg_ir_emit_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    have_clang = system("command -v clang > /dev/null 2>&1") == 0;
    test_abi_header();
    test_mass();
    test_coef();
    test_dense();
    test_big_locals();
    test_face();
    test_random_exprs();
    test_random_programs();
    test_origins();
    if (getenv("HDG_IR_KEEP")) fprintf(stderr, "generated sources kept in %s\n", tmpdir);
    else rmdir(tmpdir);
    return test_summary("ir_emit");
}
