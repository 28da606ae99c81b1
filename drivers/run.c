/* run.c — hdg_run_problem: mesh, marker check, then the driver of the
 * problem's method family (run_hdg.c or run_dg.c). See run.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/run.h"
#include "drivers/run_hdg_common.h"
#include "drivers/run_memory.h"
#include "drivers/periodic_data.h"
#include "runtime/parallel/comm.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/mesh/mesh.h"
#include "support/util.h"

void hdg_run_options_default(hdg_run_options *o)
{
    memset(o, 0, sizeof *o);
    o->mesh = NULL;      /* square:8, cube:4 for a 3D problem (hdg_run_problem) */
    o->backend = "c";
    o->precond = NULL;   /* mg or block by size (hdg_hdg_choose_solver); NULL lets --solver petsc refuse a given one */
    o->rtol = 0;         /* the default stopping rule (hdg_hdg_choose_solver) */
    o->use_cache = 1;
}

void hdg_run_fields_free(hdg_run_fields *f)
{
    if (!f) return;
    free(f->x), free(f->xpost), free(f->trace), free(f->xy), free(f->tri);
    memset(f, 0, sizeof *f);
}

/* Every mesh marker has a condition and every marker the file names exists. */
hdg_status hdg_run_check_markers(const hdg_problem *p, const hdg_mesh *m, hdg_error *err)
{
    /* by id, as `hdgc check --mesh` does (integer tags in the file match ids);
     * markers that name no boundary face need no condition */
    const char **names = hdg_xcalloc((size_t)m->nmarkers + 1, sizeof *names);
    for (int id = 1; id <= m->nmarkers; id++)
        if (hdg_mesh_marker_count(m, id) > 0) names[id] = m->marker_names[id];
    hdg_diags d;
    hdg_diags_init(&d);
    char *text = NULL;   /* the source, to echo the lines the messages point at */
    size_t len = 0;
    hdg_error rerr;
    if (hdg_read_file(p->file, &text, &len, &rerr)) text = NULL, len = 0;
    hdg_diags_set_source(&d, p->file, text, len);
    free(text);
    int ndim = hdg_problem_check_mesh_dim(p, hdg_mesh_dim(m), &d);   /* triangles or tetrahedra */
    int nerr = ndim ? ndim : hdg_problem_check_mesh_markers(p, names, m->nmarkers + 1, &d);
    free(names);
    if (nerr && m->periodic)   /* the groups that periodic= paired are gone */
        hdg_diag_add(&d, HDG_DIAG_NOTE, p->boundary_loc.line ? p->boundary_loc : p->loc,
                     "the mesh is periodic (periodic=%s): the paired groups' faces are interior and carry no "
                     "marker", m->periodic);
    hdg_status st = HDG_OK;
    if (nerr) {
        char *msg = hdg_diags_render(&d);
        size_t n = strlen(msg);
        while (n && msg[n - 1] == '\n') msg[--n] = '\0';
        st = hdg_fail(err, HDG_EINPUT, ndim ? "mesh '%s' and the problem differ in dimension:\n%s"
                      : "the boundary markers of mesh '%s' do not match the problem's boundary conditions:\n%s",
                      m->source ? m->source : "", msg);
        free(msg);
    }
    hdg_diags_free(&d);
    return st;
}

/* c: the host. cuda: the GPU (an error saying why when none opens). auto:
 * cuda when a GPU opens, else c, saying why in the report (backend_note). */
static hdg_status choose_backend(const char *want, const char **out, hdg_cuda_device **dev, hdg_report *rep,
                                 hdg_error *err)
{
    *out = "c";
    *dev = NULL;
    if (!strcmp(want, "c")) return HDG_OK;
    if (strcmp(want, "cuda") && strcmp(want, "auto"))
        return hdg_fail(err, HDG_EINPUT, "unknown backend '%s' (c, cuda, auto)", want);
    hdg_error derr = {0};
    if (!hdg_cuda_device_open(0, dev, &derr)) {
        *out = "cuda";
        char note[256];
        snprintf(note, sizeof note, "auto chose cuda: %s", hdg_cuda_device_props(*dev)->name);
        if (!strcmp(want, "auto")) hdg_report_string(rep, "backend_note", note);
        return HDG_OK;
    }
    if (!strcmp(want, "cuda")) return hdg_fail(err, HDG_EDEVICE, "--backend cuda: %s", derr.msg);
    char note[2200];
    snprintf(note, sizeof note, "auto chose c: %s", derr.msg);
    hdg_report_string(rep, "backend_note", note);
    return HDG_OK;
}

/* 'mean u = g' fixes the constant of a solution defined up to one: a run
 * whose solution was unique (a Dirichlet face, a Robin or reaction term, a
 * dt() term), or whose free constant moved another unknown, did not use it,
 * which the user is told rather than left to assume. */
/* Is name one of the list "u1, u2" (solver.null_mean: several free constants)? */
static int mean_listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *at = list; at && *at; at = strchr(at, ',') ? strchr(at, ',') + 2 : NULL)
        if (!strncmp(at, name, n) && (at[n] == 0 || at[n] == ',')) return 1;
    return 0;
}

void hdg_run_mean_unused(const hdg_problem *p, hdg_report *rep)
{
    const char *used = hdg_report_get_string(rep, "solver.null_mean");
    if (!used && hdg_report_get_string(rep, "solver.null_space")) return;
    const char *space = hdg_report_get_string(rep, "solver.null_space");
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        const char *kw = x->rigid ? "rigid" : "mean";
        char msg[512];
        if (x->trace || x->post || !x->mean_value[0]) continue;
        if (used && mean_listed(used, x->name)) {
            if (!x->rigid || (space && !strcmp(space, "rigid motions"))) continue;
            snprintf(msg, sizeof msg, "%s:%d:%d: 'rigid %s = ...' fixed only the free constants, as 'mean %s' "
                     "would: no rotation of the solution is free (the trace matrix does not annihilate them)",
                     p->file, x->mean_loc.line, x->mean_loc.col, x->name, x->name);
        } else if (used)
            snprintf(msg, sizeof msg, "%s:%d:%d: '%s %s = ...' was not used: the free constant of the "
                     "solution moves '%s', whose '%s' fixed it; '%s' is unique", p->file, x->mean_loc.line,
                     x->mean_loc.col, kw, x->name, used, kw, x->name);
        else
            snprintf(msg, sizeof msg, "%s:%d:%d: '%s %s = ...' was not used: the solution is unique (%s), so "
                     "its %s is that of the solution", p->file, x->mean_loc.line, x->mean_loc.col, kw, x->name,
                     p->transient ? "the dt() term" : "a Dirichlet face, a Robin or reaction term",
                     x->rigid ? "rigid-motion part" : "mean");
        hdg_report_string(rep, "warnings.mean", msg);
        return;
    }
}

static hdg_status snes_refused(const hdg_problem *p, const hdg_run_options *o, hdg_error *err)
{
    if (!o->newton_snes) return HDG_OK;
    if (!p->nonlinear || p->method != HDG_METHOD_HDG)
        return hdg_fail(err, HDG_EINPUT, "--newton applies to nonlinear HDG problems (Newton); problem '%s' is %s",
                        p->name, p->method != HDG_METHOD_HDG ? "explicit DG (no Newton)" : "linear (one linear solve)");
    if (!strcmp(o->backend, "cuda"))   /* drivers/run_hdg_snes.c runs on the host */
        return hdg_fail(err, HDG_EINPUT, "%s: --newton snes (PETSc's SNES) runs on the host only so far, not with "
                        "--backend cuda: use --newton hdgc (hdgc's own Newton, the default), which does", p->name);
    return HDG_OK;
}

hdg_status hdg_run_problem(const hdg_problem *p, const hdg_run_options *opt, hdg_report *rep,
                           hdg_error *err)
{
    hdg_status dst = hdg_lower_nonlinear_check(p, err);   /* issue 41 */
    if (dst) return dst;
    hdg_run_options o;
    hdg_run_options_default(&o);
    if (opt) o = *opt;
    if (!o.mesh) o.mesh = p->dim == 3 ? "cube:4" : "square:8";
    if (!o.backend) o.backend = "c";
    if (!o.kernels) o.kernels = "generated";
    if (strcmp(o.kernels, "generated") && strcmp(o.kernels, "handwritten"))
        return hdg_fail(err, HDG_EINPUT, "--kernels %s: expected generated or handwritten", o.kernels);
    if (o.solver && !strcmp(o.solver, "petsc") && !strcmp(o.backend, "cuda"))
        return hdg_fail(err, HDG_EINPUT, "--solver petsc runs on the host only (for now): use --backend c");
    if (o.solver && !strcmp(o.solver, "petsc")) o.backend = "c";   /* auto: the host */
    hdg_status sst = snes_refused(p, &o, err);
    if (sst) return sst;
    if (o.newton_snes) o.backend = "c";
    if (p->transient && strcmp(o.kernels, "generated"))
        return hdg_fail(err, HDG_EINPUT, "%s: --kernels %s: the hand-written kernels are steady; a problem with "
                                         "dt() terms runs on its generated kernels", p->name, o.kernels);
    int frames = o.png && strchr(o.png, '%');
    if (p->method == HDG_METHOD_HDG && frames && !p->transient)
        return hdg_fail(err, HDG_EINPUT, "%s: --png %s: a frame pattern (%%d) draws the frames of a time-dependent "
                        "run; a steady HDG run draws one picture: give a file name without %%", p->name, o.png);
    if (p->transient && o.every > 0 && !hdg_hdg_series_wanted(&o) && !frames)
        return hdg_fail(err, HDG_EINPUT, "%s: --every %d writes a series of files, which for HDG is --vtk x.pvd or "
                        "--png frame%%d.png (given: %s%s); without one the run writes only its final state", p->name,
                        o.every, o.vtk ? "--vtk " : "no --vtk", o.vtk ? o.vtk : "");
    if (p->transient) {   /* the steps, refused before any work when too many */
        double final, dt;
        long long nsteps;
        hdg_status tst = hdg_hdg_time_plan(p, &o, &final, &dt, &nsteps, err);
        if (tst) return tst;
    }
    hdg_status cst = hdg_comm_start(err);   /* MPI when started by mpirun */
    if (cst) return cst;
    if (hdg_comm_active()) return hdg_run_problem_mpi(p, &o, rep, err);
    const char *backend;
    hdg_cuda_device *dev = NULL;
    hdg_status bst = choose_backend(o.backend, &backend, &dev, rep, err);
    if (bst) return bst;
    double t0 = hdg_wtime();
    hdg_report_string(rep, "problem", p->name);
    hdg_report_string(rep, "file", p->file);
    hdg_report_string(rep, "method", hdg_method_name(p->method));
    hdg_report_int(rep, "order", p->degree);
    hdg_report_string(rep, "backend", backend);
    hdg_report_string(rep, "kernels", o.kernels);
    hdg_mesh own, *mesh = o.mesh_in ? o.mesh_in : &own;
    memset(&own, 0, sizeof own);
    hdg_mesh_size size;   /* memory: refused with a figure before allocating (square:N) */
    hdg_status st = HDG_OK;
    if (!o.mesh_in) {
        st = hdg_mesh_spec_size(o.mesh, &size) ? hdg_run_memory_check(p, &o, &size, 0, err)
                                               : hdg_mesh_spec_memory_check(o.mesh, 0, err);
        if (!st) st = hdg_mesh_load(&own, o.mesh, err);
    }
    if (!st) {
        size = (hdg_mesh_size){mesh->nv, mesh->ne, mesh->nf, mesh->nbf, hdg_mesh_dim(mesh)};   /* a file: known now */
        st = hdg_run_memory_check(p, &o, &size, 1, err);
    }
    if (st) {
        hdg_mesh_free(&own);
        hdg_cuda_device_close(dev);
        return st;
    }
    double t1 = hdg_wtime();
    hdg_report_string(rep, "mesh.source", o.mesh_in ? (mesh->source ? mesh->source : "arrays") : o.mesh);
    hdg_report_int(rep, "mesh.elements", mesh->ne);
    hdg_report_int(rep, "mesh.faces", mesh->nf);
    hdg_report_int(rep, "mesh.boundary_faces", mesh->nbf);
    hdg_report_number(rep, "timings.parse", o.t_parse);
    hdg_report_number(rep, "timings.mesh", t1 - t0);
    if (o.fields) {   /* the mesh, for a caller of the fields (HDG and DG) */
        hdg_run_fields *f = o.fields;
        int dim = f->dim = mesh->dim == 3 ? 3 : 2;
        f->nv = mesh->nv, f->ne = mesh->ne;
        f->xy = hdg_xmalloc(sizeof(double) * dim * (size_t)mesh->nv);
        for (int v = 0; v < mesh->nv; v++) {
            f->xy[dim * v] = mesh->vx[v], f->xy[dim * v + 1] = mesh->vy[v];
            if (dim == 3) f->xy[dim * v + 2] = mesh->vz[v];
        }
        f->tri = hdg_xmalloc(sizeof(int) * (dim + 1) * (size_t)mesh->ne);
        memcpy(f->tri, mesh->ev, sizeof(int) * (dim + 1) * (size_t)mesh->ne);
    }
    st = hdg_run_check_markers(p, mesh, err);
    char pmsg[1024];
    if (!st && hdg_periodic_data_check(p, mesh, pmsg, sizeof pmsg)) hdg_report_string(rep, "mesh.warning", pmsg);
    int hdg = p->method == HDG_METHOD_HDG;
    if (!st && dev) st = hdg ? hdg_run_hdg_cuda(p, mesh, &o, dev, rep, err) : hdg_run_dg_cuda(p, mesh, &o, dev, rep, err);
    else if (!st) st = hdg ? hdg_run_hdg(p, mesh, &o, rep, err) : hdg_run_dg(p, mesh, &o, rep, err);
    if (!st) hdg_run_mean_unused(p, rep);
    hdg_cuda_device_close(dev);
    hdg_report_number(rep, "timings.total", hdg_wtime() - t0 + o.t_parse);
    hdg_mesh_free(&own);
    return st;
}
