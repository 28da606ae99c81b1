/* run_hdg_null_internal.h — what the run_hdg_null*.c files share among
 * themselves (not for the other drivers: they use run_hdg_null.h). */
#ifndef HDG_RUN_HDG_NULL_INTERNAL_H
#define HDG_RUN_HDG_NULL_INTERNAL_H

#include "drivers/run_hdg_null.h"
#include "runtime/fem/quadrature.h"

/* The point x of face F at reference coordinates r (dim - 1 of them, on the
 * reference interval or triangle). */
void hdg_hdg_face_point(const hdg_hdg_face *F, const double *r, double *x);
/* The measure of element e: a triangle's area, a tetrahedron's volume. */
double hdg_hdg_element_volume(const hdg_mesh *M, int e);
/* The point of element e at reference point i of rule q into env's x, y, z. */
void hdg_hdg_element_point(const hdg_mesh *M, int e, const hdg_quad *q, int i, hdg_eval_env *env);

/* "the constants of 'uhat' (component 1)", "a rotation of 'uhat'" ... into b. */
int hdg_hdg_null_name_candidate(const hdg_problem *p, hdg_hdg_null_cand c, char *b, size_t n);

/* The largest part of the right-hand side along the constants taken for
 * rounding and quadrature (quad: the data's estimated quadrature error), and
 * the refusal above it. */
double hdg_hdg_compatible_below(double quad);
hdg_status hdg_hdg_incompatible(double part, double quad, hdg_error *err);

#endif
