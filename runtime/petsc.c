/* petsc.c — the trace system solved by PETSc (runtime/petsc.h). The only
 * file that includes petsc.h; built alone as the module libhdgc_petsc.so
 * (linked with PETSc and MPI, loaded by runtime/petsc_load.c on the first
 * --solver petsc), so it calls nothing of libhdgc. */
#include "runtime/petsc.h"

#include <petscksp.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* hdg_fail of the library, which the module does not link. */
static hdg_status pfail(hdg_error *err, hdg_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static hdg_status pfail(hdg_error *err, hdg_status code, const char *fmt, ...)
{
    if (!err) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->code = code;
    return code;
}

static int started;

static void petsc_stop(void)
{
    if (started == 1) PetscFinalize();
    started = 0;
}

/* PETSc's message for error code ierr: the first (innermost) error's text. */
static hdg_status petsc_fail(PetscErrorCode ierr, hdg_status st, const char *what, hdg_error *err)
{
    if (!err) return st;
    const char *text = NULL;
    char *specific = NULL;
    PetscErrorMessage((int)ierr, &text, &specific);
    const char *msg = specific && *specific ? specific : text ? text : "unknown error";
    char one[512];
    snprintf(one, sizeof one, "%s", msg);
    for (char *c = one; *c; c++)
        if (*c == '\n') *c = ' ';
    return pfail(err, st, "PETSc: %s: %s (error %d)", what, one, (int)ierr);
}

/* Once per process: MPI (singleton without mpirun) and PETSc, with
 * PETSC_OPTIONS read, PETSc's signal handler off, errors returned, not printed. */
static hdg_status petsc_start(hdg_error *err)
{
    if (started) return HDG_OK;
    PetscBool up = PETSC_FALSE;
    if (!PetscInitialized(&up) && up) return started = 2, HDG_OK;   /* not ours to finalise */
    static char a0[] = "hdgc", a1[] = "-no_signal_handler";
    static char *args[] = {a0, a1, NULL};
    char **argv = args;
    int argc = 2;
    PetscErrorCode ierr = PetscInitialize(&argc, &argv, NULL, NULL);
    if (ierr) return pfail(err, HDG_EINTERNAL, "PETSc: initialisation failed (error %d)", (int)ierr);
    started = 1;
    atexit(petsc_stop);
    PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
    return HDG_OK;
}

/* petsc_start with info cleared, its init_seconds the module load (from
 * petsc_load.c, in info on entry) plus the start, on the first call only. */
static hdg_status petsc_start_timed(hdg_petsc_info *info, hdg_error *err)
{
    double load = info->init_seconds;
    memset(info, 0, sizeof *info);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int first = !started;
    hdg_status st = petsc_start(err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (first) info->init_seconds = load + (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return st;
}

/* MATSEQBAIJ of block size m with B's blocks (padding skipped). */
static PetscErrorCode petsc_matrix(const hdg_blockmat *B, Mat *A)
{
    int m = B->m, na = B->na;
    PetscInt *nnz = malloc(sizeof(PetscInt) * (size_t)(B->nf > 0 ? B->nf : 1));
    if (!nnz) return PETSC_ERR_MEM;
    for (int l = 0; l < B->nf; l++) {
        nnz[l] = 0;
        for (int a = 0; a < na; a++) nnz[l] += B->nbr[(size_t)l * na + a] >= 0;
    }
    PetscErrorCode ierr = MatCreate(PETSC_COMM_SELF, A);
    if (!ierr) ierr = MatSetSizes(*A, (PetscInt)B->nf * m, (PetscInt)B->nf * m, PETSC_DETERMINE, PETSC_DETERMINE);
    if (!ierr) ierr = MatSetBlockSize(*A, m);
    if (!ierr) ierr = MatSetType(*A, MATSEQBAIJ);
    if (!ierr) ierr = MatSetFromOptions(*A);   /* -mat_type aij, ... */
    if (!ierr) ierr = MatXAIJSetPreallocation(*A, m, nnz, NULL, NULL, NULL);
    free(nnz);
    for (int l = 0; l < B->nf && !ierr; l++)
        for (int a = 0; a < na && !ierr; a++) {
            PetscInt row = l, col = B->nbr[(size_t)l * na + a];
            if (col >= 0) ierr = MatSetValuesBlocked(*A, 1, &row, 1, &col, hdg_blockmat_block(B, l, a), INSERT_VALUES);
        }
    if (!ierr) ierr = MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY);
    if (!ierr) ierr = MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY);
    return ierr;
}

/* The constant null space spanned by z (normalised copy). */
static PetscErrorCode petsc_null_space(Mat A, Vec like, const double *z)
{
    Vec v;
    MatNullSpace ns;
    PetscInt n;
    PetscScalar *p;
    PetscErrorCode ierr = VecDuplicate(like, &v);
    if (ierr) return ierr;
    ierr = VecGetLocalSize(v, &n);
    if (!ierr) ierr = VecGetArray(v, &p);
    if (!ierr) {
        memcpy(p, z, sizeof(double) * (size_t)n);
        ierr = VecRestoreArray(v, &p);
    }
    if (!ierr) ierr = VecNormalize(v, NULL);
    if (!ierr) ierr = MatNullSpaceCreate(PETSC_COMM_SELF, PETSC_FALSE, 1, &v, &ns);
    if (!ierr) ierr = MatSetNullSpace(A, ns);
    if (!ierr) ierr = MatNullSpaceDestroy(&ns);
    VecDestroy(&v);
    return ierr;
}

static int has_option(const char *name)
{
    PetscBool set = PETSC_FALSE;
    PetscOptionsHasName(NULL, NULL, name, &set);
    return set == PETSC_TRUE;
}

static int pc_is(PC pc, const char *type)
{
    PCType pt = NULL;
    return !PCGetType(pc, &pt) && pt && !strcmp(pt, type);
}

/* PETSc 3.18's GAMG builds its graph from AIJ only: a BAIJ matrix is
 * converted (same block size) when the PC is gamg. */
static PetscErrorCode gamg_aij(KSP ksp, PC pc, Mat A)
{
    PetscBool baij = PETSC_FALSE;
    PetscErrorCode ierr = PetscObjectTypeCompare((PetscObject)A, MATSEQBAIJ, &baij);
    if (ierr || !pc_is(pc, PCGAMG) || !baij) return ierr;
    ierr = MatConvert(A, MATSEQAIJ, MAT_INPLACE_MATRIX, &A);
    if (!ierr) ierr = KSPSetOperators(ksp, A, A);
    return ierr;
}

/* Defaults, then the options. The residual is the true one, like the native
 * solvers': CG tests the unpreconditioned norm, GMRES preconditions on the
 * right, unless the options name a norm or a side. */
static PetscErrorCode petsc_ksp(KSP ksp, Mat A, const hdg_petsc_opts *o)
{
    PC pc;
    KSPType kt;
    PetscErrorCode ierr = KSPSetOperators(ksp, A, A);
    if (!ierr) ierr = KSPSetType(ksp, o->symmetric ? KSPCG : KSPGMRES);
    if (!ierr && !o->symmetric && o->restart > 0) ierr = KSPGMRESSetRestart(ksp, o->restart);
    if (!ierr) ierr = KSPGetPC(ksp, &pc);
    if (!ierr) ierr = PCSetType(pc, PCGAMG);
    if (!ierr) ierr = KSPSetTolerances(ksp, o->rtol, PETSC_DEFAULT, PETSC_DEFAULT, o->maxit);
    if (!ierr) ierr = KSPSetFromOptions(ksp);
    if (!ierr) ierr = KSPGetType(ksp, &kt);
    if (!ierr) ierr = gamg_aij(ksp, pc, A);
    if (ierr) return ierr;
    if (!strcmp(kt, KSPCG) && !has_option("-ksp_norm_type")) ierr = KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED);
    if (!strcmp(kt, KSPGMRES) && !has_option("-ksp_pc_side")) ierr = KSPSetPCSide(ksp, PC_RIGHT);
    if (ierr) return ierr;
    /* singular (a null space): GAMG's default coarse LU meets a zero pivot */
    int svd = o->z && pc_is(pc, PCGAMG) && !has_option("-mg_coarse_pc_type");
    if (svd) ierr = PetscOptionsSetValue(NULL, "-mg_coarse_pc_type", "svd");
    if (!ierr) ierr = KSPSetUp(ksp);
    if (svd) PetscOptionsClearValue(NULL, "-mg_coarse_pc_type");
    return ierr;
}

/* info: types, iterations, reason, true relative residual. */
static PetscErrorCode petsc_info(KSP ksp, Mat A, Vec b, Vec x, hdg_petsc_info *info)
{
    KSPType kt;
    PCType pt;
    PC pc;
    KSPConvergedReason reason;
    PetscInt its;
    Vec r;
    PetscReal rn, bn;
    PetscErrorCode ierr = KSPGetType(ksp, &kt);
    if (!ierr) ierr = KSPGetPC(ksp, &pc);
    if (!ierr) ierr = PCGetType(pc, &pt);
    if (!ierr) ierr = KSPGetIterationNumber(ksp, &its);
    if (!ierr) ierr = KSPGetConvergedReason(ksp, &reason);
    if (!ierr) ierr = VecDuplicate(b, &r);
    if (ierr) return ierr;
    ierr = MatMult(A, x, r);
    if (!ierr) ierr = VecAYPX(r, -1.0, b);
    if (!ierr) ierr = VecNorm(r, NORM_2, &rn);
    if (!ierr) ierr = VecNorm(b, NORM_2, &bn);
    VecDestroy(&r);
    snprintf(info->ksp_type, sizeof info->ksp_type, "%s", kt);
    snprintf(info->pc_type, sizeof info->pc_type, "%s", pt);
    snprintf(info->reason, sizeof info->reason, "%s", KSPConvergedReasons[reason]);
    info->iterations = (int)its;
    info->converged = reason > 0;
    info->residual = ierr ? -1 : bn > 0 ? rn / bn : rn;
    return ierr;
}

/* The options of one solve: PETSC_OPTIONS (and PETSc's option files), then
 * the string, in a database of their own pushed as the default, so that no
 * solve's options outlive it. */
static PetscErrorCode options_push(const char *user, PetscOptions *db)
{
    PetscErrorCode ierr = PetscOptionsCreate(db);
    if (!ierr) ierr = PetscOptionsInsert(*db, NULL, NULL, NULL);
    if (!ierr && user) ierr = PetscOptionsInsertString(*db, user);
    if (!ierr) ierr = PetscOptionsPush(*db);
    if (ierr) PetscOptionsDestroy(db);
    return ierr;
}

/* An option of the string that the solve did not use (misspelt) is refused. */
static hdg_status unused_options(PetscOptions db, const char *user, hdg_error *err)
{
    PetscOptions mine = NULL;
    PetscInt n = 0;
    char **names = NULL, **values = NULL, dash[256];
    hdg_status st = HDG_OK;
    if (!user || PetscOptionsCreate(&mine)) return HDG_OK;
    if (!PetscOptionsInsertString(mine, user) && !PetscOptionsLeftGet(db, &n, &names, &values)) {
        for (PetscInt i = 0; i < n && !st; i++) {
            PetscBool given = PETSC_FALSE;
            snprintf(dash, sizeof dash, "-%s", names[i]);
            PetscOptionsHasName(mine, NULL, dash, &given);
            if (given)
                st = pfail(err, HDG_EINPUT, "--petsc: option %s was not used by the solve (misspelt? "
                              "PETSc lists its options with -help)", dash);
        }
        PetscOptionsLeftRestore(db, &n, &names, &values);
    }
    PetscOptionsDestroy(&mine);
    return st;
}

hdg_status hdg_petsc_module_solve(const hdg_blockmat *B, const double *b, double *x, const hdg_petsc_opts *o,
                                  hdg_petsc_info *info, hdg_error *err)
{
    hdg_status st = petsc_start_timed(info, err);
    if (st) return st;
    PetscOptions db = NULL;
    PetscErrorCode ierr = options_push(o->options, &db);
    if (ierr) return petsc_fail(ierr, HDG_EINPUT, "--petsc options", err);
    PetscInt n = (PetscInt)B->nf * B->m;
    Mat A = NULL;
    Vec vb = NULL, vx = NULL;
    KSP ksp = NULL;
    const char *what = "matrix";
    ierr = petsc_matrix(B, &A);
    if (!ierr) ierr = VecCreateSeqWithArray(PETSC_COMM_SELF, 1, n, b, &vb);
    if (!ierr) ierr = VecCreateSeqWithArray(PETSC_COMM_SELF, 1, n, x, &vx);
    if (!ierr && o->z) ierr = petsc_null_space(A, vb, o->z);
    if (!ierr) what = "solver set-up", ierr = KSPCreate(PETSC_COMM_SELF, &ksp);
    if (!ierr) ierr = petsc_ksp(ksp, A, o);
    if (!ierr) what = "solve", ierr = KSPSolve(ksp, vb, vx);
    if (!ierr) ierr = petsc_info(ksp, A, vb, vx, info);
    if (ierr) st = petsc_fail(ierr, !strcmp(what, "solve") ? HDG_ESOLVER : HDG_EINPUT, what, err);
    else if (!info->converged)
        st = pfail(err, HDG_ESOLVER, "PETSc KSP %s with PC %s did not converge: %s after %d iterations "
                      "(relative residual %.3g)", info->ksp_type, info->pc_type, info->reason, info->iterations,
                      info->residual);
    if (!st) st = unused_options(db, o->options, err);
    KSPDestroy(&ksp);
    VecDestroy(&vb);
    VecDestroy(&vx);
    MatDestroy(&A);
    PetscOptionsPop();
    PetscOptionsDestroy(&db);
    return st;
}

/* ---------------------------------------------------------------- coarse AMG */

struct hdg_petsc_amg {
    Mat A;
    KSP ksp;
    Vec x, y;
};

/* MATSEQAIJ with C's rows (PetscInt copies of the indices). */
static PetscErrorCode petsc_aij(const hdg_csr *C, Mat *A)
{
    PetscInt *ia = malloc(sizeof(PetscInt) * ((size_t)C->n + 1)), *ja = malloc(sizeof(PetscInt) * ((size_t)C->nnz + 1));
    PetscErrorCode ierr = ia && ja ? 0 : PETSC_ERR_MEM;
    for (int i = 0; i <= C->n && !ierr; i++) ia[i] = C->rowptr[i];
    for (int k = 0; k < C->nnz && !ierr; k++) ja[k] = C->col[k];
    if (!ierr) ierr = MatCreate(PETSC_COMM_SELF, A);
    if (!ierr) ierr = MatSetSizes(*A, C->n, C->ncol, C->n, C->ncol);
    if (!ierr) ierr = MatSetType(*A, MATSEQAIJ);
    if (!ierr) ierr = MatSeqAIJSetPreallocationCSR(*A, ia, ja, C->val);
    free(ia), free(ja);
    return ierr;
}

/* preonly + BoomerAMG (GAMG without hypre), then the options. */
static PetscErrorCode amg_ksp(struct hdg_petsc_amg *h)
{
    PC pc;
    PetscErrorCode ierr = KSPCreate(PETSC_COMM_SELF, &h->ksp);
    if (!ierr) ierr = KSPSetOperators(h->ksp, h->A, h->A);
    if (!ierr) ierr = KSPSetType(h->ksp, KSPPREONLY);
    if (!ierr) ierr = KSPGetPC(h->ksp, &pc);
    if (!ierr && PCSetType(pc, PCHYPRE)) ierr = PCSetType(pc, PCGAMG);
    if (!ierr) ierr = KSPSetFromOptions(h->ksp);
    if (!ierr) ierr = KSPSetUp(h->ksp);
    return ierr;
}

hdg_status hdg_petsc_module_amg_create(const hdg_csr *A, const char *options, hdg_petsc_amg **out,
                                       hdg_petsc_info *info, hdg_error *err)
{
    *out = NULL;
    hdg_status st = petsc_start_timed(info, err);
    if (st) return st;
    PetscOptions db = NULL;
    PetscErrorCode ierr = options_push(options, &db);
    if (ierr) return petsc_fail(ierr, HDG_EINPUT, "--petsc options", err);
    struct hdg_petsc_amg *h = calloc(1, sizeof *h);
    const char *what = "coarse matrix";
    ierr = h ? petsc_aij(A, &h->A) : PETSC_ERR_MEM;
    if (!ierr) ierr = MatCreateVecs(h->A, &h->x, &h->y);
    if (!ierr) what = "coarse solver set-up", ierr = amg_ksp(h);
    if (ierr) st = petsc_fail(ierr, HDG_EINPUT, what, err);
    if (!st) {
        KSPType kt;
        PCType pt;
        PC pc;
        KSPGetType(h->ksp, &kt);
        KSPGetPC(h->ksp, &pc);
        PCGetType(pc, &pt);
        snprintf(info->ksp_type, sizeof info->ksp_type, "%s", kt);
        snprintf(info->pc_type, sizeof info->pc_type, "%s", pt);
        st = unused_options(db, options, err);
    }
    PetscOptionsPop();
    PetscOptionsDestroy(&db);
    if (st) hdg_petsc_module_amg_free(h);
    else *out = h;
    return st;
}

int hdg_petsc_module_amg_apply(hdg_petsc_amg *h, const double *x, double *y)
{
    PetscErrorCode ierr = VecPlaceArray(h->x, (PetscScalar *)x);
    if (!ierr) ierr = VecPlaceArray(h->y, y);
    if (!ierr) ierr = KSPSolve(h->ksp, h->x, h->y);
    VecResetArray(h->x);
    VecResetArray(h->y);
    if (ierr) {
        PetscInt n = 0;
        MatGetLocalSize(h->A, &n, NULL);
        for (PetscInt i = 0; i < n; i++) y[i] = NAN;
    }
    return (int)ierr;
}

void hdg_petsc_module_amg_free(hdg_petsc_amg *h)
{
    if (!h) return;
    KSPDestroy(&h->ksp);
    VecDestroy(&h->x);
    VecDestroy(&h->y);
    MatDestroy(&h->A);
    free(h);
}

/* ---------------------------------------------------------------- mpirun */

hdg_status hdg_petsc_module_start(hdg_error *err) { return petsc_start(err); }

hdg_status hdg_petsc_module_fail(int ierr, hdg_status st, const char *what, hdg_error *err)
{
    return petsc_fail((PetscErrorCode)ierr, st, what, err);
}

/* The pieces' rows summed into one MPIAIJ matrix of block size m (at most
 * 5 blocks a row: a face couples with the faces of its one or two
 * elements). */
static PetscErrorCode dist_matrix(const hdg_blockmat *B, const hdg_petsc_dist *d, Mat *A)
{
    int m = B->m, na = B->na;
    PetscInt nloc = (PetscInt)d->nf_owned * m, nglob = (PetscInt)d->nf_global * m;
    PetscErrorCode ierr = MatCreate(PETSC_COMM_WORLD, A);
    if (!ierr) ierr = MatSetSizes(*A, nloc, nloc, nglob, nglob);
    if (!ierr) ierr = MatSetBlockSize(*A, m);
    if (!ierr) ierr = MatSetType(*A, MATAIJ);
    if (!ierr) ierr = MatSetFromOptions(*A);
    if (!ierr) ierr = MatSeqAIJSetPreallocation(*A, 5 * m, NULL);
    if (!ierr) ierr = MatMPIAIJSetPreallocation(*A, 5 * m, NULL, 4 * m, NULL);
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
    const char *fd = getenv("HDGC_ERROR_FD");
    char line[2300];
    int n = snprintf(line, sizeof line, "hdgc: rank %d: error: %s (ending the job)\n", rank, msg);
    if (write(fd ? atoi(fd) : 2, line, n > 0 && n < (int)sizeof line ? (size_t)n : strlen(line)) < 0) n = 0;
    MPI_Abort(PETSC_COMM_WORLD, 1);
}

/* The constant null space z (given on every face of the piece) of the summed matrix. */
static PetscErrorCode dist_null_space(const hdg_petsc_dist *d, int nf, int m, const double *z, Mat A, Vec like)
{
    Vec v = NULL;
    MatNullSpace ns;
    PetscErrorCode ierr = VecDuplicate(like, &v);
    if (!ierr) ierr = dist_guess(d, nf, m, z, v);
    if (!ierr) ierr = VecNormalize(v, NULL);
    if (!ierr) ierr = MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_FALSE, 1, &v, &ns);
    if (!ierr) ierr = MatSetNullSpace(A, ns);
    if (!ierr) ierr = MatNullSpaceDestroy(&ns);
    VecDestroy(&v);
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
                for (int k = 0; k < 2 && !ierr; k++) {
                    PetscInt i = (PetscInt)(g->vgid[g->fv[2 * l + k]] * ncomp + c);
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
                                       (PetscInt)d->nf_global * m, (PetscInt)g->nv_global * ncomp, 2, NULL, 2, NULL, P);
    for (int l = 0; l < nf && !ierr; l++) {
        if (d->fgid[l] < d->fstart || d->fgid[l] >= d->fstart + d->nf_owned) continue;
        for (int c = 0; c < ncomp && !ierr; c++) {
            if (g->fixed[(size_t)l * ncomp + c]) continue;
            for (int i = 0; i < 2 && i < nk && !ierr; i++) {
                PetscInt row = (PetscInt)(d->fgid[l] * m + c * nk + i);
                for (int k = 0; k < 2 && !ierr; k++) {
                    int v = g->fv[2 * l + k];
                    double w = k ? g->be[i] : g->al[i];
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
 * runtime/mg.c), the interpolation P and the coarse solve (preonly +
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
    KSPType kt;
    PetscErrorCode ierr = fixedv ? 0 : PETSC_ERR_MEM;
    if (!ierr) ierr = dist_fixed_vertices(g, nf, ncomp, fixedv);
    if (!ierr) ierr = dist_prolongation(d, g, nf, m, fixedv, &h->P);
    free(fixedv);
    if (!ierr) ierr = dist_coarse(h->A, h->P, &h->Ac);
    if (!ierr) ierr = KSPSetOperators(h->ksp, h->A, h->A);
    if (!ierr) ierr = KSPSetType(h->ksp, o->symmetric ? KSPCG : KSPGMRES);
    if (!ierr && !o->symmetric && o->restart > 0) ierr = KSPGMRESSetRestart(h->ksp, o->restart);
    if (!ierr) ierr = dist_pcmg(h->ksp, h->P, h->Ac);
    if (!ierr) ierr = KSPSetTolerances(h->ksp, o->rtol, PETSC_DEFAULT, PETSC_DEFAULT, o->maxit);
    if (!ierr) ierr = KSPSetFromOptions(h->ksp);
    if (!ierr) ierr = KSPGetType(h->ksp, &kt);
    if (!ierr && !strcmp(kt, KSPCG) && !has_option("-ksp_norm_type"))
        ierr = KSPSetNormType(h->ksp, KSP_NORM_UNPRECONDITIONED);
    if (!ierr && !strcmp(kt, KSPGMRES) && !has_option("-ksp_pc_side")) ierr = KSPSetPCSide(h->ksp, PC_RIGHT);
    if (!ierr) ierr = KSPSetUp(h->ksp);
    return ierr;
}

hdg_status hdg_petsc_module_dist_create(const hdg_blockmat *B, const hdg_petsc_dist *d, const hdg_petsc_opts *o,
                                        hdg_petsc_dsolver **out, hdg_petsc_info *info, hdg_error *err)
{
    *out = NULL;
    hdg_status st = petsc_start_timed(info, err);
    if (st) return st;
    PetscOptions db = NULL;
    PetscErrorCode ierr = options_push(o->options, &db);
    if (ierr) return petsc_fail(ierr, HDG_EINPUT, "--petsc options", err);
    hdg_petsc_dsolver *h = calloc(1, sizeof *h);
    const char *what = "matrix";
    ierr = h ? 0 : PETSC_ERR_MEM;
    if (!ierr) h->d = *d, h->nf = B->nf, h->m = B->m, ierr = dist_matrix(B, d, &h->A);
    if (!ierr) ierr = MatCreateVecs(h->A, &h->vx, &h->vb);
    if (!ierr) ierr = (h->xloc = malloc(sizeof(double) * ((size_t)B->nf * B->m + 1))) ? 0 : PETSC_ERR_MEM;
    if (!ierr) ierr = VecCreateSeqWithArray(PETSC_COMM_SELF, 1, (PetscInt)B->nf * B->m, h->xloc, &h->loc);
    if (!ierr) ierr = dist_scatter(d, B->nf, B->m, h->vx, h->loc, &h->sc);
    if (!ierr && o->z) ierr = dist_null_space(d, B->nf, B->m, o->z, h->A, h->vx);
    if (!ierr) what = "solver set-up", ierr = KSPCreate(PETSC_COMM_WORLD, &h->ksp);
    if (!ierr) ierr = KSPSetInitialGuessNonzero(h->ksp, PETSC_TRUE);
    if (!ierr && d->mg) what = "multigrid set-up", ierr = dist_mg(h, d, B->nf, B->m, o);
    else if (!ierr) ierr = petsc_ksp(h->ksp, h->A, o);
    if (ierr) {
        st = petsc_fail(ierr, HDG_EINPUT, what, err);
        dist_abort(err->msg);   /* several ranks: the others may wait in a collective */
    }
    if (!st) st = unused_options(db, o->options, err);
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
    if (!ierr) ierr = petsc_info(h->ksp, h->A, h->vb, h->vx, info);
    if (!ierr) what = "ghost values", ierr = VecScatterBegin(h->sc, h->vx, h->loc, INSERT_VALUES, SCATTER_FORWARD);
    if (!ierr) ierr = VecScatterEnd(h->sc, h->vx, h->loc, INSERT_VALUES, SCATTER_FORWARD);
    if (ierr) {
        hdg_status st = petsc_fail(ierr, HDG_ESOLVER, what, err);
        dist_abort(err->msg);
        return st;
    }
    memcpy(x, h->xloc, sizeof(double) * (size_t)h->nf * h->m);
    if (!info->converged)
        return pfail(err, HDG_ESOLVER, "PETSc KSP %s with PC %s did not converge: %s after %d iterations "
                        "(relative residual %.3g)", info->ksp_type, info->pc_type, info->reason, info->iterations,
                        info->residual);
    return HDG_OK;
}
