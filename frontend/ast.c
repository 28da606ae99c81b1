/* ast.c — constructors of the syntax tree, called from the parser's actions.
 * Each node knows its depth; past HDG_MAX_NEST the parse stops with one error,
 * so every later walk over the tree has a bounded recursion depth. */
#include <string.h>

#include "frontend/internal.h"

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

ast *ast_bin(parse_ctx *pc, hdg_loc loc, int op, ast *a, ast *b)
{
    ast *n = ast_new(pc, AST_BIN, loc);
    n->op = op;
    n->a = a;
    n->b = b;
    depth_from(pc, n, a);
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
