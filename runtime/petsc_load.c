/* petsc_load.c — hdg_petsc_solve: opens the PETSc module libhdgc_petsc.so
 * (runtime/petsc.h) on the first call and calls its solve. */
#include "runtime/petsc.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/util.h"

#define MODULE "libhdgc_petsc.so"

/* The module's candidate paths in order ($HDGC_PETSC_MODULE alone when
 * set); returns how many. */
static int candidates(char path[3][PATH_MAX])
{
    int n = 0;
    const char *env = getenv("HDGC_PETSC_MODULE");
    if (env && *env) {   /* the only one then */
        snprintf(path[0], PATH_MAX, "%s", env);
        return 1;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0 && len < PATH_MAX - (ssize_t)sizeof MODULE - 1) {   /* room for "/" MODULE */
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        snprintf(path[n++], PATH_MAX, "%.*s/" MODULE, (int)(PATH_MAX - sizeof MODULE - 1), exe);
    }
#ifdef HDG_PETSC_MODULE_DIR
    snprintf(path[n++], PATH_MAX, "%s/" MODULE, HDG_PETSC_MODULE_DIR);
#endif
    return n;
}

/* Global symbols: Open MPI opens its own components, which need libmpi's. */
static hdg_petsc_solve_fn load(hdg_error *err)
{
    static hdg_petsc_solve_fn fn;
    if (fn) return fn;
    static char path[3][PATH_MAX];
    char why[1024] = "";
    int n = candidates(path);
    for (int i = 0; i < n && !fn; i++) {
        if (access(path[i], F_OK)) {
            snprintf(why, sizeof why, "%.900s: not found", path[i]);
            continue;
        }
        void *h = dlopen(path[i], RTLD_NOW | RTLD_GLOBAL);
        if (!h) {
            snprintf(why, sizeof why, "%.1000s", dlerror());
            continue;
        }
        *(void **)&fn = dlsym(h, "hdg_petsc_module_solve");   /* POSIX: object to function pointer */
        if (!fn) snprintf(why, sizeof why, "%.900s: no hdg_petsc_module_solve", path[i]);
    }
    if (!fn)
        hdg_fail(err, HDG_EINPUT, "--solver petsc: cannot load the PETSc module " MODULE " (%s; set "
                 "HDGC_PETSC_MODULE to its path)", why);
    return fn;
}

hdg_status hdg_petsc_solve(const hdg_blockmat *B, const double *b, double *x, const hdg_petsc_opts *o,
                           hdg_petsc_info *info, hdg_error *err)
{
    memset(info, 0, sizeof *info);
    double t0 = hdg_wtime();
    hdg_petsc_solve_fn fn = load(err);
    info->init_seconds = hdg_wtime() - t0;   /* the module adds its initialisation */
    return fn ? fn(B, b, x, o, info, err) : err->code;
}
