/* petsc_load.c — hdg_petsc_solve and the coarse AMG of --precond mg: open
 * the PETSc module libhdgc_petsc.so (runtime/petsc/petsc.h) on the first call and
 * call its entry points. */
#define _GNU_SOURCE   /* dladdr */
#include "runtime/petsc/petsc.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/parallel/comm.h"
#include "support/util.h"

#define MODULE "libhdgc_petsc.so"

#define NCAND 6

/* MODULE in the folder of file (a path to a file); 1 when it fits. */
static int beside(const char *file, char *out)
{
    const char *slash = strrchr(file, '/');
    if (!slash || slash - file > PATH_MAX - (long)sizeof MODULE - 2) return 0;
    snprintf(out, PATH_MAX, "%.*s/" MODULE, (int)(slash - file), file);
    return 1;
}

/* The module's candidate paths in order ($HDGC_PETSC_MODULE alone when
 * set): beside the executable, beside the library holding this code
 * (libhdgc.so of an installed tree, or of a Python process), the install's
 * library folder, the build folder; returns how many. */
static int candidates(char path[NCAND][PATH_MAX])
{
    int n = 0;
    const char *env = getenv("HDGC_PETSC_MODULE");
    if (env && *env) {   /* the only one then */
        snprintf(path[0], PATH_MAX, "%s", env);
        return 1;
    }
    char exe[PATH_MAX] = "", up[PATH_MAX + 32];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        n += beside(exe, path[n]);
#ifdef HDG_PETSC_INSTALL_REL   /* an installed tree moved elsewhere: BIN/../LIBDIR */
        const char *slash = strrchr(exe, '/');
        if (slash && (size_t)snprintf(up, sizeof up, "%.*s/../%s/x", (int)(slash - exe), exe,
                                      HDG_PETSC_INSTALL_REL) < sizeof up)
            n += beside(up, path[n]);
#endif
    }
    Dl_info info;   /* libhdgc.so (not the executable) */
    if (dladdr((void *)candidates, &info) && info.dli_fname && strcmp(info.dli_fname, exe))
        n += beside(info.dli_fname, path[n]);
#ifdef HDG_PETSC_INSTALL_DIR
    snprintf(path[n++], PATH_MAX, "%s/" MODULE, HDG_PETSC_INSTALL_DIR);
#endif
#ifdef HDG_PETSC_MODULE_DIR
    snprintf(path[n++], PATH_MAX, "%s/" MODULE, HDG_PETSC_MODULE_DIR);
#endif
    return n;
}

/* The module's entry points. */
typedef struct module_fns {
    hdg_petsc_solve_fn solve;
    hdg_petsc_amg_create_fn amg_create;
    hdg_petsc_amg_apply_fn amg_apply;
    hdg_petsc_amg_free_fn amg_free;
    hdg_comm_module_ops_fn comm_ops;
    hdg_petsc_dist_create_fn dist_create;
    hdg_petsc_dist_apply_fn dist_apply;
    hdg_petsc_dist_free_fn dist_free;
    hdg_petsc_snes_solve_fn snes_solve;
} module_fns;

static int lookup(void *h, module_fns *f)
{
    static const char *names[] = {"hdg_petsc_module_solve", "hdg_petsc_module_amg_create",
                                  "hdg_petsc_module_amg_apply", "hdg_petsc_module_amg_free",
                                  "hdg_comm_module_ops", "hdg_petsc_module_dist_create",
                                  "hdg_petsc_module_dist_apply", "hdg_petsc_module_dist_free",
                                  "hdg_petsc_module_snes_solve"};
    void **slot[] = {(void **)&f->solve, (void **)&f->amg_create, (void **)&f->amg_apply,
                     (void **)&f->amg_free, (void **)&f->comm_ops, (void **)&f->dist_create,
                     (void **)&f->dist_apply, (void **)&f->dist_free,
                     (void **)&f->snes_solve};   /* POSIX: object to function pointer */
    for (int i = 0; i < (int)(sizeof names / sizeof *names); i++)
        if (!(*slot[i] = dlsym(h, names[i]))) return i;
    return -1;
}

static char loaded[PATH_MAX];
static double load_seconds;   /* the dlopen of the module and PETSc, MPI and the rest */
static double load_end;       /* when it ended (hdg_wtime) */
static int load_reported;

const char *hdg_petsc_module_path(void) { return loaded; }

/* Keeps OpenCL drivers out of the process, unless the user names them:
 * Debian's PETSc links OpenCL, and where NVIDIA's OpenCL driver is
 * installed its start (PETSc's or hwloc's at MPI_Init) loads a library with
 * LLVM inside, which clashes with hdgc's LLVM 14: the process then crashed
 * at exit, after a correct answer, in LLVM's static destructors (free() of
 * an invalid pointer; an H200 machine, session 13; every run that started
 * PETSc, with or without CUDA; gone with these two variables set). hdgc
 * hands PETSc host arrays only, so PETSc needs no OpenCL device. */
static void keep_opencl_out(void)
{
    setenv("OCL_ICD_VENDORS", "/nonexistent/hdgc-no-opencl-drivers", 0);
    setenv("HWLOC_COMPONENTS", "-opencl", 0);
}

/* Open MPI's start as a singleton (hdgc run without mpirun): MPI_Init took
 * 0.27-0.29 s and MPI_Finalize 0.05 s on the build machine, nearly all of it
 * the UCX transport probing the network and the attempt to reach a runtime
 * daemon, which one process needs neither of (where UCX finds no device, as
 * here, Open MPI falls back to ob1 anyway); with these two settings 0.02 and
 * 0.002 s (Open MPI 4.1). Only where no launcher started the process, never
 * over the user's own values, and not with HDGC_NO_MPI_DEFAULTS=1; other MPIs
 * ignore them. */
static const char *const mpi_set[][2] = {{"OMPI_MCA_ess_singleton_isolated", "1"}, {"OMPI_MCA_pml", "ob1"}};
static char mpi_defaults[128];   /* the settings quick_singleton made, for the report */
static int mpi_unset[2];         /* those still to be taken back */

static void quick_singleton(void)
{
    static int done;   /* once: MPI starts once per process */
    if (done) return;
    done = 1;
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK")) return;
    if (hdg_env_flag("HDGC_NO_MPI_DEFAULTS")) return;
    for (int i = 0; i < 2; i++) {
        if (getenv(mpi_set[i][0])) continue;
        setenv(mpi_set[i][0], mpi_set[i][1], 0);
        mpi_unset[i] = 1;
        size_t n = strlen(mpi_defaults);
        snprintf(mpi_defaults + n, sizeof mpi_defaults - n, "%s%s=%s", n ? " " : "", mpi_set[i][0], mpi_set[i][1]);
    }
}

/* Made just before the module's first solve or AMG set-up starts MPI (not at
 * the load: hdg_petsc_available() loads the module to choose the default
 * preconditioner, and MPI may never start), and taken out of the environment
 * again right after: Open MPI has read them, and a program that embeds hdgc
 * must not pass them to what it launches (an mpirun over a network would
 * inherit ob1). */
static void forget_singleton(void)
{
    for (int i = 0; i < 2; i++)
        if (mpi_unset[i]) unsetenv(mpi_set[i][0]), mpi_unset[i] = 0;
}

const char *hdg_petsc_mpi_defaults(void) { return mpi_defaults; }

/* Global symbols: Open MPI opens its own components, which need libmpi's. */
static const module_fns *load(const char *what, hdg_error *err)
{
    static module_fns fns;
    if (fns.solve) return &fns;
    keep_opencl_out();
    static char path[NCAND][PATH_MAX];
    char why[1024] = "";
    double t0 = hdg_wtime();
    int n = candidates(path);
    for (int i = 0; i < n && !fns.solve; i++) {
        if (access(path[i], F_OK)) {
            snprintf(why, sizeof why, "%.900s: not found", path[i]);
            continue;
        }
        void *h = dlopen(path[i], RTLD_NOW | RTLD_GLOBAL);
        if (!h) {
            snprintf(why, sizeof why, "%.1000s", dlerror());
            continue;
        }
        module_fns f;
        int missing = lookup(h, &f);
        if (missing < 0) fns = f, snprintf(loaded, sizeof loaded, "%.4000s", path[i]);
        else snprintf(why, sizeof why, "%.900s: an older module (entry point %d missing)", path[i], missing);
    }
    if (fns.solve) load_end = hdg_wtime(), load_seconds = load_end - t0;
    if (!fns.solve)
        hdg_fail(err, HDG_EINPUT, "%s: cannot load the PETSc module " MODULE " (%s; set "
                 "HDGC_PETSC_MODULE to its path)", what, why);
    return fns.solve ? &fns : NULL;
}

/* The load's seconds, to the first caller that reports an initialisation
 * (whoever loaded the module: hdg_petsc_available() decides the default
 * preconditioner before any solve), 0 afterwards: once per process, like
 * PETSc's own start that the module adds to it. */
static void unreported_load(hdg_petsc_info *info, double entered)
{
    if (!loaded[0] || load_reported) return;
    load_reported = 1;
    info->init_seconds = load_seconds;
    if (load_end <= entered) info->prior_seconds = load_seconds;
}

int hdg_petsc_available(void)
{
    hdg_error err;
    return load("", &err) != NULL;
}

hdg_status hdg_petsc_solve(const hdg_blockmat *B, const double *b, double *x, const hdg_petsc_opts *o,
                           hdg_petsc_info *info, hdg_error *err)
{
    memset(info, 0, sizeof *info);
    double entered = hdg_wtime();
    const module_fns *f = load("--solver petsc", err);
    unreported_load(info, entered);   /* the module adds its initialisation */
    if (f) quick_singleton();
    hdg_status st = f ? f->solve(B, b, x, o, info, err) : err->code;
    forget_singleton();
    return st;
}

hdg_status hdg_petsc_amg_create(const hdg_csr *A, const char *options, hdg_petsc_amg **h,
                                hdg_petsc_info *info, hdg_error *err)
{
    memset(info, 0, sizeof *info);
    *h = NULL;
    double entered = hdg_wtime();
    const module_fns *f = load("--precond mg (its coarse solve)", err);
    unreported_load(info, entered);   /* the module adds its initialisation */
    if (f) quick_singleton();
    hdg_status st = f ? f->amg_create(A, options, h, info, err) : err->code;
    forget_singleton();
    return st;
}

int hdg_petsc_amg_apply(hdg_petsc_amg *h, const double *x, double *y)
{
    return load("--precond mg", NULL)->amg_apply(h, x, y);
}

void hdg_petsc_amg_free(hdg_petsc_amg *h)
{
    if (h) load("--precond mg", NULL)->amg_free(h);
}

struct hdg_comm_ops *hdg_petsc_comm_ops(hdg_error *err)
{
    const module_fns *f = load("mpirun", err);
    return f ? f->comm_ops() : NULL;
}

hdg_status hdg_petsc_dist_create(const hdg_blockmat *B, const hdg_petsc_dist *d, const hdg_petsc_opts *o,
                                 hdg_petsc_dsolver **h, hdg_petsc_info *info, hdg_error *err)
{
    memset(info, 0, sizeof *info);
    *h = NULL;
    double entered = hdg_wtime();
    const module_fns *f = load("mpirun", err);
    unreported_load(info, entered);   /* the module adds its initialisation */
    return f ? f->dist_create(B, d, o, h, info, err) : err->code;
}

hdg_status hdg_petsc_dist_apply(hdg_petsc_dsolver *h, const double *b, double *x, hdg_petsc_info *info,
                                hdg_error *err)
{
    return load("mpirun", err)->dist_apply(h, b, x, info, err);
}

void hdg_petsc_dist_free(hdg_petsc_dsolver *h)
{
    if (h) load("mpirun", NULL)->dist_free(h);
}

hdg_status hdg_petsc_snes_solve(const hdg_petsc_snes_ops *ops, const hdg_petsc_snes_opts *o, double *x,
                                hdg_petsc_snes_info *info, hdg_error *err)
{
    memset(info, 0, sizeof *info);
    double entered = hdg_wtime();
    const module_fns *f = load("--newton snes", err);
    hdg_petsc_info pi = {0};
    unreported_load(&pi, entered);   /* the module adds its initialisation */
    info->init_seconds = pi.init_seconds, info->prior_seconds = pi.prior_seconds;
    if (f) quick_singleton();
    hdg_status st = f ? f->snes_solve(ops, o, x, info, err) : err->code;
    forget_singleton();
    return st;
}
