/* run_mpi.c — hdg_run_problem under mpirun (run.h; issue 16): rank 0 loads
 * and checks the whole mesh and distributes it (runtime/parallel/mesh_dist.h), every
 * rank runs the driver on its piece, and the report gets the figures of the
 * whole problem and of the ranks (mpi.*). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drivers/periodic_data.h"
#include "drivers/run.h"
#include "drivers/run_memory.h"
#include "runtime/parallel/comm.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/mesh/mesh.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/parallel/parallel.h"
#include "support/util.h"

/* What does not run distributed yet: refused with the reason on every rank. */
static hdg_status unsupported(const hdg_run_options *o, hdg_error *err)
{
    const char *what = NULL;
    if (o->kernels && !strcmp(o->kernels, "handwritten")) what = "--kernels handwritten";
    if (!what) return HDG_OK;
    return hdg_fail(err, HDG_EINPUT, "%s does not run under mpirun yet (run it on one process)", what);
}

/* The trace solver under mpirun is PETSc's, on the distributed matrix:
 * --solver cg|gmres name its KSP, --precond its PC (mg, the default: the
 * two-level method of runtime/solve/mg.h as PETSc's PCMG; block: point-block
 * Jacobi, one face block at a time), before the --petsc options (a
 * -pc_type there replaces the PCMG: -pc_type gamg, hypre). */
static hdg_status solver_options(hdg_run_options *o, char *buf, size_t size, hdg_error *err)
{
    static const char *pcs[][2] = {{"block", "pbjacobi"}, {"jacobi", "jacobi"}, {"none", "none"}};
    const char *pc = NULL;
    if (o->solver && strcmp(o->solver, "cg") && strcmp(o->solver, "gmres") && strcmp(o->solver, "petsc"))
        return hdg_fail(err, HDG_EINPUT, "--solver %s: expected cg, gmres or petsc", o->solver);
    if (o->format && strcmp(o->format, "block"))
        return hdg_fail(err, HDG_EINPUT, "--format %s: under mpirun the trace matrix is PETSc's (MPIAIJ)",
                        o->format);
    for (size_t i = 0; o->precond && i < sizeof pcs / sizeof *pcs; i++)
        if (!strcmp(o->precond, pcs[i][0])) pc = pcs[i][1];
    if (o->precond && !pc && strcmp(o->precond, "mg"))
        return hdg_fail(err, HDG_EINPUT, "--precond %s: expected mg, block, jacobi or none", o->precond);
    o->dist_mg = !pc;   /* mg, the default: the two-level PCMG (a -pc_type in --petsc replaces it) */
    int n = snprintf(buf, size, "%s%s%s%s %s", o->solver && strcmp(o->solver, "petsc") ? "-ksp_type " : "",
                     o->solver && strcmp(o->solver, "petsc") ? o->solver : "", pc ? " -pc_type " : "", pc ? pc : "",
                     o->petsc ? o->petsc : "");
    if (n < 0 || (size_t)n >= size) return hdg_fail(err, HDG_EINPUT, "--petsc: options too long");
    o->solver = "petsc", o->precond = NULL, o->petsc = buf;
    return HDG_OK;
}

/* --backend cuda: one GPU per rank, the rank on its node modulo the node's
 * GPUs (every rank must open one: the reasons are agreed). */
static hdg_status open_device(hdg_cuda_device **dev, hdg_report *rep, hdg_error *err)
{
    int count = 0;
    hdg_status st = hdg_cuda_device_count(&count, err);
    if (!st && count < 1) st = hdg_fail(err, HDG_EDEVICE, "--backend cuda: no GPU on this node");
    int ordinal = count > 0 ? hdg_comm_local_rank() % count : 0;
    if (!st) st = hdg_cuda_device_open(ordinal, dev, err);
    if ((st = hdg_comm_agree(st, err))) return st;
    long long ord[2] = {ordinal, -ordinal};
    hdg_comm_imax(ord, 2);
    hdg_report_int(rep, "mpi.gpu_ordinal_min", -ord[1]);
    hdg_report_int(rep, "mpi.gpu_ordinal_max", ord[0]);
    return HDG_OK;
}

/* Rank 0: the whole mesh, loaded and checked as a serial run does. The
 * memory estimate is of one rank's share. */
static hdg_status whole_mesh(const hdg_problem *p, const hdg_run_options *o, hdg_mesh *m, hdg_report *rep,
                             hdg_error *err)
{
    hdg_mesh_size size;
    int P = hdg_comm_size();
    hdg_status st = hdg_mesh_spec_memory_check(o->mesh, 0, err);
    if (!st && hdg_mesh_spec_size(o->mesh, &size)) {
        size.nv /= P, size.ne /= P, size.nf /= P, size.nbf /= P;
        st = hdg_run_memory_check(p, o, &size, 0, err);
    }
    if (!st) st = hdg_mesh_load(m, o->mesh, err);
    if (!st) st = hdg_run_check_markers(p, m, err);
    char pmsg[1024];
    if (!st && hdg_periodic_data_check(p, m, pmsg, sizeof pmsg)) hdg_report_string(rep, "mesh.warning", pmsg);
    return st;
}

/* mpi.*: the ranks, and the smallest and largest of each rank's figures. */
static void report_ranks(hdg_report *rep, const hdg_mesh *piece, const hdg_mesh_dist *d, double seconds)
{
    long long mine[4] = {d->ne_owned, d->nf_owned, 0, 0};
    for (int f = 0; f < piece->nf; f++) mine[2] += piece->fmark[f] == piece->partition_marker && piece->fe[2 * f + 1] < 0;
    mine[3] = d->nnbr;
    long long lo[4], hi[4];
    memcpy(lo, mine, sizeof mine), memcpy(hi, mine, sizeof mine);
    hdg_comm_imin(lo, 4), hdg_comm_imax(hi, 4);
    double t[2] = {seconds, -seconds};
    hdg_comm_max(t, 2);
    static const char *names[] = {"elements", "faces_owned", "interface_faces", "neighbours"};
    hdg_report_int(rep, "mpi.ranks", d->size);
    char path[64];
    for (int i = 0; i < 4; i++) {
        if (i == 3 && !d->nnbr && hi[3] == 0) continue;   /* no ghosts (HDG) */
        snprintf(path, sizeof path, "mpi.%s_min", names[i]);
        hdg_report_int(rep, path, lo[i]);
        snprintf(path, sizeof path, "mpi.%s_max", names[i]);
        hdg_report_int(rep, path, hi[i]);
    }
    hdg_report_number(rep, "mpi.seconds_min", -t[1]);
    hdg_report_number(rep, "mpi.seconds_max", t[0]);
}

/* "element E" of a message: the piece's number -> the whole mesh's. */
static void global_elements(void *ctx, char *msg, size_t size)
{
    const hdg_mesh_dist *d = ctx;
    char out[4096];
    size_t n = 0;
    const char *at = msg, *hit;
    while ((hit = strstr(at, "element ")) && n < sizeof out - 64) {
        char *end;
        long e = strtol(hit + 8, &end, 10);
        size_t k = (size_t)(hit - at) + 8;
        if (k > sizeof out - 64 - n) break;
        memcpy(out + n, at, k), n += k;
        if (end > hit + 8 && e >= 0 && e < d->ne_owned + (long)d->recv_off[d->nnbr])
            n += (size_t)snprintf(out + n, sizeof out - n, "%lld", d->egid[e]), at = end;
        else at = hit + 8;
    }
    snprintf(out + n, sizeof out - n, "%s", at);
    snprintf(msg, size, "%s", out);
}

/* The node's cores shared among its ranks (unless HDG_THREADS says otherwise):
 * a rank's threads would otherwise compete with the other ranks' for them. */
static void share_cores(hdg_report *rep)
{
    if (!getenv("HDG_THREADS")) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        int each = (int)(cores / hdg_comm_local_size());
        hdg_parallel_set_threads(each > 0 ? each : 1);
    }
    hdg_report_int(rep, "mpi.threads_per_rank", hdg_parallel_threads());
}

hdg_status hdg_run_problem_mpi(const hdg_problem *p, hdg_run_options *o, hdg_report *rep, hdg_error *err)
{
    double t0 = hdg_wtime();
    share_cores(rep);
    static _Thread_local char petsc[2048];   /* o->petsc points at it for the run */
    if (!strcmp(o->backend, "auto")) o->backend = "c";
    hdg_status st = unsupported(o, err);
    if (!st && p->method == HDG_METHOD_HDG) st = solver_options(o, petsc, sizeof petsc, err);
    if (st) return st;   /* the same on every rank */
    if (o->fields || o->snapshot) {   /* the API's: the result holds the report alone */
        o->fields = NULL, o->snapshot = NULL;
        hdg_report_string(rep, "warnings.mpi", "under mpirun the solution's fields stay on the ranks: the result "
                          "holds the report (errors, solver, mpi.*), not the fields, and step callbacks do not run");
    }
    hdg_report_string(rep, "problem", p->name);
    hdg_report_string(rep, "file", p->file);
    hdg_report_string(rep, "method", hdg_method_name(p->method));
    hdg_report_int(rep, "order", p->degree);
    hdg_report_string(rep, "backend", o->backend);
    hdg_report_string(rep, "kernels", o->kernels);
    hdg_mesh own, piece;   /* a caller's mesh (arrays): rank 0's is the one distributed */
    memset(&own, 0, sizeof own);
    const hdg_mesh *whole = o->mesh_in ? o->mesh_in : &own;
    if (hdg_comm_rank() == 0) st = o->mesh_in ? hdg_run_check_markers(p, o->mesh_in, err) : whole_mesh(p, o, &own, rep, err);
    if ((st = hdg_comm_agree(st, err))) {
        hdg_mesh_free(&own);
        return st;
    }
    hdg_mesh_dist d;
    st = hdg_mesh_distribute(whole, p->method != HDG_METHOD_HDG, &piece, &d, err);
    hdg_mesh_free(&own);   /* no rank keeps more than its piece */
    o->mesh_in = NULL;
    double t1 = hdg_wtime();
    if (!st) {
        hdg_report_string(rep, "mesh.source", whole == &own ? o->mesh : "arrays");
        hdg_report_int(rep, "mesh.elements", d.ne_global);
        hdg_report_int(rep, "mesh.faces", d.nf_global);
        hdg_report_int(rep, "mesh.boundary_faces", d.nbf_global);
        hdg_report_number(rep, "timings.parse", o->t_parse);
        hdg_report_number(rep, "timings.mesh", t1 - t0);
        o->dist = &d;
        hdg_comm_set_rewrite(global_elements, &d);
        hdg_cuda_device *dev = NULL;
        if (!strcmp(o->backend, "cuda")) st = open_device(&dev, rep, err);
        if (!st && dev)
            st = p->method == HDG_METHOD_HDG ? hdg_run_hdg_cuda(p, &piece, o, dev, rep, err)
                                             : hdg_run_dg_cuda(p, &piece, o, dev, rep, err);
        else if (!st)
            st = p->method == HDG_METHOD_HDG ? hdg_run_hdg(p, &piece, o, rep, err) : hdg_run_dg(p, &piece, o, rep, err);
        hdg_cuda_device_close(dev);
        st = hdg_comm_agree(st, err);
        if (!st) hdg_run_mean_unused(p, rep);
        o->dist = NULL;
        hdg_comm_set_rewrite(NULL, NULL);
        report_ranks(rep, &piece, &d, hdg_wtime() - t1);
    }
    hdg_report_number(rep, "timings.total", hdg_wtime() - t0 + o->t_parse);
    hdg_mesh_dist_free(&d);
    hdg_mesh_free(&piece);
    return st;
}
