/* api.c — libFuzzer entry point over the public C API (include/hdgc.h): the bytes are a
 * program of calls, each a byte choosing the function and the next bytes its arguments,
 * on a few live objects (two problems, two results, a mesh, a report and the objects pushed
 * into it). Arguments are drawn from tables of values a caller would pass (valid, invalid,
 * NULL, out of range, non-finite) or are raw bytes (names, paths, report paths, spec text).
 * A step callback runs a call chosen by the bytes too, on the problem being solved. The
 * library must answer every call with a status and a message, never crash, leak or touch
 * freed memory (ASan + UBSan), and keep what it promises (a failure has a message, a result
 * is handed out with its report). Solves use small meshes of the examples and a kernel
 * cache, so that after the first compilations a solve takes milliseconds. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdgc.h"

#ifndef HDG_FUZZ_SOURCE_DIR
#define HDG_FUZZ_SOURCE_DIR "."
#endif

static void require(int ok, const char *what, int i)
{
    if (ok) return;
    fprintf(stderr, "fuzz_api: broken promise: %s (%d)\n", what, i);
    abort();
}

/* ------------------------------------------------------------------ the bytes */

typedef struct input {
    const uint8_t *d;
    size_t n, at;
} input;

static input in;

static unsigned byte(void) { return in.at < in.n ? in.d[in.at++] : 0; }
static int more(void) { return in.at < in.n; }
static int pick(int n) { return (int)(byte() % (unsigned)n); }

/* Up to 31 raw bytes as a string (NUL-terminated in buf). */
static const char *raw(char buf[32])
{
    int len = pick(32);
    for (int i = 0; i < len; i++) buf[i] = (char)byte();
    buf[len] = '\0';
    return buf;
}

static const char *one_of(const char *const *t, int n, char buf[32])
{
    int k = pick(n + 2);
    return k < n ? t[k] : k == n ? raw(buf) : NULL;   /* a table value, raw bytes, or NULL */
}

#define ONE_OF(t, buf) one_of(t, (int)(sizeof t / sizeof *t), buf)

static double number(void)
{
    static const double t[] = {0, 1, -1, 0.5, 2, 1e-300, 1e300, -2, 100, 3.5};
    int k = pick(13);
    return k < 10 ? t[k] : k == 10 ? NAN : k == 11 ? INFINITY : (double)(int8_t)byte() / 8;
}

/* ------------------------------------------------------------------ the objects */

static const char *const files[] = {"examples/poisson.hdg", "examples/heat.hdg", "examples/advection2d.hdg",
                                    "tests/data/hdg/poisson_exp.hdg", "examples/reaction_diffusion.hdg"};
enum { NFILES = sizeof files / sizeof *files };
static char *sources[NFILES];

typedef struct state {
    hdgc_problem *p[2];
    hdgc_result *r[2];
    hdgc_mesh *m;
    hdgc_report *rep;
    hdgc_report *kids[8];
    int nkids, solves, depth;
} state;

static state S;

static char *slurp(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", HDG_FUZZ_SOURCE_DIR, rel);
    FILE *f = fopen(path, "rb");
    require(f != NULL, "the examples are readable (HDG_FUZZ_SOURCE_DIR)", 0);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    s[fread(s, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return s;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    setenv("HDG_THREADS", "1", 0);
    setenv("HDGC_MEMORY_LIMIT", "200000000", 0);   /* large meshes are refused with a figure */
    setenv("HDGC_CACHE_DIR", "/tmp/hdgc-fuzz-api-cache", 0);
    setenv("HDGC_LIBCUDA", "/nonexistent/libcuda.so", 0);   /* --backend cuda fails at once */
    for (int i = 0; i < NFILES; i++) sources[i] = slurp(files[i]);
    return 0;
}

/* A failure must say why. */
static void said(hdg_status st, const hdg_error *err, int op)
{
    require(st >= HDG_OK && st <= HDG_EINTERNAL, "a known status", op);
    if (st) require(err->msg[0] != '\0', "a failure has a message", op);
}

/* ------------------------------------------------------------------ calls on problems */

static hdgc_problem **problem_slot(void) { return &S.p[pick(2)]; }

static void op_parse(void)
{
    hdgc_problem **pp = problem_slot();
    hdg_error err;
    hdgc_problem_free(*pp);
    *pp = NULL;
    int k = pick(NFILES + 1);
    char name[32];
    hdg_status st = k < NFILES ? hdgc_problem_parse(pick(2) ? files[k] : raw(name), sources[k], pp, &err)
                               : hdgc_problem_parse("empty.hdg", raw(name), pp, &err);
    said(st, &err, 0);
    require((st == HDG_OK) == (*pp != NULL), "a problem exactly when HDG_OK", st);
    if (*pp && pick(4)) {   /* mostly a small mesh and a short time: solves stay quick */
        require(hdgc_problem_set_option(*pp, "mesh", "square:2", &err) == HDG_OK, "mesh square:2", 0);
        if (hdgc_problem_transient(*pp))
            require(hdgc_problem_set_option(*pp, "final-time", "0.03", &err) == HDG_OK, "final-time", 0);
    }
}

static void op_load(void)
{
    static const char *const paths[] = {"/nonexistent/x.hdg", "", "/", "/dev/null", "/proc/self/status"};
    hdgc_problem **pp = problem_slot();
    hdgc_problem_free(*pp);
    *pp = NULL;
    hdg_error err;
    char buf[32];
    const char *path = ONE_OF(paths, buf);
    hdg_status st;
    if (pick(2)) {
        const char *names[2];
        double values[2] = {number(), number()};
        names[0] = pick(4) ? "kappa" : raw(buf), names[1] = pick(2) ? "tau" : NULL;
        char *diags = NULL;
        st = hdgc_problem_load_with(path, pick(24) - 1, pick(4) - 1, names, values, pp, pick(2) ? &diags : NULL, &err);
        hdgc_free(diags);
    } else {
        st = hdgc_problem_load(path, pp, &err);
    }
    said(st, &err, 1);
}

static void op_set_param(hdgc_problem *p)
{
    static const char *const names[] = {"kappa", "tau", "c", "ax", "step", "x", "kapa", ""};
    hdg_error err;
    char buf[32];
    const char *name = ONE_OF(names, buf);
    said(hdgc_problem_set_param(p, name, number(), &err), &err, 2);
}

/* An option and a value a caller might pass; the values of the options that could make a
 * solve long (meshes, steps, iterations) stay small. */
static void option(const char **name, const char **value, char nbuf[32], char vbuf[32])
{
    static const char *const opts[][6] = {
        {"order", "1", "2", "0", "21", "x"},
        {"mesh", "square:2", "square:3,perturb=0.2", "square:2,refine=1", "square:3,periodic=x", "square:0"},
        {"mesh", "square:1", "/nonexistent/m.msh", "square:2,domain=[0,2]^2", "bogus", "square:9999999"},
        {"backend", "c", "auto", "cuda", "fpga", ""},
        {"solver", "cg", "gmres", "magic", "", "cg"},
        {"precond", "mg", "block", "jacobi", "none", "ilu"},
        {"format", "block", "csr", "dense", "", "block"},
        {"rtol", "1e-8", "0.5", "0", "1e-300", "nan"},
        {"maxit", "1", "50", "0", "-3", "x"},
        {"restart", "5", "30", "0", "1", "y"},
        {"final-time", "0.02", "0.05", "0", "-1", "inf"},
        {"dt", "0.01", "0.02", "0", "-0.5", "1e-400"},
        {"cfl", "0.5", "0.9", "0", "10", "z"},
        {"every", "1", "2", "0", "-1", "3"},
        {"fields", "on", "off", "maybe", "", "on"},
        {"kernels", "generated", "handwritten", "other", "", "generated"},
        {"vtk", "/tmp/hdgc-fuzz-api.vtu", "/tmp/hdgc-fuzz-api.pvd", "/nonexistent/d/x.vtu", "", "x.txt"},
        {"vtk-format", "ascii", "binary", "xml", "", "binary"},
        {"png", "/tmp/hdgc-fuzz-api.png", "/tmp/hdgc-fuzz-%d.png", "%s%n.png", "", "/nonexistent/x.png"},
        {"size", "300x200", "200x200", "10x10", "x", "9000x300"},
        {"edges", "on", "off", "yes", "", "on"},
        {"slice", "z=0.5", "x=-1", "w=0.5", "z=", "y=1e-400"},
        {"field", "u", "q_x", "nothing", "", "ustar"},
        {"cache", "on", "on", "sometimes", "", "on"},
        {"petsc", "-ksp_type cg", "", "-pc_type lu", "x", ""},
    };
    int k = pick((int)(sizeof opts / sizeof *opts) + 1);
    if (k == (int)(sizeof opts / sizeof *opts)) {   /* any name, any value */
        *name = pick(8) ? raw(nbuf) : NULL;
        *value = pick(8) ? raw(vbuf) : NULL;
        return;
    }
    *name = opts[k][0];
    *value = opts[k][1 + pick(5)];
}

static void op_set_option(hdgc_problem *p)
{
    hdg_error err;
    char nbuf[32], vbuf[32];
    const char *name, *value;
    option(&name, &value, nbuf, vbuf);
    said(hdgc_problem_set_option(p, name, value, &err), &err, 3);
    if (pick(2)) said(hdgc_check_option(name, value, &err), &err, 4);
}

/* A small mesh from the bytes: vertices on a 4x4 grid of the unit square (duplicates,
 * collinear and overlapping triangles are frequent), indices that may be out of range. */
static void op_set_mesh(hdgc_problem *p)
{
    int nv = pick(9), ne = pick(7), nb = pick(5), nmarkers = pick(4) - 1;
    double xy[2 * 8];
    int tri[3 * 6], edges[2 * 4], markers[4];
    for (int v = 0; v < nv; v++) {
        unsigned b = byte();
        xy[2 * v] = (b & 3) / 3.0, xy[2 * v + 1] = ((b >> 2) & 3) / 3.0;
        if (b == 255) xy[2 * v] = NAN;
    }
    for (int i = 0; i < 3 * ne; i++) tri[i] = pick(nv + 2) - 1;
    for (int i = 0; i < 2 * nb; i++) edges[i] = pick(nv + 1);
    for (int i = 0; i < nb; i++) markers[i] = pick(4);
    static const char *const names[] = {"left", "right", "bottom"};
    const char *named[3] = {names[0], pick(2) ? names[1] : NULL, names[2]};
    hdg_error err;
    hdg_status st = hdgc_problem_set_mesh(p, nv, pick(8) ? xy : NULL, ne, pick(8) ? tri : NULL, nb,
                                          pick(8) ? edges : NULL, pick(8) ? markers : NULL, nmarkers,
                                          pick(2) ? named : NULL, &err);
    said(st, &err, 5);
}

static int on_step(void *ctx, const hdgc_state *s);

static void op_on_step(hdgc_problem *p)
{
    hdg_error err;
    int every = pick(4) - 1;
    said(hdgc_problem_on_step(p, every, pick(3) ? on_step : NULL, p, &err), &err, 6);
}

static void op_inspect(hdgc_problem *p)
{
    (void)hdgc_problem_name(p), (void)hdgc_problem_method(p), (void)hdgc_problem_order(p);
    (void)hdgc_problem_transient(p), (void)hdgc_problem_warnings(p), (void)hdgc_problem_summary(p);
    double v;
    int i = pick(6) - 1, has;
    (void)hdgc_problem_param(p, i, pick(2) ? &v : NULL);
    (void)hdgc_problem_unknown(p, i, pick(2) ? &has : NULL);
    require(hdgc_problem_nparams(p) >= 0 && hdgc_problem_nunknowns(p) >= 0, "counts", 7);
    hdg_error err;
    if (!p || pick(4)) return;
    char *text = NULL, buf[32];
    static const char *const backends[] = {"c", "cuda", "llvm"};
    hdg_status st = pick(2) ? hdgc_problem_ir(p, pick(2), &text, &err)
                            : hdgc_problem_source(p, ONE_OF(backends, buf), pick(2), &text, &err);
    said(st, &err, 8);
    require(st != HDG_OK || text != NULL, "text with HDG_OK", st);
    hdgc_free(text);
}

static void op_solve(hdgc_problem *p, int slot);

/* One call on problem p (from the program, or from p's step callback while it solves). */
static void problem_call(hdgc_problem *p, int k)
{
    hdg_error err;
    switch (k) {
    case 0: op_set_param(p); break;
    case 1: op_set_option(p); break;
    case 2: op_set_mesh(p); break;
    case 3: op_on_step(p); break;
    case 4: op_inspect(p); break;
    case 5: said(hdgc_problem_set_output(p, NULL, pick(3) - 1, &err), &err, 9); break;
    default: op_solve(p, pick(2)); break;
    }
}

/* The step callback: a call on the problem being solved, then go on or stop. */
static int on_step(void *ctx, const hdgc_state *s)
{
    require(s != NULL && s->nfields >= 0 && (s->nfields == 0 || s->fields != NULL), "a state with its fields", 10);
    for (int f = 0; f < s->nfields; f++)
        require(s->fields[f].name && s->fields[f].ne > 0 && s->fields[f].npe > 0, "a field's sizes", f);
    hdgc_problem *p = ctx;
    int k = pick(10);
    if (k < 7) problem_call(p, k);
    else if (k == 7) {   /* freed from its callback: the solve ends, then frees it */
        for (int i = 0; i < 2; i++)
            if (S.p[i] == p) S.p[i] = NULL;
        hdgc_problem_free(p);
    }
    return pick(4) == 0 ? pick(3) - 1 : 0;
}

static void op_solve(hdgc_problem *p, int slot)
{
    if (S.solves >= 2 || S.depth > 1) return;   /* a solve is the costly call */
    S.solves++, S.depth++;
    hdg_error err;
    hdgc_result *r = NULL;
    hdg_status st = hdgc_solve(p, pick(16) ? &r : NULL, &err);
    S.depth--;
    said(st, &err, 11);
    if (r) {
        require(hdgc_result_status(r) == st && hdgc_result_report(r) != NULL, "a result has its status and report", st);
        if (S.depth == 0) {
            hdgc_result_free(S.r[slot]);
            S.r[slot] = r;
        } else hdgc_result_free(r);
    }
}

/* ------------------------------------------------------------------ results, meshes, reports */

static void op_result(void)
{
    hdgc_result *r = S.r[pick(2)];
    char buf[32];
    static const char *const paths[] = {"errors.u", "solver.iterations", "status", "mesh", "", ".", "errors..u",
                                        "timings.total", "warnings.mean"};
    const char *path = ONE_OF(paths, buf);
    (void)hdgc_result_number(r, path), (void)hdgc_result_string(r, path), (void)hdgc_result_has(r, path);
    (void)hdgc_result_error(r, path), (void)hdgc_result_estimate(r, path), (void)hdgc_result_summary(r);
    const double *eta, *xy, *tr;
    const int *tri;
    int nv, per, i = pick(8) - 1;
    int ne = hdgc_result_indicators(r, path, pick(2) ? &eta : NULL);
    require(ne >= 0, "indicators", ne);
    const hdgc_field *f = hdgc_result_field(r, i);
    if (f) require(f->values && f->x && f->y && (long)f->ne * f->npe >= 0, "a field's arrays", i);
    (void)hdgc_result_field_named(r, path);
    require(hdgc_result_mesh(r, &nv, &xy, &tri) >= 0 && hdgc_result_trace(r, &tr, &per) >= 0, "mesh, trace", 12);
    const char *wpath;
    const char *w = hdgc_result_warning(r, i, pick(2) ? &wpath : NULL);
    require(!w || i < hdgc_result_nwarnings(r), "a warning in range", i);
    if (r && !pick(4)) {
        hdg_error err;
        said(hdgc_result_write_report(r, pick(2) ? "/tmp/hdgc-fuzz-api.json" : "/nonexistent/d/r.json", pick(3) - 1,
                                      &err), &err, 13);
    }
}

static void op_mesh(void)
{
    static const char *const specs[] = {"square:2", "square:3,perturb=0.3", "square:2,refine=2", "square:4,periodic=xy",
                                        "square:3,domain=[0,1]x[0,2]", "square:0", "/nonexistent/m.msh",
                                        "square:99999,refine=10"};
    hdgc_mesh_free(S.m);
    S.m = NULL;
    hdg_error err;
    char buf[32];
    const char *spec = ONE_OF(specs, buf);
    if (spec && spec == buf && strncmp(spec, "square", 6)) spec = "square:x";   /* raw text: no file paths */
    hdg_status st = hdgc_mesh_load(spec, pick(3), &S.m, &err);
    said(st, &err, 14);
    require((st == HDG_OK) == (S.m != NULL), "a mesh exactly when HDG_OK", st);
    int nv, nf, nbf;
    (void)hdgc_mesh_size(S.m, &nv, &nf, &nbf), (void)hdgc_mesh_info(S.m);
    double lo, hi;
    said(hdgc_mesh_h(S.m, pick(2) ? &lo : NULL, &hi, &err), &err, 15);
    hdgc_problem *p = S.p[pick(2)];
    char *diags = NULL;
    said(hdgc_problem_check_markers(p, S.m, pick(2) ? &diags : NULL, &err), &err, 16);
    hdgc_free(diags);
}

static hdgc_report *report_target(void)
{
    int k = pick(S.nkids + 1);
    return k < S.nkids ? S.kids[k] : S.rep;
}

static void op_report(void)
{
    static const char *const paths[] = {"runs", "runs.x", "a.b.c", "a", "", ".", "a..b", "runs.errors.u"};
    char buf[32], vbuf[32];
    if (!S.rep) S.rep = hdgc_report_new();
    hdgc_report *r = report_target();
    const char *path = ONE_OF(paths, buf);
    switch (pick(7)) {
    case 0: hdgc_report_set_number(r, path, number()); break;
    case 1: hdgc_report_set_int(r, path, (long long)(int8_t)byte() * (1LL << pick(56))); break;
    case 2: hdgc_report_set_string(r, path, pick(4) ? raw(vbuf) : NULL); break;
    case 3: hdgc_report_push_string(r, path, pick(4) ? raw(vbuf) : NULL); break;
    case 4: {
        hdgc_report *k = hdgc_report_push(r, path);
        require(!k == (!r || !path), "push gives an object", 17);
        if (k && S.nkids < 8) S.kids[S.nkids++] = k;
        break;
    }
    case 5: {
        char *text = hdgc_report_text(r);
        require(text != NULL, "the text of a report", 18);
        hdgc_free(text);
        break;
    }
    default:   /* the children die with it */
        hdgc_report_free(S.rep);
        S.rep = NULL, S.nkids = 0;
    }
}

static void op_misc(void)
{
    hdg_error err;
    char buf[32], sbuf[32];
    double x[4] = {number(), number(), number(), number()}, y[4] = {number(), number(), number(), number()}, s, c;
    int n = pick(6) - 1;
    int used = hdgc_plot_fit(n, n > 0 ? x : NULL, n > 0 ? y : NULL, pick(2) ? &s : NULL, &c);
    require(used >= 0 && used <= (n > 0 ? n : 0), "fit points", used);
    (void)hdgc_plot_format(pick(2) ? raw(buf) : NULL);
    static const char *const statuses[] = {"running", "failed", "ok"};
    said(hdgc_write_status_report(pick(2) ? "/tmp/hdgc-fuzz-api-status.json" : NULL, ONE_OF(statuses, sbuf),
                                  pick(2) ? raw(buf) : NULL, (hdg_status)pick(8), pick(2) ? "a message" : NULL,
                                  pick(3) - 1, &err), &err, 19);
    (void)hdg_status_name((hdg_status)(pick(10) - 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    in = (input){data, size, 0};
    memset(&S, 0, sizeof S);
    for (int steps = 0; more() && steps < 64; steps++) {
        int op = pick(12);
        switch (op) {
        case 0: op_parse(); break;
        case 1: op_load(); break;
        case 2: case 3: case 4: {
            hdgc_problem *p = S.p[pick(2)];
            problem_call(p, pick(7));
            break;
        }
        case 5: op_result(); break;
        case 6: op_mesh(); break;
        case 7: case 8: op_report(); break;
        case 9: op_misc(); break;
        case 10: {
            hdgc_problem **pp = problem_slot();
            hdgc_problem_free(*pp);
            *pp = NULL;
            break;
        }
        default: {
            int i = pick(2);
            hdgc_result_free(S.r[i]);
            S.r[i] = NULL;
        }
        }
    }
    for (int i = 0; i < 2; i++) hdgc_problem_free(S.p[i]), hdgc_result_free(S.r[i]);
    hdgc_mesh_free(S.m);
    hdgc_report_free(S.rep);
    return 0;
}
