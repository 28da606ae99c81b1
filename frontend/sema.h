/* sema.h — state shared by the semantic analysis (sema.c, the driver, and its stages
 * sema_decl.c, sema_eq.c, sema_bc.c, sema_post.c, sema_time.c) and the expansion of
 * expressions into sums of monomials (expand*.c). Internal to the frontend. */
#ifndef HDG_FRONTEND_SEMA_H
#define HDG_FRONTEND_SEMA_H

#include "frontend/internal.h"

typedef enum sym_kind {
    SYM_PI, SYM_COORD, SYM_NORMAL, SYM_VNORMAL, SYM_FN, SYM_OP, SYM_WAVESPEED,   /* builtins */
    SYM_DEGREE, SYM_PARAM, SYM_FUNC, SYM_SPACE, SYM_UNKNOWN, SYM_FLUX
} sym_kind;

/* Builtin operators (SYM_OP). */
enum { OP_GRAD, OP_DIV, OP_DX, OP_DY, OP_DOT, OP_DT, OP_JUMP, OP_AVG, OP_EXT,
       OP_TRANSPOSE, OP_INV, OP_DET, OP_TRACE, OP_OUTER,
       OP_DZ, OP_CURL, OP_CROSS,   /* three dimensions only (mesh tetrahedron) */
       OP_COUNT };
#define OP_COUNT_2D OP_DZ           /* the operators of a 2D file */

typedef struct symbol {
    const char *name;
    sym_kind kind;
    int index;              /* into the problem's table of that kind, or the builtin id */
    hdg_loc loc;            /* definition (line 0 for builtins) */
    bool ready;             /* params, funcs: processed (defined above the use) */
    bool failed;            /* its definition had errors: uses stay silent */
} symbol;

typedef struct flux_def {
    const char *name;
    ast *body;
    hdg_loc loc;
    int visiting;           /* cycle detection while inlining */
    int ncomp;              /* 0 until expanded once */
    int trace_eq;           /* first trace equation using it in a boundary integral, -1 */
    int trace_eqs;          /* number of distinct trace equations using it */
} flux_def;

/* A factor of a monomial: an unknown (trial) or the test function. id -1: none. */
typedef struct fac {
    int id, comp;
    hdg_op op;
    hdg_side side;
    bool dt;
} fac;

typedef struct mono {
    const hdg_expr *coef;
    fac trial, test;
} mono;

typedef struct poly {
    mono *m;
    int n;
} poly;

typedef struct fatom {
    mono m;
    hdg_domain domain;
    hdg_loc loc;
} fatom;

typedef enum { V_ERR, V_FIELD, V_FORM } val_kind;

/* The value of an expression: a pointwise field (1 scalar, 2 vector or 4 2x2 matrix
 * components, row-major, each a sum of monomials), or a form (a sum of integrals, as atoms). */
typedef struct val {
    val_kind kind;
    int ncomp;
    poly c[HDG_MAX_COMP];
    fatom *atoms;
    int natoms;
} val;

/* Where an expression is being expanded. */
typedef enum { X_DATA, X_EQUATION, X_EXT } xmode;

typedef struct ectx {
    xmode mode;
    int integral;           /* 0 outside integrals, 1 volume, 2 boundary */
    bool normals;           /* nx, ny, n allowed here */
    unsigned coords;        /* allowed coordinates: bit hdg_var */
    const char *where;      /* "in func 'f'", "in an exact solution", ... for messages */
    const char *test;       /* equation: the test function's name */
    int test_id, test_ncomp;
    bool test_trace;        /* the test lives in a trace space */
    int eq;                 /* equation index or -1 */
    int flux_depth;
    bool hdg;               /* method family while expanding equations */
    bool bc_trace;          /* X_DATA of a neumann condition: trace unknowns allowed (linearly) */
} ectx;

typedef struct sema {
    hdg_problem *p;
    hdg_diags *d;
    hdg_arena *tmp;         /* scratch: polys, atoms, symbol table */
    symbol **table;         /* open addressing, power-of-two capacity */
    int cap, count;
    flux_def *fluxes;
    int nfluxes;
    bool dt_mixed_reported;
    bool bc_failed;         /* some boundary condition had errors: no coverage errors then */
} sema;

symbol *sema_lookup(sema *S, const char *name);
void sema_error(sema *S, hdg_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A builtin of 3D files only ('z', 'nz', 'dz', 'curl', 'cross') used in a 2D file, where it is
 * undefined: reports "'z' needs 'mesh tetrahedron'" at loc and returns true; false for any other
 * name (or in a 3D file). */
bool sema_3d_only(sema *S, const char *name, hdg_loc loc);
/* The coordinates a data expression of this problem may use: x, y, t (and z in 3D), as bits of hdg_var. */
unsigned sema_all_coords(const sema *S);
/* "V" or "V^2", "V^(2x2)", "V^3", "V^(3x3)" */
const char *sema_space_str(sema *S, int space, int ncomp);
/* ".x and .y", ".x, .y and .z", ".xx, .xy, .yx and .yy", ".xx, .xy, ..., .zz": a shape's components. */
const char *shape_components(int ncomp);

/* "did you mean" over the names in scope of the wanted kind (and the equation's test). */
typedef enum { SUGGEST_VALUE, SUGGEST_CALL, SUGGEST_SPACE, SUGGEST_UNKNOWN } sugg_kind;
const char *sema_suggest(sema *S, const char *name, const char *test, sugg_kind want);

/* ---------------------------------------------------------------- the stages of sema*.c */

/* Per-unknown state of the pairing of equations with unknowns (sema_eq.c), read by the
 * later stages. */
typedef struct pairing {
    bool *failed;        /* per unknown: its declaration had errors */
    bool *reported;      /* per unknown: already named in a wrong-space error */
    bool eq_failed;      /* some equation had errors (its unknown is unknown) */
} pairing;

/* sema.c: symbols and helpers. */
/* A name of the file that is also a builtin's hides the builtin in this file, with a
 * warning; false (and an error) for a reserved one. */
bool sema_shadow_builtin(sema *S, const symbol *old, hdg_loc loc, const char *what);
/* Defines a name; NULL (and an error) when it is taken. */
symbol *sema_define(sema *S, const char *name, sym_kind kind, int index, hdg_loc loc);
const char *sema_fmt_loc(sema *S, hdg_loc l);   /* "line:col" */
ectx sema_data_ctx(const char *where, unsigned coords, bool normals);
/* Expands a data expression (no unknowns, no tests) of want components (0: any shape) into
 * out[]; false on errors. */
bool sema_data_expr(sema *S, const ectx *cx, const ast *a, int want, int *ncomp,
                    const hdg_expr **out, const char *what);

/* sema_decl.c: the header, spaces, unknowns, params, funcs, the method family, degrees. */
void sema_header(sema *S, decl *ds, const hdg_frontend_options *opt);
int sema_space_ref(sema *S, const char *name, hdg_loc loc);
bool sema_power_ok(sema *S, const item *it);
void sema_definitions(sema *S, decl *ds, const hdg_frontend_options *opt, bool *ufailed);
bool sema_decide_method(sema *S, decl *ds);
void sema_space_degrees(sema *S);

/* sema_eq.c: the equations, their atoms and residuals, their pairing with unknowns. */
void sema_equations(sema *S, decl *ds, pairing *pr);

/* sema_bc.c: boundary conditions. */
void sema_boundary_decls(sema *S, decl *ds);
void sema_coverage(sema *S, const pairing *pr);
void sema_marker_list(sema *S);

/* sema_post.c: post-processed unknowns and mean conditions. */
void sema_postprocessing(sema *S, decl *ds, pairing *pr);
void sema_no_post(sema *S, decl *ds, pairing *pr);

/* sema_time.c: exact solutions, initial conditions, time settings. */
void sema_solutions(sema *S, decl *d, const pairing *pr);
void sema_default_initial(sema *S);
void sema_time_decl(sema *S, decl *d);

/* ---------------------------------------------------------------- expand*.c (their own shared functions: expand.h) */
val expand(sema *S, const ectx *cx, const ast *a);
bool val_is_zero(const val *v);
/* A field free of unknowns and tests: its component expressions (NULL-padded). */
bool val_is_data(const val *v);
const hdg_expr *val_data(sema *S, const val *v, int c);
const char *unknown_label(sema *S, const fac *f);   /* "u", "q.x" ... */
const char *shape_noun(int ncomp);                  /* "scalar", "vector", "matrix" */

#endif
