/* options.c — the run options by name (hdgc_problem_set_option): the names and
 * checks of `hdgc run`'s options, without the dashes. */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "compiler/pipeline.h"
#include "drivers/run_png.h"
#include "runtime/parallel/parallel.h"
#include "support/util.h"

static const char *keep(hdg_api_strings *st, const char *v)
{
    if (st->n == st->cap) {
        st->cap = st->cap ? 2 * st->cap : 8;
        st->s = hdg_xrealloc(st->s, sizeof *st->s * (size_t)st->cap);
    }
    return st->s[st->n++] = hdg_xstrdup(v);
}

void hdg_api_strings_free(hdg_api_strings *st)
{
    for (int i = 0; i < st->n; i++) free(st->s[i]);
    free(st->s);
    memset(st, 0, sizeof *st);
}

static int integer(const char *s, long lo, long hi, int *out)
{
    long v;
    if (!hdg_parse_long(s, lo, hi, &v)) return 0;
    *out = (int)v;
    return 1;
}

/* WxH, each 200..8192 */
static int size_value(const char *v, hdg_run_options *o)
{
    char w[32];
    const char *x = strchr(v, 'x');
    if (!x || x - v >= (long)sizeof w) return 0;
    memcpy(w, v, (size_t)(x - v));
    w[x - v] = '\0';
    return integer(w, 200, 8192, &o->png_width) && integer(x + 1, 200, 8192, &o->png_height);
}

/* A=c with A one of x, y, z and c a decimal number: the plane of --slice. */
int hdg_api_slice_value(const char *v, hdg_run_options *o)
{
    const char *axes = "xyz", *a = v[0] ? strchr(axes, v[0]) : NULL;
    double c;
    if (!a || v[1] != '=' || !hdg_parse_double(v + 2, &c)) return 0;
    o->png_slice = 1 + (int)(a - axes), o->png_slice_at = c;
    return 1;
}

static int on_off(const char *v, int *out)
{
    if (!strcmp(v, "on")) *out = 1;
    else if (!strcmp(v, "off")) *out = 0;
    else return 0;
    return 1;
}

/* Options whose value is a string kept as given. */
static const char **string_slot(hdg_run_options *o, const char *name)
{
    static const struct { const char *name; size_t off; } table[] = {
        {"mesh", offsetof(hdg_run_options, mesh)},       {"backend", offsetof(hdg_run_options, backend)},
        {"solver", offsetof(hdg_run_options, solver)},   {"petsc", offsetof(hdg_run_options, petsc)},
        {"precond", offsetof(hdg_run_options, precond)}, {"format", offsetof(hdg_run_options, format)},
        {"vtk", offsetof(hdg_run_options, vtk)},         {"field", offsetof(hdg_run_options, png_field)},
        {"kernels", offsetof(hdg_run_options, kernels)},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (!strcmp(table[i].name, name)) return (const char **)((char *)o + table[i].off);
    return NULL;
}

static hdg_status number_option(hdg_run_options *o, int *order, const char *a, const char *v, hdg_error *err)
{
    double d;
    int k;
    if (!strcmp(a, "order")) {
        if (!integer(v, 1, 20, order)) return hdg_fail(err, HDG_EINPUT, "--order %s: expected an integer between 1 and 20", v);
    } else if (!strcmp(a, "rtol")) {
        if (!hdg_parse_double(v, &d) || !(d > 0 && d < 1)) return hdg_fail(err, HDG_EINPUT, "--rtol %s: expected a number in (0, 1)", v);
        if (d < DBL_EPSILON)   /* ||b - A x|| / ||b|| carries rounding errors of that size */
            return hdg_fail(err, HDG_EINPUT, "--rtol %s: below the double precision epsilon 2.2e-16, out of any solver's reach", v);
        o->rtol = d;
    } else if (!strcmp(a, "maxit") || !strcmp(a, "every") || !strcmp(a, "restart")) {
        if (!integer(v, 1, 1000000000, &k))
            return hdg_fail(err, HDG_EINPUT, "--%s %s: expected an integer between 1 and 1000000000", a, v);
        if (a[0] == 'm') o->maxit = k;
        else if (a[0] == 'r') o->restart = k;
        else o->every = k;
    } else if (!strcmp(a, "newton-max-steps")) {
        if (!integer(v, 1, 200, &k)) return hdg_fail(err, HDG_EINPUT, "--newton-max-steps %s: expected an integer between 1 and 200", v);
        o->newton_max_steps = k;
    } else if (!strcmp(a, "newton-rtol") || !strcmp(a, "newton-atol")) {
        if (!hdg_parse_double(v, &d) || !(d > 0) || (a[7] == 'r' && !(d < 1)))
            return hdg_fail(err, HDG_EINPUT, "--%s %s: expected a number in %s", a, v, a[7] == 'r' ? "(0, 1)" : "(0, inf)");
        if (a[7] == 'r') o->newton_rtol = d;
        else o->newton_atol = d;
    } else if (!strcmp(a, "cfl") || !strcmp(a, "final-time") || !strcmp(a, "dt")) {
        if (!hdg_parse_double(v, &d) || !(d > 0)) return hdg_fail(err, HDG_EINPUT, "--%s %s: expected a positive decimal number", a, v);
        if (a[0] == 'c') o->cfl = d;
        else if (a[0] == 'd') o->dt = d;
        else o->final_time = d;
    } else return hdg_fail(err, HDG_EINPUT, "unknown option '%s'", a);
    return HDG_OK;
}

hdg_status hdg_api_option(hdg_run_options *o, hdg_api_extra *x, hdg_api_strings *st, const char *name,
                          const char *value, hdg_error *err)
{
    if (!name || !value) return hdg_fail(err, HDG_EINPUT, "an option needs a name and a value");
    if (!strcmp(name, "kernels") && strcmp(value, "generated") && strcmp(value, "handwritten"))
        return hdg_fail(err, HDG_EINPUT, "--kernels %s: expected generated or handwritten", value);
    const char **slot = string_slot(o, name);
    if (slot) {
        *slot = keep(st, value);
        return HDG_OK;
    }
    if (!strcmp(name, "png")) {
        if (!hdg_png_pattern_ok(value))
            return hdg_fail(err, HDG_EINPUT, "--png %s: a frame pattern has one %%d (e.g. %%04d) and no other %%", value);
        o->png = keep(st, value);
    } else if (!strcmp(name, "size")) {
        if (!size_value(value, o)) return hdg_fail(err, HDG_EINPUT, "--size %s: expected WxH, each between 200 and 8192 pixels", value);
    } else if (!strcmp(name, "slice")) {
        if (!hdg_api_slice_value(value, o))
            return hdg_fail(err, HDG_EINPUT, "--slice %s: expected x=C, y=C or z=C (C a decimal number: the plane "
                            "of a 3D mesh drawn by --png)", value);
    } else if (!strcmp(name, "vtk-format")) {
        if (strcmp(value, "ascii") && strcmp(value, "binary"))
            return hdg_fail(err, HDG_EINPUT, "--vtk-format %s: expected ascii or binary", value);
        o->vtk_ascii = !strcmp(value, "ascii");
    } else if (!strcmp(name, "edges")) {
        if (!on_off(value, &o->png_edges)) return hdg_fail(err, HDG_EINPUT, "edges %s: expected on or off", value);
    } else if (!strcmp(name, "cache")) {
        if (!on_off(value, &o->use_cache)) return hdg_fail(err, HDG_EINPUT, "cache %s: expected on or off", value);
    } else if (!strcmp(name, "newton")) {
        if (strcmp(value, "hdgc") && strcmp(value, "snes"))
            return hdg_fail(err, HDG_EINPUT, "--newton %s: expected hdgc (hdgc's own loop) or snes (PETSc's SNES)", value);
        o->newton_snes = !strcmp(value, "snes");
    } else if (!strcmp(name, "newton-check")) {
        if (!on_off(value, &o->newton_check)) return hdg_fail(err, HDG_EINPUT, "--newton-check %s: expected on or off", value);
    } else if (!strcmp(name, "fields")) {
        int on;
        if (!on_off(value, &on)) return hdg_fail(err, HDG_EINPUT, "fields %s: expected on or off", value);
        x->no_fields = !on;
    } else return number_option(o, &x->order, name, value, err);
    return HDG_OK;
}

hdg_status hdgc_check_option(const char *name, const char *value, hdg_error *err)
{
    hdg_run_options o;
    hdg_run_options_default(&o);
    hdg_api_extra x = {0, 0};
    hdg_api_strings st = {0};
    hdg_status s = hdg_api_option(&o, &x, &st, name, value, err);
    hdg_api_strings_free(&st);
    return s;
}

/* The environment the library reads, checked before any work: HDGC_CACHE, HDG_THREADS,
 * HDGC_BATCH, HDGC_MEMORY_LIMIT (the messages `hdgc` prints after "hdgc: "). */
hdg_status hdgc_check_environment(hdg_error *err)
{
    double bytes;
    const char *cache = getenv("HDGC_CACHE"), *ok[] = {"on", "1", "yes", "true", "off", "0", "no", "false"};
    int known = !cache || !*cache;
    for (size_t i = 0; cache && i < sizeof ok / sizeof *ok; i++) known |= !strcasecmp(cache, ok[i]);
    if (!known) return hdg_fail(err, HDG_EINPUT, "HDGC_CACHE=%.64s: expected on or off (1/0, yes/no, true/false)", cache);
    hdg_status st = hdg_parallel_check_env(err);
    if (!st) st = hdg_batch_check_env(err);
    return st ? st : hdg_memory_available(&bytes, err);
}
