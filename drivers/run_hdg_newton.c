/* run_hdg_newton.c — Newton's method for nonlinear HDG problems (issue 41;
 * docs/solvers.md, "Newton"): the loop, and the host's operations (the table
 * hdg_newton_ops, run_hdg_newton.h; the device's are in run_hdg_cuda_newton.c).
 *
 * The state s = (s_l, s_t): the element dofs (ne x nl) and the trace dofs
 * (nf x m). The kernels (ir/lower.h, hdg_lowered.nonlinear) read it: the local
 * kernel condenses Newton's linear system J(s) s' = F(s), whose solution is the
 * next iterate itself, the recovery gives its element part, and the residual
 * kernel R(s) = J(s) s - F(s) = L s + N(s) - f per element.
 *
 *   s_0      the projection of `initial` (element unknowns; 0 where none is
 *            given), the trace 0 and the Dirichlet data on Dirichlet dofs;
 *   |R|      the 2-norm of the element rows and of the assembled trace rows,
 *            Dirichlet dofs excluded (under mpirun: a partition face's rows summed
 *            over its two ranks, counted on its owner, the sums over every rank
 *            and rank 0's bits on all, so that every rank stops and searches alike);
 *   stop     |R| <= rtol |R_0| + atol, or |R| at the attainable accuracy: at most
 *            HDG_NEWTON_FLOOR eps ||M||, M the sums of the absolute values of the
 *            terms of R (the residual kernel's M_l, M_t, assembled alike): what
 *            rounding leaves of R when s is exact; or stagnating below
 *            sqrt(eps) |R_0| (a step that gains less than a factor 2 there, or
 *            finds no decrease at all: stagnated());
 *   a step   K_e, F_e at s, assembled, Dirichlet rows eliminated (the data),
 *            solved for s'_t with the solver the linear problem would use
 *            (warm-started from s_t; inner tolerance 1e-14 or the attainable
 *            accuracy), s'_l recovered; d = s' - s; backtracking: s + alpha d
 *            with alpha = 1, 1/2, ... down to 2^-HDG_NEWTON_HALVINGS, the first
 *            with |R| <= (1 - 1e-4 alpha) |R_n| (Armijo) taken;
 *   failure  the step limit, a line search that finds no decrease, or a
 *            non-finite residual: HDG_ESOLVER with the residual history.
 * Reported: newton.residuals[], newton.alphas[], newton.linear_iterations[],
 * newton.steps, newton.converged, newton.attainable (the floor), and
 * newton.quadratic_constant = max r_{n+1} / r_n^2 over the last steps.
 *
 * --newton-check on: before each line search, the finite-difference check of the
 * residual against the Jacobian along the step. The step solves J(s) d = -R(s),
 * so R(s + e d) = (1 - e) R(s) + O(e^2): the defect
 *   rho(e) = |R(s + e d) - (1 - e) R(s)| / (e |R(s)|)
 * falls tenfold from e = 1e-3 to 1e-4 when the Jacobian kernels are the
 * derivative of the residual kernel (and the condensed solve and recovery are
 * right); a wrong Jacobian term leaves rho(1e-4) of the size of that term.
 * Reported: newton.check_1e-3[], newton.check_1e-4[] (one per step).
 *
 * The operations (first guess, residual rows, linear step, solution) work on the
 * host vectors of hdg_newton whatever runs them; the norms, the stop, the line
 * search and the check are the loop's, so the host and the device take the same
 * decisions from the same numbers (to rounding). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/nonfinite.h"
#include "drivers/run_hdg_newton.h"
#include "drivers/run_hdg_null.h"
#include "runtime/parallel/comm.h"
#include "runtime/parallel/mesh_dist.h"
#include "support/util.h"

#define HDG_NEWTON_HALVINGS 10

/* Element-view trace of a global trace vector (as the recovery's uhat). */
static void to_elements(hdg_run *r, const double *x, double *xe)
{
    const hdg_mesh *M = r->mesh;
    if (!r->maps.buf) hdg_hdg_face_maps(&r->L, &r->maps);
    hdg_blockmat_scatter_maps(M->ne, M->ef, M->eforient, &r->maps.S, x, xe);
}

static int dirichlet_dof(const hdg_run *r, long long i)
{
    int m = r->L.m;
    return r->isdir && r->isdir[i / m] && r->dofdir[i];
}

/* The host's residual rows (hdg_newton_ops.residual). */
static hdg_status host_residual(hdg_newton *N, const double *sl, const double *st, hdg_error *err)
{
    hdg_run *r = N->r;
    const hdg_mesh *M = r->mesh;
    hdg_kernel_fn f = hdg_hdg_kernel(r, r->L.residual, err);
    if (!f) return err->code;
    double *ste = hdg_xmalloc(sizeof(double) * (size_t)M->ne * r->L.nt);
    to_elements(r, st, ste);
    hdg_kargs a = hdg_hdg_kargs(r, r->geom, M->ne);
    a.in[0] = sl, a.in[1] = ste, a.in[2] = r->hist;   /* hist: transient only */
    a.out[0] = N->Rl, a.out[1] = N->Rt, a.out[2] = N->Ml, a.out[3] = N->Mt;
    hdg_launch(f, M->ne, &a);
    free(ste);
    memset(N->Rg, 0, sizeof(double) * (size_t)N->nt);
    memset(N->Mg, 0, sizeof(double) * (size_t)N->nt);
    hdg_blockmat_assemble_rhs_maps(M->nf, N->Rg, N->Rt, M->ef, M->eforient, M->fe, M->flf, &r->maps.S);
    hdg_blockmat_assemble_rhs_maps(M->nf, N->Mg, N->Mt, M->ef, M->eforient, M->fe, M->flf, &r->maps.S);
    for (long long i = 0; i < N->nt; i++)
        if (dirichlet_dof(r, i)) N->Rg[i] = N->Mg[i] = 0;
    return HDG_OK;
}

/* A trace row of the norms: under mpirun it counts on the rank that owns its face (the
 * element rows are each on one rank). */
static int counted(const hdg_newton *N, long long i)
{
    const hdg_mesh_dist *d = N->o->dist;
    return !d || d->fowner[i / N->m] == d->rank;
}

/* Sums of the ranks' partial sums, rank 0's bits on every rank: each takes the same decisions. */
static void global_sums(double *s, int n)
{
    hdg_comm_sum(s, n);
    hdg_comm_bcast(s, sizeof(double) * (size_t)n, 0);
}

/* Where the residual is not finite (serial host runs name the element): the state there,
 * or, when it is finite, a term or a derivative that is not defined at it. The residual
 * kernel evaluates R = J(s) s - F(s), so an infinite derivative (sqrt(u) at u = 0) makes
 * R NaN even where the term itself is finite. */
static void nonfinite_where(const hdg_newton *N, const double *sl, char *b, size_t n)
{
    const hdg_run *r = N->r;
    snprintf(b, n, " (the state left the range where the nonlinear terms or their derivatives are defined)");
    if (!r || r->o->dist) return;
    const hdg_mesh *M = r->mesh;
    int e = hdg_nonfinite_first(N->Rl, M->ne, r->L.nl, r->L.nl);
    if (e < 0) e = hdg_nonfinite_first(N->Rt, M->ne, r->L.nt, r->L.nt);
    if (e < 0) return;
    int nv = hdg_mesh_nfe(M), dim = hdg_mesh_dim(M);
    double c[3] = {0, 0, 0};
    for (int i = 0; i < nv; i++) {
        int v = M->ev[(size_t)nv * e + i];
        c[0] += M->vx[v] / nv, c[1] += M->vy[v] / nv;
        if (dim == 3) c[2] += M->vz[v] / nv;
    }
    char near[96];
    if (dim == 3) snprintf(near, sizeof near, "(%.4g, %.4g, %.4g)", c[0], c[1], c[2]);
    else snprintf(near, sizeof near, "(%.4g, %.4g)", c[0], c[1]);
    if (hdg_nonfinite_first(sl + (size_t)e * r->L.nl, 1, r->L.nl, r->L.nl) >= 0)
        snprintf(b, n, ", first on element %d (centroid %s), where the state itself is not finite", e, near);
    else
        snprintf(b, n, ", first on element %d (centroid %s), where the state is finite: a nonlinear term or one of its "
                 "derivatives (hdgc check lists them) is not defined there: a log or sqrt of a negative number, a "
                 "division by zero, an overflow, or an infinite derivative of a finite term (sqrt(u) or u^0.5 at u = 0: Newton "
                 "needs d/du = 1/(2 sqrt(u))); start elsewhere ('initial') or write the term so it is smooth", e, near);
}

/* |R(sl, st)| and the floor eps ||M||; under mpirun the partition faces' trace rows summed
 * over their two ranks (as the distributed trace system is) and the norms over every rank. */
static hdg_status residual(hdg_newton *N, const double *sl, const double *st, double *rn, double *floor_, hdg_error *err)
{
    hdg_status rs = N->ops->residual(N, sl, st, err);
    if (rs) return rs;
    hdg_mesh_dist_face_sum(N->o->dist, N->m, N->Rg);
    hdg_mesh_dist_face_sum(N->o->dist, N->m, N->Mg);
    double sm[2] = {0, 0};
    for (long long i = 0; i < N->nl; i++) sm[0] += N->Rl[i] * N->Rl[i], sm[1] += N->Ml[i] * N->Ml[i];
    for (long long i = 0; i < N->nt; i++)
        if (counted(N, i)) sm[0] += N->Rg[i] * N->Rg[i], sm[1] += N->Mg[i] * N->Mg[i];
    global_sums(sm, 2);
    *rn = sqrt(sm[0]);
    *floor_ = HDG_NEWTON_FLOOR * DBL_EPSILON * sqrt(sm[1]);
    if (!isfinite(*rn)) {
        char at[700];
        nonfinite_where(N, sl, at, sizeof at);
        return hdg_fail(err, HDG_ESOLVER, "%s: Newton%s%s: the residual is not finite at step %d%s", N->p->name,
                        N->where ? " at " : "", N->where ? N->where : "", N->nhist, at);
    }
    return HDG_OK;
}

/* rho(e) of --newton-check at the state s with |R(s)| = r0 (N->Rl, N->Rg hold R(s) on entry;
 * R0l, R0g: copies). */
static hdg_status check_defect(hdg_newton *N, double e, double r0, const double *R0l, const double *R0g, double *rho,
                               hdg_error *err)
{
    for (long long i = 0; i < N->nl; i++) N->tl[i] = N->sl[i] + e * N->dl[i];
    for (long long i = 0; i < N->nt; i++) N->tt[i] = N->st[i] + e * N->dt[i];
    double rt, ft, s = 0;
    hdg_status st = residual(N, N->tl, N->tt, &rt, &ft, err);
    if (st) return st;
    for (long long i = 0; i < N->nl; i++) s += (N->Rl[i] - (1 - e) * R0l[i]) * (N->Rl[i] - (1 - e) * R0l[i]);
    for (long long i = 0; i < N->nt; i++)
        if (counted(N, i)) s += (N->Rg[i] - (1 - e) * R0g[i]) * (N->Rg[i] - (1 - e) * R0g[i]);
    global_sums(&s, 1);
    *rho = sqrt(s) / (e * r0);
    return HDG_OK;
}

/* --newton-check: rho(1e-3) and rho(1e-4) at s along d, reported and logged. Near convergence
 * |R(s + e d) - (1 - e) R(s)| = rho(1e-4) 1e-4 |R(s)| falls below the floor f0 = 100 eps ||M||,
 * where rounding in R decides the quotients: the log line says so, as a reader cannot tell. */
static hdg_status check_step(hdg_newton *N, int step, hdg_error *err)
{
    double r0, f0, rho[2];
    hdg_status st = residual(N, N->sl, N->st, &r0, &f0, err);
    if (st) return st;
    double *R0l = hdg_xmalloc(sizeof(double) * (size_t)N->nl), *R0g = hdg_xmalloc(sizeof(double) * (size_t)N->nt);
    memcpy(R0l, N->Rl, sizeof(double) * (size_t)N->nl);
    memcpy(R0g, N->Rg, sizeof(double) * (size_t)N->nt);
    st = check_defect(N, 1e-3, r0, R0l, R0g, &rho[0], err);
    if (!st) st = check_defect(N, 1e-4, r0, R0l, R0g, &rho[1], err);
    free(R0l), free(R0g);
    if (st) return st;
    hdg_report_array_push_number(N->rep, "newton.check_1e-3", rho[0]);
    hdg_report_array_push_number(N->rep, "newton.check_1e-4", rho[1]);
    if (N->o->log)
        fprintf(N->o->log, "  newton     check step %d: |R(s+e d) - (1-e) R(s)| / (e |R(s)|) = %.3e (e = 1e-3), "
                "%.3e (e = 1e-4)%s\n", step + 1, rho[0], rho[1],
                rho[1] * 1e-4 * r0 < f0 ? " (|R(s)| near rounding: no test)" : "");
    return HDG_OK;
}

void hdg_newton_history_text(const double *hist, int nhist, char *buf, size_t n)
{
    size_t l = 0;
    buf[0] = 0;
    for (int i = nhist > 40 ? nhist - 40 : 0; i < nhist && l + 16 < n; i++)
        l += (size_t)snprintf(buf + l, n - l, "%s%.3e", l ? ", " : "", hist[i]);
}

static void blockmat_apply(void *ctx, const double *x, double *y) { hdg_blockmat_spmv(ctx, x, y); }

/* Why Newton may have failed: the last Jacobian (the host's trace matrix, Dirichlet rows
 * eliminated) has a null space among the candidates of run_hdg_null.h, as a pure Neumann
 * problem's has (the solution is not unique, and the loop fixes no free constant). */
static void null_hint(const hdg_newton *N, char *b, size_t n)
{
    b[0] = 0;
    hdg_run *r = N->r;
    if (!r || !r->B.A || r->B.nf != r->mesh->nf) return;
    hdg_hdg_null Z;
    hdg_hdg_null_find(r->p, &r->L, r->mesh, r->o->dist, blockmat_apply, &r->B, r->amax, &Z);
    double dir = 0;
    for (int f = 0; r->isdir && f < r->mesh->nf && !dir; f++) dir = r->isdir[f] ? 1 : 0;
    if (r->o->dist) hdg_comm_max(&dir, 1);
    if (!Z.dim && !dir) {   /* the null vector of a nonlinear Jacobian need not be a constant: say what is known */
        snprintf(b, n, " (no face has Dirichlet data: if the solution is determined only up to a constant, as "
                 "with pure Neumann conditions, Newton cannot converge; it fixes no free constant yet)");
        return;
    }
    if (!Z.dim) return;
    char what[600];
    hdg_hdg_null_describe(r->p, &Z, what, sizeof what);
    snprintf(b, n, " (the Jacobian has a null space: %s; the solution is not unique, as with pure Neumann "
             "conditions, and Newton does not fix a free constant yet: give a Dirichlet face or a Robin or "
             "reaction term)", what);
}

static hdg_status fail_history(hdg_newton *N, const char *why, hdg_error *err)
{
    char h[1024], z[800];
    hdg_newton_history_text(N->hist, N->nhist, h, sizeof h);
    null_hint(N, z, sizeof z);
    hdg_report_bool(N->rep, "newton.converged", 0);
    if (N->where)
        return hdg_fail(err, HDG_ESOLVER, "%s: Newton at %s %s%s; residual history |R| = %s", N->p->name, N->where,
                        why, z, h);
    return hdg_fail(err, HDG_ESOLVER, "%s: Newton %s%s; residual history |R| = %s", N->p->name, why, z, h);
}

/* s_0: the projection of the first guess, the trace 0 with the Dirichlet data. */
static hdg_status first_guess(hdg_newton *N, hdg_error *err)
{
    hdg_run *r = N->r;
    int ne = r->mesh->ne;
    hdg_kernel_fn f = hdg_hdg_kernel(r, r->L.initial, err);
    if (!f) return err->code;
    hdg_kargs a = hdg_hdg_kargs(r, r->geom, ne);
    a.out[0] = N->sl;
    hdg_launch(f, ne, &a);
    int bad = hdg_nonfinite_first(N->sl, ne, r->L.nl, r->L.nl);
    if (bad >= 0) return hdg_hdg_initial_not_finite(r->p, bad, err);
    hdg_status st = hdg_hdg_dirichlet_data(r, err);
    if (st) return st;
    for (long long i = 0; i < N->nt; i++) N->st[i] = 0;
    hdg_newton_dirichlet(N);
    return HDG_OK;
}

void hdg_newton_dirichlet(hdg_newton *N)
{
    for (long long i = 0; i < N->nt; i++)
        if (dirichlet_dof(N->r, i)) N->st[i] = N->r->xD[i];
}

void hdg_newton_fallback(hdg_newton *N, hdg_error *err)
{
    /* the Jacobian looked symmetric and definite enough for CG, but is not (near Bratu's
     * turning point it becomes indefinite): GMRES for this step and the next ones */
    char why[300];
    snprintf(why, sizeof why, "step %d: %.200s; GMRES from this step on", N->nhist, err->msg);
    hdg_report_string(N->rep, "newton.solver_fallback", why);
    if (N->o->log) fprintf(N->o->log, "  newton     %s\n", why);
    N->gmres = 1;
    hdg_error_clear(err);
}

/* A trace solve accepted at its rounding floor (the solver's stopping rule) whose relative
 * residual is still above HDG_NEWTON_LINEAR_MAX gives no Newton step: the floor eps ||A|| ||x||
 * is that large only when x is, as for a singular or nearly singular Jacobian. */
#define HDG_NEWTON_LINEAR_MAX 1e-2
static hdg_status inexact(hdg_status st, const hdg_solve_info *info, const char *method, hdg_error *err)
{
    if (st || info->residual <= HDG_NEWTON_LINEAR_MAX) return st;
    return hdg_fail(err, HDG_ESOLVER, "%s stopped at a relative residual of %.3g after %d iterations, above %g: the "
                    "Jacobian is singular or nearly so (its rounding floor eps ||A|| ||x|| / ||b|| is %.2g)", method,
                    info->residual, info->iterations, HDG_NEWTON_LINEAR_MAX, info->floor);
}

/* Newton's linear system at s, solved: r->x = s'_t, r->xe = s'_l, copied into N->dl, N->dt. */
static hdg_status linear_step(hdg_newton *N, int *its, hdg_error *err)
{
    hdg_run *r = N->r;
    const hdg_mesh *M = r->mesh;
    if (!r->state_te) r->state_te = hdg_xmalloc(sizeof(double) * (size_t)M->ne * r->L.nt);
    to_elements(r, N->st, r->state_te);
    r->state_l = N->sl;
    hdg_status st = hdg_hdg_local_stage(r, err);
    if (!st) st = hdg_hdg_assemble_stage(r, err);
    if (st) return st;
    hdg_blockmat_apply_dirichlet_dofs(&r->B, r->rhs, r->isdir, r->mixed ? r->dofdir : NULL, r->xD,
                                      hdg_hdg_dirichlet_diag(r->amax));
    if (!r->x) r->x = hdg_xmalloc(sizeof(double) * (size_t)N->nt);
    memcpy(r->x, N->st, sizeof(double) * (size_t)N->nt);   /* the guess: the state's trace */
    hdg_hdg_ksp K;
    hdg_solve_info info = {0};
    st = hdg_comm_agree(hdg_hdg_ksp_init(&K, r, err), err);
    int cg = !st && !r->o->solver && !strcmp(K.s.method, "cg");   /* chosen, not given */
    if (cg && N->gmres) K.s.method = "gmres";
    if (!st) st = inexact(hdg_hdg_ksp_solve(&K, r, &info, err), &info, K.s.method, err);
    if (st == HDG_ESOLVER && cg && !N->gmres) {
        hdg_newton_fallback(N, err);
        K.s.method = "gmres";
        memcpy(r->x, N->st, sizeof(double) * (size_t)N->nt);
        st = inexact(hdg_hdg_ksp_solve(&K, r, &info, err), &info, K.s.method, err);
    }
    hdg_hdg_ksp_free(&K);
    *its = info.iterations;
    if (!st) st = hdg_hdg_recover(r, err);
    if (st) return st;
    memcpy(N->dl, r->xe, sizeof(double) * (size_t)N->nl);
    memcpy(N->dt, r->x, sizeof(double) * (size_t)N->nt);
    return HDG_OK;
}

/* The solution: the state (the last recovery was at s', the line search may have taken less). */
static hdg_status host_solution(hdg_newton *N, hdg_error *err)
{
    hdg_run *r = N->r;
    (void)err;
    if (!r->xe) r->xe = hdg_xmalloc(sizeof(double) * (size_t)N->nl);
    if (!r->x) r->x = hdg_xmalloc(sizeof(double) * (size_t)N->nt);
    memcpy(r->xe, N->sl, sizeof(double) * (size_t)N->nl);
    memcpy(r->x, N->st, sizeof(double) * (size_t)N->nt);
    return HDG_OK;
}

static const hdg_newton_ops host_ops = {first_guess, host_residual, linear_step, host_solution};

/* The attainable accuracy reached by stagnation: the last step reduced |R| by less than
 * a half from a residual already below sqrt(eps) |R_0|, where a Newton step in its
 * quadratic range would have gained many digits: what is left is rounding (in R, and
 * in the linear solve's tolerance relative to the right-hand side's size). */
static int stagnated(const hdg_newton *N)
{
    int n = N->nhist;
    return n >= 2 && N->hist[n - 1] > 0.5 * N->hist[n - 2] && N->hist[n - 2] <= sqrt(DBL_EPSILON) * N->hist[0];
}

/* max r_{n+1} / r_n^2 over the last two steps n whose r_{n+1} lies above 100 times
 * the final residual of a run stopped at the attainable accuracy (below that,
 * rounding, not Newton, sets r_{n+1}), and above 100 times the floor eps ||M||, and
 * whose r_n is below 1e-1 r_0 (past the global phase); 0 when none. */
double hdg_newton_quadratic_constant(const hdg_newton *N)
{
    double C = 0, lo = fmax(N->attained ? 100 * N->hist[N->nhist - 1] : 0, 100 * N->fl);
    for (int n = N->nhist - 2, used = 0; n >= 0 && used < 2; n--) {
        if (!(N->hist[n + 1] > lo) || !(N->hist[n] < 1e-1 * N->hist[0])) continue;
        double c = N->hist[n + 1] / (N->hist[n] * N->hist[n]);
        C = c > C ? c : C;
        used++;
    }
    return C;
}

void hdg_newton_init_ops(hdg_newton *N, const hdg_newton_ops *ops, void *ctx, const hdg_problem *p,
                         const hdg_run_options *o, hdg_report *rep, const hdg_mesh *M, const hdg_lowered *L)
{
    *N = (hdg_newton){.ops = ops, .ctx = ctx, .p = p, .o = o, .rep = rep, .nl = (long long)M->ne * L->nl,
                      .nt = (long long)M->nf * L->m, .m = L->m};
    double **v[] = {&N->sl, &N->dl, &N->tl, &N->Rl, &N->Ml};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) *v[i] = hdg_xcalloc((size_t)N->nl, sizeof(double));
    double **w[] = {&N->st, &N->dt, &N->tt, &N->Rg, &N->Mg};
    for (size_t i = 0; i < sizeof w / sizeof *w; i++) *w[i] = hdg_xcalloc((size_t)N->nt, sizeof(double));
    N->Rt = hdg_xcalloc((size_t)M->ne * L->nt, sizeof(double));
    N->Mt = hdg_xcalloc((size_t)M->ne * L->nt, sizeof(double));
}

void hdg_newton_init(hdg_newton *N, hdg_run *r)
{
    hdg_newton_init_ops(N, &host_ops, r, r->p, r->o, r->rep, r->mesh, &r->L);
    N->r = r;
}

void hdg_newton_free(hdg_newton *N)
{
    if (N->r) N->r->state_l = NULL;
    free(N->sl), free(N->dl), free(N->tl), free(N->Rl), free(N->Ml);
    free(N->st), free(N->dt), free(N->tt), free(N->Rg), free(N->Mg), free(N->Rt), free(N->Mt);
}

/* One backtracking line search from s along d; on success s is the new state and *rn its |R|. */
static hdg_status line_search(hdg_newton *N, double r0, double *rn, double *fl, double *alpha, int *nonfinite,
                              hdg_error *err)
{
    double a = 1;
    *nonfinite = 0;
    for (int h = 0; h <= HDG_NEWTON_HALVINGS; h++, a /= 2) {
        for (long long i = 0; i < N->nl; i++) N->tl[i] = N->sl[i] + a * N->dl[i];
        for (long long i = 0; i < N->nt; i++) N->tt[i] = N->st[i] + a * N->dt[i];
        double rt, ft;
        hdg_error e2 = {0};
        hdg_status st = residual(N, N->tl, N->tt, &rt, &ft, &e2);
        if (st && st != HDG_ESOLVER) { *err = e2; return st; }
        if (st) ++*nonfinite;
        if (!st && rt <= (1 - 1e-4 * a) * r0) {
            memcpy(N->sl, N->tl, sizeof(double) * (size_t)N->nl);
            memcpy(N->st, N->tt, sizeof(double) * (size_t)N->nt);
            *rn = rt, *fl = ft, *alpha = a;
            return HDG_OK;
        }
    }
    *alpha = 0;
    return HDG_ESOLVER;
}

hdg_status hdg_newton_solve(hdg_newton *N, const char *where, hdg_error *err)
{
    if (N->solve) return N->solve(N, where, err);   /* --newton snes (run_hdg_snes.c) */
    const hdg_run_options *o = N->o;
    int maxs = o->newton_max_steps > 0 ? o->newton_max_steps : 25;
    double rtol = o->newton_rtol > 0 ? o->newton_rtol : 1e-10, atol = o->newton_atol > 0 ? o->newton_atol : 0;
    if (maxs > HDG_NEWTON_MAX_HISTORY - 1) maxs = HDG_NEWTON_MAX_HISTORY - 1;
    N->where = where;
    N->nhist = N->steps = N->linear = N->linear_max = N->attained = 0;
    double rn = 0, fl = 0;
    hdg_status st = residual(N, N->sl, N->st, &rn, &fl, err);
    int step = 0;
    double t0 = hdg_wtime();
    while (!st) {
        N->hist[N->nhist++] = rn;
        if (N->arrays) hdg_report_array_push_number(N->rep, "newton.residuals", rn);
        if (o->log && !N->quiet)
            fprintf(o->log, "  newton %2d  |R| %.6e%s\n", step, rn, step ? "" : "  (first guess)");
        if (rn <= rtol * N->hist[0] + atol) break;
        if (rn <= fl || stagnated(N)) { N->attained = 1; break; }
        if (step == maxs) {
            char why[160];
            snprintf(why, sizeof why, "did not converge in %d steps (--newton-max-steps; |R| %.3e > %.3e)", maxs, rn,
                     fmax(rtol * N->hist[0] + atol, fl));
            st = fail_history(N, why, err);
            break;
        }
        int its = 0;
        if ((st = N->ops->linear_step(N, &its, err))) {
            if (st != HDG_ESOLVER && st != HDG_EINPUT) break;   /* a singular Jacobian is EINPUT: the history too */
            char why[600];
            snprintf(why, sizeof why, "step %d: the linear solve failed (%.400s)", step + 1, err->msg);
            st = fail_history(N, why, err);
            break;
        }
        N->linear += its;
        if (its > N->linear_max) N->linear_max = its;
        if (N->arrays) hdg_report_array_push_number(N->rep, "newton.linear_iterations", its);
        for (long long i = 0; i < N->nl; i++) N->dl[i] -= N->sl[i];   /* d = s' - s */
        for (long long i = 0; i < N->nt; i++) N->dt[i] -= N->st[i];
        double alpha, r0 = rn;
        if (o->newton_check && (st = check_step(N, step, err))) break;
        int nonfinite = 0;
        st = line_search(N, r0, &rn, &fl, &alpha, &nonfinite, err);
        if (st == HDG_ESOLVER && r0 <= sqrt(DBL_EPSILON) * N->hist[0]) {   /* no decrease left at the floor */
            st = HDG_OK, N->attained = 1;
            break;
        }
        if (st == HDG_ESOLVER) {
            char why[400], nf[240] = "";
            if (nonfinite)   /* the trial states left the range where the terms are defined */
                snprintf(nf, sizeof nf, "; at %d of the %d step lengths the residual was not finite: the steps leave "
                         "the range where the nonlinear terms or their derivatives are defined (sqrt(u), u^0.5 or "
                         "log(u) past u = 0)", nonfinite, HDG_NEWTON_HALVINGS + 1);
            snprintf(why, sizeof why, "stagnated at step %d: no step length down to 2^-%d decreases |R| %.3e "
                     "(a start too far from a solution, or no solution%s)", step + 1, HDG_NEWTON_HALVINGS, r0, nf);
            st = fail_history(N, why, err);
            break;
        }
        if (st) break;
        if (N->arrays) hdg_report_array_push_number(N->rep, "newton.alphas", alpha);
        if (o->log && !N->quiet && alpha < 1) fprintf(o->log, "  newton     line search: step length %g\n", alpha);
        step++;
    }
    N->steps = step, N->rn = rn, N->fl = fl;
    N->seconds = hdg_wtime() - t0;
    N->where = NULL;
    return st;
}

hdg_status hdg_newton_run(hdg_newton *N, hdg_error *err)
{
    const hdg_run_options *o = N->o;
    hdg_report *rep = N->rep;
    N->arrays = 1;
    hdg_status st = hdg_comm_agree(N->ops->first_guess(N, err), err);   /* a bad datum on one rank: all stop */
    if (!st) st = hdg_newton_solve(N, NULL, err);
    hdg_report_int(rep, "newton.steps", N->steps);
    hdg_report_int(rep, "newton.linear_iterations_total", N->linear);
    hdg_report_number(rep, "newton.seconds", N->seconds);
    if (st) return st;
    double C = hdg_newton_quadratic_constant(N);
    hdg_report_bool(rep, "newton.converged", 1);
    hdg_report_bool(rep, "newton.attainable", N->attained);
    hdg_report_number(rep, "newton.floor", N->fl);
    hdg_report_number(rep, "newton.quadratic_constant", C);
    if (o->log)
        fprintf(o->log, "  newton converged in %d steps (%s), |R| %.3e, quadratic constant C = max r_{n+1}/r_n^2 "
                "= %.3g\n", N->steps, N->attained ? "the attainable accuracy" : "the tolerance", N->rn, C);
    return N->ops->solution(N, err);
}

hdg_status hdg_run_hdg_newton(hdg_run *r, hdg_error *err)
{
    hdg_newton N;
    hdg_newton_init(&N, r);
    hdg_status st = hdg_newton_run(&N, err);
    hdg_newton_free(&N);
    return st;
}
