/* run_dg_common.c — the parts of the explicit DG drivers that do not depend
 * on where the kernels run (see run_dg_common.h): mesh data, time step, the
 * LSERK4 loop with its energy watch, VTK output and the report. */
#include "drivers/run_dg_common.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/mesh_data.h"
#include "drivers/run_png.h"
#include "runtime/parallel/comm.h"
#include "runtime/solve/lserk4.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/output/vtk.h"
#include "runtime/output/vtk_dist.h"
#include "support/progress.h"
#include "support/util.h"

const hdg_run_options *hdg_dg_options(const hdg_run_options *opt, hdg_run_options *defaults)
{
    if (opt) return opt;
    memset(defaults, 0, sizeof *defaults);
    defaults->use_cache = 1;
    return defaults;
}

/* ------------------------------------------------------------------ setup */

hdg_status hdg_dg_lower_problem(hdg_dg_data *d, const hdg_problem *p, hdg_mesh *mesh, hdg_error *err)
{
    memset(d, 0, sizeof *d);
    d->p = p;
    d->mesh = mesh;
    double t0 = hdg_wtime();
    hdg_status st = hdg_lower_dg(p, &d->L, err);
    d->t_lower = hdg_wtime() - t0;
    return st;
}

/* The cfl a step dt amounts to (0 when the speed is unknown). */
static double cfl_of(const hdg_dg_data *d, double dt)
{
    double unit = d->speed.known ? d->speed.unit : 0;
    return unit > 0 && unit < INFINITY ? dt / unit : 0;
}

/* More than HDG_DG_MAX_STEPS steps (or an overflow): say which setting made dt. */
static hdg_status too_many_steps(const hdg_dg_data *d, const hdg_run_options *opt, double dtmax, int fixed,
                                 hdg_error *err)
{
    char from[96];
    if (fixed && opt->dt > 0) snprintf(from, sizeof from, "--dt %g", opt->dt);
    else if (fixed) snprintf(from, sizeof from, "the file's 'dt = %g'", d->p->time.dt);
    else snprintf(from, sizeof from, "cfl %g%s", d->cfl, opt->cfl > 0 ? " (--cfl)" : "");
    return hdg_fail(err, HDG_EINPUT, "DG problem '%s': the time step dt = %.3g (from %s) needs %.3g steps to reach "
                                     "t = %g%s, more than the limit of %.0e steps; raise the step or lower the "
                                     "final time", d->p->name, dtmax, from, d->final / dtmax, d->final,
                    opt->final_time > 0 ? " (--final-time)" : "", HDG_DG_MAX_STEPS);
}

/* Under mpirun: the speed of the whole mesh, the same on every rank (so is
 * the step); a rank that could not derive it says why for all. Then settled
 * (dg_speed.h): a piece with no elements, or none that move, takes its step
 * from the others. */
void hdg_dg_speed_reduce(hdg_dg_speed *sp)
{
    if (!hdg_comm_active()) { hdg_dg_speed_settle(sp); return; }
    hdg_error e;
    memset(&e, 0, sizeof e);
    hdg_status st = sp->known ? HDG_OK : hdg_fail(&e, HDG_EINPUT, "%s", sp->why);
    if (hdg_comm_agree(st, &e)) {   /* the message goes into the caller's, which names the rank */
        const char *m = e.msg, *c = strstr(m, ": ");
        if (!strncmp(m, "rank ", 5) && c) m = c + 2;
        sp->known = 0;
        snprintf(sp->why, sizeof sp->why, "%.319s", m);
    }
    double m[4] = {-sp->max, sp->rmin, -sp->react, sp->unit};
    hdg_comm_min(m, 4);
    sp->max = -m[0], sp->rmin = m[1], sp->react = -m[2], sp->unit = m[3];
    hdg_dg_speed_settle(sp);
}

/* Nonlinear: the step comes from the state (run_dg_nonlinear.h) once there
 * is one, unless fixed; the energy is watched loosely (or against the exact
 * solution). */
static hdg_status nonlinear_time_step(hdg_dg_data *d, const hdg_run_options *opt, hdg_error *err)
{
    const hdg_problem *p = d->p;
    d->nl.on = 1;
    d->nl_fixed = opt->dt > 0 || (p->time.dt > 0 && !(opt->cfl > 0));
    double dt = opt->dt > 0 ? opt->dt : p->time.dt;
    if (!(d->final > 0) || (d->nl_fixed && !(dt > 0)))
        return hdg_fail(err, HDG_EINPUT, "DG problem '%s': the final time (%g) and the time step must be positive "
                                         "(time lserk4, final = T, cfl = C)", p->name, d->final);
    if (d->nl_fixed && !(d->final / dt <= HDG_DG_MAX_STEPS)) return too_many_steps(d, opt, dt, 1, err);
    d->nsteps = d->nl_fixed ? hdg_dg_nsteps(d->final, dt) : 1;
    d->dt = d->final / (double)d->nsteps;
    d->energy_bounded = 0;
    snprintf(d->energy_why, sizeof d->energy_why, "nonlinear terms: the energy 1/2 int U^2 is no invariant of the form");
    return HDG_OK;
}

/* final time, cfl and dt: the options override the file; a fixed dt in the
 * file counts unless a cfl is given on the command line. The cfl step is
 * scaled by the characteristic speed (dg_speed.h). */
static hdg_status time_step(hdg_dg_data *d, const hdg_run_options *opt, hdg_error *err)
{
    const hdg_problem *p = d->p;
    d->final = opt->final_time > 0 ? opt->final_time : p->time.final;
    d->cfl = opt->cfl > 0 ? opt->cfl : (p->time.cfl > 0 ? p->time.cfl : 1.0);
    if (p->nonlinear) return nonlinear_time_step(d, opt, err);
    hdg_dg_char_speed_piece(p, &d->L, d->mesh, &d->re, &d->g, d->final, &d->speed);
    hdg_dg_speed_reduce(&d->speed);
    int fixed = opt->dt > 0 || (p->time.dt > 0 && !(opt->cfl > 0));
    if (!fixed && !d->speed.known)
        return hdg_fail(err, HDG_EINPUT, "DG problem '%s': cannot derive the characteristic speed that scales the "
                                         "time step from the cfl: %s; give a fixed step in the time settings "
                                         "(time lserk4, final = T, dt = D)", p->name, d->speed.why);
    double dtmax = !fixed ? d->cfl * d->speed.unit : opt->dt > 0 ? opt->dt : p->time.dt;
    if (!(d->final > 0) || !(dtmax > 0))
        return hdg_fail(err, HDG_EINPUT, "DG problem '%s': the final time (%g) and the time step (%g) must be "
                                         "positive (time lserk4, final = T, cfl = C)", p->name, d->final, dtmax);
    if (!(d->final / dtmax <= HDG_DG_MAX_STEPS)) return too_many_steps(d, opt, dtmax, fixed, err);
    d->nsteps = hdg_dg_nsteps(d->final, dtmax);
    d->dt = d->final / (double)d->nsteps;
    d->cfl_eff = cfl_of(d, d->dt);
    d->energy_bounded = hdg_dg_energy_bounded(p, &d->L, d->energy_why, sizeof d->energy_why);
    return HDG_OK;
}

/* Under mpirun, the class of each element of the piece (the row groups of
 * hdg_dg_data): 0 own with own neighbours only, 1 own next to a ghost, 2 ghost.
 * NULL when serial. */
static int *element_classes(const hdg_dg_data *d)
{
    if (!d->dist) return NULL;
    const hdg_mesh *m = d->mesh;
    int own = d->dist->ne_owned, nfe = hdg_mesh_nfe(m);
    int *cls = hdg_xcalloc((size_t)m->ne, sizeof(int));
    for (int e = 0; e < m->ne; e++) {
        if (e >= own) { cls[e] = 2; continue; }
        for (int j = 0; j < nfe; j++) {
            int f = m->ef[nfe * e + j], o = m->fe[2 * f] == e ? m->fe[2 * f + 1] : m->fe[2 * f];
            if (o >= own) cls[e] = 1;
        }
    }
    return cls;
}

/* The exchange lists of d->dist in kernel rows, and their buffers. */
static void halo_init(hdg_dg_data *d)
{
    const hdg_mesh_dist *D = d->dist;
    hdg_dg_halo *h = &d->halo;
    memset(h, 0, sizeof *h);
    if (!D || !D->nnbr) return;
    int n = h->nnbr = D->nnbr, ns = D->send_off[n], nr = D->recv_off[n];
    size_t per = (size_t)d->L.nfields * d->L.Np;
    h->nbr = D->nbr;
    h->send_off = hdg_xmalloc(sizeof(int) * (size_t)(n + 1));
    h->recv_off = hdg_xmalloc(sizeof(int) * (size_t)(n + 1));
    memcpy(h->send_off, D->send_off, sizeof(int) * (size_t)(n + 1));
    memcpy(h->recv_off, D->recv_off, sizeof(int) * (size_t)(n + 1));
    h->send_row = hdg_xmalloc(sizeof(int) * (size_t)(ns + 1));
    h->recv_row = hdg_xmalloc(sizeof(int) * (size_t)(nr + 1));
    for (int k = 0; k < ns; k++) h->send_row[k] = d->pos[D->send_elem[k]];
    for (int k = 0; k < nr; k++) h->recv_row[k] = d->pos[D->ne_owned + k];
    h->sbuf = hdg_xmalloc(sizeof(double) * per * (size_t)(ns + 1));
    h->rbuf = hdg_xmalloc(sizeof(double) * per * (size_t)(nr + 1));
    h->sp = hdg_xmalloc(sizeof(void *) * (size_t)n), h->rp = hdg_xmalloc(sizeof(void *) * (size_t)n);
    h->sbytes = hdg_xmalloc(sizeof(size_t) * (size_t)n), h->rbytes = hdg_xmalloc(sizeof(size_t) * (size_t)n);
    for (int i = 0; i < n; i++) {
        h->sp[i] = h->sbuf + per * (size_t)h->send_off[i];
        h->rp[i] = h->rbuf + per * (size_t)h->recv_off[i];
        h->sbytes[i] = sizeof(double) * per * (size_t)(h->send_off[i + 1] - h->send_off[i]);
        h->rbytes[i] = sizeof(double) * per * (size_t)(h->recv_off[i + 1] - h->recv_off[i]);
    }
}

static void halo_free(hdg_dg_halo *h)
{
    free(h->send_off), free(h->recv_off), free(h->send_row), free(h->recv_row);
    free(h->sbuf), free(h->rbuf), free(h->sp), free(h->rp), free(h->sbytes), free(h->rbytes);
    memset(h, 0, sizeof *h);
}

#define HALO_TAG 310   /* the DG state exchange (comm.h: tags < 1000 are hdgc's) */

void hdg_dg_halo_begin(hdg_dg_data *d, const double *U)
{
    hdg_dg_halo *h = &d->halo;
    if (!h->nnbr) return;
    size_t per = (size_t)d->L.nfields * d->L.Np;
    for (int k = 0; k < h->send_off[h->nnbr]; k++)
        memcpy(h->sbuf + per * (size_t)k, U + per * (size_t)h->send_row[k], sizeof(double) * per);
    h->req = hdg_comm_exchange_begin(h->nnbr, h->nbr, h->sp, h->sbytes, h->rp, h->rbytes, HALO_TAG);
}

void hdg_dg_halo_end(hdg_dg_data *d, double *U)
{
    hdg_dg_halo *h = &d->halo;
    if (!h->nnbr) return;
    hdg_comm_exchange_end(h->req);
    h->req = NULL;
    size_t per = (size_t)d->L.nfields * d->L.Np;
    for (int k = 0; k < h->recv_off[h->nnbr]; k++)
        memcpy(U + per * (size_t)h->recv_row[k], h->rbuf + per * (size_t)k, sizeof(double) * per);
}

/* Geometry, face maps and the element order; fails only where the mesh has a
 * face without the condition its flux needs (on this rank's piece). */
static hdg_status element_data(hdg_dg_data *d, const hdg_run_options *opt, hdg_error *err)
{
    const hdg_problem *p = d->p;
    hdg_status st;
    if ((st = hdg_refel_init(&d->re, d->L.dim, d->L.N, err))) return st;
    if ((st = hdg_geom_init(&d->g, d->mesh, err))) return st;
    int ne = d->mesh->ne;
    d->dist = opt->dist;
    d->ne_own = d->dist ? d->dist->ne_owned : ne;
    d->ne_global = d->dist ? d->dist->ne_global : ne;
    d->n = (long long)ne * d->L.nfields * d->L.Np;
    d->n_global = d->ne_global * d->L.nfields * d->L.Np;
    d->nerrout = 2 * d->L.nerr + d->L.nfields;
    d->geom = hdg_xmalloc(sizeof(double) * (size_t)ne * d->L.ngeom);
    d->fmap = hdg_xmalloc(sizeof(int) * (size_t)ne * d->L.nimap);
    if ((st = hdg_dg_fill_maps(&d->L, p, d->mesh, &d->g, d->geom, d->fmap, err))) return st;
    d->pos = hdg_xmalloc(sizeof(int) * (size_t)ne);
    int *cls = element_classes(d);
    hdg_dg_order_elements_classed(&d->L, d->mesh, cls, d->geom, d->fmap, d->pos);
    d->ne_inner = d->ne_own;
    if (cls) {
        d->ne_inner = 0;
        for (int e = 0; e < ne; e++) d->ne_inner += cls[e] == 0;
    }
    free(cls);
    halo_init(d);
    return HDG_OK;
}

hdg_status hdg_dg_prepare(hdg_dg_data *d, const hdg_run_options *opt, hdg_error *err)
{
    const hdg_problem *p = d->p;
    hdg_status st = element_data(d, opt, err);
    if ((st = hdg_comm_agree(st, err))) return st;   /* mpirun: before the reductions of the time step */
    d->params = hdg_xcalloc((size_t)d->L.nparams, sizeof(double));
    for (int i = 0; i < p->nparams; i++) d->params[i] = p->params[i].value;
    return time_step(d, opt, err);
}

void hdg_dg_data_free(hdg_dg_data *d)
{
    free(d->geom);
    free(d->fmap);
    free(d->pos);
    free(d->params);
    halo_free(&d->halo);
    hdg_dg_nl_free(&d->nl);
    hdg_geom_free(&d->g);
    hdg_refel_free(&d->re);
    hdg_dg_lowered_free(&d->L);
    memset(d, 0, sizeof *d);
}

void hdg_dg_report_setup(hdg_report *rep, const hdg_dg_data *d, double t_compile, double t_setup, int cache_hit,
                         int nkernels, long long source_bytes)
{
    hdg_report_number(rep, "timings.lower", d->t_lower);
    hdg_report_number(rep, "timings.compile", t_compile);
    hdg_report_int(rep, "compile.cache_hits", cache_hit ? 1 : 0);
    hdg_report_int(rep, "compile.kernels", nkernels);
    hdg_report_int(rep, "compile.source_bytes", source_bytes);
    hdg_report_number(rep, "timings.setup", t_setup);
}

/* ------------------------------------------------------------------ output */

/* A .pvd series is written under staging names, BASE.partial_NNNNN.vtu listed
 * by BASE.partial.pvd (updated at each output, so a run that stops or blows
 * up leaves it to look at), and only a run that reaches the final time renames
 * the files to BASE_NNNNN.vtu and writes BASE.pvd: a previous good series is
 * never overwritten by a failed one. */
typedef struct vtkout {
    const char *path;       /* .pvd (series) or .vtu (final only) */
    char *base, *partial;   /* series: path without .pvd; BASE.partial.pvd */
    int series;
    int p, nlat, dim;
    double *I, *vxy, **vals, *lat;   /* lat: the lattice, r then s (then t) */
    char names[HDG_DG_MAX_FIELDS][64];    /* per component: "Ez", "u_x" (the snapshot's) */
    int nu, ncomp[HDG_DG_MAX_FIELDS];     /* the unknowns: the .vtu's fields ("u" of 2 components) */
    const char *unames[HDG_DG_MAX_FIELDS];
    int ascii;                            /* --vtk-format ascii */
    char **files;
    double *times;
    int nfiles;
} vtkout;

/* path NULL: the lattice values only (for opt->snapshot). */
static void vtk_open(vtkout *v, const hdg_dg_data *d, const char *path)
{
    memset(v, 0, sizeof *v);
    v->path = path;
    size_t len = path ? strlen(path) : 0;
    v->series = len > 4 && !strcmp(path + len - 4, ".pvd");
    if (v->series) {
        hdg_str b;
        hdg_str_init(&b);
        hdg_str_printf(&b, "%.*s", (int)(len - 4), path);
        v->base = hdg_str_take(&b);
        hdg_str_printf(&b, "%s.partial.pvd", v->base);
        v->partial = hdg_str_take(&b);
    }
    v->p = d->L.N > 0 ? d->L.N : 1;
    int dim = v->dim = d->L.dim, nv = dim + 1;
    v->nlat = hdg_vtk_lattice_count(dim, v->p);
    v->lat = hdg_xmalloc(sizeof(double) * v->nlat * dim);
    double *lx[3] = { v->lat, v->lat + v->nlat, v->lat + 2 * v->nlat };
    hdg_vtk_lattice_points(dim, v->p, lx);
    v->I = hdg_xmalloc(sizeof(double) * (size_t)v->nlat * d->L.Np);
    hdg_refel_interp_x(&d->re, v->nlat, (const double *const *)lx, v->I);
    for (int f = 0; f < d->L.nfields; f++) {
        snprintf(v->names[f], sizeof v->names[f], "%s", d->L.field_name[f]);
        for (char *c = v->names[f]; *c; c++)
            if (*c == '.') *c = '_';
        if (d->L.field_comp[f] == 0) {   /* an unknown's components are consecutive fields */
            const hdg_unknown *u = &d->p->unknowns[d->L.field_unknown[f]];
            v->unames[v->nu] = u->name, v->ncomp[v->nu++] = u->ncomp;
        }
    }
    const hdg_mesh *m = d->mesh;
    const double *c[3] = { m->vx, m->vy, m->vz };
    v->vxy = hdg_xmalloc(sizeof(double) * dim * nv * (size_t)m->ne);
    for (int e = 0; e < m->ne; e++)
        for (int k = 0; k < nv; k++)
            for (int j = 0; j < dim; j++) v->vxy[(size_t)dim * (nv * e + k) + j] = c[j][m->ev[nv * e + k]];
    v->vals = hdg_xmalloc(sizeof(double *) * d->L.nfields);
    for (int f = 0; f < d->L.nfields; f++) v->vals[f] = hdg_xmalloc(sizeof(double) * (size_t)m->ne * v->nlat);
}

/* The state U (kernel rows) interpolated to the lattice in mesh order. */
static void vtk_interp(vtkout *v, const hdg_dg_data *d, const double *U)
{
    int ne = d->mesh->ne, F = d->L.nfields, Np = d->L.Np;
    for (int f = 0; f < F; f++)
        for (int e = 0; e < ne; e++)
            for (int q = 0; q < v->nlat; q++) {
                double s = 0;
                for (int j = 0; j < Np; j++) s += v->I[q * Np + j] * U[((size_t)d->pos[e] * F + f) * Np + j];
                v->vals[f][(size_t)e * v->nlat + q] = s;
            }
}

/* The .vtu's contents: ne elements of the interpolated state. */
static hdg_vtk_data vtk_data(const vtkout *v, int ne)
{
    return (hdg_vtk_data){.ne = ne, .dim = v->dim, .vxy = v->vxy, .p = v->p, .nfields = v->nu, .names = v->unames,
                          .ncomp = v->ncomp, .values = (const double *const *)v->vals, .mode = HDG_VTK_LAGRANGE,
                          .format = v->ascii ? HDG_VTK_ASCII : HDG_VTK_BINARY};
}

/* The interpolated state at time t as the next file of the output. */
static hdg_status vtk_write(vtkout *v, const hdg_dg_data *d, double t, hdg_error *err)
{
    hdg_str file;
    hdg_str_init(&file);
    if (v->series) {
        hdg_str_printf(&file, d->dist ? "%s.partial_%05d.pvtu" : "%s.partial_%05d.vtu", v->base, v->nfiles);
    } else {
        hdg_str_printf(&file, "%s", v->path);
    }
    hdg_status st;
    if (d->dist || (!v->series && hdg_vtk_is_parallel(file.s))) {
        /* mpirun: the own elements of every rank (runtime/output/vtk_dist.h), a series' frame a .pvtu;
         * serially, x.pvtu: a parallel file of one piece */
        hdg_vtk_data D = vtk_data(v, d->ne_own);
        st = hdg_vtk_write_dist(file.s, &D, d->dist ? d->dist->egid : NULL, d->ne_global, err);
    } else {
        hdg_vtk_data D = vtk_data(v, d->mesh->ne);
        st = hdg_vtk_write_data(file.s, &D, err);
    }
    if (st || ((d->dist || hdg_vtk_is_parallel(file.s)) && !v->series)) { hdg_str_free(&file); return st; }
    v->files = hdg_xrealloc(v->files, sizeof(char *) * (v->nfiles + 1));
    v->times = hdg_xrealloc(v->times, sizeof(double) * (v->nfiles + 1));
    v->files[v->nfiles] = hdg_str_take(&file);
    v->times[v->nfiles++] = t;
    if (!v->series) return HDG_OK;
    st = hdg_comm_rank() ? HDG_OK : hdg_pvd_write(v->partial, v->nfiles, (const char *const *)v->files, v->times, err);
    return d->dist ? hdg_comm_agree(st, err) : st;
}

/* Under mpirun the staged frames are BASE.partial_NNNNN.pvtu with pieces
 * BASE.partial_NNNNN_p<rank>.vtu: each rank renames its pieces, then rank 0
 * writes BASE_NNNNN.pvtu over the renamed pieces (the staged ones name the old
 * files) and removes the staged ones. files[] becomes the new .pvtu names. */
static hdg_status commit_pieces(vtkout *v, const hdg_dg_data *d, hdg_error *err)
{
    int rank = hdg_comm_rank(), size = hdg_comm_size();
    hdg_str from, to;
    hdg_str_init(&from), hdg_str_init(&to);
    hdg_status st = HDG_OK;
    for (int i = 0; i < v->nfiles && !st; i++) {
        hdg_str_printf(&from, "%s.partial_%05d_p%d.vtu", v->base, i, rank);
        hdg_str_printf(&to, "%s_%05d_p%d.vtu", v->base, i, rank);
        if (rename(from.s, to.s) != 0)
            st = hdg_fail(err, HDG_EIO, "%s: cannot rename to %s: %s", from.s, to.s, strerror(errno));
        hdg_str_free(&from), hdg_str_free(&to);
    }
    if ((st = hdg_comm_agree(st, err))) return st;
    hdg_vtk_data D = vtk_data(v, 0);
    char **pieces = hdg_xcalloc((size_t)size, sizeof *pieces);
    for (int i = 0; i < v->nfiles && !st; i++) {
        for (int r = 0; r < size; r++) {
            hdg_str_printf(&to, "%s_%05d_p%d.vtu", v->base, i, r);
            pieces[r] = hdg_str_take(&to);
        }
        hdg_str_printf(&to, "%s_%05d.pvtu", v->base, i);
        if (rank == 0) st = hdg_pvtu_write(to.s, size, (const char *const *)pieces, &D, err);
        if (rank == 0 && !st) remove(v->files[i]);
        free(v->files[i]);
        v->files[i] = hdg_str_take(&to);
        for (int r = 0; r < size; r++) free(pieces[r]);
    }
    free(pieces);
    return hdg_comm_agree(st, err);
}

/* The run reached its final time: the staged series becomes BASE_NNNNN.vtu +
 * BASE.pvd (written last, atomically); step files of an older, longer series
 * are removed. */
static hdg_status vtk_commit(vtkout *v, const hdg_dg_data *d, hdg_error *err)
{
    if (!v->series) return HDG_OK;
    if (d->dist) {
        hdg_status st = commit_pieces(v, d, err);
        if (!st && hdg_comm_rank() == 0) st = hdg_pvd_write(v->path, v->nfiles, (const char *const *)v->files, v->times, err);
        if (!st && hdg_comm_rank() == 0) remove(v->partial);
        return hdg_comm_agree(st, err);
    }
    hdg_str name;
    hdg_str_init(&name);
    for (int i = 0; i < v->nfiles; i++) {
        hdg_str_printf(&name, "%s_%05d.vtu", v->base, i);
        if (rename(v->files[i], name.s) != 0) {
            hdg_status st = hdg_fail(err, HDG_EIO, "%s: cannot rename to %s: %s", v->files[i], name.s, strerror(errno));
            hdg_str_free(&name);
            return st;
        }
        free(v->files[i]);
        v->files[i] = hdg_str_take(&name);
    }
    hdg_status st = hdg_pvd_write(v->path, v->nfiles, (const char *const *)v->files, v->times, err);
    if (st) return st;
    remove(v->partial);
    for (int staged = 0; staged < 2; staged++)   /* older series' and older failed runs' leftovers */
        for (int i = v->nfiles;; i++) {
            hdg_str_printf(&name, staged ? "%s.partial_%05d.vtu" : "%s_%05d.vtu", v->base, i);
            int gone = remove(name.s) != 0;
            hdg_str_free(&name);
            if (gone) break;
        }
    return HDG_OK;
}

/* A failed run: says where the staged series is and that the old one stands. */
static void vtk_failed(const vtkout *v, hdg_error *err)
{
    if (!v->series || !v->nfiles || !err) return;
    size_t n = strlen(err->msg);
    snprintf(err->msg + n, sizeof err->msg - n, " (the output so far is in %s; %s was not replaced)", v->partial,
             v->path);
}

static hdg_status vtk_write_state(vtkout *v, const hdg_dg_data *d, const hdg_dg_engine *eng, double t,
                                  hdg_error *err)
{
    const double *U = NULL;
    hdg_status st = eng->state(eng->ctx, &U, err);
    if (st) return st;
    vtk_interp(v, d, U);
    return vtk_write(v, d, t, err);
}

/* opt->snapshot: the state after step steps (time t) when it is due. */
static hdg_status snapshot_state(vtkout *v, const hdg_dg_data *d, const hdg_dg_engine *eng,
                                 const hdg_run_options *opt, long long step, double t, int final, hdg_error *err)
{
    if (!opt->snapshot || !(final || (opt->snapshot_every > 0 && step % opt->snapshot_every == 0)))
        return HDG_OK;
    const double *U = NULL;
    hdg_status st = eng->state(eng->ctx, &U, err);
    if (st) return st;
    vtk_interp(v, d, U);
    const char *np[HDG_DG_MAX_FIELDS];
    for (int f = 0; f < d->L.nfields; f++) np[f] = v->names[f];
    hdg_snapshot s = {d->mesh->ne, v->p, v->nlat, v->vxy, v->lat, v->lat + v->nlat, d->L.nfields, np,
                      (const double *const *)v->vals, t, step, final, 0, NULL, NULL, v->dim,
                      v->dim == 3 ? v->lat + 2 * v->nlat : NULL};
    return opt->snapshot(opt->snapshot_ctx, &s, err);
}

static void vtk_close(vtkout *v, int nfields)
{
    free(v->base);
    free(v->partial);
    for (int i = 0; i < v->nfiles; i++) free(v->files[i]);
    free(v->files);
    free(v->times);
    free(v->I);
    free(v->lat);
    free(v->vxy);
    if (v->vals)
        for (int f = 0; f < nfields; f++) free(v->vals[f]);
    free(v->vals);
}

/* ------------------------------------------------------------------ energy, errors */

/* 1/2 sum over fields of int U_f^2 (exact for the nodal polynomials): the
 * <name>_energy kernel per element, summed here in kernel-row order. */
static hdg_status energy(const hdg_dg_data *d, const hdg_dg_engine *eng, double *Eel, double *sum, hdg_error *err)
{
    hdg_status st = eng->energy(eng->ctx, Eel, err);
    if (st) return st;
    double s = 0;
    for (int e = 0; e < d->ne_own; e++) s += Eel[e];
    hdg_comm_sum(&s, 1);   /* mpirun: every rank's elements, and every rank decides alike */
    *sum = s;
    return HDG_OK;
}

/* errors.<unknown>: sqrt of the summed squared errors of its fields. */
static hdg_status report_errors(const hdg_dg_data *d, const hdg_dg_engine *eng, double t, double *E,
                                hdg_report *rep, hdg_error *err)
{
    hdg_status st = eng->errors(eng->ctx, t, E, err);
    if (st) return st;
    int nout = d->nerrout;
    double sums[3 * HDG_DG_MAX_FIELDS] = {0};
    for (int e = 0; e < d->ne_own; e++)
        for (int k = 0; k < nout; k++) sums[k] += E[(size_t)e * nout + k];
    hdg_comm_sum(sums, nout);
    const hdg_problem *p = d->p;
    for (int u = 0; u < p->nunknowns; u++) {   /* one entry per unknown, vector components combined */
        double s = 0;
        int have = 0;
        for (int k = 0; k < d->L.nerr; k++)
            if (d->L.field_unknown[d->L.err_field[k]] == u) { s += sums[k]; have = 1; }
        if (!have) continue;
        char path[96];
        snprintf(path, sizeof path, "errors.%s", p->unknowns[u].name);
        hdg_report_number(rep, path, sqrt(s));
    }
    return HDG_OK;
}

/* ------------------------------------------------------------------ the energy watch */

/* How the energy is watched (run_dg_common.h, hdg_dg_integrate). */
typedef enum { WATCH_BOUNDED, WATCH_EXACT, WATCH_LOOSE } watch_mode;
static const char *const watch_names[] = { "bounded", "exact", "loose" };

typedef struct watch {
    watch_mode mode;
    double e0, emin;       /* initial energy, smallest so far */
    double floor;          /* absolute round-off of an energy made of subnormal products (bounded) */
    double maxrise;        /* largest (E - emin) / emin */
    double eex, eex_last;  /* largest exact-solution energy so far, the latest one (WATCH_EXACT) */
    double *peak;          /* peak[j]: the largest energy of samples 0..j (sample 0: the initial state) */
    long long samples, exact_every, cap;   /* cap: peak's length (nonlinear runs may take more steps) */
} watch;

static void watch_init(watch *w, const hdg_dg_data *d, double e0, long long nsamples)
{
    memset(w, 0, sizeof *w);
    w->mode = d->energy_bounded ? WATCH_BOUNDED : d->L.nerr == d->L.nfields ? WATCH_EXACT : WATCH_LOOSE;
    w->e0 = w->emin = e0;
    w->floor = (double)d->n_global * DBL_MIN;
    w->exact_every = nsamples > 250 ? nsamples / 50 : 5;   /* at most ~1/5 of the steps' time */
    w->cap = nsamples + 2;
    w->peak = hdg_xmalloc(sizeof(double) * (size_t)w->cap);
    w->peak[0] = e0;
}

static void watch_free(watch *w) { free(w->peak), w->peak = NULL; }

/* 1/2 sum of int exact^2 at the state's time, from the _errors kernel. */
static hdg_status exact_energy(const hdg_dg_data *d, const hdg_dg_engine *eng, double t, double *E, double *eex,
                               hdg_error *err)
{
    hdg_status st = eng->errors(eng->ctx, t, E, err);
    if (st) return st;
    int nout = d->nerrout, off = d->L.nerr + d->L.nfields;
    double s = 0;
    for (int e = 0; e < d->ne_own; e++)
        for (int k = 0; k < d->L.nerr; k++) s += E[(size_t)e * nout + off + k];
    hdg_comm_sum(&s, 1);
    *eex = 0.5 * s;
    return HDG_OK;
}

/* The largest cfl worth trying: half the one that failed, rounded down to two digits. */
static double cfl_hint(const hdg_dg_data *d)
{
    double c = 0.5 * (d->cfl_eff > 0 ? d->cfl_eff : d->cfl);
    double q = pow(10.0, floor(log10(c)) - 1);
    return floor(c / q) * q;
}

static hdg_status unstable(const hdg_dg_data *d, const char *how, double from, double en, long long step, double t,
                           hdg_report *rep, hdg_error *err)
{
    hdg_report_int(rep, "blowup.step", step);
    hdg_report_number(rep, "blowup.time", t);
    hdg_report_number(rep, "energy.end", en);
    char hint[480], rel[48] = "";
    if (from > 0 && isfinite(en)) snprintf(rel, sizeof rel, " (%+.2g relative)", (en - from) / from);
    if (d->cfl_eff > 0 || !(d->p->time.dt > 0)) snprintf(hint, sizeof hint, "try --cfl <= %.2g", cfl_hint(d));
    else snprintf(hint, sizeof hint, "try a smaller 'dt' than %g", d->dt);
    if (!d->energy_bounded) {   /* the form did not rule out a growth of its own */
        size_t len = strlen(hint);
        snprintf(hint + len, sizeof hint - len, ", unless the scheme itself lets the energy grow (%s)",
                 d->energy_why);
    }
    return hdg_fail(err, HDG_ESOLVER, "unstable: the energy grew from %.13g to %.13g%s at step %lld (t = %.6g)%s; "
                                      "the time step dt = %.4g is too large: %s", from, en, rel, step, t, how, d->dt,
                    hint);
}

/* How far the energy may rise over the exact solution's (WATCH_EXACT):
 * en > eex(t) + HDG_DG_EXACT_MARGIN * (the largest of the initial energy and
 * the exact solution's so far) is growth the solution does not have. */
#define HDG_DG_EXACT_MARGIN 3.0

/* WATCH_EXACT: the energy against the exact solution's at the same time, at
 * the scheduled samples and at any sample whose energy passes the bound of
 * the latest exact energy (so that a growth between two scheduled samples is
 * looked at, without an _errors call per sample otherwise). */
static hdg_status watch_exact(watch *w, const hdg_dg_data *d, const hdg_dg_engine *eng, double en, long long k,
                              long long s, double t, double *E, hdg_report *rep, hdg_error *err)
{
    double scale = fmax(w->e0, w->eex);
    int due = k % w->exact_every == 0 || s == d->nsteps;
    /* en and the exact energies are reduced over the ranks: every rank decides alike */
    int suspect = en > w->eex_last + HDG_DG_EXACT_MARGIN * scale;
    if (!due && !suspect) return HDG_OK;
    double eex = 0;
    hdg_status st = exact_energy(d, eng, t, E, &eex, err);
    if (st) return st;
    w->eex = fmax(w->eex, eex);
    w->eex_last = eex;
    scale = fmax(w->e0, w->eex);
    if (en > eex + HDG_DG_EXACT_MARGIN * scale) {
        char how[200];
        snprintf(how, sizeof how, ", above the exact solution's (%.6g) by more than %g times the largest of its and the initial energy so far (%.6g)",
                 eex, HDG_DG_EXACT_MARGIN, scale);
        return unstable(d, how, w->e0, en, s, t, rep, err);
    }
    return HDG_OK;
}

/* The energy en after step s (time t): an instability? */
static hdg_status watch_check(watch *w, const hdg_dg_data *d, const hdg_dg_engine *eng, double en, long long s,
                              double t, double *E, hdg_report *rep, hdg_error *err)
{
    long long k = w->samples++;
    if (!isfinite(en)) return unstable(d, "", w->emin, en, s, t, rep, err);
    if (w->emin > 0) w->maxrise = fmax(w->maxrise, (en - w->emin) / w->emin);
    if (k + 2 > w->cap) w->cap = 2 * (k + 2), w->peak = hdg_xrealloc(w->peak, sizeof(double) * (size_t)w->cap);
    w->peak[k + 1] = fmax(w->peak[k], en);
    if (w->mode == WATCH_BOUNDED) {
        if (en - w->emin > HDG_DG_ENERGY_RTOL * w->emin + w->floor)
            return unstable(d, ", which it cannot do in this problem", w->emin, en, s, t, rep, err);
        w->emin = fmin(w->emin, en);
        return HDG_OK;
    }
    w->emin = fmin(w->emin, en);
    if (w->mode == WATCH_EXACT) {
        hdg_status st = watch_exact(w, d, eng, en, k, s, t, E, rep, err);
        if (st) return st;
    }
    /* a blow-up: 1e8 times the largest energy of the first half of the samples so far (not of the initial
     * state alone: a source may fill a tiny or zero initial state at any rate) */
    double ref = w->peak[(k + 1) / 2];
    if (k >= 1 && ref > 0 && en > 1e8 * ref) {
        char how[120];
        snprintf(how, sizeof how, ", 1e8 times the largest energy of the first half of the run so far (%.6g)", ref);
        return unstable(d, how, w->e0, en, s, t, rep, err);
    }
    return HDG_OK;
}

/* ------------------------------------------------------------------ the loop */

/* "step 120/4000  t = 0.03  812 steps/s  ETA 4s" on the progress line. */
static void progress(hdg_progress *line, long long s, long long n, double t, int force)
{
    if (!line->f) return;
    char eta[32];
    hdg_progress_eta(line, (double)s, (double)n, eta, sizeof eta);
    double el = hdg_wtime() - line->start;
    hdg_progress_update(line, force, "step %lld/%lld  t = %.6g  %.1f steps/s  %s", s, n, t,
                        el > 0 ? (double)s / el : 0.0, eta);
}

static void report_header(const hdg_dg_data *d, hdg_report *rep)
{
    hdg_report_string(rep, "method", "DG");
    hdg_report_int(rep, "order", d->L.N);
    hdg_report_int(rep, "dofs.total", d->n_global);
    hdg_report_int(rep, "dofs.per_element", (long long)d->L.nfields * d->L.Np);
    hdg_report_int(rep, "dofs.fields", d->L.nfields);
    hdg_report_number(rep, "time.final", d->final);
    hdg_report_number(rep, "time.cfl", d->cfl);
    hdg_report_int(rep, "steps", d->nsteps);
    hdg_report_number(rep, "dt", d->dt);
    if (d->speed.known) hdg_report_number(rep, "speed", d->speed.max);
    if (d->speed.known && d->speed.react > 0) hdg_report_number(rep, "time.reaction_step", 1.0 / d->speed.react);
    if (d->cfl_eff > 0) hdg_report_number(rep, "time.cfl_effective", d->cfl_eff);
}

static void report_perf(const hdg_dg_data *d, const hdg_dg_engine *eng, double t_steps, double t_stages,
                        double t_out, long long nstages, hdg_report *rep)
{
    long long ne = d->ne_global;
    double t[2] = {t_steps, t_stages};
    hdg_comm_max(t, 2);   /* mpirun: the slowest rank's, for the whole mesh's work */
    t_steps = t[0], t_stages = t[1];
    hdg_report_number(rep, "timings.steps", t_steps);
    hdg_report_number(rep, "timings.stages", t_stages);
    hdg_report_number(rep, "timings.output", t_out);
    hdg_report_int(rep, "perf.stage_evals", nstages);
    if (t_stages > 0) {   /* a stage: right-hand side and update, one kernel */
        const hdg_kernel_info *i = eng->step_info;
        double bytes = (double)(i->bytes_read + i->bytes_written) * ne;
        hdg_report_number(rep, "perf.stage_evals_per_s", nstages / t_stages);
        hdg_report_number(rep, "perf.stage_gbytes_per_s", bytes * nstages / t_stages * 1e-9);
        hdg_report_number(rep, "perf.stage_gflops", (double)i->flops * ne * nstages / t_stages * 1e-9);
    }
    if (t_steps > 0) hdg_report_number(rep, "perf.dof_updates_per_s", (double)d->n_global * d->nsteps / t_steps);
}

static void log_summary(const hdg_dg_data *d, const hdg_run_options *opt, double e0, double e1, double t_steps,
                        const hdg_report *rep)
{
    const hdg_problem *p = d->p;
    char sp[64] = "";
    if (d->speed.known) snprintf(sp, sizeof sp, " (cfl %.3g, speed %.4g)", d->cfl_eff, d->speed.max);
    fprintf(opt->log, "%s: DG, order %d, %lld elements, %lld dofs, %lld steps of dt = %.4g%s to t = %g (%.3g s)\n",
            p->name, d->L.N, d->ne_global, d->n_global, d->nsteps, d->dt, sp, d->final, t_steps);
    fprintf(opt->log, "  energy %.10g -> %.10g\n", e0, e1);
    for (int u = 0; u < p->nunknowns; u++) {
        char path[96];
        int found = 0;
        snprintf(path, sizeof path, "errors.%s", p->unknowns[u].name);
        double ev = hdg_report_get_number(rep, path, &found);
        if (found) fprintf(opt->log, "  L2 error %-8s %.6e\n", p->unknowns[u].name, ev);
    }
}

hdg_status hdg_dg_integrate(hdg_dg_data *d, const hdg_dg_engine *eng, const hdg_run_options *opt,
                            hdg_report *rep, hdg_error *err)
{
    int ne = d->mesh->ne;
    long long nsteps = d->nsteps, s = 0, nstages = 0;
    double final = d->final, dt = d->dt;
    if (!d->nl.on) report_header(d, rep);
    double *Eel = hdg_xcalloc((size_t)ne, sizeof(double));
    double *E = hdg_xcalloc((size_t)ne * d->nerrout, sizeof(double));
    vtkout v = {0};
    hdg_png_frames pf = {0};
    double e0 = 0, eprev = 0, maxinc = 0, t_stages = 0, tcur = 0;   /* tcur: time of the state */
    hdg_progress line;
    hdg_progress_begin(&line, NULL);
    watch w = {0};

    hdg_status st = eng->initial(eng->ctx, err);
    if (!st && d->nl.on) {   /* the step from the initial state */
        st = hdg_dg_nl_begin(d, eng, err);
        if (d->nl_fixed) d->nsteps = nsteps, d->dt = dt;
        nsteps = d->nsteps, dt = d->dt;
        report_header(d, rep);
    }
    if (!st) st = energy(d, eng, Eel, &e0, err);
    if (st) goto done;
    eprev = e0;
    hdg_report_number(rep, "energy.start", e0);
    if (opt->vtk || opt->snapshot) {
        vtk_open(&v, d, opt->vtk);
        v.ascii = opt->vtk_ascii;
        if (v.series && (st = vtk_write_state(&v, d, eng, 0.0, err))) goto done;
        if (nsteps > 0 && (st = snapshot_state(&v, d, eng, opt, 0, 0.0, 0, err))) goto done;
    }
    if (opt->png && ((st = hdg_png_dg_open(&pf, d, opt, err)) ||
                     (st = hdg_png_dg_step(&pf, d, eng, opt, 0, nsteps, 0.0, rep, err))))
        goto done;
    long long mon = nsteps <= 2000 ? 1 : nsteps / 2000;
    watch_init(&w, d, e0, nsteps / mon);
    hdg_report_string(rep, "energy.watch", watch_names[w.mode]);
    if (w.mode != WATCH_BOUNDED) hdg_report_string(rep, "energy.watch_reason", d->energy_why);
    double tstart = hdg_wtime(), t_out = 0;
    hdg_progress_begin(&line, opt->progress ? stderr : NULL);

    for (s = 0; s < nsteps; s++) {
        double t = d->nl.on ? tcur : (double)s * dt, secs = 0;
        if (d->nl.on && s > 0 && !d->nl_fixed && (st = hdg_dg_nl_step(d, eng, s, t, &dt, &nsteps, err))) goto done;
        if ((st = eng->step(eng->ctx, t, dt, &secs, err))) goto done;
        t_stages += secs;
        nstages += 5;
        long long done_steps = s + 1;
        double tn = done_steps == nsteps ? final : d->nl.on ? t + dt : (double)done_steps * dt;
        tcur = tn;
        if (done_steps % mon == 0 || done_steps == nsteps) {
            double en;
            if ((st = energy(d, eng, Eel, &en, err))) goto done;
            if (d->nl.on && !isfinite(en) && (st = hdg_dg_nl_nonfinite(d, eng, done_steps, tn, err))) goto done;
            if ((st = watch_check(&w, d, eng, en, done_steps, tn, E, rep, err))) goto done;
            if (eprev > 0) maxinc = fmax(maxinc, (en - eprev) / eprev);
            eprev = en;
        }
        if (opt->vtk && v.series && opt->every > 0 && done_steps % opt->every == 0 && done_steps != nsteps) {
            double t0 = hdg_wtime();
            if ((st = vtk_write_state(&v, d, eng, tn, err))) goto done;
            t_out += hdg_wtime() - t0;
        }
        if (done_steps != nsteps && (st = snapshot_state(&v, d, eng, opt, done_steps, tn, 0, err))) goto done;
        if (opt->png && (st = hdg_png_dg_step(&pf, d, eng, opt, done_steps, nsteps, tn, rep, err))) goto done;
        progress(&line, done_steps, nsteps, tn, 0);
    }
    double t_steps = hdg_wtime() - tstart;
    hdg_progress_end(&line);
    if (d->nl.on && (st = hdg_dg_nl_end(d, eng, nsteps, final, err))) goto done;
    if (opt->vtk) {
        double t0 = hdg_wtime();
        if ((st = vtk_write_state(&v, d, eng, final, err)) || (st = vtk_commit(&v, d, err))) goto done;
        t_out += hdg_wtime() - t0;
    }
    if ((st = snapshot_state(&v, d, eng, opt, nsteps, final, 1, err))) goto done;
    hdg_report_number(rep, "energy.end", eprev);
    hdg_report_number(rep, "energy.max_rel_increase", maxinc);
    hdg_report_number(rep, "energy.max_rise", w.maxrise);
    hdg_report_int(rep, "energy.samples", nsteps / mon);
    double t0 = hdg_wtime();
    if ((st = report_errors(d, eng, final, E, rep, err))) goto out;
    hdg_report_number(rep, "timings.errors", hdg_wtime() - t0);
    report_perf(d, eng, t_steps, t_stages, t_out, nstages, rep);
    if (opt->log) log_summary(d, opt, e0, eprev, t_steps, rep);
    if (d->nl.on) hdg_dg_nl_report(d, rep, opt->log);
done:
    hdg_progress_end(&line);
    if (st) {   /* the errors where it stopped, when they can still be had */
        vtk_failed(&v, err);
        hdg_error ignored;
        report_errors(d, eng, tcur, E, rep, &ignored);
    }
out:
    watch_free(&w);
    vtk_close(&v, d->L.nfields);
    hdg_png_dg_close(&pf);
    free(E);
    free(Eel);
    return st;
}

double *hdg_dg_probe_params(const hdg_dg_data *d)
{
    double *params = hdg_xmalloc(sizeof(double) * (size_t)(d->L.nparams + 1));
    memcpy(params, d->params, sizeof(double) * (size_t)d->L.nparams);
    params[d->L.p_rka] = hdg_lserk4_a[1], params[d->L.p_rkb] = hdg_lserk4_b[1], params[d->L.p_dt] = 1e-2;
    return params;
}
