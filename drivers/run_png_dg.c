/* run_png_dg.c — `hdgc run --png` for explicit DG: the nodal state drawn at
 * the final time, or a frame series with a fixed colour range (run_png.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/run_dg_common.h"
#include "drivers/run_png.h"
#include "runtime/parallel/comm.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/output/png.h"
#include "runtime/output/png3d.h"
#include "support/util.h"

/* The VTK name of field f ("u.x" -> "u_x"). */
static void dg_name(const hdg_dg_data *d, int f, char *buf, size_t n)
{
    snprintf(buf, n, "%s", d->L.field_name[f]);
    for (char *c = buf; *c; c++)
        if (*c == '.') *c = '_';
}

static int dg_field(const hdg_dg_data *d, const char *name, char *list, size_t n)
{
    char buf[64];
    *list = '\0';
    for (int f = 0; f < d->L.nfields; f++) {
        dg_name(d, f, buf, sizeof buf);
        if (!name || !strcmp(name, buf) || !strcmp(name, d->L.field_name[f])) return f;
        if (strlen(list) + strlen(buf) + 3 < n) strcat(strcat(list, *list ? ", " : ""), buf);
    }
    return -1;
}

int hdg_png_pattern_ok(const char *path)
{
    const char *c = strchr(path, '%');
    if (!c) return 1;
    c++;
    if (*c == '0') c++;
    for (int n = 0; *c >= '0' && *c <= '9'; c++)
        if (++n > 2) return 0;
    return *c == 'd' && !strchr(c, '%');
}

hdg_status hdg_png_dg_open(hdg_png_frames *F, const hdg_dg_data *d, const hdg_run_options *o, hdg_error *err)
{
    memset(F, 0, sizeof *F);
    hdg_status st = hdg_png_check_slice(o, hdg_mesh_dim(d->mesh), err);
    if (st) return st;
    char list[512];
    F->field = dg_field(d, o->png_field, list, sizeof list);
    if (F->field < 0) return hdg_fail(err, HDG_EINPUT, "--field %s: no such field (fields: %s)", o->png_field, list);
    if (!hdg_png_pattern_ok(o->png))
        return hdg_fail(err, HDG_EINPUT, "--png %s: a frame pattern has one %%d (e.g. %%04d) and no other %%", o->png);
    F->series = strchr(o->png, '%') != NULL;
    F->vmin = 1, F->vmax = 0;
    if (hdg_mesh_dim(d->mesh) == 3) {   /* tetrahedra: sampled where png3d.c asks (draw_tets) */
        F->tets = 1;
        F->vxy = hdg_xmalloc(sizeof(double) * 12 * ((size_t)d->mesh->ne + 1));
        hdg_png_vertices(d->mesh, F->vxy);
        return HDG_OK;
    }
    int w = o->png_width ? o->png_width : 800, h = o->png_height ? o->png_height : 800;
    hdg_mesh whole = {.ne = (int)d->ne_global};   /* mpirun: the picture is the whole mesh's */
    F->m = hdg_png_subdivision(d->dist ? &whole : d->mesh, d->L.N, w, h);
    F->ns = F->m * F->m;
    double *rs = hdg_xmalloc(sizeof(double) * 2 * F->ns);
    hdg_png_centroids(F->m, rs, rs + F->ns);
    F->I = hdg_xmalloc(sizeof(double) * (size_t)F->ns * d->L.Np);
    hdg_refel_interp(&d->re, F->ns, rs, rs + F->ns, F->I);
    free(rs);
    F->vals = hdg_xmalloc(sizeof(double) * (size_t)d->mesh->ne * F->ns);
    F->vxy = hdg_xmalloc(sizeof(double) * 6 * (size_t)d->mesh->ne);
    hdg_png_vertices(d->mesh, F->vxy);
    return HDG_OK;
}

/* The state's field at the centroids, in mesh order; fixes a series' range
 * from the first frame not all zero: [-1.1 M, 1.1 M], M its largest |value|
 * (waves change sign); counts the frames that go out of it. */
static void sample(hdg_png_frames *F, const hdg_dg_data *d, const double *U)
{
    int ne = d->ne_own, nf = d->L.nfields, Np = d->L.Np;   /* own elements (a piece's under mpirun) */
    double lo = INFINITY, hi = -INFINITY;
    for (int e = 0; e < ne; e++)
        for (int q = 0; q < F->ns; q++) {
            const double *u = U + ((size_t)d->pos[e] * nf + F->field) * Np;
            double s = 0;
            for (int j = 0; j < Np; j++) s += F->I[q * Np + j] * u[j];
            F->vals[(size_t)e * F->ns + q] = s;
            lo = fmin(lo, s), hi = fmax(hi, s);
        }
    double ext[2] = {hi, -lo};
    hdg_comm_max(ext, 2);   /* the range over every rank */
    hi = ext[0], lo = -ext[1];
    double M = fmax(fabs(lo), fabs(hi));
    if (F->series && F->vmin >= F->vmax && M > 0) F->vmin = -1.1 * M, F->vmax = 1.1 * M;
    if (F->series && F->vmin < F->vmax && (lo < F->vmin || hi > F->vmax)) F->nclamped++;
}

static hdg_status draw(hdg_png_frames *F, const hdg_dg_data *d, const hdg_run_options *o, double t,
                       hdg_report *rep, hdg_error *err)
{
    char name[64], caption[512], path[4096];
    dg_name(d, F->field, name, sizeof name);
    hdg_png_caption(caption, sizeof caption, d->p->name, name, "N", d->L.N, hdg_png_mesh_name(d->mesh), d->ne_global,
                    t);
    if (F->series) snprintf(path, sizeof path, o->png, F->nframes);
    else snprintf(path, sizeof path, "%s", o->png);
    hdg_png_plot pl = {.width = o->png_width ? o->png_width : 800, .height = o->png_height ? o->png_height : 800,
                       .ne = d->ne_own, .vxy = F->vxy, .m = F->m, .vals = F->vals, .vmin = F->vmin,
                       .vmax = F->vmax, .field = name, .caption = caption, .edges = o->png_edges};
    double *vals = NULL, *vxy = NULL;
    if (d->dist) {   /* mpirun: rank 0 draws every rank's elements */
        vals = hdg_png_gather(d->dist, F->ns, F->vals);
        vxy = hdg_png_gather(d->dist, 6, F->vxy);
        pl.ne = (int)d->ne_global, pl.vals = vals, pl.vxy = vxy;
    }
    hdg_png_layout lay;
    hdg_status st = d->dist && d->dist->rank ? HDG_OK : hdg_png_write(path, &pl, &lay, err);
    free(vals), free(vxy);
    if (d->dist && (st = hdg_comm_agree(st, err))) return st;
    if (st) return st;
    if (d->dist && d->dist->rank) {   /* the report is rank 0's */
        F->nframes++;
        return HDG_OK;
    }
    F->nframes++;
    hdg_png_report(rep, &lay, F->m);
    hdg_report_string(rep, "output.png_caption", caption);
    hdg_report_int(rep, "output.png_frames", F->nframes);
    if (F->series) hdg_report_int(rep, "output.png_frames_clamped", F->nclamped);
    return HDG_OK;
}

/* ---- tetrahedra ------------------------------------------------------------------ */

/* The series' range from the samples (as sample() does in 2D), then the picture. */
static hdg_status draw_flat(hdg_png_frames *F, const hdg_dg_data *d, const hdg_run_options *o, const hdg_png_flat *fl,
                            double t, hdg_report *rep, hdg_error *err)
{
    double lohi[2];
    hdg_png_flat_range(fl, lohi);
    double M = fmax(fabs(lohi[0]), fabs(lohi[1]));
    if (F->series && F->vmin >= F->vmax && M > 0) F->vmin = -1.1 * M, F->vmax = 1.1 * M;
    if (F->series && F->vmin < F->vmax && (lohi[0] < F->vmin || lohi[1] > F->vmax)) F->nclamped++;
    char name[64], caption[512], path[4096];
    dg_name(d, F->field, name, sizeof name);
    hdg_png_caption(caption, sizeof caption, d->p->name, name, "N", d->L.N, hdg_png_mesh_name(d->mesh), d->ne_global,
                    t);
    if (F->series) snprintf(path, sizeof path, o->png, F->nframes);
    else snprintf(path, sizeof path, "%s", o->png);
    hdg_status st = hdg_png_draw_flat(fl, o, path, name, caption, F->vmin, F->vmax, rep, err);
    if (st) return st;
    hdg_report_int(rep, "output.png_frames", F->nframes + 1);
    if (F->series) hdg_report_int(rep, "output.png_frames_clamped", F->nclamped);
    return HDG_OK;
}

/* Every rank's own elements (vertices, the field's nodal values) on rank 0,
 * which samples and draws them. */
static hdg_status draw_tets(hdg_png_frames *F, const hdg_dg_data *d, const hdg_run_options *o, const double *U,
                            double t, hdg_report *rep, hdg_error *err)
{
    int ne = d->ne_own, Np = d->L.Np, nf = d->L.nfields, rec = 12 + Np;
    double *mine = hdg_xmalloc(sizeof(double) * ((size_t)ne * rec + 1)), *all = mine;
    for (int e = 0; e < ne; e++) {
        memcpy(mine + (size_t)e * rec, F->vxy + 12 * (size_t)e, 12 * sizeof(double));
        memcpy(mine + (size_t)e * rec + 12, U + ((size_t)d->pos[e] * nf + F->field) * Np, sizeof(double) * (size_t)Np);
    }
    long long N = ne;
    if (d->dist) all = hdg_png_gather(d->dist, rec, mine), N = d->ne_global;
    hdg_status st = HDG_OK;
    if (all) {
        double *vxyz = hdg_xmalloc(sizeof(double) * 12 * ((size_t)N + 1));
        for (long long e = 0; e < N; e++) memcpy(vxyz + 12 * (size_t)e, all + (size_t)e * rec, 12 * sizeof(double));
        hdg_png_nodal c = {&d->re, all + 12, rec, NULL, 0};
        hdg_png_tets T = {.ne = (int)N, .vxyz = vxyz, .sample = hdg_png_sample_nodal, .ctx = &c};
        hdg_png_flat fl;
        st = hdg_png_flatten(&T, d->L.N, o, &fl, err);
        if (!st) st = draw_flat(F, d, o, &fl, t, rep, err);
        hdg_png_flat_free(&fl);
        free(vxyz), free(c.I);
    }
    if (all != mine) free(all);
    free(mine);
    if (d->dist) st = hdg_comm_agree(st, err);
    if (!st) F->nframes++;
    return st;
}

hdg_status hdg_png_dg_step(hdg_png_frames *F, const hdg_dg_data *d, const hdg_dg_engine *eng,
                           const hdg_run_options *o, long long done, long long nsteps, double t,
                           hdg_report *rep, hdg_error *err)
{
    int due = done == nsteps || (F->series && (done == 0 || (o->every > 0 && done % o->every == 0)));
    if (!due) return HDG_OK;
    const double *U = NULL;
    hdg_status st = eng->state(eng->ctx, &U, err);
    if (st) return st;
    if (F->tets) return draw_tets(F, d, o, U, t, rep, err);
    sample(F, d, U);
    return draw(F, d, o, t, rep, err);
}

void hdg_png_dg_close(hdg_png_frames *F)
{
    free(F->I), free(F->vals), free(F->vxy);
    memset(F, 0, sizeof *F);
}
