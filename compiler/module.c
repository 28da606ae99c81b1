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
#include "compiler/pipeline.h"

hdg_status hdg_problem_module(const hdg_problem *p, unsigned flags, hdg_ir_module **out,
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
    for (int i = 0; flags && i < (*out)->nkernels; i++)
        if ((st = hdg_ir_optimize((*out)->kernels[i], flags, err))) {
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
    hdg_status st = hdg_problem_module(p, cuda ? HDG_IR_OPT_DEFAULT : hdg_ir_host_flags(), &m, err);
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
        o.batch = hdg_batch_width();
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
