/* dl.c — see dl.h. */
#include "support/dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *hdg_dlopen_first(const char *env_var, const char *const *names, int nnames, char *chosen, size_t nchosen,
                       hdg_str *tried)
{
    static const char *const dirs[] = { "", "/usr/local/cuda/lib64/" };
    char path[512];
    const char *env = env_var ? getenv(env_var) : NULL;
    if (env && *env) {
        if (chosen) snprintf(chosen, nchosen, "%s", env);
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (!h) hdg_str_puts(tried, env);
        return h;
    }
    for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++)
        for (int i = 0; i < nnames; i++) {
            snprintf(path, sizeof path, "%s%s", dirs[d], names[i]);
            if (chosen) snprintf(chosen, nchosen, "%s", path);
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (h) return h;
            hdg_str_printf(tried, "%s%s", tried->len ? ", " : "", path);
        }
    return NULL;
}

const char *hdg_dl_resolve(void *h, const hdg_dl_sym *syms, size_t n, void *table)
{
    for (size_t i = 0; i < n; i++) {
        void *f = dlsym(h, syms[i].name);
        if (!f) return syms[i].name;
        memcpy((char *)table + syms[i].off, &f, sizeof f);
    }
    return NULL;
}
