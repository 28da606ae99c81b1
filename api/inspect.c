/* inspect.c — what a checked problem says before any solve: its summary (hdgc check),
 * its unknowns, the IR of its kernels (hdgc ir), their generated C or CUDA source
 * (hdgc emit), its boundary conditions against a mesh's markers (include/hdgc.h). */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "compiler/module.h"
#include "compiler/pipeline.h"
#include "support/util.h"

const char *hdgc_problem_summary(const hdgc_problem *p)
{
    if (!p) return "";
    if (!p->summary) ((hdgc_problem *)p)->summary = hdg_problem_summary(p->checked);   /* made once, kept */
    return p->summary;
}

int hdgc_problem_nunknowns(const hdgc_problem *p) { return p ? p->checked->nunknowns : 0; }

const char *hdgc_problem_unknown(const hdgc_problem *p, int i, int *has_exact)
{
    if (has_exact) *has_exact = 0;
    if (!p || i < 0 || i >= p->checked->nunknowns) return NULL;
    if (has_exact) *has_exact = p->checked->unknowns[i].exact[0] != NULL;
    return p->checked->unknowns[i].name;
}

hdg_status hdgc_problem_ir(const hdgc_problem *p, int optimize, char **text, hdg_error *err)
{
    if (text) *text = NULL;
    if (!p || !text) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_ir: no problem or no text pointer");
    hdg_ir_module *m;
    hdg_status st = hdg_problem_module(p->checked, optimize ? hdg_ir_host_flags() : 0, &m, err);
    if (st) return st;
    hdg_str s;
    hdg_str_init(&s);
    hdg_ir_print_module(m, &s);
    hdg_ir_module_free(m);
    *text = hdg_str_take(&s);
    return HDG_OK;
}

hdg_status hdgc_problem_source(const hdgc_problem *p, const char *backend, int line_directives, char **text,
                               hdg_error *err)
{
    if (text) *text = NULL;
    if (!p || !text || !backend) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_source: no problem, backend or text pointer");
    if (strcmp(backend, "c") && strcmp(backend, "cuda"))
        return hdg_fail(err, HDG_EINPUT, "unknown backend '%s' (c, cuda)", backend);
    hdg_str s;
    hdg_str_init(&s);
    hdg_status st = hdg_problem_source(p->checked, !strcmp(backend, "cuda"), line_directives != 0, &s, err);
    if (st) hdg_str_free(&s);
    else *text = hdg_str_take(&s);
    return st;
}

hdg_status hdgc_problem_check_markers(const hdgc_problem *p, const hdgc_mesh *m, char **diagnostics, hdg_error *err)
{
    if (diagnostics) *diagnostics = NULL;
    if (!p || !m) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_check_markers: no problem or no mesh");
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_diags_set_source(&d, p->file, p->source, p->len);   /* the messages quote the file's lines */
    const hdg_mesh *mesh = hdg_api_mesh(m);
    int n = hdg_problem_check_mesh_dim(p->checked, hdg_mesh_dim(mesh), &d);
    if (!n) n = hdg_problem_check_mesh_markers(p->checked, (const char *const *)mesh->marker_names, mesh->nmarkers + 1, &d);
    if (n > 0 && mesh->periodic)   /* the groups that periodic= paired are gone */
        hdg_diag_add(&d, HDG_DIAG_NOTE, p->checked->boundary_loc.line ? p->checked->boundary_loc : p->checked->loc,
                     "the mesh is periodic (periodic=%s): the paired groups' faces are interior and carry no "
                     "marker", mesh->periodic);
    hdg_status st = n > 0 ? hdg_api_diags_fail(&d, HDG_EINPUT, diagnostics, err) : HDG_OK;
    hdg_diags_free(&d);
    return st;
}
