/* cuda_driver.c — libcuda.so.1 through dlopen, or the host emulator with
 * HDGC_LIBCUDA=emulator (see cuda_driver.h). The few driver types and
 * constants used are declared in cuda_api.h, so neither cuda.h nor nvcc is
 * needed at build time. Entry points with versioned names (_v2) are looked
 * up by the names the driver exports. */
#include "runtime/cuda/cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda/cuda_api.h"
#include "runtime/cuda/cuda_emu.h"
#include "support/util.h"

static const struct { size_t off; const char *names[2]; } symbols[] = {
#define SYM(field, n1, n2) { offsetof(cuda_api, field), { n1, n2 } }
    SYM(Init, "cuInit", NULL),
    SYM(DriverGetVersion, "cuDriverGetVersion", NULL),
    SYM(DeviceGetCount, "cuDeviceGetCount", NULL),
    SYM(DeviceGet, "cuDeviceGet", NULL),
    SYM(DeviceGetName, "cuDeviceGetName", NULL),
    SYM(DeviceGetAttribute, "cuDeviceGetAttribute", NULL),
    SYM(DeviceTotalMem, "cuDeviceTotalMem_v2", NULL),
    SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL),
    SYM(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
    SYM(CtxSetCurrent, "cuCtxSetCurrent", NULL),
    SYM(CtxSynchronize, "cuCtxSynchronize", NULL),
    SYM(MemGetInfo, "cuMemGetInfo_v2", NULL),
    SYM(MemAlloc, "cuMemAlloc_v2", NULL),
    SYM(MemFree, "cuMemFree_v2", NULL),
    SYM(MemcpyHtoD, "cuMemcpyHtoD_v2", NULL),
    SYM(MemcpyDtoH, "cuMemcpyDtoH_v2", NULL),
    SYM(MemcpyDtoD, "cuMemcpyDtoD_v2", NULL),
    SYM(MemsetD8, "cuMemsetD8_v2", NULL),
    SYM(ModuleLoadData, "cuModuleLoadData", NULL),
    SYM(ModuleUnload, "cuModuleUnload", NULL),
    SYM(ModuleGetFunction, "cuModuleGetFunction", NULL),
    SYM(FuncGetAttribute, "cuFuncGetAttribute", NULL),
    SYM(FuncSetAttribute, "cuFuncSetAttribute", NULL),
    SYM(LaunchKernel, "cuLaunchKernel", NULL),
    SYM(EventCreate, "cuEventCreate", NULL),
    SYM(EventRecord, "cuEventRecord", NULL),
    SYM(EventSynchronize, "cuEventSynchronize", NULL),
    SYM(EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
    SYM(EventDestroy, "cuEventDestroy_v2", "cuEventDestroy"),
    SYM(GetErrorName, "cuGetErrorName", NULL),
#undef SYM
};

struct hdg_cuda_device {
    cuda_api *api;
    CUdevice dev;
    CUcontext ctx;
    hdg_cuda_props props;
};

struct hdg_cuda_module {
    hdg_cuda_device *dev;
    CUmodule mod;
};

/* The library is loaded once per process and kept (unloading a driver is
 * never worth the trouble); loading failures are remembered too. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static cuda_api api_table;
static int api_state;          /* 0 not tried, 1 loaded, -1 failed */
static int api_emulated;       /* the table is the host emulator's */
static char api_error[512];

static void load_api(void)
{
    const char *env = getenv("HDGC_LIBCUDA");
    const char *name = env && *env ? env : "libcuda.so.1";
    if (!strcmp(name, "emulator")) {
        hdg_cuda_emu_api(&api_table);
        api_emulated = 1;
        api_state = 1;
        return;
    }
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(api_error, sizeof api_error, "no CUDA driver: %s not found (%s)", name, why ? why : "dlopen failed");
        api_state = -1;
        return;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof *symbols; i++) {
        void *f = NULL;
        for (int j = 0; j < 2 && !f && symbols[i].names[j]; j++) f = dlsym(h, symbols[i].names[j]);
        if (!f) {
            snprintf(api_error, sizeof api_error, "CUDA driver %s is too old: it lacks %s", name, symbols[i].names[0]);
            api_state = -1;
            dlclose(h);
            return;
        }
        memcpy((char *)&api_table + symbols[i].off, &f, sizeof f);
    }
    api_state = 1;
}

static hdg_status get_api(cuda_api **api, hdg_error *err)
{
    pthread_mutex_lock(&load_lock);
    if (!api_state) load_api();
    int state = api_state;
    pthread_mutex_unlock(&load_lock);
    if (state < 0) return hdg_fail(err, HDG_EDEVICE, "%s", api_error);
    *api = &api_table;
    return HDG_OK;
}

static const char *cu_name(cuda_api *api, CUresult r)
{
    const char *s = NULL;
    if (api->GetErrorName(r, &s) != CUDA_SUCCESS || !s) return "unknown CUDA error";
    return s;
}

/* The emulator's account of its last failure, as ": detail" ("" on a GPU). */
static const char *detail(char *buf, size_t n)
{
    const char *d = api_emulated ? hdg_cuda_emu_detail() : "";
    snprintf(buf, n, "%s%s", *d ? ": " : "", d);
    return buf;
}

/* Fails with "what: CUDA_ERROR_..." unless r is success. */
static hdg_status check(cuda_api *api, CUresult r, const char *what, hdg_error *err)
{
    if (r == CUDA_SUCCESS) return HDG_OK;
    char d[1600];
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        return hdg_fail(err, HDG_EDEVICE, "out of device memory: %s: %s%s", what, cu_name(api, r), detail(d, sizeof d));
    return hdg_fail(err, HDG_EDEVICE, "%s: %s (%d)%s", what, cu_name(api, r), r, detail(d, sizeof d));
}

static hdg_status init_driver(cuda_api **api, int *count, hdg_error *err)
{
    hdg_status st = get_api(api, err);
    if (st) return st;
    CUresult r = (*api)->Init(0);
    if (r == CUDA_ERROR_NO_DEVICE) return hdg_fail(err, HDG_EDEVICE, "no CUDA-capable GPU: cuInit: %s", cu_name(*api, r));
    if ((st = check(*api, r, "CUDA driver initialisation failed: cuInit", err))) return st;
    *count = 0;
    return check(*api, (*api)->DeviceGetCount(count), "cuDeviceGetCount", err);
}

hdg_status hdg_cuda_device_count(int *count, hdg_error *err)
{
    cuda_api *api;
    return init_driver(&api, count, err);
}

hdg_status hdg_cuda_device_open(int ordinal, hdg_cuda_device **out, hdg_error *err)
{
    *out = NULL;
    cuda_api *api;
    int count = 0;
    hdg_status st = init_driver(&api, &count, err);
    if (st) return st;
    if (count == 0) return hdg_fail(err, HDG_EDEVICE, "no CUDA-capable GPU (cuDeviceGetCount = 0)");
    if (ordinal < 0 || ordinal >= count)
        return hdg_fail(err, HDG_EINPUT, "GPU %d does not exist (this machine has %d)", ordinal, count);
    hdg_cuda_device *d = hdg_xcalloc(1, sizeof *d);
    d->api = api;
    hdg_cuda_props *p = &d->props;
    p->ordinal = ordinal;
    p->emulated = api_emulated;
    int attr[6] = { ATTR_CC_MAJOR, ATTR_CC_MINOR, ATTR_SM_COUNT, ATTR_MAX_THREADS_PER_BLOCK, ATTR_MAX_SHARED_OPTIN,
                    ATTR_MAX_THREADS_PER_SM };
    int *dst[6] = { &p->cc_major, &p->cc_minor, &p->sm_count, &p->max_threads_per_block, &p->max_shared_per_block,
                    &p->max_threads_per_sm };
    if (!(st = check(api, api->DeviceGet(&d->dev, ordinal), "cuDeviceGet", err)) &&
        !(st = check(api, api->DeviceGetName(p->name, sizeof p->name, d->dev), "cuDeviceGetName", err)) &&
        !(st = check(api, api->DeviceTotalMem(&p->total_mem, d->dev), "cuDeviceTotalMem", err)) &&
        !(st = check(api, api->DriverGetVersion(&p->driver_version), "cuDriverGetVersion", err))) {
        for (int i = 0; i < 6 && !st; i++)
            st = check(api, api->DeviceGetAttribute(dst[i], attr[i], d->dev), "cuDeviceGetAttribute", err);
    }
    if (!st) st = check(api, api->DevicePrimaryCtxRetain(&d->ctx, d->dev), "cuDevicePrimaryCtxRetain", err);
    if (!st) {
        st = check(api, api->CtxSetCurrent(d->ctx), "cuCtxSetCurrent", err);
        if (st) api->DevicePrimaryCtxRelease(d->dev);
    }
    if (st) {
        free(d);
        return st;
    }
    *out = d;
    return HDG_OK;
}

void hdg_cuda_device_close(hdg_cuda_device *d)
{
    if (!d) return;
    d->api->CtxSynchronize();
    d->api->DevicePrimaryCtxRelease(d->dev);
    free(d);
}

const hdg_cuda_props *hdg_cuda_device_props(const hdg_cuda_device *d) { return &d->props; }

hdg_status hdg_cuda_device_use(hdg_cuda_device *d, hdg_error *err)
{
    return check(d->api, d->api->CtxSetCurrent(d->ctx), "cuCtxSetCurrent", err);
}

/* ------------------------------------------------------------------ memory */

static void human(char *buf, size_t n, double bytes)
{
    if (bytes >= 1024.0 * 1024 * 1024) snprintf(buf, n, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    else snprintf(buf, n, "%.1f MiB", bytes / (1024.0 * 1024));
}

hdg_status hdg_cuda_alloc(hdg_cuda_device *d, size_t bytes, hdg_cuptr *p, hdg_error *err)
{
    *p = 0;
    if (!bytes) return HDG_OK;
    CUresult r = d->api->MemAlloc(p, bytes);
    if (r == CUDA_SUCCESS) return HDG_OK;
    *p = 0;
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        size_t fr = 0, tot = 0;
        d->api->MemGetInfo(&fr, &tot);
        char want[32], have[32], all[32];
        human(want, sizeof want, (double)bytes);
        human(have, sizeof have, (double)fr);
        human(all, sizeof all, (double)tot);
        return hdg_fail(err, HDG_EDEVICE, "out of device memory: allocating %s on %s failed (%s free of %s)",
                        want, d->props.name, have, all);
    }
    return check(d->api, r, "cuMemAlloc", err);
}

void hdg_cuda_free(hdg_cuda_device *d, hdg_cuptr p)
{
    if (d && p) d->api->MemFree(p);
}

hdg_status hdg_cuda_upload(hdg_cuda_device *d, hdg_cuptr dst, const void *src, size_t bytes, hdg_error *err)
{
    return bytes ? check(d->api, d->api->MemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD", err) : HDG_OK;
}

hdg_status hdg_cuda_download(hdg_cuda_device *d, void *dst, hdg_cuptr src, size_t bytes, hdg_error *err)
{
    return bytes ? check(d->api, d->api->MemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH", err) : HDG_OK;
}

hdg_status hdg_cuda_copy(hdg_cuda_device *d, hdg_cuptr dst, hdg_cuptr src, size_t bytes, hdg_error *err)
{
    return bytes ? check(d->api, d->api->MemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD", err) : HDG_OK;
}

hdg_status hdg_cuda_memset0(hdg_cuda_device *d, hdg_cuptr dst, size_t bytes, hdg_error *err)
{
    return bytes ? check(d->api, d->api->MemsetD8(dst, 0, bytes), "cuMemsetD8", err) : HDG_OK;
}

hdg_status hdg_cuda_sync(hdg_cuda_device *d, hdg_error *err)
{
    return check(d->api, d->api->CtxSynchronize(), "kernel execution failed (cuCtxSynchronize)", err);
}

hdg_status hdg_cuda_mem_info(hdg_cuda_device *d, size_t *free_b, size_t *total_b, hdg_error *err)
{
    return check(d->api, d->api->MemGetInfo(free_b, total_b), "cuMemGetInfo", err);
}

/* ----------------------------------------------------------------- modules */

hdg_status hdg_cuda_module_load(hdg_cuda_device *d, const void *image, hdg_cuda_module **out,
                                hdg_error *err)
{
    *out = NULL;
    CUmodule m = NULL;
    hdg_status st = check(d->api, d->api->ModuleLoadData(&m, image), "loading the kernels (cuModuleLoadData)", err);
    if (st) return st;
    hdg_cuda_module *mod = hdg_xcalloc(1, sizeof *mod);
    mod->dev = d;
    mod->mod = m;
    *out = mod;
    return HDG_OK;
}

void hdg_cuda_module_unload(hdg_cuda_module *mod)
{
    if (!mod) return;
    mod->dev->api->ModuleUnload(mod->mod);
    free(mod);
}

hdg_status hdg_cuda_module_function(hdg_cuda_module *mod, const char *name, hdg_cuda_func **fn,
                                    hdg_error *err)
{
    CUfunction f = NULL;
    CUresult r = mod->dev->api->ModuleGetFunction(&f, mod->mod, name);
    char d[1600];
    if (r != CUDA_SUCCESS)
        return hdg_fail(err, HDG_EINTERNAL, "kernel '%s' not found in the loaded CUDA module: %s%s", name,
                        cu_name(mod->dev->api, r), detail(d, sizeof d));
    *fn = (hdg_cuda_func *)f;
    return HDG_OK;
}

hdg_status hdg_cuda_func_attributes(hdg_cuda_device *d, hdg_cuda_func *fn, hdg_cuda_func_attrs *a,
                                    hdg_error *err)
{
    CUfunction f = (CUfunction)fn;
    hdg_status st;
    if ((st = check(d->api, d->api->FuncGetAttribute(&a->registers, FATTR_REGS, f), "cuFuncGetAttribute", err)) ||
        (st = check(d->api, d->api->FuncGetAttribute(&a->local_bytes, FATTR_LOCAL, f), "cuFuncGetAttribute", err)) ||
        (st = check(d->api, d->api->FuncGetAttribute(&a->max_threads, FATTR_MAX_THREADS, f), "cuFuncGetAttribute", err)))
        return st;
    return check(d->api, d->api->FuncGetAttribute(&a->shared_bytes, FATTR_SHARED, f), "cuFuncGetAttribute", err);
}

hdg_status hdg_cuda_func_set_max_shared(hdg_cuda_device *d, hdg_cuda_func *fn, const char *what, int bytes,
                                        hdg_error *err)
{
    CUresult r = d->api->FuncSetAttribute((CUfunction)fn, FATTR_MAX_DYN_SHARED, bytes);
    if (r == CUDA_SUCCESS) return HDG_OK;
    char dt[1600];
    return hdg_fail(err, HDG_EDEVICE, "allowing CUDA kernel '%s' %d B of dynamic shared memory "
                    "(cuFuncSetAttribute, MAX_DYNAMIC_SHARED_SIZE_BYTES) failed: %s (%d)%s",
                    what, bytes, cu_name(d->api, r), r, detail(dt, sizeof dt));
}

/* HDGC_CUDA_SYNC=1: wait for every kernel as it is launched, so that a fault is
 * reported with the name of the kernel that caused it (slow; for diagnosis). */
static int sync_each_launch(void)
{
    static int on = -1;
    if (on < 0) on = hdg_env_flag("HDGC_CUDA_SYNC");
    return on;
}

hdg_status hdg_cuda_launch(hdg_cuda_device *d, hdg_cuda_func *fn, const char *what, unsigned grid,
                           unsigned block, unsigned shared_bytes, void **params, hdg_error *err)
{
    if (!grid) return HDG_OK;
    CUresult r = d->api->LaunchKernel((CUfunction)fn, grid, 1, 1, block, 1, 1, shared_bytes, NULL, params, NULL);
    char dt[1600];
    if (r != CUDA_SUCCESS)
        return hdg_fail(err, HDG_EDEVICE, "launching CUDA kernel '%s' (grid %u, block %u, %u B shared) failed: %s (%d)%s%s",
                        what, grid, block, shared_bytes, cu_name(d->api, r), r, detail(dt, sizeof dt),
                        r == CUDA_ERROR_OUT_OF_MEMORY ? " (a kernel with a thread per item reserves its stack for every "
                                                        "resident thread: HDGC_CUDA_MAPPING=block needs less)" : "");
    if (!sync_each_launch() || (r = d->api->CtxSynchronize()) == CUDA_SUCCESS) return HDG_OK;
    return hdg_fail(err, HDG_EDEVICE, "CUDA kernel '%s' (grid %u, block %u, %u B shared) failed while running: %s (%d)%s",
                    what, grid, block, shared_bytes, cu_name(d->api, r), r, detail(dt, sizeof dt));
}

/* ------------------------------------------------------------------ timing */

hdg_status hdg_cuda_timer_start(hdg_cuda_device *d, hdg_cuda_timer *t, hdg_error *err)
{
    CUevent a = NULL, b = NULL;
    hdg_status st = check(d->api, d->api->EventCreate(&a, 0), "cuEventCreate", err);
    if (!st && (st = check(d->api, d->api->EventCreate(&b, 0), "cuEventCreate", err))) d->api->EventDestroy(a);
    if (st) return st;
    t->start = a;
    t->stop = b;
    return check(d->api, d->api->EventRecord(a, NULL), "cuEventRecord", err);
}

hdg_status hdg_cuda_timer_stop(hdg_cuda_device *d, hdg_cuda_timer *t, double *seconds, hdg_error *err)
{
    float ms = 0;
    hdg_status st = check(d->api, d->api->EventRecord(t->stop, NULL), "cuEventRecord", err);
    if (!st) st = check(d->api, d->api->EventSynchronize(t->stop), "kernel execution failed (cuEventSynchronize)", err);
    if (!st) st = check(d->api, d->api->EventElapsedTime(&ms, t->start, t->stop), "cuEventElapsedTime", err);
    d->api->EventDestroy(t->start);
    d->api->EventDestroy(t->stop);
    t->start = t->stop = NULL;
    *seconds = ms * 1e-3;
    return st;
}
