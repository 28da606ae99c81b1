/* vtk_dist.h — VTK output of a mesh split over the ranks of an mpirun job
 * (issue 16). Every rank passes its own elements with their global ids; what
 * is written depends on the ending of the path:
 *
 *   .pvtu  each rank writes its piece BASE_p<rank>.vtu beside the path (BASE:
 *          the path without ".pvtu"; rank unpadded: out_p0.vtu, out_p1.vtu),
 *          then rank 0 writes the parallel file listing them, relative to its
 *          directory (ParaView opens the .pvtu; move the files together);
 *   .pvd   the same for the snapshot BASE_00000.pvtu (pieces
 *          BASE_00000_p<rank>.vtu) and a one-entry collection (time 0)
 *          listing it, as the serial .pvd lists BASE_00000.vtu;
 *   other  (.vtu) one file, written by rank 0 from every rank's elements
 *          gathered in global element order: the layout of the serial run's
 *          file. Rank 0 holds the whole output for a moment: use .pvtu for
 *          large runs.
 *
 * On one process .vtu and .pvd are hdg_vtk_write_snapshot_data's files and
 * .pvtu is a parallel file of one piece. The checks and the atomic writing are
 * vtk.h's; the parallel file (and the collection) is written only once every
 * piece is whole. Collective: every rank returns the same status. */
#ifndef HDG_VTK_DIST_H
#define HDG_VTK_DIST_H

#include "runtime/output/vtk.h"

/* 1 when path ends in ".pvtu". */
int hdg_vtk_is_parallel(const char *path);

/* The number of .vtu files that hdg_vtk_write_dist writes for path: the
 * ranks for .pvtu (and .pvd under mpirun), else 1. */
int hdg_vtk_dist_pieces(const char *path);

/* D: what this rank writes (vtk.h); egid: the global id (0..ne_global-1) of
 * each of its ne elements (NULL on one process: 0..ne-1). */
hdg_status hdg_vtk_write_dist(const char *path, const hdg_vtk_data *D, const long long *egid, long long ne_global,
                              hdg_error *err);

#endif
