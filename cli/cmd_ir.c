/* cmd_ir.c — `hdgc ir FILE.hdg [--order k] [--set name=value] [--no-opt]`:
 * prints the IR of every kernel the problem lowers to, each headed by its
 * compile-time cost per item (flops, bytes read and written, table bytes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "compiler/module.h"
#include "ir/ir.h"

static void help(void)
{
    printf("usage: hdgc ir FILE.hdg [--order k] [--set name=value]... [--no-opt]\n"
           "\n"
           "Prints the element-batch IR of every kernel of the problem (docs/ir.md), after\n"
           "the IR passes (constant folding, CSE, hoisting, dead code) unless --no-opt.\n"
           "Each kernel starts with its cost per element (or face): floating-point\n"
           "operations, bytes read and written, and the bytes of the constant tables it\n"
           "uses; generated statements carry the file:line:col of the weak-form term\n"
           "they come from.\n");
}

int hdg_cmd_ir(int argc, char **argv)
{
    hdg_frontend_options fo = {0};
    hdg_setting *sets = calloc((size_t)argc + 1, sizeof *sets);
    const char *path = NULL;
    int optimize = 1, rc = 2;
    for (int i = 1; i < argc; i++) {
        int r = hdg_cli_problem_option("ir", argc, argv, &i, &fo, sets);
        if (r < 0) goto done;
        if (r) continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { help(); rc = 0; goto done; }
        if (!strcmp(argv[i], "--no-opt")) { optimize = 0; continue; }
        if (argv[i][0] == '-' || path) {
            fprintf(stderr, "hdgc ir: unexpected argument '%s' (see hdgc ir --help)\n", argv[i]);
            goto done;
        }
        path = argv[i];
    }
    if (!path) { fprintf(stderr, "hdgc ir: no file given (see hdgc ir --help)\n"); goto done; }
    rc = 1;
    hdg_problem *p = hdg_cli_load_problem(path, &fo);
    if (!p) goto done;
    hdg_ir_module *m;
    hdg_error err = {0};
    if (hdg_problem_module(p, optimize, &m, &err)) {
        fprintf(stderr, "hdgc ir: error: %s\n", err.msg);
    } else {
        hdg_str s;
        hdg_str_init(&s);
        hdg_ir_print_module(m, &s);
        fputs(s.s, stdout);
        hdg_str_free(&s);
        hdg_ir_module_free(m);
        rc = 0;
    }
    hdg_problem_free(p);
done:
    free(sets);
    return rc;
}
