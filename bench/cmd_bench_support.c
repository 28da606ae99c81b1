/* cmd_bench_support.c — a helper of the bench commands (bench/cmd_bench*.c), which may use the
 * internals (docs/architecture.md); the cmd_*.c files of cli/ use include/hdgc.h only. */
#include <stdio.h>

#include "cli/commands.h"
#include "runtime/output/report.h"

int hdg_cli_write_report(struct hdg_report *r, const char *path)
{
    hdg_error err = {0};
    hdg_status st = hdg_report_write(r, path, &err);
    hdg_report_free(r);
    if (st) fprintf(stderr, "hdgc: error: %s\n", err.msg);
    return st ? 1 : 0;
}

int hdg_bench_bad(const char *cmd, void (*usage)(FILE *), const char *fmt, const char *arg)
{
    fprintf(stderr, "hdgc %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    usage(stderr);
    return 2;
}
