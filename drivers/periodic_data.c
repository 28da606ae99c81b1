/* periodic_data.c — on a periodic mesh, the data of the equations must repeat across the
 * paired sides: a source or coefficient that does not (a manufactured f that is not
 * periodic, a file written for the unit square) gives the solution of another problem,
 * with exit 0. This compares every volume atom's coefficient at matching points of the
 * two copies of each periodic face (t = 0) and says where the first one differs. */
#include "drivers/periodic_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The copy of face f in its second element, matched to the first's endpoints
 * through the topological vertices: a1 -> b1 runs like a0 -> b0. */
static void copies(const hdg_mesh *M, int f, double *a0, double *b0, double *a1, double *b1)
{
    int e0 = M->fe[2 * f], j0 = M->flf[2 * f], e1 = M->fe[2 * f + 1], j1 = M->flf[2 * f + 1];
    int A0 = M->ev[3 * e0 + j0], B0 = M->ev[3 * e0 + (j0 + 1) % 3];
    int A1 = M->ev[3 * e1 + j1], B1 = M->ev[3 * e1 + (j1 + 1) % 3];
    if (M->vtop[A0] != M->vtop[A1]) { int t = A1; A1 = B1; B1 = t; }
    a0[0] = M->vx[A0], a0[1] = M->vy[A0], b0[0] = M->vx[B0], b0[1] = M->vy[B0];
    a1[0] = M->vx[A1], a1[1] = M->vy[A1], b1[0] = M->vx[B1], b1[1] = M->vy[B1];
}

int hdg_periodic_data_check(const hdg_problem *p, const hdg_mesh *M, char *msg, size_t n)
{
    if (!M->nperiodic || !M->vtop) return 0;
    static const double S[3] = {0.2113248654051871, 0.5, 0.7886751345948129};
    for (int f = 0; f < M->nf; f++) {
        if (M->fe[2 * f + 1] < 0) continue;
        double a0[2], b0[2], a1[2], b1[2];
        copies(M, f, a0, b0, a1, b1);
        if (fabs(a0[0] - a1[0]) + fabs(a0[1] - a1[1]) < 1e-12) continue;   /* not a periodic face */
        for (int q = 0; q < 3; q++) {
            double x0 = a0[0] + S[q] * (b0[0] - a0[0]), y0 = a0[1] + S[q] * (b0[1] - a0[1]);
            double x1 = a1[0] + S[q] * (b1[0] - a1[0]), y1 = a1[1] + S[q] * (b1[1] - a1[1]);
            hdg_eval_env e0 = {.x = x0, .y = y0, .problem = p}, e1 = {.x = x1, .y = y1, .problem = p};
            for (int k = 0; k < p->nequations; k++)
                for (int i = 0; i < p->equations[k].natoms; i++) {
                    const hdg_atom *a = &p->equations[k].atoms[i];
                    if (a->domain != HDG_VOLUME) continue;
                    double v0 = hdg_expr_eval(a->coef, &e0), v1 = hdg_expr_eval(a->coef, &e1);
                    if (!(fabs(v0 - v1) > 1e-8 * fmax(1, fmax(fabs(v0), fabs(v1))))) continue;
                    char *text = hdg_atom_str(p, a);
                    snprintf(msg, n, "the data are not periodic across the paired sides (%s): the term '%s' of "
                             "equation %d (line %d) is %.6g at (%g, %g) but %.6g at (%g, %g); the solution is "
                             "that of another problem", M->periodic ? M->periodic : "periodic", text, k + 1,
                             a->loc.line, v0, x0, y0, v1, x1, y1);
                    free(text);
                    return 1;
                }
        }
    }
    return 0;
}
