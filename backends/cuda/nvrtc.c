/* nvrtc.c — libnvrtc through dlopen, compile, and the log: error excerpts
 * that name the generated line and its kernel, ptxas resource statistics
 * (see nvrtc.h). The NVRTC types are declared here (no nvrtc.h needed). */
#include "backends/cuda/nvrtc.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/dl.h"
#include "support/util.h"

typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

typedef struct nvrtc_api {
    const char *(*GetErrorString)(nvrtcResult);
    nvrtcResult (*Version)(int *, int *);
    nvrtcResult (*GetNumSupportedArchs)(int *);
    nvrtcResult (*GetSupportedArchs)(int *);
    nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                                 const char *const *);
    nvrtcResult (*DestroyProgram)(nvrtcProgram *);
    nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetPTX)(nvrtcProgram, char *);
    nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
    nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
} nvrtc_api;

static const hdg_dl_sym symbols[] = {
#define SYM(field) { offsetof(nvrtc_api, field), "nvrtc" #field }
    SYM(GetErrorString), SYM(Version), SYM(GetNumSupportedArchs), SYM(GetSupportedArchs),
    SYM(CreateProgram), SYM(DestroyProgram), SYM(CompileProgram), SYM(GetPTXSize), SYM(GetPTX),
    SYM(GetCUBINSize), SYM(GetCUBIN), SYM(GetProgramLogSize), SYM(GetProgramLog),
#undef SYM
};

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static nvrtc_api api;
static int api_state;            /* 0 not tried, 1 loaded, -1 failed */
static char api_error[1024];
static int ver_major, ver_minor;
static int archs[64], narchs;

static void *open_lib(hdg_str *tried)
{
    static const char *const names[] = { "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2" };
    return hdg_dlopen_first("HDGC_LIBNVRTC", names, 4, NULL, 0, tried);
}

static void load_api(void)
{
    hdg_str tried;
    hdg_str_init(&tried);
    void *h = open_lib(&tried);
    if (!h) {
        snprintf(api_error, sizeof api_error, "NVRTC not available: libnvrtc.so not found (tried %s)", tried.s);
        hdg_str_free(&tried);
        api_state = -1;
        return;
    }
    hdg_str_free(&tried);
    const char *missing = hdg_dl_resolve(h, symbols, sizeof symbols / sizeof *symbols, &api);
    if (missing) {
        snprintf(api_error, sizeof api_error, "NVRTC library too old: it lacks %s (CUDA 11.2 or newer needed)",
                 missing);
        api_state = -1;
        dlclose(h);
        return;
    }
    api.Version(&ver_major, &ver_minor);
    if (api.GetNumSupportedArchs(&narchs) != 0 || narchs > 64 || narchs < 0) narchs = 0;
    if (narchs) api.GetSupportedArchs(archs);
    api_state = 1;
}

hdg_status hdg_nvrtc_load(char *version, size_t n, hdg_error *err)
{
    pthread_mutex_lock(&load_lock);
    if (!api_state) load_api();
    int state = api_state;
    pthread_mutex_unlock(&load_lock);
    if (state < 0) return hdg_fail(err, HDG_EDEVICE, "%s", api_error);
    if (version && n) snprintf(version, n, "%d.%d", ver_major, ver_minor);
    return HDG_OK;
}

int hdg_nvrtc_best_arch(int want)
{
    if (hdg_nvrtc_load(NULL, 0, NULL)) return 0;
    int best = 0;
    for (int i = 0; i < narchs; i++)
        if (archs[i] <= want && archs[i] > best) best = archs[i];
    return best;
}

/* ----------------------------------------------------------------- options */

typedef struct flagset { char arch[32], maxreg[32]; const char *argv[48]; int argc; hdg_str defs; } flagset;

static void make_flags(const hdg_nvrtc_options *o, flagset *f)
{
    int arch = o->arch ? o->arch : 90;
    snprintf(f->arch, sizeof f->arch, "--gpu-architecture=%s_%d", o->ptx_only ? "compute" : "sm", arch);
    f->argc = 0;
    f->argv[f->argc++] = f->arch;
    f->argv[f->argc++] = "-default-device";
    f->argv[f->argc++] = "-std=c++17";
    if (!o->ptx_only) f->argv[f->argc++] = "-Xptxas=-v";
    if (o->line_info || hdg_env_flag("HDGC_CUDA_LINEINFO")) /* for compute-sanitizer and ncu */
        f->argv[f->argc++] = "-lineinfo";
    if (o->max_registers > 0) {
        snprintf(f->maxreg, sizeof f->maxreg, "--maxrregcount=%d", o->max_registers);
        f->argv[f->argc++] = f->maxreg;
    }
    /* defines: one buffer, NUL-separated, pointers taken after it stops growing */
    hdg_str_init(&f->defs);
    int nd = o->ndefines < 40 ? o->ndefines : 40;
    for (int i = 0; i < nd; i++) {
        hdg_str_printf(&f->defs, "-D%s", o->defines[i]);
        hdg_str_putc(&f->defs, '\0');
    }
    for (size_t p = 0; p < f->defs.len; p += strlen(f->defs.s + p) + 1) f->argv[f->argc++] = f->defs.s + p;
}

void hdg_nvrtc_flags_string(const hdg_nvrtc_options *opt, char *buf, size_t n)
{
    hdg_nvrtc_options o = {0};
    if (opt) o = *opt;
    flagset f;
    make_flags(&o, &f);
    hdg_str s;
    hdg_str_init(&s);
    for (int i = 0; i < f.argc; i++) hdg_str_printf(&s, "%s%s", i ? " " : "", f.argv[i]);
    snprintf(buf, n, "%s", s.s ? s.s : "");
    hdg_str_free(&s);
    hdg_str_free(&f.defs);
}

/* --------------------------------------------------------------- the log */

int hdg_nvrtc_parse_stats(const char *log, hdg_nvrtc_stats **out)
{
    hdg_nvrtc_stats *st = NULL;
    int n = 0, cap = 0, cur = -1;
    char props[64] = "";
    for (const char *p = log; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        const char *q;
        char name[64];
        int a, b, c;
        if ((q = strstr(line, "Compiling entry function '")) && sscanf(q + 26, "%63[^']", name) == 1) {
            if (n == cap) st = hdg_xrealloc(st, sizeof *st * (size_t)(cap = cap ? 2 * cap : 8));
            memset(&st[n], 0, sizeof *st);
            snprintf(st[n].name, sizeof st[n].name, "%s", name);
            st[n].registers = -1;
            cur = n++;
            props[0] = 0;
        } else if ((q = strstr(line, "Function properties for ")) && sscanf(q + 24, "%63s", name) == 1) {
            snprintf(props, sizeof props, "%s", name);
        } else if ((q = strstr(line, "bytes stack frame")) && cur >= 0 && !strcmp(props, st[cur].name)) {
            const char *s = strchr(line, '.');
            if (s && sscanf(s + 1, " %d bytes stack frame, %d bytes spill stores, %d bytes spill loads", &a, &b, &c) == 3) {
                st[cur].stack_bytes = a;
                st[cur].spill_stores = b;
                st[cur].spill_loads = c;
            }
        } else if ((q = strstr(line, "Used ")) && cur >= 0 && sscanf(q, "Used %d registers", &a) == 1) {
            st[cur].registers = a;
        }
        p = eol ? eol + 1 : p + len;
    }
    *out = st;
    return n;
}

const hdg_nvrtc_stats *hdg_nvrtc_find_stats(const hdg_nvrtc_output *out, const char *kernel)
{
    for (int i = 0; i < out->nstats; i++)
        if (!strcmp(out->stats[i].name, kernel)) return &out->stats[i];
    return NULL;
}

/* Line `line` (1-based) of src into buf (trimmed). */
static void source_line(const char *src, int line, char *buf, size_t n)
{
    const char *p = src;
    for (int i = 1; i < line && p; i++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    buf[0] = 0;
    if (!p) return;
    while (*p == ' ') p++;
    size_t len = strcspn(p, "\n");
    snprintf(buf, n, "%.*s", (int)(len < n ? len : n - 1), p);
}

/* The name of the __global__ function whose text contains line `line`: the
 * last `__global__` at or before that line. "" when none. */
static void kernel_at(const char *src, int line, char *name, size_t n)
{
    name[0] = 0;
    const char *p = src;
    for (int l = 1; p && *p && l <= line; l++) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *g = strstr(p, "__global__");
        if (g && g < p + len) {
            const char *paren = memchr(p, '(', len), *s = paren;
            /* skip __launch_bounds__(...) */
            const char *lb = strstr(p, "__launch_bounds__");
            if (lb && lb < p + len && paren && paren > lb) {
                const char *close = memchr(paren, ')', (size_t)(p + len - paren));
                s = close ? memchr(close, '(', (size_t)(p + len - close)) : NULL;
            }
            if (s) {
                const char *e = s;
                while (e > p && e[-1] == ' ') e--;
                const char *b = e;
                while (b > p && (b[-1] == '_' || (b[-1] >= 'a' && b[-1] <= 'z') || (b[-1] >= 'A' && b[-1] <= 'Z') ||
                                 (b[-1] >= '0' && b[-1] <= '9')))
                    b--;
                snprintf(name, n, "%.*s", (int)(e - b), b);
            }
        }
        p = eol ? eol + 1 : NULL;
    }
}

/* Builds the HDG_ECOMPILE message from the log. */
static hdg_status compile_error(const char *src, const char *file, const char *arch, const char *log,
                                hdg_error *err)
{
    hdg_str msg;
    hdg_str_init(&msg);
    hdg_str_printf(&msg, "NVRTC failed to compile %s for %s", file, arch + strlen("--gpu-architecture="));
    char pat[300];
    snprintf(pat, sizeof pat, "%s(", file);
    const char *e = log;
    int line = 0;
    while ((e = strstr(e, pat))) {
        const char *tail = e + strlen(pat);
        if (sscanf(tail, "%d): error", &line) == 1 && strstr(tail, "): error") == strchr(tail, ')')) break;
        line = 0;
        e = tail;
    }
    if (line > 0) {
        char text[200], kname[96];
        source_line(src, line, text, sizeof text);
        kernel_at(src, line, kname, sizeof kname);
        if (kname[0]) hdg_str_printf(&msg, ": kernel '%s', line %d: `%s`", kname, line, text);
        else hdg_str_printf(&msg, ": line %d: `%s`", line, text);
    }
    hdg_str_printf(&msg, "\n%s", log && *log ? log : "(empty NVRTC log)\n");
    hdg_status st = hdg_fail(err, HDG_ECOMPILE, "%s", msg.s);
    hdg_str_free(&msg);
    return st;
}

/* ------------------------------------------------------------------ compile */

static char *fetch_log(nvrtcProgram prog)
{
    size_t n = 0;
    if (api.GetProgramLogSize(prog, &n) || n == 0) return hdg_xstrdup("");
    char *log = hdg_xcalloc(n + 1, 1);
    if (api.GetProgramLog(prog, log)) log[0] = 0;
    return log;
}

hdg_status hdg_nvrtc_compile(const char *src, const char *file_name, const hdg_nvrtc_options *opt,
                             hdg_nvrtc_output *out, hdg_error *err)
{
    memset(out, 0, sizeof *out);
    hdg_status st = hdg_nvrtc_load(NULL, 0, err);
    if (st) return st;
    hdg_nvrtc_options o = {0};
    if (opt) o = *opt;
    if (!file_name) file_name = "hdgc_kernels.cu";
    flagset f;
    make_flags(&o, &f);
    nvrtcProgram prog = NULL;
    nvrtcResult r = api.CreateProgram(&prog, src, file_name, 0, NULL, NULL);
    if (r) {
        hdg_str_free(&f.defs);
        return hdg_fail(err, HDG_EDEVICE, "nvrtcCreateProgram: %s", api.GetErrorString(r));
    }
    r = api.CompileProgram(prog, f.argc, f.argv);
    char *log = fetch_log(prog);
    if (r) {
        if (r == 6 /* NVRTC_ERROR_COMPILATION */) st = compile_error(src, file_name, f.arch, log, err);
        else st = hdg_fail(err, HDG_EDEVICE, "nvrtcCompileProgram (%s): %s\n%s", f.arch, api.GetErrorString(r), log);
        free(log);
        api.DestroyProgram(&prog);
        hdg_str_free(&f.defs);
        return st;
    }
    size_t n = 0;
    if (!api.GetPTXSize(prog, &n) && n) {
        out->ptx = hdg_xcalloc(n + 1, 1);
        if (api.GetPTX(prog, out->ptx)) n = 0;
        out->ptx_size = n ? strlen(out->ptx) : 0;
    }
    if (!o.ptx_only) {
        n = 0;
        if ((r = api.GetCUBINSize(prog, &n)) || !n) st = hdg_fail(err, HDG_EDEVICE, "nvrtcGetCUBINSize: %s", api.GetErrorString(r));
        else {
            out->image = hdg_xmalloc(n);
            out->image_size = n;
            if ((r = api.GetCUBIN(prog, out->image))) st = hdg_fail(err, HDG_EDEVICE, "nvrtcGetCUBIN: %s", api.GetErrorString(r));
        }
    } else if (out->ptx) {
        out->image = hdg_xstrdup(out->ptx);
        out->image_size = out->ptx_size + 1;
        out->is_ptx = 1;
    } else {
        st = hdg_fail(err, HDG_EDEVICE, "NVRTC produced no PTX");
    }
    api.DestroyProgram(&prog);
    snprintf(out->arch_flag, sizeof out->arch_flag, "%s", f.arch);
    hdg_str_free(&f.defs);
    out->log = log;
    out->nstats = hdg_nvrtc_parse_stats(log, &out->stats);
    if (st) hdg_nvrtc_output_free(out);
    return st;
}

void hdg_nvrtc_output_free(hdg_nvrtc_output *out)
{
    if (!out) return;
    free(out->image);
    free(out->ptx);
    free(out->log);
    free(out->stats);
    memset(out, 0, sizeof *out);
}
