/* test_mesh3d.c — tetrahedral meshes (runtime/mesh): cube:N, the topology of mesh.h
 * in 3D (faces, orientations, coupling lists, markers) and its validation. */
#include <stdlib.h>
#include <string.h>

#include "runtime/fem/refel.h"
#include "runtime/mesh/mesh.h"
#include "test.h"

static void vsub(const hdg_mesh *m, int a, int b, double *d) /* d = x_b - x_a */
{
    d[0] = m->vx[b] - m->vx[a], d[1] = m->vy[b] - m->vy[a], d[2] = m->vz[b] - m->vz[a];
}

static void cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static double volume(const hdg_mesh *m, int e)
{
    const int *v = m->ev + 4 * e;
    double a[3], b[3], c[3], n[3];
    vsub(m, v[0], v[1], a), vsub(m, v[0], v[2], b), vsub(m, v[0], v[3], c);
    cross(a, b, n);
    return dot(n, c) / 6;
}

/* Area-weighted outward normal (|n| = area) of local face j of element e. */
static void outward(const hdg_mesh *m, int e, int j, double *n)
{
    const int *v = m->ev + 4 * e, *w = hdg_simplex_face_vertices(3, j);
    int opp = 6 - w[0] - w[1] - w[2];
    double a[3], b[3], c[3];
    vsub(m, v[w[0]], v[w[1]], a), vsub(m, v[w[0]], v[w[2]], b), vsub(m, v[w[0]], v[opp], c);
    cross(a, b, n);
    double s = dot(n, c) > 0 ? -0.5 : 0.5;
    for (int i = 0; i < 3; i++) n[i] *= s;
}

/* The invariants of mesh.h for a tetrahedral mesh; vol = the domain's volume,
 * area = its boundary's area. */
static void check_tet_mesh(const hdg_mesh *m, double vol, double area, const char *name)
{
    CHECK(m->dim == 3 && hdg_mesh_nfe(m) == 4 && hdg_mesh_nvf(m) == 3 && hdg_mesh_na(m) == 7, "%s: strides",
          name);
    double total = 0, bad_vol = 0;
    for (int e = 0; e < m->ne; e++) {
        double V = volume(m, e);
        total += V;
        bad_vol += !(V > 0);
    }
    CHECK(bad_vol == 0, "%s: %g non-positive tetrahedra", name, bad_vol);
    CHECK_NEAR(total, vol, 1e-14 * vol * 4, "total volume");
    int bad_ef = 0, bad_orient = 0, bad_normal = 0, bad_cpl = 0, nb = 0, bad_order = 0;
    double barea = 0;
    for (int f = 0; f < m->nf; f++) {
        const int *fv = m->fv + 3 * f;
        for (int s = 0; s < 2; s++) {
            int e = m->fe[2 * f + s], j = m->flf[2 * f + s];
            if (e < 0) continue;
            bad_ef += m->ef[4 * e + j] != f;
            const int *w = hdg_simplex_face_vertices(3, j);
            int b[3] = {m->ev[4 * e + w[0]], m->ev[4 * e + w[1]], m->ev[4 * e + w[2]]};
            int o = m->eforient[4 * e + j];
            bad_orient += s == 0 && o != 0;
            const int *pi = hdg_face_orient_perm(3, o < 0 || o > 5 ? 0 : o);
            for (int k = 0; k < 3; k++) bad_orient += b[k] != fv[pi[k]];
            bad_orient += hdg_face_orientation(3, fv, b) != o;
        }
        bad_order += m->fe[2 * f + 1] >= 0 && m->fe[2 * f] > m->fe[2 * f + 1];
        bad_order += f > 0 && m->fe[2 * f] < m->fe[2 * (f - 1)];
        double n0[3], n1[3];
        outward(m, m->fe[2 * f], m->flf[2 * f], n0);
        if (m->fe[2 * f + 1] >= 0) {
            outward(m, m->fe[2 * f + 1], m->flf[2 * f + 1], n1);
            for (int i = 0; i < 3; i++) bad_normal += fabs(n0[i] + n1[i]) > 1e-14 * (1 + sqrt(dot(n0, n0)));
        } else {
            nb++, barea += sqrt(dot(n0, n0));
            bad_normal += m->fmark[f] <= 0;
        }
        const int *c = m->fnbr + 7 * f, *ce = m->fnbr_elem + 7 * f, *cl = m->fnbr_lf + 7 * f;
        int valid = 0;
        for (int a = 0; a < 7; a++) valid += c[a] >= 0;
        bad_cpl += valid != (m->fe[2 * f + 1] >= 0 ? 7 : 4) || c[0] != f || ce[0] != m->fe[2 * f];
        for (int s = 0; s < 2; s++) {
            int e = m->fe[2 * f + s], j = m->flf[2 * f + s];
            for (int t = 1; t <= 3 && e >= 0; t++) {
                int a = 1 + 3 * s + t - 1;
                bad_cpl += c[a] != m->ef[4 * e + (j + t) % 4] || ce[a] != e || cl[a] != (j + t) % 4;
            }
        }
    }
    CHECK(bad_ef == 0, "%s: %d ef entries wrong", name, bad_ef);
    CHECK(bad_orient == 0, "%s: %d orientation errors", name, bad_orient);
    CHECK(bad_normal == 0, "%s: %d faces whose normals are not opposite (or untagged)", name, bad_normal);
    CHECK(bad_cpl == 0, "%s: %d coupling list errors", name, bad_cpl);
    CHECK(bad_order == 0, "%s: %d faces out of order", name, bad_order);
    CHECK(nb == m->nbf, "%s: nbf %d, counted %d", name, m->nbf, nb);
    CHECK_NEAR(barea, area, 1e-13 * area, "boundary area");
    CHECK(m->nv - (m->nf - m->nbf) - m->nbf > -2 * m->nf, "%s: sanity", name);
}

/* cube:N on box: counts, markers on their planes, and the invariants. */
static void check_cube(const hdg_mesh *m, int N, const double *bx, const char *name)
{
    CHECK(m->ne == 6 * N * N * N, "%s: ne = %d", name, m->ne);
    CHECK(m->nv == (N + 1) * (N + 1) * (N + 1), "%s: nv = %d", name, m->nv);
    CHECK(m->nf == 12 * N * N * N + 6 * N * N, "%s: nf = %d", name, m->nf);
    CHECK(m->nbf == 12 * N * N, "%s: nbf = %d", name, m->nbf);
    CHECK(m->nmarkers == 6 && m->nuntagged == 0 && m->nreoriented == 0, "%s: nmarkers %d nuntagged %d "
          "nreoriented %d", name, m->nmarkers, m->nuntagged, m->nreoriented);
    static const char *names[] = {"left", "right", "front", "back", "bottom", "top"};
    for (int id = 1; id <= 6; id++) {
        CHECK(hdg_mesh_marker_id(m, names[id - 1]) == id, "%s: marker %s", name, names[id - 1]);
        CHECK(hdg_mesh_marker_count(m, id) == 2 * N * N, "%s: %s has %d faces", name, names[id - 1],
              hdg_mesh_marker_count(m, id));
    }
    int off = 0;
    for (int f = 0; f < m->nf; f++) {
        int id = m->fmark[f];
        if (!id) continue;
        int axis = (id - 1) / 2;
        double want = bx[id - 1];
        for (int k = 0; k < 3; k++) {
            int v = m->fv[3 * f + k];
            double x = axis == 0 ? m->vx[v] : axis == 1 ? m->vy[v] : m->vz[v];
            off += x != want;
        }
    }
    CHECK(off == 0, "%s: %d boundary face vertices off their side", name, off);
    double L[3] = {bx[1] - bx[0], bx[3] - bx[2], bx[5] - bx[4]};
    check_tet_mesh(m, L[0] * L[1] * L[2], 2 * (L[0] * L[1] + L[1] * L[2] + L[0] * L[2]), name);
}

static void test_cube(void)
{
    int Ns[] = {1, 2, 3, 5};
    double unit[6] = {0, 1, 0, 1, 0, 1};
    for (int i = 0; i < 4; i++) {
        hdg_mesh m;
        hdg_error err;
        char name[32];
        snprintf(name, sizeof name, "cube:%d", Ns[i]);
        CHECK(hdg_mesh_cube(&m, Ns[i], 0, unit, &err) == HDG_OK, "%s: %s", name, err.msg);
        check_cube(&m, Ns[i], unit, name);
        CHECK(m.source && !strcmp(m.source, name), "source %s", m.source);
        hdg_mesh_free(&m);
        CHECK(hdg_mesh_load(&m, name, &err) == HDG_OK, "load %s: %s", name, err.msg);
        check_cube(&m, Ns[i], unit, name);
        hdg_mesh_free(&m);
    }
    hdg_mesh m;
    hdg_error err;
    /* cube:1: vertex (i,j,k) = 4k + 2j + i; the first tetrahedron walks x, y, z */
    CHECK(hdg_mesh_cube(&m, 1, 0, unit, &err) == HDG_OK, "cube:1");
    CHECK(m.ev[0] == 0 && m.ev[1] == 1 && m.ev[2] == 3 && m.ev[3] == 7, "cube:1 ev %d %d %d %d", m.ev[0], m.ev[1],
          m.ev[2], m.ev[3]);
    CHECK(m.fv[0] == 0 && m.fv[1] == 1 && m.fv[2] == 3 && m.fe[0] == 0 && m.flf[0] == 0, "cube:1 face 0");
    hdg_mesh_free(&m);
    double bx[6] = {-1, 2, 0.5, 1, 3, 7.25};
    CHECK(hdg_mesh_load(&m, "cube:4,domain=[-1,2]x[0.5,1]x[3,7.25]", &err) == HDG_OK, "domain: %s", err.msg);
    check_cube(&m, 4, bx, "cube:4,domain=box");
    hdg_mesh_free(&m);
    double sym[6] = {-2, 2, -2, 2, -2, 2};
    CHECK(hdg_mesh_load(&m, "cube:3,domain=[-2,2]^3", &err) == HDG_OK, "domain ^3: %s", err.msg);
    check_cube(&m, 3, sym, "cube:3,domain=[-2,2]^3");
    hdg_mesh_free(&m);
}

static void test_cube_perturb(void)
{
    hdg_mesh m;
    hdg_error err;
    CHECK(hdg_mesh_load(&m, "cube:6,perturb=0.15", &err) == HDG_OK, "perturb 0.15: %s", err.msg);
    CHECK(m.nreoriented == 0, "perturbed: %d reoriented", m.nreoriented);
    check_tet_mesh(&m, 1, 6, "cube:6,perturb=0.15");
    int moved = 0;
    for (int v = 0; v < m.nv; v++) moved += fabs(m.vx[v] * 6 - round(m.vx[v] * 6)) > 1e-3;
    CHECK(moved > 50, "perturbed: only %d vertices moved", moved);
    hdg_mesh m2;
    CHECK(hdg_mesh_load(&m2, "cube:6,perturb=0.15", &err) == HDG_OK, "again");
    CHECK(!memcmp(m.vz, m2.vz, sizeof(double) * (size_t)m.nv), "perturbation not reproducible");
    hdg_mesh_free(&m), hdg_mesh_free(&m2);
    CHECK(hdg_mesh_load(&m, "cube:8,perturb=0.45", &err) == HDG_EINPUT && strstr(err.msg, "inverted after "
          "perturbation"), "perturb 0.45: %s", err.msg);
}

/* A spec the loader refuses, with the message. */
static void refused(const char *spec, const char *want)
{
    hdg_mesh m;
    hdg_error err;
    err.msg[0] = '\0';
    hdg_status st = hdg_mesh_load(&m, spec, &err);
    CHECK(st != HDG_OK && strstr(err.msg, want), "%s: status %d, message '%s' (want '%s')", spec, st, err.msg, want);
    if (!st) hdg_mesh_free(&m);
}

static void test_cube_spec_errors(void)
{
    refused("cube:0", "N must be between 1 and 280");
    refused("cube:281", "N must be between 1 and 280");
    refused("cube:x", "cube:N needs an integer N");
    refused("cube:2,domain=[0,1]^2", "domain must be [a,b]^3 or [a,b]x[c,d]x[e,f]");
    refused("cube:2,domain=[0,1]x[0,1]", "domain must be [a,b]^3");
    refused("cube:2,domain=[1,0]^3", "empty or not finite");
    refused("cube:2,periodic=w", "periodic= takes x, y, z, xy, xz, yz or xyz on cube:N");
    refused("cube:2,periodic=xx", "periodic= takes x, y, z");
    refused("cube:2,periodic=x", "a periodic cube needs N >= 3");
    refused("cube:2,seed=1", "unknown option 'seed'");
    refused("cube", "write cube:N");
    refused("square:2,domain=[0,1]^3", "domain must be [a,b]^2 or [a,b]x[c,d]");
    refused("square:3,periodic=z", "periodic= takes x, y or xy on square:N");
}


/* A hand-made tetrahedral mesh: nv vertices xyz[3nv], ne tetrahedra ev[4ne], ntag tags[5ntag]. */
static hdg_status build(hdg_mesh *m, int nv, const double *xyz, int ne, const int *ev, int ntag, const int *tag,
                        hdg_error *err)
{
    memset(m, 0, sizeof *m);
    m->dim = 3, m->nv = nv, m->ne = ne;
    m->vx = malloc(sizeof(double) * nv), m->vy = malloc(sizeof(double) * nv), m->vz = malloc(sizeof(double) * nv);
    for (int v = 0; v < nv; v++) m->vx[v] = xyz[3 * v], m->vy[v] = xyz[3 * v + 1], m->vz[v] = xyz[3 * v + 2];
    m->ev = malloc(sizeof(int) * 4 * ne);
    memcpy(m->ev, ev, sizeof(int) * 4 * ne);
    if (ntag) {
        m->ntag = ntag, m->tag = malloc(sizeof(int) * 5 * ntag);
        memcpy(m->tag, tag, sizeof(int) * 5 * ntag);
    }
    return hdg_mesh_build_topology(m, err);
}

static void expect_fail(int nv, const double *xyz, int ne, const int *ev, int ntag, const int *tag, const char *want,
                        const char *what)
{
    hdg_mesh m;
    hdg_error err;
    err.msg[0] = '\0';
    hdg_status st = build(&m, nv, xyz, ne, ev, ntag, tag, &err);
    CHECK(st == HDG_EINPUT && strstr(err.msg, want), "%s: status %d '%s' (want '%s')", what, st, err.msg, want);
    hdg_mesh_free(&m);
}

static void test_validation(void)
{
    /* two tetrahedra on the triangle 0 1 2: apex 3 above, apex 4 below */
    double xyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.2, 0.2, -1, 0.3, 0.3, 1.5, 0, 0, 1e-20};
    int good[] = {0, 1, 2, 3, 0, 2, 1, 4};
    hdg_mesh m;
    hdg_error err;
    CHECK(build(&m, 5, xyz, 2, good, 0, NULL, &err) == HDG_OK, "two tets: %s", err.msg);
    CHECK(m.nf == 7 && m.nbf == 6 && m.nreoriented == 0 && m.nuntagged == 6, "two tets: nf %d nbf %d reor %d "
          "untagged %d", m.nf, m.nbf, m.nreoriented, m.nuntagged);
    CHECK(hdg_mesh_marker_id(&m, "boundary") == 1, "untagged faces get 'boundary'");
    hdg_mesh_free(&m);
    int inverted[] = {0, 2, 1, 3, 0, 2, 1, 4}; /* the first one inverted: reoriented */
    CHECK(build(&m, 5, xyz, 2, inverted, 0, NULL, &err) == HDG_OK, "inverted: %s", err.msg);
    CHECK(m.nreoriented == 1 && m.ev[1] == 1 && m.ev[2] == 2, "inverted: nreoriented %d", m.nreoriented);
    hdg_mesh_free(&m);
    int tags[] = {0, 1, 3, 7, 0, 3, 1, 0, 7, 0}; /* the same face twice, in two orders */
    CHECK(build(&m, 5, xyz, 2, good, 2, tags, &err) == HDG_OK, "tags: %s", err.msg);
    CHECK(hdg_mesh_marker_count(&m, 7) == 1 && !strcmp(m.marker_names[7], "7"), "tagged face: %d",
          hdg_mesh_marker_count(&m, 7));
    hdg_mesh_free(&m);
    int dup[] = {0, 1, 2, 3, 0, 1, 2, 3};
    expect_fail(5, xyz, 2, dup, 0, NULL, "overlapping tetrahedra: elements 0 and 1 lie on the same side of the "
                "face of vertex 0, vertex 1 and vertex 2", "duplicate");
    int same_side[] = {0, 1, 2, 3, 0, 1, 2, 5};
    expect_fail(6, xyz, 2, same_side, 0, NULL, "overlapping tetrahedra: elements 0 and 1 lie on the same side",
                "same side");
    int nonmanifold[] = {0, 1, 2, 3, 0, 2, 1, 4, 0, 1, 2, 5};
    expect_fail(6, xyz, 3, nonmanifold, 0, NULL, "non-manifold face of vertex 0, vertex 1 and vertex 2 (elements 0, "
                "1, 2)", "non-manifold");
    int flat[] = {0, 1, 2, 6};
    expect_fail(7, xyz, 1, flat, 0, NULL, "degenerate tetrahedron: element 0 (vertex 0, vertex 1, vertex 2, "
                "vertex 6) has volume", "degenerate");
    int not_face[] = {1, 3, 4, 3, 0};
    expect_fail(5, xyz, 2, good, 1, not_face, "tagged face of vertex 1, vertex 3 and vertex 4 is not a face of "
                "any tetrahedron", "tag not a face");
}

int main(void)
{
    test_validation();
    test_cube();
    test_cube_perturb();
    test_cube_spec_errors();
    return test_summary("mesh3d");
}
