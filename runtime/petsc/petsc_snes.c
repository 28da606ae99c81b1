/* petsc_snes.c — Newton for nonlinear HDG through PETSc's SNES (runtime/petsc/petsc.h,
 * "SNES"; the driver is drivers/run_hdg_snes.c). Part of the PETSc module: it calls
 * nothing of libhdgc, only the driver's callbacks.
 *
 * SNES newtonls on x = (element rows, trace rows) with F from the driver. The Jacobian
 * SNES sees is the pair (J, P): J = MatCreateSNESMF (PETSc's matrix-free J v by finite
 * differences of F, whose base moves with SNES's x), P a shell that is never read; the
 * PC is a PCShell whose apply is the driver's exact J(x)^-1 (static condensation at the
 * state of the last Jacobian evaluation). With KSP preonly (the default) a step is that
 * inverse applied to F once, so the J of the operator enters only the bt line search's
 * slope F^T J d (and a Krylov -ksp_type, if the user names one).
 *
 * The stop: SNES's own test (rtol, atol, stol, max_it, from the driver's defaults and the
 * options), and also |F| at most the driver's floor (the attainable accuracy: what
 * rounding leaves of F at the solution), reported as SNES_CONVERGED_FNORM_ABS with
 * floor_stop set. */
#include "runtime/petsc/petsc.h"
#include "runtime/petsc/petsc_module.h"

#include <petscsnes.h>
#include <stdio.h>
#include <string.h>

typedef struct snes_ctx {
    const hdg_petsc_snes_ops *ops;
    hdg_error *err;
    int failed;        /* a callback returned -1: err holds why */
    double floor_;     /* the floor of the last F evaluation */
    int floor_stop;
} snes_ctx;

static PetscErrorCode form_function(SNES snes, Vec X, Vec F, void *p)
{
    snes_ctx *c = p;
    const PetscScalar *x;
    PetscScalar *f;
    PetscErrorCode ierr = VecGetArrayRead(X, &x);
    if (!ierr) ierr = VecGetArray(F, &f);
    if (ierr) return ierr;
    double fl = 0;
    int rc = c->ops->residual(c->ops->ctx, x, f, &fl, c->err);
    VecRestoreArrayRead(X, &x);
    VecRestoreArray(F, &f);
    if (rc < 0) return c->failed = 1, PETSC_ERR_USER;
    if (rc > 0) return SNESSetFunctionDomainError(snes);
    c->floor_ = fl;
    return 0;
}

static PetscErrorCode form_jacobian(SNES snes, Vec X, Mat J, Mat P, void *p)
{
    snes_ctx *c = p;
    const PetscScalar *x;
    (void)snes, (void)P;
    PetscErrorCode ierr = VecGetArrayRead(X, &x);
    if (ierr) return ierr;
    int rc = c->ops->jacobian(c->ops->ctx, x, c->err);
    VecRestoreArrayRead(X, &x);
    if (rc) return c->failed = 1, PETSC_ERR_USER;
    ierr = MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY);   /* the matrix-free J takes SNES's x as its base */
    return ierr ? ierr : MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY);
}

static PetscErrorCode pc_apply(PC pc, Vec B, Vec Y)
{
    snes_ctx *c;
    const PetscScalar *b;
    PetscScalar *y;
    PetscErrorCode ierr = PCShellGetContext(pc, &c);
    if (!ierr) ierr = VecGetArrayRead(B, &b);
    if (!ierr) ierr = VecGetArray(Y, &y);
    if (ierr) return ierr;
    int rc = c->ops->apply(c->ops->ctx, b, y, c->err);
    VecRestoreArrayRead(B, &b);
    VecRestoreArray(Y, &y);
    return rc ? (c->failed = 1, PETSC_ERR_USER) : 0;
}

static PetscErrorCode monitor(SNES snes, PetscInt it, PetscReal fnorm, void *p)
{
    snes_ctx *c = p;
    SNESLineSearch ls;
    PetscReal lambda = 1;
    if (it > 0 && !SNESGetLineSearch(snes, &ls)) SNESLineSearchGetLambda(ls, &lambda);
    if (c->ops->monitor) c->ops->monitor(c->ops->ctx, (int)it, (double)fnorm, (double)lambda);
    return 0;
}

/* SNES's test, and the attainable accuracy. */
static PetscErrorCode converged(SNES snes, PetscInt it, PetscReal xnorm, PetscReal snorm, PetscReal fnorm,
                                SNESConvergedReason *reason, void *p)
{
    snes_ctx *c = p;
    PetscErrorCode ierr = SNESConvergedDefault(snes, it, xnorm, snorm, fnorm, reason, NULL);
    if (!ierr && *reason == SNES_CONVERGED_ITERATING && fnorm <= c->floor_)
        *reason = SNES_CONVERGED_FNORM_ABS, c->floor_stop = 1;
    return ierr;
}

/* preonly with the exact inverse, the shell never multiplied (only the PC reads P). */
static PetscErrorCode setup(SNES snes, Vec F, Mat *J, snes_ctx *c, const hdg_petsc_snes_opts *o)
{
    KSP ksp;
    PC pc;
    PetscErrorCode ierr = SNESSetFunction(snes, F, form_function, c);
    if (!ierr) ierr = MatCreateSNESMF(snes, J);
    if (!ierr) ierr = SNESSetJacobian(snes, *J, *J, form_jacobian, c);
    if (!ierr) ierr = SNESSetType(snes, SNESNEWTONLS);
    if (!ierr) ierr = SNESSetTolerances(snes, o->atol > 0 ? o->atol : PETSC_DEFAULT, o->rtol, PETSC_DEFAULT,
                                        o->max_it, PETSC_DEFAULT);
    if (!ierr) ierr = SNESSetConvergenceTest(snes, converged, c, NULL);
    if (!ierr) ierr = SNESMonitorSet(snes, monitor, c, NULL);
    if (!ierr) ierr = SNESGetKSP(snes, &ksp);
    if (!ierr) ierr = KSPSetType(ksp, KSPPREONLY);
    if (!ierr) ierr = KSPGetPC(ksp, &pc);
    if (!ierr) ierr = PCSetType(pc, PCSHELL);
    if (!ierr) ierr = PCShellSetContext(pc, c);
    if (!ierr) ierr = PCShellSetApply(pc, pc_apply);
    if (!ierr) ierr = PCShellSetName(pc, "hdgc: J^-1 by static condensation");
    if (!ierr) ierr = SNESSetFromOptions(snes);
    return ierr;
}

static void types(SNES snes, hdg_petsc_snes_info *info)
{
    SNESType st;
    SNESLineSearch ls;
    SNESLineSearchType lt = NULL;
    KSP ksp;
    KSPType kt;
    PC pc;
    PCType pt;
    if (!SNESGetType(snes, &st) && st) snprintf(info->snes_type, sizeof info->snes_type, "%s", st);
    if (!SNESGetLineSearch(snes, &ls) && !SNESLineSearchGetType(ls, &lt) && lt)
        snprintf(info->linesearch, sizeof info->linesearch, "%s", lt);
    if (!SNESGetKSP(snes, &ksp) && !KSPGetType(ksp, &kt) && kt) {
        snprintf(info->ksp_type, sizeof info->ksp_type, "%s", kt);
        if (!KSPGetPC(ksp, &pc) && !PCGetType(pc, &pt) && pt) snprintf(info->pc_type, sizeof info->pc_type, "%s", pt);
    }
}

hdg_status hdg_petsc_module_snes_solve(const hdg_petsc_snes_ops *ops, const hdg_petsc_snes_opts *o, double *x,
                                       hdg_petsc_snes_info *info, hdg_error *err)
{
    hdg_petsc_info pi = {.init_seconds = info->init_seconds, .prior_seconds = info->prior_seconds};
    hdg_status st = hdg_pm_start_timed(&pi, err);
    info->init_seconds = pi.init_seconds, info->prior_seconds = pi.prior_seconds;
    if (st) return st;
    PetscOptions db = NULL;
    PetscErrorCode ierr = hdg_pm_options_push(o->options, &db);
    if (ierr) return hdg_pm_petsc_fail(ierr, HDG_EINPUT, "--petsc options", err);
    snes_ctx c = {.ops = ops, .err = err};
    SNES snes = NULL;
    Vec X = NULL, F = NULL;
    Mat J = NULL;
    const char *what = "SNES set-up";
    MPI_Comm comm = o->world ? PETSC_COMM_WORLD : PETSC_COMM_SELF;
    ierr = o->world ? VecCreateMPIWithArray(comm, 1, (PetscInt)ops->n, PETSC_DECIDE, x, &X)
                    : VecCreateSeqWithArray(comm, 1, (PetscInt)ops->n, x, &X);
    if (!ierr) ierr = VecDuplicate(X, &F);
    if (!ierr) ierr = SNESCreate(comm, &snes);
    if (!ierr) ierr = setup(snes, F, &J, &c, o);
    if (!ierr) what = "SNES solve", ierr = SNESSolve(snes, NULL, X);
    if (snes) {
        SNESConvergedReason reason = SNES_CONVERGED_ITERATING;
        PetscInt its = 0, lits = 0;
        SNESGetConvergedReason(snes, &reason);
        SNESGetIterationNumber(snes, &its);
        SNESGetLinearSolveIterations(snes, &lits);
        info->reason_code = (int)reason;
        snprintf(info->reason, sizeof info->reason, "%s", SNESConvergedReasons[reason]);
        info->steps = (int)its, info->ksp_iterations = (int)lits, info->floor_stop = c.floor_stop;
        types(snes, info);
    }
    if (c.failed) st = err->code ? err->code : HDG_EINTERNAL;   /* the callback's own message */
    else if (ierr) st = hdg_pm_petsc_fail(ierr, HDG_EINPUT, what, err);
    else if (info->reason_code <= 0)
        st = hdg_pm_fail(err, HDG_ESOLVER, "%s after %d steps", info->reason, info->steps);
    if (!st) st = hdg_pm_unused_options(db, o->options, err);
    SNESDestroy(&snes);
    MatDestroy(&J);
    VecDestroy(&X);
    VecDestroy(&F);
    PetscOptionsPop();
    PetscOptionsDestroy(&db);
    return st;
}
