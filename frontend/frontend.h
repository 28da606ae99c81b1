/* frontend.h — the public interface of the weak-form language frontend.
 *
 * A .hdg file goes through lexer (flex) -> parser (bison) -> AST -> semantic
 * analysis, which produces a CHECKED problem (hdg_problem): every name resolved,
 * every shape checked, the method family (HDG or DG) decided, and every equation
 * expanded into scalar "atoms"
 *
 *     coefficient(x, y, [z,] t, nx, ny, [nz,] params) * trial * test     over a volume or a boundary
 *
 * which the IR lowering consumes without looking at the AST. Expressions
 * (coefficients, boundary data, exact solutions) are trees of hdg_expr nodes that
 * the lowering walks, and that hdg_expr_eval evaluates on the host.
 *
 * HDG post-processing ('postprocess ustar : W', 'mean ustar = u' in the file):
 * unknowns[i].post marks the post-processed unknowns (npost of them, not in
 * nelement/ntrace); each has one equation with equations[e].post set, whose
 * atoms are VOLUME atoms with roles HDG_ROLE_POST (trial = the post unknown),
 * HDG_ROLE_POST_SOURCE (trial = an element unknown of the main system, known
 * once the main system is solved) or HDG_ROLE_SOURCE (trial -1), and
 * unknowns[i].mean gives the element unknown whose element mean it keeps.
 * The main system is every equation with post == false.
 *
 * Diagnostics are collected in an hdg_diags (location + severity + message) and
 * rendered to text by hdg_diags_render; the frontend never prints.
 * The frontend includes no header of runtime/, ir/ or backends/.
 * See docs/language.md for the language. */
#ifndef HDG_FRONTEND_H
#define HDG_FRONTEND_H

#include <stdbool.h>
#include <stddef.h>

#include "hdg.h"

/* ---------------------------------------------------------------- diagnostics */

typedef struct hdg_loc {
    int line, col;      /* 1-based; line 0 = no position (command line, I/O) */
} hdg_loc;

typedef enum hdg_severity { HDG_DIAG_ERROR, HDG_DIAG_WARNING, HDG_DIAG_NOTE } hdg_severity;

typedef struct hdg_diag {
    hdg_severity severity;
    hdg_loc loc;
    char *msg;
} hdg_diag;

typedef struct hdg_diags {
    hdg_diag *items;
    int count, cap;
    int nerrors, nwarnings;
    int max_errors;        /* errors past this count are counted, not stored (default 50) */
    char *file;            /* name shown in "file:line:col:" (NULL: none) */
    char *src;             /* source text for echoing lines (may contain NUL bytes) */
    size_t srclen;
} hdg_diags;

void hdg_diags_init(hdg_diags *d);
void hdg_diags_free(hdg_diags *d);
/* Copies the file name and the text used to echo source lines. */
void hdg_diags_set_source(hdg_diags *d, const char *file, const char *src, size_t len);
void hdg_diag_add(hdg_diags *d, hdg_severity sev, hdg_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Renders every diagnostic as "file:line:col: error: message\n<source line>\n<caret>\n"
 * (no position: "error: message"). The caller frees the result. */
char *hdg_diags_render(const hdg_diags *d);

/* ---------------------------------------------------------------- expressions */

typedef enum hdg_expr_kind {
    HDG_EX_NUM,      /* num */
    HDG_EX_PI,       /* the constant pi */
    HDG_EX_PARAM,    /* index: problem->params[index] (its value is read at evaluation) */
    HDG_EX_COORD,    /* index: hdg_var (x, y, t or z) */
    HDG_EX_NORMAL,   /* index: 0 nx, 1 ny, 2 nz (outward unit normal of the element face; nz: dim 3) */
    HDG_EX_NEG,      /* -kid[0] */
    HDG_EX_ADD, HDG_EX_SUB, HDG_EX_MUL, HDG_EX_DIV, HDG_EX_POW,   /* kid[0] op kid[1] */
    HDG_EX_CALL,     /* user func: index = func, comp = component, kid[0..nkids) = arguments
                        bound to the func's formal coordinates (problem->funcs[index].args) */
    HDG_EX_BUILTIN,  /* index: hdg_builtin, kid[0] the argument */
    HDG_EX_CMP,      /* index: hdg_cmp, kid[0] op kid[1]: 1 when true, 0 when false */
    HDG_EX_IF,       /* kid[0] != 0 ? kid[1] : kid[2] */
    HDG_EX_STATE,    /* nonlinear problems: the current value of an unknown, a leaf: index = unknown,
                        comp = its component, op = value or dx/dy/dz, side = interior/exterior (DG;
                        NONE for HDG) — the state Newton linearizes about, or the DG state */
    HDG_EX_WAVESPEED /* explicit DG face terms ('wavespeed', docs/language.md): a leaf, the largest
                        over both sides of the spectral radius of the normal flux Jacobian
                        A_n(U) = sum_d n_d dF_d/dU at the face point. It reads the state (a term with
                        it is nonlinear), is the same seen from either side (ext() keeps it) and is
                        held fixed by every derivative (its Jacobian atoms omit it) */
} hdg_expr_kind;

/* HDG_VAR_Z (dim 3 only) comes after t so that the 2D values keep their numbers. */
typedef enum hdg_var { HDG_VAR_X, HDG_VAR_Y, HDG_VAR_T, HDG_VAR_Z } hdg_var;
#define HDG_NVARS 4
typedef enum hdg_builtin {
    HDG_BUILTIN_SIN, HDG_BUILTIN_COS, HDG_BUILTIN_EXP, HDG_BUILTIN_LOG, HDG_BUILTIN_SQRT, HDG_BUILTIN_TANH, HDG_BUILTIN_ABS
} hdg_builtin;
typedef enum hdg_cmp { HDG_CMP_LT, HDG_CMP_LE, HDG_CMP_GT, HDG_CMP_GE, HDG_CMP_EQ, HDG_CMP_NE } hdg_cmp;

/* An immutable expression node. Nodes belong to the problem (freed with it) and
 * may be shared between trees (a DAG); never modify one. */
typedef struct hdg_expr {
    hdg_expr_kind kind;
    int index;                    /* see hdg_expr_kind */
    int comp;                     /* HDG_EX_CALL: component of a vector (0, 1; 3D: 0..2) or matrix func
                                     (2x2: 0..3, row-major xx, xy, yx, yy; 3x3: 0..8, xx .. zz) */
    int nkids;
    double num;                   /* HDG_EX_NUM */
    const struct hdg_expr *kid[HDG_NVARS];   /* at most 4: a call of a func of (x, y, z, t) */
    int depth;                    /* tree depth, calls counted through the func body */
    int size;                     /* tree size with calls expanded (saturates) */
    int op;                       /* HDG_EX_STATE: hdg_op of the unknown */
    int side;                     /* HDG_EX_STATE: hdg_side of the unknown */
} hdg_expr;

struct hdg_problem;

typedef struct hdg_eval_env {
    double x, y, t, nx, ny;
    const struct hdg_problem *problem;   /* param values and func bodies */
    double z, nz;                        /* dim 3 (after problem: {x, y, t, nx, ny, p} still initialises
                                            a 2D point, with z = nz = 0) */
    /* HDG_EX_STATE leaves (nonlinear problems): the value of STATE(unknown, comp, op, side) at the
       point; NULL: NaN */
    double (*state)(void *ctx, int unknown, int comp, int op, int side);
    void *state_ctx;
    double wavespeed;                    /* the value of HDG_EX_WAVESPEED (0 unless set) */
} hdg_eval_env;

/* Slow-path evaluation (checks, host-side boundary data, tests). */
double hdg_expr_eval(const hdg_expr *e, const hdg_eval_env *env);

/* d e / d var, simplified; nodes are allocated in p. NULL only when e is too
 * large (more than HDG_EXPR_MAX_SIZE nodes when expanded). */
const hdg_expr *hdg_expr_diff(struct hdg_problem *p, const hdg_expr *e, hdg_var var);
/* e with every user func call replaced by the func's body (for code generation
 * without function definitions). NULL when the result would be too large. */
const hdg_expr *hdg_expr_inline(struct hdg_problem *p, const hdg_expr *e);
/* e with t replaced by the number t0 (and folded). */
const hdg_expr *hdg_expr_at_time(struct hdg_problem *p, const hdg_expr *e, double t0);
/* d e / d STATE(unknown, comp, op, side), simplified (a partial derivative: every other STATE leaf
 * and x, y, z, t are held fixed). NULL only when too large, as hdg_expr_diff. */
const hdg_expr *hdg_expr_diff_state(struct hdg_problem *p, const hdg_expr *e, int unknown, int comp,
                                    int op, int side);   /* op: hdg_op, side: hdg_side */
bool hdg_expr_has_state(const hdg_expr *e);              /* mentions some STATE or WAVESPEED leaf */
bool hdg_expr_has_wavespeed(const hdg_expr *e);          /* mentions 'wavespeed' */

bool hdg_expr_depends(const hdg_expr *e, hdg_var var);   /* mentions x, y, z or t */
bool hdg_expr_has_normal(const hdg_expr *e);             /* mentions nx, ny or nz */
bool hdg_expr_is_num(const hdg_expr *e, double v);       /* a number equal to v */

/* Text in the language's syntax ("2*pi^2*sin(pi*x)"); the caller frees it. */
char *hdg_expr_str(const struct hdg_problem *p, const hdg_expr *e);

const char *hdg_builtin_name(hdg_builtin f);   /* "sin" ... */
const char *hdg_cmp_name(hdg_cmp c);           /* "<" ... */
const char *hdg_var_name(hdg_var v);           /* "x", "y", "t", "z" */

/* The highest degree of a DG problem: its nodal reference element (warp-blend
 * nodes, runtime/fem/refel.h HDG_REFEL_MAX_DEGREE) goes up to 12; HDG goes up to 20. */
#define HDG_DG_MAX_DEGREE 12

#define HDG_EXPR_MAX_SIZE 200000
#define HDG_EXPR_MAX_DEPTH 1000

/* ---------------------------------------------------------------- the checked problem */

/* Components of a value: 1 scalar; in 2D 2 a vector, 4 a 2x2 matrix stored row-major (xx, xy, yx, yy);
 * in 3D 3 a vector (x, y, z), 9 a 3x3 matrix stored row-major (xx, xy, xz, yx, ..., zz). The count
 * alone tells the shape and the dimension (a problem has only those of its own dim). */
#define HDG_MAX_COMP 9
/* The component's suffix as the summary writes it: "" (scalar), ".x" ".y" [".z"], ".xx" ".xy" ... ".yy"
 * (3x3: ".xx" ... ".zz"); the field-name form (output files, --field): "", "_x", ..., "_zz". */
const char *hdg_comp_suffix(int ncomp, int comp);
const char *hdg_comp_field_suffix(int ncomp, int comp);

typedef enum hdg_method { HDG_METHOD_HDG, HDG_METHOD_DG } hdg_method;

typedef struct hdg_param {
    const char *name;
    double value;              /* after --set and after re-evaluating dependents */
    const hdg_expr *expr;      /* its definition (numbers, pi, earlier params) */
    bool overridden;           /* set by --set */
    hdg_loc loc;
} hdg_param;

typedef struct hdg_func {
    const char *name;
    int nargs;                 /* 0..4 */
    hdg_var args[HDG_NVARS];   /* formal arguments, a subset of x, y, t (and z in 3D) in the written order */
    int ncomp;                 /* 1 scalar, 2 (3D: 3) vector, 4 (3D: 9) matrix, row-major */
    const hdg_expr *body[HDG_MAX_COMP];   /* in terms of COORD nodes of its formal arguments */
    hdg_loc loc;
    const hdg_expr *dbody[HDG_MAX_COMP][HDG_NVARS];   /* cache of d body / d var (internal) */
} hdg_func;

typedef enum hdg_space_kind { HDG_SPACE_L2, HDG_SPACE_TRACE } hdg_space_kind;

typedef struct hdg_space {
    const char *name;
    hdg_space_kind kind;       /* L2(P k) on elements, trace(P k) on faces */
    int degree;                /* after --order: problem degree + degree_offset, or the fixed number */
    int degree_offset;         /* L2(P k+1) -> 1; 0 for P k and for a fixed number */
    bool degree_fixed;         /* L2(P 2): a number, not following the problem degree */
    hdg_loc loc;
    hdg_loc degree_loc;        /* the degree in the declaration ('k', 'k+1' or the number) */
} hdg_space;

typedef struct hdg_unknown {
    const char *name;
    int ncomp;                 /* 1 scalar, 2 vector, 4 2x2 tensor (V^(2x2), HDG only; row-major);
                                  3D: 3 vector (V^3), 9 3x3 tensor (V^(3x3)) */
    int space;                 /* index into spaces */
    bool trace;                /* trace unknown (on faces, HDG) or element unknown */
    bool post;                 /* HDG post-processed unknown ('postprocess ustar : W'): an element
                                  unknown computed element by element AFTER the trace solve and the
                                  recovery of the element unknowns; not part of the main system and
                                  not counted in nelement / ntrace (trace is false) */
    int index;                 /* position among the element unknowns, among the trace unknowns,
                                  or (post) among the post-processed unknowns */
    int equation;              /* the equation that determines it */
    int mean;                  /* post: the element unknown of the main system whose element mean
                                  it takes ('mean ustar = u': (ustar, 1)_K = (u, 1)_K per component);
                                  -1 for every other unknown */
    const hdg_expr *mean_value[HDG_MAX_COMP]; /* 'mean u = g' on an element unknown of the main system (HDG): the
                                  domain mean of u is that of g, which fixes the constant of a solution
                                  known up to one (pure Neumann); NULL when absent. With 'rigid u = g'
                                  (rigid true) g itself: the L2 projections of u and g on the rigid
                                  motions agree, int (u - g).r = 0 for every translation and rotation r */
    bool rigid;
    hdg_loc mean_loc;
    const hdg_expr *exact[HDG_MAX_COMP];  /* NULL when no exact solution was given */
    const hdg_expr *initial[HDG_MAX_COMP];/* DG: at t = 0 (given, else exact at t = 0, else 0) */
    bool initial_given;
    bool needs_exterior;       /* DG: some flux uses its exterior value */
    bool no_condition;         /* a trace unknown (HDG) or an exterior value (DG) that no boundary
                                  condition gives: only a mesh without boundary faces (a torus) runs
                                  it, as the run's marker check decides; `hdgc check` notes it */
    hdg_loc loc;
} hdg_unknown;

typedef struct hdg_test {
    const char *name;
    int ncomp;
    int space;
    hdg_loc loc;
} hdg_test;

typedef enum hdg_domain { HDG_VOLUME, HDG_BOUNDARY } hdg_domain;
typedef enum hdg_op { HDG_OP_VALUE, HDG_OP_DX, HDG_OP_DY, HDG_OP_DZ } hdg_op;   /* DZ: dim 3 only */
typedef enum hdg_side { HDG_SIDE_NONE, HDG_SIDE_INTERIOR, HDG_SIDE_EXTERIOR } hdg_side;
typedef enum hdg_role {
    HDG_ROLE_LOCAL_LOCAL,    /* HDG: element test x element unknown */
    HDG_ROLE_LOCAL_TRACE,    /* HDG: element test x trace unknown */
    HDG_ROLE_TRACE_LOCAL,    /* HDG: trace test x element unknown */
    HDG_ROLE_TRACE_TRACE,    /* HDG: trace test x trace unknown */
    HDG_ROLE_SOURCE,         /* no unknown: right-hand side (both families) */
    HDG_ROLE_TIME,           /* DG: (dt(U), v); HDG (transient): (c dt(u), w), element test x element
                                unknown, turned by the time scheme into sigma c (u, w) on the left and
                                c (h, w) on the right (h: the scheme's history, docs/language.md) */
    HDG_ROLE_VOLUME,         /* DG: volume term with an unknown */
    HDG_ROLE_FLUX,           /* DG: boundary term with an unknown (interior or exterior) */
    HDG_ROLE_POST,           /* HDG post-processing: post test x the post-processed unknown (volume) */
    HDG_ROLE_POST_SOURCE     /* HDG post-processing: post test x an element unknown of the main
                                system, known data once the main system is solved (volume);
                                it sits on the LEFT like every trial atom: the post system is
                                  sum POST atoms * ustar = sum SOURCE atoms - sum POST_SOURCE atoms */
} hdg_role;

/* A set of boundary markers ("all" or names). */
typedef struct hdg_markers {
    bool all;
    int n;
    const char **names;
    hdg_loc *locs;
} hdg_markers;

/* One scalar term of an equation. The equation reads
 *     sum over atoms with trial >= 0 of  integral( coef * trial * test )
 *   = sum over atoms with trial <  0 of  integral( coef * test )
 * i.e. unknown terms are on the left, sources on the right (signs already moved).
 * The integral runs over the element (VOLUME) or over the faces of its boundary
 * (BOUNDARY; markers == NULL: every face, interior and boundary; otherwise only
 * the boundary faces carrying one of the markers). */
typedef struct hdg_atom {
    hdg_domain domain;
    const hdg_markers *markers;
    int test, test_comp;           /* test function (index into tests), component */
    hdg_op test_op;
    int trial;                     /* unknown index, -1 for a source atom */
    int trial_comp;
    hdg_op trial_op;
    hdg_side side;                 /* element unknowns: INTERIOR or EXTERIOR (DG); trace and source: NONE */
    bool dt;                       /* d/dt of the trial (DG) */
    const hdg_expr *coef;          /* free of unknowns and tests; may use nx, ny on boundaries */
    hdg_role role;
    hdg_loc loc;                   /* the integral this atom comes from */
} hdg_atom;

typedef struct hdg_equation {
    int test;                      /* its test function */
    int unknown;                   /* the unknown it determines */
    bool trace;                    /* HDG: its test lives in a trace space */
    bool post;                     /* HDG: a post-processing equation (unknown is a post unknown);
                                      its atoms are all VOLUME, with roles POST, POST_SOURCE or
                                      SOURCE (trial -1); it is no part of the main system */
    hdg_atom *atoms;
    int natoms;
    hdg_loc loc;
    /* Nonlinear problems: the terms nonlinear in the unknowns (see hdg_residual). The equation reads
     *   sum linear atoms * trial + sum residuals[k].coef * test = sum source atoms,
     * and Newton's matrix is the linear atoms plus every residual's Jacobian atoms. */
    struct hdg_residual *residuals;
    int nresiduals;
} hdg_equation;

/* One nonlinear term of an equation (moved to its left-hand side):
 *     integral( coef * test )     over the volume or the boundary (markers as for atoms),
 * where coef reads the current state through HDG_EX_STATE leaves. jac[] are its Jacobian atoms:
 * for every state leaf (unknown, comp, op, side) coef depends on, the ordinary atom with
 * trial = that unknown/comp/op/side, coefficient d coef / d STATE(...) (an expression of the state)
 * and the same test, role and domain — so Newton's linear system is built from atoms. */
typedef struct hdg_residual {
    hdg_domain domain;
    const struct hdg_markers *markers;
    int test, test_comp;
    hdg_op test_op;
    const hdg_expr *coef;
    struct hdg_atom *jac;
    int njac;
    hdg_loc loc;
} hdg_residual;

typedef enum hdg_bc_kind {
    HDG_BC_DIRICHLET,   /* HDG: trace unknown = value on the markers */
    HDG_BC_NEUMANN,     /* HDG: flux = value on the markers (source atoms of a trace equation),
                           plus terms linear in trace unknowns (Robin: trace-trace atoms) */
    HDG_BC_EXTERIOR     /* DG: exterior state of unknowns on the markers */
} hdg_bc_kind;

/* ext(unknown_comp) = sum_k terms[k].coef * unknown(terms[k].unknown)_(terms[k].comp) (interior) + data */
typedef struct hdg_ext_term {
    int unknown, comp;
    const hdg_expr *coef;
} hdg_ext_term;

typedef struct hdg_ext_rule {
    int unknown, comp;
    hdg_ext_term *terms;
    int nterms;
    const hdg_expr *data;
    hdg_loc loc;
} hdg_ext_rule;

typedef struct hdg_bc {
    hdg_bc_kind kind;
    const char *label;             /* "dirichlet", "neumann", or the user's name (e.g. "pec") */
    hdg_markers markers;
    hdg_loc loc;
    int unknown;                   /* DIRICHLET, NEUMANN: the trace unknown concerned; EXTERIOR: -1 */
    int comp;                      /* DIRICHLET: the one component it fixes ('uhat[0] = g': a roller;
                                      the others keep the flux data or the zero flux), -1: all */
    const hdg_expr *value[HDG_MAX_COMP]; /* DIRICHLET: data per component; NEUMANN: the flux value (the part
                                      free of unknowns) */
    hdg_ext_term *robin[HDG_MAX_COMP];        /* NEUMANN: flux component c = value[c] + sum_k robin[c][k].coef *
                                      unknown(robin[c][k].unknown)_(robin[c][k].comp), the unknowns being
                                      trace unknowns ('qn = g - alpha*uhat': a Robin condition); each term
                                      is also a TRACE_TRACE atom (coefficient negated) of the equation */
    int nrobin[HDG_MAX_COMP];
    int flux;                      /* NEUMANN: index into flux_names */
    int equation;                  /* NEUMANN: the trace equation that receives the source atoms */
    hdg_ext_rule *rules;           /* EXTERIOR */
    int nrules;
} hdg_bc;

typedef struct hdg_time {
    bool given;
    const char *method;            /* DG: "lserk4"; HDG (transient): "bdf1".."bdf3", "sdirk2", "sdirk3" */
    double final, cfl, dt;         /* dt = 0: from cfl */
    hdg_loc loc;
} hdg_time;

typedef struct hdg_arena hdg_arena;

#define HDG_MAX_POST 8   /* postprocess unknowns of one problem */

typedef struct hdg_problem {
    const char *name;
    const char *file;
    hdg_method method;
    bool transient;                /* HDG with dt() terms on element unknowns: implicit time stepping */
    const char *mesh;              /* "triangle" (dim 2) or "tetrahedron" (dim 3) */
    int dim;                       /* 2 or 3, from the mesh line (default triangle) */
    hdg_loc mesh_loc;              /* the element name of the mesh line (line 0: none, triangle by default) */
    const char *degree_name;       /* "k" */
    int degree;                    /* after --order */
    hdg_loc degree_loc;            /* the number in 'degree k = N' (line 0: --order or none) */
    hdg_param *params;     int nparams;
    hdg_func *funcs;       int nfuncs;
    hdg_space *spaces;     int nspaces;
    hdg_unknown *unknowns; int nunknowns;   /* element, trace and post unknowns, in declaration order */
    int nelement, ntrace;                   /* main system: element and trace unknowns */
    int npost;                              /* HDG post-processed unknowns (post == true) */
    hdg_test *tests;       int ntests;      /* one per equation */
    hdg_equation *equations; int nequations;
    const char **flux_names; int nfluxes;
    hdg_bc *bcs;           int nbcs;
    hdg_time time;
    const char **markers;  int nmarkers;    /* marker names the file mentions ("all" excluded) */
    bool markers_all;                       /* some condition is on "all" */
    hdg_loc loc, boundary_loc;              /* the 'problem' line; the first 'boundary' line */
    hdg_arena *arena;
    bool nonlinear;                /* some equation has residual terms (hdg_equation.residuals): Newton
                                      for HDG; the unknowns' initial[] is the first guess (default 0) */
} hdg_problem;

/* --set name=value and --order k. */
typedef struct hdg_setting {
    const char *name;
    double value;
} hdg_setting;

typedef struct hdg_frontend_options {
    int order;                     /* > 0: overrides the degree */
    const hdg_setting *sets;
    int nsets;
} hdg_frontend_options;

/* Reads, parses and checks a file. Returns NULL when d holds errors (warnings
 * alone still give a problem). opt may be NULL. */
hdg_problem *hdg_problem_load(const char *path, const hdg_frontend_options *opt, hdg_diags *d);
/* Same from text in memory (src may contain NUL bytes; len is its size). */
hdg_problem *hdg_problem_parse(const char *file, const char *src, size_t len,
                               const hdg_frontend_options *opt, hdg_diags *d);
void hdg_problem_free(hdg_problem *p);

/* Checks the boundary conditions against the markers of a mesh: every marker
 * must have a condition (for every trace unknown in HDG, every unknown whose
 * exterior value is used in DG), and every marker the file names must exist.
 * Returns the number of errors added to d. */
int hdg_problem_check_markers(const hdg_problem *p, const char *const *names, int n, hdg_diags *d);
/* Same with the mesh's table of marker names by id (names_by_id[id], NULL for
 * unused ids, e.g. hdg_mesh.marker_names with nids = nmarkers + 1): a marker
 * written in the file as an integer tag ("on 2, 3") also matches the mesh
 * marker of that id. */
int hdg_problem_check_mesh_markers(const hdg_problem *p, const char *const *names_by_id, int nids,
                                   hdg_diags *d);
/* Checks that a mesh of dimension mesh_dim (2: triangles, 3: tetrahedra) is one the file can run on:
 * the file's dimension is that of its mesh line. Returns the number of errors added to d (0 or 1,
 * at the mesh line, or at the problem line of a file without one). */
int hdg_problem_check_mesh_dim(const hdg_problem *p, int mesh_dim, hdg_diags *d);
/* Does a boundary face with mesh marker (name, id) belong to the set m? True for
 * "all", for a name written in the file, and for an integer tag equal to id
 * (id <= 0 or name NULL: that half is not compared). */
bool hdg_markers_match(const hdg_markers *m, const char *name, int id);

/* May conditions a and b for one trace unknown share a marker? Dirichlet conditions on two
 * different components, or one on a component with a neumann one (a roller). */
bool hdg_bcs_share(const hdg_bc *a, const hdg_bc *b);

/* The `hdgc check` summary; the caller frees it. */
char *hdg_problem_summary(const hdg_problem *p);
/* One atom as text: "local-local  volume  1/kappa * q.x * r.x"; the caller frees it. */
char *hdg_atom_str(const hdg_problem *p, const hdg_atom *a);

const char *hdg_role_name(hdg_role r);   /* "local-local", ..., "flux", "post", "post-source" */
const char *hdg_method_name(hdg_method m);   /* "HDG", "DG" */

/* Index of a name, -1 when absent. */
int hdg_problem_param(const hdg_problem *p, const char *name);
int hdg_problem_func(const hdg_problem *p, const char *name);
int hdg_problem_unknown(const hdg_problem *p, const char *name);

#endif
