/* petsc_dist.c — the distributed trace solver of hdg_petsc_dist_*
 * (runtime/petsc/petsc.h), under mpirun: the pieces' matrices summed into one MPIAIJ matrix,
 * solved by CG/GMRES with the two-level PCMG (or PETSc's options' PC), the
 * solution scattered back to every face of each piece. Built into the module
 * libhdgc_petsc.so with petsc.c and petsc_mpi.c; calls nothing of libhdgc. */
#include "runtime/petsc/petsc.h"
#include "runtime/petsc/petsc_module.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The blocks of each owned face row (diagonal part: columns owned here; off-diagonal: the
 * others'), counted on the piece; a row with fewer than na blocks here (a face on the
 * partition, whose other side's blocks come from the neighbouring rank, or on the boundary)
 * gets the missing ones in both parts. An exact bound for every dimension (na: 5 blocks a
 * row on triangles, 7 on tetrahedra): a fixed 5 made PETSc reallocate the rows of 3D
 * matrices insertion by insertion (minutes of set-up under mpirun on cube:16). */
static PetscErrorCode dist_preallocate(const hdg_blockmat *B, const hdg_petsc_dist *d, Mat A)
{
    int na = B->na, no = d->nf_owned;
    PetscInt *dn = NULL, *on = NULL;
    PetscErrorCode ierr = PetscCalloc2(no + 1, &dn, no + 1, &on);
    for (int l = 0; l < B->nf && !ierr; l++) {
        long long r = d->fgid[l] - d->fstart;
        if (r < 0 || r >= no) continue;
        int nd = 0, nofd = 0;
        for (int a = 0; a < na; a++) {
            int c = B->nbr[(size_t)l * na + a];
            if (c < 0) continue;
            long long g = d->fgid[c] - d->fstart;
            if (g >= 0 && g < no) nd++;
            else nofd++;
        }
        int miss = na - nd - nofd;
        dn[r] = nd + miss < no ? nd + miss : no;
        on[r] = nofd + miss;
    }
    if (!ierr) ierr = MatXAIJSetPreallocation(A, B->m, dn, on, NULL, NULL);
    PetscFree2(dn, on);
    return ierr;
}

/* The pieces' rows summed into one MPIAIJ matrix of block size m (at most
 * na blocks a row: a face couples with the faces of its one or two elements). */
static PetscErrorCode dist_matrix(const hdg_blockmat *B, const hdg_petsc_dist *d, Mat *A)
{
    int m = B->m, na = B->na;
    PetscInt nloc = (PetscInt)d->nf_owned * m, nglob = (PetscInt)d->nf_global * m;
    PetscErrorCode ierr = MatCreate(PETSC_COMM_WORLD, A);
    if (!ierr) ierr = MatSetSizes(*A, nloc, nloc, nglob, nglob);
    if (!ierr) ierr = MatSetBlockSize(*A, m);
    if (!ierr) ierr = MatSetType(*A, MATAIJ);
    if (!ierr) ierr = MatSetFromOptions(*A);
    if (!ierr) ierr = dist_preallocate(B, d, *A);
    if (!ierr) ierr = MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE);
    for (int l = 0; l < B->nf && !ierr; l++)
        for (int a = 0; a < na && !ierr; a++) {
            int c = B->nbr[(size_t)l * na + a];
            if (c < 0) continue;
            PetscInt row = (PetscInt)d->fgid[l], col = (PetscInt)d->fgid[c];
            ierr = MatSetValuesBlocked(*A, 1, &row, 1, &col, hdg_blockmat_block(B, l, a), ADD_VALUES);
        }
    if (!ierr) ierr = MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY);
    if (!ierr) ierr = MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY);
    return ierr;
}

/* The right-hand side likewise (pieces summed), into vb. */
static PetscErrorCode dist_rhs(const hdg_petsc_dist *d, int nf, int m, const double *b, Vec vb)
{
    PetscErrorCode ierr = VecZeroEntries(vb);
    for (int l = 0; l < nf && !ierr; l++) {
        PetscInt row = (PetscInt)d->fgid[l];
        ierr = VecSetValuesBlocked(vb, 1, &row, b + (size_t)l * m, ADD_VALUES);
    }
    if (!ierr) ierr = VecAssemblyBegin(vb);
    if (!ierr) ierr = VecAssemblyEnd(vb);
    return ierr;
}

/* x on the owned faces into vx; after the solve, vx on every face of the piece into x. */
static PetscErrorCode dist_guess(const hdg_petsc_dist *d, int nf, int m, const double *x, Vec vx)
{
    PetscErrorCode ierr = 0;
    for (int l = 0; l < nf && !ierr; l++) {
        PetscInt row = (PetscInt)d->fgid[l];
        if (row >= d->fstart && row < d->fstart + d->nf_owned)
            ierr = VecSetValuesBlocked(vx, 1, &row, x + (size_t)l * m, INSERT_VALUES);
    }
    if (!ierr) ierr = VecAssemblyBegin(vx);
    if (!ierr) ierr = VecAssemblyEnd(vx);
    return ierr;
}

/* The scatter of the global solution to every face of the piece. */
static PetscErrorCode dist_scatter(const hdg_petsc_dist *d, int nf, int m, Vec vx, Vec loc, VecScatter *sc)
{
    PetscInt *idx;
    IS from = NULL;
    PetscErrorCode ierr = PetscMalloc1(nf + 1, &idx);
    for (int l = 0; l < nf && !ierr; l++) idx[l] = (PetscInt)d->fgid[l];
    if (!ierr) ierr = ISCreateBlock(PETSC_COMM_SELF, m, nf, idx, PETSC_OWN_POINTER, &from);
    if (!ierr) ierr = VecScatterCreate(vx, from, loc, NULL, sc);
    ISDestroy(&from);
    return ierr;
}

/* A PETSc call failed on this rank inside the collective solve (out of
 * memory, most likely): the other ranks cannot be told in order, so the
 * job ends here, with the message on the error stream the command kept
 * ($HDGC_ERROR_FD, else stderr). Nothing to do on one rank. */
static void dist_abort(const char *msg)
{
    int size = 1, rank = 0;
    MPI_Comm_size(PETSC_COMM_WORLD, &size);
    if (size == 1) return;
    MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
    const char *env = getenv("HDGC_ERROR_FD");
    char line[2300], *end = NULL;
    long fd = env ? strtol(env, &end, 10) : 2;
    if (!env || end == env || *end || fd < 0 || fd > 1 << 20) fd = 2;   /* not a descriptor: stderr */
    int n = snprintf(line, sizeof line, "hdgc: rank %d: error: %s (ending the job)\n", rank, msg);
    if (write((int)fd, line, n > 0 && n < (int)sizeof line ? (size_t)n : strlen(line)) < 0) n = 0;
    MPI_Abort(PETSC_COMM_WORLD, 1);
}

/* The null space of the summed matrix: nz vectors z (each given on every face of the piece). */
static PetscErrorCode dist_null_space(const hdg_petsc_dist *d, int nf, int m, const double *z, int nz, Mat A,
                                      Vec like)
{
    Vec v[HDG_PETSC_MAX_NULL] = {0};
    MatNullSpace ns;
    PetscErrorCode ierr = nz < 1 || nz > HDG_PETSC_MAX_NULL ? PETSC_ERR_ARG_OUTOFRANGE : 0;
    for (int j = 0; j < nz && !ierr; j++) {
        ierr = VecDuplicate(like, &v[j]);
        if (!ierr) ierr = dist_guess(d, nf, m, z + (size_t)j * (size_t)nf * (size_t)m, v[j]);
    }
    if (!ierr) ierr = hdg_pm_orthonormal(v, nz);
    if (!ierr) ierr = MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_FALSE, nz, v, &ns);
    if (!ierr) ierr = MatSetNullSpace(A, ns);
    if (!ierr) ierr = MatNullSpaceDestroy(&ns);
    for (int j = 0; j < nz; j++) VecDestroy(&v[j]);
    return ierr;
}

/* ---------------------------------------------------------------- PCMG */

/* Which coarse unknowns (global vertex x component) touch a fixed face on
 * some rank: vf[i] > 0, summed over the ranks, read back for the piece's
 * vertices into fixedv (nv * ncomp). */
static PetscErrorCode dist_fixed_vertices(const hdg_petsc_dist_mg *g, int nf, int ncomp, unsigned char *fixedv)
{
    Vec vf = NULL, loc = NULL;
    VecScatter sc = NULL;
    IS from = NULL;
    PetscInt *idx = NULL;
    double *vals = NULL;
    PetscErrorCode ierr = VecCreateMPI(PETSC_COMM_WORLD, (PetscInt)g->nv_owned * ncomp,
                                       (PetscInt)g->nv_global * ncomp, &vf);
    for (int l = 0; l < nf && !ierr; l++)
        for (int c = 0; c < ncomp && !ierr; c++)
            if (g->fixed[(size_t)l * ncomp + c])
                for (int k = 0; k < g->nvf && !ierr; k++) {
                    PetscInt i = (PetscInt)(g->vgid[g->fv[(size_t)g->nvf * l + k]] * ncomp + c);
                    ierr = VecSetValue(vf, i, 1.0, ADD_VALUES);
                }
    if (!ierr) ierr = VecAssemblyBegin(vf);
    if (!ierr) ierr = VecAssemblyEnd(vf);
    if (!ierr) ierr = PetscMalloc1((size_t)g->nv * ncomp + 1, &idx);
    for (int v = 0; v < g->nv && !ierr; v++)
        for (int c = 0; c < ncomp; c++) idx[(size_t)v * ncomp + c] = (PetscInt)(g->vgid[v] * ncomp + c);
    if (!ierr) ierr = ISCreateGeneral(PETSC_COMM_SELF, (PetscInt)g->nv * ncomp, idx, PETSC_OWN_POINTER, &from);
    if (!ierr) ierr = (vals = malloc(sizeof(double) * ((size_t)g->nv * ncomp + 1))) ? 0 : PETSC_ERR_MEM;
    if (!ierr) ierr = VecCreateSeqWithArray(PETSC_COMM_SELF, 1, (PetscInt)g->nv * ncomp, vals, &loc);
    if (!ierr) ierr = VecScatterCreate(vf, from, loc, NULL, &sc);
    if (!ierr) ierr = VecScatterBegin(sc, vf, loc, INSERT_VALUES, SCATTER_FORWARD);
    if (!ierr) ierr = VecScatterEnd(sc, vf, loc, INSERT_VALUES, SCATTER_FORWARD);
    for (size_t i = 0; !ierr && i < (size_t)g->nv * ncomp; i++) fixedv[i] = vals[i] > 0;
    VecScatterDestroy(&sc);
    VecDestroy(&loc);
    VecDestroy(&vf);
    ISDestroy(&from);
    free(vals);
    return ierr;
}

/* P: the rows of the owned faces (trace dofs) against the coarse unknowns. */
static PetscErrorCode dist_prolongation(const hdg_petsc_dist *d, const hdg_petsc_dist_mg *g, int nf, int m,
                                        const unsigned char *fixedv, Mat *P)
{
    int nk = g->nk, ncomp = m / nk;
    PetscErrorCode ierr = MatCreateAIJ(PETSC_COMM_WORLD, (PetscInt)d->nf_owned * m, (PetscInt)g->nv_owned * ncomp,
                                       (PetscInt)d->nf_global * m, (PetscInt)g->nv_global * ncomp, g->nvf, NULL,
                                       g->nvf, NULL, P);
    for (int l = 0; l < nf && !ierr; l++) {
        if (d->fgid[l] < d->fstart || d->fgid[l] >= d->fstart + d->nf_owned) continue;
        for (int c = 0; c < ncomp && !ierr; c++) {
            if (g->fixed[(size_t)l * ncomp + c]) continue;
            for (int i = 0; i < nk && !ierr; i++) {
                PetscInt row = (PetscInt)(d->fgid[l] * m + c * nk + i);
                for (int k = 0; k < g->nvf && !ierr; k++) {
                    int v = g->fv[(size_t)g->nvf * l + k];
                    double w = g->H[k * nk + i];
                    if (w == 0 || fixedv[(size_t)v * ncomp + c]) continue;
                    PetscInt col = (PetscInt)(g->vgid[v] * ncomp + c);
                    ierr = MatSetValue(*P, row, col, w, INSERT_VALUES);
                }
            }
        }
    }
    if (!ierr) ierr = MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY);
    if (!ierr) ierr = MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY);
    return ierr;
}

/* Ac = P^T A P, its vanishing diagonals (the fixed vertices' unknowns, and any
 * the Galerkin product leaves empty) pinned to 1. */
static PetscErrorCode dist_coarse(Mat A, Mat P, Mat *Ac)
{
    Vec dg = NULL;
    PetscInt lo, hi, n = 0, *rows = NULL;
    const PetscScalar *p;
    PetscReal dmax = 0;
    PetscErrorCode ierr = MatPtAP(A, P, MAT_INITIAL_MATRIX, 2.0, Ac);
    if (!ierr) ierr = MatCreateVecs(*Ac, &dg, NULL);
    if (!ierr) ierr = MatGetDiagonal(*Ac, dg);
    if (!ierr) ierr = VecMax(dg, NULL, &dmax);
    if (!ierr) ierr = VecGetOwnershipRange(dg, &lo, &hi);
    if (!ierr) ierr = PetscMalloc1(hi - lo + 1, &rows);
    if (!ierr) ierr = VecGetArrayRead(dg, &p);
    if (!ierr) {
        for (PetscInt i = lo; i < hi; i++)
            if (!(PetscRealPart(p[i - lo]) > 1e-12 * dmax)) rows[n++] = i;
        ierr = VecRestoreArrayRead(dg, &p);
    }
    /* an empty row has no diagonal entry to set: made first */
    if (!ierr) ierr = MatSetOption(*Ac, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE);
    for (PetscInt k = 0; k < n && !ierr; k++) ierr = MatSetValue(*Ac, rows[k], rows[k], 0.0, ADD_VALUES);
    if (!ierr) ierr = MatAssemblyBegin(*Ac, MAT_FINAL_ASSEMBLY);
    if (!ierr) ierr = MatAssemblyEnd(*Ac, MAT_FINAL_ASSEMBLY);
    if (!ierr) ierr = MatSetOption(*Ac, MAT_NO_OFF_PROC_ZERO_ROWS, PETSC_TRUE);
    if (!ierr) ierr = MatZeroRowsColumns(*Ac, n, rows, 1.0, NULL, NULL);
    PetscFree(rows);
    VecDestroy(&dg);
    return ierr;
}

/* PCMG of two levels on ksp's PC: the smoother (Chebyshev on point-block
 * Jacobi, 2 steps, eigenvalues estimated in [0.275, 1.1] x the largest, as
 * runtime/solve/mg.c), the interpolation P and the coarse solve (preonly +
 * BoomerAMG, GAMG without hypre) of Ac. */
static PetscErrorCode dist_pcmg(KSP ksp, Mat P, Mat Ac)
{
    PC pc, cpc, spc;
    KSP coarse, smooth;
    PetscErrorCode ierr = KSPGetPC(ksp, &pc);
    if (!ierr) ierr = PCSetType(pc, PCMG);
    if (!ierr) ierr = PCMGSetLevels(pc, 2, NULL);
    if (!ierr) ierr = PCMGSetType(pc, PC_MG_MULTIPLICATIVE);
    if (!ierr) ierr = PCMGSetGalerkin(pc, PC_MG_GALERKIN_NONE);
    if (!ierr) ierr = PCMGSetInterpolation(pc, 1, P);
    if (!ierr) ierr = PCMGGetCoarseSolve(pc, &coarse);
    if (!ierr) ierr = KSPSetOperators(coarse, Ac, Ac);
    if (!ierr) ierr = KSPSetType(coarse, KSPPREONLY);
    if (!ierr) ierr = KSPGetPC(coarse, &cpc);
    if (!ierr && PCSetType(cpc, PCHYPRE)) ierr = PCSetType(cpc, PCGAMG);
    if (!ierr) ierr = PCMGGetSmoother(pc, 1, &smooth);
    if (!ierr) ierr = KSPSetType(smooth, KSPCHEBYSHEV);
    if (!ierr) ierr = KSPChebyshevEstEigSet(smooth, 0, 0.275, 0, 1.1);
    if (!ierr) ierr = KSPSetTolerances(smooth, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, 2);
    if (!ierr) ierr = KSPGetPC(smooth, &spc);
    if (!ierr) ierr = PCSetType(spc, PCPBJACOBI);
    return ierr;
}

struct hdg_petsc_dsolver {
    hdg_petsc_dist d;
    int nf, m;
    Mat A, P, Ac;
    KSP ksp;
    Vec vb, vx, loc;
    double *xloc;
    VecScatter sc;
};

void hdg_petsc_module_dist_free(hdg_petsc_dsolver *h)
{
    if (!h) return;
    VecScatterDestroy(&h->sc);
    VecDestroy(&h->loc);
    VecDestroy(&h->vb);
    VecDestroy(&h->vx);
    KSPDestroy(&h->ksp);
    MatDestroy(&h->A);
    MatDestroy(&h->P);
    MatDestroy(&h->Ac);
    free(h->xloc);
    free(h);
}

/* The KSP of the distributed matrix with the two-level PCMG (hdg_petsc_dist_mg):
 * CG or GMRES as petsc_ksp's, then the options (a -pc_type replaces PCMG). */
static PetscErrorCode dist_mg(hdg_petsc_dsolver *h, const hdg_petsc_dist *d, int nf, int m, const hdg_petsc_opts *o)
{
    const hdg_petsc_dist_mg *g = d->mg;
    int ncomp = m / g->nk;
    unsigned char *fixedv = malloc((size_t)g->nv * ncomp + 1);
    PetscErrorCode ierr = fixedv ? 0 : PETSC_ERR_MEM;
    if (!ierr) ierr = dist_fixed_vertices(g, nf, ncomp, fixedv);
    if (!ierr) ierr = dist_prolongation(d, g, nf, m, fixedv, &h->P);
    free(fixedv);
    if (!ierr) ierr = dist_coarse(h->A, h->P, &h->Ac);
    if (!ierr) ierr = hdg_pm_ksp_begin(h->ksp, h->A, o);
    if (!ierr) ierr = dist_pcmg(h->ksp, h->P, h->Ac);
    if (!ierr) ierr = hdg_pm_ksp_options(h->ksp, o);
    if (!ierr) ierr = hdg_pm_ksp_norms(h->ksp);
    if (!ierr) ierr = KSPSetUp(h->ksp);
    return ierr;
}

hdg_status hdg_petsc_module_dist_create(const hdg_blockmat *B, const hdg_petsc_dist *d, const hdg_petsc_opts *o,
                                        hdg_petsc_dsolver **out, hdg_petsc_info *info, hdg_error *err)
{
    *out = NULL;
    hdg_status st = hdg_pm_start_timed(info, err);
    if (st) return st;
    PetscOptions db = NULL;
    PetscErrorCode ierr = hdg_pm_options_push(o->options, &db);
    if (ierr) return hdg_pm_petsc_fail(ierr, HDG_EINPUT, "--petsc options", err);
    hdg_petsc_dsolver *h = calloc(1, sizeof *h);
    const char *what = "matrix";
    ierr = h ? 0 : PETSC_ERR_MEM;
    if (!ierr) h->d = *d, h->nf = B->nf, h->m = B->m, ierr = dist_matrix(B, d, &h->A);
    if (!ierr) ierr = MatCreateVecs(h->A, &h->vx, &h->vb);
    if (!ierr) ierr = (h->xloc = malloc(sizeof(double) * ((size_t)B->nf * B->m + 1))) ? 0 : PETSC_ERR_MEM;
    if (!ierr) ierr = VecCreateSeqWithArray(PETSC_COMM_SELF, 1, (PetscInt)B->nf * B->m, h->xloc, &h->loc);
    if (!ierr) ierr = dist_scatter(d, B->nf, B->m, h->vx, h->loc, &h->sc);
    if (!ierr && o->z) ierr = dist_null_space(d, B->nf, B->m, o->z, o->nz > 0 ? o->nz : 1, h->A, h->vx);
    if (!ierr) what = "solver set-up", ierr = KSPCreate(PETSC_COMM_WORLD, &h->ksp);
    if (!ierr) ierr = KSPSetInitialGuessNonzero(h->ksp, PETSC_TRUE);
    if (!ierr && d->mg) what = "multigrid set-up", ierr = dist_mg(h, d, B->nf, B->m, o);
    else if (!ierr) ierr = hdg_pm_ksp(h->ksp, h->A, o);
    if (ierr) {
        st = hdg_pm_petsc_fail(ierr, HDG_EINPUT, what, err);
        dist_abort(err->msg);   /* several ranks: the others may wait in a collective */
    }
    if (!st) st = hdg_pm_unused_options(db, o->options, err);
    PetscOptionsPop();
    PetscOptionsDestroy(&db);
    if (st) hdg_petsc_module_dist_free(h);
    else *out = h;
    return st;
}

hdg_status hdg_petsc_module_dist_apply(hdg_petsc_dsolver *h, const double *b, double *x, hdg_petsc_info *info,
                                       hdg_error *err)
{
    memset(info, 0, sizeof *info);
    const char *what = "right-hand side";
    PetscErrorCode ierr = dist_rhs(&h->d, h->nf, h->m, b, h->vb);
    if (!ierr) ierr = dist_guess(&h->d, h->nf, h->m, x, h->vx);
    if (!ierr) what = "solve", ierr = KSPSolve(h->ksp, h->vb, h->vx);
    if (!ierr) ierr = hdg_pm_info(h->ksp, h->A, h->vb, h->vx, info);
    if (!ierr) what = "ghost values", ierr = VecScatterBegin(h->sc, h->vx, h->loc, INSERT_VALUES, SCATTER_FORWARD);
    if (!ierr) ierr = VecScatterEnd(h->sc, h->vx, h->loc, INSERT_VALUES, SCATTER_FORWARD);
    if (ierr) {
        hdg_status st = hdg_pm_petsc_fail(ierr, HDG_ESOLVER, what, err);
        dist_abort(err->msg);
        return st;
    }
    memcpy(x, h->xloc, sizeof(double) * (size_t)h->nf * h->m);
    if (!info->converged) return hdg_pm_not_converged(info, err);
    return HDG_OK;
}
