/* cmd_emit.c — `hdgc emit FILE.hdg --backend c|cuda [--order k] -o DIR`:
 * writes the generated kernels of a problem as one self-contained source,
 * DIR/<problem>.c (compiles alone with `cc -std=c11 -c`) or DIR/<problem>.cu
 * (compiles alone with `nvcc -ptx -arch=sm_90`). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backends/c/emit.h"
#include "backends/cuda/emit.h"
#include "cli/commands.h"
#include "compiler/module.h"

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
           "DIR is created if it does not exist. Default backend: c.\n");
}

static int write_file(const char *dir, const char *name, const char *ext, const char *text)
{
    if (mkdir(dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "hdgc emit: cannot create directory '%s': %s\n", dir, strerror(errno));
        return 1;
    }
    char path[4096];
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

static int emit(const hdg_problem *p, const char *backend, int lines, const char *dir)
{
    hdg_ir_module *m;
    hdg_error err = {0};
    if (hdg_problem_module(p, 1, &m, &err)) {
        fprintf(stderr, "hdgc emit: error: %s\n", err.msg);
        return 1;
    }
    hdg_str s;
    hdg_str_init(&s);
    char file[256];
    int cuda = !strcmp(backend, "cuda");
    snprintf(file, sizeof file, "%s%s", p->name, cuda ? ".cu" : ".c");
    hdg_status st;
    if (cuda) {
        hdg_emit_cuda_options o = {0};
        o.line_directives = lines;
        o.file_name = file;
        st = hdg_emit_cuda(m, &s, &o, NULL, &err);
    } else {
        hdg_emit_c_options o = {0};
        o.line_directives = lines;
        o.file_name = file;
        st = hdg_emit_c(m, &s, &o, &err);
    }
    int rc = st ? 1 : write_file(dir, p->name, cuda ? ".cu" : ".c", s.s);
    if (st) fprintf(stderr, "hdgc emit: error: %s\n", err.msg);
    hdg_str_free(&s);
    hdg_ir_module_free(m);
    return rc;
}

int hdg_cmd_emit(int argc, char **argv)
{
    hdg_frontend_options fo = {0};
    hdg_setting *sets = calloc((size_t)argc + 1, sizeof *sets);
    const char *path = NULL, *dir = NULL, *backend = "c";
    int lines = 0, rc = 2;
    for (int i = 1; i < argc; i++) {
        int r = hdg_cli_problem_option("emit", argc, argv, &i, &fo, sets);
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
    hdg_problem *p = hdg_cli_load_problem(path, &fo);
    rc = p ? emit(p, backend, lines, dir) : 1;
    hdg_problem_free(p);
done:
    free(sets);
    return rc;
}
