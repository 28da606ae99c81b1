/* cusparse.c — libcusparse through dlopen and its CSR SpMV (see cusparse.h).
 * The handful of cuSPARSE types and enum values used are declared here, from
 * cusparse.h and library_types.h of CUDA 12/13 (the values are stable). */
#include "bench/cusparse.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/dl.h"
#include "support/util.h"

typedef int cusparseStatus_t;
typedef void *cusparseHandle_t, *cusparseSpMatDescr_t, *cusparseDnVecDescr_t;

enum {
    CUSPARSE_STATUS_SUCCESS = 0,
    CUSPARSE_INDEX_32I = 2,                 /* cusparseIndexType_t */
    CUSPARSE_INDEX_BASE_ZERO = 0,           /* cusparseIndexBase_t */
    CUSPARSE_OPERATION_NON_TRANSPOSE = 0,   /* cusparseOperation_t */
    CUSPARSE_SPMV_ALG_DEFAULT = 0,          /* cusparseSpMVAlg_t */
    CUDA_R_64F = 1,                         /* cudaDataType */
    MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2   /* libraryPropertyType */
};

typedef struct cusparse_api {
    cusparseStatus_t (*Create)(cusparseHandle_t *);
    cusparseStatus_t (*Destroy)(cusparseHandle_t);
    cusparseStatus_t (*CreateCsr)(cusparseSpMatDescr_t *, int64_t rows, int64_t cols, int64_t nnz,
                                  void *rowptr, void *col, void *val, int rowptr_type, int col_type,
                                  int base, int value_type);
    cusparseStatus_t (*CreateDnVec)(cusparseDnVecDescr_t *, int64_t size, void *values, int value_type);
    cusparseStatus_t (*DestroySpMat)(cusparseSpMatDescr_t);
    cusparseStatus_t (*DestroyDnVec)(cusparseDnVecDescr_t);
    cusparseStatus_t (*SpMV_bufferSize)(cusparseHandle_t, int op, const void *alpha, cusparseSpMatDescr_t A,
                                        cusparseDnVecDescr_t x, const void *beta, cusparseDnVecDescr_t y,
                                        int compute_type, int alg, size_t *bytes);
    cusparseStatus_t (*SpMV)(cusparseHandle_t, int op, const void *alpha, cusparseSpMatDescr_t A,
                             cusparseDnVecDescr_t x, const void *beta, cusparseDnVecDescr_t y,
                             int compute_type, int alg, void *buffer);
    const char *(*GetErrorString)(cusparseStatus_t);
    cusparseStatus_t (*GetProperty)(int type, int *value);
} cusparse_api;

static const hdg_dl_sym symbols[] = {
#define SYM(field) { offsetof(cusparse_api, field), "cusparse" #field }
    SYM(Create), SYM(Destroy), SYM(CreateCsr), SYM(CreateDnVec), SYM(DestroySpMat), SYM(DestroyDnVec),
    SYM(SpMV_bufferSize), SYM(SpMV), SYM(GetErrorString), SYM(GetProperty),
#undef SYM
};

/* Loaded once per process and kept; a failure is remembered too. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static cusparse_api api;
static int api_state;           /* 0 not tried, 1 loaded, -1 failed */
static char api_error[1024], api_version[32], api_library[256];

static void *open_lib(hdg_str *tried)
{
    static const char *const names[] = { "libcusparse.so.12", "libcusparse.so", "libcusparse.so.13" };
    return hdg_dlopen_first("HDGC_LIBCUSPARSE", names, 3, api_library, sizeof api_library, tried);
}

static void load_api(void)
{
    hdg_str tried;
    hdg_str_init(&tried);
    void *h = open_lib(&tried);
    if (!h) {
        const char *why = dlerror();
        snprintf(api_error, sizeof api_error, "cuSPARSE not available: libcusparse not found (tried %s: %s)",
                 tried.s, why ? why : "dlopen failed");
        hdg_str_free(&tried);
        api_state = -1;
        return;
    }
    hdg_str_free(&tried);
    const char *missing = hdg_dl_resolve(h, symbols, sizeof symbols / sizeof *symbols, &api);
    if (missing) {
        snprintf(api_error, sizeof api_error, "cuSPARSE library too old: %s lacks %s (CUDA 11 or newer needed)",
                 api_library, missing);
        api_state = -1;
        dlclose(h);
        return;
    }
    int v[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        if (api.GetProperty(MAJOR_VERSION + i, &v[i]) != CUSPARSE_STATUS_SUCCESS) v[i] = -1;
    snprintf(api_version, sizeof api_version, "%d.%d.%d", v[0], v[1], v[2]);
    api_state = 1;
}

hdg_status hdg_cusparse_load(char *version, size_t version_size, char *library, size_t library_size,
                             hdg_error *err)
{
    pthread_mutex_lock(&load_lock);
    if (!api_state) load_api();
    int state = api_state;
    pthread_mutex_unlock(&load_lock);
    if (state < 0) return hdg_fail(err, HDG_EDEVICE, "%s", api_error);
    if (version && version_size) snprintf(version, version_size, "%s", api_version);
    if (library && library_size) snprintf(library, library_size, "%s", api_library);
    return HDG_OK;
}

const char *hdg_cusparse_status_string(int status)
{
    if (api_state != 1) return "cuSPARSE not loaded";
    const char *s = api.GetErrorString(status);
    return s ? s : "unknown cuSPARSE status";
}

static hdg_status check(cusparseStatus_t s, const char *call, hdg_error *err)
{
    if (s == CUSPARSE_STATUS_SUCCESS) return HDG_OK;
    return hdg_fail(err, HDG_EDEVICE, "cuSPARSE: %s: %s (status %d)", call, hdg_cusparse_status_string(s), s);
}

/* ------------------------------------------------------------------- SpMV */

static const double one = 1.0, zero = 0.0;

static hdg_status upload(hdg_cuda_device *dev, const void *host, size_t bytes, hdg_cuptr *p, hdg_error *err)
{
    hdg_status st = hdg_cuda_alloc(dev, bytes, p, err);
    if (!st) st = hdg_cuda_upload(dev, *p, host, bytes, err);
    return st;
}

hdg_status hdg_cusparse_spmv_init(hdg_cusparse_spmv *S, hdg_cuda_device *dev, const hdg_csr *C,
                                  hdg_cuptr x, hdg_cuptr y, hdg_error *err)
{
    memset(S, 0, sizeof *S);
    S->dev = dev;
    hdg_status st = hdg_cusparse_load(NULL, 0, NULL, 0, err);
    if (st) return st;
    st = check(api.Create(&S->handle), "cusparseCreate", err);
    if (!st) st = upload(dev, C->rowptr, sizeof(int) * ((size_t)C->n + 1), &S->rowptr, err);
    if (!st) st = upload(dev, C->col, sizeof(int) * (size_t)C->nnz, &S->col, err);
    if (!st) st = upload(dev, C->val, sizeof(double) * (size_t)C->nnz, &S->val, err);
    if (!st)
        st = check(api.CreateCsr(&S->mat, C->n, C->n, C->nnz, (void *)(uintptr_t)S->rowptr,
                                 (void *)(uintptr_t)S->col, (void *)(uintptr_t)S->val, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
                   "cusparseCreateCsr", err);
    if (!st) st = check(api.CreateDnVec(&S->vx, C->n, (void *)(uintptr_t)x, CUDA_R_64F), "cusparseCreateDnVec", err);
    if (!st) st = check(api.CreateDnVec(&S->vy, C->n, (void *)(uintptr_t)y, CUDA_R_64F), "cusparseCreateDnVec", err);
    if (!st)
        st = check(api.SpMV_bufferSize(S->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, S->mat, S->vx, &zero,
                                       S->vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &S->buffer_bytes),
                   "cusparseSpMV_bufferSize", err);
    if (!st) st = hdg_cuda_alloc(dev, S->buffer_bytes, &S->buffer, err);
    if (st) hdg_cusparse_spmv_free(S);
    return st;
}

hdg_status hdg_cusparse_spmv_run(hdg_cusparse_spmv *S, hdg_error *err)
{
    return check(api.SpMV(S->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, S->mat, S->vx, &zero, S->vy,
                          CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, (void *)(uintptr_t)S->buffer),
                 "cusparseSpMV", err);
}

void hdg_cusparse_spmv_free(hdg_cusparse_spmv *S)
{
    if (!S->dev) return;
    if (S->vx) api.DestroyDnVec(S->vx);
    if (S->vy) api.DestroyDnVec(S->vy);
    if (S->mat) api.DestroySpMat(S->mat);
    if (S->handle) api.Destroy(S->handle);
    hdg_cuptr *p[] = { &S->rowptr, &S->col, &S->val, &S->buffer };
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) hdg_cuda_free(S->dev, *p[i]);
    memset(S, 0, sizeof *S);
}
