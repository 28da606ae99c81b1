/* print.c — the human-readable IR listing. One kernel prints as its cost
 * line, its tensors, and its statements with infix expressions; origins
 * appear as `# file:line:col: text` lines where they change. The format is
 * for people and tests (docs/ir.md shows examples), not for parsing. */
#include "ir/ir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hdg_ir_num_str(double v, char *buf, size_t n)
{
    if (isnan(v)) { snprintf(buf, n, "nan"); return; }
    if (isinf(v)) { snprintf(buf, n, v < 0 ? "-inf" : "inf"); return; }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

static void print(const hdg_ir_expr *e, hdg_str *out);

static void operand(const hdg_ir_expr *e, int min_prec, hdg_str *out)
{
    int paren = hdg_ir_op_prec(e) < min_prec;
    if (paren) hdg_str_putc(out, '(');
    print(e, out);
    if (paren) hdg_str_putc(out, ')');
}

static void args(const hdg_ir_expr *e, const char *name, hdg_str *out)
{
    hdg_str_printf(out, "%s(", name);
    for (int i = 0; i < e->n; i++) {
        if (i) hdg_str_puts(out, ", ");
        print(e->a[i], out);
    }
    hdg_str_putc(out, ')');
}

static void print(const hdg_ir_expr *e, hdg_str *out)
{
    char buf[40];
    int p = hdg_ir_op_prec(e);
    switch (e->op) {
    case HDG_E_NUM:
        hdg_ir_num_str(e->num, buf, sizeof buf);
        hdg_str_puts(out, buf);
        return;
    case HDG_E_INT: hdg_str_printf(out, "%lld", e->ival); return;
    case HDG_E_VAR: hdg_str_puts(out, e->var->name); return;
    case HDG_E_ITEM: hdg_str_puts(out, "item"); return;
    case HDG_E_TIME: hdg_str_puts(out, "t"); return;
    case HDG_E_PARAM:
        if (e->name) hdg_str_printf(out, "param.%s", e->name);
        else hdg_str_printf(out, "param[%lld]", e->ival);
        return;
    case HDG_E_LOAD:
        hdg_str_puts(out, e->t->name);
        if (e->row) {
            hdg_str_puts(out, "@(");
            print(e->row, out);
            hdg_str_putc(out, ')');
        }
        for (int i = 0; i < e->n; i++) {
            hdg_str_putc(out, '[');
            print(e->a[i], out);
            hdg_str_putc(out, ']');
        }
        return;
    case HDG_E_NEG: case HDG_E_NOT:
        hdg_str_putc(out, e->op == HDG_E_NEG ? '-' : '!');
        operand(e->a[0], p + 1, out);
        return;
    case HDG_E_TODBL: args(e, "double", out); return;
    case HDG_E_POWI:
        operand(e->a[0], p + 1, out);
        hdg_str_printf(out, "^%lld", e->ival);
        return;
    case HDG_E_CALL: args(e, hdg_ir_fn_name((hdg_ir_fn)e->ival), out); return;
    case HDG_E_POW: case HDG_E_MIN: case HDG_E_MAX: args(e, hdg_ir_op_name(e->op), out); return;
    case HDG_E_SELECT:
        operand(e->a[0], p + 1, out);
        hdg_str_puts(out, " ? ");
        operand(e->a[1], p + 1, out);
        hdg_str_puts(out, " : ");
        operand(e->a[2], p, out);
        return;
    default:   /* binary infix: keep the tree's shape, floating point is not associative */
        operand(e->a[0], p, out);
        hdg_str_printf(out, " %s ", hdg_ir_op_name(e->op));
        operand(e->a[1], p + 1, out);
        return;
    }
}

void hdg_ir_print_expr(const hdg_ir_expr *e, hdg_str *out) { print(e, out); }

static void indent(hdg_str *out, int n)
{
    for (int i = 0; i < n; i++) hdg_str_puts(out, "  ");
}

static void shape(const hdg_ir_tensor *t, hdg_str *out)
{
    for (int i = 0; i < t->rank; i++) hdg_str_printf(out, "[%d]", t->shape[i]);
}

static int same_origin(const hdg_ir_origin *a, const hdg_ir_origin *b)
{
    if (a == b) return 1;
    if (!a || !b) return 0;
    return a->line == b->line && a->col == b->col &&
           !strcmp(a->file ? a->file : "", b->file ? b->file : "") &&
           !strcmp(a->text ? a->text : "", b->text ? b->text : "");
}

/* "file:line:col: text" (parts that are unknown are left out). */
void hdg_ir_origin_str(const hdg_ir_origin *o, hdg_str *out)
{
    hdg_str_puts(out, o->file ? o->file : "?");
    if (o->line > 0) hdg_str_printf(out, ":%d", o->line);
    if (o->line > 0 && o->col > 0) hdg_str_printf(out, ":%d", o->col);
    if (o->text) hdg_str_printf(out, ": %s", o->text);
}

static void block(const hdg_ir_stmt *s, int depth, const hdg_ir_origin **last, hdg_str *out);

static void stmt(const hdg_ir_stmt *s, int depth, const hdg_ir_origin **last, hdg_str *out)
{
    if (s->origin && !same_origin(s->origin, *last)) {
        indent(out, depth);
        hdg_str_puts(out, "# ");
        hdg_ir_origin_str(s->origin, out);
        hdg_str_putc(out, '\n');
    }
    *last = s->origin ? s->origin : *last;
    indent(out, depth);
    char a[40], b[40];
    switch (s->kind) {
    case HDG_S_FOR:
        hdg_str_printf(out, "for %s in 0..%d {\n", s->var->name, s->var->extent);
        block(s->body.first, depth + 1, last, out);
        indent(out, depth);
        hdg_str_puts(out, "}\n");
        return;
    case HDG_S_LET:
        hdg_str_printf(out, "let %s%s = ", s->var->type == HDG_IR_INT ? "int " : "", s->var->name);
        print(s->value, out);
        break;
    case HDG_S_STORE:
        print(s->dst, out);
        hdg_str_puts(out, s->accumulate ? " += " : " = ");
        print(s->value, out);
        break;
    case HDG_S_MATMUL:
        hdg_ir_num_str(s->alpha, a, sizeof a);
        hdg_ir_num_str(s->beta, b, sizeof b);
        hdg_str_printf(out, "matmul %s = %s * %s%s * %s%s", s->C->name, a, s->A->name,
                       s->transa ? "^T" : "", s->B->name, s->transb ? "^T" : "");
        if (s->beta != 0) hdg_str_printf(out, " + %s * %s", b, s->C->name);
        break;
    case HDG_S_LU: hdg_str_printf(out, "lu %s, %s", s->A->name, s->piv->name); break;
    case HDG_S_LU_SOLVE:
        hdg_str_printf(out, "lu_solve %s, %s, %s", s->A->name, s->piv->name, s->B->name);
        break;
    case HDG_S_CHOL: hdg_str_printf(out, "chol %s", s->A->name); break;
    case HDG_S_CHOL_SOLVE: hdg_str_printf(out, "chol_solve %s, %s", s->A->name, s->B->name); break;
    }
    hdg_str_putc(out, '\n');
}

static void block(const hdg_ir_stmt *s, int depth, const hdg_ir_origin **last, hdg_str *out)
{
    for (; s; s = s->next) stmt(s, depth, last, out);
}

static const char *kind_name(hdg_ir_tkind k)
{
    switch (k) {
    case HDG_IR_TABLE: return "table";
    case HDG_IR_LOCAL: return "local";
    case HDG_IR_IN: return "in";
    case HDG_IR_OUT: return "out";
    case HDG_IR_GEOM: return "geom";
    case HDG_IR_IMAP: return "imap";
    }
    return "?";
}

void hdg_ir_print(const hdg_ir_kernel *k, hdg_str *out)
{
    hdg_ir_cost c = hdg_ir_kernel_cost(k);
    hdg_str_printf(out, "kernel %s (per %s)  flops %lld  read %lld B  write %lld B  tables %lld B\n",
                   k->name, k->item == HDG_KITEM_FACE ? "face" : "element", c.flops, c.bytes_read,
                   c.bytes_written, c.table_bytes);
    for (int i = 0; i < k->ntensors; i++) {
        const hdg_ir_tensor *t = k->tensors[i];
        hdg_str_printf(out, "  %s %s%s", kind_name(t->kind), t->type == HDG_IR_INT ? "int " : "", t->name);
        shape(t, out);
        if (t->slot >= 0) hdg_str_printf(out, " -> %s[%d]", kind_name(t->kind), t->slot);
        if (t->doc && *t->doc) hdg_str_printf(out, "  \"%s\"", t->doc);
        hdg_str_putc(out, '\n');
    }
    const hdg_ir_origin *last = NULL;
    block(k->body.first, 1, &last, out);
}

void hdg_ir_print_module(const hdg_ir_module *m, hdg_str *out)
{
    hdg_str_printf(out, "module %s\n", m->name);
    for (int i = 0; i < m->ntables; i++) {
        const hdg_ir_tensor *t = m->tables[i];
        hdg_str_printf(out, "table %s%s", t->type == HDG_IR_INT ? "int " : "", t->name);
        shape(t, out);
        hdg_str_puts(out, " = {");
        int show = t->size <= 16 ? t->size : 8;
        for (int j = 0; j < show; j++) {
            char buf[40];
            if (t->type == HDG_IR_INT) snprintf(buf, sizeof buf, "%d", t->idata[j]);
            else hdg_ir_num_str(t->data[j], buf, sizeof buf);
            hdg_str_printf(out, "%s%s", j ? ", " : "", buf);
        }
        if (show < t->size) hdg_str_printf(out, ", ... (%d values)", t->size);
        hdg_str_puts(out, "}\n");
    }
    for (int i = 0; i < m->nkernels; i++) hdg_ir_print(m->kernels[i], out);
}
