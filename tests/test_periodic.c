/* test_periodic.c — periodic meshes (issue 18; runtime/mesh/mesh_periodic.c, mesh.h):
 *  topology  square:N,periodic=x|y|xy and the Gmsh file's pairs: face counts, every
 *            periodic face shared by two elements that traverse it in opposite directions
 *            (topologically) and see copies translated by exactly the period, vtop/ftv
 *            consistent, the paired markers gone; refine=1 of a periodic square is the
 *            periodic square of twice N (same counts, same vertex classes by position);
 *            ill-formed requests refused with the face and its coordinates
 *  mg        --precond mg on square:16 vs square:64 (periodic=x and xy): iterations within
 *            1.3x; the coarse space counts identified vertices once (240 and 256 coarse
 *            unknowns on square:16); mg, block-Jacobi and PETSc give the same fields; the
 *            output mesh (VTK, PNG) is the square with its coordinates unchanged
 *
 * usage: test_periodic GROUP   (topology | mg) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/run.h"
#include "runtime/mesh/mesh.h"
#include "test.h"
#include "test_run.h"

static const char *data(const char *name)
{
    static char b[512];
    snprintf(b, sizeof b, "%s/periodic/%s", HDG_TEST_DATA, name);
    return b;
}

/* ------------------------------------------------------------------ topology */

/* Invariants of a periodic mesh; returns the number of periodic faces found. */
static int check_invariants(const hdg_mesh *m, const char *what)
{
    int nper = 0, bad_orient = 0, bad_shift = 0, bad_ftv = 0, bad_ef = 0;
    for (int f = 0; f < m->nf; f++) {
        bad_ftv += m->ftv[2 * f] != (m->vtop ? m->vtop[m->fv[2 * f]] : m->fv[2 * f]) ||
                   m->ftv[2 * f + 1] != (m->vtop ? m->vtop[m->fv[2 * f + 1]] : m->fv[2 * f + 1]);
        for (int s = 0; s < 2; s++) {
            int e = m->fe[2 * f + s], j = m->flf[2 * f + s];
            if (e < 0) continue;
            bad_ef += m->ef[3 * e + j] != f || m->eforient[3 * e + j] != s;
            int a = m->ev[3 * e + j], b = m->ev[3 * e + (j + 1) % 3];
            int ta = m->vtop ? m->vtop[a] : a, tb = m->vtop ? m->vtop[b] : b;
            /* the first element traverses ftv[0] -> ftv[1], the second reversed */
            bad_orient += s == 0 ? (ta != m->ftv[2 * f] || tb != m->ftv[2 * f + 1])
                                 : (ta != m->ftv[2 * f + 1] || tb != m->ftv[2 * f]);
        }
        if (!hdg_mesh_face_periodic(m, f)) continue;
        nper++;
        double dx, dy;
        hdg_mesh_face_shift(m, f, &dx, &dy);
        int e = m->fe[2 * f + 1], j = m->flf[2 * f + 1];
        int b0 = m->ev[3 * e + (j + 1) % 3], b1 = m->ev[3 * e + j];   /* copies of fv[2f], fv[2f+1] */
        double e0 = hypot(m->vx[m->fv[2 * f]] - m->vx[b0] - dx, m->vy[m->fv[2 * f]] - m->vy[b0] - dy);
        double e1 = hypot(m->vx[m->fv[2 * f + 1]] - m->vx[b1] - dx, m->vy[m->fv[2 * f + 1]] - m->vy[b1] - dy);
        /* the unit square's periods: (+-1, 0), (0, +-1) */
        int unit = (fabs(fabs(dx) - 1) < 1e-14 && fabs(dy) < 1e-14) || (fabs(fabs(dy) - 1) < 1e-14 && fabs(dx) < 1e-14);
        bad_shift += e0 > 1e-14 || e1 > 1e-14 || !unit;
    }
    CHECK(nper == m->nperiodic, "%s: %d periodic faces, nperiodic %d", what, nper, m->nperiodic);
    CHECK(!bad_orient, "%s: %d face sides traversed against the convention", what, bad_orient);
    CHECK(!bad_shift, "%s: %d periodic faces not translated copies by a period", what, bad_shift);
    CHECK(!bad_ftv, "%s: %d faces whose ftv is not vtop of fv", what, bad_ftv);
    CHECK(!bad_ef, "%s: %d (element, local face) entries that do not point back", what, bad_ef);
    for (int v = 0; m->vtop && v < m->nv; v++)
        CHECK(m->vtop[m->vtop[v]] == m->vtop[v] && m->vtop[v] <= v, "%s: vtop of vertex %d", what, v);
    return nper;
}

static void square_counts(const char *spec, int N, int px, int py)
{
    hdg_mesh m;
    hdg_error err = {0};
    hdg_status st = hdg_mesh_load(&m, spec, &err);
    CHECK(st == HDG_OK, "%s loads: %s", spec, err.msg);
    if (st) return;
    int nf = 3 * N * N + (px ? 0 : N) + (py ? 0 : N), nbf = 2 * N * (!px + !py), nper = N * (px + py);
    CHECK(m.nf == nf && m.nbf == nbf && m.nperiodic == nper, "%s: nf %d nbf %d periodic %d (want %d %d %d)", spec,
          m.nf, m.nbf, m.nperiodic, nf, nbf, nper);
    CHECK(check_invariants(&m, spec) == nper, "%s: periodic faces", spec);
    CHECK((hdg_mesh_marker_id(&m, "left") < 0) == px && (hdg_mesh_marker_id(&m, "right") < 0) == px,
          "%s: left/right markers %s", spec, px ? "gone" : "kept");
    CHECK((hdg_mesh_marker_id(&m, "bottom") < 0) == py && (hdg_mesh_marker_id(&m, "top") < 0) == py,
          "%s: bottom/top markers %s", spec, py ? "gone" : "kept");
    int ntop = 0;   /* distinct topological vertices: (N+1-px)(N+1-py) */
    for (int v = 0; v < m.nv; v++) ntop += (m.vtop ? m.vtop[v] : v) == v;
    CHECK(ntop == (N + 1 - px) * (N + 1 - py), "%s: %d topological vertices", spec, ntop);
    hdg_mesh_free(&m);
}

/* refine=1 of square:4,periodic=xy against square:8,periodic=xy: the same counts and, by
 * position, the same identified vertices. */
static void refine_matches(void)
{
    hdg_mesh a, b;
    hdg_error err = {0};
    CHECK(!hdg_mesh_load(&a, "square:4,periodic=xy,refine=1", &err), "refined periodic: %s", err.msg);
    CHECK(!hdg_mesh_load(&b, "square:8,periodic=xy", &err), "square:8 periodic: %s", err.msg);
    if (!a.nf || !b.nf) return;
    CHECK(a.nf == b.nf && a.nbf == 0 && a.nperiodic == b.nperiodic, "refined: nf %d/%d, periodic %d/%d", a.nf, b.nf,
          a.nperiodic, b.nperiodic);
    check_invariants(&a, "square:4,periodic=xy,refine=1");
    int bad = 0;   /* vertex at (x, y) lies in the class of (x mod 1, y mod 1) */
    for (int v = 0; v < a.nv; v++) {
        int t = a.vtop[v];
        double x = fmod(a.vx[v], 1.0), y = fmod(a.vy[v], 1.0);
        bad += fabs(a.vx[t] - x) > 1e-14 || fabs(a.vy[t] - y) > 1e-14;
    }
    CHECK(!bad, "refined: %d vertices identified with the wrong class", bad);
    hdg_mesh_free(&a), hdg_mesh_free(&b);
}

static void gmsh_file(void)
{
    char spec[600];
    snprintf(spec, sizeof spec, "%s,periodic=left:right,bottom:top", data("square_periodic_v22.msh"));
    hdg_mesh m;
    hdg_error err = {0};
    hdg_status st = hdg_mesh_load(&m, spec, &err);
    CHECK(st == HDG_OK, "%s: %s", spec, err.msg);
    if (st) return;
    CHECK(m.nbf == 0 && m.nperiodic == 13 && m.nf == 126, "Gmsh torus: nbf %d periodic %d nf %d", m.nbf, m.nperiodic,
          m.nf);
    check_invariants(&m, spec);
    hdg_mesh_free(&m);
    snprintf(spec, sizeof spec, "%s,periodic=4:2,refine=1", data("square_periodic_v22.msh"));   /* tags */
    st = hdg_mesh_load(&m, spec, &err);
    CHECK(st == HDG_OK && m.nperiodic == 12 && m.nbf == 28, "%s: periodic %d nbf %d (%s)", spec, m.nperiodic, m.nbf,
          st ? err.msg : "");
    if (!st) check_invariants(&m, spec);
    hdg_mesh_free(&m);
}

static void refused(const char *spec, const char *words)
{
    hdg_mesh m;
    hdg_error err = {0};
    char full[700];
    if (spec[0] == '@') snprintf(full, sizeof full, "%s%s", data(""), spec + 1);
    else snprintf(full, sizeof full, "%s", spec);
    hdg_status st = hdg_mesh_load(&m, full, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, words), "%s: status %d, message '%s' lacks '%s'", full, st, err.msg,
          words);
    if (!st) hdg_mesh_free(&m);
}

static void topology(void)
{
    square_counts("square:8,periodic=x", 8, 1, 0);
    square_counts("square:8,periodic=y", 8, 0, 1);
    square_counts("square:3,periodic=xy", 3, 1, 1);
    square_counts("square:7,periodic=xy,perturb=0.2,domain=[-1,0]^2", 7, 1, 1);
    refine_matches();
    gmsh_file();
    refused("square:2,periodic=x", "needs N >= 3");
    refused("square:4,periodic=z", "periodic= takes x, y or xy");
    refused("@bad_periodic_v22.msh,periodic=left:right", "(0, 0.35931409544686649) to (0, 0.1926474287801998)) of 'left' has no partner");
    refused("@square_periodic_v22.msh,periodic=left:top", "of 'left' has no partner");
    refused("@square_periodic_v22.msh,periodic=left:rigth", "no boundary group 'rigth' (its groups: bottom (1), right (2)");
    refused("@square_periodic_v22.msh,periodic=left:left", "the group 'left' is paired twice");
    refused("@square_periodic_v22.msh,periodic=left", "expected pairs of boundary groups A:B");
}

/* ------------------------------------------------------------------ mg */

typedef struct result {
    hdg_status st;
    double u, iters, coarse;
    hdg_run_fields f;
} result;

static result run(const char *file, const char *mesh, int k, const char *solver, const char *precond)
{
    result r;
    memset(&r, 0, sizeof r);
    hdg_run_options o;
    hdg_run_options_default(&o);
    o.mesh = mesh, o.solver = solver, o.precond = precond, o.rtol = 1e-12, o.fields = &r.f;
    hdg_report *rep;
    r.st = test_run(file, k, &o, &rep);
    r.u = test_report_number(rep, "errors.u");
    r.iters = test_report_number(rep, "solver.iterations");
    r.coarse = test_report_number(rep, "solver.mg.coarse_unknowns");
    hdg_report_free(rep);
    return r;
}

/* The output mesh (what VTK and PNG draw) is the square as it is: every triangle
 * counter-clockwise inside [0,1]^2, areas summing to 1. */
static void output_mesh(const hdg_run_fields *f, const char *what)
{
    double area = 0;
    int bad = 0;
    for (int e = 0; e < f->ne; e++) {
        const int *t = f->tri + 3 * e;
        const double *a = f->xy + 2 * t[0], *b = f->xy + 2 * t[1], *c = f->xy + 2 * t[2];
        double a2 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        bad += !(a2 > 0);
        area += a2 / 2;
    }
    for (int v = 0; v < f->nv; v++) bad += f->xy[2 * v] < 0 || f->xy[2 * v] > 1 || f->xy[2 * v + 1] < 0 || f->xy[2 * v + 1] > 1;
    CHECK(!bad && fabs(area - 1) < 1e-12 && f->ne > 0, "%s: output mesh: %d bad triangles or vertices, area %.17g", what,
          bad, area);
}

static void flat(const char *file, const char *opts, double coarse16)
{
    char m16[64], m64[64];
    snprintf(m16, sizeof m16, "square:16,%s", opts);
    snprintf(m64, sizeof m64, "square:64,%s", opts);
    result a = run(data(file), m16, 3, NULL, "mg"), b = run(data(file), m64, 3, NULL, "mg");
    printf("%s mg k=3: %.0f iterations on %s (%.0f coarse unknowns), %.0f on %s; error u %.3e, %.3e\n", file, a.iters,
           m16, a.coarse, b.iters, m64, a.u, b.u);
    CHECK(a.st == HDG_OK && b.st == HDG_OK, "%s solves", file);
    CHECK(b.iters <= 1.3 * a.iters && b.iters <= 30, "%s: %.0f iterations on square:64 vs %.0f on square:16", file,
          b.iters, a.iters);
    CHECK(a.coarse == coarse16, "%s: %.0f coarse unknowns on %s (identified vertices once: %.0f)", file, a.coarse, m16,
          coarse16);
    output_mesh(&a.f, m16);
    CHECK(b.u < a.u / 100, "%s: error u %.3e on square:64 vs %.3e on square:16 (rate 4 gives 1/256)", file, b.u, a.u);
    result c = run(data(file), m16, 3, NULL, "block"), d = run(data(file), m16, 3, "petsc", NULL);
    double dc = c.f.n == a.f.n ? test_fields_l2diff(c.f.x, a.f.x, a.f.n) : INFINITY;
    double dd = d.f.n == a.f.n ? test_fields_l2diff(d.f.x, a.f.x, a.f.n) : INFINITY;
    printf("%s %s: block-Jacobi fields differ by %.2e (%.0f iterations), PETSc by %.2e\n", file, m16, dc, c.iters, dd);
    CHECK(dc < 1e-9 && dd < 1e-8, "%s: fields of block %.2e, PETSc %.2e from mg's", file, dc, dd);
    hdg_run_fields_free(&a.f), hdg_run_fields_free(&b.f), hdg_run_fields_free(&c.f), hdg_run_fields_free(&d.f);
}

int main(int argc, char **argv)
{
    const char *g = argc > 1 ? argv[1] : "topology";
    if (!strcmp(g, "topology")) topology();
    else if (!strcmp(g, "mg")) {
        flat("poisson_periodic.hdg", "periodic=x", 16 * 15);   /* bottom and top rows fixed */
        flat("poisson_torus.hdg", "periodic=xy", 16 * 16);
    } else {
        fprintf(stderr, "usage: test_periodic topology|mg\n");
        return 2;
    }
    return test_summary("test_periodic");
}
