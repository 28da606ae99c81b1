/* test_dg_cuda.c — the explicit DG driver on a device (drivers/run_dg_cuda.c)
 * against the host driver (drivers/run_dg.c), same problems, same options:
 *   1. maxwell2d (upwind and central), acoustics2d, advection2d (perturbed
 *      mesh), N = 2 and 3 on square:4, a few dozen steps: the step count and
 *      dt are the same, the L2 errors and the energies (start, end, largest
 *      relative increase) agree to 1e-10 relative; the report has the device
 *      name, the stage timings and 5 stage evaluations per step;
 *   2. VTK: the .pvd series (--every) of the device run equals the host's:
 *      same files, same times, every number within 1e-10 relative;
 *   3. a blow-up (cfl far too large) stops at the same step with the same
 *      message (HDG_ESOLVER);
 *   4. every run, failed or not, gives back all the device memory it took.
 * `test_dg_cuda oom` (run with a small HDGC_EMU_MEMORY under the emulator):
 * a run that does not fit fails with HDG_EDEVICE, "out of device memory" and
 * what the run needs, and leaves the device memory as it found it.
 *
 * The device is the first one hdg_cuda_device_open finds: the emulator with
 * HDGC_LIBCUDA=emulator (ctest dg_cuda), else a real GPU (dg_cuda_gpu, label
 * gpu). Skips (77) when none opens, unless HDG_REQUIRE_GPU=1. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drivers/run.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/mesh/mesh.h"
#include "support/util.h"
#include "test.h"
#include "test_device.h"
#include "test_problem.h"

static hdg_cuda_device *dev;

static hdg_problem *load(const char *name, int order, const char *set, double val)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", HDG_EXAMPLES, name);
    hdg_setting s = { set, val };
    return test_load_problem(path, order, set ? &s : NULL, set ? 1 : 0);
}

static size_t device_free(void)
{
    size_t fr = 0, tot = 0;
    hdg_error err;
    CHECK(hdg_cuda_mem_info(dev, &fr, &tot, &err) == HDG_OK, "mem_info: %s", err.msg);
    return fr;
}

typedef struct outcome {
    hdg_status st;
    char msg[2048];
    hdg_report *rep;
} outcome;

/* Runs p on the host (cuda = 0) or the device; the device must give back
 * all its memory. */
static outcome run(const hdg_problem *p, const char *mesh_spec, const hdg_run_options *o, int cuda)
{
    outcome r;
    memset(&r, 0, sizeof r);
    r.rep = hdg_report_new();
    hdg_mesh m;
    hdg_error err;
    hdg_error_clear(&err);
    CHECK(hdg_mesh_load(&m, mesh_spec, &err) == HDG_OK, "%s", err.msg);
    size_t before = cuda ? device_free() : 0;
    r.st = cuda ? hdg_run_dg_cuda(p, &m, o, dev, r.rep, &err) : hdg_run_dg(p, &m, o, r.rep, &err);
    snprintf(r.msg, sizeof r.msg, "%s", err.msg);
    if (cuda) {
        size_t after = device_free();
        CHECK(after == before, "%s: device memory %zu free before the run, %zu after", p->name, before, after);
    }
    hdg_mesh_free(&m);
    return r;
}

static double num(const outcome *o, const char *path)
{
    int found = 0;
    double v = hdg_report_get_number(o->rep, path, &found);
    CHECK(found, "report has no %s", path);
    return found ? v : NAN;
}

/* Checks |a - b| <= tol max(|a|, |b|); returns the relative difference. */
static double same_rel(double a, double b, double tol, const char *what)
{
    double scale = fmax(fabs(a), fabs(b)), rel = scale > 0 ? fabs(a - b) / scale : 0.0;
    CHECK(fabs(a - b) <= tol * scale, "%s: host %.17g, device %.17g (rel diff %.3g > %.3g)", what, a, b, rel, tol);
    return rel;
}

/* ------------------------------------------------ 1. host and device agree */

static void compare(const char *file, const char *set, double val, const char *mesh, int order, double final)
{
    hdg_problem *p = load(file, order, set, val);
    if (!p) return;
    hdg_run_options o;
    memset(&o, 0, sizeof o);
    o.use_cache = 1;
    o.final_time = final;
    outcome h = run(p, mesh, &o, 0), g = run(p, mesh, &o, 1);
    CHECK(h.st == HDG_OK, "%s host: %s", file, h.msg);
    CHECK(g.st == HDG_OK, "%s N = %d device: %s", file, order, g.msg);
    if (h.st == HDG_OK && g.st == HDG_OK) {
        long long steps = (long long)num(&h, "steps");
        CHECK(steps >= 10 && steps <= 200, "%s: %lld steps (want a few dozen)", file, steps);
        CHECK((long long)num(&g, "steps") == steps, "%s: steps host %lld device %g", file, steps, num(&g, "steps"));
        CHECK(num(&g, "dt") == num(&h, "dt"), "%s: dt host %.17g device %.17g", file, num(&h, "dt"), num(&g, "dt"));
        CHECK(num(&g, "energy.samples") == num(&h, "energy.samples"), "%s: energy samples", file);
        int nerr = 0;
        double worst = 0;
        for (int u = 0; u < p->nunknowns; u++) {
            char path[96];
            int found = 0;
            snprintf(path, sizeof path, "errors.%s", p->unknowns[u].name);
            double eh = hdg_report_get_number(h.rep, path, &found);
            if (!found) continue;
            nerr++;
            CHECK(eh > 1e-12 && eh < 1e-1, "%s: host %s = %g", file, path, eh);
            worst = fmax(worst, same_rel(eh, num(&g, path), 1e-10, path));
        }
        CHECK(nerr > 0, "%s: no errors reported", file);
        worst = fmax(worst, same_rel(num(&h, "energy.start"), num(&g, "energy.start"), 1e-10, "energy.start"));
        worst = fmax(worst, same_rel(num(&h, "energy.end"), num(&g, "energy.end"), 1e-10, "energy.end"));
        CHECK(num(&h, "energy.end") != num(&h, "energy.start"), "%s: the energy never changed", file);
        CHECK_NEAR(num(&h, "energy.max_rel_increase"), num(&g, "energy.max_rel_increase"), 1e-12,
                   "energy.max_rel_increase");
        const char *name = hdg_report_get_string(g.rep, "device.name");
        CHECK(name && *name, "%s: no device.name", file);
        CHECK(num(&g, "timings.stages") > 0, "%s: timings.stages", file);
        CHECK(num(&g, "perf.stage_evals") == 5.0 * steps, "%s: %g stage evaluations for %lld steps", file,
              num(&g, "perf.stage_evals"), steps);
        CHECK(num(&g, "device.memory_used_bytes") > 3 * 8 * num(&g, "dofs.total"), "%s: device.memory_used_bytes", file);
        char setting[64] = "";
        if (set) snprintf(setting, sizeof setting, "%s = %g", set, val);
        printf("%-16s %-9s N = %d %-20s %3lld steps: errors and energies agree to %.1e (%s)\n", file, setting,
               order, mesh, steps, worst, name ? name : "?");
    }
    hdg_report_free(h.rep);
    hdg_report_free(g.rep);
    hdg_problem_free(p);
}

/* ------------------------------------------------ 2. VTK series */

static char *slurp(const char *path)
{
    char *text = NULL;
    size_t n = 0;
    hdg_error err;
    if (hdg_read_file(path, &text, &n, &err)) {
        CHECK(0, "%s", err.msg);
        return NULL;
    }
    return text;
}

/* Same text up to the numbers, which agree to rel 1e-10. */
static int same_numbers(const char *a, const char *b, const char *what)
{
    while (*a && *b) {
        char *ea, *eb;
        if (isdigit((unsigned char)*a) || *a == '-' || *a == '.') {
            double x = strtod(a, &ea), y = strtod(b, &eb);
            if (ea != a && eb != b) {
                if (fabs(x - y) > 1e-10 * fmax(1.0, fmax(fabs(x), fabs(y)))) {
                    CHECK(0, "%s: %.17g vs %.17g", what, x, y);
                    return 0;
                }
                a = ea, b = eb;
                continue;
            }
        }
        if (*a != *b) {
            CHECK(0, "%s: text differs at '%.20s' vs '%.20s'", what, a, b);
            return 0;
        }
        a++, b++;
    }
    CHECK(*a == *b, "%s: one file is longer", what);
    return *a == *b;
}

static void vtk_series(void)
{
    hdg_problem *p = load("maxwell2d.hdg", 2, NULL, 0);
    if (!p) return;
    hdg_run_options o;
    memset(&o, 0, sizeof o);
    o.use_cache = 1;
    o.final_time = 0.1;
    o.every = 4;
    o.vtk_ascii = 1;   /* same_numbers reads text */
    char path[2][256];
    outcome r[2];
    int pid = (int)getpid();   /* the emulator and GPU entries may run at once */
    for (int k = 0; k < 2; k++) {
        snprintf(path[k], sizeof path[k], "dg_cuda_vtk%d_%s.pvd", pid, k ? "device" : "host");
        o.vtk = path[k];
        r[k] = run(p, "square:2", &o, k);
        CHECK(r[k].st == HDG_OK, "vtk run %d: %s", k, r[k].msg);
    }
    long long steps = (long long)num(&r[0], "steps");
    int nfiles = 1 + (int)((steps - 1) / 4) + 1;   /* t = 0, every 4th step before the last, the end */
    char *pa = slurp(path[0]), *pb = slurp(path[1]);
    if (pa && pb) {
        /* the .pvd texts differ only in the file names */
        char *q = pb;
        while ((q = strstr(q, "device"))) memcpy(q, "host", 4), memmove(q + 4, q + 6, strlen(q + 6) + 1);
        CHECK(!strcmp(pa, pb), ".pvd files differ:\n%s\n%s", pa, pb);
    }
    free(pa);
    free(pb);
    int checked = 0;
    for (int i = 0; i < nfiles + 1; i++) {
        char fa[300], fb[300];
        snprintf(fa, sizeof fa, "dg_cuda_vtk%d_host_%05d.vtu", pid, i);
        snprintf(fb, sizeof fb, "dg_cuda_vtk%d_device_%05d.vtu", pid, i);
        FILE *f = fopen(fa, "r");
        if (!f) break;
        fclose(f);
        char *a = slurp(fa), *b = slurp(fb);
        if (a && b && same_numbers(a, b, fb)) checked++;
        free(a);
        free(b);
        remove(fa);
        remove(fb);
    }
    CHECK(checked == nfiles, "vtk: %d of %d .vtu files agree (%lld steps)", checked, nfiles, steps);
    remove(path[0]);
    remove(path[1]);
    for (int k = 0; k < 2; k++) hdg_report_free(r[k].rep);
    hdg_problem_free(p);
}

/* ------------------------------------------------ 3. blow-up */

static void blowup(void)
{
    hdg_problem *p = load("maxwell2d.hdg", 3, NULL, 0);
    if (!p) return;
    hdg_run_options o;
    memset(&o, 0, sizeof o);
    o.use_cache = 1;
    o.final_time = 3;
    o.cfl = 20;
    outcome h = run(p, "square:4", &o, 0), g = run(p, "square:4", &o, 1);
    CHECK(h.st == HDG_ESOLVER && strstr(h.msg, "unstable: the energy grew"), "host blow-up: %d %s", h.st, h.msg);
    CHECK(g.st == HDG_ESOLVER && strstr(g.msg, "unstable: the energy grew"), "device blow-up: %d %s", g.st, g.msg);
    int fh = 0, fg = 0;
    double sh = hdg_report_get_number(h.rep, "blowup.step", &fh), sg = hdg_report_get_number(g.rep, "blowup.step", &fg);
    CHECK(fh && fg && sh == sg, "blow-up step: host %g device %g", sh, sg);
    /* the message names step, time and energies: the same to the printed digits */
    CHECK(!strcmp(h.msg, g.msg), "blow-up messages:\n  %s\n  %s", h.msg, g.msg);
    hdg_report_free(h.rep);
    hdg_report_free(g.rep);
    hdg_problem_free(p);
}

/* ------------------------------------------------ oom */

static void out_of_memory(void)
{
    hdg_problem *p = load("maxwell2d.hdg", 4, NULL, 0);
    if (!p) return;
    hdg_run_options o;
    memset(&o, 0, sizeof o);
    o.use_cache = 1;
    o.final_time = 0.05;
    outcome g = run(p, "square:32", &o, 1);
    CHECK(g.st == HDG_EDEVICE, "out of memory: status %d (%s): %s", g.st, hdg_status_name(g.st), g.msg);
    CHECK(strstr(g.msg, "out of device memory") != NULL, "message: %s", g.msg);
    CHECK(strstr(g.msg, "needs") && strstr(g.msg, "maxwell2d"), "message: %s", g.msg);
    printf("out of memory: %s\n", g.msg);
    hdg_report_free(g.rep);
    hdg_problem_free(p);
}

int main(int argc, char **argv)
{
    int rc = test_open_device(&dev);
    if (rc >= 0) return rc;
    if (argc > 1 && !strcmp(argv[1], "oom")) {
        out_of_memory();
    } else {
        compare("maxwell2d.hdg", NULL, 0, "square:4", 2, 0.6);
        compare("maxwell2d.hdg", NULL, 0, "square:4", 3, 0.6);
        compare("maxwell2d.hdg", "alpha", 0, "square:4", 3, 0.6);
        compare("acoustics2d.hdg", NULL, 0, "square:4", 2, 0.6);
        compare("acoustics2d.hdg", NULL, 0, "square:4", 3, 0.6);
        compare("advection2d.hdg", NULL, 0, "square:4,perturb=0.2", 2, 0.5);
        compare("advection2d.hdg", NULL, 0, "square:4,perturb=0.2", 3, 0.5);
        vtk_series();
        blowup();
    }
    hdg_cuda_device_close(dev);
    return test_summary(argc > 1 ? "dg_cuda oom" : "dg_cuda");
}
