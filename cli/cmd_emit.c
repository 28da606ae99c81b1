/* cmd_emit.c — `hdgc emit FILE.hdg --backend c|cuda [--order k] -o DIR`:
 * writes the generated kernels of a problem as one self-contained source,
 * DIR/<problem>.c (compiles alone with `cc -std=c11 -c`) or DIR/<problem>.cu
 * (compiles alone with `nvcc -ptx -arch=sm_90`). A client of the public API
 * (hdgc_problem_load_with, hdgc_problem_source). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "hdgc.h"
#include "support/util.h"

static void help(void)
{
    printf("usage: hdgc emit FILE.hdg [--backend c|cuda] [--order k] [--set name=value]...\n"
           "                 [--line-directives] -o DIR\n"
           "\n"
           "Writes the kernels hdgc generates for the problem, after the IR passes, to\n"
           "DIR/<problem>.c (C11; compiles alone with `cc -std=c11 -c`) or, with\n"
           "--backend cuda, DIR/<problem>.cu (compiles alone with `nvcc -ptx -arch=sm_90`).\n"
           "Every statement that comes from a term of the .hdg file is preceded by a\n"
           "comment naming file:line:col and the term; --line-directives emits #line\n"
           "directives instead, so compiler messages point into the .hdg file.\n"
           "The C kernels are written as `hdgc run` compiles them: 4 elements at a time\n"
           "(8 on a host with AVX-512), one per SIMD lane, where a kernel allows it (a comment before\n"
           "each kernel says so, or why not); HDGC_BATCH=1 writes them one element at a\n"
           "time (docs/ir.md, \"Kernels batched across SIMD lanes\"); the C kernels' loop\n"
           "nests are fused where no result changes (HDGC_NO_FUSE=1 leaves them apart) and\n"
           "a zero fill's first accumulations assign (HDGC_NO_UNFILL=1 keeps the fill).\n"
           "DIR is created if it does not exist, with its parents. Default backend: c.\n");
}

static int write_file(const char *dir, const char *name, const char *ext, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    if (hdg_make_dirs(path)) {
        fprintf(stderr, "hdgc emit: cannot create directory '%s': %s\n", dir, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
    hdg_ofile o;   /* atomic: a failed write keeps the previous file */
    hdg_error err = {0};
    if (hdg_ofile_open(&o, path, &err) || (fputs(text, o.f), hdg_ofile_commit(&o, &err))) {
        fprintf(stderr, "hdgc emit: cannot write: %s\n", err.msg);
        return 1;
    }
    printf("%s\n", path);
    return 0;
}

static int emit(const hdgc_problem *p, const char *backend, int lines, const char *dir)
{
    char *text;
    hdg_error err = {0};
    if (hdgc_problem_source(p, backend, lines, &text, &err)) {
        fprintf(stderr, "hdgc emit: error: %s\n", err.msg);
        return 1;
    }
    int rc = write_file(dir, hdgc_problem_name(p), strcmp(backend, "cuda") ? ".c" : ".cu", text);
    hdgc_free(text);
    return rc;
}

int hdg_cmd_emit(int argc, char **argv)
{
    hdg_cli_settings cs;
    hdg_cli_settings_init(&cs, argc);
    const char *path = NULL, *dir = NULL, *backend = "c";
    int lines = 0, rc = 2;
    for (int i = 1; i < argc; i++) {
        int r = hdg_cli_settings_option("emit", argc, argv, &i, &cs);
        if (r < 0) goto done;
        if (r) continue;
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { help(); rc = 0; goto done; }
        if (!strcmp(a, "--line-directives")) { lines = 1; continue; }
        if ((!strcmp(a, "-o") || !strcmp(a, "--backend")) && i + 1 < argc) {
            if (a[1] == 'o') dir = argv[++i];
            else backend = argv[++i];
            continue;
        }
        if (a[0] == '-' || path) {
            fprintf(stderr, "hdgc emit: unexpected argument '%s' (see hdgc emit --help)\n", a);
            goto done;
        }
        path = a;
    }
    if (strcmp(backend, "c") && strcmp(backend, "cuda")) {
        fprintf(stderr, "hdgc emit: unknown backend '%s' (c, cuda)\n", backend);
        goto done;
    }
    if (!path || !dir) {
        fprintf(stderr, "hdgc emit: %s (see hdgc emit --help)\n", path ? "-o DIR is required" : "no file given");
        goto done;
    }
    hdgc_problem *p = hdg_cli_load(path, &cs);
    rc = p ? emit(p, backend, lines, dir) : 1;
    hdgc_problem_free(p);
done:
    hdg_cli_settings_free(&cs);
    return rc;
}
