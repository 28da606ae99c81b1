/* petsc_module.h — what the files of the PETSc module (libhdgc_petsc.so:
 * petsc.c, petsc_dist.c, petsc_mpi.c) share: errors as hdg_error, PETSc's
 * start, the default KSP, the solve's figures and the options database of
 * one solve. Not for anything outside the module (it includes petsc.h). */
#ifndef HDG_PETSC_MODULE_H
#define HDG_PETSC_MODULE_H

#include <petscksp.h>

#include "runtime/petsc/petsc.h"

/* hdg_fail of the library, which the module does not link. */
hdg_status hdg_pm_fail(hdg_error *err, hdg_status code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* PETSc's message for ierr as err (st), prefixed by what. */
hdg_status hdg_pm_petsc_fail(PetscErrorCode ierr, hdg_status st, const char *what, hdg_error *err);
/* PETSc started (once), info cleared, its init_seconds the start on the first call. */
hdg_status hdg_pm_start_timed(hdg_petsc_info *info, hdg_error *err);
int hdg_pm_has_option(const char *name);
/* CG or GMRES + GAMG with o's tolerances, then the options, set up. */
PetscErrorCode hdg_pm_ksp(KSP ksp, Mat A, const hdg_petsc_opts *o);
/* Orthonormalises v[0..n) in place (modified Gram-Schmidt), for MatNullSpaceCreate. */
PetscErrorCode hdg_pm_orthonormal(Vec *v, int n);
/* Its pieces, for another PC between them: the operator and CG or GMRES (its
 * restart); o's tolerances, then the options; the true residual as the
 * stopping norm (CG unpreconditioned, GMRES right-preconditioned) unless the
 * options name one. */
PetscErrorCode hdg_pm_ksp_begin(KSP ksp, Mat A, const hdg_petsc_opts *o);
PetscErrorCode hdg_pm_ksp_options(KSP ksp, const hdg_petsc_opts *o);
PetscErrorCode hdg_pm_ksp_norms(KSP ksp);   /* and the estimates requested; preonly: a zero guess */
/* Types, iterations, reason and the true relative residual of a solve. */
/* ... and the extreme singular value (CG: eigenvalue) estimates where the type gives them
 * (CG, GMRES, FGMRES: requested by hdg_pm_ksp_norms before the set-up); preonly counts as
 * converged only with a true residual at most max(rtol, HDG_PETSC_PREONLY_RTOL). */
PetscErrorCode hdg_pm_info(KSP ksp, Mat A, Vec b, Vec x, hdg_petsc_info *info);
/* The failure of a solve that did not converge (preonly: what it needs). */
hdg_status hdg_pm_not_converged(const hdg_petsc_info *info, hdg_error *err);
/* The options of one solve (PETSC_OPTIONS, then user) pushed as the default. */
PetscErrorCode hdg_pm_options_push(const char *user, PetscOptions *db);
/* An option of user that the solve did not use is refused. */
hdg_status hdg_pm_unused_options(PetscOptions db, const char *user, hdg_error *err);

#endif
