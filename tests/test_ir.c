/* test_ir.c — the element-batch IR without a C compiler: construction and
 * identifier hygiene, the verifier's messages, the printer, the cost model
 * (exact counts by hand), kernel metadata, and each pass (fold, CSE, LICM,
 * DCE) observed through the printed IR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "test.h"

static char *print_kernel(const hdg_ir_kernel *k)
{
    hdg_str s;
    hdg_str_init(&s);
    hdg_ir_print(k, &s);
    return hdg_str_take(&s);
}

static int count_substr(const char *s, const char *sub)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, sub)); p += strlen(sub)) n++;
    return n;
}

/* The name bound by the n-th `let` (0-based) in a printed kernel, or "". */
static const char *let_name(const char *p, int n, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (const char *q = p; (q = strstr(q, "let ")); q += 4) {
        if (n-- > 0) continue;
        size_t len = strcspn(q + 4, " ");
        if (len >= cap) len = cap - 1;
        memcpy(buf, q + 4, len);
        buf[len] = '\0';
        break;
    }
    return buf;
}

/* The message of the first verify failure, "" if it verifies. */
static const char *verify_msg(const hdg_ir_kernel *k, hdg_error *err)
{
    hdg_error_clear(err);
    return hdg_ir_verify(k, err) ? err->msg : "";
}

static void test_names(void)
{
    hdg_ir_module *m = hdg_ir_module_new("names");
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "k", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *a = hdg_ir_local(k, "a", HDG_IR_DOUBLE, HDG_SCALAR);
    hdg_ir_tensor *x1 = hdg_ir_local(k, "x", HDG_IR_DOUBLE, HDG_SHAPE(2));
    hdg_ir_tensor *x2 = hdg_ir_local(k, "x", HDG_IR_DOUBLE, HDG_SHAPE(2));
    hdg_ir_tensor *sp = hdg_ir_local(k, "u hat", HDG_IR_DOUBLE, HDG_SHAPE(2));
    hdg_ir_tensor *kw = hdg_ir_local(k, "for", HDG_IR_DOUBLE, HDG_SHAPE(2));
    hdg_ir_tensor *dg = hdg_ir_local(k, "2x", HDG_IR_DOUBLE, HDG_SHAPE(2));
    hdg_ir_tensor *tb = hdg_ir_table(m, "x", HDG_SHAPE(1), (double[]){ 1 });
    hdg_ir_kernel *k2 = hdg_ir_kernel_new(m, "k", HDG_KITEM_FACE);
    CHECK(!strcmp(a->name, "a2"), "reserved 'a' renamed: %s", a->name);
    CHECK(!strcmp(x1->name, "x") && !strcmp(x2->name, "x2"), "duplicates: %s %s", x1->name, x2->name);
    CHECK(!strcmp(sp->name, "u_hat"), "sanitised: %s", sp->name);
    CHECK(!strcmp(kw->name, "for2"), "keyword: %s", kw->name);
    CHECK(!strcmp(dg->name, "v2x"), "leading digit: %s", dg->name);
    CHECK(strcmp(tb->name, "x") && strcmp(tb->name, "x2"), "table name clashes: %s", tb->name);
    CHECK(!strcmp(k2->name, "k2"), "kernel names unique: %s", k2->name);
    CHECK(x1->slot == -1 && x1->size == 2 && a->size == 1 && a->rank == 0, "local shape");
    hdg_ir_module_free(m);
}

static void test_verify(void)
{
    hdg_error err;
    hdg_ir_module *m = hdg_ir_module_new("v");

    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "oob", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *T = hdg_ir_local(k, "T", HDG_IR_DOUBLE, HDG_SHAPE(3));
    hdg_ir_expr *i = hdg_ir_for(k, "i", 4);
    hdg_ir_assign(k, hdg_ir_ld1(k, T, i), hdg_ir_num(k, 1));
    hdg_ir_end(k);
    const char *msg = verify_msg(k, &err);
    CHECK(strstr(msg, "oob") && strstr(msg, "T: index 0 (i) has range [0, 3], outside [0, 3)"), "%s", msg);
    CHECK(err.code == HDG_EINTERNAL, "code %d", err.code);

    k = hdg_ir_kernel_new(m, "guarded", HDG_KITEM_ELEMENT);
    T = hdg_ir_local(k, "T", HDG_IR_DOUBLE, HDG_SHAPE(3));
    hdg_ir_tensor *O = hdg_ir_output(k, "O", HDG_SHAPE(3), "");
    hdg_ir_fill(k, T, hdg_ir_num(k, 2));
    i = hdg_ir_for(k, "i", 3);
    hdg_ir_expr *ip1 = hdg_ir_add(k, i, hdg_ir_int(k, 1));
    hdg_ir_assign(k, hdg_ir_ld1(k, O, i),
                  hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_LT, ip1, hdg_ir_int(k, 3)), hdg_ir_ld1(k, T, ip1),
                                hdg_ir_num(k, 0)));
    hdg_ir_end(k);
    msg = verify_msg(k, &err);
    CHECK(!*msg, "an index guarded by a select may exceed: %s", msg);
    CHECK(hdg_ir_optimize(k, HDG_IR_OPT_DEFAULT, &err) == HDG_OK, "%s", err.msg);
    char *p = print_kernel(k);   /* T[i + 1] may be out of range: it stays under the select */
    CHECK(strstr(p, "    O[i2] = i2 + 1 < 3 ? T[i2 + 1] : 0\n"), "%s", p);
    free(p);

    k = hdg_ir_kernel_new(m, "scope", HDG_KITEM_ELEMENT);
    T = hdg_ir_local(k, "T", HDG_IR_DOUBLE, HDG_SHAPE(3));
    i = hdg_ir_for(k, "i", 3);
    hdg_ir_end(k);
    hdg_ir_assign(k, hdg_ir_ld1(k, T, i), hdg_ir_num(k, 1));
    msg = verify_msg(k, &err);
    CHECK(strstr(msg, "variable i used outside its scope"), "%s", msg);

    k = hdg_ir_kernel_new(m, "rank", HDG_KITEM_ELEMENT);
    T = hdg_ir_local(k, "T", HDG_IR_DOUBLE, HDG_SHAPE(3, 3));
    hdg_ir_assign(k, hdg_ir_ld1(k, T, hdg_ir_int(k, 0)), hdg_ir_num(k, 1));
    msg = verify_msg(k, &err);
    CHECK(strstr(msg, "T has rank 2 but 1 indices were given"), "%s", msg);

    k = hdg_ir_kernel_new(m, "ro", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *in = hdg_ir_input(k, "u", HDG_SHAPE(3), "");
    hdg_ir_assign(k, hdg_ir_ld1(k, in, hdg_ir_int(k, 0)), hdg_ir_num(k, 1));
    msg = verify_msg(k, &err);
    CHECK(strstr(msg, "destination must be an element of a local or output"), "%s", msg);

    k = hdg_ir_kernel_new(m, "intdiv", HDG_KITEM_ELEMENT);
    T = hdg_ir_local(k, "T", HDG_IR_INT, HDG_SHAPE(3));
    i = hdg_ir_for(k, "i", 3);
    hdg_ir_assign(k, hdg_ir_ld1(k, T, i), hdg_ir_div(k, hdg_ir_int(k, 7), i));
    hdg_ir_end(k);
    msg = verify_msg(k, &err);
    CHECK(strstr(msg, "int division needs a positive constant divisor"), "%s", msg);

    k = hdg_ir_kernel_new(m, "mm", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *A = hdg_ir_local(k, "A", HDG_IR_DOUBLE, HDG_SHAPE(3, 4));
    hdg_ir_tensor *B = hdg_ir_local(k, "B", HDG_IR_DOUBLE, HDG_SHAPE(3, 2));
    hdg_ir_tensor *C = hdg_ir_local(k, "C", HDG_IR_DOUBLE, HDG_SHAPE(3, 2));
    hdg_ir_matmul(k, C, 1, A, 0, B, 0, 0);
    msg = verify_msg(k, &err);
    CHECK(strstr(msg, "matmul C = A B: inner dimensions 4 and 3 differ"), "%s", msg);

    k = hdg_ir_kernel_new(m, "open", HDG_KITEM_ELEMENT);
    hdg_ir_for(k, "i", 2);
    msg = verify_msg(k, &err);
    CHECK(strstr(msg, "1 loop(s) left open"), "%s", msg);

    k = hdg_ir_kernel_new(m, "slots", HDG_KITEM_ELEMENT);
    for (int s = 0; s < HDG_KMAX_IN + 1; s++) hdg_ir_input(k, "u", HDG_SHAPE(1), "");
    msg = verify_msg(k, &err);
    CHECK(strstr(msg, "more than 8 input slots"), "%s", msg);

    k = hdg_ir_kernel_new(m, "types", HDG_KITEM_ELEMENT);
    T = hdg_ir_local(k, "T", HDG_IR_INT, HDG_SHAPE(2));
    hdg_ir_assign(k, hdg_ir_ld1(k, T, hdg_ir_int(k, 0)), hdg_ir_num(k, 1.5));
    msg = verify_msg(k, &err);
    CHECK(strstr(msg, "double value into int tensor T"), "%s", msg);

    k = hdg_ir_kernel_new(m, "foreign", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *F = hdg_ir_local(k, "F", HDG_IR_DOUBLE, HDG_SHAPE(2));
    hdg_ir_kernel *k2 = hdg_ir_kernel_new(m, "other", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *G = hdg_ir_local(k2, "G", HDG_IR_DOUBLE, HDG_SHAPE(2));
    hdg_ir_assign(k2, hdg_ir_ld1(k2, G, hdg_ir_int(k2, 0)), hdg_ir_ld1(k2, F, hdg_ir_int(k2, 1)));
    msg = verify_msg(k2, &err);
    CHECK(strstr(msg, "tensor F belongs to kernel foreign"), "%s", msg);
    hdg_ir_module_free(m);
}

/* Test 4 of the brief: exact flop and byte counts of a tiny kernel. */
static void test_cost(void)
{
    hdg_ir_module *m = hdg_ir_module_new("cost");
    hdg_ir_tensor *tab = hdg_ir_table(m, "wts", HDG_SHAPE(2), (double[]){ 0.5, 0.5 });
    hdg_ir_tensor *unused = hdg_ir_table(m, "unused", HDG_SHAPE(100), NULL);
    (void)unused;
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "tiny", HDG_KITEM_FACE);
    hdg_ir_tensor *G = hdg_ir_geom(k, "G", HDG_SHAPE(2), "scale, angle");
    hdg_ir_tensor *u = hdg_ir_input(k, "u", HDG_SHAPE(3), "values");
    hdg_ir_tensor *nb = hdg_ir_input(k, "nb", HDG_SHAPE(3), "neighbour values");
    hdg_ir_tensor *map = hdg_ir_imap(k, "f2e", 2, "elements of the face");
    hdg_ir_tensor *r = hdg_ir_output(k, "r", HDG_SHAPE(3), "result");
    hdg_ir_tensor *A = hdg_ir_local(k, "A", HDG_IR_DOUBLE, HDG_SHAPE(4, 4));
    hdg_ir_tensor *piv = hdg_ir_local(k, "piv", HDG_IR_INT, HDG_SHAPE(4));
    hdg_ir_tensor *b = hdg_ir_local(k, "b", HDG_IR_DOUBLE, HDG_SHAPE(4, 2));
    hdg_ir_expr *z = hdg_ir_int(k, 0), *one = hdg_ir_int(k, 1);
    /* 3 x (G0*u[i] + sin(G1)*kappa*wts[1]): 3 x (mul + add + sin 20 + mul + mul) = 3 x 24 = 72 */
    hdg_ir_expr *i = hdg_ir_for(k, "i", 3);
    hdg_ir_assign(k, hdg_ir_ld1(k, r, i),
                  hdg_ir_add(k, hdg_ir_mul(k, hdg_ir_ld1(k, G, z), hdg_ir_ld1(k, u, i)),
                             hdg_ir_mul(k, hdg_ir_mul(k, hdg_ir_call(k, HDG_FN_SIN, hdg_ir_ld1(k, G, one)),
                                                      hdg_ir_param(k, 2, "kappa")),
                                        hdg_ir_ld1(k, tab, one))));
    hdg_ir_end(k);
    /* let s = u[0] / u[1]: 1;  r[0] += s^3 + s^-2: 2 + (1 + 1) + 1 (add) + 1 (+=) = 6 */
    hdg_ir_expr *s = hdg_ir_let(k, "s", hdg_ir_div(k, hdg_ir_ld1(k, u, z), hdg_ir_ld1(k, u, one)));
    hdg_ir_accum(k, hdg_ir_ld1(k, r, z), hdg_ir_add(k, hdg_ir_powi(k, s, 3), hdg_ir_powi(k, s, -2)));
    /* a gathered read, twice per trip (condition and arm), 2 trips: 4 x 8 B;
     * compare double: 1 flop each, select 0 */
    hdg_ir_expr *j = hdg_ir_for(k, "j", 2);
    hdg_ir_expr *g = hdg_ir_load_row(k, nb, hdg_ir_ld1(k, map, one), 1, &j);
    hdg_ir_accum(k, hdg_ir_ld1(k, r, j),
                 hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_GT, g, hdg_ir_num(k, 0)), g, hdg_ir_num(k, 0)));
    hdg_ir_end(k);   /* 2 x (1 cmp + 1 +=) = 4 */
    /* A = 1 (16 stores, 0 flops), LU 4: 4*3/2 + 4*3*7/3 = 6 + 28 = 34; solve 2 rhs: 2*(32-4) = 56;
     * matmul b = 2 A^T b? (b is the result: use r-free form) A(4x4) * b(4x2) into tmp: 2*4*2*4 = 64, alpha 2: +8 */
    hdg_ir_fill(k, A, hdg_ir_num(k, 1));
    hdg_ir_fill(k, b, hdg_ir_num(k, 1));
    hdg_ir_lu(k, A, piv);
    hdg_ir_lu_solve(k, A, piv, b);
    hdg_ir_tensor *c = hdg_ir_local(k, "c", HDG_IR_DOUBLE, HDG_SHAPE(4, 2));
    hdg_ir_matmul(k, c, 2.0, A, 1, b, 0, 0.0);
    /* chol 4 (L D L^T): sum_j 2j + 1 + (3-j)(2j+1) = (0+1+3) + (2+1+6) + (4+1+5) + (6+1+0) = 30;
     * chol_solve 4, 2 rhs: 2*(32-4) = 56 */
    hdg_ir_chol(k, A);
    hdg_ir_chol_solve(k, A, c);
    hdg_ir_assign(k, hdg_ir_ld1(k, r, hdg_ir_int(k, 2)), hdg_ir_ld2(k, c, one, one));

    hdg_error err;
    CHECK(hdg_ir_verify(k, &err) == HDG_OK, "%s", err.msg);
    hdg_ir_cost cost = hdg_ir_kernel_cost(k);
    long long flops = 72 + 1 + 6 + 4 + 34 + 56 + 72 + 30 + 56;
    CHECK(cost.flops == flops, "flops %lld, by hand %lld", cost.flops, flops);
    /* read: G 16 + u 24 + f2e 8 (2 ints) + r 24 (+= reads it) + gathered 4 x 8 = 104;
     * nb is never read at the item, so its stride is not counted */
    CHECK(cost.bytes_read == 104, "read %lld", cost.bytes_read);
    CHECK(cost.bytes_written == 24, "write %lld", cost.bytes_written);
    CHECK(cost.table_bytes == 16, "tables %lld", cost.table_bytes);

    hdg_kernel_info info;
    hdg_ir_kernel_info(k, &info);
    CHECK(!strcmp(info.name, "tiny") && info.item == HDG_KITEM_FACE, "info name %s", info.name);
    CHECK(info.nin == 2 && info.nout == 1 && info.nimap == 1 && info.ngeom == 2 && info.nparams == 3,
          "counts %d %d %d %d %d", info.nin, info.nout, info.nimap, info.ngeom, info.nparams);
    CHECK(info.in[0].stride == 3 && info.in[0].flags == HDG_KSLOT_ITEM && !strcmp(info.in[0].doc, "values"),
          "in0 %d %d", info.in[0].stride, info.in[0].flags);
    CHECK(info.in[1].flags == HDG_KSLOT_GATHER && !strcmp(info.in[1].name, "nb"), "in1 flags %d", info.in[1].flags);
    CHECK(info.out[0].flags == (HDG_KSLOT_ITEM | HDG_KSLOT_READS), "out flags %d", info.out[0].flags);
    CHECK(info.imap[0].stride == 2 && info.imap[0].flags == HDG_KSLOT_ITEM, "imap");
    CHECK(info.flops == flops && info.bytes_read == 104 && info.bytes_written == 24, "info cost");

    char *p = print_kernel(k);
    CHECK(strstr(p, "kernel tiny (per face)  flops 331  read 104 B  write 24 B  tables 16 B\n"), "%s", p);
    CHECK(strstr(p, "  in nb[3] -> in[1]  \"neighbour values\"\n"), "%s", p);
    CHECK(strstr(p, "    r[i] = G[0] * u[i] + sin(G[1]) * param.kappa * wts[1]\n"), "%s", p);
    CHECK(strstr(p, "  r[0] += s^3 + s^-2\n"), "%s", p);
    CHECK(strstr(p, "r[j] += nb@(f2e[1])[j] > 0 ? nb@(f2e[1])[j] : 0\n"), "%s", p);
    CHECK(strstr(p, "  matmul c = 2 * A^T * b\n") && strstr(p, "  lu_solve A, piv, b\n"), "%s", p);
    free(p);
    hdg_ir_module_free(m);
}

static void test_print_prec(void)
{
    hdg_ir_module *m = hdg_ir_module_new("p");
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "p", HDG_KITEM_ELEMENT);
    hdg_ir_expr *x = hdg_ir_param(k, 0, "x"), *y = hdg_ir_param(k, 1, "y"), *z = hdg_ir_param(k, 2, NULL);
    hdg_str s;
    hdg_str_init(&s);
    hdg_ir_print_expr(hdg_ir_sub(k, x, hdg_ir_sub(k, y, z)), &s);
    hdg_str_puts(&s, " | ");
    hdg_ir_print_expr(hdg_ir_sub(k, hdg_ir_sub(k, x, y), z), &s);
    hdg_str_puts(&s, " | ");
    hdg_ir_print_expr(hdg_ir_mul(k, hdg_ir_add(k, x, y), hdg_ir_neg(k, hdg_ir_powi(k, z, 2))), &s);
    hdg_str_puts(&s, " | ");
    hdg_ir_print_expr(hdg_ir_powi(k, hdg_ir_neg(k, x), 2), &s);
    hdg_str_puts(&s, " | ");
    hdg_ir_print_expr(hdg_ir_div(k, hdg_ir_num(k, 0.1), hdg_ir_int(k, 3)), &s);
    CHECK(!strcmp(s.s, "param.x - (param.y - param[2]) | param.x - param.y - param[2] | "
                       "(param.x + param.y) * -param[2]^2 | (-param.x)^2 | 0.1 / 3"), "%s", s.s);
    hdg_str_free(&s);
    hdg_ir_module_free(m);
}

/* Folds value into a store and returns the printed value. */
static char *folded(hdg_ir_kernel *k, hdg_ir_tensor *o, hdg_ir_expr *v, unsigned flags)
{
    k->body.first = k->body.last = NULL;
    hdg_ir_assign(k, hdg_ir_ld0(k, o), v);
    hdg_ir_fold(k, flags);
    hdg_str s;
    hdg_str_init(&s);
    if (k->body.first) hdg_ir_print_expr(k->body.first->value, &s);
    else hdg_str_puts(&s, "(removed)");
    return hdg_str_take(&s);
}

static void test_fold(void)
{
    hdg_ir_module *m = hdg_ir_module_new("f");
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "f", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *o = hdg_ir_output(k, "o", HDG_SCALAR, "");
    hdg_ir_expr *x = hdg_ir_param(k, 0, "x");
    struct { hdg_ir_expr *e; unsigned flags; const char *want; } cases[] = {
        { hdg_ir_mul(k, x, hdg_ir_num(k, 1)), 0, "param.x" },
        { hdg_ir_mul(k, hdg_ir_num(k, -1), x), 0, "-param.x" },
        { hdg_ir_add(k, x, hdg_ir_num(k, -0.0)), 0, "param.x" },
        { hdg_ir_add(k, x, hdg_ir_num(k, 0.0)), 0, "param.x + 0" },            /* x = -0 would change */
        { hdg_ir_add(k, x, hdg_ir_num(k, 0.0)), HDG_IR_FINITE, "param.x" },
        { hdg_ir_mul(k, x, hdg_ir_num(k, 0.0)), 0, "param.x * 0" },            /* NaN, inf, -0 */
        { hdg_ir_mul(k, x, hdg_ir_num(k, 0.0)), HDG_IR_FINITE, "0" },
        { hdg_ir_sub(k, x, x), HDG_IR_FINITE, "0" },
        { hdg_ir_sub(k, x, hdg_ir_num(k, 0.0)), 0, "param.x" },
        { hdg_ir_add(k, x, hdg_ir_num(k, -2.5)), 0, "param.x - 2.5" },
        { hdg_ir_sub(k, x, hdg_ir_neg(k, x)), 0, "param.x + param.x" },
        { hdg_ir_mul(k, hdg_ir_call(k, HDG_FN_SIN, hdg_ir_num(k, 0.5)), hdg_ir_int(k, 2)), 0, "0.958851077208406" },
        { hdg_ir_div(k, hdg_ir_num(k, 1), hdg_ir_num(k, 0)), 0, "1 / 0" },     /* not finite: left alone */
        { hdg_ir_call(k, HDG_FN_SQRT, hdg_ir_num(k, -1)), 0, "sqrt(-1)" },
        { hdg_ir_pow(k, x, hdg_ir_num(k, 2)), 0, "param.x^2" },
        { hdg_ir_pow(k, x, hdg_ir_num(k, 0)), 0, "1" },
        { hdg_ir_powi(k, hdg_ir_num(k, 1.5), 5), 0, "7.59375" },
        { hdg_ir_powi(k, x, 1), 0, "param.x" },
        { hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_LT, hdg_ir_int(k, 1), hdg_ir_num(k, 2)), x, hdg_ir_num(k, 3)), 0, "param.x" },
        { hdg_ir_select(k, hdg_ir_cmp(k, HDG_E_LT, x, hdg_ir_num(k, 2)), x, x), 0, "param.x" },
        { hdg_ir_todbl(k, hdg_ir_mul(k, hdg_ir_add(k, hdg_ir_add(k, hdg_ir_item(k), hdg_ir_int(k, 1)), hdg_ir_int(k, 2)),
                                     hdg_ir_int(k, 1))), 0, "double(item + 3)" },
        { hdg_ir_todbl(k, hdg_ir_mul(k, hdg_ir_item(k), hdg_ir_int(k, 0))), 0, "0" },
        { hdg_ir_todbl(k, hdg_ir_mod(k, hdg_ir_int(k, -7), hdg_ir_int(k, 3))), 0, "-1" },
        { hdg_ir_todbl(k, hdg_ir_div(k, hdg_ir_int(k, -7), hdg_ir_int(k, 2))), 0, "-3" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char *got = folded(k, o, cases[c].e, cases[c].flags);
        CHECK(!strcmp(got, cases[c].want), "case %zu: folded to '%s', want '%s'", c, got, cases[c].want);
        free(got);
    }
    /* accumulating -0 is a no-op; +0 only under finite math */
    k->body.first = k->body.last = NULL;
    hdg_ir_accum(k, hdg_ir_ld0(k, o), hdg_ir_mul(k, x, hdg_ir_num(k, -0.0)));
    hdg_ir_accum(k, hdg_ir_ld0(k, o), hdg_ir_num(k, -0.0));
    hdg_ir_accum(k, hdg_ir_ld0(k, o), hdg_ir_num(k, 0.0));
    hdg_ir_fold(k, 0);
    char *p = print_kernel(k);
    CHECK(count_substr(p, "o += ") == 2, "%s", p);
    hdg_ir_fold(k, HDG_IR_FINITE);
    free(p);
    p = print_kernel(k);
    CHECK(count_substr(p, "o += ") == 0, "%s", p);
    free(p);

    /* loops of one trip disappear (index -> 0), zero trips vanish, leaf lets propagate */
    hdg_ir_kernel *k2 = hdg_ir_kernel_new(m, "loops", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *v = hdg_ir_output(k2, "v", HDG_SHAPE(1, 4), "");
    hdg_ir_expr *i = hdg_ir_for(k2, "i", 1);
    hdg_ir_expr *j = hdg_ir_for(k2, "j", 4);
    hdg_ir_expr *c = hdg_ir_let(k2, "c", hdg_ir_num(k2, 2));
    hdg_ir_assign(k2, hdg_ir_ld2(k2, v, i, j), hdg_ir_mul(k2, c, hdg_ir_todbl(k2, hdg_ir_add(k2, j, i))));
    hdg_ir_end(k2);
    hdg_ir_end(k2);
    hdg_ir_for(k2, "never", 0);
    hdg_ir_assign(k2, hdg_ir_ld2(k2, v, hdg_ir_int(k2, 0), hdg_ir_int(k2, 0)), hdg_ir_num(k2, 1));
    hdg_ir_end(k2);
    hdg_error err;
    CHECK(hdg_ir_optimize(k2, HDG_IR_FOLD, &err) == HDG_OK, "%s", err.msg);
    p = print_kernel(k2);
    CHECK(strstr(p, "  for j in 0..4 {\n    v[0][j] = 2 * double(j)\n  }\n") && !strstr(p, "never"), "%s", p);
    free(p);
    hdg_ir_module_free(m);
}

static void test_cse(void)
{
    hdg_ir_module *m = hdg_ir_module_new("c");
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "cse", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *u = hdg_ir_input(k, "u", HDG_SHAPE(2), "");
    hdg_ir_tensor *o = hdg_ir_output(k, "o", HDG_SHAPE(4), "");
    hdg_ir_tensor *L = hdg_ir_local(k, "L", HDG_IR_DOUBLE, HDG_SHAPE(1));
    hdg_ir_expr *z = hdg_ir_int(k, 0), *one = hdg_ir_int(k, 1);
    hdg_ir_expr *ab = hdg_ir_mul(k, hdg_ir_ld1(k, u, z), hdg_ir_ld1(k, u, one));
    hdg_ir_expr *ab2 = hdg_ir_mul(k, hdg_ir_ld1(k, u, z), hdg_ir_ld1(k, u, one));   /* equal, not shared */
    hdg_ir_assign(k, hdg_ir_ld1(k, o, z), hdg_ir_call(k, HDG_FN_EXP, hdg_ir_add(k, ab, hdg_ir_num(k, 1))));
    hdg_ir_assign(k, hdg_ir_ld1(k, o, one), hdg_ir_call(k, HDG_FN_EXP, hdg_ir_add(k, ab2, hdg_ir_num(k, 1))));
    /* a store in between must stop reuse of loads of L */
    hdg_ir_assign(k, hdg_ir_ld1(k, L, z), hdg_ir_num(k, 3));
    hdg_ir_assign(k, hdg_ir_ld1(k, o, hdg_ir_int(k, 2)), hdg_ir_mul(k, hdg_ir_ld1(k, L, z), hdg_ir_num(k, 2)));
    hdg_ir_assign(k, hdg_ir_ld1(k, L, z), hdg_ir_num(k, 4));
    hdg_ir_assign(k, hdg_ir_ld1(k, o, hdg_ir_int(k, 3)), hdg_ir_mul(k, hdg_ir_ld1(k, L, z), hdg_ir_num(k, 2)));
    long long before = hdg_ir_kernel_cost(k).flops;
    hdg_error err;
    CHECK(hdg_ir_optimize(k, HDG_IR_CSE | HDG_IR_DCE, &err) == HDG_OK, "%s", err.msg);
    char *p = print_kernel(k), t[64], want[256];
    let_name(p, 0, t, sizeof t);
    snprintf(want, sizeof want, "  let %s = exp(u[0] * u[1] + 1)\n  o[0] = %s\n  o[1] = %s\n", t, t, t);
    CHECK(*t && strstr(p, want), "%s", p);
    CHECK(count_substr(p, "let ") == 1, "%s", p);
    CHECK(count_substr(p, "L[0] * 2") == 2, "%s", p);
    long long after = hdg_ir_kernel_cost(k).flops;
    CHECK(before == 2 * 22 + 2 && after == 22 + 2, "flops %lld -> %lld", before, after);
    free(p);
    hdg_ir_module_free(m);
}

static void test_licm_dce(void)
{
    hdg_ir_module *m = hdg_ir_module_new("l");
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "licm", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *G = hdg_ir_geom(k, "G", HDG_SHAPE(2), "");
    hdg_ir_tensor *o = hdg_ir_output(k, "o", HDG_SHAPE(3, 4), "");
    hdg_ir_tensor *dead = hdg_ir_local(k, "dead", HDG_IR_DOUBLE, HDG_SHAPE(3));
    hdg_ir_tensor *tab = hdg_ir_table(m, "phi", HDG_SHAPE(3, 4), (double[12]){ 0 });
    hdg_ir_expr *z = hdg_ir_int(k, 0), *one = hdg_ir_int(k, 1);
    hdg_ir_expr *i = hdg_ir_for(k, "i", 3);
    hdg_ir_expr *j = hdg_ir_for(k, "j", 4);
    hdg_ir_let(k, "unused", hdg_ir_call(k, HDG_FN_EXP, hdg_ir_ld1(k, G, z)));
    hdg_ir_expr *jac = hdg_ir_call(k, HDG_FN_SQRT, hdg_ir_mul(k, hdg_ir_ld1(k, G, z), hdg_ir_ld1(k, G, one)));
    hdg_ir_assign(k, hdg_ir_ld2(k, o, i, j),
                  hdg_ir_mul(k, hdg_ir_mul(k, jac, hdg_ir_ld2(k, tab, i, hdg_ir_int(k, 0))), hdg_ir_ld2(k, tab, i, j)));
    hdg_ir_assign(k, hdg_ir_ld1(k, dead, i), hdg_ir_num(k, 1));
    hdg_ir_end(k);
    hdg_ir_end(k);
    long long before = hdg_ir_kernel_cost(k).flops;
    hdg_error err;
    CHECK(hdg_ir_optimize(k, HDG_IR_OPT_DEFAULT, &err) == HDG_OK, "%s", err.msg);
    char *p = print_kernel(k), t1[64], t2[64], want[512];
    let_name(p, 0, t1, sizeof t1);
    let_name(p, 1, t2, sizeof t2);
    snprintf(want, sizeof want, "  let %s = sqrt(G[0] * G[1])\n  for i in 0..3 {\n    let %s = %s * phi[i][0]\n"
             "    for j in 0..4 {\n      o[i][j] = %s * phi[i][j]\n    }\n  }\n", t1, t2, t1, t2);
    CHECK(*t1 && *t2 && strstr(p, want), "%s", p);
    CHECK(count_substr(p, "let ") == 2, "%s", p);
    CHECK(!strstr(p, "unused") && !strstr(p, "dead[i]"), "DCE: %s", p);
    long long after = hdg_ir_kernel_cost(k).flops;
    CHECK(before == 12 * (20 + 4) && after == 2 + 3 + 12, "flops %lld -> %lld", before, after);
    free(p);
    hdg_ir_module_free(m);
}

/* k optimized with flags, listed; the module is freed. */
static char *optimized_listing(hdg_ir_module *m, hdg_ir_kernel *k, unsigned flags)
{
    hdg_error err;
    CHECK(hdg_ir_optimize(k, flags, &err) == HDG_OK, "%s", err.msg);
    char *p = print_kernel(k);
    hdg_ir_module_free(m);
    return p;
}

/* for i < 3, j < 4: M[row0 + i][j] += s * T[i][j] */
static void acc_nest(hdg_ir_kernel *k, hdg_ir_tensor *M, hdg_ir_tensor *T, hdg_ir_expr *s, int row0)
{
    hdg_ir_expr *i = hdg_ir_for(k, "i", 3), *j = hdg_ir_for(k, "j", 4);
    hdg_ir_accum(k, hdg_ir_ld2(k, M, hdg_ir_add(k, hdg_ir_int(k, row0), i), j), hdg_ir_mul(k, s, hdg_ir_ld2(k, T, i, j)));
    hdg_ir_end(k);
    hdg_ir_end(k);
}

/* Two accumulation nests into M with a statement between them of the given
 * kind; returns the optimized kernel's listing. */
enum { BETWEEN_NONE, BETWEEN_READS_BLOCK, BETWEEN_READS_OTHER, BETWEEN_READS_OTHER_ROW, SECOND_READS_NEIGHBOUR,
       SECOND_REDUCES, SECOND_MOVES_UP };
static char *fuse_case(int between)
{
    hdg_ir_module *m = hdg_ir_module_new("fu");
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "fuse", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *G = hdg_ir_geom(k, "G", HDG_SHAPE(2), "");
    hdg_ir_tensor *o = hdg_ir_output(k, "o", HDG_SHAPE(4, 4), "");
    hdg_ir_tensor *M = hdg_ir_local(k, "M", HDG_IR_DOUBLE, HDG_SHAPE(6, 4));
    hdg_ir_tensor *w = hdg_ir_local(k, "w", HDG_IR_DOUBLE, HDG_SHAPE(1));
    hdg_ir_tensor *T = hdg_ir_table(m, "T", HDG_SHAPE(3, 4), (double[12]){ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 });
    hdg_ir_expr *z = hdg_ir_int(k, 0);
    hdg_ir_fill(k, M, hdg_ir_num(k, 0));
    acc_nest(k, M, T, hdg_ir_ld1(k, G, z), 0);
    if (between == BETWEEN_READS_BLOCK || between == SECOND_MOVES_UP)   /* needs the first nest done */
        hdg_ir_assign(k, hdg_ir_ld1(k, w, z), hdg_ir_ld2(k, M, hdg_ir_int(k, 1), hdg_ir_int(k, 2)));
    if (between == BETWEEN_READS_OTHER)   /* row 3 is not the nests' */
        hdg_ir_assign(k, hdg_ir_ld1(k, w, z), hdg_ir_ld2(k, M, hdg_ir_int(k, 3), hdg_ir_int(k, 2)));
    if (between == BETWEEN_READS_OTHER_ROW) {   /* inside a loop of 3 over j: rows 0..2 are not j's */
        hdg_ir_expr *j = hdg_ir_for(k, "j", 3);
        hdg_ir_accum(k, hdg_ir_ld1(k, w, z), hdg_ir_ld2(k, M, hdg_ir_int(k, 3), j));
        hdg_ir_end(k);
    }
    if (between == SECOND_READS_NEIGHBOUR) {   /* M[i][j] += M[2 - i][j]: another iteration's entry */
        hdg_ir_expr *i = hdg_ir_for(k, "i", 3), *j = hdg_ir_for(k, "j", 4);
        hdg_ir_accum(k, hdg_ir_ld2(k, M, i, j), hdg_ir_ld2(k, M, hdg_ir_sub(k, hdg_ir_int(k, 2), i), j));
        hdg_ir_end(k);
        hdg_ir_end(k);
    } else if (between == SECOND_REDUCES) {   /* M[3][j] += M[i][j] over i: a sum over the loop */
        hdg_ir_expr *i = hdg_ir_for(k, "i", 3), *j = hdg_ir_for(k, "j", 4);
        hdg_ir_accum(k, hdg_ir_ld2(k, M, hdg_ir_int(k, 3), j), hdg_ir_ld2(k, M, i, j));
        hdg_ir_end(k);
        hdg_ir_end(k);
    } else {   /* rows 3..5 for SECOND_MOVES_UP: it moves up past w = M[1][2] */
        acc_nest(k, M, T, hdg_ir_ld1(k, G, hdg_ir_int(k, 1)), between == SECOND_MOVES_UP ? 3 : 0);
    }
    hdg_ir_expr *i = hdg_ir_for(k, "i", 4), *j = hdg_ir_for(k, "j", 4);
    hdg_ir_assign(k, hdg_ir_ld2(k, o, i, j), hdg_ir_add(k, hdg_ir_ld2(k, M, i, j), hdg_ir_ld1(k, w, z)));
    hdg_ir_end(k);
    hdg_ir_end(k);
    return optimized_listing(m, k, HDG_IR_OPT_HOST & ~(unsigned)HDG_IR_UNFILL);
}

static void test_fuse(void)
{
    static const struct { int between, loops3, accums; } want[] = {
        { BETWEEN_NONE, 1, 2 },              /* one nest: both terms in one pass */
        { BETWEEN_READS_OTHER, 1, 2 },       /* the first nest moves past w = M[3][2] */
        { BETWEEN_READS_OTHER_ROW, 2, 3 },   /* ... and past a loop over row 3 */
        { BETWEEN_READS_BLOCK, 2, 2 },       /* w = M[1][2] needs the first nest done */
        { SECOND_MOVES_UP, 1, 2 },           /* ... the second, on rows 3..5, moves up to it */
        { SECOND_READS_NEIGHBOUR, 2, 2 },    /* reads another iteration's entry */
        { SECOND_REDUCES, 2, 2 },            /* a sum over i: left apart (vectorisation) */
    };
    for (size_t c = 0; c < sizeof want / sizeof want[0]; c++) {
        char *p = fuse_case(want[c].between);
        CHECK(count_substr(p, "in 0..3 {") == want[c].loops3 && count_substr(p, "+=") == want[c].accums,
              "case %d: %s", want[c].between, p);
        free(p);
    }
}

/* A fill of M (6 x 4), nests adding into rows 0..2, something after them,
 * then o = M[0..3][..]: row 3 is read without being written. Returns the
 * listing after unfill alone. */
enum { UF_TWICE, UF_REDUCE, UF_UNKNOWN, UF_UNKNOWN_READ, UF_DENSE, UF_READ_FIRST };
static char *unfill_case(int kase)
{
    hdg_ir_module *m = hdg_ir_module_new("uf");
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "unfill", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *G = hdg_ir_geom(k, "G", HDG_SHAPE(2), "");
    hdg_ir_tensor *u = hdg_ir_imap(k, "u", 1, "");
    hdg_ir_tensor *o = hdg_ir_output(k, "o", HDG_SHAPE(4, 4), "");
    hdg_ir_tensor *M = hdg_ir_local(k, "M", HDG_IR_DOUBLE, HDG_SHAPE(6, 4));
    hdg_ir_tensor *W = hdg_ir_local(k, "W", HDG_IR_DOUBLE, HDG_SHAPE(4, 4));
    hdg_ir_tensor *T = hdg_ir_table(m, "T", HDG_SHAPE(3, 4), (double[12]){ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 });
    hdg_ir_expr *z = hdg_ir_int(k, 0);
    hdg_ir_fill(k, M, hdg_ir_num(k, 0));
    if (kase == UF_READ_FIRST)   /* o[0][0] = M[2][1] while it is still zero */
        hdg_ir_assign(k, hdg_ir_ld2(k, o, z, z), hdg_ir_ld2(k, M, hdg_ir_int(k, 2), hdg_ir_int(k, 1)));
    acc_nest(k, M, T, hdg_ir_ld1(k, G, z), 0);
    if (kase == UF_TWICE) acc_nest(k, M, T, hdg_ir_ld1(k, G, hdg_ir_int(k, 1)), 0);
    if (kase == UF_REDUCE) {   /* M[4][j] += M[i][j] over i: its first run alone meets a zero */
        hdg_ir_expr *i = hdg_ir_for(k, "i", 3), *j = hdg_ir_for(k, "j", 4);
        hdg_ir_accum(k, hdg_ir_ld2(k, M, hdg_ir_int(k, 4), j), hdg_ir_ld2(k, M, i, j));
        hdg_ir_end(k);
        hdg_ir_end(k);
    }
    if (kase == UF_UNKNOWN) {   /* M[u][1] += 1: a row only known at run time */
        hdg_ir_expr *r = hdg_ir_load(k, u, 1, (hdg_ir_expr *[]){ z });
        hdg_ir_accum(k, hdg_ir_ld2(k, M, hdg_ir_mod(k, r, hdg_ir_int(k, 6)), hdg_ir_int(k, 1)), hdg_ir_num(k, 1));
    }
    if (kase == UF_UNKNOWN_READ) {   /* M[1][1] += M[u][1]: may read row 3..5 */
        hdg_ir_expr *r = hdg_ir_load(k, u, 1, (hdg_ir_expr *[]){ z });
        hdg_ir_accum(k, hdg_ir_ld2(k, M, hdg_ir_int(k, 1), hdg_ir_int(k, 1)),
                     hdg_ir_ld2(k, M, hdg_ir_mod(k, r, hdg_ir_int(k, 6)), hdg_ir_int(k, 1)));
    }
    if (kase == UF_DENSE) hdg_ir_matmul(k, W, 1.0, M, 1, M, 0, 0.0);   /* W = M^T M reads all of M */
    hdg_ir_expr *i = hdg_ir_for(k, "i", 4), *j = hdg_ir_for(k, "j", 4);
    hdg_ir_expr *v = hdg_ir_ld2(k, M, i, j);
    if (kase == UF_DENSE) v = hdg_ir_add(k, v, hdg_ir_ld2(k, W, i, j));
    if (kase == UF_READ_FIRST) hdg_ir_accum(k, hdg_ir_ld2(k, o, i, j), v);
    else hdg_ir_assign(k, hdg_ir_ld2(k, o, i, j), v);
    hdg_ir_end(k);
    hdg_ir_end(k);
    return optimized_listing(m, k, HDG_IR_UNFILL);
}

/* for i, j: M[i][j] = 0; let t = T[i][j]; M[i][j] += G[0] t (or, self: += M[i][j] t) */
static char *unfill_inner(int self)
{
    hdg_ir_module *m = hdg_ir_module_new("uf");
    hdg_ir_kernel *k = hdg_ir_kernel_new(m, "unfill_inner", HDG_KITEM_ELEMENT);
    hdg_ir_tensor *G = hdg_ir_geom(k, "G", HDG_SHAPE(1), "");
    hdg_ir_tensor *o = hdg_ir_output(k, "o", HDG_SHAPE(3, 4), "");
    hdg_ir_tensor *M = hdg_ir_local(k, "M", HDG_IR_DOUBLE, HDG_SHAPE(3, 4));
    hdg_ir_tensor *T = hdg_ir_table(m, "T", HDG_SHAPE(3, 4), (double[12]){ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 });
    hdg_ir_expr *i = hdg_ir_for(k, "i", 3), *j = hdg_ir_for(k, "j", 4);
    hdg_ir_assign(k, hdg_ir_ld2(k, M, i, j), hdg_ir_num(k, 0));
    hdg_ir_expr *t = hdg_ir_let(k, "t", hdg_ir_ld2(k, T, i, j));
    hdg_ir_expr *f = self ? hdg_ir_ld2(k, M, i, j) : hdg_ir_ld1(k, G, hdg_ir_int(k, 0));
    hdg_ir_accum(k, hdg_ir_ld2(k, M, i, j), hdg_ir_mul(k, f, t));
    hdg_ir_assign(k, hdg_ir_ld2(k, o, i, j), hdg_ir_ld2(k, M, i, j));
    hdg_ir_end(k);
    hdg_ir_end(k);
    return optimized_listing(m, k, HDG_IR_UNFILL);
}

static void test_unfill(void)
{
    char *p = unfill_inner(0);   /* the zero and the += become M[i][j] = G[0] * t */
    CHECK(!strstr(p, "= 0\n") && !strstr(p, "+=") && strstr(p, "M[i][j] = G[0] * t"), "inner fill: %s", p);
    free(p);
    p = unfill_inner(1);   /* += M[i][j] t reads the zero: kept */
    CHECK(strstr(p, "M[i][j] = 0\n") && strstr(p, "M[i][j] += M[i][j] * t"), "inner fill, self: %s", p);
    free(p);
    static const struct { int kase, accums; const char *fill; } want[] = {
        { UF_TWICE, 1, "for z in 0..4 {\n    M[3][z] = 0" },         /* the first nest assigns */
        { UF_REDUCE, 1, "for z in 0..2 {\n    for z2 in 0..4 {\n      M[3 + z][z2] = 0" },   /* row 4 too */
        { UF_UNKNOWN, 2, "for i in 0..6 {\n    for j in 0..4 {\n      M[i][j] = 0" },   /* as it was */
        { UF_UNKNOWN_READ, 2, "for i in 0..6 {\n    for j in 0..4 {\n      M[i][j] = 0" },
        { UF_DENSE, 0, "for z in 0..3 {\n    for z2 in 0..4 {\n      M[3 + z][z2] = 0" },   /* rows 3..5 */
        { UF_READ_FIRST, 1, "for z in 0..2 {\n    M[2 + z][1] = 0" },    /* M[2][1] read at zero */
    };
    for (size_t c = 0; c < sizeof want / sizeof want[0]; c++) {
        char *p = unfill_case(want[c].kase);
        CHECK(count_substr(p, "+=") == want[c].accums && strstr(p, want[c].fill), "case %d: %s", want[c].kase, p);
        free(p);
    }
}

int main(void)
{
    test_names();
    test_verify();
    test_cost();
    test_print_prec();
    test_fold();
    test_cse();
    test_licm_dce();
    test_fuse();
    test_unfill();
    return test_summary("ir");
}
