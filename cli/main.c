/* main.c — the `hdgc` command-line entry point: checks the environment (hdgc_check_environment)
 * and dispatches to subcommands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "hdgc.h"
#include "support/util.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"check", hdg_cmd_check, "parse and check a .hdg problem; print diagnostics or a summary"},
    {"run", hdg_cmd_run, "solve a problem on a mesh and report errors, iterations, timings"},
    {"convergence", hdg_cmd_convergence, "run a problem over orders and meshes; table of errors and rates"},
    {"ir", hdg_cmd_ir, "print the IR of a problem's kernels with their cost per element"},
    {"emit", hdg_cmd_emit, "write a problem's generated kernels as C or CUDA source"},
    {"mesh", hdg_cmd_mesh, "build or read a mesh, validate it, print its statistics"},
    {"bench", hdg_cmd_bench, "benchmarks: spmv (trace SpMV, host and GPU), pipeline (stage times per backend),\n"
                             "               stages (element kernels vs FMA peak), kernels (generated vs hand-written),\n"
                             "               partition (mpirun partitions)"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f,
            "hdgc %s — a compiler and runtime for discontinuous finite element methods\n"
            "\n"
            "usage: hdgc <command> [options] [args]\n"
            "       hdgc <command> --help     options of one command\n"
            "       hdgc --version\n"
            "\n"
            "commands:\n",
            HDG_VERSION);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\n"
            "A problem is a .hdg file (see docs/language.md and examples/); a mesh is\n"
            "square:N[,perturb=p][,domain=[a,b]^2][,periodic=x|y|xy] or a Gmsh .msh file (2.2 or\n"
            "4.1 ASCII) [,periodic=A:B], either [,refine=L] (see 'hdgc mesh --help').\n");
}

/* Out of memory in an allocation no estimate foresaw: an error, not abort(). */
/* Under mpirun, on ranks other than 0: the stream kept for errors (quiet_rank). */
static FILE *rank_err;

static void out_of_memory(size_t bytes)
{
    char b[32];
    hdg_format_bytes((double)bytes, b, sizeof b);
    FILE *out = rank_err ? rank_err : stderr;
    char who[32] = "";
    if (rank_err) snprintf(who, sizeof who, "rank %d: ", hdgc_mpi_rank());
    if (bytes) fprintf(out, "hdgc: %serror: out of memory (an allocation of %s failed)\n", who, b);
    else fprintf(out, "hdgc: %serror: out of memory\n", who);
    fflush(out);
    exit(1);
}

/* Under mpirun rank 0 speaks for the job: the others' output goes to
 * /dev/null, but a rank that must end the job alone (out of memory) still
 * says why, on the stream kept as $HDGC_ERROR_FD (the library's too). */
static int quiet_rank(void)
{
    int fd = dup(2);
    char num[16];
    snprintf(num, sizeof num, "%d", fd);
    if (fd < 0 || !(rank_err = fdopen(fd, "w")) || setenv("HDGC_ERROR_FD", num, 1)) return 1;
    return !freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr);
}

/* The environment a command reads, checked before any work (exit 2). */
static int check_env(void)
{
    hdg_error err = {0};
    if (hdgc_check_environment(&err)) {
        fprintf(stderr, "hdgc: %s\n", err.msg);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    hdg_set_oom_handler(out_of_memory);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
        printf("hdgc %s\n", HDG_VERSION);
        return 0;
    }
    if (hdgc_mpi_rank() > 0 && quiet_rank()) return 2;
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(name, commands[i].name)) return check_env() ? 2 : commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "hdgc: unknown command '%s' (try 'hdgc --help')\n", name);
    return 2;
}
