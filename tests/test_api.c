/* test_api.c — the public C API (include/hdgc.h) as a client uses it: a problem from a
 * string and from a file, a mesh from arrays against the same built-in mesh, the fields
 * against the exact solution, two problems interleaved, a DG step callback, what the
 * inspection commands use (summary, IR, source, meshes by spec, markers, reports, plots),
 * and every failure path returning a status and a message. Includes hdgc.h only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdgc.h"
#include "test.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static double uex(double x, double y) { return exp(x) * cos(2 * y) + x * x * y; }

/* max |u - uex| over the nodes of a field */
static double field_maxdiff(const hdgc_field *f)
{
    double m = 0;
    for (long i = 0; i < (long)f->ne * f->npe; i++) m = fmax(m, fabs(f->values[i] - uex(f->x[i], f->y[i])));
    return m;
}

static hdgc_problem *poisson(const char *mesh, const char *order)
{
    char *src = slurp(HDG_TEST_DATA "/hdg/poisson_exp.hdg");
    CHECK(src != NULL, "read poisson_exp.hdg");
    hdgc_problem *p = NULL;
    hdg_error err;
    CHECK(hdgc_problem_parse("poisson_exp.hdg", src, &p, &err) == HDG_OK, "parse: %s", err.msg);
    free(src);
    if (!p) return NULL;
    CHECK(hdgc_problem_set_option(p, "mesh", mesh, &err) == HDG_OK, "mesh: %s", err.msg);
    CHECK(hdgc_problem_set_option(p, "order", order, &err) == HDG_OK, "order: %s", err.msg);
    return p;
}

/* A problem from a string: errors, report, fields (u against uex at the nodes), trace. */
static void from_string(void)
{
    hdgc_problem *p = poisson("square:8", "3");
    if (!p) return;
    CHECK(!strcmp(hdgc_problem_name(p), "poisson_exp"), "name %s", hdgc_problem_name(p));
    CHECK(!strcmp(hdgc_problem_method(p), "HDG"), "method %s", hdgc_problem_method(p));
    CHECK(hdgc_problem_order(p) == 3, "order %d", hdgc_problem_order(p));
    hdg_error err;
    double v = 0;
    CHECK(hdgc_problem_nparams(p) == 2 && !strcmp(hdgc_problem_param(p, 1, &v), "tau") && v == 1 &&
          hdgc_problem_param(p, 2, &v) == NULL, "params: %d", hdgc_problem_nparams(p));
    CHECK(hdgc_problem_set_param(p, "tau", 3.5, &err) == HDG_OK && hdgc_problem_param(p, 1, &v) && v == 3.5,
          "tau set: %g", v);
    CHECK(hdgc_problem_set_param(p, "tau", 1, &err) == HDG_OK, "%s", err.msg);
    hdgc_result *r = NULL;
    CHECK(hdgc_solve(p, &r, &err) == HDG_OK, "solve: %s", err.msg);
    double eu = hdgc_result_error(r, "u"), es = hdgc_result_error(r, "ustar");
    CHECK(eu > 1e-7 && eu < 1e-5, "L2 error u %g", eu);
    CHECK(es > 1e-12 && es < 1e-7 && es < eu / 10, "L2 error ustar %g (u %g)", es, eu);
    CHECK(isnan(hdgc_result_error(r, "nothing")), "no such unknown");
    CHECK(hdgc_result_has(r, "errors.u") && hdgc_result_has(r, "backend") && !hdgc_result_has(r, "errors.nothing") &&
          !hdgc_result_has(NULL, "errors.u"), "hdgc_result_has");
    CHECK(hdgc_result_number(r, "mesh.elements") == 128, "elements %g", hdgc_result_number(r, "mesh.elements"));
    CHECK(strstr(hdgc_result_report(r), "\"solver\"") != NULL, "report JSON");
    const hdgc_field *u = hdgc_result_field_named(r, "u"), *us = hdgc_result_field_named(r, "ustar");
    CHECK(u && us && hdgc_result_field_named(r, "q_x") && hdgc_result_field_named(r, "q_y"), "fields u, q_x, q_y, ustar");
    CHECK(hdgc_result_nfields(r) == 4, "nfields %d", hdgc_result_nfields(r));
    if (u && us) {
        CHECK(u->ne == 128 && us->degree == 4 && u->npe == 15, "ne %d degree %d npe %d", u->ne, us->degree, u->npe);
        double du = field_maxdiff(u), ds = field_maxdiff(us);
        CHECK(du > 1e-7 && du < 1e-4, "max |u - uex| at the nodes %g", du);
        CHECK(ds < du, "max |ustar - uex| %g below u's %g", ds, du);
    }
    int nv = 0;
    const double *xy = NULL;
    const int *tri = NULL;
    int ne = hdgc_result_mesh(r, &nv, &xy, &tri);
    CHECK(ne == 128 && nv == 81 && xy && tri, "mesh %d elements, %d vertices", ne, nv);
    if (u && ne == u->ne) {   /* lattice nodes 0, degree, npe-1 are the triangle's vertices 0, 1, 2 */
        double d = 0;
        int corner[3] = {0, u->degree, u->npe - 1};
        for (int e = 0; e < ne; e++)
            for (int k = 0; k < 3; k++) {
                int v = tri[3 * e + k], i = e * u->npe + corner[k];
                d = fmax(d, fabs(u->x[i] - xy[2 * v]) + fabs(u->y[i] - xy[2 * v + 1]));
            }
        CHECK(d < 1e-15, "field nodes against the mesh's vertices: %g", d);
    }
    const double *tr = NULL;
    int m = 0;
    long long nt = hdgc_result_trace(r, &tr, &m);
    CHECK(m == 4 && nt == 4LL * hdgc_result_number(r, "mesh.faces") && tr, "trace %lld values, %d a face", nt, m);
    hdgc_result_free(r);
    hdgc_problem_free(p);
}

/* square:N as arrays (vertex (i,j) = j(N+1)+i, cells cut from (xi,yj) to (xi+1,yj+1)),
 * boundary edges tagged bottom, right, top, left; tagged = 0: none tagged. */
static hdg_status square_arrays(hdgc_problem *p, int N, int tagged, int perturb, hdg_error *err)
{
    int nv = (N + 1) * (N + 1), ne = 2 * N * N, nb = tagged ? 4 * N : 0;
    double *xy = malloc(sizeof(double) * 2 * nv);
    int *tri = malloc(sizeof(int) * 3 * ne), *ed = malloc(sizeof(int) * 2 * (4 * N)), *mk = malloc(sizeof(int) * 4 * N);
    for (int j = 0; j <= N; j++)
        for (int i = 0; i <= N; i++) {
            double d = perturb && i > 0 && i < N && j > 0 && j < N ? 0.2 / N * sin(7.0 * i + 3.0 * j) : 0;
            xy[2 * (j * (N + 1) + i)] = (double)i / N + d;
            xy[2 * (j * (N + 1) + i) + 1] = (double)j / N - d;
        }
    int t = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            int a = j * (N + 1) + i, b = a + 1, c = a + N + 2, d = a + N + 1;
            tri[3 * t] = a, tri[3 * t + 1] = b, tri[3 * t + 2] = c, t++;
            tri[3 * t] = a, tri[3 * t + 1] = c, tri[3 * t + 2] = d, t++;
        }
    int b = 0;
    for (int i = 0; i < N; i++) {
        ed[2 * b] = i, ed[2 * b + 1] = i + 1, mk[b++] = 1;                                       /* bottom */
        ed[2 * b] = i * (N + 1) + N, ed[2 * b + 1] = (i + 1) * (N + 1) + N, mk[b++] = 2;         /* right */
        ed[2 * b] = N * (N + 1) + i, ed[2 * b + 1] = N * (N + 1) + i + 1, mk[b++] = 3;           /* top */
        ed[2 * b] = i * (N + 1), ed[2 * b + 1] = (i + 1) * (N + 1), mk[b++] = 4;                 /* left */
    }
    const char *names[] = {"bottom", "right", "top", "left"};
    hdg_status st = hdgc_problem_set_mesh(p, nv, xy, ne, tri, nb, ed, mk, 4, names, err);
    free(xy), free(tri), free(ed), free(mk);
    return st;
}

/* The same mesh as arrays and as square:8 gives the same errors. */
static void from_arrays(void)
{
    hdgc_problem *p = poisson("square:8", "2");
    if (!p) return;
    hdgc_result *r1 = NULL, *r2 = NULL, *r3 = NULL;
    hdg_error err;
    CHECK(hdgc_solve(p, &r1, &err) == HDG_OK, "solve square:8: %s", err.msg);
    CHECK(square_arrays(p, 8, 1, 0, &err) == HDG_OK, "arrays: %s", err.msg);
    CHECK(hdgc_solve(p, &r2, &err) == HDG_OK, "solve arrays: %s", err.msg);
    const char *fields[] = {"u", "q", "ustar"};
    for (int i = 0; i < 3; i++) {
        double a = hdgc_result_error(r1, fields[i]), b = hdgc_result_error(r2, fields[i]);
        CHECK(fabs(a - b) <= 1e-9 * a, "%s: square:8 %.15g, arrays %.15g", fields[i], a, b);
    }
    CHECK(strstr(hdgc_result_report(r2), "\"arrays\"") != NULL, "mesh.source is arrays");
    /* untagged boundary edges: the marker "boundary", which `on all` covers */
    CHECK(square_arrays(p, 8, 0, 1, &err) == HDG_OK, "arrays, untagged, perturbed: %s", err.msg);
    CHECK(hdgc_solve(p, &r3, &err) == HDG_OK, "solve perturbed arrays: %s", err.msg);
    double e3 = hdgc_result_error(r3, "u");
    CHECK(e3 > 0 && e3 < 1e-3 && fabs(e3 - hdgc_result_error(r1, "u")) > 1e-3 * e3, "perturbed mesh u error %g", e3);
    /* fields off: the same errors, no fields, mesh or trace */
    hdgc_result *r5 = NULL;
    CHECK(hdgc_problem_set_option(p, "fields", "off", &err) == HDG_OK, "%s", err.msg);
    CHECK(hdgc_solve(p, &r5, &err) == HDG_OK, "solve: %s", err.msg);
    CHECK(hdgc_result_error(r5, "u") == e3 && hdgc_result_nfields(r5) == 0 && hdgc_result_mesh(r5, NULL, NULL, NULL) == 0 &&
          hdgc_result_trace(r5, NULL, NULL) == 0, "fields off");
    CHECK(hdgc_problem_set_option(p, "fields", "maybe", &err) == HDG_EINPUT && strstr(err.msg, "expected on or off"), "%s", err.msg);
    CHECK(hdgc_problem_set_option(p, "fields", "on", &err) == HDG_OK, "%s", err.msg);
    hdgc_result_free(r5);
    /* setting "mesh" again drops the arrays */
    hdgc_result *r4 = NULL;
    CHECK(hdgc_problem_set_option(p, "mesh", "square:8", &err) == HDG_OK, "mesh: %s", err.msg);
    CHECK(hdgc_solve(p, &r4, &err) == HDG_OK, "solve: %s", err.msg);
    CHECK(hdgc_result_error(r4, "u") == hdgc_result_error(r1, "u"), "square:8 again");
    hdgc_result_free(r1), hdgc_result_free(r2), hdgc_result_free(r3), hdgc_result_free(r4);
    hdgc_problem_free(p);
}

typedef struct steps {
    int calls, finals;
    long long last;
    double t, ez_final_max;
} steps;

static int on_step(void *ctx, const hdgc_state *s)
{
    steps *c = ctx;
    c->calls++;
    c->finals += s->final;
    c->last = s->step;
    c->t = s->t;
    for (int f = 0; f < s->nfields; f++)
        if (s->final && !strcmp(s->fields[f].name, "Ez"))
            for (long i = 0; i < (long)s->fields[f].ne * s->fields[f].npe; i++)
                c->ez_final_max = fmax(c->ez_final_max, fabs(s->fields[f].values[i]));
    return 0;
}

static int stop_at_3(void *ctx, const hdgc_state *s) { (void)ctx; return s->step >= 3 ? 42 : 0; }

/* Two problems, HDG and DG, set up and solved interleaved, give what they give alone;
 * the DG step callback sees every `every` steps and the final state. */
static void interleaved(void)
{
    hdgc_problem *a = poisson("square:4", "2"), *b = NULL;
    hdg_error err;
    CHECK(hdgc_problem_load(HDG_EXAMPLES "/maxwell2d.hdg", &b, &err) == HDG_OK, "load: %s", err.msg);
    if (!a || !b) return;
    CHECK(!strcmp(hdgc_problem_method(b), "DG"), "DG");
    hdgc_result *ra = NULL, *rb = NULL, *ra2 = NULL, *rb2 = NULL;
    CHECK(hdgc_problem_set_option(b, "mesh", "square:4", &err) == HDG_OK, "%s", err.msg);
    CHECK(hdgc_solve(a, &ra, &err) == HDG_OK, "a: %s", err.msg);
    CHECK(hdgc_problem_set_option(b, "order", "3", &err) == HDG_OK, "%s", err.msg);
    CHECK(hdgc_problem_set_option(b, "final-time", "0.25", &err) == HDG_OK, "%s", err.msg);
    CHECK(hdgc_problem_set_param(a, "kappa", 2.0, &err) == HDG_OK, "%s", err.msg);
    steps c = {0};
    CHECK(hdgc_problem_on_step(b, 5, on_step, &c, &err) == HDG_OK, "%s", err.msg);
    FILE *log = tmpfile();
    CHECK(log && hdgc_problem_set_output(b, log, 0, &err) == HDG_OK, "set_output: %s", err.msg);
    CHECK(hdgc_solve(b, &rb, &err) == HDG_OK, "b: %s", err.msg);
    char line[512] = "";
    if (log) {
        rewind(log);
        CHECK(fgets(line, sizeof line, log) && strstr(line, "maxwell2d: DG, order 3, 32 elements"), "log: %s", line);
        fclose(log);
    }
    CHECK(hdgc_problem_set_output(b, NULL, 0, &err) == HDG_OK, "%s", err.msg);
    CHECK(!strcmp(hdgc_problem_warnings(b), ""), "no warnings: '%s'", hdgc_problem_warnings(b));
    CHECK(hdgc_result_string(rb, "backend") && !strcmp(hdgc_result_string(rb, "backend"), "c"), "backend");
    CHECK(hdgc_result_string(rb, "nothing.here") == NULL, "no such string");
    CHECK(hdgc_problem_set_param(a, "kappa", 1.0, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdgc_solve(a, &ra2, &err) == HDG_OK, "a again: %s", err.msg);
    CHECK(hdgc_result_error(ra, "u") == hdgc_result_error(ra2, "u"), "a: %.17g vs %.17g", hdgc_result_error(ra, "u"),
          hdgc_result_error(ra2, "u"));
    long long n = (long long)hdgc_result_number(rb, "steps");
    CHECK(n > 5 && c.calls == 1 + (int)((n - 1) / 5) + 1 && c.finals == 1 && c.last == n, "%d calls for %lld steps",
          c.calls, n);
    CHECK_NEAR(c.t, 0.25, 1e-14, "final time");
    double ez = hdgc_result_error(rb, "Ez");
    CHECK(ez > 0 && ez < 1e-3, "Ez error %g", ez);
    const hdgc_field *f = hdgc_result_field_named(rb, "Ez");
    double m = 0;
    for (long i = 0; f && i < (long)f->ne * f->npe; i++) m = fmax(m, fabs(f->values[i]));
    CHECK(f && m > 0.1 && m == c.ez_final_max, "final Ez max %g, callback's %g", m, c.ez_final_max);
    /* the callback stops the run */
    CHECK(hdgc_problem_on_step(b, 1, stop_at_3, NULL, &err) == HDG_OK, "%s", err.msg);
    CHECK(hdgc_solve(b, &rb2, &err) == HDG_EINPUT && strstr(err.msg, "stopped by the step callback (42)"), "stop: %s",
          err.msg);
    CHECK(rb2 && hdgc_result_status(rb2) == HDG_EINPUT && strstr(hdgc_result_report(rb2), "step callback") &&
          !strcmp(hdgc_result_string(rb2, "status"), "failed") &&
          !strcmp(hdgc_result_string(rb2, "error.kind"), hdg_status_name(HDG_EINPUT)), "report");
    hdgc_result_free(ra), hdgc_result_free(rb), hdgc_result_free(ra2), hdgc_result_free(rb2);
    hdgc_problem_free(a), hdgc_problem_free(b);
}

/* What a step callback that calls back into its own problem got. */
typedef struct reentry {
    hdgc_problem *p;
    int calls, refused, free_at;   /* free_at > 0: hdgc_problem_free at that call */
    char msg[256];
} reentry;

/* Every call that would change the problem under the solve is refused with a status (they
 * freed what the solve was reading: SIGSEGV); hdgc_problem_free waits for the solve's end. */
static int call_back_in(void *ctx, const hdgc_state *s)
{
    (void)s;
    reentry *c = ctx;
    hdg_error err;
    hdgc_result *r = NULL;
    double xy[] = {0, 0, 1, 0, 0, 1};
    int tri[] = {0, 1, 2};
    c->calls++;
    c->refused += hdgc_problem_set_param(c->p, "kappa", 2.0, &err) == HDG_EINPUT;
    snprintf(c->msg, sizeof c->msg, "%.200s", err.msg);
    c->refused += hdgc_problem_set_option(c->p, "order", "1", &err) == HDG_EINPUT;
    c->refused += hdgc_problem_set_option(c->p, "mesh", "square:2", &err) == HDG_EINPUT;
    c->refused += hdgc_problem_set_mesh(c->p, 3, xy, 1, tri, 0, NULL, NULL, 0, NULL, &err) == HDG_EINPUT;
    c->refused += hdgc_problem_set_output(c->p, NULL, 0, &err) == HDG_EINPUT;
    c->refused += hdgc_problem_on_step(c->p, 1, NULL, NULL, &err) == HDG_EINPUT;
    c->refused += hdgc_solve(c->p, &r, &err) == HDG_EINPUT && !r && strstr(err.msg, "being solved already");
    if (c->calls == c->free_at) hdgc_problem_free(c->p);
    return 0;
}

/* A run's warnings, with their report paths (hdgc convergence prints and records them). */
static void run_warnings(void)
{
    hdgc_problem *p = poisson("square:16", "1");
    if (!p) return;
    hdg_error err;
    hdgc_result *r = NULL;
    CHECK(hdgc_problem_set_option(p, "precond", "mg", &err) == HDG_OK, "%s", err.msg);
    CHECK(hdgc_problem_set_option(p, "rtol", "1e-6", &err) == HDG_OK, "%s", err.msg);
    CHECK(hdgc_solve(p, &r, &err) == HDG_OK, "%s", err.msg);
    const char *path = NULL, *w = hdgc_result_warning(r, 0, &path);
    CHECK(hdgc_result_nwarnings(r) == 1 && w && strstr(w, "the solve stopped at relative residual") && path &&
          !strcmp(path, "solver.warning"), "warning %s: %s", path ? path : "-", w ? w : "-");
    CHECK(hdgc_result_warning(r, 1, &path) == NULL && path == NULL && hdgc_result_warning(NULL, 0, NULL) == NULL &&
          hdgc_result_nwarnings(NULL) == 0, "out of range");
    hdgc_result_free(r);
    hdgc_problem_free(p);
}

static void callback_calls_back(void)
{
    hdg_error err;
    hdgc_problem *p = NULL;
    CHECK(hdgc_problem_load(HDG_EXAMPLES "/heat.hdg", &p, &err) == HDG_OK, "load heat.hdg: %s", err.msg);
    if (!p) return;
    CHECK(hdgc_problem_transient(p), "heat.hdg is transient");
    CHECK(hdgc_problem_set_option(p, "mesh", "square:2", &err) == HDG_OK, "%s", err.msg);
    CHECK(hdgc_problem_set_option(p, "final-time", "0.02", &err) == HDG_OK, "%s", err.msg);
    reentry c = {p, 0, 0, 0, ""};
    CHECK(hdgc_problem_on_step(p, 1, call_back_in, &c, &err) == HDG_OK, "%s", err.msg);
    hdgc_result *r = NULL;
    CHECK(hdgc_solve(p, &r, &err) == HDG_OK, "solve: %s", err.msg);
    CHECK(c.calls >= 2 && c.refused == 7 * c.calls, "%d of %d calls refused", c.refused, 7 * c.calls);
    CHECK(strstr(c.msg, "hdgc_problem_set_param: the problem is being solved"), "message: %s", c.msg);
    CHECK(hdgc_problem_order(p) == 3, "the order is as it was: %d", hdgc_problem_order(p));
    CHECK(hdgc_problem_set_param(p, "kappa", 1.0, &err) == HDG_OK, "after the solve it changes again: %s", err.msg);
    CHECK(hdgc_result_nwarnings(r) == 0 && !hdgc_result_warning(r, 0, NULL), "no warnings");
    hdgc_result_free(r);
    c = (reentry){p, 0, 0, 1, ""};   /* freed from the first call: the solve ends, then frees it */
    CHECK(hdgc_solve(p, &r, &err) == HDG_OK && c.calls >= 2, "solve with a free inside: %s (%d calls)", err.msg,
          c.calls);
    hdgc_result_free(r);
}

#define EXPECT(call, code, text)                                                                   \
    do {                                                                                           \
        hdg_status s_ = (call);                                                                    \
        CHECK(s_ == (code) && strstr(err.msg, (text)), "%s: status %d, message '%s', want '%s'", #call, s_, \
              err.msg, (text));                                                                    \
    } while (0)

/* Every failure returns a status and a message. */
static void failures(void)
{
    hdg_error err;
    hdgc_problem *p = NULL;
    EXPECT(hdgc_problem_load("/nonexistent/x.hdg", &p, &err), HDG_EIO, "/nonexistent/x.hdg");
    CHECK(p == NULL, "no problem");
    EXPECT(hdgc_problem_parse("bad.hdg", "problem x\nmesh triangle\nunknown u : \n", &p, &err), HDG_EINPUT, "bad.hdg:");
    p = poisson("square:2", "1");
    if (!p) return;
    EXPECT(hdgc_problem_set_param(p, "kapa", 2, &err), HDG_EINPUT, "did you mean 'kappa'");
    EXPECT(hdgc_problem_set_param(p, "kappa", NAN, &err), HDG_EINPUT, "not finite");
    EXPECT(hdgc_problem_set_option(p, "colour", "red", &err), HDG_EINPUT, "unknown option 'colour'");
    EXPECT(hdgc_problem_set_option(p, "order", "0", &err), HDG_EINPUT, "--order 0: expected an integer between 1 and 20");
    EXPECT(hdgc_problem_set_option(p, "rtol", "1e-300", &err), HDG_EINPUT, "below the double precision epsilon");
    EXPECT(hdgc_problem_set_option(p, "cache", "maybe", &err), HDG_EINPUT, "expected on or off");
    EXPECT(hdgc_problem_set_option(p, "size", "10x10", &err), HDG_EINPUT, "expected WxH");
    /* time options on a steady problem: refused as hdgc run refuses them (issue 38 item 17) */
    EXPECT(hdgc_problem_set_option(p, "dt", "0.1", &err), HDG_EINPUT, "--dt applies to time-dependent (DG) problems; "
           "problem 'poisson_exp' is steady HDG");
    EXPECT(hdgc_problem_set_option(p, "final-time", "1", &err), HDG_EINPUT, "--final-time applies to time-dependent");
    EXPECT(hdgc_problem_set_option(p, "every", "2", &err), HDG_EINPUT, "--every applies to time-dependent");
    EXPECT(hdgc_problem_set_option(p, "cfl", "0.5", &err), HDG_EINPUT, "--cfl applies to time-dependent");
    hdgc_problem *h = NULL;
    CHECK(hdgc_problem_load(HDG_EXAMPLES "/heat.hdg", &h, &err) == HDG_OK, "load heat: %s", err.msg);
    if (h) {
        EXPECT(hdgc_problem_set_option(h, "cfl", "0.5", &err), HDG_EINPUT, "--cfl applies to explicit DG problems; "
               "problem 'heat' is HDG with implicit time stepping");
        EXPECT(hdgc_problem_set_option(h, "dt", "0.1", &err), HDG_OK, "");
        hdgc_problem_free(h);
    }
    CHECK(hdgc_problem_order(p) == 1, "order kept after a refused option");
    double xy[] = {0, 0, 1, 0, 0, 1, 1, 1};
    int tri[] = {0, 1, 2, 1, 3, 2}, bad[] = {0, 1, 7}, flat[] = {0, 1, 1, 1, 3, 2};
    int edge[] = {1, 2}, mark[] = {1};
    EXPECT(hdgc_problem_set_mesh(p, 4, xy, 2, bad, 0, NULL, NULL, 0, NULL, &err), HDG_EINPUT, "triangle 0 names vertex 7");
    EXPECT(hdgc_problem_set_mesh(p, 4, xy, 2, flat, 0, NULL, NULL, 0, NULL, &err), HDG_EINPUT, "element 0");
    EXPECT(hdgc_problem_set_mesh(p, 4, xy, 2, tri, 1, edge, mark, 1, NULL, &err), HDG_EINPUT,
           "1 of the 1 boundary edges are not boundary edges");
    EXPECT(hdgc_problem_set_mesh(p, 4, xy, 2, tri, 1, edge, (int[]){3}, 1, NULL, &err), HDG_EINPUT,
           "boundary edge 0 has marker 3");
    EXPECT(hdgc_problem_set_mesh(p, 4, xy, 2, tri, 0, NULL, NULL, 2000000000, NULL, &err), HDG_EINPUT,
           "2000000000 markers (0 to 100000)");
    /* issue 38.6: two triangles laid over each other without a shared edge, and one inside another; two
     * squares side by side whose common side has a vertex on one side only touch (accepted) */
    double ov_xy[] = {0, 0, 1, 0, 0, 1, 0.2, 0.2, 1.2, 0.2, 0.2, 1.2}, in_xy[] = {0, 0, 1, 0, 0, 1, 0.1, 0.1, 0.3, 0.1, 0.1, 0.3};
    int two[] = {0, 1, 2, 3, 4, 5};
    EXPECT(hdgc_problem_set_mesh(p, 6, ov_xy, 2, two, 0, NULL, NULL, 0, NULL, &err), HDG_EINPUT,
           "overlapping triangles: element 0 and element 1 cover a common area near (0.8, 0.2)");
    EXPECT(hdgc_problem_set_mesh(p, 6, in_xy, 2, two, 0, NULL, NULL, 0, NULL, &err), HDG_EINPUT,
           "overlapping triangles: element 1 and element 0 cover a common area");
    double touch_xy[] = {0, 0, 1, 0, 1, 1, 0, 1, 2, 0, 2, 1, 1, 0.5};
    int touch[] = {0, 1, 2, 0, 2, 3, 1, 4, 6, 6, 4, 5, 6, 5, 2};
    CHECK(hdgc_problem_set_mesh(p, 7, touch_xy, 5, touch, 0, NULL, NULL, 0, NULL, &err) == HDG_OK,
          "touching squares: %s", err.msg);
    double xyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    int tet_bad[] = {0, 1, 2, 9}, face[] = {0, 1, 5};
    EXPECT(hdgc_problem_set_mesh_simplices(p, 4, 4, xyz, 1, tet_bad, 0, NULL, NULL, 0, NULL, &err), HDG_EINPUT,
           "dimension 4 (2: triangles, 3: tetrahedra)");
    EXPECT(hdgc_problem_set_mesh_simplices(p, 3, 4, xyz, 1, tet_bad, 0, NULL, NULL, 0, NULL, &err), HDG_EINPUT,
           "tetrahedron 0 names vertex 9 (vertices are 0..3)");
    EXPECT(hdgc_problem_set_mesh_simplices(p, 3, 4, xyz, 1, (int[]){0, 1, 2, 3}, 1, face, mark, 1, NULL, &err),
           HDG_EINPUT, "boundary face 0 names vertex 5");
    double xyz2[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.3, 0.3, -1};
    int tets[] = {0, 1, 2, 3, 0, 2, 1, 4}, outer[] = {1, 2, 3}, inner[] = {0, 1, 2};
    CHECK(hdgc_problem_set_mesh_simplices(p, 3, 5, xyz2, 2, tets, 1, outer, mark, 1, NULL, &err) == HDG_OK,
          "two tetrahedra: %s", err.msg);
    EXPECT(hdgc_problem_set_mesh_simplices(p, 3, 5, xyz2, 2, tets, 1, inner, mark, 1, NULL, &err), HDG_EINPUT,
           "not boundary faces");
    double nan_xy[] = {0, 0, 1, 0, 0, NAN, 1, 1};
    EXPECT(hdgc_problem_set_mesh(p, 4, nan_xy, 2, tri, 0, NULL, NULL, 0, NULL, &err), HDG_EINPUT, "vertex 2");
    hdgc_result *r = NULL;
    EXPECT(hdgc_problem_set_option(p, "mesh", "/nonexistent/m.msh", &err), HDG_OK, "");
    EXPECT(hdgc_solve(p, &r, &err), HDG_EIO, "/nonexistent/m.msh");
    CHECK(r && hdgc_result_nfields(r) == 0 && strstr(hdgc_result_report(r), "m.msh"), "failed result");
    hdgc_result_free(r);
    CHECK(hdgc_solve(NULL, &r, &err) == HDG_EINPUT && r == NULL, "NULL problem");
    hdgc_problem_free(p);
    hdgc_result_free(NULL);
    hdgc_problem_free(NULL);
}

/* hdgc check / ir / emit: a problem loaded with its settings, its summary, IR and source. */
static void inspection(void)
{
    hdg_error err;
    hdgc_problem *p = NULL;
    char *diags = NULL, *text = NULL;
    const char *names[] = {"kappa", "kappa"};
    double values[] = {2, 3};
    const char *file = HDG_TEST_DATA "/hdg/poisson_exp.hdg";
    EXPECT(hdgc_problem_load_with(file, 2, 1, names, values, &p, &diags, &err), HDG_OK, "");
    if (!p) return;
    CHECK(diags && !strcmp(diags, hdgc_problem_warnings(p)), "diagnostics: the warnings");
    hdgc_free(diags);
    double kappa = 0;
    CHECK(hdgc_problem_order(p) == 2 && hdgc_problem_param(p, 0, &kappa) && kappa == 2, "order 2, kappa 2");
    CHECK(strstr(hdgc_problem_summary(p), "problem poisson_exp (") && strstr(hdgc_problem_summary(p), "degree: k = 2"),
          "summary: %.80s", hdgc_problem_summary(p));
    int exact = 0;
    CHECK(hdgc_problem_nunknowns(p) == 4 && !strcmp(hdgc_problem_unknown(p, 1, &exact), "u") && exact, "unknown u");
    CHECK(hdgc_problem_unknown(p, 2, &exact) && !exact && !hdgc_problem_unknown(p, 4, NULL), "uhat: no exact");
    EXPECT(hdgc_problem_ir(p, 1, &text, &err), HDG_OK, "");
    CHECK(text && !strncmp(text, "module poisson_exp\n", 19), "IR: %.40s", text ? text : "");
    hdgc_free(text);
    EXPECT(hdgc_problem_source(p, "c", 1, &text, &err), HDG_OK, "");
    CHECK(text && strstr(text, "#line") && strstr(text, "poisson_exp.c"), "C source with #line");
    hdgc_free(text);
    EXPECT(hdgc_problem_source(p, "cuda", 0, &text, &err), HDG_OK, "");
    CHECK(text && strstr(text, "__global__"), "CUDA source");
    hdgc_free(text);
    EXPECT(hdgc_problem_source(p, "fortran", 0, &text, &err), HDG_EINPUT, "unknown backend 'fortran' (c, cuda)");
    CHECK(text == NULL, "no text on failure");
    hdgc_problem_free(p);
    /* failures: duplicate and unknown params (with the whole diagnostics), a bad order */
    EXPECT(hdgc_problem_load_with(file, 0, 2, names, values, &p, NULL, &err), HDG_EINPUT, "param kappa given twice");
    EXPECT(hdgc_problem_load_with(file, 21, 0, NULL, NULL, &p, NULL, &err), HDG_EINPUT, "--order 21");
    const char *typo[] = {"kapa"};
    EXPECT(hdgc_problem_load_with(file, 0, 1, typo, values, &p, &diags, &err), HDG_EINPUT, "did you mean 'kappa'");
    CHECK(p == NULL && diags && strstr(diags, "did you mean 'kappa'") && diags[strlen(diags) - 1] == '\n', "diagnostics");
    hdgc_free(diags);
    EXPECT(hdgc_problem_load_with("/nonexistent/x.hdg", 0, 0, NULL, NULL, &p, NULL, &err), HDG_EIO, "/nonexistent/x.hdg");
    EXPECT(hdgc_problem_ir(NULL, 1, &text, &err), HDG_EINPUT, "no problem");
    EXPECT(hdgc_check_environment(&err), HDG_OK, "");
    const char *vars[] = {"HDGC_CACHE", "HDG_THREADS"}, *bad[] = {"maybe", "0"};
    for (int i = 0; i < 2; i++) {   /* each set wrong, then as it was */
        char *was = getenv(vars[i]) ? strdup(getenv(vars[i])) : NULL;
        setenv(vars[i], bad[i], 1);
        EXPECT(hdgc_check_environment(&err), HDG_EINPUT, vars[i]);
        if (was) setenv(vars[i], was, 1);
        else unsetenv(vars[i]);
        free(was);
    }
}

/* hdgc mesh and hdgc check --mesh: a mesh by spec, its statistics, the markers. */
static void meshes(void)
{
    hdg_error err;
    hdgc_mesh *m = NULL;
    EXPECT(hdgc_mesh_load("square:2", HDGC_MESH_GEOMETRY, &m, &err), HDG_OK, "");
    if (!m) return;
    int nv, nf, nbf;
    CHECK(hdgc_mesh_size(m, &nv, &nf, &nbf) == 8 && nv == 9 && nf == 16 && nbf == 8, "square:2 sizes");
    CHECK(!strcmp(hdgc_mesh_info(m), "mesh: square:2\nelements: 8\nvertices: 9\nfaces: 16\nboundary faces: 8\n"
                                     "markers: bottom(2) right(2) top(2) left(2)\nbounding box: [0, 1] x [0, 1]\n"
                                     "element size: min 0.707107 max "
                                     "0.707107\ninscribed radius: min 0.146447 max 0.146447\n"), "info: %s", hdgc_mesh_info(m));
    char *src = slurp(HDG_TEST_DATA "/hdg/poisson_exp.hdg"), *at = src ? strstr(src, "on all") : NULL;
    if (at) memcpy(at, "on top", 6);
    hdgc_problem *p = NULL;
    char *diags = NULL;
    EXPECT(hdgc_problem_parse("top.hdg", src ? src : "", &p, &err), HDG_OK, "");
    if (p) {
        EXPECT(hdgc_problem_check_markers(p, m, &diags, &err), HDG_EINPUT, "boundary marker 'bottom' has no boundary condition");
        CHECK(diags && strstr(diags, "top.hdg:") && strstr(diags, "'left' has no"), "diagnostics: %s", diags ? diags : "");
        hdgc_free(diags);
        hdgc_problem_free(p);
    }
    free(src);
    hdgc_mesh_free(m);
    EXPECT(hdgc_mesh_load("square:0", 0, &m, &err), HDG_EINPUT, "square:0");
    CHECK(m == NULL, "no mesh on failure");
    EXPECT(hdgc_mesh_load("/nonexistent/m.msh", 0, &m, &err), HDG_EIO, "/nonexistent/m.msh");
    EXPECT(hdgc_mesh_load("square:2", 4, &m, &err), HDG_EINPUT, "unknown flags");
    EXPECT(hdgc_problem_check_markers(NULL, NULL, NULL, &err), HDG_EINPUT, "no problem or no mesh");
    CHECK(hdgc_mesh_size(NULL, &nv, NULL, NULL) == 0 && nv == 0 && !strcmp(hdgc_mesh_info(NULL), ""), "NULL mesh");
}

/* hdgc convergence: a JSON table of the caller's, a fitted rate, a plot. */
static void reports_and_plots(void)
{
    hdg_error err;
    hdgc_report *r = hdgc_report_new();
    hdgc_report_set_string(r, "problem", "p");
    hdgc_report *row = hdgc_report_push(r, "runs");
    hdgc_report_set_int(row, "N", 4);
    hdgc_report_set_number(row, "errors.u", NAN);
    hdgc_report_set_number(hdgc_report_push(r, "runs"), "rate", 2.5);
    char *text = hdgc_report_text(r);
    CHECK(text && strstr(text, "\"problem\":\t\"p\"") && strstr(text, "\"u\":\tnull") && strstr(text, "2.5"), "report: %s",
          text ? text : "");
    hdgc_free(text);
    EXPECT(hdgc_report_write(r, "/nonexistent/dir/t.json", &err), HDG_EIO, "/nonexistent/dir");
    EXPECT(hdgc_report_write(NULL, "t.json", &err), HDG_EINPUT, "no report");
    hdgc_report_free(r);
    double x[] = {0.5, 0.25, 0.125, 0}, y[] = {0.25, 0.0625, 0.015625, 1}, slope, icept;
    CHECK(hdgc_plot_fit(4, x, y, &slope, &icept) == 3 && fabs(slope - 2) < 1e-12 && fabs(icept) < 1e-12, "fit: slope 2");
    CHECK(hdgc_plot_fit(-1, NULL, NULL, &slope, NULL) == 0 && isnan(slope), "no points");
    CHECK(hdgc_plot_format("a.SVG") == 1 && hdgc_plot_format("a.png") == 2 && hdgc_plot_format("a.pdf") == 0 &&
          hdgc_plot_format(NULL) == 0, "formats");
    hdgc_plot_series s = {"u, k=1", 3, x, y, 0, 0};
    hdgc_plot pl = {640, 480, "t", "h", "e", 1, &s, 1};
    EXPECT(hdgc_plot_write("p.pdf", &pl, &err), HDG_EINPUT, "unknown extension");
    EXPECT(hdgc_plot_write("/nonexistent/dir/p.svg", &pl, &err), HDG_EIO, "/nonexistent/dir");
    pl.nseries = 2;
    pl.series = NULL;
    EXPECT(hdgc_plot_write("p.svg", &pl, &err), HDG_EINPUT, "2 series without their array");
}

/* A nonlinear HDG problem through the API (issue 41): Newton's report keys, the
 * attainable accuracy, and the newton-* options refused on linear and DG problems. */
static void nonlinear(void)
{
    hdg_error err = {0};
    hdgc_problem *p = NULL, *q = poisson("square:2", "1"), *d = NULL;
    hdgc_result *r = NULL;
    EXPECT(hdgc_problem_load(HDG_EXAMPLES "/nonlinear_diffusion.hdg", &p, &err), HDG_OK, "");
    if (!p || !q) return;
    CHECK(hdgc_problem_nonlinear(p) && !hdgc_problem_nonlinear(q) && !hdgc_problem_transient(p), "nonlinear query");
    EXPECT(hdgc_problem_set_option(p, "mesh", "square:4", &err), HDG_OK, "");
    EXPECT(hdgc_problem_set_option(p, "newton-max-steps", "12", &err), HDG_OK, "");
    EXPECT(hdgc_problem_set_option(p, "newton-check", "on", &err), HDG_OK, "");
    EXPECT(hdgc_solve(p, &r, &err), HDG_OK, "");
    double steps = hdgc_result_number(r, "newton.steps"), C = hdgc_result_number(r, "newton.quadratic_constant");
    /* from u = 0 with kappa(u) up to 14.7: 6 steps measured, quadratic at the end (C 0.03) */
    CHECK(steps >= 3 && steps <= 8, "newton.steps %g in [3, 8]", steps);
    CHECK(C > 0 && C < 5, "newton.quadratic_constant %g in (0, 5)", C);
    const char *rep = hdgc_result_report(r);
    CHECK(rep && strstr(rep, "\"converged\":\ttrue"), "newton.converged true");
    CHECK(rep && strstr(rep, "\"residuals\"") && strstr(rep, "\"alphas\"") && strstr(rep, "\"check_1e-4\""),
          "report: newton.residuals[], alphas[], check_1e-4[]");
    CHECK(hdgc_result_error(r, "u") < 2e-3, "u error %g < 2e-3", hdgc_result_error(r, "u"));
    hdgc_result_free(r);
    r = NULL;
    /* the step limit: a failure with the history, the report still there */
    EXPECT(hdgc_problem_set_option(p, "newton-max-steps", "1", &err), HDG_OK, "");
    EXPECT(hdgc_solve(p, &r, &err), HDG_ESOLVER, "Newton did not converge in 1 steps");
    CHECK(r && strstr(hdgc_result_report(r), "\"converged\":\tfalse"), "newton.converged false");
    hdgc_result_free(r);
    /* newton-* on a linear HDG problem and on explicit DG: refused (as hdgc run refuses them) */
    EXPECT(hdgc_problem_set_option(q, "newton-rtol", "1e-8", &err), HDG_EINPUT,
           "--newton-rtol applies to nonlinear HDG problems (Newton); problem 'poisson_exp' is linear");
    EXPECT(hdgc_problem_load(HDG_EXAMPLES "/burgers2d.hdg", &d, &err), HDG_OK, "");
    if (d) EXPECT(hdgc_problem_set_option(d, "newton-check", "on", &err), HDG_EINPUT, "is explicit DG (no Newton)");
    hdgc_problem_free(d);
    hdgc_problem_free(q);
    hdgc_problem_free(p);
}

int main(void)
{
    from_string();
    from_arrays();
    interleaved();
    callback_calls_back();
    run_warnings();
    failures();
    inspection();
    meshes();
    reports_and_plots();
    nonlinear();
    return test_summary("test_api");
}
