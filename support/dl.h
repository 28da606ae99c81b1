/* dl.h — finding an optional shared library (NVRTC, cuSPARSE) at run time. */
#ifndef HDG_DL_H
#define HDG_DL_H

#include <stddef.h>

#include "support/util.h"

/* dlopen (RTLD_NOW | RTLD_LOCAL) of the first library that loads: only
 * $env_var when it is set and not empty; else each of names through the
 * loader's search path, then each under /usr/local/cuda/lib64/. chosen (may
 * be NULL) gets the path opened (or tried last); tried gets the paths that
 * failed, comma-separated. NULL when none loads. */
void *hdg_dlopen_first(const char *env_var, const char *const *names, int nnames, char *chosen, size_t nchosen,
                       hdg_str *tried);

/* A table of entry points: field offset in the table struct, symbol name. */
typedef struct hdg_dl_sym {
    size_t off;
    const char *name;
} hdg_dl_sym;

/* Resolves every symbol of syms into table (a struct of function pointers);
 * returns NULL, or the first name h lacks (table then partly filled). */
const char *hdg_dl_resolve(void *h, const hdg_dl_sym *syms, size_t n, void *table);

#endif
