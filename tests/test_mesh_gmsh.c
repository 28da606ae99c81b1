/* test_mesh_gmsh.c — the Gmsh reader on the meshes in tests/data. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "support/util.h"
#include "test.h"
#include "test_mesh_common.c"

#define DATA(f) HDG_TEST_DATA "/" f

/* The unit square, 2 x 2 cells with a centre node each: 16 triangles, 13 nodes,
 * physical lines bottom(1) right(2) top(3) left(4), 2 faces each. */
static void check_square16(const hdg_mesh *m, const char *name)
{
    CHECK(m->ne == 16 && m->nv == 13 && m->nf == 28 && m->nbf == 8, "%s: ne %d nv %d nf %d nbf %d", name, m->ne,
          m->nv, m->nf, m->nbf);
    static const char *names[] = {"bottom", "right", "top", "left"};
    for (int id = 1; id <= 4; id++) {
        CHECK(hdg_mesh_marker_id(m, names[id - 1]) == id, "%s: marker %s id %d", name, names[id - 1],
              hdg_mesh_marker_id(m, names[id - 1]));
        CHECK(hdg_mesh_marker_count(m, id) == 2, "%s: %s count %d", name, names[id - 1],
              hdg_mesh_marker_count(m, id));
    }
    CHECK(m->nmarkers == 4, "%s: nmarkers %d (point and surface names are not markers)", name, m->nmarkers);
    CHECK(hdg_mesh_marker_id(m, "domain") == -1 && hdg_mesh_marker_id(m, "corner") == -1, "%s: dim 0/2 names",
          name);
    CHECK(m->nuntagged == 0, "%s: nuntagged %d", name, m->nuntagged);
    int bad = 0;
    for (int f = 0; f < m->nf; f++) {
        if (!m->fmark[f]) continue;
        double ax = m->vx[m->fv[2 * f]], ay = m->vy[m->fv[2 * f]];
        double bx = m->vx[m->fv[2 * f + 1]], by = m->vy[m->fv[2 * f + 1]];
        int id = m->fmark[f];
        bad += id == 1 ? ay != 0 || by != 0 : id == 2 ? ax != 1 || bx != 1 : id == 3 ? ay != 1 || by != 1
                                                                       : ax != 0 || bx != 0;
    }
    CHECK(bad == 0, "%s: %d boundary faces off their side", name, bad);
    check_mesh(m, 1, 1, 1, name);
}

/* Element e of a and b: the same triangle (same vertex coordinates in the same order). */
static int same_elements(const hdg_mesh *a, const hdg_mesh *b)
{
    if (a->ne != b->ne) return 0;
    for (int k = 0; k < 3 * a->ne; k++)
        if (a->vx[a->ev[k]] != b->vx[b->ev[k]] || a->vy[a->ev[k]] != b->vy[b->ev[k]]) return 0;
    for (int f = 0; f < a->nf; f++)
        if (a->fmark[f] != b->fmark[f] || a->fe[2 * f] != b->fe[2 * f] || a->fe[2 * f + 1] != b->fe[2 * f + 1])
            return 0;
    return 1;
}

static void test_square16(void)
{
    hdg_mesh m22, m41, gaps, cw;
    hdg_error err;
    CHECK(hdg_mesh_read_gmsh(&m22, DATA("square16_v22.msh"), &err) == HDG_OK, "v22: %s", err.msg);
    CHECK(hdg_mesh_read_gmsh(&m41, DATA("square16_v41.msh"), &err) == HDG_OK, "v41: %s", err.msg);
    CHECK(hdg_mesh_load(&gaps, DATA("square16_gaps_v41.msh"), &err) == HDG_OK, "gaps: %s", err.msg);
    CHECK(hdg_mesh_read_gmsh(&cw, DATA("square16_cw_v22.msh"), &err) == HDG_OK, "cw: %s", err.msg);
    check_square16(&m22, "square16_v22");
    check_square16(&m41, "square16_v41");
    check_square16(&gaps, "square16_gaps_v41");
    check_square16(&cw, "square16_cw_v22");
    CHECK(same_elements(&m22, &m41), "2.2 and 4.1 files give the same mesh");
    CHECK(same_elements(&m22, &gaps), "non-contiguous tags give the same mesh");
    CHECK(same_elements(&m22, &cw), "reoriented clockwise triangles give the same mesh");
    CHECK(m22.nreoriented == 0 && cw.nreoriented == 8, "reoriented %d / %d", m22.nreoriented, cw.nreoriented);
    CHECK(gaps.vtag && gaps.vtag[0] == 963 && gaps.vtag[8] == 519, "node tags kept: %lld %lld",
          gaps.vtag ? gaps.vtag[0] : -1, gaps.vtag ? gaps.vtag[8] : -1);
    CHECK(m22.eline && m22.eline[0] == 40 && m22.eline[15] == 55, "file lines of elements: %d %d",
          m22.eline ? m22.eline[0] : -1, m22.eline ? m22.eline[15] : -1);
    CHECK(!strcmp(m22.source, DATA("square16_v22.msh")), "source %s", m22.source);
    hdg_mesh_free(&m22), hdg_mesh_free(&m41), hdg_mesh_free(&gaps), hdg_mesh_free(&cw);
}

static void test_partial_tags(void)
{
    hdg_mesh m;
    hdg_error err;
    CHECK(hdg_mesh_read_gmsh(&m, DATA("square16_partial_v22.msh"), &err) == HDG_OK, "partial: %s", err.msg);
    CHECK(m.nbf == 8 && m.nuntagged == 6, "nbf %d nuntagged %d", m.nbf, m.nuntagged);
    CHECK(hdg_mesh_marker_id(&m, "7") == 7 && hdg_mesh_marker_count(&m, 7) == 2, "unnamed tag 7 named '7'");
    CHECK(hdg_mesh_marker_id(&m, "boundary") == 8 && hdg_mesh_marker_count(&m, 8) == 6, "boundary marker id %d",
          hdg_mesh_marker_id(&m, "boundary"));
    CHECK(m.nmarkers == 8 && m.marker_names[1] == NULL, "nmarkers %d", m.nmarkers);
    check_mesh(&m, 1, 1, 1, "partial");
    hdg_mesh_free(&m);
}

static void test_maxwell05(void)
{
    hdg_mesh m;
    hdg_error err;
    CHECK(hdg_mesh_read_gmsh(&m, DATA("maxwell05_v22.msh"), &err) == HDG_OK, "maxwell05: %s", err.msg);
    CHECK(m.ne == 46 && m.nv == 32, "ne %d nv %d", m.ne, m.nv);
    CHECK(m.nmarkers == 1 && hdg_mesh_marker_id(&m, "boundary") == 1 && m.nuntagged == m.nbf,
          "all boundary faces untagged: nmarkers %d nuntagged %d nbf %d", m.nmarkers, m.nuntagged, m.nbf);
    int off = 0;
    for (int f = 0; f < m.nf; f++) {
        if (m.fe[2 * f + 1] >= 0) continue;
        int a = m.fv[2 * f], b = m.fv[2 * f + 1];
        int ona = fabs(m.vx[a]) == 1 || fabs(m.vy[a]) == 1, onb = fabs(m.vx[b]) == 1 || fabs(m.vy[b]) == 1;
        off += !ona || !onb;
    }
    CHECK(off == 0, "%d boundary faces inside the square", off);
    check_mesh(&m, 4, 1, 1, "maxwell05");
    hdg_mesh_free(&m);
}

static void expect_error(const char *file, hdg_status code, const char *text)
{
    hdg_mesh m;
    hdg_error err;
    hdg_error_clear(&err);
    hdg_status st = hdg_mesh_load(&m, file, &err);
    CHECK(st == code && strstr(err.msg, text), "%s: status %d '%s' (want '%s')", file, st, err.msg, text);
    CHECK(m.ne == 0 && m.ev == NULL && m.source == NULL && m.marker_names == NULL, "%s: mesh zeroed", file);
    hdg_mesh_free(&m);
}

static void test_errors(void)
{
    expect_error(DATA("bad_truncated.msh"), HDG_EINPUT, "bad_truncated.msh:14: file ends inside the $Elements");
    expect_error(DATA("bad_truncated_v41.msh"), HDG_EINPUT, "bad_truncated_v41.msh:12: file ends inside the $Nodes");
    expect_error(DATA("bad_number.msh"), HDG_EINPUT, "bad_number.msh:7: malformed number '1.0.5' (expected node x");
    expect_error(DATA("bad_quad.msh"), HDG_EINPUT,
                 "bad_quad.msh:14: unsupported element type 3 (4-node quadrangle); hdgc supports 3-node triangles");
    expect_error(DATA("bad_quad_v41.msh"), HDG_EINPUT, "bad_quad_v41.msh:18: unsupported element type 3");
    expect_error(DATA("bad_nonmanifold.msh"), HDG_EINPUT,
                 "non-manifold edge between node 1 and node 2 (elements 0, 1, 2)");
    expect_error(DATA("bad_degenerate.msh"), HDG_EINPUT,
                 "bad_degenerate.msh:15: degenerate triangle: element 1 (node 1, node 5, node 3)");
    expect_error(DATA("bad_undefined_node.msh"), HDG_EINPUT,
                 "bad_undefined_node.msh:14: element refers to node 99, which $Nodes does not define");
    expect_error(DATA("bad_binary.msh"), HDG_EINPUT, "bad_binary.msh:2: binary Gmsh file");
    expect_error(DATA("bad_nonplanar.msh"), HDG_EINPUT, "bad_nonplanar.msh:8: node 3 has z = 0.5");
    expect_error(DATA("bad_overlap.msh"), HDG_EINPUT, "bad_overlap.msh:14: overlapping triangles: elements 0 and 1");
    /* issue 38.6: overlaps without a shared edge (they were accepted, and the errors counted the overlap twice) */
    expect_error(DATA("bad_overlap_cross.msh"), HDG_EINPUT,
                 "bad_overlap_cross.msh:15: overlapping triangles: element 0 and element 1 (lines 15 and 16) cover a "
                 "common area near (0.8, 0.2)");
    expect_error(DATA("bad_overlap_inside.msh"), HDG_EINPUT,
                 "bad_overlap_inside.msh:16: overlapping triangles: element 1 and element 0 (lines 16 and 15)");
    expect_error(DATA("bad_overlap_fold.msh"), HDG_EINPUT,
                 "bad_overlap_fold.msh:23: overlapping triangles: element 0 and element 8 (lines 23 and 31)");
    expect_error(DATA("bad_version.msh"), HDG_EINPUT, "bad_version.msh:2: unsupported Gmsh format version 4");
    expect_error(DATA("bad_line_not_edge.msh"), HDG_EINPUT,
                 "bad_line_not_edge.msh:15: boundary line element joins node 2 and node 4, which is not an edge");
    expect_error(DATA("bad_notmsh.msh"), HDG_EINPUT, "bad_notmsh.msh:1: not a Gmsh .msh file");
    expect_error(DATA("bad_no_triangles.msh"), HDG_EINPUT, "no triangles");
    expect_error(DATA("bad_duplicate_node.msh"), HDG_EINPUT,
                 "bad_duplicate_node.msh:8: node tag 2 is defined twice (first at line 7)");
    expect_error(DATA("bad_count.msh"), HDG_EINPUT,
                 "bad_count.msh:15: the $Elements section ends early: expected element tag, found '$EndElements'");
    expect_error(DATA("no_such_file.msh"), HDG_EIO, "no_such_file.msh: cannot open");
    expect_error(HDG_TEST_DATA, HDG_EIO, "is a directory");
}

/* Gmsh 4.1 text of a fan: n triangles around node 1 (the hub, at the origin)
 * over the upper unit half circle (nodes 2..n+2), listed from the last to the
 * first when `descending` (the hub's edges then arrive in the worst order for
 * an insertion sort). `curves` curves, curve c with physical tag c; `blocks`
 * element blocks, block c on curve c with one line on the boundary edge 1-2 (one
 * curve lookup per block); `nrep` lines on curve 1 along the boundary edge 1-(n+2)
 * (each one a face lookup in the hub's edges). */
static char *fan_msh(int n, int descending, int curves, int blocks, int nrep)
{
    hdg_str b;
    hdg_str_init(&b);
    hdg_str_printf(&b, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 %d 1 0\n", curves);
    for (int c = 1; c <= curves; c++) hdg_str_printf(&b, "%d 0 0 0 1 1 0 1 %d 0\n", c, c);
    hdg_str_printf(&b, "1 -1 0 0 1 1 0 0 0\n$EndEntities\n$Nodes\n1 %d 1 %d\n2 1 0 %d\n", n + 2, n + 2, n + 2);
    for (int i = 1; i <= n + 2; i++) hdg_str_printf(&b, "%d\n", i);
    hdg_str_puts(&b, "0 0 0\n");
    for (int i = 0; i <= n; i++) {
        double t = 3.141592653589793 * i / n;
        hdg_str_printf(&b, "%.17g %.17g 0\n", cos(t), sin(t));
    }
    int nb = blocks;
    hdg_str_printf(&b, "$EndNodes\n$Elements\n%d %d 1 %d\n2 1 2 %d\n", 1 + nb + (nrep > 0), n + nb + nrep,
                   n + nb + nrep, n);
    int tag = 1;
    for (int k = 0; k < n; k++) {
        int i = descending ? n - 1 - k : k; /* triangle hub, node i+2, node i+3 */
        hdg_str_printf(&b, "%d 1 %d %d\n", tag++, i + 2, i + 3);
    }
    for (int c = 1; c <= nb; c++) hdg_str_printf(&b, "1 %d 1 1\n%d 1 2\n", c, tag++);
    if (nrep) hdg_str_printf(&b, "1 1 1 %d\n", nrep);
    for (int r = 0; r < nrep; r++) hdg_str_printf(&b, "%d 1 %d\n", tag++, n + 2);
    hdg_str_puts(&b, "$EndElements\n");
    return hdg_str_take(&b);
}

/* Inputs that were quadratic in the reader or the topology (found reading the
 * code while writing fuzz/gmsh.c): each took minutes, now well under a second.
 * The limit only catches the quadratic paths (47 s for the fan in an optimized build):
 * an unoptimized or sanitizer build (make test-asan) reads the fan in about 14 s of CPU,
 * where the quadratic path takes many minutes. */
#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
#define FAN_LIMIT_S 60.0
#else
#define FAN_LIMIT_S 5.0
#endif
static void check_fan(const char *what, int n, int descending, int curves, int blocks, int nrep, int nmark1)
{
    char *text = fan_msh(n, descending, curves, blocks, nrep);
    hdg_mesh m;
    hdg_error err;
    clock_t t0 = clock(); /* CPU time: the machine may be busy */
    hdg_status st = hdg_mesh_read_gmsh_buffer(&m, what, text, strlen(text), &err);
    double dt = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(st == HDG_OK, "%s: %s", what, err.msg);
    CHECK(dt < FAN_LIMIT_S, "%s: read in %.2f s, over %.0f s (quadratic?)", what, dt, FAN_LIMIT_S);
    CHECK(m.ne == n && m.nbf == n + 2 && m.nf == 2 * n + 1, "%s: ne %d nbf %d nf %d", what, m.ne, m.nbf, m.nf);
    CHECK(m.nf == 0 || hdg_mesh_marker_count(&m, 1) == nmark1, "%s: marker 1 on %d faces (want %d)", what,
          m.nf ? hdg_mesh_marker_count(&m, 1) : -1, nmark1);
    hdg_mesh_free(&m);
    free(text);
}

static void test_quadratic_inputs(void)
{
    int n = 100000;
    check_fan("fan, hub edges in reverse order", n, 1, 0, 0, 0, n + 2); /* 1: "boundary" */
    check_fan("3*10^5 curves, a line block on each", 1000, 0, 3 * n, 3 * n, 0, 1);
    check_fan("fan, 10^5 lines on one edge", n, 0, 1, 0, n, 1);
}

/* A buffer need not be NUL-terminated; the name stands for the path. */
static void test_buffer(void)
{
    static const char text[] = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n"
                               "$EndNodes\n$Elements\n1\n1 2 2 1 1 1 2 3\n$EndElements\nJUNK";
    hdg_mesh m;
    hdg_error err;
    CHECK(hdg_mesh_read_gmsh_buffer(&m, "mem.msh", text, sizeof text - 5, &err) == HDG_OK, "buffer: %s", err.msg);
    CHECK(m.ne == 1 && m.nv == 3 && !strcmp(m.source, "mem.msh"), "buffer: ne %d", m.ne);
    hdg_mesh_free(&m);
    CHECK(hdg_mesh_read_gmsh_buffer(&m, "mem.msh", text, sizeof text - 20, &err) == HDG_EINPUT &&
              strstr(err.msg, "mem.msh:12: file ends inside the $Elements section"),
          "cut buffer: %s", err.msg);
}

int main(void)
{
    test_buffer();
    test_quadratic_inputs();
    test_square16();
    test_partial_tags();
    test_maxwell05();
    test_errors();
    return test_summary("mesh_gmsh");
}
