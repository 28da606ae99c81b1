/* test_handwritten.c — the hand-written kernels (backends/handwritten/) against
 * the generated ones, through hdg_bench_kernels (what `hdgc bench kernels`
 * runs):
 *   - every set, its orders (1..8; poisson3d 1..6), on a perturbed mesh (square:4, or
 *     cube:2 for a problem on tetrahedra): every kernel agrees to
 *     HDG_HW_RTOL on every element, no mismatch;
 *   - a deliberately wrong hand-written kernel (this file's: poisson_local
 *     with one entry of K_e off by 1e-9 relative) is caught: one mismatch,
 *     the kernel named on stderr with its difference, and hdgc run's probe
 *     (hdg_hw_use_c) refuses it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_kernels.h"
#include "compiler/pipeline.h"
#include "test.h"
#include "test_problem.h"

#define MESH "square:4,perturb=0.25"
#define MESH3 "cube:2,perturb=0.25"   /* a set on tetrahedra (poisson3d) */

static int count_rows(const char *json, const char *what)
{
    int n = 0;
    for (const char *s = json; (s = strstr(s, what)); s++) n++;
    return n;
}

static void check_set(const hdg_hw_set *set)
{
    char file[512];
    snprintf(file, sizeof file, "%s/../%s", HDG_EXAMPLES, set->file);
    hdg_problem *p = test_load_problem(file, 0, NULL, 0);   /* its dimension picks the mesh */
    const char *mesh = p && p->dim == 3 ? MESH3 : MESH;
    hdg_problem_free(p);
    hdg_bench_kernels_opts o = {.file = file, .mesh = mesh, .kmin = set->kmin, .kmax = set->kmax, .reps = 1,
                                .threads = 1, .msg = stderr};
    hdg_report *rep = hdg_report_new();
    hdg_error err = {0};
    int mismatch = -1;
    hdg_status st = hdg_bench_kernels(&o, NULL, rep, &mismatch, &err);
    CHECK(st == HDG_OK, "%s: %s", set->module, err.msg);
    CHECK(mismatch == 0, "%s: %d kernels differ", set->module, mismatch);
    hdg_hw_kernel hw[HDG_HW_MAX];
    int nk = set->c_kernels(set->kmin, hw, &err);
    char *json = hdg_report_to_string(rep);
    int rows = count_rows(json, "\"kernel\"");
    CHECK(nk > 0 && rows == nk * (set->kmax - set->kmin + 1), "%s: %d rows for %d kernels x %d orders", set->module,
          rows, nk, set->kmax - set->kmin + 1);
    CHECK(!strstr(json, "\"agree\":\tfalse"), "%s: a row does not agree", set->module);
    printf("%s: %d kernels x orders %d..%d agree on %s\n", set->module, nk, set->kmin, set->kmax, mesh);
    free(json);
    hdg_report_free(rep);
}

/* ------------------------------------------------- a wrong hand-written kernel */

static hdg_kernel_fn right_local;
static long long wrong_item = 3;

static void wrong_local(long long begin, long long end, const hdg_kargs *a)
{
    right_local(begin, end, a);
    if (begin <= wrong_item && wrong_item < end) {
        double *K = a->out[0] + wrong_item * 81;   /* order 2: K_e is 9 x 9 */
        K[10] *= 1 + 1e-9;
    }
}

static int wrong_c(int k, hdg_hw_kernel *out, hdg_error *err)
{
    const hdg_hw_set *poisson = hdg_hw_find("poisson");
    int n = poisson->c_kernels(k, out, err);
    for (int j = 0; j < n; j++)
        if (!strcmp(out[j].name, "poisson_local")) right_local = out[j].fn, out[j].fn = wrong_local;
    return n;
}

static void check_wrong(void)
{
    hdg_hw_set wrong = *hdg_hw_find("poisson");
    wrong.c_kernels = wrong_c;
    char file[512];
    snprintf(file, sizeof file, "%s/poisson.hdg", HDG_EXAMPLES);
    FILE *log = tmpfile();
    hdg_bench_kernels_opts o = {.file = file, .mesh = MESH, .kmin = 2, .kmax = 2, .reps = 1, .threads = 1,
                                .set = &wrong, .msg = log};
    hdg_error err = {0};
    int mismatch = -1;
    hdg_status st = hdg_bench_kernels(&o, NULL, NULL, &mismatch, &err);
    char text[1024] = "";
    rewind(log);
    size_t n = fread(text, 1, sizeof text - 1, log);
    text[n] = '\0';
    fclose(log);
    CHECK(st == HDG_OK, "wrong kernel: %s", err.msg);
    CHECK(mismatch == 1, "wrong kernel: %d mismatches (want 1)", mismatch);
    CHECK(strstr(text, "order 2: poisson_local differs from the hand-written one: output Ke by") != NULL,
          "message: %s", text);
    CHECK(strstr(text, "at element 3, value 10") != NULL, "message names the element and value: %s", text);
    double d = 0;
    const char *by = strstr(text, "output Ke by ");
    CHECK(by && sscanf(by + 13, "%lf", &d) == 1 && d > 1e-10 && d < 1e-8, "difference %g (about 1e-9 / max|K|)", d);
    printf("wrong kernel caught: %s", text);
}

int main(void)
{
    const hdg_hw_set *const *sets = hdg_hw_sets();
    for (int i = 0; sets[i]; i++) check_set(sets[i]);
    check_wrong();
    return test_summary("handwritten");
}
