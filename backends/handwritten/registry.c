/* registry.c — the hand-written sets, found by module name. */
#include <stdlib.h>
#include <string.h>

#include "backends/handwritten/sets.h"

static const hdg_hw_set poisson = {"poisson", "examples/poisson.hdg", 1, 8, hdg_hw_poisson_c,
                                   hdg_hw_poisson_cuda};
static const hdg_hw_set maxwell2d = {"maxwell2d", "examples/maxwell2d.hdg", 1, 8, hdg_hw_maxwell2d_c,
                                     hdg_hw_maxwell2d_cuda};
static const hdg_hw_set poisson3d = {"poisson3d", "examples/poisson3d.hdg", 1, 6, hdg_hw_poisson3d_c, NULL};
static const hdg_hw_set *const sets[] = {&poisson, &maxwell2d, &poisson3d, NULL};

const hdg_hw_set *const *hdg_hw_sets(void) { return sets; }

const hdg_hw_set *hdg_hw_find(const char *module)
{
    for (int i = 0; sets[i]; i++)
        if (!strcmp(sets[i]->module, module)) return sets[i];
    return NULL;
}

void hdg_hw_cuda_free(hdg_hw_cuda *c)
{
    free(c->source);
    memset(c, 0, sizeof *c);
}
