/* pipeline.c — IR module -> optimized kernels -> C source -> JIT -> function
 * pointers (see pipeline.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/c/emit.h"
#include "backends/c/jit.h"
#include "compiler/pipeline.h"
#include "runtime/parallel/parallel.h"
#include "support/util.h"

static hdg_status optimize_all(hdg_ir_module *m, const hdg_compile_options *o, hdg_error *err)
{
    for (int i = 0; i < m->nkernels; i++) {
        hdg_status st = o->no_optimize ? hdg_ir_verify(m->kernels[i], err)
                                       : hdg_ir_optimize(m->kernels[i],
                                                         o->ir_flags ? o->ir_flags : hdg_ir_host_flags(),
                                                         err);
        if (st) return st;
    }
    return HDG_OK;
}

/* The kernel whose text contains line `line` of the generated source (the
 * emitter heads every kernel with a comment "/" "* kernel NAME (per ..."). */
void hdg_kernel_at_line(const char *src, long line, char *name, size_t n)
{
    long l = 1;
    name[0] = '\0';
    for (const char *p = src; *p && l <= line; p++) {
        if ((p == src || p[-1] == '\n') && !strncmp(p, "/* kernel ", 10)) {
            size_t k = 0;
            for (const char *q = p + 10; *q && *q != ' ' && k + 1 < n; q++) name[k++] = *q;
            name[k] = '\0';
        }
        if (*p == '\n') l++;
    }
}

/* Clang's message names "<module>.c:LINE:COL"; say which kernel that is. */
static void name_failing_kernel(const char *src, const char *module, hdg_error *err)
{
    char pat[160], kname[128];
    snprintf(pat, sizeof pat, "%s.c:", module);
    const char *at = strstr(err->msg, pat);
    if (!at) return;
    long line = strtol(at + strlen(pat), NULL, 10);
    hdg_kernel_at_line(src, line, kname, sizeof kname);
    if (!kname[0]) return;
    char msg[sizeof err->msg + 512];
    snprintf(msg, sizeof msg, "in generated kernel '%s' (line %ld of %s.c): %s", kname, line, module,
             err->msg);
    size_t len = strlen(msg);
    if (len >= sizeof err->msg) len = sizeof err->msg - 1;
    memcpy(err->msg, msg, len);
    err->msg[len] = '\0';
}

/* Elements per batch by default: 8 where the JIT's target has AVX-512 (32 vector registers
 * hold two 4-wide groups, and the two independent chains hide the latency of the pivoted LU
 * and the small products: 1.04-1.83x at k = 1..6 on a Xeon, session 19), else 4. */
static long default_batch(void)
{
    return hdg_jit_host_has("avx512f") && hdg_jit_host_has("avx512vl") ? 8 : 4;
}

/* HDGC_BATCH: 1 (none), 2, 4 or 8; *w = 0 for 1; 0 for any other value */
static int batch_env(int *w)
{
    const char *s = getenv("HDGC_BATCH");
    long v = default_batch();
    if (s && *s && (!hdg_parse_long(s, 1, 8, &v) || (v & (v - 1)))) return 0;
    *w = v > 1 ? (int)v : 0;
    return 1;
}

unsigned hdg_ir_host_flags(void)
{
    unsigned f = HDG_IR_OPT_HOST;
    if (hdg_env_flag("HDGC_NO_FUSE")) f &= ~(unsigned)HDG_IR_FUSE;
    if (hdg_env_flag("HDGC_NO_UNFILL")) f &= ~(unsigned)HDG_IR_UNFILL;
    return f;
}

int hdg_batch_width(void)
{
    int w;
    return batch_env(&w) ? w : 0;   /* a bad value: hdg_batch_check_env refused it first */
}

hdg_status hdg_batch_check_env(hdg_error *err)
{
    int w;
    if (batch_env(&w)) return HDG_OK;
    return hdg_fail(err, HDG_EINPUT, "HDGC_BATCH=%.64s: expected 1 (kernels one element at a time), 2, 4 or 8 "
                    "(elements per SIMD batch)", getenv("HDGC_BATCH"));
}

hdg_status hdg_compile_c(hdg_ir_module *m, const hdg_compile_options *opt, hdg_compiled *out,
                         hdg_error *err)
{
    hdg_compile_options o = HDG_COMPILE_OPTIONS_DEFAULT;
    if (opt) o = *opt;
    memset(out, 0, sizeof *out);
    double t0 = hdg_wtime();
    hdg_status st = optimize_all(m, &o, err);
    if (st) return st;
    double t1 = hdg_wtime();
    hdg_emit_c_options eo = {0};
    eo.line_directives = o.line_directives;
    eo.batch = hdg_batch_width();
    hdg_str src;
    hdg_str_init(&src);
    st = hdg_emit_c(m, &src, &eo, err);
    double t2 = hdg_wtime();
    if (st) { hdg_str_free(&src); return st; }
    const char *keep = getenv("HDGC_KEEP_SOURCE");   /* debugging: a copy of the C source */
    if (keep && *keep) {
        FILE *f = fopen(keep, "w");
        if (f) fputs(src.s, f), fclose(f);
    }
    hdg_jit_options jo = HDG_JIT_OPTIONS_DEFAULT;
    jo.opt_level = o.opt_level;
    jo.use_cache = o.use_cache;
    jo.threads = hdg_parallel_threads();
    st = hdg_jit_compile(src.s, m->name, &jo, &out->jit, &out->stats, err);
    if (st == HDG_ECOMPILE) name_failing_kernel(src.s, m->name, err);
    out->source_bytes = src.len;
    hdg_str_free(&src);
    if (st) return st;
    out->t_optimize = t1 - t0;
    out->t_emit = t2 - t1;
    out->t_compile = hdg_wtime() - t2;
    out->nkernels = m->nkernels;
    out->batch = eo.batch > 1 ? eo.batch : 0;
    out->lanes = hdg_xcalloc((size_t)m->nkernels + 1, sizeof *out->lanes);
    for (int i = 0; i < m->nkernels; i++) {
        int b = out->batch && !hdg_emit_c_batchable(m->kernels[i], out->batch, NULL, 0);
        out->lanes[i] = b ? out->batch : 1;
        out->nbatched += b;
    }
    out->fn = hdg_xcalloc((size_t)m->nkernels + 1, sizeof *out->fn);
    out->info = hdg_xcalloc((size_t)m->nkernels + 1, sizeof *out->info);
    for (int i = 0; i < m->nkernels; i++) {
        hdg_ir_kernel_info(m->kernels[i], &out->info[i]);
        out->fn[i] = (hdg_kernel_fn)hdg_jit_lookup(out->jit, m->kernels[i]->name);
        if (!out->fn[i]) {
            hdg_compiled_free(out);
            return hdg_fail(err, HDG_EINTERNAL, "kernel '%s' not found in the compiled module '%s'",
                            m->kernels[i]->name, m->name);
        }
    }
    return HDG_OK;
}

hdg_kernel_fn hdg_compiled_find(const hdg_compiled *c, const char *name,
                                const hdg_kernel_info **info)
{
    for (int i = 0; i < c->nkernels; i++)
        if (!strcmp(c->info[i].name, name)) {
            if (info) *info = &c->info[i];
            return c->fn[i];
        }
    return NULL;
}

void hdg_compiled_free(hdg_compiled *c)
{
    if (!c) return;
    free(c->fn);
    free(c->info);
    free(c->lanes);
    hdg_jit_free(c->jit);
    memset(c, 0, sizeof *c);
}

typedef struct launch_ctx { hdg_kernel_fn fn; const hdg_kargs *a; long long first; } launch_ctx;

static void launch_range(long long b, long long e, void *ctx)
{
    launch_ctx *c = ctx;
    c->fn(c->first + b, c->first + e, c->a);
}

void hdg_launch(hdg_kernel_fn fn, long long nitems, const hdg_kargs *a)
{
    launch_ctx c = {fn, a, 0};
    hdg_parallel_for(nitems, launch_range, &c);
}

void hdg_launch_range(hdg_kernel_fn fn, long long begin, long long end, const hdg_kargs *a)
{
    if (end <= begin) return;
    launch_ctx c = {fn, a, begin};
    hdg_parallel_for(end - begin, launch_range, &c);
}
