/* solve.c — hdgc_solve and the result object: the run of drivers/run.c with the
 * problem's settings, its report as JSON, the fields from the run's snapshot and
 * the trace vector (include/hdgc.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "runtime/parallel/comm.h"
#include "support/util.h"

/* What the snapshot callback works with during a solve. */
typedef struct capture {
    const hdgc_problem *p;
    hdgc_result *r;
    double *x, *y, *z;        /* the nodes, computed at the first snapshot (z: tetrahedra only) */
    hdgc_field *view;         /* the fields of one step (values borrowed) */
} capture;

/* Lattice point (r, s) of the reference triangle v0 = (-1,-1), v1 = (1,-1), v2 = (-1,1)
 * (tetrahedra: (r, s, t), v3 = (-1,-1,1)) on each element. */
static void nodes(const hdg_snapshot *s, capture *c)
{
    size_t n = (size_t)s->ne * s->nlat;
    int dim = s->dim == 3 ? 3 : 2, nvd = dim * (dim + 1);
    double *out[3] = {c->x = hdg_xmalloc(sizeof(double) * (n + 1)), c->y = hdg_xmalloc(sizeof(double) * (n + 1)),
                      dim == 3 ? (c->z = hdg_xmalloc(sizeof(double) * (n + 1))) : NULL};
    for (int e = 0; e < s->ne; e++) {
        const double *v = s->vxy + (size_t)nvd * e;
        for (int q = 0; q < s->nlat; q++) {
            double l[4] = {0, (1 + s->lr[q]) / 2, (1 + s->ls[q]) / 2, dim == 3 ? (1 + s->lt[q]) / 2 : 0};
            l[0] = 1 - l[1] - l[2] - l[3];
            for (int j = 0; j < dim; j++) {
                double x = 0;
                for (int k = 0; k <= dim; k++) x += l[k] * v[dim * k + j];
                out[j][(size_t)e * s->nlat + q] = x;
            }
        }
    }
}

/* The final fields become the result's (names and values copied; x, y handed over). */
static void keep_final(const hdg_snapshot *s, capture *c)
{
    hdgc_result *r = c->r;
    size_t n = (size_t)s->ne * s->nlat;
    r->nfields = s->nfields;
    r->fields = hdg_xcalloc((size_t)s->nfields + 1, sizeof *r->fields);
    for (int f = 0; f < s->nfields; f++) {
        double *v = hdg_xmalloc(sizeof(double) * (n + 1));
        memcpy(v, s->values[f], sizeof(double) * n);
        r->fields[f] = (hdgc_field){hdg_xstrdup(s->names[f]), s->ne, s->nlat, s->p,
                                    f ? r->fields[0].x : c->x, f ? r->fields[0].y : c->y, v,
                                    f ? r->fields[0].z : c->z};
    }
    if (s->nfields) c->x = c->y = c->z = NULL;   /* owned by fields[0] now */
    r->ncells = s->ncells;
    r->cell_names = hdg_xcalloc((size_t)s->ncells + 1, sizeof *r->cell_names);
    r->cell_values = hdg_xcalloc((size_t)s->ncells + 1, sizeof *r->cell_values);
    for (int f = 0; f < s->ncells; f++) {
        r->cell_names[f] = hdg_xstrdup(s->cell_names[f]);
        r->cell_values[f] = hdg_xmalloc(sizeof(double) * ((size_t)s->ne + 1));
        memcpy(r->cell_values[f], s->cell_values[f], sizeof(double) * (size_t)s->ne);
    }
}

static hdg_status on_snapshot(void *ctx, const hdg_snapshot *s, hdg_error *err)
{
    capture *c = ctx;
    if (!c->x) nodes(s, c);
    const hdgc_problem *p = c->p;
    if (p->step && (p->checked->method == HDG_METHOD_DG || p->checked->transient)) {
        c->view = hdg_xrealloc(c->view, sizeof *c->view * ((size_t)s->nfields + 1));
        for (int f = 0; f < s->nfields; f++)
            c->view[f] = (hdgc_field){s->names[f], s->ne, s->nlat, s->p, c->x, c->y, s->values[f], c->z};
        hdgc_state st = {s->step, s->t, s->final, s->nfields, c->view};
        int rc = p->step(p->step_ctx, &st);
        if (rc) return hdg_fail(err, HDG_EINPUT, "stopped by the step callback (%d)", rc);
    }
    if (s->final && !p->x.no_fields) keep_final(s, c);
    return HDG_OK;
}

hdg_status hdgc_solve(const hdgc_problem *p, hdgc_result **out, hdg_error *err)
{
    if (out) *out = NULL;
    if (!p || !out) return hdg_fail(err, HDG_EINPUT, "hdgc_solve: no problem or no result pointer");
    if (p->solving)
        return hdg_fail(err, HDG_EINPUT, "hdgc_solve: the problem is being solved already (a call from its step "
                        "callback?)");
    hdgc_problem *w = (hdgc_problem *)p;   /* allocated mutable; marked while the solve reads it */
    w->solving = 1;
    hdgc_result *r = hdg_xcalloc(1, sizeof *r);
    r->rep = hdg_report_new();
    capture c = {p, r, NULL, NULL, NULL, NULL};
    hdg_run_fields fields;
    memset(&fields, 0, sizeof fields);
    hdg_run_options ro = p->ro;
    /* the drivers read the mesh only (const in all but the type) */
    ro.mesh_in = p->has_mesh ? (hdg_mesh *)&p->mesh : NULL;
    int keep = !p->x.no_fields, steps = p->step && (p->checked->method == HDG_METHOD_DG || p->checked->transient);
    ro.snapshot = keep || steps ? on_snapshot : NULL;   /* fields off: no output stage at all */
    ro.snapshot_ctx = &c;
    ro.snapshot_every = p->step_every;
    ro.fields = keep ? &fields : NULL;
    ro.t_parse = p->t_parse;
    hdg_error e = {0};
    r->status = hdg_run_problem(p->checked, &ro, r->rep, &e);
    hdg_report_string(r->rep, "status", r->status ? "failed" : "ok");   /* as `hdgc run --json` */
    if (r->status) {
        hdg_report_string(r->rep, "error.kind", hdg_status_name(r->status));
        hdg_report_string(r->rep, "error.message", e.msg);
    }
    r->json = hdg_report_to_string(r->rep);
    r->nwarn = hdg_report_warnings(r->rep, &r->warn_paths, &r->warn_texts);
    const hdg_problem *q = p->checked;
    r->unknowns = hdg_xcalloc((size_t)q->nunknowns + 1, sizeof *r->unknowns);
    for (int u = 0; u < q->nunknowns; u++) r->unknowns[r->nunknowns++] = hdg_xstrdup(q->unknowns[u].name);
    r->trace = fields.trace, r->ntrace = fields.ntrace, r->per_face = fields.trace_per_face;
    fields.trace = NULL;
    r->nv = fields.nv, r->ne = fields.ne, r->xy = fields.xy, r->tri = fields.tri, r->dim = fields.dim;
    fields.xy = NULL, fields.tri = NULL;
    hdg_run_fields_free(&fields);
    free(c.x), free(c.y), free(c.z), free(c.view);
    w->solving = 0;
    if (w->free_pending) hdgc_problem_free(w);   /* freed from the step callback */
    if (err) *err = e;
    *out = r;
    return r->status;
}

void hdgc_result_free(hdgc_result *r)
{
    if (!r) return;
    hdg_report_free(r->rep);
    free(r->json);
    free(r->summary);
    for (int u = 0; u < r->nunknowns; u++) free(r->unknowns[u]);
    free(r->unknowns);
    for (int f = 0; f < r->nfields; f++) free((char *)r->fields[f].name), free((double *)r->fields[f].values);
    if (r->nfields) free((double *)r->fields[0].x), free((double *)r->fields[0].y), free((double *)r->fields[0].z);
    free(r->fields);
    for (int f = 0; f < r->ncells; f++) free(r->cell_names[f]), free(r->cell_values[f]);
    free(r->cell_names), free(r->cell_values);
    free(r->trace), free(r->xy), free(r->tri);
    hdg_report_warnings_free(r->nwarn, r->warn_paths, r->warn_texts);
    free(r);
}

hdg_status hdgc_result_status(const hdgc_result *r) { return r ? r->status : HDG_EINPUT; }
const char *hdgc_result_report(const hdgc_result *r) { return r ? r->json : NULL; }

double hdgc_result_number(const hdgc_result *r, const char *path)
{
    int found = 0;
    double v = r && path ? hdg_report_get_number(r->rep, path, &found) : 0;
    return found ? v : NAN;
}

const char *hdgc_result_string(const hdgc_result *r, const char *path)
{
    return r && path ? hdg_report_get_string(r->rep, path) : NULL;
}

double hdgc_result_error(const hdgc_result *r, const char *unknown)
{
    char path[200];
    snprintf(path, sizeof path, "errors.%s", unknown ? unknown : "");
    return hdgc_result_number(r, path);
}

double hdgc_result_estimate(const hdgc_result *r, const char *unknown)
{
    char path[200];
    snprintf(path, sizeof path, "estimate.%s", unknown ? unknown : "");
    return hdgc_result_number(r, path);
}

int hdgc_result_indicators(const hdgc_result *r, const char *unknown, const double **eta)
{
    if (eta) *eta = NULL;
    char name[200];
    snprintf(name, sizeof name, "estimate_%s", unknown ? unknown : "");
    for (int f = 0; r && unknown && f < r->ncells; f++)
        if (!strcmp(r->cell_names[f], name)) {
            if (eta) *eta = r->cell_values[f];
            return r->nfields ? r->fields[0].ne : 0;
        }
    return 0;
}

int hdgc_result_nwarnings(const hdgc_result *r) { return r ? r->nwarn : 0; }

const char *hdgc_result_warning(const hdgc_result *r, int i, const char **path)
{
    int ok = r && i >= 0 && i < r->nwarn;
    if (path) *path = ok ? r->warn_paths[i] : NULL;
    return ok ? r->warn_texts[i] : NULL;
}

int hdgc_result_nfields(const hdgc_result *r) { return r ? r->nfields : 0; }

const hdgc_field *hdgc_result_field(const hdgc_result *r, int i)
{
    return r && i >= 0 && i < r->nfields ? &r->fields[i] : NULL;
}

const hdgc_field *hdgc_result_field_named(const hdgc_result *r, const char *name)
{
    for (int i = 0; r && name && i < r->nfields; i++)
        if (!strcmp(r->fields[i].name, name)) return &r->fields[i];
    return NULL;
}

int hdgc_result_mesh(const hdgc_result *r, int *nv, const double **xy, const int **tri)
{
    int tris = r && r->dim != 3;   /* tetrahedra: hdgc_result_mesh_simplices */
    if (nv) *nv = tris ? r->nv : 0;
    if (xy) *xy = tris ? r->xy : NULL;
    if (tri) *tri = tris ? r->tri : NULL;
    return tris ? r->ne : 0;
}

int hdgc_result_mesh_simplices(const hdgc_result *r, int *dim, int *nv, const double **coords, const int **cells)
{
    if (dim) *dim = r && r->ne ? r->dim : 0;
    if (nv) *nv = r ? r->nv : 0;
    if (coords) *coords = r ? r->xy : NULL;
    if (cells) *cells = r ? r->tri : NULL;
    return r ? r->ne : 0;
}

long long hdgc_result_trace(const hdgc_result *r, const double **values, int *per_face)
{
    if (values) *values = r ? r->trace : NULL;
    if (per_face) *per_face = r ? r->per_face : 0;
    return r ? r->ntrace : 0;
}

int hdgc_mpi_rank(void)
{
    hdg_comm_start(NULL);
    return hdg_comm_rank();
}

int hdgc_mpi_size(void)
{
    hdg_comm_start(NULL);
    return hdg_comm_size();
}

void hdgc_mpi_abort(int code) { hdg_comm_abort(code); }
