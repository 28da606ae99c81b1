/* test_mesh.c — square:N generator, spec parser, topology builder and geometry. */
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "test_mesh_common.c"

/* Counts, markers and marker geometry of square:N on [x0,x1]x[y0,y1]. */
static void check_square(const hdg_mesh *m, int N, double x0, double x1, double y0, double y1, const char *name)
{
    CHECK(m->ne == 2 * N * N, "%s: ne = %d", name, m->ne);
    CHECK(m->nv == (N + 1) * (N + 1), "%s: nv = %d", name, m->nv);
    CHECK(m->nf == 3 * N * N + 2 * N, "%s: nf = %d", name, m->nf);
    CHECK(m->nbf == 4 * N, "%s: nbf = %d", name, m->nbf);
    CHECK(m->nmarkers == 4, "%s: nmarkers = %d", name, m->nmarkers);
    static const char *names[] = {"bottom", "right", "top", "left"};
    for (int id = 1; id <= 4; id++) {
        CHECK(hdg_mesh_marker_id(m, names[id - 1]) == id, "%s: marker %s", name, names[id - 1]);
        CHECK(hdg_mesh_marker_count(m, id) == N, "%s: %s has %d faces", name, names[id - 1],
              hdg_mesh_marker_count(m, id));
    }
    CHECK(hdg_mesh_marker_id(m, "boundary") == -1, "%s: no untagged faces expected", name);
    CHECK(m->nuntagged == 0 && m->nreoriented == 0, "%s: nuntagged %d nreoriented %d", name, m->nuntagged,
          m->nreoriented);
    int bad = 0;
    for (int f = 0; f < m->nf; f++) {
        if (!m->fmark[f]) continue;
        double ax = m->vx[m->fv[2 * f]], ay = m->vy[m->fv[2 * f]];
        double bx = m->vx[m->fv[2 * f + 1]], by = m->vy[m->fv[2 * f + 1]];
        switch (m->fmark[f]) {
        case 1: bad += ay != y0 || by != y0 || !(bx > ax); break; /* CCW: bottom runs left to right */
        case 2: bad += ax != x1 || bx != x1 || !(by > ay); break;
        case 3: bad += ay != y1 || by != y1 || !(bx < ax); break;
        case 4: bad += ax != x0 || bx != x0 || !(by < ay); break;
        default: bad++;
        }
    }
    CHECK(bad == 0, "%s: %d boundary faces off their side", name, bad);
    double area = (x1 - x0) * (y1 - y0), scale = fmax(fmax(fabs(x0), fabs(x1)), fmax(fabs(y0), fabs(y1)));
    check_mesh(m, area, scale, 1, name);
}

static void test_square_plain(void)
{
    hdg_mesh m;
    hdg_error err;
    int Ns[] = {1, 2, 8, 13};
    for (int i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof name, "square:%d", Ns[i]);
        CHECK(hdg_mesh_square(&m, Ns[i], 0, 0, 1, 0, 1, &err) == HDG_OK, "%s: %s", name, err.msg);
        check_square(&m, Ns[i], 0, 1, 0, 1, name);
        CHECK(m.source && !strcmp(m.source, name), "source '%s'", m.source ? m.source : "(null)");
        hdg_mesh_free(&m);
    }
    /* square:1: the exact layout (diagonal from (0,0) to (1,1), first face 0 = v0 -> v1) */
    CHECK(hdg_mesh_square(&m, 1, 0, 0, 1, 0, 1, &err) == HDG_OK, "square:1");
    int ev[6] = {0, 1, 3, 0, 3, 2};
    CHECK(!memcmp(m.ev, ev, sizeof ev), "square:1 ev = %d %d %d %d %d %d", m.ev[0], m.ev[1], m.ev[2], m.ev[3],
          m.ev[4], m.ev[5]);
    CHECK(m.ef[0] == 0 && m.ef[1] == 1 && m.ef[2] == 2 && m.ef[3] == 2 && m.ef[4] == 3 && m.ef[5] == 4,
          "square:1 ef");
    CHECK(m.fe[4] == 0 && m.fe[5] == 1 && m.flf[4] == 2 && m.flf[5] == 0, "square:1 diagonal face 2");
    CHECK(m.fv[4] == 3 && m.fv[5] == 0, "square:1 diagonal runs 3 -> 0 (element 0's direction)");
    CHECK(m.eforient[2] == 0 && m.eforient[3] == 1, "square:1 eforient");
    int nbr2[5] = {2, 0, 1, 3, 4};
    CHECK(!memcmp(m.fnbr + 10, nbr2, sizeof nbr2), "square:1 fnbr row 2 = %d %d %d %d %d", m.fnbr[10],
          m.fnbr[11], m.fnbr[12], m.fnbr[13], m.fnbr[14]);
    int nbr0[5] = {0, 1, 2, -1, -1};
    CHECK(!memcmp(m.fnbr, nbr0, sizeof nbr0), "square:1 fnbr row 0");
    CHECK(m.fnbr_elem[13] == 1 && m.fnbr_lf[13] == 1 && m.fnbr_lf[14] == 2, "square:1 fnbr_elem/lf row 2");
    CHECK(m.fmark[0] == 1 && m.fmark[1] == 2 && m.fmark[2] == 0 && m.fmark[3] == 3 && m.fmark[4] == 4,
          "square:1 fmark = %d %d %d %d %d", m.fmark[0], m.fmark[1], m.fmark[2], m.fmark[3], m.fmark[4]);
    hdg_mesh_free(&m);
}

static void test_square_geometry(void)
{
    hdg_mesh m;
    hdg_geom g;
    hdg_error err;
    CHECK(hdg_mesh_square(&m, 4, 0, 0, 1, 0, 1, &err) == HDG_OK, "square:4");
    CHECK(hdg_geom_init(&g, &m, &err) == HDG_OK, "geom");
    /* element 0: (0,0) (1/4,0) (1/4,1/4): xr = 1/8, xs = 1/8, yr = 0, ys = 1/8 */
    CHECK_NEAR(g.J[0], 1.0 / 64, 1e-17, "J[0]");
    CHECK_NEAR(g.rx[0], 8, 1e-13, "rx");
    CHECK_NEAR(g.ry[0], -8, 1e-13, "ry");
    CHECK_NEAR(g.sx[0], 0, 1e-13, "sx");
    CHECK_NEAR(g.sy[0], 8, 1e-13, "sy");
    CHECK_NEAR(g.nx[0], 0, 1e-15, "nx face 0");
    CHECK_NEAR(g.ny[0], -1, 1e-15, "ny face 0");
    CHECK_NEAR(g.nx[1], 1, 1e-15, "nx face 1");
    CHECK_NEAR(g.ny[1], 0, 1e-15, "ny face 1");
    CHECK_NEAR(g.nx[2], -sqrt(0.5), 1e-15, "nx face 2");
    CHECK_NEAR(g.ny[2], sqrt(0.5), 1e-15, "ny face 2");
    CHECK_NEAR(g.sJ[0], 1.0 / 8, 1e-16, "sJ face 0");
    CHECK_NEAR(g.sJ[2], sqrt(2) / 8, 1e-16, "sJ face 2");
    CHECK_NEAR(g.Fscale[0], 8, 1e-13, "Fscale face 0");
    CHECK_NEAR(g.h[0], sqrt(2) / 4, 1e-16, "h");
    CHECK_NEAR(g.rin[0], (2 - sqrt(2)) / 8, 1e-16, "inscribed radius of a right isosceles triangle");
    double x, y;
    hdg_geom_map(&m, 0, -1.0 / 3, -1.0 / 3, &x, &y);
    CHECK_NEAR(x, 1.0 / 6, 1e-16, "centroid x");
    CHECK_NEAR(y, 1.0 / 12, 1e-16, "centroid y");
    hdg_geom_free(&g);
    hdg_geom_free(&g); /* idempotent */
    hdg_mesh_free(&m);
}

static void test_square_perturbed(void)
{
    hdg_mesh m, m2, u;
    hdg_error err;
    CHECK(hdg_mesh_square(&m, 8, 0.2, 0, 1, 0, 1, &err) == HDG_OK, "square:8,perturb=0.2: %s", err.msg);
    CHECK(hdg_mesh_square(&m2, 8, 0.2, 0, 1, 0, 1, &err) == HDG_OK, "again");
    CHECK(hdg_mesh_square(&u, 8, 0, 0, 1, 0, 1, &err) == HDG_OK, "unperturbed");
    check_square(&m, 8, 0, 1, 0, 1, "square:8,perturb=0.2");
    CHECK(!memcmp(m.vx, m2.vx, sizeof(double) * m.nv) && !memcmp(m.vy, m2.vy, sizeof(double) * m.nv),
          "perturbation is deterministic");
    int moved = 0, bad = 0;
    double maxd = 0;
    for (int j = 0; j <= 8; j++)
        for (int i = 0; i <= 8; i++) {
            int v = j * 9 + i, inner = i > 0 && i < 8 && j > 0 && j < 8;
            double dx = fabs(m.vx[v] - u.vx[v]), dy = fabs(m.vy[v] - u.vy[v]);
            if (inner) moved += dx > 0 && dy > 0;
            else bad += dx != 0 || dy != 0;
            maxd = fmax(maxd, fmax(dx, dy));
        }
    CHECK(moved == 49, "%d of 49 interior vertices moved", moved);
    CHECK(bad == 0, "%d boundary vertices moved", bad);
    CHECK(maxd < 0.2 / 8 && maxd > 0.1 / 8, "largest offset %g (limit %g)", maxd, 0.2 / 8);
    /* golden values: splitmix64 with a fixed seed is exact integer arithmetic */
    CHECK(m.vx[10] == 0.12443360159411672 && m.vy[10] == 0.1294904639765579,
          "vertex (1,1) = (%.17g, %.17g)", m.vx[10], m.vy[10]);
    hdg_mesh_free(&m), hdg_mesh_free(&m2), hdg_mesh_free(&u);

    /* p = 0.25 is always valid */
    CHECK(hdg_mesh_square(&m, 150, 0.25, 0, 1, 0, 1, &err) == HDG_OK, "square:150,perturb=0.25: %s", err.msg);
    check_square(&m, 150, 0, 1, 0, 1, "square:150,perturb=0.25");
    hdg_mesh_free(&m);
    /* too large: some element folds over */
    hdg_status st = hdg_mesh_square(&m, 30, 0.49, 0, 1, 0, 1, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "is inverted after perturbation") && strstr(err.msg, "element "),
          "perturb=0.49: %d '%s'", st, err.msg);
    CHECK(m.ne == 0 && m.vx == NULL, "failed mesh is zeroed");
}

static void test_domains(void)
{
    hdg_mesh m;
    hdg_error err;
    CHECK(hdg_mesh_load(&m, "square:6,domain=[-1,1]^2", &err) == HDG_OK, "domain [-1,1]^2: %s", err.msg);
    check_square(&m, 6, -1, 1, -1, 1, "square:6,domain=[-1,1]^2");
    hdg_mesh_free(&m);
    CHECK(hdg_mesh_load(&m, "square:8,perturb=0.2,domain=[-1,1]^2", &err) == HDG_OK, "%s", err.msg);
    check_square(&m, 8, -1, 1, -1, 1, "square:8,perturb=0.2,domain=[-1,1]^2");
    hdg_mesh_free(&m);
    CHECK(hdg_mesh_load(&m, "square:5,domain=[0,2]x[-1,0.5],perturb=0.1", &err) == HDG_OK, "%s", err.msg);
    check_square(&m, 5, 0, 2, -1, 0.5, "square:5,domain=[0,2]x[-1,0.5]");
    hdg_mesh_free(&m);
    CHECK(hdg_mesh_load(&m, "square:3,domain=[1e3,1.001e3]^2", &err) == HDG_OK, "%s", err.msg);
    check_square(&m, 3, 1e3, 1.001e3, 1e3, 1.001e3, "small domain far from 0");
    hdg_mesh_free(&m);
}

static void expect_spec_error(const char *spec, const char *text)
{
    hdg_mesh m;
    hdg_error err;
    hdg_error_clear(&err);
    hdg_status st = hdg_mesh_load(&m, spec, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, text), "'%s': status %d message '%s' (want '%s')", spec, st,
          err.msg, text);
    CHECK(m.ne == 0 && m.ev == NULL && m.marker_names == NULL, "'%s': mesh zeroed after failure", spec);
    hdg_mesh_free(&m);
}

static void test_spec_errors(void)
{
    expect_spec_error("square:0", "N must be between 1 and 8000");
    expect_spec_error("square:8001", "N must be between 1 and 8000");
    expect_spec_error("square:99999999999999999999", "N must be between");
    expect_spec_error("square:abc", "needs an integer N");
    expect_spec_error("square:", "needs an integer N");
    expect_spec_error("square:-3", "needs an integer N");
    expect_spec_error("square:4x", "needs an integer N");
    expect_spec_error("square", "write square:N");
    expect_spec_error("square:4,perturb=", "perturb=p needs a number");
    expect_spec_error("square:4,perturb=0.1q", "perturb=p needs a number");
    expect_spec_error("square:4,perturb=-0.1", "perturb must be in [0, 0.5)");
    expect_spec_error("square:4,perturb=0.5", "perturb must be in [0, 0.5)");
    expect_spec_error("square:4,perturb=nan", "perturb=p needs a number");
    expect_spec_error("square:4,domain=[1,0]^2", "empty or not finite");
    expect_spec_error("square:4,domain=[0,1]", "domain must be [a,b]^2 or [a,b]x[c,d]");
    expect_spec_error("square:4,domain=[0,1]x[2]", "domain must be");
    expect_spec_error("square:4,domain=0,1", "domain must be");
    expect_spec_error("square:4,domain=[0,inf]^2", "domain must be");
    expect_spec_error("square:4,seed=3", "unknown option 'seed'");
    expect_spec_error("square:4,", "unknown option ''");
}

/* Hand-built meshes through hdg_mesh_build_topology. */
static void test_build_topology(void)
{
    hdg_error err;
    /* two triangles of the unit square, the second clockwise; edge 0-1 tagged 5 */
    hdg_mesh m;
    memset(&m, 0, sizeof m);
    double vx[4] = {0, 1, 1, 0}, vy[4] = {0, 0, 1, 1};
    int ev[6] = {0, 1, 2, 0, 3, 2};
    m.nv = 4, m.ne = 2;
    m.vx = malloc(sizeof vx), m.vy = malloc(sizeof vy), m.ev = malloc(sizeof ev);
    memcpy(m.vx, vx, sizeof vx), memcpy(m.vy, vy, sizeof vy), memcpy(m.ev, ev, sizeof ev);
    m.ntag = 1, m.tag = malloc(4 * sizeof(int));
    m.tag[0] = 1, m.tag[1] = 0, m.tag[2] = 5, m.tag[3] = 0;
    hdg_mesh_set_marker_name(&m, 5, "inflow");
    CHECK(hdg_mesh_build_topology(&m, &err) == HDG_OK, "build: %s", err.msg);
    CHECK(m.nreoriented == 1 && m.ev[3] == 0 && m.ev[4] == 2 && m.ev[5] == 3, "reoriented: %d %d %d %d",
          m.nreoriented, m.ev[3], m.ev[4], m.ev[5]);
    CHECK(m.nf == 5 && m.nbf == 4 && m.nuntagged == 3, "nf %d nbf %d nuntagged %d", m.nf, m.nbf, m.nuntagged);
    CHECK(hdg_mesh_marker_id(&m, "inflow") == 5 && hdg_mesh_marker_count(&m, 5) == 1, "inflow marker");
    CHECK(hdg_mesh_marker_id(&m, "boundary") == 6 && hdg_mesh_marker_count(&m, 6) == 3, "boundary marker");
    CHECK(m.nmarkers == 6 && m.marker_names[1] == NULL && m.marker_names[0] == NULL, "gaps are NULL");
    check_mesh(&m, 1, 1, 1, "two triangles");
    /* rebuilding is allowed (topology is replaced, not leaked) */
    CHECK(hdg_mesh_build_topology(&m, &err) == HDG_OK, "rebuild: %s", err.msg);
    CHECK(m.nf == 5 && m.nreoriented == 0 && m.nmarkers == 6 && m.untagged_marker == 6 &&
              hdg_mesh_marker_count(&m, 6) == 3,
          "rebuild nf %d nmarkers %d", m.nf, m.nmarkers);

    /* degenerate: move vertex 3 onto the diagonal */
    m.vx[3] = 0.5, m.vy[3] = 0.5;
    hdg_status st = hdg_mesh_build_topology(&m, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "degenerate triangle: element 1 (vertex 0, vertex 2, vertex 3)"),
          "degenerate: '%s'", err.msg);
    CHECK(m.ef == NULL && m.nf == 0, "failed build leaves no topology");
    /* folded: vertex 3 across the diagonal makes both triangles lie right of it */
    m.vx[3] = 0.9, m.vy[3] = 0.2;
    st = hdg_mesh_build_topology(&m, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "overlapping triangles: elements 0 and 1"), "fold: '%s'", err.msg);
    /* a tag on an edge that does not exist */
    m.vx[3] = 0, m.vy[3] = 1;
    m.tag[0] = 1, m.tag[1] = 3;
    st = hdg_mesh_build_topology(&m, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "between vertex 1 and vertex 3 is not an edge"), "tag: '%s'",
          err.msg);
    hdg_mesh_free(&m);
    hdg_mesh_free(&m); /* idempotent */

    /* non-manifold: three triangles on the edge 0-1 */
    memset(&m, 0, sizeof m);
    double wx[5] = {0, 1, 0.5, 0.5, 0.5}, wy[5] = {0, 0, 1, -1, 2};
    int wv[9] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
    m.nv = 5, m.ne = 3;
    m.vx = malloc(sizeof wx), m.vy = malloc(sizeof wy), m.ev = malloc(sizeof wv);
    memcpy(m.vx, wx, sizeof wx), memcpy(m.vy, wy, sizeof wy), memcpy(m.ev, wv, sizeof wv);
    st = hdg_mesh_build_topology(&m, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "non-manifold edge between vertex 0 and vertex 1 (elements 0, 1, 2)"),
          "non-manifold: '%s'", err.msg);
    /* no triangles */
    m.ne = 0;
    st = hdg_mesh_build_topology(&m, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, "no triangles"), "empty: '%s'", err.msg);
    hdg_mesh_free(&m);
}

int main(void)
{
    test_square_plain();
    test_square_geometry();
    test_square_perturbed();
    test_domains();
    test_spec_errors();
    test_build_topology();
    return test_summary("mesh");
}
