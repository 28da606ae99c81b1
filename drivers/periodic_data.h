/* periodic_data.h — the data of a problem on a periodic mesh checked for periodicity. */
#ifndef HDG_PERIODIC_DATA_H
#define HDG_PERIODIC_DATA_H

#include <stddef.h>

#include "frontend/frontend.h"
#include "runtime/mesh/mesh.h"

/* 1 (and msg, naming the term and the two points) when some volume term's coefficient
 * differs at matching points of the two copies of a periodic face; 0 otherwise (also on
 * a mesh without periodic faces). */
int hdg_periodic_data_check(const hdg_problem *p, const hdg_mesh *M, char *msg, size_t n);

#endif
