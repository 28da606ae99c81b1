/* test_mesh_gmsh.c — the Gmsh reader on the meshes in tests/data. */
#include <string.h>

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

int main(void)
{
    test_square16();
    test_partial_tags();
    test_maxwell05();
    test_errors();
    return test_summary("mesh_gmsh");
}
