/* petsc.c — the trace system solved by PETSc (runtime/petsc/petsc.h): the serial
 * solve of --solver petsc, the coarse AMG of --precond mg, and what the
 * module's other files share (runtime/petsc/petsc_module.h). With petsc_dist.c (the
 * distributed solver under mpirun) and petsc_mpi.c (MPI for runtime/parallel/comm.h)
 * the only files that include petsc.h; built as the module libhdgc_petsc.so
 * (linked with PETSc and MPI, loaded by runtime/petsc/petsc_load.c on first use),
 * so it calls nothing of libhdgc. */
#include "runtime/petsc/petsc.h"
#include "runtime/petsc/petsc_module.h"

#include <petscksp.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* hdg_fail of the library, which the module does not link. */
hdg_status hdg_pm_fail(hdg_error *err, hdg_status code, const char *fmt, ...)
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
hdg_status hdg_pm_petsc_fail(PetscErrorCode ierr, hdg_status st, const char *what, hdg_error *err)
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
    return hdg_pm_fail(err, st, "PETSc: %s: %s (error %d)", what, one, (int)ierr);
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
    if (ierr) return hdg_pm_fail(err, HDG_EINTERNAL, "PETSc: initialisation failed (error %d)", (int)ierr);
    started = 1;
    atexit(petsc_stop);
    PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
    return HDG_OK;
}

/* petsc_start with info cleared but for init_seconds and prior_seconds, the
 * module load (from petsc_load.c, in info on entry), to which the start adds
 * its time on the first call. */
hdg_status hdg_pm_start_timed(hdg_petsc_info *info, hdg_error *err)
{
    double load = info->init_seconds, prior = info->prior_seconds;
    memset(info, 0, sizeof *info);
    info->init_seconds = load;
    info->prior_seconds = prior;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int first = !started;
    hdg_status st = petsc_start(err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (first) info->init_seconds += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
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

/* Orthonormalises v[0..n) in place (modified Gram-Schmidt): MatNullSpaceCreate wants
 * orthonormal vectors. */
PetscErrorCode hdg_pm_orthonormal(Vec *v, int n)
{
    PetscErrorCode ierr = 0;
    for (int j = 0; j < n && !ierr; j++) {
        for (int i = 0; i < j && !ierr; i++) {
            PetscScalar s;
            ierr = VecDot(v[i], v[j], &s);
            if (!ierr) ierr = VecAXPY(v[j], -s, v[i]);
        }
        if (!ierr) ierr = VecNormalize(v[j], NULL);
    }
    return ierr;
}

/* The null space spanned by the nz vectors z (orthonormalised copies). */
static PetscErrorCode petsc_null_space(Mat A, Vec like, const double *z, int nz)
{
    Vec v[HDG_PETSC_MAX_NULL] = {0};
    MatNullSpace ns;
    PetscInt n;
    PetscScalar *p;
    PetscErrorCode ierr = nz < 1 || nz > HDG_PETSC_MAX_NULL ? PETSC_ERR_ARG_OUTOFRANGE : 0;
    for (int j = 0; j < nz && !ierr; j++) {
        ierr = VecDuplicate(like, &v[j]);
        if (!ierr) ierr = VecGetLocalSize(v[j], &n);
        if (!ierr) ierr = VecGetArray(v[j], &p);
        if (!ierr) {
            memcpy(p, z + (size_t)j * (size_t)n, sizeof(double) * (size_t)n);
            ierr = VecRestoreArray(v[j], &p);
        }
    }
    if (!ierr) ierr = hdg_pm_orthonormal(v, nz);
    if (!ierr) ierr = MatNullSpaceCreate(PETSC_COMM_SELF, PETSC_FALSE, nz, v, &ns);
    if (!ierr) ierr = MatSetNullSpace(A, ns);
    if (!ierr) ierr = MatNullSpaceDestroy(&ns);
    for (int j = 0; j < nz; j++) VecDestroy(&v[j]);
    return ierr;
}

int hdg_pm_has_option(const char *name)
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
PetscErrorCode hdg_pm_ksp_begin(KSP ksp, Mat A, const hdg_petsc_opts *o)
{
    PetscErrorCode ierr = KSPSetOperators(ksp, A, A);
    if (!ierr) ierr = KSPSetType(ksp, o->symmetric ? KSPCG : KSPGMRES);
    if (!ierr && !o->symmetric && o->restart > 0) ierr = KSPGMRESSetRestart(ksp, o->restart);
    return ierr;
}

PetscErrorCode hdg_pm_ksp_options(KSP ksp, const hdg_petsc_opts *o)
{
    PetscErrorCode ierr = KSPSetTolerances(ksp, o->rtol, PETSC_DEFAULT, PETSC_DEFAULT, o->maxit);
    return ierr ? ierr : KSPSetFromOptions(ksp);
}

/* The KSP types whose extreme singular value (CG: eigenvalue) estimates PETSc computes
 * (KSPComputeExtremeSingularValues): the near-singularity watch of the native solvers. */
static int estimates(KSPType kt) { return !strcmp(kt, KSPCG) || !strcmp(kt, KSPGMRES) || !strcmp(kt, KSPFGMRES); }

PetscErrorCode hdg_pm_ksp_norms(KSP ksp)
{
    KSPType kt;
    PetscErrorCode ierr = KSPGetType(ksp, &kt);
    if (!ierr && !strcmp(kt, KSPCG) && !hdg_pm_has_option("-ksp_norm_type"))
        ierr = KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED);
    if (!ierr && !strcmp(kt, KSPGMRES) && !hdg_pm_has_option("-ksp_pc_side")) ierr = KSPSetPCSide(ksp, PC_RIGHT);
    if (!ierr && estimates(kt)) ierr = KSPSetComputeSingularValues(ksp, PETSC_TRUE);   /* before the set-up */
    /* preonly applies the PC to b once: a guess would be lost (PETSc refuses a nonzero one) */
    if (!ierr && !strcmp(kt, KSPPREONLY)) ierr = KSPSetInitialGuessNonzero(ksp, PETSC_FALSE);
    return ierr;
}

PetscErrorCode hdg_pm_ksp(KSP ksp, Mat A, const hdg_petsc_opts *o)
{
    PC pc;
    PetscErrorCode ierr = hdg_pm_ksp_begin(ksp, A, o);
    if (!ierr) ierr = KSPGetPC(ksp, &pc);
    if (!ierr) ierr = PCSetType(pc, PCGAMG);
    if (!ierr) ierr = hdg_pm_ksp_options(ksp, o);
    if (!ierr) ierr = gamg_aij(ksp, pc, A);
    if (!ierr) ierr = hdg_pm_ksp_norms(ksp);
    if (ierr) return ierr;
    /* singular (a null space): GAMG's default coarse LU meets a zero pivot */
    int svd = o->z && pc_is(pc, PCGAMG) && !hdg_pm_has_option("-mg_coarse_pc_type");
    if (svd) ierr = PetscOptionsSetValue(NULL, "-mg_coarse_pc_type", "svd");
    if (!ierr) ierr = KSPSetUp(ksp);
    if (svd) PetscOptionsClearValue(NULL, "-mg_coarse_pc_type");
    return ierr;
}

/* info: types, iterations, reason, true relative residual. */
PetscErrorCode hdg_pm_info(KSP ksp, Mat A, Vec b, Vec x, hdg_petsc_info *info)
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
    PetscReal rtol = 0, emax = 0, emin = 0;
    if (!ierr && !strcmp(kt, KSPPREONLY)) {   /* "converged" after its one application, whatever the PC */
        ierr = KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL);
        info->preonly_rtol = rtol;
        info->converged = reason > 0 && info->residual >= 0 && info->residual <= fmax(rtol, HDG_PETSC_PREONLY_RTOL);
    }
    if (!ierr && estimates(kt) && its > 0 && reason > 0 && !KSPComputeExtremeSingularValues(ksp, &emax, &emin))
        info->sv_max = emax, info->sv_min = emin;
    return ierr;
}

hdg_status hdg_pm_not_converged(const hdg_petsc_info *info, hdg_error *err)
{
    if (info->preonly_rtol > 0)
        return hdg_pm_fail(err, HDG_ESOLVER, "PETSc KSP preonly with PC %s: one application of the preconditioner "
                           "leaves a relative residual of %.3g, above rtol %.3g (or %g): preonly solves only with an "
                           "exact preconditioner (-pc_type lu); use a Krylov method (-ksp_type gmres)", info->pc_type,
                           info->residual, info->preonly_rtol, HDG_PETSC_PREONLY_RTOL);
    return hdg_pm_fail(err, HDG_ESOLVER, "PETSc KSP %s with PC %s did not converge: %s after %d iterations "
                       "(relative residual %.3g)", info->ksp_type, info->pc_type, info->reason, info->iterations,
                       info->residual);
}

/* The options of one solve: PETSC_OPTIONS (and PETSc's option files), then
 * the string, in a database of their own pushed as the default, so that no
 * solve's options outlive it. */
PetscErrorCode hdg_pm_options_push(const char *user, PetscOptions *db)
{
    PetscErrorCode ierr = PetscOptionsCreate(db);
    if (!ierr) ierr = PetscOptionsInsert(*db, NULL, NULL, NULL);
    if (!ierr && user) ierr = PetscOptionsInsertString(*db, user);
    if (!ierr) ierr = PetscOptionsPush(*db);
    if (ierr) PetscOptionsDestroy(db);
    return ierr;
}

/* An option of the string that the solve did not use (misspelt) is refused. */
hdg_status hdg_pm_unused_options(PetscOptions db, const char *user, hdg_error *err)
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
                st = hdg_pm_fail(err, HDG_EINPUT, "--petsc: option %s was not used by the solve (misspelt? "
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
    hdg_status st = hdg_pm_start_timed(info, err);
    if (st) return st;
    PetscOptions db = NULL;
    PetscErrorCode ierr = hdg_pm_options_push(o->options, &db);
    if (ierr) return hdg_pm_petsc_fail(ierr, HDG_EINPUT, "--petsc options", err);
    PetscInt n = (PetscInt)B->nf * B->m;
    Mat A = NULL;
    Vec vb = NULL, vx = NULL;
    KSP ksp = NULL;
    const char *what = "matrix";
    ierr = petsc_matrix(B, &A);
    if (!ierr) ierr = VecCreateSeqWithArray(PETSC_COMM_SELF, 1, n, b, &vb);
    if (!ierr) ierr = VecCreateSeqWithArray(PETSC_COMM_SELF, 1, n, x, &vx);
    if (!ierr && o->z) ierr = petsc_null_space(A, vb, o->z, o->nz > 0 ? o->nz : 1);
    if (!ierr) what = "solver set-up", ierr = KSPCreate(PETSC_COMM_SELF, &ksp);
    if (!ierr) ierr = hdg_pm_ksp(ksp, A, o);
    if (!ierr) what = "solve", ierr = KSPSolve(ksp, vb, vx);
    if (!ierr) ierr = hdg_pm_info(ksp, A, vb, vx, info);
    if (ierr) st = hdg_pm_petsc_fail(ierr, !strcmp(what, "solve") ? HDG_ESOLVER : HDG_EINPUT, what, err);
    else if (!info->converged) st = hdg_pm_not_converged(info, err);
    if (!st) st = hdg_pm_unused_options(db, o->options, err);
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
    hdg_status st = hdg_pm_start_timed(info, err);
    if (st) return st;
    PetscOptions db = NULL;
    PetscErrorCode ierr = hdg_pm_options_push(options, &db);
    if (ierr) return hdg_pm_petsc_fail(ierr, HDG_EINPUT, "--petsc options", err);
    struct hdg_petsc_amg *h = calloc(1, sizeof *h);
    const char *what = "coarse matrix";
    ierr = h ? petsc_aij(A, &h->A) : PETSC_ERR_MEM;
    if (!ierr) ierr = MatCreateVecs(h->A, &h->x, &h->y);
    if (!ierr) what = "coarse solver set-up", ierr = amg_ksp(h);
    if (ierr) st = hdg_pm_petsc_fail(ierr, HDG_EINPUT, what, err);
    if (!st) {
        KSPType kt;
        PCType pt;
        PC pc;
        KSPGetType(h->ksp, &kt);
        KSPGetPC(h->ksp, &pc);
        PCGetType(pc, &pt);
        snprintf(info->ksp_type, sizeof info->ksp_type, "%s", kt);
        snprintf(info->pc_type, sizeof info->pc_type, "%s", pt);
        st = hdg_pm_unused_options(db, options, err);
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

/* ---------------------------------------------------------------- for the other files of the module */

hdg_status hdg_petsc_module_start(hdg_error *err) { return petsc_start(err); }
