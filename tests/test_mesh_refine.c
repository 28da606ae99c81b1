/* test_mesh_refine.c — uniform refinement (runtime/mesh/mesh_refine.c, the ",refine=L" spec):
 * square:4 refined once is square:8 (the same triangles and boundary markers), a Gmsh mesh
 * keeps its area, its marker names and their edge counts (doubled), every child has a quarter
 * of its parent's area, the sizes hdg_mesh_spec_size predicts are the ones built, and bad
 * levels are refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/mesh/mesh.h"
#include "runtime/mesh/mesh_size.h"
#include "test.h"

static double area(const hdg_mesh *m, int e)
{
    const int *v = m->ev + 3 * e;
    return 0.5 * ((m->vx[v[1]] - m->vx[v[0]]) * (m->vy[v[2]] - m->vy[v[0]]) -
                  (m->vx[v[2]] - m->vx[v[0]]) * (m->vy[v[1]] - m->vy[v[0]]));
}

static int cmp_pt(const void *a, const void *b)
{
    const double *p = a, *q = b;
    return p[0] < q[0] - 1e-12 ? -1 : p[0] > q[0] + 1e-12 ? 1 : p[1] < q[1] - 1e-12 ? -1 : p[1] > q[1] + 1e-12;
}

/* centroids, sorted: two meshes with the same triangles have the same list */
static double *centroids(const hdg_mesh *m)
{
    double *c = malloc(sizeof(double) * 2 * m->ne);
    for (int e = 0; e < m->ne; e++) {
        const int *v = m->ev + 3 * e;
        c[2 * e] = (m->vx[v[0]] + m->vx[v[1]] + m->vx[v[2]]) / 3;
        c[2 * e + 1] = (m->vy[v[0]] + m->vy[v[1]] + m->vy[v[2]]) / 3;
    }
    qsort(c, (size_t)m->ne, 2 * sizeof(double), cmp_pt);
    return c;
}

static void square_twice(void)
{
    hdg_mesh a, b;
    hdg_error err;
    CHECK(!hdg_mesh_load(&a, "square:4,refine=1", &err), "%s", err.msg);
    CHECK(!hdg_mesh_load(&b, "square:8", &err), "%s", err.msg);
    CHECK(a.nv == b.nv && a.ne == b.ne && a.nf == b.nf && a.nbf == b.nbf, "sizes %d %d %d %d", a.nv, a.ne, a.nf, a.nbf);
    double *ca = centroids(&a), *cb = centroids(&b), d = 0;
    for (int i = 0; i < 2 * a.ne && a.ne == b.ne; i++) d = fmax(d, fabs(ca[i] - cb[i]));
    CHECK(d < 1e-14, "centroids differ by %g", d);
    for (int id = 1; id <= 4; id++)
        CHECK(hdg_mesh_marker_count(&a, id) == 8 && !strcmp(a.marker_names[id], b.marker_names[id]), "marker %d", id);
    CHECK(!strcmp(a.source, "square:4,refine=1"), "source %s", a.source);
    free(ca), free(cb);
    hdg_mesh_free(&a), hdg_mesh_free(&b);
}

static void gmsh_levels(void)
{
    hdg_mesh m0, m2, r;
    hdg_error err;
    CHECK(!hdg_mesh_load(&m0, HDG_TEST_DATA "/square16_v41.msh", &err), "%s", err.msg);
    CHECK(!hdg_mesh_load(&m2, HDG_TEST_DATA "/square16_v41.msh,refine=2", &err), "%s", err.msg);
    CHECK(m2.ne == 16 * m0.ne && m2.nbf == 4 * m0.nbf && m2.nmarkers == m0.nmarkers, "ne %d nbf %d", m2.ne, m2.nbf);
    double A0 = 0, A2 = 0;
    for (int e = 0; e < m0.ne; e++) A0 += area(&m0, e);
    int flipped = 0;
    for (int e = 0; e < m2.ne; e++) A2 += area(&m2, e), flipped += area(&m2, e) <= 0;
    CHECK(flipped == 0, "%d elements not counter-clockwise", flipped);
    CHECK_NEAR(A2, A0, 1e-14, "area");
    for (int id = 1; id <= m0.nmarkers; id++)
        if (m0.marker_names[id])
            CHECK(!strcmp(m0.marker_names[id], m2.marker_names[id]) &&
                  hdg_mesh_marker_count(&m2, id) == 4 * hdg_mesh_marker_count(&m0, id), "marker %s", m0.marker_names[id]);
    CHECK(!hdg_mesh_refine(&m0, &r, &err), "%s", err.msg);
    for (int e = 0; e < m0.ne; e++)
        for (int k = 0; k < 4; k++) CHECK_NEAR(area(&r, 4 * e + k), area(&m0, e) / 4, 1e-15, "child area");
    hdg_mesh_size s;
    CHECK(hdg_mesh_spec_size("square:3,perturb=0.1,refine=3", &s), "spec size");
    hdg_mesh p;
    CHECK(!hdg_mesh_load(&p, "square:3,perturb=0.1,refine=3", &err), "%s", err.msg);
    CHECK(s.nv == p.nv && s.ne == p.ne && s.nf == p.nf && s.nbf == p.nbf, "predicted %g %g %g %g, built %d %d %d %d",
          s.nv, s.ne, s.nf, s.nbf, p.nv, p.ne, p.nf, p.nbf);
    hdg_mesh_free(&p), hdg_mesh_free(&r), hdg_mesh_free(&m0), hdg_mesh_free(&m2);
}

static void refused(void)
{
    const char *bad[] = {"square:2,refine=11", "square:2,refine=-1", "square:2,refine=", "square:2,refine=1x"};
    for (int i = 0; i < 4; i++) {
        hdg_mesh m;
        hdg_error err = {0};
        CHECK(hdg_mesh_load(&m, bad[i], &err) == HDG_EINPUT && strstr(err.msg, "refine=L needs an integer L from 0 to 10"),
              "%s: %s", bad[i], err.msg);
    }
}

int main(void)
{
    square_twice();
    gmsh_levels();
    refused();
    return test_summary("test_mesh_refine");
}
