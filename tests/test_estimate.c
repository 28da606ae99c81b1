/* test_estimate.c — the error estimate eta = ||u* - u|| of an HDG problem with a
 * post-processed unknown (docs/method.md, "Error estimate from post-processing"), through the
 * public API (include/hdgc.h only):
 *   - on three problems with exact solutions (poisson_exp: no eigenfunction;
 *     reaction_diffusion: variable kappa, reaction, non-homogeneous Dirichlet;
 *     convection_diffusion_post: non-symmetric, Neumann outflow) at k = 1, 2, 3 on
 *     square:8, 16, 32, eta tracks the true error: 0.5 <= eta / ||u - u_h|| <= 2 (the
 *     report's effectivity.u is that ratio), and the per-element indicators eta_K
 *     (hdgc_result_indicators) are ne finite values whose squares sum to eta^2;
 *   - on a problem without an exact solution the estimate is reported (no error, no
 *     effectivity) and decreases at rate k+1 (log2 of the ratio from square:16 to 32
 *     within 0.6 of k+1);
 *   - a problem without a post-processed unknown reports no estimate; "fields off" keeps
 *     the estimate but no indicators. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdgc.h"
#include "test.h"

static hdgc_result *solve(const char *file, int order, int n, int fields)
{
    hdg_error err = {0};
    hdgc_problem *p = NULL;
    if (hdgc_problem_load(file, &p, &err)) {
        CHECK(0, "%s: %s", file, err.msg);
        return NULL;
    }
    char o[16], m[32];
    snprintf(o, sizeof o, "%d", order);
    snprintf(m, sizeof m, "square:%d", n);
    hdg_status st = hdgc_problem_set_option(p, "order", o, &err);
    if (!st) st = hdgc_problem_set_option(p, "mesh", m, &err);
    if (!st && !fields) st = hdgc_problem_set_option(p, "fields", "off", &err);
    hdgc_result *r = NULL;
    if (!st) st = hdgc_solve(p, &r, &err);
    CHECK(st == HDG_OK, "%s k=%d %s: %s", file, order, m, err.msg);
    hdgc_problem_free(p);
    if (st) hdgc_result_free(r);
    return st ? NULL : r;
}

/* The indicators: ne finite, non-negative values whose squares sum to eta^2. */
static void check_indicators(const hdgc_result *r, int n, double eta, const char *what)
{
    const double *ek = NULL;
    int ne = hdgc_result_indicators(r, "u", &ek);
    CHECK(ne == 2 * n * n && ek, "%s: %d indicators, want %d", what, ne, 2 * n * n);
    double s = 0;
    int bad = 0;
    for (int e = 0; ek && e < ne; e++) {
        bad += !(isfinite(ek[e]) && ek[e] >= 0);
        s += ek[e] * ek[e];
    }
    CHECK(!bad, "%s: %d indicators not finite or negative", what, bad);
    CHECK(fabs(sqrt(s) - eta) <= 1e-12 * eta, "%s: sqrt(sum eta_K^2) %.17g vs eta %.17g", what, sqrt(s), eta);
}

/* eta / ||u - u_h|| within [0.5, 2] for k = 1..3 on square:8, 16, 32. */
static void tracks(const char *file)
{
    const char *name = strrchr(file, '/') + 1;
    for (int k = 1; k <= 3; k++) {
        printf("%-32s k=%d  eta/error:", name, k);
        for (int n = 8; n <= 32; n *= 2) {
            hdgc_result *r = solve(file, k, n, n == 8);
            if (!r) continue;
            double eta = hdgc_result_estimate(r, "u"), e = hdgc_result_error(r, "u"), ratio = eta / e;
            double eff = hdgc_result_number(r, "effectivity.u");
            printf("  %2d: %.3e/%.3e = %.3f", n, eta, e, ratio);
            CHECK(ratio >= 0.5 && ratio <= 2, "%s k=%d square:%d: eta %.3e / error %.3e = %.3f outside [0.5, 2]", name,
                  k, n, eta, e, ratio);
            CHECK(fabs(eff - ratio) <= 1e-12 * ratio, "%s k=%d square:%d: effectivity.u %.17g vs %.17g", name, k, n,
                  eff, ratio);
            CHECK(isnan(hdgc_result_estimate(r, "q")) && isnan(hdgc_result_estimate(r, "ustar")),
                  "%s: an estimate for q or ustar", name);
            if (n == 8) {   /* fields on: the indicators; and the summary line */
                check_indicators(r, n, eta, name);
                CHECK(strstr(hdgc_result_summary(r), "  estimate u ") &&
                      strstr(hdgc_result_summary(r), "(effectivity "), "%s: summary:\n%s", name,
                      hdgc_result_summary(r));
            } else {
                CHECK(hdgc_result_indicators(r, "u", NULL) == 0, "%s: indicators with fields off", name);
            }
            hdgc_result_free(r);
        }
        printf("\n");
    }
}

/* No exact solution: the estimate alone, decreasing at rate k+1. */
static void without_exact(const char *file)
{
    for (int k = 1; k <= 3; k++) {
        double eta[3] = {NAN, NAN, NAN};
        for (int i = 0, n = 8; i < 3; i++, n *= 2) {
            hdgc_result *r = solve(file, k, n, i == 0);
            if (!r) continue;
            eta[i] = hdgc_result_estimate(r, "u");
            CHECK(isfinite(eta[i]) && eta[i] > 0, "noexact k=%d square:%d: estimate %g", k, n, eta[i]);
            CHECK(!hdgc_result_has(r, "errors.u") && !hdgc_result_has(r, "effectivity.u"),
                  "noexact: an error or effectivity reported");
            CHECK(strstr(hdgc_result_summary(r), "  estimate u ") && !strstr(hdgc_result_summary(r), "effectivity") &&
                  !strstr(hdgc_result_summary(r), "L2 error"), "noexact summary:\n%s", hdgc_result_summary(r));
            if (i == 0) check_indicators(r, n, eta[i], "noexact");
            hdgc_result_free(r);
        }
        double r1 = log2(eta[0] / eta[1]), r2 = log2(eta[1] / eta[2]);
        printf("poisson_noexact k=%d  eta %.3e %.3e %.3e  rates %.2f %.2f\n", k, eta[0], eta[1], eta[2], r1, r2);
        CHECK(fabs(r2 - (k + 1)) <= 0.6, "noexact k=%d: rate %.2f from square:16 to 32, want %d", k, r2, k + 1);
    }
}

/* No post-processed unknown: no estimate anywhere, the rest as before. */
static void without_post(const char *file)
{
    hdgc_result *r = solve(file, 2, 8, 1);
    if (!r) return;
    static const double one = 1;
    const double *ek = &one;   /* must be reset to NULL */
    CHECK(isnan(hdgc_result_estimate(r, "u")) && !hdgc_result_has(r, "estimate") &&
          !hdgc_result_has(r, "effectivity"), "an estimate without a post-processed unknown");
    CHECK(hdgc_result_indicators(r, "u", &ek) == 0 && ek == NULL, "indicators without a post-processed unknown");
    CHECK(!strstr(hdgc_result_summary(r), "  estimate ") && strstr(hdgc_result_summary(r), "L2 error u"),
          "summary:\n%s", hdgc_result_summary(r));
    CHECK(!strstr(hdgc_result_report(r), "\"estimate\""), "report has an estimate");
    hdgc_result_free(r);
}

int main(int argc, char **argv)
{
    const char *group = argc > 1 ? argv[1] : "nopost";
    int all = !strcmp(group, "all");
    if (all || !strcmp(group, "poisson")) tracks(HDG_TEST_DATA "/hdg/poisson_exp.hdg");
    if (all || !strcmp(group, "reaction")) tracks(HDG_EXAMPLES "/reaction_diffusion.hdg");
    if (all || !strcmp(group, "convection")) tracks(HDG_TEST_DATA "/hdg/convection_diffusion_post.hdg");
    if (all || !strcmp(group, "noexact")) without_exact(HDG_TEST_DATA "/hdg/poisson_noexact.hdg");
    if (all || !strcmp(group, "nopost")) without_post(HDG_EXAMPLES "/convection_diffusion.hdg");
    return test_summary("estimate");
}
