/* cusparse.h — the few cuSPARSE calls hdgc needs: CSR SpMV through the
 * generic API, the general-purpose reference the dense block format is
 * measured against (seed 000, `hdgc bench spmv --backend cuda`).
 *
 * libcusparse is loaded with dlopen on first use, like libcuda and libnvrtc,
 * so the build needs no CUDA headers and one binary runs without it. It is
 * looked up as $HDGC_LIBCUSPARSE when set, else libcusparse.so.12, .so, .so.13
 * on the loader's path, then under /usr/local/cuda/lib64/. Errors are
 * HDG_EDEVICE:
 *   "cuSPARSE not available: libcusparse not found (tried ...)"
 *   "cuSPARSE library too old: /path lacks cusparseSpMV"
 *   "cuSPARSE: cusparseSpMV: <cusparseGetErrorString>"
 *
 * cuSPARSE runs on the CUDA runtime's primary context of the current
 * device, which is the context hdg_cuda_device_open retains and makes
 * current, so device pointers from hdg_cuda_alloc work with it. Its kernels
 * go to the default stream, like hdg_cuda_launch and the event timer. */
#ifndef HDG_CUSPARSE_H
#define HDG_CUSPARSE_H

#include <stddef.h>

#include "hdg.h"
#include "runtime/solve/csr.h"
#include "runtime/cuda/cuda_driver.h"

/* Loads the library (once per process; a failure is remembered). version
 * (may be NULL) receives e.g. "12.6.3", library the name that loaded. */
hdg_status hdg_cusparse_load(char *version, size_t version_size, char *library, size_t library_size,
                             hdg_error *err);

/* cusparseGetErrorString of a cusparseStatus_t (needs no GPU); "cuSPARSE
 * not loaded" before a successful hdg_cusparse_load. */
const char *hdg_cusparse_status_string(int status);

/* y = C x on the device (double values, 32-bit indices, base 0,
 * CUSPARSE_SPMV_ALG_DEFAULT). x and y are device vectors of C->n doubles. */
typedef struct hdg_cusparse_spmv {
    hdg_cuda_device *dev;
    void *handle, *mat, *vx, *vy;    /* cusparseHandle_t and descriptors */
    hdg_cuptr rowptr, col, val;      /* the matrix on the device (owned) */
    hdg_cuptr buffer;                /* SpMV work space (owned) */
    size_t buffer_bytes;
} hdg_cusparse_spmv;

/* Loads the library if needed, creates a handle, uploads C and sizes the
 * work space. On failure everything is released. */
hdg_status hdg_cusparse_spmv_init(hdg_cusparse_spmv *S, hdg_cuda_device *dev, const hdg_csr *C,
                                  hdg_cuptr x, hdg_cuptr y, hdg_error *err);
/* Launches one SpMV (asynchronous, like a kernel launch). */
hdg_status hdg_cusparse_spmv_run(hdg_cusparse_spmv *S, hdg_error *err);
void hdg_cusparse_spmv_free(hdg_cusparse_spmv *S);

#endif
