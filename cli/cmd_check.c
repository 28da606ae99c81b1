/* cmd_check.c — `hdgc check FILE.hdg [--order k] [--set name=value]... [--mesh M]`:
 * parses and checks a problem (and, with --mesh, its boundary conditions against
 * the mesh's markers); prints the diagnostics (exit 1) or a summary of the
 * checked problem (exit 0). Bad usage exits 2. A client of the public API
 * (hdgc_problem_load_with, hdgc_problem_summary, hdgc_mesh_load,
 * hdgc_problem_check_markers). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "hdgc.h"
#include "support/util.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: hdgc check FILE.hdg [--order k] [--set name=value]... [--mesh MESH]\n");
}

static void help(void)
{
    usage(stdout);
    printf("\n"
           "Parses and checks a problem written in the weak-form language (docs/language.md).\n"
           "On errors, prints each as 'file:line:col: error: message' with the source line\n"
           "and a caret, and exits 1. Otherwise prints a summary of the checked problem:\n"
           "method family (HDG or DG), params, funcs, spaces, unknowns, and every equation\n"
           "expanded into scalar terms with their classification; exits 0.\n"
           "\n"
           "options:\n"
           "  --order k           use polynomial degree k (1..20, DG 1..12) instead of the file's\n"
           "  --set name=value    override a param (repeatable; value is a number)\n"
           "  --mesh MESH         also check the boundary conditions against the markers of\n"
           "                      MESH (square:N, cube:N or a .msh file, see 'hdgc mesh --help'):\n"
           "                      every marker needs a condition, every named marker must exist\n"
           "  --help              this text\n"
           "\n"
           "Bad usage exits 2.\n");
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "hdgc check: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    usage(stderr);
    return 2;
}

static int parse_number(const char *s, double *v)
{
    return hdg_parse_double(s, v);   /* decimal only: no hex, inf, nan */
}

/* Loads the mesh and checks the markers, printing the errors; 1 when there were some. */
static int check_mesh(const hdgc_problem *p, const char *spec)
{
    hdgc_mesh *m;
    hdg_error err = {0};
    if (hdgc_mesh_load(spec, 0, &m, &err)) {
        fprintf(stderr, "error: --mesh %s: %s\n", spec, err.msg);   /* as a diagnostic without a place */
        return 1;
    }
    char *diags = NULL;
    hdg_status st = hdgc_problem_check_markers(p, m, &diags, &err);
    if (st) fputs(diags ? diags : err.msg, stderr);
    hdgc_free(diags);
    hdgc_mesh_free(m);
    return st != HDG_OK;
}

int hdg_cmd_check(int argc, char **argv)
{
    const char *path = NULL, *mesh = NULL;
    hdg_cli_settings cs;
    hdg_cli_settings_init(&cs, argc);
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help();
            rc = 0;
            goto done;
        } else if (!strcmp(a, "--order")) {
            double v;
            if (i + 1 >= argc) { rc = bad_usage("--order needs a value%s", ""); goto done; }
            if (!parse_number(argv[++i], &v) || v != (int)v || v < 1 || v > 20) {
                rc = bad_usage("--order %s: expected an integer between 1 and 20", argv[i]);
                goto done;
            }
            cs.order = (int)v;
        } else if (!strcmp(a, "--set")) {
            if (i + 1 >= argc) { rc = bad_usage("--set needs name=value%s", ""); goto done; }
            char *arg = argv[++i], *eq = strchr(arg, '=');
            double v;
            if (!eq || eq == arg || !parse_number(eq + 1, &v)) {
                rc = bad_usage("--set %s: expected name=number", arg);
                goto done;
            }
            *eq = '\0';
            for (int k = 0; k < cs.nsets; k++)
                if (!strcmp(cs.names[k], arg)) { rc = bad_usage("--set %s given twice", arg); goto done; }
            cs.names[cs.nsets] = arg, cs.values[cs.nsets++] = v;
        } else if (!strcmp(a, "--mesh")) {
            if (i + 1 >= argc) { rc = bad_usage("--mesh needs a mesh (square:N, cube:N or FILE.msh)%s", ""); goto done; }
            mesh = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            rc = bad_usage("unknown option '%s'", a);
            goto done;
        } else if (path) {
            rc = bad_usage("more than one file ('%s')", a);
            goto done;
        } else {
            path = a;
        }
    }
    if (!path) {
        rc = bad_usage("no file given%s", "");
        goto done;
    }
    hdgc_problem *p = hdg_cli_load(path, &cs);   /* prints the diagnostics: errors, warnings */
    rc = !p || (mesh && check_mesh(p, mesh));
    if (!rc) fputs(hdgc_problem_summary(p), stdout);
    hdgc_problem_free(p);
done:
    hdg_cli_settings_free(&cs);
    return rc;
}
