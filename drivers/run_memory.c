/* run_memory.c — see run_memory.h. The per-element and per-face counts follow
 * the arrays of run_hdg.c, blockmat.c, krylov.c (HDG) and run_dg*.c (DG). */
#include "drivers/run_memory.h"

#include <stdio.h>
#include <string.h>

#include "support/util.h"

/* Components of the trace, element and post-processed unknowns. */
static void components(const hdg_problem *p, double *tc, double *ec, double *pc)
{
    *tc = *ec = *pc = 0;
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        if (x->trace) *tc += x->ncomp;
        else if (x->post) *pc += x->ncomp;
        else *ec += x->ncomp;
    }
}

static double hdg_bytes(const hdg_problem *p, const hdg_run_options *o, const hdg_mesh_size *s)
{
    double k = p->degree, D = sizeof(double), tc, ec, pc;
    components(p, &tc, &ec, &pc);
    double nk = k + 1, np = (k + 1) * (k + 2) / 2, npp = (k + 2) * (k + 3) / 2;
    double m = tc * nk, nt = 3 * m, n = s->nf * m;
    /* the solver is chosen after assembly (cg when symmetric): count GMRES's
     * restart + 6 vectors only when --solver gmres is asked for, so a run that
     * fits with CG is never refused here; a GMRES chosen later checks its own
     * workspace before allocating it (krylov.c) */
    int cg = !(o->solver && !strcmp(o->solver, "gmres"));
    double restart = o->restart > 0 ? o->restart : 100;
    double vectors = cg ? 8 : (restart < n ? restart : n) + 6;
    double csr = o->format && !strcmp(o->format, "csr") ? 5 * m * m * (D + sizeof(int)) * s->nf : 0;
    /* --solver petsc: its BAIJ copy, the AIJ one for GAMG, GAMG's levels and its
     * libraries (measured: +138 MB at square:128, k = 3, with 31 MB of blocks) */
    double petsc = o->solver && !strcmp(o->solver, "petsc") ? 3 * 5 * m * m * D * s->nf + 48e6 : 0;
    /* --precond mg (the default from 10000 unknowns): 4 more vectors, P and P^T (2 entries per
     * row of the first two modes), the coarse matrix (~7 per row on nf/3 vertices) and
     * BoomerAMG's hierarchy (~4x it), PETSc's libraries */
    int mg = o->precond ? !strcmp(o->precond, "mg") : n >= 10000 && !(o->solver && !strcmp(o->solver, "petsc"));
    double nc = tc * s->nf / 3;
    double mgb = mg ? 4 * n * D + 2 * 4 * tc * s->nf * (D + sizeof(int)) + 5 * 7 * nc * (D + sizeof(int)) + 48e6 : 0;
    /* transient (run_hdg_time.c): the matrix kept from before the elimination (one sigma at
     * a time), the history, 7 element states, the errors in time */
    double transient = p->transient ? s->nf * D * 5 * m * m + s->ne * D * (8 * ec * np + 64) : 0;
    return s->ne * D * (nt * nt + 2 * nt + ec * np + pc * npp + 32)   /* K_e, F_e, u_h, x_e, x_post, geometry */
           + s->nf * D * (6 * m * m + 3 * m)                         /* blocks (5 per face), block Jacobi; rhs, x, x_D */
           + csr + petsc + mgb + vectors * n * D                      /* Krylov vectors */
           + transient;
}

static double dg_bytes(const hdg_problem *p, const hdg_mesh_size *s)
{
    double k = p->degree, D = sizeof(double), tc, ec, pc;
    components(p, &tc, &ec, &pc);
    double np = (k + 1) * (k + 2) / 2, nfp = k + 1;
    /* U, U2, residual, stage work, errors and output lattice: ~8 states */
    return s->ne * (8 * ec * np * D + 32 * D + 3 * nfp * sizeof(int) * 2);
}

double hdg_run_memory_bytes(const hdg_problem *p, const hdg_run_options *o, const hdg_mesh_size *s, int built)
{
    double mesh = hdg_mesh_kept_bytes(s) + hdg_geom_bytes(s->dim, s->ne);
    double run = p->method == HDG_METHOD_HDG ? hdg_bytes(p, o, s) : dg_bytes(p, s);
    double peak = mesh + run, build = hdg_mesh_build_bytes(s);
    return !built && build > peak ? build : peak;
}

hdg_status hdg_run_memory_check(const hdg_problem *p, const hdg_run_options *o, const hdg_mesh_size *s,
                                int built, hdg_error *err)
{
    char what[512];
    snprintf(what, sizeof what, "%s (order %d) on %.300s", p->name, p->degree, o->mesh ? o->mesh : "square:8");
    return hdg_memory_check(what, hdg_run_memory_bytes(p, o, s, built), err);
}
