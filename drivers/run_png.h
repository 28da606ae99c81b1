/* run_png.h — `hdgc run --png`: one field of a run drawn with runtime/output/png.h.
 *
 * The field is sampled at the centroids of m^2 sub-triangles of every element
 * (m = 2(k+1), fewer when elements are small in the picture) from its modal
 * dofs; the report gets output.png_min/max (the colour range: the samples'
 * min and max), output.png_subdivision (m), output.png_scale and
 * output.png_origin_x/y (pixel = (ox + scale x, oy - scale y)). */
#ifndef HDG_RUN_PNG_H
#define HDG_RUN_PNG_H

#include "drivers/run.h"
#include "ir/lower.h"
#include "runtime/output/png.h"
#include "runtime/mesh/mesh.h"

/* The HDG field named name (NULL: the first scalar element unknown) as its
 * unknown u, component c and post flag; HDG_EINPUT listing the fields when
 * there is no such field. */
hdg_status hdg_png_hdg_field(const hdg_problem *p, const hdg_lowered *L, const char *name, int *u, int *c,
                             hdg_error *err);

/* The caption of a picture: "PROBLEM   FIELD   DEG = d   MESH   (ne elements)",
 * then "   t = T" (%.4g) when t is finite (a time-dependent run's time). The
 * report gets it as output.png_caption. */
void hdg_png_caption(char *buf, size_t n, const char *problem, const char *field, const char *deg_name, int deg,
                     const char *mesh, long long ne, double t);

/* The colour range of a frame series: fixed from the first frame not all zero at
 * [-1.1 M, 1.1 M], M its largest |value| (as explicit DG's frames); clamped: the last
 * frame drawn had values outside it. */
typedef struct hdg_png_range {
    double lo, hi;
    int fixed, clamped;
} hdg_png_range;

/* Draws the HDG field o->png_field of the element dofs xe (and xp, the
 * post-processed unknown, or NULL) to o->png; t: the time of a transient
 * run (NAN when steady), in the caption. */
hdg_status hdg_png_hdg(const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *mesh, const double *xe,
                       const double *xp, double t, const hdg_run_options *o, hdg_report *rep, hdg_error *err);
/* ... to path, in R's range (NULL: the samples'). */
hdg_status hdg_png_hdg_to(const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *mesh, const double *xe,
                          const double *xp, double t, const hdg_run_options *o, const char *path, hdg_png_range *R,
                          hdg_report *rep, hdg_error *err);

/* ---- transient HDG (run_png_hdg.c): frames ----
 * o->png with a '%' (hdg_png_pattern_ok) on a problem with dt() terms is a frame series,
 * as explicit DG's: frame 0 at t = 0, one every o->every steps (o->every 0: only the first
 * and the last), the last at the final time, numbered 0, 1, 2, ... through the pattern,
 * in one fixed colour range (hdg_png_range); output.png_frames counts them,
 * output.png_frames_clamped the frames drawn clamped. A steady HDG run refuses a pattern. */
typedef struct hdg_png_hdg_frames {
    int series, nframes, nclamped;
    hdg_png_range range;
} hdg_png_hdg_frames;
/* F for o (F->series: o->png is a pattern); HDG_EINPUT for a bad pattern. */
hdg_status hdg_png_hdg_frames_open(hdg_png_hdg_frames *F, const hdg_run_options *o, hdg_error *err);
/* Is a frame due after step `step` of nsteps (0: the initial state)? */
int hdg_png_hdg_frame_due(const hdg_png_hdg_frames *F, const hdg_run_options *o, long long step, long long nsteps);
/* Draws the next frame of the element dofs xe (xp: the post-processed ones, or NULL) at t. */
hdg_status hdg_png_hdg_frame(hdg_png_hdg_frames *F, const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *mesh,
                             const double *xe, const double *xp, double t, const hdg_run_options *o, hdg_report *rep,
                             hdg_error *err);

/* Draws a modal field (n modes of degree deg of the orthonormal basis of the
 * mesh's simplex, hdg_simplex_eval's order: Dubiner on triangles, PKD on
 * tetrahedra; element e's first mode at x[e*stride + base]) to o->png (size
 * o->png_width x o->png_height, o->png_edges; on tetrahedra o->png_slice)
 * with the caption; fills the report as above. */
typedef struct hdg_png_field {
    int deg, n, stride, base;
    const double *x;
    const char *name;
} hdg_png_field;
hdg_status hdg_png_draw(const hdg_mesh *mesh, const hdg_png_field *f, const hdg_run_options *o, const char *caption,
                        hdg_report *rep, hdg_error *err);

/* hdg_png_draw to path, in R's range (R NULL: the samples'). */
hdg_status hdg_png_draw_to(const hdg_mesh *mesh, const hdg_png_field *f, const hdg_run_options *o, const char *path,
                           const char *caption, hdg_png_range *R, hdg_report *rep, hdg_error *err);

/* Tetrahedra (runtime/output/png3d.h): the flat triangles of the section
 * o->png_slice (1..3: x, y, z = o->png_slice_at) or, without it, of the
 * boundary surface seen from HDG_PNG_AZIMUTH, HDG_PNG_ELEVATION, of the
 * field T samples (degree deg: hdg_png_subdivision's m for o's size). */
struct hdg_png_tets;
struct hdg_png_flat;
hdg_status hdg_png_flatten(const struct hdg_png_tets *T, int deg, const hdg_run_options *o, struct hdg_png_flat *F,
                           hdg_error *err);
/* The samples' min and max. */
void hdg_png_flat_range(const struct hdg_png_flat *F, double lohi[2]);
/* Draws them to path at o->png_width x o->png_height (o->png_edges: the
 * flat triangles' edges; the surface without axes) in the range vmin..vmax
 * (vmin >= vmax: the samples'). The caption gets "   slice z = 0.5" or
 * "   surface, azimuth 30, elevation 25"; the report (rep may be NULL) gets
 * hdg_png_report's and output.png_caption, output.png_view (that text) and
 * output.png_triangles (the flat triangles drawn). */
hdg_status hdg_png_draw_flat(const struct hdg_png_flat *F, const hdg_run_options *o, const char *path,
                             const char *field, const char *caption, double vmin, double vmax, hdg_report *rep,
                             hdg_error *err);

/* A nodal field for png3d.h's sampler (the DG state): element e's re->Np
 * values at re's nodes at vals + e*stride, interpolated to the points asked
 * for (hdg_refel_interp_x; I: a buffer of cap points, NULL/0 at first, the
 * caller frees it). */
struct hdg_refel;
typedef struct hdg_png_nodal {
    const struct hdg_refel *re;
    const double *vals;
    int stride;
    double *I;
    int cap;
} hdg_png_nodal;
void hdg_png_sample_nodal(void *ctx, int e, int n, const double *const *x, double *out);

/* --slice on a 2D mesh: HDG_EINPUT saying so. */
hdg_status hdg_png_check_slice(const hdg_run_options *o, int dim, hdg_error *err);

/* Sub-triangles per element edge for a field of degree deg: 2(deg+1), fewer
 * when elements are under ~4 pixels a sub-triangle. */
int hdg_png_subdivision(const hdg_mesh *mesh, int deg, int width, int height);
/* The vertex coordinates of the mesh's elements: ne*6 on triangles (png.h's
 * vxy), ne*12 on tetrahedra (x, y, z of v0..v3: png3d.h's vxyz). */
void hdg_png_vertices(const hdg_mesh *mesh, double *vxy);
/* The mesh's spec, or its file's name, for a caption. */
const char *hdg_png_mesh_name(const hdg_mesh *mesh);
/* output.png_* of a picture drawn with lay and subdivision m: the range,
 * subdivision, scale, origin, and the ticks (output.png_xticks, _yticks,
 * _cticks: how many on the x axis, the y axis, the colour bar). */
void hdg_png_report(hdg_report *rep, const hdg_png_layout *lay, int m);

/* ---- explicit DG (run_png_dg.c): the state at the final time, or frames ----
 * o->png with a '%' (one integer conversion like %04d) is a frame series:
 * frame 0 at t = 0, one every o->every steps, the last at the final time,
 * all in one fixed colour range, [-1.1 M, 1.1 M] with M the largest |value|
 * of the first frame not all zero (so a movie does not flicker, and a wave
 * that changes sign stays in range); otherwise one picture at the final time
 * in its own range. output.png_frames counts them, output.png_frames_clamped
 * the frames with values outside the fixed range (drawn clamped). */
struct hdg_dg_data;
struct hdg_dg_engine;
/* Under mpirun: k doubles of each of this rank's own elements (rec, ne_owned
 * rows) gathered on rank 0 in the whole mesh's element order (a new array of
 * ne_global rows); NULL on the other ranks. Collective. */
struct hdg_mesh_dist;
double *hdg_png_gather(const struct hdg_mesh_dist *d, int k, const double *rec);

typedef struct hdg_png_frames {
    int field, m, ns, series, nframes, nclamped;
    double *I, *vals, *vxy;    /* interpolation to the centroids (ns x Np), samples, vertices */
    double vmin, vmax;         /* the series' fixed range (vmin >= vmax: not yet fixed) */
    int tets;                  /* a tetrahedral mesh: vxy holds 12 coordinates an element, no I */
} hdg_png_frames;
/* Picks the field (o->png_field: a field name as in VTK, "Ez", "u_x";
 * NULL: the first); HDG_EINPUT listing the fields when unknown. */
hdg_status hdg_png_dg_open(hdg_png_frames *F, const struct hdg_dg_data *d, const hdg_run_options *o,
                           hdg_error *err);
/* After step `done` of nsteps (0: the initial state) at time t: writes a
 * picture when one is due. */
hdg_status hdg_png_dg_step(hdg_png_frames *F, const struct hdg_dg_data *d, const struct hdg_dg_engine *eng,
                           const hdg_run_options *o, long long done, long long nsteps, double t,
                           hdg_report *rep, hdg_error *err);
void hdg_png_dg_close(hdg_png_frames *F);
/* A path without '%', or a frame pattern: one %d, %Nd or %0Nd (N < 100), no other '%'. */
int hdg_png_pattern_ok(const char *path);

#endif
