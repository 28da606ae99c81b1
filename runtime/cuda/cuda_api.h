/* cuda_api.h — private to runtime/cuda/cuda_driver.c and runtime/cuda/cuda_emu.c: the
 * few CUDA driver types and constants the runtime uses (so neither cuda.h
 * nor nvcc is needed to build) and the table of driver entry points, filled
 * either from libcuda.so.1 (dlsym) or by the host emulator (cuda_emu.h).
 * The signatures are the driver's own. */
#ifndef HDG_CUDA_API_H
#define HDG_CUDA_API_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUevent, *CUstream;

enum {
    CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1, CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3, CUDA_ERROR_NO_DEVICE = 100, CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200, CUDA_ERROR_INVALID_CONTEXT = 201, CUDA_ERROR_INVALID_SOURCE = 300,
    CUDA_ERROR_INVALID_HANDLE = 400, CUDA_ERROR_NOT_FOUND = 500, CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701, CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_NOT_SUPPORTED = 801, CUDA_ERROR_UNKNOWN = 999
};

enum {   /* CUdevice_attribute and CUfunction_attribute values */
    ATTR_MAX_THREADS_PER_BLOCK = 1, ATTR_SM_COUNT = 16, ATTR_CC_MAJOR = 75, ATTR_CC_MINOR = 76,
    ATTR_MAX_SHARED_OPTIN = 97, ATTR_MAX_THREADS_PER_SM = 39,
    FATTR_MAX_THREADS = 0, FATTR_SHARED = 1, FATTR_LOCAL = 3, FATTR_REGS = 4, FATTR_MAX_DYN_SHARED = 8
};

/* Dynamic shared memory a kernel may launch with before FATTR_MAX_DYN_SHARED is raised. */
enum { CUDA_DYN_SHARED_DEFAULT = 48 * 1024 };

/* The driver entry points (cuda_driver.c lists the symbol each comes from). */
typedef struct cuda_api {
    CUresult (*Init)(unsigned);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DeviceTotalMem)(size_t *, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxSynchronize)(void);
    CUresult (*MemGetInfo)(size_t *, size_t *);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*FuncGetAttribute)(int *, int, CUfunction);
    CUresult (*FuncSetAttribute)(CUfunction, int, int);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void **, void **);
    CUresult (*EventCreate)(CUevent *, unsigned);
    CUresult (*EventRecord)(CUevent, CUstream);
    CUresult (*EventSynchronize)(CUevent);
    CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
    CUresult (*EventDestroy)(CUevent);
    CUresult (*GetErrorName)(CUresult, const char **);
} cuda_api;

/* The emulator's table (runtime/cuda/cuda_emu.c). */
void hdg_cuda_emu_api(cuda_api *api);
/* What the emulator knows of its last failed call on this thread (e.g. "cuMemcpyHtoD:
 * destination 0x... + 800 B is not inside one device allocation"), "" if nothing. */
const char *hdg_cuda_emu_detail(void);

#endif
