/* emu.c — CUDA source -> host C++ -> JIT, the module loader of the CUDA
 * emulator (see emu.h). A light scanner finds the top-level functions of the
 * source (comments, strings and preprocessor lines skipped), which of them
 * are kernels, which may reach __syncthreads, and which hdg_kargs pointers
 * each kernel reads; the wrappers of the emulator's ABI follow the source. */
#include "backends/cuda/emu.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/c/jit.h"
#include "runtime/cuda/cuda_emu.h"

/* Host C++ for CUDA's keywords and built-ins. hdg_emu_state_t must match
 * hdg_cuda_emu_state (runtime/cuda/cuda_emu.h); the emulator checks the size. */
static const char prelude[] =
    "/* hdgc CUDA emulator: CUDA C++ as host C++ (backends/cuda/emu.c) */\n"
    "#define _GNU_SOURCE 1\n"
    "#include <assert.h>\n"
    "#include <math.h>\n"
    "#include <stdio.h>\n"
    "#define __global__\n"
    "#define __device__\n"
    "#define __host__\n"
    "#define __constant__\n"
    "#define __shared__ static\n"
    "#define __forceinline__ inline\n"
    "#define __noinline__ __attribute__((noinline))\n"
    "#define __launch_bounds__(...)\n"
    "#define __restrict__ __restrict\n"
    "#define __align__(n) __attribute__((aligned(n)))\n"
    "#define __ldg(p) (*(p))\n"
    "#define __trap() __builtin_trap()\n"
    "#define __threadfence() __asm__ __volatile__(\"\" ::: \"memory\")\n"
    "#define __threadfence_block() __asm__ __volatile__(\"\" ::: \"memory\")\n"
    "#define warpSize 32\n"
    "struct hdg_emu_dim3 { unsigned x, y, z; };\n"
    "typedef hdg_emu_dim3 uint3;\n"
    "typedef hdg_emu_dim3 dim3;\n"
    "struct hdg_emu_state_t {\n"
    "    hdg_emu_dim3 thread_idx, block_idx, block_dim, grid_dim;\n"
    "    void (*sync)(int line);\n"
    "    void *dyn_shared;\n"
    "    int (*check_ptr)(const void *p, int arg, const char *field, int index);\n"
    "};\n"
    "extern \"C\" hdg_emu_state_t *hdg_emu_state = 0;\n"
    "extern \"C\" const int hdg_emu_state_size = (int)sizeof(hdg_emu_state_t);\n"
    "#define threadIdx (hdg_emu_state->thread_idx)\n"
    "#define blockIdx (hdg_emu_state->block_idx)\n"
    "#define blockDim (hdg_emu_state->block_dim)\n"
    "#define gridDim (hdg_emu_state->grid_dim)\n"
    "/* the barrier is an opaque call: nothing in memory is cached across it */\n"
    "static inline void hdg_emu_syncthreads(int line)\n"
    "{\n"
    "    hdg_emu_state->sync(line);\n"
    "    __asm__ __volatile__(\"\" ::: \"memory\");\n"
    "}\n"
    "#define __syncthreads() hdg_emu_syncthreads(__LINE__)\n"
    "template <class T> struct hdg_emu_dyn_shared {\n"
    "    operator T *() const { return (T *)hdg_emu_state->dyn_shared; }\n"
    "};\n"
    "#define HDG_EMU_MINMAX(T) \\\n"
    "    static inline T min(T a, T b) { return a < b ? a : b; } \\\n"
    "    static inline T max(T a, T b) { return a > b ? a : b; }\n"
    "HDG_EMU_MINMAX(int) HDG_EMU_MINMAX(unsigned) HDG_EMU_MINMAX(long long)\n"
    "HDG_EMU_MINMAX(unsigned long long) HDG_EMU_MINMAX(long) HDG_EMU_MINMAX(unsigned long)\n"
    "static inline double min(double a, double b) { return fmin(a, b); }\n"
    "static inline double max(double a, double b) { return fmax(a, b); }\n"
    "static inline float min(float a, float b) { return fminf(a, b); }\n"
    "static inline float max(float a, float b) { return fmaxf(a, b); }\n"
    "static inline double rsqrt(double x) { return 1.0 / sqrt(x); }\n"
    "static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }\n"
    "static inline double sinpi(double x) { return sin(M_PI * x); }\n"
    "static inline double cospi(double x) { return cos(M_PI * x); }\n"
    "static inline float __fdividef(float a, float b) { return a / b; }\n"
    "/* atomics: one thread runs at a time, so a plain read-modify-write is atomic */\n"
    "template <class T> static inline T atomicAdd(T *p, T v) { T o = *p; *p = o + v; return o; }\n"
    "template <class T> static inline T atomicSub(T *p, T v) { T o = *p; *p = o - v; return o; }\n"
    "template <class T> static inline T atomicExch(T *p, T v) { T o = *p; *p = v; return o; }\n"
    "template <class T> static inline T atomicMin(T *p, T v) { T o = *p; *p = v < o ? v : o; return o; }\n"
    "template <class T> static inline T atomicMax(T *p, T v) { T o = *p; *p = v > o ? v : o; return o; }\n"
    "template <class T> static inline T atomicCAS(T *p, T c, T v) { T o = *p; if (o == c) *p = v; return o; }\n"
    "/* driver-style params (pointers to the argument values) -> a call */\n"
    "template <int... I> struct hdg_emu_seq {};\n"
    "template <int N, int... I> struct hdg_emu_mkseq { typedef typename hdg_emu_mkseq<N - 1, N - 1, I...>::type type; };\n"
    "template <int... I> struct hdg_emu_mkseq<0, I...> { typedef hdg_emu_seq<I...> type; };\n"
    "template <class... A, int... I>\n"
    "static inline void hdg_emu_unpack(void (*f)(A...), void **p, hdg_emu_seq<I...>) { f(*(A *)p[I]...); }\n"
    "template <class... A> static inline void hdg_emu_call(void (*f)(A...), void **p)\n"
    "{\n"
    "    hdg_emu_unpack(f, p, typename hdg_emu_mkseq<(int)sizeof...(A)>::type());\n"
    "}\n"
    "template <class... A> constexpr int hdg_emu_arity(void (*)(A...)) { return (int)sizeof...(A); }\n"
    "/* pointer arguments must be device memory (mask: hdg_kargs fields read) */\n"
    "template <class T> struct hdg_emu_arg { static int check(const T &, int, unsigned) { return 0; } };\n"
    "template <class T> struct hdg_emu_arg<T *> {\n"
    "    static int check(T *const &v, int i, unsigned) { return hdg_emu_state->check_ptr((const void *)v, i, 0, -1); }\n"
    "};\n"
    "template <class... A, int... I>\n"
    "static inline int hdg_emu_check_unpack(void **p, unsigned m, hdg_emu_seq<I...>)\n"
    "{\n"
    "    int bad = 0, all[] = { 0, (bad |= hdg_emu_arg<A>::check(*(A *)p[I], I, m), 0)... };\n"
    "    (void)all;\n"
    "    return bad;\n"
    "}\n"
    "template <class... A> static inline int hdg_emu_check(void (*)(A...), void **p, unsigned m)\n"
    "{\n"
    "    return hdg_emu_check_unpack<A...>(p, m, typename hdg_emu_mkseq<(int)sizeof...(A)>::type());\n"
    "}\n";

/* The pointers of an hdg_kargs argument that a kernel reads (the mask bits
 * of hdg_emu_check), written after the source when it defines hdg_kargs. */
static const char kargs_check[] =
    "template <> struct hdg_emu_arg<hdg_kargs> {\n"
    "    static int check(const hdg_kargs &a, int i, unsigned m)\n"
    "    {\n"
    "        int bad = 0;\n"
    "        for (int s = 0; s < HDG_KMAX_IN && s < 8; s++)\n"
    "            if (m >> s & 1) bad |= hdg_emu_state->check_ptr(a.in[s], i, \"in\", s);\n"
    "        for (int s = 0; s < HDG_KMAX_OUT && s < 8; s++)\n"
    "            if (m >> (8 + s) & 1) bad |= hdg_emu_state->check_ptr(a.out[s], i, \"out\", s);\n"
    "        for (int s = 0; s < HDG_KMAX_IMAP && s < 4; s++)\n"
    "            if (m >> (16 + s) & 1) bad |= hdg_emu_state->check_ptr(a.imap[s], i, \"imap\", s);\n"
    "        if (m >> 20 & 1) bad |= hdg_emu_state->check_ptr(a.geom, i, \"geom\", -1);\n"
    "        if (m >> 21 & 1) bad |= hdg_emu_state->check_ptr(a.params, i, \"params\", -1);\n"
    "        return bad;\n"
    "    }\n"
    "};\n";

/* ---------------------------------------------------------------- scanner */

enum { T_ID, T_NUM, T_STR, T_PUNCT };

typedef struct tok { int kind, line; size_t at, len; } tok;

typedef struct func {
    size_t name;               /* token index of the name */
    size_t head, body, end;    /* first token of the declaration, '{', '}' */
    int kernel, barrier;
    unsigned kargs;            /* hdg_kargs fields read (mask of hdg_emu_check) */
    char bounds[160];          /* first argument of __launch_bounds__, or "" */
} func;

typedef struct scan {
    const char *src;
    tok *t;
    size_t nt, cap;
    func *f;
    int nf;
    int barrier_macro;         /* __syncthreads inside a preprocessor line */
} scan;

static void push(scan *s, int kind, int line, size_t at, size_t len)
{
    if (s->nt == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->t = hdg_xrealloc(s->t, s->cap * sizeof *s->t);
    }
    tok k = { kind, line, at, len };
    s->t[s->nt++] = k;
}

static int is_id(char c) { return isalnum((unsigned char)c) || c == '_'; }

static void lex(scan *s)
{
    const char *p = s->src;
    size_t i = 0;
    int line = 1, bol = 1;
    while (p[i]) {
        char c = p[i];
        if (c == '\n') { line++, bol = 1, i++; continue; }
        if (isspace((unsigned char)c)) { i++; continue; }
        if (c == '#' && bol) {   /* preprocessor line, with continuations */
            size_t b = i;
            while (p[i] && !(p[i] == '\n' && p[i - 1] != '\\')) line += p[i++] == '\n';
            for (size_t j = b; j + 13 <= i; j++)
                if (!memcmp(p + j, "__syncthreads", 13)) s->barrier_macro = 1;
            continue;
        }
        bol = 0;
        if (c == '/' && p[i + 1] == '/') { while (p[i] && p[i] != '\n') i++; continue; }
        if (c == '/' && p[i + 1] == '*') {
            i += 2;
            while (p[i] && !(p[i] == '*' && p[i + 1] == '/')) line += p[i++] == '\n';
            if (p[i]) i += 2;
            continue;
        }
        size_t b = i;
        if (c == '"' || c == '\'') {
            for (i++; p[i] && p[i] != c && p[i] != '\n'; i++)
                if (p[i] == '\\' && p[i + 1]) i++;
            if (p[i] == c) i++;
            push(s, T_STR, line, b, i - b);
        } else if (is_id(c)) {
            while (is_id(p[i]) || (isdigit((unsigned char)c) && p[i] == '.')) i++;
            push(s, isdigit((unsigned char)c) ? T_NUM : T_ID, line, b, i - b);
        } else push(s, T_PUNCT, line, b, ++i - b);
    }
}

static int is(const scan *s, size_t k, const char *text)
{
    size_t n = strlen(text);
    return k < s->nt && s->t[k].len == n && !memcmp(s->src + s->t[k].at, text, n);
}

/* Index of the token closing the bracket at k (or nt). */
static size_t closing(const scan *s, size_t k)
{
    char open = s->src[s->t[k].at], close = open == '(' ? ')' : open == '[' ? ']' : '}';
    int depth = 0;
    for (; k < s->nt; k++) {
        if (s->t[k].kind != T_PUNCT) continue;
        char c = s->src[s->t[k].at];
        if (c == open) depth++;
        else if (c == close && --depth == 0) return k;
    }
    return s->nt;
}

/* Index of the '(' matching the ')' at k, or (size_t)-1. */
static size_t opening(const scan *s, size_t k)
{
    int depth = 0;
    for (size_t j = k + 1; j-- > 0;) {
        if (is(s, j, ")")) depth++;
        else if (is(s, j, "(") && --depth == 0) return j;
    }
    return (size_t)-1;
}

/* The top-level function definitions: a '{' after ')' at file scope (an
 * extern "C" { ... } block is transparent; struct bodies and initializers
 * are skipped). */
static void find_functions(scan *s)
{
    size_t head = 0;
    int linkage = 0;   /* open extern "C" { blocks */
    for (size_t k = 0; k < s->nt; k++) {
        if (is(s, k, ";")) { head = k + 1; continue; }
        if (is(s, k, "}") && linkage) { linkage--, head = k + 1; continue; }
        if (!is(s, k, "{")) continue;
        if (k > 0 && s->t[k - 1].kind == T_STR) { linkage++, head = k + 1; continue; }
        size_t end = closing(s, k), o = k > 0 && is(s, k - 1, ")") ? opening(s, k - 1) : (size_t)-1;
        if (o != (size_t)-1 && o > head && s->t[o - 1].kind == T_ID) {
            s->f = hdg_xrealloc(s->f, (size_t)(s->nf + 1) * sizeof *s->f);
            func *f = &s->f[s->nf++];
            memset(f, 0, sizeof *f);
            f->name = o - 1, f->head = head, f->body = k, f->end = end;
            for (size_t j = head; j < o - 1; j++) {
                if (is(s, j, "__global__")) f->kernel = 1;
                if (is(s, j, "__launch_bounds__") && is(s, j + 1, "(")) {
                    size_t c = closing(s, j + 1), e = j + 2;
                    for (int d = 0; e < c && !(d == 0 && is(s, e, ",")); e++) d += is(s, e, "(") - is(s, e, ")");
                    if (e > j + 2) {
                        size_t a = s->t[j + 2].at, b = s->t[e - 1].at + s->t[e - 1].len;
                        snprintf(f->bounds, sizeof f->bounds, "%.*s", (int)(b - a), s->src + a);
                    }
                }
            }
        }
        if (end == s->nt) break;
        k = end;
        if (o != (size_t)-1) head = k + 1;   /* after a function; else at the next ';' */
    }
}

static int find_function(const scan *s, size_t k)
{
    for (int i = 0; i < s->nf; i++)
        if (s->t[s->f[i].name].len == s->t[k].len && !memcmp(s->src + s->t[s->f[i].name].at, s->src + s->t[k].at, s->t[k].len))
            return i;
    return -1;
}

/* Mask bits of a->FIELD[...] / a.FIELD in the body of f (see kargs_check). */
static unsigned kargs_reads(const scan *s, const func *f)
{
    static const struct { const char *name; int bit, n; } fields[] = {
        { "in", 0, 8 }, { "out", 8, 8 }, { "imap", 16, 4 }, { "geom", 20, 1 }, { "params", 21, 1 },
    };
    unsigned m = 0;
    for (size_t k = f->body; k < f->end; k++) {
        int arrow = is(s, k, "-") && is(s, k + 1, ">"), dot = is(s, k, ".");
        if (!arrow && !dot) continue;
        size_t id = k + 1 + arrow;
        for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
            if (!is(s, id, fields[i].name)) continue;
            unsigned all = ((1u << fields[i].n) - 1) << fields[i].bit;
            if (fields[i].n > 1 && is(s, id + 1, "[") && s->t[id + 2].kind == T_NUM && is(s, id + 3, "]")) {
                long slot = strtol(s->src + s->t[id + 2].at, NULL, 0);
                m |= slot >= 0 && slot < fields[i].n ? 1u << (fields[i].bit + slot) : 0;
            } else m |= all;
        }
    }
    return m;
}

/* Barriers and kargs reads, closed over the functions each one calls. */
static void analyze(scan *s)
{
    int nf = s->nf;
    char *calls = hdg_xcalloc((size_t)nf * nf + 1, 1);
    for (int i = 0; i < nf; i++) {
        func *f = &s->f[i];
        f->barrier = s->barrier_macro;
        f->kargs = kargs_reads(s, f);
        for (size_t k = f->body; k < f->end; k++) {
            if (s->t[k].kind != T_ID) continue;
            if (is(s, k, "__syncthreads")) f->barrier = 1;
            int g = is(s, k + 1, "(") ? find_function(s, k) : -1;
            if (g >= 0) calls[i * nf + g] = 1;
        }
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < nf; i++)
            for (int g = 0; g < nf; g++) {
                if (!calls[i * nf + g]) continue;
                func *f = &s->f[i], *h = &s->f[g];
                int b = f->barrier | h->barrier;
                unsigned m = f->kargs | h->kargs;
                if (b != f->barrier || m != f->kargs) f->barrier = b, f->kargs = m, changed = 1;
            }
    }
    free(calls);
}

/* ------------------------------------------------------------- translate */

/* The source, with every `extern __shared__ T name[];` turned into an object
 * that converts to the block's dynamic shared memory. */
static void copy_source(const scan *s, hdg_str *out)
{
    size_t from = 0;
    for (size_t k = 0; k + 1 < s->nt; k++) {
        if (!is(s, k, "extern") || !is(s, k + 1, "__shared__")) continue;
        size_t e = k + 2;
        while (e < s->nt && !is(s, e, ";")) e++;
        if (e < 5 || !is(s, e - 1, "]") || !is(s, e - 2, "[") || s->t[e - 3].kind != T_ID) continue;
        size_t name = e - 3;
        hdg_str_printf(out, "%.*s", (int)(s->t[k].at - from), s->src + from);
        hdg_str_puts(out, "static hdg_emu_dyn_shared<");
        for (size_t j = k + 2; j < name; j++) {
            if (is(s, j, "__align__") && is(s, j + 1, "(")) { j = closing(s, j + 1); continue; }
            hdg_str_printf(out, " %.*s", (int)s->t[j].len, s->src + s->t[j].at);
        }
        hdg_str_printf(out, " > %.*s;", (int)s->t[name].len, s->src + s->t[name].at);
        from = s->t[e].at + 1;
        k = e;
    }
    hdg_str_puts(out, s->src + from);
}

hdg_status hdg_cuda_emu_translate(const char *src, hdg_str *out, hdg_error *err)
{
    scan s;
    memset(&s, 0, sizeof s);
    s.src = src;
    lex(&s);
    find_functions(&s);
    analyze(&s);
    hdg_str_puts(out, prelude);
    hdg_str_puts(out, "#line 1 \"module.cu\"\n");
    copy_source(&s, out);
    hdg_str_puts(out, "\n#line 1 \"<emulator wrappers>\"\n");
    if (strstr(src, "HDG_KERNEL_ABI_VERSION")) hdg_str_puts(out, kargs_check);
    hdg_str_puts(out, "extern \"C\" const char hdg_emu_kernels[] = \"");
    int nk = 0;
    for (int i = 0; i < s.nf; i++)
        if (s.f[i].kernel)
            hdg_str_printf(out, "%s%.*s", nk++ ? " " : "", (int)s.t[s.f[i].name].len, src + s.t[s.f[i].name].at);
    hdg_str_puts(out, "\";\n");
    for (int i = 0; i < s.nf; i++) {
        const func *f = &s.f[i];
        if (!f->kernel) continue;
        int n = (int)s.t[f->name].len;
        const char *name = src + s.t[f->name].at;
        hdg_str_printf(out, "extern \"C\" void %.*s__hdg_emu(void **p) { hdg_emu_call(%.*s, p); }\n", n, name, n, name);
        hdg_str_printf(out, "extern \"C\" int %.*s__hdg_emu_check(void **p) { return hdg_emu_check(%.*s, p, 0x%xu); }\n", n,
                       name, n, name, f->kargs);
        hdg_str_printf(out, "extern \"C\" const int %.*s__hdg_emu_attr[3] = { %s%s%s, %d, hdg_emu_arity(%.*s) };\n", n, name,
                       f->bounds[0] ? "(" : "1024", f->bounds, f->bounds[0] ? ")" : "", f->barrier, n, name);
    }
    free(s.t);
    free(s.f);
    (void)err;
    return HDG_OK;
}

/* ---------------------------------------------------------------- loader */

static hdg_status jit_compile(const char *source, void **module, hdg_error *err)
{
    hdg_str cpp;
    hdg_str_init(&cpp);
    hdg_status st = hdg_cuda_emu_translate(source, &cpp, err);
    char name[64];
    snprintf(name, sizeof name, "cuda_emu_%016llx", hdg_hash64(source, strlen(source), 0));
    hdg_jit *j = NULL;
    if (!st) st = hdg_jit_compile_cxx(cpp.s, name, NULL, &j, NULL, err);
    hdg_str_free(&cpp);
    *module = j;
    return st;
}

static void *jit_lookup(void *module, const char *symbol) { return hdg_jit_lookup(module, symbol); }
static void jit_unload(void *module) { hdg_jit_free(module); }

void hdg_cuda_emu_use_jit(void)
{
    static const hdg_cuda_emu_loader l = { jit_compile, jit_lookup, jit_unload };
    hdg_cuda_emu_set_loader(&l);
}
