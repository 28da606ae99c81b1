/* run_memory.h — a rough, upper-ish estimate of the memory `hdgc run` needs,
 * from sizes known before anything large is allocated (mesh sizes, degree,
 * unknowns, solver), so that a run too large for the machine is refused with
 * the figure instead of aborting after seconds or minutes. */
#ifndef HDG_RUN_MEMORY_H
#define HDG_RUN_MEMORY_H

#include "drivers/run.h"
#include "runtime/mesh/mesh_size.h"

/* Host bytes of a run of p on a mesh of size s: the mesh (built == 0: its
 * build peak too), and for HDG the element matrices, the trace matrix blocks,
 * the preconditioner, the Krylov vectors and the element data; for DG the
 * states, the stage work arrays, geometry and face maps. */
double hdg_run_memory_bytes(const hdg_problem *p, const hdg_run_options *o, const hdg_mesh_size *s, int built);

/* HDG_ENOMEM "run of NAME on SPEC needs about X GiB, more than the Y GiB
 * available" when the estimate exceeds the memory available (support/util.h). */
hdg_status hdg_run_memory_check(const hdg_problem *p, const hdg_run_options *o, const hdg_mesh_size *s,
                                int built, hdg_error *err);

#endif
