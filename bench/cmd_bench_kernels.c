/* cmd_bench_kernels.c — `hdgc bench kernels FILE.hdg`: generated vs
 * hand-written kernels (bench/bench_kernels.h). Exit 0 when every compared
 * kernel agrees, 1 when one differs (or on an error), 2 for bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_kernels.h"
#include "cli/commands.h"
#include "support/util.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: hdgc bench kernels FILE.hdg [--orders a..b] [--mesh SPEC] [--backend c|cuda]\n"
               "                         [--threads n] [--reps R] [--json F]\n");
}

static void help(void)
{
    usage(stdout);
    printf("\n"
           "Compares the kernels hdgc generates for FILE.hdg with hand-written ones\n"
           "(backends/handwritten/: examples/poisson.hdg and examples/maxwell2d.hdg, orders 1..8;\n"
           "examples/poisson3d.hdg on tetrahedra, orders 1..6, C kernels only).\n"
           "Per order, both run over every element of the mesh on the same random inputs:\n"
           "their outputs must agree to 1e-12 relative (max |hw - gen| / max |gen| per\n"
           "output), else the kernel is named with its largest difference and the exit\n"
           "status is 1. Both are timed in the same run, alternating, best of --reps.\n"
           "Columns: time per element of each, GFLOP/s and GB/s by the generated kernel's\n"
           "cost model (hdgc ir; the same work for both), gen/hw (the ratio of the times:\n"
           "below 1 the generated kernel is faster) and the largest difference. Kernels\n"
           "without a hand-written counterpart are listed, not compared.\n"
           "\n"
           "options:\n"
           "  --orders a..b   orders (default: the file's)\n"
           "  --mesh SPEC     as for hdgc run (default square:64; cube:16 for a file on tetrahedra)\n"
           "  --backend NAME  c (default: the host) or cuda (the hand-written CUDA kernels\n"
           "                  against the generated CUDA ones on GPU 0, device event times;\n"
           "                  HDGC_LIBCUDA=emulator runs them on the emulator, whose times\n"
           "                  mean nothing)\n"
           "  --threads n     1 (default): one thread, its CPU time; n > 1: the thread\n"
           "                  pool with n threads, wall time\n"
           "  --reps R        timed runs of each (default 5)\n"
           "  --json F        also write the figures to F\n");
}

static int bad(const char *fmt, const char *arg) { return hdg_bench_bad("bench kernels", usage, fmt, arg); }

/* -1: go on; else the exit status. */
static int parse(int argc, char **argv, hdg_bench_kernels_opts *o, const char **json)
{
    memset(o, 0, sizeof *o);
    *json = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long r;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help();
            return 0;
        }
        if (a[0] != '-') {
            if (o->file) return bad("unexpected argument '%s'", a);
            o->file = a;
            continue;
        }
        if (!v) return bad("option %s needs a value", a);
        i++;
        if (!strcmp(a, "--mesh")) o->mesh = v;
        else if (!strcmp(a, "--json")) *json = v;
        else if (!strcmp(a, "--backend")) {
            if (strcmp(v, "c") && strcmp(v, "cuda")) return bad("--backend %s: expected c or cuda", v);
            o->cuda = !strcmp(v, "cuda");
        } else if (!strcmp(a, "--reps")) {
            if (!hdg_parse_long(v, 1, 1000, &r)) return bad("--reps needs an integer 1..1000, not '%s'", v);
            o->reps = (int)r;
        } else if (!strcmp(a, "--threads")) {
            if (!hdg_parse_long(v, 1, 1024, &r)) return bad("--threads needs an integer 1..1024, not '%s'", v);
            o->threads = (int)r;
        } else if (!strcmp(a, "--orders")) {
            if (!hdg_cli_range(v, 1, 16, &o->kmin, &o->kmax))
                return bad("--orders needs a..b with 1 <= a <= b <= 16, not '%s'", v);
        } else return bad("unknown option '%s'", a);
    }
    if (!o->file) return bad("%s", "no FILE.hdg given");
    return hdg_cli_check_output("bench kernels", "--json", *json, o->file) ? 2 : -1;
}

int hdg_cmd_bench_kernels(int argc, char **argv)
{
    hdg_bench_kernels_opts o;
    const char *json;
    int rc = parse(argc, argv, &o, &json);
    if (rc >= 0) return rc;
    hdg_report *rep = json ? hdg_report_new() : NULL;
    hdg_error err = {0};
    int mismatch = 0;
    o.msg = stderr;
    hdg_status st = hdg_bench_kernels(&o, stdout, rep, &mismatch, &err);
    rc = st || mismatch ? 1 : 0;
    if (st) fprintf(stderr, "hdgc bench kernels: error: %s\n", err.msg);
    else if (mismatch) fprintf(stderr, "hdgc bench kernels: %d kernel%s differ%s from the hand-written ones\n",
                               mismatch, mismatch > 1 ? "s" : "", mismatch > 1 ? "" : "s");
    if (rep) {
        if (st) hdg_report_string(rep, "error", err.msg);
        if (hdg_cli_write_report(rep, json)) rc = 1;   /* frees rep */
    }
    return rc;
}
