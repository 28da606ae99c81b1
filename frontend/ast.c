/* ast.c — constructors of the syntax tree, called from the parser's actions.
 * Each node knows its nesting depth; past HDG_MAX_NEST the parse stops with one
 * error. A flat chain 'a + b - c + ...' (or of '*' '/') is not nesting: it counts
 * as one level however long it is, and ast_balance regroups every long chain into
 * a balanced tree after the parse, so every later walk over the tree has a
 * recursion depth bounded by HDG_MAX_NEST (checked again after regrouping). */
#include <stdlib.h>
#include <string.h>

#include "frontend/internal.h"
#include "support/util.h"

bool ast_too_deep(parse_ctx *pc) { return pc->nest_error; }

static void depth_from(parse_ctx *pc, ast *n, const ast *k)
{
    if (k && k->depth + 1 > n->depth) n->depth = k->depth + 1;
    if (n->depth > HDG_MAX_NEST && !pc->nest_error) {
        pc->nest_error = true;
        hdg_diag_add(pc->diags, HDG_DIAG_ERROR, n->loc,
                     "expression nested too deeply (more than %d levels)", HDG_MAX_NEST);
    }
}

ast *ast_new(parse_ctx *pc, ast_kind kind, hdg_loc loc)
{
    ast *n = hdg_arena_alloc(pc->arena, sizeof *n);
    n->kind = kind;
    n->loc = loc;
    n->depth = 1;
    return n;
}

ast *ast_num(parse_ctx *pc, hdg_loc loc, double v, bool is_int)
{
    ast *n = ast_new(pc, AST_NUM, loc);
    n->num = v;
    n->is_int = is_int;
    return n;
}

ast *ast_name(parse_ctx *pc, hdg_loc loc, const char *name)
{
    ast *n = ast_new(pc, AST_NAME, loc);
    n->name = name;
    return n;
}

ast *ast_unary(parse_ctx *pc, hdg_loc loc, ast *a)
{
    ast *n = ast_new(pc, AST_NEG, loc);
    n->a = a;
    depth_from(pc, n, a);
    return n;
}

/* 1: '+' '-', 2: '*' '/', 0: other operators */
static int op_class(int op) { return op == '+' || op == '-' ? 1 : op == '*' || op == '/' ? 2 : 0; }

static bool chain_link(const ast *n, int cls)
{
    return cls && n && n->kind == AST_BIN && op_class(n->op) == cls;
}

ast *ast_bin(parse_ctx *pc, hdg_loc loc, int op, ast *a, ast *b)
{
    ast *n = ast_new(pc, AST_BIN, loc);
    n->op = op;
    n->a = a;
    n->b = b;
    if (chain_link(a, op_class(op))) n->depth = a->depth;   /* one more term of a flat chain */
    else depth_from(pc, n, a);
    depth_from(pc, n, b);
    return n;
}

ast *ast_pair(parse_ctx *pc, ast_kind kind, hdg_loc loc, ast *a, ast *b)
{
    ast *n = ast_bin(pc, loc, 0, a, b);
    n->kind = kind;
    return n;
}

ast *ast_call(parse_ctx *pc, hdg_loc loc, const char *name, ilist args)
{
    ast *n = ast_new(pc, AST_CALL, loc);
    n->name = name;
    n->nargs = args.n;
    n->args = hdg_arena_alloc(pc->arena, (size_t)(args.n ? args.n : 1) * sizeof(ast *));
    int i = 0;
    for (item *it = args.head; it; it = it->next) {
        n->args[i++] = it->expr;
        depth_from(pc, n, it->expr);
    }
    return n;
}

ast *ast_if(parse_ctx *pc, hdg_loc loc, ast *c, ast *a, ast *b)
{
    ast *n = ast_new(pc, AST_IF, loc);
    n->a = c;
    n->b = a;
    n->c = b;
    depth_from(pc, n, c);
    depth_from(pc, n, a);
    depth_from(pc, n, b);
    return n;
}

ast *ast_vec3(parse_ctx *pc, hdg_loc loc, ast *a, ast *b, ast *c)
{
    ast *n = ast_if(pc, loc, a, b, c);
    n->kind = AST_VEC;
    return n;
}

ast *ast_index(parse_ctx *pc, hdg_loc loc, ast *base, ast *i, ast *j, const char *comp)
{
    ast *n = ast_if(pc, loc, base, i, j);
    n->kind = AST_INDEX;
    n->name = comp;
    return n;
}

item *item_new(parse_ctx *pc, const char *name, hdg_loc loc)
{
    item *it = hdg_arena_alloc(pc->arena, sizeof *it);
    it->name = name;
    it->loc = loc;
    it->power = 1;
    return it;
}

ilist ilist_one(item *it)
{
    ilist l = {it, it, 1};
    return l;
}

ilist ilist_add(ilist l, item *it)
{
    if (!l.head) return ilist_one(it);
    l.tail->next = it;
    l.tail = it;
    l.n++;
    return l;
}

decl *decl_new(parse_ctx *pc, decl_kind kind, hdg_loc loc)
{
    decl *d = hdg_arena_alloc(pc->arena, sizeof *d);
    d->kind = kind;
    d->loc = loc;
    d->test.power = 1;
    return d;
}

void decl_add(parse_ctx *pc, decl *d)
{
    if (pc->tail) pc->tail->next = d;
    else pc->head = d;
    pc->tail = d;
    pc->ndecls++;
}

/* ---------------------------------------------------------------- regrouping long chains */

enum { CHAIN_KEEP = 32 };   /* chains of up to this many terms keep their left-to-right shape */

typedef struct chain {
    ast **t;      /* terms t[0..n) */
    ast **op;     /* op[i]: the node whose operator stands before t[i] (i >= 1) */
    int n;
} chain;

static int inverse(int op) { return op == '+' ? '-' : op == '-' ? '+' : op == '*' ? '/' : '*'; }

/* t[lo] op[lo+1] t[lo+1] ... t[hi-1] as a balanced tree; flip: every operator of the
 * segment is inverted. Splitting a - b + c - d at c gives (a - b) - (c - d): the right
 * half stands after op[mid] and its operators are inverted when op[mid] is '-' or '/'
 * (in the parser's tree, not after an earlier flip). Reuses each op node once. */
static ast *build(const chain *c, int lo, int hi, bool flip)
{
    if (hi - lo == 1) return c->t[lo];
    int mid = lo + (hi - lo + 1) / 2;
    ast *n = c->op[mid];
    bool inv = n->op == '-' || n->op == '/';
    n->a = build(c, lo, mid, flip);
    n->b = build(c, mid, hi, inv);
    n->op = flip ? inverse(n->op) : n->op;
    n->depth = 1 + (n->a->depth > n->b->depth ? n->a->depth : n->b->depth);
    return n;
}

static ast *balance(parse_ctx *pc, ast *n);

static ast *balance_chain(parse_ctx *pc, ast *n)
{
    int cls = op_class(n->op), len = 1;
    for (ast *m = n; chain_link(m, cls); m = m->a) len++;
    chain c = {hdg_xmalloc((size_t)len * sizeof(ast *)), hdg_xmalloc((size_t)len * sizeof(ast *)), len};
    int i = len - 1;
    ast *m = n;
    for (; chain_link(m, cls); m = m->a, i--) {
        c.op[i] = m;
        c.t[i] = balance(pc, m->b);
    }
    c.t[0] = balance(pc, m);
    ast *r;
    if (len <= CHAIN_KEEP) {   /* the parser's shape: ((t0 op t1) op t2) op t3 */
        r = c.t[0];
        for (i = 1; i < len; i++) {
            c.op[i]->a = r;
            c.op[i]->b = c.t[i];
            int d = r->depth > c.t[i]->depth ? r->depth : c.t[i]->depth;
            c.op[i]->depth = d + 1;
            r = c.op[i];
        }
    } else {
        r = build(&c, 0, len, false);
    }
    free(c.t);
    free(c.op);
    return r;
}

static int max_depth(ast *const *k, int n)
{
    int d = 0;
    for (int i = 0; i < n; i++)
        if (k[i] && k[i]->depth > d) d = k[i]->depth;
    return d;
}

/* Regroups the chains under n; sets every node's depth to its real tree depth. */
static ast *balance(parse_ctx *pc, ast *n)
{
    if (!n) return n;
    if (n->kind == AST_BIN && op_class(n->op)) return balance_chain(pc, n);
    if (n->kind == AST_CALL) {
        for (int i = 0; i < n->nargs; i++) n->args[i] = balance(pc, n->args[i]);
        n->depth = 1 + max_depth(n->args, n->nargs);
        return n;
    }
    n->a = balance(pc, n->a);
    n->b = balance(pc, n->b);
    n->c = balance(pc, n->c);
    ast *k[3] = {n->a, n->b, n->c};
    n->depth = 1 + max_depth(k, 3);
    return n;
}

static ast *balance_root(parse_ctx *pc, ast *n)
{
    if (!n || pc->nest_error) return n;
    n = balance(pc, n);
    if (n->depth > HDG_MAX_NEST) {
        pc->nest_error = true;
        hdg_diag_add(pc->diags, HDG_DIAG_ERROR, n->loc, "expression nested too deeply (%d levels with its "
                     "sums and products grouped, more than %d)", n->depth, HDG_MAX_NEST);
    }
    return n;
}

static void balance_item(parse_ctx *pc, item *it)
{
    it->lhs = balance_root(pc, it->lhs);
    it->expr = balance_root(pc, it->expr);
}

void ast_balance(parse_ctx *pc)
{
    for (decl *d = pc->head; d; d = d->next) {
        d->lhs = balance_root(pc, d->lhs);
        d->expr = balance_root(pc, d->expr);
        balance_item(pc, &d->test);
        for (item *it = d->items.head; it; it = it->next) balance_item(pc, it);
        for (item *it = d->markers.head; it; it = it->next) balance_item(pc, it);
    }
}
