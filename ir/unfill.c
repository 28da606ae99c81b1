/* unfill.c — zero fills dropped where the first accumulation can assign.
 * A local matrix is zeroed, then every term adds to it (M[i][j] += ...); the
 * fill stores every entry once more, and the first `+=` of each entry loads
 * the zero back. Here the statements after a fill of a whole local tensor
 * are run in the abstract (loop indices, int lets and int tables have known
 * values; doubles are not needed) to follow each entry from "still zero" to
 * "written":
 *  - an accumulation all of whose runs meet entries still zero becomes an
 *    assignment (0 + x is x, apart from the sign of a zero x);
 *  - entries still zero where something reads them (a load, a dense op, an
 *    accumulation that stays one) keep their zero: the fill shrinks to
 *    boxes covering them, or goes.
 * Nothing else changes: every entry holds the same value as before wherever
 * it is read. An index the analysis cannot evaluate (an input, the item),
 * or a kernel too large for its work budget, leaves that fill as it was. */
#include "ir/ir.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ZERO = 1, DONE = 2 };
enum { BUDGET = 20000000, MAX_BOXES = 8 };
enum { SEEN = 1, BAD = 2, TOUCH_KNOWN = 4, TOUCH = 8 };   /* per statement: accumulated into a zero;
                                                          met a written entry; whether it touches T */

typedef struct uctx {
    hdg_ir_kernel *k;
    const hdg_ir_tensor *T;
    unsigned char *st, *need;    /* per entry of T */
    long zeros;                  /* entries still ZERO */
    long long *env;              /* int values by var id */
    unsigned char *known;
    const hdg_ir_stmt **keys;    /* statement -> flags, open addressing */
    unsigned char *flags;
    size_t mask;
    int phase;                   /* 1: find BAD statements; 2: mark what needs the zero */
    int fail;
    long budget;
} uctx;

/* ------------------------------------------------------ statement flags */

static unsigned char *flag_of(uctx *c, const hdg_ir_stmt *s)
{
    size_t h = ((size_t)(uintptr_t)s >> 4) * 0x9E3779B97F4A7C15ull & c->mask;
    while (c->keys[h] && c->keys[h] != s) h = (h + 1) & c->mask;
    c->keys[h] = s;
    return &c->flags[h];
}

static size_t count_stmts(const hdg_ir_stmt *s)
{
    size_t n = 0;
    for (; s; s = s->next) n += 1 + (s->kind == HDG_S_FOR ? count_stmts(s->body.first) : 0);
    return n;
}

static int expr_loads(const hdg_ir_expr *e, const hdg_ir_tensor *t)
{
    if (e->op == HDG_E_LOAD && e->t == t) return 1;
    if (e->row && expr_loads(e->row, t)) return 1;
    for (int i = 0; i < e->n; i++)
        if (expr_loads(e->a[i], t)) return 1;
    return 0;
}

/* ----------------------------------------------------- int evaluation */

static int ev(uctx *c, const hdg_ir_expr *e, long long *v);

static int ev2(uctx *c, const hdg_ir_expr *e, long long *x, long long *y)
{
    return e->a[0]->type == HDG_IR_INT && e->a[1]->type == HDG_IR_INT && ev(c, e->a[0], x) && ev(c, e->a[1], y);
}

/* The value of an int expression from the loop indices, int lets and int
 * tables; 0 if it depends on anything else. */
static int ev(uctx *c, const hdg_ir_expr *e, long long *v)
{
    long long x, y;
    if (e->type != HDG_IR_INT) return 0;
    switch (e->op) {
    case HDG_E_INT: *v = e->ival; return 1;
    case HDG_E_VAR:
        if (!c->known[e->var->id]) return 0;
        *v = c->env[e->var->id];
        return 1;
    case HDG_E_NOT: if (!ev(c, e->a[0], &x)) return 0; *v = !x; return 1;
    case HDG_E_SELECT:
        if (!ev(c, e->a[0], &x)) return 0;
        return ev(c, e->a[x ? 1 : 2], v);
    case HDG_E_LOAD: {
        const hdg_ir_tensor *t = e->t;
        if (t->kind != HDG_IR_TABLE || !t->idata || e->row) return 0;
        long long off = 0;
        for (int d = 0; d < t->rank; d++) {
            if (!ev(c, e->a[d], &x) || x < 0 || x >= t->shape[d]) return 0;
            off = off * t->shape[d] + x;
        }
        *v = t->idata[off];
        return 1;
    }
    default: break;
    }
    if (e->n != 2 || !ev2(c, e, &x, &y)) return 0;
    switch (e->op) {
    case HDG_E_ADD: *v = x + y; return 1;
    case HDG_E_SUB: *v = x - y; return 1;
    case HDG_E_MUL: *v = x * y; return 1;
    case HDG_E_DIV: if (y == 0) return 0; *v = x / y; return 1;
    case HDG_E_MOD: if (y == 0) return 0; *v = x % y; return 1;
    case HDG_E_MIN: *v = x < y ? x : y; return 1;
    case HDG_E_MAX: *v = x > y ? x : y; return 1;
    case HDG_E_LT: *v = x < y; return 1;
    case HDG_E_LE: *v = x <= y; return 1;
    case HDG_E_GT: *v = x > y; return 1;
    case HDG_E_GE: *v = x >= y; return 1;
    case HDG_E_EQ: *v = x == y; return 1;
    case HDG_E_NE: *v = x != y; return 1;
    case HDG_E_AND: *v = x && y; return 1;
    case HDG_E_OR: *v = x || y; return 1;
    default: return 0;
    }
}

/* The flat entry of T a load refers to; -1: out of bounds (not evaluated:
 * only a select's unchosen arm may hold one); -2: unknown. */
static long entry(uctx *c, const hdg_ir_expr *ref)
{
    long long off = 0, x;
    for (int d = 0; d < c->T->rank; d++) {
        if (!ev(c, ref->a[d], &x)) return -2;
        if (x < 0 || x >= c->T->shape[d]) return -1;
        off = off * c->T->shape[d] + x;
    }
    return (long)off;
}

/* --------------------------------------------------- abstract execution */

static void zero_read(uctx *c, long i)
{
    if (c->phase == 2 && c->st[i] == ZERO) c->need[i] = 1;
}

static void written(uctx *c, long i)
{
    if (c->st[i] == ZERO) c->zeros--;
    c->st[i] = DONE;
}

/* Every entry of T an expression may read (both arms of a select). */
static void reads(uctx *c, const hdg_ir_expr *e)
{
    if (c->fail) return;
    if (e->op == HDG_E_LOAD && e->t == c->T) {
        long i = entry(c, e);
        if (i == -2) c->fail = 1;
        else if (i >= 0) zero_read(c, i);
    }
    if (e->row) reads(c, e->row);
    for (int i = 0; i < e->n; i++) reads(c, e->a[i]);
}

static void store(uctx *c, const hdg_ir_stmt *s)
{
    long i = entry(c, s->dst);
    if (i < 0) {   /* a store is never under a select: out of bounds cannot happen */
        c->fail = 1;
        return;
    }
    if (s->accumulate) {
        unsigned char *f = flag_of(c, s);
        if (c->st[i] == ZERO) {
            *f |= SEEN;
            if (*f & BAD) zero_read(c, i);
        } else {
            *f |= BAD;
        }
    }
    written(c, i);
}

static int touches(const hdg_ir_tensor *const *t, int n, const hdg_ir_tensor *T)
{
    for (int i = 0; i < n; i++)
        if (t[i] == T) return 1;
    return 0;
}

static void dense(uctx *c, const hdg_ir_stmt *s)
{
    hdg_ir_tensor *t[4];
    if (touches((const hdg_ir_tensor *const *)t, hdg_ir_dense_reads(s, t), c->T))
        for (long i = 0; i < c->T->size; i++) zero_read(c, i);
    if (touches((const hdg_ir_tensor *const *)t, hdg_ir_stmt_writes(s, t, 4), c->T))
        for (long i = 0; i < c->T->size; i++) written(c, i);
}

/* Does s (a loop: anything in it) read or write T? Cached per statement. */
static int touches_T(uctx *c, const hdg_ir_stmt *s)
{
    unsigned char *f = flag_of(c, s);
    if (*f & TOUCH_KNOWN) return (*f & TOUCH) != 0;
    int t = 0;
    hdg_ir_tensor *d[4];
    switch (s->kind) {
    case HDG_S_FOR:
        for (const hdg_ir_stmt *b = s->body.first; b && !t; b = b->next) t = touches_T(c, b);
        break;
    case HDG_S_LET: t = expr_loads(s->value, c->T); break;
    case HDG_S_STORE: t = s->dst->t == c->T || expr_loads(s->value, c->T) || expr_loads(s->dst, c->T); break;
    default:
        t = touches((const hdg_ir_tensor *const *)d, hdg_ir_dense_reads(s, d), c->T) ||
            touches((const hdg_ir_tensor *const *)d, hdg_ir_stmt_writes(s, d, 4), c->T);
        break;
    }
    f = flag_of(c, s);
    *f |= TOUCH_KNOWN | (t ? TOUCH : 0);
    return t;
}

/* Runs the statements from s on (a loop that does not touch T is skipped:
 * the lets in it are its own). Only at the top level does it stop once
 * no entry is still zero: inside a loop every run of a statement must be
 * seen (one that also runs after that point meets a written entry). */
static void run(uctx *c, const hdg_ir_stmt *s, int top)
{
    for (; s && !c->fail && (!top || c->zeros > 0); s = s->next) {
        if (--c->budget < 0) {
            c->fail = 1;
            return;
        }
        switch (s->kind) {
        case HDG_S_FOR:
            if (!touches_T(c, s)) break;
            c->known[s->var->id] = 1;
            for (int v = 0; v < s->var->extent && !c->fail; v++) {
                c->env[s->var->id] = v;
                run(c, s->body.first, 0);
            }
            c->known[s->var->id] = 0;
            break;
        case HDG_S_LET:
            reads(c, s->value);
            c->known[s->var->id] = ev(c, s->value, &c->env[s->var->id]);
            break;
        case HDG_S_STORE:
            reads(c, s->value);
            for (int d = 0; d < s->dst->n; d++) reads(c, s->dst->a[d]);
            if (!c->fail && s->dst->t == c->T) store(c, s);
            break;
        default:
            dense(c, s);
            break;
        }
    }
}

/* ----------------------------------------------------------- rewriting */

/* s: for ... for T[i0][i1]... = 0 over all of T (the loops' indices in order). */
static const hdg_ir_tensor *whole_fill(const hdg_ir_stmt *s)
{
    const hdg_ir_var *v[3];
    int n = 0;
    for (; s->kind == HDG_S_FOR; s = s->body.first) {
        if (n == 3 || !s->body.first || s->body.first != s->body.last) return NULL;
        v[n++] = s->var;
    }
    if (s->kind != HDG_S_STORE || s->accumulate) return NULL;
    const hdg_ir_expr *d = s->dst, *x = s->value;
    const hdg_ir_tensor *T = d->t;
    int zero = (x->op == HDG_E_NUM && x->num == 0 && !signbit(x->num)) || (x->op == HDG_E_INT && x->ival == 0);
    if (!zero || T->kind != HDG_IR_LOCAL || d->n != n) return NULL;
    for (int i = 0; i < n; i++)
        if (d->a[i]->op != HDG_E_VAR || d->a[i]->var != v[i] || v[i]->extent != T->shape[i]) return NULL;
    return T;
}

static void to_assign(uctx *c, hdg_ir_stmt *s)
{
    for (; s; s = s->next) {
        if (s->kind == HDG_S_FOR) to_assign(c, s->body.first);
        if (s->kind == HDG_S_STORE && s->accumulate && s->dst->t == c->T) {
            unsigned char f = *flag_of(c, s);
            if ((f & (SEEN | BAD)) == SEEN) s->accumulate = 0;
        }
    }
}

/* for v in [0, n): ... (NULL for n = 1: the index is the constant 0) */
static hdg_ir_stmt *loop(hdg_ir_kernel *k, int n, hdg_ir_expr **idx, hdg_ir_stmt **inner)
{
    if (n == 1) {
        *idx = NULL;
        return NULL;
    }
    hdg_ir_stmt *s = hdg_ir_stmt_new(k, HDG_S_FOR);
    hdg_ir_var *v = hdg_ir_var_new(k, "z", HDG_IR_INT);
    v->is_loop = 1, v->extent = n, v->known = 1, v->lo = 0, v->hi = n - 1;
    s->var = v;
    *idx = hdg_ir_var_ref(k, v);
    if (*inner) (*inner)->body.first = (*inner)->body.last = s;
    *inner = s;
    return s;
}

/* T[lo + ...] = 0 over a box: a nest of loops (those of one trip left out). */
static hdg_ir_stmt *box_fill(hdg_ir_kernel *k, const hdg_ir_stmt *fill, const int *lo, const int *len)
{
    const hdg_ir_tensor *T = whole_fill(fill);
    hdg_ir_stmt *top = NULL, *inner = NULL;
    hdg_ir_expr *idx[3];
    for (int d = 0; d < T->rank; d++) {
        hdg_ir_stmt *l = loop(k, len[d], &idx[d], &inner);
        if (!top) top = l;
        idx[d] = idx[d] ? (lo[d] ? hdg_ir_add(k, hdg_ir_int(k, lo[d]), idx[d]) : idx[d]) : hdg_ir_int(k, lo[d]);
    }
    hdg_ir_stmt *st = hdg_ir_stmt_new(k, HDG_S_STORE);
    const hdg_ir_stmt *z = fill;
    while (z->kind == HDG_S_FOR) z = z->body.first;
    st->origin = z->origin;
    st->value = z->value;
    st->dst = hdg_ir_load(k, (hdg_ir_tensor *)T, T->rank, idx);
    if (inner) inner->body.first = inner->body.last = st;
    else top = st;
    for (hdg_ir_stmt *l = top; l && l->kind == HDG_S_FOR; l = l->body.first) l->origin = fill->origin;
    return top;
}

/* Boxes covering the entries that need their zero (greedy: along the last
 * index, then the middle, then the first); NULL-terminated chain of fills.
 * More than MAX_BOXES: 0 (keep the whole fill). */
static int cover(uctx *c, const hdg_ir_stmt *fill, hdg_ir_block *out)
{
    const hdg_ir_tensor *T = c->T;
    int sh[3] = { 1, 1, 1 }, r = T->rank, nbox = 0;
    for (int d = 0; d < r; d++) sh[3 - r + d] = T->shape[d];
    unsigned char *left = hdg_xmalloc((size_t)T->size);
    memcpy(left, c->need, (size_t)T->size);
#define AT(a, b, e) left[((long)(a) * sh[1] + (b)) * sh[2] + (e)]
    out->first = out->last = NULL;
    for (long p = 0; p < T->size; p++) {
        if (!left[p]) continue;
        int a = (int)(p / ((long)sh[1] * sh[2])), b = (int)(p / sh[2] % sh[1]), e = (int)(p % sh[2]);
        int ne = 1, nb = 1, na = 1;
        while (e + ne < sh[2] && AT(a, b, e + ne)) ne++;
        for (int ok = 1; ok && b + nb < sh[1]; nb += ok)
            for (int x = 0; x < ne && ok; x++) ok = AT(a, b + nb, e + x);
        for (int ok = 1; ok && a + na < sh[0]; na += ok)
            for (int y = 0; y < nb && ok; y++)
                for (int x = 0; x < ne && ok; x++) ok = AT(a + na, b + y, e + x);
        for (int z = 0; z < na; z++)
            for (int y = 0; y < nb; y++)
                for (int x = 0; x < ne; x++) AT(a + z, b + y, e + x) = 0;
        if (++nbox > MAX_BOXES) break;
        int lo3[3] = { a, b, e }, len3[3] = { na, nb, ne };
        hdg_ir_stmt *s = box_fill(c->k, fill, lo3 + 3 - r, len3 + 3 - r);
        if (out->last) out->last->next = s;
        else out->first = s;
        out->last = s;
    }
#undef AT
    free(left);
    return nbox <= MAX_BOXES;
}

/* The fill s of T (*link == s), followed by the rest of the kernel's body:
 * rewritten if the analysis finishes. */
static void unfill_one(hdg_ir_kernel *k, hdg_ir_stmt **link, hdg_ir_stmt *s, const hdg_ir_tensor *T)
{
    size_t n = count_stmts(s->next) * 2 + 16, cap = 16;
    while (cap < n) cap *= 2;
    uctx c = { .k = k, .T = T, .mask = cap - 1 };
    c.st = hdg_xmalloc((size_t)T->size);
    c.need = hdg_xcalloc((size_t)T->size, 1);
    c.env = hdg_xcalloc((size_t)k->m->next_var_id + 1, sizeof *c.env);
    c.known = hdg_xcalloc((size_t)k->m->next_var_id + 1, 1);
    c.keys = hdg_xcalloc(cap, sizeof *c.keys);
    c.flags = hdg_xcalloc(cap, 1);
    c.budget = BUDGET;
    for (c.phase = 1; c.phase <= 2 && !c.fail; c.phase++) {
        memset(c.st, ZERO, (size_t)T->size);
        c.zeros = T->size;
        run(&c, s->next, 1);
    }
    if (!c.fail) {
        to_assign(&c, s->next);
        hdg_ir_block b;
        if (cover(&c, s, &b)) {   /* the fill becomes the boxes (or nothing) */
            if (b.first) *link = b.first, b.last->next = s->next;
            else *link = s->next;
        }
    }
    free(c.st), free(c.need), free(c.env), free(c.known), free(c.keys), free(c.flags);
}

/* ------------------------------------------------------------- peephole */

static int is_zero_store(const hdg_ir_stmt *s)
{
    if (s->kind != HDG_S_STORE || s->accumulate) return 0;
    const hdg_ir_expr *x = s->value;
    return (x->op == HDG_E_NUM && x->num == 0 && !signbit(x->num)) || (x->op == HDG_E_INT && x->ival == 0);
}

/* In every block: x = 0, then (past lets that do not read x's tensor) x += v
 * becomes x = v (a fill fused into the loop of the first term). */
static void zero_then_add(hdg_ir_block *b)
{
    hdg_ir_stmt *prev = NULL;
    for (hdg_ir_stmt *s = b->first; s; s = s->next) {
        if (s->kind == HDG_S_FOR) zero_then_add(&s->body);
        if (!is_zero_store(s)) {
            prev = s;
            continue;
        }
        hdg_ir_stmt *n = s->next;
        while (n && n->kind == HDG_S_LET && !expr_loads(n->value, s->dst->t)) n = n->next;
        if (!n || n->kind != HDG_S_STORE || !n->accumulate || !hdg_ir_expr_equal(n->dst, s->dst) ||
            expr_loads(n->value, s->dst->t)) {
            prev = s;
            continue;
        }
        n->accumulate = 0;
        if (prev) prev->next = s->next;   /* s goes */
        else b->first = s->next;
        if (b->last == s) b->last = prev;
    }
}

void hdg_ir_unfill(hdg_ir_kernel *k)
{
    zero_then_add(&k->body);
    hdg_ir_stmt **link = &k->body.first;
    while (*link) {
        hdg_ir_stmt *s = *link;
        const hdg_ir_tensor *T = s->kind == HDG_S_FOR ? whole_fill(s) : NULL;
        if (T) unfill_one(k, link, s, T);
        if (*link == s) link = &s->next;   /* kept */
        else while (*link && *link != s->next) link = &(*link)->next;   /* past the boxes */
    }
    k->body.last = NULL;
    for (hdg_ir_stmt *s = k->body.first; s; s = s->next) k->body.last = s;
}
