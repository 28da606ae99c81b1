/* hdgc.h — the public C API of libhdgc (docs/api.md).
 *
 * Load a problem written in the hdgc language, choose its degree, mesh, backend and
 * solver, solve it, read back the errors, the JSON report and the fields:
 *
 *     hdg_error err;
 *     hdgc_problem *p;
 *     if (hdgc_problem_load("poisson.hdg", &p, &err)) { fprintf(stderr, "%s\n", err.msg); ... }
 *     hdgc_problem_set_option(p, "mesh", "square:16", &err);
 *     hdgc_result *r;
 *     if (!hdgc_solve(p, &r, &err)) printf("%g\n", hdgc_result_error(r, "u"));
 *     hdgc_result_free(r);
 *     hdgc_problem_free(p);
 *
 * Conventions: every function that can fail returns an hdg_status (HDG_OK = 0) and fills
 * an hdg_error with the message a user needs (err may be NULL); the library never prints
 * and never exits. There is no global state a caller can see: problems and results are
 * independent objects, and two problems can be solved one after the other or interleaved
 * in one process. Threads: objects may be used from any thread, one call at a time per
 * object; solving two problems at the same time from two threads is not supported (the
 * element kernels run on the library's own thread pool, HDG_THREADS).
 * Strings passed in are copied; pointers handed out stay valid until the object they
 * come from is freed.
 */
#ifndef HDGC_H
#define HDGC_H

#include <stdio.h>

#include "hdg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hdgc_problem hdgc_problem;
typedef struct hdgc_result hdgc_result;
typedef struct hdgc_mesh hdgc_mesh;
typedef struct hdgc_report hdgc_report;

/* Frees what a function of this API handed over as "to free" (char *: diagnostics, IR, source). */
void hdgc_free(void *ptr);

/* ------------------------------------------------------------------ problems */

/* Reads and checks a problem file. On an error in the file, err->msg holds the
 * diagnostics as `hdgc check` prints them (file:line:col, the line, a caret). */
hdg_status hdgc_problem_load(const char *path, hdgc_problem **out, hdg_error *err);

/* The same from source text in memory; name stands for the file in messages. */
hdg_status hdgc_problem_parse(const char *name, const char *source, hdgc_problem **out, hdg_error *err);

/* hdgc_problem_load with a degree (order > 0: instead of the file's, 1..20; 0: the file's)
 * and param overrides (nparams names and values, as `hdgc check --order k --set n=v`) applied
 * from the first check on, so the file is checked once, with them. *diagnostics (when
 * diagnostics is not NULL; free it with hdgc_free) receives the whole rendered diagnostics,
 * errors and warnings, of which err->msg holds at most 2047 bytes. */
hdg_status hdgc_problem_load_with(const char *path, int order, int nparams, const char *const *names,
                                  const double *values, hdgc_problem **out, char **diagnostics, hdg_error *err);

/* Called during a solve of p (from its step callback), p is freed when the solve ends. */
void hdgc_problem_free(hdgc_problem *p);

const char *hdgc_problem_name(const hdgc_problem *p);     /* the `problem` line */
const char *hdgc_problem_method(const hdgc_problem *p);   /* "HDG" or "DG" */
int hdgc_problem_order(const hdgc_problem *p);            /* the degree a solve uses */
/* 1 for a time-dependent problem: DG (explicit) or HDG with dt() terms (implicit time
 * stepping, `time bdf2, final = T, dt = D`); 0 for a steady HDG problem. */
int hdgc_problem_transient(const hdgc_problem *p);
/* 1 for a problem with terms nonlinear in the unknowns (HDG: solved by Newton, the
 * options newton-*; DG: explicit, no Newton); 0 for a linear one. */
int hdgc_problem_nonlinear(const hdgc_problem *p);
int hdgc_problem_dim(const hdgc_problem *p);              /* 2 (mesh triangle) or 3 (mesh tetrahedron) */

/* The file's warnings (diagnostics that are not errors), rendered as `hdgc check` prints
 * them; "" when there are none. */
const char *hdgc_problem_warnings(const hdgc_problem *p);

/* The checked problem as `hdgc check` prints it: method family, params, funcs, spaces,
 * unknowns, and every equation expanded into scalar terms with their classification. */
const char *hdgc_problem_summary(const hdgc_problem *p);

/* The unknowns: how many, and the name of the i-th (NULL when out of range) with
 * *has_exact (may be NULL) 1 when the file gives its exact solution. */
int hdgc_problem_nunknowns(const hdgc_problem *p);
const char *hdgc_problem_unknown(const hdgc_problem *p, int i, int *has_exact);

/* The element-batch IR of every kernel the problem lowers to at its current order (docs/ir.md),
 * after the IR passes unless optimize is 0, each kernel headed by its cost per item, as
 * `hdgc ir` prints it. *text: to free with hdgc_free. */
hdg_status hdgc_problem_ir(const hdgc_problem *p, int optimize, char **text, hdg_error *err);

/* The generated kernels as one self-contained source, as `hdgc emit` writes it: backend "c"
 * (C11, named <problem>.c in #line directives) or "cuda" (<problem>.cu); line_directives 1:
 * #line directives into the .hdg file instead of comments naming the terms. Another backend
 * is HDG_EINPUT "unknown backend 'B' (c, cuda)". *text: to free with hdgc_free. */
hdg_status hdgc_problem_source(const hdgc_problem *p, const char *backend, int line_directives, char **text,
                               hdg_error *err);

/* Where solves write their human summary lines (NULL, the default: nowhere) and whether
 * they show a progress line on stderr while they run: 0 (the default) no, 1 yes, -1 only
 * when stderr is a terminal whose TERM is not "dumb" (what `hdgc run` does). */
hdg_status hdgc_problem_set_output(hdgc_problem *p, FILE *log, int progress, hdg_error *err);

/* The file's params: how many, and the name and current value (after overrides) of the
 * i-th in the order of the file (NULL when i is out of range). */
int hdgc_problem_nparams(const hdgc_problem *p);
const char *hdgc_problem_param(const hdgc_problem *p, int i, double *value);

/* Overrides a `param` of the file (as `hdgc run --set name=value`). An unknown name is
 * HDG_EINPUT naming the params there are. */
hdg_status hdgc_problem_set_param(hdgc_problem *p, const char *name, double value, hdg_error *err);

/* Sets a run option by its `hdgc run` name, without the dashes:
 *   order N          the polynomial degree k (default: the file's)
 *   mesh SPEC        "square:N[,perturb=p][,domain=...][,periodic=x|y|xy]" or a Gmsh .msh path
 *                    [,periodic=A:B,C:D], either [,refine=L] (docs/cli.md; default square:8, cube:4 for a 3D problem)
 *   backend B        c, cuda, auto
 *   solver S         cg, gmres, petsc          precond P   mg, block, jacobi, none
 *   petsc OPTS       PETSc options             format F    block, csr
 *   rtol R, maxit N, restart N                 the Krylov solver's stopping rule
 *   final-time T, dt D                         time stepping (DG and HDG with dt())
 *   cfl C                                      DG: the step from a CFL number
 *   vtk FILE         .vtu (or a .pvd series)   every N     time-dependent: output every N steps
 *   vtk-format F     binary (default, zlib-compressed) or ascii
 *   png FILE, field NAME, size WxH, edges on|off   a picture (hdgc run --png)
 *   slice x=C|y=C|z=C  the picture of a 3D run: the section by that plane (default: the
 *                    boundary surface seen from an angle)
 *   cache on|off     the on-disk kernel cache
 *   kernels K        generated (default) or handwritten (backends/handwritten/: examples/poisson.hdg,
 *                    maxwell2d.hdg; probed against the generated kernels before use)
 *   fields on|off    keep the fields, mesh and trace in the result (default on; off saves
 *                    the time and memory of sampling them when only errors and the report
 *                    are wanted)
 * A bad name or value is HDG_EINPUT; a value that only a solve can judge (a mesh file
 * that does not exist) fails the solve. Setting "mesh" drops a mesh given as arrays. */
hdg_status hdgc_problem_set_option(hdgc_problem *p, const char *name, const char *value, hdg_error *err);
hdg_status hdgc_check_option(const char *name, const char *value, hdg_error *err);

/* The environment the library reads, checked before any work: HDGC_CACHE (on/off, 1/0,
 * yes/no, true/false), HDG_THREADS (1..the maximum), HDGC_BATCH (1, 2, 4, 8),
 * HDGC_MEMORY_LIMIT (bytes). HDG_EINPUT naming the variable. */
hdg_status hdgc_check_environment(hdg_error *err);

/* A mesh from the caller's arrays, used by the following solves instead of the "mesh"
 * option: nv vertices (xy: x0 y0 x1 y1 ...), ne triangles (tri: 3 vertex indices each,
 * 0-based, either orientation), nb tagged boundary edges (edges: 2 vertex indices each,
 * markers: a marker id >= 1 each) and marker_names[id - 1] for ids 1..nmarkers (may be
 * NULL: the names are the decimal ids). Boundary edges not listed get the marker
 * "boundary". The arrays are copied and checked here (degenerate, overlapping or
 * non-manifold triangles, an edge that is not a boundary edge of the mesh: HDG_EINPUT
 * naming the triangle or edge). */
hdg_status hdgc_problem_set_mesh(hdgc_problem *p, int nv, const double *xy, int ne, const int *tri, int nb,
                                 const int *edges, const int *markers, int nmarkers,
                                 const char *const *marker_names, hdg_error *err);

/* The same in any dimension: dim 2 (triangles, as above) or 3 (tetrahedra): xyz holds dim
 * coordinates a vertex, cells dim+1 vertex indices an element (either orientation), faces dim
 * vertex indices a tagged boundary face (a triangle of the boundary in 3D). */
hdg_status hdgc_problem_set_mesh_simplices(hdgc_problem *p, int dim, int nv, const double *xyz, int ne,
                                           const int *cells, int nb, const int *faces, const int *markers,
                                           int nmarkers, const char *const *marker_names, hdg_error *err);

/* A field at the nodes of every element: the equispaced lattice of degree `degree` of each
 * triangle, npe = (degree+1)(degree+2)/2 nodes per element, element by element, in
 * lattice order: for j = 0..degree, for i = 0..degree-j, the point with barycentric
 * weights (1 - (i+j)/degree, i/degree, j/degree) on the element's vertices v0, v1, v2
 * (so the vertices are nodes 0, degree and npe-1). x, y and values hold ne * npe doubles.
 * On tetrahedra (dim 3): npe = (degree+1)(degree+2)(degree+3)/6, for k = 0..degree, for
 * j = 0..degree-k, for i = 0..degree-k-j, the point with weights (1 - (i+j+k)/degree,
 * i/degree, j/degree, k/degree) on v0, v1, v2, v3 (the vertices: nodes 0, degree, the last of
 * the layer k = 0, and npe-1); z then holds ne * npe doubles too (NULL on triangles).
 * Every field of a result has the same degree: the highest of the problem's fields
 * (HDG with a post-processed unknown: k+1; DG: N). */
typedef struct hdgc_field {
    const char *name;   /* "u", "q_x", "q_y", "ustar", a tensor "L_xx" .. "L_yy"; DG: "Ez", ... */
    int ne, npe, degree;
    const double *x, *y, *values;
    const double *z;    /* tetrahedra: the nodes' z (NULL on triangles) */
} hdgc_field;

/* What a step callback sees: the fields of an explicit DG run after `step` steps, at time t
 * (valid during the call only). */
typedef struct hdgc_state {
    long long step;
    double t;
    int final;                  /* 1: the final time */
    int nfields;
    const hdgc_field *fields;
} hdgc_state;

/* Returns 0 to go on; anything else stops the solve with HDG_EINPUT and the message
 * "stopped by the step callback (N)". */
typedef int (*hdgc_step_fn)(void *ctx, const hdgc_state *state);

/* Time-dependent problems: calls fn every `every` steps and with the final state (DG also
 * with the initial one; HDG with dt(): the states after the steps, u* post-processed for
 * each). fn NULL: no callback. A steady HDG problem has no steps: fn is never called.
 * While the solve runs, the problem cannot change: from fn, hdgc_problem_set_param,
 * _set_option, _set_mesh, _set_output, _on_step and hdgc_solve of the same problem are
 * HDG_EINPUT ("the problem is being solved"), and hdgc_problem_free waits for the solve's end. */
hdg_status hdgc_problem_on_step(hdgc_problem *p, int every, hdgc_step_fn fn, void *ctx, hdg_error *err);

/* ------------------------------------------------------------------ meshes */

enum { HDGC_MESH_GEOMETRY = 1 };   /* hdgc_mesh_load: also measure the elements (size, inscribed radius) */

/* Builds or reads a mesh: "square:N[,perturb=p][,domain=...]" or a Gmsh .msh path, either
 * with ",refine=L" (docs: hdgc mesh --help), validated (degenerate, inverted, overlapping
 * triangles, non-manifold edges: HDG_EINPUT naming them). A mesh whose estimated memory
 * (with the geometry when flags has HDGC_MESH_GEOMETRY) exceeds what is available is
 * refused before anything is allocated, with the figures. */
hdg_status hdgc_mesh_load(const char *spec, int flags, hdgc_mesh **out, hdg_error *err);
void hdgc_mesh_free(hdgc_mesh *m);

/* Returns ne, the triangles; nv vertices, nf faces, nbf boundary faces (each may be NULL). */
int hdgc_mesh_size(const hdgc_mesh *m, int *nv, int *nf, int *nbf);

/* The statistics `hdgc mesh` prints: counts, markers with their face counts, and (loaded with
 * HDGC_MESH_GEOMETRY) the element size and inscribed radius ranges, reoriented and untagged faces. */
const char *hdgc_mesh_info(const hdgc_mesh *m);

/* The longest edge over the elements (h) and the shortest element's longest edge; HDG_EINPUT
 * when the mesh was loaded without HDGC_MESH_GEOMETRY. Either pointer may be NULL. */
hdg_status hdgc_mesh_h(const hdgc_mesh *m, double *hmin, double *hmax, hdg_error *err);

/* Checks the problem's boundary conditions against the mesh's markers (`hdgc check --mesh`):
 * every marker needs a condition, every marker the file names must exist. HDG_EINPUT with the
 * diagnostics (file:line:col, the line, a caret); *diagnostics as in hdgc_problem_load_with. */
hdg_status hdgc_problem_check_markers(const hdgc_problem *p, const hdgc_mesh *m, char **diagnostics,
                                      hdg_error *err);

/* ------------------------------------------------------------------ solving */

/* Runs the problem with its current settings. *out receives a result whenever the run
 * got as far as producing a report (also when the status is not HDG_OK, e.g. a solver
 * that did not converge: its report says how far it got), else NULL. */
hdg_status hdgc_solve(const hdgc_problem *p, hdgc_result **out, hdg_error *err);

/* Under mpirun (a launch environment of Open MPI or MPICH, and HDGC_MPI not 0) every solve
 * runs distributed over the job's ranks: rank 0 reads the mesh and partitions it, each rank
 * solves its part (docs/mpi.md). The first call of either function (or the first solve)
 * initialises MPI. hdgc_mpi_rank: this process's rank (0 when not under mpirun, or when MPI
 * could not start: the first solve says why); hdgc_mpi_size: the number of ranks (1). A
 * result's report is the whole problem's on every rank; a client prints and writes files on
 * rank 0 only. */
int hdgc_mpi_rank(void);
int hdgc_mpi_size(void);

/* Ends every rank of the mpirun job at once (MPI_Abort) with exit status code, when MPI has
 * started and the job has more than one rank; otherwise returns and does nothing. For a rank
 * that fails outside hdgc_solve (the others would wait for it in their next solve, and it for
 * them in MPI_Finalize at exit: the job would hang). The Python package calls it from
 * sys.excepthook. */
void hdgc_mpi_abort(int code);

/* ------------------------------------------------------------------ results */

void hdgc_result_free(hdgc_result *r);

/* The run's status (as hdgc_solve returned it). */
hdg_status hdgc_result_status(const hdgc_result *r);

/* The full report as JSON text (the paths of README.md, "The JSON report"). */
const char *hdgc_result_report(const hdgc_result *r);

/* A number of the report by its dotted path ("solver.iterations", "timings.total");
 * NaN when there is none. */
double hdgc_result_number(const hdgc_result *r, const char *path);

/* A string of the report by its dotted path ("solver.warning", "backend"); NULL when none. */
const char *hdgc_result_string(const hdgc_result *r, const char *path);

/* The summary `hdgc run` prints: HDG sizes, solver iterations and residual, the L2 errors;
 * the stage times (a DG run writes its own lines to the output of hdgc_problem_set_output). */
const char *hdgc_result_summary(const hdgc_result *r);

/* Writes the report as JSON to path, atomically (a temporary beside it, renamed when
 * whole), with "exit_code" added when exit_code >= 0. */
hdg_status hdgc_result_write_report(hdgc_result *r, const char *path, int exit_code, hdg_error *err);

/* The same for a run without a result: status "running" (before the work: a run killed on
 * the way leaves no older report that looks like its result) or "failed" (e.g. a file that
 * did not load: code and message become "error.kind" and "error.message"); file may be NULL. */
hdg_status hdgc_write_status_report(const char *path, const char *status, const char *file, hdg_status code,
                                    const char *message, int exit_code, hdg_error *err);

/* The run's warnings (what `hdgc run` prints as "warning: ..."): every string of the report
 * whose key is "warning" (solver.warning, mesh.warning, compile.warning) or that is in an
 * object "warnings" (warnings.mean, warnings.mpi), in the report's order. Returns how many;
 * hdgc_result_warning gives the i-th (NULL out of range) and, in *path (may be NULL), its
 * dotted path in the report. */
int hdgc_result_nwarnings(const hdgc_result *r);
const char *hdgc_result_warning(const hdgc_result *r, int i, const char **path);

/* 1 when the report has a value at path (a null included: hdgc_result_number reads it as NaN). */
int hdgc_result_has(const hdgc_result *r, const char *path);

/* The L2 error of an unknown with an exact solution; NaN when there is none. */
double hdgc_result_error(const hdgc_result *r, const char *unknown);

/* HDG with a post-processed unknown u* (`mean ustar = u`): the error estimate of u,
 * eta = ||u* - u|| over the mesh (u* converges one order faster than u, so eta tracks
 * the error of u without an exact solution; report path "estimate.u"); NaN when there
 * is none (no post-processed unknown, or u is not the unknown whose mean u* keeps). */
double hdgc_result_estimate(const hdgc_result *r, const char *unknown);

/* Its indicators eta_K = ||u* - u||_K, one per element (element e of the fields and of
 * hdgc_result_mesh) in *eta (may be NULL); returns their number ne, 0 when there are
 * none (no estimate, or a solve with "fields off"). */
int hdgc_result_indicators(const hdgc_result *r, const char *unknown, const double **eta);

/* The fields at the end of the run: every component of every element unknown, the
 * post-processed unknown (HDG), the state at the final time (DG). */
int hdgc_result_nfields(const hdgc_result *r);
const hdgc_field *hdgc_result_field(const hdgc_result *r, int i);
const hdgc_field *hdgc_result_field_named(const hdgc_result *r, const char *name);   /* NULL: none */

/* The mesh the fields live on: nv vertices (xy: x0 y0 x1 y1 ...) and ne triangles (tri: 3
 * vertex indices each, counter-clockwise, element e of the fields is triangle e). Returns ne
 * (0 when the run did not get as far as its mesh). */
int hdgc_result_mesh(const hdgc_result *r, int *nv, const double **xy, const int **tri);
/* The same in any dimension: *dim 2 (triangles) or 3 (tetrahedra; hdgc_result_mesh then gives 0
 * and NULLs), nv vertices (coords: dim coordinates each, x0 y0 (z0) x1 ...) and ne cells (cells:
 * dim+1 vertex indices each, the mesh's order; cell e is element e of the fields). Returns ne. */
int hdgc_result_mesh_simplices(const hdgc_result *r, int *dim, int *nv, const double **coords, const int **cells);

/* HDG: the trace unknowns (the solution of the global system): per_face Legendre
 * coefficients on each of the nf faces, in the face's canonical direction. Returns the
 * number of values (0 for DG). */
long long hdgc_result_trace(const hdgc_result *r, const double **values, int *per_face);

/* ------------------------------------------------------------------ reports and plots */

/* A JSON document of the caller's, written the way hdgc writes its reports (hdgc convergence's
 * table): paths are dotted ("errors.u"), a non-finite number becomes null, a NULL string null;
 * bytes of a string or key that are not UTF-8 are written as the four characters \xNN. */
hdgc_report *hdgc_report_new(void);
void hdgc_report_free(hdgc_report *r);   /* with every object pushed into it */
void hdgc_report_set_number(hdgc_report *r, const char *path, double v);
void hdgc_report_set_int(hdgc_report *r, const char *path, long long v);
void hdgc_report_set_string(hdgc_report *r, const char *path, const char *v);
/* Appends a string (NULL: null) to the array at path (made when absent). */
void hdgc_report_push_string(hdgc_report *r, const char *path, const char *v);
/* Appends an empty object to the array at path (made when absent) and returns it: its paths
 * are relative to it; it lives as long as r (not to be freed), also when a later write replaces
 * the array (the object then leaves the document, and writes through it are kept aside). */
hdgc_report *hdgc_report_push(hdgc_report *r, const char *path);
/* The JSON text (to free with hdgc_free), and the same written to path atomically. */
char *hdgc_report_text(const hdgc_report *r);
hdg_status hdgc_report_write(const hdgc_report *r, const char *path, hdg_error *err);

/* A log-log line plot (error against h), written as SVG or PNG by the file name's extension. */
typedef struct hdgc_plot_series {
    const char *label;       /* legend text (NULL: none) */
    int n;                   /* points; those with x or y not finite and positive are left out */
    const double *x, *y;
    int colour, marker;      /* palette colour and marker shape, indices */
} hdgc_plot_series;

typedef struct hdgc_plot {
    int width, height;                      /* pixels, 300..8192 */
    const char *title, *xlabel, *ylabel;    /* may be NULL */
    int nseries;
    const hdgc_plot_series *series;
    int fits;                               /* 1: each series' fitted line, its slope printed */
} hdgc_plot;

/* Least-squares fit of log y = slope log x + icept over the points with x and y finite and
 * positive; returns how many there were (slope, icept NaN with fewer than 2; may be NULL). */
int hdgc_plot_fit(int n, const double *x, const double *y, double *slope, double *icept);
/* 1 for a path ending in .svg, 2 for .png (any case), else 0. */
int hdgc_plot_format(const char *path);
/* Unknown extension, a size out of range: HDG_EINPUT; a path that cannot be written: HDG_EIO. */
hdg_status hdgc_plot_write(const char *path, const hdgc_plot *pl, hdg_error *err);

/* ------------------------------------------------------------------ fields to files */

/* Fields on the equispaced lattice of degree p of each element, as hdgc_field holds them
 * (element by element, npe values in lattice order: runtime/output/vtk.h; a result's own fields,
 * or the caller's): the input of hdgc_vtk_write and hdgc_png_write. */
typedef struct hdgc_lattice_fields {
    int dim;                           /* 2: triangles, 3: tetrahedra */
    int ne;                            /* elements */
    const double *vertices;            /* ne*(dim+1)*dim: element e's vertices x0 y0 (z0) x1 ...,
                                        * as its lattice nodes 0, p (, ...) are */
    int degree;                        /* p: npe = (p+1)(p+2)/2 or (p+1)(p+2)(p+3)/6 values an element */
    int nfields;
    const char *const *names;          /* distinct names */
    const int *ncomp;                  /* per field 1, dim (a vector) or dim*dim (a tensor, row by row);
                                        * NULL: every field a scalar */
    const double *const *values;       /* per component, ne*npe values: the fields in order, each its
                                        * components in order */
    int ncells;                        /* fields of one value per element (the estimates' eta_K) */
    const char *const *cell_names;
    const double *const *cell_values;  /* ncells arrays of ne values */
} hdgc_lattice_fields;

/* The .vtu that hdgc run --vtk writes of these fields (VTK Lagrange triangles or tetrahedra, a
 * vector or tensor as one array of 3 or 9 components, the cell fields as cell data; format
 * "binary" (zlib, the default when NULL) or "ascii"), written atomically. A field of a result
 * written with its unknown's components gives the CLI's file byte for byte. Bad sizes or
 * names, non-finite values (named with the element): HDG_EINPUT; an unwritable path: HDG_EIO. */
hdg_status hdgc_vtk_write(const char *path, const hdgc_lattice_fields *f, const char *format, hdg_error *err);

/* What hdgc_png_write draws (0 or NULL: the defaults of hdgc run --png). */
typedef struct hdgc_png_options {
    int width, height;                 /* pixels, 200..8192 (0: 800) */
    int edges;                         /* 1: the elements' edges (the flat triangles' on tetrahedra) */
    const char *slice;                 /* tetrahedra: "x=C", "y=C" or "z=C", a plane section (NULL: the
                                        * boundary surface from azimuth 30, elevation 25) */
    const char *caption;               /* the text under the picture (NULL: none) */
} hdgc_png_options;

/* A PNG of the scalar field f->names[field] as hdgc run --png draws one (cairo, viridis, colour
 * bar): on triangles the field over the mesh, on tetrahedra the section o->slice or the boundary
 * surface; the field is the polynomial of degree p its lattice values give on each element.
 * A field of several components, a slice on triangles or a plane that cuts no element:
 * HDG_EINPUT with what to give. */
hdg_status hdgc_png_write(const char *path, const hdgc_lattice_fields *f, int field, const hdgc_png_options *o,
                          hdg_error *err);

#ifdef __cplusplus
}
#endif

#endif
