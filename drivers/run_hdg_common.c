/* run_hdg_common.c — decisions, Dirichlet data, reports, time watches and output shared by
 * the host and device HDG drivers (see run_hdg_common.h). */
#include "drivers/run_hdg_common.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/mesh_data.h"
#include "drivers/nonfinite.h"
#include "drivers/run_hdg_null.h"
#include "drivers/time_scheme.h"
#include "runtime/fem/quadrature.h"
#include "runtime/fem/refel.h"
#include "runtime/output/vtk.h"
#include "runtime/output/vtk_dist.h"
#include "runtime/parallel/mesh_dist.h"
#include "runtime/parallel/comm.h"
#include "support/util.h"

double *hdg_hdg_params(const hdg_problem *p)
{
    double *v = hdg_xcalloc((size_t)p->nparams + 1, sizeof(double));
    for (int i = 0; i < p->nparams; i++) v[i] = p->params[i].value;
    return v;
}

/* S_o (nk x nk) for every orientation, S[o][b][a] = sum_q w_q phi_b(o(x_q)) phi_a(x_q) on a rule exact
 * to degree 2k; returns the number of orientations. */
static int trace_maps_nk(const hdg_lowered *L, double *S)
{
    int dim = L->dim, nk = L->nk, no = dim == 2 ? 2 : 6, n;
    hdg_error err;
    hdg_quad q = {0};
    double *x[2] = {NULL, NULL}, *w;
    if (dim == 2) {
        n = L->k + 1;
        x[0] = hdg_xmalloc(sizeof(double) * (size_t)n), w = hdg_xmalloc(sizeof(double) * (size_t)n);
        hdg_gauss_legendre(n, x[0], w, &err);
    } else {
        hdg_quad_simplex(&q, 2, 2 * L->k, &err);
        n = q.n, x[0] = q.x[0], x[1] = q.x[1], w = q.w;
    }
    double *Pa = hdg_xmalloc(sizeof(double) * (size_t)n * nk), *Pb = hdg_xmalloc(sizeof(double) * (size_t)n * nk);
    double *y[2] = {hdg_xmalloc(sizeof(double) * (size_t)n), hdg_xmalloc(sizeof(double) * (size_t)n)};
    hdg_face_basis_eval(L->dim, L->k, n, (const double *const *)x, Pa);
    for (int o = 0; o < no; o++) {
        for (int i = 0; i < n; i++) {
            double xa[2] = {x[0][i], dim == 3 ? x[1][i] : 0}, xb[2] = {0, 0};
            hdg_face_orient_coords(dim, o, xa, xb);
            y[0][i] = xb[0], y[1][i] = xb[1];
        }
        hdg_face_basis_eval(L->dim, L->k, n, (const double *const *)y, Pb);
        for (int b = 0; b < nk; b++)
            for (int a = 0; a < nk; a++) {
                double v = 0;
                for (int i = 0; i < n; i++) v += w[i] * Pb[(size_t)i * nk + b] * Pa[(size_t)i * nk + a];
                S[((size_t)o * nk + b) * nk + a] = o ? v : a == b;   /* S_0 = I by definition */
            }
    }
    free(Pa), free(Pb), free(y[0]), free(y[1]);
    if (dim == 2) free(x[0]), free(w);
    else hdg_quad_free(&q);
    return no;
}

/* Every S_o a diagonal of +-1 to rounding. */
static int maps_diagonal(const double *S, int no, int nk)
{
    for (int o = 0; o < no; o++)
        for (int b = 0; b < nk; b++)
            for (int a = 0; a < nk; a++) {
                double v = S[((size_t)o * nk + b) * nk + a];
                if (fabs(a == b ? fabs(v) - 1 : v) > HDG_HDG_MAP_TOL) return 0;
            }
    return 1;
}

void hdg_hdg_face_maps(const hdg_lowered *L, hdg_hdg_maps *M)
{
    int nk = L->nk, m = L->m, no = L->dim == 2 ? 2 : 6;
    double *S = hdg_xmalloc(sizeof(double) * (size_t)no * nk * nk);
    trace_maps_nk(L, S);
    memset(M, 0, sizeof *M);
    M->S = (hdg_face_maps){L->nfe, no, m, NULL, NULL};
    if (maps_diagonal(S, no, nk)) {   /* the signs, exact: the flip vector's arithmetic */
        M->buf = hdg_xmalloc(sizeof(double) * (size_t)no * m);
        for (int o = 0; o < no; o++)
            for (int i = 0; i < m; i++) {
                double d = S[((size_t)o * nk + i % nk) * nk + i % nk];
                M->buf[(size_t)o * m + i] = d < 0 ? -1.0 : 1.0;
            }
        M->S.diag = M->buf;
    } else {   /* block diagonal over the trace components, nk x nk blocks */
        M->buf = hdg_xcalloc((size_t)no * m * m, sizeof(double));
        for (int o = 0; o < no; o++)
            for (int i = 0; i < m; i++)
                for (int j = i - i % nk; j < i - i % nk + nk; j++)
                    M->buf[((size_t)o * m + i) * m + j] = S[((size_t)o * nk + i % nk) * nk + j % nk];
        M->S.S = M->buf;
    }
    free(S);
}

void hdg_hdg_face_maps_free(hdg_hdg_maps *M)
{
    free(M->buf);
    memset(M, 0, sizeof *M);
}

void hdg_hdg_report_dofs(hdg_report *R, const hdg_mesh *mesh, const hdg_lowered *L)
{
    hdg_report_int(R, "dofs.trace", (long long)mesh->nf * L->m);
    hdg_report_int(R, "dofs.trace_per_face", L->m);
    hdg_report_int(R, "dofs.element", (long long)mesh->ne * L->nl);
    hdg_report_int(R, "dofs.element_per_element", L->nl);
}

/* The trace equation may be written with either sign; CG needs a positive
 * diagonal, so a system with a negative trace diagonal is negated (the
 * equation times -1: same solution). Symmetry is measured on K_e. */
hdg_status hdg_hdg_trace_sign(hdg_report *rep, double diag, double amax, double asym, double *amax_all,
                              int *negated, double *asym_rel, hdg_error *err)
{
    double mx[2] = {amax, asym};
    hdg_comm_sum(&diag, 1);
    hdg_comm_max(mx, 2);
    amax = *amax_all = mx[0], asym = mx[1];
    if (!isfinite(diag))
        return hdg_fail(err, HDG_ESOLVER, "the element matrices contain NaN or Inf "
                        "(a singular local system? check tau > 0 and the coefficients)");
    *asym_rel = amax > 0 ? asym / amax : 0;
    *negated = diag < 0;
    hdg_report_number(rep, "trace_matrix.symmetry_defect", *asym_rel);
    hdg_report_bool(rep, "trace_matrix.negated", *negated);
    return HDG_OK;
}

double hdg_hdg_dirichlet_diag(double amax)
{
    if (!(amax > 0) || !isfinite(amax)) return 1.0;
    int e;
    double f = frexp(amax / 8, &e);   /* amax / 8 = f 2^e, f in [0.5, 1) */
    if (f > 0.70710678118654752) e++;
    return ldexp(1.0, e - 1 < -1000 ? -1000 : e - 1 > 1000 ? 1000 : e - 1);
}

/* The stabilisation: a face term <c u, w> over every face, u and w values of
 * an element unknown and test with as many components (a scalar tau*(u - uhat)
 * or a vector one, component by component). Returns the atom or NULL. */
static const hdg_atom *stabilisation(const hdg_problem *p)
{
    for (int q = 0; q < p->nequations; q++) {
        const hdg_equation *E = &p->equations[q];
        for (int a = 0; a < E->natoms && !E->trace && !E->post; a++) {
            const hdg_atom *A = &E->atoms[a];
            if (A->domain == HDG_BOUNDARY && !A->markers && A->role == HDG_ROLE_LOCAL_LOCAL &&
                A->trial_op == HDG_OP_VALUE && A->test_op == HDG_OP_VALUE &&
                p->unknowns[A->trial].ncomp == p->tests[A->test].ncomp && A->trial_comp == A->test_comp)
                return A;
        }
    }
    return NULL;
}

/* An element equation whose test, constant on the element (component c),
 * meets no element unknown: only derivatives of the test (e.g. -(u, grad(q)))
 * and trace terms (<dot(uhat, n), q>). Its row of the local matrix is then 0
 * for the constants and the element means of some unknown are fixed by no
 * equation of the element (the element-wise constant pressure of HDG Stokes
 * without a pressure trace). Returns the equation (and *c), or NULL. */
static const hdg_equation *constant_blind(const hdg_problem *p, int *c)
{
    for (int q = 0; q < p->nequations; q++) {
        const hdg_equation *E = &p->equations[q];
        if (E->trace || E->post) continue;
        for (int k = 0; k < p->tests[E->test].ncomp; k++) {
            int sees = 0;
            for (int a = 0; a < E->natoms && !sees; a++) {
                const hdg_atom *A = &E->atoms[a];
                sees = A->test_comp == k && A->test_op == HDG_OP_VALUE &&
                       (A->role == HDG_ROLE_LOCAL_LOCAL || A->role == HDG_ROLE_TIME);
            }
            if (!sees) {
                *c = k;
                return E;
            }
        }
    }
    return NULL;
}

/* Largest |coef| of atom A at the centroids of element e's faces (outward normals). */
static double face_midpoint_max(const hdg_problem *p, const hdg_mesh *M, int e, const hdg_atom *A)
{
    double m = 0;
    for (int j = 0; j < hdg_mesh_nfe(M); j++) {
        hdg_hdg_face F;
        hdg_hdg_element_face(M, e, j, &F);
        hdg_eval_env env = {.x = F.c[0], .y = F.c[1], .z = F.c[2], .nx = F.n[0], .ny = F.n[1], .nz = F.n[2],
                            .problem = p};
        m = fmax(m, fabs(hdg_expr_eval(A->coef, &env)));
    }
    return m;
}

hdg_status hdg_hdg_bad_element(const hdg_problem *p, const hdg_mesh *M, int e, int matrix, hdg_error *err)
{
    char why[600];
    if (hdg_nonfinite_source(p, M, e, 0, matrix ? HDG_NF_TERMS : HDG_NF_SOURCES, why, sizeof why))
        return hdg_fail(err, HDG_EINPUT, "%s: the element system of element %d is not finite", why, e);
    if (!matrix)
        return hdg_fail(err, HDG_EINPUT, "the element right-hand side of element %d is not finite", e);
    const hdg_atom *A = stabilisation(p);
    char note[800] = "";
    int bc = 0;
    const hdg_equation *blind = constant_blind(p, &bc);
    if (blind) {
        const hdg_test *T = &p->tests[blind->test];
        char comp[32] = "";
        if (T->ncomp > 1) snprintf(comp, sizeof comp, " (component %d)", bc);
        snprintf(note, sizeof note, "; the equation at %s:%d:%d, with its test '%s'%s constant on the element, "
                 "meets no element unknown (only derivatives of '%s' and trace terms), so the element means of "
                 "an unknown are fixed by no equation of the element, e.g. the element-wise constant pressure of "
                 "HDG Stokes without a pressure trace: hdgc does not make those means global unknowns "
                 "(Nguyen-Peraire-Cockburn); add a trace for it coupled by a face term, e.g. "
                 "<dot(u, n) + eps*(p - phat), q>", p->file, blind->loc.line, blind->loc.col, T->name, comp,
                 T->name);
    } else if (!A) {
        snprintf(note, sizeof note, "; the problem has no stabilisation term (a face term <c*u, w> of an element "
                 "equation, e.g. tau*(u - uhat) in the flux), which the local problem needs");
    } else {
        double tau = face_midpoint_max(p, M, e, A);
        char *c = hdg_expr_str(p, A->coef);
        if (tau == 0)
            snprintf(note, sizeof note, "; the coefficient %s of its stabilisation term at %s:%d:%d is 0 there "
                     "(it must be positive)", c ? c : "?", p->file, A->loc.line, A->loc.col);
        else if (tau < 1e-6 || tau > 1e6)   /* e.g. kappa = tau = 1e-9: 1/kappa and tau 1e18 apart */
            snprintf(note, sizeof note, "; its stabilisation coefficient %s (%s:%d:%d) is %.2g there: with terms "
                     "of very different size (e.g. a mass term over a small diffusivity against a small %s) "
                     "pivots fall below 1e-14 of the largest entry, which the factorisation of the whole local "
                     "matrix takes for zero; rescale the problem's units (where the local kernel eliminates "
                     "component by component, as it does for LDG-H diffusion unless HDGC_NO_BLOCK_ELIM is set, "
                     "the units do not matter)", c ? c : "?", p->file, A->loc.line, A->loc.col, tau, c ? c : "tau");
        free(c);
    }
    return hdg_fail(err, HDG_EINPUT, "the local problem is singular on element %d (a zero pivot in its static "
                    "condensation)%s", e, note);
}

hdg_status hdg_hdg_check_finite(const hdg_problem *p, const hdg_mesh *M, const double *x, int ne, int n,
                                const char *what, hdg_error *err)
{
    int e = hdg_nonfinite_first(x, ne, n, n);
    if (e < 0) return HDG_OK;
    char why[600];
    if (hdg_nonfinite_source(p, M, e, 0, HDG_NF_SOLUTIONS, why, sizeof why))
        return hdg_fail(err, HDG_EINPUT, "%s: %s of element %d are not finite", why, what, e);
    return hdg_fail(err, HDG_EINPUT, "%s of element %d are not finite", what, e);
}

/* ---------------------------------------------------------------- Dirichlet */

/* The Dirichlet kernels' geometry of face f (lower.h): its vertices in fv's
 * order; in 3D the unit normal pointing away from the first element's vertex off
 * the face. */
static void dirichlet_face_geom(const hdg_mesh *M, int f, double *g)
{
    int d = hdg_mesh_dim(M);
    const int *v = M->fv + (size_t)d * f;
    if (d == 2) {
        g[HDG_GF_XA] = M->vx[v[0]], g[HDG_GF_YA] = M->vy[v[0]];
        g[HDG_GF_XB] = M->vx[v[1]], g[HDG_GF_YB] = M->vy[v[1]];
        return;
    }
    double X[4][3];
    int e = M->fe[2 * f], off = -1;
    for (int k = 0; k < 4 && off < 0; k++) {
        int w = M->ev[4 * e + k];
        if (w != v[0] && w != v[1] && w != v[2]) off = w;
    }
    for (int k = 0; k < 4; k++) {
        int w = k < 3 ? v[k] : off;
        X[k][0] = M->vx[w], X[k][1] = M->vy[w], X[k][2] = M->vz[w];
    }
    for (int k = 0; k < 3; k++)
        for (int x = 0; x < 3; x++) g[3 * k + x] = X[k][x];
    double a[3], b[3], n[3], out = 0, len;
    for (int x = 0; x < 3; x++) a[x] = X[1][x] - X[0][x], b[x] = X[2][x] - X[0][x];
    n[0] = a[1] * b[2] - a[2] * b[1], n[1] = a[2] * b[0] - a[0] * b[2], n[2] = a[0] * b[1] - a[1] * b[0];
    len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int x = 0; x < 3; x++) out += n[x] * (X[0][x] - X[3][x]);
    for (int x = 0; x < 3; x++) g[hdg_gf_normal(3) + x] = (out < 0 ? -n[x] : n[x]) / len;
}

int hdg_hdg_dirichlet_faces(const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *M, int i, int *faces,
                            double *fg)
{
    const hdg_bc *bc = &p->bcs[L->dir_bc[i]];
    int n = 0;
    for (int f = 0; f < M->nf; f++)
        if (hdg_face_on_markers(M, f, &bc->markers)) {
            faces[n] = f;
            dirichlet_face_geom(M, f, fg + (size_t)n * hdg_gf_size(hdg_mesh_dim(M)));
            n++;
        }
    return n;
}

void hdg_hdg_dirichlet_store(const hdg_problem *p, const hdg_lowered *L, int i, const int *faces, int n,
                             const double *uD, unsigned char *isdir, unsigned char *dofdir, double *xD)
{
    const hdg_bc *bc = &p->bcs[L->dir_bc[i]];
    int nc = p->unknowns[bc->unknown].ncomp, nk = L->nk, off = L->toff[bc->unknown];
    int c0 = bc->comp >= 0 ? bc->comp : 0, c1 = bc->comp >= 0 ? bc->comp + 1 : nc;   /* the components it fixes */
    for (int t = 0; t < n; t++) {
        size_t f = (size_t)faces[t];
        isdir[f] |= (unsigned char)(1u << (p->unknowns[bc->unknown].index & 7));
        for (int c = c0; c < c1; c++) {
            memcpy(xD + f * L->m + off + c * nk, uD + ((size_t)t * nc + c) * nk, sizeof(double) * (size_t)nk);
            memset(dofdir + f * L->m + off + c * nk, 1, (size_t)nk);
        }
    }
}

hdg_status hdg_hdg_dirichlet_finite(const hdg_problem *p, const hdg_lowered *L, const hdg_mesh *M, int i,
                                    const int *faces, int n, const double *uD, hdg_error *err)
{
    const hdg_bc *bc = &p->bcs[L->dir_bc[i]];
    int per = p->unknowns[bc->unknown].ncomp * L->nk;
    int t = hdg_nonfinite_first(uD, n, per, per);
    if (t < 0) return HDG_OK;
    int e = M->fe[2 * faces[t]];
    char why[600];
    if (hdg_nonfinite_source(p, M, e, 0, HDG_NF_DIRICHLET, why, sizeof why))
        return hdg_fail(err, HDG_EINPUT, "%s: the Dirichlet values of face %d are not finite", why, faces[t]);
    return hdg_fail(err, HDG_EINPUT, "the Dirichlet data at %s:%d:%d is not finite on face %d", p->file,
                    bc->loc.line, bc->loc.col, faces[t]);
}

/* Some face Dirichlet for part of its m trace dofs (a component, or some of
 * several trace unknowns): then the elimination needs the dof mask. */
int hdg_hdg_dirichlet_mixed(const hdg_mesh *M, int m, const unsigned char *isdir, const unsigned char *dofdir)
{
    for (int f = 0; f < M->nf; f++) {
        if (!isdir[f]) continue;
        for (int q = 0; q < m; q++)
            if (!dofdir[(size_t)f * m + q]) return 1;
    }
    return 0;
}

hdg_status hdg_hdg_initial_not_finite(const hdg_problem *p, int e, hdg_error *err)
{
    return hdg_fail(err, HDG_EINPUT, "%s: the initial state is not finite on element %d (its 'initial' or 'exact' "
                                     "data at t = 0)", p->name, e);
}

hdg_status hdg_hdg_at_time(hdg_error *err, double t, hdg_status st)
{
    size_t len = strlen(err->msg);
    snprintf(err->msg + len, sizeof err->msg - len, " (at t = %.6g, the solve of a step)", t);
    return st;
}

/* ------------------------------------------------------------------ results */

void hdg_hdg_report_errors(const hdg_problem *p, const hdg_lowered *L, const double *e2, int ne, hdg_report *rep)
{
    double tot[64] = {0};
    for (int e = 0; e < ne; e++)
        for (int t = 0; t < L->nerr; t++) tot[t] += e2[(size_t)e * L->nerr + t];
    hdg_comm_sum(tot, L->nerr);   /* under mpirun: over every rank's elements */
    /* one figure per unknown: the L2 norm over its components */
    for (int t = 0; t < L->nerr; t++) {
        int u = L->err_unknown[t];
        if (t > 0 && L->err_unknown[t - 1] == u) continue;
        double s = 0;
        for (int v = t; v < L->nerr && L->err_unknown[v] == u; v++) s += tot[v];
        char path[160];
        snprintf(path, sizeof path, "errors.%s", p->unknowns[u].name);
        hdg_report_number(rep, path, sqrt(s));
    }
}

hdg_status hdg_hdg_estimate(const hdg_problem *p, const hdg_mesh *M, const hdg_lowered *L, double *eta2,
                            hdg_report *rep, hdg_error *err)
{
    hdg_status st = hdg_comm_agree(hdg_hdg_check_finite(p, M, eta2, M->ne, 1, "the error estimates", err), err);
    if (st) return st;
    double s = 0;
    for (int e = 0; e < M->ne; e++) {
        s += eta2[e];
        eta2[e] = sqrt(fmax(eta2[e], 0));
    }
    hdg_comm_sum(&s, 1);
    const char *name = p->unknowns[p->unknowns[L->post_unknown].mean].name;
    char path[160];
    snprintf(path, sizeof path, "estimate.%s", name);
    hdg_report_number(rep, path, sqrt(s));
    snprintf(path, sizeof path, "errors.%s", name);
    int found = 0;
    double e = hdg_report_get_number(rep, path, &found);
    snprintf(path, sizeof path, "effectivity.%s", name);
    if (found && e > 0) hdg_report_number(rep, path, sqrt(s) / e);
    return HDG_OK;
}

int hdg_hdg_series_wanted(const hdg_run_options *o)
{
    size_t len = o->vtk ? strlen(o->vtk) : 0;
    return o->every > 0 && len > 4 && !strcmp(o->vtk + len - 4, ".pvd");
}

hdg_status hdg_hdg_series_write(hdg_hdg_series *W, const hdg_problem *p, const hdg_lowered *L, int ne,
                                const double *geom, const double *xe, const double *xp, const hdg_run_options *o,
                                double t, hdg_error *err)
{
    hdg_str name;
    hdg_str_init(&name);
    if (!W->base) {
        hdg_str_printf(&name, "%.*s", (int)strlen(o->vtk) - 4, o->vtk);
        W->base = hdg_str_take(&name);
        hdg_str_printf(&name, "%s.partial.pvd", W->base);
        W->partial = hdg_str_take(&name);
    }
    /* under mpirun a frame is a .pvtu with a piece per rank (runtime/output/vtk_dist.h) */
    hdg_str_printf(&name, hdg_comm_size() > 1 ? "%s.partial_%05d.pvtu" : "%s.partial_%05d.vtu", W->base, W->n);
    hdg_run_options one = *o;
    one.vtk = name.s, one.snapshot = NULL;
    hdg_status st = hdg_hdg_output(p, L, ne, geom, xe, xp, &one, err);
    W->files = hdg_xrealloc(W->files, sizeof(char *) * (size_t)(W->n + 1));
    W->times = hdg_xrealloc(W->times, sizeof(double) * (size_t)(W->n + 1));
    W->files[W->n] = hdg_str_take(&name);
    W->times[W->n++] = t;
    if (!st && !hdg_comm_rank()) st = hdg_pvd_write(W->partial, W->n, (const char *const *)W->files, W->times, err);
    return hdg_comm_agree(st, err);
}

static hdg_status rename_file(const char *from, const char *to, hdg_error *err)
{
    if (rename(from, to) == 0) return HDG_OK;
    return hdg_fail(err, HDG_EIO, "%s: cannot rename to %s: %s", from, to, strerror(errno));
}

/* Under mpirun: frame i's staged .pvtu rewritten as BASE_NNNNN.pvtu naming the renamed
 * pieces (rank 0), the staged one removed. */
static hdg_status commit_pvtu(const hdg_hdg_series *W, int i, const char *to, hdg_error *err)
{
    char *text = NULL, from[64], into[64];
    size_t len = 0;
    const char *slash = strrchr(W->base, '/'), *leaf = slash ? slash + 1 : W->base;
    hdg_status st = hdg_read_file(W->files[i], &text, &len, err);
    hdg_str out;
    hdg_str_init(&out);
    snprintf(from, sizeof from, ".partial_%05d_p", i);
    snprintf(into, sizeof into, "_%05d_p", i);
    for (const char *c = text; !st && *c;) {   /* Source="LEAF.partial_NNNNN_pR.vtu" -> LEAF_NNNNN_pR.vtu */
        const char *hit = strstr(c, from);
        size_t keep = hit ? (size_t)(hit - c) : strlen(c);
        int ours = hit && keep >= strlen(leaf) && !strncmp(hit - strlen(leaf), leaf, strlen(leaf));
        hdg_str_printf(&out, "%.*s%s", (int)keep, c, hit ? (ours ? into : from) : "");
        c += keep + (hit ? strlen(from) : 0);
    }
    hdg_ofile o;
    if (!st && !(st = hdg_ofile_open(&o, to, err))) {
        fputs(out.s ? out.s : "", o.f);
        st = hdg_ofile_commit(&o, err);
    }
    if (!st) remove(W->files[i]);
    free(text);
    hdg_str_free(&out);
    return st;
}

/* The staged frames under their final names (files[] too). */
static hdg_status commit_frames(hdg_hdg_series *W, hdg_error *err)
{
    int rank = hdg_comm_rank(), dist = hdg_comm_size() > 1;
    hdg_str from, to;
    hdg_str_init(&from), hdg_str_init(&to);
    hdg_status st = HDG_OK;
    for (int i = 0; dist && i < W->n && !st; i++) {   /* each rank its piece */
        hdg_str_printf(&from, "%s.partial_%05d_p%d.vtu", W->base, i, rank);
        hdg_str_printf(&to, "%s_%05d_p%d.vtu", W->base, i, rank);
        st = rename_file(from.s, to.s, err);
        hdg_str_free(&from), hdg_str_free(&to);
    }
    if ((st = hdg_comm_agree(st, err))) return st;
    for (int i = 0; i < W->n && !st; i++) {
        hdg_str_printf(&to, dist ? "%s_%05d.pvtu" : "%s_%05d.vtu", W->base, i);
        if (!dist) st = rename_file(W->files[i], to.s, err);
        else if (rank == 0) st = commit_pvtu(W, i, to.s, err);
        free(W->files[i]);
        W->files[i] = hdg_str_take(&to);
    }
    return hdg_comm_agree(st, err);
}

/* Frames from n on (an older, longer series, an older failed run's) removed; each rank its pieces. */
static void remove_leftovers(const hdg_hdg_series *W)
{
    int rank = hdg_comm_rank(), dist = hdg_comm_size() > 1;
    static const char *const pat[4] = {"%s_%05d.vtu", "%s.partial_%05d.vtu", "%s_%05d.pvtu", "%s.partial_%05d.pvtu"};
    hdg_str name;
    hdg_str_init(&name);
    for (int k = 0; k < 4 + 2 * dist; k++)
        for (int i = W->n;; i++) {
            if (k < 4 && rank) break;
            if (k < 4) hdg_str_printf(&name, pat[k], W->base, i);
            else hdg_str_printf(&name, k == 4 ? "%s_%05d_p%d.vtu" : "%s.partial_%05d_p%d.vtu", W->base, i, rank);
            int gone = remove(name.s) != 0;
            hdg_str_free(&name);
            if (gone) break;
        }
}

hdg_status hdg_hdg_series_close(hdg_hdg_series *W, const hdg_run_options *o, hdg_status run, hdg_error *err)
{
    hdg_status st = run;
    if (run && W->n) {
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n, " (the output so far is in %s; %s was not replaced)", W->partial,
                 o->vtk);
    } else if (!run && W->n) {
        st = commit_frames(W, err);
        if (!st && !hdg_comm_rank()) st = hdg_pvd_write(o->vtk, W->n, (const char *const *)W->files, W->times, err);
        if (!st && !hdg_comm_rank()) remove(W->partial);
        if (!(st = hdg_comm_agree(st, err))) remove_leftovers(W);
    }
    for (int i = 0; i < W->n; i++) free(W->files[i]);
    free(W->files), free(W->times), free(W->base), free(W->partial);
    memset(W, 0, sizeof *W);
    return st;
}

void hdg_hdg_errors_l2(const hdg_problem *p, const hdg_lowered *L, const double *e2, int ne, double *l2)
{
    double tot[64] = {0}, per[32] = {0};
    int has[32] = {0};
    for (int e = 0; e < ne; e++)
        for (int t = 0; t < L->nerr; t++) tot[t] += e2[(size_t)e * L->nerr + t];
    hdg_comm_sum(tot, L->nerr);   /* under mpirun: over every rank's elements */
    for (int t = 0; t < L->nerr; t++) per[L->err_unknown[t]] += tot[t], has[L->err_unknown[t]] = 1;
    for (int u = 0; u < p->nunknowns && u < 32; u++)
        l2[u] = has[u] && !p->unknowns[u].post ? sqrt(per[u]) : NAN;
}

void hdg_hdg_errors_track(const hdg_problem *p, const hdg_lowered *L, const double *e2, int ne, double *max)
{
    double l2[32];
    hdg_hdg_errors_l2(p, L, e2, ne, l2);
    for (int u = 0; u < p->nunknowns && u < 32; u++)
        if (isfinite(l2[u])) max[u] = fmax(max[u], l2[u]);
}

/* What to try when a scheme let the solution grow. */
static void blowup_advice(const hdg_hdg_watch *w, char *buf, size_t n)
{
    if (!strcmp(w->scheme, "bdf3"))
        snprintf(buf, n, "bdf3 is not A-stable: it amplifies undamped or weakly damped oscillations (wave-like, "
                         "hyperbolic problems), and a smaller dt than %g only slows the growth; use bdf2, sdirk2 or "
                         "sdirk3 (A-stable), or more damping (docs/solvers.md, Time stepping)", w->dt);
    else
        snprintf(buf, n, "%s is A-stable, so the problem itself may let the solution grow (a reaction or "
                         "convection term of the wrong sign, a boundary condition that feeds energy in); check "
                         "the form, or try a smaller dt than %g", w->scheme, w->dt);
}

static hdg_status blowup(const hdg_hdg_watch *w, const char *what, long long step, double t, hdg_report *rep,
                         hdg_error *e)
{
    char advice[400];
    blowup_advice(w, advice, sizeof advice);
    hdg_report_int(rep, "blowup.step", step);
    hdg_report_number(rep, "blowup.time", t);
    return hdg_fail(e, HDG_ESOLVER, "unstable: %s at step %lld (t = %.6g) of %s with dt = %.4g; %s", what, step, t,
                    w->scheme, w->dt, advice);
}

void hdg_hdg_watch_init(hdg_hdg_watch *w, const char *scheme, double dt, long long nsteps)
{
    memset(w, 0, sizeof *w);
    w->scheme = scheme, w->dt = dt;
    w->norms = hdg_xcalloc((size_t)nsteps + 1, sizeof(double));
}

void hdg_hdg_watch_free(hdg_hdg_watch *w)
{
    free(w->norms);
    w->norms = NULL;
}

void hdg_hdg_watch_exact(hdg_hdg_watch *w, const hdg_problem *p, const double *exact)
{
    for (int u = 0; u < p->nunknowns && u < 32; u++)
        if (isfinite(exact[u]) && exact[u] > 0) w->exact_max[u] = fmax(w->exact_max[u], exact[u]), w->has_exact = 1;
}

/* Without an exact solution: over the last three quarters of the steps so far, three windows
 * of step / 4 steps, the norm grew in each at least HDG_HDG_STEADY_WINDOW times, by
 * logarithms within HDG_HDG_STEADY_SPREAD of each other, and HDG_HDG_STEADY_TOTAL times over
 * the three (run_hdg_common.h). */
static int steady_growth(const hdg_hdg_watch *w, double norm, long long step)
{
    long long q = step / 4;
    if (w->has_exact || q < 2) return 0;
    double n[4] = {w->norms[step - 3 * q], w->norms[step - 2 * q], w->norms[step - q], norm}, lo = INFINITY, hi = 0;
    if (!(n[0] > 0) || !(n[3] > HDG_HDG_STEADY_TOTAL * n[0])) return 0;
    for (int i = 0; i < 3; i++) {
        if (!(n[i + 1] > HDG_HDG_STEADY_WINDOW * n[i])) return 0;
        double g = log(n[i + 1] / n[i]);
        lo = fmin(lo, g), hi = fmax(hi, g);
    }
    return hi <= HDG_HDG_STEADY_SPREAD * lo;
}

hdg_status hdg_hdg_watch_step(hdg_hdg_watch *w, const hdg_problem *p, double norm, const double *err,
                              long long step, double t, hdg_report *rep, hdg_error *e)
{
    char what[320];
    if (!isfinite(norm)) return blowup(w, "the solution is not finite", step, t, rep, e);
    w->norms[step] = norm;
    for (int u = 0; err && u < p->nunknowns && u < 32; u++) {
        double ref = w->exact_max[u];
        if (isfinite(err[u]) && ref > 0 && err[u] > HDG_HDG_BLOWUP_EXACT * ref) {
            snprintf(what, sizeof what, "the L2 error of %s grew to %.4g, more than %d times the largest L2 norm "
                     "of its exact solution (%.4g)", p->unknowns[u].name, err[u], HDG_HDG_BLOWUP_EXACT, ref);
            return blowup(w, what, step, t, rep, e);
        }
    }
    if (steady_growth(w, norm, step)) {
        long long q = step / 4;
        snprintf(what, sizeof what, "the solution's norm grew steadily (exponentially, with no exact solution "
                 "to compare with; a solution that truly grows so needs its 'exact' line): %.4g after step %lld, %.4g "
                 "after step %lld, %.4g after step %lld, %.4g now",
                 w->norms[step - 3 * q], step - 3 * q, w->norms[step - 2 * q], step - 2 * q, w->norms[step - q],
                 step - q, norm);
        return blowup(w, what, step, t, rep, e);
    }
    double quarter = w->norms[step / 4], half = w->norms[step / 2];
    if (step >= 4 && quarter > 0 && half > HDG_HDG_BLOWUP_NORM * quarter &&
        norm > HDG_HDG_BLOWUP_NORM * HDG_HDG_BLOWUP_NORM * half) {
        snprintf(what, sizeof what, "the solution's norm grew exponentially: %.4g after step %lld, %.4g after "
                 "step %lld, %.4g now", quarter, step / 4, half, step / 2, norm);
        return blowup(w, what, step, t, rep, e);
    }
    return HDG_OK;
}

void hdg_hdg_report_errors_max(const hdg_problem *p, const hdg_lowered *L, const double *max, hdg_report *rep)
{
    for (int t = 0; t < L->nerr; t++) {
        int u = L->err_unknown[t];
        if (p->unknowns[u].post || (t > 0 && L->err_unknown[t - 1] == u)) continue;
        char path[160];
        snprintf(path, sizeof path, "errors_max_in_time.%s", p->unknowns[u].name);
        hdg_report_number(rep, path, max[u]);
    }
}

/* Modal field (n modes of degree deg, stride per element, first mode at base)
 * at the lattice points (lr, ls): a new array of ne * nlat values. */
static double *lattice_values(int dim, int deg, int n, int nlat, const double *const *lx,
                              const double *x, int ne, int stride, int base)
{
    double *P = hdg_xmalloc(sizeof(double) * (size_t)nlat * n);
    hdg_simplex_eval(dim, deg, nlat, lx, P, NULL);
    double *v = hdg_xcalloc((size_t)ne * nlat, sizeof(double));
    for (int e = 0; e < ne; e++)
        for (int q = 0; q < nlat; q++) {
            double s = 0;
            for (int i = 0; i < n; i++) s += P[q * n + i] * x[(size_t)e * stride + base + i];
            v[(size_t)e * nlat + q] = s;
        }
    free(P);
    return v;
}

/* --vtk: under mpirun this rank's elements (the owned ones come first), as
 * pieces and a .pvtu or gathered into one .vtu (runtime/output/vtk_dist.h). */
static hdg_status write_vtk(const hdg_run_options *o, const hdg_vtk_data *D, hdg_error *err)
{
    if (!o->dist) return hdg_vtk_write_dist(o->vtk, D, NULL, D->ne, err);
    hdg_vtk_data mine = *D;
    mine.ne = o->dist->ne_owned;
    return hdg_vtk_write_dist(o->vtk, &mine, o->dist->egid, o->dist->ne_global, err);
}

/* Element fields (and the post-processed one) as Lagrange triangles of the
 * highest degree among them; in the .vtu an unknown of 2 or 4 components is
 * one vector or tensor field (the snapshot has a field per component). */
hdg_status hdg_hdg_output(const hdg_problem *p, const hdg_lowered *L, int ne, const double *geom,
                          const double *xe, const double *xp, const hdg_run_options *o, hdg_error *err)
{
    return hdg_hdg_output_estimate(p, L, ne, geom, xe, xp, NULL, o, err);
}

hdg_status hdg_hdg_output_estimate(const hdg_problem *p, const hdg_lowered *L, int ne, const double *geom,
                                   const double *xe, const double *xp, const double *eta,
                                   const hdg_run_options *o, hdg_error *err)
{
    return hdg_hdg_output_at(p, L, ne, geom, xe, xp, eta, o, 0, 0, 1, err);
}

hdg_status hdg_hdg_output_at(const hdg_problem *p, const hdg_lowered *L, int ne, const double *geom,
                             const double *xe, const double *xp, const double *eta, const hdg_run_options *o,
                             double t, long long step, int final, hdg_error *err)
{
    int post = L->npost > 0 && xp, deg = L->k;
    for (int i = 0; post && i < L->npost; i++) deg = L->pdeg[i] > deg ? L->pdeg[i] : deg;
    int dim = L->dim == 3 ? 3 : 2, nvd = dim * (dim + 1);
    int nlat = hdg_vtk_lattice_count(dim, deg);
    double *lat = hdg_xmalloc(sizeof(double) * (size_t)nlat * dim);
    double *lx[3] = {lat, lat + nlat, dim == 3 ? lat + 2 * nlat : NULL};
    if (dim == 2) hdg_vtk_lattice(deg, lx[0], lx[1]);
    else hdg_vtk_lattice_points(dim, deg, lx);
    int nf = 0, nu = 0, ncomp[64];   /* nf components (the snapshot's fields), nu unknowns (the VTK fields) */
    const char *names[64], *unames[64];
    double *vals[64];
    char namebuf[64][80];
    for (int u = 0; u < p->nunknowns && nf <= 64 - HDG_MAX_COMP; u++) {
        const hdg_unknown *x = &p->unknowns[u];
        int pi = post ? hdg_lowered_post_index(L, u) : -1;
        if (L->uoff[u] < 0 && pi < 0) continue;
        unames[nu] = x->name, ncomp[nu++] = x->ncomp;
        for (int c = 0; c < x->ncomp; c++) {
            snprintf(namebuf[nf], sizeof namebuf[nf], "%s%s", x->name, hdg_comp_field_suffix(x->ncomp, c));
            names[nf] = namebuf[nf];
            vals[nf++] = pi >= 0 ? lattice_values(dim, L->pdeg[pi], L->pnp[pi], nlat, (const double *const *)lx,
                                                  xp, ne, L->npost_dofs, L->poff[pi] + c * L->pnp[pi])
                                 : lattice_values(dim, L->k, L->np, nlat, (const double *const *)lx, xe, ne, L->nl,
                                                  L->uoff[u] + c * L->np);
        }
    }
    double *vxy = hdg_xmalloc(sizeof(double) * nvd * (size_t)ne);   /* the geometry's vertices first */
    for (int e = 0; e < ne; e++)
        for (int v = 0; v < nvd; v++) vxy[(size_t)nvd * e + v] = geom[(size_t)e * L->ngeom + v];
    char cname[80] = "";
    const char *cnames[1] = {cname};
    const double *cvals[1] = {eta};
    if (eta && L->post_unknown >= 0)
        snprintf(cname, sizeof cname, "estimate_%s", p->unknowns[p->unknowns[L->post_unknown].mean].name);
    hdg_vtk_cells cells = {cname[0] ? 1 : 0, cnames, cvals};
    hdg_status st = HDG_OK;
    if (o->vtk) {
        hdg_vtk_data D = {.ne = ne, .vxy = vxy, .p = deg, .nfields = nu, .names = unames, .ncomp = ncomp,
                          .values = (const double *const *)vals, .cells = &cells, .mode = HDG_VTK_LAGRANGE,
                          .format = o->vtk_ascii ? HDG_VTK_ASCII : HDG_VTK_BINARY, .dim = dim};
        st = write_vtk(o, &D, err);
    }
    if (!st && o->snapshot) {
        hdg_snapshot s = {ne, deg, nlat, vxy, lx[0], lx[1], nf, names, (const double *const *)vals, t, step, final,
                          cells.n, cnames, cvals, dim, lx[2]};
        st = o->snapshot(o->snapshot_ctx, &s, err);
    }
    for (int i = 0; i < nf; i++) free(vals[i]);
    free(vxy), free(lat);
    return st;
}

int hdg_hdg_matrix_depends_on_t(const hdg_problem *p)
{
    for (int q = 0; q < p->nequations; q++) {
        const hdg_equation *eq = &p->equations[q];
        if (eq->post) continue;
        for (int i = 0; i < eq->natoms; i++) {
            const hdg_atom *a = &eq->atoms[i];
            if (a->trial >= 0 && hdg_expr_depends(a->coef, HDG_VAR_T)) return 1;
        }
    }
    return 0;
}

hdg_status hdg_hdg_time_plan(const hdg_problem *p, const hdg_run_options *o, double *final, double *dt,
                             long long *nsteps, hdg_error *err)
{
    *final = o->final_time > 0 ? o->final_time : p->time.final;
    *dt = 0, *nsteps = 0;
    char from[64];
    if (o->dt > 0) snprintf(from, sizeof from, "--dt %g", o->dt);
    else snprintf(from, sizeof from, "the file's 'dt = %g'", p->time.dt);
    return hdg_time_steps(p->name, *final, o->dt > 0 ? o->dt : p->time.dt, from, dt, nsteps, err);
}
