/* dg_speed_internal.h — what dg_speed.c (the characteristic speed) shares with dg_energy.c
 * (the energy class): the linearised form of a DG problem read from its atoms, evaluated at
 * a point, and small dense helpers. Not a public interface: drivers/ only. */
#ifndef HDG_DG_SPEED_INTERNAL_H
#define HDG_DG_SPEED_INTERNAL_H

#include "drivers/dg_speed.h"

enum { KIND_A, KIND_B, KIND_C, KIND_R };   /* A, B, C: dx, dy, dz terms (kind = direction) */
#define MAXF HDG_DG_MAX_FIELDS

/* One volume atom with an unknown: coefficient, row and column field, which
 * matrix it adds to and with what sign. */
typedef struct vterm {
    const hdg_atom *a;
    int row, col, kind;
    double sign;
} vterm;

typedef struct form {
    const hdg_problem *p;
    int F, dim;
    const hdg_atom *time[MAXF];   /* the dt() atom of each row */
    vterm *t;
    int nt;
    int dep_xy, dep_t;            /* some coefficient depends on x, y (or z), on t */
    int dep_state;                /* nonlinear: the Jacobian atoms of residuals read the state */
    const double *U;              /* dep_state: the element's state (fields x Np) and the node */
    int Np, node;
    int field_of[64][3];
} form;

/* The form of problem p as lowered in L (the atoms with an unknown, by kind). */
void hdg_dgs_form_build(form *fm, const hdg_problem *p, const hdg_dg_lowered *L);
/* A[d] (d < dim) and R (F x F, row-major) at (x, t), rows divided by c_T.
 * Returns 0, or -1 with why filled (c_T not positive, a value not finite). */
int hdg_dgs_form_eval(const form *fm, const double *x, double t, double (*A)[MAXF * MAXF], double *R, char *why,
                      size_t n);
/* The evaluation environment at x, t (normal n or NULL). */
hdg_eval_env hdg_dgs_env_at(const hdg_problem *p, int dim, const double *x, double t, const double *n);
/* Does e depend on x, y or z? */
int hdg_dgs_depends_xy(const hdg_expr *e);
/* The problem's file name for a message. */
const char *hdg_dgs_fname(const hdg_problem *p);
/* max |C_ij| of the n x n matrix C; C symmetric to tol. */
double hdg_dgs_max_abs(int n, const double *C);
int hdg_dgs_symmetric(int n, const double *C, double tol);
/* The unit vector of polar angle th and azimuth ph. */
void hdg_dgs_sphere_dir(double th, double ph, double *n);

#endif
