/* run_dg_common.c — the parts of the explicit DG drivers that do not depend
 * on where the kernels run (see run_dg_common.h): the lowering, mesh data,
 * the time step, the ghost exchange under mpirun and the setup report. The
 * LSERK4 loop with its energy watch and report is in run_dg_loop.c, its VTK
 * output in run_dg_vtk.c. */
#include "drivers/run_dg_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/mesh_data.h"
#include "runtime/parallel/comm.h"
#include "runtime/solve/lserk4.h"
#include "runtime/parallel/mesh_dist.h"
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

double *hdg_dg_probe_params(const hdg_dg_data *d)
{
    double *params = hdg_xmalloc(sizeof(double) * (size_t)(d->L.nparams + 1));
    memcpy(params, d->params, sizeof(double) * (size_t)d->L.nparams);
    params[d->L.p_rka] = hdg_lserk4_a[1], params[d->L.p_rkb] = hdg_lserk4_b[1], params[d->L.p_dt] = 1e-2;
    return params;
}
