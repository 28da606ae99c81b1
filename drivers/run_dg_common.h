/* run_dg_common.h — what the two explicit DG drivers share: run_dg.c (the
 * kernels compiled to C and run on the host) and run_dg_cuda.c (the same
 * lowering compiled with NVRTC and run on a GPU).
 *
 * Shared, so that both take the same steps and report the same things:
 *   - the lowering and the per-element data the kernels read (geometry, face
 *     map, Morton element order, parameters), built on the host;
 *   - the time step (final time, cfl, the characteristic speed and the
 *     reaction rate of dg_speed.h, reduced over the ranks under mpirun,
 *     dt = final / nsteps, at most HDG_DG_MAX_STEPS steps);
 *   - the LSERK4 loop: where the energy is checked and an instability declared,
 *     VTK output (.vtu, or a .pvd series with --every), progress, and the
 *     report (steps, dt, energy.*, errors.*, timings.*, perf.*) and log.
 * A driver supplies only how its kernels run, as an hdg_dg_engine: the
 * initial state, one step (five stages), the per-element energies and
 * errors brought to the host, and the state on the host for output. */
#ifndef HDG_RUN_DG_COMMON_H
#define HDG_RUN_DG_COMMON_H

#include "drivers/dg_speed.h"
#include "drivers/run_dg_nonlinear.h"
#include "drivers/run.h"
#include "hdg_kernel.h"
#include "ir/lower_dg.h"
#include "runtime/fem/geometry.h"
#include "runtime/mesh/mesh.h"
#include "runtime/fem/refel.h"

/* Under mpirun: the ghost rows' states come from their owners before every
 * stage (whole element states, nfields x Np values each; runtime/parallel/mesh_dist.h
 * says which). Rows are kernel rows. Empty (nnbr 0) in a serial run. */
typedef struct hdg_dg_halo {
    int nnbr;
    const int *nbr;                 /* the neighbour ranks (the hdg_mesh_dist's) */
    int *send_off, *recv_off;       /* nnbr + 1: rows of each neighbour in the two lists */
    int *send_row, *recv_row;       /* own rows sent, ghost rows received */
    double *sbuf, *rbuf;            /* packed states, in the lists' order */
    void **sp, **rp;                /* per neighbour: its part of sbuf / rbuf */
    size_t *sbytes, *rbytes;
    struct hdg_comm_req *req;       /* the exchange in flight */
} hdg_dg_halo;

typedef struct hdg_dg_data {
    const hdg_problem *p;
    hdg_mesh *mesh;
    hdg_dg_lowered L;
    hdg_refel re;
    hdg_geom g;
    double *geom;           /* ne x L.ngeom, rows in kernel order */
    int *fmap;              /* ne x L.nimap, rows in kernel order */
    int *pos;               /* kernel row of mesh element e (hdg_dg_order_elements) */
    double *params;         /* L.nparams: the problem's, then the stage values (0 here) */
    long long n;            /* state values: ne * nfields * Np */
    int nerrout;            /* values per element from the _errors kernel: 2 nerr + nfields */
    double final, cfl, dt;  /* final time, cfl, step (final / nsteps) */
    long long nsteps;
    hdg_dg_speed speed;     /* characteristic speed and reaction (dt <= cfl * speed.unit) */
    double cfl_eff;         /* the cfl dt amounts to (a fixed dt too); 0 when the speed is unknown */
    int energy_bounded;     /* hdg_dg_energy_bounded: the energy may not grow */
    char energy_why[320];   /* why not */
    double t_lower;         /* seconds */
    /* Under mpirun (opt->dist) the rows are grouped: [0, ne_inner) own elements
     * whose neighbours are all own, [ne_inner, ne_own) own elements next to a
     * ghost, [ne_own, ne) ghosts. Serial: ne_inner = ne_own = ne. Sums over
     * elements (energy, errors) take the own rows and are summed over ranks. */
    const struct hdg_mesh_dist *dist;
    int ne_own, ne_inner;
    long long ne_global, n_global;   /* elements and state values of the whole mesh */
    hdg_dg_halo halo;
    hdg_dg_nl nl;           /* nonlinear problems: the step from the state, admissibility, totals */
    int nl_fixed;           /* nonlinear with a fixed dt (--dt, the file's dt): the step stays */
} hdg_dg_data;

/* opt, or (opt NULL) defaults: everything 0 but the kernel cache on. */
const hdg_run_options *hdg_dg_options(const hdg_run_options *opt, hdg_run_options *defaults);

/* Clears d and lowers p (ir/lower_dg.h); d->t_lower. */
hdg_status hdg_dg_lower_problem(hdg_dg_data *d, const hdg_problem *p, hdg_mesh *mesh, hdg_error *err);

/* The most steps a run may take. */
#define HDG_DG_MAX_STEPS 1e8

/* After the lowering: reference element, geometry, face maps in kernel
 * order, parameters, and the time step (opt's final time and cfl override
 * the file's; a fixed 'dt' of the file counts unless --cfl is given):
 *     dt <= cfl * min_e unit_e   (dg_speed.h: the advective and reaction bounds)
 * HDG_EINPUT when a boundary face lacks a condition, the final time or step
 * is not positive, the speed cannot be derived and the file gives no fixed
 * dt, or the run would take more than HDG_DG_MAX_STEPS steps. */
hdg_status hdg_dg_prepare(hdg_dg_data *d, const hdg_run_options *opt, hdg_error *err);
void hdg_dg_data_free(hdg_dg_data *d);

/* Under mpirun: the speed of the whole mesh from the pieces' (max of max and
 * react, min of rmin and unit), then hdg_dg_speed_settle; serial: settled. */
void hdg_dg_speed_reduce(hdg_dg_speed *sp);

/* The ghost exchange of the state U (ne x nfields x Np, kernel rows): begin
 * packs the own rows the neighbours need and posts the messages; end waits
 * and writes the ghost rows of U. Between the two, U's own rows must not
 * change and its ghost rows must not be read. No-ops in a serial run. */
void hdg_dg_halo_begin(hdg_dg_data *d, const double *U);
void hdg_dg_halo_end(hdg_dg_data *d, double *U);

/* The parameters with the stage values of LSERK4's second stage and dt =
 * 0.01 (hdg_xmalloc'd): comparisons of step kernels (backends/handwritten) see
 * the right-hand side. */
double *hdg_dg_probe_params(const hdg_dg_data *d);

/* timings.{lower,compile,setup} and compile.{cache_hits,kernels,source_bytes}. */
void hdg_dg_report_setup(hdg_report *rep, const hdg_dg_data *d, double t_compile, double t_setup, int cache_hit,
                         int nkernels, long long source_bytes);

/* How a driver runs its kernels. Every call may fail (device errors). */
typedef struct hdg_dg_engine {
    void *ctx;
    const hdg_kernel_info *step_info;   /* cost model of the stage kernel (perf.*) */
    /* the state from the initial conditions (t = 0) */
    hdg_status (*initial)(void *ctx, hdg_error *err);
    /* one LSERK4 step from t: five stages; *seconds: time in the stage kernel */
    hdg_status (*step)(void *ctx, double t, double dt, double *seconds, hdg_error *err);
    /* the _energy kernel: ne values (kernel rows) into the host array Eel */
    hdg_status (*energy)(void *ctx, double *Eel, hdg_error *err);
    /* the _errors kernel at time t: ne x nerrout values into the host array E */
    hdg_status (*errors)(void *ctx, double t, double *E, hdg_error *err);
    /* the current state on the host (ne x nfields x Np, kernel rows) */
    hdg_status (*state)(void *ctx, const double **U, hdg_error *err);
} hdg_dg_engine;

/* Relative energy growth (over its smallest value so far) that counts as an
 * instability when the energy may not grow. Stable runs of maxwell2d and
 * acoustics2d, upwind and central, N = 1..8, on square, perturbed and Gmsh
 * meshes up to 2048 elements and 18000 steps rise by at most 1.1e-14 (sum
 * round-off); maxwell2d at cfl 1.3 (just unstable) rises 5e-7 by t = 2 with
 * an error 1000x too large, so 1e-6 would be too late. */
#define HDG_DG_ENERGY_RTOL 1e-10

/* Integrates from the initial state to d->final in d->nsteps steps of
 * d->dt, checking the energy at up to 2000 steps (an instability:
 * HDG_ESOLVER "unstable: ... blew up at step S (t = T) ..."): when
 * d->energy_bounded, a growth over its smallest value so far of more than
 * HDG_DG_ENERGY_RTOL (plus n_global DBL_MIN: energies of subnormal products);
 * else, with an exact solution for every field, an energy above the exact
 * solution's at the same time by more than 3 times the largest of the exact
 * solution's and the initial energy so far (compared at every 5th sample, at
 * most ~50 times, and at any sample whose energy passes that bound of the
 * latest exact energy); and always an energy 1e8 times the largest of the
 * first half of the samples so far (a tiny initial state that a source
 * fills is no blow-up). A non-finite energy always stops it. A nonlinear
 * problem (d->nl.on) takes its steps from the current state instead
 * (run_dg_nonlinear.h: d->dt and d->nsteps change as it goes). Also
 * writes VTK when opt->vtk, and fills the report and the log. */
hdg_status hdg_dg_integrate(hdg_dg_data *d, const hdg_dg_engine *eng, const hdg_run_options *opt,
                            hdg_report *rep, hdg_error *err);

#endif
