/* module.c — problem -> IR module for the inspection commands (module.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/module.h"
#include "support/util.h"
#include "ir/lower.h"
#include "ir/lower_dg.h"
#include "backends/c/emit.h"
#include "backends/cuda/emit.h"

hdg_status hdg_problem_module(const hdg_problem *p, int optimize, hdg_ir_module **out,
                              hdg_error *err)
{
    hdg_status st;
    *out = NULL;
    if (p->method == HDG_METHOD_HDG) {
        hdg_lowered L;
        if ((st = hdg_lower_hdg(p, &L, err))) return st;
        *out = L.mod;
    } else {
        hdg_dg_lowered L;
        if ((st = hdg_lower_dg(p, &L, err))) return st;
        *out = L.mod;
        L.mod = NULL;
        hdg_dg_lowered_free(&L);
    }
    for (int i = 0; optimize && i < (*out)->nkernels; i++)
        if ((st = hdg_ir_optimize((*out)->kernels[i], HDG_IR_OPT_DEFAULT, err))) {
            hdg_ir_module_free(*out);
            *out = NULL;
            return st;
        }
    return HDG_OK;
}

hdg_status hdg_problem_source(const hdg_problem *p, int cuda, int line_directives, hdg_str *out,
                              hdg_error *err)
{
    hdg_ir_module *m;
    hdg_status st = hdg_problem_module(p, 1, &m, err);
    if (st) return st;
    char file[256];
    snprintf(file, sizeof file, "%s%s", p->name, cuda ? ".cu" : ".c");
    if (cuda) {
        hdg_emit_cuda_options o = {0};
        o.line_directives = line_directives;
        o.file_name = file;
        st = hdg_emit_cuda(m, out, &o, NULL, err);
    } else {
        hdg_emit_c_options o = {0};
        o.line_directives = line_directives;
        o.file_name = file;
        st = hdg_emit_c(m, out, &o, err);
    }
    hdg_ir_module_free(m);
    return st;
}

hdg_problem *hdg_cli_load_problem(const char *path, const hdg_frontend_options *fo)
{
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *p = hdg_problem_load(path, fo, &d);
    char *text = hdg_diags_render(&d);
    fputs(text, stderr);
    free(text);
    hdg_diags_free(&d);
    return p;
}

int hdg_cli_problem_option(const char *cmd, int argc, char **argv, int *i,
                           hdg_frontend_options *fo, hdg_setting *sets)
{
    const char *a = argv[*i];
    if (strcmp(a, "--order") && strcmp(a, "--set")) return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "hdgc %s: %s needs a value\n", cmd, a);
        return -1;
    }
    char *v = argv[++*i];
    if (!strcmp(a, "--order")) {
        long k;
        if (!hdg_parse_long(v, 1, 20, &k)) {   /* decimal digits only */
            fprintf(stderr, "hdgc %s: --order %s: expected an integer between 1 and 20\n", cmd, v);
            return -1;
        }
        fo->order = (int)k;
        return 1;
    }
    char *eq = strchr(v, '=');
    double d = 0;
    if (!eq || eq == v || !hdg_parse_double(eq + 1, &d)) {   /* no hex, inf, nan */
        fprintf(stderr, "hdgc %s: --set %s: expected name=number\n", cmd, v);
        return -1;
    }
    *eq = '\0';
    for (int k = 0; k < fo->nsets; k++)
        if (!strcmp(sets[k].name, v)) {
            fprintf(stderr, "hdgc %s: --set %s given twice\n", cmd, v);
            return -1;
        }
    sets[fo->nsets++] = (hdg_setting){v, d};
    fo->sets = sets;
    return 1;
}
