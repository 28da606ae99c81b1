/* run_hdg_solver.c — the trace system's solver, shared by the host and device HDG
 * drivers (see run_hdg_common.h): the indefiniteness test on the assembled numbers, the
 * choice of solver and preconditioner, the near-singularity check from the Krylov
 * estimates, and the solve's report and warnings. */
#include "drivers/run_hdg_common.h"
#include "drivers/run_hdg_null.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/petsc/petsc.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/parallel/comm.h"
#include "support/util.h"
/* The Krylov monitor: "CG iteration 12, residual 3.1e-09 (rtol 1e-14)" on the progress line. */
static void solve_progress(void *ctx, int it, double relres)
{
    hdg_hdg_solver *s = ctx;
    hdg_progress_update(&s->line, 0, "solve: %s iteration %d, residual %.2e (rtol %.0e)",
                        !strcmp(s->method, "cg") ? "CG" : "GMRES", it, relres, s->so.rtol);
}

/* The name of component c of trace unknown u: "phat", "uhat.x", "S.xy". */
static void component_name(const hdg_unknown *U, int c, char *buf, size_t size)
{
    static const char *vec[] = {"x", "y", "z"}, *ten[] = {"xx", "xy", "yx", "yy"},
                      *ten3[] = {"xx", "xy", "xz", "yx", "yy", "yz", "zx", "zy", "zz"};
    if (U->ncomp == 1) snprintf(buf, size, "%s", U->name);
    else if (U->ncomp <= 3) snprintf(buf, size, "%s.%s", U->name, vec[c % 3]);
    else if (U->ncomp == 4) snprintf(buf, size, "%s.%s", U->name, ten[c & 3]);
    else if (U->ncomp == 9) snprintf(buf, size, "%s.%s", U->name, ten3[c % 9]);
    else snprintf(buf, size, "%s[%d]", U->name, c);
}

/* z'Kz, |K z| on this piece, |z|^2 over the free faces it owns and over those it has, of the
 * constant (linear = 0) or of the linear function x + 0.618 y (linear = 1, face by face) of the
 * component whose mode 0 is dof o of a face. */
static void probe_energy(const hdg_mesh *M, int m, int o, int linear, const unsigned char *dofdir,
                         const hdg_mesh_dist *dist, hdg_hdg_apply_fn apply, void *ctx, double *z, double *y, double out[4])
{
    long long n = (long long)M->nf * m;
    memset(z, 0, sizeof(double) * (size_t)n);
    double owned = 0, all = 0;
    for (int f = 0; f < M->nf; f++) {
        if (dofdir && dofdir[(size_t)f * m + o]) continue;
        double v = 1;
        if (linear) {   /* x + 0.618 y (+ 0.382 z) at the face's centroid: not constant on any mesh */
            hdg_hdg_face F;
            hdg_hdg_face_frame(M, f, &F);
            v = F.c[0] + 0.618 * F.c[1];
            if (F.dim == 3) v += 0.382 * F.c[2];
        }
        z[(size_t)f * m + o] = v, all += v * v;
        long long g = dist ? dist->fgid[f] - dist->fstart[dist->rank] : 0;
        owned += (!dist || (g >= 0 && g < dist->nf_owned)) ? v * v : 0;
    }
    apply(ctx, z, y);
    double e = 0, kz = 0;
    for (long long i = 0; i < n; i++) e += z[i] * y[i], kz += y[i] * y[i];
    out[0] = e, out[1] = sqrt(kz), out[2] = owned, out[3] = all;
}

void hdg_hdg_definiteness(const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *M, const unsigned char *dofdir,
                          double amax, const hdg_mesh_dist *dist, hdg_hdg_apply_fn apply, void *ctx,
                          hdg_report *rep, hdg_hdg_definite *d)
{
    memset(d, 0, sizeof *d);
    int m = L->m, nk = L->nk;
    double *z = hdg_xmalloc(sizeof(double) * ((size_t)M->nf * m + 1));
    double *y = hdg_xmalloc(sizeof(double) * ((size_t)M->nf * m + 1));
    for (int u = 0; u < p->nunknowns; u++) {
        const hdg_unknown *U = &p->unknowns[u];
        if (!U->trace || L->toff[u] < 0) continue;
        for (int c = 0; c < U->ncomp; c++) {
            double v[4], sums[2];
            /* the constant first; when it is a null vector (K z ~ 0 on every piece: the null
             * space's business), a linear function, so that a multiplier whose constant is free
             * (a pressure trace with Dirichlet velocity everywhere) is still seen */
            long long null = 1;
            int null_constant = 0;
            for (int linear = 0; linear < 2 && null; linear++) {
                null_constant = linear;
                probe_energy(M, m, L->toff[u] + c * nk, linear, dofdir, dist, apply, ctx, z, y, v);
                null = v[1] <= 1e-10 * amax * sqrt(v[3]);
                sums[0] = v[0], sums[1] = v[2];
                hdg_comm_sum(sums, 2);
                hdg_comm_imin(&null, 1);
            }
            if (null || !(sums[1] > 0) || !(amax > 0)) continue;
            double ratio = sums[0] / (amax * sums[1]);
            int kind = ratio < -HDG_HDG_INDEFINITE_TOL ? 1 : ratio <= HDG_HDG_INDEFINITE_TOL ? 2 : 0;
            if (kind && (!d->kind || ratio < d->ratio)) {
                d->kind = kind, d->ratio = ratio, d->linear = null_constant;
                component_name(U, c, d->what, sizeof d->what);
            }
        }
    }
    free(z), free(y);
    hdg_report_string(rep, "trace_matrix.definite", !d->kind ? "yes" : d->kind == 1 ? "negative energy" : "saddle point");
    if (!d->kind) return;
    hdg_report_string(rep, "trace_matrix.indefinite_component", d->what);
    hdg_report_number(rep, "trace_matrix.indefinite_energy", d->ratio);
}

/* "the trace system is indefinite: the constant of phat has no energy of its own ..." */
static void indefinite_words(const hdg_hdg_definite *d, char *buf, size_t size)
{
    const char *probe = d->linear ? "a linear function" : "the constant";
    if (d->kind == 1)
        snprintf(buf, size, "the trace system is indefinite: %s of %s has a negative energy (z'Kz = %.2g "
                 "amax |z|^2; a wave or negative reaction or Robin term)", probe, d->what, d->ratio);
    else
        snprintf(buf, size, "the trace system is a saddle point: %s of %s has no energy of its own (z'Kz = "
                 "%.2g amax |z|^2; a Lagrange multiplier such as a pressure)", probe, d->what, d->ratio);
}

static const char *join(hdg_hdg_solver *s, const char *mine, const char *user)
{
    snprintf(s->petsc_buf, sizeof s->petsc_buf, "%s%s%s", mine, user ? " " : "", user ? user : "");
    return s->petsc_buf;
}

/* The choice for an indefinite system (run_hdg_common.h); 1 when made. */
static hdg_status indefinite_choice(const hdg_run_options *o, long long n, const hdg_hdg_definite *d,
                                    hdg_hdg_solver *s, hdg_error *err)
{
    char why[400];
    indefinite_words(d, why, sizeof why);
    const char *env = getenv("HDGC_DIRECT_MAX");   /* tests: the mg path on small meshes */
    long long most = env && *env ? atoll(env) : HDG_HDG_DIRECT_MAX;
    int direct = n <= most;
    if (o->dist) {   /* run_mpi.c made the options PETSc's: a -pc_type or --precond block.. is the user's */
        if (!o->dist_mg || (o->petsc && strstr(o->petsc, "-pc_type"))) return HDG_OK;
        int ksp = o->petsc && strstr(o->petsc, "-ksp_type") != NULL;
        if (direct && !ksp) {
            s->petsc = join(s, HDG_HDG_DIRECT_OPTIONS, o->petsc), s->dist_mg = 0;
            snprintf(s->reason, sizeof s->reason, "%s: a direct solve (MUMPS LU) up to %lld unknowns", why,
                     most);
        } else {
            s->petsc = join(s, HDG_HDG_DIST_COARSE_LU_OPTIONS, o->petsc);
            snprintf(s->reason, sizeof s->reason, "%s: mg with a direct coarse solve (MUMPS LU), AMG does not "
                     "converge on it", why);
        }
        return HDG_OK;
    }
    if (o->petsc) return HDG_OK;
    if (!o->solver && !o->precond && !o->format) {
        if (!hdg_petsc_available())
            return hdg_fail(err, HDG_ESOLVER, "%s; CG and GMRES with mg or block Jacobi are not known to converge "
                            "on it and the direct solve needs the PETSc module, which does not load: try "
                            "--solver gmres --precond block (slow), or build hdgc with PETSc", why);
        if (direct) {
            s->method = "petsc", s->petsc = HDG_HDG_DIRECT_OPTIONS;
            snprintf(s->reason, sizeof s->reason, "%s: a direct solve (MUMPS LU) up to %lld unknowns", why,
                     most);
            return HDG_OK;
        }
        s->method = "gmres", s->precond = "mg";
        snprintf(s->reason, sizeof s->reason, "%s: GMRES with mg and a direct coarse solve (MUMPS LU) above %lld "
                 "unknowns, AMG does not converge on it", why, most);
    } else if (!strcmp(s->method, "petsc")) {
        s->petsc = HDG_HDG_DIRECT_OPTIONS;
        snprintf(s->reason, sizeof s->reason, "--solver petsc; %s: a direct solve (MUMPS LU)", why);
        return HDG_OK;
    } else if (!strcmp(s->precond, "mg")) {
        snprintf(s->reason, sizeof s->reason, "--solver/--precond given; %s: mg's coarse solve is a direct one "
                 "(MUMPS LU), AMG does not converge on it", why);
    } else {
        snprintf(s->reason, sizeof s->reason, "--solver/--precond given; %s", why);
        return HDG_OK;
    }
    s->petsc = HDG_HDG_COARSE_LU_OPTIONS;
    return HDG_OK;
}

hdg_status hdg_hdg_choose_solver(const hdg_run_options *o, double asym_rel, long long n,
                                 const hdg_hdg_definite *def, hdg_hdg_solver *s, hdg_error *err)
{
    hdg_progress_begin(&s->line, NULL);
    int symmetric = asym_rel <= HDG_HDG_SYMMETRIC;
    s->method = o->solver ? o->solver : (symmetric ? "cg" : "gmres");
    long long mg_min = strcmp(s->method, "gmres") ? HDG_HDG_MG_MIN : HDG_HDG_MG_MIN_GMRES;
    s->precond = o->precond ? o->precond : n >= mg_min && hdg_petsc_available() ? "mg" : "block";
    s->petsc = o->petsc, s->dist_mg = o->dist_mg;
    if (o->dist) snprintf(s->reason, sizeof s->reason, "under mpirun: PETSc's %s with %s", symmetric ? "CG" : "GMRES",
                          !o->dist_mg ? "the --precond given" : o->petsc && strstr(o->petsc, "-pc_type")
                          ? "the --petsc PC" : "the two-level PCMG");
    else if (o->solver || o->precond)
        snprintf(s->reason, sizeof s->reason, "given: --solver %s --precond %s", s->method, s->precond);
    else snprintf(s->reason, sizeof s->reason, "%s (K is %ssymmetric), %s (%lld unknowns %s %lld)", s->method,
                  symmetric ? "" : "not ", s->precond, n, n >= mg_min ? ">=" : "<", mg_min);
    int indefinite = def && def->kind;
    hdg_status st = indefinite ? indefinite_choice(o, n, def, s, err) : HDG_OK;
    if (st) return st;
    s->format = o->format ? o->format : "block";
    if (strcmp(s->format, "block") && strcmp(s->format, "csr"))
        return hdg_fail(err, HDG_EINPUT, "unknown matrix format '%s' (block, csr)", s->format);
    if (strcmp(s->precond, "mg") && strcmp(s->precond, "block") && strcmp(s->precond, "jacobi") &&
        strcmp(s->precond, "none"))
        return hdg_fail(err, HDG_EINPUT, "unknown preconditioner '%s' (mg, block, jacobi, none)", s->precond);
    if (strcmp(s->method, "cg") && strcmp(s->method, "gmres") && strcmp(s->method, "petsc"))
        return hdg_fail(err, HDG_EINPUT, "unknown solver '%s' (cg, gmres, petsc)", s->method);
    if (!strcmp(s->method, "petsc") && (o->precond || o->format))
        return hdg_fail(err, HDG_EINPUT, "--solver petsc: %s applies to the native solvers (PETSc's "
                        "preconditioner: --petsc \"-pc_type NAME\")", o->precond ? "--precond" : "--format");
    if (o->petsc && strcmp(s->method, "petsc") && strcmp(s->precond, "mg"))
        return hdg_fail(err, HDG_EINPUT, "--petsc applies to --solver petsc and to --precond mg (its coarse solve)");
    if (!strcmp(s->method, "cg") && !symmetric)
        return hdg_fail(err, HDG_EINPUT, "--solver cg: the trace matrix is not symmetric (relative asymmetry "
                        "%.3g), CG needs a symmetric matrix: use --solver gmres", asym_rel);
    if (o->rtol > 0 && o->rtol < DBL_EPSILON)
        return hdg_fail(err, HDG_EINPUT, "rtol %g: below the double precision epsilon 2.2e-16, out of any "
                        "solver's reach", o->rtol);
    s->so = hdg_solve_opts_default();
    s->so.rtol = !strcmp(s->method, "petsc") ? HDG_HDG_RTOL_PETSC : HDG_HDG_RTOL;
    s->so.attainable = HDG_HDG_ATTAINABLE;
    if (o->rtol > 0) s->so.rtol = o->rtol, s->so.attainable = 0;
    if (o->maxit > 0) s->so.maxit = o->maxit;
    else if (indefinite && s->petsc && !strcmp(s->petsc, HDG_HDG_COARSE_LU_OPTIONS))   /* mg + LU coarse: fast */
        s->so.maxit = HDG_HDG_INDEFINITE_MAXIT;
    else s->so.maxit = (int)fmin(100000, fmax(1000, 2.0 * (double)n));
    /* a Krylov space has at most n dimensions: a longer restart only costs memory */
    s->so.restart = o->restart > 0 ? o->restart : 100;
    if (s->so.restart > n) s->so.restart = (int)(n > 0 ? n : 1);
    if (o->progress && strcmp(s->method, "petsc")) {
        hdg_progress_begin(&s->line, stderr);
        s->so.verbose_every = 1;
        s->so.monitor = solve_progress;
        s->so.monitor_ctx = s;
    }
    return HDG_OK;
}

void hdg_hdg_report_solve(hdg_report *rep, hdg_hdg_solver *s, const hdg_solve_info *info, hdg_status st)
{
    hdg_progress_end(&s->line);
    hdg_report_string(rep, "solver.method", s->method);
    hdg_report_string(rep, "solver.reason", s->reason);
    hdg_report_number(rep, "solver.rtol", s->so.rtol);
    if (!strcmp(s->method, "petsc")) goto counts;   /* solver.ksp_type etc.: run_hdg.c */
    hdg_report_string(rep, "solver.format", s->format);
    hdg_report_string(rep, "solver.precond", s->precond);
    if (!strcmp(s->method, "gmres")) hdg_report_int(rep, "solver.restart", s->so.restart);
counts:
    if (info->floor > 0) hdg_report_number(rep, "solver.rounding_floor", info->floor);
    if (info->stagnated) hdg_report_string(rep, "solver.stopped", "attainable accuracy");
    else if (info->converged && !st) hdg_report_string(rep, "solver.stopped", "rtol");
    hdg_report_int(rep, "solver.iterations", info->iterations);
    hdg_report_number(rep, "solver.residual", info->residual);
    hdg_report_bool(rep, "solver.converged", info->converged && !st);
    if (info->sv_max > 0) {
        hdg_report_number(rep, "solver.sv_min", info->sv_min);
        hdg_report_number(rep, "solver.sv_max", info->sv_max);
    }
}

/* How much a relative residual may grow into the solution's relative error:
 * the condition number. A Krylov solve that needed n iterations to reduce its
 * residual by rho has, by CG's bound n ~ sqrt(kappa)/2 ln(2/rho), kappa near
 * (2n / ln(2/rho))^2 (at least 1). An estimate, not a bound (CG often does
 * better than its bound, restarted GMRES worse), but it tells a well
 * preconditioned solve (mg: 15-25 iterations, kappa ~ 2) from a one-level one
 * (thousands: kappa ~ 1e4 and more). */
static double amplification(const hdg_solve_info *info)
{
    double rho = info->residual, n = info->iterations;
    if (!(rho > 0 && rho < 1) || n < 1) return 1;
    double kappa = 2 * n / log(2 / rho);
    return fmax(1, kappa * kappa);
}

hdg_status hdg_hdg_near_singular(const hdg_solve_info *info, hdg_error *err)
{
    if (!(info->sv_max > 0) || info->sv_min > HDG_HDG_NEAR_SINGULAR * info->sv_max) return HDG_OK;
    return hdg_fail(err, HDG_EINPUT, "the trace system is singular to working precision: the Krylov estimates of "
                    "the preconditioned matrix's extreme eigenvalues (or singular values) are %.3g and %.3g (ratio "
                    "%.3g, below %g), so the solution is not determined by the data (e.g. a Robin coefficient that "
                    "is an eigenvalue of the problem, or a null space the trace unknowns' constants do not span); "
                    "change the data or the conditions", info->sv_min, info->sv_max, info->sv_min / info->sv_max,
                    HDG_HDG_NEAR_SINGULAR);
}

/* What removes the warning: an rtol below the residual the bound allows (1e-15 at least),
 * and for an ill-conditioned system a better preconditioner; worded for what was given: an
 * explicit --rtol, or the solver's default (a native solve or PETSc's). */
static void solve_remedy(const hdg_hdg_solver *s, double allowed, int conditioning, char *buf, size_t n)
{
    double want = fmax(1e-15, pow(10, floor(log10(allowed))));
    if (s && want >= s->so.rtol) want = fmax(1e-15, s->so.rtol / 10);   /* it stopped above its rtol */
    int petsc = s && s->method && !strcmp(s->method, "petsc");
    int given = s && !(s->so.attainable > 0);   /* an explicit --rtol turns the attainable rule off */
    const char *pc = !conditioning ? "" : petsc ? " or a stronger preconditioner (--petsc \"-pc_type ...\")"
                                                : " or --precond mg";
    if (given) snprintf(buf, n, "a smaller --rtol (%.0e)%s removes it", want, pc);
    else snprintf(buf, n, "--rtol %.0e (this solver's default is %.0e)%s removes it", want, s->so.rtol, pc);
}

void hdg_hdg_solve_warning(hdg_report *rep, const hdg_mesh *M, int k, const hdg_hdg_solver *s,
                           const hdg_solve_info *info)
{
    double h = 0;
    for (int f = 0; f < M->nf; f++) {   /* the longest edge */
        hdg_hdg_face F;
        hdg_hdg_face_frame(M, f, &F);
        h = fmax(h, F.h);
    }
    /* amplified: only a solve that stopped above the default rtol (a looser --rtol, or PETSc's) */
    double amp = info->stagnated || info->residual <= HDG_HDG_RTOL ? 1 : amplification(info);
    double bound = fmax(1e-13, 1e-5 * pow(h, k + 2));
    if (!(info->residual * amp > bound)) return;
    /* at the rounding floor no rtol goes lower: the summary says where it stopped (api/report.c) */
    if (info->stagnated && info->residual <= HDG_ROUNDING_FLOOR_FACTOR * info->floor) return;
    char msg[560], remedy[200];
    if (info->stagnated)   /* above the floor, below the default's fixed 1e-10: not rounding alone */
        snprintf(msg, sizeof msg, "the solve stagnated at relative residual %.2g, above %.2g (1e-5 h^(k+2), "
                 "h = %.3g, k = %d) and above its rounding floor %.2g: the algebraic error may dominate the "
                 "discretisation error; another --precond or --solver may go lower", info->residual, bound, h, k,
                 info->floor);
    else if (info->residual > bound) {
        solve_remedy(s, bound, 0, remedy, sizeof remedy);
        snprintf(msg, sizeof msg, "the solve stopped at relative residual %.2g, above %.2g (1e-5 h^(k+2), h = %.3g, "
                 "k = %d): the algebraic error may dominate the discretisation error; %s", info->residual, bound, h,
                 k, remedy);
    } else {   /* a small residual, but of an ill-conditioned system */
        solve_remedy(s, bound / amp, 1, remedy, sizeof remedy);
        snprintf(msg, sizeof msg, "the solve stopped at relative residual %.2g after %d iterations; that many "
                 "iterations mean a condition number near %.2g, so the relative error may be %.2g, above %.2g "
                 "(1e-5 h^(k+2), h = %.3g, k = %d): the algebraic error may dominate the discretisation error; %s",
                 info->residual, info->iterations, amp, info->residual * amp, bound, h, k, remedy);
    }
    hdg_report_string(rep, "solver.warning", msg);
}

/* ---------------------------------------------------------------- the uniqueness probe */

int hdg_hdg_probe_wanted(const hdg_hdg_definite *def, const hdg_solve_info *info)
{
    if (getenv("HDGC_NO_UNIQUE_PROBE")) return 0;   /* measurements of the solve alone */
    if (def && def->kind) return 1;
    return info && info->sv_max > 0 && info->sv_min <= HDG_HDG_PROBE_RATIO * info->sv_max;
}

/* A value in [-1, 1) from a global dof number (splitmix64): the same on every rank and run. */
static double probe_value(unsigned long long i)
{
    unsigned long long x = i + 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return (double)(x >> 11) / 4503599627370496.0 - 1.0;   /* 2^52 */
}

/* Sums over the faces this rank owns (all without dist): s[0] += a.b */
static double owned_dot(const hdg_mesh_dist *d, int nf, int m, const double *a, const double *b)
{
    double s = 0;
    for (int f = 0; f < nf; f++) {
        if (d && d->fowner[f] != d->rank) continue;
        for (int i = 0; i < m; i++) s += a[(size_t)f * m + i] * b[(size_t)f * m + i];
    }
    hdg_comm_sum(&s, 1);
    return s;
}

/* v -= (z.v / z.z) z for each of the nz (orthogonal) vectors z on every face of the piece
 * (z.v and z.z over the owned faces). */
static void probe_project(const hdg_mesh_dist *d, int nf, int m, const double *Z, int nz, double *v)
{
    long long n = (long long)nf * m;
    for (int j = 0; Z && j < nz; j++) {
        const double *z = Z + (size_t)j * (size_t)n;
        double c = owned_dot(d, nf, m, z, v) / owned_dot(d, nf, m, z, z);
        for (long long i = 0; i < n; i++) v[i] -= c * z[i];
    }
}

hdg_status hdg_hdg_unique_probe(int nf, int m, const hdg_mesh_dist *d, hdg_hdg_apply_fn apply,
                                hdg_hdg_solve_fn solve, void *ctx, const double *z, int nz, hdg_report *rep,
                                hdg_error *err)
{
    long long n = (long long)nf * m;
    double *w = hdg_xmalloc(sizeof(double) * (size_t)(n + 1)), *b = hdg_xmalloc(sizeof(double) * (size_t)(n + 1));
    double *x = hdg_xcalloc((size_t)n + 1, sizeof(double));
    for (int f = 0; f < nf; f++)
        for (int i = 0; i < m; i++)
            w[(size_t)f * m + i] = probe_value((unsigned long long)(d ? d->fgid[f] : f) * (unsigned)m + (unsigned)i);
    probe_project(d, nf, m, z, nz, w);   /* on the complement of the null space the solve works in */
    apply(ctx, w, b);
    double t0 = hdg_wtime();
    hdg_status st = solve(ctx, b, x, err);
    if (!st) {
        probe_project(d, nf, m, z, nz, x);
        for (long long i = 0; i < n; i++) x[i] -= w[i];
        double dev = sqrt(owned_dot(d, nf, m, x, x) / owned_dot(d, nf, m, w, w));
        hdg_report_number(rep, "solver.unique_probe", isfinite(dev) ? dev : -1);
        hdg_report_number(rep, "solver.unique_probe_seconds", hdg_wtime() - t0);
        if (!(dev <= HDG_HDG_UNIQUE_TOL))
            st = hdg_fail(err, HDG_EINPUT, "the trace system is singular or nearly so: solved for a known random "
                          "solution w (right-hand side K w), the same solver returned it with a relative error of "
                          "%.3g (above %g), so the solution is not determined by the data (e.g. a Robin coefficient "
                          "that is an eigenvalue of the problem, or a null space the trace unknowns' constants do "
                          "not span); change the data or the conditions", dev, HDG_HDG_UNIQUE_TOL);
    } else {
        char why[sizeof err->msg];
        memcpy(why, err->msg, sizeof why);
        why[sizeof why - 1] = 0;
        st = hdg_fail(err, st, "the trace system's uniqueness check (a solve for a known random solution) "
                      "failed: %s", why);
    }
    free(w), free(b), free(x);
    return st;
}
