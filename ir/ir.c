/* ir.c — building IR: the module arena, identifier hygiene, modules,
 * kernels, tensors, variables and statements (through the kernel's cursor),
 * and the composite builders (fill, copy, Schur complement). Expressions are
 * built in expr.c. */
#include "ir/ir.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ arena */

typedef struct chunk { struct chunk *next; size_t used, cap; } chunk;
struct hdg_ir_arena { chunk *head; struct hdg_ir_names **names; int nnames, capnames; };

#define CHUNK_SIZE (64 * 1024)
#define ALIGN 16

void *hdg_ir_alloc(hdg_ir_module *m, size_t n)
{
    struct hdg_ir_arena *a = m->arena;
    n = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    chunk *c = a->head;
    if (!c || c->used + n > c->cap) {
        size_t cap = n > CHUNK_SIZE ? n : CHUNK_SIZE;
        size_t hdr = (sizeof(chunk) + ALIGN - 1) & ~(size_t)(ALIGN - 1);
        c = hdg_xmalloc(hdr + cap);
        c->used = hdr;
        c->cap = hdr + cap;
        c->next = a->head;
        a->head = c;
    }
    void *p = (char *)c + c->used;
    c->used += n;
    return memset(p, 0, n);
}

const char *hdg_ir_strdup(hdg_ir_module *m, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    return memcpy(hdg_ir_alloc(m, n), s, n);
}

/* ------------------------------------------------------ identifier hygiene */

struct hdg_ir_names {
    const char **slot; size_t cap, count;
    /* per base name, the next numeric suffix to try (names are never removed,
     * so every smaller suffix is still taken): keeps naming linear */
    struct { char *base; int next; } *suf;
    size_t scap, scount;
};

static int *suffix_slot(struct hdg_ir_names *n, const char *base)
{
    if (2 * (n->scount + 1) > n->scap) {
        size_t oldcap = n->scap;
        __typeof__(n->suf) old = n->suf;
        n->scap = oldcap ? 2 * oldcap : 64;
        n->suf = hdg_xcalloc(n->scap, sizeof *n->suf);
        n->scount = 0;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].base) *suffix_slot(n, old[i].base) = old[i].next, free(old[i].base);
        free(old);
    }
    size_t h = (size_t)hdg_hash64(base, strlen(base), 0) & (n->scap - 1);
    for (; n->suf[h].base; h = (h + 1) & (n->scap - 1))
        if (!strcmp(n->suf[h].base, base)) return &n->suf[h].next;
    n->suf[h].base = hdg_xstrdup(base);
    n->suf[h].next = 2;
    n->scount++;
    return &n->suf[h].next;
}

static struct hdg_ir_names *names_new(hdg_ir_module *m)
{
    struct hdg_ir_names *n = hdg_xcalloc(1, sizeof *n);
    struct hdg_ir_arena *a = m->arena;
    if (a->nnames == a->capnames) {
        a->capnames = a->capnames ? 2 * a->capnames : 8;
        a->names = hdg_xrealloc(a->names, a->capnames * sizeof *a->names);
    }
    a->names[a->nnames++] = n;
    return n;
}

static int names_has(const struct hdg_ir_names *n, const char *s)
{
    if (!n || !n->cap) return 0;
    size_t h = (size_t)hdg_hash64(s, strlen(s), 0) & (n->cap - 1);
    for (; n->slot[h]; h = (h + 1) & (n->cap - 1))
        if (!strcmp(n->slot[h], s)) return 1;
    return 0;
}

static void names_add(struct hdg_ir_names *n, const char *s)
{
    if (2 * (n->count + 1) > n->cap) {
        size_t oldcap = n->cap;
        const char **old = n->slot;
        n->cap = oldcap ? 2 * oldcap : 64;
        n->slot = hdg_xcalloc(n->cap, sizeof *n->slot);
        n->count = 0;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i]) names_add(n, old[i]);
        free(old);
    }
    size_t h = (size_t)hdg_hash64(s, strlen(s), 0) & (n->cap - 1);
    while (n->slot[h]) h = (h + 1) & (n->cap - 1);
    n->slot[h] = s;
    n->count++;
}

static const char *const reserved[] = {
    /* C11 */
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "union", "unsigned", "void", "volatile", "while",
    /* C++ / CUDA */
    "bool", "true", "false", "class", "new", "delete", "this", "template", "typename",
    "namespace", "operator", "private", "public", "protected", "friend", "virtual", "try",
    "catch", "throw", "using", "explicit", "mutable", "export", "and", "or", "not", "xor",
    "compl", "bitand", "bitor", "asm", "nullptr", "constexpr", "decltype", "noexcept",
    "static_assert", "thread_local", "alignas", "alignof", "char16_t", "char32_t", "wchar_t",
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3",
    /* libc / libm names the generated code may use */
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp",
    "log", "log10", "sqrt", "fabs", "abs", "floor", "ceil", "pow", "fmin", "fmax", "fma",
    "NAN", "INFINITY", "HUGE_VAL", "errno", "main", "malloc", "free", "printf", "exit",
    "size_t", "NULL", "min", "max",
    /* the emitters' own names */
    "a", "e", "begin", "end", "item", "params", "geom", "in", "out", "imap", "t",
};

/* The prefixes the runtime, the ABI header and C itself keep: no suffix frees them. */
static int reserved_prefix(const char *s)
{
    return !strncmp(s, "hdg_", 4) || !strncmp(s, "HDG_", 4) || !strncmp(s, "__", 2) ||
           (s[0] == '_' && isupper((unsigned char)s[1]));
}

static int is_reserved(const char *s)
{
    if (reserved_prefix(s)) return 1;
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
        if (!strcmp(reserved[i], s)) return 1;
    return 0;
}

/* Kernel-scoped names (into = a kernel's set) must avoid the module's names
 * (tables and kernels are visible in every kernel) and that kernel's; module
 * names must avoid every kernel's. */
static int name_taken(hdg_ir_module *m, struct hdg_ir_names *into, const char *s)
{
    if (is_reserved(s) || names_has(m->names, s)) return 1;
    if (into != m->names) return names_has(into, s);
    for (int i = 0; i < m->nkernels; i++)
        if (names_has(m->kernels[i]->names, s)) return 1;
    return 0;
}

/* A C identifier from s, unique where it is visible; registered in `into`. */
static const char *unique_name(hdg_ir_module *m, struct hdg_ir_names *into, const char *s)
{
    char base[56], buf[72];
    size_t n = 0;
    for (const char *p = s ? s : ""; *p && n < 48; p++)
        base[n++] = (isalnum((unsigned char)*p) || *p == '_') ? *p : '_';
    base[n] = '\0';
    if (n == 0) strcpy(base, "v");
    if (isdigit((unsigned char)base[0]) || reserved_prefix(base)) {   /* "v" + name: a suffix alone would loop */
        memmove(base + 1, base, n + 1);
        base[0] = 'v';
    }
    snprintf(buf, sizeof buf, "%s", base);
    int digit_end = isdigit((unsigned char)base[strlen(base) - 1]);
    if (name_taken(m, into, buf)) {
        int *next = suffix_slot(into, base), i = *next;
        do snprintf(buf, sizeof buf, digit_end ? "%s_%d" : "%s%d", base, i++);
        while (name_taken(m, into, buf));
        *next = i;
    }
    const char *r = hdg_ir_strdup(m, buf);
    names_add(into, r);
    return r;
}

/* --------------------------------------------------------- module, kernel */

hdg_ir_module *hdg_ir_module_new(const char *name)
{
    hdg_ir_module *tmp = hdg_xcalloc(1, sizeof *tmp);
    tmp->arena = hdg_xcalloc(1, sizeof *tmp->arena);
    hdg_ir_module *m = hdg_ir_alloc(tmp, sizeof *m);
    *m = *tmp;
    free(tmp);
    m->names = names_new(m);
    name = name ? name : "module";
    /* kernels are named "<module>_local" etc.: a reserved prefix gets a "v" (unique_name) */
    char buf[160];
    snprintf(buf, sizeof buf, "%s%s", reserved_prefix(name) ? "v" : "", name);
    m->name = hdg_ir_strdup(m, buf);
    return m;
}

void hdg_ir_module_free(hdg_ir_module *m)
{
    if (!m) return;
    struct hdg_ir_arena *a = m->arena;
    for (int i = 0; i < m->nkernels; i++) free(m->kernels[i]->tensors);
    free(m->kernels);
    free(m->tables);
    for (int i = 0; i < a->nnames; i++) {
        free(a->names[i]->slot);
        for (size_t j = 0; j < a->names[i]->scap; j++) free(a->names[i]->suf[j].base);
        free(a->names[i]->suf);
        free(a->names[i]);
    }
    free(a->names);
    for (chunk *c = a->head, *next; c; c = next) {  /* m itself lives in the arena */
        next = c->next;
        free(c);
    }
    free(a);
}

void hdg_ir_module_truncate(hdg_ir_module *m, int nkernels, int ntables)
{
    for (int i = nkernels; i < m->nkernels; i++) free(m->kernels[i]->tensors), m->kernels[i] = NULL;
    if (nkernels < m->nkernels) m->nkernels = nkernels;
    if (ntables < m->ntables) m->ntables = ntables;
}

hdg_ir_kernel *hdg_ir_kernel_new(hdg_ir_module *m, const char *name, int item)
{
    hdg_ir_kernel *k = hdg_ir_alloc(m, sizeof *k);
    k->m = m;
    k->item = item;
    k->names = names_new(m);
    k->name = unique_name(m, m->names, name ? name : "kernel");
    k->open[0] = &k->body;
    k->depth = 1;
    if (item != HDG_KITEM_ELEMENT && item != HDG_KITEM_FACE) {
        k->item = HDG_KITEM_ELEMENT;
        k->error = (char *)hdg_ir_strdup(m, "kernel item kind must be HDG_KITEM_ELEMENT or HDG_KITEM_FACE");
    }
    if (m->nkernels == m->cap_kernels) {
        m->cap_kernels = m->cap_kernels ? 2 * m->cap_kernels : 8;
        m->kernels = hdg_xrealloc(m->kernels, m->cap_kernels * sizeof *m->kernels);
    }
    m->kernels[m->nkernels++] = k;
    return k;
}

void hdg_ir_builder_error(hdg_ir_kernel *k, const char *fmt, ...)
{
    if (k->error) return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    k->error = (char *)hdg_ir_strdup(k->m, buf);
}

/* ----------------------------------------------------------------- tensors */

static hdg_ir_tensor *tensor_new(hdg_ir_module *m, hdg_ir_kernel *k, const char *name,
                                 hdg_ir_tkind kind, hdg_ir_type type, int rank,
                                 const int *shape, const char *doc)
{
    hdg_ir_tensor *t = hdg_ir_alloc(m, sizeof *t);
    t->id = m->next_tensor_id++;
    t->kind = kind;
    t->type = type;
    t->slot = -1;
    t->kernel = k;
    t->doc = hdg_ir_strdup(m, doc ? doc : "");
    t->size = 1;
    const char *bad = NULL;
    if (rank < 0 || rank > 3) {
        bad = "rank must be 0..3";
        rank = 0;
    }
    t->rank = rank;
    for (int i = 0; i < rank; i++) {
        t->shape[i] = shape ? shape[i] : 0;
        if (t->shape[i] <= 0) bad = "every extent must be positive";
        t->size *= t->shape[i] > 0 ? t->shape[i] : 1;
    }
    if (k) {
        t->name = unique_name(m, k->names, name ? name : "T");
        if (k->ntensors == k->cap_tensors) {
            k->cap_tensors = k->cap_tensors ? 2 * k->cap_tensors : 16;
            k->tensors = hdg_xrealloc(k->tensors, k->cap_tensors * sizeof *k->tensors);
        }
        k->tensors[k->ntensors++] = t;
        if (bad) hdg_ir_builder_error(k, "tensor %s: %s", t->name, bad);
    } else {
        t->name = unique_name(m, m->names, name ? name : "T");
        if (m->ntables == m->cap_tables) {
            m->cap_tables = m->cap_tables ? 2 * m->cap_tables : 16;
            m->tables = hdg_xrealloc(m->tables, m->cap_tables * sizeof *m->tables);
        }
        m->tables[m->ntables++] = t;
        if (bad) t->size = 0;   /* verify reports tables with size 0 */
    }
    return t;
}

hdg_ir_tensor *hdg_ir_table(hdg_ir_module *m, const char *name, int rank, const int *shape,
                            const double *data)
{
    hdg_ir_tensor *t = tensor_new(m, NULL, name, HDG_IR_TABLE, HDG_IR_DOUBLE, rank, shape, NULL);
    double *d = hdg_ir_alloc(m, (t->size ? t->size : 1) * sizeof *d);
    if (data) memcpy(d, data, t->size * sizeof *d);
    t->data = d;
    return t;
}

hdg_ir_tensor *hdg_ir_table_int(hdg_ir_module *m, const char *name, int rank, const int *shape,
                                const int *data)
{
    hdg_ir_tensor *t = tensor_new(m, NULL, name, HDG_IR_TABLE, HDG_IR_INT, rank, shape, NULL);
    int *d = hdg_ir_alloc(m, (t->size ? t->size : 1) * sizeof *d);
    if (data) memcpy(d, data, t->size * sizeof *d);
    t->idata = d;
    return t;
}

hdg_ir_tensor *hdg_ir_local(hdg_ir_kernel *k, const char *name, hdg_ir_type type, int rank,
                            const int *shape)
{
    return tensor_new(k->m, k, name, HDG_IR_LOCAL, type, rank, shape, NULL);
}

static hdg_ir_tensor *slot_new(hdg_ir_kernel *k, const char *name, hdg_ir_tkind kind,
                               hdg_ir_type type, int rank, const int *shape, const char *doc,
                               int *counter, int max, const char *what)
{
    hdg_ir_tensor *t = tensor_new(k->m, k, name, kind, type, rank, shape, doc);
    if (*counter >= max)
        hdg_ir_builder_error(k, "kernel %s: more than %d %s slots", k->name, max, what);
    t->slot = (*counter)++;
    return t;
}

hdg_ir_tensor *hdg_ir_input(hdg_ir_kernel *k, const char *name, int rank, const int *shape,
                            const char *doc)
{
    return slot_new(k, name, HDG_IR_IN, HDG_IR_DOUBLE, rank, shape, doc, &k->nin, HDG_KMAX_IN, "input");
}

hdg_ir_tensor *hdg_ir_output(hdg_ir_kernel *k, const char *name, int rank, const int *shape,
                             const char *doc)
{
    return slot_new(k, name, HDG_IR_OUT, HDG_IR_DOUBLE, rank, shape, doc, &k->nout, HDG_KMAX_OUT, "output");
}

hdg_ir_tensor *hdg_ir_imap(hdg_ir_kernel *k, const char *name, int width, const char *doc)
{
    return slot_new(k, name, HDG_IR_IMAP, HDG_IR_INT, 1, &width, doc, &k->nimap, HDG_KMAX_IMAP, "imap");
}

hdg_ir_tensor *hdg_ir_geom(hdg_ir_kernel *k, const char *name, int rank, const int *shape,
                           const char *doc)
{
    hdg_ir_tensor *t = tensor_new(k->m, k, name, HDG_IR_GEOM, HDG_IR_DOUBLE, rank, shape, doc);
    if (k->geom) hdg_ir_builder_error(k, "kernel %s: a second geometry tensor %s", k->name, t->name);
    else k->geom = t;
    return t;
}

/* ------------------------------------------------------ vars, statements */

hdg_ir_var *hdg_ir_var_new(hdg_ir_kernel *k, const char *name, hdg_ir_type type)
{
    hdg_ir_var *v = hdg_ir_alloc(k->m, sizeof *v);
    v->id = k->m->next_var_id++;
    v->name = unique_name(k->m, k->names, name ? name : "t");
    v->type = type;
    return v;
}

hdg_ir_stmt *hdg_ir_stmt_new(hdg_ir_kernel *k, hdg_ir_skind kind)
{
    hdg_ir_stmt *s = hdg_ir_alloc(k->m, sizeof *s);
    s->kind = kind;
    s->origin = k->origin;
    return s;
}

static void append(hdg_ir_kernel *k, hdg_ir_stmt *s)
{
    hdg_ir_block *b = k->open[k->depth - 1];
    if (b->last) b->last->next = s;
    else b->first = s;
    b->last = s;
}

void hdg_ir_set_origin(hdg_ir_kernel *k, const char *file, int line, int col, const char *text)
{
    if (!file && !text && line == 0) {
        k->origin = NULL;
        return;
    }
    hdg_ir_origin *o = hdg_ir_alloc(k->m, sizeof *o);
    o->file = hdg_ir_strdup(k->m, file);
    o->line = line;
    o->col = col;
    o->text = hdg_ir_strdup(k->m, text);
    k->origin = o;
}

hdg_ir_expr *hdg_ir_for(hdg_ir_kernel *k, const char *name, int n)
{
    hdg_ir_stmt *s = hdg_ir_stmt_new(k, HDG_S_FOR);
    hdg_ir_var *v = hdg_ir_var_new(k, name ? name : "i", HDG_IR_INT);
    v->is_loop = 1;
    v->extent = n;
    v->known = n >= 1;
    v->lo = 0;
    v->hi = n - 1;
    s->var = v;
    if (n < 0) hdg_ir_builder_error(k, "loop %s: negative trip count %d", v->name, n);
    append(k, s);
    if (k->depth == (int)(sizeof k->open / sizeof *k->open))
        hdg_ir_builder_error(k, "loops nested deeper than %d", k->depth);
    else
        k->open[k->depth++] = &s->body;
    return hdg_ir_var_ref(k, v);
}

void hdg_ir_end(hdg_ir_kernel *k)
{
    if (k->depth <= 1) hdg_ir_builder_error(k, "hdg_ir_end without an open loop");
    else k->depth--;
}

hdg_ir_stmt *hdg_ir_let_stmt(hdg_ir_kernel *k, const char *name, hdg_ir_expr *value)
{
    hdg_ir_stmt *s = hdg_ir_stmt_new(k, HDG_S_LET);
    hdg_ir_var *v = hdg_ir_var_new(k, name, value ? value->type : HDG_IR_DOUBLE);
    if (value && value->type == HDG_IR_INT) {
        hdg_ir_range r = hdg_ir_expr_range(value);
        v->known = r.known;
        v->lo = r.lo;
        v->hi = r.hi;
    }
    s->var = v;
    s->value = value;
    return s;
}

hdg_ir_expr *hdg_ir_let(hdg_ir_kernel *k, const char *name, hdg_ir_expr *value)
{
    if (!value) {
        hdg_ir_builder_error(k, "let %s: null value", name ? name : "");
        value = hdg_ir_num(k, 0);
    }
    hdg_ir_stmt *s = hdg_ir_let_stmt(k, name, value);
    append(k, s);
    return hdg_ir_var_ref(k, s->var);
}

static void store(hdg_ir_kernel *k, hdg_ir_expr *dst, hdg_ir_expr *value, int acc)
{
    if (!dst || !value) {
        hdg_ir_builder_error(k, "store: null %s", dst ? "value" : "destination");
        return;
    }
    if (dst->op != HDG_E_LOAD || dst->row ||
        (dst->t->kind != HDG_IR_LOCAL && dst->t->kind != HDG_IR_OUT)) {
        hdg_ir_builder_error(k, "store: the destination must be an element of a local or output tensor");
        return;
    }
    if (dst->t->type == HDG_IR_DOUBLE && value->type == HDG_IR_INT) value = hdg_ir_todbl(k, value);
    if (dst->t->type == HDG_IR_INT && value->type == HDG_IR_DOUBLE) {
        hdg_ir_builder_error(k, "store: double value into int tensor %s", dst->t->name);
        return;
    }
    hdg_ir_stmt *s = hdg_ir_stmt_new(k, HDG_S_STORE);
    s->dst = dst;
    s->value = value;
    s->accumulate = acc;
    append(k, s);
}

void hdg_ir_assign(hdg_ir_kernel *k, hdg_ir_expr *dst, hdg_ir_expr *value) { store(k, dst, value, 0); }
void hdg_ir_accum(hdg_ir_kernel *k, hdg_ir_expr *dst, hdg_ir_expr *value) { store(k, dst, value, 1); }

static void dense(hdg_ir_kernel *k, hdg_ir_stmt *s)
{
    char buf[256];
    const char *msg = hdg_ir_check_dense(k, s, buf, sizeof buf);
    if (msg) hdg_ir_builder_error(k, "%s", msg);
    append(k, s);
}

void hdg_ir_matmul(hdg_ir_kernel *k, hdg_ir_tensor *C, double alpha, hdg_ir_tensor *A, int transa,
                   hdg_ir_tensor *B, int transb, double beta)
{
    hdg_ir_stmt *s = hdg_ir_stmt_new(k, HDG_S_MATMUL);
    s->C = C; s->A = A; s->B = B;
    s->alpha = alpha; s->beta = beta;
    s->transa = !!transa; s->transb = !!transb;
    dense(k, s);
}

void hdg_ir_lu(hdg_ir_kernel *k, hdg_ir_tensor *A, hdg_ir_tensor *piv)
{
    hdg_ir_stmt *s = hdg_ir_stmt_new(k, HDG_S_LU);
    s->A = A; s->piv = piv;
    dense(k, s);
}

void hdg_ir_lu_solve(hdg_ir_kernel *k, hdg_ir_tensor *A, hdg_ir_tensor *piv, hdg_ir_tensor *B)
{
    hdg_ir_stmt *s = hdg_ir_stmt_new(k, HDG_S_LU_SOLVE);
    s->A = A; s->piv = piv; s->B = B;
    dense(k, s);
}

void hdg_ir_chol(hdg_ir_kernel *k, hdg_ir_tensor *A)
{
    hdg_ir_stmt *s = hdg_ir_stmt_new(k, HDG_S_CHOL);
    s->A = A;
    dense(k, s);
}

void hdg_ir_chol_solve(hdg_ir_kernel *k, hdg_ir_tensor *A, hdg_ir_tensor *B)
{
    hdg_ir_stmt *s = hdg_ir_stmt_new(k, HDG_S_CHOL_SOLVE);
    s->A = A; s->B = B;
    dense(k, s);
}

/* -------------------------------------------------------------- composites */

static const char *const loop_names[3] = { "i", "j", "l" };

void hdg_ir_fill(hdg_ir_kernel *k, hdg_ir_tensor *T, hdg_ir_expr *value)
{
    if (!T) {
        hdg_ir_builder_error(k, "fill: null tensor");
        return;
    }
    hdg_ir_expr *idx[3];
    for (int d = 0; d < T->rank; d++) idx[d] = hdg_ir_for(k, loop_names[d], T->shape[d]);
    hdg_ir_assign(k, hdg_ir_load(k, T, T->rank, idx), value);
    for (int d = 0; d < T->rank; d++) hdg_ir_end(k);
}

/* Indices of flat position p in t (row-major). */
static void unflatten(hdg_ir_kernel *k, const hdg_ir_tensor *t, hdg_ir_expr *p, hdg_ir_expr **idx)
{
    int stride = t->size;
    for (int d = 0; d < t->rank; d++) {
        stride /= t->shape[d];
        hdg_ir_expr *q = stride > 1 ? hdg_ir_div(k, p, hdg_ir_int(k, stride)) : p;
        idx[d] = d > 0 ? hdg_ir_mod(k, q, hdg_ir_int(k, t->shape[d])) : q;
    }
}

void hdg_ir_copy(hdg_ir_kernel *k, hdg_ir_tensor *dst, hdg_ir_tensor *src)
{
    if (!dst || !src || dst->size != src->size || dst->type != src->type) {
        hdg_ir_builder_error(k, "copy %s <- %s: sizes or types differ", dst ? dst->name : "?",
                             src ? src->name : "?");
        return;
    }
    int same = dst->rank == src->rank;
    for (int d = 0; same && d < dst->rank; d++) same = dst->shape[d] == src->shape[d];
    hdg_ir_expr *di[3], *si[3];
    if (same) {
        for (int d = 0; d < dst->rank; d++) di[d] = si[d] = hdg_ir_for(k, loop_names[d], dst->shape[d]);
        hdg_ir_assign(k, hdg_ir_load(k, dst, dst->rank, di), hdg_ir_load(k, src, src->rank, si));
        for (int d = 0; d < dst->rank; d++) hdg_ir_end(k);
        return;
    }
    hdg_ir_expr *p = hdg_ir_for(k, "p", dst->size);
    unflatten(k, dst, p, di);
    unflatten(k, src, p, si);
    hdg_ir_assign(k, hdg_ir_load(k, dst, dst->rank, di), hdg_ir_load(k, src, src->rank, si));
    hdg_ir_end(k);
}

void hdg_ir_schur(hdg_ir_kernel *k, hdg_ir_tensor *S, hdg_ir_tensor *A, hdg_ir_tensor *piv,
                  hdg_ir_tensor *B, hdg_ir_tensor *C, hdg_ir_tensor *D, hdg_ir_tensor *W)
{
    hdg_ir_lu(k, A, piv);
    hdg_ir_schur_factored(k, S, A, piv, B, C, D, W);
}

void hdg_ir_schur_factored(hdg_ir_kernel *k, hdg_ir_tensor *S, hdg_ir_tensor *A, hdg_ir_tensor *piv,
                           hdg_ir_tensor *B, hdg_ir_tensor *C, hdg_ir_tensor *D, hdg_ir_tensor *W)
{
    hdg_ir_copy(k, W, B);
    hdg_ir_lu_solve(k, A, piv, W);
    if (S != D) hdg_ir_copy(k, S, D);
    hdg_ir_matmul(k, S, -1.0, C, 0, W, 0, 1.0);
}
