/* api.h — inside the public API (include/hdgc.h): the problem object and the run
 * options by name, shared by the files of api/. Clients include hdgc.h only. */
#ifndef HDG_API_H
#define HDG_API_H

#include "drivers/run.h"
#include "hdgc.h"
#include "runtime/mesh/mesh.h"
#include "runtime/output/report.h"

/* The strings an option points to are owned here. */
typedef struct hdg_api_strings {
    char **s;
    int n, cap;
} hdg_api_strings;

/* Settings of a solve that are not run options of the drivers. */
typedef struct hdg_api_extra {
    int order;                     /* 0: the file's */
    int no_fields;                 /* "fields off": no fields, mesh or trace in the result */
} hdg_api_extra;

struct hdgc_problem {
    char *file;                    /* the name in messages */
    char *source;                  /* the text, parsed again by every solve */
    size_t len;
    hdg_problem *checked;          /* parsed with the current order and params */
    char *warnings;                /* its warnings, rendered ("" none) */
    char *summary;                 /* hdgc_problem_summary of checked, made on the first call */
    hdg_api_extra x;               /* order (0: the file's), fields on/off */
    hdg_setting *sets;             /* names owned */
    int nsets;
    hdg_run_options ro;            /* strings in strings */
    hdg_api_strings strings;
    hdg_mesh mesh;                 /* arrays given by hdgc_problem_set_mesh (has_mesh) */
    int has_mesh;
    hdgc_step_fn step;
    void *step_ctx;
    int step_every;
    double t_parse;                /* seconds the last parse took (timings.parse) */
    int solving;                   /* inside hdgc_solve (its step callback may call back) */
    int free_pending;              /* hdgc_problem_free called during the solve: done at its end */
};

struct hdgc_result {
    hdg_status status;
    hdg_report *rep;
    char *json;
    char *summary;            /* hdgc_result_summary, made on the first call */
    char **unknowns;          /* the problem's unknowns, for the summary */
    int nunknowns;
    int nfields;
    hdgc_field *fields;       /* names, x, y, values owned */
    double *trace;
    long long ntrace;
    int per_face;
    int ncells;               /* fields with one value per element (the estimates' eta_K) */
    char **cell_names;
    double **cell_values;     /* ncells arrays of ne values, owned */
    int nv, ne, dim;          /* the mesh (dim 0: none) */
    double *xy;
    int *tri;
    int nwarn;                /* the report's warnings (hdg_report_warnings) */
    char **warn_paths, **warn_texts;
};

struct hdgc_mesh {
    hdg_mesh mesh;
    char *spec;                    /* as given */
    int geometry;                  /* HDGC_MESH_GEOMETRY: the size ranges below are set */
    double hmin, hmax, rmin, rmax; /* element size and inscribed radius ranges */
    char *info;                    /* hdgc_mesh_info, made on the first call */
};

static inline const hdg_mesh *hdg_api_mesh(const hdgc_mesh *m) { return &m->mesh; }

/* Sets option name (an `hdgc run` option without its dashes, or "fields") in o or x;
 * strings are copied into st. HDG_EINPUT with the message `hdgc run` prints. */
hdg_status hdg_api_option(hdg_run_options *o, hdg_api_extra *x, hdg_api_strings *st, const char *name,
                          const char *value, hdg_error *err);
void hdg_api_strings_free(hdg_api_strings *st);

/* The rendered diagnostics of d, trailing newlines dropped, as a failure with code;
 * *text (when text is not NULL) receives the whole rendering (err->msg may cut it). */
hdg_status hdg_api_diags_fail(const hdg_diags *d, hdg_status code, char **text, hdg_error *err);

/* HDG_EINPUT naming fn when p is being solved (a call from the step callback): what the solve
 * reads (the checked problem, the mesh, the options) must not change under it. */
hdg_status hdg_api_idle(const hdgc_problem *p, const char *fn, hdg_error *err);

/* Parses p->source with p->order and p->sets into p->checked (replacing it). */
hdg_status hdg_api_reparse(hdgc_problem *p, hdg_error *err);

/* "x=C", "y=C" or "z=C" into o->png_slice (1..3), o->png_slice_at; 0 when v is not that. */
int hdg_api_slice_value(const char *v, hdg_run_options *o);

#endif
