/* run_hdg_snes.c — Newton for nonlinear HDG through PETSc's SNES (`--newton snes`, issue 41;
 * docs/solvers.md, "Newton"): SNES owns the iteration, hdgc gives it F, the Jacobian's set-up
 * and the Jacobian's exact inverse (runtime/petsc/petsc.h, "SNES"; the module's side is
 * runtime/petsc/petsc_snes.c). Host, serial or under mpirun: the steady run (hdg_run_hdg_snes)
 * and every implicit solve of the time stepping (hdg_snes_attach: run_hdg_time.c's Newton state
 * gets it as its solve); refused on the device (drivers/run.c). Under mpirun SNES's rows on a
 * rank are its elements' and its owned faces' (trace_of, rows_of).
 *
 *   x      the state s = (s_l, s_t): the element dofs (ne x nl), then the trace dofs (nf x m),
 *          from the first guess of hdgc's own Newton (run_hdg_newton.c's host operations);
 *   F(x)   the residual kernel's rows: the element rows R_l, the assembled trace rows R_t, and
 *          on the Dirichlet dofs x_t - g (0 from the start on: the first guess holds g, and
 *          J^-1 keeps it), so |F| is the |R| of hdgc's loop; the floor 100 eps ||M|| of that
 *          loop stops SNES too (the attainable accuracy);
 *   J(x)   set up at each of SNES's Jacobian evaluations: the local kernel at x (K_e), the trace
 *          matrix assembled (kept as B0 before the Dirichlet elimination) and its solver;
 *   J^-1 b for any b = (b_l, b_t): the jinv_local kernel gives -C A^-1 b_l per element (A, C at
 *          x), K y_t = b_t + sum_e of them with the Dirichlet rows y_t = b_t there (lifted with
 *          B0), solved by the run's trace solver (--solver, --precond; PETSc's KSP under
 *          --solver petsc with the -trace_* options), then y_l = A^-1 (b_l - B y_t) by the
 *          jinv_recover kernel: the PCShell of SNES's KSP (preonly by default), so that one
 *          SNES step is hdgc's Newton step.
 *
 * --petsc under --newton snes: the options that start with -trace_ go (without "trace_") to
 * the trace solve, all others to SNES (-snes_*, -ksp_*, -pc_*, -snes_linesearch_*). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/run_hdg_newton.h"
#include "runtime/parallel/comm.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/petsc/petsc.h"
#include "support/util.h"

#define SNES_OPTS 4096

typedef struct snes_run {
    hdg_run *r;
    hdg_newton *N;               /* the state's storage, first guess and residual rows: own, or the
                                    time stepping's (hdg_snes_attach) */
    hdg_newton own;
    hdg_run_options o;           /* r->o with --petsc's -trace_* options only, for the trace solves */
    const hdg_run_options *user; /* the run's options */
    char snes_opts[SNES_OPTS], trace_opts[SNES_OPTS];
    long long nl, nt;
    double *sl, *ste;            /* the state of the last Jacobian: element dofs, trace element view */
    double *Fe, *ye, *rhs;       /* J^-1 b: ne x nt loads, the trace solution's element view, nt */
    hdg_blockmat B0;             /* the trace matrix before the Dirichlet elimination */
    hdg_hdg_ksp K;
    int ksp_ready, gmres;
    double diag;                 /* the Dirichlet rows' diagonal */
    int its_step, its_total, its_max, applies;   /* trace solve iterations: this step, this solve, one step */
    double hist[HDG_NEWTON_MAX_HISTORY];
    int nhist;
    double floor_;               /* the floor of the last F */
    double *x;                   /* SNES's x: this rank's rows (ns of them) */
    /* SNES's rows: the element dofs (nl), then the trace dofs of the faces this rank owns (all
     * serially; under mpirun a partition face's rows are its owner's): nown faces ofaces[] */
    long long ns;
    int nown, *ofaces;
    double *ft, *bt;             /* nt scratch: a full trace of the piece */
    const hdg_mesh_dist *dist;
} snes_run;

static int dirichlet_dof(const hdg_run *r, long long i)
{
    return r->isdir && r->isdir[i / r->L.m] && r->dofdir[i];
}

/* The trace of the piece (nt) from SNES's trace rows (the owned faces): the partition faces
 * this rank does not own get their owner's values (0 here, then summed over the two ranks). */
static void trace_of(const snes_run *S, const double *xt, double *t)
{
    int m = S->r->L.m;
    if (!S->dist) {   /* every face owned (under mpirun a rank may own all of its faces: it still sums) */
        memcpy(t, xt, sizeof(double) * (size_t)S->nt);
        return;
    }
    memset(t, 0, sizeof(double) * (size_t)S->nt);
    for (int k = 0; k < S->nown; k++) memcpy(t + (size_t)S->ofaces[k] * m, xt + (size_t)k * m, sizeof(double) * m);
    hdg_mesh_dist_face_sum(S->dist, m, t);
}

/* SNES's trace rows from a trace of the piece (its owned faces'). */
static void rows_of(const snes_run *S, const double *t, double *xt)
{
    int m = S->r->L.m;
    for (int k = 0; k < S->nown; k++) memcpy(xt + (size_t)k * m, t + (size_t)S->ofaces[k] * m, sizeof(double) * m);
}

/* The same return code on every rank (-1 before 1 before 0): a callback's collectives wait for all. */
static int agreed(const snes_run *S, int rc, hdg_error *err)
{
    if (!S->dist) return rc;
    double v[2] = {rc < 0, rc > 0};
    hdg_comm_sum(v, 2);
    if (v[0] > 0) {
        hdg_status st = hdg_comm_agree(rc < 0 ? (err->code ? err->code : HDG_EINTERNAL) : HDG_OK, err);
        (void)st;
        return -1;
    }
    return v[1] > 0 ? 1 : 0;
}

/* A token of an options string: its start and length (after blanks); 0 at the end. */
static size_t token(const char **s)
{
    while (**s == ' ' || **s == '\t' || **s == '\n') (*s)++;
    size_t n = 0;
    while ((*s)[n] && (*s)[n] != ' ' && (*s)[n] != '\t' && (*s)[n] != '\n') n++;
    return n;
}

static int is_name(const char *t, size_t n)
{
    char *end;
    if (n < 2 || t[0] != '-') return 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", (int)(n < 63 ? n : 63), t);
    strtod(buf, &end);   /* "-1e-3" is a value */
    return *end != '\0';
}

static int append(char *dst, const char *t, size_t n)
{
    size_t l = strlen(dst);
    if (l + n + 2 >= SNES_OPTS) return -1;
    snprintf(dst + l, SNES_OPTS - l, "%s%.*s", l ? " " : "", (int)n, t);
    return 0;
}

/* The user's --petsc split: "-trace_X v" into trace as "-X v", the rest into snes. */
static hdg_status split_options(const char *user, char *snes, char *trace, hdg_error *err)
{
    snes[0] = trace[0] = '\0';
    const char *s = user ? user : "";
    char *to = snes;
    int bad = 0;
    for (size_t n; (n = token(&s)) > 0; s += n) {
        if (is_name(s, n) && n > 7 && !strncmp(s, "-trace_", 7)) {
            to = trace;
            if (append(to, s + 6, n - 6)) bad = 1;   /* "_X", its '_' made a '-' */
            else to[strlen(to) - (n - 6)] = '-';
            continue;
        }
        if (is_name(s, n)) to = snes;
        bad |= append(to, s, n);
    }
    if (bad) return hdg_fail(err, HDG_EINPUT, "--petsc: the options are too long for --newton snes");
    return HDG_OK;
}

/* Element-view trace of a global trace vector. */
static void to_elements(hdg_run *r, const double *x, double *xe)
{
    const hdg_mesh *M = r->mesh;
    if (!r->maps.buf) hdg_hdg_face_maps(&r->L, &r->maps);
    hdg_blockmat_scatter_maps(M->ne, M->ef, M->eforient, &r->maps.S, x, xe);
}

/* F(x): the residual rows, x_t - g on the Dirichlet dofs; the floor 100 eps ||M|| (under mpirun
 * the partition faces' rows summed over their two ranks, the sums over every rank). */
static int snes_residual(void *ctx, const double *x, double *F, double *floor_, hdg_error *err)
{
    snes_run *S = ctx;
    hdg_newton *N = S->N;
    hdg_run *r = S->r;
    int m = r->L.m;
    trace_of(S, x + S->nl, S->ft);
    if (N->ops->residual(N, x, S->ft, err)) return agreed(S, -1, err);
    hdg_mesh_dist_face_sum(S->dist, m, N->Rg);
    hdg_mesh_dist_face_sum(S->dist, m, N->Mg);
    double m2 = 0;
    int finite = 1;
    for (long long i = 0; i < S->nl; i++) F[i] = N->Rl[i], m2 += N->Ml[i] * N->Ml[i], finite &= isfinite(F[i]);
    for (int k = 0; k < S->nown; k++)
        for (int j = 0; j < m; j++) {
            long long i = (long long)S->ofaces[k] * m + j, o = S->nl + (long long)k * m + j;
            int d = dirichlet_dof(r, i);
            F[o] = d ? S->ft[i] - r->xD[i] : N->Rg[i];
            if (!d) m2 += N->Mg[i] * N->Mg[i];
            finite &= isfinite(F[o]);
        }
    if (S->dist) hdg_comm_sum(&m2, 1), hdg_comm_bcast(&m2, sizeof m2, 0);
    *floor_ = S->floor_ = HDG_NEWTON_FLOOR * DBL_EPSILON * sqrt(m2);
    return agreed(S, finite ? 0 : 1, err);
}

static hdg_status blockmat_copy(hdg_blockmat *dst, const hdg_blockmat *src, hdg_error *err)
{
    if (!dst->A) {
        hdg_status st = hdg_blockmat_init(dst, src->nf, src->m, src->na, src->nbr, err);
        if (st) return st;
    }
    memcpy(dst->A, src->A, sizeof(double) * (size_t)src->nf * src->na * src->m * src->m);
    return HDG_OK;
}

static int check_inverse(snes_run *S, const double *x, hdg_error *err);

/* A trace solve refused its options: the message says they came as --petsc's -trace_* ones. */
static int trace_options_failed(snes_run *S, hdg_error *err)
{
    if (err->code == HDG_EINPUT && S->o.petsc) {
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "--newton snes: the trace solve with --petsc's -trace_* options (\"%.200s\" without "
                 "\"trace_\"): %.1500s", S->o.petsc, err->msg);
        hdg_fail(err, HDG_EINPUT, "%s", m);
    }
    return -1;
}

/* J at x: K_e at the state, the trace matrix (B0; r->B eliminated) and its solver. */
static int snes_jacobian(void *ctx, const double *x, hdg_error *err)
{
    snes_run *S = ctx;
    hdg_run *r = S->r;
    memcpy(S->sl, x, sizeof(double) * (size_t)S->nl);
    trace_of(S, x + S->nl, S->ft);
    to_elements(r, S->ft, S->ste);
    r->state_l = S->sl, r->state_te = S->ste;
    hdg_status st = hdg_hdg_local_stage(r, err);
    if (!st) st = hdg_hdg_assemble_stage(r, err);
    if (!st) st = blockmat_copy(&S->B0, &r->B, err);
    if ((st = hdg_comm_agree(st, err))) return -1;
    S->diag = hdg_hdg_dirichlet_diag(r->amax);
    hdg_blockmat_apply_dirichlet_dofs(&r->B, r->rhs, r->isdir, r->mixed ? r->dofdir : NULL, r->xD, S->diag);
    if (S->ksp_ready) hdg_hdg_ksp_free(&S->K), S->ksp_ready = 0;
    if (hdg_comm_agree(hdg_hdg_ksp_init(&S->K, r, err), err)) return trace_options_failed(S, err);
    S->ksp_ready = 1;
    if (S->gmres && !S->o.solver && !strcmp(S->K.s.method, "cg")) S->K.s.method = "gmres";
    return S->user->newton_check ? check_inverse(S, x, err) : 0;
}

/* The trace solve of J^-1 b (r->rhs, r->x); a chosen CG that breaks down: GMRES from then on. */
static hdg_status trace_solve(snes_run *S, hdg_error *err)
{
    hdg_run *r = S->r;
    hdg_solve_info info = {0};
    memset(r->x, 0, sizeof(double) * (size_t)S->nt);
    hdg_status st = hdg_hdg_ksp_solve(&S->K, r, &info, err);
    if (st == HDG_ESOLVER && !S->o.solver && !strcmp(S->K.s.method, "cg")) {
        S->N->nhist = S->nhist;
        hdg_newton_fallback(S->N, err);
        S->gmres = 1, S->K.s.method = "gmres";
        memset(r->x, 0, sizeof(double) * (size_t)S->nt);
        st = hdg_hdg_ksp_solve(&S->K, r, &info, err);
    }
    S->its_step += info.iterations, S->its_total += info.iterations;
    return st;
}

/* y = J^-1 b at the state of the last Jacobian, by static condensation. */
static int snes_apply(void *ctx, const double *b, double *y, hdg_error *err)
{
    snes_run *S = ctx;
    hdg_run *r = S->r;
    const hdg_mesh *M = r->mesh;
    int ne = M->ne;
    hdg_kernel_fn fl = hdg_hdg_kernel(r, r->L.jinv_local, err), fr = fl ? hdg_hdg_kernel(r, r->L.jinv_recover, err) : NULL;
    if (!fr) return -1;
    hdg_kargs a = hdg_hdg_kargs(r, r->geom, ne);
    a.in[0] = S->sl, a.in[1] = S->ste, a.in[2] = b;
    a.out[0] = S->Fe;
    hdg_launch(fl, ne, &a);
    double *bt = S->bt;   /* b's trace rows on the owned faces, 0 elsewhere: a partial sum as the rhs */
    memset(bt, 0, sizeof(double) * (size_t)S->nt);
    for (int k = 0; k < S->nown; k++)
        memcpy(bt + (size_t)S->ofaces[k] * r->L.m, b + S->nl + (size_t)k * r->L.m, sizeof(double) * r->L.m);
    memset(S->rhs, 0, sizeof(double) * (size_t)S->nt);
    hdg_blockmat_assemble_rhs_maps(M->nf, S->rhs, S->Fe, M->ef, M->eforient, M->fe, M->flf, &r->maps.S);
    for (long long i = 0; i < S->nt; i++) S->rhs[i] = (S->rhs[i] + bt[i]) * (r->negated ? -1 : 1);
    hdg_blockmat_dirichlet_rhs(&S->B0, S->rhs, r->isdir, r->mixed ? r->dofdir : NULL, bt, S->diag);
    memcpy(r->rhs, S->rhs, sizeof(double) * (size_t)S->nt);
    if (agreed(S, trace_solve(S, err) ? -1 : 0, err)) return trace_options_failed(S, err);
    S->applies++;
    rows_of(S, r->x, y + S->nl);
    to_elements(r, r->x, S->ye);
    a = hdg_hdg_kargs(r, r->geom, ne);
    a.in[0] = S->ye, a.in[1] = S->sl, a.in[2] = S->ste, a.in[3] = b;
    a.out[0] = y;
    hdg_launch(fr, ne, &a);
    return 0;
}

/* --newton-check on under SNES, at every Jacobian: J^-1 applied to a pseudo-random b (entries
 * in [-1, 1], Dirichlet rows too) against the residual's central differences along y = J^-1 b:
 *   rho(e) = |(F(x + h y) - F(x - h y)) / 2h - b| / |b|,  h = e |x| / |y|,
 * O(e^2) when J^-1 is the inverse of the residual's derivative (a hundredfold fall from
 * e = 1e-3 to 1e-4 until rounding), O(1) when it is not. Reported: newton.jinv_check_1e-3[],
 * newton.jinv_check_1e-4[]. */
static double norm2(const snes_run *S, const double *v, long long n)
{
    double s = 0;
    for (long long i = 0; i < n; i++) s += v[i] * v[i];
    if (S->dist) hdg_comm_sum(&s, 1), hdg_comm_bcast(&s, sizeof s, 0);
    return sqrt(s);
}

static int check_inverse(snes_run *S, const double *x, hdg_error *err)
{
    long long n = S->ns;
    double *b = hdg_xmalloc(sizeof(double) * (size_t)n * 5), *y = b + n, *xs = y + n, *Fp = xs + n, *Fm = Fp + n;
    unsigned long long g = 0x9E3779B97F4A7C15ull ^ (unsigned long long)S->nhist ^ ((unsigned long long)hdg_comm_rank() << 32);
    for (long long i = 0; i < n; i++) {
        g = g * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = 2.0 * (double)(g >> 11) * 0x1.0p-53 - 1.0;
    }
    int its = S->its_step, tot = S->its_total, app = S->applies, rc = snes_apply(S, b, y, err);
    S->its_step = its, S->its_total = tot, S->applies = app;
    double xn = norm2(S, x, n), yn = norm2(S, y, n), bn = norm2(S, b, n), fl = S->floor_, rho[2] = {0, 0}, dummy;
    for (int t = 0; t < 2 && !rc; t++) {
        double h = (t ? 1e-4 : 1e-3) * (xn > 0 ? xn : 1) / (yn > 0 ? yn : 1), s = 0;
        for (long long i = 0; i < n; i++) xs[i] = x[i] + h * y[i];
        rc = snes_residual(S, xs, Fp, &dummy, err);
        for (long long i = 0; i < n && rc >= 0; i++) xs[i] = x[i] - h * y[i];
        if (rc >= 0) rc = snes_residual(S, xs, Fm, &dummy, err) < 0 ? -1 : rc;
        for (long long i = 0; i < n && rc >= 0; i++) s += pow((Fp[i] - Fm[i]) / (2 * h) - b[i], 2);
        if (S->dist && rc >= 0) hdg_comm_sum(&s, 1), hdg_comm_bcast(&s, sizeof s, 0);
        rho[t] = rc ? NAN : sqrt(s) / bn;
        if (rc > 0) rc = 0;
    }
    S->floor_ = fl;
    free(b);
    if (rc) return rc;
    hdg_report_array_push_number(S->r->rep, "newton.jinv_check_1e-3", rho[0]);
    hdg_report_array_push_number(S->r->rep, "newton.jinv_check_1e-4", rho[1]);
    if (S->user->log)
        fprintf(S->user->log, "  newton     check J^-1 at step %d: |(F(x+hy) - F(x-hy))/2h - b| / |b| = %.3e "
                "(h = 1e-3 |x|/|y|), %.3e (1e-4)\n", S->nhist, rho[0], rho[1]);
    return 0;
}

static void snes_monitor(void *ctx, int it, double fnorm, double lambda)
{
    snes_run *S = ctx;
    const hdg_run_options *o = S->user;
    int arrays = S->N->arrays, log = o->log && !S->N->quiet;
    if (S->nhist < HDG_NEWTON_MAX_HISTORY) S->hist[S->nhist++] = fnorm;
    if (arrays) hdg_report_array_push_number(S->r->rep, "newton.residuals", fnorm);
    if (arrays && it > 0) hdg_report_array_push_number(S->r->rep, "newton.linear_iterations", S->its_step);
    if (arrays && it > 0) hdg_report_array_push_number(S->r->rep, "newton.alphas", lambda);
    if (S->its_step > S->its_max) S->its_max = S->its_step;
    S->its_step = 0;
    if (log && it > 0 && lambda < 1) fprintf(o->log, "  newton     line search: step length %g\n", lambda);
    if (log) fprintf(o->log, "  newton %2d  |R| %.6e%s\n", it, fnorm, it ? "" : "  (first guess; SNES)");
}


static void report(snes_run *S, const hdg_petsc_snes_info *in, double seconds)
{
    hdg_report *rep = S->r->rep;
    hdg_report_string(rep, "newton.method", "snes");
    hdg_report_string(rep, "newton.snes_type", in->snes_type);
    hdg_report_string(rep, "newton.linesearch", in->linesearch);
    hdg_report_string(rep, "newton.ksp_type", in->ksp_type);
    hdg_report_string(rep, "newton.pc_type", in->pc_type);
    hdg_report_string(rep, "newton.reason", in->reason);
    hdg_report_int(rep, "newton.steps", in->steps);
    hdg_report_int(rep, "newton.snes_ksp_iterations", in->ksp_iterations);
    hdg_report_int(rep, "newton.jinv_applications", S->applies);
    hdg_report_int(rep, "newton.linear_iterations_total", S->its_total);
    hdg_report_number(rep, "newton.seconds", seconds);
    if (in->init_seconds > 0) hdg_report_number(rep, "newton.petsc_init_seconds", in->init_seconds);
    if (S->o.petsc) hdg_report_string(rep, "newton.trace_options", S->o.petsc);
}

static void snes_close(snes_run *S)
{
    if (!S) return;
    if (S->ksp_ready) hdg_hdg_ksp_free(&S->K);
    hdg_blockmat_free(&S->B0);
    free(S->sl), free(S->ste), free(S->Fe), free(S->ye), free(S->rhs), free(S->x);
    free(S->ofaces), free(S->ft), free(S->bt);
    S->r->state_l = NULL, S->r->state_te = NULL;
    S->r->o = S->user;
    if (S->N == &S->own) hdg_newton_free(&S->own);
    free(S);
}

/* The SNES of run r on N's state (N: NULL for one of its own). r->o is the trace solves' options
 * until snes_close. */
static hdg_status snes_open(hdg_run *r, hdg_newton *N, snes_run **out, hdg_error *err)
{
    snes_run *S = hdg_xcalloc(1, sizeof *S);
    S->r = r, S->user = r->o, S->o = *r->o;
    if (!N) hdg_newton_init(&S->own, r), N = &S->own;
    S->N = N, S->nl = N->nl, S->nt = N->nt;
    long long net = (long long)r->mesh->ne * r->L.nt;
    S->sl = hdg_xcalloc((size_t)S->nl, sizeof(double));
    S->ste = hdg_xcalloc((size_t)net, sizeof(double)), S->ye = hdg_xcalloc((size_t)net, sizeof(double));
    S->Fe = hdg_xcalloc((size_t)net, sizeof(double));
    S->rhs = hdg_xcalloc((size_t)S->nt, sizeof(double));
    S->ft = hdg_xcalloc((size_t)S->nt, sizeof(double)), S->bt = hdg_xcalloc((size_t)S->nt, sizeof(double));
    S->dist = r->o->dist;
    const hdg_mesh *M = r->mesh;
    S->ofaces = hdg_xmalloc(sizeof(int) * (size_t)(M->nf > 0 ? M->nf : 1));
    for (int f = 0; f < M->nf; f++)
        if (!S->dist || S->dist->fowner[f] == S->dist->rank) S->ofaces[S->nown++] = f;
    S->ns = S->nl + (long long)S->nown * r->L.m;
    S->x = hdg_xcalloc((size_t)S->ns, sizeof(double));
    if (!r->x) r->x = hdg_xcalloc((size_t)S->nt, sizeof(double));
    hdg_status st = split_options(r->o->petsc, S->snes_opts, S->trace_opts, err);
    S->o.petsc = S->trace_opts[0] ? S->trace_opts : NULL;
    r->o = &S->o;   /* the trace solves see the -trace_* options only */
    *out = S;
    return st;
}

/* SNES from N's state (sl, st) to the solution in it, as hdg_newton_solve (N->steps, linear,
 * linear_max, seconds, hist, rn, fl, attained filled). where: NULL, or the time step's words. */
static hdg_status snes_solve(snes_run *S, const char *where, hdg_petsc_snes_info *info, hdg_error *err)
{
    hdg_newton *N = S->N;
    const hdg_run_options *o = S->user;
    memcpy(S->x, N->sl, sizeof(double) * (size_t)S->nl);
    rows_of(S, N->st, S->x + S->nl);
    S->nhist = S->its_step = S->its_total = S->its_max = 0;
    hdg_petsc_snes_ops ops = {S, S->ns, snes_residual, snes_jacobian, snes_apply, snes_monitor};
    hdg_petsc_snes_opts so = {S->snes_opts[0] ? S->snes_opts : NULL, o->newton_rtol > 0 ? o->newton_rtol : 1e-10,
                              o->newton_atol, o->newton_max_steps > 0 ? o->newton_max_steps : 25, S->dist != NULL};
    double t0 = hdg_wtime();
    hdg_status st = hdg_petsc_snes_solve(&ops, &so, S->x, info, err);
    N->seconds = hdg_wtime() - t0;
    N->steps = info->steps, N->linear = S->its_total, N->linear_max = S->its_max;
    N->nhist = S->nhist;
    memcpy(N->hist, S->hist, sizeof(double) * (size_t)S->nhist);
    N->attained = info->floor_stop, N->fl = S->floor_, N->rn = S->nhist ? S->hist[S->nhist - 1] : 0;
    if (st == HDG_ESOLVER) {
        char h[1024], msg[sizeof err->msg];
        hdg_newton_history_text(S->hist, S->nhist, h, sizeof h);
        const char *dom = !strcmp(info->reason, "DIVERGED_FUNCTION_DOMAIN")
                              ? (info->steps ? " (the residual at a state SNES tried was not finite: the state left "
                                               "the range where the nonlinear terms or their derivatives are defined)"
                                             : " (the residual of the first guess is not finite: a nonlinear term or "
                                               "one of its derivatives is not defined there, e.g. sqrt(u) or u^0.5 "
                                               "from u = 0, whose derivative is infinite; start elsewhere with "
                                               "'initial')")
                              : "";
        snprintf(msg, sizeof msg, "%.100s: Newton (SNES %s, line search %s)%s%.100s did not converge: %.400s%s; "
                 "residual history |R| = %.800s", S->r->p->name, info->snes_type, info->linesearch,
                 where ? " at " : "", where ? where : "", err->msg, dom, h[0] ? h : "(none)");
        hdg_fail(err, HDG_ESOLVER, "%s", msg);
    }
    if (st) return st;
    memcpy(N->sl, S->x, sizeof(double) * (size_t)S->nl);
    trace_of(S, S->x + S->nl, N->st);
    return HDG_OK;
}

/* hdg_newton.solve of the time stepping (hdg_snes_attach). */
static hdg_status snes_solve_hook(hdg_newton *N, const char *where, hdg_error *err)
{
    hdg_petsc_snes_info info;
    return snes_solve(N->solve_ctx, where, &info, err);
}

hdg_status hdg_snes_attach(hdg_newton *N, hdg_error *err)
{
    snes_run *S;
    hdg_status st = snes_open(N->r, N, &S, err);
    if (st) {
        snes_close(S);
        return st;
    }
    N->solve = snes_solve_hook, N->solve_ctx = S;
    hdg_report_string(N->r->rep, "newton.method", "snes");
    return HDG_OK;
}

void hdg_snes_detach(hdg_newton *N)
{
    if (!N->solve_ctx) return;
    snes_close(N->solve_ctx);
    N->solve = NULL, N->solve_ctx = NULL;
}

hdg_status hdg_run_hdg_snes(hdg_run *r, hdg_error *err)
{
    snes_run *S;
    hdg_status st = snes_open(r, NULL, &S, err);
    hdg_newton *N = S->N;
    N->arrays = 1;
    if (!st) st = N->ops->first_guess(N, err);
    hdg_petsc_snes_info info = {0};
    if (!st) {
        st = snes_solve(S, NULL, &info, err);
        report(S, &info, N->seconds);
    }
    hdg_report_bool(r->rep, "newton.converged", !st);
    if (!st) {
        double C = hdg_newton_quadratic_constant(N);
        hdg_report_bool(r->rep, "newton.attainable", info.floor_stop);
        hdg_report_number(r->rep, "newton.floor", S->floor_);
        hdg_report_number(r->rep, "newton.quadratic_constant", C);
        if (S->user->log)
            fprintf(S->user->log, "  newton converged in %d steps (SNES %s, %s), |R| %.3e, quadratic constant C = "
                    "max r_{n+1}/r_n^2 = %.3g\n", info.steps, info.snes_type, info.reason, N->rn, C);
        st = N->ops->solution(N, err);
    }
    snes_close(S);
    return st;
}
