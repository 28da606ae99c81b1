/* report.c — the result's report for people and files: the summary `hdgc run`
 * prints, the JSON written atomically, a status report for a run without a result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "support/util.h"

/* HDG: sizes, solver line, one line per error. */
static void hdg_lines(const hdgc_result *r, hdg_str *s)
{
    const char *ksp = hdgc_result_string(r, "solver.ksp_type"), *pc = hdgc_result_string(r, "solver.pc_type");
    const char *why = hdgc_result_string(r, "solver.converged_reason");
    const char *backend = hdgc_result_string(r, "backend");
    hdg_str_printf(s, "%s (%s, order %.0f, backend %s) on %s: %.0f elements, %.0f faces\n",
                   hdgc_result_string(r, "problem"), hdgc_result_string(r, "method"), hdgc_result_number(r, "order"),
                   backend ? backend : "c", hdgc_result_string(r, "file"), hdgc_result_number(r, "mesh.elements"),
                   hdgc_result_number(r, "mesh.faces"));
    char name[200] = "solver";
    if (ksp && pc && why) snprintf(name, sizeof name, "PETSc %s + %s (%s)", ksp, pc, why);
    double it = hdgc_result_number(r, "solver.iterations");
    const char *stopped = hdgc_result_string(r, "solver.stopped");
    double fl = hdgc_result_number(r, "solver.rounding_floor");
    char at[120] = "";
    if (stopped && !strcmp(stopped, "attainable accuracy"))
        snprintf(at, sizeof at, fl == fl ? " (the rounding floor: eps ||A|| ||x|| / ||b|| = %.1e)"
                                               : " (the attainable accuracy)", fl);
    if (it == it)
        hdg_str_printf(s, "  trace dofs %.0f, %s iterations %.0f, relative residual %.2e%s\n",
                       hdgc_result_number(r, "dofs.trace"), name, it, hdgc_result_number(r, "solver.residual"), at);
    const char *scheme = hdgc_result_string(r, "time.method");
    if (scheme)
        hdg_str_printf(s, "  %s: %.0f steps of dt = %.4g to t = %.4g, %.0f trace solves, %.0f iterations (at most "
                       "%.0f per solve)\n", scheme, hdgc_result_number(r, "time.steps"), hdgc_result_number(r, "time.dt"),
                       hdgc_result_number(r, "time.final"), hdgc_result_number(r, "time.solves"),
                       hdgc_result_number(r, "solver.iterations_total"), hdgc_result_number(r, "solver.iterations_max"));
    for (int u = 0; u < r->nunknowns; u++) {
        double e = hdgc_result_error(r, r->unknowns[u]);
        if (e == e) hdg_str_printf(s, "  L2 error %-8s %.6e\n", r->unknowns[u], e);
    }
    for (int u = 0; u < r->nunknowns; u++) {   /* ||u* - u||, with its ratio to the error */
        double e = hdgc_result_estimate(r, r->unknowns[u]);
        char path[200];
        snprintf(path, sizeof path, "effectivity.%s", r->unknowns[u]);
        double f = hdgc_result_number(r, path);
        if (e != e) continue;
        hdg_str_printf(s, "  estimate %-8s %.6e", r->unknowns[u], e);
        /* in time, ||u* - u|| at the final time measures the spatial error alone */
        if (scheme) hdg_str_printf(s, "  (of the spatial error only, not the time error%s", f == f ? ";" : ")");
        if (f == f) hdg_str_printf(s, "%seffectivity %.3f)", scheme ? " " : "  (", f);
        hdg_str_printf(s, "\n");
    }
}

const char *hdgc_result_summary(const hdgc_result *r)
{
    if (!r) return "";
    if (r->summary) return r->summary;
    hdg_str s;
    hdg_str_init(&s);
    const char *method = hdgc_result_string(r, "method");
    if (method && !strcmp(method, "HDG") && hdgc_result_number(r, "mesh.elements") > 0) hdg_lines(r, &s);
    static const char *stages[] = {"parse", "lower", "compile", "local", "assemble", "solve",
                                   "recover", "postprocess", "errors", "estimate", "setup", "stages", "steps", "output",
                                   "total"};
    double ranks = hdgc_result_number(r, "mpi.ranks");
    if (ranks == ranks)   /* under mpirun: how the work was split */
        hdg_str_printf(&s, "  mpi: %.0f ranks, %.0f-%.0f elements and %.0f-%.0f partition faces a rank, %.0f thread%s "
                       "each, %.3f-%.3fs a rank\n", ranks, hdgc_result_number(r, "mpi.elements_min"),
                       hdgc_result_number(r, "mpi.elements_max"), hdgc_result_number(r, "mpi.interface_faces_min"),
                       hdgc_result_number(r, "mpi.interface_faces_max"), hdgc_result_number(r, "mpi.threads_per_rank"),
                       hdgc_result_number(r, "mpi.threads_per_rank") == 1 ? "" : "s",
                       hdgc_result_number(r, "mpi.seconds_min"), hdgc_result_number(r, "mpi.seconds_max"));
    hdg_str_printf(&s, "  time:");
    for (size_t i = 0; i < sizeof stages / sizeof *stages; i++) {
        char path[64];
        snprintf(path, sizeof path, "timings.%s", stages[i]);
        double t = hdgc_result_number(r, path);
        if (t == t) hdg_str_printf(&s, " %s %.3fs", stages[i], t);
    }
    hdg_str_printf(&s, "%s\n", hdgc_result_number(r, "compile.cache_hits") > 0 ? " (kernels from cache)" : "");
    ((hdgc_result *)r)->summary = hdg_str_take(&s);   /* computed once, kept with the result */
    return r->summary;
}

hdg_status hdgc_result_write_report(hdgc_result *r, const char *path, int exit_code, hdg_error *err)
{
    if (!r || !path) return hdg_fail(err, HDG_EINPUT, "hdgc_result_write_report: no result or no path");
    if (exit_code >= 0) hdg_report_int(r->rep, "exit_code", exit_code);
    return hdg_report_write(r->rep, path, err);
}

hdg_status hdgc_write_status_report(const char *path, const char *status, const char *file, hdg_status code,
                                    const char *message, int exit_code, hdg_error *err)
{
    if (!path || !status) return hdg_fail(err, HDG_EINPUT, "hdgc_write_status_report: no path or no status");
    hdg_report *rep = hdg_report_new();
    hdg_report_string(rep, "status", status);
    if (file) hdg_report_string(rep, "file", file);
    if (exit_code >= 0) hdg_report_int(rep, "exit_code", exit_code);
    if (code) {
        hdg_report_string(rep, "error.kind", hdg_status_name(code));
        hdg_report_string(rep, "error.message", message ? message : "");
    }
    hdg_status st = hdg_report_write(rep, path, err);
    hdg_report_free(rep);
    return st;
}

int hdgc_result_has(const hdgc_result *r, const char *path)
{
    int found = 0;
    if (r && path) hdg_report_get_number(r->rep, path, &found);   /* a number or null */
    return found || (r && path && hdg_report_get_string(r->rep, path));
}

/* ------------------------------------------------------------------ hdgc_report: a JSON document
 * of the caller's, written as hdgc writes its reports (an hdgc_report is an hdg_report). */

static hdg_report *rep(hdgc_report *r) { return (hdg_report *)r; }

hdgc_report *hdgc_report_new(void) { return (hdgc_report *)hdg_report_new(); }
void hdgc_report_free(hdgc_report *r) { hdg_report_free(rep(r)); }

void hdgc_report_set_number(hdgc_report *r, const char *path, double v)
{
    if (r && path) hdg_report_number(rep(r), path, v);
}

void hdgc_report_set_int(hdgc_report *r, const char *path, long long v)
{
    if (r && path) hdg_report_int(rep(r), path, v);
}

void hdgc_report_set_string(hdgc_report *r, const char *path, const char *v)
{
    if (r && path) hdg_report_string(rep(r), path, v);
}

void hdgc_report_push_string(hdgc_report *r, const char *path, const char *v)
{
    if (r && path) hdg_report_array_push_string(rep(r), path, v);
}

hdgc_report *hdgc_report_push(hdgc_report *r, const char *path)
{
    return r && path ? (hdgc_report *)hdg_report_array_push_object(rep(r), path) : NULL;
}

hdg_status hdgc_report_write(const hdgc_report *r, const char *path, hdg_error *err)
{
    if (!r || !path) return hdg_fail(err, HDG_EINPUT, "hdgc_report_write: no report or no path");
    return hdg_report_write((const hdg_report *)r, path, err);
}

char *hdgc_report_text(const hdgc_report *r) { return r ? hdg_report_to_string((const hdg_report *)r) : NULL; }
