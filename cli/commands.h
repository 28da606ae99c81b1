/* commands.h — the subcommands of the `hdgc` CLI. Each lives in its own
 * cli/cmd_NAME.c (bench/cmd_bench*.c for the bench commands), takes argv after the command name (argv[0] is the
 * command name), prints its own --help, and returns the process exit code
 * (0 success, 1 user-facing error, 2 bad usage). */
#ifndef HDG_COMMANDS_H
#define HDG_COMMANDS_H

#include <stdio.h>

#include "hdgc.h"

int hdg_cmd_mesh(int argc, char **argv);   /* cmd_mesh.c  */
int hdg_cmd_check(int argc, char **argv);  /* cmd_check.c */
int hdg_cmd_run(int argc, char **argv);    /* cmd_run.c   */
int hdg_cmd_convergence(int argc, char **argv); /* cmd_convergence.c */
int hdg_cmd_bench(int argc, char **argv);  /* cmd_bench.c */
int hdg_cmd_bench_pipeline(int argc, char **argv);  /* cmd_bench_pipeline.c (hdgc bench pipeline) */
int hdg_cmd_bench_stages(int argc, char **argv);    /* cmd_bench_stages.c (hdgc bench stages) */
int hdg_cmd_bench_kernels(int argc, char **argv);   /* cmd_bench_kernels.c (hdgc bench kernels) */
int hdg_cmd_bench_partition(int argc, char **argv); /* cmd_bench_partition.c (hdgc bench partition) */
int hdg_cmd_ir(int argc, char **argv);     /* cmd_ir.c    */
int hdg_cmd_emit(int argc, char **argv);   /* cmd_emit.c  */

/* cmd_common.c. hdg_cli_check_output: an output path named by option opt is
 * checked before any work (not empty, not a directory, its directory exists,
 * not the same file as input); prints "hdgc CMD: OPT 'PATH': why" and returns
 * 2, else 0. hdg_cli_same_file: a and b name the same file (existing or not).
 * hdg_cli_twice: records opt in seen (room for argc entries); 2 with a message
 * if it was there already. */
int hdg_cli_check_output(const char *cmd, const char *opt, const char *path, const char *input);
int hdg_cli_same_file(const char *a, const char *b);
int hdg_cli_twice(const char *cmd, const char **seen, int *nseen, const char *opt);
/* bench/cmd_bench_support.c, for the bench commands (they may use internals): writes r to path
 * (atomic), frees r; on failure prints "hdgc: error: ..." and returns 1, else 0. */
struct hdg_report;
int hdg_cli_write_report(struct hdg_report *r, const char *path);
/* bench/cmd_bench_support.c: "hdgc CMD: " + fmt (one %s: arg) on stderr, then usage(stderr);
 * returns 2 (bad usage). */
int hdg_bench_bad(const char *cmd, void (*usage)(FILE *), const char *fmt, const char *arg);
/* "a..b" or "a" (decimal integers, lo <= a <= b <= hi): 1 with *a, *b set, else 0 (the
 * --orders of the bench commands). */
int hdg_cli_range(const char *s, int lo, int hi, int *a, int *b);

/* --order k and --set name=value of check, ir, emit (cmd_common.c). */
typedef struct hdg_cli_settings {
    int order;              /* 0: the file's */
    int nsets;
    const char **names;     /* room for argc entries (hdg_cli_settings_init) */
    double *values;
} hdg_cli_settings;
void hdg_cli_settings_init(hdg_cli_settings *c, int argc);
void hdg_cli_settings_free(hdg_cli_settings *c);
/* If argv[*i] is --order k or --set name=value, consumes it (advancing *i) and returns 1;
 * returns -1 after printing "hdgc CMD: ..." for a bad value; 0 when it is neither. */
int hdg_cli_settings_option(const char *cmd, int argc, char **argv, int *i, hdg_cli_settings *c);
/* Loads and checks path with the settings (hdgc_problem_load_with), prints its diagnostics
 * (errors, warnings) to stderr; NULL on errors. */
hdgc_problem *hdg_cli_load(const char *path, const hdg_cli_settings *c);

#endif
