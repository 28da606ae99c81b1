/* test_cuda_nvcc.c — the emitted .cu files are self-contained: each compiles
 * alone with `nvcc -ptx -arch=sm_90` (the form `hdgc emit --backend cuda`
 * writes). Skips (77) when no nvcc is found ($HDGC_NVCC, /usr/local/cuda/bin/nvcc,
 * or nvcc on PATH). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/cuda/emit.h"
#include "runtime/cuda/cuda_linalg.h"
#include "test.h"
#include "test_kernels.h"

static char nvcc[512], dir[64];

static int find_nvcc(void)
{
    const char *env = getenv("HDGC_NVCC");
    if (env && *env) { snprintf(nvcc, sizeof nvcc, "%s", env); return access(nvcc, X_OK) == 0; }
    if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0) { snprintf(nvcc, sizeof nvcc, "/usr/local/cuda/bin/nvcc"); return 1; }
    FILE *p = popen("command -v nvcc 2>/dev/null", "r");
    if (!p) return 0;
    int ok = fgets(nvcc, sizeof nvcc, p) != NULL;
    pclose(p);
    nvcc[strcspn(nvcc, "\n")] = 0;
    return ok && nvcc[0];
}

/* Writes src to DIR/name.cu, runs nvcc -ptx, returns the PTX (malloc'd) or NULL. */
static char *compile(const char *name, const char *src)
{
    char cu[128], ptx[128], log[128], cmd[1200];
    snprintf(cu, sizeof cu, "%s/%s.cu", dir, name);
    snprintf(ptx, sizeof ptx, "%s/%s.ptx", dir, name);
    snprintf(log, sizeof log, "%s/%s.log", dir, name);
    FILE *f = fopen(cu, "w");
    if (!f) return NULL;
    fputs(src, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' -ptx -arch=sm_90 -o '%s' '%s' > '%s' 2>&1", nvcc, ptx, cu, log);
    int rc = system(cmd);
    char *text = NULL;
    size_t n;
    hdg_error err;
    if (rc != 0) {
        if (hdg_read_file(log, &text, &n, &err) == HDG_OK) fprintf(stderr, "nvcc %s failed:\n%s\n", name, text);
        free(text);
        return NULL;
    }
    if (hdg_read_file(ptx, &text, &n, &err)) return NULL;
    return text;
}

int main(void)
{
    if (!find_nvcc()) {
        printf("SKIP: no nvcc\n");
        return 77;
    }
    snprintf(dir, sizeof dir, "/tmp/hdgc_nvcc_%d", (int)getpid());
    char cmd[256];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd)) return 1;
    hdg_ir_module *m = tk_module("tk");
    hdg_error err;
    for (int i = 0; i < m->nkernels; i++) hdg_ir_optimize(m->kernels[i], HDG_IR_OPT_DEFAULT, &err);
    hdg_str src;
    hdg_str_init(&src);
    CHECK(hdg_emit_cuda(m, &src, NULL, NULL, &err) == HDG_OK, "emit: %s", err.msg);
    char *ptx = compile("tk", src.s);
    CHECK(ptx != NULL, "nvcc failed on the generated module");
    if (ptx)
        CHECK(strstr(ptx, ".entry mass(") && strstr(ptx, ".entry schur(") && strstr(ptx, ".entry jump(") &&
              strstr(ptx, ".entry misc("), "kernels with C names in the PTX");
    free(ptx);
    hdg_str_free(&src);
    hdg_str_init(&src);
    hdg_cuda_linalg_source(4, 5, &src);
    ptx = compile("runtime", src.s);
    CHECK(ptx && strstr(ptx, ".entry hdg_rt_spmv("), "runtime kernels through nvcc");
    free(ptx);
    hdg_str_free(&src);
    hdg_ir_module_free(m);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
    return test_summary("cuda_nvcc");
}
