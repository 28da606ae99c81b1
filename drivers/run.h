/* run.h — running a checked problem end to end (`hdgc run`, `hdgc convergence`).
 *
 * hdg_run_problem loads the mesh, lowers the problem (HDG or explicit DG,
 * decided by the frontend from the equations), compiles its kernels and runs
 * the runtime's driver for that family:
 *   run_hdg.c  static condensation, trace system, solve, recovery, post-processing
 *   run_dg.c   LSERK4 time stepping
 * Results go into a JSON report (runtime/output/report.h; the paths are listed in
 * README.md, "The JSON report") and a short human summary is written to opt->log (may be NULL). */
#ifndef HDG_RUN_H
#define HDG_RUN_H

#include <stdio.h>

#include "frontend/frontend.h"
#include "hdg.h"
#include "runtime/output/report.h"

/* The solution handed back to a caller of hdg_run_problem (free with
 * hdg_run_fields_free). HDG: x = the element unknowns' modal dofs, ne rows of
 * dofs.element_per_element; xpost = the post-processed unknown, ne rows of
 * npost (NULL when the problem has none). */
typedef struct hdg_run_fields {
    long long n, npost;        /* values in x, xpost */
    double *x, *xpost;
    int nv, ne;                /* the mesh: vertices (xy: dim coordinates each, x0 y0 (z0) x1 ...),
                                  simplices (tri: dim+1 vertex indices each, the mesh's order, in
                                  the order of the fields) */
    double *xy;
    int *tri;
    int dim;                   /* of the mesh: 2 triangles, 3 tetrahedra */
    long long ntrace;          /* values in trace: faces x trace_per_face */
    int trace_per_face;        /* the trace unknowns' Legendre coefficients on a face, unknown by
                                  unknown, component by component, in the face's canonical direction */
    double *trace;
} hdg_run_fields;
void hdg_run_fields_free(hdg_run_fields *f);

/* The solution as a caller sees it: every field (component) of every element
 * unknown, and the post-processed one, at the lattice points of degree p of
 * each element (nlat = (p+1)(p+2)/2 per element, or (p+1)(p+2)(p+3)/6 on
 * tetrahedra, hdg_vtk_lattice_points order, the points of the VTK output),
 * with the elements' vertices. Valid during the callback only. */
typedef struct hdg_snapshot {
    int ne, p, nlat;              /* elements, lattice degree, points per element */
    const double *vxy;            /* ne x dim(dim+1): the vertices (x0 y0 x1 y1 x2 y2; 3D x0 y0 z0 ..) */
    const double *lr, *ls;        /* nlat reference points in [-1,1]^dim (v0 = (-1,..,-1)) */
    int nfields;
    const char *const *names;     /* "u", "q_x", "q_y", "ustar", DG: "Ez", ... */
    const double *const *values;  /* nfields arrays of ne x nlat */
    double t;                     /* DG: the time of the state (HDG: 0) */
    long long step;               /* DG: steps done (HDG: 0) */
    int final;                    /* 1: the end of the run */
    int ncells;                   /* HDG: fields with one value per element (the error */
    const char *const *cell_names;    /* indicators "estimate_u" of a post-processed */
    const double *const *cell_values; /* unknown's estimate), ncells arrays of ne */
    int dim;                      /* 3: tetrahedra, the third reference coordinate in lt (0 or 2: triangles) */
    const double *lt;
} hdg_snapshot;
/* A nonzero status stops the run with it (err filled by the callback). */
typedef hdg_status (*hdg_snapshot_fn)(void *ctx, const hdg_snapshot *s, hdg_error *err);

struct hdg_mesh;

typedef struct hdg_run_options {
    const char *mesh;          /* "square:N[,...]" or a .msh file; NULL: "square:8" (3D: "cube:4") */
    const char *backend;       /* "c" (default), "cuda", "auto" */
    const char *kernels;       /* "generated" (default) or "handwritten" (backends/handwritten/handwritten.h) */
    const char *solver;        /* "cg", "gmres", "petsc" (host); NULL: cg for symmetric problems, else gmres */
    const char *petsc;         /* --solver petsc: PETSc options ("-ksp_type cg -pc_type gamg"), or NULL */
    const char *precond;       /* "mg", "block", "jacobi", "none"; NULL: mg from 10000 trace unknowns, else block */
    const char *format;        /* trace matrix for the solver's products: "block" (default), "csr" */
    double rtol;               /* <= 0: the default rule (1e-14 or the attainable accuracy; run_hdg_common.h) */
    int maxit;                 /* <= 0: solver default */
    int restart;               /* GMRES restart length (<= 0: 100) */
    int newton_max_steps;      /* nonlinear HDG: Newton's step limit (<= 0: 25) */
    double newton_rtol;        /* ... |R| <= newton_rtol |R_0| + newton_atol stops it (<= 0: 1e-10) */
    double newton_atol;        /* (<= 0: 0; the attainable accuracy stops it too: docs/solvers.md) */
    int newton_check;          /* --newton-check on: the finite-difference check of R against J each step */
    int newton_snes;           /* --newton snes: Newton through PETSc's SNES (drivers/run_hdg_snes.c), not hdgc's loop */
    const char *vtk;           /* output file (.vtu; DG: .pvd time series) or NULL */
    int vtk_ascii;             /* --vtk-format ascii: ASCII .vtu files (0: binary, zlib-compressed) */
    int every;                 /* DG: write every n steps (0: only the end) */
    const char *png;           /* picture of a field (run_png.h) or NULL */
    const char *png_field;     /* --field: the field drawn (NULL: the first scalar element unknown) */
    int png_width, png_height; /* --size WxH (0: 800x800) */
    int png_edges;             /* --edges: draw the mesh's edges */
    int png_slice;             /* --slice A=c on tetrahedra: 1, 2, 3 for A = x, y, z (0: none, the
                                  boundary surface seen from an angle; run_png.h) */
    double png_slice_at;       /* c */
    double cfl;                /* DG: > 0 overrides the file's cfl */
    double final_time;         /* time-dependent: > 0 overrides the file's final time */
    double dt;                 /* time-dependent: > 0 a fixed step (overrides the file's dt and cfl) */
    int use_cache;             /* kernel cache (default 1) */
    int progress;              /* a progress line on stderr (Krylov iterations, DG steps) */
    FILE *log;                 /* summary lines, or NULL */
    hdg_run_fields *fields;    /* NULL, or filled with the solution (HDG) */
    hdg_snapshot_fn snapshot;  /* NULL, or called with the solution at the end (and DG: every
                                  snapshot_every steps when > 0) */
    void *snapshot_ctx;
    int snapshot_every;
    struct hdg_mesh *mesh_in;  /* a caller's mesh (topology built) used instead of mesh; not freed */
    double t_parse;            /* seconds spent parsing (reported as timings.parse) */
    const struct hdg_mesh_dist *dist;  /* under mpirun (run_mpi.c): this rank's piece of the mesh
                                          (runtime/parallel/mesh_dist.h), set by hdg_run_problem; else NULL */
    int dist_mg;               /* under mpirun: the trace solve's PC is the two-level PCMG
                                  (--precond mg, the default; hdg_hdg_dist_mg) */
} hdg_run_options;

void hdg_run_options_default(hdg_run_options *o);

/* Runs p; fills rep (problem, order, backend, mesh.*, dofs.*, solver.*, errors.*,
 * timings.*, compile.*). HDG_ESOLVER when the solver does not converge or a time
 * integration blows up (the report is still filled). */
hdg_status hdg_run_problem(const hdg_problem *p, const hdg_run_options *opt, hdg_report *rep,
                           hdg_error *err);

/* Every mesh marker has a condition and every marker the file names exists
 * (run.c; on the whole mesh, before it is distributed). */
hdg_status hdg_run_check_markers(const hdg_problem *p, const struct hdg_mesh *m, hdg_error *err);

/* warnings.mean when a 'mean u = g' went unused (run.c). */
void hdg_run_mean_unused(const hdg_problem *p, hdg_report *rep);

/* hdg_run_problem under mpirun (run_mpi.c): rank 0 loads and checks the mesh
 * and distributes it (runtime/parallel/mesh_dist.h); every rank runs the driver on its
 * piece with o->dist set; the report (on every rank) has the whole problem's
 * figures and mpi.* (ranks, per-rank elements and times). o: defaults filled. */
hdg_status hdg_run_problem_mpi(const hdg_problem *p, hdg_run_options *o, hdg_report *rep, hdg_error *err);

/* The two drivers (called by hdg_run_problem after the mesh is loaded). */
hdg_status hdg_run_hdg(const hdg_problem *p, struct hdg_mesh *mesh, const hdg_run_options *opt,
                       hdg_report *rep, hdg_error *err);
hdg_status hdg_run_dg(const hdg_problem *p, struct hdg_mesh *mesh, const hdg_run_options *opt,
                      hdg_report *rep, hdg_error *err);

/* The same on a GPU (--backend cuda): run_hdg_cuda.c, run_dg_cuda.c. dev is
 * open and current on the calling thread (not owned). Same report paths as
 * the host drivers, plus device.* (name, memory) and timings of the device. */
struct hdg_cuda_device;
hdg_status hdg_run_hdg_cuda(const hdg_problem *p, struct hdg_mesh *mesh, const hdg_run_options *opt,
                            struct hdg_cuda_device *dev, hdg_report *rep, hdg_error *err);
hdg_status hdg_run_dg_cuda(const hdg_problem *p, struct hdg_mesh *mesh, const hdg_run_options *opt,
                           struct hdg_cuda_device *dev, hdg_report *rep, hdg_error *err);

#endif
