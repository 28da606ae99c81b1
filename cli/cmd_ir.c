/* cmd_ir.c — `hdgc ir FILE.hdg [--order k] [--set name=value] [--no-opt]`:
 * prints the IR of every kernel the problem lowers to, each headed by its
 * compile-time cost per item (flops, bytes read and written, table bytes).
 * A client of the public API (hdgc_problem_load_with, hdgc_problem_ir). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "hdgc.h"

static void help(void)
{
    printf("usage: hdgc ir FILE.hdg [--order k] [--set name=value]... [--no-opt]\n"
           "\n"
           "Prints the element-batch IR of every kernel of the problem (docs/ir.md), after\n"
           "the IR passes (constant folding, CSE, hoisting, dead code, and the C backend's\n"
           "loop fusion and zero-fill removal unless HDGC_NO_FUSE=1, HDGC_NO_UNFILL=1)\n"
           "unless --no-opt.\n"
           "Each kernel starts with its cost per element (or face): floating-point\n"
           "operations, bytes read and written, and the bytes of the constant tables it\n"
           "uses; generated statements carry the file:line:col of the weak-form term\n"
           "they come from.\n");
}

int hdg_cmd_ir(int argc, char **argv)
{
    hdg_cli_settings cs;
    hdg_cli_settings_init(&cs, argc);
    const char *path = NULL;
    int optimize = 1, rc = 2;
    for (int i = 1; i < argc; i++) {
        int r = hdg_cli_settings_option("ir", argc, argv, &i, &cs);
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
    hdgc_problem *p = hdg_cli_load(path, &cs);
    if (!p) goto done;
    char *text;
    hdg_error err = {0};
    if (hdgc_problem_ir(p, optimize, &text, &err)) {
        fprintf(stderr, "hdgc ir: error: %s\n", err.msg);
    } else {
        fputs(text, stdout);
        hdgc_free(text);
        rc = 0;
    }
    hdgc_problem_free(p);
done:
    hdg_cli_settings_free(&cs);
    return rc;
}
