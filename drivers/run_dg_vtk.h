/* run_dg_vtk.h — the VTK output of the explicit DG drivers (run_dg_vtk.c),
 * used by the LSERK4 loop (run_dg_loop.c). Not a public header. */
#ifndef HDG_RUN_DG_VTK_H
#define HDG_RUN_DG_VTK_H

#include "drivers/run_dg_common.h"

/* A .pvd series is written under staging names, BASE.partial_NNNNN.vtu listed
 * by BASE.partial.pvd (updated at each output, so a run that stops or blows
 * up leaves it to look at), and only a run that reaches the final time renames
 * the files to BASE_NNNNN.vtu and writes BASE.pvd: a previous good series is
 * never overwritten by a failed one. */
typedef struct hdg_dg_vtk {
    const char *path;       /* .pvd (series) or .vtu (final only) */
    char *base, *partial;   /* series: path without .pvd; BASE.partial.pvd */
    int series;
    int p, nlat, dim;
    double *I, *vxy, **vals, *lat;   /* lat: the lattice, r then s (then t) */
    char names[HDG_DG_MAX_FIELDS][64];    /* per component: "Ez", "u_x" (the snapshot's) */
    int nu, ncomp[HDG_DG_MAX_FIELDS];     /* the unknowns: the .vtu's fields ("u" of 2 components) */
    const char *unames[HDG_DG_MAX_FIELDS];
    int ascii;                            /* --vtk-format ascii */
    char **files;
    double *times;
    int nfiles;
} hdg_dg_vtk;

/* path NULL: the lattice values only (for opt->snapshot). */
void hdg_dg_vtk_open(hdg_dg_vtk *v, const hdg_dg_data *d, const char *path);
/* The state of eng at time t as the next file of the output. */
hdg_status hdg_dg_vtk_write_state(hdg_dg_vtk *v, const hdg_dg_data *d, const hdg_dg_engine *eng, double t,
                                  hdg_error *err);
/* opt->snapshot: the state after step steps (time t) when it is due. */
hdg_status hdg_dg_vtk_snapshot(hdg_dg_vtk *v, const hdg_dg_data *d, const hdg_dg_engine *eng,
                               const hdg_run_options *opt, long long step, double t, int final, hdg_error *err);
/* The run reached its final time: the staged series becomes the final one. */
hdg_status hdg_dg_vtk_commit(hdg_dg_vtk *v, const hdg_dg_data *d, hdg_error *err);
/* A failed run: err's message says where the staged series is. */
void hdg_dg_vtk_failed(const hdg_dg_vtk *v, hdg_error *err);
void hdg_dg_vtk_close(hdg_dg_vtk *v, int nfields);

#endif
