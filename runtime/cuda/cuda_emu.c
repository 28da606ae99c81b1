/* cuda_emu.c — the host emulator of the CUDA driver (see cuda_emu.h): the
 * entry points of the cuda_api table (cuda_api.h) over host memory, modules
 * compiled from CUDA source by a registered loader, and kernels run thread
 * by thread, as fibers when they use __syncthreads. */
#define _GNU_SOURCE 1   /* MAP_ANONYMOUS; ucontext is in glibc's default set */
#include "runtime/cuda/cuda_emu.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "runtime/cuda/cuda_api.h"
#include "support/util.h"

#if defined(__SANITIZE_ADDRESS__)
#define EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMU_ASAN 1
#endif
#endif
#ifdef EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

enum {
    EMU_SHARED_OPTIN = 227 * 1024, EMU_MAX_THREADS = 1024, EMU_SMS = 2, EMU_ALIGN = 256,
    EMU_FREED_RING = 256, MOD_MAGIC = 0x6d6f6465, FN_MAGIC = 0x66756e63, EV_MAGIC = 0x65766e74
};

/* ---------------------------------------------------------------- state */

typedef struct emu_alloc { uintptr_t base; size_t size; } emu_alloc;

typedef struct emu_module emu_module;
typedef struct emu_func {
    unsigned magic;
    emu_module *mod;
    char name[128];
    void (*run)(void **);
    int (*check)(void **);
    int max_threads, barriers, nargs;
    int max_dyn_shared;       /* cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES), 48 KiB by default */
} emu_func;

struct emu_module {
    unsigned magic;
    void *handle;             /* the loader's */
    void *(*lookup)(void *, const char *);   /* the loader's, kept: it may change */
    void (*unload)(void *);
    const char *kernels;      /* hdg_emu_kernels */
    emu_func **fn;
    int nfn;
    emu_module *next;
};

typedef struct emu_event { unsigned magic; int recorded; double t; } emu_event;

/* Everything here is guarded by lock, except the launch state (launch_lock). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static hdg_cuda_emu_loader loader;
static int have_loader;
static size_t total_mem = (size_t)4 << 30, used_mem;
static int ctx_refs;
static unsigned ctx_gen = 1;          /* bumped when the primary context is destroyed */
static char ctx_obj;                  /* the primary context handle is its address */
static emu_alloc *allocs;             /* sorted by base */
static size_t nallocs, cap_allocs;
static uintptr_t freed[EMU_FREED_RING];
static unsigned nfreed;
static emu_module *modules;
static CUresult pending;              /* a failure of a call whose result is dropped */
static char pending_detail[1536];

static _Thread_local unsigned current_gen;     /* the thread's current context */
static _Thread_local char detail[1536];

const char *hdg_cuda_emu_detail(void) { return detail; }

/* Returns r and records why (r != success). */
static CUresult fail(CUresult r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return r;
}

void hdg_cuda_emu_set_loader(const hdg_cuda_emu_loader *l)
{
    pthread_mutex_lock(&lock);
    have_loader = l != NULL;
    if (l) loader = *l;
    pthread_mutex_unlock(&lock);
}

/* Bytes from $name ("123", "64M", "4G"); def if unset. -1 if malformed. */
static long long env_bytes(const char *name, long long def)
{
    const char *s = getenv(name);
    if (!s || !*s) return def;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : *end == 'G' || *end == 'g' ? 30 : 0;
    if (shift) end++;
    if (errno || end == s || *end || s[0] == '-' || v > (1ULL << 50) >> shift) return -1;
    return (long long)(v << shift);
}

static CUresult need_context(const char *call)
{
    if (ctx_refs > 0 && current_gen == ctx_gen) return CUDA_SUCCESS;
    return fail(CUDA_ERROR_INVALID_CONTEXT, "%s: no current context on this thread (hdg_cuda_device_open or "
                "hdg_cuda_device_use first)", call);
}

/* ----------------------------------------------------- device and context */

static size_t fiber_stack = 256 * 1024;
static int shared_optin = EMU_SHARED_OPTIN;   /* $HDGC_EMU_SHARED: a device with less shared memory */

static CUresult emu_init(unsigned flags)
{
    if (flags) return fail(CUDA_ERROR_INVALID_VALUE, "cuInit: flags must be 0");
    long long mem = env_bytes("HDGC_EMU_MEMORY", (long long)4 << 30);
    long long stack = env_bytes("HDGC_EMU_STACK", 256 * 1024);
    long long shared = env_bytes("HDGC_EMU_SHARED", EMU_SHARED_OPTIN);
    if (shared < 0 || shared > EMU_SHARED_OPTIN)
        return fail(CUDA_ERROR_INVALID_VALUE, "HDGC_EMU_SHARED='%s' is not a number of bytes <= %d", getenv("HDGC_EMU_SHARED"),
                    EMU_SHARED_OPTIN);
    if (mem <= 0) return fail(CUDA_ERROR_INVALID_VALUE, "HDGC_EMU_MEMORY='%s' is not a number of bytes", getenv("HDGC_EMU_MEMORY"));
    if (stack < 16384)
        return fail(CUDA_ERROR_INVALID_VALUE, "HDGC_EMU_STACK='%s' is not a number of bytes >= 16384", getenv("HDGC_EMU_STACK"));
    pthread_mutex_lock(&lock);
    total_mem = (size_t)mem;
    if (!ctx_refs) fiber_stack = ((size_t)stack + 4095) & ~(size_t)4095;
    shared_optin = (int)shared;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

static CUresult emu_driver_version(int *v) { *v = 13000; return CUDA_SUCCESS; }
static CUresult emu_device_count(int *n) { *n = 1; return CUDA_SUCCESS; }

static CUresult emu_device_get(CUdevice *d, int ordinal)
{
    if (ordinal != 0) return fail(CUDA_ERROR_INVALID_DEVICE, "cuDeviceGet: the emulator has one device (0), not %d", ordinal);
    *d = 0;
    return CUDA_SUCCESS;
}

static CUresult emu_device_name(char *name, int n, CUdevice d)
{
    if (d != 0 || n <= 0) return fail(CUDA_ERROR_INVALID_VALUE, "cuDeviceGetName: bad device or buffer");
    snprintf(name, (size_t)n, "%s", "hdgc CUDA emulator (host)");
    return CUDA_SUCCESS;
}

static CUresult emu_device_attribute(int *v, int attr, CUdevice d)
{
    if (d != 0) return fail(CUDA_ERROR_INVALID_DEVICE, "cuDeviceGetAttribute: no device %d", d);
    switch (attr) {
    case ATTR_MAX_THREADS_PER_BLOCK: *v = EMU_MAX_THREADS; return CUDA_SUCCESS;
    case ATTR_SM_COUNT: *v = EMU_SMS; return CUDA_SUCCESS;
    case ATTR_CC_MAJOR: *v = 9; return CUDA_SUCCESS;
    case ATTR_CC_MINOR: *v = 0; return CUDA_SUCCESS;
    case ATTR_MAX_SHARED_OPTIN: *v = shared_optin; return CUDA_SUCCESS;
    case ATTR_MAX_THREADS_PER_SM: *v = 2 * EMU_MAX_THREADS; return CUDA_SUCCESS;   /* as sm_90 */
    default: return fail(CUDA_ERROR_INVALID_VALUE, "cuDeviceGetAttribute: attribute %d is not emulated", attr);
    }
}

static CUresult emu_total_mem(size_t *b, CUdevice d)
{
    pthread_mutex_lock(&lock);
    *b = total_mem;
    pthread_mutex_unlock(&lock);
    return d == 0 ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_DEVICE, "cuDeviceTotalMem: no device %d", d);
}

static CUresult emu_ctx_retain(CUcontext *c, CUdevice d)
{
    if (d != 0) return fail(CUDA_ERROR_INVALID_DEVICE, "cuDevicePrimaryCtxRetain: no device %d", d);
    pthread_mutex_lock(&lock);
    ctx_refs++;
    pthread_mutex_unlock(&lock);
    *c = &ctx_obj;
    return CUDA_SUCCESS;
}

static void free_fibers(void);
static void unload_module(emu_module *m);

/* The last release destroys the context: memory and modules go with it. */
static CUresult emu_ctx_release(CUdevice d)
{
    if (d != 0) return fail(CUDA_ERROR_INVALID_DEVICE, "cuDevicePrimaryCtxRelease: no device %d", d);
    pthread_mutex_lock(&lock);
    CUresult r = CUDA_SUCCESS;
    int destroyed = 0;
    if (ctx_refs == 0) r = fail(CUDA_ERROR_INVALID_CONTEXT, "cuDevicePrimaryCtxRelease: the context is not retained");
    else if (--ctx_refs == 0) {
        destroyed = 1;
        for (size_t i = 0; i < nallocs; i++) free((void *)allocs[i].base);
        free(allocs);
        allocs = NULL;
        nallocs = cap_allocs = used_mem = 0;
        while (modules) {
            emu_module *m = modules;
            modules = m->next;
            unload_module(m);
        }
        pending = CUDA_SUCCESS;
        nfreed = 0;
        ctx_gen++;
    }
    pthread_mutex_unlock(&lock);
    if (destroyed) free_fibers();   /* after: launches take launch_lock, then lock */
    return r;
}

static CUresult emu_ctx_set_current(CUcontext c)
{
    if (c == NULL) {
        current_gen = 0;
        return CUDA_SUCCESS;
    }
    if (c != (CUcontext)&ctx_obj) return fail(CUDA_ERROR_INVALID_CONTEXT, "cuCtxSetCurrent: not a context of the emulator");
    pthread_mutex_lock(&lock);
    CUresult r = ctx_refs ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_CONTEXT, "cuCtxSetCurrent: the context was released");
    if (!r) current_gen = ctx_gen;
    pthread_mutex_unlock(&lock);
    return r;
}

/* Launches are synchronous; a dropped failure (cuMemFree) surfaces here. */
static CUresult emu_ctx_synchronize(void)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context("cuCtxSynchronize");
    if (!r && pending) {
        r = fail(pending, "%s", pending_detail);
        pending = CUDA_SUCCESS;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* ---------------------------------------------------------------- memory */

/* Index of the last allocation with base <= p, or -1. */
static long find_alloc(uintptr_t p)
{
    size_t lo = 0, hi = nallocs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (allocs[mid].base <= p) lo = mid + 1;
        else hi = mid;
    }
    return (long)lo - 1;
}

/* 1 if [p, p+n) lies inside one live allocation (n = 0: p inside or at its end). */
static int in_device(uintptr_t p, size_t n)
{
    long i = find_alloc(p);
    if (i < 0) return 0;
    const emu_alloc *a = &allocs[i];
    return p - a->base <= a->size && n <= a->size - (p - a->base) && (n || a->size);
}

/* 1 if [p, p+n) overlaps any live allocation. */
static int touches_device(uintptr_t p, size_t n)
{
    long i = find_alloc(p + (n ? n - 1 : 0));
    return i >= 0 && allocs[i].base + allocs[i].size > p;
}

/* Why [p, p+n) is not device memory, for the detail line. */
static void describe_range(uintptr_t p, size_t n, char *buf, size_t len)
{
    long i = find_alloc(p);
    if (i >= 0 && p < allocs[i].base + allocs[i].size)
        snprintf(buf, len, "0x%" PRIxPTR " + %zu B runs %zu B past the end of its allocation (0x%" PRIxPTR ", %zu B)", p, n,
                 (size_t)(p + n - (allocs[i].base + allocs[i].size)), allocs[i].base, allocs[i].size);
    else if (touches_device(p, n))
        snprintf(buf, len, "0x%" PRIxPTR " + %zu B starts outside device memory and runs into an allocation", p, n);
    else {
        int was = 0;
        for (unsigned k = 0; k < nfreed && k < EMU_FREED_RING; k++) was |= freed[k] == p;
        snprintf(buf, len, "0x%" PRIxPTR " is not device memory (%s)", p, was ? "it was freed" : "a host pointer, or never allocated");
    }
}

static CUresult check_device(const char *call, const char *which, uintptr_t p, size_t n)
{
    if (in_device(p, n)) return CUDA_SUCCESS;
    char why[256];
    describe_range(p, n, why, sizeof why);
    return fail(CUDA_ERROR_INVALID_VALUE, "%s: %s %s", call, which, why);
}

static CUresult check_host(const char *call, const char *which, const void *h, size_t n)
{
    if (!h) return fail(CUDA_ERROR_INVALID_VALUE, "%s: %s is NULL", call, which);
    if (!touches_device((uintptr_t)h, n)) return CUDA_SUCCESS;
    return fail(CUDA_ERROR_INVALID_VALUE, "%s: %s %p + %zu B is device memory, not a host buffer", call, which, h, n);
}

static CUresult emu_mem_info(size_t *fr, size_t *tot)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context("cuMemGetInfo");
    if (!r) {
        *tot = total_mem;
        *fr = used_mem < total_mem ? total_mem - used_mem : 0;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

static CUresult emu_mem_alloc(CUdeviceptr *p, size_t n)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context("cuMemAlloc");
    size_t rounded = (n + EMU_ALIGN - 1) / EMU_ALIGN * EMU_ALIGN;
    void *mem = NULL;
    if (!r && n == 0) r = fail(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc: 0 bytes");
    if (!r && (rounded < n || rounded > total_mem || used_mem > total_mem - rounded))
        r = fail(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc: %zu B requested, %zu B of %zu B in use", n, used_mem, total_mem);
    if (!r && !(mem = aligned_alloc(EMU_ALIGN, rounded)))
        r = fail(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc: the host has no %zu B to give", rounded);
    if (!r) {
        memset(mem, 0xff, n);   /* never-written memory reads as NaN */
        if (nallocs == cap_allocs) {
            cap_allocs = cap_allocs ? 2 * cap_allocs : 64;
            allocs = hdg_xrealloc(allocs, cap_allocs * sizeof *allocs);
        }
        uintptr_t b = (uintptr_t)mem;
        size_t at = (size_t)(find_alloc(b) + 1);
        memmove(allocs + at + 1, allocs + at, (nallocs - at) * sizeof *allocs);
        allocs[at].base = b;
        allocs[at].size = n;
        nallocs++;
        used_mem += rounded;
        *p = (CUdeviceptr)b;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

static CUresult emu_mem_free(CUdeviceptr dp)
{
    uintptr_t p = (uintptr_t)dp;
    if (!p) return CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    CUresult r = need_context("cuMemFree");
    long i = r ? -1 : find_alloc(p);
    if (!r && (i < 0 || allocs[i].base != p)) {
        char why[256];
        if (i >= 0 && p < allocs[i].base + allocs[i].size)
            snprintf(why, sizeof why, "points %zu B into an allocation of %zu B, not at its start", (size_t)(p - allocs[i].base),
                     allocs[i].size);
        else describe_range(p, 0, why, sizeof why);
        r = fail(CUDA_ERROR_INVALID_VALUE, "cuMemFree(0x%" PRIxPTR "): %s%s", p, why,
                 strstr(why, "was freed") ? " (double free)" : "");
        if (!pending) {   /* hdg_cuda_free drops the result: report it at the next sync */
            pending = r;
            snprintf(pending_detail, sizeof pending_detail, "%s", detail);
        }
    }
    if (!r) {
        used_mem -= (allocs[i].size + EMU_ALIGN - 1) / EMU_ALIGN * EMU_ALIGN;
        free((void *)p);
        memmove(allocs + i, allocs + i + 1, (nallocs - (size_t)i - 1) * sizeof *allocs);
        nallocs--;
        freed[nfreed++ % EMU_FREED_RING] = p;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

static CUresult emu_htod(CUdeviceptr dst, const void *src, size_t n)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context("cuMemcpyHtoD");
    if (!r) r = check_device("cuMemcpyHtoD", "destination", (uintptr_t)dst, n);
    if (!r) r = check_host("cuMemcpyHtoD", "source", src, n);
    pthread_mutex_unlock(&lock);
    if (!r && n) memcpy((void *)(uintptr_t)dst, src, n);
    return r;
}

static CUresult emu_dtoh(void *dst, CUdeviceptr src, size_t n)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context("cuMemcpyDtoH");
    if (!r) r = check_device("cuMemcpyDtoH", "source", (uintptr_t)src, n);
    if (!r) r = check_host("cuMemcpyDtoH", "destination", dst, n);
    pthread_mutex_unlock(&lock);
    if (!r && n) memcpy(dst, (const void *)(uintptr_t)src, n);
    return r;
}

static CUresult emu_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context("cuMemcpyDtoD");
    if (!r) r = check_device("cuMemcpyDtoD", "destination", (uintptr_t)dst, n);
    if (!r) r = check_device("cuMemcpyDtoD", "source", (uintptr_t)src, n);
    pthread_mutex_unlock(&lock);
    if (!r && n) memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return r;
}

static CUresult emu_memset(CUdeviceptr dst, unsigned char v, size_t n)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context("cuMemsetD8");
    if (!r) r = check_device("cuMemsetD8", "destination", (uintptr_t)dst, n);
    pthread_mutex_unlock(&lock);
    if (!r && n) memset((void *)(uintptr_t)dst, v, n);
    return r;
}

/* --------------------------------------------------------------- modules */

static hdg_cuda_emu_state state;   /* what the kernels of every module read */

static void unload_module(emu_module *m)
{
    for (int i = 0; i < m->nfn; i++) {
        m->fn[i]->magic = 0;
        free(m->fn[i]);
    }
    free(m->fn);
    m->unload(m->handle);
    m->magic = 0;
    free(m);
}

static int live_module(emu_module *m)
{
    for (emu_module *p = modules; p; p = p->next)
        if (p == m) return 1;
    return 0;
}

static CUresult bind_module(emu_module *m)
{
    hdg_cuda_emu_state **slot = m->lookup(m->handle, "hdg_emu_state");
    const int *size = m->lookup(m->handle, "hdg_emu_state_size");
    m->kernels = m->lookup(m->handle, "hdg_emu_kernels");
    if (!slot || !size || !m->kernels)
        return fail(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData: the compiled module lacks the emulator's symbols "
                    "(hdg_emu_state, hdg_emu_kernels): not built by the emulator's loader");
    if (*size != (int)sizeof state)
        return fail(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData: the module's hdg_cuda_emu_state has %d bytes, the emulator's %d "
                    "(backends/cuda/emu.c and runtime/cuda/cuda_emu.h disagree)", *size, (int)sizeof state);
    *slot = &state;
    return CUDA_SUCCESS;
}

static CUresult emu_module_load(CUmodule *out, const void *image)
{
    const char *src = image;
    if (!src) return fail(CUDA_ERROR_INVALID_VALUE, "cuModuleLoadData: no image");
    if (!memcmp(src, "\x7f" "ELF", 4) || strstr(src, ".target sm_") || strstr(src, ".target compute_"))
        return fail(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData: the emulator loads CUDA source text, not a CUBIN or PTX "
                    "(compile for the emulated device: compiler/pipeline_cuda.h does)");
    pthread_mutex_lock(&lock);
    CUresult r = need_context("cuModuleLoadData");
    hdg_cuda_emu_loader l = loader;
    int have = have_loader;
    pthread_mutex_unlock(&lock);
    if (r) return r;
    if (!have)
        return fail(CUDA_ERROR_NOT_SUPPORTED, "cuModuleLoadData: no module loader is registered with the emulator "
                    "(the compiler layer registers one: hdg_cuda_emu_use_jit in backends/cuda/emu.h)");
    hdg_error err;
    emu_module *m = hdg_xcalloc(1, sizeof *m);
    if (l.compile(src, &m->handle, &err)) {
        free(m);
        return fail(CUDA_ERROR_INVALID_SOURCE, "%s", err.msg);
    }
    m->lookup = l.lookup;
    m->unload = l.unload;
    pthread_mutex_lock(&lock);
    r = bind_module(m);
    if (!r) {
        m->magic = MOD_MAGIC;
        m->next = modules;
        modules = m;
        *out = m;
    } else {
        l.unload(m->handle);
        free(m);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

static CUresult emu_module_unload(CUmodule h)
{
    pthread_mutex_lock(&lock);
    emu_module *m = h;
    CUresult r = live_module(m) ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_HANDLE, "cuModuleUnload: not a loaded module");
    if (!r) {
        emu_module **pp = &modules;
        while (*pp != m) pp = &(*pp)->next;
        *pp = m->next;
        unload_module(m);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

static CUresult emu_module_function(CUfunction *out, CUmodule h, const char *name)
{
    pthread_mutex_lock(&lock);
    emu_module *m = h;
    CUresult r = live_module(m) ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_HANDLE, "cuModuleGetFunction: not a loaded module");
    for (int i = 0; i < m->nfn && !r; i++)
        if (!strcmp(m->fn[i]->name, name)) {
            *out = m->fn[i];
            pthread_mutex_unlock(&lock);
            return CUDA_SUCCESS;
        }
    char sym[160];
    void *run = NULL, *check = NULL;
    const int *attr = NULL;
    if (!r && strlen(name) < 128) {
        snprintf(sym, sizeof sym, "%s__hdg_emu", name);
        run = m->lookup(m->handle, sym);
        snprintf(sym, sizeof sym, "%s__hdg_emu_check", name);
        check = m->lookup(m->handle, sym);
        snprintf(sym, sizeof sym, "%s__hdg_emu_attr", name);
        attr = m->lookup(m->handle, sym);
    }
    if (!r && (!run || !check || !attr))
        r = fail(CUDA_ERROR_NOT_FOUND, "the module has no __global__ function '%s' (its kernels: %s)", name,
                 m->kernels[0] ? m->kernels : "none");
    if (!r) {
        emu_func *f = hdg_xcalloc(1, sizeof *f);
        f->magic = FN_MAGIC;
        f->mod = m;
        snprintf(f->name, sizeof f->name, "%s", name);
        memcpy(&f->run, &run, sizeof run);
        memcpy(&f->check, &check, sizeof check);
        f->max_threads = attr[0] > 0 && attr[0] < EMU_MAX_THREADS ? attr[0] : EMU_MAX_THREADS;
        f->barriers = attr[1];
        f->nargs = attr[2];
        f->max_dyn_shared = CUDA_DYN_SHARED_DEFAULT;
        m->fn = hdg_xrealloc(m->fn, (size_t)(m->nfn + 1) * sizeof *m->fn);
        m->fn[m->nfn++] = f;
        *out = f;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

static int live_func(const emu_func *f)
{
    for (emu_module *m = modules; m; m = m->next)
        for (int i = 0; i < m->nfn; i++)
            if (m->fn[i] == f) return 1;
    return 0;
}

static CUresult emu_func_attribute(int *v, int attr, CUfunction h)
{
    pthread_mutex_lock(&lock);
    const emu_func *f = h;
    CUresult r = live_func(f) ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_HANDLE, "cuFuncGetAttribute: not a function of a loaded module");
    if (!r) switch (attr) {
        case FATTR_MAX_THREADS: *v = f->max_threads; break;
        case FATTR_SHARED: case FATTR_LOCAL: case FATTR_REGS: *v = 0; break;
        case FATTR_MAX_DYN_SHARED: *v = f->max_dyn_shared; break;
        default: r = fail(CUDA_ERROR_INVALID_VALUE, "cuFuncGetAttribute: attribute %d is not emulated", attr);
        }
    pthread_mutex_unlock(&lock);
    return r;
}

/* Only the dynamic shared memory limit can be set, up to the opt-in maximum. */
static CUresult emu_func_set_attribute(CUfunction h, int attr, int v)
{
    pthread_mutex_lock(&lock);
    emu_func *f = h;
    CUresult r = live_func(f) ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_HANDLE, "cuFuncSetAttribute: not a function of a loaded module");
    if (!r && attr != FATTR_MAX_DYN_SHARED)
        r = fail(CUDA_ERROR_INVALID_VALUE, "cuFuncSetAttribute: attribute %d is not emulated", attr);
    if (!r && (v < 0 || v > shared_optin))
        r = fail(CUDA_ERROR_INVALID_VALUE, "cuFuncSetAttribute: %d B of dynamic shared memory for kernel '%s', the device "
                 "allows at most %d B", v, f->name, shared_optin);
    if (!r) f->max_dyn_shared = v;
    pthread_mutex_unlock(&lock);
    return r;
}

/* ---------------------------------------------------------------- fibers */

/* Switching: on x86-64 a few instructions that swap the callee-saved
 * registers and the stack pointer (swapcontext also saves the signal mask,
 * a system call per switch: 20-50 times slower, which dominates kernels
 * with barriers); elsewhere makecontext/swapcontext. */
#if defined(__x86_64__) && defined(__linux__) && !defined(HDG_EMU_UCONTEXT)
#define EMU_FAST_SWITCH 1
/* void hdg_emu_switch(void **save_sp, void *load_sp): pushes rbp rbx r12-r15,
 * saves rsp, loads the other stack, pops. The SSE/x87 control words are the
 * thread's: kernels do not change them. */
void hdg_emu_switch(void **save_sp, void *load_sp);
__asm__(".text\n"
        ".globl hdg_emu_switch\n"
        ".hidden hdg_emu_switch\n"
        ".type hdg_emu_switch, @function\n"
        "hdg_emu_switch:\n"
        "    pushq %rbp\n    pushq %rbx\n    pushq %r12\n    pushq %r13\n    pushq %r14\n    pushq %r15\n"
        "    movq %rsp, (%rdi)\n    movq %rsi, %rsp\n"
        "    popq %r15\n    popq %r14\n    popq %r13\n    popq %r12\n    popq %rbx\n    popq %rbp\n"
        "    ret\n"
        ".size hdg_emu_switch, .-hdg_emu_switch\n");
#endif

enum { F_READY, F_WAITING, F_DONE };

typedef struct fiber {
#ifdef EMU_FAST_SWITCH
    void *sp;
#else
    ucontext_t ctx;
#endif
    char *map;                /* guard page + stack */
    size_t size;              /* of the stack */
    int state, line;
    unsigned barriers;        /* passed so far */
    hdg_cuda_emu_dim3 idx;
#ifdef EMU_ASAN
    void *fake;
#endif
} fiber;

/* Owned by the launch in progress (launch_lock). */
static pthread_mutex_t launch_lock = PTHREAD_MUTEX_INITIALIZER;
static fiber *fibers;
static int nfibers;
static size_t fibers_stack;
static int fibers_dirty;      /* a block was abandoned: stale ASan poisoning */
#ifdef EMU_FAST_SWITCH
static void *sched_sp;
#else
static ucontext_t sched_ctx;
#endif
static int cur;               /* the running fiber */
static const emu_func *run_fn;
static void **run_params;
static char launch_error[1024];
#ifdef EMU_ASAN
static void *sched_fake;
static const void *sched_bottom;
static size_t sched_size;
#endif

static char *stack_of(fiber *f) { return f->map + 4096; }

static void unmap_fibers(void)
{
    for (int i = 0; i < nfibers; i++) munmap(fibers[i].map, fibers[i].size + 4096);
    free(fibers);
    fibers = NULL;
    nfibers = 0;
}

static void free_fibers(void)
{
    pthread_mutex_lock(&launch_lock);
    unmap_fibers();
    pthread_mutex_unlock(&launch_lock);
}

static int grow_fibers(int n)
{
    if (n <= nfibers && fibers_stack == fiber_stack) return 0;
    unmap_fibers();
    fibers = hdg_xcalloc((size_t)n, sizeof *fibers);
    fibers_stack = fiber_stack;
    for (; nfibers < n; nfibers++) {
        fiber *f = &fibers[nfibers];
        f->size = fibers_stack;
        f->map = mmap(NULL, f->size + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (f->map == MAP_FAILED) return -1;
        mprotect(f->map, 4096, PROT_NONE);   /* a stack overflow faults instead of corrupting */
#ifndef EMU_FAST_SWITCH
        getcontext(&f->ctx);
#endif
    }
    return 0;
}

static void fiber_main(void);

/* A fresh start of fiber_main on f's stack. */
static void prepare(fiber *f)
{
#ifdef EMU_FAST_SWITCH
    /* what hdg_emu_switch pops: r15..rbp, then it returns to fiber_main
     * with rsp = 8 mod 16 as after a call (the 0 above is the return address
     * fiber_main never uses) */
    uintptr_t top = ((uintptr_t)stack_of(f) + f->size) & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)(top - 64);
    for (int i = 0; i < 6; i++) sp[i] = 0;
    sp[6] = (uint64_t)(uintptr_t)fiber_main;
    sp[7] = 0;
    f->sp = sp;
#else
    f->ctx.uc_stack.ss_sp = stack_of(f);
    f->ctx.uc_stack.ss_size = f->size;
    f->ctx.uc_link = NULL;
    makecontext(&f->ctx, fiber_main, 0);
#endif
}

/* A round resumes the block's threads in order: the scheduler switches to
 * the first, each one that parks (at a barrier, or done) switches straight
 * to the next, the last back to the scheduler. */
static int block_threads;
static int from_scheduler;    /* the switch in progress started there */

static void jump(void **save, fiber *to)
{
#ifdef EMU_FAST_SWITCH
    hdg_emu_switch(save, to ? to->sp : sched_sp);
#else
    swapcontext((ucontext_t *)save, to ? &to->ctx : &sched_ctx);
#endif
}

#ifdef EMU_FAST_SWITCH
#define SAVE_OF(f) (&(f)->sp)
#define SCHED_SAVE (&sched_sp)
#else
#define SAVE_OF(f) ((void **)&(f)->ctx)
#define SCHED_SAVE ((void **)&sched_ctx)
#endif

/* In a fiber, after a switch to it: learn the scheduler's stack for ASan. */
static void arrived(void *fake)
{
#ifdef EMU_ASAN
    const void *bottom;
    size_t size;
    __sanitizer_finish_switch_fiber(fake, &bottom, &size);
    if (from_scheduler) sched_bottom = bottom, sched_size = size;
#else
    (void)fake;
#endif
}

static void start_round(void)
{
    fiber *f = &fibers[0];
    cur = 0;
    state.thread_idx = f->idx;
    from_scheduler = 1;
#ifdef EMU_ASAN
    __sanitizer_start_switch_fiber(&sched_fake, stack_of(f), f->size);
#endif
    jump(SCHED_SAVE, f);
#ifdef EMU_ASAN
    __sanitizer_finish_switch_fiber(sched_fake, NULL, NULL);
#endif
}

/* The running fiber f parks; the next live thread of the round runs. */
static void park(fiber *f, int dying)
{
    int next = cur + 1;
    while (next < block_threads && fibers[next].state == F_DONE) next++;
    fiber *to = next < block_threads ? &fibers[next] : NULL;
#ifdef EMU_ASAN
    void **fake = dying ? NULL : &f->fake;
    if (to) __sanitizer_start_switch_fiber(fake, stack_of(to), to->size);
    else __sanitizer_start_switch_fiber(fake, sched_bottom, sched_size);
#else
    (void)dying;
#endif
    if (to) {
        cur = next;
        state.thread_idx = to->idx;
    }
    from_scheduler = 0;
    jump(SAVE_OF(f), to);
#ifdef EMU_ASAN
    arrived(f->fake);
#endif
}

static void fiber_main(void)
{
    arrived(NULL);
    run_fn->run(run_params);
    fiber *f = &fibers[cur];
    f->state = F_DONE;
    park(f, 1);
}

/* __syncthreads in a fiber: park until every thread of the block is here. */
static void sync_fiber(int line)
{
    fiber *f = &fibers[cur];
    f->state = F_WAITING;
    f->line = line;
    park(f, 0);
}

/* __syncthreads in a kernel run without fibers (the loader found no barrier
 * in it, e.g. one hidden behind a macro): cannot wait, so the launch fails. */
static void sync_direct(int line)
{
    if (!launch_error[0])
        snprintf(launch_error, sizeof launch_error, "kernel '%s' reached __syncthreads (line %d) although the emulator's "
                 "source scan found none in it (a barrier behind a macro or a function pointer?)", run_fn->name, line);
}

static const char *dim_str(hdg_cuda_emu_dim3 d, char *buf)
{
    sprintf(buf, "(%u,%u,%u)", d.x, d.y, d.z);
    return buf;
}

/* After a round: every live thread waits at a barrier, or all are done. */
static int check_round(int nt)
{
    int first_wait = -1, first_done = -1;
    for (int t = 0; t < nt; t++) {
        if (fibers[t].state == F_WAITING && first_wait < 0) first_wait = t;
        if (fibers[t].state == F_DONE && first_done < 0) first_done = t;
    }
    if (first_wait < 0) return 0;
    char b1[48], b2[48], b3[48];
    const fiber *w = &fibers[first_wait];
    if (first_done >= 0) {
        snprintf(launch_error, sizeof launch_error, "block %s: thread %s returned while thread %s waits at __syncthreads "
                 "(line %d, barrier %u of the block): not all threads of a block reach the same barriers",
                 dim_str(state.block_idx, b1), dim_str(fibers[first_done].idx, b2), dim_str(w->idx, b3), w->line, w->barriers + 1);
        return -1;
    }
    for (int t = first_wait + 1; t < nt; t++)
        if (fibers[t].line != w->line) {
            snprintf(launch_error, sizeof launch_error, "block %s: thread %s waits at __syncthreads on line %d, thread %s on "
                     "line %d (barrier %u of the block): threads of a block must reach the same barriers",
                     dim_str(state.block_idx, b1), dim_str(w->idx, b2), w->line, dim_str(fibers[t].idx, b3),
                     fibers[t].line, w->barriers + 1);
            return -1;
        }
    for (int t = 0; t < nt; t++) {
        fibers[t].state = F_READY;
        fibers[t].barriers++;
    }
    return 1;
}

static int run_block_fibers(hdg_cuda_emu_dim3 bd)
{
    int nt = (int)(bd.x * bd.y * bd.z);
    for (int t = 0; t < nt; t++) {
        fiber *f = &fibers[t];
#ifdef EMU_ASAN
        if (fibers_dirty) __asan_unpoison_memory_region(stack_of(f), f->size);
        f->fake = NULL;
#endif
        prepare(f);
        f->state = F_READY;
        f->barriers = 0;
        f->idx.x = (unsigned)t % bd.x;
        f->idx.y = (unsigned)t / bd.x % bd.y;
        f->idx.z = (unsigned)t / (bd.x * bd.y);
    }
    fibers_dirty = 0;
    block_threads = nt;
    for (;;) {
        start_round();   /* a round begins with every thread ready */
        int r = check_round(nt);
        if (r <= 0) {
            fibers_dirty = r < 0;
            return r;
        }
    }
}

/* One block, thread after thread (no barriers). */
static void run_block_direct(hdg_cuda_emu_dim3 bd)
{
    for (unsigned z = 0; z < bd.z; z++)
        for (unsigned y = 0; y < bd.y; y++)
            for (unsigned x = 0; x < bd.x; x++) {
                state.thread_idx.x = x, state.thread_idx.y = y, state.thread_idx.z = z;
                run_fn->run(run_params);
            }
}

/* ---------------------------------------------------------------- launch */

static int check_ptr(const void *p, int arg, const char *field, int index)
{
    if (!p || in_device((uintptr_t)p, 0)) return 0;
    if (launch_error[0]) return 1;
    char why[256], what[96];
    describe_range((uintptr_t)p, 0, why, sizeof why);
    if (!field) snprintf(what, sizeof what, "argument %d", arg + 1);
    else if (index < 0) snprintf(what, sizeof what, "argument %d (hdg_kargs.%s)", arg + 1, field);
    else snprintf(what, sizeof what, "argument %d (hdg_kargs.%s[%d])", arg + 1, field, index);
    snprintf(launch_error, sizeof launch_error, "kernel '%s': %s: %s", run_fn->name, what, why);
    return 1;
}

static CUresult check_launch(const emu_func *f, hdg_cuda_emu_dim3 g, hdg_cuda_emu_dim3 b, unsigned shared, void **params,
                             void **extra)
{
    unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    if (extra) return fail(CUDA_ERROR_NOT_SUPPORTED, "cuLaunchKernel: 'extra' parameters are not emulated");
    if (f->nargs && !params)
        return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel: kernel '%s' takes %d arguments, params is NULL", f->name, f->nargs);
    if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z || g.y > 65535 || g.z > 65535 || b.z > 64 || threads > EMU_MAX_THREADS)
        return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel: grid (%u,%u,%u) of blocks (%u,%u,%u) is not a valid launch",
                    g.x, g.y, g.z, b.x, b.y, b.z);
    if (threads > (unsigned long long)f->max_threads)
        return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel: block of %llu threads exceeds __launch_bounds__(%d) of kernel '%s'",
                    threads, f->max_threads, f->name);
    if (shared > (unsigned)shared_optin)
        return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel: %u B of dynamic shared memory, the device has %d B", shared,
                    shared_optin);
    if (shared > (unsigned)f->max_dyn_shared)
        return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel: %u B of dynamic shared memory, kernel '%s' is allowed %d B "
                    "(raise CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES with cuFuncSetAttribute first)", shared,
                    f->name, f->max_dyn_shared);
    return CUDA_SUCCESS;
}

static CUresult emu_launch(CUfunction h, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                           unsigned shared, CUstream stream, void **params, void **extra)
{
    hdg_cuda_emu_dim3 g = { gx, gy, gz }, b = { bx, by, bz };
    const emu_func *f = h;
    pthread_mutex_lock(&lock);
    CUresult r = need_context("cuLaunchKernel");
    if (!r && !live_func(f)) r = fail(CUDA_ERROR_INVALID_HANDLE, "cuLaunchKernel: not a function of a loaded module");
    if (!r && stream) r = fail(CUDA_ERROR_NOT_SUPPORTED, "cuLaunchKernel: only the default stream is emulated");
    if (!r) r = check_launch(f, g, b, shared, params, extra);
    pthread_mutex_unlock(&lock);
    if (r) return r;

    pthread_mutex_lock(&launch_lock);
    run_fn = f;
    run_params = params;
    launch_error[0] = 0;
    state.check_ptr = check_ptr;
    pthread_mutex_lock(&lock);
    int bad = f->check(params);   /* check_ptr reads the registry */
    pthread_mutex_unlock(&lock);
    if (bad) r = fail(CUDA_ERROR_ILLEGAL_ADDRESS, "%s", launch_error);
    int nt = (int)(bx * by * bz);
    if (!r && f->barriers && grow_fibers(nt)) r = fail(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "cannot map %d fiber stacks", nt);
    void *dyn = NULL;
    if (!r && shared) dyn = aligned_alloc(EMU_ALIGN, (shared + EMU_ALIGN - 1) / EMU_ALIGN * EMU_ALIGN);
    state.block_dim = b;
    state.grid_dim = g;
    state.dyn_shared = dyn;
    state.sync = f->barriers ? sync_fiber : sync_direct;
    for (unsigned z = 0; z < gz && !r; z++)
        for (unsigned y = 0; y < gy && !r; y++)
            for (unsigned x = 0; x < gx && !r; x++) {
                state.block_idx.x = x, state.block_idx.y = y, state.block_idx.z = z;
                if (dyn) memset(dyn, 0xff, shared);
                if (f->barriers) {
                    if (run_block_fibers(b) < 0) r = fail(CUDA_ERROR_LAUNCH_FAILED, "%s", launch_error);
                } else run_block_direct(b);
                if (!r && launch_error[0]) r = fail(CUDA_ERROR_LAUNCH_FAILED, "%s", launch_error);
            }
    free(dyn);
    state.dyn_shared = NULL;
    pthread_mutex_unlock(&launch_lock);
    return r;
}

/* ---------------------------------------------------------------- events */

static CUresult emu_event_create(CUevent *e, unsigned flags)
{
    (void)flags;
    emu_event *ev = hdg_xcalloc(1, sizeof *ev);
    ev->magic = EV_MAGIC;
    *e = ev;
    return CUDA_SUCCESS;
}

static CUresult emu_event_record(CUevent e, CUstream s)
{
    emu_event *ev = e;
    if (!ev || ev->magic != EV_MAGIC) return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventRecord: not an event");
    if (s) return fail(CUDA_ERROR_NOT_SUPPORTED, "cuEventRecord: only the default stream is emulated");
    ev->recorded = 1;
    ev->t = hdg_wtime();
    return CUDA_SUCCESS;
}

static CUresult emu_event_sync(CUevent e)
{
    const emu_event *ev = e;
    return ev && ev->magic == EV_MAGIC ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_HANDLE, "cuEventSynchronize: not an event");
}

static CUresult emu_event_elapsed(float *ms, CUevent a, CUevent b)
{
    const emu_event *s = a, *t = b;
    if (!s || !t || s->magic != EV_MAGIC || t->magic != EV_MAGIC)
        return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventElapsedTime: not an event");
    if (!s->recorded || !t->recorded) return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventElapsedTime: event not recorded");
    *ms = (float)((t->t - s->t) * 1e3);
    return CUDA_SUCCESS;
}

static CUresult emu_event_destroy(CUevent e)
{
    emu_event *ev = e;
    if (!ev || ev->magic != EV_MAGIC) return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventDestroy: not an event");
    ev->magic = 0;
    free(ev);
    return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- errors */

static CUresult emu_error_name(CUresult r, const char **s)
{
    static const struct { CUresult r; const char *name; } names[] = {
        { CUDA_SUCCESS, "CUDA_SUCCESS" }, { CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE" },
        { CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY" }, { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED" },
        { CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE" }, { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE" },
        { CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE" }, { CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT" },
        { CUDA_ERROR_INVALID_SOURCE, "CUDA_ERROR_INVALID_SOURCE" }, { CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE" },
        { CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND" }, { CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS" },
        { CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" },
        { CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED" }, { CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED" },
        { CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN" },
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].r == r) {
            *s = names[i].name;
            return CUDA_SUCCESS;
        }
    *s = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

void hdg_cuda_emu_api(cuda_api *a)
{
    cuda_api t = {
        emu_init, emu_driver_version, emu_device_count, emu_device_get, emu_device_name, emu_device_attribute,
        emu_total_mem, emu_ctx_retain, emu_ctx_release, emu_ctx_set_current, emu_ctx_synchronize, emu_mem_info,
        emu_mem_alloc, emu_mem_free, emu_htod, emu_dtoh, emu_dtod, emu_memset, emu_module_load, emu_module_unload,
        emu_module_function, emu_func_attribute, emu_func_set_attribute, emu_launch, emu_event_create, emu_event_record, emu_event_sync,
        emu_event_elapsed, emu_event_destroy, emu_error_name,
    };
    *a = t;
}
