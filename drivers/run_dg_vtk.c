/* run_dg_vtk.c — the VTK output of the explicit DG drivers (run_dg_vtk.h):
 * the state interpolated to a lattice per element, written as one .vtu or a
 * staged .pvd series (a .pvtu per frame under mpirun), and the snapshots of
 * the run options' hook. */
#include "drivers/run_dg_vtk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/parallel/comm.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/output/vtk.h"
#include "runtime/output/vtk_dist.h"
#include "support/util.h"

/* path NULL: the lattice values only (for opt->snapshot). */
void hdg_dg_vtk_open(hdg_dg_vtk *v, const hdg_dg_data *d, const char *path)
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
static void vtk_interp(hdg_dg_vtk *v, const hdg_dg_data *d, const double *U)
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
static hdg_vtk_data vtk_data(const hdg_dg_vtk *v, int ne)
{
    return (hdg_vtk_data){.ne = ne, .dim = v->dim, .vxy = v->vxy, .p = v->p, .nfields = v->nu, .names = v->unames,
                          .ncomp = v->ncomp, .values = (const double *const *)v->vals, .mode = HDG_VTK_LAGRANGE,
                          .format = v->ascii ? HDG_VTK_ASCII : HDG_VTK_BINARY};
}

/* The interpolated state at time t as the next file of the output. */
static hdg_status vtk_write(hdg_dg_vtk *v, const hdg_dg_data *d, double t, hdg_error *err)
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
static hdg_status commit_pieces(hdg_dg_vtk *v, const hdg_dg_data *d, hdg_error *err)
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
hdg_status hdg_dg_vtk_commit(hdg_dg_vtk *v, const hdg_dg_data *d, hdg_error *err)
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
void hdg_dg_vtk_failed(const hdg_dg_vtk *v, hdg_error *err)
{
    if (!v->series || !v->nfiles || !err) return;
    size_t n = strlen(err->msg);
    snprintf(err->msg + n, sizeof err->msg - n, " (the output so far is in %s; %s was not replaced)", v->partial,
             v->path);
}

hdg_status hdg_dg_vtk_write_state(hdg_dg_vtk *v, const hdg_dg_data *d, const hdg_dg_engine *eng, double t,
                                  hdg_error *err)
{
    const double *U = NULL;
    hdg_status st = eng->state(eng->ctx, &U, err);
    if (st) return st;
    vtk_interp(v, d, U);
    return vtk_write(v, d, t, err);
}

/* opt->snapshot: the state after step steps (time t) when it is due. */
hdg_status hdg_dg_vtk_snapshot(hdg_dg_vtk *v, const hdg_dg_data *d, const hdg_dg_engine *eng,
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

void hdg_dg_vtk_close(hdg_dg_vtk *v, int nfields)
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
