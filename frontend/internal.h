/* internal.h — what the frontend's stages share and nobody else sees: the arena,
 * the AST built by the parser, the parser/lexer context, and the internal entry
 * points of each stage (parse.c, sema.c, expand.c, expr.c, diff.c). */
#ifndef HDG_FRONTEND_INTERNAL_H
#define HDG_FRONTEND_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "frontend/frontend.h"

/* ---------------------------------------------------------------- arena.c */

/* Every allocation is its own malloc (so AddressSanitizer sees each one); the
 * arena frees them all at once. */
hdg_arena *hdg_arena_new(void);
void hdg_arena_free(hdg_arena *a);
void *hdg_arena_alloc(hdg_arena *a, size_t n);          /* zeroed */
char *hdg_arena_strndup(hdg_arena *a, const char *s, size_t n);
char *hdg_arena_strdup(hdg_arena *a, const char *s);
/* Grows an array owned by the arena (copying; the old block stays until the end). */
void *hdg_arena_grow(hdg_arena *a, void *old, size_t oldn, size_t newn);

/* ---------------------------------------------------------------- limits */

#define HDG_MAX_NEST 400        /* syntactic nesting: brackets, and AST depth */
#define HDG_MAX_NAME 255        /* characters in a name */

/* ---------------------------------------------------------------- AST */

typedef enum ast_kind {
    AST_NUM, AST_NAME, AST_NEG, AST_BIN, AST_CALL, AST_VEC,
    AST_VINT,   /* (a, b): integral over the element */
    AST_BINT,   /* <a, b>: integral over the element boundary */
    AST_CMP, AST_IF,
    AST_INDEX   /* a[b], a[b, c] (b, c: the index expressions) or a.name (component x, y, xx ...) */
                /* AST_VEC: [a, b] or [a, b, c] (c NULL for two entries) */
} ast_kind;

typedef struct ast {
    ast_kind kind;
    hdg_loc loc;
    int depth;
    int op;                 /* AST_BIN: '+' '-' '*' '/' '^'; AST_CMP: hdg_cmp */
    double num;
    bool is_int;
    const char *name;       /* AST_NAME, AST_CALL */
    int nargs;              /* AST_CALL */
    struct ast **args;
    struct ast *a, *b, *c;  /* operands */
} ast;

/* A list item: a name with a location, optionally a space reference, an expression, or a lhs. */
typedef struct item {
    const char *name;
    hdg_loc loc;
    const char *space;      /* unknown/trace: the space name */
    hdg_loc space_loc;
    int power;              /* V^2 -> 2; 1 when absent */
    bool tensor;            /* V^(2x2): power 4 (-1 for another shape) */
    int deg_offset;         /* degree reference k + N: N (-1 when N is not an integer) */
    hdg_loc power_loc;
    ast *lhs, *expr;
    struct item *next;
} item;

typedef struct ilist {
    item *head, *tail;
    int n;
} ilist;

typedef enum decl_kind {
    D_PROBLEM, D_MESH, D_DEGREE, D_PARAM, D_FUNC, D_SPACE, D_UNKNOWN, D_TRACE,
    D_FLUX, D_EQUATION, D_BCVALUE, D_BCEXT, D_EXACT, D_INITIAL, D_TIME,
    D_POST, D_MEAN, D_RIGID
} decl_kind;

typedef struct decl {
    decl_kind kind;
    hdg_loc loc;            /* the keyword */
    const char *name;       /* declared name; BCVALUE: the unknown/flux; TIME: method;
                               MEAN: the unknown (label: the unknown whose mean it takes when the
                               value, expr, is a bare name); RIGID: the unknown */
    hdg_loc name_loc;
    const char *label;      /* BC: dirichlet / neumann / user label */
    hdg_loc label_loc;
    ast *lhs, *expr;        /* EQUATION: lhs = expr; PARAM/FUNC/FLUX/BCVALUE: expr */
    double num;             /* DEGREE */
    bool num_is_int;
    hdg_loc num_loc;
    /* SPACE: kind(poly deg), deg = NAME, NUMBER or NAME + NUMBER (deg_offset) */
    const char *space_kind, *poly, *deg_name;
    int deg_offset;
    hdg_loc deg_offset_loc;
    hdg_loc space_kind_loc, poly_loc, deg_loc;
    /* EQUATION: for test : space^power */
    item test;
    ilist items;            /* FUNC args, UNKNOWN/TRACE/POST, EXACT/INITIAL, BCEXT rules, TIME options */
    ilist markers;          /* BC */
    bool markers_given;
    ast *comp;              /* BCVALUE: uhat[c] = ... (NULL: the whole unknown) */
    const char *comp_name;  /* BCVALUE: uhat.x = ... */
    hdg_loc comp_loc;
    struct decl *next;
} decl;

/* Parser + lexer state (the flex "extra"). */
typedef struct parse_ctx {
    hdg_arena *arena;       /* AST and names */
    hdg_diags *diags;
    decl *head, *tail;
    int ndecls;
    int nest;               /* open ( and [ */
    bool nest_error;        /* stop: nesting cap hit */
    bool lex_error;
    hdg_loc last_bad;       /* last unexpected-byte position (one report per run of bad bytes) */
    int line, col;          /* lexer position of the next character */
    hdg_loc tok_end;        /* last character of the last token */
    hdg_loc prev_end;       /* ... and of the token before it (where a declaration left unfinished ends) */
    char tok[48];           /* text of the last token, for syntax errors */
    int syntax_errors;
} parse_ctx;

/* AST constructors (ast.c); they record a nesting error past HDG_MAX_NEST. */
ast *ast_new(parse_ctx *pc, ast_kind kind, hdg_loc loc);
ast *ast_num(parse_ctx *pc, hdg_loc loc, double v, bool is_int);
ast *ast_name(parse_ctx *pc, hdg_loc loc, const char *name);
ast *ast_unary(parse_ctx *pc, hdg_loc loc, ast *a);
ast *ast_bin(parse_ctx *pc, hdg_loc loc, int op, ast *a, ast *b);
ast *ast_pair(parse_ctx *pc, ast_kind kind, hdg_loc loc, ast *a, ast *b);
ast *ast_call(parse_ctx *pc, hdg_loc loc, const char *name, ilist args);
ast *ast_if(parse_ctx *pc, hdg_loc loc, ast *c, ast *a, ast *b);
/* [a, b, c]: AST_VEC with its third entry in c ([a, b]: c is NULL). */
ast *ast_vec3(parse_ctx *pc, hdg_loc loc, ast *a, ast *b, ast *c);
/* base[i], base[i, j] (j NULL: one index) or base.comp (i NULL). */
ast *ast_index(parse_ctx *pc, hdg_loc loc, ast *base, ast *i, ast *j, const char *comp);
bool ast_too_deep(parse_ctx *pc);
/* After the parse: regroups every chain of more than 32 terms of '+' '-' (or '*' '/')
 * into a balanced tree (same value, depth log2 of its length instead of its length)
 * and checks the real depth against HDG_MAX_NEST (an error on pc->diags). */
void ast_balance(parse_ctx *pc);
item *item_new(parse_ctx *pc, const char *name, hdg_loc loc);
ilist ilist_one(item *it);
ilist ilist_add(ilist l, item *it);
decl *decl_new(parse_ctx *pc, decl_kind kind, hdg_loc loc);
void decl_add(parse_ctx *pc, decl *d);

/* parse.c: text -> declarations (NULL list on syntax errors; errors go to diags). */
bool hdg_parse_text(parse_ctx *pc, const char *src, size_t len);

/* ---------------------------------------------------------------- expression builder (expr.c)
 * Constructors fold constants and trivial identities (0 + a, 1 * a, ...). */
const hdg_expr *ex_num(hdg_problem *p, double v);
const hdg_expr *ex_leaf(hdg_problem *p, hdg_expr_kind kind, int index);
/* An HDG_EX_STATE leaf: the current value of unknown (comp, op, side). */
const hdg_expr *ex_state(hdg_problem *p, int unknown, int comp, hdg_op op, hdg_side side);
const hdg_expr *ex_neg(hdg_problem *p, const hdg_expr *a);
const hdg_expr *ex_bin(hdg_problem *p, hdg_expr_kind kind, const hdg_expr *a, const hdg_expr *b);
const hdg_expr *ex_add(hdg_problem *p, const hdg_expr *a, const hdg_expr *b);
const hdg_expr *ex_sub(hdg_problem *p, const hdg_expr *a, const hdg_expr *b);
const hdg_expr *ex_mul(hdg_problem *p, const hdg_expr *a, const hdg_expr *b);
const hdg_expr *ex_div(hdg_problem *p, const hdg_expr *a, const hdg_expr *b);
const hdg_expr *ex_pow(hdg_problem *p, const hdg_expr *a, const hdg_expr *b);
const hdg_expr *ex_builtin(hdg_problem *p, hdg_builtin f, const hdg_expr *a);
const hdg_expr *ex_cmp(hdg_problem *p, hdg_cmp op, const hdg_expr *a, const hdg_expr *b);
const hdg_expr *ex_if(hdg_problem *p, const hdg_expr *c, const hdg_expr *a, const hdg_expr *b);
const hdg_expr *ex_call(hdg_problem *p, int func, int comp, int nargs, const hdg_expr *const *args);
/* Replaces x, y, t, z by vals[var] (NULL: keep) everywhere except inside func bodies. */
const hdg_expr *ex_subst(hdg_problem *p, const hdg_expr *e, const hdg_expr *const vals[HDG_NVARS]);
/* e with every STATE leaf moved to the exterior side (DG ext/jump/avg of a nonlinear term); NULL when
 * some leaf is already exterior or a derivative. */
const hdg_expr *ex_state_exterior(hdg_problem *p, const hdg_expr *e);
bool ex_mentions_unknown(const hdg_expr *e, int unknown);   /* some STATE leaf of that unknown */
bool ex_is_const(const hdg_expr *e);   /* no x, y, z, t, nx, ny, nz: numbers, pi and params only */
bool ex_too_big(const hdg_expr *e);    /* past HDG_EXPR_MAX_SIZE or _DEPTH */
struct hdg_str;
/* Appends e to b, parenthesized when its precedence is below need
 * (0 none, 1 sum, 2 product, 3 unary minus, 4 power, 5 atom). */
void hdg_expr_print_to(struct hdg_str *b, const hdg_problem *p, const hdg_expr *e, int need);

/* ---------------------------------------------------------------- names (diag.c) */

/* Closest of names[0..n) to s by edit distance, or NULL when none is close. */
const char *hdg_closest_name(const char *s, const char *const *names, int n);

/* ---------------------------------------------------------------- semantic analysis (sema.c) */

/* The problem takes over arena (which holds the AST and its names). */
hdg_problem *hdg_sema(const char *file, decl *decls, const hdg_frontend_options *opt, hdg_diags *d,
                      hdg_arena *arena);

#endif
