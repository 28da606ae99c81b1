/* run_png.c — `hdgc run --png`: sampling a field for runtime/output/png.c (run_png.h). */
#include "drivers/run_png.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/output/png.h"
#include "runtime/output/png3d.h"
#include "runtime/fem/refel.h"
#include "runtime/parallel/comm.h"
#include "runtime/parallel/mesh_dist.h"
#include "support/util.h"

/* Field f's name into buf: "u", "q_x", ... */
static void field_name(const hdg_unknown *x, int c, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s", x->name, hdg_comp_field_suffix(x->ncomp, c));
}

static int has_field(const hdg_lowered *L, int u)
{
    return L->uoff[u] >= 0 || hdg_lowered_post_index(L, u) >= 0;
}

hdg_status hdg_png_hdg_field(const hdg_problem *p, const hdg_lowered *L, const char *name, int *u, int *c,
                             hdg_error *err)
{
    char list[512] = "", buf[80];
    for (int i = 0; i < p->nunknowns; i++) {
        if (!has_field(L, i)) continue;
        for (int k = 0; k < p->unknowns[i].ncomp; k++) {
            field_name(&p->unknowns[i], k, buf, sizeof buf);
            int hit = name ? !strcmp(name, buf) : p->unknowns[i].ncomp == 1 && L->uoff[i] >= 0;
            if (hit) {
                *u = i, *c = k;
                return HDG_OK;
            }
            if (strlen(list) + strlen(buf) + 3 < sizeof list) strcat(strcat(list, *list ? ", " : ""), buf);
        }
    }
    if (!name) return hdg_fail(err, HDG_EINPUT, "--png: no scalar element field to draw (fields: %s)", list);
    return hdg_fail(err, HDG_EINPUT, "--field %s: no such field (fields: %s)", name, list);
}

hdg_status hdg_png_check_slice(const hdg_run_options *o, int dim, hdg_error *err)
{
    if (!o->png_slice || dim == 3) return HDG_OK;
    return hdg_fail(err, HDG_EINPUT, "--slice %c=%g: a plane section is drawn of a tetrahedral (3D) mesh; this mesh "
                    "is 2D (drop --slice)", "xyz"[o->png_slice - 1], o->png_slice_at);
}

/* Sub-triangles per element edge: 2(deg+1), but at least ~4 pixels across
 * (elements a row: sqrt(ne/2) on square:N, cbrt(ne/6) on cube:N). */
int hdg_png_subdivision(const hdg_mesh *mesh, int deg, int width, int height)
{
    double per_row = hdg_mesh_dim(mesh) == 3 ? cbrt(mesh->ne / 6.0) : sqrt(mesh->ne / 2.0);
    double px = 0.8 * (width < height ? width : height) / per_row;
    int m = 2 * (deg + 1), lim = (int)(px / 4);
    return m < lim ? m : lim < 1 ? 1 : lim;
}

static double *samples(const hdg_mesh *mesh, const hdg_png_field *f, int m)
{
    int ns = m * m;
    double *r = hdg_xmalloc(sizeof(double) * 2 * ns), *P = hdg_xmalloc(sizeof(double) * (size_t)ns * f->n);
    hdg_png_centroids(m, r, r + ns);
    hdg_dubiner_eval(f->deg, ns, r, r + ns, P, NULL, NULL);
    double *v = hdg_xmalloc(sizeof(double) * (size_t)mesh->ne * ns);
    for (long long e = 0; e < mesh->ne; e++)
        for (int q = 0; q < ns; q++) {
            double s = 0;
            for (int i = 0; i < f->n; i++) s += P[q * f->n + i] * f->x[e * f->stride + f->base + i];
            v[e * ns + q] = s;
        }
    free(r), free(P);
    return v;
}

void hdg_png_vertices(const hdg_mesh *mesh, double *vxy)
{
    int d = hdg_mesh_dim(mesh), nv = d + 1;
    for (long long e = 0; e < mesh->ne; e++)
        for (int v = 0; v < nv; v++) {
            int i = mesh->ev[nv * e + v];
            double *o = vxy + (size_t)nv * d * e + (size_t)d * v;
            o[0] = mesh->vx[i], o[1] = mesh->vy[i];
            if (d == 3) o[2] = mesh->vz[i];
        }
}

const char *hdg_png_mesh_name(const hdg_mesh *mesh)
{
    const char *s = mesh->source ? mesh->source : "mesh", *b = strrchr(s, '/');
    return b && strncmp(s, "square:", 7) ? b + 1 : s;
}

void hdg_png_caption(char *buf, size_t n, const char *problem, const char *field, const char *deg_name, int deg,
                     const char *mesh, long long ne, double t)
{
    int k = snprintf(buf, n, "%s   %s   %s = %d   %s   (%lld elements)", problem, field, deg_name, deg, mesh, ne);
    if (isfinite(t) && k >= 0 && (size_t)k < n) snprintf(buf + k, n - (size_t)k, "   t = %.4g", t);
}

void hdg_png_report(hdg_report *rep, const hdg_png_layout *lay, int m)
{
    hdg_report_number(rep, "output.png_min", lay->vmin);
    hdg_report_number(rep, "output.png_max", lay->vmax);
    hdg_report_int(rep, "output.png_subdivision", m);
    hdg_report_number(rep, "output.png_scale", lay->scale);
    hdg_report_number(rep, "output.png_origin_x", lay->ox);
    hdg_report_number(rep, "output.png_origin_y", lay->oy);
    hdg_report_int(rep, "output.png_xticks", lay->nxt);
    hdg_report_int(rep, "output.png_yticks", lay->nyt);
    hdg_report_int(rep, "output.png_cticks", lay->nct);
}

/* ---- tetrahedra: a section or the boundary surface (png3d.h) -------------------- */

static void view_text(const hdg_run_options *o, char *buf, size_t n)
{
    if (o->png_slice) snprintf(buf, n, "slice %c = %g", "xyz"[o->png_slice - 1], o->png_slice_at);
    else snprintf(buf, n, "surface, azimuth %g, elevation %g", HDG_PNG_AZIMUTH, HDG_PNG_ELEVATION);
}

hdg_status hdg_png_flatten(const hdg_png_tets *T, int deg, const hdg_run_options *o, hdg_png_flat *F, hdg_error *err)
{
    int w = o->png_width ? o->png_width : 800, h = o->png_height ? o->png_height : 800;
    hdg_mesh count = {.dim = 3, .ne = T->ne};
    int m = hdg_png_subdivision(&count, deg, w, h);
    return o->png_slice ? hdg_png_slice(T, o->png_slice - 1, o->png_slice_at, m, F, err)
                        : hdg_png_surface(T, HDG_PNG_AZIMUTH, HDG_PNG_ELEVATION, m, F, err);
}

void hdg_png_flat_range(const hdg_png_flat *F, double lohi[2])
{
    lohi[0] = INFINITY, lohi[1] = -INFINITY;
    for (long long k = 0; k < (long long)F->ne * F->m * F->m; k++)
        lohi[0] = fmin(lohi[0], F->vals[k]), lohi[1] = fmax(lohi[1], F->vals[k]);
}

hdg_status hdg_png_draw_flat(const hdg_png_flat *F, const hdg_run_options *o, const char *path, const char *field,
                             const char *caption, double vmin, double vmax, hdg_report *rep, hdg_error *err)
{
    char view[96], cap[640];
    view_text(o, view, sizeof view);
    snprintf(cap, sizeof cap, "%s   %s", caption ? caption : "", view);
    hdg_png_plot pl = {.width = o->png_width ? o->png_width : 800, .height = o->png_height ? o->png_height : 800,
                       .ne = F->ne, .vxy = F->vxy, .m = F->m, .vals = F->vals, .vmin = vmin, .vmax = vmax,
                       .field = field, .caption = cap, .edges = o->png_edges, .noaxes = !o->png_slice};
    hdg_png_layout lay;
    hdg_status st = hdg_png_write(path, &pl, &lay, err);
    if (!st && rep) {
        hdg_png_report(rep, &lay, F->m);
        hdg_report_string(rep, "output.png_caption", cap);
        hdg_report_string(rep, "output.png_view", view);
        hdg_report_int(rep, "output.png_triangles", F->ne);
    }
    return st;
}

/* A modal field (hdg_png_field) sampled for png3d.h: the orthonormal basis of
 * the tetrahedron (hdg_simplex_eval) at the points asked for. */
typedef struct modal_sampler {
    const hdg_png_field *f;
    double *P;
    int cap;
} modal_sampler;

static void sample_modal(void *ctx, int e, int n, const double *const *x, double *vals)
{
    modal_sampler *c = ctx;
    const hdg_png_field *f = c->f;
    if (n > c->cap) {
        c->cap = n;
        c->P = hdg_xrealloc(c->P, sizeof(double) * (size_t)n * f->n);
    }
    hdg_simplex_eval(3, f->deg, n, x, c->P, NULL);
    const double *u = f->x + (size_t)e * f->stride + f->base;
    for (int q = 0; q < n; q++) {
        double s = 0;
        for (int i = 0; i < f->n; i++) s += c->P[(size_t)q * f->n + i] * u[i];
        vals[q] = s;
    }
}

void hdg_png_sample_nodal(void *ctx, int e, int n, const double *const *x, double *out)
{
    hdg_png_nodal *c = ctx;
    int Np = c->re->Np;
    if (n > c->cap) {
        c->cap = n;
        c->I = hdg_xrealloc(c->I, sizeof(double) * (size_t)n * Np);
    }
    hdg_refel_interp_x(c->re, n, x, c->I);
    const double *u = c->vals + (size_t)e * c->stride;
    for (int q = 0; q < n; q++) {
        double s = 0;
        for (int j = 0; j < Np; j++) s += c->I[(size_t)q * Np + j] * u[j];
        out[q] = s;
    }
}

/* A frame series' range (run_png.h) from the samples' lo, hi: fixed at the first frame
 * not all zero, [-1.1 M, 1.1 M] with M the largest |value|; *vmin, *vmax the range to draw
 * in (1, 0 when none: the samples'). */
static void frame_range(hdg_png_range *R, double lo, double hi, double *vmin, double *vmax)
{
    *vmin = 1, *vmax = 0;
    if (!R) return;
    double M = fmax(fabs(lo), fabs(hi));
    if (!R->fixed && M > 0) R->lo = -1.1 * M, R->hi = 1.1 * M, R->fixed = 1;
    R->clamped = R->fixed && (lo < R->lo || hi > R->hi);
    if (R->fixed) *vmin = R->lo, *vmax = R->hi;
}

static hdg_status draw_tets(const hdg_mesh *mesh, const hdg_png_field *f, const hdg_run_options *o, const char *path,
                            const char *caption, hdg_png_range *R, hdg_report *rep, hdg_error *err)
{
    double *vxyz = hdg_xmalloc(sizeof(double) * 12 * ((size_t)mesh->ne + 1));
    hdg_png_vertices(mesh, vxyz);
    modal_sampler c = {f, NULL, 0};
    hdg_png_tets T = {.ne = mesh->ne, .vxyz = vxyz, .sample = sample_modal, .ctx = &c};
    hdg_png_flat F;
    hdg_status st = hdg_png_flatten(&T, f->deg, o, &F, err);
    double lohi[2] = {0, 0}, vmin, vmax;
    if (!st) hdg_png_flat_range(&F, lohi);
    frame_range(R, lohi[0], lohi[1], &vmin, &vmax);
    if (!st) st = hdg_png_draw_flat(&F, o, path, f->name, caption, vmin, vmax, rep, err);
    hdg_png_flat_free(&F);
    free(vxyz), free(c.P);
    return st;
}

hdg_status hdg_png_draw(const hdg_mesh *mesh, const hdg_png_field *f, const hdg_run_options *o, const char *caption,
                        hdg_report *rep, hdg_error *err)
{
    return hdg_png_draw_to(mesh, f, o, o->png, caption, NULL, rep, err);
}

hdg_status hdg_png_draw_to(const hdg_mesh *mesh, const hdg_png_field *f, const hdg_run_options *o, const char *path,
                           const char *caption, hdg_png_range *R, hdg_report *rep, hdg_error *err)
{
    if (hdg_mesh_dim(mesh) == 3) return draw_tets(mesh, f, o, path, caption, R, rep, err);
    int width = o->png_width ? o->png_width : 800, height = o->png_height ? o->png_height : 800, edges = o->png_edges;
    int m = hdg_png_subdivision(mesh, f->deg, width, height);
    double *vals = samples(mesh, f, m), *vxy = hdg_xmalloc(sizeof(double) * 6 * (size_t)mesh->ne);
    hdg_png_vertices(mesh, vxy);
    double lo = INFINITY, hi = -INFINITY, vmin, vmax;
    for (size_t i = 0; i < (size_t)mesh->ne * (size_t)(m * m); i++) lo = fmin(lo, vals[i]), hi = fmax(hi, vals[i]);
    frame_range(R, lo, hi, &vmin, &vmax);
    hdg_png_plot pl = {.width = width, .height = height, .ne = mesh->ne, .vxy = vxy, .m = m, .vals = vals,
                       .vmin = vmin, .vmax = vmax, .field = f->name, .caption = caption, .edges = edges};
    hdg_png_layout lay;
    hdg_status st = hdg_png_write(path, &pl, &lay, err);
    if (!st && rep) hdg_png_report(rep, &lay, m);
    if (!st && rep && caption) hdg_report_string(rep, "output.png_caption", caption);
    free(vals), free(vxy);
    return st;
}

#define TAG_PNG 520   /* comm.h: tags < 1000 are hdgc's */

double *hdg_png_gather(const hdg_mesh_dist *d, int k, const double *rec)
{
    int ne = d->ne_owned;
    if (d->rank > 0) {
        long long n = ne;
        hdg_comm_send(&n, sizeof n, 0, TAG_PNG);
        hdg_comm_send(d->egid, sizeof(long long) * (size_t)ne, 0, TAG_PNG);
        hdg_comm_send(rec, sizeof(double) * (size_t)ne * k, 0, TAG_PNG);
        return NULL;
    }
    double *out = hdg_xmalloc(sizeof(double) * ((size_t)d->ne_global * k + 1));
    for (int r = 0; r < d->size; r++) {
        long long n = ne, *gid = d->egid;
        const double *buf = rec;
        double *got = NULL;
        if (r > 0) {
            hdg_comm_recv(&n, sizeof n, r, TAG_PNG);
            gid = hdg_xmalloc(sizeof(long long) * ((size_t)n + 1));
            got = hdg_xmalloc(sizeof(double) * ((size_t)n * k + 1));
            hdg_comm_recv(gid, sizeof(long long) * (size_t)n, r, TAG_PNG);
            hdg_comm_recv(got, sizeof(double) * (size_t)n * k, r, TAG_PNG);
            buf = got;
        }
        for (long long i = 0; i < n; i++) memcpy(out + (size_t)gid[i] * k, buf + (size_t)i * k, sizeof(double) * (size_t)k);
        if (r > 0) free(gid), free(got);
    }
    return out;
}

/* Under mpirun: every rank's own elements (vertices, f's coefficients) on rank
 * 0 in the whole mesh's order, as a mesh of separate triangles (tetrahedra)
 * and a field over it (*whole, *coef; nothing on the other ranks). */
static void gather_field(const hdg_mesh *mesh, const hdg_mesh_dist *d, const hdg_png_field *f, hdg_mesh *whole,
                         double **coef)
{
    int dim = hdg_mesh_dim(mesh), nv = dim + 1, nvx = nv * dim, rec = nvx + f->n, ne = d->ne_owned;
    double *mine = hdg_xmalloc(sizeof(double) * ((size_t)ne * rec + 1));
    hdg_png_vertices(mesh, mine);   /* nvx a row first, then spread to rec a row */
    for (int e = ne - 1; e >= 0; e--) {
        double *r = mine + (size_t)e * rec;
        memmove(r, mine + (size_t)nvx * e, (size_t)nvx * sizeof(double));
        for (int i = 0; i < f->n; i++) r[nvx + i] = f->x[(size_t)e * f->stride + f->base + i];
    }
    double *all = hdg_png_gather(d, rec, mine);
    free(mine);
    memset(whole, 0, sizeof *whole);
    *coef = NULL;
    if (!all) return;
    long long N = d->ne_global;
    size_t nall = (size_t)nv * ((size_t)N + 1);
    whole->dim = dim, whole->ne = (int)N, whole->nv = nv * (int)N;
    whole->vx = hdg_xmalloc(sizeof(double) * nall), whole->vy = hdg_xmalloc(sizeof(double) * nall);
    if (dim == 3) whole->vz = hdg_xmalloc(sizeof(double) * nall);
    whole->ev = hdg_xmalloc(sizeof(int) * nall);
    whole->source = hdg_xstrdup(mesh->source ? mesh->source : "mesh");
    *coef = hdg_xmalloc(sizeof(double) * ((size_t)N * f->n + 1));
    for (long long g = 0; g < N; g++) {
        const double *q = all + (size_t)g * rec;
        for (int v = 0; v < nv; v++) {
            size_t at = (size_t)nv * g + v;
            whole->vx[at] = q[dim * v], whole->vy[at] = q[dim * v + 1], whole->ev[at] = (int)at;
            if (dim == 3) whole->vz[at] = q[dim * v + 2];
        }
        memcpy(*coef + (size_t)g * f->n, q + nvx, sizeof(double) * (size_t)f->n);
    }
    free(all);
}

hdg_status hdg_png_hdg(const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *mesh, const double *xe,
                       const double *xp, double t, const hdg_run_options *o, hdg_report *rep, hdg_error *err)
{
    return hdg_png_hdg_to(p, L, mesh, xe, xp, t, o, o->png, NULL, rep, err);
}

hdg_status hdg_png_hdg_to(const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *mesh, const double *xe,
                          const double *xp, double t, const hdg_run_options *o, const char *path, hdg_png_range *R,
                          hdg_report *rep, hdg_error *err)
{
    int u, c;
    hdg_status st = hdg_png_check_slice(o, hdg_mesh_dim(mesh), err);
    if (!st) st = hdg_png_hdg_field(p, L, o->png_field, &u, &c, err);
    if (st) return st;
    char name[80], caption[512];
    field_name(&p->unknowns[u], c, name, sizeof name);
    hdg_png_field f = {.deg = L->k, .n = L->np, .stride = L->nl, .base = L->uoff[u] + c * L->np, .x = xe,
                       .name = name};
    if (L->uoff[u] < 0) {   /* a post-processed unknown */
        if (!xp) return hdg_fail(err, HDG_EINPUT, "--field %s: not computed in this run", name);
        int i = hdg_lowered_post_index(L, u);
        f = (hdg_png_field){.deg = L->pdeg[i], .n = L->pnp[i], .stride = L->npost_dofs,
                            .base = L->poff[i] + c * L->pnp[i], .x = xp, .name = name};
    }
    hdg_mesh whole;
    double *coef = NULL;
    if (o->dist) {   /* mpirun: rank 0 draws every rank's elements */
        gather_field(mesh, o->dist, &f, &whole, &coef);
        mesh = &whole;
        f.x = coef, f.stride = f.n, f.base = 0;
    }
    hdg_png_caption(caption, sizeof caption, p->name, name, "k", L->k, hdg_png_mesh_name(mesh), mesh->ne, t);
    if (!o->dist || o->dist->rank == 0) st = hdg_png_draw_to(mesh, &f, o, path, caption, R, rep, err);
    if (o->dist) {
        hdg_mesh_free(&whole);
        free(coef);
        st = hdg_comm_agree(st, err);
    }
    return st;
}
