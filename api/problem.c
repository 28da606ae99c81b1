/* problem.c — hdgc_problem: the source text, the order, params and run options a
 * solve uses, and a mesh given as arrays (include/hdgc.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/api.h"
#include "support/progress.h"
#include "support/util.h"

hdg_status hdg_api_diags_fail(const hdg_diags *d, hdg_status code, char **full, hdg_error *err)
{
    char *text = hdg_diags_render(d);
    size_t n = strlen(text);
    if (full) *full = hdg_xstrdup(text);
    while (n && text[n - 1] == '\n') text[--n] = '\0';
    hdg_status st = hdg_fail(err, code, "%s", text);
    free(text);
    return st;
}

/* q (parsed since t0, its warnings in d) becomes the checked problem of p. */
static void adopt(hdgc_problem *p, hdg_problem *q, const hdg_diags *d, double t0)
{
    hdg_problem_free(p->checked);
    free(p->warnings);
    free(p->summary);
    p->summary = NULL;
    p->checked = q;
    p->warnings = hdg_diags_render(d);
    p->t_parse = hdg_wtime() - t0;
}

hdg_status hdg_api_reparse(hdgc_problem *p, hdg_error *err)
{
    hdg_frontend_options fo = {p->x.order, p->sets, p->nsets};
    double t0 = hdg_wtime();
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *q = hdg_problem_parse(p->file, p->source, p->len, &fo, &d);
    hdg_status st = q ? HDG_OK : hdg_api_diags_fail(&d, HDG_EINPUT, NULL, err);
    if (q) adopt(p, q, &d, t0);
    hdg_diags_free(&d);
    return st;
}

static hdgc_problem *make(const char *file, char *source, size_t len)
{
    hdgc_problem *p = hdg_xcalloc(1, sizeof *p);
    p->file = hdg_xstrdup(file);
    p->source = source;
    p->len = len;
    hdg_run_options_default(&p->ro);
    return p;
}

/* The frontend reads the file (a regular file of at most 1 GiB, its messages) and checks
 * it with fo: HDG_EIO when it is not there or not a regular file, else HDG_EINPUT; the
 * problem it gives is kept, so the text read after it is parsed again only when a setting
 * changes. *diags (diags not NULL) receives the rendered diagnostics. */
static hdg_status load(const char *path, const hdg_frontend_options *fo, hdgc_problem **out, char **diags,
                       hdg_error *err)
{
    double t0 = hdg_wtime();
    hdg_diags d;
    hdg_diags_init(&d);
    hdg_problem *q = hdg_problem_load(path, fo, &d);
    struct stat sb;
    hdg_status st = q ? HDG_OK
                      : hdg_api_diags_fail(&d, stat(path, &sb) || !S_ISREG(sb.st_mode) ? HDG_EIO : HDG_EINPUT, diags, err);
    if (q && diags) *diags = hdg_diags_render(&d);
    char *text = NULL;
    size_t len = 0;
    if (!st) st = hdg_read_file(path, &text, &len, err);
    if (!st) {
        *out = make(path, text, len);
        adopt(*out, q, &d, t0);
    } else hdg_problem_free(q);
    hdg_diags_free(&d);
    return st;
}

hdg_status hdgc_problem_load(const char *path, hdgc_problem **out, hdg_error *err)
{
    if (!out) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_load: out is NULL");
    *out = NULL;
    if (!path) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_load: no path");
    return load(path, NULL, out, NULL, err);
}

/* The settings of hdgc_problem_load_with, checked. */
static hdg_status check_settings(int order, int nparams, const char *const *names, const double *values,
                                 hdg_error *err)
{
    if (order < 0 || order > 20) return hdg_fail(err, HDG_EINPUT, "--order %d: expected an integer between 1 and 20", order);
    if (nparams < 0 || (nparams > 0 && (!names || !values)))
        return hdg_fail(err, HDG_EINPUT, "hdgc_problem_load_with: %d params without their names and values", nparams);
    for (int i = 0; i < nparams; i++) {
        if (!names[i] || !*names[i]) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_load_with: param %d has no name", i);
        if (!isfinite(values[i])) return hdg_fail(err, HDG_EINPUT, "param %s: the value is not finite", names[i]);
        for (int k = 0; k < i; k++)
            if (!strcmp(names[k], names[i])) return hdg_fail(err, HDG_EINPUT, "param %s given twice", names[i]);
    }
    return HDG_OK;
}

hdg_status hdgc_problem_load_with(const char *path, int order, int nparams, const char *const *names,
                                  const double *values, hdgc_problem **out, char **diagnostics, hdg_error *err)
{
    if (diagnostics) *diagnostics = NULL;
    if (!out) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_load_with: out is NULL");
    *out = NULL;
    if (!path) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_load_with: no path");
    hdg_status st = check_settings(order, nparams, names, values, err);
    if (st) return st;
    hdg_setting *sets = hdg_xcalloc((size_t)nparams + 1, sizeof *sets);
    for (int i = 0; i < nparams; i++) sets[i] = (hdg_setting){hdg_xstrdup(names[i]), values[i]};
    hdg_frontend_options fo = {order, sets, nparams};
    st = load(path, &fo, out, diagnostics, err);
    if (st) {
        for (int i = 0; i < nparams; i++) free((char *)sets[i].name);
        free(sets);
        return st;
    }
    (*out)->sets = sets, (*out)->nsets = nparams, (*out)->x.order = order;   /* kept for the next parses */
    return HDG_OK;
}

void hdgc_free(void *ptr) { free(ptr); }

hdg_status hdgc_problem_parse(const char *name, const char *source, hdgc_problem **out, hdg_error *err)
{
    if (!out) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_parse: out is NULL");
    *out = NULL;
    if (!source) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_parse: no source text");
    hdgc_problem *p = make(name ? name : "<string>", hdg_xstrdup(source), strlen(source));
    hdg_status st = hdg_api_reparse(p, err);
    if (st) hdgc_problem_free(p);
    else *out = p;
    return st;
}

hdg_status hdg_api_idle(const hdgc_problem *p, const char *fn, hdg_error *err)
{
    if (!p->solving) return HDG_OK;
    return hdg_fail(err, HDG_EINPUT, "%s: the problem is being solved (a call from its step callback?); change it "
                    "after hdgc_solve returns", fn);
}

void hdgc_problem_free(hdgc_problem *p)
{
    if (!p) return;
    if (p->solving) {   /* from the step callback: the solve frees it when it ends */
        p->free_pending = 1;
        return;
    }
    hdg_problem_free(p->checked);
    free(p->warnings), free(p->summary);
    for (int i = 0; i < p->nsets; i++) free((char *)p->sets[i].name);
    free(p->sets);
    hdg_api_strings_free(&p->strings);
    hdg_mesh_free(&p->mesh);
    free(p->file), free(p->source);
    free(p);
}

const char *hdgc_problem_name(const hdgc_problem *p) { return p ? p->checked->name : NULL; }
const char *hdgc_problem_method(const hdgc_problem *p) { return p ? hdg_method_name(p->checked->method) : NULL; }
int hdgc_problem_order(const hdgc_problem *p) { return p ? p->checked->degree : 0; }
int hdgc_problem_transient(const hdgc_problem *p)
{
    return p && (p->checked->method == HDG_METHOD_DG || p->checked->transient);
}
int hdgc_problem_nonlinear(const hdgc_problem *p) { return p && p->checked->nonlinear; }
int hdgc_problem_dim(const hdgc_problem *p) { return p ? p->checked->dim : 2; }
const char *hdgc_problem_warnings(const hdgc_problem *p) { return p && p->warnings ? p->warnings : ""; }

int hdgc_problem_nparams(const hdgc_problem *p) { return p ? p->checked->nparams : 0; }

const char *hdgc_problem_param(const hdgc_problem *p, int i, double *value)
{
    if (!p || i < 0 || i >= p->checked->nparams) return NULL;
    if (value) *value = p->checked->params[i].value;
    return p->checked->params[i].name;
}

hdg_status hdgc_problem_set_output(hdgc_problem *p, FILE *log, int progress, hdg_error *err)
{
    if (!p) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_set_output: no problem");
    hdg_status st = hdg_api_idle(p, "hdgc_problem_set_output", err);
    if (st) return st;
    p->ro.log = log;
    p->ro.progress = progress < 0 ? hdg_progress_tty() : progress != 0;
    return HDG_OK;
}

hdg_status hdgc_problem_set_param(hdgc_problem *p, const char *name, double value, hdg_error *err)
{
    if (!p || !name) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_set_param: no problem or no name");
    if (!isfinite(value)) return hdg_fail(err, HDG_EINPUT, "param %s: the value is not finite", name);
    if (hdg_api_idle(p, "hdgc_problem_set_param", err)) return HDG_EINPUT;
    int i = 0;
    while (i < p->nsets && strcmp(p->sets[i].name, name)) i++;
    double old = 0;
    int added = i == p->nsets;
    if (added) {
        p->sets = hdg_xrealloc(p->sets, sizeof *p->sets * (size_t)(p->nsets + 1));
        p->sets[p->nsets++] = (hdg_setting){hdg_xstrdup(name), value};
    } else {
        old = p->sets[i].value;
        p->sets[i].value = value;
    }
    hdg_status st = hdg_api_reparse(p, err);
    if (st && added) free((char *)p->sets[--p->nsets].name);   /* as it was */
    else if (st) p->sets[i].value = old;
    return st;
}

/* A time or Newton option the problem has no use for is refused, as `hdgc run` refuses it. */
static hdg_status option_family(const hdgc_problem *p, const char *name, hdg_error *err)
{
    static const char *const time[] = {"cfl", "dt", "final-time", "every"};
    const hdg_problem *q = p->checked;
    int dg = q->method == HDG_METHOD_DG, transient = dg || q->transient;
    if ((!strncmp(name, "newton-", 7) || !strcmp(name, "newton")) && (dg || !q->nonlinear))
        return hdg_fail(err, HDG_EINPUT, "--%s applies to nonlinear HDG problems (Newton); problem '%s' is %s", name,
                        q->name, dg ? "explicit DG (no Newton)" : "linear (one linear solve)");
    if (!dg && transient && !strcmp(name, "cfl"))
        return hdg_fail(err, HDG_EINPUT, "--cfl applies to explicit DG problems; problem '%s' is HDG with implicit "
                        "time stepping (its step is the file's 'dt', or the option dt)", q->name);
    for (size_t i = 0; !transient && i < sizeof time / sizeof *time; i++)
        if (!strcmp(name, time[i]))
            return hdg_fail(err, HDG_EINPUT, "--%s applies to time-dependent (DG) problems; problem '%s' is steady HDG",
                            name, q->name);
    return HDG_OK;
}

hdg_status hdgc_problem_set_option(hdgc_problem *p, const char *name, const char *value, hdg_error *err)
{
    if (!p) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_set_option: no problem");
    if (hdg_api_idle(p, "hdgc_problem_set_option", err)) return HDG_EINPUT;
    hdg_run_options ro = p->ro;
    hdg_api_extra x = p->x;
    hdg_status st = hdg_api_option(&ro, &x, &p->strings, name, value, err);
    if (!st) st = option_family(p, name, err);
    if (st) return st;
    p->x.no_fields = x.no_fields;
    if (x.order != p->x.order) {
        int was = p->x.order;
        p->x.order = x.order;
        if ((st = hdg_api_reparse(p, err))) {
            p->x.order = was;
            return st;
        }
    }
    if (!strcmp(name, "mesh") && p->has_mesh) hdg_mesh_free(&p->mesh), p->has_mesh = 0;
    p->ro = ro;
    return HDG_OK;
}

hdg_status hdgc_problem_on_step(hdgc_problem *p, int every, hdgc_step_fn fn, void *ctx, hdg_error *err)
{
    if (!p) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_on_step: no problem");
    if (hdg_api_idle(p, "hdgc_problem_on_step", err)) return HDG_EINPUT;
    if (fn && every < 1) return hdg_fail(err, HDG_EINPUT, "hdgc_problem_on_step: every = %d, expected >= 1", every);
    p->step = fn, p->step_ctx = ctx, p->step_every = fn ? every : 0;
    return HDG_OK;
}
