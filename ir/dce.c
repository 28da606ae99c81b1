/* dce.c — dead-temporary elimination. Removes, until nothing changes:
 * lets whose variable is never used; stores and dense ops whose every
 * written tensor is a LOCAL that nothing else reads (a read by a statement
 * that writes the same tensor, like `M += x` or an in-place solve, does not
 * keep it alive); and loops left empty. Outputs are always live. Expressions
 * have no side effects, so dropping them is always safe. */
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>

typedef struct dctx {
    hdg_ir_kernel *k;
    int *uses;                /* by var id */
    unsigned char *read;      /* by tensor id: read by a statement that does not write it */
} dctx;

static void count_expr(dctx *c, const hdg_ir_expr *e, hdg_ir_tensor *const *w, int nw)
{
    if (e->op == HDG_E_VAR) c->uses[e->var->id]++;
    if (e->op == HDG_E_LOAD) {
        int self = 0;
        for (int i = 0; i < nw; i++) self |= w[i] == e->t;
        if (!self) c->read[e->t->id] = 1;
    }
    if (e->row) count_expr(c, e->row, w, nw);
    for (int i = 0; i < e->n; i++) count_expr(c, e->a[i], w, nw);
}

static void count_block(dctx *c, const hdg_ir_stmt *s)
{
    for (; s; s = s->next) {
        hdg_ir_tensor *w[4], *r[4];
        int nw = s->kind == HDG_S_FOR || s->kind == HDG_S_LET ? 0 : hdg_ir_stmt_writes(s, w, 4);
        if (s->kind == HDG_S_FOR) count_block(c, s->body.first);
        if (s->value) count_expr(c, s->value, w, nw);
        if (s->dst)
            for (int i = 0; i < s->dst->n; i++) count_expr(c, s->dst->a[i], w, nw);
        int nr = hdg_ir_dense_reads(s, r);
        for (int i = 0; i < nr; i++) {
            int self = 0;
            for (int j = 0; j < nw; j++) self |= w[j] == r[i];
            if (!self) c->read[r[i]->id] = 1;
        }
    }
}

static int dead_writer(const dctx *c, const hdg_ir_stmt *s)
{
    if (s->kind == HDG_S_FOR || s->kind == HDG_S_LET) return 0;
    hdg_ir_tensor *w[4];
    int nw = hdg_ir_stmt_writes(s, w, 4);
    for (int i = 0; i < nw; i++)
        if (w[i]->kind != HDG_IR_LOCAL || c->read[w[i]->id]) return 0;
    return nw > 0;
}

/* Returns the number of statements removed. */
static int sweep(dctx *c, hdg_ir_block *b)
{
    int removed = 0;
    hdg_ir_stmt *first = NULL, *last = NULL;
    for (hdg_ir_stmt *s = b->first, *next; s; s = next) {
        next = s->next;
        int drop = 0;
        if (s->kind == HDG_S_LET) drop = c->uses[s->var->id] == 0;
        else if (s->kind == HDG_S_FOR) removed += sweep(c, &s->body), drop = !s->body.first;
        else drop = dead_writer(c, s);
        if (drop) {
            removed++;
            continue;
        }
        s->next = NULL;
        if (last) last->next = s;
        else first = s;
        last = s;
    }
    b->first = first;
    b->last = last;
    return removed;
}

void hdg_ir_dce(hdg_ir_kernel *k)
{
    dctx c = { k, NULL, NULL };
    size_t nv = (size_t)k->m->next_var_id + 1, nt = (size_t)k->m->next_tensor_id + 1;
    c.uses = hdg_xmalloc(nv * sizeof *c.uses);
    c.read = hdg_xmalloc(nt);
    do {
        memset(c.uses, 0, nv * sizeof *c.uses);
        memset(c.read, 0, nt);
        count_block(&c, k->body.first);
    } while (sweep(&c, &k->body));
    free(c.uses);
    free(c.read);
}
