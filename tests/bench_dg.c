/* bench_dg.c — explicit DG throughput (not a test; built as bench_dg):
 * examples/maxwell2d.hdg on square:M (default 128) for N = 1..8, a few LSERK4
 * steps each through hdg_run_dg, reporting RHS evaluations per second, DoF
 * updates per second (whole steps) and the bandwidth of one RHS evaluation
 * against a STREAM triad measured in the same run.
 *   usage: bench_dg [M] [Nmin] [Nmax] [steps]
 * Bytes per RHS evaluation, counted as the minimum traffic: read U and write
 * rhs (2 x 8 B per DoF) plus the per-element geometry (8 B x 20) and face map
 * (4 B x 9); neighbour values are assumed to come from cache. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/run.h"
#include "runtime/geometry.h"
#include "runtime/lserk4.h"
#include "runtime/mesh.h"
#include "runtime/parallel.h"
#include "runtime/stream.h"

int main(int argc, char **argv)
{
    int M = argc > 1 ? atoi(argv[1]) : 128, n0 = argc > 2 ? atoi(argv[2]) : 1, n1 = argc > 3 ? atoi(argv[3]) : 8;
    int steps = argc > 4 ? atoi(argv[4]) : 4;
    hdg_error err;
    hdg_mesh m = {0};
    hdg_geom g = {0};
    if (hdg_mesh_square(&m, M, 0, 0, 1, 0, 1, &err) || hdg_geom_init(&g, &m, &err)) {
        fprintf(stderr, "bench_dg: %s\n", err.msg);
        return 1;
    }
    double rmin = 1e300;
    for (int e = 0; e < m.ne; e++) rmin = fmin(rmin, g.rin[e]);
    double triad = hdg_stream_triad(0, 5);
    printf("square:%d (%d elements), %d threads, STREAM triad %.2f GB/s, %d steps per order\n", M, m.ne,
           hdg_parallel_threads(), triad, steps);
    printf("%2s %10s %12s %14s %10s %8s %8s\n", "N", "dofs", "rhs evals/s", "dof updates/s", "rhs GB/s", "of triad",
           "GFlop/s");
    for (int N = n0; N <= n1; N++) {
        hdg_setting none = { NULL, 0 };
        hdg_frontend_options fo = { N, &none, 0 };
        hdg_diags d;
        hdg_diags_init(&d);
        hdg_problem *p = hdg_problem_load(HDG_EXAMPLES "/maxwell2d.hdg", &fo, &d);
        hdg_diags_free(&d);
        if (!p) return 1;
        hdg_run_options o;
        memset(&o, 0, sizeof o);
        o.use_cache = 1;
        o.cfl = 0.75;
        o.final_time = (steps - 0.5) * hdg_dg_dt(N, rmin, 0.75);
        hdg_report *rep = hdg_report_new();
        if (hdg_run_dg(p, &m, &o, rep, &err)) {
            fprintf(stderr, "bench_dg: %s\n", err.msg);
            return 1;
        }
        double dofs = hdg_report_get_number(rep, "dofs.total", NULL);
        double evals = hdg_report_get_number(rep, "perf.rhs_evals_per_s", NULL);
        double upd = hdg_report_get_number(rep, "perf.dof_updates_per_s", NULL);
        double gf = hdg_report_get_number(rep, "perf.rhs_gflops", NULL);
        double bytes = dofs * 16 + (double)m.ne * (8 * 20 + 4 * 9);
        double gbs = bytes * evals * 1e-9;
        printf("%2d %10.0f %12.1f %14.3e %10.2f %7.1f%% %8.2f\n", N, dofs, evals, upd, gbs, 100 * gbs / triad, gf);
        fflush(stdout);
        hdg_report_free(rep);
        hdg_problem_free(p);
    }
    hdg_geom_free(&g);
    hdg_mesh_free(&m);
    return 0;
}
