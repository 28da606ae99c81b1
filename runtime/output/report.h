/* report.h — the JSON run report (errors, rates, timings, iterations, sizes),
 * built on cJSON.
 *
 * Values are addressed by dotted paths: "errors.u" is key "u" inside object
 * "errors". Setting a path creates the missing objects on the way; anything
 * already at the path is replaced, and a non-object met on the way is replaced
 * by an object (the last write wins). Segments are taken literally (no escapes,
 * no array indices). Keys keep their first-insertion order.
 *
 * The text is valid UTF-8: in strings and keys, a byte that is not part of a
 * well-formed UTF-8 sequence (a marker name or a path read from a file) is
 * written as the four characters \xNN; a lookup by the raw path finds it.
 *
 * Numbers round-trip: each double is printed with the fewest significant
 * digits (15, 16 or 17) that read back to the same bits (cJSON 1.7.15's own
 * printer may drop the last digit: 0.1+0.2 would print as 0.3). Integers are
 * printed exactly. NaN and infinities become JSON null.
 *
 * Out of memory goes to hdg_out_of_memory (support/util.h), as hdg_xmalloc
 * does; no function here prints. */
#ifndef HDG_REPORT_H
#define HDG_REPORT_H

#include "hdg.h"

typedef struct hdg_report hdg_report;

/* An empty report ({}). */
hdg_report *hdg_report_new(void);

/* Frees a report and every child handle made from it. NULL and child
 * handles are ignored (children die with their top-level report). */
void hdg_report_free(hdg_report *r);

void hdg_report_number(hdg_report *r, const char *path, double v);    /* non-finite -> null */
void hdg_report_int(hdg_report *r, const char *path, long long v);
void hdg_report_string(hdg_report *r, const char *path, const char *v); /* NULL -> null */
void hdg_report_bool(hdg_report *r, const char *path, int v);

/* Appends to the array at path; if something else (or nothing) is there, it
 * is replaced by a new array first. */
void hdg_report_array_push_number(hdg_report *r, const char *path, double v);
void hdg_report_array_push_string(hdg_report *r, const char *path, const char *v);   /* NULL -> null */

/* Appends a new empty object to the array at path (created as above) and
 * returns a handle to it: a report whose paths are relative to that object,
 * e.g. one row of a convergence table:
 *     hdg_report *row = hdg_report_array_push_object(r, "convergence");
 *     hdg_report_int(row, "n", 16); hdg_report_number(row, "errors.u", e);
 * The handle is owned by the top-level report: it stays valid until that
 * report is freed. When a later write through a path replaces the array (or
 * an object holding it), the object leaves the document but the handle stays
 * usable (what is written through it is kept aside, not written out). Do not
 * free it. */
hdg_report *hdg_report_array_push_object(hdg_report *r, const char *path);

/* The report as indented JSON text; the caller frees it with free(). */
char *hdg_report_to_string(const hdg_report *r);

/* Writes the JSON text (and a final newline) to the file at path, atomically
 * (a temporary file renamed over path: on a write error the previous report
 * is left as it was; see hdg_ofile in support/util.h). */
hdg_status hdg_report_write(const hdg_report *r, const char *path, hdg_error *err);

/* The number at path. *found (when non-NULL) is 1 if path names a number
 * (or a null, which reads as NaN), else 0 and the result is NaN. */
double hdg_report_get_number(const hdg_report *r, const char *path, int *found);
/* The string at path, or NULL when absent or not a string (owned by r). */
const char *hdg_report_get_string(const hdg_report *r, const char *path);

/* The report's warnings, in the order of the document: every string whose key is
 * "warning" (solver.warning, mesh.warning, compile.warning) or that sits in an object
 * named "warnings" (warnings.mean, warnings.mpi). Returns how many; (*paths)[i] is the
 * dotted path of the i-th, (*texts)[i] its text: arrays and strings to free with
 * hdg_report_warnings_free. */
int hdg_report_warnings(const hdg_report *r, char ***paths, char ***texts);
void hdg_report_warnings_free(int n, char **paths, char **texts);

#endif
