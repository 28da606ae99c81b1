/* module.h — a checked problem's IR module, whatever its method family
 * (for `hdgc ir` and `hdgc emit`; the run drivers keep the lowering's layout
 * information and call the lowerings themselves). */
#ifndef HDG_MODULE_H
#define HDG_MODULE_H

#include "frontend/frontend.h"
#include "hdg.h"
#include "ir/ir.h"
#include "support/util.h"

/* Lowers p (HDG or DG) and runs the IR passes of `flags` (hdg_ir_optimize;
 * 0: none) on every kernel. The caller frees *out with hdg_ir_module_free. */
hdg_status hdg_problem_module(const hdg_problem *p, unsigned flags, hdg_ir_module **out,
                              hdg_error *err);

/* The generated source of p's kernels after the IR passes, as one file: C11 (cuda 0,
 * named <problem>.c) or CUDA C (cuda 1, <problem>.cu); line_directives: #line
 * directives instead of comments naming the terms. Appended to out. */
hdg_status hdg_problem_source(const hdg_problem *p, int cuda, int line_directives, hdg_str *out,
                              hdg_error *err);

/* Loads and checks a .hdg file for a bench command; prints the diagnostics to
 * stderr. NULL on errors. */
hdg_problem *hdg_cli_load_problem(const char *path, const hdg_frontend_options *fo);

#endif
