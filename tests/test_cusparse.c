/* test_cusparse.c — the cuSPARSE loader (bench/cusparse.h).
 *   (no argument)  the library of this machine loads, every symbol resolves,
 *                  the version and the status strings come back (no GPU
 *                  needed); skips (77) when libcusparse is absent
 *   missing        $HDGC_LIBCUSPARSE names a missing file: the message
 *   old            $HDGC_LIBCUSPARSE names a library without the symbols
 *   gpu            CSR SpMV by cuSPARSE on GPU 0 against the host CSR SpMV;
 *                  skips (77) without a real GPU or without libcusparse */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cusparse.h"
#include "runtime/solve/csr.h"
#include "runtime/cuda/cuda_driver.h"
#include "support/util.h"
#include "test.h"
#include "test_device.h"

static int test_load(void)
{
    CHECK(!strcmp(hdg_cusparse_status_string(0), "cuSPARSE not loaded"), "before loading: '%s'",
          hdg_cusparse_status_string(0));
    char version[32] = "", library[256] = "";
    hdg_error err;
    hdg_error_clear(&err);
    if (hdg_cusparse_load(version, sizeof version, library, sizeof library, &err)) {
        if (strstr(err.msg, "not found")) {
            printf("skipped: %s\n", err.msg);
            return 77;
        }
        CHECK(0, "%s", err.msg);
        return test_summary("cusparse");
    }
    int major = 0, minor = -1, patch = -1;
    CHECK(sscanf(version, "%d.%d.%d", &major, &minor, &patch) == 3, "version '%s'", version);
    CHECK(major >= 11 && minor >= 0 && patch >= 0, "version '%s'", version);
    CHECK(strstr(library, "cusparse") != NULL, "library '%s'", library);
    CHECK(!strcmp(hdg_cusparse_status_string(0), "success"), "status 0: '%s'", hdg_cusparse_status_string(0));
    CHECK(strstr(hdg_cusparse_status_string(3), "invalid value") != NULL, "status 3: '%s'",
          hdg_cusparse_status_string(3));
    char again[32] = "";
    CHECK(!hdg_cusparse_load(again, sizeof again, NULL, 0, &err) && !strcmp(again, version), "second load: '%s'",
          again);
    printf("cuSPARSE %s from %s\n", version, library);
    return test_summary("cusparse");
}

/* A load that must fail with a message containing want (also through
 * hdg_cusparse_spmv_init, which must leave nothing behind). */
static int test_fail(const char *want)
{
    hdg_error err;
    hdg_error_clear(&err);
    hdg_status st = hdg_cusparse_load(NULL, 0, NULL, 0, &err);
    CHECK(st == HDG_EDEVICE, "status %d", st);
    CHECK(strstr(err.msg, want) != NULL, "message '%s' lacks '%s'", err.msg, want);
    hdg_csr C = {0};
    hdg_cusparse_spmv S;
    hdg_error_clear(&err);
    st = hdg_cusparse_spmv_init(&S, NULL, &C, 0, 0, &err);
    CHECK(st == HDG_EDEVICE && strstr(err.msg, want), "spmv_init: %d '%s'", st, err.msg);
    CHECK(!S.handle && !S.dev, "spmv_init left state behind");
    hdg_cusparse_spmv_free(&S);
    return test_summary("cusparse_fail");
}

/* A random sparse n x n matrix with 1..7 entries per row, columns ascending. */
static void random_csr(int n, hdg_csr *C)
{
    unsigned s = 12345;
    C->n = n;
    C->rowptr = hdg_xmalloc(sizeof(int) * (n + 1));
    C->col = hdg_xmalloc(sizeof(int) * 7 * n);
    C->val = hdg_xmalloc(sizeof(double) * 7 * n);
    C->rowptr[0] = 0;
    int nnz = 0;
    for (int i = 0; i < n; i++) {
        int c = i - 3 < 0 ? 0 : i - 3;
        for (; c <= i + 3 && c < n; c++) {
            s = s * 1103515245u + 12345u;
            if (c != i && (s >> 16) % 3 == 0) continue;
            C->col[nnz] = c;
            C->val[nnz++] = (double)((s >> 8) % 1000) / 500.0 - 1.0;
        }
        C->rowptr[i + 1] = nnz;
    }
    C->nnz = nnz;
}

static int test_gpu(void)
{
    hdg_error err;
    hdg_error_clear(&err);
    if (hdg_cusparse_load(NULL, 0, NULL, 0, &err)) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    hdg_cuda_device *dev;
    int rc = test_open_device(&dev);
    if (rc >= 0) return rc;
    if (hdg_cuda_device_props(dev)->emulated) {
        printf("skipped: cuSPARSE does not run on the emulator\n");
        hdg_cuda_device_close(dev);
        return 77;
    }
    int n = 100000;
    hdg_csr C;
    random_csr(n, &C);
    double *x = hdg_xmalloc(sizeof(double) * n), *y = hdg_xmalloc(sizeof(double) * n),
           *yd = hdg_xmalloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) x[i] = (double)(i % 17) - 8.0;
    hdg_csr_spmv(&C, x, y);
    hdg_cuptr dx = 0, dy = 0;
    hdg_cusparse_spmv S;
    memset(&S, 0, sizeof S);
    hdg_status st = hdg_cuda_alloc(dev, sizeof(double) * n, &dx, &err);
    if (!st) st = hdg_cuda_alloc(dev, sizeof(double) * n, &dy, &err);
    if (!st) st = hdg_cuda_upload(dev, dx, x, sizeof(double) * n, &err);
    if (!st) st = hdg_cusparse_spmv_init(&S, dev, &C, dx, dy, &err);
    if (!st) st = hdg_cusparse_spmv_run(&S, &err);
    if (!st) st = hdg_cuda_download(dev, yd, dy, sizeof(double) * n, &err);
    CHECK(!st, "%s", err.msg);
    if (!st) {
        double d = 0, s = 0;
        for (int i = 0; i < n; i++) {
            d = fmax(d, fabs(yd[i] - y[i]));
            s = fmax(s, fabs(y[i]));
        }
        CHECK(s > 0 && d <= 1e-13 * s, "max|y_cusparse - y_host| = %.3e, max|y_host| = %.3e", d, s);
    }
    hdg_cusparse_spmv_free(&S);
    hdg_cuda_free(dev, dx);
    hdg_cuda_free(dev, dy);
    hdg_cuda_device_close(dev);
    hdg_csr_free(&C);
    free(x);
    free(y);
    free(yd);
    return test_summary("cusparse_gpu");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "missing")) return test_fail("cuSPARSE not available: libcusparse not found (tried /nonexistent/");
    if (!strcmp(mode, "old")) return test_fail("lacks cusparseCreate");
    if (!strcmp(mode, "gpu")) return test_gpu();
    return test_load();
}
